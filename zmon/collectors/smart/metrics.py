"""SmartReport -> Prometheus metrics; shared by the smart collector and ``zmon parse smartctl``."""

from __future__ import annotations

from zmon.exposition.metrics import MetricSet
from zmon.host.devices import nvme_namespace_guess
from zmon.parsers.smartctl.smartctl import (
    EXIT_BITS,
    TEST_OUTCOMES,
    NvmeHealth,
    ScsiHealth,
    SmartReport,
    check_status,
    parse_smartctl,
)

# Outcomes of one SMART check; "timeout" only comes from the collector.
CHECK_STATUSES = ("ok", "standby", "timeout", "open_failed", "unsupported", "error")

SRC = " (smartctl)"
NVME_DATA_UNIT_BYTES = 512 * 1000  # NVMe "data units" are thousands of 512-byte blocks


def _ratio(percent: int | None) -> float | None:
    return None if percent is None else percent / 100.0


def report_metrics(ms: MetricSet, device: str, r: SmartReport, src: str = SRC) -> None:
    """All device metrics of one report (nothing for a report without data)."""
    lab = {"device": device}
    if r.model or r.serial or r.has_data:
        ms.info(
            "zmon_disk_info",
            "Disk identity as smartctl reports it; always 1" + src,
            {
                "device": device,
                "model": r.model or "",
                "model_family": r.model_family or "",
                "serial": r.serial or "",
                "firmware": r.firmware or "",
                "protocol": r.protocol or "",
                "device_type": r.device_type or "",
                "wwn": r.wwn or "",
            },
        )
    g = ms.gauge
    c = ms.counter
    g("zmon_disk_capacity_bytes", "User capacity in bytes" + src, r.capacity_bytes, lab)
    g(
        "zmon_disk_rotation_rate_rpm",
        "Rotation rate in rpm, 0 for solid state" + src,
        r.rotation_rate_rpm,
        lab,
    )
    g(
        "zmon_disk_smart_available",
        "1 if the device supports SMART" + src,
        None if r.smart_available is None else float(r.smart_available),
        lab,
    )
    g(
        "zmon_disk_smart_enabled",
        "1 if SMART is enabled on the device" + src,
        None if r.smart_enabled is None else float(r.smart_enabled),
        lab,
    )
    g(
        "zmon_disk_smart_passed",
        "1 if the SMART overall health self-assessment passed, 0 if it failed" + src,
        None if r.passed is None else float(r.passed),
        lab,
    )
    g(
        "zmon_disk_temperature_celsius",
        "Current temperature in degrees Celsius" + src,
        r.temperature_celsius,
        lab,
    )
    c("zmon_disk_power_on_seconds_total", "Power-on time in seconds" + src, r.power_on_seconds, lab)
    c(
        "zmon_disk_power_cycles_total",
        "Power cycles over the device's life" + src,
        r.power_cycles,
        lab,
    )
    g(
        "zmon_disk_interface_speed_bytes",
        "Current link speed in bytes per second (SATA signalling rate / 8)" + src,
        None if r.interface_speed_current_bits is None else r.interface_speed_current_bits / 8,
        lab,
    )
    g(
        "zmon_disk_interface_max_speed_bytes",
        "Highest link speed the device supports, in bytes per second (SATA rate / 8)" + src,
        None if r.interface_speed_max_bits is None else r.interface_speed_max_bits / 8,
        lab,
    )
    _ata_metrics(ms, device, r, src)
    if r.nvme is not None:
        _nvme_metrics(ms, lab, r.nvme, src)
    if r.scsi is not None:
        _scsi_metrics(ms, lab, r.scsi, src)
    sas_phy_metrics(ms, device, r, src)
    _self_test_metrics(ms, device, r, src)


def _named_attr_raw(r: SmartReport, attr_id: int, *name_parts: str) -> float | None:
    a = r.attribute(attr_id)
    if a is None or not any(p in a.name for p in name_parts):
        return None
    return a.raw


