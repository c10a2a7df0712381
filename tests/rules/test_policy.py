"""The paging policy is the one source of severities: the shipped rule file, ``zmon status``
and the Alertmanager routes follow the table in zmon/health/policy.py, and POLICY.md is its
rendering."""

from __future__ import annotations

import re
import subprocess
from typing import Any

import pytest
import yaml

from alert_rules import generate, policy_doc
from tests.helpers import require_tool
from tests.rules.stack import REPO
from zmon.health.policy import POLICY, POLICY_BY_ALERT, SEVERITIES
from zmon.status import diagnoses, report
from zmon.status.diagnoses import RULES, Evidence, diagnose
from zmon.status.model import HostModel, Pool

CONFIG = REPO / "packaging" / "alertmanager" / "zmon.yml"


def _shipped_alerts() -> dict[str, dict[str, Any]]:
    """Alert name -> its rule, as the committed zmon.rules.yml has it."""
    doc = yaml.safe_load(generate.RULES_FILE.read_text())
    return {r["alert"]: r for g in doc["groups"] for r in g["rules"] if "alert" in r}


def test_every_shipped_alert_is_in_the_policy_and_every_policy_row_is_shipped() -> None:
    shipped = set(_shipped_alerts())
    listed = [p.alert for p in POLICY]
    assert len(listed) == len(set(listed)), "an alert is listed twice"
    assert shipped - set(listed) == set(), "shipped alerts the policy does not list"
    assert set(listed) - shipped == set(), "policy rows no rule ships"


@pytest.mark.parametrize("policy", POLICY, ids=lambda p: p.alert)
def test_rule_severity_is_the_policy_severity(policy: Any) -> None:
    rule = _shipped_alerts()[policy.alert]
    assert rule["labels"]["severity"] == policy.severity
    assert policy.severity in SEVERITIES


@pytest.mark.parametrize("rule", [r for r in RULES if r.alert], ids=lambda r: r.id)
def test_status_severity_is_the_policy_severity_of_the_alert_it_names(
    rule: diagnoses.Rule,
) -> None:
    assert rule.alert in POLICY_BY_ALERT
    assert rule.severity == POLICY_BY_ALERT[rule.alert].severity
    assert rule.severity == _shipped_alerts()[rule.alert]["labels"]["severity"]


def test_every_alert_has_its_status_finding_and_every_finding_names_a_policy_alert() -> None:
    """Except what a host cannot see of itself (its target down or missing in Prometheus),
    which ``zmon status`` says it cannot know."""
    named = {alert for rule in RULES for alert in rule.alerts}
    listed = {p.alert for p in POLICY}
    assert sorted(named - listed) == [], "findings name alerts the policy does not list"
    assert sorted(listed - named - set(diagnoses.CANNOT_KNOW)) == [], (
        "policy alerts without a status finding"
    )
    assert set(diagnoses.CANNOT_KNOW) <= listed
    assert set(diagnoses.CANNOT_KNOW) & named == set()


def test_status_says_what_it_cannot_know() -> None:
    built = report.report_of(HostModel(), now=0.0)
    assert built["cannot_know"]["alerts"] == ["ZmonTargetDown", "ZmonTargetMissing"]
    assert built["cannot_know"]["text"] == (
        "Cannot know from here: whether Prometheus reaches this zmon (ZmonTargetDown) and "
        "whether Prometheus scrapes a zmon at all (ZmonTargetMissing)"
    )


def test_a_diagnosis_names_its_alert_or_is_a_note_without_severity() -> None:
    for rule in RULES:
        if rule.alert:
            assert rule.severity in SEVERITIES and not rule.note, rule.id
        elif rule.also:  # each hit names one of these
            assert rule.severity == "" and not rule.note, rule.id
        else:
            assert rule.note and rule.severity == "", rule.id
    notes = {r.id for r in RULES if r.note}
    assert notes == {"resilver_running", "slow_reads", "nvme_error_log_rising"}


def test_a_nearly_full_pool_is_critical_in_zmon_status_as_its_alert_pages() -> None:
    model = HostModel(pools=[Pool("tank", "online", size=100.0, allocated=95.0, capacity=0.95)])
    [finding] = [f for f in diagnose(Evidence(model, now=0.0)) if f.rule == "capacity"]
    assert finding.alert == "ZfsPoolCapacityCritical"
    assert finding.severity == POLICY_BY_ALERT["ZfsPoolCapacityCritical"].severity == "critical"
    assert report.EXIT_CODES[report.overall_state([finding])] == 2


def test_what_pages_makes_zmon_status_exit_critical() -> None:
    """``zmon status`` exits 2 (CRITICAL) exactly for findings whose alert pages."""
    for rule in RULES:
        if not rule.alert:
            continue
        finding = diagnoses.Finding(rule.id, rule.severity, "x", "y", "c", "a", rule.alert, {})
        pages = POLICY_BY_ALERT[rule.alert].pages
        assert (report.EXIT_CODES[report.overall_state([finding])] == 2) == pages, rule.id


