"""Every smartctl sample parses to the facts listed for it (corpus EXPECTED.md, lab captures)."""

from __future__ import annotations

import json
from dataclasses import asdict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers import fixture_path
from zmon.base.errors import ParseError
from zmon.parsers.smartctl.smartctl import check_status, parse_smartctl


def load(*parts: str):
    return parse_smartctl(fixture_path("disks", *parts).read_bytes())


TXT_14 = "smartctl_txt_14_ata_HiA_pending14_offline_unc14_crc5_marginal_5.38_forum.txt"
SAS = "sas_seagate_grown12_selftest_failed_7.3"
NVME_WORN = "nvme_samsung_worn_media_errors_selftest_failed_7.3"


def attr_raw(report, attr_id):
    a = report.attribute(attr_id)
    return None if a is None else a.raw


def test_json_02_nvme_sabrent_rocket():
    r = load("corpus", "smartctl_json_02_nvme_sabrent_rocket_7.4.json")
    assert (r.device_type, r.protocol) == ("nvme", "NVMe")
    assert r.model == "Sabrent Rocket 4.0 1TB"
    assert r.serial == "6D1107091C9583054511"
    assert r.firmware == "RKT401.3"
    assert r.passed is True
    n = r.nvme
    assert (n.critical_warning, r.temperature_celsius) == (0, 48)
    assert (n.available_spare, n.available_spare_threshold, n.percentage_used) == (100, 5, 4)
    assert (n.media_errors, n.error_log_entries, n.unsafe_shutdowns) == (0, 4871, 39)
    assert r.power_on_seconds == 8733 * 3600
    assert r.power_cycles == 1815
    # The error log entry "Invalid Field in Command" is benign: it is no media failure.
    assert check_status(r) == "ok"
    assert n.media_errors == 0


def test_json_04_open_failed_is_error_never_passed():
    r = load("corpus", "smartctl_json_04_open_failed_windows_exit2_7.0.json")
    assert r.passed is None
    assert r.model is None and r.serial is None
    assert r.exit_status == 2
    assert r.messages[0][0] == "error"
    assert "Open failed, Error=5" in r.messages[0][1]
    assert check_status(r) == "open_failed"
    assert not r.has_data


def test_txt_02_nvme_health_6_6():
    r = load("corpus", "smartctl_txt_02_nvme_health_6.6.txt")
    assert r.protocol == "NVMe"
    assert r.model is None and r.serial is None
    assert r.passed is True
    n = r.nvme
    assert n.critical_warning == 0
    assert r.temperature_celsius == 32
    assert (n.available_spare, n.available_spare_threshold, n.percentage_used) == (100, 10, 0)
    assert (n.data_units_read, n.data_units_written) == (1299288, 5592478)
    assert r.power_cycles == 98
    assert r.power_on_seconds == 687 * 3600
    assert (n.unsafe_shutdowns, n.media_errors, n.error_log_entries) == (21, 0, 0)


def test_txt_04_sandforce_odd_raw_values():
    r = load("corpus", "smartctl_txt_04_ssd_sandforce_odd_raw_values_7.1.txt")
    assert r.smartctl_version == "7.1"
    assert r.passed is True
    assert len(r.attributes) == 24
    assert attr_raw(r, 1) == 0  # "0/0"
    a9 = r.attribute(9)
    assert a9.raw_string == "7963h+07m+54.620s" and a9.raw == 7963
    assert r.power_on_seconds == pytest.approx(7963 * 3600 + 7 * 60 + 54.62)
    for attr_id in (195, 201, 204):
        assert attr_raw(r, attr_id) == 0
    # Duplicate names, distinct IDs.
    assert r.attribute(171).name == r.attribute(181).name == "Program_Fail_Count"
    assert r.attribute(172).name == r.attribute(182).name == "Erase_Fail_Count"
    a231 = r.attribute(231)
    assert (a231.name, a231.value, a231.raw) == ("SSD_Life_Left", 91, 4294967296)
    assert attr_raw(r, 174) == 113
    assert attr_raw(r, 194) == 27 and r.temperature_celsius == 27
    assert r.attribute(199) is None
    assert r.attribute(5).name == "Retired_Block_Count"


