"""evaluate_conditions: pending until a condition held for its for:, then firing, with the
policy's severity; what the rule file says is what is evaluated."""

from __future__ import annotations

import pytest

from zmon.health import self_watch, shipped
from zmon.health.conditions import (
    ALERTS_MEMORY,
    Condition,
    alerts_series,
    evaluate_conditions,
    store_for,
)
from zmon.health.expr import EvaluationError, active_alerts, metric, selected_metrics
from zmon.health.store import Store
from zmon.health.thresholds import DEFAULTS

DEGRADED = next(c for c in shipped.conditions(DEFAULTS) if c.name == "ZfsPoolDegraded")


def fed(minutes_degraded: int, total: int = 20):  # type: ignore[no-untyped-def]
    store = store_for([DEGRADED])
    for minute in range(total + 1):
        degraded = minute > total - minutes_degraded
        store.add_sample("zmon_pool_state", {"pool": "tank", "state": "degraded"},
                         1.0 if degraded else 0.0, minute * 60.0)  # fmt: skip
    return store


def test_a_condition_is_pending_until_it_held_for_its_for_then_firing() -> None:
    assert DEGRADED.hold == 60
    (pending,) = evaluate_conditions([DEGRADED], fed(1), 1200.0)
    assert (pending.state, pending.active_since) == ("pending", 1200.0)
    (firing,) = evaluate_conditions([DEGRADED], fed(5), 1200.0)
    assert firing.state == "firing"
    assert dict(firing.labels) == {"pool": "tank", "state": "degraded", "severity": "warning"}
    assert evaluate_conditions([DEGRADED], fed(0), 1200.0) == []


def test_an_alert_without_for_fires_at_once() -> None:
    store = store_for([DEGRADED])
    store.add_sample("zmon_pool_state", {"pool": "tank", "state": "degraded"}, 1.0, 0.0)
    at_once = Condition(
        "ZfsPoolDegraded", metric("zmon_pool_state", state="degraded").eq(1), "", ""
    )
    assert [i.state for i in evaluate_conditions([at_once], store, 0.0)] == ["firing"]


def test_every_declaration_is_in_the_paging_policy_and_renders() -> None:
    for condition in shipped.conditions(DEFAULTS):
        assert condition.severity in ("critical", "warning", "info")
        assert condition.promql()


WARNING = next(c for c in shipped.conditions(DEFAULTS) if c.name == "ZfsPoolCapacityWarning")


def capacity_fed(percents: list[tuple[int, float]], minutes: int) -> Store:
    """A pool of 1000 bytes fed each minute, at each (from minute, percent full) in turn."""
    store = store_for([WARNING])
    for minute in range(minutes + 1):
        full = next(p for start, p in reversed(percents) if minute >= start)
        store.add_sample("zmon_pool_size_bytes", {"pool": "tank"}, 1000.0, minute * 60.0)
        store.add_sample("zmon_pool_allocated_bytes", {"pool": "tank"}, full * 10, minute * 60.0)
    return store


def states(store: Store, minute: int) -> list[tuple[str, float]]:
    return [(i.state, i.active_since) for i in evaluate_conditions([WARNING], store, minute * 60.0)]


def test_hysteresis_holds_between_the_bounds_long_after_for_and_clears_below() -> None:
    """82 % full from minute 5, 78 % from minute 30, 74 % from minute 150: the warning fires
    at minute 20 and holds at 78 % (two hours after it crossed 80 %, much more than its for_
    plus an interval back), then clears below 75 %, kept firing for keep_firing_for (3m) as
    every shipped alert is."""
    store = capacity_fed([(0, 50.0), (5, 82.0), (30, 78.0), (150, 74.0)], 200)
    assert WARNING.hold == 900 and WARNING.memory == ALERTS_MEMORY
    assert states(store, 15) == [("pending", 300.0)]
    assert states(store, 20) == [("firing", 300.0)]
    assert states(store, 149) == [("firing", 300.0)]
    assert WARNING.keep == 180
    assert states(store, 150) == states(store, 152) == [("firing", 300.0)]
    assert states(store, 153) == []
    assert states(store, 200) == []


def test_hysteresis_needs_the_upper_bound_to_become_active() -> None:
    """78 % full throughout: above the lower bound, never above the upper: never active."""
    store = capacity_fed([(0, 78.0)], 120)
    assert states(store, 120) == []


def test_hysteresis_goes_pending_again_after_a_clear() -> None:
    """Cleared below 75 % at minute 40, back at 78 % at minute 50: not active (it must cross
    80 % again); at 81 % from minute 60 it is pending anew."""
    store = capacity_fed([(0, 82.0), (40, 74.0), (50, 78.0), (60, 81.0)], 70)
    assert states(store, 39) == [("firing", 0.0)]
    assert states(store, 55) == []
    assert states(store, 70) == [("pending", 3600.0)]


def test_hysteresis_is_remembered_for_alerts_memory_then_starts_inactive() -> None:
    """The documented limit: the walk back starts ALERTS_MEMORY before now at most, inactive,
    and the store keeps the capacity that long."""
    assert store_for([WARNING]).needs["zmon_pool_allocated_bytes"] >= ALERTS_MEMORY
    day = int(ALERTS_MEMORY // 60)
    assert states(capacity_fed([(0, 82.0), (30, 78.0)], day), day) == [("firing", 0.0)]
    assert states(capacity_fed([(0, 82.0), (30, 78.0)], day + 60), day + 60) == []


def test_the_alerts_series_are_the_previous_evaluations_instances() -> None:
    """ALERTS carries alertname, alertstate and the alert's labels, severity included."""
    store = capacity_fed([(0, 82.0)], 20)
    instances = evaluate_conditions([WARNING], store, 600.0)
    assert alerts_series(instances) == {
        (("__name__", "ALERTS"), ("alertname", "ZfsPoolCapacityWarning"),
         ("alertstate", "pending"), ("pool", "tank"), ("severity", "warning")): 1.0
    }  # fmt: skip


def test_a_condition_reading_another_alerts_series_is_refused() -> None:
    other = Condition("X", metric("m").and_(active_alerts("Y")), "", "")
    with pytest.raises(EvaluationError, match="ALERTS of"):
        evaluate_conditions([other], store_for([DEGRADED]), 0.0)


def test_only_the_target_conditions_read_what_the_scraper_writes() -> None:
    """``up`` is Prometheus' own: zmon's history never has it, so only the target conditions
    read it (and `zmon status` cannot judge them)."""
    reads_up = {c.name for c in shipped.conditions(DEFAULTS) if "up" in selected_metrics(c.expr)}
    assert reads_up == set(self_watch.TARGET)
