"""UPS readings to metrics: the one code path for the collector, ``zmon parse`` and replays.

Every UPS series carries ``ups`` (the UPS name) and ``server`` (the daemon's ``HOST:PORT``
as configured, empty for a parsed file), so two servers with a UPS of the same name stay apart.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from zmon.exposition.metrics import MetricSet
from zmon.parsers.ups import apcupsd, nut
from zmon.parsers.ups.ups import FLAGS, QUANTITIES, UpsInfo, UpsReading, clean_label

UP_HELP = "1 when the UPS answers through its daemon (NUT upsd or apcupsd NIS), else 0."
STATUS_HELP = (
    "1 when the UPS status flag is set (NUT ups.status; apcupsd STATUS/STATFLAG mapped onto "
    "the NUT flags). Absent while the UPS is down."
)
INFO_HELP = "UPS metadata (NUT device.*/ups.*/driver.name, apcupsd MODEL/SERIALNO/DRIVER)."
SERVER_UP_HELP = "1 when the UPS daemon (NUT upsd or apcupsd NIS) answered the last query."

_QUANTITIES = {quantity.name: quantity for quantity in QUANTITIES}


@dataclass(frozen=True)
class QuantityMetric:
    """A UPS quantity (a name in ``zmon.parsers.ups.ups.QUANTITIES``) and the series it becomes;
    ``text`` is the help without the sources, which come from the quantity."""

    quantity: str
    metric: str
    text: str
    kind: Literal["gauge", "counter"] = "gauge"

    @property
    def help(self) -> str:
        """What the series means, then the NUT variable and apcupsd key it is read from."""
        quantity = _QUANTITIES[self.quantity]
        sources = [f"NUT {quantity.nut}"] if quantity.nut else []
        sources += [f"apcupsd {quantity.apc}"] if quantity.apc else []
        return f"{self.text} ({', '.join(sources)})."


QUANTITY_METRICS: tuple[QuantityMetric, ...] = (
    QuantityMetric("battery_charge", "zmon_ups_battery_charge_ratio", "Battery charge, 0-1"),
    QuantityMetric(
        "battery_charge_low",
        "zmon_ups_battery_charge_low_ratio",
        "Charge at which the UPS counts as low battery, 0-1",
    ),
    QuantityMetric(
        "battery_runtime", "zmon_ups_battery_runtime_seconds", "Estimated runtime on battery"
    ),
    QuantityMetric(
        "battery_runtime_low",
        "zmon_ups_battery_runtime_low_seconds",
        "Runtime at which the UPS counts as low battery",
    ),
    QuantityMetric("battery_voltage", "zmon_ups_battery_voltage_volts", "Battery voltage"),
    QuantityMetric(
        "battery_nominal_voltage",
        "zmon_ups_battery_nominal_voltage_volts",
        "Nominal battery voltage",
    ),
    QuantityMetric(
        "load",
        "zmon_ups_load_ratio",
        "Load relative to the UPS capacity, 0-1, above 1 when overloaded",
    ),
    QuantityMetric("input_voltage", "zmon_ups_input_voltage_volts", "Input (line) voltage"),
    QuantityMetric(
        "input_nominal_voltage", "zmon_ups_input_nominal_voltage_volts", "Nominal input voltage"
    ),
    QuantityMetric("input_frequency", "zmon_ups_input_frequency_hertz", "Input frequency"),
    QuantityMetric(
        "input_transfer_low",
        "zmon_ups_input_transfer_low_volts",
        "Input voltage below which the UPS goes on battery",
    ),
    QuantityMetric(
        "input_transfer_high",
        "zmon_ups_input_transfer_high_volts",
        "Input voltage above which the UPS goes on battery",
    ),
    QuantityMetric("output_voltage", "zmon_ups_output_voltage_volts", "Output voltage"),
    QuantityMetric(
        "output_nominal_voltage", "zmon_ups_output_nominal_voltage_volts", "Nominal output voltage"
    ),
    QuantityMetric("realpower", "zmon_ups_realpower_watts", "Real power drawn by the load"),
    QuantityMetric("realpower_nominal", "zmon_ups_realpower_nominal_watts", "Nominal real power"),
    QuantityMetric("power_nominal", "zmon_ups_power_nominal_voltamperes", "Nominal apparent power"),
    QuantityMetric("temperature", "zmon_ups_temperature_celsius", "UPS internal temperature"),
    QuantityMetric(
        "time_on_battery",
        "zmon_ups_time_on_battery_seconds",
        "Time on battery of the current power failure, 0 on line",
    ),
    QuantityMetric(
        "cumulative_time_on_battery",
        "zmon_ups_on_battery_seconds_total",
        "Time spent on battery since apcupsd started",
        "counter",
    ),
    QuantityMetric(
        "transfers",
        "zmon_ups_transfers_total",
        "Transfers to battery since apcupsd started",
        "counter",
    ),
)


def reading_metrics(reading: UpsReading, *, server: str = "") -> MetricSet:
    """All series for one UPS reading."""
    ms = MetricSet()
    labels = {"ups": clean_label(reading.name), "server": server}
    ms.gauge("zmon_ups_up", UP_HELP, 1.0 if reading.up else 0.0, labels)
    if reading.up and reading.flags is not None:
        for flag in FLAGS:
            if flag in reading.reportable_flags:
                value = 1.0 if flag in reading.flags else 0.0
                ms.gauge("zmon_ups_status", STATUS_HELP, value, {**labels, "flag": flag})
    for spec in QUANTITY_METRICS:
        add = ms.counter if spec.kind == "counter" else ms.gauge
        add(spec.metric, spec.help, reading.values.get(spec.quantity), labels)
    info = reading.info
    if not reading.up and info == UpsInfo():
        return ms  # nothing is known about a UPS that never answered
    ms.info(
        "zmon_ups_info",
        INFO_HELP,
        {
            **labels,
            "source": reading.source,
            "model": clean_label(info.model),
            "manufacturer": clean_label(info.manufacturer),
            "serial": clean_label(info.serial),
            "driver": clean_label(info.driver),
            "firmware": clean_label(info.firmware),
        },
    )
    return ms


def nut_vars_to_metrics(
    ups_name: str, variables: Mapping[str, str], *, server: str = "", up: bool = True
) -> MetricSet:
    """Metrics for one NUT UPS from its variables (``LIST VAR`` / ``upsc``), e.g. for a replay.

    ``up=False`` reports the UPS as lost (upsd said DATA-STALE or DRIVER-NOT-CONNECTED);
    the variables then only feed ``zmon_ups_info``.
    """
    return reading_metrics(nut.reading_from_vars(ups_name, variables, up=up), server=server)


def apcupsd_fields_to_metrics(
    fields: Mapping[str, str],
    *,
    ups_name: str | None = None,
    fallback_name: str = "apcupsd",
    server: str = "",
) -> MetricSet:
    """Metrics for one apcupsd UPS from its status fields (NIS ``status`` / ``apcaccess``)."""
    reading = apcupsd.reading_from_fields(fields, name=ups_name, fallback_name=fallback_name)
    return reading_metrics(reading, server=server)


def ups_down_metrics(
    ups_name: str, source: str, *, server: str = "", info: UpsInfo | None = None
) -> MetricSet:
    """A UPS that could not be read: ``zmon_ups_up`` 0 (and its last known info)."""
    reading = UpsReading(name=ups_name, source=source, up=False, info=info or UpsInfo())
    return reading_metrics(reading, server=server)


def server_metrics(server: str, source: str, up: bool) -> MetricSet:
    """``zmon_ups_server_up`` for one configured daemon."""
    ms = MetricSet()
    ms.gauge(
        "zmon_ups_server_up",
        SERVER_UP_HELP,
        1.0 if up else 0.0,
        {"server": server, "source": source},
    )
    return ms
