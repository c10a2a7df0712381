"""The fault-injection rig: one collector driven through the scheduler's own ``run_once``.

Each fault test follows one shape: good data first, then the fault for ``CYCLES`` runs, with the
process's resources counted before and after, then the fault removed. A run is the real
``CollectorWorker.run_once`` (deadline, failure reasons, stale marking), driven back to back
with tiny timeouts instead of waiting on intervals, so nothing depends on machine load.
"""

from __future__ import annotations

import asyncio
import gc
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from prometheus_client.parser import text_string_to_metric_families

from zmon.collecting.registry import Collector
from zmon.collecting.scheduler import CollectorWorker
from zmon.exposition.snapshot import CollectorState, Snapshot
from zmon.web.server import make_app

CYCLES = 1000


@dataclass(frozen=True)
class Resources:
    """What a leak would grow: open fds, live threads, child processes."""

    fds: int
    threads: int
    children: int

    @classmethod
    def now(cls) -> Resources:
        return cls(len(os.listdir("/proc/self/fd")), threading.active_count(), len(child_pids()))


def child_pids() -> set[int]:
    """PIDs whose parent is this process (zombies included)."""
    pids: set[int] = set()
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/children") as fh:
                pids.update(int(p) for p in fh.read().split())
        except OSError:
            continue
    return pids


def settle(before: Resources, timeout: float = 10.0) -> Resources:
    """Resources once short-lived threads and processes of the last run have ended.

    Returns as soon as nothing exceeds ``before``; the wait bounds the check, it never
    decides it (a leak stays above ``before`` however long we wait).
    """
    deadline = time.monotonic() + timeout
    while True:
        gc.collect()
        now = Resources.now()
        if (
            now.fds <= before.fds
            and now.threads <= before.threads
            and now.children <= before.children
        ) or time.monotonic() > deadline:
            return now
        time.sleep(0.01)


class Rig:
    """A collector with its state, worker and snapshot, as the scheduler wires them."""

    def __init__(self, collector: Collector, timeout: float = 2.0, interval: float = 1.0) -> None:
        self.collector = collector
        self.snapshot = Snapshot()
        self.state = CollectorState(collector.name, interval, timeout)
        self.snapshot.add(self.state)
        # The scheduler re-renders after runs (coalesced by its render thread); here the
        # render happens at each scrape, so 1,000 runs cost only the runs.
        self.worker = CollectorWorker(collector, self.state, lambda _s: None)
        self._app: Any = None

    def cycle(self, n: int = 1) -> None:
        for _ in range(n):
            self.worker.run_once()

    def finish(self) -> None:
        """Wait for a run the worker gave up on (a hung collector) to end."""
        current = self.worker._current
        if current is not None:
            current.join(10.0)

    def scrape(self) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
        """GET /metrics through the server's own ASGI app; samples by (name, labels)."""
        self.snapshot.rerender()
        if self._app is None:
            self._app = make_app(self.snapshot, lambda: True)
        status, body = asyncio.run(_get(self._app, "/metrics"))
        assert status == 200, status
        out = {}
        for fam in text_string_to_metric_families(body.decode()):
            for s in fam.samples:
                out[(s.name, tuple(sorted(s.labels.items())))] = s.value
        return out

    def self_metric(self, name: str, **labels: str) -> float | None:
        want = tuple(sorted({"collector": self.state.name, **labels}.items()))
        return self.scrape().get((name, want))

    def reason(self) -> str | None:
        """The ``reason`` of zmon_collector_last_error_info, None while not failing."""
        for (name, labels), value in self.scrape().items():
            lab = dict(labels)
            if name == "zmon_collector_last_error_info" and lab["collector"] == self.state.name:
                assert value == 1.0
                return lab["reason"]
        return None

    def has(self, name: str, **labels: str) -> bool:
        want = set(labels.items())
        return any(n == name and want <= set(lab) for n, lab in self.scrape())

    def close(self) -> None:
        self.finish()
        self.collector.close()


async def _get(app: Any, path: str) -> tuple[int, bytes]:
    """One GET through an ASGI app, as the HTTP server would make it."""
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "GET", "path": path, "raw_path": path.encode(),
             "query_string": b"", "headers": [], "http_version": "1.1", "scheme": "http",
             "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 0)}  # fmt: skip
    await app(scope, receive, send)
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return int(status), body


@contextmanager
def no_leaks(slack_fds: int = 0) -> Iterator[Resources]:
    """Assert that the block leaves no more fds, threads or child processes than it found."""
    gc.collect()
    before = Resources.now()
    yield before
    after = settle(before)
    assert after.fds <= before.fds + slack_fds, f"fd leak: {before} -> {after}"
    assert after.threads <= before.threads, f"thread leak: {before} -> {after}"
    assert after.children <= before.children, f"process leak: {before} -> {after}"
