"""The synthetic big host of benchmarks/bighost.py, built small: every collector reads it.

The benchmarks time zmon on this host at 10, 100 and 1,000 vdevs; these tests keep the host
readable by every collector as they change, on a host of 10 vdevs (a second or two).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from benchmarks.bighost import BigHost, Shape, build_host, write_kernel_log
from zmon.base.runner import CommandRunner
from zmon.collecting.config import load
from zmon.collecting.registry import Board, Context, NoDataError, collectors
from zmon.exposition.formats import render

# Nothing on the big host for these: no UPS daemon; hotplug watches the real udev (if any);
# its disks hang off no SAS transport class in its sysfs (tests/support/sashost.py has one).
NO_DATA_EXPECTED = {"ups", "hotplug", "sas_phy"}
QUICK = {"smart": {"jitter": 0.0}, "zpool_events": {"startup_wait": 0.0}}


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> BigHost:
    return build_host(tmp_path_factory.mktemp("bighost"), vdevs=10, kernel_log_bytes=200_000)


def run_collector(host: BigHost, name: str, runner, board: Board):  # type: ignore[no-untyped-def]
    cfg = host.apply(load(collectors(), None))
    settings = cfg.collectors[name]
    # no pause between disks, no wait for a first event: the host answers at once
    options = {**settings.options, **QUICK.get(name, {})}
    ctx = Context(
        paths=cfg.paths,
        runner=runner,
        options=options,
        platform="linux",
        board=board,
        interval=settings.interval,
        timeout=settings.timeout,
        one_shot=True,
    )
    collector = collectors()[name](ctx)
    try:
        collector.start()
        return collector.collect()
    finally:
        collector.close()


def test_every_collector_reads_the_big_host(host: BigHost) -> None:
    runner = host.runner()
    board = Board()  # what collectors exchange (the device map, vdev names ...)
    series: dict[str, int] = {}
    for name in collectors():
        try:
            ms = run_collector(host, name, runner, board)
        except NoDataError:
            assert name in NO_DATA_EXPECTED, f"{name} found no data on the big host"
            continue
        text = render(ms.families())
        parsed = list(text_string_to_metric_families(text.decode()))
        series[name] = sum(len(f.samples) for f in parsed)
        assert series[name] > 0, name
    assert runner.missing == [], "collectors ran commands the big host has no answer for"
    assert set(series) >= set(collectors()) - NO_DATA_EXPECTED


def test_the_host_has_its_shape(host: BigHost) -> None:
    runner = host.runner()
    iostat = run_collector(host, "iostat", runner, Board())
    leaves = {
        s.labels["vdev"]
        for f in iostat.families()
        for s in f.samples
        if s.labels.get("vdev", "").startswith("sd")
    }
    assert len(leaves) == 10
    ops = {
        s.labels["vdev"]
        for f in iostat.families()
        for s in f.samples
        if s.name == "zmon_vdev_operations_total"
    }
    assert leaves <= ops, "every leaf has its operation counts (from its -w block)"
    smart = run_collector(host, "smart", runner, Board())
    disks = {s.labels.get("device") for f in smart.families() for s in f.samples}
    assert len(disks - {None}) == Shape(10).smart_disks
    datasets = run_collector(host, "datasets", runner, Board())
    names = {s.labels.get("dataset") for f in datasets.families() for s in f.samples}
    assert len(names - {None}) == Shape(10).datasets


def test_its_programs_answer_like_the_recordings(host: BigHost) -> None:
    argv = ["zpool", "iostat", "-v", "-p", "-l", "-q"]
    real = CommandRunner(binaries={"zpool": str(host.root / "bin" / "zpool")})
    assert real.run(argv).stdout == host.runner().run(argv).stdout != b""


def test_same_seed_same_host(tmp_path: Path) -> None:
    a = build_host(tmp_path / "a", vdevs=10, seed=3)
    b = build_host(tmp_path / "b", vdevs=10, seed=3)
    for rec in sorted((a.root / "current").iterdir()):
        assert rec.read_bytes() == (b.root / "current" / rec.name).read_bytes(), rec.name


def test_kernel_log_size_and_faults(tmp_path: Path) -> None:
    log = tmp_path / "kern.log"
    lines = write_kernel_log(log, 300_000, seed=5)
    data = log.read_bytes()
    assert 290_000 < len(data) <= 300_000
    assert data.count(b"\n") == lines and data.endswith(b"\n")
    assert b"Emask" in data or b"I/O error" in data  # faults are there
