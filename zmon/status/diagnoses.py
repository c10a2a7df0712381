"""The diagnosis table: evidence -> cause -> action, one row per kind of problem.

Each ``Rule`` names the alert that pages for the same problem (and so its runbook entry), a
fixed ``cause`` and ``action`` in plain words, and a ``find`` function that reads the host
model (and the recent history, when there is one) and returns what it saw: the subject and
the evidence. A finding reads as one line::

    sdb (ata2, mirror-0 of tank): 44 CRC errors and 3 link resets, media clean
        → suspect the cable or port; reseat the cable or move the disk to another port

The terminal report, the status page and (through ``ALERT_WORDS``) the alert annotations use
these same words. ``cause`` and ``action`` may name ``{pool}``, ``{vdev}``, ``{device}`` or
``{ups}``; ``alert_words()`` turns those into Prometheus template references.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from zmon.status import policy
from zmon.status import words as w
from zmon.status.history import Window
from zmon.status.model import (
    FAILED_IO_PATTERNS,
    LINK_PATTERNS,
    MEDIA_PATTERNS,
    Disk,
    HostModel,
    Pool,
    Vdev,
)

# Where the runbook is published: a finding links to RUNBOOK_URL#<alert name in lower case>.
# The same address as alert_rules/thresholds.py RUNBOOK_URL (a test keeps them equal).
RUNBOOK_URL = "https://github.com/zmon/zmon/blob/main/alert_rules/RUNBOOK.md"

SEVERITIES = policy.SEVERITIES


@dataclass(frozen=True)
class Limits:
    """Thresholds of the diagnoses; the defaults equal alert_rules/thresholds.py's."""

    scrub_max_age: float = 35 * 86400
    capacity_warning: float = 0.80
    capacity_critical: float = 0.90
    fragmentation_max: float = 0.70
    ddt_arc_share_max: float = 0.25
    arc_ghost_hit_ratio_max: float = 0.10
    arc_min_accesses: float = 10_000  # fewer ARC accesses than this: ratios are noise
    resilver_stall: float = 15 * 60  # issued bytes unchanged this long = stalled
    disk_temperature_max: float = 60.0
    nvme_used_max: float = 0.90
    ups_runtime_min: float = 600.0


@dataclass(frozen=True)
class Evidence:
    """What a rule may look at."""

    model: HostModel
    now: float
    history: Window = field(default_factory=Window)
    limits: Limits = field(default_factory=Limits)


@dataclass(frozen=True)
class Hit:
    """One thing a rule saw: who, what was seen, and the labels naming it."""

    subject: str
    evidence: str
    labels: dict[str, str] = field(default_factory=dict)
    alert: str | None = None  # the alert that pages for this hit, if not the rule's

    @property
    def severity(self) -> str | None:
        return policy.severity(self.alert) if self.alert else None


@dataclass(frozen=True)
class Rule:
    """A row of the table. Its severity is the paging policy's for its alert
    (zmon/status/policy.py), so ``zmon status`` and the alert agree; a row no alert pages
    for names its own (``unpaged``)."""

    id: str
    alert: str | None
    cause: str
    action: str
    find: Callable[[Evidence], Iterable[Hit]]
    doc: str = ""
    unpaged: str = ""  # the severity of a row without an alert

    @property
    def severity(self) -> str:
        return policy.severity(self.alert) if self.alert else self.unpaged


@dataclass(frozen=True)
class Finding:
    rule: str
    severity: str
    subject: str
    evidence: str
    cause: str
    action: str
    alert: str | None
    labels: dict[str, str]

    @property
    def runbook(self) -> str | None:
        return f"{RUNBOOK_URL}#{self.alert.lower()}" if self.alert else None

    def line(self, arrow: str = "→") -> str:
        return f"{self.subject}: {self.evidence} {arrow} {self.cause}; {self.action}"

    def to_json(self) -> dict[str, object]:
        return {
            "rule": self.rule,
            "severity": self.severity,
            "subject": self.subject,
            "evidence": self.evidence,
            "cause": self.cause,
            "action": self.action,
            "alert": self.alert,
            "runbook": self.runbook,
            "labels": self.labels,
            "text": self.line(),
        }


