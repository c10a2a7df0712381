"""The .deb, for real: built with dpkg-buildpackage, installed on this machine, run, purged.

After the purge nothing of zmon may be left on the machine: every path with "zmon" in its
name under /etc, /opt, /usr, /lib/systemd and /var/lib is the same as before the install.
Where systemd is not PID 1 (containers, CI runners), the unit's ExecStart line is run as
systemd would run it, with its Environment=, and scraped.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from tests.helpers import not_run, require_tool
from tests.support.ports import free_port

pytestmark = [pytest.mark.real, pytest.mark.slow]

ROOT = Path(__file__).parents[2]
UNIT = Path("/lib/systemd/system/zmon.service")
APT = ["apt-get", "-y", "-q", "-o", "DPkg::Lock::Timeout=600"]


def _require_root() -> None:
    if os.geteuid() == 0:
        return
    not_run("installing a .deb needs root", "run as root")


def _zmon_paths() -> set[str]:
    out = subprocess.run(
        ["find", "/etc", "/opt", "/usr", "/lib/systemd", "/var/lib", "-xdev", "-path", "*zmon*"],
        capture_output=True,
        text=True,
    )
    return set(out.stdout.split("\n")) - {""}


def _installed() -> bool:
    r = subprocess.run(["dpkg-query", "-W", "-f=${Status}", "zmon"], capture_output=True, text=True)
    return "installed" in r.stdout and "not-installed" not in r.stdout


def _run(*cmd: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    r = subprocess.run(list(cmd), capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, f"{shlex.join(cmd)} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}"
    return r


def _unit_exec_start() -> tuple[list[str], dict[str, str]]:
    argv: list[str] = []
    env: dict[str, str] = {}
    for line in UNIT.read_text().splitlines():
        if line.startswith("ExecStart="):
            argv = shlex.split(line.partition("=")[2])
        elif line.startswith("Environment="):
            k, _, v = line.partition("=")[2].partition("=")
            env[k] = v
    return argv, env


def _serve_like_systemd(tmp_path: Path) -> None:
    """Run ExecStart with the unit's environment (plus a free loopback port), scrape, stop."""
    argv, env = _unit_exec_start()
    assert argv[0] == "/usr/bin/zmon" and Path(argv[0]).resolve() == Path("/opt/zmon/bin/zmon")
    Path("/var/lib/zmon").mkdir(mode=0o750, exist_ok=True)  # systemd's StateDirectory=zmon
    port = free_port()
    log = (tmp_path / "zmon.log").open("wb")
    proc = subprocess.Popen(
        [*argv, "--web.listen-address", f"127.0.0.1:{port}"],
        env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", **env},
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        body = b""
        while b"zmon_build_info" not in body:
            assert proc.poll() is None, (tmp_path / "zmon.log").read_text()
            assert time.monotonic() < deadline, (tmp_path / "zmon.log").read_text()
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
                    body = r.read()
            except OSError:
                time.sleep(0.2)
        os.killpg(proc.pid, signal.SIGTERM)
        assert proc.wait(30) == 0
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        log.close()


def test_deb_builds_installs_runs_and_purges_cleanly(tmp_path: Path) -> None:
    _require_root()
    for tool, why in (
        ("dpkg-buildpackage", "builds the .deb"),
        ("dh", "debhelper"),
        ("apt-get", "installs the .deb"),
        ("systemd-analyze", "verifies the unit"),
    ):
        require_tool(tool, why)
    if _installed():
        _run(*APT, "purge", "zmon", timeout=900)
    before = _zmon_paths()
    dist = tmp_path / "dist"
    build = _run("sh", str(ROOT / "packaging" / "build-deb.sh"), str(dist), timeout=900)
    deb = Path(build.stdout.strip().splitlines()[-1])
    assert deb.name.startswith("zmon_") and deb.name.endswith(".deb")
    try:
        _run(*APT, "install", "--no-install-recommends", str(deb), timeout=900)
        assert _installed()
        assert _run("zmon", "--version").stdout.startswith("zmon ")
        assert "/etc/zmon/zmon.toml" in _run("dpkg-query", "-W", "-f=${Conffiles}", "zmon").stdout
        _run("zmon", "check-config", "/etc/zmon/zmon.toml")
        collected = _run("zmon", "collect", "--once", "--config", "/etc/zmon/zmon.toml")
        assert "zmon_build_info" in collected.stdout
        for shared in ("zmon.rules.yml", "alertmanager.yml", "grafana/zmon-pool.json"):
            assert (Path("/usr/share/zmon") / shared).is_file()
        # the one Alertmanager configuration, the README's, byte for byte
        shipped = ROOT / "packaging" / "alertmanager" / "zmon.yml"
        assert Path("/usr/share/zmon/alertmanager.yml").read_bytes() == shipped.read_bytes()
        docs = Path("/usr/share/doc/zmon")
        assert (docs / "POLICY.md").is_file() or (docs / "POLICY.md.gz").is_file()
        # the unit's Documentation= and the shipped rules' runbook_url open these names
        assert (docs / "README.md").is_file() and (docs / "RUNBOOK.md").is_file()
        site = _run("zmon", "rules", "--grafana-url", "https://grafana.internal").stdout
        assert 'dashboard: "https://grafana.internal/d/zmon-pool/' in site
        verify = _run("systemd-analyze", "verify", str(UNIT))
        assert "zmon.service" not in verify.stderr, verify.stderr
        if Path("/run/systemd/system").is_dir():  # systemd is PID 1 here
            _run("systemctl", "start", "zmon")
            _run("systemctl", "is-active", "zmon")
            _run("systemctl", "stop", "zmon")
        else:
            _serve_like_systemd(tmp_path)
    finally:
        _run(*APT, "purge", "zmon", timeout=900)
    assert not _installed()
    left = _zmon_paths() - before
    assert not left, f"left behind after purge: {sorted(left)}"
