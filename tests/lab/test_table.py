"""Hermetic checks of the lab's assertion table and its evaluation engine (no VM needed)."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from tests.lab import checks
from tests.lab.engine import (
    ALL_STEPS,
    AllCollectorsSucceed,
    Scrape,
    StepRunner,
    advancing,
    check,
    eq,
    ge,
    same_as,
    stalled,
)
from tests.lab.labvm import read_facts

LAB = Path(__file__).resolve().parent
CAPTURES = LAB.parent / "fixtures" / "lab"


def test_steps_match_the_guest_driver() -> None:
    driver = (LAB / "guest" / "driver.sh").read_text()
    published = re.findall(r"^ready (\S+)", driver, re.M)
    assert tuple(published) == checks.STEPS


@pytest.mark.parametrize("table", ["CHECKS", "ALERTS"])
def test_every_row_names_known_steps_and_versions(table: str) -> None:
    for row in getattr(checks, table):
        assert set(row.steps) <= {*checks.STEPS, ALL_STEPS}, row
        assert set(row.versions) <= set(checks.VERSIONS), row
        assert row.what and row.metric, row
        for step in (s for s in (row.expect.step,) if s):
            assert checks.STEPS.index(step) < min(
                checks.STEPS.index(s) for s in row.steps if s != ALL_STEPS
            ), row


def test_every_contract_metric_is_asserted_live() -> None:
    asserted = {
        r.metric
        for row in checks.CHECKS
        for r in (row, *row.alternatives)
        if not row.pending and r.expect.text != "absent"
    }
    asserted.add("zmon_collector_success")  # checks.COLLECTORS: every collector, every step
    missing = [m for m in checks.CONTRACT_METRICS if m not in asserted and m not in checks.NOT_LIVE]
    assert not missing, f"contract metrics no live row asserts: {missing}"
    assert not set(checks.NOT_LIVE) & asserted, "NOT_LIVE lists a metric that is asserted"
    documented = (LAB.parents[1] / "docs" / "metrics.md").read_text()
    for name in checks.CONTRACT_METRICS:
        assert f"`{name}`" in documented, f"{name} is not in docs/metrics.md"


EXPO = """\
# TYPE zmon_collector_success gauge
zmon_collector_success{collector="zpool"} 1
zmon_collector_success{collector="smart"} 0
# TYPE zmon_collector_last_success_timestamp_seconds gauge
zmon_collector_last_success_timestamp_seconds{collector="zpool"} 105
zmon_collector_last_success_timestamp_seconds{collector="smart"} 50
# TYPE zmon_collector_duration_seconds gauge
zmon_collector_duration_seconds{collector="zpool"} 2
zmon_collector_duration_seconds{collector="smart"} 1
# TYPE zmon_collector_runs_total counter
zmon_collector_runs_total{collector="zpool",result="success"} 9
zmon_collector_runs_total{collector="smart",result="failure"} RUNS
# TYPE zmon_vdev_state gauge
zmon_vdev_state{pool="tank",vdev="ata-X",state="online",class="normal"} 1
zmon_vdev_state{pool="tank",vdev="ata-X",state="faulted",class="normal"} 0
# TYPE zmon_vdev_info gauge
zmon_vdev_info{pool="tank",vdev="ata-X",device="sdb"} 1
# TYPE zmon_pool_scan_issued_bytes gauge
zmon_pool_scan_issued_bytes{pool="tank"} ISSUED
"""


def _expo(runs: int = 3, issued: int = 1000) -> str:
    return EXPO.replace("RUNS", str(runs)).replace("ISSUED", str(issued))


def test_selectors_sum_and_resolve_facts() -> None:
    s = Scrape(_expo())
    row = check("s", "zmon_vdev_info", {"vdev": "ata-X", "device": "$dev.ata-X"}, eq(1), "map")
    sel = row.selector({"dev.ata-X": "sdb"})
    assert s.value("zmon_vdev_info", sel) == 1
    assert s.value("zmon_vdev_info", row.selector({"dev.ata-X": "sdc"})) is None
    assert s.value("zmon_vdev_state", {"pool": ("tank",)}) == 1  # summed over states
    assert s.value("zmon_vdev_state", {"state": ("faulted", "online")}) == 1


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def sleep(self, seconds: float) -> None:
        self.now += seconds

    def __call__(self) -> float:
        return self.now


class FakeZmon:
    """Serves a sequence of expositions, one per scrape; the last one repeats."""

    def __init__(self, *texts: str) -> None:
        self.texts = list(texts)
        self.calls = 0

    def __call__(self) -> str:
        self.calls += 1
        return self.texts.pop(0) if len(self.texts) > 1 else self.texts[0]


def _runner(zmon, version: str = "2.3.2", fresh: bool = True) -> StepRunner:  # type: ignore[no-untyped-def]
    clock = FakeClock()
    return StepRunner(zmon, version, sleep=clock.sleep, clock=clock, wait_fresh=fresh)


def test_step_waits_for_fresh_data_and_reports_pending() -> None:
    # zpool's last run started at 103 (105 - 2): fresh for a step published at 100.
    # smart keeps failing: fresh once it ran twice more (3 -> 5 runs).
    zmon = FakeZmon(_expo(runs=3), _expo(runs=4), _expo(runs=5))
    runner = _runner(zmon)
    rows = [
        check("s", "zmon_vdev_state", {"vdev": "ata-X", "state": "online"}, eq(1), "online"),
        check(
            "s",
            "zmon_vdev_state",
            {"vdev": "ata-X", "state": "faulted"},
            eq(1),
            "faulted",
            settle=0,
            pending="collector not there yet",
        ),
    ]
    collectors = AllCollectorsSucceed({"smart": [("no SMART in this VM", (), ())]})
    results, _ = runner.run("s", {"guest_time": "100"}, rows, collectors)
    assert zmon.calls >= 3
    by_what = {r.check.what: r for r in results}
    assert by_what["online"].ok
    assert by_what["faulted"].pending and not by_what["faulted"].ok
    assert by_what["collector smart succeeds"].pending
    assert by_what["collector zpool succeeds"].ok
    assert by_what["faulted"].line().startswith("PENDING ")


def test_history_and_time_windows() -> None:
    zmon = FakeZmon(_expo(issued=1000))
    runner = _runner(zmon)
    runner.run("a", {"guest_time": "0"}, [])
    zmon.texts = [_expo(issued=1000), _expo(issued=1000), _expo(issued=5000)]
    rows = [
        check("b", "zmon_pool_scan_issued_bytes", {"pool": "tank"}, same_as("a"), "same"),
        check("b", "zmon_pool_scan_issued_bytes", {"pool": "tank"}, advancing(5), "moves"),
    ]
    results, _ = runner.run("b", {"guest_time": "0"}, rows)
    assert [r.ok for r in results] == [True, True]
    zmon.texts = [_expo(issued=7000)]
    rows = [
        check("c", "zmon_pool_scan_issued_bytes", {"pool": "tank"}, stalled(5, 10), "stuck"),
        check("c", "zmon_pool_scan_issued_bytes", {"pool": "tank"}, ge(1), "some"),
    ]
    results, _ = runner.run("c", {"guest_time": "0"}, rows)
    assert [r.ok for r in results] == [True, True]


def _captured_steps(version: str) -> list[Path]:
    root = CAPTURES / version
    return sorted(p for p in root.glob("[0-9][0-9]-*") if (p / "metrics.prom").is_file())


@pytest.mark.parametrize("version", checks.VERSIONS)
def test_table_holds_on_the_captured_run(version: str) -> None:
    """The table, replayed on the exposition `make lab-capture` recorded at each step."""
    steps = _captured_steps(version)
    assert steps, f"no lab captures for {version} in {CAPTURES} (make lab-capture)"
    texts = {p.name: (p / "metrics.prom").read_text() for p in steps}
    runner = _runner(lambda: "", version, fresh=False)  # recorded: nothing gets fresher
    failures = []
    for p in steps:
        runner.scrape_text = lambda t=texts[p.name]: t  # type: ignore[misc]
        rows = [c for c in checks.CHECKS if not c.expect.window]
        results, _ = runner.run(p.name, {**read_facts(p / "facts.txt"), "guest_time": "0"}, rows)
        failures += [r.line() for r in results if not r.ok and not r.pending]
    assert not failures, "\n".join(failures)


def test_stopping_a_run_kills_its_processes() -> None:
    import subprocess

    from tests.lab.labvm import reap_children, track

    proc = subprocess.Popen(["sh", "-c", "sleep 60 & sleep 60"], start_new_session=True)
    track(proc)
    reap_children()
    assert proc.wait(5) == -9
    # SIGKILL reaches the rest of the group asynchronously: wait until it is gone (bounded)
    deadline = time.monotonic() + 10
    while True:
        group = subprocess.run(["pgrep", "-g", str(proc.pid)], capture_output=True)
        if group.returncode == 1 or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert group.returncode == 1, f"left behind: {group.stdout!r}"
