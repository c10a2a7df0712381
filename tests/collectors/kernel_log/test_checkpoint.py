"""The kernel-log checkpoint: positions and counts written as one file, read back on start.

The whole-daemon proof (kill -9 at random moments, counters end at exactly the lines written
and never go down) is ``tests/faults/test_daemon_kill.py``; these are its parts.
"""

from __future__ import annotations

import itertools
import json
import time
from pathlib import Path

import pytest

from tests.collectors.kernel_log.test_collector import EVENTS, count, wait_for
from tests.faults.test_state_files import HOSTILE, plant
from zmon.collectors.kernel_log import CHECKPOINT_EVERY, QUIET_CHECKPOINT_EVERY
from zmon.collectors.kernel_log.metrics import Tally
from zmon.host.statestore import Checkpoint, StateStore
from zmon.parsers.kernel_log import KernelEvent, PatternSet, Scanner, default_rules

PATTERNS = PatternSet(default_rules())
SOURCE = "/var/log/kern.log"


def _checkpoint(tmp_path: Path) -> Path:
    return tmp_path / "state" / "kernel_log" / "checkpoint.json"


def test_tally_export_and_restore_round_trip_through_json() -> None:
    tally = Tally(max_unresolved=1)
    tally.add(KernelEvent("link_reset", device="sda"), 100.0)
    tally.add(KernelEvent("pool_suspended", pool="tank"), 101.0)
    tally.add(KernelEvent("io_error", device="/odd/name1"))
    tally.add(KernelEvent("io_error", device="/odd/name2"))  # over the cap: "other"
    tally.add_lines("kmsg", 42)
    tally.add_read_error("kmsg", 2)
    tally.add_lost("kmsg", 3)
    again = Tally(max_unresolved=1)
    again.restore(json.loads(json.dumps(tally.export())), ["kmsg"])
    assert again.snapshot() == tally.snapshot()
    again.add(KernelEvent("io_error", device="/odd/name3"))  # the cap holds across the restore
    assert again.snapshot().events[("io_error", "other")] == 2


def test_restore_keeps_per_source_counts_only_for_sources_followed_now() -> None:
    tally = Tally()
    tally.add_lines("/var/log/messages", 5)
    tally.add_lines("kmsg", 7)
    again = Tally()
    again.restore(tally.export(), ["kmsg"])
    assert again.snapshot().lines == {"kmsg": 7}


@pytest.mark.parametrize(
    "bad",
    [
        {"events": [[1, "sda", 1, None]]},
        {"events": [["link_reset", "sda", -1, None]]},
        {"events": [["link_reset", "sda", True, None]]},
        {"events": "many"},
        {"lines": {"kmsg": "x"}},
        {"capped": []},
    ],
)
def test_restore_refuses_counts_of_another_shape_and_keeps_the_tally(bad: dict) -> None:  # type: ignore[type-arg]
    tally = Tally()
    tally.add_lines("kmsg", 1)
    saved = {**Tally().export(), **bad}
    with pytest.raises((TypeError, ValueError, KeyError, AttributeError)):
        tally.restore(saved, ["kmsg"])
    assert tally.snapshot().lines == {"kmsg": 1}


def test_an_event_waiting_for_its_context_survives_a_restart() -> None:
    scanner = Scanner(PATTERNS)
    assert scanner.feed("mpt2sas0: attempting task abort! scmd(ffff88)\n") == []
    state = json.loads(json.dumps(scanner.state()))
    restarted = Scanner(PATTERNS)
    assert restarted.restore(state) == []
    assert restarted.pending == 1
    events = restarted.feed("sd 0:0:5:0: CDB: Read(10): 28 00\n")
    assert events == [KernelEvent("scsi_task_abort", device="0:0:5:0", controller="mpt2sas0")]


def test_context_before_a_restart_is_kept() -> None:
    scanner = Scanner(PATTERNS)
    scanner.feed("ata4.00: failed command: WRITE FPDMA QUEUED\n")
    scanner.feed("ata4.00: cmd 61/08:00:00:00:00/00:00:00:00:00/40 tag 0 ncq\n")
    restarted = Scanner(PATTERNS)
    restarted.restore(scanner.state())
    events = restarted.feed(
        "         res 40/00:ff:00:00:00/00:00:00:00:00/40 Emask 0x4 (timeout)\n"
    )
    assert events == [KernelEvent("ata_timeout", device="ata4.00")]


def test_a_waiting_event_whose_rule_is_gone_is_counted_with_what_it_named() -> None:
    scanner = Scanner(PATTERNS)
    scanner.feed("mpt2sas0: attempting task abort! scmd(ffff88)\n")
    without = PatternSet([r for r in default_rules() if r.pattern != "scsi_task_abort"])
    orphans = Scanner(without).restore(scanner.state())
    assert orphans == [KernelEvent("scsi_task_abort", controller="mpt2sas0")]


