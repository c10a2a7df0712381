"""Grafana dashboards: generated, stable uids, variables, queries scoped by host, provisioning."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from grafana_foundation_sdk.models.common import GraphDrawStyle

from grafana import builder, generate
from grafana.boards import DASHBOARDS, OWN_LINES
from zmon.health.thresholds import DEFAULTS

GRAFANA = Path(generate.__file__).parent
BOARDS = {uid: build() for uid, build in DASHBOARDS.items()}


def test_committed_dashboards_are_the_generator_output() -> None:
    assert generate.main(["--check"]) == 0, "run python -m grafana.generate"


def test_dashboard_uids_are_stable() -> None:
    assert set(BOARDS) == {"zmon-fleet", "zmon-pool", "zmon-arc", "zmon-disks", "zmon-ups"}
    for uid, board in BOARDS.items():
        assert board["uid"] == uid
        on_disk = json.loads((GRAFANA / "dashboards" / f"{uid}.json").read_text())
        assert on_disk["uid"] == uid


def _variables(board: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {v["name"]: v for v in board["templating"]["list"]}


@pytest.mark.parametrize("uid", sorted(BOARDS))
def test_dashboard_has_datasource_and_host_variables(uid: str) -> None:
    variables = _variables(BOARDS[uid])
    assert variables["datasource"]["type"] == "datasource"
    assert variables["datasource"]["query"] == "prometheus"
    assert variables["instance"]["type"] == "query"
    assert variables["instance"]["includeAll"] and variables["instance"]["allValue"] == ".+"
    if uid == "zmon-pool":
        assert "$instance" in variables["pool"]["definition"]


def _panels(board: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for p in board["panels"] if p["type"] != "row"]


@pytest.mark.parametrize("uid", sorted(BOARDS))
def test_every_panel_uses_the_datasource_variable(uid: str) -> None:
    for panel in _panels(BOARDS[uid]):
        assert panel["datasource"]["uid"] == "${datasource}", panel["title"]
        for target in panel["targets"]:
            assert target["datasource"]["uid"] == "${datasource}", panel["title"]


@pytest.mark.parametrize("uid", sorted(BOARDS))
def test_panels_fit_the_grid_and_have_unique_ids(uid: str) -> None:
    panels = BOARDS[uid]["panels"]
    assert len({p["id"] for p in panels}) == len(panels)
    for p in panels:
        grid = p["gridPos"]
        assert 0 <= grid["x"] and grid["x"] + grid["w"] <= 24, p["title"]


@pytest.mark.parametrize("uid", sorted(BOARDS))
def test_every_zmon_query_is_scoped_to_the_selected_hosts(uid: str) -> None:
    for panel in _panels(BOARDS[uid]):
        for target in panel["targets"]:
            expr = target["expr"]
            for m in re.finditer(r"\b(zmon[_:][a-z0-9_:]+)(\{[^}]*\})?", expr):
                assert m.group(2) and 'instance=~"$instance"' in m.group(2), (
                    f"{panel['title']}: {m.group(0)} ignores the host variable"
                )


@pytest.mark.parametrize("uid", sorted(BOARDS))
def test_legends_use_single_template_braces(uid: str) -> None:
    for panel in _panels(BOARDS[uid]):
        for target in panel["targets"]:
            legend = target.get("legendFormat", "")
            assert "{{{" not in legend and re.fullmatch(r"[^{}]*(\{\{\w+\}\}[^{}]*)*", legend), (
                f"{panel['title']}: legend {legend!r}"
            )


def test_provisioning_example_points_at_the_dashboards() -> None:
    provider = (GRAFANA / "provisioning" / "dashboards" / "zmon.yml").read_text()
    datasource = (GRAFANA / "provisioning" / "datasources" / "zmon.yml").read_text()
    assert "type: file" in provider and "path:" in provider and "folder: zmon" in provider
    assert "type: prometheus" in datasource


def _exprs(board: dict[str, Any]) -> list[tuple[str, str]]:
    return [(p["title"], t["expr"]) for p in _panels(board) for t in p["targets"]]


@pytest.mark.parametrize("uid", sorted(BOARDS))
def test_every_aggregation_keeps_the_host(uid: str) -> None:
    """``by (device, ...)`` without ``instance`` folds sda of every selected host into one row
    (finding 5); every grouping keeps ``instance``. Fleet-wide counts use no ``by``."""
    for title, expr in _exprs(BOARDS[uid]):
        for by in re.findall(r"\bby \(([^)]*)\)", expr):
            assert "instance" in [x.strip() for x in by.split(",")], f"{title}: by ({by})"


def _titles_with(board: dict[str, Any], pattern: str) -> list[str]:
    return [
        p["title"]
        for p in _panels(board)
        if any(re.search(pattern, t["expr"]) for t in p["targets"])
    ]


@pytest.mark.parametrize("op", ["read", "write"])
def test_pool_dashboard_shows_latency_percentiles_per_pool_and_top_level_vdev(op: str) -> None:
    """Finding 6: slowdowns show as latency percentiles from zmon's histograms."""
    board = BOARDS["zmon-pool"]
    for metric, by in (
        ("zmon_pool_io_latency_seconds_bucket", "instance, pool, le"),
        ("zmon_vdev_io_latency_seconds_bucket", "instance, pool, vdev, le"),
    ):
        for q in ("0.5", "0.99"):
            pattern = (
                rf"histogram_quantile\({q}, sum by \({by}\) \(rate\({metric}"
                rf'\{{[^}}]*op="{op}"'
            )
            assert _titles_with(board, pattern), f"no p{q} {op} latency from {metric}"


