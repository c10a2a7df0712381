"""zmon's recording and alerting rules, as data rendered from one thresholds table.

Conventions: alert names are CamelCase with a Zfs/Disk/Ups/Zmon prefix; severity is critical
(act now: data or availability at risk), warning (act within the day) or info (tuning). Every
alert has a static summary, a templated description naming host, pool, vdev and device where
they apply, and a runbook_url pointing at its section of RUNBOOK.md.
"""

from __future__ import annotations

from alert_rules.building import (
    Alert,
    Group,
    Record,
    fill_alert,
    hysteresis,
    x,
)
from alert_rules.datasets import dataset_alerts
from alert_rules.slowdown import ARC_ACCESSES, arc_records, slowdown_group
from alert_rules.zmon_state import zmon_state_alerts
from zmon.judgment import declarations, disks, host, integrity
from zmon.judgment.thresholds import JOB_SELECTOR, Thresholds
from zmon.judgment.words import POOL
from zmon.status.ratios import ARC_GHOST_HITS_PER_ACCESS


def recording_rules(t: Thresholds) -> Group:
    """Records that several groups join with. A record used by one group's alerts lives in
    that group, before them: rules of a group run in order, so the alerts see fresh values."""
    return Group("zmon-recording", [Record.of(r) for r in declarations.shared_records(t)])


CAPACITY_RECORDS = [
    Record("zmon:pool_capacity:ratio", "zmon_pool_allocated_bytes / (zmon_pool_size_bytes > 0)"),
]


def scan_records(t: Thresholds) -> list[Record]:
    running = "(max by (instance, job, pool) (zmon_pool_scan_in_progress) == 1)"
    return [
        Record(
            "zmon:pool_scan_elapsed:seconds",
            x(f"""
            (time() - zmon_pool_scan_start_time_seconds)
            and on(instance, job, pool) {running}
        """),
        ),
        Record(
            "zmon:pool_scan_issued_bytes:rate",
            x(f"""
            rate(zmon_pool_scan_issued_bytes[{t.resilver_rate_window}])
            and on(instance, job, pool) {running}
        """),
        ),
        Record(
            "zmon:pool_scan_eta:seconds",
            x("""
            (
              (zmon_pool_scan_to_issue_bytes or zmon_pool_scan_to_examine_bytes)
              - zmon_pool_scan_issued_bytes
            )
            / (zmon:pool_scan_issued_bytes:rate > 0)
        """),
        ),
    ]


def pool_alerts(t: Thresholds) -> Group:
    return Group("zmon-pools", [Alert.of(c) for c in declarations.pool_conditions(t)])


def stuck_alerts(t: Thresholds) -> Group:
    return Group("zmon-stuck", [Alert.of(integrity.stuck(t))])


def integrity_alerts(t: Thresholds) -> Group:
    return Group(
        "zmon-integrity",
        [
            Record.of(integrity.VDEV_ERRORS),
            *(Alert.of(c) for c in integrity.integrity_conditions(t)),
        ],
    )


