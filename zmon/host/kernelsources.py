"""Kernel message sources other than plain files: ``/dev/kmsg`` and ``journalctl -k -f``.

Both have the same shape as ``logfollow.FileFollower``: ``poll()`` delivers the messages that
arrived since the last call as complete lines, ``read_errors``/``is_open`` report health, and
the position (kmsg sequence number per boot, journal cursor) is saved in a ``StateStore`` or
a ``Checkpoint``.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from zmon.base import children
from zmon.host.statestore import PositionStore
from zmon.parsers.kernel_log import journal_message

LineSink = Callable[[str], None]
_KMSG_READ = 16384  # larger than the kernel's biggest record (CONSOLE_EXT_LOG_MAX)


class KmsgFollower:
    """Reads ``/dev/kmsg`` records (``pri,seq,usec,flags;message``) without blocking.

    First run: starts after the newest record. Restart in the same boot: resumes after the
    saved sequence number. After a reboot: reads the whole ring buffer (it is all new).
    """

    def __init__(
        self,
        path: Path,
        on_lines: LineSink,
        *,
        store: PositionStore | None = None,
        key: str = "kmsg",
        boot_id: str | None = None,
        max_records: int = 100_000,
    ) -> None:
        self.path = Path(path)
        self.on_lines = on_lines
        self.store = store
        self.key = key
        self.boot_id = boot_id
        self.max_records = max_records
        self.read_errors = 0
        self.last_error: str | None = None
        self._fd: int | None = None
        self._rest = b""
        self._skip_to = -1
        self._seq: int | None = None
        self._saved_seq: int | None = None

    @property
    def is_open(self) -> bool:
        return self._fd is not None

    def poll(self) -> int:
        """Deliver the records that arrived; returns how many messages were delivered."""
        try:
            if self._fd is None:
                self._open()
            return self._read() if self._fd is not None else 0
        except OSError as exc:
            self._error(exc.strerror or str(exc))
            self._close_fd()
            return 0
        finally:
            self._save()

    def close(self) -> None:
        self._save()
        self._close_fd()

    def _open(self) -> None:
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        except FileNotFoundError:
            return
        saved = self.store.load(self.key) if self.store and self._seq is None else None
        if self._seq is not None:
            self._skip_to = self._seq  # reopened after an error: continue after the last one
        elif saved is None or not isinstance(saved.get("seq"), int):
            os.lseek(fd, 0, os.SEEK_END)
        elif saved.get("boot_id") == self.boot_id:
            self._skip_to = saved["seq"]
        self._fd = fd

    def _read(self) -> int:
        assert self._fd is not None
        messages: list[str] = []
        for _ in range(self.max_records):
            try:
                data = os.read(self._fd, _KMSG_READ)
            except BlockingIOError:
                break
            except BrokenPipeError:  # records were overwritten before we read them
                self._error("kernel ring buffer overran; records lost")
                continue
            if not data:
                break
            self._parse(self._rest + data, messages)
        if messages:
            self.on_lines("\n".join(messages) + "\n")
        return len(messages)

    def _parse(self, data: bytes, out: list[str]) -> None:
        *records, self._rest = data.split(b"\n")
        for rec in records:
            if not rec or rec.startswith(b" "):
                continue  # the key=value dictionary lines that follow a record
            prefix, sep, msg = rec.partition(b";")
            if not sep:
                continue
            fields = prefix.split(b",")
            try:
                seq = int(fields[1])
            except (IndexError, ValueError):
                continue
            if seq <= self._skip_to:
                continue
            self._seq = seq
            out.append(msg.decode("utf-8", "replace"))

    def _save(self) -> None:
        if self.store is None or self._seq is None or self._seq == self._saved_seq:
            return
        try:
            self.store.save(self.key, {"boot_id": self.boot_id, "seq": self._seq})
            self._saved_seq = self._seq
        except OSError as exc:
            self._error(exc.strerror or str(exc))

    def _close_fd(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None
            self._rest = b""

    def _error(self, message: str) -> None:
        self.read_errors += 1
        self.last_error = f"{self.path}: {message}"


class JournalFollower:
    """Runs ``journalctl -k -f -o json`` and reads its output without blocking.

    Starts at the end (``-n 0``) on first run, after the saved cursor otherwise; restarts the
    process, after ``restart_delay`` seconds, if it exits.
    """

    def __init__(
        self,
        binary: str,
        on_lines: LineSink,
        *,
        store: PositionStore | None = None,
        key: str = "journal",
        restart_delay: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.binary = binary
        self.on_lines = on_lines
        self.store = store
        self.key = key
        self.restart_delay = restart_delay
        self.clock = clock
        self.read_errors = 0
        self.last_error: str | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._next_start = 0.0
        self._rest = b""
        saved = store.load(key) if store else None
        cursor = saved.get("cursor") if saved else None
        self._cursor: str | None = cursor if isinstance(cursor, str) else None
        self._saved_cursor = self._cursor

    @property
    def is_open(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def argv(self) -> list[str]:
        start = ["--after-cursor", self._cursor] if self._cursor else ["-n", "0"]
        return [self.binary, "-k", "-f", "-o", "json", "--no-pager", *start]

    def poll(self) -> int:
        """Deliver what journalctl printed since the last call; messages delivered."""
        if self._proc is None and self.clock() >= self._next_start:
            self._start()
        if self._proc is None or self._proc.stdout is None:
            return 0
        chunks = []
        while True:
            try:
                data = os.read(self._proc.stdout.fileno(), 1 << 20)
            except BlockingIOError:
                break
            except OSError as exc:
                self._error(exc.strerror or str(exc))
                break
            if not data:
                break
            chunks.append(data)
        delivered = self._deliver(b"".join(chunks))
        if self._proc.poll() is not None and not chunks:
            self._error(f"journalctl exited with status {self._proc.returncode}")
            self._stop_proc()
            self._next_start = self.clock() + self.restart_delay
        self._save()
        return delivered

    def close(self) -> None:
        self._stop_proc()
        self._save()

    def _start(self) -> None:
        env = {**os.environ, "LC_ALL": "C", "LANG": "C", "SYSTEMD_PAGER": ""}
        try:
            self._proc = children.spawn(
                lambda: subprocess.Popen(
                    self.argv(),
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                    env=env,
                    start_new_session=True,
                    close_fds=True,
                )
            )
        except OSError as exc:
            self._error(f"cannot run {self.binary}: {exc.strerror or exc}")
            self._next_start = self.clock() + self.restart_delay
            return
        assert self._proc.stdout is not None
        os.set_blocking(self._proc.stdout.fileno(), False)

    def _deliver(self, data: bytes) -> int:
        *lines, self._rest = (self._rest + data).split(b"\n")
        messages = []
        for raw in lines:
            try:
                rec = json.loads(raw)
            except (ValueError, RecursionError):
                continue
            if not isinstance(rec, dict):
                continue
            cursor = rec.get("__CURSOR")
            if isinstance(cursor, str):
                self._cursor = cursor
            msg = journal_message(rec)
            if msg is not None:
                messages.append(msg.replace("\n", " "))
        if messages:
            self.on_lines("\n".join(messages) + "\n")
        return len(messages)

    def _stop_proc(self) -> None:
        proc, self._proc = self._proc, None
        self._rest = b""
        if proc is None:
            return
        if proc.poll() is None:
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(2.0)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(OSError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        children.forget(proc)
        if proc.stdout is not None:
            proc.stdout.close()

    def _save(self) -> None:
        if self.store is None or not self._cursor or self._cursor == self._saved_cursor:
            return
        try:
            self.store.save(self.key, {"cursor": self._cursor})
            self._saved_cursor = self._cursor
        except OSError as exc:
            self._error(exc.strerror or str(exc))

    def _error(self, message: str) -> None:
        self.read_errors += 1
        self.last_error = message
