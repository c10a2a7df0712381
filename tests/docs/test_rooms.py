"""Each collector has its room: package, doc page, tests, and a line in the catalogue index."""

from __future__ import annotations

from pathlib import Path

import pytest

from zmon.collecting.registry import collectors

ROOT = Path(__file__).resolve().parents[2]
INDEX = ROOT / "collectors" / "README.md"


@pytest.mark.parametrize("name", list(collectors()))
def test_collector_has_its_room(name: str) -> None:
    package = ROOT / "zmon" / "collectors" / name
    assert (package / "__init__.py").is_file(), f"collector {name} is not the package {package}"
    assert (package / "README.md").is_file(), f"{name} has no doc page {package}/README.md"
    tests = ROOT / "tests" / "collectors" / name
    assert list(tests.glob("test_*.py")), f"{name} has no tests in {tests}"
    assert f"[zmon/collectors/{name}/README.md]" in INDEX.read_text(), f"{INDEX} lacks {name}"


def test_no_collector_code_outside_the_packages() -> None:
    """Modules directly in zmon/collectors/ would be neither a collector nor a room."""
    loose = [p.name for p in (ROOT / "zmon" / "collectors").glob("*.py") if p.name != "__init__.py"]
    assert loose == []
