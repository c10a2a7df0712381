"""`zmon status` on a read slowdown: memory (mostly ghost hits: the ZfsArcSlowdown ticket) or
not the ARC's (cold reads, a scan, one slow disk, the write throttle: said, no ticket). The
host's hour is tests/status/slowdown_hour.py.
"""

from __future__ import annotations

import pytest

from tests.status.helpers import NOW, families, recorded
from tests.status.slowdown_hour import STEP, exposition
from zmon.health.thresholds import DEFAULTS
from zmon.status.diagnoses import Evidence, Finding, Limits, diagnose
from zmon.status.history import History
from zmon.status.model import read_model
from zmon.status.words import latency


def judged(case: str, slow_for: float = 300.0, reads: float = 1.0) -> list[Finding]:
    """The findings after an hour of ``case`` whose last ``slow_for`` seconds were slow: the
    status history and the records the status page's evaluator made of the same hour."""
    hour = 3600.0
    history = History()
    start = NOW - hour
    model = None
    points = []
    for i in range(int(hour / STEP) + 1):
        t = i * STEP
        text = exposition(t, case, hour - slow_for, reads)
        model = read_model(families(text))
        history.observe(start + t, model)
        points.append((hour - t, text))
    assert model is not None
    found = diagnose(Evidence(model, NOW, history.view(), recorded=recorded(points)))
    return [f for f in found if f.rule in ("arc_slowdown", "slow_reads")]


def test_reads_slower_with_mostly_ghost_hits_are_the_arc_a_ticket() -> None:
    (f,) = judged("memory")
    assert (f.rule, f.severity, f.alert, f.labels) == (
        "arc_slowdown",
        "warning",
        "ZfsArcSlowdown",
        {"pool": "tank"},
    )
    assert f.line() == (
        "pool tank: reads are 10x slower than usual (p99 99 ms, usually 9.8 ms over the 60 min "
        "seen); ARC hit ratio fell from 97 % to 71 %; 64 % of the misses were ghost hits → a "
        "larger ARC (up to 3.1 GiB more) would have served them: up to 19 % more reads would "
        "have hit; raise zfs_arc_max (now 4.0 GiB of 16.0 GiB RAM) if memory allows, or add "
        "RAM or an L2ARC"
    )


@pytest.mark.parametrize(
    ("case", "words"),
    [
        ("cold", ["4.0 % of the misses were ghost hits", "the misses are cold reads"]),
        ("scrub", ["a scrub is running", "a scrub on tank competes with the reads"]),
        ("disk", ["sdb reads take", "as long as its siblings'", "one slow disk holds tank back",
                  "check sdb"]),
        ("throttle", ["12000 writes waited for dirty data in the last 5 min",
                      "the write throttle holds I/O back"]),
    ],
)  # fmt: skip
def test_a_slowdown_that_is_not_the_arc_is_said_and_raises_no_arc_ticket(
    case: str, words: list[str]
) -> None:
    (f,) = judged(case)
    assert (f.rule, f.severity, f.alert) == ("slow_reads", "", None)  # a note
    assert "reads are 10x slower than usual (p99 99 ms, usually 9.8 ms over" in f.evidence
    for word in words:
        assert word in f.line()


def test_reads_as_fast_as_usual_or_too_few_to_judge_say_nothing() -> None:
    assert judged("memory", slow_for=0.0) == []
    assert judged("memory", reads=0.05) == []  # 5 reads a second: no usual to compare with


def test_without_the_records_there_is_no_usual_and_it_is_said() -> None:
    """One collection: no evaluator, no usual; a pool whose reads zmon measures says so."""
    history = History()
    model = read_model(families(exposition(0.0, "memory", 0.0)))
    history.observe(NOW, model)
    found = [f for f in diagnose(Evidence(model, NOW, history.view()))
             if f.rule in ("arc_slowdown", "slow_reads")]  # fmt: skip
    assert [(f.rule, f.subject, f.alert) for f in found] == [("slow_reads", "pool tank", None)]
    assert found[0].evidence == "reads not compared with their usual"
    assert found[0].cause.startswith("no usual yet: one collection keeps no history")


def test_the_usual_is_the_records() -> None:
    """The words' now, usual and factor are the records' as the evaluator computed them."""
    points = [(3600.0 - t, exposition(t, "memory", 3300.0)) for t in range(0, 3601, 30)]
    rec = recorded(points)
    lat = rec.reads["tank"]
    assert lat.factor == pytest.approx(lat.now / lat.usual)
    assert (latency(lat.now), latency(lat.usual)) == ("99 ms", "9.8 ms")
    assert rec.covers == 3600.0


def test_the_limits_are_the_rules_thresholds() -> None:
    lim, t = Limits.of(), DEFAULTS
    assert (
        lim.slowdown_factor,
        lim.slowdown_ghost_share,
        lim.slowdown_sibling_factor,
        lim.latency_baseline,
    ) == (
        t.slowdown_factor,
        t.slowdown_ghost_share,
        t.slowdown_sibling_factor,
        t.latency_baseline.seconds,
    )
