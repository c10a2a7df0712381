"""Every wording of the scan: section, from Solaris/zfs-fuse to OpenZFS 2.3+ and dRAID."""

from __future__ import annotations

from datetime import UTC
from typing import Any

import pytest

from tests.support.zpool_status import utc
from zmon.parsers.zpool.scan import parse_scan

K, M, G = 1 << 10, 1 << 20, 1 << 30
D = "Sun Nov 29 23:55:34 2026"
T = utc("2026-11-29 23:55:34")

CASES: list[tuple[str, list[str], dict[str, Any] | None]] = [
    ("none", ["none requested"], None),
    ("zfs-fuse scrub completed",
     ["scrub completed after 0h0m with 0 errors on Sun Nov 29 23:50:39 2026"],
     dict(function="scrub", state="finished", errors=0, duration=0,
          end_time=utc("2026-11-29 23:50:39"), start_time=None)),
    ("zfs-fuse resilver completed",
     ["resilver completed after 0h3m with 2 errors on " + D],
     dict(function="resilver", state="finished", errors=2, duration=180, end_time=T)),
    ("solaris scrub stopped", ["scrub stopped after 0h1m with 0 errors on " + D],
     dict(function="scrub", state="canceled", end_time=T)),
    ("solaris scrub in progress", ["scrub in progress for 0h1m, 12.34% done, 0h5m to go"],
     dict(function="scrub", state="in_progress", progress=0.1234, remaining=300)),
    ("solaris resilver in progress", ["resilver in progress for 0h0m, 5.00% done, 0h10m to go"],
     dict(function="resilver", state="in_progress", progress=0.05, remaining=600)),
    ("0.6 repaired no unit", ["scrub repaired 0 in 3h49m with 1937 errors on " + D],
     dict(function="scrub", state="finished", processed=0, errors=1937, duration=13740,
          end_time=T, start_time=None)),
    ("0.8 days duration", ["scrub repaired 1.5M in 1 days 02:00:00 with 0 errors on " + D],
     dict(processed=round(1.5 * M), duration=93600, start_time=T - 93600, end_time=T)),
    ("0.7 in progress", ["scrub in progress since " + D,
                         "80MB scanned out of 447MB at 6.1MB/s, 0h0m to go",
                         "0B repaired, 17.81% done"],
     dict(state="in_progress", start_time=T, examined=80 * M, to_examine=447 * M,
          examine_rate=round(6.1 * M), remaining=0, processed=0, progress=0.1781, issued=None)),
    ("0.7 slow", ["resilver in progress since " + D,
                  "1.00G scanned out of 2.00T at 1K/s, (scan is slow, no estimated time)",
                  "10M resilvered, 0.05% done"],
     dict(function="resilver", examined=G, to_examine=2 << 40, examine_rate=1024,
          remaining=None, processed=10 * M)),
    ("2.1 in progress", ["scrub in progress since " + D,
                         "199M scanned at 9.95M/s, 35.2M issued at 1.76M/s, 199M total",
                         "0B repaired, 17.70% done, no estimated completion time"],
     dict(state="in_progress", examined=199 * M, examine_rate=round(9.95 * M),
          issued=round(35.2 * M), issue_rate=round(1.76 * M), to_examine=199 * M,
          to_issue=None, progress=0.177, remaining=None)),
    ("2.1 eta", ["scrub in progress since " + D,
                 "199M scanned at 39.8M/s, 110M issued at 22.0M/s, 199M total",
                 "0B repaired, 55.18% done, 00:00:04 to go"],
     dict(remaining=4, progress=0.5518)),
    ("2.1 paused", ["scrub paused since Sun Nov 29 23:56:08 2026", "scrub started on " + D,
                    "199M scanned, 35.2M issued, 199M total", "0B repaired, 17.70% done"],
     dict(state="paused", pause_time=utc("2026-11-29 23:56:08"), start_time=T,
          examined=199 * M, issued=round(35.2 * M), examine_rate=None, remaining=None)),
    ("2.3 in progress", ["scrub in progress since " + D,
                         "200M / 200M scanned, 33.5M / 200M issued at 2.10M/s",
                         "0B repaired, 17.20% done, no estimated completion time"],
     dict(examined=200 * M, to_examine=200 * M, examine_rate=None, issued=round(33.5 * M),
          to_issue=200 * M, issue_rate=round(2.1 * M), progress=0.172)),
    ("2.3 both rates", ["resilver in progress since " + D,
                        "68.8T / 104T scanned at 2.81G/s, 48.3T / 104T issued at 1.97G/s",
                        "2.80T resilvered, 46.64% done, 07:58:49 to go"],
     dict(function="resilver", examine_rate=round(2.81 * G), issue_rate=round(1.97 * G),
          remaining=28729)),
    ("2.3 paused", ["scrub paused since Mon Nov 30 00:07:38 2026",
                    "scrub started on Mon Nov 30 00:06:58 2026",
                    "200M / 200M scanned, 56.2M / 199M issued", "0B repaired, 28.17% done"],
     dict(state="paused", start_time=utc("2026-11-30 00:06:58"),
          pause_time=utc("2026-11-30 00:07:38"), to_issue=199 * M, issue_rate=None)),
    ("canceled", ["scrub canceled on " + D], dict(state="canceled", end_time=T)),
    ("resilver canceled", ["resilver canceled on " + D],
     dict(function="resilver", state="canceled", end_time=T)),
    ("rebuild in progress (2.0-2.2)",
     ["resilver (draid2:8d:90c:2s-0) in progress since " + D,
      "1.23T scanned at 512M/s, 1.00T issued 400M/s, 10.0T total",
      "1.00T resilvered, 12.30% done, 04:01:02 to go"],
     dict(function="rebuild", state="in_progress", vdev="draid2:8d:90c:2s-0", start_time=T,
          examined=round(1.23 * (1 << 40)), issue_rate=400 * M, to_examine=10 << 40,
          processed=1 << 40, progress=0.123, remaining=4 * 3600 + 62)),
    ("rebuild in progress (2.3)",
     ["resilver (draid1:3d:6c:1s-0) in progress since " + D,
      "10M / 20M scanned at 1M/s, 5M / 19M issued at 1M/s",
      "5M resilvered, 50.00% done, no estimated completion time"],
     dict(function="rebuild", vdev="draid1:3d:6c:1s-0", to_issue=19 * M, progress=0.5)),
    ("rebuild finished",
     ["resilvered (draid2:8d:90c:2s-0) 2.5T in 1 days 01:02:03 with 0 errors on " + D],
     dict(function="rebuild", state="finished", processed=round(2.5 * (1 << 40)),
          duration=90123, end_time=T, start_time=None, vdev="draid2:8d:90c:2s-0")),
    ("rebuild canceled", ["resilver (draid2:8d:90c:2s-0) canceled on " + D],
     dict(function="rebuild", state="canceled", end_time=T)),
    ("thorough scrub", ["thorough scrub repaired 0B in 00:10:00 with 0 errors on " + D],
     dict(function="scrub", state="finished", duration=600)),
    ("error scrub in progress", ["error scrub in progress since " + D,
                                 "12.50% done, issued I/O for 3 error blocks"],
     dict(function="error_scrub", state="in_progress", progress=0.125)),
    ("error scrub finished", ["scrubbed 3 error blocks in 0 days 00:00:02 on " + D],
     dict(function="error_scrub", state="finished", end_time=T, duration=2, errors=None)),
    ("error scrub paused", ["error scrub paused since " + D, "error scrub started on " + D,
                            "1.00% done, issued I/O for 1 error blocks"],
     dict(function="error_scrub", state="paused", start_time=T)),
]  # fmt: skip


