"""Soak: the demo host with fast intervals and 50 concurrent scrapers, for an hour.

Prints zmon's RSS, open fds and threads (and its child processes) over time, their least-squares
slope per hour, and the scrape errors. A slope above zero that the sampling noise does not
explain is a leak to fix. Not a test: run it by hand (it takes the whole hour by default).

    .venv/bin/python -m benchmarks.soak                  # 1 hour, 50 scrapers
    .venv/bin/python -m benchmarks.soak --seconds 300    # a quick look
    .venv/bin/python -m benchmarks.soak --tracemalloc DIR  # also where the memory goes

With ``--tracemalloc DIR`` zmon runs under ``tracemalloc`` (10 frames) and writes a snapshot
to DIR at every sample, with glibc's ``mallinfo2`` figures; at the end the soak prints the
traced total, tracemalloc's own memory and malloc's bytes in use and free, and the allocation
sites that grew most between the first snapshot after warm-up and the last. A traced total
that stays flat while malloc's free bytes rise is fragmentation, not a Python object leak.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from tests.support.ports import free_port

ROOT = Path(__file__).resolve().parents[1]
FAST = [
    f"--collector.{name}.interval"
    for name in (
        "arc",
        "zpool",
        "zpool_list",
        "datasets",
        "iostat",
        "zfs_kstats",
        "pool_kstats",
        "txg",
        "dedup",
        "devices",
        "smart",
        "ups",
        "zpool_events",
        "kernel_log",
    )
]


def sample(pid: int) -> dict[str, float]:
    status = Path(f"/proc/{pid}/status").read_text()
    rss = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS"))
    threads = next(
        int(line.split()[1]) for line in status.splitlines() if line.startswith("Threads")
    )
    fds = len(os.listdir(f"/proc/{pid}/fd"))
    kids = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            kids += len(Path(f"/proc/{pid}/task/{task}/children").read_text().split())
        except OSError:
            pass
    return {"rss_mib": rss / 1024, "fds": fds, "threads": threads, "children": kids}


TRACED_LAUNCH = r"""
import ctypes, os, signal, sys, tracemalloc
tracemalloc.start(10)
out = sys.argv.pop(1)

class MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost")]

libc = ctypes.CDLL(None)
libc.mallinfo2.restype = MallInfo2

def dump(signum, frame):
    n = len([f for f in os.listdir(out) if f.endswith(".pickle")])
    tracemalloc.take_snapshot().dump(os.path.join(out, "snap-%d.pickle" % n))
    info = libc.mallinfo2()
    with open(os.path.join(out, "malloc.tsv"), "a") as fh:
        fh.write("%d\t%d\t%d\t%d\t%d\t%d\n" % (
            n, tracemalloc.get_traced_memory()[0], tracemalloc.get_tracemalloc_memory(),
            info.uordblks, info.fordblks, info.hblkhd))
