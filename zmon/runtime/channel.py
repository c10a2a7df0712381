"""The main process, its collection worker and its HTTP process talk over socket pairs, in
typed messages that each end checks on arrival: none runs or trusts what another sends.

The framing is ``multiprocessing.connection.Connection`` on a pair's descriptor: its
length-prefixed ``send_bytes`` and ``recv_bytes``, which refuses a frame longer than the
reader's limit before reading it. Not its ``send`` and ``recv``: they pickle, and unpickling
runs in the reader what the sender chose. The worker parses what the host's tools print and
the HTTP process answers the network; the main process, which reads what both send, holds
privileges neither has, and the worker takes nothing on trust from it either. So a frame holds
a JSON header ``[message class, body, [blob sizes]]`` after its 4-byte length, then the blobs
(the compressed exposition pieces and the TLS material, raw bytes named in the body by their
index). Each message is a frozen dataclass with its own ``encode`` and ``decode``; a header
that is not JSON, a message this end does not take, or a field without the type and range of
its message raises ``ProtocolError`` before anything is used. The checks are written out here
rather than taken from a schema library (msgspec makes the same ones) to add no dependency.
The supervisor takes a ``ProtocolError`` for a fault of the worker and replaces it
(zmon/runtime/supervisor.py); the worker ends on one from the main process.

The worker owns the collectors' state (``zmon.exposition.snapshot.CollectorState``). It reports
every collector's status in ``Update`` (a ``zmon.exposition.snapshot.Collector`` record each),
with the data of a run that changed what the receivers hold (``RunData``), and ``Running``; the
main process and the HTTP process hold the records they were sent (``HeldCollectors``), and a
new worker starts from those the main process holds (``Start``). Messages to the worker:
``Start``, ``Reload``, ``Trigger``, ``Stop``; from it: ``Started``, ``Reloaded``, ``Update``,
``Running``, ``Beat``. To the HTTP process: ``Serve`` (addresses, the web config with its TLS
material, the listening sockets sent after it as SCM_RIGHTS), the worker's ``Update`` and
``Running`` as they came, ``Health``, ``Orphaned``, ``Pools`` and ``Stop``; it answers only
``Served``, in frames of at most 64 KiB."""

from __future__ import annotations

import json
import math
import os
import socket
import struct
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from multiprocessing import reduction
from multiprocessing.connection import Connection
from pathlib import Path
from sys import intern
from typing import Any, TypeVar

from prometheus_client.core import Metric

from zmon.base import failures
from zmon.collecting.config import Config, ConfigError, config_values, from_values
from zmon.collecting.registry import collectors
from zmon.exposition import gzipjoin
from zmon.exposition.metrics import HeldFamily, each_sample
from zmon.exposition.snapshot import Collector, CollectorState, Packed, Snapshot, SummaryRow
from zmon.host.last_pools import LastPools
from zmon.web.webconfig import CLIENT_AUTH, TLS_VERSIONS, TLSSettings, WebConfig

_HEADER = struct.Struct("!I")
# The largest frame a reader takes. A big host's first update (a collector's compressed
# pieces and the families the views read) is a few MB; past this a length is a fault, not
# something to allocate.
MAX_FRAME = 256 * 1024 * 1024
# The HTTP process's messages are small: a frame past this is a fault, and its error text is
# cut to MAX_ERROR characters.
MAX_FRONT_FRAME = 64 * 1024
MAX_ERROR = 2000
# what a digest of a family's texts is (zmon.exposition.snapshot.family_digest: SHA-1)
DIGEST_SIZE = 20

T = TypeVar("T")


class Closed(Exception):
    """The other end is gone (it exited, or was killed)."""


class ProtocolError(Exception):
    """A frame that is not a message this end takes: the sender is at fault."""


# -- checking what arrives ----------------------------------------------------------------


def _str(v: object) -> str:
    if type(v) is not str:
        raise ProtocolError(f"expected a string, got {type(v).__name__}")
    return v


def _bool(v: object) -> bool:
    if type(v) is not bool:
        raise ProtocolError(f"expected true or false, got {type(v).__name__}")
    return v


def _int(v: object) -> int:
    if type(v) is not int or v < 0:
        raise ProtocolError(f"expected a count, got {v!r:.40}")
    return v