def test_txt_06_standby_is_standby_not_failure_not_healthy():
    r = load("corpus", "smartctl_txt_06_standby_nocheck_7.3.txt")
    assert r.smartctl_version == "7.3"
    assert r.standby and r.power_mode == "STANDBY"
    assert r.exit_status == 2
    assert r.passed is None
    assert check_status(r) == "standby"
    assert r.device_name == "/dev/sda"  # from the shell prompt line


def test_txt_08_failed_health_partial():
    r = load("corpus", "smartctl_txt_08_ata_FAILED_health_hgst_PARTIAL.txt")
    assert r.model_family == "Hitachi/HGST Travelstar Z7K500"
    assert r.model == "HGST HTS725050A7E630"
    assert r.serial == "TF1501WH0UDM7S"
    assert r.firmware == "GH2OA420"
    assert r.capacity_bytes == 500107862016
    assert r.rotation_rate_rpm == 7200
    assert r.interface_speed_current_bits == 3.0e9
    assert r.interface_speed_max_bits == 6.0e9
    assert r.wwn == "0x5000cca77ecb8ca7"
    assert r.passed is False
    assert r.attributes == []


def test_txt_10_seagate_realloc3_known_problems():
    r = load("corpus", "smartctl_txt_10_ata_seagate_7200.11_realloc3_known_problems_macos_6.2.txt")
    assert r.smartctl_version == "6.2"
    assert r.protocol == "ATA"
    assert r.interface_speed_max_bits == 3.0e9 and r.interface_speed_current_bits is None
    assert r.model_family == "Seagate Barracuda 7200.11"
    assert (r.model, r.serial, r.firmware) == ("ST31500341AS", "9VS9X9X9", "LC1A")
    assert r.capacity_bytes == 1500301910016
    assert r.passed is True  # the "known problems" block is informational
    assert attr_raw(r, 5) == 3
    assert (attr_raw(r, 197), attr_raw(r, 198), attr_raw(r, 199)) == (0, 0, 0)
    assert attr_raw(r, 9) == 18818
    assert r.temperature_celsius == 40
    assert attr_raw(r, 10) == 9
    a189 = r.attribute(189)
    assert (a189.raw, a189.value, a189.threshold, a189.when_failed) == (119, 1, 0, "")
    assert r.ata_error_log_count == 0
    assert r.self_tests == []


def test_txt_12_seagate_failed_realloc4095_5_38():
    r = load("corpus", "smartctl_txt_12_ata_seagate_FAILED_realloc4095_in_the_past_5.38.txt")
    assert r.smartctl_version == "5.38"
    assert r.model_family is None
    assert (r.model, r.serial, r.firmware) == ("ST31500341AS", "9VS9X9XX", "CC1H")
    assert r.capacity_bytes == 1500301910016  # "1 500 301 910 016 bytes"
    assert r.passed is False
    a5 = r.attribute(5)
    assert (a5.value, a5.worst, a5.threshold, a5.raw, a5.when_failed) == (1, 1, 36, 4095, "")
    a190 = r.attribute(190)
    assert a190.when_failed == "past" and a190.raw_string == "45 (0 120 46 45)"
    assert (attr_raw(r, 197), attr_raw(r, 198), attr_raw(r, 199)) == (0, 0, 0)
    assert attr_raw(r, 9) == 7898
    assert r.temperature_celsius == 45
    tests = [
        (t.number, t.kind, t.status, t.outcome, t.power_on_hours, t.remaining_percent)
        for t in r.self_tests
    ]
    assert tests == [
        (1, "Short offline", "Completed without error", "passed", 10, 0),
        (2, "Short offline", "Completed without error", "passed", 0, 0),
        (3, "Short offline", "Aborted by host", "aborted", 0, 90),
    ]


def test_txt_14_pending_offline_crc_marginal():
    r = load("corpus", TXT_14)
    assert r.protocol == "ATA"
    assert r.model_family == "Seagate Momentus 5400.3"
    assert (r.model, r.serial, r.firmware) == ("ST9160821A", "5MA1LFTD", "3.ALC")
    assert r.capacity_bytes == 160041885696
    assert r.passed is True
    assert r.attribute(190).when_failed == "past"
    assert attr_raw(r, 5) == 8
    assert (attr_raw(r, 197), attr_raw(r, 198), attr_raw(r, 199)) == (14, 14, 5)
    assert attr_raw(r, 187) == 2880
    assert attr_raw(r, 9) == 9901
    assert r.temperature_celsius == 46
    assert attr_raw(r, 193) == 611412
    assert r.self_tests == [] and r.ata_error_log_count is None


