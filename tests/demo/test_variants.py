"""Scenario variants (zmon/demo/variants.py): a lab scenario replayed with healthy disks."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from zmon.demo.host import KERN_LOG, DemoHost
from zmon.demo.variants import BASES, HEALTHY_DISKS, SCENARIOS, variant_rows


def test_the_committed_variants_are_what_the_generator_writes() -> None:
    for base in BASES:
        committed = (SCENARIOS / (base + HEALTHY_DISKS) / "commands.tsv").read_text()
        assert committed == "\n".join(variant_rows(base)) + "\n", (
            "rerun python -m zmon.demo.variants"
        )


def test_a_variant_replays_its_base_pools_with_the_healthy_disks(tmp_path: Path) -> None:
    host = DemoHost(phase_seconds=10, root=tmp_path / "host", story="scrub-repairs-checksum-errors")
    try:
        host.tick(now=host.time_of(2) + 1)
        assert host.phase.name == "scrub-repaired"
        zpool, smartctl = (str(host.root / "bin" / n) for n in ("zpool", "smartctl"))
        status = subprocess.run(
            [zpool, "status", "-p", "-s", "-v"], capture_output=True, timeout=30, check=True
        ).stdout.decode()
        assert "scrub repaired 13.9M" in status and "ONLINE       0     0   330" in status
        sdb = subprocess.run(
            [smartctl, "--json=c", "--nocheck=standby", "--all", "-d", "sat", "/dev/sdb"],
            capture_output=True,
            timeout=30,
        ).stdout
        crc = [
            a["raw"]["value"]
            for a in json.loads(sdb)["ata_smart_attributes"]["table"]
            if a["id"] == 199
        ]
        assert crc in ([], [0])
        assert "ata2" not in host.paths.root(KERN_LOG).read_text()  # no link errors logged
        assert 'class = "ereport.fs.zfs.checksum"' in (host.root / "events.log").read_text()
    finally:
        host.stop()
