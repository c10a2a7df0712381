"""A call held to a share of a core: the status page's history sampling in the server."""

from __future__ import annotations

import time
from collections.abc import Callable

# the status page's history may take 0.1 % of a core: a small host's cheap reads get a point
# every 10 s, a big host's dearer ones fewer (the gap grows with a read's CPU time)
HISTORY_CPU_SHARE = 0.001
MAX_HISTORY_GAP = 600.0  # seconds: the longest the budget may hold the next point back


def within_budget(
    observe: Callable[[], None],
    share: float = HISTORY_CPU_SHARE,
    clock: Callable[[], float] = time.monotonic,
    cpu: Callable[[], float] = time.thread_time,
) -> Callable[[], None]:
    """``observe``, skipped until its last call's CPU time is ``share`` of the time since.

    Reading the host model for the status page's history is cheap on a small host and grows
    with the vdevs, in the serving process (which holds the families the views read): on a
    big host the history gets points further apart instead of taking more CPU.
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