# ---- naming things


def disk_subject(disk: Disk) -> str:
    """'sdb (ata2, mirror-0 of tank)'."""
    where = []
    if disk.ata_port:  # "ata2" (sysfs may say ata2.00: port 2, device 0)
        port = disk.ata_port.split(".")[0]
        where.append(port if not port.isdigit() else f"ata{port}")
    for pool, vdev, parent in disk.vdevs:
        if parent and parent != pool:
            where.append(f"{parent} of {pool}")
        else:
            where.append(f"{vdev} of {pool}" if vdev != disk.device else f"pool {pool}")
    return f"{disk.device} ({', '.join(where)})" if where else disk.device


def vdev_subject(pool: Pool, vdev: Vdev) -> str:
    """'ata-X (sdb, mirror-0 of tank)'."""
    where = [vdev.device] if vdev.device and vdev.device != vdev.name else []
    where.append(
        f"{vdev.parent} of {pool.name}"
        if vdev.parent and vdev.parent != pool.name
        else f"pool {pool.name}"
    )
    return f"{vdev.name} ({', '.join(where)})"


def _pool_labels(pool: Pool) -> dict[str, str]:
    return {"pool": pool.name}


def _disk_labels(disk: Disk) -> dict[str, str]:
    labels = {"device": disk.device}
    if disk.vdevs:
        labels["pool"], labels["vdev"] = disk.vdevs[0][0], disk.vdevs[0][1]
    return labels


_PATTERN_WORDS = {
    "crc_error": ("CRC error", None),
    "link_reset": ("link reset", None),
    "link_down": ("link down", "link downs"),
    "ata_timeout": ("command timeout", None),
    "ahci_timeout": ("AHCI timeout", None),
    "cam_timeout": ("CAM timeout", None),
    "vdev_io_failure": ("ZFS vdev I/O failure", None),
    "zio_error": ("ZFS I/O error", None),
    "io_error": ("I/O error", None),
    "ata_failure": ("failed ATA command", None),
    "scsi_timeout": ("SCSI timeout", None),
    "nvme_timeout": ("NVMe timeout", None),
    "medium_error": ("medium error", None),
}


def _pattern_counts(disk: Disk, patterns: Iterable[str]) -> list[str]:
    out = []
    for p in patterns:
        n = disk.kernel.get(p, 0.0)
        if n:
            one, many = _PATTERN_WORDS.get(p, (p.replace("_", " "), None))
            out.append(w.count(n, one, many))
    return out


# ---- pools


def find_pool_unavailable(ev: Evidence) -> Iterable[Hit]:
    for p in ev.model.pools:
        if p.state in ("faulted", "unavail", "removed", "suspended") or p.io_suspended:
            seen = [f"state {p.state.upper()}"]
            if p.io_suspended:
                seen.append("I/O suspended")
            if ev.model.kernel_pool_events.get((p.name, "pool_suspended")):
                seen.append("the kernel logged the suspension")
            yield Hit(f"pool {p.name}", w.join(seen), _pool_labels(p))


def find_pool_degraded(ev: Evidence) -> Iterable[Hit]:
    for p in ev.model.pools:
        if p.state != "degraded":
            continue
        bad = [
            v
            for v in p.vdevs()
            if v.is_leaf
            and v.klass in ("normal", "log", "special", "dedup")
            and v.state not in ("online", "inuse", "avail")
        ]
        named = [
            f"{v.name}{f' ({v.device})' if v.device and v.device != v.name else ''} is "
            f"{v.state.upper()}"
            for v in bad
        ]
        # a vdev with no redundancy left pages (the policy's ZfsPoolRedundancyLost)
        lost = any(v.redundancy == 0 and v.state == "degraded" for v in p.vdevs())
        yield Hit(
            f"pool {p.name}",
            w.join(named) or "a vdev is not ONLINE",
            _pool_labels(p),
            alert="ZfsPoolRedundancyLost" if lost else None,
        )


