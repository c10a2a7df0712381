"""Small builders for Grafana dashboard JSON (schema 39, Grafana 10 and later).

Only what zmon's dashboards use: query variables, rows, and timeseries, stat, table,
state-timeline and bar-gauge panels over one Prometheus data source chosen by a variable.
Panels are laid out left to right, wrapping at Grafana's 24-column width.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

DS = {"type": "prometheus", "uid": "${datasource}"}
GRID_WIDTH = 24
TAGS = ["zmon", "zfs"]


@dataclass
class Target:
    expr: str
    legend: str = ""
    instant: bool = False
    table: bool = False
    heatmap: bool = False

    def render(self, ref: str) -> dict[str, Any]:
        out: dict[str, Any] = {
            "refId": ref,
            "datasource": DS,
            "expr": self.expr,
            "range": not self.instant,
            "instant": self.instant,
        }
        if self.legend:
            out["legendFormat"] = self.legend
        if self.table:
            out["format"] = "table"
        if self.heatmap:
            out["format"] = "heatmap"
        return out


def T(expr: str, legend: str = "") -> Target:  # noqa: N802 - reads well in panel lists
    return Target(expr, legend)


def I(expr: str) -> Target:  # noqa: N802,E743 - an instant table query
    return Target(expr, instant=True, table=True)


@dataclass
class Panel:
    kind: str
    title: str
    targets: list[Target]
    description: str = ""
    width: int = 12
    height: int = 8
    unit: str = ""
    min: float | None = None
    max: float | None = None
    thresholds: list[tuple[float | None, str]] = field(default_factory=list)
    mappings: list[dict[str, Any]] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)
    custom: dict[str, Any] = field(default_factory=dict)
    overrides: list[dict[str, Any]] = field(default_factory=list)
    transformations: list[dict[str, Any]] = field(default_factory=list)
    repeat: str = ""  # one copy of the panel per value of this variable

    def render(self, panel_id: int, x: int, y: int) -> dict[str, Any]:
        defaults: dict[str, Any] = {}
        if self.unit:
            defaults["unit"] = self.unit
        if self.min is not None:
            defaults["min"] = self.min
        if self.max is not None:
            defaults["max"] = self.max
        if self.thresholds:
            steps = [{"value": v, "color": c} for v, c in self.thresholds]
            defaults["thresholds"] = {"mode": "absolute", "steps": steps}
            defaults["color"] = {"mode": "thresholds"}
        if self.mappings:
            defaults["mappings"] = self.mappings
        if self.custom:
            defaults["custom"] = self.custom
        out: dict[str, Any] = {
            "id": panel_id,
            "type": self.kind,
            "title": self.title,
            "description": self.description,
            "datasource": DS,
            "gridPos": {"h": self.height, "w": self.width, "x": x, "y": y},
            "fieldConfig": {"defaults": defaults, "overrides": self.overrides},
            "options": self.options,
            "targets": [t.render(chr(ord("A") + i)) for i, t in enumerate(self.targets)],
        }
        if self.transformations:
            out["transformations"] = self.transformations
        if self.repeat:
            out["repeat"] = self.repeat
            out["repeatDirection"] = "h"
        return out


@dataclass
class Row:
    title: str


_LEGEND = {"displayMode": "table", "placement": "bottom", "calcs": ["lastNotNull", "max"]}


def timeseries(title: str, targets: list[Target], **kw: Any) -> Panel:
    kw.setdefault("options", {"legend": _LEGEND, "tooltip": {"mode": "multi", "sort": "desc"}})
    return Panel("timeseries", title, targets, **kw)


def bars(title: str, targets: list[Target], **kw: Any) -> Panel:
    """A timeseries drawn as bars: for counts per interval (errors, events)."""
    kw.setdefault("custom", {"drawStyle": "bars", "fillOpacity": 80, "lineWidth": 1})
    return timeseries(title, targets, **kw)


def stat(title: str, targets: list[Target], **kw: Any) -> Panel:
    kw.setdefault("width", 6)
    kw.setdefault("height", 4)
    kw.setdefault(
        "options",
        {
            "reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False},
            "colorMode": "background",
            "graphMode": "none",
            "textMode": "auto",
        },
    )
    return Panel("stat", title, targets, **kw)


def table(
    title: str,
    targets: list[Target],
    rename: dict[str, str] | None = None,
    hide: tuple[str, ...] = ("Time",),
    **kw: Any,
) -> Panel:
    """Instant queries merged into one row per label set, columns renamed and ordered."""
    kw.setdefault("width", 24)
    kw.setdefault("options", {"showHeader": True, "cellHeight": "sm"})
    excluded = {name: True for name in hide}
    organize = {"excludeByName": excluded, "renameByName": rename or {}}
    kw.setdefault(
        "transformations", [{"id": "merge", "options": {}}, {"id": "organize", "options": organize}]
    )
    return Panel("table", title, targets, **kw)


def heatmap(title: str, expr: str, **kw: Any) -> Panel:
    """Counts per histogram bucket over time (``expr`` yields one series per ``le``)."""
    kw.setdefault(
        "options",
        {
            "calculate": False,
            "yAxis": {"unit": "s"},
            "cellGap": 1,
            "color": {"mode": "scheme", "scheme": "Oranges"},
            "tooltip": {"show": True, "yHistogram": True},
        },
    )
    target = Target(expr, "{{le}}", heatmap=True)
    return Panel("heatmap", title, [target], **kw)


def state_timeline(title: str, targets: list[Target], **kw: Any) -> Panel:
    legend = {"displayMode": "list", "placement": "bottom"}
    kw.setdefault(
        "options", {"showValue": "never", "mergeValues": True, "rowHeight": 0.8, "legend": legend}
    )
    return Panel("state-timeline", title, targets, **kw)


def value_map(*pairs: tuple[str, str, str]) -> list[dict[str, Any]]:
    """Grafana value mappings from (value, text, color) triples."""
    options = {
        v: {"text": text, "color": color, "index": i} for i, (v, text, color) in enumerate(pairs)
    }
    return [{"type": "value", "options": options}]


def datasource_variable() -> dict[str, Any]:
    return {
        "name": "datasource",
        "label": "Data source",
        "type": "datasource",
        "query": "prometheus",
        "current": {},
        "hide": 0,
        "refresh": 1,
        "regex": "",
    }


def query_variable(name: str, label: str, query: str, multi: bool = True) -> dict[str, Any]:
    """A variable from ``label_values(...)``; multi-valued ones offer All (regex ``.+``)."""
    out: dict[str, Any] = {
        "name": name, "label": label, "type": "query", "datasource": DS,
        "query": {"query": query, "refId": f"{name}-variable"}, "definition": query,
        "refresh": 2, "sort": 1, "hide": 0, "current": {}, "regex": "",
        "multi": multi, "includeAll": multi,
    }  # fmt: skip
    if multi:
        out["allValue"] = ".+"
    return out


def layout(items: list[Panel | Row]) -> list[dict[str, Any]]:
    """Place panels left to right, wrapping rows; a Row starts a new collapsible section."""
    out: list[dict[str, Any]] = []
    x = y = row_height = 0
    for panel_id, item in enumerate(items, start=1):
        if isinstance(item, Row):
            y += row_height
            x = row_height = 0
            grid = {"h": 1, "w": GRID_WIDTH, "x": 0, "y": y}
            out.append(
                {
                    "id": panel_id,
                    "type": "row",
                    "title": item.title,
                    "collapsed": False,
                    "gridPos": grid,
                    "panels": [],
                }
            )
            y += 1
            continue
        if x + item.width > GRID_WIDTH:
            y += row_height
            x = row_height = 0
        out.append(item.render(panel_id, x, y))
        x += item.width
        row_height = max(row_height, item.height)
    return out


def dashboard(
    uid: str,
    title: str,
    description: str,
    variables: list[dict[str, Any]],
    items: list[Panel | Row],
) -> dict[str, Any]:
    return {
        "uid": uid,
        "title": title,
        "description": description,
        "tags": TAGS,
        "timezone": "browser",
        "editable": True,
        "graphTooltip": 1,
        "schemaVersion": 39,
        "version": 1,
        "time": {"from": "now-6h", "to": "now"},
        "refresh": "1m",
        "links": [
            {
                "title": "zmon dashboards",
                "type": "dashboards",
                "tags": ["zmon"],
                "asDropdown": True,
                "includeVars": True,
                "keepTime": True,
            }
        ],
        "annotations": {"list": []},
        "templating": {"list": [datasource_variable(), *variables]},
        "panels": layout(items),
    }
