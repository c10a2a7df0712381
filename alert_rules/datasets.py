"""Dataset alerts: a quota or refquota nearly full, snapshots that stopped being taken.

Their severities are in the paging policy (zmon/status/policy.py): tickets, since a full
quota stops writes to one dataset, not the pool, and a missing snapshot loses no data yet.
zmon serves a quota only where one is set, so datasets without one never fire. Snapshot age
is judged only for the datasets the snapshot policy selects (the datasets collector's
``snapshot_property``, ``snapshot_expected`` and ``snapshot_not_expected`` options): zmon serves
them ``zmon_dataset_snapshots_expected_since_timestamp_seconds`` (their creation), and their age
is counted from their newest snapshot, or from their creation when they have none. A dataset
outside the selection never fires, whatever its snapshots.
"""

from __future__ import annotations

from alert_rules.building import Alert, Group, fill_alert, x
from zmon.judgment.thresholds import Thresholds

DATASET = "dataset {{ $labels.dataset }} on {{ $labels.instance }}"
# An alert is about one dataset: its ``type`` label (filesystem or volume) is left out.
BY_DATASET = "max by (instance, job, pool, dataset)"
NEWEST = "zmon_dataset_newest_snapshot_timestamp_seconds"
EXPECTED = "zmon_dataset_snapshots_expected_since_timestamp_seconds"
# "its newest snapshot was taken 2d ago" or, with none, "has had none since it was created 2d ago"
_SNAPSHOT_AGE = (
    f'{{{{ if printf "{NEWEST}{{instance=%q,dataset=%q}}" $labels.instance $labels.dataset '
    "| query }}its newest snapshot was taken{{ else }}it has had no snapshot since it was "
    "created{{ end }} {{ $value | humanizeDuration }} ago"
)


def _limit(metric: str) -> str:
    """The limit's size, looked up when the alert fires (it can be raised during the alert)."""
    return (
        f'{{{{ with printf "{metric}{{instance=%q,dataset=%q}}" $labels.instance '
        "$labels.dataset | query }}{{ . | first | value | humanize1024 }}B{{ end }}"
    )


def _quota_alert(
    t: Thresholds, name: str, limit: str, *, used: str, verb: str, consequence: str
) -> Alert:
    """Fires when a dataset's ``used`` bytes pass its ``limit`` (quota or refquota), where
    one is set."""
    metric = f"zmon_dataset_{limit}_bytes"
    full = t.dataset_quota_full
    return fill_alert(
        name,
        x(f"""
            {BY_DATASET} (
              {used} / ({metric} > 0)
            ) > {full}
        """),
        f"A ZFS dataset is nearly at its {limit}.",
        subject=f"ZFS {DATASET} (pool {{{{ $labels.pool }}}}) {verb}",
        filled=f"of its {limit} of {_limit(metric)}",
        bounds=f"warns above {full:.0%}",
        consequence=consequence,
        for_=t.dataset_quota_for,
    )


def dataset_alerts(t: Thresholds) -> Group:
    return Group(
        "zmon-datasets",
        [
            _quota_alert(
                t,
                "ZfsDatasetQuotaNearlyFull",
                "quota",
                used="zmon_dataset_used_bytes",
                verb="uses",
                consequence=". The quota counts its children and snapshots; at the quota, "
                "writes to it and below it fail (EDQUOT).",
            ),
            _quota_alert(
                t,
                "ZfsDatasetRefquotaNearlyFull",
                "refquota",
                used="zmon_dataset_referenced_bytes",
                verb="references",
                consequence="; at the refquota, writes to it fail (EDQUOT).",
            ),
            Alert(
                "ZfsDatasetSnapshotOverdue",
                x(f"""
            time() - {BY_DATASET} (
              {NEWEST} and on(instance, job, dataset) {EXPECTED}
              or {EXPECTED} and on(instance, job, dataset) zmon_dataset_snapshots == 0
            ) > {t.snapshot_max_age.seconds}
        """),
                "A ZFS dataset that should be snapshotted has had no new snapshot for too long.",
                f"ZFS {DATASET} (pool {{{{ $labels.pool }}}}) should be snapshotted and "
                f"{_SNAPSHOT_AGE} (limit {t.snapshot_max_age}): its snapshot schedule "
                "(sanoid, zfs-auto-snapshot, a cron job) or the replication that feeds it has "
                "stopped.",
                str(t.snapshot_overdue_for),
            ),
        ],
    )
