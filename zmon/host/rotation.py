"""Which rotated copies of a log were read, whatever they were renamed or compressed to.

A ``Mark`` says how far a file was read and what its bytes were up to there: device and
inode (while it stays the same file), the read length, the SHA-256 of its first bytes and the
CRC-32 of every byte up to the mark. ``RotationChain`` lists a log's rotated copies, oldest
first, and ``match`` pairs each copy with the mark it continues, if any:

1. the same device and inode (a rename, of a plain or a compressed copy), its first ``size``
   bytes unchanged;
2. else the same bytes, compressed or copied: a copy whose whole content equals a mark's;
3. else a copy whose content starts with a mark's bytes (the file zmon was reading, rotated
   and compressed after more lines were added).

Each mark pairs with one copy at most, so generations with identical content (a disk failing
the same way every day) are told apart by how many there are, not taken for each other. A copy
that pairs with no mark was rotated while zmon was not looking and is read whole.

The CRC-32 is resumable (``zlib.crc32(data, crc)``), so the fingerprint of everything read so
far costs nothing extra to keep and survives a restart; together with the length and the head's
SHA-256 it tells files apart that share their first bytes.
"""

from __future__ import annotations

import fcntl
import gzip
import hashlib
import os
import re
import stat
import struct
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, cast

HEAD_LEN = 256
EMPTY_SHA = hashlib.sha256(b"").hexdigest()
# a copy is read in pieces of this size to fingerprint it
_BLOCK = 1 << 20


@dataclass(frozen=True)
class Mark:
    """A file read up to ``size`` bytes: enough to recognise it under another name."""

    dev: int
    ino: int
    size: int
    crc: int  # CRC-32 of bytes [0, size)
    head: str  # SHA-256 of bytes [0, min(HEAD_LEN, size))
    # a rotated copy zmon found: compressed or not, and its mtime, which a rename keeps and a
    # new file that reuses a deleted copy's inode does not have. 0 for a file zmon reads.
    packed: bool = False
    mtime_ns: int = 0

    def to_json(self) -> list[object]:
        return [self.dev, self.ino, self.size, self.crc, self.head, self.packed, self.mtime_ns]

    @classmethod
    def from_json(cls, value: object) -> Mark | None:
        """A mark from its saved form, or None when the form is not one."""
        if not isinstance(value, list) or len(value) != 7:
            return None
        dev, ino, size, crc, head, packed, mtime_ns = value
        ints = (dev, ino, size, crc, mtime_ns)
        if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in ints):
            return None
        if not isinstance(head, str) or not re.fullmatch(r"[0-9a-f]{64}", head):
            return None
        if not isinstance(packed, bool):
            return None
        return cls(dev, ino, size, crc, head, packed, mtime_ns)

    def same_file(self, rot: Rotated) -> bool:
        """``rot`` is this very file (renamed at most)."""
        if (rot.dev, rot.ino, rot.packed) != (self.dev, self.ino, self.packed):
            return False
        return not self.mtime_ns or self.mtime_ns == rot.mtime_ns


@dataclass(frozen=True)
class Rotated:
    """One rotated copy of the followed log (plain or gzipped)."""

    path: Path
    dev: int
    ino: int
    size: int  # on disk; the content of a gzipped copy is longer
    packed: bool
    mtime: float
    mtime_ns: int = 0

    def open(self) -> BinaryIO:
        return open_binary(self.path, self.packed)


@dataclass
class Content:
    """What a copy holds: its length, CRC-32 and head, and the CRC-32 of its first bytes at
    every length asked for (to see whether it continues a mark); ``error`` when it could not
    be read to its end (a damaged or cut gzip)."""

    size: int
    crc: int
    head: str
    prefix_crcs: dict[int, int]
    error: str | None = None

    def mark(self, rot: Rotated) -> Mark:
        return Mark(rot.dev, rot.ino, self.size, self.crc, self.head, rot.packed, rot.mtime_ns)

    def continues(self, mark: Mark) -> bool:
        """The copy's first ``mark.size`` bytes are the marked ones."""
        return (
            self.size >= mark.size
            and self.prefix_crcs.get(mark.size) == mark.crc
            and _head_of(self, mark) == mark.head
        )


def _head_of(content: Content, mark: Mark) -> str:
    # a mark shorter than HEAD_LEN fingerprinted only its own bytes; its crc covers them all
    return content.head if mark.size >= HEAD_LEN else mark.head


def fingerprint(rot: Rotated, lengths: Iterable[int]) -> Content:
    """Read ``rot`` once: its length, CRC-32, head, and the CRC-32 at each of ``lengths``."""
    want = sorted({n for n in lengths if n >= 0})
    crcs: dict[int, int] = {}
    crc, size, head = 0, 0, b""
    error = None
    try:
        with rot.open() as fh:
            while True:
                block = fh.read(_BLOCK)
                if not block:
                    break
                if len(head) < HEAD_LEN:
                    head += block[: HEAD_LEN - len(head)]
                end = size + len(block)
                while want and want[0] <= end:
                    cut = want.pop(0)
                    crcs[cut] = zlib.crc32(block[: cut - size], crc)
                crc = zlib.crc32(block, crc)
                size = end
    except (OSError, EOFError, zlib.error) as exc:
        error = str(exc) or type(exc).__name__
    if 0 in want:
        crcs[0] = 0
    return Content(size, crc, hashlib.sha256(head).hexdigest(), crcs, error)


_NUMBERED = re.compile(r"^\.(\d+)(?:\.gz)?$")


