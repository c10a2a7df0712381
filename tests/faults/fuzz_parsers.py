"""Long fuzz run over every parser (by hand, not in CI): each parser gets its own time budget.

    .venv/bin/python -m tests.faults.fuzz_parsers --minutes 10            # every parser
    .venv/bin/python -m tests.faults.fuzz_parsers --minutes 10 smartctl   # one parser

It drives the same targets and mutation strategy as the CI test (hostile inputs included:
5,000-digit numbers, deep nesting, 10 MB lines, NULs, invalid UTF-8), with a large hypothesis
budget, and prints one line per parser: inputs tried, wall and CPU seconds, and each distinct
crash (any exception but ParseError) with hypothesis' shrunk input above it. Record what it
finds in RELIABILITY.md, and keep a regression test.
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.faults.parser_targets import mutants, targets
from zmon.base.errors import ParseError


def fuzz(name: str, minutes: float) -> tuple[int, float, list[str]]:
    """Fuzz one parser for ``minutes``; returns (inputs tried, CPU seconds, distinct crashes).

    Runs hypothesis in rounds of fresh random examples until the time is up; each crash is
    printed with hypothesis' shrunk input, and the run goes on to look for others.
    """
    func, seeds = targets()[name]
    stop = time.monotonic() + minutes * 60
    cpu = time.process_time()
    tried = 0
    crashes: list[str] = []

    @settings(
        max_examples=200, deadline=None, database=None, suppress_health_check=list(HealthCheck)
    )
    @given(data=st.one_of(mutants(seeds), st.binary(max_size=4096)))
    def check(data: bytes) -> None:
        nonlocal tried
        tried += 1
        try:
            func(data)
        except ParseError:
            pass

    while time.monotonic() < stop:
        try:
            check()
        except Exception as exc:  # noqa: BLE001 - this is what we are looking for
            for one in exc.exceptions if isinstance(exc, BaseExceptionGroup) else [exc]:
                crash = _describe(one)
                if crash not in crashes:
                    crashes.append(crash)
    return tried, time.process_time() - cpu, crashes


def _describe(exc: BaseException) -> str:
    """``Type: message at file:line`` of the innermost frame, for a one-line summary."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""
    return f"{type(exc).__name__}: {str(exc)[:160]}{where}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="budget per parser")
    parser.add_argument("names", nargs="*", help=f"parsers (default all): {sorted(targets())}")
    args = parser.parse_args()
    failed = 0
    for name in args.names or sorted(targets()):
        wall = time.monotonic()
        tried, cpu, crashes = fuzz(name, args.minutes)
        wall = time.monotonic() - wall
        verdict = "; ".join(crashes) or "no crash"
        print(f"{name:20} {tried:9d} inputs {wall:6.0f} s wall {cpu:6.0f} s CPU  {verdict}",
              flush=True)  # fmt: skip
        failed += bool(crashes)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
