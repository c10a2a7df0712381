"""Run external commands safely: argv only, LC_ALL=C, a timeout that kills the process group."""

from __future__ import annotations

import contextvars
import errno
import os
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, Protocol

from zmon.base import children

DEFAULT_TIMEOUT = 10.0
# Output beyond this (stdout + stderr) is a runaway tool, not data: it is killed, not buffered.
# `zpool status` of a thousand-disk host is a few MB.
MAX_OUTPUT = 64 << 20

# A run deadline set by the scheduler: no command started inside a collector run may outlive it.
run_deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "run_deadline", default=None
)


class CommandError(Exception):
    """A command could not be run, exited non-zero where that is an error, or timed out."""

    def __init__(
        self,
        message: str,
        result: CommandResult | None = None,
        errno: int | None = None,
        configured: bool = False,
    ) -> None:
        super().__init__(message)
        self.result = result
        self.errno = errno  # why the program could not be started (ENOENT, EACCES, EMFILE ...)
        self.configured = configured  # the program's path was configured, not the default


class CommandTimeout(CommandError):
    """A command ran past its timeout; its process group was killed."""


class OutputTooLarge(Exception):
    """A command printed more than the runner accepts."""


@dataclass(frozen=True)
class CommandResult:
    """What a finished command produced."""

    argv: tuple[str, ...]
    returncode: int
    stdout: bytes
    stderr: bytes
    duration: float
    timed_out: bool = False

    def check(self, ok_codes: Sequence[int] = (0,)) -> CommandResult:
        """Raise CommandError unless the exit code is one of ok_codes."""
        if self.timed_out:
            raise CommandTimeout(f"{self.argv[0]} timed out after {self.duration:.1f}s", self)
        if self.returncode not in ok_codes:
            err = self.stderr.decode("utf-8", "replace").strip().splitlines()
            tail = err[-1] if err else "no stderr"
            raise CommandError(f"{self.argv[0]} exited {self.returncode}: {tail}", self)
        return self


class Runner(Protocol):
    """What collectors use to run commands; tests and the demo host supply their own."""

    def run(
        self, argv: Sequence[str], *, timeout: float | None = None, stdin: bytes | None = None
    ) -> CommandResult: ...

    def binary(self, name: str) -> str: ...


