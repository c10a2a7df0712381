"""zpool list / zpool get parsing, column inference, and the zpool_list collector."""

from __future__ import annotations

import pytest

from tests.support.pool_lab import LAB, context, lab
from zmon.base.errors import ParseError
from zmon.base.runner import CommandResult, StaticRunner
from zmon.collecting.registry import NoDataError, parse_kinds
from zmon.collectors.zpool_list import LIST_COLUMNS, ZpoolListCollector, pool_metrics
from zmon.exposition.formats import render
from zmon.parsers.zpool.zpool_list import parse_zpool_get, parse_zpool_list

H232 = "2.3.2-01-healthy"
H2111 = "2.1.11-01-healthy"
FUSE = "zfs-fuse-0.7.0"
SUSP = "2.3.2-26-disk-removed-suspended"


def fail(argv: tuple[str, ...], code: int, stderr: str) -> CommandResult:
    return CommandResult(argv, code, b"", stderr.encode(), 0.01)


# ---- parser ----


def test_default_hp_columns_of_openzfs_2x_are_inferred_from_eleven_fields() -> None:
    rows = {r.name: r for r in parse_zpool_list(lab(H232, "zpool-list-Hp.txt"))}
    assert list(rows) == ["rz", "single", "tank"]
    tank = rows["tank"]
    assert tank.size == 1006632960
    assert tank.allocated == 209416192
    assert tank.free == 797216768
    assert tank.checkpoint is None and tank.expandsize is None  # "-" stays absent
    assert tank.fragmentation == pytest.approx(0.06)
    assert tank.capacity == pytest.approx(0.20)
    assert tank.dedupratio == 1.0
    assert tank.health == "ONLINE"
    assert tank.altroot is None


def test_o_columns_include_the_guid() -> None:
    rows = parse_zpool_list(lab(H232, "zpool-list-Hp-o-cols.txt"), LIST_COLUMNS)
    assert [r.guid for r in rows] == [
        "15239731439872754938",
        "13752258479314347541",
        "2974744615444828799",
    ]


def test_human_table_uses_the_header_and_suffixes() -> None:
    rows = {r.name: r for r in parse_zpool_list(lab(H232, "zpool-list.txt"))}
    assert rows["rz"].size == round(1.38 * 2**30)
    assert rows["rz"].allocated == 215 * 2**20
    assert rows["single"].allocated == round(97.1 * 2**20)
    assert rows["rz"].fragmentation == pytest.approx(0.02)
    assert rows["tank"].capacity == pytest.approx(0.20)
    assert rows["tank"].checkpoint is None


def test_verbose_listing_skips_vdev_and_class_rows() -> None:
    rows = parse_zpool_list(lab(H232, "zpool-list-Hpv.txt"))
    assert [r.name for r in rows] == ["rz", "single", "tank"]
    assert rows[2].allocated == 209416192


def test_zfs_fuse_scripted_listing_has_eight_default_columns() -> None:
    rows = {r.name: r for r in parse_zpool_list(lab(FUSE, "healthy-zpool-list-H.txt"))}
    assert rows["fusepool"].size == 250 * 2**20
    assert rows["fusepool"].allocated == round(64.2 * 2**20)
    assert rows["fusepool"].capacity == pytest.approx(0.25)
    assert rows["fusepool"].dedupratio == 1.0
    assert rows["fusepool"].fragmentation is None  # that version has no FRAG column
    assert rows["fusez"].health == "ONLINE"


def test_zfs_fuse_table_shows_a_degraded_pool() -> None:
    rows = {r.name: r for r in parse_zpool_list(lab(FUSE, "degraded-offline-zpool-list.txt"))}
    assert rows["fusepool"].health == "DEGRADED"
    assert rows["fusepool"].allocated == round(65.3 * 2**20)


def test_ten_column_listing_with_frag_first_is_recognised_by_its_percent_sign() -> None:
    text = "zroot\t107G\t30.4G\t76.6G\t12%\t-\t28%\t1.00x\tONLINE\t-\n"
    (row,) = parse_zpool_list(text)
    assert row.fragmentation == pytest.approx(0.12)
    assert row.expandsize is None
    assert row.capacity == pytest.approx(0.28)


def test_ten_column_exact_listing_reads_expandsize_then_fragmentation() -> None:
    (row,) = parse_zpool_list("tank\t1000\t400\t600\t-\t9\t40\t1.50\tONLINE\t-\n")
    assert row.expandsize is None and row.fragmentation == pytest.approx(0.09)
    assert row.dedupratio == 1.5


def test_seven_column_listing_of_the_pre_dedup_era() -> None:
    (row,) = parse_zpool_list("tank\t1000\t400\t600\t40%\tONLINE\t-\n")
    assert row.capacity == pytest.approx(0.4) and row.dedupratio is None


def test_unknown_column_count_names_the_line() -> None:
    with pytest.raises(ParseError) as exc:
        parse_zpool_list("tank\t1\t2\n")
    assert exc.value.line_no == 1


