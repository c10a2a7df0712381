"""The series history the declarations are evaluated over.

A ``Store`` is fed zmon's own metric families (what /metrics serves, without ``instance`` and
``job``) with the time of each feed, as Prometheus scrapes them: one ``add`` is one scrape. It
keeps only the metrics the declarations select, and of each only as much past as the longest
window that reads it needs (range, offset, the 5-minute lookback, the ``for:`` hold, and the
same of the records in between). A series selected before and absent from a feed gets a
staleness marker, as Prometheus writes one, so it drops out of instant selectors at once.

Samples of the last hour are kept as fed; older ones are thinned to the first of each
5-minute slot (``COARSE_STEP``). Windows longer than an hour (the 24 h sector and media
windows) therefore see one sample per 5 minutes of their older part: ``min_over_time`` and
``max_over_time`` can miss an excursion shorter than 5 minutes that is more than an hour old,
and ``increase`` over them is exact where the counter holds still and may differ by the
extrapolation of a 5-minute step where it moves.

Memory budget: each kept sample costs 16 bytes (two C doubles), each series about 600 bytes
beside them (labels, two arrays). Series fed the same samples share one pair of arrays (most
of a host's hold still: error counts at 0, states), so a past is held once, however many
series have had it. ``MEMORY_BUDGET`` (64 MiB) holds the history of a host of 1,000 disks in
10 pools for its longest window, fed every minute with every series moving, or as the status
page feeds it (every 10 s) with its counters still (RELIABILITY.md; tests feed such hosts and
measure them).

A record read over a range (the slowdown's usual: the median of a day of 5-minute p99s) is kept
as recorded at each evaluation step, one sample a step, never thinned; of what it reads the
store keeps only what the steps not recorded yet need, not a day of latency histograms.

A fresh start knows nothing before its first feed: ``unseen`` says, for each declaration, how
much of its longest window the store has not seen yet, data a caller can show ("cannot say yet
whether the disk's sectors rose in the last 24 h: 23 h 10 min not seen").
"""

from __future__ import annotations

import math
import struct
import sys
from array import array
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from zmon.exposition.metrics import each_sample
from zmon.health.expr import NAME, STALE_BITS, Context, Labels, Record, is_stale, labels_of

FINE = 3600.0  # seconds of samples kept as fed
COARSE_STEP = 300.0  # older samples: the first of each slot of this many seconds
MEMORY_BUDGET = 64 * 1024 * 1024  # bytes, for a host of 1,000 disks fed every 15 s
SERIES_OVERHEAD = 600  # bytes per series beside its samples (estimate used by memory_bytes)
# Prometheus' staleness marker: a NaN with its own bit pattern, told apart from an ordinary NaN
STALE = struct.unpack("<d", struct.pack("<Q", STALE_BITS))[0]
DROPPED_LABELS = ("instance", "job")
NOTHING_THINNED = -math.inf  # (one float for every new series)


_NONE = array("d")  # the past of a series not fed yet (shared by all: never written)


class _Series:
    """One series' samples. ``times`` and ``values`` may be shared with other series that
    were fed the same samples (``owned`` False): those arrays are never written, a new
    sample gives the series new ones (``Store._extend``)."""

    __slots__ = ("times", "values", "thinned", "owned")

    def __init__(self) -> None:
        self.times = _NONE
        self.values = _NONE
        self.thinned = NOTHING_THINNED  # samples before this are already thinned
        self.owned = False  # True: no other series holds these arrays (written in place)


