"""What a UPS reports, whatever daemon it came from (NUT upsd or apcupsd): one typed reading.

The table ``QUANTITIES`` names each numeric quantity and gives the NUT variable and the apcupsd
key it comes from and its base unit; ``zmon.parsers.ups.nut`` and ``zmon.parsers.ups.apcupsd``
fill a ``UpsReading`` from it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

#: The NUT ``ups.status`` flags, in NUT's documented order.
FLAGS: tuple[str, ...] = (
    "OL", "OB", "LB", "HB", "RB", "CHRG", "DISCHRG", "BYPASS",
    "CAL", "OFF", "OVER", "TRIM", "BOOST", "FSD",
)  # fmt: skip


def text_lines(text: str) -> Iterator[tuple[int, str, str]]:
    """(line number, raw line, stripped line) for each non-blank line of a daemon's answer; a
    leading byte-order mark (from a Windows editor or console) is dropped."""
    for line_no, raw in enumerate(text.removeprefix("\ufeff").splitlines(), 1):
        if line := raw.strip():
            yield line_no, raw, line


_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


@dataclass(frozen=True)
class Quantity:
    """One numeric UPS quantity: its name, where it comes from and how it is converted.

    ``dimension`` is the base unit of the value: ``ratio`` (source in percent), ``seconds``,
    ``volts``, ``hertz``, ``watts``, ``voltamperes``, ``celsius`` or ``count``.
    ``apc_unit`` is the unit apcupsd uses when its value carries none. ``measured`` is False
    for values that do not come from the UPS itself (apcupsd's own thresholds and counters):
    those stay valid while communication with the UPS is lost.
    """

    name: str
    dimension: str
    nut: str | None = None
    apc: str | None = None
    apc_unit: str | None = None
    measured: bool = True
    maximum: float | None = None
    signed: bool = False


QUANTITIES: tuple[Quantity, ...] = (
    Quantity("battery_charge", "ratio", "battery.charge", "BCHARGE", maximum=1.0),
    Quantity(
        "battery_charge_low", "ratio", "battery.charge.low", "MBATTCHG", measured=False, maximum=1.0
    ),
    Quantity("battery_runtime", "seconds", "battery.runtime", "TIMELEFT", apc_unit="minutes"),
    Quantity(
        "battery_runtime_low",
        "seconds",
        "battery.runtime.low",
        "MINTIMEL",
        apc_unit="minutes",
        measured=False,
    ),
    Quantity("battery_voltage", "volts", "battery.voltage", "BATTV"),
    Quantity("battery_nominal_voltage", "volts", "battery.voltage.nominal", "NOMBATTV"),
    Quantity("load", "ratio", "ups.load", "LOADPCT"),
    Quantity("input_voltage", "volts", "input.voltage", "LINEV"),
    Quantity("input_nominal_voltage", "volts", "input.voltage.nominal", "NOMINV"),
    Quantity("input_frequency", "hertz", "input.frequency", "LINEFREQ"),
    Quantity("input_transfer_low", "volts", "input.transfer.low", "LOTRANS"),
    Quantity("input_transfer_high", "volts", "input.transfer.high", "HITRANS"),
    Quantity("output_voltage", "volts", "output.voltage", "OUTPUTV"),
    Quantity("output_nominal_voltage", "volts", "output.voltage.nominal", "NOMOUTV"),
    Quantity("realpower", "watts", "ups.realpower"),
    Quantity("realpower_nominal", "watts", "ups.realpower.nominal", "NOMPOWER"),
    Quantity("power_nominal", "voltamperes", "ups.power.nominal", "NOMAPNT"),
    Quantity("temperature", "celsius", "ups.temperature", "ITEMP", signed=True),
    Quantity("time_on_battery", "seconds", apc="TONBATT", apc_unit="seconds"),
    Quantity(
        "cumulative_time_on_battery", "seconds", apc="CUMONBATT", apc_unit="seconds", measured=False
    ),
    Quantity("transfers", "count", apc="NUMXFERS", measured=False),
)

#: Units that apcupsd writes after a number, mapped to (dimension, factor to the base unit).
APC_UNITS: dict[str, tuple[str, float]] = {
    "percent": ("ratio", 0.01),
    "seconds": ("seconds", 1.0),
    "minutes": ("seconds", 60.0),
    "hours": ("seconds", 3600.0),
    "volts": ("volts", 1.0),
    "hz": ("hertz", 1.0),
    "watts": ("watts", 1.0),
    "va": ("voltamperes", 1.0),
    "c": ("celsius", 1.0),
}


@dataclass(frozen=True)
class UpsInfo:
    """Descriptive facts about a UPS."""

    model: str = ""
    manufacturer: str = ""
    serial: str = ""
    driver: str = ""
    firmware: str = ""


@dataclass(frozen=True)
class UpsReading:
    """One UPS as its daemon described it.

    ``up`` is False when the daemon has lost the UPS (apcupsd COMMLOST, NUT stale data): then
    only values that do not come from the UPS remain. ``flags`` is None when the status is
    unknown; ``reportable_flags`` lists the flags this source can express at all.
    ``values`` maps names of ``QUANTITIES`` to values in base units.
    """

    name: str
    source: str
    up: bool
    flags: frozenset[str] | None = None
    reportable_flags: tuple[str, ...] = FLAGS
    values: dict[str, float] = field(default_factory=dict)
    info: UpsInfo = field(default_factory=UpsInfo)


def parse_number(text: str | None) -> float | None:
    """A plain decimal number (``"012.0"`` is 12.0); None for anything else (``N/A``, ``nan``)."""
    if text is None:
        return None
    text = text.strip()
    if not _NUMBER.fullmatch(text):
        return None
    value = float(text)
    return value if math.isfinite(value) else None


def checked(quantity: Quantity, value: float | None) -> float | None:
    """The value if it is plausible for the quantity, else None (garbage is not exported)."""
    if value is None or not math.isfinite(value):
        return None
    if value < 0 and not quantity.signed:
        return None
    if quantity.maximum is not None and value > quantity.maximum:
        return None
    return value


def clean_label(text: str | None, limit: int = 128) -> str:
    """A label value: printable, trimmed, bounded in length."""
    if not text:
        return ""
    text = "".join(ch if ch.isprintable() else " " for ch in text).strip()
    return text[:limit]