def find_vdev_faulted(ev: Evidence) -> Iterable[Hit]:
    for p in ev.model.pools:
        if p.state != "online":
            continue  # a degraded or faulted pool names its vdevs itself
        for v in p.vdevs():
            if v.is_leaf and v.state in ("faulted", "unavail", "removed"):
                yield Hit(
                    vdev_subject(p, v),
                    f"state {v.state.upper()}",
                    {"pool": p.name, "vdev": v.name, "device": v.device},
                )


def find_spare_in_use(ev: Evidence) -> Iterable[Hit]:
    for p in ev.model.pools:
        for v in p.vdevs():
            if v.state == "inuse" and v.klass == "spare":
                yield Hit(
                    vdev_subject(p, v),
                    "hot spare INUSE",
                    {"pool": p.name, "vdev": v.name, "device": v.device},
                )


def _link_suspect(ev: Evidence, device: str) -> bool:
    disk = ev.model.disks.get(device)
    return disk is not None and _cable_evidence(disk) is not None


def find_checksum_errors(ev: Evidence) -> Iterable[Hit]:
    for p in ev.model.pools:
        for v in p.vdevs():
            if v.is_leaf and v.checksum_errors > 0 and not _link_suspect(ev, v.device):
                yield Hit(
                    vdev_subject(p, v),
                    w.count(v.checksum_errors, "checksum error"),
                    {"pool": p.name, "vdev": v.name, "device": v.device},
                )


def find_io_errors(ev: Evidence) -> Iterable[Hit]:
    for p in ev.model.pools:
        for v in p.vdevs():
            if not v.is_leaf or v.read_errors + v.write_errors == 0:
                continue
            if _link_suspect(ev, v.device):
                continue
            seen = [
                w.count(v.read_errors, "read error") if v.read_errors else "",
                w.count(v.write_errors, "write error") if v.write_errors else "",
            ]
            yield Hit(
                vdev_subject(p, v),
                w.join(seen),
                {"pool": p.name, "vdev": v.name, "device": v.device},
            )


def find_data_errors(ev: Evidence) -> Iterable[Hit]:
    for p in ev.model.pools:
        if p.data_errors > 0:
            yield Hit(
                f"pool {p.name}", w.count(p.data_errors, "permanent data error"), _pool_labels(p)
            )


def find_resilver_stalled(ev: Evidence) -> Iterable[Hit]:
    for p in ev.model.pools:
        scan = p.scan
        if scan is None or not scan.running or scan.paused or scan.function != "resilver":
            continue
        still = ev.history.unchanged_for(f"scan_issued:{p.name}")
        if still >= ev.limits.resilver_stall:
            yield Hit(
                f"resilver of {p.name}", f"0 bytes issued in {w.duration(still)}", _pool_labels(p)
            )


def find_resilver_running(ev: Evidence) -> Iterable[Hit]:
    for p in ev.model.pools:
        scan = p.scan
        if scan is None or not scan.running or scan.function != "resilver":
            continue
        if ev.history.unchanged_for(f"scan_issued:{p.name}") >= ev.limits.resilver_stall:
            continue  # the stall rule speaks
        yield Hit(f"resilver of {p.name}", _scan_progress(scan, ev.now), _pool_labels(p))


def _scan_progress(scan, now: float) -> str:  # type: ignore[no-untyped-def]
    parts = [f"{w.percent(scan.progress)} done" if scan.progress is not None else "running"]
    if scan.paused:
        parts.append("paused")
    elif scan.remaining is not None:
        parts.append(w.time_left(scan.remaining))
    else:
        parts.append("no estimate yet")
    if scan.start:
        parts.append(f"started {w.ago(scan.start, now)}")
    return ", ".join(parts)


def find_scrub_overdue(ev: Evidence) -> Iterable[Hit]:
    for p in ev.model.pools:
        if p.scan is not None and p.scan.running:
            continue
        if p.last_scrub_end is None:
            # never scrubbed: zpool status says "none requested"; overdue once the pool is
            # older than a scrub may be (ZfsScrubOverdue reads the same creation time)
            if p.created is not None and ev.now - p.created > ev.limits.scrub_max_age:
                yield Hit(
                    f"pool {p.name}",
                    f"never scrubbed, created {w.ago(p.created, ev.now)}",
                    _pool_labels(p),
                )
            continue
        age = ev.now - p.last_scrub_end
        if age > ev.limits.scrub_max_age:
            yield Hit(
                f"pool {p.name}", f"last scrub {w.ago(p.last_scrub_end, ev.now)}", _pool_labels(p)
            )


