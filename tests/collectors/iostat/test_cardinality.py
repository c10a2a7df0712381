"""Series counts of the iostat collector per option value, as benchmarks/iostat_cardinality.py
prints them and zmon/collectors/iostat/README.md documents them for a 1,000-disk host."""

from __future__ import annotations

import pytest

from benchmarks import iostat_cardinality as bench
from tests.helpers import collector_doc

TABLE_SERIES = 14 + 4  # queue pending/active x 7 queues, lifetime averages ops/bytes x read/write
HISTOGRAMS = 11  # total r/w, disk r/w, 7 queues
PER_HISTOGRAM = {"fine": 27 + 1 + 2, "coarse": 14 + 1 + 2}  # bounds, +Inf, _count, _sum


def expected(mode: str, buckets: str, leaves: int) -> tuple[int, int]:
    tops = leaves // 10
    vdevs = tops + leaves
    rows = {"toplevel": 1 + tops, "all": 1 + vdevs, "pool": 1, "none": 0}[mode]
    histogram = HISTOGRAMS * PER_HISTOGRAM[buckets] * rows
    op_counters = 2 * vdevs if mode in ("toplevel", "all") else 0
    return TABLE_SERIES * (1 + vdevs) + op_counters + histogram, histogram


def test_series_counts_follow_the_formula() -> None:
    figures, _, _ = bench.measure(30)
    assert len(figures) == 8
    for f in figures:
        assert (f.series, f.histogram_series) == expected(f.mode, f.buckets, 30), f


@pytest.mark.parametrize(
    ("mode", "buckets"),
    [("toplevel", "fine"), ("all", "fine"), ("all", "coarse"), ("pool", "fine"), ("none", "fine")],
)
def test_documented_1000_disk_figures(mode: str, buckets: str) -> None:
    doc = collector_doc("iostat").read_text()
    total, histogram = expected(mode, buckets, 1000)
    assert f"| `{mode}` | {buckets} | {total:,} | {histogram:,} |" in doc
