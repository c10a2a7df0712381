"""HTTP: /metrics serves ready bytes (gzip when asked), /healthz, and the landing page."""

from __future__ import annotations

import asyncio
import gzip
import sys
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest

from zmon import pacing
from zmon.collectors.zpool import ZpoolCollector
from zmon.metrics import MetricSet
from zmon.registry import Collector, Context, Paths
from zmon.replay import StaticRunner
from zmon.scheduler import Scheduler
from zmon.server import ANSWERING, HTTPFrontend, ShortSwitchWhileAnswering, make_app


class One(Collector):
    name = "one"

    def collect(self) -> MetricSet:
        m = MetricSet()
        m.gauge("zmon_test_value", "A test value.", 42)
        return m


def _serve():  # type: ignore[no-untyped-def]
    s = Scheduler()
    s.add(One(Context(paths=Paths(), runner=StaticRunner())), 60, 1)
    s.workers["one"].run_once()
    server = HTTPFrontend(lambda web: make_app(s.snapshot, lambda: True, web=web))
    server.serve(["127.0.0.1:0"])
    return s, server


def test_metrics_plain_and_gzip() -> None:
    s, server = _serve()
    try:
        base = f"http://127.0.0.1:{server.port}"
        with urllib.request.urlopen(base + "/metrics") as r:
            body = r.read()
            assert r.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        assert b"zmon_test_value 42.0" in body
        req = urllib.request.Request(base + "/metrics", headers={"Accept-Encoding": "gzip"})
        with urllib.request.urlopen(req) as r:
            assert r.headers["Content-Encoding"] == "gzip"
            assert gzip.decompress(r.read()) == body
        with urllib.request.urlopen(base + "/healthz") as r:
            assert r.read() == b"ok\n"
        with urllib.request.urlopen(base + "/") as r:
            page = r.read().decode()
        assert "<td>one</td>" in page and "ok" in page
    finally:
        server.stop()


def test_unknown_path_is_404() -> None:
    s, server = _serve()
    try:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{server.port}/nope")
        except urllib.error.HTTPError as e:
            assert e.code == 404
        else:
            raise AssertionError("expected 404")
    finally:
        server.stop()


class Pools(Collector):
    summary_title = "Pools"
    summary = ZpoolCollector.summary
    name = "pools"

    def collect(self) -> MetricSet:
        m = MetricSet()
        states = ["online", "degraded", "faulted"]
        m.state_set("zmon_pool_state", "Pool state.", states, "degraded", {"pool": "tank"})
        m.state_set("zmon_pool_state", "Pool state.", states, None, {"pool": "cut"})
        return m


def test_landing_page_shows_pool_states() -> None:
    from zmon.server import landing_page

    s = Scheduler()
    s.add(Pools(Context(paths=Paths(), runner=StaticRunner())), 60, 1)
    s.workers["pools"].run_once()
    page = landing_page(s.snapshot, "zmon")
    assert "<td>tank</td><td>DEGRADED</td>" in page
    assert "<td>cut</td><td>UNKNOWN</td>" in page


def test_history_observation_is_held_to_its_cpu_budget() -> None:
    """The status page's history is sampled at most at ``share`` of a core: a sampling that
    took 10 ms of CPU waits 1 s of time before the next one (see benchmarks/README.md)."""
    from zmon.server import within_budget

    t, spent, calls = [100.0], [0.0], []

    def observe() -> None:
        calls.append(t[0])
        spent[0] += 0.010

    call = within_budget(observe, share=0.01, clock=lambda: t[0], cpu=lambda: spent[0])
    for step in range(30):
        t[0] = 100.0 + step * 0.25
        call()
    assert calls == [100.0, 101.0, 102.0, 103.0, 104.0, 105.0, 106.0, 107.0]
    # a clock set back (or a pause past the longest gap) samples again at once
    t[0] = -1000.0
    call()
    assert calls[-1] == -1000.0


def test_the_switch_interval_is_short_only_while_requests_are_answered() -> None:
    s = Scheduler()
    s.add(One(Context(paths=Paths(), runner=StaticRunner())), 60, 1)
    s.workers["one"].run_once()
    app = make_app(s.snapshot, lambda: True)
    usual = sys.getswitchinterval()
    seen: list[float] = []

    async def send(message: dict[str, Any]) -> None:
        seen.append(sys.getswitchinterval())
        await asyncio.sleep(0)  # the other request is answered meanwhile

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    def scope(path: str) -> dict[str, Any]:
        return {"type": "http", "method": "GET", "path": path, "headers": [], "query_string": b""}

    async def two_at_once() -> None:
        await asyncio.gather(
            app(scope("/metrics"), receive, send), app(scope("/healthz"), receive, send)
        )
        seen.append(sys.getswitchinterval())

    asyncio.run(two_at_once())
    # (the interpreter keeps the interval in whole microseconds)
    assert seen == [pytest.approx(ANSWERING.interval)] * 5  # ... and a while after the answers
    ANSWERING.settle()  # (what the front door does when its loop stops)
    assert sys.getswitchinterval() == usual
    assert ANSWERING.interval < usual


class FakeLoop:
    """The loop's clock and timers, moved by the test."""

    def __init__(self) -> None:
        self.now = 50.0
        self.timers: list[tuple[float, Callable[..., None], tuple[Any, ...]]] = []

    def time(self) -> float:
        return self.now

    def call_later(self, delay: float, fn: Callable[..., None], *args: Any) -> None:
        self.timers.append((self.now + delay, fn, args))

    def advance(self, seconds: float) -> None:
        self.now += seconds
        due = [t for t in self.timers if t[0] <= self.now]
        self.timers = [t for t in self.timers if t[0] > self.now]
        for _, fn, args in due:
            fn(*args)


def test_the_short_interval_lingers_after_the_last_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    """Between two requests of busy scrapers nobody is being answered for a moment: the
    interval stays short and collectors keep giving way for ``linger`` after the last answer."""
    loop = FakeLoop()
    answering = ShortSwitchWhileAnswering(interval=0.0002, linger=0.05, loop_of=lambda: loop)
    monkeypatch.setattr(pacing, "answering", 0)
    usual = sys.getswitchinterval()
    try:
        with answering:
            assert pacing.answering == 1
        assert sys.getswitchinterval() == pytest.approx(0.0002)
        assert pacing.answering == 1 and len(loop.timers) == 1
        loop.advance(0.03)
        with answering:  # the next request, 30 ms later: one timer still, the linger renewed
            pass
        assert len(loop.timers) == 1
        loop.advance(0.03)  # the first timer fires 50 ms after the first answer: 20 ms to go
        assert pacing.answering == 1 and sys.getswitchinterval() == pytest.approx(0.0002)
        loop.advance(0.015)
        assert pacing.answering == 1
        loop.advance(0.006)
        assert pacing.answering == 0 and sys.getswitchinterval() == usual
        assert loop.timers == []
        # a request open when the timer fires keeps the interval; its answer lingers again
        with answering:
            pass
        answering.__enter__()
        loop.advance(0.06)
        assert pacing.answering == 1 and sys.getswitchinterval() == pytest.approx(0.0002)
        answering.__exit__(None, None, None)
        assert pacing.answering == 1 and len(loop.timers) == 1
        loop.advance(0.05)
        assert pacing.answering == 0 and sys.getswitchinterval() == usual
    finally:
        answering.settle()
        sys.setswitchinterval(usual)
