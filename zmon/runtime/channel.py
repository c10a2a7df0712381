"""The serving process and its collection worker talk over one socket pair, in typed messages
that each end checks on arrival: neither runs or trusts what the other sends.

A frame is an 8-byte big-endian length, then that many bytes: a 4-byte length, a JSON header
``[kind, body, [blob sizes]]``, and the blobs (the compressed exposition pieces, which travel
as raw bytes, named in the body by their index). A frame longer than the reader's limit, a
header that is not JSON, a kind the reader does not take, or a body whose fields do not have
the types and ranges of the message: each raises ``ProtocolError`` before anything is used.
The supervisor treats that as a fault of the worker (it is replaced, zmon/runtime/supervisor.py);
the
worker ends on a bad message from the server.

Between the privileged side and the HTTP process (zmon/runtime/front.py) the same frames carry
``Serve`` (addresses, the web config with its TLS material, and the listening sockets as
SCM_RIGHTS), ``Update`` and ``Running`` as the worker sent them, ``Health``, ``Orphaned``,
``Pools`` and ``Stop``; the HTTP process answers only ``Served``, in frames of at most 64 KiB.

Messages to the worker: ``Start`` (the config, as the flat settings it is built from and
checked again here; the collectors' states to continue from), ``Reload`` (a config),
``Trigger`` (collector names), ``Stop``. From it: ``Started`` and ``Reloaded`` (an error or
None, and whether every collector loop runs), ``Update`` (every collector's fields, and the
data of those whose run just ended), ``Running`` (a run started) and ``Beat`` (alive, and
healthy).
"""

from __future__ import annotations

import array
import json
import math
import os
import socket
import struct
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from sys import intern
from typing import Any, ClassVar, TypeVar

from prometheus_client.core import Metric

from zmon.base import failures
from zmon.collecting.config import Config, ConfigError, config_values, from_values
from zmon.collecting.registry import collectors
from zmon.exposition import gzipjoin
from zmon.exposition.metrics import HeldFamily, each_sample
from zmon.exposition.snapshot import CollectorState, Packed, SummaryRow
from zmon.host.last_pools import LastPools
from zmon.web.webconfig import CLIENT_AUTH, TLS_VERSIONS, TLSSettings, WebConfig

_LENGTH = struct.Struct("!Q")
_HEADER = struct.Struct("!I")
# The largest frame a reader takes. A big host's first update (every collector's compressed
# pieces and the families the views read) is a few MB; past this a length is a fault, not
# something to allocate.
MAX_FRAME = 256 * 1024 * 1024
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


def _number(v: object) -> float:
    """Any number, NaN and infinities included (a sample's value)."""
    if type(v) is not int and type(v) is not float:
        raise ProtocolError(f"expected a number, got {type(v).__name__}")
    return float(v)


def _float(v: object) -> float:
    out = _number(v)
    if not math.isfinite(out):
        raise ProtocolError(f"expected a finite number, got {out!r}")
    return out


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


RUN_KINDS = tuple(CollectorState("", 1.0, 1.0).runs)

# A collector's fields that its mirror in the server takes from each update (its data
# travels apart), each with the check it passes on arrival.
FIELD_CHECKS: dict[str, Callable[[object], Any]] = {
    "interval": _seconds,
    "timeout": _seconds,
    "success": _optional(_bool),
    "has_data": _bool,
    "last_duration": _float,
    "last_success": _float,
    "last_error": _str,
    "running_since": _optional(_float),
    "summary_title": _str,
    "runs": _runs,
    "last_error_reason": _reason,
    "fd_exhausted": _int,
    "leaked_children": _int,
    "state_write_failures": _int,
    "state_writable": _optional(_bool),
}
MIRRORED = tuple(FIELD_CHECKS)
# the parts of a CollectorState that are not mirrored fields
NOT_MIRRORED = ("name", "rendered", "kept", "summary", "collecting")


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


def _encode_fields(state: CollectorState) -> dict[str, Any]:
    return {name: getattr(state, name) for name in MIRRORED}


