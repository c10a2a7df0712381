"""The snapshot: each collector's last good families, and the expositions served from them.

A collector's run publishes its families rendered and compressed once, in its own thread, in
both exposition formats (``zmon.exposition.formats``: format 0.0.4 and OpenMetrics share a
family's sample lines, so a family is three pieces: each format's HELP/TYPE lines and the
samples); ``rerender`` lists those pieces with zmon's own metrics, and a format's gzip
exposition is joined from them when ``/metrics`` first asks for that format after a change.
Nothing here waits on a collector. In ``zmon serve`` the runs publish in the collection worker
and the HTTP process's snapshot holds the records the worker sent of them (``Collector``,
zmon/runtime/channel.py); ``zmon collect`` does both in one process.

A metric family belongs to one collector, as a name belongs to one collector in
prometheus_client's registry: ``Snapshot.publish`` refuses a run whose families include a
name another collector publishes, or one of zmon's own (``DuplicateFamilyError``, naming
both; the run fails and its last good data stays). Both formats need it: OpenMetrics forbids
a family twice, and merging texts after rendering would hide which collector is at fault.

What a big host costs shaped this: a family's samples are kept only when the status views
read them (``kept_for_views``), a family's text is kept only compressed (``Packed``, with a
digest to tell a changed text), the plain exposition is inflated from the gzip one only when
a scraper asks for it, and nothing is joined while nobody scrapes (a format nobody asks for
is never joined). The HTTP process holds the kept families as the channel decodes them, in
columns (``zmon.exposition.metrics.HeldFamily``), not as a ``Sample`` and a label dict per sample.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import struct
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from prometheus_client.core import Metric

from zmon import __version__
from zmon.base.logs import get
from zmon.exposition import gzipjoin
from zmon.exposition.formats import EOF, OPENMETRICS, TEXT, FamilyText, Format, render_family
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


class DuplicateFamilyError(ValueError):
    """A run's families include a name that another collector (or zmon itself) publishes."""


class Packed(NamedTuple):
    """A family's exposition compressed (``zmon.exposition.gzipjoin``), as ``FamilyText`` splits it:
    what only format 0.0.4 writes, what only OpenMetrics writes, the samples both write."""

    text: gzipjoin.Piece
    openmetrics: gzipjoin.Piece
    shared: gzipjoin.Piece

    def of(self, fmt: Format) -> tuple[gzipjoin.Piece, ...]:
        """The pieces of the family's text in ``fmt``, in order (empty ones left out)."""
        own = self.openmetrics if fmt == OPENMETRICS else self.text
        return (own, self.shared) if self.shared.size else (own,)


EMPTY = gzipjoin.piece(b"")
_EOF = gzipjoin.piece(EOF)


def pack(texts: FamilyText) -> Packed:
    """A family's texts compressed. The HELP and TYPE lines of a family that shares its
    samples are the same at every run: compressed once (``_head``)."""
    if not texts.shared:
        return Packed(gzipjoin.piece(texts.text), gzipjoin.piece(texts.openmetrics), EMPTY)
    return Packed(_head(texts.text), _head(texts.openmetrics), gzipjoin.piece(texts.shared))


@functools.lru_cache(maxsize=2048)
def _head(text: bytes) -> gzipjoin.Piece:
    return gzipjoin.piece(text)


@dataclass
class CollectorState:
    """A collector's state where it runs (the collection worker, ``zmon collect``): its
    scheduler's loop writes it."""

    name: str
    interval: float
    timeout: float
    # each family of the last good run: its name, a digest of its exposition texts and those
    # texts compressed (``Packed``), made once per run; the texts themselves are not kept
    rendered: Sequence[tuple[str, bytes, Packed]] = field(default_factory=list)
    # the families whose samples the status views read (the others are kept compressed only)
    kept: Sequence[Metric] = field(default_factory=list)
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
    collecting: bool = True  # (it runs here; a ``Collector`` record's is False once it does not)

    @property
    def families(self) -> Sequence[Metric]:
        """The last run's families that the status views read (``kept_for_views``)."""
        return self.kept

    @property
    def summary_rows(self) -> list[SummaryRow] | None:
        """The collector's landing-page rows, read from ``families``, if it has a table."""
        if self.summary is None or not self.summary_title:
            return None
        return self.summary(self.kept)

    def publish(self, families: list[Metric]) -> None:
        """Keep a run's families, rendered and compressed now, in the collector's own thread
        (in the collection worker, which sends the pieces on). ``Snapshot.publish``
        checks the names first.

        A family's samples are dropped once rendered unless the status views read them, and
        its text once compressed: on a big host they would be most of zmon's memory. A
        family whose text is unchanged keeps its pieces.
        """
        out: list[tuple[str, bytes, Packed]] = []
        kept = []
        before = {name: (digest, packed) for name, digest, packed in self.rendered}
        for fam in families:
            texts = render_family(fam)
            digest = family_digest(texts)
            old = before.get(fam.name)
            if old is not None and old[0] == digest:  # unchanged: compressed already
                out.append((fam.name, *old))
            else:
                out.append((fam.name, digest, pack(texts)))
            if kept_for_views(fam.name):
                kept.append(fam)
        self.rendered, self.kept = out, kept

    def stale(self, now_wall: float) -> bool:
        return is_stale(self, now_wall)