def find_scrub_found_errors(ev: Evidence) -> Iterable[Hit]:
    for p in ev.model.pools:
        scan = p.scan
        if scan is not None and scan.function == "scrub" and not scan.running and scan.errors:
            yield Hit(
                f"pool {p.name}",
                f"the last scrub found {w.count(scan.errors, 'error')}"
                + (f", finished {w.ago(scan.end, ev.now)}" if scan.end else ""),
                _pool_labels(p),
            )


def find_capacity(ev: Evidence) -> Iterable[Hit]:
    lim = ev.limits
    for p in ev.model.pools:
        if p.capacity is None or p.capacity < lim.capacity_warning:
            continue
        nearly_full = p.capacity >= lim.capacity_critical
        free = (p.size - p.allocated) if p.size and p.allocated is not None else None
        yield Hit(
            f"pool {p.name}",
            f"{w.percent(p.capacity)} full"
            + (f", {w.size(free)} free" if free is not None else ""),
            _pool_labels(p),
            alert="ZfsPoolCapacityCritical" if nearly_full else None,
        )


def find_fragmentation(ev: Evidence) -> Iterable[Hit]:
    for p in ev.model.pools:
        if p.fragmentation is not None and p.fragmentation > ev.limits.fragmentation_max:
            yield Hit(
                f"pool {p.name}",
                f"free space {w.percent(p.fragmentation)} fragmented",
                _pool_labels(p),
            )


# ---- memory


def find_dedup_table_too_large(ev: Evidence) -> Iterable[Hit]:
    arc = ev.model.arc
    if arc is None or not arc.max_size:
        return
    for p in ev.model.pools:
        if p.ddt_in_core and p.ddt_in_core / arc.max_size > ev.limits.ddt_arc_share_max:
            yield Hit(
                f"pool {p.name}",
                f"dedup table needs {w.size(p.ddt_in_core)} in RAM, "
                f"{w.percent(p.ddt_in_core / arc.max_size)} of ARC max "
                f"{w.size(arc.max_size)}",
                _pool_labels(p),
            )


def arc_ghost_ratio(ev: Evidence) -> tuple[float, str] | None:
    """Ghost hits per hit over the history window, or since boot; None when too few."""
    hits = ev.history.change("arc_hits")
    ghost = ev.history.change("arc_ghost_hits")
    misses = ev.history.change("arc_misses")
    if hits and ghost and misses and hits[0] + misses[0] >= ev.limits.arc_min_accesses:
        return (ghost[0] / hits[0] if hits[0] else 0.0), f"in the last {w.duration(hits[1])}"
    arc = ev.model.arc
    if arc is None or arc.hits + arc.misses < ev.limits.arc_min_accesses or not arc.hits:
        return None
    return arc.ghost_hits / arc.hits, "since boot"


def find_arc_too_small(ev: Evidence) -> Iterable[Hit]:
    found = arc_ghost_ratio(ev)
    if found is None or found[0] <= ev.limits.arc_ghost_hit_ratio_max:
        return
    ratio, when = found
    yield Hit("ARC", f"ghost hits are {w.percent(ratio)} of hits {when}")


# ---- disks


