"""Transaction-group sync times and the write throttle, per pool: ``txgs`` and ``dmu_tx_assign``.

The ``txgs`` kstat is a ring of recent txgs, so the collector remembers, per pool, the last
committed txg it has counted: each committed txg enters the counters and the sync-time
histogram exactly once, however often the ring is read. See zmon/collectors/txg/README.md.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar, TypeVar

import structlog

from zmon.base.errors import ParseError
from zmon.base.runner import CommandResult
from zmon.collecting.registry import Collector, Context, NoDataError, register, register_parse_kind
from zmon.exposition.metrics import MetricSet
from zmon.host import zfs_commands as cmds
from zmon.parsers.common.pow2_histogram import FINE_EXPONENTS, from_upper_bounds
from zmon.parsers.kstat.txgs import (
    TxAssign,
    TxgRow,
    parse_dmu_tx_assign,
    parse_txgs,
    pool_of,
    split_sections,
)

log = structlog.get_logger(__name__)

# Sync-time histogram bounds, seconds: 1 ms to 60 s (a sync over a few seconds is a stall).
SYNC_BOUNDS = (
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
    20.0,
    30.0,
    60.0,
)
PHASES = (("open", "otime_ns"), ("quiesce", "qtime_ns"), ("wait", "wtime_ns"))
_COUNTED = (("ndirty", "zmon_pool_txg_dirty_bytes_total", "Dirty bytes the txgs carried"),
            ("nread", "zmon_pool_txg_read_bytes_total", "Bytes read while syncing"),
            ("nwritten", "zmon_pool_txg_written_bytes_total", "Bytes written while syncing"),
            ("reads", "zmon_pool_txg_reads_total", "Read I/Os while syncing"),
            ("writes", "zmon_pool_txg_writes_total", "Write I/Os while syncing"))  # fmt: skip
_SRC = "kstat zfs/<pool>/txgs, committed txgs seen since zmon started"
_POOL_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:\- ]*$")


@dataclass
class PoolTxgs:
    """What zmon has counted for one pool across reads of its txgs ring."""

    last_txg: int | None = None
    bins: list[int] = field(default_factory=lambda: [0] * (len(SYNC_BOUNDS) + 1))
    sync_seconds: float = 0.0
    totals: dict[str, int] = field(default_factory=dict)
    phase_seconds: dict[str, float] = field(default_factory=dict)
    missed: int = 0
    window_max_sync: float | None = None
    window_max_dirty: int | None = None

    def add(self, rows: Iterable[TxgRow]) -> int:
        """Count committed txgs newer than the last one counted; returns how many were new."""
        committed = sorted((r for r in rows if r.committed), key=lambda r: r.txg)
        if committed and self.last_txg is not None and committed[-1].txg < self.last_txg:
            self.last_txg = None  # txg numbers went back: a different pool of that name
        new = [r for r in committed if self.last_txg is None or r.txg > self.last_txg]
        self.window_max_sync = self.window_max_dirty = None
        if not new:
            return 0
        if self.last_txg is not None:
            self.missed += max(0, new[0].txg - self.last_txg - 1)
        for row in new:
            seconds = row.stime_ns / 1e9
            self.bins[_bin(seconds)] += 1
            self.sync_seconds += seconds
            for attr, _, _ in _COUNTED:
                self.totals[attr] = self.totals.get(attr, 0) + (getattr(row, attr) or 0)
            for phase, attr in PHASES:
                value = getattr(row, attr)
                if value is not None:
                    self.phase_seconds[phase] = self.phase_seconds.get(phase, 0.0) + value / 1e9
        self.window_max_sync = max(r.stime_ns for r in new) / 1e9
        dirty = [r.ndirty for r in new if r.ndirty is not None]
        self.window_max_dirty = max(dirty) if dirty else None
        self.last_txg = new[-1].txg
        return len(new)

    @property
    def count(self) -> int:
        return sum(self.bins)


def _bin(seconds: float) -> int:
    for i, bound in enumerate(SYNC_BOUNDS):
        if seconds <= bound:
            return i
    return len(SYNC_BOUNDS)


def txg_metrics(history: dict[str, PoolTxgs], assign: dict[str, TxAssign]) -> MetricSet:
    """Metrics for the counted txgs of each pool and each pool's dmu_tx_assign histogram."""
    ms = MetricSet()
    for pool in sorted(history):
        h, labels = history[pool], {"pool": pool}
        running, buckets = 0, []
        for bound, n in zip(SYNC_BOUNDS, h.bins, strict=False):
            running += n
            buckets.append((bound, float(running)))
        ms.histogram(
            "zmon_pool_txg_sync_duration_seconds",
            f"Time each txg took to sync (stime; {_SRC})",
            buckets,
            h.count,
            h.sync_seconds,
            labels,
        )
        for attr, metric, text in _COUNTED:
            ms.counter(
                metric, f"{text}, summed over txgs ({attr}; {_SRC})", h.totals.get(attr, 0), labels
            )
        for phase, _ in PHASES:
            ms.counter(
                "zmon_pool_txg_phase_seconds_total",
                f"Time txgs spent open, quiescing and waiting for the previous sync "
                f"(otime/qtime/wtime; {_SRC})",
                h.phase_seconds.get(phase, 0.0),
                {**labels, "phase": phase},
            )
        ms.counter(
            "zmon_pool_txgs_missed_total",
            "Txgs that left the txgs ring between two reads, so were never counted "
            "(raise the read rate or zfs_txg_history)",
            h.missed,
            labels,
        )
        ms.gauge(
            "zmon_pool_txg_sync_max_seconds",
            "Longest sync among the txgs committed since the previous collection "
            "(kstat zfs/<pool>/txgs stime); absent when none committed",
            h.window_max_sync,
            labels,
        )
        ms.gauge(
            "zmon_pool_txg_dirty_max_bytes",
            "Most dirty data in one txg among those committed since the previous "
            "collection (kstat zfs/<pool>/txgs ndirty)",
            h.window_max_dirty,
            labels,
        )
    for pool in sorted(assign):
        hist = from_upper_bounds(assign[pool].buckets)
        ms.histogram(
            "zmon_pool_dmu_tx_assign_seconds",
            "Time transactions waited in dmu_tx_wait() before they could be assigned to "
            "a txg (write throttle, dirty data limit, suspended pool), since import "
            "(kstat zfs/<pool>/dmu_tx_assign; _sum estimated from bucket midpoints)",
            hist.buckets(FINE_EXPONENTS),
            hist.count,
            hist.sum_seconds,
            {"pool": pool},
        )
    return ms


