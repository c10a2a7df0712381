"""Shared socket plumbing: endpoints, deadlines, bounded reads, reconnect backoff."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from dataclasses import dataclass

from zmon.base.backoff import Backoff

Clock = Callable[[], float]
_QUICKACK: int | None = getattr(socket, "TCP_QUICKACK", None)


class UpsProtocolError(Exception):
    """The daemon answered something the protocol does not allow."""


@dataclass(frozen=True)
class Endpoint:
    """A daemon address. ``str()`` gives ``HOST:PORT`` (``[v6]:PORT``), the ``server`` label."""

    host: str
    port: int

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"


def parse_endpoint(text: str, default_port: int) -> Endpoint:
    """``HOST``, ``HOST:PORT``, ``[V6ADDR]`` or ``[V6ADDR]:PORT``; raises ValueError."""
    text = text.strip()
    if not text:
        raise ValueError("empty server address")
    if text.startswith("["):
        host, sep, rest = text[1:].partition("]")
        if not sep or not host:
            raise ValueError(f"bad server address {text!r}: missing ']'")
        port_text = rest[1:] if rest.startswith(":") else None
        if rest and port_text is None:
            raise ValueError(f"bad server address {text!r}")
    elif text.count(":") == 1:
        host, port_text = text.split(":")
    else:
        host, port_text = text, None  # a bare IPv6 address has several colons and no port
    if not host:
        raise ValueError(f"bad server address {text!r}: no host")
    port = default_port
    if port_text is not None:
        if not port_text.isdigit() or not 0 < int(port_text) < 65536:
            raise ValueError(f"bad port in server address {text!r}")
        port = int(port_text)
    return Endpoint(host, port)


class Deadline:
    """A point in time that a whole query must finish by."""

    def __init__(self, seconds: float, clock: Clock = time.monotonic) -> None:
        self._clock = clock
        self._end = clock() + seconds

    def remaining(self) -> float:
        """Seconds left; raises TimeoutError once the deadline has passed."""
        left = self._end - self._clock()
        if left <= 0:
            raise TimeoutError("UPS daemon query deadline exceeded")
        return left


def open_connection(
    endpoint: Endpoint, connect_timeout: float, deadline: Deadline
) -> socket.socket:
    """A TCP connection, with the connect bounded by both the connect timeout and the deadline."""
    timeout = min(connect_timeout, deadline.remaining())
    sock = socket.create_connection((endpoint.host, endpoint.port), timeout=timeout)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def recv_some(sock: socket.socket, deadline: Deadline, size: int = 65536) -> bytes:
    """One ``recv`` bounded by the deadline; raises ConnectionError when the peer closed."""
    sock.settimeout(deadline.remaining())
    data = sock.recv(size)
    if not data:
        raise ConnectionError("connection closed by the UPS daemon")
    if _QUICKACK is not None:
        # upsd writes a list line by line; acknowledging at once keeps its Nagle timer from
        # stalling each reply by the 40 ms delayed-ACK interval.
        sock.setsockopt(socket.IPPROTO_TCP, _QUICKACK, 1)
    return data


def send_all(sock: socket.socket, data: bytes, deadline: Deadline) -> None:
    sock.settimeout(deadline.remaining())
    sock.sendall(data)


class ReconnectBackoff(Backoff):
    """When the UPS server may be touched again: the backoff's delay after each failure, and
    at once after a success."""

    def __init__(
        self, initial: float = 1.0, maximum: float = 60.0, clock: Clock = time.monotonic
    ) -> None:
        super().__init__(initial, maximum)
        self._clock = clock
        self._next_attempt = 0.0

    def ready(self) -> bool:
        """True when a connection attempt is allowed now."""
        return self._clock() >= self._next_attempt

    def failed(self) -> float:
        delay = super().failed()
        self._next_attempt = self._clock() + delay
        return delay

    def succeeded(self) -> None:
        self.reset()
        self._next_attempt = 0.0

    def wait_left(self) -> float:
        """Seconds until the next attempt is allowed (0 when ready)."""
        return max(0.0, self._next_attempt - self._clock())
