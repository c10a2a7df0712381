"""Background collection: each collector on its own interval, with a hard timeout per run.

Every collector has one loop thread. A run executes in its own short-lived thread, so the loop
can give up on it at the deadline: the run is recorded as timed out, its commands are killed by
the runner (which honours the run deadline), and the previous data stays, marked stale. The loop
waits for a stuck run to end before starting the next one, so a collector never runs twice at once.
"""

from __future__ import annotations

import contextlib
import os
import random
import resource
import threading
import time
from collections.abc import Callable

from prometheus_client.core import Metric

from zmon.base import children, durable, failures
from zmon.base.logs import StateChangeLog, get
from zmon.base.runner import run_deadline
from zmon.collecting.registry import Collector, NoDataError
from zmon.exposition.metrics import MetricSet
from zmon.exposition.snapshot import CollectorState, DuplicateFamilyError, Snapshot

log = get("scheduler")


RunHook = Callable[[CollectorState], None]
Publish = Callable[[CollectorState, list[Metric]], None]


def without_traceback(exc: BaseException) -> BaseException:
    """``exc`` and the exceptions it chains, their tracebacks dropped.

    A traceback holds the run's frames, and with them what the run read (up to the output
    cap). Kept, it closes reference cycles (the closure's error list, an ``except ... as``
    name in a frame that raised anew) that only a rare cyclic collection would free; the
    type and message are all a failed run reports."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        e.__traceback__ = None
        todo += [e.__cause__, e.__context__]
        if isinstance(e, BaseExceptionGroup):
            todo += e.exceptions
    return exc


class CollectorWorker:
    """Runs one collector on its interval in a background thread. A run's families are
    published with ``publish`` (the snapshot's, which refuses a family name another
    collector publishes: the run then fails)."""

    def __init__(
        self,
        collector: Collector,
        state: CollectorState,
        on_update: RunHook,
        jitter: float = 0.0,
        on_start: RunHook | None = None,
        publish: Publish = CollectorState.publish,
    ) -> None:
        self.collector = collector
        self.state = state
        self._on_update = on_update
        self._on_start = on_start  # told when a run starts (the worker reports it as running)
        self._publish = publish
        self._jitter = jitter
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread = threading.Thread(target=self._loop, name=f"zmon-{state.name}", daemon=True)
        self._changes = StateChangeLog(log)
        self._current: threading.Thread | None = None
        self.first_run_done = threading.Event()
        self.after: list[CollectorWorker] = []  # providers whose first run comes before ours

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
        for provider in self.after:
            # bounded: the provider's first run ends by its jitter plus its deadline
            while not self._stop.is_set() and not provider.first_run_done.wait(0.5):
                if not provider.alive:
                    break
        while not self._stop.is_set():
            started = time.monotonic()
            try:
                self.run_once()
            except Exception as exc:  # noqa: BLE001 - this thread must never end early
                log.error("collector loop error", collector=self.state.name, error=repr(exc))
            elapsed = time.monotonic() - started
            self._wait(_seconds(self.state.interval, 15.0) - elapsed)

    def _wait(self, seconds: float) -> None:
        self._wake.wait(min(max(0.0, seconds), threading.TIMEOUT_MAX))
        self._wake.clear()

    def run_once(self) -> None:
        """One run with a hard deadline. Never raises."""
        # A run that outlived its deadline must end before another starts.
        if self._current is not None and self._current.is_alive():
            self._current.join()
            self.state.running_since = None
            if self._stop.is_set():
                return
        results: list[MetricSet] = []
        errors: list[BaseException] = []
        timeout = _seconds(self.state.timeout, 10.0)
        deadline = time.monotonic() + timeout

        def target() -> None:
            run_deadline.set(deadline)
            children.current_collector.set(self.state.name)
            try:
                results.append(self.collector.collect())
            except BaseException as exc:  # noqa: BLE001 - reported, never propagated
                errors.append(without_traceback(exc))

        wall_start = time.time()
        mono_start = time.monotonic()
        self.state.running_since = mono_start
        thread = threading.Thread(target=target, name=f"zmon-{self.state.name}-run", daemon=True)
        self._current = thread
        try:
            thread.start()
        except RuntimeError as err:  # "can't start new thread": out of threads or memory
            self._current = None
            self.state.running_since = None
            self._record_failure("failure", f"cannot start a run: {err}", failures.ERROR)
            self._on_update(self.state)
            return
        if self._on_start is not None:
            self._on_start(self.state)
        thread.join(timeout)
        duration = time.monotonic() - mono_start
        self.state.last_duration = duration
        if not thread.is_alive():
            self.state.running_since = None
        if thread.is_alive():
            self._record_failure(
                "timeout", f"run exceeded its {timeout:g}s timeout", failures.TIMEOUT
            )
        elif errors:
            exc = errors[0]
            if isinstance(exc, NoDataError):
                self.state.success = True
                self.state.has_data = False
                self._publish(self.state, [])
                self.state.last_success = wall_start + duration
                self.state.runs["nodata"] += 1
                self._changes.report(
                    self.state.name,
                    "no data on this host",
                    "info",
                    collector=self.state.name,
                    reason=str(exc),
                )
            else:
                reason = failures.classify(exc)
                kind = "timeout" if reason == failures.TIMEOUT else "failure"
                self._record_failure(kind, f"{type(exc).__name__}: {exc}", reason)
        else:
            try:
                self._publish(self.state, results[0].families())
            except DuplicateFamilyError as exc:  # a bug: the last good data stays
                self._record_failure("failure", str(exc), failures.ERROR)
            else:
                self.state.success = True
                self.state.has_data = True
                self.state.last_error = ""
                self.state.last_error_reason = ""
                self.state.last_success = wall_start + duration
                self.state.runs["success"] += 1
                self._changes.report(
                    self.state.name, "collector ok", "info", collector=self.state.name
                )
        self.state.leaked_children = children.leaked(self.state.name)
        self.state.state_write_failures, self.state.state_writable = durable.write_outcome(
            self.state.name
        )
        self.first_run_done.set()
        self._on_update(self.state)

    def _record_failure(self, kind: str, message: str, reason: str) -> None:
        self.state.success = False
        self.state.last_error = message
        self.state.last_error_reason = reason
        self.state.runs[kind] += 1
        if reason == failures.FD_EXHAUSTED:
            self.state.fd_exhausted += 1
            log.error(
                "out of file descriptors", collector=self.state.name, error=message, **fd_usage()
            )
        self._changes.report(
            self.state.name,
            "collector failing",
            "warning",
            collector=self.state.name,
            reason=reason,
            error=message,
        )


def _seconds(value: float, fallback: float) -> float:
    """A usable wait: config validation keeps values finite and sane; this is the last guard."""
    if not isinstance(value, int | float) or not 0 < value <= threading.TIMEOUT_MAX:
        return fallback
    return float(value)


def fd_usage() -> dict[str, int]:
    """Open file descriptors and the soft limit, for the fd-exhaustion log line."""
    out: dict[str, int] = {}
    with contextlib.suppress(OSError):
        out["open_fds"] = len(os.listdir("/proc/self/fd"))
    with contextlib.suppress(OSError, ValueError):
        out["fd_limit"] = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return out


class Scheduler:
    """Owns the workers and the snapshot they feed.

    By default a run's end re-renders the snapshot (``zmon collect``, the status report).
    The collection worker passes ``on_update`` and ``on_start`` instead: it sends each
    change to the main process, which relays it to the HTTP process, which renders there
    (zmon/runtime/worker.py).
    """

    def __init__(
        self,
        snapshot: Snapshot | None = None,
        on_update: RunHook | None = None,
        on_start: RunHook | None = None,
    ) -> None:
        self.snapshot = snapshot or Snapshot()
        self._on_update = on_update
        self._on_start = on_start
        self.workers: dict[str, CollectorWorker] = {}
        self._stop = threading.Event()
        self._renderer: threading.Thread | None = None
        self._render_lock = threading.Lock()
        self._dirty = threading.Event()
        self.on_stop: list[Callable[[], None]] = []  # e.g. kill the runner's live commands

    def add(self, collector: Collector, interval: float, timeout: float, jitter: float = 0) -> None:
        previous = self.snapshot.state(collector.name)
        state = CollectorState(collector.name, interval, timeout)
        state.summary_title = collector.summary_title
        state.summary = collector.summary
        if previous is not None:  # go on across a reload, or from the worker before (its record)
            state.rendered = previous.rendered
            state.kept = previous.families
            state.success = previous.success
            state.has_data = previous.has_data
            state.last_success = previous.last_success
            state.runs = dict(previous.runs)
            state.last_error = previous.last_error
            state.last_error_reason = previous.last_error_reason
            state.fd_exhausted = previous.fd_exhausted
            state.leaked_children = previous.leaked_children
            state.state_write_failures = previous.state_write_failures
            state.state_writable = previous.state_writable
        self.snapshot.add(state)
        self.workers[collector.name] = CollectorWorker(
            collector,
            state,
            self._updated,
            jitter,
            on_start=self._on_start,
            publish=self.snapshot.publish,
        )

    def _updated(self, state: CollectorState) -> None:
        """A run finished: re-render now, or leave it to the render thread once started."""
        if self._on_update is not None:
            self._on_update(state)
            return
        if self._renderer is not None and self._renderer.is_alive():
            self._dirty.set()
            return
        with self._render_lock:
            self.snapshot.rerender()

    def order(self) -> list[list[CollectorWorker]]:
        """Workers in layers: each layer's first runs come after the layers before it.

        A collector that ``needs`` a product runs its first run after every enabled
        collector that ``provides`` it, so what it reads is there from its first run on.
        """
        remaining = dict(self.workers)
        for w in remaining.values():
            w.after = [
                p
                for p in self.workers.values()
                if p is not w and any(prod in p.collector.provides for prod in w.collector.needs)
            ]
        layers: list[list[CollectorWorker]] = []
        done: set[str] = set()
        while remaining:
            layer = [w for w in remaining.values() if all(p.state.name in done for p in w.after)]
            if not layer:
                raise ValueError(f"collectors need each other's products: {sorted(remaining)}")
            layers.append(layer)
            for w in layer:
                done.add(w.state.name)
                del remaining[w.state.name]
        return layers

    def start(self) -> None:
        self.order()
        for w in self.workers.values():
            w.collector.start()
        if self._on_update is None:
            self.snapshot.rerender()
            self._renderer = threading.Thread(
                target=self._render_loop, name="zmon-render", daemon=True
            )
            self._renderer.start()
        for w in self.workers.values():
            w.start()

    def _render_loop(self) -> None:
        """Re-render after runs finish and when a collector turns stale without finishing
        a run (a hung source). Runs that finish during a render share the next one, so a
        slow render never holds a collector up."""
        while not self._stop.is_set():
            if self._dirty.wait(1.0) and self._stop.is_set():
                return
            if self._dirty.is_set() or self.snapshot.staleness_changed():
                self._dirty.clear()
                with self._render_lock:
                    self.snapshot.rerender()

    def run_all_once(self) -> None:
        """Run every collector once, in parallel, and wait (``zmon collect --once``)."""
        layers = self.order()
        for w in self.workers.values():
            w.collector.start()
        for layer in layers:
            threads = [
                threading.Thread(target=w.run_once, name=f"zmon-once-{w.state.name}", daemon=True)
                for w in layer
            ]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        self.snapshot.rerender()

    def stop(self, keep_states: bool = False) -> None:
        self._stop.set()
        self._dirty.set()  # wake the render thread so that it ends now, not within a second
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
