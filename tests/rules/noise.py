"""The noise year (tests/rules/noise.yml): a healthy host's everyday events, as zmon serves
them, cut into episodes and rendered as promtool tests of the shipped rules.

A host-year is drawn from the specification's rates (Poisson, fixed seed). Events less than
``GAP`` apart fall into one episode; every episode holds one kind of event or an overlapping
pair, and lasts ``EPISODE`` minutes after its last event - far less than the rules' longest
lookback plus ``for:`` (``MAX_EPISODE``), so each episode starts and ends on a quiet host.
Besides the year's own episodes, the catalogue renders every kind alone and every pair of
kinds overlapping, so the check does not depend on what one seed happened to draw.

Series are rendered one sample a minute (Prometheus scraping and evaluating every minute),
with the counters zmon zero-initialises at 0 from start-up and nothing while zmon is down.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from alert_rules import generate
from zmon.health.thresholds import DEFAULTS, Duration

SPEC_FILE = Path(__file__).with_name("noise.yml")
MINUTES_PER_YEAR = 365 * 24 * 60
LEAD = 20  # quiet minutes before an episode's first event
EPISODE = 150  # minutes an episode goes on after its last event
GAP = 180  # events closer than this share an episode
PAIR_OFFSET = 30  # the second event of a catalogue pair, minutes after the first


def _longest_lookback_plus_for() -> int:
    durations = [
        getattr(DEFAULTS, f) for f in vars(DEFAULTS) if isinstance(getattr(DEFAULTS, f), Duration)
    ]
    windows = [d.seconds for d in durations if d.seconds <= 86400]  # age limits are no lookback
    return max(windows) // 60 + max(d.seconds for d in durations if d.seconds <= 3600) // 60


MAX_EPISODE = _longest_lookback_plus_for()

H = 'instance="h1:10124", job="zmon"'
POOL = "tank"
TOP = "raidz2-0"
DISKS = ("sda", "sdb", "sdc", "sdd")
SPARE_SLOT_DISK = "sdh"  # the new disk of a swap
OUTSIDE = "sdg"  # in no pool
LINK_PATTERNS = ("ata_timeout", "crc_error", "link_down", "link_reset", "medium_error")
EVENT_CLASSES = ("checksum", "data", "deadman", "io")


def vdev_name(disk: str) -> str:
    return f"ata-ST4000NM_Z{disk.upper()}"


@dataclass(frozen=True)
class Kind:
    name: str
    rate: float
    source: str
    tickets: dict[str, int]
    always: bool = False


def load_spec(path: Path = SPEC_FILE) -> tuple[dict[str, Any], dict[str, Kind]]:
    spec = yaml.safe_load(path.read_text())
    kinds = {
        name: Kind(name, float(k["rate"]), " ".join(k["source"].split()), dict(k["tickets"] or {}),
                   bool(k.get("always", False)))
        for name, k in spec["kinds"].items()
    }  # fmt: skip
    return spec, kinds


@dataclass(frozen=True)
class Event:
    kind: str
    minute: int  # in the year, or in the episode
    disk: str = ""


@dataclass
class Episode:
    name: str
    events: list[Event]  # minutes from the episode's start

    @property
    def length(self) -> int:
        return max(e.minute for e in self.events) + EPISODE

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(sorted(e.kind for e in self.events))


# ---- the year


def draw_year(kinds: dict[str, Kind], seed: int) -> list[Event]:
    """Every event of one host-year, in time order (disks drawn at random)."""
    rng = random.Random(seed)
    events = []
    for kind in kinds.values():
        if kind.always:
            continue
        t = 0.0
        while True:
            t += rng.expovariate(kind.rate / MINUTES_PER_YEAR)
            if t >= MINUTES_PER_YEAR:
                break
            events.append(Event(kind.name, int(t), rng.choice(DISKS)))
    return sorted(events, key=lambda e: e.minute)


def split_year(events: list[Event]) -> list[Episode]:
    """Cluster the year into episodes: an event within ``GAP`` of the previous one joins its
    episode. Two disk events of one episode go to different disks (see README)."""
    episodes: list[list[Event]] = []
    for ev in events:
        if episodes and ev.minute - episodes[-1][-1].minute < GAP:
            episodes[-1].append(ev)
        else:
            episodes.append([ev])
    out = []
    for i, group in enumerate(episodes):
        start = group[0].minute - LEAD
        used: set[str] = set()
        placed = []
        for ev in group:
            disk = ev.disk if ev.disk not in used else next(d for d in DISKS if d not in used)
            used.add(disk)
            placed.append(Event(ev.kind, ev.minute - start, disk))
        out.append(Episode(f"year episode {i + 1} (day {group[0].minute // 1440 + 1})", placed))
    return out


def catalogue(kinds: dict[str, Kind]) -> list[Episode]:
    """Every kind alone, and every pair of kinds overlapping (on different disks)."""
    names = [k for k, v in kinds.items() if not v.always]
    out = [Episode(f"{k} alone", [Event(k, LEAD, "sdb")]) for k in names]
    for a, b in itertools.combinations(names, 2):
        out.append(
            Episode(f"{a} with {b}", [Event(a, LEAD, "sdb"), Event(b, LEAD + PAIR_OFFSET, "sdd")])
        )
    return out


def expected_tickets(episode: Episode, kinds: dict[str, Kind]) -> Counter[str]:
    out: Counter[str] = Counter()
    for ev in episode.events:
        out.update(kinds[ev.kind].tickets)
    # a SAS link reset within the hour after a boot is a second step on a PHY whose counters
    # stepped at boot: in both halves of the cable window, as errors that keep coming are
    boots = [e.minute for e in episode.events if e.kind == "sas_phy_counters_at_boot"]
    resets = [e.minute for e in episode.events if e.kind == "sas_link_reset"]
    if any(0 < r - b - 3 < 60 for b in boots for r in resets):
        out.update({"DiskCableFault": 1})
    # two cable tickets on one disk are one alert (the pair's disks differ, see split_year)
    return out


# ---- series as zmon serves them


class Host:
    """One sample a minute for every series of the host over ``n`` minutes; None = absent."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.series: dict[str, list[float | None]] = {}

    def const(self, name: str, labels: str, value: float) -> None:
        self.series[f"{name}{{{H}, {labels}}}" if labels else f"{name}{{{H}}}"] = [value] * self.n

    def key(self, name: str, labels: str) -> str:
        return f"{name}{{{H}, {labels}}}" if labels else f"{name}{{{H}}}"

    def add(self, name: str, labels: str, start: int, by: float = 1) -> None:
        """A counter rises by ``by`` at minute ``start``."""
        values = self.series[self.key(name, labels)]
        for i in range(start, self.n):
            if values[i] is not None:
                values[i] = float(values[i] or 0) + by  # type: ignore[operator]

    def set(self, name: str, labels: str, start: int, end: int, value: float | None) -> None:
        values = self.series.setdefault(self.key(name, labels), [None] * self.n)
        for i in range(max(0, start), min(end, self.n)):
            values[i] = value

    def down(self, start: int, end: int) -> None:
        """The host and zmon are down: zmon's series are absent, Prometheus says up == 0."""
        for key, values in self.series.items():
            if key.startswith("up{"):
                continue
            for i in range(start, min(end, self.n)):
                values[i] = None
        self.set("up", "", start, end, 0)


