"""The ASGI application: /metrics copies pre-rendered bytes (format 0.0.4 or OpenMetrics, as
the Accept header asks: ``zmon.exposition.formats.negotiate``; gzip when Accept-Encoding takes it),
/healthz, the status page at /, with the web config's basic auth and headers.

No client can hold up a scrape from here: bcrypt checks that miss the cache run on their own
small pool with a queue limit and a per-client limit (past either, 429 at once), and the
status page renders on its own thread, at most once per snapshot however many clients ask,
and at most a tenth of a core.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, MutableMapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from prometheus_client.core import Metric

from zmon.exposition.formats import negotiate
from zmon.exposition.metrics import MetricSet
from zmon.exposition.snapshot import Snapshot
from zmon.host.last_pools import LastPools
from zmon.status.published import Publisher
from zmon.web.webconfig import BasicAuth, WebConfig

TEXT = b"text/plain; charset=utf-8"
# /metrics answers differ by these request headers (caches must keep one per value)
VARY = (b"vary", b"Accept, Accept-Encoding")

# Failed bcrypt checks are what a client without the password can make zmon spend: one
# thread for them (one core at most, the other stays with scrapes), at most this many
# waiting or running, and at most this many from one client address.
AUTH_WORKERS = 1
AUTH_MAX_PENDING = 16
AUTH_PER_CLIENT = 2
REFUSAL_REASONS = ("connection_limit", "auth_busy", "headers_too_large")
# The status page may take a tenth of a core (its rendering competes with scrapes for the
# interpreter); a page is never held back longer than MAX_PAGE_GAP seconds.
PAGE_CPU_SHARE = 0.1
MAX_PAGE_GAP = 300.0

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]
PageRenderer = Callable[[Snapshot, str], str]


class DoorCounters:
    """What the front door turned away or closed to stay open for scrapes (self metrics)."""

    def __init__(self) -> None:
        self.idle_closed = 0
        self.refused = dict.fromkeys(REFUSAL_REASONS, 0)

    def families(self) -> list[Metric]:
        m = MetricSet()
        m.counter(
            "zmon_http_idle_connections_closed_total",
            "Idle connections (kept alive after a response, or not used yet) closed, oldest "
            "idle first, to make room for a request when web.max_connections were open.",
            self.idle_closed,
        )
        for reason, count in self.refused.items():
            m.counter(
                "zmon_http_requests_refused_total",
                "Requests answered at once without being served, by reason: connection_limit "
                "(503, web.max_connections busy), auth_busy (429, too many password checks "
                "waiting), headers_too_large (431).",
                count,
                {"reason": reason},
            )
        return m.families()


DOOR = DoorCounters()  # one front door per process; its counters survive reloads


_auth: list[BasicAuth] = []  # the last one made: a reload with the same users keeps it


def basic_auth(users: dict[str, bytes]) -> BasicAuth:
    """The checker for ``users``: the running one when a reload keeps the same users, so
    that the credentials it verified (Prometheus') stay verified and need no bcrypt check
    while password checks may be busy with a flood."""
    if _auth and _auth[0].users == users:
        return _auth[0]
    _auth[:] = [BasicAuth(users)]
    return _auth[0]


class CredentialGate:
    """bcrypt checks on their own bounded pool: ``check`` answers True or False, or None at
    once when ``max_pending`` checks (or ``per_client`` from this client) are already waiting
    or running. Runs on the event loop; only the checks themselves run on the pool."""

    def __init__(
        self,
        check: Callable[[str | None], bool],
        workers: int = AUTH_WORKERS,
        max_pending: int = AUTH_MAX_PENDING,
        per_client: int = AUTH_PER_CLIENT,
    ) -> None:
        self._check = check
        self._workers = workers
        self.max_pending = max_pending
        self.per_client = per_client
        self.pending = 0
        self._by_client: dict[str, int] = {}
        self._pool: ThreadPoolExecutor | None = None

    async def check(self, client: str, header: str | None) -> bool | None:
        if self.pending >= self.max_pending or self._by_client.get(client, 0) >= self.per_client:
            return None
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self._workers, thread_name_prefix="zmon-auth")
        self.pending += 1
        self._by_client[client] = self._by_client.get(client, 0) + 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self._pool, self._check, header)
        finally:
            self.pending -= 1
            left = self._by_client[client] - 1
            if left:
                self._by_client[client] = left
            else:
                del self._by_client[client]

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)


class PageCache:
    """The status page (HTML, or its JSON), rendered on a thread of its own, at most once per
    snapshot generation and at most ``share`` of a core.

    Requests while a rendering runs share it. After a rendering that took C seconds of CPU,
    the next one waits C / ``share`` seconds (a millisecond-page renders with every snapshot,
    a 50,000-vdev host's 5-second page every 50 s); meanwhile, and while a newer one renders,
    the last page is served at once.
    """

    def __init__(
        self,
        snapshot: Snapshot,
        render: Callable[[bool], tuple[bytes, str]],
        share: float = PAGE_CPU_SHARE,
        clock: Callable[[], float] = time.monotonic,
        cpu: Callable[[], float] = time.thread_time,
    ) -> None:
        self._snapshot = snapshot
        self._render = render
        self._share, self._clock, self._cpu = share, clock, cpu
        self._last: dict[bool, tuple[int, tuple[bytes, str]]] = {}  # generation, page
        self._jobs: dict[bool, asyncio.Future[tuple[int, tuple[bytes, str]]]] = {}
        self._next_at: dict[bool, float] = {}
        self._pool: ThreadPoolExecutor | None = None
        self.renders = 0

    async def get(self, as_json: bool) -> tuple[bytes, str]:
        generation = self._snapshot.generation
        last = self._last.get(as_json)
        if last is not None and (
            last[0] == generation
            or as_json in self._jobs
            or self._clock() < self._next_at.get(as_json, 0.0)
        ):
            return last[1]
        job = self._jobs.get(as_json)
        if job is None:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(1, thread_name_prefix="zmon-page")
            self.renders += 1
            job = asyncio.get_running_loop().run_in_executor(
                self._pool, self._timed, as_json, generation
            )
            self._jobs[as_json] = job
            job.add_done_callback(lambda done: self._finished(as_json, done))
        return (await asyncio.shield(job))[1]

    def _timed(self, as_json: bool, generation: int) -> tuple[int, tuple[bytes, str]]:
        started = self._cpu()
        try:
            return generation, self._render(as_json)
        finally:
            spent = self._cpu() - started
            self._next_at[as_json] = self._clock() + min(spent / self._share, MAX_PAGE_GAP)

    def _finished(self, as_json: bool, job: asyncio.Future[tuple[int, tuple[bytes, str]]]) -> None:
        self._jobs.pop(as_json, None)
        if not job.cancelled() and job.exception() is None:
            self._last[as_json] = job.result()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)


class App:
    """The ASGI application serving one snapshot with one web config; ``close()`` when the
    server generation it serves has stopped (it removes what it added to the snapshot)."""

    def __init__(
        self,
        snapshot: Snapshot,
        healthy: Callable[[], bool],
        title: str = "zmon",
        web: WebConfig | None = None,
        page: PageRenderer | None = None,
        counters: DoorCounters = DOOR,
        gate: CredentialGate | None = None,
        state_dir: Path | None = None,
        last_pools: Callable[[], LastPools | None] | None = None,
        publish: Publisher | None = None,
    ) -> None:
        from zmon.status.page import StatusPage

        web = web or WebConfig()
        self.snapshot = snapshot
        self.healthy = healthy
        self.title = title
        self.counters = counters
        self._custom_page = page
        self.auth = basic_auth(web.users) if web.users else None
        self.gate = gate or (CredentialGate(self.auth.check) if self.auth else None)
        self.status_page = StatusPage(
            snapshot, title, state_dir=state_dir, last_pools=last_pools, publish=publish
        )
        self.pages = PageCache(snapshot, self._render_page)
        self._listener: Callable[[], None] | None = None
        if page is None:  # the status page keeps its history from renders
            # on the page's clock, which the history's points are stamped with
            self._listener = within_budget(self.status_page.observe, clock=self.status_page.clock)
            snapshot.on_render.append(self._listener)
        if counters.families not in snapshot.own_metrics:
            snapshot.own_metrics.append(counters.families)
        self.extra = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in web.headers]

    def close(self) -> None:
        if self._listener is not None:
            self.snapshot.on_render.remove(self._listener)
            self._listener = None
        self.pages.close()
        if self.gate is not None:
            self.gate.close()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        await self.answer(scope, send)

    async def answer(self, scope: Scope, send: Send) -> None:
        method = scope["method"]
        path = scope["path"]
        extra = self.extra
        if self.auth is not None:
            allowed = await self._authorized(scope)
            if allowed is None:
                self.counters.refused["auth_busy"] += 1
                await _reply(
                    send, 429, b"too many password checks waiting\n", TEXT, method,
                    [(b"retry-after", b"1"), *extra],
                )  # fmt: skip
                return
            if not allowed:
                await _reply(
                    send, 401, b"unauthorized\n", TEXT, method,
                    [(b"www-authenticate", b'Basic realm="zmon"'), *extra],
                )  # fmt: skip
                return
        if method not in ("GET", "HEAD"):
            await _reply(
                send, 405, b"method not allowed\n", TEXT, method, [(b"allow", b"GET, HEAD"), *extra]
            )
            return
        if path == "/metrics":
            await self._metrics(scope, send)
        elif path == "/healthz":
            if not self.snapshot.generation:
                await _reply(send, 503, b"no data collected yet\n", b"text/plain", method, extra)
            elif self.healthy():
                await _reply(send, 200, b"ok\n", b"text/plain", method, extra)
            else:
                await _reply(send, 503, b"collectors stopped\n", b"text/plain", method, extra)
        elif path == "/":
            query = scope.get("query_string", b"").decode("latin-1")
            body, ctype = await self.pages.get("format=json" in query.split("&"))
            await _reply(send, 200, body, ctype.encode(), method, extra)
        else:
            await _reply(send, 404, b"not found\n", b"text/plain", method, extra)

    async def _metrics(self, scope: Scope, send: Send) -> None:
        method, extra, snapshot = scope["method"], self.extra, self.snapshot
        if not snapshot.generation:  # an empty 200 would mark every series stale
            await _reply(
                send, 503, b"no data collected yet\n", TEXT, method,
                [(b"retry-after", b"1"), *extra],
            )  # fmt: skip
            return
        loop = asyncio.get_running_loop()
        fmt = negotiate(_header(scope, b"accept").decode("latin-1"))
        content_type = fmt.content_type.encode()
        expo = snapshot.joined(fmt)
        if expo is None:  # the first scrape of this format after a change joins it, off the loop
            expo = await loop.run_in_executor(None, snapshot.exposition_in, fmt)
        if accepts_gzip(_header(scope, b"accept-encoding")):
            await _reply(
                send, 200, expo.gzipped, content_type, method,
                [(b"content-encoding", b"gzip"), VARY, *extra],
            )  # fmt: skip
            return
        if not expo.has_text:  # plain text is inflated on the first such scrape
            await loop.run_in_executor(None, lambda: expo.text)
        await _reply(send, 200, expo.text, content_type, method, [VARY, *extra])

    async def _authorized(self, scope: Scope) -> bool | None:
        """True or False, or None when too many checks wait (the client may retry)."""
        assert self.auth is not None and self.gate is not None
        value = _header(scope, b"authorization").decode("latin-1") or None
        known = self.auth.cached(value)
        if known is not None:
            return known
        client = scope.get("client") or ("", 0)
        # bcrypt takes tens of milliseconds: off the event loop, on the gate's own pool
        return await self.gate.check(str(client[0]), value)

    def _render_page(self, as_json: bool) -> tuple[bytes, str]:
        if self._custom_page is not None:
            html = self._custom_page(self.snapshot, self.title)
            return html.encode(), "text/html; charset=utf-8"
        return self.status_page.respond("format=json" if as_json else "")


def make_app(
    snapshot: Snapshot,
    healthy: Callable[[], bool],
    title: str = "zmon",
    web: WebConfig | None = None,
    page: PageRenderer | None = None,
    state_dir: Path | None = None,
    last_pools: Callable[[], LastPools | None] | None = None,
    publish: Publisher | None = None,
) -> App:
    """The ASGI application serving one snapshot, with the web config's auth and headers.
    ``page`` renders ``/`` (default: the status page, zmon/status/page.py); it shows the
    pools' last known states while zpool does not answer, from ``last_pools`` or else the
    file in ``state_dir``; ``publish`` writes its judged report for ``zmon status`` on this
    host (zmon/status/published.py)."""
    return App(
        snapshot,
        healthy,
        title,
        web,
        page,
        state_dir=state_dir,
        last_pools=last_pools,
        publish=publish,
    )


def accepts_gzip(header: bytes) -> bool:
    """Whether an Accept-Encoding value accepts gzip: listed (or ``*`` when gzip is not
    named) with a q-value above 0 (RFC 9110 12.5.3)."""
    star: bool | None = None
    for item in header.decode("latin-1").lower().split(","):
        coding, *params = (p.strip() for p in item.split(";"))
        q = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if coding in ("gzip", "x-gzip"):
            return q > 0
        if coding == "*":
            star = q > 0
    return bool(star)


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


# ---- the status page's history, held to a share of a core

# the status page's history may take 0.1 % of a core: a small host's cheap reads get a point
# every 10 s, a big host's dearer ones fewer (the gap grows with a read's CPU time)
HISTORY_CPU_SHARE = 0.001
MAX_HISTORY_GAP = 600.0  # seconds: the longest the budget may hold the next point back


def within_budget(
    observe: Callable[[], None],
    share: float = HISTORY_CPU_SHARE,
    clock: Callable[[], float] = time.monotonic,
    cpu: Callable[[], float] = time.thread_time,
) -> Callable[[], None]:
    """``observe``, skipped until its last call's CPU time is ``share`` of the time since.

    Reading the host model for the status page's history is cheap on a small host and grows
    with the vdevs, in the serving process (which holds the families the views read): on a
    big host the history gets points further apart instead of taking more CPU.
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
