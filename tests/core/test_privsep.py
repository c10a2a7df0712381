"""The tree of processes: the privileged side binds and collects, the HTTP process it forks
serves, and what crosses between them is typed and checked (zmon/runtime/front.py, zmon/daemon.py).

Here zmon runs as the test's user (no drop, the same tree); tests/e2e/test_privileges.py
starts it as root the way the unit does and reads what each process holds."""

from __future__ import annotations

import contextlib
import os
import pwd
import signal
import socket
import struct
import subprocess
import threading
import urllib.request
from dataclasses import replace
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from tests.core.test_channel import _state, _trip
from tests.e2e.serve import arc_procfs, collectors_toml
from tests.support.waiting import poll
from zmon.collecting.config import Config, load
from zmon.collecting.registry import collectors
from zmon.daemon import Daemon
from zmon.exposition.snapshot import Collector
from zmon.host.last_pools import LastPools, PoolStateRecorder
from zmon.runtime.channel import (
    FROM_FRONT,
    MAX_FRONT_FRAME,
    TO_FRONT,
    Channel,
    Health,
    HeldCollectors,
    Message,
    Orphaned,
    Pools,
    ProtocolError,
    RunData,
    Running,
    Serve,
    Served,
    Stop,
    Update,
)
from zmon.runtime.front import HEALTH_DEADLINE, Front, FrontProcess
from zmon.web.webconfig import TLSSettings, WebConfig

PEM = b"-----BEGIN CERTIFICATE-----\nnot checked on the way\n-----END CERTIFICATE-----\n"


def test_what_the_privileged_side_sends_arrives_unchanged() -> None:
    tls = TLSSettings(
        Path("/etc/zmon/cert.pem"), Path("/etc/zmon/key.pem"), "RequireAndVerifyClientCert",
        Path("/etc/zmon/ca.pem"), "TLS13", None, PEM, b"key", b"ca",
    )  # fmt: skip
    web = WebConfig(tls, {"prometheus": b"$2b$10$abc"}, (("X-Frame-Options", "deny"),), "w.yml")
    serve = Serve(("127.0.0.1:0", "[::1]:9"), web)
    assert _trip(serve, TO_FRONT) == serve
    for message in (
        Health(True, 3), Orphaned("was killed by SIGKILL"), Pools(None),
        Pools(LastPools(1.5e9, {"tank": "DEGRADED"})), Running("arc", 2.0), Stop(),
    ):  # fmt: skip
        assert _trip(message, TO_FRONT) == message


def test_the_http_process_can_only_answer_served() -> None:
    assert _trip(Served(None), FROM_FRONT) == Served(None)
    assert _trip(Served("cannot start"), FROM_FRONT) == Served("cannot start")
    state = _state()
    update = Update((Collector.of(state),), {})
    for message in (update, Health(True, 0), Stop()):  # nothing the worker or we would take
        with pytest.raises(ProtocolError):
            _trip(message, FROM_FRONT)
    with pytest.raises(ProtocolError):
        _trip(Served("x" * 5000), FROM_FRONT)


def test_a_long_frame_from_the_http_process_is_refused_unread() -> None:
    ours, theirs = socket.socketpair()
    channel, http = Channel(ours, FROM_FRONT, max_frame=MAX_FRONT_FRAME), Channel(theirs, ())
    http.send(Served("x" * (MAX_FRONT_FRAME + 10)))
    with pytest.raises(ProtocolError, match="over the limit"):
        channel.recv()
    channel.close()
    http.close()


def test_listening_sockets_travel_with_serve() -> None:
    ours, theirs = socket.socketpair()
    listening = socket.create_server(("127.0.0.1", 0))
    sender, receiver = Channel(ours, FROM_FRONT), Channel(theirs, TO_FRONT)
    sender.send(Serve(("127.0.0.1:0",), WebConfig()), fds=[listening.fileno()])
    message = receiver.recv()
    assert isinstance(message, Serve)
    (fd,) = receiver.recv_fds(1)
    got = socket.socket(fileno=fd)
    assert got.getsockname() == listening.getsockname()
    assert fd != listening.fileno()
    got.close()
    sender.send(Serve(("127.0.0.1:0", "127.0.0.1:1"), WebConfig()), fds=[listening.fileno()])
    receiver.recv()
    with pytest.raises(ProtocolError, match="descriptors"):
        receiver.recv_fds(2)  # one came: refused, and the one closed
    for c in (sender, receiver):
        c.close()
    listening.close()


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_http_process_holds_what_is_relayed() -> None:
    ours, theirs = socket.socketpair()
    clock = _Clock()
    front = Front(Channel(theirs, TO_FRONT), Config(), clock=clock)
    try:
        state = _state()
        run = RunData(tuple(state.rendered), tuple(state.kept), None)
        front.take(Update((Collector.of(state),), {state.name: run}))
        (held,) = front.snapshot.states()
        assert list(held.rendered) == state.rendered and held.collecting
        assert not front.healthy()  # nothing said about the worker yet
        front.take(Health(True, 2))
        assert front.healthy() and front.snapshot.worker_restarts == 2
        clock.now += HEALTH_DEADLINE + 1  # the privileged side fell silent
        assert not front.healthy()
        failures = held.runs["failure"]
        front.take(Running(state.name, 5.0))
        front.take(Orphaned("was killed by SIGKILL"))
        (held,) = front.snapshot.states()
        assert not held.collecting and held.runs["failure"] == failures + 1
        assert held.last_error == "the collection worker was killed by SIGKILL during the run"
        assert held.rendered and list(held.families) == state.kept  # (served, as stale)
        last = LastPools(1.0, {"tank": "ONLINE"})
        front.take(Pools(last))
        assert front.last_pools == last
    finally:
        front.close()
        ours.close()
        theirs.close()


