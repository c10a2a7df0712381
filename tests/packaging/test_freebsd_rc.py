"""The FreeBSD rc.d script, run under sh with rc.subr and daemon(8) stood in for.

The stand-in rc.subr runs the start pre-command and start command as rc.subr would; the
stand-in daemon(8) records its arguments. The test checks the script validates the config
with ``zmon check-config`` first and starts ``zmon serve`` with flags zmon accepts.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from zmon.cli import _parser

SCRIPT = Path(__file__).parents[2] / "packaging" / "freebsd" / "zmon"

RC_SUBR = """
load_rc_config() { :; }
run_rc_command() {
    case "$1" in
    start) eval "$start_precmd" && eval "$start_cmd" ;;
    checkconfig) eval "$checkconfig_cmd" ;;
    esac
}
"""


def _run(
    tmp_path: Path, command: str, config: str, user: str = "nobody"
) -> subprocess.CompletedProcess[str]:
    (tmp_path / "rc.subr").write_text(RC_SUBR)
    daemon = tmp_path / "daemon"
    daemon.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > {tmp_path}/daemon.args\n')
    daemon.chmod(0o755)
    zmon = tmp_path / "zmon"
    zmon.write_text(
        f"#!{sys.executable}\nimport sys\nfrom zmon.cli import main\nsys.exit(main())\n"
    )
    zmon.chmod(0o755)
    script = SCRIPT.read_text().replace(". /etc/rc.subr", f". {tmp_path}/rc.subr")
    script = script.replace("/usr/sbin/daemon", str(daemon))
    (tmp_path / "rc").write_text(script)
    settings = (
        f"zmon_bin={zmon}; zmon_config={config}; zmon_state_dir={tmp_path}/db; "
        f"zmon_user={user}; "
        "zmon_flags='--web.listen-address 127.0.0.1:10999'; "
    )
    return subprocess.run(
        ["sh", "-c", settings + f"set -- {command}; . {tmp_path}/rc"],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_syntax() -> None:
    assert subprocess.run(["sh", "-n", str(SCRIPT)]).returncode == 0


def test_start_checks_the_config_and_runs_zmon_serve(tmp_path: Path) -> None:
    config = tmp_path / "zmon.toml"
    config.write_text('[web]\nlisten_address = [":10124"]\n')
    r = _run(tmp_path, "start", str(config))
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "db").is_dir()
    args = (tmp_path / "daemon.args").read_text().splitlines()
    assert args[:6] == ["-f", "-S", "-T", "zmon", "-p", "/var/run/zmon.pid"]
    assert args[6] == str(tmp_path / "zmon")
    ns = _parser().parse_args(args[7:])  # zmon accepts every flag the script passes
    assert ns.command == "serve" and ns.config == str(config)
    assert vars(ns)["set:host.platform"] == "freebsd"
    assert vars(ns)["set:web.listen_address"] == ["127.0.0.1:10999"]
    assert vars(ns)["set:web.user"] == "nobody"  # the HTTP process drops to it


def test_a_missing_user_stops_the_start(tmp_path: Path) -> None:
    config = tmp_path / "zmon.toml"
    config.write_text('[web]\nlisten_address = [":10124"]\n')
    r = _run(tmp_path, "start", str(config), user="zmon-no-such-user")
    assert r.returncode != 0
    assert "no user zmon-no-such-user" in r.stderr
    assert not (tmp_path / "daemon.args").exists()


def test_a_bad_config_stops_the_start(tmp_path: Path) -> None:
    config = tmp_path / "zmon.toml"
    config.write_text("[web]\nlisten_address = 12\n")
    r = _run(tmp_path, "start", str(config))
    assert r.returncode != 0
    assert "web.listen_address" in r.stderr
    assert not (tmp_path / "daemon.args").exists()