def _cable_evidence(disk: Disk, pools: Iterable[Pool] = ()) -> str | None:
    """Why the link to ``disk`` is suspect (None when it is not, or its media is bad)."""
    if disk.media_defects > 0:
        return None
    # the disk counts interface CRC errors (SMART 199) and the kernel logs them: the larger
    crc = max(disk.crc_errors, disk.kernel.get("crc_error", 0.0))
    seen = [w.count(crc, "CRC error")] if crc else []
    seen.extend(_pattern_counts(disk, [p for p in LINK_PATTERNS if p != "crc_error"]))
    if not seen:
        return None
    if disk.speed and disk.max_speed and disk.speed < disk.max_speed:
        seen.append(f"link at {disk.speed * 8 / 1e9:g} of {disk.max_speed * 8 / 1e9:g} Gb/s")
    failed = _pattern_counts(disk, FAILED_IO_PATTERNS)
    for pool in pools:
        for v in pool.vdevs():
            if v.device == disk.device and v.is_leaf and v.errors:
                failed.append(f"{_vdev_errors(v)} in {pool.name}")
    text = w.join(seen)
    if failed:
        text += f", then {w.join(failed)}"
    return text + ", media clean"


def _vdev_errors(v: Vdev) -> str:
    return w.join(
        [
            w.count(n, what)
            for n, what in (
                (v.read_errors, "read error"),
                (v.write_errors, "write error"),
                (v.checksum_errors, "checksum error"),
            )
            if n
        ]
    )


def find_cable_fault(ev: Evidence) -> Iterable[Hit]:
    for disk in ev.model.disks.values():
        seen = _cable_evidence(disk, ev.model.pools)
        if seen is None:
            continue
        new = [
            (ev.history.change(f"disk_{kind}:{disk.device}"), what)
            for kind, what in (("crc", "CRC error"), ("link", "link event"))
        ]
        recent = [w.count(change[0], what) for change, what in new if change and change[0] > 0]
        span = max((change[1] for change, _ in new if change), default=0.0)
        if recent:
            seen += f" ({w.join(recent)} new in the last {w.duration(span)})"
        yield Hit(disk_subject(disk), seen, _disk_labels(disk))


def find_smart_failed(ev: Evidence) -> Iterable[Hit]:
    for disk in ev.model.disks.values():
        if disk.smart_passed is not None and disk.smart_passed == 0:
            yield Hit(
                disk_subject(disk),
                "SMART overall health self-assessment FAILED",
                _disk_labels(disk),
            )


def find_media_failing(ev: Evidence) -> Iterable[Hit]:
    for disk in ev.model.disks.values():
        if disk.smart_passed == 0 or disk.media_defects <= 0:
            continue
        seen = []
        if disk.pending:
            seen.append(w.count(disk.pending, "sector") + " pending")
        if disk.reallocated:
            seen.append(w.count(disk.reallocated, "sector") + " reallocated")
        if disk.uncorrectable:
            seen.append(w.count(disk.uncorrectable, "sector") + " uncorrectable")
        if disk.grown_defects:
            seen.append(w.count(disk.grown_defects, "grown defect"))
        if disk.nvme_media_errors:
            seen.append(w.count(disk.nvme_media_errors, "NVMe media error"))
        seen.extend(_pattern_counts(disk, MEDIA_PATTERNS))
        yield Hit(disk_subject(disk), w.join(seen), _disk_labels(disk))


def find_nvme_critical(ev: Evidence) -> Iterable[Hit]:
    for disk in ev.model.disks.values():
        if disk.nvme_critical_warning:
            yield Hit(
                disk_subject(disk),
                f"critical warning flags 0x{int(disk.nvme_critical_warning):02x}",
                _disk_labels(disk),
            )


def find_disk_hot(ev: Evidence) -> Iterable[Hit]:
    for disk in ev.model.disks.values():
        if disk.temperature is not None and disk.temperature > ev.limits.disk_temperature_max:
            yield Hit(disk_subject(disk), f"{disk.temperature:.0f} °C", _disk_labels(disk))


def find_nvme_worn(ev: Evidence) -> Iterable[Hit]:
    for disk in ev.model.disks.values():
        if disk.nvme_used is not None and disk.nvme_used >= ev.limits.nvme_used_max:
            yield Hit(
                disk_subject(disk),
                f"{w.percent(disk.nvme_used)} of rated endurance used",
                _disk_labels(disk),
            )


# ---- UPS


def _ups_state(ups) -> str:  # type: ignore[no-untyped-def]
    parts = []
    if ups.charge is not None:
        parts.append(f"charge {w.percent(ups.charge)}")
    if ups.runtime is not None:
        parts.append(f"about {w.duration(ups.runtime)} left")
    return ", ".join(parts)


