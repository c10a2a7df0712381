#!/usr/bin/env python3
"""Why a big host's scrape tail follows the collectors' CPU: one Python process, one GIL.

zmon serves the 1,000-vdev host's exposition (``benchmarks/bighost.py``) from a daemon whose
collectors ran once and then stay idle (every interval a day; SMART off, whose first pass
would start 500 ``smartctl`` meanwhile). A burner then spends CPU in bursts, a given share of
the time, while wrk measures 50 gzip clients:

- in a thread of the daemon, pure Python bytecode (the GIL shared as the collectors share it,
  in the form that gives it up most often: at every switch interval);
- in a process of its own, the same work on the same two cores (no GIL shared).

If the tail follows the thread's share and not the process's, it is the interpreter shared,
not the CPU (benchmarks/README.md, "What the scrape tail follows").

    python -m benchmarks.gil_tail [--seconds 10] [--repeat 2]
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.loadgen import big_host_daemon, wrk
from zmon.registry import collectors

BURST_SECONDS = 0.06  # one burst of CPU, about an iostat run's parse on this host

# The burner: bursts of pure bytecode, each BURST_SECONDS of its own CPU, a share of the time
# read from a file before each burst (0 = idle). Run as a thread in the daemon (``--thread``)
# or as its own process.
BURNER = """
import os, sys, threading, time

def burn(seconds):
    end = time.thread_time() + seconds
    x = 0
    while time.thread_time() < end:
        for i in range(2000):
            x += i

def loop(share_file, burst):
    while True:
        try:
            share = float(open(share_file).read() or 0)
        except (OSError, ValueError):
            share = 0.0
        if share <= 0:
            time.sleep(0.2)
            continue
        started = time.monotonic()
        burn(burst)
        time.sleep(max(0.0, burst / share - (time.monotonic() - started)))

share_file, burst, mode = sys.argv[1], float(sys.argv[2]), sys.argv[3]
if mode == "thread":
    threading.Thread(target=loop, args=(share_file, burst), daemon=True, name="burner").start()
    sys.argv = ["zmon", *sys.argv[4:]]
    from zmon.cli import main
    sys.exit(main(sys.argv[1:]))
loop(share_file, burst)
"""


def idle_flags() -> list[str]:
    """Every collector idle after its first run, and SMART off."""
    flags = ["--no-collector.smart"]
    for name in sorted(collectors()):
        if name != "smart":
            flags += [f"--collector.{name}.interval", "86400"]
    return flags


def measure(port: int, seconds: float) -> tuple[float, float, float]:
    run = wrk(f"http://127.0.0.1:{port}/metrics", 50, seconds, {"Accept-Encoding": "gzip"})
    return run.p50_ms, run.p99_ms, run.rps


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=10.0, help="per wrk run")
    ap.add_argument("--repeat", type=int, default=2, help="wrk runs per row")
    ap.add_argument("--settle", type=float, default=60.0, help="seconds for the first runs")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="zmon-gil-") as name:
        tmp = Path(name)
        shares = {"thread": tmp / "share-thread", "process": tmp / "share-process"}
        for f in shares.values():
            f.write_text("0")
        burner = [sys.executable, "-c", BURNER]
        other = subprocess.Popen(
            [*burner, str(shares["process"]), str(BURST_SECONDS), "process"],
            start_new_session=True,
        )
        in_daemon = [*burner, str(shares["thread"]), str(BURST_SECONDS), "thread"]
        try:
            with big_host_daemon(tmp, in_daemon, idle_flags()) as port:
                time.sleep(args.settle)
                rows = []
                for where, pct in (
                    ("none", 0.0),
                    ("thread", 1.0),
                    ("thread", 2.0),
                    ("thread", 4.0),
                    ("process", 2.0),
                    ("process", 4.0),
                ):
                    for burner_of, f in shares.items():
                        f.write_text(str(pct / 100) if burner_of == where else "0")
                    time.sleep(1)
                    runs = [measure(port, args.seconds) for _ in range(args.repeat)]
                    rows.append((where, pct, runs))
                    print(
                        f"{where:8s} {pct:4.1f} %  p50 "
                        + ", ".join(f"{r[0]:.1f}" for r in runs)
                        + " ms  p99 "
                        + ", ".join(f"{r[1]:.1f}" for r in runs)
                        + " ms  req/s "
                        + ", ".join(f"{r[2]:.0f}" for r in runs),
                        flush=True,
                    )
            _table(rows)
        finally:
            os.killpg(other.pid, signal.SIGTERM)
            other.wait(10)
    return 0


def _table(rows: list[tuple[str, float, list[tuple[float, float, float]]]]) -> None:
    print("\n| burner | share of the time | p50 ms | p99 ms | req/s |")
    print("|---|---:|---:|---:|---:|")
    for where, pct, runs in rows:
        p50 = ", ".join(f"{r[0]:.1f}" for r in runs)
        p99 = ", ".join(f"{r[1]:.1f}" for r in runs)
        rps = statistics.mean(r[2] for r in runs)
        print(f"| {where} | {pct:.0f} % | {p50} | {p99} | {rps:,.0f} |")


if __name__ == "__main__":
    sys.exit(main())