@pytest.mark.parametrize(
    "bad",
    [
        {"carry": 5, "pending": []},
        {"carry": "x" * 100_000, "pending": []},
        {"carry": "", "pending": [{"event": {"pattern": 1}, "context": "", "lines_left": 1}]},
        {"carry": "", "pending": [{"event": {"pattern": "p"}, "context": "", "lines_left": 0}]},
        {"carry": "", "pending": [{"event": {"pattern": "p", "timestamp": "x"}}]},
        {"pending": []},
    ],
)
def test_scanner_refuses_state_of_another_shape(bad: dict) -> None:  # type: ignore[type-arg]
    scanner = Scanner(PATTERNS)
    with pytest.raises((TypeError, ValueError, KeyError)):
        scanner.restore(bad)
    assert scanner.pending == 0


def test_checkpoint_reads_old_position_files_and_removes_them_once_committed(
    tmp_path: Path,
) -> None:
    store = StateStore(tmp_path)
    store.save("file-/var/log/kern.log", {"offset": 7})
    checkpoint = Checkpoint(store)
    assert checkpoint.load("file-/var/log/kern.log") == {"offset": 7}
    assert store.path("file-/var/log/kern.log").exists()  # kept until the first commit
    checkpoint.save("file-/var/log/kern.log", {"offset": 9})
    checkpoint.commit({"tally": {}})
    assert not store.path("file-/var/log/kern.log").exists()
    again = Checkpoint(store)
    assert again.load("file-/var/log/kern.log") == {"offset": 9}
    assert again.counts == {"tally": {}}


def test_a_checkpoint_of_another_version_is_ignored_with_a_warning(tmp_path: Path) -> None:
    store = StateStore(tmp_path)
    store.save("checkpoint", {"version": 99, "positions": {"kmsg": {"seq": 5}}, "counts": {}})
    checkpoint = Checkpoint(store)
    assert checkpoint.load("kmsg") is None and checkpoint.counts == {}


def test_the_collector_goes_on_from_its_checkpoint_after_a_clean_stop(
    kern_log: Path, collector_factory, following
) -> None:  # type: ignore[no-untyped-def]
    first = following(source="file")
    with open(kern_log, "a") as fh:
        fh.write("ata2: hard resetting link\nmpt2sas0: attempting task abort! scmd(ff)\n")
    wait_for(lambda: count(first, pattern="link_reset") == 1)
    first.close()  # the waiting task abort is counted at the stop, with what it named
    second = collector_factory(source="file")
    second.start()
    ms = second.collect()
    assert ms.sample_value(EVENTS, {"pattern": "link_reset", "device": "ata2"}) == 1
    assert ms.sample_value(EVENTS, {"pattern": "scsi_task_abort", "device": "mpt2sas0"}) == 1
    assert ms.sample_value("zmon_kernel_log_lines_read_total", {"source": SOURCE}) == 2


def test_served_counts_are_those_of_the_last_checkpoint(
    tmp_path: Path, kern_log: Path, following
) -> None:  # type: ignore[no-untyped-def]
    c = following(source="file")
    with open(kern_log, "a") as fh:
        fh.write("ata2: hard resetting link\n")
    wait_for(lambda: count(c, pattern="link_reset") == 1)
    saved = json.loads(_checkpoint(tmp_path).read_text())["counts"]["tally"]
    assert ["link_reset", "ata2", 1] == saved["events"][0][:3]
    assert saved["lines"] == {SOURCE: 1}


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_hostile_checkpoint_is_a_warning_and_counting_starts_afresh(
    tmp_path: Path, kind: str, kern_log: Path, following
) -> None:  # type: ignore[no-untyped-def]
    plant(_checkpoint(tmp_path), kind)
    c = following(source="file")
    with open(kern_log, "a") as fh:
        fh.write("ata2: hard resetting link\n")
    wait_for(lambda: count(c, pattern="link_reset") == 1)  # counted, written or not


@pytest.mark.parametrize(
    "counts",
    [
        {"tally": {"events": [["link_reset", "ata9", "many", None]]}, "scanners": {}},
        {"tally": [], "scanners": {}},
        {"scanners": {SOURCE: {"carry": 1}}},
        "not an object",
    ],
)
def test_counts_of_another_shape_start_from_zero_and_keep_the_position(
    tmp_path: Path, kern_log: Path, collector_factory, counts: object
) -> None:  # type: ignore[no-untyped-def]
    size = kern_log.stat().st_size
    with open(kern_log, "a") as fh:
        fh.write("ata2: hard resetting link\n")  # after the saved position: read on start
    store = StateStore(tmp_path / "state" / "kernel_log")
    store.directory.mkdir(parents=True)
    position = {"path": str(kern_log), "offset": size}
    doc = {"version": 1, "positions": {f"file-{SOURCE}": position}, "counts": counts}
    store.save("checkpoint", doc)
    c = collector_factory(source="file")
    c.start()
    wait_for(lambda: count(c, pattern="link_reset", device="ata2") == 1)
    assert count(c, pattern="link_reset", device="ata9") is None