def test_qemu_sata_json_and_text_agree():
    """The same qemu disk read as -a -j and -x: the shared facts are equal."""
    j = load("qemu", "smartctl-a-j-sata0.json")
    t = load("qemu", "smartctl-x-sata0.txt")
    assert (j.model, j.serial, j.firmware, j.passed) == ("QEMU HARDDISK", "ZLSATA0", "2.5+", True)
    assert j.temperature_celsius == 31  # attribute 190 raw string "31 (Min/Max 31/31)"
    assert attr_raw(j, 190) == 31  # not the packed 48-bit raw 522125343
    assert j.power_on_seconds == 3600
    differ = {k for k, v in asdict(j).items() if asdict(t)[k] != v}
    assert differ == {"source", "exit_status", "device_name", "device_type"}


def test_qemu_nvme_json_and_text_agree():
    j = load("qemu", "smartctl-a-j-nvme0.json")
    t = load("qemu", "smartctl-x-nvme0.txt")
    assert (j.model, j.serial) == ("QEMU NVMe Ctrl", "ZLNVME0")
    assert (j.passed, j.temperature_celsius) == (True, 50)
    assert j.nvme == t.nvme
    assert (t.model, t.serial, t.power_on_seconds, t.power_cycles) == (
        j.model,
        j.serial,
        j.power_on_seconds,
        j.power_cycles,
    )


def test_qemu_virtio_disk_is_unsupported():
    r = load("qemu", "smartctl-a-j-vda.json")
    assert r.exit_status == 1 and check_status(r) == "unsupported" and r.passed is None


@pytest.mark.parametrize(
    "base",
    [SAS, NVME_WORN],
)
def test_synthetic_json_and_text_agree(base):
    j = load("synthetic", base + ".json")
    t = load("synthetic", base + ".txt")
    jd, td = asdict(j), asdict(t)
    allowed = {
        "source",
        "exit_status",
        "device_name",
        "device_type",
        "smart_available",
        "smart_enabled",
        "scsi",
    }
    assert {k for k in jd if jd[k] != td[k]} <= allowed
    if j.scsi is not None:  # text has the non-medium error count that JSON lacks
        assert j.scsi.counters == t.scsi.counters
        assert (j.scsi.grown_defects, t.scsi.non_medium_errors) == (12, 17)


def test_sas_factory_page_hours_give_way_to_the_accumulated_time() -> None:
    """The factory page prints minutes / 60 with two decimals (whole minutes come back); the
    background-scan page's hours:minutes is exact and wins whichever comes first."""
    factory = "Vendor (Seagate/Hitachi) factory information\n  number of hours powered up = 20.57\n"
    accumulated = "Accumulated power on time, hours:minutes 20:35\n"
    head = "=== START OF READ SMART DATA SECTION ===\nCurrent Drive Temperature:     34 C\n"
    assert parse_smartctl((head + factory).encode()).power_on_seconds == 1234 * 60
    for text in (factory + accumulated, accumulated + factory):
        assert parse_smartctl((head + text).encode()).power_on_seconds == 1235 * 60


def test_sas_factory_page_hours_in_json() -> None:
    """smartctl --json puts the factory page's minutes in power_on_time (hours, minutes)."""
    doc = {
        "smartctl": {"version": [7, 3], "exit_status": 0},
        "device": {"name": "/dev/sda", "type": "scsi", "protocol": "SCSI"},
        "power_on_time": {"hours": 20, "minutes": 34},
    }
    assert parse_smartctl(json.dumps(doc).encode()).power_on_seconds == 1234 * 60


def test_sas_details():
    r = load("synthetic", "sas_seagate_grown12_selftest_failed_7.3.json")
    assert (r.protocol, r.model, r.firmware) == ("SCSI", "SEAGATE ST4000NM0023", "0004")
    assert r.wwn == "0x5000c500a0b1c2d3"
    assert r.passed is True and r.temperature_celsius == 36
    assert r.scsi.trip_temperature == 68
    assert r.power_on_seconds == 41023 * 3600 + 17 * 60
    assert r.scsi.counters["read"].uncorrected == 3
    assert r.scsi.counters["read"].processed_bytes == pytest.approx(273617.125e9)
    assert [t.outcome for t in r.self_tests] == ["passed", "failed", "passed"]
    assert r.self_test_failed_count == 1
    assert r.exit_status == 128


