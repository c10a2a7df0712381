"""The main process's side of collection: it starts the worker, holds what it reports and
passes that on to the HTTP process, and replaces a worker that exits, is killed or stops
answering.

The main process holds each collector as the worker last reported it, without its data
(``zmon.runtime.channel.HeldCollectors``: the status, and the digests of the pieces the HTTP process
holds); the HTTP process holds the data and serves it. While no worker runs, both keep what
they hold, marked as not collecting, so ``/metrics`` keeps serving the last data with
``zmon_collector_stale`` at 1; a run the worker was in when it ended counts as a failed run.
A replacement starts from the records held here (run counts go on; the HTTP process keeps
the data until a run changes it) and runs every collector at once: at once after the first
exit, then after 1, 2, 4 ... 60 s while replacements keep ending within a minute, so a worker
that cannot start does not spin.

The first worker is forked from the main process before any thread starts
(``fork_first``): it shares the pages of what that process imported (the collectors, their
parsers, the libraries) until either writes them. A replacement is started with exec: the
main process runs threads by then, and a fork would copy locks other threads hold.

What the worker sends is checked on arrival (zmon/runtime/channel.py): a frame that is too long, not
a message, or one the main process does not take, or data that does not fit what is held,
is the worker's fault. The worker is killed and replaced like one that crashed (logged,
counted in ``zmon_worker_restarts_total``); nothing it sends can end supervision.
"""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import NoReturn

from zmon.base import children, logs
from zmon.base.backoff import Backoff
from zmon.collecting.config import Config
from zmon.exposition.snapshot import Collector
from zmon.runtime.channel import (
    FROM_WORKER,
    Beat,
    Channel,
    Closed,
    HeldCollectors,
    Message,
    Orphaned,
    ProtocolError,
    Reload,
    Reloaded,
    Running,
    Start,
    Started,
    Stop,
    Trigger,
    Update,
)

log = logs.get("supervisor")

START_TIMEOUT = 300.0  # seconds for a worker to start its collectors (imports, first setup)
RELOAD_TIMEOUT = 120.0  # a reload stops every collector (each within its timeout) and starts
STOP_TIMEOUT = 15.0  # a worker told to stop stops its collectors, then it is killed
# A worker reports every 5 s (zmon.runtime.worker.HEARTBEAT_SECONDS); one not heard from for this
# long is stuck (an interpreter held by a runaway C call, a deadlock) and is replaced.
WEDGED_AFTER = 60.0


class ForkedWorker:
    """A worker forked from this process (``fork_worker``), with what the supervisor uses of
    a ``Popen``: ``pid``, ``returncode``, ``wait`` and ``kill``."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:  # reaped by someone else: its status is gone (as Popen)
                self.returncode = 0
            else:
                if pid:
                    self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        """Its exit code (minus the signal that killed it); subprocess.TimeoutExpired if it
        still runs after ``timeout`` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        pause = 0.001
        while (code := self.poll()) is None:
            if deadline is not None and time.monotonic() >= deadline:
                raise subprocess.TimeoutExpired(["zmon-worker"], timeout or 0.0)
            time.sleep(pause)
            pause = min(2 * pause, 0.05)
        return code

    def kill(self) -> None:
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)


WorkerProcess = subprocess.Popen[bytes] | ForkedWorker
Spawn = Callable[[], tuple[WorkerProcess, Channel]]
# passes on a message the main process took, with the frame it came in (None: to be encoded)
Relay = Callable[[Message, bytes | None], None]


class WorkerError(RuntimeError):
    """The collection worker could not start its collectors, or rejected a reload."""


WORKER = (sys.executable, "-m", "zmon.runtime.worker")


