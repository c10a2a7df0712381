"""arcstats in every text form: the facts each real sample must yield (corpus EXPECTED.md)."""

from __future__ import annotations

import pytest

from tests.helpers import fixture_path
from zmon.base.errors import ParseError
from zmon.collectors.arc import arc_metrics
from zmon.parsers.kstat.arcstats import (
    parse_arcstats,
    parse_freebsd_params,
    parse_module_parameters,
    parse_param_value,
)
from zmon.parsers.kstat.kstat import KstatDataType


def corpus(name: str) -> bytes:
    return fixture_path("arc", "corpus", name).read_bytes()


def lab(*parts: str) -> bytes:
    return fixture_path("arc", "lab", *parts).read_bytes()


def test_zol_065() -> None:
    stats = parse_arcstats(corpus("arcstats_02_linux_zol_0.6.5_91rows.txt"))
    assert stats.source == "kstat"
    assert stats.header is not None and stats.header.ndata == 91 and stats.header.data_size == 4368
    assert len(stats.fields) == 91
    expected = {
        "hits": 8772612, "misses": 604635, "size": 1603939792, "c": 1643208777, "p": 516395305,
        "c_min": 33554432, "c_max": 8367976448, "data_size": 1295836160,
        "metadata_size": 175298560, "other_size": 116443992, "arc_meta_used": 308103632,
        "arc_meta_limit": 6275982336, "arc_meta_max": 449286096, "arc_meta_min": 16777216,
        "arc_need_free": 0, "arc_sys_free": 261496832,
    }  # fmt: skip
    assert {k: stats.value(k) for k in expected} == expected
    assert all(v.value == 0 for k, v in stats.fields.items() if k.startswith("l2_"))
    for present in (
        "evict_not_enough",
        "evict_l2_skip",
        "mru_evictable_data",
        "mfu_ghost_evictable_metadata",
        "l2_cdata_free_on_write",
        "duplicate_buffers",
    ):
        assert present in stats.fields
    for absent in (
        "recycle_miss",
        "meta_size",
        "compressed_size",
        "memory_available_bytes",
        "demand_hit_predictive_prefetch",
        "arc_dnode_limit",
    ):
        assert absent not in stats.fields
    ms = arc_metrics(stats)
    hits, misses = ms.sample_value("zmon_arc_hits_total"), ms.sample_value("zmon_arc_misses_total")
    assert hits == 8772612 and misses == 604635
    assert round(100 * hits / (hits + misses), 2) == 93.55
    assert ms.sample_value("zmon_arc_meta_limit_bytes") == 6275982336
    assert ms.sample_value("zmon_arc_l2_size_bytes") == 0
    assert ms.sample_value("zmon_arc_state_evictable_data_bytes", {"state": "mru"}) == 278091264


def test_openzfs_22_plus() -> None:
    stats = parse_arcstats(corpus("arcstats_04_linux_openzfs_2.2plus_147rows.txt"))
    assert (
        stats.header is not None and stats.header.ndata == 147 and stats.header.data_size == 39984
    )
    assert len(stats.fields) == 147
    expected = {
        "hits": 33266704081, "iohits": 1992434, "misses": 30882817, "size": 14960038920,
        "c": 15590628496, "c_min": 1047890560, "c_max": 32458756096, "meta": 1353044739,
        "pd": 1318937075, "pm": 957173313, "arc_meta_used": 4387999240,
        "memory_available_bytes": 3970557824, "demand_iohit_predictive_prefetch": 221984,
    }  # fmt: skip
    assert {k: stats.value(k) for k in expected} == expected
    assert stats.fields["memory_available_bytes"].type is KstatDataType.INT64
    new = ["uncached_hits", "anon_data", "anon_metadata", "mru_data", "mru_metadata",
           "mfu_data", "uncached_size", "uncached_data", "uncached_metadata",
           "uncached_evictable_data", "uncached_evictable_metadata", "predictive_prefetch",
           "prescient_prefetch", "demand_iohit_prescient_prefetch"]  # fmt: skip
    new += [f"{a}_{c}_iohits" for a in ("demand", "prefetch") for c in ("data", "metadata")]
    assert all(name in stats.fields for name in new)
    for absent in ("p", "arc_meta_limit", "arc_meta_max", "arc_meta_min", "other_size"):
        assert absent not in stats.fields
    ms = arc_metrics(stats)
    hits, misses = ms.sample_value("zmon_arc_hits_total"), ms.sample_value("zmon_arc_misses_total")
    assert round(100 * hits / (hits + misses), 2) == 99.91
    assert ms.sample_value("zmon_arc_iohits_total") == 1992434
    assert ms.sample_value("zmon_arc_demand_iohit_predictive_prefetch_total") == 221984
    assert ms.sample_value("zmon_arc_memory_available_bytes") == 3970557824
    assert ms.sample_value("zmon_arc_meta_target_ratio") == pytest.approx(1353044739 / 2**32)
    assert ms.sample_value("zmon_arc_mru_target_size_bytes") is None
    assert ms.sample_value("zmon_arc_meta_limit_bytes") is None


