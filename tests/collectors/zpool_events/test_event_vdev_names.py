"""Event vdev labels follow zpool status names where the pool's vdevs are known."""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path

from tests.collectors.zpool_events.test_event_follower import CK, FAKE_ZPOOL, events
from tests.support.pool_lab import context
from tests.support.waiting import wait_for
from zmon.base.runner import CommandRunner, StaticRunner
from zmon.collecting.products import VDEV_NAMES
from zmon.collecting.registry import Board
from zmon.collecting.scheduler import Scheduler
from zmon.collectors.zpool import ZpoolCollector
from zmon.collectors.zpool_events import ZpoolEventsCollector, relabel_vdevs
from zmon.exposition.metrics import MetricSet
from zmon.host.devnames import zfs_whole_disk
from zmon.host.paths import Paths


def test_whole_disk_partitions_take_the_status_name() -> None:
    names = {
        "tank": frozenset({"mirror-0", "ata-QEMU_HARDDISK_ZLSATA1", "sda3"}),
        "rz": frozenset({"raidz1-0", "vdc"}),
    }
    counts = {
        ("tank", "ata-QEMU_HARDDISK_ZLSATA1-part1", "checksum"): 2,
        ("tank", "ata-QEMU_HARDDISK_ZLSATA1", "checksum"): 1,
        ("tank", "sda3", "io"): 4,  # a partition vdev keeps its own name
        ("rz", "vdc1", "io"): 5,
        ("rz", "", "scrub_start"): 1,
        ("other", "sdz1", "io"): 1,  # pool unknown to zpool status: basename as is
    }
    out = relabel_vdevs(counts, names)
    assert out[("tank", "ata-QEMU_HARDDISK_ZLSATA1", "checksum")] == 3
    assert out[("tank", "sda3", "io")] == 4
    assert out[("rz", "vdc", "io")] == 5
    assert out[("rz", "", "scrub_start")] == 1
    assert out[("other", "sdz1", "io")] == 1


# ---- the vdev-name product, end to end through the scheduler ----

ZPOOL_STATUS = b"""  pool: tank
 state: ONLINE
config:

\tNAME          STATE     READ WRITE CKSUM
\ttank          ONLINE       0     0     0
\t  mirror-0    ONLINE       0     0     0
\t    ata-DISK  ONLINE       0     0     2
\t    ata-MATE  ONLINE       0     0     0

errors: No known data errors
"""


class SlowZpool(ZpoolCollector):
    """The zpool collector, whose runs wait for ``gate`` (open unless a test closes it)."""

    gate = threading.Event()

    def collect(self) -> MetricSet:
        assert self.gate.wait(20)
        return super().collect()


class Recording(ZpoolEventsCollector):
    """The events collector, remembering the vdev label of every published run."""

    labels: list[set[str]]

    def collect(self) -> MetricSet:
        ms = super().collect()
        fam = [f for f in ms.families() if f.name == "zmon_zfs_events"]
        # counted events only: the zero-initialised series name every known vdev
        self.labels.append({s.labels["vdev"] for f in fam for s in f.samples if s.value})
        return ms


def run_both(tmp_path: Path, events_cls: type[Recording], gate: threading.Event) -> list[set[str]]:
    bindir = tmp_path / "bin"
    bindir.mkdir()
    script = bindir / "zpool"
    script.write_text(FAKE_ZPOOL.replace("{python}", sys.executable))
    script.chmod(0o755)
    (bindir / "plan.json").write_text(json.dumps([{"events": events(1, 2, CK), "then": "hang"}]))
    board = Board()
    status = StaticRunner(
        {
            ("zpool", "status", "-p", "-s", "-v"): ZPOOL_STATUS,
            ("zpool", "get", "-Hp", "guid"): b"tank\tguid\t123\t-\n",
        }
    )
    zpool_ctx = context(status, tmp_path, {"format": "text"})
    zpool_ctx.board = board
    events_ctx = context(
        CommandRunner(binaries={"zpool": str(script)}),
        tmp_path,
        {"backoff_max": 0.05, "startup_wait": 5.0},
    )
    events_ctx.board = board
    recording = events_cls(events_ctx)
    recording.labels = []
    scheduler = Scheduler()
    zpool = SlowZpool(zpool_ctx)
    zpool.gate = gate
    scheduler.add(zpool, interval=0.05, timeout=30)
    scheduler.add(recording, interval=0.05, timeout=10)
    scheduler.start()
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and len([x for x in recording.labels if x]) < 5:
            time.sleep(0.02)
    finally:
        scheduler.stop()
    return [x for x in recording.labels if x]


