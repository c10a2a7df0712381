"""Collectors' loops give way to requests being answered (zmon/pacing.py), on a fake clock."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from zmon import pacing
from zmon.metrics import MetricSet
from zmon.registry import Collector, Context, Paths
from zmon.replay import StaticRunner
from zmon.scheduler import PUBLISH_PAUSES, Scheduler
from zmon.server import make_app


class Clock:
    """Time that moves only when the test, or a pause, moves it."""

    def __init__(self) -> None:
        self.now = 100.0
        self.pauses: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.pauses.append(seconds)
        self.now += seconds


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(pacing, "_clock", fake)
    monkeypatch.setattr(pacing, "_sleep", fake.sleep)
    monkeypatch.setattr(pacing, "answering", 0)
    return fake


def test_a_loop_pauses_only_while_a_request_is_open_and_after_a_slice(clock: Clock) -> None:
    with pacing.giving_way(1.0) as budget:
        clock.now += 1.0
        pacing.checkpoint()  # nobody is being answered: no pause, however long it ran
        assert clock.pauses == []
        pacing.answering = 2
        pacing.checkpoint()
        assert clock.pauses == [pacing.PAUSE]
        clock.now += pacing.SLICE / 2
        pacing.checkpoint()  # ran less than a slice since: goes on
        assert clock.pauses == [pacing.PAUSE]
        clock.now += pacing.SLICE
        pacing.checkpoint()
        assert clock.pauses == [pacing.PAUSE] * 2
        assert budget.paused == pytest.approx(2 * pacing.PAUSE)


def test_pauses_stop_at_the_budget(clock: Clock) -> None:
    pacing.answering = 1
    with pacing.giving_way(2.5 * pacing.PAUSE) as budget:
        for _ in range(10):
            clock.now += pacing.SLICE
            pacing.checkpoint()
    assert clock.pauses == pytest.approx([pacing.PAUSE, pacing.PAUSE, pacing.PAUSE / 2])
    assert budget.paused == pytest.approx(2.5 * pacing.PAUSE)


def test_only_work_marked_as_giving_way_pauses(clock: Clock) -> None:
    """The event loop, and threads serving a request, render too: they never pause."""
    pacing.answering = 1
    clock.now += 1.0
    pacing.checkpoint()
    with pacing.giving_way(1.0):
        with pacing.giving_way(0.0):  # nested: the inner budget counts, then the outer again
            clock.now += 1.0
            pacing.checkpoint()
            assert clock.pauses == []
        clock.now += 1.0
        pacing.checkpoint()
        assert clock.pauses == [pacing.PAUSE]
        other = threading.Thread(target=pacing.checkpoint)  # another thread: not marked
        other.start()
        other.join()
    pacing.checkpoint()
    assert clock.pauses == [pacing.PAUSE]


def test_the_front_door_counts_the_requests_it_answers(clock: Clock) -> None:
    app = make_app(Scheduler().snapshot, lambda: True)
    seen: list[int] = []

    async def send(message: dict[str, Any]) -> None:
        seen.append(pacing.answering)
        await asyncio.sleep(0)

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    scope = {"type": "http", "method": "GET", "path": "/healthz", "headers": []}

    async def two_at_once() -> None:
        await asyncio.gather(app(scope, receive, send), app(scope, receive, send))

    asyncio.run(two_at_once())
    assert max(seen) == 2 and pacing.answering == 0


class Watching(Collector):
    """Records the pause budget its run and its family's rendering see."""

    name = "watching"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.budgets: list[float | None] = []

    def collect(self) -> MetricSet:
        self.budgets.append(_budget_left())
        ms = MetricSet()
        ms.gauge("zmon_test_value", "A test value.", 1)
        return ms


def _budget_left() -> float | None:
    budget = getattr(pacing._local, "budget", None)
    return None if budget is None else budget.left


def test_runs_and_publishes_give_way_for_a_bounded_time(
    clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run may pause for half its timeout in all, its publish for PUBLISH_PAUSES."""
    s = Scheduler()
    collector = Watching(Context(paths=Paths(), runner=StaticRunner()))
    s.add(collector, 60, 8)
    published: list[float | None] = []
    state = s.workers["watching"].state
    real = state.publish

    def publish(families):  # type: ignore[no-untyped-def]
        published.append(_budget_left())
        real(families)

    monkeypatch.setattr(state, "publish", publish)
    s.workers["watching"].run_once()
    assert collector.budgets == [4.0] and published == [PUBLISH_PAUSES]
    assert _budget_left() is None  # the worker's own thread gives way only while publishing
