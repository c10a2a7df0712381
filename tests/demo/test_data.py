"""The derived demo data: smartctl reports in smartctl's JSON shape, libata's messages, events."""

from __future__ import annotations

import json
import re

from zmon.demo.host import DATA
from zmon.demo.kernlog import SataDisk, cable_lines, media_lines, new_lines, syslog_lines
from zmon.demo.refresh import MIB, split_events, split_in_capture_order, with_demo_limits
from zmon.demo.smartdata import sata_report, version_text
from zmon.demo.timeline import PHASES, Phase
from zmon.parsers.kernel_log import PatternSet, default_rules, scan_text
from zmon.parsers.smartctl.smartctl import parse_smartctl, parse_version

SCENARIOS = DATA / "scenarios"
HEALTHY = SCENARIOS / PHASES[0].scenario
PHASE = {p.name: i for i, p in enumerate(PHASES)}


def _template() -> dict:  # type: ignore[type-arg]
    return json.loads((HEALTHY / "smartctl-a-j-sata0.json").read_text())


def test_sata_report_adds_the_missing_attributes_in_smartctl_shape() -> None:
    doc = sata_report(
        _template(),
        "/dev/sdb",
        "ZLSATA1",
        "smartctl --json=c --nocheck=standby --all -d sat /dev/sdb",
        crc_errors=27,
        link_gbps=1.5,
    )
    assert list(doc).index("interface_speed") == list(doc).index("ata_version") + 1
    assert doc["interface_speed"]["current"] == {
        "sata_value": 1,
        "string": "1.5 Gb/s",
        "units_per_second": 15,
        "bits_per_unit": 100000000,
    }
    assert doc["interface_speed"]["max"]["string"] == "6.0 Gb/s"
    ids = [row["id"] for row in doc["ata_smart_attributes"]["table"]]
    assert ids == sorted(ids) and {5, 197, 198, 199} <= set(ids)
    crc = next(r for r in doc["ata_smart_attributes"]["table"] if r["id"] == 199)
    assert crc["flags"]["string"] == "-O--CK " and crc["flags"]["event_count"] is True
    report = parse_smartctl(json.dumps(doc).encode())
    assert report.serial == "ZLSATA1" and report.device_name == "/dev/sdb"
    assert report.attribute(199).raw == 27  # type: ignore[union-attr]
    assert [report.attribute(i).raw for i in (5, 197, 198)] == [0, 0, 0]  # type: ignore[union-attr]
    assert report.interface_speed_current_bits == 1.5e9
    assert report.interface_speed_max_bits == 6.0e9


def test_sata_report_of_the_failing_disk_has_its_pending_and_reallocated_sectors() -> None:
    doc = sata_report(
        _template(),
        "/dev/sda",
        "ZLSATA0",
        "smartctl --json=c --nocheck=standby --all -d sat /dev/sda",
        pending_sectors=8,
        reallocated_sectors=3,
    )
    rows = {row["id"]: row for row in doc["ata_smart_attributes"]["table"]}
    assert rows[197]["raw"] == {"value": 8, "string": "8"}
    assert rows[5]["name"] == "Reallocated_Sector_Ct" and rows[5]["raw"]["value"] == 3
    report = parse_smartctl(json.dumps(doc).encode())
    assert [report.attribute(i).raw for i in (5, 197, 198, 199)] == [3, 8, 0, 0]  # type: ignore[union-attr]
    assert doc["interface_speed"]["current"]["string"] == "6.0 Gb/s"
    template = {row["id"]: row for row in _template()["ata_smart_attributes"]["table"]}
    assert template[5]["raw"]["value"] == 0  # the template is left as it was


def test_smartctl_version_text_is_7_3() -> None:
    text = version_text(_template())
    assert text.startswith("smartctl 7.3 2022-02-28 r5338 [x86_64-linux-6.1.0-57-amd64]")
    assert parse_version(text.encode()) == (7, 3)


def test_cable_lines_follow_the_crc_errors_and_the_link_speed() -> None:
    before = Phase("a", "x", 0, 0, 0, 0)
    after = Phase("b", "y", 0, 0, 0, 0, crc_errors=3, link_gbps=1.5)
    lines = cable_lines("ata2", before, after, 100.0)
    assert lines == cable_lines("ata2", before, after, 100.0)  # a refresh writes the same
    text = "\n".join(lines)
    assert text.index("limiting SATA link speed to 3.0 Gbps") < text.index(
        "limiting SATA link speed to 1.5 Gbps"
    )
    assert text.rstrip().endswith("ata2: EH complete")
    assert cable_lines("ata2", after, after, 0.0) == []  # no new errors, no messages
    events = scan_text(syslog_lines(text, boot_time=0.0, now=1000.0), PatternSet(default_rules()))
    crc = [e.device for e in events if e.pattern == "crc_error"]
    assert crc and set(crc) <= {"ata2", "ata2.00"}
    assert {e.pattern for e in events} >= {"crc_error", "link_reset", "ata_exception"}
    assert "ata_timeout" not in {e.pattern for e in events}


