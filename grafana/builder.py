"""zmon's dashboard conventions on Grafana's own typed SDK (grafana-foundation-sdk, Grafana 11.6).

The SDK holds the schema: panel options are typed builder methods and enums, so a misspelt
option, an option of another panel type, a wrong value or type fails when the dashboard is
built or under mypy --strict (grafana/README.md, "Why this builder"). This module adds only
what is zmon's: one Prometheus data source chosen by a variable, the query and panel defaults
used everywhere, refIds A, B, ... and panel ids in order, and the layout (left to right,
wrapping at Grafana's 24 columns before a panel would overflow).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, TypedDict, TypeVar, Unpack

from grafana_foundation_sdk.builders import common as cb
from grafana_foundation_sdk.builders import dashboard as db
from grafana_foundation_sdk.builders import heatmap as hm
from grafana_foundation_sdk.builders import prometheus as pb
from grafana_foundation_sdk.builders import stat as st
from grafana_foundation_sdk.builders import statetimeline as stl
from grafana_foundation_sdk.builders import table as tb
from grafana_foundation_sdk.builders import timeseries as ts
from grafana_foundation_sdk.cog.encoder import JSONEncoder
from grafana_foundation_sdk.models import common as cm
from grafana_foundation_sdk.models import dashboard as dm
from grafana_foundation_sdk.models import heatmap as hmm
from grafana_foundation_sdk.models import prometheus as pm

DS = dm.DataSourceRef(type_val="prometheus", uid="${datasource}")
GRID_WIDTH = 24
TAGS = ["zmon", "zfs"]

# Grafana's unit ids (packages/grafana-data/src/valueFormats/categories.ts) in the categories
# these dashboards can use; a unit is a free string in the SDK, so a misspelt one would only show
# as unformatted numbers. "suffix:", "si:" and "count:" are Grafana's custom-unit forms.
UNITS = frozenset(
    """none short percent percentunit locale bits bytes kbytes mbytes gbytes tbytes pbytes
    decbits decbytes deckbytes decmbytes decgbytes dectbytes decpbytes pps bps Bps KBs Kbits MBs
    Mbits GBs Gbits TBs Tbits PBs Pbits hertz ns µs ms s m h d dtdurationms dtdurations dthms
    dtdhms clockms clocks dateTimeAsIso dateTimeFromNow celsius fahrenheit kelvin cps ops reqps
    rps wps iops cpm opm rpm wpm watt kwatt voltamp kvoltamp watth kwatth amp mamp volt mvolt
    """.split()
)
CUSTOM_UNITS = ("suffix:", "si:", "count:")

Panel = ts.Panel | st.Panel | tb.Panel | stl.Panel | hm.Panel
Row = db.Row
Variable = db.QueryVariable
Query = pb.Dataquery
Mapping = dm.ValueMap | dm.RangeMap | dm.RegexMap | dm.SpecialValueMap
P = TypeVar("P", ts.Panel, st.Panel, tb.Panel, stl.Panel, hm.Panel)


def T(expr: str, legend: str = "") -> pb.Dataquery:  # noqa: N802 - reads well in panel lists
    query = pb.Dataquery().expr(expr).datasource(DS).range()
    return query.legend_format(legend) if legend else query


def I(expr: str) -> pb.Dataquery:  # noqa: N802,E743 - an instant table query
    return pb.Dataquery().expr(expr).datasource(DS).instant().format(pm.PromQueryFormat.TABLE)


class Options(TypedDict, total=False):
    """What every panel helper takes besides its title and queries (checked by mypy)."""

    description: str
    width: int
    height: int
    unit: str
    min: float
    max: float
    thresholds: Sequence[tuple[float | None, str]]
    mappings: list[Mapping]
    repeat: str  # one copy of the panel per value of this variable


def _panel(panel: P, title: str, targets: Sequence[pb.Dataquery], **kw: Unpack[Options]) -> P:
    unknown = set(kw) - set(Options.__annotations__)
    if unknown:  # mypy says so too; this is for a generator run without it
        raise TypeError(f"{title}: unknown panel options {sorted(unknown)}")
    panel.title(title).description(kw.get("description", "")).datasource(DS)
    panel.span(kw.get("width", 12)).height(kw.get("height", 8))
    for i, target in enumerate(targets):
        panel.with_target(target.ref_id(chr(ord("A") + i)))
    if "unit" in kw:
        panel.unit(_known(kw["unit"]))
    if "min" in kw:
        panel.min(kw["min"])
    if "max" in kw:
        panel.max(kw["max"])
    if "thresholds" in kw:
        steps = [dm.Threshold(value=v, color=c) for v, c in kw["thresholds"]]
        panel.thresholds(db.ThresholdsConfig().mode(dm.ThresholdsMode.ABSOLUTE).steps(steps))
        panel.color_scheme(db.FieldColor().mode(dm.FieldColorModeId.THRESHOLDS))
    if "mappings" in kw:
        panel.mappings(kw["mappings"])
    if "repeat" in kw:
        panel.repeat(kw["repeat"]).repeat_direction("h")
    return panel


def timeseries(title: str, targets: Sequence[pb.Dataquery], **kw: Unpack[Options]) -> ts.Panel:
    legend = cb.VizLegendOptions().display_mode(cm.LegendDisplayMode.TABLE)
    legend.placement(cm.LegendPlacement.BOTTOM).calcs(["lastNotNull", "max"]).show_legend(True)
    tooltip = cb.VizTooltipOptions().mode(cm.TooltipDisplayMode.MULTI).sort(cm.SortOrder.DESCENDING)
    return _panel(ts.Panel(), title, targets, **kw).legend(legend).tooltip(tooltip)


def bars(title: str, targets: Sequence[pb.Dataquery], **kw: Unpack[Options]) -> ts.Panel:
    """A timeseries drawn as bars: for counts per interval (errors, events)."""
    panel = timeseries(title, targets, **kw)
    return panel.draw_style(cm.GraphDrawStyle.BARS).fill_opacity(80).line_width(1)


def stat(title: str, targets: Sequence[pb.Dataquery], **kw: Unpack[Options]) -> st.Panel:
    kw.setdefault("width", 6)
    kw.setdefault("height", 4)
    reduce = cb.ReduceDataOptions().calcs(["lastNotNull"]).fields("").values(False)
    panel = _panel(st.Panel(), title, targets, **kw).reduce_options(reduce)
    panel.color_mode(cm.BigValueColorMode.BACKGROUND).graph_mode(cm.BigValueGraphMode.NONE)
    return panel.text_mode(cm.BigValueTextMode.AUTO)


def table(
    title: str,
    targets: Sequence[pb.Dataquery],
    rename: dict[str, str] | None = None,
    hide: tuple[str, ...] = ("Time",),
    **kw: Unpack[Options],
) -> tb.Panel:
    """Instant queries merged into one row per label set, columns renamed and ordered."""
    kw.setdefault("width", GRID_WIDTH)
    organize = {"excludeByName": {name: True for name in hide}, "renameByName": rename or {}}
    panel = _panel(tb.Panel(), title, targets, **kw).show_header(True)
    panel.cell_height(cm.TableCellHeight.SM)
    panel.with_transformation(dm.DataTransformerConfig(id_val="merge", options={}))
    return panel.with_transformation(dm.DataTransformerConfig(id_val="organize", options=organize))


def heatmap(title: str, expr: str, **kw: Unpack[Options]) -> hm.Panel:
    """Counts per histogram bucket over time (``expr`` yields one series per ``le``)."""
    target = T(expr, "{{le}}").format(pm.PromQueryFormat.HEATMAP)
    panel = _panel(hm.Panel(), title, [target], **kw).calculate(False).cell_gap(1)
    panel.y_axis(hm.YAxisConfig().unit(_known("s")))
    # every field: the SDK writes zero values (exponent 0, steps 0) for those left unset
    color = hm.HeatmapColorOptions().mode(hmm.HeatmapColorMode.SCHEME).scheme("Oranges")
    color.fill("dark-orange").scale(hmm.HeatmapColorScale.EXPONENTIAL).exponent(0.5).steps(64)
    panel.color(color)
    return panel.mode(cm.TooltipDisplayMode.SINGLE).show_y_histogram()


def state_timeline(title: str, targets: Sequence[pb.Dataquery], **kw: Unpack[Options]) -> stl.Panel:
    legend = cb.VizLegendOptions().display_mode(cm.LegendDisplayMode.LIST)
    legend.placement(cm.LegendPlacement.BOTTOM).show_legend(True)
    panel = _panel(stl.Panel(), title, targets, **kw).show_value(cm.VisibilityMode.NEVER)
    return panel.merge_values(True).row_height(0.8).legend(legend)


def value_map(*pairs: tuple[str, str, str]) -> list[Mapping]:
    """Grafana value mappings from (value, text, color) triples."""
    options = {
        v: dm.ValueMappingResult(text=text, color=color, index=i)
        for i, (v, text, color) in enumerate(pairs)
    }
    return [dm.ValueMap(options=options)]


def _known(unit: str) -> str:
    if unit not in UNITS and not unit.startswith(CUSTOM_UNITS):
        raise ValueError(f"{unit!r} is not a Grafana unit id")
    return unit


def unit(name: str) -> dm.DynamicConfigValue:
    """An override property: this unit for the matched fields."""
    return dm.DynamicConfigValue(id_val="unit", value=_known(name))


def query_variable(name: str, label: str, query: str, multi: bool = True) -> Variable:
    """A variable from ``label_values(...)``; multi-valued ones offer All (regex ``.+``)."""
    variable = db.QueryVariable(name).label(label).datasource(DS)
    variable.query({"query": query, "refId": f"{name}-variable"})
    variable.refresh(dm.VariableRefresh.ON_TIME_RANGE_CHANGED).sort(
        dm.VariableSort.ALPHABETICAL_ASC
    )
    variable.multi(multi).include_all(multi)
    return variable.all_value(".+") if multi else variable


def _layout(board: db.Dashboard, items: Sequence[Panel | Row]) -> None:
    """Place panels left to right, wrapping before a panel would overflow the grid; a Row
    starts a new section. (The SDK's own placement wraps only after the row is full.)"""
    x = y = row_height = 0
    for panel_id, item in enumerate(items, start=1):
        if isinstance(item, db.Row):
            y += row_height
            x = row_height = 0
            board.with_row(item.id(panel_id).grid_pos(dm.GridPos(h=1, w=GRID_WIDTH, x=0, y=y)))
            y += 1
            continue
        panel = item.id(panel_id).build()
        grid = panel.grid_pos
        assert grid is not None  # every helper sets width and height
        if x + grid.w > GRID_WIDTH:
            y += row_height
            x = row_height = 0
        grid.x, grid.y = x, y
        board.with_panel(_Built(panel))
        x += grid.w
        row_height = max(row_height, grid.h)


class _Built(db.Panel):
    """An already built panel, handed to Dashboard.with_panel with its position kept."""

    def __init__(self, panel: dm.Panel) -> None:
        super().__init__()
        self._panel = panel

    def build(self) -> dm.Panel:
        return self._panel


def dashboard(
    uid: str, title: str, description: str, variables: list[Variable], items: Sequence[Panel | Row]
) -> dict[str, Any]:
    link = db.DashboardLink("zmon dashboards").type(dm.DashboardLinkType.DASHBOARDS).tags(["zmon"])
    link.as_dropdown(True).include_vars(True).keep_time(True)
    source = db.DatasourceVariable("datasource").label("Data source").type("prometheus")
    board = db.Dashboard(title).uid(uid).description(description).tags(TAGS).timezone("browser")
    board.editable().tooltip(dm.DashboardCursorSync.CROSSHAIR).time("now-6h", "now")
    board.refresh("1m").version(1).link(link).variables([source, *variables])
    _layout(board, items)
    out: dict[str, Any] = json.loads(json.dumps(board.build(), cls=JSONEncoder))
    for variable in out["templating"]["list"]:
        if variable["type"] == "query":  # the query text Grafana's variable list shows
            variable["definition"] = variable["query"]["query"]
    return out
