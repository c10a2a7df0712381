"""Shared checks and fixture access for the I/O-performance tests."""

from __future__ import annotations

import math
from pathlib import Path

from prometheus_client.core import Metric

from tests.helpers import fixture_path

PERF = fixture_path("perf")
LAB = PERF / "lab"
VERSIONS = ("2.3.2", "2.1.11")


def lab(version: str, scenario: str, name: str) -> bytes:
    return (LAB / version / scenario / name).read_bytes()


def proc_tree(version: str) -> Path:
    return LAB / version / "01-healthy" / "proc"


def check_histograms(families: list[Metric]) -> int:
    """Assert every histogram series is valid; returns how many series were checked.

    Buckets are cumulative (non-decreasing with le), le strictly increases and ends with +Inf,
    +Inf equals _count, and _count and _sum are finite and non-negative.
    """
    checked = 0
    for fam in families:
        if fam.type != "histogram":
            continue
        series: dict[tuple, dict[str, list]] = {}
        for s in fam.samples:
            key = tuple(sorted((k, v) for k, v in s.labels.items() if k != "le"))
            entry = series.setdefault(key, {"buckets": [], "count": [], "sum": []})
            if s.name.endswith("_bucket"):
                entry["buckets"].append((float(s.labels["le"]), s.value))
            elif s.name.endswith("_count"):
                entry["count"].append(s.value)
            elif s.name.endswith("_sum"):
                entry["sum"].append(s.value)
        for key, entry in series.items():
            buckets = entry["buckets"]
            assert len(entry["count"]) == 1 and len(entry["sum"]) == 1, (fam.name, key)
            assert buckets and math.isinf(buckets[-1][0]), (fam.name, key)
            les = [b[0] for b in buckets]
            assert les == sorted(les) and len(set(les)) == len(les), (fam.name, key)
            values = [b[1] for b in buckets]
            assert all(a <= b for a, b in zip(values, values[1:], strict=False)), (fam.name, key)
            assert values[-1] == entry["count"][0], (fam.name, key)
            assert entry["count"][0] >= 0 and math.isfinite(entry["sum"][0]), (fam.name, key)
            assert entry["sum"][0] >= 0, (fam.name, key)
            checked += 1
    return checked
