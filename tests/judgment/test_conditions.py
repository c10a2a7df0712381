"""evaluate_conditions: pending until a condition held for its for:, then firing, with the
policy's severity; what the rule file says is what is evaluated."""

from __future__ import annotations

from zmon.judgment import self_watch, shipped
from zmon.judgment.conditions import Condition, evaluate_conditions, store_for
from zmon.judgment.expr import metric, selected_metrics
from zmon.judgment.thresholds import DEFAULTS

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


def test_only_the_target_conditions_read_what_the_scraper_writes() -> None:
    """``up`` is Prometheus' own: zmon's history never has it, so only the target conditions
    read it (and `zmon status` cannot judge them)."""
    reads_up = {c.name for c in shipped.conditions(DEFAULTS) if "up" in selected_metrics(c.expr)}
    assert reads_up == set(self_watch.TARGET)
