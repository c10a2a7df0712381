"""The metric catalogue of module-wide ZFS kstats: write throttle, ZIL, prefetch, dbuf/dnode/ABD.

Each kstat field maps to one zmon metric (type, labels, base units, HELP naming the field).
Field names are the same in ``/proc/spl/kstat/zfs/<kstat>`` and FreeBSD
``sysctl kstat.zfs.misc.<kstat>``. Families of like counters (``dnodestats``,
``vdev_mirror_stats``, the ``dmu_tx`` outcomes) carry the field as a label. A numeric field the
table does not know is exported as ``zmon_zfs_kstat_value{kstat,name}`` so nothing is lost.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

Kind = Literal["counter", "gauge"]

GENERIC_METRIC = "zmon_zfs_kstat_value"
GENERIC_HELP = (
    "A numeric kstat field zmon has no curated metric for (kstat zfs/<kstat>, "
    "field <name>); counter or gauge unknown"
)


@dataclass(frozen=True)
class KstatStat:
    """One kstat field and the metric it becomes."""

    kstat: str
    field: str
    metric: str
    kind: Kind
    help: str
    labels: tuple[tuple[str, str], ...] = ()

    def label_dict(self) -> dict[str, str]:
        return dict(self.labels)


def _s(
    kstat: str,
    fld: str,
    metric: str,
    kind: Kind,
    text: str,
    labels: tuple[tuple[str, str], ...] = (),
) -> KstatStat:
    return KstatStat(kstat, fld, metric, kind, f"{text} (kstat {kstat}: {fld})", labels)


_DMU_TX_REASONS = ("delay", "error", "suspended", "group", "memory_reserve", "memory_reclaim",
                   "dirty_throttle", "dirty_delay", "dirty_over_max", "dirty_frees_delay",
                   "wrlog_delay", "quota")  # fmt: skip
_DMU_TX_HELP = (
    "Times dmu_tx_assign() did not assign at once, by reason: dirty_delay/delay (write throttle "
    "delay), dirty_throttle/dirty_over_max (dirty data at its limit, wait for a txg), "
    "memory_reserve/memory_reclaim (ARC memory), wrlog_delay (ZIL write-log limit), suspended "
    "(pool suspended), group (dnode busy in the previous txg), quota and error (failed)"
)


def _dmu_tx() -> list[KstatStat]:
    stats = [
        _s(
            "dmu_tx",
            "dmu_tx_assigned",
            "zmon_dmu_tx_assigned_total",
            "counter",
            "Transactions assigned to a txg",
        )
    ]
    for reason in _DMU_TX_REASONS:
        stats.append(
            KstatStat(
                "dmu_tx",
                f"dmu_tx_{reason}",
                "zmon_dmu_tx_events_total",
                "counter",
                f"{_DMU_TX_HELP} (kstat dmu_tx: dmu_tx_<reason>)",
                (("reason", reason),),
            )
        )
    return stats


def _zil() -> list[KstatStat]:
    z = "zil"
    stats = [
        _s(z, "zil_commit_count", "zmon_zil_commits_total", "counter",
           "ZIL commits requested (fsync, O_SYNC, sync=always)"),
        _s(z, "zil_commit_writer_count", "zmon_zil_commit_writers_total", "counter",
           "ZIL flushes to stable storage (fewer than commits when commits merge)"),
        _s(z, "zil_commit_error_count", "zmon_zil_commit_errors_total", "counter",
           "ZIL commits that fell back to a txg sync after a ZIL I/O error"),
        _s(z, "zil_commit_stall_count", "zmon_zil_commit_stalls_total", "counter",
           "ZIL commits that fell back to a txg sync after a log block allocation failed"),
        _s(z, "zil_commit_suspend_count", "zmon_zil_commit_suspends_total", "counter",
           "ZIL commits that fell back to a txg sync because the ZIL was suspended"),
        _s(z, "zil_itx_count", "zmon_zil_itxs_total", "counter",
           "Intent-log transactions (writes, renames, ...) committed"),
    ]  # fmt: skip
    for mode in ("indirect", "copied", "needcopy"):
        labels = (("mode", mode),)
        stats += [
            KstatStat(
                z,
                f"zil_itx_{mode}_count",
                "zmon_zil_itx_writes_total",
                "counter",
                "Write records by how the data is logged: indirect (written in place, "
                "pointer logged), copied or needcopy (data in the log) "
                "(kstat zil: zil_itx_<mode>_count)",
                labels,
            ),
            KstatStat(
                z,
                f"zil_itx_{mode}_bytes",
                "zmon_zil_itx_write_bytes_total",
                "counter",
                "Data bytes of write records by mode (kstat zil: zil_itx_<mode>_bytes)",
                labels,
            ),
        ]
    for cls in ("normal", "slog"):
        labels = (("class", cls),)
        pre = f"zil_itx_metaslab_{cls}"
        stats += [
            KstatStat(
                z,
                f"{pre}_count",
                "zmon_zil_log_itxs_total",
                "counter",
                "Log records written to the normal pool or to a separate log device "
                "(kstat zil: zil_itx_metaslab_<class>_count)",
                labels,
            ),
            KstatStat(
                z,
                f"{pre}_bytes",
                "zmon_zil_log_record_bytes_total",
                "counter",
                "Log record bytes by class (kstat zil: zil_itx_metaslab_<class>_bytes)",
                labels,
            ),
            KstatStat(
                z,
                f"{pre}_write",
                "zmon_zil_log_written_bytes_total",
                "counter",
                "Log block bytes written by class, 2.2+ "
                "(kstat zil: zil_itx_metaslab_<class>_write)",
                labels,
            ),
            KstatStat(
                z,
                f"{pre}_alloc",
                "zmon_zil_log_allocated_bytes_total",
                "counter",
                "Log block bytes allocated by class, 2.2+ "
                "(kstat zil: zil_itx_metaslab_<class>_alloc)",
                labels,
            ),
        ]
    return stats


def _zfetch() -> list[KstatStat]:
    k = "zfetchstats"
    return [
        _s(
            k, "hits", "zmon_zfetch_hits_total", "counter", "Reads that continued a prefetch stream"
        ),
        _s(
            k,
            "misses",
            "zmon_zfetch_misses_total",
            "counter",
            "Reads that matched no prefetch stream",
        ),
        _s(
            k,
            "future",
            "zmon_zfetch_future_total",
            "counter",
            "Reads ahead of a stream's position, 2.2+",
        ),
        _s(
            k,
            "stride",
            "zmon_zfetch_stride_total",
            "counter",
            "Reads that continued a strided stream, 2.2+",
        ),
        _s(
            k,
            "past",
            "zmon_zfetch_past_total",
            "counter",
            "Reads behind a stream's position (reordered), 2.2+",
        ),
        _s(
            k,
            "max_streams",
            "zmon_zfetch_max_streams_total",
            "counter",
            "Times no stream was created because a file had the most streams allowed",
        ),
        _s(k, "io_issued", "zmon_zfetch_io_issued_total", "counter", "Prefetch I/Os issued"),
        _s(k, "io_active", "zmon_zfetch_io_active", "gauge", "Prefetch I/Os in flight now"),
    ]


def _dbuf() -> list[KstatStat]:
    k = "dbufstats"
    stats = [
        _s(k, "cache_count", "zmon_dbuf_cache_buffers", "gauge", "Buffers in the dbuf cache"),
        _s(k, "cache_size_bytes", "zmon_dbuf_cache_size_bytes", "gauge", "dbuf cache size"),
        _s(k, "cache_size_bytes_max", "zmon_dbuf_cache_size_max_bytes", "gauge",
           "Largest dbuf cache size seen"),
        _s(k, "cache_target_bytes", "zmon_dbuf_cache_target_bytes", "gauge",
           "dbuf cache target size"),
        _s(k, "cache_lowater_bytes", "zmon_dbuf_cache_lowater_bytes", "gauge",
           "dbuf cache low-water mark"),
        _s(k, "cache_hiwater_bytes", "zmon_dbuf_cache_hiwater_bytes", "gauge",
           "dbuf cache high-water mark"),
        _s(k, "cache_total_evicts", "zmon_dbuf_cache_evictions_total", "counter",
           "Buffers evicted from the dbuf cache"),
        _s(k, "hash_hits", "zmon_dbuf_hash_hits_total", "counter", "dbuf hash table hits"),
        _s(k, "hash_misses", "zmon_dbuf_hash_misses_total", "counter",
           "dbuf hash table misses"),
        _s(k, "hash_collisions", "zmon_dbuf_hash_collisions_total", "counter",
           "dbuf hash table collisions"),
        _s(k, "hash_elements", "zmon_dbuf_hash_elements", "gauge", "dbufs in the hash table"),
        _s(k, "hash_elements_max", "zmon_dbuf_hash_elements_max", "gauge",
           "Most dbufs the hash table held (before 2.2)"),
        _s(k, "hash_chains", "zmon_dbuf_hash_chains", "gauge", "dbuf hash chains"),
        _s(k, "hash_chain_max", "zmon_dbuf_hash_chain_max", "gauge",
           "Longest dbuf hash chain"),
        _s(k, "hash_insert_race", "zmon_dbuf_hash_insert_races_total", "counter",
           "dbuf hash inserts that lost a race"),
        _s(k, "hash_table_count", "zmon_dbuf_hash_table_buckets", "gauge",
           "dbuf hash table size, 2.2+"),
        _s(k, "hash_mutex_count", "zmon_dbuf_hash_mutexes", "gauge",
           "dbuf hash table locks, 2.2+"),
        _s(k, "metadata_cache_count", "zmon_dbuf_metadata_cache_buffers", "gauge",
           "Buffers in the dbuf metadata cache"),
        _s(k, "metadata_cache_size_bytes", "zmon_dbuf_metadata_cache_size_bytes", "gauge",
           "dbuf metadata cache size"),
        _s(k, "metadata_cache_size_bytes_max", "zmon_dbuf_metadata_cache_size_max_bytes",
           "gauge", "Largest dbuf metadata cache size seen"),
        _s(k, "metadata_cache_overflow", "zmon_dbuf_metadata_cache_overflows_total", "counter",
           "Times the dbuf metadata cache went over its limit"),
    ]  # fmt: skip
    for level in range(12):
        labels = (("level", str(level)),)
        stats += [
            KstatStat(
                k,
                f"cache_level_{level}",
                "zmon_dbuf_cache_level_buffers",
                "gauge",
                "dbuf cache buffers by indirection level (kstat dbufstats: cache_level_<level>)",
                labels,
            ),
            KstatStat(
                k,
                f"cache_level_{level}_bytes",
                "zmon_dbuf_cache_level_bytes",
                "gauge",
                "dbuf cache bytes by indirection level "
                "(kstat dbufstats: cache_level_<level>_bytes)",
                labels,
            ),
        ]
    return stats


def _abd() -> list[KstatStat]:
    k = "abdstats"
    stats = [
        _s(k, "struct_size", "zmon_abd_struct_bytes", "gauge", "Memory in ABD headers"),
        _s(k, "linear_cnt", "zmon_abd_linear_buffers", "gauge", "Linear ABD buffers"),
        _s(k, "linear_data_size", "zmon_abd_linear_bytes", "gauge", "Data in linear ABDs"),
        _s(k, "scatter_cnt", "zmon_abd_scatter_buffers", "gauge", "Scatter ABD buffers"),
        _s(k, "scatter_data_size", "zmon_abd_scatter_bytes", "gauge", "Data in scatter ABDs"),
        _s(k, "scatter_chunk_waste", "zmon_abd_scatter_chunk_waste_bytes", "gauge",
           "Memory lost to partly used scatter chunks"),
        _s(k, "scatter_page_multi_chunk", "zmon_abd_scatter_page_multi_chunk_total", "counter",
           "Scatter ABDs that spanned several chunks"),
        _s(k, "scatter_page_multi_zone", "zmon_abd_scatter_page_multi_zone_total", "counter",
           "Scatter ABDs that spanned several memory zones"),
        _s(k, "scatter_page_alloc_retry", "zmon_abd_scatter_page_alloc_retries_total",
           "counter", "Scatter page allocations retried"),
        _s(k, "scatter_sg_table_retry", "zmon_abd_scatter_sg_table_retries_total", "counter",
           "Scatter-gather table allocations retried"),
    ]  # fmt: skip
    for order in range(11):
        stats.append(
            KstatStat(
                k,
                f"scatter_order_{order}",
                "zmon_abd_scatter_order_chunks",
                "gauge",
                "Scatter chunks by page order (kstat abdstats: scatter_order_<order>)",
                (("order", str(order)),),
            )
        )
    return stats


def _vdev_cache() -> list[KstatStat]:
    k = "vdev_cache_stats"
    return [
        _s(
            k,
            "delegations",
            "zmon_vdev_cache_delegations_total",
            "counter",
            "Reads passed to the device by the vdev cache, before 2.2",
        ),
        _s(k, "hits", "zmon_vdev_cache_hits_total", "counter", "vdev cache hits, before 2.2"),
        _s(k, "misses", "zmon_vdev_cache_misses_total", "counter", "vdev cache misses, before 2.2"),
    ]


TABLE: tuple[KstatStat, ...] = tuple(
    _dmu_tx() + _zil() + _zfetch() + _dbuf() + _abd() + _vdev_cache()
)
BY_FIELD: Mapping[tuple[str, str], KstatStat] = {(s.kstat, s.field): s for s in TABLE}

# Kstats whose every field is a counter of one family, labelled by the field name.
FAMILIES: Mapping[str, tuple[str, str, str, str]] = {
    "dnodestats": ("zmon_dnode_events_total", "event", "dnode_",
                   "dnode hold, allocation and move outcomes by field (kstat dnodestats: "
                   "dnode_<event>)"),
    "vdev_mirror_stats": ("zmon_vdev_mirror_events_total", "event", "",
                          "Mirror child selections for reads, by kind: rotating/non-rotating "
                          "linear, seek or offset, preferred child found or not "
                          "(kstat vdev_mirror_stats: <event>)"),
}  # fmt: skip