def _vdev_series(h: Host, vdev: str, klass: str = "normal") -> None:
    v = f'pool="{POOL}", vdev="{vdev}", class="{klass}"'
    for state in ("online", "degraded", "faulted", "offline", "removed", "unavail"):
        h.const("zmon_vdev_state", f'{v}, state="{state}"', 1 if state == "online" else 0)
    for counter in ("read_errors", "write_errors", "checksum_errors", "slow_ios"):
        h.const(f"zmon_vdev_{counter}_total", v, 0)


def _leaf_info(h: Host, disk: str, parent: str, start: int, end: int, state: str = "ONLINE",
               vdev: str = "") -> None:  # fmt: skip
    name = vdev or vdev_name(disk)
    labels = (
        f'pool="{POOL}", vdev="{name}", class="normal", device="{disk}", type="disk", '
        f'parent="{parent}", path="/dev/disk/by-id/{name}-part1", guid="{name}", state="{state}"'
    )
    h.set("zmon_vdev_info", labels, start, end, 1)


def _disk_series(h: Host, disk: str) -> None:
    d = f'device="{disk}"'
    h.const("zmon_disk_info", f'{d}, model="ST4000NM", serial="Z{disk.upper()}"', 1)
    h.const("zmon_disk_smart_passed", d, 1)
    h.const("zmon_disk_temperature_celsius", d, 34)
    h.const("zmon_disk_standby", d, 0)
    for gauge in ("reallocated_sectors", "pending_sectors", "offline_uncorrectable_sectors"):
        h.const(f"zmon_disk_{gauge}", d, 0)
    h.const("zmon_disk_crc_errors_total", d, 0)
    for pattern in LINK_PATTERNS:
        h.const("zmon_kernel_log_events_total", f'pattern="{pattern}", {d}', 0)
    for action in ("add", "remove"):
        h.const("zmon_disk_hotplug_events_total", f'{d}, action="{action}"', 0)


