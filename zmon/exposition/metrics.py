"""Build Prometheus metric families from parsed data, grouped by name, with consistent types."""

from __future__ import annotations

import functools
import math
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Generic, TypeVar, cast

from prometheus_client.core import Metric
from prometheus_client.samples import Sample

Labels = Mapping[str, str]
T = TypeVar("T")


class _CompactFamily(Metric, Generic[T]):
    """A family that keeps its series in a compact form until something reads ``samples``.

    ``samples`` builds the ordinary samples then (tests, a merge); the exposition renders the
    compact form directly (``zmon.exposition.formats``). Both give what ``Metric.add_sample`` calls
    would have. Subclasses say how one compact item becomes samples (``_build``).
    """

    def __init__(self, name: str, documentation: str, typ: str, unit: str = "") -> None:
        self._compact: list[T] = []
        self._plain: list[Sample] = []
        super().__init__(name, documentation, typ, unit)

    @property
    def samples(self) -> list[Sample]:
        if self._compact:
            self._plain.extend(self._build(self._compact))
            self._compact = []
        return self._plain

    @samples.setter
    def samples(self, value: list[Sample]) -> None:
        self._plain = value
        self._compact = []

    def has_samples(self) -> bool:
        return bool(self._plain or self._compact)

    def each_sample(self) -> Iterator[Sample]:
        """The samples, built one by one and not kept: for a reader that passes over a
        family kept for a long time (the status views read the snapshot's every 25 s)."""
        yield from self._plain
        for item in self._compact:
            yield from self._build([item])

    def series(self) -> tuple[list[Sample], list[T]]:
        """The samples built so far, then the compact items after them (for rendering)."""
        return self._plain, self._compact

    def _build(self, items: list[T]) -> list[Sample]:
        raise NotImplementedError


HistogramSeries = tuple[dict[str, str], tuple[str, ...], list[float], float, float]


class HistogramFamily(_CompactFamily[HistogramSeries]):
    """A histogram family that keeps each series as its bucket counts, not as samples.

    On a host with 1,000 disks the per-vdev latency histograms are 385,000 samples, and a
    ``Sample`` with its own label dict for each bucket would cost more than the rest of the
    collector's run. So a series is one tuple (labels, bounds, counts, count, sum).
    """

    def __init__(self, name: str, documentation: str, unit: str = "") -> None:
        super().__init__(name, documentation, "histogram", unit)

    def add_series(
        self,
        labels: dict[str, str],
        les: tuple[str, ...],
        cumulative: list[float],
        count: float,
        total: float,
    ) -> None:
        """One histogram: ``les`` (ending in ``+Inf``) and the cumulative count at each."""
        self._compact.append((labels, les, cumulative, count, total))

    def _build(self, series: list[HistogramSeries]) -> list[Sample]:
        name = self.name
        out = []
        for base, les, cumulative, count, total in series:
            for le, value in zip(les, cumulative, strict=True):
                out.append(Sample(name + "_bucket", {**base, "le": le}, float(value)))
            out.append(Sample(name + "_count", dict(base), count))
            out.append(Sample(name + "_sum", dict(base), total))
        return out


Row = tuple[dict[str, str], str, Sequence[str], Sequence[float]]


class RowFamily(_CompactFamily[Row]):
    """A gauge or counter family kept as rows: series that share every label but one.

    The ``iostat`` collector of a host with 1,000 disks adds 22,000 table gauges every 15 s,
    18 a vdev (a queue or an op each); a ``Sample`` with its own label dict for each, sorted
    and formatted again at render, would double the collector's run. So a row is (the shared
    labels, the one label's name, its values, the sample values), rendered as it is.
    """

    def __init__(self, name: str, documentation: str, typ: str, unit: str = "") -> None:
        super().__init__(name, documentation, typ, unit)
        self.sample_name = name + "_total" if typ == "counter" else name

    def add_row(
        self, labels: dict[str, str], key: str, names: Sequence[str], values: Sequence[float]
    ) -> None:
        """Samples ``{**labels, key: names[i]} = values[i]``, in that order."""
        if key in labels or self._plain:  # keep the order of samples added before
            self.samples.extend(self._build([(labels, key, names, values)]))
        else:
            self._compact.append((labels, key, names, values))

    def _build(self, rows: list[Row]) -> list[Sample]:
        name = self.sample_name
        return [
            Sample(name, {**base, key: label}, float(value))
            for base, key, names, values in rows
            for label, value in zip(names, values, strict=True)
        ]


