"""The one backoff the followers, the UPS poller and the worker's supervisor retry by."""

from __future__ import annotations

from zmon.base.backoff import Backoff


def test_delays_double_up_to_the_maximum_and_start_again_after_a_reset() -> None:
    backoff = Backoff(1.0, 8.0)
    assert [backoff.failed() for _ in range(6)] == [1.0, 2.0, 4.0, 8.0, 8.0, 8.0]
    backoff.reset()
    assert backoff.failed() == 1.0


def test_a_long_run_of_failures_stays_at_the_maximum() -> None:
    backoff = Backoff(0.5, 60.0)
    for _ in range(10_000):
        delay = backoff.failed()
    assert delay == 60.0
