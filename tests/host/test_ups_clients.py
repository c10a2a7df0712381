"""The NUT protocol client against scripted loopback servers: quoting, deadlines, reconnects."""

from __future__ import annotations

import pytest

from tests.collectors.ups.fakes import LoopbackServer, scripted_nut_handler, trickle_handler
from zmon.base.runner import StaticRunner
from zmon.collecting.registry import Context, Paths
from zmon.host.ups.net import Deadline, Endpoint, UpsProtocolError
from zmon.host.ups.nut import NutClient, NutError


@pytest.fixture
def server():
    started: list[LoopbackServer] = []

    def start(handler) -> LoopbackServer:
        started.append(LoopbackServer(handler))
        return started[-1]

    yield start
    for s in started:
        s.close()


def client_for(srv: LoopbackServer, **kwargs) -> NutClient:
    client = NutClient(Endpoint("127.0.0.1", srv.port), **kwargs)
    client.connect(Deadline(2))
    return client


def test_escaped_quotes_and_backslashes(server):
    srv = server(
        scripted_nut_handler(
            {
                "LIST UPS": (
                    'BEGIN LIST UPS\nUPS a "Rack \\"A\\" \\\\ left"\nUPS b ""\nEND LIST UPS\n'
                ),
                "LIST VAR a": 'BEGIN LIST VAR a\nVAR a ups.id "say \\"hi\\""\nEND LIST VAR a\n',
            }
        )
    )
    client = client_for(srv)
    assert client.list_ups(Deadline(2)) == {"a": 'Rack "A" \\ left', "b": ""}
    assert client.list_var("a", Deadline(2)) == {"ups.id": 'say "hi"'}
    client.close()


def test_err_reply_raises_with_code(server):
    srv = server(scripted_nut_handler({"LIST VAR x": "ERR UNKNOWN-UPS\n"}))
    client = client_for(srv)
    with pytest.raises(NutError) as err:
        client.list_var("x", Deadline(2))
    assert err.value.code == "UNKNOWN-UPS"
    client.close()


@pytest.mark.parametrize(
    "reply",
    [
        "BEGIN LIST VAR other\nEND LIST VAR other\n",  # answer for another UPS
        'BEGIN LIST VAR x\nVAR y ups.status "OL"\nEND LIST VAR x\n',  # item for another UPS
        'BEGIN LIST VAR x\nVAR x ups.status "OL\nEND LIST VAR x\n',  # broken quoting
        "HELLO\n",
    ],
)
def test_protocol_violations_raise(server, reply):
    srv = server(scripted_nut_handler({"LIST VAR x": reply}))
    client = client_for(srv)
    with pytest.raises(UpsProtocolError):
        client.list_var("x", Deadline(2))
    client.close()


def test_endless_line_is_refused(server):
    srv = server(scripted_nut_handler({"LIST UPS": "BEGIN LIST UPS\n" + "A" * 70000}))
    client = client_for(srv)
    with pytest.raises(UpsProtocolError, match="longer than"):
        client.list_ups(Deadline(5))
    client.close()


def test_trickling_server_hits_the_deadline(server):
    srv = server(trickle_handler(b"BEGIN LIST UPS\n" + b'UPS a "b"\n' * 100, delay=0.02))
    client = client_for(srv)
    reads = [0.0]

    def clock() -> float:  # the deadline's time moves 0.1 s per look, not with the machine
        reads[0] += 0.1
        return reads[0]

    with pytest.raises(TimeoutError, match="deadline"):
        client.list_ups(Deadline(0.5, clock=clock))
    assert reads[0] <= 0.7  # ended by the query deadline after a few reads, not per read
    client.close()


def test_kept_connection_dropped_by_a_restarted_upsd_is_retried_at_once(server):
    """upsd restarted between two scrapes: no dip in zmon_ups_up."""
    from zmon.collectors.ups import UpsCollector

    replies = {
        "LIST UPS": 'BEGIN LIST UPS\nUPS u ""\nEND LIST UPS\n',
        "LIST VAR u": 'BEGIN LIST VAR u\nVAR u ups.status "OL"\nEND LIST VAR u\n',
    }
    calls = []

    def one_session_per_connection(conn):
        calls.append(1)
        buffer = b""
        answered = 0
        while answered < 2:  # LIST UPS and LIST VAR, then the "restart" drops it
            chunk = conn.recv(4096)
            if not chunk:
                return
            buffer += chunk
            while b"\n" in buffer and answered < 2:
                line, _, buffer = buffer.partition(b"\n")
                conn.sendall(replies[line.decode()].encode())
                answered += 1

    srv = server(one_session_per_connection)
    collector = UpsCollector(Context(Paths(), StaticRunner({}), {"nut": [srv.address]}))
    for _ in range(3):
        ms = collector.collect()
        assert ms.sample_value("zmon_ups_up", {"ups": "u"}) == 1.0
    assert len(calls) == 3
    collector.close()
