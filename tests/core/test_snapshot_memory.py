"""The snapshot keeps a family's samples only where the status views read them.

On a big host the samples of every family, kept after rendering, would be most of zmon's
memory. The snapshot keeps every family compressed and the
samples of those ``kept_for_views`` accepts; the status report built from those must be the
report built from everything, at every phase of the demo story. The plain text is made only
for a scraper that asks for it.
"""

from __future__ import annotations

import gzip

import pytest

from tests.status.demo_story import walk
from zmon.exposition import gzipjoin
from zmon.exposition.metrics import MetricSet
from zmon.exposition.snapshot import CollectorState, Snapshot
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
        ms.gauge("zmon_shared_thing", "Shared by every collector.", i, {"c": str(i)})
        ms.gauge(f"zmon_own_{i}", "Only this collector's.", i)
        state = CollectorState(f"c{i}", 15.0, 10.0, success=True)
        state.publish(ms.families())
        snapshot.add(state)
    c1 = snapshot.state("c1")
    assert c1 is not None
    # a family is kept as a digest and a gzip piece: no plain bytes of it anywhere
    for name, digest, packed in c1.rendered:
        assert len(digest) == 20 and isinstance(packed, gzipjoin.Piece), name
        assert f"{name}".encode() in gzipjoin.inflate(packed)
    snapshot.rerender()
    expo = snapshot.exposition
    assert not expo.has_text  # joined as gzip only
    first = gzip.decompress(expo.gzipped)
    assert first.count(b"# HELP zmon_shared_thing ") == 1
    assert b'zmon_shared_thing{c="0"} 0.0\nzmon_shared_thing{c="1"} 1.0\n' in first
    assert expo.text == first and expo.has_text
    assert expo.text is expo.text  # inflated once, then only served
    # a new run of one collector: the others are served from their pieces
    ms = MetricSet()
    ms.gauge("zmon_own_1", "Only this collector's.", 7)
    c1.publish(ms.families())
    snapshot.rerender()
    second = snapshot.exposition.text
    assert b"zmon_own_1 7.0\n" in second and b"zmon_own_2 2.0\n" in second
    assert b'zmon_shared_thing{c="1"}' not in second
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
    assert (snapshot._pending is None) == bool(scrapes)


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


def test_a_shared_family_is_merged_again_only_when_one_of_its_collectors_ran(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # the render thread re-renders after every run of any collector: merging the same pieces
    # again each time (inflate, join, compress) was 3 % of the daemon's CPU on a big host
    snapshot = Snapshot()
    states = [CollectorState(f"c{i}", 15.0, 10.0, success=True) for i in range(3)]

    def run(i: int, value: float) -> None:
        ms = MetricSet()
        ms.gauge("zmon_shared_thing", "Shared by every collector.", value, {"c": str(i)})
        ms.gauge(f"zmon_own_{i}", "Only this collector's.", value)
        states[i].publish(ms.families())

    for i, state in enumerate(states):
        run(i, i)
        snapshot.add(state)
    compressed = []
    real_piece = gzipjoin.piece
    monkeypatch.setattr(gzipjoin, "piece", lambda data: compressed.append(data) or real_piece(data))

    def rerender() -> bytes:
        compressed.clear()
        snapshot.rerender()
        return snapshot.exposition.text

    def shared_merges() -> int:
        return sum(b"# HELP zmon_shared_thing " in data for data in compressed)

    first = rerender()
    assert shared_merges() == 1
    assert rerender() == first and shared_merges() == 0  # nobody ran: merged already
    run(2, 2)  # a run with the same values keeps its pieces
    assert rerender() == first and shared_merges() == 0
    run(1, 10)
    text = rerender()
    assert shared_merges() == 1
    assert b'zmon_shared_thing{c="1"} 10.0\n' in text and b"zmon_own_1 10.0\n" in text
    assert text.count(b"# HELP zmon_shared_thing ") == 1
    assert gzip.decompress(snapshot.exposition.gzipped) == text
    snapshot.remove("c0")
    text = rerender()
    assert shared_merges() == 1 and b'zmon_shared_thing{c="0"}' not in text
    assert b'zmon_shared_thing{c="2"} 2.0\n' in text


def test_zmon_s_own_families_are_compressed_as_one_piece_at_each_rendering(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # the render thread runs after every run of any collector; compressing each of zmon's own
    # dozen families apart (a zlib stream set up for each) would be 2 % of the daemon's CPU
    # on a big host
    snapshot = Snapshot()
    for i in range(3):
        state = CollectorState(f"c{i}", 15.0, 10.0, success=True)
        ms = MetricSet()
        ms.gauge(f"zmon_own_{i}", "Only this collector's.", float(i))
        # a collector may serve a family under one of zmon's own names: merged where it was
        ms.gauge("zmon_collector_success", "Taken by a collector.", 5.0, {"collector": f"x{i}"})
        state.publish(ms.families())
        snapshot.add(state)
    compressed = []
    real_piece = gzipjoin.piece
    monkeypatch.setattr(gzipjoin, "piece", lambda data: compressed.append(data) or real_piece(data))
    snapshot.rerender()
    text = snapshot.exposition.text
    assert len(compressed) == 2  # the shared name, merged; then every other own family
    assert b"# HELP zmon_collector_last_success_timestamp_seconds " in compressed[1]
    assert b"# HELP zmon_build_info " in compressed[1]
    assert b"zmon_collector_success" not in compressed[1]
    # the same text as every family rendered on its own, in the same order
    names = [line.split()[2] for line in text.splitlines() if line.startswith(b"# HELP ")]
    assert names[:4] == [b"zmon_own_0", b"zmon_collector_success", b"zmon_own_1", b"zmon_own_2"]
    assert names.count(b"zmon_collector_success") == 1
    for i in range(3):
        assert f'zmon_collector_success{{collector="x{i}"}} 5.0\n'.encode() in text
    assert b'zmon_collector_success{collector="c1"} 1.0\n' in text
    assert names[-1] == b"zmon_start_time_seconds"
    assert gzip.decompress(snapshot.exposition.gzipped) == text
