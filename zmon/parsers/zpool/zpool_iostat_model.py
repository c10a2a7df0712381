"""The records ``zpool iostat`` output is parsed into, its column names and cell values."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from zmon.base.errors import ParseError
from zmon.parsers.common.units import parse_nice

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

DEFAULT_COLUMNS = tuple(
    f"{g}_{s}" for g in ("capacity", "operations", "bandwidth") for s in GROUPS[g]
)
DASHES = re.compile(r"^-+(?:\s+-+)*$")
HISTO_HEADER = re.compile(
    r"^(?P<name>\S.*?)\s+total_wait\s+disk_wait\s+(?:syncq_wait|sync_queue)\s+"
    r"(?:asyncq_wait|async_queue)\s*$"
)
NICETIME = re.compile(r"^(?P<num>\d+(?:\.\d+)?)(?P<unit>ns|us|ms|s)$")
_TIME_SCALE = {"ns": 1, "us": 1_000, "ms": 1_000_000, "s": 1_000_000_000}


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


def parse_nicetime(text: str) -> int | None:
    """``133ns`` -> 133, ``1.5ms`` -> 1500000, ``-`` -> None; an integer is already ns."""
    if text == "-":
        return None
    if text.isascii() and text.isdigit():
        return int(text)
    m = NICETIME.match(text)
    if m is None:
        raise ValueError(f"not a zpool latency: {text!r}")
    return round(float(m.group("num")) * _TIME_SCALE[m.group("unit")])


def cell(key: str, text: str) -> int | None:
    if text.isascii() and text.isdigit():
        return int(text)
    if text == "-":
        return None
    if "wait" in key and not key.endswith(("_pend", "_activ")):
        return parse_nicetime(text)
    return parse_nice(text)


def values(
    columns: tuple[str, ...], cells: list[str], line_no: int, line: str
) -> dict[str, int | None]:
    """A table row's cells by column; ParseError naming the line if one is not a number."""
    try:
        return {
            k: int(c) if c.isdigit() and c.isascii() else cell(k, c)
            for k, c in zip(columns, cells, strict=True)
        }
    except ValueError as exc:
        raise ParseError(str(exc), line_no, line) from None
