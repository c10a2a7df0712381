"""The HTTP process: it listens, parses HTTP and serves the snapshot, and holds no privilege.

The privileged side (zmon/daemon.py) starts first, binds the listening sockets and forks this
process before any thread starts (no exec: the interpreter may live where the unprivileged user
cannot read it, and what is already imported is shared). With ``web.user`` set the child drops
to that user at once, with no capability and no_new_privs (zmon/runtime/privileges.py); without
it (zmon started as an ordinary user: tests, ``make demo``) the same tree runs without the drop.

The child learns everything over one socket pair (zmon/runtime/channel.py): the sockets to serve
and the web config with its TLS material already read (``Serve``, sockets as SCM_RIGHTS), the
worker's reports as the privileged side took them (``Update``, ``Running``, ``Orphaned``), the
worker's health and restarts (``Health``, about once a second) and the pools' last states for
the status page (``Pools``). It answers only ``Served``. It writes one file: its judged report,
in the one directory the privileged side made writable for it (zmon/status/published.py). It
ignores SIGTERM, SIGINT and SIGHUP: it stops when told to (``Stop``) or when the privileged side
is gone (the channel closes), so it never outlives it.
"""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import socket
import struct
import threading
import time
from collections.abc import Callable
from pathlib import Path

from zmon.base import children, logs, memory
from zmon.collecting.config import Config
from zmon.exposition.snapshot import Snapshot
from zmon.host.last_pools import LastPools
from zmon.runtime.channel import (
    FROM_FRONT,
    MAX_FRONT_FRAME,
    TO_FRONT,
    Channel,
    Closed,
    Health,
    HeldCollectors,
    Message,
    Orphaned,
    Pools,
    ProtocolError,
    Running,
    Serve,
    Served,
    Stop,
    Update,
)
from zmon.runtime.privileges import Account, drop_to
from zmon.status.published import Publisher
from zmon.web.webconfig import WebConfig

log = logs.get("front")

SERVE_TIMEOUT = 30.0  # for the HTTP process to start serving new sockets
STOP_TIMEOUT = 15.0  # for it to stop serving when told to, before it is killed
# An HTTP process that takes nothing from the channel for this long is killed (zmon then
# stops): the collecting side never waits on it for longer.
SEND_TIMEOUT = 30.0
# /healthz fails when the privileged side has not said the worker answers for this long
# (it says so about once a second; zmon.daemon.SILENT_DEADLINE bounds the worker's silence)
HEALTH_DEADLINE = 15.0


