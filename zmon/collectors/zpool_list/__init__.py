"""Pool space and properties from ``zpool list`` and ``zpool get``."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import ClassVar

from zmon.base.errors import NoDataError, ParseError
from zmon.base.runner import CommandError
from zmon.collecting.registry import Collector, Context, register, register_parse_kind
from zmon.exposition.metrics import MetricSet
from zmon.host import zfs_commands as cmds
from zmon.parsers.common.units import ABSENT, parse_nice
from zmon.parsers.zpool.zpool_list import (
    DEFAULT_COLUMNS,
    PoolListRow,
    PoolProps,
    looks_like_zpool_get,
    parse_percent_ratio,
    parse_x_ratio,
    parse_zpool_get,
    parse_zpool_list,
)

LIST_COLUMNS = DEFAULT_COLUMNS[12]  # the -o set zmon asks for; the parser knows it by count
INFO_PROPS = (
    "version",
    "ashift",
    "failmode",
    "autoexpand",
    "autoreplace",
    "autotrim",
    "multihost",
    "compatibility",
)
FEATURE_STATES = ("active", "enabled", "disabled")

# (metric, help, zpool list attribute / zpool get property, value parser)
_SPACE: tuple[tuple[str, str, str, Callable[[str], float | None]], ...] = (
    ("zmon_pool_size_bytes", "Pool size in bytes (zpool list SIZE).", "size", parse_nice),
    ("zmon_pool_allocated_bytes", "Allocated bytes (zpool list ALLOC).", "allocated",
     parse_nice),
    ("zmon_pool_free_bytes", "Free bytes (zpool list FREE).", "free", parse_nice),
    ("zmon_pool_capacity_ratio", "Allocated share of the pool, 0-1 (zpool list CAP).",
     "capacity", parse_percent_ratio),
    ("zmon_pool_fragmentation_ratio",
     "Free-space fragmentation, 0-1 (zpool list FRAG); absent when not computed.",
     "fragmentation", parse_percent_ratio),
    ("zmon_pool_dedup_ratio", "Deduplication ratio (zpool list DEDUP).", "dedupratio",
     parse_x_ratio),
    ("zmon_pool_expand_size_bytes",
     "Unused space the pool could grow into (zpool list EXPANDSZ); absent when none.",
     "expandsize", parse_nice),
    ("zmon_pool_checkpoint_bytes", "Space held by a pool checkpoint (zpool list CKPOINT).",
     "checkpoint", parse_nice),
)  # fmt: skip
_GET_ONLY: tuple[tuple[str, str, str], ...] = (
    ("zmon_pool_freeing_bytes", "Space still being freed after destroys (zpool get freeing).",
     "freeing"),
    ("zmon_pool_leaked_bytes", "Space leaked (zpool get leaked); should be 0.", "leaked"),
    ("zmon_pool_bclone_used_bytes", "Space used by cloned blocks (zpool get bcloneused).",
     "bcloneused"),
    ("zmon_pool_bclone_saved_bytes", "Space saved by block cloning (zpool get bclonesaved).",
     "bclonesaved"),
    ("zmon_pool_dedup_table_size_bytes",
     "Total on-disk size of all dedup tables (zpool get dedup_table_size, 2.3+).",
     "dedup_table_size"),
)  # fmt: skip


def _safe(parse: Callable[[str], float | None], raw: str | None) -> float | None:
    if raw is None:
        return None
    try:
        return parse(raw)
    except ValueError:
        return None


def _unix_seconds(raw: str) -> float | None:
    return float(raw) if raw.isdigit() else None  # zfs get -p prints whole seconds


def _row_number(row: PoolListRow | None, attr: str) -> float | None:
    """A numeric column of the pool's ``zpool list`` row; None without a row or a value."""
    value = getattr(row, attr, None)
    return value if isinstance(value, int | float) else None


def _row_text(row: PoolListRow | None, attr: str) -> str | None:
    """A text column of the pool's ``zpool list`` row; None without a row or a value."""
    value = getattr(row, attr, None)
    return value if isinstance(value, str) else None


