"""A hung external command never hangs a scrape, and leaves nothing behind."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from tests.e2e.serve import ZmonProcess, processes_running


def _hanging_program(tmp_path: Path, name: str) -> Path:
    prog = tmp_path / name
    prog.write_text(f"#!{sys.executable}\nimport time\ntime.sleep(3600)\n")
    prog.chmod(0o755)
    return prog


def test_scrape_stays_fast_while_sysctl_hangs(tmp_path: Path) -> None:
    hang = _hanging_program(tmp_path, "hung-sysctl")
    zmon = ZmonProcess(
        [
            "--host.platform", "freebsd",
            "--binary.sysctl", str(hang),
            "--collector.arc.interval", "1",
            "--collector.arc.timeout", "1.5",
            "--path.state-dir", str(tmp_path / "state"),
            *_only("arc"),
        ],
        tmp_path / "zmon.log",
    )  # fmt: skip
    try:
        worst = 0.0
        for _ in range(30):
            start = time.monotonic()
            zmon.metrics()
            worst = max(worst, time.monotonic() - start)
            time.sleep(0.1)
        text = zmon.wait_for('zmon_collector_success{collector="arc"} 0.0')
        assert 'zmon_collector_runs_total{collector="arc",result="timeout"}' in text
        assert worst < 0.5, f"a scrape took {worst:.3f}s while the collector hung"
        # Each hung sysctl is killed at the run's deadline: at most the current one lives.
        time.sleep(0.5)
        assert len(processes_running(str(hang))) <= 1
    finally:
        assert zmon.stop() == 0
    time.sleep(0.5)
    assert processes_running(str(hang)) == [], "a hung sysctl outlived zmon"


def _only(*names: str) -> list[str]:
    from zmon.registry import collectors

    return [f"--no-collector.{n}" for n in collectors() if n not in names]
