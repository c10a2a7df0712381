"""The last hour of a few numbers, kept in memory for the status page's charts and for the
diagnoses that need a trend (a resilver that stopped, errors that are new).

The ring is bounded twice: by age (``window`` seconds) and by count (``max_points``); a
sample is taken at most every ``step`` seconds however often the snapshot is re-rendered.
"""

from __future__ import annotations

import sys
import threading
from array import array
from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from zmon.status.model import HostModel
from zmon.status.ratios import STATUS_FIELDS, history_key

Point = tuple[float, Mapping[str, float]]


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
    if model.arc is not None:
        for field in STATUS_FIELDS:  # the counters of the ratios status shows
            out[history_key(field)] = getattr(model.arc, field)
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
    for name, phy in model.sas_phys.items():  # one number per HBA and expander PHY
        out[f"sas_phy:{name}"] = phy.link_errors
    return out


@dataclass(frozen=True)
class Window:
    """A read-only view of the ring: the points of the last ``window`` seconds."""

    points: tuple[Point, ...] = ()

    @property
    def span(self) -> float:
        return self.points[-1][0] - self.points[0][0] if len(self.points) > 1 else 0.0

    def series(self, key: str) -> list[tuple[float, float]]:
        return [(t, values[key]) for t, values in self.points if key in values]

    def change(
        self, key: str, since: float | None = None, until: float | None = None
    ) -> tuple[float, float] | None:
        """(increase, seconds covered) of a counter-like series, from ``since`` (or the
        oldest point) to ``until`` (or the newest); None with fewer than two points. A drop
        (restart) counts from the value after it."""
        pts = [
            (t, v)
            for t, v in self.series(key)
            if (since is None or t >= since) and (until is None or t <= until)
        ]
        if len(pts) < 2:
            return None
        total = 0.0
        for (_, a), (_, b) in zip(pts, pts[1:], strict=False):
            total += b - a if b >= a else b
        return total, pts[-1][0] - pts[0][0]

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

    def __init__(self, window: float = 3600.0, step: float = 10.0, max_points: int = 400) -> None:
        self.window = window
        self.step = step
        self._points: deque[Point] = deque(maxlen=max_points)
        self._lock = threading.Lock()
        self._keys: tuple[str, ...] = ()
        self._index: dict[str, int] = {}

    def observe(self, now: float, model: HostModel) -> bool:
        """Keep a sample of ``model`` taken at ``now``; False when one is too recent."""
        return self.add(now, series_of(model))

    def add(self, now: float, values: dict[str, float]) -> bool:
        with self._lock:
            if self._points and now - self._points[-1][0] < self.step:
                return False
            # keys repeat in every sample: one index of them while they stay the same
            keys = tuple(values)
            if keys != self._keys:
                self._keys = keys
                self._index = {sys.intern(k): i for i, k in enumerate(keys)}
            self._points.append((now, Values(self._index, array("d", values.values()))))
            while self._points and now - self._points[0][0] > self.window:
                self._points.popleft()
            return True

    def due(self, now: float) -> bool:
        with self._lock:
            return not self._points or now - self._points[-1][0] >= self.step

    def view(self) -> Window:
        with self._lock:
            return Window(tuple(self._points))

    def __len__(self) -> int:
        return len(self._points)


def window_of(points: Iterable[Point]) -> Window:
    return Window(tuple(points))