def each_sample(family: Metric) -> Iterable[Sample]:
    """A family's samples for a reader that keeps none of them: a compact or held family's
    made one by one (``each_sample``), an ordinary family's list as it is."""
    each = getattr(family, "each_sample", None)
    return each() if each is not None else family.samples


class HeldLabels(Mapping[str, str]):
    """A held family's sample labels, read-only: its shape's label names (``at``: name ->
    position) and its label values, both shared. Made for a reader and dropped after: a dict
    for each sample of a big host's families would be megabytes made every few seconds."""

    __slots__ = ("_at", "_values")

    def __init__(self, at: dict[str, int], values: tuple[str, ...]) -> None:
        self._at, self._values = at, values

    def __getitem__(self, key: str) -> str:
        return self._values[self._at[key]]

    def get(self, key: str, default: Any = None) -> Any:
        i = self._at.get(key)
        return default if i is None else self._values[i]

    def __contains__(self, key: object) -> bool:
        return key in self._at

    def __iter__(self) -> Iterator[str]:
        return iter(self._at)

    def __len__(self) -> int:
        return len(self._values)

    # Tuples, not Mapping's views: the views would look each key up again, for every sample
    # of every family a reader passes over.
    def items(self) -> tuple[tuple[str, str], ...]:  # type: ignore[override]  # see above
        return tuple(zip(self._at, self._values, strict=True))

    def values(self) -> tuple[str, ...]:  # type: ignore[override]  # see above
        return self._values

    def __repr__(self) -> str:
        return repr(dict(self.items()))


class HeldFamily(Metric):
    """A family held for a long time by a reader that passes over it now and then (the HTTP
    process holds the families the status views read until the next run replaces them).

    Its series are kept in columns: each sample's shape (its name and label names, shared),
    its label values (one tuple, shared with equal ones: ``add``'s ``shared``) and its
    value in an array: a ``Sample`` with a label dict of its own for each would repeat every
    label name and value in every sample, on a big host most of what the process holds.
    ``each_sample`` makes the samples one by
    one, with ``HeldLabels``, for a reader that keeps none of them.
    """

    def __init__(self, name: str, documentation: str, typ: str, unit: str = "") -> None:
        # (sample name, label name -> position), indexed by (sample name, label names)
        self._shapes: list[tuple[str, dict[str, int]]] = []
        self._shape_index: dict[tuple[str, tuple[str, ...]], int] = {}
        self._shape_of = array("I")
        self._label_values: list[tuple[str, ...]] = []
        self._values = array("d")
        self._timestamps: list[float | None] | None = None  # None: none has one
        super().__init__(name, documentation, typ, unit)

    @property
    def samples(self) -> list[Sample]:
        """The samples with label dicts, made now (a new list each time: nothing is kept)."""
        return [s._replace(labels=dict(s.labels)) for s in self.each_sample()]

    @samples.setter
    def samples(self, value: Iterable[Sample]) -> None:
        del self._shapes[:], self._label_values[:], self._shape_of[:], self._values[:]
        self._shape_index.clear()
        self._timestamps = None
        for s in value:
            ts = None if s.timestamp is None else float(s.timestamp)
            self.add(s.name, tuple(s.labels), tuple(s.labels.values()), s.value, ts)

    def add(
        self,
        name: str,
        label_names: tuple[str, ...],
        label_values: tuple[str, ...],
        value: float,
        timestamp: float | None = None,
        shared: dict[tuple[str, ...], tuple[str, ...]] | None = None,
    ) -> None:
        """One sample. ``shared``: label-value tuples to share with (a decoder's, for every
        family of one message: a disk's labels repeat in each family of its collector)."""
        if len(label_names) != len(label_values):
            raise ValueError(f"{len(label_names)} label names for {len(label_values)} values")
        index = self._shape_index.get((name, label_names))
        if index is None:
            index = self._shape_index[(name, label_names)] = len(self._shapes)
            at = {key: i for i, key in enumerate(label_names)}
            if len(at) != len(label_names):
                raise ValueError(f"a label name repeats in {label_names}")
            self._shapes.append((name, at))
        if shared is not None:
            label_values = shared.setdefault(label_values, label_values)
        if timestamp is not None and self._timestamps is None:
            self._timestamps = [None] * len(self._values)
        self._shape_of.append(index)
        self._label_values.append(label_values)
        self._values.append(value)
        if self._timestamps is not None:
            self._timestamps.append(timestamp)

    def sample_count(self) -> int:
        return len(self._values)

    def each_sample(self) -> Iterator[Sample]:
        """The samples, made one by one and not kept; their labels are ``HeldLabels``."""
        shapes, times = self._shapes, self._timestamps
        for i, (shape, values, value) in enumerate(
            zip(self._shape_of, self._label_values, self._values, strict=True)
        ):
            name, at = shapes[shape]
            labels = HeldLabels(at, values)
            # Sample declares a dict; readers only read labels, and HeldLabels is read-only
            stamp = None if times is None else times[i]
            yield Sample(name, labels, value, stamp)  # type: ignore[arg-type]  # see above


