"""The serving process and its collection worker talk over one socket pair, in framed pickles.

Both ends are zmon processes started together from the same installation, so pickle
carries the config, collector states and metric families as they are. Each message is a
tuple whose first item names it; the worker's ``update`` carries what the server mirrors of
a collector: its fields (``state_fields``) and, after a run, its rendered pieces, the
families the status views read and its landing-page rows.
"""

from __future__ import annotations

import pickle
import socket
import struct
import threading
from dataclasses import fields
from typing import Any

from zmon.snapshot import CollectorState, SummaryRow

_LENGTH = struct.Struct("!Q")
# what a collector's mirror in the server takes from each update (its data travels apart)
MIRRORED = tuple(
    f.name
    for f in fields(CollectorState)
    if f.name not in ("name", "rendered", "kept", "summary", "collecting")
)


class Closed(Exception):
    """The other end is gone (it exited, or was killed)."""


class Channel:
    """One end of the socket pair: ``send`` from any thread, ``recv`` from one."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self._send_lock = threading.Lock()

    def send(self, message: tuple[Any, ...]) -> None:
        data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        try:
            with self._send_lock:
                self.sock.sendall(_LENGTH.pack(len(data)) + data)
        except OSError as exc:
            raise Closed(str(exc)) from exc

    def recv(self) -> tuple[Any, ...]:
        (length,) = _LENGTH.unpack(self._exactly(_LENGTH.size))
        message: tuple[Any, ...] = pickle.loads(self._exactly(length))
        return message

    def _exactly(self, size: int) -> bytearray:
        buf = bytearray(size)
        view = memoryview(buf)
        got = 0
        while got < size:
            try:
                n = self.sock.recv_into(view[got:])
            except OSError as exc:
                raise Closed(str(exc)) from exc
            if n == 0:
                raise Closed("the other end closed the channel")
            got += n
        return buf

    def close(self) -> None:
        self.sock.close()


def state_fields(state: CollectorState) -> dict[str, Any]:
    """A collector's fields that its mirror in the server takes from each update."""
    return {name: getattr(state, name) for name in MIRRORED}


def summary_rows(state: CollectorState) -> list[SummaryRow] | None:
    """The collector's landing-page rows from its kept families, if it has a table."""
    if state.summary is None or not state.summary_title:
        return None
    return list(state.summary(state.kept))


class FixedRows:
    """A mirror's ``summary``: the rows the worker read from the families when it sent them."""

    def __init__(self, rows: list[SummaryRow]) -> None:
        self.rows = rows

    def __call__(self, _families: object) -> list[SummaryRow]:
        return self.rows


def seed_of(state: CollectorState) -> CollectorState:
    """What a new worker continues from: the mirror without its server-side parts."""
    seed = CollectorState(state.name, state.interval, state.timeout)
    for name in MIRRORED:
        setattr(seed, name, getattr(state, name))
    seed.runs = dict(state.runs)
    seed.rendered, seed.kept = state.rendered, state.kept
    seed.running_since = None
    return seed
