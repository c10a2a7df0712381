"""The HTTP front door: listening sockets, TLS, and the uvicorn server generation serving them.

The transport is uvicorn with its httptools parser: one event loop serves every connection,
so idle and half-open connections cost a file descriptor, not a thread; HTTP/1.1 keep-alive;
TLS handshakes do not block other clients; past ``web.max_connections`` it answers 503 at
once instead of queueing. zmon adds what uvicorn lacks (zmon/web/uvicorn_glue.py): a deadline
for a request's headers (``web.read_timeout``, from the first byte, or from connecting) and
limits on their size, idle connections closed first when connections run short, the
listen backlog, and bind-first reloads (each reload starts a new generation on the new
sockets before the old one stops). The application is zmon/web/webapp.py.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

import uvicorn

from zmon.web.listen import BACKLOG, Listeners, Listening
from zmon.web.uvicorn_glue import DeadlineProtocol, QuietServer
from zmon.web.webapp import DOOR, ASGIApp, DoorCounters, landing_page, make_app
from zmon.web.webconfig import WebConfig

__all__ = ["HTTPFrontend", "landing_page", "make_app"]


class _Generation:
    """One uvicorn server on a set of listening sockets, with one app and TLS context."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        app: ASGIApp,
        sockets: list[Any],
        web: WebConfig,
        limits: dict[str, float],
        counters: DoorCounters,
    ) -> None:
        protocol = type(
            "ZmonHTTPProtocol",
            (DeadlineProtocol,),
            {
                "read_timeout": limits["read_timeout"],
                "max_connections": int(limits["max_connections"]),
                "counters": counters,
            },
        )
        config = uvicorn.Config(
            app,
            http=protocol,
            loop="asyncio",
            lifespan="off",
            log_config=None,
            access_log=False,
            server_header=False,
            # the client address is the peer's (per-client limits), never a header's
            proxy_headers=False,
            backlog=BACKLOG,
            interface="asgi3",
            # uvicorn counts the connection asking, so N+1 lets N connections in
            limit_concurrency=int(limits["max_connections"]) + 1,
            timeout_keep_alive=int(limits["idle_timeout"]),
            timeout_graceful_shutdown=5,
        )
        config.load()
        ctx = web.ssl_context()
        if ctx is not None:
            ctx.set_alpn_protocols(["http/1.1"])
        config.ssl = ctx
        self.server = QuietServer(config)
        self.app = app
        # Each generation serves duplicates of the listening sockets and closes them when it
        # stops; the originals stay open for the next generation.
        self._sockets = [s.dup() for s in sockets]
        self._loop = loop
        self._done: Future[None] | None = None

    def start(self, timeout: float = 10.0) -> None:
        self._done = asyncio.run_coroutine_threadsafe(
            self.server.serve(sockets=self._sockets), self._loop
        )
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if self._done.done():
                self._done.result()  # raises what went wrong
                raise RuntimeError("the HTTP server stopped while starting")
            if time.monotonic() > deadline:
                raise RuntimeError("the HTTP server did not start")
            time.sleep(0.005)

    def stop(self, timeout: float = 10.0) -> None:
        self.server.request_exit()
        if self._done is not None:
            try:
                self._done.result(timeout)
            except Exception:  # noqa: BLE001 - a server that failed is stopped too
                self.server.force_exit = True
        for s in self._sockets:
            s.close()
        _close(self.app)


def _close(app: ASGIApp) -> None:
    """Close what an app added to its snapshot, and its threads (zmon.web.webapp.App.close)."""
    close = getattr(app, "close", None)
    if close is not None:
        close()


class HTTPFrontend(Listening):
    """The listening side: sockets, TLS, and the server generation serving them.

    ``serve(addresses, web)`` starts serving, or moves to new addresses and a new web config:
    it binds added addresses and loads TLS first, starts a new generation on the new set, and
    only then stops the old one. If binding or loading fails, it raises and the running
    generation is left exactly as it was.
    """

    def __init__(
        self,
        app_for: Callable[[WebConfig], ASGIApp],
        max_connections: int = 1024,
        read_timeout: float = 10.0,
        idle_timeout: float = 120.0,
        counters: DoorCounters = DOOR,
    ) -> None:
        self._app_for = app_for
        self.counters = counters
        self._limits = {
            "max_connections": max_connections,
            "read_timeout": read_timeout,
            "idle_timeout": idle_timeout,
        }
        self._listeners = Listeners()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="zmon-http", daemon=True
        )
        self._current: _Generation | None = None
        self._lock = threading.Lock()
        # uvicorn logs through the stdlib: keep its errors (an exception in the app), drop its
        # notes on each start and stop and its warnings about malformed client requests
        logging.getLogger("uvicorn.error").setLevel(logging.ERROR)

    def serve(self, addresses: list[str], web: WebConfig | None = None) -> None:
        with self._lock:
            sockets = self._listeners.prepare(addresses)  # ListenError: nothing changed
            try:
                old = self._switch(sockets, web or WebConfig())
            except BaseException:
                self._listeners.discard(sockets)
                raise
            self._listeners.commit(sockets)
        if old is not None:
            old.stop()

    def serve_sockets(self, sockets: dict[str, Any], web: WebConfig) -> None:
        """``serve`` on sockets bound elsewhere (by the privileged side, zmon/runtime/front.py), by
        address; a generation serves duplicates, so the caller closes these."""
        with self._lock:
            old = self._switch(sockets, web)
        if old is not None:
            old.stop()

    def _switch(self, sockets: dict[str, Any], web: WebConfig) -> _Generation | None:
        """Start a generation on ``sockets`` and make it current; the one it replaces, to be
        stopped (lock held)."""
        if not self._thread.is_alive():
            self._thread.start()
        gen: _Generation | None = None
        app: ASGIApp | None = None
        try:
            app = self._app_for(web)
            gen = _Generation(
                self._loop, app, list(sockets.values()), web, self._limits, self.counters
            )
            gen.start()
        except BaseException:
            if gen is not None:
                gen.stop()  # (closes the app too)
            elif app is not None:
                _close(app)
            raise
        old, self._current = self._current, gen
        return old

    def stop(self) -> None:
        with self._lock:
            gen, self._current = self._current, None
            self._listeners.close()
        if gen is not None:
            gen.stop()
        if self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(5.0)
        if not self._thread.is_alive():
            self._loop.close()
