"""The demo host's disks: a sysfs block tree and ``/dev/disk`` links, as the lab VM had them.

Everything is derived from the lab's ``lsblk -J -O`` capture. The bus topology (one AHCI
controller, a virtio-blk PCI function per disk, one NVMe controller per namespace) is the lab
VM's, as its boot log shows it: ``ata1``..``ata6`` on ``0000:00:05.0``, ``virtio2``..``virtio7``
on ``0000:00:06.0``.., ``nvme0``/``nvme1`` on ``0000:00:0c.0``/``0000:00:0d.0``.
The files written are the ones zmon reads (``zmon/host/devices_linux.py``), as the kernel has
them, through ``zmon.demo.fakehost``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from zmon.demo.fakehost import (
    PCI,
    block_device,
    disk_link,
    link,
    nvme_controller,
    partition_number,
    scsi_disk,
    write,
)

AHCI = f"{PCI}/0000:00:05.0"
VIRTIO_FIRST_SLOT = 6  # 0000:00:06.0 is virtio2 (vda); virtio0/1 are the 9p and console devices
VIRTIO_FIRST_INDEX = 2
NVME_SLOTS = {"nvme0": "0000:00:0c.0", "nvme1": "0000:00:0d.0"}
SECTOR = 512
_UNITS = {"": 1, "B": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def size_sectors(text: str | int | None) -> int:
    """lsblk's ``1014M`` (binary units) or a byte count -> 512-byte sectors."""
    if isinstance(text, int):
        return text // SECTOR
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([BKMGT]?)", (text or "").strip())
    if not m:
        return 0
    return int(float(m.group(1)) * _UNITS[m.group(2)]) // SECTOR