def _decode_fields(v: object) -> dict[str, Any]:
    values = _dict(v)
    if set(values) != set(MIRRORED):
        raise ProtocolError(f"collector fields {sorted(values)!r:.200} are not the mirrored ones")
    return {name: check(values[name]) for name, check in FIELD_CHECKS.items()}


Pieces = list[tuple[str, bytes, Packed | None]]


def _encode_pieces(pieces: Iterable[tuple[str, bytes, Packed | None]], blobs: _Blobs) -> list[Any]:
    return [
        [
            name,
            digest.hex(),
            None if p is None else [[blobs.add(q.deflated), q.crc, q.size] for q in p],
        ]
        for name, digest, p in pieces
    ]


def _decode_piece(v: object, blobs: _Blobs) -> gzipjoin.Piece:
    blob, crc, size = _items(v, 3)
    if _int(crc) > 0xFFFFFFFF:
        raise ProtocolError("a CRC-32 of more than 32 bits")
    return gzipjoin.Piece(blobs.get(blob), crc, _int(size))


def _decode_pieces(v: object, blobs: _Blobs) -> Pieces:
    out: Pieces = []
    for item in _list(v):
        name, digest_hex, packed = _items(item, 3)
        try:
            digest = bytes.fromhex(_str(digest_hex))
        except ValueError:
            raise ProtocolError("a digest that is not hex") from None
        if len(digest) != DIGEST_SIZE:
            raise ProtocolError(f"a digest of {len(digest)} bytes")
        piece = None
        if packed is not None:
            piece = Packed(*(_decode_piece(p, blobs) for p in _items(packed, len(Packed._fields))))
        out.append((_str(name), digest, piece))
    return out


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


def _encode_rows(rows: list[SummaryRow] | None) -> list[Any] | None:
    return None if rows is None else [[r.thing, r.state, r.healthy] for r in rows]


def _decode_rows(v: object) -> list[SummaryRow] | None:
    if v is None:
        return None
    out = []
    for item in _list(v):
        thing, state, healthy = _items(item, 3)
        out.append(SummaryRow(_str(thing), _str(state), _bool(healthy)))
    return out


def _encode_config(cfg: Config) -> list[Any]:
    return [config_values(cfg), cfg.source]


def _decode_config(v: object) -> Config:
    values, source = _items(v, 2)
    try:
        return from_values(collectors(), _dict(values), _optional(_str)(source))
    except ConfigError as exc:
        raise ProtocolError(f"an invalid config: {str(exc):.500}") from None


def _encode_state(state: CollectorState, blobs: _Blobs) -> list[Any]:
    return [
        state.name,
        _encode_fields(state),
        _encode_pieces(state.rendered, blobs),
        [_encode_family(f) for f in state.kept],
    ]


def _decode_state(v: object, blobs: _Blobs) -> CollectorState:
    name, values, pieces, kept = _items(v, 4)
    checked = _decode_fields(values)
    state = CollectorState(_str(name), checked["interval"], checked["timeout"])
    for key, value in checked.items():
        setattr(state, key, value)
    rendered = _decode_pieces(pieces, blobs)
    if any(p is None for _, _, p in rendered):
        raise ProtocolError(f"collector {state.name!r:.80} continues from pieces it lacks")
    state.rendered = [(n, d, p) for n, d, p in rendered if p is not None]
    shared: dict[tuple[str, ...], tuple[str, ...]] = {}
    state.kept = [_decode_family(f, shared) for f in _list(kept)]
    return state


# -- the messages -------------------------------------------------------------------------


class Message:
    """One message; ``KIND`` names it on the wire."""

    KIND: ClassVar[str]

    def encode(self, blobs: _Blobs) -> Any:
        return None

    @classmethod
    def decode(cls, body: object, blobs: _Blobs) -> Message:
        if body is not None:
            raise ProtocolError(f"{cls.KIND} carries nothing")
        return cls()


