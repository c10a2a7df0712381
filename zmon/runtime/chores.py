"""A process's periodic housekeeping: the sweep for escaped processes and giving memory back."""

from __future__ import annotations

import time
from collections.abc import Callable

from zmon.base import children
from zmon.runtime import memory

TRIM_SECONDS = 10.0  # how often freed memory is given back
# How often to look for escapes of long-lived followers: a look reads a /proc file per
# thread, and a big host has dozens, so looking every loop turn would cost more than it finds.
# Commands' own escapes are swept as each command ends (zmon/base/runner.py).
SWEEP_SECONDS = 5.0


class Chores:
    """Periodic work, each chore when due: the sweep for escaped processes
    (``children.sweep``) and giving freed memory back (``memory.trim``)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._swept = self._trimmed = clock()

    def run_due(self) -> None:
        now = self._clock()
        if now - self._swept >= SWEEP_SECONDS:
            children.sweep("zmon")
            self._swept = now
        if now - self._trimmed >= TRIM_SECONDS:
            memory.trim()  # what finished runs freed goes back (zmon/runtime/memory.py)
            self._trimmed = now
