"""uvicorn as zmon runs it: a deadline and size limits for request headers, idle connections
closed first when connections run short, a Date header without a timer, and a server loop that
sleeps until asked to stop.

uvicorn's public API (``Config``, ``Server.serve``) has no hook for any of these, and its
server loop wakes ten times a second; so these subclass its HTTP protocol, server state and
server, and pyproject.toml pins uvicorn to the range they are tested with.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from email.utils import formatdate
from typing import TYPE_CHECKING

import uvicorn
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol
from uvicorn.server import ServerState

if TYPE_CHECKING:
    from zmon.web.webapp import DoorCounters

# Request headers: what one header line, all of a request's headers (with its request line),
# and the number of headers may come to; past any of them the answer is 431 and the
# connection is closed. (Go's net/http allows 1 MiB in all; node_exporter's scrapers send
# well under 1 KiB.)
MAX_HEADER_LINE = 8 * 1024
MAX_HEADER_BYTES = 64 * 1024
MAX_HEADERS = 100


class _TooLarge(Exception):
    """Raised in a parser callback to stop parsing a request whose headers are too large."""


class DeadlineProtocol(HttpToolsProtocol):
    """uvicorn's HTTP/1.1 protocol, plus a deadline and size limits for each request's
    headers, and room made for a request by closing idle connections first.

    uvicorn closes a keep-alive connection that stays idle after a response, but gives a new
    connection, or one that sent part of a request, all the time it wants. Here a request's
    headers must be complete within ``read_timeout`` seconds of the connection opening or of
    the request's first byte; otherwise the connection is closed. Headers past
    ``MAX_HEADER_LINE``, ``MAX_HEADER_BYTES`` or ``MAX_HEADERS`` are answered 431.

    Past ``max_connections`` open connections uvicorn answers 503. Before it does, the
    connections that wait for a request (kept alive after a response, or not used yet) are
    closed, the one idle longest first, so that idle clients cannot hold every slot; each
    close is counted in ``counters``.
    """

    read_timeout = 10.0
    max_connections = 1024
    counters: DoorCounters | None = None

    # uvicorn's own connection_made narrows asyncio.Protocol's BaseTransport the same way
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._header_deadline: asyncio.TimerHandle | None = None
        self._header_bytes = 0  # received while the current request's headers are incomplete
        self._header_count = 0
        self._header_size = 0
        self._refusal: tuple[int, str] | None = None
        super().connection_made(transport)
        self._arm_deadline()
        self._idle()  # until its first request
        self._make_room()

    def data_received(self, data: bytes) -> None:
        if isinstance(self.server_state, DatedState):
            self.server_state.refresh_date()
            self.server_state.idle.pop(self, None)
        if self._header_deadline is None and (self.cycle is None or self.cycle.response_complete):
            self._arm_deadline()
        if self._header_deadline is not None:
            self._header_bytes += len(data)
        super().data_received(data)
        if (
            self._header_deadline is not None  # the headers are not complete yet
            and self._header_bytes > MAX_HEADER_BYTES
            and not self.transport.is_closing()
        ):
            self._refuse(431, "request headers too large")

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._header_count = 0
        self._header_size = 0

    def on_header(self, name: bytes, value: bytes) -> None:
        line = len(name) + len(value) + 4  # name: value CRLF
        self._header_count += 1
        self._header_size += line
        if line > MAX_HEADER_LINE or self._header_size > MAX_HEADER_BYTES:
            self._refusal = (431, "request header too large")
        elif self._header_count > MAX_HEADERS:
            self._refusal = (431, "too many request headers")
        if self._refusal is not None:
            raise _TooLarge  # parsing stops; send_400_response answers with the refusal
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._disarm_deadline()
        self._make_room()
        if self.counters is not None and self.limit_concurrency is not None:
            if len(self.connections) >= self.limit_concurrency:  # uvicorn answers 503
                self.counters.refused["connection_limit"] += 1
        super().on_headers_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and self.cycle.response_complete:
            self._idle()  # kept alive, waiting for the next request

    def send_400_response(self, msg: str) -> None:
        if self._refusal is not None:
            self._refuse(*self._refusal)
        else:
            super().send_400_response(msg)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_deadline()
        if isinstance(self.server_state, DatedState):
            self.server_state.idle.pop(self, None)
        super().connection_lost(exc)

    def _refuse(self, status: int, message: str) -> None:
        """Answer ``status`` with ``message`` and close the connection."""
        if self.counters is not None and status == 431:
            self.counters.refused["headers_too_large"] += 1
        body = message.encode("ascii") + b"\n"
        content = [STATUS_LINE[status]]
        for name, value in self.server_state.default_headers:
            content.extend([name, b": ", value, b"\r\n"])
        content.extend(
            [
                b"content-type: text/plain; charset=utf-8\r\n",
                b"content-length: " + str(len(body)).encode("ascii") + b"\r\n",
                b"connection: close\r\n",
                b"\r\n",
                body,
            ]
        )
        self.transport.write(b"".join(content))
        self.transport.close()

    def _idle(self) -> None:
        """From now this connection waits for a request: the newest idle one."""
        if isinstance(self.server_state, DatedState):
            idle = self.server_state.idle
            idle.pop(self, None)
            idle[self] = None

    def _make_room(self) -> None:
        """Close idle connections, the one idle longest first, while more than
        ``max_connections`` are open (the connections ``self.connections`` counts)."""
        if not isinstance(self.server_state, DatedState):
            return
        idle = self.server_state.idle
        while len(self.connections) > self.max_connections and idle:
            oldest = next(iter(idle))
            if oldest is self:
                break  # (the newest connection itself: only when it is the only idle one)
            del idle[oldest]
            self.connections.discard(oldest)  # closing: it no longer takes a slot
            oldest._close_idle()

    def _close_idle(self) -> None:
        self._disarm_deadline()
        self._unset_keepalive_if_required()
        if not self.transport.is_closing():
            self.transport.close()
        if self.counters is not None:
            self.counters.idle_closed += 1

    def _arm_deadline(self) -> None:
        self._header_bytes = 0
        self._header_deadline = self.loop.call_later(self.read_timeout, self._deadline_passed)

    def _disarm_deadline(self) -> None:
        if self._header_deadline is not None:
            self._header_deadline.cancel()
            self._header_deadline = None

    def _deadline_passed(self) -> None:
        self._header_deadline = None
        if not self.transport.is_closing():
            self.transport.close()


class DatedState(ServerState):
    """uvicorn's state shared by a server's connections, whose Date header is brought up to
    date by the requests themselves (``refresh_date``), so that no timer has to."""

    def __init__(self, extra_headers: list[tuple[bytes, bytes]]) -> None:
        super().__init__()
        self._extra = extra_headers
        self._second = -1
        # connections waiting for a request, the one idle longest first (DeadlineProtocol)
        self.idle: dict[DeadlineProtocol, None] = {}

    def refresh_date(self) -> None:
        now = time.time()
        if int(now) != self._second:
            self._second = int(now)
            self.default_headers = [(b"date", formatdate(now, usegmt=True).encode()), *self._extra]


class QuietServer(uvicorn.Server):
    """uvicorn's server without its timer: nothing wakes an idle front door.

    uvicorn's main loop sleeps 0.1 s between checks of ``should_exit`` and refreshes the Date
    header every tenth time: ten wake-ups a second with no client at all, which on a small
    host cost more CPU than its collectors. Here each request refreshes the header
    (``DatedState``) and ``request_exit`` wakes the loop, which otherwise sleeps.
    """

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.server_state = DatedState(config.encoded_headers)
        self._wake: asyncio.Event | None = None  # made in the serving loop
        self._wake_loop: asyncio.AbstractEventLoop | None = None

    async def main_loop(self) -> None:
        self._wake = asyncio.Event()
        self._wake_loop = asyncio.get_running_loop()
        while not self.should_exit:
            await self._wake.wait()

    def request_exit(self) -> None:
        """Ask the server to stop, from any thread."""
        self.should_exit = True  # seen by the loop if it has not started waiting yet
        loop, wake = self._wake_loop, self._wake
        if loop is not None and wake is not None:
            with contextlib.suppress(RuntimeError):  # the loop is closed: nothing to wake
                loop.call_soon_threadsafe(wake.set)
