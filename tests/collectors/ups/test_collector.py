"""The UPS collector against loopback fakes: NIS frames, silent and slow servers, backoff."""

from __future__ import annotations

import itertools
import socket
import threading
import time

import pytest

from tests.collectors.ups.fakes import (
    LoopbackServer,
    nis_status_handler,
    scripted_nut_handler,
    silent_handler,
    trickle_handler,
)
from tests.helpers import fixture_path
from tests.support.clock import FakeClock
from zmon.base.runner import StaticRunner
from zmon.collecting.registry import Context, NoDataError, Paths, collectors
from zmon.collectors.ups import UpsCollector
from zmon.exposition.formats import render
from zmon.exposition.metrics import MetricSet
from zmon.host.ups.net import Deadline

APCACCESS = sorted(p.name for p in fixture_path("ups").glob("*apcaccess_*.txt"))


class QueryBounds:
    """What bounds a collect in time, seen as events instead of measured on the wall clock:
    the query deadlines it made and every socket timeout it set."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.deadlines: list[Deadline] = []
        self.socket_timeouts: list[float | None] = []
        bounds = self

        class Recorded(Deadline):
            def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
                super().__init__(*args, **kwargs)
                bounds.deadlines.append(self)

        real_settimeout = socket.socket.settimeout

        def settimeout(sock: socket.socket, value: float | None) -> None:
            me = threading.current_thread()  # the collector's, not the loopback fakes'
            if me is threading.main_thread() or me.name.startswith("zmon-ups"):
                bounds.socket_timeouts.append(value)
            real_settimeout(sock, value)

        monkeypatch.setattr("zmon.collectors.ups.Deadline", Recorded)
        monkeypatch.setattr(socket.socket, "settimeout", settimeout)

    def assert_bounded_by(self, seconds: float) -> None:
        """One deadline for the whole collect, and no socket wait longer than it."""
        assert len(self.deadlines) == 1
        assert self.socket_timeouts, "no socket operation was bounded"
        assert all(t is not None and 0 < t <= seconds for t in self.socket_timeouts)


def make(clock=time.monotonic, **options) -> UpsCollector:
    ctx = Context(Paths(), StaticRunner({}), options)
    return UpsCollector(ctx, clock=clock)


def samples(ms: MetricSet, drop=("server",)) -> set[tuple]:
    """Every sample as (name, labels without ``drop``, value)."""
    out = set()
    for fam in ms.families():
        for s in fam.samples:
            labels = tuple(sorted((k, v) for k, v in s.labels.items() if k not in drop))
            out.add((s.name, labels, s.value))
    return out


@pytest.fixture
def servers():
    started: list[LoopbackServer] = []

    def start(handler) -> LoopbackServer:
        server = LoopbackServer(handler)
        started.append(server)
        return server

    yield start
    for server in started:
        server.close()


def status_lines(name: str) -> list[str]:
    """The lines apcupsd's NIS sends: the KEY : value lines of a captured apcaccess output."""
    text = fixture_path("ups", name).read_text()
    return [line for line in text.splitlines() if line[:1].isupper()]


# ---- registration and options ----


def test_registered_enabled_with_declared_options():
    cls = collectors()["ups"]
    assert cls is UpsCollector and cls.default_enabled
    names = {o.name: o for o in cls.options}
    assert names["nut"].type is list and names["nut"].default == []
    assert names["apcupsd"].type is list and names["apcupsd"].default == []
    assert {
        "nut_username",
        "nut_password",
        "nut_password_file",
        "connect_timeout",
        "query_timeout",
        "backoff_max",
    } <= set(names)


def test_no_servers_is_no_data():
    with pytest.raises(NoDataError):
        make().collect()


def test_socket_timeouts_stay_below_the_collector_timeout():
    collector = make(nut=["127.0.0.1:1"], query_timeout=60.0, connect_timeout=30.0)
    assert collector.query_timeout < UpsCollector.default_timeout
    collector.ctx.timeout = 2.0  # the configured hard timeout of this collector
    assert collector.query_timeout <= 1.6


def test_a_collect_never_outlives_its_deadline_even_with_many_dead_servers(servers, monkeypatch):
    silent = [servers(silent_handler) for _ in range(3)]
    collector = make(apcupsd=[s.address for s in silent], nut=["127.0.0.1:1"])
    collector.ctx.timeout = 1.0
    bounds = QueryBounds(monkeypatch)
    ms = collector.collect()
    bounds.assert_bounded_by(collector.query_timeout)
    assert collector.query_timeout < collector.ctx.timeout
    for s in silent:
        assert ms.sample_value("zmon_ups_server_up", {"server": s.address}) == 0.0