def pool_metrics(rows: Sequence[PoolListRow], props: PoolProps | None = None) -> MetricSet:
    """Metrics for each pool from ``zpool list`` rows, completed by ``zpool get`` properties."""
    props = props or {}
    ms = MetricSet()
    by_name = {r.name: r for r in rows}
    pools = [r.name for r in rows] + [p for p in props if p not in by_name]
    for pool in pools:
        row = by_name.get(pool)
        got: Mapping[str, tuple[str, str]] = props.get(pool, {})
        labels = {"pool": pool}

        def prop(name: str, _got: Mapping[str, tuple[str, str]] = got) -> str | None:
            v = _got.get(name)
            return None if v is None or v[0] in ABSENT else v[0]

        for metric, help_text, attr, parse in _SPACE:
            value = _row_number(row, attr)
            if value is None:
                value = _safe(parse, prop(attr))
            ms.gauge(metric, help_text, value, labels)
        for metric, help_text, name in _GET_ONLY:
            ms.gauge(metric, help_text, _safe(parse_nice, prop(name)), labels)
        ms.gauge(
            "zmon_pool_creation_time_seconds",
            "Unix time the pool was created: the creation property of its root dataset "
            "(zfs get -Hp creation POOL...); absent when zfs cannot tell.",
            _safe(_unix_seconds, prop("creation")),
            labels,
        )
        readonly = prop("readonly")
        if readonly in ("on", "off"):
            ms.gauge(
                "zmon_pool_readonly",
                "1 when the pool is imported read-only (zpool get).",
                1.0 if readonly == "on" else 0.0,
                labels,
            )
        features = [v[0] for k, v in got.items() if k.startswith("feature@")]
        if features:
            for state in FEATURE_STATES:
                ms.gauge(
                    "zmon_pool_features",
                    "Pool feature flags by state (zpool get feature@*).",
                    sum(1 for f in features if f == state),
                    {**labels, "state": state},
                )
        health = _row_text(row, "health") or prop("health")
        info = {
            "pool": pool,
            "guid": str(_row_text(row, "guid") or prop("guid") or ""),
            "health": str(health or "").lower(),
            "altroot": str(_row_text(row, "altroot") or prop("altroot") or ""),
        }
        info.update({k: prop(k) or "" for k in INFO_PROPS})
        ms.info(
            "zmon_pool_info", "Pool identity and settings (zpool list, zpool get); always 1.", info
        )
    return ms


@register_parse_kind("zpool-list", "zpool list output (-H/-p/-v/-o or the table), or zpool get")
def parse_zpool_list_kind(data: bytes) -> MetricSet:
    if looks_like_zpool_get(data):
        props = parse_zpool_get(data)
        if not props:
            raise ParseError("no pool properties found")
        return pool_metrics([], props)
    rows = parse_zpool_list(data)
    if not rows and data.strip() and b"no pools available" not in data:
        raise ParseError("no pool rows found", 1, data.decode("utf-8", "replace").splitlines()[0])
    return pool_metrics(rows)


@register
class ZpoolListCollector(Collector):
    """Pool size, allocation, fragmentation, dedup ratio, health and settings."""

    name: ClassVar[str] = "zpool_list"
    binaries: ClassVar[tuple[str, ...]] = ("zpool",)
    help: ClassVar[str] = (
        "Pool space and properties (zpool list -Hp, zpool get -Hp all, zfs get -Hp creation)."
    )
    default_interval: ClassVar[float] = 30.0
    default_timeout: ClassVar[float] = 15.0

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self._columns: list[str] | None = list(LIST_COLUMNS)
        self._get_argv: list[str] = ["zpool", "get", "-Hp", "all"]
        self._creation_known = True
        # without -o: the forms to try, most exact first (zfs-fuse has no -p)
        self._plain = [["zpool", "list", "-Hp"], ["zpool", "list", "-H"], ["zpool", "list"]]

    def _list(self) -> list[PoolListRow]:
        if self._columns is not None:
            try:
                out, cols = cmds.negotiate_columns(
                    self.ctx,
                    lambda c: ["zpool", "list", "-Hp", "-o", ",".join(c)],
                    self._columns,
                    required=("name",),
                )
                self._columns = cols
                return parse_zpool_list(out, cols)
            except CommandError as exc:
                if exc.result is None or not cmds.rejected_option(exc.result):
                    raise
                self._columns = None  # no -o/-p here: use the default columns
        while len(self._plain) > 1:
            result = cmds.run(self.ctx, self._plain[0])
            if result.returncode == 0:
                return parse_zpool_list(result.stdout)
            if not cmds.rejected_option(result):
                result.check()
            self._plain.pop(0)  # this zpool lacks the option; remember that
        return parse_zpool_list(cmds.output(self.ctx, self._plain[0]))

    def _get(self, pools: Sequence[str]) -> PoolProps:
        """``zpool get -Hp all`` (every pool); ``zpool get all`` where -H/-p are unknown."""
        if not pools:
            return {}
        result = cmds.run(self.ctx, self._get_argv)
        if result.returncode != 0 and cmds.rejected_option(result):
            self._get_argv = ["zpool", "get", "all"]
            result = cmds.run(self.ctx, self._get_argv)
        if result.returncode != 0:
            return {}  # space metrics still come from zpool list
        return parse_zpool_get(result.stdout)

    def _created(self, pools: Sequence[str]) -> PoolProps:
        """Each pool's root dataset ``creation`` (the pool's own: ``zpool create`` makes the
        root dataset), so a pool never scrubbed can be told from one created yesterday. zpool
        has no creation property. A refusal only drops this value, as for ``zpool get``."""
        if not pools or not self._creation_known:
            return {}
        try:
            result = cmds.run(self.ctx, ["zfs", "get", "-Hp", "creation", *pools])
        except (CommandError, NoDataError):
            return {}  # no zfs command: the pool age stays unknown
        if result.returncode != 0:
            if cmds.rejected_option(result):
                self._creation_known = False  # this zfs has no -H/-p: do not ask again
            return {}
        try:
            return parse_zpool_get(result.stdout)  # the same name, property, value, source rows
        except ParseError:
            return {}

    def collect(self) -> MetricSet:
        rows = self._list()
        names = [r.name for r in rows]
        props = self._get(names)
        for pool, got in self._created(names).items():
            if "creation" in got:
                props.setdefault(pool, {})["creation"] = got["creation"]
        return pool_metrics(rows, props)
