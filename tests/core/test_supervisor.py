"""The supervisor replaces a collection worker that stops answering, and backs off from one
that keeps ending; on an injected clock, waiting for events, never for time."""

from __future__ import annotations

import sys
import threading
from functools import partial

from tests.support.waiting import poll as _poll
from zmon.config import Config
from zmon.snapshot import Snapshot
from zmon.supervisor import WEDGED_AFTER, Backoff, WorkerSupervisor, spawn_worker

# the worker starts a Python process per run: generous on a loaded machine
poll = partial(_poll, timeout=120.0)

# A worker that says it started, then never says anything again (as one stuck in a C call
# that holds the interpreter): only its death closes the channel.
SILENT_WORKER = (
    sys.executable,
    "-c",
    "import socket, sys, time\n"
    "from zmon.channel import Channel\n"
    "channel = Channel(socket.socket(fileno=int(sys.argv[1])))\n"
    "channel.recv()\n"
    "channel.send(('started', None, True))\n"
    "time.sleep(3600)\n",
)


def test_a_worker_that_stops_answering_is_killed_and_replaced() -> None:
    now = [1000.0]
    procs = []
    lock = threading.Lock()

    def spawn():  # type: ignore[no-untyped-def]
        proc, channel = spawn_worker(SILENT_WORKER)
        with lock:
            procs.append(proc)
        return proc, channel

    sup = WorkerSupervisor(Snapshot(), Config(), spawn=spawn, clock=lambda: now[0])
    sup.start()
    try:
        assert sup.healthy() and sup.restarts == 0
        now[0] += WEDGED_AFTER - 1  # quiet, but not for long enough
        sup._check_wedged()  # what the render thread does every second
        assert procs[0].poll() is None and sup.restarts == 0
        now[0] += 2
        assert poll(lambda: sup.restarts == 1), "the silent worker was never replaced"
        assert procs[0].wait(60) == -9  # killed, not asked
        assert poll(lambda: len(procs) == 2 and sup.healthy())
        assert sup.last_restart_delay == 0.0  # the first replacement starts at once
    finally:
        sup.stop()
    assert all(p.poll() is not None for p in procs)


def test_replacements_that_keep_ending_back_off_and_a_stable_run_resets() -> None:
    backoff = Backoff(first=1.0, most=60.0, stable_after=60.0)
    delays = [backoff.after_exit(lived=0.5) for _ in range(9)]
    assert delays == [0.0, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 60.0, 60.0]
    assert backoff.after_exit(lived=3600.0) == 0.0  # a worker that ran for an hour
    assert backoff.after_exit(lived=1.0) == 1.0
