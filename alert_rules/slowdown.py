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
"""

from __future__ import annotations

from alert_rules.building import Group, Record, x
from zmon.judgment.thresholds import Thresholds
from zmon.status.ratios import ACCESSES, RATE_WINDOW, RATIOS, counter_metric

ARC_ACCESSES = f"zmon:arc_accesses:rate{RATE_WINDOW}"
ARC_GHOST_SIZE = "zmon:arc_ghost_size:bytes"
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
        Record(ARC_GHOST_SIZE, x("""
            sum by (instance, job) (zmon_arc_state_size_bytes{state=~"mru_ghost|mfu_ghost"})
        """)),
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


def slowdown_group(t: Thresholds) -> Group:
    """The latency records, in a group of their own (the ARC records stay with the memory
    alerts that read them, so those see fresh values)."""
    return Group("zmon-slowdown", [*latency_records(t)])
