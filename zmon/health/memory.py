"""Memory and slowdowns: the ARC records and alerts, and "Why is it slow?" (declarations.py has
the conventions).

ARC records (zmon-memory): accesses per second (the alerts' minimum-traffic guard), every ARC
ratio of zmon/health/ratios.py (their one definition, which `zmon status` computes from its own
history too) and the ghost lists' size. Alerts: a dedup table crowding the ARC, ghost hits high
(the ARC looks too small), L2ARC device errors.

The measure of a slowdown (zmon-slowdown; grafana/README.md, "Why is it slow?"):

- **now**: the p99 of a pool's (and each top-level vdev's) read or write latency over the last
  5 minutes, from zmon's ``zpool iostat -w`` histograms (total wait: queue plus disk). Below
  ``slowdown_min_ops`` I/Os per second of that op nothing is recorded: a p99 of a handful of
  I/Os is noise, and idle minutes would drag the usual down.
- **usual**: the median of those 5-minute p99s over ``latency_baseline`` (1 day): the same
  host's, the same pool's and op's, robust to the slow minutes it is compared with.
- **against the usual**: now / usual; 6 means "6x slower than usual". A top-level vdev is also
  compared with the median of its pool's top-level vdevs (one slow mirror among siblings).

``ZfsArcSlowdown`` (a ticket) says a read slowdown is memory: reads on a pool are at least
``slowdown_factor`` times slower than usual **and** more than ``slowdown_ghost_share`` of the
ARC's misses were ghost hits, while nothing else explains it: no scrub or resilver runs on the
pool, no vdev's read p99 is ``slowdown_sibling_factor`` times its fastest sibling's (one slow
disk or vdev; the fastest rather than the median, which two siblings cannot tell apart), and no
write waited for dirty data at its limit. `zmon status` says the same in words, with the now,
usual and factor of these records (``slowdown_measures``, evaluated by the status page's
evaluator), and names the other cause when there is one (zmon/status/slowdown.py).
"""

from __future__ import annotations

from typing import NamedTuple

from zmon.health.conditions import Condition
from zmon.health.expr import (
    Node,
    Record,
    count_by,
    histogram_quantile,
    increase,
    max_by,
    max_without,
    metric,
    min_by,
    quantile_by,
    quantile_over_time,
    rate,
    sum_by,
)
from zmon.health.ratios import (
    ACCESSES,
    ARC_GHOST_HITS_PER_ACCESS,
    ARC_GHOST_HITS_PER_MISS,
    ARC_HIT,
    RATE_WINDOW,
    RATIOS,
    ghost_size,
    rates,
)
from zmon.health.ratios import ARC_GHOST_SIZE as ARC_GHOST_SIZE_NAME
from zmon.health.thresholds import Thresholds
from zmon.health.words import POOL, looked_up

# dmu_tx reasons that say a write waited for dirty data at its limit (zfs_dirty_data_max): the
# write throttle, a slowdown no ARC size changes (zmon_dmu_tx_events_total{reason=...}).
THROTTLE_REASONS = ("dirty_throttle", "dirty_over_max")

HOST_ID = ("instance", "job")
POOL_ID = ("instance", "job", "pool")
POOL_OP = ("instance", "job", "pool", "op")
VDEV_OP = ("instance", "job", "pool", "vdev", "op")

# ---- the ARC records (zmon-memory)

ARC_ACCESSES = Record.of(f"zmon:arc_accesses:rate{RATE_WINDOW}", rates(ACCESSES))
ARC_RATIOS = {r.record: Record.of(r.record, r.node()) for r in RATIOS}
ARC_GHOST_SIZE = Record.of(ARC_GHOST_SIZE_NAME, ghost_size())
"""What a larger ARC would take to serve the ghost hits: the ghost lists' size."""


def arc_records() -> list[Record]:
    """ARC accesses per second, every ARC ratio and the ghost lists' size, in order."""
    return [ARC_ACCESSES, *ARC_RATIOS.values(), ARC_GHOST_SIZE]


