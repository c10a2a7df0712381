"""The ``zpool`` collector: pool and vdev health, scans and errors from ``zpool status``.

It prefers ``zpool status -j --json-int -p -s -t -i`` (OpenZFS 2.3+; ``-t``/``-i`` add TRIM and
initialize state to the JSON, which has no notes) and falls back, once and for
good, to text: ``-p -s -v``, then ``-p -v``, ``-v`` and plain for releases that reject options
(ZoL 0.6, zfs-fuse). Leaves are mapped to whole-disk devices through ``/dev/disk`` links under
the root path and, when that leaves some unresolved, one ``zpool status -P -L`` per topology.
Text output has no pool GUIDs, so ``zpool get -Hp guid`` runs when the pool set changes, and
``-v`` lists files instead of counting errors, so a pool that lists some is asked once more
without ``-v``.
Also the ``zmon parse zpool-status`` kind (text or JSON), through the same metric code.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import tzinfo
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from prometheus_client.core import Metric

from zmon.base import logs
from zmon.base.logs import StateChangeLog
from zmon.base.runner import CommandError, CommandResult
from zmon.collecting.products import VDEV_NAMES
from zmon.collecting.registry import (
    Collector,
    Context,
    Option,
    Paths,
    register,
    register_parse_kind,
)
from zmon.collectors.zpool.metrics import status_metrics
from zmon.collectors.zpool.scrub_history import ScrubHistory
from zmon.exposition.metrics import MetricSet
from zmon.exposition.snapshot import SummaryRow
from zmon.host import zfs_commands as zcmd
from zmon.host.devnames import looks_like_kernel_disk, resolve_device, whole_disk_name
from zmon.host.last_pools import PoolStateRecorder
from zmon.parsers.zpool.zpool_status import parse_zpool_status
from zmon.parsers.zpool.zpool_status_model import ZpoolStatus

log = logs.get("zpool")

JSON_ARGS = ("-j", "--json-int", "-p", "-s", "-t", "-i")
TEXT_VARIANTS = (("-p", "-s"), ("-p",), ())
NO_POOLS = "no pools available"


def _no_pools(result: CommandResult) -> bool:
    text = (result.stderr + result.stdout).decode("utf-8", "replace")
    return NO_POOLS in text and not result.stdout.strip().startswith(b"{")


def resolve_static(status: ZpoolStatus) -> None:
    """Fill ``device`` for leaves whose name or path is a kernel disk name (no file access).

    A missing device's former path (``was /dev/sdf``) is not used: the kernel may have given
    that name to another disk since.
    """
    for pool in status.pools:
        for vdev in pool.vdevs():
            if vdev.is_leaf and vdev.device is None:
                for cand in (vdev.path, vdev.name):
                    if cand and looks_like_kernel_disk(cand):
                        vdev.device = whole_disk_name(cand)
                        break


def resolve_links(status: ZpoolStatus, paths: Paths) -> None:
    """Fill ``device`` for leaves through kernel names and ``/dev/disk`` links under rootfs."""
    for pool in status.pools:
        for vdev in pool.vdevs():
            if not vdev.is_leaf or vdev.device is not None or vdev.type == "file":
                continue
            for cand in (vdev.path, vdev.name):
                found = resolve_device(cand, paths) if cand else None
                if found:
                    vdev.device = found
                    break


def _mappable(status: ZpoolStatus) -> list[str]:
    """Leaves still without a device that ``zpool status -P -L`` could name."""
    missing = []
    for pool in status.pools:
        for vdev in pool.vdevs():
            if (
                vdev.is_leaf
                and vdev.device is None
                and vdev.type in ("disk", "dspare")
                and not vdev.name.isdigit()
                and vdev.vdev_class != "spare"
            ):
                missing.append(f"{pool.name}/{vdev.name}")
    return missing


Layout = tuple[tuple[str, tuple[str, ...]], ...]


def _signature(status: ZpoolStatus) -> Layout:
    return tuple((p.name, tuple(v.name for v in p.vdevs())) for p in status.pools)


@register
class ZpoolCollector(Collector):
    name = "zpool"
    help = "Pool and vdev health, scrub/resilver progress and data errors (zpool status)"
    default_interval = 15.0
    default_timeout = 20.0
    binaries = ("zpool",)
    provides = (VDEV_NAMES,)
    summary_title = "Pools"
    options = (
        Option("format", str, "auto", "zpool status output to read: auto (JSON when zpool "
               "supports -j, else text), json or text", ("auto", "json", "text")),
        Option("error_list", bool, True, "pass -v so that zpool lists the files with permanent "
               "errors and says when it cannot list them"),
        Option("state_file", str, "", "where the last completed scrub per pool is kept; "
               "empty: zpool-last-scrub.json in the state directory"),
        Option("timezone", str, "local", "time zone zpool prints text dates in: 'local' "
               "(this process's zone) or a name such as UTC or Europe/Berlin"),
        Option("device_map", bool, True, "run 'zpool status -P -L' when a vdev cannot be "
               "mapped to a disk through /dev/disk links (once per pool layout)"),
        Option("guid_refresh_seconds", float, 600.0, "text output only: how often to re-read "
               "pool GUIDs with 'zpool get guid' while the pool set stays the same"),
    )  # fmt: skip

    @classmethod
    def summary(cls, families: Sequence[Metric]) -> list[SummaryRow]:
        """Each pool's state from ``zmon_pool_state`` (UNKNOWN when no state is set)."""
        states: dict[str, str] = {}
        for fam in families:
            if fam.name != "zmon_pool_state":
                continue
            for sample in fam.samples:
                pool = sample.labels.get("pool", "")
                if sample.value == 1.0:
                    states[pool] = sample.labels.get("state", "unknown")
                else:
                    states.setdefault(pool, "unknown")
        return [
            SummaryRow(pool, state.upper(), state == "online")
            for pool, state in sorted(states.items())
        ]

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self._json_ok: bool | None = None
        self._text_variant = 0
        self._pl_ok = True
        self._pl_cache: tuple[Layout, dict[str, list[str | None]]] | None = None
        self._guid_cache: tuple[frozenset[str], float, dict[str, str]] | None = None
        self._guid_ok = True
        self._history: ScrubHistory | None = None
        self._tz_cached: tuple[str, tzinfo | None] | None = None
        self._states = StateChangeLog(log)
        self.last_command: tuple[str, ...] = ()
        # the pools' states of the last good run, for the status views while zpool hangs
        self._last_states = PoolStateRecorder(ctx.paths.state_dir)

    # ---- options ----

    def _tz(self) -> tzinfo | None:
        name = str(self.option("timezone") or "local")
        if self._tz_cached is None or self._tz_cached[0] != name:
            zone: tzinfo | None = None
            if name.lower() != "local":
                try:
                    zone = ZoneInfo(name)
                except (ZoneInfoNotFoundError, ValueError):
                    log.warning("unknown time zone, using local time", timezone=name)
            self._tz_cached = (name, zone)
        return self._tz_cached[1]

    def _history_store(self) -> ScrubHistory:
        if self._history is None:
            configured = str(self.option("state_file") or "")
            path = (
                Path(configured)
                if configured
                else self.ctx.paths.state_dir.joinpath("zpool-last-scrub.json")
            )
            self._history = ScrubHistory(path)
        return self._history

    # ---- collection ----

    def collect(self) -> MetricSet:
        status = self.read_status()
        self._resolve_devices(status)
        if status.source == "text":
            self._fill_guids(status)
            self._exact_error_counts(status)
        else:  # JSON has the pass's counts but no rates: estimate them as zpool would
            now = time.time()
            for pool in status.pools:
                for scan in pool.scans:
                    scan.estimate(now)
        for pool in status.pools:
            if pool.warnings or pool.incomplete:
                self._states.report(
                    f"parse:{pool.name}",
                    "zpool status output partly unread",
                    pool=pool.name,
                    problems=(pool.incomplete + pool.warnings)[:5],
                )
            else:
                self._states.report(f"parse:{pool.name}", "zpool status output read", "debug")
        # zpool events name a leaf by its device path; the events collector uses these names
        # to label events the way zpool status names the vdev (whole disks without -partN).
        self.ctx.publish(
            VDEV_NAMES,
            {pool.name: frozenset(v.name for v in pool.vdevs()) for pool in status.pools},
        )
        self._last_states.observe(
            time.time(), {pool.name: pool.state or "unknown" for pool in status.pools}
        )
        ms = status_metrics(status, self._history_store().observe(status))
        ms.info(
            "zmon_zpool_status_source_info",
            "How zmon read zpool status: output format and arguments (zpool status)",
            {"format": status.source, "args": " ".join(self.last_command[2:])},
        )
        return ms

    def read_status(self) -> ZpoolStatus:
        """Run ``zpool status`` in the best form this zpool accepts and parse it."""
        fmt = self.option("format")
        verbose = ("-v",) if self.option("error_list") else ()
        if fmt == "json" and self._json_ok is False:
            raise CommandError("zpool status does not accept -j (format = json)")
        if fmt != "text" and self._json_ok is not False:
            argv = ("zpool", "status", *JSON_ARGS, *verbose)
            result = zcmd.run(self.ctx, argv)
            if result.returncode == 0 and not result.timed_out:
                self._json_ok = True
                return self._parse(argv, result)
            if zcmd.rejected_option(result) and not self._json_ok:
                self._json_ok = False
                log.info("zpool status has no JSON output; using text", argv=" ".join(argv))
                if fmt == "json":
                    raise CommandError("zpool status does not accept -j", result)
            else:
                return self._failed(argv, result)
        while True:
            argv = ("zpool", "status", *TEXT_VARIANTS[self._text_variant], *verbose)
            result = zcmd.run(self.ctx, argv)
            if result.returncode == 0 and not result.timed_out:
                return self._parse(argv, result)
            if zcmd.rejected_option(result) and self._text_variant + 1 < len(TEXT_VARIANTS):
                self._text_variant += 1
                log.info("zpool status rejected options; trying fewer", argv=" ".join(argv))
                continue
            return self._failed(argv, result)

    def _failed(self, argv: Sequence[str], result: CommandResult) -> ZpoolStatus:
        if not result.timed_out and _no_pools(result):
            self.last_command = tuple(argv)
            return ZpoolStatus(no_pools=True)
        result.check()
        raise CommandError(f"zpool status failed: exit {result.returncode}", result)

    def _parse(self, argv: Sequence[str], result: CommandResult) -> ZpoolStatus:
        self.last_command = tuple(argv)
        stderr = result.stderr.decode("utf-8", "replace")
        if not result.stdout.strip():
            if NO_POOLS in stderr:
                return ZpoolStatus(no_pools=True)
        return parse_zpool_status(result.stdout, tz=self._tz(), stderr=stderr)

    def _exact_error_counts(self, status: ZpoolStatus) -> None:
        """``-v`` lists files, not the error count: ask once more without it, for those pools.

        Only pools that list permanent errors cost the extra command; a failure keeps the
        number of listed files (a lower bound).
        """
        for pool in status.pools:
            if not pool.error_files or pool.errors_unavailable:
                continue
            argv = ("zpool", "status", *TEXT_VARIANTS[self._text_variant], pool.name)
            try:
                result = zcmd.run(self.ctx, argv)
                if result.returncode != 0 or result.timed_out:
                    continue
                counted = parse_zpool_status(result.stdout, tz=self._tz())
            except Exception as exc:  # optional refinement: never fail the collection
                log.debug("no exact error count", pool=pool.name, error=str(exc))
                continue
            for other in counted.pools:
                if other.name == pool.name and other.data_errors is not None:
                    pool.data_errors = max(other.data_errors, len(pool.error_files))

    # ---- devices and GUIDs ----

    def _resolve_devices(self, status: ZpoolStatus) -> None:
        resolve_links(status, self.ctx.paths)
        if not self.option("device_map") or not self._pl_ok or not _mappable(status):
            return
        mapping = self._pl_mapping(status)
        for pool in status.pools:
            devices = mapping.get(pool.name)
            vdevs = list(pool.vdevs())
            if devices is None or len(devices) != len(vdevs):
                continue
            for vdev, device in zip(vdevs, devices, strict=True):
                if vdev.is_leaf and vdev.device is None and device:
                    vdev.device = device

    def _pl_mapping(self, status: ZpoolStatus) -> dict[str, list[str | None]]:
        sig = _signature(status)
        if self._pl_cache is not None and self._pl_cache[0] == sig:
            return self._pl_cache[1]
        argv = ("zpool", "status", "-P", "-L")
        try:
            result = zcmd.run(self.ctx, argv)
            if result.returncode != 0 or result.timed_out:
                if zcmd.rejected_option(result):
                    self._pl_ok = False
                return {}
            full = parse_zpool_status(result.stdout)
        except Exception as exc:  # the mapping is optional: never fail the collection
            self._pl_ok = False
            log.info(
                "zpool status -P -L unusable; devices only from /dev/disk links", error=str(exc)
            )
            return {}
        mapping = {
            p.name: [
                whole_disk_name(v.name) if v.name.startswith("/dev/") else None for v in p.vdevs()
            ]
            for p in full.pools
        }
        self._pl_cache = (sig, mapping)
        return mapping

    def _fill_guids(self, status: ZpoolStatus) -> None:
        names = frozenset(p.name for p in status.pools)
        if not names or not self._guid_ok:
            return
        now = time.monotonic()
        cache = self._guid_cache
        refresh = float(self.option("guid_refresh_seconds"))
        if cache is None or cache[0] != names or now - cache[1] > refresh:
            guids = self._read_guids()
            cache = (names, now, guids)
            self._guid_cache = cache
        for pool in status.pools:
            pool.guid = pool.guid or cache[2].get(pool.name)

    def _read_guids(self) -> dict[str, str]:
        for argv in (("zpool", "get", "-Hp", "guid"), ("zpool", "get", "guid")):
            try:
                result = zcmd.run(self.ctx, argv)
            except Exception as exc:  # GUIDs are optional: fall back to pool names
                log.debug("zpool get guid failed", error=str(exc))
                break
            if result.returncode == 0 and not result.timed_out:
                return parse_guids(result.stdout)
            if not zcmd.rejected_option(result):
                break
        self._guid_ok = False
        log.info("pool GUIDs unavailable; the scrub state file is keyed by pool name")
        return {}


def parse_guids(data: bytes) -> dict[str, str]:
    """``zpool get [-Hp] guid`` output -> {pool: guid}."""
    guids: dict[str, str] = {}
    for line in data.decode("utf-8", "replace").splitlines():
        fields = line.split("\t") if "\t" in line else line.split()
        if len(fields) >= 3 and fields[1] == "guid" and fields[2].isdigit():
            guids[fields[0]] = fields[2]
    return guids


@register_parse_kind("zpool-status", "zpool status text (any release) or -j JSON")
def parse_kind(data: bytes) -> MetricSet:
    """``zmon parse zpool-status``: dates are read in this process's local time zone."""
    status = parse_zpool_status(data)
    resolve_static(status)
    return status_metrics(status)