@dataclass(frozen=True)
class Start(Message):
    """Start collecting with ``config``, continuing from ``seeds``."""

    KIND: ClassVar[str] = "start"
    config: Config
    seeds: list[CollectorState]

    def encode(self, blobs: _Blobs) -> Any:
        return [_encode_config(self.config), [_encode_state(s, blobs) for s in self.seeds]]

    @classmethod
    def decode(cls, body: object, blobs: _Blobs) -> Start:
        config, seeds = _items(body, 2)
        return cls(_decode_config(config), [_decode_state(s, blobs) for s in _list(seeds)])


@dataclass(frozen=True)
class Reload(Message):
    """Move to ``config``'s collectors."""

    KIND: ClassVar[str] = "reload"
    config: Config

    def encode(self, blobs: _Blobs) -> Any:
        return _encode_config(self.config)

    @classmethod
    def decode(cls, body: object, blobs: _Blobs) -> Reload:
        return cls(_decode_config(body))


@dataclass(frozen=True)
class Trigger(Message):
    """Run the named collectors now (every one without names)."""

    KIND: ClassVar[str] = "trigger"
    names: list[str]

    def encode(self, blobs: _Blobs) -> Any:
        return self.names

    @classmethod
    def decode(cls, body: object, blobs: _Blobs) -> Trigger:
        return cls([_str(n) for n in _list(body)])


@dataclass(frozen=True)
class Stop(Message):
    """Stop the collectors and exit."""

    KIND: ClassVar[str] = "stop"


@dataclass(frozen=True)
class Started(Message):
    """The collectors started (``error`` None), or why not; whether every loop runs."""

    KIND: ClassVar[str] = "started"
    error: str | None
    healthy: bool

    def encode(self, blobs: _Blobs) -> Any:
        return [self.error, self.healthy]

    @classmethod
    def decode(cls, body: object, blobs: _Blobs) -> Started:
        error, healthy = _items(body, 2)
        return cls(_optional(_str)(error), _bool(healthy))


@dataclass(frozen=True)
class Reloaded(Started):
    """The reload's outcome, as ``Started``."""

    KIND: ClassVar[str] = "reloaded"


@dataclass(frozen=True)
class RunData:
    """A collector's data after a run: its pieces (None for a piece the server holds, by
    digest), the families the views read (None: unchanged) and its landing-page rows."""

    pieces: Pieces
    kept: list[Metric] | None
    rows: list[SummaryRow] | None


@dataclass(frozen=True)
class Update(Message):
    """Every collector's fields, and the data of those whose run just ended."""

    KIND: ClassVar[str] = "update"
    fields: dict[str, dict[str, Any]]
    data: dict[str, RunData]

    def encode(self, blobs: _Blobs) -> Any:
        data = {
            name: [
                _encode_pieces(d.pieces, blobs),
                None if d.kept is None else [_encode_family(f) for f in d.kept],
                _encode_rows(d.rows),
            ]
            for name, d in self.data.items()
        }
        return [self.fields, data]

    @classmethod
    def decode(cls, body: object, blobs: _Blobs) -> Update:
        raw_fields, raw_data = _items(body, 2)
        checked = {name: _decode_fields(v) for name, v in _dict(raw_fields).items()}
        data = {}
        shared: dict[tuple[str, ...], tuple[str, ...]] = {}
        for name, v in _dict(raw_data).items():
            if name not in checked:
                raise ProtocolError(f"data of an unknown collector {name!r:.80}")
            pieces, kept, rows = _items(v, 3)
            data[name] = RunData(
                _decode_pieces(pieces, blobs),
                None if kept is None else [_decode_family(f, shared) for f in _list(kept)],
                _decode_rows(rows),
            )
        return cls(checked, data)


@dataclass(frozen=True)
class Running(Message):
    """Collector ``name`` started a run at ``since`` (monotonic)."""

    KIND: ClassVar[str] = "running"
    name: str
    since: float | None

    def encode(self, blobs: _Blobs) -> Any:
        return [self.name, self.since]

    @classmethod
    def decode(cls, body: object, blobs: _Blobs) -> Running:
        name, since = _items(body, 2)
        return cls(_str(name), _optional(_float)(since))


