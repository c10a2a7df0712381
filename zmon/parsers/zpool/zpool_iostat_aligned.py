"""The aligned ``zpool iostat -v`` table: the tree from indentation, classes from their rows."""

from __future__ import annotations

import re

from zmon.base.errors import ParseError
from zmon.parsers.zpool.zpool_iostat_histograms import aligned_block
from zmon.parsers.zpool.zpool_iostat_model import (
    CLASS_NAMES,
    DASHES,
    GROUPS,
    HISTO_HEADER,
    PoolIostat,
    VdevIostat,
    ZpoolIostat,
)
from zmon.parsers.zpool.zpool_iostat_model import values as row_values

_PREAMBLE = re.compile(r"^\s*(?:#|\$|\S*[#$]\s|zpool\s)")


def parse_aligned(lines: list[str]) -> ZpoolIostat:
    """The aligned table and ``-w`` blocks, as ``zpool iostat`` prints them for people."""
    result = ZpoolIostat()
    seen_blocks: set[str] = set()
    blocks_done = False
    i = 0
    while i < len(lines):
        line = lines[i]
        text = line.strip()
        nxt = lines[i + 1].split() if i + 1 < len(lines) else []
        if not text or DASHES.match(text):
            i += 1
        elif nxt[:1] == ["req_size"]:
            raise ParseError("request-size histograms (zpool iostat -r) are not read", i + 1, line)
        elif (m := HISTO_HEADER.match(text)) and nxt[:1] == ["latency"]:
            block, i = aligned_block(lines, i, m.group("name"))
            blocks_done = blocks_done or block.name in seen_blocks
            seen_blocks.add(block.name)
            if not blocks_done:
                result.histograms.append(block)
        elif text.split()[:1] in (["capacity"], ["operations"]) or _is_table_header(text, nxt):
            pools, columns, i = _aligned_table(lines, i)
            if not result.columns:
                result.pools, result.columns = pools, columns
        elif not result.pools and not result.histograms and _PREAMBLE.match(line):
            i += 1  # a shell prompt or the command line pasted above the output
        else:
            raise ParseError("not part of a zpool iostat table or histogram", i + 1, line)
    return result


def _is_table_header(text: str, nxt: list[str]) -> bool:
    words = text.split()
    return bool(words) and all(w in GROUPS for w in words) and nxt[:1] in (["pool"], ["vdev"])


def _header_columns(top: str, bottom: str, line_no: int) -> tuple[str, ...]:
    keys: list[str] = []
    subs: list[str] = []
    for group in top.split():
        if group not in GROUPS:
            raise ParseError(f"unknown zpool iostat column group {group!r}", line_no, top)
        keys += [f"{group}_{s}" for s in GROUPS[group]]
        subs += GROUPS[group]
    if bottom.split()[1:] != subs:
        raise ParseError("column names do not match the column groups", line_no + 1, bottom)
    return tuple(keys)


def _aligned_table(lines: list[str], i: int) -> tuple[list[PoolIostat], tuple[str, ...], int]:
    if i + 1 >= len(lines):
        raise ParseError("table header without column names", i + 1, lines[i])
    columns = _header_columns(lines[i], lines[i + 1], i + 1)
    pools: list[PoolIostat] = []
    pool_indent: int | None = None
    stack: list[int] = []
    vdev_class = "normal"
    i += 2
    while i < len(lines):
        line = lines[i]
        text = line.strip()
        if not text:
            break
        if DASHES.match(text):
            i += 1
            continue
        if text.split(None, 1)[0] in GROUPS and _is_table_header(
            text, lines[i + 1].split() if i + 1 < len(lines) else []
        ):
            break
        cells = line.rsplit(None, len(columns))
        if len(cells) <= len(columns):
            raise ParseError(f"expected a name and {len(columns)} values", i + 1, line)
        head = cells.pop(0)  # the name, and the indentation that places it in the tree
        name = head.lstrip()
        indent = len(head) - len(name)
        if all(c == "-" for c in cells):
            vdev_class = CLASS_NAMES.get(name, name)
            stack = stack[:1]
            i += 1
            continue
        values = row_values(columns, cells, i + 1, line)
        if pool_indent is None or indent <= pool_indent or not pools:
            pool_indent = indent
            stack = [indent]
            vdev_class = "normal"
            pools.append(PoolIostat(name))
            pools[-1].rows.append(VdevIostat(name, name, 0, vdev_class, values, i + 1))
        else:
            while stack and stack[-1] >= indent:
                stack.pop()
            depth = max(1, len(stack))
            stack.append(indent)
            pool = pools[-1]
            pool.rows.append(VdevIostat(pool.name, name, depth, vdev_class, values, i + 1))
        i += 1
    return pools, columns, i