class Store:
    """The selected series' recent samples. ``needs``: metric (sample) name -> seconds of
    past each must cover (``zmon.health.conditions.needs`` computes it), and of each of
    ``records`` (the records read over a range, ``zmon.health.expr.ranged_records``) the
    seconds of its recorded samples to keep: each is recorded at every ``interval`` step once
    the feeds have passed it, as Prometheus' rule evaluation stores a record."""

    def __init__(
        self,
        needs: Mapping[str, float],
        records: Sequence[Record] = (),
        interval: float = 60.0,
        fine: float = FINE,
    ) -> None:
        self.needs = dict(needs)
        self.fine = fine  # seconds of samples kept as fed (a replay may keep all: math.inf)
        self.records = [r for r in records if r.name in self.needs]
        self.interval = interval
        self._series: dict[str, dict[Labels, _Series]] = {
            name: {} for name in needs if name not in {r.name for r in self.records}
        }
        self._recorded: dict[str, dict[Labels, _Series]] = {r.name: {} for r in self.records}
        self._recorded_until = -math.inf  # the last evaluation step recorded
        self.first: float | None = None  # time of the first feed
        self.last: float | None = None
        self._compacted = -math.inf
        # one tuple for each label pair the kept series have: a host's 25,000 series share
        # a few thousand (the pool, the device, the state), held once, not in every key
        self._pairs: dict[tuple[str, str], tuple[str, str]] = {}
        # the feed being taken: (arrays extended, sample) -> the arrays they became
        self._extended: dict[tuple[int, int, Any], _Extended] = {}
        self._extended_at: float | None = None

    def _shared(self, key: Labels) -> Labels:
        """``key`` made of the pairs the store holds already (a new series' key)."""
        pairs = self._pairs
        return tuple([pairs.setdefault(pair, pair) for pair in key])

    def add(self, families: Iterable[Any], at: float) -> None:
        """One scrape at time ``at``: every sample of the selected metrics in ``families``
        (prometheus_client metric families). Selected series absent from it go stale."""
        for family in families:
            for sample in each_sample(family):
                if sample.name in self._series:
                    key = self._key_of(sample.name, sample.labels)
                    self.append(sample.name, key, float(sample.value), at)
        # a series the scrape had was given a sample at ``at`` (or one it had later, dropped)
        for series in self._series.values():
            for s in series.values():
                if s.times and s.times[-1] < at and not is_stale(s.values[-1]):
                    self._extend(s, at, STALE)
        self._fed(at)

    def _key_of(self, name: str, labels: Mapping[str, str]) -> Labels:
        """A sample's series key (``labels_of`` its labels and name, without the dropped
        ones) made of the pairs the store holds: a scrape of 25,000 series leaves no new
        pairs behind, only those of the series new in it."""
        pairs = self._pairs
        kept = [
            pairs.setdefault(pair, pair)
            for pair in labels.items()
            if pair[1] != "" and pair[0] not in DROPPED_LABELS and pair[0] != NAME
        ]
        kept.append(pairs.setdefault((NAME, name), (NAME, name)))
        kept.sort()
        return tuple(kept)

    def add_sample(self, name: str, labels: Mapping[str, str], value: float, at: float) -> None:
        """One sample, without staleness for the others (tests, replays)."""
        if name in self._series:
            self.append(name, labels_of({**labels, "__name__": name}), value, at)
            self._fed(at)

    def append(self, name: str, key: Labels, value: float, at: float) -> None:
        """One sample of the series ``key`` (its sorted labels, the name included), for a
        feeder that keeps its label sets; ``add`` and ``add_sample`` come through here."""
        if name not in self._series:
            return
        s = self._series[name].get(key)
        if s is None:  # (``add`` gives a key of the pairs held; a replay keeps its own keys)
            s = self._series[name][key] = _Series()
        if s.times and at <= s.times[-1]:
            return  # out of order or repeated: Prometheus drops it too
        self._extend(s, at, value)

    def _extend(self, s: _Series, at: float, value: float) -> None:
        """``s`` with the sample (``at``, ``value``). Most of a host's series hold still (error
        counts at 0, states): those with the same past that get the same sample in a feed
        move to one new pair of arrays, so a past is held once, not once a series: on a big
        host fed often, that is most of the store's memory saved (``memory_bytes``)."""
        if s.owned:
            s.times.append(at)
            s.values.append(value)
            return
        if at != self._extended_at:  # a new feed: what the last one shared is settled
            self._extended, self._extended_at = {}, at
        sample = value if value or value != value else (value, math.copysign(1.0, value))
        key = (id(s.times), id(s.values), sample)
        done = self._extended.get(key)
        if done is not None and done.times is s.times and done.values is s.values:
            done.first.owned = False
            s.times, s.values, s.owned = done.new_times, done.new_values, False
            return
        times, values = array("d", s.times), array("d", s.values)
        times.append(at)
        values.append(value)
        self._extended[key] = _Extended(s.times, s.values, times, values, s)
        s.times, s.values, s.owned = times, values, True

    def _fed(self, at: float) -> None:
        self.first = at if self.first is None else min(self.first, at)
        self.last = at if self.last is None else max(self.last, at)
        if self.records:
            self._record(before=at)
        if at - self._compacted >= COARSE_STEP:
            self.compact(at)

    def _record(self, before: float) -> None:
        """Record the records at each evaluation step before ``before``, the time of a feed:
        a step is recorded once every sample up to it is in (feeds come in time order), with
        the data it had, as Prometheus' rule evaluation stores a record's value."""
        step = self.interval
        assert self.first is not None
        t = max(self._recorded_until + step, math.ceil(self.first / step) * step)
        while t < before:
            ctx = Context(self, interval=step)
            for record in self.records:
                kept = self._recorded[record.name]
                for key, value in ctx.record(record, t).items():
                    s = kept.get(key)
                    if s is None:
                        s = kept[self._shared(key)] = _Series()
                    self._extend(s, t, value)
            self._recorded_until = t
            t += step

    def recorded(
        self, name: str
    ) -> tuple[Iterator[tuple[Labels, Sequence[float], Sequence[float]]], float] | None:
        """A recorded record's samples and the last step recorded (None if not recorded)."""
        if name not in self._recorded:
            return None
        found = ((k, s.times, s.values) for k, s in self._recorded[name].items())
        return found, self._recorded_until

    def compact(self, now: float) -> None:
        """Forget what no window needs any more; thin samples older than ``FINE``."""
        self._compacted = now
        self._extended, self._extended_at = {}, None
        for name, series in self._series.items():
            keep = self.needs[name]
            compacted: dict[tuple[int, int, float], tuple[array[float], array[float]]] = {}
            for key in list(series):
                s = series[key]
                _compact(s, now - keep, now - self.fine, compacted)
                if s.times[-1] < now - keep:
                    del series[key]
        for name, series in self._recorded.items():  # one sample a step: never thinned
            keep = self.needs[name]
            for key in list(series):
                s = series[key]
                _compact(s, now - keep, -math.inf, {})
                if s.times[-1] < now - keep:
                    del series[key]
        held = (*self._series.values(), *self._recorded.values())
        self._pairs = {pair: pair for series in held for key in series for pair in key}

    def series(self, name: str) -> Iterator[tuple[Labels, Sequence[float], Sequence[float]]]:
        for key, s in self._series.get(name, {}).items():
            yield key, s.times, s.values

    def memory_bytes(self) -> int:
        """The store's size: its samples' arrays and the per-series estimate."""
        total = sys.getsizeof(self._series)
        counted: set[int] = set()
        for series in (*self._series.values(), *self._recorded.values()):
            for s in series.values():
                total += SERIES_OVERHEAD
                if id(s.times) not in counted:  # (arrays shared by series counted once)
                    counted.add(id(s.times))
                    total += s.times.buffer_info()[1] * 16
        return total

    def seen(self, now: float) -> float:
        """Seconds of past the store has seen at ``now`` (0 before the first feed)."""
        return 0.0 if self.first is None else max(0.0, now - self.first)


