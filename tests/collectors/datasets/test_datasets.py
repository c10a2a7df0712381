"""zfs list parsing, dataset selection and caps, objset kstats, and the datasets collector."""

from __future__ import annotations

import pytest

from tests.support.pool_lab import LAB, build_procfs, context, snapshot_times, zfs_list_output
from zmon.base.errors import ParseError
from zmon.base.runner import CommandResult, StaticRunner
from zmon.collecting.registry import OptionError
from zmon.collectors.datasets import (
    COLUMNS,
    DatasetsCollector,
    ObjsetReader,
    SnapshotPolicy,
    dataset_metrics,
    select,
)
from zmon.exposition.formats import render
from zmon.parsers.kstat.pool_kstats import parse_objset
from zmon.parsers.zfs.zfs_datasets import parse_zfs_list
from zmon.parsers.zfs.zfs_snapshots import parse_snapshot_times

H232 = "2.3.2-01-healthy"
H2111 = "2.1.11-01-healthy"


def get_text(scenario: str) -> str:
    return (LAB / scenario / "zfs-get-Hp-all-filtered.txt").read_text()


def list_argv(cols) -> tuple[str, ...]:
    return ("zfs", "list", "-Hp", "-t", "filesystem,volume", "-o", ",".join(cols))


SNAP_ARGV = ("zfs", "list", "-Hp", "-t", "snapshot", "-o", "name,creation")


def runner_for(scenario: str, cols=COLUMNS) -> StaticRunner:
    text = get_text(scenario)
    return StaticRunner(
        {list_argv(cols): zfs_list_output(text, cols), SNAP_ARGV: snapshot_times(text)}
    )


def test_parse_lab_datasets() -> None:
    ds = {d.name: d for d in parse_zfs_list(zfs_list_output(get_text(H232), COLUMNS), COLUMNS)}
    assert sorted(ds) == [
        "rz",
        "rz/data",
        "single",
        "single/docs",
        "tank",
        "tank/big",
        "tank/data",
        "tank/vol",
    ]
    data = ds["tank/data"]
    assert data.pool == "tank" and data.type == "filesystem"
    assert data.values["used"] == 57356288
    assert data.values["compressratio"] == 1.97
    assert data.values["quota"] == 0
    assert "volsize" not in data.values  # "-" for a filesystem
    assert ds["tank/vol"].type == "volume" and ds["tank/vol"].values["volsize"] == 67108864


def test_old_style_ratio_suffix_and_not_tracked_counts() -> None:
    cols = ("name", "type", "compressratio", "snapshot_count", "used")
    (d,) = parse_zfs_list("pool\tfilesystem\t1.00x\t18446744073709551615\t67166208\n", cols)
    assert d.values == {"compressratio": 1.0, "used": 67166208}


def test_wrong_column_count_names_the_line() -> None:
    with pytest.raises(ParseError) as exc:
        parse_zfs_list("tank\tfilesystem\n", ("name", "type", "used"))
    assert exc.value.line_no == 1


def test_objset_kstat_joins_by_dataset_name() -> None:
    stats = parse_objset("0x85", (LAB / H232 / "kstat-tank-objset-0x85.txt").read_bytes())
    assert stats.dataset == "tank/data" and stats.writes == 3415 and stats.nwritten == 92957736
    assert stats.zil_commit_count == 0
    old = parse_objset("0x5a", (LAB / H2111 / "kstat-tank-objset-0x5a.txt").read_bytes())
    assert old.dataset == "tank/big" and old.zil_commit_count is None


def test_select_globs_exclude_wins_and_shallow_first() -> None:
    ds = parse_zfs_list(zfs_list_output(get_text(H232), COLUMNS), COLUMNS)
    names = [d.name for d in select(ds, ["tank*"], ["tank/vol"])]
    assert names == ["tank", "tank/big", "tank/data"]
    assert [d.name for d in select(ds, [], [])][:3] == ["rz", "single", "tank"]


