"""The demo's story: a scrub with an estimate, a cable fault on sdb, media going bad on sda.

Each disk story is seen by SMART, the kernel log and the pool: sdb's link corrupts frames
(CRC errors, media clean), sda fails a read during the resilver (pending, then reallocated).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.demo.conftest import collect, make_collector
from tests.support.waiting import poll
from zmon.demo.host import KERN_LOG, DemoHost
from zmon.demo.timeline import PHASES
from zmon.exposition.metrics import MetricSet

PHASE = {p.name: i for i, p in enumerate(PHASES)}
STORY = tuple(p.name for p in PHASES)
SATA = ("sda", "sdb", "sdc", "sdd")
MEDIA = (
    "zmon_disk_reallocated_sectors",
    "zmon_disk_pending_sectors",
    "zmon_disk_offline_uncorrectable_sectors",
)
GBPS = 1e9 / 8  # bytes per second in one Gb/s


@pytest.fixture(scope="module")
def smart(tmp_path_factory: pytest.TempPathFactory) -> dict[str, MetricSet]:
    """The smart collector's metrics in each phase of the story."""
    out = {}
    for name in STORY:
        host = DemoHost(
            phase_seconds=60, root=tmp_path_factory.mktemp(name), first_phase=PHASE[name]
        )
        try:
            out[name] = collect(host, "smart")
        finally:
            host.stop()
    return out


def _crc(ms: MetricSet, device: str) -> float | None:
    return ms.sample_value("zmon_disk_crc_errors_total", {"device": device})


def test_crc_errors_of_sdb_climb_from_healthy_to_degraded(smart: dict[str, MetricSet]) -> None:
    values = [_crc(smart[name], "sdb") for name in STORY]
    assert values == [float(PHASES[PHASE[name]].crc_errors) for name in STORY]
    assert values[0] == 0 and values[STORY.index("degraded")] > values[0]
    assert values == sorted(values)  # a counter: it only climbs along the story


def test_sdb_link_runs_at_1_5_gbps_from_the_checksum_errors_on(
    smart: dict[str, MetricSet],
) -> None:
    for name in STORY:
        current = smart[name].sample_value("zmon_disk_interface_speed_bytes", {"device": "sdb"})
        maximum = smart[name].sample_value("zmon_disk_interface_max_speed_bytes", {"device": "sdb"})
        slow = PHASE[name] >= PHASE["checksum-errors"]
        assert current == pytest.approx((1.5 if slow else 6.0) * GBPS), name
        assert maximum == pytest.approx(6.0 * GBPS), name


def test_media_counters_stay_zero_on_every_disk_but_sda(smart: dict[str, MetricSet]) -> None:
    for name in STORY:
        for disk in ("sdb", "sdc", "sdd"):  # sdb's cable fault leaves its media clean
            for metric in MEDIA:
                assert smart[name].sample_value(metric, {"device": disk}) == 0, (name, disk)


def test_sda_sectors_go_pending_in_the_resilver_then_reallocated(
    smart: dict[str, MetricSet],
) -> None:
    def values(metric: str) -> list[float | None]:
        return [smart[name].sample_value(metric, {"device": "sda"}) for name in STORY]

    pending = [8.0 if name.startswith("resilvering") else 0.0 for name in STORY]
    # remapped in the resilvered phase, and so still in the slowdown that follows it
    reallocated = [8.0 if name in ("resilvered", "slowdown") else 0.0 for name in STORY]
    assert values("zmon_disk_pending_sectors") == pending
    assert values("zmon_disk_reallocated_sectors") == reallocated
    assert values("zmon_disk_offline_uncorrectable_sectors") == [0.0] * len(STORY)
    assert pending == [float(p.pending_sectors) for p in PHASES]
    assert reallocated == [float(p.reallocated_sectors) for p in PHASES]


def _scrub_phase_zpool(tmp_path: Path, **options: object) -> MetricSet:
    host = DemoHost(phase_seconds=60, root=tmp_path / "host", first_phase=PHASE["scrub"])
    try:
        return collect(host, "zpool", **options)
    finally:
        host.stop()


