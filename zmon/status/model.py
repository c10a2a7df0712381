"""What the status views know about a host, read from zmon's own metric families.

The model is built from the samples zmon serves (a snapshot's families in the daemon, the
text of ``/metrics`` for a remote zmon), so the views show exactly what Prometheus sees.
Nothing here runs a command or reads a file.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from zmon.exposition.metrics import each_sample
from zmon.exposition.viewed import wanted
from zmon.health.memory import THROTTLE_REASONS
from zmon.health.ratios import GHOST_SIZE_METRIC, GHOST_STATES
from zmon.health.thresholds import DEFAULTS
from zmon.host.last_pools import LastPools

Labels = dict[str, str]

# Kernel-log patterns that point at the link to a disk (cable, backplane, port, HBA) and not
# at its media: the cable alerts' (zmon/health/thresholds.py, cable_patterns).
LINK_PATTERNS = tuple(DEFAULTS.cable_patterns.split("|"))
# SAS PHY error counters that count as link errors (zmon_sas_phy_<name>_total from sysfs,
# zmon_disk_sas_phy_<name>_total from smartctl): the cable alerts' (sas_link_counters).
SAS_LINK_COUNTERS = tuple(DEFAULTS.sas_link_counters.split("|"))
# Kernel-log patterns that point at the disk's media.
MEDIA_PATTERNS = ("medium_error",)
# Kernel-log patterns that say an I/O to the disk failed (a consequence, not a cause).
# Lowest layer first: the words read in the order the failure climbs the stack.
FAILED_IO_PATTERNS = (
    "ata_failure",
    "scsi_timeout",
    "nvme_timeout",
    "io_error",
    "zio_error",
    "vdev_io_failure",
)


class Samples:
    """Every sample by name: ``name -> [(labels, value)]``."""

    def __init__(self, families: Iterable[Any]) -> None:
        self.by_name: dict[str, list[tuple[Labels, float]]] = {}
        self._index: dict[tuple[str, tuple[str, ...]], dict[tuple[str | None, ...], float]] = {}
        by_name = self.by_name
        for fam in families:
            if not wanted(fam.name):
                continue
            # (the labels are the samples' own dicts: nothing here changes them)
            name: str | None = None
            rows: list[tuple[Labels, float]] = []
            # a compact family's samples are made for this read only: kept, they would be most
            # of what the snapshot holds for the views on a big host
            for s in each_sample(fam):
                if s.name != name:
                    name = s.name
                    rows = by_name.setdefault(name, [])
                rows.append((s.labels, float(s.value)))

    def all(self, name: str) -> list[tuple[Labels, float]]:
        return self.by_name.get(name, [])

    def value(self, name: str, **labels: str) -> float | None:
        """The first sample of ``name`` whose labels include ``labels``.

        Looked up in an index per (name, label keys), built on first use: a host model reads
        a few values for each of a thousand vdevs, and a scan per read would be quadratic."""
        keys = tuple(sorted(labels))
        index = self._index.get((name, keys))
        if index is None:
            index = {}
            for have, value in self.all(name):
                index.setdefault(tuple(map(have.get, keys)), value)
            self._index[(name, keys)] = index
        return index.get(tuple(labels[k] for k in keys))

    def by(self, name: str, key: str) -> dict[str, float]:
        """``label value -> sample value`` for a family with one identifying label."""
        return {labels.get(key, ""): value for labels, value in self.all(name)}


@dataclass
class Vdev:
    pool: str
    name: str
    type: str = "disk"
    klass: str = "normal"
    state: str = "unknown"
    parent: str = ""
    device: str = ""
    guid: str = ""
    path: str = ""  # the device path ZFS opens ("/dev/disk/by-id/ata-X-part1"), "" when none
    read_errors: float = 0.0
    write_errors: float = 0.0
    checksum_errors: float = 0.0
    slow_ios: float = 0.0
    read_ops: float | None = None  # reads in its latency histogram (zpool iostat -w)
    read_seconds: float | None = None  # ... and their estimated total latency
    redundancy: float | None = None  # top-level vdevs: further failures it survives
    notes: list[str] = field(default_factory=list)
    children: list[Vdev] = field(default_factory=list)

    @property
    def errors(self) -> float:
        return self.read_errors + self.write_errors + self.checksum_errors

    @property
    def is_leaf(self) -> bool:
        return not self.children and self.type not in (
            "root",
            "mirror",
            "raidz",
            "draid",
            "replacing",
            "spare",
        )

    def walk(self) -> Iterable[Vdev]:
        yield self
        for child in self.children:
            yield from child.walk()


@dataclass
class Scan:
    function: str  # scrub, resilver
    state: str  # in_progress, finished, canceled
    paused: bool = False
    progress: float | None = None  # 0-1
    issued: float | None = None
    to_issue: float | None = None
    rate: float | None = None  # issued bytes per second
    remaining: float | None = None  # seconds
    start: float | None = None
    end: float | None = None
    errors: float = 0.0
    repaired: float = 0.0  # bytes the scan repaired (zpool status "repaired 8.47M")

    @property
    def running(self) -> bool:
        return self.state == "in_progress"


@dataclass
class Pool:
    name: str
    state: str = "unknown"
    status: str = ""
    status_id: str = ""
    data_errors: float = 0.0
    io_suspended: bool = False
    capacity: float | None = None
    size: float | None = None
    allocated: float | None = None
    fragmentation: float | None = None
    ddt_in_core: float | None = None
    scan: Scan | None = None
    last_scrub_end: float | None = None
    created: float | None = None  # Unix time; None when zmon does not know
    last_scrub_errors: float = 0.0
    root: Vdev | None = None
    # read latency (queue + disk, zpool iostat -w): cumulative count per bucket bound, seconds
    read_latency: dict[float, float] = field(default_factory=dict)

    def vdevs(self) -> list[Vdev]:
        return list(self.root.walk()) if self.root else []

    def vdev(self, name: str) -> Vdev | None:
        return next((v for v in self.vdevs() if v.name == name), None)


@dataclass
class Disk:
    device: str
    model: str = ""
    serial: str = ""
    protocol: str = ""
    ata_port: str = ""
    wwn: str = ""
    by_id: str = ""  # the /dev/disk/by-id link people recognise ("ata-MODEL_SERIAL")
    by_path: str = ""
    enclosure: str = ""  # "0:0:12:0" (Linux SES device) or "ses0" (FreeBSD)
    slot: str = ""  # as the enclosure names it: "Slot03", "Disk #01", "3"
    locate: str = ""  # the command that blinks its slot LED ("ledctl locate=/dev/sdb")
    smart_passed: float | None = None
    standby: bool = False
    temperature: float | None = None
    crc_errors: float = 0.0
    pending: float = 0.0
    reallocated: float = 0.0
    uncorrectable: float = 0.0
    grown_defects: float = 0.0
    nvme_media_errors: float = 0.0
    nvme_critical_warning: float = 0.0
    nvme_used: float | None = None
    nvme_error_log: float | None = None  # error-log entries over the drive's life
    speed: float | None = None  # bytes per second
    max_speed: float | None = None
    # SAS link errors (SAS_LINK_COUNTERS) as the HBA or expander PHY that links the disk
    # counts them (sysfs), and as the disk's own PHYs do (smartctl); None without such PHYs.
    # Two views read at different times: each is judged on its own.
    sas_link_errors: float | None = None
    sas_own_link_errors: float | None = None
    sas_phy: str = ""  # the HBA or expander PHY that links the disk ("phy-0:0:1")
    sas_parent: str = ""  # its HBA or expander ("expander-0:0", "host0")
    kernel: dict[str, float] = field(default_factory=dict)  # pattern -> events
    kernel_last: dict[str, float] = field(default_factory=dict)  # pattern -> unix time
    vdevs: list[tuple[str, str, str]] = field(default_factory=list)  # (pool, vdev, parent)

    def kernel_count(self, patterns: Iterable[str]) -> float:
        return sum(self.kernel.get(p, 0.0) for p in patterns)

    @property
    def crc_total(self) -> float:
        """Interface CRC errors: the disk's own count (SMART 199) or the kernel's, the larger.

        Both count the same errors (the kernel's since zmon started, the disk's for its life),
        so they are not added up."""
        return max(self.crc_errors, self.kernel.get("crc_error", 0.0))

    @property
    def link_events(self) -> float:
        """Link resets, link downs and command timeouts the kernel logged (CRC errors apart)."""
        return self.kernel_count(p for p in LINK_PATTERNS if p != "crc_error")

    @property
    def media_defects(self) -> float:
        """Sectors the disk itself counts as bad, and media errors it or the kernel reported."""
        return (
            self.pending
            + self.reallocated
            + self.uncorrectable
            + self.grown_defects
            + self.nvme_media_errors
            + self.kernel_count(MEDIA_PATTERNS)
        )


@dataclass
class SasPhy:
    """An HBA or expander PHY (sysfs) and the link errors it counted."""

    name: str
    parent: str
    device: str = ""  # the disk its link reaches, if any
    link_errors: float = 0.0  # SAS_LINK_COUNTERS summed


@dataclass
class Arc:
    hits: float = 0.0
    misses: float = 0.0
    mru_ghost_hits: float = 0.0
    mfu_ghost_hits: float = 0.0
    size: float | None = None
    max_size: float | None = None
    ghost_sizes: tuple[float | None, ...] = ()  # the MRU and MFU ghost lists' size
    memory_all: float | None = None  # the system memory the ARC sees
    l2_io_errors: float | None = None  # None: no L2ARC counters served
    l2_checksum_errors: float | None = None

    @property
    def ghost_hits(self) -> float:
        return self.mru_ghost_hits + self.mfu_ghost_hits


@dataclass
class Ups:
    name: str
    server: str
    up: bool = True
    flags: frozenset[str] = frozenset()
    charge: float | None = None  # 0-1
    runtime: float | None = None  # seconds

    @property
    def on_battery(self) -> bool:
        return "OB" in self.flags

    @property
    def low_battery(self) -> bool:
        return "LB" in self.flags


@dataclass
class CollectorHealth:
    name: str
    success: bool
    stale: bool
    has_data: bool
    last_success: float | None
    ran: bool = True  # False while its first run has not ended
    error_reason: str = ""  # why the last run failed (zmon_collector_last_error_info)
    timeouts: float = 0.0  # runs that timed out since zmon started


@dataclass
class Event:
    """ZFS events of one class on one pool/vdev (counted since zmon started following)."""

    klass: str
    pool: str
    vdev: str
    count: float


@dataclass
class Dataset:
    """A filesystem or volume: what the dataset alerts read of it (absent values are None)."""

    name: str
    pool: str
    used: float | None = None
    referenced: float | None = None
    quota: float | None = None  # set quotas only: zmon never serves 0 for "none"
    refquota: float | None = None
    snapshots: float | None = None  # None when snapshots were not listed
    newest_snapshot: float | None = None  # Unix time; None without a snapshot
    # Unix time since when the dataset should have snapshots (its creation); None when the
    # snapshot policy does not select it, and then its snapshots' age is never judged
    snapshots_expected_since: float | None = None


@dataclass
class HostModel:
    pools: list[Pool] = field(default_factory=list)
    disks: dict[str, Disk] = field(default_factory=dict)
    arc: Arc | None = None
    ups: list[Ups] = field(default_factory=list)
    collectors: list[CollectorHealth] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    # (pool, vdev, class) -> events, with the counters served at 0 before their first event
    event_counts: dict[tuple[str, str, str], float] = field(default_factory=dict)
    event_last: dict[str, float] = field(default_factory=dict)  # class -> unix time
    kernel_pool_events: dict[tuple[str, str], float] = field(default_factory=dict)
    datasets: list[Dataset] = field(default_factory=list)
    sas_phys: dict[str, SasPhy] = field(default_factory=dict)  # HBA and expander PHYs, by name
    start_time: float | None = None  # when the zmon that serves these families started
    # pool -> the kernel's state for it (kstat), read without zpool: "online", "suspended"
    pool_kstat_states: dict[str, str] = field(default_factory=dict)
    # the pools' states zpool last gave, from the state directory (not from the families)
    last_pools: LastPools | None = None
    # writes that waited for dirty data at its limit (dmu_tx; None when not served)
    dirty_waits: float | None = None
    # kernel log source -> followed (zmon_kernel_log_following)
    kernel_log_following: dict[str, bool] = field(default_factory=dict)
    # collector -> its state files are writable (zmon_collector_state_writable)
    state_writable: dict[str, bool] = field(default_factory=dict)

    def collector(self, name: str) -> CollectorHealth | None:
        return next((c for c in self.collectors if c.name == name), None)

    def pool(self, name: str) -> Pool | None:
        return next((p for p in self.pools if p.name == name), None)


def read_model(families: Iterable[Any]) -> HostModel:
    """The host as zmon's metric families describe it."""
    s = Samples(families)
    model = HostModel()
    model.pools = _pools(s)
    model.disks = _disks(s, model.pools)
    model.sas_phys = _sas_phys(s, model.disks)
    model.arc = _arc(s)
    model.ups = _ups(s)
    model.collectors = _collectors(s)
    model.datasets = _datasets(s)
    model.start_time = s.value("zmon_start_time_seconds") or None
    model.pool_kstat_states = {
        pool: state for (pool,), state in _states(s, "zmon_pool_kstat_state", "pool").items()
    }
    model.event_counts = {
        (lb.get("pool", ""), lb.get("vdev", ""), lb.get("class", "")): v
        for lb, v in s.all("zmon_zfs_events_total")
    }
    model.events = [
        Event(klass, pool, vdev, v)
        for (pool, vdev, klass), v in model.event_counts.items()
        if v  # the counters alert rules use are served at 0 before their first event
    ]
    model.kernel_log_following = {
        k: v > 0 for k, v in s.by("zmon_kernel_log_following", "source").items()
    }
    model.state_writable = {
        k: v > 0 for k, v in s.by("zmon_collector_state_writable", "collector").items()
    }
    model.event_last = s.by("zmon_zfs_events_last_timestamp_seconds", "class")
    waits = [
        v for lb, v in s.all("zmon_dmu_tx_events_total") if lb.get("reason") in THROTTLE_REASONS
    ]
    model.dirty_waits = sum(waits) if waits else None
    model.kernel_pool_events = {
        (lb.get("pool", ""), lb.get("pattern", "")): v
        for lb, v in s.all("zmon_kernel_log_pool_events_total")
        if v
    }
    return model