@register_parse_kind(
    "txgs",
    "per-pool txgs kstat (one file, or `tail -n +1 .../zfs/*/txgs` for pool names); "
    "dmu_tx_assign sections of such a dump too",
)
def parse_txgs_kind(data: bytes) -> MetricSet:
    history: dict[str, PoolTxgs] = {}
    assign: dict[str, TxAssign] = {}
    for path, text in split_sections(data):
        if path is not None and path.endswith("dmu_tx_assign"):
            parsed = parse_dmu_tx_assign(text)
            assign[pool_of(path, "dmu_tx_assign") or parsed.pool or ""] = parsed
            continue
        if path is not None and not path.endswith("txgs"):
            continue
        pool = pool_of(path, "txgs") or ""
        history.setdefault(pool, PoolTxgs()).add(parse_txgs(text))
    if not history and not assign:
        raise ParseError("no txgs kstat in the input")
    return txg_metrics(history, assign)


@register
class TxgCollector(Collector):
    """Txg sync-time histogram and counters, and the tx-assign (write throttle) histogram."""

    name: ClassVar[str] = "txg"
    binaries: ClassVar[tuple[str, ...]] = ("zpool", "sysctl")
    help: ClassVar[str] = (
        "Per-pool txg sync times, dirty/read/written bytes (txgs kstat) and dmu_tx_assign waits."
    )
    default_interval: ClassVar[float] = 15.0
    default_timeout: ClassVar[float] = 5.0

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.history: dict[str, PoolTxgs] = {}

    def collect(self) -> MetricSet:
        if self.ctx.platform == "freebsd":
            sources = self._freebsd()
        else:
            sources = self._linux()
        seen: dict[str, PoolTxgs] = {}
        assign: dict[str, TxAssign] = {}
        for pool, txgs, tx_assign in sources:
            rows = _parse_or_log(parse_txgs, txgs, pool, "txgs")
            if rows is not None:
                state = self.history.setdefault(pool, PoolTxgs())
                state.add(rows)
                seen[pool] = state
            parsed = _parse_or_log(parse_dmu_tx_assign, tx_assign, pool, "dmu_tx_assign")
            if parsed is not None:
                assign[pool] = parsed
        return txg_metrics(seen, assign)

    def _linux(self) -> list[tuple[str, bytes | None, bytes | None]]:
        base = self.ctx.paths.proc("spl", "kstat", "zfs")
        if not base.is_dir():
            raise NoDataError(f"{base} does not exist: the zfs module is not loaded")
        out = []
        for pool_dir in sorted(p for p in base.iterdir() if p.is_dir()):
            txgs, assign = _read(pool_dir / "txgs"), _read(pool_dir / "dmu_tx_assign")
            if txgs is not None or assign is not None:
                out.append((pool_dir.name, txgs, assign))
        return out

    def _freebsd(self) -> list[tuple[str, bytes | None, bytes | None]]:
        names = cmds.output(self.ctx, ["zpool", "list", "-H", "-o", "name"]).decode()
        out = []
        for pool in names.split("\n"):
            if not _POOL_NAME.match(pool):
                continue
            txgs = _stdout(self.ctx.runner.run(["sysctl", "-n", f"kstat.zfs.{pool}.txgs"]))
            assign = _stdout(
                self.ctx.runner.run(["sysctl", f"kstat.zfs.{pool}.misc.dmu_tx_assign"])
            )
            out.append((pool, txgs if txgs and txgs.strip() else None, assign))
        return out


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _stdout(result: CommandResult) -> bytes | None:
    if result.timed_out:
        result.check()
    return result.stdout if result.returncode == 0 else None


_Parsed = TypeVar("_Parsed")


def _parse_or_log(
    parse: Callable[[bytes], _Parsed], data: bytes | None, pool: str, what: str
) -> _Parsed | None:
    if data is None:
        return None
    try:
        return parse(data)
    except ParseError as exc:
        log.warning("txg_kstat_unparsed", pool=pool, kstat=what, error=str(exc))
        return None
