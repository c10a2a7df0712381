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
)
SKIPPED_PREFIXES = ("zmon_disk_smart_attribute", "zmon_pool_kstat_", "zmon_pool_ddt_bucket",
                    "zmon_pool_queue_", "zmon_pool_txg_", "zmon_pool_disk_latency",
                    "zmon_pool_io_latency", "zmon_pool_lifetime_")  # fmt: skip


def wanted(name: str) -> bool:
    return name.startswith(READ_PREFIXES) and not name.startswith(SKIPPED_PREFIXES)
