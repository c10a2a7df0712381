"""Background collection: each collector on its own interval, with a hard timeout per run.

Every collector has one loop thread. A run executes in its own short-lived thread, so the loop
can give up on it at the deadline: the run is recorded as timed out, its commands are killed by
the runner (which honours the run deadline), and the previous data stays, marked stale. The loop
waits for a stuck run to end before starting the next one, so a collector never runs twice at once.
"""

from __future__ import annotations

import gzip
import random
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from prometheus_client.core import Metric

from zmon import __version__, gzipjoin
from zmon.exposition import render
from zmon.logs import StateChangeLog, get
from zmon.metrics import MetricSet
from zmon.registry import Collector, NoDataError
from zmon.runner import run_deadline

log = get("scheduler")


@dataclass
class CollectorState:
    """What the snapshot knows about one collector."""

    name: str
    interval: float
    timeout: float
    # each family of the last good run with its text exposition and that text compressed
    # (a zmon.gzipjoin piece), both made once per run
    rendered: list[tuple[Metric, bytes, bytes]] = field(default_factory=list)
    success: bool | None = None
    has_data: bool = False
    last_duration: float = 0.0
    last_success: float = 0.0  # unix time
    last_error: str = ""
    running_since: float | None = None  # monotonic
    runs: dict[str, int] = field(
        default_factory=lambda: {"success": 0, "failure": 0, "timeout": 0, "nodata": 0}
    )

    @property
    def families(self) -> list[Metric]:
        return [fam for fam, _, _ in self.rendered]

    def publish(self, families: list[Metric]) -> None:
        """Keep a run's families, rendered and compressed now, in the collector's own thread."""
        out = []
        for fam in families:
            text = render([fam])
            out.append((fam, text, gzipjoin.piece(text)))
        self.rendered = out

    def stale(self, now_wall: float) -> bool:
        """Data is stale after a failed run, or when no success came for two intervals."""
        if self.success is None:
            return False
        if not self.success:
            return True
        return now_wall - self.last_success > 2 * self.interval + self.timeout


@dataclass(frozen=True)
class Exposition:
    """Ready-to-serve bytes of one rendering."""

    text: bytes
    gzipped: bytes
    rendered_at: float


class Snapshot:
    """The last good metric families per collector, and the pre-rendered exposition."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._states: dict[str, CollectorState] = {}
        self._exposition = Exposition(b"", gzip.compress(b""), 0.0)
        self._stale_seen: dict[str, bool] = {}
        self.start_time = time.time()

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
    def exposition(self) -> Exposition:
        return self._exposition

    def rerender(self) -> None:
        """Assemble the exposition once; serving then only copies bytes.

        Each collector's families were rendered when its run finished, so this joins bytes;
        only a family name that several collectors share is merged and rendered here.
        """
        now = time.time()
        with self._lock:
            states = [self._states[k] for k in sorted(self._states)]
            self._stale_seen = {s.name: s.stale(now) for s in states}
            sources: dict[str, list[tuple[Metric, bytes | None, bytes | None]]] = {}
            for s in states:
                for fam, text, packed in s.rendered:
                    sources.setdefault(fam.name, []).append((fam, text, packed))
        for fam in self_metrics(states, now, self.start_time):
            sources.setdefault(fam.name, []).append((fam, None, None))
        parts, pieces = [], []
        for items in sources.values():
            _, only, packed = items[0]
            if len(items) == 1 and only is not None and packed is not None:
                parts.append(only)
                pieces.append(packed)
            else:
                merged = render(_merge(fam for fam, _, _ in items))
                parts.append(merged)
                pieces.append(gzipjoin.piece(merged))
        # gzip from the pieces compressed at publish: compressing the whole text here after
        # every run was most of the daemon's CPU on a big host (benchmarks/README.md)
        self._exposition = Exposition(b"".join(parts), gzipjoin.join(parts, pieces), now)

    def staleness_changed(self) -> bool:
        now = time.time()
        with self._lock:
            current = {s.name: s.stale(now) for s in self._states.values()}
            return current != self._stale_seen


def _merge(families: Iterable[Metric]) -> list[Metric]:
    """Join same-named families from different collectors into one (one HELP/TYPE each)."""
    merged = MetricSet()
    for fam in families:
        merged.add_family(fam)
    return merged.families()


def self_metrics(states: list[CollectorState], now: float, start_time: float) -> list[Metric]:
    """zmon's own metrics: per-collector success, duration, freshness, plus build info."""
    m = MetricSet()
    for s in states:
        lab = {"collector": s.name}
        if s.success is not None:
            m.gauge("zmon_collector_success", "1 if the collector's last run succeeded, else 0.",
                    1.0 if s.success else 0.0, lab)
            m.gauge("zmon_collector_duration_seconds", "How long the collector's last run took.",
                    s.last_duration, lab)
        m.gauge("zmon_collector_last_success_timestamp_seconds",
                "Unix time of the collector's last successful run (0 if none yet).",
                s.last_success, lab)
        m.gauge("zmon_collector_stale",
                "1 if the collector's data is older than its schedule promises or its last run "
                "failed; the last good data is still served.",
                1.0 if s.stale(now) else 0.0, lab)
        m.gauge("zmon_collector_has_data",
                "1 if the source exists on this host; 0 when it has nothing to collect.",
                1.0 if s.has_data else 0.0, lab)
        m.gauge("zmon_collector_running", "1 while a run is in progress.",
                1.0 if s.running_since is not None else 0.0, lab)
        m.gauge("zmon_collector_interval_seconds", "Configured seconds between runs.",
                s.interval, lab)
        for result, count in s.runs.items():
            m.counter("zmon_collector_runs_total", "Collector runs since start, by result.",
                      count, {**lab, "result": result})  # fmt: skip
    m.info("zmon_build_info", "zmon's version; always 1.", {"version": __version__})
    m.gauge("zmon_start_time_seconds", "Unix time zmon started.", start_time)
    return m.families()


