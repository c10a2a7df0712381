"""A client for the apcupsd Network Information Server (NIS, TCP 3551).

Both directions use frames of a 2-byte big-endian length and that many bytes. The client
sends ``status``; the server answers one frame per ``KEY : value`` line and ends with a
zero-length frame.
"""

from __future__ import annotations

import socket
import struct

from zmon.host.ups.net import (
    Deadline,
    Endpoint,
    UpsProtocolError,
    open_connection,
    recv_some,
    send_all,
)

NIS_PORT = 3551
MAX_FRAMES = 2000


def encode_frame(payload: bytes) -> bytes:
    """One NIS frame."""
    if len(payload) > 0xFFFF:
        raise ValueError("NIS frame too long")
    return struct.pack(">H", len(payload)) + payload


def fetch_status(endpoint: Endpoint, *, connect_timeout: float, deadline: Deadline) -> str:
    """The ``status`` text of one apcupsd, the same lines ``apcaccess`` prints."""
    sock = open_connection(endpoint, connect_timeout, deadline)
    try:
        send_all(sock, encode_frame(b"status"), deadline)
        reader = _FrameReader(sock, deadline)
        lines: list[str] = []
        for _ in range(MAX_FRAMES):
            frame = reader.frame()
            if not frame:
                return "".join(lines)
            text = frame.decode("utf-8", errors="replace")
            lines.append(text if text.endswith("\n") else text + "\n")
        raise UpsProtocolError(f"apcupsd sent more than {MAX_FRAMES} status lines")
    finally:
        sock.close()


class _FrameReader:
    def __init__(self, sock: socket.socket, deadline: Deadline) -> None:
        self._sock = sock
        self._deadline = deadline
        self._buffer = b""

    def _exactly(self, size: int) -> bytes:
        while len(self._buffer) < size:
            self._buffer += recv_some(self._sock, self._deadline)
        data, self._buffer = self._buffer[:size], self._buffer[size:]
        return data

    def frame(self) -> bytes:
        (length,) = struct.unpack(">H", self._exactly(2))
        return self._exactly(length) if length else b""
