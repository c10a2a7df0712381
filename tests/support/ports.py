"""Free loopback ports for the servers that tests and benchmarks start."""

from __future__ import annotations

import socket


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port on ``host`` that nothing listens on now: the kernel's pick for port 0.

    Another process may take it before the caller binds it, so callers hand it straight to the
    server they start."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])
