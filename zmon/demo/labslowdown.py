"""The demo's slowdown, replayed from the lab: what OpenZFS 2.1.11 did with a 64 MiB ARC under
an 80 MiB working set (the `arc-large` phase of tests/lab/README.md, "The slowdown run").

``data/lab-slowdown/`` holds that phase's arcstats and `zpool iostat -p -w -v` at its start and
end, as the lab captured them. The demo takes their shares, not their counts (the lab's TCG
guest reads a few hundred blocks a second): the hit ratio, the shares of the misses that were
MRU and MFU ghost hits, the ghost lists' size against ``c_max``, and the shape of the pool's read
latency distribution. zmon/demo/timeline.py applies them to the demo's own host: tank's access
rate and the ARC's recorded ``c_max`` (1.9 GiB against the lab's 64 MiB).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from zmon.parsers.kstat.arcstats import parse_arcstats_kstat
from zmon.parsers.zpool.zpool_iostat import parse_zpool_iostat

DATA = Path(__file__).parent / "data"
CAPTURE = DATA / "lab-slowdown"
POOL = "slow"  # the lab's pool
READ_COLUMN = "total_wait_read"


@dataclass(frozen=True)
class LabSlowdown:
    """The shares the demo replays."""

    hit_ratio: float  # hits per ARC access
    mru_ghost_share: float  # MRU ghost hits per miss
    mfu_ghost_share: float  # MFU ghost hits per miss
    ghost_per_c_max: float  # MRU + MFU ghost lists' size at the phase's end, per c_max
    latency: tuple[tuple[str, float], ...]  # (`zpool iostat -w` row, share of the reads)


def _arcstats(name: str) -> dict[str, int]:
    stats = parse_arcstats_kstat((CAPTURE / name).read_bytes())
    return {k: e.value for k, e in stats.fields.items() if isinstance(e.value, int)}


def _read_histogram(name: str) -> tuple[int, ...]:
    parsed = parse_zpool_iostat((CAPTURE / name).read_bytes())
    (block,) = [b for b in parsed.histograms if b.name == POOL]
    return block.columns[READ_COLUMN]


def _row_names(name: str) -> list[str]:
    """The histogram's row names (`1ns` ... `137s`), in bucket order, from the capture's first
    block."""
    lines = (CAPTURE / name).read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("-----")) + 1
    rows = []
    for line in lines[start:]:
        if not line.strip() or line.startswith("-----"):
            break
        rows.append(line.split()[0])
    return rows


@cache
def captured() -> LabSlowdown:
    """The lab's arc-large phase, as shares."""
    start, end = _arcstats("arcstats-start.txt"), _arcstats("arcstats-end.txt")
    rise = {k: end[k] - start[k] for k in ("hits", "misses", "mru_ghost_hits", "mfu_ghost_hits")}
    before = _read_histogram("zpool-iostat-p-w-v-start.txt")
    after = _read_histogram("zpool-iostat-p-w-v-end.txt")
    reads = [a - b for a, b in zip(after, before, strict=True)]
    rows = _row_names("zpool-iostat-p-w-v-end.txt")
    total = sum(reads)
    if total <= 0 or rise["misses"] <= 0 or len(rows) != len(reads):
        raise ValueError(f"{CAPTURE}: no reads or misses captured")
    return LabSlowdown(
        hit_ratio=rise["hits"] / (rise["hits"] + rise["misses"]),
        mru_ghost_share=rise["mru_ghost_hits"] / rise["misses"],
        mfu_ghost_share=rise["mfu_ghost_hits"] / rise["misses"],
        ghost_per_c_max=(end["mru_ghost_size"] + end["mfu_ghost_size"]) / end["c_max"],
        latency=tuple((row, n / total) for row, n in zip(rows, reads, strict=True) if n),
    )


def recorded_c_max() -> int:
    """The demo ARC's c_max as recorded (data/arcstats.txt)."""
    stats = parse_arcstats_kstat((DATA / "arcstats.txt").read_bytes())
    value = stats.fields["c_max"].value
    assert isinstance(value, int)
    return value
