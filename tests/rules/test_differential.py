"""Prometheus with the shipped rules and ``zmon status --json`` say the same of a host.

For every demo phase, every fleet incident and every step of the lab's recorded runs
(tests/rules/differential.py replays them on a fixed clock), the alerts promtool holds
(alert, identifying labels, severity, firing or pending) equal the findings the status
report names at the same moment. One test per alert: it compares that alert on every
scenario and moment. Where the two disagree today the test is xfail (strict) with the
disagreement in words; when it is fixed the test passes unexpectedly and fails: delete its
entry in ``DISAGREE``. ``python -m tests.rules.differential`` prints every disagreement.

The hermetic tests below check the harness itself (promtool's report read back, series
absent before zmon serves them, a finding's alert state).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import require_tool
from tests.rules import differential as d
from zmon.health.policy import POLICY
from zmon.status.alerting import IDENTITY, alert_states, for_seconds
from zmon.status.diagnoses import RULES, Finding
from zmon.status.report import overall_state

COMPARED = tuple(p.alert for p in POLICY if p.alert not in d.UNSEEN_BY_STATUS)

# alert -> why status and Prometheus disagree on it today (the test is xfail, strict)
DISAGREE: dict[str, str] = {}


@pytest.fixture(scope="module")
def compared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[d.Compared]]:
    promtool = require_tool("promtool", "Debian package prometheus")
    out: list[d.Compared] = []
    for scenario in d.SCENARIOS:
        workdir = tmp_path_factory.mktemp(scenario.replace(" ", "-"))
        out.extend(d.run_scenario(scenario, promtool, workdir))
    yield out


def _cases() -> list[object]:
    return [
        pytest.param(
            alert,
            marks=[pytest.mark.xfail(reason=DISAGREE[alert], strict=True)]
            if alert in DISAGREE
            else [],
        )
        for alert in COMPARED
    ]


@pytest.mark.real
@pytest.mark.slow
@pytest.mark.parametrize("alert", _cases())
def test_prometheus_and_status_agree(compared: list[d.Compared], alert: str) -> None:
    differ = d.disagreements(compared, alert)
    assert not differ, f"{len(differ)} moments differ on {alert}:\n" + "\n".join(differ[:12])


def test_every_scenario_moment_is_compared_once() -> None:
    assert len(set(d.SCENARIOS)) == len(d.SCENARIOS)
    assert {"demo", "lab 2.1.11", "lab 2.3.2"} <= set(d.SCENARIOS)


def test_disagreements_name_compared_alerts() -> None:
    assert set(DISAGREE) <= set(COMPARED)


# ---- the harness itself (hermetic)

_A = (
    '{__name__="ALERTS", alertname="A", alertstate="pending", instance="h1:10124", '
    'job="zmon", pool="ta\\"nk", severity="warning"} 1E+00'
)
_B = (
    '{__name__="ALERTS", alertname="B", alertstate="firing", instance="h1:10124", '
    'job="zmon", severity="critical"} 1E+00'
)
_C = '{__name__="ALERTS", alertname="C", alertstate="firing", job="zmon", vdev="", severity="info"} 1E+00'  # noqa: E501
PROMTOOL_REPORT = f"""Unit Testing:  differential.test.yml
  FAILED:
    expr: "ALERTS", time: 1m30s,
        exp: nil
        got: {_A}, {_B}
    expr: "ALERTS", time: 0s,
        exp: nil
        got: {_C}
