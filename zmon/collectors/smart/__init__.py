"""SMART health of every disk through smartctl, without waking sleeping disks.

One ``smartctl --json=c --nocheck=standby --all -d TYPE DEV`` per disk, each with its own timeout
(a hung smartctl is killed, the other disks are still checked), a random pause between disks,
and the device type always given (from ``smartctl --scan-open`` or the device map's transport),
since autodetection can spin a disk up. A disk found asleep keeps its last values and reports
``zmon_disk_standby 1``. smartctl older than 7.0 (no JSON) is read through the text parser.
"""

from __future__ import annotations

import os
import random
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from zmon.base import regexcheck
from zmon.base.errors import ParseError
from zmon.base.failures import is_missing_program
from zmon.base.logs import get
from zmon.base.runner import CommandError, run_deadline
from zmon.collecting.registry import (
    Collector,
    Context,
    NoDataError,
    Option,
    OptionError,
    register,
    register_parse_kind,
)
from zmon.collectors.smart.metrics import (
    check_metrics,
    exit_status_metrics,
    parse_smartctl_metrics,
    report_metrics,
)
from zmon.exposition.metrics import MetricSet
from zmon.host.devices import DeviceMap, nvme_namespace_guess
from zmon.host.devnames import is_nvme_controller
from zmon.parsers.smartctl.smartctl import (
    ScanEntry,
    SmartReport,
    check_status,
    parse_scan,
    parse_smartctl,
    parse_version,
)

log = get("smart")

register_parse_kind("smartctl", "smartctl -a/-x text or --json output of one device")(
    parse_smartctl_metrics
)

# smartctl -d type for a transport from the device map, when no scan says better.
TRANSPORT_TYPES = {
    "linux": {"sata": "sat", "sas": "scsi", "scsi": "scsi", "nvme": "nvme", "usb": "sat"},
    "freebsd": {"sata": "atacam", "sas": "scsi", "scsi": "scsi", "usb": "scsi"},
}
# A disk on one of these transports is checked even when --scan-open could not open it.
RESCUED_TRANSPORTS = ("sata", "sas", "scsi", "nvme")
# -d types of SCSI disks that can be SAS: -l sasphy reads their Protocol Specific port log page
# (PHY error counters). smartctl reads it after CHECK POWER MODE like every other page, so a
# sleeping disk is still not woken; ATA and NVMe types would ignore it.
SAS_TYPES = re.compile(r"^(?:scsi|megaraid,\d+|aacraid,[\d,]+|cciss,\d+)$")
CACHED = " (smartctl; refreshed every collector interval, kept while the disk sleeps)"


def reads_sas_phys(dtype: str) -> bool:
    """True when a disk of smartctl type ``dtype`` may be SAS and gets ``-l sasphy``."""
    return bool(SAS_TYPES.match(dtype))


@dataclass(frozen=True)
class Target:
    """A device to check: what smartctl opens, with which -d type, and its ``device`` label."""

    path: str
    type: str
    label: str
    provisional: bool = False  # label is a guess until the serial number matches the map


@dataclass
class DiskState:
    label: str
    status: str = "error"
    report: SmartReport | None = None  # the last report with data (kept through standby)
    read_at: float | None = None  # unix time of that report
    exit_status: int | None = None
    duration: float | None = None
    message: str = ""


