"""The .deb's maintainer scripts make and remove the HTTP process's user: run under sh with
getent, adduser and deluser stood in for (tests/packaging/test_deb.py installs the package
for real)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

PACKAGING = Path(__file__).parents[2] / "packaging"


def _run(tmp_path: Path, script: str, arg: str, user_exists: bool) -> list[str]:
    """Run a maintainer script; the stand-in commands it ran, one line each."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    log = tmp_path / "calls"
    log.write_text("")
    found = "exit 0" if user_exists else "exit 2"
    for name, body in (
        ("getent", found),
        ("adduser", "exit 0"),
        ("deluser", "exit 0"),
        ("delgroup", "exit 0"),
        ("rm", "exit 0"),  # (postrm's rm -rf of /opt/zmon and /var/lib/zmon)
    ):
        tool = bin_dir / name
        tool.write_text(f'#!/bin/sh\necho "{name} $*" >> {log}\n{body}\n')
        tool.chmod(0o755)
    text = (PACKAGING / "debian" / script).read_text()
    r = subprocess.run(
        ["sh", "-c", text, script, arg],
        env={"PATH": f"{bin_dir}:/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert r.returncode == 0, r.stderr
    return [line for line in log.read_text().splitlines() if not line.startswith("rm ")]


def test_postinst_creates_the_user_the_unit_drops_to(tmp_path: Path) -> None:
    unit = (PACKAGING / "zmon.service").read_text()
    user = re.search(r"^ExecStart=.* --web\.user (\S+)$", unit, re.M)
    assert user is not None
    calls = _run(tmp_path, "postinst", "configure", user_exists=False)
    assert calls[0] == f"getent passwd {user.group(1)}"
    (adduser,) = [c for c in calls if c.startswith("adduser")]
    words = adduser.split()
    assert words[-1] == user.group(1)
    assert {"--system", "--group", "--no-create-home"} <= set(words)
    assert words[words.index("--shell") + 1] == "/usr/sbin/nologin"
    assert "adduser" in (PACKAGING / "debian" / "control").read_text()  # a Depends


def test_postinst_keeps_an_existing_user(tmp_path: Path) -> None:
    assert not [c for c in _run(tmp_path, "postinst", "configure", True) if c.startswith("adduser")]


@pytest.mark.parametrize("arg", ["remove", "purge"])
def test_only_a_purge_removes_the_user(tmp_path: Path, arg: str) -> None:
    calls = _run(tmp_path, "postrm", arg, user_exists=True)
    removed = [c for c in calls if c.startswith(("deluser", "delgroup"))]
    if arg == "purge":
        assert removed == ["deluser --quiet --system zmon", "delgroup --quiet --system zmon"]
    else:
        assert removed == []
