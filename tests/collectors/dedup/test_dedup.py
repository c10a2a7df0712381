"""DDT summary and histogram parsing, per-entry vs total sizes, and the dedup collector."""

from __future__ import annotations

import pytest

from tests.support.pool_lab import POOLS, build_procfs, context, lab
from zmon.base.errors import ParseError
from zmon.base.runner import CommandResult, StaticRunner
from zmon.collecting.registry import parse_kinds
from zmon.collectors.dedup import DedupCollector, ddt_kstat_metrics, ddt_metrics
from zmon.exposition.formats import render
from zmon.parsers.kstat.pool_kstats import parse_named_kstat
from zmon.parsers.zpool.ddt import (
    guess_totals_format,
    parse_dedup_status,
    parse_module_version,
    parse_zdb_histogram,
)

CORPUS = POOLS / "corpus"
SYN = POOLS / "synthetic"


def test_corpus_dedup_02_per_entry_sizes_become_totals() -> None:
    (s,) = parse_dedup_status(
        (CORPUS / "dedup_02_zpool_status_D_0.6_external_raid.txt").read_bytes()
    )
    assert s.pool == "backup"
    assert s.entries == 3255693
    assert s.totals is False  # a 0.6 module prints averages per entry
    assert s.on_disk_bytes == 3255693 * 311
    assert s.in_core_bytes == 3255693 * 179
    assert s.histogram is None


def test_known_old_version_multiplies_and_known_new_version_does_not() -> None:
    text = (CORPUS / "dedup_02_zpool_status_D_0.6_external_raid.txt").read_bytes()
    assert parse_dedup_status(text, totals_format=False)[0].in_core_bytes == 3255693 * 179
    assert parse_dedup_status(text, totals_format=True)[0].in_core_bytes == 179


def test_corpus_dedup_04_empty_simulated_histogram() -> None:
    hist = parse_zdb_histogram((CORPUS / "dedup_04_zdb_S_empty_simulated_2.3.1.txt").read_bytes())
    assert hist.simulated
    assert hist.buckets == {} and hist.total is None
    assert hist.dedup_ratio is None


def test_lab_pools_without_dedup_report_zero_entries() -> None:
    out = parse_dedup_status(lab("2.3.2-01-healthy", "zpool-status-t-D.txt"))
    assert [(s.pool, s.entries, s.on_disk_bytes) for s in out] == [
        ("rz", 0, 0),
        ("single", 0, 0),
        ("tank", 0, 0),
    ]


def test_exact_2_3_output_with_cached_part_and_histogram() -> None:
    dpool, plain = parse_dedup_status((SYN / "ddt-status-2.3-p.txt").read_bytes())
    assert dpool.pool == "dpool" and dpool.totals is True
    assert dpool.entries == 1048576
    assert dpool.on_disk_bytes == 402653184
    assert dpool.in_core_bytes == 234881024
    assert dpool.cached_bytes == 117440512
    hist = dpool.histogram
    assert hist is not None and sorted(hist.buckets) == [1, 2]
    assert hist.buckets[2].ref_blocks == 524288
    assert hist.total is not None and hist.total.dsize == 68719476736
    assert plain.pool == "plain" and plain.entries == 0


def test_human_2_1_output_with_nicenum_histogram() -> None:
    dpool, _ = parse_dedup_status(
        (SYN / "ddt-status-2.1-human.txt").read_bytes(), totals_format=False
    )
    assert dpool.on_disk_bytes == 1048576 * 384 and dpool.in_core_bytes == 1048576 * 224
    hist = dpool.histogram
    assert hist is not None
    assert hist.buckets[1].blocks == 768 * 1024
    assert hist.total is not None and hist.total.ref_blocks == round(1.25 * 2**20)
    assert hist.total.ref_lsize == 160 * 2**30


def test_both_layouts_give_the_same_metrics() -> None:
    exact = ddt_metrics(parse_dedup_status((SYN / "ddt-status-2.3-p.txt").read_bytes()))
    human = ddt_metrics(
        parse_dedup_status((SYN / "ddt-status-2.1-human.txt").read_bytes(), totals_format=False)
    )
    for name, labels in (
        ("zmon_pool_ddt_on_disk_bytes", {"pool": "dpool"}),
        ("zmon_pool_ddt_allocated_blocks", {"pool": "dpool"}),
        ("zmon_pool_ddt_bucket_referenced_blocks", {"pool": "dpool", "refcnt": "2"}),
        ("zmon_pool_ddt_referenced_bytes", {"pool": "dpool", "kind": "dsize"}),
    ):
        assert exact.sample_value(name, labels) == human.sample_value(name, labels), name