@dataclass(frozen=True)
class Beat(Message):
    """The worker is alive; whether every collector loop runs."""

    KIND: ClassVar[str] = "beat"
    healthy: bool

    def encode(self, blobs: _Blobs) -> Any:
        return self.healthy

    @classmethod
    def decode(cls, body: object, blobs: _Blobs) -> Beat:
        return cls(_bool(body))


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


@dataclass(frozen=True)
class Serve(Message):
    """To the HTTP process: serve ``addresses`` with ``web`` (TLS material in memory), on
    the listening sockets that travel with the message (SCM_RIGHTS, one per address)."""

    KIND: ClassVar[str] = "serve"
    addresses: list[str]
    web: WebConfig

    def encode(self, blobs: _Blobs) -> Any:
        return [self.addresses, _encode_web(self.web, blobs)]

    @classmethod
    def decode(cls, body: object, blobs: _Blobs) -> Serve:
        addresses, web = _items(body, 2)
        return cls([_str(a) for a in _list(addresses)], _decode_web(web, blobs))


@dataclass(frozen=True)
class Served(Message):
    """From the HTTP process, the one thing it says: a ``Serve`` took effect (``error`` None),
    or why not. Checked like any message, and no longer than ``MAX_ERROR``."""

    KIND: ClassVar[str] = "served"
    error: str | None

    def encode(self, blobs: _Blobs) -> Any:
        return self.error

    @classmethod
    def decode(cls, body: object, blobs: _Blobs) -> Served:
        error = _optional(_str)(body)
        if error is not None and len(error) > MAX_ERROR:
            raise ProtocolError(f"an error of {len(error)} characters")
        return cls(error)


@dataclass(frozen=True)
class Health(Message):
    """To the HTTP process: whether the worker answers (``/healthz``), and its restarts."""

    KIND: ClassVar[str] = "health"
    answering: bool
    restarts: int

    def encode(self, blobs: _Blobs) -> Any:
        return [self.answering, self.restarts]

    @classmethod
    def decode(cls, body: object, blobs: _Blobs) -> Health:
        answering, restarts = _items(body, 2)
        return cls(_bool(answering), _int(restarts))


@dataclass(frozen=True)
class Orphaned(Message):
    """To the HTTP process: the worker ended (``reason``); its mirrors stay, as stale."""

    KIND: ClassVar[str] = "orphaned"
    reason: str

    def encode(self, blobs: _Blobs) -> Any:
        return self.reason

    @classmethod
    def decode(cls, body: object, blobs: _Blobs) -> Orphaned:
        return cls(_str(body))


@dataclass(frozen=True)
class Pools(Message):
    """To the HTTP process: the pools' last recorded states (zmon/host/last_pools.py), which
    the status page shows while zpool does not answer; None when there are none."""

    KIND: ClassVar[str] = "pools"
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
# The HTTP process's messages are small: a frame past this is a fault, and its error text is
# cut to MAX_ERROR characters.
MAX_FRONT_FRAME = 64 * 1024
MAX_ERROR = 2000
# listening sockets passed with one Serve
MAX_FDS = 64


# -- the channel --------------------------------------------------------------------------


def encode(message: Message) -> bytes:
    """The frame of ``message``, length prefix included."""
    blobs = _Blobs()
    body = message.encode(blobs)
    header = json.dumps(
        [message.KIND, body, [len(b) for b in blobs.items]], separators=(",", ":")
    ).encode()
    length = _HEADER.size + len(header) + sum(len(b) for b in blobs.items)
    return b"".join([_LENGTH.pack(length), _HEADER.pack(len(header)), header, *blobs.items])


def decode(frame: bytes | bytearray, accepts: Iterable[type[Message]]) -> Message:
    """The message in ``frame`` (without its length prefix), if it is one of ``accepts``."""
    kinds = {cls.KIND: cls for cls in accepts}
    try:
        if len(frame) < _HEADER.size:
            raise ProtocolError("a frame shorter than its header length")
        (size,) = _HEADER.unpack_from(frame)
        end = _HEADER.size + size
        if end > len(frame):
            raise ProtocolError("a header longer than its frame")
        kind, body, sizes = _items(json.loads(bytes(frame[_HEADER.size : end])), 3)
        cls = kinds.get(kind) if type(kind) is str else None
        if cls is None:
            raise ProtocolError(f"unexpected message {kind!r:.40}")
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