def test_a_flood_of_lines_writes_at_most_one_checkpoint_a_second(kern_log: Path, following) -> None:  # type: ignore[no-untyped-def]
    """On the collector's own clock, which the test moves: one write per CHECKPOINT_EVERY."""
    c = following(source="file", poll_interval=0.01, watch=False)
    assert c._checkpoint is not None
    now = [time.monotonic()]  # the clock starts where the collector's last commit stands
    c._clock = lambda: now[0]
    writes: list[float] = []
    save = c._checkpoint.store.save

    def counted(key: str, value: dict) -> None:  # type: ignore[type-arg]
        writes.append(now[0])
        save(key, value)

    c._checkpoint.store.save = counted  # type: ignore[method-assign]
    for i in range(100):
        with open(kern_log, "a") as fh:
            fh.write(f"ata{i % 9}: hard resetting link\n")
    seconds = 0

    def all_served_after_a_second_more() -> bool:
        nonlocal seconds
        served = sum(v for (p, _), v in c._served.events.items() if p == "link_reset")
        if served < 100:
            now[0] += CHECKPOINT_EVERY
            seconds += 1
        return served == 100

    wait_for(all_served_after_a_second_more)
    assert len(writes) <= seconds + 1, (len(writes), seconds)
    assert all(b - a >= CHECKPOINT_EVERY for a, b in itertools.pairwise(writes)), writes


def test_a_deferred_checkpoint_is_written_without_waiting_for_the_poll_interval(
    kern_log: Path, collector_factory
) -> None:  # type: ignore[no-untyped-def]
    c = collector_factory(source="file", poll_interval=3600.0, watch=False)
    c.start()  # the first read is made now; the next poll would be an hour away
    with open(kern_log, "a") as fh:
        fh.write("ata2: hard resetting link\n")
    assert c._loop is not None
    c._loop.wake.set()  # what a file change notification does
    wait_for(lambda: count(c, pattern="link_reset") == 1)
    with open(kern_log, "a") as fh:
        fh.write("ata3: hard resetting link\n")
    c._loop.wake.set()  # read at once, its checkpoint deferred: written within a second
    wait_for(lambda: count(c, pattern="link_reset", device="ata3") == 1)


def test_counts_whose_scanner_part_is_bad_are_ignored_whole(
    tmp_path: Path, kern_log: Path, collector_factory
) -> None:  # type: ignore[no-untyped-def]
    tally = Tally()
    tally.add(KernelEvent("link_reset", device="ata9"))
    store = StateStore(tmp_path / "state" / "kernel_log")
    store.directory.mkdir(parents=True)
    counts = {"tally": tally.export(), "scanners": {SOURCE: {"carry": 1}}}
    store.save("checkpoint", {"version": 1, "positions": {}, "counts": counts})
    c = collector_factory(source="file")
    c.start()
    assert count(c, pattern="link_reset", device="ata9") is None  # not half of a bad state


def test_lines_without_a_fault_are_written_every_ten_seconds_and_a_fault_within_one(
    kern_log: Path, collector_factory
) -> None:  # type: ignore[no-untyped-def]
    """A write a second cost a host logging 20 lines a second 0.1 % of a core (fsyncs): lines
    that hold no fault now wait up to QUIET_CHECKPOINT_EVERY, a fault CHECKPOINT_EVERY."""
    c = collector_factory(source="file", poll_interval=3600.0, watch=False)
    c.start()
    assert c._loop is not None and c._checkpoint is not None
    c._loop.stop()  # the test takes the steps, on its own clock
    now = [time.monotonic() + 100.0]
    c._clock = lambda: now[0]
    writes: list[float] = []
    save = c._checkpoint.store.save

    def counted(key: str, value: dict) -> None:  # type: ignore[type-arg]
        writes.append(now[0])
        save(key, value)

    c._checkpoint.store.save = counted  # type: ignore[method-assign]

    def step(seconds: float, line: str) -> int:
        """Append a line, move the clock, take a step; the lines served."""
        with open(kern_log, "a") as fh:
            fh.write(f"May  1 00:00:01 h kernel: {line}\n")
        now[0] += seconds
        c._step()
        assert c._served is not None
        return sum(c._served.lines.values())

    usb = "usb 1-1: new high-speed USB device number 2 using ehci-pci"
    first = step(0.0, usb)  # written at once: the last write was 100 s ago
    assert len(writes) == 1
    assert step(1.0, usb) == first and step(4.0, usb) == first and len(writes) == 1
    assert step(5.0, usb) == first + 3 and len(writes) == 2  # ten seconds after the last
    step(1.0, "ata2: hard resetting link")
    step(1.0, usb)  # (the line after it, which could have named its disk)
    assert len(writes) == 3 and count(c, pattern="link_reset", device="ata2") == 1
    assert writes[-1] - writes[-2] <= CHECKPOINT_EVERY + 1.0 < QUIET_CHECKPOINT_EVERY
