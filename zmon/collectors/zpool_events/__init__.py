"""ZFS events: a ``zpool events -f -H -v`` follower that counts events by pool, vdev, class.

Counters survive ``zpool clear`` and restarts. When the follower restarts, ``zpool events -f``
replays the kernel's whole buffer; like ZED, zmon resumes after the last event it counted,
identified by its eid and time, so nothing is counted twice. The cursor is kept in
``<state_dir>/zpool_events.json`` together with the counts up to it, so that a restarted zmon
goes on from those counts and counts exactly the events it missed while it was down. A
collection serves the counts it has just written there: a counter Prometheus has seen is never
above what a restart continues from. See ``EventCounter.offer`` for the rule.
"""

from __future__ import annotations

import itertools
import re
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from zmon.base import durable, logs
from zmon.base.runner import CommandError
from zmon.collecting.products import VDEV_NAMES
from zmon.collecting.registry import (
    Collector,
    Context,
    NoDataError,
    Option,
    Product,
    register,
    register_parse_kind,
)
from zmon.exposition.metrics import MetricSet
from zmon.host.devnames import whole_disk_name, zfs_whole_disk
from zmon.host.follow import ProcessFollower
from zmon.parsers.zpool.zpool_events import EventStreamParser, ZfsEvent, parse_zpool_events

_log = logs.get("zpool_events")
STATE_FILE = "zpool_events.json"
_SRC = "zpool events"


@dataclass(frozen=True)
class Cursor:
    """The last counted event: its eid and its time in ns (None when it had no time)."""

    eid: int
    time_ns: int | None


@dataclass(frozen=True)
class SavedCounts:
    """What the state file holds: the resume cursor and the counts of every event up to it."""

    cursor: Cursor | None
    counts: dict[tuple[str, str, str], int] = field(default_factory=dict)
    last_timestamp: dict[str, float] = field(default_factory=dict)
    dropped: int = 0


class EventCounter:
    """Event counts by (pool, vdev, class), skipping events already counted (thread-safe)."""

    def __init__(self, cursor: Cursor | None = None) -> None:
        self._lock = threading.Lock()
        self.cursor = cursor
        self.counts: dict[tuple[str, str, str], int] = {}
        self.last_timestamp: dict[str, float] = {}
        self.dropped = 0
        self.skipped = 0
        self._reloaded = False

    def begin_stream(self) -> None:
        """A new ``zpool events`` process starts: its output begins with the replayed buffer."""
        with self._lock:
            self._reloaded = False

    def _is_new(self, eid: int | None, t: int | None) -> bool:
        c = self.cursor
        if eid is None or c is None or self._reloaded:
            return True
        if eid > c.eid:
            return True
        if eid == c.eid:
            if t == c.time_ns:
                return False  # the resume point itself
            self._reloaded = True  # same eid, another event: the module was reloaded
            return True
        if t is not None and c.time_ns is not None and t > c.time_ns:
            self._reloaded = True  # lower eid but newer: eids restarted after a reload
            return True
        return False

    def offer(self, ev: ZfsEvent) -> bool:
        """Count ``ev`` unless it is at or before the cursor; return whether it counted.

        Rule (ZED's, made stream-friendly): an event is new if its eid is above the cursor's;
        an event with the cursor's eid and time is the resume point; any other event with an
        eid at or below the cursor's is new only if it is newer in time, or if a reload was
        seen earlier in this stream (eids restart at 1 after the zfs module is reloaded).
        """
        eid, t = ev.eid, ev.time_ns
        with self._lock:
            if not self._is_new(eid, t):
                self.skipped += 1
                return False
            key = (ev.pool, ev.vdev, ev.short_class)
            self.counts[key] = self.counts.get(key, 0) + 1
            ts = ev.timestamp
            if ts is not None:
                cls = ev.short_class
                self.last_timestamp[cls] = max(ts, self.last_timestamp.get(cls, 0.0))
            if eid is not None:
                self.cursor = Cursor(eid, t)
            return True

    def add_dropped(self, n: int) -> None:
        with self._lock:
            self.dropped += n

    def snapshot(self) -> tuple[dict[tuple[str, str, str], int], dict[str, float], int]:
        with self._lock:
            return dict(self.counts), dict(self.last_timestamp), self.dropped

    def saved(self) -> SavedCounts:
        """The cursor and the counts up to it, taken together."""
        with self._lock:
            return SavedCounts(
                self.cursor, dict(self.counts), dict(self.last_timestamp), self.dropped
            )

    def restore(self, saved: SavedCounts) -> None:
        """Go on from saved counts (at start, before the follower runs)."""
        with self._lock:
            self.cursor = saved.cursor
            self.counts = dict(saved.counts)
            self.last_timestamp = dict(saved.last_timestamp)
            self.dropped = saved.dropped


