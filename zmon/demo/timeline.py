"""The demo host's story: a loop through real fault scenarios, with ARC behaviour per phase."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Phase:
    """One step of the demo loop.

    ``scenario`` names the lab capture replayed; the rates (per second) drive the ARC
    counters, so hit ratio and ghost hits move with the story. ``on_battery`` cuts the
    demo UPS's input power for the phase.
    """

    name: str
    scenario: str
    arc_hits: float
    arc_misses: float
    mru_ghost_hits: float
    mfu_ghost_hits: float
    on_battery: bool = False


PHASES: tuple[Phase, ...] = (
    Phase("healthy", "01-healthy", 4000, 60, 2, 1),
    Phase("scrub", "02-scrub-in-progress", 3500, 400, 20, 10),
    Phase("scrub-finished", "04-scrub-finished", 4000, 80, 3, 1),
    Phase("checksum-errors", "05-checksum-errors-repaired", 3800, 120, 5, 2),
    Phase("degraded", "09-degraded-offline", 3000, 600, 150, 90, on_battery=True),
    Phase("resilvering", "13-resilver-in-progress", 2500, 900, 400, 250, on_battery=True),
    Phase("resilvering-later", "14-resilver-in-progress-later", 2500, 950, 450, 300),
    Phase("resilvered", "15-resilver-finished", 3800, 150, 30, 15),
)
