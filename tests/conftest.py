"""Shared test fixtures: golden files, real-component gating, fixture paths."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
GOLDEN = Path(__file__).parent / "golden"

# The live OpenZFS VM lab and the zfs-fuse test (tests/lab) need the lab built and run through
# `make lab-test`, which sets ZMON_LAB=1; the lab's hermetic table tests run everywhere.
collect_ignore = (
    [] if os.environ.get("ZMON_LAB") == "1" else ["lab/test_live.py", "lab/test_zfs_fuse.py"]
)
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite golden files from the current output instead of comparing",
    )


@pytest.fixture
def golden(request: pytest.FixtureRequest):
    """Compare text with tests/golden/<name>; with --update-golden, write it instead."""
    update = request.config.getoption("--update-golden")

    def check(name: str, text: str | bytes) -> None:
        if isinstance(text, bytes):
            text = text.decode()
        path = GOLDEN / name
        if update or not path.exists():
            if not update and IN_CI:
                pytest.fail(f"golden file {path} is missing; run pytest --update-golden")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            return
        expected = path.read_text()
        assert text == expected, f"output differs from {path}; rerun with --update-golden"

    return check


