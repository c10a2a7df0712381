"""The catalogue entries list exactly the metrics each pool-side collector can export."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.helpers import collector_doc, collector_source

ROOT = Path(__file__).resolve().parents[2]
BEGIN, END = "<!-- metrics:begin -->\n", "<!-- metrics:end -->\n"
COLLECTORS = ("zpool_list", "zpool_events", "datasets", "dedup", "pool_kstats")


def documented(name: str) -> set[str]:
    text = collector_doc(name).read_text()
    table = text[text.index(BEGIN) + len(BEGIN) : text.index(END)]
    return set(re.findall(r"^\| `(zmon_[a-z0-9_]+)`", table, re.M))


def in_code(name: str) -> set[str]:
    source = collector_source(name)
    return set(re.findall(r'"(zmon_[a-z0-9_]+)"', source))


@pytest.mark.parametrize("name", COLLECTORS)
def test_catalogue_matches_code(name: str) -> None:
    assert documented(name) == in_code(name)


def test_golden_outputs_only_use_documented_names() -> None:
    names: set[str] = set()
    for name in COLLECTORS:
        names |= documented(name)
    for golden in (ROOT / "tests" / "golden" / "pools").glob("*.prom"):
        for family in re.findall(r"^# TYPE (\S+) ", golden.read_text(), re.M):
            assert family in names or family + "_total" in names, (golden.name, family)
