"""Following sources that grow: a program's output, the kernel ring buffer, a log file.

What every follower shares:

- ``Follower``: the shape the kernel-log loop polls (``FileFollower`` in ``zmon.host.logfollow``,
  ``KmsgFollower`` and ``JournalFollower`` in ``zmon.host.kernelsources``): ``poll()`` hands
  the complete lines that arrived to a callback; read errors are counted; the position is kept
  in a ``PositionStore`` and written only when it moved;
- ``LineBuffer``: bytes cut into whole lines, a partial last line held until its newline comes
  (or, past a bound, delivered in pieces);
- ``SourceProgram``: a program whose output is followed (``zpool events -f``,
  ``journalctl -f``), run as ``zmon.base.runner`` runs every program (an argument list, the C
  locale, a process group of its own that stopping it kills whole), and started again after a
  ``RestartBackoff`` when it exits;
- ``ProcessFollower``: a ``SourceProgram`` read on a thread of its own, each line handed to a
  callback as it comes.
"""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import IO, Any

from zmon.base import children, logs
from zmon.base.backoff import Backoff
from zmon.base.runner import c_locale, signal_group, start_process
from zmon.host.statestore import PositionStore

_log = logs.get("follower")

LineSink = Callable[[str], None]


class Follower:
    """A source polled from one thread: ``poll()`` delivers, as ``str`` lines each ending in a
    newline, what arrived since the last call; ``close()`` ends the following.

    Read errors are counted (``read_errors``, the last one in ``last_error``, prefixed with
    ``where`` when given); ``lines_lost`` counts lines known to be lost. The position is loaded
    from and saved to ``store`` under ``key``; a failed save counts as a read error.
    """

    lines_lost = 0

    def __init__(self, store: PositionStore | None, key: str, where: str | None = None) -> None:
        self.store = store
        self.key = key
        self.where = where
        self.read_errors = 0
        self.last_error: str | None = None
        self._written: dict[str, Any] | None = None

    @property
    def is_open(self) -> bool:
        """True while the source is being read."""
        raise NotImplementedError

    def poll(self) -> int:
        """Deliver what arrived since the last call; how much (lines or bytes) was read."""
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def _load_position(self) -> dict[str, Any] | None:
        """The saved position (None: none, or no store); it counts as written."""
        self._written = self.store.load(self.key) if self.store is not None else None
        return self._written

    def _save_position(self, state: dict[str, Any] | None) -> None:
        """Save ``state`` (None: nothing to save yet) unless it is the one last written."""
        if self.store is None or state is None or state == self._written:
            return
        try:
            self.store.save(self.key, state)
            self._written = state
        except OSError as exc:
            self._failed(exc)

    def _error(self, message: str) -> None:
        self.read_errors += 1
        self.last_error = f"{self.where}: {message}" if self.where else message

    def _failed(self, exc: OSError) -> None:
        self._error(exc.strerror or str(exc))


class LineBuffer:
    """Cuts a byte stream into whole lines: a partial last line is held until its newline
    arrives; one that reaches ``max_line`` bytes (when given) is delivered as it is."""

    def __init__(self, max_line: int | None = None) -> None:
        self.max_line = max_line
        self._rest = b""

    def feed(self, data: bytes) -> bytes:
        """The whole lines that ``data`` completes, each with its newline (maybe none)."""
        data = self._rest + data if self._rest else data
        cut = data.rfind(b"\n") + 1
        if cut == 0 and self.max_line is not None and len(data) >= self.max_line:
            cut = len(data)
        self._rest = data[cut:]
        return data[:cut]

    def lines(self, data: bytes) -> list[bytes]:
        """``feed``, as the lines without their newlines."""
        return self.feed(data).split(b"\n")[:-1]

    def flush(self) -> bytes:
        """The partial line held (the stream ended), which is then forgotten."""
        rest, self._rest = self._rest, b""
        return rest


