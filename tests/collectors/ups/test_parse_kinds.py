"""``zmon parse upsc|apcaccess``: golden exposition for every sample, and the shared code path."""

from __future__ import annotations

import pytest

from tests.helpers import fixture_path
from zmon.base.errors import ParseError
from zmon.collecting.registry import parse_kinds
from zmon.collectors.ups.metrics import QUANTITY_METRICS, nut_vars_to_metrics
from zmon.exposition.formats import render
from zmon.parsers.ups.ups import QUANTITIES

FIXTURES = sorted(p.name for p in fixture_path("ups").glob("*.txt"))
UPSC = [name for name in FIXTURES if "upsc_" in name]
APCACCESS = [name for name in FIXTURES if "apcaccess_" in name]


def parse(kind: str, name: str) -> str:
    func, _ = parse_kinds()[kind]
    return render(func(fixture_path("ups", name).read_bytes()).families()).decode()


def test_parse_kinds_are_registered():
    kinds = parse_kinds()
    assert "upsc" in kinds and "apcaccess" in kinds


def test_every_fixture_has_a_kind():
    assert len(UPSC) + len(APCACCESS) == len(FIXTURES)
    assert len(UPSC) >= 3 and len(APCACCESS) >= 2


@pytest.mark.parametrize("name", UPSC)
def test_upsc_golden(name, golden):
    golden(f"ups/{name.removesuffix('.txt')}.prom", parse("upsc", name))


@pytest.mark.parametrize("name", APCACCESS)
def test_apcaccess_golden(name, golden):
    golden(f"ups/{name.removesuffix('.txt')}.prom", parse("apcaccess", name))


def test_commlost_exposition_has_no_charge_runtime_or_online():
    text = parse("apcaccess", "apcaccess_04_docker_usb_COMMLOST.txt")
    assert 'zmon_ups_up{server="",ups="apcupsd"} 0.0' in text
    assert "zmon_ups_battery_charge_ratio" not in text
    assert "zmon_ups_battery_runtime_seconds{" not in text
    assert "zmon_ups_status" not in text


def test_data_stale_reports_the_ups_down():
    text = parse("upsc", "synthetic_upsc_data_stale.txt")
    assert 'zmon_ups_up{server="",ups="ups"} 0.0' in text
    assert "zmon_ups_status" not in text


def test_no_garbage_values_in_any_exposition():
    for name in UPSC:
        assert "NaN" not in parse("upsc", name) and "Inf" not in parse("upsc", name)
    for name in APCACCESS:
        assert "NaN" not in parse("apcaccess", name)


def test_replay_api_matches_the_parse_kind():
    """The demo feeds variable dicts; it must print what the upsc path prints."""
    name = "upsc_06_apc_bk650m2_usbhid-ups_2.8.0_OL_DISCHRG_PARTIAL.txt"
    variables = {
        "battery.charge": "100",
        "battery.charge.low": "50",
        "battery.runtime": "3618",
        "ups.status": "OL DISCHRG",
    }
    text = render(nut_vars_to_metrics("ups", variables).families()).decode()
    full = parse("upsc", name)
    for line in text.splitlines():
        if line.startswith(("zmon_ups_status", "zmon_ups_battery_charge_ratio", "zmon_ups_up")):
            assert line in full


@pytest.mark.parametrize("kind", ["upsc", "apcaccess"])
def test_parse_kind_rejects_junk_with_a_line(kind):
    func, _ = parse_kinds()[kind]
    with pytest.raises(ParseError) as err:
        func(b"\x00\xff garbage\nmore garbage\n")
    assert err.value.line_no == 1


UNIT_SUFFIX = {
    "ratio": "_ratio",
    "seconds": "_seconds",
    "volts": "_volts",
    "hertz": "_hertz",
    "watts": "_watts",
    "voltamperes": "_voltamperes",
    "celsius": "_celsius",
    "count": "",
}


def test_every_quantity_has_one_metric_named_for_its_unit():
    by_name = {quantity.name: quantity for quantity in QUANTITIES}
    assert [spec.quantity for spec in QUANTITY_METRICS] == list(by_name)
    for spec in QUANTITY_METRICS:
        base = spec.metric.removesuffix("_total")
        assert base.endswith(UNIT_SUFFIX[by_name[spec.quantity].dimension]), spec
        assert spec.kind == ("counter" if spec.metric.endswith("_total") else "gauge"), spec