def _ata_metrics(ms: MetricSet, device: str, r: SmartReport, src: str) -> None:
    lab = {"device": device}
    ms.gauge(
        "zmon_disk_reallocated_sectors",
        "Reallocated sectors, ATA attribute 5 raw value" + src,
        _named_attr_raw(r, 5, "Realloc"),
        lab,
    )
    ms.gauge(
        "zmon_disk_pending_sectors",
        "Sectors waiting to be remapped, ATA attribute 197 raw value" + src,
        _named_attr_raw(r, 197, "Pending"),
        lab,
    )
    ms.gauge(
        "zmon_disk_offline_uncorrectable_sectors",
        "Sectors found uncorrectable by offline scan, ATA attribute 198 raw value" + src,
        _named_attr_raw(r, 198, "Uncorrect", "Offline_Unc"),
        lab,
    )
    ms.counter(
        "zmon_disk_crc_errors_total",
        "Interface CRC errors (cabling), ATA attribute 199 raw value" + src,
        _named_attr_raw(r, 199, "CRC"),
        lab,
    )
    ms.counter(
        "zmon_disk_ata_error_log_entries_total",
        "Errors recorded in the ATA SMART error log over the device's life" + src,
        r.ata_error_log_count,
        lab,
    )
    for a in r.attributes:
        alab = {"device": device, "id": str(a.id), "name": a.name}
        ms.gauge(
            "zmon_disk_smart_attribute_value",
            "ATA SMART attribute normalized value (VALUE)" + src,
            a.value,
            alab,
        )
        ms.gauge(
            "zmon_disk_smart_attribute_worst",
            "ATA SMART attribute worst normalized value (WORST)" + src,
            a.worst,
            alab,
        )
        ms.gauge(
            "zmon_disk_smart_attribute_threshold",
            "ATA SMART attribute failure threshold (THRESH)" + src,
            a.threshold,
            alab,
        )
        ms.gauge(
            "zmon_disk_smart_attribute_raw",
            "ATA SMART attribute raw value as smartctl decodes it: the leading number of "
            "RAW_VALUE (31 for '31 (Min/Max 24/40)')" + src,
            a.raw,
            alab,
        )


def _nvme_metrics(ms: MetricSet, lab: dict[str, str], n: NvmeHealth, src: str) -> None:
    g, c = ms.gauge, ms.counter
    g(
        "zmon_disk_nvme_critical_warning",
        "NVMe critical warning bit field, 0 when all is well" + src,
        n.critical_warning,
        lab,
    )
    g(
        "zmon_disk_nvme_available_spare_ratio",
        "NVMe available spare capacity, 0-1" + src,
        _ratio(n.available_spare),
        lab,
    )
    g(
        "zmon_disk_nvme_available_spare_threshold_ratio",
        "NVMe available spare below which the device warns, 0-1" + src,
        _ratio(n.available_spare_threshold),
        lab,
    )
    g(
        "zmon_disk_nvme_percentage_used_ratio",
        "NVMe estimate of life used, 0-1; may exceed 1 past the rated endurance" + src,
        _ratio(n.percentage_used),
        lab,
    )
    c(
        "zmon_disk_nvme_media_errors_total",
        "NVMe unrecovered data integrity errors (media and data integrity errors)" + src,
        n.media_errors,
        lab,
    )
    c(
        "zmon_disk_nvme_error_log_entries_total",
        "NVMe error information log entries over the device's life" + src,
        n.error_log_entries,
        lab,
    )
    c(
        "zmon_disk_nvme_unsafe_shutdowns_total",
        "NVMe unsafe shutdowns" + src,
        n.unsafe_shutdowns,
        lab,
    )
    for attr, name, text in (
        ("data_units_read", "zmon_disk_nvme_data_read_bytes_total", "Bytes read by the host"),
        (
            "data_units_written",
            "zmon_disk_nvme_data_written_bytes_total",
            "Bytes written by the host",
        ),
    ):
        units = getattr(n, attr)
        c(
            name,
            text + " (NVMe data units x 512000)" + src,
            None if units is None else units * NVME_DATA_UNIT_BYTES,
            lab,
        )
    c(
        "zmon_disk_nvme_host_read_commands_total",
        "NVMe read commands completed" + src,
        n.host_reads,
        lab,
    )
    c(
        "zmon_disk_nvme_host_write_commands_total",
        "NVMe write commands completed" + src,
        n.host_writes,
        lab,
    )
    for attr, name, text in (
        (
            "controller_busy_time",
            "zmon_disk_nvme_controller_busy_seconds_total",
            "Time the NVMe controller was busy with I/O",
        ),
        (
            "warning_temp_time",
            "zmon_disk_nvme_warning_temperature_seconds_total",
            "Time above the NVMe warning composite temperature threshold",
        ),
        (
            "critical_comp_time",
            "zmon_disk_nvme_critical_temperature_seconds_total",
            "Time above the NVMe critical composite temperature threshold",
        ),
    ):
        minutes = getattr(n, attr)
        c(
            name,
            text + ", in seconds (reported in minutes)" + src,
            None if minutes is None else minutes * 60.0,
            lab,
        )


