"""Series count and parse cost of the iostat collector on a large host, for each option value.

Builds the two outputs the collector reads (``zpool iostat -v -p -l -q`` and
``zpool iostat -p -w -v``) for a synthetic host, in the 2.3 format of the lab captures (their
column widths and bucket labels; each disk's numbers seeded by its name, a vdev's the sums of
its disks'), parses them and counts the exported series. Run:
``python -m benchmarks.iostat_cardinality [LEAVES]`` (default 1000 leaf vdevs: 100 raidz2
top-level vdevs of 10 disks, in one pool).
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from zmon.collectors.iostat import HISTOGRAM_MODES, iostat_metrics
from zmon.parsers.common.pow2_histogram import BUCKET_SETS
from zmon.parsers.zpool.zpool_iostat import HISTO_BUCKETS, parse_zpool_iostat

# The header lines of the lab's captures (OpenZFS 2.3.2, ``-p``), after their name column:
# the generated outputs keep zpool's layout (widths, right-aligned numbers), not only its words.
_TABLE_NAME_WIDTH = 29
TABLE_TOP = (
    " "
    * _TABLE_NAME_WIDTH
    + "              capacity                         operations                         "
    "bandwidth                   total_wait               disk_wait              syncq_wait"
    "              asyncq_wait            scrub        trim     rebuild   syncq_read   "
    "syncq_write   asyncq_read   asyncq_write  scrubq_read   trimq_write   rebuildq_write"
)
TABLE_BOTTOM = (
    "pool"
    + " " * (_TABLE_NAME_WIDTH - 4)
    + "            alloc             free             read            write             read"
    "            write        read       write        read       write        read       write"
    "        read       write        wait        wait        wait" + "  pend  activ" * 7
)
_TABLE_WIDTHS = (15,) * 6 + (10,) * 11 + (5,) * 14
HISTO_TOP = "   total_wait     disk_wait    syncq_wait    asyncq_wait"
HISTO_BOTTOM = "".join(f"  {w:>5}" for w in ("read", "write") * 4 + ("scrub", "trim", "rebuild"))
# the bucket labels ``zpool iostat -p -w`` prints (the upper bound of each power of two)
HISTO_LABELS = (
    "1ns 3ns 7ns 15ns 31ns 63ns 127ns 255ns 511ns 1us 2us 4us 8us 16us 32us 65us 131us 262us "
    "524us 1ms 2ms 4ms 8ms 16ms 33ms 67ms 134ms 268ms 536ms 1s 2s 4s 8s 17s 34s 68s 137s"
).split()
# where each -w column of a spinning disk peaks (bucket index): total and disk wait of reads
# and writes, sync/async queue waits, scrub, trim and rebuild waits
_PEAKS = (21, 18, 20, 17, 12, 13, 14, 15, 20, None, None)


def host_rows(leaves: int, width: int = 10) -> list[tuple[int, str]]:
    """(depth, name) of one pool with ``leaves`` disks in raidz2 top-level vdevs of ``width``."""
    rows = [(0, "big")]
    for top in range(max(1, leaves // width)):
        rows.append((1, f"raidz2-{top}"))
        rows += [(2, f"disk{top * width + n}") for n in range(width)]
    return rows


def _sums(rows: list[tuple[int, str]], leaf: Callable[[str], list[list[int]] | list[int]]):  # type: ignore[no-untyped-def]
    """Each row's numbers: a leaf's own (seeded by its name), a vdev's the sum of its leaves'."""
    out: list[Any] = [None] * len(rows)
    for i in range(len(rows) - 1, -1, -1):
        depth, name = rows[i]
        below = []
        for j in range(i + 1, len(rows)):
            if rows[j][0] <= depth:
                break
            if rows[j][0] == depth + 1:
                below.append(out[j])
        out[i] = leaf(name) if not below else _add(below)
    return out


def _add(items: list[Any]) -> Any:  # noqa: ANN401 - lists of ints, nested or not
    if isinstance(items[0], list):
        return [_add([it[k] for it in items]) for k in range(len(items[0]))]
    return sum(items)


def _leaf_table(name: str) -> list[int]:
    rng = random.Random(f"table:{name}")
    ops = [rng.randrange(5, 400), rng.randrange(5, 600)]
    bandwidth = [o * rng.randrange(4096, 131072) for o in ops]
    waits = [rng.randrange(50_000, 20_000_000) for _ in range(11)]
    queues = [rng.choice((0, 0, 0, 0, 1, 2, 5)) for _ in range(14)]
    return [0, 0, *ops, *bandwidth, *waits, *queues]


def table_text(rows: list[tuple[int, str]]) -> str:
    """``zpool iostat -v -p -l -q`` of these rows, laid out as zpool prints it: a leaf's
    numbers seeded by its name, a vdev's the sums of its leaves' (capacity at the vdevs)."""
    values = _sums(rows, _leaf_table)
    lines = [
        TABLE_TOP,
        TABLE_BOTTOM,
        "  ".join("-" * w for w in (_TABLE_NAME_WIDTH, *_TABLE_WIDTHS)),
    ]
    for (depth, name), numbers in zip(rows, values, strict=True):
        cells = [str(v) for v in numbers]
        if depth < 2:
            cells[0], cells[1] = "1000000", "9000000"
        cells[14:17] = ["-", "-", "-"]  # scrub, trim and rebuild waits: no such I/Os
        cells[12] = "-" if depth == 2 else cells[12]  # (the lab's leaves had no async reads)
        text = " " * (2 * depth) + name
        lines.append(
            f"{text:<{_TABLE_NAME_WIDTH}}"
            + "".join(f"  {c:>{w}}" for c, w in zip(cells, _TABLE_WIDTHS, strict=True))
        )
    return "\n".join(lines) + "\n"


def _leaf_histogram(name: str) -> list[list[int]]:
    """A disk's 37 rows of 11 counts: each column a hump around its peak, seeded by ``name``."""
    rng = random.Random(f"histogram:{name}")
    columns = []
    for peak in _PEAKS:
        if peak is None:
            columns.append([0] * HISTO_BUCKETS)
            continue
        top = 10 ** rng.uniform(3.0, 7.0)
        centre = peak + rng.randrange(-2, 3)
        columns.append(
            [
                int(top * 0.45 ** abs(j - centre) * rng.uniform(0.6, 1.4))
                if abs(j - centre) <= 9 else 0
                for j in range(HISTO_BUCKETS)
            ]
        )  # fmt: skip
    return [list(row) for row in zip(*columns, strict=True)]


