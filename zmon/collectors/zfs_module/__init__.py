"""The loaded ZFS module: its version, tunables changed from their defaults, pool upgrades.

Linux reads ``/sys/module/zfs/version``, ``/sys/module/zfs/parameters/*`` and
``/sys/module/zfs/features.pool/*/uname``; FreeBSD runs ``sysctl -n vfs.zfs.version.module``.
Both run ``zpool get -Hp all`` for the pools' ``feature@*`` and ``compatibility`` properties,
and read the ``compatibility.d`` files a pool names.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from zmon.base.errors import ParseError
from zmon.base.logs import get
from zmon.collecting.registry import Collector, NoDataError, register, register_parse_kind
from zmon.collectors.zfs_module.metrics import ModuleReading, PoolFeatures, module_metrics
from zmon.collectors.zfs_module.tunables import TUNABLES
from zmon.exposition.metrics import MetricSet
from zmon.host import zfs_commands as cmds
from zmon.parsers.kstat.zfs_module import (
    feature_uname,
    parse_compatibility,
    parse_module_dump,
    parse_version,
    pool_feature_states,
)
from zmon.parsers.zpool.zpool_list import parse_zpool_get

log = get("zfs_module")

# Where zpool looks up a compatibility file: the admin's directory first, then the package's.
COMPATIBILITY_DIRS = ("/etc/zfs/compatibility.d", "/usr/share/zfs/compatibility.d")
FREEBSD_VERSION_SYSCTL = "vfs.zfs.version.module"


@register_parse_kind(
    "zfs-module",
    "`grep -H . /sys/module/zfs/version /sys/module/zfs/parameters/* "
    "/sys/module/zfs/features.pool/*/uname` output",
)
def parse_zfs_module_kind(data: bytes) -> MetricSet:
    dump = parse_module_dump(data)
    if dump.version is None:
        raise ParseError("no /sys/module/zfs/version line: defaults depend on the version")
    features = set(dump.features) if dump.features is not None else None
    return module_metrics(ModuleReading(dump.version, dump.parameters, features))


@register
class ZfsModuleCollector(Collector):
    """Module version, curated tunables against their defaults, and pool upgrades available."""

    name: ClassVar[str] = "zfs_module"
    help: ClassVar[str] = (
        "Loaded ZFS module: version, tunables changed from their defaults, "
        "pool features zpool upgrade would enable."
    )
    binaries: ClassVar[tuple[str, ...]] = ("zpool", "sysctl")
    default_interval: ClassVar[float] = 300.0
    default_timeout: ClassVar[float] = 15.0

    def collect(self) -> MetricSet:
        module = self._freebsd_module() if self.ctx.platform == "freebsd" else self._linux_module()
        return module_metrics(module, self._pools())

    # ---- the module

    def _linux_module(self) -> ModuleReading:
        base = self.ctx.paths.sys("module", "zfs")
        try:
            version = parse_version((base / "version").read_bytes())
        except FileNotFoundError as exc:
            raise NoDataError(f"{base / 'version'} does not exist: zfs is not loaded") from exc
        return ModuleReading(version, self._parameters(), self._features())

    def _parameters(self) -> dict[str, str]:
        """The curated tunables' files (the others are not compared, so not read)."""
        out: dict[str, str] = {}
        base = self.ctx.paths.sys("module", "zfs", "parameters")
        for tunable in TUNABLES:
            try:
                out[tunable.name] = (base / tunable.name).read_text(errors="replace").strip()
            except OSError:
                continue  # not in this release, or not readable: not compared
        return out

    def _features(self) -> set[str] | None:
        base = self.ctx.paths.sys("module", "zfs", "features.pool")
        try:
            guids = sorted(p for p in base.iterdir() if p.is_dir())
        except OSError:
            return None  # before OpenZFS 0.8: the tools' list is all there is
        out: set[str] = set()
        for guid in guids:
            try:
                uname: str | None = (guid / "uname").read_text(errors="replace")
            except OSError:
                uname = None
            out.add(feature_uname(guid.name, uname))
        return out

    def _freebsd_module(self) -> ModuleReading:
        result = self.ctx.runner.run(["sysctl", "-n", FREEBSD_VERSION_SYSCTL])
        if not result.timed_out and result.returncode != 0 and b"unknown oid" in result.stderr:
            raise NoDataError(
                f"sysctl {FREEBSD_VERSION_SYSCTL} does not exist: zfs.ko is not loaded"
            )
        return ModuleReading(parse_version(result.check().stdout))

    # ---- the pools

    def _pools(self) -> list[PoolFeatures] | None:
        """``zpool get -Hp all``; ``zpool get all`` where this zpool lacks -H/-p (ZoL 0.6)."""
        try:
            result = cmds.run(self.ctx, ["zpool", "get", "-Hp", "all"])
            if cmds.rejected_option(result):
                result = cmds.run(self.ctx, ["zpool", "get", "all"])
        except NoDataError as exc:
            log.debug("zfs_module_no_pools", reason=str(exc))
            return None  # the module is loaded but zpool is not usable here
        props = parse_zpool_get(result.check().stdout)
        return [
            PoolFeatures(pool, pool_feature_states(got), self._allowed(got))
            for pool, got in props.items()
        ]

    def _allowed(self, props: Mapping[str, tuple[str, str]]) -> frozenset[str] | None:
        """The features the pool's ``compatibility`` property allows; None = no restriction."""
        value = props.get("compatibility", ("off", "-"))[0]
        if value in ("off", "-", ""):
            return None
        if value == "legacy":
            return frozenset()
        allowed: frozenset[str] | None = None
        for name in value.split(","):
            names = self._compatibility_file(name.strip())
            if names is not None:
                allowed = names if allowed is None else allowed & names
        return allowed

    def _compatibility_file(self, name: str) -> frozenset[str] | None:
        candidates = [name] if name.startswith("/") else [f"{d}/{name}" for d in COMPATIBILITY_DIRS]
        for path in candidates:
            try:
                return parse_compatibility(self.ctx.paths.root(path).read_bytes())
            except OSError:
                continue
        log.warning("zfs_module_compatibility_unreadable", file=name)
        return None
