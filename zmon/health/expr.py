"""Expression nodes: the PromQL subset zmon's rules use, rendered and evaluated.

A node is built in Python (``metric("zmon_pool_state", state="degraded").eq(1)``), renders
the PromQL text that goes into the rule file (``.promql()``) and evaluates the same expression
over a series history (``.evaluate(ctx)``) to an instant vector: a dict from label sets to
values. This is not a PromQL engine and has no parser: it knows the selectors, functions,
operators and aggregations the shipped rules use, with Prometheus 2.x semantics:

- an instant selector takes each series' newest sample at most 5 minutes old (lookback);
- a range selector ``[w]`` takes the samples in ``[t - w, t]``; ``offset`` moves both back;
- ``increase``/``rate`` extrapolate as Prometheus does (to the window's ends when the first
  and last samples are close to them, never below a counter's zero), with counter resets;
- binary operators match on all labels but the name, or on ``on(...)``; ``group_left`` and
  ``group_right`` copy the "one" side's extra labels; comparisons filter unless ``bool``;
  arithmetic and ``bool`` drop the metric name, a one-to-one match with ``on`` keeps only the
  ``on`` labels; ``and``/``or``/``unless`` keep the left side's labels;
- a selector naming a record (``Record``) evaluates the record's expression at that time; a
  range over a record evaluates it at each evaluation ``interval`` step in the window, as the
  samples Prometheus' rule evaluation would have stored;
- ``histogram_quantile`` is Prometheus 2.x's bucketQuantile over ``le`` buckets (classic
  histograms only), ``quantile_over_time`` and ``quantile`` interpolate between ranks as
  Prometheus does; range windows include both ends, as in Prometheus 2.x.

A range over a record reads what the history recorded (``History.recorded``: a ``Store`` built
by ``store_for`` records each record read over a range at every step once its feeds have passed
the step, from the data the step had, as Prometheus' rule evaluation stores it) and computes
the steps not recorded yet; a history that records nothing has the record recomputed at each
step from the samples it holds. What still cannot match exactly: the steps are the multiples
of ``interval`` since the epoch, while Prometheus evaluates a group at an offset of its own
within each interval (promtool at the multiples, as here), and a step is recorded from the
feeds before the next one, while Prometheus evaluates with the scrapes it has at that moment.
"""

from __future__ import annotations

import math
import re
import struct
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from operator import lt
from typing import Protocol

from zmon.health.thresholds import Duration

Labels = tuple[tuple[str, str], ...]  # sorted (name, value) pairs, "__name__" included
Vector = dict[Labels, float]
Value = Vector | float  # an instant vector or a scalar
Points = tuple[Sequence[float], Sequence[float]]  # a series' sample times and values in a range

NAME = "__name__"
ALERTS = "ALERTS"  # the series of the active alerts, as Prometheus' rule evaluation writes them
LOOKBACK = 300.0  # seconds: how old an instant selector's sample may be (Prometheus default)
PRECEDENCE = {"or": 1, "and": 2, "unless": 2, "==": 3, "!=": 3, ">": 3, "<": 3, ">=": 3,
              "<=": 3, "+": 4, "-": 4, "*": 5, "/": 5}  # fmt: skip
SET_OPS = ("and", "or", "unless")
COMPARISONS = ("==", "!=", ">", "<", ">=", "<=")
_LONG = 60  # characters past which an argument goes on lines of its own
STALE_BITS = 0x7FF0000000000002  # Prometheus' staleness marker, a NaN of its own


def is_stale(value: float) -> bool:
    return value != value and struct.unpack("<Q", struct.pack("<d", value))[0] == STALE_BITS


class EvaluationError(ValueError):
    """What Prometheus would refuse too (a many-to-many match, duplicate output series)."""


class History(Protocol):
    """The series an evaluation reads (``zmon.health.store.Store``)."""

    def series(self, name: str) -> Iterable[tuple[Labels, Sequence[float], Sequence[float]]]:
        """Each series of metric ``name``: its labels (with the name), its sample times and
        values, oldest first."""
        ...

    def recorded(
        self, name: str
    ) -> tuple[Iterable[tuple[Labels, Sequence[float], Sequence[float]]], float] | None:
        """The samples the record ``name`` was recorded with at each evaluation step (as
        ``series``) and the last step recorded; None where the history does not record it."""
        ...


@dataclass
class Context:
    """One evaluation: the history, the records it may refer to, the alerts active at the
    previous evaluation (for ``ALERTS``), and the rule evaluation interval."""

    history: History
    interval: float = 60.0
    alerts: Vector = field(default_factory=dict)
    _cache: dict[tuple[str, float], Vector] = field(default_factory=dict)

    def record(self, record: Record, at: float) -> Vector:
        """The record's value at ``at`` (each evaluated once per time)."""
        key = (record.name, at)
        if key not in self._cache:
            value = record.expr.vector(self, at)
            self._cache[key] = {_with(k, NAME, record.name): v for k, v in value.items()}
        return self._cache[key]


