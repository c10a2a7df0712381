"""Nothing zmon starts outlives its run: a child subreaper and a sweep of escaped processes.

Killing a command's process group does not reach a descendant that called ``setsid`` (a
daemonizing helper, a misbehaving wrapper script): without more, one would be left running
after every run. ``become_subreaper`` makes zmon the Linux child subreaper
(``PR_SET_CHILD_SUBREAPER``), so such orphans are re-parented to zmon instead of init. Every
process zmon starts on purpose is registered while it lives (``spawn``); ``sweep`` kills and
reaps any other child, and counts it against the collector whose run was going on
(``zmon_child_processes_leaked_total``).

Two of zmon's processes are subreapers: the collection worker for what its commands leave,
and the main process for the commands of a worker that was killed (zmon/runtime/supervisor.py).

Without the subreaper (``zmon parse``, other platforms, tests) ``sweep`` still reaps what it
sees, but orphans go to init and cannot be seen.

Each of zmon's three processes runs ``Chores`` in its main loop: the sweep, and giving freed
memory back (zmon/base/memory.py), each when due.
"""

from __future__ import annotations

import contextlib
import contextvars
import ctypes
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, Protocol

from zmon.base import logs, memory

_log = logs.get("children")

PR_SET_CHILD_SUBREAPER = 36
TRIM_SECONDS = 10.0  # how often freed memory is given back
# How often to look for escapes of long-lived followers: a look reads a /proc file per
# thread, and a big host has dozens, so looking every loop turn would cost more than it finds.
# Commands' own escapes are swept as each command ends (zmon/base/runner.py).
SWEEP_SECONDS = 5.0

# The collector whose run is going on in this thread (set by the scheduler).
current_collector: contextvars.ContextVar[str] = contextvars.ContextVar(
    "current_collector", default="zmon"
)

_lock = threading.RLock()  # held while starting a process and while sweeping
_known: set[int] = set()
_leaked: dict[str, int] = {}
_unreaped: dict[int, str] = {}  # killed, not yet reaped (stuck in the kernel): retried
_subreaper = False


def become_subreaper() -> bool:
    """Make this process the subreaper of its descendants (Linux 3.4+). True if it is."""
    ok = set_subreaper(True)
    if not ok:
        _log.warning("cannot become child subreaper; escaped processes go to init")
    return ok


def set_subreaper(on: bool) -> bool:
    """Turn the subreaper role on or off; True when the call worked."""
    global _subreaper
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        ok = bool(libc.prctl(PR_SET_CHILD_SUBREAPER, 1 if on else 0, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        ok = False
    if ok:
        _subreaper = on
    return ok


def spawn(factory: Callable[[], subprocess.Popen[Any]]) -> subprocess.Popen[Any]:
    """Start a process with ``factory`` (a Popen call) and register it as wanted."""
    with _lock:
        proc = factory()
        _known.add(proc.pid)
    return proc


def forked(pid: int) -> None:
    """Register a child forked without ``spawn`` (``os.fork`` before any thread starts: it
    must not fork while ``spawn``'s lock is held, which the child would keep) as wanted."""
    with _lock:
        _known.add(pid)


def name_process(name: str) -> None:
    """Name this process (its ``comm``: what ``ps -o comm``, ``top`` and /proc/PID/comm
    show): zmon's three processes share one command line, and are told apart by it
    (``zmon-http``, ``zmon-worker``). Linux only; elsewhere nothing happens."""
    with contextlib.suppress(OSError), open("/proc/self/comm", "w") as fh:
        fh.write(name[:15])


class Child(Protocol):
    """A process zmon started (a ``Popen``, a forked worker): what ``forget`` reads of it."""

    pid: int


def forget(proc: Child) -> None:
    """The process was reaped (``wait`` returned): it no longer needs protecting."""
    with _lock:
        _known.discard(proc.pid)


def leaked(collector: str) -> int:
    """Processes found escaped from ``collector``'s runs, killed and reaped since start."""
    with _lock:
        return _leaked.get(collector, 0)


def carry_leaked(counts: dict[str, int]) -> None:
    """Count on from ``counts`` (a collection worker that replaces one that ended)."""
    with _lock:
        for collector, count in counts.items():
            _leaked[collector] = max(_leaked.get(collector, 0), count)


def sweep(owner: str | None = None) -> int:
    """Kill and reap every child that zmon did not start on purpose; count it for ``owner``
    (default: the collector running in this thread). Returns how many were found."""
    if not _subreaper and not _unreaped:
        return 0  # escaped processes went to init: nothing of theirs can be seen here
    owner = owner or current_collector.get()
    found = 0
    with _lock:
        for pid in _stray_children():
            found += 1
            _leaked[owner] = _leaked.get(owner, 0) + 1
            _log.warning(
                "killed a process that outlived its run",
                collector=owner,
                pid=pid,
                command=_cmdline(pid),
            )
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
            _unreaped[pid] = owner
        _reap()
    return found


def _reap(wait: float = 0.5) -> None:
    """Reap the killed processes, waiting up to ``wait`` for them to die (a pidfd where there
    is one); one stuck in the kernel is retried by the next sweep."""
    deadline = time.monotonic() + wait
    for pid in list(_unreaped):
        _wait_exit(pid, deadline)
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done = pid
        if done:
            del _unreaped[pid]


def _wait_exit(pid: int, deadline: float) -> None:
    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        while time.monotonic() < deadline and running(pid):
            time.sleep(0.001)
        return
    try:
        select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
    finally:
        os.close(fd)


def running(pid: int) -> bool:
    """Whether ``pid`` still runs: it exists and is not a zombie (exited, waiting for its
    parent to reap it) nor dead. The state follows the last ")" of /proc/PID/stat, since the
    command name before it may itself hold ")" or spaces."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2 :][:1] not in (b"Z", b"X")


def _stray_children() -> Iterator[int]:
    """Children not registered, and not in zmon's own session: a library's short-lived helper
    (started without a new session) is never taken for an escaped process."""
    me, my_session = os.getpid(), os.getsid(0)
    for pid, session in _children_of(me):
        if pid not in _known and pid not in _unreaped and session != my_session:
            yield pid


def _children_of(parent: int) -> list[tuple[int, int]]:
    """(pid, session id) of the children of ``parent``, our own process."""
    pids: set[int] = set()
    try:
        tasks = os.listdir(f"/proc/{parent}/task")
    except OSError:
        return []
    for task in tasks:
        try:
            with open(f"/proc/{parent}/task/{task}/children", "rb") as fh:
                pids.update(int(p) for p in fh.read().split())
        except (OSError, ValueError):
            continue
    out = []
    for pid in sorted(pids):
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue
        # pid (comm) state ppid pgrp session ...; comm may hold spaces and parentheses
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 3 and int(fields[1]) == parent:
            out.append((pid, int(fields[3])))
    return out


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read(200).replace(b"\0", b" ").decode("utf-8", "replace").strip()
    except OSError:
        return "?"


class Chores:
    """A process's periodic housekeeping, each chore when due: ``sweep`` and giving freed
    memory back (``memory.trim``)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._swept = self._trimmed = clock()

    def run_due(self) -> None:
        now = self._clock()
        if now - self._swept >= SWEEP_SECONDS:
            sweep("zmon")
            self._swept = now
        if now - self._trimmed >= TRIM_SECONDS:
            memory.trim()  # what finished runs freed goes back (zmon/base/memory.py)
            self._trimmed = now