# Event classes the shipped alert rules count with increase(). Their counters start at 0 for
# every vdev zpool status names (and the pool itself, vdev=""), so that the first burst is a
# rise from 0: a series that appears with its first event starts at that count, and increase()
# over it is 0. Kept to these classes to bound the series: 4 per vdev.
ALERTED_CLASSES = ("checksum", "data", "deadman", "io")
MAX_WHOLE_DISKS = 4096  # partition names remembered as their disk's (a few per disk)


def with_zero_counts(
    counts: Mapping[tuple[str, str, str], int], names: Mapping[str, Iterable[str]]
) -> dict[tuple[str, str, str], int]:
    """``counts`` plus a 0 for each alerted class x known vdev (and pool) not counted yet."""
    out = dict(counts)
    for pool, vdevs in names.items():
        for vdev in ("", *(v for v in vdevs if v != pool)):  # the root vdev is the pool
            for cls in ALERTED_CLASSES:
                out.setdefault((pool, vdev, cls), 0)
    return out


def event_metrics(
    counts: Mapping[tuple[str, str, str], int],
    last_timestamp: Mapping[str, float],
    dropped: int | None = None,
) -> MetricSet:
    """The event metrics, from counts by (pool, vdev, class)."""
    ms = MetricSet()
    # one compact row per vdev (4,500 series on a host of 1,100 vdevs, rendered every run)
    ordered = sorted(counts.items())
    for (pool, vdev), group in itertools.groupby(ordered, key=lambda item: item[0][:2]):
        row = list(group)
        ms.counter_row(
            "zmon_zfs_events_total",
            f"ZFS events seen, by pool, vdev and class ({_SRC}; kept across restarts in the "
            "state directory).",
            {"pool": pool, "vdev": vdev},
            "class",
            [key[2] for key, _ in row],
            [n for _, n in row],
        )
    for cls, ts in sorted(last_timestamp.items()):
        ms.gauge(
            "zmon_zfs_events_last_timestamp_seconds",
            f"Unix time of the newest event of each class ({_SRC}).",
            ts,
            {"class": cls},
        )
    if dropped is not None:
        ms.counter(
            "zmon_zfs_events_dropped_total",
            f"Events the kernel dropped before zmon read them ({_SRC} 'dropped N').",
            dropped,
        )
    return ms


def relabel_vdevs(
    counts: Mapping[tuple[str, str, str], int],
    names: Mapping[str, frozenset[str]],
    whole_disk: Callable[[str], str | None] | None = None,
) -> dict[tuple[str, str, str], int]:
    """Name each event's vdev as ``zpool status`` does.

    An event carries its leaf's device path: ``.../ata-X-part1`` or ``/dev/vdc1`` for a whole
    disk that ``zpool status`` shows as ``ata-X`` or ``vdc``. The label becomes the status
    name when the path's basename is not one of the pool's vdev names but its whole-disk
    name is; where the names are not known (zpool status has not answered yet), when
    ``whole_disk`` finds ZFS's whole-disk layout on the host (``zfs_whole_disk``), so one disk
    has one name from the first sample on. Otherwise it stays the basename, as the contract
    defines it.
    """
    out: dict[tuple[str, str, str], int] = {}
    for (pool, vdev, cls), n in counts.items():
        known = names.get(pool) or frozenset()
        if vdev and vdev not in known:
            whole = whole_disk_name(re.sub(r"-part\d+$", "", vdev))
            if whole in known:
                vdev = whole
            elif whole_disk is not None:
                vdev = whole_disk(vdev) or vdev
        out[(pool, vdev, cls)] = out.get((pool, vdev, cls), 0) + n
    return out


