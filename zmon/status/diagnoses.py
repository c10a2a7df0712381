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

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from typing import cast

from zmon.health import policy
from zmon.health.declarations import POOL_UNAVAILABLE, VDEV_LOST
from zmon.health.ratios import ACCESSES, ARC_GHOST_HITS_PER_ACCESS, RATE_SECONDS, STATUS_FIELDS
from zmon.health.scans import DATA_CLASSES, PARITY_TYPES, RESILVER_FUNCTIONS, STANDING_IN_TYPES
from zmon.health.thresholds import DEFAULTS, Thresholds
from zmon.status import slowdown
from zmon.status import words as w
from zmon.status.history import Window, vdev_key
from zmon.status.links import DEFAULT_LINKS
from zmon.status.model import (
    FAILED_IO_PATTERNS,
    LINK_PATTERNS,
    MEDIA_PATTERNS,
    Dataset,
    Disk,
    HostModel,
    Pool,
    SasPhy,
    Scan,
    Ups,
    Vdev,
)

SEVERITIES = policy.SEVERITIES
# How far the first sample of a window may lie inside it (about one history step, with
# margin) when a finding needs the history to cover an alert's ``for:``.
HISTORY_SLACK = 60.0


@dataclass(frozen=True)
class Limits:
    """Thresholds of the diagnoses, in seconds where they are durations: each the value of
    zmon/health/thresholds.py that the alert naming the same problem judges with
    (``Limits.of``), so a finding and its alert agree."""

    scrub_max_age: float
    scrub_errors_max_age: float  # a scrub's errors are news this long after it
    capacity_warning: float
    capacity_critical: float
    fragmentation_max: float
    ddt_arc_share_max: float
    arc_ghost_hit_ratio_max: float
    arc_min_ops: float  # ARC accesses per second below which its ratios are noise
    resilver_stall: float  # issued bytes unchanged this long = stalled
    disk_temperature_max: float
    nvme_used_max: float
    ups_runtime_min: float
    dataset_quota_full: float  # used/quota or referenced/refquota above this
    snapshot_max_age: float  # no snapshot this long, where one is expected
    stuck_timeouts: int  # zpool timeouts that, with a kstat sign, make a pool stuck
    page_redundancy: int  # a suspect cable pages when its vdev survives no more
    slowdown_factor: float  # read p99 this many times its usual: slower than usual
    slowdown_ghost_share: float  # ghost hits per miss above this: mostly ghost hits
    slowdown_sibling_factor: float  # a vdev this much slower than its siblings
    latency_baseline: float  # a slowdown's usual: the median p99 over this
    error_window: float  # new vdev errors and ZFS error events count this long
    errors_not_cleared_for: float  # old error counts on an ONLINE pool this long
    failing_window: float  # a failing path: errors in this window ...
    failing_io_errors: int  # ... this many read + write errors of one vdev, or
    failing_checksum_errors: int  # this many checksum errors, in both of its halves
    resilver_rate_window: float  # the resilver's current rate over this window
    resilver_slow_factor: float  # projected duration vs. its average rate's
    resilver_slow_min_age: float  # a younger resilver's rate is noise
    resilver_slow_for: float
    sector_window: float  # reallocated sectors and NVMe media errors rising in this
    cable_window: float  # kernel-log medium errors count this long
    link_speed_for: float  # a slow link this long
    sas_expander_phys: int  # PHYs of one expander or HBA with link errors that blame it

    @classmethod
    def of(cls, t: Thresholds = DEFAULTS) -> Limits:
        """The diagnoses' limits in the thresholds table ``t``."""
        return cls(
            scrub_max_age=t.scrub_max_age.seconds,
            scrub_errors_max_age=t.scrub_errors_max_age.seconds,
            capacity_warning=t.capacity_warning_on,
            capacity_critical=t.capacity_critical_on,
            fragmentation_max=t.fragmentation_max,
            ddt_arc_share_max=t.ddt_arc_share_max,
            arc_ghost_hit_ratio_max=t.arc_ghost_hit_ratio_max,
            arc_min_ops=t.arc_min_ops,
            resilver_stall=t.resilver_stall_window.seconds,
            disk_temperature_max=t.disk_temperature_max,
            nvme_used_max=t.nvme_used_max,
            ups_runtime_min=t.ups_runtime_min.seconds,
            dataset_quota_full=t.dataset_quota_full,
            snapshot_max_age=t.snapshot_max_age.seconds,
            stuck_timeouts=t.stuck_timeouts,
            page_redundancy=t.page_redundancy,
            slowdown_factor=t.slowdown_factor,
            slowdown_ghost_share=t.slowdown_ghost_share,
            slowdown_sibling_factor=t.slowdown_sibling_factor,
            latency_baseline=t.latency_baseline.seconds,
            error_window=t.error_window.seconds,
            errors_not_cleared_for=t.errors_not_cleared_for.seconds,
            failing_window=t.failing_window.seconds,
            failing_io_errors=t.failing_io_errors,
            failing_checksum_errors=t.failing_checksum_errors,
            resilver_rate_window=t.resilver_rate_window.seconds,
            resilver_slow_factor=t.resilver_slow_factor,
            resilver_slow_min_age=t.resilver_slow_min_age.seconds,
            resilver_slow_for=t.resilver_slow_for.seconds,
            sector_window=t.sector_window.seconds,
            cable_window=t.cable_window.seconds,
            link_speed_for=t.link_speed_for.seconds,
            sas_expander_phys=t.sas_expander_phys,
        )

    @property
    def arc_min_accesses(self) -> float:
        """ARC accesses in one rate window (the ARC records') at ``arc_min_ops`` per
        second: fewer, and the ARC's ratios are noise."""
        return self.arc_min_ops * RATE_SECONDS


@dataclass(frozen=True)
class Evidence:
    """What a rule may look at."""

    model: HostModel
    now: float
    history: Window = field(default_factory=Window)
    limits: Limits = field(default_factory=Limits.of)
    # the slowdown's records at the declarations' last evaluation (the status page's
    # evaluator); None without one (one collection): then there is no usual
    recorded: slowdown.Recorded | None = None
    # what one diagnosis computes for several rules (the failing paths), once per Evidence
    memo: dict[str, object] = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True)
class Hit:
    """One thing a rule saw: who, what was seen, and the labels naming it."""

    subject: str
    evidence: str
    labels: dict[str, str] = field(default_factory=dict)
    alert: str | None = None  # the alert that pages for this hit, if not the rule's
    action: str | None = None  # overrides the rule's, when the state calls for other advice
    cause: str | None = None  # overrides the rule's, when the state calls for other words
    locate: str = ""  # the command that blinks the disk's slot LED, when it has a slot

    @property
    def severity(self) -> str | None:
        return policy.severity(self.alert) if self.alert else None


@dataclass(frozen=True)
class Rule:
    """A row of the table. Its severity is the paging policy's for its alert
    (zmon/health/policy.py), so ``zmon status`` and the alert agree. A row that names no
    alert, neither its own nor its hits' (``also``), is a note: information with no
    severity, never counted in the host's state."""

    id: str
    alert: str | None
    cause: str
    action: str
    find: Callable[[Evidence], Iterable[Hit]]
    doc: str = ""
    also: tuple[str, ...] = ()  # other alerts its hits may name (Hit.alert)

    @property
    def severity(self) -> str:
        """The policy's severity of its alert; "" for a row whose hits name theirs, or a note."""
        return policy.severity(self.alert) if self.alert else ""

    @property
    def note(self) -> bool:
        """A row that names no alert: what it sees is said as a note."""
        return not self.alerts

    @property
    def alerts(self) -> tuple[str, ...]:
        """Every alert a finding of this row may name."""
        return ((self.alert,) if self.alert else ()) + self.also


def rank(severity: str) -> int:
    """Most severe first; a note ("": no severity) after every finding."""
    return SEVERITIES.index(severity) if severity in SEVERITIES else len(SEVERITIES)


@dataclass(frozen=True)
class Finding:
    """What a rule saw. One that names an alert is a finding of the report; one that names
    none (a note's row, or a finding whose declared condition does not hold) is a note:
    said, with no severity, and never counted in the host's state."""

    rule: str
    severity: str
    subject: str
    evidence: str
    cause: str
    action: str
    alert: str | None
    labels: dict[str, str]
    locate: str = ""

    @property
    def runbook(self) -> str | None:
        return DEFAULT_LINKS.runbook(self.alert) if self.alert else None

    def line(self, arrow: str = "→") -> str:
        return f"{self.subject}: {self.evidence} {arrow} {self.cause}; {self.action}"

    @property
    def is_note(self) -> bool:
        return self.alert is None

    def as_note(self) -> Finding:
        """The same words as a note: no alert, no severity."""
        return replace(self, severity="", alert=None)

    def note_json(self) -> dict[str, object]:
        """A note of the report: what was seen, its cause and action; no alert, no severity."""
        return {
            "rule": self.rule,
            "subject": self.subject,
            "evidence": self.evidence,
            "cause": self.cause,
            "action": self.action,
            "labels": self.labels,
            "locate": self.locate,
            "text": self.line(),
        }

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
            "locate": self.locate,
            "text": self.line(),
        }


# ---- naming things


def disk_place(disk: Disk, known: str = "") -> list[str]:
    """How to find the disk: serial, WWN, and its enclosure slot (or else its ATA port).

    Parts already in ``known`` (a vdev named ``ata-MODEL_SERIAL``) are left out."""
    parts = []
    if disk.serial and disk.serial not in known:
        parts.append(f"serial {disk.serial}")
    if disk.wwn and disk.wwn not in known:
        parts.append(f"WWN {disk.wwn}")
    if disk.enclosure and disk.slot:
        parts.append(w.slot(disk.enclosure, disk.slot))
    elif disk.ata_port:  # "ata2" (sysfs may say ata2.00: port 2, device 0)
        port = disk.ata_port.split(".")[0]
        parts.append(port if not port.isdigit() else f"ata{port}")
    return parts


