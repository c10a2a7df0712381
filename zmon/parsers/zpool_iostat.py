"""Parse ``zpool iostat`` output: the ``-v`` table (default, ``-l``, ``-q`` columns) and ``-w``.

What the numbers mean without an interval argument (``zpool_main.c``, ``print_vdev_stats``):

* operations and bandwidth are **averages per second over the vdev's lifetime** (the lifetime
  counters divided by the time since the vdev was opened), not counters;
* ``-l`` latencies are averages of the lifetime histograms (bucket midpoints), in ns with ``-p``;
* ``-q`` queue depths are instantaneous;
* ``-w`` histograms are **lifetime counts** (not scaled): the cumulative source zmon exports.

Forms read here, detected from the text: the aligned table (indentation gives the tree, ``logs``/
``cache``/``special``/``dedup`` rows give the allocation class), the ``-H`` tab-separated table
(no tree: it is inferred from capacity, see ``_ScriptedTree``), ``-w`` blocks in aligned or ``-H``
form, human numbers (``1.34T``, ``6ms``) or ``-p`` exact ones, ZoL 0.6 to OpenZFS 2.4 column
sets, and several samples (only the first, since-import, one is kept). ``-r`` request-size
histograms are refused. Column groups come from the header, never from positions.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from zmon.errors import ParseError, refuses_hostile_input
from zmon.parsers.kstat import decode
from zmon.parsers.units import parse_nice

GROUPS: dict[str, tuple[str, ...]] = {
    "capacity": ("alloc", "free"), "operations": ("read", "write"),
    "bandwidth": ("read", "write"), "total_wait": ("read", "write"),
    "disk_wait": ("read", "write"), "syncq_wait": ("read", "write"),
    "asyncq_wait": ("read", "write"), "scrub": ("wait",), "trim": ("wait",),
    "rebuild": ("wait",),
    **{q: ("pend", "activ") for q in (
        "syncq_read", "syncq_write", "asyncq_read", "asyncq_write",
        "scrubq_read", "trimq_write", "rebuildq_write")},
}  # fmt: skip
QUEUES = (
    "syncq_read",
    "syncq_write",
    "asyncq_read",
    "asyncq_write",
    "scrubq_read",
    "trimq_write",
    "rebuildq_write",
)
WAIT_STAGES = ("total_wait", "disk_wait", "syncq_wait", "asyncq_wait")
HISTO_BASE = tuple(f"{stage}_{op}" for stage in WAIT_STAGES for op in ("read", "write"))
HISTO_EXTRA = ("scrub_wait", "trim_wait", "rebuild_wait")
HISTO_BUCKETS = 37  # VDEV_L_HISTO_BUCKETS since ZoL 0.7
CLASS_NAMES = {
    "logs": "log",
    "log": "log",
    "cache": "cache",
    "special": "special",
    "dedup": "dedup",
}
UNKNOWN_CLASS = "unknown"

_DEFAULT = tuple(f"{g}_{s}" for g in ("capacity", "operations", "bandwidth") for s in GROUPS[g])
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_DASHES = re.compile(r"^-+(?:\s+-+)*$")
_HISTO_HEADER = re.compile(
    r"^(?P<name>\S.*?)\s+total_wait\s+disk_wait\s+(?:syncq_wait|sync_queue)\s+"
    r"(?:asyncq_wait|async_queue)\s*$"
)
_NICETIME = re.compile(r"^(?P<num>\d+(?:\.\d+)?)(?P<unit>ns|us|ms|s)$")
_TIME_SCALE = {"ns": 1, "us": 1_000, "ms": 1_000_000, "s": 1_000_000_000}
_PREAMBLE = re.compile(r"^\s*(?:#|\$|\S*[#$]\s|zpool\s)")


@dataclass
class VdevIostat:
    """One row of the table: the pool root (depth 0) or a vdev below it.

    ``values`` is keyed ``<group>_<column>`` (``operations_read``, ``total_wait_write``,
    ``syncq_read_pend``); None is a ``-`` cell. Bytes, ns and counts are integers.
    """

    pool: str
    name: str
    depth: int
    vdev_class: str
    values: dict[str, int | None]
    line_no: int = 0
    histograms: Mapping[str, tuple[int, ...]] | None = None


@dataclass
class PoolIostat:
    """A pool's rows, root first, in printed order."""

    name: str
    rows: list[VdevIostat] = field(default_factory=list)

    @property
    def root(self) -> VdevIostat:
        return self.rows[0]