SAS_COUNTERS = ("invalid_dwords", "running_disparity_errors", "loss_of_dword_sync",
                "reset_problems")  # fmt: skip
EXPANDER = "expander-0:0"
HBA_PHYS = tuple(f"phy-0:{i}" for i in range(4))  # the wide port to the expander


def _disk_phy(disk: str) -> str:
    return f"phy-0:0:{DISKS.index(disk)}"


def _sas_phy_series(h: Host, phy: str, parent: str, device: str, boot_errors: float) -> None:
    """An HBA or expander PHY as the sas_phy collector serves it: a few errors from link
    training at boot, steady since."""
    slot = f"Slot0{DISKS.index(device)}" if device else ""
    h.const(
        "zmon_sas_phy_info",
        f'phy="{phy}", sas_address="0x5003048", parent="{parent}", '
        f'parent_kind="{"expander" if parent == EXPANDER else "hba"}", '
        f'attached="{"disk" if device else "expander"}", attached_name="", device="{device}", '
        f'enclosure="{"0:0:12:0" if device else ""}", slot="{slot}"',
        1,
    )
    for counter in SAS_COUNTERS:
        value = 0.0 if counter == "reset_problems" else boot_errors
        h.const(f"zmon_sas_phy_{counter}_total", _sas_labels(phy, device), value)


def _sas_labels(phy: str, device: str) -> str:
    return f'phy="{phy}", sas_address="0x5003048", device="{device}"'