"""


def test_promtools_report_is_read_back_per_moment() -> None:
    got = d.parse_alerts(PROMTOOL_REPORT)
    assert got[90.0] == {
        d.Fired("A", (("pool", 'ta"nk'),), "warning", "pending"),
        d.Fired("B", (), "critical", "firing"),
    }
    assert got[0.0] == {d.Fired("C", (), "info", "firing")}  # empty labels are no labels


def test_a_series_is_absent_before_zmon_serves_it_and_stale_after() -> None:
    timeline = d.Timeline("t", 0.0, 15.0)
    timeline.scrapes = [
        None,
        "# TYPE zmon_a gauge\nzmon_a 1\n",
        '# TYPE zmon_a gauge\nzmon_a 2\n# TYPE zmon_b counter\nzmon_b_total{x="1"} 0\n',
        '# TYPE zmon_b counter\nzmon_b_total{x="1"} 3\n',
        '# TYPE zmon_b counter\nzmon_b_total{x="1"} 3\n',
    ]
    series = {s["series"]: s["values"] for s in d.input_series(timeline)}
    target = 'instance="h1:10124", job="zmon"'
    assert series[f"zmon_a{{{target}}}"] == "_ 1.0 2.0 stale _"
    assert series[f'zmon_b_total{{{target}, x="1"}}'] == "_ _ 0.0 3.0 3.0"
    assert series[f"up{{{target}}}"] == "_ 1.0 1.0 1.0 1.0"


def test_timestamps_move_with_promtools_clock() -> None:
    """promtool's time 0 is the timeline's start: ages stay what they were."""
    timeline = d.Timeline("t", 1000.0, 15.0)
    timeline.scrapes = [
        "# TYPE zmon_pool_creation_time_seconds gauge\n"
        'zmon_pool_creation_time_seconds{pool="p"} 400\n'
        "# TYPE zmon_collector_last_success_timestamp_seconds gauge\n"
        'zmon_collector_last_success_timestamp_seconds{collector="c"} 0\n'
    ]
    series = {s["series"].split("{")[0]: s["values"] for s in d.input_series(timeline)}
    assert series["zmon_pool_creation_time_seconds"] == "-600.0"
    assert series["zmon_collector_last_success_timestamp_seconds"] == "0.0"  # none yet


def test_the_rules_file_for_promtool_keeps_every_rule_but_no_annotation() -> None:
    text = d.without_annotations(d.RULES_FILE.read_text())
    assert "annotations" not in text and "runbook_url" not in text
    assert text.count("- alert: ") == d.RULES_FILE.read_text().count("- alert: ")


def _finding(alert: str | None, severity: str, **labels: str) -> Finding:
    return Finding("r", severity, "s", "e", "c", "a", alert, labels)


def test_a_finding_is_pending_until_its_rules_for_has_passed() -> None:
    degraded = _finding("ZfsPoolDegraded", "warning", pool="tank", state="degraded")
    onsets: dict = {}  # type: ignore[type-arg]
    assert for_seconds()["ZfsPoolDegraded"] == 60.0
    (first,) = alert_states([degraded], 1000.0, onsets)
    assert (first["state"], first["since"]) == ("pending", 1000.0)
    assert first["alert_labels"] == {"pool": "tank", "state": "degraded"}
    (later,) = alert_states([degraded], 1060.0, onsets)
    assert (later["state"], later["since"]) == ("firing", 1000.0)
    assert alert_states([], 1075.0, onsets) == [] and not onsets  # gone: forgotten
    (again,) = alert_states([degraded], 1090.0, onsets)
    assert again["state"] == "pending"


def test_without_memory_a_finding_is_said_as_it_is_now() -> None:
    (one,) = alert_states([_finding("ZfsPoolDegraded", "warning", pool="p")], 5.0, None)
    assert (one["state"], one["since"]) == ("firing", None)


def test_critical_means_it_pages_now() -> None:
    lost = _finding("ZfsPoolRedundancyLost", "critical", pool="tank")
    assert overall_state([lost], ["pending"]) == "warning"
    assert overall_state([lost], ["firing"]) == "critical"
    # the data-loss page was sent once and the finding is still open: still critical
    data = _finding("ZfsPoolDataErrors", "critical", pool="tank")
    assert overall_state([data], ["firing"]) == "critical"


def test_each_alert_with_a_finding_says_which_labels_identify_it() -> None:
    alerts = {r.alert for r in RULES if r.alert}
    assert alerts <= set(IDENTITY)
    assert set(IDENTITY) == {p.alert for p in POLICY} - set(d.UNSEEN_BY_STATUS)


def test_a_finding_names_its_alert_in_the_json(tmp_path: Path) -> None:
    from tests.status.helpers import families, pool_text
    from zmon.status.report import build_report

    report = build_report(families(pool_text(state="degraded")), 1.0)
    (f,) = [f for f in report["findings"] if f["alert"] == "ZfsPoolDegraded"]
    assert f["alert_labels"] == {"pool": "tank", "state": "degraded"}
    assert f["state"] == "firing" and f["since"] is None