def _states(s: Samples, name: str, *keys: str) -> dict[tuple[str, ...], str]:
    """The set state of a state-set family, by its identifying labels."""
    out: dict[tuple[str, ...], str] = {}
    for labels, value in s.all(name):
        key = tuple([labels.get(k, "") for k in keys])
        if value == 1.0:
            out[key] = labels.get("state", "unknown")
        else:
            out.setdefault(key, "unknown")
    return out


def _pools(s: Samples) -> list[Pool]:
    names: set[str] = set()
    for metric in (
        "zmon_pool_state",
        "zmon_pool_status_info",
        "zmon_vdev_info",
        "zmon_pool_size_bytes",
    ):
        names.update(lb.get("pool", "") for lb, _ in s.all(metric))
    names.discard("")
    pool_state = _states(s, "zmon_pool_state", "pool")
    vdev_state = _states(s, "zmon_vdev_state", "pool", "class", "vdev")
    pools = []
    for name in sorted(names):
        p = Pool(name, state=pool_state.get((name,), "unknown"))
        for labels, value in s.all("zmon_pool_status_info"):
            if labels.get("pool") == name and value == 1.0:
                p.status, p.status_id = labels.get("status", ""), labels.get("status_id", "")
                if p.state == "unknown":
                    p.state = labels.get("state", "unknown").lower()
        p.data_errors = s.value("zmon_pool_data_errors", pool=name) or 0.0
        p.io_suspended = (s.value("zmon_pool_io_suspended", pool=name) or 0.0) > 0
        p.capacity = s.value("zmon_pool_capacity_ratio", pool=name)
        p.size = s.value("zmon_pool_size_bytes", pool=name)
        p.allocated = s.value("zmon_pool_allocated_bytes", pool=name)
        if p.capacity is None and p.size and p.allocated is not None:
            p.capacity = p.allocated / p.size
        p.fragmentation = s.value("zmon_pool_fragmentation_ratio", pool=name)
        p.ddt_in_core = s.value("zmon_pool_ddt_in_core_bytes", pool=name)
        p.last_scrub_end = s.value("zmon_pool_last_scrub_end_time_seconds", pool=name)
        p.last_scrub_errors = s.value("zmon_pool_last_scrub_errors", pool=name) or 0.0
        p.created = s.value("zmon_pool_creation_time_seconds", pool=name)
        p.scan = _scan(s, name)
        p.root = _vdev_tree(s, name, vdev_state)
        p.read_latency = _read_buckets(s, name)
        _vdev_reads(s, p)
        pools.append(p)
    return pools