def find_ups_low_battery(ev: Evidence) -> Iterable[Hit]:
    for u in ev.model.ups:
        if u.up and u.low_battery:
            yield Hit(
                f"UPS {u.name}",
                "on battery, battery LOW" + (f", {_ups_state(u)}" if _ups_state(u) else ""),
                {"ups": u.name},
            )


def find_ups_on_battery(ev: Evidence) -> Iterable[Hit]:
    scanning = [p.name for p in ev.model.pools if p.scan is not None and p.scan.running]
    for u in ev.model.ups:
        if u.up and u.on_battery and not u.low_battery:
            seen = "on battery" + (f", {_ups_state(u)}" if _ups_state(u) else "")
            if scanning:
                seen += (
                    f", while {w.join(scanning)} {'is' if len(scanning) == 1 else 'are'} scanning"
                )
            yield Hit(f"UPS {u.name}", seen, {"ups": u.name})


def find_ups_unreachable(ev: Evidence) -> Iterable[Hit]:
    for u in ev.model.ups:
        if not u.up:
            yield Hit(f"UPS {u.name}", f"no answer from {u.server}", {"ups": u.name})


# ---- zmon itself


def find_collector_failing(ev: Evidence) -> Iterable[Hit]:
    for c in ev.model.collectors:
        if not c.success:
            last = (
                f"last good data {w.ago(c.last_success, ev.now)}"
                if c.last_success
                else "no data yet"
            )
            yield Hit(f"collector {c.name}", f"last run failed, {last}", {"collector": c.name})
        elif c.stale:
            yield Hit(
                f"collector {c.name}",
                f"data from {w.ago(c.last_success, ev.now)}",
                {"collector": c.name},
            )