def count_events(events: Iterable[ZfsEvent], counter: EventCounter | None = None) -> EventCounter:
    counter = counter or EventCounter()
    for ev in events:
        counter.offer(ev)
    return counter


@register_parse_kind("zpool-events", "zpool events [-H] [-v] output: counts by pool/vdev/class")
def parse_zpool_events_kind(data: bytes) -> MetricSet:
    capture = parse_zpool_events(data)
    counts, last, _ = count_events(capture.events).snapshot()
    ms = event_metrics(counts, last, capture.dropped)
    ms.gauge(
        "zmon_zfs_events_parse_complete",
        "1 when the capture holds whole records only; 0 when it starts or ends inside a "
        "record (zmon parse zpool-events).",
        1 if capture.complete else 0,
    )
    return ms


class CursorStore:
    """The resume cursor and the counts up to it on disk (JSON, written atomically); errors
    are logged, not raised.

    Files of earlier versions hold the cursor alone (``{"eid", "time_ns"}``): their counts
    start at 0.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._saved: SavedCounts | None = None
        self._warned = False
        self._lock = threading.Lock()

    def load(self) -> SavedCounts | None:
        try:
            data = durable.read_json(self.path)
            if data is None:
                return None
            eid, time_ns = data["eid"], data.get("time_ns")
            cursor = None if eid is None else Cursor(int(eid), _opt_int(time_ns))
        except (durable.UnusableState, ValueError, KeyError, TypeError, OverflowError) as exc:
            _log.warning("ignoring unreadable event cursor", path=str(self.path), error=str(exc))
            return None
        try:
            saved = SavedCounts(
                cursor,
                {_event_key(k): durable.checked_count(n) for *k, n in data.get("counts", [])},
                {
                    durable.checked_text(c): durable.checked_time(t)
                    for c, t in data.get("last_timestamp", {}).items()
                },
                durable.checked_count(data.get("dropped", 0)),
            )
        except (ValueError, TypeError, AttributeError) as exc:
            _log.warning(
                "ignoring the saved event counts: counting starts again from 0",
                path=str(self.path),
                error=str(exc),
            )
            saved = SavedCounts(cursor)
        self._saved = saved
        return saved

    def save(self, saved: SavedCounts) -> bool:
        """Write ``saved`` if it changed since the last write; True when it is on disk
        (thread-safe)."""
        with self._lock:
            if saved == self._saved:
                return True
            if saved.cursor is None and not saved.counts and not saved.dropped:
                return True  # nothing counted yet: nothing to keep
            doc = {
                "eid": saved.cursor.eid if saved.cursor else None,
                "time_ns": saved.cursor.time_ns if saved.cursor else None,
                "counts": [[*key, n] for key, n in sorted(saved.counts.items())],
                "last_timestamp": dict(sorted(saved.last_timestamp.items())),
                "dropped": saved.dropped,
            }
            try:
                durable.write_json(self.path, doc)
            except OSError as exc:
                if not self._warned:
                    _log.warning(
                        "cannot save event counts; serving counts a restart may not continue from",
                        path=str(self.path),
                        error=str(exc),
                    )
                    self._warned = True
                return False
            self._saved = saved
            self._warned = False
            return True


def _event_key(key: list[object]) -> tuple[str, str, str]:
    pool, vdev, cls = key
    return durable.checked_text(pool), durable.checked_text(vdev), durable.checked_text(cls)


def _opt_int(value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"expected an integer, got {value!r}")
    return value


class EventPipeline:
    """Glue between a follower's lines, the stream parser, the counter and the cursor file."""

    def __init__(
        self,
        counter: EventCounter,
        store: CursorStore | None,
        save_every: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.counter = counter
        self.store = store
        self.save_every = save_every
        self._clock = clock
        self._parser = EventStreamParser()
        self._last_save = 0.0

    def on_start(self) -> None:
        self._parser = EventStreamParser()
        self.counter.begin_stream()

    def on_line(self, line: str) -> None:
        before = self._parser.dropped
        for ev in self._parser.feed(line):
            self.counter.offer(ev)
        if self._parser.dropped != before:
            self.counter.add_dropped(self._parser.dropped - before)
        now = self._clock()
        if now - self._last_save >= self.save_every:
            self._last_save = now
            self.save()

    def on_exit(self) -> None:
        """The process ended: a half-printed event is dropped (it will be replayed)."""
        self._parser = EventStreamParser()
        self.save()

    def save(self) -> SavedCounts | None:
        """Write the cursor with the counts up to it; what was written, or None when nothing
        could be (no store, or the write failed)."""
        if self.store is None:
            return None
        saved = self.counter.saved()
        return saved if self.store.save(saved) else None


@register
class ZpoolEventsCollector(Collector):
    """Counts ZFS events (checksum, io, statechange, scrub_finish ...) from a live follower."""

    name: ClassVar[str] = "zpool_events"
    binaries: ClassVar[tuple[str, ...]] = ("zpool",)
    needs: ClassVar[tuple[Product[Any], ...]] = (VDEV_NAMES,)
    help: ClassVar[str] = "ZFS event counts by pool, vdev and class (zpool events -f -H -v)."
    default_interval: ClassVar[float] = 15.0
    default_timeout: ClassVar[float] = 5.0
    options: ClassVar[tuple[Option, ...]] = (
        Option("backoff_max", float, 60.0,
               "Longest wait, in seconds, before restarting an exited zpool events follower."),
        Option("startup_wait", float, 2.0, "On the first collection only, wait up to this many "
               "seconds for the replayed event buffer to be read."),
    )  # fmt: skip

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.store = CursorStore(ctx.paths.state_dir / STATE_FILE)
        self.counter = EventCounter()
        # A one-shot run reads the saved cursor but never moves it.
        self.pipeline = EventPipeline(self.counter, None if ctx.one_shot else self.store)
        self.follower: ProcessFollower | None = None
        self._first_collect = True
        self._whole_disks: dict[str, str] = {}  # partition name -> its disk's status name

    def whole_disk(self, name: str) -> str | None:
        """The status name of the whole disk whose ZFS partition ``name`` is (remembered, so
        it stays once the disk is gone), or None."""
        found = self._whole_disks.get(name)
        if found is None:
            found = zfs_whole_disk(name, self.ctx.paths)
            if found is not None and len(self._whole_disks) < MAX_WHOLE_DISKS:
                self._whole_disks[name] = found
        return found

    def start(self) -> None:
        if self.follower is not None:
            return
        saved = self.store.load()
        if saved is not None:
            self.counter.restore(saved)
        argv = [self.ctx.runner.binary("zpool"), "events", "-f", "-H", "-v"]
        backoff_max = float(self.option("backoff_max"))
        self.follower = ProcessFollower(
            argv,
            on_line=self.pipeline.on_line,
            on_start=self.pipeline.on_start,
            on_exit=self.pipeline.on_exit,
            backoff_initial=min(1.0, backoff_max),
            backoff_max=backoff_max,
            name="zpool-events",
        )
        self.follower.start()

    def close(self) -> None:
        if self.follower is not None:
            self.follower.stop()
            self.follower = None
        self.pipeline.save()

    def collect(self) -> MetricSet:
        if self.follower is None:
            self.start()
        follower = self.follower
        assert follower is not None
        if self._first_collect:
            self._first_collect = False
            follower.wait_idle(float(self.option("startup_wait")))
        if follower.binary_missing:
            raise NoDataError(f"cannot run {follower.argv[0]}")
        if follower.start_error is not None and not follower.up:
            raise CommandError(
                f"cannot run {follower.argv[0]}: "
                f"{follower.start_error.strerror or follower.start_error}",
                errno=follower.start_error.errno,
            )
        # serve what is written (a quiet stream after a burst gets its cursor written here)
        saved = self.pipeline.save()
        if saved is not None:
            counts, last, dropped = saved.counts, saved.last_timestamp, saved.dropped
        else:
            counts, last, dropped = self.counter.snapshot()
        names = self.ctx.product(VDEV_NAMES) or {}
        counts = with_zero_counts(relabel_vdevs(counts, names, self.whole_disk), names)
        ms = event_metrics(counts, last, dropped)
        ms.gauge(
            "zmon_zfs_events_follower_up",
            "1 while the zpool events -f follower process is running.",
            1 if follower.up else 0,
        )
        ms.counter(
            "zmon_zfs_events_follower_restarts_total",
            "Times the zpool events follower was restarted after it exited.",
            follower.restarts,
        )
        return ms
