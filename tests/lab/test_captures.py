"""The lab's raw captures replayed through today's code: hermetic, no VM.

`make lab-capture` saves, at every step of the live fault sequence, what real OpenZFS printed
(tests/fixtures/lab/<version>/<step>/, see its README). Here the zpool collector runs on
those outputs step after step (one collector, so its last-scrub state carries over as in the
VM), and every row of the live table (checks.py) about what that collector exports must hold
on the replay too. The other outputs go through the `zmon parse` kinds. A parser change that
breaks on real OpenZFS output fails here, long before anyone boots the lab.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.lab import checks
from tests.lab.engine import Check, Result, Scrape, StepRunner
from tests.lab.labvm import read_facts
from tests.support.zpool_status import recorded_result
from zmon.base.runner import CommandResult, StaticRunner
from zmon.collecting.registry import Context, Paths, parse_kinds
from zmon.collectors.zpool import JSON_ARGS, ZpoolCollector
from zmon.exposition.formats import render

CAPTURES = Path(__file__).resolve().parents[1] / "fixtures" / "lab"
JSON = ("zpool", "status", *JSON_ARGS, "-v")
TEXT = ("zpool", "status", "-p", "-s", "-v")
GUIDS = ("zpool", "get", "-Hp", "guid")


def step_dirs(version: str) -> list[Path]:
    return sorted(p for p in (CAPTURES / version).glob("[0-9][0-9]-*") if p.is_dir())


def responses(step: Path) -> dict[tuple[str, ...], CommandResult | bytes]:
    """What the zpool collector asks for, answered from one step's captures."""
    out: dict[tuple[str, ...], CommandResult | bytes] = {}
    if (step / "zpool-status.json").exists():
        out[JSON] = recorded_result(JSON, step / "zpool-status.json")
    else:  # 2.1 has no -j: the collector falls back to text
        out[JSON] = CommandResult(JSON, 2, b"", b"invalid option 'j'\nusage:\n", 0.1)
    out[TEXT] = recorded_result(TEXT, step / "zpool-status-p-v-s.txt")
    # the GUIDs come from `zpool list ... guid` (its last column), in `zpool get -Hp` form
    listing = (step / "zpool-list-Hp-o-cols.txt").read_text()
    rows = [line.split("\t") for line in listing.splitlines()]
    out[GUIDS] = "".join(f"{r[0]}\tguid\t{r[-1]}\t-\n" for r in rows if r).encode()
    # exact error counts are asked per pool without -v: `zpool status -D -p` has every pool
    counted = recorded_result(("zpool", "status", "-p", "-s"), step / "zpool-status-D-p.txt")
    for r in rows:
        if r:
            out[("zpool", "status", "-p", "-s", r[0])] = counted
    return out


def replay(version: str, tmp: Path) -> Iterator[tuple[str, dict[str, str], Scrape]]:
    """(step, facts, the zpool collector's exposition) for every captured step, in order."""
    runner = StaticRunner({})
    paths = Paths(rootfs=tmp / "root", state_dir=tmp / "state")
    options = {"timezone": "UTC", "device_map": False}
    collector = ZpoolCollector(Context(paths=paths, runner=runner, options=options))
    for step in step_dirs(version):
        runner.responses = responses(step)
        text = render(collector.collect().families()).decode()
        yield step.name, read_facts(step / "facts.txt"), Scrape(text)


def _about(row: Check, names: set[str]) -> bool:
    """Rows the zpool collector alone decides: its metrics, no device (not mapped here), no
    time window (a capture is one moment)."""
    rows = row.alternatives or (row,)
    return (
        not row.expect.window
        and all("device" not in r.labels for r in rows)
        and any(r.metric in names for r in rows)
    )


@pytest.mark.parametrize("version", checks.VERSIONS)
def test_live_table_holds_on_the_replayed_captures(version: str, tmp_path: Path) -> None:
    if not (CAPTURES / version).is_dir():
        pytest.fail(f"no lab captures for {version} in {CAPTURES} (make lab-capture)")
    steps = list(replay(version, tmp_path))
    assert [s for s, _, _ in steps] == list(checks.STEPS)
    names = {n for _, _, scrape in steps for n in scrape.names()}
    rows = [r for r in checks.CHECKS if _about(r, names)]
    assert len(rows) > 40, "the table lost its zpool rows?"
    current: dict[str, Scrape] = {}
    clock = [0.0]
    runner = StepRunner(
        lambda: current["scrape"].text,
        version,
        wait_fresh=False,
        sleep=lambda s: clock.__setitem__(0, clock[0] + s),
        clock=lambda: clock[0],
    )
    failures: list[Result] = []
    for step, facts, scrape in steps:
        current["scrape"] = scrape
        results, _ = runner.run(step, facts, rows)
        failures += [r for r in results if not r.ok and not r.pending]
    assert not failures, "\n".join(r.line() for r in failures)


def parsed(kind: str, path: Path) -> Scrape:
    func, _ = parse_kinds()[kind]
    return Scrape(render(func(path.read_bytes()).families()).decode())


@pytest.mark.parametrize("version", checks.VERSIONS)
def test_every_captured_output_parses(version: str) -> None:
    """Each raw output through its `zmon parse` kind, with the facts each step must show."""
    root = CAPTURES / version
    for step in step_dirs(version):
        tsv = [line.split("\t") for line in (step / "COMMANDS.tsv").read_text().splitlines()]
        ok = {f for f, rc, *_ in tsv if rc == "0"}
        lst = parsed("zpool-list", step / "zpool-list-Hp-o-cols.txt")
        assert (lst.value("zmon_pool_size_bytes", {"pool": ("tank",)}) or 0) > 900 << 20, step
        if "zpool-events-H.txt" in ok:
            parsed("zpool-events", step / "zpool-events-H.txt")
        if "arcstats.txt" in ok:
            arc = parsed("arcstats", step / "arcstats.txt")
            assert (arc.value("zmon_arc_size_bytes", {}) or 0) > 0, step
        if "zfs-module.txt" in ok:  # 01 stock, 02 with zio_slow_io_ms lowered (driver.sh)
            module = parsed("zfs-module", step / "zfs-module.txt")
            changed = 1 if step.name == checks.SCRUB_RUNNING else 0
            assert module.value("zmon_zfs_module_parameters_changed", {}) == changed, step
    events = parsed("zpool-events", root / checks.CKSUM / "zpool-events-H.txt")
    assert (events.value("zmon_zfs_events_total", {"class": ("checksum",)}) or 0) >= 1
    removed = read_facts(root / checks.REMOVED / "facts.txt")["removed"]
    kernel = parsed("kernel-log", root / checks.REMOVED / "dmesg.txt")
    zio = kernel.select("zmon_kernel_log_events_total", {"pattern": ("zio_error",)})
    assert zio and sum(zio) >= 1, f"no zio_error for the removed disk {removed}"
    if version != "2.1.11":  # 2.1.11 does not suspend the one-disk pool (see driver.sh)
        kernel = parsed("kernel-log", root / checks.SUSPENDED / "dmesg.txt")
        sel = {"pattern": ("pool_suspended",), "pool": ("fragile",)}
        assert kernel.value("zmon_kernel_log_pool_events_total", sel) == 1
    for disk in ("sata0", "nvme0"):
        smart = parsed("smartctl", root / checks.HEALTHY / f"smartctl-a-j-{disk}.json")
        assert smart.select("zmon_disk_smart_passed", {}) == [1.0], disk
