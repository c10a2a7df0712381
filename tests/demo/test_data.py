"""The derived demo data: smartctl reports in smartctl's JSON shape, libata's messages."""

from __future__ import annotations

import json

from zmon.demo.host import DATA
from zmon.demo.kernlog import cable_lines, new_lines, syslog_lines
from zmon.demo.smartdata import sata_report, version_text
from zmon.demo.timeline import PHASES, Phase
from zmon.parsers.kernel_log import PatternSet, default_rules, scan_text
from zmon.parsers.smartctl import parse_smartctl, parse_version

HEALTHY = DATA / "scenarios" / PHASES[0].scenario


def _template() -> dict:  # type: ignore[type-arg]
    return json.loads((HEALTHY / "smartctl-a-j-sata0.json").read_text())


def test_sata_report_adds_the_missing_attributes_in_smartctl_shape() -> None:
    doc = sata_report(_template(), "/dev/sdb", "ZLSATA1",
                      "smartctl --json=c --nocheck=standby --all -d sat /dev/sdb",
                      crc_errors=27, link_gbps=1.5)  # fmt: skip
    assert list(doc).index("interface_speed") == list(doc).index("ata_version") + 1
    assert doc["interface_speed"]["current"] == {
        "sata_value": 1, "string": "1.5 Gb/s", "units_per_second": 15,
        "bits_per_unit": 100000000}  # fmt: skip
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
        "limiting SATA link speed to 1.5 Gbps")  # fmt: skip
    assert text.rstrip().endswith("ata2: EH complete")
    assert cable_lines("ata2", after, after, 0.0) == []  # no new errors, no messages
    events = scan_text(syslog_lines(text, boot_time=0.0, now=1000.0),
                       PatternSet(default_rules()))  # fmt: skip
    crc = [e.device for e in events if e.pattern == "crc_error"]
    assert crc and set(crc) <= {"ata2", "ata2.00"}
    assert {e.pattern for e in events} >= {"crc_error", "link_reset", "ata_exception"}
    assert "ata_timeout" not in {e.pattern for e in events}


def test_new_lines_keep_only_what_the_previous_dmesg_lacks() -> None:
    assert new_lines("[ 1.0] a\n[ 2.0] b\n", "[ 1.0] a\n") == ["[ 2.0] b"]
    assert new_lines("[ 1.0] a\n", "[ 1.0] a\n[ 2.0] b\n") == []


def test_syslog_lines_keep_the_spacing_of_the_kernel_timestamps() -> None:
    out = syslog_lines("[  10.500000] x\n[  11.000000]  y\n", boot_time=0.0, now=100.0)
    first, second = out.splitlines()
    assert first.endswith("zfsvm kernel: [  100.000000] x")
    assert second.endswith("zfsvm kernel: [  100.500000]  y")
