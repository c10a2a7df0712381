"""Diagnoses that reason across findings, over what zmon served in the lab VM (OpenZFS 2.3.2,
tests/fixtures/lab): a failing disk that a resilver still needs, a resilver on battery, and an
offline disk whose cable is at fault. Each capture gets only the lines of the one fact the lab
could not stage (a pending sector, a power cut, CRC errors on a virtual disk)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.status.helpers import families
from zmon.status.page import render_html
from zmon.status.report import build_report
from zmon.status.terminal import render_text

LAB = Path(__file__).resolve().parents[1] / "fixtures" / "lab" / "2.3.2"
# 09: tank's mirror-0 is sda and replacing-1 (sdb, the old disk, onto nvme0n1), resilvering
RESILVER = "09-resilver-in-progress"
# 07: tank's sdb (ata-QEMU_HARDDISK_ZLSATA1) was taken offline
OFFLINE = "07-degraded-offline"


def lab(step: str, *extra: str, replace: tuple[tuple[str, str], ...] = ()) -> dict:  # type: ignore[type-arg]
    text = (LAB / step / "metrics.prom").read_text()
    for old, new in replace:
        assert old in text, old
        text = text.replace(old, new)
    now = max(
        float(v)
        for v in re.findall(
            r"^zmon_collector_last_success_timestamp_seconds\{[^}]*\} (\S+)$", text, re.M
        )
    )
    return build_report(families(text + "".join(extra)), now, host="lab")


def rules(report: dict) -> list[str]:  # type: ignore[type-arg]
    """The rules of the report's findings and notes."""
    return [f["rule"] for f in report["findings"] + report["notes"]]


def only(report: dict, rule: str) -> dict:  # type: ignore[type-arg]
    (found,) = [f for f in report["findings"] if f["rule"] == rule]
    return found


PENDING_SDA = 'zmon_disk_pending_sectors{device="sda"} 8\n'
ON_BATTERY = (
    ('zmon_ups_status{flag="OL",server="10.0.2.2:51569",ups="labups"} 1.0',
     'zmon_ups_status{flag="OL",server="10.0.2.2:51569",ups="labups"} 0.0'),
    ('zmon_ups_status{flag="OB",server="10.0.2.2:51569",ups="labups"} 0.0',
     'zmon_ups_status{flag="OB",server="10.0.2.2:51569",ups="labups"} 1.0'),
)  # fmt: skip


def test_a_failing_disk_holding_the_last_good_copy_is_critical_and_must_stay() -> None:
    """sdb is leaving (replacing-1), nvme0n1 is being written: sda is the only copy read."""
    report = lab(RESILVER, PENDING_SDA)
    source = only(report, "resilver_source_failing")
    assert source["severity"] == "critical" and report["exit_code"] == 2
    assert source["alert"] == "ZfsResilverSourceFailing"
    assert source["alert_labels"] == {
        "pool": "tank", "vdev": "ata-QEMU_HARDDISK_ZLSATA0", "device": "sda"}  # fmt: skip
    assert source["subject"] == "sda (serial ZLSATA0, mirror-0 of tank)"
    assert source["evidence"].startswith(
        "8 sectors pending, and it holds the only good copy of mirror-0 while tank resilvers ("
    )
    assert source["action"] == (
        "do not pull it or take it offline; let the resilver finish, then replace it "
        "(zpool replace tank ata-QEMU_HARDDISK_ZLSATA0 <new-disk-by-id>)"
    )
    # one finding for the disk, none saying "replace the disk" now
    assert "media_failing" not in rules(report)
    assert "resilver_running" not in rules(report)
    assert not any("replace the disk" in f["action"] for f in report["findings"])


def test_a_resilver_of_healthy_disks_is_a_note_that_names_no_alert() -> None:
    report = lab(RESILVER)
    (note,) = [n for n in report["notes"] if n["rule"] == "resilver_running"]
    assert "alert" not in note and "severity" not in note
    assert note["subject"] == "resilver of tank" and "started 45 s ago" in note["evidence"]
    assert "resilver_running" not in [f["rule"] for f in report["findings"]]
    assert all(f["alert"] and f["severity"] for f in report["findings"])
    text = render_text(report)
    assert "\nNotes\n" in text and note["evidence"] in text
    assert "id='notes'" in render_html(report, "lab") and note["evidence"] in text


