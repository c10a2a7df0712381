"""The UPS quantities that corpus EXPECTED.md files state, and their check against a reading."""

from __future__ import annotations

from typing import Any

import pytest

# fact key -> (quantity, scale from the printed unit to the base unit)
QUANTITY_FACTS = {
    "charge": ("battery_charge", 0.01),
    "runtime": ("battery_runtime", 1.0),
    "load": ("load", 0.01),
    "input_v": ("input_voltage", 1.0),
    "output_v": ("output_voltage", 1.0),
}


def assert_quantities(reading: Any, facts: dict[str, str], *, other_absent_keys: bool) -> None:
    """Each stated quantity has its value; each one listed under ``absent`` is not served.
    ``other_absent_keys``: the ``absent`` list may also name facts that are no quantity."""
    for key, (quantity, scale) in QUANTITY_FACTS.items():
        if key in facts:
            assert reading.values[quantity] == pytest.approx(float(facts[key]) * scale), key
    for key in facts.get("absent", "").replace(",", " ").split():
        if other_absent_keys and key not in QUANTITY_FACTS:
            continue
        assert QUANTITY_FACTS[key][0] not in reading.values, key
