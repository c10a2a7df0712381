"""A declared alert condition, and its evaluation over zmon's own history.

``evaluate_conditions(conditions, store, now)`` is the API the health views call: for each
declared condition, the instances that hold at ``now`` over the ``Store``'s history, pending or
firing as Prometheus would have them (pending until the condition held for ``for_``).

A condition may read its own ``ALERTS`` series (hysteresis: active above one bound until it
drops below another). Its state then depends on its past, so it is walked back further: from
the store's first feed, at most ``ALERTS_MEMORY``, as a Prometheus that started with zmon would
have evaluated it. Past that memory, or before the first feed, it starts inactive: a pool that
crossed the upper bound longer ago and has stayed between the bounds since is not seen active
(nor after a restart of zmon). The store keeps what such a condition reads for as long, thinned
to one sample per 5 minutes past an hour (``zmon.health.store``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from zmon.health import policy
from zmon.health.expr import (
    ALERTS,
    NAME,
    Context,
    EvaluationError,
    Labels,
    Node,
    Vector,
    alerts_read,
    labels_of,
    lookback,
    ranged_records,
    seconds,
)
from zmon.health.store import Store
from zmon.health.thresholds import Duration

INTERVAL = 60.0  # seconds between rule evaluations (the rule file's evaluation interval)
ALERTS_MEMORY = 86400.0  # seconds a condition that reads its own ALERTS is walked back at most


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
    # how long it stays firing once its expression stops holding (Prometheus'
    # ``keep_firing_for``): the thresholds table's ``keep_firing_for`` for every shipped alert
    keep_firing_for: Duration | str = "0s"

    @property
    def severity(self) -> str:
        return policy.severity(self.name)

    @property
    def hold(self) -> float:
        """``for_`` in seconds."""
        return _seconds_or_none(self.for_)

    @property
    def keep(self) -> float:
        """``keep_firing_for`` in seconds."""
        return _seconds_or_none(self.keep_firing_for)

    def promql(self) -> str:
        return self.expr.promql()

    @property
    def memory(self) -> float:
        """Seconds of past before ``for_`` its state depends on: ``ALERTS_MEMORY`` if it reads
        its own ``ALERTS``, else none. Reading another alert's is refused: each condition is
        evaluated on its own."""
        read = alerts_read(self.expr)
        if read - {self.name}:
            raise EvaluationError(f"{self.name} reads the ALERTS of {sorted(read)}, not its own")
        return ALERTS_MEMORY if read else 0.0


def _seconds_or_none(d: Duration | str) -> float:
    """A rule's optional duration in seconds: 0 where it has none ("", "0s", "0m")."""
    return float(seconds(d)) if str(d) not in ("", "0s", "0m") else 0.0


@dataclass(frozen=True)
class Instance:
    """One alert instance at an evaluation: its labels (the alert's own, ``severity``
    included; ``instance`` and ``job`` absent, as zmon's history has none), ``pending`` or
    ``firing``, since when it has been active (at the earliest, the earliest evaluation
    looked at: ``for_`` back, or the condition's ``memory``), and the expression's value."""

    alert: str
    labels: Mapping[str, str]
    state: str
    active_since: float
    value: float

    @property
    def severity(self) -> str:
        return self.labels["severity"]


def needs(
    conditions: Iterable[Condition], read: Iterable[Node] = (), interval: float = INTERVAL
) -> dict[str, float]:
    """Each metric the conditions (and the records or expressions ``read``) read -> the
    seconds of past to keep; and each record read over a range (recorded at each step,
    ``ranged_records``) -> the seconds of its samples to keep."""
    out: dict[str, float] = {}
    for c in conditions:
        for name, back in lookback(c.expr, recorded=interval).items():
            out[name] = max(out.get(name, 0.0), back + c.hold + c.keep + c.memory + interval)
    for node in read:
        for name, back in lookback(node, recorded=interval).items():
            out[name] = max(out.get(name, 0.0), back + interval)
    return out


