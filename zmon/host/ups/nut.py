"""A small client for the NUT upsd protocol (TCP 3493): login, ``LIST UPS``, ``LIST VAR``.

It keeps one connection open between queries and reconnects when that connection turns
out to be dead. Every read is bounded by the caller's deadline, so a server that stops
answering, or answers one byte at a time, cannot hold a query past it.
"""

from __future__ import annotations

import socket

from zmon.host.ups.net import (
    Deadline,
    Endpoint,
    UpsProtocolError,
    open_connection,
    recv_some,
    send_all,
)
from zmon.parsers.ups.nut import quote_argument, split_protocol_line

NUT_PORT = 3493
MAX_LINE = 64 * 1024
MAX_LIST_ITEMS = 20000


class NutError(Exception):
    """upsd answered ``ERR <code>`` (ACCESS-DENIED, UNKNOWN-UPS, DATA-STALE, ...)."""

    def __init__(self, code: str, command: str) -> None:
        self.code = code
        super().__init__(f"upsd answered ERR {code} to {command}")


class NutClient:
    """One upsd server; not thread-safe (the caller holds a lock per server)."""

    def __init__(
        self,
        endpoint: Endpoint,
        *,
        username: str | None = None,
        password: str | None = None,
        connect_timeout: float = 2.0,
    ) -> None:
        self.endpoint = endpoint
        self.username = username or None
        self.password = password or None
        self.connect_timeout = connect_timeout
        self._sock: socket.socket | None = None
        self._buffer = b""

    @property
    def connected(self) -> bool:
        return self._sock is not None

    def connect(self, deadline: Deadline) -> None:
        """Open a fresh connection and log in when credentials are set."""
        self.close()
        self._sock = open_connection(self.endpoint, self.connect_timeout, deadline)
        self._buffer = b""
        try:
            if self.username:
                self._simple(f"USERNAME {quote_argument(self.username)}", deadline)
            if self.password:
                self._simple(f"PASSWORD {quote_argument(self.password)}", deadline)
        except BaseException:
            self.close()
            raise

    def list_ups(self, deadline: Deadline) -> dict[str, str]:
        """``{ups name: description}`` for every UPS the server has."""
        items = self._list(["UPS"], deadline)
        return {words[0]: (words[1] if len(words) > 1 else "") for words in items if words}

    def list_var(self, ups: str, deadline: Deadline) -> dict[str, str]:
        """All variables of one UPS (``LIST VAR``)."""
        items = self._list(["VAR", ups], deadline)
        return {words[0]: (words[1] if len(words) > 1 else "") for words in items if words}

    def close(self) -> None:
        """Say LOGOUT (best effort, never waiting) and drop the connection."""
        sock, self._sock = self._sock, None
        self._buffer = b""
        if sock is None:
            return
        try:
            sock.setblocking(False)
            sock.send(b"LOGOUT\n")
        except OSError:
            pass
        finally:
            sock.close()

    # ---- protocol ----

    def _simple(self, command: str, deadline: Deadline) -> str:
        """Send a command that answers one ``OK ...`` line."""
        self._send(command, deadline)
        line = self._read_line(deadline)
        if line.startswith("ERR "):
            raise NutError(line[4:].split(" ", 1)[0], command.split(" ", 1)[0])
        if not line.startswith("OK"):
            raise UpsProtocolError(f"unexpected answer to {command.split(' ', 1)[0]}: {line!r}")
        return line

    def _list(self, query: list[str], deadline: Deadline) -> list[list[str]]:
        """Run ``LIST <query>``; returns the words after the echoed query on each item line."""
        args = " ".join(quote_argument(word) for word in query)
        self._send(f"LIST {args}", deadline)
        first = self._read_line(deadline)
        if first.startswith("ERR "):
            raise NutError(first[4:].split(" ", 1)[0], f"LIST {query[0]}")
        if self._words(first) != ["BEGIN", "LIST", *query]:
            raise UpsProtocolError(f"unexpected answer to LIST {query[0]}: {first!r}")
        # Item lines echo the query type and its arguments: "VAR ups name value".
        prefix = [query[0], *query[1:]]
        items: list[list[str]] = []
        while True:
            line = self._read_line(deadline)
            words = self._words(line)
            if words == ["END", "LIST", *query]:
                return items
            if words[: len(prefix)] != prefix:
                raise UpsProtocolError(f"unexpected line in LIST {query[0]}: {line!r}")
            items.append(words[len(prefix) :])
            if len(items) > MAX_LIST_ITEMS:
                raise UpsProtocolError(f"LIST {query[0]} has more than {MAX_LIST_ITEMS} items")

    @staticmethod
    def _words(line: str) -> list[str]:
        try:
            return split_protocol_line(line)
        except ValueError as err:
            raise UpsProtocolError(str(err)) from None

    def _send(self, command: str, deadline: Deadline) -> None:
        if self._sock is None:
            raise ConnectionError("not connected")
        send_all(self._sock, command.encode("utf-8") + b"\n", deadline)

    def _read_line(self, deadline: Deadline) -> str:
        if self._sock is None:
            raise ConnectionError("not connected")
        while b"\n" not in self._buffer:
            if len(self._buffer) > MAX_LINE:
                raise UpsProtocolError(f"upsd sent a line longer than {MAX_LINE} bytes")
            self._buffer += recv_some(self._sock, deadline)
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.rstrip(b"\r").decode("utf-8", errors="replace")
