"""Every rule expression and dashboard query, run by a real Prometheus scraping the demo host.

One Prometheus (Debian's /usr/bin/prometheus) loads the committed rule file and scrapes
`zmon serve --demo` every second while the test steps the demo once through its whole story:
each phase stays until zmon serves all of it and Prometheus has scraped it a few times, however
long that takes on a loaded machine. Then each expression is run as a range query over that
time: it must execute, and each zmon selector in it must have returned data at some point.
Selectors the demo cannot serve yet are listed, with the reason, in tests/rules/pending.py:
those expressions are xfail. Each dashboard panel is also run phase by phase: the phases in
which it shows nothing are reported per panel (a warning: a scan panel is empty while no scan
runs), and a panel empty through the whole loop fails unless pending.py says why; one the
demo cannot show at all passes only where pending.SHOWN_ON_LAB names the test that runs it on
the lab's recording.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest

from alert_rules.generate import RULES_FILE
from tests.helpers import require_tool
from tests.rules import pending
from tests.rules.exprs import (
    Expr,
    family,
    metric_names,
    panel_exprs,
    panels,
    recording_rules,
    rule_exprs,
    selectors,
    variable_exprs,
)
from tests.rules.stack import Prometheus, SteppedDemo
from zmon.demo.timeline import PHASES

pytestmark = [pytest.mark.real, pytest.mark.slow]


class Window(NamedTuple):
    """Prometheus, the time it watched the whole loop, and when it held each phase."""

    prom: Prometheus
    start: float
    end: float
    phases: dict[str, tuple[float, float]]


class EmptyPanelWarning(UserWarning):
    """A dashboard panel showed nothing in some demo phases."""


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Window]:
    """Prometheus that has watched the demo host through one whole loop of its story."""
    binary = require_tool("prometheus", "Debian package prometheus")
    tmp = tmp_path_factory.mktemp("live")
    zmon = SteppedDemo(tmp)
    start = time.time()
    prom = None
    try:
        prom = Prometheus(binary, tmp, zmon.address, [RULES_FILE])
        phases: dict[str, tuple[float, float]] = {}
        entered = start
        prom.wait_scraped(zmon)
        for _ in range(len(PHASES) - 1):
            phases[zmon.phases[-1]] = (entered, time.time())
            zmon.step()
            entered = time.time()
            prom.wait_scraped(zmon)
        phases[zmon.phases[-1]] = (entered, time.time())
        assert zmon.phases == [p.name for p in PHASES], zmon.phases
        yield Window(prom, start, time.time(), phases)
    finally:
        if prom is not None:
            prom.stop()
        zmon.stop()


def _has_data(window: Window, promql: str) -> bool:
    return bool(window.prom.query_range(promql, window.start, window.end, step=1))


def _check(window: Window, expr: Expr, whole_must_return_data: bool) -> None:
    prom, start, end, _ = window
    result = prom.query_range(expr.promql, start, end, step=1)  # raises on a PromQL error
    found = {s: _has_data(window, f"count({s})") for s in selectors(expr.promql)}
    missing = [s for s, ok in found.items() if not ok and not pending.absent_by_design(s)]
    reasons = {s: pending.reason_for(s) for s in missing}
    unexplained = [s for s, r in reasons.items() if r is None]
    assert not unexplained, f"no data through a whole demo loop for {unexplained}"
    if missing:
        pytest.xfail("; ".join(sorted({r for r in reasons.values() if r})))
    if whole_must_return_data and any(found.values()):
        assert result, f"{expr.id} returned nothing through a whole demo loop"


@pytest.mark.parametrize("expr", rule_exprs(), ids=lambda e: e.name)
def test_rule_expression_runs_on_the_demo_data(demo: Window, expr: Expr) -> None:
    _check(demo, expr, whole_must_return_data=False)


@pytest.mark.parametrize("name", [r.record for r in recording_rules()])
def test_recording_rule_records_series(demo: Window, name: str) -> None:
    if _has_data(demo, name) or pending.absent_by_design(name):
        return
    reason = pending.reason_for(name)
    if reason:
        pytest.xfail(reason)
    raise AssertionError(f"recording rule {name} produced nothing")


@pytest.mark.parametrize("expr", panel_exprs(), ids=lambda e: e.name)
def test_dashboard_panel_query_returns_data(demo: Window, expr: Expr) -> None:
    _check(demo, expr, whole_must_return_data=True)


@pytest.mark.parametrize("panel", sorted(panels()))
def test_dashboard_panel_shows_data_in_the_demo(demo: Window, panel: str) -> None:
    """Per panel: the phases in which none of its queries returned anything are reported;
    a panel with a query empty through the whole loop fails unless pending.py explains it."""
    targets = panels()[panel]
    empty_in = [
        phase
        for phase, (start, end) in demo.phases.items()
        # a phase lasts a few scrapes: a step finer than the scrape interval sees them all
        if not any(demo.prom.query_range(e.promql, start, end, step=0.25) for e in targets)
    ]
    if empty_in:
        phases = ", ".join(empty_in)
        warnings.warn(f"{panel}: empty in the demo phases {phases}", EmptyPanelWarning, 2)
    empty = [e for e in targets if not _has_data(demo, e.promql)]
    reasons = {
        e.name: sorted({pending.reason_for(s) or "" for s in selectors(e.promql)} - {""})
        or sorted({pending.absent_by_design(s) or "" for s in selectors(e.promql)} - {""})
        for e in empty
    }
    unexplained = [name for name, why in reasons.items() if not why]
    assert not unexplained, f"{panel}: empty through a whole demo loop: {unexplained}"
    if empty and panel not in pending.SHOWN_ON_LAB:
        pytest.xfail(f"{panel}: " + "; ".join(sorted({r for why in reasons.values() for r in why})))


# The "Why is it slow?" panels the demo's slowdown phase must move (zmon/demo/timeline.py).
SLOWDOWN_PANELS = (
    "zmon-arc/Read latency p99 against the usual",
    "zmon-arc/Latency against the usual",
    "zmon-arc/ARC hits, and what the misses were",
    "zmon-arc/What a larger ARC would buy",
    "zmon-arc/Ghost list sizes",
    "zmon-arc/ARC reads per second",
)


@pytest.mark.parametrize("panel", SLOWDOWN_PANELS)
def test_the_slowdown_phase_shows_in_the_why_is_it_slow_row(demo: Window, panel: str) -> None:
    start, end = demo.phases["slowdown"]
    targets = panels()[panel]
    shown = [e.name for e in targets if demo.prom.query_range(e.promql, start, end, step=0.25)]
    assert len(shown) == len(targets), f"{panel}: empty in the slowdown phase: {targets}"


@pytest.mark.parametrize("expr", variable_exprs(), ids=lambda e: e.name)
def test_dashboard_variable_query_returns_values(demo: Window, expr: Expr) -> None:
    _check(demo, expr, whole_must_return_data=True)


def test_rules_evaluate_without_errors(demo: Window) -> None:
    broken = {r["name"]: r.get("lastError") for r in demo.prom.rule_health() if r["health"] != "ok"}
    assert not broken, f"rules failing in Prometheus: {broken}"


def test_every_referenced_metric_is_in_zmon_output(demo: Window) -> None:
    prom, start, end, _ = demo
    served = {
        r["metric"]["__name__"]
        # step 1 s, the scrape interval: a coarser step can jump over a phase
        for r in prom.query_range('count by (__name__) ({__name__=~"zmon_.+"})', start, end, 1)
    }
    exprs = [*rule_exprs(), *panel_exprs(), *variable_exprs()]
    referenced = {family(n) for e in exprs for n in metric_names(e.promql)}
    served_families = {family(n) for n in served}
    absent = referenced - served_families
    explained = {n for n in absent if pending.reason_for(n) or pending.absent_by_design(n)}
    unexplained = sorted(absent - explained)
    assert not unexplained, f"rules or dashboards read metrics zmon does not serve: {unexplained}"
    stale = sorted(set(pending.NOT_IN_DEMO_YET) & served_families)
    if stale:
        warnings.warn(
            f"the demo now serves {stale}: remove them from tests/rules/pending.py", stacklevel=1
        )


def test_pending_list_names_only_metrics_the_rules_or_dashboards_use() -> None:
    exprs = [*rule_exprs(), *panel_exprs(), *variable_exprs()]
    referenced = {family(n) for e in exprs for n in metric_names(e.promql)}
    referenced |= {r.record for r in recording_rules()}
    listed = {n.split("{", 1)[0] for n in [*pending.NOT_IN_DEMO_YET, *pending.ABSENT_BY_DESIGN]}
    assert listed <= referenced
    assert Path(pending.__file__).exists()
