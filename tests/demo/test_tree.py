"""The demo tree looks like the lab VM: sysfs block devices, /dev/disk links, recordings."""

from __future__ import annotations

import os
import shlex
import time

from tests.demo.conftest import collect, demo_config
from zmon.base.runner import StaticRunner
from zmon.collecting.registry import Context
from zmon.collectors.hotplug import HotplugCollector
from zmon.demo.host import DATA, DemoHost
from zmon.demo.timeline import PHASES
from zmon.host.devices import DeviceMap

DISKS = ["nvme0n1", "nvme1n1", "sda", "sdb", "sdc", "sdd", "vda", "vdb", "vdc", "vdd", "vde", "vdf"]


def test_sys_block_lists_the_lab_vms_block_devices(demo_host: DemoHost) -> None:
    assert sorted(os.listdir(demo_host.paths.sys("block"))) == sorted([*DISKS, "zd0"])
    sdb = demo_host.paths.sys("block", "sdb")
    assert os.readlink(sdb) == (
        "../devices/pci0000:00/0000:00:05.0/ata2/host1/target1:0:0/1:0:0:0/block/sdb"
    )
    assert (sdb / "dev").read_text() == "8:16\n"
    assert (sdb / "size").read_text() == "2097152\n"  # 1 GiB in 512-byte sectors
    assert (sdb / "queue" / "rotational").read_text() == "1\n"
    assert (sdb / "device" / "model").read_text() == "QEMU HARDDISK   \n"
    assert (sdb / "sdb1" / "partition").read_text() == "1\n"
    nvme = demo_host.paths.sys("block", "nvme0n1")
    assert (nvme / "device" / "serial").read_text().strip() == "ZLNVME0"
    assert (nvme / "queue" / "rotational").read_text() == "0\n"
    assert (demo_host.paths.sys("block", "vdd") / "serial").read_text() == "ZLVIRT3\n"


def test_device_map_has_every_disk_with_its_partitions(demo_host: DemoHost) -> None:
    dmap = DeviceMap.build(demo_host.paths)
    assert [d.name for d in dmap.disks()] == DISKS  # zd0 (a zvol) is no disk
    sdb = dmap.get("sdb")
    assert sdb is not None
    assert sdb.partitions == ("sdb1", "sdb9")
    assert (sdb.transport, sdb.ata_port, sdb.ata_device) == ("sata", "ata2", "ata2.00")
    assert (sdb.model, sdb.serial, sdb.firmware) == ("QEMU HARDDISK", "ZLSATA1", "2.5+")
    nvme = dmap.get("nvme1n1")
    assert nvme is not None
    assert (nvme.transport, nvme.nvme_controller, nvme.partitions) == (
        "nvme",
        "nvme1",
        ("nvme1n1p1", "nvme1n1p9"),
    )


def test_every_name_of_the_faulty_disk_resolves_to_sdb(demo_host: DemoHost) -> None:
    dmap = DeviceMap.build(demo_host.paths)
    for name in (
        "ata2",
        "ata2.00",
        "1:0:0:0",
        "sd 1:0:0:0",
        "sdb1",
        "/dev/sdb",
        "ata-QEMU_HARDDISK_ZLSATA1",
        "ata-QEMU_HARDDISK_ZLSATA1-part1",
        "/dev/disk/by-id/ata-QEMU_HARDDISK_ZLSATA1-part1",
        "pci-0000:00:05.0-ata-2",
    ):
        assert dmap.resolve(name) == "sdb", name
    assert dmap.resolve("ata1") == "sda"
    assert dmap.resolve("/dev/nvme0") == "nvme0n1"
    assert dmap.resolve("nvme-QEMU_NVMe_Ctrl_ZLNVME1-part1") == "nvme1n1"
    assert dmap.resolve("virtio-ZLVIRT3") == "vdd"
    assert dmap.resolve("ata5") is None  # an empty port


def test_devices_collector_reports_every_disk(demo_host: DemoHost) -> None:
    ms = collect(demo_host, "devices")
    assert ms.sample_value("zmon_disk_devices") == len(DISKS)
    for disk in DISKS:
        assert ms.sample_value("zmon_disk_device_info", {"device": disk}) == 1, disk
    for i, disk in enumerate(["sda", "sdb", "sdc", "sdd"]):
        labels = {"device": disk, "transport": "sata", "ata_port": f"ata{i + 1}.00",
                  "scsi_address": f"{i}:0:0:0", "serial": f"ZLSATA{i}",
                  "by_id": f"ata-QEMU_HARDDISK_ZLSATA{i}"}  # fmt: skip
        assert ms.sample_value("zmon_disk_device_info", labels) == 1, disk
    assert (
        ms.sample_value(
            "zmon_disk_device_info",
            {
                "device": "nvme0n1",
                "transport": "nvme",
                "serial": "ZLNVME0",
                "model": "QEMU NVMe Ctrl",
                "firmware": "7.2.22",
            },
        )
        == 1
    )
    assert (
        ms.sample_value(
            "zmon_disk_device_info", {"device": "vdf", "transport": "virtio", "serial": "ZLVIRT5"}
        )
        == 1
    )


def test_every_recording_names_a_shipped_file() -> None:
    for phase in PHASES:
        scen = DATA / "scenarios" / phase.scenario
        for row in (scen / "commands.tsv").read_text().splitlines():
            file, status, _, command = row.split("\t")[:4]
            assert (scen / file).is_file(), f"{phase.scenario}: {file}"
            assert int(status) >= 0 and shlex.split(command)


class _QuietMonitor:
    """A udev monitor that sees no event (the demo's disks never come or go)."""

    def poll(self, timeout: float | None = None) -> None:
        time.sleep(min(timeout or 0.0, 0.05))


def test_hotplug_series_are_the_demo_disks_at_zero(demo_host: DemoHost) -> None:
    """The hotplug collector listens to this machine's udev; in the demo it starts from the
    demo's disks, each at zero, so its output does not depend on the machine."""
    cfg = demo_config(demo_host)
    ctx = Context(
        paths=cfg.paths,
        runner=StaticRunner(),
        options=cfg.collectors["hotplug"].options,
        platform="linux",
    )
    collector = HotplugCollector(ctx, monitor_factory=lambda source: _QuietMonitor())
    collector.start()
    try:
        ms = collector.collect()
    finally:
        collector.close()
    series = {
        (s.labels["device"], s.labels["action"]): s.value
        for f in ms.families()
        for s in f.samples
        if s.name == "zmon_disk_hotplug_events_total"
    }
    assert series == {(d, a): 0.0 for d in DISKS for a in ("add", "remove", "change")}
    assert ms.sample_value("zmon_disk_hotplug_capped_events_total") == 0