def disk_subject(disk: Disk) -> str:
    """'sdb (serial ZA1ABC02, WWN 0x5000c500a1b2c302, enclosure 0:0:12:0 Slot01, mirror-0 of
    tank)'."""
    where = disk_place(disk)
    for pool, vdev, parent in disk.vdevs:
        if parent and parent != pool:
            where.append(f"{parent} of {pool}")
        else:
            where.append(f"{vdev} of {pool}" if vdev != disk.device else f"pool {pool}")
    return f"{disk.device} ({', '.join(where)})" if where else disk.device


def vdev_subject(pool: Pool, vdev: Vdev, disk: Disk | None = None) -> str:
    """'ata-X (sdb, enclosure 0:0:12:0 Slot01, mirror-0 of tank)'."""
    where = [vdev.device] if vdev.device and vdev.device != vdev.name else []
    if disk is not None:
        where.extend(disk_place(disk, known=vdev.name))
    where.append(
        f"{vdev.parent} of {pool.name}"
        if vdev.parent and vdev.parent != pool.name
        else f"pool {pool.name}"
    )
    return f"{vdev.name} ({', '.join(where)})"


def _vdev_hit(
    ev: Evidence,
    p: Pool,
    v: Vdev,
    evidence: str,
    action: str | None = None,
    locate: bool = True,
    state: str = "",
) -> Hit:
    """A finding about one leaf vdev: named with its disk's place, with its locate hint
    (``state``: the vdev state its alert names, when it names one)."""
    disk = ev.model.disks.get(v.device) if v.device else None
    labels = {"pool": p.name, "vdev": v.name, "device": v.device}
    if state:
        labels["state"] = state
    return Hit(
        vdev_subject(p, v, disk),
        evidence,
        labels,
        action=action,
        locate=disk.locate if disk is not None and locate else "",
    )


def _disk_hit(disk: Disk, evidence: str, action: str | None = None, locate: bool = True) -> Hit:
    return Hit(
        disk_subject(disk),
        evidence,
        _disk_labels(disk),
        action=action,
        locate=disk.locate if locate else "",
    )


def replace_command(pool: str, old: str) -> str:
    """``zpool replace tank <old> <new-disk-by-id>``: ``old`` as zpool status names it."""
    return f"zpool replace {pool} {old} <new-disk-by-id>"


# ---- the vdev tree's shape


def parent_of(pool: Pool, v: Vdev) -> Vdev | None:
    return pool.vdev(v.parent) if v.parent and v.parent != pool.name else None


def being_replaced(pool: Pool, v: Vdev) -> bool:
    """``v`` is the old disk of a ``replacing-N`` (or the failed one a ``spare-N`` covers)."""
    parent = parent_of(pool, v)
    return (
        parent is not None
        and parent.type in STANDING_IN_TYPES
        and bool(parent.children)
        and parent.children[-1] is not v
    )


def standing_in(pool: Pool, v: Vdev) -> Vdev | None:
    """The hot spare that stands in for ``v`` (the failed disk of a ``spare-N``), if any."""
    parent = parent_of(pool, v)
    if parent is None or parent.type != "spare" or not being_replaced(pool, v):
        return None
    return parent.children[-1]


def spare_advice(pool: Pool, failed: Vdev) -> str:
    """Replace the failed disk (the spare then goes back to the spares) or keep the spare."""
    return (
        f"replace {failed.name} ({replace_command(pool.name, failed.name)}): the spare goes "
        f"back to the spares when that resilver finishes; or keep the spare in its place "
        f"(zpool detach {pool.name} {failed.name})"
    )


def _resilvering(pool: Pool) -> bool:
    scan = pool.scan
    return scan is not None and scan.running and scan.function in RESILVER_FUNCTIONS


def _top_level(pool: Pool, v: Vdev) -> Vdev:
    top = v
    while (up := parent_of(pool, top)) is not None:
        top = up
    return top


def _parity(top: Vdev) -> int | None:
    """How many columns ``top`` can lose: mirror width - 1, raidzN/draidN N; None if none."""
    if top.type == "mirror":
        return len(top.children) - 1
    m = re.match(r"^d?raidz?(\d)?", top.name) if top.type in PARITY_TYPES else None
    if m:
        return int(m.group(1) or 1)
    return None


def last_good_copies(pool: Pool) -> dict[str, Vdev]:
    """During a resilver: disk -> its leaf, for leaves that every read of their top-level vdev
    needs (no column to spare). Pulling such a disk loses the data the resilver copies.

    A good copy is an ONLINE leaf that is neither written by the resilver nor the old disk
    of a replacement: that one is leaving because it is suspect, and it may lack what was
    written while it was away (offline, unplugged), so the resilver cannot count on it."""
    out: dict[str, Vdev] = {}
    if not _resilvering(pool) or pool.root is None:
        return out
    for top in pool.root.children:
        parity = _parity(top)
        if parity is None or top.klass not in DATA_CLASSES:
            continue
        readable: list[list[Vdev]] = []  # per column, the leaves a read can come from
        for column in top.children:
            leaves = [
                v
                for v, parent in _leaves_under(column, top)
                if v.state == "online"
                and "resilvering" not in v.notes
                # the new disk of a replacing-N or spare-N (last), or the old one (before it)
                and parent.type not in STANDING_IN_TYPES
            ]
            if leaves:
                readable.append(leaves)
        needed = 1 if top.type == "mirror" else len(top.children) - parity
        if len(readable) > needed:
            continue
        for leaves in readable:
            if len(leaves) == 1 and leaves[0].device:
                out[leaves[0].device] = leaves[0]
    return out


def _leaves_under(v: Vdev, parent: Vdev) -> Iterable[tuple[Vdev, Vdev]]:
    """The leaves under ``v`` (``v`` itself if it is one), each with its parent, without a
    lookup by name per leaf (a pool may have a thousand)."""
    if v.is_leaf:
        yield v, parent
    for child in v.children:
        yield from _leaves_under(child, v)


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


UNAVAILABLE = POOL_UNAVAILABLE  # pool states: ZfsPoolFaulted


def find_pool_unavailable(ev: Evidence) -> Iterable[Hit]:
    for p in ev.model.pools:
        if p.state in UNAVAILABLE or p.io_suspended:
            seen = [f"state {p.state.upper()}"]
            if p.io_suspended:
                seen.append("I/O suspended")
            if ev.model.kernel_pool_events.get((p.name, "pool_suspended")):
                seen.append("the kernel logged the suspension")
            yield Hit(f"pool {p.name}", w.join(seen), {**_pool_labels(p), "state": p.state})


def _bad_leaves(p: Pool) -> list[Vdev]:
    """The leaves that cost ``p`` redundancy (cache and spare devices do not)."""
    return [
        v
        for v in p.vdevs()
        if v.is_leaf
        and v.klass in ("normal", "log", "special", "dedup")
        and v.state not in ("online", "inuse", "avail")
    ]


def _leaf_words(ev: Evidence, p: Pool, v: Vdev) -> str:
    """'ata-X (sdb, enclosure 0:0:12:0 Slot01) is OFFLINE, its link shows 44 CRC errors'."""
    disk = ev.model.disks.get(v.device) if v.device else None
    # a disk that is gone keeps its link name as its device ("ata-X-part1"): no news
    where = [v.device] if v.device and not v.device.startswith(v.name) else []
    if disk is not None:
        where.extend(disk_place(disk, known=v.name))
    text = f"{v.name} ({', '.join(where)})" if where else v.name
    text += f" is {v.state.upper()}"
    spare = standing_in(p, v)
    if spare is not None:
        text += f", hot spare {spare.name} stands in ({v.parent})"
    elif being_replaced(p, v):
        text += f", being replaced ({v.parent})"
    elif disk is not None and (cable := _cable_evidence(disk, [p])) is not None:
        text += f"; its link shows {cable}"
    return text


def _leaf_advice(ev: Evidence, p: Pool, bad: list[Vdev]) -> str | None:
    """What to do about the bad leaves, as their state calls for (None: the rule's words)."""
    steps = []
    for v in bad:
        disk = ev.model.disks.get(v.device) if v.device else None
        if standing_in(p, v) is not None:
            steps.append(spare_advice(p, v))
        elif being_replaced(p, v):
            steps.append(
                f"let the resilver onto {v.parent} finish: ZFS detaches {v.name} when it is done"
            )
        elif disk is not None and _cable_evidence(disk) is not None:
            # a FAULTED vdev comes back with its errors cleared; an OFFLINE or missing one
            # with zpool online
            back = "clear" if v.state == "faulted" else "online"
            steps.append(
                f"reseat or replace the cable of {v.device} (or move it to another port), "
                f"then zpool {back} {p.name} {v.name}"
            )
        elif v.state == "offline":
            steps.append(
                f"bring {v.name} back (zpool online {p.name} {v.name}) or replace it "
                f"({replace_command(p.name, v.name)})"
            )
        else:
            steps.append(f"replace {v.name} ({replace_command(p.name, v.name)})")
    return "; ".join(steps) or None


def find_pool_degraded(ev: Evidence) -> Iterable[Hit]:
    for p in ev.model.pools:
        if p.state != "degraded":
            continue
        bad = _bad_leaves(p)
        named = [_leaf_words(ev, p, v) for v in bad]
        locates = [
            d.locate
            for v in bad
            if not being_replaced(p, v) and (d := ev.model.disks.get(v.device)) and d.locate
        ]
        # a vdev with no redundancy left pages (the policy's ZfsPoolRedundancyLost)
        lost = any(v.redundancy == 0 and v.state == "degraded" for v in p.vdevs())
        yield Hit(
            f"pool {p.name}",
            w.join(named) or "a vdev is not ONLINE",
            _pool_labels(p) if lost else {**_pool_labels(p), "state": p.state},
            alert="ZfsPoolRedundancyLost" if lost else None,
            cause="a vdev has no redundancy left: one more failure there loses the pool"
            if lost
            else None,
            action=_leaf_advice(ev, p, bad),
            locate=" and ".join(locates),
        )


