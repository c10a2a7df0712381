"""SIGHUP reloads the config (a bad one is rejected); SIGTERM stops cleanly."""

from __future__ import annotations

import signal
import time
from pathlib import Path

from tests.e2e.serve import ZmonProcess
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
        ["--config", str(cfg), "--path.procfs", str(_proc_tree(tmp_path)),
         "--path.sysfs", str(tmp_path / "sys"), "--path.state-dir", str(tmp_path / "state")],
        tmp_path / "zmon.log",
    )  # fmt: skip
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