def test_max_series_drops_whole_datasets_and_says_so() -> None:
    ds = select(parse_zfs_list(zfs_list_output(get_text(H232), COLUMNS), COLUMNS), [], [])
    full = dataset_metrics(ds, {}, None, 0)
    per_dataset = sum(
        1 for f in full.families() for s in f.samples if s.labels.get("dataset") == "rz"
    )
    capped = dataset_metrics(ds, {}, None, per_dataset * 3)
    kept = {
        s.labels["dataset"] for f in capped.families() for s in f.samples if "dataset" in s.labels
    }
    assert kept == {"rz", "single", "tank"}
    assert capped.sample_value("zmon_datasets_truncated") == 1
    assert capped.sample_value("zmon_datasets_dropped") == 5
    assert full.sample_value("zmon_datasets_truncated") == 0


@pytest.mark.parametrize("scenario", [H232, H2111])
def test_collector_golden(scenario: str, tmp_path, golden) -> None:
    procfs = build_procfs(LAB / scenario, tmp_path / "proc")
    # the snapshot policy selects tank's children (tank itself is not snapshotted)
    opts = {"snapshot_expected": ["tank/*"]}
    ms = DatasetsCollector(context(runner_for(scenario), tmp_path, opts, procfs=procfs)).collect()
    labels = {"pool": "tank", "dataset": "tank/big", "type": "filesystem"}
    assert ms.sample_value("zmon_dataset_written_bytes_total", labels) == 134217728
    assert ms.sample_value("zmon_dataset_snapshots", labels) == 1
    golden(f"pools/datasets-{scenario}.prom", render(ms.families()))


def test_collector_options_filter_and_skip_costly_parts(tmp_path) -> None:
    runner = runner_for(H232)
    opts = {
        "include": ["single*"],
        "exclude": [],
        "count_snapshots": False,
        "io_kstats": False,
        "max_series": 0,
    }
    ms = DatasetsCollector(context(runner, tmp_path, opts)).collect()
    datasets = {
        s.labels["dataset"] for f in ms.families() for s in f.samples if "dataset" in s.labels
    }
    assert datasets == {"single", "single/docs"}
    assert SNAP_ARGV not in runner.calls
    assert ms.sample_value("zmon_dataset_snapshots") is None
    assert ms.sample_value("zmon_datasets_snapshot_listing_success") is None


def test_collector_drops_properties_an_old_zfs_refuses(tmp_path) -> None:
    text = get_text(H2111)
    no_new = [c for c in COLUMNS if c not in ("logicalused", "logicalreferenced")]
    no_logical_used = [c for c in COLUMNS if c != "logicalused"]
    first, second = list_argv(COLUMNS), list_argv(no_logical_used)
    runner = StaticRunner(
        {
            first: CommandResult(
                first, 2, b"", b"bad property list: invalid property 'logicalused'\n", 0.0
            ),
            second: CommandResult(
                second, 2, b"", b"bad property list: invalid property 'logicalreferenced'\n", 0.0
            ),
            list_argv(no_new): zfs_list_output(text, no_new),
            SNAP_ARGV: snapshot_times(text),
        }
    )
    ms = DatasetsCollector(context(runner, tmp_path)).collect()
    assert ms.sample_value("zmon_dataset_used_bytes", {"dataset": "tank/data"}) == 56578048
    assert ms.sample_value("zmon_dataset_logical_used_bytes") is None


def test_snapshot_listing_failure_keeps_the_rest(tmp_path) -> None:
    text = get_text(H232)
    runner = StaticRunner(
        {
            list_argv(COLUMNS): zfs_list_output(text, COLUMNS),
            SNAP_ARGV: CommandResult(SNAP_ARGV, 1, b"", b"cannot iterate\n", 0.0),
        }
    )
    ms = DatasetsCollector(context(runner, tmp_path)).collect()
    assert ms.sample_value("zmon_dataset_used_bytes", {"dataset": "tank"}) == 279662592
    assert ms.sample_value("zmon_dataset_snapshots") is None
    assert ms.sample_value("zmon_datasets_snapshot_listing_success") == 0


FUSE = LAB / "zfs-fuse-0.7.0" / "datasets"


