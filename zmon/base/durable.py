"""State files that survive kill -9 and power cuts, and never stop zmon when they are bad.

``write_atomic`` writes a temporary file in the target's directory, fsyncs it, renames it
over the target and fsyncs the directory: after a crash at any point the target holds either
the old or the new content, whole. ``load_json`` reads a state file back; anything unusable
(missing, unreadable, not UTF-8, not JSON, nested too deep, too big, not an object) is
``None`` and the caller rebuilds its state. It never raises.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import stat
import threading
from pathlib import Path
from typing import Any

from zmon.base import children

# State files are a few hundred bytes; counters kept with a position (about 60 bytes per
# disk, pattern or class counted) stay far below this. Anything bigger was not written by zmon.
MAX_STATE_BYTES = 16 << 20


class FileOps:
    """The system calls ``write_atomic`` makes; tests substitute a simulated disk."""

    def open(self, path: str, flags: int, mode: int = 0o600) -> int:
        return os.open(path, flags, mode)

    def write(self, fd: int, data: bytes | memoryview) -> int:
        return os.write(fd, data)

    def fsync(self, fd: int) -> None:
        os.fsync(fd)

    def close(self, fd: int) -> None:
        os.close(fd)

    def replace(self, src: str, dst: str) -> None:
        os.replace(src, dst)

    def unlink(self, path: str) -> None:
        os.unlink(path)


SYSTEM = FileOps()


def write_atomic(
    path: Path | str, data: bytes, ops: FileOps = SYSTEM, owner: str | None = None
) -> None:
    """Replace ``path`` with ``data`` durably: write, fsync, rename, fsync the directory,
    creating the directory if it is missing.

    Raises OSError when it cannot (the old content is then left as it was). Either way the
    outcome is counted for ``owner`` (default: the collector running in this thread).
    """
    try:
        os.makedirs(os.path.dirname(os.fspath(path)) or ".", exist_ok=True)
        _write_atomic(path, data, ops)
    except OSError:
        record_write(False, owner)
        raise
    record_write(True, owner)


# State writes, by collector: failures since start, and whether the last one worked.
_lock = threading.Lock()
_failures: dict[str, int] = {}
_writable: dict[str, bool] = {}


def record_write(ok: bool, owner: str | None = None) -> None:
    """Count one attempt to write a state file (or to open the state directory)."""
    owner = owner or children.current_collector.get()
    with _lock:
        _writable[owner] = ok
        _failures[owner] = _failures.get(owner, 0) + (0 if ok else 1)


def write_outcome(owner: str) -> tuple[int, bool | None]:
    """(failed state writes since start, whether the last worked: None before any)."""
    with _lock:
        return _failures.get(owner, 0), _writable.get(owner)


def carry_failures(counts: dict[str, int]) -> None:
    """Count on from ``counts`` (a collection worker that replaces one that ended)."""
    with _lock:
        for owner, count in counts.items():
            if count:
                _failures[owner] = max(_failures.get(owner, 0), count)


def _write_atomic(path: Path | str, data: bytes, ops: FileOps) -> None:
    target = os.fspath(path)
    directory = os.path.dirname(target) or "."
    tmp = os.path.join(directory, f".{os.path.basename(target)}.{os.getpid()}.tmp")
    fd = ops.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[ops.write(fd, view) :]
            ops.fsync(fd)
        finally:
            ops.close(fd)
        ops.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            ops.unlink(tmp)
        raise
    fsync_directory(directory, ops)


def fsync_directory(directory: str, ops: FileOps = SYSTEM) -> None:
    """Make a rename in ``directory`` durable (not every file system supports it: ignored)."""
    try:
        dfd = ops.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            ops.fsync(dfd)
    finally:
        ops.close(dfd)


def write_json(
    path: Path | str, value: Any, ops: FileOps = SYSTEM, owner: str | None = None
) -> None:
    """``write_atomic`` of a JSON document (sorted keys, one trailing newline)."""
    data = (json.dumps(value, sort_keys=True) + "\n").encode("utf-8")
    write_atomic(path, data, ops, owner)


class UnusableState(Exception):
    """A state file exists but cannot be used; ``reason`` says why (for a warning)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def read_json(path: Path | str) -> dict[str, Any] | None:
    """The JSON object in ``path``; None when there is no file. Raises UnusableState otherwise.

    Bounded in size and depth: a hostile file (deeply nested, huge, binary) is just unusable.
    """
    try:
        # O_NONBLOCK: a FIFO put in its place must not hang start-up
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except (FileNotFoundError, NotADirectoryError):  # no such file (or no such directory)
        return None
    except OSError as exc:
        raise UnusableState(f"cannot read: {exc.strerror or exc}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise UnusableState("not a regular file")
        with os.fdopen(fd, "rb", closefd=False) as fh:
            raw = fh.read(MAX_STATE_BYTES + 1)
    except OSError as exc:
        raise UnusableState(f"cannot read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if len(raw) > MAX_STATE_BYTES:
        raise UnusableState(f"larger than {MAX_STATE_BYTES} bytes")
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise UnusableState("not UTF-8") from None
    except RecursionError:
        raise UnusableState("nested too deeply") from None
    except ValueError as exc:
        raise UnusableState(f"not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise UnusableState(f"expected a JSON object, got {type(data).__name__}")
    return data


def load_json(path: Path | str) -> dict[str, Any] | None:
    """``read_json`` that treats an unusable file like a missing one."""
    try:
        return read_json(path)
    except UnusableState:
        return None


# ---- checking the values read back (each raises TypeError or ValueError)


def checked_text(value: object) -> str:
    """``value`` if it is a string."""
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {type(value).__name__}")
    return value


def checked_count(value: object) -> int:
    """``value`` if it is an integer >= 0 (not a bool)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"expected a count, got {value!r}")
    return value


def checked_time(value: object) -> float:
    """``value`` as a float if it is a finite number (not a bool)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"expected a time, got {value!r}")
    return float(value)
