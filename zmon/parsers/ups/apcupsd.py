"""apcupsd: ``apcaccess`` / NIS ``status`` output to a ``UpsReading``."""

from __future__ import annotations

import re
from collections.abc import Mapping

from zmon.base.errors import ParseError, refuses_hostile_input
from zmon.parsers.ups.ups import (
    APC_UNITS,
    QUANTITIES,
    Quantity,
    UpsInfo,
    UpsReading,
    checked,
    parse_number,
    text_lines,
)

# "KEY      : value": upper-case key (may hold a space: "END APC"), padded to the colon.
_FIELD_LINE = re.compile(r"([A-Z][A-Z0-9_]*(?: [A-Z0-9_]+)?)\s*:(.*)")
# A number, optionally followed by its unit and more words ("14.0 Percent Load Capacity").
_QUANTITY = re.compile(r"([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:\s+(\S+)(?:\s.*)?)?")
_STATFLAG = re.compile(r"\s*0x([0-9A-Fa-f]{1,8})\b")

#: STATUS words (apcupsd prints them space-separated) mapped onto NUT flags.
STATUS_WORDS: dict[str, str] = {
    "CAL": "CAL",
    "TRIM": "TRIM",
    "BOOST": "BOOST",
    "ONLINE": "OL",
    "ONBATT": "OB",
    "OVERLOAD": "OVER",
    "LOWBATT": "LB",
    "REPLACEBATT": "RB",
    "SHUTTING DOWN": "FSD",
}

#: STATFLAG bits (apcupsd's UPS status word) mapped onto NUT flags.
STATFLAG_BITS: dict[int, str] = {
    0x001: "CAL",
    0x002: "TRIM",
    0x004: "BOOST",
    0x008: "OL",
    0x010: "OB",
    0x020: "OVER",
    0x040: "LB",
    0x080: "RB",
    0x200: "FSD",  # apcupsd has started the shutdown
}
STATFLAG_COMMLOST = 0x100
STATFLAG_SLAVEDOWN = 0x800

#: The flags apcupsd can express; the others (HB, CHRG, DISCHRG, BYPASS, OFF) are not exported.
REPORTABLE_FLAGS: tuple[str, ...] = ("OL", "OB", "LB", "RB", "CAL", "OVER", "TRIM", "BOOST", "FSD")


@refuses_hostile_input
def parse_apcaccess(text: str) -> dict[str, str]:
    """Parse ``apcaccess`` / NIS status text into ``{KEY: value}`` (values stripped).

    Lines that are not ``KEY : value`` (prompts, blank lines) are skipped. Raises ParseError
    when there is no such line or apcaccess reported an error instead.
    """
    fields: dict[str, str] = {}
    first_line: tuple[int, str] | None = None
    for line_no, raw, line in text_lines(text):
        if first_line is None:
            first_line = (line_no, raw)
        if line.startswith(("Error contacting", "FATAL ERROR")):
            raise ParseError("apcaccess reported an error", line_no, raw)
        match = _FIELD_LINE.fullmatch(line)
        if match:
            fields.setdefault(match.group(1), match.group(2).strip())
    if not fields:
        if first_line is None:
            raise ParseError("empty input: no apcaccess 'KEY : value' lines")
        raise ParseError("no apcaccess 'KEY : value' lines found", *first_line)
    return fields


def status_flags(status: str | None, statflag: int | None) -> frozenset[str] | None:
    """NUT flags from the STATUS words and STATFLAG bits (their union); None when both absent,
    or when STATUS is blank: apcupsd has not read the UPS yet (just started), so its STATFLAG
    holds no status bits either, and the status is unknown rather than "none of the flags"."""
    if status is None and statflag is None:
        return None
    if status is not None and not status.strip():
        return None
    flags: set[str] = set()
    text = " ".join((status or "").upper().split())
    if "SHUTTING DOWN" in text:
        flags.add("FSD")
    for word in text.split():
        if word in STATUS_WORDS:
            flags.add(STATUS_WORDS[word])
    if statflag is not None:
        flags.update(flag for bit, flag in STATFLAG_BITS.items() if statflag & bit)
    return frozenset(flags)


def parse_statflag(value: str | None) -> int | None:
    """The STATFLAG word (``0x05000100`` or ``0x05000008 Status Flag``); None if unreadable."""
    match = _STATFLAG.match(value or "")
    return int(match.group(1), 16) if match else None


def is_commlost(fields: Mapping[str, str]) -> bool:
    """True when apcupsd has lost the UPS (COMMLOST, or a slave that lost its master)."""
    words = set((fields.get("STATUS") or "").upper().split())
    if words & {"COMMLOST", "SLAVEDOWN"}:
        return True
    statflag = parse_statflag(fields.get("STATFLAG"))
    return statflag is not None and bool(statflag & (STATFLAG_COMMLOST | STATFLAG_SLAVEDOWN))


def quantity_value(quantity: Quantity, text: str | None) -> float | None:
    """Convert an apcupsd value (``"46.8 Minutes"``, ``"224.0 Volts"``) to the base unit.

    A value without a unit is read in ``quantity.apc_unit`` (percent for ratios); a unit
    that does not fit the quantity, or text that is not a number, gives None.
    """
    match = _QUANTITY.fullmatch((text or "").strip())
    number = parse_number(match.group(1)) if match else None
    if match is None or number is None:
        return None
    unit = (match.group(2) or "").lower()
    if quantity.dimension == "count":
        return checked(quantity, number) if not unit else None
    if not unit:
        unit = quantity.apc_unit or ("percent" if quantity.dimension == "ratio" else "")
    if not unit:
        return checked(quantity, number)
    dimension, factor = APC_UNITS.get(unit, ("", 0.0))
    if dimension != quantity.dimension:
        return None
    # Percent is divided (57 / 100 is 0.57 exactly; 57 * 0.01 is not).
    return checked(quantity, number / 100.0 if dimension == "ratio" else number * factor)


def reading_from_fields(
    fields: Mapping[str, str], *, name: str | None = None, fallback_name: str = "apcupsd"
) -> UpsReading:
    """Build a reading from apcupsd status fields.

    The UPS is named ``name``, else UPSNAME, else ``fallback_name``. When apcupsd has lost
    the UPS, the reading is down: no status flags and no measured values (charge and runtime
    are unknown, never 0), only apcupsd's own thresholds and counters.
    """
    up = not is_commlost(fields)
    values: dict[str, float] = {}
    for quantity in QUANTITIES:
        if quantity.apc is None or (quantity.measured and not up):
            continue
        value = quantity_value(quantity, fields.get(quantity.apc))
        if value is not None:
            values[quantity.name] = value
    flags = (
        status_flags(fields.get("STATUS"), parse_statflag(fields.get("STATFLAG"))) if up else None
    )
    info = UpsInfo(
        model=(fields.get("MODEL") or fields.get("APCMODEL") or "").strip(),
        serial=(fields.get("SERIALNO") or "").strip(),
        driver=(fields.get("DRIVER") or "").strip(),
        firmware=(fields.get("FIRMWARE") or "").strip(),
    )
    ups_name = name or (fields.get("UPSNAME") or "").strip() or fallback_name
    return UpsReading(
        name=ups_name,
        source="apcupsd",
        up=up,
        flags=flags,
        reportable_flags=REPORTABLE_FLAGS,
        values=values,
        info=info,
    )