RunHook = Callable[[CollectorState], None]


class CollectorWorker:
    """Runs one collector on its interval in a background thread."""

    def __init__(
        self,
        collector: Collector,
        state: CollectorState,
        on_update: RunHook,
        jitter: float = 0.0,
    ) -> None:
        self.collector = collector
        self.state = state
        self._on_update = on_update
        self._jitter = jitter
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread = threading.Thread(
            target=self._loop, name=f"zmon-{state.name}", daemon=True
        )
        self._changes = StateChangeLog(log)
        self._current: threading.Thread | None = None

    def start(self) -> None:
        self._thread.start()

    def request_stop(self) -> None:
        self._stop.set()
        self._wake.set()

    def stop(self, wait: float = 5.0) -> None:
        self.request_stop()
        if self._thread.is_alive():
            self._thread.join(wait)

    def trigger(self) -> None:
        """Run as soon as possible (used by tests and SIGHUP)."""
        self._wake.set()

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def _loop(self) -> None:
        if self._jitter:
            self._wait(random.uniform(0, self._jitter))
        while not self._stop.is_set():
            started = time.monotonic()
            self.run_once()
            elapsed = time.monotonic() - started
            self._wait(max(0.0, self.state.interval - elapsed))

    def _wait(self, seconds: float) -> None:
        self._wake.wait(seconds)
        self._wake.clear()

    def run_once(self) -> None:
        """One run with a hard deadline. Never raises."""
        # A run that outlived its deadline must end before another starts.
        if self._current is not None and self._current.is_alive():
            self._current.join()
            self.state.running_since = None
            if self._stop.is_set():
                return
        box: dict[str, object] = {}
        deadline = time.monotonic() + self.state.timeout

        def target() -> None:
            run_deadline.set(deadline)
            try:
                box["result"] = self.collector.collect()
            except BaseException as exc:  # noqa: BLE001 - reported, never propagated
                box["error"] = exc

        wall_start = time.time()
        mono_start = time.monotonic()
        self.state.running_since = mono_start
        thread = threading.Thread(target=target, name=f"zmon-{self.state.name}-run", daemon=True)
        self._current = thread
        thread.start()
        thread.join(self.state.timeout)
        duration = time.monotonic() - mono_start
        self.state.last_duration = duration
        if not thread.is_alive():
            self.state.running_since = None
        if thread.is_alive():
            self._record_failure("timeout", f"run exceeded its {self.state.timeout:g}s timeout")
        elif "error" in box:
            exc = box["error"]
            if isinstance(exc, NoDataError):
                self.state.success = True
                self.state.has_data = False
                self.state.publish([])
                self.state.last_success = wall_start + duration
                self.state.runs["nodata"] += 1
                self._changes.report(self.state.name, "no data on this host", "info",
                                     collector=self.state.name, reason=str(exc))  # fmt: skip
            else:
                self._record_failure("failure", f"{type(exc).__name__}: {exc}")
        else:
            result = box.get("result")
            families = result.families() if isinstance(result, MetricSet) else list(result or [])  # type: ignore[call-overload]
            self.state.publish(families)
            self.state.success = True
            self.state.has_data = True
            self.state.last_error = ""
            self.state.last_success = wall_start + duration
            self.state.runs["success"] += 1
            self._changes.report(self.state.name, "collector ok", "info",
                                 collector=self.state.name)  # fmt: skip
        self._on_update(self.state)

    def _record_failure(self, kind: str, message: str) -> None:
        self.state.success = False
        self.state.last_error = message
        self.state.runs[kind] += 1
        self._changes.report(self.state.name, "collector failing", "warning",
                             collector=self.state.name, error=message)  # fmt: skip


