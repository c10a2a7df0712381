"""The last hour of a few numbers, kept in memory for the status page's charts and for the
diagnoses that need a trend (a resilver that stopped, errors that are new, a state that lasts).

The ring is bounded twice: by age (``window`` seconds) and by count (``max_points``); a
sample is taken at most every ``step`` seconds however often the snapshot is re-rendered. It
keeps a little over an hour, so a condition that must last an hour (an alert's ``for: 1h``)
can be seen to have lasted it. Per sample it keeps one number per error counter of each vdev
(read+write, checksum, slow I/Os) and a few per disk, pool, UPS and the ARC: on a host of
1,000 disks about 6,000 numbers, 48 kB a sample, 18 MB for the ring.

A day of a few slow numbers (a disk's reallocated sectors, grown defects, NVMe media errors:
what the disk alerts compare over 24 h) is kept apart, as the values at which each changed
(at most ``MAX_DAY_STEPS`` a series, oldest dropped first): a few entries a disk.

What a fresh start cannot know: nothing before zmon's first sample. A rise or a lasting state
that began before it is not seen until the history covers the alert's window.
"""

from __future__ import annotations

import sys
import threading
from array import array
from bisect import bisect_left, bisect_right
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property

from zmon.health.integrity import ERROR_EVENT_CLASSES
from zmon.health.ratios import STATUS_FIELDS, history_key
from zmon.status.model import LINK_PATTERNS, HostModel, Pool, Vdev
from zmon.status.slowdown import DIRTY_WAITS, slowdown_series

Point = tuple[float, Mapping[str, float]]
Step = tuple[float, float]  # (time, the value it changed to)
HOUR = 3600.0
DAY = 86400.0
MAX_DAY_STEPS = 32  # changes kept per day series


class Values(Mapping[str, float]):
    """One sample's numbers: the keys shared with the samples before it, the numbers in an
    array of doubles. A host with 1,000 disks keeps two numbers a disk: as a dict of floats
    that would be 105 kB a sample, 40 MB for the hour's ring; an array is 8 bytes a number."""

    __slots__ = ("_index", "_values")

    def __init__(self, index: Mapping[str, int], values: array[float]) -> None:
        self._index = index
        self._values = values

    def __getitem__(self, key: str) -> float:
        return self._values[self._index[key]]

    def __contains__(self, key: object) -> bool:
        return key in self._index

    def __iter__(self) -> Iterator[str]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)


def series_of(model: HostModel) -> dict[str, float]:
    """The numbers kept per sample, by series key (``kind:subject``)."""
    out: dict[str, float] = {}
    for pool in model.pools:
        if pool.scan is not None and pool.scan.running:
            if pool.scan.issued is not None:
                out[f"scan_issued:{pool.name}"] = pool.scan.issued
            if pool.scan.progress is not None:
                out[f"scan_progress:{pool.name}"] = pool.scan.progress
        out[f"pool_errors:{pool.name}"] = sum(v.errors for v in pool.vdevs())
        out.update(slowdown_series(pool))
        out[f"pool_online:{pool.name}"] = float(pool.state == "online")
        if pool.scan is not None and pool.scan.running and pool.scan.to_issue is not None:
            out[f"scan_to_issue:{pool.name}"] = pool.scan.to_issue
        for v in pool.vdevs():  # a name twice (a spare in use): its larger counts
            for kind, n in (
                ("rw", v.read_errors + v.write_errors),
                ("cksum", v.checksum_errors),
                ("slow", v.slow_ios),
            ):
                key = vdev_key(kind, pool, v)
                out[key] = max(n, out.get(key, 0.0))
    if model.dirty_waits is not None:
        out[DIRTY_WAITS] = model.dirty_waits
    for (pool_name, vdev, klass), n in model.event_counts.items():
        kind = "deadman" if klass == "deadman" else "error" if klass in ERROR_EVENT_CLASSES else ""
        if kind:
            key = f"events_{kind}:{pool_name}/{vdev}"
            out[key] = out.get(key, 0.0) + n
    if model.arc is not None:
        for name in STATUS_FIELDS:  # the counters of the ratios status shows
            out[history_key(name)] = getattr(model.arc, name)
        if model.arc.l2_io_errors is not None:
            out["arc_l2_io_errors"] = model.arc.l2_io_errors
        if model.arc.l2_checksum_errors is not None:
            out["arc_l2_checksum_errors"] = model.arc.l2_checksum_errors
    for name, disk in model.disks.items():
        # the same numbers the cable diagnosis prints as totals, so "N new" never exceeds them
        out[f"disk_crc:{name}"] = disk.crc_total
        out[f"disk_link:{name}"] = disk.link_events
        if disk.sas_link_errors is not None:
            out[f"disk_sas:{name}"] = disk.sas_link_errors
        if disk.sas_own_link_errors is not None:
            out[f"disk_sas_own:{name}"] = disk.sas_own_link_errors
        if disk.nvme_error_log is not None:
            out[f"disk_nvme_errlog:{name}"] = disk.nvme_error_log
        # the failing-path and medium-error alerts' own sums: any of them rising
        out[f"disk_cable:{name}"] = disk.crc_errors + disk.kernel_count(LINK_PATTERNS)
        out[f"disk_medium:{name}"] = disk.kernel.get("medium_error", 0.0)
        if disk.speed is not None and disk.max_speed is not None:
            out[f"disk_link_slow:{name}"] = float(
                0 < disk.speed < disk.max_speed and not disk.standby
            )
    for name, phy in model.sas_phys.items():  # one number per HBA and expander PHY
        out[f"sas_phy:{name}"] = phy.link_errors
    return out


