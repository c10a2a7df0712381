"""The demo replays each recording as if made just now: scrubs, pools and snapshots are as
old as they were on the lab host, whatever the date the demo runs on."""

from __future__ import annotations

import json
from datetime import UTC

import pytest

from zmon.demo.fakebin import (
    PHASE_ANCHOR,
    lookup,
    shift_creation_times,
    shift_json_times,
    shift_status_text_times,
    shift_times,
    time_anchor,
)
from zmon.demo.host import DATA
from zmon.demo.timeline import PHASES
from zmon.parsers.zpool.zpool_status import parse_zpool_status

DAY = 86400.0
SCENARIOS = sorted({p.scenario for p in PHASES})
SCRUB_FINISHED = DATA / "scenarios" / "04-scrub-finished"
# what the zpool and datasets collectors run on the demo host, and read times from
STATUS_JSON = ["zpool", "status", "-j", "--json-int", "-p", "-s", "-t", "-i", "-v"]
STATUS_TEXT = ["zpool", "status", "-p", "-s", "-v"]


def _replayed(phase: str, argv: list[str], days_later: float) -> tuple[bytes, float]:
    """The phase's recording of ``argv`` replayed ``days_later`` days after it was made, and
    the moment it is replayed at."""
    found = lookup(DATA / "scenarios" / phase, argv)
    assert found is not None, argv
    anchor = time_anchor(DATA / "scenarios" / phase, found[0].name)
    assert anchor is not None, (phase, found[0].name)
    now = anchor + days_later * DAY
    return shift_times(found[0].name, found[0].read_bytes(), now - anchor), now


@pytest.mark.parametrize("phase", SCENARIOS)
def test_every_phase_says_when_it_was_recorded(phase: str) -> None:
    rows = (DATA / "scenarios" / phase / "time-anchors.tsv").read_text().splitlines()
    assert any(row.startswith(PHASE_ANCHOR + "\t") for row in rows)


@pytest.mark.parametrize("days_later", [3, 40, 400])
def test_a_finished_scrub_is_as_old_as_on_the_lab_host(days_later: float) -> None:
    """04-scrub-finished: the scrub ended just before the lab recorded the phase; replayed
    any number of days later it still ended moments ago (ZfsScrubOverdue stays quiet)."""
    for argv in (STATUS_JSON, STATUS_TEXT):
        data, now = _replayed("04-scrub-finished", argv, days_later)
        # the lab host printed its dates in UTC
        tank = next(p for p in parse_zpool_status(data, tz=UTC).pools if p.name == "tank")
        assert tank.scan is not None and tank.scan.state == "finished"
        assert 0 <= now - tank.scan.end_time < 600, argv


@pytest.mark.parametrize("days_later", [3, 40, 400])
def test_pools_are_as_old_as_on_the_lab_host(days_later: float) -> None:
    argv = ["zfs", "get", "-Hp", "creation", "rz", "single", "tank"]
    data, now = _replayed("04-scrub-finished", argv, days_later)
    rows = [line.split("\t") for line in data.decode().splitlines()]
    created = {row[0]: int(row[2]) for row in rows}
    assert set(created) == {"rz", "single", "tank"}
    for when in created.values():
        assert 0 <= now - when < 3600


def test_json_times_move_for_every_scan_and_unset_ones_stay() -> None:
    stats = {"state": "FINISHED", "start_time": 100, "end_time": 200, "pass_start": 100,
             "scrub_pause": 0}  # fmt: skip
    doc = {"pools": {"p": {"scan_stats": stats}}}
    out = json.loads(shift_json_times(json.dumps(doc).encode(), 1000))
    assert out["pools"]["p"]["scan_stats"] == {
        "state": "FINISHED", "start_time": 1100, "end_time": 1200, "pass_start": 1100,
        "scrub_pause": 0,
    }  # fmt: skip


def test_text_scan_dates_move_as_ctime_prints_them() -> None:
    text = (
        b"  pool: tank\n"
        b"  scan: scrub repaired 0B in 00:01:12 with 0 errors on Mon Nov 30 00:08:10 2026\n"
        b"config:\n"
    )
    out = shift_status_text_times(text, 35 * DAY)
    assert b"with 0 errors on Mon Jan  4 00:08:10 2027\n" in out
    assert out.replace(b"Mon Jan  4 00:08:10 2027", b"Mon Nov 30 00:08:10 2026") == text
    progress = b"  scan: resilver in progress since Mon Nov 30 00:11:24 2026\n"
    assert shift_status_text_times(progress, 60) == (
        b"  scan: resilver in progress since Mon Nov 30 00:12:24 2026\n"
    )


def test_only_creation_rows_of_zfs_get_move() -> None:
    data = b"tank\tcreation\t100\t-\ntank\tused\t100\t-\nbad line\n"
    assert (
        shift_creation_times(data, 5) == b"tank\tcreation\t105\t-\ntank\tused\t100\t-\nbad line\n"
    )


def test_recordings_without_times_are_replayed_as_they_are() -> None:
    data = (SCRUB_FINISHED / "zpool-list-Hp.txt").read_bytes()
    assert shift_times("zpool-list-Hp.txt", data, 1e6) == data
