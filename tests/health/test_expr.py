"""The expression nodes follow Prometheus' semantics (hermetic; the promtool comparison of
every declaration is tests/health/test_against_promtool.py)."""

from __future__ import annotations

import math

import pytest

from zmon.health.expr import (
    Context,
    EvaluationError,
    Record,
    active_alerts,
    alerts_read,
    count_by,
    histogram_quantile,
    increase,
    label_replace,
    max_by,
    max_over_time,
    max_without,
    metric,
    quantile_over_time,
    rate,
    scoped,
    selected_metrics,
    sum_by,
)
from zmon.health.store import Store


def history(**series: list[tuple[float, float]]) -> Store:
    """A store of series named ``metric__label_value`` (one label) with the given points."""
    store = Store({name.split("__")[0]: 1e9 for name in series})
    for key, points in series.items():
        name, _, label = key.partition("__")
        labels = dict([label.split("_", 1)]) if label else {}
        for t, v in points:
            store.add_sample(name, labels, v, t)
    return store


def value(node, store: Store, at: float) -> dict[tuple[tuple[str, str], ...], float]:  # type: ignore[no-untyped-def]
    return node.evaluate(Context(store), at)


def counter(values: list[float], start: float = 0, step: float = 60) -> list[tuple[float, float]]:
    return [(start + i * step, v) for i, v in enumerate(values)]


def test_increase_over_a_window_the_samples_cover_is_their_difference() -> None:
    store = history(c=counter([float(i) for i in range(11)]))
    assert value(increase(metric("c").at("5m")), store, 600) == {(): 5.0}


def test_increase_extrapolates_to_the_window_ends_as_prometheus_does() -> None:
    store = history(c=counter([float(i) for i in range(11)]))
    # samples 360..600 in [330, 630]: 4 in 240 s, extrapolated 30 s at each end
    assert value(increase(metric("c").at("5m")), store, 630) == {(): 5.0}
    assert value(rate(metric("c").at("5m")), store, 630) == {(): 5.0 / 300}


def test_increase_never_extrapolates_a_counter_below_zero() -> None:
    store = history(c=[(60, 1.0), (120, 2.0)])
    # to the start would be 60 s, to the counter's zero also 60 s: 1 over 60 s -> 2 over 120 s
    assert value(increase(metric("c").at("2m")), store, 120) == {(): 2.0}


def test_a_counter_reset_counts_what_the_counter_had_reached() -> None:
    store = history(c=counter([5.0, 6.0, 0.0, 1.0]))
    assert value(increase(metric("c").at("3m")), store, 180) == {(): 2.0}


def test_one_sample_in_the_window_gives_no_increase() -> None:
    store = history(c=counter([5.0]))
    assert value(increase(metric("c").at("5m")), store, 60) == {}


def test_an_instant_selector_looks_back_five_minutes_and_keeps_the_name() -> None:
    store = history(g=[(0, 3.0)])
    assert value(metric("g"), store, 300) == {(("__name__", "g"),): 3.0}
    assert value(metric("g"), store, 301) == {}


def test_a_stale_series_drops_out_at_once() -> None:
    store = Store({"g": 3600})

    class Family:
        def __init__(self, samples: list[object]) -> None:
            self.samples = samples

    from prometheus_client.samples import Sample

    store.add([Family([Sample("g", {"d": "a"}, 1.0)])], 0)
    store.add([Family([])], 60)
    assert value(metric("g"), store, 30) == {(("__name__", "g"), ("d", "a")): 1.0}
    assert value(metric("g"), store, 90) == {}


def test_group_left_copies_the_one_sides_labels_and_drops_the_name() -> None:
    store = Store({"m": 1e9, "info": 1e9})
    store.add_sample("m", {"d": "a", "x": "1"}, 2.0, 0)
    store.add_sample("info", {"d": "a", "serial": "S1"}, 1.0, 0)
    joined = metric("m").op("*", metric("info"), on=("d",), group_left=("serial",))
    assert value(joined, store, 0) == {(("d", "a"), ("serial", "S1"), ("x", "1")): 2.0}