@register
class SmartCollector(Collector):
    name = "smart"
    binaries = ("smartctl", "geom", "camcontrol")
    help = "SMART health of disks (smartctl; ATA/SATA, NVMe, SAS/SCSI, USB bridges)"
    default_interval = 1800.0
    default_timeout = 900.0
    options = (
        Option("device_timeout", float, 30.0,
               "seconds one smartctl run may take; a hung run is killed and reported as timeout"),
        Option("jitter", float, 2.0, "pause up to this many seconds (random) between two disks"),
        Option("devices", list, [],
               "explicit devices as PATH=TYPE (/dev/sda=sat, /dev/bus/0=megaraid,1); "
               "when set, smartctl --scan-open is not run"),
        Option("exclude", str, "",
               "regular expression; devices whose label or path match are skipped"),
        Option("scan_interval", float, 86400.0,
               "seconds between smartctl --scan-open runs; disks coming or going rescan at once"),
        Option("detail", str, "all",
               "smartctl report: all (-a) or xall (-x: more logs, more commands to the disk)",
               choices=("all", "xall")),
    )  # fmt: skip

    @classmethod
    def validate_options(cls, options: Mapping[str, Any]) -> None:
        exclude = options.get("exclude") or ""
        why = regexcheck.problem(exclude) if exclude else None
        if why is not None:
            raise OptionError("exclude", why)

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self._states: dict[tuple[str, str], DiskState] = {}
        self._scan: tuple[float, frozenset[str], list[ScanEntry]] | None = None
        self._json: bool | None = None
        self.sleep: Callable[[float], None] = time.sleep
        self.clock: Callable[[], float] = time.time
        self.rng = random.Random()

    # ---- discovery ----

    def _use_json(self) -> bool:
        if self._json is None:
            try:
                res = self.ctx.runner.run(["smartctl", "--version"], timeout=10.0)
            except CommandError as exc:
                if not is_missing_program(exc):
                    raise  # EACCES, EMFILE ...: a failure to see, not a host without smartctl
                raise NoDataError(f"smartctl cannot run: {exc}") from exc
            version = parse_version(res.stdout)
            self._json = version is None or version >= (7, 0)
        return self._json

    def _scan_entries(self, dmap: DeviceMap) -> list[ScanEntry] | None:
        disks = frozenset(d.name for d in dmap.disks())
        now = time.monotonic()
        if self._scan is not None:
            at, seen, entries = self._scan
            if now - at < float(self.option("scan_interval")) and seen == disks:
                return entries
        argv = ["smartctl", "--scan-open"] + (["--json=c"] if self._use_json() else [])
        try:
            res = self.ctx.runner.run(argv, timeout=float(self.option("device_timeout")))
            if res.timed_out:
                raise CommandError("smartctl --scan-open timed out", res)
            entries = parse_scan(res.stdout)
            if res.returncode != 0 and not entries:
                res.check()  # raises with smartctl's stderr
        except (CommandError, ParseError) as exc:
            log.warning("smartctl scan failed, using the device map", error=str(exc))
            return None
        self._scan = (now, disks, entries)
        return entries

    def targets(self, dmap: DeviceMap | None = None) -> list[Target]:
        """The devices to check this run, each once, exclusions applied (named through
        ``dmap``, by default the shared device map as it is now)."""
        dmap = dmap or self.ctx.device_map()
        explicit = [e for e in self.option("devices") if e.strip()]
        entries: list[ScanEntry] | None
        if explicit:
            entries = []
            for spec in explicit:
                path, _, dtype = spec.strip().partition("=")
                entries.append(ScanEntry(path, dtype or "auto"))
        else:
            entries = self._scan_entries(dmap)
        types = TRANSPORT_TYPES.get(self.ctx.platform, {})
        out: list[Target] = []
        if entries is None:  # no scan: the device map's transports decide
            for d in dmap.disks():
                if d.transport in types:
                    path = "/dev/" + (d.nvme_controller or d.name)
                    out.append(Target(path, types[d.transport], d.name))
        else:
            for e in entries:
                label, provisional = self._label(e, dmap)
                dtype = e.type
                if e.open_error:
                    dev = dmap.get(label)
                    if dev is None or dev.transport not in RESCUED_TRANSPORTS:
                        continue  # a card reader without media, an unknown USB bridge ...
                    dtype = types[dev.transport]
                out.append(Target(e.name, dtype, label, provisional))
        exclude = self.option("exclude")
        try:
            pattern = re.compile(exclude) if exclude else None
        except re.error as exc:
            msg = f"collectors.smart.exclude is no valid regular expression: {exc}"
            raise ValueError(msg) from exc
        seen: set[str] = set()
        result = []
        for t in out:
            if t.label in seen or (pattern and (pattern.search(t.label) or pattern.search(t.path))):
                continue
            seen.add(t.label)
            result.append(t)
        return result

    def _label(self, e: ScanEntry, dmap: DeviceMap) -> tuple[str, bool]:
        state = self._states.get((e.name, e.type))
        if state is not None:
            return state.label, False
        base = os.path.basename(e.name)
        if "," in e.type:  # megaraid,N / cciss,N / areca,N: many disks behind one node
            node = e.name.removeprefix("/dev/").replace("/", "")  # /dev/bus/0 -> bus0
            return f"{node}_{e.type.replace(',', '_').replace('/', '_')}", True
        resolved = dmap.resolve(e.name)
        if resolved:
            return resolved, False
        if is_nvme_controller(base) and self.ctx.platform == "linux":
            return nvme_namespace_guess(base), True
        return base, True

    # ---- checking ----

    def collect(self) -> MetricSet:
        use_json = self._use_json()
        # one map for the whole pass: a pass over 500 disks lasts longer than the shared map
        # is kept, and each disk found by serial read the whole host again
        dmap = self.ctx.device_map()
        targets = self.targets(dmap)
        if not targets:
            raise NoDataError("no disk that smartctl can read")
        ms = MetricSet()
        jitter = float(self.option("jitter"))
        live = set()
        for i, target in enumerate(targets):
            if i and jitter > 0:
                self.sleep(self.rng.uniform(0.0, jitter))
            state = self._check(target, use_json, dmap)
            live.add((target.path, target.type))
            self._emit(ms, state)
        self._states = {k: v for k, v in self._states.items() if k in live}
        return ms

    def _argv(self, target: Target, use_json: bool) -> list[str]:
        argv = ["smartctl"]
        if use_json:
            argv.append("--json=c")
        argv += ["--nocheck=standby", "--xall" if self.option("detail") == "xall" else "--all"]
        if self.option("detail") != "xall" and reads_sas_phys(target.type):
            argv += ["-l", "sasphy"]  # --xall reads it already; --all does not
        if target.type and target.type != "auto":
            argv += ["-d", target.type]
        return argv + [target.path]

    def _check(self, target: Target, use_json: bool, dmap: DeviceMap) -> DiskState:
        key = (target.path, target.type)
        state = self._states.setdefault(key, DiskState(target.label))
        deadline = run_deadline.get()
        if deadline is not None and deadline - time.monotonic() < 1.0:
            state.status, state.message, state.report = "timeout", "collector run deadline", None
            return state
        try:
            res = self.ctx.runner.run(
                self._argv(target, use_json), timeout=float(self.option("device_timeout"))
            )
        except CommandError as exc:
            state.status, state.message = "error", str(exc)
            state.report, state.exit_status = None, None
            return state
        state.duration = res.duration
        if res.timed_out:
            state.status, state.report, state.exit_status = "timeout", None, None
            state.message = f"smartctl killed after {res.duration:.1f}s"
            log.warning("smartctl timed out", device=target.label, seconds=round(res.duration, 1))
            return state
        try:
            report = parse_smartctl(res.stdout)
        except ParseError as exc:
            err = res.stderr.decode("utf-8", "replace").strip()
            state.status, state.report, state.exit_status = "error", None, res.returncode
            state.message = err or str(exc)
            return state
        if report.exit_status is None:
            report.exit_status = res.returncode
        if report.device_type is None and target.type != "auto":
            report.device_type = target.type
        state.exit_status = report.exit_status
        state.status = check_status(report)
        state.message = "; ".join(m for _, m in report.messages)
        if state.status == "ok":
            state.report, state.read_at = report, self.clock()
            if target.provisional and report.serial:
                found = dmap.by_serial(report.serial)
                taken = {s.label for k, s in self._states.items() if k != key}
                if found and found not in taken:
                    state.label = found
        elif state.status != "standby":
            state.report = None  # values are only shown fresh or from before a sleep
        return state

    def _emit(self, ms: MetricSet, state: DiskState) -> None:
        lab = {"device": state.label}
        check_metrics(ms, state.label, state.status, CACHED)
        exit_status_metrics(ms, state.label, state.exit_status)
        ms.gauge(
            "zmon_disk_smartctl_duration_seconds",
            "How long the last smartctl run took" + CACHED,
            state.duration,
            lab,
        )
        if state.report is not None:
            report_metrics(ms, state.label, state.report, CACHED)
            ms.gauge(
                "zmon_disk_smart_last_success_timestamp_seconds",
                "Unix time the SMART values shown were read" + CACHED,
                state.read_at,
                lab,
            )