@dataclass
class HistogramBlock:
    """One ``-w`` block: a vdev or pool name and its columns of 37 bucket counts."""

    name: str
    columns: Mapping[str, tuple[int, ...]]
    line_no: int = 0


@dataclass
class ZpoolIostat:
    """Everything one input held: the first table sample and the first histogram sample."""

    pools: list[PoolIostat] = field(default_factory=list)
    histograms: list[HistogramBlock] = field(default_factory=list)
    columns: tuple[str, ...] = ()
    scripted: bool = False
    has_tree: bool = True


def _go_on() -> None:
    """The default ``pace``: nothing."""


@refuses_hostile_input
def parse_zpool_iostat(data: bytes | str, pace: Callable[[], None] = _go_on) -> ZpoolIostat:
    """Parse any ``zpool iostat`` table and/or ``-w`` output; raises ParseError naming a line.

    ``pace`` is called once per block and table row read (the daemon gives its scrapes way
    there, zmon/pacing.py); it changes nothing that is read."""
    lines, scripted = text_lines(data, LINES_PIECE)
    result = _parse_scripted(lines) if scripted else _parse_aligned(lines, pace)
    if not result.pools and not result.histograms:
        raise ParseError("no zpool iostat table or -w histogram found")
    return result


# Characters decoded and split at a time. A big host's ``-w -v`` answer is 4 MB: one
# ``splitlines`` of it holds the interpreter for 5-7 ms, which every scrape waiting on the
# event loop meanwhile feels (benchmarks/README.md, "Scrapes with 50 clients").
LINES_PIECE = 1 << 16


def text_lines(data: bytes | str, piece: int = LINES_PIECE) -> tuple[list[str], bool]:
    """The input's lines, colour codes removed, and whether a tab makes it the scripted
    (``-H``) form; ParseError if it is not text. Read ``piece`` characters at a time, each
    piece ending at a newline (so a line, a ``\r\n`` or a UTF-8 character is never cut): the
    lines are those of ``splitlines`` over the whole text."""
    lines: list[str] = []
    scripted = False
    newline = b"\n" if isinstance(data, bytes) else "\n"
    start, size = 0, len(data)
    while start < size:
        end = data.find(newline, start + max(1, piece) - 1)  # type: ignore[arg-type]
        end = size if end < 0 else end + 1
        text = decode(data[start:end])
        if "\x1b" in text:
            text = _ANSI.sub("", text)
        if "\ufffd" in text:
            raise ParseError("input is not text")
        scripted = scripted or "\t" in text
        lines += text.splitlines()
        start = end
    return lines, scripted


def parse_nicetime(text: str) -> int | None:
    """``133ns`` -> 133, ``1.5ms`` -> 1500000, ``-`` -> None; an integer is already ns."""
    if text == "-":
        return None
    if text.isascii() and text.isdigit():
        return int(text)
    m = _NICETIME.match(text)
    if m is None:
        raise ValueError(f"not a zpool latency: {text!r}")
    return round(float(m.group("num")) * _TIME_SCALE[m.group("unit")])


def _cell(key: str, text: str) -> int | None:
    if text.isascii() and text.isdigit():
        return int(text)
    if text == "-":
        return None
    if "wait" in key and not key.endswith(("_pend", "_activ")):
        return parse_nicetime(text)
    return parse_nice(text)


# ---- aligned (human) form ----


def _parse_aligned(lines: list[str], pace: Callable[[], None] = _go_on) -> ZpoolIostat:
    result = ZpoolIostat()
    seen_blocks: set[str] = set()
    blocks_done = False
    i = 0
    while i < len(lines):
        pace()
        line = lines[i]
        text = line.strip()
        nxt = lines[i + 1].split() if i + 1 < len(lines) else []
        if not text or _DASHES.match(text):
            i += 1
        elif nxt[:1] == ["req_size"]:
            raise ParseError("request-size histograms (zpool iostat -r) are not read", i + 1, line)
        elif (m := _HISTO_HEADER.match(text)) and nxt[:1] == ["latency"]:
            block, i = _aligned_block(lines, i, m.group("name"))
            blocks_done = blocks_done or block.name in seen_blocks
            seen_blocks.add(block.name)
            if not blocks_done:
                result.histograms.append(block)
        elif text.split()[:1] in (["capacity"], ["operations"]) or _is_table_header(text, nxt):
            pools, columns, i = _aligned_table(lines, i, pace)
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


