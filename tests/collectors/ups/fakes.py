"""Small loopback TCP servers that speak (or abuse) the apcupsd NIS and NUT protocols."""

from __future__ import annotations

import socket
import struct
import threading
import time
from collections.abc import Callable


class LoopbackServer:
    """Accepts on 127.0.0.1 in a thread and hands every connection to ``handle``."""

    def __init__(self, handle: Callable[[socket.socket], None]) -> None:
        self.handle = handle
        self.connections = 0
        self._stop = threading.Event()
        self._sock = socket.socket()
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(16)
        self._sock.settimeout(0.1)
        self.port = self._sock.getsockname()[1]
        self._threads: list[threading.Thread] = []
        self._open: list[socket.socket] = []
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.connections += 1
            self._open.append(conn)
            thread = threading.Thread(target=self._run, args=(conn,), daemon=True)
            self._threads.append(thread)
            thread.start()

    def _run(self, conn: socket.socket) -> None:
        try:
            conn.settimeout(10)
            self.handle(conn)
        except OSError:
            pass
        finally:
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._sock.close()
        for conn in self._open:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            conn.close()
        self._thread.join(timeout=2)
        for thread in self._threads:
            thread.join(timeout=2)


def read_frame(conn: socket.socket) -> bytes:
    head = _exactly(conn, 2)
    (length,) = struct.unpack(">H", head)
    return _exactly(conn, length)


def _exactly(conn: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            raise ConnectionError("client closed")
        data += chunk
    return data


def frame(payload: bytes) -> bytes:
    return struct.pack(">H", len(payload)) + payload


def nis_status_handler(lines: Callable[[], list[str]]) -> Callable[[socket.socket], None]:
    """A NIS server: answers ``status`` with one frame per line, then the empty frame."""

    def handle(conn: socket.socket) -> None:
        while True:
            try:
                command = read_frame(conn)
            except ConnectionError:
                return
            if command == b"status":
                conn.sendall(b"".join(frame(line.encode() + b"\n") for line in lines()))
            conn.sendall(frame(b""))

    return handle


def silent_handler(conn: socket.socket) -> None:
    """Accepts and never answers (until the client gives up)."""
    while conn.recv(1024):
        pass


def trickle_handler(payload: bytes, delay: float) -> Callable[[socket.socket], None]:
    """Answers one byte every ``delay`` seconds: each read succeeds, the whole never ends."""

    def handle(conn: socket.socket) -> None:
        conn.recv(1024)
        for byte in payload:
            time.sleep(delay)
            conn.sendall(bytes([byte]))

    return handle


def scripted_nut_handler(replies: dict[str, str]) -> Callable[[socket.socket], None]:
    """A fake upsd: each command line gets the scripted reply (or ``ERR UNKNOWN-COMMAND``)."""

    def handle(conn: socket.socket) -> None:
        buffer = b""
        while True:
            chunk = conn.recv(4096)
            if not chunk:
                return
            buffer += chunk
            while b"\n" in buffer:
                line, _, buffer = buffer.partition(b"\n")
                command = line.decode()
                if command == "LOGOUT":
                    conn.sendall(b"OK Goodbye\n")
                    return
                reply = replies.get(command, "ERR UNKNOWN-COMMAND\n")
                if reply == "<close>":
                    return
                conn.sendall(reply.encode())

    return handle