def test_garbage_value_names_the_line() -> None:
    with pytest.raises(ParseError) as exc:
        parse_zpool_list("rz\tbig\t1\t1\t-\t-\t2\t15\t1.00\tONLINE\t-\n")
    assert "size" in str(exc.value) and exc.value.line_no == 1


def test_no_pools_available_is_empty() -> None:
    assert parse_zpool_list("no pools available\n") == []


def test_zpool_get_scripted_and_human() -> None:
    props = parse_zpool_get(lab(H232, "zpool-get-Hp-all.txt"))
    assert props["tank"]["freeing"] == ("0", "-")
    assert props["tank"]["feature@async_destroy"] == ("enabled", "local")
    fuse = parse_zpool_get(lab(FUSE, "healthy-zpool-get-all.txt"))
    assert fuse["fusepool"]["guid"] == ("4951500193394806122", "default")
    assert fuse["fusepool"]["dedupratio"] == ("1.00x", "-")
    assert fuse["fusepool"]["version"] == ("23", "default")


def test_zpool_get_value_with_spaces_in_the_human_table() -> None:
    text = "NAME  PROPERTY  VALUE  SOURCE\ntank  comment   rack 4 shelf 2  local\n"
    assert parse_zpool_get(text)["tank"]["comment"] == ("rack 4 shelf 2", "local")


# ---- exposition ----


def test_metrics_merge_list_and_get() -> None:
    rows = parse_zpool_list(lab(H232, "zpool-list-Hp-o-cols.txt"), LIST_COLUMNS)
    ms = pool_metrics(rows, parse_zpool_get(lab(H232, "zpool-get-Hp-all.txt")))
    assert ms.sample_value("zmon_pool_size_bytes", {"pool": "rz"}) == 1476395008
    assert ms.sample_value("zmon_pool_fragmentation_ratio", {"pool": "tank"}) == 0.06
    assert ms.sample_value("zmon_pool_expand_size_bytes", {"pool": "tank"}) is None
    assert ms.sample_value("zmon_pool_freeing_bytes", {"pool": "tank"}) == 0
    assert ms.sample_value("zmon_pool_readonly", {"pool": "tank"}) == 0
    assert ms.sample_value("zmon_pool_bclone_saved_bytes", {"pool": "tank"}) == 0
    assert ms.sample_value("zmon_pool_features", {"pool": "rz", "state": "active"}) == 14
    assert (
        ms.sample_value(
            "zmon_pool_info",
            {"pool": "tank", "guid": "2974744615444828799", "health": "online", "ashift": "12"},
        )
        == 1
    )


def test_old_zpool_get_has_fewer_properties_and_they_stay_absent() -> None:
    ms = pool_metrics([], parse_zpool_get(lab(FUSE, "healthy-zpool-get-all.txt")))
    assert ms.sample_value("zmon_pool_size_bytes", {"pool": "fusepool"}) == 250 * 2**20
    assert ms.sample_value("zmon_pool_fragmentation_ratio", {"pool": "fusepool"}) is None
    assert ms.sample_value("zmon_pool_freeing_bytes", {"pool": "fusepool"}) is None
    assert ms.sample_value("zmon_pool_features", {"pool": "fusepool"}) is None


@pytest.mark.parametrize(
    "path",
    sorted(
        str(p.relative_to(LAB))
        for p in LAB.glob("*/*zpool-*")
        if "list" in p.name or "get" in p.name
    ),
)
def test_parse_kind_accepts_every_lab_listing(path: str) -> None:
    func, _ = parse_kinds()["zpool-list"]
    ms = func((LAB / path).read_bytes())
    assert any(f.name == "zmon_pool_size_bytes" for f in ms.families())


def test_parse_kind_rejects_foreign_text() -> None:
    func, _ = parse_kinds()["zpool-list"]
    with pytest.raises(ParseError):
        func(b"hello world\n")


# ---- collector ----


def _modern_runner(scenario: str) -> StaticRunner:
    return StaticRunner(
        {
            ("zpool", "list", "-Hp", "-o", ",".join(LIST_COLUMNS)): lab(
                scenario, "zpool-list-Hp-o-cols.txt"
            ),
            ("zpool", "get", "-Hp", "all"): lab(scenario, "zpool-get-Hp-all.txt"),
        }
    )


@pytest.mark.parametrize("scenario", [H232, H2111, SUSP])
def test_collector_golden(scenario: str, tmp_path, golden) -> None:
    collector = ZpoolListCollector(context(_modern_runner(scenario), tmp_path))
    golden(f"pools/zpool_list-{scenario}.prom", render(collector.collect().families()))


def test_collector_reports_a_suspended_pool_in_its_info(tmp_path) -> None:
    ms = ZpoolListCollector(context(_modern_runner(SUSP), tmp_path)).collect()
    assert ms.sample_value("zmon_pool_info", {"pool": "fragile", "health": "suspended"}) == 1