def _aligned_table(
    lines: list[str], i: int, pace: Callable[[], None] = _go_on
) -> tuple[list[PoolIostat], tuple[str, ...], int]:
    if i + 1 >= len(lines):
        raise ParseError("table header without column names", i + 1, lines[i])
    columns = _header_columns(lines[i], lines[i + 1], i + 1)
    pools: list[PoolIostat] = []
    pool_indent: int | None = None
    stack: list[int] = []
    vdev_class = "normal"
    i += 2
    while i < len(lines):
        pace()
        line = lines[i]
        text = line.strip()
        if not text:
            break
        if _DASHES.match(text):
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
        values = _values(columns, cells, i + 1, line)
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


def _values(
    columns: tuple[str, ...], cells: list[str], line_no: int, line: str
) -> dict[str, int | None]:
    try:
        return {
            k: int(c) if c.isdigit() and c.isascii() else _cell(k, c)
            for k, c in zip(columns, cells, strict=True)
        }
    except ValueError as exc:
        raise ParseError(str(exc), line_no, line) from None


def _histo_keys(labels: list[str], line_no: int, line: str) -> tuple[str, ...]:
    base = ["read", "write"] * 4
    extra = labels[8:]
    if labels[:8] != base or any(f"{x}_wait" not in HISTO_EXTRA for x in extra):
        raise ParseError("unexpected latency histogram columns", line_no, line)
    return HISTO_BASE + tuple(f"{x}_wait" for x in extra)


def _aligned_block(lines: list[str], i: int, name: str) -> tuple[HistogramBlock, int]:
    start = i + 1
    keys = _histo_keys(lines[i + 1].split()[1:], i + 2, lines[i + 1])
    i += 2
    if i < len(lines) and _DASHES.match(lines[i].strip()):
        i += 1
    fast = _plain_block(lines, i, keys)
    if fast is not None:
        columns, i = fast
        return HistogramBlock(name, columns, start), i
    rows, i = _read_rows(lines, i, keys)
    if not rows:
        raise ParseError("latency histogram without rows", start, lines[start - 1])
    return HistogramBlock(name, _columns(keys, rows), start), i


def _read_rows(
    lines: list[str], i: int, keys: tuple[str, ...], first_line: int | None = None
) -> tuple[list[list[int]], int]:
    """A block's rows read one by one, from ``lines[i]`` to the rule or blank line after
    them. Errors name the line: ``lines[i]`` is line ``first_line`` (by default ``i + 1``)."""
    offset = 1 if first_line is None else first_line - i
    width = len(keys) + 1
    rows: list[list[int]] = []
    while i < len(lines):
        toks = lines[i].split()
        if not toks or toks[0][0] == "-":
            break  # the closing rule or the blank line before the next block
        if len(rows) >= HISTO_BUCKETS or len(toks) != width or not _NICETIME.match(toks[0]):
            raise ParseError("not a latency histogram row", i + offset, lines[i])
        counts = toks[1:]
        joined = "".join(counts)
        try:
            if joined.isascii() and joined.isdigit():  # -p: plain integers (the usual case)
                rows.append(list(map(int, counts)))
            else:
                rows.append([int(t) if t.isascii() and t.isdigit() else _count(t) for t in counts])
        except ValueError as exc:
            raise ParseError(str(exc), i + offset, lines[i]) from None
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