def seconds(d: Duration | str | int | float) -> float:
    if isinstance(d, (int, float)):
        return float(d)
    return float((d if isinstance(d, Duration) else Duration(d)).seconds)


def duration_text(d: Duration | str | int | float) -> str:
    if isinstance(d, (int, float)):
        from zmon.health.thresholds import format_seconds

        return format_seconds(int(d))
    return str(d)


def labels_of(mapping: Mapping[str, str]) -> Labels:
    return tuple(sorted((k, v) for k, v in mapping.items() if v != ""))


def _with(labels: Labels, key: str, value: str) -> Labels:
    d = dict(labels)
    if value == "":
        d.pop(key, None)
    else:
        d[key] = value
    return labels_of(d)


def _without_name(labels: Labels) -> Labels:
    return tuple(kv for kv in labels if kv[0] != NAME)


def _indent(text: str) -> str:
    return "\n".join("  " + line if line else line for line in text.splitlines())


def _wrapped(text: str) -> str:
    """``text`` in parentheses: on one line when short, else as an indented block."""
    if "\n" in text or len(text) > _LONG:
        return "(\n" + _indent(text) + "\n)"
    return f"({text})"


class Node:
    """An expression. Subclasses render and evaluate; operators build larger nodes."""

    @property
    def precedence(self) -> int:
        """How tightly the node binds when rendered: atoms 10, binary operators lower."""
        return 10

    def promql(self) -> str:
        raise NotImplementedError

    def evaluate(self, ctx: Context, at: float) -> Value:
        raise NotImplementedError

    def vector(self, ctx: Context, at: float) -> Vector:
        value = self.evaluate(ctx, at)
        if not isinstance(value, dict):
            raise EvaluationError(f"{self.promql()} is a scalar, not a vector")
        return value

    def __str__(self) -> str:
        return self.promql()

    # arithmetic and comparison: a.op(b, on=(...), group_left=(...)) for the matching forms
    def __add__(self, other: Node | float) -> Binary:
        return Binary("+", self, lift(other))

    def __radd__(self, other: float) -> Binary:
        return Binary("+", lift(other), self)

    def __sub__(self, other: Node | float) -> Binary:
        return Binary("-", self, lift(other))

    def __rsub__(self, other: float) -> Binary:
        return Binary("-", lift(other), self)

    def __mul__(self, other: Node | float) -> Binary:
        return Binary("*", self, lift(other))

    def __rmul__(self, other: float) -> Binary:
        return Binary("*", lift(other), self)

    def __truediv__(self, other: Node | float) -> Binary:
        return Binary("/", self, lift(other))

    def __gt__(self, other: Node | float) -> Binary:
        return Binary(">", self, lift(other))

    def __lt__(self, other: Node | float) -> Binary:
        return Binary("<", self, lift(other))

    def __ge__(self, other: Node | float) -> Binary:
        return Binary(">=", self, lift(other))

    def __le__(self, other: Node | float) -> Binary:
        return Binary("<=", self, lift(other))

    def eq(self, other: Node | float) -> Binary:
        return Binary("==", self, lift(other))

    def op(
        self,
        op: str,
        other: Node | float,
        *,
        on: Sequence[str] | None = None,
        group_left: Sequence[str] | None = None,
        group_right: Sequence[str] | None = None,
    ) -> Binary:
        """``self op on(...) group_left(...) other``."""
        return Binary(
            op,
            self,
            lift(other),
            on=None if on is None else tuple(on),
            group_left=None if group_left is None else tuple(group_left),
            group_right=None if group_right is None else tuple(group_right),
        )

    def and_(self, other: Node, on: Sequence[str] | None = None) -> Binary:
        return self.op("and", other, on=on)

    def or_(self, other: Node, on: Sequence[str] | None = None) -> Binary:
        return self.op("or", other, on=on)

    def unless(self, other: Node, on: Sequence[str] | None = None) -> Binary:
        return self.op("unless", other, on=on)


def lift(value: Node | float) -> Node:
    return value if isinstance(value, Node) else Num(float(value))


@dataclass(frozen=True, eq=False)
class Num(Node):
    value: float

    def promql(self) -> str:
        v = self.value
        return str(int(v)) if v == int(v) and abs(v) < 1e15 else repr(v)

    def evaluate(self, ctx: Context, at: float) -> Value:
        return self.value


@dataclass(frozen=True, eq=False)
class Time(Node):
    def promql(self) -> str:
        return "time()"

    def evaluate(self, ctx: Context, at: float) -> Value:
        return at


