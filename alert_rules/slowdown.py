"""Recording rules for "Why is it slow?": the ARC ratios and a pool's latency against its own
usual, recorded once and read by the alert rules, the dashboards and, for the ARC ratios,
`zmon status` (zmon/status/ratios.py holds their one definition).

The measure of a slowdown (grafana/README.md, "Why is it slow?"):

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
write waited for dirty data at its limit. `zmon status` says the same in
words, and names the other cause when there is one (zmon/status/slowdown.py).
"""

from __future__ import annotations

from alert_rules.building import Alert, Group, Record, x
from zmon.judgment.thresholds import Thresholds
from zmon.status.model import THROTTLE_REASONS
from zmon.status.ratios import (
    ACCESSES,
    ARC_GHOST_HITS_PER_MISS,
    ARC_GHOST_SIZE,
    ARC_HIT,
    RATE_WINDOW,
    RATIOS,
    counter_metric,
    ghost_size_expr,
)

ARC_ACCESSES = f"zmon:arc_accesses:rate{RATE_WINDOW}"
POOL_P99 = f"zmon:pool_io_latency_seconds:p99_rate{RATE_WINDOW}"
POOL_USUAL = f"zmon:pool_io_latency_seconds:p99_rate{RATE_WINDOW}_median"
POOL_VS_USUAL = "zmon:pool_io_latency_p99_vs_usual:ratio"
VDEV_P99 = f"zmon:vdev_io_latency_seconds:p99_rate{RATE_WINDOW}"
VDEV_VS_SIBLINGS = "zmon:vdev_io_latency_p99_vs_siblings:ratio"


def arc_records() -> list[Record]:
    """ARC accesses per second (the alerts' minimum-traffic guard) and every ARC ratio."""
    accesses = " + ".join(f"rate({counter_metric(f)}[{RATE_WINDOW}])" for f in ACCESSES)
    return [
        Record(ARC_ACCESSES, accesses),
        *(Record(r.record, r.expr()) for r in RATIOS),
        # what a larger ARC would take to serve the ghost hits: the ghost lists' size
        Record(ARC_GHOST_SIZE, ghost_size_expr()),
    ]  # fmt: skip


def _p99(metric: str, by: str, t: Thresholds) -> str:
    rate = f'rate({metric}_bucket{{op=~"read|write"}}[{RATE_WINDOW}])'
    traffic = f'rate({metric}_count{{op=~"read|write"}}[{RATE_WINDOW}])'
    return x(f"""
        histogram_quantile(0.99, sum by ({by}, le) ({rate}))
        and on({by}) sum by ({by}) ({traffic}) >= {t.slowdown_min_ops:g}
    """)


def latency_records(t: Thresholds) -> list[Record]:
    """Pool and top-level vdev latency p99 now, the pool's usual and the two comparisons."""
    pool = "instance, job, pool, op"
    vdev = "instance, job, pool, vdev, op"
    return [
        Record(POOL_P99, _p99("zmon_pool_io_latency_seconds", pool, t)),
        Record(POOL_USUAL, f"quantile_over_time(0.5, {POOL_P99}[{t.latency_baseline}])"),
        Record(POOL_VS_USUAL, f"{POOL_P99} / on({pool}) ({POOL_USUAL} > 0)"),
        Record(VDEV_P99, _p99("zmon_vdev_io_latency_seconds", vdev, t)),
        Record(VDEV_VS_SIBLINGS, x(f"""
            {VDEV_P99}
            / on({pool}) group_left() (quantile by ({pool}) (0.5, {VDEV_P99}) > 0)
            and on({pool}) count by ({pool}) ({VDEV_P99}) > 1
        """)),
    ]  # fmt: skip


HOST = "instance=%q,job=%q|$labels.instance $labels.job"
POOL = "instance=%q,job=%q,pool=%q|$labels.instance $labels.job $labels.pool"


def looked_up(query: str, by: str, shown: str) -> str:
    """A template that runs ``query`` (``{}`` where the alert's matchers go, ``by`` as in
    building.counted_since) when the alert fires and shows its value through ``shown`` (a
    template pipeline stage such as ``humanizePercentage``); nothing when it has no value."""
    matchers, args = by.split("|")
    q = query.replace("{}", "{" + matchers + "}").replace('"', '\\"')
    return (
        f'{{{{ with printf "{q}" {args} | query }}}}{{{{ with . | first | value }}}}'
        f"{shown}{{{{ end }}}}{{{{ end }}}}"
    )


def arc_slowdown(t: Thresholds) -> Alert:
    """Reads slower than usual, the misses behind them mostly ghost hits, no other cause."""
    scan = "max by (instance, job, pool) (zmon_pool_scan_in_progress) == 1"
    reasons = "|".join(THROTTLE_REASONS)
    throttle = f'rate(zmon_dmu_tx_events_total{{reason=~"{reasons}"}}[{RATE_WINDOW}])'
    p99 = looked_up(
        f"{POOL_P99}{{}}",
        POOL.replace("pool=%q", "pool=%q,op='read'"),
        "{{ . | humanizeDuration }}",
    )
    ghost_share = looked_up(
        f"{ARC_GHOST_HITS_PER_MISS.record}{{}}", HOST, "{{ . | humanizePercentage }}"
    )
    hit_usual = looked_up(
        f"quantile_over_time(0.5, {ARC_HIT.record}{{}}[{t.latency_baseline}])",
        HOST,
        "{{ . | humanizePercentage }}",
    )
    hit_now = looked_up(f"{ARC_HIT.record}{{}}", HOST, "{{ . | humanizePercentage }}")
    ghost_size = looked_up(f"{ARC_GHOST_SIZE}{{}}", HOST, "{{ . | humanize1024 }}B")
    arc_max = looked_up("zmon_arc_max_size_bytes{}", HOST, "{{ . | humanize1024 }}B")
    ram = looked_up("zmon_arc_memory_all_bytes{}", HOST, "{{ . | humanize1024 }}B")
    return Alert(
        "ZfsArcSlowdown",
        x(f"""
            max without (op) ({POOL_VS_USUAL}{{op="read"}}) >= {t.slowdown_factor:g}
            and on(instance, job) {ARC_GHOST_HITS_PER_MISS.record} > {t.slowdown_ghost_share:g}
            and on(instance, job) {ARC_ACCESSES} > {t.arc_min_ops:g}
            unless on(instance, job, pool) ({scan})
            unless on(instance, job, pool) (
              max by (instance, job, pool) ({VDEV_P99}{{op="read"}})
              / min by (instance, job, pool) ({VDEV_P99}{{op="read"}})
              >= {t.slowdown_sibling_factor:g}
            )
            unless on(instance, job) (sum by (instance, job) ({throttle}) > 0)
        """),
        "Reads on a ZFS pool are slow because the ARC is too small.",
        "Reads on {{ $labels.pool }} on {{ $labels.instance }} are "
        '{{ $value | printf "%.1f" }}x slower than usual (p99 ' + p99 + "); ARC hit ratio "
        "fell from " + hit_usual + " to " + hit_now + "; " + ghost_share + " of the misses "
        "were ghost hits: a larger ARC (up to " + ghost_size + " more) would have served "
        "them; zfs_arc_max is " + arc_max + " of " + ram + " RAM.",
        str(t.slowdown_for),
        dashboard="arc",
    )


def slowdown_group(t: Thresholds) -> Group:
    """The latency records and the alert that reads them, in a group of their own (the ARC
    records stay with the memory alerts that read them, so those see fresh values)."""
    return Group("zmon-slowdown", [*latency_records(t), arc_slowdown(t)])
