"""The capacity and dataset families: a pool filling up or fragmented, a dataset near its
quota or refquota, snapshots that stopped being taken (declarations.py has the conventions).

The pool capacity alerts use hysteresis: each fires above its upper bound and stays active
(pending or firing) until the pool drops below its lower bound, read from its own ``ALERTS``
series (``evaluate_conditions`` carries them from one evaluation to the next).

The dataset alerts' severities are in the paging policy (zmon/health/policy.py): tickets,
since a full quota stops writes to one dataset, not the pool, and a missing snapshot loses no
data yet. zmon serves a quota only where one is set, so datasets without one never fire.
Snapshot age is judged only for the datasets the snapshot policy selects (the datasets
collector's ``snapshot_property``, ``snapshot_expected`` and ``snapshot_not_expected``
options): zmon serves them ``zmon_dataset_snapshots_expected_since_timestamp_seconds`` (their
creation), and their age is counted from their newest snapshot, or from their creation when
they have none. A dataset outside the selection never fires, whatever its snapshots.
"""

from __future__ import annotations

from zmon.health.conditions import Condition
from zmon.health.declarations import POOL_ID
from zmon.health.expr import Node, Record, active_alerts, max_by, metric, time
from zmon.health.thresholds import Thresholds
from zmon.health.words import POOL

CAPACITY = Record.of(
    "zmon:pool_capacity:ratio",
    metric("zmon_pool_allocated_bytes") / (metric("zmon_pool_size_bytes") > 0),
)
"""How full each pool is, 0-1."""

DATASET = "dataset {{ $labels.dataset }} on {{ $labels.instance }}"
# An alert is about one dataset: its ``type`` label (filesystem or volume) is left out.
DATASET_ID = ("instance", "job", "pool", "dataset")
DATASET_JOIN = ("instance", "job", "dataset")
NEWEST = metric("zmon_dataset_newest_snapshot_timestamp_seconds")
EXPECTED = metric("zmon_dataset_snapshots_expected_since_timestamp_seconds")
# "its newest snapshot was taken 2d ago" or, with none, "has had none since it was created 2d ago"
SNAPSHOT_AGE = (
    f'{{{{ if printf "{NEWEST.name}{{instance=%q,dataset=%q}}" $labels.instance '
    "$labels.dataset | query }}its newest snapshot was taken{{ else }}it has had no snapshot "
    "since it was created{{ end }} {{ $value | humanizeDuration }} ago"
)


def hysteresis(value: Node, name: str, on: float, off: float) -> Node:
    """Holds above ``on``, and above ``off`` while alert ``name`` is active for the pool."""
    return (value > on).or_((value > off).and_(active_alerts(name), on=POOL_ID))


def fill_description(subject: str, filled: str, bounds: str, consequence: str) -> str:
    """A fill alert's description, "{subject} <ratio> {filled} ({bounds}){consequence}": for
    example "ZFS pool p on h is 91% full (above 90%, clears below 85%); writes slow down…"."""
    return f"{subject} {{{{ $value | humanizePercentage }}}} {filled} ({bounds}){consequence}"


def _level(
    t: Thresholds, name: str, on: float, off: float, summary: str, above: str, rest: str
) -> Condition:
    """A capacity alert: fires above ``on``, clears below ``off``."""
    return Condition(
        name,
        hysteresis(CAPACITY, name, on, off),
        summary,
        fill_description(
            f"ZFS {POOL} is", "full", f"{above} {on:.0%}, clears below {off:.0%}", rest
        ),
        t.capacity_for,
    )


