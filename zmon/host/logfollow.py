"""Follow a growing log file like ``tail -F``, losing no line and delivering none twice.

``FileFollower.poll`` reads what was appended since the last call and hands complete lines
(``str``, each ending in a newline) to a callback. It copes with:

- rotation by rename (``kern.log`` -> ``kern.log.1``): the old file is drained to its end
  through the descriptor zmon holds, and kept open a little while (the writer may still
  append), then the new file is read from 0;
- several rotations between two reads, or while zmon was stopped, whatever the copies are
  named and whether they were compressed: every copy is recognised (``zmon.host.rotation``)
  as one zmon read, the one it was reading, or one it never saw, which is read whole;
- deletion and re-creation: same as rename; a file that vanishes is waited for;
- copytruncate and truncation: detected by a shrinking size or a changed first block; the lines
  not yet read are recovered from the copy;
- a partial last line: held until its newline arrives (or the file is rotated away).

The position (device, inode, offset, fingerprint of the bytes read) and a mark of every
rotated copy already accounted for are saved atomically in a state directory, so a restart
resumes where the last run stopped. With no saved state, reading starts at the end.

What cannot be read is never silent: a gap that is certain (a held partial line whose file is
gone, a compressed copy cut short) counts in ``lines_lost`` and is logged with the files; a
file zmon was reading that is gone, so that how much of it was unread is unknown, counts as a
read error and is logged.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import os
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from zmon.base import logs
from zmon.host.follow import Follower, LineBuffer, LineSink
from zmon.host.rotation import (
    EMPTY_SHA,
    HEAD_LEN,
    Content,
    Mark,
    Rotated,
    RotationChain,
    crc_of,
    fingerprint,
    generation,
    head_sha,
    match,
)
from zmon.host.statestore import PositionStore

_log = logs.get("logfollow")

# marks of rotated copies kept in the state: far more than any rotation scheme keeps
MAX_COPIES = 512


@dataclass
class _OpenFile:
    fd: int
    dev: int
    ino: int
    offset: int
    crc: int = 0  # CRC-32 of bytes [0, offset)
    head_len: int = 0  # head_sha covers [0, head_len): the delivered bytes' first ones
    head_sha: str = EMPTY_SHA
    seen_len: int = 0  # seen_sha covers [0, seen_len): the first bytes seen, a held partial
    seen_sha: str = EMPTY_SHA  # line included, so a rewrite of a file not yet delivered shows
    last_growth: float = 0.0
    seen: int = 0  # bytes of the file seen so far, a held partial line included
    copied: bool = False  # a rotated file whose compressed copy was found (and is a mark)
    gen: int | None = None  # inode generation, where the file system keeps one

    def mark(self) -> Mark:
        return Mark(self.dev, self.ino, self.offset, self.crc, self.head_sha)


class FileFollower(Follower):
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
        super().__init__(store, key or f"file-{self.path}", where=str(self.path))
        self.on_lines = on_lines
        self.max_line = max_line
        self.chunk_size = max(chunk_size, max_line)
        self.retire_after = retire_after
        self.clock = clock
        self.lines_lost = 0  # rotated away or truncated before they could be read
        self._cur: _OpenFile | None = None
        self._retired: list[_OpenFile] = []
        self._copies: list[Mark] = []  # rotated copies read or there before zmon started
        self._missing = False
        self._initial = True
        self._saved = self._load_position()

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
            self._failed(exc)
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
        f = _OpenFile(fd, st.st_dev, st.st_ino, 0, last_growth=self.clock(), gen=generation(fd))
        done = 0
        saved, self._saved = self._saved, None
        if saved is not None and saved.get("path") == str(self.path):
            done += self._resume(f, saved)
        elif self._initial:
            f.offset = f.seen = _end_of_last_line(fd, st.st_size)
            f.crc = crc_of(fd, f.offset)
            chain = RotationChain.scan(self.path, [(f.dev, f.ino)])
            self._copies = [c.mark(rot) for rot, c, _ in match(chain.files, []).copies]
        self._initial = False
        self._missing = False
        self._cur = f
        self._update_head(f)
        return done

    def _resume(self, f: _OpenFile, saved: dict[str, Any]) -> int:
        """Restart: read what was added to the saved file and every copy rotated since."""
        size = os.fstat(f.fd).st_size
        live = Rotated(self.path, f.dev, f.ino, size, False, 0.0, 0)
        if "crc" not in saved or "copies" not in saved:
            return self._resume_older(f, saved, live)
        ours = _saved_mark(saved)
        if ours is None:
            _log.warning("kernel log position unusable; reading from the end", path=str(self.path))
            self._error(f"unusable saved position for {self.path}")
            f.offset = f.seen = _end_of_last_line(f.fd, size)
            f.crc = crc_of(f.fd, f.offset)
            return 0
        copies = [m for m in map(Mark.from_json, saved.get("copies") or []) if m is not None]
        live_content = fingerprint(live, [ours.size])
        seen = _int(saved, "seen")  # with a held partial line: the file may not shrink
        saved_gen = saved.get("gen")
        reused = f.gen is not None and isinstance(saved_gen, int) and f.gen != saved_gen
        same_inode = (f.dev, f.ino) == (ours.dev, ours.ino) and not reused
        unchanged = same_inode and live_content.continues(ours) and size >= seen
        if unchanged and f.gen is not None and f.gen == saved.get("gen"):
            self._resume_at(f, ours, seen)  # the very same file: the common restart
            self._copies = copies
            return 0
        # Otherwise a rotated copy that holds the saved bytes is the file zmon read (ext4
        # hands a deleted file's inode number to the next new file, and a disk that fails
        # the same way writes the same lines), and only then the live file.
        chain = RotationChain.scan(self.path, [(f.dev, f.ino)])
        pairing = match(chain.files, copies, ours)
        if ours in pairing.unpaired and unchanged:
            self._resume_at(f, ours, seen)
            return self._deliver_copies(pairing.copies, {})
        _log.info(
            "kernel log changed while zmon was stopped; reading what was rotated or "
            "rewritten since",
            path=str(self.path),
        )
        done = self._deliver_copies(pairing.copies, {})
        if ours in pairing.unpaired:
            if live_content.continues(ours) and not same_inode:
                # a copy put in its place (restored, moved between file systems): the same
                # bytes under a new inode, and no rotated copy holds them
                _log.warning(
                    "kernel log replaced by a copy of itself; resuming at the saved offset",
                    path=str(self.path),
                    offset=ours.size,
                )
                f.offset, f.crc = ours.size, ours.crc
                f.seen = f.offset
            else:
                self._gone(ours, _int(saved, "seen"), stopped=True)
        return done

    @staticmethod
    def _resume_at(f: _OpenFile, ours: Mark, seen: int) -> None:
        f.offset, f.crc = ours.size, ours.crc
        f.seen = max(f.offset, seen)

    def _resume_older(self, f: _OpenFile, saved: dict[str, Any], live: Rotated) -> int:
        """A position saved without the fingerprint and the copies: found by inode (and its
        first bytes) only; the copies there now are taken as read."""
        offset, head_len = _int(saved, "offset"), _int(saved, "head_len")
        chain = RotationChain.scan(self.path, [(f.dev, f.ino)])
        done = 0
        for rot in [*chain.files, live]:
            if rot.ino != saved.get("ino") or rot.packed or rot.size < offset:
                continue
            with rot.open() as fh:
                if hashlib.sha256(fh.read(head_len)).hexdigest() != saved.get("head_sha"):
                    continue
            if rot is live:
                f.offset = f.seen = offset
                f.crc = crc_of(f.fd, offset)
            else:
                with rot.open() as fh:
                    done += self._deliver_stream(fh, offset, rot.path)
            break
        else:
            self._gone(Mark(0, 0, offset, 0, EMPTY_SHA), _int(saved, "seen"), stopped=True)
        self._copies = [c.mark(rot) for rot, c, _ in match(chain.files, []).copies]
        return done

    def _open_marks(self) -> dict[Mark, _OpenFile]:
        """Rotated files zmon still reads through their descriptors, and not yet found
        compressed (then the compressed copy's mark stands for them)."""
        return {f.mark(): f for f in self._retired if not f.copied}

    def _deliver_copies(
        self, copies: list[tuple[Rotated, Content, Mark | None]], reading: dict[Mark, _OpenFile]
    ) -> int:
        """Deliver what is unread in rotated copies, oldest first, and remember them all."""
        done = 0
        keep: list[Mark] = []
        for rot, content, mark in copies:
            if mark is not None and mark in reading:
                f = reading[mark]  # a file zmon still reads through its descriptor
                if (rot.dev, rot.ino) != (f.dev, f.ino):
                    f.copied = True  # ... and its compressed copy
                    keep.append(content.mark(rot))
                continue
            if content.size:  # an empty copy has nothing to read twice or to lose
                keep.append(content.mark(rot))
            start = mark.size if mark is not None else 0
            if content.size > start:
                with contextlib.suppress(OSError):
                    with rot.open() as fh:
                        done += self._deliver_stream(fh, start, rot.path)
            if content.error is not None:
                self._lost(1, f"{rot.path.name} cannot be read to its end: {content.error}",
                           files=[str(rot.path)])  # fmt: skip
        self._copies = keep[-MAX_COPIES:]
        return done

    def _gone(self, ours: Mark, seen: int, stopped: bool) -> None:
        """The file zmon was reading is nowhere: what it held after ``ours`` is unreadable."""
        if seen > ours.size:  # a partial line was held: it is lost for sure
            self._lost(1, "the file was rotated or truncated before its last line ended",
                       files=[str(self.path)])  # fmt: skip
        if stopped:
            _log.warning(
                "kernel log rotated or truncated while zmon was stopped and no rotated "
                "copy of it was found; lines written after the last read may be lost",
                path=str(self.path),
                inode=ours.ino,
                offset=ours.size,
                copies=[str(r.path) for r in RotationChain.scan(self.path).files],
            )
            self._error(f"no rotated copy of {self.path} found")

    def _check_rewritten(self, f: _OpenFile) -> int:
        """Truncation (copytruncate, ``: > file``) or an in-place rewrite of the open file."""
        size = os.fstat(f.fd).st_size
        if size >= max(f.offset, f.seen) and head_sha(f.fd, f.seen_len) == f.seen_sha:
            return 0
        ours = f.mark()
        chain = RotationChain.scan(self.path, [(f.dev, f.ino)])
        reading = self._open_marks()
        pairing = match(chain.files, [*reading, *self._copies], ours)
        done = self._deliver_copies(pairing.copies, reading)
        if ours in pairing.unpaired:
            self._gone(ours, f.seen, stopped=False)
        f.offset = f.seen = f.head_len = f.seen_len = f.crc = 0
        f.head_sha = f.seen_sha = EMPTY_SHA
        return done

    def _check_rotated(self, f: _OpenFile) -> int:
        """Rename or delete: drain the old file into retirement and start the new one at 0."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            self._missing = True
            if self.clock() - f.last_growth >= self.retire_after:  # gone for good: let it go
                done = self._drain(f, final=True)
                self._let_go(f)
                self._cur = None
                return done
            return 0
        self._missing = False
        if (st.st_dev, st.st_ino) == (f.dev, f.ino):
            return 0
        f.last_growth = self.clock()
        self._retired.append(f)
        self._cur = None
        done = self._drain(f) + self._read_middle((st.st_dev, st.st_ino))
        done += self._open_path()
        if self._cur is not None:
            done += self._drain(self._cur)
        return done

    def _read_middle(self, live: tuple[int, int]) -> int:
        """After a rotation seen live: the copies rotated since the last look that zmon
        never read (several rotations between two reads)."""
        chain = RotationChain.scan(self.path, [live])
        reading = self._open_marks()
        pairing = match(chain.files, [*reading, *self._copies])
        return self._deliver_copies(pairing.copies, reading)

    def _drain_retired(self) -> int:
        done = 0
        now = self.clock()
        for f in list(self._retired):
            got = self._drain(f)
            done += got
            if got == 0 and now - f.last_growth >= self.retire_after:
                done += self._drain(f, final=True)
                self._retired.remove(f)
                self._let_go(f)
        return done

    def _let_go(self, f: _OpenFile) -> None:
        """Close a file read to its end; a copy of it found later is known to be read."""
        mark = _as_copy(f)
        os.close(f.fd)
        if not f.copied and mark.size:
            self._copies = [*self._copies, mark][-MAX_COPIES:]

    def _lost(self, lines: int, why: str, files: list[str]) -> None:
        self.lines_lost += lines
        _log.warning(
            "kernel log lines lost", path=str(self.path), lines=lines, reason=why, files=files
        )

    def _deliver_stream(self, fh: BinaryIO, offset: int, name: Path) -> int:
        """Deliver a finished file from ``offset`` to its end, in chunks of whole lines."""
        done, lines = 0, LineBuffer(self.max_line)
        try:
            fh.seek(offset)
            while chunk := fh.read(self.chunk_size):
                if whole := lines.feed(chunk):
                    self._deliver(whole)
                    done += len(whole)
        except (OSError, EOFError, zlib.error) as exc:
            if isinstance(exc, OSError) and not isinstance(exc, gzip.BadGzipFile):
                self._failed(exc)  # a cut or damaged compressed copy is not a read error
        if rest := lines.flush():
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
            f.crc = zlib.crc32(data[:cut], f.crc)
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
        want = min(HEAD_LEN, f.offset)
        if want > f.head_len:
            f.head_len, f.head_sha = want, head_sha(f.fd, want)
        want = min(HEAD_LEN, max(f.offset, f.seen))
        if want > f.seen_len:
            f.seen_len, f.seen_sha = want, head_sha(f.fd, want)

    # ---- state

    def _state(self, f: _OpenFile) -> dict[str, object]:
        copies = [*self._copies, *(_as_copy(f) for f in self._open_marks().values())]
        copies = [m for m in copies if m.size][-MAX_COPIES:]
        return {
            "path": str(self.path),
            "dev": f.dev,
            "ino": f.ino,
            "gen": f.gen,
            "offset": f.offset,
            "crc": f.crc,
            "head_len": f.head_len,
            "head_sha": f.head_sha,
            "seen": f.seen,
            "copies": [m.to_json() for m in copies],
        }

    def _save(self) -> None:
        if self.store is not None and self._cur is not None:
            self._save_position(self._state(self._cur))


def _as_copy(f: _OpenFile) -> Mark:
    """A file zmon reads, saved as a copy: with its mtime, so that after a restart a new file
    that reuses its inode is not taken for it (a longer one still continues it by content)."""
    m = f.mark()
    try:
        mtime_ns = os.fstat(f.fd).st_mtime_ns
    except OSError:
        return m
    return Mark(m.dev, m.ino, m.size, m.crc, m.head, False, mtime_ns)


def _saved_mark(saved: dict[str, Any]) -> Mark | None:
    """The mark of the file a saved position describes, or None when it is not usable."""
    offset, head_len = _int(saved, "offset"), _int(saved, "head_len")
    head = saved.get("head_sha")
    if head_len != min(HEAD_LEN, offset) or not isinstance(head, str):
        return None
    return Mark.from_json(
        [_int(saved, "dev"), _int(saved, "ino"), offset, _int(saved, "crc"), head, False, 0]
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


def _int(state: dict[str, Any], key: str) -> int:
    value = state.get(key, 0)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0
