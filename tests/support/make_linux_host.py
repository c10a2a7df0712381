"""Writes tests/fixtures/disks/linux-host: a fake sysfs + /dev/disk + udev tree of a NAS.

The layout copies what the kernel and udev create (symlink targets, file names, the 16-character
SCSI model of ATA disks, raw VPD page 0x80). Names and serials are made up. The tree is committed;
rerun this script (``python -m tests.support.make_linux_host``) after changing it.

Disks:
- sda  SATA SSD on AHCI port ata1 (udev data present), partitions sda1 sda2
- sdb  SATA HDD on ata2, no udev data (model/serial come from sysfs only)
- sdc  SATA HDD on ata3, ZFS whole-disk layout sdc1 + sdc9
- sdd, sde  SATA HDDs behind a port multiplier on ata4 (ata4.01, ata4.02)
- sdq  SAS HDD behind an expander on host7, enclosure slot Slot05
- sdr  SATA HDD behind the same SAS expander (vendor "ATA"), enclosure slot Slot06
- sdu  USB disk
- nvme0n1 (partition nvme0n1p1), nvme1n1
- vda  virtio disk, loop0 and zd0 (no hardware)
"""

from __future__ import annotations

import shutil
from pathlib import Path

from zmon.demo import fakehost
from zmon.demo.fakehost import PCI, block_device, disk_link, link, nvme_controller, write

ROOT = Path(__file__).resolve().parent.parent / "fixtures" / "disks" / "linux-host"
SECTORS = 7814037168  # every disk's size: 4 TB
AHCI = f"{PCI}/0000:00:1f.2"
SAS = f"{PCI}/0000:00:01.0/0000:01:00.0/host7/port-7:0/expander-7:0"


def scsi_disk(
    sys: Path,
    parent: str,
    hctl: str,
    name: str,
    dev: str,
    *,
    vendor: str,
    model: str,
    rev: str,
    serial: str | None = None,
    wwid: str | None = None,
    parts: dict[str, str] | None = None,
) -> None:
    """A SCSI disk under ``parent`` (a SCSI host or a SAS end device), of the fixture's size."""
    h, c, t, _ = hctl.split(":")
    fakehost.scsi_disk(
        sys,
        f"{parent}/target{h}:{c}:{t}/{hctl}",
        name,
        dev,
        vendor=vendor,
        model=model,
        rev=rev,
        serial=serial,
        wwid=wwid,
        sectors=SECTORS,
        partitions=parts,
    )


