"""Nothing the .deb installs points at a placeholder host; a site renders its own links.

The .deb installs (packaging/debian/rules, zmon.docs, the unit) the rule file, the
Alertmanager example, the dashboards, the example config, the docs and the Python packages:
none of them may name a made-up address, and the links alerts carry come from the site's
settings (``zmon rules --runbook-url URL --grafana-url URL``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from alert_rules import generate
from zmon.cli import main
from zmon.status.links import INSTALLED_RUNBOOK, SiteLinks

ROOT = Path(__file__).parents[2]
DEBIAN = ROOT / "packaging" / "debian"
# RFC 2606/6761 example domains and the repository address zmon never had
PLACEHOLDER = re.compile(
    r"\b(?:[\w-]+\.)*example\.(?:com|org|net)\b|github\.com/zmon/zmon", re.IGNORECASE
)


def installed_files() -> list[Path]:
    """The source files the .deb installs: its install lines, docs and unit, and every file
    of the Python packages it puts under /opt/zmon."""
    rules = (DEBIAN / "rules").read_text()
    files: list[Path] = []
    for pattern in re.findall(r"^\s*(?:install|cp)\b.*?\s([\w./*-]+)\s+\S+$", rules, re.M):
        files.extend(sorted(ROOT.glob(pattern)))
    files += [ROOT / line for line in (DEBIAN / "zmon.docs").read_text().split()]
    files += [DEBIAN / "copyright", ROOT / "packaging" / "zmon.service"]
    files += [p for p in (ROOT / "zmon").rglob("*") if p.is_file()]  # with its package data
    files += sorted((ROOT / "alert_rules").glob("*.py"))
    return sorted(set(files))


def test_the_install_list_is_read() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in installed_files()}
    for expected in (
        "alert_rules/zmon.rules.yml",
        "packaging/alertmanager/zmon.yml",
        "packaging/zmon.toml",
        "alert_rules/RUNBOOK.md",
        "packaging/zmon.service",
        "zmon/status/links.py",
        "alert_rules/generate.py",
    ):
        assert expected in names
    assert any(n.startswith("grafana/dashboards/") for n in names)


@pytest.mark.parametrize("path", installed_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_nothing_installed_names_a_placeholder_host(path: Path) -> None:
    text = path.read_bytes().decode("utf-8", "replace")
    found = sorted(set(m.group(0) for m in PLACEHOLDER.finditer(text)))
    assert not found, f"{path.relative_to(ROOT)} names {found}"


def test_the_shipped_rules_link_the_installed_runbook_and_no_dashboard() -> None:
    doc = yaml.safe_load(generate.RULES_FILE.read_text())
    alerts = [r for g in doc["groups"] for r in g["rules"] if "alert" in r]
    assert alerts
    for rule in alerts:
        notes = rule["annotations"]
        assert notes["runbook_url"] == f"{INSTALLED_RUNBOOK}#{rule['alert'].lower()}"
        assert "dashboard" not in notes
    # the .deb installs the runbook there, uncompressed
    assert "alert_rules/RUNBOOK.md" in (DEBIAN / "zmon.docs").read_text().split()
    assert re.search(r"^\s*dh_compress -X\.md$", (DEBIAN / "rules").read_text(), re.M)


def test_zmon_rules_renders_the_links_of_a_site(capsys: pytest.CaptureFixture[str]) -> None:
    site = ["--runbook-url", "https://wiki.internal/zmon/RUNBOOK.md"]
    assert main(["rules", *site, "--grafana-url", "https://grafana.internal/"]) == 0
    doc = yaml.safe_load(capsys.readouterr().out)
    degraded = next(
        r for g in doc["groups"] for r in g["rules"] if r.get("alert") == "ZfsPoolDegraded"
    )
    assert degraded["annotations"]["runbook_url"] == (
        "https://wiki.internal/zmon/RUNBOOK.md#zfspooldegraded"
    )
    assert degraded["annotations"]["dashboard"] == (
        "https://grafana.internal/d/zmon-pool/zmon-pool?var-instance={{ $labels.instance | "
        "urlquery }}&var-pool={{ $labels.pool | urlquery }}"
    )
    # the generator's rendering for the same site
    same = SiteLinks("https://wiki.internal/zmon/RUNBOOK.md", "https://grafana.internal/")
    assert yaml.safe_load(generate.render(site=same)) == doc
    assert main(["rules", "--runbook-url", ""]) == 0
    assert "runbook_url" not in capsys.readouterr().out
    assert main(["rules", "--grafana-url", "grafana.internal"]) == 2
    assert "not an absolute" in capsys.readouterr().err


def test_the_generator_keeps_site_renderings_out_of_the_committed_file() -> None:
    assert generate.main(["--grafana-url", "https://grafana.internal"]) == 2


def test_the_rule_generator_is_in_the_python_package() -> None:
    """`zmon rules` imports alert_rules: the wheel must carry it (not its tests or YAML)."""
    text = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'^include = \["zmon\*", "alert_rules"\]$', text, re.M)
