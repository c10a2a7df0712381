"""A long-lived child process whose stdout lines are handed to a callback, restarted on exit.

The child runs in its own process group (so stopping it also stops anything it spawned), with
``LC_ALL=C``, stdin from /dev/null and stderr to a temporary file (it can never fill a pipe
and block the child). After an exit it is restarted with exponential backoff; the backoff
resets once a child has lived longer than ``backoff_max``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Sequence

from zmon.base import children, logs

_log = logs.get("follower")


def _noop() -> None:
    pass


class ProcessFollower:
    """Runs ``argv`` and feeds each stdout line (decoded, newline kept) to ``on_line``.

    ``on_start`` runs before the first line of each new child, ``on_exit`` after it ended.
    Callbacks run on the follower's thread. ``stop()`` kills the process group and joins.
    """

    def __init__(
        self,
        argv: Sequence[str],
        on_line: Callable[[str], None],
        on_start: Callable[[], None] = _noop,
        on_exit: Callable[[], None] = _noop,
        backoff_initial: float = 1.0,
        backoff_max: float = 60.0,
        name: str = "follower",
    ) -> None:
        self.argv = list(argv)
        self._on_line = on_line
        self._on_start = on_start
        self._on_exit = on_exit
        self.backoff_initial = backoff_initial
        self.backoff_max = backoff_max
        self.name = name
        self.up = False
        self.starts = 0
        self.restarts = 0
        self.binary_missing = False
        self.last_exit: int | None = None
        self.last_stderr = ""
        self.start_error: OSError | None = None  # why the last start failed, if it did
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
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
        """Stop restarting, kill the child's process group, wait for the reader thread."""
        self._stop.set()
        with self._lock:
            proc = self._proc
        if proc is not None:
            _kill_group(proc, signal.SIGTERM)
            try:
                proc.wait(timeout=min(1.0, timeout))
            except subprocess.TimeoutExpired:
                _kill_group(proc, signal.SIGKILL)
        if self._thread is not None:
            self._thread.join(timeout)
        with self._activity:
            self._activity.notify_all()

    def wait_idle(self, timeout: float, quiet: float = 0.3) -> None:
        """Wait (at most ``timeout``) until a child printed something and then went quiet.

        Used once after start, so that the replayed history is read before the first report.
        A child that prints nothing (an empty event queue) costs the whole ``timeout``.
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
        delay = self.backoff_initial
        while not self._stop.is_set():
            started = time.monotonic()
            self._run_child()
            if self._stop.is_set():
                break
            if time.monotonic() - started > self.backoff_max:
                delay = self.backoff_initial
            _log.info(
                "follower exited; restarting",
                follower=self.name,
                exit=self.last_exit,
                stderr=self.last_stderr,
                delay=delay,
            )
            if self._stop.wait(delay):
                break
            delay = min(self.backoff_max, delay * 2)
            self.restarts += 1

    def _run_child(self) -> None:
        env = dict(os.environ, LC_ALL="C", LANG="C")
        try:
            err = tempfile.TemporaryFile()
        except OSError as exc:
            self.start_error, self.last_exit = exc, None
            self._notify()
            return
        with err:
            try:
                proc = children.spawn(
                    lambda: subprocess.Popen(
                        self.argv,
                        stdin=subprocess.DEVNULL,
                        stdout=subprocess.PIPE,
                        stderr=err,
                        env=env,
                        start_new_session=True,
                        close_fds=True,
                    )
                )
            except OSError as exc:
                # Only a program that is not there means "no data"; EACCES or EMFILE is a
                # failure (start_error), retried with backoff.
                self.binary_missing = isinstance(exc, FileNotFoundError)
                self.start_error = exc
                self.last_stderr = str(exc)
                self.last_exit = None
                self._notify()
                return
            with self._lock:
                self._proc = proc
                if self._stop.is_set():
                    _kill_group(proc, signal.SIGKILL)
            self.start_error = None
            self.up = True
            self._last_line = time.monotonic()
            self.starts += 1
            self._on_start()
            self._notify()
            try:
                assert proc.stdout is not None
                for raw in proc.stdout:
                    self._on_line(raw.decode("utf-8", "replace"))
                    self._last_line = time.monotonic()
                    self._lines += 1
                    self._notify()
            except Exception as exc:  # noqa: BLE001 - a callback bug must not kill the thread
                _log.error("follower callback failed", follower=self.name, error=str(exc))
                _kill_group(proc, signal.SIGKILL)
            finally:
                if proc.stdout is not None:
                    proc.stdout.close()
                proc.wait()
                children.forget(proc)
                self.up = False
                self.last_exit = proc.returncode
                err.seek(0)
                tail = err.read()[-500:].decode("utf-8", "replace").strip().splitlines()
                self.last_stderr = tail[-1] if tail else ""
                with self._lock:
                    self._proc = None
                self._on_exit()
                self._notify()

    def _notify(self) -> None:
        with self._activity:
            self._activity.notify_all()


def _kill_group(proc: subprocess.Popen[bytes], sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass
