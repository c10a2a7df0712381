"""zmon's five dashboards: fleet, pool detail, ARC and performance, disks, UPS.

Queries use the same metric names and recording rules (``zmon:...``) as alert_rules/, so a
dashboard shows what an alert saw. Every query is executed against a real Prometheus
scraping the demo host in tests/rules.
"""

from __future__ import annotations

import re
from typing import Any

from grafana_foundation_sdk.builders.common import (
    GraphThresholdsStyleConfig,
    ScaleDistributionConfig,
)
from grafana_foundation_sdk.models.common import GraphThresholdsStyleMode, ScaleDistribution

from grafana.builder import (
    I,
    Panel,
    Query,
    Row,
    T,
    Variable,
    bars,
    dashboard,
    heatmap,
    query_variable,
    stat,
    state_timeline,
    table,
    timeseries,
    unit,
    value_map,
)
from zmon.health import capacity, memory, ratios, scans
from zmon.health.expr import Node, scoped
from zmon.health.thresholds import DEFAULTS as LIMITS

H = 'job=~"$job", instance=~"$instance"'  # host selector
P = H + ', pool=~"$pool"'  # pool selector
# the same, as matchers of a declared expression (``drawn``)
HOSTS = {"job": "=~$job", "instance": "=~$instance"}
POOLS = {**HOSTS, "pool": "=~$pool"}
D = H + ', device=~"$device"'  # disk selector
U = H + ', ups=~"$ups"'  # UPS selector
# Legends: every one names the instance, so two hosts' tank or sda never look the same
PL, DL, UL = "{{instance}} {{pool}}", "{{instance}} {{device}}", "{{instance}} {{ups}}"
# Alerts of the selected hosts, and those about the whole job (ZmonTargetMissing has no instance)
HA = 'job=~"$job", instance=~"$instance|"'
RI = "$__rate_interval"
# The lines drawn where an alert or a finding judges come from the thresholds table the rules
# are rendered from (zmon/health/thresholds.py); a line drawn before them (an early orange:
# scrub due within 5 days, 10 °C below the limit, twice the runtime) is the boards' own.
DAY = 86400
SCRUB_DUE = LIMITS.scrub_max_age.seconds
RUNTIME_MIN = LIMITS.ups_runtime_min.seconds
# The boards' own lines, drawn where no alert or finding judges: each a value of the table
# moved earlier, or a colour for a figure no condition reads (the UPS's charge: its own
# low-battery flag makes UpsLowBattery).
OWN_LINES = {
    "scrub due within 5 days": SCRUB_DUE - 5 * DAY,
    "disk 10 °C below its limit": LIMITS.disk_temperature_max - 10,
    "runtime twice the minimum": 2 * RUNTIME_MIN,
    "battery half charged": 0.5,
    "battery charged": 0.8,
}
ALERT_NAMES = 'alertname=~"(Zfs|Disk|Ups|Zmon).+"'
OK_BAD: list[tuple[float | None, str]] = [(None, "green"), (1, "red")]


def one_line(promql: str) -> str:
    """``promql`` as one line (a declaration renders long expressions on several)."""
    text = " ".join(promql.split())
    return re.sub(r"\s+\)", ")", re.sub(r"\(\s+", "(", text))


def drawn(node: Node, **matchers: str) -> str:
    """A declared expression (zmon/health/) for the selected hosts, on one line."""
    return one_line(scoped(node, **matchers).promql())


def _threshold_lines() -> GraphThresholdsStyleConfig:
    return GraphThresholdsStyleConfig().mode(GraphThresholdsStyleMode.LINE)


def _job() -> Variable:
    return query_variable("job", "Job", "label_values(zmon_build_info, job)", multi=False)


def _instance() -> Variable:
    query = 'label_values(zmon_build_info{job=~"$job"}, instance)'
    return query_variable("instance", "Host", query)


def _pool() -> Variable:
    return query_variable("pool", "Pool", f"label_values(zmon_pool_state{{{H}}}, pool)")


