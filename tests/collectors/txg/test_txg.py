"""txgs and dmu_tx_assign: parsing, counting each committed txg once, the txg collector."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support.freebsd_sysctl import named_kstat_as_sysctl
from tests.support.perf_lab import VERSIONS, check_histograms, lab, proc_tree
from zmon.base.errors import ParseError
from zmon.base.runner import StaticRunner
from zmon.collecting.registry import Context, NoDataError, Paths, collectors
from zmon.collectors.txg import SYNC_BOUNDS, PoolTxgs, TxgCollector, parse_txgs_kind, txg_metrics
from zmon.exposition.formats import render
from zmon.parsers.kstat.kstat import parse_kstat
from zmon.parsers.kstat.txgs import parse_dmu_tx_assign, parse_txgs, split_sections

RUNS = ("01-healthy", "02-scrub-in-progress", "04-scrub-finished", "25-after-import")


def txgs(version: str, scenario: str) -> bytes:
    return lab(version, scenario, "kstat-tank-txgs.txt")


def test_parse_real_txgs() -> None:
    rows = parse_txgs(txgs("2.3.2", "02-scrub-in-progress"))
    assert [r.txg for r in rows] == list(range(5, 41))
    assert rows[0].committed and rows[0].ndirty == 688128 and rows[0].nwritten == 630784
    assert rows[0].writes == 142 and rows[0].stime_ns == 275617610 and rows[0].otime_ns == 145327490
    assert [r.state for r in rows[-2:]] == ["S", "O"]


def test_parse_variants() -> None:
    header = "txg      birth            state nreserved    nread        nwritten     reads    writes   otime        qtime        wtime        stime\n"  # noqa: E501
    assert parse_txgs(header) == []  # ZoL 0.6 with zfs_txg_history=0
    row = "7        100              C     1            2            3            4        5        6            7            8            9\n"  # noqa: E501
    kstat_header = "13 0 0x01 100 11200 4116789127 4306493785813\n"
    [r] = parse_txgs(kstat_header + header + row)  # 0.7 printed the kstat header first
    assert (r.txg, r.ndirty, r.stime_ns, r.wtime_ns) == (7, 1, 9, 8)
    [r] = parse_txgs("kstat.zfs.tank.txgs: \n" + header + row)  # FreeBSD sysctl without -n
    assert r.nwritten == 3


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("garbage\n", "line 1"),
        ("txg birth state\n", "lacks stime"),
        ("txg state stime\n1 C 5 6\n", "line 2"),
        ("txg state stime\n1 X 5\n", "unknown txg state"),
        ("txg state stime\n1 C -5\n", "not a count"),
        ("", "without"),
    ],
)
def test_parse_errors(text: str, where: str) -> None:
    with pytest.raises(ParseError, match=where):
        parse_txgs(text)


@pytest.mark.parametrize("version", VERSIONS)
def test_each_committed_txg_counted_once(version: str) -> None:
    state = PoolTxgs()
    assert state.add(parse_txgs(txgs(version, "01-healthy"))) > 0
    before = (state.count, dict(state.totals), state.sync_seconds)
    assert state.add(parse_txgs(txgs(version, "01-healthy"))) == 0  # same ring again
    assert (state.count, dict(state.totals), state.sync_seconds) == before
    assert state.window_max_sync is None
    for scenario in RUNS[1:]:
        state.add(parse_txgs(txgs(version, scenario)))
    # Reference: every committed txg of the last ring before the gap and of the ring after it
    union = {
        r.txg: r
        for s in ("04-scrub-finished", "25-after-import")
        for r in parse_txgs(txgs(version, s))
        if r.committed
    }
    assert state.count == len(union)
    assert state.totals["nwritten"] == sum(r.nwritten or 0 for r in union.values())
    assert state.totals["ndirty"] == sum(r.ndirty or 0 for r in union.values())
    assert state.sync_seconds == pytest.approx(sum(r.stime_ns for r in union.values()) / 1e9)
    first_after_import = min(t for t in union if t > 60)
    last_before = max(t for t in union if t < 60)
    assert state.missed == first_after_import - last_before - 1 > 0
    assert state.last_txg == max(union)


def test_uncommitted_rows_wait_for_commit() -> None:
    state = PoolTxgs()
    state.add(parse_txgs(txgs("2.3.2", "02-scrub-in-progress")))
    assert state.last_txg == 38  # 39 is S(ynced), 40 is O(pen)
    state.add(parse_txgs(txgs("2.3.2", "04-scrub-finished")))
    assert state.count == 44 and state.missed == 0


def test_recreated_pool_counts_again() -> None:
    state = PoolTxgs()
    state.add(parse_txgs(txgs("2.3.2", "25-after-import")))
    count = state.count
    assert state.add(parse_txgs(txgs("2.3.2", "01-healthy"))) == 29  # txg numbers went back
    assert state.count == count + 29 and state.missed == 0


def test_histogram_and_window_metrics() -> None:
    state = PoolTxgs()
    state.add(parse_txgs(txgs("2.3.2", "01-healthy")))
    ms = txg_metrics({"tank": state}, {})
    assert check_histograms(ms.families()) == 1
    key = {"pool": "tank"}
    assert ms.sample_value("zmon_pool_txg_sync_duration_seconds_count", key) == 29
    assert ms.sample_value("zmon_pool_txg_sync_duration_seconds_bucket", {"le": "+Inf"}) == 29
    rows = [r for r in parse_txgs(txgs("2.3.2", "01-healthy")) if r.committed]
    fast = sum(1 for r in rows if r.stime_ns <= 0.01e9)
    assert ms.sample_value("zmon_pool_txg_sync_duration_seconds_bucket", {"le": "0.01"}) == fast
    assert (
        ms.sample_value("zmon_pool_txg_sync_max_seconds", key)
        == max(r.stime_ns for r in rows) / 1e9
    )
    assert ms.sample_value("zmon_pool_txg_phase_seconds_total", {"phase": "open"}) > 0
    assert SYNC_BOUNDS[0] == 0.001 and SYNC_BOUNDS[-1] == 60.0
    state.add(parse_txgs(txgs("2.3.2", "01-healthy")))
    again = txg_metrics({"tank": state}, {})
    assert again.sample_value("zmon_pool_txg_sync_max_seconds", key) is None  # nothing new


@pytest.mark.parametrize("version", VERSIONS)
def test_dmu_tx_assign(version: str) -> None:
    parsed = parse_dmu_tx_assign(lab(version, "01-healthy", "kstat-tank-dmu_tx_assign.txt"))
    assert parsed.pool is None and sum(parsed.buckets.values()) > 0
    kstat = parse_kstat(lab(version, "01-healthy", "kstat-tank-dmu_tx_assign.txt"))
    assert (
        len(parsed.buckets) == len(kstat.entries) and max(parsed.buckets) == len(kstat.entries) - 1
    )
    # FreeBSD prints the same rows through sysctl
    sysctl = named_kstat_as_sysctl(
        lab(version, "01-healthy", "kstat-tank-dmu_tx_assign.txt"),
        "kstat.zfs.tank.misc.dmu_tx_assign",
    )
    freebsd = parse_dmu_tx_assign(sysctl)
    assert freebsd.buckets == parsed.buckets and freebsd.pool == "tank"


def test_dmu_tx_assign_bounds() -> None:
    """Row '2^i ns' counts waits in (2^(i-1), 2^i] ns: exactly the le=2^i bucket."""
    text = "name type data\n1 ns 4 0\n2 ns 4 0\n" + "".join(
        f"{1 << i} ns 4 {3 if i == 20 else 0}\n" for i in range(2, 21)
    )
    ms = txg_metrics({}, {"p": parse_dmu_tx_assign(text)})
    assert ms.sample_value("zmon_pool_dmu_tx_assign_seconds_bucket", {"le": "0.000524288"}) == 0
    assert ms.sample_value("zmon_pool_dmu_tx_assign_seconds_bucket", {"le": "0.001048576"}) == 3
    assert check_histograms(ms.families()) == 1


def test_dmu_tx_assign_empty_file_means_no_waits() -> None:
    parsed = parse_dmu_tx_assign(lab("2.3.2", "25-after-import", "kstat-rz-dmu_tx_assign.txt"))
    assert parsed.buckets == {}
    ms = txg_metrics({}, {"rz": parsed})
    assert ms.sample_value("zmon_pool_dmu_tx_assign_seconds_count", {"pool": "rz"}) == 0
    assert check_histograms(ms.families()) == 1


@pytest.mark.parametrize(
    "text",
    [
        "name type data\n3 ns 4 1\n",
        "name type data\nfoo 4 1\n",
        "kstat.zfs.a.misc.dmu_tx_assign.2 ns: x\n",
        "kstat.zfs.a.misc.dmu_tx_assign.2 ns: 1\nkstat.zfs.b.misc.dmu_tx_assign.4 ns: 1\n",
        "garbage\n",
    ],
)
def test_dmu_tx_assign_errors(text: str) -> None:
    with pytest.raises(ParseError):
        parse_dmu_tx_assign(text)


def linux_ctx(procfs: Path) -> Context:
    return Context(paths=Paths(procfs=procfs), runner=StaticRunner())


@pytest.mark.parametrize("version", VERSIONS)
def test_collector_linux(version: str, tmp_path: Path, golden) -> None:  # type: ignore[no-untyped-def]
    assert collectors()["txg"] is TxgCollector
    proc = tmp_path / "proc"
    shutil.copytree(proc_tree(version), proc)
    collector = TxgCollector(linux_ctx(proc))
    first = collector.collect()
    assert {s.labels["pool"] for s in first.families()[0].samples} == {"rz", "single", "tank"}
    assert check_histograms(first.families()) == 6
    golden(f"perf/txg-{version}.prom", render(first.families()))
    second = collector.collect()  # the same rings again: nothing counted twice
    for name in ("zmon_pool_txg_sync_duration_seconds_count", "zmon_pool_txg_written_bytes_total"):
        assert second.sample_value(name, {"pool": "tank"}) == first.sample_value(
            name, {"pool": "tank"}
        )
    shutil.copy(
        proc_tree(version).parents[1] / "04-scrub-finished" / "kstat-tank-txgs.txt",
        proc / "spl" / "kstat" / "zfs" / "tank" / "txgs",
    )
    third = collector.collect()
    assert third.sample_value("zmon_pool_txg_sync_duration_seconds_count", {"pool": "tank"}) == (
        sum(1 for r in parse_txgs(txgs(version, "04-scrub-finished")) if r.committed)
    )


def test_collector_skips_unparseable_pool(tmp_path: Path) -> None:
    pool = tmp_path / "spl" / "kstat" / "zfs" / "bad"
    pool.mkdir(parents=True)
    (pool / "txgs").write_text("nonsense\n")
    (pool / "dmu_tx_assign").write_text("nonsense\n")
    good = tmp_path / "spl" / "kstat" / "zfs" / "good"
    good.mkdir()
    (good / "txgs").write_bytes(txgs("2.3.2", "01-healthy"))
    ms = TxgCollector(linux_ctx(tmp_path)).collect()
    assert ms.sample_value("zmon_pool_txg_sync_duration_seconds_count", {"pool": "bad"}) is None
    assert ms.sample_value("zmon_pool_txg_sync_duration_seconds_count", {"pool": "good"}) == 29


def test_collector_no_zfs(tmp_path: Path) -> None:
    with pytest.raises(NoDataError):
        TxgCollector(linux_ctx(tmp_path)).collect()


def test_collector_freebsd() -> None:
    sysctl = named_kstat_as_sysctl(
        lab("2.3.2", "01-healthy", "kstat-tank-dmu_tx_assign.txt"),
        "kstat.zfs.tank.misc.dmu_tx_assign",
    )
    run = StaticRunner(
        {
            ("zpool", "list", "-H", "-o", "name"): b"tank\n",
            ("sysctl", "-n", "kstat.zfs.tank.txgs"): b"\n" + txgs("2.3.2", "01-healthy"),
            ("sysctl", "kstat.zfs.tank.misc.dmu_tx_assign"): sysctl.encode(),
        }
    )
    ctx = Context(paths=Paths(procfs=Path("/nonexistent")), runner=run, platform="freebsd")
    ms = TxgCollector(ctx).collect()
    assert ms.sample_value("zmon_pool_txg_sync_duration_seconds_count", {"pool": "tank"}) == 29
    assert ms.sample_value("zmon_pool_dmu_tx_assign_seconds_count", {"pool": "tank"}) == 8


def test_parse_kind_pool_names_from_sections() -> None:
    dump = "".join(
        f"==> /proc/spl/kstat/zfs/{pool}/txgs <==\n"
        + (proc_tree("2.3.2") / "spl" / "kstat" / "zfs" / pool / "txgs").read_text()
        for pool in ("rz", "tank")
    )
    ms = parse_txgs_kind(dump.encode())
    assert ms.sample_value("zmon_pool_txg_sync_duration_seconds_count", {"pool": "rz"}) > 0
    single = parse_txgs_kind(txgs("2.1.11", "01-healthy"))
    assert single.sample_value("zmon_pool_txg_sync_duration_seconds_count", {"pool": ""}) == 28
    assert [p for p, _ in split_sections(dump)] == [
        "/proc/spl/kstat/zfs/rz/txgs",
        "/proc/spl/kstat/zfs/tank/txgs",
    ]
