"""The snapshot: each collector's last good families, and the exposition served from them.

A collector's run publishes its families rendered and compressed once, in its own thread;
``rerender`` lists those pieces with zmon's own metrics, and the gzip exposition is joined
from them when ``/metrics`` first asks after a change. Nothing here waits on a collector.
In ``zmon serve`` the runs publish in the collection worker and the server's snapshot holds
copies of their states (zmon/runtime/supervisor.py); ``zmon collect`` does both in one process.

What a big host costs shaped this: a family's samples are kept only when the status views
read them (``kept_for_views``), a family's text is kept only compressed (a
``zmon.exposition.gzipjoin.Piece``, with a digest to tell a changed text), the plain exposition is
inflated from the gzip one only when a scraper asks for it, and nothing is joined while
nobody scrapes. The HTTP process holds the kept families as the channel decodes them, in
columns (``zmon.exposition.metrics.HeldFamily``), not as a ``Sample`` and a label dict per sample.
"""

from __future__ import annotations

import gzip
import hashlib
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from prometheus_client.core import Metric

from zmon import __version__
from zmon.base.logs import get
from zmon.exposition import gzipjoin
from zmon.exposition.formats import render
from zmon.exposition.metrics import MetricSet
from zmon.exposition.viewed import wanted

log = get("snapshot")

# Families the status views' prefixes take in (``zmon.exposition.viewed.wanted``) but never read:
# per-vdev and per-disk tables, most of a big host's samples (tests/core/test_snapshot_memory.py
# holds that the views read the same from what is kept as from everything).
NOT_READ_BY_VIEWS = (
    "zmon_vdev_queue_", "zmon_vdev_io_latency", "zmon_vdev_disk_latency",
    "zmon_vdev_operations", "zmon_vdev_lifetime_", "zmon_disk_smartctl_",
    "zmon_disk_smart_check", "zmon_disk_self_test", "zmon_disk_scsi_processed",
    "zmon_disk_power_", "zmon_disk_capacity",
)  # fmt: skip


def kept_for_views(name: str) -> bool:
    """Whether a family's samples are kept after rendering: the status views read them."""
    return wanted(name) and not name.startswith(NOT_READ_BY_VIEWS)


@dataclass(frozen=True)
class SummaryRow:
    """One line of a collector's landing-page table: a thing, its state, and whether it is ok."""

    thing: str
    state: str
    healthy: bool


Summary = Callable[[Sequence[Metric]], list[SummaryRow]]


@dataclass
class CollectorState:
    """What the snapshot knows about one collector."""

    name: str
    interval: float
    timeout: float
    # each family of the last good run: its name, a digest of its text exposition and that
    # text compressed (zmon.exposition.gzipjoin), made once per run; the text itself is not kept
    rendered: list[tuple[str, bytes, gzipjoin.Piece]] = field(default_factory=list)
    # the families whose samples the status views read (the others are kept compressed only)
    kept: list[Metric] = field(default_factory=list)
    success: bool | None = None
    has_data: bool = False
    last_duration: float = 0.0
    last_success: float = 0.0  # unix time
    last_error: str = ""
    running_since: float | None = None  # monotonic
    summary_title: str = ""  # the collector's landing-page table, if any
    summary: Summary | None = None
    runs: dict[str, int] = field(
        default_factory=lambda: {"success": 0, "failure": 0, "timeout": 0, "nodata": 0}
    )
    last_error_reason: str = ""  # one of zmon.base.failures.REASONS while the last run failed
    fd_exhausted: int = 0  # failed runs that ran out of file descriptors
    leaked_children: int = 0  # processes its runs left behind, killed (zmon.base.children.sweep)
    state_write_failures: int = 0  # state files it could not write (zmon.base.durable)
    state_writable: bool | None = None  # whether its last state write worked (None: none yet)
    # False while no collection process runs the collector (the worker is being restarted):
    # its last good data is still served, marked stale
    collecting: bool = True

    @property
    def families(self) -> list[Metric]:
        """The last run's families that the status views read (``kept_for_views``)."""
        return self.kept

    def publish(self, families: list[Metric]) -> None:
        """Keep a run's families, rendered and compressed now, in the collector's own thread
        (in the collection worker, which sends the pieces to the server).

        A family's samples are dropped once rendered unless the status views read them, and
        its text once compressed: on a big host they would be most of zmon's memory. A
        family whose text is unchanged keeps its piece.
        """
        out: list[tuple[str, bytes, gzipjoin.Piece]] = []
        kept = []
        before = {name: (digest, packed) for name, digest, packed in self.rendered}
        for fam in families:
            fresh = render([fam])
            digest = text_digest(fresh)
            old = before.get(fam.name)
            if old is not None and old[0] == digest:  # unchanged: compressed already
                out.append((fam.name, *old))
            else:
                out.append((fam.name, digest, gzipjoin.piece(fresh)))
            if kept_for_views(fam.name):
                kept.append(fam)
        self.rendered, self.kept = out, kept

    def stale(self, now_wall: float) -> bool:
        """Data is stale after a failed run, while nothing collects it, or when no success
        came for two intervals."""
        if self.success is None:
            return False
        if not self.success or not self.collecting:
            return True
        return now_wall - self.last_success > 2 * self.interval + self.timeout


