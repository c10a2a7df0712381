"""Why is it slow? A pool's reads against its own usual, and what is behind a slowdown.

The same measure as the recording rules of zmon/judgment/memory.py, computed from the status
history (an hour at most, where Prometheus keeps a day):

- **now**: the p99 of the pool's read latency over the last 5 minutes, from the increase of
  its ``zpool iostat -w`` histogram (Prometheus' ``histogram_quantile``); nothing is judged
  below ``min_ops`` reads per second;
- **usual**: the median of those 5-minute p99s at every point of the history;
- **what is behind it**, in this order: a scrub or resilver running on the pool; a vdev whose
  reads take ``sibling_factor`` times as long as its fastest sibling's (a slow disk);
  writes waiting for dirty data at its limit (the write throttle); else the ARC: the misses of
  the same 5 minutes were mostly ghost hits (memory: a larger ARC would have served them) or
  not (cold reads: the workload).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import median

from zmon.status.model import Arc, HostModel, Pool, Vdev
from zmon.status.ratios import (
    ACCESSES,
    ARC_GHOST_HITS_PER_ACCESS,
    ARC_HIT,
    RATE_SECONDS,
    LargerArc,
    Window,
)

DIRTY_WAITS = "dirty_waits"  # the history's key of the dirty-data waits (dmu_tx)
_READ = "pool_read_le:"
MIN_USUAL_POINTS = 3  # 5-minute p99s the history needs before it has a usual


def read_key(pool: str, le: float) -> str:
    """The status history's key of one bucket of a pool's read latency histogram."""
    return f"{_READ}{pool}:{'+Inf' if math.isinf(le) else repr(le)}"


def vdev_keys(pool: str, vdev: Vdev) -> tuple[str, str]:
    """The history's keys of a vdev's reads and their total latency."""
    name = f"{pool}/{vdev.klass}/{vdev.name}"
    return f"vdev_read_ops:{name}", f"vdev_read_seconds:{name}"


def slowdown_series(pool: Pool) -> dict[str, float]:
    """What the history keeps of a pool for the slowdown judgement."""
    out = {read_key(pool.name, le): count for le, count in pool.read_latency.items()}
    for v in pool.vdevs():
        if v.read_ops is not None and v.read_seconds is not None:
            ops, seconds = vdev_keys(pool.name, v)
            out[ops], out[seconds] = v.read_ops, v.read_seconds
    return out


def quantile(q: float, buckets: Sequence[tuple[float, float]]) -> float | None:
    """``histogram_quantile(q, ...)`` as Prometheus computes it, over (bound, cumulative
    count) pairs: linear within the bucket the rank falls in, the last finite bound when it
    falls in +Inf; None without observations."""
    buckets = sorted(buckets)
    if len(buckets) < 2 or not math.isinf(buckets[-1][0]) or buckets[-1][1] <= 0:
        return None
    rank = q * buckets[-1][1]
    index = next(i for i, (_, c) in enumerate(buckets) if c >= rank)
    if index == len(buckets) - 1:
        return buckets[-2][0]
    upper, count = buckets[index]
    lower, below = (0.0, 0.0) if index == 0 else buckets[index - 1]
    if index == 0 and upper <= 0:
        return upper
    return lower + (upper - lower) * (rank - below) / (count - below) if count > below else upper


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
    """A pool's read p99 over the last 5 minutes against its usual."""

    now: float  # seconds
    usual: float  # seconds
    reads_per_second: float

    @property
    def factor(self) -> float:
        return self.now / self.usual if self.usual > 0 else math.inf


def read_latency(window: Window, pool: str, min_ops: float) -> Latency | None:
    """The pool's read p99 now and usually (None without enough traffic or history)."""
    if len(window.points) < 2:
        return None
    newest = window.points[-1][1]
    bounds = sorted(float(k.rsplit(":", 1)[1]) for k in newest if k.startswith(f"{_READ}{pool}:"))
    if not bounds or not math.isinf(bounds[-1]):
        return None
    series = {le: _running(window, read_key(pool, le)) for le in bounds}
    times = [t for t, _ in window.points]
    p99s: list[tuple[float, float]] = []  # (p99, reads per second) at each point
    for end in range(1, len(times)):
        start = _start(times, end)
        covered = times[end] - times[start]
        rises = [(le, series[le][end] - series[le][start]) for le in bounds]
        if covered <= 0 or any(math.isnan(r) for _, r in rises):
            continue
        rate = rises[-1][1] / covered
        p99 = quantile(0.99, rises) if rate >= min_ops else None
        if p99 is not None:
            p99s.append((p99, rate) if end == len(times) - 1 else (p99, -1.0))
    if len(p99s) < MIN_USUAL_POINTS or p99s[-1][1] < 0:
        return None  # no usual yet, or the newest window is too quiet to judge
    return Latency(p99s[-1][0], median(p for p, _ in p99s), p99s[-1][1])


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


def usual_hit_ratio(window: Window) -> float | None:
    """The median of the ARC hit ratio's 5-minute values over the history."""
    values = [v for _, v in ARC_HIT.series(window)]
    return median(values) if values else None


@dataclass(frozen=True)
class Slowdown:
    """A pool whose reads are slower than usual, and what is behind it: ``cause`` is one of
    "scan", "vdev", "throttle", "arc" (mostly ghost hits), "cold" (mostly cold reads)."""

    pool: Pool
    latency: Latency
    cause: str
    arc: LargerArc | None = None
    usual_hit: float | None = None
    sibling: SlowSibling | None = None
    waits: float = 0.0


@dataclass(frozen=True)
class Limits:
    factor: float
    ghost_share: float
    min_ops: float
    sibling_factor: float
    arc_min_accesses: float


def slowdowns(model: HostModel, window: Window, limits: Limits) -> list[Slowdown]:
    """Every pool whose reads are ``limits.factor`` times slower than usual, judged."""
    out = []
    judged = [(p, read_latency(window, p.name, limits.min_ops)) for p in model.pools]
    slow = [(p, lat) for p, lat in judged if lat is not None and lat.factor >= limits.factor]
    arc = larger_arc(window, model.arc, limits.arc_min_accesses) if slow else None
    for pool, latency in slow:
        found = Slowdown(pool, latency, "cold", arc, usual_hit_ratio(window))
        sibling = slow_sibling(window, pool, limits.sibling_factor)
        waits = dirty_waits(window)
        if pool.scan is not None and pool.scan.running:
            found = Slowdown(pool, latency, "scan", arc, found.usual_hit)
        elif sibling is not None:
            found = Slowdown(pool, latency, "vdev", arc, found.usual_hit, sibling=sibling)
        elif waits > 0:
            found = Slowdown(pool, latency, "throttle", arc, found.usual_hit, waits=waits)
        elif arc is None:
            continue  # no ARC figures: nothing to say what the misses were
        elif arc.ghost_share is not None and arc.ghost_share > limits.ghost_share:
            found = Slowdown(pool, latency, "arc", arc, found.usual_hit)
        out.append(found)
    return out
