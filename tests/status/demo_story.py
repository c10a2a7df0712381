"""Walk the demo host through its story on a stepped clock and collect what zmon would serve
at each phase: every collector in-process, followers (kernel log, zpool events) included.

Nothing waits for the demo's timer: the clock is set to each phase's start, the host is
stepped there, and the followers are given the lines the host appended.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.demo.conftest import PhaseRunner, make_collector
from tests.support.waiting import poll
from zmon.collecting.registry import Board, collectors
from zmon.demo.host import KERN_LOG, DemoHost
from zmon.demo.timeline import PHASES
from zmon.host.devices import DeviceMapCache

START = 1_795_997_000.0  # the demo story starts here (the lab's captures were made then)
FOLLOWERS = ("kernel_log", "zpool_events")
NOT_HERE = ("hotplug", "sas_phy")  # this machine's udev; the demo has no SAS HBA or expander


class SteppedClock:
    def __init__(self, t: float) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


@dataclass
class PhaseCapture:
    name: str
    now: float
    by_collector: dict[str, list[Any]]
    ups_address: str

    @property
    def families(self) -> list[Any]:
        return [fam for fams in self.by_collector.values() for fam in fams]


def walk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[PhaseCapture]:
    """Yield each phase of the story, in order, with what every collector returned."""
    clock = SteppedClock(START)
    monkeypatch.setattr(time, "time", clock)  # collectors stamp and estimate with time.time()
    host = DemoHost(phase_seconds=60, root=tmp_path / "host", clock=clock)
    host.upsd.start()
    runner = PhaseRunner(host, clock)
    board, devices = Board(), DeviceMapCache(host.paths)
    made = {}
    try:
        for name in collectors():
            if name in NOT_HERE:
                continue
            follower = name in FOLLOWERS
            made[name] = make_collector(
                host,
                name,
                runner=runner if not follower else None,
                board=board,
                devices=devices,
                one_shot=not follower,
            )
        for name in FOLLOWERS:  # the kernel log is followed from its end, as by a daemon
            made[name].collect()
        skipped = _log_lines(host)
        for index, phase in enumerate(PHASES):
            # the clock stands at the moment of capture before the host moves: a follower
            # that reads the new lines at once stamps them with it, as one that reads them
            # during _settle does (else the words "just now" depend on thread timing)
            clock.t = host.time_of(index) + 30.0
            host.tick(host.time_of(index))  # enter the phase at its start ...
            host.tick(clock.t)  # ... and live half a minute of it (ARC, UPS battery)
            _settle(host, made, skipped)
            by_collector = {}
            for name in ("zpool", *[n for n in made if n != "zpool"]):  # zpool names vdevs
                by_collector[name] = made[name].collect().families()
            yield PhaseCapture(phase.name, clock.t, by_collector, host.upsd.address)
    finally:
        for c in made.values():
            c.close()
        host.stop()


def _log_lines(host: DemoHost) -> int:
    return host.paths.root(KERN_LOG).read_text().count("\n")


def _settle(host: DemoHost, made: dict[str, Any], skipped: int) -> None:
    """Let the followers read everything the host has appended after they started."""
    lines = _log_lines(host) - skipped
    events = len(re.findall(r"(?m)^\s+eid = ", (host.root / "events.log").read_text()))

    def kernel_read() -> bool:
        ms = made["kernel_log"].collect()
        read = sum(
            s.value
            for f in ms.families()
            for s in f.samples
            if s.name == "zmon_kernel_log_lines_read_total"
        )
        return read >= lines

    def events_read() -> bool:
        counter = made["zpool_events"].counter
        return counter.cursor is not None and counter.cursor.eid >= events

    assert poll(kernel_read, timeout=20), "kernel_log did not read the demo's log"
    assert poll(events_read, timeout=20), "zpool_events did not read the demo's events"
