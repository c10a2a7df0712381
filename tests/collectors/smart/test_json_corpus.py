"""Real smartctl JSON documents of SAS, NVMe and MegaRAID disks give the facts of their
EXPECTED.md."""

from __future__ import annotations

import pytest

from tests.helpers import fixture_path
from tests.support.expected import load_expected
from zmon.parsers.smartctl.smartctl import check_status, parse_smartctl

DIR = fixture_path("disks", "json")
EXPECTED = load_expected(DIR / "EXPECTED.md")
NVME = ("percentage_used", "media_errors", "error_log_entries", "unsafe_shutdowns",
        "available_spare")  # fmt: skip


def test_every_document_has_facts():
    assert sorted(p.name for p in DIR.glob("*.json")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_document_gives_its_facts(name):
    facts = EXPECTED[name]
    r = parse_smartctl((DIR / name).read_bytes())
    assert check_status(r) == "ok"
    assert r.device_type == facts["type"]
    assert r.model == facts["model"]
    if "serial" in facts:
        assert r.serial == facts["serial"]
    if "version" in facts:
        assert r.smartctl_version == facts["version"]
    assert r.passed is (facts["passed"] == "true")
    assert r.temperature_celsius == float(facts["temperature"])
    assert r.power_on_seconds is not None
    assert r.power_on_seconds // 3600 == int(facts["power_on_hours"])
    if "exit_status" in facts:
        assert r.exit_status == int(facts["exit_status"])
    if "grown_defects" in facts:
        assert r.scsi is not None
        assert r.scsi.grown_defects == int(facts["grown_defects"])
        assert r.scsi.trip_temperature == float(facts["trip"])
        read = r.scsi.counters["read"]
        assert (read.corrected, read.uncorrected) == (
            int(facts["read_corrected"]),
            int(facts["read_uncorrected"]),
        )
    for field in NVME:
        if f"nvme_{field}" in facts:
            assert r.nvme is not None
            assert getattr(r.nvme, field) == int(facts[f"nvme_{field}"]), field
    for key, value in facts.items():
        if key.startswith("ata_raw_"):
            attr = r.attribute(int(key.removeprefix("ata_raw_")))
            assert attr is not None and attr.raw == float(value), key


def test_trimmed_document_needs_the_device_object():
    """Without ``smartctl``, ``json_format_version`` or a full ``device`` object, a JSON
    document is not smartctl's."""
    from zmon.base.errors import ParseError

    with pytest.raises(ParseError):
        parse_smartctl(b'{"device": {"name": "/dev/sda"}, "temperature": {"current": 30}}')