def fleet() -> dict[str, Any]:
    items: list[Panel | Row] = [
        stat("zmon targets down", [T(f"count(up{{{H}}} == 0) or vector(0)")],
             thresholds=OK_BAD, description="Hosts whose zmon Prometheus cannot scrape."),
        stat("Pools not ONLINE",
             [T(f'count(zmon_pool_state{{{H}, state!="online"}} == 1) or vector(0)')],
             thresholds=OK_BAD, description="Pools in any state but ONLINE."),
        stat("Vdevs with errors", [T(f"count(zmon:vdev_errors:sum{{{H}}} > 0) or vector(0)")],
             thresholds=OK_BAD, description="Vdevs whose read/write/checksum counters are not 0."),
        stat("Firing alerts", [T(f'count(ALERTS{{alertstate="firing", {ALERT_NAMES}, {HA}}}) '
                                 "or vector(0)")],
             thresholds=OK_BAD, description="zmon alerts firing now on the selected hosts "
                                            "(and those about the whole job, which name none)."),
        table("Open problems", [I(f'ALERTS{{alertstate="firing", {ALERT_NAMES}, {HA}}}')],
              hide=("Time", "Value", "__name__", "alertstate"), height=7,
              description="Firing zmon alerts; see alert_rules/RUNBOOK.md."),
        table("Pools", [
            I(f"max by (instance, pool, state) (zmon_pool_state{{{H}}} == 1)"),
            I(f"max by (instance, pool) (zmon:pool_capacity:ratio{{{H}}})"),
            I(f"max by (instance, pool) (zmon_pool_fragmentation_ratio{{{H}}})"),
            I(f"max by (instance, pool) (zmon_pool_data_errors{{{H}}})"),
            I(f"max by (instance, pool) (time() - zmon_pool_last_scrub_end_time_seconds{{{H}}})"),
        ], rename={"state": "State", "Value #B": "Capacity", "Value #C": "Fragmentation",
                   "Value #D": "Data errors", "Value #E": "Since last scrub"},
              hide=("Time", "Value #A"), height=9,
              description="Every pool of every host, one row each.")
        .override_by_name("Capacity", [unit("percentunit")])
        .override_by_name("Fragmentation", [unit("percentunit")])
        .override_by_name("Since last scrub", [unit("s")]),
        state_timeline("Pool health", [T(f'max by (instance, pool) (zmon_pool_state{{{H}, '
                                         f'state="online"}})', PL)],
                       mappings=value_map(("1", "ONLINE", "green"), ("0", "NOT ONLINE", "red")),
                       width=24, height=7),
        timeseries("Failing zmon collectors",
                   [T(f"sum by (instance) (1 - zmon_collector_success{{{H}}})", "{{instance}}")],
                   min=0, description="Collectors whose last run failed, per host."),
        timeseries("Scans running", [T(f"sum by (instance, pool, function) "
                                       f"(zmon_pool_scan_in_progress{{{H}}} == 1)",
                                       "{{instance}} {{pool}} {{function}}")],
                   min=0, description="Scrubs, resilvers and rebuilds in progress."),
    ]  # fmt: skip
    return dashboard(
        "zmon-fleet",
        "zmon / Fleet overview",
        "Every host: pool states, capacity, scrubs and open problems.",
        [_job(), _instance()],
        items,
    )


