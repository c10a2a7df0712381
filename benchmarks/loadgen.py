"""Shared by the HTTP benchmarks: wrk runs, the idle-connection probe and RSS.

wrk (Debian package ``wrk``) is the load generator: N keep-alive connections over T threads,
each sending its next request as soon as the previous answer arrives (closed loop), so the
latency at high N shows how the server queues. ``--timeout 10s`` is what counts as a timeout.
"""

from __future__ import annotations

import http.client
import re
import shutil
import socket
import ssl
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass

_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0}


@dataclass
class Run:
    clients: int
    p50_ms: float
    p99_ms: float
    max_ms: float
    requests: int
    errors: int  # connect/read/write errors and non-2xx answers
    timeouts: int
    rps: float


def wait_port(port: int, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.5).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port}")


def _ms(text: str) -> float:
    m = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text)
    if not m:
        raise ValueError(f"cannot read wrk duration {text!r}")
    return float(m.group(1)) * _UNITS[m.group(2)]


def wrk(url: str, clients: int, seconds: float, headers: dict[str, str] | None = None) -> Run:
    """One wrk run with ``clients`` keep-alive connections."""
    exe = shutil.which("wrk")
    if not exe:
        raise SystemExit("wrk is not installed (apt-get install wrk)")
    threads = max(1, min(clients, 2))
    cmd = [
        exe,
        "-t",
        str(threads),
        "-c",
        str(clients),
        "-d",
        f"{seconds:g}s",
        "--latency",
        "--timeout",
        "10s",
    ]
    for k, v in (headers or {}).items():
        cmd += ["-H", f"{k}: {v}"]
    out = subprocess.run(
        [*cmd, url], capture_output=True, text=True, timeout=seconds + 60, check=True
    ).stdout
    num = r"([\d.]+(?:us|ms|s|m))"
    lat = re.search(rf"Latency\s+{num}\s+{num}\s+{num}", out)
    p50 = re.search(rf"50%\s+{num}", out)
    p99 = re.search(rf"99%\s+{num}", out)
    total = re.search(r"(\d+) requests in", out)
    rps = re.search(r"Requests/sec:\s+([\d.]+)", out)
    if total is None or rps is None:
        raise RuntimeError(f"cannot read wrk output:\n{out}")
    nan = float("nan")
    if not (lat and p50 and p99):
        print(f"wrk measured no latency (no request completed?):\n{out}", file=sys.stderr)
    sock = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errors = (sum(int(sock.group(i)) for i in (1, 2, 3)) if sock else 0) + (
        int(non2xx.group(1)) if non2xx else 0
    )
    return Run(
        clients,
        _ms(p50.group(1)) if p50 else nan,
        _ms(p99.group(1)) if p99 else nan,
        _ms(lat.group(3)) if lat else nan,
        int(total.group(1)),
        errors,
        int(sock.group(4)) if sock else 0,
        float(rps.group(1)),
    )


def scrape_latency_ms(
    port: int, samples: int = 50, tls: ssl.SSLContext | None = None, path: str = "/metrics"
) -> float:
    """Median time of one scrape on a fresh connection (what a Prometheus scrape after a
    reconnect costs), in milliseconds."""
    times = []
    for _ in range(samples):
        t0 = time.perf_counter()
        conn: http.client.HTTPConnection
        if tls is None:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
        else:
            conn = http.client.HTTPSConnection("127.0.0.1", port, timeout=15, context=tls)
        conn.request("GET", path)
        resp = conn.getresponse()
        resp.read()
        conn.close()
        if resp.status != 200:
            raise RuntimeError(f"scrape answered {resp.status}")
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def idle_delay_ms(port: int, idle: int = 200, half_request: bool = False) -> tuple[float, float]:
    """(median scrape ms with no other client, with ``idle`` connections open that send
    nothing - or half a request header with ``half_request``)."""
    base = scrape_latency_ms(port)
    conns = []
    try:
        for _ in range(idle):
            s = socket.create_connection(("127.0.0.1", port), 5)
            if half_request:
                s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
            conns.append(s)
        time.sleep(0.2)
        loaded = scrape_latency_ms(port)
    finally:
        for s in conns:
            s.close()
    return base, loaded


def rss_mib(pid: int) -> tuple[float, float]:
    """(current RSS, peak RSS) of a process in MiB."""
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            fields[k] = v.strip()
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024