def test_collector_drops_columns_an_old_zpool_refuses(tmp_path) -> None:
    full = ("zpool", "list", "-Hp", "-o", ",".join(LIST_COLUMNS))
    no_ckpt = [c for c in LIST_COLUMNS if c != "checkpoint"]
    fewer = ("zpool", "list", "-Hp", "-o", ",".join(no_ckpt))
    no_guid = ("zpool", "list", "-Hp", "-o", ",".join(c for c in no_ckpt if c != "guid"))
    runner = StaticRunner(
        {
            full: fail(full, 2, "invalid property 'checkpoint'\nusage: ..."),
            fewer: fail(fewer, 2, "bad property list: invalid property 'guid'"),
            no_guid: "tank\t1000\t400\t600\t-\t9\t40\t1.00\tONLINE\t-\n",
            ("zpool", "get", "-Hp", "all"): "tank\treadonly\toff\t-\n",
        }
    )
    collector = ZpoolListCollector(context(runner, tmp_path))
    ms = collector.collect()
    assert ms.sample_value("zmon_pool_fragmentation_ratio", {"pool": "tank"}) == 0.09
    assert ms.sample_value("zmon_pool_readonly", {"pool": "tank"}) == 0
    runner.calls.clear()
    collector.collect()
    assert runner.calls[0] == no_guid  # the working column set is remembered


def test_collector_falls_back_to_default_columns_on_zfs_fuse(tmp_path, golden) -> None:
    full = ("zpool", "list", "-Hp", "-o", ",".join(LIST_COLUMNS))
    runner = StaticRunner(
        {
            full: fail(full, 2, "invalid option 'p'\nusage:\n\tlist [-H] [-o field[,...]] [pool]"),
            ("zpool", "list", "-Hp"): fail(("zpool",), 2, "invalid option 'p'\nusage:"),
            ("zpool", "list", "-H"): lab(FUSE, "healthy-zpool-list-H.txt"),
            ("zpool", "get", "-Hp", "all"): fail(("zpool",), 2, "invalid option 'H'\nusage:"),
            # only fusepool's properties were captured (zpool get all fusepool)
            ("zpool", "get", "all"): lab(FUSE, "healthy-zpool-get-all.txt"),
        }
    )
    collector = ZpoolListCollector(context(runner, tmp_path))
    ms = collector.collect()
    assert ms.sample_value("zmon_pool_size_bytes", {"pool": "fusez"}) == 752 * 2**20
    assert ms.sample_value("zmon_pool_info", {"pool": "fusepool", "version": "23"}) == 1
    golden("pools/zpool_list-zfs-fuse-0.7.0.prom", render(ms.families()))
    runner.calls.clear()
    collector.collect()  # the refused forms are not tried again
    assert runner.calls[:2] == [("zpool", "list", "-H"), ("zpool", "get", "all")]
    assert runner.calls[2][:4] == ("zfs", "get", "-Hp", "creation")  # none recorded: absent


def test_collector_serves_each_pools_creation_time_from_its_root_dataset(tmp_path) -> None:
    runner = _modern_runner(H232)
    runner.responses[("zfs", "get", "-Hp", "creation", "rz", "single", "tank")] = lab(
        H232, "zfs-get-Hp-creation.txt"
    )
    ms = ZpoolListCollector(context(runner, tmp_path)).collect()
    assert ms.sample_value("zmon_pool_creation_time_seconds", {"pool": "tank"}) == 1795997186
    assert ms.sample_value("zmon_pool_creation_time_seconds", {"pool": "rz"}) == 1795997187


def test_a_zfs_that_refuses_the_creation_query_costs_only_the_pool_age(tmp_path) -> None:
    runner = _modern_runner(H232)
    argv = ("zfs", "get", "-Hp", "creation", "rz", "single", "tank")
    runner.responses[argv] = fail(argv, 2, "invalid option 'p'\nusage: ...")
    collector = ZpoolListCollector(context(runner, tmp_path))
    ms = collector.collect()
    assert ms.sample_value("zmon_pool_size_bytes", {"pool": "tank"}) is not None
    assert ms.sample_value("zmon_pool_creation_time_seconds", {"pool": "tank"}) is None
    runner.calls.clear()
    collector.collect()
    assert argv not in runner.calls  # refused once, not asked again


def test_collector_without_zpool_has_no_data(tmp_path) -> None:
    with pytest.raises(NoDataError):
        ZpoolListCollector(context(StaticRunner({}), tmp_path)).collect()


def test_collector_without_the_zfs_module_has_no_data(tmp_path) -> None:
    argv = ("zpool", "list", "-Hp", "-o", ",".join(LIST_COLUMNS))
    runner = StaticRunner(
        {
            argv: fail(
                argv,
                1,
                "The ZFS modules are not loaded.\n"
                "Try running '/sbin/modprobe zfs' as root to load them.",
            )
        }
    )
    with pytest.raises(NoDataError):
        ZpoolListCollector(context(runner, tmp_path)).collect()
