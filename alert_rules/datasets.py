"""Dataset alerts: a quota or refquota nearly full, snapshots that stopped being taken.

Their severities are in the paging policy (zmon/status/policy.py): tickets, since a full
quota stops writes to one dataset, not the pool, and a missing snapshot loses no data yet.
zmon serves a quota only where one is set and a newest snapshot time only where the dataset
has a snapshot, so datasets without either never fire.
"""

from __future__ import annotations

from alert_rules.building import Alert, Group, x
from alert_rules.thresholds import Thresholds

DATASET = "dataset {{ $labels.dataset }} on {{ $labels.instance }}"
# An alert is about one dataset: its ``type`` label (filesystem or volume) is left out.
BY_DATASET = "max by (instance, job, pool, dataset)"


def _limit(metric: str) -> str:
    """The limit's size, looked up when the alert fires (it can be raised during the alert)."""
    return (
        f'{{{{ with printf "{metric}{{instance=%q,dataset=%q}}" $labels.instance '
        "$labels.dataset | query }}{{ . | first | value | humanize1024 }}B{{ end }}"
    )


def dataset_alerts(t: Thresholds) -> Group:
    full = t.dataset_quota_full
    return Group(
        "zmon-datasets",
        [
            Alert(
                "ZfsDatasetQuotaNearlyFull",
                x(f"""
            {BY_DATASET} (
              zmon_dataset_used_bytes / (zmon_dataset_quota_bytes > 0)
            ) > {full}
        """),
                "A ZFS dataset is nearly at its quota.",
                f"ZFS {DATASET} (pool {{{{ $labels.pool }}}}) uses {{{{ $value | "
                f"humanizePercentage }}}} of its quota of {_limit('zmon_dataset_quota_bytes')} "
                f"(warns above {full:.0%}). The quota counts its children and snapshots; at "
                "the quota, writes to it and below it fail (EDQUOT).",
                str(t.dataset_quota_for),
            ),
            Alert(
                "ZfsDatasetRefquotaNearlyFull",
                x(f"""
            {BY_DATASET} (
              zmon_dataset_referenced_bytes / (zmon_dataset_refquota_bytes > 0)
            ) > {full}
        """),
                "A ZFS dataset is nearly at its refquota.",
                f"ZFS {DATASET} (pool {{{{ $labels.pool }}}}) references {{{{ $value | "
                f"humanizePercentage }}}} of its refquota of "
                f"{_limit('zmon_dataset_refquota_bytes')} (warns above {full:.0%}); at the "
                "refquota, writes to it fail (EDQUOT).",
                str(t.dataset_quota_for),
            ),
            Alert(
                "ZfsDatasetSnapshotOverdue",
                x(f"""
            time() - {BY_DATASET} (
              zmon_dataset_newest_snapshot_timestamp_seconds{{dataset=~"{t.snapshot_datasets}"}}
            ) > {t.snapshot_max_age.seconds}
        """),
                "A ZFS dataset has had no new snapshot for too long.",
                f"The newest snapshot of ZFS {DATASET} (pool {{{{ $labels.pool }}}}) was taken "
                f"{{{{ $value | humanizeDuration }}}} ago (limit {t.snapshot_max_age}): its "
                "snapshot schedule (sanoid, zfs-auto-snapshot, a cron job) or the replication "
                "that feeds it has stopped.",
                str(t.snapshot_overdue_for),
            ),
        ],
    )
