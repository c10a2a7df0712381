"""One gzip stream from pieces compressed separately, so a change recompresses only its piece.

zmon serves a pre-rendered exposition, plain and gzipped. Compressing the whole text again
after every collector run would cost more CPU than the runs themselves on a big host (its text
is megabytes, rendered several times a minute). Instead each piece (a family's part of the text,
``zmon.exposition.snapshot.Packed``) is compressed once, when it is rendered, as raw deflate
ending in a sync flush: such pieces concatenate into one valid deflate stream (each piece only
refers back into itself). ``join`` adds the final empty block, the gzip header and the
trailer: the result is an ordinary single-member gzip file that any client inflates. This is
how pigz compresses in parallel.

A piece carries its text's CRC-32 and length, so the trailer (CRC-32 and length of the whole
text) is combined from the pieces' and the plain text need not be kept at all: on a big host
it would be the largest thing in the daemon's memory, kept for scrapers that all ask for gzip.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterable
from typing import NamedTuple

_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"  # deflate, no name, no mtime, unknown OS
_FINAL_EMPTY_BLOCK = b"\x03\x00"  # a final fixed-Huffman block with no data
_ZEROS = memoryview(bytes(1 << 20))


class Piece(NamedTuple):
    """A text compressed on its own: raw deflate, sync-flushed, not final."""

    deflated: bytes
    crc: int  # CRC-32 of the text
    size: int  # length of the text


def piece(data: bytes, level: int = 1) -> Piece:
    """``data`` as raw deflate blocks that end on a byte boundary and are not final."""
    comp = zlib.compressobj(level, zlib.DEFLATED, -zlib.MAX_WBITS)
    return Piece(comp.compress(data) + comp.flush(zlib.Z_SYNC_FLUSH), zlib.crc32(data), len(data))


def inflate(p: Piece) -> bytes:
    """The text of one piece."""
    return zlib.decompressobj(-zlib.MAX_WBITS).decompress(p.deflated)


def crc32_combine(crc1: int, crc2: int, len2: int) -> int:
    """The CRC-32 of A + B from CRC-32(A), CRC-32(B) and len(B) (zlib's ``crc32_combine``,
    which Python's zlib does not offer).

    CRC-32 is affine in its starting value: running it over ``len2`` zero bytes from ``crc1``
    and from 0 differ by exactly what ``crc1`` contributes to the CRC of A + B. That costs
    two passes of zlib's CRC over zeros (no reading of the text, and zlib's CRC is fast).
    """
    return _over_zeros(crc1, len2) ^ _over_zeros(0, len2) ^ crc2


def _over_zeros(crc: int, length: int) -> int:
    while length > 0:
        step = min(length, len(_ZEROS))
        crc = zlib.crc32(_ZEROS[:step], crc)
        length -= step
    return crc


def join(pieces: Iterable[Piece]) -> bytes:
    """The gzip file of the pieces' texts, one after the other."""
    crc = size = 0
    body = []
    for p in pieces:
        crc = crc32_combine(crc, p.crc, p.size) if size else p.crc
        size += p.size
        body.append(p.deflated)
    trailer = struct.pack("<II", crc, size & 0xFFFFFFFF)
    return b"".join((_HEADER, *body, _FINAL_EMPTY_BLOCK, trailer))
