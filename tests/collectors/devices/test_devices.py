"""The device map: built from a fake sysfs + /dev/disk + udev tree, and from FreeBSD commands."""

from __future__ import annotations

import pytest

from tests.support.disks import LINUX_HOST, fixture_bytes, host_paths, make_ctx
from zmon.base.errors import ParseError
from zmon.collecting.registry import NoDataError
from zmon.collectors.devices import DevicesCollector, device_map_metrics
from zmon.exposition.formats import render
from zmon.host.devices import BlockDevice, DeviceMap, preferred_link
from zmon.parsers.disks.freebsd_disks import (
    parse_camcontrol_devlist,
    parse_geom_disk_list,
    transport_from_sim,
)


@pytest.fixture(scope="module")
def dmap() -> DeviceMap:
    return DeviceMap.build(host_paths())


def test_every_block_device_is_in_the_map(dmap):
    names = [d.name for d in dmap]
    assert names == sorted(
        [
            "loop0",
            "nvme0n1",
            "nvme0n1p1",
            "nvme1n1",
            "sda",
            "sda1",
            "sda2",
            "sdb",
            "sdc",
            "sdc1",
            "sdc9",
            "sdd",
            "sde",
            "sdq",
            "sdr",
            "sdu",
            "vda",
            "zd0",
        ]
    )
    assert [d.name for d in dmap.disks()] == [
        "nvme0n1",
        "nvme1n1",
        "sda",
        "sdb",
        "sdc",
        "sdd",
        "sde",
        "sdq",
        "sdr",
        "sdu",
        "vda",
    ]


def test_sata_disk_identity_and_topology(dmap):
    sdc = dmap.get("sdc")
    assert sdc.transport == "sata"
    assert (sdc.ata_port, sdc.ata_device) == ("ata3", "ata3.00")
    assert (sdc.scsi_host, sdc.scsi_address) == ("host2", "2:0:0:0")
    assert (sdc.model, sdc.serial, sdc.firmware) == ("ST4000VN008-2DR166", "ZDH1ABCD", "SC60")
    assert sdc.wwn == "0x5000c500b1a2c3d4"
    assert sdc.partitions == ("sdc1", "sdc9")
    assert dmap.get("sdc9").parent == "sdc"
    assert sdc.preferred_by_id == "ata-ST4000VN008-2DR166_ZDH1ABCD"


def test_sysfs_fallbacks_without_udev_data(dmap):
    sdb = dmap.get("sdb")
    # No udev database entry: the 16-character SCSI model, the VPD 0x80 serial, the 4-char rev.
    assert (sdb.model, sdb.serial, sdb.firmware) == ("WDC WD40EFRX-68N", "WD-WCC7K1ABCDEF", "0A82")
    assert sdb.wwn == "0x50014ee2b1c2d3e4"  # from the wwn- link
    assert dmap.get("sdd").wwn is None


def test_sas_enclosure_slots_and_sata_behind_sas(dmap):
    sdq, sdr = dmap.get("sdq"), dmap.get("sdr")
    assert (sdq.transport, sdq.scsi_address, sdq.enclosure_slot) == (
        "sas",
        "7:0:14:0",
        "7:0:24:0/Slot05",
    )
    assert (sdr.transport, sdr.enclosure_slot) == ("sata", "7:0:24:0/Slot06")
    assert sdq.ata_port is None
    assert sdq.preferred_by_id == "scsi-SSEAGATE_ST4000NM0023_Z1Z2AB3C0000C4451234"


def test_nvme_usb_virtio_and_virtual(dmap):
    nvme = dmap.get("nvme0n1")
    assert (nvme.transport, nvme.nvme_controller, nvme.serial) == (
        "nvme",
        "nvme0",
        "S4EWNX0R123456A",
    )
    assert nvme.firmware == "2B2QEXM7" and nvme.wwn == "eui.0025385891b12345"
    assert nvme.preferred_by_id == "nvme-Samsung_SSD_970_EVO_Plus_1TB_S4EWNX0R123456A"
    assert dmap.get("sdu").transport == "usb"
    assert (dmap.get("vda").transport, dmap.get("vda").serial) == ("virtio", "ZLVIRT0")
    assert not dmap.get("loop0").hardware and not dmap.get("zd0").hardware