class RotationChain:
    """Every rotated copy of a log, oldest first, whatever the names: ``.1``, ``.2.gz``,
    ``-20261201``, ``-20261201.gz``, ``.old`` ... (numbered: higher is older; dated: the name
    sorts; anything else by modification time). The order is only the order lines are
    delivered in; which copies are read is decided by ``match``, not by the order."""

    def __init__(self, files: list[Rotated]) -> None:
        self.files = files

    @classmethod
    def scan(cls, path: Path, exclude: Iterable[tuple[int, int]] = ()) -> RotationChain:
        """The copies next to ``path``, without the files (device, inode) in ``exclude``."""
        skip = set(exclude)
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
            if not stat.S_ISREG(st.st_mode) or (st.st_dev, st.st_ino) in skip:
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
            packed = name.endswith(".gz")
            rot = Rotated(
                cand, st.st_dev, st.st_ino, st.st_size, packed, st.st_mtime, st.st_mtime_ns
            )
            found.append((key, rot))
        numbered_ones = sorted(((k, r) for k, r in found if k[0] == 0), key=_sort_key)
        others = sorted(((k, r) for k, r in found if k[0] == 1), key=_sort_key)
        # numbered copies are older than the dated/other ones only when both exist (rare)
        return cls(
            [r for _, r in others] + [r for _, r in numbered_ones]
            if _dated_newer(numbered_ones, others)
            else [r for _, r in numbered_ones] + [r for _, r in others]
        )


def _sort_key(item: tuple[tuple[int, float, str], Rotated]) -> tuple[int, float, str, str]:
    key, rot = item
    return (*key, rot.path.name)


def _dated_newer(
    numbered: list[tuple[tuple[int, float, str], Rotated]],
    others: list[tuple[tuple[int, float, str], Rotated]],
) -> bool:
    if not numbered or not others:
        return False
    newest_numbered = max(r.mtime for _, r in numbered)
    return others[-1][0][1] < newest_numbered


@dataclass
class Pairing:
    """The outcome of ``match``: per copy (chain order) its content and the mark it
    continues (None: never read); marks that no copy continues."""

    copies: list[tuple[Rotated, Content, Mark | None]]
    unpaired: list[Mark]


def match(files: Sequence[Rotated], marks: Sequence[Mark], ours: Mark | None = None) -> Pairing:
    """Pair each copy with the mark it continues (see the module docstring for the rules).

    ``ours`` is the file zmon was reading when it last looked. Every copy rotated after it is
    new, so once it is found only the copies older than it can be ones zmon read before;
    among copies with the same bytes it is the oldest (generations that repeat each other
    leave nothing else to tell them apart, and the oldest leaves the most to read).
    """
    all_marks = [*marks, *([ours] if ours is not None else [])]
    lengths = {m.size for m in all_marks}
    contents = [fingerprint(rot, lengths) for rot in files]
    paired: list[Mark | None] = [None] * len(files)
    free = list(all_marks)

    def claim(i: int, m: Mark) -> None:
        paired[i] = m
        free.remove(m)

    for i, rot in enumerate(files):  # 1. the same file, renamed
        for m in free:
            if m.same_file(rot) and contents[i].continues(m):
                claim(i, m)
                break
    # A compressed copy is never compressed again: one that is no longer there was deleted,
    # and must not be taken for a new generation that has the same bytes.
    # A mark of nothing read (an empty file) fits any copy: only its inode can tell.
    gone = [m for m in free if m.packed or not m.size]
    free[:] = [m for m in free if not m.packed and m.size]
    limit = len(files)
    if ours is not None:
        if ours in free:
            for i in range(len(files)):
                if paired[i] is None and contents[i].continues(ours):
                    claim(i, ours)
                    break
        if ours in paired:
            limit = paired.index(ours)
        if ours in free:
            free.remove(ours)
            gone.append(ours)
    for i in range(limit):  # 2. the same bytes, copied or compressed
        if paired[i] is None:
            whole = (contents[i].size, contents[i].crc, contents[i].head)
            same = next((m for m in free if (m.size, m.crc, m.head) == whole), None)
            if same is not None:
                claim(i, same)
    for i in range(limit):  # 3. a copy that goes on after a mark: the longest one
        if paired[i] is None:
            fits = [m for m in free if contents[i].continues(m)]
            if fits:
                claim(i, max(fits, key=lambda m: m.size))
    return Pairing(list(zip(files, contents, paired, strict=True)), gone + free)


def open_binary(path: Path, packed: bool) -> BinaryIO:
    return cast(BinaryIO, gzip.open(path, "rb")) if packed else open(path, "rb")  # noqa: SIM115


def head_sha(fd: int, length: int) -> str:
    return hashlib.sha256(os.pread(fd, length, 0)).hexdigest() if length else EMPTY_SHA


# _IOR('v', 1, long): the inode's generation number, which ext4, XFS and btrfs change when a
# deleted file's inode number is given to a new file. ext4 reuses inode numbers at once, so a
# log deleted and re-created while zmon was stopped may get the same number back.
_FS_IOC_GETVERSION = 0x80087601


def generation(fd: int) -> int | None:
    """The inode generation of an open file, or None where the file system has none."""
    try:
        raw = fcntl.ioctl(fd, _FS_IOC_GETVERSION, bytes(8))
    except OSError:
        return None
    return int(struct.unpack_from("<I", raw)[0])


def crc_of(fd: int, length: int) -> int:
    """CRC-32 of the first ``length`` bytes of an open file."""
    crc, pos = 0, 0
    while pos < length:
        block = os.pread(fd, min(_BLOCK, length - pos), pos)
        if not block:
            break
        crc = zlib.crc32(block, crc)
        pos += len(block)
    return crc
