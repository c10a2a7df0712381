"""The one place for alert thresholds and selectors.

Change a value here, then run ``python -m alert_rules.generate`` (or ``zmon rules``): it
re-renders ``alert_rules/zmon.rules.yml``. The test suite fails while the committed YAML differs
from what the generator renders, so the two cannot drift apart.

Durations are Prometheus durations (``30s``, ``10m``, ``2h``, ``35d``). Ratios are 0-1.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields, replace

# How Prometheus names zmon's scrape job. Used by ZmonTargetDown and ZmonTargetMissing only:
# every other rule selects zmon_* metrics, whose names are already unique.
JOB_SELECTOR = 'job="zmon"'

# Where the runbook and the dashboards are published is a site's setting, not a threshold:
# zmon.status.links (python -m alert_rules.generate --runbook-url URL --grafana-url URL).

_UNITS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800, "y": 31536000}
_DURATION = re.compile(r"(\d+)(ms|s|m|h|d|w|y)")


@dataclass(frozen=True)
class Duration:
    """A Prometheus duration; ``scaled`` shrinks it for the compressed end-to-end timeline."""

    text: str

    def __post_init__(self) -> None:
        if not self.text or not re.fullmatch(r"(?:\d+(?:ms|s|m|h|d|w|y))+", self.text):
            raise ValueError(f"not a Prometheus duration: {self.text!r}")

    def __str__(self) -> str:
        return self.text

    @property
    def seconds(self) -> int:
        return int(sum(int(n) * _UNITS[u] for n, u in _DURATION.findall(self.text)))

    def scaled(self, factor: float, minimum: int) -> Duration:
        if self.seconds == 0:
            return self
        return Duration(format_seconds(max(minimum, round(self.seconds * factor))))


def format_seconds(seconds: int) -> str:
    """The shortest exact Prometheus duration for a whole number of seconds."""
    for unit in ("d", "h", "m"):
        if seconds and seconds % _UNITS[unit] == 0:
            return f"{seconds // _UNITS[unit]}{unit}"
    return f"{seconds}s"


def D(text: str) -> Duration:  # noqa: N802 - reads like a literal in the table below
    return Duration(text)


@dataclass(frozen=True)
class Thresholds:
    """Every threshold the rules use, with its default. One line each, one comment each."""

    # --- every alert: once firing, it stays firing this long after its expression stops
    # holding (Prometheus' keep_firing_for), so that a lost scrape or two (zmon's series go
    # stale, the expression returns nothing) never resolves a page only to fire it again
    keep_firing_for: Duration = D("3m")
    # --- pool and vdev state
    pool_state_for: Duration = D("1m")  # how long a bad pool/vdev state must last
    # --- ZFS stuck: sources that do not hang with zpool (kstat state, kernel log, timeouts)
    stuck_window: Duration = D("10m")  # kernel-log suspensions; no txg committed = sync stuck
    stuck_timeouts: int = 2  # zpool timeouts in stuck_timeouts_window (with a kstat sign) ...
    # ... counted over this window: a plain string, never compressed, since zmon's own collector
    # intervals and timeouts are not compressed in tests either
    stuck_timeouts_window: str = "15m"
    stuck_for: Duration = D("1m")
    # --- data integrity
    error_window: Duration = D("10m")  # window in which new vdev errors/events count
    errors_not_cleared_for: Duration = D("1h")  # ONLINE pool still showing old error counts
    # --- a failing path (ZfsVdevFailing): page before ZFS faults the vdev. ZED faults a leaf
    # after 10 I/O errors in 10 min (zfs_vdev_io_n, zfs_vdev_io_t); paging at half of that
    # leaves time to act. Checksum errors, slow I/Os and link errors page only when they keep
    # coming: errors in both halves of the window, not one burst (one scrub's repairs).
    failing_window: Duration = D("10m")
    failing_io_errors: int = 5  # read + write errors of one leaf in failing_window
    failing_checksum_errors: int = 5  # checksum errors in failing_window, in both halves
    # --- scans
    resilver_stall_window: Duration = D("15m")  # issued bytes unchanged this long = stalled
    resilver_stall_for: Duration = D("5m")
    resilver_rate_window: Duration = D("30m")  # window for the resilver's current rate
    resilver_slow_factor: float = 3.0  # projected duration vs. what the average rate predicts
    resilver_slow_min_age: Duration = D("30m")  # ignore the noisy first part of a resilver
    resilver_slow_for: Duration = D("30m")
    scrub_max_age: Duration = D("35d")  # scrub overdue after this long since the last one
    scrub_overdue_for: Duration = D("1h")
    scrub_errors_max_age: Duration = D("7d")  # ZfsScrubFoundErrors ends this long after the scrub
    # --- capacity (hysteresis: fires above *_on, clears only below *_off)
    capacity_warning_on: float = 0.80
    capacity_warning_off: float = 0.75
    capacity_critical_on: float = 0.90
    capacity_critical_off: float = 0.85
    capacity_for: Duration = D("15m")
    fragmentation_max: float = 0.70  # free-space fragmentation (zpool list FRAG)
    fragmentation_for: Duration = D("1h")
    # --- datasets
    dataset_quota_full: float = 0.90  # used/quota or referenced/refquota above this warns
    dataset_quota_for: Duration = D("15m")
    snapshot_max_age: Duration = D("26h")  # newest snapshot older than this: snapshots stopped
    snapshot_overdue_for: Duration = D("15m")
    # (which datasets should be snapshotted is zmon's setting: the datasets collector's
    # snapshot_property, snapshot_expected and snapshot_not_expected options)
    # --- memory
    ddt_arc_share_max: float = 0.25  # DDT in core vs. ARC maximum (c_max)
    arc_ghost_hit_ratio_max: float = 0.10  # (MRU+MFU ghost hits) / (hits + misses)
    arc_min_ops: float = 50.0  # ARC accesses per second below which hit ratios are noise
    arc_for: Duration = D("30m")
    # --- slowdowns: a pool's latency p99 against its own usual (zmon/health/memory.py)
    slowdown_min_ops: float = 10.0  # I/Os per second of an op below which latency is not judged
    latency_baseline: Duration = D("1d")  # the usual: median of the 5-minute p99 over this
    slowdown_factor: float = 3.0  # read p99 at least this many times its usual: slower
    # ghost hits per miss above this: the misses are memory's. Not a half: OpenZFS 2.2 and later
    # keep each data ghost list at most half the size of the ARC's other parts, so a
    # memory-bound workload counts fewer (the lab: 100 % on 2.1.11, 44 % on 2.3.2; cold reads 0)
    slowdown_ghost_share: float = 0.3
    slowdown_sibling_factor: float = 3.0  # a top-level vdev this much slower than its siblings
    slowdown_for: Duration = D("15m")
    # --- disks
    disk_pool_memory: Duration = D("1h")  # a disk keeps its pool label this long after leaving
    cable_window: Duration = D("1h")  # CRC errors, link resets, timeouts, hotplug flaps
    # kernel-log patterns (zmon_kernel_log_events_total) that point at a cable, port or HBA
    cable_patterns: str = "crc_error|link_reset|link_down|ata_timeout|ahci_timeout|cam_timeout"
    # more removals than this per cable_window = flapping (compared as ">= max + 1": increase()
    # extrapolates one removal to a little more than 1 when a scrape gap is in the window)
    hotplug_flaps_max: int = 1
    # --- a cable fault pages (DiskLinkFailing) only when a human is needed now: the disk's
    # loss would leave its vdev without redundancy, ZFS counts errors on it, or the link
    # errors keep coming - in each of cable_page_slices consecutive cable_page_slice windows
    # (a reseat's CRC error, a link reset at boot, a timeout while a disk spins up are one
    # burst each: tickets)
    cable_page_slice: Duration = D("15m")
    cable_page_slices: int = 3
    # a failing path pages when losing its disk would leave its vdev without redundancy: the
    # ONLINE top-level vdev the disk sits in survives at most this many more failures (a
    # raidz1 member, a side of a two-way mirror, a single-disk vdev). Its link errors then page
    # (DiskLinkFailing), and so do its first new read or write errors (ZfsVdevFailing)
    page_redundancy: int = 1
    # --- SAS links: the PHY error counters that count as link errors, as the HBA or expander
    # counts them (zmon_sas_phy_*) and as the disk does (zmon_disk_sas_phy_*); the sas_phy
    # collector's README says why these three and not PHY reset problems. They count only when
    # they rise in both halves of the window: a PHY's counters rise once at boot and at a link
    # reset (link training), then stand still.
    sas_link_counters: str = "invalid_dwords|running_disparity_errors|loss_of_dword_sync"
    # PHYs of one expander or HBA with link errors in cable_window that blame it, not the disks
    sas_expander_phys: int = 3
    sector_window: Duration = D("24h")  # window for reallocated/pending sectors rising
    disk_temperature_max: float = 60.0  # degrees Celsius
    disk_temperature_for: Duration = D("10m")
    nvme_used_max: float = 0.90  # NVMe "percentage used" endurance estimate, 0-1
    link_speed_for: Duration = D("30m")
    # --- UPS
    ups_on_battery_for: Duration = D("30s")
    ups_runtime_min: Duration = D("10m")  # estimated runtime below this = warning
    ups_runtime_for: Duration = D("1m")
    ups_unreachable_for: Duration = D("5m")
    # --- zmon itself
    collector_failing_for: Duration = D("15m")
    collector_stale_intervals: int = 3  # data older than this many collector intervals ...
    collector_stale_min: Duration = D("15m")  # ... and older than this = stale
    target_down_for: Duration = D("5m")

    def scaled(self, factor: float, minimum: int = 2) -> Thresholds:
        """The same table with every duration multiplied by ``factor`` (end-to-end tests)."""
        changes = {
            f.name: getattr(self, f.name).scaled(factor, minimum)
            for f in fields(self)
            if isinstance(getattr(self, f.name), Duration)
        }
        return replace(self, **changes)


DEFAULTS = Thresholds()
