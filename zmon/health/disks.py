"""The disk-health family: what a disk says of its own media and condition (declarations.py
has the conventions, and the cable family next to it).

SMART overall health, reallocated (SCSI grown defects), pending and offline-uncorrectable
sectors rising, NVMe media errors, critical warning and wear, kernel-logged medium errors, a
disk running hot and a link negotiated below its maximum speed. Each alert is per disk
(instance, job, device) with the pool it served over ``disk_pool_memory``
(``zmon:disk_pool:info``), or no pool for a disk that served none. A disk asleep
(``zmon_disk_standby``: its check was skipped, its SMART values are the last ones read) is not
judged on its temperature or link speed.
"""

from __future__ import annotations

from zmon.health.conditions import Condition
from zmon.health.declarations import DEVICE, disk_pool, rise, with_disk_scope
from zmon.health.expr import Node, increase, metric, sum_by
from zmon.health.thresholds import Thresholds
from zmon.health.words import DISK, DISK_, DISK_LOCATION


def with_pool(t: Thresholds, expr: Node) -> Node:
    """Per-device ``expr`` with the pool the disk served (or none, if it served none)."""
    return with_disk_scope(expr, disk_pool(t))


def sectors_rising(t: Thresholds, first: str, other: str) -> Node:
    """Per-device: how much sector count ``first``, or else ``other``, rose over the sector
    window (only where one of them rose)."""
    sw = t.sector_window
    return with_pool(t, (rise(first, sw) > 0).or_(rise(other, sw) > 0))


def awake(expr: Node) -> Node:
    """Per-device ``expr`` for the disks not in standby."""
    return expr.unless(metric("zmon_disk_standby").eq(1), on=DEVICE)


def disk_conditions(t: Thresholds) -> list[Condition]:
    """The disk-health alerts, in the rule file's order."""
    sw, cw = t.sector_window, t.cable_window
    medium_errors = metric("zmon_kernel_log_events_total", pattern="medium_error")
    return [
        Condition(
            "DiskSmartFailed",
            with_pool(t, metric("zmon_disk_smart_passed").eq(0)),
            "A disk failed its SMART overall health self-assessment.",
            f"{DISK_} reports SMART health FAILED. Replace it{DISK_LOCATION}.",
        ),
        Condition(
            "DiskReallocatedSectorsRising",
            sectors_rising(t, "zmon_disk_reallocated_sectors", "zmon_disk_scsi_grown_defects"),
            "A disk is reallocating sectors.",
            f"{DISK_} remapped {{{{ $value | humanize }}}} more sectors in the last {sw}. "
            f"Plan its replacement{DISK_LOCATION}.",
        ),
        Condition(
            "DiskPendingSectorsRising",
            sectors_rising(
                t, "zmon_disk_pending_sectors", "zmon_disk_offline_uncorrectable_sectors"
            ),
            "A disk has new pending or uncorrectable sectors.",
            f"{DISK_} has {{{{ $value | humanize }}}} more pending or offline-uncorrectable "
            f"sectors than at its lowest in the last {sw}: sectors it cannot read. "
            f"Scrub the pool and plan the disk's replacement{DISK_LOCATION}.",
        ),
        Condition(
            "DiskNvmeMediaErrors",
            with_pool(t, increase(metric("zmon_disk_nvme_media_errors_total").at(sw)) > 0),
            "An NVMe drive reported new media errors.",
            f"{DISK_} had {{{{ $value | humanize }}}} new NVMe media and data integrity "
            f"errors in the last {sw}{DISK_LOCATION}.",
        ),
        Condition(
            "DiskMediumErrors",
            with_pool(t, sum_by(DEVICE, increase(medium_errors.at(cw))) > 0),
            "The kernel logged medium errors for a disk.",
            f"The kernel logged {{{{ $value | humanize }}}} medium errors for {DISK} in the "
            f"last {cw}: the disk could not read a sector{DISK_LOCATION}.",
        ),
        Condition(
            "DiskTemperatureHigh",
            with_pool(t, awake(metric("zmon_disk_temperature_celsius") > t.disk_temperature_max)),
            "A disk is running hot.",
            f"{DISK_} is at {{{{ $value }}}} °C (limit {t.disk_temperature_max:g} °C). "
            "Check fans, airflow and the room.",
            t.disk_temperature_for,
        ),
        Condition(
            "DiskNvmeCriticalWarning",
            with_pool(t, metric("zmon_disk_nvme_critical_warning") > 0),
            "An NVMe drive raised its critical warning flag.",
            f"{DISK_} reports NVMe critical warning bits {{{{ $value }}}} (spare low, "
            f"temperature, reliability degraded, read-only or backup failed){DISK_LOCATION}.",
        ),
        Condition(
            "DiskNvmeWearHigh",
            with_pool(t, metric("zmon_disk_nvme_percentage_used_ratio") > t.nvme_used_max),
            "An NVMe drive is near the end of its rated endurance.",
            f"{DISK_} has used {{{{ $value | humanizePercentage }}}} of its rated endurance. "
            f"Plan its replacement{DISK_LOCATION}.",
        ),
        Condition(
            "DiskLinkSpeedDegraded",
            with_pool(
                t,
                awake(
                    (metric("zmon_disk_interface_speed_bytes") > 0).op(
                        "<", metric("zmon_disk_interface_max_speed_bytes"), on=DEVICE
                    )
                ),
            ),
            "A disk's link runs below its maximum speed.",
            f"{DISK_} negotiated {{{{ $value | humanize }}}}B/s, below the speed it supports: "
            f"often a bad cable or backplane port. Reseat or replace the cable{DISK_LOCATION}.",
            t.link_speed_for,
        ),
    ]