def test_pool_dashboard_has_a_latency_heatmap() -> None:
    heatmaps = [p for p in _panels(BOARDS["zmon-pool"]) if p["type"] == "heatmap"]
    assert heatmaps, "no heatmap panel"
    for p in heatmaps:
        assert all(
            t.get("format") == "heatmap" and "_latency_seconds_bucket" in t["expr"]
            for t in p["targets"]
        )
        assert p.get("repeat") == "instance", "one heatmap per host: buckets must not merge"


def test_arc_hit_ratio_and_ghost_hits_share_one_axis_next_to_read_latency() -> None:
    board = BOARDS["zmon-arc"]
    both = [
        p
        for p in _panels(board)
        if any("zmon:arc_hit:ratio_rate5m" in t["expr"] for t in p["targets"])
        and any("zmon:arc_ghost_hits_per_access:" in t["expr"] for t in p["targets"])
    ]
    assert both, "no panel with ARC hit ratio and ghost hits together"
    panel = both[0]
    assert panel["fieldConfig"]["defaults"]["unit"] == "percentunit"
    assert not panel["fieldConfig"]["overrides"], "one axis: no per-series axis override"
    assert _titles_with(board, r"zmon:pool_io_latency_seconds:p99_rate5m\{"), (
        "read latency on the ARC dashboard's time axis"
    )


def _row(board: dict[str, Any], title: str) -> list[dict[str, Any]]:
    """The panels under the row ``title``, up to the next row."""
    out: list[dict[str, Any]] = []
    inside = False
    for p in board["panels"]:
        if p["type"] == "row":
            inside = p["title"] == title
        elif inside:
            out.append(p)
    return out


def test_the_arc_board_answers_why_is_it_slow() -> None:
    """Issue: latency against the host's usual, hit ratio, ghost hits per access and per miss,
    what a larger ARC would buy, demand vs prefetch, ghost list sizes, txg sync and throttle,
    scans, vdev and disk outliers: each from its recording rule or served metric."""
    panels = _row(BOARDS["zmon-arc"], "Why is it slow?")
    exprs = " ".join(t["expr"] for p in panels for t in p["targets"])
    for needed in (
        r'zmon:pool_io_latency_seconds:p99_rate5m\{[^}]*op="read"',
        r'zmon:pool_io_latency_seconds:p99_rate5m_median\{[^}]*op="read"',
        r'zmon:pool_io_latency_seconds:p99_rate5m\{[^}]*op="write"',
        r"zmon:pool_io_latency_p99_vs_usual:ratio\{",
        r"zmon:arc_hit:ratio_rate5m\{",
        r"zmon:arc_ghost_hits_per_access:ratio_rate5m\{",
        r"zmon:arc_ghost_hits_per_miss:ratio_rate5m\{",
        r"zmon:arc_ghost_size:bytes\{",
        r"zmon:arc_demand_hit:ratio_rate5m\{",
        r"zmon:arc_prefetch_hit:ratio_rate5m\{",
        r'zmon_arc_state_size_bytes\{[^}]*state=~"mru_ghost\|mfu_ghost"',
        r"zmon_pool_txg_sync_duration_seconds_bucket",
        r"zmon_pool_dmu_tx_assign_seconds_bucket",
        r"zmon:pool_scan_issued_bytes:rate\{",
        r"zmon:vdev_io_latency_p99_vs_siblings:ratio\{",
        r"zmon_vdev_slow_ios_total",
    ):
        assert re.search(needed, exprs), f"the row reads nothing like {needed}"