def _read_buckets(s: Samples, pool: str) -> dict[float, float]:
    """The pool's read latency histogram: cumulative count by bucket bound (seconds)."""
    out = {}
    for lb, v in s.all("zmon_pool_io_latency_seconds_bucket"):
        if lb.get("pool") == pool and lb.get("op") == "read":
            out[float(lb.get("le", "+Inf"))] = v
    return out


def _vdev_reads(s: Samples, pool: Pool) -> None:
    """Each vdev's reads and their total latency (zmon_vdev_io_latency_seconds)."""
    count = {(lb.get("vdev"), lb.get("class")): v
             for lb, v in s.all("zmon_vdev_io_latency_seconds_count")
             if lb.get("pool") == pool.name and lb.get("op") == "read"}  # fmt: skip
    if not count:
        return
    total = {(lb.get("vdev"), lb.get("class")): v
             for lb, v in s.all("zmon_vdev_io_latency_seconds_sum")
             if lb.get("pool") == pool.name and lb.get("op") == "read"}  # fmt: skip
    for v in pool.vdevs():
        key = (v.name, v.klass)
        if key in count:
            v.read_ops, v.read_seconds = count[key], total.get(key)


def _scan(s: Samples, pool: str) -> Scan | None:
    info = [(lb, v) for lb, v in s.all("zmon_pool_scan_info") if lb.get("pool") == pool]
    current = next((lb for lb, v in info if v == 1.0), None)
    if current is None:
        return None

    def val(metric: str) -> float | None:
        return s.value(metric, pool=pool)

    return Scan(
        function=current.get("function", "scan"),
        state=current.get("state", ""),
        paused=(val("zmon_pool_scan_paused") or 0.0) > 0,
        progress=val("zmon_pool_scan_progress_ratio"),
        issued=val("zmon_pool_scan_issued_bytes"),
        to_issue=val("zmon_pool_scan_to_issue_bytes") or val("zmon_pool_scan_to_examine_bytes"),
        rate=val("zmon_pool_scan_issue_rate_bytes_per_second"),
        remaining=val("zmon_pool_scan_remaining_seconds"),
        start=val("zmon_pool_scan_start_time_seconds"),
        end=val("zmon_pool_scan_end_time_seconds"),
        errors=val("zmon_pool_scan_errors") or 0.0,
        repaired=val("zmon_pool_scan_processed_bytes") or 0.0,
    )


