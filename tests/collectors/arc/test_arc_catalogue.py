"""zmon/collectors/arc/README.md lists exactly the metrics the collector can export.

The metric table between the markers is generated from the curated table; run
``pytest tests/collectors/arc --update-golden`` to rewrite it after changing the table.
"""

from __future__ import annotations

import pytest

from tests.helpers import collector_doc
from zmon.collectors.arc.catalogue import ARC_TABLE, GENERIC_METRIC, PARAM_METRICS, ArcStat

CATALOGUE = collector_doc("arc")
BEGIN, END = "<!-- metrics:begin -->\n", "<!-- metrics:end -->\n"


def _row(stats: list[ArcStat]) -> str:
    first = stats[0]
    current = [s for s in stats if not s.versions.startswith("ZoL 0.6.0")]
    legacy = [s for s in stats if s.versions.startswith("ZoL 0.6.0")]
    if first.labels:
        state = first.label_dict()["state"]
        fields = f"`<state>_{first.kstat.removeprefix(state + '_')}`"
        if legacy:
            old = legacy[0].kstat.removeprefix(legacy[0].label_dict()["state"] + "_")
            fields += f" (ZoL 0.6.0-0.6.4: `<state>_{old}`)"
        labels = "`state`: " + ", ".join(s.label_dict()["state"] for s in current)
        versions = first.versions or "all"
        if first.versions != "OpenZFS 2.2+":
            versions += "; `uncached`: OpenZFS 2.2+"
    else:
        fields = ", ".join(f"`{s.kstat}`" for s in stats)
        labels = ""
        versions = "; ".join(f"{s.versions or 'all'}" for s in stats)
    if first.scale != 1:
        fields += " / 2^32"
    return f"| `{first.metric}` | {first.kind} | {labels} | {fields} | {versions} |\n"


def metric_table() -> str:
    by_metric: dict[str, list[ArcStat]] = {}
    for stat in ARC_TABLE:
        by_metric.setdefault(stat.metric, []).append(stat)
    lines = ["| metric | type | labels | arcstats field | versions |\n", "|---|---|---|---|---|\n"]
    lines += [_row(stats) for stats in by_metric.values()]
    lines.append(f"| `{GENERIC_METRIC}` | gauge | `name` | any field not above | all |\n")
    for gauge in PARAM_METRICS:
        sources = f"`/sys/module/zfs/parameters/{gauge.param.name}`; " + ", ".join(
            f"`sysctl {s}`" for s in gauge.param.sysctls
        )
        lines.append(f"| `{gauge.metric}` | gauge |  | {sources} | all |\n")
    return "".join(lines)


def test_catalogue_table_is_current(request: pytest.FixtureRequest) -> None:
    text = CATALOGUE.read_text()
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    fresh = head + BEGIN + metric_table() + END + tail
    if request.config.getoption("--update-golden"):
        CATALOGUE.write_text(fresh)
        return
    assert text == fresh, "zmon/collectors/arc/README.md is stale; rerun with --update-golden"
