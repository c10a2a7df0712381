"""Golden ``zmon status`` reports of each phase of the demo story (text and exit code).

The demo is stepped on an explicit clock (tests/status/demo_story.py), so the words ("last
scrub 2 min ago", "about 3 min to go") are the same on every run. Rewrite with
``pytest --update-golden`` after an intended change, and review the diff.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.status.demo_story import walk
from zmon.demo.timeline import PHASES
from zmon.status.report import build_report
from zmon.status.terminal import render_text

# phase -> (exit code, the rules that must be among the findings)
EXPECTED = {
    "healthy": (0, set()),
    "scrub": (0, set()),
    "scrub-finished": (0, set()),
    "checksum-errors": (2, {"cable_fault"}),
    # the lab's pool "single" holds permanent errors from here on (recorded as it was)
    # sdb's cable fault is told by the degraded pool's finding, which names the offline disk
    "degraded": (2, {"pool_degraded", "ups_on_battery", "data_errors"}),
    # sda holds the only good copy while sdb is replaced: one critical finding, no cable
    # advice for the disk being replaced
    "resilvering": (2, {"resilver_source_failing", "ups_low_battery"}),
    "resilvering-later": (2, {"resilver_source_failing"}),
    "resilvered": (2, {"cable_fault", "media_failing"}),
    # one collection has no history: the slowdown against the usual is the daemon's to say
    # (tests/demo/test_slowdown_phase.py)
    "slowdown": (2, {"cable_fault", "media_failing"}),
}


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[dict, str]]:  # type: ignore[type-arg]
    mp = pytest.MonkeyPatch()
    out = {}
    try:
        for cap in walk(tmp_path_factory.mktemp("demo"), mp):
            report = build_report(cap.families, cap.now, host="demo")
            text = render_text(report).replace(cap.ups_address, "127.0.0.1:3493")
            out[cap.name] = (report, text)
    finally:
        mp.undo()
    return out


def test_every_phase_has_an_expectation() -> None:
    assert set(EXPECTED) == {p.name for p in PHASES}


@pytest.mark.parametrize("phase", [p.name for p in PHASES])
def test_status_of_demo_phase(reports, golden, phase: str) -> None:  # type: ignore[no-untyped-def]
    report, text = reports[phase]
    code, rules = EXPECTED[phase]
    golden(str(Path("status") / f"demo-{phase}.txt"), f"exit code {report['exit_code']}\n{text}")
    assert report["exit_code"] == code, report["headline"]
    assert rules <= {f["rule"] for f in report["findings"]}, report["headline"]


@pytest.mark.parametrize("phase", ["resilvering", "resilvering-later"])
def test_no_cable_advice_for_the_disk_being_replaced(reports, phase: str) -> None:  # type: ignore[no-untyped-def]
    report, _ = reports[phase]
    rules = {f["rule"] for f in report["findings"]}
    assert not rules & {"cable_fault", "media_failing", "resilver_running"}
    (source,) = [f for f in report["findings"] if f["rule"] == "resilver_source_failing"]
    assert source["severity"] == "critical"
    assert source["subject"].startswith("sda (serial ZLSATA0, ")
    assert source["action"].startswith("do not pull it or take it offline; let the resilver")
    assert "zpool replace tank ata-QEMU_HARDDISK_ZLSATA0 <new-disk-by-id>" in source["action"]


def test_sdb_is_a_cable_fault_and_sda_a_dying_disk(reports) -> None:  # type: ignore[no-untyped-def]
    report, _ = reports["resilvered"]
    by_rule = {f["rule"]: f for f in report["findings"]}
    # replaced: in no pool now, and named by its serial and port
    assert by_rule["cable_fault"]["subject"] == "sdb (serial ZLSATA1, ata2)"
    assert by_rule["media_failing"]["subject"].startswith("sda (serial ZLSATA0, ata1, ")
    assert "8 sectors reallocated" in by_rule["media_failing"]["evidence"]
