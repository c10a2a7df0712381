"""The declarations decide what a report says of the alerts they judged: a finding names its
alert only while the declaration holds, says the instance's state, and an instance no
finding describes is said in the condition's words (zmon/status/alerting.py)."""

from __future__ import annotations

from zmon.health import shipped
from zmon.health.conditions import Instance
from zmon.health.thresholds import DEFAULTS
from zmon.status.alerting import Judgment, judged_findings
from zmon.status.diagnoses import Finding

CONDITIONS = shipped.conditions(DEFAULTS)
ALL = frozenset(c.name for c in CONDITIONS)


def _finding(alert: str | None, severity: str = "warning", **labels: str) -> Finding:
    return Finding("rule", severity, "subject", "evidence", "cause", "action", alert, labels)


def _instance(alert: str, when: str = "firing", since: float = 100.0, **labels: str) -> Instance:
    severity = next(c.severity for c in CONDITIONS if c.name == alert)
    return Instance(alert, {**labels, "severity": severity}, when, since, 1.0)


def test_a_finding_whose_declaration_does_not_hold_claims_no_alert() -> None:
    f = _finding("ZfsVdevChecksumErrors", pool="tank", vdev="sda")
    (out,), (state,) = judged_findings([f], Judgment(CONDITIONS, [], ALL))
    assert (out.alert, out.severity, out.evidence) == (None, "", "evidence")
    assert out.is_note  # said as a note: no alert, no severity
    assert state["alert_labels"] == {}


def test_a_finding_says_the_state_and_since_of_its_instance() -> None:
    f = _finding("ZfsPoolDegraded", "critical", pool="tank", state="degraded")
    inst = _instance("ZfsPoolDegraded", "pending", 40.0, pool="tank", state="degraded")
    (out,), (state,) = judged_findings([f], Judgment(CONDITIONS, [inst], ALL))
    assert out.alert == "ZfsPoolDegraded" and out.severity == inst.severity  # the policy's
    assert state == {"alert_labels": {"pool": "tank", "state": "degraded"}, "state": "pending",
                     "since": 40.0}  # fmt: skip


def test_an_instance_no_finding_describes_is_said_in_the_conditions_words() -> None:
    inst = _instance("ZfsErrorEvents", pool="rz", vdev="vdc")
    (out,), (state,) = judged_findings([], Judgment(CONDITIONS, [inst], ALL))
    assert out.alert == "ZfsErrorEvents" and out.subject == "vdev vdc"
    assert out.labels == {"pool": "rz", "vdev": "vdc"} and state["state"] == "firing"
    assert out.cause and "{" not in out.cause + out.action  # filled from the labels


def test_a_finding_of_a_condition_not_judged_yet_is_left_as_it_is() -> None:
    f = _finding("DiskReallocatedSectorsRising", device="sda")  # (a 24 h window)
    judged = ALL - {"DiskReallocatedSectorsRising"}
    (out,), (state,) = judged_findings([f], Judgment(CONDITIONS, [], judged))
    assert out == f and state == {}


def test_the_page_judges_what_the_snapshot_serves_now() -> None:
    """A change the page has not judged yet is judged at the next report (cheap here), so a
    finding never loses its alert to an evaluation older than its data."""
    from zmon.status.page import StatusPage

    class Snapshot:
        generation = 1
        start_time = 0.0

        def __init__(self) -> None:
            self.families: list[object] = []

        def states(self) -> list[object]:
            return []

    clock = [1000.0]
    snap = Snapshot()
    page = StatusPage(snap, clock=lambda: clock[0], host="h", judge_every=3600)
    page.report()
    first = page.evaluator.at
    clock[0] += 5
    page.report()
    assert page.evaluator.at == first  # nothing changed: no new evaluation
    snap.generation = 2
    page.report()
    assert page.evaluator.at == 1005.0
