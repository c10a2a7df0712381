"""Metrics from the ``zpool status`` model; the one code path for the collector and ``zmon parse``.

``CATALOGUE`` lists every family (name, type, labels, help) in exposition order. Per-vdev series
are labelled ``{pool, vdev, class}``: the class keeps an in-use hot spare's row in the spares
section apart from its row in the tree. Rows that still share all three labels (only seen in
redacted pastes) get ``#2``, ``#3`` appended to ``vdev``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from zmon.collectors.zpool.redundancy import redundancy, top_level_vdevs
from zmon.exposition.metrics import MetricSet
from zmon.parsers.zpool.zpool_status_model import (
    POOL_STATES,
    SCAN_FUNCTIONS,
    SPARE_STATES,
    VDEV_STATES,
    Pool,
    Vdev,
    ZpoolStatus,
    note_kinds,
    status_kind,
)

_P, _V = ("pool",), ("pool", "vdev", "class")
_S = "the scan in zmon_pool_scan_info (zpool status)"
CATALOGUE: tuple[tuple[str, str, tuple[str, ...], str], ...] = (
    ("zmon_pool_state", "gauge", (*_P, "state"),
     "Pool health from the state: line (a paste without one: the pool's own row), one series "
     "per state; all 0 when unknown (zpool status)"),
    ("zmon_pool_status_info", "gauge", (*_P, "state", "status", "status_id", "guid"),
     "Raw state: word, a short name for the status: text, its ZFS-8000 message id and the "
     "pool GUID (zpool status)"),
    ("zmon_pool_data_errors", "gauge", _P,
     "Permanent data errors: 'errors: N data errors', the listed files (-v), or JSON "
     "error_count; absent when unknown (zpool status)"),
    ("zmon_pool_data_errors_present", "gauge", _P,
     "1 when zpool reports permanent data errors, even if it cannot count them (zpool status)"),
    ("zmon_pool_errors_unavailable", "gauge", _P,
     "1 when zpool could not list the pool's errors, e.g. I/O suspended (zpool status -v)"),
    ("zmon_pool_io_suspended", "gauge", _P,
     "1 when the pool's I/O is suspended: state SUSPENDED, or the error list or the status "
     "(ZFS-8000-HC, -JQ, -MM) says so (zpool status)"),
    ("zmon_pool_upgrade_available", "gauge", _P,
     "1 when the status: text says features can be enabled or the on-disk format is older "
     "(zpool status)"),
    ("zmon_pool_parse_complete", "gauge", _P,
     "1 when every part of the pool's output was read; 0 for truncated or unknown output, "
     "which must not be taken as healthy (zpool status)"),
    ("zmon_pool_parse_warnings", "gauge", _P,
     "Lines or fields of the pool's output that zmon could not read (zpool status)"),
    ("zmon_pool_scan_in_progress", "gauge", (*_P, "function"),
     "1 while a scrub, resilver or rebuild (sequential resilver) runs; 0 when paused "
     "(zpool status)"),
    ("zmon_pool_scan_paused", "gauge", _P, "1 while a scrub is paused (zpool status)"),
    ("zmon_pool_scan_info", "gauge", (*_P, "function", "state"),
     "The scan the zmon_pool_scan_* values describe: function and state (zpool status)"),
    ("zmon_pool_scan_examined_bytes", "gauge", _P, f"Bytes examined (scanned); {_S}"),
    ("zmon_pool_scan_issued_bytes", "gauge", _P, f"Bytes issued for verification; {_S}"),
    ("zmon_pool_scan_to_examine_bytes", "gauge", _P, f"Total bytes to examine; {_S}"),
    ("zmon_pool_scan_to_issue_bytes", "gauge", _P, f"Total bytes to issue; {_S}"),
    ("zmon_pool_scan_processed_bytes", "gauge", _P,
     f"Bytes repaired (scrub) or resilvered (resilver, rebuild); {_S}"),
    ("zmon_pool_scan_errors", "gauge", _P, f"Errors found; {_S}"),
    ("zmon_pool_scan_start_time_seconds", "gauge", _P, f"Unix time the scan started; {_S}"),
    ("zmon_pool_scan_end_time_seconds", "gauge", _P,
     f"Unix time the scan finished or was canceled; {_S}"),
    ("zmon_pool_scan_pause_time_seconds", "gauge", _P, f"Unix time the scrub was paused; {_S}"),
    ("zmon_pool_scan_examine_rate_bytes_per_second", "gauge", _P,
     f"Examine rate of this pass as zpool prints it (from -j, worked out the same way); {_S}"),
    ("zmon_pool_scan_issue_rate_bytes_per_second", "gauge", _P,
     f"Issue rate of this pass as zpool prints it (from -j, worked out the same way); {_S}"),
    ("zmon_pool_scan_progress_ratio", "gauge", _P, f"Fraction done, 0-1; {_S}"),
    ("zmon_pool_scan_remaining_seconds", "gauge", _P,
     f"Time left as zpool estimates it (none below 10 MiB/s); {_S}"),
    ("zmon_pool_scan_duration_seconds", "gauge", _P, f"How long the finished scan took; {_S}"),
    ("zmon_pool_last_scrub_end_time_seconds", "gauge", _P,
     "Unix time the last completed scrub ended, kept across later resilvers (zpool status; "
     "remembered in the state file)"),
    ("zmon_pool_last_scrub_errors", "gauge", _P,
     "Errors the last completed scrub found (zpool status; remembered in the state file)"),
    ("zmon_vdev_state", "gauge", (*_V, "state"),
     "Vdev state, one series per state; spares also avail/inuse; all 0 when unknown "
     "(zpool status)"),
    ("zmon_vdev_read_errors_total", "counter", _V,
     "Read errors since import or zpool clear (zpool status READ)"),
    ("zmon_vdev_write_errors_total", "counter", _V,
     "Write errors since import or zpool clear (zpool status WRITE)"),
    ("zmon_vdev_checksum_errors_total", "counter", _V,
     "Checksum errors since import or zpool clear (zpool status CKSUM)"),
    ("zmon_vdev_slow_ios_total", "counter", _V,
     "Slow I/Os of a leaf since import or zpool clear (zpool status -s SLOW)"),
    ("zmon_vdev_info", "gauge", (*_V, "device", "type", "parent", "path", "guid", "state"),
     "Vdev metadata, always 1: whole-disk device, type, parent vdev, path, GUID, raw state "
     "(zpool status)"),
    ("zmon_vdev_note_info", "gauge", (*_V, "kind"),
     "A note zpool printed after the vdev's counters, by kind (zpool status)"),
    ("zmon_vdev_trim_progress_ratio", "gauge", _V,
     "Progress of the last TRIM, 1 once complete (zpool status -t)"),
    ("zmon_vdev_initialize_progress_ratio", "gauge", _V,
     "Progress of the last initialize, 1 once complete (zpool status -i)"),
    ("zmon_vdev_redundancy", "gauge", _V,
     "Top-level vdevs only: further member failures the vdev survives (mirror: working "
     "members less one; raidz, dRAID: parity less members out; a resilvering replacement "
     "counts once done). 0: one more failure loses the pool; -1: failed. Absent when a "
     "member's state is unknown (zpool status)"),
)  # fmt: skip
_HELP = {name: help_text for name, _type, _labels, help_text in CATALOGUE}


@dataclass(frozen=True)
class ScrubRecord:
    """The last completed scrub of a pool."""

    end_time: float
    errors: int | None = None


def last_scrub(pool: Pool) -> ScrubRecord | None:
    """The completed scrub ``zpool status`` shows for the pool, if it shows one."""
    for scan in pool.scans:
        if scan.function == "scrub" and scan.state == "finished" and scan.end_time:
            return ScrubRecord(scan.end_time, scan.errors)
    return None


def status_metrics(
    status: ZpoolStatus, last_scrubs: Mapping[str, ScrubRecord] | None = None
) -> MetricSet:
    """All pool, scan and vdev metrics; ``last_scrubs`` (by pool name) adds remembered scrubs."""
    ms = MetricSet()
    for name, typ, _labels, help_text in CATALOGUE:
        ms.declare(name, help_text, typ)
    for pool in status.pools:
        if pool.name:
            _pool(ms, pool)
            _scan(ms, pool, (last_scrubs or {}).get(pool.name) or last_scrub(pool))
            _vdevs(ms, pool)
    return ms


def _gauge(ms: MetricSet, name: str, value: float | bool | None, labels: Mapping[str, str]) -> None:
    ms.gauge(name, _HELP[name], None if value is None else float(value), labels)


def _pool(ms: MetricSet, pool: Pool) -> None:
    labels = {"pool": pool.name}
    current = pool.state.lower() if pool.state_known and pool.state else None
    ms.state_set("zmon_pool_state", _HELP["zmon_pool_state"], POOL_STATES, current, labels)
    ms.info(
        "zmon_pool_status_info",
        _HELP["zmon_pool_status_info"],
        {
            **labels,
            "state": pool.state or "",
            "status": status_kind(pool.status),
            "status_id": pool.msg_id or "",
            "guid": pool.guid or "",
        },
    )
    _gauge(ms, "zmon_pool_data_errors", pool.data_errors, labels)
    _gauge(ms, "zmon_pool_data_errors_present", pool.data_errors_present, labels)
    _gauge(ms, "zmon_pool_errors_unavailable", pool.errors_unavailable, labels)
    _gauge(ms, "zmon_pool_io_suspended", pool.io_suspended, labels)
    _gauge(ms, "zmon_pool_upgrade_available", pool.upgrade_available, labels)
    _gauge(ms, "zmon_pool_parse_complete", pool.complete, labels)
    _gauge(ms, "zmon_pool_parse_warnings", len(set(pool.warnings) | set(pool.incomplete)), labels)


_SCAN_VALUES = (
    ("zmon_pool_scan_examined_bytes", "examined"), ("zmon_pool_scan_issued_bytes", "issued"),
    ("zmon_pool_scan_to_examine_bytes", "to_examine"),
    ("zmon_pool_scan_to_issue_bytes", "to_issue"),
    ("zmon_pool_scan_processed_bytes", "processed"), ("zmon_pool_scan_errors", "errors"),
    ("zmon_pool_scan_start_time_seconds", "start_time"),
    ("zmon_pool_scan_end_time_seconds", "end_time"),
    ("zmon_pool_scan_pause_time_seconds", "pause_time"),
    ("zmon_pool_scan_examine_rate_bytes_per_second", "examine_rate"),
    ("zmon_pool_scan_issue_rate_bytes_per_second", "issue_rate"),
    ("zmon_pool_scan_progress_ratio", "progress"),
    ("zmon_pool_scan_remaining_seconds", "remaining"),
    ("zmon_pool_scan_duration_seconds", "duration"),
)  # fmt: skip


def _scan(ms: MetricSet, pool: Pool, record: ScrubRecord | None) -> None:
    labels = {"pool": pool.name}
    for function in SCAN_FUNCTIONS:
        running = any(s.function == function and s.state == "in_progress" for s in pool.scans)
        _gauge(ms, "zmon_pool_scan_in_progress", running, {**labels, "function": function})
    _gauge(ms, "zmon_pool_scan_paused", any(s.state == "paused" for s in pool.scans), labels)
    scan = pool.scan
    ms.info(
        "zmon_pool_scan_info",
        _HELP["zmon_pool_scan_info"],
        {
            **labels,
            "function": scan.function if scan else "none",
            "state": scan.state if scan else "none",
        },
    )
    if scan is not None:
        for name, attr in _SCAN_VALUES:
            _gauge(ms, name, getattr(scan, attr), labels)
    if record is not None:
        _gauge(ms, "zmon_pool_last_scrub_end_time_seconds", record.end_time, labels)
        _gauge(ms, "zmon_pool_last_scrub_errors", record.errors, labels)


def _unique_labels(pool: Pool) -> Iterable[tuple[Vdev, dict[str, str]]]:
    seen: dict[tuple[str, str], int] = {}
    for vdev in pool.vdevs():
        key = (vdev.name, vdev.vdev_class)
        seen[key] = seen.get(key, 0) + 1
        name = vdev.name if seen[key] == 1 else f"{vdev.name}#{seen[key]}"
        yield vdev, {"pool": pool.name, "vdev": name, "class": vdev.vdev_class}


_COUNTERS = (
    ("zmon_vdev_read_errors_total", "read_errors"),
    ("zmon_vdev_write_errors_total", "write_errors"),
    ("zmon_vdev_checksum_errors_total", "checksum_errors"),
    ("zmon_vdev_slow_ios_total", "slow_ios"),
)


def _vdevs(ms: MetricSet, pool: Pool) -> None:
    # a truncated output may hide members: no redundancy figure rather than a wrong one
    tops = {id(v) for v in top_level_vdevs(pool)} if pool.complete else set()
    for vdev, labels in _unique_labels(pool):
        states = SPARE_STATES if vdev.vdev_class == "spare" else VDEV_STATES
        current = vdev.state.lower() if vdev.state_known and vdev.state else None
        ms.state_set("zmon_vdev_state", _HELP["zmon_vdev_state"], states, current, labels)
        for name, attr in _COUNTERS:
            ms.counter(name, _HELP[name], getattr(vdev, attr), labels)
        ms.info(
            "zmon_vdev_info",
            _HELP["zmon_vdev_info"],
            {
                **labels,
                "device": vdev.device or "",
                "type": vdev.type,
                "parent": vdev.parent or "",
                "path": vdev.path or vdev.was_path or "",
                "guid": vdev.guid or "",
                "state": vdev.state or "",
            },
        )
        for kind in note_kinds(vdev.note):
            ms.info("zmon_vdev_note_info", _HELP["zmon_vdev_note_info"], {**labels, "kind": kind})
        _gauge(ms, "zmon_vdev_trim_progress_ratio", vdev.trim_progress, labels)
        _gauge(ms, "zmon_vdev_initialize_progress_ratio", vdev.initialize_progress, labels)
        if id(vdev) in tops:
            _gauge(ms, "zmon_vdev_redundancy", redundancy(vdev), labels)
