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
    rise,
    with_pool,
    x,
)
from alert_rules.datasets import dataset_alerts
from alert_rules.zmon_state import zmon_state_alerts
from zmon.judgment import declarations, host, integrity, memory, self_watch
from zmon.judgment.thresholds import Thresholds
from zmon.judgment.words import DISK, DISK_, DISK_LOCATION, POOL


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
    return Group(
        "zmon-memory",
        [
            *(Record.of(r) for r in memory.arc_records()),
            *(Alert.of(c) for c in memory.memory_conditions(t)),
        ],
    )


def slowdown_group(t: Thresholds) -> Group:
    """The latency records and the alert that reads them, in a group of their own (the ARC
    records stay with the memory alerts that read them, so those see fresh values)."""
    records = [Record.of(r) for r in memory.latency_records(t)]
    return Group("zmon-slowdown", [*records, Alert.of(memory.arc_slowdown(t))])


def disk_alerts(t: Thresholds) -> Group:
    cw, sw = t.cable_window, t.sector_window
    awake = "unless on(instance, job, device) (zmon_disk_standby == 1)"
    return Group(
        "zmon-disks",
        [
            Record.of(declarations.DISK_REDUNDANCY),
            *(Record.of(r) for r in declarations.sas_records(t)),
            *(Alert.of(c) for c in declarations.cable_conditions(t)),
            Alert(
                "DiskSmartFailed",
                with_pool("zmon_disk_smart_passed == 0"),
                "A disk failed its SMART overall health self-assessment.",
                f"{DISK_} reports SMART health FAILED. Replace it{DISK_LOCATION}.",
            ),
            Alert(
                "DiskReallocatedSectorsRising",
                with_pool(
                    x(f"""
            {rise("zmon_disk_reallocated_sectors", sw)} > 0
            or {rise("zmon_disk_scsi_grown_defects", sw)} > 0
        """)
                ),
                "A disk is reallocating sectors.",
                f"{DISK_} remapped {{{{ $value | humanize }}}} more sectors in the last {sw}. "
                f"Plan its replacement{DISK_LOCATION}.",
            ),
            Alert(
                "DiskPendingSectorsRising",
                with_pool(
                    x(f"""
            {rise("zmon_disk_pending_sectors", sw)} > 0
            or {rise("zmon_disk_offline_uncorrectable_sectors", sw)} > 0
        """)
                ),
                "A disk has new pending or uncorrectable sectors.",
                f"{DISK_} has {{{{ $value | humanize }}}} more pending or offline-uncorrectable "
                f"sectors than at its lowest in the last {sw}: sectors it cannot read. "
                f"Scrub the pool and plan the disk's replacement{DISK_LOCATION}.",
            ),
            Alert(
                "DiskNvmeMediaErrors",
                with_pool(f"increase(zmon_disk_nvme_media_errors_total[{sw}]) > 0"),
                "An NVMe drive reported new media errors.",
                f"{DISK_} had {{{{ $value | humanize }}}} new NVMe media and data integrity "
                f"errors in the last {sw}{DISK_LOCATION}.",
            ),
            Alert(
                "DiskMediumErrors",
                with_pool(
                    x(f"""
            sum by (instance, job, device) (
              increase(zmon_kernel_log_events_total{{pattern="medium_error"}}[{cw}])
            ) > 0
        """)
                ),
                "The kernel logged medium errors for a disk.",
                f"The kernel logged {{{{ $value | humanize }}}} medium errors for {DISK} in the "
                f"last {cw}: the disk could not read a sector{DISK_LOCATION}.",
            ),
            Alert(
                "DiskTemperatureHigh",
                with_pool(f"zmon_disk_temperature_celsius > {t.disk_temperature_max:g}\n{awake}"),
                "A disk is running hot.",
                f"{DISK_} is at {{{{ $value }}}} °C (limit {t.disk_temperature_max:g} °C). "
                "Check fans, airflow and the room.",
                str(t.disk_temperature_for),
            ),
            Alert(
                "DiskNvmeCriticalWarning",
                with_pool("zmon_disk_nvme_critical_warning > 0"),
                "An NVMe drive raised its critical warning flag.",
                f"{DISK_} reports NVMe critical warning bits {{{{ $value }}}} (spare low, "
                f"temperature, reliability degraded, read-only or backup failed){DISK_LOCATION}.",
            ),
            Alert(
                "DiskNvmeWearHigh",
                with_pool(f"zmon_disk_nvme_percentage_used_ratio > {t.nvme_used_max}"),
                "An NVMe drive is near the end of its rated endurance.",
                f"{DISK_} has used {{{{ $value | humanizePercentage }}}} of its rated endurance. "
                f"Plan its replacement{DISK_LOCATION}.",
            ),
            Alert(
                "DiskLinkSpeedDegraded",
                with_pool(
                    x(f"""
            zmon_disk_interface_speed_bytes > 0
            < on(instance, job, device) zmon_disk_interface_max_speed_bytes
            {awake}
        """)
                ),
                "A disk's link runs below its maximum speed.",
                f"{DISK_} negotiated {{{{ $value | humanize }}}}B/s, below the speed it supports: "
                f"often a bad cable or backplane port. Reseat or replace the cable{DISK_LOCATION}.",
                str(t.link_speed_for),
            ),
        ],
    )


def ups_alerts(t: Thresholds) -> Group:
    return Group("zmon-ups", [Alert.of(c) for c in host.ups_conditions(t)])


def zmon_alerts(t: Thresholds) -> Group:
    return Group("zmon-self", [Alert.of(c) for c in self_watch.self_conditions(t)])


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
