"""Scenario variants: a lab scenario replayed without the demo loop's disk faults.

    python -m zmon.demo.variants     # rewrite the variants under data/scenarios

The demo loop lays two disk stories over the lab's pool recordings (timeline.py): from the
checksum-errors phase on, tank's second mirror member counts interface CRC errors in its SMART
report and the kernel log gets libata's link errors (a cable fault); later its first member
grows pending sectors. A fleet host that shows one incident needs the pool's recorded state
alone: checksum errors a scrub repaired on a disk whose link is fine, a mirror member taken
offline. A variant is a scenario directory holding a ``commands.tsv`` whose rows point into
its base scenario's recordings, except the SMART reports, which are the healthy phase's, and a
``base`` file naming the scenario whose kstats and ZFS events it replays. It has no kernel
messages of its own.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

SCENARIOS = Path(__file__).parent / "data" / "scenarios"
HEALTHY = "01-healthy"
HEALTHY_DISKS = "+healthy-disks"  # the suffix of a variant's name: base + HEALTHY_DISKS
BASES = ("05-checksum-errors-repaired", "09-degraded-offline")
BASE_FILE = "base"  # in a variant: the name of the scenario it replays


def recorded_scenario(scenario: Path) -> Path:
    """The directory whose kstats and events ``scenario`` replays: its base for a variant."""
    base = scenario / BASE_FILE
    if base.is_file():
        return scenario.parent / base.read_text().strip()
    return scenario


def _rows(scenario: Path) -> list[list[str]]:
    text = (scenario / "commands.tsv").read_text()
    return [line.split("\t") for line in text.splitlines() if line.strip()]


def _from(scenario: str, file: str) -> str:
    """A ``commands.tsv`` file column of ``scenario`` as seen from a sibling directory."""
    return file if file.startswith("../") else f"../{scenario}/{file}"


def variant_rows(base: str, root: Path = SCENARIOS) -> list[str]:
    """``commands.tsv`` of ``base`` with healthy disks: every smartctl row the healthy phase's."""
    healthy = {shlex.join(shlex.split(r[3])): r for r in _rows(root / HEALTHY)}
    out = []
    for row in _rows(root / base):
        file, status, seconds, command = row[:4]
        if shlex.split(command)[0] == "smartctl":
            same = healthy.get(shlex.join(shlex.split(command)))
            if same is None:
                raise ValueError(f"{HEALTHY} has no recording of {command!r} for {base}")
            file, status, seconds = _from(HEALTHY, same[0]), same[1], same[2]
        else:
            file = _from(base, file)
        out.append("\t".join([file, status, seconds, command]))
    return out


def write_variants(root: Path = SCENARIOS) -> list[Path]:
    """Write every variant of ``BASES`` under ``root``; returns their directories."""
    written = []
    for base in BASES:
        target = root / (base + HEALTHY_DISKS)
        target.mkdir(exist_ok=True)
        (target / "commands.tsv").write_text("\n".join(variant_rows(base, root)) + "\n")
        (target / BASE_FILE).write_text(base + "\n")
        written.append(target)
    return written


if __name__ == "__main__":  # pragma: no cover
    for path in write_variants(Path(sys.argv[1]) if len(sys.argv) > 1 else SCENARIOS):
        print(path)
