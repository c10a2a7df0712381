"""Event vdev labels follow zpool status names where the pool's vdevs are known."""

from __future__ import annotations

from zmon.collectors.zpool_events import relabel_vdevs


def test_whole_disk_partitions_take_the_status_name() -> None:
    names = {"tank": frozenset({"mirror-0", "ata-QEMU_HARDDISK_ZLSATA1", "sda3"}),
             "rz": frozenset({"raidz1-0", "vdc"})}  # fmt: skip
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