def _float(v: object) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise ProtocolError(f"expected a finite number, got {v!r:.40}")
    return float(v)


def _seconds(v: object) -> float:
    out = _float(v)
    if out <= 0:
        raise ProtocolError(f"expected a positive duration, got {out!r}")
    return out


def _list(v: object) -> list[Any]:
    if type(v) is not list:
        raise ProtocolError(f"expected a list, got {type(v).__name__}")
    return v


def _dict(v: object) -> dict[str, Any]:
    if type(v) is not dict:
        raise ProtocolError(f"expected an object, got {type(v).__name__}")
    return v


def _optional(check: Callable[[object], T]) -> Callable[[object], T | None]:
    return lambda v: None if v is None else check(v)


def _items(v: object, size: int) -> list[Any]:
    out = _list(v)
    if len(out) != size:
        raise ProtocolError(f"expected {size} items, got {len(out)}")
    return out


RUN_KINDS = tuple(CollectorState("", 1.0, 1.0).runs)


def _runs(v: object) -> dict[str, int]:
    runs = _dict(v)
    if set(runs) != set(RUN_KINDS):
        raise ProtocolError(f"run counts of unknown kinds: {sorted(runs)!r:.200}")
    return {kind: _int(runs[kind]) for kind in RUN_KINDS}


def _reason(v: object) -> str:
    reason = _str(v)
    if reason and reason not in failures.REASONS:
        raise ProtocolError(f"unknown failure reason {reason!r:.60}")
    return reason


class _Blobs:
    """The raw byte strings of one frame: collected while encoding, looked up when decoding."""

    def __init__(self, items: list[bytes] | None = None) -> None:
        self.items: list[bytes] = items if items is not None else []

    def add(self, data: bytes) -> int:
        self.items.append(data)
        return len(self.items) - 1

    def get(self, index: object) -> bytes:
        i = _int(index)
        if i >= len(self.items):
            raise ProtocolError(f"no blob {i} in a frame of {len(self.items)}")
        return self.items[i]


# -- the parts of messages ----------------------------------------------------------------

# a family's pieces the receiving side holds (by the family's name and digest) travel as None
Pieces = tuple[tuple[str, bytes, Packed | None], ...]


def _encode_collector(c: Collector) -> list[Any]:
    """A collector's status (its data travels in ``RunData``)."""
    return [
        c.name, c.interval, c.timeout, c.success, c.has_data, c.last_duration, c.last_success,
        c.last_error, c.running_since, c.summary_title, dict(c.runs), c.last_error_reason,
        c.fd_exhausted, c.leaked_children, c.state_write_failures, c.state_writable,
    ]  # fmt: skip


def _decode_collector(v: object) -> Collector:
    (name, interval, timeout, success, has_data, duration, last_success, error, running,
     title, runs, reason, fds, leaked, write_failures, writable) = _items(v, 16)  # fmt: skip
    return Collector(
        _str(name), _seconds(interval), _seconds(timeout), _optional(_bool)(success),
        _bool(has_data), _float(duration), _float(last_success), _str(error),
        _optional(_float)(running), _str(title), _runs(runs), _reason(reason), _int(fds),
        _int(leaked), _int(write_failures), _optional(_bool)(writable),
    )  # fmt: skip


# deflate expands at most 1032-fold: a piece that claims more text than its bytes can hold
# would have the join combine CRC-32s over that many zeros, for as long as it claims
MAX_INFLATION = 1032


def _decode_piece(v: object, blobs: _Blobs) -> gzipjoin.Piece:
    blob, crc, size = _items(v, 3)
    if _int(crc) > 0xFFFFFFFF:
        raise ProtocolError("a CRC-32 of more than 32 bits")
    deflated = blobs.get(blob)
    if _int(size) > MAX_INFLATION * len(deflated):
        raise ProtocolError(f"a piece of {len(deflated)} bytes that claims {size} bytes of text")
    return gzipjoin.Piece(deflated, crc, size)


def _encode_family(fam: Metric) -> list[Any]:
    samples = [
        [s.name, s.labels, s.value, None if s.timestamp is None else float(s.timestamp)]
        for s in each_sample(fam)
    ]
    return [fam.name, fam.documentation, fam.type, fam.unit, samples]


