"""``zmon parse smartctl``: exposition of every sample (golden), and the contract metrics."""

from __future__ import annotations

import pytest

from tests.helpers import fixture_path
from zmon.base.errors import ParseError
from zmon.collecting.registry import parse_kinds
from zmon.collectors.smart.metrics import parse_smartctl_metrics
from zmon.exposition.formats import render

SAMPLES = sorted(
    p.relative_to(fixture_path("disks")).as_posix()
    for sub in ("corpus", "qemu", "synthetic")
    for p in fixture_path("disks", sub).iterdir()
    if p.name.startswith(("smartctl", "sas_", "nvme_", "ata_")) and "scan" not in p.name
)


TXT_14 = "smartctl_txt_14_ata_HiA_pending14_offline_unc14_crc5_marginal_5.38_forum.txt"


def metrics(*parts: str):
    return parse_smartctl_metrics(fixture_path("disks", *parts).read_bytes())


def test_parse_kind_is_registered():
    func, help_text = parse_kinds()["smartctl"]
    assert func is parse_smartctl_metrics and "json" in help_text.lower()


@pytest.mark.parametrize("sample", SAMPLES)
def test_golden_exposition(sample, golden):
    data = fixture_path("disks", sample).read_bytes()
    name = sample.split("/")[-1]
    golden(f"disks/parse/{name}.prom", render(parse_smartctl_metrics(data).families()))


def test_open_failed_gives_error_status_and_no_passed():
    ms = metrics("corpus", "smartctl_json_04_open_failed_windows_exit2_7.0.json")
    dev = {"device": "sda"}  # from smartctl.argv, as there is no device object
    assert ms.sample_value("zmon_disk_smart_passed", dev) is None
    assert ms.sample_value("zmon_disk_smart_up", dev) == 0
    assert ms.sample_value("zmon_disk_smart_check_status", {**dev, "status": "open_failed"}) == 1
    assert ms.sample_value("zmon_disk_smart_check_status", {**dev, "status": "ok"}) == 0
    assert (
        ms.sample_value("zmon_disk_smartctl_exit_status_bit", {**dev, "bit": "device_open_failed"})
        == 1
    )
    assert ms.sample_value("zmon_disk_info", dev) is None


def test_standby_text_reports_standby_only():
    ms = metrics("corpus", "smartctl_txt_06_standby_nocheck_7.3.txt")
    dev = {"device": "sda"}
    assert ms.sample_value("zmon_disk_standby", dev) == 1
    assert ms.sample_value("zmon_disk_smart_up", dev) == 1
    assert ms.sample_value("zmon_disk_smart_passed", dev) is None
    assert ms.sample_value("zmon_disk_smart_check_status", {**dev, "status": "standby"}) == 1


def test_ata_contract_metrics():
    ms = metrics("corpus", TXT_14)
    dev = {"device": "unknown"}  # text without a device name
    assert ms.sample_value("zmon_disk_smart_passed", dev) == 1
    assert ms.sample_value("zmon_disk_reallocated_sectors", dev) == 8
    assert ms.sample_value("zmon_disk_pending_sectors", dev) == 14
    assert ms.sample_value("zmon_disk_offline_uncorrectable_sectors", dev) == 14
    assert ms.sample_value("zmon_disk_crc_errors_total", dev) == 5
    assert ms.sample_value("zmon_disk_temperature_celsius", dev) == 46
    assert ms.sample_value("zmon_disk_power_on_seconds_total", dev) == 9901 * 3600
    assert (
        ms.sample_value(
            "zmon_disk_smart_attribute_raw", {**dev, "id": "193", "name": "Load_Cycle_Count"}
        )
        == 611412
    )
    assert (
        ms.sample_value(
            "zmon_disk_smart_attribute_threshold",
            {**dev, "id": "190", "name": "Airflow_Temperature_Cel"},
        )
        == 45
    )
    assert ms.sample_value("zmon_disk_nvme_media_errors_total", dev) is None


def test_sandforce_has_no_reallocated_or_crc_metric():
    ms = metrics("corpus", "smartctl_txt_04_ssd_sandforce_odd_raw_values_7.1.txt")
    dev = {"device": "unknown"}
    assert ms.sample_value("zmon_disk_reallocated_sectors", dev) is None  # 5 is Retired_Block_Count
    assert ms.sample_value("zmon_disk_crc_errors_total", dev) is None
    assert (
        ms.sample_value(
            "zmon_disk_smart_attribute_raw", {**dev, "id": "181", "name": "Program_Fail_Count"}
        )
        == 0
    )


