"""Per-dataset space, quotas, compression, snapshots (count, newest) and I/O (``zfs list``,
objset kstats)."""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from zmon.base import logs
from zmon.base.errors import ParseError
from zmon.base.runner import CommandError
from zmon.collecting.registry import Collector, Context, Option, OptionError, register
from zmon.exposition.metrics import MetricSet
from zmon.host import zfs_commands as cmds
from zmon.parsers.kstat.pool_kstats import ObjsetStats, parse_objset
from zmon.parsers.zfs.zfs_datasets import (
    AUTO_SNAPSHOT_PROPERTY,
    COLUMNS,
    Dataset,
    parse_zfs_get,
    parse_zfs_list,
    zfs_list_rows,
)
from zmon.parsers.zfs.zfs_snapshots import DatasetSnapshots, parse_snapshot_times

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
    "quota": ("zmon_dataset_quota_bytes",
              f"Quota, the limit on used (children and snapshots included); absent when none "
              f"is set ({_L}).", True),
    "refquota": ("zmon_dataset_refquota_bytes",
                 f"Refquota, the limit on referenced; absent when none is set ({_L}).", True),
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


SNAPSHOTS_HELP = "Snapshots of the dataset (zfs list -t snapshot, counted)."
EXPECTED_SINCE_HELP = (
    "Unix time since when the dataset should have snapshots (its creation); present only "
    "for the datasets the snapshot policy selects (options snapshot_expected, "
    "snapshot_not_expected, snapshot_property), whose snapshot age ZfsDatasetSnapshotOverdue "
    "judges, with or without a snapshot."
)
NEWEST_SNAPSHOT_HELP = (
    "Unix time the dataset's newest snapshot was taken (zfs list -t snapshot creation); "
    "absent while it has none; its age is time() minus this. One per exported dataset "
    "(max_series)."
)