def _decode_family(v: object, shared: dict[tuple[str, ...], tuple[str, ...]]) -> HeldFamily:
    """A family as the HTTP process holds it (``HeldFamily``); ``shared``: the message's
    label-value tuples, for every family it carries."""
    name, doc, typ, unit, samples = _items(v, 5)
    try:
        fam = HeldFamily(_str(name), _str(doc), _str(typ), _str(unit))
    except ValueError as exc:
        raise ProtocolError(f"a bad metric family: {exc}") from None
    if fam.name != name or fam.type != typ:
        raise ProtocolError(f"a metric family named {name!r:.80} of type {typ!r:.20} changed")
    for item in _list(samples):  # (checked inline: a big host sends tens of thousands)
        if type(item) is not list or len(item) != 4:
            raise ProtocolError(f"a sample of {name!r:.80} that is not [name, labels, value, ts]")
        s_name, labels, value, timestamp = item
        if (
            type(s_name) is not str
            or type(labels) is not dict
            or type(value) not in (float, int)
            or not all(type(v) is str for v in labels.values())
        ):
            raise ProtocolError(f"a sample of {name!r:.80} with a field of the wrong type")
        ts = None if timestamp is None else _float(timestamp)
        # (one string for a device's name in every family)
        values = tuple([intern(label) for label in labels.values()])
        keys = tuple([intern(key) for key in labels])
        fam.add(intern(s_name), keys, values, float(value), ts, shared)
    return fam


@dataclass(frozen=True, slots=True)
class RunData:
    """What a collector's run changed: each family's name, its texts' digest and those texts
    compressed (``Pieces``: None for pieces the receiving side holds); the families the
    status views read and the landing-page rows read from them (both None: those held)."""

    pieces: Pieces
    families: tuple[Metric, ...] | None
    summary_rows: tuple[SummaryRow, ...] | None

    def encode(self, blobs: _Blobs) -> list[Any]:
        return [
            [
                [
                    name,
                    digest.hex(),
                    None if p is None else [[blobs.add(q.deflated), q.crc, q.size] for q in p],
                ]
                for name, digest, p in self.pieces
            ],
            None if self.families is None else [_encode_family(f) for f in self.families],
            None
            if self.summary_rows is None
            else [[r.thing, r.state, r.healthy] for r in self.summary_rows],
        ]

    @classmethod
    def decode(
        cls, v: object, blobs: _Blobs, shared: dict[tuple[str, ...], tuple[str, ...]]
    ) -> RunData:
        raw_pieces, families, rows = _items(v, 3)
        pieces = []
        for item in _list(raw_pieces):
            name, digest_hex, packed = _items(item, 3)
            try:
                digest = bytes.fromhex(_str(digest_hex))
            except ValueError:
                raise ProtocolError("a digest that is not hex") from None
            if len(digest) != DIGEST_SIZE:
                raise ProtocolError(f"a digest of {len(digest)} bytes")
            piece = None
            if packed is not None:
                parts = _items(packed, len(Packed._fields))
                piece = Packed(*(_decode_piece(p, blobs) for p in parts))
            pieces.append((_str(name), digest, piece))
        return cls(
            tuple(pieces),
            None if families is None else tuple(_decode_family(f, shared) for f in _list(families)),
            None
            if rows is None
            else tuple(
                SummaryRow(_str(thing), _str(state), _bool(healthy))
                for thing, state, healthy in (_items(r, 3) for r in _list(rows))
            ),
        )


def _encode_config(cfg: Config) -> list[Any]:
    return [config_values(cfg), cfg.source]


def _decode_config(v: object) -> Config:
    values, source = _items(v, 2)
    try:
        return from_values(collectors(), _dict(values), _optional(_str)(source))
    except ConfigError as exc:
        raise ProtocolError(f"an invalid config: {str(exc):.500}") from None