def time() -> Time:
    return Time()


Matcher = tuple[str, str, str]  # label, "=" "!=" "=~" "!~", value


def _matches(labels: Mapping[str, str], matchers: Sequence[Matcher]) -> bool:
    for label, op, value in matchers:
        have = labels.get(label, "")
        if op == "=" and have != value:
            return False
        if op == "!=" and have == value:
            return False
        if op == "=~" and not re.fullmatch(value, have):
            return False
        if op == "!~" and re.fullmatch(value, have):
            return False
    return True


@dataclass(frozen=True, eq=False)
class Selector(Node):
    """An instant vector selector (a ``Record`` is one too, with its expression)."""

    name: str
    matchers: tuple[Matcher, ...] = ()
    offset: float = 0.0
    offset_text: str = ""

    def promql(self) -> str:
        inner = ", ".join(f'{k}{op}"{v}"' for k, op, v in self.matchers)
        text = self.name + (f"{{{inner}}}" if inner else "")
        return text + (f" offset {self.offset_text}" if self.offset_text else "")

    def at(self, window: Duration | str | int | float) -> Range:
        """This selector over a range: ``name{...}[window]``."""
        return Range(self, seconds(window), duration_text(window))

    def shifted(self, offset: Duration | str | int | float) -> Selector:
        return Selector(self.name, self.matchers, seconds(offset), duration_text(offset))

    def samples(
        self, ctx: Context, start: float, end: float, stale: bool = False
    ) -> Iterable[tuple[Labels, list[tuple[float, float]]]]:
        """Each selected series' samples in [start, end] (staleness markers only if
        ``stale``)."""
        if isinstance(self, Record):
            yield from self._record_samples(ctx, start, end)
            return
        if self.name == ALERTS:  # the alerts active at the previous evaluation, whatever the time
            for labels, v in ctx.alerts.items():
                if _matches(dict(labels), self.matchers):
                    yield labels, [(end, v)]
            return
        for labels, (times, values) in self._windows(ctx, start, end, stale):
            yield labels, list(zip(times, values, strict=True))

    def arrays(self, ctx: Context, start: float, end: float) -> Iterable[tuple[Labels, Points]]:
        """``samples`` without staleness markers, as (times, values) of each series: slices
        of the history's own arrays, so a range over many long series builds no tuples."""
        if isinstance(self, Record) or self.name == ALERTS:
            for labels, points in self.samples(ctx, start, end):
                yield labels, ([t for t, _ in points], [v for _, v in points])
            return
        yield from self._windows(ctx, start, end, stale=False)

    def _windows(
        self, ctx: Context, start: float, end: float, stale: bool
    ) -> Iterable[tuple[Labels, Points]]:
        """Each stored series' times and values in [start, end], sliced from the history's
        arrays (staleness markers only if ``stale``); series with none there are left out."""
        for labels, times, values in ctx.history.series(self.name):
            if not _matches(dict(labels), self.matchers):
                continue
            lo = bisect_left(times, start)
            hi = bisect_right(times, end)
            if hi <= lo:
                continue
            kept_times, kept = times[lo:hi], values[lo:hi]
            total = sum(kept)  # NaN when a staleness marker (or another NaN) is among them
            if not stale and total != total:
                pairs = [(t, v) for t, v in zip(kept_times, kept, strict=True) if not is_stale(v)]
                if not pairs:
                    continue
                kept_times, kept = [t for t, _ in pairs], [v for _, v in pairs]
            yield labels, (kept_times, kept)

    def _record_samples(
        self, ctx: Context, start: float, end: float
    ) -> Iterable[tuple[Labels, list[tuple[float, float]]]]:
        """The record evaluated at each evaluation step in [start, end]."""
        assert isinstance(self, Record)
        step = ctx.interval
        t = math.ceil(start / step - 1e-9) * step
        found: dict[Labels, list[tuple[float, float]]] = {}
        kept = ctx.history.recorded(self.name)
        if kept is not None and kept[1] > -math.inf:  # as recorded up to ``until``; the
            series, until = kept  # steps after it computed (all of them before a first step)
            for labels, times, values in series:
                if not _matches(dict(labels), self.matchers):
                    continue
                lo, hi = bisect_left(times, start), bisect_right(times, min(end, until))
                if hi > lo:
                    found[labels] = [(times[i], values[i]) for i in range(lo, hi)]
            t = max(t, math.floor(until / step + 1e-9) * step + step)
        while t <= end + 1e-9:
            for labels, v in ctx.record(self, t).items():
                if _matches(dict(labels), self.matchers):
                    found.setdefault(labels, []).append((t, v))
            t += step
        yield from found.items()

    def evaluate(self, ctx: Context, at: float) -> Value:
        t = at - self.offset
        if isinstance(self, Record):
            recorded = ctx.record(self, t)
            return {k: v for k, v in recorded.items() if _matches(dict(k), self.matchers)}
        found = self.samples(ctx, t - LOOKBACK, t, stale=True)
        return {labels: pts[-1][1] for labels, pts in found if not is_stale(pts[-1][1])}


