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
    rise,
    with_pool,
    x,
)
from alert_rules.zmon_state import zmon_state_alerts
from zmon.judgment import capacity, declarations, host, integrity, memory, scans, self_watch
from zmon.judgment.thresholds import Thresholds
from zmon.judgment.words import DISK, DISK_, DISK_LOCATION


def recording_rules(t: Thresholds) -> Group:
    """Records that several groups join with. A record used by one group's alerts lives in
    that group, before them: rules of a group run in order, so the alerts see fresh values."""
    return Group("zmon-recording", [Record.of(r) for r in declarations.shared_records(t)])


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
    return Group(
        "zmon-scans",
        [
            *(Record.of(r) for r in scans.scan_records(t)),
            *(Alert.of(c) for c in scans.scan_conditions(t)),
        ],
    )


def capacity_alerts(t: Thresholds) -> Group:
    return Group(
        "zmon-capacity",
        [Record.of(capacity.CAPACITY), *(Alert.of(c) for c in capacity.capacity_conditions(t))],
    )


def dataset_alerts(t: Thresholds) -> Group:
    return Group("zmon-datasets", [Alert.of(c) for c in capacity.dataset_conditions(t)])


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
