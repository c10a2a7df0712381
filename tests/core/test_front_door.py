"""No client can starve the scrape: password checks on their own bounded pool, idle
connections closed first, limits on request headers, the status page rendered off the event
loop once per snapshot, no listener left behind by a reload, and honest readiness.

Each case blocks the expensive part (a password check, a page rendering) on an event and shows
that /metrics still answers meanwhile; none depends on how long anything takes.
"""

from __future__ import annotations

import asyncio
import base64
import gzip
import http.client
import socket
import threading
from collections.abc import Callable, Iterator

import bcrypt
import pytest

from zmon.base.runner import StaticRunner
from zmon.collecting.registry import Collector, Context, Paths
from zmon.collecting.scheduler import Scheduler
from zmon.exposition.metrics import MetricSet
from zmon.exposition.snapshot import Snapshot
from zmon.web.server import HTTPFrontend
from zmon.web.uvicorn_glue import MAX_HEADER_BYTES, MAX_HEADER_LINE, MAX_HEADERS
from zmon.web.webapp import (
    App,
    CredentialGate,
    DoorCounters,
    PageCache,
    accepts_gzip,
    make_app,
)
from zmon.web.webconfig import BasicAuth, WebConfig, hash_cost


class One(Collector):
    name = "one"

    def collect(self) -> MetricSet:
        m = MetricSet()
        m.gauge("zmon_test_value", "A test value.", 42)
        return m


def _snapshot() -> Snapshot:
    s = Scheduler()
    s.add(One(Context(paths=Paths(), runner=StaticRunner())), 60, 1)
    s.workers["one"].run_once()
    return s.snapshot


def _basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


def _get(
    port: int, path: str = "/metrics", headers: dict[str, str] | None = None
) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", path, headers=headers or {})
    resp = conn.getresponse()
    resp.read()
    conn.close()
    return resp


@pytest.fixture
def frontend() -> Iterator[Callable[..., HTTPFrontend]]:
    started: list[HTTPFrontend] = []

    def start(
        app_for: Callable[[WebConfig], App], web: WebConfig | None = None, **kw: object
    ) -> HTTPFrontend:
        f = HTTPFrontend(app_for, **kw)  # type: ignore[arg-type]
        f.serve(["127.0.0.1:0"], web)
        started.append(f)
        return f

    yield start
    for f in started:
        f.stop()


class Blocking:
    """A call that blocks until released, counting how many run at once."""

    def __init__(self, result: object = False) -> None:
        self.release = threading.Event()
        self.result = result
        self.calls = 0
        self.running = 0
        self.most = 0
        self.entered = threading.Semaphore(0)
        self._lock = threading.Lock()

    def __call__(self, *args: object) -> object:
        with self._lock:
            self.calls += 1
            self.running += 1
            self.most = max(self.most, self.running)
        self.entered.release()
        try:
            assert self.release.wait(60)
            return self.result
        finally:
            with self._lock:
                self.running -= 1


# -- password checks ----------------------------------------------------------------------------


def test_wrong_passwords_wait_on_their_own_bounded_pool_while_a_scrape_is_served(
    frontend: Callable[..., HTTPFrontend],
) -> None:
    hashed = bcrypt.hashpw(b"secret", bcrypt.gensalt(4))
    web = WebConfig(users={"prometheus": hashed})
    good = _basic("prometheus", "secret")
    snapshot = _snapshot()
    check = Blocking()
    gate = CredentialGate(check, workers=1, max_pending=4, per_client=100)
    counters = DoorCounters()
    apps: list[App] = []

    def app_for(w: WebConfig) -> App:
        app = App(snapshot, lambda: True, web=w, gate=gate, counters=counters)
        assert app.auth is not None and app.auth.check(good)  # Prometheus was verified before
        apps.append(app)
        return app

    f = frontend(app_for, web, counters=counters)
    statuses: list[int] = []
    threads = [
        threading.Thread(
            target=lambda: statuses.append(
                _get(f.port, headers={"Authorization": _basic("prometheus", "wrong")}).status
            )
        )
        for _ in range(12)
    ]
    try:
        for t in threads:
            t.start()
        assert check.entered.acquire(timeout=30)  # a check runs (and blocks)
        # the 8 past the queue limit are answered at once, while the 4 are still waiting
        while len(statuses) < 8:
            threading.Event().wait(0.01)
        assert statuses == [429] * 8
        assert gate.pending == 4 and check.running == 1
        # the authorised scrape does not wait for them
        assert _get(f.port, headers={"Authorization": good}).status == 200
    finally:
        check.release.set()
        for t in threads:
            t.join(60)
    assert sorted(statuses) == [401] * 4 + [429] * 8
    assert check.most == 1 and check.calls == 4
    assert counters.refused["auth_busy"] == 8


