"""Real components on loopback for the rule tests: zmon's demo host, Prometheus, Alertmanager.

Each process runs in its own session, logs to a file in the test's temporary directory and is
stopped (SIGTERM, then SIGKILL) by ``stop()``. Nothing listens beyond 127.0.0.1.
"""

from __future__ import annotations

import json
import socket
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

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def http_get(url: str, timeout: float = 10) -> bytes:
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return bytes(r.read())


class Process:
    """A child process in its own session, logging to ``log``."""

    def __init__(self, argv: Sequence[str], log: Path, cwd: Path | None = None) -> None:
        self.argv = list(argv)
        self.log = log
        self._out = log.open("wb")
        self.proc = subprocess.Popen(self.argv, stdout=self._out, stderr=subprocess.STDOUT,
                                     cwd=cwd, start_new_session=True)  # fmt: skip

    def wait_http(self, url: str, timeout: float = 30) -> None:
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
        stop_process_group(self.proc)
        self._out.close()


def fast_collectors_config(path: Path) -> Path:
    """A zmon config running every collector each second (the demo's phases are seconds long)."""
    from zmon.registry import collectors

    lines = []
    for name, cls in sorted(collectors().items()):
        timeout = min(float(cls.default_timeout), 5.0)
        lines += [f"[collectors.{name}]", "interval = 1.0", f"timeout = {timeout}", ""]
    path.write_text("\n".join(lines))
    return path


def start_zmon_demo(tmp: Path, phase_seconds: float) -> tuple[Process, str]:
    """``zmon serve --demo`` on a free port; returns the process and its host:port."""
    address = f"127.0.0.1:{free_port()}"
    config = fast_collectors_config(tmp / "zmon.toml")
    proc = Process([sys.executable, "-m", "zmon.cli", "serve", "--demo",
                    "--demo.phase-seconds", str(phase_seconds), "--config", str(config),
                    "--web.listen-address", address, "--log.format", "json"],
                   tmp / "zmon.log", cwd=REPO)  # fmt: skip
    proc.wait_http(f"http://{address}/healthz")
    return proc, address


class Prometheus:
    """A Prometheus server scraping zmon every second, with the given rule files."""

    def __init__(self, binary: str, tmp: Path, target: str, rule_files: Sequence[Path],
                 alertmanager: str | None = None) -> None:  # fmt: skip
        self.address = f"127.0.0.1:{free_port()}"
        self.url = f"http://{self.address}"
        config = {
            "global": {
                "scrape_interval": "1s",
                "scrape_timeout": "1s",
                "evaluation_interval": "1s",
            },  # fmt: skip
            "rule_files": [str(p) for p in rule_files],
            "scrape_configs": [{"job_name": "zmon", "static_configs": [{"targets": [target]}]}],
        }
        if alertmanager:
            managers = [{"static_configs": [{"targets": [alertmanager]}]}]
            config["alerting"] = {"alertmanagers": managers}
        cfg = tmp / "prometheus.yml"
        cfg.write_text(json.dumps(config, indent=2))  # JSON is YAML
        self.proc = Process([binary, f"--config.file={cfg}",
                             f"--storage.tsdb.path={tmp / 'prometheus-data'}",
                             f"--web.listen-address={self.address}",
                             "--rules.alert.resend-delay=1s", "--log.level=warn"],
                            tmp / "prometheus.log")  # fmt: skip
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

    def wait_for(self, expr: str, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.query(expr):
                return
            time.sleep(0.5)
        raise AssertionError(f"{expr!r} returned nothing for {timeout}s:\n{self.proc.tail()}")

    def stop(self) -> None:
        self.proc.stop()


class PromQLError(AssertionError):
    pass


def start_alertmanager(binary: str, tmp: Path, webhook_url: str) -> tuple[Process, str]:
    """Alertmanager sending every alert, firing and resolved, to ``webhook_url`` at once."""
    address = f"127.0.0.1:{free_port()}"
    config = {
        "route": {"receiver": "webhook", "group_by": ["..."], "group_wait": "1s",
                  "group_interval": "1s", "repeat_interval": "1h"},  # fmt: skip
        "receivers": [{"name": "webhook",
                       "webhook_configs": [{"url": webhook_url, "send_resolved": True}]}],
    }  # fmt: skip
    cfg = tmp / "alertmanager.yml"
    cfg.write_text(json.dumps(config, indent=2))
    proc = Process([binary, f"--config.file={cfg}", f"--storage.path={tmp / 'am-data'}",
                    f"--web.listen-address={address}", "--cluster.listen-address=",
                    "--log.level=warn"], tmp / "alertmanager.log")  # fmt: skip
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
                payload = json.loads(self.rfile.read(length) or b"{}")
                with received._lock:
                    received.notifications.append(payload)
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def alerts(self) -> list[dict[str, Any]]:
        """Every alert of every notification, in arrival order."""
        with self._lock:
            return [a for n in self.notifications for a in n.get("alerts", [])]

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
