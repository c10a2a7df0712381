"""Listening sockets for ``--web.listen-address`` (repeatable), bound before they are used.

A reload binds the addresses it adds first and keeps the sockets of addresses it keeps, so a
reload to a port that is taken fails before anything changes, and a kept address never stops
accepting connections.
"""

from __future__ import annotations

import socket
from collections.abc import Iterable

from zmon.collecting.config import split_listen_address

# The kernel caps this at net.core.somaxconn (4096 on current Linux, kern.ipc.soacceptqueue on
# FreeBSD); Go's net package, and so node_exporter, asks for the same. The stdlib default of 5
# drops SYNs as soon as a few scrapers connect at once, and clients then wait 1 s, 3 s, 9 s.
BACKLOG = 4096


class ListenError(OSError):
    """An address that cannot be listened on; ``address`` is as the user wrote it."""

    def __init__(self, address: str, exc: OSError) -> None:
        super().__init__(exc.errno, f"cannot listen on {address}: {exc.strerror or exc}")
        self.address = address


def bind(address: str, backlog: int = BACKLOG) -> socket.socket:
    """A listening, non-blocking socket for ``HOST:PORT``; ``:PORT`` is every IPv4 and IPv6
    address (one dual-stack socket, or IPv4 alone where the host has no IPv6)."""
    try:
        host, port = split_listen_address(address)
    except ValueError as exc:
        raise ListenError(address, OSError(0, str(exc))) from None
    try:
        if host == "":
            sock = _bind_any(port)
        else:
            info = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[
                0
            ]
            sock = _bind_one(info[0], info[4])
        sock.listen(backlog)
    except OSError as exc:
        raise ListenError(address, exc) from None
    sock.setblocking(False)
    return sock


def _bind_any(port: int) -> socket.socket:
    if socket.has_ipv6:
        try:
            sock = socket.socket(socket.AF_INET6, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        except OSError:
            pass  # no IPv6 in this kernel or jail
        else:
            try:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
                _reuse(sock)
                sock.bind(("::", port))
                return sock
            except OSError:
                sock.close()
                raise
    return _bind_one(socket.AF_INET, ("0.0.0.0", port))


# a socket address as getaddrinfo gives it: IPv4, IPv6, or (rarely) a family's raw bytes
_SockAddr = tuple[str, int] | tuple[str, int, int, int] | tuple[int, bytes]


def _bind_one(family: int, addr: _SockAddr) -> socket.socket:
    # IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on sockets that say they are TCP, and
    # without it a response's headers and body wait 40 ms for the client's delayed ACK.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        _reuse(sock)
        sock.bind(addr)
    except OSError:
        sock.close()
        raise
    return sock


def _reuse(sock: socket.socket) -> None:
    # Lets a restarted zmon bind while old connections sit in TIME_WAIT. It does not let two
    # listeners share a port (that would need SO_REUSEPORT, which zmon never sets).
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)


class Listeners:
    """The sockets zmon listens on, keyed by the address as configured."""

    def __init__(self) -> None:
        self.sockets: dict[str, socket.socket] = {}

    def prepare(self, addresses: Iterable[str]) -> dict[str, socket.socket]:
        """Sockets for ``addresses``: the ones already open, plus new ones bound now. If one
        address fails, the new ones are closed again and ListenError is raised; nothing the
        running server uses is touched."""
        out: dict[str, socket.socket] = {}
        fresh: list[socket.socket] = []
        try:
            for addr in addresses:
                if addr in out:
                    continue
                if addr in self.sockets:
                    out[addr] = self.sockets[addr]
                else:
                    sock = bind(addr)
                    fresh.append(sock)
                    out[addr] = sock
        except OSError:
            for sock in fresh:
                sock.close()
            raise
        return out

    def commit(self, sockets: dict[str, socket.socket]) -> None:
        """Adopt ``sockets`` (from prepare) and close those no longer configured."""
        for addr, sock in self.sockets.items():
            if sockets.get(addr) is not sock:
                sock.close()
        self.sockets = dict(sockets)

    def discard(self, sockets: dict[str, socket.socket]) -> None:
        """Close the sockets prepare bound that will not be used after all."""
        for addr, sock in sockets.items():
            if self.sockets.get(addr) is not sock:
                sock.close()

    def close(self) -> None:
        self.commit({})

    def ports(self) -> dict[str, int]:
        return {addr: int(s.getsockname()[1]) for addr, s in self.sockets.items()}


class Listening:
    """``ports()`` and ``port`` of a server that listens through ``self._listeners``."""

    _listeners: Listeners

    def ports(self) -> dict[str, int]:
        """The port each configured address is bound to (useful with port 0)."""
        return self._listeners.ports()

    @property
    def port(self) -> int:
        """The port of the first address."""
        return next(iter(self.ports().values()))
