"""ARC collector: arcstats through the curated catalogue, plus the zfs_arc_max/min parameters.

Linux reads ``/proc/spl/kstat/zfs/arcstats`` and ``/sys/module/zfs/parameters/zfs_arc_{max,min}``;
FreeBSD runs ``sysctl kstat.zfs.misc.arcstats`` and ``sysctl -i vfs.zfs.arc.max ...``.
"""

from __future__ import annotations

from collections.abc import Mapping

import structlog

from zmon.base.errors import ParseError
from zmon.base.runner import CommandError
from zmon.collecting.registry import Collector, NoDataError, register, register_parse_kind
from zmon.collectors.arc.catalogue import (
    ARC_TABLE,
    BY_KSTAT,
    GENERIC_HELP,
    GENERIC_METRIC,
    PARAM_METRICS,
)
from zmon.exposition.metrics import MetricSet
from zmon.parsers.kstat.arcstats import (
    ARC_PARAMS,
    FREEBSD_PARAM_SYSCTLS,
    SYSCTL_PREFIX,
    ArcStats,
    parse_arcstats,
    parse_arcstats_kstat,
    parse_arcstats_sysctl,
    parse_freebsd_params,
    parse_param_value,
)

log = structlog.get_logger(__name__)


def arc_metrics(stats: ArcStats, params: Mapping[str, int] | None = None) -> MetricSet:
    """Metrics for one arcstats read (and the module parameters, when known).

    Table fields become their curated metric (a legacy alias is skipped if its successor is
    also present); other numeric fields go to ``zmon_arc_stat{name}``. String values and
    negative counters are never exported.
    """
    ms = MetricSet()
    fields = stats.fields
    done: set[tuple[str, tuple[tuple[str, str], ...]]] = set()
    for stat in ARC_TABLE:
        entry = fields.get(stat.kstat)
        if entry is None or not isinstance(entry.value, int):
            continue
        key = (stat.metric, stat.labels)
        if key in done:
            continue
        done.add(key)
        if stat.kind == "counter":
            if entry.value >= 0:
                ms.counter(stat.metric, stat.help, entry.value * stat.scale, stat.label_dict())
        else:
            ms.gauge(stat.metric, stat.help, entry.value * stat.scale, stat.label_dict())
    for name, entry in fields.items():
        if name not in BY_KSTAT and isinstance(entry.value, int):
            ms.gauge(GENERIC_METRIC, GENERIC_HELP, entry.value, {"name": name})
    for gauge in PARAM_METRICS:
        ms.gauge(gauge.metric, gauge.help, (params or {}).get(gauge.param.name))
    return ms


@register_parse_kind(
    "arcstats",
    "ARC statistics: Linux /proc/spl/kstat/zfs/arcstats or FreeBSD "
    "`sysctl kstat.zfs.misc.arcstats` output",
)
def parse_arcstats_kind(data: bytes) -> MetricSet:
    return arc_metrics(parse_arcstats(data))


@register
class ArcCollector(Collector):
    """ARC size, hit/miss and L2ARC statistics."""

    name = "arc"
    binaries = ("sysctl",)
    help = "ARC and L2ARC statistics (arcstats kstat) and the zfs_arc_max/min parameters."
    default_interval = 15.0
    default_timeout = 5.0

    def collect(self) -> MetricSet:
        if self.ctx.platform == "freebsd":
            return arc_metrics(self._freebsd_arcstats(), self._freebsd_params())
        return arc_metrics(self._linux_arcstats(), self._linux_params())

    def _linux_arcstats(self) -> ArcStats:
        path = self.ctx.paths.proc("spl", "kstat", "zfs", "arcstats")
        try:
            data = path.read_bytes()
        except FileNotFoundError as exc:
            raise NoDataError(f"{path} does not exist: the zfs module is not loaded") from exc
        return parse_arcstats_kstat(data)

    def _linux_params(self) -> dict[str, int]:
        params: dict[str, int] = {}
        for param in ARC_PARAMS:
            path = self.ctx.paths.sys("module", "zfs", "parameters", param.name)
            try:
                value = parse_param_value(path.read_text(errors="replace"))
            except OSError:
                continue
            if value is not None:
                params[param.name] = value
        return params

    def _freebsd_arcstats(self) -> ArcStats:
        result = self.ctx.runner.run(["sysctl", SYSCTL_PREFIX])
        if not result.timed_out and (
            (result.returncode != 0 and b"unknown oid" in result.stderr)
            or (result.returncode == 0 and not result.stdout.strip())
        ):
            raise NoDataError(f"sysctl {SYSCTL_PREFIX} does not exist: zfs.ko is not loaded")
        result.check()
        return parse_arcstats_sysctl(result.stdout)

    def _freebsd_params(self) -> dict[str, int]:
        try:
            result = self.ctx.runner.run(["sysctl", "-i", *FREEBSD_PARAM_SYSCTLS])
        except CommandError as exc:
            log.debug("arc_params_unavailable", error=str(exc))
            return {}
        if result.timed_out:
            log.warning("arc_params_timeout", duration=round(result.duration, 3))
            return {}
        try:
            return parse_freebsd_params(result.stdout)
        except ParseError as exc:
            log.warning("arc_params_unparsed", error=str(exc))
            return {}