def test_nvme_worn_details():
    r = load("synthetic", "nvme_samsung_worn_media_errors_selftest_failed_7.3.json")
    assert r.passed is False and r.nvme.critical_warning == 4
    assert r.nvme.percentage_used == 112 and r.nvme.media_errors == 2
    assert r.wwn == "eui.00253859000d2345"
    assert [(t.kind, t.outcome, t.power_on_hours) for t in r.self_tests] == [
        ("Short", "passed", 1234),
        ("Extended", "failed", 1200),
    ]
    assert r.self_test_in_progress is False


def test_standby_json_7_3():
    r = load("synthetic", "ata_standby_nocheck_7.3.json")
    assert r.standby and r.power_mode == "STANDBY" and r.exit_status == 2
    assert check_status(r) == "standby" and r.passed is None


@pytest.mark.parametrize(
    "message, mode",
    [
        ("Device is in SLEEP mode, exit(2)", "SLEEP"),
        ("Device is in STANDBY (OS) mode, exit(2)", "STANDBY (OS)"),
        ("Device is in STANDBY BY TIMER mode, exit(2)", "STANDBY BY TIMER"),
        ("Device is in IDLE_B mode, exit(2)", "IDLE_B"),
    ],
)
def test_every_low_power_skip_message_is_standby(message, mode):
    doc = {
        "json_format_version": [1, 0],
        "smartctl": {
            "version": [7, 4],
            "messages": [{"string": message, "severity": "information"}],
            "exit_status": 2,
        },
    }
    r = parse_smartctl(json.dumps(doc).encode())
    assert r.power_mode == mode and check_status(r) == "standby"
    t = parse_smartctl(f"smartctl 7.4 2023-08-01 r5530\n\n{message}\n".encode())
    assert t.power_mode == mode


@pytest.mark.parametrize(
    "data, line_no",
    [
        (b"hello world\nthis is not smartctl\n", 1),
        (b"\n\nrandom text\n", 3),
        (b'{"foo": 1}', 1),
        (b'{"smartctl": {"exit_status": 0},\n  "oops": ,\n}', 2),
        (b"", 1),
    ],
)
def test_unparseable_input_raises_parse_error_naming_the_line(data, line_no):
    with pytest.raises(ParseError) as exc:
        parse_smartctl(data)
    assert exc.value.line_no == line_no


ALL_SAMPLES = sorted(
    p
    for sub in ("corpus", "qemu", "synthetic")
    for p in fixture_path("disks", sub).iterdir()
    if p.suffix in (".txt", ".json")
)


@pytest.mark.parametrize("path", ALL_SAMPLES, ids=lambda p: p.name)
def test_truncated_samples_parse_or_raise_parse_error(path):
    """A cut-off output (as in forum posts) never crashes the parser with anything else."""
    lines = path.read_bytes().splitlines(keepends=True)
    for cut in range(len(lines) + 1):
        try:
            parse_smartctl(b"".join(lines[:cut]))
        except ParseError:
            pass


@given(st.binary(max_size=400) | st.text(max_size=400).map(str.encode))
@settings(max_examples=300, deadline=None)
def test_arbitrary_input_parses_or_raises_parse_error(data):
    try:
        parse_smartctl(data)
    except ParseError:
        pass


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=10,
)
SECTIONS = (
    "smartctl", "device", "smart_status", "temperature", "power_on_time", "user_capacity", "wwn",
    "interface_speed", "ata_smart_attributes", "ata_smart_error_log", "ata_smart_data",
    "ata_smart_self_test_log", "nvme_smart_health_information_log", "nvme_self_test_log",
    "nvme_namespaces", "scsi_grown_defect_list", "scsi_error_counter_log", "scsi_self_test_0",
    "scsi_self_test_status", "power_cycle_count", "rotation_rate", "logical_unit_id",
)  # fmt: skip


@given(st.dictionaries(st.sampled_from(SECTIONS), JSON_VALUES, min_size=1))
@settings(max_examples=150, deadline=None)
def test_json_with_unexpected_shapes_never_crashes(doc):
    doc.setdefault("json_format_version", [1, 0])
    report = parse_smartctl(json.dumps(doc).encode())
    assert report.passed in (True, False, None)


def _attrs(report):
    return {a.id: (a.name, a.value, a.worst, a.threshold, a.raw) for a in report.attributes}


