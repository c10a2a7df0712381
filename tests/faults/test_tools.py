"""Misbehaving tools: hung, slow, crashing, garbage, flooding, setsid-forking, missing,
not executable, and zmon out of file descriptors. Real processes, the real runner, the
zpool_list collector, 1,000 runs each."""

from __future__ import annotations

import contextlib
import errno
import os
import resource
import stat
from pathlib import Path

import pytest

from tests.faults.harness import CYCLES, Resources, Rig, no_leaks, settle
from tests.helpers import fixture_path
from zmon.base import children
from zmon.base.runner import CommandRunner
from zmon.collecting.registry import Context, Paths
from zmon.collectors.zpool_list import ZpoolListCollector

LAB = fixture_path("pools", "lab", "2.3.2-01-healthy")
TANK = ("zmon_pool_size_bytes", (("pool", "tank"),))


class ListOnly(ZpoolListCollector):
    """zpool_list without its second command (zpool get): one process per run, so that
    1,000 runs stay quick."""

    def _get(self, pools):  # type: ignore[no-untyped-def, override]
        return {}


def script(path: Path, body: str, mode: int = 0o755) -> str:
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(mode)
    return str(path)


@pytest.fixture
def tools(tmp_path: Path) -> dict[str, str]:
    good = (
        f'case "$1" in list) cat {LAB}/zpool-list-Hp-o-cols.txt;; '
        f"get) cat {LAB}/zpool-get-Hp-all.txt;; *) exit 1;; esac"
    )
    pids = tmp_path / "escaped.pids"
    (tmp_path / "garbage.bin").write_bytes(b"\x00\xff\tnot\ta\tpool\n\x1b[31m\xfe" * 50)
    return {
        "good": script(tmp_path / "good", good),
        "slow": script(tmp_path / "slow", "sleep 0.002\n" + good),
        "hung": script(tmp_path / "hung", "sleep 1000"),
        "crash": script(tmp_path / "crash", "kill -SEGV $$"),
        "garbage": script(tmp_path / "garbage", f"cat {tmp_path}/garbage.bin"),
        "flood": script(tmp_path / "flood", "exec yes 'tank 1 2 3 a flood line'"),
        "setsid": script(
            tmp_path / "setsid",
            f"setsid sh -c 'echo $$ >> {pids}; exec sleep 1000' "
            f"</dev/null >/dev/null 2>&1 &\n{good}",
        ),
        "not_executable": script(tmp_path / "noexec", good, mode=0o644),
        "missing": str(tmp_path / "no-such-zpool"),
        "pids": str(pids),
    }


@pytest.fixture
def rig(tmp_path: Path, tools: dict[str, str]):  # type: ignore[no-untyped-def]
    binaries = {"zpool": tools["good"]}
    runner = CommandRunner(binaries=binaries, default_timeout=5.0, max_output=256 << 10)
    ctx = Context(
        paths=Paths(procfs=tmp_path, sysfs=tmp_path, rootfs=tmp_path, state_dir=tmp_path / "state"),
        runner=runner,
    )
    rig = Rig(ListOnly(ctx), timeout=5.0)
    rig.binaries = binaries  # type: ignore[attr-defined]
    rig.runner = runner  # type: ignore[attr-defined]
    rig.cycle(2)
    assert rig.scrape()[TANK] > 0 and rig.state.success
    yield rig
    rig.close()


def use(rig: Rig, tool: str) -> None:
    rig.binaries["zpool"] = tool  # type: ignore[attr-defined]


def assert_failing_with_data_kept(rig: Rig, reason: str) -> None:
    samples = rig.scrape()
    assert rig.self_metric("zmon_collector_success") == 0.0
    assert rig.reason() == reason, rig.state.last_error
    assert samples[TANK] > 0, "the last good pool data must still be served"
    assert rig.self_metric("zmon_collector_stale") == 1.0
    assert rig.self_metric("zmon_collector_has_data") == 1.0


def assert_recovers(rig: Rig, tools: dict[str, str]) -> None:
    use(rig, tools["good"])
    rig.cycle()
    assert rig.state.success and rig.reason() is None
    assert rig.self_metric("zmon_collector_stale") == 0.0


@pytest.mark.parametrize(
    "fault,reason,timeout",
    [
        ("crash", "command_failed", 5.0),
        ("garbage", "output_invalid", 5.0),
        ("flood", "command_failed", 5.0),
        ("not_executable", "permission_denied", 5.0),
        ("hung", "timeout", 0.005),
    ],
)
def test_failing_tool_keeps_last_data_marked_stale(rig, tools, fault, reason, timeout) -> None:
    use(rig, tools[fault])
    rig.state.timeout = timeout
    rig.cycle(3)  # warm up: lazily created things (thread-local state, caches) exist now
    with no_leaks():
        rig.cycle(CYCLES)
        rig.finish()
    assert_failing_with_data_kept(rig, reason)
    counts = rig.state.runs
    assert counts["failure"] + counts["timeout"] >= CYCLES
    rig.state.timeout = 5.0
    assert_recovers(rig, tools)


