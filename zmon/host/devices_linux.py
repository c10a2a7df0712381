"""Read Linux block devices from sysfs, ``/dev/disk`` and the udev database (all via ``Paths``).

Sources, in order of preference per field:
- model, serial, firmware: udev's ``ID_MODEL_ENC``/``ID_SERIAL_SHORT``/``ID_REVISION`` (full ATA
  strings), then sysfs (``device/model`` is the 16-character SCSI INQUIRY product for ATA disks,
  ``device/vpd_pg80`` the unit serial, ``device/serial`` and ``firmware_rev`` for NVMe).
- WWN: the ``wwn-`` link in ``/dev/disk/by-id``, then udev ``ID_WWN_WITH_EXTENSION``, then
  ``device/wwid``/``wwid`` (``naa.`` ids become ``0x...``, ``eui.`` ids stay as they are).
- topology (ATA port, SCSI host and address, transport): the ``/sys/block/X`` symlink target.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from zmon.host.blockdev import BlockDevice
from zmon.host.devnames import is_nvme_controller, nvme_controller
from zmon.host.paths import Paths

_ATA_PORT = re.compile(r"^ata\d+$")
_HOST = re.compile(r"^host\d+$")
_HCTL = re.compile(r"^(\d+):(\d+):(\d+):(\d+)$")


def linux_devices(paths: Paths) -> list[BlockDevice]:
    """Every entry of ``/sys/block`` and its partitions; empty if there is no sysfs.

    Paths are plain strings here: on a host with 1,000 disks a ``Path`` object per file read
    would be a third of building the map.
    """
    block = str(paths.sys("block"))
    try:
        names = sorted(os.listdir(block))
    except OSError:
        return []
    links = _dev_links(paths)
    slots = _enclosure_slots(paths)
    devices: list[BlockDevice] = []
    for name in names:
        disk_dir = os.path.join(block, name)
        parts = _partitions(disk_dir, name)
        disk = _disk(paths, name, disk_dir, parts, links, slots)
        devices.append(disk)
        for part in parts:
            devices.append(
                BlockDevice(
                    name=part,
                    parent=name,
                    hardware=disk.hardware,
                    by_id=tuple(links.get(part, {}).get("by-id", [])),
                    by_path=tuple(links.get(part, {}).get("by-path", [])),
                )
            )
    return devices


def _disk(
    paths: Paths,
    name: str,
    disk_dir: str,
    parts: list[str],
    links: dict[str, dict[str, list[str]]],
    slots: dict[str, tuple[str, str]],
) -> BlockDevice:
    comps = _devpath_components(disk_dir)
    dev_dir = os.path.join(disk_dir, "device")
    hardware = os.path.exists(dev_dir)
    udev = _udev_properties(paths, _read(os.path.join(disk_dir, "dev")))
    by_id = tuple(links.get(name, {}).get("by-id", []))
    by_path = tuple(links.get(name, {}).get("by-path", []))
    hctl = next((c for c in reversed(comps) if _HCTL.match(c)), None)
    ata_port = next((c for c in comps if _ATA_PORT.match(c)), None)
    ata_device = None
    if ata_port and hctl:
        _, channel, target, _ = (int(x) for x in hctl.split(":"))
        ata_device = f"{ata_port}.{channel + target:02d}"
    vendor = (_read(os.path.join(dev_dir, "vendor")) or "").strip()
    slot = slots.get(hctl) if hctl else None
    nvme_ctrl = _nvme_controller(name, dev_dir) if name.startswith("nvme") else None
    return BlockDevice(
        name=name,
        partitions=tuple(parts),
        hardware=hardware,
        model=_model(udev, dev_dir),
        serial=_serial(udev, disk_dir, dev_dir),
        firmware=_first_of(
            lambda: udev.get("ID_REVISION"),
            lambda: _read(os.path.join(dev_dir, "firmware_rev")),
            lambda: _read(os.path.join(dev_dir, "rev")),
        ),
        wwn=_wwn(by_id, udev, disk_dir, dev_dir),
        transport=_transport(name, comps, vendor, hardware),
        ata_port=ata_port,
        ata_device=ata_device,
        scsi_host=next((c for c in comps if _HOST.match(c)), None),
        scsi_address=hctl,
        enclosure_slot="/".join(slot) if slot else None,
        enclosure=slot[0] if slot else None,
        slot=slot[1] if slot else None,
        nvme_controller=nvme_ctrl,
        by_id=by_id,
        by_path=by_path,
    )


def _transport(name: str, comps: list[str], vendor: str, hardware: bool) -> str:
    if not hardware:
        return ""
    if name.startswith("nvme"):
        return "nvme"
    if any(re.match(r"^usb\d+$", c) for c in comps):
        return "usb"
    if any(_ATA_PORT.match(c) for c in comps):
        return "sata"
    if any(c.startswith(("end_device-", "expander-")) for c in comps):
        # A SATA disk behind a SAS HBA answers the SCSI INQUIRY with vendor "ATA".
        return "sata" if vendor == "ATA" else "sas"
    if any(re.match(r"^session\d+$", c) for c in comps):
        return "iscsi"
    if any(c.startswith("rport-") for c in comps):
        return "fc"
    if any(re.match(r"^virtio\d+$", c) for c in comps):
        return "virtio"
    if name.startswith("mmcblk") or any(c.startswith("mmc") for c in comps):
        return "mmc"
    if any(_HCTL.match(c) for c in comps):
        return "sata" if vendor == "ATA" else "scsi"
    return ""


def _nvme_controller(name: str, dev_dir: str) -> str | None:
    """The namespace's controller from its ``device`` link, else from its name.

    Under native multipath ``device`` is ``nvme-subsys0``; the name is then the best guess.
    """
    target = os.path.basename(os.path.realpath(dev_dir)) if os.path.exists(dev_dir) else ""
    return target if is_nvme_controller(target) else nvme_controller(name)


def _model(udev: dict[str, str], dev_dir: str) -> str | None:
    enc = udev.get("ID_MODEL_ENC")
    if enc:
        decoded = re.sub(r"\\x([0-9a-fA-F]{2})", lambda m: chr(int(m.group(1), 16)), enc).strip()
        if decoded:
            return decoded
    return _first_of(lambda: _read(os.path.join(dev_dir, "model")), lambda: udev.get("ID_MODEL"))


def _serial(udev: dict[str, str], disk_dir: str, dev_dir: str) -> str | None:
    return _first_of(
        lambda: udev.get("ID_SERIAL_SHORT"),
        lambda: _read(os.path.join(dev_dir, "serial")),  # NVMe controller
        lambda: _read(os.path.join(disk_dir, "serial")),  # virtio-blk
        lambda: _vpd_serial(os.path.join(dev_dir, "vpd_pg80")),
    )


def _vpd_serial(path: str) -> str | None:
    """Unit serial number from a raw VPD page 0x80 (4-byte header, then ASCII)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    if len(data) < 4 or data[1] != 0x80:
        return None
    length = int.from_bytes(data[2:4], "big")
    text = data[4 : 4 + length].decode("ascii", "replace").strip(" \x00")
    return text or None