def memory_conditions(t: Thresholds) -> list[Condition]:
    w = t.error_window
    ghost_hits = ARC_RATIOS[ARC_GHOST_HITS_PER_ACCESS.record]
    return [
        Condition(
            "ZfsDedupTableTooLarge",
            metric("zmon_pool_ddt_in_core_bytes").op(
                "/", metric("zmon_arc_max_size_bytes") > 0, on=HOST_ID, group_left=()
            )
            > t.ddt_arc_share_max,
            "A ZFS dedup table takes a large share of the ARC.",
            f"The dedup table of {POOL} needs {{{{ $value | humanizePercentage }}}} of the "
            f"ARC maximum in memory (limit {t.ddt_arc_share_max:.0%}); it will crowd out "
            "cached data and slow every write.",
        ),
        Condition(
            "ZfsArcGhostHitsHigh",
            (ghost_hits > t.arc_ghost_hit_ratio_max).and_(ARC_ACCESSES > t.arc_min_ops, on=HOST_ID),
            "ZFS ARC ghost hits are high: the ARC looks too small.",
            "On {{ $labels.instance }}, ghost hits are {{ $value | humanizePercentage }} "
            "of ARC accesses: recently evicted blocks are read again. A larger ARC "
            "(zfs_arc_max) or an L2ARC would serve them.",
            t.arc_for,
        ),
        Condition(
            "ZfsL2arcErrors",
            (increase(metric("zmon_arc_l2_io_errors_total").at(w)) > 0).or_(
                increase(metric("zmon_arc_l2_checksum_errors_total").at(w)) > 0
            ),
            "The ZFS L2ARC device returned I/O or checksum errors.",
            "The L2ARC (cache) device on {{ $labels.instance }} returned errors in the last "
            f"{w}. ZFS falls back to the pool, but check the cache device.",
        ),
    ]


# ---- latency against the usual (zmon-slowdown)

POOL_P99 = f"zmon:pool_io_latency_seconds:p99_rate{RATE_WINDOW}"
POOL_USUAL = f"zmon:pool_io_latency_seconds:p99_rate{RATE_WINDOW}_median"
POOL_VS_USUAL = "zmon:pool_io_latency_p99_vs_usual:ratio"
VDEV_P99 = f"zmon:vdev_io_latency_seconds:p99_rate{RATE_WINDOW}"
VDEV_VS_SIBLINGS = "zmon:vdev_io_latency_p99_vs_siblings:ratio"


def _p99(histogram: str, by: tuple[str, ...], t: Thresholds) -> Node:
    """The p99 of ``histogram``'s reads and writes over the rate window, where that op saw at
    least ``slowdown_min_ops`` I/Os per second."""
    buckets = rate(metric(f"{histogram}_bucket", op="=~read|write").at(RATE_WINDOW))
    traffic = rate(metric(f"{histogram}_count", op="=~read|write").at(RATE_WINDOW))
    return histogram_quantile(0.99, sum_by((*by, "le"), buckets)).and_(
        sum_by(by, traffic) >= t.slowdown_min_ops, on=by
    )


def latency_records(t: Thresholds) -> list[Record]:
    """Pool and top-level vdev latency p99 now, the pool's usual and the two comparisons."""
    pool_p99 = Record.of(POOL_P99, _p99("zmon_pool_io_latency_seconds", POOL_OP, t))
    usual = Record.of(POOL_USUAL, quantile_over_time(0.5, pool_p99.at(t.latency_baseline)))
    vdev_p99 = Record.of(VDEV_P99, _p99("zmon_vdev_io_latency_seconds", VDEV_OP, t))
    siblings = quantile_by(POOL_OP, 0.5, vdev_p99) > 0
    return [
        pool_p99,
        usual,
        Record.of(POOL_VS_USUAL, pool_p99.op("/", usual > 0, on=POOL_OP)),
        vdev_p99,
        Record.of(
            VDEV_VS_SIBLINGS,
            vdev_p99.op("/", siblings, on=POOL_OP, group_left=()).and_(
                count_by(POOL_OP, vdev_p99) > 1, on=POOL_OP
            ),
        ),
    ]


def usual_hit_ratio(t: Thresholds) -> Node:
    """The ARC hit ratio's usual: the median of its 5-minute values over ``latency_baseline``,
    as the read latency's usual is of the 5-minute p99s."""
    return quantile_over_time(0.5, ARC_RATIOS[ARC_HIT.record].at(t.latency_baseline))