def test_one_client_gets_only_its_share_of_password_checks() -> None:
    check = Blocking(result=True)
    gate = CredentialGate(check, workers=2, max_pending=5, per_client=2)

    async def scenario() -> list[bool | None]:
        a = [asyncio.ensure_future(gate.check("10.0.0.1", "x")) for _ in range(3)]
        b = [asyncio.ensure_future(gate.check("10.0.0.2", "x")) for _ in range(2)]
        c = [asyncio.ensure_future(gate.check("10.0.0.3", "x")) for _ in range(2)]
        await asyncio.sleep(0)  # every check asked
        refused_at_once = [t.result() for t in a + b + c if t.done()]
        assert refused_at_once == [None, None]  # a's third, c's second (5 pending in all)
        assert gate.pending == 5
        check.release.set()
        return list(await asyncio.gather(*a, *b, *c))

    results = asyncio.run(scenario())
    gate.close()
    assert results == [True, True, None, True, True, True, None]
    assert check.most == 2 and gate.pending == 0


def test_a_forwarded_for_header_does_not_make_another_client(
    frontend: Callable[..., HTTPFrontend],
) -> None:
    snapshot = _snapshot()
    check = Blocking()
    gate = CredentialGate(check, workers=1, max_pending=10, per_client=1)
    web = WebConfig(users={"u": bcrypt.hashpw(b"p", bcrypt.gensalt(4))})
    f = frontend(lambda w: App(snapshot, lambda: True, web=w, gate=gate), web)
    wrong = {"Authorization": _basic("u", "wrong")}
    first = threading.Thread(target=_get, args=(f.port, "/metrics", wrong))
    try:
        first.start()
        assert check.entered.acquire(timeout=30)  # this client's one check runs
        spoofed = {**wrong, "X-Forwarded-For": "192.0.2.7", "X-Real-IP": "192.0.2.7"}
        assert _get(f.port, headers=spoofed).status == 429
    finally:
        check.release.set()
        first.join(60)


def test_a_reload_with_the_same_users_keeps_the_verified_credentials() -> None:
    """A reload (a daily certificate renewal) must not send Prometheus back to a password
    check that a flood may keep busy."""
    users = {"prometheus": bcrypt.hashpw(b"secret", bcrypt.gensalt(4))}
    good = _basic("prometheus", "secret")
    snapshot = _snapshot()
    before = App(snapshot, lambda: True, web=WebConfig(users=dict(users)))
    assert before.auth is not None and before.auth.check(good)
    after = App(snapshot, lambda: True, web=WebConfig(users=dict(users)))
    assert after.auth is not None and after.auth.cached(good) is True
    other = App(snapshot, lambda: True, web=WebConfig(users={"x": users["prometheus"]}))
    assert other.auth is not None and other.auth.cached(good) is None
    for app in (before, after, other):
        app.close()


def test_the_dummy_hash_for_unknown_users_costs_what_the_users_hashes_cost() -> None:
    for cost in (4, 5):
        auth = BasicAuth({"u": bcrypt.hashpw(b"p", bcrypt.gensalt(cost))})
        assert hash_cost(auth._dummy) == cost
    mixed = BasicAuth(
        {"a": bcrypt.hashpw(b"p", bcrypt.gensalt(4)), "b": bcrypt.hashpw(b"p", bcrypt.gensalt(5))}
    )
    assert hash_cost(mixed._dummy) == 5


# -- idle connections ---------------------------------------------------------------------------


