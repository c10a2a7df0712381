"""The scheduler: background runs, hard timeouts, last good data kept and marked stale.

No test here sleeps and hopes: each waits for what it checks (a thread blocked where it
should be, a run count reached), so a loaded machine only makes them slower.
"""

from __future__ import annotations

import contextlib
import gc
import sys
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path

from zmon.base import durable
from zmon.base.runner import StaticRunner
from zmon.collecting.registry import Collector, Context, NoDataError, Paths
from zmon.collecting.scheduler import Scheduler
from zmon.exposition.metrics import MetricSet


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


def wait_for(check: Callable[[], object], timeout: float = 60.0) -> bool:
    """Poll ``check()`` until it is true; whether it became true within ``timeout``."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def _waiting_in(thread: threading.Thread, function: str) -> bool:
    """Whether ``thread`` is blocked joining another thread, called from ``function``."""
    frame = sys._current_frames().get(thread.ident or -1)
    names = []
    while frame is not None:
        names.append(frame.f_code.co_name)
        frame = frame.f_back
    return "join" in names and function in names


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
    worker.run_once()
    assert c.active == 1, "run_once returned at its deadline, while the collector still hangs"
    text = s.snapshot.exposition.text
    assert b'zmon_collector_success{collector="scripted"} 0.0' in text
    assert b'result="timeout"} 1.0' in text
    # The next run waits for the stuck one instead of starting a second copy.
    t = threading.Thread(target=worker.run_once)
    t.start()
    assert wait_for(lambda: _waiting_in(t, "run_once") or c.max_active > 1)
    assert c.max_active == 1
    c.release.set()
    t.join(60)
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
    state = s.snapshot.state("scripted")
    assert state is not None
    assert wait_for(lambda: state.runs["success"] >= 2)
    s.stop()

    def leftover() -> set[str]:
        alive = {t.name for t in threading.enumerate() if t.is_alive()} - before
        return {n for n in alive if n.startswith("zmon-")}

    assert wait_for(lambda: not leftover()), leftover()


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
    from zmon.exposition.snapshot import Snapshot

    rendering, release = threading.Event(), threading.Event()
    renders: list[str] = []
    original = Snapshot.rerender

    def slow(self: Snapshot) -> None:  # the render thread's renders last until released
        if threading.current_thread().name == "zmon-render":
            rendering.set()
            release.wait(120)
        original(self)
        renders.append(threading.current_thread().name)

    monkeypatch.setattr(Snapshot, "rerender", slow)
    c = Scripted(_ctx())
    s = Scheduler()
    s.add(c, interval=0.01, timeout=5)
    s.start()
    state = s.snapshot.state("scripted")
    assert state is not None
    try:
        assert wait_for(rendering.is_set)  # a run finished and its render hangs
        runs, done = state.runs["success"], len(renders)
        assert wait_for(lambda: state.runs["success"] >= runs + 5), "runs waited for the render"
        assert len(renders) == done, "runs rendered one by one instead of sharing the next render"
        release.set()
        assert wait_for(lambda: len(renders) > done)
        assert b"zmon_test_value 1.0" in s.snapshot.exposition.text
    finally:
        release.set()
        s.stop()


class Output:
    """Stands for what a run read (a command's output buffer, up to 64 MiB)."""


class FailsHoldingOutput(Collector):
    """Reads its output, then fails the way parsers do: one error raised while handling
    another, whose frame keeps the first (an inner reference cycle of its own)."""

    name = "leaky"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.outputs: list[weakref.ref[Output]] = []
        self.release = threading.Event()

    def collect(self) -> MetricSet:
        output = Output()
        self.outputs.append(weakref.ref(output))
        self.release.wait(30)
        try:
            raise OSError(5, "read failed")
        except OSError as err:
            raise RuntimeError(f"cannot read the output: {err}") from err


@contextlib.contextmanager
def _no_cyclic_gc() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def test_a_failed_runs_output_is_freed_right_after_the_run() -> None:
    """Reference counting alone frees it: nothing waits for a rare cyclic collection."""
    c = FailsHoldingOutput(_ctx())
    c.release.set()
    s = Scheduler()
    s.add(c, interval=60, timeout=30)
    with _no_cyclic_gc():
        s.workers["leaky"].run_once()
        assert b'result="failure"} 1.0' in s.snapshot.exposition.text
        assert c.outputs[0]() is None, "the failed run's output is still referenced"


def test_a_timed_out_runs_output_is_freed_when_it_ends() -> None:
    c = FailsHoldingOutput(_ctx())
    s = Scheduler()
    s.add(c, interval=60, timeout=0.2)
    worker = s.workers["leaky"]
    with _no_cyclic_gc():
        worker.run_once()
        assert b'result="timeout"} 1.0' in s.snapshot.exposition.text
        run = worker._current
        assert run is not None
        c.release.set()
        run.join(60)
        assert c.outputs[0]() is None, "the late failure keeps the run's output"


class KeepsState(Collector):
    """Writes a state file at each run, where the test points it."""

    name = "stateful"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.path: Path | None = None

    def collect(self) -> MetricSet:
        if self.path is not None:
            with contextlib.suppress(OSError):
                durable.write_json(self.path, {"seen": 1})
        return MetricSet()


def test_state_writes_are_served_per_collector_that_keeps_state(tmp_path: Path) -> None:
    c = KeepsState(_ctx())
    s = Scheduler()
    s.add(c, interval=60, timeout=5)
    worker = s.workers["stateful"]
    worker.run_once()  # no state kept: nothing to say
    assert b"zmon_collector_state_" not in s.snapshot.exposition.text
    c.path = tmp_path / "state" / "stateful.json"
    worker.run_once()
    text = s.snapshot.exposition.text
    assert b'zmon_collector_state_writable{collector="stateful"} 1.0' in text
    assert b'zmon_collector_state_write_failures_total{collector="stateful"} 0.0' in text
    blocker = tmp_path / "full"
    blocker.write_text("")
    c.path = blocker / "state" / "stateful.json"  # its directory cannot be made
    worker.run_once()
    worker.run_once()
    text = s.snapshot.exposition.text
    assert b'zmon_collector_state_writable{collector="stateful"} 0.0' in text
    assert b'zmon_collector_state_write_failures_total{collector="stateful"} 2.0' in text
    c.path = tmp_path / "state" / "stateful.json"
    worker.run_once()
    assert b'zmon_collector_state_writable{collector="stateful"} 1.0' in s.snapshot.exposition.text


def test_a_reloaded_collector_keeps_its_data_and_run_counts() -> None:
    c = Scripted(_ctx())
    s = Scheduler()
    s.add(c, interval=60, timeout=2)
    s.workers["scripted"].run_once()
    c.mode = "fail"
    s.workers["scripted"].run_once()
    before = s.snapshot.state("scripted")
    assert before is not None
    s.add(Scripted(_ctx()), interval=30, timeout=5)  # what a reload does
    after = s.snapshot.state("scripted")
    assert after is not None and after is not before
    assert (after.interval, after.timeout) == (30, 5)
    kept = ("rendered", "success", "has_data", "last_success", "runs", "last_error")
    assert [getattr(after, k) for k in kept] == [getattr(before, k) for k in kept]
    assert after.runs["failure"] == 1 and after.last_error
    assert b"zmon_test_value 1.0" in s.snapshot.exposition.text


def test_a_run_with_another_collector_s_family_fails_and_keeps_its_last_data() -> None:
    """One family name, one collector (zmon.exposition.snapshot.Snapshot.publish): the second
    collector's run that publishes it fails, with both named, and its last good data stays."""
    scheduler = Scheduler()
    snapshot = scheduler.snapshot
    values = {"a": ["zmon_a", "zmon_shared"], "b": ["zmon_b"]}

    class Named(Collector):
        def collect(self) -> MetricSet:
            ms = MetricSet()
            for name in values[self.name]:
                ms.gauge(name, "A thing.", 1)
            return ms

    for name in values:
        cls = type(f"C{name}", (Named,), {"name": name})
        scheduler.add(cls(_ctx()), 15.0, 10.0)
    scheduler.workers["a"].run_once()
    scheduler.workers["b"].run_once()
    values["b"] = ["zmon_b", "zmon_shared"]
    scheduler.workers["b"].run_once()
    b = snapshot.state("b")
    assert b is not None and b.success is False and b.last_error_reason == "error"
    assert b.last_error.startswith("metric family zmon_shared of collector b is already")
    assert [name for name, _, _ in b.rendered] == ["zmon_b"]  # its last good run's
    snapshot.rerender()
    assert b'zmon_collector_last_error_info{collector="b",reason="error"} 1.0' in (
        snapshot.exposition.text
    )
