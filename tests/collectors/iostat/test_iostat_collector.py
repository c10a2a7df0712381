"""The iostat collector on recorded zpool output: argv, options, golden metrics, histograms."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.perf_lab import PERF, VERSIONS, check_histograms, lab
from zmon.base.runner import CommandResult, StaticRunner
from zmon.cli import main as cli_main
from zmon.collecting.registry import Context, NoDataError, Paths, collectors
from zmon.collectors.iostat import (
    HISTO_ARGV,
    LEGACY_TABLE_ARGV,
    TABLE_ARGV,
    IostatCollector,
    histogram_argv,
    iostat_metrics,
)
from zmon.exposition.formats import render
from zmon.parsers.common.pow2_histogram import (
    COARSE_EXPONENTS,
    FINE_EXPONENTS,
    bucket_bounds,
    from_iostat_rows,
    iostat_cumulative,
)
from zmon.parsers.zpool.zpool_iostat import HISTO_BUCKETS, parse_zpool_iostat

SINGLE_LEAF = "nvme-QEMU_NVMe_Ctrl_ZLNVME1"


def verbose_histograms(version: str) -> bytes:
    """``-p -w -v`` as the lab would print it for the pools' rows we can derive exactly.

    ``single`` is a one-disk pool, so its only top-level vdev has the pool's histograms; the
    block is repeated under the disk's name. Other vdevs print no block (not recorded).
    """
    text = lab(version, "01-healthy", "zpool-iostat-p-w.txt").decode()
    blocks = text.split("\n\n")
    at = next(i for i, b in enumerate(blocks) if b.startswith("single"))
    leaf = SINGLE_LEAF + blocks[at][len("single") :].replace(" " * len(SINGLE_LEAF), "", 1)
    return "\n\n".join([*blocks[: at + 1], leaf, *blocks[at + 1 :]]).encode()


def runner(version: str, **extra: bytes | CommandResult) -> StaticRunner:
    responses: dict[tuple[str, ...], bytes | CommandResult] = {
        TABLE_ARGV: lab(version, "01-healthy", "zpool-iostat-v-p-l-q.SYNTHETIC.txt"),
        HISTO_ARGV: lab(version, "01-healthy", "zpool-iostat-p-w.txt"),
        (*HISTO_ARGV, "-v"): verbose_histograms(version),
    }
    responses.update({tuple(k.split()): v for k, v in extra.items()})
    return StaticRunner(responses)


def collect(version: str, **options: str) -> tuple[object, StaticRunner]:
    run = runner(version)
    ctx = Context(paths=Paths(procfs=Path("/nonexistent")), runner=run, options=options)
    return IostatCollector(ctx).collect(), run


def test_registered_with_options() -> None:
    cls = collectors()["iostat"]
    assert cls is IostatCollector and cls.default_enabled
    opts = {o.name: o for o in cls.options}
    assert opts["histograms"].default == "toplevel"
    assert set(opts["histograms"].choices) == {"toplevel", "all", "pool", "none"}
    assert opts["latency_buckets"].choices == ("fine", "coarse")


def test_argv() -> None:
    assert TABLE_ARGV == ("zpool", "iostat", "-v", "-p", "-l", "-q")
    assert histogram_argv("pool") == ("zpool", "iostat", "-p", "-w")
    assert (
        histogram_argv("toplevel") == histogram_argv("all") == ("zpool", "iostat", "-p", "-w", "-v")
    )
    assert histogram_argv("none") is None


@pytest.mark.parametrize("version", VERSIONS)
def test_golden_default_options(version: str, golden) -> None:  # type: ignore[no-untyped-def]
    ms, run = collect(version)
    assert run.calls == [TABLE_ARGV, (*HISTO_ARGV, "-v")]
    assert check_histograms(ms.families()) > 0
    golden(f"perf/iostat-{version}.prom", render(ms.families()))


def test_pool_and_toplevel_histograms() -> None:
    ms, _ = collect("2.3.2")
    assert (
        ms.sample_value("zmon_pool_io_latency_seconds_count", {"pool": "tank", "op": "read"}) == 9
    )
    # -l prints the midpoint average of the same histogram: the _sum estimate agrees exactly
    total = ms.sample_value("zmon_pool_io_latency_seconds_sum", {"pool": "tank", "op": "read"})
    assert total == pytest.approx(9 * 1092266e-9, rel=1e-6)
    labels = {"pool": "single", "vdev": SINGLE_LEAF, "class": "normal", "op": "write"}
    top = ms.sample_value("zmon_vdev_io_latency_seconds_count", labels)
    pool = ms.sample_value("zmon_pool_io_latency_seconds_count", {"pool": "single", "op": "write"})
    assert top == pool > 0
    assert ms.sample_value("zmon_vdev_operations_total", labels) == top
    assert (
        ms.sample_value(
            "zmon_vdev_queue_latency_seconds_count",
            {"pool": "single", "vdev": SINGLE_LEAF, "queue": "async_write"},
        )
        == 1257
    )
    assert ms.sample_value("zmon_vdev_io_latency_seconds_count", {"vdev": "raidz1-0"}) is None


def test_queue_depths_and_lifetime_averages() -> None:
    ms, _ = collect("2.3.2")
    vdd = {"pool": "tank", "vdev": "vdd", "class": "log"}
    assert ms.sample_value("zmon_vdev_queue_pending_ios", {**vdd, "queue": "sync_write"}) == 0
    assert ms.sample_value("zmon_vdev_queue_active_ios", {**vdd, "queue": "rebuild"}) == 0
    assert (
        ms.sample_value(
            "zmon_pool_lifetime_average_bytes_per_second", {"pool": "tank", "op": "write"}
        )
        == 24177777
    )
    v21, _ = collect("2.1.11")
    assert v21.sample_value("zmon_pool_queue_pending_ios", {"queue": "rebuild"}) is None


@pytest.mark.parametrize(
    ("mode", "calls", "vdev_histograms"),
    [("pool", 2, False), ("none", 1, False), ("all", 2, True), ("toplevel", 2, True)],
)
def test_histogram_modes(mode: str, calls: int, vdev_histograms: bool) -> None:
    ms, run = collect("2.3.2", histograms=mode)
    assert len(run.calls) == calls
    names = {f.name for f in ms.families()}
    assert ("zmon_pool_io_latency_seconds" in names) is (mode != "none")
    assert ("zmon_vdev_io_latency_seconds" in names) is vdev_histograms
    assert "zmon_vdev_queue_pending_ios" in names


def test_coarse_buckets() -> None:
    fine, _ = collect("2.3.2")
    coarse, _ = collect("2.3.2", latency_buckets="coarse")

    def buckets(ms) -> int:  # type: ignore[no-untyped-def]
        fam = next(f for f in ms.families() if f.name == "zmon_pool_io_latency_seconds")
        return sum(1 for s in fam.samples if s.name.endswith("_bucket"))

    assert buckets(fine) == 6 * 28 and buckets(coarse) == 6 * 15
    assert check_histograms(coarse.families()) > 0
    key = {"pool": "tank", "op": "write"}
    assert fine.sample_value("zmon_pool_io_latency_seconds_count", key) == coarse.sample_value(
        "zmon_pool_io_latency_seconds_count", key
    )


def test_bucket_bounds_follow_zfs_buckets() -> None:
    """Row j of -w counts [2^j, 2^(j+1)) ns: it is inside le=2^(j+1) ns and not below."""
    rows = [0] * HISTO_BUCKETS
    rows[18] = 5  # the "524us" row
    rows[36] = 2  # the clamped last row: beyond every bound
    text = (
        "\ntank  total_wait  disk_wait  syncq_wait  asyncq_wait\n"
        "latency  read write read write read write read write scrub trim rebuild\n---\n"
    )
    text += "".join(f"{j}ns" + f" {rows[j]}" + " 0" * 10 + "\n" for j in range(HISTO_BUCKETS))
    ms = iostat_metrics(parse_zpool_iostat(text), "pool")
    key = {"pool": "tank", "op": "read"}
    assert ms.sample_value("zmon_pool_io_latency_seconds_bucket", {**key, "le": "0.000262144"}) == 0
    assert ms.sample_value("zmon_pool_io_latency_seconds_bucket", {**key, "le": "0.000524288"}) == 5
    assert (
        ms.sample_value("zmon_pool_io_latency_seconds_bucket", {**key, "le": "68.719476736"}) == 5
    )
    assert ms.sample_value("zmon_pool_io_latency_seconds_bucket", {**key, "le": "+Inf"}) == 7
    assert ms.sample_value("zmon_pool_io_latency_seconds_count", key) == 7


def test_histogram_blocks_for_unknown_rows_are_dropped() -> None:
    parsed = parse_zpool_iostat(lab("2.3.2", "01-healthy", "zpool-iostat-v-p-l.txt"))
    parsed.histograms = parse_zpool_iostat(
        lab("2.3.2", "01-healthy", "zpool-iostat-p-w.txt").replace(b"single ", b"gone   ")
    ).histograms
    ms = iostat_metrics(parsed, "pool")
    assert ms.sample_value("zmon_pool_io_latency_seconds_count", {"pool": "tank"}) is not None
    assert ms.sample_value("zmon_pool_io_latency_seconds_count", {"pool": "single"}) is None
    assert ms.sample_value("zmon_pool_io_latency_seconds_count", {"pool": "gone"}) is None


def test_legacy_zpool_falls_back_to_plain_verbose() -> None:
    usage = CommandResult(TABLE_ARGV, 2, b"", b"invalid option 'p'\nusage:\n", 0.01)
    run = StaticRunner(
        {
            TABLE_ARGV: usage,
            LEGACY_TABLE_ARGV: (
                PERF / "corpus" / "zpool_iostat_02_v_mirror_slog_0.6.txt"
            ).read_bytes(),
        }
    )
    collector = IostatCollector(Context(paths=Paths(), runner=run))
    ms = collector.collect()
    assert run.calls == [TABLE_ARGV, LEGACY_TABLE_ARGV]
    assert (
        ms.sample_value(
            "zmon_vdev_lifetime_average_operations_per_second",
            {"vdev": "wwn-5000c500301004bf", "op": "write"},
        )
        == 358
    )
    collector.collect()
    assert run.calls[2:] == [LEGACY_TABLE_ARGV]


def test_recorded_lab_commands_stand_in() -> None:
    """The demo host can answer with the closest lab recordings: no queues, pool histograms."""
    run = StaticRunner(
        {
            TABLE_ARGV: lab("2.3.2", "01-healthy", "zpool-iostat-v-p-l.txt"),
            (*HISTO_ARGV, "-v"): lab("2.3.2", "01-healthy", "zpool-iostat-p-w.txt"),
        }
    )
    ms = IostatCollector(Context(paths=Paths(), runner=run)).collect()
    assert ms.sample_value("zmon_pool_io_latency_seconds_count", {"pool": "rz"}) is not None
    assert ms.sample_value("zmon_vdev_queue_pending_ios") is None
    assert (
        ms.sample_value(
            "zmon_vdev_lifetime_average_operations_per_second", {"vdev": "vdd", "op": "write"}
        )
        == 1
    )


def test_zfs_fuse_falls_back_too() -> None:
    usage = CommandResult(TABLE_ARGV, 2, b"", b"invalid option 'p'\nusage:\n", 0.01)
    fuse = (PERF / "lab" / "zfs-fuse-0.7.0" / "healthy-zpool-iostat-v.txt").read_bytes()
    run = StaticRunner({TABLE_ARGV: usage, LEGACY_TABLE_ARGV: fuse})
    ms = IostatCollector(Context(paths=Paths(), runner=run)).collect()
    leaf = {"pool": "fusez", "vdev": "/tmp/zfslab/fuse/f4.img", "class": "normal", "op": "write"}
    assert ms.sample_value("zmon_vdev_lifetime_average_operations_per_second", leaf) == 923
    assert (
        ms.sample_value(
            "zmon_pool_lifetime_average_bytes_per_second", {"pool": "fusepool", "op": "write"}
        )
        == 108 * 1024 * 1024
    )


def test_no_zpool_is_no_data() -> None:
    ctx = Context(paths=Paths(), runner=StaticRunner({}))
    with pytest.raises(NoDataError):
        IostatCollector(ctx).collect()


def test_no_zfs_module_is_no_data() -> None:
    gone = CommandResult(TABLE_ARGV, 1, b"", b"The ZFS modules are not loaded.\n", 0.01)
    ctx = Context(paths=Paths(), runner=StaticRunner({TABLE_ARGV: gone}))
    with pytest.raises(NoDataError):
        IostatCollector(ctx).collect()


def test_failing_histogram_command_fails_the_run() -> None:
    bad = CommandResult((*HISTO_ARGV, "-v"), 1, b"", b"cannot open 'x'\n", 0.01)
    run = runner("2.3.2")
    run.responses = {**run.responses, (*HISTO_ARGV, "-v"): bad}  # type: ignore[misc]
    with pytest.raises(Exception, match="exited 1"):
        IostatCollector(Context(paths=Paths(), runner=run)).collect()


def test_parse_kind_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    both = tmp_path / "both.txt"
    d = PERF / "lab" / "2.3.2" / "01-healthy"
    both.write_bytes(
        (d / "zpool-iostat-H-p-v-l-q.txt").read_bytes() + (d / "zpool-iostat-p-w.txt").read_bytes()
    )
    assert cli_main(["parse", "zpool-iostat", str(both)]) == 0
    out = capsys.readouterr().out
    assert 'zmon_pool_io_latency_seconds_count{op="read",pool="tank"} 9.0' in out
    assert (
        'zmon_vdev_queue_pending_ios{class="unknown",pool="tank",queue="scrub",vdev="vde"}' in out
    )
    assert cli_main(["parse", "zpool-iostat", str(d / "zpool-iostat-p-r.txt")]) != 0
    err = capsys.readouterr().err
    assert "line 2" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("exponents", [FINE_EXPONENTS, COARSE_EXPONENTS])
def test_cumulative_counts_are_those_of_the_histogram_they_stand_for(
    exponents: tuple[int, ...],
) -> None:
    import random

    rng = random.Random(3)
    for rows in ([], [0] * HISTO_BUCKETS, [rng.randrange(10**6) for _ in range(HISTO_BUCKETS)]):
        cumulative, count, total = iostat_cumulative(rows, exponents)
        whole = from_iostat_rows(rows)
        assert list(zip(bucket_bounds(exponents), cumulative, strict=True)) == whole.buckets(
            exponents
        )
        assert (count, total) == (whole.count, whole.sum_seconds)


def test_cumulative_counts_are_the_running_sums_own_ints() -> None:
    # A float for each count was a new object for each of the 30,000 bucket counts of a big
    # host's run, most of them kept until its render (the exposition prints an int count as
    # it prints the float).
    rows = [0, 3, 0, 5, 10**9, 2, *([0] * (HISTO_BUCKETS - 6))]
    cumulative, count, _ = iostat_cumulative(rows)
    assert all(type(v) is int for v in cumulative)
    assert (cumulative[-1], count) == (10**9 + 10, 10**9 + 10)
