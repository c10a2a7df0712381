"""Kernel-log events -> counters per pattern and whole-disk device, and their exposition.

Used by both the ``kernel_log`` collector (a follower thread adds, ``collect`` snapshots) and
``zmon parse kernel-log`` (one pass over a capture), so both export the same series.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from zmon.base.durable import checked_count, checked_text, checked_time
from zmon.exposition.metrics import MetricSet
from zmon.host.devnames import looks_like_kernel_disk, whole_disk_name
from zmon.parsers.kernel_log import KernelEvent

Resolver = Callable[[str], "str | None"]
OTHER = "other"
_LINK_PART = re.compile(r"-part\d+$")  # by-id link of a partition: ata-WDC_...-part1


def name_only_resolver(name: str) -> str | None:
    """Resolve from the name alone (no host lookups): kernel disk names and their partitions."""
    base = name.rsplit("/", 1)[-1]
    if name.startswith("/") and not name.startswith("/dev/"):
        return None
    return whole_disk_name(base) if looks_like_kernel_disk(base) else None


def literal_device(name: str) -> str:
    """The label for a name nothing resolved: as printed, basename of a path, partition dropped."""
    base = name.strip().rsplit("/", 1)[-1]
    return whole_disk_name(_LINK_PART.sub("", base))


@dataclass(frozen=True)
class TallySnapshot:
    """A consistent copy of the counters, for one exposition."""

    events: dict[tuple[str, str], int]
    last_seen: dict[tuple[str, str], float]
    pool_events: dict[tuple[str, str], int]
    lines: dict[str, int]
    read_errors: dict[str, int]
    following: dict[str, bool]
    lost: dict[str, int] = field(default_factory=dict)
    capped: dict[str, int] = field(default_factory=dict)  # "device"/"pool" -> events


@dataclass
class Tally:
    """Thread-safe counters; attributes every event to a whole-disk device with ``resolver``.

    Names the resolver does not know keep the kernel's spelling (partition suffix dropped);
    beyond ``max_unresolved`` distinct such names (and as many pools) they count as ``other``.
    """

    resolver: Resolver = name_only_resolver
    max_unresolved: int = 32
    _events: dict[tuple[str, str], int] = field(default_factory=dict)
    _last: dict[tuple[str, str], float] = field(default_factory=dict)
    _pools: dict[tuple[str, str], int] = field(default_factory=dict)
    _lines: dict[str, int] = field(default_factory=dict)
    _errors: dict[str, int] = field(default_factory=dict)
    _lost: dict[str, int] = field(default_factory=dict)
    _following: dict[str, bool] = field(default_factory=dict)
    _unresolved: set[str] = field(default_factory=set)
    _pool_names: set[str] = field(default_factory=set)
    _capped: dict[str, int] = field(default_factory=lambda: {"device": 0, "pool": 0})
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, event: KernelEvent, seen_at: float | None = None) -> str:
        """Count one event; returns the device label it was attributed to."""
        device = self.attribute(event)
        key = (event.pattern, device)
        stamp = event.timestamp if event.timestamp is not None else seen_at
        with self._lock:
            self._events[key] = self._events.get(key, 0) + 1
            if stamp is not None and stamp > self._last.get(key, float("-inf")):
                self._last[key] = stamp
            if event.pool:
                pkey = (event.pattern, self._cap(self._pool_names, event.pool, "pool"))
                self._pools[pkey] = self._pools.get(pkey, 0) + 1
        return device

    def add_all(self, events: Iterable[KernelEvent], seen_at: float | None = None) -> None:
        for event in events:
            self.add(event, seen_at)

    def add_lines(self, source: str, count: int) -> None:
        with self._lock:
            self._lines[source] = self._lines.get(source, 0) + count

    def add_read_error(self, source: str, count: int = 1) -> None:
        with self._lock:
            self._errors[source] = self._errors.get(source, 0) + count

    def add_lost(self, source: str, count: int) -> None:
        """Lines that could not be read (rotated away or truncated before a read)."""
        with self._lock:
            self._lost[source] = self._lost.get(source, 0) + count

    def set_following(self, source: str, following: bool) -> None:
        with self._lock:
            self._following[source] = following
            self._lines.setdefault(source, 0)
            self._errors.setdefault(source, 0)
            self._lost.setdefault(source, 0)

    def attribute(self, event: KernelEvent) -> str:
        """Whole-disk name for the event: device, then path, then controller; '' if none."""
        names = [n for n in (event.device, event.path, event.controller) if n]
        for name in names:
            resolved = self._resolve(name)
            if resolved:
                return resolved
        if not names:
            return ""
        with self._lock:
            return self._cap(self._unresolved, literal_device(names[0]), "device")

    def _resolve(self, name: str) -> str | None:
        try:
            return self.resolver(name) or None
        except Exception:  # noqa: BLE001 - a broken device map must not stop counting
            return None

    def _cap(self, seen: set[str], name: str, label: str) -> str:
        if name in seen:
            return name
        if len(seen) >= self.max_unresolved:
            self._capped[label] += 1
            return OTHER
        seen.add(name)
        return name

    def export(self) -> dict[str, Any]:
        """The counts as plain JSON data, for a checkpoint (``restore`` reads it back)."""
        with self._lock:
            return {
                "events": [
                    [p, d, n, self._last.get((p, d))] for (p, d), n in sorted(self._events.items())
                ],
                "pool_events": [[p, pool, n] for (p, pool), n in sorted(self._pools.items())],
                "lines": dict(sorted(self._lines.items())),
                "read_errors": dict(sorted(self._errors.items())),
                "lost": dict(sorted(self._lost.items())),
                "capped": dict(self._capped),
                "unresolved": sorted(self._unresolved),
                "pools": sorted(self._pool_names),
            }

    def restore(self, data: dict[str, Any], sources: Iterable[str]) -> None:
        """Continue from exported counts; per-source counts only for ``sources`` (those
        followed now). Raises ValueError (TypeError) on data of the wrong shape, leaving
        the tally as it was."""
        events: dict[tuple[str, str], int] = {}
        last: dict[tuple[str, str], float] = {}
        for pattern, device, n, stamp in data["events"]:
            key = (checked_text(pattern), checked_text(device))
            events[key] = checked_count(n)
            if stamp is not None:
                last[key] = checked_time(stamp)
        pools = {
            (checked_text(p), checked_text(pool)): checked_count(n)
            for p, pool, n in data["pool_events"]
        }
        keep = set(sources)
        per_source = {
            name: {checked_text(k): checked_count(v) for k, v in data[name].items() if k in keep}
            for name in ("lines", "read_errors", "lost")
        }
        capped = {
            label: checked_count(data["capped"].get(label, 0)) for label in ("device", "pool")
        }
        unresolved = {checked_text(x) for x in data["unresolved"]}
        pool_names = {checked_text(x) for x in data["pools"]}
        with self._lock:
            self._events, self._last, self._pools = events, last, pools
            self._lines, self._errors = per_source["lines"], per_source["read_errors"]
            self._lost, self._capped = per_source["lost"], capped
            self._unresolved, self._pool_names = unresolved, pool_names

    def snapshot(self) -> TallySnapshot:
        with self._lock:
            return TallySnapshot(
                dict(self._events),
                dict(self._last),
                dict(self._pools),
                dict(self._lines),
                dict(self._errors),
                dict(self._following),
                dict(self._lost),
                dict(self._capped),
            )


_H_EVENTS = (
    "Kernel log lines matching a disk or ZFS fault pattern (source: /dev/kmsg, journal or "
    "kernel log file; kept across restarts in the state directory)"
)
_H_LAST = (
    "Unix time of the last matching line: when zmon read it, or the line's own time "
    "when it carries an absolute one (zmon parse)"
)
_H_POOL = "Kernel log lines matching a fault pattern that name a ZFS pool, by pool"
_H_LINES = "Kernel log lines read (kept across restarts in the state directory)"
_H_ERRORS = "Errors reading the kernel log source (open/read failures, lost kmsg records)"
_H_LOST = (
    "Kernel log lines that could not be read: a partial line whose file was rotated or "
    "truncated, a compressed copy cut short (at least one line each, logged with the files); "
    "a file zmon was reading that is gone counts as a read error (its size is unknown)"
)
_H_CAPPED = (
    "Kernel log events whose unresolved device name (label=device) or pool (label=pool) was "
    "counted as 'other' because max_unresolved_devices distinct names were seen"
)
_H_FOLLOW = "1 while the kernel log source is open and followed, 0 while it is missing"


# Patterns the shipped alert rules count with increase(). Their counters start at 0 for every
# known disk (pool), so that a rule sees the first burst as a rise from 0: a series that only
# appears with its first event starts at that count, and increase() over it is 0. Kept to the
# patterns the rules use, per platform, to bound the series: 5 per disk on Linux.
ALERTED_PATTERNS = {
    "linux": ("ata_timeout", "crc_error", "link_down", "link_reset", "medium_error"),
    "freebsd": ("ahci_timeout", "ata_timeout", "cam_timeout", "crc_error", "medium_error"),
}
ALERTED_POOL_PATTERNS = ("pool_suspended",)


def zero_series(
    snap: TallySnapshot,
    patterns: Iterable[str],
    devices: Iterable[str],
    pools: Iterable[str] = (),
) -> TallySnapshot:
    """``snap`` with a 0 count for each pattern x known device (and pool pattern x pool)
    that has none yet."""
    events = dict(snap.events)
    pattern_list = list(patterns)
    for device in devices:
        for pattern in pattern_list:
            events.setdefault((pattern, device), 0)
    pool_events = dict(snap.pool_events)
    for pool in pools:
        for pattern in ALERTED_POOL_PATTERNS:
            pool_events.setdefault((pattern, pool), 0)
    return replace(snap, events=events, pool_events=pool_events)


def kernel_log_metrics(snap: TallySnapshot) -> MetricSet:
    """The kernel-log metric families from a tally snapshot."""
    ms = MetricSet()
    # one compact row per pattern: with 1,000 disks the counters at 0 alone are 5,000 series
    by_pattern: dict[str, tuple[list[str], list[float]]] = {}
    for (pattern, device), n in sorted(snap.events.items()):
        devices, counts = by_pattern.setdefault(pattern, ([], []))
        devices.append(device)
        counts.append(n)
    for pattern, (devices, counts) in by_pattern.items():
        ms.counter_row(
            "zmon_kernel_log_events_total",
            _H_EVENTS,
            {"pattern": pattern},
            "device",
            devices,
            counts,
        )
    for (pattern, device), ts in sorted(snap.last_seen.items()):
        labels = {"pattern": pattern, "device": device}
        ms.gauge("zmon_kernel_log_last_event_timestamp_seconds", _H_LAST, ts, labels)
    for (pattern, pool), n in sorted(snap.pool_events.items()):
        labels = {"pattern": pattern, "pool": pool}
        ms.counter("zmon_kernel_log_pool_events_total", _H_POOL, n, labels)
    for source, n in sorted(snap.lines.items()):
        ms.counter("zmon_kernel_log_lines_read_total", _H_LINES, n, {"source": source})
    for source, n in sorted(snap.read_errors.items()):
        ms.counter("zmon_kernel_log_read_errors_total", _H_ERRORS, n, {"source": source})
    for source, n in sorted(snap.lost.items()):
        ms.counter("zmon_kernel_log_lines_lost_total", _H_LOST, n, {"source": source})
    for source, up in sorted(snap.following.items()):
        ms.gauge("zmon_kernel_log_following", _H_FOLLOW, 1.0 if up else 0.0, {"source": source})
    for label in ("device", "pool"):
        n = snap.capped.get(label, 0)
        ms.counter("zmon_kernel_log_capped_events_total", _H_CAPPED, n, {"label": label})
    return ms