def test_bad_server_entry_is_a_clear_error():
    with pytest.raises(ValueError, match="bad port"):
        make(nut=["host:99999"])


# ---- apcupsd NIS ----


@pytest.mark.parametrize("name", APCACCESS)
def test_apcupsd_nis_replays_every_sample_like_the_parse_kind(name, servers):
    nis = servers(nis_status_handler(lambda: status_lines(name)))
    ms = make(apcupsd=[nis.address]).collect()
    assert ms.sample_value("zmon_ups_server_up", {"server": nis.address}) == 1.0

    from zmon.collecting.registry import parse_kinds

    parsed = parse_kinds()["apcaccess"][0](fixture_path("ups", name).read_bytes())
    got = {s for s in samples(ms) if s[0] != "zmon_ups_server_up"}
    # Without UPSNAME the network path names the UPS after the server, the file path "apcupsd".
    want = {
        (n, tuple((k, nis.address if (k, v) == ("ups", "apcupsd") else v) for k, v in lab), val)
        for n, lab, val in samples(parsed)
    }
    assert got == want


def test_apcupsd_commlost_over_nis(servers):
    nis = servers(nis_status_handler(lambda: status_lines("apcaccess_04_docker_usb_COMMLOST.txt")))
    ms = make(apcupsd=[nis.address]).collect()
    labels = {"ups": nis.address, "server": nis.address}
    assert ms.sample_value("zmon_ups_up", labels) == 0.0
    assert ms.sample_value("zmon_ups_server_up", {"server": nis.address}) == 1.0
    assert ms.sample_value("zmon_ups_battery_charge_ratio", labels) is None
    assert ms.sample_value("zmon_ups_battery_runtime_seconds", labels) is None
    assert ms.sample_value("zmon_ups_status", {**labels, "flag": "OL"}) is None


def test_silent_server_times_out_quickly_and_reports_down(servers, monkeypatch):
    name = "apcaccess_02_bk650m2_openwrt_ONLINE.txt"
    lines = [status_lines(name)]
    good = servers(nis_status_handler(lambda: lines[0]))
    collector = make(apcupsd=[good.address], query_timeout=0.5, backoff_max=0.0)
    assert collector.collect().sample_value("zmon_ups_up", {"ups": "ups1"}) == 1.0
    silent = servers(silent_handler)
    collector = make(apcupsd=[silent.address, good.address], query_timeout=0.5)
    bounds = QueryBounds(monkeypatch)
    ms = collector.collect()
    bounds.assert_bounded_by(0.5)
    assert ms.sample_value("zmon_ups_server_up", {"server": silent.address}) == 0.0
    assert ms.sample_value("zmon_ups_up", {"server": silent.address}) == 0.0
    # The healthy server next to it is unaffected.
    assert ms.sample_value("zmon_ups_up", {"server": good.address, "ups": "ups1"}) == 1.0


def test_trickling_server_cannot_hold_the_query_past_its_deadline(servers, monkeypatch):
    """Each read returns within its own timeout; the one deadline of the query ends it."""
    payload = b"".join(b"\x00\x10" + b"STATUS   : ONLINE" for _ in range(100))
    slow = servers(trickle_handler(payload, delay=0.05))
    bounds = QueryBounds(monkeypatch)
    ms = make(apcupsd=[slow.address], query_timeout=0.6).collect()
    bounds.assert_bounded_by(0.6)
    # each read may wait only what is left of the one deadline: the waits shrink, never reset
    waits = bounds.socket_timeouts
    assert len(waits) > 2 and all(b <= a for a, b in itertools.pairwise(waits)), waits
    assert ms.sample_value("zmon_ups_server_up", {"server": slow.address}) == 0.0


def test_down_then_back_with_backoff(servers):
    clock = FakeClock()
    name = "apcaccess_02_bk650m2_openwrt_ONLINE.txt"
    answering = [True]

    def handle(conn):
        if answering[0]:
            nis_status_handler(lambda: status_lines(name))(conn)

    nis = servers(handle)
    collector = make(clock=clock, apcupsd=[nis.address], backoff_max=8.0, query_timeout=1.0)
    ups = {"ups": "ups1", "server": nis.address}
    assert collector.collect().sample_value("zmon_ups_up", ups) == 1.0

    answering[0] = False  # closes every connection without a word
    ms = collector.collect()
    assert ms.sample_value("zmon_ups_up", ups) == 0.0  # remembered by name
    assert ms.sample_value("zmon_ups_info", {**ups, "model": "Back-UPS BK650M2-CH"}) == 1.0
    tries = nis.connections
    answering[0] = True
    # Within the backoff window the server is not touched, and stays reported down.
    clock.now += 0.5
    assert collector.collect().sample_value("zmon_ups_up", ups) == 0.0
    assert nis.connections == tries
    clock.now += 1.0  # first retry after 1 s
    assert collector.collect().sample_value("zmon_ups_up", ups) == 1.0
    assert nis.connections == tries + 1