def _plain_block(
    lines: list[str], i: int, keys: tuple[str, ...]
) -> tuple[Mapping[str, tuple[int, ...]], int] | None:
    """A ``-p`` block's rows, read as far as every vdev needs them, or None where they are
    not plain.

    A host with 1,000 disks prints 1,101 blocks of 37 rows, and of most of them only the
    first two columns are read (``total_wait``: the operation counts of every vdev);
    ``histograms = "toplevel"`` reads every column of 101. Splitting every row into a string
    per number was most of the parse (benchmarks/README.md). Here each row is split only
    into its bucket label, the first two counts and the rest: the label must be a bucket's
    and the two counts integers. The other columns are read, and checked, when first asked
    for (``_Columns``). Anything unusual (no rows, too many, human numbers in the first two
    columns) returns None, and the row-by-row reading gives the answer or the error.
    """
    end = i + HISTO_BUCKETS  # the usual block: 37 rows, then a blank line or a rule
    if end > len(lines) or (end < len(lines) and lines[end].lstrip()[:1] not in ("", "-")):
        end, stop = i, min(len(lines), i + HISTO_BUCKETS + 1)
        while end < stop and lines[end].lstrip()[:1] not in ("", "-"):
            end += 1
    if not 0 < end - i <= HISTO_BUCKETS:
        return None  # no rows, or one too many: read row by row
    block = lines[i:end]
    first = min(2, len(keys))  # the columns read at once
    parts = first + 1 + (len(keys) > first)  # the label, those columns, the rest if any
    heads = [line.split(None, parts - 1) for line in block]
    if set(map(len, heads)) != {parts}:
        return None
    labels, *counts = list(zip(*heads, strict=True))[: first + 1]  # by column
    joined = "".join(map("".join, counts))
    if not (joined.isascii() and joined.isdigit() and _plain_labels(labels)):
        return None
    done = {key: tuple(map(int, column)) for key, column in zip(keys, counts, strict=False)}
    return _Columns(keys, done, block, i + 1), end


class _Columns(Mapping[str, tuple[int, ...]]):
    """A plain block's columns: the first two (``total_wait``, the operation counts) read by
    the parse; the others when one of them is first asked for, all at once, from the
    block's rows (a row that is not plain there raises ParseError naming its line)."""

    def __init__(
        self,
        keys: tuple[str, ...],
        done: dict[str, tuple[int, ...]],
        rows: list[str],
        first_line: int,
    ) -> None:
        self._keys, self._done = keys, done
        # one string, not the input's 37 lines: a big host's 1,101 blocks are 4 MB of text
        self._text = "\n".join(rows) if len(done) < len(keys) else ""
        self._first_line = first_line

    def __getitem__(self, key: str) -> tuple[int, ...]:
        col = self._done.get(key)
        if col is None:
            if key not in self._keys:
                raise KeyError(key)
            self._read_all()
            col = self._done[key]
        return col

    def _read_all(self) -> None:
        width = len(self._keys) + 1
        words = self._text.split()
        labels = words[0::width]
        del words[0::width]
        counts = "".join(words)
        if (
            len(words) + len(labels) == (self._text.count("\n") + 1) * width
            and counts.isascii()
            and counts.isdigit()
            and _plain_labels(labels)
        ):
            n = len(self._keys)
            columns = {k: tuple(map(int, words[j::n])) for j, k in enumerate(self._keys)}
        else:  # a row of another width, or human numbers: read row by row (or name the line)
            rows, _ = _read_rows(self._text.split("\n"), 0, self._keys, self._first_line)
            columns = _columns(self._keys, rows)
        for k, col in columns.items():
            self._done.setdefault(k, col)
        self._text = ""

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def __contains__(self, key: object) -> bool:
        return key in self._keys


def _count(text: str) -> int:
    value = parse_nice(text)
    if value is None:
        raise ValueError(f"not a count: {text!r}")
    return value


def _columns(keys: tuple[str, ...], rows: list[list[int]]) -> dict[str, tuple[int, ...]]:
    return dict(zip(keys, zip(*rows, strict=True), strict=True))


# ---- scripted (-H) form ----


def _scripted_layouts() -> dict[int, tuple[str, ...]]:
    """Value counts of ``-H`` rows -> columns, per version (0.7, 0.8-2.1, 2.2+).

    Where counts collide (16: ``-l`` on 0.8-2.1 or ``-q`` on 0.7), ``-l`` wins.
    """
    layouts: dict[int, tuple[str, ...]] = {len(_DEFAULT): _DEFAULT}
    versions = ((1, 5), (2, 6), (3, 7))
    lat = {n: HISTO_BASE + HISTO_EXTRA[:n] for n, _ in versions}
    queues = {
        q: tuple(f"{n}_{s}" for n in QUEUES[:q] for s in ("pend", "activ")) for _, q in versions
    }
    for _, q in versions:
        layouts[len(_DEFAULT) + 2 * q] = _DEFAULT + queues[q]
    for n, q in versions:
        layouts[len(_DEFAULT) + 8 + n] = _DEFAULT + lat[n]
        layouts[len(_DEFAULT) + 8 + n + 2 * q] = _DEFAULT + lat[n] + queues[q]
    return layouts


SCRIPTED_LAYOUTS = _scripted_layouts()