def capacity_conditions(t: Thresholds) -> list[Condition]:
    return [
        _level(
            t,
            "ZfsPoolCapacityWarning",
            t.capacity_warning_on,
            t.capacity_warning_off,
            "A ZFS pool is filling up.",
            "warns above",
            ".",
        ),
        _level(
            t,
            "ZfsPoolCapacityCritical",
            t.capacity_critical_on,
            t.capacity_critical_off,
            "A ZFS pool is nearly full.",
            "above",
            "; writes slow down sharply and will fail when it is full.",
        ),
        Condition(
            "ZfsPoolFragmentationHigh",
            metric("zmon_pool_fragmentation_ratio") > t.fragmentation_max,
            "A ZFS pool's free space is highly fragmented.",
            f"Free space of {POOL} is {{{{ $value | humanizePercentage }}}} fragmented; "
            "allocation and writes slow down, worse as the pool fills.",
            t.fragmentation_for,
        ),
    ]


def _limit(name: str) -> str:
    """The limit's size, looked up when the alert fires (it can be raised during the alert)."""
    return (
        f'{{{{ with printf "{name}{{instance=%q,dataset=%q}}" $labels.instance '
        "$labels.dataset | query }}{{ . | first | value | humanize1024 }}B{{ end }}"
    )


QUOTA_USED = {"quota": "zmon_dataset_used_bytes", "refquota": "zmon_dataset_referenced_bytes"}
"""What each limit counts: ``used`` against the quota, ``referenced`` against the refquota."""


def quota_use(used: str, limit: str) -> Node:
    """``used`` bytes of a dataset per byte of its ``limit`` (quota or refquota), where one
    is set: what the quota alerts judge and the pool dashboard draws."""
    return metric(used) / (metric(f"zmon_dataset_{limit}_bytes") > 0)


def _quota(
    t: Thresholds, name: str, limit: str, *, used: str, verb: str, consequence: str
) -> Condition:
    """Fires when a dataset's ``used`` bytes pass its ``limit`` (quota or refquota), where
    one is set."""
    size = f"zmon_dataset_{limit}_bytes"
    full = t.dataset_quota_full
    return Condition(
        name,
        max_by(DATASET_ID, quota_use(used, limit)) > full,
        f"A ZFS dataset is nearly at its {limit}.",
        fill_description(
            f"ZFS {DATASET} (pool {{{{ $labels.pool }}}}) {verb}",
            f"of its {limit} of {_limit(size)}",
            f"warns above {full:.0%}",
            consequence,
        ),
        t.dataset_quota_for,
    )


def snapshot_age() -> Node:
    """Per dataset the snapshot policy selects: how old its newest snapshot is (with none,
    how long ago it was created); what ZfsDatasetSnapshotOverdue judges and the pool
    dashboard draws."""
    newest = NEWEST.and_(EXPECTED, on=DATASET_JOIN).or_(
        EXPECTED.and_(metric("zmon_dataset_snapshots").eq(0), on=DATASET_JOIN)
    )
    return time() - max_by(DATASET_ID, newest)


def snapshot_overdue(t: Thresholds) -> Condition:
    """A dataset the snapshot policy selects whose newest snapshot (or, with none, its
    creation) is older than ``snapshot_max_age``."""
    max_age = t.snapshot_max_age
    return Condition(
        "ZfsDatasetSnapshotOverdue",
        snapshot_age() > max_age.seconds,
        "A ZFS dataset that should be snapshotted has had no new snapshot for too long.",
        f"ZFS {DATASET} (pool {{{{ $labels.pool }}}}) should be snapshotted and "
        f"{SNAPSHOT_AGE} (limit {max_age}): its snapshot schedule "
        "(sanoid, zfs-auto-snapshot, a cron job) or the replication that feeds it has "
        "stopped.",
        t.snapshot_overdue_for,
    )


def dataset_conditions(t: Thresholds) -> list[Condition]:
    return [
        _quota(
            t,
            "ZfsDatasetQuotaNearlyFull",
            "quota",
            used=QUOTA_USED["quota"],
            verb="uses",
            consequence=". The quota counts its children and snapshots; at the quota, "
            "writes to it and below it fail (EDQUOT).",
        ),
        _quota(
            t,
            "ZfsDatasetRefquotaNearlyFull",
            "refquota",
            used=QUOTA_USED["refquota"],
            verb="references",
            consequence="; at the refquota, writes to it fail (EDQUOT).",
        ),
        snapshot_overdue(t),
    ]
