"""The HTTP transport: keep-alive, backlog, slow and idle clients, and reloads that bind first
(a busy port leaves the running server as it was). The connection limit, idle connections
closed first and the header limits: tests/core/test_front_door.py."""

from __future__ import annotations

import asyncio
import email.utils
import http.client
import socket
import subprocess
import threading
import time
from collections.abc import Iterator

import pytest

from tests.helpers import require_tool
from zmon.base.runner import StaticRunner
from zmon.collecting.registry import Collector, Context, Paths
from zmon.collecting.scheduler import Scheduler
from zmon.exposition.metrics import MetricSet
from zmon.web.listen import BACKLOG, ListenError
from zmon.web.server import HTTPFrontend, make_app


class One(Collector):
    name = "one"

    def collect(self) -> MetricSet:
        m = MetricSet()
        m.gauge("zmon_test_value", "A test value.", 42)
        return m


def _frontend(**limits: float) -> HTTPFrontend:
    s = Scheduler()
    s.add(One(Context(paths=Paths(), runner=StaticRunner())), 60, 1)
    s.workers["one"].run_once()
    return HTTPFrontend(lambda web: make_app(s.snapshot, lambda: True, web=web), **limits)  # type: ignore[arg-type]


@pytest.fixture
def server() -> Iterator[HTTPFrontend]:
    f = _frontend()
    f.serve(["127.0.0.1:0"])
    yield f
    f.stop()


def _get(conn: http.client.HTTPConnection, path: str = "/metrics") -> http.client.HTTPResponse:
    conn.request("GET", path)
    resp = conn.getresponse()
    resp.read()
    return resp


def test_http11_keep_alive_serves_many_requests_on_one_connection(server: HTTPFrontend) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    first = _get(conn)
    assert first.version == 11 and first.status == 200
    local = conn.sock.getsockname()
    for _ in range(5):
        assert _get(conn).status == 200
    assert conn.sock.getsockname() == local  # the same TCP connection all along
    head = conn.request("HEAD", "/metrics") or conn.getresponse()
    assert head.status == 200 and int(head.headers["Content-Length"]) > 0 and head.read() == b""
    conn.close()


def test_listen_backlog_is_large(server: HTTPFrontend) -> None:
    ss = require_tool("ss", "reads the listen backlog of a socket")
    out = subprocess.run(
        [ss, "-Hltn", f"sport = :{server.port}"], capture_output=True, text=True, check=True
    ).stdout.split()
    # LISTEN Recv-Q Send-Q ...; for a listening socket Send-Q is the backlog (capped by
    # net.core.somaxconn, which is 4096 on current kernels)
    somaxconn = int(open("/proc/sys/net/core/somaxconn").read())
    assert int(out[2]) == min(BACKLOG, somaxconn) >= 1024


def test_idle_and_half_sent_connections_do_not_hold_up_a_scrape(server: HTTPFrontend) -> None:
    idle = []
    try:
        for i in range(300):
            s = socket.create_connection(("127.0.0.1", server.port), 5)
            if i % 2:
                s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")  # never finished
            idle.append(s)
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
        assert _get(conn).status == 200
        conn.close()
    finally:
        for s in idle:
            s.close()


def _closed_by_server(sock: socket.socket) -> bool:
    sock.settimeout(20)  # generous: the deadline is 0.2 s; this only bounds a broken server
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True


def test_a_client_that_never_finishes_its_headers_is_disconnected() -> None:
    f = _frontend(read_timeout=0.2)
    f.serve(["127.0.0.1:0"])
    try:
        silent = socket.create_connection(("127.0.0.1", f.port), 5)
        slow = socket.create_connection(("127.0.0.1", f.port), 5)
        slow.sendall(b"GET /metrics HTTP/1.1\r\n")
        assert _closed_by_server(silent)
        assert _closed_by_server(slow)
        # a keep-alive client that starts a second request and stalls is cut off too
        conn = http.client.HTTPConnection("127.0.0.1", f.port, timeout=5)
        assert _get(conn).status == 200
        conn.sock.sendall(b"GET /metrics HTTP/1.1\r\n")
        assert _closed_by_server(conn.sock)
    finally:
        f.stop()


def test_reload_to_a_busy_port_changes_nothing(server: HTTPFrontend) -> None:
    old = server.port
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        taken = busy.getsockname()[1]
        with pytest.raises(ListenError, match=f"127.0.0.1:{taken}"):
            server.serve(["127.0.0.1:0", f"127.0.0.1:{taken}"])
    assert server.ports() == {"127.0.0.1:0": old}
    conn = http.client.HTTPConnection("127.0.0.1", old, timeout=5)
    assert _get(conn).status == 200
    conn.close()


def test_reload_keeps_a_kept_address_listening_and_adds_new_ones(server: HTTPFrontend) -> None:
    old = server.port
    before = http.client.HTTPConnection("127.0.0.1", old, timeout=5)
    assert _get(before).status == 200
    server.serve(["127.0.0.1:0", "[::1]:0"] if socket.has_ipv6 else ["127.0.0.1:0", "127.0.0.2:0"])
    ports = server.ports()
    assert ports["127.0.0.1:0"] == old  # the same socket: never closed, nothing refused
    for addr, port in ports.items():
        host = addr.rpartition(":")[0].strip("[]")
        conn = http.client.HTTPConnection(host, port, timeout=5)
        assert _get(conn).status == 200
        conn.close()
    # moving away closes the old address
    server.serve(["127.0.0.2:0"])
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", old), 5)


def test_an_idle_front_door_has_no_timer_to_wake_it(server: HTTPFrontend) -> None:
    """uvicorn's own loop wakes ten times a second to refresh its Date header and look for an
    exit: 0.25 % of a core with no client at all, more than a small host's collectors."""

    async def timers() -> list[asyncio.TimerHandle]:
        scheduled = asyncio.get_running_loop()._scheduled  # type: ignore[attr-defined]
        return [h for h in scheduled if not h.cancelled()]

    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    assert _get(conn).status == 200
    conn.close()  # the keep-alive timer goes with the connection
    loop = server._loop
    for _ in range(100):  # the server notices the closed connection
        pending = asyncio.run_coroutine_threadsafe(timers(), loop).result(10)
        if not pending:
            break
        threading.Event().wait(0.05)
    assert pending == []


def test_the_date_header_is_current_without_a_timer(server: HTTPFrontend) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    for _ in range(2):
        before = int(time.time())
        resp = _get(conn)
        after = time.time()
        date = email.utils.parsedate_to_datetime(resp.headers["Date"]).timestamp()
        assert before <= date <= after
        threading.Event().wait(1.1)  # the next second: the header must follow
    conn.close()


def test_stopping_wakes_the_server_at_once() -> None:
    """The exit request wakes the server's loop, which has no timer: a reload's old
    generation and then the last one have finished serving when they return."""
    f = _frontend()
    f.serve(["127.0.0.1:0"])
    old = f._current
    f.serve(["127.0.0.1:0"])  # a new generation starts; the old one stops
    assert old is not None and old._done is not None and old._done.done()
    conn = http.client.HTTPConnection("127.0.0.1", f.port, timeout=10)
    assert _get(conn).status == 200
    conn.close()
    last = f._current
    f.stop()
    assert last is not None and last._done is not None and last._done.done()
