"""The demo host's story: a loop through real fault scenarios, with ARC behaviour per phase.

Alongside the pool story runs a cable fault on one mirror member (``CABLE_FAULT_SERIAL``, the
disk ``sdb`` on ``ata2``): its SATA link starts corrupting frames when the checksum errors
appear, the link is slowed down to 1.5 Gb/s, the interface CRC counter (ATA attribute 199)
climbs until the disk is replaced, and the media counters stay at zero - the pattern that
tells a cable or backplane fault from a dying disk.
"""

from __future__ import annotations

from dataclasses import dataclass

CABLE_FAULT_SERIAL = "ZLSATA1"  # tank's second mirror member, sdb on ata2
LINK_GBPS = 6.0  # the link speed of every healthy SATA disk


@dataclass(frozen=True)
class Phase:
    """One step of the demo loop.

    ``scenario`` names the lab capture replayed; the rates (per second) drive the ARC
    counters, so hit ratio and ghost hits move with the story. ``on_battery`` cuts the
    demo UPS's input power for the phase. ``crc_errors`` and ``link_gbps`` are the faulty
    cable's disk as smartctl reads it in the phase (ATA attribute 199 raw value, current
    link speed); the kernel log gets libata errors for the CRC errors new in the phase.
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


PHASES: tuple[Phase, ...] = (
    Phase("healthy", "01-healthy", 4000, 60, 2, 1),
    Phase("scrub", "02-scrub-in-progress", 3500, 400, 20, 10),
    Phase("scrub-finished", "04-scrub-finished", 4000, 80, 3, 1),
    Phase("checksum-errors", "05-checksum-errors-repaired", 3800, 120, 5, 2,
          crc_errors=3, link_gbps=1.5),
    Phase("degraded", "09-degraded-offline", 3000, 600, 150, 90, on_battery=True,
          crc_errors=27, link_gbps=1.5),
    Phase("resilvering", "13-resilver-in-progress", 2500, 900, 400, 250, on_battery=True,
          crc_errors=41, link_gbps=1.5),
    Phase("resilvering-later", "14-resilver-in-progress-later", 2500, 950, 450, 300,
          crc_errors=44, link_gbps=1.5),
    Phase("resilvered", "15-resilver-finished", 3800, 150, 30, 15,
          crc_errors=44, link_gbps=1.5),
)  # fmt: skip
