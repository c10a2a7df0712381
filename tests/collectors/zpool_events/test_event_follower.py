"""The zpool events follower against fake ``zpool`` programs that exit, replay and hang."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.pool_lab import context
from tests.support.waiting import wait_for
from zmon.base.children import running
from zmon.base.runner import CommandRunner
from zmon.collecting.registry import NoDataError
from zmon.collectors.zpool_events import STATE_FILE, ZpoolEventsCollector

FAKE_ZPOOL = r'''#!{python}
"""Fake `zpool events -f -H -v`: each run follows the next entry of plan.json."""
import json, os, sys, time
here = os.path.dirname(os.path.abspath(__file__))
plan = json.load(open(os.path.join(here, "plan.json")))
runs_file = os.path.join(here, "runs")
n = int(open(runs_file).read()) if os.path.exists(runs_file) else 0
open(runs_file + ".tmp", "w").write(str(n + 1))
os.replace(runs_file + ".tmp", runs_file)
open(os.path.join(here, "argv"), "w").write(" ".join(sys.argv[1:]))
open(os.path.join(here, "pid"), "w").write(str(os.getpid()))
run = plan[min(n, len(plan) - 1)]
for eid, sec, cls, vdev in run.get("events", []):
    print("Nov 30 2026 00:06:26.124000000\t" + cls)
    print('        class = "%s"' % cls)
    print('        pool = "tank"')
    if vdev:
        print('        vdev_path = "/dev/disk/by-id/%s"' % vdev)
    print("        time = 0x%x 0x0 " % sec)
    print("        eid = 0x%x" % eid)
    print("")
    sys.stdout.flush()
if run.get("partial"):
    print("Nov 30 2026 00:06:27.000000000\tereport.fs.zfs.io")
    print('        pool = "tank"')
    sys.stdout.flush()
if run.get("then") == "hang":
    time.sleep(3600)
sys.exit(run.get("exit", 0))
'''

IO = "ereport.fs.zfs.io"
CK = "ereport.fs.zfs.checksum"


def events(first: int, last: int, cls: str = IO, vdev: str = "ata-DISK-part1") -> list[list]:
    return [[i, 1_800_000_000 + i, cls, vdev] for i in range(first, last + 1)]


@pytest.fixture
def fake(tmp_path: Path) -> Callable[[list[dict]], CommandRunner]:
    """Write the fake zpool with a plan; return a runner that maps ``zpool`` to it."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    script = bindir / "zpool"
    script.write_text(FAKE_ZPOOL.replace("{python}", sys.executable))
    script.chmod(0o755)

    def make(plan: list[dict]) -> CommandRunner:
        (bindir / "plan.json").write_text(json.dumps(plan))
        (bindir / "runs").unlink(missing_ok=True)
        return CommandRunner(binaries={"zpool": str(script)})

    return make


def runs(tmp_path: Path) -> int:
    f = tmp_path / "bin" / "runs"
    return int(f.read_text()) if f.exists() else 0


def follower_alive(tmp_path: Path) -> bool:
    """The last fake zpool started is still running (not exited, killed or a zombie)."""
    return running(int((tmp_path / "bin" / "pid").read_text()))


def collector(runner: CommandRunner, tmp_path: Path, **opts) -> ZpoolEventsCollector:
    options = {"backoff_max": 0.05, "startup_wait": 0.5, **opts}
    return ZpoolEventsCollector(context(runner, tmp_path, options))


def total(c: ZpoolEventsCollector, cls: str = "io", vdev: str = "ata-DISK-part1") -> float | None:
    return c.collect().sample_value(
        "zmon_zfs_events_total", {"pool": "tank", "vdev": vdev, "class": cls}
    )


def test_restarts_replay_history_without_double_counting_or_losing_events(fake, tmp_path):
    runner = fake(
        [
            {"events": events(1, 3), "then": "exit"},
            {"events": events(1, 5), "then": "exit"},  # replays 1-3, then 4 and 5 are new
            {"events": events(1, 5) + events(6, 7, CK), "then": "hang"},
        ]
    )
    c = collector(runner, tmp_path)
    c.start()
    try:
        wait_for(lambda: c.counter.snapshot()[0].get(("tank", "ata-DISK-part1", "checksum")) == 2)
        ms = c.collect()
        assert total(c) == 5
        assert total(c, "checksum") == 2
        assert ms.sample_value("zmon_zfs_events_follower_up") == 1
        assert ms.sample_value("zmon_zfs_events_follower_restarts_total") == 2
        assert c.counter.skipped == 3 + 5
        assert (tmp_path / "bin" / "argv").read_text() == "events -f -H -v"
        assert follower_alive(tmp_path)  # the third run hangs after its events
    finally:
        c.close()
    assert not follower_alive(tmp_path), "close() must kill the hung follower"
    saved = json.loads((tmp_path / "state" / STATE_FILE).read_text())
    assert saved["eid"] == 7 and saved["time_ns"] == (1_800_000_000 + 7) * 10**9
    assert saved["counts"] == [
        ["tank", "ata-DISK-part1", "checksum", 2],
        ["tank", "ata-DISK-part1", "io", 5],
    ]


