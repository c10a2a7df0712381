"""Hermetic checks of the lab's ``zmon status`` rows (tests/lab/status_checks.py): on the
lab's captures every step passes for both versions, a wrong answer fails and is retried, and
the command is run as a check runs it."""

from __future__ import annotations

from typing import Any

import pytest

from tests.lab import checks
from tests.lab.status_checks import _unnamed, expected, run_status, status_results
from tests.status.test_cli import Exporter
from tests.status.test_lab_captures import LAB, captured_report


def _captured(version: str, step: str):  # type: ignore[no-untyped-def]
    def run(url: str) -> tuple[int, dict[str, Any] | None, str]:
        report = captured_report(version, step)
        return report["exit_code"], report, ""

    return run


@pytest.mark.parametrize("version", checks.VERSIONS)
def test_every_step_passes_on_the_captures(version: str) -> None:
    for step in checks.STEPS:
        rows = status_results(step, version, "unused", run=_captured(version, step), settle=0)
        assert len(rows) == 3 and all(r.ok for r in rows), [r.line() for r in rows]


def test_a_wrong_answer_fails_after_the_settle_time() -> None:
    now = [0.0]
    calls = []

    def run(url: str) -> tuple[int, dict[str, Any] | None, str]:
        calls.append(url)
        return 0, {"headline": "OK - 3 pools healthy", "findings": []}, ""

    def sleep(seconds: float) -> None:
        now[0] += seconds

    rows = status_results(
        checks.CKSUM, "2.3.2", "u", run=run, settle=10, sleep=sleep, clock=lambda: now[0]
    )
    assert [r.ok for r in rows] == [False, False, False] and len(calls) == 5
    assert "FAIL" in rows[0].line() and "zmon status: exit code 1" in rows[0].line()


@pytest.mark.parametrize("version", checks.VERSIONS)
def test_the_io_errors_step_takes_a_raidz_childs_checksum_errors_first(version: str) -> None:
    # a live 2.1.11 run charged checksum errors to every child of the raidz beside vdc's I/O
    # errors; checksum errors rank first, so the headline named vda
    def run(headline: str, rules: list[str]):  # type: ignore[no-untyped-def]
        findings = [{"rule": r} for r in rules]
        return lambda url: (1, {"headline": headline, "findings": findings}, "")

    seen = (
        "WARNING - vda (raidz1-0 of rz): data read back did not match its checksum (disk, "
        "cable, controller or RAM) (and 3 more)"
    )
    rows = status_results(
        checks.IO_ERRORS, version, "u", run=run(seen, ["checksum_errors", "io_errors"]), settle=0
    )
    assert all(r.ok for r in rows), [r.line() for r in rows]
    assert "or 3 others" in rows[1].line()
    # still wrong: a disk outside the raidz, or no I/O errors found
    other = seen.replace("vda (raidz1-0 of rz)", "vdd (log of tank)")
    rows = status_results(
        checks.IO_ERRORS, version, "u", run=run(other, ["checksum_errors", "io_errors"]), settle=0
    )
    assert [r.ok for r in rows] == [True, False, True]
    rows = status_results(
        checks.IO_ERRORS, version, "u", run=run(seen, ["checksum_errors"]), settle=0
    )
    assert [r.ok for r in rows] == [True, True, False]


def test_every_step_has_an_expectation_for_both_versions() -> None:
    for version in checks.VERSIONS:
        for step in checks.STEPS:
            code, head, _ = expected(step, version)
            assert code in (0, 1, 2) and head


def test_zmon_status_is_run_as_a_check_runs_it() -> None:
    e = Exporter((LAB / "2.3.2" / checks.IO_ERRORS / "metrics.prom").read_text())
    try:
        code, report, _ = run_status(f"http://127.0.0.1:{e.port}")
    finally:
        e.stop()
    assert code == 1 and report is not None
    assert report["headline"].startswith("WARNING - vdc (raidz1-0 of rz)")


def test_a_live_headline_naming_where_the_disk_is_matches_the_captured_one() -> None:
    """Live, the devices collector serves serials and ports that the captures lack."""
    live = "WARNING - ata-QEMU_HARDDISK_ZLSATA1 (sdc, serial ZLSATA1, ata2, mirror-0 of tank): d"
    assert _unnamed(live) == "WARNING - ata-QEMU_HARDDISK_ZLSATA1 (mirror-0 of tank): d"
    assert _unnamed("WARNING - vdc (serial ZLVIRT2, raidz1-0 of rz): x") == (
        "WARNING - vdc (raidz1-0 of rz): x"
    )
