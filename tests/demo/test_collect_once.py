"""``zmon collect --once --demo``: every collector has data on the demo host."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from zmon.collecting.registry import collectors

# Every collector, by name: one that goes missing from the registry fails its case here.
WITH_DATA = ("arc", "zpool", "zpool_list", "zpool_events", "datasets", "dedup", "pool_kstats",
             "devices", "smart", "kernel_log", "ups", "iostat", "txg", "zfs_kstats",
             "zfs_module")  # fmt: skip
# Collectors the demo host cannot feed, and why.
WITHOUT_DATA = {
    "hotplug": "it listens to this machine's udev, which the demo does not simulate",
    "sas_phy": "the demo's disks sit on AHCI and NVMe: it has no SAS HBA or expander",
}


@pytest.fixture(scope="module")
def exposition() -> str:
    """stdout of ``zmon collect --once --demo``, run as the command line runs it."""
    result = subprocess.run(
        [sys.executable, "-m", "zmon.cli", "collect", "--once", "--demo"],
        capture_output=True,
        timeout=120,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert result.returncode == 0, result.stderr.decode(errors="replace")[-2000:]
    return result.stdout.decode()


def _value(text: str, name: str, collector: str) -> float | None:
    m = re.search(rf'^{name}\{{collector="{collector}"\}} (\S+)$', text, re.M)
    return float(m.group(1)) if m else None


def test_every_registered_collector_is_listed_here() -> None:
    assert sorted(collectors()) == sorted([*WITH_DATA, *WITHOUT_DATA])


@pytest.mark.parametrize("name", WITH_DATA)
def test_collector_succeeds_with_data(exposition: str, name: str) -> None:
    assert _value(exposition, "zmon_collector_success", name) == 1.0
    assert _value(exposition, "zmon_collector_has_data", name) == 1.0


def _exposition_lines(text: str) -> str:
    """The exposition lines of stdout (logs go to stderr; this guards the check below)."""
    sample_or_comment = re.compile(r"^(#|[a-zA-Z_:][a-zA-Z0-9_:]*[{ ])")
    return "".join(line + "\n" for line in text.splitlines() if sample_or_comment.match(line))


def test_stdout_holds_only_the_exposition(exposition: str) -> None:
    assert exposition == _exposition_lines(exposition)


def test_exposition_parses_and_has_the_disk_story(exposition: str) -> None:
    exposition = _exposition_lines(exposition)
    names = {f.name for f in text_string_to_metric_families(exposition)}
    for family in (
        "zmon_disk_device_info",
        "zmon_disk_info",
        "zmon_disk_smart_passed",
        "zmon_disk_crc_errors",
        "zmon_disk_interface_speed_bytes",
        "zmon_vdev_info",
        "zmon_ups_status",
    ):
        assert family in names, family
    assert 'zmon_disk_crc_errors_total{device="sdb"} 0.0' in exposition  # healthy phase


def test_snapshots_are_as_old_as_on_the_lab_host(exposition: str) -> None:
    """The demo replays the snapshot listing as if recorded now: every dataset of the
    healthy phase with a snapshot has one a few minutes old (taken just before the lab
    recorded it), so the snapshot age alert stays quiet on the demo."""
    import time

    newest = {
        s.labels["dataset"]: s.value
        for fam in text_string_to_metric_families(exposition)
        if fam.name == "zmon_dataset_newest_snapshot_timestamp_seconds"
        for s in fam.samples
    }
    assert set(newest) == {"tank", "tank/big", "tank/data", "tank/vol", "rz/data"}
    for when in newest.values():
        assert 0 <= time.time() - when < 3600


def test_pools_are_as_old_as_on_the_lab_host(exposition: str) -> None:
    """The demo's pools were created moments before the lab recorded them, and are replayed
    as just as young whatever the date: ZfsScrubOverdue stays quiet on the never-scrubbed
    pools of the healthy phase."""
    import time

    created = {
        s.labels["pool"]: s.value
        for fam in text_string_to_metric_families(exposition)
        if fam.name == "zmon_pool_creation_time_seconds"
        for s in fam.samples
    }
    assert set(created) == {"rz", "single", "tank"}
    for when in created.values():
        assert 0 <= time.time() - when < 3600
