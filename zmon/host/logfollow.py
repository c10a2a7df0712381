"""Follow a growing log file like ``tail -F``, losing no line and delivering none twice.

``FileFollower.poll`` reads what was appended since the last call and hands complete lines
(``str``, each ending in a newline) to a callback. It copes with:

- rotation by rename (``kern.log`` -> ``kern.log.1``): the old file is drained to its end,
  and kept open a little while (the writer may still append), then the new file is read from 0;
- deletion and re-creation: same as rename; a file that vanishes is waited for;
- copytruncate and truncation: detected by a shrinking size or a changed first block; the lines
  not yet read are recovered from the rotated copy (``.1``, ``.0``, ``-DATE``, also gzipped)
  when one with the same first block exists;
- a partial last line: held until its newline arrives (or the file is rotated away).

The position (inode, offset, SHA-256 of the first block) is saved atomically in a state
directory, so a restart resumes where the last run stopped, and a rotation that happened
while stopped is recovered the same way. With no saved state, reading starts at the end.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import os
import re
import stat
import threading
import time
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, cast

from zmon import logs
from zmon.host.statestore import PositionStore

_log = logs.get("logfollow")

HEAD_LEN = 256
LineSink = Callable[[str], None]


@dataclass
class _OpenFile:
    fd: int
    ino: int
    offset: int
    head_len: int = 0
    head_sha: str = hashlib.sha256(b"").hexdigest()
    last_growth: float = 0.0
    seen: int = 0  # bytes of the file seen so far, a held partial line included


class FileFollower:
    """Follows one path; call ``poll()`` from one thread (the follower loop)."""

    def __init__(
        self,
        path: Path,
        on_lines: LineSink,
        *,
        store: PositionStore | None = None,
        key: str | None = None,
        max_line: int = 65536,
        chunk_size: int = 1 << 20,
        retire_after: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.path = Path(path)
        self.on_lines = on_lines
        self.store = store
        self.key = key or f"file-{self.path}"
        self.max_line = max_line
        self.chunk_size = max(chunk_size, max_line)
        self.retire_after = retire_after
        self.clock = clock
        self.read_errors = 0
        self.lines_lost = 0  # rotated away or truncated before they could be read
        self.last_error: str | None = None
        self._cur: _OpenFile | None = None
        self._retired: list[_OpenFile] = []
        self._missing = False
        self._initial = True
        self._saved = store.load(self.key) if store else None
        self._last_saved: dict[str, object] | None = self._saved

    @property
    def is_open(self) -> bool:
        """True while the path exists and is being followed."""
        return self._cur is not None and not self._missing

    def poll(self) -> int:
        """Deliver everything complete that was appended since the last poll; bytes read."""
        done = 0
        try:
            done += self._drain_retired()
            if self._cur is None:
                done += self._open_path()
            if self._cur is not None:
                done += self._check_rewritten(self._cur)
                done += self._drain(self._cur)
                done += self._check_rotated(self._cur)
        except OSError as exc:
            self._error(exc)
        self._save()
        return done

    def close(self) -> None:
        """Drain and close everything (a rotated file's last partial line included)."""
        with contextlib.suppress(OSError):
            for f in self._retired:
                self._drain(f, final=True)
            if self._cur is not None:
                self._drain(self._cur)
        self._save()
        for f in [*self._retired, *([self._cur] if self._cur else [])]:
            with contextlib.suppress(OSError):
                os.close(f.fd)
        self._retired, self._cur = [], None

    # ---- opening and restarting

    def _open_path(self) -> int:
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
        except FileNotFoundError:
            self._missing = True
            if self._saved is None:
                self._initial = False  # a file that appears later is all new
            return 0
        st = os.fstat(fd)
        f = _OpenFile(fd, st.st_ino, 0, last_growth=self.clock())
        done = 0
        saved, self._saved = self._saved, None
        if saved is not None and saved.get("path") == str(self.path):
            if _same_file(fd, st, saved):
                f.offset, f.head_len = int(saved["offset"]), int(saved["head_len"])
                f.head_sha = str(saved["head_sha"])
                f.seen = f.offset
            elif _same_content(fd, st, saved):
                # a copy put in its place (restored, edited, moved between file systems):
                # same first bytes, new inode. Resume at the offset, never read it twice.
                _log.warning(
                    "kernel log replaced by a copy of itself; resuming at the saved offset",
                    path=str(self.path),
                    offset=saved["offset"],
                )
                f.offset = f.seen = _int(saved, "offset")
            else:  # rotated, truncated or rewritten while zmon was not running
                _log.info(
                    "kernel log changed while zmon was stopped; reading what was "
                    "rotated or rewritten since",
                    path=str(self.path),
                )
                done += self._recover(saved, exclude_ino=st.st_ino)
        elif self._initial:
            f.offset = f.seen = _end_of_last_line(fd, st.st_size)
        self._initial = False
        self._missing = False
        self._cur = f
        self._update_head(f)
        return done

    def _check_rewritten(self, f: _OpenFile) -> int:
        """Truncation (copytruncate, ``: > file``) or an in-place rewrite of the open file."""
        size = os.fstat(f.fd).st_size
        if size >= max(f.offset, f.seen) and _head_sha(f.fd, f.head_len) == f.head_sha:
            return 0
        done = self._recover(self._state_of(f), exclude_ino=f.ino, live=True)
        f.offset = f.seen = f.head_len = 0
        f.head_sha = hashlib.sha256(b"").hexdigest()
        return done

    def _check_rotated(self, f: _OpenFile) -> int:
        """Rename or delete: drain the old file into retirement and start the new one at 0."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            self._missing = True
            if self.clock() - f.last_growth >= self.retire_after:  # gone for good: let it go
                done = self._drain(f, final=True)
                os.close(f.fd)
                self._cur = None
                return done
            return 0
        self._missing = False
        if st.st_ino == f.ino:
            return 0
        f.last_growth = self.clock()
        self._retired.append(f)
        self._cur = None
        done = self._drain(f) + self._recover_middle(f, st.st_ino)
        done += self._open_path()
        if self._cur is not None:
            done += self._drain(self._cur)
        return done

    def _drain_retired(self) -> int:
        done = 0
        now = self.clock()
        for f in list(self._retired):
            got = self._drain(f)
            done += got
            if got == 0 and now - f.last_growth >= self.retire_after:
                done += self._drain(f, final=True)
                self._retired.remove(f)
                os.close(f.fd)
        return done

    def _recover(self, state: dict[str, object], exclude_ino: int, live: bool = False) -> int:
        """Deliver the unread tail of the file ``state`` describes, from its rotated copy,
        then every file rotated after it (several rotations while zmon was not looking),
        oldest first. A copy that cannot be found is logged and counted as a read error; a
        line known to be lost (a held partial line) in ``lines_lost``."""
        offset = _int(state, "offset")
        chain = RotationChain.scan(self.path, exclude_ino)
        found = chain.find(state)
        if found is None:
            if _int(state, "seen") > offset:  # a partial line was held: it is lost for sure
                self._lost(1, "the file was rotated or truncated before its last line ended")
            if not live:  # while stopped: whatever came after the last read may be lost
                _log.warning(
                    "kernel log rotated or truncated while zmon was stopped and no "
                    "rotated copy of it was found; lines written after the last "
                    "read may be lost",
                    path=str(self.path),
                )
                self._error(OSError(f"no rotated copy of {self.path} found"))
            return 0
        done = 0
        with found.open() as fh:
            done += self._deliver_stream(fh, offset)
        done += self._deliver_later(chain, found)
        return done

    def _deliver_later(self, chain: RotationChain, found: Rotated) -> int:
        """Files rotated after ``found`` (never seen by zmon): deliver them whole."""
        done = 0
        for later in chain.after(found):
            try:
                with later.open() as fh:
                    done += self._deliver_stream(fh, 0)
            except OSError as exc:
                self._error(exc)
        return done

    def _recover_middle(self, old: _OpenFile, new_ino: int) -> int:
        """After a rotation seen live: files rotated between ``old`` and the current one."""
        chain = RotationChain.scan(self.path, new_ino)
        found = chain.find(self._state_of(old))
        return self._deliver_later(chain, found) if found is not None else 0

    def _lost(self, lines: int, why: str) -> None:
        self.lines_lost += lines
        _log.warning("kernel log lines lost", path=str(self.path), lines=lines, reason=why)

    def _deliver_stream(self, fh: BinaryIO, offset: int) -> int:
        """Deliver a finished file from ``offset`` to its end, in chunks of whole lines."""
        done, rest = 0, b""
        try:
            fh.seek(offset)
            while chunk := fh.read(self.chunk_size):
                data = rest + chunk
                cut = data.rfind(b"\n") + 1
                if cut == 0 and len(data) >= self.max_line:
                    cut = len(data)
                if cut:
                    self._deliver(data[:cut])
                    done += cut
                rest = data[cut:]
        except (OSError, EOFError, gzip.BadGzipFile) as exc:
            self._error(exc if isinstance(exc, OSError) else OSError(str(exc)))
        if rest:
            self._deliver(rest)
            done += len(rest)
        return done

    # ---- reading

    def _drain(self, f: _OpenFile, final: bool = False) -> int:
        """Read complete lines from f's offset; ``final`` also delivers a trailing partial line."""
        done = 0
        while True:
            data = os.pread(f.fd, self.chunk_size, f.offset)
            if not data:
                return done
            f.seen = max(f.seen, f.offset + len(data))
            at_eof = len(data) < self.chunk_size
            cut = data.rfind(b"\n") + 1
            if cut == 0:
                if len(data) >= self.max_line:
                    cut = self.max_line  # an absurdly long line: deliver it in pieces
                elif final and at_eof:
                    cut = len(data)
                else:
                    self._update_head(f)
                    return done  # hold the partial line until its newline arrives
            elif final and at_eof:
                cut = len(data)
            self._deliver(data[:cut])
            f.offset += cut
            f.last_growth = self.clock()
            done += cut
            self._update_head(f)
            if at_eof and cut == len(data):
                return done

    def _deliver(self, payload: bytes) -> None:
        """Hand over whole lines; a final piece without its newline is completed."""
        if not payload.endswith(b"\n"):
            payload += b"\n"
        self.on_lines(payload.decode("utf-8", "replace"))

    def _update_head(self, f: _OpenFile) -> None:
        want = min(HEAD_LEN, max(f.offset, f.seen))
        if want > f.head_len:
            f.head_len, f.head_sha = want, _head_sha(f.fd, want)

    # ---- state

    def _state_of(self, f: _OpenFile) -> dict[str, object]:
        return {
            "path": str(self.path),
            "ino": f.ino,
            "offset": f.offset,
            "head_len": f.head_len,
            "head_sha": f.head_sha,
            "seen": f.seen,
        }

    def _save(self) -> None:
        if self.store is None or self._cur is None:
            return
        state = self._state_of(self._cur)
        if state != self._last_saved:
            try:
                self.store.save(self.key, state)
                self._last_saved = state
            except OSError as exc:
                self._error(exc)

    def _error(self, exc: OSError) -> None:
        self.read_errors += 1
        self.last_error = f"{self.path}: {exc.strerror or exc}"


def _head_sha(fd: int, length: int) -> str:
    return hashlib.sha256(os.pread(fd, length, 0) if length else b"").hexdigest()


def _same_file(fd: int, st: os.stat_result, saved: dict[str, object]) -> bool:
    try:
        offset = int(saved["offset"])  # type: ignore[call-overload]
        head_len = int(saved["head_len"])  # type: ignore[call-overload]
    except (KeyError, TypeError, ValueError):
        return False
    if offset < 0 or not 0 <= head_len <= HEAD_LEN:
        return False
    return (
        saved.get("ino") == st.st_ino
        and 0 <= offset <= st.st_size
        and _head_sha(fd, head_len) == saved.get("head_sha")
    )


def _end_of_last_line(fd: int, size: int) -> int:
    """Offset just after the last newline: where a reader that starts "at the end" begins."""
    pos = size
    while pos > 0:
        start = max(0, pos - 65536)
        block = os.pread(fd, pos - start, start)
        cut = block.rfind(b"\n")
        if cut >= 0:
            return start + cut + 1
        pos = start
    return 0


def _int(state: dict[str, object], key: str) -> int:
    value = state.get(key, 0)
    return value if isinstance(value, int) and value >= 0 else 0


def _same_content(fd: int, st: os.stat_result, saved: dict[str, object]) -> bool:
    """A different inode that starts with the same bytes and is long enough: a copy."""
    head_len, offset = _int(saved, "head_len"), _int(saved, "offset")
    if not 0 < head_len <= HEAD_LEN or st.st_size < offset or saved.get("ino") == st.st_ino:
        return False
    return _head_sha(fd, head_len) == saved.get("head_sha")


@dataclass(frozen=True)
class Rotated:
    """One rotated copy of the followed log (plain or gzipped)."""

    path: Path
    ino: int
    size: int
    packed: bool
    mtime: float

    def open(self) -> BinaryIO:
        return _open_binary(self.path, self.packed)


_NUMBERED = re.compile(r"^\.(\d+)(?:\.gz)?$")


class RotationChain:
    """Every rotated copy of a log, oldest first, whatever the names: ``.1``, ``.2.gz``,
    ``-20261201``, ``-20261201.gz`` ... (numbered: higher is older; dated: the name sorts;
    anything else by modification time). Files are matched to a saved position by inode
    (plain copies) or by the SHA-256 of their first bytes (gzipped or copied ones)."""

    def __init__(self, files: list[Rotated]) -> None:
        self.files = files

    @classmethod
    def scan(cls, path: Path, exclude_ino: int) -> RotationChain:
        found: list[tuple[tuple[int, float, str], Rotated]] = []
        try:
            entries = list(path.parent.iterdir())
        except OSError:
            return cls([])
        for cand in entries:
            name = cand.name
            if not name.startswith(path.name) or name == path.name:
                continue
            suffix = name[len(path.name) :]
            if suffix[:1] not in (".", "-", "_"):
                continue
            try:
                st = cand.stat()
            except OSError:
                continue
            if not stat.S_ISREG(st.st_mode) or st.st_ino == exclude_ino:
                continue
            numbered = _NUMBERED.match(suffix)
            # sort key, oldest first: numbered copies by descending number, dated ones by
            # name (compressing changes the mtime, not the date in the name), others by mtime
            if numbered:
                key: tuple[int, float, str] = (0, -int(numbered.group(1)), "")
            elif any(c.isdigit() for c in suffix):
                key = (1, 0.0, name.removesuffix(".gz"))
            else:
                key = (1, st.st_mtime, name)
            found.append(
                (key, Rotated(cand, st.st_ino, st.st_size, name.endswith(".gz"), st.st_mtime))
            )
        numbered_ones = sorted((k, r) for k, r in found if k[0] == 0)
        others = sorted((k, r) for k, r in found if k[0] == 1)
        # numbered copies are older than the dated/other ones only when both exist (rare)
        return cls(
            [r for _, r in others] + [r for _, r in numbered_ones]
            if _dated_newer(numbered_ones, others)
            else [r for _, r in numbered_ones] + [r for _, r in others]
        )

    def find(self, state: dict[str, object]) -> Rotated | None:
        """The copy that is the file ``state`` describes, long enough to hold its offset."""
        head_len, offset = _int(state, "head_len"), _int(state, "offset")
        for rot in self.files:
            same_inode = rot.ino == state.get("ino") and not rot.packed
            if same_inode and rot.size >= offset:
                return rot
            if (
                head_len
                and _file_head_sha(rot, head_len) == state.get("head_sha")
                and (rot.packed or rot.size >= offset)
            ):
                return rot
        return None

    def after(self, rot: Rotated) -> list[Rotated]:
        """The copies rotated after ``rot``, oldest first."""
        idx = self.files.index(rot)
        return self.files[idx + 1 :]


def _dated_newer(
    numbered: list[tuple[tuple[int, float, str], Rotated]],
    others: list[tuple[tuple[int, float, str], Rotated]],
) -> bool:
    if not numbered or not others:
        return False
    try:
        newest_numbered = max(r.path.stat().st_mtime for _, r in numbered)
    except OSError:
        return False
    return others[-1][0][1] < newest_numbered


def _file_head_sha(rot: Rotated, length: int) -> str | None:
    try:
        with rot.open() as fh:
            head = fh.read(length)
    except (OSError, EOFError, gzip.BadGzipFile, zlib.error):
        return None
    return hashlib.sha256(head).hexdigest() if len(head) == length else None


def _open_binary(path: Path, packed: bool) -> BinaryIO:
    return cast(BinaryIO, gzip.open(path, "rb")) if packed else open(path, "rb")  # noqa: SIM115


# ---------------------------------------------------------------- change notification


class ChangeWatcher:
    """Wakes the follower loop when a watched file's directory changes (watchdog/inotify).

    If watchdog cannot watch (no inotify, limits reached, directory missing) the loop just polls.
    """

    def __init__(self, files: Iterable[Path], wake: threading.Event) -> None:
        self.files = [Path(f) for f in files]
        self.wake = wake
        self.active = False
        self._observer: object | None = None

    def start(self) -> bool:
        try:
            from watchdog.events import FileSystemEvent, FileSystemEventHandler
            from watchdog.observers import Observer
        except ImportError:
            return False
        names = tuple(f.name for f in self.files)
        wake = self.wake

        class _Handler(FileSystemEventHandler):
            def on_any_event(self, event: FileSystemEvent) -> None:
                for p in (event.src_path, getattr(event, "dest_path", "")):
                    base = os.path.basename(os.fsdecode(p)) if p else ""
                    if base.startswith(names):
                        wake.set()
                        return

        try:
            observer = Observer()
            for d in sorted({f.parent for f in self.files}):
                if d.is_dir():
                    observer.schedule(_Handler(), str(d), recursive=False)
            observer.daemon = True
            observer.start()
        except Exception:  # noqa: BLE001 - inotify limits and the like: fall back to polling
            return False
        self._observer, self.active = observer, True
        return True

    def stop(self) -> None:
        observer = self._observer
        if observer is not None:
            observer.stop()  # type: ignore[attr-defined]
            observer.join(2.0)  # type: ignore[attr-defined]
        self._observer, self.active = None, False


class PollLoop:
    """Runs ``step()`` in a daemon thread: after a wake-up, or every ``interval`` seconds, or
    sooner when ``step()`` returns the number of seconds after which it wants to run again."""

    def __init__(
        self,
        step: Callable[[], float | None],
        interval: float,
        name: str,
        wake: threading.Event | None = None,
        on_error: Callable[[Exception], None] | None = None,
        batch_delay: float = 0.05,
    ) -> None:
        self.step = step
        self.interval = interval
        self.wake = wake or threading.Event()
        self.on_error = on_error
        self.batch_delay = batch_delay
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self.wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def _run(self) -> None:
        while not self._stop.is_set():
            again = None
            try:
                again = self.step()
            except Exception as exc:  # noqa: BLE001 - keep following whatever one step did
                if self.on_error is not None:
                    self.on_error(exc)
            self.wake.wait(self.interval if again is None else min(self.interval, again))
            self.wake.clear()
            self._stop.wait(self.batch_delay)  # let a burst of writes land in one read