class _Extended:
    """Arrays a feed extended by one sample, and what they became (``Store._extend``): kept
    until the feed ends, so that an id in its key is not reused meanwhile."""

    __slots__ = ("times", "values", "new_times", "new_values", "first")

    def __init__(
        self,
        times: array[float],
        values: array[float],
        new_times: array[float],
        new_values: array[float],
        first: _Series,
    ) -> None:
        self.times, self.values = times, values
        self.new_times, self.new_values = new_times, new_values
        self.first = first  # the series that made the new arrays (no longer their only one)


def _compact(
    s: _Series,
    forget_before: float,
    thin_before: float,
    done: dict[tuple[int, int, float], tuple[array[float], array[float]]],
) -> None:
    """Drop the samples before ``forget_before`` (the newest of them stays: a lookback may
    reach it) and thin those in [s.thinned, thin_before) to the first of each slot: in place
    if ``s`` owns its arrays, else into new ones that the series sharing them share too
    (``done``: the shared arrays compacted in this pass, and what they became)."""
    if not s.owned:
        key = (id(s.times), id(s.values), s.thinned)
        if key in done:
            s.times, s.values = done[key]
            s.thinned = max(s.thinned, thin_before)
            return
        drop = max(0, bisect_left(s.times, forget_before) - 1)
        start, end = bisect_left(s.times, s.thinned), bisect_left(s.times, thin_before)
        if drop or end - start > 1:  # (else nothing changes: the arrays stay shared)
            s.times, s.values = array("d", s.times), array("d", s.values)
            _compact_owned(s, forget_before, thin_before)
            s.owned = False  # (shared with the others of ``done``)
        done[key] = (s.times, s.values)
        s.thinned = max(s.thinned, thin_before)
        return
    _compact_owned(s, forget_before, thin_before)


def _compact_owned(s: _Series, forget_before: float, thin_before: float) -> None:
    times, values = s.times, s.values
    drop = max(0, bisect_left(times, forget_before) - 1)
    if drop:
        del times[:drop]
        del values[:drop]
    start = bisect_left(times, s.thinned)
    end = bisect_left(times, thin_before)
    if end - start > 1:
        kept_t, kept_v = array("d"), array("d")
        last_slot = math.floor(times[start - 1] / COARSE_STEP) if start else None
        for i in range(start, end):
            slot = math.floor(times[i] / COARSE_STEP)
            if slot != last_slot or is_stale(values[i]):
                kept_t.append(times[i])
                kept_v.append(values[i])
                last_slot = slot
        times[start:end] = kept_t
        values[start:end] = kept_v
    s.thinned = max(s.thinned, thin_before)