class RestartBackoff(Backoff):
    """The wait before a program that exited is started again: the backoff's delays, from
    ``initial`` again once a run lasted longer than ``maximum``."""

    def __init__(
        self, initial: float, maximum: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        super().__init__(initial, maximum)
        self.clock = clock
        self._since = clock()

    def started(self) -> None:
        """A run begins (or its start is tried)."""
        self._since = self.clock()

    def ended(self) -> float:
        """The run ended (or could not start): the seconds to wait before the next one."""
        if self.clock() - self._since > self.maximum:
            self.reset()
        return self.failed()


class SourceProgram:
    """A program whose standard output is followed: started with ``launch()``, its output
    read with ``read()``, reaped with ``finish()`` once the output ends, ended for good by
    ``terminate()`` (from any thread).

    It runs with stdin from /dev/null and its stderr in a temporary file (it can never fill a
    pipe and block), of which the last line is kept. After a run ended or a start failed,
    ``retry_in`` seconds (from ``backoff``) must pass before the next, at ``retry_at`` on the
    backoff's clock.
    """

    def __init__(
        self,
        argv_of: Callable[[], Sequence[str]],
        backoff: RestartBackoff,
        *,
        env: Mapping[str, str] | None = None,
        blocking: bool = True,
    ) -> None:
        self.argv_of = argv_of  # the argv of the next run
        self.backoff = backoff
        self.env = dict(env or {})
        self.blocking = blocking
        self.up = False
        self.starts = 0
        self.binary_missing = False
        self.last_exit: int | None = None
        self.last_stderr = ""
        self.start_error: OSError | None = None  # why the last start failed, if it did
        self.retry_in = 0.0
        self.retry_at = float("-inf")
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._stderr: IO[bytes] | None = None
        self._stopped = False

    @property
    def running(self) -> bool:
        """A run was started and has not exited."""
        proc = self._proc
        return proc is not None and proc.poll() is None

    @property
    def launched(self) -> bool:
        """A run was started and not yet reaped by ``finish()``."""
        return self._proc is not None

    def launch(self) -> bool:
        """Start a run; False when it could not be (``start_error`` says why)."""
        self.backoff.started()
        try:
            stderr = tempfile.TemporaryFile()
        except OSError as exc:
            self.start_error, self.last_exit = exc, None
            self._ended()
            return False
        try:
            proc = start_process(
                self.argv_of(),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=stderr,
                env=c_locale(extra=self.env),
            )
        except OSError as exc:
            stderr.close()
            # Only a program that is not there means "no data"; EACCES or EMFILE is a
            # failure (start_error), retried with backoff.
            self.binary_missing = isinstance(exc, FileNotFoundError)
            self.start_error, self.last_stderr, self.last_exit = exc, str(exc), None
            self._ended()
            return False
        with self._lock:
            self._proc, self._stderr = proc, stderr
            if self._stopped:
                signal_group(proc, signal.SIGKILL)
        assert proc.stdout is not None
        if not self.blocking:
            os.set_blocking(proc.stdout.fileno(), False)
        self.start_error = None
        self.up = True
        self.starts += 1
        return True

    def read(self, size: int) -> bytes:
        """Up to ``size`` bytes of its output; b"" at its end. Without ``blocking``,
        BlockingIOError when nothing is there yet."""
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        return os.read(proc.stdout.fileno(), size)

    def kill(self) -> None:
        """Kill the running program's group at once (its output then ends)."""
        proc = self._proc
        if proc is not None:
            signal_group(proc, signal.SIGKILL)

    def finish(self) -> None:
        """After its output ended: reap it, keep its exit status and last stderr line, and
        set when the next run may start."""
        with self._lock:
            proc, stderr = self._proc, self._stderr
        if proc is None:
            return
        if proc.stdout is not None:
            proc.stdout.close()
        proc.wait()
        children.forget(proc)
        self.up = False
        self.last_exit = proc.returncode
        if stderr is not None:
            with stderr:
                stderr.seek(0)
                tail = stderr.read()[-500:].decode("utf-8", "replace").strip().splitlines()
            self.last_stderr = tail[-1] if tail else ""
        with self._lock:
            self._proc = self._stderr = None
        self._ended()

    def terminate(self, grace: float) -> None:
        """End it for good: SIGTERM to its group, SIGKILL after ``grace`` seconds; a run
        started meanwhile is killed at once. ``finish()`` still reaps it."""
        with self._lock:
            self._stopped = True
            proc = self._proc
        if proc is None or proc.poll() is not None:
            return
        signal_group(proc, signal.SIGTERM)
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            signal_group(proc, signal.SIGKILL)

    def _ended(self) -> None:
        self.retry_in = self.backoff.ended()
        self.retry_at = self.backoff.clock() + self.retry_in


def _noop() -> None:
    pass


class ProcessFollower(SourceProgram):
    """Runs ``argv`` on a thread of its own and feeds each line of its output (decoded, the
    newline kept) to ``on_line``; restarts it with backoff when it exits.

    ``on_start`` runs before the first line of each new run, ``on_exit`` after it ended.
    Callbacks run on the follower's thread. The backoff resets once a run lived longer than
    ``backoff_max``. ``stop()`` kills the process group and joins the thread.
    """

    def __init__(
        self,
        argv: Sequence[str],
        on_line: LineSink,
        on_start: Callable[[], None] = _noop,
        on_exit: Callable[[], None] = _noop,
        backoff_initial: float = 1.0,
        backoff_max: float = 60.0,
        name: str = "follower",
    ) -> None:
        self.argv = list(argv)
        super().__init__(lambda: self.argv, RestartBackoff(backoff_initial, backoff_max))
        self._on_line = on_line
        self._on_start = on_start
        self._on_exit = on_exit
        self.name = name
        self.restarts = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._last_line = 0.0
        self._lines = 0
        self._activity = threading.Condition()

    # ---- lifecycle ----

    def start(self) -> None:
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name=f"zmon-{self.name}", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop restarting, kill the program's process group, wait for the reader thread."""
        self._stop.set()
        self.terminate(grace=min(1.0, timeout))
        if self._thread is not None:
            self._thread.join(timeout)
        self._notify()

    def wait_idle(self, timeout: float, quiet: float = 0.3) -> None:
        """Wait (at most ``timeout``) until a run printed something and then went quiet.

        Used once after start, so that the replayed history is read before the first report.
        A program that prints nothing (an empty event queue) costs the whole ``timeout``.
        """
        deadline = time.monotonic() + timeout
        with self._activity:
            while True:
                now = time.monotonic()
                if now >= deadline or self._stop.is_set() or self.binary_missing:
                    return
                if self.starts and not self.up:
                    return  # it ran and exited
                if self._lines and now - self._last_line >= quiet:
                    return
                self._activity.wait(min(quiet, deadline - now))

    # ---- the reader thread ----

    def _run(self) -> None:
        while not self._stop.is_set():
            self._run_once()
            if self._stop.is_set():
                break
            _log.info(
                "follower exited; restarting",
                follower=self.name,
                exit=self.last_exit,
                stderr=self.last_stderr,
                delay=self.retry_in,
            )
            if self._stop.wait(self.retry_in):
                break
            self.restarts += 1

    def _run_once(self) -> None:
        if not self.launch():
            self._notify()
            return
        self._last_line = time.monotonic()
        lines = LineBuffer()
        try:
            self._on_start()
            self._notify()
            while data := self.read(65536):
                for line in lines.feed(data).decode("utf-8", "replace").split("\n")[:-1]:
                    self._line(line + "\n")
            if rest := lines.flush():
                self._line(rest.decode("utf-8", "replace"))
        except Exception as exc:  # noqa: BLE001 - a callback bug must not kill the thread
            _log.error("follower callback failed", follower=self.name, error=str(exc))
            self.kill()
        finally:
            self.finish()
            self._on_exit()
            self._notify()

    def _line(self, line: str) -> None:
        self._on_line(line)
        self._last_line = time.monotonic()
        self._lines += 1
        self._notify()

    def _notify(self) -> None:
        with self._activity:
            self._activity.notify_all()
