"""The synthetic host's disks as they judge themselves (smartctl and the kernel log), for the
disk-health declarations: sdc fails SMART after it left tank (its pool label remembered for
an hour, then gone); sdf, a SATA disk in no pool, runs hot, gains pending and offline-
uncorrectable sectors and logs a medium error, its link speed unknown (0); sdg, a SAS disk in
no pool, grows defects twice; sda's link runs at half speed, asleep for a while (which resets
the alert's for:); sde runs hot, asleep for a while too; nvme0n1 (pool fast) counts media
errors; nvme1n1, in no pool, wears past the limit and raises its critical warning."""

from __future__ import annotations

from collections.abc import Callable

from tests.health import scenario as base

SATA = ("sda", "sdb", "sdc", "sdd", "sde", "sdf")
SAS = ("sdg",)
NVME = ("nvme0n1", "nvme1n1")
SATA_SPEED, SAS_SPEED = 600e6, 1.2e9  # bytes per second: 6 Gb/s SATA, 12 Gb/s SAS


def _between(a: int, b: int, inside: float, outside: float) -> Callable[[int], float]:
    return lambda i: inside if a <= i < b else outside


def _always(value: float) -> Callable[[int], float]:
    return lambda i: value


def _step(at: int, before: float, after: float) -> Callable[[int], float]:
    return lambda i: after if i >= at else before


def add(out: base.Series) -> None:
    """The disk-health series of the synthetic host, added to ``out``."""
    for device in (*SATA, *SAS, *NVME):
        passed = _step(110, 1.0, 0.0) if device == "sdc" else _always(1.0)
        base._series(out, "zmon_disk_smart_passed", {"device": device}, passed)
        hot = {"sdf": _between(60, 100, 65.0, 38.0), "sde": _between(130, 175, 62.0, 36.0)}
        base._series(out, "zmon_disk_temperature_celsius", {"device": device},
                     hot.get(device, _always(35.0)))  # fmt: skip
    for device in (*SATA, *SAS):
        asleep = {"sda": _between(70, 75, 1.0, 0.0), "sde": _between(145, 150, 1.0, 0.0)}
        base._series(out, "zmon_disk_standby", {"device": device},
                     asleep.get(device, _always(0.0)))  # fmt: skip
        top = SAS_SPEED if device in SAS else SATA_SPEED
        speed = {"sda": _between(20, 120, SATA_SPEED / 2, SATA_SPEED), "sdf": _always(0.0)}
        base._series(out, "zmon_disk_interface_speed_bytes", {"device": device},
                     speed.get(device, _always(top)))  # fmt: skip
        base._series(out, "zmon_disk_interface_max_speed_bytes", {"device": device},
                     _always(top))  # fmt: skip
    # sdf's media (tank's disks have theirs in scenario.py)
    base._series(out, "zmon_disk_reallocated_sectors", {"device": "sdf"}, _always(0.0))
    base._series(out, "zmon_disk_pending_sectors", {"device": "sdf"}, _step(80, 0.0, 2.0))
    base._series(out, "zmon_disk_offline_uncorrectable_sectors", {"device": "sdf"},
                 _step(90, 0.0, 1.0))  # fmt: skip
    base._series(out, "zmon_kernel_log_events_total", {"device": "sdf", "pattern": "medium_error"},
                 base._counter({85: 1}))  # fmt: skip
    base._series(out, "zmon_disk_scsi_grown_defects", {"device": "sdg"},
                 lambda i: 0.0 if i < 30 else 2.0 if i < 150 else 3.0)  # fmt: skip
    # the NVMe drives
    base._series(out, "zmon_disk_nvme_media_errors_total", {"device": "nvme0n1"},
                 base._counter({100: 3}))  # fmt: skip
    base._series(out, "zmon_disk_nvme_media_errors_total", {"device": "nvme1n1"},
                 base._counter({}))  # fmt: skip
    base._series(out, "zmon_disk_nvme_critical_warning", {"device": "nvme0n1"}, _always(0.0))
    base._series(out, "zmon_disk_nvme_critical_warning", {"device": "nvme1n1"},
                 _step(120, 0.0, 4.0))  # fmt: skip
    base._series(out, "zmon_disk_nvme_percentage_used_ratio", {"device": "nvme0n1"},
                 _always(0.1))  # fmt: skip
    base._series(out, "zmon_disk_nvme_percentage_used_ratio", {"device": "nvme1n1"},
                 _step(60, 0.89, 0.92))  # fmt: skip
