"""smartctl ``--json`` output -> SmartReport (ATA, NVMe and SCSI/SAS sections, any 7.x)."""

from __future__ import annotations

import json
from typing import Any

from zmon.base.errors import ParseError, refuses_hostile_input
from zmon.parsers.smartctl.smartctl_model import (
    POWER_MODE_SKIP,
    AtaAttribute,
    NvmeHealth,
    SasPhy,
    ScsiErrorCounter,
    ScsiHealth,
    SelfTest,
    SmartReport,
    leading_number,
    sas_link_rate_bits,
    test_outcome_ata,
    wwn_from_naa,
)

# smartctl prints 64-bit counters and 128-bit NVMe data units (at most 39 digits); a longer
# number is damaged output, and one past 308 digits does not even fit a float.
MAX_INT_DIGITS = 40


def _json_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise ParseError(f"a number of {len(text)} digits", None, text[:40])
    return int(text)


def _is_device(device: Any) -> bool:
    """smartctl's ``device`` object (name, type, protocol): what a document trimmed to its
    data, as pasted or kept by other tools, still has after its ``smartctl`` header is gone."""
    return isinstance(device, dict) and all(
        isinstance(device.get(k), str) for k in ("name", "type", "protocol")
    )


@refuses_hostile_input
def load_json(text: str) -> dict[str, Any]:
    try:
        doc = json.loads(text, parse_int=_json_int)
    except json.JSONDecodeError as exc:
        lines = text.splitlines()
        line = lines[exc.lineno - 1] if 0 < exc.lineno <= len(lines) else None
        raise ParseError(f"invalid JSON: {exc.msg}", exc.lineno, line) from None
    if not isinstance(doc, dict) or not (
        "smartctl" in doc or "json_format_version" in doc or _is_device(doc.get("device"))
    ):
        raise ParseError("not smartctl JSON output (no 'smartctl' object)", 1, text[:80])
    return doc


def _int(v: Any) -> int | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return None


def _num(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, int | float):
        return None
    return float(v)


def opt_str(v: Any) -> str | None:
    return v.strip() if isinstance(v, str) and v.strip() else None


