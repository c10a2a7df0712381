"""smartctl recordings for the demo host, made at refresh time from the lab's SMART captures.

The lab VM's disks are QEMU's emulated ones, and the lab read one of each kind: every SATA disk
answers like the captured ``smartctl -a -j`` of the first one, every NVMe controller like the
first one, with its own device name and serial number. QEMU's ATA emulation reports no pending,
offline-uncorrectable or interface-CRC attribute and no link speed; they are added in smartctl's
JSON shape (zero, 6.0 Gb/s), so the story's cable fault can show on one disk: attribute 199
climbing and the link at 1.5 Gb/s, while the media counters stay at zero. Its failing disk
shows sectors pending (attribute 197), then reallocated (attribute 5), with the timeline.

The commands recorded are the ones the smart collector runs (``zmon/collectors/smart/__init__.py``).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from zmon.demo.timeline import CABLE_FAULT_SERIAL, LINK_GBPS, MEDIA_FAULT_SERIAL, Phase

SCAN = ("smartctl-scan-open.json", "smartctl --scan-open --json=c")
SATA_TEMPLATE = "smartctl-a-j-sata0.json"
NVME_TEMPLATE = "smartctl-a-j-nvme0.json"
_FLAG_BITS = (
    "prefailure",
    "updated_online",
    "performance",
    "error_rate",
    "event_count",
    "auto_keep",
)
_FLAG_CHARS = "POSRCK"
# Attributes QEMU does not report, as a typical SATA hard disk does: (id, name, flags).
ADDED_ATTRIBUTES = (
    (197, "Current_Pending_Sector", 0x32),
    (198, "Offline_Uncorrectable", 0x30),
    (199, "UDMA_CRC_Error_Count", 0x32),
)
_SATA_VALUE = {1.5: 1, 3.0: 2, 6.0: 3}  # current speed: SATA generation
_SATA_MAX_MASK = 0x0E  # IDENTIFY word 76: gen 1, 2 and 3 supported

VERSION_TEXT = """\
smartctl {version} {date} r{svn} [{platform}] {build}
Copyright (C) 2002-22, Bruce Allen, Christian Franke, www.smartmontools.org

smartctl comes with ABSOLUTELY NO WARRANTY. This is free
software, and you are welcome to redistribute it under
the terms of the GNU General Public License; either
version 2, or (at your option) any later version.
See https://www.gnu.org for further details.

