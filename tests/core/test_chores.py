"""Periodic chores (zmon.base.children.Chores) run when due, not on every half-second wake-up."""

from __future__ import annotations

import pytest

from zmon.base import children, memory


def test_the_sweep_and_the_trim_run_when_due_not_every_wake_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The sweep reads a /proc file per thread: on a host with 1,000 disks, sweeping on every
    # half-second wake-up of the main thread would take 0.1 % of a core.
    done: list[str] = []
    monkeypatch.setattr(children, "sweep", lambda owner=None: done.append("sweep") or 0)
    monkeypatch.setattr(memory, "trim", lambda: done.append("trim") or True)
    now = [1000.0]
    due = children.Chores(clock=lambda: now[0])
    for _ in range(40):  # 20 s of half-second wake-ups
        now[0] += 0.5
        due.run_due()
    assert done.count("sweep") == 20 / children.SWEEP_SECONDS == 4
    assert done.count("trim") == 20 / children.TRIM_SECONDS == 2


def test_a_clock_that_stands_still_runs_no_chore(monkeypatch: pytest.MonkeyPatch) -> None:
    done: list[str] = []
    monkeypatch.setattr(children, "sweep", lambda owner=None: done.append("sweep") or 0)
    monkeypatch.setattr(memory, "trim", lambda: done.append("trim") or True)
    due = children.Chores(clock=lambda: 5.0)
    for _ in range(100):
        due.run_due()
    assert done == []
