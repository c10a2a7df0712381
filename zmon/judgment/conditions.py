"""A declared alert condition, and its evaluation over zmon's own history.

``evaluate_conditions(conditions, store, now)`` is the API the health views call: for each
declared condition, the instances that hold at ``now`` over the ``Store``'s history, pending or
firing as Prometheus would have them (pending until the condition held for ``for_``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from zmon.judgment.expr import (
    NAME,
    Context,
    Labels,
    Node,
    Record,
    lookback,
    ranged_records,
    seconds,
)
from zmon.judgment.store import Store
from zmon.judgment.thresholds import Duration
from zmon.status import policy

INTERVAL = 60.0  # seconds between rule evaluations (the rule file's evaluation interval)


@dataclass(frozen=True)
class Condition:
    """One alert: what it watches (``expr``), how long it must hold (``for_``), its words and
    the dashboard of what it names. Its severity is the paging policy's."""

    name: str
    expr: Node
    summary: str
    description: str
    for_: Duration | str = "0s"
    labels: Mapping[str, str] = field(default_factory=dict)
    dashboard: str = ""  # a dashboard kind (alert_rules.building.DASHBOARDS); "" by name

    @property
    def severity(self) -> str:
        return policy.severity(self.name)

    @property
    def hold(self) -> float:
        """``for_`` in seconds."""
        return float(seconds(self.for_)) if str(self.for_) not in ("", "0s", "0m") else 0.0

    def promql(self) -> str:
        return self.expr.promql()


@dataclass(frozen=True)
class Instance:
    """One alert instance at an evaluation: its labels (the alert's own, ``severity``
    included; ``instance`` and ``job`` absent, as zmon's history has none), ``pending`` or
    ``firing``, since when it has been active (the earliest evaluation looked at: a
    condition is walked back ``for_`` plus one interval), and the expression's value."""

    alert: str
    labels: Mapping[str, str]
    state: str
    active_since: float
    value: float

    @property
    def severity(self) -> str:
        return self.labels["severity"]


def needs(
    conditions: Iterable[Condition], records: Iterable[Record] = (), interval: float = INTERVAL
) -> dict[str, float]:
    """Each metric the conditions (and records) read -> the seconds of past to keep; and
    each record read over a range (recorded at each step, ``ranged_records``) -> the seconds
    of its samples to keep."""
    out: dict[str, float] = {}
    for c in conditions:
        for name, back in lookback(c.expr, recorded=interval).items():
            out[name] = max(out.get(name, 0.0), back + c.hold + interval)
    for r in records:
        for name, back in lookback(r.expr, recorded=interval).items():
            out[name] = max(out.get(name, 0.0), back + interval)
    return out


def store_for(conditions: Sequence[Condition], interval: float = INTERVAL) -> Store:
    """An empty store that keeps what ``conditions`` read, recording the records they read
    over a range at each step."""
    conditions = list(conditions)
    records = ranged_records(c.expr for c in conditions)
    return Store(needs(conditions, interval=interval), records, interval)


def unseen(conditions: Iterable[Condition], store: Store, now: float) -> dict[str, float]:
    """What a fresh start cannot know yet: each condition whose longest window (plus its
    ``for_``) reaches back before the store's first sample -> the seconds of it not seen."""
    out = {}
    seen = store.seen(now)
    for c in conditions:
        want = max(lookback(c.expr).values(), default=0.0) + c.hold
        if want > seen:
            out[c.name] = want - seen
    return out


def _alert_labels(c: Condition, labels: Labels) -> Labels:
    d = {k: v for k, v in labels if k != NAME}
    d.update({"severity": c.severity, **c.labels})
    return tuple(sorted(d.items()))


def evaluate_conditions(
    conditions: Iterable[Condition], store: Store, now: float, interval: float = INTERVAL
) -> list[Instance]:
    """The instances of ``conditions`` that hold at ``now``, pending or firing.

    Each condition is evaluated at ``now`` and at the evaluation steps before it (every
    ``interval`` seconds, back as far as its ``for_``), as Prometheus' rule evaluation would
    have: an instance is pending from its first evaluation in an unbroken run and firing
    once ``now - active_since >= for_``; a missed evaluation resets it. Sorted by alert and
    labels."""
    out: list[Instance] = []
    for c in conditions:
        ctx = Context(store, interval=interval)
        steps = math.ceil(c.hold / interval) if c.hold else 0
        active: dict[Labels, float] = {}
        value: dict[Labels, float] = {}
        for k in range(steps, -1, -1):
            at = now - k * interval
            vector = c.expr.vector(ctx, at)
            current = {_alert_labels(c, labels): v for labels, v in vector.items()}
            active = {labels: active.get(labels, at) for labels in current}
            value = current
        for labels, since in active.items():
            state = "firing" if now - since >= c.hold else "pending"
            out.append(Instance(c.name, dict(labels), state, since, value[labels]))
    return sorted(out, key=lambda i: (i.alert, sorted(i.labels.items())))