def _parse_scripted(lines: list[str]) -> ZpoolIostat:
    result = ZpoolIostat(scripted=True)
    rows: list[tuple[str, dict[str, int | None], bool, int]] = []
    after_blank = False
    seen_blocks: set[str] = set()
    blocks_done = table_done = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            after_blank = bool(rows)
            i += 1
            continue
        fields = line.split("\t")
        if len(fields) == 1 and _DASHES.match(line.strip()):
            i += 1
            continue
        if len(fields) == 1:
            nxt = lines[i + 1].split()[:1] if i + 1 < len(lines) else []
            if (m := _HISTO_HEADER.match(line.strip())) and nxt == ["latency"]:
                block, i = _aligned_block(lines, i, m.group("name"))
            else:
                block, i = _scripted_block(lines, i)
            blocks_done = blocks_done or block.name in seen_blocks
            seen_blocks.add(block.name)
            if not blocks_done:
                result.histograms.append(block)
            continue
        columns = SCRIPTED_LAYOUTS.get(len(fields) - 1)
        if columns is None or not fields[0]:
            raise ParseError(f"{len(fields) - 1} values is no zpool iostat -H layout", i + 1, line)
        if result.columns and columns != result.columns:
            raise ParseError("the column count changed within the table", i + 1, line)
        result.columns = columns
        values = _values(columns, fields[1:], i + 1, line)
        if rows and fields[0] == rows[0][0] and not after_blank:
            table_done = True  # the pool list starts again: a second sample
        if not table_done:
            rows.append((fields[0], values, after_blank, i + 1))
        after_blank = False
        i += 1
    result.pools = _ScriptedTree(rows).build()
    result.has_tree = False
    return result


def _scripted_block(lines: list[str], i: int) -> tuple[HistogramBlock, int]:
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


class _ScriptedTree:
    """Rebuild pools from ``-H -v`` rows, which carry no indentation and no class names.

    Rows without capacity (``0 0``) sit below a top-level vdev. A blank line starts a class
    group (``dedup``, ``special``, ``logs``, ``cache``: which one is not printed). A row with
    capacity starts a new pool when the capacities of the current pool's top-level vdevs
    already add up to the pool's exactly, or, inside the class groups, when the rows after it
    add up to its own capacity. The aligned form (what the collector runs) needs none of this.
    """

    def __init__(self, rows: list[tuple[str, dict[str, int | None], bool, int]]) -> None:
        self.rows = rows

    @staticmethod
    def _cap(values: dict[str, int | None]) -> tuple[int, int] | None:
        alloc, free = values.get("capacity_alloc") or 0, values.get("capacity_free") or 0
        return (alloc, free) if alloc or free else None

    def _starts_pool(self, idx: int) -> bool:
        want = self._cap(self.rows[idx][1])
        assert want is not None
        alloc = free = 0
        for _, values, after_blank, _ in self.rows[idx + 1 :]:
            if after_blank:
                return 0 < free < want[1] and alloc <= want[0]
            cap = self._cap(values)
            if cap is not None:
                alloc, free = alloc + cap[0], free + cap[1]
                if (alloc, free) == want:
                    return True
                if alloc > want[0] or free > want[1]:
                    return False
        return False

    def build(self) -> list[PoolIostat]:
        pools: list[PoolIostat] = []
        pool_cap: tuple[int, int] | None = None
        normal = [0, 0]
        in_groups = False
        for idx, (name, values, after_blank, line_no) in enumerate(self.rows):
            cap = self._cap(values)
            new_pool = not pools or (
                cap is not None
                and not after_blank
                and (
                    (not in_groups and tuple(normal) == pool_cap)
                    or (in_groups and self._starts_pool(idx))
                )
            )
            if new_pool:
                pools.append(PoolIostat(name))
                pools[-1].rows.append(VdevIostat(name, name, 0, "normal", values, line_no))
                pool_cap, normal, in_groups = cap, [0, 0], False
                continue
            in_groups = in_groups or after_blank
            vdev_class = UNKNOWN_CLASS if in_groups else "normal"
            depth = 1 if cap is not None or after_blank else 2
            if depth == 1 and not in_groups and cap is not None:
                normal = [normal[0] + cap[0], normal[1] + cap[1]]
            pool = pools[-1]
            pool.rows.append(VdevIostat(pool.name, name, depth, vdev_class, values, line_no))
        return pools