def test_scrub_phase_text_gives_the_estimated_time_to_go(tmp_path: Path) -> None:
    ms = _scrub_phase_zpool(tmp_path, format="text")
    tank = {"pool": "tank"}
    assert ms.sample_value("zmon_pool_scan_in_progress", {**tank, "function": "scrub"}) == 1
    assert ms.sample_value("zmon_pool_scan_remaining_seconds", tank) == 1  # "00:00:01 to go"
    source = {"format": "text", "args": "-p -s -v"}  # the first text form zmon tries
    assert ms.sample_value("zmon_zpool_status_source_info", source) == 1


def test_scrub_phase_json_gives_the_estimated_time_to_go(tmp_path: Path) -> None:
    ms = _scrub_phase_zpool(tmp_path)  # zmon's default on OpenZFS 2.3: JSON
    tank = {"pool": "tank"}
    assert ms.sample_value("zmon_pool_scan_in_progress", {**tank, "function": "scrub"}) == 1
    assert ms.sample_value("zmon_pool_scan_remaining_seconds", tank) is not None


def test_other_disks_stay_clean_and_every_disk_answers(smart: dict[str, MetricSet]) -> None:
    for name in STORY:
        ms = smart[name]
        for disk in ("sda", "sdc", "sdd"):
            assert _crc(ms, disk) == 0, (name, disk)
            assert ms.sample_value(
                "zmon_disk_interface_speed_bytes", {"device": disk}
            ) == pytest.approx(6.0 * GBPS)
        for disk in (*SATA, "nvme0n1", "nvme1n1"):
            assert ms.sample_value("zmon_disk_smart_up", {"device": disk}) == 1, (name, disk)
            assert ms.sample_value("zmon_disk_smart_passed", {"device": disk}) == 1
        for disk in ("nvme0n1", "nvme1n1"):
            assert ms.sample_value("zmon_disk_nvme_media_errors_total", {"device": disk}) == 0
        assert ms.sample_value("zmon_disk_info", {"device": "nvme1n1", "serial": "ZLNVME1"}) == 1


def test_kernel_log_counts_crc_errors_on_sdb_by_the_degraded_phase(tmp_path: Path) -> None:
    host = DemoHost(phase_seconds=60, root=tmp_path / "host")
    collector = make_collector(host, "kernel_log", one_shot=False)
    try:
        collector.start()
        key = {"pattern": "crc_error", "device": "sdb"}
        assert not collector.collect().sample_value("zmon_kernel_log_events_total", key)
        host.tick(now=host.time_of(PHASE["degraded"]) + 1.0)
        assert host.phase.name == "degraded"

        def counted() -> MetricSet | None:
            ms = collector.collect()
            return ms if ms.sample_value("zmon_kernel_log_events_total", key) else None

        ms = poll(counted, timeout=120)
        assert ms is not None, "no crc_error for sdb in the kernel log"
        for pattern in ("crc_error", "link_reset", "ata_exception"):
            assert ms.sample_value(
                "zmon_kernel_log_events_total", {"pattern": pattern, "device": "sdb"}
            ), pattern
        devices = {
            s.labels.get("device")
            for f in ms.families()
            for s in f.samples
            if s.name == "zmon_kernel_log_events_total" and s.value
        }
        assert devices == {"sdb"}  # every libata line was attributed through the device map
    finally:
        collector.close()
        host.stop()


def _kernel_events(ms: MetricSet, device: str) -> dict[str, float]:
    """pattern -> count of the kernel_log collector's events for ``device``."""
    samples = [
        s for f in ms.families() for s in f.samples if s.name == "zmon_kernel_log_events_total"
    ]
    return {
        s.labels["pattern"]: s.value for s in samples if s.labels["device"] == device and s.value
    }


