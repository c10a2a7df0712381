"""Run external commands safely: argv only, LC_ALL=C, a timeout that kills the process group."""

from __future__ import annotations

import contextvars
import os
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

DEFAULT_TIMEOUT = 10.0

# A run deadline set by the scheduler: no command started inside a collector run may outlive it.
run_deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "run_deadline", default=None
)


class CommandError(Exception):
    """A command could not be run, exited non-zero where that is an error, or timed out."""

    def __init__(self, message: str, result: CommandResult | None = None) -> None:
        super().__init__(message)
        self.result = result


class CommandTimeout(CommandError):
    """A command ran past its timeout; its process group was killed."""


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
    _live: set[subprocess.Popen[bytes]] = field(default_factory=set, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def binary(self, name: str) -> str:
        return self.binaries.get(name, name)

    def _environment(self) -> dict[str, str]:
        env = dict(self.env) if self.env is not None else dict(os.environ)
        env["LC_ALL"] = "C"
        env["LANG"] = "C"
        env.pop("LANGUAGE", None)
        return env

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
        if isinstance(argv, str | bytes):
            raise TypeError("argv must be a sequence of arguments, never a shell string")
        args = [self.binary(argv[0]), *argv[1:]]
        limit = self._effective_timeout(timeout)
        start = time.monotonic()
        try:
            proc = subprocess.Popen(
                args,
                stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=self._environment(),
                start_new_session=True,
                close_fds=True,
            )
        except OSError as exc:
            raise CommandError(f"cannot run {args[0]}: {exc.strerror or exc}") from exc
        with self._lock:
            self._live.add(proc)
        try:
            try:
                out, err = proc.communicate(input=stdin, timeout=limit)
                timed_out = False
            except subprocess.TimeoutExpired:
                _kill_group(proc)
                out, err = _drain_after_kill(proc)
                timed_out = True
        finally:
            with self._lock:
                self._live.discard(proc)
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
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.kill()
    except ProcessLookupError:
        pass