def test_backoff_doubles_and_is_capped():
    from zmon.host.ups.net import ReconnectBackoff

    clock = FakeClock()
    backoff = ReconnectBackoff(initial=1.0, maximum=5.0, clock=clock)
    waits = []
    for _ in range(5):
        backoff.failed()
        waits.append(backoff.wait_left())
    assert waits == [1.0, 2.0, 4.0, 5.0, 5.0]
    backoff.succeeded()
    assert backoff.ready()


# ---- NUT against a scripted upsd ----

LIST_UPS = 'BEGIN LIST UPS\nUPS ups "Rack \\"A\\""\nUPS spare "Spare"\nEND LIST UPS\n'
LIST_VAR = (
    'BEGIN LIST VAR ups\nVAR ups ups.status "OB DISCHRG"\nVAR ups battery.charge "012.0"\n'
    'VAR ups device.model "M \\"1\\""\nEND LIST VAR ups\n'
)


def test_nut_login_all_upses_and_a_stale_one(servers):
    seen = []

    def handle(conn):
        replies = {
            "USERNAME mon": "OK\n",
            'PASSWORD "s e\\"cret"': "OK\n",
            "LIST UPS": LIST_UPS,
            "LIST VAR ups": LIST_VAR,
            "LIST VAR spare": "ERR DATA-STALE\n",
        }
        seen.append(conn)
        scripted_nut_handler(replies)(conn)

    upsd = servers(handle)
    ms = make(nut=[upsd.address], nut_username="mon", nut_password='s e"cret').collect()
    ups = {"ups": "ups", "server": upsd.address}
    assert ms.sample_value("zmon_ups_up", ups) == 1.0
    assert ms.sample_value("zmon_ups_status", {**ups, "flag": "OB"}) == 1.0
    assert ms.sample_value("zmon_ups_status", {**ups, "flag": "OL"}) == 0.0
    assert ms.sample_value("zmon_ups_battery_charge_ratio", ups) == 0.12
    assert ms.sample_value("zmon_ups_info", {**ups, "model": 'M "1"'}) == 1.0
    assert ms.sample_value("zmon_ups_up", {"ups": "spare"}) == 0.0
    assert ms.sample_value("zmon_ups_server_up", {"server": upsd.address}) == 1.0


def test_nut_access_denied_is_a_down_server(servers):
    upsd = servers(scripted_nut_handler({"USERNAME bad": "ERR ACCESS-DENIED\n"}))
    ms = make(nut=[upsd.address], nut_username="bad").collect()
    assert ms.sample_value("zmon_ups_server_up", {"server": upsd.address}) == 0.0


def test_nut_named_ups_skips_list_ups_and_is_known_while_down(servers):
    upsd = servers(scripted_nut_handler({"LIST VAR ups": LIST_VAR}))
    collector = make(nut=[f"ups@{upsd.address}"])
    assert collector.collect().sample_value("zmon_ups_up", {"ups": "ups"}) == 1.0
    upsd.close()
    ms = collector.collect()
    assert ms.sample_value("zmon_ups_up", {"ups": "ups", "server": upsd.address}) == 0.0


def test_nut_server_closing_mid_list_is_down_not_a_crash(servers):
    upsd = servers(scripted_nut_handler({"LIST UPS": 'BEGIN LIST UPS\nUPS ups "x"\n'}))
    ms = make(nut=[upsd.address], query_timeout=1.0).collect()
    assert ms.sample_value("zmon_ups_server_up", {"server": upsd.address}) == 0.0


def test_same_ups_name_on_two_servers_stays_apart(servers):
    replies = {"LIST UPS": 'BEGIN LIST UPS\nUPS ups ""\nEND LIST UPS\n', "LIST VAR ups": LIST_VAR}
    one = servers(scripted_nut_handler(replies))
    two = servers(scripted_nut_handler(replies))
    ms = make(nut=[one.address, two.address]).collect()
    text = render(ms.families()).decode()
    assert text.count('zmon_ups_up{server="') == 2
    for server in (one.address, two.address):
        assert ms.sample_value("zmon_ups_up", {"ups": "ups", "server": server}) == 1.0
