"""Per-dataset space, compression, snapshot counts and I/O (``zfs list``, objset kstats)."""

from __future__ import annotations

import fnmatch
import os
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from zmon import logs
from zmon.host import zfs_commands as cmds
from zmon.metrics import MetricSet
from zmon.parsers.pool_kstats import ObjsetStats, parse_objset
from zmon.parsers.zfs_datasets import (
    COLUMNS,
    Dataset,
    count_snapshots,
    parse_zfs_get,
    parse_zfs_list,
)
from zmon.registry import Collector, Context, Option, register
from zmon.runner import CommandError

_log = logs.get("datasets")

_L = "zfs list"
# property -> (metric, help, only exported when > 0)
PROPERTY_METRICS: dict[str, tuple[str, str, bool]] = {
    "used": ("zmon_dataset_used_bytes", f"Space used by the dataset and its children ({_L}).",
             False),
    "available": ("zmon_dataset_available_bytes", f"Space available to the dataset ({_L}).",
                  False),
    "referenced": ("zmon_dataset_referenced_bytes", f"Data the dataset references ({_L}).",
                   False),
    "compressratio": ("zmon_dataset_compress_ratio",
                      f"Compression ratio of the used space ({_L} compressratio).", False),
    "refcompressratio": ("zmon_dataset_referenced_compress_ratio",
                         f"Compression ratio of the referenced data ({_L}).", False),
    "quota": ("zmon_dataset_quota_bytes", f"Quota; absent when none is set ({_L}).", True),
    "refquota": ("zmon_dataset_refquota_bytes", f"Refquota; absent when none ({_L}).", True),
    "reservation": ("zmon_dataset_reservation_bytes", f"Reservation; absent when none ({_L}).",
                    True),
    "refreservation": ("zmon_dataset_refreservation_bytes",
                       f"Refreservation; absent when none ({_L}).", True),
    "logicalused": ("zmon_dataset_logical_used_bytes",
                    f"Used space before compression ({_L} logicalused).", False),
    "logicalreferenced": ("zmon_dataset_logical_referenced_bytes",
                          f"Referenced data before compression ({_L}).", False),
    "written": ("zmon_dataset_written_since_snapshot_bytes",
                f"Data written since the latest snapshot ({_L} written).", False),
    "usedbysnapshots": ("zmon_dataset_used_by_snapshots_bytes",
                        f"Space held only by snapshots ({_L} usedbysnapshots).", False),
    "usedbydataset": ("zmon_dataset_used_by_dataset_bytes",
                      f"Space used by the dataset itself ({_L} usedbydataset).", False),
    "usedbychildren": ("zmon_dataset_used_by_children_bytes",
                       f"Space used by child datasets ({_L} usedbychildren).", False),
    "usedbyrefreservation": ("zmon_dataset_used_by_refreservation_bytes",
                             f"Space held by the refreservation ({_L}).", False),
    "volsize": ("zmon_dataset_volume_size_bytes", f"Logical size of a volume ({_L} volsize).",
                False),
}  # fmt: skip
_KS = "kstat objset-0x*"
# ObjsetStats attribute -> (counter, help)
KSTAT_METRICS: dict[str, tuple[str, str]] = {
    "reads": ("zmon_dataset_reads_total", f"Read operations on the dataset ({_KS})."),
    "nread": ("zmon_dataset_read_bytes_total", f"Bytes read from the dataset ({_KS})."),
    "writes": ("zmon_dataset_writes_total", f"Write operations on the dataset ({_KS})."),
    "nwritten": ("zmon_dataset_written_bytes_total", f"Bytes written to the dataset ({_KS})."),
    "nunlinks": ("zmon_dataset_unlinks_total", f"Files queued for unlink ({_KS} nunlinks)."),
    "nunlinked": ("zmon_dataset_unlinked_total", f"Files unlinked ({_KS} nunlinked)."),
    "zil_commit_count": ("zmon_dataset_zil_commits_total", f"ZIL commits ({_KS}, 2.2+)."),
}


@dataclass(frozen=True)
class Sample:
    kind: str  # "gauge" or "counter"
    name: str
    help: str
    value: float
    labels: Mapping[str, str]


def dataset_samples(ds: Dataset, snapshots: int | None, objset: ObjsetStats | None) -> list[Sample]:
    """Every sample one dataset contributes (counted against ``max_series``)."""
    labels = {"pool": ds.pool, "dataset": ds.name, "type": ds.type}
    out: list[Sample] = []
    for prop, (metric, help_text, only_positive) in PROPERTY_METRICS.items():
        value = ds.values.get(prop)
        if value is None or (only_positive and value <= 0):
            continue
        out.append(Sample("gauge", metric, help_text, value, labels))
    if snapshots is not None:
        out.append(
            Sample(
                "gauge",
                "zmon_dataset_snapshots",
                "Snapshots of the dataset (zfs list -t snapshot, counted).",
                snapshots,
                labels,
            )
        )
    if objset is not None:
        for attr, (metric, help_text) in KSTAT_METRICS.items():
            value = getattr(objset, attr)
            if value is not None:
                out.append(Sample("counter", metric, help_text, value, labels))
    return out


def select(
    datasets: Sequence[Dataset], include: Sequence[str], exclude: Sequence[str]
) -> list[Dataset]:
    """Apply glob patterns (``*`` also matches ``/``); exclude wins. Shallow datasets first."""

    def keep(name: str) -> bool:
        if include and not any(fnmatch.fnmatchcase(name, p) for p in include):
            return False
        return not any(fnmatch.fnmatchcase(name, p) for p in exclude)

    return sorted((d for d in datasets if keep(d.name)), key=lambda d: (d.depth, d.name))


