"""Kernel message sources other than plain files: ``/dev/kmsg`` and ``journalctl -k -f``.

Both are ``zmon.host.follow.Follower``s, like ``logfollow.FileFollower``: ``poll()`` delivers
the messages that arrived since the last call as complete lines, ``read_errors``/``is_open``
report health, and the position (kmsg sequence number per boot, journal cursor) is saved in a
``StateStore`` or a ``Checkpoint``.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Callable
from pathlib import Path

from zmon.host.follow import Follower, LineBuffer, LineSink, RestartBackoff, SourceProgram
from zmon.host.statestore import PositionStore
from zmon.parsers.kernel_log import journal_message

_KMSG_READ = 16384  # larger than the kernel's biggest record (CONSOLE_EXT_LOG_MAX)


class KmsgFollower(Follower):
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
        super().__init__(store, key, where=str(self.path))
        self.on_lines = on_lines
        self.boot_id = boot_id
        self.max_records = max_records
        self._fd: int | None = None
        self._records = LineBuffer()
        self._skip_to = -1
        self._seq: int | None = None

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
            self._failed(exc)
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
        saved = self._load_position() if self._seq is None else None
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
            self._parse(self._records.lines(data), messages)
        if messages:
            self.on_lines("\n".join(messages) + "\n")
        return len(messages)

    def _parse(self, records: list[bytes], out: list[str]) -> None:
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
        if self._seq is not None:
            self._save_position({"boot_id": self.boot_id, "seq": self._seq})

    def _close_fd(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None
            self._records.flush()


class JournalFollower(Follower):
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
        super().__init__(store, key)
        self.binary = binary
        self.on_lines = on_lines
        self.clock = clock
        self.program = SourceProgram(
            self.argv,
            RestartBackoff(restart_delay, restart_delay, clock),
            env={"SYSTEMD_PAGER": ""},
            blocking=False,
        )
        self._records = LineBuffer()
        saved = self._load_position()
        cursor = saved.get("cursor") if saved else None
        self._cursor: str | None = cursor if isinstance(cursor, str) else None

    @property
    def is_open(self) -> bool:
        return self.program.running

    def argv(self) -> list[str]:
        start = ["--after-cursor", self._cursor] if self._cursor else ["-n", "0"]
        return [self.binary, "-k", "-f", "-o", "json", "--no-pager", *start]

    def poll(self) -> int:
        """Deliver what journalctl printed since the last call; messages delivered."""
        program = self.program
        if not program.launched and self.clock() >= program.retry_at and not program.launch():
            error = program.start_error
            assert error is not None
            self._error(f"cannot run {self.binary}: {error.strerror or error}")
        if not program.launched:
            return 0
        chunks = []
        while True:
            try:
                data = program.read(1 << 20)
            except BlockingIOError:
                break
            except OSError as exc:
                self._failed(exc)
                break
            if not data:
                break
            chunks.append(data)
        delivered = self._deliver(b"".join(chunks))
        if not program.running and not chunks:
            program.finish()
            self._records.flush()
            self._error(f"journalctl exited with status {program.last_exit}")
        self._save()
        return delivered

    def close(self) -> None:
        self.program.terminate(grace=2.0)
        self.program.finish()
        self._records.flush()
        self._save()

    def _deliver(self, data: bytes) -> int:
        messages = []
        for raw in self._records.lines(data):
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

    def _save(self) -> None:
        if self._cursor:
            self._save_position({"cursor": self._cursor})