def main() -> None:
    if ROOT.exists():
        shutil.rmtree(ROOT)
    sys = ROOT / "sys"
    scsi_disk(
        sys,
        f"{AHCI}/ata1/host0",
        "0:0:0:0",
        "sda",
        "8:0",
        vendor="ATA",
        model="Samsung SSD 860 EVO 500GB",
        rev="2B6Q",
        serial="     S3Z2NB0K123456X",
        wwid="naa.5002538e40a1b2c3",
        parts={"sda1": "8:1", "sda2": "8:2"},
    )
    scsi_disk(
        sys,
        f"{AHCI}/ata2/host1",
        "1:0:0:0",
        "sdb",
        "8:16",
        vendor="ATA",
        model="WDC WD40EFRX-68N32N0",
        rev="0A82",
        serial="     WD-WCC7K1ABCDEF",
        wwid="naa.50014ee2b1c2d3e4",
    )
    scsi_disk(
        sys,
        f"{AHCI}/ata3/host2",
        "2:0:0:0",
        "sdc",
        "8:32",
        vendor="ATA",
        model="ST4000VN008-2DR166",
        rev="SC60",
        serial="            ZDH1ABCD",
        wwid="naa.5000c500b1a2c3d4",
        parts={"sdc1": "8:33", "sdc9": "8:41"},
    )
    scsi_disk(
        sys,
        f"{AHCI}/ata4/host3",
        "3:1:0:0",
        "sdd",
        "8:48",
        vendor="ATA",
        model="ST8000VN004-3CP101",
        rev="SC60",
        serial="            WWZ3AB12",
    )
    scsi_disk(
        sys,
        f"{AHCI}/ata4/host3",
        "3:2:0:0",
        "sde",
        "8:64",
        vendor="ATA",
        model="ST8000VN004-3CP101",
        rev="SC60",
        serial="            WWZ3AB34",
    )
    scsi_disk(
        sys,
        f"{SAS}/port-7:0:14/end_device-7:0:14",
        "7:0:14:0",
        "sdq",
        "65:0",
        vendor="SEAGATE",
        model="ST4000NM0023",
        rev="0004",
        serial="Z1Z2AB3C0000C4451234",
        wwid="naa.5000c500a0b1c2d3",
    )
    scsi_disk(
        sys,
        f"{SAS}/port-7:0:15/end_device-7:0:15",
        "7:0:15:0",
        "sdr",
        "65:16",
        vendor="ATA",
        model="HGST HUS726T4TALA6L4",
        rev="W90E",
        serial="            V6G1ABCD",
        wwid="naa.5000cca0abcdef01",
    )
    scsi_disk(
        sys,
        f"{PCI}/0000:00:14.0/usb2/2-1/2-1:1.0/host8",
        "8:0:0:0",
        "sdu",
        "65:64",
        vendor="WD",
        model="Elements 25A2",
        rev="1021",
        serial="575834314441393030303030",
    )
    # The SES enclosure on the expander, with two occupied slots and an empty one.
    encl = sys / SAS / "port-7:0:24/end_device-7:0:24/target7:0:24/7:0:24:0/enclosure/7:0:24:0"
    for slot, hctl in (("Slot05", "7:0:14:0"), ("Slot06", "7:0:15:0"), ("Slot07", None)):
        write(encl / slot / "slot", slot[-1] + "\n")
        write(encl / slot / "status", "OK\n" if hctl else "not installed\n")
        if hctl:
            port = hctl.split(":")[2]
            target = sys / SAS / f"port-7:0:{port}/end_device-7:0:{port}/target7:0:{port}/{hctl}"
            link(encl / slot / "device", target)
    link(sys / "class" / "enclosure" / "7:0:24:0", encl)
    # NVMe controllers and namespaces.
    for ctrl, pci, model, serial, fw, ns_dev, parts, wwid in (
        (
            "nvme0",
            "0000:00:1d.0/0000:3d:00.0",
            "Samsung SSD 970 EVO Plus 1TB",
            "S4EWNX0R123456A",
            "2B2QEXM7",
            "259:0",
            {"nvme0n1p1": "259:1"},
            "eui.0025385891b12345",
        ),
        (
            "nvme1",
            "0000:00:1d.4/0000:3e:00.0",
            "INTEL SSDPE2KX010T8",
            "PHLJ123400AB1P0FGN",
            "VDV10131",
            "259:2",
            {},
            "eui.01000000000000005cd2e4aabbccddee",
        ),
    ):
        cdir = f"{PCI}/{pci}/nvme/{ctrl}"
        ctrl_dir = nvme_controller(sys, cdir, model=model, serial=serial, firmware=fw)
        ndir = block_device(sys, f"{cdir}/{ctrl}n1", ns_dev, partitions=parts)
        write(ndir / "wwid", wwid + "\n")
        link(ndir / "device", ctrl_dir)
    vdir = block_device(sys, f"{PCI}/0000:00:05.0/virtio2/block/vda", "254:0", SECTORS)
    write(vdir / "serial", "ZLVIRT0\n")
    link(vdir / "device", sys / PCI / "0000:00:05.0/virtio2")
    block_device(sys, "devices/virtual/block/loop0", "7:0", SECTORS)
    block_device(sys, "devices/virtual/block/zd0", "230:0", SECTORS)

    # /dev/disk links as udev writes them.
    dev = ROOT / "dev"
    by_id = {
        "ata-Samsung_SSD_860_EVO_500GB_S3Z2NB0K123456X": "sda",
        "ata-Samsung_SSD_860_EVO_500GB_S3Z2NB0K123456X-part1": "sda1",
        "ata-Samsung_SSD_860_EVO_500GB_S3Z2NB0K123456X-part2": "sda2",
        "wwn-0x5002538e40a1b2c3": "sda",
        "wwn-0x5002538e40a1b2c3-part1": "sda1",
        "ata-WDC_WD40EFRX-68N32N0_WD-WCC7K1ABCDEF": "sdb",
        "wwn-0x50014ee2b1c2d3e4": "sdb",
        "ata-ST4000VN008-2DR166_ZDH1ABCD": "sdc",
        "ata-ST4000VN008-2DR166_ZDH1ABCD-part1": "sdc1",
        "ata-ST4000VN008-2DR166_ZDH1ABCD-part9": "sdc9",
        "wwn-0x5000c500b1a2c3d4": "sdc",
        "wwn-0x5000c500b1a2c3d4-part1": "sdc1",
        "ata-ST8000VN004-3CP101_WWZ3AB12": "sdd",
        "ata-ST8000VN004-3CP101_WWZ3AB34": "sde",
        "scsi-35000c500a0b1c2d3": "sdq",
        "scsi-SSEAGATE_ST4000NM0023_Z1Z2AB3C0000C4451234": "sdq",
        "wwn-0x5000c500a0b1c2d3": "sdq",
        "ata-HGST_HUS726T4TALA6L4_V6G1ABCD": "sdr",
        "scsi-SATA_HGST_HUS726T4TA_V6G1ABCD": "sdr",
        "wwn-0x5000cca0abcdef01": "sdr",
        "usb-WD_Elements_25A2_575834314441393030303030-0:0": "sdu",
        "nvme-Samsung_SSD_970_EVO_Plus_1TB_S4EWNX0R123456A": "nvme0n1",
        "nvme-Samsung_SSD_970_EVO_Plus_1TB_S4EWNX0R123456A-part1": "nvme0n1p1",
        "nvme-eui.0025385891b12345": "nvme0n1",
        "nvme-INTEL_SSDPE2KX010T8_PHLJ123400AB1P0FGN": "nvme1n1",
        "nvme-eui.01000000000000005cd2e4aabbccddee": "nvme1n1",
        "virtio-ZLVIRT0": "vda",
    }
    by_path = {
        "pci-0000:00:1f.2-ata-1": "sda",
        "pci-0000:00:1f.2-ata-1.0": "sda",
        "pci-0000:00:1f.2-ata-1-part1": "sda1",
        "pci-0000:00:1f.2-ata-2": "sdb",
        "pci-0000:00:1f.2-ata-3": "sdc",
        "pci-0000:00:1f.2-ata-3-part1": "sdc1",
        "pci-0000:00:1f.2-ata-4.1": "sdd",
        "pci-0000:00:1f.2-ata-4.2": "sde",
        "pci-0000:01:00.0-sas-exp0x500304801f3a5b7f-phy14-lun-0": "sdq",
        "pci-0000:01:00.0-sas-exp0x500304801f3a5b7f-phy15-lun-0": "sdr",
        "pci-0000:00:14.0-usb-0:1:1.0-scsi-0:0:0:0": "sdu",
        "pci-0000:3d:00.0-nvme-1": "nvme0n1",
        "pci-0000:3d:00.0-nvme-1-part1": "nvme0n1p1",
        "pci-0000:3e:00.0-nvme-1": "nvme1n1",
        "virtio-pci-0000:00:05.0": "vda",
    }
    for kind, table in (("by-id", by_id), ("by-path", by_path)):
        for name, kernel in table.items():
            disk_link(dev, kind, name, kernel)
    # udev database entries for two disks (the others exercise the sysfs fallbacks).
    udev = ROOT / "run" / "udev" / "data"
    write(
        udev / "b8:0",
        "S:disk/by-id/ata-Samsung_SSD_860_EVO_500GB_S3Z2NB0K123456X\n"
        "E:ID_ATA=1\nE:ID_BUS=ata\nE:ID_ATA_SATA=1\nE:ID_TYPE=disk\n"
        "E:ID_MODEL=Samsung_SSD_860_EVO_500GB\n"
        "E:ID_MODEL_ENC=Samsung\\x20SSD\\x20860\\x20EVO\\x20500GB\\x20\\x20\\x20\\x20\\x20\n"
        "E:ID_REVISION=RVT02B6Q\nE:ID_SERIAL=Samsung_SSD_860_EVO_500GB_S3Z2NB0K123456X\n"
        "E:ID_SERIAL_SHORT=S3Z2NB0K123456X\nE:ID_WWN=0x5002538e40a1b2c3\n"
        "E:ID_WWN_WITH_EXTENSION=0x5002538e40a1b2c3\nE:ID_PATH=pci-0000:00:1f.2-ata-1.0\n",
    )
    write(
        udev / "b8:32",
        "E:ID_ATA=1\nE:ID_BUS=ata\nE:ID_ATA_SATA=1\n"
        "E:ID_MODEL=ST4000VN008-2DR166\nE:ID_MODEL_ENC=ST4000VN008-2DR166\\x20\\x20\\x20\n"
        "E:ID_REVISION=SC60\nE:ID_SERIAL_SHORT=ZDH1ABCD\nE:ID_WWN=0x5000c500b1a2c3d4\n",
    )


if __name__ == "__main__":
    main()
