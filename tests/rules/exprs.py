"""Every PromQL expression zmon ships - rules, dashboard panels, dashboard variables - and
helpers to pick metric names and vector selectors out of them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from alert_rules.building import Alert, Record
from alert_rules.rules import groups
from grafana.boards import DASHBOARDS
from zmon.health.thresholds import DEFAULTS

# A vector selector of a zmon metric or recording rule, with its matchers (not the [range]).
_SELECTOR = re.compile(r"(?<![\w:])((?:zmon_|zmon:)[a-z0-9_:]*[a-z0-9_])(\{[^}]*\})?")
_HISTOGRAM_SUFFIX = re.compile(r"_(bucket|sum|count)$")
# Dashboard variables as a test run expands them.
GRAFANA_VARIABLES = {
    "$__rate_interval": "1m",
    "$__interval": "15s",
    "$__range": "1h",
    "$job": "zmon",
    "$instance": ".+",
    "$pool": ".+",
    "$device": ".+",
    "$ups": ".+",
}
_LABEL_VALUES = re.compile(r"^label_values\((?P<selector>.+),\s*(?P<label>\w+)\)$")


@dataclass(frozen=True)
class Expr:
    """One shipped expression: where it comes from and the PromQL to run."""

    origin: str  # "rule", "panel" or "variable"
    name: str  # rule name, or dashboard uid / panel title / refId
    promql: str

    @property
    def id(self) -> str:
        return f"{self.origin}:{self.name}"


def selectors(promql: str) -> list[str]:
    """The distinct zmon vector selectors in ``promql``, in order."""
    out = [m.group(1) + (m.group(2) or "") for m in _SELECTOR.finditer(promql)]
    return list(dict.fromkeys(out))


def metric_names(promql: str) -> set[str]:
    """zmon_* metric names (not recording rules) an expression reads."""
    return {m.group(1) for m in _SELECTOR.finditer(promql) if m.group(1).startswith("zmon_")}


def family(name: str) -> str:
    """The family a sample name belongs to (histogram _bucket/_sum/_count stripped)."""
    return _HISTOGRAM_SUFFIX.sub("", name)


def expand_grafana(promql: str) -> str:
    for variable, value in sorted(GRAFANA_VARIABLES.items(), key=lambda kv: -len(kv[0])):
        promql = promql.replace(variable, value)
    return promql


def rule_exprs() -> list[Expr]:
    out = []
    for group in groups(DEFAULTS):
        for rule in group.rules:
            name = rule.record if isinstance(rule, Record) else rule.alert
            out.append(Expr("rule", name, rule.expr))
    return out


def alert_rules() -> list[Alert]:
    return [r for g in groups(DEFAULTS) for r in g.rules if isinstance(r, Alert)]


def recording_rules() -> list[Record]:
    return [r for g in groups(DEFAULTS) for r in g.rules if isinstance(r, Record)]


def _panels(board: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for p in board["panels"] if p["type"] != "row"]


def panel_exprs() -> list[Expr]:
    out = []
    for uid, build in DASHBOARDS.items():
        for panel in _panels(build()):
            for target in panel["targets"]:
                name = f"{uid}/{panel['title']}/{target['refId']}"
                out.append(Expr("panel", name, expand_grafana(target["expr"])))
    return out


def panels() -> dict[str, list[Expr]]:
    """Each dashboard panel ("uid/title") and the queries of its targets."""
    out: dict[str, list[Expr]] = {}
    for expr in panel_exprs():
        out.setdefault(expr.name.rsplit("/", 1)[0], []).append(expr)
    return out


def variable_exprs() -> list[Expr]:
    """Dashboard variable queries as PromQL: label_values(sel, l) -> count by (l) (sel)."""
    out = []
    for uid, build in DASHBOARDS.items():
        for var in build()["templating"]["list"]:
            if var["type"] != "query":
                continue
            m = _LABEL_VALUES.match(var["query"]["query"])
            assert m, f"{uid} variable {var['name']}: only label_values(selector, label) is used"
            promql = f"count by ({m['label']}) ({m['selector']})"
            out.append(Expr("variable", f"{uid}/{var['name']}", expand_grafana(promql)))
    return out
