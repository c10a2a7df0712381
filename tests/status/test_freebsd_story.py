"""The classic FreeBSD story: ``ad4: TIMEOUT - FLUSHCACHE48`` retries, then ``ZFS: vdev I/O
failure`` on the same disk, and ZFS faults it. The disk's media never reported an error: it is
the cable or port, not a dying disk.

The kernel log and ``zpool status`` go through the same parsers and metric code as the
collectors, are rendered as zmon serves them, and are read back by the status report.
"""

from __future__ import annotations

from pathlib import Path

from tests.status.helpers import NOW, families
from zmon.collecting.registry import parse_kinds
from zmon.exposition.formats import render
from zmon.status.report import build_report
from zmon.status.terminal import render_text

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
LOG = FIXTURES / "status" / "freebsd_ad4_flushcache48_then_vdev_io_failure.log"
STATUS = FIXTURES / "status" / "freebsd_ad4_zpool_status.txt"


def served(kind: str, path: Path) -> str:
    parse, _ = parse_kinds()[kind]
    return render(parse(path.read_bytes()).families()).decode()


def story_report(*extra: str) -> dict:  # type: ignore[type-arg]
    text = served("kernel-log", LOG) + served("zpool-status", STATUS) + "".join(extra)
    return build_report(families(text), NOW, host="nas")


def test_flushcache48_timeouts_then_vdev_io_failure_is_a_cable_or_port_fault() -> None:
    """The faulted disk and its cable fault are one finding: the degraded pool's, which names
    the cable as the cause and says how to bring the disk back."""
    report = story_report()
    (degraded,) = report["findings"]
    assert degraded["rule"] == "pool_degraded"
    assert degraded["evidence"] == (
        "ad4 is FAULTED; its link shows 4 command timeouts, then 2 failed ATA commands, "
        "2 ZFS vdev I/O failures and 12 write errors in tank, media clean"
    )
    assert degraded["action"] == (
        "reseat or replace the cable of ad4 (or move it to another port), then zpool clear tank ad4"
    )


def test_it_is_not_called_a_dying_disk() -> None:
    rules = {f["rule"] for f in story_report()["findings"]}
    assert not rules & {"media_failing", "smart_failed", "io_errors"}
    assert rules == {"pool_degraded"}


def test_the_pool_is_degraded_with_the_faulted_disk_named() -> None:
    report = story_report()
    # a 2-way mirror with one side FAULTED has no redundancy left: it pages, and zmon status
    # says CRITICAL like the alert (the paging policy)
    assert report["state"] == "critical" and report["exit_code"] == 2
    (degraded,) = [f for f in report["findings"] if f["rule"] == "pool_degraded"]
    assert degraded["evidence"].startswith("ad4 is FAULTED")
    assert degraded["alert"] == "ZfsPoolRedundancyLost" and degraded["severity"] == "critical"
    text = render_text(report)
    assert "pool tank: ad4 is FAULTED; its link shows 4 command timeouts" in text
    assert "reseat or replace the cable of ad4" in text
    assert "replace it (zpool replace" not in text


def test_the_same_log_with_a_media_error_on_that_disk_is_a_dying_disk() -> None:
    report = story_report('zmon_kernel_log_events_total{device="ad4",pattern="medium_error"} 1\n')
    rules = {f["rule"] for f in report["findings"]}
    assert "media_failing" in rules and "cable_fault" not in rules