class FrontProcess:
    """The privileged side's handle on the HTTP process: it forks it, hands it sockets and
    web configs, and relays the worker's updates to it."""

    def __init__(
        self,
        cfg: Config,
        user: Account | None,
        on_exit: Callable[[], None],
        status_file: Path | None = None,
    ) -> None:
        self.cfg = cfg
        self.user = user
        self.status_file = status_file  # where it publishes its judged report
        self.pid: int | None = None
        self._channel: Channel | None = None
        self._replies: queue.Queue[Served | None] = queue.Queue()
        self._on_exit = on_exit
        self._stopping = False
        self._serve_lock = threading.Lock()
        self._reader: threading.Thread | None = None

    def fork(self) -> None:
        """Start the HTTP process (OSError if it cannot be forked). Call before any thread
        starts: the child keeps only the thread that forked."""
        # what is imported and configured now stays out of the collector's reach in both
        # processes, so that neither writes those pages just to scan them: they stay shared
        memory.settle_gc()
        memory.trim()
        ours, theirs = socket.socketpair()
        pid = os.fork()
        if pid == 0:  # the HTTP process
            ours.close()
            children.name_process("zmon-http")
            code = 1
            try:
                channel = Channel(theirs, TO_FRONT)
                code = _run(channel, self.cfg, self.user, self.status_file)
            except BaseException as exc:  # noqa: BLE001 - the child must never return
                with contextlib.suppress(Exception):
                    log.error("the HTTP process failed", error=repr(exc)[:500])
            finally:
                os._exit(code)
        theirs.close()
        self.pid = pid
        seconds = int(SEND_TIMEOUT)
        ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, struct.pack("ll", seconds, 0))
        self._channel = Channel(ours, FROM_FRONT, max_frame=MAX_FRONT_FRAME)

    def channel_fd(self) -> int:
        """This process's end of the channel to the HTTP process (after ``fork``)."""
        assert self._channel is not None, "the HTTP process is not forked yet"
        return self._channel.fileno()

    def start_reader(self) -> None:
        """Read what the HTTP process says (threads may start from here on)."""
        self._reader = threading.Thread(target=self._read, name="zmon-front", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        channel = self._channel
        assert channel is not None
        fault = None
        try:
            while True:
                message = channel.recv()
                assert isinstance(message, Served)
                self._replies.put(message)
        except Closed:
            pass
        except ProtocolError as exc:
            fault = str(exc)
        self._replies.put(None)
        if self._stopping:
            return
        if fault is not None:
            log.error("the HTTP process sent an invalid message; stopping zmon", fault=fault)
            self._kill()
        else:
            log.error("the HTTP process ended; stopping zmon", how=self._ended())
        self._on_exit()

    def _ended(self) -> str:
        """How the HTTP process ended ("exit code 1", "signal 9"), reaping it; waits up to a
        second for it to be gone once its end of the channel closed."""
        pid = self.pid
        if pid is None:
            return "unknown"
        status = _reaped(pid, 1.0)
        if status is None:
            return "still running"
        self.pid = None
        if os.WIFSIGNALED(status):
            return f"signal {os.WTERMSIG(status)}"
        return f"exit code {os.waitstatus_to_exitcode(status)}"

    def serve(self, addresses: list[str], sockets: list[socket.socket], web: WebConfig) -> None:
        """Have the HTTP process serve ``sockets`` (bound to ``addresses``) with ``web``;
        OSError if it cannot (it then goes on serving what it served)."""
        with self._serve_lock:
            channel = self._channel
            if channel is None:
                raise OSError(0, "the HTTP process is not running")
            with contextlib.suppress(queue.Empty):
                while True:
                    self._replies.get_nowait()
            try:
                channel.send(Serve(tuple(addresses), web), fds=[s.fileno() for s in sockets])
                reply = self._replies.get(timeout=SERVE_TIMEOUT)
            except Closed:
                reply = None
            except queue.Empty:
                raise OSError(0, "the HTTP process did not answer") from None
            if reply is None:
                raise OSError(0, "the HTTP process ended")
            if reply.error is not None:
                raise OSError(0, reply.error)

    def relay(self, message: Message, frame: bytes | None = None) -> None:
        """Pass on a message (as ``frame`` when it came in one, checked). One the HTTP process
        does not take within SEND_TIMEOUT (a frame may be cut short) ends it; the reader then
        sees it gone."""
        channel = self._channel
        if channel is not None:
            try:
                if frame is not None:
                    channel.send_frame(frame)
                else:
                    channel.send(message)
            except Closed:
                if not self._stopping:
                    self._kill()

    def stop(self) -> None:
        """Tell the HTTP process to stop (its connections get up to 5 s), and reap it."""
        self._stopping = True
        channel, pid = self._channel, self.pid
        if channel is not None:
            with contextlib.suppress(Closed):
                channel.send(Stop())
        if pid is not None:
            if _reaped(pid, STOP_TIMEOUT) is None:
                self._kill()
                os.waitpid(pid, 0)
            self.pid = None
        if channel is not None:
            channel.close()
            self._channel = None
        if self._reader is not None and self._reader is not threading.current_thread():
            self._reader.join(5.0)

    def _kill(self) -> None:
        if self.pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)


def _waitpid(pid: int) -> tuple[int, int]:
    try:
        return os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return pid, 0


def _reaped(pid: int, seconds: float) -> int | None:
    """The wait status of ``pid`` once it has ended, reaped, waiting up to ``seconds``; None
    if it still runs then."""
    deadline = time.monotonic() + seconds
    while True:
        done, status = _waitpid(pid)
        if done:
            return status
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.02)


# -- the HTTP process ---------------------------------------------------------------------


def _run(channel: Channel, cfg: Config, user: Account | None, status_file: Path | None) -> int:
    """The HTTP process's life: drop, then serve what the privileged side says until Stop."""
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
    front = Front(channel, cfg, status_file=status_file)
    if user is not None:
        _import_what_serving_needs()
        drop_to(user)  # PrivilegeError: exit, and the privileged side stops zmon
    try:
        return front.run()
    finally:
        front.close()