def spawn_worker(program: Sequence[str] = WORKER) -> tuple[subprocess.Popen[bytes], Channel]:
    """Start the worker ``program`` with one end of a new socket pair (its descriptor as
    the last argument)."""
    ours, theirs = socket.socketpair()
    fd = theirs.fileno()
    try:
        proc = children.spawn(
            lambda: subprocess.Popen(
                [*program, str(fd)],
                pass_fds=(fd,),
                stdin=subprocess.DEVNULL,
                # in the main process's group: a signal to the whole daemon (systemd's
                # stop, kill -9 of the group) reaches it too; it ignores a terminal's Ctrl-C
                # and lets the main process stop it
            )
        )
    except BaseException:
        ours.close()
        raise
    finally:
        theirs.close()
    return proc, Channel(ours, FROM_WORKER)


# the worker's life in a forked child, on its end of the channel (zmon.runtime.worker.run_worker)
RunWorker = Callable[[socket.socket], int]


def fork_worker(run: RunWorker, drop: Sequence[int] = ()) -> tuple[ForkedWorker, Channel]:
    """Fork the worker from this process, with one end of a new socket pair; the child runs
    ``run``. Call before any thread starts (the child would keep every lock another thread
    held). ``drop``: descriptors of this process the worker must not hold (the HTTP
    process's channel: the HTTP process must see it close when this process ends)."""
    ours, theirs = socket.socketpair()
    try:
        pid = os.fork()
        if pid == 0:
            _run_forked(run, theirs, [ours.detach(), *drop])
    except BaseException:
        ours.close()
        raise
    finally:
        theirs.close()
    children.forked(pid)
    return ForkedWorker(pid), Channel(ours, FROM_WORKER)


def _run_forked(run: RunWorker, sock: socket.socket, drop: list[int]) -> NoReturn:
    """The forked worker's life: what it must not hold closed, stdin from /dev/null (as the
    worker started with exec has it), then the worker until it ends."""
    code = 1
    try:
        for fd in drop:
            os.close(fd)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        code = run(sock)
    except BaseException as exc:  # noqa: BLE001 - the child must never return
        with contextlib.suppress(Exception):
            log.error("the collection worker failed", error=repr(exc)[:500])
    finally:
        os._exit(code)


class ReplacementBackoff(Backoff):
    """How long to wait before starting a replacement for a worker that ended: at once after
    the first exit, or after one that ran ``stable_after`` seconds; then the backoff's delays,
    from ``first`` doubling up to ``most``."""

    def __init__(self, first: float = 1.0, most: float = 60.0, stable_after: float = 60.0) -> None:
        super().__init__(first, most)
        self.stable_after = stable_after
        self._exited = False

    def after_exit(self, lived: float) -> float:
        """The delay after a worker that ran ``lived`` seconds."""
        if lived >= self.stable_after or not self._exited:
            self._exited = True
            self.reset()
            return 0.0
        return self.failed()


class RemoteCollector:
    """A collector the worker runs, as the main process holds it (``state``: its latest
    record), and a way to wake it (what the demo's control socket needs)."""

    def __init__(self, record: Collector, supervisor: WorkerSupervisor) -> None:
        self._record = record
        self._supervisor = supervisor

    @property
    def state(self) -> Collector:
        latest = self._supervisor.held.get(self._record.name)
        if latest is not None:
            self._record = latest
        return self._record

    def trigger(self) -> None:
        self._supervisor.trigger([self._record.name])


