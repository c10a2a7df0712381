"""The demo host's UPS: a NUT upsd speaking the network protocol on a loopback port.

It serves one UPS whose variables start from a real ``upsc`` capture (an APC Back-UPS on
usbhid-ups) and follow the demo timeline, with an on-battery episode while the pool is
degraded and resilvering. zmon's ordinary NUT client reads it over TCP.
"""

from __future__ import annotations

import shlex
import socketserver
import threading
from collections.abc import Callable
from pathlib import Path

UPS_NAME = "demo-ups"
DATA = Path(__file__).parent / "data" / "upsc.txt"


def base_variables() -> dict[str, str]:
    out: dict[str, str] = {}
    for line in DATA.read_text().splitlines():
        key, sep, value = line.partition(": ")
        if sep:
            out[key.strip()] = value.strip()
    return out


def _quote(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


class _Handler(socketserver.StreamRequestHandler):
    server: DemoUpsd

    def handle(self) -> None:
        for raw in self.rfile:
            try:
                words = shlex.split(raw.decode("utf-8", "replace"))
            except ValueError:
                words = []
            reply = self.server.answer(words)
            self.wfile.write(reply.encode())
            if words[:1] == ["LOGOUT"]:
                return


class DemoUpsd(socketserver.ThreadingTCPServer):
    """Answers LIST UPS, LIST VAR, GET VAR, USERNAME/PASSWORD and LOGOUT."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, variables: Callable[[], dict[str, str]]) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self._variables = variables
        self._thread = threading.Thread(
            target=self.serve_forever, name="zmon-demo-upsd", daemon=True
        )

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.server_address[1]}"

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        if self._thread.is_alive():  # shutdown() waits for serve_forever, which may never have run
            self.shutdown()
        self.server_close()

    def answer(self, words: list[str]) -> str:
        if words[:2] == ["LIST", "UPS"]:
            return f"BEGIN LIST UPS\nUPS {UPS_NAME} {_quote('Demo host UPS')}\nEND LIST UPS\n"
        if words[:2] == ["LIST", "VAR"] and len(words) == 3:
            if words[2] != UPS_NAME:
                return "ERR UNKNOWN-UPS\n"
            rows = "".join(
                f"VAR {UPS_NAME} {k} {_quote(v)}\n" for k, v in sorted(self._variables().items())
            )
            return f"BEGIN LIST VAR {UPS_NAME}\n{rows}END LIST VAR {UPS_NAME}\n"
        if words[:2] == ["GET", "VAR"] and len(words) == 4:
            value = self._variables().get(words[3])
            if words[2] != UPS_NAME:
                return "ERR UNKNOWN-UPS\n"
            if value is None:
                return "ERR VAR-NOT-SUPPORTED\n"
            return f"VAR {UPS_NAME} {words[3]} {_quote(value)}\n"
        if words[:1] in (["USERNAME"], ["PASSWORD"]):
            return "OK\n"
        if words[:1] == ["LOGOUT"]:
            return "OK Goodbye\n"
        if words[:1] in (["VER"], ["NETVER"]):
            return "1.3\n"
        return "ERR UNKNOWN-COMMAND\n"