def test_media_lines_report_one_uncorrectable_read_per_8_pending_sectors() -> None:
    sda = SataDisk("sda", "0:0:0:0", "ata1")
    before = Phase("a", "x", 0, 0, 0, 0)
    after = Phase("b", "y", 0, 0, 0, 0, pending_sectors=16)
    lines = media_lines(sda, before, after, 100.0)
    assert lines == media_lines(sda, before, after, 100.0)  # a refresh writes the same
    text = "\n".join(lines)
    assert text.count("ata1.00: error: { UNC }") == 2 and text.count("ata1: EH complete") == 2
    assert media_lines(sda, after, after, 0.0) == []  # no new pending sectors, no messages
    assert media_lines(sda, after, before, 0.0) == []  # remapped: the disk says nothing
    # The block layer's sector is the failed read's LBA, as libata and the CDB give it.
    for cmd, cdb, io in zip(
        re.findall(r"cmd 60/08:..:(..):(..):(..)/", text),
        re.findall(r"CDB: Read\(10\) 28 00 (.. .. .. ..) 00 00 08 00", text),
        re.findall(r"dev sda, sector (\d+) ", text),
        strict=True,
    ):
        lba = int(io)
        assert int("".join(reversed(cmd)), 16) == lba == int(cdb.replace(" ", ""), 16)
        assert lba % 8 == 0 and 2048 + 8192 <= lba < 2048 + 2076672 - 1024  # in ZFS's data
    events = scan_text(syslog_lines(text, boot_time=0.0, now=1000.0), PatternSet(default_rules()))
    patterns: dict[str, set[str | None]] = {}
    for e in events:
        patterns.setdefault(e.pattern, set()).add(e.device)
    assert patterns == {
        "ata_exception": {"ata1.00"},
        "medium_error": {"ata1.00", "sda"},
        "io_error": {"sda"},
    }
    assert sum(e.pattern == "medium_error" for e in events) == 6  # UNC + 2 sense lines, twice


def test_new_lines_keep_only_what_the_previous_dmesg_lacks() -> None:
    assert new_lines("[ 1.0] a\n[ 2.0] b\n", "[ 1.0] a\n") == ["[ 2.0] b"]
    assert new_lines("[ 1.0] a\n", "[ 1.0] a\n[ 2.0] b\n") == []


def test_syslog_lines_keep_the_spacing_of_the_kernel_timestamps() -> None:
    out = syslog_lines("[  10.500000] x\n[  11.000000]  y\n", boot_time=0.0, now=100.0)
    first, second = out.splitlines()
    assert first.endswith("zfsvm kernel: [  100.000000] x")
    assert second.endswith("zfsvm kernel: [  100.500000]  y")


def _event(eid: int, cls: str) -> str:
    return f'Nov 30 2026 00:00:00.0 {cls}\n        class = "{cls}"\n        eid = {hex(eid)}\n\n'


def test_events_split_in_capture_order_whatever_the_loop_order() -> None:
    texts = {  # 04b is captured after 04, but its phase comes first in the loop
        "04b-b": "TIME CLASS\n" + "".join(_event(e, "c") for e in range(1, 9)),
        "01-a": "TIME CLASS\n" + "".join(_event(e, "c") for e in range(1, 4)),
        "04-a": "TIME CLASS\n" + "".join(_event(e, "c") for e in range(1, 7)),
    }
    new = {
        name: [eid for eid, _ in split_events(text)]
        for name, text in split_in_capture_order(texts).items()
    }
    assert new == {"01-a": [1, 2, 3], "04-a": [4, 5, 6], "04b-b": [7, 8]}


def _phase_events(phase: Phase) -> list[tuple[int, str]]:
    if not phase.new_events:  # a phase that replays its scenario again logs nothing new
        return []
    text = (DATA / "scenarios" / phase.scenario / "events-new.txt").read_text()
    return [
        (eid, re.search(r'class = "([^"]+)"', block).group(1))  # type: ignore[union-attr]
        for eid, block in split_events(text)
    ]


def test_every_recorded_event_is_replayed_once_a_loop() -> None:
    eids = [eid for phase in PHASES for eid, _ in _phase_events(phase)]
    assert len(eids) == len(set(eids))  # no event appended twice
    # Up to the degraded phase (where the lab's 512-event queue wrapped), none is lost.
    early = sorted(eid for p in PHASES[: PHASE["degraded"]] for eid, _ in _phase_events(p))
    assert early == list(range(1, early[-1] + 1))


def test_scrub_phases_log_a_scrub_start_then_a_scrub_finish() -> None:
    scrub = [cls for _, cls in _phase_events(PHASES[PHASE["scrub"]])]
    assert "sysevent.fs.zfs.scrub_start" in scrub
    assert "sysevent.fs.zfs.scrub_finish" not in scrub
    finished = [cls for _, cls in _phase_events(PHASES[PHASE["scrub-finished"]])]
    assert finished[-1] == "sysevent.fs.zfs.scrub_finish"


def test_the_demo_sets_one_quota_and_one_refquota_as_zfs_would_show_them() -> None:
    """The lab sets none; the quota panels and findings need one of each (refresh.py)."""
    props = {"used": "150", "referenced": "100", "available": "5000", "quota": "0"}
    quota = with_demo_limits("rz/data", {**props, "used": str(200 * MIB), "available": str(10**12)})
    assert quota["quota"] == str(256 * MIB) and quota["available"] == str(56 * MIB)
    ref = with_demo_limits("single/docs", props)
    assert ref["refquota"] == str(MIB) and ref["available"] == "5000"  # the pool's is less
    assert with_demo_limits("tank/data", props) == props
    rows = (SCENARIOS / "15-resilver-finished" / "derived-zfs-list-datasets.txt").read_text()
    limits = {r.split("\t")[0]: r.split("\t")[7:9] for r in rows.splitlines()}
    assert limits["rz/data"] == [str(256 * MIB), "0"]
    assert limits["single/docs"] == ["0", str(MIB)]