def _keep_alive(port: int) -> http.client.HTTPConnection:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", "/metrics")
    resp = conn.getresponse()
    resp.read()
    assert resp.status == 200
    return conn


def _closed_by_server(sock: socket.socket) -> bool:
    sock.settimeout(30)
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True


def test_when_connections_run_short_the_longest_idle_one_is_closed(
    frontend: Callable[..., HTTPFrontend],
) -> None:
    snapshot = _snapshot()
    counters = DoorCounters()
    f = frontend(lambda w: make_app(snapshot, lambda: True, web=w), max_connections=4,
                 counters=counters)  # fmt: skip
    idle = [_keep_alive(f.port) for _ in range(4)]  # every slot held by an idle connection
    try:
        assert _get(f.port).status == 200  # served: the longest idle made room
        assert _closed_by_server(idle[0].sock)
        assert counters.idle_closed == 1
        idle[1].request("GET", "/metrics")  # the others still work
        assert idle[1].getresponse().status == 200
    finally:
        for c in idle:
            c.close()


def test_connections_that_never_send_give_way_to_a_scrape(
    frontend: Callable[..., HTTPFrontend],
) -> None:
    snapshot = _snapshot()
    counters = DoorCounters()
    f = frontend(lambda w: make_app(snapshot, lambda: True, web=w), max_connections=8,
                 counters=counters)  # fmt: skip
    silent = [socket.create_connection(("127.0.0.1", f.port), 30) for _ in range(20)]
    try:
        assert _get(f.port).status == 200
        assert counters.idle_closed >= 13  # 20 + the scrape, down to 8
        assert counters.refused["connection_limit"] == 0
        assert _closed_by_server(silent[0])  # the oldest went first
    finally:
        for s in silent:
            s.close()


def test_past_max_connections_with_none_idle_a_request_gets_503_at_once(
    frontend: Callable[..., HTTPFrontend],
) -> None:
    snapshot = _snapshot()
    counters = DoorCounters()
    check = Blocking()
    gate = CredentialGate(check, workers=4, max_pending=10, per_client=10)
    web = WebConfig(users={"u": bcrypt.hashpw(b"p", bcrypt.gensalt(4))})
    f = frontend(lambda w: App(snapshot, lambda: True, web=w, gate=gate, counters=counters),
                 web, max_connections=4, counters=counters)  # fmt: skip
    wrong = {"Authorization": _basic("u", "wrong")}
    busy = [threading.Thread(target=_get, args=(f.port, "/metrics", wrong)) for _ in range(4)]
    try:
        for t in busy:
            t.start()
        for _ in busy:  # four requests in progress, none idle
            assert check.entered.acquire(timeout=30)
        assert _get(f.port).status == 503  # the fifth is turned away, not queued
        assert counters.refused["connection_limit"] == 1 and counters.idle_closed == 0
    finally:
        check.release.set()
        for t in busy:
            t.join(60)


# -- request headers ----------------------------------------------------------------------------


def _raw(port: int, request: bytes) -> bytes:
    """Send ``request`` on a raw socket; what the server answers before closing."""
    with socket.create_connection(("127.0.0.1", port), 30) as s:
        try:
            s.sendall(request)
        except (BrokenPipeError, ConnectionResetError):
            pass  # answered and closed before all of it was sent
        out = b""
        try:
            while chunk := s.recv(65536):
                out += chunk
                if b"\r\n\r\n" in out and b"connection: close" not in out.lower():
                    break
        except ConnectionResetError:
            pass
        return out


def _headers(*lines: bytes) -> bytes:
    return b"GET /metrics HTTP/1.1\r\nHost: x\r\n" + b"".join(lines) + b"\r\n"


