"""The committed mtail program matches the pattern library; mtail runs it when installed."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from zmon.parsers.kernel_log import default_rules

BENCH = Path(__file__).resolve().parents[3] / "benchmarks"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("kernel_log_bench", BENCH / "kernel_log_bench.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_mtail_program_is_current() -> None:
    expected = _bench().mtail_program(default_rules())
    regenerate = "python benchmarks/kernel_log_bench.py --write-mtail benchmarks/kernel_log.mtail"
    assert (BENCH / "kernel_log.mtail").read_text() == expected, f"regenerate: {regenerate}"


@pytest.mark.slow
def test_mtail_counts_agree_with_zmon(tmp_path: Path) -> None:
    import shutil

    mtail = shutil.which("mtail")
    if mtail is None:
        pytest.skip("mtail is only needed for the benchmark (apt-get install mtail)")
    bench = _bench()
    log = tmp_path / "kern.log"
    bench.generate(log, 3000, 0.2)
    progs = tmp_path / "progs"
    progs.mkdir()
    (progs / "kernel_log.mtail").write_text((BENCH / "kernel_log.mtail").read_text())
    _, found = bench.run_mtail(mtail, progs, log)
    _, _, zmon_found = bench.run_zmon(log, bench.PatternSet(default_rules()))
    assert found == zmon_found and sum(found.values()) > 300


def test_benchmark_generator_mixes_noise_and_faults(tmp_path: Path) -> None:
    bench = _bench()
    log = tmp_path / "kern.log"
    bench.generate(log, 2000, 0.05)
    secs, lines, found = bench.run_zmon(log, bench.PatternSet(default_rules()))
    assert lines == 2000 and 50 < sum(found.values()) < 200
    assert secs >= 0
