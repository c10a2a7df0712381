"""The scheduler: background runs, hard timeouts, last good data kept and marked stale."""

from __future__ import annotations

import threading
import time

from zmon.metrics import MetricSet
from zmon.registry import Collector, Context, NoDataError, Paths
from zmon.replay import StaticRunner
from zmon.scheduler import Scheduler


def _ctx() -> Context:
    return Context(paths=Paths(), runner=StaticRunner())


class Scripted(Collector):
    """Returns a value, raises, or hangs, as the test says."""

    name = "scripted"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.mode = "ok"
        self.value = 1.0
        self.release = threading.Event()
        self.active = 0
        self.max_active = 0
        self.lock = threading.Lock()

    def collect(self) -> MetricSet:
        with self.lock:
            self.active += 1
            self.max_active = max(self.max_active, self.active)
        try:
            if self.mode == "hang":
                self.release.wait(30)
            if self.mode == "fail":
                raise RuntimeError("zpool exploded")
            if self.mode == "nodata":
                raise NoDataError("no zfs module")
            m = MetricSet()
            m.gauge("zmon_test_value", "A test value.", self.value)
            return m
        finally:
            with self.lock:
                self.active -= 1


def _sample(text: bytes, line_start: str) -> str | None:
    for line in text.decode().splitlines():
        if line.startswith(line_start):
            return line
    return None


def test_success_then_failure_keeps_last_data_and_marks_stale() -> None:
    c = Scripted(_ctx())
    s = Scheduler()
    s.add(c, interval=60, timeout=2)
    worker = s.workers["scripted"]
    worker.run_once()
    text = s.snapshot.exposition.text
    assert b"zmon_test_value 1.0" in text
    assert b'zmon_collector_success{collector="scripted"} 1.0' in text
    assert b'zmon_collector_stale{collector="scripted"} 0.0' in text

    c.mode, c.value = "fail", 2.0
    worker.run_once()
    text = s.snapshot.exposition.text
    assert b"zmon_test_value 1.0" in text, "last good data must stay"
    assert b'zmon_collector_success{collector="scripted"} 0.0' in text
    assert b'zmon_collector_stale{collector="scripted"} 1.0' in text
    assert b'zmon_collector_runs_total{collector="scripted",result="failure"} 1.0' in text


def test_hung_run_times_out_and_never_overlaps() -> None:
    c = Scripted(_ctx())
    c.mode = "hang"
    s = Scheduler()
    s.add(c, interval=60, timeout=0.3)
    worker = s.workers["scripted"]
    start = time.monotonic()
    worker.run_once()
    assert time.monotonic() - start < 2
    text = s.snapshot.exposition.text
    assert b'zmon_collector_success{collector="scripted"} 0.0' in text
    assert b'result="timeout"} 1.0' in text
    # The next run waits for the stuck one instead of starting a second copy.
    t = threading.Thread(target=worker.run_once)
    t.start()
    time.sleep(0.3)
    assert c.max_active == 1
    c.release.set()
    t.join(5)
    assert c.max_active == 1


def test_nodata_is_not_a_failure() -> None:
    c = Scripted(_ctx())
    c.mode = "nodata"
    s = Scheduler()
    s.add(c, interval=60, timeout=1)
    s.workers["scripted"].run_once()
    text = s.snapshot.exposition.text
    assert b'zmon_collector_success{collector="scripted"} 1.0' in text
    assert b'zmon_collector_has_data{collector="scripted"} 0.0' in text


def test_background_loop_and_clean_stop() -> None:
    c = Scripted(_ctx())
    s = Scheduler()
    s.add(c, interval=0.1, timeout=1)
    before = {t.name for t in threading.enumerate()}
    s.start()
    time.sleep(0.5)
    runs = s.snapshot.state("scripted").runs["success"]  # type: ignore[union-attr]
    assert runs >= 2
    s.stop()
    time.sleep(0.2)
    leftover = {t.name for t in threading.enumerate() if t.is_alive()} - before
    assert not any(n.startswith("zmon-") for n in leftover), leftover


def test_same_family_from_two_collectors_is_merged() -> None:
    class A(Scripted):
        name = "a"

    class B(Scripted):
        name = "b"

    s = Scheduler()
    s.add(A(_ctx()), 60, 1)
    s.add(B(_ctx()), 60, 1)
    for w in s.workers.values():
        w.run_once()
    text = s.snapshot.exposition.text.decode()
    assert text.count("# TYPE zmon_test_value gauge") == 1


def test_a_slow_render_never_holds_collectors_up(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Runs that finish while the exposition is being joined share the next join."""
    from zmon.snapshot import Snapshot

    renders = []
    original = Snapshot.rerender

    def slow(self: Snapshot) -> None:
        time.sleep(0.4)  # a large host on a slow CPU
        original(self)
        renders.append(time.monotonic())

    monkeypatch.setattr(Snapshot, "rerender", slow)
    c = Scripted(_ctx())
    s = Scheduler()
    s.add(c, interval=0.05, timeout=1)
    s.start()
    try:
        time.sleep(1.5)
        runs = s.snapshot.state("scripted").runs["success"]  # type: ignore[union-attr]
        text = s.snapshot.exposition.text
    finally:
        s.stop()
    assert runs >= 10, f"the collector waited for renders: {runs} runs in 1.5 s"
    assert len(renders) <= 6, "renders were not coalesced"
    assert b"zmon_test_value 1.0" in text