def test_policy_md_is_the_rendering_of_the_table() -> None:
    assert policy_doc.POLICY_FILE.read_text() == policy_doc.render(), (
        "alert_rules/POLICY.md is out of date: run python -m alert_rules.generate"
    )
    text = policy_doc.POLICY_FILE.read_text()
    for p in POLICY:
        row = re.search(rf"^\| \[`{p.alert}`\].*$", text, re.M)
        assert row and f"| {p.severity} | {p.notification} |" in row.group(0)


def test_every_alert_has_its_reason_in_words() -> None:
    for p in POLICY:
        assert p.why.endswith(".") and len(p.why) > 30, p.alert


# ---- the Alertmanager configuration routes by the policy


def _routes(route: dict[str, Any]) -> list[dict[str, Any]]:
    return [route] + [r for child in route.get("routes", []) for r in _routes(child)]


def test_alerts_that_page_once_have_a_route_that_does_not_repeat_the_page_all_night() -> None:
    config = yaml.safe_load(CONFIG.read_text())
    once = [p.alert for p in POLICY if p.page_once]
    assert once == ["ZfsPoolDataErrors"]
    for alert in once:
        matchers = [f'alertname="{alert}"']
        [route] = [r for r in config["route"]["routes"] if r.get("matchers") == matchers]
        page, ticket = route["routes"]
        assert page["receiver"] == "page" and page["continue"] is True
        assert page["repeat_interval"] == "96h"  # days, not hours
        assert ticket["receiver"] == "ticket"


def _amtool() -> str:
    return require_tool("amtool", "Debian package prometheus-alertmanager")


def _receivers(labels: dict[str, str]) -> set[str]:
    run = subprocess.run(
        [_amtool(), "config", "routes", "test", f"--config.file={CONFIG}"]
        + [f"{k}={v}" for k, v in labels.items()],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return set(run.stdout.strip().split(","))


def _labels(alert: str) -> dict[str, str]:
    """A representative label set of ``alert`` as its rule labels it."""
    labels = {"alertname": alert, "severity": POLICY_BY_ALERT[alert].severity, "instance": "h1"}
    if alert in ("UpsOnBattery", "UpsLowBattery", "UpsRuntimeLow", "UpsUnreachable"):
        return {**labels, "ups": "rack1", "server": "nut:3493"}
    if alert.startswith(("Zfs", "Disk")):
        labels["pool"] = "tank"
    if alert.startswith("Disk"):
        labels["device"] = "sdb"
    return labels


@pytest.mark.real
@pytest.mark.parametrize("policy", POLICY, ids=lambda p: p.alert)
def test_amtool_routes_each_alert_to_the_receiver_the_policy_names(policy: Any) -> None:
    expected = {"page", "ticket"} if policy.page_once else {"page" if policy.pages else "ticket"}
    assert _receivers(_labels(policy.alert)) == expected


def test_each_runbook_section_states_the_policy_severity() -> None:
    text = (REPO / "alert_rules" / "RUNBOOK.md").read_text()
    for p in POLICY:
        m = re.search(rf"^### {p.alert}\n\n(\*\*Severity: .*\*\*)$", text, re.M)
        assert m, f"RUNBOOK.md has no severity line for {p.alert}"
        assert m.group(1) == f"**Severity: {p.severity}, {p.notification}.**"


def _alert_names_in(matchers: list[str]) -> set[str]:
    names: set[str] = set()
    for m in matchers:
        found = re.fullmatch(r'alertname(=~|=|!=)"(.*)"', m)
        if found:
            names.update(n for n in found.group(2).split("|") if re.fullmatch(r"\w+", n))
    return names


def test_the_alertmanager_configuration_names_only_shipped_alerts() -> None:
    """A renamed alert must not leave a route or an inhibition matching nothing."""
    config = yaml.safe_load(CONFIG.read_text())
    named = set()
    for route in _routes(config["route"]):
        named |= _alert_names_in(route.get("matchers", []))
    for rule in config["inhibit_rules"]:
        named |= _alert_names_in(rule["source_matchers"]) | _alert_names_in(rule["target_matchers"])
    assert named and named <= set(POLICY_BY_ALERT), named - set(POLICY_BY_ALERT)


def test_policy_md_names_the_cause_of_every_inhibition() -> None:
    intro = policy_doc.POLICY_FILE.read_text().split("## Every alert")[0]
    config = yaml.safe_load(CONFIG.read_text())
    for rule in config["inhibit_rules"]:
        for source in _alert_names_in(rule["source_matchers"]):
            assert f"`{source}`" in intro, f"POLICY.md does not say what {source} mutes"
