"""Per-pool kstat parsing and the pool_kstats collector on fake procfs trees."""

from __future__ import annotations

import pytest

from tests.support.pool_lab import LAB, POOLS, build_procfs, context
from zmon.base.errors import ParseError
from zmon.base.runner import StaticRunner
from zmon.collecting.registry import NoDataError
from zmon.collectors.pool_kstats import PoolKstatsCollector
from zmon.exposition.formats import render
from zmon.parsers.kstat.pool_kstats import (
    parse_guid,
    parse_io_kstat,
    parse_named_kstat,
    parse_state,
    parse_txgs,
)

H232 = LAB / "2.3.2-01-healthy"


def test_named_kstat_rows_are_keyed_by_name() -> None:
    rows = parse_named_kstat((H232 / "kstat-tank-iostats.txt").read_bytes())
    assert rows["arc_write_count"] == 9041 and rows["arc_write_bytes"] == 244073164
    assert rows["direct_read_count"] == 0
    objset = parse_named_kstat((H232 / "kstat-tank-objset-0x85.txt").read_bytes())
    assert objset["dataset_name"] == "tank/data"


def test_named_kstat_rejects_garbage() -> None:
    with pytest.raises(ParseError) as exc:
        parse_named_kstat("name type data\nwrites 4 lots\n")
    assert exc.value.line_no == 2


def test_old_io_kstat() -> None:
    io = parse_io_kstat((POOLS / "synthetic" / "kstat-oldpool-io.txt").read_bytes())
    assert io["nread"] == 1180123136 and io["writes"] == 180221 and io["rcnt"] == 2
    with pytest.raises(ParseError):
        parse_io_kstat("nread nwritten\n1\n")


def test_state_guid_and_txgs() -> None:
    assert parse_state(b"SUSPENDED\n") == "suspended"
    assert parse_state(b"") is None
    assert parse_guid((H232 / "kstat-tank-guid.txt").read_bytes()) == "2974744615444828799"
    txgs = parse_txgs((H232 / "kstat-tank-txgs.txt").read_bytes())
    assert txgs.rows == 30 and txgs.latest_txg == 34 and txgs.latest_state == "O"
    with pytest.raises(ParseError):
        parse_txgs("5 20465902230 C\n")


@pytest.mark.parametrize(
    "scenario", ["2.3.2-01-healthy", "2.1.11-01-healthy", "2.3.2-26-disk-removed-suspended"]
)
def test_collector_golden(scenario: str, tmp_path, golden) -> None:
    procfs = build_procfs(LAB / scenario, tmp_path / "proc")
    ms = PoolKstatsCollector(context(StaticRunner({}), tmp_path, procfs=procfs)).collect()
    golden(f"pools/pool_kstats-{scenario}.prom", render(ms.families()))


def test_suspended_pool_state(tmp_path) -> None:
    procfs = build_procfs(LAB / "2.3.2-26-disk-removed-suspended", tmp_path / "proc")
    ms = PoolKstatsCollector(context(StaticRunner({}), tmp_path, procfs=procfs)).collect()
    assert ms.sample_value("zmon_pool_kstat_state", {"pool": "fragile", "state": "suspended"}) == 1
    assert ms.sample_value("zmon_pool_kstat_state", {"pool": "fragile", "state": "online"}) == 0


def test_old_io_kstat_collector(tmp_path, golden) -> None:
    procfs = build_procfs(POOLS / "synthetic", tmp_path / "proc")
    ms = PoolKstatsCollector(context(StaticRunner({}), tmp_path, procfs=procfs)).collect()
    assert ms.sample_value("zmon_pool_kstat_io_read_bytes_total", {"pool": "oldpool"}) == 1180123136
    assert ms.sample_value("zmon_pool_kstat_io_wait_seconds_total") == pytest.approx(51.23456789)
    golden("pools/pool_kstats-old-io.prom", render(ms.families()))


def test_a_broken_file_is_counted_and_the_rest_still_exported(tmp_path) -> None:
    procfs = build_procfs(H232, tmp_path / "proc")
    (procfs / "spl" / "kstat" / "zfs" / "tank" / "iostats").write_text("garbage here\n")
    ms = PoolKstatsCollector(context(StaticRunner({}), tmp_path, procfs=procfs)).collect()
    assert ms.sample_value("zmon_pool_kstat_read_errors", {"pool": "tank"}) == 1
    assert ms.sample_value("zmon_pool_kstat_read_errors", {"pool": "rz"}) == 0
    assert ms.sample_value("zmon_pool_kstat_state", {"pool": "tank", "state": "online"}) == 1
    assert ms.sample_value("zmon_pool_kstat_io_operations_total", {"pool": "tank"}) is None


def test_no_kstat_directory_means_no_data(tmp_path) -> None:
    with pytest.raises(NoDataError):
        PoolKstatsCollector(context(StaticRunner({}), tmp_path)).collect()
