"""Per-pool Linux kstats: state, guid, iostats (0.8+), old io kstat (to 2.0), txgs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from zmon.collecting.registry import Collector, NoDataError, register
from zmon.exposition.metrics import MetricSet
from zmon.parsers.kstat.pool_kstats import (
    TxgSummary,
    parse_guid,
    parse_io_kstat,
    parse_named_kstat,
    parse_state,
    parse_txgs,
)

POOL_STATES = ("online", "degraded", "faulted", "offline", "removed", "unavail", "suspended")
TRIM_KINDS = (("manual", "trim"), ("auto", "autotrim"), ("simple", "simple_trim"))
TRIM_RESULTS = ("written", "skipped", "failed")
IO_PATHS = ("arc", "direct")
_POOL_FILES = ("state", "txgs", "io", "iostats")
_K = "kstat /proc/spl/kstat/zfs/<pool>"


@dataclass
class PoolKstats:
    """What one pool directory held; each part is None when its file was absent."""

    pool: str
    state: str | None = None
    guid: str | None = None
    iostats: dict[str, int | str] | None = None
    io: dict[str, int] | None = None
    txgs: TxgSummary | None = None
    errors: list[str] = field(default_factory=list)


def read_pool_kstats(pool_dir: Path) -> PoolKstats:
    """Read the small per-pool kstat files; a missing or unreadable file stays None."""
    out = PoolKstats(pool_dir.name)
    readers = (
        ("state", parse_state),
        ("guid", parse_guid),
        ("iostats", parse_named_kstat),
        ("io", parse_io_kstat),
        ("txgs", parse_txgs),
    )
    for name, parse in readers:
        path = pool_dir / name
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            continue
        except OSError as exc:
            out.errors.append(f"{name}: {exc.strerror or exc}")
            continue
        try:
            setattr(out, name, parse(data))
        except ValueError as exc:
            out.errors.append(f"{name}: {exc}")
    return out


def _iostats(ms: MetricSet, rows: Mapping[str, int | str], labels: dict[str, str]) -> None:
    def num(key: str) -> int | None:
        v = rows.get(key)
        return v if isinstance(v, int) else None

    for kind, prefix in TRIM_KINDS:
        for result in TRIM_RESULTS:
            tl = {**labels, "trim": kind, "result": result}
            ms.counter(
                "zmon_pool_kstat_trim_extents_total",
                f"TRIM extents by kind (manual/auto/simple) and result ({_K}/iostats).",
                num(f"{prefix}_extents_{result}"),
                tl,
            )
            ms.counter(
                "zmon_pool_kstat_trim_bytes_total",
                f"TRIM bytes by kind and result ({_K}/iostats).",
                num(f"{prefix}_bytes_{result}"),
                tl,
            )
    for path in IO_PATHS:
        for op in ("read", "write"):
            il = {**labels, "path": path, "op": op}
            ms.counter(
                "zmon_pool_kstat_io_operations_total",
                f"Pool reads/writes through the ARC or Direct I/O ({_K}/iostats).",
                num(f"{path}_{op}_count"),
                il,
            )
            ms.counter(
                "zmon_pool_kstat_io_bytes_total",
                f"Bytes read/written through the ARC or Direct I/O ({_K}/iostats).",
                num(f"{path}_{op}_bytes"),
                il,
            )


def _old_io(ms: MetricSet, io: Mapping[str, int], labels: dict[str, str]) -> None:
    src = f"{_K}/io, ZoL 0.6.3 to 2.0"
    ms.counter(
        "zmon_pool_kstat_io_read_bytes_total",
        f"Bytes read from the pool ({src}).",
        io.get("nread"),
        labels,
    )
    ms.counter(
        "zmon_pool_kstat_io_written_bytes_total",
        f"Bytes written to the pool ({src}).",
        io.get("nwritten"),
        labels,
    )
    ms.counter(
        "zmon_pool_kstat_io_reads_total", f"Read operations ({src}).", io.get("reads"), labels
    )
    ms.counter(
        "zmon_pool_kstat_io_writes_total", f"Write operations ({src}).", io.get("writes"), labels
    )
    timers = (
        ("wtime", "zmon_pool_kstat_io_wait_seconds_total", "waiting"),
        ("rtime", "zmon_pool_kstat_io_active_seconds_total", "active"),
    )
    for key, metric, what in timers:
        v = io.get(key)
        ms.counter(
            metric,
            f"Cumulative time with I/O {what} ({src}).",
            None if v is None else v / 1e9,
            labels,
        )
    ms.gauge("zmon_pool_kstat_io_wait_queue", f"I/Os waiting now ({src}).", io.get("wcnt"), labels)
    ms.gauge("zmon_pool_kstat_io_active_queue", f"I/Os active now ({src}).", io.get("rcnt"), labels)


def pool_kstat_metrics(pools: list[PoolKstats]) -> MetricSet:
    ms = MetricSet()
    for p in sorted(pools, key=lambda x: x.pool):
        labels = {"pool": p.pool}
        if p.state is not None:
            ms.state_set(
                "zmon_pool_kstat_state",
                f"Pool state from {_K}/state; 1 for the current state.",
                POOL_STATES,
                p.state,
                labels,
            )
        if p.guid is not None:
            ms.info(
                "zmon_pool_kstat_info",
                f"Pool guid from {_K}/guid; always 1.",
                {**labels, "guid": p.guid},
            )
        if p.iostats is not None:
            _iostats(ms, p.iostats, labels)
        if p.io is not None:
            _old_io(ms, p.io, labels)
        if p.txgs is not None and p.txgs.latest_txg is not None:
            ms.gauge(
                "zmon_pool_kstat_txg_latest",
                f"Newest transaction group in {_K}/txgs (normally the open one).",
                p.txgs.latest_txg,
                labels,
            )
        ms.gauge(
            "zmon_pool_kstat_read_errors",
            f"Per-pool kstat files that could not be read or parsed ({_K}).",
            len(p.errors),
            labels,
        )
    return ms


def pool_dirs(base: Path) -> list[Path]:
    """Subdirectories of the zfs kstat directory that belong to pools."""
    return [
        d
        for d in sorted(base.iterdir())
        if d.is_dir() and any((d / f).exists() for f in _POOL_FILES)
    ]


@register
class PoolKstatsCollector(Collector):
    """Cheap per-pool kstats (Linux): never runs a command, never blocks on pool locks."""

    name: ClassVar[str] = "pool_kstats"
    help: ClassVar[str] = "Per-pool kstats: state, guid, iostats/io counters, latest txg."
    default_interval: ClassVar[float] = 15.0
    default_timeout: ClassVar[float] = 5.0

    def collect(self) -> MetricSet:
        base = self.ctx.paths.proc("spl", "kstat", "zfs")
        if not base.is_dir():
            raise NoDataError(f"{base} does not exist")
        return pool_kstat_metrics([read_pool_kstats(d) for d in pool_dirs(base)])