def _vdev_tree(s: Samples, pool: str, states: dict[tuple[str, ...], str]) -> Vdev | None:
    """The vdev tree of ``pool``. A name may appear twice (a spare in use sits under its
    ``spare-N`` and in the spares class), so rows are told apart by class and parent."""
    rows: list[Vdev] = []
    for labels, _ in s.all("zmon_vdev_info"):
        if labels.get("pool") != pool:
            continue
        name = labels.get("vdev", "")
        klass = labels.get("class", "normal")
        rows.append(
            Vdev(
                pool=pool,
                name=name,
                type=labels.get("type", "disk"),
                klass=klass,
                state=_vdev_state(states, pool, name, klass, labels.get("state", "unknown")),
                parent=labels.get("parent", ""),
                device=labels.get("device", ""),
                guid=labels.get("guid", ""),
                path=labels.get("path", ""),
            )
        )
    if not rows:  # an exposition without zmon_vdev_info: a flat list from the states
        for (p, klass, name), state in states.items():
            if p == pool:
                rows.append(
                    Vdev(
                        pool,
                        name,
                        type="root" if name == pool else "disk",
                        klass=klass,
                        state=state,
                        parent="" if name == pool else pool,
                    )
                )
    for v in rows:
        v.read_errors = _vdev_value(s, "zmon_vdev_read_errors_total", pool, v)
        v.write_errors = _vdev_value(s, "zmon_vdev_write_errors_total", pool, v)
        v.checksum_errors = _vdev_value(s, "zmon_vdev_checksum_errors_total", pool, v)
        v.slow_ios = _vdev_value(s, "zmon_vdev_slow_ios_total", pool, v)
        v.redundancy = s.value("zmon_vdev_redundancy", pool=pool, vdev=v.name, **{"class": v.klass})
    for labels, value in s.all("zmon_vdev_note_info"):
        if labels.get("pool") != pool or value != 1.0:
            continue
        for v in rows:
            if v.name == labels.get("vdev") and v.klass == labels.get("class", v.klass):
                v.notes.append(labels.get("kind", ""))
    root = next((v for v in rows if v.name == pool and v.type == "root"), None)
    if root is None:
        root = next((v for v in rows if v.name == pool), None) or Vdev(pool, pool, type="root")
    root.type = "root"
    interior = {v.name: v for v in rows if v is not root and v.type != "disk"}
    for v in rows:
        if v is root:
            continue
        parent = interior.get(v.parent) if v.parent and v.parent != pool else None
        (parent or root).children.append(v)
    return root