class MetricSet:
    """An ordered set of metric families that parsers' exposers add samples to.

    ``gauge``/``counter``/``info``/``state_set`` create the family on first use and check
    that later uses agree on its type and help. Counter names end in ``_total``. A family
    whose name ends in a unit (``UNITS``) carries it: OpenMetrics serves it as the UNIT.
    """

    def __init__(self) -> None:
        self._families: dict[str, Metric] = {}
        self._last_labels: dict[str, str] = {}

    def _family(self, name: str, help_text: str, typ: str) -> Metric:
        fam = self._families.get(name)
        if fam is None:
            unit = unit_of(name)
            fam = (
                HistogramFamily(name, help_text, unit)
                if typ == "histogram"
                else Metric(name, help_text, typ, unit)
            )
            self._families[name] = fam
        elif fam.type != typ:
            raise ValueError(f"metric {name} used as {typ} and as {fam.type}")
        return fam

    def declare(self, name: str, help_text: str, typ: str = "gauge") -> None:
        """Make a family exist even if no sample is added (rarely needed)."""
        if typ == "counter":
            name = _strip_total(name)
        self._family(name, help_text, typ)

    def gauge(
        self, name: str, help_text: str, value: float | None, labels: Labels | None = None
    ) -> None:
        """Add one gauge sample; a None value is skipped (the field was absent)."""
        if value is None:
            return
        fam = self._family(name, help_text, "gauge")
        fam.add_sample(name, dict(labels or {}), float(value))

    def counter(
        self, name: str, help_text: str, value: float | None, labels: Labels | None = None
    ) -> None:
        """Add one counter sample; ``name`` must end in ``_total``."""
        if value is None:
            return
        if not name.endswith("_total"):
            raise ValueError(f"counter {name} must end in _total")
        base = _strip_total(name)
        fam = self._family(base, help_text, "counter")
        fam.add_sample(name, dict(labels or {}), float(value))

    def gauge_row(
        self,
        name: str,
        help_text: str,
        labels: Labels,
        key: str,
        names: Sequence[str],
        values: Sequence[float | None],
    ) -> None:
        """``gauge(name, help_text, values[i], {**labels, key: names[i]})`` for each i, kept
        as one row of a compact family (``RowFamily``); None values are skipped."""
        self._row(name, help_text, "gauge", name, labels, key, names, values)

    def counter_row(
        self,
        name: str,
        help_text: str,
        labels: Labels,
        key: str,
        names: Sequence[str],
        values: Sequence[float | None],
    ) -> None:
        """``counter`` for each of ``names`` and ``values``, as ``gauge_row`` does."""
        if not name.endswith("_total"):
            raise ValueError(f"counter {name} must end in _total")
        self._row(_strip_total(name), help_text, "counter", name, labels, key, names, values)

    def _row(
        self,
        family: str,
        help_text: str,
        typ: str,
        name: str,
        labels: Labels,
        key: str,
        names: Sequence[str],
        values: Sequence[float | None],
    ) -> None:
        if len(names) != len(values):
            raise ValueError(f"{family}: {len(names)} label values for {len(values)} values")
        if None in values:  # (a column printed as "-")
            kept = [(n, v) for n, v in zip(names, values, strict=True) if v is not None]
            labels_kept, values_kept = tuple([n for n, _ in kept]), [v for _, v in kept]
        else:
            labels_kept, values_kept = tuple(names), list(cast(Sequence[float], values))
        # The values are kept as they come (ints stay ints): a float made of each would be
        # a new object for each of a big host's 22,000 table values a run. ``sum`` checks
        # that they are numbers; whoever reads them as samples gets floats (``_build``).
        sum(values_kept)
        if not labels_kept:
            return  # as gauge() with None: the family is not made either
        fam = self._families.get(family)
        if fam is None:
            fam = self._families[family] = RowFamily(family, help_text, typ, unit_of(family))
        elif type(fam) is Metric and not fam.samples and fam.type == typ:
            # declared only (``declare`` fixes the families' order): rows from here on, in
            # the declared place (zpool's 1,100 vdev state sets would be 6,700 samples)
            fam = self._families[family] = RowFamily(family, fam.documentation, typ, fam.unit)
        elif fam.type != typ:
            raise ValueError(f"metric {family} used as {typ} and as {fam.type}")
        if isinstance(fam, RowFamily):
            fam.add_row(self._labels_copy(labels), key, labels_kept, values_kept)
            return
        for label, value in zip(labels_kept, values_kept, strict=True):  # a gauge() family
            fam.add_sample(name, {**labels, key: label}, float(value))

    def _labels_copy(self, labels: Labels) -> dict[str, str]:
        """A copy of ``labels`` for a row, shared with the row added before it if that had
        the same labels: a collector adds a vdev's rows one family after another (``iostat``:
        ten for each of 1,100 vdevs). Rows never change their labels."""
        last = self._last_labels
        if last != labels:
            last = self._last_labels = dict(labels)
        return last

    def info(self, name: str, help_text: str, labels: Labels) -> None:
        """Add an ``_info`` series with value 1 that carries metadata as labels."""
        if not name.endswith("_info"):
            raise ValueError(f"info metric {name} must end in _info")
        fam = self._family(name, help_text, "gauge")
        fam.add_sample(name, {k: str(v) for k, v in labels.items()}, 1.0)

    def state_set(
        self,
        name: str,
        help_text: str,
        states: Sequence[str],
        current: str | None,
        labels: Labels | None = None,
        label: str = "state",
    ) -> None:
        """One series per state, 1 for ``current`` and 0 for the others.

        A ``current`` outside ``states`` sets them all to 0: the state is unknown.
        """
        if not states:
            self._family(name, help_text, "gauge")
            return
        # one compact row (``RowFamily``): a pool of 1,000 vdevs has 9,000 state series
        values = [1.0 if state == current else 0.0 for state in states]
        self._row(name, help_text, "gauge", name, labels or {}, label, states, values)

    def histogram(
        self,
        name: str,
        help_text: str,
        buckets: Sequence[tuple[float, float]],
        count: float,
        total: float,
        labels: Labels | None = None,
    ) -> None:
        """Add a histogram from cumulative (upper bound, count) pairs; +Inf is added if absent."""
        fam = self._family(name, help_text, "histogram")
        base = dict(labels or {})
        bounds, counts = zip(*buckets, strict=True) if buckets else ((), ())
        les = _les(bounds)
        values = list(map(float, counts))
        if "+Inf" not in les:
            les = (*les, "+Inf")
            values.append(float(count))
        if isinstance(fam, HistogramFamily):
            fam.add_series(base, les, values, float(count), float(total))
            return
        for le, value in zip(les, values, strict=True):  # a family added from elsewhere
            fam.add_sample(name + "_bucket", {**base, "le": le}, value)
        fam.add_sample(name + "_count", base, float(count))
        fam.add_sample(name + "_sum", base, float(total))

    def histogram_cumulative(
        self,
        name: str,
        help_text: str,
        les: tuple[str, ...],
        cumulative: list[float],
        count: float,
        total: float,
        labels: Labels,
    ) -> None:
        """``histogram`` from ready parts: the ``le`` labels, ending in ``+Inf``
        (``bucket_les``), and the cumulative count at each bound before it (the list is kept
        and ``count`` appended); what ``histogram`` adds for the same buckets, with less to
        do for each of a big host's 12,000 histograms a run."""
        fam = self._family(name, help_text, "histogram")
        if not isinstance(fam, HistogramFamily) or len(les) != len(cumulative) + 1:
            pairs = list(zip(map(float, les[:-1]), cumulative, strict=True))
            self.histogram(name, help_text, pairs, count, total, labels)
            return
        count = float(count)
        cumulative.append(count)
        fam.add_series(dict(labels), les, cumulative, count, float(total))

    def extend(self, other: MetricSet) -> None:
        """Merge another set's families into this one."""
        for fam in other.families():
            self.add_family(fam)

    def add_family(self, fam: Metric) -> None:
        """Add a ready family, joining its samples to a same-named one already present."""
        mine = self._families.get(fam.name)
        if mine is None:
            copy = Metric(fam.name, fam.documentation, fam.type, fam.unit)
            copy.samples = list(fam.samples)
            self._families[fam.name] = copy
        elif mine.type != fam.type:
            raise ValueError(f"metric {fam.name} used as {fam.type} and as {mine.type}")
        else:
            mine.samples.extend(fam.samples)

    def families(self) -> list[Metric]:
        """The families that have at least one sample, in insertion order."""
        return [f for f in self._families.values() if has_samples(f)]

    def __iter__(self) -> Iterator[Metric]:
        return iter(self.families())

    def sample_value(self, name: str, labels: Labels | None = None) -> float | None:
        """Look up one sample's value (for tests and the landing page)."""
        want = dict(labels or {})
        for fam in self._families.values():
            for s in fam.samples:
                if s.name == name and all(s.labels.get(k) == v for k, v in want.items()):
                    return s.value
        return None


