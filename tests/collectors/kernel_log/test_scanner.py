"""The incremental scanner, device attribution and the exposition they feed."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers import fixture_path
from zmon.base.errors import ParseError
from zmon.collectors.kernel_log import parse_kernel_log
from zmon.collectors.kernel_log.metrics import Tally, kernel_log_metrics
from zmon.exposition.formats import render
from zmon.host.devices import BlockDevice, DeviceMap
from zmon.parsers.kernel_log import KernelEvent, PatternSet, Scanner, default_rules, scan_text

PATTERNS = PatternSet(default_rules())
FIXTURES = sorted(p.name for p in fixture_path("kernel_log").glob("*.txt"))


def _all_lines(name: str) -> str:
    return fixture_path("kernel_log", name).read_text()


@pytest.mark.parametrize("name", FIXTURES)
def test_feeding_line_by_line_equals_one_pass(name: str) -> None:
    text = _all_lines(name)
    scanner = Scanner(PATTERNS)
    piecewise = [e for line in text.splitlines(keepends=True) for e in scanner.feed(line)]
    piecewise += scanner.flush()
    assert sorted(map(repr, piecewise)) == sorted(map(repr, scan_text(text, PATTERNS, False)))


def test_context_before_crosses_feeds() -> None:
    scanner = Scanner(PATTERNS)
    assert scanner.feed("ata4.00: failed command: WRITE FPDMA QUEUED\n") == []
    assert scanner.feed("ata4.00: cmd 61/08:00:00:00:00/00:00:00:00:00/40 tag 0 ncq\n") == []
    events = scanner.feed("         res 40/00:ff:00:00:00/00:00:00:00:00/40 Emask 0x4 (timeout)\n")
    assert events == [KernelEvent("ata_timeout", device="ata4.00")]


def test_context_after_waits_for_the_next_feed_and_flush_gives_up() -> None:
    scanner = Scanner(PATTERNS)
    assert scanner.feed("mpt2sas0: attempting task abort! scmd(ffff88)\n") == []
    assert scanner.pending == 1
    events = scanner.feed("sd 0:0:5:0: CDB: Read(10): 28 00\n")
    assert events == [KernelEvent("scsi_task_abort", device="0:0:5:0", controller="mpt2sas0")]
    assert scanner.feed("mpt2sas0: attempting task abort! scmd(ffff88)\n") == []
    assert scanner.flush() == [KernelEvent("scsi_task_abort", controller="mpt2sas0")]


def test_one_event_per_line_first_rule_wins() -> None:
    line = "blk_update_request: critical medium error, dev sdc, sector 8\n"  # also an io_error form
    assert [e.pattern for e in scan_text(line, PATTERNS)] == ["medium_error"]


def test_line_timestamps_iso_and_journal() -> None:
    iso = "2024-05-02T10:15:12+0000 h kernel: ata3: hard resetting link\n"
    assert scan_text(iso, PATTERNS)[0].timestamp == 1714644912.0
    rec = {"MESSAGE": "ata3: hard resetting link", "__REALTIME_TIMESTAMP": "1714644912500000"}
    assert scan_text(json.dumps(rec) + "\n", PATTERNS)[0].timestamp == 1714644912.5
    syslog = "May  2 10:15:12 h kernel: ata3: hard resetting link\n"  # no year: no timestamp
    assert scan_text(syslog, PATTERNS)[0].timestamp is None
    assert scan_text(iso, PATTERNS, line_timestamps=False)[0].timestamp is None


def test_journal_message_as_byte_array() -> None:
    rec = {"MESSAGE": list(b"ata3: hard resetting link \xff")}
    assert [e.pattern for e in scan_text(json.dumps(rec) + "\n", PATTERNS)] == ["link_reset"]


def test_rules_without_keywords_are_searched_over_the_text() -> None:
    from zmon.parsers.kernel_log import rules_from_table

    patterns = PatternSet(rules_from_table({"odd": {"regex": "^zap (?P<device>sd[a-z])$"}}))
    events = scan_text("x\nzap sdb\nzap sdc tail\nzap sdd", patterns)
    assert [e.device for e in events] == ["sdb", "sdd"]


# ---- attribution


def test_attribution_through_the_device_map() -> None:
    dm = DeviceMap(
        [
            BlockDevice(
                "sdc",
                hardware=True,
                ata_port="ata3",
                ata_device="ata3.00",
                scsi_address="2:0:0:0",
                by_id=("wwn-0x5000c500a1b2c3d4",),
            ),
            BlockDevice("sdc1", parent="sdc", by_id=("wwn-0x5000c500a1b2c3d4-part1",)),
            BlockDevice("nvme0n1", hardware=True, nvme_controller="nvme0"),
        ]
    )
    tally = Tally(resolver=dm.resolve)
    cases = {
        KernelEvent("link_reset", device="ata3"): "sdc",
        KernelEvent("ata_timeout", device="ata3.00"): "sdc",
        KernelEvent("io_error", device="sdc1"): "sdc",
        KernelEvent("scsi_task_abort", device="2:0:0:0", controller="mpt2sas0"): "sdc",
        KernelEvent("zio_error", path="/dev/disk/by-id/wwn-0x5000c500a1b2c3d4-part1"): "sdc",
        KernelEvent("nvme_timeout", device="nvme0"): "nvme0n1",
        KernelEvent("cam_timeout", device="ada0", controller="ahcich0"): "ada0",
        KernelEvent("link_down", device="ata9"): "ata9",  # unknown: as the kernel printed it
        KernelEvent("sas_log_info", controller="mpt2sas1"): "mpt2sas1",
        KernelEvent("hung_task"): "",
    }
    assert {e: tally.attribute(e) for e in cases} == cases


def test_unresolved_names_are_capped_to_other() -> None:
    tally = Tally(max_unresolved=2)
    for i in range(5):
        tally.add(KernelEvent("link_down", device=f"ata{i}"))
        tally.add(KernelEvent("pool_suspended", pool=f"p{i}"))
    tally.add(KernelEvent("io_error", device="sdz"))  # resolved names are not capped
    snap = tally.snapshot()
    assert snap.events == {
        ("link_down", "ata0"): 1,
        ("link_down", "ata1"): 1,
        ("link_down", "other"): 3,
        ("pool_suspended", ""): 5,
        ("io_error", "sdz"): 1,
    }
    assert snap.pool_events == {
        ("pool_suspended", "p0"): 1,
        ("pool_suspended", "p1"): 1,
        ("pool_suspended", "other"): 3,
    }
    # the cap counts what it folded, by label, and the counter is served from the start
    assert snap.capped == {"device": 3, "pool": 3}
    ms = kernel_log_metrics(snap)
    for label in ("device", "pool"):
        value = ms.sample_value("zmon_kernel_log_capped_events_total", {"label": label})
        assert value == 3
    fresh = kernel_log_metrics(Tally().snapshot())
    assert fresh.sample_value("zmon_kernel_log_capped_events_total", {"label": "pool"}) == 0


def test_a_failing_resolver_does_not_stop_counting() -> None:
    def broken(name: str) -> str | None:
        raise RuntimeError("no map")

    tally = Tally(resolver=broken)
    assert tally.add(KernelEvent("io_error", device="sdc1")) == "sdc"


def test_last_event_time_keeps_the_latest() -> None:
    tally = Tally()
    tally.add(KernelEvent("io_error", device="sdc"), seen_at=200.0)
    tally.add(KernelEvent("io_error", device="sdc"), seen_at=100.0)
    tally.add(KernelEvent("io_error", device="sdc", timestamp=150.0), seen_at=300.0)
    assert tally.snapshot().last_seen == {("io_error", "sdc"): 200.0}


# ---- zmon parse kernel-log


@pytest.mark.parametrize("name", FIXTURES)
def test_parse_kind_golden(name: str, golden) -> None:  # type: ignore[no-untyped-def]
    data = fixture_path("kernel_log", name).read_bytes()
    golden(f"kernel_log/{name.removesuffix('.txt')}.prom", render(parse_kernel_log(data)))


def test_parse_kind_rejects_binary_journal_files() -> None:
    with pytest.raises(ParseError, match="line 2"):
        parse_kernel_log(b"LPKSHHRH\n\x00\x00\x01")


def test_parse_kind_on_empty_input() -> None:
    ms = parse_kernel_log(b"")
    assert ms.sample_value("zmon_kernel_log_lines_read_total", {"source": "input"}) == 0
    assert ms.sample_value("zmon_kernel_log_events_total") is None


def test_metrics_from_a_snapshot() -> None:
    tally = Tally()
    tally.set_following("/var/log/kern.log", True)
    tally.add_lines("/var/log/kern.log", 10)
    tally.add_read_error("/var/log/kern.log")
    tally.add(KernelEvent("zio_error", path="/dev/sdc1", pool="tank"), seen_at=1.5)
    ms = kernel_log_metrics(tally.snapshot())
    assert (
        ms.sample_value("zmon_kernel_log_events_total", {"pattern": "zio_error", "device": "sdc"})
        == 1
    )
    assert ms.sample_value("zmon_kernel_log_last_event_timestamp_seconds") == 1.5
    assert ms.sample_value("zmon_kernel_log_pool_events_total", {"pool": "tank"}) == 1
    assert ms.sample_value("zmon_kernel_log_lines_read_total") == 10
    assert ms.sample_value("zmon_kernel_log_read_errors_total") == 1
    assert ms.sample_value("zmon_kernel_log_following") == 1


# ---- garbage never raises


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(max_size=200), max_size=20))
def test_scanner_never_raises_on_garbage(chunks: list[str]) -> None:
    scanner = Scanner(PATTERNS, line_timestamps=True)
    for chunk in chunks:
        scanner.feed(chunk)
    scanner.flush()


KEYWORDY = st.sampled_from(
    [
        "ata3:",
        "ata3.00:",
        " res 40/00 Emask 0x4 (timeout)",
        "(ada0:ahcich0:0:0:0):",
        "{",
        "}",
        "zio pool=",
        " vdev=",
        "error=52",
        "Pool '",
        "' has been suspended",
        "\n",
        "sd 1:0:0:0:",
        "attempting task abort",
        "[sdc]",
        "Medium Error",
        "UNC",
        "ICRC",
        '{"MESSAGE": ',
        '"',
        "2024-01-01T00:00:00+0000 ",
        "mpt2sas0:",
        "I/O error, dev ",
        ",",
        "nvme nvme0:",
        " QID 1",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(KEYWORDY | st.text(max_size=5), max_size=30).map("".join), max_size=8))
def test_scanner_never_raises_on_keyword_soup(chunks: list[str]) -> None:
    scanner = Scanner(PATTERNS, line_timestamps=True)
    for chunk in chunks:
        scanner.feed(chunk)
    scanner.flush()


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400))
def test_parse_kind_never_raises_anything_but_parse_error(data: bytes) -> None:
    try:
        parse_kernel_log(data)
    except ParseError:
        assert b"\x00" in data