def metric(name: str, **matchers: str) -> Selector:
    """``name{label="value"}``; a value starting with ``=~``, ``!=`` or ``!~`` uses that
    operator (``metric("m", state="=~faulted|unavail")``)."""
    out = []
    for label, value in matchers.items():
        op = "="
        for prefix in ("=~", "!=", "!~"):
            if value.startswith(prefix):
                op, value = prefix, value[len(prefix) :]
        out.append((label, op, value))
    return Selector(name, tuple(out))


@dataclass(frozen=True, eq=False)
class Record(Selector):
    """A recording rule: its name (as a selector) and the expression it records."""

    expr: Node = field(default_factory=lambda: Num(0))

    @staticmethod
    def of(name: str, expr: Node) -> Record:
        return Record(name, (), 0.0, "", expr)

    def where(self, **matchers: str) -> Record:
        """The record with label matchers: ``name{label="value"}``."""
        return Record(self.name, metric(self.name, **matchers).matchers, 0.0, "", self.expr)

    def shifted(self, offset: Duration | str | int | float) -> Record:
        return Record(self.name, self.matchers, seconds(offset), duration_text(offset), self.expr)


@dataclass(frozen=True, eq=False)
class Range:
    """``selector[window]`` (with the selector's offset): the argument of range functions."""

    selector: Selector
    window: float
    window_text: str

    def promql(self) -> str:
        s = self.selector
        base = Selector(s.name, s.matchers).promql()
        off = f" offset {s.offset_text}" if s.offset_text else ""
        return f"{base}[{self.window_text}]{off}"

    def shifted(self, offset: Duration | str | int | float) -> Range:
        return Range(self.selector.shifted(offset), self.window, self.window_text)

    def series(self, ctx: Context, at: float) -> Iterable[tuple[Labels, Points]]:
        """Each selected series' sample times and values in the window ending at ``at``."""
        end = at - self.selector.offset
        return self.selector.arrays(ctx, end - self.window, end)


def _extrapolated(points: Points, start: float, end: float, rate: bool,
                  window: float) -> float | None:  # fmt: skip
    """Prometheus 2.x extrapolatedRate for a counter: increase (or rate) over [start, end]."""
    times, values = points
    if len(values) < 2:
        return None
    result = values[-1] - values[0]
    if any(map(lt, values[1:], values)):  # (the loop only where a value went down)
        for before, after in zip(values, values[1:], strict=False):
            if after < before:  # a counter reset: the counter rose by ``after`` since 0
                result += before
    first_t, first_v = times[0], values[0]
    last_t = times[-1]
    to_start, to_end = first_t - start, end - last_t
    sampled = last_t - first_t
    average = sampled / (len(values) - 1)
    if result > 0 and first_v >= 0:
        to_zero = sampled * (first_v / result)
        to_start = min(to_start, to_zero)
    threshold = average * 1.1
    extrapolate_to = sampled
    extrapolate_to += to_start if to_start < threshold else average / 2
    extrapolate_to += to_end if to_end < threshold else average / 2
    factor = extrapolate_to / sampled
    if rate:
        factor /= window
    return result * factor


def _quantile(q: float, values: Sequence[float]) -> float:
    """Prometheus' quantile: linear interpolation between the closest ranks."""
    if not values:
        return math.nan
    if q < 0:
        return -math.inf
    if q > 1:
        return math.inf
    ordered = sorted(values)
    rank = q * (len(ordered) - 1)
    low = max(0, math.floor(rank))
    high = min(len(ordered) - 1, low + 1)
    weight = rank - math.floor(rank)
    return ordered[low] * (1 - weight) + ordered[high] * weight


_AGGREGATIONS: dict[str, Callable[[list[float]], float]] = {
    "sum": sum,
    "max": max,
    "min": min,
    "count": len,
}