class Scheduler:
    """Owns the workers and the snapshot they feed."""

    def __init__(self, snapshot: Snapshot | None = None) -> None:
        self.snapshot = snapshot or Snapshot()
        self.workers: dict[str, CollectorWorker] = {}
        self._stop = threading.Event()
        self._renderer: threading.Thread | None = None
        self._render_lock = threading.Lock()
        self._dirty = threading.Event()
        self.on_stop: list[Callable[[], None]] = []  # e.g. kill the runner's live commands

    def add(self, collector: Collector, interval: float, timeout: float, jitter: float = 0) -> None:
        previous = self.snapshot.state(collector.name)
        state = CollectorState(collector.name, interval, timeout)
        if previous is not None:  # keep data across a reload
            state.rendered = previous.rendered
            state.success = previous.success
            state.has_data = previous.has_data
            state.last_success = previous.last_success
            state.runs = previous.runs
        self.snapshot.add(state)
        self.workers[collector.name] = CollectorWorker(collector, state, self._updated, jitter)

    def _updated(self, _: CollectorState | None) -> None:
        """A run finished: re-render now, or leave it to the render thread once started."""
        if self._renderer is not None and self._renderer.is_alive():
            self._dirty.set()
            return
        with self._render_lock:
            self.snapshot.rerender()

    def start(self) -> None:
        for w in self.workers.values():
            w.collector.start()
        self.snapshot.rerender()
        self._renderer = threading.Thread(target=self._render_loop, name="zmon-render", daemon=True)
        self._renderer.start()
        for w in self.workers.values():
            w.start()

    def _render_loop(self) -> None:
        """Re-render after runs finish and when a collector turns stale without finishing
        a run (a hung source). Runs that finish during a render share the next one, so a
        slow render never holds a collector up (each one used to wait its turn)."""
        while not self._stop.is_set():
            if self._dirty.wait(1.0) or self.snapshot.staleness_changed():
                self._dirty.clear()
                with self._render_lock:
                    self.snapshot.rerender()

    def run_all_once(self) -> None:
        """Run every collector once, in parallel, and wait (``zmon collect --once``)."""
        for w in self.workers.values():
            w.collector.start()
        threads = [
            threading.Thread(target=w.run_once, name=f"zmon-once-{n}", daemon=True)
            for n, w in self.workers.items()
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.snapshot.rerender()

    def stop(self, keep_states: bool = False) -> None:
        self._stop.set()
        for w in self.workers.values():
            w.request_stop()  # all loops first, then wait for each
        for hook in self.on_stop:
            hook()
        for w in self.workers.values():
            w.stop(wait=1.0)
        for w in self.workers.values():
            try:
                w.collector.close()
            except Exception as exc:  # noqa: BLE001 - shutdown must go on
                log.warning("collector close failed", collector=w.state.name, error=str(exc))
        if not keep_states:
            for name in self.workers:
                self.snapshot.remove(name)
        if self._renderer is not None:
            self._renderer.join(2.0)

    def healthy(self) -> bool:
        return all(w.alive for w in self.workers.values()) and not self._stop.is_set()
