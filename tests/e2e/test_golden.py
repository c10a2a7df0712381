"""End to end: ``zmon serve`` against a fixture host tree, /metrics diffed with a golden file.

The tree is the demo host's frozen at the "resilvering" phase (real OpenZFS 2.3.2 captures):
procfs, sysfs, /dev/disk links and recorded ``zpool``/``zfs``/``smartctl`` programs. Lines that
change from run to run (durations, timestamps) are dropped before the diff.
`pytest --update-golden` rewrites the golden file; `promtool check metrics` lints it.
"""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

from tests.e2e.serve import ZmonProcess
from tests.helpers import require_tool
from zmon.collecting.config import declared_binaries
from zmon.collecting.registry import collectors
from zmon.demo.host import DemoHost
from zmon.demo.timeline import PHASES

GOLDEN_NAME = "e2e/serve-resilvering.prom"
PHASE = next(i for i, p in enumerate(PHASES) if p.name == "resilvering")

# Samples whose value depends on when or how fast things ran, not on the host's state.
VOLATILE = re.compile(
    r"^(zmon_collector_duration_seconds|zmon_collector_last_success_timestamp_seconds"
    r"|zmon_start_time_seconds|zmon_collector_runs_total|zmon_collector_running"
    r"|zmon_zfs_events_last_timestamp_seconds|zmon_kernel_log_last_event_timestamp_seconds"
    r"|zmon_disk_smart_last_success_timestamp_seconds|zmon_disk_smartctl_duration_seconds"
    # a scan in progress is replayed as if recorded now: its rates follow the clock
    r"|zmon_pool_scan_(?:issue|examine)_rate_bytes_per_second|zmon_pool_scan_remaining_seconds"
    # and so are snapshots: each as old as on the lab host, its creation time moves with now
    r"|zmon_dataset_newest_snapshot_timestamp_seconds"
    r"|zmon_ups_last_poll_timestamp_seconds)[{ ]"
)


# Scans and pools are replayed as old as on the lab host: their times move with now. Their
# samples stay (docs/metrics.md is built from this file) with the value NaN; the ages are
# checked in tests/demo/test_replay_times.py.
RECORDED_TIMES = re.compile(
    r"^((?:zmon_pool_scan_(?:start|end|pause)_time_seconds|zmon_pool_last_scrub_end_time_seconds"
    r"|zmon_pool_creation_time_seconds)(?:\{[^}]*\})?) \S+$"
)


def normalize(text: str) -> str:
    """Drop volatile samples; recorded times read NaN."""
    return "".join(
        RECORDED_TIMES.sub(r"\1 NaN", line) + "\n"
        for line in text.splitlines()
        if not VOLATILE.match(line)
    )


def _args(host: DemoHost, tmp_path: Path) -> list[str]:
    args = [
        "--path.procfs", str(host.paths.procfs),
        "--path.sysfs", str(host.paths.sysfs),
        "--path.rootfs", str(host.paths.rootfs),
        "--path.state-dir", str(tmp_path / "state"),
        "--host.platform", "linux",
        "--no-collector.hotplug",  # it listens to this machine's udev, not the fixture
    ]  # fmt: skip
    for name in declared_binaries(collectors()):
        args += [f"--binary.{name}", str(host.root / "bin" / name)]
    return args


def _events_counted(text: str) -> float:
    return sum(float(v) for v in re.findall(r"^zmon_zfs_events_total\{[^}]*\} (\S+)$", text, re.M))


def _settled(zmon: ZmonProcess, host: DemoHost, timeout: float = 300) -> str:
    """Scrape until every collector has run, the event follower has counted every event of
    the host's log (its first run may come before it read them: then the next one has), and
    two scrapes a second apart agree."""
    deadline = time.monotonic() + timeout
    previous = None
    while time.monotonic() < deadline:
        text = zmon.metrics()
        pending = [
            m.group(1)
            for m in re.finditer(
                r'^zmon_collector_interval_seconds\{collector="([^"]+)"', text, re.M
            )
            if f'zmon_collector_success{{collector="{m.group(1)}"}}' not in text
        ]
        current = normalize(text)
        counted = _events_counted(text) == host.events_written
        if not pending and counted and current == previous:
            return current
        previous = current
        time.sleep(1.0)
    raise AssertionError(f"exposition never settled; last:\n{previous}")


def test_serve_matches_golden(tmp_path: Path, golden) -> None:  # type: ignore[no-untyped-def]
    host = DemoHost(phase_seconds=3600, root=tmp_path / "host", first_phase=PHASE, stepped=True)
    zmon = ZmonProcess(_args(host, tmp_path), tmp_path / "zmon.log")
    try:
        text = _settled(zmon, host)
    finally:
        assert zmon.stop() == 0
        host.stop()
    golden(GOLDEN_NAME, text)


def test_golden_passes_promtool() -> None:
    promtool = require_tool("promtool", "Debian package prometheus")
    path = Path(__file__).parents[1] / "golden" / GOLDEN_NAME
    result = subprocess.run(
        [promtool, "check", "metrics"], input=path.read_bytes(), capture_output=True, timeout=60
    )
    assert result.returncode == 0, result.stdout.decode() + result.stderr.decode()
