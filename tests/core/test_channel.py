"""What crosses between the main process and the collection worker is typed data, checked
on arrival: every message survives the trip unchanged, and anything else is a ProtocolError
before it is used (never unpickled, never allocated past the frame limit)."""

from __future__ import annotations

import ast
import socket
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest
from prometheus_client.core import GaugeMetricFamily

from tests.core.test_supervisor import BAD_FRAMES, _message
from zmon.collecting.config import config_values, load
from zmon.collecting.registry import collectors
from zmon.exposition.snapshot import Collector, CollectorState, SummaryRow
from zmon.runtime import channel as wire
from zmon.runtime.channel import (
    FROM_WORKER,
    TO_WORKER,
    Beat,
    Channel,
    ProtocolError,
    Reload,
    Reloaded,
    RunData,
    Running,
    Start,
    Started,
    Stop,
    Trigger,
    Update,
)
from zmon.runtime.worker import BAD_MESSAGE

ZMON = Path(__file__).resolve().parents[2] / "zmon"


def _state() -> CollectorState:
    state = CollectorState("pools", 15.0, 10.0)
    fam = GaugeMetricFamily("zmon_pool_health", "Pool health.", labels=["pool", "state"])
    fam.add_metric(["tank", "ONLINE"], 1.0)
    fam.add_metric(['back\\up "x"\n', "DEGRADED"], float("-inf"))
    state.publish([fam, GaugeMetricFamily("zmon_pool_size_bytes", "Size.", value=2.0**60)])
    state.success, state.has_data, state.last_error_reason = False, True, "timeout"
    state.runs["timeout"] = 3
    state.running_since = 12.5
    return state


def _trip(message: wire.Message, accepts: tuple[type[wire.Message], ...]) -> wire.Message:
    return wire.decode(wire.encode(message), accepts)


def test_messages_to_the_worker_arrive_unchanged(tmp_path: Path) -> None:
    cfg_file = tmp_path / "zmon.toml"
    cfg_file.write_text(
        '[web]\nlisten_address = ["127.0.0.1:0", "[::1]:9"]\n'
        "[collectors.kernel_log]\nfiles = ['/var/log/kern.log']\n"
        '[collectors.kernel_log.patterns.fan]\nregex = "fan failed"\n'
        "[collectors.arc]\ninterval = 2.5\n"
    )
    cfg = load(collectors(), str(cfg_file))
    start = Start(cfg, (Collector.of(_state()),))
    assert _trip(start, TO_WORKER) == start
    assert _trip(Reload(cfg), TO_WORKER) == Reload(cfg)
    assert _trip(Trigger(("arc", "pools")), TO_WORKER) == Trigger(("arc", "pools"))
    assert _trip(Stop(), TO_WORKER) == Stop()


def test_messages_from_the_worker_arrive_unchanged() -> None:
    state = _state()
    (name, digest, _), second = state.rendered
    rows = (SummaryRow("tank", "ONLINE", True),)
    run = RunData(((name, digest, None), second), tuple(state.kept), rows)
    update = Update((Collector.of(state),), {state.name: run})
    assert _trip(update, FROM_WORKER) == update
    for message in (Started(None, True), Reloaded("RuntimeError('x')", False), Beat(False)):
        assert _trip(message, FROM_WORKER) == message
    assert _trip(Running("pools", 1.5), FROM_WORKER) == Running("pools", 1.5)


@pytest.mark.parametrize("what", sorted(set(BAD_FRAMES) - {"a piece the server does not hold"}))
def test_a_bad_frame_is_a_protocol_error(what: str) -> None:
    a, b = socket.socketpair()
    try:
        a.sendall(BAD_FRAMES[what])
        a.shutdown(socket.SHUT_WR)
        with pytest.raises(ProtocolError):
            Channel(b, FROM_WORKER).recv()
    finally:
        a.close()
        b.close()