@pytest.mark.parametrize(
    ("entries", "on_disk", "cached", "totals"),
    [
        (3255693, 311, False, False),  # big table, average per entry
        (12, 320, False, False),  # tiny table, average per entry
        (1048576, 402653184, False, True),  # big table, total
        (500, 180000, False, True),  # small table, total above 16 KiB
        (5, 4096, True, True),  # the cached suffix only exists in 2.3+
    ],
)
def test_guessing_the_format_when_the_version_is_unknown(entries, on_disk, cached, totals):
    assert guess_totals_format(entries, on_disk, cached) is totals


def test_module_versions() -> None:
    assert parse_module_version("2.3.2-2~bpo12+2\n") == (2, 3, 2)
    assert parse_module_version("zfs-kmod-2.1.11-1+deb12u1") == (2, 1, 11)
    assert parse_module_version("v0.6.5.11-1") == (0, 6, 5)
    assert parse_module_version("garbage") is None


def test_kstats_skip_idle_checksums_and_label_tiers() -> None:
    idle = parse_named_kstat(lab("2.3.2-01-healthy", "kstat-tank-ddt_stats_sha256.txt"))
    busy = dict(
        idle,
        lookup=100,
        lookup_new=30,
        lookup_existing=70,
        lookup_live_hit=50,
        lookup_stored_miss=30,
        log_active_entries=7,
    )
    ms = ddt_kstat_metrics({("tank", "sha256"): idle, ("tank", "blake3"): busy})
    assert ms.sample_value("zmon_pool_ddt_lookups_total", {"checksum": "sha256"}) is None
    assert ms.sample_value("zmon_pool_ddt_lookups_total", {"checksum": "blake3"}) == 100
    assert ms.sample_value("zmon_pool_ddt_lookup_hits_total", {"tier": "live"}) == 50
    assert ms.sample_value("zmon_pool_ddt_lookup_misses_total", {"tier": "stored"}) == 30
    assert ms.sample_value("zmon_pool_ddt_log_entries", {"state": "active"}) == 7


def test_parse_kind_handles_status_and_zdb() -> None:
    func, _ = parse_kinds()["zpool-dedup"]
    ms = func((CORPUS / "dedup_02_zpool_status_D_0.6_external_raid.txt").read_bytes())
    assert ms.sample_value("zmon_pool_ddt_entries", {"pool": "backup"}) == 3255693
    assert func((CORPUS / "dedup_04_zdb_S_empty_simulated_2.3.1.txt").read_bytes()).families() == []
    with pytest.raises(ParseError):
        func(b"no histogram here\n")


def _runner(status: bytes) -> StaticRunner:
    return StaticRunner({("zpool", "status", "-D", "-p"): status})


def test_collector_golden_with_a_2_3_module(tmp_path, golden) -> None:
    sysfs = tmp_path / "sys"
    (sysfs / "module" / "zfs").mkdir(parents=True)
    (sysfs / "module" / "zfs" / "version").write_text("2.3.2-2~bpo12+2\n")
    procfs = build_procfs(POOLS / "lab" / "2.3.2-01-healthy", tmp_path / "proc")
    status = (SYN / "ddt-status-2.3-p.txt").read_bytes()
    ms = DedupCollector(context(_runner(status), tmp_path, procfs=procfs, sysfs=sysfs)).collect()
    assert ms.sample_value("zmon_pool_ddt_in_core_bytes", {"pool": "dpool"}) == 234881024
    golden("pools/dedup-2.3-synthetic.prom", render(ms.families()))


def test_collector_multiplies_for_an_old_module_found_by_zpool_version(tmp_path) -> None:
    runner = StaticRunner(
        {
            ("zpool", "status", "-D", "-p"): (
                CORPUS / "dedup_02_zpool_status_D_0.6_external_raid.txt"
            ).read_bytes(),
            ("zpool", "version"): b"zfs-0.8.6-1\nzfs-kmod-0.8.6-1\n",
        }
    )
    ms = DedupCollector(context(runner, tmp_path)).collect()
    assert ms.sample_value("zmon_pool_ddt_on_disk_bytes", {"pool": "backup"}) == 3255693 * 311


def test_collector_retries_without_p_when_the_option_is_unknown(tmp_path) -> None:
    p_argv = ("zpool", "status", "-D", "-p")
    runner = StaticRunner(
        {
            p_argv: CommandResult(p_argv, 2, b"", b"invalid option 'p'\nusage:\n", 0.0),
            ("zpool", "status", "-D"): (
                CORPUS / "dedup_02_zpool_status_D_0.6_external_raid.txt"
            ).read_bytes(),
        }
    )
    ms = DedupCollector(context(runner, tmp_path)).collect()
    assert ms.sample_value("zmon_pool_ddt_entries", {"pool": "backup"}) == 3255693
