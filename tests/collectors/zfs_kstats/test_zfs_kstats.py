"""zfs_kstats: curated table, Linux tree and FreeBSD sysctl, and ``zmon parse kstat``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.helpers import fixture_path
from tests.support.freebsd_sysctl import named_kstat_as_sysctl
from tests.support.perf_lab import VERSIONS, check_histograms, lab, proc_tree
from zmon.base.errors import ParseError
from zmon.base.runner import CommandResult, StaticRunner
from zmon.collecting.registry import Context, NoDataError, Paths, collectors
from zmon.collectors.zfs_kstats import (
    FREEBSD_ARGV,
    KSTATS,
    SYSCTL_ROOT,
    ZfsKstatsCollector,
    group_sysctl,
    identify,
    kstat_metrics,
    parse_kstat_kind,
)
from zmon.collectors.zfs_kstats.catalogue import FAMILIES, TABLE
from zmon.exposition.formats import render
from zmon.parsers.kstat.kstat import parse_kstat

NAME = re.compile(r"^zmon_[a-z0-9_]+$")


def kstat_dir(version: str) -> Path:
    return proc_tree(version) / "spl" / "kstat" / "zfs"


def as_sysctl(version: str) -> bytes:
    """The lab's module kstats as FreeBSD's ``sysctl -i kstat.zfs.misc.<kstat> ...`` prints them."""
    return "".join(
        named_kstat_as_sysctl((kstat_dir(version) / k).read_bytes(), SYSCTL_ROOT + k)
        for k in KSTATS
        if (kstat_dir(version) / k).exists()
    ).encode()


def test_table_is_consistent() -> None:
    kinds: dict[str, str] = {}
    for stat in TABLE:
        assert NAME.match(stat.metric) and stat.kstat in KSTATS, stat
        assert stat.metric.endswith("_total") == (stat.kind == "counter"), stat
        assert kinds.setdefault(stat.metric, stat.kind) == stat.kind, stat
        assert f"kstat {stat.kstat}" in stat.help
    keys = [(s.metric, s.labels) for s in TABLE]
    assert len(keys) == len(set(keys))
    for metric, _, _, text in FAMILIES.values():
        assert metric.endswith("_total") and "kstat" in text


@pytest.mark.parametrize("version", VERSIONS)
def test_collector_linux(version: str, golden) -> None:  # type: ignore[no-untyped-def]
    assert collectors()["zfs_kstats"] is ZfsKstatsCollector
    ctx = Context(paths=Paths(procfs=proc_tree(version)), runner=StaticRunner())
    ms = ZfsKstatsCollector(ctx).collect()
    golden(f"perf/zfs_kstats-{version}.prom", render(ms.families()))
    assert ms.sample_value("zmon_dmu_tx_assigned_total") == (23721 if version == "2.3.2" else 23670)
    assert ms.sample_value("zmon_dmu_tx_events_total", {"reason": "quota"}) == 15
    assert ms.sample_value("zmon_zil_log_itxs_total", {"class": "slog"}) == 1
    assert ms.sample_value("zmon_zil_log_record_bytes_total", {"class": "slog"}) == 184
    assert ms.sample_value("zmon_dnode_events_total", {"event": "hold_alloc_hits"}) > 0
    assert ms.sample_value("zmon_vdev_mirror_events_total", {"event": "preferred_found"}) == 0
    assert ms.sample_value("zmon_zfs_kstat_value") is None  # every field is curated
    if version == "2.3.2":
        assert ms.sample_value("zmon_zfetch_stride_total") == 85
        assert ms.sample_value("zmon_dbuf_cache_level_bytes", {"level": "1"}) == 131072
        assert ms.sample_value("zmon_zil_log_written_bytes_total", {"class": "slog"}) == 4096
    else:
        assert ms.sample_value("zmon_vdev_cache_hits_total") == 0
        assert ms.sample_value("zmon_dbuf_hash_elements_max") is not None
        assert ms.sample_value("zmon_zil_log_written_bytes_total") is None  # 2.2+ only


@pytest.mark.parametrize("version", VERSIONS)
def test_collector_freebsd_matches_linux(version: str) -> None:
    run = StaticRunner({FREEBSD_ARGV: as_sysctl(version)})
    ctx = Context(paths=Paths(procfs=Path("/nonexistent")), runner=run, platform="freebsd")
    freebsd = ZfsKstatsCollector(ctx).collect()
    linux = ZfsKstatsCollector(
        Context(paths=Paths(procfs=proc_tree(version)), runner=StaticRunner())
    ).collect()
    assert render(freebsd.families()) == render(linux.families())
    assert FREEBSD_ARGV[:2] == ("sysctl", "-i")


def test_group_sysctl_reads_a_real_freebsd_capture() -> None:
    """The real ``sysctl kstat.zfs.misc.arcstats`` of an OpenZFS-on-FreeBSD host."""
    data = fixture_path("arc", "corpus", "arcstats_08_freebsd_ZoF_2019_sysctl_PARTIAL.txt")
    groups = group_sysctl(data.read_bytes())
    assert list(groups) == ["arcstats"] and len(groups["arcstats"]) == 18
    assert groups["arcstats"]["arc_meta_limit"].value == 3207865344
    assert groups["arcstats"]["arc_dnode_limit"].value == 320786534


def test_freebsd_without_zfs_is_no_data() -> None:
    run = StaticRunner({FREEBSD_ARGV: b""})
    ctx = Context(paths=Paths(), runner=run, platform="freebsd")
    with pytest.raises(NoDataError):
        ZfsKstatsCollector(ctx).collect()
    failed = CommandResult(FREEBSD_ARGV, 1, b"", b"sysctl: boom\n", 0.1)
    ctx = Context(paths=Paths(), runner=StaticRunner({FREEBSD_ARGV: failed}), platform="freebsd")
    with pytest.raises(Exception, match="exited 1"):
        ZfsKstatsCollector(ctx).collect()


def test_linux_without_zfs_is_no_data(tmp_path: Path) -> None:
    with pytest.raises(NoDataError):
        ZfsKstatsCollector(Context(paths=Paths(procfs=tmp_path), runner=StaticRunner())).collect()
    (tmp_path / "spl" / "kstat" / "zfs").mkdir(parents=True)
    with pytest.raises(NoDataError):
        ZfsKstatsCollector(Context(paths=Paths(procfs=tmp_path), runner=StaticRunner())).collect()


def test_unknown_fields_are_kept_generic() -> None:
    fields = parse_kstat("name type data\nhits 4 3\nnew_counter 4 7\nlabel 7 text\n").entries
    ms = kstat_metrics({"zfetchstats": fields})
    assert ms.sample_value("zmon_zfetch_hits_total") == 3
    assert (
        ms.sample_value("zmon_zfs_kstat_value", {"kstat": "zfetchstats", "name": "new_counter"})
        == 7
    )
    assert ms.sample_value("zmon_zfs_kstat_value", {"name": "label"}) is None


@pytest.mark.parametrize(
    "kstat",
    ["dmu_tx", "zil", "dbufstats", "dnodestats", "abdstats", "vdev_mirror_stats", "zfetchstats"],
)
def test_identify_single_files(kstat: str) -> None:
    fields = parse_kstat((kstat_dir("2.3.2") / kstat).read_bytes()).entries
    assert identify(fields) == kstat


def test_parse_kind_single_file() -> None:
    ms = parse_kstat_kind((kstat_dir("2.3.2") / "zil").read_bytes())
    assert ms.sample_value("zmon_zil_commits_total") == 1
    ms = parse_kstat_kind(lab("2.3.2", "01-healthy", "kstat-tank-dmu_tx_assign.txt"))
    assert ms.sample_value("zmon_pool_dmu_tx_assign_seconds_count", {"pool": ""}) == 8
    ms = parse_kstat_kind(lab("2.3.2", "01-healthy", "kstat-tank-txgs.txt"))
    assert ms.sample_value("zmon_pool_txg_sync_duration_seconds_count") == 29
    ms = parse_kstat_kind(b"name type data\nsomething 4 5\n")
    assert ms.sample_value("zmon_zfs_kstat_value", {"kstat": "", "name": "something"}) == 5


def test_parse_kind_tree_dump() -> None:
    """A ``tail -n +1`` dump: per-pool kstats get their pool, raw tables are skipped."""
    base = kstat_dir("2.3.2")
    parts = []
    for path in sorted(base.rglob("*")):
        if path.is_file():
            parts.append(
                f"==> /proc/spl/kstat/zfs/{path.relative_to(base)} <==\n" + path.read_text()
            )
    parts.append("==> /proc/spl/kstat/zfs/dbgmsg <==\ntimestamp    message\n")
    ms = parse_kstat_kind("\n".join(parts).encode())
    assert ms.sample_value("zmon_dmu_tx_assigned_total") == 23721
    for pool in ("rz", "single", "tank"):
        assert ms.sample_value("zmon_pool_dmu_tx_assign_seconds_count", {"pool": pool}) > 0
        assert ms.sample_value("zmon_pool_txg_sync_duration_seconds_count", {"pool": pool}) > 0
    assert check_histograms(ms.families()) == 6


def test_parse_kind_sysctl_and_arcstats() -> None:
    ms = parse_kstat_kind(as_sysctl("2.3.2"))
    assert ms.sample_value("zmon_zil_log_itxs_total", {"class": "slog"}) == 1
    arcstats = lab("2.3.2", "01-healthy", "arcstats.txt")
    for data in (arcstats, b"==> /proc/spl/kstat/zfs/arcstats <==\n" + arcstats):
        ms = parse_kstat_kind(data)
        assert ms.sample_value("zmon_arc_mru_ghost_hits_total") is not None
        assert ms.sample_value("zmon_zfs_kstat_value") is None


def test_group_sysctl_rejects_foreign_lines() -> None:
    with pytest.raises(ParseError, match="line 1"):
        group_sysctl("vfs.zfs.arc_max: 5\n")


@pytest.mark.parametrize("data", [b"", b"garbage line\n", b"\xff\xfe\x00", b"name type data\n"])
def test_parse_kind_garbage(data: bytes) -> None:
    with pytest.raises(ParseError):
        parse_kstat_kind(data)