def histogram_text(rows: list[tuple[int, str]]) -> str:
    """``zpool iostat -p -w -v`` of these rows, laid out as zpool prints it (name column as
    wide as the longest name, counts right-aligned in columns of 5 that wider numbers push
    on): a leaf's counts seeded by its name, a vdev's the sums of its leaves'."""
    width = max(10, *(len(name) for _, name in rows))
    out = []
    for (_, name), counts in zip(rows, _sums(rows, _leaf_histogram), strict=True):
        out += ["", f"{name:<{width}}{HISTO_TOP}", f"{'latency':<{width}}{HISTO_BOTTOM}"]
        out.append("-" * width + "  -----" * 11)
        for label, row in zip(HISTO_LABELS, counts, strict=True):
            out.append(f"{label:<{width}}" + "".join(f"  {c:>5}" for c in row))
        out.append("-" * (width + 77))
    return "\n".join(out) + "\n"


@dataclass(frozen=True)
class Figures:
    mode: str
    buckets: str
    series: int
    histogram_series: int
    parse_seconds: float


def measure(leaves: int = 1000) -> tuple[list[Figures], int, int]:
    """Figures for every (histograms, latency_buckets) pair, and the ``-v`` outputs' sizes."""
    rows = host_rows(leaves)
    table, histos = table_text(rows), histogram_text(rows)
    pool_histos = histogram_text([r for r in rows if r[0] == 0])  # -w without -v
    figures = []
    for mode in HISTOGRAM_MODES:
        for buckets in BUCKET_SETS:
            start = time.perf_counter()
            parsed = parse_zpool_iostat(table)
            if mode != "none":
                text = pool_histos if mode == "pool" else histos
                parsed.histograms = parse_zpool_iostat(text).histograms
            ms = iostat_metrics(parsed, mode, buckets)
            elapsed = time.perf_counter() - start
            fams = ms.families()
            total = sum(len(f.samples) for f in fams)
            hist = sum(len(f.samples) for f in fams if f.type == "histogram")
            figures.append(Figures(mode, buckets, total, hist, elapsed))
    return figures, len(table), len(histos)


def main() -> None:
    leaves = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    rows = host_rows(leaves)
    tops = sum(1 for d, _ in rows if d == 1)
    figures, table_size, histo_size = measure(leaves)
    print(f"host: 1 pool, {tops} raidz2 top-level vdevs, {leaves} leaf vdevs ({len(rows)} rows)")
    print(
        f"zpool iostat -v -p -l -q output: {table_size / 1024:.0f} KiB; "
        f"zpool iostat -p -w -v output: {histo_size / 1024:.0f} KiB"
    )
    print(f"{'histograms':<10} {'buckets':<7} {'series':>8} {'histogram':>10} {'parse+build':>12}")
    for f in figures:
        print(
            f"{f.mode:<10} {f.buckets:<7} {f.series:>8} {f.histogram_series:>10} "
            f"{f.parse_seconds * 1000:>10.0f}ms"
        )


if __name__ == "__main__":
    main()
