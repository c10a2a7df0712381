"""The arc collector on fixture trees (Linux) and recorded or fake sysctl (FreeBSD)."""

from __future__ import annotations

import stat
import time
from pathlib import Path

import pytest

from tests.helpers import fixture_path, require_tool
from tests.support.freebsd_sysctl import SYSCTL_LINE, named_kstat_as_sysctl
from zmon.base.children import running
from zmon.base.errors import ParseError
from zmon.base.runner import (
    CommandError,
    CommandResult,
    CommandRunner,
    CommandTimeout,
    StaticRunner,
)
from zmon.collecting.registry import Context, NoDataError, Paths, collectors
from zmon.collectors.arc import ArcCollector
from zmon.exposition.formats import render
from zmon.parsers.kstat.arcstats import FREEBSD_PARAM_SYSCTLS

FIX = fixture_path("arc")
ARCSTATS_ARGV = ("sysctl", "kstat.zfs.misc.arcstats")
PARAMS_ARGV = ("sysctl", "-i", *FREEBSD_PARAM_SYSCTLS)


def linux_ctx(procfs: Path = FIX / "proc", sysfs: Path = FIX / "sys") -> Context:
    return Context(paths=Paths(procfs=procfs, sysfs=sysfs), runner=StaticRunner())


def freebsd_ctx(runner) -> Context:  # type: ignore[no-untyped-def]
    return Context(paths=Paths(procfs=Path("/nonexistent")), runner=runner, platform="freebsd")


FREEBSD_CAPTURE = FIX / "corpus" / "arcstats_08_freebsd_ZoF_2019_sysctl_PARTIAL.txt"


def test_registered() -> None:
    cls = collectors()["arc"]
    assert cls is ArcCollector and cls.default_enabled


def test_linux_fixture_tree(golden) -> None:  # type: ignore[no-untyped-def]
    ms = ArcCollector(linux_ctx()).collect()
    assert ms.sample_value("zmon_arc_size_bytes") == 489576992
    assert ms.sample_value("zmon_arc_max_size_bytes") == 2042421248
    assert ms.sample_value("zmon_arc_l2_size_bytes") == 258341376
    assert ms.sample_value("zmon_arc_param_max_bytes") == 0
    assert ms.sample_value("zmon_arc_param_min_bytes") == 0
    golden("arc/collector-linux.prom", render(ms.families()))


def test_linux_without_zfs_is_no_data(tmp_path: Path) -> None:
    with pytest.raises(NoDataError, match="arcstats"):
        ArcCollector(linux_ctx(procfs=tmp_path, sysfs=tmp_path)).collect()


def test_linux_params_optional_and_validated(tmp_path: Path) -> None:
    params = tmp_path / "module" / "zfs" / "parameters"
    params.mkdir(parents=True)
    (params / "zfs_arc_max").write_text("8589934592\n")
    (params / "zfs_arc_min").write_text("garbage\n")
    ms = ArcCollector(linux_ctx(sysfs=tmp_path)).collect()
    assert ms.sample_value("zmon_arc_param_max_bytes") == 8589934592
    assert ms.sample_value("zmon_arc_param_min_bytes") is None
    assert ms.sample_value("zmon_arc_hits_total") == 34748
    bare = ArcCollector(linux_ctx(sysfs=tmp_path / "none")).collect()
    assert bare.sample_value("zmon_arc_param_max_bytes") is None


def test_linux_malformed_arcstats_raises(tmp_path: Path) -> None:
    kstat = tmp_path / "spl" / "kstat" / "zfs"
    kstat.mkdir(parents=True)
    (kstat / "arcstats").write_text("6 1 0x01 2 96 1 2\nname type data\nhits 4 1\nmisses 4\n")
    with pytest.raises(ParseError) as err:
        ArcCollector(linux_ctx(procfs=tmp_path)).collect()
    assert err.value.line_no == 4


def test_freebsd_real_sysctl_capture(golden) -> None:  # type: ignore[no-untyped-def]
    """What an OpenZFS-on-FreeBSD host printed for ``sysctl kstat.zfs.misc.arcstats``."""
    runner = StaticRunner(
        {
            ARCSTATS_ARGV: FREEBSD_CAPTURE.read_bytes(),
            PARAMS_ARGV: b"vfs.zfs.arc.max: 4294967296\nvfs.zfs.arc.min: 0\n",
        }
    )
    ms = ArcCollector(freebsd_ctx(runner)).collect()
    assert runner.calls == [ARCSTATS_ARGV, PARAMS_ARGV]
    assert ms.sample_value("zmon_arc_meta_min_bytes") == 16777216
    assert ms.sample_value("zmon_arc_dnode_limit_bytes") == 320786534
    assert ms.sample_value("zmon_arc_meta_limit_bytes") == 3207865344
    assert ms.sample_value("zmon_arc_memory_all_bytes") == 0
    assert ms.sample_value("zmon_arc_param_max_bytes") == 4294967296
    assert ms.sample_value("zmon_arc_stat") is None  # every field of the capture is curated
    golden("arc/collector-freebsd-sysctl.prom", render(ms.families()))