class BlockTree:
    """Writes ``sys/`` (block devices) and ``rootfs/dev/disk`` under a demo root."""

    def __init__(self, root: Path, nvme_firmware: str = "") -> None:
        self.sys = root / "sys"
        self.dev = root / "rootfs" / "dev"
        self.nvme_firmware = nvme_firmware
        self._virtio = 0

    def build(self, lsblk: dict[str, Any]) -> None:
        for dev in lsblk.get("blockdevices") or []:
            if dev.get("type") != "disk":
                continue
            name = dev["name"]
            if dev.get("tran") == "sata" and dev.get("hctl"):
                self._sata(dev)
            elif dev.get("tran") == "nvme":
                self._nvme(dev)
            elif name.startswith("vd"):
                self._virtio_disk(dev)
            else:
                self._block(f"devices/virtual/block/{name}", dev)

    # ---- one disk per transport

    def _sata(self, dev: dict[str, Any]) -> None:
        host, channel, target, _ = (int(x) for x in dev["hctl"].split(":"))
        hctl = dev["hctl"]
        scsi = f"{AHCI}/ata{host + 1}/host{host}/target{host}:{channel}:{target}/{hctl}"
        bdir = scsi_disk(
            self.sys,
            scsi,
            dev["name"],
            dev["maj:min"],
            vendor=(dev.get("vendor") or "ATA").strip(),
            model=dev.get("model") or "",
            rev=dev.get("rev") or "",
            serial=dev.get("serial"),
            sectors=size_sectors(dev.get("size")),
            partitions=_partitions(dev),
        )
        self._queue(bdir, dev)
        ahci = AHCI.rsplit("/", 1)[1]
        port = f"pci-{ahci}-ata-{host + 1}"
        self._links(
            dev,
            "ata-" + _udev_string(dev.get("model")) + "_" + dev["serial"],
            [port, f"{port}.{channel + target}"],
        )

    def _nvme(self, dev: dict[str, Any]) -> None:
        name = dev["name"]
        ctrl = re.sub(r"n\d+$", "", name)
        slot = NVME_SLOTS.get(ctrl, "0000:00:0c.0")
        cdir = nvme_controller(
            self.sys,
            f"{PCI}/{slot}/nvme/{ctrl}",
            model=dev.get("model") or "",
            serial=dev.get("serial") or "",
            firmware=self.nvme_firmware,
        )
        nsid = re.search(r"n(\d+)$", name)
        bdir = self._block(f"{PCI}/{slot}/nvme/{ctrl}/{name}", dev)
        write(bdir / "nsid", f"{nsid.group(1) if nsid else 1}\n")
        if dev.get("wwn"):
            write(bdir / "wwid", dev["wwn"] + "\n")
        link(bdir / "device", cdir)
        links = [f"nvme-{dev['wwn']}"] if dev.get("wwn") else []
        self._links(
            dev,
            "nvme-" + _udev_string(dev.get("model")) + "_" + dev["serial"],
            [f"pci-{slot}-nvme-1"],
            extra_by_id=links,
        )

    def _virtio_disk(self, dev: dict[str, Any]) -> None:
        slot = f"0000:00:{VIRTIO_FIRST_SLOT + self._virtio:02x}.0"
        vdev = f"{PCI}/{slot}/virtio{VIRTIO_FIRST_INDEX + self._virtio}"
        self._virtio += 1
        write(self.sys / vdev / "vendor", f"{dev.get('vendor') or '0x1af4'}\n")
        write(self.sys / vdev / "device", "0x0002\n")
        bdir = self._block(f"{vdev}/block/{dev['name']}", dev)
        if dev.get("serial"):
            write(bdir / "serial", dev["serial"] + "\n")
        link(bdir / "device", self.sys / vdev)
        stem = f"virtio-{dev['serial']}" if dev.get("serial") else None
        self._links(dev, stem, [f"virtio-pci-{slot}", f"pci-{slot}"])

    # ---- shared parts

    def _block(self, devpath: str, dev: dict[str, Any]) -> Path:
        """The block device directory with its partitions, and the /sys/block link."""
        bdir = block_device(
            self.sys, devpath, dev["maj:min"], size_sectors(dev.get("size")), _partitions(dev)
        )
        self._queue(bdir, dev)
        return bdir

    def _queue(self, bdir: Path, dev: dict[str, Any]) -> None:
        """What lsblk tells beyond the device numbers: read-only, rotational, sector sizes
        and the partitions' sizes."""
        write(bdir / "ro", "1\n" if dev.get("ro") else "0\n")
        queue = bdir / "queue"
        write(queue / "rotational", "1\n" if dev.get("rota") else "0\n")
        write(queue / "logical_block_size", f"{dev.get('log-sec') or SECTOR}\n")
        write(queue / "physical_block_size", f"{dev.get('phy-sec') or SECTOR}\n")
        for child in dev.get("children") or []:
            write(bdir / child["name"] / "size", f"{size_sectors(child.get('size'))}\n")

    def _links(
        self,
        dev: dict[str, Any],
        stem: str | None,
        paths: list[str],
        extra_by_id: list[str] | None = None,
    ) -> None:
        """``/dev/disk/by-id`` and ``by-path`` links as udev makes them, partitions included."""
        name = dev["name"]
        by_id = ([stem] if stem else []) + (extra_by_id or [])
        for kind, stems in (("by-id", by_id), ("by-path", list(dict.fromkeys(paths)))):
            for s in stems:
                disk_link(self.dev, kind, s, name)
                for child in dev.get("children") or []:
                    number = partition_number(child["name"])
                    disk_link(self.dev, kind, f"{s}-part{number}", child["name"])


def _udev_string(text: str | None) -> str:
    """udev's ID_MODEL: spaces become underscores."""
    return re.sub(r"\s+", "_", (text or "").strip())


def _partitions(dev: dict[str, Any]) -> dict[str, str]:
    """lsblk's children of a disk: partition name -> ``maj:min``."""
    return {child["name"]: child["maj:min"] for child in dev.get("children") or []}
