"""The dataset alerts: identified by their dataset, scoped by the thresholds table."""

from __future__ import annotations

from dataclasses import replace

import pytest

from alert_rules.building import Alert
from alert_rules.datasets import dataset_alerts
from alert_rules.thresholds import DEFAULTS, Thresholds
from zmon.status.policy import severity


def _alerts(t: Thresholds) -> dict[str, Alert]:
    return {r.alert: r for r in dataset_alerts(t).rules if isinstance(r, Alert)}


@pytest.mark.parametrize("alert", _alerts(DEFAULTS).values(), ids=lambda a: a.alert)
def test_dataset_alerts_are_one_per_dataset_and_tickets(alert: Alert) -> None:
    """``type`` (filesystem or volume) is left out of the identity; none of them pages."""
    assert "max by (instance, job, pool, dataset) (" in alert.expr
    assert "$labels.dataset" in alert.description and "$labels.pool" in alert.description
    assert severity(alert.alert) == "warning"


def test_snapshot_age_is_scoped_by_the_thresholds_table() -> None:
    overdue = _alerts(DEFAULTS)["ZfsDatasetSnapshotOverdue"].expr
    assert 'dataset=~".+"' in overdue and "> 93600" in overdue
    narrowed = _alerts(replace(DEFAULTS, snapshot_datasets="tank/home/.*"))
    assert 'dataset=~"tank/home/.*"' in narrowed["ZfsDatasetSnapshotOverdue"].expr