def scan_alerts(t: Thresholds) -> Group:
    stall = t.resilver_stall_window
    return Group(
        "zmon-scans",
        [
            *scan_records(t),
            Alert(
                "ZfsResilverStalled",
                x(f"""
            zmon_pool_scan_in_progress{{function=~"resilver|rebuild"}} == 1
            unless on(instance, job, pool) (zmon_pool_scan_paused == 1)
            and on(instance, job, pool) (changes(zmon_pool_scan_issued_bytes[{stall}]) == 0)
            and on(instance, job, pool) (zmon_pool_scan_issued_bytes offset {stall})
            and on(instance, job, pool)
            (time() - zmon_pool_scan_start_time_seconds > {stall.seconds})
            unless on(instance, job, pool)
            (changes(zmon_pool_scan_examined_bytes[{stall}]) > 0)
            unless on(instance, job)
            (max_over_time(zmon_collector_stale{{collector="zpool"}}[{stall}]) == 1)
        """),
                "A ZFS resilver has stopped making progress.",
                f"The {{{{ $labels.function }}}} of {POOL} has neither examined nor issued any "
                f"bytes for {stall} and is not paused, while zpool status answers; the pool stays "
                "without redundancy until it completes.",
                str(t.resilver_stall_for),
            ),
            Alert(
                "ZfsResilverSlow",
                x(f"""
            (zmon:pool_scan_elapsed:seconds + zmon:pool_scan_eta:seconds)
            > {t.resilver_slow_factor} * zmon:pool_scan_elapsed:seconds
              * (zmon_pool_scan_to_issue_bytes or zmon_pool_scan_to_examine_bytes)
              / (zmon_pool_scan_issued_bytes > 0)
            and on(instance, job, pool)
            (zmon_pool_scan_in_progress{{function=~"resilver|rebuild"}} == 1)
            and on(instance, job, pool)
            (zmon:pool_scan_elapsed:seconds > {t.resilver_slow_min_age.seconds})
        """),
                "A ZFS resilver will take far longer than its own average rate predicts.",
                f"At its rate over the last {t.resilver_rate_window}, the resilver of {POOL} "
                f"would take {{{{ $value | humanizeDuration }}}} in all, more than "
                f"{t.resilver_slow_factor:g} times what its average rate so far predicts. "
                "Look for a slow or failing disk and competing load.",
                str(t.resilver_slow_for),
            ),
            Alert(
                "ZfsScrubOverdue",
                x(f"""
            (
              time() - zmon_pool_last_scrub_end_time_seconds > {t.scrub_max_age.seconds}
              or
              (
                time() - zmon_pool_creation_time_seconds > {t.scrub_max_age.seconds}
                unless on(instance, job, pool) zmon_pool_last_scrub_end_time_seconds
                and on(instance, job, pool) zmon_pool_state
              )
            )
            unless on(instance, job, pool) (zmon_pool_scan_in_progress{{function="scrub"}} == 1)
        """),
                "A ZFS pool has not been scrubbed recently, or never.",
                '{{ with printf "zmon_pool_last_scrub_end_time_seconds{instance=%q,pool=%q}" '
                "$labels.instance $labels.pool | query }}The last completed scrub of "
                f"{POOL} ended {{{{ $value | humanizeDuration }}}} ago{{{{ else }}}}ZFS {POOL} "
                "was created {{ $value | humanizeDuration }} ago and has never been scrubbed"
                f"{{{{ end }}}} (limit {t.scrub_max_age}). Run or schedule "
                f"zpool scrub {{{{ $labels.pool }}}}.",
                str(t.scrub_overdue_for),
            ),
            Alert(
                "ZfsScrubFoundErrors",
                x(f"""
            (
              zmon_pool_scan_errors > 0
              or on(instance, job, pool)
              zmon_pool_scan_processed_bytes > 0
            )
            and on(instance, job, pool)
            zmon_pool_scan_info{{function="scrub", state="finished"}}
            and on(instance, job, pool)
            (time() - zmon_pool_last_scrub_end_time_seconds < {t.scrub_errors_max_age.seconds})
            and on(instance, job, pool)
            (
              sum by (instance, job, pool) (
                zmon_vdev_read_errors_total + zmon_vdev_write_errors_total
                + zmon_vdev_checksum_errors_total
              ) > 0
              or zmon_pool_data_errors > 0
              or zmon_pool_data_errors_present == 1
            )
        """),
                "The last ZFS scrub found errors.",
                f"The last scrub of {POOL} found damaged data (repaired, or errors it could not "
                "repair). Check zpool status -v {{ $labels.pool }} and the vdev error counters. "
                "The alert ends when zpool clear resets them, or "
                f"{t.scrub_errors_max_age} after the scrub.",
            ),
        ],
    )


def capacity_alerts(t: Thresholds) -> Group:
    def level(name: str, on: float, off: float, summary: str, above: str, rest: str) -> Alert:
        """Fires above ``on``, clears below ``off`` (hysteresis)."""
        return fill_alert(
            name,
            hysteresis("zmon:pool_capacity:ratio", name, on, off),
            summary,
            subject=f"ZFS {POOL} is",
            filled="full",
            bounds=f"{above} {on:.0%}, clears below {off:.0%}",
            consequence=rest,
            for_=t.capacity_for,
        )

    return Group(
        "zmon-capacity",
        [
            *CAPACITY_RECORDS,
            level(
                "ZfsPoolCapacityWarning",
                t.capacity_warning_on,
                t.capacity_warning_off,
                "A ZFS pool is filling up.",
                "warns above",
                ".",
            ),
            level(
                "ZfsPoolCapacityCritical",
                t.capacity_critical_on,
                t.capacity_critical_off,
                "A ZFS pool is nearly full.",
                "above",
                "; writes slow down sharply and will fail when it is full.",
            ),
            Alert(
                "ZfsPoolFragmentationHigh",
                f"zmon_pool_fragmentation_ratio > {t.fragmentation_max}",
                "A ZFS pool's free space is highly fragmented.",
                f"Free space of {POOL} is {{{{ $value | humanizePercentage }}}} fragmented; "
                "allocation and writes slow down, worse as the pool fills.",
                str(t.fragmentation_for),
            ),
        ],
    )


