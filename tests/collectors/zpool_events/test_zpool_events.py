"""zpool events parsing, replay-safe counting, and the zpool-events parse kind."""

from __future__ import annotations

import time
from collections import Counter

import pytest

from tests.support.pool_lab import POOLS
from zmon.base.errors import ParseError
from zmon.collecting.registry import parse_kinds
from zmon.collectors.zpool_events import Cursor, EventCounter, event_metrics
from zmon.exposition.formats import render, render_with_client
from zmon.exposition.metrics import RowFamily
from zmon.parsers.zpool.zpool_events import ZfsEvent, parse_zpool_events

CORPUS = POOLS / "corpus"
EVENTS = POOLS / "events"


@pytest.fixture
def utc(monkeypatch):
    """Header times are local time; pin the zone so expectations hold anywhere."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def events_of(name: str, folder=CORPUS) -> list[ZfsEvent]:
    return parse_zpool_events((folder / name).read_bytes()).events


def test_corpus_02_config_sync_and_resilver_start() -> None:
    evs = events_of("zpool_events_02_config_sync_resilver_start_0.7.txt")
    assert len(evs) == 4
    assert {e.pool for e in evs} == {"ssd1"}
    assert [e.event_class for e in evs] == [
        "sysevent.fs.zfs.config_sync",
        "sysevent.fs.zfs.config_sync",
        "sysevent.fs.zfs.resilver_start",
        "sysevent.fs.zfs.config_sync",
    ]
    assert [e.eid for e in evs] == [0x6E, 0x6F, 0x70, 0x71]
    start = evs[2]
    assert start.short_class == "resilver_start"
    assert start.time_text == "May 23 2017 17:29:37.397011685"
    assert start.time_ns == 0x59244751 * 10**9 + 0x17A9EAE5
    assert start.timestamp == pytest.approx(0x59244751 + 0.397011685)
    assert start.vdev == ""


def test_corpus_04_scan_done_then_resilver_finish_with_a_two_space_date() -> None:
    evs = events_of("zpool_events_04_scan_done_errors_resilver_finish_0.8.txt")
    assert len(evs) == 2
    assert evs[0].time_text == "Oct  3 2020 03:53:40.724065519"
    assert evs[0].short_class == "history_event" and evs[0].pool == "wdblack"
    assert evs[0].fields["history_internal_str"] == '"errors=318954"'
    assert evs[0].fields["history_internal_name"] == '"scan done"'
    assert evs[0].eid == 0x77558
    assert evs[1].short_class == "resilver_finish" and evs[1].eid == 0x77559


def test_corpus_06_short_list_counts_classes() -> None:
    evs = events_of("zpool_events_06_short_list_statechange_resilver.txt")
    assert len(evs) == 14
    assert Counter(e.event_class for e in evs) == {
        "resource.fs.zfs.statechange": 5,
        "sysevent.fs.zfs.vdev_attach": 1,
        "sysevent.fs.zfs.resilver_start": 1,
        "sysevent.fs.zfs.history_event": 3,
        "sysevent.fs.zfs.config_sync": 2,
        "sysevent.fs.zfs.resilver_finish": 1,
        "sysevent.fs.zfs.vdev_remove": 1,
    }
    assert all(e.pool == "" and e.eid is None for e in evs)


def test_lab_ereports_take_the_top_level_pool_not_the_detector_guid() -> None:
    evs = events_of("2.3.2-08-excerpt-zpool-events-v.txt", EVENTS)
    assert len(evs) == 8
    io = evs[0]
    assert io.short_class == "io" and io.pool == "rz" and io.vdev == "vdc1"
    assert io.fields["zio_flags"].startswith("0x7000b0 [SCRUB")
    cksum = [e for e in evs if e.short_class == "checksum"]
    assert [e.vdev for e in cksum] == ["nvme-QEMU_NVMe_Ctrl_ZLNVME1-part1"] * 2
    data = [e for e in evs if e.short_class == "data"]
    assert len(data) == 2 and all(e.pool == "single" and e.vdev == "" for e in data)


def test_scripted_short_list_uses_a_tab() -> None:
    evs = events_of("2.3.2-21-zpool-events-H.txt", EVENTS)
    assert len(evs) == 11
    assert evs[0].time_text.startswith("Nov 30 2026")


def test_dropped_line_is_counted_not_an_error() -> None:
    text = (
        "dropped 12 events\nNov 30 2026 00:06:26.124000000 sysevent.fs.zfs.pool_create\n"
        '        pool = "tank"\n        eid = 0x1\n\n'
    )
    cap = parse_zpool_events(text)
    assert cap.dropped == 12 and len(cap.events) == 1


def test_nested_nvlist_arrays_do_not_leak_into_top_level_fields() -> None:
    text = (
        "Nov 30 2026 00:06:26.124000000 ereport.fs.zfs.checksum\n"
        '        pool = "tank"\n'
        "        bad = (2 embedded nvlists)\n"
        "        bad[0] = (embedded nvlist)\n"
        '                pool = "other"\n'
        "        (end bad[0])\n"
        "        (end bad)\n"
        '        vdev_path = "/dev/sda1"\n'
        "        time = 0x6b0cbe02 0x7641700 \n"
        "        eid = 0x5\n"
    )
    (ev,) = parse_zpool_events(text).events
    assert ev.pool == "tank" and ev.vdev == "sda1" and ev.eid == 5
    assert ev.time_ns == 0x6B0CBE02 * 10**9 + 0x7641700


def test_foreign_text_is_a_parse_error_naming_the_line() -> None:
    text = "Nov 30 2026 00:06:26.124000000 sysevent.fs.zfs.pool_create\nkernel: oops\n"
    with pytest.raises(ParseError) as exc:
        parse_zpool_events(text)
    assert exc.value.line_no == 2
    with pytest.raises(ParseError):
        parse_zpool_events("just some words\n")


def test_header_only_output_is_empty_not_an_error() -> None:
    assert parse_zpool_events("TIME                           CLASS\n").events == []


# ---- counting across replays ----


def ev(
    eid: int, sec: int, cls: str = "ereport.fs.zfs.io", pool: str = "tank", vdev: str = "/dev/sda1"
) -> ZfsEvent:
    return ZfsEvent(
        "Nov 30 2026 00:00:00.000000000",
        cls,
        {"pool": f'"{pool}"', "vdev_path": f'"{vdev}"', "eid": hex(eid), "time": f"{hex(sec)} 0x0"},
    )


def offer_all(counter: EventCounter, events: list[ZfsEvent]) -> list[bool]:
    counter.begin_stream()
    return [counter.offer(e) for e in events]


def test_a_replayed_buffer_is_not_counted_twice() -> None:
    c = EventCounter()
    history = [ev(i, 1000 + i) for i in range(1, 6)]
    assert offer_all(c, history[:3]) == [True] * 3
    assert offer_all(c, history) == [False, False, False, True, True]
    assert c.counts == {("tank", "sda1", "io"): 5}
    assert c.cursor == Cursor(5, (1005) * 10**9)


def test_same_eid_with_another_time_means_the_module_was_reloaded() -> None:
    c = EventCounter(Cursor(3, 1003 * 10**9))
    # after a reload eids restart at 1; here the new stream already reached eid 3
    assert offer_all(c, [ev(1, 900), ev(2, 901), ev(3, 2000), ev(4, 2001)]) == [
        False,
        False,
        True,
        True,
    ]
    assert c.counts == {("tank", "sda1", "io"): 2}


def test_lower_eids_with_newer_times_are_counted_after_a_reload() -> None:
    c = EventCounter(Cursor(50, 1050 * 10**9))
    assert offer_all(c, [ev(1, 2000), ev(2, 2001)]) == [True, True]
    assert offer_all(c, [ev(1, 2000), ev(2, 2001), ev(3, 2002)]) == [False, False, True]


def test_events_lost_from_a_rotated_buffer_do_not_hide_newer_ones() -> None:
    c = EventCounter(Cursor(10, 1010 * 10**9))
    assert offer_all(c, [ev(12, 1012), ev(13, 1013)]) == [True, True]


def test_events_without_eid_are_always_counted() -> None:
    c = EventCounter(Cursor(10, 1010 * 10**9))
    e = ZfsEvent("Nov 30 2026 00:00:00.000000000", "sysevent.fs.zfs.config_sync")
    assert c.offer(e) and c.counts == {("", "", "config_sync"): 1}


def test_last_timestamp_is_per_class() -> None:
    c = EventCounter()
    offer_all(c, [ev(1, 1000), ev(2, 1005, cls="sysevent.fs.zfs.scrub_finish"), ev(3, 1010)])
    counts, last, dropped = c.snapshot()
    ms = event_metrics(counts, last, dropped)
    assert ms.sample_value("zmon_zfs_events_last_timestamp_seconds", {"class": "io"}) == 1010
    assert (
        ms.sample_value(
            "zmon_zfs_events_total", {"pool": "tank", "vdev": "", "class": "scrub_finish"}
        )
        is None
    )
    assert (
        ms.sample_value(
            "zmon_zfs_events_total", {"pool": "tank", "vdev": "sda1", "class": "scrub_finish"}
        )
        == 1
    )


# ---- parse kind ----


@pytest.mark.parametrize(
    "name",
    sorted(p.name for p in CORPUS.glob("zpool_events_*"))
    + sorted(p.name for p in EVENTS.glob("*")),
)
def test_parse_kind_golden(name: str, utc, golden) -> None:
    folder = CORPUS if (CORPUS / name).exists() else EVENTS
    func, _ = parse_kinds()["zpool-events"]
    golden(
        f"pools/zpool-events-{name.removesuffix('.txt')}.prom",
        render(func((folder / name).read_bytes()).families()),
    )


def test_parse_kind_counts_lab_excerpt() -> None:
    func, _ = parse_kinds()["zpool-events"]
    ms = func((EVENTS / "2.3.2-08-excerpt-zpool-events-v.txt").read_bytes())
    assert (
        ms.sample_value("zmon_zfs_events_total", {"pool": "rz", "vdev": "vdc1", "class": "io"}) == 2
    )
    assert (
        ms.sample_value("zmon_zfs_events_total", {"pool": "single", "vdev": "", "class": "data"})
        == 2
    )


def test_a_tab_indented_field_is_read_like_eight_spaces() -> None:
    text = (
        "Nov 30 2026 00:06:26.124000000 sysevent.fs.zfs.pool_create\n"
        '        pool = "tank"\n\teid = 0x9f\n\n'
    )
    (ev,) = parse_zpool_events(text).events
    assert ev.eid == 0x9F and ev.pool == "tank"


@pytest.mark.parametrize(
    ("name", "skipped", "pool", "vdev", "when"),
    [
        (
            "zpool_events_08_v_starts_and_ends_mid_record_checksum_0.7_PARTIAL.txt",
            5,
            "tank",
            "wwn-0x5002538c402d54bf-part1",
            "Apr 20 2019 20:07:48.106081492",
        ),
        (
            "zpool_events_10_v_gang_header_starts_mid_record_2.3_PARTIAL.txt",
            17,
            "sz",
            "nvme-SAMSUNG_MZVL21T0HCLR-00B00_S676NXMT800285-part6",
            "Apr 22 2025 21:52:31.518493170",
        ),
    ],
)
def test_a_capture_starting_mid_record_skips_to_the_first_header(
    name: str, skipped: int, pool: str, vdev: str, when: str
) -> None:
    capture = parse_zpool_events((CORPUS / name).read_bytes())
    assert (capture.skipped_lines, capture.cut_events, capture.complete) == (skipped, 1, False)
    [event] = capture.events
    assert (event.time_text, event.event_class, event.pool, event.vdev) == (
        when,
        "ereport.fs.zfs.checksum",
        pool,
        vdev,
    )
    ms = parse_kinds()["zpool-events"][0]((CORPUS / name).read_bytes())
    labels = {"pool": pool, "vdev": vdev, "class": "checksum"}
    assert ms.sample_value("zmon_zfs_events_total", labels) == 1
    assert ms.sample_value("zmon_zfs_events_parse_complete", {}) == 0


def test_whole_captures_are_complete() -> None:
    for name in (
        "zpool_events_02_config_sync_resilver_start_0.7.txt",
        "zpool_events_06_short_list_statechange_resilver.txt",
    ):
        assert parse_zpool_events((CORPUS / name).read_bytes()).complete
        ms = parse_kinds()["zpool-events"][0]((CORPUS / name).read_bytes())
        assert ms.sample_value("zmon_zfs_events_parse_complete", {}) == 1


def test_leading_record_lines_before_a_foreign_line_are_still_an_error() -> None:
    with pytest.raises(ParseError):
        parse_zpool_events(b'        pool = "tank"\nnot events at all\n')


def test_a_refused_listing_then_the_sudo_listing() -> None:
    """`cannot get event: permission denied` and sudo's password prompt come before the
    events of the second command; both are skipped, the dropped count is kept."""
    capture = parse_zpool_events(
        (
            CORPUS / "zpool_events_12_short_list_permission_denied_then_sudo_dropped_285_0.8rc.txt"
        ).read_bytes()
    )
    assert capture.dropped == 285 and capture.complete
    assert [(e.time_text, e.short_class) for e in capture.events] == [
        ("Feb 21 2019 20:18:22.900000000", "history_event"),
        ("Feb 21 2019 20:18:22.900000000", "scrub_finish"),
        ("Feb 21 2019 20:18:22.924000000", "scrub_start"),
    ]
    assert all(e.pool == "" for e in capture.events)


def test_io_ereport_of_a_raidz_member() -> None:
    capture = parse_zpool_events(
        (CORPUS / "zpool_events_14_v_io_ereport_zio_err_5_raidz_member_2.1.txt").read_bytes()
    )
    [ev] = capture.events
    assert capture.complete
    assert (ev.short_class, ev.pool, ev.vdev, ev.eid) == (
        "io",
        "zroot",
        "ata-ST10000NM0568-2H5110_ZHZ54DBW-part1",
        0x10,
    )
    assert ev.fields["zio_err"] == "0x5" and ev.fields["parent_type"] == '"raidz"'
    assert ev.time_ns == 0x6162C2F7 * 10**9 + 0x2A460D59


def test_event_counts_are_one_compact_row_per_vdev_and_render_as_before() -> None:
    """4,500 counters on a host of 1,100 vdevs (mostly the zeros of the alerted classes)
    were a sample and a label dict each, rendered every 15 s."""
    counts = {
        ("big", "", "io"): 2,
        ("big", "", "checksum"): 0,
        ("big", "sda", "checksum"): 7,
        ("big", "sda", "io"): 0,
        ("tank", 'od"d', "data"): 1,
    }
    ms = event_metrics(counts, {"checksum": 1700000000.0})
    fam = ms._families["zmon_zfs_events"]
    assert isinstance(fam, RowFamily)
    assert len(fam._compact) == 3  # big/"", big/sda, tank/od"d
    assert render(ms.families()) == render_with_client(ms.families())
    assert [(s.labels["vdev"], s.labels["class"], s.value) for s in fam.samples] == [
        ("", "checksum", 0.0),
        ("", "io", 2.0),
        ("sda", "checksum", 7.0),
        ("sda", "io", 0.0),
        ('od"d', "data", 1.0),
    ]