@pytest.mark.parametrize(
    "name, expected",
    [
        ("sdc", "sdc"),
        ("sdc1", "sdc"),
        ("/dev/sdc9", "sdc"),
        ("sdc9", "sdc"),
        ("ata-ST4000VN008-2DR166_ZDH1ABCD", "sdc"),
        ("ata-ST4000VN008-2DR166_ZDH1ABCD-part1", "sdc"),
        ("/dev/disk/by-id/ata-ST4000VN008-2DR166_ZDH1ABCD-part9", "sdc"),
        ("wwn-0x5000c500b1a2c3d4", "sdc"),
        ("/dev/disk/by-id/wwn-0x5000c500b1a2c3d4-part1", "sdc"),
        ("pci-0000:00:1f.2-ata-3", "sdc"),
        ("/dev/disk/by-path/pci-0000:00:1f.2-ata-1-part1", "sda"),
        ("ata3", "sdc"),
        ("ata3.00", "sdc"),
        ("ata3.00:", "sdc"),
        ("ata4", None),  # two disks behind a port multiplier: not one disk
        ("ata4.01", "sdd"),
        ("ata4.02", "sde"),
        ("ata9", None),
        ("7:0:14:0", "sdq"),
        ("sd 7:0:14:0", "sdq"),
        ("sd 7:0:15:0:", "sdr"),
        ("2:0:0:0", "sdc"),
        ("9:0:0:0", None),
        ("[sdq]", "sdq"),
        ("nvme0", "nvme0n1"),
        ("/dev/nvme1", "nvme1n1"),
        ("nvme0n1p1", "nvme0n1"),
        ("nvme0c0n1", "nvme0n1"),
        ("nvme7", None),
        ("ada0", "ada0"),
        ("ad2", "ad2"),
        ("ada1p3", "ada1"),
        ("da3", "da3"),
        ("ada0:ahcich0:0:0:0", "ada0"),
        ("(da3:mpr0:0:14:0)", "da3"),
        ("virtio-ZLVIRT0", "vda"),
        ("/tmp/f1", None),
        ("", None),
        ("12345678901234567", None),
        ("mirror-0", None),
    ],
)
def test_resolve(dmap, name, expected):
    assert dmap.resolve(name) == expected


def test_resolve_follows_links_created_after_the_map(tmp_path):
    root = tmp_path / "host"
    (root / "dev" / "disk" / "by-id").mkdir(parents=True)
    (root / "dev" / "disk" / "by-id" / "ata-NEW_DISK_123").symlink_to("../../sdz")
    m = DeviceMap([], host_paths(root))
    assert m.resolve("ata-NEW_DISK_123") == "sdz"
    assert m.resolve("/dev/disk/by-id/ata-NEW_DISK_123") == "sdz"


def test_preferred_link_skips_opaque_ids():
    links = ["nvme-eui.0025385891b12345", "nvme-Samsung_SSD_970_S4EW", "wwn-0x5000"]
    assert preferred_link(links) == "nvme-Samsung_SSD_970_S4EW"
    assert preferred_link(["wwn-0x5000", "wwn-0x5000-part1"]) == "wwn-0x5000"
    assert preferred_link([]) is None


def test_device_info_metrics(dmap, golden):
    ms = device_map_metrics(dmap)
    golden("disks/device-map-linux.prom", render(ms.families()))
    labels = {
        "device": "sdq",
        "transport": "sas",
        "enclosure_slot": "7:0:24:0/Slot05",
        "scsi_host": "host7",
        "wwn": "0x5000c500a0b1c2d3",
    }
    assert ms.sample_value("zmon_disk_device_info", labels) == 1
    assert ms.sample_value("zmon_disk_device_info", {"device": "sdd", "ata_port": "ata4.01"}) == 1
    assert ms.sample_value("zmon_disk_device_info", {"device": "loop0"}) is None
    assert ms.sample_value("zmon_disk_devices") == 11


def test_device_info_is_bounded(dmap):
    ms = device_map_metrics(dmap, limit=3)
    infos = [s for f in ms.families() if f.name == "zmon_disk_device_info" for s in f.samples]
    assert len(infos) == 3
    disks = ms.sample_value("zmon_disk_devices")
    assert disks is not None and disks > 3
    assert ms.sample_value("zmon_disk_devices_dropped") == disks - 3  # the cap counts its cut
    assert device_map_metrics(dmap).sample_value("zmon_disk_devices_dropped") == 0


def test_shared_map_is_built_once_and_dropped_on_invalidate():
    ctx = make_ctx({})
    first = ctx.device_map()
    assert ctx.devices is not None and ctx.devices.peek() is first
    assert ctx.device_map() is first
    ctx.forget_device_map()
    assert ctx.devices.peek() is None
    assert ctx.device_map() is not first
    old = DeviceMap([BlockDevice("sda", hardware=True)])
    old.built_at -= 1000
    ctx.devices.put(old)
    assert ctx.device_map(max_age=300) is not old


def test_devices_collector(tmp_path):
    ctx = make_ctx({})
    ms = DevicesCollector(ctx).collect()
    assert ms.sample_value("zmon_disk_devices") == 11
    assert ctx.devices is not None and isinstance(ctx.devices.peek(), DeviceMap)
    empty = make_ctx({}, paths=host_paths(tmp_path))
    with pytest.raises(NoDataError):
        DevicesCollector(empty).collect()