def test_kernel_log_counts_medium_errors_on_sda_by_the_resilvering_phase(tmp_path: Path) -> None:
    host = DemoHost(phase_seconds=60, root=tmp_path / "host")
    collector = make_collector(host, "kernel_log", one_shot=False)
    try:
        collector.start()
        key = {"pattern": "medium_error", "device": "sda"}
        host.tick(now=host.time_of(PHASE["resilvering"] - 1) + 1.0)
        assert poll(
            lambda: collector.collect().sample_value(
                "zmon_kernel_log_events_total", {"pattern": "crc_error", "device": "sdb"}
            ),
            timeout=120,
        )
        assert not collector.collect().sample_value("zmon_kernel_log_events_total", key)
        host.tick(now=host.time_of(PHASE["resilvering"]) + 1.0)
        assert host.phase.name == "resilvering"

        def counted() -> MetricSet | None:
            ms = collector.collect()
            return ms if ms.sample_value("zmon_kernel_log_events_total", key) else None

        ms = poll(counted, timeout=120)
        assert ms is not None, "no medium_error for sda in the kernel log"
        # One failed read: libata's UNC, the Medium Error sense key and its additional sense
        # are medium errors; the block layer's line an I/O error; libata's report an exception.
        assert _kernel_events(ms, "sda") == {"medium_error": 3, "io_error": 1, "ata_exception": 1}
        sdb = set(_kernel_events(ms, "sdb"))
        assert sdb == {"crc_error", "link_reset", "ata_exception"}  # the cable, not the media
    finally:
        collector.close()
        host.stop()


def test_kern_log_lines_are_syslog_lines(tmp_path: Path) -> None:
    host = DemoHost(phase_seconds=60, root=tmp_path / "host", first_phase=PHASE["resilvering"])
    try:
        lines = host.paths.root(KERN_LOG).read_text().splitlines()
    finally:
        host.stop()
    prefix = re.compile(r"^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d zfsvm kernel: \[ *\d+\.\d{6}\] ")
    assert lines and all(prefix.match(line) for line in lines), lines[:3]
    text = "\n".join(lines)
    assert "ata2: SError: { UnrecovData 10B8B BadCRC }" in text
    assert "ata2.00: error: { ICRC ABRT }" in text
    assert "ata2: limiting SATA link speed to 1.5 Gbps" in text
    assert "ata2: SATA link up 1.5 Gbps (SStatus 113 SControl 310)" in text
    assert " nvme0n1: p1 p9" in text  # the real dmesg line new in the resilvering phase
    assert "ata1.00: failed command: READ FPDMA QUEUED" in text
    assert re.search(r" res 41/40:08:\S+/40 Emask 0x409 \(media error\) <F>$", text, re.M)
    assert "ata1.00: error: { UNC }" in text
    assert "sd 0:0:0:0: [sda] tag#" in text and "Sense Key : Medium Error [current]" in text
    assert re.search(r"I/O error, dev sda, sector \d+ op 0x0:\(READ\) flags 0x700", text)
    uptimes = [float(re.search(r"\[ *(\d+\.\d+)\]", line).group(1)) for line in lines]  # type: ignore[union-attr]
    assert uptimes == sorted(uptimes)


def test_vdev_info_joins_sdb_to_pool_tank(tmp_path: Path) -> None:
    host = DemoHost(phase_seconds=60, root=tmp_path / "host", first_phase=PHASE["degraded"])
    try:
        ms = collect(host, "zpool")
    finally:
        host.stop()
    vdev = "ata-QEMU_HARDDISK_ZLSATA1"
    assert ms.sample_value("zmon_vdev_info", {"pool": "tank", "vdev": vdev, "device": "sdb"}) == 1
    assert (
        ms.sample_value("zmon_vdev_state", {"pool": "tank", "vdev": vdev, "state": "offline"}) == 1
    )


@pytest.mark.parametrize(("phase", "on_battery"), [("healthy", False), ("degraded", True)])
def test_ups_goes_on_battery_while_the_pool_is_degraded(
    tmp_path: Path, phase: str, on_battery: bool
) -> None:
    host = DemoHost(root=tmp_path / "host", first_phase=PHASE[phase], stepped=True)
    host.start()  # the demo UPS server; a stepped host stays in its phase however long this takes
    try:
        ms = collect(host, "ups")
    finally:
        host.stop()
    status = {
        flag: ms.sample_value("zmon_ups_status", {"ups": "demo-ups", "flag": flag})
        for flag in ("OL", "OB")
    }
    assert status == ({"OL": 0, "OB": 1} if on_battery else {"OL": 1, "OB": 0})
