"""Pure UPS parsing: every corpus sample's expected facts, odd values, status mapping."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers import fixture_path
from zmon.base.errors import ParseError
from zmon.parsers.ups import apcupsd, nut
from zmon.parsers.ups.ups import QUANTITIES, parse_number


def upsc(name: str) -> nut.UpscOutput:
    return nut.parse_upsc(fixture_path("ups", name).read_text())


def nut_reading(name: str):
    output = upsc(name)
    return nut.reading_from_vars("ups", output.variables, up=output.error is None)


def apc_reading(name: str):
    fields = apcupsd.parse_apcaccess(fixture_path("ups", name).read_text())
    return apcupsd.reading_from_fields(fields)


# ---- upsc corpus (EXPECTED facts) ----


def test_upsc_ablerex_online_ups():
    reading = nut_reading("upsc_02_ablerex_nutdrv_qx_2.7.4.1_OL_online_type.txt")
    assert reading.up
    assert reading.flags == {"OL"}
    v = reading.values
    assert v["battery_charge"] == 1.0
    assert "battery_runtime" not in v  # no battery.runtime: absent, not 0
    assert v["load"] == 0.0
    assert v["input_voltage"] == 116.9
    assert v["output_voltage"] == 110.1
    assert reading.info.driver == "nutdrv_qx"
    assert (
        upsc("upsc_02_ablerex_nutdrv_qx_2.7.4.1_OL_online_type.txt").variables[
            "driver.parameter.protocol"
        ]
        == "ablerex"
    )


def test_upsc_windows_prompt_on_battery_without_low_battery_flag():
    output = upsc("upsc_04_sweex_blazer_usb_windows_OB_charge12.txt")
    assert "C" not in output.variables  # the "C:\...>upsc" prompt is not a variable
    reading = nut_reading("upsc_04_sweex_blazer_usb_windows_OB_charge12.txt")
    assert reading.flags == {"OB"}  # no LB even at 12 %: reported as the UPS says
    v = reading.values
    assert v["battery_charge"] == 0.12
    assert "battery_runtime" not in v
    assert v["input_voltage"] == 6.4
    assert v["load"] == 0.03
    assert reading.info.driver == "blazer_usb"
    assert output.variables["driver.version"] == "Windows-v2.6.5-5-7-g72f380c"


def test_upsc_noise_line_and_markdown_bold_status():
    name = "upsc_06_apc_bk650m2_usbhid-ups_2.8.0_OL_DISCHRG_PARTIAL.txt"
    output = upsc(name)
    assert not any(key.startswith("Init") for key in output.variables)
    reading = nut_reading(name)
    assert reading.flags == {"OL", "DISCHRG"}
    v = reading.values
    assert v["battery_charge"] == 1.0
    assert v["battery_runtime"] == 3618
    assert v["battery_charge_low"] == 0.5
    assert v["battery_runtime_low"] == 300
    assert v["load"] == 0.05
    assert v["input_voltage"] == 232.0
    assert output.variables["ups.test.result"] == "Done and passed"
    assert output.variables["ups.timer.shutdown"] == "-1"
    # device.* wins over the redacted ups.serial "xxxx"
    assert reading.info.serial == "9B2019A14274"
    assert reading.info.manufacturer == "American Power Conversion"
    assert reading.info.model == "BK650M2-CH"


# ---- apcaccess corpus (EXPECTED facts) ----


def test_apcaccess_online_with_prompt_lines():
    name = "apcaccess_02_bk650m2_openwrt_ONLINE.txt"
    fields = apcupsd.parse_apcaccess(fixture_path("ups", name).read_text())
    assert "STATFLAG" not in fields and "SERIALNO" not in fields
    assert fields["FIRMWARE"] == "294803G -292804G"
    reading = apc_reading(name)
    assert reading.name == "ups1"
    assert reading.up
    assert reading.flags == {"OL"}
    v = reading.values
    assert v["input_voltage"] == 224.0
    assert v["load"] == 0.14
    assert v["battery_charge"] == 1.0
    assert v["battery_runtime"] == pytest.approx(46.8 * 60)
    assert v["battery_voltage"] == 13.5
    assert v["transfers"] == 0
    assert reading.info.model == "Back-UPS BK650M2-CH"
    assert reading.info.firmware == "294803G -292804G"


def test_apcaccess_commlost_is_down_with_unknown_charge_and_runtime():
    name = "apcaccess_04_docker_usb_COMMLOST.txt"
    fields = apcupsd.parse_apcaccess(fixture_path("ups", name).read_text())
    assert fields["STATUS"] == "COMMLOST"  # trailing space stripped
    assert apcupsd.parse_statflag(fields["STATFLAG"]) == 0x05000100
    reading = apc_reading(name)
    assert not reading.up
    assert reading.flags is None  # never ONLINE
    v = reading.values
    assert "battery_charge" not in v
    assert "battery_runtime" not in v
    assert v["battery_charge_low"] == 0.05  # MBATTCHG 5
    assert v["battery_runtime_low"] == 600  # MINTIMEL 10
    assert reading.name == "apcupsd"  # no UPSNAME


# ---- synthetic edge cases ----


def test_upsc_odd_values_are_dropped_not_exported_as_garbage():
    reading = nut_reading("synthetic_upsc_odd_values.txt")
    v = reading.values
    assert v["battery_charge"] == 0.12  # "012.0"
    assert v["input_voltage"] == 229.5  # "0229.5"
    assert v["load"] == 1.5  # overload is real
    assert v["temperature"] == -5.0
    for absent in (
        "battery_runtime",
        "battery_runtime_low",
        "battery_voltage",
        "output_voltage",
        "realpower",
    ):
        assert absent not in v, absent
    assert reading.flags == {"OL", "CHRG"}
    assert reading.info.manufacturer == 'Example "Power" Co'


def test_nut_wait_status_is_down_until_the_driver_has_data():
    reading = nut.reading_from_vars("ups", {"ups.status": "WAIT"})
    assert not reading.up and reading.flags is None and reading.values == {}


def test_upsc_data_stale_is_a_down_ups():
    output = upsc("synthetic_upsc_data_stale.txt")
    assert output.error == "Data stale"
    assert output.variables == {}


def test_apcaccess_onbatt_lowbatt():
    reading = apc_reading("synthetic_apcaccess_3.14_onbatt_lowbatt.txt")
    assert reading.flags == {"OB", "LB"}
    v = reading.values
    assert v["battery_charge"] == 0.09
    assert v["load"] == 0.57
    assert v["battery_runtime"] == 150
    assert v["time_on_battery"] == 615
    assert v["cumulative_time_on_battery"] == 1432
    assert v["transfers"] == 3
    assert v["power_nominal"] == 1500
    assert v["temperature"] == 31.5
    assert "input_frequency" not in v  # LINEFREQ N/A
    assert reading.info.serial == "AS1234567890"


def test_apcaccess_312_shutting_down_keeps_flags_from_statflag():
    reading = apc_reading("synthetic_apcaccess_3.12_shutting_down.txt")
    assert reading.up
    assert reading.flags == {"FSD", "OB", "LB"}
    v = reading.values
    assert v["load"] == 0.312
    assert v["temperature"] == 29.2  # "29.2 C Internal"
    assert v["input_nominal_voltage"] == 230  # no unit in 3.12
    assert v["battery_nominal_voltage"] == 24.0
    assert v["input_frequency"] == 50.0
    assert v["time_on_battery"] == 605  # lower-case "seconds"
    assert reading.info.model == "Smart-UPS 700"


# ---- building blocks ----


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("012.0", 12.0),
        ("100", 100.0),
        (" 5 ", 5.0),
        ("-1", -1.0),
        ("1e3", 1000.0),
        (".5", 0.5),
        ("N/A", None),
        ("nan", None),
        ("inf", None),
        ("", None),
        ("1_000", None),
        ("13,5", None),
        ("0x10", None),
        (None, None),
    ],
)
def test_parse_number(text, value):
    assert parse_number(text) == value


QUANTITY = {q.name: q for q in QUANTITIES}


@pytest.mark.parametrize(
    ("name", "text", "value"),
    [
        ("battery_runtime", "46.8 Minutes", 46.8 * 60),
        ("battery_runtime", "2", 120.0),  # apcupsd default unit: minutes
        ("battery_runtime", "90 Seconds", 90.0),
        ("battery_runtime", "5 Volts", None),  # unit of the wrong kind
        ("load", "14.0 Percent Load Capacity", 0.14),
        ("battery_charge", "101.0 Percent", None),
        ("battery_charge", "N/A", None),
        ("transfers", "7", 7.0),
        ("transfers", "-3", None),
        ("input_voltage", "224.0 Volts", 224.0),
        ("input_voltage", "224.0 Furlongs", None),
    ],
)
def test_apcupsd_quantity_units(name, text, value):
    result = apcupsd.quantity_value(QUANTITY[name], text)
    assert result == (pytest.approx(value) if value is not None else None)


@pytest.mark.parametrize(
    ("status", "statflag", "flags"),
    [
        ("ONLINE", None, {"OL"}),
        ("ONLINE TRIM", 0x0A, {"OL", "TRIM"}),
        ("ONBATT LOWBATT REPLACEBATT", None, {"OB", "LB", "RB"}),
        ("CAL ONLINE BOOST OVERLOAD", None, {"CAL", "OL", "BOOST", "OVER"}),
        ("SHUTTING DOWN", 0x250, {"FSD", "OB", "LB"}),
        ("NOBATT SLAVE ONLINE", None, {"OL"}),
        (None, 0x08, {"OL"}),
        (None, None, None),
    ],
)
def test_apcupsd_status_flags(status, statflag, flags):
    assert apcupsd.status_flags(status, statflag) == (frozenset(flags) if flags else flags)


@pytest.mark.parametrize(
    "fields",
    [
        {"STATUS": "COMMLOST "},
        {"STATUS": "SLAVEDOWN"},
        {"STATUS": "ONLINE", "STATFLAG": "0x108"},
        {"STATFLAG": "0x05000900 Status Flag"},
    ],
)
def test_apcupsd_commlost_variants(fields):
    assert apcupsd.is_commlost(fields)


def test_nut_status_flags():
    assert nut.status_flags("OL CHRG") == {"OL", "CHRG"}
    assert nut.status_flags("OB DISCHRG LB FSD") == {"OB", "DISCHRG", "LB", "FSD"}
    assert nut.status_flags("WAIT") == frozenset()
    assert nut.status_flags("") is None
    assert nut.status_flags(None) is None


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ('VAR ups ups.status "OL CHRG"', ["VAR", "ups", "ups.status", "OL CHRG"]),
        ('UPS dummy "Rack \\"A\\" UPS"', ["UPS", "dummy", 'Rack "A" UPS']),
        ('VAR u x "back\\\\slash"', ["VAR", "u", "x", "back\\slash"]),
        ('VAR u x ""', ["VAR", "u", "x", ""]),
        ("BEGIN LIST UPS", ["BEGIN", "LIST", "UPS"]),
    ],
)
def test_split_protocol_line(line, words):
    assert nut.split_protocol_line(line) == words


@pytest.mark.parametrize("line", ['VAR u x "open', "VAR u x \\"])
def test_split_protocol_line_rejects_broken_quoting(line):
    with pytest.raises(ValueError):
        nut.split_protocol_line(line)


def test_quote_argument():
    assert nut.quote_argument("ups1") == "ups1"
    assert nut.quote_argument('pa ss"w\\d') == '"pa ss\\"w\\\\d"'
    assert nut.quote_argument("") == '""'
    with pytest.raises(ValueError):
        nut.quote_argument("evil\nLIST UPS")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty input"),
        ("hello world\nno variables here\n", "line 1"),
        ("Init SSL without certificate database\nError: Unknown UPS\n", "line 2"),
    ],
)
def test_upsc_unparseable_names_the_line(text, message):
    with pytest.raises(ParseError, match=message):
        nut.parse_upsc(text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty input"),
        ("just some words\n", "line 1"),
        ("Error contacting host localhost port 3551: Connection refused\n", "line 1"),
    ],
)
def test_apcaccess_unparseable_names_the_line(text, message):
    with pytest.raises(ParseError, match=message):
        apcupsd.parse_apcaccess(text)


# ---- robustness: any input gives a reading or a ParseError, never garbage ----


LINE = st.one_of(
    st.text(max_size=40),
    st.builds(
        lambda k, v: f"{k}: {v}",
        st.sampled_from([q.nut for q in QUANTITIES if q.nut] + ["ups.status"]),
        st.text(max_size=12),
    ),
    st.builds(
        lambda k, v: f"{k:<9}: {v}",
        st.sampled_from([q.apc for q in QUANTITIES if q.apc] + ["STATUS", "STATFLAG"]),
        st.text(max_size=16),
    ),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(LINE, max_size=12))
def test_any_text_parses_to_finite_values_or_a_parse_error(lines):
    text = "\n".join(lines)
    for parse in (nut.parse_upsc, apcupsd.parse_apcaccess):
        try:
            parsed = parse(text)
        except ParseError:
            continue
        if isinstance(parsed, nut.UpscOutput):
            reading = nut.reading_from_vars("ups", parsed.variables)
        else:
            reading = apcupsd.reading_from_fields(parsed)
        for name, value in reading.values.items():
            assert value == value and abs(value) != float("inf"), name  # no NaN/Inf
            if name == "battery_charge":
                assert 0.0 <= value <= 1.0


@given(st.text(max_size=60))
def test_protocol_splitter_only_raises_value_error(line):
    try:
        nut.split_protocol_line(line)
    except ValueError:
        pass


@pytest.mark.parametrize(
    "name",
    [
        "upsc_02_ablerex_nutdrv_qx_2.7.4.1_OL_online_type.txt",
        "apcaccess_02_bk650m2_openwrt_ONLINE.txt",
    ],
)
def test_a_byte_order_mark_does_not_hide_the_first_key(name: str) -> None:
    text = fixture_path("ups", name).read_text()
    if name.startswith("upsc"):
        plain, marked = nut.parse_upsc(text), nut.parse_upsc("\ufeff" + text)
        assert marked == plain
    else:
        first = text.index("APC ")
        text = text[first:]  # the BOM is the first byte of the paste, before APC
        assert apcupsd.parse_apcaccess("\ufeff" + text) == apcupsd.parse_apcaccess(text)


def test_freebsd_sysctl_output_is_not_upsc() -> None:
    text = fixture_path("arc", "corpus", "arcstats_08_freebsd_ZoF_2019_sysctl_PARTIAL.txt")
    with pytest.raises(ParseError) as err:
        nut.parse_upsc(text.read_text())
    assert err.value.line_no == 1


# ---- later public samples: several brands and drivers (tests/fixtures/ups/README.md)

UPSC_FACTS = {
    # name: (flags, charge, runtime s, load, input V, output V, model, manufacturer, serial)
    "upsc_08_cyberpower_cpj500_usbhid_2.7.4_OL_100v_japan.txt":
        ({"OL"}, 1.0, 2250, 0.24, 101.0, 101.0, "CPJ500", "CPS", ""),
    "upsc_10_cyberpower_ec350g_freenas_2.7.3_OL_CHRG_charge68.txt":
        ({"OL", "CHRG"}, 0.68, 697, 0.26, 121.0, 122.0, "EC350G", "CPS", ""),
    "upsc_12_cyberpower_ut650eg_2.8_empty_serial_battery_status_PARTIAL.txt":
        ({"OL"}, 1.0, 10734, 0.0, 238.0, 240.0, "UT650EG", "CPS", ""),
    "upsc_14_cyberpower_cp850avrlcd_2.7.4_OL_CHRG_test_warning_charge48.txt":
        ({"OL", "CHRG"}, 0.48, 1092, 0.17, 123.0, 124.0, "UPS CP850AVRLCD", "CPS", ""),
    "upsc_16_cyberpower_bl1250u_2.7.4_OL_redacted_serial.txt":
        ({"OL"}, 1.0, 5670, 0.07, 121.0, 137.0, "BL1250U", "CPS", "<redacted>"),
    "upsc_18_cyberpower_sl900uc_2.8.0_OL_no_model.txt":
        ({"OL"}, 1.0, 14100, 0.0, 116.0, 116.0, "", "CPS", ""),
    "upsc_20_cyberpower_br1000elcd_2.7.4_no_status_PARTIAL.txt":
        (None, 1.0, 7200, 0.0, 238.0, 239.0, "BR1000ELCD", "CPS", ""),
    "upsc_22_apc_smart_ups_750_synology_dsm_OL_serial_trailing_space.txt":
        ({"OL"}, 1.0, 5580, None, None, None, "Smart-UPS 750", "American Power Conversion",
         "AS1244114679"),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(UPSC_FACTS))
def test_upsc_brand_samples(name: str) -> None:
    flags, charge, runtime, load, vin, vout, model, mfr, serial = UPSC_FACTS[name]
    reading = nut_reading(name)
    assert reading.up
    assert reading.flags == (None if flags is None else frozenset(flags))
    v = reading.values
    assert v.get("battery_charge") == charge
    assert v.get("battery_runtime") == runtime
    assert v.get("load") == load
    assert v.get("input_voltage") == vin
    assert v.get("output_voltage") == vout
    assert (reading.info.model, reading.info.manufacturer, reading.info.serial) == (
        model,
        mfr,
        serial,
    )
    assert reading.info.driver == "usbhid-ups"


def test_upsc_test_result_and_command_lines_are_not_variables() -> None:
    output = upsc("upsc_14_cyberpower_cp850avrlcd_2.7.4_OL_CHRG_test_warning_charge48.txt")
    assert output.variables["ups.test.result"] == "Done and warning"
    for name in (
        "upsc_10_cyberpower_ec350g_freenas_2.7.3_OL_CHRG_charge68.txt",
        "upsc_18_cyberpower_sl900uc_2.8.0_OL_no_model.txt",
    ):
        assert all("." in key for key in upsc(name).variables)


def test_apcaccess_back_ups_rs_24v() -> None:
    reading = apc_reading("apcaccess_06_back_ups_rs_1500ms2_debian_ONLINE_24v.txt")
    assert reading.up and reading.flags == {"OL"}
    v = reading.values
    assert v["battery_charge"] == 1.0
    assert v["battery_runtime"] == 180 * 60
    assert v["load"] == 0.03
    assert v["input_voltage"] == 123.0
    assert v["battery_voltage"] == 27.3
    assert v["battery_nominal_voltage"] == 24.0
    assert v["realpower_nominal"] == 900.0
    assert v["transfers"] == 0
    assert (reading.info.model, reading.info.serial) == ("Back-UPS RS 1500MS2", "0B2432L4XXXX")
