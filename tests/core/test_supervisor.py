"""The supervisor replaces a collection worker that stops answering or sends what is not a
valid message, and backs off from one that keeps ending; on an injected clock, waiting for
events, never for time."""

from __future__ import annotations

import struct
import sys
import threading
from collections.abc import Sequence
from functools import partial

import pytest
from structlog.testing import capture_logs

from tests.support.waiting import poll as _poll
from zmon.collecting.config import Config
from zmon.runtime import channel as wire
from zmon.runtime import supervisor
from zmon.runtime.supervisor import WEDGED_AFTER, ReplacementBackoff, WorkerSupervisor, spawn_worker

# the worker starts a Python process per run: generous on a loaded machine
poll = partial(_poll, timeout=120.0)


def _started_worker(then: str = "") -> tuple[str, ...]:
    """A worker program that says it started, runs the Python line ``then`` and waits to be
    killed."""
    return (
        sys.executable,
        "-c",
        "import os, socket, sys, time\n"
        "from zmon.runtime.channel import TO_WORKER, Channel, Started\n"
        "fd = int(sys.argv[1])\n"
        "channel = Channel(socket.socket(fileno=fd), TO_WORKER)\n"
        "channel.recv()\n"
        "channel.send(Started(None, True))\n"
        f"{then}"
        "time.sleep(3600)\n",
    )


# A worker that says it started, then never says anything again (as one stuck in a C call
# that holds the interpreter): only its death closes the channel.
SILENT_WORKER = _started_worker()


def _faulty_worker(frame: bytes) -> tuple[str, ...]:
    """A worker that starts, then sends the raw bytes ``frame`` and waits to be killed."""
    return _started_worker(f"os.write(fd, {frame!r})\n")


def _frame(payload: bytes) -> bytes:
    """``payload`` as ``multiprocessing.connection`` frames it: a 4-byte length first."""
    return struct.pack("!i", len(payload)) + payload


def _header(header: bytes, blobs: Sequence[bytes] = ()) -> bytes:
    return _frame(struct.pack("!I", len(header)) + header + b"".join(blobs))


def _message(kind: str, body: object, blobs: Sequence[bytes] = ()) -> bytes:
    return _header(wire.json.dumps([kind, body, [len(b) for b in blobs]]).encode(), blobs)


# a collector as the worker reports it (zmon.runtime.channel.Collector)
ARC = [
    "arc", 1.0, 1.0, True, True, 0.1, 1.0, "", None, "",
    {"success": 1, "failure": 0, "timeout": 0, "nodata": 0}, "", 0, 0, 0, None,
]  # fmt: skip

BAD_FRAMES = {
    # what Connection.send(("Beat", True)) sends: nothing is unpickled
    "a pickle": _frame(
        b"\x80\x05\x95\x0c\x00\x00\x00\x00\x00\x00\x00\x8c\x04Beat\x94\x88\x86\x94."
    ),
    # (a length of -1 says an 8-byte length follows)
    "a length prefix of 2**60": struct.pack("!i", -1) + struct.pack("!Q", 2**60),
    "a header that is not JSON": _header(b'["Beat",true,{{{{'),
    "a message the server does not take": _message("Stop", None),
    "an unknown message": _message("exec", ["rm -rf /"]),
    "a field of the wrong type": _message("Beat", "yes"),
    "a blob that is not there": _message(
        "Update", [[ARC], {"arc": [[["arc_size", "00" * 20, [[3, 0, 0]] * 3]], None, None]}]
    ),
    "a piece the server does not hold": _message(
        "Update", [[ARC], {"arc": [[["arc_size", "00" * 20, None]], None, None]}]
    ),
    "nesting deeper than a decoder goes": _header(
        b'["Beat",' + b"[" * 5000 + b"]" * 5000 + b",[]]"
    ),
}  # fmt: skip


@pytest.fixture
def silent_workers_killed_soon(monkeypatch: pytest.MonkeyPatch) -> None:
    """A silent worker never acts on Stop: ``stop`` kills it after its grace period, here a
    short one, since waiting out zmon's own would only make the test slow."""
    monkeypatch.setattr(supervisor, "STOP_TIMEOUT", 1.0)


@pytest.mark.usefixtures("silent_workers_killed_soon")
def test_a_worker_that_stops_answering_is_killed_and_replaced() -> None:
    now = [1000.0]
    procs = []
    lock = threading.Lock()

    def spawn():  # type: ignore[no-untyped-def]
        proc, channel = spawn_worker(SILENT_WORKER)
        with lock:
            procs.append(proc)
        return proc, channel

    sup = WorkerSupervisor(Config(), spawn=spawn, clock=lambda: now[0])
    sup.start()
    try:
        assert sup.healthy() and sup.restarts == 0
        now[0] += WEDGED_AFTER - 1  # quiet, but not for long enough
        sup._check_wedged()  # what the tick thread does every second
        assert procs[0].poll() is None and sup.restarts == 0
        now[0] += 2
        assert poll(lambda: sup.restarts == 1), "the silent worker was never replaced"
        assert procs[0].wait(60) == -9  # killed, not asked
        assert poll(lambda: len(procs) == 2 and sup.healthy())
        assert sup.last_restart_delay == 0.0  # the first replacement starts at once
    finally:
        sup.stop()
    assert all(p.poll() is not None for p in procs)


# each kind of bad frame is refused by the channel (tests/core/test_channel.py); these show
# what the supervisor does with one: a frame it cannot read, one it cannot allocate, and a
# valid message that does not fit what the server holds
@pytest.mark.parametrize(
    "what", ["a pickle", "a length prefix of 2**60", "a piece the server does not hold"]
)
@pytest.mark.usefixtures("silent_workers_killed_soon")
def test_a_worker_that_sends_a_bad_frame_is_replaced_and_counted(what: str) -> None:
    procs = []
    lock = threading.Lock()

    def spawn():  # type: ignore[no-untyped-def]
        with lock:
            program = _faulty_worker(BAD_FRAMES[what]) if not procs else SILENT_WORKER
            proc, channel = spawn_worker(program)
            procs.append(proc)
        return proc, channel

    sup = WorkerSupervisor(Config(), spawn=spawn)
    with capture_logs() as logged:
        sup.start()
        try:
            assert poll(lambda: sup.restarts == 1), f"a worker that sent {what} was not replaced"
            assert procs[0].wait(60) == -9  # killed, not asked
            assert poll(lambda: len(procs) == 2 and sup.healthy())
            assert sup._threads[0].is_alive()  # supervision goes on
        finally:
            sup.stop()
    faults = [e for e in logged if e["event"] == "collection worker faulted; replacing it"]
    assert len(faults) == 1 and faults[0]["pid"] == procs[0].pid, logged
    assert all(p.poll() is not None for p in procs)


def test_replacements_that_keep_ending_back_off_and_a_stable_run_resets() -> None:
    backoff = ReplacementBackoff(first=1.0, most=60.0, stable_after=60.0)
    delays = [backoff.after_exit(lived=0.5) for _ in range(9)]
    assert delays == [0.0, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 60.0, 60.0]
    assert backoff.after_exit(lived=3600.0) == 0.0  # a worker that ran for an hour
    assert backoff.after_exit(lived=1.0) == 1.0
