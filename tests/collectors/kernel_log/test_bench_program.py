"""The committed mtail program matches the pattern library, and mtail counts what zmon counts."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import kernel_log_bench as bench
from tests.helpers import require_tool
from zmon.parsers.kernel_log import default_rules

BENCH = Path(__file__).resolve().parents[3] / "benchmarks"


def test_committed_mtail_program_is_current() -> None:
    expected = bench.mtail_program(default_rules())
    regenerate = "python -m benchmarks.kernel_log_bench --write-mtail benchmarks/kernel_log.mtail"
    assert (BENCH / "kernel_log.mtail").read_text() == expected, f"regenerate: {regenerate}"


@pytest.mark.real
@pytest.mark.slow
def test_mtail_counts_agree_with_zmon(tmp_path: Path) -> None:
    mtail = require_tool("mtail", "the kernel_log benchmark's peer; Debian package mtail")
    log = tmp_path / "kern.log"
    bench.generate(log, 3000, 0.2)
    progs = tmp_path / "progs"
    progs.mkdir()
    (progs / "kernel_log.mtail").write_text((BENCH / "kernel_log.mtail").read_text())
    _, found = bench.run_mtail(mtail, progs, log)
    _, _, zmon_found = bench.run_zmon(log, bench.PatternSet(default_rules()))
    assert found == zmon_found and sum(found.values()) > 300


def test_benchmark_generator_mixes_noise_and_faults(tmp_path: Path) -> None:
    log = tmp_path / "kern.log"
    bench.generate(log, 2000, 0.05)
    secs, lines, found = bench.run_zmon(log, bench.PatternSet(default_rules()))
    assert lines == 2000 and 50 < sum(found.values()) < 200
    assert secs >= 0
