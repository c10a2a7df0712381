"""Scrape latency under concurrent load: zmon against node_exporter, on the same fake procfs.

node_exporter (Debian's prometheus-node-exporter, zfs collector only) and zmon (kstat
collectors only: arc, zfs_kstats, txg) read one procfs tree built from the lab's OpenZFS 2.3.2
capture. wrk drives 1, 10, 50 and 200 keep-alive clients at each for a fixed time; the table
gives p50/p99/max latency, errors and timeouts, each zmon figure's ratio to node_exporter's,
and both servers' RSS. Then the same for zmon over TLS, and the median time of a normal scrape
alone and next to 200 idle half-open connections.

Targets (issue "the front door"): 0 errors and 0 timeouts at 200 clients; zmon p99 <= node
exporter's at every concurrency; 200 idle half-open connections delay a scrape by <= 10 ms.

Run: ``python -m benchmarks.scrape [SECONDS_PER_RUN]`` (default 10). Needs wrk, openssl and
prometheus-node-exporter. Results: benchmarks/README.md.
"""

from __future__ import annotations

import os
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.loadgen import (
    Run,
    idle_delay_ms,
    rss_mib,
    wait_port,
    wrk,
)
from tests.support.ports import free_port

ROOT = Path(__file__).resolve().parents[1]

CAPTURE = ROOT / "tests" / "fixtures" / "perf" / "lab" / "2.3.2" / "01-healthy"
KSTAT_COLLECTORS = ("arc", "zfs_kstats", "txg")
CLIENTS = (1, 10, 50, 200)


def fake_procfs(tmp: Path) -> Path:
    """A /proc with the kstats of a three-pool OpenZFS 2.3.2 host."""
    proc = tmp / "proc"
    if not proc.exists():
        shutil.copytree(CAPTURE / "proc", proc)
        shutil.copy(CAPTURE / "arcstats.txt", proc / "spl" / "kstat" / "zfs" / "arcstats")
    return proc


def zmon_config(tmp: Path) -> Path:
    from zmon.collecting.registry import collectors

    lines = []
    for name in collectors():
        lines.append(f"[collectors.{name}]\nenabled = {str(name in KSTAT_COLLECTORS).lower()}\n")
    path = tmp / "zmon.toml"
    path.write_text("\n".join(lines))
    return path


def zmon_args(tmp: Path) -> list[str]:
    return [
        "--config",
        str(zmon_config(tmp)),
        "--path.procfs",
        str(fake_procfs(tmp)),
        "--path.sysfs",
        str(tmp / "sys"),
        "--path.state-dir",
        str(tmp / "state"),
        "--log.level",
        "warning",
    ]


def zmon_exposition(tmp: Path) -> bytes:
    """What zmon serves for the benchmark tree (used as the candidates' payload too)."""
    out = subprocess.run(
        [sys.executable, "-m", "zmon.cli", "collect", "--once", *zmon_args(tmp)],
        capture_output=True,
        check=True,
        cwd=ROOT,
    )
    return out.stdout


def tls_files(tmp: Path) -> Path:
    """A self-signed certificate for 127.0.0.1 and a web config file using it."""
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-keyout",
            str(tmp / "key.pem"),
            "-out",
            str(tmp / "cert.pem"),
        ],
        check=True,
        capture_output=True,
    )
    web = tmp / "web.yml"
    web.write_text("tls_server_config:\n  cert_file: cert.pem\n  key_file: key.pem\n")
    return web