def healthy_host(n: int) -> Host:
    """The host of the specification, healthy, over ``n`` minutes (the clock starts at 0)."""
    h = Host(n)
    h.const("up", "", 1)
    p = f'pool="{POOL}"'
    for state in ("online", "degraded", "faulted", "offline", "removed", "unavail", "suspended"):
        h.const("zmon_pool_state", f'{p}, state="{state}"', 1 if state == "online" else 0)
        h.const("zmon_pool_kstat_state", f'{p}, state="{state}"', 1 if state == "online" else 0)
    h.series[h.key("zmon_pool_txg_sync_duration_seconds_count", p)] = [12.0 * i for i in range(n)]
    h.const("zmon_kernel_log_pool_events_total", f'pattern="pool_suspended", {p}', 0)
    h.const("zmon_pool_creation_time_seconds", p, -3 * 365 * 86400)
    h.const("zmon_pool_size_bytes", p, 24e12)
    h.const("zmon_pool_allocated_bytes", p, 9e12)
    h.const("zmon_pool_fragmentation_ratio", p, 0.08)
    h.const("zmon_pool_data_errors", p, 0)
    h.const("zmon_pool_data_errors_present", p, 0)
    # scrubbed ten days ago, clean
    h.const("zmon_pool_last_scrub_end_time_seconds", p, -10 * 86400)
    h.const("zmon_pool_scan_errors", p, 0)
    h.const("zmon_pool_scan_info", f'{p}, function="scrub", state="finished"', 1)
    for function in ("scrub", "resilver", "rebuild"):
        h.const("zmon_pool_scan_in_progress", f'{p}, function="{function}"', 0)
    h.const("zmon_pool_scan_paused", p, 0)
    h.const("zmon_pool_scan_processed_bytes", p, 0)
    for gauge in ("issued", "examined", "to_examine", "to_issue"):
        h.const(f"zmon_pool_scan_{gauge}_bytes", p, 9e12)
    h.const("zmon_pool_scan_start_time_seconds", p, -10 * 86400 - 6 * 3600)
    h.const(
        "zmon_vdev_info",
        f'{p}, vdev="{POOL}", class="normal", device="", type="root", parent="", path="", '
        f'guid="0", state="ONLINE"',
        1,
    )
    h.const(
        "zmon_vdev_info",
        f'{p}, vdev="{TOP}", class="normal", device="", type="raidz", parent="{POOL}", '
        f'path="", guid="1", state="ONLINE"',
        1,
    )
    _vdev_series(h, TOP)
    h.const("zmon_vdev_redundancy", f'{p}, vdev="{TOP}", class="normal"', 2)
    for cls in EVENT_CLASSES:
        h.const("zmon_zfs_events_total", f'{p}, vdev="", class="{cls}"', 0)
        h.const("zmon_zfs_events_total", f'{p}, vdev="{TOP}", class="{cls}"', 0)
    for disk in DISKS:
        _vdev_series(h, vdev_name(disk))
        _leaf_info(h, disk, TOP, 0, n)
        for cls in EVENT_CLASSES:
            h.const("zmon_zfs_events_total", f'{p}, vdev="{vdev_name(disk)}", class="{cls}"', 0)
    for disk in (*DISKS, OUTSIDE):
        _disk_series(h, disk)
    for disk in DISKS:
        _sas_phy_series(h, _disk_phy(disk), EXPANDER, disk, 3)
    for phy in HBA_PHYS:
        _sas_phy_series(h, phy, "host0", "", 2)
    h.set("zmon_disk_standby", f'device="{OUTSIDE}"', 0, n, 1)
    # the UPS on mains
    u = 'ups="ups", server="127.0.0.1:3493"'
    h.const("zmon_ups_up", u, 1)
    h.const("zmon_ups_server_up", 'server="127.0.0.1:3493"', 1)
    for flag in ("OL", "OB", "LB", "CHRG", "DISCHRG"):
        h.const("zmon_ups_status", f'{u}, flag="{flag}"', 1 if flag == "OL" else 0)
    h.const("zmon_ups_battery_runtime_seconds", u, 2400)
    h.const("zmon_ups_battery_charge_ratio", u, 1.0)
    # zmon itself
    for collector, interval in (("zpool", 15), ("smart", 300), ("txg", 15)):
        c = f'collector="{collector}"'
        h.const("zmon_collector_success", c, 1)
        h.const("zmon_collector_has_data", c, 1)
        h.const("zmon_collector_interval_seconds", c, interval)
        h.const("zmon_collector_stale", c, 0)
        h.series[h.key("zmon_collector_last_success_timestamp_seconds", c)] = [
            60.0 * i for i in range(n)
        ]
        for result in ("success", "timeout"):
            h.series[h.key("zmon_collector_runs_total", f'{c}, result="{result}"')] = [
                float(4 * i if result == "success" else 0) for i in range(n)
            ]
    # datasets: tank/home snapshotted hourly; tank/scratch never (no snapshot series at all)
    for ds, used in (("tank/home", 4e12), ("tank/scratch", 2e12)):
        h.const("zmon_dataset_used_bytes", f'{p}, dataset="{ds}", type="filesystem"', used)
    h.series[h.key("zmon_dataset_newest_snapshot_timestamp_seconds",
                   f'{p}, dataset="tank/home", type="filesystem"')] = [
        float(3600 * (i // 60) - 1800) for i in range(n)
    ]  # fmt: skip
    return h


# ---- what each kind of event does to the series


def _link(h: Host, disk: str, pattern: str, at: int) -> None:
    h.add("zmon_kernel_log_events_total", f'pattern="{pattern}", device="{disk}"', at)


def crc_after_reseat(h: Host, at: int, disk: str) -> None:
    h.add("zmon_disk_crc_errors_total", f'device="{disk}"', at)


def reboot(h: Host, at: int, disk: str, link_reset: bool = False) -> None:
    h.down(at, at + 3)
    # the pool is imported anew: the vdev error counters start at 0 (they were 0)
    if link_reset:
        _link(h, disk, "link_reset", at + 3)


def link_reset_at_boot(h: Host, at: int, disk: str) -> None:
    reboot(h, at, disk, link_reset=True)


def link_reset_at_hotplug(h: Host, at: int, disk: str) -> None:
    h.set("zmon_disk_standby", f'device="{OUTSIDE}"', at, h.n, 0)
    h.add("zmon_disk_hotplug_events_total", f'device="{OUTSIDE}", action="add"', at)
    _link(h, OUTSIDE, "link_reset", at)


def ata_timeout_at_spin_up(h: Host, at: int, disk: str) -> None:
    h.set("zmon_disk_standby", f'device="{disk}"', 0, at, 1)
    _link(h, disk, "ata_timeout", at)
    _link(h, disk, "link_reset", at)


def scrub_repairs(h: Host, at: int, disk: str, repaired: int = 2, minutes: int = 40) -> None:
    p = f'pool="{POOL}"'
    end = at + minutes
    h.set("zmon_pool_scan_in_progress", f'{p}, function="scrub"', at, end, 1)
    h.set("zmon_pool_scan_info", f'{p}, function="scrub", state="finished"', at, end, None)
    h.set("zmon_pool_scan_info", f'{p}, function="scrub", state="in_progress"', at, end, 1)
    h.set("zmon_pool_scan_start_time_seconds", p, at, h.n, at * 60.0)
    h.set("zmon_pool_last_scrub_end_time_seconds", p, end, h.n, end * 60.0)
    h.set("zmon_pool_scan_processed_bytes", p, end, h.n, 8192.0 * repaired)
    for i in range(at, min(end, h.n)):
        h.series[h.key("zmon_pool_scan_issued_bytes", p)][i] = 9e12 * (i - at) / minutes
        h.series[h.key("zmon_pool_scan_examined_bytes", p)][i] = 9e12 * (i - at) / minutes
    v = f'pool="{POOL}", vdev="{vdev_name(disk)}", class="normal"'
    h.add("zmon_vdev_checksum_errors_total", v, at + minutes // 2, repaired)
    h.add("zmon_zfs_events_total", f'{v.replace(", class=" + chr(34) + "normal" + chr(34), "")}, '
          'class="checksum"', at + minutes // 2, repaired)  # fmt: skip


def disk_swap(h: Host, at: int, disk: str, resilver: int = 60) -> None:
    """``disk`` pulled; the new disk goes into its slot 5 minutes later, zpool replace at +8,
    the resilver takes ``resilver`` minutes; then the new disk is a plain raidz2 member."""
    p = f'pool="{POOL}"'
    old, new = vdev_name(disk), vdev_name(SPARE_SLOT_DISK)
    replaced, done = at + 8, at + 8 + resilver
    # pulled: REMOVED, the pool DEGRADED with one disk of parity left
    h.add("zmon_disk_hotplug_events_total", f'device="{disk}", action="remove"', at)
    for key in [k for k in h.series if f'device="{disk}"' in k and "hotplug" not in k]:
        h.series[key][at:] = [None] * (h.n - at)
    _leaf_info(h, disk, TOP, 0, h.n, vdev=old)  # keep it, then change it below
    h.set("zmon_vdev_info", _info_labels(disk, TOP, "ONLINE", old), at, h.n, None)
    h.set("zmon_vdev_info", _info_labels("", TOP, "REMOVED", old), at, replaced, 1)
    h.set("zmon_vdev_info", _info_labels("", "replacing-0", "REMOVED", old), replaced, done, 1)
    for state, value in (("online", 0), ("removed", 1)):
        h.set("zmon_vdev_state", f'pool="{POOL}", vdev="{old}", class="normal", state="{state}"',
              at, done, value)  # fmt: skip
    for key in [k for k in h.series if f'vdev="{old}"' in k]:
        h.series[key][done:] = [None] * (h.n - done)
    for state, value in (("online", 0), ("degraded", 1)):
        h.set("zmon_pool_state", f'{p}, state="{state}"', at, done, value)
        h.set("zmon_vdev_state", f'{p}, vdev="{TOP}", class="normal", state="{state}"', at, done,
              value)  # fmt: skip
    h.set("zmon_vdev_redundancy", f'{p}, vdev="{TOP}", class="normal"', at, done, 1)
    # the new disk: hotplug, a link reset as its link comes up, then resilvered in
    plugged = at + 5
    _disk_series_from(h, SPARE_SLOT_DISK, plugged)
    h.add("zmon_disk_hotplug_events_total", f'device="{SPARE_SLOT_DISK}", action="add"', plugged)
    _link(h, SPARE_SLOT_DISK, "link_reset", plugged)
    h.set("zmon_vdev_info", _info_labels(SPARE_SLOT_DISK, "replacing-0", "ONLINE", new),
          replaced, done, 1)  # fmt: skip
    h.set("zmon_vdev_info", _info_labels(SPARE_SLOT_DISK, TOP, "ONLINE", new), done, h.n, 1)
    h.set(
        "zmon_vdev_info",
        f'{p}, vdev="replacing-0", class="normal", device="", type="replacing", '
        f'parent="{TOP}", path="", guid="r", state="DEGRADED"',
        replaced, done, 1,
    )  # fmt: skip
    v = f'{p}, vdev="{new}", class="normal"'
    for state in ("online", "degraded", "faulted", "offline", "removed", "unavail"):
        h.set("zmon_vdev_state", f'{v}, state="{state}"', replaced, h.n, int(state == "online"))
    for counter in ("read_errors", "write_errors", "checksum_errors", "slow_ios"):
        h.set(f"zmon_vdev_{counter}_total", v, replaced, h.n, 0)
    for cls in EVENT_CLASSES:
        h.set("zmon_zfs_events_total", f'{p}, vdev="{new}", class="{cls}"', replaced, h.n, 0)
    h.set("zmon_pool_scan_in_progress", f'{p}, function="resilver"', replaced, done, 1)
    h.set("zmon_pool_scan_start_time_seconds", p, replaced, h.n, replaced * 60.0)
    for i in range(replaced, min(done, h.n)):
        for gauge in ("issued", "examined"):
            h.series[h.key(f"zmon_pool_scan_{gauge}_bytes", p)][i] = (
                1.5e12 * (i - replaced) / resilver
            )


def _info_labels(disk: str, parent: str, state: str, vdev: str) -> str:
    return (
        f'pool="{POOL}", vdev="{vdev}", class="normal", device="{disk}", type="disk", '
        f'parent="{parent}", path="/dev/disk/by-id/{vdev}-part1", guid="{vdev}", state="{state}"'
    )


def _disk_series_from(h: Host, disk: str, start: int) -> None:
    before = set(h.series)
    _disk_series(h, disk)
    for key in set(h.series) - before:
        h.series[key][:start] = [None] * start


def ups_self_test(h: Host, at: int, disk: str) -> None:
    u = 'ups="ups", server="127.0.0.1:3493"'
    for flag, value in (("OL", 0), ("OB", 1), ("DISCHRG", 1)):
        h.set("zmon_ups_status", f'{u}, flag="{flag}"', at, at + 1, value)


def _sas_step(h: Host, at: int, phy: str, device: str, by: float) -> None:
    for counter in ("invalid_dwords", "running_disparity_errors"):
        h.add(f"zmon_sas_phy_{counter}_total", _sas_labels(phy, device), at, by)
    h.add("zmon_sas_phy_loss_of_dword_sync_total", _sas_labels(phy, device), at)


def sas_phy_counters_at_boot(h: Host, at: int, disk: str) -> None:
    """A reboot: the counters start anew and every link trains (a few errors each, fewer than
    before the reboot on some links, more on others: a reset and a rise alike)."""
    reboot(h, at, disk)
    phys = [(_disk_phy(d), d) for d in DISKS] + [(p, "") for p in HBA_PHYS]
    for i, (phy, device) in enumerate(phys):
        for counter in ("invalid_dwords", "running_disparity_errors", "loss_of_dword_sync"):
            values = h.series[h.key(f"zmon_sas_phy_{counter}_total", _sas_labels(phy, device))]
            for t in range(at + 3, h.n):
                values[t] = float(1 + i % 5)


def sas_link_reset(h: Host, at: int, disk: str) -> None:
    _sas_step(h, at, _disk_phy(disk), disk, 4)


EFFECTS = {
    "crc_after_reseat": crc_after_reseat,
    "link_reset_at_boot": link_reset_at_boot,
    "link_reset_at_hotplug": link_reset_at_hotplug,
    "ata_timeout_at_spin_up": ata_timeout_at_spin_up,
    "scrub_repairs": scrub_repairs,
    "disk_swap": disk_swap,
    "reboot": reboot,
    "ups_self_test": ups_self_test,
    "sas_phy_counters_at_boot": sas_phy_counters_at_boot,
    "sas_link_reset": sas_link_reset,
}


def episode_host(episode: Episode) -> Host:
    h = healthy_host(episode.length)
    for ev in sorted(episode.events, key=lambda e: e.kind != "disk_swap"):
        EFFECTS[ev.kind](h, ev.minute, ev.disk)
    return h


# ---- promtool


def _values(values: list[float | None]) -> str:
    return " ".join("_" if v is None else f"{v:g}" for v in values)


def render_test(episode: Episode, kinds: dict[str, Kind]) -> str:
    """One promtool test group: the episode's series, then at its end the firing alerts of
    the whole episode, by name and severity, must be its tickets - no page among them."""
    h = episode_host(episode)
    span = f"[{episode.length}m]"
    fired = f'max_over_time(ALERTS{{alertstate="firing"}}{span})'
    pages = f'max_over_time(ALERTS{{alertstate="firing", severity="critical"}}{span})'
    lines = [f"  - name: {episode.name}", "    interval: 1m", "    input_series:"]
    for key, values in h.series.items():
        lines += [f"      - series: '{key}'", f"        values: '{_values(values)}'"]
    expected = expected_tickets(episode, kinds)
    lines += [
        "    promql_expr_test:",
        f"      - expr: count({pages})",
        f"        eval_time: {episode.length - 1}m",
        "        exp_samples: []",
        f"      - expr: count by (alertname) ({fired})",
        f"        eval_time: {episode.length - 1}m",
    ]
    if expected:
        lines.append("        exp_samples:")
        for alert, count in sorted(expected.items()):
            lines += [
                f"          - labels: '{{alertname=\"{alert}\"}}'",
                f"            value: {count}",
            ]
    else:
        lines.append("        exp_samples: []")
    return "\n".join(lines)


def render_file(episodes: list[Episode], kinds: dict[str, Kind], rules: Path) -> str:
    head = [
        "# Generated by tests/rules/noise.py from tests/rules/noise.yml: do not edit.",
        "rule_files:",
        f"  - {rules}",
        "evaluation_interval: 1m",
        *generate.eval_order_lines(),
        "",
        "tests:",
    ]
    return "\n".join(head + [render_test(e, kinds) for e in episodes]) + "\n"


@dataclass
class Year:
    events: list[Event]
    episodes: list[Episode] = field(default_factory=list)


def the_year() -> Year:
    spec, kinds = load_spec()
    events = draw_year(kinds, int(spec["seed"]))
    return Year(events, split_year(events))


def readme_table(kinds: dict[str, Kind], year: Year) -> str:
    """The README's table: each kind, its rate, its tickets; then the drawn year's totals."""
    drawn: Counter[str] = Counter()
    for episode in year.episodes:
        drawn.update(expected_tickets(episode, kinds))
    per_kind: Counter[str] = Counter(e.kind for e in year.events)
    rows = ["| everyday event | per host-year | tickets each | in the drawn year |",
            "| --- | ---: | --- | ---: |"]  # fmt: skip
    for k in kinds.values():
        tickets = ", ".join(f"{a}" + (f" x{n}" if n > 1 else "") for a, n in k.tickets.items())
        n = "always" if k.always else f"{k.rate:g}"
        got = "-" if k.always else str(per_kind[k.name])
        rows.append(f"| {k.name.replace('_', ' ')} | {n} | {tickets or 'none'} | {got} |")
    total = sum(drawn.values())
    rows.append(f"| **all** ({len(year.episodes)} episodes) | | **0 pages** | "
                f"**{total} tickets** |")  # fmt: skip
    by_alert = ", ".join(f"{a} {n}" for a, n in sorted(drawn.items()))
    return "\n".join(rows) + f"\n\nTickets of the drawn year by alert: {by_alert}.\n"