def _within_day(steps: tuple[Step, ...], now: float) -> tuple[Step, ...]:
    """``steps`` without those a day old, but for the last of them: the value at the day's
    start."""
    first = 0
    while first + 1 < len(steps) and steps[first + 1][0] <= now - DAY:
        first += 1
    return steps[first:]


def vdev_key(kind: str, pool: Pool, v: Vdev) -> str:
    """The history key of a vdev's error counter: ``rw``, ``cksum`` or ``slow``."""
    return f"vdev_{kind}:{pool.name}/{v.name}"


def day_series_of(model: HostModel) -> dict[str, float]:
    """The slow numbers kept for a day (as their changes), by series key."""
    out: dict[str, float] = {}
    for name, disk in model.disks.items():
        out[f"disk_reallocated:{name}"] = disk.reallocated
        out[f"disk_grown_defects:{name}"] = disk.grown_defects
        out[f"disk_nvme_media:{name}"] = disk.nvme_media_errors
    return out


@dataclass(frozen=True)
class Window:
    """A read-only view of the ring: the points of the last ``window`` seconds."""

    points: tuple[Point, ...] = ()
    days: Mapping[str, tuple[Step, ...]] = field(default_factory=dict)

    @property
    def span(self) -> float:
        return self.points[-1][0] - self.points[0][0] if len(self.points) > 1 else 0.0

    def series(
        self, key: str, since: float | None = None, until: float | None = None
    ) -> list[tuple[float, float]]:
        """The samples of ``key``, those from ``since`` to ``until`` when given."""
        lo = 0 if since is None else bisect_left(self._times, since)
        hi = len(self.points) if until is None else bisect_right(self._times, until)
        return [(t, values[key]) for t, values in self.points[lo:hi] if key in values]

    @cached_property
    def _times(self) -> list[float]:
        return [t for t, _ in self.points]

    def change(
        self, key: str, since: float | None = None, until: float | None = None
    ) -> tuple[float, float] | None:
        """(increase, seconds covered) of a counter-like series, from ``since`` (or the
        oldest point) to ``until`` (or the newest); None with fewer than two points. A drop
        (restart) counts from the value after it."""
        pts = self.series(key, since, until)
        if len(pts) < 2:
            return None
        total = 0.0
        for (_, a), (_, b) in zip(pts, pts[1:], strict=False):
            total += b - a if b >= a else b
        return total, pts[-1][0] - pts[0][0]

    def held_for(self, test: Callable[[Mapping[str, float]], bool]) -> float:
        """How long ``test`` has held at every sample up to the newest (0 if it does not hold
        now): the age of the oldest sample of that unbroken run."""
        since = None
        for t, values in reversed(self.points):
            if not test(values):
                break
            since = t
        return self.points[-1][0] - since if since is not None else 0.0

    def day_rise(self, key: str, now: float, span: float) -> tuple[float, float] | None:
        """(rise above its lowest value, seconds known) of a day series over the ``span``
        seconds before ``now`` (Prometheus: ``x - min_over_time(x[span])``); None when the
        series is not kept. Seconds known are less than ``span`` when zmon's record of it
        started later."""
        steps = self._day_steps(key, now, span)
        if not steps:
            return None
        return steps[-1][1] - min(v for _, v in steps), now - max(steps[0][0], now - span)

    def day_increase(self, key: str, now: float, span: float) -> tuple[float, float] | None:
        """(increase, seconds known) of a day counter over ``span`` (a drop is a reset)."""
        steps = self._day_steps(key, now, span)
        if not steps:
            return None
        total = 0.0
        for (_, a), (_, b) in zip(steps, steps[1:], strict=False):
            total += b - a if b >= a else b
        return total, now - max(steps[0][0], now - span)

    def _day_steps(self, key: str, now: float, span: float) -> list[Step]:
        """The changes within the span, after the value it held at the span's start."""
        steps = self.days.get(key, ())
        start = now - span
        inside = [s for s in steps if s[0] > start]
        before = [s for s in steps if s[0] <= start]
        return before[-1:] + inside

    def kept_rising(self, key: str, now: float, window: float) -> float | None:
        """How much ``key`` rose in the last ``window`` seconds when it rose in each half of
        it (errors that keep coming, not one step at boot or a link reset); else None."""
        half = window / 2
        older = self.change(key, since=now - window, until=now - half)
        newer = self.change(key, since=now - half)
        if not older or not newer or older[0] <= 0 or newer[0] <= 0:
            return None
        whole = self.change(key, since=now - window)
        return whole[0] if whole else None

    def unchanged_for(self, key: str) -> float:
        """How long the newest value of ``key`` has stood still (0 if it just moved)."""
        pts = self.series(key)
        if not pts:
            return 0.0
        newest_t, newest_v = pts[-1]
        since = newest_t
        for t, v in reversed(pts):
            if v != newest_v:
                break
            since = t
        return newest_t - since