def _wwn(by_id: tuple[str, ...], udev: dict[str, str], disk_dir: str, dev_dir: str) -> str | None:
    for link in by_id:
        if link.startswith("wwn-") and "-part" not in link:
            return link[len("wwn-") :]
    if udev.get("ID_WWN_WITH_EXTENSION") or udev.get("ID_WWN"):
        return udev.get("ID_WWN_WITH_EXTENSION") or udev.get("ID_WWN")
    wwid = _first_of(
        lambda: _read(os.path.join(dev_dir, "wwid")), lambda: _read(os.path.join(disk_dir, "wwid"))
    )
    if not wwid:
        return None
    if wwid.startswith("naa."):
        return "0x" + wwid[len("naa.") :].lower()
    if wwid.startswith("eui."):
        return wwid.lower()
    return None  # t10. vendor strings are no WWN


def _partitions(disk_dir: str, disk: str) -> list[str]:
    """The disk's partitions: its entries named after it (``sda1``, ``nvme0n1p1``: the kernel
    names every partition so) that hold a ``partition`` file. Only those are looked into,
    not each of the 30 attribute entries of the disk's directory."""
    try:
        entries = os.listdir(disk_dir)
    except OSError:
        return []
    parts = [
        e
        for e in entries
        if e.startswith(disk) and os.path.isfile(os.path.join(disk_dir, e, "partition"))
    ]

    def number(p: str) -> tuple[int, str]:
        m = re.search(r"(\d+)$", p)
        return (int(m.group(1)) if m else 0, p)

    return sorted(parts, key=number)