def pool() -> dict[str, Any]:
    items: list[Panel | Row] = [
        Row("Vdev tree"),
        table("Vdevs", [
            I(f"max by (instance, pool, vdev, class, state) (zmon_vdev_state{{{P}}} == 1)"),
            I(f"max by (instance, pool, vdev, class, device, type, parent) "
              f"(zmon_vdev_info{{{P}}})"),
            I(f"max by (instance, pool, vdev, class) (zmon_vdev_read_errors_total{{{P}}})"),
            I(f"max by (instance, pool, vdev, class) (zmon_vdev_write_errors_total{{{P}}})"),
            I(f"max by (instance, pool, vdev, class) (zmon_vdev_checksum_errors_total{{{P}}})"),
        ], rename={"state": "State", "Value #C": "Read errors", "Value #D": "Write errors",
                   "Value #E": "Checksum errors"},
              hide=("Time", "Value #A", "Value #B"), height=10,
              description="The vdev tree as zpool status shows it: state, disk and error "
                          "counters per vdev (parent names the vdev above)."),
        Row("Scan"),
        timeseries("Scan progress", [T(f"zmon_pool_scan_progress_ratio{{{P}}} and on(instance, "
                                       f"job, pool) (max by (instance, job, pool) "
                                       f"(zmon_pool_scan_in_progress{{{P}}}) == 1)", PL)],
                   unit="percentunit", min=0, max=1, width=8),
        timeseries("Scan ETA", [T(f"zmon:pool_scan_eta:seconds{{{P}}}", f"{PL} (rate)"),
                                T(f"zmon_pool_scan_remaining_seconds{{{P}}}",
                                  f"{PL} (zpool estimate)")],
                   unit="s", min=0, width=8,
                   description="Time left at the issue rate of the last 30m, and as zpool "
                               "estimates it."),
        timeseries("Scan issue rate", [T(f"zmon:pool_scan_issued_bytes:rate{{{P}}}", PL)],
                   unit="Bps", min=0, width=8),
        stat("Since last scrub", [T(drawn(scans.SCRUB_AGE, **POOLS), PL)],
             unit="s", thresholds=[(None, "green"), (OWN_LINES["scrub due within 5 days"],
                                                     "orange"), (SCRUB_DUE, "red")]),
        stat("Last scrub errors", [T(f"zmon_pool_last_scrub_errors{{{P}}}", PL)],
             thresholds=OK_BAD),
        stat("Data errors", [T(f"zmon_pool_data_errors{{{P}}}", PL)], thresholds=OK_BAD),
        stat("Scan running", [T(f"zmon_pool_scan_in_progress{{{P}}} == 1",
                                "{{instance}} {{pool}} {{function}}")],
             description="Empty when no scan runs."),
        Row("Capacity"),
        timeseries("Capacity", [T(f"zmon:pool_capacity:ratio{{{P}}}", PL)],
                   unit="percentunit", min=0, max=1, width=8,
                   thresholds=[(None, "green"), (LIMITS.capacity_warning_on, "orange"),
                               (LIMITS.capacity_critical_on, "red")])
        .thresholds_style(_threshold_lines()),
        timeseries("Fragmentation", [T(f"zmon_pool_fragmentation_ratio{{{P}}}", PL)],
                   unit="percentunit", min=0, max=1, width=8),
        timeseries("Space", [T(f"zmon_pool_allocated_bytes{{{P}}}", f"{PL} allocated"),
                             T(f"zmon_pool_free_bytes{{{P}}}", f"{PL} free")],
                   unit="bytes", min=0, width=8),
        Row("Datasets"),
        timeseries("Quota use (highest 20)", [
            T(f"topk(20, {_quota_use(limit)})", f"{{{{instance}}}} {{{{dataset}}}} {limit}")
            for limit in capacity.QUOTA_USED
        ], unit="percentunit", min=0, max=1, width=12,
                   thresholds=[(None, "green"), (LIMITS.dataset_quota_full, "red")],
                   description="used / quota and referenced / refquota of the datasets with "
                               "one set; the line is where ZfsDatasetQuotaNearlyFull warns.")
        .thresholds_style(_threshold_lines()),
        timeseries("Newest snapshot age (oldest 20)", [
            T(f"topk(20, {drawn(capacity.snapshot_age(), **POOLS)})", "{{instance}} {{dataset}}"),
        ], unit="s", min=0, width=12,
                   thresholds=[(None, "green"), (LIMITS.snapshot_max_age.seconds, "red")],
                   description="Age of the newest snapshot of each dataset that should be "
                               "snapshotted (with none, since its creation); the line is where "
                               "ZfsDatasetSnapshotOverdue warns.")
        .thresholds_style(_threshold_lines()),
        table("Datasets", [
            I(f"max by (instance, pool, dataset) (zmon_dataset_used_bytes{{{P}}})"),
            *(I(f"max by (instance, pool, dataset) ({_quota_use(limit)})")
              for limit in capacity.QUOTA_USED),
            I(f"max by (instance, pool, dataset) (zmon_dataset_used_by_snapshots_bytes{{{P}}})"),
            I(f"max by (instance, pool, dataset) (zmon_dataset_snapshots{{{P}}})"),
            I(f"max by (instance, pool, dataset) (time() - "
              f"zmon_dataset_newest_snapshot_timestamp_seconds{{{P}}})"),
        ], rename={"Value #A": "Used", "Value #B": "Quota use", "Value #C": "Refquota use",
                   "Value #D": "Held by snapshots", "Value #E": "Snapshots",
                   "Value #F": "Newest snapshot age"},
              height=10,
              description="One row per dataset: quota columns are empty where none is set, "
                          "the age where the dataset has no snapshot."),
        Row("Latency"),
        *latency_panels(),
        heatmap("Read latency on $instance",
                f"sum by (instance, le) (increase(zmon_pool_io_latency_seconds_bucket{{{P}, "
                f'op="read"}}[{RI}]))',
                repeat="instance", width=24,
                description="Read I/Os per latency bucket over time (zpool iostat -w, total "
                            "wait), one heatmap per host: the legend is the bucket bound, "
                            "which the heatmap reads its rows from."),
        Row("Errors and events"),
        bars("New vdev errors", [
            T(f"sum by (instance, pool, vdev) (increase(zmon_vdev_checksum_errors_total{{{P}}}"
              f"[{RI}]))", "{{instance}} {{vdev}} checksum"),
            T(f"sum by (instance, pool, vdev) (increase(zmon_vdev_read_errors_total{{{P}}}"
              f"[{RI}]))", "{{instance}} {{vdev}} read"),
            T(f"sum by (instance, pool, vdev) (increase(zmon_vdev_write_errors_total{{{P}}}"
              f"[{RI}]))", "{{instance}} {{vdev}} write"),
        ], min=0, description="Errors added per interval; a zpool clear shows as nothing."),
        bars("ZFS events", [T(f"sum by (instance, pool, class) (increase("
                              f"zmon_zfs_events_total{{{P}}}[{RI}]))",
                              "{{instance}} {{pool}} {{class}}")],
             min=0, description="zpool events by class (checksum, io, statechange, ...)."),
    ]  # fmt: skip
    return dashboard(
        "zmon-pool",
        "zmon / Pool detail",
        "One host's pools: vdev tree, scrubs and resilvers with ETA, capacity, datasets (quotas, "
        "snapshot age), errors and events.",
        [_job(), _instance(), _pool()],
        items,
    )


