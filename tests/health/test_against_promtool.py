"""Every declaration evaluates as Prometheus does: the same input series go to promtool and
to the evaluator, and promtool checks the evaluator's answers (each record's and condition's
value at every evaluation, and the firing alerts) with the declarations rendered as rules."""

from __future__ import annotations

import math
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.health import scenario
from tests.helpers import require_tool
from zmon.health import shipped
from zmon.health.conditions import alerts_series, evaluate_conditions, needs
from zmon.health.expr import NAME, Context, Labels, ranged_records
from zmon.health.store import Store
from zmon.health.thresholds import DEFAULTS

CONDITIONS = shipped.conditions(DEFAULTS)
RECORDS = shipped.records(DEFAULTS)
EVAL_MINUTES = range(5, scenario.MINUTES + 1, 5)


def fed_store() -> Store:
    """The scenario fed in time order (the records read over a range are recorded as the
    feeds pass each step), every sample kept as fed."""
    ranged = ranged_records([*(c.expr for c in CONDITIONS), *(r.expr for r in RECORDS)])
    keep = {name: 1e9 for name in needs(CONDITIONS, RECORDS, scenario.STEP)}
    store = Store(keep, ranged, scenario.STEP, fine=math.inf)
    series = scenario.series()
    for minute in range(scenario.MINUTES + 1):
        for (name, labels), values in series.items():
            if values[minute] is not None:
                store.add_sample(name, dict(labels), values[minute], minute * scenario.STEP)
    return store


def _selector(labels: Labels) -> str:
    d = dict(labels)
    name = d.pop(NAME, "")
    return name + "{" + ", ".join(f'{k}="{v}"' for k, v in sorted(d.items())) + "}"


def _input_series() -> list[dict[str, str]]:
    out = []
    for (name, labels), values in scenario.series().items():
        text = " ".join("_" if v is None else f"{v:g}" for v in values)
        out.append({"series": _selector(((NAME, name), *labels)), "values": text})
    return out


def _rule_file() -> dict[str, object]:
    return {
        "groups": [
            {
                "name": "records",
                "rules": [{"record": r.name, "expr": r.expr.promql()} for r in RECORDS],
            },
            {
                "name": "conditions",
                "rules": [
                    {
                        "alert": c.name,
                        "expr": c.promql(),
                        "for": str(c.for_),
                        "keep_firing_for": str(c.keep_firing_for),
                        "labels": {"severity": c.severity},
                    }
                    for c in CONDITIONS
                ],  # fmt: skip
            },
        ]
    }


def expectations(store: Store) -> tuple[list[dict[str, object]], list[dict[str, object]], set[str]]:
    """promql_expr_test and alert_rule_test entries from the evaluator, and the alerts that
    fired at some evaluation."""
    exprs: list[dict[str, object]] = []
    alerts: list[dict[str, object]] = []
    fired: set[str] = set()
    for minute in EVAL_MINUTES:
        at = float(minute * scenario.STEP)
        instances = evaluate_conditions(CONDITIONS, store, at, interval=scenario.STEP)
        # a query after the evaluation at ``at`` sees the ALERTS it wrote
        ctx = Context(store, interval=scenario.STEP, alerts=alerts_series(instances))
        for node in [*(r.expr for r in RECORDS), *(c.expr for c in CONDITIONS)]:
            vector = sorted(node.vector(ctx, at).items())
            exprs.append({
                "expr": node.promql(),
                "eval_time": f"{minute}m",
                "exp_samples": [{"labels": _selector(k), "value": v} for k, v in vector],
            })  # fmt: skip
        for c in CONDITIONS:
            firing = [i for i in instances if i.alert == c.name and i.state == "firing"]
            fired |= {i.alert for i in firing}
            alerts.append({
                "eval_time": f"{minute}m",
                "alertname": c.name,
                "exp_alerts": [{"exp_labels": dict(i.labels)} for i in firing],
            })  # fmt: skip
    return exprs, alerts, fired


@pytest.mark.real
@pytest.mark.slow
def test_every_declaration_evaluates_as_prometheus_does(tmp_path: Path) -> None:
    promtool = require_tool("promtool", "Debian package prometheus")
    exprs, alerts, fired = expectations(fed_store())
    # the scenario is not vacuous: every condition fires at some evaluation
    assert fired == {c.name for c in CONDITIONS}
    (tmp_path / "rules.yml").write_text(yaml.safe_dump(_rule_file(), sort_keys=False))
    test = {
        "rule_files": ["rules.yml"],
        "evaluation_interval": "1m",
        # records first, as the rule file's groups run and as the evaluator reads them
        "group_eval_order": ["records", "conditions"],
        "tests": [{
            "interval": "1m",
            "input_series": _input_series(),
            "promql_expr_test": exprs,
            "alert_rule_test": alerts,
        }],
    }  # fmt: skip
    (tmp_path / "test.yml").write_text(yaml.safe_dump(test, sort_keys=False, width=10_000))
    run = subprocess.run(
        [promtool, "test", "rules", "test.yml"], cwd=tmp_path, capture_output=True, text=True
    )
    assert run.returncode == 0, (run.stdout + run.stderr)[:20_000]