def test_failed_health_is_zero():
    ms = metrics("corpus", "smartctl_txt_12_ata_seagate_FAILED_realloc4095_in_the_past_5.38.txt")
    dev = {"device": "unknown"}
    assert ms.sample_value("zmon_disk_smart_passed", dev) == 0
    assert ms.sample_value("zmon_disk_reallocated_sectors", dev) == 4095
    assert ms.sample_value("zmon_disk_self_test_last_status", {**dev, "status": "passed"}) == 1
    assert ms.sample_value("zmon_disk_self_test_last_power_on_seconds", dev) == 36000
    assert ms.sample_value("zmon_disk_self_test_log_entries", dev) == 3
    assert ms.sample_value("zmon_disk_self_test_failed_entries", dev) == 0


def test_nvme_contract_metrics_and_units():
    ms = metrics("corpus", "smartctl_json_02_nvme_sabrent_rocket_7.4.json")
    dev = {"device": "nvme0n1"}  # /dev/nvme0 -> its first namespace
    assert ms.sample_value("zmon_disk_nvme_percentage_used_ratio", dev) == pytest.approx(0.04)
    assert ms.sample_value("zmon_disk_nvme_media_errors_total", dev) == 0
    assert ms.sample_value("zmon_disk_nvme_error_log_entries_total", dev) == 4871
    assert ms.sample_value("zmon_disk_nvme_available_spare_ratio", dev) == 1.0
    assert ms.sample_value("zmon_disk_nvme_available_spare_threshold_ratio", dev) == 0.05
    assert ms.sample_value("zmon_disk_nvme_data_read_bytes_total", dev) == 28337502 * 512000
    assert ms.sample_value("zmon_disk_nvme_controller_busy_seconds_total", dev) == 1635 * 60
    assert ms.sample_value("zmon_disk_power_on_seconds_total", dev) == 8733 * 3600
    assert ms.sample_value("zmon_disk_power_cycles_total", dev) == 1815
    assert ms.sample_value("zmon_disk_smart_passed", dev) == 1
    assert ms.sample_value("zmon_disk_info", {**dev, "serial": "6D1107091C9583054511"}) == 1


def test_nvme_worn_out_ratio_above_one():
    ms = metrics("synthetic", "nvme_samsung_worn_media_errors_selftest_failed_7.3.json")
    dev = {"device": "nvme0n1"}
    assert ms.sample_value("zmon_disk_nvme_percentage_used_ratio", dev) == pytest.approx(1.12)
    assert ms.sample_value("zmon_disk_nvme_critical_warning", dev) == 4
    assert ms.sample_value("zmon_disk_smart_passed", dev) == 0
    assert ms.sample_value("zmon_disk_self_test_failed_entries", dev) == 1
    assert (
        ms.sample_value(
            "zmon_disk_smartctl_exit_status_bit", {**dev, "bit": "self_test_log_has_errors"}
        )
        == 1
    )


def test_sas_metrics():
    ms = metrics("synthetic", "sas_seagate_grown12_selftest_failed_7.3.txt")
    dev = {"device": "unknown"}
    assert ms.sample_value("zmon_disk_scsi_grown_defects", dev) == 12
    assert (
        ms.sample_value("zmon_disk_scsi_uncorrected_errors_total", {**dev, "operation": "read"})
        == 3
    )
    assert ms.sample_value("zmon_disk_scsi_non_medium_errors_total", dev) == 17
    assert ms.sample_value("zmon_disk_temperature_trip_celsius", dev) == 68
    assert ms.sample_value("zmon_disk_self_test_last_status", {**dev, "status": "passed"}) == 1
    assert ms.sample_value("zmon_disk_self_test_failed_entries", dev) == 1


def test_sata_link_speed_in_bytes_per_second():
    ms = metrics("corpus", "smartctl_txt_08_ata_FAILED_health_hgst_PARTIAL.txt")
    dev = {"device": "unknown"}
    assert ms.sample_value("zmon_disk_interface_speed_bytes", dev) == 3.0e9 / 8
    assert ms.sample_value("zmon_disk_interface_max_speed_bytes", dev) == 6.0e9 / 8


def test_parse_kind_raises_on_garbage():
    with pytest.raises(ParseError):
        parse_smartctl_metrics(b"this is not it\n")
