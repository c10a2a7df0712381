"""NUT 2.8 device dumps (nut-ddl) parse to the facts of their EXPECTED.md."""

from __future__ import annotations

import pytest

from tests.collectors.ups.quantities import assert_quantities
from tests.helpers import fixture_path
from tests.support.expected import load_expected
from zmon.parsers.ups import nut
from zmon.parsers.ups.ups import FLAGS

DDL = fixture_path("ups", "ddl")
EXPECTED = load_expected(DDL / "EXPECTED.md")


def test_every_dump_has_facts_and_every_fact_a_dump():
    files = sorted(p.name for p in DDL.glob("*.dev"))
    assert files == sorted(EXPECTED)
    assert len(files) >= 22


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_dump_gives_its_facts(name):
    facts = EXPECTED[name]
    output = nut.parse_upsc((DDL / name).read_text())
    assert output.error is None
    reading = nut.reading_from_vars("ups", output.variables)
    assert reading.up
    # zmon exports a fixed set of flags; others (apc_modbus's "HE", high efficiency) are dropped
    assert reading.flags == frozenset(facts["status"].split()) & frozenset(FLAGS)
    assert_quantities(reading, facts, other_absent_keys=True)
    assert reading.info.driver == facts.get("driver", "")
    assert output.variables.get("driver.version") == facts["version"]
