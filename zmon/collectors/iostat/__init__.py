"""Per-pool and per-vdev I/O from ``zpool iostat``: latency histograms, queue depths, op counts.

Two commands, no interval argument (nothing sleeps): ``zpool iostat -v -p -l -q`` gives the tree
(pools, top-level vdevs, leaves, allocation classes), the instantaneous queue depths and the
lifetime averages; ``zpool iostat -p -w [-v]`` gives the lifetime latency histograms, exported
as Prometheus histograms in seconds. See zmon/collectors/iostat/README.md.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import ClassVar

import structlog

from zmon.collecting.registry import Collector, Context, Option, register, register_parse_kind
from zmon.exposition.metrics import MetricSet, bucket_les
from zmon.host import zfs_commands as cmds
from zmon.parsers.common.pow2_histogram import (
    BUCKET_SETS,
    FINE_EXPONENTS,
    bucket_bounds,
    iostat_cumulative,
)
from zmon.parsers.zpool.zpool_iostat import (
    HistogramBlock,
    PoolIostat,
    VdevIostat,
    ZpoolIostat,
    parse_zpool_iostat,
)

log = structlog.get_logger(__name__)

TABLE_ARGV = ("zpool", "iostat", "-v", "-p", "-l", "-q")
LEGACY_TABLE_ARGV = ("zpool", "iostat", "-v")  # ZoL 0.6: no -p/-l/-q/-w
HISTO_ARGV = ("zpool", "iostat", "-p", "-w")
HISTOGRAM_MODES = ("toplevel", "all", "pool", "none")

OPS = ("read", "write")
# queue label -> (-q column group, -l/-w wait column)
QUEUES = (
    ("sync_read", "syncq_read", "syncq_wait_read"),
    ("sync_write", "syncq_write", "syncq_wait_write"),
    ("async_read", "asyncq_read", "asyncq_wait_read"),
    ("async_write", "asyncq_write", "asyncq_wait_write"),
    ("scrub", "scrubq_read", "scrub_wait"),
    ("trim", "trimq_write", "trim_wait"),
    ("rebuild", "rebuildq_write", "rebuild_wait"),
)
_SRC_W = "zpool iostat -w, lifetime counts"
_SRC_Q = "zpool iostat -q, instantaneous"
_SRC_AVG = (
    "zpool iostat without interval: the lifetime counter divided by the time since the "
    "vdev was opened; use rate() of the histogram counts for current rates"
)


def histogram_argv(mode: str) -> tuple[str, ...] | None:
    """The ``-w`` command for a histograms option value (None: do not run it)."""
    if mode == "none":
        return None
    return HISTO_ARGV if mode == "pool" else (*HISTO_ARGV, "-v")


def attach_histograms(parsed: ZpoolIostat) -> list[HistogramBlock]:
    """Give each ``-w`` block to its table row, matching names in printed order.

    ``-w`` prints blocks in the same order as the ``-v`` table prints rows (pools only without
    ``-v``), so each block goes to the next row of that name. Blocks without a row (the pool
    layout changed between the two commands) are returned.
    """
    rows = [row for pool in parsed.pools for row in pool.rows]
    unmatched: list[HistogramBlock] = []
    cursor = 0
    for block in parsed.histograms:
        idx = next((i for i in range(cursor, len(rows)) if rows[i].name == block.name), None)
        if idx is None:
            unmatched.append(block)
            continue
        rows[idx].histograms = block.columns
        cursor = idx + 1
    return unmatched


def _pools_from_blocks(blocks: Iterable[HistogramBlock]) -> list[PoolIostat]:
    """Histogram-only input: each block is a pool (``zpool iostat -w`` without ``-v``)."""
    pools = []
    for b in blocks:
        pools.append(
            PoolIostat(b.name, [VdevIostat(b.name, b.name, 0, "normal", {}, b.line_no, b.columns)])
        )
    return pools


def _unique_vdev_labels(pool: PoolIostat) -> Iterable[tuple[VdevIostat, dict[str, str]]]:
    seen: dict[tuple[str, str], int] = {}
    for row in pool.rows[1:]:
        key = (row.name, row.vdev_class)
        seen[key] = seen.get(key, 0) + 1
        name = row.name if seen[key] == 1 else f"{row.name}#{seen[key]}"
        yield row, {"pool": pool.name, "vdev": name, "class": row.vdev_class}


def iostat_metrics(
    parsed: ZpoolIostat, histograms: str = "toplevel", buckets: str = "fine"
) -> MetricSet:
    """Metrics for one table and/or histogram read; ``histograms`` picks whose are exported."""
    if histograms not in HISTOGRAM_MODES:
        raise ValueError(f"histograms must be one of {HISTOGRAM_MODES}")
    exponents = BUCKET_SETS.get(buckets, FINE_EXPONENTS)
    pools = parsed.pools or _pools_from_blocks(parsed.histograms)
    if parsed.pools and parsed.histograms:
        for block in attach_histograms(parsed):
            log.debug("iostat_histogram_unmatched", vdev=block.name)
    ms = MetricSet()
    for pool in pools:
        labels = {"pool": pool.name}
        if histograms != "none":
            _histograms(ms, "zmon_pool", pool.root, labels, exponents)
        _table(ms, "zmon_pool", pool.root, labels)
    for pool in pools:
        for row, labels in _unique_vdev_labels(pool):
            keep = histograms == "all" or (histograms == "toplevel" and row.depth == 1)
            if keep:
                _histograms(ms, "zmon_vdev", row, labels, exponents)
            _op_counts(ms, row, labels)
            _table(ms, "zmon_vdev", row, labels)
    return ms


def _histograms(
    ms: MetricSet, prefix: str, row: VdevIostat, labels: dict[str, str], exponents: tuple[int, ...]
) -> None:
    cols = row.histograms
    if not cols:
        return
    what = "pool" if prefix == "zmon_pool" else "vdev"
    for op in OPS:
        for stage, name, text in (
            ("total_wait", "io_latency", "Total I/O latency (queue + disk)"),
            ("disk_wait", "disk_latency", "Disk I/O latency (time on the device)"),
        ):
            col = cols.get(f"{stage}_{op}")
            if col is not None:
                _hist(
                    ms,
                    f"{prefix}_{name}_seconds",
                    f"{text} of leaf-vdev I/Os under this {what}, by op ({_SRC_W} {stage}; "
                    "_sum estimated from bucket midpoints)",
                    col,
                    {**labels, "op": op},
                    exponents,
                )
    for queue, _, wait in QUEUES:
        col = cols.get(wait)
        if col is not None:
            _hist(
                ms,
                f"{prefix}_queue_latency_seconds",
                f"Time I/Os waited in the {what}'s ZIO scheduler queue, by queue "
                f"({_SRC_W} syncq/asyncq/scrub/trim/rebuild wait; _sum estimated)",
                col,
                {**labels, "queue": queue},
                exponents,
            )


def _hist(
    ms: MetricSet,
    name: str,
    help_text: str,
    rows: tuple[int, ...],
    labels: dict[str, str],
    exponents: tuple[int, ...],
) -> None:
    cumulative, count, total = iostat_cumulative(rows, exponents)
    ms.histogram_cumulative(name, help_text, _les(exponents), cumulative, count, total, labels)


@functools.lru_cache(maxsize=8)
def _les(exponents: tuple[int, ...]) -> tuple[str, ...]:
    return bucket_les(bucket_bounds(exponents))


_OPS_HELP = (
    "Completed leaf I/Os under the vdev by op: the count of its total_wait histogram "
    f"({_SRC_W}); equals zmon_vdev_io_latency_seconds_count where that is exported"
)
# (metric suffix, help, value column) of the table gauges.
_QUEUE_GAUGES = (
    ("_queue_pending_ios", f"I/Os waiting in the ZIO scheduler queue ({_SRC_Q} pend)", "_pend"),
    ("_queue_active_ios", f"I/Os issued to the device from the queue ({_SRC_Q} activ)", "_activ"),
)
_AVERAGE_GAUGES = (
    ("_lifetime_average_operations_per_second",
     f"Operations per second averaged over the vdev's lifetime ({_SRC_AVG})", "operations_"),
    ("_lifetime_average_bytes_per_second",
     f"Bytes per second averaged over the vdev's lifetime ({_SRC_AVG})", "bandwidth_"),
)  # fmt: skip


def _op_counts(ms: MetricSet, row: VdevIostat, labels: dict[str, str]) -> None:
    cols = row.histograms or {}
    read, write = cols.get("total_wait_read"), cols.get("total_wait_write")
    ms.counter_row(
        "zmon_vdev_operations_total",
        _OPS_HELP,
        labels,
        "op",
        OPS,
        (None if read is None else sum(read), None if write is None else sum(write)),
    )


# The table gauges of a row, in the order they were once added one by one (that order made
# the families' order in the exposition): (family suffix, help, label, its value, column).
_TABLE_CELLS = tuple(
    [(suffix, text, "queue", queue, group + column)
     for queue, group, _ in QUEUES for suffix, text, column in _QUEUE_GAUGES]
    + [(suffix, text, "op", op, column + op)
       for op in OPS for suffix, text, column in _AVERAGE_GAUGES]
)  # fmt: skip


def _table_families() -> tuple[tuple[str, str, str, tuple[str, ...], tuple[str, ...]], ...]:
    """``_TABLE_CELLS`` by family, in the order of their first cells: (suffix, help, label,
    its values, their columns)."""
    families: dict[str, tuple[str, str, list[str], list[str]]] = {}
    for suffix, text, key, label, column in _TABLE_CELLS:
        family = families.setdefault(suffix, (text, key, [], []))
        family[2].append(label)
        family[3].append(column)
    return tuple((s, t, k, tuple(n), tuple(c)) for s, (t, k, n, c) in families.items())


_TABLE_FAMILIES = _table_families()


def _table(ms: MetricSet, prefix: str, row: VdevIostat, labels: dict[str, str]) -> None:
    """A row's queue depths and lifetime averages: one compact row per family (a family
    whose columns the table lacks, or prints as ``-``, gets nothing)."""
    if not row.values:
        return
    get = row.values.get
    for suffix, text, key, names, columns in _TABLE_FAMILIES:
        ms.gauge_row(prefix + suffix, text, labels, key, names, [get(c) for c in columns])


@register_parse_kind(
    "zpool-iostat",
    "zpool iostat -v table (default/-l/-q columns, aligned or -H) and/or -w latency histograms",
)
def parse_zpool_iostat_kind(data: bytes) -> MetricSet:
    return iostat_metrics(parse_zpool_iostat(data), histograms="all")


@register
class IostatCollector(Collector):
    """Latency histograms, queue depths and I/O counts per pool and vdev."""

    name: ClassVar[str] = "iostat"
    binaries: ClassVar[tuple[str, ...]] = ("zpool",)
    help: ClassVar[str] = (
        "Pool and vdev I/O latency histograms, queue depths and operation counts (zpool iostat)."
    )
    default_interval: ClassVar[float] = 15.0
    default_timeout: ClassVar[float] = 10.0
    options: ClassVar[tuple[Option, ...]] = (
        Option("histograms", str, "toplevel",
               "Whose latency histograms to export: the pool and its top-level vdevs "
               "(toplevel), every vdev (all), pools only (pool), or none.", HISTOGRAM_MODES),
        Option("latency_buckets", str, "fine",
               "Histogram bounds: every power of two from 1us to 69s (fine, 27 buckets) or "
               "every fourth (coarse, 14 buckets).", tuple(BUCKET_SETS)),
    )  # fmt: skip

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self._legacy = False

    def collect(self) -> MetricSet:
        mode = str(self.option("histograms"))
        parsed = parse_zpool_iostat(self._table_output())
        histo_argv = None if self._legacy else histogram_argv(mode)
        if histo_argv is not None:
            histograms = parse_zpool_iostat(cmds.output(self.ctx, histo_argv))
            parsed.histograms = histograms.histograms
        return iostat_metrics(parsed, mode, str(self.option("latency_buckets")))

    def _table_output(self) -> bytes:
        if not self._legacy:
            result = cmds.run(self.ctx, TABLE_ARGV)
            if not cmds.rejected_option(result):
                return result.check().stdout
            log.info("iostat_legacy_zpool", reason="zpool iostat -p -l -q not supported")
            self._legacy = True
        return cmds.output(self.ctx, LEGACY_TABLE_ARGV)
