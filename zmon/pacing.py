"""Collectors' long loops give way to the requests being answered.

The HTTP front door and the collectors share one interpreter. While a collector's run holds
it, the event loop waits up to the switch interval after each of its system calls, and 50
scrapers saw a p99 of 25-45 ms on a big host where the front door alone answers within 10 ms
(benchmarks/README.md, "What the scrape tail follows"). Scrapes are short and a run can take
a little longer, so while a request is open, a thread doing collector work pauses for
``PAUSE`` after each ``SLICE`` of running, at the ``checkpoint`` calls of its long loops
(parsing, building and rendering families).

Only threads inside ``giving_way`` pause (the scheduler's run, publish and render threads),
never the event loop or a thread that serves a request, and each stretch of collector work
pauses for at most its ``budget`` in all: a run's pauses never take more than half of its
timeout. While nobody scrapes, a checkpoint is one test of an integer.

The pause grows with the number of threads giving way at the time (running, or waiting for
a command), so that together they take at most about ``SLICE / PAUSE`` of the interpreter
however many runs coincide: a big host's ``iostat``, ``zpool`` and ``datasets`` runs, each
pausing as if alone, took 40 % of it at once and halved the scrapes answered
(benchmarks/README.md, "The ninth round"). "While a request is open" lasts a little longer
than the request (``zmon.server.ShortSwitchWhileAnswering``'s linger).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

SLICE = 0.0005  # seconds a thread giving way may run while a request is open ...
PAUSE = 0.003  # ... before it pauses for this long
MIN_PAUSE = 0.0001  # less of the budget left than this: no more pauses

answering = 0  # requests being answered now (kept by zmon.server.ShortSwitchWhileAnswering)
giving = 0  # threads inside ``giving_way`` now

_giving_lock = threading.Lock()

_local = threading.local()
_clock: Callable[[], float] = time.perf_counter
_sleep: Callable[[float], None] = time.sleep


class _Budget:
    __slots__ = ("total", "left", "resumed")

    def __init__(self, total: float, now: float) -> None:
        self.total = total  # seconds of pausing allowed in all
        self.left = total  # ... and still allowed
        self.resumed = now  # when the thread last started running

    @property
    def paused(self) -> float:
        """Seconds paused so far."""
        return self.total - self.left


@contextmanager
def giving_way(budget: float) -> Iterator[_Budget]:
    """Mark the current thread's work as giving way to requests, pausing ``budget`` seconds
    at most in all; yields the budget (``paused`` tells how long it paused)."""
    global giving
    before = getattr(_local, "budget", None)
    mine = _local.budget = _Budget(max(0.0, budget), _clock())
    if before is None:
        with _giving_lock:
            giving += 1
    try:
        yield mine
    finally:
        _local.budget = before
        if before is None:
            with _giving_lock:
                giving -= 1


def checkpoint() -> None:
    """Call in a long loop: pauses if a request is open and this thread has run a slice."""
    if answering:
        _give_way()


def _give_way() -> None:
    budget: _Budget | None = getattr(_local, "budget", None)
    if budget is None or budget.left < MIN_PAUSE:
        return
    now = _clock()
    if now - budget.resumed < SLICE:
        return
    _sleep(min(PAUSE * max(1, giving), budget.left))
    after = _clock()
    budget.left -= after - now
    budget.resumed = after