smartmontools release {version} dated {date} at 16:33:40 UTC
smartmontools SVN rev {svn} dated {date} at 16:34:26
smartmontools build host: x86_64-pc-linux-gnu
smartmontools build with: C++11, GCC 12.2.0
smartmontools configure arguments: [hidden in reproducible builds]
reproducible build SOURCE_DATE_EPOCH: 1665910132 (2022-10-16 08:48:52)
"""
RELEASE_DATES = {"7.3": "2022-02-28"}


def device_argv(path: str, dtype: str) -> str:
    """The command the smart collector runs for one device (JSON, never waking it)."""
    sasphy = " -l sasphy" if dtype == "scsi" else ""  # as the collector asks SAS disks
    return f"smartctl --json=c --nocheck=standby --all{sasphy} -d {dtype} {path}"


def _compact(doc: dict[str, Any]) -> str:
    return json.dumps(doc, separators=(",", ":")) + "\n"


def _flags(value: int) -> dict[str, Any]:
    text = "".join(c if value & (1 << i) else "-" for i, c in enumerate(_FLAG_CHARS)) + " "
    out: dict[str, Any] = {"value": value, "string": text}
    out.update({name: bool(value & (1 << i)) for i, name in enumerate(_FLAG_BITS)})
    return out


def _attribute(attr_id: int, name: str, flags: int, raw: int) -> dict[str, Any]:
    return {
        "id": attr_id,
        "name": name,
        "value": 100,
        "worst": 100,
        "thresh": 0,
        "when_failed": "",
        "flags": _flags(flags),
        "raw": {"value": raw, "string": str(raw)},
    }


def _speed(gbps: float, sata_value: int) -> dict[str, Any]:
    return {
        "sata_value": sata_value,
        "string": f"{gbps:.1f} Gb/s",
        "units_per_second": int(round(gbps * 10)),
        "bits_per_unit": 100000000,
    }


def _with_argv(doc: dict[str, Any], argv: str) -> dict[str, Any]:
    out = copy.deepcopy(doc)
    out.setdefault("smartctl", {})["argv"] = argv.split()
    return out


def sata_report(
    template: dict[str, Any],
    path: str,
    serial: str,
    argv: str,
    crc_errors: int = 0,
    link_gbps: float = LINK_GBPS,
    pending_sectors: int = 0,
    reallocated_sectors: int = 0,
) -> dict[str, Any]:
    """The template SATA report as another disk gives it, with the added attributes and speed.

    The counts given are the raw values of attributes 199 (interface CRC errors), 197
    (pending sectors) and 5 (reallocated sectors).
    """
    doc = _with_argv(template, argv)
    doc["device"] = {**doc.get("device", {}), "name": path, "info_name": f"{path} [SAT]"}
    doc["serial_number"] = serial
    table = doc.setdefault("ata_smart_attributes", {}).setdefault("table", [])
    present = {row.get("id") for row in table}
    for attr_id, name, flags in ADDED_ATTRIBUTES:
        if attr_id not in present:
            table.append(_attribute(attr_id, name, flags, 0))
    raw = {199: crc_errors, 197: pending_sectors, 5: reallocated_sectors}
    for row in table:
        if row.get("id") in raw:
            value = raw[row["id"]]
            row["raw"] = {"value": value, "string": str(value)}
    table.sort(key=lambda row: int(row.get("id", 0)))
    speed = {
        "max": _speed(LINK_GBPS, _SATA_MAX_MASK),
        "current": _speed(link_gbps, _SATA_VALUE[link_gbps]),
    }
    ordered: dict[str, Any] = {}
    for key, value in doc.items():  # smartctl prints the speed right after the ATA version
        ordered[key] = value
        if key == "ata_version":
            ordered["interface_speed"] = speed
    ordered.setdefault("interface_speed", speed)
    return ordered


def nvme_report(template: dict[str, Any], path: str, serial: str, argv: str) -> dict[str, Any]:
    doc = _with_argv(template, argv)
    doc["device"] = {**doc.get("device", {}), "name": path, "info_name": path}
    doc["serial_number"] = serial
    return doc


def version_text(template: dict[str, Any]) -> str:
    sc = template.get("smartctl", {})
    version = ".".join(str(x) for x in sc.get("version", [7, 3]))
    return VERSION_TEXT.format(
        version=version,
        date=RELEASE_DATES.get(version, "2022-02-28"),
        svn=sc.get("svn_revision", "5338"),
        platform=sc.get("platform_info", "x86_64-linux"),
        build=sc.get("build_info", "(local build)"),
    )


def _serials(lsblk: dict[str, Any]) -> dict[str, str]:
    """/dev path smartctl opens -> serial: disks by name, NVMe namespaces by controller."""
    out: dict[str, str] = {}
    for dev in lsblk.get("blockdevices") or []:
        name, serial = dev.get("name", ""), dev.get("serial")
        if not serial:
            continue
        out[f"/dev/{name}"] = serial
        if dev.get("tran") == "nvme":
            out["/dev/" + name.rsplit("n", 1)[0]] = serial
    return out


class SharedWriter:
    """Writes a recording into a scenario unless an earlier scenario has the same file.

    Then the ``commands.tsv`` row names that one (``../01-healthy/FILE``), so outputs that do
    not change along the story are stored once.
    """

    def __init__(self, dest: Path, earlier: list[Path]) -> None:
        self.dest = dest
        self.earlier = earlier

    def write(self, file: str, text: str) -> str:
        for scen in self.earlier:
            try:
                if (scen / file).read_text() == text:
                    return f"../{scen.name}/{file}"
            except OSError:
                continue
        (self.dest / file).write_text(text)
        return file


def smart_recordings(out: SharedWriter, captured: Path, phase: Phase) -> list[str]:
    """Write ``phase``'s smartctl outputs through ``out``; their ``commands.tsv`` rows.

    ``captured`` is the lab scenario that holds the SMART captures and ``lsblk.json``.
    """
    needed = [captured / n for n in (SCAN[0], SATA_TEMPLATE, NVME_TEMPLATE, "lsblk.json")]
    if not all(p.exists() for p in needed):
        return []
    scan, sata, nvme, lsblk = (json.loads(p.read_text()) for p in needed)
    serials = _serials(lsblk)
    rows = []
    file = out.write("derived-smartctl-version.txt", version_text(sata))
    rows.append(f"{file}\t0\t0\tsmartctl --version")
    file = out.write("derived-smartctl-scan-open.json", _compact(_with_argv(scan, SCAN[1])))
    rows.append(f"{file}\t0\t0\t{SCAN[1]}")
    for entry in scan.get("devices") or []:
        path, dtype = entry.get("name", ""), entry.get("type", "")
        serial = serials.get(path)
        if not serial or dtype not in ("sat", "nvme"):
            continue
        argv = device_argv(path, dtype)
        if dtype == "sat":
            cable, media = serial == CABLE_FAULT_SERIAL, serial == MEDIA_FAULT_SERIAL
            doc = sata_report(
                sata,
                path,
                serial,
                argv,
                crc_errors=phase.crc_errors if cable else 0,
                link_gbps=phase.link_gbps if cable else LINK_GBPS,
                pending_sectors=phase.pending_sectors if media else 0,
                reallocated_sectors=phase.reallocated_sectors if media else 0,
            )
        else:
            doc = nvme_report(nvme, path, serial, argv)
        file = out.write(f"derived-smartctl-{path.rsplit('/', 1)[1]}.json", _compact(doc))
        rows.append(f"{file}\t{doc.get('smartctl', {}).get('exit_status', 0)}\t0\t{argv}")
    return rows