def _scsi_metrics(ms: MetricSet, lab: dict[str, str], s: ScsiHealth, src: str) -> None:
    ms.gauge(
        "zmon_disk_scsi_grown_defects",
        "SCSI/SAS elements in the grown defect list (remapped blocks)" + src,
        s.grown_defects,
        lab,
    )
    ms.counter(
        "zmon_disk_scsi_non_medium_errors_total",
        "SCSI/SAS non-medium errors" + src,
        s.non_medium_errors,
        lab,
    )
    ms.gauge(
        "zmon_disk_temperature_trip_celsius",
        "Temperature at which the drive reports a failure (SCSI drive trip)" + src,
        s.trip_temperature,
        lab,
    )
    ms.gauge(
        "zmon_disk_scsi_percentage_used_ratio",
        "SCSI/SAS percentage used endurance indicator, 0-1" + src,
        _ratio(s.percentage_used),
        lab,
    )
    for op in sorted(s.counters):
        row = s.counters[op]
        olab = {**lab, "operation": op}
        ms.counter(
            "zmon_disk_scsi_corrected_errors_total",
            "SCSI/SAS errors corrected, from the error counter log" + src,
            row.corrected,
            olab,
        )
        ms.counter(
            "zmon_disk_scsi_uncorrected_errors_total",
            "SCSI/SAS uncorrected errors, from the error counter log" + src,
            row.uncorrected,
            olab,
        )
        ms.counter(
            "zmon_disk_scsi_processed_bytes_total",
            "Bytes processed, from the SCSI/SAS error counter log" + src,
            row.processed_bytes,
            olab,
        )


# (metric, SasPhy field, HELP): the SAS PHY error counters, the disk's own view of its link.
SAS_PHY_COUNTERS = (
    ("zmon_disk_sas_phy_invalid_dwords_total", "invalid_dwords",
     "Invalid DWORDs received on a PHY of the SAS disk"),
    ("zmon_disk_sas_phy_running_disparity_errors_total", "running_disparity_errors",
     "Running disparity errors on a PHY of the SAS disk"),
    ("zmon_disk_sas_phy_loss_of_dword_sync_total", "loss_of_dword_sync",
     "Losses of DWORD synchronization on a PHY of the SAS disk"),
    ("zmon_disk_sas_phy_reset_problems_total", "phy_reset_problems",
     "PHY reset problems on a PHY of the SAS disk"),
)  # fmt: skip
SAS_PHY_NOTE = " (Protocol Specific port log page; a bad cable, slot or expander port, not media)"