class WorkerSupervisor:
    """Runs the collection worker for ``cfg``, holds what it reports and relays that."""

    def __init__(
        self,
        cfg: Config,
        spawn: Spawn = spawn_worker,
        clock: Callable[[], float] = time.monotonic,
        backoff: ReplacementBackoff | None = None,
        wedged_after: float = WEDGED_AFTER,
    ) -> None:
        self.cfg = cfg
        self._spawn = spawn
        self._clock = clock
        self.backoff = backoff or ReplacementBackoff()
        self._wedged_after = wedged_after
        self.held = HeldCollectors()  # (without their data: the HTTP process serves that)
        self._lock = threading.Lock()  # the current worker
        # where what the worker reported goes on to (the HTTP process, zmon/runtime/front.py)
        self.relay: Relay | None = None
        self.on_tick: Callable[[], None] | None = None  # called about once a second
        self._reload_lock = threading.Lock()
        self._proc: WorkerProcess | None = None
        self._first: tuple[ForkedWorker, Channel] | None = None  # forked, not yet started
        self._channel: Channel | None = None
        self._heard = 0.0  # when the worker last said something, on ``clock``
        self._healthy = False
        self._stopping = threading.Event()
        # the worker's answers to start and reload; None when it ended
        self._replies: queue.Queue[Message | None] = queue.Queue()
        self.restarts = 0
        self.last_restart_delay: float | None = None
        self._threads = [
            threading.Thread(target=self._supervise, name="zmon-supervisor", daemon=True),
            threading.Thread(target=self._tick, name="zmon-tick", daemon=True),
        ]

    # -- the daemon's side -------------------------------------------------------------------

    def fork_first(self, run: RunWorker, drop: Sequence[int] = ()) -> None:
        """Fork the first worker now, before any thread starts (``fork_worker``); ``start``
        gives it its config. Only with the default spawn (a test's spawn starts its own)."""
        if self._spawn is spawn_worker and self._first is None and hasattr(os, "fork"):
            self._first = fork_worker(run, drop)

    def start(self, timeout: float = START_TIMEOUT) -> None:
        """Start the worker and wait until its collectors run (WorkerError if they cannot)."""
        for t in self._threads:
            t.start()
        try:
            reply = self._replies.get(timeout=timeout)
        except queue.Empty:
            reply = Started(f"the collection worker did not start within {timeout:g}s", False)
        if type(reply) is not Started or reply.error is not None:
            self.stop()
            error = reply.error if isinstance(reply, Started) else None
            raise WorkerError(f"collectors cannot start: {error or 'the worker ended'}")

    def reload(self, cfg: Config, timeout: float = RELOAD_TIMEOUT) -> None:
        """Move the worker to ``cfg``'s collectors; WorkerError (and the running collectors
        unchanged) if one of them cannot start. Without a worker running, the next one
        starts with ``cfg``."""
        with self._reload_lock:
            channel = self._channel
            if channel is None:
                self.cfg = cfg
                return
            self._drain_replies()
            reply: Message | None
            try:
                channel.send(Reload(cfg))
                reply = self._replies.get(timeout=timeout)
            except (Closed, queue.Empty):
                reply = None  # (the next worker starts with cfg)
            if isinstance(reply, Reloaded) and reply.error is not None:
                raise WorkerError(f"collectors cannot start: {reply.error}")
            self.cfg = cfg

    def trigger(self, names: list[str] | None = None) -> None:
        """Wake the named collectors (every one without names) for a run now."""
        channel = self._channel
        if channel is not None:
            with contextlib.suppress(Closed):
                channel.send(Trigger(tuple(names or ())))

    def collectors(self) -> dict[str, RemoteCollector]:
        return {name: RemoteCollector(c, self) for name, c in sorted(self.held.records().items())}

    def healthy(self) -> bool:
        """Whether a worker runs with every collector loop alive."""
        return self._channel is not None and self._healthy and not self._stopping.is_set()

    @property
    def pid(self) -> int | None:
        proc = self._proc
        return proc.pid if proc is not None and self._channel is not None else None

    def expect_stop(self) -> None:
        """zmon is stopping: a worker that ends from now on is not replaced (under systemd
        the worker gets the same SIGTERM as the main process, and may end first). Safe to call
        from a signal handler."""
        self._stopping.set()

    def stop(self) -> None:
        """Stop the worker (its collectors stop their commands), killing it if it lingers."""
        self._stopping.set()
        with self._lock:
            proc, channel = self._proc, self._channel
            first, self._first = self._first, None
        if first is not None:  # forked, never started: it ends when its channel closes
            first[1].close()
            _end(first[0], STOP_TIMEOUT)
        if channel is not None:
            with contextlib.suppress(Closed):
                channel.send(Stop())
        if proc is not None:
            _end(proc, STOP_TIMEOUT)
        for t in self._threads:
            if t.is_alive() and t is not threading.current_thread():
                t.join(STOP_TIMEOUT)
        children.sweep("zmon")  # what the worker's commands left, if it was killed

    # -- the worker's side -------------------------------------------------------------------

    def _supervise(self) -> None:
        while not self._stopping.is_set():
            started = self._clock()
            reason = self._serve_one()
            if self._stopping.is_set():
                return
            delay = self.backoff.after_exit(self._clock() - started)
            log.error(
                "collection worker ended; serving its last data as stale",
                reason=reason,
                restart_in=delay,
            )
            if self._stopping.wait(delay):
                return
            self.restarts += 1
            self.last_restart_delay = delay

    def _serve_one(self) -> str:
        """Run one worker until it ends; what ended it."""
        with self._lock:  # (as ``stop`` takes it)
            first, self._first = self._first, None
        try:
            proc, channel = first if first is not None else self._spawn()
        except OSError as exc:
            self._replies.put(Started(f"cannot start the collection worker: {exc}", False))
            return f"cannot start: {exc}"
        with self._lock:
            self._proc, self._heard = proc, self._clock()
        fault = None
        try:
            channel.send(Start(self.cfg, tuple(self.held.records().values())))
            with self._lock:
                self._channel = channel
            while True:
                self._take(*channel.recv_frame())
        except Closed:
            pass
        except ProtocolError as exc:
            fault = f"sent an invalid message ({exc})"
        except Exception as exc:  # noqa: BLE001 - whatever a message did, the worker goes
            fault = f"sent a message that could not be applied ({exc!r:.300})"
        if fault is not None:
            log.error("collection worker faulted; replacing it", fault=fault, pid=proc.pid)
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
        with self._lock:
            self._channel = None
            self._healthy = False
        channel.close()
        _end(proc, STOP_TIMEOUT)
        children.forget(proc)
        children.sweep("zmon")  # its commands, orphaned to us
        self._replies.put(None)
        reason = fault or _exit_reason(proc.returncode)
        if not self._stopping.is_set():
            self.held.orphan(reason)
            self._relay(Orphaned(reason))
        return reason

    def _take(self, message: Message, frame: bytes | None = None) -> None:
        self._heard = self._clock()
        if isinstance(message, Update):
            self.held.take(message)
            self._relay(message, frame)
        elif isinstance(message, Started):  # (and Reloaded)
            self._healthy = message.healthy
            self._replies.put(message)
        elif isinstance(message, Running):
            self.held.running(message)
            self._relay(message, frame)
        elif isinstance(message, Beat):
            self._healthy = message.healthy
        else:
            raise ProtocolError(f"unexpected message {type(message).__name__}")

    def _drain_replies(self) -> None:
        with contextlib.suppress(queue.Empty):
            while True:
                self._replies.get_nowait()

    def _relay(self, message: Message, frame: bytes | None = None) -> None:
        if self.relay is not None:
            self.relay(message, frame)

    def _tick(self) -> None:
        """About once a second: replace a worker that has stopped answering, then
        ``on_tick``."""
        while not self._stopping.wait(1.0):
            self._check_wedged()
            if self.on_tick is not None:
                self.on_tick()

    def _check_wedged(self) -> None:
        with self._lock:
            proc, channel = self._proc, self._channel
            silent = self._clock() - self._heard
        if channel is None or proc is None or silent < self._wedged_after:
            return
        log.error("collection worker stopped answering; replacing it", silent_seconds=silent)
        self._heard = self._clock()
        with contextlib.suppress(ProcessLookupError):
            proc.kill()  # the supervisor thread sees the channel close


def _end(proc: WorkerProcess, wait: float) -> None:
    """Wait for ``proc`` to exit; kill it if it does not within ``wait`` seconds."""
    try:
        proc.wait(wait)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        proc.wait()


def _exit_reason(code: int | None) -> str:
    if code is None:
        return "ended"
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"was killed by {signal.Signals(-code).name}"
        return f"was killed by signal {-code}"
    return f"exited with status {code}"
