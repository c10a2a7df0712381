"""The curated arcstats table is complete, unique and consistently named and typed."""

from __future__ import annotations

import re
from collections import defaultdict

import pytest

from tests.helpers import fixture_path
from zmon.collectors.arc import arc_metrics
from zmon.collectors.arc.catalogue import (
    ARC_STATES,
    ARC_TABLE,
    BY_KSTAT,
    FIXED_POINT_32,
    GENERIC_METRIC,
    PARAM_METRICS,
)
from zmon.exposition.formats import render
from zmon.parsers.kstat.arcstats import ARC_PARAMS, ArcStats
from zmon.parsers.kstat.kstat import KstatDataType, KstatEntry

METRIC_RE = re.compile(r"zmon_arc_[a-z0-9]+(?:_[a-z0-9]+)*")

CONTRACT = {
    "size": "zmon_arc_size_bytes",
    "c": "zmon_arc_target_size_bytes",
    "c_max": "zmon_arc_max_size_bytes",
    "hits": "zmon_arc_hits_total",
    "misses": "zmon_arc_misses_total",
    "mru_ghost_hits": "zmon_arc_mru_ghost_hits_total",
    "mfu_ghost_hits": "zmon_arc_mfu_ghost_hits_total",
    "l2_hits": "zmon_arc_l2_hits_total",
    "l2_misses": "zmon_arc_l2_misses_total",
    "l2_size": "zmon_arc_l2_size_bytes",
}

# Fields whose value is a number of bytes (from their use in arc.c: ARCSTAT_INCR by sizes).
BYTE_SUFFIXES = (
    "_size", "_bytes", "asize", "_limit", "_evictable_data", "_evictable_metadata",
    "_evict_data", "_evict_metadata", "_bytes_scanned",
)  # fmt: skip
BYTE_FIELDS = {
    "size", "c", "c_min", "c_max", "p", "arc_tempreserve", "arc_need_free", "arc_sys_free",
    "arc_meta_used", "arc_meta_max", "arc_meta_min", "evict_l2_cached", "evict_l2_eligible",
    "evict_l2_eligible_mfu", "evict_l2_eligible_mru", "evict_l2_ineligible",
    *(f"{state}_{content}" for state in ARC_STATES for content in ("data", "metadata")),
}  # fmt: skip


def is_bytes(kstat: str) -> bool:
    return kstat in BYTE_FIELDS or kstat.endswith(BYTE_SUFFIXES)


def test_every_kstat_name_is_unique() -> None:
    names = [stat.kstat for stat in ARC_TABLE]
    assert len(names) == len(set(names)) == len(BY_KSTAT)


def test_contract_names() -> None:
    for kstat, metric in CONTRACT.items():
        assert BY_KSTAT[kstat].metric == metric
        assert BY_KSTAT[kstat].kind == ("counter" if metric.endswith("_total") else "gauge")


@pytest.mark.parametrize("stat", ARC_TABLE, ids=lambda s: s.kstat)
def test_entry_is_well_formed(stat) -> None:  # type: ignore[no-untyped-def]
    assert METRIC_RE.fullmatch(stat.metric), stat.metric
    assert stat.metric != GENERIC_METRIC
    if stat.kind == "counter":
        assert stat.metric.endswith("_total")
    else:
        assert stat.kind == "gauge" and not stat.metric.endswith("_total")
    base = stat.metric.removesuffix("_total")
    if is_bytes(stat.kstat):
        assert base.endswith("_bytes"), f"{stat.kstat} counts bytes: {stat.metric}"
    else:
        assert not base.endswith("_bytes"), f"{stat.kstat} is not bytes: {stat.metric}"
    if stat.metric.endswith("_ratio"):
        assert stat.scale == FIXED_POINT_32 or stat.kstat == "l2_data_to_meta_ratio"
    if stat.labels:
        state = stat.label_dict()["state"]
        assert [k for k, _ in stat.labels] == ["state"] and state in ARC_STATES
        assert stat.kstat.startswith(state + "_")
        assert "(arcstats: <state>_" in stat.help and stat.help.endswith(").")
        suffix = stat.help.split("<state>_")[1].removesuffix(").")
        legacy = {"evictable_data": "evict_data", "evictable_metadata": "evict_metadata"}
        assert stat.kstat in (f"{state}_{suffix}", f"{state}_{legacy.get(suffix)}")
    elif stat.kstat == "meta_size":
        assert stat.metric == BY_KSTAT["metadata_size"].metric
    else:
        assert stat.help.endswith(f"(arcstats: {stat.kstat}).")
    assert stat.help[0].isupper() or stat.help[0].isdigit()


def test_metrics_are_typed_consistently() -> None:
    by_metric = defaultdict(list)
    for stat in ARC_TABLE:
        by_metric[stat.metric].append(stat)
    for metric, stats in by_metric.items():
        assert len({s.kind for s in stats}) == 1, metric
        assert len({s.help for s in stats}) == 1, metric
        assert len({tuple(k for k, _ in s.labels) for s in stats}) == 1, metric
    families = {m.removesuffix("_total") for m in by_metric}
    assert len(families) == len(by_metric), "a counter and a gauge share a family name"
    for gauge in PARAM_METRICS:
        assert gauge.metric not in by_metric and METRIC_RE.fullmatch(gauge.metric)
    assert [gauge.param for gauge in PARAM_METRICS] == list(ARC_PARAMS)


def test_only_legacy_aliases_share_a_series() -> None:
    series = defaultdict(list)
    for stat in ARC_TABLE:
        series[(stat.metric, stat.labels)].append(stat.kstat)
    shared = {tuple(v) for v in series.values() if len(v) > 1}
    expected = {("metadata_size", "meta_size")}
    expected |= {
        (f"{s}_evictable_{c}", f"{s}_evict_{c}")
        for s in ARC_STATES
        if s != "uncached"
        for c in ("data", "metadata")
    }
    assert shared == expected


def test_every_openzfs_field_is_curated() -> None:
    rows = [
        line.split("\t")
        for line in fixture_path("arc", "openzfs_arcstats_fields.tsv").read_text().splitlines()
        if line and not line.startswith("#")
    ]
    assert len(rows) == 175
    missing = [name for name, *_ in rows if name not in BY_KSTAT]
    assert missing == []
    # the only signed field is a gauge (it goes negative when the ARC must shrink)
    signed = [name for name, typ, *_ in rows if typ == "INT64"]
    assert signed == ["memory_available_bytes"] and BY_KSTAT[signed[0]].kind == "gauge"


def test_every_freebsd_legacy_field_is_curated() -> None:
    text = fixture_path("arc", "freebsd_legacy_arcstats_fields.txt").read_text()
    names = " ".join(line for line in text.splitlines() if not line.startswith("#")).split()
    assert len(names) > 100
    assert [name for name in names if name not in BY_KSTAT] == []


def test_every_field_renders_once() -> None:
    fields = {stat.kstat: KstatEntry(KstatDataType.UINT64, 1) for stat in ARC_TABLE}
    text = render(arc_metrics(ArcStats("kstat", fields)).families()).decode()
    samples = [line for line in text.splitlines() if not line.startswith("#")]
    aliases = len(ARC_TABLE) - len({(s.metric, s.labels) for s in ARC_TABLE})
    assert len(samples) == len(ARC_TABLE) - aliases
    assert len(samples) == len(set(line.split(" ")[0] for line in samples))
    assert GENERIC_METRIC + "{" not in text