def test_request_headers_past_the_limits_get_431(frontend: Callable[..., HTTPFrontend]) -> None:
    snapshot = _snapshot()
    counters = DoorCounters()
    f = frontend(lambda w: make_app(snapshot, lambda: True, web=w), counters=counters)
    ok = _raw(
        f.port, _headers(*[b"X-%d: %s\r\n" % (i, b"v" * 100) for i in range(MAX_HEADERS - 1)])
    )
    assert ok.startswith(b"HTTP/1.1 200 ")
    long_line = _headers(b"X-Long: " + b"v" * MAX_HEADER_LINE + b"\r\n")
    too_many = _headers(*[b"X-%d: v\r\n" % i for i in range(MAX_HEADERS + 1)])
    too_much = _headers(*[b"X-%d: %s\r\n" % (i, b"v" * 4000) for i in range(20)])
    for request in (long_line, too_many, too_much):
        assert _raw(f.port, request).startswith(b"HTTP/1.1 431 ")
    assert counters.refused["headers_too_large"] == 3


def test_a_header_that_never_ends_is_cut_off_at_the_limit(
    frontend: Callable[..., HTTPFrontend],
) -> None:
    snapshot = _snapshot()
    f = frontend(lambda w: make_app(snapshot, lambda: True, web=w))
    answer = _raw(f.port, b"GET /metrics HTTP/1.1\r\nX-Endless: " + b"v" * 2 * MAX_HEADER_BYTES)
    assert answer.startswith(b"HTTP/1.1 431 ")  # answered before the header line ended


# -- the status page ----------------------------------------------------------------------------


def test_the_status_page_renders_off_the_event_loop_once_per_snapshot(
    frontend: Callable[..., HTTPFrontend],
) -> None:
    snapshot = _snapshot()
    render = Blocking(result="<html>page</html>")

    def app_for(w: WebConfig) -> App:
        app = make_app(snapshot, lambda: True, web=w, page=render)  # type: ignore[arg-type]
        app.pages = PageCache(snapshot, app._render_page, cpu=lambda: 0.0)  # no CPU budget
        return app

    f = frontend(app_for)
    pages: list[int] = []
    readers = [threading.Thread(target=lambda: pages.append(_get(f.port, "/").status))
               for _ in range(5)]  # fmt: skip
    try:
        for t in readers:
            t.start()
        assert render.entered.acquire(timeout=30)  # rendering, blocked
        assert _get(f.port).status == 200  # /metrics answers meanwhile
        assert _get(f.port, "/healthz").status == 200
    finally:
        render.release.set()
        for t in readers:
            t.join(60)
    assert pages == [200] * 5
    assert render.calls == 1  # five clients, one rendering
    assert _get(f.port, "/").status == 200 and render.calls == 1  # the same snapshot: copied
    snapshot.rerender()
    assert _get(f.port, "/").status == 200 and render.calls == 2  # a new snapshot: rendered


def test_the_status_page_takes_at_most_its_share_of_a_core() -> None:
    """After a rendering that took 1 s of CPU, at a share of 0.1, a new snapshot's page waits
    10 s; meanwhile, and while the next one renders, the last page is served at once."""
    snapshot = _snapshot()
    now, cpu = [100.0], [0.0]
    gate = threading.Event()
    gate.set()
    rendered: list[int] = []

    def render(as_json: bool) -> tuple[bytes, str]:
        assert gate.wait(60)
        rendered.append(snapshot.generation)
        cpu[0] += 1.0
        return b"page %d" % snapshot.generation, "text/html"

    pages = PageCache(snapshot, render, share=0.1, clock=lambda: now[0], cpu=lambda: cpu[0])

    async def scenario() -> None:
        first = snapshot.generation
        assert await pages.get(False) == (b"page %d" % first, "text/html")
        snapshot.rerender()
        now[0] += 9.9
        assert await pages.get(False) == (b"page %d" % first, "text/html")  # held back
        assert rendered == [first]
        now[0] += 0.1
        gate.clear()  # the next rendering blocks
        waiting = asyncio.ensure_future(pages.get(False))
        await asyncio.sleep(0)
        assert await pages.get(False) == (b"page %d" % first, "text/html")  # the last, at once
        gate.set()
        assert await waiting == (b"page %d" % (first + 1), "text/html")
        assert await pages.get(False) == (b"page %d" % (first + 1), "text/html")
        assert rendered == [first, first + 1]

    asyncio.run(scenario())
    pages.close()


