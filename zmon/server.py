"""HTTP server: /metrics copies pre-rendered bytes, /healthz, and a landing page at /."""

from __future__ import annotations

import html
import socket
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from prometheus_client.exposition import ThreadingWSGIServer

from zmon import __version__
from zmon.snapshot import CollectorState, Snapshot

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

StartResponse = Callable[[str, list[tuple[str, str]]], Any]


class _QuietHandler(WSGIRequestHandler):
    """No access log on stderr; zmon logs what matters itself."""

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        return


def make_app(snapshot: Snapshot, healthy: Callable[[], bool], title: str = "zmon") -> Any:
    """The WSGI application serving one snapshot."""

    def app(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "/")
        method = environ.get("REQUEST_METHOD", "GET")
        if method not in ("GET", "HEAD"):
            return _reply(start_response, "405 Method Not Allowed", b"method not allowed\n",
                          "text/plain; charset=utf-8", method, [("Allow", "GET, HEAD")])
        if path == "/metrics":
            expo = snapshot.exposition
            accept = environ.get("HTTP_ACCEPT_ENCODING", "")
            if "gzip" in accept.lower():
                return _reply(start_response, "200 OK", expo.gzipped, CONTENT_TYPE, method,
                              [("Content-Encoding", "gzip"), ("Vary", "Accept-Encoding")])
            return _reply(start_response, "200 OK", expo.text, CONTENT_TYPE, method,
                          [("Vary", "Accept-Encoding")])
        if path == "/healthz":
            if healthy():
                return _reply(start_response, "200 OK", b"ok\n", "text/plain", method)
            return _reply(start_response, "503 Service Unavailable", b"collectors stopped\n",
                          "text/plain", method)
        if path == "/":
            page = landing_page(snapshot, title).encode()
            return _reply(start_response, "200 OK", page, "text/html; charset=utf-8", method)
        return _reply(start_response, "404 Not Found", b"not found\n", "text/plain", method)

    return app


def _reply(
    start_response: StartResponse,
    status: str,
    body: bytes,
    ctype: str,
    method: str,
    extra: list[tuple[str, str]] | None = None,
) -> Iterable[bytes]:
    headers = [("Content-Type", ctype), ("Content-Length", str(len(body))), *(extra or [])]
    start_response(status, headers)
    return [b""] if method == "HEAD" else [body]


def landing_page(snapshot: Snapshot, title: str) -> str:
    """A small status page: each collector's state, last success, last error."""
    now = time.time()
    rows = []
    for s in snapshot.states():
        if s.success is None:
            state, css = "pending", "pending"
        elif s.stale(now):
            if s.success:
                state = "stale"
            elif s.last_success:
                state = "failing (serving last good data)"
            else:
                state = "failing"
            css = "bad"
        elif not s.has_data:
            state, css = "no data on this host", "idle"
        else:
            state, css = "ok", "ok"
        age = f"{now - s.last_success:.0f}s ago" if s.last_success else "never"
        rows.append(
            f"<tr class='{css}'><td>{html.escape(s.name)}</td><td>{html.escape(state)}</td>"
            f"<td>{s.interval:g}s</td><td>{s.last_duration:.3f}s</td><td>{age}</td>"
            f"<td>{html.escape(s.last_error)}</td></tr>"
        )
    expo = snapshot.exposition
    summaries = "".join(_summary_table(s) for s in snapshot.states())
    return f"""<!doctype html>
<html><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>
body {{ font-family: sans-serif; margin: 2em; }}
table {{ border-collapse: collapse; margin-bottom: 1.5em; }}
td, th {{ border: 1px solid #ccc; padding: .3em .6em; }}
tr.ok td:nth-child(2) {{ color: #070; }}
tr.bad td:nth-child(2) {{ color: #b00; font-weight: bold; }}
tr.idle td:nth-child(2),
tr.pending td:nth-child(2) {{ color: #777; }}
</style></head>
<body>
<h1>{html.escape(title)}</h1>
<p>ZFS health monitor and Prometheus exporter, version {html.escape(__version__)}.
<a href="/metrics">Metrics</a> ({len(expo.text)} bytes, rendered {now - expo.rendered_at:.0f}s ago)
&middot; <a href="/healthz">Health</a></p>
<table><tr><th>collector</th><th>state</th><th>interval</th><th>last run took</th>
<th>last success</th><th>last error</th></tr>
{''.join(rows)}
</table>
{summaries}
</body></html>
"""


def _summary_table(state: CollectorState) -> str:
    """The table a collector gives the landing page (pools and their states, ...), if any."""
    if state.summary is None or not state.summary_title:
        return ""
    rows = "".join(
        f"<tr class='{'ok' if row.healthy else 'bad'}'><td>{html.escape(row.thing)}</td>"
        f"<td>{html.escape(row.state)}</td></tr>"
        for row in state.summary(state.families)
    )
    if not rows:
        return ""
    return (f"<h2>{html.escape(state.summary_title)}</h2><table><tr><th>name</th>"
            f"<th>state</th></tr>{rows}</table>")  # fmt: skip


class MetricsServer:
    """A threaded HTTP server on its own thread."""

    def __init__(self, host: str, port: int, app: Any) -> None:
        server_class = type(
            "ZmonHTTPServer", (ThreadingWSGIServer,), {"address_family": _family_for(host)}
        )
        self._httpd: WSGIServer = make_server(host or "", port, app, server_class,
                                  handler_class=_QuietHandler)  # fmt: skip
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="zmon-http",
                                        daemon=True)  # fmt: skip

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(2.0)

    def close(self) -> None:
        """Release the socket of a server that was never started."""
        self._httpd.server_close()


def _family_for(host: str) -> int:
    return socket.AF_INET6 if ":" in host else socket.AF_INET
