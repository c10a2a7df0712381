"""The noise year (tests/rules/noise.yml) pages no one; the incident set still pages.

The year is drawn from the specification's rates and cut into episodes; each episode is one
kind of everyday event alone or an overlapping pair, and the catalogue rendered for promtool
holds every kind alone and every pair (tests/rules/noise.py). README.md states the table.
"""

from __future__ import annotations

import re
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from alert_rules import generate
from tests.helpers import require_tool
from tests.rules import noise
from zmon.health.policy import severity

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
BEGIN, END = "<!-- noise-year table: begin -->", "<!-- noise-year table: end -->"


def test_the_year_consists_of_catalogued_episodes() -> None:
    spec, kinds = noise.load_spec()
    year = noise.the_year()
    shapes = {e.kinds for e in noise.catalogue(kinds)}
    placed = [ev for ep in year.episodes for ev in ep.events]
    assert Counter(e.kind for e in placed) == Counter(e.kind for e in year.events)
    for ep in year.episodes:
        # one kind alone or an overlapping pair, each a shape of the catalogue (the same
        # kind twice is that kind alone, on two disks)
        assert len(ep.events) <= 2, ep
        assert ep.kinds in shapes or len(set(ep.kinds)) == 1, ep
        assert ep.length <= noise.MAX_EPISODE, ep
        assert len({e.disk for e in ep.events}) == len(ep.events), "one disk per event"
    assert all(k.rate > 0 or k.always for k in kinds.values())


def test_every_kind_the_issue_names_is_specified() -> None:
    _, kinds = noise.load_spec()
    assert set(kinds) == {*noise.EFFECTS, "never_snapshotted"}
    for kind in kinds.values():
        assert len(kind.source) > 60, f"{kind.name}: say where the rate comes from"
        for alert in kind.tickets:
            assert severity(alert) != "critical", f"{kind.name}: {alert} pages"


def test_the_readme_states_the_noise_table() -> None:
    _, kinds = noise.load_spec()
    text = README.read_text()
    assert BEGIN in text and END in text
    shown = text.split(BEGIN, 1)[1].split(END, 1)[0].strip()
    assert shown == noise.readme_table(kinds, noise.the_year()).strip(), (
        "README.md's noise-year table is out of date: paste noise.readme_table()"
    )


@pytest.mark.real
@pytest.mark.slow
def test_the_noise_year_pages_no_one_and_gives_the_listed_tickets(tmp_path: Path) -> None:
    promtool = require_tool("promtool", "Debian package prometheus")
    _, kinds = noise.load_spec()
    path = tmp_path / "noise.test.yml"
    path.write_text(noise.render_file(noise.catalogue(kinds), kinds, generate.RULES_FILE))
    run = subprocess.run(
        [promtool, "test", "rules", path.name], cwd=tmp_path, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]


# The incident set: each incident pages, once, in a promtool case of alert_rules/tests
# (file, case name, the alert that pages).
INCIDENTS = {
    "cable fault that keeps erroring": (
        "cable.test.yml",
        "CRC errors that keep coming on a healthy raidz2 page - errors in each of the last 3 "
        "quarter hours",
        "DiskLinkFailing",
    ),
    "mirror losing a side": (
        "failing.test.yml",
        "a 2-way mirror losing a side pages; a 3-way mirror losing one and a single disk do not",
        "ZfsPoolRedundancyLost",
    ),
    "raidz1 disk failing": (
        "failing.test.yml",
        "read errors coming again and again page before ZFS faults the vdev",
        "ZfsVdevFailing",
    ),
    "pool suspended": (
        "paging.test.yml",
        "a suspended pool pages from its kstat state, naming the pool",
        "ZfsPoolStuck",
    ),
    "data errors": (
        "integrity.test.yml",
        "permanent data errors page, counted or only flagged, and resolve once gone",
        "ZfsPoolDataErrors",
    ),
    "host down": ("zmon.test.yml", "a zmon target down for 5 minutes warns", "ZmonTargetDown"),
    "power cut": (
        "ups.test.yml",
        "on battery pages, low battery pages, both resolve when power returns",
        "UpsOnBattery",
    ),
}


@pytest.mark.parametrize("incident", INCIDENTS)
def test_each_incident_pages_in_a_promtool_case(incident: str) -> None:
    file, name, alert = INCIDENTS[incident]
    text = (generate.RULES_FILE.parent / "tests" / file).read_text()
    case = text.split(f"  - name: {name}\n", 1)
    assert len(case) == 2, f"{file} has no case {name!r}"
    body = case[1].split("\n  - name: ", 1)[0]
    assert severity(alert) == "critical"
    firing = re.findall(
        rf"alertname: {alert}\n\s+exp_alerts:\n\s+- exp_labels: \{{severity: critical", body
    )
    assert firing, f"{file}: {name!r} does not expect {alert} to page"