def test_the_same_pending_sectors_without_a_resilver_say_replace_it() -> None:
    report = lab("01-healthy", PENDING_SDA)
    media = only(report, "media_failing")
    assert media["action"] == "replace the disk before another one in its vdev fails"
    assert "resilver_source_failing" not in rules(report)


def test_a_failing_disk_being_replaced_is_left_to_the_resilver() -> None:
    report = lab(RESILVER, 'zmon_disk_smart_passed{device="sdb"} 0\n')
    assert "resilver_source_failing" not in rules(report)
    failed = only(report, "smart_failed")
    assert failed["action"] == (
        "it is being replaced (replacing-1 of tank): let the resilver finish; ZFS detaches "
        "ata-QEMU_HARDDISK_ZLSATA1 when it is done"
    )


def test_a_resilver_on_battery_is_one_finding() -> None:
    report = lab(RESILVER, replace=ON_BATTERY)
    assert "ups_on_battery" not in rules(report)
    assert "resilver_running" not in rules(report)
    found = only(report, "resilver_on_battery")
    assert found["subject"] == "resilver of tank on battery"
    assert found["evidence"].startswith("UPS labups on battery")
    assert "; the resilver is " in found["evidence"]
    assert found["labels"] == {"pool": "tank", "ups": "labups"}


def test_on_battery_without_a_resilver_stays_the_ups_finding() -> None:
    report = lab("01-healthy", replace=ON_BATTERY)
    assert "ups_on_battery" in rules(report)
    assert "resilver_on_battery" not in rules(report)


def test_an_offline_disk_and_its_cable_fault_are_one_finding() -> None:
    report = lab(
        OFFLINE,
        'zmon_disk_crc_errors_total{device="sdb"} 27\n'
        'zmon_kernel_log_events_total{device="sdb",pattern="link_reset"} 8\n',
    )
    assert "cable_fault" not in rules(report)
    degraded = only(report, "pool_degraded")
    assert degraded["evidence"] == (
        "ata-QEMU_HARDDISK_ZLSATA1 (sdb) is OFFLINE; its link shows 27 CRC errors and "
        "8 link resets, media clean"
    )
    assert degraded["action"] == (
        "reseat or replace the cable of sdb (or move it to another port), then zpool online "
        "tank ata-QEMU_HARDDISK_ZLSATA1"
    )


def test_an_offline_disk_with_a_clean_link_gets_online_or_replace_advice() -> None:
    degraded = only(lab(OFFLINE), "pool_degraded")
    assert degraded["action"] == (
        "bring ata-QEMU_HARDDISK_ZLSATA1 back (zpool online tank ata-QEMU_HARDDISK_ZLSATA1) or "
        "replace it (zpool replace tank ata-QEMU_HARDDISK_ZLSATA1 <new-disk-by-id>)"
    )


def test_a_removed_disk_and_the_spare_standing_in_are_one_finding_with_both_ways_out() -> None:
    report = lab("13-device-removed")
    assert "spare_in_use" not in rules(report)
    (degraded,) = [
        f for f in report["findings"] if f["rule"] == "pool_degraded" and "tank" in f["subject"]
    ]
    assert degraded["evidence"] == (
        "ata-QEMU_HARDDISK_ZLSATA0 is REMOVED, hot spare ata-QEMU_HARDDISK_ZLSATA2 stands in "
        "(spare-0)"
    )
    assert degraded["action"] == (
        "replace ata-QEMU_HARDDISK_ZLSATA0 (zpool replace tank ata-QEMU_HARDDISK_ZLSATA0 "
        "<new-disk-by-id>): the spare goes back to the spares when that resilver finishes; or "
        "keep the spare in its place (zpool detach tank ata-QEMU_HARDDISK_ZLSATA0)"
    )


def test_a_spare_in_use_names_the_disk_it_stands_in_for() -> None:
    spare = only(lab("12-spare-in-use"), "spare_in_use")
    assert spare["evidence"] == "hot spare INUSE for nvme-QEMU_NVMe_Ctrl_ZLNVME0"
    assert spare["action"].startswith(
        "replace nvme-QEMU_NVMe_Ctrl_ZLNVME0 (zpool replace tank nvme-QEMU_NVMe_Ctrl_ZLNVME0 "
        "<new-disk-by-id>)"
    )