def memory_alerts(t: Thresholds) -> Group:
    w = t.error_window
    return Group(
        "zmon-memory",
        [
            *arc_records(),
            Alert(
                "ZfsDedupTableTooLarge",
                x(f"""
            zmon_pool_ddt_in_core_bytes
            / on(instance, job) group_left() (zmon_arc_max_size_bytes > 0)
            > {t.ddt_arc_share_max}
        """),
                "A ZFS dedup table takes a large share of the ARC.",
                f"The dedup table of {POOL} needs {{{{ $value | humanizePercentage }}}} of the "
                f"ARC maximum in memory (limit {t.ddt_arc_share_max:.0%}); it will crowd out "
                "cached data and slow every write.",
            ),
            Alert(
                "ZfsArcGhostHitsHigh",
                x(f"""
            {ARC_GHOST_HITS_PER_ACCESS.record} > {t.arc_ghost_hit_ratio_max}
            and on(instance, job) {ARC_ACCESSES} > {t.arc_min_ops}
        """),
                "ZFS ARC ghost hits are high: the ARC looks too small.",
                "On {{ $labels.instance }}, ghost hits are {{ $value | humanizePercentage }} "
                "of ARC accesses: recently evicted blocks are read again. A larger ARC "
                "(zfs_arc_max) or an L2ARC would serve them.",
                str(t.arc_for),
            ),
            Alert(
                "ZfsL2arcErrors",
                x(f"""
            increase(zmon_arc_l2_io_errors_total[{w}]) > 0
            or increase(zmon_arc_l2_checksum_errors_total[{w}]) > 0
        """),
                "The ZFS L2ARC device returned I/O or checksum errors.",
                "The L2ARC (cache) device on {{ $labels.instance }} returned errors in the last "
                f"{w}. ZFS falls back to the pool, but check the cache device.",
            ),
        ],
    )


def disk_alerts(t: Thresholds) -> Group:
    return Group(
        "zmon-disks",
        [
            Record.of(declarations.DISK_REDUNDANCY),
            *(Record.of(r) for r in declarations.sas_records(t)),
            *(Alert.of(c) for c in declarations.cable_conditions(t)),
            *(Alert.of(c) for c in disks.disk_conditions(t)),
        ],
    )


def ups_alerts(t: Thresholds) -> Group:
    return Group("zmon-ups", [Alert.of(c) for c in host.ups_conditions(t)])


def zmon_alerts(t: Thresholds) -> Group:
    return Group(
        "zmon-self",
        [
            Alert(
                "ZmonCollectorFailing",
                "zmon_collector_success == 0",
                "A zmon collector is failing.",
                "Collector {{ $labels.collector }} of zmon on {{ $labels.instance }} fails; its "
                "metrics are stale. See zmon's log.",
                str(t.collector_failing_for),
            ),
            Alert(
                "ZmonCollectorDataStale",
                x(f"""
            time() - zmon_collector_last_success_timestamp_seconds
            > clamp_min(
                {t.collector_stale_intervals} * zmon_collector_interval_seconds,
                {t.collector_stale_min.seconds}
              )
            and zmon_collector_has_data == 1
        """),
                "Data from a zmon collector is stale.",
                "Collector {{ $labels.collector }} of zmon on {{ $labels.instance }} last "
                "succeeded {{ $value | humanizeDuration }} ago; alerts on its metrics are blind.",
            ),
            Alert(
                "ZmonCollectorNoData",
                # the uptime of zmon for each of its collectors that has never had a good run
                # (a last-success time of 0: one that hangs from the start, which
                # ZmonCollectorDataStale cannot see), past as many intervals as a stale one
                x(f"""
            zmon_collector_interval_seconds * 0
            + on(instance, job) group_left() (time() - zmon_start_time_seconds)
            > clamp_min(
                {t.collector_stale_intervals} * zmon_collector_interval_seconds,
                {t.collector_stale_min.seconds}
              )
            and on(instance, job, collector)
            zmon_collector_last_success_timestamp_seconds == 0
        """),
                "A zmon collector has had no good run since zmon started.",
                "Collector {{ $labels.collector }} of zmon on {{ $labels.instance }} has not "
                "finished one good run since zmon started {{ $value | humanizeDuration }} ago "
                "(a command that hangs, such as zpool on a stuck pool); alerts on its metrics "
                "have seen nothing.",
            ),
            Alert(
                "ZmonTargetDown",
                f"up{{{JOB_SELECTOR}}} == 0",
                "Prometheus cannot scrape zmon.",
                "zmon on {{ $labels.instance }} does not answer scrapes: ZFS, disk and UPS "
                "alerts for that host are blind.",
                str(t.target_down_for),
            ),
            Alert(
                "ZmonTargetMissing",
                f"absent(up{{{JOB_SELECTOR}}})",
                "Prometheus scrapes no zmon target.",
                "Prometheus scrapes no target of job {{ $labels.job }} (selector "
                f"{JOB_SELECTOR}): ZFS, disk and UPS alerts see nothing. "
                "Check the scrape configuration.",
                str(t.target_down_for),
            ),
        ],
    )


def groups(t: Thresholds) -> list[Group]:
    return [
        recording_rules(t),
        pool_alerts(t),
        stuck_alerts(t),
        integrity_alerts(t),
        scan_alerts(t),
        capacity_alerts(t),
        dataset_alerts(t),
        memory_alerts(t),
        slowdown_group(t),
        disk_alerts(t),
        ups_alerts(t),
        zmon_alerts(t),
        zmon_state_alerts(t),
    ]


def alerts(t: Thresholds) -> list[Alert]:
    return [r for g in groups(t) for r in g.rules if isinstance(r, Alert)]