def _quota_use(limit: str) -> str:
    """The share of its quota or refquota a dataset uses, as the quota alerts judge it."""
    return drawn(capacity.quota_use(capacity.QUOTA_USED[limit], limit), **POOLS)


def _quantiles(metric: str, by: str, op: str, legend: str) -> list[Query]:
    return [
        T(
            f'histogram_quantile({q}, sum by ({by}, le) (rate({metric}{{{P}, op="{op}"}}[{RI}])))',
            f"{legend} p{int(float(q) * 100)}",
        )
        for q in ("0.5", "0.99")
    ]


def latency_panels() -> list[Panel]:
    """Read and write latency p50/p99 per pool and per top-level vdev, from zmon's
    ``zpool iostat -w`` histograms (total wait: queue plus disk)."""
    panels: list[Panel] = []
    for op in ("read", "write"):
        panels.append(
            timeseries(
                f"{op.capitalize()} latency per pool",
                _quantiles(
                    "zmon_pool_io_latency_seconds_bucket",
                    "instance, pool",
                    op,
                    PL,
                ),
                unit="s",
                min=0,
                width=12,
                description=f"{op.capitalize()} latency percentiles of the pool's leaf I/Os "
                "(queue plus disk).",
            )
        )
    for op in ("read", "write"):
        panels.append(
            timeseries(
                f"{op.capitalize()} latency per top-level vdev",
                _quantiles(
                    "zmon_vdev_io_latency_seconds_bucket",
                    "instance, pool, vdev",
                    op,
                    "{{instance}} {{vdev}}",
                ),
                unit="s",
                min=0,
                width=12,
                description=f"{op.capitalize()} latency percentiles per top-level vdev: one slow "
                "mirror or raidz stands out.",
            )
        )
    return panels


