"""SIGHUP reloads the config (a bad one is rejected); SIGTERM stops cleanly."""

from __future__ import annotations

import signal
import socket
import time
from pathlib import Path

from tests.e2e.serve import ZmonProcess, arc_procfs, collectors_toml
from tests.support.ports import free_port


def _arc_zmon(tmp_path: Path, cfg: Path, port: int | None = None) -> ZmonProcess:
    """zmon with the config ``cfg`` on a procfs that the arc collector reads."""
    args = ["--config", str(cfg), "--path.procfs", str(arc_procfs(tmp_path))]
    args += ["--path.sysfs", str(tmp_path / "sys"), "--path.state-dir", str(tmp_path / "state")]
    return ZmonProcess(args, tmp_path / "zmon.log", port=port)


def test_sighup_reloads_and_rejects_bad_config(tmp_path: Path) -> None:
    cfg = tmp_path / "zmon.toml"
    cfg.write_text(collectors_toml(["arc"]))
    zmon = _arc_zmon(tmp_path, cfg)
    try:
        zmon.wait_for("zmon_arc_hits_total 100.0")
        # A broken file is rejected; the daemon keeps running with the old config.
        cfg.write_text("[collectors.arc]\ninterval = -3\n")
        zmon.proc.send_signal(signal.SIGHUP)
        zmon.wait_logged("reload rejected", timeout=120)
        assert 'zmon_collector_success{collector="arc"}' in zmon.metrics()
        # A valid file that disables arc takes effect.
        cfg.write_text(collectors_toml([]))
        zmon.proc.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + 120
        while 'collector="arc"' in zmon.metrics() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert 'collector="arc"' not in zmon.metrics()
    finally:
        assert zmon.stop() == 0


def test_sighup_to_a_busy_port_keeps_the_old_config_and_the_daemon(tmp_path: Path) -> None:
    """A reload binds its new listeners before it changes anything: a port another process
    holds makes the whole reload fail, and zmon goes on as before."""
    port = free_port()
    cfg = tmp_path / "zmon.toml"
    cfg.write_text(collectors_toml(["arc"], listen=f"127.0.0.1:{port}"))
    zmon = _arc_zmon(tmp_path, cfg, port)
    try:
        zmon.wait_for("zmon_arc_hits_total 100.0")
        with socket.socket() as busy:
            busy.bind(("127.0.0.1", 0))
            busy.listen()
            taken = busy.getsockname()[1]
            # the new file also disables arc: that must not happen either
            cfg.write_text(collectors_toml([], listen=f"127.0.0.1:{taken}"))
            zmon.proc.send_signal(signal.SIGHUP)
            zmon.wait_logged("reload rejected")
        assert "Address already in use" in zmon.log_path.read_text()
        assert zmon.proc.poll() is None
        assert "zmon_arc_hits_total 100.0" in zmon.metrics()  # old address, old collectors
        # a free port works: zmon moves there and leaves the old one
        new_port = free_port()
        cfg.write_text(collectors_toml(["arc"], listen=f"127.0.0.1:{new_port}"))
        zmon.proc.send_signal(signal.SIGHUP)
        zmon.wait_logged("config reloaded")
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
