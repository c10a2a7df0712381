"""The Evaluator: declarations judged one evaluation after another, as a running Prometheus
judges them (pending, firing, gone; ALERTS of the previous evaluation), and only once the
history covers a condition's windows and for:."""

from __future__ import annotations

from zmon.health import shipped
from zmon.health.conditions import Condition
from zmon.health.evaluator import Evaluator, history_needed
from zmon.health.expr import increase, metric
from zmon.health.thresholds import DEFAULTS

DEGRADED = next(c for c in shipped.conditions(DEFAULTS) if c.name == "ZfsPoolDegraded")
TANK = {"pool": "tank", "state": "degraded"}


def _states(e: Evaluator, now: float) -> list[tuple[str, float]]:
    return [(i.state, i.active_since) for i in e.evaluate(now)]


def test_an_instance_is_pending_then_firing_then_kept_then_gone() -> None:
    """Firing once it held for ``for:`` (1m); kept firing for ``keep_firing_for`` (3m) after
    it stops holding, and through a moment it holds again (a lost scrape: no sample)."""
    assert DEGRADED.keep == 180
    e = Evaluator([DEGRADED])
    expected = {0.0: [], 60.0: [("pending", 60.0)], 90.0: [("pending", 60.0)],
                120.0: [("firing", 60.0)], 180.0: [("firing", 60.0)], 240.0: [("firing", 60.0)],
                300.0: [("firing", 60.0)], 359.0: [("firing", 60.0)], 360.0: [("firing", 60.0)],
                420.0: [("firing", 60.0)], 599.0: [("firing", 60.0)], 600.0: []}  # fmt: skip
    fed = {0.0: 0.0, 60.0: 1.0, 90.0: 1.0, 120.0: 1.0, 180.0: 0.0, 240.0: None, 300.0: 1.0,
           359.0: None, 360.0: None, 420.0: 0.0, 599.0: 0.0, 600.0: 0.0}  # fmt: skip
    for t, value in fed.items():
        if value is not None:
            e.store.add_sample("zmon_pool_state", TANK, value, t)
        e.evaluate(t)
        states = [(i.state, i.active_since) for i in e.instances()]
        assert states == expected[t], t


def test_a_missed_evaluation_starts_the_hold_again() -> None:
    e = Evaluator([DEGRADED])
    for t, value in ((0.0, 1.0), (30.0, 0.0), (60.0, 1.0), (90.0, 1.0)):
        e.store.add_sample("zmon_pool_state", TANK, value, t)
        e.evaluate(t)
    assert [(i.state, i.active_since) for i in e.instances()] == [("pending", 60.0)]


def test_a_condition_reads_the_previous_evaluation_as_alerts() -> None:
    """A hysteresis: on above 10, held while above 5 as long as it is active."""
    level = metric("level")
    name = "ZfsPoolCapacityWarning"  # (any alert of the paging policy)
    held = (level > 5).and_(metric("ALERTS", alertname=name), on=())
    sticky = Condition(name, (level > 10).or_(held), "", "")
    e = Evaluator([sticky])
    seen = []
    for t, value in enumerate((3.0, 7.0, 12.0, 7.0, 6.0, 4.0, 7.0)):
        e.store.add_sample("level", {}, value, t * 60.0)
        seen.append(bool(e.evaluate(t * 60.0)))
    assert seen == [False, False, True, True, True, False, False]


def test_a_condition_is_judged_once_the_history_covers_its_window_and_hold() -> None:
    rising = Condition("Rising", increase(metric("errors_total").at("10m")) > 0, "", "", "5m")
    assert history_needed(rising.expr) == 600.0
    assert history_needed(DEGRADED.expr) == 0.0
    e = Evaluator([rising, DEGRADED])
    for minute in range(16):
        e.store.add_sample("errors_total", {}, 0.0, minute * 60.0)
        e.store.add_sample("zmon_pool_state", TANK, 0.0, minute * 60.0)
    assert e.judged(14 * 60.0) == {"ZfsPoolDegraded"}
    assert e.judged(15 * 60.0) == {"ZfsPoolDegraded", "Rising"}


def test_the_offset_and_window_of_a_record_read_over_a_range_count() -> None:
    pools = next(r for r in shipped.records(DEFAULTS) if r.name == "zmon:disk_pool:info")
    assert history_needed(pools.expr) == DEFAULTS.disk_pool_memory.seconds
    shifted = increase(metric("m").shifted("5m").at("10m"))
    assert history_needed(shifted) == 900.0


def test_a_record_read_over_a_range_is_computed_before_its_first_recorded_step() -> None:
    """The store records such records at each step once a feed passes it; before that the
    evaluation computes every step itself."""
    e = Evaluator([c for c in shipped.conditions(DEFAULTS) if c.name == "ZfsArcSlowdown"], 60.0)
    e.store.add_sample("zmon_arc_hits_total", {}, 1.0, 30.0)
    assert e.evaluate(30.0) == []


def test_a_replay_that_starts_with_the_host_is_judged_from_its_first_feed() -> None:
    rising = Condition("Rising", increase(metric("errors_total").at("10m")) > 0, "", "")
    e = Evaluator([rising], known_from=0.0)
    e.store.add_sample("errors_total", {}, 0.0, 60.0)
    assert e.judged(60.0) == {"Rising"}  # (nothing before the host's start to miss)
    assert Evaluator([rising]).judged(600.0) == set()  # nothing fed, nothing known