def _record(name: str, selector: str = H) -> str:
    return f"{name}{{{selector}}}"


def why_slow() -> list[Panel | Row]:
    """The "Why is it slow?" row: a pool's latency against its own usual, and beside it what
    could explain it: the ARC (misses, and whether they were ghost hits), the write throttle,
    a scan competing, one vdev or disk slower than its siblings (grafana/README.md)."""
    per_op = [
        timeseries(f"{op.capitalize()} latency p99 against the usual", [
            T(_record(memory.POOL_P99, f'{H}, op="{op}"'), f"{PL} now"),
            T(_record(memory.POOL_USUAL, f'{H}, op="{op}"'), f"{PL} usual"),
        ], unit="s", min=0, width=12,
                   description=f"{op.capitalize()} latency p99 of each pool over the last 5 "
                   "minutes (queue plus disk), against its usual: the median of those 5-minute "
                   "p99s over the last day. Nothing is drawn below 10 I/Os per second.")
        for op in ("read", "write")
    ]  # fmt: skip
    ghost_share = ratios.ARC_GHOST_HITS_PER_ACCESS.record
    return [
        Row("Why is it slow?"),
        *per_op,
        timeseries("Latency against the usual", [
            T(_record(memory.POOL_VS_USUAL), "{{instance}} {{pool}} {{op}}"),
        ], unit="suffix:×", min=0, width=8,
                   thresholds=[(None, "green"), (LIMITS.slowdown_factor, "orange")],
                   description="p99 now divided by the usual p99: 6× means six times slower "
                               "than this pool usually is; the line is where ZfsArcSlowdown "
                               "and zmon status call it slower.")
        .thresholds_style(_threshold_lines()),
        timeseries("ARC hits, and what the misses were", [
            T(_record(ratios.ARC_HIT.record), "{{instance}} hit ratio"),
            T(_record(ghost_share), "{{instance}} ghost hits per access"),
            T(_record(ratios.ARC_GHOST_HITS_PER_MISS.record), "{{instance}} misses that were "
              "ghost hits"),
        ], unit="percentunit", min=0, max=1, width=8,
                   description="All on one axis, over 5 minutes. Ghost hits are reads of blocks "
                               "the ARC had just evicted: when many misses are ghost hits "
                               f"(over {LIMITS.slowdown_ghost_share:.0%}), the slowdown is memory "
                               "(a larger ARC would serve them); when few are, the misses are cold "
                               "reads (the workload)."),
        table("What a larger ARC would buy", [
            I(f"max by (instance) ({_record(ghost_share)})"),
            I(f"max by (instance) ({_record(ratios.ARC_GHOST_SIZE)})"),
            I(f"max by (instance) ({_record('zmon_arc_max_size_bytes')})"),
        ], rename={"Value #A": "Up to this many more reads would hit",
                   "Value #B": "with up to this much more ARC", "Value #C": "ARC max now"},
              width=8, height=8,
              description="Of all reads in the last 5 minutes, the share that were ghost hits: "
                          "with an ARC larger by the ghost lists' size they would have hit. An "
                          "upper bound (grafana/README.md, \"What a larger ARC would buy\").")
        .override_by_name("Up to this many more reads would hit", [unit("percentunit")])
        .override_by_name("with up to this much more ARC", [unit("bytes")])
        .override_by_name("ARC max now", [unit("bytes")]),
        timeseries("Demand and prefetch hit ratios", [
            T(_record(ratios.ARC_DEMAND_HIT.record), "{{instance}} demand"),
            T(_record(ratios.ARC_PREFETCH_HIT.record), "{{instance}} prefetch"),
        ], unit="percentunit", min=0, max=1, width=8,
                   description="Demand reads are what applications wait for; prefetch misses "
                               "cost bandwidth, not latency."),
        timeseries("ARC reads per second", [
            T(f"rate(zmon_arc_hits_total{{{H}}}[{RI}])", "{{instance}} hits"),
            T(f"rate(zmon_arc_misses_total{{{H}}}[{RI}])", "{{instance}} misses"),
            T(f"rate(zmon_arc_mru_ghost_hits_total{{{H}}}[{RI}])", "{{instance}} MRU ghost hits"),
            T(f"rate(zmon_arc_mfu_ghost_hits_total{{{H}}}[{RI}])", "{{instance}} MFU ghost hits"),
        ], unit="ops", min=0, width=8,
                   description="The counters behind the ratios, on a log scale.")
        .scale_distribution(ScaleDistributionConfig().type(ScaleDistribution.LOG).log(10)),
        timeseries("Ghost list sizes", [
            T(f'zmon_arc_state_size_bytes{{{H}, state=~"mru_ghost|mfu_ghost"}}',
              "{{instance}} {{state}}"),
            T(f"zmon_arc_size_bytes{{{H}}}", "{{instance}} ARC size"),
        ], unit="bytes", min=0, width=8,
                   description="The data the ghost lists would hold: how much larger the ARC "
                               "would have to be to serve their hits."),
        timeseries("txg sync and write throttle (p99)", [
            T(f"histogram_quantile(0.99, sum by (instance, pool, le) "
              f"(rate(zmon_pool_txg_sync_duration_seconds_bucket{{{H}}}[{RI}])))",
              f"{PL} txg sync"),
            T(f"histogram_quantile(0.99, sum by (instance, pool, le) "
              f"(rate(zmon_pool_dmu_tx_assign_seconds_bucket{{{H}}}[{RI}])))",
              f"{PL} throttled writes waited"),
        ], unit="s", min=0, width=8,
                   description="Long txg syncs and writes waiting in dmu_tx_wait (dirty data "
                               "at its limit): a write slowdown that no ARC would fix."),
        timeseries("Scan activity", [
            T(_record("zmon:pool_scan_issued_bytes:rate"), f"{PL} scan"),
        ], unit="Bps", min=0, width=8,
                   description="A scrub or resilver issuing I/O competes with reads and writes; "
                               "empty when no scan runs."),
        timeseries("Top-level vdevs against their siblings", [
            T(_record(memory.VDEV_VS_SIBLINGS), "{{instance}} {{pool}} {{vdev}} {{op}}"),
        ], unit="suffix:×", min=0, width=8,
                   thresholds=[(None, "green"), (LIMITS.slowdown_sibling_factor, "orange")],
                   description="Each top-level vdev's p99 divided by the median of its pool's "
                               "top-level vdevs (pools with two or more): one slow mirror or "
                               "raidz stands out; the line is where zmon status calls it a "
                               "slow vdev.")
        .thresholds_style(_threshold_lines()),
        bars("Slow I/Os per disk", [
            T(f"sum by (instance, pool, vdev) (increase(zmon_vdev_slow_ios_total{{{H}}}[{RI}]))",
              "{{instance}} {{pool}} {{vdev}}"),
        ], unit="suffix: slow I/Os", min=0, width=8,
                   description="I/Os ZFS counted as slow (over zio_slow_io_ms, 30 s by default) "
                               "per leaf: the disk behind a slow vdev."),
        timeseries("Pool throughput", [
            T(f"sum by (instance, pool) (rate(zmon_pool_txg_read_bytes_total{{{H}}}[{RI}]))",
              f"{PL} read"),
            T(f"sum by (instance, pool) (rate(zmon_pool_txg_written_bytes_total{{{H}}}[{RI}]))",
              f"{PL} written"),
        ], unit="Bps", min=0, width=8),
    ]  # fmt: skip