def _encode_web(web: WebConfig, blobs: _Blobs) -> list[Any]:
    tls = web.tls
    if tls is not None and (tls.cert_pem is None or tls.key_pem is None):
        tls = tls.in_memory()
    packed_tls = None
    if tls is not None:
        assert tls.cert_pem is not None and tls.key_pem is not None
        packed_tls = [
            str(tls.cert_file), str(tls.key_file), tls.client_auth_type,
            None if tls.client_ca_file is None else str(tls.client_ca_file),
            tls.min_version, tls.max_version,
            blobs.add(tls.cert_pem), blobs.add(tls.key_pem),
            None if tls.client_ca_pem is None else blobs.add(tls.client_ca_pem),
        ]  # fmt: skip
    users = {name: hashed.decode("ascii") for name, hashed in web.users.items()}
    return [packed_tls, users, [list(h) for h in web.headers], web.source]


def _decode_web(v: object, blobs: _Blobs) -> WebConfig:
    packed_tls, users, headers, source = _items(v, 4)
    tls = None
    if packed_tls is not None:
        cert, key, auth, ca, low, high, cert_pem, key_pem, ca_pem = _items(packed_tls, 9)
        if _str(auth) not in CLIENT_AUTH or _str(low) not in TLS_VERSIONS:
            raise ProtocolError("TLS settings of an unknown kind")
        if high is not None and _str(high) not in TLS_VERSIONS:
            raise ProtocolError("TLS settings of an unknown kind")
        tls = TLSSettings(
            Path(_str(cert)), Path(_str(key)), auth,
            None if ca is None else Path(_str(ca)), low, high,
            blobs.get(cert_pem), blobs.get(key_pem),
            None if ca_pem is None else blobs.get(ca_pem),
        )  # fmt: skip
    return WebConfig(
        tls=tls,
        users={_str(name): _str(h).encode("ascii") for name, h in _dict(users).items()},
        headers=tuple((_str(k), _str(val)) for k, val in (_items(h, 2) for h in _list(headers))),
        source=_optional(_str)(source),
    )


# -- the messages -------------------------------------------------------------------------


class Message:
    """A message: its class's name tags it on the wire; ``encode`` makes its body (JSON
    values, raw bytes added to ``blobs``) and ``decode`` checks one. This base carries
    nothing."""

    __slots__ = ()

    def encode(self, blobs: _Blobs) -> Any:
        return None

    @classmethod
    def decode(cls, body: object, blobs: _Blobs) -> Message:
        if body is not None:
            raise ProtocolError(f"{cls.__name__} carries nothing")
        return cls()


@dataclass(frozen=True, slots=True)
class Start(Message):
    """Start collecting with ``config``, going on from ``collectors`` (their status as the
    last worker reported them: run counts continue)."""

    config: Config
    collectors: tuple[Collector, ...]

    def encode(self, blobs: _Blobs) -> Any:
        return [_encode_config(self.config), [_encode_collector(c) for c in self.collectors]]

    @classmethod
    def decode(cls, body: object, blobs: _Blobs) -> Start:
        config, seeds = _items(body, 2)
        return cls(_decode_config(config), tuple(_decode_collector(c) for c in _list(seeds)))


@dataclass(frozen=True, slots=True)
class Reload(Message):
    """Move to ``config``'s collectors."""

    config: Config

    def encode(self, blobs: _Blobs) -> Any:
        return _encode_config(self.config)

    @classmethod
    def decode(cls, body: object, blobs: _Blobs) -> Reload:
        return cls(_decode_config(body))


@dataclass(frozen=True, slots=True)
class Trigger(Message):
    """Run the named collectors now (every one without names)."""

    names: tuple[str, ...]

    def encode(self, blobs: _Blobs) -> Any:
        return list(self.names)

    @classmethod
    def decode(cls, body: object, blobs: _Blobs) -> Trigger:
        return cls(tuple(_str(n) for n in _list(body)))


@dataclass(frozen=True, slots=True)
class Stop(Message):
    """Stop and exit."""


@dataclass(frozen=True, slots=True)
class Started(Message):
    """The collectors started (``error`` None), or why not; whether every loop runs."""

    error: str | None
    healthy: bool

    def encode(self, blobs: _Blobs) -> Any:
        return [self.error, self.healthy]

    @classmethod
    def decode(cls, body: object, blobs: _Blobs) -> Started:
        error, healthy = _items(body, 2)
        return cls(_optional(_str)(error), _bool(healthy))


@dataclass(frozen=True, slots=True)
class Reloaded(Started):
    """The reload's outcome, as ``Started``."""


