"""Cause over symptom, declared once: the shipped Alertmanager configuration's inhibit_rules
are rendered from zmon/health/inhibitions.py, and the status report mutes what they mute."""

from __future__ import annotations

from alert_rules import generate
from zmon.health.inhibitions import muted_by
from zmon.status.alerting import muted
from zmon.status.diagnoses import Finding

VDEV = {"pool": "tank", "vdev": "ata-X"}


def test_the_shipped_inhibit_rules_are_the_declarations() -> None:
    text = generate.ALERTMANAGER_FILE.read_text()
    assert generate.alertmanager_config(text) == text, "run python -m alert_rules.generate"


def test_a_cause_mutes_its_symptoms_with_the_same_labels_only() -> None:
    cable = [("DiskCableFault", {**VDEV, "device": "sdb"})]
    assert muted_by(cable, "ZfsVdevChecksumErrors", VDEV) == "DiskCableFault"
    assert muted_by(cable, "ZfsVdevChecksumErrors", {**VDEV, "vdev": "ata-Y"}) is None
    assert muted_by(cable, "ZfsPoolDegraded", {"pool": "tank"}) is None
    ups = [("UpsLowBattery", {"ups": "u", "server": "s", "flag": "LB"})]
    assert muted_by(ups, "UpsOnBattery", {"ups": "u", "server": "s", "flag": "OB"})
    assert muted_by(ups, "UpsOnBattery", {"ups": "v", "server": "s", "flag": "OB"}) is None


def test_the_failing_source_of_a_resilver_mutes_that_disks_smart_and_media_tickets() -> None:
    source = [("ZfsResilverSourceFailing", {**VDEV, "device": "sda"})]
    for ticket in ("DiskSmartFailed", "DiskPendingSectorsRising", "DiskReallocatedSectorsRising",
                   "DiskMediumErrors", "DiskNvmeMediaErrors"):  # fmt: skip
        assert muted_by(source, ticket, {"device": "sda", "pool": "tank"}), ticket
        assert muted_by(source, ticket, {"device": "sdb", "pool": "tank"}) is None, ticket
    assert muted_by(source, "ZfsPoolDegraded", {"pool": "tank"}) is None


def test_an_alert_does_not_mute_itself() -> None:
    down = [("ZmonTargetDown", {})]
    assert muted_by(down, "ZmonTargetDown", {}) is None
    assert muted_by(down, "ZfsPoolDegraded", {"pool": "tank"}) == "ZmonTargetDown"


def _f(alert: str, severity: str = "warning") -> Finding:
    return Finding("r", severity, "s", "e", "c", "a", alert, dict(VDEV))


def test_a_report_says_a_muted_finding_as_the_symptom_of_a_firing_cause() -> None:
    findings = [_f("DiskLinkFailing", "critical"), _f("ZfsVdevChecksumErrors")]
    firing = {"alert_labels": dict(VDEV), "state": "firing"}
    assert muted(findings, [firing, firing]) == [None, "DiskLinkFailing"]
    pending = {"alert_labels": dict(VDEV), "state": "pending"}  # (not in Alertmanager yet)
    assert muted(findings, [pending, firing]) == [None, None]