def _daemon(tmp_path: Path) -> Daemon:
    cfg_path = tmp_path / "zmon.toml"
    cfg_path.write_text(collectors_toml(["arc"], listen="127.0.0.1:0"))
    procfs = arc_procfs(tmp_path / "host")

    def loader() -> Config:
        cfg = load(collectors(), str(cfg_path))
        return replace(cfg, paths=replace(cfg.paths, procfs=procfs, state_dir=tmp_path / "state"))

    return Daemon(loader(), loader)


def test_a_child_serves_http_and_the_daemon_only_collects(tmp_path: Path) -> None:
    daemon = _daemon(tmp_path)
    daemon.start()
    try:
        assert daemon.server is not None
        http = daemon.server.front.pid
        assert http is not None and http != os.getpid()
        assert Path(f"/proc/{http}").exists()
        # no HTTP server runs in this process: it only binds, collects and relays
        assert not [t for t in threading.enumerate() if t.name == "zmon-http"]
        url = f"http://127.0.0.1:{daemon.server.port}/metrics"

        def served() -> bool:
            try:
                with urllib.request.urlopen(url, timeout=10) as r:
                    return b"zmon_arc_hits_total 100.0" in r.read()
            except OSError:
                return False

        assert poll(served)
        daemon.reload()  # new sockets and web config go to the child
        assert poll(served)
        # OpenMetrics too, from the same pieces the worker sent
        ask = urllib.request.Request(url, headers={"Accept": "application/openmetrics-text"})
        with urllib.request.urlopen(ask, timeout=10) as r:
            om = r.read()
            assert r.headers["Content-Type"].startswith("application/openmetrics-text")
        assert b"# TYPE zmon_arc_hits counter\nzmon_arc_hits_total 100.0\n" in om
        assert om.endswith(b"\n# EOF\n")

    finally:
        daemon.shutdown()
    assert daemon.server.front.pid is None  # reaped


class _Relay:
    def __init__(self) -> None:
        self.sent: list[Message] = []
        self.front = self

    def relay(self, message: Message) -> None:
        self.sent.append(message)


def test_each_tick_relays_health_and_the_pools_last_states_when_they_change(
    tmp_path: Path,
) -> None:
    """The pools' last states live in a file only the privileged side may read: it sends
    them to the HTTP process's status page when the file changes."""
    daemon = _daemon(tmp_path)
    relay = _Relay()
    daemon.server = relay  # type: ignore[assignment]
    daemon._tick()
    assert relay.sent == [Health(False, 0)]  # (no file: nothing to say)
    PoolStateRecorder(tmp_path / "state").observe(1.5e9, {"tank": "SUSPENDED"})
    relay.sent.clear()
    daemon._tick()
    assert relay.sent == [Health(False, 0), Pools(LastPools(1.5e9, {"tank": "SUSPENDED"}))]
    relay.sent.clear()
    daemon._tick()  # unchanged: not sent again
    assert relay.sent == [Health(False, 0)]


def test_zmon_stops_when_its_http_process_dies_and_says_how(tmp_path: Path) -> None:
    daemon = _daemon(tmp_path)
    with capture_logs() as logged:
        daemon.start()
        try:
            assert daemon.server is not None and daemon.server.front.pid is not None
            os.kill(daemon.server.front.pid, signal.SIGKILL)
            assert poll(lambda: daemon.failed)
            assert daemon._stop.is_set()
        finally:
            daemon.shutdown()
    ended = [e for e in logged if e["event"] == "the HTTP process ended; stopping zmon"]
    assert [e["how"] for e in ended] == [f"signal {signal.SIGKILL}"], ended


def test_an_http_process_that_stops_reading_is_killed() -> None:
    """The collecting side never waits on the HTTP process for long: a relay it does not take
    within the send timeout ends it (the reader then stops zmon)."""
    stuck = subprocess.Popen(["sleep", "600"])
    front = FrontProcess(Config(), None, on_exit=lambda: None)
    ours, theirs = socket.socketpair()
    ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, struct.pack("ll", 0, 100_000))
    front._channel, front.pid = Channel(ours, FROM_FRONT), stuck.pid
    try:
        front.relay(Orphaned("x" * 20_000_000))  # more than the socket buffers hold
        assert stuck.wait(30) == -signal.SIGKILL
    finally:
        with contextlib.suppress(ProcessLookupError):
            stuck.kill()
        stuck.wait()
        ours.close()
        theirs.close()


def test_web_user_naming_the_running_user_drops_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A unit run without root keeps ExecStart's --web.user zmon: zmon already is that user."""
    nobody = pwd.getpwnam("nobody")
    daemon = _daemon(tmp_path)
    daemon.cfg = replace(daemon.cfg, web_user="nobody")
    monkeypatch.setattr(os, "geteuid", lambda: nobody.pw_uid)
    daemon.listen()
    try:
        assert daemon.server is not None and daemon.server.front.user is None
    finally:
        daemon.shutdown()


def test_the_privileged_side_keeps_only_digests_and_still_checks_updates() -> None:
    """It relays the data and serves none of it: it keeps no piece nor family, only what an
    update is checked against, and a new worker starts from the status alone."""
    held = HeldCollectors()
    state = _state()
    status = (Collector.of(state),)
    held.take(Update(status, {state.name: RunData(tuple(state.rendered), tuple(state.kept), None)}))
    assert list(held.records().values()) == list(status)  # (no data)
    (name, digest, _), second = state.rendered
    left_out = RunData(((name, digest, None), second), None, None)
    held.take(Update(status, {state.name: left_out}))  # a piece held, by digest
    with pytest.raises(ProtocolError, match="not held"):
        held.take(Update(status, {state.name: RunData(((name, b"\0" * 20, None),), None, None)}))