def test_a_one_to_one_match_with_on_keeps_only_the_on_labels() -> None:
    store = Store({"m": 1e9, "n": 1e9})
    store.add_sample("m", {"d": "a", "x": "1"}, 2.0, 0)
    store.add_sample("n", {"d": "a", "y": "2"}, 1.0, 0)
    assert value(metric("m").op(">", metric("n"), on=("d",)), store, 0) == {(("d", "a"),): 2.0}


def test_many_to_one_without_group_left_is_refused_as_prometheus_refuses_it() -> None:
    store = Store({"m": 1e9, "n": 1e9})
    store.add_sample("m", {"d": "a", "x": "1"}, 2.0, 0)
    store.add_sample("m", {"d": "a", "x": "2"}, 2.0, 0)
    store.add_sample("n", {"d": "a"}, 1.0, 0)
    with pytest.raises(EvaluationError):
        value(metric("m").op("*", metric("n"), on=("d",)), store, 0)


def test_comparisons_filter_and_keep_the_name_set_operators_keep_the_left_labels() -> None:
    store = Store({"m": 1e9, "n": 1e9})
    store.add_sample("m", {"d": "a"}, 2.0, 0)
    store.add_sample("m", {"d": "b"}, 0.0, 0)
    store.add_sample("n", {"d": "b", "z": "1"}, 1.0, 0)
    assert value(metric("m") > 1, store, 0) == {(("__name__", "m"), ("d", "a")): 2.0}
    either = (metric("m") > 1).or_(metric("n"), on=("d",))
    assert set(value(either, store, 0)) == {
        (("__name__", "m"), ("d", "a")),
        (("__name__", "n"), ("d", "b"), ("z", "1")),
    }
    assert value(metric("m").unless(metric("n"), on=("d",)), store, 0) == {
        (("__name__", "m"), ("d", "a")): 2.0
    }


def test_aggregation_keeps_the_by_labels_it_has() -> None:
    store = Store({"m": 1e9})
    store.add_sample("m", {"d": "a", "p": "t"}, 2.0, 0)
    store.add_sample("m", {"d": "b", "p": "t"}, 3.0, 0)
    store.add_sample("m", {"d": "c"}, 4.0, 0)
    assert value(sum_by(("p",), metric("m")), store, 0) == {(("p", "t"),): 5.0, (): 4.0}


def test_a_range_over_a_record_reads_it_at_each_evaluation_step() -> None:
    store = Store({"g": 1e9})
    store.add_sample("g", {"d": "a"}, 1.0, 0)  # gone after 5 minutes
    store.add_sample("g", {"d": "b"}, 1.0, 3000)
    record = Record.of("r", max_by(("d",), metric("g")))
    remembered = max_over_time(record.at("1h"))
    assert set(value(remembered, store, 3600)) == {(("d", "a"),), (("d", "b"),)}
    assert set(value(remembered, store, 3600 + 301)) == {(("d", "b"),)}


def test_rendering_puts_parentheses_where_precedence_needs_them() -> None:
    expr = (metric("a") + metric("b")).op("*", metric("c"), on=("x",), group_left=())
    assert expr.promql() == "(a + b) * on(x) group_left() c"
    assert (metric("a", s="=~x|y").eq(1)).and_(metric("b") > 0, on=("p",)).promql() == (
        'a{s=~"x|y"} == 1\nand on(p) b > 0'
    )
    assert increase(metric("c").at("15m").shifted("30m")).promql() == "increase(c[15m] offset 30m)"