@dataclass(frozen=True, eq=False)
class RangeCall(Node):
    """A function over a range: ``increase(m[10m])``, ``quantile_over_time(0.5, m[1d])``."""

    function: str
    range: Range
    param: float | None = None

    def promql(self) -> str:
        param = "" if self.param is None else f"{Num(self.param).promql()}, "
        return f"{self.function}({param}{self.range.promql()})"

    def evaluate(self, ctx: Context, at: float) -> Value:
        out: Vector = {}
        end = at - self.range.selector.offset
        for labels, points in self.range.series(ctx, at):
            value = self._apply(points, end - self.range.window, end)
            if value is not None:
                out[_without_name(labels)] = value
        return out

    def _apply(self, points: Points, start: float, end: float) -> float | None:
        f = self.function
        if f in ("increase", "rate"):
            return _extrapolated(points, start, end, f == "rate", self.range.window)
        values = points[1]
        if f == "changes":
            return float(sum(1 for a, b in zip(values, values[1:], strict=False) if a != b))
        if f == "min_over_time":
            return min(values)
        if f == "max_over_time":
            return max(values)
        if f == "quantile_over_time":
            return _quantile(self.param or 0.0, values)
        raise EvaluationError(f"unknown range function {f}")


def increase(r: Range) -> RangeCall:
    return RangeCall("increase", r)


def rate(r: Range) -> RangeCall:
    return RangeCall("rate", r)


def changes(r: Range) -> RangeCall:
    return RangeCall("changes", r)


def min_over_time(r: Range) -> RangeCall:
    return RangeCall("min_over_time", r)


def max_over_time(r: Range) -> RangeCall:
    return RangeCall("max_over_time", r)


def quantile_over_time(q: float, r: Range) -> RangeCall:
    return RangeCall("quantile_over_time", r, q)


@dataclass(frozen=True, eq=False)
class Call(Node):
    """An instant function: clamp_min, label_replace, absent, histogram_quantile."""

    function: str
    args: tuple[Node, ...]
    strings: tuple[str, ...] = ()  # label_replace's dst, replacement, src, regex

    def promql(self) -> str:
        parts = [a.promql() for a in self.args] + [f'"{s}"' for s in self.strings]
        if self.function == "histogram_quantile":
            parts = [parts[0], parts[1]]
        text = ", ".join(parts)
        if "\n" in text or len(text) > _LONG:
            return f"{self.function}(\n" + _indent(",\n".join(parts)) + "\n)"
        return f"{self.function}({text})"

    def evaluate(self, ctx: Context, at: float) -> Value:
        f = self.function
        if f == "clamp_min":
            vec, low = self.args[0].vector(ctx, at), self.args[1].evaluate(ctx, at)
            assert isinstance(low, float)
            return {_without_name(k): max(v, low) for k, v in vec.items()}
        if f == "absent":
            if self.args[0].vector(ctx, at):
                return {}
            arg = self.args[0]
            eq = arg.matchers if isinstance(arg, Selector) else ()
            return {labels_of({k: v for k, op, v in eq if op == "="}): 1.0}
        if f == "label_replace":
            dst, replacement, src, regex = self.strings
            out: Vector = {}
            pattern = re.compile(regex)
            for labels, v in self.args[0].vector(ctx, at).items():
                m = pattern.fullmatch(dict(labels).get(src, ""))
                if m:
                    labels = _with(labels, dst, _expand(m, replacement))
                out[labels] = v
            return out
        if f == "histogram_quantile":
            q = self.args[0].evaluate(ctx, at)
            assert isinstance(q, float)
            return _histogram_quantile(q, self.args[1].vector(ctx, at))
        raise EvaluationError(f"unknown function {f}")


def _expand(m: re.Match[str], replacement: str) -> str:
    """label_replace's replacement with ``$1``-style groups filled in."""
    return re.sub(r"\$(\d+)", lambda g: m.group(int(g.group(1))) or "", replacement)


def clamp_min(v: Node, low: float) -> Call:
    return Call("clamp_min", (v, Num(float(low))))


def absent(v: Selector) -> Call:
    return Call("absent", (v,))


def label_replace(v: Node, dst: str, replacement: str, src: str, regex: str) -> Call:
    return Call("label_replace", (v,), (dst, replacement, src, regex))


def histogram_quantile(q: float, buckets: Node) -> Call:
    return Call("histogram_quantile", (Num(float(q)), buckets))