def test_txt_16_headerless_rows_before_the_error_log():
    """Attribute rows pasted without their ID# header are read; the error log still counts."""
    r = load("corpus", "smartctl_txt_16_ata_headerless_attribute_rows_crc65_error_log_PARTIAL.txt")
    assert _attrs(r) == {
        194: ("Temperature_Celsius", 187, 187, 0, 32),
        196: ("Reallocated_Event_Count", 100, 100, 0, 0),
        197: ("Current_Pending_Sector", 100, 100, 0, 0),
        198: ("Offline_Uncorrectable", 100, 100, 0, 0),
        199: ("UDMA_CRC_Error_Count", 200, 200, 0, 65),
    }
    assert r.attribute(198).prefailure is False
    assert r.temperature_celsius == 32
    assert r.ata_error_log_count == 65
    assert r.protocol == "ATA" and r.passed is None
    assert check_status(r) == "ok"


def test_txt_18_headerless_rows_temperature_and_error_count():
    r = load(
        "corpus", "smartctl_txt_18_ata_headerless_attribute_rows_temp31_error_count19_PARTIAL.txt"
    )
    assert _attrs(r) == {
        192: ("Power-Off_Retract_Count", 100, 100, 0, 97),
        193: ("Load_Cycle_Count", 100, 100, 0, 130),
        194: ("Temperature_Celsius", 31, 40, 0, 31),
        197: ("Current_Pending_Sector", 100, 100, 0, 0),
        198: ("Offline_Uncorrectable", 100, 100, 0, 0),
        199: ("UDMA_CRC_Error_Count", 200, 200, 0, 0),
    }
    assert r.temperature_celsius == 31
    assert r.ata_error_log_count == 19


def test_txt_20_headerless_brief_rows_of_smartctl_x():
    r = load(
        "corpus", "smartctl_txt_20_ata_x_headerless_brief_attribute_rows_usb_bridge_PARTIAL.txt"
    )
    assert _attrs(r) == {
        195: ("Hardware_ECC_Recovered", 100, 100, 0, 10580),
        196: ("Reallocated_Event_Count", 100, 100, 0, 0),
        197: ("Current_Pending_Sector", 100, 100, 0, 0),
        198: ("Offline_Uncorrectable", 100, 100, 0, 0),
        199: ("UDMA_CRC_Error_Count", 200, 253, 0, 7),
        200: ("Multi_Zone_Error_Rate", 100, 100, 60, 691),
        203: ("Run_Out_Cancel", 100, 100, 0, 1533286088915),
        240: ("Head_Flying_Hours", 200, 200, 0, 0),
    }
    assert r.attribute(200).prefailure is True and r.attribute(199).prefailure is False
    assert r.attribute(196).raw_string == "0 (0 14484)"


def test_prose_with_numbers_is_not_an_attribute_row():
    r = parse_smartctl(
        b"smartctl 7.3 2022-02-28 r5338\n"
        b"194 degrees is hot 0x0022 and more words\n"
        b"Error 65 occurred at disk power-on lifetime: 7 hours\n"
    )
    assert r.attributes == []


def test_a_duplicated_attribute_row_gives_one_series():
    text = fixture_path("disks", "corpus", TXT_14).read_bytes()
    row = next(line for line in text.splitlines(keepends=True) if line.lstrip().startswith(b"5 "))
    doubled = text.replace(row, row + row, 1)
    r = parse_smartctl(doubled)
    assert [a.id for a in r.attributes].count(5) == 1 and r.duplicate_attributes == 1
    _assert_unique_series(doubled)


def test_a_duplicated_json_attribute_gives_one_series():
    doc = json.loads(fixture_path("disks", "qemu", "smartctl-a-j-sata0.json").read_text())
    table = doc["ata_smart_attributes"]["table"]
    table.append(dict(table[0], raw={"value": 999, "string": "999"}))
    r = parse_smartctl(json.dumps(doc).encode())
    first = r.attribute(table[0]["id"])
    assert first is not None and first.raw != 999
    assert len({a.id for a in r.attributes}) == len(r.attributes)
    _assert_unique_series(json.dumps(doc).encode())


def _assert_unique_series(data: bytes) -> None:
    from zmon.collecting.registry import parse_kinds

    seen = set()
    for fam in parse_kinds()["smartctl"][0](data).families():
        for s in fam.samples:
            key = (s.name, tuple(sorted(s.labels.items())))
            assert key not in seen, key
            seen.add(key)


