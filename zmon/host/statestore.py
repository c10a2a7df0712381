"""Small JSON state files (follower positions) in ``Paths.state_dir``, written durably.

One zmon process owns a state directory at a time (an advisory ``flock``): a second process
(``zmon collect --once`` beside the daemon) gets no store and so never moves the daemon's
positions.

A ``Checkpoint`` keeps several followers' positions and what was counted from the lines before
them in one file, so that a crash at any moment leaves positions and counts that agree.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
from pathlib import Path
from typing import Any, Protocol

from zmon.base import durable, logs

_log = logs.get("state")


class PositionStore(Protocol):
    """Where a follower keeps its position: a ``StateStore`` or a ``Checkpoint``."""

    def load(self, key: str) -> dict[str, Any] | None: ...

    def save(self, key: str, value: dict[str, Any]) -> None: ...


class StateStore:
    """Key -> JSON object, one file per key under ``directory``."""

    def __init__(self, directory: Path, owner: str | None = None) -> None:
        self.directory = Path(directory)
        self.owner = owner  # whose state writes these are (zmon.base.durable counts them)
        self._lock_fd: int | None = None

    @classmethod
    def open_locked(cls, directory: Path, owner: str | None = None) -> StateStore | None:
        """A store that this process owns, or None (unwritable, or another process owns it).
        An unwritable directory counts as a failed state write of ``owner``."""
        store = cls(directory, owner)
        try:
            store.directory.mkdir(parents=True, exist_ok=True)
            fd = os.open(store.directory / ".lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError:
            durable.record_write(False, owner)
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
        durable.write_json(self.path(key), value, owner=self.owner)


CHECKPOINT_VERSION = 1


class Checkpoint:
    """Followers' positions and their owner's counts, written together as one state file.

    Followers ``save`` positions here as they read; nothing reaches the disk until the owner
    ``commit``s with the counts of every line before those positions. A crash therefore leaves
    either the previous commit or the new one, whole: positions and counts always agree, so a
    restart resumes counting exactly where the counts end (no line lost, none counted twice).

    Positions that earlier versions kept one file per follower (``file-*.json``, ``kmsg.json``
    ...) are read when the checkpoint has none for that key, and removed after the first
    commit, so that a later bad checkpoint can never fall back to an old position.
    """

    def __init__(self, store: StateStore, key: str = "checkpoint") -> None:
        self.store = store
        self.key = key
        doc = store.load(key) or {}
        positions = doc.get("positions")
        if doc and (doc.get("version") != CHECKPOINT_VERSION or not _all_objects(positions)):
            _log.warning(
                "ignoring a checkpoint of another version or shape",
                path=str(store.path(key)),
                version=doc.get("version"),
            )
            doc, positions = {}, {}
        self._positions: dict[str, dict[str, Any]] = dict(positions or {})
        counts = doc.get("counts")
        self.counts: dict[str, Any] = counts if isinstance(counts, dict) else {}
        self._legacy: set[str] = set()
        self._written: dict[str, Any] | None = doc or None

    def load(self, key: str) -> dict[str, Any] | None:
        """A follower's saved position: from the checkpoint, else from its own old file."""
        if key in self._positions:
            return self._positions[key]
        old = self.store.load(key)
        if old is not None:
            self._legacy.add(key)
        return old

    def save(self, key: str, value: dict[str, Any]) -> None:
        """Stage a follower's position; it is written by the next ``commit``."""
        self._positions[key] = value

    def commit(self, counts: dict[str, Any]) -> None:
        """Write the staged positions with ``counts`` durably (nothing when unchanged).

        Raises OSError when it cannot; the previous commit then stays on disk."""
        doc = {"version": CHECKPOINT_VERSION, "positions": self._positions, "counts": counts}
        if doc == self._written:
            return
        self.store.save(self.key, doc)
        self._written = {
            "version": CHECKPOINT_VERSION,
            "positions": {k: dict(v) for k, v in self._positions.items()},
            "counts": counts,
        }
        for key in sorted(self._legacy):
            with contextlib.suppress(OSError):
                os.unlink(self.store.path(key))
        self._legacy.clear()


def _all_objects(value: object) -> bool:
    return isinstance(value, dict) and all(
        isinstance(k, str) and isinstance(v, dict) for k, v in value.items()
    )
