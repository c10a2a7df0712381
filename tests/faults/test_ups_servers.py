"""Misbehaving UPS daemons, 1,000 collector runs each: one that refuses connections, one that
accepts and never answers, one that trickles bytes, one that restarts.

A daemon that is down is not a collector failure: the collector succeeds and says which daemon
and which UPS are down (``zmon_ups_server_up`` 0, ``zmon_ups_up`` 0), keeping what it knew of
each UPS (its info series). Runs are driven with a fake clock past the reconnect backoff, so
every run really tries the daemon.
"""

from __future__ import annotations

import socket
import threading

import pytest

from tests.collectors.ups.fakes import nis_status_handler, silent_handler, trickle_handler
from tests.faults.harness import CYCLES, Rig, no_leaks
from tests.helpers import fixture_path
from tests.support.clock import FakeClock
from zmon.base.runner import StaticRunner
from zmon.collecting.registry import Context, Paths
from zmon.collectors.ups import UpsCollector

NAME = "apcaccess_02_bk650m2_openwrt_ONLINE.txt"
LINES = [ln for ln in fixture_path("ups", NAME).read_text().splitlines() if ln[:1].isupper()]


class Daemon:
    """A loopback NIS server whose behaviour can be switched, and which can be stopped and
    started again on the same port (a restart)."""

    def __init__(self) -> None:
        self.behaviour = nis_status_handler(lambda: LINES)
        self.port = 0
        self._sock: socket.socket | None = None
        self._threads: list[threading.Thread] = []
        self.start()

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> None:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", self.port))
        sock.listen(64)
        self.port = sock.getsockname()[1]
        self._sock = sock
        thread = threading.Thread(target=self._serve, args=(sock,), daemon=True)
        thread.start()
        self._threads.append(thread)

    def _serve(self, sock: socket.socket) -> None:
        while True:
            try:
                conn, _ = sock.accept()
            except OSError:
                return
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(2)
            try:
                self.behaviour(conn)
            except OSError:
                pass

    def stop(self) -> None:
        if self._sock is not None:
            try:
                self._sock.shutdown(socket.SHUT_RDWR)  # wakes the accept() of _serve
            except OSError:
                pass
            self._sock.close()
            self._sock = None
        for thread in self._threads:
            thread.join(2)
        self._threads.clear()


@pytest.fixture
def daemon():  # type: ignore[no-untyped-def]
    d = Daemon()
    yield d
    d.stop()


def rig_for(daemon: Daemon) -> Rig:
    clock = FakeClock()
    ctx = Context(Paths(), StaticRunner({}), {"apcupsd": [daemon.address], "connect_timeout": 0.2})
    collector = UpsCollector(ctx, clock=clock)
    collector._query_timeout = 5.0  # answers from the good daemon, whatever the load
    rig = Rig(collector, timeout=2.0)
    rig.clock = clock  # type: ignore[attr-defined]
    return rig


def cycles(rig: Rig, n: int) -> None:
    for _ in range(n):
        rig.clock.now += 120  # type: ignore[attr-defined] - past any backoff: every run tries
        rig.cycle()


def ups(rig: Rig, daemon: Daemon, name: str) -> float | None:
    labels = {"server": daemon.address}
    if name == "zmon_ups_up":
        labels["ups"] = "ups1"
    want = set(labels.items())
    for (metric, lab), value in rig.scrape().items():
        if metric == name and want <= set(lab):
            return value
    return None


def check_down_and_recovers(rig: Rig, daemon: Daemon, restore) -> None:  # type: ignore[no-untyped-def]
    assert ups(rig, daemon, "zmon_ups_server_up") == 0.0
    assert ups(rig, daemon, "zmon_ups_up") == 0.0  # the UPS is remembered, marked down
    assert rig.has("zmon_ups_info", ups="ups1")  # what was known of it is kept
    assert rig.state.success and rig.reason() is None  # a down daemon is data, not a failure
    restore()
    rig.collector._query_timeout = 5.0  # type: ignore[attr-defined] - a real answer, any load
    cycles(rig, 1)
    assert ups(rig, daemon, "zmon_ups_up") == 1.0


@pytest.mark.parametrize("fault", ["refuse", "silent", "trickle", "restart"])
def test_misbehaving_ups_daemon(daemon: Daemon, fault: str) -> None:
    rig = rig_for(daemon)
    cycles(rig, 2)
    assert ups(rig, daemon, "zmon_ups_up") == 1.0
    good = daemon.behaviour
    rig.collector._query_timeout = 0.005  # type: ignore[attr-defined] - each failing try: 5 ms
    if fault == "refuse":
        daemon.stop()
    elif fault == "silent":
        daemon.behaviour = silent_handler
    elif fault == "trickle":
        daemon.behaviour = trickle_handler(b"\x00\x20STATUS   : ONLINE" * 50, delay=0.001)
    cycles(rig, 3)  # warm up
    with no_leaks():
        if fault == "restart":
            for i in range(CYCLES):
                if i % 100 == 0:
                    daemon.stop()  # down for 50 runs, then back on the same port
                elif i % 100 == 50:
                    daemon.start()
                cycles(rig, 1)
            daemon.stop()
            cycles(rig, 1)
        else:
            cycles(rig, CYCLES)
        daemon.stop()  # its own threads end with their connections, before counting
        rig.collector.close()

    def restore() -> None:
        daemon.behaviour = good
        daemon.start()

    check_down_and_recovers(rig, daemon, restore)
    rig.close()
