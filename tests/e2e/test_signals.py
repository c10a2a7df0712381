"""SIGHUP reloads the config (a bad one is rejected); SIGTERM stops cleanly."""

from __future__ import annotations

import signal
import socket
import time
from pathlib import Path

from tests.e2e.serve import ZmonProcess
from tests.support.ports import free_port
from zmon.registry import collectors


def _config(path: Path, enabled: list[str], extra: str = "") -> None:
    lines = []
    for name in collectors():
        lines.append(f"[collectors.{name}]\nenabled = {'true' if name in enabled else 'false'}\n")
    path.write_text("\n".join(lines) + extra)


def _proc_tree(tmp_path: Path) -> Path:
    """A procfs with one arcstats file, enough for the arc collector."""
    kstat = tmp_path / "proc" / "spl" / "kstat" / "zfs"
    kstat.mkdir(parents=True)
    (kstat / "arcstats").write_text(
        "13 1 0x01 3 144 1 2\nname                            type data\n"
        "hits                            4    100\nmisses                          4    5\n"
        "size                            4    4096\n"
    )
    return tmp_path / "proc"


def test_sighup_reloads_and_rejects_bad_config(tmp_path: Path) -> None:
    cfg = tmp_path / "zmon.toml"
    _config(cfg, ["arc"])
    zmon = ZmonProcess(
        [
            "--config",
            str(cfg),
            "--path.procfs",
            str(_proc_tree(tmp_path)),
            "--path.sysfs",
            str(tmp_path / "sys"),
            "--path.state-dir",
            str(tmp_path / "state"),
        ],
        tmp_path / "zmon.log",
    )
    try:
        zmon.wait_for("zmon_arc_hits_total 100.0")
        # A broken file is rejected; the daemon keeps running with the old config.
        cfg.write_text("[collectors.arc]\ninterval = -3\n")
        zmon.proc.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + 120
        while "reload rejected" not in zmon.log_path.read_text() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert zmon.proc.poll() is None
        assert 'zmon_collector_success{collector="arc"}' in zmon.metrics()
        assert "reload rejected" in zmon.log_path.read_text()
        # A valid file that disables arc takes effect.
        _config(cfg, [])
        zmon.proc.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + 120
        while 'collector="arc"' in zmon.metrics() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert 'collector="arc"' not in zmon.metrics()
    finally:
        assert zmon.stop() == 0


def _wait_log(zmon: ZmonProcess, needle: str, count: int = 1, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while zmon.log_path.read_text().count(needle) < count:
        assert zmon.proc.poll() is None, zmon.log_path.read_text()
        assert time.monotonic() < deadline, f"{needle!r} not logged:\n{zmon.log_path.read_text()}"
        time.sleep(0.1)


def test_sighup_to_a_busy_port_keeps_the_old_config_and_the_daemon(tmp_path: Path) -> None:
    """A reload binds its new listeners before it changes anything: a port another process
    holds makes the whole reload fail, and zmon goes on as before."""
    port = free_port()
    cfg = tmp_path / "zmon.toml"
    _config(cfg, ["arc"], f'\n[web]\nlisten_address = ["127.0.0.1:{port}"]\n')
    zmon = ZmonProcess(
        [
            "--config",
            str(cfg),
            "--path.procfs",
            str(_proc_tree(tmp_path)),
            "--path.sysfs",
            str(tmp_path / "sys"),
            "--path.state-dir",
            str(tmp_path / "state"),
        ],
        tmp_path / "zmon.log",
        port=port,
    )
    try:
        zmon.wait_for("zmon_arc_hits_total 100.0")
        with socket.socket() as busy:
            busy.bind(("127.0.0.1", 0))
            busy.listen()
            taken = busy.getsockname()[1]
            # the new file also disables arc: that must not happen either
            _config(cfg, [], f'\n[web]\nlisten_address = ["127.0.0.1:{taken}"]\n')
            zmon.proc.send_signal(signal.SIGHUP)
            _wait_log(zmon, "reload rejected")
        assert "Address already in use" in zmon.log_path.read_text()
        assert zmon.proc.poll() is None
        assert "zmon_arc_hits_total 100.0" in zmon.metrics()  # old address, old collectors
        # a free port works: zmon moves there and leaves the old one
        new_port = free_port()
        _config(cfg, ["arc"], f'\n[web]\nlisten_address = ["127.0.0.1:{new_port}"]\n')
        zmon.proc.send_signal(signal.SIGHUP)
        _wait_log(zmon, "config reloaded")
        zmon.base = f"http://127.0.0.1:{new_port}"
        zmon.wait_for("zmon_arc_hits_total 100.0")
        try:
            socket.create_connection(("127.0.0.1", port), 5).close()
        except ConnectionRefusedError:
            pass
        else:
            raise AssertionError("the old address still accepts connections")
    finally:
        assert zmon.stop() == 0