def _list(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def _bool(v: Any) -> bool | None:
    return v if isinstance(v, bool) else None


def _get(doc: Any, *keys: str | int) -> Any:
    for k in keys:
        if isinstance(k, int):
            if not isinstance(doc, list) or k >= len(doc):
                return None
            doc = doc[k]
        elif isinstance(doc, dict):
            doc = doc.get(k)
        else:
            return None
    return doc


@refuses_hostile_input
def parse_smartctl_json(text: str) -> SmartReport:
    """One ``smartctl --json`` document -> SmartReport."""
    doc = load_json(text)
    r = SmartReport(source="json")
    sc_any = doc.get("smartctl")
    sc: dict[str, Any] = sc_any if isinstance(sc_any, dict) else {}
    version = sc.get("version")
    if isinstance(version, list) and version:
        r.smartctl_version = ".".join(str(x) for x in version)
    r.exit_status = _int(sc.get("exit_status"))
    for msg in _list(sc.get("messages")):
        if isinstance(msg, dict) and isinstance(msg.get("string"), str):
            r.messages.append((str(msg.get("severity", "")), msg["string"]))
            m = POWER_MODE_SKIP.search(msg["string"])
            if m:
                r.power_mode = m.group("mode")
    r.device_name = opt_str(_get(doc, "device", "name"))
    argv = sc.get("argv")
    if r.device_name is None and isinstance(argv, list):  # open failed: no "device" object
        r.device_name = next((a for a in reversed(argv) if str(a).startswith("/dev/")), None)
    r.device_type = opt_str(_get(doc, "device", "type"))
    r.protocol = opt_str(_get(doc, "device", "protocol"))
    _identity(doc, r)
    r.smart_available = _bool(_get(doc, "smart_support", "available"))
    r.smart_enabled = _bool(_get(doc, "smart_support", "enabled"))
    r.passed = _bool(_get(doc, "smart_status", "passed"))
    r.temperature_celsius = _num(_get(doc, "temperature", "current"))
    hours = _num(_get(doc, "power_on_time", "hours"))
    if hours is not None:
        r.power_on_seconds = hours * 3600 + (_num(_get(doc, "power_on_time", "minutes")) or 0) * 60
    r.power_cycles = _int(doc.get("power_cycle_count"))
    r.interface_speed_max_bits = _speed(_get(doc, "interface_speed", "max"))
    r.interface_speed_current_bits = _speed(_get(doc, "interface_speed", "current"))
    _ata(doc, r)
    _nvme(doc, r)
    _scsi(doc, r)
    _sas_phys(doc, r)
    return r


def _identity(doc: dict[str, Any], r: SmartReport) -> None:
    vendor = opt_str(doc.get("scsi_vendor")) or opt_str(doc.get("vendor"))
    product = opt_str(doc.get("scsi_product")) or opt_str(doc.get("product"))
    r.model = (
        opt_str(doc.get("model_name"))
        or opt_str(doc.get("scsi_model_name"))
        or (" ".join(x for x in (vendor, product) if x) or None)
    )
    r.model_family = opt_str(doc.get("model_family"))
    r.serial = opt_str(doc.get("serial_number"))
    r.firmware = (
        opt_str(doc.get("firmware_version"))
        or opt_str(doc.get("scsi_revision"))
        or opt_str(doc.get("revision"))
    )
    wwn = doc.get("wwn")
    if isinstance(wwn, dict) and all(isinstance(wwn.get(k), int) for k in ("naa", "oui", "id")):
        r.wwn = wwn_from_naa(wwn["naa"], wwn["oui"], wwn["id"])
    elif opt_str(doc.get("logical_unit_id")):
        r.wwn = str(doc["logical_unit_id"]).lower()
    else:
        oui = _int(_get(doc, "nvme_namespaces", 0, "eui64", "oui"))
        ext = _int(_get(doc, "nvme_namespaces", 0, "eui64", "ext_id"))
        if oui is not None and ext is not None:
            r.wwn = f"eui.{oui:06x}{ext:010x}"
    r.capacity_bytes = _int(_get(doc, "user_capacity", "bytes"))
    if r.capacity_bytes is None:
        r.capacity_bytes = _int(doc.get("nvme_total_capacity"))
    r.rotation_rate_rpm = _int(doc.get("rotation_rate"))


def _speed(d: Any) -> float | None:
    ups, bpu = _num(_get(d, "units_per_second")), _num(_get(d, "bits_per_unit"))
    return ups * bpu if ups is not None and bpu is not None else None


def _ata(doc: dict[str, Any], r: SmartReport) -> None:
    for row in _list(_get(doc, "ata_smart_attributes", "table")):
        attr_id = _int(row.get("id")) if isinstance(row, dict) else None
        if attr_id is None:
            continue
        raw_str = str(_get(row, "raw", "string") or "")
        raw = leading_number(raw_str) if raw_str else None
        if raw is None:
            raw = _num(_get(row, "raw", "value"))
        wf = str(row.get("when_failed") or "").lower()
        r.add_attribute(
            AtaAttribute(
                id=attr_id,
                name=str(row.get("name") or f"Unknown_Attribute_{attr_id}"),
                value=_int(row.get("value")),
                worst=_int(row.get("worst")),
                threshold=_int(row.get("thresh")),
                raw=raw,
                raw_string=raw_str,
                when_failed="now" if "now" in wf else "past" if "past" in wf else "",
                prefailure=_bool(_get(row, "flags", "prefailure")),
            )
        )
    log = _get(doc, "ata_smart_error_log")
    if isinstance(log, dict):
        count = _int(_get(log, "extended", "count"))
        r.ata_error_log_count = count if count is not None else _int(_get(log, "summary", "count"))
    status = _int(_get(doc, "ata_smart_data", "self_test", "status", "value"))
    if status is not None:
        r.self_test_in_progress = status >> 4 == 15
    tests = _list(_get(doc, "ata_smart_self_test_log", "extended", "table")) or _list(
        _get(doc, "ata_smart_self_test_log", "standard", "table")
    )
    for i, row in enumerate(tests, 1):
        value = _int(_get(row, "status", "value"))
        if value is None:
            continue
        r.self_tests.append(
            SelfTest(
                number=i,
                kind=str(_get(row, "type", "string") or ""),
                status=str(_get(row, "status", "string") or ""),
                outcome=test_outcome_ata(value),
                power_on_hours=_int(row.get("lifetime_hours")),
                remaining_percent=_int(_get(row, "status", "remaining_percent")),
            )
        )


_NVME_FIELDS = {
    "critical_warning": "critical_warning",
    "available_spare": "available_spare",
    "available_spare_threshold": "available_spare_threshold",
    "percentage_used": "percentage_used",
    "data_units_read": "data_units_read",
    "data_units_written": "data_units_written",
    "host_reads": "host_reads",
    "host_writes": "host_writes",
    "controller_busy_time": "controller_busy_time",
    "unsafe_shutdowns": "unsafe_shutdowns",
    "media_errors": "media_errors",
    "num_err_log_entries": "error_log_entries",
    "warning_temp_time": "warning_temp_time",
    "critical_comp_time": "critical_comp_time",
}

_NVME_ABORTED = {1, 2, 3, 4, 8, 9}
_NVME_FAILED = {5, 6, 7}


def _nvme(doc: dict[str, Any], r: SmartReport) -> None:
    log = doc.get("nvme_smart_health_information_log")
    if isinstance(log, dict):
        health = NvmeHealth()
        for key, attr in _NVME_FIELDS.items():
            setattr(health, attr, _int(log.get(key)))
        r.nvme = health
        if r.temperature_celsius is None:
            r.temperature_celsius = _num(log.get("temperature"))
        if r.power_on_seconds is None and _int(log.get("power_on_hours")) is not None:
            r.power_on_seconds = log["power_on_hours"] * 3600.0
        if r.power_cycles is None:
            r.power_cycles = _int(log.get("power_cycles"))
    st = doc.get("nvme_self_test_log")
    if isinstance(st, dict):
        op = _int(_get(st, "current_self_test_operation", "value"))
        if op is not None:
            r.self_test_in_progress = op != 0
        for i, row in enumerate(_list(st.get("table"))):
            res = _int(_get(row, "self_test_result", "value"))
            if res is None:
                continue
            outcome = (
                "passed"
                if res == 0
                else "failed"
                if res in _NVME_FAILED
                else ("aborted" if res in _NVME_ABORTED else None)
            )
            r.self_tests.append(
                SelfTest(
                    number=i,
                    kind=str(_get(row, "self_test_code", "string") or ""),
                    status=str(_get(row, "self_test_result", "string") or ""),
                    outcome=outcome,
                    power_on_hours=_int(row.get("power_on_hours")),
                )
            )


def _scsi(doc: dict[str, Any], r: SmartReport) -> None:
    keys = (
        "scsi_grown_defect_list",
        "scsi_error_counter_log",
        "scsi_percentage_used_endurance_indicator",
    )
    if not any(k in doc for k in keys) and r.protocol != "SCSI":
        return
    used = _int(doc.get("scsi_percentage_used_endurance_indicator"))
    if used is None and r.protocol == "SCSI":
        used = _int(_get(doc, "endurance_used", "current_percent"))
    h = ScsiHealth(
        grown_defects=_int(doc.get("scsi_grown_defect_list")),
        trip_temperature=_num(_get(doc, "temperature", "drive_trip")),
        percentage_used=used,
    )
    for op in ("read", "write", "verify"):
        row = _get(doc, "scsi_error_counter_log", op)
        if isinstance(row, dict):
            gb = row.get("gigabytes_processed")
            try:
                processed = float(gb) * 1e9 if gb is not None else None
            except (TypeError, ValueError):
                processed = None
            h.counters[op] = ScsiErrorCounter(
                corrected=_int(row.get("total_errors_corrected")),
                uncorrected=_int(row.get("total_uncorrected_errors")),
                processed_bytes=processed,
            )
    values = (h.grown_defects, h.trip_temperature, h.percentage_used)
    if any(v is not None for v in values) or h.counters:
        r.scsi = h
    in_progress = _get(doc, "scsi_self_test_status", "in_progress")
    if isinstance(in_progress, bool):
        r.self_test_in_progress = in_progress
    for i in range(20):
        row = doc.get(f"scsi_self_test_{i}")
        if not isinstance(row, dict):
            continue
        res = _int(_get(row, "result", "value"))
        outcome = None
        if res is not None:
            outcome = (
                "passed"
                if res == 0
                else "aborted"
                if res in (1, 2)
                else ("failed" if 3 <= res <= 7 else "in_progress" if res == 15 else None)
            )
        r.self_tests.append(
            SelfTest(
                number=i + 1,
                kind=str(_get(row, "code", "string") or ""),
                status=str(_get(row, "result", "string") or ""),
                outcome=outcome,
                power_on_hours=_int(_get(row, "power_on_time", "hours")),
            )
        )


# A SAS disk has one or two target ports of one PHY each; wide ports have up to 8 PHYs. Keys
# past these bounds are damaged or hostile output, not a disk.
MAX_SAS_PORTS = 16
MAX_SAS_PHYS = 16


def _sas_phys(doc: dict[str, Any], r: SmartReport) -> None:
    """``scsi_sas_port_N`` / ``phy_K`` objects of the SAS Protocol Specific port log page."""
    for n in range(MAX_SAS_PORTS):
        port = doc.get(f"scsi_sas_port_{n}")
        if not isinstance(port, dict):
            continue
        port_id = _int(port.get("relative_target_port_id"))
        for k in range(MAX_SAS_PHYS):
            row = port.get(f"phy_{k}")
            if not isinstance(row, dict):
                continue
            ident = _int(row.get("identifier"))
            rate = row.get("negotiated_logical_link_rate")
            r.add_sas_phy(
                SasPhy(
                    port=port_id if port_id is not None else n + 1,
                    phy=ident if ident is not None else k,
                    sas_address=opt_str(row.get("sas_address")),
                    attached_sas_address=opt_str(row.get("attached_sas_address")),
                    attached_phy=_int(row.get("attached_phy_identifier")),
                    attached_device_type=opt_str(row.get("attached_device_type")),
                    link_rate_bits=sas_link_rate_bits(rate) if isinstance(rate, str) else None,
                    invalid_dwords=_int(row.get("invalid_dword_count")),
                    running_disparity_errors=_int(row.get("running_disparity_error_count")),
                    loss_of_dword_sync=_int(row.get("loss_of_dword_synchronization_count")),
                    phy_reset_problems=_int(row.get("phy_reset_problem_count")),
                )
            )
