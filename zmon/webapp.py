"""The ASGI application: /metrics copies pre-rendered bytes, /healthz, the status page at /,
with the web config's basic auth and headers."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

from zmon.budget import within_budget
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
    state_dir: Path | None = None,
) -> ASGIApp:
    """The ASGI application serving one snapshot, with the web config's auth and headers.
    ``page`` renders ``/`` (default: the status page, zmon/status/page.py); ``state_dir``
    holds the pools' last known states it shows while zpool does not answer."""
    from zmon.status.page import StatusPage

    web = web or WebConfig()
    auth = BasicAuth(web.users) if web.users else None
    status_page = StatusPage(snapshot, title, state_dir=state_dir)
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
