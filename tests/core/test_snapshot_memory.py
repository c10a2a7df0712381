"""The snapshot keeps a family's samples only where the status views read them.

On a big host the samples of every family, kept after rendering, would be most of zmon's
memory. The snapshot keeps every family compressed and the
samples of those ``kept_for_views`` accepts; the status report built from those must be the
report built from everything, at every phase of the demo story. A format is joined, and its
plain text made, only for a scraper that asks for it. A family name belongs to one collector.
"""

from __future__ import annotations

import gzip

import pytest
from prometheus_client.core import Metric

from tests.status.demo_story import walk
from zmon.exposition import gzipjoin
from zmon.exposition.formats import FORMATS, OPENMETRICS, TEXT
from zmon.exposition.metrics import MetricSet
from zmon.exposition.snapshot import CollectorState, DuplicateFamilyError, Packed, Snapshot
from zmon.status.report import build_report


def test_the_views_read_the_same_from_the_kept_families(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    dropped: set[str] = set()
    for cap in walk(tmp_path, monkeypatch):
        snapshot = Snapshot()
        for name, fams in cap.by_collector.items():
            state = CollectorState(name, 15.0, 10.0, success=True)
            state.publish(fams)
            snapshot.add(state)
            dropped |= {f.name for f in fams} - {f.name for f in state.families}
        kept = [fam for st in snapshot.states() for fam in st.families]
        assert build_report(kept, cap.now, host="demo") == build_report(
            cap.families, cap.now, host="demo"
        ), cap.name
    # the test means something only if families were left out
    assert {"zmon_vdev_queue_pending_ios", "zmon_disk_power_cycles"} <= dropped


def test_families_are_kept_compressed_and_plain_text_made_only_when_asked() -> None:
    snapshot = Snapshot()
    for i in range(3):
        ms = MetricSet()
        ms.gauge(f"zmon_own_{i}", "Only this collector's.", i)
        ms.counter(f"zmon_events_{i}_total", "Counted.", i, {"c": str(i)})
        state = CollectorState(f"c{i}", 15.0, 10.0, success=True)
        state.publish(ms.families())
        snapshot.add(state)
    c1 = snapshot.state("c1")
    assert c1 is not None
    # a family is kept as a digest and gzip pieces: no plain bytes of it anywhere; each
    # format's HELP and TYPE lines, then the sample lines both formats share
    for name, digest, packed in c1.rendered:
        assert len(digest) == 20 and isinstance(packed, Packed), name
        texts = [gzipjoin.inflate(p) for p in packed]
        assert texts[0].startswith(f"# HELP {name}".encode()), name
        assert texts[1].startswith(f"# HELP {name} ".encode()), name
        assert texts[2].startswith(f"{name}".encode()) and b"# " not in texts[2], name
    snapshot.rerender()
    expo = snapshot.exposition
    assert not expo.has_text  # joined as gzip only
    first = gzip.decompress(expo.gzipped)
    assert b'# TYPE zmon_events_1_total counter\nzmon_events_1_total{c="1"} 1.0\n' in first
    assert expo.text == first and expo.has_text
    assert expo.text is expo.text  # inflated once, then only served
    assert snapshot.joined(OPENMETRICS) is None  # nobody asked for it
    om = snapshot.exposition_in(OPENMETRICS).text
    assert b'# TYPE zmon_events_1 counter\nzmon_events_1_total{c="1"} 1.0\n' in om
    assert om.endswith(b"\n# EOF\n") and om.count(b"# EOF") == 1
    # a new run of one collector: the others are served from their pieces
    ms = MetricSet()
    ms.gauge("zmon_own_1", "Only this collector's.", 7)
    c1.publish(ms.families())
    snapshot.rerender()
    second = snapshot.exposition.text
    assert b"zmon_own_1 7.0\n" in second and b"zmon_own_2 2.0\n" in second
    assert b"zmon_events_1_total" not in second
    assert snapshot.exposition.gzipped is snapshot.exposition.gzipped  # joined once


@pytest.mark.parametrize("scrapes", [0, 1])
def test_nothing_is_joined_until_asked(scrapes: int) -> None:
    snapshot = Snapshot()
    state = CollectorState("c", 15.0, 10.0, success=True)
    ms = MetricSet()
    ms.gauge("zmon_thing", "A thing.", 1)
    state.publish(ms.families())
    snapshot.add(state)
    for _ in range(3):
        snapshot.rerender()
        for _ in range(scrapes):
            assert b"zmon_thing 1.0\n" in snapshot.exposition.text
    assert (snapshot.joined(TEXT) is not None) == bool(scrapes)
    assert snapshot.joined(OPENMETRICS) is None


def test_an_unchanged_family_keeps_its_piece() -> None:
    snapshot = Snapshot()
    state = CollectorState("c", 15.0, 10.0, success=True)
    snapshot.add(state)

    def run(value: float) -> None:
        ms = MetricSet()
        ms.gauge("zmon_same", "Never changes.", 1)
        ms.gauge("zmon_moving", "Changes.", value)
        state.publish(ms.families())

    run(1)
    snapshot.rerender()
    assert b"zmon_moving 1.0" in snapshot.exposition.text
    same_before = state.rendered[0][1:]
    moving_before = state.rendered[1][1:]
    run(2)
    assert all(a is b for a, b in zip(state.rendered[0][1:], same_before, strict=True))
    assert state.rendered[1][2] is not moving_before[1]
    snapshot.rerender()
    text = snapshot.exposition.text
    assert b"zmon_same 1.0" in text and b"zmon_moving 2.0" in text
    assert gzip.decompress(snapshot.exposition.gzipped) == text


def test_a_family_name_belongs_to_one_collector() -> None:
    """As prometheus_client's registry refuses a name registered twice, the snapshot refuses
    a run whose families include another collector's (or zmon's own) name, naming both, and
    keeps that collector's last good data; the name is free again once its owner drops it."""
    snapshot = Snapshot()
    states = {name: CollectorState(name, 15.0, 10.0) for name in ("arc", "smart")}
    for state in states.values():
        snapshot.add(state)

    def families(*names: str) -> list[Metric]:
        ms = MetricSet()
        for name in names:
            ms.gauge(name, "A thing.", 1)
        return ms.families()

    snapshot.publish(states["arc"], families("zmon_arc_size_bytes", "zmon_thing"))
    with pytest.raises(DuplicateFamilyError) as refused:
        snapshot.publish(states["smart"], families("zmon_disk_info", "zmon_thing"))
    assert "zmon_thing of collector smart is already published by collector arc" in str(
        refused.value
    )
    assert states["smart"].rendered == []  # nothing of the refused run
    with pytest.raises(DuplicateFamilyError, match="zmon_collector_success of collector smart"):
        snapshot.publish(states["smart"], families("zmon_collector_success"))
    snapshot.publish(states["arc"], families("zmon_arc_size_bytes"))  # arc drops it
    snapshot.publish(states["smart"], families("zmon_thing"))
    with pytest.raises(DuplicateFamilyError, match="already published by collector smart"):
        snapshot.publish(states["arc"], families("zmon_thing"))
    snapshot.remove("smart")
    snapshot.publish(states["arc"], families("zmon_thing"))
    snapshot.rerender()
    assert snapshot.exposition.text.count(b"# HELP zmon_thing ") == 1


def test_a_family_two_held_records_carry_is_served_once() -> None:
    """The HTTP process adds the records it holds (``HeldCollectors``) unchecked: should two
    carry one family name (one gave it up, the other took it), it is served once."""
    snapshot = Snapshot()
    for i in range(2):
        ms = MetricSet()
        ms.gauge("zmon_moved", "Moved from c0 to c1.", i)
        state = CollectorState(f"c{i}", 15.0, 10.0, success=True)
        state.publish(ms.families())  # (added unchecked, as a held record is)
        snapshot.add(state)
    snapshot.rerender()
    for fmt in FORMATS:
        text = snapshot.exposition_in(fmt).text
        assert text.count(b"# HELP zmon_moved ") == 1 and b"zmon_moved 0.0\n" in text


def test_zmon_s_own_families_are_compressed_as_one_piece_per_format_asked(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # the render thread runs after every run of any collector; compressing each of zmon's own
    # dozen families apart (a zlib stream set up for each) would be 2 % of the daemon's CPU
    # on a big host
    snapshot = Snapshot()
    for i in range(3):
        state = CollectorState(f"c{i}", 15.0, 10.0, success=True)
        ms = MetricSet()
        ms.gauge(f"zmon_own_{i}", "Only this collector's.", float(i))
        state.publish(ms.families())
        snapshot.add(state)
    compressed = []
    real_piece = gzipjoin.piece
    monkeypatch.setattr(gzipjoin, "piece", lambda data: compressed.append(data) or real_piece(data))
    snapshot.rerender()
    assert compressed == []  # nothing until a format is asked for
    text = snapshot.exposition.text
    assert len(compressed) == 1
    assert b"# HELP zmon_collector_last_success_timestamp_seconds " in compressed[0]
    assert b"# HELP zmon_build_info " in compressed[0]
    names = [line.split()[2] for line in text.splitlines() if line.startswith(b"# HELP ")]
    assert names[:3] == [b"zmon_own_0", b"zmon_own_1", b"zmon_own_2"]
    assert names[-1] == b"zmon_start_time_seconds"
    assert gzip.decompress(snapshot.exposition.gzipped) == text
    om = snapshot.exposition_in(OPENMETRICS).text
    assert len(compressed) == 2 and b"# TYPE zmon_collector_runs counter\n" in compressed[1]
    assert om.endswith(b"zmon_start_time_seconds " + text.rsplit(b" ", 1)[1] + b"# EOF\n")