def has_samples(fam: Metric) -> bool:
    """Whether a family has samples, without building a compact family's samples."""
    if isinstance(fam, HistogramFamily | RowFamily):
        return fam.has_samples()
    return bool(fam.samples)


def bucket_les(bounds: tuple[float, ...]) -> tuple[str, ...]:
    """The ``le`` labels ``histogram`` gives these bounds, and ``+Inf``."""
    les = _les(bounds)
    return les if "+Inf" in les else (*les, "+Inf")


@functools.lru_cache(maxsize=256)
def _les(bounds: tuple[float, ...]) -> tuple[str, ...]:
    """The ``le`` labels of a histogram's bounds (histograms of one family share them)."""
    return tuple("+Inf" if math.isinf(b) else _format_le(b) for b in bounds)


# The units a family's name may end in (Prometheus' base units, and a rate of bytes), which
# OpenMetrics serves as the family's UNIT: ``zmon_arc_size_bytes`` is in bytes.
UNITS = ("bytes_per_second", "seconds", "bytes", "ratio", "celsius", "volts", "amperes",
         "watts", "joules", "hertz", "meters", "grams")  # fmt: skip


@functools.lru_cache(maxsize=4096)
def unit_of(family: str) -> str:
    """The unit a family's name ends in (its name without a counter's ``_total``), or ""."""
    return next((unit for unit in UNITS if family.endswith("_" + unit)), "")


def _strip_total(name: str) -> str:
    return name[: -len("_total")] if name.endswith("_total") else name


@functools.lru_cache(maxsize=4096)
def _format_le(bound: float) -> str:
    """The ``le`` label text of a bucket bound (cached: histograms repeat the same bounds)."""
    return repr(float(bound))