def _vdev_state(
    states: dict[tuple[str, ...], str], pool: str, name: str, klass: str, fallback: str
) -> str:
    return states.get((pool, klass, name), fallback.lower())


def _vdev_value(s: Samples, metric: str, pool: str, vdev: Vdev) -> float:
    return s.value(metric, pool=pool, vdev=vdev.name, **{"class": vdev.klass}) or 0.0


def _disks(s: Samples, pools: list[Pool]) -> dict[str, Disk]:
    disks: dict[str, Disk] = {}

    def disk(name: str) -> Disk:
        if name not in disks:
            disks[name] = Disk(name)
        return disks[name]

    for labels, _ in s.all("zmon_disk_info"):
        d = disk(labels.get("device", ""))
        d.model, d.serial = labels.get("model", ""), labels.get("serial", "")
        d.protocol = labels.get("protocol", "")
        d.wwn = labels.get("wwn", "")
    for labels, _ in s.all("zmon_disk_device_info"):
        d = disk(labels.get("device", ""))
        d.ata_port = labels.get("ata_port", "")
        d.model = d.model or labels.get("model", "")
        d.serial = d.serial or labels.get("serial", "")
        d.wwn = d.wwn or labels.get("wwn", "")
        d.by_id = labels.get("by_id", "")
        d.by_path = labels.get("by_path", "")
    for labels, _ in s.all("zmon_disk_location_info"):
        d = disk(labels.get("device", ""))
        d.serial = d.serial or labels.get("serial", "")
        d.wwn = d.wwn or labels.get("wwn", "")
        d.by_id = d.by_id or labels.get("by_id", "")
        d.by_path = d.by_path or labels.get("by_path", "")
        d.enclosure = labels.get("enclosure", "")
        d.slot = labels.get("slot", "")
        d.locate = labels.get("locate", "")
    fields = {
        "zmon_disk_smart_passed": "smart_passed",
        "zmon_disk_temperature_celsius": "temperature",
        "zmon_disk_crc_errors_total": "crc_errors",
        "zmon_disk_pending_sectors": "pending",
        "zmon_disk_reallocated_sectors": "reallocated",
        "zmon_disk_offline_uncorrectable_sectors": "uncorrectable",
        "zmon_disk_scsi_grown_defects": "grown_defects",
        "zmon_disk_nvme_media_errors_total": "nvme_media_errors",
        "zmon_disk_nvme_critical_warning": "nvme_critical_warning",
        "zmon_disk_nvme_percentage_used_ratio": "nvme_used",
        "zmon_disk_nvme_error_log_entries_total": "nvme_error_log",
        "zmon_disk_interface_speed_bytes": "speed",
        "zmon_disk_interface_max_speed_bytes": "max_speed",
    }
    for metric, attr in fields.items():
        for labels, value in s.all(metric):
            setattr(disk(labels.get("device", "")), attr, value)
    for labels, value in s.all("zmon_disk_standby"):
        disk(labels.get("device", "")).standby = value > 0
    for labels, value in s.all("zmon_kernel_log_events_total"):
        if labels.get("device") and value:  # zero-initialised counters: no event yet
            disk(labels["device"]).kernel[labels.get("pattern", "")] = value
    for labels, value in s.all("zmon_kernel_log_last_event_timestamp_seconds"):
        if labels.get("device"):
            disk(labels["device"]).kernel_last[labels.get("pattern", "")] = value
    for pool in pools:
        for v in pool.vdevs():
            if v.device:
                disk(v.device).vdevs.append((pool.name, v.name, v.parent))
    disks.pop("", None)
    return dict(sorted(disks.items()))


