"""The diagnosis table and the alert rules name the same problems with the same limits, so
the page, the terminal and the pager agree."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from functools import cache
from pathlib import Path

import pytest
import yaml

from zmon.health.thresholds import DEFAULTS
from zmon.status.diagnoses import ALERT_WORDS, RULES, Limits
from zmon.status.links import DEFAULT_LINKS

ROOT = Path(__file__).resolve().parents[2]
RULE_FILE = (ROOT / "alert_rules" / "zmon.rules.yml").read_text()
RUNBOOK = (ROOT / "alert_rules" / "RUNBOOK.md").read_text()


def test_findings_link_the_runbook_the_shipped_rules_link() -> None:
    (rule,) = [r for r in RULES if r.alert == "ZfsPoolDegraded"]
    expected = f"{DEFAULT_LINKS.runbook_url}#zfspooldegraded"
    assert re.search(rf'runbook_url: "{re.escape(expected)}"', RULE_FILE)


@pytest.mark.parametrize("alert", sorted({r.alert for r in RULES if r.alert}))
def test_each_named_alert_exists_with_a_runbook_section(alert: str) -> None:
    assert re.search(rf"^\s*- alert: {alert}$", RULE_FILE, re.M), alert
    assert re.search(rf"^### {alert}$", RUNBOOK, re.M), alert


def test_limits_equal_the_alert_thresholds() -> None:
    lim = Limits.of()
    assert lim.scrub_max_age == DEFAULTS.scrub_max_age.seconds
    assert lim.capacity_warning == DEFAULTS.capacity_warning_on
    assert lim.capacity_critical == DEFAULTS.capacity_critical_on
    assert lim.fragmentation_max == DEFAULTS.fragmentation_max
    assert lim.ddt_arc_share_max == DEFAULTS.ddt_arc_share_max
    assert lim.arc_ghost_hit_ratio_max == DEFAULTS.arc_ghost_hit_ratio_max
    assert lim.resilver_stall == DEFAULTS.resilver_stall_window.seconds
    assert lim.disk_temperature_max == DEFAULTS.disk_temperature_max
    assert lim.nvme_used_max == DEFAULTS.nvme_used_max
    assert lim.ups_runtime_min == DEFAULTS.ups_runtime_min.seconds
    assert lim.dataset_quota_full == DEFAULTS.dataset_quota_full
    assert lim.snapshot_max_age == DEFAULTS.snapshot_max_age.seconds
    assert lim.error_window == DEFAULTS.error_window.seconds
    assert lim.errors_not_cleared_for == DEFAULTS.errors_not_cleared_for.seconds
    assert lim.failing_window == DEFAULTS.failing_window.seconds
    assert lim.failing_io_errors == DEFAULTS.failing_io_errors
    assert lim.failing_checksum_errors == DEFAULTS.failing_checksum_errors
    assert lim.resilver_rate_window == DEFAULTS.resilver_rate_window.seconds
    assert lim.resilver_slow_factor == DEFAULTS.resilver_slow_factor
    assert lim.resilver_slow_min_age == DEFAULTS.resilver_slow_min_age.seconds
    assert lim.resilver_slow_for == DEFAULTS.resilver_slow_for.seconds
    assert lim.sector_window == DEFAULTS.sector_window.seconds
    assert lim.cable_window == DEFAULTS.cable_window.seconds
    assert lim.link_speed_for == DEFAULTS.link_speed_for.seconds
    assert lim.sas_expander_phys == DEFAULTS.sas_expander_phys


def test_alert_words_are_prometheus_templates() -> None:
    cause, action = ALERT_WORDS["ZfsPoolDegraded"]
    assert cause == "the pool runs with reduced redundancy"
    assert "{{ $labels.pool }}" in action and "{pool}" not in action
    for cause, action in ALERT_WORDS.values():
        assert "{" not in re.sub(r"\{\{ \$labels\.\w+ \}\}", "", cause + action)


@pytest.mark.parametrize("alert", sorted(ALERT_WORDS))
def test_alert_annotations_carry_the_diagnosis_words(alert: str) -> None:
    """The pager reads the cause and action `zmon status` and the status page print."""
    block = RULE_FILE.split(f"- alert: {alert}\n", 1)[1].split("- alert:", 1)[0]
    cause, action = ALERT_WORDS[alert]
    assert f"cause: {json.dumps(cause)}" in block
    assert f"action: {json.dumps(action)}" in block


@cache
def expected_labels() -> dict[str, list[set[str]]]:
    """Alert -> the label sets the promtool tests expect of it when it fires (read once: the
    tests are large, and every case of the test below reads them)."""
    out: defaultdict[str, list[set[str]]] = defaultdict(list)
    for test_file in (ROOT / "alert_rules" / "tests").glob("*.test.yml"):
        for item in yaml.safe_load(test_file.read_text())["tests"]:
            for case in item.get("alert_rule_test", []):
                out[case["alertname"]] += [
                    set(a["exp_labels"]) for a in case.get("exp_alerts") or []
                ]
    return dict(out)


@pytest.mark.parametrize("alert", sorted(ALERT_WORDS))
def test_labels_the_words_name_are_labels_of_the_alert(alert: str) -> None:
    """A template naming a label the alert does not carry would render an empty slot."""
    named = set(re.findall(r"\$labels\.(\w+)", "".join(ALERT_WORDS[alert])))
    if not named:
        return
    carried = expected_labels().get(alert, [])
    assert carried, f"no promtool test expects {alert} to fire"
    for labels in carried:
        assert named <= labels | {"instance"}, (alert, named - labels)