def find_vdev_faulted(ev: Evidence) -> Iterable[Hit]:
    for p in ev.model.pools:
        if p.state != "online":
            continue  # a degraded or faulted pool names its vdevs itself
        for v in p.vdevs():
            if v.is_leaf and v.state in VDEV_LOST:
                disk = ev.model.disks.get(v.device) if v.device else None
                cable = _cable_evidence(disk) if disk is not None else None
                replaced = being_replaced(p, v)
                yield _vdev_hit(
                    ev,
                    p,
                    v,
                    f"state {v.state.upper()}"
                    + (f", being replaced ({v.parent})" if replaced else "")
                    + (f"; its link shows {cable}" if cable and not replaced else ""),
                    _leaf_advice(ev, p, [v]),
                    locate=not replaced,
                    state=v.state,
                )


def find_spare_in_use(ev: Evidence) -> Iterable[Hit]:
    for p in ev.model.pools:
        for v in p.vdevs():
            if v.state != "inuse" or v.klass != "spare":
                continue
            failed = _covered_by_spare(p, v.name)
            if failed is not None and p.state == "degraded" and failed in _bad_leaves(p):
                continue  # the degraded pool's finding names the failed disk and the spare
            yield _vdev_hit(
                ev,
                p,
                v,
                "hot spare INUSE" + (f" for {failed.name}" if failed else ""),
                spare_advice(p, failed) if failed else None,
                locate=False,
            )


def _covered_by_spare(p: Pool, spare: str) -> Vdev | None:
    """The failed disk the hot spare named ``spare`` stands in for (its ``spare-N`` sibling)."""
    for f in p.vdevs():
        covering = standing_in(p, f) if f.is_leaf else None
        if covering is not None and covering.name == spare:
            return f
    return None


def _link_suspect(ev: Evidence, device: str) -> bool:
    disk = ev.model.disks.get(device)
    return disk is not None and _cable_evidence(disk) is not None


RECENT_SCRUB = 86400.0  # a scrub that finished this recently needs no repeating


def _checksum_advice(ev: Evidence, p: Pool) -> str | None:
    """Advice that follows the pool's scrub: none to run while one runs or right after one
    finished (None: the rule's own, "run zpool scrub")."""
    if p.scan is not None and p.scan.running and p.scan.function == "scrub":
        return (
            f"let the scrub finish (it reads every block and repairs what it can), then find "
            f"the cause and zpool clear {p.name}"
        )
    end = p.last_scrub_end
    if p.scan is not None and p.scan.function == "scrub" and p.scan.end:
        end = max(end or 0.0, p.scan.end)
    if end is not None and 0 <= ev.now - end < RECENT_SCRUB:
        return (
            f"the scrub that finished {w.ago(end, ev.now)} read every block and repaired what "
            f"it could: find the cause (SMART, cabling, controller, RAM), then zpool clear "
            f"{p.name}"
        )
    return None


def find_checksum_errors(ev: Evidence) -> Iterable[Hit]:
    for p in ev.model.pools:
        for v in p.vdevs():
            if v.is_leaf and v.checksum_errors > 0 and not _muted_vdev(ev, p, v):
                yield _vdev_hit(
                    ev,
                    p,
                    v,
                    w.count(v.checksum_errors, "checksum error"),
                    action=_checksum_advice(ev, p),
                )


def find_io_errors(ev: Evidence) -> Iterable[Hit]:
    for p in ev.model.pools:
        for v in p.vdevs():
            if not v.is_leaf or v.read_errors + v.write_errors == 0:
                continue
            if _muted_vdev(ev, p, v):
                continue
            seen = [
                w.count(v.read_errors, "read error") if v.read_errors else "",
                w.count(v.write_errors, "write error") if v.write_errors else "",
            ]
            yield _vdev_hit(ev, p, v, w.join(seen))


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
                f"resilver of {p.name}",
                f"0 bytes issued in {w.duration(still)}",
                {**_pool_labels(p), "function": scan.function},
            )


def find_resilver_running(ev: Evidence) -> Iterable[Hit]:
    for p in ev.model.pools:
        scan = p.scan
        if scan is None or not scan.running or scan.function != "resilver":
            continue
        if ev.history.unchanged_for(f"scan_issued:{p.name}") >= ev.limits.resilver_stall:
            continue  # the stall rule speaks
        if _ups_on_battery(ev):
            continue  # the resilver-on-battery rule speaks
        if any(pool is p for pool, _ in _resilver_needs(ev).values()):
            continue  # the failing-source rule speaks, with the resilver's progress
        if resilver_too_slow(ev, p) is not None:
            continue  # the slow-resilver rule speaks
        yield Hit(f"resilver of {p.name}", _scan_progress(scan, ev.now), _pool_labels(p))


def _replacement_advice(ev: Evidence, disk: Disk) -> str | None:
    """For a disk already being replaced: wait for the resilver (None when it is not)."""
    for p in ev.model.pools:
        for v in p.vdevs():
            if v.device == disk.device and v.is_leaf and being_replaced(p, v):
                return (
                    f"it is being replaced ({v.parent} of {p.name}): let the resilver finish; "
                    f"ZFS detaches {v.name} when it is done"
                )
    return None


def _resilver_needs(ev: Evidence) -> dict[str, tuple[Pool, Vdev]]:
    """Failing disks a running resilver still reads as the last good copy: device -> leaf."""
    out: dict[str, tuple[Pool, Vdev]] = {}
    for p in ev.model.pools:
        for device, leaf in last_good_copies(p).items():
            disk = ev.model.disks.get(device)
            if disk is not None and (disk.smart_passed == 0 or disk.media_defects > 0):
                out[device] = (p, leaf)
    return out


def find_resilver_source_failing(ev: Evidence) -> Iterable[Hit]:
    for device, (p, leaf) in _resilver_needs(ev).items():
        disk = ev.model.disks[device]
        seen = _media_words(disk)
        if disk.smart_passed == 0:
            seen.insert(0, "SMART health FAILED")
        top = _top_level(p, leaf)
        scan = p.scan
        progress = f" ({_scan_progress(scan, ev.now)})" if scan is not None else ""
        yield Hit(
            disk_subject(disk),
            f"{w.join(seen)}, and it holds the only good copy of {top.name} while {p.name} "
            f"resilvers{progress}",
            {"pool": p.name, "vdev": leaf.name, "device": device},
            locate=disk.locate,
        )


def _scan_progress(scan: Scan, now: float) -> str:
    done = f"{w.percent(scan.progress)} done" if scan.progress is not None else "running"
    parts = [done, scan_left(scan)]
    if scan.start:
        parts.append(f"started {w.ago(scan.start, now)}")
    return ", ".join(parts)