class Channel:
    """One end of the socket pair: ``send`` from any thread, ``recv`` from one. It takes the
    messages of ``accepts``, in frames of at most ``max_frame`` bytes."""

    def __init__(
        self,
        sock: socket.socket,
        accepts: Iterable[type[Message]],
        max_frame: int = MAX_FRAME,
        takes_fds: bool = False,
    ) -> None:
        self.sock = sock
        self.accepts = tuple(accepts)
        self.max_frame = max_frame
        self.takes_fds = takes_fds
        self._fds: list[int] = []  # descriptors received and not yet taken
        self._send_lock = threading.Lock()

    def send(self, message: Message, fds: Iterable[int] = ()) -> None:
        """Send ``message``, with descriptors ``fds`` (SCM_RIGHTS) if there are any."""
        data = encode(message)
        fds = list(fds)
        try:
            with self._send_lock:
                if fds:
                    rights = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))]
                    sent = self.sock.sendmsg([data], rights)
                    data = data[sent:]
                self.sock.sendall(data)
        except OSError as exc:
            raise Closed(str(exc)) from exc

    def take_fds(self, count: int) -> list[int]:
        """The ``count`` descriptors that came with the message just received (ProtocolError,
        and every descriptor closed, if that is not how many came)."""
        fds, self._fds = self._fds, []
        if len(fds) != count:
            for fd in fds:
                os.close(fd)
            raise ProtocolError(f"{len(fds)} descriptors came with a message that takes {count}")
        return fds

    def recv(self) -> Message:
        """The next message: Closed when the other end is gone, ProtocolError when what
        came is not a message this end takes."""
        return self.recv_frame()[0]

    def recv_frame(self) -> tuple[Message, bytearray]:
        """The next message and its frame (without the length), to pass on unchanged."""
        (length,) = _LENGTH.unpack(self._exactly(_LENGTH.size))
        if length > self.max_frame:
            raise ProtocolError(f"a frame of {length} bytes, over the limit of {self.max_frame}")
        frame = self._exactly(length)
        return decode(frame, self.accepts), frame

    def send_frame(self, frame: bytes | bytearray) -> None:
        """Send a frame ``recv_frame`` returned (checked there), as it came."""
        try:
            with self._send_lock:
                self.sock.sendall(_LENGTH.pack(len(frame)))
                self.sock.sendall(frame)
        except OSError as exc:
            raise Closed(str(exc)) from exc

    def _exactly(self, size: int) -> bytearray:
        buf = bytearray(size)
        view = memoryview(buf)
        got = 0
        while got < size:
            try:
                if self.takes_fds:
                    n = self._recv_with_fds(view[got:])
                else:
                    n = self.sock.recv_into(view[got:])
            except OSError as exc:
                raise Closed(str(exc)) from exc
            if n == 0:
                raise Closed("the other end closed the channel")
            got += n
        return buf

    def _recv_with_fds(self, view: memoryview) -> int:
        space = socket.CMSG_SPACE(MAX_FDS * array.array("i").itemsize)
        n, ancillary, _flags, _addr = self.sock.recvmsg_into([view], space)
        for level, kind, data in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds = array.array("i")
                fds.frombytes(data[: len(data) - len(data) % fds.itemsize])
                self._fds.extend(fds)
        return int(n)

    def close(self) -> None:
        for fd in self._fds:
            os.close(fd)
        self._fds = []
        self.sock.close()


def state_fields(state: CollectorState) -> dict[str, Any]:
    """A collector's fields that its mirror in the server takes from each update."""
    return _encode_fields(state)


def summary_rows(
    state: CollectorState, kept: list[Metric] | None = None
) -> list[SummaryRow] | None:
    """The collector's landing-page rows from its kept families (or ``kept``), if it has a
    table."""
    if state.summary is None or not state.summary_title:
        return None
    return list(state.summary(state.kept if kept is None else kept))


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
