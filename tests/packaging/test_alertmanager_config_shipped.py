"""Hermetic: packaging/ holds exactly one Alertmanager configuration, the README's, and the
.deb installs that file (checked on packaging/debian/rules; tests/packaging/test_deb.py
compares the installed bytes for real)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).parents[2]
CONFIG = "packaging/alertmanager/zmon.yml"


def _alertmanager_configs() -> list[str]:
    found = []
    for path in sorted((ROOT / "packaging").rglob("*")):
        if path.is_file() and path.suffix in (".yml", ".yaml"):
            text = path.read_text()
            if "receivers:" in text and "route:" in text:
                found.append(path.relative_to(ROOT).as_posix())
    return found


def test_packaging_holds_exactly_one_alertmanager_configuration() -> None:
    assert _alertmanager_configs() == [CONFIG]


def test_the_deb_installs_exactly_that_file() -> None:
    rules = (ROOT / "packaging" / "debian" / "rules").read_text()
    installs = re.findall(r"^\tinstall\b.*\balertmanager\b.*$", rules, re.M)
    assert installs == [f"\tinstall -D -m 0644 {CONFIG} $(DEST)/usr/share/zmon/alertmanager.yml"], (
        installs
    )


def test_the_readme_names_the_file_the_deb_installs() -> None:
    readme = (ROOT / "README.md").read_text()
    assert CONFIG in readme
    assert "packaging/alertmanager.yml" not in readme
