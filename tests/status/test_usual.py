"""A slowdown's usual is the one the rules record, in `zmon status` as in the ticket.

A day of reads on tank: 23 hours with a p99 of about 10 ms and a 97 % ARC hit ratio, then
40 minutes at about 25 ms and 90 %, then 20 minutes at about 99 ms and 71 % while the misses
are mostly ghost hits. The rules' usual (zmon:pool_io_latency_seconds:p99_rate5m_median, the
median over a day) is about 10 ms, the last hour's median about 25 ms: the status page must say
the record's usual, factor and hit ratios, the ones ZfsArcSlowdown fires with.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.status.helpers import NOW, families, pool_text
from zmon.exposition.snapshot import CollectorState
from zmon.health import memory, shipped
from zmon.health.expr import Context
from zmon.health.thresholds import DEFAULTS
from zmon.status.page import StatusPage
from zmon.status.report import build_report

DAY, HOUR = 86400.0, 3600.0
START = NOW - DAY
# read latency buckets (per second: cumulative count at each bound) and ARC (hits, misses,
# ghost hits) per second, in each part of the day
FAST = ({"0.001": 50.0, "0.01": 99.9, "0.1": 100.0, "+Inf": 100.0}, (9700, 300, 25))  # 9.8 ms
MEDIUM = ({"0.001": 50.0, "0.01": 98.8, "0.1": 100.0, "+Inf": 100.0}, (9000, 1000, 25))  # 25 ms
SLOW = ({"0.001": 100.0, "0.01": 200.0, "0.1": 499.5, "+Inf": 500.0}, (7100, 2900, 1856))  # 99 ms
PARTS = ((0.0, FAST), (DAY - HOUR, MEDIUM), (DAY - 1200.0, SLOW))  # (from, part)


def exposition(t: float) -> str:
    """What zmon serves ``t`` seconds into the day."""
    buckets = dict.fromkeys(FAST[0], 0.0)
    arc = [0.0, 0.0, 0.0]
    for k, (since, (rates, arc_rates)) in enumerate(PARTS):
        until = PARTS[k + 1][0] if k + 1 < len(PARTS) else DAY
        spent = max(0.0, min(t, until) - since)
        for le in buckets:
            buckets[le] += rates[le] * spent
        arc = [a + r * spent for a, r in zip(arc, arc_rates, strict=True)]
    lines = [
        pool_text("tank", disks=("sda", "sdb")),
        "# TYPE zmon_pool_io_latency_seconds histogram",
    ]
    for le, n in buckets.items():
        lines.append(f'zmon_pool_io_latency_seconds_bucket{{op="read",pool="tank",le="{le}"}} {n}')
    lines.append(f'zmon_pool_io_latency_seconds_count{{op="read",pool="tank"}} {buckets["+Inf"]}')
    lines.append('zmon_pool_io_latency_seconds_sum{op="read",pool="tank"} 0')
    hits, misses, ghosts = arc
    lines += [f"zmon_arc_hits_total {hits}", f"zmon_arc_misses_total {misses}",
              f"zmon_arc_mru_ghost_hits_total {ghosts * 0.8}",
              f"zmon_arc_mfu_ghost_hits_total {ghosts * 0.2}",
              'zmon_arc_state_size_bytes{state="mru_ghost"} 2684354560',
              'zmon_arc_state_size_bytes{state="mfu_ghost"} 644245094',
              "zmon_arc_max_size_bytes 4294967296", "zmon_arc_memory_all_bytes 17179869184",
              "# TYPE zmon_dmu_tx_events counter",
              'zmon_dmu_tx_events_total{reason="dirty_throttle"} 0']  # fmt: skip
    return "\n".join(lines) + "\n"


class Snapshot:
    """What the collectors last served: one collector's families, changed by ``serve``."""

    start_time = START

    def __init__(self) -> None:
        self.generation = 0
        self.state = CollectorState("iostat", 60.0, 10.0, success=True, has_data=True)

    def serve(self, t: float) -> list[Any]:
        self.generation += 1
        self.state.kept = families(exposition(t - START))
        self.state.last_success = t
        return self.state.kept

    def states(self) -> list[CollectorState]:
        return [self.state]


@pytest.fixture(scope="module")
def day() -> tuple[StatusPage, dict[str, Any]]:
    """The status page at the end of the day: its evaluator fed every minute of the day, its
    history (an hour) sampled every 30 s of the last hour."""
    clock = [START]
    snap = Snapshot()
    page = StatusPage(snap, clock=lambda: clock[0], host="h", known_from=START)
    t = START
    while t < NOW - HOUR:
        page.evaluator.feed(snap.serve(t), t)  # (what the page would have judged)
        t += 60.0
    while t <= NOW:
        clock[0] = t
        snap.serve(t)
        page.observe()
        t += 30.0
    clock[0] = NOW
    return page, page.report()


def _recorded(page: StatusPage, name: str) -> float:
    """The read value of the record ``name`` at the page's last evaluation, over its store."""
    judge = page.evaluator
    assert judge.at is not None
    record = {r.name: r for r in memory.latency_records(DEFAULTS)}[name].where(op="read")
    (value,) = record.vector(Context(judge.store, interval=judge.interval), judge.at).values()
    return value


def test_status_says_the_usual_the_rules_record(day: tuple[StatusPage, dict[str, Any]]) -> None:
    page, report = day
    usual = _recorded(page, memory.POOL_USUAL)
    factor = _recorded(page, memory.POOL_VS_USUAL)
    assert usual == pytest.approx(0.0098, abs=0.0002)  # the day's median, not the hour's
    (f,) = [f for f in report["findings"] if f["rule"] == "arc_slowdown"]
    assert f["evidence"].startswith(
        f"reads are {factor:.0f}x slower than usual (p99 99 ms, usually 9.8 ms); ARC hit ratio "
        "fell from 97 % to 71 %; "
    ), f["evidence"]
    assert f["alert"] == "ZfsArcSlowdown" and f["state"] == "firing"
    (fired,) = [i for i in page.evaluator.instances() if i.alert == "ZfsArcSlowdown"]
    assert fired.value == pytest.approx(factor)  # the factor the ticket says


def test_one_collection_has_no_usual_and_says_so() -> None:
    report = build_report(families(exposition(DAY)), NOW, host="h")
    assert not [f for f in report["findings"] if f["rule"] == "arc_slowdown"]
    (note,) = [n for n in report["notes"] if n["rule"] == "slow_reads"]
    assert note["subject"] == "pool tank"
    assert "no usual yet" in note["text"]


def test_the_ticket_reads_the_usual_hit_ratio_status_says() -> None:
    """ZfsArcSlowdown's "fell from" looks up the expression the status page evaluates."""
    (slowdown,) = [c for c in shipped.conditions(DEFAULTS) if c.name == "ZfsArcSlowdown"]
    usual = memory.slowdown_measures(DEFAULTS).usual_hit.promql()
    assert usual == "quantile_over_time(0.5, zmon:arc_hit:ratio_rate5m[1d])"
    looked_up = usual.replace("[", "{instance=%q,job=%q}[")
    assert looked_up in slowdown.description