@dataclass(frozen=True, slots=True)
class Collector:
    """A collector as a process that does not run it holds it: the record its worker sent
    (zmon/runtime/channel.py), replaced whole by the next one. The status travels in every report;
    the data (the last ``rendered`` pieces, the ``families`` the status views read, the
    landing-page rows) with the runs that changed it. ``collecting`` is False once the
    worker that ran it ended: its last good data is still served, marked stale."""

    name: str
    interval: float
    timeout: float
    success: bool | None
    has_data: bool
    last_duration: float
    last_success: float
    last_error: str
    running_since: float | None
    summary_title: str
    runs: Mapping[str, int]
    last_error_reason: str
    fd_exhausted: int
    leaked_children: int
    state_write_failures: int
    state_writable: bool | None
    rendered: tuple[tuple[str, bytes, Packed], ...] = ()
    families: tuple[Metric, ...] = ()
    summary_rows: tuple[SummaryRow, ...] | None = None
    collecting: bool = True

    @classmethod
    def of(cls, state: CollectorState) -> Collector:
        """The status of ``state`` (what its worker reports), without its data."""
        return cls(
            state.name, state.interval, state.timeout, state.success, state.has_data,
            state.last_duration, state.last_success, state.last_error, state.running_since,
            state.summary_title, dict(state.runs), state.last_error_reason, state.fd_exhausted,
            state.leaked_children, state.state_write_failures, state.state_writable,
        )  # fmt: skip

    def stale(self, now_wall: float) -> bool:
        return is_stale(self, now_wall)


# what the snapshot renders and the status views read of a collector
CollectorView = CollectorState | Collector


def is_stale(c: CollectorView, now_wall: float) -> bool:
    """Data is stale after a failed run, while nothing collects it, or when no success came
    for two intervals."""
    if c.success is None:
        return False
    if not c.success or not c.collecting:
        return True
    return now_wall - c.last_success > 2 * c.interval + c.timeout


def family_digest(texts: FamilyText) -> bytes:
    """What tells a family's new texts from its last ones without keeping the last ones.

    SHA-1 (20 bytes) for detecting a change, not for security: every run hashes all of a
    big host's text, and on CPUs with SHA instructions SHA-1 is the fastest digest
    ``hashlib`` offers (faster than BLAKE2b, which has no hardware help). The parts' lengths
    go first: the same bytes split otherwise are another family."""
    digest = hashlib.sha1(
        struct.pack("!QQ", len(texts.text), len(texts.openmetrics)), usedforsecurity=False
    )
    for part in texts:
        digest.update(part)
    return digest.digest()


class Exposition:
    """Ready-to-serve bytes of one rendering in one format: the gzip file, joined from the
    families' pieces, and the plain text, inflated from it the first time a scraper asks for
    plain text."""

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
class _Rendering:
    """The parts of one rendering: every collector's packed families, in order, and zmon's
    own families' texts (new at each rendering, compressed only when a format is joined);
    and the formats joined so far."""

    parts: list[Packed]
    own: FamilyText
    rendered_at: float
    joined: dict[Format, Exposition] = field(default_factory=dict)

    def pieces(self, fmt: Format) -> list[gzipjoin.Piece]:
        out = [piece for packed in self.parts for piece in packed.of(fmt)]
        out.append(gzipjoin.piece(self.own.of(fmt)))
        if fmt == OPENMETRICS:
            out.append(_EOF)
        return out