@dataclass
class CommandRunner:
    """Runs commands as subprocesses in their own process group.

    ``binaries`` maps a logical name (``zpool``) to the path to run; names not in it run as is.
    """

    binaries: Mapping[str, str] = field(default_factory=dict)
    default_timeout: float = DEFAULT_TIMEOUT
    env: Mapping[str, str] | None = None
    max_output: int = MAX_OUTPUT
    _live: set[subprocess.Popen[bytes]] = field(default_factory=set, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def binary(self, name: str) -> str:
        return self.binaries.get(name, name)

    def _effective_timeout(self, timeout: float | None) -> float:
        limit = self.default_timeout if timeout is None else timeout
        deadline = run_deadline.get()
        if deadline is not None:
            limit = min(limit, max(0.0, deadline - time.monotonic()))
        return limit

    def run(
        self, argv: Sequence[str], *, timeout: float | None = None, stdin: bytes | None = None
    ) -> CommandResult:
        """Run argv (argv[0] resolved through ``binaries``) and return its result.

        Never raises for a non-zero exit; raises CommandError if the program cannot start.
        On timeout the whole process group gets SIGKILL and ``timed_out`` is set.
        """
        _check_argv(argv)
        args = [self.binary(argv[0]), *argv[1:]]
        limit = self._effective_timeout(timeout)
        start = time.monotonic()
        try:
            proc = start_process(
                args,
                stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=c_locale(self.env),
            )
        except OSError as exc:
            configured = args[0] != argv[0]
            named = f" (configured as binary.{argv[0]})" if configured else ""
            raise CommandError(
                f"cannot run {args[0]}{named}: {exc.strerror or exc}",
                errno=exc.errno,
                configured=configured,
            ) from exc
        with self._lock:
            self._live.add(proc)
        try:
            try:
                out, err = _communicate_bounded(proc, stdin, start + limit, self.max_output)
                timed_out = False
            except subprocess.TimeoutExpired:
                _kill_group(proc)
                out, err = _drain_after_kill(proc)
                timed_out = True
            except OutputTooLarge as exc:
                _kill_group(proc)
                _drain_after_kill(proc)
                result = CommandResult(
                    tuple(args), proc.returncode, b"", b"", time.monotonic() - start
                )
                raise CommandError(
                    f"{args[0]} printed more than {self.max_output} bytes; killed", result
                ) from exc
        finally:
            with self._lock:
                self._live.discard(proc)
            if proc.returncode is not None:
                children.forget(proc)
            children.sweep()  # anything it left behind (setsid escapes) is killed and counted
        return CommandResult(
            argv=tuple(args),
            returncode=proc.returncode,
            stdout=out or b"",
            stderr=err or b"",
            duration=time.monotonic() - start,
            timed_out=timed_out,
        )

    def kill_all(self) -> None:
        """Kill every process group this runner has running (used on shutdown)."""
        with self._lock:
            live = list(self._live)
        for proc in live:
            _kill_group(proc)


def _communicate_bounded(
    proc: subprocess.Popen[bytes], stdin: bytes | None, deadline: float, limit: int
) -> tuple[bytes, bytes]:
    """``communicate`` that gives up at ``deadline`` (TimeoutExpired) and after ``limit`` bytes
    of output (OutputTooLarge), instead of buffering whatever a runaway tool prints."""
    bufs: dict[int, list[bytes]] = {}
    out_fd = proc.stdout.fileno() if proc.stdout is not None else -1
    err_fd = proc.stderr.fileno() if proc.stderr is not None else -1
    total = 0
    with selectors.DefaultSelector() as sel:
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                sel.register(pipe, selectors.EVENT_READ)
                bufs[pipe.fileno()] = []
        pending = memoryview(stdin or b"")
        if proc.stdin is not None:
            if stdin:
                sel.register(proc.stdin, selectors.EVENT_WRITE)
            else:
                proc.stdin.close()
        while sel.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                raise subprocess.TimeoutExpired(proc.args, 0)
            for key, _ in sel.select(left):
                if key.fileobj is proc.stdin:
                    try:
                        pending = pending[os.write(key.fd, pending[:65536]) :]
                    except BrokenPipeError:
                        pending = memoryview(b"")
                    if not pending:
                        sel.unregister(key.fileobj)
                        proc.stdin.close()
                    continue
                chunk = os.read(key.fd, 1 << 16)
                if not chunk:
                    sel.unregister(key.fileobj)
                    continue
                bufs[key.fd].append(chunk)
                total += len(chunk)
                if total > limit:
                    raise OutputTooLarge()
    for pipe in (proc.stdout, proc.stderr):
        if pipe is not None:
            pipe.close()
    left = deadline - time.monotonic()
    if left <= 0:
        if proc.poll() is None:
            raise subprocess.TimeoutExpired(proc.args, 0)
    else:
        proc.wait(left)  # raises TimeoutExpired itself
    return b"".join(bufs.get(out_fd, ())), b"".join(bufs.get(err_fd, ()))


def _drain_after_kill(proc: subprocess.Popen[bytes]) -> tuple[bytes, bytes]:
    """Collect what a killed process wrote; give up if a stray descendant holds the pipes."""
    try:
        return proc.communicate(timeout=2.0)
    except subprocess.TimeoutExpired:
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
        proc.wait()
        return b"", b""


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL to the group and to the process itself (in case it left its group)."""
    signal_group(proc, signal.SIGKILL)
    try:
        proc.kill()
    except ProcessLookupError:
        pass


def c_locale(
    base: Mapping[str, str] | None = None, extra: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment a program runs in: ``base`` (this process's by default) and ``extra``,
    in the C locale, so that it prints what the parsers read."""
    env = {**(os.environ if base is None else base), **(extra or {})}
    env["LC_ALL"] = "C"
    env["LANG"] = "C"
    env.pop("LANGUAGE", None)
    return env


def start_process(
    argv: Sequence[str],
    *,
    stdin: int | IO[bytes],
    stdout: int | IO[bytes],
    stderr: int | IO[bytes],
    env: Mapping[str, str],
) -> subprocess.Popen[bytes]:
    """Start ``argv`` the way zmon starts every program: an argument list (never a shell
    string), in a session and process group of its own (``signal_group`` reaches all it
    starts), no descriptor inherited but the three given, registered with ``zmon.base.children``
    while it lives (so that what it leaves behind is swept). Raises OSError when it cannot."""
    _check_argv(argv)
    return children.spawn(
        lambda: subprocess.Popen(
            list(argv), stdin=stdin, stdout=stdout, stderr=stderr, env=env,
            start_new_session=True, close_fds=True,
        )
    )  # fmt: skip


def signal_group(proc: subprocess.Popen[bytes], sig: int) -> None:
    """Send ``sig`` to the process group of a program ``start_process`` started (nothing when
    it is gone)."""
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _check_argv(argv: Sequence[str]) -> None:
    if isinstance(argv, str | bytes):
        raise TypeError("argv must be a sequence of arguments, never a shell string")


# ---- a runner that answers from recorded outputs (tests, collector authors)

Response = bytes | str | CommandResult | Callable[[Sequence[str]], CommandResult]


@dataclass
class StaticRunner:
    """Answers ``run(argv)`` from a table keyed by the argv tuple (logical binary name first).

    A value may be bytes/str (stdout, exit 0), a CommandResult, or a callable taking argv.
    An argv with no entry raises CommandError, as a missing program would.
    """

    responses: Mapping[tuple[str, ...], Response] = field(default_factory=dict)
    calls: list[tuple[str, ...]] = field(default_factory=list)

    def binary(self, name: str) -> str:
        return name

    def run(
        self, argv: Sequence[str], *, timeout: float | None = None, stdin: bytes | None = None
    ) -> CommandResult:
        key = tuple(argv)
        self.calls.append(key)
        start = time.monotonic()
        if key not in self.responses:
            raise CommandError(
                f"cannot run {argv[0]}: no recorded output for {' '.join(key)}", errno=errno.ENOENT
            )
        resp = self.responses[key]
        if callable(resp) and not isinstance(resp, CommandResult):
            return resp(argv)
        if isinstance(resp, CommandResult):
            return resp
        data = resp.encode() if isinstance(resp, str) else resp
        return CommandResult(key, 0, data, b"", time.monotonic() - start)