def test_derived_sysctl_has_the_real_captures_shape() -> None:
    real = FREEBSD_CAPTURE.read_text().splitlines()
    derived = named_kstat_as_sysctl(
        (FIX / "proc" / "spl" / "kstat" / "zfs" / "arcstats").read_bytes(),
        "kstat.zfs.misc.arcstats",
    ).splitlines()
    assert len(real) == 18 and len(derived) > 100
    assert [ln for ln in real + derived if not SYSCTL_LINE.match(ln)] == []


def test_freebsd_matches_linux_for_the_same_fields() -> None:
    data = (FIX / "proc" / "spl" / "kstat" / "zfs" / "arcstats").read_bytes()
    runner = StaticRunner(
        {
            ARCSTATS_ARGV: named_kstat_as_sysctl(data, "kstat.zfs.misc.arcstats").encode(),
            PARAMS_ARGV: b"vfs.zfs.arc.max: 4294967296\nvfs.zfs.arc.min: 0\n",
        }
    )
    ms = ArcCollector(freebsd_ctx(runner)).collect()
    assert runner.calls == [ARCSTATS_ARGV, PARAMS_ARGV]
    assert ms.sample_value("zmon_arc_param_max_bytes") == 4294967296
    linux = ArcCollector(linux_ctx()).collect()
    strip = lambda text: [ln for ln in text.splitlines() if "param_" not in ln]  # noqa: E731
    assert strip(render(ms.families()).decode()) == strip(render(linux.families()).decode())


def test_freebsd_old_sysctl_names_and_failed_param_lookup() -> None:
    runner = StaticRunner(
        {
            ARCSTATS_ARGV: (
                b"kstat.zfs.misc.arcstats.hits: 12\nkstat.zfs.misc.arcstats.allocated: 5\n"
            ),
            PARAMS_ARGV: CommandResult(PARAMS_ARGV, 1, b"vfs.zfs.arc_max: 1073741824\n", b"", 0.01),
        }
    )
    ms = ArcCollector(freebsd_ctx(runner)).collect()
    assert ms.sample_value("zmon_arc_allocated_total") == 5
    assert ms.sample_value("zmon_arc_param_max_bytes") == 1073741824
    assert ms.sample_value("zmon_arc_param_min_bytes") is None


@pytest.mark.parametrize(
    "params",
    [
        None,  # sysctl has no answer at all
        CommandResult(PARAMS_ARGV, -9, b"", b"", 5.0, timed_out=True),
        b"<html>\n",
    ],
)
def test_freebsd_params_unavailable_keeps_arcstats(params: object) -> None:
    responses: dict = {ARCSTATS_ARGV: b"kstat.zfs.misc.arcstats.hits: 12\n"}
    if params is not None:
        responses[PARAMS_ARGV] = params
    ms = ArcCollector(freebsd_ctx(StaticRunner(responses))).collect()
    assert ms.sample_value("zmon_arc_hits_total") == 12
    assert ms.sample_value("zmon_arc_param_max_bytes") is None


@pytest.mark.parametrize(
    "result",
    [
        CommandResult(
            ARCSTATS_ARGV, 1, b"", b"sysctl: unknown oid 'kstat.zfs.misc.arcstats'\n", 0.0
        ),
        CommandResult(ARCSTATS_ARGV, 0, b"", b"", 0.0),
    ],
)
def test_freebsd_without_zfs_is_no_data(result: CommandResult) -> None:
    with pytest.raises(NoDataError):
        ArcCollector(freebsd_ctx(StaticRunner({ARCSTATS_ARGV: result}))).collect()


def test_freebsd_sysctl_failure_is_an_error() -> None:
    result = CommandResult(ARCSTATS_ARGV, 1, b"", b"sysctl: permission denied\n", 0.0)
    with pytest.raises(CommandError, match="permission denied"):
        ArcCollector(freebsd_ctx(StaticRunner({ARCSTATS_ARGV: result}))).collect()


def test_freebsd_garbage_output_names_the_line() -> None:
    runner = StaticRunner({ARCSTATS_ARGV: b"kstat.zfs.misc.arcstats.hits: 1\n<html>\n"})
    with pytest.raises(ParseError) as err:
        ArcCollector(freebsd_ctx(runner)).collect()
    assert err.value.line_no == 2


def test_hung_sysctl_is_killed_at_its_timeout(tmp_path: Path) -> None:
    require_tool("sh", "runs the fake sysctl")
    script = tmp_path / "sysctl"
    script.write_text(
        "#!/bin/sh\n"
        f"echo $$ > {tmp_path}/sysctl.pid\n"
        "sleep 300 &\n"
        f"echo $! > {tmp_path}/child.pid\n"
        "wait\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    runner = CommandRunner(binaries={"sysctl": str(script)}, default_timeout=1)
    with pytest.raises(CommandTimeout):  # killed at its timeout, not after 300 s
        ArcCollector(freebsd_ctx(runner)).collect()
    pids = [int((tmp_path / name).read_text()) for name in ("sysctl.pid", "child.pid")]
    deadline = time.monotonic() + 3
    while not not any(running(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(running(pid) for pid in pids), f"left behind: {pids}"
