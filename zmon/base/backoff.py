"""Exponential backoff: how long to wait before trying again after failures in a row.

Three things in zmon retry: a follower restarts the program it reads (``zpool events -f``,
``journalctl -f``), the UPS poller reconnects to its server, and the main process replaces a
collection worker that ended. Each decides when a run counts as a success that starts the
count again; the arithmetic is this class's.
"""

from __future__ import annotations


class Backoff:
    """``initial`` seconds after the first failure in a row, doubled after each further one
    up to ``maximum`` (``initial == maximum``: a fixed delay); ``reset`` starts again."""

    def __init__(self, initial: float, maximum: float) -> None:
        self.initial = initial
        self.maximum = maximum
        self.failures = 0

    def failed(self) -> float:
        """One more failure in a row: the seconds to wait before the next try."""
        self.failures += 1
        return min(self.maximum, self.initial * 2.0 ** min(self.failures - 1, 64))

    def reset(self) -> None:
        self.failures = 0
