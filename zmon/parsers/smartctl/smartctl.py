"""smartctl output (``--json`` primary, text ``-a``/``-x`` too) -> one typed ``SmartReport``.

The data model and shared helpers live in ``smartctl_model``; JSON is read by ``smartctl_json``
and text by ``smartctl_text``. Both fill the same dataclasses, so the exposition does not care
where a report came from. The scan and version parsers live here. Pure: bytes in, dataclasses
out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from zmon.base.errors import ParseError, refuses_hostile_input
from zmon.parsers.smartctl.smartctl_json import load_json, opt_str, parse_smartctl_json
from zmon.parsers.smartctl.smartctl_model import (  # re-exported: the model's public names
    EXIT_BITS,
    POWER_MODE_SKIP,
    TEST_OUTCOMES,
    AtaAttribute,
    NvmeHealth,
    SasPhy,
    ScsiErrorCounter,
    ScsiHealth,
    SelfTest,
    SmartReport,
    check_status,
    leading_number,
    power_on_seconds_from_attribute,
    sas_link_rate_bits,
    test_outcome_ata,
    test_outcome_from_text,
    wwn_from_naa,
)
from zmon.parsers.smartctl.smartctl_text import parse_smartctl_text


@refuses_hostile_input
def parse_smartctl(data: bytes) -> SmartReport:
    """Parse smartctl output, JSON or text, telling them apart by the first character."""
    text = data.decode("utf-8", "replace")
    if text.lstrip().startswith("{"):
        return parse_smartctl_json(text)
    return parse_smartctl_text(text)


@dataclass(frozen=True)
class ScanEntry:
    """One device of ``smartctl --scan-open``."""

    name: str  # /dev/sda, /dev/nvme0, /dev/bus/0
    type: str  # the -d argument: sat, nvme, scsi, megaraid,0, sntjmicron ...
    protocol: str | None = None
    open_error: str | None = None


@refuses_hostile_input
def parse_scan(data: bytes) -> list[ScanEntry]:
    """``smartctl --scan-open -j`` (or the text form ``/dev/sda -d sat # ...``)."""
    text = data.decode("utf-8", "replace")
    if text.lstrip().startswith("{"):
        doc = load_json(text)
        out = []
        for d in doc.get("devices") or []:
            if isinstance(d, dict) and opt_str(d.get("name")) and opt_str(d.get("type")):
                proto, err = opt_str(d.get("protocol")), opt_str(d.get("open_error"))
                out.append(ScanEntry(d["name"], d["type"], proto, err))
        return out
    entries = []
    for no, line in enumerate(text.splitlines(), 1):
        m = re.match(r"^(#\s*)?(\S+)\s+-d\s+(\S+)\s*(?:#\s*(.*))?$", line.strip())
        if not m:
            if line.strip() and not line.lstrip().startswith("#"):
                raise ParseError("not a smartctl --scan line", no, line)
            continue
        comment = m.group(4) or ""
        err = comment.split("open failed:", 1)[1].strip() if "open failed:" in comment else None
        if m.group(1) and err is None:
            continue
        pm = re.search(r",\s*(\S+) device", comment)
        entries.append(ScanEntry(m.group(2), m.group(3), pm.group(1) if pm else None, err))
    return entries


@refuses_hostile_input
def parse_version(data: bytes) -> tuple[int, int] | None:
    """``smartctl --version`` (or a JSON document) -> (major, minor)."""
    m = re.search(r"smartctl (?:version )?(\d+)\.(\d+)", data.decode("utf-8", "replace"))
    return (int(m.group(1)), int(m.group(2))) if m else None


__all__ = [
    "AtaAttribute",
    "EXIT_BITS",
    "NvmeHealth",
    "POWER_MODE_SKIP",
    "SasPhy",
    "ScanEntry",
    "ScsiErrorCounter",
    "ScsiHealth",
    "SelfTest",
    "SmartReport",
    "TEST_OUTCOMES",
    "check_status",
    "leading_number",
    "parse_scan",
    "parse_smartctl",
    "parse_version",
    "power_on_seconds_from_attribute",
    "sas_link_rate_bits",
    "test_outcome_ata",
    "test_outcome_from_text",
    "wwn_from_naa",
]