def test_event_vdev_label_is_the_status_name_from_the_first_run_on(tmp_path: Path) -> None:
    gate = threading.Event()
    gate.set()
    seen = run_both(tmp_path, Recording, gate)
    assert len(seen) >= 5
    assert all(labels == {"ata-DISK"} for labels in seen), seen


def test_without_the_declared_need_the_label_flips(tmp_path: Path) -> None:
    """What the declaration prevents: a reader that runs first labels with the basename.

    The zpool run is held until the events collector has published, which the scheduler
    allows only because this reader does not declare the vdev names it reads.
    """
    gate = threading.Event()

    class Undeclared(Recording):
        needs = ()

        def collect(self) -> MetricSet:
            self.ctx.needs = (VDEV_NAMES,)  # may read, but the scheduler does not wait for it
            ms = super().collect()
            if self.labels[-1]:
                gate.set()
            return ms

    seen = run_both(tmp_path, Undeclared, gate)
    assert seen[0] == {"ata-DISK-part1"} and seen[-1] == {"ata-DISK"}, seen


def context_paths(root: Path) -> Paths:
    return Paths(procfs=root / "noproc", sysfs=root / "nosys", rootfs=root, state_dir=root)


# ---- before zpool status answers: ZFS's own whole-disk layout names the disk


def _links(root: Path, *names: str) -> None:
    """/dev/disk/by-id links under a test root (targets need not exist)."""
    by_id = root / "dev" / "disk" / "by-id"
    by_id.mkdir(parents=True, exist_ok=True)
    for name in names:
        (by_id / name).symlink_to(f"../../{name.rsplit('-', 1)[0]}")


def test_a_whole_disk_has_its_status_name_before_zpool_status_answers(tmp_path: Path) -> None:
    """ZFS gives a whole disk partition 1 for data and reserves partition 9: such a
    partition is labelled as zpool status names the disk, with no name known yet. A
    partition the admin made (no partition 9 beside it) keeps its own name."""
    _links(tmp_path, "ata-X-part1", "ata-X-part9", "ata-Y-part3")
    (tmp_path / "dev" / "sdb9").touch()
    counts = {
        ("tank", "ata-X-part1", "checksum"): 2,
        ("tank", "ata-Y-part3", "io"): 1,
        ("tank", "sdb1", "io"): 3,
        ("tank", "sdp1", "io"): 4,  # sdp's partition 1, without a partition 9
    }
    out = relabel_vdevs(counts, {}, lambda name: zfs_whole_disk(name, context_paths(tmp_path)))
    assert out == {
        ("tank", "ata-X", "checksum"): 2,
        ("tank", "ata-Y-part3", "io"): 1,
        ("tank", "sdb", "io"): 3,
        ("tank", "sdp1", "io"): 4,
    }
    # the same names once zpool status answers
    names = {"tank": frozenset({"mirror-0", "ata-X", "ata-Y-part3", "sdb", "sdp1"})}
    assert relabel_vdevs(counts, names) == out


def test_the_collector_labels_the_disk_by_its_status_name_from_its_first_run(
    tmp_path: Path,
) -> None:
    """No zpool status yet (it hangs, or zmon just started): the event's ``ata-DISK-part1``
    is served as ``ata-DISK`` from the first sample, as it will be once zpool answers."""
    _links(tmp_path, "ata-DISK-part1", "ata-DISK-part9")
    bindir = tmp_path / "bin"
    bindir.mkdir()
    script = bindir / "zpool"
    script.write_text(FAKE_ZPOOL.replace("{python}", sys.executable))
    script.chmod(0o755)
    (bindir / "plan.json").write_text(json.dumps([{"events": events(1, 2, CK), "then": "hang"}]))
    ctx = context(
        CommandRunner(binaries={"zpool": str(script)}),
        tmp_path,
        {"backoff_max": 0.05, "startup_wait": 5.0},
    )
    c = ZpoolEventsCollector(ctx)
    try:
        c.start()
        wait_for(lambda: sum(c.counter.snapshot()[0].values()) == 2)
        ms = c.collect()
    finally:
        c.close()
    counted = {
        s.labels["vdev"]
        for f in ms.families()
        if f.name == "zmon_zfs_events"
        for s in f.samples
        if s.value
    }
    assert counted == {"ata-DISK"}
