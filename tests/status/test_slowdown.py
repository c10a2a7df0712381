"""`zmon status` on a read slowdown: memory (mostly ghost hits: the ZfsArcSlowdown ticket) or
not the ARC's (cold reads, a scan, one slow disk, the write throttle: said, no ticket). The
host's hour is tests/status/slowdown_hour.py.
"""

from __future__ import annotations

import math

import pytest

from tests.status.helpers import NOW, families
from tests.status.slowdown_hour import STEP, exposition
from zmon.judgment.thresholds import DEFAULTS
from zmon.status.diagnoses import Evidence, Finding, Limits, diagnose
from zmon.status.history import History
from zmon.status.model import read_model
from zmon.status.slowdown import quantile
from zmon.status.words import latency


def judged(case: str, slow_for: float = 300.0, reads: float = 1.0) -> list[Finding]:
    """The findings after an hour of ``case`` whose last ``slow_for`` seconds were slow."""
    hour = 3600.0
    history = History()
    start = NOW - hour
    model = None
    for i in range(int(hour / STEP) + 1):
        t = i * STEP
        model = read_model(families(exposition(t, case, hour - slow_for, reads)))
        history.observe(start + t, model)
    assert model is not None
    return [f for f in diagnose(Evidence(model, NOW, history.view()))
            if f.rule in ("arc_slowdown", "slow_reads")]  # fmt: skip


def test_reads_slower_with_mostly_ghost_hits_are_the_arc_a_ticket() -> None:
    (f,) = judged("memory")
    assert (f.rule, f.severity, f.alert, f.labels) == (
        "arc_slowdown",
        "warning",
        "ZfsArcSlowdown",
        {"pool": "tank"},
    )
    assert f.line() == (
        "pool tank: reads are 10x slower than usual (p99 99 ms, usually 9.8 ms); ARC hit "
        "ratio fell from 97 % to 71 %; 64 % of the misses were ghost hits → a larger ARC (up "
        "to 3.1 GiB more) would have served them: up to 19 % more reads would have hit; "
        "raise zfs_arc_max (now 4.0 GiB of 16.0 GiB RAM) if memory allows, or add RAM or an "
        "L2ARC"
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
    assert "reads are 10x slower than usual (p99 99 ms, usually 9.8 ms)" in f.evidence
    for word in words:
        assert word in f.line()


def test_reads_as_fast_as_usual_or_too_few_to_judge_say_nothing() -> None:
    assert judged("memory", slow_for=0.0) == []
    assert judged("memory", reads=0.05) == []  # 5 reads a second: no usual to compare with


def test_a_history_shorter_than_the_window_has_no_usual_yet() -> None:
    history = History()
    model = read_model(families(exposition(0.0, "memory", 0.0)))
    history.observe(NOW, model)
    assert [f for f in diagnose(Evidence(model, NOW, history.view()))
            if f.rule in ("arc_slowdown", "slow_reads")] == []  # fmt: skip


def test_the_limits_are_the_rules_thresholds() -> None:
    lim, t = Limits.of(), DEFAULTS
    assert (
        lim.slowdown_factor,
        lim.slowdown_ghost_share,
        lim.slowdown_min_ops,
        lim.slowdown_sibling_factor,
    ) == (t.slowdown_factor, t.slowdown_ghost_share, t.slowdown_min_ops, t.slowdown_sibling_factor)


def test_quantile_is_prometheus_histogram_quantile() -> None:
    buckets = [(0.001, 3000.0), (0.01, 5994.0), (0.1, 6000.0), (math.inf, 6000.0)]
    assert quantile(0.99, buckets) == pytest.approx(0.001 + 0.009 * 2940 / 2994)
    assert quantile(0.5, buckets) == pytest.approx(0.001)
    assert quantile(0.99, [(0.001, 10.0), (math.inf, 1000.0)]) == 0.001  # rank in +Inf
    assert quantile(0.99, [(0.001, 0.0), (math.inf, 0.0)]) is None
    assert latency(0.0986) == "99 ms" and latency(0.00984) == "9.8 ms"
