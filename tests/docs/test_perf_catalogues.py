"""collectors/{iostat,txg,zfs_kstats}.md document exactly the metrics the collectors export.

The zfs_kstats table between the markers is generated from the curated table; run
``pytest tests/docs/test_perf_catalogues.py --update-golden`` to rewrite it after changing
the table.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.helpers import collector_doc
from zmon.collectors.zfs_kstats.catalogue import FAMILIES, GENERIC_METRIC, TABLE, KstatStat

GOLDEN = Path(__file__).parents[1] / "golden" / "perf"
BEGIN, END = "<!-- metrics:begin -->\n", "<!-- metrics:end -->\n"
TYPE = re.compile(r"^# TYPE (\S+) (\S+)$", re.M)
DOC_ROW = re.compile(r"^\| `(zmon_[a-z0-9_]+)` \| (counter|gauge|histogram) \|", re.M)


def kstat_table() -> str:
    by_metric: dict[str, list[KstatStat]] = {}
    for stat in TABLE:
        by_metric.setdefault(stat.metric, []).append(stat)
    lines = ["| metric | type | labels | kstat: fields |\n", "|---|---|---|---|\n"]
    for metric, stats in by_metric.items():
        first = stats[0]
        if first.labels:
            label = first.labels[0][0]
            labels = f"`{label}`: " + ", ".join(s.label_dict()[label] for s in stats)
            fields = f"`{first.field.replace(first.label_dict()[label], f'<{label}>')}`"
        else:
            labels, fields = "", ", ".join(f"`{s.field}`" for s in stats)
        lines.append(f"| `{metric}` | {first.kind} | {labels} | {first.kstat}: {fields} |\n")
    for kstat, (metric, label, prefix, _) in FAMILIES.items():
        without = f" without `{prefix}`" if prefix else ""
        lines.append(
            f"| `{metric}` | counter | `{label}`: the field name{without} | "
            f"{kstat}: every field |\n"
        )
    lines.append(
        f"| `{GENERIC_METRIC}` | gauge | `kstat`, `name` | a numeric field of these "
        "kstats not listed above |\n"
    )
    return "".join(lines)


def test_zfs_kstats_table_is_current(request: pytest.FixtureRequest) -> None:
    path = collector_doc("zfs_kstats")
    head, rest = path.read_text().split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    if request.config.getoption("--update-golden"):
        path.write_text(head + BEGIN + kstat_table() + END + tail)
        return
    assert rest.split(END, 1)[0] == kstat_table(), "rerun with --update-golden"


@pytest.mark.parametrize("name", ["iostat", "txg", "zfs_kstats"])
def test_documented_metrics_are_exported(name: str) -> None:
    """Every family in the golden output is in the doc with its type, and the doc names no more."""
    exported: dict[str, str] = {}
    for golden in GOLDEN.glob(f"{name}-*.prom"):
        exported.update(TYPE.findall(golden.read_text()))
    assert exported, "golden files missing; run the collector tests first"
    documented = dict(DOC_ROW.findall(collector_doc(name).read_text()))
    for metric, typ in exported.items():
        assert documented.get(metric) == typ, metric
    if name != "zfs_kstats":  # the kstat table also lists fields the lab versions lack
        assert set(documented) == set(exported)