@pytest.mark.parametrize(("lines", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_scan_wordings(lines: list[str], expected: dict | None) -> None:
    indented = ["\t" + line if i else line for i, line in enumerate(lines)]
    scan, warnings = parse_scan(indented, tz=UTC)
    assert warnings == []
    if expected is None:
        assert scan is None
        return
    assert scan is not None
    for attr, value in expected.items():
        got = getattr(scan, attr)
        if attr == "progress" and value is not None:
            assert got == pytest.approx(value), attr
        else:
            assert got == value, attr


def test_unknown_scan_line_is_unknown_state() -> None:
    scan, warnings = parse_scan(["scrub is doing something new since yesterday"])
    assert scan is not None and scan.state == "unknown" and scan.function == "scrub"
    assert warnings and "unrecognised scan line" in warnings[0]
    assert not scan.active


def test_unknown_detail_is_a_warning_but_keeps_the_state() -> None:
    scan, warnings = parse_scan(["scrub in progress since " + D, "\t42 frobs wobbled"])
    assert scan is not None and scan.state == "in_progress"
    assert warnings == ["unrecognised scan detail: '42 frobs wobbled'"]


def test_bad_date_leaves_time_absent() -> None:
    scan, _ = parse_scan(["scrub canceled on Someday"])
    assert scan is not None and scan.state == "canceled" and scan.end_time is None
