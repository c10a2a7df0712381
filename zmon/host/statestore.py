"""Small JSON state files (follower positions) in ``Paths.state_dir``, written durably.

One zmon process owns a state directory at a time (an advisory ``flock``): a second process
(``zmon collect --once`` beside the daemon) gets no store and so never moves the daemon's
positions.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
from pathlib import Path
from typing import Any

from zmon import durable, logs

_log = logs.get("state")


class StateStore:
    """Key -> JSON object, one file per key under ``directory``."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self._lock_fd: int | None = None

    @classmethod
    def open_locked(cls, directory: Path) -> StateStore | None:
        """A store that this process owns, or None (unwritable, or another process owns it)."""
        store = cls(directory)
        try:
            store.directory.mkdir(parents=True, exist_ok=True)
            fd = os.open(store.directory / ".lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError:
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return None
        store._lock_fd = fd
        return store

    def close(self) -> None:
        if self._lock_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._lock_fd)  # releases the flock
            self._lock_fd = None

    def path(self, key: str) -> Path:
        slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", key).strip("_.") or "state"
        return self.directory / f"{slug}.json"

    def load(self, key: str) -> dict[str, Any] | None:
        """The saved object, or None when there is none or it is unusable (then a warning:
        the caller starts afresh, it never stops)."""
        try:
            return durable.read_json(self.path(key))
        except durable.UnusableState as exc:
            _log.warning(
                "ignoring an unusable state file", path=str(self.path(key)), reason=exc.reason
            )
            return None

    def save(self, key: str, value: dict[str, Any]) -> None:
        """Write durably (temporary file, fsync, rename, fsync the directory)."""
        durable.write_json(self.path(key), value)
