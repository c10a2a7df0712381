"""A clock that tests move by hand, for code that takes its clock as an argument."""

from __future__ import annotations


class FakeClock:
    """Stands still at ``now`` until a test moves it (``clock.now += 10``)."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now
