"""The UPS collector against a real NUT server: upsd and dummy-ups on loopback, run as root.

The dummy driver's ``.dev`` file is rewritten to walk the UPS through a power failure
(OL -> OB DISCHRG -> OB LB -> OL CHRG); upsd is killed and restarted to check recovery.
Skips loudly outside CI when NUT is not installed; fails in CI.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable

import pytest

from tests.collectors.ups.nutlab import NutLab
from tests.collectors.ups.test_collector import QueryBounds
from tests.helpers import not_run
from zmon.base.runner import StaticRunner
from zmon.collecting.registry import Context, Paths
from zmon.collectors.ups import UpsCollector
from zmon.exposition.metrics import MetricSet

pytestmark = [pytest.mark.real, pytest.mark.slow]

BASE = {
    "device.mfr": "Acme Power",
    "device.model": "Lab-1500",
    "device.serial": "LAB0001",
    "battery.charge.low": "20",
    "battery.runtime.low": "120",
    "input.voltage": "0230.0",
    "ups.load": "012.0",
}
STATES = [
    ({"ups.status": "OL", "battery.charge": "100", "battery.runtime": "3600"}, {"OL"}, 1.0, 3600.0),
    (
        {
            "ups.status": "OB DISCHRG",
            "battery.charge": "80",
            "battery.runtime": "1800",
            "input.voltage": "0.0",
        },
        {"OB", "DISCHRG"},
        0.8,
        1800.0,
    ),
    (
        {
            "ups.status": "OB LB",
            "battery.charge": "15",
            "battery.runtime": "90",
            "input.voltage": "0.0",
        },
        {"OB", "LB"},
        0.15,
        90.0,
    ),
    (
        {"ups.status": "OL CHRG", "battery.charge": "40", "battery.runtime": "900"},
        {"OL", "CHRG"},
        0.4,
        900.0,
    ),
]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    if os.geteuid() != 0:
        not_run("upsd and dummy-ups are run as root here", "run the tests as root")
    root = tmp_path_factory.mktemp("nut")
    lab = NutLab(
        root,
        {"rack": {**BASE, **STATES[0][0]}, "spare": {**BASE, **STATES[0][0]}},
        users="[monitor]\n  password = s3cret\n  upsmon secondary\n",
    )
    try:
        lab.start()
    except Exception:
        lab.close()
        pytest.fail(f"could not start the NUT lab:\n{lab.logs()}")
    yield lab
    lab.close()


def collector(lab: NutLab, **options) -> UpsCollector:
    opts = {
        "nut": [lab.address],
        "nut_username": "monitor",
        "nut_password": "s3cret",
        "connect_timeout": 1.0,
        "query_timeout": 3.0,
        "backoff_max": 0.5,
        **options,
    }
    return UpsCollector(Context(Paths(), StaticRunner({}), opts))


def wait_until(
    c: UpsCollector, check: Callable[[MetricSet], bool], lab: NutLab, timeout: float = 20.0
) -> MetricSet:
    """Collect until ``check`` holds, as the scheduler would, each run bounded in time."""
    end = time.monotonic() + timeout
    while True:
        ms = c.collect()  # bounded by its query deadline (test_collector.QueryBounds)
        if check(ms):
            return ms
        if time.monotonic() > end:
            pytest.fail(
                f"condition not reached in {timeout} s; last metrics: "
                f"{[(s.name, s.labels, s.value) for f in ms.families() for s in f.samples]}"
                f"\n{lab.logs()}"
            )
        time.sleep(0.2)


def flags_of(ms: MetricSet, ups: dict[str, str]) -> set[str]:
    return {
        s.labels["flag"]
        for f in ms.families()
        if f.name == "zmon_ups_status"
        for s in f.samples
        if s.value == 1.0 and all(s.labels[k] == v for k, v in ups.items())
    }


def info_labels(ms: MetricSet, ups: dict[str, str]) -> dict[str, str]:
    return next(
        s.labels
        for f in ms.families()
        if f.name == "zmon_ups_info"
        for s in f.samples
        if all(s.labels[k] == v for k, v in ups.items())
    )


def test_lists_every_ups_and_all_variables(lab):
    c = collector(lab)
    try:
        ms = wait_until(c, lambda m: m.sample_value("zmon_ups_up", {"ups": "spare"}) == 1.0, lab)
        for name in ("rack", "spare"):
            ups = {"ups": name, "server": lab.address}
            assert ms.sample_value("zmon_ups_up", ups) == 1.0
            assert (
                ms.sample_value("zmon_ups_info", {**ups, "driver": "dummy-ups", "source": "nut"})
                == 1.0
            )
            assert ms.sample_value("zmon_ups_load_ratio", ups) == 0.12  # "012.0"
            assert ms.sample_value("zmon_ups_input_voltage_volts", ups) == 230.0
            assert ms.sample_value("zmon_ups_battery_charge_low_ratio", ups) == 0.2
            assert ms.sample_value("zmon_ups_battery_runtime_low_seconds", ups) == 120.0
        assert ms.sample_value("zmon_ups_server_up", {"server": lab.address}) == 1.0
    finally:
        c.close()


def test_metrics_follow_a_power_failure(lab):
    c = collector(lab)
    ups = {"ups": "rack", "server": lab.address}
    try:
        for variables, flags, charge, runtime in STATES:
            lab.write_dev("rack", {**BASE, **variables})
            ms = wait_until(
                c,
                lambda m, f=flags, ch=charge: (
                    flags_of(m, ups) == f
                    and m.sample_value("zmon_ups_battery_charge_ratio", ups) == ch
                ),
                lab,
            )
            assert ms.sample_value("zmon_ups_battery_runtime_seconds", ups) == runtime
            assert ms.sample_value("zmon_ups_up", ups) == 1.0
    finally:
        c.close()
        lab.write_dev("rack", {**BASE, **STATES[0][0]})


def test_upsd_killed_then_restarted_recovers_by_itself(lab, monkeypatch):
    c = collector(lab)
    ups = {"ups": "rack", "server": lab.address}
    try:
        wait_until(c, lambda m: m.sample_value("zmon_ups_up", ups) == 1.0, lab)
        lab.stop_upsd(signal.SIGKILL)
        bounds = QueryBounds(monkeypatch)
        ms = c.collect()
        monkeypatch.undo()
        assert len(bounds.deadlines) == 1
        assert all(t is not None and t <= c.query_timeout for t in bounds.socket_timeouts)
        assert ms.sample_value("zmon_ups_up", ups) == 0.0
        assert ms.sample_value("zmon_ups_server_up", {"server": lab.address}) == 0.0
        assert ms.sample_value("zmon_ups_battery_charge_ratio", ups) is None
        lab.start_upsd()
        wait_until(c, lambda m: m.sample_value("zmon_ups_up", ups) == 1.0, lab)
    finally:
        c.close()
        if lab.upsd is None:
            lab.start_upsd()


def test_lost_driver_is_a_down_ups_on_a_live_server(lab):
    c = collector(lab)
    ups = {"ups": "spare", "server": lab.address}
    try:
        ms = wait_until(c, lambda m: m.sample_value("zmon_ups_up", ups) == 1.0, lab)
        info = info_labels(ms, ups)
        assert info["driver"] == "dummy-ups" and info["serial"] == "LAB0001"
        lab.stop_driver("spare")
        ms = wait_until(c, lambda m: m.sample_value("zmon_ups_up", ups) == 0.0, lab)
        assert ms.sample_value("zmon_ups_server_up", {"server": lab.address}) == 1.0
        assert ms.sample_value("zmon_ups_up", {"ups": "rack"}) == 1.0
        assert ms.sample_value("zmon_ups_battery_charge_ratio", ups) is None
        assert info_labels(ms, ups) == info  # still known while the driver is gone
        lab.start_driver("spare")
        wait_until(c, lambda m: m.sample_value("zmon_ups_up", ups) == 1.0, lab, timeout=30)
    finally:
        c.close()
        if "spare" not in lab.drivers:
            lab.start_driver("spare")


def test_one_upsd_under_two_addresses_gives_distinct_series(lab):
    other = f"localhost:{lab.port}"
    c = collector(lab, nut=[lab.address, other])
    try:
        ms = wait_until(
            c, lambda m: m.sample_value("zmon_ups_up", {"ups": "rack", "server": other}) == 1.0, lab
        )
        assert ms.sample_value("zmon_ups_up", {"ups": "rack", "server": lab.address}) == 1.0
    finally:
        c.close()


def test_no_processes_left_behind(lab, tmp_path):
    """A second lab started and closed here must leave no upsd or driver running."""
    extra = NutLab(tmp_path, {"solo": {**BASE, **STATES[0][0]}})
    extra.start()
    pids = [extra.upsd.pid, *(p.pid for p in extra.drivers.values())]
    extra.close()
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
