"""HTTP server: /metrics copies pre-rendered bytes, /healthz, and a landing page at /."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterable
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from prometheus_client.exposition import ThreadingWSGIServer

from zmon.snapshot import Snapshot

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

StartResponse = Callable[[str, list[tuple[str, str]]], Any]


class _QuietHandler(WSGIRequestHandler):
    """No access log on stderr; zmon logs what matters itself."""

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        return


def make_app(snapshot: Snapshot, healthy: Callable[[], bool], title: str = "zmon") -> Any:
    """The WSGI application serving one snapshot."""
    from zmon.status.page import StatusPage

    status_page = StatusPage(snapshot, title)
    snapshot.on_render.append(status_page.observe)

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
            body, ctype = status_page.respond(environ.get("QUERY_STRING", ""))
            return _reply(start_response, "200 OK", body, ctype, method)
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
    """The status page (zmon/status/page.py) of ``snapshot``, without history."""
    from zmon.status.page import StatusPage

    return StatusPage(snapshot, title).respond()[0].decode()


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


def _family_for(host: str) -> int:
    return socket.AF_INET6 if ":" in host else socket.AF_INET