def _histogram_quantile(q: float, vec: Vector) -> Vector:
    """Prometheus' histogram_quantile over ``le`` buckets (Prometheus 2.x bucketQuantile):
    buckets of one upper bound written twice (``1`` and ``1.0``) are one, counts are made
    monotonic, the rank ``q * total`` is found in the first bucket that reaches it and
    interpolated linearly within it from the bucket below's bound (0 for the first bucket
    unless its bound is at most 0, then that bound); a rank in the +Inf bucket is the highest
    finite bound. NaN without a +Inf bucket, with fewer than two buckets or no observation;
    -Inf/+Inf for ``q`` below 0 or above 1. Series whose ``le`` is not a number are ignored."""
    groups: dict[Labels, dict[float, float]] = {}
    for labels, v in vec.items():
        d = dict(labels)
        le = d.pop("le", None)
        d.pop(NAME, None)
        try:
            bound = float(le) if le is not None else None
        except ValueError:
            bound = None
        if bound is None:
            continue
        group = groups.setdefault(labels_of(d), {})
        group[bound] = group.get(bound, 0.0) + v
    out: Vector = {}
    for labels, by_bound in groups.items():
        if math.isnan(q) or q < 0 or q > 1:
            out[labels] = math.nan if math.isnan(q) else math.copysign(math.inf, q)
            continue
        buckets = sorted(by_bound.items())
        if len(buckets) < 2 or buckets[-1][0] != math.inf:
            out[labels] = math.nan
            continue
        for i in range(1, len(buckets)):  # monotonic, as Prometheus forces it
            buckets[i] = (buckets[i][0], max(buckets[i][1], buckets[i - 1][1]))
        total = buckets[-1][1]
        if total == 0:
            out[labels] = math.nan
            continue
        rank = q * total
        i = next(i for i, (_, c) in enumerate(buckets) if c >= rank)
        if i == len(buckets) - 1:
            out[labels] = buckets[-2][0]
            continue
        if i == 0 and buckets[0][0] <= 0:
            out[labels] = buckets[0][0]
            continue
        start, below = (0.0, 0.0) if i == 0 else buckets[i - 1]
        end, count = buckets[i]
        out[labels] = start + (end - start) * ((rank - below) / (count - below))
    return out


@dataclass(frozen=True, eq=False)
class Aggregate(Node):
    """``sum by (labels) (expr)``, and max, min, count, quantile (with its parameter);
    ``without`` aggregates away ``by``'s labels (and the name) instead."""

    aggregation: str
    by: tuple[str, ...]
    expr: Node
    param: float | None = None
    without: bool = False

    def promql(self) -> str:
        inner = self.expr.promql()
        if self.param is not None:
            inner = f"{Num(self.param).promql()}, {inner}"
        by = f" {'without' if self.without else 'by'} ({', '.join(self.by)})"
        return f"{self.aggregation}{by if self.by or self.without else ''} {_wrapped(inner)}"

    def evaluate(self, ctx: Context, at: float) -> Value:
        groups: dict[Labels, list[float]] = {}
        for labels, v in self.expr.vector(ctx, at).items():
            if self.without:
                key = tuple(kv for kv in labels if kv[0] not in self.by and kv[0] != NAME)
            else:
                d = dict(labels)
                key = labels_of({k: d.get(k, "") for k in self.by})
            groups.setdefault(key, []).append(v)
        fn = _AGGREGATIONS.get(self.aggregation)
        if self.aggregation == "quantile":
            return {k: _quantile(self.param or 0.0, vs) for k, vs in groups.items()}
        if fn is None:
            raise EvaluationError(f"unknown aggregation {self.aggregation}")
        return {k: float(fn(vs)) for k, vs in groups.items()}


def sum_by(labels: Sequence[str], expr: Node) -> Aggregate:
    return Aggregate("sum", tuple(labels), expr)


def max_by(labels: Sequence[str], expr: Node) -> Aggregate:
    return Aggregate("max", tuple(labels), expr)


def max_without(labels: Sequence[str], expr: Node) -> Aggregate:
    return Aggregate("max", tuple(labels), expr, without=True)


def min_by(labels: Sequence[str], expr: Node) -> Aggregate:
    return Aggregate("min", tuple(labels), expr)


def count_by(labels: Sequence[str], expr: Node) -> Aggregate:
    return Aggregate("count", tuple(labels), expr)


def quantile_by(labels: Sequence[str], q: float, expr: Node) -> Aggregate:
    return Aggregate("quantile", tuple(labels), expr, q)


def _signature(labels: Labels, on: tuple[str, ...] | None) -> Labels:
    if on is None:
        return _without_name(labels)
    d = dict(labels)
    return tuple((k, d[k]) for k in sorted(on) if d.get(k, ""))


def _compare(op: str, a: float, b: float) -> bool:
    return {
        "==": a == b,
        "!=": a != b,
        ">": a > b,
        "<": a < b,
        ">=": a >= b,
        "<=": a <= b,
    }[op]


def _arith(op: str, a: float, b: float) -> float:
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        if b == 0:
            return math.nan if a == 0 or math.isnan(a) else math.copysign(math.inf, a)
        return a / b
    raise EvaluationError(f"unknown operator {op}")