def test_label_replace_adds_the_label_where_the_regex_matches_the_whole_source() -> None:
    store = Store({"info": 1e9})
    store.add_sample("info", {"phy": "p1", "parent": "expander-0:0"}, 1.0, 0)
    store.add_sample("info", {"phy": "p2"}, 1.0, 0)
    renamed = label_replace(metric("info"), "sas_parent", "$1", "parent", "(.+)")
    assert value(renamed, store, 0) == {
        (("__name__", "info"), ("parent", "expander-0:0"), ("phy", "p1"),
         ("sas_parent", "expander-0:0")): 1.0,
        (("__name__", "info"), ("phy", "p2")): 1.0,
    }  # fmt: skip
    assert label_replace(metric("info"), "a", "$1", "b", "(.+)").promql() == (
        'label_replace(info, "a", "$1", "b", "(.+)")'
    )


def test_count_by_counts_the_series_of_each_group() -> None:
    store = Store({"info": 1e9})
    for phy, parent in (("p1", "e0"), ("p2", "e0"), ("p3", "e1")):
        store.add_sample("info", {"phy": phy, "parent": parent}, 7.0, 0)
    counted = count_by(("parent",), metric("info"))
    assert value(counted, store, 0) == {(("parent", "e0"),): 2.0, (("parent", "e1"),): 1.0}
    assert value(counted.eq(1), store, 0) == {(("parent", "e1"),): 1.0}


def test_an_offset_range_reads_the_window_that_ended_that_long_ago() -> None:
    store = history(c=counter([0, 0, 5, 5, 5, 5, 5]))  # one step between minute 1 and 2
    older = increase(metric("c").at("2m").shifted("4m"))
    newer = increase(metric("c").at("2m"))
    assert value(older, store, 360) == {(): 5.0}
    assert value(newer, store, 360) == {(): 0.0}


def test_alerts_selects_the_active_alerts_of_the_context_whatever_the_time() -> None:
    """``ALERTS`` is no stored metric: it is the previous evaluation's active alerts."""
    ratio = metric("ratio")
    store = history(ratio__pool_tank=[(0, 0.78)], ratio__pool_vault=[(0, 0.78)])
    held = (ratio > 0.8).or_((ratio > 0.75).and_(active_alerts("Full"), on=("pool",)))
    assert held.promql() == (
        'ratio > 0.8\nor (\n  ratio > 0.75\n  and on(pool) ALERTS{alertname="Full", '
        'alertstate=~"pending|firing"}\n)'
    )
    alerts = {
        (("__name__", "ALERTS"), ("alertname", "Full"), ("alertstate", "firing"),
         ("pool", "tank")): 1.0,
        (("__name__", "ALERTS"), ("alertname", "Other"), ("alertstate", "firing"),
         ("pool", "vault")): 1.0,
    }  # fmt: skip
    assert held.evaluate(Context(store, alerts=alerts), 120) == {
        (("__name__", "ratio"), ("pool", "tank")): 0.78
    }
    assert held.evaluate(Context(store), 120) == {}
    assert alerts_read(held) == {"Full"}
    assert alerts_read(metric("ALERTS")) == {""}
    assert "ALERTS" not in selected_metrics(held)


def buckets(**series: dict[str, float]) -> Store:
    """A store of histogram buckets: ``p`` label -> {le: cumulative count}, at time 0."""
    store = Store({"h_bucket": 1e9})
    for p, counts in series.items():
        for le, count in counts.items():
            store.add_sample("h_bucket", {"p": p, "le": le}, count, 0)
    return store