BAD_BODIES = {
    "a config with an unknown key": ("Reload", [{"exec.command": "sh"}, None]),
    "a config with a bad value": ("Reload", [{"collectors.arc.interval": -1}, None]),
    "a trigger of numbers": ("Trigger", [1, 2]),
    "a stop that carries something": ("Stop", ["now"]),
    "a collector without its fields": ("Start", [[{}, None], [["arc", {}, [], []]]]),
}


@pytest.mark.parametrize("what", sorted(BAD_BODIES))
def test_the_worker_refuses_a_bad_message(what: str) -> None:
    kind, body = BAD_BODIES[what]
    with pytest.raises(ProtocolError):
        wire.decode(_message(kind, body)[4:], TO_WORKER)


def test_an_update_with_bad_fields_is_refused() -> None:
    names = [f.name for f in fields(Collector)]
    for key, bad in [
        ("interval", 0), ("runs", {"success": 1}), ("success", 1), ("fd_exhausted", -1),
        ("last_error_reason", "exploit"), ("last_duration", float("inf")),
    ]:  # fmt: skip
        values = wire._encode_collector(Collector.of(_state()))
        values[names.index(key)] = bad
        with pytest.raises(ProtocolError):
            wire.decode(_message("Update", [[values], {}])[4:], FROM_WORKER)
    missing = wire._encode_collector(Collector.of(_state()))[:-1]
    with pytest.raises(ProtocolError):
        wire.decode(_message("Update", [[missing], {}])[4:], FROM_WORKER)


def test_a_piece_that_claims_more_text_than_deflate_can_hold_is_refused() -> None:
    """The HTTP process joins pieces by combining their CRC-32s over their sizes: a size no
    deflate stream can reach would hold every scrape of that format."""
    state = _state()
    (name, digest, packed), _ = state.rendered
    honest = RunData(((name, digest, packed),), None, None)
    assert _trip(Update((Collector.of(state),), {state.name: honest}), FROM_WORKER)
    blobs = wire._Blobs()
    encoded = honest.encode(blobs)
    encoded[0][0][2][0][2] = 2**60  # the text piece's size
    with pytest.raises(ProtocolError, match="claims"):
        RunData.decode(encoded, blobs, {})


def test_the_config_travels_as_flat_settings() -> None:
    cfg = load(collectors(), None)
    values = config_values(cfg)
    assert all(type(v) in (str, int, float, bool, list, dict) for v in values.values())


def test_nothing_pickles_between_the_processes() -> None:
    for module in (
        "runtime/channel.py",
        "runtime/supervisor.py",
        "runtime/worker.py",
        "daemon.py",
        "runtime/front.py",
    ):
        tree = ast.parse((ZMON / module).read_text())
        imported = {
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.Import | ast.ImportFrom)
            for alias in node.names
        } | {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        assert not imported & {"pickle", "marshal", "shelve", "dill"}, module
    # of multiprocessing's connection, only the byte framing (its send and recv pickle); of
    # its reduction module, only the passing of descriptors
    tree = ast.parse((ZMON / "runtime" / "channel.py").read_text())
    used = {
        (node.value.attr if isinstance(node.value, ast.Attribute) else node.value.id, node.attr)
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute | ast.Name)
    }
    assert {attr for of, attr in used if of == "conn"} <= {
        "send_bytes", "recv_bytes", "fileno", "close", "closed", "readable"
    }  # fmt: skip
    assert {attr for of, attr in used if of == "reduction"} == {"sendfds", "recvfds"}


@pytest.mark.parametrize("what", ["a pickle", "a length prefix of 2**60"])
def test_a_worker_sent_a_bad_frame_exits(what: str) -> None:
    ours, theirs = socket.socketpair()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "zmon.runtime.worker", str(theirs.fileno())],
            pass_fds=(theirs.fileno(),),
            stdin=subprocess.DEVNULL,
        )
        theirs.close()
        ours.sendall(BAD_FRAMES[what])
        assert proc.wait(120) == BAD_MESSAGE
    finally:
        ours.close()
