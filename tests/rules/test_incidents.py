"""The incident set pages once each: replayed on the noise year's host through the shipped
rules with promtool, and through the shipped Alertmanager configuration's inhibitions and
grouping (how pages are counted: tests/rules/incidents.py)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from alert_rules import generate
from tests.helpers import require_tool
from tests.rules import incidents
from tests.rules.test_noise_year import INCIDENTS as CATALOGUED
from zmon.health.policy import POLICY_BY_ALERT


def test_the_incident_set_is_the_one_the_noise_year_names() -> None:
    assert [i.name for i in incidents.INCIDENTS] == list(CATALOGUED)


@pytest.mark.parametrize("incident", incidents.INCIDENTS, ids=lambda i: i.name)
def test_each_incident_gives_one_page_notification(incident: incidents.Incident) -> None:
    """From the critical alert starts promtool confirms (below): one page, whatever else
    starts, since the rest is inhibited or arrives with it in one group."""
    pages = incidents.page_notifications(incident.starts)
    assert len(pages) == 1, pages
    for labels in incident.starts:
        assert POLICY_BY_ALERT[dict(labels)["alertname"]].pages


def test_a_second_start_in_the_group_is_a_second_page() -> None:
    """The count is not one by construction: an alert that starts a minute after another of
    its group, or starts again, notifies again; an inhibited one does not."""
    label = incidents._labels
    stuck = label(alertname="ZfsPoolStuck", pool="tank")
    failing = label(alertname="ZfsVdevFailing", pool="tank", vdev="sda")
    assert len(incidents.page_notifications({failing: (1, 20), stuck: (1, 21)})) == 2
    assert len(incidents.page_notifications({stuck: (1, 20), failing: (1, 21)})) == 1
    assert len(incidents.page_notifications({stuck: (2, 20)})) == 2


@pytest.mark.real
def test_promtool_confirms_the_critical_alert_starts_of_each_incident(tmp_path: Path) -> None:
    promtool = require_tool("promtool", "Debian package prometheus")
    path = tmp_path / "incidents.test.yml"
    path.write_text(incidents.render_file(generate.RULES_FILE))
    run = subprocess.run([promtool, "test", "rules", path.name], cwd=tmp_path,
                         capture_output=True, text=True, timeout=600)  # fmt: skip
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
