"""Which HTTP server should carry /metrics? The candidates, serving the same bytes, side by side.

Each candidate serves one fixed payload (zmon's real exposition of the benchmark procfs tree,
built by benchmarks/scrape.py) from a child process, configured as well as it allows: listen
backlog 4096, HTTP/1.1 keep-alive, a 10 s read timeout. For each it prints wrk's p50/p99/max,
errors and timeouts at 10 and 200 keep-alive clients, and the median scrape time alone and
next to 200 half-open connections (connected, half a request sent, never finished).

Run: ``python -m benchmarks.http_candidates [SECONDS_PER_RUN]`` (default 5). Needs ``wrk`` and
the optional candidates: ``pip install cheroot waitress``.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

from benchmarks.loadgen import idle_delay_ms, rss_mib, wait_port, wrk
from benchmarks.scrape import zmon_exposition
from tests.support.ports import free_port

WSGI_APP = """
body = open(sys.argv[1], "rb").read()
def app(environ, start_response):
    start_response("200 OK", [("Content-Type", "text/plain; version=0.0.4"),
                              ("Content-Length", str(len(body)))])
    return [body]
"""

CANDIDATES = {
    "stdlib ThreadingHTTPServer": """
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
body = open(sys.argv[1], "rb").read()
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # else headers and body wait 40 ms for a delayed ACK
    timeout = 10
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
class S(ThreadingHTTPServer):
    request_queue_size = 4096
S(("127.0.0.1", int(sys.argv[2])), H).serve_forever()
""",
    "cheroot 10 threads": """
import sys
from cheroot import wsgi
"""
    + WSGI_APP
    + """
wsgi.Server(("127.0.0.1", int(sys.argv[2])), app, numthreads=10, request_queue_size=4096,
            timeout=10).safe_start()
""",
    "waitress 4 threads (no TLS)": """
import sys
import waitress
"""
    + WSGI_APP
    + """
waitress.serve(app, host="127.0.0.1", port=int(sys.argv[2]), threads=4, backlog=4096,
               connection_limit=1000, channel_timeout=10, _quiet=True)
""",
    "uvicorn h11": """
import sys
import uvicorn
body = open(sys.argv[1], "rb").read()
async def app(scope, receive, send):
    await send({"type": "http.response.start", "status": 200, "headers": [
        (b"content-type", b"text/plain; version=0.0.4"),
        (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), http="h11", loop="asyncio",
            backlog=4096, log_level="warning", access_log=False, limit_concurrency=1024)
""",
    "uvicorn httptools (zmon's HTTPFrontend)": """
import sys, time, gzip
from zmon.exposition.formats import TEXT
from zmon.exposition.snapshot import Exposition, Snapshot
from zmon.web.server import HTTPFrontend, make_app
body = open(sys.argv[1], "rb").read()
snap = Snapshot()
snap._rendering.joined[TEXT] = Exposition(gzip.compress(body), time.time())
snap.generation = 1  # (served: a snapshot that rendered nothing answers 503)
f = HTTPFrontend(lambda web: make_app(snap, lambda: True, web=web))
f.serve([f"127.0.0.1:{sys.argv[2]}"])
while True:
    time.sleep(3600)
""",
}


def main(seconds: float = 5.0) -> None:
    with tempfile.TemporaryDirectory(prefix="zmon-bench-") as tmp:
        payload = Path(tmp) / "payload"
        payload.write_bytes(zmon_exposition(Path(tmp)))
        print(f"payload: {payload.stat().st_size} bytes; {seconds:g} s per wrk run\n")
        print(
            f"{'server':42} {'clients':>7} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} "
            f"{'req/s':>8} {'err':>5} {'t/o':>5}"
        )
        idle_rows = []
        for name, code in CANDIDATES.items():
            port = free_port()
            proc = subprocess.Popen(
                [sys.executable, "-c", textwrap.dedent(code), str(payload), str(port)],
                cwd=Path(__file__).resolve().parents[1],
                stderr=subprocess.PIPE,
            )
            try:
                wait_port(port)
                url = f"http://127.0.0.1:{port}/metrics"
                for clients in (10, 200):
                    r = wrk(url, clients, seconds)
                    print(
                        f"{name:42} {clients:7} {r.p50_ms:8.2f} {r.p99_ms:8.2f} "
                        f"{r.max_ms:8.1f} {r.rps:8.0f} {r.errors:5} {r.timeouts:5}"
                    )
                try:
                    base, loaded = idle_delay_ms(port, 200, half_request=True)
                except (OSError, RuntimeError) as exc:
                    base, loaded = float("nan"), float("nan")
                    print(f"{name}: idle probe failed: {exc}")
                idle_rows.append((name, base, loaded, rss_mib(proc.pid)[1]))
            except ImportError as exc:
                print(f"{name}: not installed ({exc})")
            finally:
                proc.kill()
                proc.wait()
        print("\nmedian scrape on a new connection, alone and beside 200 half-open connections")
        print(f"{'server':42} {'alone ms':>9} {'beside ms':>10} {'peak RSS MiB':>13}")
        for name, base, loaded, rss in idle_rows:
            print(f"{name:42} {base:9.2f} {loaded:10.2f} {rss:13.1f}")


if __name__ == "__main__":
    main(*(float(a) for a in sys.argv[1:2]))
