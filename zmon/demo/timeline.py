"""The demo host's story: a loop through real fault scenarios, with ARC behaviour per phase.

Alongside the pool story run two disk stories on tank's mirror members:

- a cable fault (``CABLE_FAULT_SERIAL``, the disk ``sdb`` on ``ata2``): its SATA link starts
  corrupting frames when the checksum errors appear, the link is slowed down to 1.5 Gb/s, the
  interface CRC counter (ATA attribute 199) climbs until the disk is replaced, and the media
  counters stay at zero - the pattern that tells a cable or backplane fault from a dying disk;
- media going bad during the resilver (``MEDIA_FAULT_SERIAL``, the disk ``sda`` on ``ata1``,
  the only source the resilver reads from): a read fails with an uncorrectable error, the
  disk counts the sectors as pending (ATA attribute 197), and once the resilver is over and
  the sectors are rewritten it remaps them (attribute 5, reallocated) - a dying disk. The
  pool's recordings are the lab's, where that read did not fail: ``zpool status`` and
  ``zpool events`` show no read error on it.

A loop restart is a new host: every counter starts again from zero at "healthy".
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from zmon.demo.labslowdown import captured, recorded_c_max
from zmon.demo.variants import HEALTHY_DISKS

CABLE_FAULT_SERIAL = "ZLSATA1"  # tank's second mirror member, sdb on ata2
MEDIA_FAULT_SERIAL = "ZLSATA0"  # tank's first mirror member, sda on ata1
LINK_GBPS = 6.0  # the link speed of every healthy SATA disk
LAB = captured()  # the lab's memory-bound slowdown, as shares (labslowdown.py)


@dataclass(frozen=True)
class Phase:
    """One step of the demo loop.

    ``scenario`` names the lab capture replayed; the rates (per second) drive the ARC
    counters, so hit ratio and ghost hits move with the story. ``on_battery`` cuts the
    demo UPS's input power for the phase. ``crc_errors`` and ``link_gbps`` are the faulty
    cable's disk as smartctl reads it in the phase (ATA attribute 199 raw value, current
    link speed); the kernel log gets libata errors for the CRC errors new in the phase.
    ``pending_sectors`` and ``reallocated_sectors`` are the failing disk's attributes 197 and
    5 (raw values); the kernel log gets a failed read for each 8 sectors newly pending.
    ``length`` is the phase's duration in units of ``--demo.phase-seconds``: an incident lasts
    long enough for its alerts (``for: 1m`` and more) to fire at the default 60 s.
    ``pool_age_days`` makes the pools (and their datasets) that much older than the lab's,
    which were created moments before it recorded: a host that has run for a while.
    ``reads`` and ``writes`` are tank's I/Os per second, added to its healthy recording's
    ``zpool iostat -w`` histograms with the latency profile ``latency`` (a key of ``LATENCY``),
    so the pool's latency p99 moves with the story. ``ghost_bytes`` is the ARC's MRU + MFU
    ghost lists' size (arcstats mru_ghost_size, mfu_ghost_size; None: as recorded).
    ``l2_hit_share`` is the share of the ARC's misses that tank's cache device (vde1, holding
    258 MB as recorded) serves: arcstats ``l2_hits``; the rest are ``l2_misses``.
    ``new_events`` is False for a phase that replays its scenario again: its events and kernel
    messages are not logged twice.
    """

    name: str
    scenario: str
    arc_hits: float
    arc_misses: float
    mru_ghost_hits: float
    mfu_ghost_hits: float
    on_battery: bool = False
    crc_errors: int = 0
    link_gbps: float = LINK_GBPS
    pending_sectors: int = 0
    reallocated_sectors: int = 0
    length: int = 1
    # alerts the end-to-end test awaits in this phase: some of those the shipped rules start
    # firing in it (README.md's table lists them all; tests/docs/test_readme.py)
    alerts: tuple[str, ...] = ()
    stuck_pool: str = ""  # a pool ZFS suspended: kstat state SUSPENDED, zpool hangs
    pool_age_days: float = 0.0
    reads: float = 60.0
    writes: float = 20.0
    latency: str = "usual"
    ghost_bytes: float | None = None
    new_events: bool = True
    l2_hit_share: float = 0.25

    @property
    def l2_hits(self) -> float:
        """L2ARC reads served per second."""
        return self.arc_misses * self.l2_hit_share

    @property
    def l2_misses(self) -> float:
        """L2ARC reads not served per second (the ARC's other misses)."""
        return self.arc_misses - self.l2_hits


# Latency profiles of tank's I/Os: (``zpool iostat -w`` row, share of the I/Os). "usual" is a
# SATA mirror serving what the ARC misses (p99 about 7 ms); "lab" the lab's pool reading a
# working set larger than its ARC (labslowdown.py: p99 about 120 ms): a memory-bound slowdown.
LATENCY: dict[str, tuple[tuple[str, float], ...]] = {
    "usual": (("131us", 0.10), ("262us", 0.45), ("524us", 0.25), ("1ms", 0.10), ("2ms", 0.05),
              ("4ms", 0.03), ("8ms", 0.015), ("16ms", 0.005)),
    "lab": LAB.latency,
}  # fmt: skip
# The slowdown's ARC accesses per second (the misses queue tank's reads), and its c_max
SLOWDOWN_ACCESSES = 4100.0
SLOWDOWN_MISSES = SLOWDOWN_ACCESSES * (1 - LAB.hit_ratio)
RECORDED_C_MAX = recorded_c_max()

# The scrub phase replays 04b, the lab's second scrub of tank, captured after 04's scrub had
# finished: 02's scrub was too slow for zpool to print an estimate ("... to go"). Events are
# split in capture order (``refresh.split_in_capture_order``), so each is replayed once a
# loop: the scrub phase logs the start of 04b's scrub, scrub-finished the whole life of the
# scrub its zpool status reports (started, paused, resumed, finished).
PHASES: tuple[Phase, ...] = (
    Phase("healthy", "01-healthy", 4000, 60, 2, 1),
    Phase("scrub", "04b-scrub-in-progress-eta", 3500, 400, 20, 10),
    Phase("scrub-finished", "04-scrub-finished", 4000, 80, 3, 1),
    Phase(
        "checksum-errors",
        "05-checksum-errors-repaired",
        3800,
        120,
        5,
        2,
        crc_errors=3,
        link_gbps=1.5,
        length=3,
        alerts=("ZfsVdevChecksumErrors", "ZfsErrorEvents", "DiskCableFault", "DiskLinkFailing"),
    ),
    Phase(
        "degraded",
        "09-degraded-offline",
        3000,
        600,
        150,
        90,
        on_battery=True,
        crc_errors=27,
        link_gbps=1.5,
        length=3,
        alerts=("ZfsPoolDegraded", "ZfsPoolDataErrors", "UpsOnBattery"),
    ),
    Phase(
        "resilvering",
        "13-resilver-in-progress",
        2500,
        900,
        400,
        250,
        on_battery=True,
        crc_errors=41,
        link_gbps=1.5,
        pending_sectors=8,
        length=2,
        # sda's DiskMediumErrors and DiskPendingSectorsRising fire too, muted by the page
        alerts=("UpsLowBattery", "UpsOnBatteryDuringScan", "ZfsResilverSourceFailing"),
    ),
    Phase(
        "resilvering-later",
        "14-resilver-in-progress-later",
        2500,
        950,
        450,
        300,
        crc_errors=44,
        link_gbps=1.5,
        pending_sectors=8,
    ),
    Phase(
        "resilvered",
        "15-resilver-finished",
        3800,
        150,
        30,
        15,
        crc_errors=44,
        link_gbps=1.5,
        reallocated_sectors=8,
        length=2,
        alerts=("DiskReallocatedSectorsRising",),
    ),
    # A working set larger than the ARC (1.9 GiB max), replayed from the lab (labslowdown.py):
    # the hit ratio falls from 98 % to 71 %, every miss is a ghost hit (OpenZFS 2.1.11, as the
    # demo host runs), the ghost lists hold 30 % of c_max, and tank's reads take the lab's
    # latency distribution (p99 about 120 ms) at twenty times its usual rate. zmon status says
    # the ARC is too small; ZfsArcSlowdown, a ticket, waits 15 min. The disks stay as resilvered
    # left them. The L2ARC, 258 MB, serves a tenth of the misses (a quarter before).
    Phase(
        "slowdown",
        "15-resilver-finished",
        SLOWDOWN_ACCESSES * LAB.hit_ratio,
        SLOWDOWN_MISSES,
        SLOWDOWN_MISSES * LAB.mru_ghost_share,
        SLOWDOWN_MISSES * LAB.mfu_ghost_share,
        crc_errors=44,
        link_gbps=1.5,
        reallocated_sectors=8,
        reads=1200,
        latency="lab",
        ghost_bytes=LAB.ghost_per_c_max * RECORDED_C_MAX,
        new_events=False,
        l2_hit_share=0.1,  # the cache device holds a fraction of the grown working set
        length=5,
    ),
)


def _phase(base: str, **changes: Any) -> Phase:
    return replace(next(p for p in PHASES if p.name == base), **changes)


# Single incidents, one per host of a fleet (tests/fleet): each starts healthy and ends in its
# last phase, where it stays (no loop). Mains power stays on: the UPS story is a shared server.
# The variants replay a lab scenario without the loop's disk faults (zmon/demo/variants.py):
# checksum errors a scrub repaired on a disk whose link is fine; a mirror member taken offline.
REPAIRED_ON_HEALTHY_DISKS = "05-checksum-errors-repaired" + HEALTHY_DISKS
OFFLINE_ON_HEALTHY_DISKS = "09-degraded-offline" + HEALTHY_DISKS
_HEALTHY = _phase("healthy", length=2)
STORIES: dict[str, tuple[Phase, ...]] = {
    "demo": PHASES,
    "healthy": (_HEALTHY,),
    "checksum-then-replaced": (
        _HEALTHY,
        _phase("checksum-errors", length=4),
        _phase("resilvering", on_battery=False, length=2),
        _phase("resilvered", length=2),
    ),
    "degraded-then-resilvering": (
        _HEALTHY,
        _phase("degraded", on_battery=False, crc_errors=0, link_gbps=6.0, length=4),
        _phase(
            "resilvering",
            on_battery=False,
            crc_errors=0,
            link_gbps=6.0,
            pending_sectors=0,
            length=2,
        ),
    ),
    "suspended": (
        _phase("healthy", length=6),
        _phase("healthy", name="suspended", stuck_pool="tank", length=2, alerts=("ZfsPoolStuck",)),
    ),
    # One incident each (tests/fleet/test_incidents.py). The pools' other recorded damage stays
    # as the lab left it (``single``'s permanent errors in 09): each incident is its own pool.
    "cable-fault": (_HEALTHY, _phase("checksum-errors", length=4)),
    "scrub-repairs-checksum-errors": (
        _HEALTHY,
        _phase("scrub"),
        _phase(
            "checksum-errors",
            name="scrub-repaired",
            scenario=REPAIRED_ON_HEALTHY_DISKS,
            crc_errors=0,
            link_gbps=LINK_GBPS,
            alerts=("ZfsVdevChecksumErrors", "ZfsErrorEvents", "ZfsScrubFoundErrors"),
        ),
    ),
    # The lab's pools, never scrubbed, on a host that has run for 60 days: past the overdue
    # limit (35 days by default).
    "never-scrubbed": (
        _phase(
            "healthy",
            name="never-scrubbed",
            pool_age_days=60.0,
            length=2,
            alerts=("ZfsScrubOverdue",),
        ),
    ),  # fmt: skip
    "mirror-member-offline": (
        _HEALTHY,
        _phase(
            "degraded",
            name="offline",
            scenario=OFFLINE_ON_HEALTHY_DISKS,
            on_battery=False,
            crc_errors=0,
            link_gbps=LINK_GBPS,
            length=4,
            alerts=("ZfsPoolDegraded", "ZfsPoolDataErrors"),
        ),
    ),
}


def starts(phases: tuple[Phase, ...]) -> tuple[int, ...]:
    """Where each phase starts, in phase units from the start of the story."""
    return tuple(sum(p.length for p in phases[:i]) for i in range(len(phases)))
