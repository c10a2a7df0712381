"""The device map: every block device of the host and all the names it goes by.

A disk is printed by the kernel as ``sdc``, ``ata3.00``, ``sd 7:0:14:0`` or ``nvme0``, by
``zpool status`` as a ``/dev/disk/by-id`` link, and by smartctl as ``/dev/nvme0``. The map
turns any of them into the whole-disk kernel name used as the ``device`` label.

On Linux it is built from sysfs and ``/dev/disk`` (through ``Paths``, so tests use a fake tree),
enriched by the udev database under ``/run/udev/data`` when present. pyudev is not used here: its
``Context`` always reads the live ``/sys`` and cannot be pointed at a fixture tree; pyudev serves
the hotplug monitor only. On FreeBSD it comes from ``geom disk list`` and ``camcontrol devlist -v``,
and the enclosure slots from ``sesutil map``.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterable, Iterator

from zmon.base.errors import ParseError
from zmon.base.runner import CommandError, Runner
from zmon.host.blockdev import BlockDevice, preferred_link
from zmon.host.devnames import (
    is_nvme_controller,
    looks_like_kernel_disk,
    nvme_controller,
    resolve_device,
    whole_disk_name,
)
from zmon.host.paths import Paths

_SCSI_ADDR = re.compile(r"^\d+:\d+:\d+:\d+$")
_SCSI_PREFIXED = re.compile(r"^(?:sd|scsi|ses|sg|st|sr)\s+(\d+:\d+:\d+:\d+)$")
_ATA = re.compile(r"^ata(\d+)(?:\.(\d+))?$")
_CAM_PATH = re.compile(r"^([a-z]+\d+):[a-z_-]+\d+:\d+:\d+:\d+$")  # FreeBSD "ada0:ahcich0:0:0:0"
_NOT_DISK = re.compile(r"^(?:sr|fd|cd)\d+$")
_DISKID = re.compile(r"^(?:/dev/)?diskid/DISK-(.+)$")  # FreeBSD glabel of the serial


class DeviceMap:
    """All block devices by kernel name, with indexes for every other way to name them."""

    def __init__(
        self, devices: Iterable[BlockDevice], paths: Paths | None = None, platform: str = "linux"
    ) -> None:
        self.platform = platform
        self.built_at = time.monotonic()
        self._paths = paths
        self._devices = {d.name: d for d in devices}
        self._links: dict[str, str] = {}
        self._scsi: dict[str, str] = {}
        self._ata: dict[str, str] = {}
        self._ata_ports: dict[str, list[str]] = {}
        self._serials: dict[str, str] = {}
        self._nvme: dict[str, tuple[int, str]] = {}
        for d in self._devices.values():
            for link in (*d.by_id, *d.by_path):
                self._links[link] = d.name
            if d.parent is not None:
                continue
            if d.scsi_address:
                self._scsi[d.scsi_address] = d.name
            if d.ata_device:
                self._ata[d.ata_device] = d.name
            if d.ata_port:
                self._ata_ports.setdefault(d.ata_port, []).append(d.name)
            if d.serial:
                self._serials.setdefault(d.serial.strip(), d.name)
            if d.nvme_controller:
                m = re.search(r"n(\d+)$", d.name)
                nsid = int(m.group(1)) if m else 0
                best = self._nvme.get(d.nvme_controller)
                if best is None or nsid < best[0]:
                    self._nvme[d.nvme_controller] = (nsid, d.name)

    @classmethod
    def build(
        cls, paths: Paths, *, platform: str = "linux", runner: Runner | None = None
    ) -> DeviceMap:
        """Read the host: sysfs and /dev/disk on Linux, geom and camcontrol on FreeBSD."""
        if platform == "freebsd":
            devices = freebsd_devices(runner) if runner is not None else []
        else:
            from zmon.host.devices_linux import linux_devices

            devices = linux_devices(paths)
        return cls(devices, paths, platform)

    def __iter__(self) -> Iterator[BlockDevice]:
        return iter(self._devices[k] for k in sorted(self._devices))

    def __len__(self) -> int:
        return len(self._devices)

    def __contains__(self, name: object) -> bool:
        return name in self._devices

    def get(self, name: str) -> BlockDevice | None:
        return self._devices.get(name)

    def disks(self) -> list[BlockDevice]:
        """Whole disks backed by hardware, sorted by name (what SMART and device info cover).

        Optical (``sr0``) and floppy (``fd0``) drives are block devices but no disks.
        """
        return [d for d in self if d.parent is None and d.hardware and not _NOT_DISK.match(d.name)]

    def by_serial(self, serial: str | None) -> str | None:
        return self._serials.get(serial.strip()) if serial else None

    def resolve(self, name: str) -> str | None:
        """Whole-disk kernel name for any name of a disk, or None.

        Accepts kernel names (``sdc1`` -> ``sdc``), ``/dev`` paths, by-id/by-path/wwn link
        names and paths, ATA ports (``ata3``, ``ata3.00``), SCSI addresses (``7:0:14:0``,
        ``sd 7:0:14:0``), NVMe controllers (``nvme0`` -> first namespace), FreeBSD names as
        they are (``ada0``, ``ad2``) and FreeBSD CAM paths (``ada0:ahcich0:0:0:0``).
        """
        n = name.strip().strip("[]()").strip().rstrip(":")
        if not n:
            return None
        m = _SCSI_PREFIXED.match(n)
        if m:
            n = m.group(1)
        if _SCSI_ADDR.match(n):
            return self._scsi.get(n)
        m = _ATA.match(n)
        if m:
            return self._resolve_ata(m.group(1), m.group(2))
        m = _CAM_PATH.match(n) or _DISKID.match(n)
        if m:
            if n.startswith(("diskid/", "/dev/diskid/")):
                return self.by_serial(m.group(1))
            n = m.group(1)
        if n.startswith("/dev/"):
            rel = n[len("/dev/") :]
            if "/" not in rel:
                n = rel
            else:
                known = self._links.get(rel.rsplit("/", 1)[-1])
                if known:
                    return self._whole(known)
                return resolve_device(n, self._paths) if self._paths else None
        if is_nvme_controller(n):
            found = self._nvme.get(n)
            return found[1] if found else None
        if n in self._devices:
            return self._whole(n)
        if n in self._links:
            return self._whole(self._links[n])
        if looks_like_kernel_disk(n):
            return whole_disk_name(n)
        if self._paths is not None and self.platform == "linux":
            return resolve_device(n, self._paths)
        return None

    def _whole(self, name: str) -> str:
        dev = self._devices.get(name)
        return dev.whole_disk if dev else whole_disk_name(name)

    def _resolve_ata(self, port: str, dev: str | None) -> str | None:
        if dev is not None:
            return self._ata.get(f"ata{port}.{int(dev):02d}")
        on_port = self._ata_ports.get(f"ata{port}", [])
        return on_port[0] if len(on_port) == 1 else None


# ---- FreeBSD ----


def freebsd_devices(runner: Runner, timeout: float = 10.0) -> list[BlockDevice]:
    """Disks from ``geom disk list``, joined with ``camcontrol devlist -v`` and ``sesutil map``
    where they work (a host without SES enclosures has no slots, and that is no error)."""
    from zmon.parsers.disks.freebsd_disks import (
        CamDevice,
        parse_camcontrol_devlist,
        parse_geom_disk_list,
        transport_from_sim,
    )
    from zmon.parsers.disks.sesutil import SesElement, parse_sesutil_map, slots_by_disk

    try:
        geom_out = runner.run(["geom", "disk", "list"], timeout=timeout).check().stdout
        disks = parse_geom_disk_list(geom_out.decode("utf-8", "replace"))
    except (CommandError, ParseError):
        return []
    cam_by_disk: dict[str, CamDevice] = {}
    try:
        cam_out = runner.run(["camcontrol", "devlist", "-v"], timeout=timeout).check().stdout
        for found in parse_camcontrol_devlist(cam_out.decode("utf-8", "replace")):
            if found.disk:
                cam_by_disk[found.disk] = found
    except (CommandError, ParseError):
        pass
    slots: dict[str, SesElement] = {}
    try:
        ses_out = runner.run(["sesutil", "map"], timeout=timeout).check().stdout
        slots = slots_by_disk(parse_sesutil_map(ses_out.decode("utf-8", "replace")))
    except (CommandError, ParseError):
        pass
    devices = []
    for g in disks:
        cam = cam_by_disk.get(g.name)
        ses = slots.get(g.name)
        wwn = None
        if g.lunid and re.fullmatch(r"[0-9a-fA-F]+", g.lunid) and g.lunid.strip("0"):
            wwn = "0x" + g.lunid.lower()
        devices.append(
            BlockDevice(
                name=g.name,
                hardware=not g.name.startswith(("md", "zvol")),
                model=g.description or (cam.model if cam else None),
                serial=g.ident,
                firmware=cam.firmware if cam else None,
                wwn=wwn,
                transport=transport_from_sim(cam.sim if cam else None, g.name),
                scsi_host=cam.sim if cam else None,
                scsi_address=f"{cam.bus}:{cam.target}:{cam.lun}" if cam else None,
                enclosure_slot=f"{ses.enclosure}/{ses.slot}" if ses else None,
                enclosure=ses.enclosure if ses else None,
                slot=ses.slot if ses else None,
                nvme_controller=None,
            )
        )
    return devices


# ---- the map shared between collectors ----


class DeviceMapCache:
    """The host's device map, shared by every collector that names disks.

    Built on first use and rebuilt when older than the caller's ``max_age``. The hotplug
    collector drops it on every add/remove/change event, so the next user rebuilds it.
    """

    def __init__(self, paths: Paths, platform: str = "linux", runner: Runner | None = None):
        self._paths = paths
        self._platform = platform
        self._runner = runner
        self._lock = threading.Lock()
        self._map: DeviceMap | None = None

    def get(self, max_age: float = 300.0) -> DeviceMap:
        """The current map, read from the host again when older than ``max_age`` seconds."""
        with self._lock:
            current = self._map
            if current is not None and time.monotonic() - current.built_at < max_age:
                return current
            fresh = DeviceMap.build(self._paths, platform=self._platform, runner=self._runner)
            self._map = fresh
            return fresh

    def peek(self) -> DeviceMap | None:
        """The map as it is now, without reading the host (None when none is built)."""
        return self._map

    def put(self, device_map: DeviceMap) -> None:
        """Use a ready map (tests, replays) until it grows old or is dropped."""
        with self._lock:
            self._map = device_map

    def invalidate(self) -> None:
        """Forget the map; the next ``get`` reads the host again.

        Takes the build lock, so a map being built while a disk changed is not kept.
        """
        with self._lock:
            self._map = None


def nvme_namespace_guess(name: str) -> str:
    """``nvme0`` -> ``nvme0n1`` when no map knows better (namespace 1 is nearly always there)."""
    base = name.rsplit("/", 1)[-1]
    return base + "n1" if is_nvme_controller(base) else whole_disk_name(base)


__all__ = [
    "BlockDevice",
    "DeviceMap",
    "DeviceMapCache",
    "nvme_controller",
    "nvme_namespace_guess",
    "preferred_link",
]
