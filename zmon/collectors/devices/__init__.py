"""The device map as metrics: one ``zmon_disk_device_info`` and one
``zmon_disk_location_info`` series per disk.

The device map itself is shared by every collector that names disks (``Context.device_map``);
this collector shows which names, links and slots a ``device`` label stands for, and where
the disk is: what an alert and ``zmon status`` print so that the right disk gets pulled.
"""

from __future__ import annotations

from zmon.collecting.registry import Collector, NoDataError, Option, register
from zmon.exposition.metrics import MetricSet
from zmon.host.devices import DeviceMap

MAX_DEVICES = 1024


def device_map_metrics(dmap: DeviceMap, limit: int = MAX_DEVICES) -> MetricSet:
    """``zmon_disk_device_info`` for every whole disk backed by hardware (at most ``limit``)."""
    ms = MetricSet()
    disks = dmap.disks()
    for d in disks[:limit]:
        by_id = d.preferred_by_id or ""
        ms.info(
            "zmon_disk_device_info",
            "A disk and the names it goes by, from sysfs, /dev/disk and udev (Linux) or geom "
            "and camcontrol (FreeBSD); always 1",
            {
                "device": d.name,
                "model": d.model or "",
                "serial": d.serial or "",
                "firmware": d.firmware or "",
                "transport": d.transport,
                "ata_port": d.ata_device or d.ata_port or "",
                "scsi_host": d.scsi_host or "",
                "scsi_address": d.scsi_address or "",
                "enclosure_slot": d.enclosure_slot or "",
                "wwn": d.wwn or "",
                "by_id": by_id,
                "by_path": next((p for p in d.by_path if "-part" not in p), ""),
            },
        )
        ms.info(
            "zmon_disk_location_info",
            "Where a disk is: its serial, WWN and by-id link, its enclosure and slot, and the "
            "command that blinks the slot's LED (locate, empty without a slot); always 1 "
            "(/sys/class/enclosure and /dev/disk on Linux, geom and sesutil map on FreeBSD)",
            {
                "device": d.name,
                "serial": d.serial or "",
                "wwn": d.wwn or "",
                "by_id": by_id,
                "by_path": next((p for p in d.by_path if "-part" not in p), ""),
                "enclosure": d.enclosure or "",
                "slot": d.slot or "",
                "locate": d.locate_command or "",
            },
        )
    ms.gauge("zmon_disk_devices", "Whole disks backed by hardware in the device map", len(disks))
    ms.gauge(
        "zmon_disk_devices_dropped",
        "Disks without a zmon_disk_device_info series because of the devices collector's "
        "max_devices",
        max(0, len(disks) - max(0, limit)),
    )
    return ms


@register
class DevicesCollector(Collector):
    name = "devices"
    binaries = ("geom", "camcontrol", "sesutil")  # FreeBSD: the device map
    help = "disk inventory: kernel name, links, model, serial, transport, port, enclosure slot"
    default_interval = 300.0
    default_timeout = 30.0
    options = (
        Option("max_devices", int, MAX_DEVICES, "at most this many disks get an info series"),
    )

    def collect(self) -> MetricSet:
        # Rebuild at most once per run; hotplug events drop the map in between.
        dmap = self.ctx.device_map(max_age=max(1.0, self.default_interval / 2))
        if not dmap.disks():
            raise NoDataError("no disks found (no sysfs block devices or geom disks)")
        limit = self.ctx.options.get("max_devices", MAX_DEVICES)
        return device_map_metrics(dmap, int(limit))
