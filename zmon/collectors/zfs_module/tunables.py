"""The curated table of well-known ZFS module tunables and their defaults, per release series.

Only tunables that admins change on purpose, or that are dangerous when left changed, are
listed; and only those whose default is a constant (not worked out from the RAM or CPU count
at load time, as ``zfs_dirty_data_max`` is). A parameter that shows a sentinel for "automatic"
(``zfs_arc_max`` 0) is compared against that sentinel.

Defaults are listed for the release series zmon has verified against a stock module, read
from ``/sys/module/zfs/parameters`` right after ``modprobe zfs`` (the lab captures in
``tests/fixtures/zfs_module/lab/``): 2.1 (2.1.11) and 2.3 (2.3.2), and against the upstream
source of the series' first and latest releases. A series missing from a row means the
tunable does not exist in that series, or that its default changed within the series (so the
series alone does not tell it). A module of another series is not compared
(``zmon_zfs_module_parameters_compared`` is 0). To add a series: capture a stock
module's parameters into ``tests/fixtures/zfs_module/lab/<version>/``, add its column here;
``tests/collectors/zfs_module`` checks that the stock capture shows no change.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

SERIES = ("2.1", "2.3")
MIB = 1 << 20


@dataclass(frozen=True)
class Tunable:
    name: str
    defaults: Mapping[str, int]  # release series -> default
    help: str


def _all(value: int) -> dict[str, int]:
    return {s: value for s in SERIES}


TUNABLES: tuple[Tunable, ...] = (
    # ARC
    Tunable("zfs_arc_max", _all(0), "ARC size limit in bytes; 0 = automatic"),
    Tunable("zfs_arc_min", _all(0), "ARC size floor in bytes; 0 = automatic"),
    Tunable("zfs_arc_sys_free", _all(0), "memory the ARC leaves free; 0 = automatic"),
    Tunable("zfs_arc_dnode_limit_percent", _all(10), "dnode share of the ARC, percent"),
    Tunable("zfs_arc_meta_limit_percent", {"2.1": 75}, "metadata share of the ARC (to 2.1)"),
    Tunable("zfs_compressed_arc_enabled", _all(1), "keep blocks compressed in the ARC"),
    Tunable("zfs_prefetch_disable", _all(0), "1 disables predictive prefetch"),
    Tunable("zfs_dedup_prefetch", _all(0), "prefetch dedup table entries"),
    # L2ARC
    Tunable("l2arc_write_max", {"2.1": 8 * MIB, "2.3": 32 * MIB}, "L2ARC bytes written per feed"),
    Tunable(
        "l2arc_write_boost",
        {"2.1": 8 * MIB, "2.3": 32 * MIB},
        "extra L2ARC bytes per feed while the ARC warms up",
    ),
    Tunable("l2arc_headroom", {"2.1": 2, "2.3": 8}, "how far past the write size the feed scans"),
    Tunable("l2arc_noprefetch", _all(1), "1 keeps prefetched buffers out of the L2ARC"),
    Tunable("l2arc_rebuild_enabled", _all(1), "rebuild a persistent L2ARC at import"),
    # transaction groups and write throttle
    Tunable("zfs_txg_timeout", _all(5), "seconds between forced txg syncs"),
    Tunable("zfs_dirty_data_max_percent", _all(10), "dirty data limit, percent of RAM"),
    Tunable("zfs_dirty_data_max_max_percent", _all(25), "ceiling of that limit, percent of RAM"),
    Tunable("zfs_delay_min_dirty_percent", _all(60), "dirty share where write delays start"),
    Tunable(
        "zfs_vdev_async_write_active_max_dirty_percent",
        _all(60),
        "dirty share at which async writes reach their max active",
    ),
    # I/O scheduler
    Tunable("zfs_vdev_max_active", _all(1000), "I/Os in flight per vdev"),
    Tunable("zfs_vdev_sync_read_max_active", _all(10), "sync reads in flight per vdev"),
    Tunable("zfs_vdev_sync_write_max_active", _all(10), "sync writes in flight per vdev"),
    Tunable("zfs_vdev_async_read_max_active", _all(3), "async reads in flight per vdev"),
    Tunable("zfs_vdev_async_write_min_active", _all(2), "async writes in flight, floor"),
    Tunable("zfs_vdev_async_write_max_active", _all(10), "async writes in flight, ceiling"),
    Tunable("zfs_vdev_scrub_max_active", _all(3), "scrub I/Os in flight per vdev"),
    Tunable("zfs_vdev_aggregation_limit", _all(1 * MIB), "largest aggregated I/O in bytes"),
    Tunable("zfs_vdev_min_auto_ashift", _all(9), "smallest ashift chosen automatically"),
    # scrub and resilver
    # 4 MiB until 2.1.11 upstream, 16 MiB from 2.1.12 (and in Debian's 2.1.11): 2.3 only
    Tunable("zfs_scan_vdev_limit", {"2.3": 16 * MIB}, "scan bytes in flight per vdev"),
    Tunable("zfs_scrub_min_time_ms", _all(1000), "scrub time per txg, milliseconds"),
    Tunable("zfs_resilver_min_time_ms", _all(3000), "resilver time per txg, milliseconds"),
    Tunable("zfs_scan_suspend_progress", _all(0), "1 pauses every scrub and resilver"),
    # hangs and slow I/O
    Tunable("zfs_deadman_enabled", _all(1), "detect hung I/O and txg syncs"),
    Tunable("zfs_deadman_synctime_ms", _all(600000), "txg sync time counted as hung, ms"),
    Tunable("zfs_deadman_ziotime_ms", _all(300000), "I/O time counted as hung, ms"),
    Tunable("zio_slow_io_ms", _all(30000), "I/O time counted as slow (zpool status -s), ms"),
    # ZIL, records, space
    Tunable(
        "zil_slog_bulk",
        {"2.1": 786432, "2.3": 64 * MIB},
        "ZIL bytes per commit before log writes lose priority",
    ),
    Tunable("zfs_immediate_write_sz", _all(32768), "largest sync write logged in the ZIL"),
    Tunable("zfs_max_recordsize", {"2.1": 1 * MIB, "2.3": 16 * MIB}, "largest recordsize allowed"),
    Tunable("spa_slop_shift", _all(5), "pool space held back: 1/2^shift"),
    Tunable(
        "zfs_special_class_metadata_reserve_pct",
        _all(25),
        "special vdev space kept for metadata, percent",
    ),
    Tunable(
        "zfs_metaslab_fragmentation_threshold",  # 70 in 2.3.0, 77 from 2.3.1: 2.1 only
        {"2.1": 70},
        "fragmentation above which a metaslab is avoided, percent",
    ),
    Tunable("zfs_trim_extent_bytes_min", _all(32768), "smallest extent TRIM sends, bytes"),
    # 0 in 2.1.0, 1 from 2.1.5 on: 2.3 only
    Tunable("zfs_dmu_offset_next_sync", {"2.3": 1}, "hole detection waits for dirty data"),
    Tunable("zfs_bclone_enabled", {"2.3": 1}, "block cloning (2.2+)"),
    # safety switches: anything but the default deserves a look
    Tunable("zfs_nocacheflush", _all(0), "1 skips disk cache flushes (unsafe on power loss)"),
    Tunable("zfs_recover", _all(0), "1 turns some fatal errors into warnings"),
    Tunable("zfs_free_leak_on_eio", _all(0), "1 leaks space instead of retrying frees"),
    Tunable("zfs_send_corrupt_data", _all(0), "1 lets zfs send read damaged blocks"),
    Tunable("zfs_flags", _all(0), "debug flags"),
    Tunable("zfs_autoimport_disable", _all(1), "0 imports pools from the cache file at load"),
)


def default_for(tunable: Tunable, series: str | None) -> int | None:
    """The tunable's default in a release series; None when unknown or not in that series."""
    return tunable.defaults.get(series) if series is not None else None