def arc() -> dict[str, Any]:
    items: list[Panel | Row] = [
        Row("ARC"),
        timeseries("ARC hit ratio", [T(_record(ratios.ARC_HIT.record), "{{instance}}")],
                   unit="percentunit", min=0, max=1, width=8,
                   description="Hits per access (hits + misses) over 5 minutes."),
        timeseries("ARC size", [T(f"zmon_arc_size_bytes{{{H}}}", "{{instance}} size"),
                                T(f"zmon_arc_target_size_bytes{{{H}}}", "{{instance}} target"),
                                T(f"zmon_arc_max_size_bytes{{{H}}}", "{{instance}} max")],
                   unit="bytes", min=0, width=8),
        timeseries("L2ARC hit ratio", [T(_record(ratios.ARC_L2_HIT.record), "{{instance}}")],
                   unit="percentunit", min=0, max=1, width=8,
                   description="L2ARC hits per L2ARC access over 5 minutes; empty without an "
                               "L2ARC."),
        *why_slow(),
        Row("L2ARC"),
        timeseries("L2ARC size", [T(f"zmon_arc_l2_size_bytes{{{H}}}", "{{instance}}")],
                   unit="bytes", min=0, width=12),
        bars("L2ARC errors", [
            T(f"increase(zmon_arc_l2_io_errors_total{{{H}}}[{RI}])", "{{instance}} I/O"),
            T(f"increase(zmon_arc_l2_checksum_errors_total{{{H}}}[{RI}])", "{{instance}} checksum"),
        ], unit="suffix: errors", min=0, width=12),
    ]  # fmt: skip
    return dashboard(
        "zmon-arc",
        "zmon / ARC and performance",
        "Why is it slow? Each pool's latency against its usual, beside the ARC (hit ratio, "
        "ghost hits per access and per miss, what a larger ARC would buy), the write throttle, "
        "scans and slow vdevs and disks; L2ARC.",
        [_job(), _instance()],
        items,
    )