def test_a_restarted_zmon_goes_on_from_the_saved_counts(fake, tmp_path):
    runner = fake([{"events": events(1, 3), "then": "hang"}])
    c = collector(runner, tmp_path)
    c.start()
    try:
        wait_for(lambda: sum(c.counter.snapshot()[0].values()) == 3)
        assert total(c) == 3  # served, and so written
    finally:
        c.close()
    runner = fake([{"events": events(1, 5), "then": "hang"}])  # the buffer replays 1-3
    again = collector(runner, tmp_path)
    again.start()
    try:
        wait_for(lambda: sum(again.counter.snapshot()[0].values()) == 5)
        assert total(again) == 5  # 3 from before the restart, 4 and 5 new: none twice
    finally:
        again.close()


def test_served_counts_are_those_written(fake, tmp_path):
    runner = fake([{"events": events(1, 4), "then": "hang"}])
    c = collector(runner, tmp_path)
    c.start()
    try:
        wait_for(lambda: sum(c.counter.snapshot()[0].values()) == 4)
        served = total(c)
        saved = json.loads((tmp_path / "state" / STATE_FILE).read_text())
        assert saved["counts"] == [["tank", "ata-DISK-part1", "io", served]]
    finally:
        c.close()


@pytest.mark.parametrize(
    "doc",
    [
        {"eid": 4, "time_ns": 1_800_000_004 * 10**9},  # an earlier version's cursor alone
        {"eid": 4, "time_ns": 1_800_000_004 * 10**9, "counts": [["tank", "x", "io", -3]]},
        {"eid": 4, "time_ns": 1_800_000_004 * 10**9, "counts": [[1, 2]]},
        {"eid": 4, "time_ns": 1_800_000_004 * 10**9, "last_timestamp": {"io": 1e400}},
        {"eid": 4, "time_ns": 1_800_000_004 * 10**9, "dropped": "many"},
    ],
)
def test_a_restarted_zmon_counts_only_what_it_missed(fake, tmp_path, doc):
    """From a cursor whose counts are absent (an earlier version's file) or unusable: the
    events after the cursor are counted, from 0."""
    state = tmp_path / "state"
    state.mkdir()
    (state / STATE_FILE).write_text(json.dumps(doc))
    runner = fake([{"events": events(1, 6), "then": "hang"}])
    c = collector(runner, tmp_path)
    c.start()
    try:
        wait_for(lambda: c.counter.skipped == 4 and sum(c.counter.snapshot()[0].values()) == 2)
        assert total(c) == 2
    finally:
        c.close()


def test_after_a_module_reload_new_low_eids_are_counted(fake, tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    (state / STATE_FILE).write_text(json.dumps({"eid": 500, "time_ns": 1_700_000_000 * 10**9}))
    runner = fake([{"events": events(1, 3), "then": "hang"}])  # newer times, eids from 1
    c = collector(runner, tmp_path)
    c.start()
    try:
        wait_for(lambda: sum(c.counter.snapshot()[0].values()) == 3)
        assert total(c) == 3
    finally:
        c.close()


def test_collect_never_blocks_on_a_silent_hung_follower(fake, tmp_path):
    runner = fake([{"events": [], "then": "hang"}])
    c = collector(runner, tmp_path, startup_wait=0.2)
    c.start()
    try:
        wait_for(lambda: runs(tmp_path) == 1)
        ms = c.collect()  # returns while the follower hangs: it never waited on it
        assert follower_alive(tmp_path)
        assert ms.sample_value("zmon_zfs_events_follower_up") == 1
        assert ms.sample_value("zmon_zfs_events_total") is None
        for _ in range(5):
            c.collect()
        assert follower_alive(tmp_path) and runs(tmp_path) == 1
    finally:
        c.close()
    assert not follower_alive(tmp_path)


def test_a_half_printed_event_is_not_counted_until_it_is_replayed(fake, tmp_path):
    runner = fake(
        [
            {"events": events(1, 2), "partial": True, "then": "exit"},
            {"events": events(1, 3), "then": "hang"},
        ]
    )
    c = collector(runner, tmp_path)
    c.start()
    try:
        wait_for(lambda: sum(c.counter.snapshot()[0].values()) == 3)
        time.sleep(0.2)
        assert total(c) == 3
    finally:
        c.close()


def test_a_failing_zpool_is_restarted_with_backoff_and_reported_down(fake, tmp_path):
    runner = fake([{"events": [], "then": "exit", "exit": 1}])
    c = collector(runner, tmp_path)
    c.start()
    try:
        wait_for(lambda: runs(tmp_path) >= 3)
        ms = c.collect()
        assert ms.sample_value("zmon_zfs_events_follower_restarts_total") >= 2
        wait_for(lambda: not c.follower.up)  # type: ignore[union-attr]
    finally:
        c.close()
    assert c.follower is None


def test_a_missing_zpool_means_no_data(tmp_path):
    runner = CommandRunner(binaries={"zpool": str(tmp_path / "nowhere" / "zpool")})
    c = collector(runner, tmp_path)
    c.start()
    try:
        with pytest.raises(NoDataError):
            c.collect()
    finally:
        c.close()


def test_an_unwritable_state_dir_does_not_stop_counting(fake, tmp_path):
    (tmp_path / "state").write_text("not a directory")
    runner = fake([{"events": events(1, 2), "then": "hang"}])
    c = collector(runner, tmp_path)
    c.start()
    try:
        wait_for(lambda: sum(c.counter.snapshot()[0].values()) == 2)
        assert total(c) == 2  # what could not be written is served all the same
    finally:
        c.close()
    assert not os.path.isdir(tmp_path / "state")
