"""uvicorn as zmon runs it: a deadline for request headers, a Date header without a timer,
and a server loop that sleeps until asked to stop.

uvicorn's public API (``Config``, ``Server.serve``) has no hook for a deadline on request
headers, and its server loop wakes ten times a second; so these subclass its HTTP protocol,
server state and server, and pyproject.toml pins uvicorn to the range they are tested with.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from email.utils import formatdate

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.server import ServerState


class DeadlineProtocol(HttpToolsProtocol):
    """uvicorn's HTTP/1.1 protocol, plus a deadline for each request's headers.

    uvicorn closes a keep-alive connection that stays idle after a response, but gives a new
    connection, or one that sent part of a request, all the time it wants. Here a request's
    headers must be complete within ``read_timeout`` seconds of the connection opening or of
    the request's first byte; otherwise the connection is closed.
    """

    read_timeout = 10.0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._header_deadline: asyncio.TimerHandle | None = None
        super().connection_made(transport)
        self._arm_deadline()

    def data_received(self, data: bytes) -> None:
        if isinstance(self.server_state, DatedState):
            self.server_state.refresh_date()
        if self._header_deadline is None and (self.cycle is None or self.cycle.response_complete):
            self._arm_deadline()
        super().data_received(data)

    def on_headers_complete(self) -> None:
        self._disarm_deadline()
        super().on_headers_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_deadline()
        super().connection_lost(exc)

    def _arm_deadline(self) -> None:
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

    def refresh_date(self) -> None:
        now = time.time()
        if int(now) != self._second:
            self._second = int(now)
            self.default_headers = [(b"date", formatdate(now, usegmt=True).encode()), *self._extra]


class QuietServer(uvicorn.Server):
    """uvicorn's server without its timer: nothing wakes an idle front door.

    uvicorn's main loop sleeps 0.1 s between checks of ``should_exit`` and refreshes the Date
    header every tenth time: 0.25-0.3 % of a core with no client at all (measured; more than
    the collectors of a small host), 0.05 % at one tick a second. Here each request refreshes
    the header (``DatedState``) and ``request_exit`` wakes the loop, which otherwise sleeps.
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
