"""A call held to a share of a core: the status page's history sampling in the server."""

from __future__ import annotations

import time
from collections.abc import Callable

# the status page's history may take 0.1 % of a core: a point every 10 s on a small host (a
# millisecond each), every 25 s or so with 1,000 disks (25 ms each)
HISTORY_CPU_SHARE = 0.001
MAX_HISTORY_GAP = 600.0  # seconds: the longest the budget may hold the next point back


def within_budget(
    observe: Callable[[], None],
    share: float = HISTORY_CPU_SHARE,
    clock: Callable[[], float] = time.monotonic,
    cpu: Callable[[], float] = time.thread_time,
) -> Callable[[], None]:
    """``observe``, skipped until its last call's CPU time is ``share`` of the time since.

    Reading the host model for the status page's history takes a millisecond on a small
    host and, with 1,100 vdevs, 25 ms, in the serving process (which holds the families the
    views read): there the history gets a point every 25 s instead of every 10 s.
    """
    next_at = 0.0

    def call() -> None:
        nonlocal next_at
        now = clock()
        if now < next_at <= now + MAX_HISTORY_GAP:  # (a clock set back: sample now)
            return
        started = cpu()
        try:
            observe()
        finally:
            next_at = now + (cpu() - started) / share

    return call
