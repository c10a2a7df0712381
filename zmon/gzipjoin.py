"""One gzip stream from pieces compressed separately, so a change recompresses only its piece.

zmon serves a pre-rendered exposition, plain and gzipped. Compressing the whole text again
after every collector run cost more CPU than the runs themselves on a big host (8 MB at
level 1, several times a minute). Instead each piece (a collector's family) is compressed once,
when it is rendered, as raw deflate ending in a sync flush: such pieces concatenate into one
valid deflate stream (each piece only refers back into itself). ``join`` adds the final empty
block, the gzip header and the trailer (CRC-32 and length of the whole text): the result is an
ordinary single-member gzip file that any client inflates. This is how pigz compresses in
parallel.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterable

_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"  # deflate, no name, no mtime, unknown OS
_FINAL_EMPTY_BLOCK = b"\x03\x00"  # a final fixed-Huffman block with no data


def piece(data: bytes, level: int = 1) -> bytes:
    """``data`` as raw deflate blocks that end on a byte boundary and are not final."""
    comp = zlib.compressobj(level, zlib.DEFLATED, -zlib.MAX_WBITS)
    return comp.compress(data) + comp.flush(zlib.Z_SYNC_FLUSH)


def join(texts: Iterable[bytes], pieces: Iterable[bytes]) -> bytes:
    """The gzip file of ``b"".join(texts)``, given ``piece(text)`` of each text in order."""
    crc = size = 0
    for text in texts:
        crc = zlib.crc32(text, crc)
        size += len(text)
    body = b"".join(pieces)
    return _HEADER + body + _FINAL_EMPTY_BLOCK + struct.pack("<II", crc, size & 0xFFFFFFFF)
