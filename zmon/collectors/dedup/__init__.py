"""Dedup table size per pool (``zpool status -D -p``) and DDT lookup kstats (2.3+)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from zmon.base.runner import CommandError
from zmon.collecting.registry import Collector, Context, NoDataError, register, register_parse_kind
from zmon.exposition.metrics import MetricSet
from zmon.host import zfs_commands as cmds
from zmon.parsers.kstat.pool_kstats import parse_named_kstat
from zmon.parsers.zpool.ddt import (
    DdtHistogram,
    DdtSummary,
    parse_dedup_status,
    parse_module_version,
    parse_zdb_histogram,
    version_prints_totals,
)

_SRC = "zpool status -D"
_KSTAT = "kstat ddt_stats_<checksum>"
DDT_TIERS = ("live", "log", "stored")
LOG_STATES = ("active", "flushing")


def _bucket_label(refcnt: int) -> str:
    return str(refcnt)


def _histogram_metrics(ms: MetricSet, hist: DdtHistogram, labels: Mapping[str, str]) -> None:
    for refcnt, stat in sorted(hist.buckets.items()):
        bl = {**labels, "refcnt": _bucket_label(refcnt)}
        ms.gauge(
            "zmon_pool_ddt_bucket_allocated_blocks",
            f"Unique blocks in the DDT refcount bucket starting at refcnt ({_SRC}).",
            stat.blocks,
            bl,
        )
        ms.gauge(
            "zmon_pool_ddt_bucket_referenced_blocks",
            f"Block references in the DDT refcount bucket ({_SRC}).",
            stat.ref_blocks,
            bl,
        )
    total = hist.total
    if total is None:
        return
    ms.gauge(
        "zmon_pool_ddt_allocated_blocks",
        f"Unique blocks tracked by the DDT ({_SRC}).",
        total.blocks,
        labels,
    )
    ms.gauge(
        "zmon_pool_ddt_referenced_blocks",
        f"Block references through the DDT ({_SRC}).",
        total.ref_blocks,
        labels,
    )
    for kind, alloc, ref in (
        ("lsize", total.lsize, total.ref_lsize),
        ("psize", total.psize, total.ref_psize),
        ("dsize", total.dsize, total.ref_dsize),
    ):
        ms.gauge(
            "zmon_pool_ddt_allocated_bytes",
            f"Bytes of unique deduplicated blocks; kind is lsize/psize/dsize ({_SRC}).",
            alloc,
            {**labels, "kind": kind},
        )
        ms.gauge(
            "zmon_pool_ddt_referenced_bytes",
            f"Bytes referenced through the DDT, as if not deduplicated ({_SRC}).",
            ref,
            {**labels, "kind": kind},
        )


def ddt_metrics(summaries: Sequence[DdtSummary]) -> MetricSet:
    """DDT size metrics; byte figures are totals for the table (see zmon.parsers.zpool.ddt)."""
    ms = MetricSet()
    for s in summaries:
        labels = {"pool": s.pool}
        ms.gauge(
            "zmon_pool_ddt_entries", f"Entries in the dedup table ({_SRC}).", s.entries, labels
        )
        ms.gauge(
            "zmon_pool_ddt_on_disk_bytes",
            f"Total on-disk size of the dedup table ({_SRC}; entries x per-entry size "
            "before OpenZFS 2.3).",
            s.on_disk_bytes,
            labels,
        )
        ms.gauge(
            "zmon_pool_ddt_in_core_bytes",
            f"Total size of the dedup table when held in RAM ({_SRC}; entries x per-entry "
            "size before OpenZFS 2.3).",
            s.in_core_bytes,
            labels,
        )
        ms.gauge(
            "zmon_pool_ddt_cached_bytes",
            f"Part of the dedup table currently cached in the ARC ({_SRC}, 2.3+).",
            s.cached_bytes,
            labels,
        )
        if s.histogram is not None:
            _histogram_metrics(ms, s.histogram, labels)
    return ms


def ddt_kstat_metrics(
    stats: Mapping[tuple[str, str], Mapping[str, int | str]], skip_idle: bool = True
) -> MetricSet:
    """Lookup counters from ``ddt_stats_<checksum>``, keyed by (pool, checksum).

    Tables whose counters are all zero (checksums never used for dedup) are skipped.
    """
    ms = MetricSet()
    for (pool, checksum), rows in sorted(stats.items()):
        nums = {k: v for k, v in rows.items() if isinstance(v, int)}
        if skip_idle and not any(nums.values()):
            continue
        labels = {"pool": pool, "checksum": checksum}
        ms.counter(
            "zmon_pool_ddt_lookups_total", f"DDT lookups ({_KSTAT}).", nums.get("lookup"), labels
        )
        ms.counter(
            "zmon_pool_ddt_lookup_new_total",
            f"DDT lookups that found no entry and created one ({_KSTAT}).",
            nums.get("lookup_new"),
            labels,
        )
        ms.counter(
            "zmon_pool_ddt_lookup_existing_total",
            f"DDT lookups that found an existing entry ({_KSTAT}).",
            nums.get("lookup_existing"),
            labels,
        )
        for tier in DDT_TIERS:
            tl = {**labels, "tier": tier}
            ms.counter(
                "zmon_pool_ddt_lookup_hits_total",
                f"DDT lookup hits by tier: live (in memory), log, stored ({_KSTAT}).",
                nums.get(f"lookup_{tier}_hit"),
                tl,
            )
            ms.counter(
                "zmon_pool_ddt_lookup_misses_total",
                f"DDT lookup misses by tier ({_KSTAT}).",
                nums.get(f"lookup_{tier}_miss"),
                tl,
            )
        for state in LOG_STATES:
            ms.gauge(
                "zmon_pool_ddt_log_entries",
                f"Entries in the fast-dedup log, active or being flushed ({_KSTAT}).",
                nums.get(f"log_{state}_entries"),
                {**labels, "state": state},
            )
    return ms


@register_parse_kind("zpool-dedup", "zpool status -D output, or a zdb -S / -DD DDT histogram")
def parse_dedup_kind(data: bytes) -> MetricSet:
    if b"dedup:" in data:
        return ddt_metrics(parse_dedup_status(data))
    hist = parse_zdb_histogram(data)
    ms = MetricSet()
    if not hist.simulated:
        _histogram_metrics(ms, hist, {"pool": ""})
    return ms


@register
class DedupCollector(Collector):
    """Does the dedup table fit in RAM: DDT entries and on-disk/in-core totals per pool."""

    name: ClassVar[str] = "dedup"
    binaries: ClassVar[tuple[str, ...]] = ("zpool", "sysctl")
    help: ClassVar[str] = "Dedup table size and histogram (zpool status -D -p) and DDT kstats."
    default_interval: ClassVar[float] = 300.0
    default_timeout: ClassVar[float] = 30.0

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self._status_argv = ["zpool", "status", "-D", "-p"]
        self._version: tuple[int, ...] | None = None
        self._version_known = False

    def _module_version(self) -> tuple[int, ...] | None:
        if self._version_known:
            return self._version
        text = ""
        try:
            text = self.ctx.paths.sys("module", "zfs", "version").read_text()
        except OSError:
            text = self._version_from_commands()
        self._version = parse_module_version(text) if text else None
        self._version_known = True
        return self._version

    def _version_from_commands(self) -> str:
        """The kernel module's version from sysctl (FreeBSD) or ``zpool version``; "" if none."""
        tries: list[tuple[list[str], str]] = [(["zpool", "version"], "kmod")]
        if self.ctx.platform == "freebsd":
            tries.insert(0, (["sysctl", "-n", "vfs.zfs.version.module"], ""))
        for argv, marker in tries:
            try:
                result = cmds.run(self.ctx, argv)
            except (NoDataError, CommandError):
                continue
            if result.returncode == 0:
                lines = result.stdout.decode("utf-8", "replace").splitlines()
                line = next((ln for ln in lines if marker in ln), "")
                if line:
                    return line
        return ""

    def _status(self) -> bytes:
        result = cmds.run(self.ctx, self._status_argv)
        if result.returncode != 0 and cmds.rejected_option(result):
            self._status_argv = ["zpool", "status", "-D"]
            result = cmds.run(self.ctx, self._status_argv)
        return result.check().stdout

    def _kstats(self) -> dict[tuple[str, str], dict[str, int | str]]:
        base = self.ctx.paths.proc("spl", "kstat", "zfs")
        out: dict[tuple[str, str], dict[str, int | str]] = {}
        if not base.is_dir():
            return out
        for path in sorted(base.glob("*/ddt_stats_*")):
            try:
                out[(path.parent.name, path.name.removeprefix("ddt_stats_"))] = parse_named_kstat(
                    path.read_bytes()
                )
            except (OSError, ValueError):
                continue
        return out

    def collect(self) -> MetricSet:
        text = self._status()
        totals = version_prints_totals(self._module_version())
        ms = ddt_metrics(parse_dedup_status(text, totals_format=totals))
        ms.extend(ddt_kstat_metrics(self._kstats()))
        return ms
