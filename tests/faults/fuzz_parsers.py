"""Long fuzz run over every parser (by hand, not in CI): each parser gets its own time budget.

    .venv/bin/python -m tests.faults.fuzz_parsers --minutes 10            # every parser
    .venv/bin/python -m tests.faults.fuzz_parsers --minutes 10 smartctl   # one parser

It drives the same targets and mutation strategy as the CI test, with a large hypothesis
budget, and prints each crash (any exception but ParseError) with a minimal input. Record what
it finds in RELIABILITY.md, and keep a regression test.
"""

from __future__ import annotations

import argparse
import sys
import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.faults.parser_targets import mutants, targets
from zmon.errors import ParseError


def fuzz(name: str, minutes: float) -> tuple[int, str | None]:
    """Fuzz one parser for ``minutes``; returns (inputs tried, the crash or None).

    Runs hypothesis in rounds of fresh random examples until the time is up; a crash ends it
    with hypothesis' shrunk input printed above the summary line.
    """
    func, seeds = targets()[name]
    stop = time.monotonic() + minutes * 60
    tried = 0

    @settings(
        max_examples=2000, deadline=None, database=None, suppress_health_check=list(HealthCheck)
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
            return tried, f"{type(exc).__name__}: {exc}"
    return tried, None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="budget per parser")
    parser.add_argument("names", nargs="*", help=f"parsers (default all): {sorted(targets())}")
    args = parser.parse_args()
    failed = 0
    for name in args.names or sorted(targets()):
        tried, crash = fuzz(name, args.minutes)
        print(f"{name:20} {tried:9d} inputs  {crash or 'no crash'}", flush=True)
        failed += crash is not None
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