@pytest.mark.slow  # a thousand runs of a tool that sleeps: three processes each
def test_slow_tool_within_its_timeout_is_fresh_data(rig, tools) -> None:
    use(rig, tools["slow"])
    with no_leaks():
        rig.cycle(CYCLES)
    assert rig.state.success and rig.state.runs["success"] >= CYCLES
    assert rig.self_metric("zmon_collector_stale") == 0.0


def test_a_configured_binary_that_went_missing_is_a_failure_with_a_reason(rig, tools) -> None:
    """The finding: ``--binary.zpool /nonexistent`` read as a host without ZFS (success 1,
    has_data 0). A path the admin configured that is gone (removed after start) fails."""
    use(rig, tools["missing"])
    with no_leaks():
        rig.cycle(CYCLES)
    assert_failing_with_data_kept(rig, "cannot_execute")
    assert "no-such-zpool" in rig.state.last_error and "binary.zpool" in rig.state.last_error
    assert_recovers(rig, tools)


def test_the_default_binary_missing_is_the_one_start_failure_that_means_no_data(
    rig, tools, tmp_path, monkeypatch
) -> None:
    del rig.binaries["zpool"]  # type: ignore[attr-defined] - the default: "zpool" on PATH
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    rig.cycle(10)
    assert rig.self_metric("zmon_collector_success") == 1.0
    assert rig.self_metric("zmon_collector_has_data") == 0.0
    assert rig.reason() is None
    monkeypatch.undo()  # the good tool's script needs PATH
    assert_recovers(rig, tools)


def test_a_100_megabyte_flood_is_cut_off_not_buffered(rig, tools, tmp_path) -> None:
    flood = script(tmp_path / "flood100", "head -c 100000000 /dev/zero | tr '\\0' x")
    use(rig, flood)
    rig.runner.max_output = 64 << 20  # type: ignore[attr-defined] - the default cap
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with no_leaks():
        rig.cycle()
    grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert_failing_with_data_kept(rig, "command_failed")
    assert "printed more than" in rig.state.last_error
    assert grown_mib < 200, f"peak RSS grew {grown_mib:.0f} MiB"


@pytest.mark.slow  # a thousand runs leaving a process behind: four processes each, and a kill
def test_setsid_escapes_are_killed_counted_and_reaped(rig, tools) -> None:
    """A tool that leaves a setsid'd child behind: with zmon as child subreaper the orphan
    comes back to zmon, which kills and reaps it after the run and counts it."""
    use(rig, tools["setsid"])
    assert children.become_subreaper()
    try:
        leaked_before = children.leaked("zpool_list")
        with no_leaks():
            rig.cycle(CYCLES)
        assert rig.state.success  # the tool's own output was fine
        assert children.leaked("zpool_list") - leaked_before == CYCLES
        assert rig.self_metric("zmon_child_processes_leaked_total") >= CYCLES
        # some were killed before they wrote their pid: every one that did is gone
        escaped = [int(p) for p in Path(tools["pids"]).read_text().split()]
        alive = [p for p in escaped if children.running(p)]
        assert not alive, f"{len(alive)} escaped processes still run"
    finally:
        children.set_subreaper(False)


def test_out_of_file_descriptors_is_a_counted_failure_and_recovers(rig, tools) -> None:
    """EMFILE while starting a tool: failure reason fd_exhausted, counted and logged, old
    data kept; when fds free up the collector recovers by itself."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    base = Resources.now()
    fillers: list[int] = []
    resource.setrlimit(resource.RLIMIT_NOFILE, (base.fds + 64, hard))
    try:
        with contextlib.suppress(OSError):
            while True:
                fillers.append(os.open("/dev/null", os.O_RDONLY))
        rig.cycle(CYCLES)
    finally:
        for fd in fillers:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    # scraped once fds are free again (the scrape itself needs some); no run happened since
    assert_failing_with_data_kept(rig, "fd_exhausted")
    assert rig.self_metric("zmon_collector_fd_exhausted_total") == CYCLES
    assert_recovers(rig, tools)
    assert settle(base).fds <= base.fds


def test_eacces_is_not_reported_as_no_zfs(rig, tools) -> None:
    """The original finding: a non-executable --binary.zpool looked like a host without ZFS
    (success 1, has_data 0, pool series gone)."""
    use(rig, tools["not_executable"])
    assert not os.stat(tools["not_executable"]).st_mode & stat.S_IXUSR
    rig.cycle()
    assert rig.self_metric("zmon_collector_success") == 0.0
    assert rig.scrape()[TANK] > 0
    assert "Permission denied" in rig.state.last_error
    assert errno.EACCES  # the reason label says permission_denied
    assert rig.reason() == "permission_denied"