def text_digest(text: bytes) -> bytes:
    """What tells a family's new text from its last one without keeping the last one.

    SHA-1 (20 bytes) for detecting a change, not for security: every run hashes all of a
    big host's text, and on CPUs with SHA instructions SHA-1 is the fastest digest
    ``hashlib`` offers (faster than BLAKE2b, which has no hardware help)."""
    return hashlib.sha1(text, usedforsecurity=False).digest()


class Exposition:
    """Ready-to-serve bytes of one rendering: the gzip file, joined from the families' pieces,
    and the plain text, inflated from it the first time a scraper asks for plain text."""

    def __init__(self, gzipped: bytes, rendered_at: float) -> None:
        self.gzipped = gzipped
        self.rendered_at = rendered_at
        self._text: bytes | None = None
        self._lock = threading.Lock()

    @property
    def has_text(self) -> bool:
        """Whether ``text`` is ready to copy (inflated already)."""
        return self._text is not None

    @property
    def text(self) -> bytes:
        """The plain exposition (inflated once, then kept as long as this rendering is served)."""
        if self._text is None:
            with self._lock:
                if self._text is None:
                    self._text = gzip.decompress(self.gzipped)
        return self._text


@dataclass
class _Pending:
    """A rendering not joined yet: the gzip pieces of its parts, in order."""

    pieces: list[gzipjoin.Piece]
    rendered_at: float