@dataclass(frozen=True, eq=False)
class Binary(Node):
    """``lhs op [bool] [on(...)] [group_left(...)|group_right(...)] rhs``."""

    operator: str
    lhs: Node
    rhs: Node
    on: tuple[str, ...] | None = None
    group_left: tuple[str, ...] | None = None
    group_right: tuple[str, ...] | None = None
    bool_: bool = False

    @property
    def precedence(self) -> int:
        return PRECEDENCE[self.operator]

    def modifiers(self) -> str:
        out = " bool" if self.bool_ else ""
        if self.on is not None:
            out += f" on({', '.join(self.on)})"
        for name, include in (("group_left", self.group_left), ("group_right", self.group_right)):
            if include is not None:
                out += f" {name}({', '.join(include)})"  # "()" even empty: "(" may follow
        return out

    def promql(self) -> str:
        def side(node: Node, right: bool) -> str:
            text = node.promql()
            low = node.precedence < self.precedence
            # a different set operator, or a block, reads better in parentheses
            mixed = (
                isinstance(node, Binary)
                and node.operator in SET_OPS
                and self.operator in SET_OPS
                and (node.operator != self.operator or right)
            )
            if low or mixed or (right and node.precedence == self.precedence):
                return _wrapped(text)
            return text

        left, right = side(self.lhs, False), side(self.rhs, True)
        op = f"{self.operator}{self.modifiers()}"
        if self.operator in SET_OPS:
            return f"{left}\n{op} {right}"
        if "\n" in right or ("\n" not in left and len(left) + len(right) > 2 * _LONG):
            return f"{left}\n{op} {right}"
        return f"{left} {op} {right}"

    def evaluate(self, ctx: Context, at: float) -> Value:
        lhs, rhs = self.lhs.evaluate(ctx, at), self.rhs.evaluate(ctx, at)
        op = self.operator
        if isinstance(lhs, float) and isinstance(rhs, float):
            if op in COMPARISONS:
                return float(_compare(op, lhs, rhs))
            return _arith(op, lhs, rhs)
        if isinstance(lhs, dict) and isinstance(rhs, dict):
            if op in SET_OPS:
                return self._set(lhs, rhs)
            return self._match(lhs, rhs)
        return self._with_scalar(lhs, rhs)

    def _with_scalar(self, lhs: Value, rhs: Value) -> Vector:
        vector_left = isinstance(lhs, dict)
        vec = lhs if isinstance(lhs, dict) else rhs
        scalar = rhs if vector_left else lhs
        assert isinstance(vec, dict) and isinstance(scalar, float)
        out: Vector = {}
        for labels, v in vec.items():
            a, b = (v, scalar) if vector_left else (scalar, v)
            if self.operator in COMPARISONS:
                hold = _compare(self.operator, a, b)
                if self.bool_:
                    out[_without_name(labels)] = float(hold)
                elif hold:
                    out[labels] = v
            else:
                out[_without_name(labels)] = _arith(self.operator, a, b)
        return out

    def _set(self, lhs: Vector, rhs: Vector) -> Vector:
        right = {_signature(k, self.on) for k in rhs}
        if self.operator == "and":
            return {k: v for k, v in lhs.items() if _signature(k, self.on) in right}
        if self.operator == "unless":
            return {k: v for k, v in lhs.items() if _signature(k, self.on) not in right}
        out = dict(lhs)
        left = {_signature(k, self.on) for k in lhs}
        for k, v in rhs.items():
            if _signature(k, self.on) not in left:
                out[k] = v
        return out

    def _match(self, lhs: Vector, rhs: Vector) -> Vector:
        one_to_many = self.group_right is not None
        include = self.group_left if self.group_left is not None else self.group_right
        many, one = (rhs, lhs) if one_to_many else (lhs, rhs)
        ones: dict[Labels, tuple[Labels, float]] = {}
        for k, v in one.items():
            sig = _signature(k, self.on)
            if sig in ones:
                side = "left" if one_to_many else "right"
                raise EvaluationError(
                    f"found duplicate series for the match group {dict(sig)} on the {side} "
                    f"hand-side of the operation: {self.promql()}"
                )
            ones[sig] = (k, v)
        out: Vector = {}
        matched: set[Labels] = set()
        comparison = self.operator in COMPARISONS
        drop_name = not comparison or self.bool_
        for k, v in many.items():
            sig = _signature(k, self.on)
            if sig not in ones:
                continue
            one_labels, one_value = ones[sig]
            a, b = (one_value, v) if one_to_many else (v, one_value)
            if comparison:
                hold = _compare(self.operator, a, b)
                if not hold and not self.bool_:
                    continue
                value = float(hold) if self.bool_ else a
            else:
                value = _arith(self.operator, a, b)
            labels = _without_name(k) if drop_name else k
            if include is None:  # one-to-one
                if self.on is not None:
                    labels = tuple(kv for kv in labels if kv[0] in self.on)
                if sig in matched:
                    raise EvaluationError(
                        f"multiple matches for labels {dict(sig)}: many-to-one matching must "
                        f"be explicit (group_left/group_right): {self.promql()}"
                    )
                matched.add(sig)
            else:
                one_d = dict(one_labels)
                for name in include:
                    labels = _with(labels, name, one_d.get(name, ""))
            if labels in out:
                raise EvaluationError(f"duplicate output series {dict(labels)}: {self.promql()}")
            out[labels] = value
        return out