def scan_left(scan: Scan) -> str:
    """What is left of a running scan: 'paused', 'about 12 min to go' or 'no estimate yet'."""
    if scan.paused:
        return "paused"
    return w.time_left(scan.remaining) if scan.remaining is not None else "no estimate yet"


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
    """As ZfsScrubFoundErrors: the last scrub counted errors or repaired bytes, it ended
    less than ``scrub_errors_max_age`` ago, and the vdev counters (or the pool's data errors)
    still show what it found: zpool clear ends it."""
    for p in ev.model.pools:
        scan = p.scan
        if scan is None or scan.function != "scrub" or scan.state != "finished":
            continue
        if not (scan.errors or scan.repaired) or p.last_scrub_end is None:
            continue
        if ev.now - p.last_scrub_end >= ev.limits.scrub_errors_max_age:
            continue
        if not p.data_errors and not any(v.errors for v in p.vdevs() if v.is_leaf):
            continue
        found = (
            f"found {w.count(scan.errors, 'error')}"
            if scan.errors
            else f"repaired {w.size(scan.repaired)}"
        )
        yield Hit(
            f"pool {p.name}",
            f"the last scrub {found}"
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


# ---- datasets


def _dataset_labels(ds: Dataset) -> dict[str, str]:
    return {"pool": ds.pool, "dataset": ds.name}


def find_quota_nearly_full(ev: Evidence) -> Iterable[Hit]:
    for ds in ev.model.datasets:
        if ds.quota and ds.used is not None and ds.used / ds.quota > ev.limits.dataset_quota_full:
            yield Hit(
                f"dataset {ds.name}",
                f"uses {w.percent(ds.used / ds.quota)} of its quota of {w.size(ds.quota)} "
                f"({w.size(ds.used)} used)",
                _dataset_labels(ds),
            )


def find_refquota_nearly_full(ev: Evidence) -> Iterable[Hit]:
    for ds in ev.model.datasets:
        ref, limit = ds.referenced, ds.refquota
        if limit and ref is not None and ref / limit > ev.limits.dataset_quota_full:
            yield Hit(
                f"dataset {ds.name}",
                f"references {w.percent(ref / limit)} of its refquota of {w.size(limit)} "
                f"({w.size(ref)})",
                _dataset_labels(ds),
            )


def find_snapshot_overdue(ev: Evidence) -> Iterable[Hit]:
    """Only datasets the snapshot policy selects (the datasets collector's
    ``snapshot_expected`` options): since their newest snapshot, or since their creation
    when they have none."""
    limit = w.duration(ev.limits.snapshot_max_age)
    for ds in ev.model.datasets:
        if ds.snapshots_expected_since is None:
            continue
        if ds.newest_snapshot is not None:
            if ev.now - ds.newest_snapshot > ev.limits.snapshot_max_age:
                yield Hit(
                    f"dataset {ds.name}",
                    f"newest snapshot taken {w.ago(ds.newest_snapshot, ev.now)} (limit {limit})",
                    _dataset_labels(ds),
                )
        elif ds.snapshots is not None and (
            ev.now - ds.snapshots_expected_since > ev.limits.snapshot_max_age
        ):
            yield Hit(
                f"dataset {ds.name}",
                f"no snapshot since it was created {w.ago(ds.snapshots_expected_since, ev.now)}"
                f" (limit {limit})",
                _dataset_labels(ds),
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
    """Ghost hits per access (zmon:arc_ghost_hits_per_access:ratio_rate5m) over the last
    5 minutes of the history, or since boot; None when too few accesses."""
    found = ARC_GHOST_HITS_PER_ACCESS.increases(ev.history)
    if found is not None and sum(found[0][f] for f in ACCESSES) >= ev.limits.arc_min_accesses:
        ratio = ARC_GHOST_HITS_PER_ACCESS.of(found[0])
        if ratio is not None:
            return ratio, f"in the last {w.duration(found[1])}"
    arc = ev.model.arc
    if arc is None or arc.hits + arc.misses < ev.limits.arc_min_accesses:
        return None
    since_boot = ARC_GHOST_HITS_PER_ACCESS.of({f: getattr(arc, f) for f in STATUS_FIELDS})
    return None if since_boot is None else (since_boot, "since boot")


def find_arc_too_small(ev: Evidence) -> Iterable[Hit]:
    found = arc_ghost_ratio(ev)
    if found is None or found[0] <= ev.limits.arc_ghost_hit_ratio_max:
        return
    ratio, when = found
    yield Hit("ARC", f"ghost hits are {w.percent(ratio)} of ARC accesses {when}")


def _slowdowns(ev: Evidence) -> list[slowdown.Slowdown]:
    lim = ev.limits
    if ev.recorded is None:
        return []
    return slowdown.slowdowns(ev.model, ev.history, ev.recorded, slowdown.Limits(
        lim.slowdown_factor, lim.slowdown_ghost_share, lim.slowdown_sibling_factor,
        lim.arc_min_accesses))  # fmt: skip


def _slow_reads(s: slowdown.Slowdown, recorded: slowdown.Recorded, baseline: float) -> list[str]:
    """'reads are 6.0x slower than usual (p99 41 ms, usually 7.1 ms)' and the ARC's words:
    the records' numbers; a usual of less than its baseline says what it covers."""
    lat = s.latency
    usual = w.latency(lat.usual)
    if recorded.covers < baseline:
        usual += f" over the {w.duration(recorded.covers)} seen"
    parts = [f"reads are {w.times(lat.factor)} slower than usual (p99 {w.latency(lat.now)}, "
             f"usually {usual})"]  # fmt: skip
    if s.arc is not None:
        hit = recorded.hit if recorded.hit is not None else s.arc.hit_ratio
        if recorded.usual_hit is not None and recorded.usual_hit > hit:
            parts.append(f"ARC hit ratio fell from {w.percent(recorded.usual_hit)} to "
                         f"{w.percent(hit)}")  # fmt: skip
        else:
            parts.append(f"ARC hit ratio {w.percent(hit)}")
        if s.arc.ghost_share is not None:
            parts.append(f"{w.percent(s.arc.ghost_share)} of the misses were ghost hits")
    return parts


def find_arc_slowdown(ev: Evidence) -> Iterable[Hit]:
    """Reads slower than usual and the misses behind them mostly ghost hits: memory."""
    for s in _slowdowns(ev):
        if s.cause != "arc" or s.arc is None or ev.recorded is None:
            continue
        arc = ev.model.arc
        extra = f"up to {w.size(s.arc.extra_bytes)} more" if s.arc.extra_bytes else "more"
        limit = ""
        if arc is not None and arc.max_size:
            ram = f" of {w.size(arc.memory_all)} RAM" if arc.memory_all else ""
            limit = f" (now {w.size(arc.max_size)}{ram})"
        yield Hit(
            f"pool {s.pool.name}",
            "; ".join(_slow_reads(s, ev.recorded, ev.limits.latency_baseline)),
            _pool_labels(s.pool),
            cause=f"a larger ARC ({extra}) would have served them: up to "
            f"{w.percent(s.arc.more_hits)} more reads would have hit",
            action=f"raise zfs_arc_max{limit} if memory allows, or add RAM or an L2ARC",
        )


_NOT_THE_ARC = {
    "scan": ("a {scan} on {pool} competes with the reads, not the ARC",
             "let it finish (a scrub can be paused: zpool scrub -p {pool}); a larger ARC "
             "would not help"),
    "vdev": ("one slow {kind} holds {pool} back, not the ARC",
             "check {vdev} (SMART, cabling, the kernel log) and replace it if it stays slow"),
    "throttle": ("the write throttle holds I/O back (dirty data at zfs_dirty_data_max), not "
                 "the ARC",
                 "find what writes; a faster pool or log device, or a larger "
                 "zfs_dirty_data_max; a larger ARC would not help"),
    "cold": ("the misses are cold reads (data read for the first time: a new workload, a "
             "backup, a search through old data), not the ARC's size",
             "find what reads; a larger ARC would not serve them"),
}  # fmt: skip


def find_slow_reads(ev: Evidence) -> Iterable[Hit]:
    """Reads slower than usual for a reason no ARC size changes: say which, raise no ticket.
    Without the records (one collection) no pool whose reads zmon measures has a usual: say
    that, not a usual of its own."""
    if ev.recorded is None:
        measured = [p for p in ev.model.pools if p.read_latency]
        if measured:
            names = [p.name for p in measured]
            yield Hit(
                f"pool {names[0]}" if len(names) == 1 else f"pools {w.join(names)}",
                "reads not compared with their usual",
                _pool_labels(measured[0]) if len(names) == 1 else {},
                cause="no usual yet: one collection keeps no history (the usual is the median of "
                f"the 5-minute read p99s over {w.duration(ev.limits.latency_baseline)}, which "
                "a running zmon records)",
                action="see the running zmon's report (its status page, or zmon status on the "
                "host while it runs)",
            )
        return
    for s in _slowdowns(ev):
        if s.cause == "arc":
            continue
        cause, action = _NOT_THE_ARC[s.cause]
        labels = _pool_labels(s.pool)
        seen = _slow_reads(s, ev.recorded, ev.limits.latency_baseline)
        scan = s.pool.scan.function if s.pool.scan is not None else "scan"
        kind = "disk"
        if s.sibling is not None:
            v = s.sibling.vdev
            kind = "disk" if v.is_leaf else "vdev"
            labels = {**labels, "vdev": v.name, "device": v.device}
            seen.append(f"{v.name} reads take {w.times(s.sibling.factor)} as long as its "
                        "siblings'")  # fmt: skip
        if s.cause == "throttle":
            seen.append(f"{w.count(s.waits, 'write')} waited for dirty data in the last 5 min")
        if s.cause == "scan":
            seen.append(f"a {scan} is running")
        yield Hit(
            f"pool {s.pool.name}",
            "; ".join(seen),
            labels,
            cause=cause.replace("{scan}", scan).replace("{kind}", kind),
            action=action.replace("{scan}", scan),
        )


# ---- disks


def _cable_evidence(
    disk: Disk, pools: Iterable[Pool] = (), recent: Recent | None = None
) -> str | None:
    """Why the link to ``disk`` is suspect (None when it is not, or its media is bad).

    Counts are totals: CRC errors as the disk counts them over its life (or the kernel since
    zmon started, when larger), kernel link events since zmon started. ``recent`` says how
    many of each total are new, right after it: '37 CRC errors (7 in the last 50 min)'."""
    if disk.media_defects > 0:
        return None
    crc = disk.crc_total
    seen = [w.count(crc, "CRC error")] if crc else []
    if seen and recent is not None and recent.crc:
        seen[0] += f" ({recent.crc:g} in the last {w.duration(recent.span)})"
    links = _pattern_counts(disk, [p for p in LINK_PATTERNS if p != "crc_error"])
    if links and recent is not None and recent.link:
        new = f"{recent.link:g} in the last {w.duration(recent.span)}"
        links = [w.join(links) + (f" ({new})" if len(links) == 1 else f" ({new} of them)")]
    seen.extend(links)
    if recent is not None and recent.sas:
        # a PHY's totals rise at every boot and link reset: only errors that kept coming count
        link = f" of PHY {disk.sas_phy} ({disk.sas_parent})" if disk.sas_phy else ""
        seen.append(
            f"{w.count(recent.sas, 'SAS PHY error')} on its link{link} in the last "
            f"{w.duration(recent.sas_span)}, rising all along"
        )
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


@dataclass(frozen=True)
class Recent:
    """How many of a disk's CRC errors and link events are new within ``span`` seconds."""

    crc: float
    link: float
    span: float
    sas: float = 0.0  # SAS PHY link errors, when they kept coming (else 0)
    sas_span: float = 0.0


def _recent_link_errors(ev: Evidence, disk: Disk) -> Recent | None:
    """The rise of the cable diagnosis's own totals over the history (None without one)."""
    crc = ev.history.change(f"disk_crc:{disk.device}")
    link = ev.history.change(f"disk_link:{disk.device}")
    window = ev.limits.cable_window
    # each view of the link on its own: the HBA's or expander's (sysfs, every minute) and the
    # disk's (smartctl, every half hour) see one step at different times
    views = [ev.history.kept_rising(f"{k}:{disk.device}", ev.now, window)
             for k in ("disk_sas", "disk_sas_own")]  # fmt: skip
    sas = sum(v for v in views if v) if any(views) else None
    if not crc and not link and sas is None:
        return None
    span = max((c[1] for c in (crc, link) if c), default=0.0)
    sas_span = min(window, ev.history.span)
    return Recent(
        max(0.0, crc[0]) if crc else 0.0,
        max(0.0, link[0]) if link else 0.0,
        span,
        sas or 0.0,
        sas_span,
    )


def blamed_sas_parents(ev: Evidence) -> dict[str, list[SasPhy]]:
    """The expanders and HBAs with link errors that kept coming on several of their PHYs at
    once (``sas_expander_phys`` or more), with those PHYs: the part the links share, not
    each disk's cable."""
    rising: dict[str, list[SasPhy]] = {}
    for name, phy in ev.model.sas_phys.items():
        if phy.parent and ev.history.kept_rising(f"sas_phy:{name}", ev.now, ev.limits.cable_window):
            rising.setdefault(phy.parent, []).append(phy)
    return {p: phys for p, phys in rising.items() if len(phys) >= ev.limits.sas_expander_phys}


def _covered_elsewhere(ev: Evidence, disk: Disk) -> bool:
    """The disk's cable evidence is told by another finding, or cable advice would be wrong:
    its leaf is not ONLINE (the degraded-pool or faulted-vdev finding names the cable), or it
    is the old disk of a replacement (it is leaving the pool; its cable does not matter)."""
    for p in ev.model.pools:
        for v in p.vdevs():
            if v.device != disk.device or not v.is_leaf:
                continue
            if being_replaced(p, v):
                return True
            if p.state == "degraded" and v in _bad_leaves(p):
                return True
            if p.state == "online" and v.state in VDEV_LOST:
                return True
    return False


def _cable_cannot_wait(ev: Evidence, disk: Disk, recent: Recent | None) -> bool:
    """The suspect cable pages (DiskLinkFailing), as the alert does: the disk serves a pool
    and losing it would leave the ONLINE top-level vdev it sits in directly without
    redundancy (a disk being resilvered in under replacing-N or spare-N carries none yet;
    a DEGRADED vdev is the degraded-pool finding's), or ZFS counts
    errors on its leaf while its link errors are new. A disk in no pool is a ticket at most.
    (The alert also pages when link errors keep coming for 45 minutes, longer than the
    status history reaches.)"""
    for p in ev.model.pools:
        for v in p.vdevs():
            if v.device != disk.device or not v.is_leaf:
                continue
            if _cannot_lose(p, v, ev.limits.page_redundancy):
                return True
            if v.errors and recent is not None:
                return True
    return False


def find_cable_fault(ev: Evidence) -> Iterable[Hit]:
    blamed = blamed_sas_parents(ev)
    for disk in ev.model.disks.values():
        recent = _recent_link_errors(ev, disk)
        seen = _cable_evidence(disk, ev.model.pools, recent)
        if seen is None or _covered_elsewhere(ev, disk):
            continue
        failing = failing_paths(ev)
        if any((pool, vdev) in failing for pool, vdev, _ in disk.vdevs):
            continue  # the failing path's finding names the link evidence
        hit = _disk_hit(disk, seen)
        if disk.sas_parent:
            hit = replace(hit, labels={**hit.labels, "sas_parent": disk.sas_parent})
        if _cable_cannot_wait(ev, disk, recent):
            hit = replace(hit, alert="DiskLinkFailing")
        elif disk.sas_parent in blamed:
            continue  # the expander's or HBA's finding tells it (its ticket mutes this one)
        yield hit


def find_sas_expander_link_errors(ev: Evidence) -> Iterable[Hit]:
    for parent, phys in sorted(blamed_sas_parents(ev).items()):
        links = []
        for phy in phys:
            disk = ev.model.disks.get(phy.device) if phy.device else None
            where = [phy.device] if phy.device else []
            if disk is not None and disk.enclosure and disk.slot:
                where.append(w.slot(disk.enclosure, disk.slot))
            links.append(f"{phy.name} ({', '.join(where)})" if where else phy.name)
        kind = "HBA" if not parent.startswith("expander-") else "expander"
        yield Hit(
            f"SAS {kind} {parent}",
            f"link errors kept coming on {len(phys)} of its PHYs in the last "
            f"{w.duration(min(ev.limits.cable_window, ev.history.span))}: {w.join(links)}",
            {"sas_parent": parent},
        )


def find_smart_failed(ev: Evidence) -> Iterable[Hit]:
    needed = _resilver_needs(ev)
    for disk in ev.model.disks.values():
        if disk.smart_passed is not None and disk.smart_passed == 0 and disk.device not in needed:
            yield _disk_hit(
                disk,
                w.join(
                    ["SMART overall health self-assessment FAILED", _nvme_error_log_rise(ev, disk)]
                ),
                _replacement_advice(ev, disk),
            )


def find_media_failing(ev: Evidence) -> Iterable[Hit]:
    needed = _resilver_needs(ev)
    for disk in ev.model.disks.values():
        if disk.smart_passed == 0 or disk.media_defects <= 0 or disk.device in needed:
            continue
        seen = [*_media_words(disk), _nvme_error_log_rise(ev, disk)]
        yield _disk_hit(disk, w.join(seen), _replacement_advice(ev, disk))


def _nvme_error_log_rise(ev: Evidence, disk: Disk) -> str:
    """'12 new NVMe error-log entries in the last 50 min' ("" when the log did not grow)."""
    change = ev.history.change(f"disk_nvme_errlog:{disk.device}")
    if not change or change[0] <= 0:
        return ""
    entries = w.count(change[0], "new NVMe error-log entry", "new NVMe error-log entries")
    return f"{entries} in the last {w.duration(change[1])}"


def find_nvme_error_log_rising(ev: Evidence) -> Iterable[Hit]:
    """The drive's error log grows and nothing else is wrong with it (a failing-media or
    failed-SMART finding tells the rise itself)."""
    for disk in ev.model.disks.values():
        rise = _nvme_error_log_rise(ev, disk)
        if not rise or disk.smart_passed == 0 or disk.media_defects > 0:
            continue
        total = int(disk.nvme_error_log or 0)
        yield _disk_hit(disk, f"{rise} ({total} logged in its life)", locate=False)


def _media_words(disk: Disk) -> list[str]:
    """'8 sectors pending', '2 medium errors': what the disk and the kernel say of its media."""
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
    return seen


def find_nvme_critical(ev: Evidence) -> Iterable[Hit]:
    for disk in ev.model.disks.values():
        if disk.nvme_critical_warning:
            yield _disk_hit(disk, f"critical warning flags 0x{int(disk.nvme_critical_warning):02x}")


def find_disk_hot(ev: Evidence) -> Iterable[Hit]:
    for disk in ev.model.disks.values():
        if disk.temperature is not None and disk.temperature > ev.limits.disk_temperature_max:
            yield _disk_hit(disk, f"{disk.temperature:.0f} °C", locate=False)


def find_nvme_worn(ev: Evidence) -> Iterable[Hit]:
    for disk in ev.model.disks.values():
        if disk.nvme_used is not None and disk.nvme_used >= ev.limits.nvme_used_max:
            yield _disk_hit(
                disk, f"{w.percent(disk.nvme_used)} of rated endurance used", locate=False
            )


# ---- UPS


def _ups_state(ups: Ups) -> str:
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
                _ups_labels(u, "LB"),
            )


def _ups_labels(u: Ups, flag: str = "") -> dict[str, str]:
    """The UPS as its alerts name it: name, server, and the status flag they watch."""
    labels = {"ups": u.name, "server": u.server}
    if flag:
        labels["flag"] = flag
    return labels


def _ups_on_battery(ev: Evidence) -> list[Ups]:
    return [u for u in ev.model.ups if u.up and u.on_battery and not u.low_battery]


def _resilvering_pools(ev: Evidence) -> list[Pool]:
    return [
        p
        for p in ev.model.pools
        if p.scan is not None
        and p.scan.running
        and p.scan.function == "resilver"
        and ev.history.unchanged_for(f"scan_issued:{p.name}") < ev.limits.resilver_stall
    ]


def find_resilver_on_battery(ev: Evidence) -> Iterable[Hit]:
    """A resilver and a power cut at once: one finding, with which of them ends first."""
    pools = _resilvering_pools(ev)
    for u in _ups_on_battery(ev) if pools else ():
        for p in pools:
            scan = p.scan
            assert scan is not None
            seen = f"UPS {u.name} on battery" + (f", {_ups_state(u)}" if _ups_state(u) else "")
            seen += f"; the resilver is {_scan_progress(scan, ev.now)}"
            if scan.remaining is not None and u.runtime is not None:
                seen += (
                    ": it should finish before the battery runs out"
                    if scan.remaining < u.runtime
                    else ": the battery runs out first"
                )
            yield Hit(
                f"resilver of {p.name} on battery",
                seen,
                {"pool": p.name, "ups": u.name},
                alert="UpsOnBatteryDuringScan",
            )


def find_ups_on_battery(ev: Evidence) -> Iterable[Hit]:
    if _resilvering_pools(ev):
        return  # the resilver-on-battery rule speaks for the UPS
    scanning = [p.name for p in ev.model.pools if p.scan is not None and p.scan.running]
    for u in ev.model.ups:
        if u.up and u.on_battery and not u.low_battery:
            seen = "on battery" + (f", {_ups_state(u)}" if _ups_state(u) else "")
            if scanning:
                seen += (
                    f", while {w.join(scanning)} {'is' if len(scanning) == 1 else 'are'} scanning"
                )
            yield Hit(f"UPS {u.name}", seen, _ups_labels(u, "OB"))


def find_ups_unreachable(ev: Evidence) -> Iterable[Hit]:
    for u in ev.model.ups:
        if not u.up:
            yield Hit(f"UPS {u.name}", f"no answer from {u.server}", _ups_labels(u))


# ---- zmon itself


POOL_COLLECTOR = "zpool"  # the collector the pools' state comes from


def pools_unknown(ev: Evidence) -> Hit | None:
    """What is unknown while ``zpool status`` does not answer (it hangs, fails, or its first
    run has not ended), since when, and the pools' last known state; None while it answers.

    Its alert follows the paging policy: ZfsPoolStuck when zpool timed out repeatedly and the
    pool's kstat (read without zpool) shows the pool is not online; otherwise the collector
    alerts, tickets."""
    c = ev.model.collector(POOL_COLLECTOR)
    if c is None or (c.ran and c.success and not c.stale):
        return None
    now = ev.now
    if c.last_success:
        since = f"has not answered for {w.duration(now - c.last_success)}"
    elif ev.model.start_time:
        since = f"has not answered since zmon started {w.ago(ev.model.start_time, now)}"
    else:
        since = "has not answered yet"
    if c.timeouts:
        since += f" ({w.count(c.timeouts, 'timeout')}"
        since += " since zmon started)" if c.last_success else ")"
    if ev.model.pools:
        states = ", ".join(f"{p.name} {p.state.upper()}" for p in ev.model.pools)
        known = f"last known state: {states}" + (
            f", {w.ago(c.last_success, now)}" if c.last_success else ""
        )
    elif ev.model.last_pools is not None and ev.model.last_pools.states:
        last = ev.model.last_pools
        states = ", ".join(f"{name} {state.upper()}" for name, state in last.states.items())
        known = f"last known state: {states}, {w.ago(last.time, now)}"
    else:
        known = "no earlier state known"
    stuck = {
        pool: state
        for pool, state in ev.model.pool_kstat_states.items()
        if state not in ("online", "unknown")
    }
    if c.error_reason == "timeout" and c.timeouts >= ev.limits.stuck_timeouts and stuck:
        alert = "ZfsPoolStuck"
        known += "; " + ", ".join(f"kstat state {st.upper()} for {p}" for p, st in stuck.items())
    elif not c.last_success:
        alert = "ZmonCollectorNoData"
    elif not c.success:
        alert = "ZmonCollectorFailing"
    else:
        alert = "ZmonCollectorDataStale"
    return Hit("zpool", f"{since}; {known}", {"collector": c.name}, alert=alert)


def find_pools_unknown(ev: Evidence) -> Iterable[Hit]:
    hit = pools_unknown(ev)
    if hit is not None:
        yield hit


def find_collector_failing(ev: Evidence) -> Iterable[Hit]:
    for c in ev.model.collectors:
        if c.name == POOL_COLLECTOR and pools_unknown(ev) is not None:
            continue  # said as the pools' unknown state (find_pools_unknown)
        if not c.ran:
            continue  # its first run has not ended: nothing failed yet
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
                alert="ZmonCollectorDataStale",
            )


