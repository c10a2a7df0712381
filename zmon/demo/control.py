"""Stepping a demo host from outside: ``zmon serve --demo --demo.control-socket PATH``.

Tests that watch the served demo (Prometheus, Alertmanager) drive its story through this
socket instead of racing a clock: the host stands at a phase until they ask for the next one.
One request per line, one JSON object per line in reply:

- ``status``: where the story is: phase, loop, and how many ZFS events and kernel log lines
  the host has written so far.
- ``collect [NAME ...]``: wake every collector (or those named), and reply once each has
  finished a run that started after the request. The reply adds each one's run count at
  that point (``runs``) and those that did not finish one in time (``stale``).
- ``step``: enter the next phase, then ``collect``.

Collectors that follow a source on their own thread (ZFS events, the kernel log) report what
their thread has read by then; a test that needs all of it compares their counters with the
host's and collects again until they agree.
"""

from __future__ import annotations

import json
import os
import socket
import socketserver
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol

from zmon.demo.host import DemoHost
from zmon.exposition.snapshot import CollectorView


class CollectorWorker(Protocol):
    """A running collector: its state, and a way to wake it (the scheduler's worker in
    this process, or a collector of the collection worker process)."""

    @property
    def state(self) -> CollectorView: ...

    def trigger(self) -> None: ...


Workers = Callable[[], Mapping[str, CollectorWorker]]
FRESH_TIMEOUT = 600.0  # a collector that never finishes a run is reported, not waited for


def _runs(worker: CollectorWorker) -> int:
    return sum(worker.state.runs.values())


def fresh_runs(
    workers: Mapping[str, CollectorWorker], timeout: float = FRESH_TIMEOUT, poll: float = 0.05
) -> tuple[dict[str, int], list[str]]:
    """Wake every collector, and wait until each has finished a run that started now or later.

    A run in progress now may have read the host before the change: it does not count, the
    run after it does (the wake-up makes that one start at once). Returns each collector's
    run count once it is fresh, and the collectors still not fresh at the timeout.
    """
    need = {}
    for name, w in workers.items():
        running = w.state.running_since is not None  # read before the count, see above
        need[name] = _runs(w) + (2 if running else 1)
        w.trigger()
    deadline = time.monotonic() + timeout
    done: dict[str, int] = {}
    while True:
        for name, w in workers.items():
            if name not in done and _runs(w) >= need[name]:
                done[name] = _runs(w)
        stale = sorted(set(need) - set(done))
        if not stale or time.monotonic() >= deadline:
            return done, stale
        time.sleep(poll)


class DemoControl:
    """Serves the control socket of a stepped demo host, on a background thread."""

    def __init__(
        self,
        host: DemoHost,
        path: str | Path,
        workers: Workers,
        render: Callable[[], None] | None = None,
    ) -> None:
        """``render`` re-renders the snapshot, where this process holds it (a ``Scheduler``
        in-process): a reply then comes after the rendering that shows the runs it counts.
        Without it (``zmon serve``, where the HTTP process renders) the runs show from that
        process's next rendering, within about a second."""
        if not host.stepped:
            raise ValueError("the control socket steps a stepped demo host")
        self.host = host
        self.path = Path(path)
        self.workers = workers
        self.render = render
        self._lock = threading.Lock()  # one step at a time
        control = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                for line in self.rfile:
                    reply = control.request(line.decode(errors="replace").strip())
                    self.wfile.write(json.dumps(reply).encode() + b"\n")
                    self.wfile.flush()

        if self.path.is_socket():
            self.path.unlink()
        self._server = socketserver.ThreadingUnixStreamServer(str(self.path), Handler)
        self._server.daemon_threads = True
        os.chmod(self.path, 0o600)
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="zmon-demo-control", daemon=True
        )

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self.path.unlink(missing_ok=True)

    def request(self, command: str) -> dict[str, Any]:
        verb, *names = command.split() or [""]
        if verb == "status" and not names:
            return self.status()
        if verb in ("collect", "step") and not (verb == "step" and names):
            with self._lock:
                if verb == "step":
                    self.host.step()
                workers = self.workers()
                unknown = sorted(set(names) - set(workers))
                if unknown:
                    return {"error": f"no such collector running: {', '.join(unknown)}"}
                runs, stale = fresh_runs(
                    {n: w for n, w in workers.items() if not names or n in names}
                )
                if self.render is not None:  # (a run's own rendering may still be under way)
                    self.render()
                return {**self.status(), "runs": runs, "stale": stale}
        return {"error": f"unknown request {command!r}; known: status, collect [NAME ...], step"}

    def status(self) -> dict[str, Any]:
        host = self.host
        return {
            "phase": host.phase.name,
            "scenario": host.phase.scenario,
            "loop": host.loop,
            "events": host.events_written,
            "kernel_log_lines": host.kernel_log_lines(),
        }


class DemoControlClient:
    """The other end of the control socket (used by tests)."""

    def __init__(self, path: str | Path, timeout: float = FRESH_TIMEOUT + 60) -> None:
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.settimeout(timeout)
        self._sock.connect(str(path))
        self._file = self._sock.makefile("rwb")

    def request(self, command: str) -> dict[str, Any]:
        self._file.write(command.encode() + b"\n")
        self._file.flush()
        line = self._file.readline()
        if not line:
            raise ConnectionError("the demo control socket closed")
        reply: dict[str, Any] = json.loads(line)
        if "error" in reply:
            raise ValueError(reply["error"])
        return reply

    def close(self) -> None:
        self._file.close()
        self._sock.close()