def recorded_runner(folder) -> StaticRunner:
    """Commands recorded from a run of the collector: commands.tsv names each one's files."""
    table = {}
    for row in (folder / "commands.tsv").read_text().splitlines():
        name, code, command = row.split("\t")
        argv = tuple(command.split(" "))
        out, err = folder / f"{name}.out", folder / f"{name}.err"
        table[argv] = CommandResult(
            argv,
            int(code),
            out.read_bytes() if out.exists() else b"",
            err.read_bytes() if err.exists() else b"",
            0.1,
        )
        if argv[:3] == ("zfs", "list", "-Hp") and b"invalid option 'p'" in table[argv].stderr:
            # refused on -p before the columns are read: the same answer to today's columns
            today = (*argv[:-1], ",".join(COLUMNS))
            table[today] = CommandResult(today, *(getattr(table[argv], f) for f in _RESULT))
    return StaticRunner(table)


_RESULT = ("returncode", "stdout", "stderr", "duration")


def test_zfs_fuse_list_without_p_falls_back_to_zfs_get(tmp_path) -> None:
    """zfs-fuse 0.7: `zfs list` refuses -p ("invalid option 'p'"), `zfs get -Hp` works; its
    `zfs get` has no -t either, so the snapshot times come from `zfs get -Hp creation`."""
    runner = recorded_runner(FUSE)
    collector = DatasetsCollector(context(runner, tmp_path))
    ms = collector.collect()
    assert runner.calls[0][:3] == ("zfs", "list", "-Hp")
    assert [c[:3] for c in runner.calls[1:7]] == [("zfs", "get", "-Hp")] * 6
    labels = {"pool": "i30fuse", "type": "filesystem"}
    assert ms.sample_value("zmon_dataset_used_bytes", {**labels, "dataset": "i30fuse"}) == 65892352
    alice = {**labels, "dataset": "i30fuse/home/alice"}
    assert ms.sample_value("zmon_dataset_referenced_bytes", alice) == 31612928
    assert ms.sample_value("zmon_dataset_refquota_bytes", alice) == 32 << 20
    assert ms.sample_value("zmon_dataset_quota_bytes", alice) is None  # none set
    assert ms.sample_value("zmon_dataset_used_by_snapshots_bytes", alice) == 90112
    assert ms.sample_value("zmon_dataset_compress_ratio", alice) == 1.0
    assert ms.sample_value("zmon_dataset_snapshots", alice) == 2
    newest = "zmon_dataset_newest_snapshot_timestamp_seconds"
    assert ms.sample_value(newest, alice) == 1796283016  # daily-2, not daily-1
    home = {**labels, "dataset": "i30fuse/home"}
    assert ms.sample_value("zmon_dataset_quota_bytes", home) == 64 << 20
    assert ms.sample_value("zmon_dataset_refquota_bytes", home) is None
    scratch = {**labels, "dataset": "i30fuse/scratch"}  # no snapshot: counted 0, no time
    assert ms.sample_value("zmon_dataset_snapshots", scratch) == 0
    assert ms.sample_value(newest, scratch) is None
    assert ms.sample_value("zmon_dataset_logical_used_bytes", alice) is None
    snap = {**labels, "dataset": "i30fuse/home/alice@daily-1", "type": "snapshot"}
    assert ms.sample_value("zmon_dataset_used_bytes", snap) is None
    # The next run goes straight to zfs get with the properties that worked.
    runner.calls.clear()
    collector.collect()
    assert runner.calls == [runner_calls_of(FUSE)[5], runner_calls_of(FUSE)[6]]


def runner_calls_of(folder) -> list[tuple[str, ...]]:  # type: ignore[no-untyped-def]
    rows = (folder / "commands.tsv").read_text().splitlines()
    return [tuple(row.split("\t")[2].split(" ")) for row in rows]


def test_zfs_get_rows_group_by_dataset_and_skip_snapshots() -> None:
    from zmon.parsers.zfs.zfs_datasets import parse_zfs_get

    text = (FUSE / "06-zfs-get.out").read_text()
    got = parse_zfs_get(text, ["name", "type", "used", "volsize"])
    assert [(d.name, d.type, d.values) for d in got] == [
        ("i30fuse", "filesystem", {"used": 65892352.0}),
        ("i30fuse/home", "filesystem", {"used": 60301312.0}),
        ("i30fuse/home/alice", "filesystem", {"used": 31703040.0}),
        ("i30fuse/home/bob", "filesystem", {"used": 28467200.0}),
        ("i30fuse/scratch", "filesystem", {"used": 4317184.0}),
    ]
    with pytest.raises(ParseError):
        parse_zfs_get("i30fuse used\n", ["name", "used"])