def sas_phy_metrics(ms: MetricSet, device: str, r: SmartReport, src: str = SRC) -> None:
    """Per-PHY series of a SAS disk's target ports: at most 2 ports of 1 PHY each per disk."""
    for p in r.sas_phys:
        lab = {"device": device, "port": str(p.port), "phy": str(p.phy)}
        ms.info(
            "zmon_disk_sas_phy_info",
            "A SAS disk PHY and what it is linked to; always 1" + src,
            {
                **lab,
                "sas_address": p.sas_address or "",
                "attached_sas_address": p.attached_sas_address or "",
                "attached_device_type": p.attached_device_type or "",
            },
        )
        ms.gauge(
            "zmon_disk_sas_phy_link_rate_bytes",
            "Negotiated logical link rate of a SAS disk PHY in bytes per second (rate / 8)" + src,
            None if p.link_rate_bits is None else p.link_rate_bits / 8,
            lab,
        )
        for name, attr, help_text in SAS_PHY_COUNTERS:
            ms.counter(name, help_text + SAS_PHY_NOTE + src, getattr(p, attr), lab)


def _self_test_metrics(ms: MetricSet, device: str, r: SmartReport, src: str) -> None:
    lab = {"device": device}
    ms.gauge(
        "zmon_disk_self_test_in_progress",
        "1 while a device self-test runs" + src,
        None if r.self_test_in_progress is None else float(r.self_test_in_progress),
        lab,
    )
    if not r.has_data:
        return
    ms.gauge(
        "zmon_disk_self_test_log_entries",
        "Entries in the device's self-test log" + src,
        len(r.self_tests),
        lab,
    )
    ms.gauge(
        "zmon_disk_self_test_failed_entries",
        "Self-test log entries that ended in a failure" + src,
        r.self_test_failed_count,
        lab,
    )
    if r.self_tests:
        last = r.self_tests[0]
        ms.state_set(
            "zmon_disk_self_test_last_status",
            "Outcome of the most recent self-test, one series per outcome" + src,
            TEST_OUTCOMES,
            last.outcome,
            lab,
            label="status",
        )
        ms.gauge(
            "zmon_disk_self_test_last_power_on_seconds",
            "Power-on time when the most recent self-test ran, in seconds" + src,
            None if last.power_on_hours is None else last.power_on_hours * 3600.0,
            lab,
        )


def exit_status_metrics(ms: MetricSet, device: str, exit_status: int | None) -> None:
    """smartctl's exit status, raw and decoded into one series per bit."""
    if exit_status is None:
        return
    lab = {"device": device}
    ms.gauge(
        "zmon_disk_smartctl_exit_status", "smartctl exit status bit mask" + SRC, exit_status, lab
    )
    for i, bit in enumerate(EXIT_BITS):
        ms.gauge(
            "zmon_disk_smartctl_exit_status_bit",
            "smartctl exit status decoded, one series per bit (see smartctl(8))" + SRC,
            float(bool(exit_status & (1 << i))),
            {**lab, "bit": bit},
        )


def check_metrics(ms: MetricSet, device: str, status: str, cached: str = "") -> None:
    """The outcome of the last check of a device: up, status state set, standby."""
    lab = {"device": device}
    ms.gauge(
        "zmon_disk_smart_up",
        "1 if the last smartctl check of the device answered (with data or asleep)" + cached,
        1.0 if status in ("ok", "standby") else 0.0,
        lab,
    )
    ms.state_set(
        "zmon_disk_smart_check_status",
        "Outcome of the last smartctl check, one series per status" + cached,
        CHECK_STATUSES,
        status,
        lab,
        label="status",
    )
    ms.gauge(
        "zmon_disk_standby",
        "1 when the last check was skipped because the disk was asleep; SMART values "
        "are then the last ones read" + cached,
        1.0 if status == "standby" else 0.0,
        lab,
    )


def device_label(r: SmartReport) -> str:
    """The device label for a report seen without a host: the kernel name in ``device.name``."""
    if not r.device_name:
        return "unknown"
    return nvme_namespace_guess(r.device_name.split()[0])


def parse_smartctl_metrics(data: bytes) -> MetricSet:
    """``zmon parse smartctl``: one smartctl output (text or JSON) -> metrics."""
    report = parse_smartctl(data)
    ms = MetricSet()
    device = device_label(report)
    check_metrics(ms, device, check_status(report))
    exit_status_metrics(ms, device, report.exit_status)
    report_metrics(ms, device, report)
    return ms
