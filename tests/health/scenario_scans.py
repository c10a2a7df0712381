"""The scans, capacity and dataset events of the synthetic host (scenario.py): tank's scrub
(minutes 90 to 115) ends having repaired data while its vdevs count errors, after a last
scrub that was overdue; fast was never scrubbed; pool rz resilvers from minute 20 and stalls
at minute 62, with zpool's collector stale for minutes 100 to 105, and reads the last good
copy of its mirror from a disk with pending sectors from minute 30; pool slow resilvers at a
tenth of its earlier rate from minute 40. tank fills: 85 % at minute 10, 93 % at 30, back to
87 % at 60 and 78 % at 90 (between each alert's bounds), 70 % at 120. fast's free space
fragments from minute 20. Datasets of tank near their quota (home) and refquota (vm), one
with no quota set (scratch); home's snapshots are overdue until one is taken at minute 100,
vm has none and is overdue from its creation, scratch is not expected to have any.

Timestamps are seconds from the scenario's start (``time()`` is 0 at minute 0): an event
before it is negative."""

from __future__ import annotations

from collections.abc import Callable

from tests.health.scenario import Series, _series

DAY = 86400


def _steps(*changes: tuple[int, float]) -> Callable[[int], float]:
    """A gauge at each (from minute, value) in turn."""

    def at(i: int) -> float:
        return next(v for start, v in reversed(changes) if i >= start)

    return at


def _scrubs(out: Series) -> None:
    """tank: its last scrub 35 days and a minute ago until the one of minutes 90 to 115 ends
    with repaired bytes; fast: created 36 days ago, never scrubbed."""
    tank, fast = {"pool": "tank"}, {"pool": "fast"}
    _series(out, "zmon_pool_last_scrub_end_time_seconds", tank,
            _steps((0, -35.0 * DAY - 60), (115, 115 * 60.0)))  # fmt: skip
    _series(out, "zmon_pool_creation_time_seconds", tank, lambda i: -400.0 * DAY)
    _series(out, "zmon_pool_creation_time_seconds", fast, lambda i: -36.0 * DAY)
    for state, during in (("scanning", (90, 115)), ("finished", (115, 999))):
        _series(out, "zmon_pool_scan_info", {**tank, "function": "scrub", "state": state},
                lambda i, a=during[0], b=during[1]: 1.0 if a <= i < b else None)  # fmt: skip
    _series(out, "zmon_pool_scan_errors", tank, lambda i: 0.0)
    _series(out, "zmon_pool_scan_processed_bytes", tank, _steps((0, 0.0), (100, 4096.0)))


def _resilvers(out: Series) -> None:
    """rz: started at minute 20, issues and examines 1 GB a minute until minute 62, then
    nothing; slow: started an hour before the scenario, 1 GB a minute, a tenth of it from
    minute 40, of 1 TB to issue."""
    gb = 1e9
    rz, slow = {"pool": "rz"}, {"pool": "slow"}
    _series(out, "zmon_pool_scan_in_progress", {**rz, "function": "resilver"},
            _steps((0, 0.0), (20, 1.0)))  # fmt: skip
    _series(out, "zmon_pool_scan_start_time_seconds", rz, lambda i: 1200.0)
    progress = lambda i: gb * max(0, min(i, 62) - 20)  # noqa: E731
    for name in ("zmon_pool_scan_issued_bytes", "zmon_pool_scan_examined_bytes"):
        _series(out, name, rz, progress)
    _series(out, "zmon_pool_scan_to_issue_bytes", rz, lambda i: 500 * gb)
    _series(out, "zmon_collector_stale", {"collector": "zpool"},
            lambda i: 1.0 if 100 <= i < 105 else 0.0)  # fmt: skip
    _series(out, "zmon_pool_scan_in_progress", {**slow, "function": "resilver"}, lambda i: 1.0)
    _series(out, "zmon_pool_scan_start_time_seconds", slow, lambda i: -3600.0)
    _series(out, "zmon_pool_scan_issued_bytes", slow,
            lambda i: gb * (60 + min(i, 40)) + gb / 10 * max(0, i - 40))  # fmt: skip
    _series(out, "zmon_pool_scan_examined_bytes", slow, lambda i: gb * (60 + i))
    _series(out, "zmon_pool_scan_to_issue_bytes", slow, lambda i: 1000 * gb)
    for pool in (rz, slow):
        _series(out, "zmon_pool_scan_paused", pool, lambda i: 0.0)