# ---- FreeBSD ----


def test_geom_disk_list():
    disks = parse_geom_disk_list(fixture_bytes("freebsd", "geom-disk-list.txt").decode())
    assert [d.name for d in disks] == ["ada0", "ada1", "da0", "da1", "nda0"]
    ada0 = disks[0]
    assert (ada0.description, ada0.ident, ada0.lunid) == (
        "Samsung SSD 860 EVO 500GB",
        "S3Z2NB0K123456X",
        "5002538e40a1b2c3",
    )
    assert ada0.mediasize_bytes == 500107862016 and ada0.rotation_rate == "0"
    assert disks[3].rotation_rate == "unknown"


def test_geom_null_ident_and_errors():
    text = "Geom name: da5\nProviders:\n1. Name: da5\n   descr: Generic\n   ident: (null)\n"
    (d,) = parse_geom_disk_list(text)
    assert d.ident is None and d.description == "Generic"
    assert parse_geom_disk_list("") == []
    with pytest.raises(ParseError):
        parse_geom_disk_list("descr: before any geom\n")


def test_camcontrol_devlist_verbose():
    devs = parse_camcontrol_devlist(fixture_bytes("freebsd", "camcontrol-devlist-v.txt").decode())
    by_disk = {d.disk: d for d in devs if d.disk}
    assert sorted(by_disk) == ["ada0", "ada1", "da0", "da1", "nda0"]
    assert by_disk["ada1"].firmware == "82.00A82" and by_disk["ada1"].sim == "ahcich1"
    assert (by_disk["da0"].bus, by_disk["da0"].target, by_disk["da0"].sim) == (2, 14, "mpr0")
    assert by_disk["nda0"].lun == 1
    ses = [d for d in devs if "ses0" in d.periphs]
    assert ses and ses[0].disk is None
    plain = parse_camcontrol_devlist(
        "<VMware Virtual IDE Hard Drive 00000001>  at scbus0 target 0 lun 0 (pass0,ada0)\n"
        "<QEMU QEMU HARDDISK 2.5+>          at scbus0 target 0 lun 0 (pass0, da0)\n"
    )
    assert [d.disk for d in plain] == ["ada0", "da0"] and plain[0].sim is None
    with pytest.raises(ParseError):
        parse_camcontrol_devlist("what is this\n")


def test_transport_from_sim():
    assert transport_from_sim("ahcich3", "ada3") == "sata"
    assert transport_from_sim("mpr0", "da0") == "sas"
    assert transport_from_sim("umass-sim0", "da1") == "usb"
    assert transport_from_sim(None, "nda0") == "nvme"
    assert transport_from_sim("ciss0", "da9") == "scsi"


def test_freebsd_map_from_commands():
    responses = {
        ("geom", "disk", "list"): fixture_bytes("freebsd", "geom-disk-list.txt"),
        ("camcontrol", "devlist", "-v"): fixture_bytes("freebsd", "camcontrol-devlist-v.txt"),
    }
    ctx = make_ctx(responses, platform="freebsd")
    m = ctx.device_map()
    da0 = m.get("da0")
    assert (da0.transport, da0.scsi_host, da0.scsi_address) == ("sas", "mpr0", "2:14:0")
    assert (da0.model, da0.serial, da0.firmware) == (
        "SEAGATE ST4000NM0023",
        "Z1Z2AB3C0000C4451234",
        "0004",
    )
    assert da0.wwn == "0x5000c500a0b1c2d3"
    assert m.get("da1").wwn is None  # lunid of zeros is no WWN
    assert m.resolve("diskid/DISK-S4EWNX0R123456A") == "nda0"
    assert m.resolve("ada1p2") == "ada1"
    assert m.by_serial("WD-WCC7K1ABCDEF") == "ada1"
    assert [d.name for d in m.disks()] == ["ada0", "ada1", "da0", "da1", "nda0"]


def test_freebsd_map_degrades_without_commands():
    ctx = make_ctx({}, platform="freebsd")
    m = ctx.device_map()
    assert len(m) == 0
    assert m.resolve("ada0p3") == "ada0"


def test_the_fixture_tree_has_real_symlinks():
    assert (LINUX_HOST / "sys" / "block" / "sdc").is_symlink()


def test_optical_drives_are_no_disks():
    m = DeviceMap(
        [
            BlockDevice("sr0", hardware=True, transport="sata"),
            BlockDevice("sda", hardware=True, transport="sata"),
        ]
    )
    assert [d.name for d in m.disks()] == ["sda"]
    assert m.resolve("sr0") == "sr0"  # still a name the kernel log may use
