"""Handlers for the ``Key: value`` lines of smartctl's text report (used by smartctl_text)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from zmon.parsers.smartctl.smartctl_model import test_outcome_ata

# smartctl prints 64-bit counters and 128-bit NVMe data units (at most 39 digits); a longer
# number is damaged output that would not even fit a float.
MAX_DIGITS = 40


def _bounded(digits: str, base: int = 10) -> int | None:
    return int(digits, base) if digits and len(digits) <= MAX_DIGITS else None


def count(value: str) -> int | None:
    """``1,299,288 [665 GB]`` -> 1299288; ``0x00`` -> 0; ``100%`` -> 100."""
    v = value.strip()
    m = re.match(r"^0x([0-9a-fA-F]+)\b", v)
    if m:
        return _bounded(m.group(1), 16)
    m = re.match(r"^(\d[\d,.'\u00a0\u2019 ]*?)(?=\s*(?:$|\[|%|[A-Za-z(]))", v)
    if not m:
        return None
    return _bounded(re.sub(r"\D", "", m.group(1)))


def _capacity(value: str) -> int | None:
    m = re.match(r"^\s*([\d,.'\u00a0\u2019 ]+?)\s*(?:bytes|\[)", value)
    if not m:
        return None
    return _bounded(re.sub(r"\D", "", m.group(1)))


def _speed_bits(text: str) -> float | None:
    m = re.match(r"^\s*(\d+(?:\.\d+)?)\s*Gb/s", text)
    return float(m.group(1)) * 1e9 if m else None


def _or_none(value: str) -> str | None:
    return value or None


def _set(attr: str, conv: Callable[[str], Any] = _or_none) -> Callable[[Any, str], None]:
    """A handler that stores the (converted) value in ``SmartReport.<attr>``."""

    def handler(p: Any, value: str) -> None:
        setattr(p.r, attr, conv(value))

    return handler


def _model(p: Any, value: str) -> None:
    p.r.model = value or None
    if p.protocol_hint is None:
        p.protocol_hint = "ATA"


def _nvme_model(p: Any, value: str) -> None:
    p.r.model = value or None
    p.protocol_hint = "NVMe"


def _vendor(p: Any, value: str) -> None:
    p.vendor, p.protocol_hint = value or None, "SCSI"


def _product(p: Any, value: str) -> None:
    p.product, p.protocol_hint = value or None, "SCSI"


def _lu_wwn(p: Any, value: str) -> None:
    parts = value.split()
    if len(parts) == 3 and all(re.fullmatch(r"[0-9a-fA-F]+", x) for x in parts):
        p.r.wwn = "0x" + "".join(parts).lower()


def _eui(p: Any, value: str) -> None:
    hexed = value.replace(" ", "").lower()
    if re.fullmatch(r"[0-9a-f]{16}", hexed) and p.r.wwn is None:
        p.r.wwn = "eui." + hexed


def _capacity_key(p: Any, value: str) -> None:
    if p.r.capacity_bytes is None:
        p.r.capacity_bytes = _capacity(value)


def _rotation(p: Any, value: str) -> None:
    if "Solid State" in value:
        p.r.rotation_rate_rpm = 0
    else:
        m = re.match(r"^(\d+)\s*rpm", value)
        p.r.rotation_rate_rpm = int(m.group(1)) if m else None


def _sata_version(p: Any, value: str) -> None:
    m = re.search(r",\s*([\d.]+\s*Gb/s)(?:\s*\(current:\s*([\d.]+\s*Gb/s)\))?", value)
    if m:
        p.r.interface_speed_max_bits = _speed_bits(m.group(1))
        p.r.interface_speed_current_bits = _speed_bits(m.group(2)) if m.group(2) else None


def _smart_support(p: Any, value: str) -> None:
    v = value.lower()
    if v.startswith("unavailable") or "lacks smart" in v:
        p.r.smart_available = False
    elif v.startswith("available"):
        p.r.smart_available = True
    elif v.startswith("enabled"):
        p.r.smart_enabled = True
    elif v.startswith("disabled"):
        p.r.smart_enabled = False


def _overall_health(p: Any, value: str) -> None:
    v = value.upper()
    p.r.passed = True if v.startswith("PASSED") else False if v.startswith("FAILED") else None


def _scsi_health(p: Any, value: str) -> None:
    p.r.passed = value.upper().startswith("OK")
    p.protocol_hint = "SCSI"


def _scsi_temperature(p: Any, value: str) -> None:
    n = count(value)
    if n is not None:
        p.r.temperature_celsius = float(n)


def _trip(p: Any, value: str) -> None:
    n = count(value)
    p.scsi_health().trip_temperature = float(n) if n is not None else None


def _grown(p: Any, value: str) -> None:
    p.scsi_health().grown_defects = count(value)


def _non_medium(p: Any, value: str) -> None:
    p.scsi_health().non_medium_errors = count(value)


def _endurance(p: Any, value: str) -> None:
    if p.protocol_hint == "SCSI" or p.r.scsi is not None:
        p.scsi_health().percentage_used = count(value)


def _error_count(p: Any, value: str) -> None:
    n = count(value)
    if n is not None:
        p.r.ata_error_log_count = max(p.r.ata_error_log_count or 0, n)


def _execution_status(p: Any, value: str) -> None:
    m = re.match(r"^\(\s*(\d+)\)", value)
    if m:
        p.r.self_test_in_progress = test_outcome_ata(int(m.group(1))) == "in_progress"
    elif "%" in value and "remaining" in value:
        p.r.self_test_in_progress = True  # SCSI: "45% of test remaining"


def _nvme_test_status(p: Any, value: str) -> None:
    p.r.self_test_in_progress = "in progress" in value.lower() and not value.startswith("No ")


def _sct_temperature(p: Any, value: str) -> None:
    n = count(value)
    if p.r.temperature_celsius is None and n is not None and p.r.attribute(194) is None:
        p.r.temperature_celsius = float(n)


def _transport(p: Any, value: str) -> None:
    p.protocol_hint = "SCSI"


KEYS: dict[str, Callable[[Any, str], None]] = {
    "Model Family": _set("model_family"),
    "Device Model": _model,
    "Model Number": _nvme_model,
    "Vendor": _vendor,
    "Product": _product,
    "Revision": _set("firmware"),
    "Serial Number": _set("serial"),
    "Serial number": _set("serial"),
    "LU WWN Device Id": _lu_wwn,
    "Logical Unit id": _set("wwn", lambda v: v.lower() or None),
    "Namespace 1 IEEE EUI-64": _eui,
    "Firmware Version": _set("firmware"),
    "User Capacity": _capacity_key,
    "Total NVM Capacity": _capacity_key,
    "Namespace 1 Size/Capacity": _capacity_key,
    "Rotation Rate": _rotation,
    "SATA Version is": _sata_version,
    "Transport protocol": _transport,
    "SMART support is": _smart_support,
    "SMART overall-health self-assessment test result": _overall_health,
    "SMART Health Status": _scsi_health,
    "Current Drive Temperature": _scsi_temperature,
    "Drive Trip Temperature": _trip,
    "Elements in grown defect list": _grown,
    "Non-medium error count": _non_medium,
    "Percentage used endurance indicator": _endurance,
    "ATA Error Count": _error_count,
    "Device Error Count": _error_count,
    "Self-test execution status": _execution_status,
    "Self-test status": _nvme_test_status,
    "Current Temperature": _sct_temperature,
}
