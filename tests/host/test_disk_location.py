"""Where a disk is: serial, WWN, by-id link, enclosure slot and the locate command, from a
static sysfs tree of a SAS JBOD host (an expander with an SES enclosure), of a desktop with
AHCI ports and no enclosure, and from FreeBSD's ``sesutil map``; then as ``zmon status``
names the disk."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import fixture_path
from tests.status.helpers import NOW, families, pool_text
from tests.support.disks import fixture_bytes, host_paths, make_ctx
from zmon.base.errors import ParseError
from zmon.collectors.devices import device_map_metrics
from zmon.exposition.formats import render
from zmon.host.devices import DeviceMap
from zmon.parsers.disks.sesutil import parse_sesutil_map, slots_by_disk
from zmon.status.diagnoses import Evidence, Finding, diagnose
from zmon.status.model import read_model
from zmon.status.page import render_html
from zmon.status.report import build_report
from zmon.status.terminal import render_text

JBOD = fixture_path("disks", "jbod-host")
AHCI = fixture_path("disks", "ahci-host")


def _host_fixture(name: str, root: Path) -> Callable[[], DeviceMap]:
    """A module-scoped fixture ``name``: the device map of the fixture host tree ``root``."""

    @pytest.fixture(scope="module", name=name)
    def device_map() -> DeviceMap:
        return DeviceMap.build(host_paths(root))

    return device_map


jbod = _host_fixture("jbod", JBOD)
ahci = _host_fixture("ahci", AHCI)


def test_the_fixture_trees_are_sysfs_shaped() -> None:
    assert (JBOD / "sys" / "class" / "enclosure" / "0:0:12:0").is_symlink()
    assert (JBOD / "sys" / "class" / "enclosure" / "0:0:12:0" / "Slot01" / "device").is_symlink()
    assert not (AHCI / "sys" / "class" / "enclosure").exists()


def test_disks_in_enclosure_slots(jbod: DeviceMap) -> None:
    where = {d.name: (d.enclosure, d.slot, d.scsi_address) for d in jbod.disks()}
    assert where == {
        "sda": ("0:0:12:0", "Slot00", "0:0:0:0"),
        "sdb": ("0:0:12:0", "Slot01", "0:0:1:0"),
        "sdc": ("0:0:12:0", "Slot02", "0:0:2:0"),
        "sdd": ("0:0:12:0", "Slot03", "0:0:3:0"),
    }
    sdb = jbod.get("sdb")
    assert sdb is not None
    assert (sdb.serial, sdb.wwn, sdb.preferred_by_id) == (
        "ZA1ABC02",
        "0x5000c500a1b2c302",
        "scsi-SSEAGATE_ST8000NM0075_ZA1ABC02",
    )
    assert sdb.enclosure_slot == "0:0:12:0/Slot01"
    assert sdb.locate_command == "ledctl locate=/dev/sdb"
    # a SATA disk behind the expander: udev's full model and serial
    sdc = jbod.get("sdc")
    assert sdc is not None and (sdc.transport, sdc.serial) == ("sata", "7JG1ABCD")


def test_disks_without_an_enclosure_have_no_slot_and_no_locate(ahci: DeviceMap) -> None:
    for d in ahci.disks():
        assert (d.enclosure, d.slot, d.locate_command) == (None, None, None)
    sdb = ahci.get("sdb")
    assert sdb is not None
    assert (sdb.serial, sdb.wwn, sdb.ata_device) == ("WD-CA0ABC34", "0x5000cca0bc114455", "ata2.00")
    assert "pci-0000:00:17.0-ata-2.0" in sdb.by_path


def test_location_info_one_series_per_disk(jbod: DeviceMap, ahci: DeviceMap, golden) -> None:  # type: ignore[no-untyped-def]
    ms = device_map_metrics(jbod)
    golden("disks/location-jbod.prom", render(ms.families()))
    assert (
        ms.sample_value(
            "zmon_disk_location_info",
            {
                "device": "sdb",
                "serial": "ZA1ABC02",
                "wwn": "0x5000c500a1b2c302",
                "by_id": "scsi-SSEAGATE_ST8000NM0075_ZA1ABC02",
                "by_path": "pci-0000:03:00.0-sas-exp0x500304801f0a3b7f-phy1-lun-0",
                "enclosure": "0:0:12:0",
                "slot": "Slot01",
                "locate": "ledctl locate=/dev/sdb",
            },
        )
        == 1
    )
    plain = device_map_metrics(ahci)
    assert (
        plain.sample_value(
            "zmon_disk_location_info",
            {"device": "sda", "serial": "WD-CA0ABC12", "enclosure": "", "slot": "", "locate": ""},
        )
        == 1
    )
    for m in (ms, plain):
        series = [s for f in m.families() if f.name == "zmon_disk_location_info" for s in f.samples]
        assert len(series) == m.sample_value("zmon_disk_devices")


def test_location_info_obeys_the_device_cap(jbod: DeviceMap) -> None:
    ms = device_map_metrics(jbod, limit=2)
    series = [s for f in ms.families() if f.name == "zmon_disk_location_info" for s in f.samples]
    assert len(series) == 2


# ---- FreeBSD


def test_sesutil_map() -> None:
    elements = parse_sesutil_map(fixture_bytes("freebsd", "sesutil-map.txt").decode())
    assert len(elements) == 11
    overall = elements[0]
    assert (overall.enclosure, overall.element, overall.status, overall.disk) == (
        "ses0",
        0,
        "Unsupported",
        None,
    )
    slot = slots_by_disk(elements)["da0"]
    assert (slot.slot, slot.status, slot.device_names) == ("Slot05", "OK", ("da0", "pass2"))
    assert slot.enclosure_name == "LSI SAS3x28 0601"
    # a slot whose disk has no da periph (pass only) and sensors hold no disk
    assert set(slots_by_disk(elements)) == {"da0"}


def test_sesutil_map_bad_input() -> None:
    assert parse_sesutil_map("") == []
    with pytest.raises(ParseError, match="line 1"):
        parse_sesutil_map("Element 0, Type: Array Device Slot\n")
    with pytest.raises(ParseError, match="line 3"):
        parse_sesutil_map("ses0:\n\tElement 1, Type: Array Device Slot\n\tgarbage\n")


def test_sesutil_element_without_a_description_is_named_by_its_number() -> None:
    (e,) = parse_sesutil_map("ses1:\n Element 4, Type: Device Slot\n  Device Names: da7\n")
    assert (e.disk, e.slot) == ("da7", "element 4")


def test_freebsd_map_joins_sesutil_slots() -> None:
    responses = {
        ("geom", "disk", "list"): fixture_bytes("freebsd", "geom-disk-list.txt"),
        ("camcontrol", "devlist", "-v"): fixture_bytes("freebsd", "camcontrol-devlist-v.txt"),
        ("sesutil", "map"): fixture_bytes("freebsd", "sesutil-map.txt"),
    }
    m = make_ctx(responses, platform="freebsd").device_map()
    da0 = m.get("da0")
    assert da0 is not None
    assert (da0.enclosure, da0.slot, da0.locate_command) == (
        "ses0",
        "Slot05",
        "sesutil locate da0 on",
    )
    ada0 = m.get("ada0")
    assert ada0 is not None and ada0.locate_command is None


def test_freebsd_map_without_sesutil_still_has_its_disks() -> None:
    responses = {("geom", "disk", "list"): fixture_bytes("freebsd", "geom-disk-list.txt")}
    m = make_ctx(responses, platform="freebsd").device_map()
    assert [d.name for d in m.disks()] == ["ada0", "ada1", "da0", "da1", "nda0"]
    assert all(d.slot is None for d in m.disks())


# ---- as zmon status names the disk


def findings_of(text: str, rule: str) -> list[Finding]:
    return [f for f in diagnose(Evidence(read_model(families(text)), NOW)) if f.rule == rule]


def test_a_disk_diagnosis_names_serial_wwn_and_slot(jbod: DeviceMap) -> None:
    served = render(device_map_metrics(jbod).families()).decode()
    text = served + pool_text(disks=("sda", "sdb")) + 'zmon_disk_pending_sectors{device="sdb"} 8\n'
    (f,) = findings_of(text, "media_failing")
    assert f.subject == (
        "sdb (serial ZA1ABC02, WWN 0x5000c500a1b2c302, enclosure 0:0:12:0 Slot01, mirror-0 of tank)"
    )
    assert f.locate == "ledctl locate=/dev/sdb"
    assert f.action.endswith("; find it by its slot LED: ledctl locate=/dev/sdb")


def test_a_disk_without_a_slot_is_named_by_serial_wwn_and_port(ahci: DeviceMap) -> None:
    served = render(device_map_metrics(ahci).families()).decode()
    text = served + pool_text(disks=("sda", "sdb")) + 'zmon_disk_smart_passed{device="sdb"} 0\n'
    (f,) = findings_of(text, "smart_failed")
    assert f.subject == "sdb (serial WD-CA0ABC34, WWN 0x5000cca0bc114455, ata2, mirror-0 of tank)"
    assert f.locate == "" and "slot LED" not in f.action


def test_a_vdev_named_by_id_does_not_repeat_the_serial(jbod: DeviceMap) -> None:
    served = render(device_map_metrics(jbod).families()).decode()
    vdev = "scsi-SSEAGATE_ST8000NM0075_ZA1ABC02"
    text = (
        served
        + pool_text(disks=("sda", "sdb")).replace('vdev="sdb"', f'vdev="{vdev}"')
        + (f'zmon_vdev_checksum_errors_total{{class="normal",pool="tank",vdev="{vdev}"}} 4\n')
    )
    (f,) = findings_of(text, "checksum_errors")
    assert f.subject == (
        f"{vdev} (sdb, WWN 0x5000c500a1b2c302, enclosure 0:0:12:0 Slot01, mirror-0 of tank)"
    )


def test_the_report_page_and_text_show_where_each_disk_is(jbod: DeviceMap) -> None:
    served = render(device_map_metrics(jbod).families()).decode()
    report = build_report(families(served + pool_text(disks=("sda", "sdb"))), NOW, host="jbod")
    sdb = next(d for d in report["disks"] if d["device"] == "sdb")
    assert (sdb["where"], sdb["locate"], sdb["wwn"]) == (
        "enclosure 0:0:12:0 Slot01",
        "ledctl locate=/dev/sdb",
        "0x5000c500a1b2c302",
    )
    assert "ST8000NM0075 ZA1ABC02 (enclosure 0:0:12:0 Slot01) [tank]" in render_text(report)
    page = render_html(report, "jbod")
    assert "<td title='ledctl locate=/dev/sdb'>enclosure 0:0:12:0 Slot01</td>" in page