def _devpath_components(disk_dir: str) -> list[str]:
    """Path components of where ``/sys/block/X`` points (``../devices/pci.../block/X``)."""
    try:
        target = os.readlink(disk_dir)
    except OSError:
        return []
    return [c for c in target.split("/") if c not in ("", "..", ".")]


def _dev_links(paths: Paths) -> dict[str, dict[str, list[str]]]:
    """Kernel name -> {"by-id": [...], "by-path": [...]} from ``/dev/disk``."""
    out: dict[str, dict[str, list[str]]] = {}
    for kind in ("by-id", "by-path"):
        base = str(paths.root("dev", "disk", kind))
        try:
            names = sorted(os.listdir(base))
        except OSError:
            continue
        for link in names:
            try:
                target = os.readlink(os.path.join(base, link))
            except OSError:
                continue
            kernel = os.path.basename(target)
            if kernel:
                out.setdefault(kernel, {}).setdefault(kind, []).append(link)
    return out


def _enclosure_slots(paths: Paths) -> dict[str, tuple[str, str]]:
    """SCSI address of the disk in each occupied slot -> (enclosure, slot).

    The enclosure is the directory under ``/sys/class/enclosure`` (the SES device's H:C:T:L);
    the slot is its component directory, named from the enclosure's element descriptor
    (``Slot05``, ``Disk001``) or, when the enclosure gives none, by the kernel's slot number.
    A component without a ``device`` link is an empty slot (or a fan, a PSU).
    """
    base = paths.sys("class", "enclosure")
    slots: dict[str, tuple[str, str]] = {}
    try:
        enclosures = sorted(os.listdir(base))
    except OSError:
        return slots
    for encl in enclosures:
        try:
            components = sorted(os.listdir(base / encl))
        except OSError:
            continue
        for comp in components:
            dev = base / encl / comp / "device"
            if not os.path.islink(dev):
                continue
            addr = os.path.basename(os.path.realpath(dev))
            if _HCTL.match(addr):
                slots[addr] = (encl, comp)
    return slots


def _udev_properties(paths: Paths, devnum: str | None) -> dict[str, str]:
    """``E:KEY=VALUE`` lines of ``/run/udev/data/b<major>:<minor>``."""
    if not devnum:
        return {}
    text = _read(paths.root("run", "udev", "data", f"b{devnum.strip()}"), strip=False)
    props: dict[str, str] = {}
    for line in (text or "").splitlines():
        if line.startswith("E:") and "=" in line:
            key, _, val = line[2:].partition("=")
            props[key] = val
    return props


def _read(path: str | Path, strip: bool = True) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
    except OSError:
        return None
    text = text.strip() if strip else text
    return text or None


def _first_of(*sources: Callable[[], str | None]) -> str | None:
    """The first non-blank value, asking each source only when those before gave none (a
    file not read is a file not opened: most disks have every field from udev)."""
    for source in sources:
        v = source()
        if v and v.strip():
            return v.strip()
    return None
