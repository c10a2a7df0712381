"""Hermetic checks of the lead-time ramp (tests/lab/leadtime.py, guest/leadtime.sh, guest/ramp.py):
the steps match the guest script, the lead times are computed and printed from the facts the
guest publishes, the paging rule's unscaled `for:` is read from the rendered rules, and the
guest's parsers read real `zpool status` output and ZED's mail log."""

from __future__ import annotations

import importlib.util
import re
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

from alert_rules import generate
from tests.lab import checks, leadtime
from tests.lab.leadtime import LeadTime, page_for, seconds

GUEST = Path(__file__).resolve().parent / "guest"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "lab"

# What guest/ramp.py prints for a ramp where zmon paged 4 s before ZED faulted the vdev.
FACTS = {
    "step": leadtime.FAULTED,
    "guest_time": "1000090.000",
    "ramp_start": "1000000.000",
    "ramp_levels": "1@1000000.000,2@1000015.000,5@1000030.000",
    "faulted_at": "1000040.500",
    "fault_pct": "5",
    "errors_at_fault": "0/11/0",
    "io_ereports_at_fault": "11",
    "page_at": "1000036.500",
    "page_alert": "ZfsPoolFaulted",
    "mail_at": "1000020.000",
    "mail_subject": "ZFS resilver_finish event for rz on zmonlab",
    "fault_mail_at": "1000041.000",
    "alert.firing.ZfsPoolFaulted": "critical 1000036.500",
}


def guest_ramp() -> ModuleType:
    spec = importlib.util.spec_from_file_location("lab_guest_ramp", GUEST / "ramp.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_steps_match_the_guest_script() -> None:
    script = (GUEST / "leadtime.sh").read_text()
    assert tuple(re.findall(r"^ready (\S+)", script, re.M)) == leadtime.STEPS
    for row in (*leadtime.CHECKS, *leadtime.ALERTS):
        assert set(row.steps) <= set(leadtime.STEPS), row


def test_durations() -> None:
    assert seconds("1m") == 60 and seconds("2s") == 2 and seconds("1h30m") == 5400
    assert seconds("500ms") == 0.5
    with pytest.raises(ValueError):
        seconds("1 minute")


def test_the_paging_rules_for_is_read_from_the_rendered_rules() -> None:
    full, scaled = generate.render(), generate.render(scale=checks.ALERT_SCALE)
    assert page_for(full, "ZfsPoolFaulted") == 60
    assert page_for(scaled, "ZfsPoolFaulted") == pytest.approx(60 * checks.ALERT_SCALE, abs=1)
    with pytest.raises(KeyError):
        page_for(full, "NoSuchAlert")


def test_lead_times_from_the_guests_facts() -> None:
    lead = LeadTime.from_facts("2.3.2", FACTS)
    assert lead.page_lead == pytest.approx(4.0)
    assert lead.mail_lead == pytest.approx(20.5)
    assert lead.fault_mail_lead == pytest.approx(-0.5)
    # with the rule's full for: (60 s instead of the lab's 2 s) the page comes 58 s later
    assert lead.page_for_full == 60
    assert lead.page_lead_unscaled == pytest.approx(4.0 - (60 - lead.page_for_scaled))
    text = "\n".join(lead.summary())
    assert "vdb FAULTED 40.5 s into the ramp (5 % of its writes failing" in text
    assert "ZfsPoolFaulted fired 4.0 s before FAULTED (lead time +4.0 s" in text
    assert "ZED's first mail 20.5 s before FAULTED (lead time +20.5 s): 'ZFS resilver_" in text
    assert "ZED's device fault mail 0.5 s after FAULTED (lead time -0.5 s)" in text
    assert all(r.ok for r in lead.results(leadtime.FAULTED, with_prometheus=True))


def test_no_fault_no_page_no_mail_fail_loudly() -> None:
    facts = {"ramp_start": "1000000.0", "guest_time": "1000300.0"}
    lead = LeadTime.from_facts("2.1.11", facts)
    assert lead.page_lead is None and lead.mail_lead is None
    assert lead.summary() == ["lead time on OpenZFS 2.1.11: ZED did not fault vdb during the ramp "
                              "(no lead time)"]  # fmt: skip
    rows = lead.results(leadtime.FAULTED, with_prometheus=True)
    assert [r.ok for r in rows] == [False, False, False]
    assert all("FAIL" in r.line() for r in rows)


def test_without_the_prometheus_sidecar_the_page_is_pending() -> None:
    facts = {k: v for k, v in FACTS.items() if not k.startswith("page")}
    rows = LeadTime.from_facts("2.3.2", facts).results(leadtime.FAULTED, with_prometheus=False)
    assert [r.ok for r in rows] == [True, True, False] and rows[2].pending


@pytest.mark.parametrize("version", checks.VERSIONS)
def test_the_guest_reads_the_vdev_state_from_real_zpool_status(
    version: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ramp = guest_ramp()
    out = (FIXTURES / version / checks.FAULTED / "zpool-status-p-v-s.txt").read_text()
    # that capture has a SLOW column (zpool status -s); the ramp runs zpool status -p
    out = re.sub(r"^(\s+\S+\s+\S+\s+\d+\s+\d+\s+\d+)\s+\d+", r"\1", out, flags=re.M)
    monkeypatch.setattr(ramp, "run", lambda *argv, timeout=30.0: out)
    assert ramp.vdev_row("rz", "vdc") == ("FAULTED", "0/0/0")
    assert ramp.vdev_row("rz", "vda") == ("ONLINE", "0/0/0")
    assert ramp.vdev_row("rz", "vdz") == ("", "")

    def hung(*argv: str, timeout: float = 30.0) -> str:
        raise subprocess.TimeoutExpired(argv, timeout)

    monkeypatch.setattr(ramp, "run", hung)
    assert ramp.vdev_row("rz", "vdc") == ("", "")


def test_the_guest_reads_zeds_mail_log(tmp_path: Path) -> None:
    ramp = guest_ramp()
    log = tmp_path / "zed-mail.log"
    assert ramp.first_mail(str(log), 0) is None
    log.write_text(
        "ZEDMAIL 900.5 ZFS device fault for pool tank on zmonlab\n  body\n"
        "ZEDMAIL 1000.25 ZFS device fault for pool rz on zmonlab\n  The number of I/O errors\n"
    )
    assert ramp.first_mail(str(log), 950) == (1000.25, "ZFS device fault for pool rz on zmonlab")
    assert ramp.first_mail(str(log), 2000) is None


def test_the_guest_takes_the_fault_time_from_the_statechange_event() -> None:
    ramp = guest_ramp()
    events = (FIXTURES.parent / "pools" / "events" / "2.1.11-22-zpool-events-v.txt").read_text()
    assert (
        ramp.fault_event_time(events, "tank", "disk/by-id/ata-QEMU_HARDDISK_ZLSATA0-part") is None
    )
    faulted = events.replace('vdev_state = "REMOVED" (0x3)', 'vdev_state = "FAULTED" (0x5)', 1)
    faulted = faulted.replace("/dev/disk/by-id/ata-QEMU_HARDDISK_ZLSATA0-part1", "/dev/vdb1", 1)
    assert ramp.fault_event_time(faulted, "tank", "vdb") == 0x6B0CBD18 + 0x11A49A00 / 1e9
    assert ramp.fault_event_time(faulted, "rz", "vdb") is None
    assert ramp.fault_event_time(faulted, "tank", "vdc") is None
