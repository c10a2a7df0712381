"""Dedup table (DDT) figures: ``zpool status -D [-p]`` and the ``zdb -S``/``-DD`` histogram.

Summary line, per pool: `` dedup: DDT entries N, size X on disk, Y in core`` (2.3+ may add
``, Z cached (P%)``), or `` dedup: no DDT entries``.

What X and Y mean depends on the kernel module (OpenZFS ``ddt_get_dedup_object_stats``):
up to 2.2 they are *averages per entry* (the function divides the sums by the entry count);
from 2.3.0 (commit "ddt: dedup table quota enforcement") they are *totals* for the whole
table. ``DdtSummary.totals`` says which; the caller passes ``totals_format`` when it knows the
module version, otherwise ``guess_totals_format`` decides (see there).

Histogram (``zpool_dump_ddt``): a ``bucket / allocated / referenced`` banner, a
``refcnt blocks LSIZE PSIZE DSIZE blocks LSIZE PSIZE DSIZE`` header, a dash rule, one row
per power-of-two refcount bucket and a ``Total`` row. Numbers are exact with ``-p``,
otherwise ``zfs_nicenum`` values (``1.21K``, ``311B``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from zmon.base.errors import ParseError, refuses_hostile_input
from zmon.parsers.common.units import parse_nice

_POOL = re.compile(r"^\s*pool: (?P<pool>\S+)\s*$")
_NO_DDT = re.compile(r"^\s*dedup: no DDT entries\s*$")
_SUMMARY = re.compile(
    r"^\s*dedup: DDT entries (?P<entries>\d+), size (?P<disk>\S+) on disk, "
    r"(?P<core>\S+) in core(?:, (?P<cached>\S+) cached \((?P<pct>[\d.]+)%\))?\s*$"
)
_ROW = re.compile(r"^\s*(?P<bucket>Total|\d+(?:\.\d+)?[KMGTPE]?)((?:\s+\S+){8})\s*$")
_DEDUP_LINE = re.compile(
    r"dedup = (?P<dedup>[\d.]+), compress = (?P<compress>[\d.]+), copies = (?P<copies>[\d.]+)"
)
# Below this, an unknown-version on-disk figure is read as a per-entry average (see guess).
PER_ENTRY_LIMIT = 16384


@dataclass(frozen=True)
class DdtStat:
    """One histogram row: allocated (unique) and referenced blocks and sizes."""

    blocks: float
    lsize: float
    psize: float
    dsize: float
    ref_blocks: float
    ref_lsize: float
    ref_psize: float
    ref_dsize: float


@dataclass
class DdtHistogram:
    buckets: dict[int, DdtStat] = field(default_factory=dict)  # refcount lower bound -> row
    total: DdtStat | None = None
    simulated: bool = False
    dedup_ratio: float | None = None
    compress_ratio: float | None = None
    copies_ratio: float | None = None


@dataclass
class DdtSummary:
    """The DDT of one pool; byte figures are TOTALS for the whole table."""

    pool: str
    entries: int = 0
    on_disk_bytes: float | None = None
    in_core_bytes: float | None = None
    cached_bytes: float | None = None
    totals: bool | None = None  # how the command printed X/Y: True totals, False per entry
    histogram: DdtHistogram | None = None


def guess_totals_format(entries: int, on_disk: float, cached_shown: bool) -> bool:
    """Decide whether an unknown-version summary printed totals (2.3+) or per-entry averages.

    The ``cached`` suffix exists only in 2.3+. Otherwise: a per-entry average is a few hundred
    bytes and never exceeds both the entry count and 16 KiB, while a table's total on-disk size
    is at least one byte per entry and, for any table that matters, well above 16 KiB. Only a
    tiny 2.3 table (total <= 16 KiB) can be misread; its totals are then overstated.
    """
    if cached_shown:
        return True
    return on_disk > max(entries, PER_ENTRY_LIMIT)


def version_prints_totals(version: tuple[int, ...] | None) -> bool | None:
    """True for modules >= 2.3.0 (totals), False below, None when unknown."""
    if version is None:
        return None
    return version >= (2, 3, 0)


def _num(text: str, no: int, line: str) -> float:
    try:
        value = parse_nice(text)
    except ValueError:
        raise ParseError(f"bad number {text!r}", no, line) from None
    return 0.0 if value is None else float(value)


def parse_histogram_rows(lines: list[tuple[int, str]]) -> DdtHistogram:
    """Rows of a ``zpool_dump_ddt`` table, each given with its 1-based line number."""
    hist = DdtHistogram()
    for no, line in lines:
        m = _ROW.match(line)
        if not m:
            continue
        parts = line.split()
        values = [_num(p, no, line) for p in parts[1:9]]
        stat = DdtStat(*values)
        if parts[0] == "Total":
            hist.total = stat
        else:
            hist.buckets[int(_num(parts[0], no, line))] = stat
    return hist


@refuses_hostile_input
def parse_dedup_status(data: bytes | str, totals_format: bool | None = None) -> list[DdtSummary]:
    """Per-pool DDT summaries (and histograms) from ``zpool status -D [-p]`` text.

    A pool without a ``dedup:`` line (a faulted pool without config) yields no summary.
    """
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    out: list[DdtSummary] = []
    pool: str | None = None
    current: DdtSummary | None = None
    table: list[tuple[int, str]] = []

    def close_table() -> None:
        nonlocal table
        if current is not None and table:
            current.histogram = parse_histogram_rows(table)
        table = []

    for no, line in enumerate(text.splitlines(), 1):
        if m := _POOL.match(line):
            close_table()
            pool, current = m.group("pool"), None
            continue
        if _NO_DDT.match(line):
            close_table()
            current = DdtSummary(pool or "", entries=0, on_disk_bytes=0, in_core_bytes=0)
            out.append(current)
            continue
        if m := _SUMMARY.match(line):
            close_table()
            entries = int(m.group("entries"))
            disk = _num(m.group("disk"), no, line)
            core = _num(m.group("core"), no, line)
            cached = _num(m.group("cached"), no, line) if m.group("cached") else None
            totals = totals_format
            if totals is None:
                totals = guess_totals_format(entries, disk, cached is not None)
            factor = 1 if totals else entries
            current = DdtSummary(pool or "", entries, disk * factor, core * factor, cached, totals)
            out.append(current)
            continue
        if current is not None and _ROW.match(line):
            table.append((no, line))
    close_table()
    return out


@refuses_hostile_input
def parse_zdb_histogram(data: bytes | str) -> DdtHistogram:
    """``zdb -S`` (simulated) or ``zdb -DD`` histogram text; trailing lines are ignored."""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    lines = text.splitlines()
    if not any("refcnt" in ln and "blocks" in ln for ln in lines):
        raise ParseError("no DDT histogram header (refcnt blocks LSIZE ...)")
    in_table = False
    rows: list[tuple[int, str]] = []
    for no, line in enumerate(lines, 1):
        if "refcnt" in line and "LSIZE" in line:
            in_table = True
            continue
        if in_table and not line.strip():
            in_table = False
        elif in_table:
            rows.append((no, line))
    hist = parse_histogram_rows(rows)
    hist.simulated = any(ln.startswith("Simulated DDT histogram") for ln in lines)
    for line in lines:
        if m := _DEDUP_LINE.search(line):
            hist.dedup_ratio = float(m.group("dedup"))
            hist.compress_ratio = float(m.group("compress"))
            hist.copies_ratio = float(m.group("copies"))
    return hist


def parse_module_version(text: str) -> tuple[int, ...] | None:
    """``2.3.2-2~bpo12+2``, ``zfs-kmod-2.1.11-1`` or ``v0.6.5.11-1`` -> (2, 3, 2) etc."""
    m = re.search(r"(?:^|kmod-|zfs-|v)(\d+)\.(\d+)(?:\.(\d+))?", text.strip())
    if not m:
        return None
    return tuple(int(g) for g in m.groups() if g is not None)