class Snapshot:
    """The last good metric families per collector, and the pre-rendered exposition."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._states: dict[str, CollectorState] = {}
        self._exposition = Exposition(gzipjoin.join([]), 0.0)
        self._pending: _Pending | None = None
        self._join_lock = threading.Lock()
        self._stale_seen: dict[str, bool] = {}
        # same-named families of several collectors, merged: (their pieces, the merged piece)
        self._merged: dict[str, tuple[list[gzipjoin.Piece], gzipjoin.Piece]] = {}
        self.start_time = time.time()
        # called after each rerender (the status page samples its history there)
        self.on_render: list[Callable[[], None]] = []
        # more of zmon's own families, rendered with the collectors' states (the front door's)
        self.own_metrics: list[Callable[[], list[Metric]]] = []
        # renderings so far: 0 until the first one (nothing collected yet)
        self.generation = 0
        # replacements of the collection worker (zmon/runtime/supervisor.py); None: collection runs
        # in this process (``zmon collect``)
        self.worker_restarts: int | None = None

    def add(self, state: CollectorState) -> None:
        with self._lock:
            self._states[state.name] = state

    def remove(self, name: str) -> None:
        with self._lock:
            self._states.pop(name, None)

    def states(self) -> list[CollectorState]:
        with self._lock:
            return [self._states[k] for k in sorted(self._states)]

    def state(self, name: str) -> CollectorState | None:
        with self._lock:
            return self._states.get(name)

    @property
    def joined(self) -> bool:
        """Whether ``exposition`` is ready to copy (no join pending)."""
        return self._pending is None

    @property
    def exposition(self) -> Exposition:
        """The latest rendering, joined on the first request after it (then only copied)."""
        if self._pending is None:
            return self._exposition
        with self._join_lock:
            pending, self._pending = self._pending, None
            if pending is not None:
                # gzip from the pieces compressed at publish: compressing the whole text after
                # every run would be most of the daemon's CPU on a big host
                self._exposition = Exposition(gzipjoin.join(pending.pieces), pending.rendered_at)
            return self._exposition

    def rerender(self) -> None:
        """List the parts of the exposition; serving joins them once, then only copies bytes.

        Each collector's families were rendered and compressed when its run finished, so this
        lists pieces; only a family name that several collectors share is merged here (by its
        text: one HELP and TYPE, then every collector's samples in turn). zmon's own families
        (``self_metrics``), new at every rendering, are compressed together as one piece.
        """
        now = time.time()
        with self._lock:
            states = [self._states[k] for k in sorted(self._states)]
            self._stale_seen = {s.name: s.stale(now) for s in states}
            sources: dict[str, list[gzipjoin.Piece | bytes]] = {}
            for s in states:
                for name, _, packed in s.rendered:
                    sources.setdefault(name, []).append(packed)
        own: list[Metric] = []  # zmon's own families that no collector's share a name with
        mine = self_metrics(states, now, self.start_time, self.worker_restarts)
        for fam in mine + [f for source in list(self.own_metrics) for f in source()]:
            if fam.name in sources:
                sources[fam.name].append(render([fam]))
            else:
                own.append(fam)
        pieces: list[gzipjoin.Piece] = []
        merged: dict[str, tuple[list[gzipjoin.Piece], gzipjoin.Piece]] = {}
        for name, items in sources.items():
            first = items[0]
            if len(items) == 1 and isinstance(first, gzipjoin.Piece):
                pieces.append(first)
                continue
            parts = [t for t in items if isinstance(t, gzipjoin.Piece)]
            before = self._merged.get(name)
            if len(parts) == len(items) and before is not None and before[0] == parts:
                merged[name] = before  # no collector of it ran since: merged already
            else:
                texts = [gzipjoin.inflate(t) if isinstance(t, gzipjoin.Piece) else t for t in items]
                merged[name] = (parts, gzipjoin.piece(_merge_texts(texts)))
            pieces.append(merged[name][1])
        if own:  # they change at every rendering: one piece for all, not one for each
            pieces.append(gzipjoin.piece(render(own)))
        self._merged = merged  # only what this rendering merged: nothing stays after it goes
        self._pending = _Pending(pieces, now)
        for listener in list(self.on_render):
            try:
                listener()
            except Exception:  # noqa: BLE001 - a view must never stop the exposition
                log.exception("render listener failed")
        self.generation += 1

    def staleness_changed(self) -> bool:
        now = time.time()
        with self._lock:
            current = {s.name: s.stale(now) for s in self._states.values()}
            return current != self._stale_seen


def _merge_texts(texts: Sequence[bytes]) -> bytes:
    """Same-named families from different collectors as one: the first's HELP and TYPE, then
    the samples of each (what rendering them merged into one family gives)."""
    out = [texts[0]]
    for text in texts[1:]:
        body = text
        for _ in range(2):  # the HELP and TYPE lines
            if body.startswith(b"# "):
                body = body.partition(b"\n")[2]
        out.append(body)
    return b"".join(out)


def self_metrics(
    states: list[CollectorState],
    now: float,
    start_time: float,
    worker_restarts: int | None = None,
) -> list[Metric]:
    """zmon's own metrics: per-collector success, duration, freshness, plus build info."""
    m = MetricSet()
    for s in states:
        lab = {"collector": s.name}
        if s.success is not None:
            m.gauge(
                "zmon_collector_success",
                "1 if the collector's last run succeeded, else 0.",
                1.0 if s.success else 0.0,
                lab,
            )
            m.gauge(
                "zmon_collector_duration_seconds",
                "How long the collector's last run took.",
                s.last_duration,
                lab,
            )
        m.gauge(
            "zmon_collector_last_success_timestamp_seconds",
            "Unix time of the collector's last successful run (0 if none yet).",
            s.last_success,
            lab,
        )
        m.gauge(
            "zmon_collector_stale",
            "1 if the collector's data is older than its schedule promises or its last run "
            "failed; the last good data is still served.",
            1.0 if s.stale(now) else 0.0,
            lab,
        )
        m.gauge(
            "zmon_collector_has_data",
            "1 if the source exists on this host; 0 when it has nothing to collect.",
            1.0 if s.has_data else 0.0,
            lab,
        )
        m.gauge(
            "zmon_collector_running",
            "1 while a run is in progress.",
            1.0 if s.running_since is not None else 0.0,
            lab,
        )
        m.gauge(
            "zmon_collector_interval_seconds", "Configured seconds between runs.", s.interval, lab
        )
        for result, count in s.runs.items():
            m.counter(
                "zmon_collector_runs_total",
                "Collector runs since start, by result.",
                count,
                {**lab, "result": result},
            )
        if s.success is False and s.last_error_reason:
            m.gauge(
                "zmon_collector_last_error_info",
                "1 while the collector's last run failed; reason is one of timeout, "
                "permission_denied, fd_exhausted, cannot_execute, output_invalid, "
                "command_failed, io_error, error (the message is in the log).",
                1.0,
                {**lab, "reason": s.last_error_reason},
            )
        m.counter(
            "zmon_collector_fd_exhausted_total",
            "Collector runs that failed because zmon ran out of file descriptors (EMFILE/ENFILE).",
            s.fd_exhausted,
            lab,
        )
        m.counter(
            "zmon_child_processes_leaked_total",
            "Processes a run started that outlived it (escaped their process group) "
            "and were killed and reaped.",
            s.leaked_children,
            lab,
        )
        if s.state_writable is not None:  # only collectors that keep state files
            m.gauge(
                "zmon_collector_state_writable",
                "1 if the collector's last write of its state files (in --path.state-dir) "
                "worked, 0 while the directory is full, read-only or not writable.",
                1.0 if s.state_writable else 0.0,
                lab,
            )
            m.counter(
                "zmon_collector_state_write_failures_total",
                "State-file writes (or state directory opens) of the collector that failed.",
                s.state_write_failures,
                lab,
            )
    m.info("zmon_build_info", "zmon's version; always 1.", {"version": __version__})
    m.gauge("zmon_start_time_seconds", "Unix time zmon started.", start_time)
    if worker_restarts is not None:
        m.counter(
            "zmon_worker_restarts_total",
            "Times the collection worker process was replaced after it exited, was killed "
            "or stopped answering.",
            worker_restarts,
        )
    return m.families()
