"""The demo loops through its whole story, twice, without a collector failing."""

from __future__ import annotations

import os
from pathlib import Path

from tests.demo.conftest import PhaseRunner, make_collector
from zmon.collecting.registry import Board, collectors
from zmon.demo.host import KERN_LOG, DemoHost
from zmon.demo.timeline import PHASES
from zmon.host.devices import DeviceMapCache

# Followers of live sources (zpool events -f, udev, the UPS server) are tested elsewhere; the
# demo host has no SAS hardware (tests/collectors/sas_phy reads a fake SAS host).
NOT_HERE = ("hotplug", "ups", "zpool_events", "kernel_log", "sas_phy")


def test_demo_loops_through_every_phase(tmp_path: Path) -> None:
    host = DemoHost(phase_seconds=1.0, root=tmp_path / "host")
    runner = PhaseRunner(host)
    board, devices = Board(), DeviceMapCache(host.paths)
    names = [n for n in collectors() if n not in NOT_HERE]
    running = {
        n: make_collector(host, n, runner=runner, board=board, devices=devices) for n in names
    }
    kern_log = host.paths.root(KERN_LOG)
    seen, sizes, crc, media = [], [], [], []
    try:
        for k in range(2 * len(PHASES) + 1):
            loop, index = divmod(k, len(PHASES))
            host.tick(now=host.time_of(index, loop) + 0.5)
            seen.append(host.phase.name)
            assert os.path.realpath(host.root / "current").endswith(host.phase.scenario)
            for name, collector in running.items():
                ms = collector.collect()  # raises on a failure
                assert ms.families(), f"{name} has no data in {host.phase.name}"
                if name == "smart":
                    for disk in ("sda", "sdb", "sdc", "sdd", "nvme0n1", "nvme1n1"):
                        up = ms.sample_value("zmon_disk_smart_up", {"device": disk})
                        assert up == 1, (host.phase.name, disk)
                    crc.append(ms.sample_value("zmon_disk_crc_errors_total", {"device": "sdb"}))
                    media.append(
                        tuple(
                            ms.sample_value(m, {"device": "sda"})
                            for m in ("zmon_disk_pending_sectors", "zmon_disk_reallocated_sectors")
                        )
                    )
            sizes.append(kern_log.stat().st_size)
    finally:
        for collector in running.values():
            collector.close()
        host.stop()
    assert seen == [p.name for p in PHASES] * 2 + [PHASES[0].name]
    # Each loop is a new host: its disks' counters start again from zero at "healthy".
    assert crc == [float(p.crc_errors) for p in PHASES] * 2 + [0.0]
    expected = [(float(p.pending_sectors), float(p.reallocated_sectors)) for p in PHASES]
    assert media == expected * 2 + [(0.0, 0.0)]
    assert (8.0, 0.0) in media and (0.0, 8.0) in media  # pending, then reallocated
    assert sizes == sorted(sizes) and sizes[-1] > sizes[0]  # kern.log only grows


def test_a_late_tick_enters_every_phase_in_between(tmp_path: Path) -> None:
    """A tick after several phases appends each skipped phase's events and kernel lines."""
    late = DemoHost(phase_seconds=60, root=tmp_path / "late")
    steady = DemoHost(phase_seconds=60, root=tmp_path / "steady")
    try:
        last = len(PHASES) - 1
        late.tick(now=late.time_of(last) + 1)
        for index in range(1, last + 1):
            steady.tick(now=steady.time_of(index) + 1)
        assert late.phase == steady.phase == PHASES[last]
        for host in (late, steady):
            assert host.paths.root(KERN_LOG).stat().st_size > 0
        assert (late.root / "events.log").read_text().count("eid = ") == (
            steady.root / "events.log"
        ).read_text().count("eid = ")
        count = [h.paths.root(KERN_LOG).read_text().count("\n") for h in (late, steady)]
        assert count[0] == count[1]
    finally:
        late.stop()
        steady.stop()
