"""The ARC metric catalogue: every arcstats field from ZoL 0.6.0 to OpenZFS 2.4 and legacy FreeBSD.

Each kstat field maps to one zmon metric, its type, a scale to base units and HELP text that
names the field. A field a version lacks is simply absent from its output. Families shared by
several fields (the ARC lists, by ``state``) carry a label; legacy names that were renamed map
to the metric of their successor. Fields not in this table are exported by the collector in
the generic ``zmon_arc_stat{name}`` family so nothing is lost. The ARC size module parameters
(``zmon.parsers.kstat.arcstats.ARC_PARAMS``) become the gauges of ``PARAM_METRICS``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from zmon.parsers.kstat.arcstats import ARC_PARAMS, ArcParam

Kind = Literal["counter", "gauge"]

# meta, pd and pm (OpenZFS 2.2+) are fractions in 32-bit fixed point.
FIXED_POINT_32 = 1.0 / (1 << 32)

ARC_STATES = ("anon", "mru", "mru_ghost", "mfu", "mfu_ghost", "uncached")


@dataclass(frozen=True)
class ArcStat:
    """One arcstats field and the metric it becomes."""

    kstat: str
    metric: str
    kind: Kind
    help: str
    labels: tuple[tuple[str, str], ...] = ()
    scale: float = 1.0
    versions: str = ""  # where the field exists, for the catalogue; empty means all versions

    def label_dict(self) -> dict[str, str]:
        return dict(self.labels)


def _c(kstat: str, metric: str, text: str, versions: str = "") -> ArcStat:
    return ArcStat(kstat, metric, "counter", f"{text} (arcstats: {kstat}).", versions=versions)


def _g(kstat: str, metric: str, text: str, versions: str = "", scale: float = 1.0) -> ArcStat:
    return ArcStat(kstat, metric, "gauge", f"{text} (arcstats: {kstat}).", (), scale, versions)


def _alias(stat: ArcStat, old: str, versions: str) -> ArcStat:
    """A legacy field name exported under the metric of the field that replaced it."""
    return ArcStat(old, stat.metric, stat.kind, stat.help, stat.labels, stat.scale, versions)


_V22 = "OpenZFS 2.2+"
_V20 = "OpenZFS 2.0+"
_V21 = "OpenZFS 2.1+"
_FREEBSD = "FreeBSD legacy ZFS"


def _access_stats() -> list[ArcStat]:
    """Hits, I/O hits and misses split by demand/prefetch and data/metadata."""
    stats = []
    for access in ("demand", "prefetch"):
        for content in ("data", "metadata"):
            base = f"{access}_{content}"
            what = f"{access} {content} reads"
            stats += [
                _c(f"{base}_hits", f"zmon_arc_{base}_hits_total", f"ARC hits for {what}"),
                _c(
                    f"{base}_iohits",
                    f"zmon_arc_{base}_iohits_total",
                    f"ARC hits on in-flight I/O for {what}",
                    _V22,
                ),
                _c(f"{base}_misses", f"zmon_arc_{base}_misses_total", f"ARC misses for {what}"),
            ]
    return stats


def _state_stats() -> list[ArcStat]:
    """Per-list sizes as labelled families (``state`` = anon, mru, mru_ghost, mfu, ...)."""
    families = (
        ("size", "zmon_arc_state_size_bytes",
         "Bytes in each ARC list; ghost lists hold headers only, so their size is the data "
         "they would hold, not memory use", ""),
        ("data", "zmon_arc_state_data_bytes", "Data bytes in each ARC list", _V22),
        ("metadata", "zmon_arc_state_metadata_bytes", "Metadata bytes in each ARC list", _V22),
        ("evictable_data", "zmon_arc_state_evictable_data_bytes",
         "Evictable data bytes in each ARC list", "ZoL 0.6.5+"),
        ("evictable_metadata", "zmon_arc_state_evictable_metadata_bytes",
         "Evictable metadata bytes in each ARC list", "ZoL 0.6.5+"),
    )  # fmt: skip
    legacy = {"evictable_data": "evict_data", "evictable_metadata": "evict_metadata"}
    stats = []
    for suffix, metric, text, versions in families:
        help_text = f"{text} (arcstats: <state>_{suffix})."
        for state in ARC_STATES:
            vers = _V22 if state == "uncached" else versions
            stat = ArcStat(
                f"{state}_{suffix}", metric, "gauge", help_text, (("state", state),), versions=vers
            )
            stats.append(stat)
            if suffix in legacy and state != "uncached":
                stats.append(_alias(stat, f"{state}_{legacy[suffix]}", "ZoL 0.6.0-0.6.4"))
    return stats


# The table below is laid out by hand, one field per entry.
# fmt: off
_METADATA_SIZE = _g("metadata_size", "zmon_arc_metadata_size_bytes",
                    "Bytes of ARC metadata buffers", "ZoL 0.6.5+")

_SIZE = [
    _g("size", "zmon_arc_size_bytes", "Current ARC size in bytes"),
    _g("c", "zmon_arc_target_size_bytes", "ARC target size in bytes"),
    _g("c_min", "zmon_arc_min_size_bytes", "Minimum ARC target size in bytes"),
    _g("c_max", "zmon_arc_max_size_bytes", "Maximum ARC target size in bytes"),
    _g("p", "zmon_arc_mru_target_size_bytes", "Target size of the MRU list in bytes",
       "up to OpenZFS 2.1"),
    _g("meta", "zmon_arc_meta_target_ratio",
       "Fraction of the ARC target aimed at metadata, 0-1", _V22, FIXED_POINT_32),
    _g("pd", "zmon_arc_mru_data_target_ratio",
       "Fraction of the data target aimed at the MRU list, 0-1", _V22, FIXED_POINT_32),
    _g("pm", "zmon_arc_mru_metadata_target_ratio",
       "Fraction of the metadata target aimed at the MRU list, 0-1", _V22, FIXED_POINT_32),
    _g("compressed_size", "zmon_arc_compressed_size_bytes",
       "Bytes of ARC buffers as stored (compressed)", "ZoL 0.7+"),
    _g("uncompressed_size", "zmon_arc_uncompressed_size_bytes",
       "Uncompressed bytes of the ARC buffers", "ZoL 0.7+"),
    _g("overhead_size", "zmon_arc_overhead_size_bytes",
       "Bytes in short-lived uncompressed copies of ARC buffers", "ZoL 0.7+"),
    _g("hdr_size", "zmon_arc_hdr_size_bytes", "Bytes used by ARC buffer headers"),
    _g("data_size", "zmon_arc_data_size_bytes", "Bytes of ARC data buffers"),
    _METADATA_SIZE,
    _g("dbuf_size", "zmon_arc_dbuf_size_bytes", "Bytes used by dbuf structures", "ZoL 0.7+"),
    _g("dnode_size", "zmon_arc_dnode_size_bytes", "Bytes used by dnode structures", "ZoL 0.7+"),
    _g("bonus_size", "zmon_arc_bonus_size_bytes", "Bytes used by bonus buffers", "ZoL 0.7+"),
    _g("other_size", "zmon_arc_other_size_bytes",
       "Bytes used by dbufs, dnodes and bonus buffers together",
       "ZoL up to 0.8, FreeBSD with COMPAT_FREEBSD11"),
    _g("arc_meta_used", "zmon_arc_meta_used_bytes", "Bytes of metadata in the ARC"),
    _g("arc_meta_limit", "zmon_arc_meta_limit_bytes", "Limit on ARC metadata in bytes",
       "up to OpenZFS 2.1"),
    _g("arc_meta_max", "zmon_arc_meta_max_bytes", "Highest ARC metadata size seen, in bytes",
       "up to OpenZFS 2.1"),
    _g("arc_meta_min", "zmon_arc_meta_min_bytes", "Minimum ARC metadata size in bytes",
       "ZoL 0.6.5 to OpenZFS 2.1"),
    _g("arc_dnode_limit", "zmon_arc_dnode_limit_bytes", "Limit on dnode bytes in the ARC",
       "ZoL 0.7+"),
    _g("arc_raw_size", "zmon_arc_raw_size_bytes", "Bytes of raw (encrypted) ARC buffers",
       "ZoL 0.8+"),
    _g("abd_chunk_waste_size", "zmon_arc_abd_chunk_waste_bytes",
       "Bytes lost to ABD chunk rounding", _V20),
    _g("arc_tempreserve", "zmon_arc_tempreserve_bytes",
       "Bytes reserved for pending transaction writes"),
    _g("arc_loaned_bytes", "zmon_arc_loaned_bytes", "Bytes of ARC buffers loaned out"),
    _g("arc_need_free", "zmon_arc_need_free_bytes", "Bytes the ARC still has to free",
       "ZoL 0.6.5+"),
    _g("arc_sys_free", "zmon_arc_sys_free_bytes",
       "Bytes of system memory the ARC tries to keep free", "ZoL 0.6.5+"),
    _g("arc_no_grow", "zmon_arc_no_grow", "1 while the ARC is not allowed to grow, else 0"),
    _g("memory_all_bytes", "zmon_arc_memory_all_bytes",
       "System memory the ARC can see, in bytes", "ZoL 0.7.3+"),
    _g("memory_free_bytes", "zmon_arc_memory_free_bytes", "Free system memory in bytes",
       "ZoL 0.7.3+"),
    _g("memory_available_bytes", "zmon_arc_memory_available_bytes",
       "Memory available to the ARC in bytes; negative when the ARC must shrink",
       "ZoL 0.7.3+"),
]

_HITS = [
    _c("hits", "zmon_arc_hits_total", "ARC reads served from memory"),
    _c("iohits", "zmon_arc_iohits_total",
       "ARC reads that found the block's I/O already in flight", _V22),
    _c("misses", "zmon_arc_misses_total", "ARC reads that had to issue I/O"),
    *_access_stats(),
    _c("mru_hits", "zmon_arc_mru_hits_total", "ARC hits in the MRU list"),
    _c("mru_ghost_hits", "zmon_arc_mru_ghost_hits_total", "ARC hits in the MRU ghost list"),
    _c("mfu_hits", "zmon_arc_mfu_hits_total", "ARC hits in the MFU list"),
    _c("mfu_ghost_hits", "zmon_arc_mfu_ghost_hits_total", "ARC hits in the MFU ghost list"),
    _c("uncached_hits", "zmon_arc_uncached_hits_total",
       "ARC hits on buffers marked uncached", _V22),
    _c("predictive_prefetch", "zmon_arc_predictive_prefetch_total",
       "Predictive prefetch requests", _V22),
    _c("demand_hit_predictive_prefetch", "zmon_arc_demand_hit_predictive_prefetch_total",
       "Demand reads that hit a completed predictive prefetch", "ZoL 0.7+"),
    _c("demand_iohit_predictive_prefetch", "zmon_arc_demand_iohit_predictive_prefetch_total",
       "Demand reads that found a predictive prefetch in flight", _V22),
    _c("prescient_prefetch", "zmon_arc_prescient_prefetch_total",
       "Prescient prefetch requests", _V22),
    _c("demand_hit_prescient_prefetch", "zmon_arc_demand_hit_prescient_prefetch_total",
       "Demand reads that hit a completed prescient prefetch", "ZoL 0.8+"),
    _c("demand_iohit_prescient_prefetch", "zmon_arc_demand_iohit_prescient_prefetch_total",
       "Demand reads that found a prescient prefetch in flight", _V22),
    _c("async_upgrade_sync", "zmon_arc_async_upgrade_sync_total",
       "Async reads upgraded to sync by a demand read", "ZoL 0.8+"),
    _c("sync_wait_for_async", "zmon_arc_sync_wait_for_async_total",
       "Sync reads that waited for an in-flight async read", "ZoL 0.7"),
    _c("cached_only_in_progress", "zmon_arc_cached_only_in_progress_total",
       "Cached-only reads refused because I/O was in flight", _V20),
]

_EVICTION = [
    _c("allocated", "zmon_arc_allocated_total", "ARC buffers allocated", _FREEBSD),
    _c("deleted", "zmon_arc_deleted_total", "ARC buffers deleted (evicted and freed)"),
    _c("stolen", "zmon_arc_stolen_total", "ARC buffers reused for new data", _FREEBSD),
    _c("recycle_miss", "zmon_arc_recycle_miss_total",
       "Failed attempts to recycle an ARC buffer", "ZoL up to 0.6.4, FreeBSD"),
    _c("mutex_miss", "zmon_arc_mutex_miss_total",
       "Buffers not evicted because their hash lock was held"),
    _c("access_skip", "zmon_arc_access_skip_total",
       "Access updates skipped for already released headers", "ZoL 0.7.6+"),
    _c("evict_skip", "zmon_arc_evict_skip_total",
       "Buffers skipped by eviction (I/O in progress or too young)"),
    _c("evict_not_enough", "zmon_arc_evict_not_enough_total",
       "Eviction passes that could not free enough", "ZoL 0.6.5+"),
    _c("evict_l2_cached", "zmon_arc_evict_l2_cached_bytes_total",
       "Bytes evicted from the ARC that were cached in L2ARC"),
    _c("evict_l2_eligible", "zmon_arc_evict_l2_eligible_bytes_total",
       "Bytes evicted from the ARC that were eligible for L2ARC"),
    _c("evict_l2_eligible_mfu", "zmon_arc_evict_l2_eligible_mfu_bytes_total",
       "L2ARC-eligible bytes evicted from the MFU list", _V21),
    _c("evict_l2_eligible_mru", "zmon_arc_evict_l2_eligible_mru_bytes_total",
       "L2ARC-eligible bytes evicted from the MRU list", _V21),
    _c("evict_l2_ineligible", "zmon_arc_evict_l2_ineligible_bytes_total",
       "Bytes evicted from the ARC that were not eligible for L2ARC"),
    _c("evict_l2_skip", "zmon_arc_evict_l2_skip_total",
       "Evictions skipped while the buffer was being written to L2ARC", "ZoL 0.6.5+"),
    _g("hash_elements", "zmon_arc_hash_elements", "Headers in the ARC hash table"),
    _g("hash_elements_max", "zmon_arc_hash_elements_max",
       "Most headers seen in the ARC hash table"),
    _c("hash_collisions", "zmon_arc_hash_collisions_total", "ARC hash table collisions"),
    _g("hash_chains", "zmon_arc_hash_chains", "ARC hash table chains longer than one"),
    _g("hash_chain_max", "zmon_arc_hash_chain_max", "Longest ARC hash chain seen"),
    _c("memory_throttle_count", "zmon_arc_memory_throttle_count_total",
       "Writes throttled because memory was low"),
    _c("memory_direct_count", "zmon_arc_memory_direct_count_total",
       "Direct reclaims of ARC memory by the kernel"),
    _c("memory_indirect_count", "zmon_arc_memory_indirect_count_total",
       "Indirect (background) reclaims of ARC memory by the kernel"),
    _c("arc_prune", "zmon_arc_prune_total", "Requests to prune the ARC of cached dentries"),
    _g("duplicate_buffers", "zmon_arc_duplicate_buffers", "Duplicate ARC buffers",
       "ZoL up to 0.6.5, FreeBSD"),
    _g("duplicate_buffers_size", "zmon_arc_duplicate_buffers_size_bytes",
       "Bytes in duplicate ARC buffers", "ZoL up to 0.6.5, FreeBSD"),
    _c("duplicate_reads", "zmon_arc_duplicate_reads_total",
       "Reads that produced a duplicate ARC buffer", "ZoL up to 0.6.5, FreeBSD"),
]

_L2 = [
    _g("l2_ndev", "zmon_arc_l2_devices", "L2ARC devices attached across all pools",
       "OpenZFS 2.3.8+, 2.4.3+"),
    _c("l2_hits", "zmon_arc_l2_hits_total", "L2ARC reads served"),
    _c("l2_misses", "zmon_arc_l2_misses_total", "L2ARC reads that missed"),
    _g("l2_size", "zmon_arc_l2_size_bytes", "Logical bytes cached in L2ARC"),
    _g("l2_asize", "zmon_arc_l2_asize_bytes", "Allocated bytes of L2ARC devices in use",
       "ZoL 0.6.2+"),
    _g("l2_hdr_size", "zmon_arc_l2_hdr_size_bytes", "Bytes of ARC headers for L2ARC buffers"),
    _g("l2_prefetch_asize", "zmon_arc_l2_prefetch_asize_bytes",
       "Allocated L2ARC bytes of prefetched buffers", _V21),
    _g("l2_mru_asize", "zmon_arc_l2_mru_asize_bytes",
       "Allocated L2ARC bytes of buffers from the MRU list", _V21),
    _g("l2_mfu_asize", "zmon_arc_l2_mfu_asize_bytes",
       "Allocated L2ARC bytes of buffers from the MFU list", _V21),
    _g("l2_bufc_data_asize", "zmon_arc_l2_data_asize_bytes",
       "Allocated L2ARC bytes of data buffers", _V21),
    _g("l2_bufc_metadata_asize", "zmon_arc_l2_metadata_asize_bytes",
       "Allocated L2ARC bytes of metadata buffers", _V21),
    _c("l2_feeds", "zmon_arc_l2_feeds_total", "L2ARC feed thread runs"),
    _c("l2_rw_clash", "zmon_arc_l2_rw_clash_total", "L2ARC reads that clashed with a write"),
    _c("l2_read_bytes", "zmon_arc_l2_read_bytes_total", "Bytes read from L2ARC"),
    _c("l2_write_bytes", "zmon_arc_l2_write_bytes_total", "Bytes written to L2ARC"),
    _c("l2_writes_sent", "zmon_arc_l2_writes_sent_total", "L2ARC writes issued"),
    _c("l2_writes_done", "zmon_arc_l2_writes_done_total", "L2ARC writes completed"),
    _c("l2_writes_error", "zmon_arc_l2_writes_error_total", "L2ARC writes that failed"),
    _c("l2_writes_lock_retry", "zmon_arc_l2_writes_lock_retry_total",
       "L2ARC write completions retried for a lock", "ZoL 0.6.5+"),
    _c("l2_writes_hdr_miss", "zmon_arc_l2_writes_hdr_miss_total",
       "L2ARC write completions that missed a header", "ZoL up to 0.6.4, FreeBSD"),
    _c("l2_writes_skip_toobig", "zmon_arc_l2_writes_skip_toobig_total",
       "Buffers not written to L2ARC because too big", "ZoL 0.7.0-rc1"),
    _c("l2_evict_lock_retry", "zmon_arc_l2_evict_lock_retry_total",
       "L2ARC evictions retried for a lock"),
    _c("l2_evict_reading", "zmon_arc_l2_evict_reading_total",
       "L2ARC evictions of buffers being read"),
    _c("l2_evict_l1cached", "zmon_arc_l2_evict_l1cached_total",
       "L2ARC evictions of buffers still in the ARC", "ZoL 0.6.5+"),
    _c("l2_free_on_write", "zmon_arc_l2_free_on_write_total",
       "Buffers freed while being written to L2ARC"),
    _c("l2_cdata_free_on_write", "zmon_arc_l2_cdata_free_on_write_total",
       "Compressed buffers freed while being written to L2ARC", "ZoL 0.6.4-0.6.5, FreeBSD"),
    _c("l2_abort_lowmem", "zmon_arc_l2_abort_lowmem_total",
       "L2ARC reads aborted for low memory"),
    _c("l2_cksum_bad", "zmon_arc_l2_checksum_errors_total",
       "L2ARC reads with a bad checksum"),
    _c("l2_io_error", "zmon_arc_l2_io_errors_total", "L2ARC reads that failed with an I/O error"),
    _c("l2_compress_successes", "zmon_arc_l2_compress_successes_total",
       "Buffers compressed for L2ARC", "ZoL 0.6.2-0.6.5, FreeBSD"),
    _c("l2_compress_zeros", "zmon_arc_l2_compress_zeros_total",
       "All-zero buffers not written to L2ARC", "ZoL 0.6.2-0.6.5, FreeBSD"),
    _c("l2_compress_failures", "zmon_arc_l2_compress_failures_total",
       "Buffers that did not compress for L2ARC", "ZoL 0.6.2-0.6.5, FreeBSD"),
    _c("l2_log_blk_writes", "zmon_arc_l2_log_block_writes_total",
       "L2ARC log blocks written (for persistent L2ARC)", _V20),
    _g("l2_log_blk_avg_asize", "zmon_arc_l2_log_block_avg_asize_bytes",
       "Moving average of the L2ARC log block size in bytes", _V20),
    _g("l2_log_blk_asize", "zmon_arc_l2_log_blocks_asize_bytes",
       "Bytes of L2ARC log blocks on the devices", _V20),
    _g("l2_log_blk_count", "zmon_arc_l2_log_blocks", "L2ARC log blocks on the devices", _V20),
    _g("l2_data_to_meta_ratio", "zmon_arc_l2_data_to_meta_ratio",
       "Moving average of L2ARC data bytes per log block byte (not limited to 1)", _V20),
    _c("l2_rebuild_success", "zmon_arc_l2_rebuild_success_total",
       "Successful L2ARC rebuilds", _V20),
    _c("l2_rebuild_unsupported", "zmon_arc_l2_rebuild_unsupported_total",
       "L2ARC rebuilds aborted for an unsupported or corrupt device header", _V20),
    _c("l2_rebuild_io_errors", "zmon_arc_l2_rebuild_io_errors_total",
       "L2ARC rebuilds aborted by I/O errors reading a log block", _V20),
    _c("l2_rebuild_dh_errors", "zmon_arc_l2_rebuild_dh_errors_total",
       "L2ARC rebuilds aborted by I/O errors reading the device header", _V20),
    _c("l2_rebuild_cksum_lb_errors", "zmon_arc_l2_rebuild_cksum_lb_errors_total",
       "L2ARC log blocks not restored because of checksum errors", _V20),
    _c("l2_rebuild_lowmem", "zmon_arc_l2_rebuild_lowmem_total",
       "L2ARC rebuilds aborted for low memory", _V20),
    _c("l2_rebuild_size", "zmon_arc_l2_rebuild_size_bytes_total",
       "Logical bytes restored by L2ARC rebuilds", _V20),
    _c("l2_rebuild_asize", "zmon_arc_l2_rebuild_asize_bytes_total",
       "Allocated bytes restored by L2ARC rebuilds", _V20),
    _c("l2_rebuild_bufs", "zmon_arc_l2_rebuild_bufs_total",
       "Buffers restored by L2ARC rebuilds", _V20),
    _c("l2_rebuild_bufs_precached", "zmon_arc_l2_rebuild_bufs_precached_total",
       "Buffers skipped by L2ARC rebuilds because already cached", _V20),
    _c("l2_rebuild_log_blks", "zmon_arc_l2_rebuild_log_blocks_total",
       "L2ARC log blocks restored by rebuilds", _V20),
]

# FreeBSD's pre-OpenZFS L2ARC write path counters.
_L2_FREEBSD = [
    _c(f"l2_write_{name}", f"zmon_arc_l2_write_{name}_total", text, _FREEBSD)
    for name, text in (
        ("trylock_fail", "L2ARC feed passes that could not take a list lock"),
        ("passed_headroom", "L2ARC feed scans that passed the headroom"),
        ("spa_mismatch", "L2ARC feed buffers skipped as from another pool"),
        ("in_l2", "L2ARC feed buffers skipped as already in L2ARC"),
        ("io_in_progress", "L2ARC feed buffers skipped for I/O in progress"),
        ("not_cacheable", "L2ARC feed buffers skipped as not cacheable"),
        ("full", "L2ARC feed passes stopped because the write was full"),
        ("buffer_iter", "L2ARC feed buffer scans"),
        ("pios", "L2ARC write I/Os issued by the feed"),
        ("buffer_list_iter", "L2ARC feed list scans"),
        ("buffer_list_null_iter", "L2ARC feed list scans of empty lists"),
    )
] + [
    _c("l2_write_buffer_bytes_scanned", "zmon_arc_l2_write_buffer_scanned_bytes_total",
       "Bytes scanned by the L2ARC feed", _FREEBSD),
]

# fmt: on

ARC_TABLE: tuple[ArcStat, ...] = (
    *_SIZE, *_HITS, *_state_stats(), *_EVICTION, *_L2, *_L2_FREEBSD,
    _alias(_METADATA_SIZE, "meta_size", "ZoL 0.6.3-0.6.4"),
)  # fmt: skip

BY_KSTAT: dict[str, ArcStat] = {stat.kstat: stat for stat in ARC_TABLE}

GENERIC_METRIC = "zmon_arc_stat"
GENERIC_HELP = (
    "ARC statistic that zmon has no curated name for, exported as read; the name label is "
    "the arcstats field (arcstats: <name>)."
)


@dataclass(frozen=True)
class ParamMetric:
    """An ARC module parameter and the gauge it becomes."""

    param: ArcParam
    metric: str
    help: str


_PARAMS = {param.name: param for param in ARC_PARAMS}

PARAM_METRICS: tuple[ParamMetric, ...] = (
    ParamMetric(
        _PARAMS["zfs_arc_max"],
        "zmon_arc_param_max_bytes",
        "ARC size limit set by the zfs_arc_max module parameter in bytes; 0 means the built-in "
        "default (Linux /sys/module/zfs/parameters/zfs_arc_max, FreeBSD sysctl vfs.zfs.arc.max "
        "or vfs.zfs.arc_max).",
    ),
    ParamMetric(
        _PARAMS["zfs_arc_min"],
        "zmon_arc_param_min_bytes",
        "ARC minimum size set by the zfs_arc_min module parameter in bytes; 0 means the "
        "built-in default (Linux /sys/module/zfs/parameters/zfs_arc_min, FreeBSD sysctl "
        "vfs.zfs.arc.min or vfs.zfs.arc_min).",
    ),
)
