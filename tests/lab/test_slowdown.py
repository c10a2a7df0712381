"""Hermetic: the slowdown run's table and its captured phases (tests/lab/slowdown.py).

The captures (tests/fixtures/lab/<version>/slowdown/<phase>/) hold arcstats and `zpool iostat
-p -w -v` at each phase's start and end, and what the host's Prometheus recorded over the
phase. From them: the estimate of what a larger ARC would buy is checked against the hit
ratio measured after raising zfs_arc_max, a memory-bound phase reads as memory, one slow disk
reads as a disk and not as memory, and the live table holds on the recorded series.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from alert_rules import generate
from tests.lab import slowdown
from tests.lab.checks import VERSIONS
from tests.lab.engine import Scrape, evaluate
from tests.lab.slowdown import (
    LARGE,
    PHASE_CHECKS,
    PHASES,
    RAISED,
    SLOW,
    SLOW_VDEV,
    SMALL,
    STEP_PHASES,
    arc_size,
    estimate,
    increases,
    verdict,
    within_tolerance,
)
from zmon.health.ratios import ARC_GHOST_HITS_PER_ACCESS, ARC_HIT

LAB = Path(__file__).resolve().parent
CAPTURES = LAB.parent / "fixtures" / "lab"


def phase(version: str, name: str) -> Path:
    return CAPTURES / version / "slowdown" / name


def test_steps_and_phases_match_the_guest_driver() -> None:
    driver = (LAB / "guest" / "slowdown.sh").read_text()
    assert tuple(re.findall(r"^ready (\S+)", driver, re.M)) == slowdown.STEPS
    started = re.findall(r"^(?:phase|snap) (\S+)", driver, re.M)
    assert tuple(dict.fromkeys(started)) == PHASES
    assert tuple(p for step in slowdown.STEPS for p in STEP_PHASES[step]) == PHASES
    assert {s for row in PHASE_CHECKS for s in row.steps} == set(PHASES)
    # a rate window of one phase: no longer, or it reaches into the phase before
    assert re.search(r"^PHASE_S=\$\{zmonlab_phase_seconds:-(\d+)\}$", driver, re.M)[1] == str(
        slowdown.PHASE_S
    )
    assert slowdown.RATE_WINDOW == f"{slowdown.PHASE_S}s"


def test_every_record_the_run_reads_is_rendered() -> None:
    rules = generate.render()
    for record in slowdown.RECORDS:
        assert f"- record: {record}\n" in rules, record


@pytest.mark.parametrize("version", VERSIONS)
def test_the_estimate_is_close_to_the_hit_ratio_after_raising_the_arc(version: str) -> None:
    """The estimate "up to N % more reads would have hit with up to G more ARC" of the small
    ARC's window, against the hit ratio once zfs_arc_max was raised: within TOLERANCE where the
    ARC keeps a ghost of all it evicts; where it caps its ghost lists (OpenZFS 2.2 and later)
    the estimate is a floor, and the measured ratio comes no more than TOLERANCE below it."""
    est = estimate(phase(version, LARGE))
    measured = ARC_HIT.of(increases(phase(version, RAISED)))
    assert est is not None and measured is not None
    assert est.ghost_share is not None and est.ghost_share > slowdown.MOSTLY, est
    assert within_tolerance(version, est.hit_ratio_bound, measured), (est, measured)
    # the ghost lists remembered what the small ARC could not keep of the working set
    assert est.extra_bytes is not None and est.extra_bytes >= slowdown.WORKING_SET - arc_size(
        phase(version, LARGE)
    ), est


@pytest.mark.parametrize("version", VERSIONS)
def test_a_working_set_larger_than_the_arc_reads_as_memory(version: str) -> None:
    found = verdict(phase(version, LARGE))
    assert found.memory_bound and not found.one_slow_disk, found


@pytest.mark.parametrize("version", VERSIONS)
def test_the_misses_read_from_the_disks_and_the_hits_do_not(version: str) -> None:
    """Over the large working set the pool read from its disks; over the small one, no more
    than a few blocks."""
    large = sum(slowdown.read_latencies(phase(version, LARGE))[slowdown.POOL])
    small = sum(slowdown.read_latencies(phase(version, SMALL))[slowdown.POOL])
    misses = increases(phase(version, LARGE))["misses"]
    assert large >= misses / 2 > 0 and small < large / 10, (large, small, misses)


@pytest.mark.parametrize("version", VERSIONS)
def test_a_working_set_that_fits_and_a_raised_arc_are_quiet(version: str) -> None:
    for name in (SMALL, RAISED):
        ghosts = ARC_GHOST_HITS_PER_ACCESS.of(increases(phase(version, name)))
        assert ghosts is not None and ghosts <= slowdown.GHOSTS_MAX, (name, ghosts)


@pytest.mark.parametrize("version", VERSIONS)
def test_one_slow_disk_reads_as_a_disk_not_as_memory(version: str) -> None:
    found = verdict(phase(version, SLOW))
    assert not found.memory_bound, found
    assert found.one_slow_disk and found.slowest == SLOW_VDEV, found


def recorded_at_end(tsv: Path) -> Scrape:
    """Each record's last value over the phase in a captured prometheus.tsv."""
    last: dict[str, str] = {}
    for line in tsv.read_text().splitlines()[1:]:
        _, series, value = line.split("\t")
        if series.partition("{")[0] in slowdown.RECORDS:
            last[series] = value  # the rows are in time order per series
    return Scrape("".join(f"{series} {value}\n" for series, value in last.items()))


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name", PHASES)
def test_the_live_table_holds_on_the_recorded_series(version: str, name: str) -> None:
    scrape = recorded_at_end(phase(version, name) / "prometheus.tsv")
    for row in PHASE_CHECKS:
        if row.applies(name, version) and not row.pending:
            ok, seen = evaluate(row, scrape, {}, {})
            assert ok, f"{name}: {row.describe({})} (saw {seen})"
