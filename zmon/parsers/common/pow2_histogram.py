"""Power-of-two nanosecond histograms from ZFS, as Prometheus cumulative buckets in seconds.

ZFS keeps latency histograms with power-of-two nanosecond buckets:

* ``zpool iostat -w`` (vdev ``vsx_*_histo``): row ``j`` counts values ``2^j <= v < 2^(j+1)``
  (``L_HISTO``: ``highbit64(v) - 1``, 0 for v = 0); the last row (j = 36) also takes everything
  longer (the index is clamped), so it is an overflow bucket.
* ``/proc/spl/kstat/zfs/<pool>/dmu_tx_assign``: row ``2^i ns`` counts ``2^(i-1) < v <= 2^i``
  (``spa_tx_assign_add_nsecs``); rows after the last non-zero one are not printed.

Both are normalised here to ``upper exponent k -> count``, meaning ``v <= 2^k`` ns, plus an
overflow count. The Prometheus buckets are a fixed set of ``le = 2^k ns`` bounds so that every
series has the same buckets from scrape to scrape; finer buckets below the first bound fold
into it, and anything above the last bound only reaches ``+Inf``. ``_sum`` is estimated from
bucket midpoints, the same estimate ``zpool iostat -l`` prints as its average.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate
from operator import mul
from typing import cast

# 2^10 ns (1.02 us) .. 2^36 ns (68.7 s): every power of two ("fine") or every fourth ("coarse").
FINE_EXPONENTS: tuple[int, ...] = tuple(range(10, 37))
COARSE_EXPONENTS: tuple[int, ...] = tuple(range(10, 37, 2))
BUCKET_SETS: Mapping[str, tuple[int, ...]] = {"fine": FINE_EXPONENTS, "coarse": COARSE_EXPONENTS}


@dataclass(frozen=True)
class Pow2Histogram:
    """Counts by upper exponent (``v <= 2^k`` ns), the unbounded overflow, and a sum estimate."""

    counts: Mapping[int, int]
    overflow: int = 0
    sum_ns: float = 0.0

    @property
    def count(self) -> int:
        return sum(self.counts.values()) + self.overflow

    def buckets(self, exponents: Sequence[int] = FINE_EXPONENTS) -> list[tuple[float, float]]:
        """Cumulative ``(le seconds, count)`` pairs for the given bounds (``+Inf`` not included)."""
        ordered = sorted(self.counts.items())
        out: list[tuple[float, float]] = []
        i = running = 0
        n = len(ordered)
        for exp in exponents:
            while i < n and ordered[i][0] <= exp:
                running += ordered[i][1]
                i += 1
            out.append((_SECONDS[exp], float(running)))
        return out

    @property
    def sum_seconds(self) -> float:
        return self.sum_ns / 1e9


def from_iostat_rows(rows: Sequence[int]) -> Pow2Histogram:
    """A ``zpool iostat -w`` column: row j is ``[2^j, 2^(j+1))`` ns; the last row overflows."""
    if not rows:
        return Pow2Histogram({})
    last = len(rows) - 1
    counts = {j + 1: n for j, n in enumerate(rows) if n and j < last}
    total = sum(n * _MIDPOINTS[j] for j, n in enumerate(rows) if n)
    return Pow2Histogram(counts, rows[last], total)


def iostat_cumulative(
    rows: Sequence[int], exponents: Sequence[int] = FINE_EXPONENTS
) -> tuple[list[float], int, float]:
    """``from_iostat_rows(rows)``'s buckets, count and sum in seconds, computed directly.

    The same numbers as ``from_iostat_rows(rows).buckets(exponents)`` (their counts, in
    order; ``bucket_bounds`` gives the bounds), ``.count`` and ``.sum_seconds``, without the
    intermediate mapping: a big host's ``histograms = "all"`` makes 12,000 histograms a run.
    Bucket ``2^e`` holds rows ``0 .. min(e, last) - 1``.
    """
    if not rows:
        return [0.0] * len(exponents), 0, 0.0
    last = len(rows) - 1
    running = [0, *accumulate(rows[:last])]
    # ints, not floats: a float would be a new object for each of the 30,000 counts a big
    # host's run makes, where these are the running sums' own (the exposition and the
    # samples read them as numbers)
    cumulative = cast(
        list[float], list(map(running.__getitem__, _bucket_index(tuple(exponents), last)))
    )
    total = sum(map(mul, rows, _MIDPOINTS))  # zero rows add 0.0: the same sum as skipping them
    return cumulative, running[last] + rows[last], total / 1e9


def bucket_bounds(exponents: Sequence[int] = FINE_EXPONENTS) -> tuple[float, ...]:
    """The upper bounds in seconds of ``exponents``' buckets."""
    return tuple(_SECONDS[e] for e in exponents)


@lru_cache(maxsize=64)
def _bucket_index(exponents: tuple[int, ...], last: int) -> list[int]:
    return [min(e, last) for e in exponents]


def from_upper_bounds(rows: Mapping[int, int]) -> Pow2Histogram:
    """Rows keyed by exponent i meaning ``2^(i-1) < v <= 2^i`` ns (``dmu_tx_assign``)."""
    counts = {i: n for i, n in rows.items() if n}
    total = sum(n * (1.0 if i == 0 else 0.75 * (1 << i)) for i, n in counts.items())
    return Pow2Histogram(counts, 0, total)


# Midpoint of ``[2^j, 2^(j+1))`` as zpool computes it: ``2^j + 2^j / 2`` in integers.
_MIDPOINTS = tuple(float((1 << j) + ((1 << j) // 2)) for j in range(64))
_SECONDS = tuple((1 << k) / 1e9 for k in range(64))