class Server:
    def __init__(self, name: str, cmd: list[str], port: int) -> None:
        self.name = name
        self.port = port
        self.proc = subprocess.Popen(
            cmd,
            cwd=ROOT,
            start_new_session=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_port(port)

    def stop(self) -> None:
        os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


def zmon_server(name: str, tmp: Path, *flags: str) -> Server:
    """``zmon serve`` on a free loopback port with ``flags``, reading the fake host in ``tmp``."""
    port = free_port()
    listen = ["--web.listen-address", f"127.0.0.1:{port}"]
    argv = [sys.executable, "-m", "zmon.cli", "serve", *listen, *flags, *zmon_args(tmp)]
    return Server(name, argv, port)


def _ratio(a: float, b: float) -> str:
    return f"{a / b:5.2f}x" if b else "   - "


def main(seconds: float = 10.0) -> int:
    exe = shutil.which("prometheus-node-exporter") or shutil.which("node_exporter")
    if not exe:
        raise SystemExit(
            "node_exporter is not installed (apt-get install prometheus-node-exporter)"
        )
    version = subprocess.run([exe, "--version"], capture_output=True, text=True)
    print((version.stdout or version.stderr).splitlines()[0])
    with tempfile.TemporaryDirectory(prefix="zmon-bench-") as d:
        tmp = Path(d)
        proc = fake_procfs(tmp)
        servers = []
        try:
            p = free_port()
            servers.append(
                Server(
                    "node_exporter",
                    [
                        exe,
                        "--collector.disable-defaults",
                        "--collector.zfs",
                        f"--path.procfs={proc}",
                        f"--web.listen-address=127.0.0.1:{p}",
                    ],
                    p,
                )
            )
            servers.append(zmon_server("zmon", tmp))
            web_config = str(tls_files(tmp))
            servers.append(zmon_server("zmon TLS", tmp, "--web.config.file", web_config))
            ne, zm, zt = servers
            import urllib.request

            sizes = {
                s.name: len(urllib.request.urlopen(f"http://127.0.0.1:{s.port}/metrics").read())
                for s in (ne, zm)
            }
            print(
                f"payload: node_exporter {sizes['node_exporter']} bytes, zmon {sizes['zmon']} "
                f"bytes; wrk {seconds:g} s per run, keep-alive\n"
            )
            results: dict[str, list[Run]] = {s.name: [] for s in servers}
            for clients in CLIENTS:
                for s in servers:
                    scheme = "https" if s.name.endswith("TLS") else "http"
                    results[s.name].append(
                        wrk(f"{scheme}://127.0.0.1:{s.port}/metrics", clients, seconds)
                    )
            print(
                "| clients | node_exporter p50 / p99 / max ms | zmon p50 / p99 / max ms "
                "| zmon/NE p50, p99 | zmon TLS p50 / p99 / max ms | errors+timeouts NE / zmon "
                "/ zmon TLS | req/s NE / zmon / TLS |"
            )
            print("|---|---|---|---|---|---|---|")
            for a, b, c in zip(
                results["node_exporter"], results["zmon"], results["zmon TLS"], strict=True
            ):
                print(
                    f"| {a.clients} | {a.p50_ms:.2f} / {a.p99_ms:.2f} / {a.max_ms:.1f} "
                    f"| {b.p50_ms:.2f} / {b.p99_ms:.2f} / {b.max_ms:.1f} "
                    f"| {_ratio(b.p50_ms, a.p50_ms)}, {_ratio(b.p99_ms, a.p99_ms)} "
                    f"| {c.p50_ms:.2f} / {c.p99_ms:.2f} / {c.max_ms:.1f} "
                    f"| {a.errors}+{a.timeouts} / {b.errors}+{b.timeouts} / "
                    f"{c.errors}+{c.timeouts} | {a.rps:.0f} / {b.rps:.0f} / {c.rps:.0f} |"
                )
            print(
                "\nmedian scrape on a new connection, alone and beside 200 idle half-open "
                "connections (connected, nothing sent)"
            )
            print("| server | alone ms | beside 200 idle ms | delay ms | RSS / peak MiB |")
            print("|---|---|---|---|---|")
            for s in servers:
                tls = None
                if s.name.endswith("TLS"):
                    tls = ssl.create_default_context(cafile=str(tmp / "cert.pem"))
                base, loaded = _idle(s.port, tls)
                rss, peak = rss_mib(s.proc.pid)
                print(
                    f"| {s.name} | {base:.2f} | {loaded:.2f} | {loaded - base:+.2f} "
                    f"| {rss:.1f} / {peak:.1f} |"
                )
        finally:
            for s in servers:
                s.stop()
    return 0


def _idle(port: int, tls: ssl.SSLContext | None) -> tuple[float, float]:
    if tls is None:
        return idle_delay_ms(port, 200)
    import socket
    import time

    from benchmarks.loadgen import scrape_latency_ms

    base = scrape_latency_ms(port, tls=tls)
    conns = [socket.create_connection(("127.0.0.1", port), 5) for _ in range(200)]
    try:
        time.sleep(0.2)
        loaded = scrape_latency_ms(port, tls=tls)
    finally:
        for c in conns:
            c.close()
    return base, loaded


if __name__ == "__main__":
    sys.exit(main(*(float(a) for a in sys.argv[1:2])))