def test_histogram_quantile_interpolates_within_the_bucket_as_prometheus_does() -> None:
    store = buckets(
        a={"0.1": 50, "0.2": 90, "+Inf": 100},  # rank 80: 3/4 into (0.1, 0.2]
        b={"0.1": 50, "1.0": 60, "1": 30, "+Inf": 100},  # "1.0" and "1" are one bucket: 90
        c={"0.1": 50, "0.2": 40, "0.3": 90, "+Inf": 100},  # not monotonic: 0.2 counts 50
        d={"0.1": 10, "0.2": 20, "+Inf": 100},  # rank 80 in +Inf: the highest finite bound
        e={"0.1": 100, "+Inf": 100},  # rank 80 in the first bucket: from 0
        f={"-1": 90, "0.5": 100, "+Inf": 100},  # first bound at most 0: that bound
        g={"0.1": 10, "0.2": 20},  # no +Inf bucket
        h={"0.1": 0, "+Inf": 0},  # no observation
    )
    found = value(histogram_quantile(0.8, metric("h_bucket")), store, 0)
    got = {dict(k)["p"]: v for k, v in found.items()}
    assert got["a"] == pytest.approx(0.175)
    assert got["b"] == pytest.approx(0.1 + 0.9 * 30 / 40)
    assert got["c"] == pytest.approx(0.275)
    assert got["d"] == 0.2
    assert got["e"] == pytest.approx(0.08)
    assert got["f"] == -1.0
    assert math.isnan(got["g"]) and math.isnan(got["h"])
    above = value(histogram_quantile(1.5, metric("h_bucket", p="a")), store, 0)
    below = value(histogram_quantile(-1, metric("h_bucket", p="a")), store, 0)
    assert list(above.values()) == [math.inf] and list(below.values()) == [-math.inf]
    assert histogram_quantile(0.99, metric("h_bucket")).promql() == (
        "histogram_quantile(0.99, h_bucket)"
    )


def test_quantile_over_time_interpolates_between_the_ranks_of_the_closed_window() -> None:
    store = history(g=counter([9.0, 1.0, 4.0, 2.0, 3.0]))  # minutes 0-4
    # [60, 240] holds 1, 4, 2, 3 (both ends included): the median is 2.5, the 0.9 quantile 3.7
    assert value(quantile_over_time(0.5, metric("g").at("3m")), store, 240) == {(): 2.5}
    q9 = value(quantile_over_time(0.9, metric("g").at("3m")), store, 240)
    assert q9 == {(): pytest.approx(3.7)}
    assert quantile_over_time(0.5, metric("g").at("1d")).promql() == (
        "quantile_over_time(0.5, g[1d])"
    )


def test_a_quantile_over_a_record_reads_the_records_evaluation_steps() -> None:
    """A record is a sample at each evaluation (every minute), as Prometheus stores it; the
    samples of its input between evaluations count only through them."""
    store = Store({"g": 1e9})
    for t, v in ((0, 1.0), (30, 100.0), (60, 2.0), (90, 100.0), (120, 3.0), (180, 50.0)):
        store.add_sample("g", {}, v, t)
    record = Record.of("r", max_by((), metric("g")))
    median = quantile_over_time(0.5, record.at("3m"))
    # evaluations at 0, 60, 120, 180 recorded 1, 2, 3, 50 (30 and 90 were never evaluated)
    assert value(median, store, 180) == {(): 2.5}


def test_max_without_drops_the_named_labels_and_the_name() -> None:
    store = Store({"m": 1e9})
    store.add_sample("m", {"p": "t", "op": "read"}, 2.0, 0)
    store.add_sample("m", {"p": "t", "op": "write"}, 5.0, 0)
    store.add_sample("m", {"p": "u", "op": "read"}, 1.0, 0)
    assert value(max_without(("op",), metric("m")), store, 0) == {
        (("p", "t"),): 5.0,
        (("p", "u"),): 1.0,
    }
    assert max_without(("op",), metric("m")).promql() == "max without (op) (m)"


def test_scoped_adds_the_matchers_to_every_selector_before_its_own() -> None:
    node = (
        sum_by(("instance",), increase(metric("a", op="read").at("5m")))
        / Record.of("r:x", metric("b"))
        > 0.5
    )
    assert scoped(node, instance="=~$instance").promql() == (
        'sum by (instance) (increase(a{instance=~"$instance", op="read"}[5m])) '
        '/ r:x{instance=~"$instance"} > 0.5'
    )
    assert node.promql() == 'sum by (instance) (increase(a{op="read"}[5m])) / r:x > 0.5'
