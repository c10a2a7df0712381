"""One block device and the names it goes by (the device map's record)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class BlockDevice:
    """One block device (whole disk or partition) and its identities."""

    name: str
    parent: str | None = None  # the whole disk, for a partition
    partitions: tuple[str, ...] = ()
    hardware: bool = False  # backed by a device (not loop, zram, dm, md, zvol)
    model: str | None = None
    serial: str | None = None
    firmware: str | None = None
    wwn: str | None = None
    transport: str = ""  # sata, sas, nvme, usb, virtio, scsi, iscsi, fc, mmc or ""
    ata_port: str | None = None  # "ata3"
    ata_device: str | None = None  # "ata3.00", as the kernel log names the device
    scsi_host: str | None = None  # "host2" (Linux) or the CAM controller "ahcich2" (FreeBSD)
    scsi_address: str | None = None  # "2:0:0:0" (H:C:T:L) or "2:0:0" (FreeBSD bus:target:lun)
    enclosure_slot: str | None = None  # "7:0:24:0/Slot05"
    enclosure: str | None = None  # "7:0:24:0" (Linux SES device) or "ses0" (FreeBSD)
    slot: str | None = None  # the slot as the enclosure names it: "Slot05", "Disk #01", "3"
    nvme_controller: str | None = None
    by_id: tuple[str, ...] = ()
    by_path: tuple[str, ...] = ()

    @property
    def whole_disk(self) -> str:
        return self.parent or self.name

    @property
    def locate_command(self) -> str | None:
        """The command that blinks the disk's slot LED, when the disk sits in a known slot.

        ``ledctl`` (ledmon) drives SES, VMD and NPEM slots on Linux; FreeBSD's ``sesutil``
        drives SES slots. Without a slot no LED can be named, so there is no command.
        """
        if not self.enclosure or not self.slot:
            return None
        if self.enclosure.startswith("ses"):
            return f"sesutil locate {self.name} on"
        return f"ledctl locate=/dev/{self.name}"

    @property
    def preferred_by_id(self) -> str | None:
        """The by-id link people recognise: ``ata-``/``nvme-``/``scsi-S`` model_serial first."""
        return preferred_link(self.by_id)


_LINK_RANK = ("ata-", "nvme-", "scsi-S", "usb-", "virtio-", "mmc-", "scsi-", "wwn-")


def preferred_link(links: Iterable[str]) -> str | None:
    def rank(link: str) -> tuple[int, int, str]:
        opaque = "eui." in link or link.startswith("nvme-nvme.")
        for i, prefix in enumerate(_LINK_RANK):
            if link.startswith(prefix):
                return (i + (10 if opaque else 0), len(link), link)
        return (len(_LINK_RANK) + 10, len(link), link)

    ranked = sorted((x for x in links if "-part" not in x), key=rank)
    return ranked[0] if ranked else None