# ---- what keeps coming: counts over zmon's own recent history
#
# The counts are the counters' own differences over the samples the history holds (never
# extrapolated), and say the span they cover: "7 read or write errors in the last 10 min".
# A window the history does not cover yet (zmon started recently) shows what it does cover.


def _rise(ev: Evidence, key: str, window: float, end: float | None = None) -> float:
    """How much a history counter rose in the ``window`` seconds before ``end`` (now)."""
    until = ev.now if end is None else end
    found = ev.history.change(key, since=until - window, until=until)
    return found[0] if found else 0.0


def _span(ev: Evidence, key: str, window: float) -> str:
    """'the last 10 min': the part of ``window`` the history covers for ``key``."""
    found = ev.history.change(key, since=ev.now - window)
    return f"the last {w.duration(found[1] if found else 0.0)}"


def _positive(values: Mapping[str, float], keys: tuple[str, ...], gate: str = "") -> bool:
    """The sum of ``keys`` is above 0 in one sample (and ``gate``, if named, is 1)."""
    return (not gate or values.get(gate) == 1.0) and sum(values.get(k, 0.0) for k in keys) > 0


def _both_halves(ev: Evidence, key: str, window: float) -> bool:
    """``key`` rose in each half of ``window``: errors that keep coming, not one burst."""
    half = window / 2
    return _rise(ev, key, half) > 0 and _rise(ev, key, half, ev.now - half) > 0


