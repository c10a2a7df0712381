"""HTTP front door: /metrics copies pre-rendered bytes, /healthz, and a status page at /.

Two parts, kept apart: ``make_app`` is the ASGI application (routes, basic auth, headers; the
page at ``/`` comes from one function, ``landing_page``), and ``HTTPFrontend`` is the transport.

The transport is uvicorn with its httptools parser, chosen by measurement against the stdlib
threaded server and cheroot (benchmarks/README.md): one event loop serves every connection, so
idle and half-open connections cost a file descriptor, not a thread; HTTP/1.1 keep-alive; TLS
handshakes do not block other clients; past ``web.max_connections`` it answers 503 at once
instead of queueing. zmon adds what uvicorn lacks: a deadline for a request's headers
(``web.read_timeout``, from the first byte, or from connecting), the listen backlog, and
bind-first reloads.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from concurrent.futures import Future
from email.utils import formatdate
from typing import Any

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.server import ServerState

from zmon.listen import BACKLOG, Listeners
from zmon.snapshot import Snapshot
from zmon.webconfig import BasicAuth, WebConfig

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]
PageRenderer = Callable[[Snapshot, str], str]


def make_app(
    snapshot: Snapshot,
    healthy: Callable[[], bool],
    title: str = "zmon",
    web: WebConfig | None = None,
    page: PageRenderer | None = None,
) -> ASGIApp:
    """The ASGI application serving one snapshot, with the web config's auth and headers.
    ``page`` renders ``/`` (default: the status page, zmon/status/page.py)."""
    from zmon.status.page import StatusPage

    web = web or WebConfig()
    auth = BasicAuth(web.users) if web.users else None
    status_page = StatusPage(snapshot, title)
    if page is None:  # the status page keeps its history from renders
        # on the page's clock, which the history's points are stamped with
        snapshot.on_render.append(within_budget(status_page.observe, clock=status_page.clock))
    extra = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in web.headers]

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        await answer(scope, send)

    async def answer(scope: Scope, send: Send) -> None:
        method = scope["method"]
        path = scope["path"]
        if auth is not None and not await _authorized(auth, scope):
            await _reply(
                send,
                401,
                b"unauthorized\n",
                b"text/plain; charset=utf-8",
                method,
                [(b"www-authenticate", b'Basic realm="zmon"'), *extra],
            )
            return
        if method not in ("GET", "HEAD"):
            await _reply(
                send,
                405,
                b"method not allowed\n",
                b"text/plain; charset=utf-8",
                method,
                [(b"allow", b"GET, HEAD"), *extra],
            )
            return
        if path == "/metrics":
            if snapshot.joined:
                expo = snapshot.exposition
            else:  # the first scrape after a change joins it, off the event loop
                expo = await asyncio.get_running_loop().run_in_executor(
                    None, lambda: snapshot.exposition
                )
            if b"gzip" in _header(scope, b"accept-encoding").lower():
                await _reply(
                    send,
                    200,
                    expo.gzipped,
                    CONTENT_TYPE.encode(),
                    method,
                    [(b"content-encoding", b"gzip"), (b"vary", b"Accept-Encoding"), *extra],
                )
            else:
                if not expo.has_text:  # plain text is inflated on the first such scrape
                    await asyncio.get_running_loop().run_in_executor(None, lambda: expo.text)
                await _reply(
                    send,
                    200,
                    expo.text,
                    CONTENT_TYPE.encode(),
                    method,
                    [(b"vary", b"Accept-Encoding"), *extra],
                )
        elif path == "/healthz":
            if healthy():
                await _reply(send, 200, b"ok\n", b"text/plain", method, extra)
            else:
                await _reply(send, 503, b"collectors stopped\n", b"text/plain", method, extra)
        elif path == "/":
            if page is not None:
                body, ctype = page(snapshot, title).encode(), "text/html; charset=utf-8"
            else:
                query = scope.get("query_string", b"").decode("latin-1")
                body, ctype = status_page.respond(query)
            await _reply(send, 200, body, ctype.encode(), method, extra)
        else:
            await _reply(send, 404, b"not found\n", b"text/plain", method, extra)

    return app


# the status page's history may take 0.1 % of a core: a point every 10 s on a small host (a
# millisecond each), every 25 s or so with 1,000 disks (25 ms each; benchmarks/README.md)
HISTORY_CPU_SHARE = 0.001
MAX_HISTORY_GAP = 600.0  # seconds: the longest the budget may hold the next point back


def within_budget(
    observe: Callable[[], None],
    share: float = HISTORY_CPU_SHARE,
    clock: Callable[[], float] = time.monotonic,
    cpu: Callable[[], float] = time.thread_time,
) -> Callable[[], None]:
    """``observe``, skipped until its last call's CPU time is ``share`` of the time since.

    Reading the host model for the status page's history takes a millisecond on a small
    host and, with 1,100 vdevs, 25 ms (benchmarks/README.md): there the history gets a point
    every 25 s instead of every 10 s.
    """
    next_at = 0.0

    def call() -> None:
        nonlocal next_at
        now = clock()
        if now < next_at <= now + MAX_HISTORY_GAP:  # (a clock set back: sample now)
            return
        started = cpu()
        try:
            observe()
        finally:
            next_at = now + (cpu() - started) / share

    return call


async def _authorized(auth: BasicAuth, scope: Scope) -> bool:
    value = _header(scope, b"authorization").decode("latin-1") or None
    known = auth.cached(value)
    if known is not None:
        return known
    # bcrypt takes tens of milliseconds: off the event loop, so other scrapes go on meanwhile
    return await asyncio.get_running_loop().run_in_executor(None, auth.check, value)


def _header(scope: Scope, name: bytes) -> bytes:
    for k, v in scope["headers"]:
        if k == name:
            return bytes(v)
    return b""


async def _reply(
    send: Send,
    status: int,
    body: bytes,
    ctype: bytes,
    method: str,
    extra: list[tuple[bytes, bytes]],
) -> None:
    headers = [(b"content-type", ctype), (b"content-length", str(len(body)).encode()), *extra]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": b"" if method == "HEAD" else body})


def landing_page(snapshot: Snapshot, title: str) -> str:
    """The status page (zmon/status/page.py) of ``snapshot``, without history."""
    from zmon.status.page import StatusPage

    return StatusPage(snapshot, title).respond()[0].decode()


class _DeadlineProtocol(HttpToolsProtocol):
    """uvicorn's HTTP/1.1 protocol, plus a deadline for each request's headers.

    uvicorn closes a keep-alive connection that stays idle after a response, but gives a new
    connection, or one that sent part of a request, all the time it wants. Here a request's
    headers must be complete within ``read_timeout`` seconds of the connection opening or of
    the request's first byte; otherwise the connection is closed.
    """

    read_timeout = 10.0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._header_deadline: asyncio.TimerHandle | None = None
        super().connection_made(transport)
        self._arm_deadline()

    def data_received(self, data: bytes) -> None:
        if isinstance(self.server_state, DatedState):
            self.server_state.refresh_date()
        if self._header_deadline is None and (self.cycle is None or self.cycle.response_complete):
            self._arm_deadline()
        super().data_received(data)

    def on_headers_complete(self) -> None:
        self._disarm_deadline()
        super().on_headers_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_deadline()
        super().connection_lost(exc)

    def _arm_deadline(self) -> None:
        self._header_deadline = self.loop.call_later(self.read_timeout, self._deadline_passed)

    def _disarm_deadline(self) -> None:
        if self._header_deadline is not None:
            self._header_deadline.cancel()
            self._header_deadline = None

    def _deadline_passed(self) -> None:
        self._header_deadline = None
        if not self.transport.is_closing():
            self.transport.close()


class DatedState(ServerState):
    """uvicorn's state shared by a server's connections, whose Date header is brought up to
    date by the requests themselves (``refresh_date``), so that no timer has to."""

    def __init__(self, extra_headers: list[tuple[bytes, bytes]]) -> None:
        super().__init__()
        self._extra = extra_headers
        self._second = -1

    def refresh_date(self) -> None:
        now = time.time()
        if int(now) != self._second:
            self._second = int(now)
            self.default_headers = [(b"date", formatdate(now, usegmt=True).encode()), *self._extra]


class QuietServer(uvicorn.Server):
    """uvicorn's server without its timer: nothing wakes an idle front door.

    uvicorn's main loop sleeps 0.1 s between checks of ``should_exit`` and refreshes the Date
    header every tenth time: 0.25-0.3 % of a core with no client at all (measured; more than
    the collectors of a small host), 0.05 % at one tick a second. Here each request refreshes
    the header (``DatedState``) and ``request_exit`` wakes the loop, which otherwise sleeps.
    """

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.server_state = DatedState(config.encoded_headers)
        self._wake: asyncio.Event | None = None  # made in the serving loop
        self._wake_loop: asyncio.AbstractEventLoop | None = None

    async def main_loop(self) -> None:
        self._wake = asyncio.Event()
        self._wake_loop = asyncio.get_running_loop()
        while not self.should_exit:
            await self._wake.wait()

    def request_exit(self) -> None:
        """Ask the server to stop, from any thread."""
        self.should_exit = True  # seen by the loop if it has not started waiting yet
        loop, wake = self._wake_loop, self._wake
        if loop is not None and wake is not None:
            with contextlib.suppress(RuntimeError):  # the loop is closed: nothing to wake
                loop.call_soon_threadsafe(wake.set)


class _Generation:
    """One uvicorn server on a set of listening sockets, with one app and TLS context."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        app: ASGIApp,
        sockets: list[Any],
        web: WebConfig,
        limits: dict[str, float],
    ) -> None:
        protocol = type(
            "ZmonHTTPProtocol", (_DeadlineProtocol,), {"read_timeout": limits["read_timeout"]}
        )
        config = uvicorn.Config(
            app,
            http=protocol,
            loop="asyncio",
            lifespan="off",
            log_config=None,
            access_log=False,
            server_header=False,
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


class HTTPFrontend:
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
    ) -> None:
        self._app_for = app_for
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
        web = web or WebConfig()
        with self._lock:
            if not self._thread.is_alive():
                self._thread.start()
            sockets = self._listeners.prepare(addresses)  # ListenError: nothing changed
            gen: _Generation | None = None
            try:
                gen = _Generation(
                    self._loop, self._app_for(web), list(sockets.values()), web, self._limits
                )
                gen.start()
            except BaseException:
                if gen is not None:
                    gen.stop()
                self._listeners.discard(sockets)
                raise
            old, self._current = self._current, gen
            self._listeners.commit(sockets)
        if old is not None:
            old.stop()

    def ports(self) -> dict[str, int]:
        """The port each configured address is bound to (useful with port 0)."""
        return self._listeners.ports()

    @property
    def port(self) -> int:
        """The port of the first address."""
        return next(iter(self.ports().values()))

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
