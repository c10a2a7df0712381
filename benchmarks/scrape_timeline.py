#!/usr/bin/env python3
"""What slows the big host's scrapes, 50 ms at a time: answers counted beside each thread's CPU.

zmon serves the 1,000-vdev host (``benchmarks/bighost.py``) at default intervals. A recorder
inside the daemon notes, every 50 ms, how many requests were answered and how much CPU each
thread used (by name: ``zmon-iostat-run`` is a run, ``zmon-iostat`` its publish,
``zmon-render`` the rendering thread, ``zmon-http`` the event loop), and the garbage
collector's time. wrk sends 50 gzip clients in runs of 10 s after the first runs are over.

It prints each wrk run's p50/p99, then every 50 ms during the runs in which fewer than three
quarters of the usual answers went out, with the threads that ran meanwhile: a stretch of a
collector's work that does not give way shows there (benchmarks/README.md, "The ninth
round").

    python -m benchmarks.scrape_timeline [--runs 4] [--seconds 10] [--settle 90]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.loadgen import big_host_daemon, wrk

BUCKET = 0.05  # seconds

# Runs ``zmon serve`` with the recorder: one JSON line per bucket in the file it is given.
RECORDER = """
import gc, json, re, sys, threading, time

out, bucket = open(sys.argv[1], "a", buffering=1), float(sys.argv[2])
collecting = [0.0, 0.0]  # collector's time in all, the last start

def on_gc(phase, info):
    if phase == "start":
        collecting[1] = time.perf_counter()
    else:
        collecting[0] += time.perf_counter() - collecting[1]

gc.callbacks.append(on_gc)
import zmon.server
answered = [0]
answering = type(zmon.server.ANSWERING)
plain_exit = answering.__exit__

def counted_exit(self, *exc):
    answered[0] += 1
    return plain_exit(self, *exc)

answering.__exit__ = counted_exit

def record():
    me, clocks, last = threading.get_ident(), {}, [0, 0.0]
    while True:
        time.sleep(bucket)
        now = {}
        for t in threading.enumerate():
            if t.ident != me:
                try:
                    clock = time.pthread_getcpuclockid(t.ident)
                    now[t.ident] = (re.sub(r"_\\d+$", "", t.name), time.clock_gettime(clock))
                except (OSError, TypeError, ValueError):  # (a thread just ending or starting)
                    pass
        cpu = {}
        for ident, (name, seconds) in now.items():
            spent = seconds - clocks.get(ident, (name, seconds))[1]
            if spent > 0.0005:
                cpu[name] = round(cpu.get(name, 0.0) + spent * 1e3, 1)
        gc_ms = round((collecting[0] - last[1]) * 1e3, 1)
        row = {"t": time.time(), "answered": answered[0] - last[0], "gc_ms": gc_ms, "cpu_ms": cpu}
        out.write(json.dumps(row) + "\\n")
        last[:] = [answered[0], collecting[0]]
        clocks = now

threading.Thread(target=record, daemon=True, name="recorder").start()
from zmon.cli import main
sys.exit(main(sys.argv[3:]))
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=4, help="wrk runs")
    ap.add_argument("--seconds", type=float, default=10.0, help="per wrk run")
    ap.add_argument("--settle", type=float, default=90.0, help="seconds for the first runs")
    ap.add_argument("zmon_flags", nargs="*", help="more flags for zmon serve (after --)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="zmon-timeline-") as name:
        tmp = Path(name)
        record = tmp / "timeline.jsonl"
        recorder = [sys.executable, "-c", RECORDER, str(record), str(BUCKET)]
        with big_host_daemon(tmp, recorder, args.zmon_flags) as port:
            time.sleep(args.settle)
            runs = []
            for _ in range(args.runs):
                started = time.time()
                run = wrk(f"http://127.0.0.1:{port}/metrics", 50, args.seconds, GZIP)
                runs.append((started, time.time(), run.p50_ms, run.p99_ms, run.rps))
        report(runs, [json.loads(line) for line in record.read_text().splitlines()])
    return 0


GZIP = {"Accept-Encoding": "gzip"}


def report(runs: list[tuple[float, float, float, float, float]], buckets: list[dict]) -> None:
    print("| wrk run | p50 ms | p99 ms | req/s |\n|---:|---:|---:|---:|")
    for i, (_, _, p50, p99, rps) in enumerate(runs, 1):
        print(f"| {i} | {p50:.1f} | {p99:.1f} | {rps:,.0f} |")
    during = [
        (i, b) for b in buckets for i, r in enumerate(runs, 1) if r[0] + BUCKET <= b["t"] <= r[1]
    ]
    if not during:
        return
    usual = statistics.median(b["answered"] for _, b in during)
    print(
        f"\nUsually {usual:.0f} answers per {1000 * BUCKET:.0f} ms. The buckets with fewer than"
        " three quarters of that (CPU ms of each thread, the event loop's first):\n"
    )
    print("| run | s into it | answers | event loop | garbage collector | other threads |")
    print("|---:|---:|---:|---:|---:|---|")
    slow = [(i, b) for i, b in during if b["answered"] < 0.75 * usual]
    if not slow:
        print("| - | - | none | - | - | - |")
    for i, b in slow:
        cpu = dict(b["cpu_ms"])
        loop = cpu.pop("zmon-http", 0.0)
        others = ", ".join(f"{k} {v}" for k, v in sorted(cpu.items(), key=lambda kv: -kv[1]))
        at = b["t"] - runs[i - 1][0]
        print(f"| {i} | {at:.2f} | {b['answered']} | {loop} | {b['gc_ms']} | {others} |")


if __name__ == "__main__":
    sys.exit(main())