def _vdev_named(ev: Evidence, p: Pool, v: Vdev, evidence: str) -> Hit:
    """A finding about any vdev of ``p``: a leaf with its disk's place, the root as the pool."""
    if v is p.root:
        return Hit(f"pool {p.name}", evidence, {"pool": p.name, "vdev": v.name})
    return _vdev_hit(ev, p, v, evidence, locate=v.is_leaf)


def failing_paths(ev: Evidence) -> dict[tuple[str, str], str]:
    """(pool, vdev) -> why its path is failing, as ZfsVdevFailing sees it over the last
    failing_window: enough read/write errors; checksum errors (outside a scrub) or slow I/Os
    in both halves of it; or ZFS errors while its disk's link errors come in both halves.
    Not in a pool that is unavailable or suspended (its own finding tells it)."""
    memo = ev.memo.get("failing")
    if memo is not None:
        return cast("dict[tuple[str, str], str]", memo)
    lim = ev.limits
    win = lim.failing_window
    out: dict[tuple[str, str], str] = {}
    for p in ev.model.pools:
        if p.state in UNAVAILABLE or ev.model.pool_kstat_states.get(p.name) == "suspended":
            continue  # the pool's own finding speaks: its disks' failed writes are its symptom
        scrubbing = p.scan is not None and p.scan.running and p.scan.function == "scrub"
        for v in p.vdevs():
            rw_key, ck_key, slow_key = (vdev_key(k, p, v) for k in ("rw", "cksum", "slow"))
            rw, ck, slow = (_rise(ev, k, win) for k in (rw_key, ck_key, slow_key))
            if not (rw or ck or slow):
                continue
            seen = []
            if rw >= lim.failing_io_errors:
                seen.append(w.count(rw, "read or write error", "read or write errors"))
            checksum_rising = not scrubbing and _both_halves(ev, ck_key, win)
            if ck >= lim.failing_checksum_errors and checksum_rising:
                seen.append(w.count(ck, "checksum error") + " (in each half of that time)")
            if rw and not seen and _cannot_lose(p, v, lim.page_redundancy):
                seen.append(
                    w.count(rw, "read or write error", "read or write errors")
                    + " on a disk its vdev cannot lose without losing redundancy"
                )
            if _both_halves(ev, slow_key, win):
                seen.append(w.count(slow, "slow I/O") + " (in each half of that time)")
            link = f"disk_cable:{v.device}"
            if rw + ck > 0 and v.device and _both_halves(ev, link, win):
                if not any("read or write" in x or "checksum" in x for x in seen):
                    seen.append(w.count(rw + ck, "read, write or checksum error"))
                n = _rise(ev, link, win)
                link_words = ("CRC error, reset or timeout", "CRC errors, resets or timeouts")
                seen.append(
                    f"its disk's link logged {w.count(n, *link_words)} (in each half of that time)"
                )
            if seen:
                out[(p.name, v.name)] = f"{w.join(seen)} in {_span(ev, rw_key, win)}"
    ev.memo["failing"] = out
    return out


def _cannot_lose(p: Pool, v: Vdev, most: int) -> bool:
    """Whether losing the disk of leaf ``v`` would leave the ONLINE top-level vdev it sits in
    directly surviving at most ``most`` more failures (as zmon:disk_vdev_redundancy:min)."""
    if not v.is_leaf or not v.device:
        return False
    top = parent_of(p, v) or v
    return (
        top.klass != "log"
        and top.state == "online"
        and top.redundancy is not None
        and (top.redundancy <= most)
    )


def find_vdev_failing(ev: Evidence) -> Iterable[Hit]:
    failing = failing_paths(ev)
    for p in ev.model.pools:
        for v in p.vdevs():
            why = failing.get((p.name, v.name))
            if why is not None:
                yield _vdev_named(ev, p, v, why)


def _muted_vdev(ev: Evidence, p: Pool, v: Vdev) -> bool:
    """The vdev's failing path or its disk's cable is the finding (ZfsVdevFailing,
    DiskLinkFailing, DiskCableFault): its error counts and events are their symptoms."""
    return (p.name, v.name) in failing_paths(ev) or bool(v.device and _link_suspect(ev, v.device))


def find_errors_not_cleared(ev: Evidence) -> Iterable[Hit]:
    """Error counts on an ONLINE pool's vdev for errors_not_cleared_for (the history must
    cover that long: a fresh zmon cannot tell an old count from a new one)."""
    limit = ev.limits.errors_not_cleared_for
    for p in ev.model.pools:
        if p.state != "online":
            continue
        online = f"pool_online:{p.name}"
        for v in p.vdevs():
            if not v.errors or _muted_vdev(ev, p, v):
                continue
            keys = (vdev_key("rw", p, v), vdev_key("cksum", p, v))
            held = ev.history.held_for(partial(_positive, keys=keys, gate=online))
            if held >= limit:
                yield _vdev_named(
                    ev, p, v,
                    f"{_vdev_errors(v)} counted for {w.duration(held)} while the pool is ONLINE",
                )  # fmt: skip


def _event_hits(ev: Evidence, kind: str, words: tuple[str, str]) -> Iterable[Hit]:
    """New ZFS events of ``kind`` (error, deadman) per pool and vdev in error_window."""
    win = ev.limits.error_window
    for pool, vdev in sorted({(pl, vd) for pl, vd, _ in ev.model.event_counts}):
        key = f"events_{kind}:{pool}/{vdev}"
        n = _rise(ev, key, win)
        if not n:
            continue
        p = ev.model.pool(pool)
        v = p.vdev(vdev) if p is not None and vdev else None
        if kind == "error" and p is not None and v is not None and _muted_vdev(ev, p, v):
            continue
        seen = f"{w.count(n, *words)} in {_span(ev, key, win)}"
        if p is not None and v is not None and v is not p.root:
            yield _vdev_named(ev, p, v, seen)
        else:
            yield Hit(f"vdev {vdev} of {pool}" if vdev else f"pool {pool}", seen,
                      {"pool": pool, "vdev": vdev})  # fmt: skip


def find_error_events(ev: Evidence) -> Iterable[Hit]:
    words = ("ZFS error event", "ZFS error events")
    yield from _event_hits(
        ev, "error", (words[0] + " (checksum, I/O or data)", words[1] + " (checksum, I/O or data)")
    )


def find_deadman_events(ev: Evidence) -> Iterable[Hit]:
    words = ("ZFS deadman event (an I/O hung)", "ZFS deadman events (I/Os hung)")
    yield from _event_hits(ev, "deadman", words)


def resilver_too_slow(ev: Evidence, p: Pool) -> str | None:
    """Why the running resilver of ``p`` is slow, as ZfsResilverSlow sees it: at its rate
    over resilver_rate_window it would take more than resilver_slow_factor times what its
    average rate so far predicts, at every sample of the last resilver_slow_for."""
    scan, lim = p.scan, ev.limits
    if scan is None or not scan.running or scan.function not in RESILVER_FUNCTIONS:
        return None
    if scan.start is None:
        return None
    issued_key, total_key = f"scan_issued:{p.name}", f"scan_to_issue:{p.name}"
    points = ev.history.series(issued_key, since=ev.now - lim.resilver_slow_for)
    totals = dict(ev.history.series(total_key, since=ev.now - lim.resilver_slow_for))
    if not points or points[0][0] > ev.now - lim.resilver_slow_for + HISTORY_SLACK:
        return None  # the history does not cover the alert's for: yet
    verdict = None
    for t, issued in points:
        found = ev.history.change(issued_key, since=t - lim.resilver_rate_window, until=t)
        total, elapsed = totals.get(t), t - scan.start
        if (
            found is None
            or not found[0]
            or not issued
            or total is None
            or elapsed <= lim.resilver_slow_min_age
        ):
            return None
        rate = found[0] / found[1]
        projected = elapsed + (total - issued) / rate
        average = elapsed * total / issued
        if projected <= lim.resilver_slow_factor * average:
            return None
        verdict = (rate, projected, average)
    if verdict is None:
        return None
    rate, projected, average = verdict
    return (
        f"at its rate over the last {w.duration(lim.resilver_rate_window)} "
        f"({w.size(rate)}/s) it would take {w.duration(projected)} in all, more than "
        f"{lim.resilver_slow_factor:g} times the {w.duration(average)} its average rate "
        f"predicts, for {w.duration(lim.resilver_slow_for)}"
    )


