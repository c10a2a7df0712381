"""The declarations judged as a running Prometheus judges them, one evaluation after another.

``evaluate_conditions`` (conditions.py) answers for one moment by walking back over the
history. A running zmon (the status page) instead keeps an ``Evaluator``: it is fed what zmon
serves at each observation and evaluates every declared condition then, carrying each alert
instance from one evaluation to the next as Prometheus' rule manager does: pending from the
first evaluation its expression holds, firing once it has held for the rule's ``for:``, gone
at the first evaluation it does not hold (a firing one only once it has not held for the rule's
``keep_firing_for``). The previous evaluation's instances are the
``ALERTS`` series a condition may read (a hysteresis).

What zmon has not seen it cannot judge: a condition is ``judged`` only once the history covers
its longest window and its ``for:`` (``history_needed``). Until then (a fresh start, or one
``zmon status`` run that collects once) the caller says what it sees without the declaration's
verdict, and says so.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from zmon.health.conditions import (
    INTERVAL,
    Active,
    Condition,
    Instance,
    alerts_series,
    instances_of,
    step,
    store_for,
)
from zmon.health.expr import Context, Labels, Node, Range, Record, Selector, Vector, children


def history_needed(node: Node | Range) -> float:
    """Seconds of past an evaluation of ``node`` reads through its ranges and offsets (and
    those of the records it refers to); an instant selector's lookback is not counted: the
    newest sample is what it reads."""

    def need(n: Node | Range, before: float) -> float:
        if isinstance(n, Range):
            s = n.selector
            reach = before + n.window + s.offset
            return need(s.expr, reach) if isinstance(s, Record) else reach
        if isinstance(n, Record):
            return need(n.expr, before + n.offset)
        if isinstance(n, Selector):
            return before + n.offset
        return max((need(child, before) for child in children(n)), default=before)

    return need(node, 0.0)


class Evaluator:
    """The conditions evaluated at each ``evaluate(now)`` over what ``feed`` gave."""

    def __init__(
        self,
        conditions: Sequence[Condition],
        interval: float = INTERVAL,
        known_from: float | None = None,
        measures: Sequence[Node] = (),
    ) -> None:
        """``known_from``: nothing happened on the host before this time (a replay that
        starts with the host, as the Prometheus it is compared with does), so every window
        is known from then on; otherwise the history is known from its first feed.
        ``measures``: the records and expressions a caller reads (``value``) besides the
        conditions; the store keeps what they read (a record they read over a range is
        recorded at each step)."""
        self.known_from = known_from
        self.conditions = list(conditions)
        self.interval = interval  # the step of a record read over a range
        self.measures = measures
        self.store = store_for(self.conditions, interval, measures)
        self._needed = {c.name: history_needed(c.expr) + c.hold for c in self.conditions}
        self._active: dict[str, dict[Labels, Active]] = {}
        self._context: Context | None = None  # the last evaluation's (its records' values)
        self.at: float | None = None

    def feed(self, families: Iterable[Any], at: float) -> None:
        """One observation of what zmon serves (prometheus_client families) at ``at``."""
        self.store.add(families, at)

    def judged(self, now: float) -> frozenset[str]:
        """The conditions whose windows and ``for:`` the history covers at ``now``: all of
        them once the host's whole history is known (``known_from``)."""
        if self.known_from is not None and now >= self.known_from:
            return frozenset(c.name for c in self.conditions)
        seen = self.store.seen(now)
        return frozenset(c.name for c in self.conditions if self._needed[c.name] <= seen + 1e-6)

    def evaluate(self, now: float) -> list[Instance]:
        """Every condition at ``now``; the instances that hold, pending or firing."""
        ctx = Context(self.store, interval=self.interval, alerts=alerts_series(self.instances()))
        for c in self.conditions:
            self._active[c.name] = step(c, ctx, now, self._active.get(c.name, {}))
        self.at, self._context = now, ctx
        return self.instances()

    def value(self, node: Node) -> Vector:
        """``node`` (one of the ``measures``) at the last evaluation, over the same history
        and with the records as that evaluation computed them."""
        assert self.at is not None and self._context is not None, "not evaluated yet"
        return node.vector(self._context, self.at)

    def instances(self) -> list[Instance]:
        """The instances of the last evaluation, sorted by alert and labels."""
        if self.at is None:
            return []
        out = [i for c in self.conditions for i in instances_of(c, self._active.get(c.name, {}))]
        return sorted(out, key=lambda i: (i.alert, sorted(i.labels.items())))


def host_evaluator(interval: float = INTERVAL, known_from: float | None = None) -> Evaluator:
    """An Evaluator of every shipped condition a host can judge of itself: all but those on
    its scrape target (``up`` is Prometheus' own); and of the slowdown's measures, the words
    of "Why is it slow?" (``memory.slowdown_measures``)."""
    from zmon.health import memory, self_watch, shipped
    from zmon.health.thresholds import DEFAULTS

    kept = [c for c in shipped.conditions(DEFAULTS) if c.name not in self_watch.TARGET]
    return Evaluator(kept, interval, known_from, memory.slowdown_measures(DEFAULTS))