def test_reloads_leave_the_number_of_render_listeners_unchanged(
    frontend: Callable[..., HTTPFrontend],
) -> None:
    snapshot = _snapshot()
    before = len(snapshot.on_render)
    f = frontend(lambda w: make_app(snapshot, lambda: True, web=w))
    serving = len(snapshot.on_render)
    assert serving == before + 1
    for _ in range(5):
        f.serve(["127.0.0.1:0"])  # a reload: a new app, the old one stops
    assert len(snapshot.on_render) == serving
    assert len(snapshot.own_metrics) == 1
    f.stop()
    assert len(snapshot.on_render) == before


# -- readiness and encoding ---------------------------------------------------------------------


def test_before_the_first_snapshot_metrics_and_healthz_answer_503(
    frontend: Callable[..., HTTPFrontend],
) -> None:
    snapshot = Snapshot()
    f = frontend(lambda w: make_app(snapshot, lambda: True, web=w))
    for path in ("/metrics", "/healthz"):
        resp = _get(f.port, path)
        assert resp.status == 503
    snapshot.rerender()
    resp = _get(f.port)
    assert resp.status == 200
    assert _get(f.port, "/healthz").status == 200


def test_the_front_doors_counters_are_served(frontend: Callable[..., HTTPFrontend]) -> None:
    snapshot = _snapshot()
    counters = DoorCounters()
    f = frontend(lambda w: App(snapshot, lambda: True, web=w, counters=counters))
    counters.idle_closed = 3
    snapshot.rerender()
    conn = http.client.HTTPConnection("127.0.0.1", f.port, timeout=30)
    conn.request("GET", "/metrics")
    text = conn.getresponse().read().decode()
    conn.close()
    assert "zmon_http_idle_connections_closed_total 3.0" in text
    assert 'zmon_http_requests_refused_total{reason="headers_too_large"} 0.0' in text


@pytest.mark.parametrize(
    "header, gzip_ok",
    [
        (b"gzip", True),
        (b"deflate, gzip", True),
        (b"GZIP;q=0.5", True),
        (b"gzip;q=0", False),
        (b"gzip; q=0.000", False),
        (b"*", True),
        (b"*;q=0", False),
        (b"gzip;q=0, *", False),
        (b"identity", False),
        (b"", False),
        (b"gzip;q=nonsense", False),
    ],
)
def test_accept_encoding_q_values(header: bytes, gzip_ok: bool) -> None:
    assert accepts_gzip(header) is gzip_ok


def test_gzip_refused_by_q_0_gets_plain_text(frontend: Callable[..., HTTPFrontend]) -> None:
    snapshot = _snapshot()
    f = frontend(lambda w: make_app(snapshot, lambda: True, web=w))
    conn = http.client.HTTPConnection("127.0.0.1", f.port, timeout=30)
    conn.request("GET", "/metrics", headers={"Accept-Encoding": "gzip;q=0, identity"})
    resp = conn.getresponse()
    body = resp.read()
    conn.close()
    assert resp.getheader("Content-Encoding") is None
    assert b"zmon_test_value 42.0" in body
    with pytest.raises(gzip.BadGzipFile):
        gzip.decompress(body)


def test_healthz_fails_once_the_worker_is_silent_past_its_deadline() -> None:
    """A frozen worker is replaced only after WEDGED_AFTER; /healthz says so long before."""
    from zmon.daemon import SILENT_DEADLINE, worker_answering
    from zmon.runtime.supervisor import WEDGED_AFTER
    from zmon.runtime.worker import HEARTBEAT_SECONDS

    assert 2 * HEARTBEAT_SECONDS <= SILENT_DEADLINE < WEDGED_AFTER

    class Supervisor:  # what worker_answering reads of zmon.runtime.supervisor.WorkerSupervisor
        now = 1000.0
        _heard = 1000.0

        def _clock(self) -> float:
            return self.now

        def healthy(self) -> bool:
            return True

    sup = Supervisor()
    assert worker_answering(sup)  # type: ignore[arg-type]
    sup.now += SILENT_DEADLINE
    assert worker_answering(sup)  # type: ignore[arg-type]
    sup.now += 0.5
    assert not worker_answering(sup)  # type: ignore[arg-type]
    sup._heard = sup.now  # a beat
    assert worker_answering(sup)  # type: ignore[arg-type]