signal.signal(signal.SIGUSR2, dump)
from zmon.cli import main
sys.exit(main(sys.argv[1:]))
"""


def traced_report(directory: Path, skip: int) -> None:
    """The traced total per snapshot, and the sites that grew most after warm-up."""
    import tracemalloc

    paths = sorted(directory.glob("snap-*.pickle"), key=lambda p: int(p.stem.split("-")[1]))
    if len(paths) < 2:
        print("fewer than two tracemalloc snapshots")
        return
    totals = []
    for path in paths:
        snap = tracemalloc.Snapshot.load(str(path))
        totals.append(sum(stat.size for stat in snap.statistics("filename")) / 2**20)
    print("\ntraced Python memory per sample (MiB):", " ".join(f"{t:.1f}" for t in totals))
    print("\nper sample, MiB: traced, tracemalloc's own, malloc in use, malloc free, mmapped")
    for row in (directory / "malloc.tsv").read_text().splitlines():
        n, *sizes = row.split("\t")
        print(f"  {n:>4} " + " ".join(f"{int(x) / 2**20:8.1f}" for x in sizes))
    first = tracemalloc.Snapshot.load(str(paths[min(skip, len(paths) - 2)]))
    last = tracemalloc.Snapshot.load(str(paths[-1]))
    noise = [tracemalloc.Filter(False, tracemalloc.__file__)]
    first, last = first.filter_traces(noise), last.filter_traces(noise)
    print("\ngrowth by line, first sample after warm-up to the last (top 15):")
    for stat in last.compare_to(first, "lineno")[:15]:
        print(f"  {stat.size_diff / 1024:+9.1f} KiB {stat.count_diff:+8d} blocks  {stat.traceback}")
    print("\nlargest growth with its call stack (top 5):")
    for stat in last.compare_to(first, "traceback")[:5]:
        print(f"  {stat.size_diff / 1024:+9.1f} KiB {stat.count_diff:+8d} blocks")
        for line in stat.traceback.format()[-12:]:
            print("     ", line)


def slope_per_hour(times: list[float], values: list[float]) -> float:
    if len(times) < 2 or statistics.pvariance(times) == 0:
        return 0.0
    return statistics.linear_regression(times, values).slope * 3600


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3600)
    ap.add_argument("--scrapers", type=int, default=50)
    ap.add_argument("--interval", type=float, default=1.0, help="collector interval")
    ap.add_argument("--every", type=float, default=0, help="seconds between samples")
    ap.add_argument("--tracemalloc", metavar="DIR", type=Path, help="trace zmon's allocations")
    args = ap.parse_args()
    every = args.every or max(5.0, args.seconds / 60)
    port = free_port()
    state = tempfile.mkdtemp(prefix="zmon-soak-")
    flags = [x for f in FAST for x in (f, str(args.interval))]
    if args.tracemalloc:
        args.tracemalloc.mkdir(parents=True, exist_ok=True)
        launch = ["-c", TRACED_LAUNCH, str(args.tracemalloc)]
    else:
        launch = ["-m", "zmon.cli"]
    proc = subprocess.Popen(
        [
            sys.executable,
            *launch,
            "serve",
            "--demo",
            "--web.listen-address",
            f"127.0.0.1:{port}",
            "--path.state-dir",
            state,
            "--log.level",
            "warning",
            "--demo.phase-seconds",
            "30",
            *flags,
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}/metrics"
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(url, timeout=2).read()
            break
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                print("zmon did not come up", file=sys.stderr)
                return 1
            time.sleep(0.2)
    stop = threading.Event()
    counts = {"ok": 0, "error": 0}
    lock = threading.Lock()

    def scraper() -> None:
        while not stop.is_set():
            try:
                ok = urllib.request.urlopen(url, timeout=10).status == 200
            except OSError:
                ok = False
            with lock:
                counts["ok" if ok else "error"] += 1

    threads = [threading.Thread(target=scraper, daemon=True) for _ in range(args.scrapers)]
    for t in threads:
        t.start()
    start = time.monotonic()
    times: list[float] = []
    series: dict[str, list[float]] = {}
    print(
        f"{'t (s)':>8} {'RSS MiB':>9} {'fds':>6} {'threads':>8} {'children':>9} "
        f"{'scrapes':>9} {'errors':>7}"
    )
    try:
        while time.monotonic() - start < args.seconds and proc.poll() is None:
            time.sleep(every)
            now = time.monotonic() - start
            s = sample(proc.pid)
            if args.tracemalloc:
                os.kill(proc.pid, signal.SIGUSR2)
            times.append(now)
            for k, v in s.items():
                series.setdefault(k, []).append(v)
            with lock:
                ok, err = counts["ok"], counts["error"]
            print(
                f"{now:8.0f} {s['rss_mib']:9.1f} {s['fds']:6.0f} {s['threads']:8.0f} "
                f"{s['children']:9.0f} {ok:9d} {err:7d}",
                flush=True,
            )
    finally:
        stop.set()
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(30)
    # the first tenth is warm-up (caches, the demo's phases); the slope is over the rest
    skip = len(times) // 10
    print("\nslope per hour after warm-up (a leak shows as a steady rise):")
    for key, values in series.items():
        print(
            f"  {key:9} {slope_per_hour(times[skip:], values[skip:]):+10.2f} /h   "
            f"first {values[skip]:.1f}  last {values[-1]:.1f}"
        )
    print(f"  scrapes   {counts['ok']} ok, {counts['error']} failed")
    if args.tracemalloc:
        traced_report(args.tracemalloc, skip)
    return 0 if proc.returncode in (0, -signal.SIGTERM) else 1


if __name__ == "__main__":
    sys.exit(main())