def dataset_samples(
    ds: Dataset,
    snapshots: DatasetSnapshots | None,
    objset: ObjsetStats | None,
    *,
    listed: bool,
    expected: bool = False,
) -> list[Sample]:
    """Every sample one dataset contributes (counted against ``max_series``).

    ``listed`` says snapshots were listed this run: a dataset then has a snapshot count, 0
    when ``snapshots`` is None, and the newest snapshot's time only when it has one.
    ``expected`` says the snapshot policy selects it: it then has its creation time as the
    time since when snapshots are expected (when snapshots were listed).
    """
    labels = {"pool": ds.pool, "dataset": ds.name, "type": ds.type}
    out: list[Sample] = []
    for prop, (metric, help_text, only_positive) in PROPERTY_METRICS.items():
        value = ds.values.get(prop)
        if value is None or (only_positive and value <= 0):
            continue
        out.append(Sample("gauge", metric, help_text, value, labels))
    if listed:
        count = 0 if snapshots is None else snapshots.count
        out.append(Sample("gauge", "zmon_dataset_snapshots", SNAPSHOTS_HELP, count, labels))
    if listed and expected and ds.creation is not None:
        out.append(
            Sample(
                "gauge",
                "zmon_dataset_snapshots_expected_since_timestamp_seconds",
                EXPECTED_SINCE_HELP,
                ds.creation,
                labels,
            )
        )
    if listed and snapshots is not None:
        out.append(
            Sample(
                "gauge",
                "zmon_dataset_newest_snapshot_timestamp_seconds",
                NEWEST_SNAPSHOT_HELP,
                snapshots.newest_creation,
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


@dataclass(frozen=True)
class SnapshotPolicy:
    """Which datasets should be snapshotted: their snapshot age is judged, even with none.

    A dataset is selected when its ``prop`` user property is ``true`` (inherited, as
    zfs-auto-snapshot reads ``com.sun:auto-snapshot``) or its name matches an ``expected``
    glob; ``prop`` set to ``false`` opts it out, and a ``not_expected`` glob always does.
    The default selects nothing but the datasets marked with the property."""

    expected: Sequence[str] = ()
    not_expected: Sequence[str] = ()
    prop: str = AUTO_SNAPSHOT_PROPERTY

    def selects(self, ds: Dataset) -> bool:
        if any(fnmatch.fnmatchcase(ds.name, p) for p in self.not_expected):
            return False
        marked = ds.text.get(self.prop, "").strip().lower() if self.prop else ""
        if marked == "false":
            return False
        return marked == "true" or any(fnmatch.fnmatchcase(ds.name, p) for p in self.expected)


_USER_PROPERTY = re.compile(r"[a-z0-9_.:-]*:[a-z0-9_.:-]*")


def columns_for(prop: str) -> list[str]:
    """The ``zfs list -o`` columns with ``prop`` as the snapshot policy's property (none if
    empty)."""
    return [c for c in COLUMNS if c != AUTO_SNAPSHOT_PROPERTY] + ([prop] if prop else [])


def dataset_metrics(
    datasets: Iterable[Dataset],
    snapshots: Mapping[str, DatasetSnapshots] | None = None,
    objsets: ObjsetReader | None = None,
    max_series: int = 0,
    total: int | None = None,
    policy: SnapshotPolicy | None = None,
) -> MetricSet:
    """Metrics for already-selected datasets, dropping whole datasets past ``max_series``.

    ``datasets`` may be a lazy iterable (read as far as the cap lets datasets in) when
    ``total`` gives its length: the datasets past the cap are then counted, not built.
    """
    ms = MetricSet()
    used = dropped = seen = 0
    for ds in datasets:
        seen += 1
        if dropped:  # once over the cap, every later (deeper) dataset goes too
            dropped += 1
            if total is not None:
                dropped += total - seen
                break
            continue
        samples = dataset_samples(
            ds,
            None if snapshots is None else snapshots.get(ds.name),
            None if objsets is None else objsets.stats(ds),
            listed=snapshots is not None,
            expected=policy is not None and policy.selects(ds),
        )
        if max_series and used + len(samples) > max_series:
            dropped += 1
            if total is not None:  # the rest is not read at all
                dropped += total - seen
                break
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


class ObjsetReader:
    """Objset kstats by dataset, read only for the datasets asked for.

    A host with 10,000 datasets has 10,000 objset kstats, and ``max_series`` may export a
    few hundred datasets: reading and parsing every file each run would be most of the run.
    Files are named by objset id, which a dataset keeps. Where
    ``zfs list`` gives the id (``objsetid``), ``stats`` opens the dataset's own file and
    nothing is listed. Otherwise (an older zfs, or a file that names another dataset) the
    directory is listed, at most once a run: the file of each dataset is remembered from the
    first reading, files that appear are read once to learn their dataset. Every read checks
    the name it finds, so a renamed dataset is never given another's figures.
    """

    def __init__(self) -> None:
        self._names: dict[tuple[str, str], str] = {}  # (pool dir, file) -> dataset
        self._files: dict[str, tuple[str, str]] = {}  # dataset -> (pool dir, file)
        self._dir: Path | None = None
        self._pending: dict[str, ObjsetStats] = {}  # read while learning names, this run
        self._listed: list[tuple[str, str]] = []  # the files of the last scan
        self._scan_due = False  # ``begin`` started a run that has not listed the files yet
        self._present = False  # the kstat directory exists

    def begin(self, kstat_dir: Path) -> None:
        """Start a run: the directory is listed only when a dataset's id does not find it."""
        self._dir, self._pending = kstat_dir, {}
        self._present = kstat_dir.is_dir()
        self._scan_due = self._present

    def stats(self, ds: Dataset) -> ObjsetStats | None:
        """The dataset's objset kstat: its own file by objset id, else found by listing."""
        if not self._present:
            return None
        ident = ds.objsetid
        if ident is not None:
            stats = self._read((ds.pool, f"objset-0x{ident:x}"))
            if stats is None:  # no kstat for that id: a dataset that is not mounted
                return None
            if stats.dataset == ds.name:
                return stats
        return self.get(ds.name)

    def scan(self, kstat_dir: Path) -> None:
        """List the objset files now present; read the new ones to learn their datasets."""
        self._dir, self._pending = kstat_dir, {}
        self._present, self._scan_due = True, False
        files = _objset_files(kstat_dir) if kstat_dir.is_dir() else []
        if len(files) == len(self._names) == len(self._files) and files == self._listed:
            # the same files, each one's dataset known (a rename found by ``get`` drops its
            # entries): the maps stay, since 20,000 entries made again every run would leave
            # the allocator's memory in holes between the runs
            return
        self._listed = files
        names = {f: self._names[f] for f in files if f in self._names}
        for f in files:
            if f not in names:
                stats = self._read(f)
                if stats is not None:
                    names[f] = stats.dataset
                    self._pending[stats.dataset] = stats
        self._names = names
        self._files = {name: f for f, name in names.items()}

    def get(self, dataset: str) -> ObjsetStats | None:
        """The kstat of the dataset so named, found by listing the directory."""
        if self._scan_due:
            assert self._dir is not None
            self.scan(self._dir)
        stats = self._pending.pop(dataset, None)
        if stats is not None:
            return stats
        where = self._files.get(dataset)
        if where is None:
            return None
        stats = self._read(where)
        if stats is None or stats.dataset != dataset:  # gone, or renamed since: read anew
            self._names.pop(where, None)
            self._files.pop(dataset, None)
            return None
        return stats

    def _read(self, where: tuple[str, str]) -> ObjsetStats | None:
        assert self._dir is not None
        pool, name = where
        try:
            with open(os.path.join(self._dir, pool, name), "rb") as fh:
                return parse_objset(name.removeprefix("objset-"), fh.read())
        except (OSError, ValueError):
            return None  # a dataset unmounted between listing and reading


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
        "Per-dataset space, quotas, snapshot count and newest snapshot time, and I/O "
        "(zfs list -Hp, or zfs get -Hp where list lacks -p; objset kstats)."
    )
    default_interval: ClassVar[float] = 60.0
    default_timeout: ClassVar[float] = 30.0
    options: ClassVar[tuple[Option, ...]] = (
        Option("include", list, [], "Glob patterns of datasets to export (default all); "
               "'*' also matches '/', e.g. 'tank/home*'."),
        Option("exclude", list, [], "Glob patterns of datasets to leave out; wins over include."),
        Option("max_series", int, 10000, "Hard cap on dataset series; whole datasets past it "
               "are dropped (deepest first) and zmon_datasets_truncated is set. 0 = no cap."),
        Option("count_snapshots", bool, True, "List snapshots for each dataset's count and "
               "newest snapshot time (zfs list -Hp -t snapshot -o name,creation)."),
        Option("snapshot_timeout", float, 20.0, "Seconds the snapshot listing may take; past "
               "it the listing is killed and only the snapshot series are left out."),
        Option("io_kstats", bool, True, "Read per-dataset I/O from objset kstats (Linux)."),
        Option("snapshot_property", str, AUTO_SNAPSHOT_PROPERTY, "User property that selects "
               "a dataset for the snapshot policy when true (inherited) and opts it out when "
               "false; '' reads none."),
        Option("snapshot_expected", list, [], "Glob patterns of datasets that should be "
               "snapshotted, besides those the property marks: ZfsDatasetSnapshotOverdue judges "
               "their newest snapshot's age, or their age when they have none."),
        Option("snapshot_not_expected", list, [], "Glob patterns of datasets never judged "
               "for snapshot age; wins over the property and snapshot_expected."),
    )  # fmt: skip

    @classmethod
    def validate_options(cls, options: Mapping[str, Any]) -> None:
        prop = options.get("snapshot_property") or ""
        if prop and not _USER_PROPERTY.fullmatch(prop):
            raise OptionError(
                "snapshot_property",
                f"{prop!r} is not a ZFS user property (lower case, with a colon: "
                "com.sun:auto-snapshot)",
            )
        for key in ("snapshot_expected", "snapshot_not_expected"):
            bad = [p for p in options.get(key) or [] if not isinstance(p, str) or not p]
            if bad:
                raise OptionError(key, f"patterns must be non-empty strings, not {bad[0]!r}")

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self._prop = str(self.option("snapshot_property") or "")
        self._columns = columns_for(self._prop)
        self._via_get = False  # zfs list has no -p (zfs-fuse 0.7): read zfs get -Hp instead
        self._objsets = ObjsetReader()

    def _snapshots(self) -> dict[str, DatasetSnapshots] | None:
        """Each dataset's snapshot count and newest creation time, from one listing; None
        when it failed or timed out (the space and I/O series stay)."""
        if self._via_get:  # zfs-fuse: no list -p, no get -t; get also lists the datasets
            argv = ["zfs", "get", "-Hp", "-o", "name,value", "creation"]
        else:
            argv = ["zfs", "list", "-Hp", "-t", "snapshot", "-o", "name,creation"]
        try:
            result = cmds.run(self.ctx, argv, timeout=float(self.option("snapshot_timeout")))
        except CommandError as exc:  # e.g. more output than the runner takes (~1M snapshots)
            _log.warning("snapshot listing failed", error=str(exc))
            return None
        if result.timed_out or result.returncode != 0:
            _log.warning(
                "snapshot listing failed",
                timed_out=result.timed_out,
                stderr=result.stderr[-200:].decode("utf-8", "replace"),
            )
            return None
        return parse_snapshot_times(result.stdout)

    def _datasets_via_get(self) -> list[Dataset]:
        """Every dataset from ``zfs get``, where zfs list lacks -p (``_listed`` found out)."""
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
            # no objset ids: a zfs whose list lacks -p (zfs-fuse) has no objset kstats; and
            # no snapshot policy columns (zfs-fuse is not known to answer them here)
            [c for c in self._columns if c not in ("objsetid", "creation", self._prop)],
            required=("name", "type"),
        )
        self._columns = cols
        return parse_zfs_get(out, cols)

    def collect(self) -> MetricSet:
        include, exclude = self.option("include"), self.option("exclude")
        listed = self._listed()
        rows: list[tuple[str, int, str]] = []
        chosen: list[Dataset] = []
        if listed is None:  # zfs get: every dataset is parsed already
            chosen = select(self._datasets_via_get(), include, exclude)
        else:  # zfs list: rows are parsed as far as max_series lets datasets in
            rows = select_rows(*listed, include, exclude)
        snaps = self._snapshots() if self.option("count_snapshots") else None
        objsets = None
        if self.option("io_kstats"):
            self._objsets.begin(self.ctx.paths.proc("spl", "kstat", "zfs"))
            objsets = self._objsets
        cap = int(self.option("max_series"))
        policy = SnapshotPolicy(
            self.option("snapshot_expected"), self.option("snapshot_not_expected"), self._prop
        )
        if listed is None:
            ms = dataset_metrics(chosen, snaps, objsets, cap, policy=policy)
        else:
            ms = dataset_metrics(
                _parsed(rows, listed[1]), snaps, objsets, cap, len(rows), policy=policy
            )
        if self.option("count_snapshots"):
            ms.gauge(
                "zmon_datasets_snapshot_listing_success",
                "1 when this run listed the snapshots; 0 when the listing failed or timed out "
                "(snapshot_timeout), and the snapshot series are absent.",
                0 if snaps is None else 1,
            )
        return ms

    def _listed(self) -> tuple[str, list[str]] | None:
        """``zfs list -Hp`` of filesystems and volumes and its columns, or None where zfs
        list lacks -p (then ``_datasets_via_get`` reads zfs get)."""
        if self._via_get:
            return None
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
            return None
        self._columns = cols
        return out.decode("utf-8", "replace") if isinstance(out, bytes) else out, list(cols)


def select_rows(
    text: str, columns: Sequence[str], include: Sequence[str], exclude: Sequence[str]
) -> list[tuple[str, int, str]]:
    """``select`` on the rows of ``zfs list -H`` before they are parsed: (name, line number,
    line) of the chosen datasets, shallow ones first. Every row's column count is checked."""
    name_col = list(columns).index("name")
    rows: list[tuple[str, int, str]] = []
    for no, line, fields in zfs_list_rows(text, len(columns)):
        rows.append((fields[name_col].strip(), no, line))
    names = select([Dataset(name, "") for name, _, _ in rows], include, exclude)
    by_name = {name: (name, no, line) for name, no, line in rows}
    return [by_name[d.name] for d in names]


def _parsed(rows: Sequence[tuple[str, int, str]], columns: Sequence[str]) -> Iterator[Dataset]:
    for _, no, line in rows:
        try:
            yield parse_zfs_list(line, columns)[0]
        except ParseError as exc:
            raise ParseError(exc.message, no, line) from None
