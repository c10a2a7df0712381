"""``zmon status`` words on what zmon served in the lab VM at each step, both OpenZFS
versions (tests/fixtures/lab/<version>/<step>/metrics.prom): the state, the headline and the
diagnoses that must be there. The live lab asserts the same table (tests/lab/)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.status.helpers import families
from zmon.status.diagnoses import RULES
from zmon.status.report import build_report

LAB = Path(__file__).resolve().parents[1] / "fixtures" / "lab"
VERSIONS = ("2.1.11", "2.3.2")

SINGLE_LOST = "CRITICAL - pool single: data is lost in the files zpool lists"
# step -> (exit code, headline start, rules that must be among the findings)
EXPECTED: dict[str, tuple[int, str, set[str]]] = {
    "01-healthy": (0, "OK - 3 pools healthy (rz, single, tank)", set()),
    "02-scrub-in-progress": (0, "OK - 3 pools healthy", set()),
    "03-scrub-finished": (0, "OK - 3 pools healthy", set()),
    "04-checksum-errors-repaired": (
        1,
        "WARNING - ata-QEMU_HARDDISK_ZLSATA1 (sdb, mirror-0 of tank): data read back did "
        "not match its checksum",
        {"checksum_errors"},
    ),
    "05-io-errors": (
        1,
        "WARNING - vdc (raidz1-0 of rz): the device failed reads or writes",
        {"io_errors"},
    ),
    "06-permanent-errors": (
        2,
        SINGLE_LOST,
        {"data_errors", "ups_low_battery", "scrub_found_errors"},
    ),
    "07-degraded-offline": (2, SINGLE_LOST, {"pool_degraded"}),
    "08-faulted": (2, SINGLE_LOST, {"pool_degraded"}),
    "09-resilver-in-progress": (2, SINGLE_LOST, {"resilver_running"}),
    # one sample cannot show a stall: the daemon's page and JSON say it from their history
    "10-resilver-stalled": (2, SINGLE_LOST, {"resilver_running"}),
    "11-resilver-finished": (2, SINGLE_LOST, set()),
    "12-spare-in-use": (2, SINGLE_LOST, {"spare_in_use"}),
    # the removed disk and the spare standing in for it are one finding: the degraded pool's
    "13-device-removed": (2, SINGLE_LOST, {"pool_degraded"}),
    "14-pool-suspended": (2, "CRITICAL - pool fragile: ", {"data_errors", "io_errors"}),
}
# 2.3.2 suspends the pool; 2.1.11 keeps it ONLINE with write errors
BY_VERSION = {("2.3.2", "14-pool-suspended"): {"pool_unavailable"}}


def captured_report(version: str, step: str) -> dict:  # type: ignore[type-arg]
    text = (LAB / version / step / "metrics.prom").read_text()
    now = max(
        float(v)
        for v in re.findall(
            r"^zmon_collector_last_success_timestamp_seconds\{[^}]*\} (\S+)$", text, re.M
        )
    )
    return build_report(families(text), now, host="lab")


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("step", sorted(EXPECTED))
def test_lab_step_is_diagnosed(version: str, step: str) -> None:
    code, head, rules = EXPECTED[step]
    report = captured_report(version, step)
    assert report["exit_code"] == code, report["headline"]
    assert report["headline"].startswith(head)
    expected = rules | BY_VERSION.get((version, step), set())
    notes = {r.id for r in RULES if r.note}
    assert expected - notes <= {f["rule"] for f in report["findings"]}
    assert expected & notes <= {n["rule"] for n in report["notes"]}


def test_every_lab_step_has_an_expectation() -> None:
    for version in VERSIONS:
        steps = {p.name for p in (LAB / version).iterdir() if (p / "metrics.prom").exists()}
        assert steps == set(EXPECTED), version


def test_no_cable_or_dying_disk_is_claimed_in_the_lab() -> None:
    """The lab's disks have clean SMART and no link errors: nothing may blame them."""
    for version in VERSIONS:
        for step in EXPECTED:
            rules = {f["rule"] for f in captured_report(version, step)["findings"]}
            assert not rules & {"cable_fault", "media_failing", "smart_failed"}, (version, step)