def find_resilver_slow(ev: Evidence) -> Iterable[Hit]:
    for p in ev.model.pools:
        why = resilver_too_slow(ev, p)
        if why is not None:
            yield Hit(f"resilver of {p.name}", why, _pool_labels(p))


def find_l2arc_errors(ev: Evidence) -> Iterable[Hit]:
    win = ev.limits.error_window
    io, ck = _rise(ev, "arc_l2_io_errors", win), _rise(ev, "arc_l2_checksum_errors", win)
    if io or ck:
        seen = [
            w.count(io, "I/O error") if io else "",
            w.count(ck, "checksum error") if ck else "",
        ]
        key = "arc_l2_io_errors" if io else "arc_l2_checksum_errors"
        yield Hit("L2ARC", f"{w.join(seen)} in {_span(ev, key, win)}")


# ---- disks: what rose over the alerts' windows


def _sectors_rise(ev: Evidence, disk: Disk) -> str:
    """'3 more sectors reallocated in the last 24 h' (DiskReallocatedSectorsRising); ''."""
    span = ev.limits.sector_window
    parts = []
    for key, one, many in (
        (f"disk_reallocated:{disk.device}", "more sector reallocated", "more sectors reallocated"),
        (f"disk_grown_defects:{disk.device}", "more grown defect", "more grown defects"),
    ):
        found = ev.history.day_rise(key, ev.now, span)
        if found is not None and found[0] > 0:
            parts.append(f"{w.count(found[0], one, many)} in the last {w.duration(found[1])}")
    return w.join(parts)


def find_sectors_reallocated(ev: Evidence) -> Iterable[Hit]:
    needed = _resilver_needs(ev)
    for disk in ev.model.disks.values():
        seen = _sectors_rise(ev, disk)
        if seen and disk.device not in needed:
            yield _disk_hit(
                disk, f"{seen} ({w.count(disk.reallocated, 'sector')} reallocated in its life)",
                _replacement_advice(ev, disk), locate=False,
            )  # fmt: skip


def find_nvme_media_errors(ev: Evidence) -> Iterable[Hit]:
    needed = _resilver_needs(ev)
    for disk in ev.model.disks.values():
        found = ev.history.day_increase(f"disk_nvme_media:{disk.device}", ev.now,
                                        ev.limits.sector_window)  # fmt: skip
        if found is None or found[0] <= 0 or disk.device in needed:
            continue
        yield _disk_hit(
            disk,
            f"{w.count(found[0], 'new NVMe media error')} in the last {w.duration(found[1])} "
            f"({w.count(disk.nvme_media_errors, 'error')} in its life)",
            _replacement_advice(ev, disk), locate=False,
        )  # fmt: skip


def find_medium_errors(ev: Evidence) -> Iterable[Hit]:
    needed = _resilver_needs(ev)
    win = ev.limits.cable_window
    for disk in ev.model.disks.values():
        key = f"disk_medium:{disk.device}"
        n = _rise(ev, key, win)
        if n and disk.device not in needed:
            yield _disk_hit(
                disk, f"the kernel logged {w.count(n, 'medium error')} in {_span(ev, key, win)}",
                _replacement_advice(ev, disk), locate=False,
            )  # fmt: skip


def find_link_slow(ev: Evidence) -> Iterable[Hit]:
    """A link below its top speed for link_speed_for (the cable finding tells a suspect
    cable's slow link itself)."""
    for disk in ev.model.disks.values():
        if not (disk.speed and disk.max_speed) or _link_suspect(ev, disk.device):
            continue
        key = f"disk_link_slow:{disk.device}"
        held = ev.history.held_for(partial(_positive, keys=(key,)))
        if held >= ev.limits.link_speed_for:
            yield _disk_hit(
                disk,
                f"link at {disk.speed * 8 / 1e9:g} of {disk.max_speed * 8 / 1e9:g} Gb/s for "
                f"{w.duration(held)}",
            )


# ---- UPS: runtime and scans on battery


def find_ups_runtime_low(ev: Evidence) -> Iterable[Hit]:
    """Runtime below ups_runtime_min (a low battery's own finding speaks for the same UPS)."""
    limit = ev.limits.ups_runtime_min
    for u in ev.model.ups:
        if u.runtime is not None and u.runtime < limit and not u.low_battery:
            seen = f"battery runtime about {w.duration(u.runtime)} (limit {w.duration(limit)})"
            if u.charge is not None:
                seen += f", charge {w.percent(u.charge)}"
            yield Hit(f"UPS {u.name}", seen, {"ups": u.name})


def find_scan_on_battery(ev: Evidence) -> Iterable[Hit]:
    """A scrub or resilver runs while a UPS of the host is on battery (the resilver-on-battery
    finding speaks for a resilver it covers)."""
    on_battery = [u for u in ev.model.ups if u.on_battery]
    covered = {p.name for p in _resilvering_pools(ev)} if _ups_on_battery(ev) else set()
    for p in ev.model.pools if on_battery else ():
        scan = p.scan
        if scan is None or not scan.running or p.name in covered:
            continue
        ups = w.join([f"UPS {u.name}" for u in on_battery])
        yield Hit(
            f"{scan.function} of {p.name} on battery",
            f"the {scan.function} is {_scan_progress(scan, ev.now)}, while {ups} "
            f"{'is' if len(on_battery) == 1 else 'are'} on battery",
            _pool_labels(p),
        )


# ---- zmon's own state


def find_kernel_log_not_followed(ev: Evidence) -> Iterable[Hit]:
    for source, following in sorted(ev.model.kernel_log_following.items()):
        if not following:
            yield Hit(f"kernel log {source}", "not followed (missing or unreadable)",
                      {"source": source})  # fmt: skip


def find_state_not_writable(ev: Evidence) -> Iterable[Hit]:
    for collector, writable in sorted(ev.model.state_writable.items()):
        if not writable:
            yield Hit(f"collector {collector}", "cannot write its state files",
                      {"collector": collector})  # fmt: skip


# What a host cannot see of itself: the alerts that need Prometheus's view of it (a failed
# scrape, a scrape configuration). ``zmon status`` says it cannot know these, and has no
# finding for them.
CANNOT_KNOW: dict[str, str] = {
    "ZmonTargetDown": "whether Prometheus reaches this zmon",
    "ZmonTargetMissing": "whether Prometheus scrapes a zmon at all",
}


def cannot_know() -> str:
    """'Cannot know from here: whether Prometheus reaches this zmon (ZmonTargetDown) and ...'."""
    return "Cannot know from here: " + w.join(
        [f"{what} ({alert})" for alert, what in CANNOT_KNOW.items()]
    )