def _sas_phys(s: Samples, disks: dict[str, Disk]) -> dict[str, SasPhy]:
    """The HBA and expander PHYs, and each disk's SAS link errors, PHY, parent and (where the
    device map has none) enclosure slot."""
    phys: dict[str, SasPhy] = {}
    for labels, _ in s.all("zmon_sas_phy_info"):
        name = labels.get("phy", "")
        phy = phys[name] = SasPhy(name, labels.get("parent", ""), labels.get("device", ""))
        d = disks.get(phy.device) if phy.device else None
        if d is not None:
            d.sas_phy, d.sas_parent = name, phy.parent
            if not d.slot and labels.get("slot"):
                d.enclosure, d.slot = labels.get("enclosure", ""), labels.get("slot", "")
    for counter in SAS_LINK_COUNTERS:
        for labels, value in s.all(f"zmon_sas_phy_{counter}_total"):
            phy = phys.setdefault(labels.get("phy", ""), SasPhy(labels.get("phy", ""), ""))
            phy.device = phy.device or labels.get("device", "")
            phy.link_errors += value
            if phy.device in disks:
                d = disks[phy.device]
                d.sas_link_errors = (d.sas_link_errors or 0.0) + value
        for labels, value in s.all(f"zmon_disk_sas_phy_{counter}_total"):
            d = disks.get(labels.get("device", ""))
            if d is not None:
                d.sas_own_link_errors = (d.sas_own_link_errors or 0.0) + value
    phys.pop("", None)
    return dict(sorted(phys.items()))


