"""What a UPS reports, whatever daemon it came from (NUT upsd or apcupsd): one typed reading.

The table ``QUANTITIES`` maps each exported quantity to the NUT variable and the apcupsd key
it comes from and to its base unit; ``zmon.parsers.ups.nut`` and ``zmon.parsers.ups.apcupsd`` fill a
``UpsReading`` from it, and ``zmon.collectors.ups.metrics`` turns a reading into metrics.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

#: The NUT ``ups.status`` flags exported as ``zmon_ups_status{flag}``, in NUT's documented order.
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
    """One numeric UPS quantity: where it comes from and how it is converted.

    ``dimension`` is the base unit exported: ``ratio`` (source in percent), ``seconds``,
    ``volts``, ``hertz``, ``watts``, ``voltamperes``, ``celsius`` or ``count``.
    ``apc_unit`` is the unit apcupsd uses when its value carries none. ``measured`` is False
    for values that do not come from the UPS itself (apcupsd's own thresholds and counters):
    those stay valid while communication with the UPS is lost.
    """

    metric: str
    help: str
    dimension: str
    nut: str | None = None
    apc: str | None = None
    apc_unit: str | None = None
    counter: bool = False
    measured: bool = True
    maximum: float | None = None
    signed: bool = False


QUANTITIES: tuple[Quantity, ...] = (
    Quantity(
        "zmon_ups_battery_charge_ratio",
        "Battery charge, 0-1 (NUT battery.charge, apcupsd BCHARGE).",
        "ratio",
        "battery.charge",
        "BCHARGE",
        maximum=1.0,
    ),
    Quantity(
        "zmon_ups_battery_charge_low_ratio",
        "Charge at which the UPS counts as low "
        "battery, 0-1 (NUT battery.charge.low, apcupsd MBATTCHG).",
        "ratio",
        "battery.charge.low",
        "MBATTCHG",
        measured=False,
        maximum=1.0,
    ),
    Quantity(
        "zmon_ups_battery_runtime_seconds",
        "Estimated runtime on battery (NUT battery.runtime, apcupsd TIMELEFT).",
        "seconds",
        "battery.runtime",
        "TIMELEFT",
        apc_unit="minutes",
    ),
    Quantity(
        "zmon_ups_battery_runtime_low_seconds",
        "Runtime at which the UPS counts as low "
        "battery (NUT battery.runtime.low, apcupsd MINTIMEL).",
        "seconds",
        "battery.runtime.low",
        "MINTIMEL",
        apc_unit="minutes",
        measured=False,
    ),
    Quantity(
        "zmon_ups_battery_voltage_volts",
        "Battery voltage (NUT battery.voltage, apcupsd BATTV).",
        "volts",
        "battery.voltage",
        "BATTV",
    ),
    Quantity(
        "zmon_ups_battery_nominal_voltage_volts",
        "Nominal battery voltage (NUT battery.voltage.nominal, apcupsd NOMBATTV).",
        "volts",
        "battery.voltage.nominal",
        "NOMBATTV",
    ),
    Quantity(
        "zmon_ups_load_ratio",
        "Load relative to the UPS capacity, 0-1, above 1 when "
        "overloaded (NUT ups.load, apcupsd LOADPCT).",
        "ratio",
        "ups.load",
        "LOADPCT",
    ),
    Quantity(
        "zmon_ups_input_voltage_volts",
        "Input (line) voltage (NUT input.voltage, apcupsd LINEV).",
        "volts",
        "input.voltage",
        "LINEV",
    ),
    Quantity(
        "zmon_ups_input_nominal_voltage_volts",
        "Nominal input voltage (NUT input.voltage.nominal, apcupsd NOMINV).",
        "volts",
        "input.voltage.nominal",
        "NOMINV",
    ),
    Quantity(
        "zmon_ups_input_frequency_hertz",
        "Input frequency (NUT input.frequency, apcupsd LINEFREQ).",
        "hertz",
        "input.frequency",
        "LINEFREQ",
    ),
    Quantity(
        "zmon_ups_input_transfer_low_volts",
        "Input voltage below which the UPS goes on "
        "battery (NUT input.transfer.low, apcupsd LOTRANS).",
        "volts",
        "input.transfer.low",
        "LOTRANS",
    ),
    Quantity(
        "zmon_ups_input_transfer_high_volts",
        "Input voltage above which the UPS goes on "
        "battery (NUT input.transfer.high, apcupsd HITRANS).",
        "volts",
        "input.transfer.high",
        "HITRANS",
    ),
    Quantity(
        "zmon_ups_output_voltage_volts",
        "Output voltage (NUT output.voltage, apcupsd OUTPUTV).",
        "volts",
        "output.voltage",
        "OUTPUTV",
    ),
    Quantity(
        "zmon_ups_output_nominal_voltage_volts",
        "Nominal output voltage (NUT output.voltage.nominal, apcupsd NOMOUTV).",
        "volts",
        "output.voltage.nominal",
        "NOMOUTV",
    ),
    Quantity(
        "zmon_ups_realpower_watts",
        "Real power drawn by the load (NUT ups.realpower).",
        "watts",
        "ups.realpower",
    ),
    Quantity(
        "zmon_ups_realpower_nominal_watts",
        "Nominal real power (NUT ups.realpower.nominal, apcupsd NOMPOWER).",
        "watts",
        "ups.realpower.nominal",
        "NOMPOWER",
    ),
    Quantity(
        "zmon_ups_power_nominal_voltamperes",
        "Nominal apparent power (NUT ups.power.nominal, apcupsd NOMAPNT).",
        "voltamperes",
        "ups.power.nominal",
        "NOMAPNT",
    ),
    Quantity(
        "zmon_ups_temperature_celsius",
        "UPS internal temperature (NUT ups.temperature, apcupsd ITEMP).",
        "celsius",
        "ups.temperature",
        "ITEMP",
        signed=True,
    ),
    Quantity(
        "zmon_ups_time_on_battery_seconds",
        "Time on battery of the current power failure, 0 on line (apcupsd TONBATT).",
        "seconds",
        apc="TONBATT",
        apc_unit="seconds",
    ),
    Quantity(
        "zmon_ups_on_battery_seconds_total",
        "Time spent on battery since apcupsd started (apcupsd CUMONBATT).",
        "seconds",
        apc="CUMONBATT",
        apc_unit="seconds",
        counter=True,
        measured=False,
    ),
    Quantity(
        "zmon_ups_transfers_total",
        "Transfers to battery since apcupsd started (apcupsd NUMXFERS).",
        "count",
        apc="NUMXFERS",
        counter=True,
        measured=False,
    ),
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
    """Descriptive facts about a UPS, exported as ``zmon_ups_info`` labels."""

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
    ``values`` maps metric names of ``QUANTITIES`` to values in base units.
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