def test_datasets_past_the_cap_are_counted_not_parsed(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The collector parses rows only as far as max_series lets datasets in; the output is
    what parsing every row gives."""
    import zmon.collectors.datasets as mod

    procfs = build_procfs(LAB / H232, tmp_path / "proc")
    ds = select(parse_zfs_list(zfs_list_output(get_text(H232), COLUMNS), COLUMNS), [], [])
    parsed: list[str] = []
    real = mod.parse_zfs_list

    def counting(line, cols):  # type: ignore[no-untyped-def]
        out = real(line, cols)
        parsed.extend(d.name for d in out)
        return out

    monkeypatch.setattr(mod, "parse_zfs_list", counting)
    for cap in (0, 40, 60):
        parsed.clear()
        opts = {"include": [], "exclude": [], "count_snapshots": True, "io_kstats": True}
        ctx = context(runner_for(H232), tmp_path, {**opts, "max_series": cap}, procfs=procfs)
        lazy = DatasetsCollector(ctx).collect()
        reader = mod.ObjsetReader()
        reader.scan(procfs / "spl" / "kstat" / "zfs")
        snaps = parse_snapshot_times(snapshot_times(get_text(H232)))
        listing = "zmon_datasets_snapshot_listing_success"
        assert lazy.sample_value(listing) == 1
        served = [f for f in lazy.families() if f.name != listing]
        assert render(served) == render(dataset_metrics(ds, snaps, reader, cap).families())
        dropped = lazy.sample_value("zmon_datasets_dropped")
        assert dropped == (0 if cap == 0 else len(ds) - len(parsed) + 1)
        assert cap == 0 or len(parsed) < len(ds)


def _one_objset(tmp_path):  # type: ignore[no-untyped-def]
    """A kstat directory with pool ``tank`` and one objset file: (pool dir, its text, dataset)."""
    pool = tmp_path / "tank"
    pool.mkdir()
    kstat = (LAB / H232 / "kstat-tank-objset-0x85.txt").read_text()
    (pool / "objset-0x85").write_text(kstat)
    return pool, kstat, parse_objset("0x85", kstat).dataset


def test_objset_reader_reads_only_what_is_asked_and_checks_names(tmp_path) -> None:  # type: ignore[no-untyped-def]
    pool, kstat, name = _one_objset(tmp_path)
    reader = ObjsetReader()
    reader.scan(tmp_path)  # the new file is read once to learn its dataset
    assert reader.get(name) is not None and reader.get("tank/other") is None
    reader.scan(tmp_path)
    assert reader.get(name) is not None  # read again: a run's figures are fresh
    # renamed since the scan: the file is not given to the old name, and found again
    (pool / "objset-0x85").write_text(kstat.replace(name, "tank/renamed"))
    assert reader.get(name) is None
    reader.scan(tmp_path)
    found = reader.get("tank/renamed")
    assert found is not None and found.dataset == "tank/renamed"
    (pool / "objset-0x85").unlink()
    reader.scan(tmp_path)
    assert reader.get("tank/renamed") is None


def test_objset_reader_keeps_its_maps_while_the_files_stay_the_same(tmp_path) -> None:  # type: ignore[no-untyped-def]
    pool, kstat, name = _one_objset(tmp_path)
    reader = ObjsetReader()
    reader.scan(tmp_path)
    files = reader._files
    reader.scan(tmp_path)
    assert reader._files is files and reader.get(name) is not None
    (pool / "objset-0x86").write_text(kstat.replace(name, "tank/new"))  # a dataset appears
    reader.scan(tmp_path)
    assert reader._files is not files and reader.get("tank/new") is not None
    (pool / "objset-0x86").write_text(kstat.replace(name, "tank/renamed"))
    assert reader.get("tank/new") is None  # renamed: its entries go ...
    reader.scan(tmp_path)  # ... and the same files are read again to learn the new name
    assert reader.get("tank/renamed") is not None and reader.get(name) is not None


@pytest.mark.parametrize("scenario", [H232, H2111])
def test_each_datasets_objset_id_names_its_kstat_file(scenario: str) -> None:
    """On both lab versions ``objset-0x<objsetid>`` in the pool's kstat directory is the
    dataset's own file: the id ``zfs list`` gives is enough to find it."""
    ds = parse_zfs_list(zfs_list_output(get_text(scenario), COLUMNS), COLUMNS)
    assert ds and all(d.objsetid is not None for d in ds)
    for d in ds:
        kstat = LAB / scenario / f"kstat-{d.pool}-objset-0x{d.objsetid:x}.txt"
        assert parse_objset(hex(d.objsetid), kstat.read_bytes()).dataset == d.name


def test_objset_ids_spare_listing_every_kstat_file(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """With ``objsetid`` listed, the collector opens each exported dataset's own file and
    never lists the kstat directory (10,000 files on a big host, each read on the first run);
    the figures are those found by listing. A zfs without the column lists as before."""
    import zmon.collectors.datasets as mod

    procfs = build_procfs(LAB / H232, tmp_path / "proc")
    text, older = get_text(H232), [c for c in COLUMNS if c != "objsetid"]
    refused = b"bad property list: invalid property 'objsetid'\n"
    without_ids = StaticRunner(
        {
            list_argv(COLUMNS): CommandResult(list_argv(COLUMNS), 2, b"", refused, 0.0),
            list_argv(older): zfs_list_output(text, older),
            SNAP_ARGV: snapshot_times(text),
        }
    )
    listed = DatasetsCollector(context(without_ids, tmp_path, procfs=procfs)).collect()

    def no_listing(kstat_dir):  # type: ignore[no-untyped-def]
        raise AssertionError(f"listed {kstat_dir}")

    monkeypatch.setattr(mod, "_objset_files", no_listing)
    by_id = DatasetsCollector(context(runner_for(H232), tmp_path, procfs=procfs)).collect()
    assert render(by_id.families()) == render(listed.families())
    labels = {"pool": "tank", "dataset": "tank/big", "type": "filesystem"}
    assert by_id.sample_value("zmon_dataset_written_bytes_total", labels) == 134217728


def test_objset_reader_by_id_checks_the_name_and_lists_only_then(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import zmon.collectors.datasets as mod
    from zmon.parsers.zfs.zfs_datasets import Dataset

    pool, kstat, name = _one_objset(tmp_path)
    lists: list[object] = []
    real = mod._objset_files
    monkeypatch.setattr(mod, "_objset_files", lambda d: lists.append(d) or real(d))
    reader = ObjsetReader()
    reader.begin(tmp_path)
    found = reader.stats(Dataset(name, "filesystem", text={"objsetid": str(0x85)}))
    assert found is not None and found.dataset == name and not lists
    # no file for the id (a dataset that is not mounted has no kstat): nothing, no listing
    assert reader.stats(Dataset("tank/unmounted", "filesystem", text={"objsetid": "7"})) is None
    assert not lists
    # the id's file names another dataset: found by listing instead, once per run
    (pool / "objset-0x86").write_text(kstat.replace(name, "tank/other"))
    other = reader.stats(Dataset("tank/other", "filesystem", text={"objsetid": str(0x85)}))
    assert other is not None and other.dataset == "tank/other" and len(lists) == 1
    assert reader.stats(Dataset("tank/gone", "filesystem", text={"objsetid": "x"})) is None
    assert len(lists) == 1
    reader.begin(tmp_path / "absent")  # no kstat directory (FreeBSD, zfs-fuse): nothing opened
    assert reader.stats(Dataset(name, "filesystem", text={"objsetid": str(0x85)})) is None


NEWEST = "zmon_dataset_newest_snapshot_timestamp_seconds"


def test_zfs_fuse_golden(tmp_path, golden) -> None:  # type: ignore[no-untyped-def]
    """A real zfs-fuse run with a quota, a refquota, snapshots and a dataset without any."""
    ms = DatasetsCollector(context(recorded_runner(FUSE), tmp_path)).collect()
    golden("pools/datasets-zfs-fuse-0.7.0.prom", render(ms.families()))


@pytest.mark.parametrize("scenario", [H232, H2111])
def test_newest_snapshot_time_per_dataset_from_one_listing(scenario: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Lab pools: `tank/big@snap1` dates `tank/big`; `single/docs` has no snapshot, so it has
    a count of 0 and no time (absent, so no age alert can fire for it)."""
    runner = runner_for(scenario)
    ms = DatasetsCollector(context(runner, tmp_path, {"io_kstats": False})).collect()
    assert runner.calls.count(SNAP_ARGV) == 1
    assert ms.sample_value("zmon_datasets_snapshot_listing_success") == 1
    creation = {
        line.split("\t")[0]: int(line.split("\t")[2])
        for line in get_text(scenario).splitlines()
        if line.split("\t")[1] == "creation"
    }
    big = {"pool": "tank", "dataset": "tank/big", "type": "filesystem"}
    assert ms.sample_value(NEWEST, big) == creation["tank/big@snap1"]
    docs = {"pool": "single", "dataset": "single/docs", "type": "filesystem"}
    assert ms.sample_value("zmon_dataset_snapshots", docs) == 0
    assert ms.sample_value(NEWEST, docs) is None
    # quotas of 0 are "none" (zfs get -p prints 0, a volume "-"): no series at all
    assert ms.sample_value("zmon_dataset_quota_bytes") is None
    assert ms.sample_value("zmon_dataset_refquota_bytes") is None


def test_snapshot_listing_runs_with_its_own_timeout(tmp_path) -> None:  # type: ignore[no-untyped-def]
    seen: dict[tuple[str, ...], float | None] = {}
    inner = runner_for(H232)

    class Recording:
        def binary(self, name: str) -> str:
            return name

        def run(self, argv, *, timeout=None, stdin=None):  # type: ignore[no-untyped-def]
            seen[tuple(argv)] = timeout
            return inner.run(argv, timeout=timeout, stdin=stdin)

    opts = {"io_kstats": False, "snapshot_timeout": 7.5}
    DatasetsCollector(context(Recording(), tmp_path, opts)).collect()
    assert seen[SNAP_ARGV] == 7.5


def test_snapshot_listing_past_its_timeout_is_killed_and_only_snapshots_go(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A real program that hangs on the snapshot listing: the runner kills it at the
    timeout; the space series stay, the snapshot series are absent (not 0)."""
    from zmon.base.runner import CommandRunner

    listing = tmp_path / "datasets.txt"
    listing.write_text(zfs_list_output(get_text(H232), COLUMNS))
    fake = tmp_path / "zfs"
    fake.write_text(
        f'#!/bin/sh\ncase "$*" in *"-t snapshot"*) exec sleep 60;; esac\ncat "{listing}"\n'
    )
    fake.chmod(0o755)
    runner = CommandRunner(binaries={"zfs": str(fake)})
    opts = {"io_kstats": False, "snapshot_timeout": 0.3}
    ms = DatasetsCollector(context(runner, tmp_path, opts)).collect()
    assert ms.sample_value("zmon_dataset_used_bytes", {"dataset": "tank"}) == 279662592
    assert ms.sample_value("zmon_dataset_snapshots") is None
    assert ms.sample_value(NEWEST) is None
    assert ms.sample_value("zmon_datasets_snapshot_listing_success") == 0


def test_snapshot_listing_that_cannot_be_parsed_fails_the_run(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Creation printed as a date (a zfs that ignored -p) would give wrong ages: the run
    fails with the line named, and the daemon keeps serving the last good data."""
    dates = LAB / "zfs-fuse-0.7.0" / "snapshots" / "zfs-list-H-t-snapshot-o-name-creation.txt"
    text = get_text(H232)
    runner = StaticRunner(
        {list_argv(COLUMNS): zfs_list_output(text, COLUMNS), SNAP_ARGV: dates.read_bytes()}
    )
    with pytest.raises(ParseError, match="line 1: creation 'Thu Dec  3  7:27 2026'"):
        DatasetsCollector(context(runner, tmp_path, {"io_kstats": False})).collect()


def test_newest_snapshot_series_count_against_max_series(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The time is one more series of its dataset, inside the cap like every other one."""
    ds = select(parse_zfs_list(zfs_list_output(get_text(H232), COLUMNS), COLUMNS), [], [])
    snaps = parse_snapshot_times(snapshot_times(get_text(H232)))
    without = dataset_metrics(ds, {}, None, 0)
    with_snaps = dataset_metrics(ds, snaps, None, 0)
    series = lambda ms: sum(len(f.samples) for f in ms.families())  # noqa: E731
    # 8 datasets with a count each, 5 of them with a snapshot time
    assert series(with_snaps) - series(without) == 5
    per_tank = sum(
        1 for f in with_snaps.families() for s in f.samples if s.labels.get("dataset") == "tank"
    )
    capped = dataset_metrics(ds, snaps, None, per_tank)
    assert {s.labels.get("dataset") for f in capped.families() for s in f.samples} >= {"rz"}
    assert capped.sample_value("zmon_datasets_truncated") == 1


def test_snapshot_listing_too_large_for_the_runner_keeps_the_rest(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The runner kills a command past its output cap (64 MiB: about a million snapshots)."""
    from zmon.base.runner import CommandError

    def too_large(argv):  # type: ignore[no-untyped-def]
        raise CommandError("zfs printed more than 67108864 bytes; killed")

    text = get_text(H232)
    runner = StaticRunner(
        {list_argv(COLUMNS): zfs_list_output(text, COLUMNS), SNAP_ARGV: too_large}
    )
    ms = DatasetsCollector(context(runner, tmp_path, {"io_kstats": False})).collect()
    assert ms.sample_value("zmon_dataset_used_bytes", {"dataset": "tank"}) == 279662592
    assert ms.sample_value("zmon_datasets_snapshot_listing_success") == 0
    assert ms.sample_value(NEWEST) is None


# ---- the snapshot policy: which datasets should be snapshotted

EXPECTED = "zmon_dataset_snapshots_expected_since_timestamp_seconds"


def _expected(ms) -> dict[str, float]:
    return {
        s.labels["dataset"]: s.value
        for fam in ms.families()
        for s in fam.samples
        if s.name == EXPECTED
    }


def test_the_snapshot_policy_serves_the_selected_datasets_with_their_creation(tmp_path) -> None:
    opts = {"snapshot_expected": ["rz*", "tank/*"], "snapshot_not_expected": ["tank/vol"]}
    ms = DatasetsCollector(context(runner_for(H232), tmp_path, opts)).collect()
    # creation times as zfs get -Hp creation printed them on the lab host
    assert _expected(ms) == {
        "rz": 1795997187.0,
        "rz/data": 1795997188.0,
        "tank/big": 1795997188.0,
        "tank/data": 1795997188.0,
    }


def test_by_default_only_datasets_marked_for_auto_snapshot_are_judged(tmp_path) -> None:
    ms = DatasetsCollector(context(runner_for(H232), tmp_path)).collect()
    assert _expected(ms) == {}  # nothing marked on the lab host: no dataset ever alerts
    policy = SnapshotPolicy(expected=("tank/*",))
    line = (
        "tank/a\tfilesystem\t1\t1\t1\t1.00x\t1.00x\t0\t0\t0\t0\t1\t1\t1\t1\t1\t0\t0\t-\t-\t{}\t{}"
    )
    marked = parse_zfs_list(line.format(1700000000, "true"), COLUMNS)[0]
    opted_out = parse_zfs_list(line.format(1700000000, "false"), COLUMNS)[0]
    unset = parse_zfs_list(line.format(1700000000, "-"), COLUMNS)[0]
    assert SnapshotPolicy().selects(marked)  # inherited or local "true"
    assert not SnapshotPolicy().selects(unset)
    assert policy.selects(unset)  # by name
    assert not policy.selects(opted_out)  # the property's "false" opts out
    assert not SnapshotPolicy(expected=("tank/*",), not_expected=("tank/a",)).selects(marked)
    assert marked.creation == 1700000000.0


def test_check_config_refuses_a_snapshot_property_that_is_not_a_user_property() -> None:
    with pytest.raises(OptionError, match="snapshot_property"):
        DatasetsCollector.validate_options({"snapshot_property": "creation"})
    with pytest.raises(OptionError, match="snapshot_expected"):
        DatasetsCollector.validate_options({"snapshot_expected": [""]})
    DatasetsCollector.validate_options({"snapshot_property": "org.example:backup"})
    DatasetsCollector.validate_options({"snapshot_property": ""})
