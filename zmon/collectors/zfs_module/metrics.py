"""Records of the loaded ZFS module and the pools' feature flags -> metrics."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from zmon.collectors.zfs_module.tunables import TUNABLES, default_for
from zmon.exposition.metrics import MetricSet
from zmon.parsers.kstat.zfs_module import parse_parameter_value, version_series

_SRC_PARAMS = "/sys/module/zfs/parameters"


@dataclass
class ModuleReading:
    """One read of the loaded module; a part the host does not offer is None."""

    version: str
    parameters: Mapping[str, str] | None = None  # name -> raw text (Linux)
    features: Collection[str] | None = None  # supported pool features, short names (Linux)


@dataclass
class PoolFeatures:
    """One pool's feature flags (``zpool get feature@*``) and what may be enabled on it."""

    pool: str
    states: Mapping[str, str]  # feature -> disabled / enabled / active
    allowed: Collection[str] | None = None  # the compatibility set; None = no restriction


def changed_parameters(
    parameters: Mapping[str, str], series: str | None
) -> tuple[int, list[tuple[str, int, int]]]:
    """How many curated tunables were compared, and (name, value, default) of those that differ."""
    compared = 0
    changed: list[tuple[str, int, int]] = []
    for tunable in TUNABLES:
        default = default_for(tunable, series)
        raw = parameters.get(tunable.name)
        value = parse_parameter_value(raw) if raw is not None else None
        if default is None or value is None:
            continue
        compared += 1
        if value != default:
            changed.append((tunable.name, value, default))
    return compared, changed


def upgradable(pool: PoolFeatures, supported: Collection[str] | None) -> int:
    """Features ``zpool upgrade`` would enable: disabled on the pool, supported by the module
    (when it says), and allowed by the pool's compatibility property."""
    return sum(
        1
        for name, state in pool.states.items()
        if state == "disabled"
        and (supported is None or name in supported)
        and (pool.allowed is None or name in pool.allowed)
    )


def module_metrics(module: ModuleReading, pools: list[PoolFeatures] | None = None) -> MetricSet:
    """Metrics for one read of the module and, when read, the pools' feature flags."""
    ms = MetricSet()
    ms.info(
        "zmon_zfs_module_info",
        "Version of the loaded ZFS kernel module (/sys/module/zfs/version; FreeBSD sysctl "
        "vfs.zfs.version.module); always 1.",
        {"version": module.version},
    )
    if module.parameters is not None:
        compared, changed = changed_parameters(module.parameters, version_series(module.version))
        ms.gauge(
            "zmon_zfs_module_parameters_compared",
            f"Curated tunables found in {_SRC_PARAMS} and compared with their default for this "
            "module's release series; 0 when zmon has no defaults for the series.",
            compared,
        )
        ms.gauge(
            "zmon_zfs_module_parameters_changed",
            f"Curated tunables in {_SRC_PARAMS} whose value differs from the series default.",
            len(changed),
        )
        for name, value, default in changed:
            ms.gauge(
                "zmon_zfs_module_parameter_value",
                f"Value of a curated tunable that differs from its default ({_SRC_PARAMS}); "
                "only changed tunables have a series.",
                value,
                {"parameter": name},
            )
            ms.gauge(
                "zmon_zfs_module_parameter_default",
                "Default, in the module's release series, of a curated tunable that differs "
                "from it (zmon's table of defaults); only changed tunables have a series.",
                default,
                {"parameter": name},
            )
    if module.features is not None:
        ms.gauge(
            "zmon_zfs_module_pool_features_supported",
            "Pool features the loaded module supports (/sys/module/zfs/features.pool).",
            len(module.features),
        )
    for pool in sorted(pools or [], key=lambda p: p.pool):
        if not pool.states:
            continue  # a pre-feature-flags pool (version 28 and older)
        ms.gauge(
            "zmon_pool_features_upgradable",
            "Features the loaded module supports that are disabled on the pool and allowed "
            "by its compatibility property: what zpool upgrade would enable (zpool get "
            "feature@*, /sys/module/zfs/features.pool).",
            upgradable(pool, module.features),
            {"pool": pool.pool},
        )
    return ms
