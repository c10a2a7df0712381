"""The smartctl data model and the helpers that smartctl_json and smartctl_text share.

Pure: dataclasses and small functions, no I/O.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

# smartctl(8) EXIT STATUS, bit by bit.
EXIT_BITS = (
    "command_line_error",  # 0: command line did not parse (also: device type unknown)
    "device_open_failed",  # 1: open failed, no IDENTIFY, or skipped in low-power mode (-n)
    "smart_command_failed",  # 2: a SMART/ATA command failed or checksum error
    "disk_failing",  # 3: SMART status returned "DISK FAILING"
    "prefail_below_threshold",  # 4: prefail attributes <= threshold
    "attribute_below_threshold_in_past",  # 5: usage/prefail attributes <= threshold in the past
    "error_log_has_errors",  # 6: the device error log has records
    "self_test_log_has_errors",  # 7: the self-test log has records of errors
)

# What a self-test ended with; one series per state in the exposition.
TEST_OUTCOMES = ("passed", "failed", "aborted", "in_progress")


@dataclass
class AtaAttribute:
    """One row of the ATA SMART attribute table, keyed by ``id`` (names repeat)."""

    id: int
    name: str
    value: int | None
    worst: int | None
    threshold: int | None
    raw: float | None  # leading number of the RAW_VALUE as smartctl decodes it
    raw_string: str
    when_failed: str = ""  # "", "now" or "past"
    prefailure: bool | None = None


@dataclass
class SelfTest:
    """One entry of a self-test log, most recent first."""

    number: int
    kind: str
    status: str
    outcome: str | None  # one of TEST_OUTCOMES, None if unknown
    power_on_hours: int | None = None
    remaining_percent: int | None = None


@dataclass
class NvmeHealth:
    """The NVMe SMART/Health Information log (0x02); time fields in minutes as the log has them."""

    critical_warning: int | None = None
    available_spare: int | None = None  # percent
    available_spare_threshold: int | None = None  # percent
    percentage_used: int | None = None  # percent, may exceed 100
    data_units_read: int | None = None  # units of 1000 * 512 bytes
    data_units_written: int | None = None
    host_reads: int | None = None
    host_writes: int | None = None
    controller_busy_time: int | None = None  # minutes
    unsafe_shutdowns: int | None = None
    media_errors: int | None = None
    error_log_entries: int | None = None
    warning_temp_time: int | None = None  # minutes
    critical_comp_time: int | None = None  # minutes


@dataclass
class ScsiErrorCounter:
    """One row (read, write, verify) of the SCSI error counter log."""

    corrected: int | None = None
    uncorrected: int | None = None
    processed_bytes: float | None = None


@dataclass
class ScsiHealth:
    grown_defects: int | None = None
    non_medium_errors: int | None = None
    trip_temperature: float | None = None
    percentage_used: int | None = None
    counters: dict[str, ScsiErrorCounter] = field(default_factory=dict)


@dataclass
class SasPhy:
    """One PHY of a SAS disk's target ports (SCSI Protocol Specific port log page 0x18).

    Counters are the disk's own view of its link: they rise on a bad cable, backplane slot or
    expander port, not on a bad medium.
    """

    port: int  # relative target port id (1 and 2 on a dual-port disk)
    phy: int  # phy identifier
    sas_address: str | None = None
    attached_sas_address: str | None = None
    attached_phy: int | None = None
    attached_device_type: str | None = None  # "expander device", "SAS or SATA device" ...
    link_rate_bits: float | None = None  # negotiated logical link rate; None if not enabled
    invalid_dwords: int | None = None
    running_disparity_errors: int | None = None
    loss_of_dword_sync: int | None = None
    phy_reset_problems: int | None = None


def sas_link_rate_bits(text: str) -> float | None:
    """``phy enabled; 12 Gbps`` -> 12e9; ``phy enabled; 1.5 Gbps`` -> 1.5e9; disabled -> None."""
    m = re.search(r"(\d+(?:\.\d+)?)\s*Gbps", text)
    return float(m.group(1)) * 1e9 if m else None


@dataclass
class SmartReport:
    """Everything zmon takes from one smartctl run on one device."""

    source: str  # "json" or "text"
    smartctl_version: str | None = None
    exit_status: int | None = None
    messages: list[tuple[str, str]] = field(default_factory=list)  # (severity, text)
    device_name: str | None = None  # as smartctl printed it (/dev/sda)
    device_type: str | None = None  # smartctl -d type (sat, nvme, scsi ...)
    protocol: str | None = None  # ATA, NVMe, SCSI
    model: str | None = None
    model_family: str | None = None
    serial: str | None = None
    firmware: str | None = None
    wwn: str | None = None
    capacity_bytes: int | None = None
    rotation_rate_rpm: int | None = None  # 0 for solid state
    smart_available: bool | None = None
    smart_enabled: bool | None = None
    passed: bool | None = None
    power_mode: str | None = None  # set when smartctl skipped the device (STANDBY, SLEEP ...)
    temperature_celsius: float | None = None
    power_on_seconds: float | None = None
    power_cycles: int | None = None
    interface_speed_max_bits: float | None = None
    interface_speed_current_bits: float | None = None
    attributes: list[AtaAttribute] = field(default_factory=list)
    duplicate_attributes: int = 0
    ata_error_log_count: int | None = None
    self_test_in_progress: bool | None = None
    self_tests: list[SelfTest] = field(default_factory=list)
    nvme: NvmeHealth | None = None
    scsi: ScsiHealth | None = None
    sas_phys: list[SasPhy] = field(default_factory=list)

    def add_sas_phy(self, phy: SasPhy) -> None:
        """Keep the first entry for each (port, phy): a pasted page twice gives one series."""
        if not any((p.port, p.phy) == (phy.port, phy.phy) for p in self.sas_phys):
            self.sas_phys.append(phy)

    @property
    def standby(self) -> bool:
        """smartctl skipped the device because it was asleep (``--nocheck=standby``)."""
        return self.power_mode is not None

    @property
    def has_data(self) -> bool:
        """True if the device answered with any health data."""
        return (
            self.passed is not None
            or bool(self.attributes)
            or self.nvme is not None
            or self.scsi is not None
            or self.temperature_celsius is not None
        )

    def attribute(self, attr_id: int) -> AtaAttribute | None:
        return next((a for a in self.attributes if a.id == attr_id), None)

    def add_attribute(self, attr: AtaAttribute) -> None:
        """Keep the first row of each attribute ID: a repeated row (pasted twice, or a
        duplicated JSON entry) would otherwise give two series with the same labels."""
        if self.attribute(attr.id) is None:
            self.attributes.append(attr)
        else:
            self.duplicate_attributes += 1

    @property
    def self_test_failed_count(self) -> int:
        return sum(1 for t in self.self_tests if t.outcome == "failed")


def check_status(report: SmartReport) -> str:
    """Classify a run: ok, standby, unsupported, open_failed or error (timeout is the caller's)."""
    if report.standby:
        return "standby"
    if report.has_data:
        return "ok"
    text = " ".join(m for _, m in report.messages).lower()
    unsupported = (
        "unable to detect device type" in text
        or "unknown usb bridge" in text
        or "unsupported" in text
        or report.smart_available is False
        or report.smart_enabled is False
    )
    if unsupported:
        return "unsupported"
    if report.exit_status is not None and report.exit_status & 0b10:
        return "open_failed"
    if "open device" in text and "failed" in text:
        return "open_failed"
    return "error"


# smartctl prints "Device is in STANDBY mode, exit(2)" (also SLEEP, IDLE_A, "STANDBY (OS)",
# SCSI "STANDBY BY TIMER") when -n/--nocheck made it skip the device.
POWER_MODE_SKIP = re.compile(r"Device is in (?P<mode>.+?) mode, exit\((?P<code>\d+)\)")


def leading_number(raw: str) -> float | None:
    """smartctl's decoded raw value: ``31 (Min/Max 31/31)`` -> 31, ``0/0`` -> 0, ``0x0a`` -> 10."""
    s = raw.strip()
    m = re.match(r"^0x([0-9a-fA-F]+)\b", s)
    if m:
        return float(int(m.group(1), 16))
    m = re.match(r"^-?\d+(?:\.\d+)?", s)
    value = float(m.group(0)) if m else None
    return value if value is not None and math.isfinite(value) else None


def power_on_seconds_from_attribute(name: str, raw: str) -> float | None:
    """Attribute 9 as seconds: ``7963h+07m+54.620s``, plain hours, or minute/half-minute counts."""
    m = re.match(r"^\s*(\d+)h(?:\+(\d+)m)?(?:\+(\d+(?:\.\d+)?)s)?", raw)
    if m:
        return int(m.group(1)) * 3600.0 + int(m.group(2) or 0) * 60 + float(m.group(3) or 0)
    n = leading_number(raw)
    if n is None:
        return None
    lowered = name.lower()
    if "half_min" in lowered:
        return n * 30
    if "min" in lowered:
        return n * 60
    if "sec" in lowered and "msec" not in lowered:
        return n
    return n * 3600


def wwn_from_naa(naa: int, oui: int, ident: int) -> str:
    """The 64-bit NAA WWN as ``0x`` hex, as in ``/dev/disk/by-id/wwn-0x...``."""
    return f"0x{naa:x}{oui:06x}{ident:09x}"


def test_outcome_ata(status_value: int) -> str | None:
    """ATA self-test status byte -> outcome (upper nibble, see ataprint.cpp)."""
    hi = status_value >> 4
    if hi == 0:
        return "passed"
    if hi in (1, 2):
        return "aborted"
    if 3 <= hi <= 8:
        return "failed"
    if hi == 15:
        return "in_progress"
    return None


def test_outcome_from_text(status: str) -> str | None:
    """Outcome from a status string of any self-test log (ATA, NVMe or SCSI)."""
    s = status.strip().lower()
    if s in ("completed without error", "completed"):
        return "passed"
    if "progress" in s:
        return "in_progress"
    if s.startswith(("aborted", "interrupted")):
        return "aborted"
    if s.startswith(("completed:", "completed,", "fatal", "failed", "unknown error")):
        return "failed"
    return None
