"""A stepped demo host moves only when told, and ``step`` answers once collectors saw the phase.

These hold however slow the machine is: nothing here waits for a clock, and a collector whose
interval is an hour still sees every phase it is stepped through.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from tests.demo.conftest import make_collector
from zmon.base.runner import StaticRunner
from zmon.collecting.registry import Collector, Context, Paths
from zmon.collecting.scheduler import Scheduler
from zmon.demo.control import DemoControl, DemoControlClient, fresh_runs
from zmon.demo.host import DemoHost
from zmon.demo.timeline import PHASES
from zmon.exposition.metrics import MetricSet

HOUR = 3600.0


def _snapshot(host: DemoHost) -> tuple[str, dict[str, str], str, int]:
    arcstats = (host.root / "proc" / "spl" / "kstat" / "zfs" / "arcstats").read_text()
    return host.phase.name, host.ups_variables(), arcstats, host.kernel_log_lines()


def test_a_stepped_host_stands_still_until_stepped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    host = DemoHost(phase_seconds=1, root=tmp_path / "host", stepped=True)
    try:
        host.start()
        before = _snapshot(host)
        wall = time.time()
        monkeypatch.setattr(time, "time", lambda: wall + HOUR)  # the wall clock does not move it
        host.tick()
        monkeypatch.undo()
        assert _snapshot(host) == before and host.phase == PHASES[0]
        seen = [host.step().name for _ in range(len(PHASES))]
        assert seen == [p.name for p in PHASES[1:]] + [PHASES[0].name]
        assert host.loop == 1
        with pytest.raises(RuntimeError):
            DemoHost(root=tmp_path / "wall").step()
    finally:
        host.stop()


def test_what_a_stepped_host_shows_does_not_depend_on_wall_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two hosts stepped alike match phase by phase, however far apart their steps are."""
    quick = DemoHost(phase_seconds=60, root=tmp_path / "quick", stepped=True)
    slow = DemoHost(phase_seconds=60, root=tmp_path / "slow", stepped=True)
    wall = time.time()
    try:
        for k in range(len(PHASES) + 1):
            monkeypatch.setattr(time, "time", lambda k=k: wall + k * 997.0)  # a very slow host
            slow.tick()
            assert _snapshot(quick)[:3] == _snapshot(slow)[:3], quick.phase.name
            quick.step()
            slow.step()
    finally:
        quick.stop()
        slow.stop()


class Reads(Collector):
    """Publishes the value it read when its run began; a run can be held open by the test."""

    name = "reads"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.source = 1.0
        self.hold = threading.Event()
        self.holding = threading.Event()
        self.hold.set()

    def collect(self) -> MetricSet:
        value = self.source
        self.holding.set()
        self.hold.wait(30)
        ms = MetricSet()
        ms.gauge("zmon_test_value", "The value read at the start of the run.", value)
        return ms


def test_fresh_runs_skips_a_run_that_began_before_the_change() -> None:
    c = Reads(Context(paths=Paths(), runner=StaticRunner()))
    s = Scheduler()
    s.add(c, interval=HOUR, timeout=60)
    worker = s.workers["reads"]
    worker.run_once()
    c.hold.clear()
    c.holding.clear()
    s.start()  # its first run starts at once and is held after reading 1.0
    try:
        assert c.holding.wait(30)
        c.source = 2.0  # the host changes while that run is in progress
        result: list[tuple[dict[str, int], list[str]]] = []
        waiter = threading.Thread(target=lambda: result.append(fresh_runs(s.workers, 60)))
        waiter.start()
        c.hold.set()
        waiter.join(90)
        [(runs, stale)] = result
        assert stale == [] and runs["reads"] == 3  # the held run, then one that read 2.0
        assert b"zmon_test_value 2.0" in s.snapshot.exposition.text
    finally:
        c.hold.set()
        s.stop()


def test_step_returns_once_an_hourly_collector_saw_the_new_phase(tmp_path: Path) -> None:
    host = DemoHost(root=tmp_path / "host", stepped=True)
    # a run's end renders nothing here: the reply must not count on a rendering that may
    # still be under way on the render thread (it once lost that race under load)
    s = Scheduler(on_update=lambda state: None)
    s.add(make_collector(host, "zpool", one_shot=False), interval=HOUR, timeout=60)
    control = DemoControl(host, tmp_path / "demo.sock", lambda: s.workers, s.snapshot.rerender)
    control.start()
    s.start()
    client = DemoControlClient(tmp_path / "demo.sock")
    scan = b'zmon_pool_scan_remaining_seconds{pool="tank"}'
    try:
        first = client.request("collect")
        assert first["phase"] == "healthy" and first["stale"] == []
        assert scan not in s.snapshot.exposition.text
        reply = client.request("step")
        assert reply["phase"] == "scrub" and reply["stale"] == [] and reply["runs"]["zpool"] >= 2
        assert scan in s.snapshot.exposition.text  # the scrub's estimate, an hour early
        assert client.request("status")["phase"] == "scrub"
        with pytest.raises(ValueError, match="unknown request"):
            client.request("jump 4")
        with pytest.raises(ValueError, match="no such collector"):
            client.request("collect smart")
    finally:
        client.close()
        control.stop()
        s.stop()
        host.stop()