def _arc(s: Samples) -> Arc | None:
    hits = s.value("zmon_arc_hits_total")
    if hits is None:
        return None
    return Arc(
        hits=hits,
        misses=s.value("zmon_arc_misses_total") or 0.0,
        mru_ghost_hits=s.value("zmon_arc_mru_ghost_hits_total") or 0.0,
        mfu_ghost_hits=s.value("zmon_arc_mfu_ghost_hits_total") or 0.0,
        size=s.value("zmon_arc_size_bytes"),
        max_size=s.value("zmon_arc_max_size_bytes"),
        ghost_sizes=tuple(s.value(GHOST_SIZE_METRIC, state=st) for st in GHOST_STATES),
        memory_all=s.value("zmon_arc_memory_all_bytes"),
        l2_io_errors=s.value("zmon_arc_l2_io_errors_total"),
        l2_checksum_errors=s.value("zmon_arc_l2_checksum_errors_total"),
    )


def _ups(s: Samples) -> list[Ups]:
    out: dict[tuple[str, str], Ups] = {}
    for metric in ("zmon_ups_up", "zmon_ups_status"):
        for labels, _ in s.all(metric):
            key = (labels.get("server", ""), labels.get("ups", ""))
            out.setdefault(key, Ups(name=key[1], server=key[0]))
    for (server, name), u in out.items():
        up = s.value("zmon_ups_up", server=server, ups=name)
        u.up = up is None or up > 0
        u.flags = frozenset(
            lb.get("flag", "") for lb, v in s.all("zmon_ups_status")
            if v == 1.0 and lb.get("server") == server and lb.get("ups") == name
        )  # fmt: skip
        u.charge = s.value("zmon_ups_battery_charge_ratio", server=server, ups=name)
        u.runtime = s.value("zmon_ups_battery_runtime_seconds", server=server, ups=name)
    return [out[k] for k in sorted(out)]


