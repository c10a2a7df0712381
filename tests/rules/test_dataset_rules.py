"""The dataset alerts: identified by their dataset, scoped by the thresholds table."""

from __future__ import annotations

import pytest

from alert_rules.building import Alert
from alert_rules.rules import dataset_alerts
from zmon.health.policy import severity
from zmon.health.thresholds import DEFAULTS, Thresholds


def _alerts(t: Thresholds) -> dict[str, Alert]:
    return {r.alert: r for r in dataset_alerts(t).rules if isinstance(r, Alert)}


@pytest.mark.parametrize("alert", _alerts(DEFAULTS).values(), ids=lambda a: a.alert)
def test_dataset_alerts_are_one_per_dataset_and_tickets(alert: Alert) -> None:
    """``type`` (filesystem or volume) is left out of the identity; none of them pages."""
    assert "max by (instance, job, pool, dataset) (" in alert.expr
    assert "$labels.dataset" in alert.description and "$labels.pool" in alert.description
    assert severity(alert.alert) == "warning"


def test_snapshot_age_is_judged_only_where_zmon_says_snapshots_are_expected() -> None:
    """The selection is zmon's (the datasets collector's snapshot policy), served as
    zmon_dataset_snapshots_expected_since_timestamp_seconds; both branches need it."""
    overdue = _alerts(DEFAULTS)["ZfsDatasetSnapshotOverdue"].expr
    assert "> 93600" in overdue
    branches = overdue.split("\n  or ")
    assert len(branches) == 2
    assert all("zmon_dataset_snapshots_expected_since_timestamp_seconds" in b for b in branches)
