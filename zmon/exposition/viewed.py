"""Which metric families the status views read: the snapshot keeps their samples for them."""

from __future__ import annotations

# Families the views read; others (datasets, histograms, SMART attribute tables) are skipped.
READ_PREFIXES = (
    "zmon_pool_",
    "zmon_vdev_",
    "zmon_arc_",
    "zmon_disk_",
    "zmon_kernel_log_",
    "zmon_ups_",
    "zmon_zfs_events",
    "zmon_collector_",
    "zmon_sas_phy_",
)
# Dataset families the views read (the dataset alerts' inputs); the others are skipped.
READ_DATASET_FAMILIES = frozenset({
    "zmon_dataset_used_bytes", "zmon_dataset_referenced_bytes", "zmon_dataset_quota_bytes",
    "zmon_dataset_refquota_bytes", "zmon_dataset_snapshots",
    "zmon_dataset_newest_snapshot_timestamp_seconds",
    "zmon_dataset_snapshots_expected_since_timestamp_seconds",
})  # fmt: skip
# Single families read besides those prefixes: zmon's start, the pools' kstat state (known
# without zpool, for a zpool that hangs).
# The write throttle's counters (a slowdown that is not the ARC's, zmon/status/slowdown.py).
READ_FAMILIES = frozenset({"zmon_start_time_seconds", "zmon_pool_kstat_state",
                           "zmon_dmu_tx_events", "zmon_dmu_tx_events_total"})  # fmt: skip
SKIPPED_PREFIXES = ("zmon_disk_smart_attribute", "zmon_pool_kstat_", "zmon_pool_ddt_bucket",
                    "zmon_pool_queue_", "zmon_pool_txg_", "zmon_pool_disk_latency",
                    "zmon_pool_lifetime_")  # fmt: skip


def wanted(name: str) -> bool:
    if name in READ_DATASET_FAMILIES or name in READ_FAMILIES:
        return True
    return name.startswith(READ_PREFIXES) and not name.startswith(SKIPPED_PREFIXES)