def store_for(
    conditions: Sequence[Condition], interval: float = INTERVAL, read: Sequence[Node] = ()
) -> Store:
    """An empty store that keeps what ``conditions`` (and the expressions ``read``) read,
    recording the records they read over a range at each step."""
    conditions = list(conditions)
    records = ranged_records([*(c.expr for c in conditions), *read])
    return Store(needs(conditions, read, interval), records, interval)


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


def alerts_series(instances: Iterable[Instance]) -> Vector:
    """The ``ALERTS`` series Prometheus writes for ``instances`` at their evaluation: the
    alert's labels with ``alertname`` and ``alertstate``, each at 1."""
    return {
        labels_of({**i.labels, NAME: ALERTS, "alertname": i.alert, "alertstate": i.state}): 1.0
        for i in instances
    }


def evaluate_conditions(
    conditions: Iterable[Condition], store: Store, now: float, interval: float = INTERVAL
) -> list[Instance]:
    """The instances of ``conditions`` that hold at ``now``, pending or firing.

    Each condition is evaluated at ``now`` and at the evaluation steps before it (every
    ``interval`` seconds, back as far as its ``for_`` and ``keep_firing_for``, or its
    ``memory`` within what the store has seen), as Prometheus' rule evaluation would have: an
    instance is pending from its first evaluation in an unbroken run and firing once
    ``now - active_since >= for_``; a missed evaluation resets a pending one, and a firing one
    once it has missed ``keep_firing_for``. Its ``ALERTS`` at each step are its instances of
    the step before. Sorted by alert and labels."""
    out: list[Instance] = []
    ctx = Context(store, interval=interval)
    for c in conditions:
        steps = math.ceil((c.hold + c.keep) / interval - 1e-9) if c.hold or c.keep else 0
        memory = c.memory
        if memory:
            back = min(memory, store.seen(now))
            steps = max(steps, math.floor(back / interval + 1e-9))
        active: dict[Labels, Active] = {}
        before: list[Instance] = []
        for k in range(steps, -1, -1):
            at = now - k * interval
            ctx.alerts = alerts_series(before)
            active = step(c, ctx, at, active)
            before = instances_of(c, active) if memory else []
        out.extend(instances_of(c, active))
    return sorted(out, key=lambda i: (i.alert, sorted(i.labels.items())))


@dataclass(frozen=True)
class Active:
    """An alert instance between evaluations, as Prometheus' rule manager keeps it: active
    since when, its last value, whether it fires, and since when it has been kept firing
    without its expression holding (``keep_firing_for``; None while it holds)."""

    since: float
    value: float
    firing: bool
    kept_since: float | None = None


def step(
    c: Condition, ctx: Context, at: float, before: Mapping[Labels, Active]
) -> dict[Labels, Active]:
    """One evaluation of ``c`` at ``at`` after the evaluation that left ``before``: each
    instance that holds (active since its first evaluation in the run), each firing one kept
    for ``keep_firing_for`` after its expression stopped holding, pending ones turned firing
    once they have held for ``for_``."""
    out: dict[Labels, Active] = {}
    for labels, v in c.expr.vector(ctx, at).items():
        key = _alert_labels(c, labels)
        was = before.get(key)
        out[key] = Active(at, v, False) if was is None else Active(was.since, v, was.firing)
    for key, was in before.items():
        if key in out or not (was.firing and c.keep):
            continue
        kept_since = at if was.kept_since is None else was.kept_since
        if at - kept_since < c.keep:
            out[key] = Active(was.since, was.value, True, kept_since)
    return {
        key: a if a.firing or at - a.since < c.hold else Active(a.since, a.value, True)
        for key, a in out.items()
    }


def instances_of(c: Condition, active: Mapping[Labels, Active]) -> list[Instance]:
    """The instances of ``c`` an evaluation left active, pending or firing."""
    return [
        Instance(c.name, dict(labels), "firing" if a.firing else "pending", a.since, a.value)
        for labels, a in active.items()
    ]