RULES: tuple[Rule, ...] = (
    Rule("pool_unavailable", "ZfsPoolFaulted",
         "its data cannot be read or written",
         "run zpool status -v {pool}; restore power or cabling to its disks, then zpool clear "
         "{pool}", find_pool_unavailable),
    Rule("data_errors", "ZfsPoolDataErrors",
         "data is lost in the files zpool lists",
         "list them with zpool status -v {pool} and restore them from backup",
         find_data_errors),
    Rule("smart_failed", "DiskSmartFailed",
         "the disk predicts its own failure",
         "replace the disk", find_smart_failed),
    Rule("nvme_critical_warning", "DiskNvmeCriticalWarning",
         "the drive reports spare, temperature, reliability or read-only trouble",
         "read smartctl -a /dev/{device} and plan a replacement", find_nvme_critical),
    Rule("ups_low_battery", "UpsLowBattery",
         "power will fail soon",
         "shut down cleanly now unless power is back", find_ups_low_battery),
    Rule("pool_degraded", "ZfsPoolDegraded",
         "the pool runs with reduced redundancy",
         "bring the disk back (zpool online) or replace it (zpool replace {pool})",
         find_pool_degraded),
    Rule("vdev_faulted", "ZfsVdevFaulted",
         "ZFS stopped using the device",
         "reattach or replace it (zpool replace {pool} {vdev})", find_vdev_faulted),
    Rule("resilver_stalled", "ZfsResilverStalled",
         "the resilver is stalled",
         "look for a hung or failing disk in zpool status -v {pool} and the kernel log",
         find_resilver_stalled),
    Rule("cable_fault", "DiskCableFault",
         "suspect cable or port",
         "reseat or replace the cable, or move the disk to another port", find_cable_fault),
    Rule("media_failing", "DiskPendingSectorsRising",
         "the disk's media is failing",
         "replace the disk before another one in its vdev fails", find_media_failing),
    Rule("checksum_errors", "ZfsVdevChecksumErrors",
         "data read back did not match its checksum (disk, cable, controller or RAM)",
         "run zpool scrub {pool}, then zpool clear {pool} once the cause is fixed",
         find_checksum_errors),
    Rule("io_errors", "ZfsVdevIOErrors",
         "the device failed reads or writes",
         "check the disk's SMART and the kernel log, then zpool clear {pool}", find_io_errors),
    Rule("spare_in_use", "ZfsSpareInUse",
         "a hot spare stands in for a failed disk",
         "replace the failed disk, then zpool detach {pool} {vdev}", find_spare_in_use),
    Rule("capacity", "ZfsPoolCapacityWarning",
         "the pool is filling up (ZFS slows down when nearly full)",
         "free space or add a vdev", find_capacity),
    Rule("scrub_overdue", "ZfsScrubOverdue",
         "latent errors go unnoticed",
         "run zpool scrub {pool} and schedule it monthly", find_scrub_overdue),
    Rule("scrub_found_errors", "ZfsScrubFoundErrors",
         "the scrub read data that was bad",
         "read zpool status -v {pool}; clear with zpool clear {pool} once fixed",
         find_scrub_found_errors),
    Rule("dedup_table_too_large", "ZfsDedupTableTooLarge",
         "the dedup table crowds data out of the ARC",
         "add RAM, or stop dedup on new writes (zfs set dedup=off)",
         find_dedup_table_too_large),
    Rule("nvme_worn", "DiskNvmeWearHigh",
         "the drive is near the end of its rated endurance",
         "plan its replacement", find_nvme_worn),
    Rule("disk_hot", "DiskTemperatureHigh",
         "the disk runs hot",
         "check fans and airflow", find_disk_hot),
    Rule("ups_on_battery", "UpsOnBattery",
         "mains power is out",
         "restore power or prepare a clean shutdown", find_ups_on_battery),
    Rule("ups_unreachable", "UpsUnreachable",
         "zmon cannot see the UPS",
         "check upsd or apcupsd and the network", find_ups_unreachable),
    Rule("collector_failing", "ZmonCollectorFailing",
         "this view may be out of date",
         "read zmon's log for the collector's error", find_collector_failing),
    Rule("resilver_running", None,
         "redundancy is reduced until it finishes",
         "let it finish; do not take another disk of {pool} offline", find_resilver_running,
         unpaged="warning"),
    Rule("arc_too_small", "ZfsArcGhostHitsHigh",
         "ARC is too small for the working set",
         "add RAM or raise zfs_arc_max", find_arc_too_small),
    Rule("fragmentation", "ZfsPoolFragmentationHigh",
         "writes slow down as free space fragments",
         "free space or add a vdev", find_fragmentation),
)  # fmt: skip

RULES_BY_ID = {r.id: r for r in RULES}


def _fill(text: str, labels: dict[str, str]) -> str:
    for key in ("pool", "vdev", "device", "ups", "collector"):
        text = text.replace("{" + key + "}", labels.get(key) or key.upper())
    return text


def diagnose(ev: Evidence, rules: Iterable[Rule] = RULES) -> list[Finding]:
    """Every finding of every rule, most severe first (the table's order within one)."""
    out: list[Finding] = []
    for rule in rules:
        for hit in rule.find(ev):
            out.append(
                Finding(
                    rule.id,
                    hit.severity or rule.severity,
                    hit.subject,
                    hit.evidence,
                    _fill(rule.cause, hit.labels),
                    _fill(rule.action, hit.labels),
                    hit.alert or rule.alert,
                    dict(hit.labels),
                )
            )
    return sorted(out, key=lambda f: SEVERITIES.index(f.severity))


def alert_words() -> dict[str, tuple[str, str]]:
    """Alert name -> (cause, action) with Prometheus template references, for annotations.

    ``{pool}`` becomes ``{{ $labels.pool }}`` and so on, so an alert's description can read
    the same words as ``zmon status`` and the status page.
    """
    out: dict[str, tuple[str, str]] = {}
    for rule in RULES:
        if rule.alert and rule.alert not in out:
            out[rule.alert] = (_template(rule.cause), _template(rule.action))
    return out


def _template(text: str) -> str:
    for key in ("pool", "vdev", "device", "ups", "collector"):
        text = text.replace("{" + key + "}", "{{ $labels." + key + " }}")
    return text


ALERT_WORDS = alert_words()