def _import_what_serving_needs() -> None:
    """Import now, while still root, what serving imports on first use: the code may live
    where the dropped user cannot read it (a 0700 virtualenv)."""
    import importlib

    from zmon.web.webapp import landing_page

    landing_page(Snapshot(), "zmon")  # the status page's modules
    for name in ("bcrypt", "uvicorn.protocols.http.httptools_impl", "uvicorn.loops.asyncio"):
        with contextlib.suppress(ImportError):
            importlib.import_module(name)


class Front:
    """The HTTP process's state: the snapshot it serves, of what the privileged side sent."""

    def __init__(
        self,
        channel: Channel,
        cfg: Config,
        clock: Callable[[], float] = time.monotonic,
        status_file: Path | None = None,
    ):
        from zmon.health.conditions import INTERVAL
        from zmon.web.server import HTTPFrontend, make_app

        self.channel = channel
        self.clock = clock
        self.snapshot = Snapshot()
        self.snapshot.worker_restarts = 0
        self.held = HeldCollectors(self.snapshot)
        self.health = Health(False, 0)
        self.heard = clock()
        self.last_pools: LastPools | None = None
        self._dirty = threading.Event()
        self._stopping = threading.Event()
        # the judged report for ``zmon status`` on this host (zmon/status/published.py)
        self.publisher = Publisher(status_file, INTERVAL) if status_file is not None else None
        self.server = HTTPFrontend(
            lambda w: make_app(
                self.snapshot,
                self.healthy,
                web=w,
                last_pools=lambda: self.last_pools,
                publish=self.publisher,
            ),
            max_connections=cfg.max_connections,
            read_timeout=cfg.read_timeout,
            idle_timeout=cfg.idle_timeout,
        )
        self._render = threading.Thread(target=self._render_loop, name="zmon-render", daemon=True)

    def healthy(self) -> bool:
        return self.health.answering and self.clock() - self.heard <= HEALTH_DEADLINE

    def run(self) -> int:
        memory.settle_gc()
        self._render.start()
        while True:
            try:
                message = self.channel.recv()
            except Closed:
                return 0  # the privileged side is gone
            if isinstance(message, Stop):
                return 0
            self.take(message)

    def take(self, message: Message) -> None:
        if isinstance(message, Serve):
            self._serve(message)
        elif isinstance(message, Update):
            self.held.take(message)
            self._dirty.set()
        elif isinstance(message, Running):
            self.held.running(message)
        elif isinstance(message, Orphaned):
            self.held.orphan(message.reason)
            self._dirty.set()
        elif isinstance(message, Health):
            self.heard = self.clock()
            if message.restarts != self.snapshot.worker_restarts:
                self.snapshot.worker_restarts = message.restarts
                self._dirty.set()
            self.health = message
        elif isinstance(message, Pools):
            self.last_pools = message.last

    def _serve(self, message: Serve) -> None:
        fds = self.channel.recv_fds(len(message.addresses))
        sockets = {}
        error = None
        try:
            for address, fd in zip(message.addresses, fds, strict=True):
                sockets[address] = socket.socket(fileno=fd)
            self.server.serve_sockets(sockets, message.web)
        except Exception as exc:  # noqa: BLE001 - said back, the old generation serves on
            error = str(exc)[:1000] or type(exc).__name__
        finally:
            for sock in sockets.values():
                sock.close()  # (each generation serves its own duplicates)
            for fd in fds[len(sockets) :]:
                os.close(fd)
        self.channel.send(Served(error))

    def _render_loop(self) -> None:
        chores = children.Chores()
        while not self._stopping.is_set():
            self._dirty.wait(1.0)
            if self._stopping.is_set():
                return
            if self._dirty.is_set() or self.snapshot.staleness_changed():
                self._dirty.clear()
                self.snapshot.rerender()
            chores.run_due()

    def close(self) -> None:
        self._stopping.set()
        self._dirty.set()
        self.server.stop()
        if self._render.is_alive():
            self._render.join(5.0)
        if self.publisher is not None:
            self.publisher.withdraw()
