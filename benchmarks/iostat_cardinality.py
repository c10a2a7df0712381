"""Series count and parse cost of the iostat collector on a large host, for each option value.

Builds the two outputs the collector reads (``zpool iostat -v -p -l -q`` and
``zpool iostat -p -w -v``) for a synthetic host, in the 2.3 format of the lab captures, parses
them and counts the exported series. Run: ``python benchmarks/iostat_cardinality.py [LEAVES]``
(default 1000 leaf vdevs: 100 raidz2 top-level vdevs of 10 disks, in one pool).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from zmon.collectors.iostat import HISTOGRAM_MODES, iostat_metrics  # noqa: E402
from zmon.parsers.pow2_histogram import BUCKET_SETS  # noqa: E402
from zmon.parsers.zpool_iostat import HISTO_BUCKETS, parse_zpool_iostat  # noqa: E402

TOP = (
    "capacity operations bandwidth total_wait disk_wait syncq_wait asyncq_wait scrub trim "
    "rebuild syncq_read syncq_write asyncq_read asyncq_write scrubq_read trimq_write "
    "rebuildq_write"
)
BOTTOM = "pool alloc free" + " read write" * 6 + " wait" * 3 + " pend activ" * 7
HISTO_TOP = "total_wait disk_wait syncq_wait asyncq_wait"
HISTO_BOTTOM = "latency" + " read write" * 4 + " scrub trim rebuild"


def host_rows(leaves: int, width: int = 10) -> list[tuple[int, str]]:
    """(depth, name) of one pool with ``leaves`` disks in raidz2 top-level vdevs of ``width``."""
    rows = [(0, "big")]
    for top in range(max(1, leaves // width)):
        rows.append((1, f"raidz2-{top}"))
        rows += [(2, f"disk{top * width + n}") for n in range(width)]
    return rows


def table_text(rows: list[tuple[int, str]]) -> str:
    lines = [TOP, BOTTOM, "-" * 40]
    for depth, name in rows:
        cap = "0 0" if depth == 2 else "1000000 9000000"
        values = f"{cap} 3 40 12000 300000" + " 800000" * 8 + " - - -" + " 0" * 14
        lines.append(" " * (2 * depth) + f"{name}  {values}")
    return "\n".join(lines) + "\n"


def histogram_text(rows: list[tuple[int, str]]) -> str:
    out = []
    for _, name in rows:
        out += ["", f"{name}  {HISTO_TOP}", HISTO_BOTTOM, "-" * 40]
        for j in range(HISTO_BUCKETS):
            count = 1000 >> abs(j - 18) if abs(j - 18) < 10 else 0
            out.append(f"{j}ns" + f" {count}" * 11)
        out.append("-" * 40)
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
