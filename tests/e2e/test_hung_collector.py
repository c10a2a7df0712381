"""A hung external command never hangs a scrape, and leaves nothing behind.

No wall-clock bound on a scrape (that is the benchmarks' business): a scrape that completes
while the collector's command provably hangs shows that scrapes do not wait for collectors.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

from tests.e2e.serve import ZmonProcess, processes_running


def _hanging_program(tmp_path: Path, name: str) -> Path:
    prog = tmp_path / name
    prog.write_text(f"#!{sys.executable}\nimport time\ntime.sleep(3600)\n")
    prog.chmod(0o755)
    return prog


def _wait(check, timeout: float = 60.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _runs(text: str, result: str) -> float:
    m = re.search(
        rf'^zmon_collector_runs_total{{collector="arc",result="{result}"}} (\S+)$', text, re.M
    )
    return float(m.group(1)) if m else 0.0


def test_scrapes_answer_while_sysctl_hangs(tmp_path: Path) -> None:
    hang = _hanging_program(tmp_path, "hung-sysctl")
    zmon = ZmonProcess(
        [
            "--host.platform",
            "freebsd",
            "--binary.sysctl",
            str(hang),
            "--collector.arc.interval",
            "1",
            "--collector.arc.timeout",
            "1.5",
            "--path.state-dir",
            str(tmp_path / "state"),
            *_only("arc"),
        ],
        tmp_path / "zmon.log",
    )

    def scrape_during_a_hang() -> bool:
        """A whole scrape while one hung sysctl lives: it did not wait for the collector."""
        before = set(processes_running(str(hang)))
        if not before:
            return False
        zmon.metrics()
        return bool(before & set(processes_running(str(hang))))

    try:
        for _ in range(3):
            assert _wait(scrape_during_a_hang), "no scrape answered while sysctl hung"
        text = zmon.wait_for('zmon_collector_success{collector="arc"} 0.0')
        # Each hung sysctl is killed at the run's deadline: never two at once.
        timeouts = _runs(text, "timeout")
        assert timeouts >= 1
        most = 0

        def three_more_timeouts() -> bool:
            nonlocal most
            most = max(most, len(processes_running(str(hang))))
            return _runs(zmon.metrics(), "timeout") >= timeouts + 3

        assert _wait(three_more_timeouts, 120)
        assert most <= 1, f"{most} hung sysctl processes at once"
    finally:
        assert zmon.stop() == 0
    assert _wait(lambda: processes_running(str(hang)) == [], 30), "a hung sysctl outlived zmon"


def _only(*names: str) -> list[str]:
    from zmon.collecting.registry import collectors

    return [f"--no-collector.{n}" for n in collectors() if n not in names]
