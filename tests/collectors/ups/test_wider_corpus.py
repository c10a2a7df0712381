"""Real apcaccess (apcupsd 3.14) and upsc samples give the facts of their EXPECTED.md."""

from __future__ import annotations

import pytest

from tests.collectors.ups.quantities import assert_quantities
from tests.helpers import fixture_path
from tests.support.expected import load_expected
from zmon.parsers.ups import apcupsd, nut

DIR = fixture_path("ups", "wider")
EXPECTED = load_expected(DIR / "EXPECTED.md")


def test_every_sample_has_facts():
    assert sorted(p.name for p in DIR.glob("*.txt")) == sorted(EXPECTED)


def _reading(name: str, kind: str):
    text = (DIR / name).read_text()
    if kind == "apcaccess":
        return apcupsd.reading_from_fields(apcupsd.parse_apcaccess(text))
    output = nut.parse_upsc(text)
    assert output.error is None
    assert not any(" " in key for key in output.variables)  # noise lines are no variables
    return nut.reading_from_vars("ups", output.variables)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_sample_gives_its_facts(name):
    facts = EXPECTED[name]
    reading = _reading(name, facts["kind"])
    assert reading.up
    flags = facts["flags"]
    assert reading.flags == (None if flags == "unknown" else frozenset(flags.split()))
    assert_quantities(reading, facts, other_absent_keys=False)
    assert reading.info.model == facts["model"]