class SlowdownMeasures(NamedTuple):
    """What "Why is it slow?" says, as the records measure it: a pool's read p99 now, its
    usual and the one against the other, the ARC hit ratio now and usually. The status page's
    evaluator evaluates them with the conditions (zmon.health.evaluator), so `zmon status`
    says the numbers ZfsArcSlowdown fires with."""

    now: Node
    usual: Node
    factor: Node
    hit: Node
    usual_hit: Node


def slowdown_measures(t: Thresholds) -> SlowdownMeasures:
    records = {r.name: r for r in latency_records(t)}
    return SlowdownMeasures(
        records[POOL_P99].where(op="read"),
        records[POOL_USUAL].where(op="read"),
        records[POOL_VS_USUAL].where(op="read"),
        ARC_RATIOS[ARC_HIT.record],
        usual_hit_ratio(t),
    )


HOST = "instance=%q,job=%q|$labels.instance $labels.job"
POOL_MATCH = "instance=%q,job=%q,pool=%q|$labels.instance $labels.job $labels.pool"


def arc_slowdown(t: Thresholds) -> Condition:
    """Reads slower than usual, many of the misses behind them ghost hits, no other cause."""
    records = {r.name: r for r in latency_records(t)}
    ghost_share = ARC_RATIOS[ARC_GHOST_HITS_PER_MISS.record]
    vdev_read = records[VDEV_P99].where(op="read")
    scan = max_by(POOL_ID, metric("zmon_pool_scan_in_progress")).eq(1)
    reasons = "|".join(THROTTLE_REASONS)
    throttle = rate(metric("zmon_dmu_tx_events_total", reason=f"=~{reasons}").at(RATE_WINDOW))
    slower = max_without(("op",), records[POOL_VS_USUAL].where(op="read"))
    one_slow_vdev = max_by(POOL_ID, vdev_read) / min_by(POOL_ID, vdev_read)
    expr = (
        (slower >= t.slowdown_factor)
        .and_(ghost_share > t.slowdown_ghost_share, on=HOST_ID)
        .and_(ARC_ACCESSES > t.arc_min_ops, on=HOST_ID)
        .unless(scan, on=POOL_ID)
        .unless(one_slow_vdev >= t.slowdown_sibling_factor, on=POOL_ID)
        .unless(sum_by(HOST_ID, throttle) > 0, on=HOST_ID)
    )
    p99 = looked_up(
        f"{POOL_P99}{{}}",
        POOL_MATCH.replace("pool=%q", "pool=%q,op='read'"),
        "{{ . | humanizeDuration }}",
    )
    share = looked_up(f"{ARC_GHOST_HITS_PER_MISS.record}{{}}", HOST, "{{ . | humanizePercentage }}")
    hit_usual = looked_up(
        usual_hit_ratio(t).promql().replace(f"{ARC_HIT.record}[", f"{ARC_HIT.record}{{}}["),
        HOST,
        "{{ . | humanizePercentage }}",
    )
    hit_now = looked_up(f"{ARC_HIT.record}{{}}", HOST, "{{ . | humanizePercentage }}")
    ghost_size = looked_up(f"{ARC_GHOST_SIZE.name}{{}}", HOST, "{{ . | humanize1024 }}B")
    arc_max = looked_up("zmon_arc_max_size_bytes{}", HOST, "{{ . | humanize1024 }}B")
    ram = looked_up("zmon_arc_memory_all_bytes{}", HOST, "{{ . | humanize1024 }}B")
    return Condition(
        "ZfsArcSlowdown",
        expr,
        "Reads on a ZFS pool are slow because the ARC is too small.",
        "Reads on {{ $labels.pool }} on {{ $labels.instance }} are "
        '{{ $value | printf "%.1f" }}x slower than usual (p99 ' + p99 + "); ARC hit ratio "
        "fell from " + hit_usual + " to " + hit_now + "; " + share + " of the misses "
        "were ghost hits: a larger ARC (up to " + ghost_size + " more) would have served "
        "them; zfs_arc_max is " + arc_max + " of " + ram + " RAM.",
        t.slowdown_for,
        dashboard="arc",
    )