class Snapshot:
    """The last good metric families per collector, and the pre-rendered expositions."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._states: dict[str, CollectorView] = {}
        # which collector publishes each family name (``publish`` refuses a second one)
        self._owners: dict[str, str] = {}
        self._rendering = _Rendering([], FamilyText(b"", b"", b""), 0.0)
        self._join_lock = threading.Lock()
        self._stale_seen: dict[str, bool] = {}
        self._clashes: list[str] = []  # family names left out of the last rendering
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

    def add(self, state: CollectorView) -> None:
        with self._lock:
            self._states[state.name] = state
            for name, _, _ in state.rendered:
                self._owners.setdefault(name, state.name)

    def remove(self, name: str) -> None:
        with self._lock:
            self._states.pop(name, None)
            self._release(name, set())

    def _release(self, collector: str, keep: set[str]) -> None:
        for family in [f for f, c in self._owners.items() if c == collector and f not in keep]:
            del self._owners[family]

    def publish(self, state: CollectorState, families: list[Metric]) -> None:
        """``state.publish(families)`` once no family name in them is another collector's
        or zmon's own; else DuplicateFamilyError naming both, and nothing is published.
        The names are claimed before rendering, so two runs that publish a new name at once
        cannot both take it."""
        names = [fam.name for fam in families]
        mine = set(names)
        problems = [
            f"collector {state.name} publishes metric family {name} twice"
            for name, n in Counter(names).items()
            if n > 1
        ]
        problems += [
            f"metric family {name} of collector {state.name} is one of zmon's own metrics"
            for name in names
            if name in own_family_names()
        ]
        with self._lock:
            problems += [
                f"metric family {name} of collector {state.name} is already published by "
                f"collector {owner}"
                for name in names
                if (owner := self._owners.get(name, state.name)) != state.name
            ]
            if not problems:
                self._release(state.name, mine)
                self._owners.update(dict.fromkeys(names, state.name))
        if problems:
            raise DuplicateFamilyError(
                "; ".join(problems) + " (one family name, one collector: nothing of this run "
                "is published)"
            )
        state.publish(families)

    def states(self) -> list[CollectorView]:
        with self._lock:
            return [self._states[k] for k in sorted(self._states)]

    def state(self, name: str) -> CollectorView | None:
        with self._lock:
            return self._states.get(name)

    def joined(self, fmt: Format) -> Exposition | None:
        """The latest rendering in ``fmt`` if it is joined already (ready to copy), else None:
        ``exposition_in`` joins it."""
        return self._rendering.joined.get(fmt)

    def exposition_in(self, fmt: Format) -> Exposition:
        """The latest rendering in ``fmt``, joined on the first request for that format after
        it (then only copied)."""
        rendering = self._rendering
        expo = rendering.joined.get(fmt)
        if expo is not None:
            return expo
        with self._join_lock:
            expo = rendering.joined.get(fmt)
            if expo is None:
                # gzip from the pieces compressed at publish: compressing the whole text after
                # every run would be most of the daemon's CPU on a big host
                gzipped = gzipjoin.join(rendering.pieces(fmt))
                expo = rendering.joined[fmt] = Exposition(gzipped, rendering.rendered_at)
            return expo

    @property
    def exposition(self) -> Exposition:
        """The latest rendering in format 0.0.4 (``exposition_in(TEXT)``)."""
        return self.exposition_in(TEXT)

    def rerender(self) -> None:
        """List the parts of the expositions; serving joins a format's once, then only copies
        bytes.

        Each collector's families were rendered and compressed when its run finished, so this
        lists pieces. A family name that two collectors (or a collector and zmon itself) hold
        here is served once, its first holder's (zmon's own first): the worker refuses such a
        run at publication, so that is only a moment's overlap of two collectors' updates
        (one gave the name up, the other took it) or a collector clashing with a metric of
        the HTTP process's own; it is logged. zmon's own families (``self_metrics``), new at
        every rendering, are compressed together as one piece per format.
        """
        now = time.time()
        with self._lock:
            states = [self._states[k] for k in sorted(self._states)]
            self._stale_seen = {s.name: s.stale(now) for s in states}
        mine = self_metrics(states, now, self.start_time, self.worker_restarts)
        own = mine + [f for source in list(self.own_metrics) for f in source()]
        owners = dict.fromkeys([fam.name for fam in own], "zmon")
        parts: list[Packed] = []
        clashes = []
        for s in states:
            for name, _, packed in s.rendered:
                first = owners.setdefault(name, s.name)
                if first != s.name:
                    clashes.append(f"{name} (collector {s.name}; {first} has it)")
                    continue
                parts.append(packed)
        if clashes != self._clashes:
            self._clashes = clashes
            if clashes:
                log.warning("metric families published twice, served once", families=clashes)
        texts = [render_family(fam) for fam in own]
        own_text = FamilyText(
            b"".join([t.of(TEXT) for t in texts]), b"".join([t.of(OPENMETRICS) for t in texts]), b""
        )
        self._rendering = _Rendering(parts, own_text, now)
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


@functools.cache
def own_family_names() -> frozenset[str]:
    """The names of zmon's own families (``self_metrics``: every one it can make)."""
    state = CollectorState("x", 1.0, 1.0, success=False, last_error_reason="error")
    state.state_writable = False
    return frozenset(fam.name for fam in self_metrics([state], 0.0, 0.0, 0))


def self_metrics(
    states: Sequence[CollectorView],
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
