"""Real components on loopback for the rule tests: zmon's demo host, Prometheus, Alertmanager.

Each process runs in its own session, logs to a file in the test's temporary directory and is
stopped (SIGTERM, then SIGKILL) by ``stop()``, with every process it started, wherever they
went (tests/support/process_marks.py). Nothing listens beyond 127.0.0.1.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tests.helpers import stop_process_group
from tests.support.ports import free_port
from tests.support.process_marks import end_marked, marked_env, new_mark
from zmon.demo.control import DemoControlClient

REPO = Path(__file__).resolve().parents[2]
FOLLOWER_TIMEOUT = 300.0  # the event and kernel log followers read what the demo wrote


def http_get(url: str, timeout: float = 10) -> bytes:
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return bytes(r.read())


class Process:
    """A child process in its own session, logging to ``log``; what it starts carries its
    mark (``mark``), so that ``stop()`` ends that too."""

    def __init__(self, argv: Sequence[str], log: Path, cwd: Path | None = None) -> None:
        self.argv = list(argv)
        self.log = log
        self.mark = new_mark()
        self._out = log.open("wb")
        self.proc = subprocess.Popen(
            self.argv,
            stdout=self._out,
            stderr=subprocess.STDOUT,
            cwd=cwd,
            env=marked_env(self.mark),
            start_new_session=True,
        )

    def wait_http(self, url: str, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.argv[0]} exited early:\n{self.tail()}")
            try:
                http_get(url, timeout=2)
                return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError(f"{self.argv[0]} did not answer {url}:\n{self.tail()}")

    def tail(self, lines: int = 40) -> str:
        self._out.flush()
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])

    def stop(self) -> None:
        """Stop the process and its session, then whatever it started that is left: a child
        in a session of its own, or one orphaned when the process was SIGKILLed."""
        try:
            stop_process_group(self.proc)
            end_marked(self.mark)
        finally:
            self._out.close()


class SteppedDemo:
    """``zmon serve --demo`` whose story moves on only when the test says so.

    Nothing here races a clock: ``step()`` enters the next phase and returns once every
    collector has run on it and the event and kernel log followers have read everything the
    host wrote; ``Prometheus.wait_scraped`` then waits until Prometheus has that data. The
    collectors keep their default intervals: the control socket wakes them.
    """

    def __init__(self, tmp: Path, host: str = "127.0.0.1", args: Sequence[str] = ()) -> None:
        """Serve on ``host`` (a loopback address), with ``args`` added to ``zmon serve``."""
        self.address = f"{host}:{free_port(host)}"
        self.socket = tmp / "demo.sock"
        self.proc = Process(
            [
                sys.executable,
                "-m",
                "zmon.cli",
                "serve",
                "--demo",
                "--demo.control-socket",
                str(self.socket),
                "--web.listen-address",
                self.address,
                "--web.status-dir",
                str(tmp / "run"),
                "--log.format",
                "json",
                *args,
            ],
            tmp / "zmon.log",
            cwd=REPO,
        )
        self.proc.wait_http(f"http://{self.address}/healthz")
        self.control = DemoControlClient(self.socket)
        self.runs: dict[str, int] = {}
        self.phases: list[str] = []
        self._settle(self.control.request("collect"), first=True)

    def metrics(self) -> str:
        return http_get(f"http://{self.address}/metrics").decode()

    def step(self) -> str:
        """Enter the next phase; return its name once zmon serves all of it."""
        return self._settle(self.control.request("step"))

    def _settle(self, reply: dict[str, Any], first: bool = False) -> str:
        assert not reply["stale"], (
            f"collectors never finished a run: {reply['stale']}\n" + self.proc.tail()
        )
        self.runs.update(reply["runs"])
        deadline = time.monotonic() + FOLLOWER_TIMEOUT
        while True:
            behind = self._followers_behind(reply, first)
            if not behind:
                break
            if time.monotonic() > deadline:
                raise AssertionError(f"followers never caught up: {behind}\n{self.proc.tail()}")
            time.sleep(0.2)
            again = self.control.request("collect zpool_events kernel_log")
            assert not again["stale"], again
            self.runs.update(again["runs"])
        self.phases.append(reply["phase"])
        return str(reply["phase"])

    def _followers_behind(self, reply: dict[str, Any], first: bool) -> list[str]:
        text = self.metrics()
        behind = []
        events = sum(_values(text, "zmon_zfs_events_total")) + sum(
            _values(text, "zmon_zfs_events_dropped_total")
        )
        if events < reply["events"]:
            behind.append(f"zpool_events counted {events:g} of {reply['events']} events")
        lines = sum(_values(text, "zmon_kernel_log_lines_read_total"))
        if first:  # the follower starts at the end of kern.log: what is there now is history
            if sum(_values(text, "zmon_kernel_log_following")) < 1:
                behind.append("kernel_log does not follow kern.log yet")
            self._kernel_lines_before = reply["kernel_log_lines"] - lines
        elif lines < reply["kernel_log_lines"] - self._kernel_lines_before:
            behind.append(f"kernel_log read {lines:g} of {reply['kernel_log_lines']} lines")
        return behind

    def stop(self) -> None:
        self.control.close()
        self.proc.stop()


def _values(text: str, name: str) -> list[float]:
    """The values of every sample of ``name`` in an exposition."""
    return [float(m.group(1)) for m in re.finditer(rf"^{name}(?:{{[^}}]*}})? (\S+)$", text, re.M)]


class Prometheus:
    """A Prometheus server scraping zmon every second, with the given rule files."""

    def __init__(
        self,
        binary: str,
        tmp: Path,
        target: str,
        rule_files: Sequence[Path],
        alertmanager: str | None = None,
    ) -> None:
        self.address = f"127.0.0.1:{free_port()}"
        self.url = f"http://{self.address}"
        config = {
            "global": {
                "scrape_interval": "1s",
                "scrape_timeout": "1s",
                "evaluation_interval": "1s",
            },
            "rule_files": [str(p) for p in rule_files],
            "scrape_configs": [{"job_name": "zmon", "static_configs": [{"targets": [target]}]}],
        }
        if alertmanager:
            managers = [{"static_configs": [{"targets": [alertmanager]}]}]
            config["alerting"] = {"alertmanagers": managers}
        cfg = tmp / "prometheus.yml"
        cfg.write_text(json.dumps(config, indent=2))  # JSON is YAML
        self.proc = Process(
            [
                binary,
                f"--config.file={cfg}",
                f"--storage.tsdb.path={tmp / 'prometheus-data'}",
                f"--web.listen-address={self.address}",
                "--rules.alert.resend-delay=1s",
                "--log.level=warn",
            ],
            tmp / "prometheus.log",
        )
        self.proc.wait_http(f"{self.url}/-/ready")

    def api(self, path: str, **params: Any) -> Any:
        query = urllib.parse.urlencode(params)
        try:
            body = json.loads(http_get(f"{self.url}/api/v1/{path}?{query}"))
        except urllib.error.HTTPError as exc:
            body = json.loads(exc.read() or b"{}")
        if body.get("status") != "success":
            raise PromQLError(f"{path} {params}: {body.get('errorType')}: {body.get('error')}")
        return body["data"]

    def query(self, expr: str) -> list[dict[str, Any]]:
        return list(self.api("query", query=expr)["result"])

    def query_range(self, expr: str, start: float, end: float, step: float = 2.0) -> list[Any]:
        return list(self.api("query_range", query=expr, start=start, end=end, step=step)["result"])

    def rule_health(self) -> list[dict[str, Any]]:
        return [r for g in self.api("rules")["groups"] for r in g["rules"]]

    def wait_for(self, expr: str, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.query(expr):
                return
            time.sleep(0.5)
        raise AssertionError(f"{expr!r} returned nothing for {timeout}s:\n{self.proc.tail()}")

    def wait_scraped(self, demo: SteppedDemo, scrapes: int = 3, timeout: float = 300) -> None:
        """Wait until Prometheus holds what the demo serves now, in ``scrapes`` scrapes.

        The collectors' run counters tell: once Prometheus has each at least at the demo's
        last count, it has scraped the current phase; then ``scrapes`` scrapes of it are
        counted, so rates and ranges have more than one sample of each phase.
        """
        deadline = time.monotonic() + timeout
        seen: set[float] = set()
        while time.monotonic() < deadline:
            got = {
                r["metric"]["collector"]: float(r["value"][1])
                for r in self.query("sum by (collector) (zmon_collector_runs_total)")
            }
            if all(got.get(c, -1) >= n for c, n in demo.runs.items()):
                seen |= {float(r["value"][0]) for r in self.query('timestamp(up{job="zmon"})')}
                if len(seen) >= scrapes:
                    return
            time.sleep(0.2)
        raise AssertionError(
            f"Prometheus never scraped the demo's current phase:\n{self.proc.tail()}"
        )

    def wait_alerts_settled(
        self, after: float, max_for: float, delivered: Webhook, timeout: float = 300
    ) -> None:
        """Wait until the rules have run on data scraped by ``after`` (Unix time) and reached
        their verdict: no alert whose ``for`` is at most ``max_for`` is still pending, and
        every firing alert has reached ``delivered`` through Alertmanager."""
        deadline = time.monotonic() + timeout
        state = ""
        while time.monotonic() < deadline:
            groups = self.api("rules", type="alert")["groups"]
            evaluated = all(_unix(g["lastEvaluation"]) > after for g in groups)
            pending = sorted(
                {
                    r["name"]
                    for g in groups
                    for r in g["rules"]
                    if r["duration"] <= max_for
                    and any(a["state"] == "pending" for a in r["alerts"])
                }
            )
            firing = [a["labels"] for a in self.api("alerts")["alerts"] if a["state"] == "firing"]
            got = [a["labels"] for a in delivered.alerts() if a.get("status") == "firing"]
            undelivered = sorted({f["alertname"] for f in firing if f not in got})
            if evaluated and not pending and not undelivered:
                return
            state = f"evaluated={evaluated} pending={pending} undelivered={undelivered}"
            time.sleep(0.2)
        raise AssertionError(f"alerts never settled: {state}\n{self.proc.tail()}")

    def stop(self) -> None:
        self.proc.stop()


def _unix(rfc3339: str) -> float:
    """Prometheus API time (RFC 3339, nanoseconds, Z) as Unix time."""
    from datetime import datetime

    stamp = re.sub(r"(\.\d{6})\d*", r"\1", rfc3339.replace("Z", "+00:00"))
    return datetime.fromisoformat(stamp).timestamp()


class PromQLError(AssertionError):
    pass


def start_alertmanager(binary: str, tmp: Path, webhook_url: str) -> tuple[Process, str]:
    """Alertmanager sending every alert, firing and resolved, to ``webhook_url`` at once."""
    address = f"127.0.0.1:{free_port()}"
    config = {
        "route": {"receiver": "webhook", "group_by": ["..."], "group_wait": "1s",
                  "group_interval": "1s", "repeat_interval": "1h"},
        "receivers": [{"name": "webhook",
                       "webhook_configs": [{"url": webhook_url, "send_resolved": True}]}],
    }  # fmt: skip
    cfg = tmp / "alertmanager.yml"
    cfg.write_text(json.dumps(config, indent=2))
    proc = Process(
        [
            binary,
            f"--config.file={cfg}",
            f"--storage.path={tmp / 'am-data'}",
            f"--web.listen-address={address}",
            "--cluster.listen-address=",
            "--log.level=warn",
        ],
        tmp / "alertmanager.log",
    )
    proc.wait_http(f"http://{address}/-/ready")
    return proc, address


class Webhook:
    """An HTTP receiver that records every Alertmanager notification."""

    def __init__(self) -> None:
        self.notifications: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        received = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("Content-Length") or 0)
                received.record(self.path, json.loads(self.rfile.read(length) or b"{}"))
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def record(self, path: str, payload: dict[str, Any]) -> None:
        """Keep one notification posted to ``path`` (called by the server's threads)."""
        with self._lock:
            self.notifications.append(payload)

    def alerts(self) -> list[dict[str, Any]]:
        """Every alert of every notification, in arrival order."""
        with self._lock:
            return [a for n in self.notifications for a in n.get("alerts", [])]

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
