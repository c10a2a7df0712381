"""zmon watching itself (declarations.py has the conventions): collectors that fail, whose data
went stale or that never had a good run, and the scrape target Prometheus cannot reach or
does not have.

The collector conditions read zmon's own ``zmon_collector_*`` series, which `zmon status` has
too. The target conditions (``TARGET``) read Prometheus' ``up`` of zmon's scrape job: zmon's
own history never has it (it is written by the scraper), so `zmon status` cannot see them of
itself, and ``absent(up)`` would always hold over that history. Only Prometheus judges them.
"""

from __future__ import annotations

from zmon.health.conditions import Condition
from zmon.health.expr import Node, Selector, absent, clamp_min, metric, time
from zmon.health.thresholds import JOB_SELECTOR, Thresholds

HOST = ("instance", "job")
COLLECTOR = ("instance", "job", "collector")
TARGET = ("ZmonTargetDown", "ZmonTargetMissing")  # judged by Prometheus only (see above)


def _stale_after(t: Thresholds) -> Node:
    """A collector's data is stale after this many seconds: as many intervals as
    ``collector_stale_intervals``, and at least ``collector_stale_min``."""
    return clamp_min(
        t.collector_stale_intervals * metric("zmon_collector_interval_seconds"),
        t.collector_stale_min.seconds,
    )


def _up() -> Selector:
    label, _, value = JOB_SELECTOR.partition("=")
    return metric("up", **{label: value.strip('"')})


def collector_conditions(t: Thresholds) -> list[Condition]:
    last_success = metric("zmon_collector_last_success_timestamp_seconds")
    # the uptime of zmon for each of its collectors that has never had a good run (a
    # last-success time of 0: one that hangs from the start, which ZmonCollectorDataStale
    # cannot see), past as many intervals as a stale one
    uptime = (metric("zmon_collector_interval_seconds") * 0).op(
        "+", time() - metric("zmon_start_time_seconds"), on=HOST, group_left=()
    )
    return [
        Condition(
            "ZmonCollectorFailing",
            metric("zmon_collector_success").eq(0),
            "A zmon collector is failing.",
            "Collector {{ $labels.collector }} of zmon on {{ $labels.instance }} fails; its "
            "metrics are stale. See zmon's log.",
            t.collector_failing_for,
        ),
        Condition(
            "ZmonCollectorDataStale",
            (time() - last_success > _stale_after(t)).and_(metric("zmon_collector_has_data").eq(1)),
            "Data from a zmon collector is stale.",
            "Collector {{ $labels.collector }} of zmon on {{ $labels.instance }} last "
            "succeeded {{ $value | humanizeDuration }} ago; alerts on its metrics are blind.",
        ),
        Condition(
            "ZmonCollectorNoData",
            (uptime > _stale_after(t)).and_(last_success.eq(0), on=COLLECTOR),
            "A zmon collector has had no good run since zmon started.",
            "Collector {{ $labels.collector }} of zmon on {{ $labels.instance }} has not "
            "finished one good run since zmon started {{ $value | humanizeDuration }} ago "
            "(a command that hangs, such as zpool on a stuck pool); alerts on its metrics "
            "have seen nothing.",
        ),
    ]


def target_conditions(t: Thresholds) -> list[Condition]:
    return [
        Condition(
            "ZmonTargetDown",
            _up().eq(0),
            "Prometheus cannot scrape zmon.",
            "zmon on {{ $labels.instance }} does not answer scrapes: ZFS, disk and UPS "
            "alerts for that host are blind.",
            t.target_down_for,
        ),
        Condition(
            "ZmonTargetMissing",
            absent(_up()),
            "Prometheus scrapes no zmon target.",
            "Prometheus scrapes no target of job {{ $labels.job }} (selector "
            f"{JOB_SELECTOR}): ZFS, disk and UPS alerts see nothing. "
            "Check the scrape configuration.",
            t.target_down_for,
        ),
    ]


def self_conditions(t: Thresholds) -> list[Condition]:
    """The zmon-self group, in order."""
    return [*collector_conditions(t), *target_conditions(t)]
