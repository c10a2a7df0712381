"""The HTTP process holds the families the status views read as ``HeldFamily`` columns: they
give the samples they were given, their labels read as the dicts did, the views and the
judgment read the same from them, and a big host's cost a fraction of plain families'."""

from __future__ import annotations

import gc
import tracemalloc
from typing import Any

import pytest
from prometheus_client.core import Metric
from prometheus_client.samples import Sample

from tests.health.test_store import big_host
from tests.status.demo_story import walk
from zmon.exposition.metrics import HeldFamily, HeldLabels
from zmon.exposition.snapshot import CollectorState
from zmon.health.conditions import store_for
from zmon.health.shipped import conditions
from zmon.health.thresholds import DEFAULTS
from zmon.runtime import channel as wire
from zmon.status.report import build_report


def _plain(name: str, samples: list[Sample], typ: str = "gauge") -> Metric:
    fam = Metric(name, f"{name} help.", typ)
    fam.samples = samples
    return fam


def _held(families: list[Metric]) -> list[HeldFamily]:
    """``families`` as the HTTP process gets them: through the channel, in one message."""
    shared: dict[tuple[str, ...], tuple[str, ...]] = {}
    return [wire._decode_family(wire._encode_family(f), shared) for f in families]


def test_a_held_family_gives_the_samples_it_was_given() -> None:
    given = [
        Sample("zmon_x_bucket", {"pool": "tank", "le": "0.5"}, 3.0),
        Sample("zmon_x_bucket", {"pool": "tank", "le": "+Inf"}, 4.0),
        Sample("zmon_x_count", {"pool": "tank"}, 4.0),
        Sample("zmon_x_sum", {}, float("inf"), 12.5),
        Sample("zmon_x_count", {"vdev": 'a "b"\n', "pool": "tank"}, -0.0),
    ]
    (held,) = _held([_plain("zmon_x", given, "histogram")])
    assert isinstance(held, HeldFamily)
    assert held.samples == given and held.sample_count() == len(given)
    assert [dict(s.labels) for s in held.each_sample()] == [s.labels for s in given]
    assert [s.timestamp for s in held.each_sample()] == [None, None, None, 12.5, None]
    # label order is kept, as the exposition would print it
    assert list(held.samples[-1].labels) == ["vdev", "pool"]
    assert held == _plain("zmon_x", given, "histogram")


def test_a_held_family_refuses_labels_that_do_not_pair() -> None:
    fam = HeldFamily("zmon_x", "X.", "gauge")
    with pytest.raises(ValueError, match="2 label names for 1 values"):
        fam.add("zmon_x", ("pool", "vdev"), ("tank",), 1.0)
    with pytest.raises(ValueError, match="repeats"):
        fam.add("zmon_x", ("pool", "pool"), ("tank", "tank"), 1.0)
    assert fam.sample_count() == 0


def test_held_labels_read_as_the_dict_did() -> None:
    given = {"pool": "tank", "vdev": "sda", "state": ""}
    labels = HeldLabels({k: i for i, k in enumerate(given)}, tuple(given.values()))
    assert dict(labels) == given and {**labels} == given and labels == given
    assert labels["vdev"] == "sda" and labels.get("vdev") == "sda"
    assert labels.get("device") is None and labels.get("device", "") == ""
    assert "state" in labels and "device" not in labels
    assert list(labels) == list(given) and len(labels) == 3
    assert tuple(labels.items()) == tuple(given.items())
    assert tuple(labels.values()) == tuple(given.values())
    with pytest.raises(KeyError):
        labels["device"]


def test_the_views_and_the_judgment_read_the_same_from_held_families(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    judged = 0
    for cap in walk(tmp_path, monkeypatch):
        plain = []
        for name, fams in cap.by_collector.items():
            state = CollectorState(name, 15.0, 10.0, success=True)
            state.publish(fams)
            plain += state.families
        held = _held(plain)
        assert build_report(held, cap.now, host="demo") == build_report(
            plain, cap.now, host="demo"
        ), cap.name
        stores = []
        for families in (plain, held):
            store = store_for(conditions(DEFAULTS), 10.0)
            store.add(families, cap.now)
            stores.append(store)
        kept, got = (
            {n: {k: (list(s.times), list(s.values)) for k, s in by.items()}
             for n, by in store._series.items()}
            for store in stores
        )  # fmt: skip
        assert got == kept, cap.name
        judged += sum(len(by) for by in kept.values())
    assert judged > 1000  # the judgment read something


def _traced(build: Any) -> tuple[Any, int]:
    """What ``build()`` returns and the bytes it holds (traced)."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        made = build()
        gc.collect()
        return made, tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


def test_a_big_host_s_held_families_cost_a_third_of_plain_ones() -> None:
    by_name: dict[str, list[tuple[str, dict[str, str]]]] = {}
    for name, labels in big_host():  # 1,000 disks: 64,000 series
        by_name.setdefault(name, []).append((name, {k: v for k, v in labels if k != "__name__"}))
    encoded = [
        wire._encode_family(_plain(n, [Sample(n, labels, 0.0) for n, labels in series]))
        for n, series in by_name.items()
    ]
    count = sum(len(series) for series in by_name.values())

    def decoded_plain() -> list[Metric]:  # (what the HTTP process held before)
        out = []
        for name, _doc, typ, _, samples in encoded:
            out.append(
                _plain(name, [Sample(n, dict(lb), float(v), t) for n, lb, v, t in samples], typ)
            )
        return out

    def decoded_held() -> list[HeldFamily]:
        shared: dict[tuple[str, ...], tuple[str, ...]] = {}
        return [wire._decode_family(f, shared) for f in encoded]

    plain, plain_bytes = _traced(decoded_plain)
    held, held_bytes = _traced(decoded_held)
    assert sum(f.sample_count() for f in held) == count
    per_sample = held_bytes / count
    assert held_bytes < plain_bytes / 3, (per_sample, plain_bytes / count)