def test_zol_07_partial_file() -> None:
    stats = parse_arcstats(corpus("arcstats_06_linux_zol_0.7rc_94rows_PARTIAL.txt"))
    assert stats.header is not None and stats.header.ndata == 94
    assert len(stats.fields) == 26
    assert list(stats.fields)[-1] == "hash_chains"
    expected = {
        "hits": 317718922,
        "misses": 121598717,
        "evict_not_enough": 588513,
        "evict_l2_skip": 0,
        "hash_chains": 31939,
    }
    assert {k: stats.value(k) for k in expected} == expected
    for absent in ("size", "c", "c_max"):
        assert absent not in stats.fields
    ms = arc_metrics(stats)
    assert ms.sample_value("zmon_arc_size_bytes") is None
    assert ms.sample_value("zmon_arc_hash_chains") == 31939


def test_freebsd_sysctl_partial() -> None:
    stats = parse_arcstats(corpus("arcstats_08_freebsd_ZoF_2019_sysctl_PARTIAL.txt"))
    assert stats.source == "sysctl" and stats.header is None
    assert len(stats.fields) == 18
    nonzero = {"arc_meta_min": 16777216, "arc_dnode_limit": 320786534, "arc_meta_limit": 3207865344}
    assert {k: v.value for k, v in stats.fields.items() if v.value} == nonzero
    assert stats.value("memory_all_bytes") == 0 and stats.value("memory_available_bytes") == 0
    for absent in ("hits", "misses", "size"):
        assert absent not in stats.fields
    ms = arc_metrics(stats)
    assert ms.sample_value("zmon_arc_dnode_limit_bytes") == 320786534
    assert ms.sample_value("zmon_arc_hits_total") is None


@pytest.mark.parametrize(
    ("version", "rows", "expected"),
    [
        (
            "2.1.11",
            123,
            {
                "hits": 34218,
                "p": 268675008,
                "c": 537209216,
                "c_max": 1558083584,
                "size": 489459552,
                "l2_size": 244942336,
                "arc_meta_limit": 1168562688,
            },
        ),
        (
            "2.3.2",
            147,
            {
                "hits": 34748,
                "meta": 1073741824,
                "c": 531228416,
                "c_max": 2042421248,
                "size": 489576992,
                "l2_size": 258341376,
            },
        ),
    ],
)
def test_lab_captures(version: str, rows: int, expected: dict[str, int]) -> None:
    stats = parse_arcstats(lab(version, "arcstats.txt"))
    assert stats.header is not None and stats.header.ndata == rows == len(stats.fields)
    assert {k: stats.value(k) for k in expected} == expected
    ms = arc_metrics(stats)
    assert ms.sample_value("zmon_arc_l2_size_bytes") == expected["l2_size"]
    assert ms.sample_value("zmon_arc_stat") is None  # every field is curated


def test_lab_232_fixed_point_fractions() -> None:
    ms = arc_metrics(parse_arcstats(lab("2.3.2", "arcstats.txt")))
    assert ms.sample_value("zmon_arc_meta_target_ratio") == 0.25
    assert ms.sample_value("zmon_arc_mru_data_target_ratio") == 0.5
    assert ms.sample_value("zmon_arc_mru_metadata_target_ratio") == 0.5


def test_zfs_fuse_grep_h_tree() -> None:
    stats = parse_arcstats(lab("zfs-fuse-0.7.0", "arcstats.txt"))
    assert stats.source == "sysctl" and len(stats.fields) == 53
    assert stats.value("c") == 104857600 and stats.value("size") == 104825088
    assert "recycle_miss" in stats.fields and "l2_writes_hdr_miss" in stats.fields


@pytest.mark.parametrize("version", ["2.1.11", "2.3.2"])
def test_lab_module_parameters(version: str) -> None:
    params = parse_module_parameters(lab(version, "module-parameters.txt"))
    assert params["zfs_arc_max"] == "0" and params["zfs_arc_min"] == "0"
    assert parse_param_value(params["zfs_arc_max"]) == 0
    assert "spl_hostid" not in params  # the spl module's lines are left out
    assert len(params) > 200


