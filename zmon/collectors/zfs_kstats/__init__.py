"""Module-wide ZFS kstats that explain throttling, sync writes, prefetch and the caches above ARC.

Linux reads ``/proc/spl/kstat/zfs/{dmu_tx,zil,zfetchstats,dbufstats,dnodestats,abdstats,
vdev_mirror_stats,vdev_cache_stats}``; FreeBSD runs one ``sysctl -i kstat.zfs.misc.<kstat> ...``.
Also home of ``zmon parse kstat``, which reads any kstat file (or a ``==> path <==`` dump of many).
See zmon/collectors/zfs_kstats/README.md.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import ClassVar

from zmon.base.errors import ParseError
from zmon.collecting.registry import (
    Collector,
    NoDataError,
    parse_kinds,
    register,
    register_parse_kind,
)
from zmon.collectors.zfs_kstats.catalogue import BY_FIELD, FAMILIES, GENERIC_HELP, GENERIC_METRIC
from zmon.exposition.metrics import MetricSet
from zmon.parsers.kstat.kstat import KstatEntry, parse_int, parse_keyvals, parse_kstat
from zmon.parsers.kstat.txgs import parse_dmu_tx_assign, parse_txgs, split_sections

KSTATS = (
    "dmu_tx",
    "zil",
    "zfetchstats",
    "dbufstats",
    "dnodestats",
    "abdstats",
    "vdev_mirror_stats",
    "vdev_cache_stats",
)
# Fields that tell one kstat file from another when its name is not known.
SIGNATURES: tuple[tuple[str, frozenset[str]], ...] = (
    ("arcstats", frozenset({"c_max", "hits", "misses"})),
    ("dmu_tx", frozenset({"dmu_tx_assigned"})),
    ("zil", frozenset({"zil_commit_count"})),
    ("dbufstats", frozenset({"cache_count", "hash_hits"})),
    ("dnodestats", frozenset({"dnode_hold_alloc_hits"})),
    ("abdstats", frozenset({"struct_size", "scatter_cnt"})),
    ("vdev_mirror_stats", frozenset({"rotating_linear"})),
    ("vdev_cache_stats", frozenset({"delegations", "hits", "misses"})),
    ("zfetchstats", frozenset({"hits", "misses", "max_streams"})),
)
SYSCTL_ROOT = "kstat.zfs.misc."
FREEBSD_ARGV = ("sysctl", "-i", *(SYSCTL_ROOT + k for k in KSTATS))
_KSTAT_DIR = "/spl/kstat/zfs/"
_BUCKET = re.compile(r"^\d+ ns$")

Fields = Mapping[str, KstatEntry]


def kstat_metrics(kstats: Mapping[str, Fields], ms: MetricSet | None = None) -> MetricSet:
    """Metrics for parsed kstats keyed by kstat name (``zil``, or ``tank/iostats`` for others)."""
    ms = ms if ms is not None else MetricSet()
    for kstat, fields in kstats.items():
        family = FAMILIES.get(kstat)
        for name, entry in fields.items():
            value = entry.value
            if not isinstance(value, int):
                continue
            stat = BY_FIELD.get((kstat, name))
            if stat is not None:
                if stat.kind == "counter":
                    ms.counter(
                        stat.metric, stat.help, value if value >= 0 else None, stat.label_dict()
                    )
                else:
                    ms.gauge(stat.metric, stat.help, value, stat.label_dict())
            elif family is not None and value >= 0:
                metric, label, prefix, text = family
                event = name[len(prefix) :] if prefix and name.startswith(prefix) else name
                ms.counter(metric, text, value, {label: event})
            else:
                ms.gauge(GENERIC_METRIC, GENERIC_HELP, value, {"kstat": kstat, "name": name})
    return ms


def group_sysctl(data: bytes | str) -> dict[str, dict[str, KstatEntry]]:
    """``kstat.zfs.misc.<kstat>.<field>: value`` lines grouped by kstat (FreeBSD)."""
    out: dict[str, dict[str, KstatEntry]] = {}
    for line_no, key, raw, line in parse_keyvals(data):
        if not key.startswith(SYSCTL_ROOT) or "." not in key[len(SYSCTL_ROOT) :]:
            raise ParseError(f"not a {SYSCTL_ROOT}<kstat>.<field> line", line_no, line)
        kstat, name = key[len(SYSCTL_ROOT) :].split(".", 1)
        value = parse_int(raw)
        out.setdefault(kstat, {})[name] = KstatEntry(None, value if value is not None else raw)
    return out


def identify(fields: Fields) -> str | None:
    """Which kstat a file is, from its field names (for input without a path)."""
    names = set(fields)
    for kstat, signature in SIGNATURES:
        if signature <= names:
            return kstat
    return None


def _kstat_name(path: str | None) -> str | None:
    """``/proc/spl/kstat/zfs/tank/iostats`` -> ``tank/iostats``; ``.../zfs/zil`` -> ``zil``."""
    if path is None:
        return None
    at = path.find(_KSTAT_DIR)
    return path[at + len(_KSTAT_DIR) :] if at >= 0 else path.rsplit("/", 1)[-1]


@register_parse_kind(
    "kstat",
    "any ZFS kstat file (Linux /proc/spl/kstat/zfs/..., FreeBSD sysctl kstat.zfs...), "
    "or a `tail -n +1` dump of many",
)
def parse_kstat_kind(data: bytes) -> MetricSet:
    """Each section goes to the kind that reads it: arcstats to ``arcstats``, txgs and
    dmu_tx_assign to ``txgs`` (through the registry), the others to this collector's table."""
    sections = split_sections(data)
    many = len(sections) > 1
    ms = MetricSet()
    named: dict[str, Fields] = {}
    txg_sections: list[tuple[str, str]] = []  # (pool/kstat, text) for the txgs kind
    for path, text in sections:
        name = _kstat_name(path)
        base = name.rsplit("/", 1)[-1] if name else None
        pool = name.rsplit("/", 1)[0] if name and "/" in name else ""
        if not text.strip() or (name is not None and name in named):
            continue
        try:
            if base == "txgs" or (base is None and text.lstrip().startswith("txg ")):
                parse_txgs(text)  # a bad section is skipped here, as any other
                txg_sections.append((f"{pool}/txgs", text))
            elif base == "dmu_tx_assign":
                parse_dmu_tx_assign(text)
                txg_sections.append((f"{pool}/dmu_tx_assign", text))
            elif text.lstrip().startswith("kstat."):
                _sysctl_section(text, ms, named, txg_sections)
            elif base == "arcstats":
                ms.extend(_kind("arcstats", text))
            else:
                _named_section(name, pool, text, ms, named, txg_sections)
        except ParseError:
            if not many:
                raise
    if txg_sections:
        ms.extend(_kind("txgs", "".join(f"==> {p} <==\n{t.rstrip()}\n" for p, t in txg_sections)))
    kstat_metrics(named, ms)
    if not ms.families():
        raise ParseError("no kstat with numeric fields in the input")
    return ms