@pytest.mark.parametrize("uid", ["zmon-arc"])
def test_every_panel_has_a_unit(uid: str) -> None:
    for panel in _panels(BOARDS[uid]):
        config = panel["fieldConfig"]
        units = [config["defaults"].get("unit")] + [
            p["value"] for o in config["overrides"] for p in o["properties"] if p["id"] == "unit"
        ]
        assert any(units), f"{panel['title']}: no unit"


def _load_panel(**kw: Any) -> Any:
    return builder.timeseries(
        "Load", [builder.T('zmon_ups_load_ratio{instance=~"$instance"}')], **kw
    )


@pytest.mark.parametrize(
    ("mistake", "error"),
    [
        (lambda: _load_panel(unit="percentunits"), ValueError),  # the SDK takes any string
        (lambda: _load_panel(widht=8), TypeError),  # mypy says so too
        (lambda: _load_panel(width=25), ValueError),
        (lambda: builder.stat("Up", []).draw_style(GraphDrawStyle.BARS), AttributeError),
        (lambda: _load_panel().draw_stlye(GraphDrawStyle.BARS), AttributeError),
    ],
    ids=["unit misspelt", "option misspelt", "wider than the grid", "option of another panel",
         "SDK option misspelt"],
)  # fmt: skip
def test_the_builder_rejects_schema_mistakes_when_the_dashboard_is_built(
    mistake: Any, error: type[Exception]
) -> None:
    """What grafana/README.md ("Why this builder") counts: mistakes fail at generation."""
    with pytest.raises(error):
        mistake()


@pytest.mark.parametrize("uid", sorted(BOARDS))
def test_sdk_zero_values_do_not_hide_anything(uid: str) -> None:
    """The SDK writes every field of an options object it builds, unset ones as zero values:
    legend.showLegend false would hide every legend, heatmap colour steps 0 would paint nothing."""
    for panel in _panels(BOARDS[uid]):
        legend = panel["options"].get("legend", {})
        assert legend.get("showLegend", True) and legend.get("show", True), panel["title"]
        if panel["type"] == "heatmap":
            color = panel["options"]["color"]
            assert color["steps"] >= 2 and color["exponent"] > 0, panel["title"]


@pytest.mark.parametrize("uid", sorted(BOARDS))
def test_every_legend_names_the_instance(uid: str) -> None:
    """The Host variable is multi-valued (All by default): two hosts' ``tank`` or ``sda`` must
    not look the same. A target with a legend names the instance; one without shows every
    label, the instance among them. A panel repeated per host shows one host, named in its
    title (the heatmap, whose legend must be the bucket bound)."""
    for panel in _panels(BOARDS[uid]):
        if panel.get("repeat") == "instance" and "$instance" in panel["title"]:
            continue
        for target in panel["targets"]:
            legend = target.get("legendFormat", "")
            assert not legend or "{{instance}}" in legend, (
                f"{panel['title']}: legend {legend!r} does not name the instance"
            )


@pytest.mark.parametrize("uid", sorted(BOARDS))
def test_alerts_panels_follow_the_host_and_job_selectors(uid: str) -> None:
    for title, expr in _exprs(BOARDS[uid]):
        for m in re.finditer(r"\bALERTS(\{[^}]*\})?", expr):
            matchers = m.group(1) or ""
            assert 'instance=~"$instance' in matchers and 'job=~"$job"' in matchers, (
                f"{title}: {m.group(0)} ignores the Host or Job selector"
            )


ARC_COUNTER = re.compile(r"zmon_arc_\w+_total")