class History:
    """A bounded ring of samples; safe to feed from one thread and read from others."""

    def __init__(
        self, window: float = HOUR + 60.0, step: float = 10.0, max_points: int = 400
    ) -> None:
        self.window = window
        self.step = step
        self._points: deque[Point] = deque(maxlen=max_points)
        # (a tuple a series, replaced when it changes: most hold one or two steps, and 6,000
        # deques would cost 2.4 MB)
        self._days: dict[str, tuple[Step, ...]] = {}
        self._lock = threading.Lock()
        self._keys: tuple[str, ...] = ()
        self._index: dict[str, int] = {}

    def observe(self, now: float, model: HostModel) -> bool:
        """Keep a sample of ``model`` taken at ``now``; False when one is too recent."""
        return self.add(now, series_of(model), day_series_of(model))

    def add(
        self, now: float, values: dict[str, float], days: Mapping[str, float] | None = None
    ) -> bool:
        with self._lock:
            if self._points and now - self._points[-1][0] < self.step:
                return False
            if days is not None:
                self._add_days(now, days)
            # keys repeat in every sample: one index of them while they stay the same
            keys = tuple(values)
            if keys != self._keys:
                self._keys = keys
                self._index = {sys.intern(k): i for i, k in enumerate(keys)}
            self._points.append((now, Values(self._index, array("d", values.values()))))
            while self._points and now - self._points[0][0] > self.window:
                self._points.popleft()
            return True

    def _add_days(self, now: float, days: Mapping[str, float]) -> None:
        """Keep each day series' changes; a series the sample lacks is forgotten."""
        for key in [k for k in self._days if k not in days]:
            del self._days[key]
        for key, value in days.items():
            steps = self._days.get(key, ())
            if steps and steps[-1][1] == value:
                if len(steps) > 1 and steps[1][0] <= now - DAY:
                    self._days[key] = _within_day(steps, now)
                continue
            self._days[key] = _within_day((*steps[1 - MAX_DAY_STEPS :], (now, value)), now)

    def due(self, now: float) -> bool:
        with self._lock:
            return not self._points or now - self._points[-1][0] >= self.step

    def view(self) -> Window:
        with self._lock:
            return Window(tuple(self._points), dict(self._days))

    def __len__(self) -> int:
        return len(self._points)