def _named_section(
    name: str | None,
    pool: str,
    text: str,
    ms: MetricSet,
    named: dict[str, Fields],
    txg_sections: list[tuple[str, str]],
) -> None:
    fields = parse_kstat(text).entries
    kind = name or identify(fields) or ""
    if fields and all(_BUCKET.match(f) for f in fields):
        parse_dmu_tx_assign(text)
        txg_sections.append((f"{pool}/dmu_tx_assign", text))
    elif kind == "arcstats":
        ms.extend(_kind("arcstats", text))
    else:
        named[kind] = fields


def _kind(kind: str, text: str) -> MetricSet:
    """Another collector's ``zmon parse`` kind, found through the registry."""
    return parse_kinds()[kind][0](text.encode())


def _sysctl_section(
    text: str, ms: MetricSet, named: dict[str, Fields], txg_sections: list[tuple[str, str]]
) -> None:
    lines = text.splitlines()
    misc = [ln for ln in lines if ln.strip().startswith(SYSCTL_ROOT)]
    tx = [ln for ln in lines if ".misc.dmu_tx_assign." in ln and ln not in misc]
    if len(misc) + len(tx) != len([ln for ln in lines if ln.strip()]):
        raise ParseError("sysctl output outside kstat.zfs.misc and dmu_tx_assign")
    for kstat, fields in group_sysctl("\n".join(misc)).items():
        if kstat == "arcstats":
            prefix = SYSCTL_ROOT + "arcstats."
            sysctl = "\n".join(ln for ln in misc if ln.strip().startswith(prefix))
            ms.extend(_kind("arcstats", sysctl))
        else:
            named[kstat] = fields
    if tx:
        parsed = parse_dmu_tx_assign("\n".join(tx))
        txg_sections.append((f"{parsed.pool or ''}/dmu_tx_assign", "\n".join(tx)))


@register
class ZfsKstatsCollector(Collector):
    """dmu_tx, zil, zfetchstats, dbufstats, dnodestats, abdstats and vdev mirror/cache kstats."""

    name: ClassVar[str] = "zfs_kstats"
    binaries: ClassVar[tuple[str, ...]] = ("sysctl",)
    help: ClassVar[str] = (
        "Write throttle (dmu_tx), ZIL/SLOG, prefetch, dbuf/dnode cache and ABD kstats."
    )
    default_interval: ClassVar[float] = 15.0
    default_timeout: ClassVar[float] = 5.0

    def collect(self) -> MetricSet:
        if self.ctx.platform == "freebsd":
            return kstat_metrics(self._freebsd())
        return kstat_metrics(self._linux())

    def _linux(self) -> dict[str, Fields]:
        base = self.ctx.paths.proc("spl", "kstat", "zfs")
        if not base.is_dir():
            raise NoDataError(f"{base} does not exist: the zfs module is not loaded")
        out: dict[str, Fields] = {}
        for kstat in KSTATS:
            try:
                data = (base / kstat).read_bytes()
            except FileNotFoundError:
                continue
            out[kstat] = parse_kstat(data).entries
        if not out:
            raise NoDataError(f"none of {', '.join(KSTATS)} under {base}")
        return out

    def _freebsd(self) -> dict[str, Fields]:
        result = self.ctx.runner.run(list(FREEBSD_ARGV))
        if result.timed_out or (result.returncode != 0 and not result.stdout.strip()):
            result.check()
        if not result.stdout.strip():
            raise NoDataError("no kstat.zfs.misc sysctls: zfs.ko is not loaded")
        return {k: v for k, v in group_sysctl(result.stdout).items() if k in KSTATS}