@dataclass(frozen=True, slots=True)
class Update(Message):
    """Every collector's status (one left out is gone), and the data of the runs that
    changed what the receiving side holds."""

    collectors: tuple[Collector, ...]
    runs: Mapping[str, RunData]

    def encode(self, blobs: _Blobs) -> Any:
        runs = {name: run.encode(blobs) for name, run in self.runs.items()}
        return [[_encode_collector(c) for c in self.collectors], runs]

    @classmethod
    def decode(cls, body: object, blobs: _Blobs) -> Update:
        reported, raw_runs = _items(body, 2)
        records = tuple(_decode_collector(c) for c in _list(reported))
        names = {c.name for c in records}
        shared: dict[tuple[str, ...], tuple[str, ...]] = {}
        runs = {}
        for name, v in _dict(raw_runs).items():
            if name not in names:
                raise ProtocolError(f"data of an unknown collector {name!r:.80}")
            runs[name] = RunData.decode(v, blobs, shared)
        return cls(records, runs)


@dataclass(frozen=True, slots=True)
class Running(Message):
    """Collector ``name`` started a run at ``since`` (monotonic)."""

    name: str
    since: float | None

    def encode(self, blobs: _Blobs) -> Any:
        return [self.name, self.since]

    @classmethod
    def decode(cls, body: object, blobs: _Blobs) -> Running:
        name, since = _items(body, 2)
        return cls(_str(name), _optional(_float)(since))


@dataclass(frozen=True, slots=True)
class Beat(Message):
    """The worker is alive; whether every collector loop runs."""

    healthy: bool

    def encode(self, blobs: _Blobs) -> Any:
        return self.healthy

    @classmethod
    def decode(cls, body: object, blobs: _Blobs) -> Beat:
        return cls(_bool(body))


@dataclass(frozen=True, slots=True)
class Serve(Message):
    """To the HTTP process: serve ``addresses`` with ``web`` (TLS material in memory), on
    the listening sockets sent after the message (SCM_RIGHTS, one per address)."""

    addresses: tuple[str, ...]
    web: WebConfig

    def encode(self, blobs: _Blobs) -> Any:
        return [list(self.addresses), _encode_web(self.web, blobs)]

    @classmethod
    def decode(cls, body: object, blobs: _Blobs) -> Serve:
        addresses, web = _items(body, 2)
        return cls(tuple(_str(a) for a in _list(addresses)), _decode_web(web, blobs))


@dataclass(frozen=True, slots=True)
class Served(Message):
    """From the HTTP process, the one thing it says: a ``Serve`` took effect (``error`` None),
    or why not. Checked like any message, and no longer than ``MAX_ERROR``."""

    error: str | None

    def encode(self, blobs: _Blobs) -> Any:
        return self.error

    @classmethod
    def decode(cls, body: object, blobs: _Blobs) -> Served:
        error = _optional(_str)(body)
        if error is not None and len(error) > MAX_ERROR:
            raise ProtocolError(f"an error of {len(error)} characters")
        return cls(error)


@dataclass(frozen=True, slots=True)
class Health(Message):
    """To the HTTP process: whether the worker answers (``/healthz``), and its restarts."""

    answering: bool
    restarts: int

    def encode(self, blobs: _Blobs) -> Any:
        return [self.answering, self.restarts]

    @classmethod
    def decode(cls, body: object, blobs: _Blobs) -> Health:
        answering, restarts = _items(body, 2)
        return cls(_bool(answering), _int(restarts))


@dataclass(frozen=True, slots=True)
class Orphaned(Message):
    """To the HTTP process: the worker ended (``reason``); what it sent stays, as stale."""

    reason: str

    def encode(self, blobs: _Blobs) -> Any:
        return self.reason

    @classmethod
    def decode(cls, body: object, blobs: _Blobs) -> Orphaned:
        return cls(_str(body))


@dataclass(frozen=True, slots=True)
class Pools(Message):
    """To the HTTP process: the pools' last recorded states (zmon/host/last_pools.py), which
    the status page shows while zpool does not answer; None when there are none."""

    last: LastPools | None

    def encode(self, blobs: _Blobs) -> Any:
        return None if self.last is None else [self.last.time, self.last.states]

    @classmethod
    def decode(cls, body: object, blobs: _Blobs) -> Pools:
        if body is None:
            return cls(None)
        when, states = _items(body, 2)
        return cls(LastPools(_float(when), {_str(k): _str(v) for k, v in _dict(states).items()}))


