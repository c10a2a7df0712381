"""Dataset findings: quotas nearly full and snapshots overdue, as the dataset alerts judge them."""

from __future__ import annotations

from tests.status.helpers import NOW, families, findings, pool_text
from zmon.status.report import build_report

HOUR = 3600.0
# i30fuse/home/alice on a real zfs-fuse run: a quota of 32 MiB, 31.5 MiB used (93.9 %)
QUOTA = (
    'zmon_dataset_used_bytes{dataset="tank/home/alice",pool="tank",type="filesystem"} 31506432\n'
    'zmon_dataset_quota_bytes{dataset="tank/home/alice",pool="tank",type="filesystem"} 33554432\n'
    'zmon_dataset_referenced_bytes{dataset="tank/home/bob",pool="tank",type="filesystem"} 9.2e6\n'
    'zmon_dataset_refquota_bytes{dataset="tank/home/bob",pool="tank",type="filesystem"} 1e7\n'
    'zmon_dataset_used_bytes{dataset="tank/home/carol",pool="tank",type="filesystem"} 8e6\n'
    'zmon_dataset_quota_bytes{dataset="tank/home/carol",pool="tank",type="filesystem"} 1e7\n'
)


def test_a_dataset_near_its_quota_is_a_warning_not_ok() -> None:
    report = build_report(families(pool_text() + QUOTA), NOW)
    assert report["state"] == "warning"
    assert not report["headline"].startswith("OK")
    quota = [f for f in report["findings"] if f["alert"] == "ZfsDatasetQuotaNearlyFull"]
    assert [(f["subject"], f["evidence"]) for f in quota] == [
        ("dataset tank/home/alice", "uses 94 % of its quota of 32.0 MiB (30.0 MiB used)")
    ]
    assert quota[0]["labels"] == {"pool": "tank", "dataset": "tank/home/alice"}
    refquota = [f for f in report["findings"] if f["alert"] == "ZfsDatasetRefquotaNearlyFull"]
    assert [(f["subject"], f["evidence"]) for f in refquota] == [
        ("dataset tank/home/bob", "references 92 % of its refquota of 9.5 MiB (8.8 MiB)")
    ]


def _snapshots(dataset: str, expected_since: float | None, count: int, newest: float | None) -> str:
    """A dataset as the datasets collector serves it; ``expected_since`` (its creation time)
    only where the snapshot policy selects it."""
    labels = f'dataset="{dataset}",pool="tank",type="filesystem"'
    text = f"zmon_dataset_snapshots{{{labels}}} {count}\n"
    if newest is not None:
        text += f"zmon_dataset_newest_snapshot_timestamp_seconds{{{labels}}} {newest}\n"
    if expected_since is not None:
        text += (
            f"zmon_dataset_snapshots_expected_since_timestamp_seconds{{{labels}}} "
            f"{expected_since}\n"
        )
    return text


def test_snapshot_age_is_judged_only_for_datasets_that_should_be_snapshotted() -> None:
    text = (
        pool_text()
        + _snapshots("tank/manual", None, 1, NOW - 400 * 24 * HOUR)  # one old manual snapshot
        + _snapshots("tank/scratch", None, 0, None)  # never snapshotted, by design
        + _snapshots("tank/home", NOW - 900 * HOUR, 30, NOW - 2 * HOUR)  # on schedule
        + _snapshots("tank/db", NOW - 900 * HOUR, 12, NOW - 50 * HOUR)  # the schedule stopped
        + _snapshots("tank/new", NOW - 30 * HOUR, 0, None)  # selected, never snapshotted
        + _snapshots("tank/newer", NOW - 2 * HOUR, 0, None)  # selected, created 2 h ago
    )
    overdue = [f for f in findings(text) if f.alert == "ZfsDatasetSnapshotOverdue"]
    assert [(f.subject, f.evidence) for f in overdue] == [
        ("dataset tank/db", "newest snapshot taken 2 days ago (limit 26 h)"),
        ("dataset tank/new", "no snapshot since it was created 30 h ago (limit 26 h)"),
    ]
    assert all(f.severity == "warning" for f in overdue)