def test_module_parameters_reject_other_text() -> None:
    with pytest.raises(ParseError) as err:
        parse_module_parameters("/sys/module/zfs/parameters/zfs_arc_max:0\nhello: world\n")
    assert err.value.line_no == 2


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0\n", 0),
        ("4294967296", 4294967296),
        ("-1", None),
        ("", None),
        ("abc", None),
        ("18446744073709551615\n", 18446744073709551615),
    ],
)
def test_param_value(text: str, expected: int | None) -> None:
    assert parse_param_value(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "vfs.zfs.arc.max: 4294967296\nvfs.zfs.arc.min: 0\n",
            {"zfs_arc_max": 4294967296, "zfs_arc_min": 0},
        ),
        (
            "vfs.zfs.arc_max: 1024\nvfs.zfs.arc_min: 512\n",
            {"zfs_arc_max": 1024, "zfs_arc_min": 512},
        ),
        # both spellings: the OpenZFS one wins
        (
            "vfs.zfs.arc.max: 1\nvfs.zfs.arc.min: 2\nvfs.zfs.arc_max: 3\nvfs.zfs.arc_min: 4\n",
            {"zfs_arc_max": 1, "zfs_arc_min": 2},
        ),
        ("", {}),
    ],
)
def test_freebsd_params(text: str, expected: dict[str, int]) -> None:
    assert parse_freebsd_params(text) == expected


@pytest.mark.parametrize(
    ("text", "line_no"),
    [
        (b"", None),
        (b"hits 4 1\nkstat.zfs.misc.arcstats.hits: 1\n", 2),  # mixed forms
        (b"kstat.zfs.misc.arcstats.hits: 1\nhits 4 1\n", 2),
        (b"kstat.zfs.misc.arcstats.hits: 1\nkstat.zfs.misc.zfetchstats.hits: 1\n", 2),
    ],
)
def test_unparseable_arcstats(text: bytes, line_no: int | None) -> None:
    with pytest.raises(ParseError) as err:
        parse_arcstats(text)
    assert err.value.line_no == line_no


def test_one_line_json_is_not_arcstats() -> None:
    """A JSON rendering of arcstats (as exporters print it) is refused, not read as empty."""
    import json

    from zmon.parsers.kstat.arcstats import parse_arcstats

    stats = parse_arcstats(corpus("arcstats_02_linux_zol_0.6.5_91rows.txt"))
    doc = json.dumps({name: entry.value for name, entry in stats.fields.items()})
    with pytest.raises(ParseError) as err:
        parse_arcstats(doc.encode())
    assert err.value.line_no == 1


@pytest.mark.parametrize(
    ("name", "ndata", "rows", "facts"),
    [
        (
            "arcstats_10_linux_zol_0.6.5_laptop_prompt_line_PARTIAL.txt",
            91,
            25,
            {
                "hits": 28054449,
                "misses": 19374201,
                "mfu_hits": 23447995,
                "evict_l2_eligible": 4762168320,
                "hash_collisions": 12874,
            },
        ),
        (
            "arcstats_12_linux_openzfs_2.2_147rows_backtick_prompt_PARTIAL.txt",
            147,
            27,
            {
                "hits": 178707397,
                "iohits": 259225,
                "misses": 51963445,
                "uncached_hits": 0,
                "evict_l2_eligible": 6747209900032,
            },
        ),
        (
            "arcstats_14_linux_openzfs_2.0_98rows_PARTIAL.txt",
            98,
            27,
            {"hits": 2346728964, "misses": 10292572, "access_skip": 724, "hash_chains": 4413},
        ),
        (
            "arcstats_16_linux_zol_2011_53rows_recycle_miss_pre_tag_PARTIAL.txt",
            53,
            23,
            {
                "hits": 8529754,
                "misses": 1148387,
                "recycle_miss": 423229,
                "hash_elements_max": 655124,
            },
        ),
    ],
)
def test_pasted_kstat_files_with_a_command_line_above(name, ndata, rows, facts) -> None:
    """A prompt, `cat` command or <pre> tag above the header is skipped; rows stop early."""
    stats = parse_arcstats(corpus(name))
    assert stats.header is not None and stats.header.ndata == ndata
    assert len(stats.fields) == rows < ndata
    assert {k: stats.value(k) for k in facts} == facts
    assert stats.value("size") is None and stats.value("c_max") is None