def _collectors(s: Samples) -> list[CollectorHealth]:
    """Every collector zmon reports on, including one whose first run has not ended (it has
    a last-success time of 0 and no success value yet)."""
    success = s.by("zmon_collector_success", "collector")
    stale = s.by("zmon_collector_stale", "collector")
    has_data = s.by("zmon_collector_has_data", "collector")
    last = s.by("zmon_collector_last_success_timestamp_seconds", "collector")
    reasons = {
        labels.get("collector", ""): labels.get("reason", "")
        for labels, value in s.all("zmon_collector_last_error_info")
        if value
    }
    timeouts = {
        labels.get("collector", ""): value
        for labels, value in s.all("zmon_collector_runs_total")
        if labels.get("result") == "timeout"
    }
    return [
        CollectorHealth(
            name,
            success.get(name, 0.0) > 0,
            stale.get(name, 0.0) > 0,
            has_data.get(name, 1.0) > 0,
            last.get(name) or None,
            ran=name in success,
            error_reason=reasons.get(name, ""),
            timeouts=timeouts.get(name, 0.0),
        )
        for name in sorted(set(success) | set(last))
    ]


_DATASET_FIELDS = {
    "zmon_dataset_used_bytes": "used",
    "zmon_dataset_referenced_bytes": "referenced",
    "zmon_dataset_quota_bytes": "quota",
    "zmon_dataset_refquota_bytes": "refquota",
    "zmon_dataset_snapshots": "snapshots",
    "zmon_dataset_newest_snapshot_timestamp_seconds": "newest_snapshot",
    "zmon_dataset_snapshots_expected_since_timestamp_seconds": "snapshots_expected_since",
}


def _datasets(s: Samples) -> list[Dataset]:
    out: dict[str, Dataset] = {}
    for metric, attr in _DATASET_FIELDS.items():
        for labels, value in s.all(metric):
            name = labels.get("dataset", "")
            if name:
                ds = out.setdefault(name, Dataset(name, labels.get("pool", "")))
                setattr(ds, attr, value)
    return [out[k] for k in sorted(out)]