def disks() -> dict[str, Any]:
    device = query_variable("device", "Disk", f"label_values(zmon_disk_smart_up{{{H}}}, device)")
    items: list[Panel | Row] = [
        table("Disks", [
            I(f"max by (instance, device, model, serial) (zmon_disk_info{{{D}}})"),
            I(f"max by (instance, device, pool, vdev) (zmon:vdev_device:info{{{D}}})"),
            I(f"max by (instance, device) (zmon_disk_smart_passed{{{D}}})"),
            I(f"max by (instance, device) (zmon_disk_temperature_celsius{{{D}}})"),
            I(f"max by (instance, device) (zmon_disk_reallocated_sectors{{{D}}})"),
            I(f"max by (instance, device) (zmon_disk_pending_sectors{{{D}}})"),
            I(f"max by (instance, device) (zmon_disk_crc_errors_total{{{D}}})"),
            I(f"max by (instance, device) (zmon_disk_standby{{{D}}})"),
        ], rename={"Value #C": "SMART passed", "Value #D": "°C", "Value #E": "Reallocated",
                   "Value #F": "Pending", "Value #G": "CRC errors", "Value #H": "Asleep"},
              hide=("Time", "Value #A", "Value #B"), height=10,
              description="One row per disk, with the pool and vdev it serves."),
        timeseries("Temperature", [T(f"zmon_disk_temperature_celsius{{{D}}}", DL)],
                   unit="celsius",
                   thresholds=[(None, "green"), (OWN_LINES["disk 10 °C below its limit"],
                                                 "orange"),
                               (LIMITS.disk_temperature_max, "red")])
        .thresholds_style(_threshold_lines()),
        timeseries("Reallocated and pending sectors", [
            T(f"zmon_disk_reallocated_sectors{{{D}}}", f"{DL} reallocated"),
            T(f"zmon_disk_pending_sectors{{{D}}}", f"{DL} pending"),
            T(f"zmon_disk_offline_uncorrectable_sectors{{{D}}}", f"{DL} uncorrectable"),
        ], min=0),
        bars("CRC errors and link events", [
            T(f"increase(zmon_disk_crc_errors_total{{{D}}}[{RI}])", f"{DL} CRC"),
            T(f"sum by (instance, device, pattern) (increase("
              f"zmon_kernel_log_events_total{{{D}}}[{RI}]))",
              "{{instance}} {{device}} {{pattern}}"),
            T(f"sum by (instance, device, action) (increase("
              f"zmon_disk_hotplug_events_total{{{D}}}[{RI}]))",
              "{{instance}} {{device}} hotplug {{action}}"),
        ], min=0, width=24,
             description="Per-device link trouble: UDMA CRC errors, kernel-log events by "
                         "pattern (link resets, timeouts, medium errors) and hotplug events."),
        timeseries("NVMe wear", [T(f"zmon_disk_nvme_percentage_used_ratio{{{D}}}", DL)],
                   unit="percentunit", min=0, max=1),
        bars("NVMe media errors", [T(f"increase(zmon_disk_nvme_media_errors_total{{{D}}}[{RI}])",
                                    DL)], min=0),
    ]  # fmt: skip
    return dashboard(
        "zmon-disks",
        "zmon / Disks",
        "SMART, temperature, CRC and kernel-log events per disk, joined to vdevs.",
        [_job(), _instance(), device],
        items,
    )


