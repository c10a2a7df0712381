"""Parsers for FreeBSD's disk inventory: ``geom disk list`` and ``camcontrol devlist -v``.

They stand in for sysfs where there is none: name, model, serial, WWN (geom) and the CAM
bus/target/lun with the controller driver behind it (camcontrol).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from zmon.base.errors import ParseError, refuses_hostile_input


@dataclass(frozen=True)
class GeomDisk:
    """One ``Geom name:`` block of ``geom disk list``."""

    name: str
    description: str | None = None  # descr: the model as the disk reports it
    ident: str | None = None  # the serial number
    lunid: str | None = None  # the WWN / LUN id, hex without 0x
    mediasize_bytes: int | None = None
    rotation_rate: str | None = None  # "0" for SSD, rpm, or "unknown"


@dataclass(frozen=True)
class CamDevice:
    """One device line of ``camcontrol devlist -v``."""

    inquiry: str  # "<Samsung SSD 860 EVO 500GB RVT02B6Q>" without the brackets
    bus: int
    target: int
    lun: int
    periphs: tuple[str, ...]  # ("pass0", "ada0")
    sim: str | None = None  # controller driver and unit from the "scbusN on SIM bus B:" line

    @property
    def disk(self) -> str | None:
        """The disk periph (ada0, da3, nda0) among the periphs, if any."""
        for p in self.periphs:
            if re.match(r"^(ada|da|nda|nvd|mmcsd|vtbd)\d+$", p):
                return p
        return None

    @property
    def firmware(self) -> str | None:
        """The last word of the inquiry string, which CAM fills with the firmware revision."""
        parts = self.inquiry.split()
        return parts[-1] if len(parts) > 1 else None

    @property
    def model(self) -> str | None:
        parts = self.inquiry.split()
        return " ".join(parts[:-1]) if len(parts) > 1 else None


def _value(line: str) -> str:
    return line.split(":", 1)[1].strip()


@refuses_hostile_input
def parse_geom_disk_list(text: str) -> list[GeomDisk]:
    """Disks from ``geom disk list``; an ident of ``(null)`` means no serial."""
    disks: list[GeomDisk] = []
    current: dict[str, str] | None = None
    seen_any = False
    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("Geom name:"):
            seen_any = True
            if current:
                disks.append(_geom_disk(current))
            current = {"name": _value(line)}
        elif current is None:
            raise ParseError("expected 'Geom name:' first", no, raw)
        elif ":" in line:
            key, _, val = line.partition(":")
            key = re.sub(r"^\d+\.\s*", "", key.strip()).lower()
            current.setdefault(key, val.strip())
    if current:
        disks.append(_geom_disk(current))
    if not seen_any and text.strip():
        raise ParseError("no 'Geom name:' block", 1, text.splitlines()[0])
    return disks


def _geom_disk(d: dict[str, str]) -> GeomDisk:
    def clean(key: str) -> str | None:
        v = d.get(key)
        return v if v and v != "(null)" else None

    size = d.get("mediasize", "").split()
    return GeomDisk(
        name=d["name"],
        description=clean("descr"),
        ident=clean("ident"),
        lunid=clean("lunid"),
        mediasize_bytes=int(size[0]) if size and size[0].isdigit() else None,
        rotation_rate=clean("rotationrate"),
    )


_BUS_LINE = re.compile(r"^scbus(-?\d+) on (\S+) bus \d+:$")
_DEV_LINE = re.compile(
    r"^<(?P<inq>.*)>\s+at scbus(?P<bus>-?\d+) target (?P<target>-?\d+) lun (?P<lun>[0-9a-fA-F]+)"
    r"\s+\((?P<periphs>[^)]*)\)\s*$"
)


# A devlist line is an inquiry string (at most 8+16+4 characters) and a few short fields: a
# much longer line is not camcontrol output, and is refused before any pattern scans it.
MAX_DEVLIST_LINE = 4096


@refuses_hostile_input
def parse_camcontrol_devlist(text: str) -> list[CamDevice]:
    """Devices from ``camcontrol devlist`` (with or without ``-v``); probe/xpt entries dropped."""
    devices: list[CamDevice] = []
    sims: dict[int, str] = {}
    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if len(line) > MAX_DEVLIST_LINE:
            raise ParseError(f"line longer than {MAX_DEVLIST_LINE} characters", no, raw[:120])
        bus_m = _BUS_LINE.match(line)
        if bus_m:
            sims[int(bus_m.group(1))] = bus_m.group(2)
            continue
        m = _DEV_LINE.match(line)
        if not m:
            raise ParseError("not a camcontrol devlist line", no, raw)
        if int(m.group("target")) < 0:
            continue  # the bus's own probe/xpt entry
        bus = int(m.group("bus"))
        periphs = tuple(p.strip() for p in m.group("periphs").split(",") if p.strip())
        devices.append(
            CamDevice(
                inquiry=m.group("inq").strip(),
                bus=bus,
                target=int(m.group("target")),
                lun=int(m.group("lun"), 10 if m.group("lun").isdigit() else 16),
                periphs=periphs,
                sim=sims.get(bus),
            )
        )
    return devices


def transport_from_sim(sim: str | None, disk: str) -> str:
    """Guess the transport from the CAM controller driver (ahcich -> sata, mpr -> sas ...)."""
    if disk.startswith(("nda", "nvd")):
        return "nvme"
    if disk.startswith("vtbd"):
        return "virtio"
    if sim is None:
        return "sata" if disk.startswith("ada") else ""
    driver = re.sub(r"\d+$", "", sim)
    table = {
        "ahcich": "sata", "siisch": "sata", "mvsch": "sata", "ata": "sata",
        "mpr": "sas", "mps": "sas", "mpt": "sas", "mrsas": "sas", "pmspcv": "sas", "isci": "sas",
        "umass-sim": "usb", "nvme": "nvme", "isp": "fc", "iscsi": "iscsi", "vtscsi": "virtio",
    }  # fmt: skip
    return table.get(driver, "scsi")