def _resilver_source(out: Series) -> None:
    """rz's mirror-0: sdr, and replacing-1 (sds onto sdt, which the resilver writes). sdr,
    the only good copy, counts pending sectors from minute 30; sds is leaving and is not read.
    wide's raidz2-0 resilvers vdx and has a column to spare: its failing vdu (SMART FAILED) is
    not the last copy."""

    def leaf(pool: str, vdev: str, device: str, kind: str, parent: str) -> None:
        _series(out, "zmon_vdev_info", {"pool": pool, "vdev": vdev, "device": device,
                "type": kind, "parent": parent, "class": "normal"}, lambda i: 1.0)  # fmt: skip
        _series(out, "zmon_vdev_state", {"pool": pool, "vdev": vdev, "class": "normal",
                "state": "online"}, lambda i: 1.0)  # fmt: skip

    for vdev, device, kind, parent in (("mirror-0", "", "mirror", "rz"),
                                       ("sdr", "sdr", "disk", "mirror-0"),
                                       ("replacing-1", "", "replacing", "mirror-0"),
                                       ("sds", "sds", "disk", "replacing-1"),
                                       ("sdt", "sdt", "disk", "replacing-1"),
                                       ("raidz2-0", "", "raidz", "wide"),
                                       ("vdu", "vdu", "disk", "raidz2-0"),
                                       ("vdv", "vdv", "disk", "raidz2-0"),
                                       ("vdw", "vdw", "disk", "raidz2-0"),
                                       ("vdx", "vdx", "disk", "raidz2-0")):  # fmt: skip
        leaf(
            "wide" if device.startswith("vd") or vdev == "raidz2-0" else "rz",
            vdev,
            device,
            kind,
            parent,
        )
    for pool, vdev in (("rz", "sdt"), ("wide", "vdx")):
        _series(out, "zmon_vdev_note_info", {"pool": pool, "vdev": vdev, "class": "normal",
                "kind": "resilvering"}, lambda i: 1.0)  # fmt: skip
    _series(out, "zmon_pool_scan_in_progress", {"pool": "wide", "function": "resilver"},
            lambda i: 1.0)  # fmt: skip
    _series(out, "zmon_disk_pending_sectors", {"device": "sdr"}, _steps((0, 0.0), (30, 8.0)))
    _series(out, "zmon_disk_smart_passed", {"device": "vdu"}, lambda i: 0.0)


def _capacity(out: Series) -> None:
    _series(out, "zmon_pool_size_bytes", {"pool": "tank"}, lambda i: 1000.0)
    _series(out, "zmon_pool_allocated_bytes", {"pool": "tank"},
            _steps((0, 500.0), (10, 850.0), (30, 930.0), (60, 870.0), (90, 780.0),
                   (120, 700.0)))  # fmt: skip
    _series(out, "zmon_pool_size_bytes", {"pool": "fast"}, lambda i: 1000.0)
    _series(out, "zmon_pool_allocated_bytes", {"pool": "fast"}, lambda i: 100.0)
    _series(out, "zmon_pool_fragmentation_ratio", {"pool": "fast"},
            _steps((0, 0.3), (20, 0.75)))  # fmt: skip


def _datasets(out: Series) -> None:
    """home near its quota from minute 30, vm near its refquota from minute 50, scratch
    full without a quota."""
    home = {"pool": "tank", "dataset": "tank/home", "type": "filesystem"}
    vm = {"pool": "tank", "dataset": "tank/vm", "type": "volume"}
    scratch = {"pool": "tank", "dataset": "tank/scratch", "type": "filesystem"}
    _series(out, "zmon_dataset_used_bytes", home, _steps((0, 500.0), (30, 950.0)))
    _series(out, "zmon_dataset_quota_bytes", home, lambda i: 1000.0)
    _series(out, "zmon_dataset_referenced_bytes", vm, _steps((0, 500.0), (50, 920.0)))
    _series(out, "zmon_dataset_refquota_bytes", vm, lambda i: 1000.0)
    _series(out, "zmon_dataset_used_bytes", scratch, lambda i: 990.0)
    _series(out, "zmon_dataset_quota_bytes", scratch, lambda i: 0.0)
    # snapshots: home's newest 26 h less 10 min old at the start, a new one at minute 100
    _series(out, "zmon_dataset_snapshots_expected_since_timestamp_seconds", home,
            lambda i: -100.0 * DAY)  # fmt: skip
    _series(out, "zmon_dataset_newest_snapshot_timestamp_seconds", home,
            _steps((0, -93000.0), (100, 6000.0)))  # fmt: skip
    _series(out, "zmon_dataset_snapshots", home, _steps((0, 5.0), (100, 6.0)))
    _series(out, "zmon_dataset_snapshots_expected_since_timestamp_seconds", vm,
            lambda i: -90000.0)  # fmt: skip
    _series(out, "zmon_dataset_snapshots", vm, lambda i: 0.0)
    _series(out, "zmon_dataset_newest_snapshot_timestamp_seconds", scratch,
            lambda i: -400.0 * DAY)  # fmt: skip
    _series(out, "zmon_dataset_snapshots", scratch, lambda i: 3.0)


def add(out: Series) -> None:
    """The scans, capacity and dataset series, into ``out``."""
    _scrubs(out)
    _resilvers(out)
    _resilver_source(out)
    _capacity(out)
    _datasets(out)
