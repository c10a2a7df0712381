"""Why is it slow? A pool's reads against their usual, and what is behind a slowdown.

How slow, against what usual, is what the records of zmon/health/memory.py say
(``slowdown_measures``), as the status page's evaluator computed them over zmon's own series:

- **now**: the p99 of the pool's read latency over the last 5 minutes (nothing below
  ``slowdown_min_ops`` reads per second);
- **usual**: the median of those 5-minute p99s over ``latency_baseline`` (1 day), of what the
  evaluator has recorded (less, the first day: said with the words);
- **against the usual**: the one over the other; and the ARC hit ratio now and its usual
  (the median of its 5-minute values over the same day).

These are the numbers ZfsArcSlowdown fires with and the dashboards draw. Without an evaluator
(one collection: ``zmon status`` with no running zmon) there is no usual, and the report says
so instead of making one up.

**What is behind it** is read from the status history (the last 5 minutes), in this order: a
scrub or resilver running on the pool; a vdev whose reads take ``sibling_factor`` times as long
as its fastest sibling's (a slow disk); writes waiting for dirty data at its limit (the write
throttle); else the ARC: the misses of the same 5 minutes were mostly ghost hits (memory: a
larger ARC would have served them) or not (cold reads: the workload).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from zmon.health.memory import SlowdownMeasures
from zmon.health.ratios import (
    ACCESSES,
    ARC_GHOST_HITS_PER_ACCESS,
    RATE_SECONDS,
    LargerArc,
    Window,
)
from zmon.status.model import Arc, HostModel, Pool, Vdev

if TYPE_CHECKING:
    from zmon.health.evaluator import Evaluator

DIRTY_WAITS = "dirty_waits"  # the history's key of the dirty-data waits (dmu_tx)


def vdev_keys(pool: str, vdev: Vdev) -> tuple[str, str]:
    """The history's keys of a vdev's reads and their total latency."""
    name = f"{pool}/{vdev.klass}/{vdev.name}"
    return f"vdev_read_ops:{name}", f"vdev_read_seconds:{name}"


def slowdown_series(pool: Pool) -> dict[str, float]:
    """What the history keeps of a pool for the slowdown's causes: its vdevs' reads."""
    out = {}
    for v in pool.vdevs():
        if v.read_ops is not None and v.read_seconds is not None:
            ops, seconds = vdev_keys(pool.name, v)
            out[ops], out[seconds] = v.read_ops, v.read_seconds
    return out


def _running(window: Window, key: str) -> list[float]:
    """The counter ``key`` at every point of the window, a drop (restart) counted as a rise
    from zero, so differences are increases; NaN where the point lacks it."""
    out: list[float] = []
    total, last = 0.0, None
    for _, values in window.points:
        if key not in values:
            out.append(math.nan)
            continue
        v = values[key]
        if last is not None:
            total += v - last if v >= last else v
        last = v
        out.append(total)
    return out


def _start(times: list[float], end: int) -> int:
    """The first point of the rate window that ends at point ``end``."""
    since = times[end] - RATE_SECONDS
    return next(i for i in range(end + 1) if times[i] >= since)


@dataclass(frozen=True)
class Latency:
    """A pool's read p99 over the last 5 minutes, its usual and the one over the other, as
    recorded."""

    now: float  # seconds
    usual: float  # seconds
    factor: float


@dataclass(frozen=True)
class Recorded:
    """The slowdown's measures at an evaluation of the declarations: each pool's reads, the
    ARC hit ratio now and usually, and the seconds of history the usual covers (what the
    evaluator has seen: the first day, less than ``latency_baseline``)."""

    reads: Mapping[str, Latency] = field(default_factory=dict)
    hit: float | None = None
    usual_hit: float | None = None
    covers: float = 0.0

    @classmethod
    def of(cls, judge: Evaluator) -> Recorded:
        """What ``judge`` (evaluated, its measures the slowdown's: ``host_evaluator``) says."""
        m = judge.measures
        assert isinstance(m, SlowdownMeasures), "an evaluator without the slowdown's measures"
        by_pool = {
            name: {dict(k).get("pool", ""): v for k, v in judge.value(node).items()}
            for name, node in (("now", m.now), ("usual", m.usual), ("factor", m.factor))
        }
        reads = {
            pool: Latency(now, by_pool["usual"][pool], by_pool["factor"][pool])
            for pool, now in by_pool["now"].items()
            if pool in by_pool["usual"] and pool in by_pool["factor"]
        }
        hit = list(judge.value(m.hit).values())
        usual_hit = list(judge.value(m.usual_hit).values())
        assert judge.at is not None
        seen = judge.store.seen(judge.at)
        return cls(reads, hit[0] if hit else None, usual_hit[0] if usual_hit else None, seen)


@dataclass(frozen=True)
class SlowSibling:
    vdev: Vdev
    factor: float  # its mean read latency over its siblings' median


def slow_sibling(window: Window, pool: Pool, factor: float) -> SlowSibling | None:
    """A vdev whose reads of the last 5 minutes took ``factor`` times as long (on average)
    as its fastest sibling's (another child of its parent): a slow disk or vdev."""
    if len(window.points) < 2:
        return None
    times = [t for t, _ in window.points]
    start = _start(times, len(times) - 1)
    worst: SlowSibling | None = None
    for parent in pool.vdevs() if pool.root else []:
        means: list[tuple[Vdev, float]] = []
        for child in parent.children:
            if child.klass != "normal":
                continue
            ops, seconds = (_running(window, k) for k in vdev_keys(pool.name, child))
            reads, spent = ops[-1] - ops[start], seconds[-1] - seconds[start]
            if not math.isnan(reads) and not math.isnan(spent) and reads > 0:
                means.append((child, spent / reads))
        for child, mean in means:
            others = [m for c, m in means if c is not child]
            if not others or min(others) <= 0:
                continue
            ratio = mean / min(others)
            if ratio >= factor and (worst is None or ratio > worst.factor):
                worst = SlowSibling(child, ratio)
    return worst


def dirty_waits(window: Window) -> float:
    """Writes that waited for dirty data at its limit in the last 5 minutes."""
    if len(window.points) < 2:
        return 0.0
    times = [t for t, _ in window.points]
    running = _running(window, DIRTY_WAITS)
    rise = running[-1] - running[_start(times, len(times) - 1)]
    return 0.0 if math.isnan(rise) else rise


def larger_arc(window: Window, arc: Arc | None, min_accesses: float) -> LargerArc | None:
    """The ARC of the last 5 minutes: what a larger one would buy (ratios.LargerArc); None
    without the counters or with fewer than ``min_accesses`` accesses."""
    found = None if arc is None else ARC_GHOST_HITS_PER_ACCESS.increases(window)
    if arc is None or found is None or sum(found[0][f] for f in ACCESSES) < min_accesses:
        return None
    return LargerArc.of(found[0], arc.ghost_sizes)


@dataclass(frozen=True)
class Slowdown:
    """A pool whose reads are slower than usual, and what is behind it: ``cause`` is one of
    "scan", "vdev", "throttle", "arc" (mostly ghost hits), "cold" (mostly cold reads)."""

    pool: Pool
    latency: Latency
    cause: str
    arc: LargerArc | None = None
    sibling: SlowSibling | None = None
    waits: float = 0.0


@dataclass(frozen=True)
class Limits:
    factor: float
    ghost_share: float
    sibling_factor: float
    arc_min_accesses: float


def slowdowns(
    model: HostModel, window: Window, recorded: Recorded, limits: Limits
) -> list[Slowdown]:
    """Every pool whose reads are ``limits.factor`` times slower than usual (as recorded),
    and what is behind it."""
    out = []
    slow = [
        (p, lat)
        for p in model.pools
        if (lat := recorded.reads.get(p.name)) is not None and lat.factor >= limits.factor
    ]
    arc = larger_arc(window, model.arc, limits.arc_min_accesses) if slow else None
    for pool, latency in slow:
        found = Slowdown(pool, latency, "cold", arc)
        sibling = slow_sibling(window, pool, limits.sibling_factor)
        waits = dirty_waits(window)
        if pool.scan is not None and pool.scan.running:
            found = Slowdown(pool, latency, "scan", arc)
        elif sibling is not None:
            found = Slowdown(pool, latency, "vdev", arc, sibling=sibling)
        elif waits > 0:
            found = Slowdown(pool, latency, "throttle", arc, waits=waits)
        elif arc is None:
            continue  # no ARC figures: nothing to say what the misses were
        elif arc.ghost_share is not None and arc.ghost_share > limits.ghost_share:
            found = Slowdown(pool, latency, "arc", arc)
        out.append(found)
    return out