@pytest.mark.parametrize("uid", sorted(BOARDS))
def test_arc_ratios_come_from_their_recording_rules(uid: str) -> None:
    """Each ARC ratio is defined once (zmon/health/ratios.py, recorded as
    zmon:<name>:ratio_rate5m): no panel divides ARC counters itself."""
    for title, expr in _exprs(BOARDS[uid]):
        counters = ARC_COUNTER.findall(expr)
        assert not (counters and "/" in expr), f"{title}: computes an ARC ratio itself: {expr}"


def test_the_ghost_hit_ratio_on_the_arc_board_is_per_access() -> None:
    board = BOARDS["zmon-arc"]
    assert _titles_with(board, r"zmon:arc_ghost_hits_per_access:ratio_rate5m\{")
    for title, expr in _exprs(board):
        assert "ghost" not in expr or "per_hit" not in expr, title


# panel -> (the thresholds table's values it draws, the alert or finding that judges there)
JUDGED_LINES = {
    ("zmon-pool", "Since last scrub"): ((DEFAULTS.scrub_max_age.seconds,), "ZfsScrubOverdue"),
    ("zmon-pool", "Capacity"): (
        (DEFAULTS.capacity_warning_on, DEFAULTS.capacity_critical_on),
        "ZfsPoolCapacityWarning and ZfsPoolCapacityCritical"),
    ("zmon-pool", "Quota use (highest 20)"): ((DEFAULTS.dataset_quota_full,), "quota alerts"),
    ("zmon-pool", "Newest snapshot age (oldest 20)"): (
        (DEFAULTS.snapshot_max_age.seconds,), "ZfsDatasetSnapshotOverdue"),
    ("zmon-arc", "Latency against the usual"): ((DEFAULTS.slowdown_factor,), "ZfsArcSlowdown"),
    ("zmon-arc", "Top-level vdevs against their siblings"): (
        (DEFAULTS.slowdown_sibling_factor,), "the slow-vdev finding"),
    ("zmon-disks", "Temperature"): ((DEFAULTS.disk_temperature_max,), "DiskTemperatureHigh"),
    ("zmon-ups", "Runtime"): ((DEFAULTS.ups_runtime_min.seconds,), "UpsRuntimeLow"),
}  # fmt: skip


def _steps(panel: dict[str, Any]) -> list[float]:
    defaults = panel.get("fieldConfig", {}).get("defaults", {})
    steps = defaults.get("thresholds", {}).get("steps", [])
    return [s["value"] for s in steps if s["value"] is not None]


@pytest.mark.parametrize(("uid", "title"), sorted(JUDGED_LINES))
def test_a_line_where_an_alert_judges_is_the_thresholds_tables_value(uid: str, title: str) -> None:
    """Written once: the boards draw the rules' limits from zmon/health/thresholds.py."""
    (panel,) = [p for p in _panels(BOARDS[uid]) if p["title"] == title]
    values, judge = JUDGED_LINES[uid, title]
    for value in values:
        assert value in _steps(panel), f"{title}: no line at {judge}'s limit {value}"


def undeclared_lines(board: dict[str, Any]) -> list[str]:
    """Lines on ``board`` that are neither a judged line of its panel (JUDGED_LINES), one of
    the boards' own (grafana.boards.OWN_LINES), nor the red of a count or flag (1: any)."""
    found = []
    for panel in _panels(board):
        steps = _steps(panel)
        if steps == [1]:
            continue
        judged = JUDGED_LINES.get((board["uid"], panel["title"]), ((), ""))[0]
        allowed = {*judged, *OWN_LINES.values()}
        found += [f"{panel['title']}: {v}" for v in steps if v not in allowed]
    return found


@pytest.mark.parametrize("uid", sorted(BOARDS))
def test_every_line_on_a_board_is_declared(uid: str) -> None:
    on_disk = json.loads((GRAFANA / "dashboards" / f"{uid}.json").read_text())
    assert undeclared_lines(on_disk) == []


def test_a_line_copied_by_hand_into_a_board_is_found(tmp_path: Path) -> None:
    copy = tmp_path / "zmon-pool.json"
    shutil.copy(GRAFANA / "dashboards" / "zmon-pool.json", copy)
    board = json.loads(copy.read_text())
    (panel,) = [p for p in _panels(board) if p["title"] == "Capacity"]
    panel["fieldConfig"]["defaults"]["thresholds"]["steps"][-1]["value"] = 0.95
    copy.write_text(json.dumps(board))
    assert undeclared_lines(json.loads(copy.read_text())) == ["Capacity: 0.95"]
