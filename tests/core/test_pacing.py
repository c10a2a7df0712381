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
from zmon.server import ANSWERING, make_app


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
    assert max(seen) == 2
    assert pacing.answering == 1  # lingering after the last answer (its loop is gone now) ...
    ANSWERING.settle()
    assert pacing.answering == 0  # ... until the front door settles it when it stops


def test_threads_giving_way_together_share_one_slice_of_the_interpreter(clock: Clock) -> None:
    """Each pauses PAUSE times the number giving way: together they take SLICE / PAUSE of
    the time however many runs coincide (three at once took 40 % of a big host's GIL)."""
    pacing.answering = 1
    inside, go_on, done = threading.Barrier(3), threading.Event(), threading.Event()

    def other() -> None:
        with pacing.giving_way(1.0):
            inside.wait()
            go_on.wait()
        done.set()

    others = [threading.Thread(target=other) for _ in range(2)]
    for t in others:
        t.start()
    with pacing.giving_way(1.0):
        inside.wait()
        assert pacing.giving == 3
        clock.now += pacing.SLICE
        pacing.checkpoint()
        assert clock.pauses == [pytest.approx(3 * pacing.PAUSE)]
        go_on.set()
        for t in others:
            t.join()
        assert pacing.giving == 1  # (nested budgets count their thread once)
        with pacing.giving_way(1.0):
            assert pacing.giving == 1
            clock.now += pacing.SLICE
            pacing.checkpoint()
    assert clock.pauses == [pytest.approx(3 * pacing.PAUSE), pytest.approx(pacing.PAUSE)]
    assert pacing.giving == 0


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


@pytest.fixture
def ticking(clock: Clock, monkeypatch: pytest.MonkeyPatch) -> Clock:
    """The fake clock, moved a slice on at every look: each checkpoint may pause."""
    still = clock.__call__

    def tick() -> float:
        clock.now += pacing.SLICE
        return still()

    monkeypatch.setattr(pacing, "_clock", tick)
    return clock


def test_reading_the_status_model_gives_way(ticking: Clock) -> None:
    """The status page's history reads the host model on the render thread: 25 ms on a big
    host, which it now spends in slices between pauses while requests are open."""
    from tests.status.helpers import families, pool_text
    from zmon.status.model import read_model

    disks = tuple(f"sd{c}" for c in "abcdefgh")
    fams = families(pool_text(disks=disks))
    pacing.answering = 1
    with pacing.giving_way(1.0):
        model = read_model(fams)
    assert [v.name for v in model.pools[0].vdevs() if v.is_leaf] == list(disks)
    assert len(ticking.pauses) >= len(disks)  # (a pause for each vdev read, at least)
    paused = len(ticking.pauses)
    pacing.answering = 0
    with pacing.giving_way(1.0):
        read_model(fams)
    assert len(ticking.pauses) == paused  # nobody being answered: no more pauses


def test_choosing_among_a_big_hosts_datasets_gives_way(ticking: Clock) -> None:
    """Reading and sorting 10,000 ``zfs list`` rows took 20-30 ms without a pause."""
    from zmon.collectors.datasets import select_rows

    names = [f"tank/d{i}" for i in range(640)]
    listing = "".join(f"{name}\tfilesystem\n" for name in names)
    pacing.answering = 1
    with pacing.giving_way(10.0):
        rows = select_rows(listing, ["name", "type"], [], ["tank/d1*"])
    assert [name for name, _, _ in rows] == sorted(n for n in names if not n.startswith("tank/d1"))
    assert len(ticking.pauses) >= 640 + 640 // 64  # each row chosen, every 64 rows read