RULES: tuple[Rule, ...] = (
    # each hit names its alert (ZfsPoolStuck or a collector alert): no alert of its own
    Rule("pools_unknown", None,
         "the pools' state is unknown: zpool hangs or fails (a stuck pool or a hung disk can "
         "block it)",
         "read zmon's log for the zpool collector's error; if zpool status hangs in a shell "
         "too, look for a hung disk or a suspended pool in the kernel log and in "
         "/proc/spl/kstat/zfs/*/state", find_pools_unknown,
         also=("ZfsPoolStuck", "ZmonCollectorNoData", "ZmonCollectorFailing",
               "ZmonCollectorDataStale")),
    Rule("pool_unavailable", "ZfsPoolFaulted",
         "its data cannot be read or written",
         "run zpool status -v {pool}; restore power or cabling to its disks, then zpool clear "
         "{pool}", find_pool_unavailable),
    Rule("data_errors", "ZfsPoolDataErrors",
         "data is lost in the files zpool lists",
         "list them with zpool status -v {pool} and restore them from backup",
         find_data_errors),
    Rule("vdev_failing", "ZfsVdevFailing",
         "errors keep coming on the disk's path: ZFS is about to fault it, and its vdev then "
         "loses redundancy",
         "check the cable and port, the kernel log and zpool status -v {pool} now; replace the "
         "disk while redundancy is still there", find_vdev_failing),
    Rule("deadman_events", "ZfsDeadmanEvents",
         "an I/O hung for minutes: writes to the pool stall behind it",
         "find the hung disk or controller in the kernel log and zpool events -v {pool}; "
         "replace a disk that hangs I/O", find_deadman_events),
    Rule("smart_failed", "DiskSmartFailed",
         "the disk predicts its own failure",
         "replace the disk", find_smart_failed),
    Rule("nvme_critical_warning", "DiskNvmeCriticalWarning",
         "the drive reports spare, temperature, reliability or read-only trouble",
         "read smartctl -a /dev/{device} and plan a replacement", find_nvme_critical),
    Rule("ups_low_battery", "UpsLowBattery",
         "power will fail soon",
         "shut down cleanly now unless power is back", find_ups_low_battery),
    Rule("resilver_source_failing", "ZfsResilverSourceFailing",
         "the resilver reads this failing disk: without it {pool} loses the data it copies",
         "do not pull it or take it offline; let the resilver finish, then replace it "
         "(zpool replace {pool} {vdev} <new-disk-by-id>)", find_resilver_source_failing),
    Rule("pool_degraded", "ZfsPoolDegraded",
         "the pool runs with reduced redundancy",
         "bring the disk back (zpool online {pool} <disk>) or replace it (zpool replace "
         "{pool} <disk> <new-disk-by-id>), <disk> as zpool status {pool} names it",
         find_pool_degraded, also=("ZfsPoolRedundancyLost",)),
    Rule("vdev_faulted", "ZfsVdevFaulted",
         "ZFS stopped using the device",
         "reattach or replace it (zpool replace {pool} {vdev} <new-disk-by-id>)",
         find_vdev_faulted),
    Rule("resilver_stalled", "ZfsResilverStalled",
         "the resilver is stalled",
         "look for a hung or failing disk in zpool status -v {pool} and the kernel log",
         find_resilver_stalled),
    Rule("resilver_slow", "ZfsResilverSlow",
         "redundancy comes back later than it should",
         "look for a slow or failing disk (zpool iostat -v {pool} 5) and competing load",
         find_resilver_slow),
    Rule("cable_fault", "DiskCableFault",
         "suspect cable or port",
         "reseat or replace the cable, or move the disk to another port", find_cable_fault,
         also=("DiskLinkFailing",)),
    Rule("sas_expander_link_errors", "DiskSasExpanderLinkErrors",
         "link errors on several links of one SAS expander or HBA at once: the expander, the "
         "HBA, or the cable that feeds it, not each disk's cable",
         "check the expander's or HBA's cabling, power and firmware (reseat the cable between "
         "HBA and expander first); the disks' own cables can stay", find_sas_expander_link_errors),
    Rule("media_failing", "DiskPendingSectorsRising",
         "the disk's media is failing",
         "replace the disk before another one in its vdev fails", find_media_failing),
    Rule("sectors_reallocated", "DiskReallocatedSectorsRising",
         "the disk remaps sectors: it still serves its data",
         "plan its replacement (smartctl -a /dev/{device})", find_sectors_reallocated),
    Rule("nvme_media_errors", "DiskNvmeMediaErrors",
         "the drive reports media errors; ZFS repairs what it reads from redundancy",
         "read smartctl -a /dev/{device} and plan its replacement", find_nvme_media_errors),
    Rule("medium_errors", "DiskMediumErrors",
         "the disk could not read sectors; ZFS repairs them from redundancy",
         "read smartctl -a /dev/{device} and plan the disk's replacement if they recur",
         find_medium_errors),
    Rule("checksum_errors", "ZfsVdevChecksumErrors",
         "data read back did not match its checksum (disk, cable, controller or RAM)",
         "run zpool scrub {pool}, then zpool clear {pool} once the cause is fixed",
         find_checksum_errors),
    Rule("io_errors", "ZfsVdevIOErrors",
         "the device failed reads or writes",
         "check the disk's SMART and the kernel log, then zpool clear {pool}", find_io_errors),
    Rule("errors_not_cleared", "ZfsPoolErrorsNotCleared",
         "old error counts hide new errors until they are cleared",
         "find the cause, then zpool clear {pool}", find_errors_not_cleared),
    Rule("error_events", "ZfsErrorEvents",
         "ZFS posted checksum, I/O or data errors and repaired what redundancy allowed",
         "read zpool events -v {pool} and zpool status -v {pool}", find_error_events),
    Rule("spare_in_use", "ZfsSpareInUse",
         "a hot spare stands in for a failed disk",
         "replace the failed disk, then zpool detach {pool} {vdev}", find_spare_in_use),
    Rule("capacity", "ZfsPoolCapacityWarning",
         "the pool is filling up (ZFS slows down when nearly full)",
         "free space or add a vdev", find_capacity, also=("ZfsPoolCapacityCritical",)),
    Rule("scrub_overdue", "ZfsScrubOverdue",
         "latent errors go unnoticed",
         "run zpool scrub {pool} and schedule it monthly", find_scrub_overdue),
    Rule("scrub_found_errors", "ZfsScrubFoundErrors",
         "the scrub read data that was bad",
         "read zpool status -v {pool}; clear with zpool clear {pool} once fixed",
         find_scrub_found_errors),
    Rule("quota_nearly_full", "ZfsDatasetQuotaNearlyFull",
         "at the quota, writes to it and below it fail (EDQUOT)",
         "raise the quota (zfs set quota=<size> {dataset}) or free space in it and its "
         "children (old snapshots count too: zfs list -t snapshot -r {dataset})",
         find_quota_nearly_full),
    Rule("refquota_nearly_full", "ZfsDatasetRefquotaNearlyFull",
         "at the refquota, writes to it fail (EDQUOT)",
         "raise the refquota (zfs set refquota=<size> {dataset}) or delete data in it",
         find_refquota_nearly_full),
    Rule("snapshot_overdue", "ZfsDatasetSnapshotOverdue",
         "its snapshot schedule (sanoid, zfs-auto-snapshot, a cron job) or the replication "
         "that feeds it has stopped",
         "check the snapshot job's log and timer; zfs list -t snapshot -r {dataset}",
         find_snapshot_overdue),
    Rule("dedup_table_too_large", "ZfsDedupTableTooLarge",
         "the dedup table crowds data out of the ARC",
         "add RAM, or stop dedup on new writes (zfs set dedup=off)",
         find_dedup_table_too_large),
    Rule("l2arc_errors", "ZfsL2arcErrors",
         "the cache device fails; ZFS reads the pool instead",
         "check the cache device's SMART and the kernel log; replace it, or remove it from "
         "its pool (zpool remove)", find_l2arc_errors),
    Rule("nvme_worn", "DiskNvmeWearHigh",
         "the drive is near the end of its rated endurance",
         "plan its replacement", find_nvme_worn),
    Rule("disk_hot", "DiskTemperatureHigh",
         "the disk runs hot",
         "check fans and airflow", find_disk_hot),
    Rule("link_slow", "DiskLinkSpeedDegraded",
         "the link renegotiated down, often a bad cable or backplane port",
         "reseat or replace the cable", find_link_slow),
    Rule("ups_on_battery", "UpsOnBattery",
         "mains power is out",
         "restore power or prepare a clean shutdown", find_ups_on_battery),
    Rule("ups_runtime_low", "UpsRuntimeLow",
         "the battery would not last long in a power cut",
         "replace the battery or reduce the load", find_ups_runtime_low),
    Rule("scan_on_battery", "UpsOnBatteryDuringScan",
         "a scrub or resilver drains the battery faster",
         "pause a scrub (zpool scrub -p {pool}) until power is back", find_scan_on_battery),
    # UpsOnBatteryDuringScan for a resilver that moves, in words of which ends first (after
    # scan_on_battery: the alert's annotation keeps the general words)
    Rule("resilver_on_battery", "UpsOnBatteryDuringScan",
         "a power cut would stop the resilver while {pool} lacks redundancy",
         "keep the host up while the UPS lasts and start no scrub; shut down cleanly before "
         "the battery runs out (the resilver resumes after boot)", find_resilver_on_battery),
    Rule("ups_unreachable", "UpsUnreachable",
         "zmon cannot see the UPS",
         "check upsd or apcupsd and the network", find_ups_unreachable),
    Rule("collector_failing", "ZmonCollectorFailing",
         "this view may be out of date",
         "read zmon's log for the collector's error", find_collector_failing,
         also=("ZmonCollectorDataStale",)),
    Rule("kernel_log_not_followed", "ZmonKernelLogNotFollowed",
         "faults logged there go uncounted",
         "check kernel_log.files and zmon's log", find_kernel_log_not_followed),
    Rule("state_not_writable", "ZmonStateNotWritable",
         "zmon forgets log positions, counts and scrub history at its next restart",
         "free space in zmon's state directory or make it writable; see zmon's log",
         find_state_not_writable),
    Rule("arc_slowdown", "ZfsArcSlowdown",
         "the ARC is too small for what is read",
         "raise zfs_arc_max if memory allows, or add RAM or an L2ARC", find_arc_slowdown),
    Rule("arc_too_small", "ZfsArcGhostHitsHigh",
         "ARC is too small for the working set",
         "add RAM or raise zfs_arc_max", find_arc_too_small),
    Rule("fragmentation", "ZfsPoolFragmentationHigh",
         "writes slow down as free space fragments",
         "free space or add a vdev", find_fragmentation),
    # notes: no alert (zmon/status/README.md says why each is information, not a ticket)
    Rule("resilver_running", None,
         "redundancy is reduced until it finishes",
         "let it finish; do not take another disk of {pool} offline", find_resilver_running),
    Rule("slow_reads", None,
         "reads on {pool} are slower than usual, not because of the ARC",
         "find what competes with the reads", find_slow_reads),
    Rule("nvme_error_log_rising", None,
         "the drive's controller logs new errors: failed reads or writes when the disk is "
         "failing, or commands it refused (some drives log a monitoring tool's queries)",
         "read the entries with smartctl -l error /dev/{device}; replace the disk if they "
         "show failed reads or writes, or if media errors follow",
         find_nvme_error_log_rising),
)  # fmt: skip

RULES_BY_ID = {r.id: r for r in RULES}
# the labels a cause or action may name as {label}
LABEL_KEYS = ("pool", "vdev", "device", "ups", "collector", "dataset")


def _fill(text: str, labels: dict[str, str]) -> str:
    for key in LABEL_KEYS:
        text = text.replace("{" + key + "}", labels.get(key) or key.upper())
    return text


def _with_locate(action: str, locate: str) -> str:
    return f"{action}; find it by its slot LED: {locate}" if locate else action


def diagnose(ev: Evidence, rules: Iterable[Rule] = RULES) -> list[Finding]:
    """Every finding of every rule, most severe first (the table's order within one), the
    notes last."""
    out: list[Finding] = []
    for rule in rules:
        for hit in rule.find(ev):
            out.append(
                Finding(
                    rule.id,
                    hit.severity or rule.severity,
                    hit.subject,
                    hit.evidence,
                    _fill(hit.cause or rule.cause, hit.labels),
                    _with_locate(_fill(hit.action or rule.action, hit.labels), hit.locate),
                    hit.alert or rule.alert,
                    dict(hit.labels),
                    hit.locate,
                )
            )
    return sorted(out, key=lambda f: rank(f.severity))


def words_of(alert: str, labels: dict[str, str]) -> tuple[str, str]:
    """(cause, action) of the first rule naming ``alert``, filled from ``labels``."""
    for rule in RULES:
        if rule.alert == alert:
            return _fill(rule.cause, labels), _fill(rule.action, labels)
    return "", "see the runbook"


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
    for key in LABEL_KEYS:
        text = text.replace("{" + key + "}", "{{ $labels." + key + " }}")
    return text


ALERT_WORDS = alert_words()