SAS_FACTS = {
    "smartctl_txt_22_sas_seagate_x_grown_defects_7_6.6_PARTIAL.txt": dict(
        model="SEAGATE ST4000NM0043",
        serial="Z1Z5DWJK0000C5065P1U",
        firmware="MS03",
        wwn="0x5000c5006249b613",
        capacity_bytes=4000787030016,
        passed=True,
        temperature_celsius=27,
        grown_defects=7,
        trip_temperature=68,
        power_on_seconds=None,
    ),
    "smartctl_txt_24_sas_hgst_power_on_hours_minutes_7.2_PARTIAL.txt": dict(
        model="HGST HUH728080AL5201",
        serial="2EHBB78X",
        firmware="B7J0",
        wwn="0x5000cca23b4d0708",
        capacity_bytes=8001563222016,
        passed=True,
        temperature_celsius=39,
        grown_defects=None,
        trip_temperature=85,
        power_on_seconds=29755 * 3600 + 16 * 60,
    ),
    "smartctl_txt_26_sas_hgst_dotted_capacity_empty_serial_not_available_7.2_PARTIAL.txt": dict(
        model="HGST HUH721010AL5200",
        serial=None,
        firmware="LS17",
        wwn="0x5000cca266ab0874",
        capacity_bytes=9796820402176,
        passed=True,
        temperature_celsius=32,
        grown_defects=None,
        trip_temperature=50,
        power_on_seconds=None,
    ),
    "smartctl_txt_32_sas_A_only_seagate_grown_defects_0_6.6.txt": dict(
        model=None,
        serial=None,
        firmware=None,
        wwn=None,
        capacity_bytes=None,
        passed=None,
        temperature_celsius=34,
        grown_defects=0,
        trip_temperature=60,
        # the Seagate/Hitachi factory page: "number of hours powered up = 1668.58"
        power_on_seconds=100115 * 60,
    ),
}


@pytest.mark.parametrize("name", sorted(SAS_FACTS))
def test_sas_samples(name):
    r = load("corpus", name)
    facts = SAS_FACTS[name]
    assert r.protocol == "SCSI"
    for attr in (
        "model",
        "serial",
        "firmware",
        "wwn",
        "capacity_bytes",
        "passed",
        "temperature_celsius",
        "power_on_seconds",
    ):
        assert getattr(r, attr) == facts[attr], attr
    assert (r.scsi.grown_defects, r.scsi.trip_temperature) == (
        facts["grown_defects"],
        facts["trip_temperature"],
    )
    assert r.attributes == [] and r.nvme is None


def test_txt_28_nvme_single_space_fields_and_error_log_entries():
    r = load("corpus", "smartctl_txt_28_nvme_samsung_error_log_499_single_space_7.2_PARTIAL.txt")
    assert (r.protocol, r.model, r.firmware) == ("NVMe", "SAMSUNG MZVLB1T0HBLR-000H1", "HPS0NEXF")
    assert r.serial == "--"  # masked by the page that published it
    assert r.capacity_bytes == 1024209543168
    assert r.passed is True and r.temperature_celsius == 44
    n = r.nvme
    assert (
        n.critical_warning,
        n.available_spare,
        n.available_spare_threshold,
        n.percentage_used,
    ) == (0, 100, 5, 0)
    assert (n.data_units_read, n.data_units_written) == (1699027, 17586666)
    assert (n.host_reads, n.host_writes, n.controller_busy_time) == (16394111, 136342875, 402)
    assert (r.power_cycles, r.power_on_seconds) == (381, 145 * 3600)
    assert (n.unsafe_shutdowns, n.media_errors, n.error_log_entries) == (79, 0, 499)
    assert check_status(r) == "ok"


def test_txt_30_nvme_information_section_only():
    r = load("corpus", "smartctl_txt_30_nvme_ucs_information_section_only_7.0_PARTIAL.txt")
    assert (r.protocol, r.model, r.serial, r.firmware) == (
        "NVMe",
        "UCS-SDHPCIE 800GB",
        "STM0001BAE33",
        "KMCCP108",
    )
    assert r.capacity_bytes == 800166076416
    assert r.wwn == "eui.000cca00602ba300"
    assert r.passed is None and r.nvme is None and r.temperature_celsius is None