TO_WORKER: tuple[type[Message], ...] = (Start, Reload, Trigger, Stop)
FROM_WORKER: tuple[type[Message], ...] = (Started, Reloaded, Update, Running, Beat)
TO_FRONT: tuple[type[Message], ...] = (Serve, Update, Running, Health, Orphaned, Pools, Stop)
FROM_FRONT: tuple[type[Message], ...] = (Served,)


def encode(message: Message) -> bytes:
    """The frame of ``message`` (without the length the channel puts before it)."""
    blobs = _Blobs()
    body = message.encode(blobs)
    sizes = [len(b) for b in blobs.items]
    header = json.dumps([type(message).__name__, body, sizes], separators=(",", ":")).encode()
    return b"".join([_HEADER.pack(len(header)), header, *blobs.items])


def decode(frame: bytes, accepts: Iterable[type[Message]]) -> Message:
    """The message in ``frame``, if it is one of ``accepts``."""
    try:
        if len(frame) < _HEADER.size:
            raise ProtocolError("a frame shorter than its header length")
        (size,) = _HEADER.unpack_from(frame)
        end = _HEADER.size + size
        if end > len(frame):
            raise ProtocolError("a header longer than its frame")
        tag, body, sizes = _items(json.loads(frame[_HEADER.size : end]), 3)
        cls = next((c for c in accepts if c.__name__ == tag), None)
        if cls is None:
            raise ProtocolError(f"unexpected message {tag!r:.40}")
        view = memoryview(frame)
        items = []
        for blob_size in _list(sizes):
            n = _int(blob_size)
            if end + n > len(frame):
                raise ProtocolError("blobs longer than their frame")
            items.append(bytes(view[end : end + n]))
            end += n
        if end != len(frame):
            raise ProtocolError(f"{len(frame) - end} bytes after the last blob")
        return cls.decode(body, _Blobs(items))
    except ProtocolError:
        raise
    except (ValueError, RecursionError, TypeError, UnicodeDecodeError) as exc:
        raise ProtocolError(f"an undecodable frame: {type(exc).__name__}: {exc}"[:300]) from None


# -- the channel --------------------------------------------------------------------------


class Channel:
    """One end of a socket pair: ``send`` from any thread, ``recv`` from one. It takes the
    messages of ``accepts``, in frames of at most ``max_frame`` bytes."""

    def __init__(
        self, sock: socket.socket, accepts: Iterable[type[Message]], max_frame: int = MAX_FRAME
    ) -> None:
        self.conn = Connection(sock.detach())
        self.accepts = tuple(accepts)
        self.max_frame = max_frame
        self._send_lock = threading.Lock()

    def fileno(self) -> int:
        return self.conn.fileno()

    def send(self, message: Message, fds: Sequence[int] = ()) -> None:
        """Send ``message``, then the descriptors ``fds`` (SCM_RIGHTS) if there are any."""
        self.send_frame(encode(message), fds)

    def send_frame(self, frame: bytes, fds: Sequence[int] = ()) -> None:
        """Send ``frame`` (a message's, or one ``recv_frame`` returned, as it came), then the
        descriptors ``fds``."""
        try:
            with self._send_lock:
                self.conn.send_bytes(frame)
                if fds:
                    with self._socket() as sock:
                        reduction.sendfds(sock, list(fds))
        except OSError as exc:
            raise Closed(str(exc)) from exc

    def recv(self) -> Message:
        """The next message: Closed when the other end is gone, ProtocolError when what
        came is not a message this end takes."""
        return self.recv_frame()[0]

    def recv_frame(self) -> tuple[Message, bytes]:
        """The next message and its frame, to pass on unchanged."""
        try:
            frame = self.conn.recv_bytes(self.max_frame)
        except EOFError:
            raise Closed("the other end closed the channel") from None
        except OSError as exc:
            if not self.conn.closed and not self.conn.readable:  # (refused by its length)
                raise ProtocolError(f"a frame over the limit of {self.max_frame} bytes") from None
            raise Closed(str(exc)) from exc
        return decode(frame, self.accepts), frame

    def recv_fds(self, count: int) -> list[int]:
        """The ``count`` descriptors sent after the message just received (ProtocolError, and
        those that came closed, if not that many came)."""
        if not count:
            return []
        try:
            with self._socket() as sock:
                fds = reduction.recvfds(sock, count)
        except EOFError:
            raise Closed("the other end closed the channel") from None
        except (RuntimeError, AssertionError) as exc:
            raise ProtocolError(f"descriptors that do not fit: {exc}") from None
        except OSError as exc:
            raise Closed(str(exc)) from exc
        if len(fds) != count:
            for fd in fds:
                os.close(fd)
            raise ProtocolError(f"{len(fds)} descriptors came with a message that takes {count}")
        return fds

    def _socket(self) -> socket.socket:
        return socket.fromfd(self.conn.fileno(), socket.AF_UNIX, socket.SOCK_STREAM)

    def close(self) -> None:
        self.conn.close()