def ups() -> dict[str, Any]:
    ups_var = query_variable("ups", "UPS", f"label_values(zmon_ups_up{{{H}}}, ups)")
    items: list[Panel | Row] = [
        stat("UPS answering", [T(f"zmon_ups_up{{{U}}}", UL)],
             mappings=value_map(("1", "UP", "green"), ("0", "NO ANSWER", "red"))),
        stat("On battery", [T(f'zmon_ups_status{{{U}, flag="OB"}}', UL)],
             mappings=value_map(("0", "MAINS", "green"), ("1", "ON BATTERY", "red"))),
        stat("Battery charge", [T(f"zmon_ups_battery_charge_ratio{{{U}}}", UL)],
             unit="percentunit", thresholds=[(None, "red"),
                                             (OWN_LINES["battery half charged"], "orange"),
                                             (OWN_LINES["battery charged"], "green")]),
        stat("Runtime", [T(f"zmon_ups_battery_runtime_seconds{{{U}}}", UL)], unit="s",
             thresholds=[(None, "red"), (RUNTIME_MIN, "orange"),
                         (OWN_LINES["runtime twice the minimum"], "green")]),
        state_timeline("Status flags", [T(f"zmon_ups_status{{{U}}} == 1", UL + " {{flag}}")],
                       width=24, height=6),
        timeseries("Load", [T(f"zmon_ups_load_ratio{{{U}}}", UL)],
                   unit="percentunit", min=0, width=8),
        timeseries("Input voltage", [T(f"zmon_ups_input_voltage_volts{{{U}}}", UL)],
                   unit="volt", width=8),
        timeseries("Battery runtime", [T(f"zmon_ups_battery_runtime_seconds{{{U}}}", UL)],
                   unit="s", min=0, width=8),
    ]  # fmt: skip
    return dashboard(
        "zmon-ups",
        "zmon / UPS",
        "UPS state, battery, load and input power.",
        [_job(), _instance(), ups_var],
        items,
    )


DASHBOARDS = {
    "zmon-fleet": fleet,
    "zmon-pool": pool,
    "zmon-arc": arc,
    "zmon-disks": disks,
    "zmon-ups": ups,
}