def active_alerts(name: str) -> Selector:
    """``ALERTS{alertname="name", alertstate=~"pending|firing"}``: the active instances of
    alert ``name`` at the previous evaluation (``Context.alerts``)."""
    return metric(ALERTS, alertname=name, alertstate="=~pending|firing")


def alerts_read(node: Node | Range) -> set[str]:
    """The alert names whose ``ALERTS`` series ``node`` selects ("" for a selector naming
    none), through the records it refers to."""
    out: set[str] = set()
    for part in walk(node):
        if isinstance(part, Selector) and not isinstance(part, Record) and part.name == ALERTS:
            names = [v for label, op, v in part.matchers if label == "alertname" and op == "="]
            out.add(names[0] if names else "")
    return out


def selected_metrics(node: Node | Range) -> set[str]:
    """The metric names an expression reads, through the records it refers to."""
    out: set[str] = set()
    for part in walk(node):
        if isinstance(part, Record):
            out |= selected_metrics(part.expr)
        elif isinstance(part, Selector) and part.name != ALERTS:
            out.add(part.name)
    return out


def lookback(node: Node | Range, recorded: float | None = None) -> dict[str, float]:
    """How far back, in seconds, an evaluation of ``node`` reads each metric (windows,
    offsets, the instant selectors' lookback, and the same of the records it refers to).

    With ``recorded`` (an evaluation interval), a record read over a range is taken as
    recorded at each step (``ranged_records``): its own name needs the window, what it reads
    only enough to compute the steps not recorded yet (two intervals)."""
    out: dict[str, float] = {}

    def need(n: Node | Range, before: float) -> None:
        if isinstance(n, Range):
            s = n.selector
            if isinstance(s, Record) and recorded is not None:
                back = before + n.window + s.offset
                out[s.name] = max(out.get(s.name, 0.0), back)
                need(s.expr, before + s.offset + 2 * recorded)
            elif isinstance(s, Record):
                need(s.expr, before + n.window + s.offset)
            else:
                out[s.name] = max(out.get(s.name, 0.0), before + n.window + s.offset)
            return
        if isinstance(n, Record):
            need(n.expr, before + n.offset)
            return
        if isinstance(n, Selector):
            if n.name != ALERTS:
                out[n.name] = max(out.get(n.name, 0.0), before + n.offset + LOOKBACK)
            return
        for child in children(n):
            need(child, before)

    need(node, 0.0)
    return out


def ranged_records(nodes: Iterable[Node | Range]) -> list[Record]:
    """The records ``nodes`` read over a range, each once, a record after those it reads over
    a range itself: the ones a history records at each evaluation step, as Prometheus does."""
    out: dict[str, Record] = {}

    def visit(n: Node | Range) -> None:
        for child in children(n):
            visit(child)
        if isinstance(n, Range) and isinstance(n.selector, Record):
            out.setdefault(n.selector.name, Record.of(n.selector.name, n.selector.expr))

    for node in nodes:
        visit(node)
    return list(out.values())


def children(node: Node | Range) -> list[Node | Range]:
    if isinstance(node, Range):
        return [node.selector]
    if isinstance(node, Record):
        return [node.expr]
    if isinstance(node, RangeCall):
        return [node.range]
    if isinstance(node, Call):
        return list(node.args)
    if isinstance(node, Aggregate):
        return [node.expr]
    if isinstance(node, Binary):
        return [node.lhs, node.rhs]
    return []


def walk(node: Node | Range) -> Iterable[Node | Range]:
    yield node
    for child in children(node):
        yield from walk(child)


def scoped(node: Node, **matchers: str) -> Node:
    """``node`` with ``matchers`` (as ``metric`` takes them) added before each selector's own:
    a declared expression drawn for the hosts a dashboard selects."""
    extra = metric("", **matchers).matchers
    return _scoped(node, extra)


def _scoped(node: Node, extra: tuple[Matcher, ...]) -> Node:
    if isinstance(node, Selector):
        return replace(node, matchers=(*extra, *node.matchers))
    if isinstance(node, RangeCall):
        selector = node.range.selector
        inner = replace(selector, matchers=(*extra, *selector.matchers))
        return replace(node, range=replace(node.range, selector=inner))
    if isinstance(node, Call):
        return replace(node, args=tuple(_scoped(a, extra) for a in node.args))
    if isinstance(node, Aggregate):
        return replace(node, expr=_scoped(node.expr, extra))
    if isinstance(node, Binary):
        return replace(node, lhs=_scoped(node.lhs, extra), rhs=_scoped(node.rhs, extra))
    return node
