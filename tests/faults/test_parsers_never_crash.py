"""Every parser raises only ParseError, whatever it is fed (hypothesis, bounded for CI).

The long run is ``python -m tests.faults.fuzz_parsers`` (RELIABILITY.md lists what it found).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.faults.parser_targets import mutants, targets
from zmon.errors import ParseError
from zmon.parsers.smartctl_text import parse_smartctl_text

TARGETS = targets()


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_parser_raises_only_parse_error(name: str) -> None:
    func, seeds = TARGETS[name]

    @settings(
        max_examples=100,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    @given(data=st.one_of(mutants(seeds), st.sampled_from(seeds)))
    def check(data: bytes) -> None:
        try:
            func(data)
        except ParseError:
            pass

    check()


def test_smartctl_malformed_link_speed_is_a_parse_error_or_ignored() -> None:
    """The original finding: ValueError from 'current: 3.0. Gb/s'."""
    text = (
        "smartctl 7.3\n=== START OF INFORMATION SECTION ===\nDevice Model:     X\n"
        "SATA Version is:  SATA 3.1, 6.0 Gb/s (current: 3.0. Gb/s)\n"
    )
    try:
        parse_smartctl_text(text)
    except ParseError:
        pass
