"""``zpool iostat -w`` latency histogram blocks, in the aligned and the ``-H`` form."""

from __future__ import annotations

import re
from collections.abc import Sequence

from zmon.base.errors import ParseError
from zmon.parsers.common.units import parse_nice
from zmon.parsers.zpool.zpool_iostat_model import (
    DASHES,
    HISTO_BASE,
    HISTO_BUCKETS,
    HISTO_EXTRA,
    NICETIME,
    HistogramBlock,
)

Columns = dict[str, tuple[int, ...]]


def histo_keys(labels: list[str], line_no: int, line: str) -> tuple[str, ...]:
    """The columns a block's ``latency read write ...`` line names."""
    base = ["read", "write"] * 4
    extra = labels[8:]
    if labels[:8] != base or any(f"{x}_wait" not in HISTO_EXTRA for x in extra):
        raise ParseError("unexpected latency histogram columns", line_no, line)
    return HISTO_BASE + tuple(f"{x}_wait" for x in extra)


def aligned_block(lines: list[str], i: int, name: str) -> tuple[HistogramBlock, int]:
    """The block whose header is ``lines[i]``, and the index of the line after it."""
    start = i + 1
    keys = histo_keys(lines[i + 1].split()[1:], i + 2, lines[i + 1])
    i += 2
    if i < len(lines) and DASHES.match(lines[i].strip()):
        i += 1
    fast = _plain_block(lines, i, keys)
    if fast is not None:
        columns, i = fast
        return HistogramBlock(name, columns, start), i
    rows, i = _read_rows(lines, i, keys)
    if not rows:
        raise ParseError("latency histogram without rows", start, lines[start - 1])
    return HistogramBlock(name, _columns(keys, rows), start), i


def _read_rows(lines: list[str], i: int, keys: tuple[str, ...]) -> tuple[list[list[int]], int]:
    """A block's rows read one by one, from ``lines[i]`` to the rule or blank line after
    them; errors name the line."""
    width = len(keys) + 1
    rows: list[list[int]] = []
    while i < len(lines):
        toks = lines[i].split()
        if not toks or toks[0][0] == "-":
            break  # the closing rule or the blank line before the next block
        if len(rows) >= HISTO_BUCKETS or len(toks) != width or not NICETIME.match(toks[0]):
            raise ParseError("not a latency histogram row", i + 1, lines[i])
        counts = toks[1:]
        joined = "".join(counts)
        try:
            if joined.isascii() and joined.isdigit():  # -p: plain integers (the usual case)
                rows.append(list(map(int, counts)))
            else:
                rows.append([int(t) if t.isascii() and t.isdigit() else _count(t) for t in counts])
        except ValueError as exc:
            raise ParseError(str(exc), i + 1, lines[i]) from None
        i += 1
    return rows, i


# A bucket label of a ``-p`` block (``1ns`` ... ``137s``); the few dozen labels that exist
# are checked once each and remembered.
_PLAIN_LABEL = re.compile(r"[0-9]+(?:\.[0-9]+)?(?:ns|us|ms|s)\Z")
_LABELS_SEEN: set[str] = set()


def _plain_labels(labels: Sequence[str]) -> bool:
    if _LABELS_SEEN.issuperset(labels):
        return True
    if not all(_PLAIN_LABEL.match(label) for label in labels):
        return False
    if len(_LABELS_SEEN) < 1024:
        _LABELS_SEEN.update(labels)
    return True


def _plain_block(lines: list[str], i: int, keys: tuple[str, ...]) -> tuple[Columns, int] | None:
    """A ``-p`` block's columns read in one split of its text, or None where it is not
    plain (no rows, too many, a row of another width, human numbers): then the row-by-row
    reading gives the answer or the error naming the line.

    A host with 1,000 disks prints 1,101 blocks of 37 rows; one split of a block's text and
    a slice per column costs a fraction of splitting and converting row by row.
    """
    end = i + HISTO_BUCKETS  # the usual block: 37 rows, then a blank line or a rule
    if end > len(lines) or (end < len(lines) and lines[end].lstrip()[:1] not in ("", "-")):
        end, stop = i, min(len(lines), i + HISTO_BUCKETS + 1)
        while end < stop and lines[end].lstrip()[:1] not in ("", "-"):
            end += 1
    if not 0 < end - i <= HISTO_BUCKETS:
        return None
    width = len(keys) + 1
    words = " ".join(lines[i:end]).split()
    if len(words) != (end - i) * width:
        return None
    labels = words[0::width]  # a row of another width puts a count here, or a label below
    del words[0::width]
    counts = "".join(words)
    if not (counts.isascii() and counts.isdigit() and _plain_labels(labels)):
        return None
    n = len(keys)
    return {k: tuple(map(int, words[j::n])) for j, k in enumerate(keys)}, end


def _count(text: str) -> int:
    value = parse_nice(text)
    if value is None:
        raise ValueError(f"not a count: {text!r}")
    return value


def _columns(keys: tuple[str, ...], rows: list[list[int]]) -> Columns:
    return dict(zip(keys, zip(*rows, strict=True), strict=True))


def scripted_block(lines: list[str], i: int) -> tuple[HistogramBlock, int]:
    """A ``-H -w`` block: its name on ``lines[i]``, then tab-separated rows of counts."""
    name, start = lines[i], i + 1
    i += 1
    rows: list[list[int]] = []
    width = 0
    while i < len(lines) and "\t" in lines[i]:
        fields = lines[i].split("\t")
        if fields[0] != str((1 << (len(rows) + 1)) - 1) or len(rows) >= HISTO_BUCKETS:
            break
        width = width or len(fields) - 1
        if len(fields) - 1 != width or not all(f.isascii() and f.isdigit() for f in fields[1:]):
            raise ParseError("not a latency histogram row", i + 1, lines[i])
        rows.append([int(f) for f in fields[1:]])
        i += 1
    if not rows or not 9 <= width <= 11:
        raise ParseError("not a zpool iostat -H row or histogram", start, name)
    keys = HISTO_BASE + HISTO_EXTRA[: width - 8]
    return HistogramBlock(name, _columns(keys, rows), start), i