# -- what a receiving side holds ----------------------------------------------------------


class HeldCollectors:
    """The collectors as a receiving side holds them: the records the worker's messages
    bring, changed by nothing else but its end, in the order it sent them. The main process
    keeps their status and their pieces' digests (to check each update by); the HTTP process
    keeps their data too, in ``snapshot``, which it serves."""

    def __init__(self, snapshot: Snapshot | None = None) -> None:
        self.snapshot = snapshot
        self._records: dict[str, Collector] = {}
        self._digests: dict[str, frozenset[tuple[str, bytes]]] = {}
        self._lock = threading.Lock()

    def records(self) -> dict[str, Collector]:
        with self._lock:
            return dict(self._records)

    def get(self, name: str) -> Collector | None:
        with self._lock:
            return self._records.get(name)

    def take(self, update: Update) -> None:
        """Hold what ``update`` reports; ProtocolError, and nothing changed, if a run's data
        leaves out a piece that is not held."""
        with self._lock:
            for name, ran in update.runs.items():
                held = self._digests.get(name, frozenset())
                missing = [n for n, d, p in ran.pieces if p is None and (n, d) not in held]
                if missing:
                    raise ProtocolError(f"{name} left out pieces not held: {missing[:3]!r}")
            records = {}
            for c in update.collectors:
                run = update.runs.get(c.name)
                if run is not None:
                    self._digests[c.name] = frozenset((n, d) for n, d, _ in run.pieces)
                records[c.name] = self._with_data(c, self._records.get(c.name), run)
            for name in self._records.keys() - records.keys():  # reloaded away
                self._digests.pop(name, None)
                if self.snapshot is not None:
                    self.snapshot.remove(name)
            self._records = {}
            for c in records.values():
                self._put(c)

    def _with_data(self, c: Collector, old: Collector | None, run: RunData | None) -> Collector:
        """``c`` with the data held: ``run``'s, and ``old``'s where ``run`` leaves it out."""
        if self.snapshot is None:
            return c  # (only the digests are held)
        base = old if old is not None else c
        rendered, families, rows = base.rendered, base.families, base.summary_rows
        if run is not None:
            held = {(n, d): p for n, d, p in rendered}
            rendered = tuple((n, d, held[n, d] if p is None else p) for n, d, p in run.pieces)
            if run.families is not None:
                families, rows = run.families, run.summary_rows
        return replace(c, rendered=rendered, families=families, summary_rows=rows)

    def running(self, message: Running) -> None:
        with self._lock:
            c = self._records.get(message.name)
            if c is not None:
                self._put(replace(c, running_since=message.since))

    def orphan(self, reason: str) -> None:
        """No worker: the data stays, marked stale; a run it was in counts as failed."""
        with self._lock:
            for c in list(self._records.values()):
                if c.running_since is not None:
                    c = replace(
                        c,
                        running_since=None,
                        success=False,
                        runs={**c.runs, "failure": c.runs["failure"] + 1},
                        last_error=f"the collection worker {reason} during the run",
                        last_error_reason=failures.ERROR,
                    )
                self._put(replace(c, collecting=False))

    def _put(self, c: Collector) -> None:
        self._records[c.name] = c
        if self.snapshot is not None:
            self.snapshot.add(c)