def dataset_metrics(
    datasets: Sequence[Dataset],
    snapshots: Mapping[str, int] | None = None,
    objsets: Mapping[str, ObjsetStats] | None = None,
    max_series: int = 0,
) -> MetricSet:
    """Metrics for already-selected datasets, dropping whole datasets past ``max_series``."""
    ms = MetricSet()
    used = dropped = 0
    for ds in datasets:
        if dropped:  # once over the cap, every later (deeper) dataset goes too
            dropped += 1
            continue
        count = None if snapshots is None else snapshots.get(ds.name, 0)
        samples = dataset_samples(ds, count, (objsets or {}).get(ds.name))
        if max_series and used + len(samples) > max_series:
            dropped += 1
            continue
        used += len(samples)
        for s in samples:
            add = ms.counter if s.kind == "counter" else ms.gauge
            add(s.name, s.help, s.value, s.labels)
    ms.gauge(
        "zmon_datasets_truncated",
        "1 when datasets were left out to stay under the collector's max_series.",
        1 if dropped else 0,
    )
    ms.gauge("zmon_datasets_dropped", "Datasets left out because of max_series.", dropped)
    return ms


def read_objsets(kstat_dir: Path) -> dict[str, ObjsetStats]:
    """Objset kstats of every pool, keyed by dataset name (Linux; empty when absent)."""
    out: dict[str, ObjsetStats] = {}
    if not kstat_dir.is_dir():
        return out
    for pool, name in _objset_files(kstat_dir):
        try:
            with open(os.path.join(kstat_dir, pool, name), "rb") as fh:
                stats = parse_objset(name.removeprefix("objset-"), fh.read())
        except (OSError, ValueError):
            continue  # a dataset unmounted between listing and reading
        out[stats.dataset] = stats
    return out


def _objset_files(kstat_dir: Path) -> list[tuple[str, str]]:
    """(pool directory, file) of every ``objset-0x*`` kstat, in path order (os.scandir: a
    glob of Path objects and their sorting cost more than reading 10,000 small files)."""
    found = []
    with os.scandir(kstat_dir) as pools:
        for pool in pools:
            if not pool.is_dir():
                continue
            try:
                with os.scandir(pool.path) as files:
                    found += [(pool.name, f.name) for f in files if f.name.startswith("objset-0x")]
            except OSError:
                continue
    return sorted(found)


@register
class DatasetsCollector(Collector):
    """Filesystems and volumes: space, compression, quotas, snapshots, per-dataset I/O."""

    name: ClassVar[str] = "datasets"
    binaries: ClassVar[tuple[str, ...]] = ("zfs",)
    help: ClassVar[str] = (
        "Per-dataset space and I/O (zfs list -Hp, or zfs get -Hp where list "
        "lacks -p; objset kstats)."
    )
    default_interval: ClassVar[float] = 60.0
    default_timeout: ClassVar[float] = 30.0
    options: ClassVar[tuple[Option, ...]] = (
        Option("include", list, [], "Glob patterns of datasets to export (default all); "
               "'*' also matches '/', e.g. 'tank/home*'."),
        Option("exclude", list, [], "Glob patterns of datasets to leave out; wins over include."),
        Option("max_series", int, 10000, "Hard cap on dataset series; whole datasets past it "
               "are dropped (deepest first) and zmon_datasets_truncated is set. 0 = no cap."),
        Option("count_snapshots", bool, True, "Count snapshots per dataset "
               "(zfs list -t snapshot -o name); costly with very many snapshots."),
        Option("io_kstats", bool, True, "Read per-dataset I/O from objset kstats (Linux)."),
    )  # fmt: skip

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self._columns = list(COLUMNS)
        self._via_get = False  # zfs list has no -p (zfs-fuse 0.7): read zfs get -Hp instead

    def _snapshot_counts(self) -> Counter[str] | None:
        result = cmds.run(self.ctx, ["zfs", "list", "-H", "-t", "snapshot", "-o", "name"])
        if result.returncode != 0:
            _log.warning(
                "snapshot listing failed", stderr=result.stderr[-200:].decode("utf-8", "replace")
            )
            return None
        return count_snapshots(result.stdout)

    def _datasets(self) -> list[Dataset]:
        if not self._via_get:
            try:
                out, cols = cmds.negotiate_columns(
                    self.ctx,
                    lambda c: ["zfs", "list", "-Hp", "-t", "filesystem,volume", "-o", ",".join(c)],
                    self._columns,
                    required=("name", "type"),
                )
            except CommandError as exc:
                if exc.result is None or not cmds.rejected_option(exc.result):
                    raise
                _log.info("datasets_via_zfs_get", reason="zfs list -p not supported")
                self._via_get = True
            else:
                self._columns = cols
                return parse_zfs_list(out, cols)
        out, cols = cmds.negotiate_columns(
            self.ctx,
            lambda c: [
                "zfs",
                "get",
                "-Hp",
                "-o",
                "name,property,value",
                ",".join(p for p in c if p != "name"),
            ],
            self._columns,
            required=("name", "type"),
        )
        self._columns = cols
        return parse_zfs_get(out, cols)

    def collect(self) -> MetricSet:
        chosen = select(self._datasets(), self.option("include"), self.option("exclude"))
        snaps = self._snapshot_counts() if self.option("count_snapshots") else None
        objsets = None
        if self.option("io_kstats"):
            objsets = read_objsets(self.ctx.paths.proc("spl", "kstat", "zfs"))
        return dataset_metrics(chosen, snaps, objsets, int(self.option("max_series")))
