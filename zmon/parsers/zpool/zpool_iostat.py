"""Parse ``zpool iostat`` output: the ``-v`` table (default, ``-l``, ``-q`` columns) and ``-w``.

What the numbers mean without an interval argument (``zpool_main.c``, ``print_vdev_stats``):

* operations and bandwidth are **averages per second over the vdev's lifetime** (the lifetime
  counters divided by the time since the vdev was opened), not counters;
* ``-l`` latencies are averages of the lifetime histograms (bucket midpoints), in ns with ``-p``;
* ``-q`` queue depths are instantaneous;
* ``-w`` histograms are **lifetime counts** (not scaled): the cumulative source zmon exports.

Forms read here, detected from the text: the aligned table (indentation gives the tree,
``logs``/``cache``/``special``/``dedup`` rows give the allocation class), the ``-H``
tab-separated table (no tree: it is inferred from capacity), ``-w`` blocks in aligned or ``-H``
form, human numbers (``1.34T``, ``6ms``) or ``-p`` exact ones, ZoL 0.6 to OpenZFS 2.4 column
sets, and several samples (only the first, since-import, one is kept). ``-r`` request-size
histograms are refused. Column groups come from the header, never from positions.

The parse is complete when it returns: every cell and histogram count is read and checked
(a ParseError names the line), and the records are plain data. The two forms live in
``zpool_iostat_aligned`` and ``zpool_iostat_scripted``, the ``-w`` blocks in
``zpool_iostat_histograms``, the records in ``zpool_iostat_model``.
"""

from __future__ import annotations

import re

from zmon.base.errors import ParseError, refuses_hostile_input
from zmon.parsers.kstat.kstat import decode
from zmon.parsers.zpool.zpool_iostat_aligned import parse_aligned
from zmon.parsers.zpool.zpool_iostat_model import (
    HISTO_BUCKETS,
    HistogramBlock,
    PoolIostat,
    VdevIostat,
    ZpoolIostat,
    parse_nicetime,
)
from zmon.parsers.zpool.zpool_iostat_scripted import SCRIPTED_LAYOUTS, parse_scripted

__all__ = [
    "HISTO_BUCKETS",
    "SCRIPTED_LAYOUTS",
    "HistogramBlock",
    "PoolIostat",
    "VdevIostat",
    "ZpoolIostat",
    "parse_nicetime",
    "parse_zpool_iostat",
    "text_lines",
]

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


@refuses_hostile_input
def parse_zpool_iostat(data: bytes | str) -> ZpoolIostat:
    """Parse any ``zpool iostat`` table and/or ``-w`` output; raises ParseError naming a line."""
    lines, scripted = text_lines(data)
    result = parse_scripted(lines) if scripted else parse_aligned(lines)
    if not result.pools and not result.histograms:
        raise ParseError("no zpool iostat table or -w histogram found")
    return result


def text_lines(data: bytes | str) -> tuple[list[str], bool]:
    """The input's lines, colour codes removed, and whether a tab makes it the scripted
    (``-H``) form; ParseError if it is not text."""
    text = decode(data)
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    if "\ufffd" in text:
        raise ParseError("input is not text")
    return text.splitlines(), "\t" in text
