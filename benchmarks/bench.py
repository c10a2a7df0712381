#!/usr/bin/env python3
"""zmon on a big storage host: one table of what it costs (``make bench``).

On the synthetic host of ``benchmarks/bighost.py`` it measures, and prints side by side:

1. each collector's CPU and wall time for one cycle (collect, then render its families as the
   scheduler does) at 10, 100 and 1,000 vdevs, with the exponent of a power-law fit
   (``cpu ~ vdevs^k``: linear shows as ~1.0);
2. the whole daemon (``zmon serve``) on the 1,000-vdev host at default intervals: CPU % of one
   core (its main process, HTTP process and collection worker together), RSS and PSS of
   each, the main process's threads and open fds, while a kernel log grows;
3. scrapes of that daemon's full exposition: p50/p99 with 1 and 50 clients, plain and gzip,
   and each process's RSS and PSS after them;
4. kernel-log matching on a large log (1 GiB by default): zmon's file follower and
   ``zmon parse kernel-log`` against ``mtail --one_shot`` (Debian's mtail) with an equivalent
   program (same rules, first match wins) and with a program an admin would write (one regex
   per fault, no ``else`` chain): lines/s, peak RSS, and zmon's ratio to each;
5. the exposition size of each collector on the 1,000-vdev host;
6. the scrape tail side by side: ``zmon serve`` (and, with ``--baseline DIR``, another
   checkout's, serving at the same time and scraped in turns) against node_exporter reading
   the same procfs and sysfs, p99 at 1, 10, 50 and 200 clients (gzip, as Prometheus asks),
   with the serving process's RSS, and the ratios;
7. an authorised Prometheus-like scrape while clients abuse the front door (300 connections
   sending wrong passwords, 2,000 idle keep-alive connections, 10 clients reloading the
   status page of a 50,000-vdev host): its p50/p99, and what the abusers got
   (``benchmarks/abuse.py``).

The peers' and zmon's figures come from the same run on the same files. Run with
``--quick`` for a shorter pass while developing (smaller log, one-minute daemon).
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import http.client
import json
import math
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from benchmarks import abuse
from benchmarks.bighost import BigHost, build_host, write_kernel_log
from benchmarks.kernel_log_bench import FAULTS, mtail_program
from benchmarks.loadgen import wrk
from tests.support.ports import free_port
from zmon.collecting.config import load
from zmon.collecting.registry import Context, NoDataError, collectors
from zmon.exposition.formats import render
from zmon.parsers.kernel_log import Rule, default_rules

REPO = Path(__file__).resolve().parents[1]

SCALES = (10, 100, 1000)
SCRAPE_SECONDS = 10.0
WARM_SECONDS = 120.0  # the daemon's first runs (every collector, SMART's first pass) are over
CLK_TCK = os.sysconf("SC_CLK_TCK")
# Options for the per-collector cycle: no pause between disks and no wait for a first event
# (those are sleeps, not work; the daemon run keeps the defaults).
QUICK_OPTIONS = {"smart": {"jitter": 0.0}, "zpool_events": {"startup_wait": 0.0}}
VARIANTS = {"iostat (histograms=all)": ("iostat", {"histograms": "all"})}


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


# ---- 1 and 5: collectors, one cycle at each scale


def one_cycle(host: BigHost, name: str, extra: dict[str, Any], repeat: int) -> dict[str, Any]:
    cfg = host.apply(load(collectors(), None))
    settings = cfg.collectors[name]
    options = {**settings.options, **QUICK_OPTIONS.get(name, {}), **extra}
    ctx = Context(
        paths=cfg.paths,
        runner=host.runner(),
        options=options,
        platform="linux",
        interval=settings.interval,
        timeout=settings.timeout,
    )
    collector = collectors()[name](ctx)
    cpu, wall = [], []
    try:
        collector.start()
        collector.collect()  # the first run may read what later runs keep (scan, guids)
        for _ in range(repeat):
            c0, w0 = time.thread_time(), time.perf_counter()
            families = collector.collect().families()
            rendered = [render([fam]) for fam in families]
            cpu.append(time.thread_time() - c0)
            wall.append(time.perf_counter() - w0)
    except NoDataError:
        return {"nodata": True}
    finally:
        collector.close()
    text = b"".join(rendered)
    series = sum(1 for line in text.split(b"\n") if line and not line.startswith(b"#"))
    return {
        "cpu": statistics.median(cpu),
        "wall": statistics.median(wall),
        "series": series,
        "bytes": len(text),
        "gzip": len(gzip.compress(text, compresslevel=1)),
    }


def exponent(points: list[tuple[int, float]]) -> float | None:
    """Least-squares slope of log(cpu) over log(vdevs); None when the cost is too small."""
    pts = [(math.log(v), math.log(c)) for v, c in points if c > 0]
    if len(pts) < 2 or max(c for _, c in points) < 0.005:
        return None
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    den = sum((x - mx) ** 2 for x, _ in pts)
    return sum((x - mx) * (y - my) for x, y in pts) / den if den else None


def collectors_section(
    tmp: Path, scales: tuple[int, ...], repeat: int, built: dict[int, BigHost] | None = None
) -> dict[str, Any]:
    results: dict[str, dict[int, dict[str, Any]]] = {}
    names = [(n, n, {}) for n in collectors()] + [(k, *v) for k, v in VARIANTS.items()]
    for vdevs in scales:
        t0 = time.perf_counter()
        host = (built or {}).get(vdevs) or build_host(tmp / f"host-{vdevs}", vdevs)
        say(f"collectors: host of {vdevs} vdevs ready in {time.perf_counter() - t0:.1f}s")
        for label, name, extra in names:
            results.setdefault(label, {})[vdevs] = one_cycle(host, name, extra, repeat)
    return results


def print_collectors(results: dict[str, Any], scales: tuple[int, ...]) -> None:
    print("\n## 1. One collector cycle (collect + render), median CPU / wall seconds\n")
    head = " | ".join(f"{v} vdevs CPU / wall" for v in scales)
    print(f"| collector | {head} | exponent |")
    print("|---|" + "---|" * len(scales) + "---|")
    for label, by_scale in results.items():
        if any(r.get("nodata") for r in by_scale.values()):
            print(f"| {label} | " + " | ".join("no data" for _ in scales) + " | - |")
            continue
        cells = [f"{by_scale[v]['cpu']:.4f} / {by_scale[v]['wall']:.4f}" for v in scales]
        k = exponent([(v, by_scale[v]["cpu"]) for v in scales])
        print(f"| {label} | " + " | ".join(cells) + f" | {'const' if k is None else f'{k:.2f}'} |")
    print("\n(exponent: slope of log CPU over log vdevs; 'const': under 5 ms at every scale)")


def print_sizes(results: dict[str, Any], vdevs: int) -> None:
    print(f"\n## 5. Exposition size per collector, {vdevs} vdevs\n")
    print("| collector | series | bytes | gzip bytes |")
    print("|---|---:|---:|---:|")
    total = [0, 0, 0]
    for label, by_scale in results.items():
        r = by_scale[vdevs]
        if r.get("nodata"):
            continue
        print(f"| {label} | {r['series']:,} | {r['bytes']:,} | {r['gzip']:,} |")
        if label not in VARIANTS:
            total = [total[0] + r["series"], total[1] + r["bytes"], total[2] + r["gzip"]]
    print(f"| all (default options) | {total[0]:,} | {total[1]:,} | {total[2]:,} |")


# ---- 2 and 3: the daemon, then scrapes


def proc_status(pid: int) -> dict[str, int]:
    out = {}
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM", "Threads"):
                out[key] = int(value.split()[0])
    with contextlib.suppress(OSError):
        out["fds"] = len(os.listdir(f"/proc/{pid}/fd"))
    return out


def proc_cpu(pid: int) -> tuple[float, float]:
    """(own CPU seconds, CPU seconds of its waited-for children) of a process."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    utime, stime, cutime, cstime = (int(x) for x in fields[11:15])
    return (utime + stime) / CLK_TCK, (cutime + cstime) / CLK_TCK


def zmon_processes(pid: int) -> dict[str, int]:
    """zmon's processes by role: ``main`` (``pid``: the config, the sockets, supervision),
    ``http`` (its forked HTTP process; a checkout from before the privilege separation
    serves in ``main`` and has none) and ``worker`` (the collection worker)."""
    found = {"main": pid}
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError):
                for child in Path(f"/proc/{pid}/task/{task}/children").read_text().split():
                    with contextlib.suppress(OSError):
                        role = _role(int(child))
                        if role is not None:
                            found[role] = int(child)
    return found


def _role(pid: int) -> str | None:
    """A child's role by its name (``zmon-http``, ``zmon-worker``: zmon.base.children's
    ``name_process``), or by its command line for a checkout that did not name them."""
    name = Path(f"/proc/{pid}/comm").read_text().strip()
    if name in ("zmon-http", "zmon-worker"):
        return name.removeprefix("zmon-")
    cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    if b"zmon.runtime.worker" in cmdline:
        return "worker"
    if b"zmon" in cmdline and b" serve" in cmdline.replace(b"\0", b" "):
        return "http"
    return None


def worker_pids(pid: int) -> list[int]:
    """The collection worker(s) among the children of zmon's main process ``pid``."""
    return [p for role, p in zmon_processes(pid).items() if role == "worker"]


def proc_pss_kb(pid: int) -> int:
    """Proportional set size (kB): each page shared with N processes counts 1/N (the HTTP
    process is forked, so it shares the main process's pages until either writes them)."""
    with open(f"/proc/{pid}/smaps_rollup") as fh:
        for line in fh:
            if line.startswith("Pss:"):
                return int(line.split()[1])
    return 0


def zmon_memory(pid: int) -> dict[str, tuple[float, float]]:
    """(RSS MB, PSS MB) of each of zmon's processes by role, and ``all`` of them together."""
    out: dict[str, tuple[float, float]] = {}
    for role, p in zmon_processes(pid).items():
        with contextlib.suppress(OSError, KeyError):
            out[role] = (proc_status(p)["VmRSS"] / 1024, proc_pss_kb(p) / 1024)
    out["all"] = (sum(r for r, _ in out.values()), sum(p for _, p in out.values()))
    return out


def zmon_cpu(pid: int) -> tuple[float, float]:
    """(CPU seconds of zmon's processes, the main one, the HTTP one and the worker; those of
    the programs they ran and waited for)."""
    own, waited = proc_cpu(pid)
    for role, child in zmon_processes(pid).items():
        if role == "main":
            continue
        with contextlib.suppress(OSError):
            c_own, c_waited = proc_cpu(child)
            own, waited = own + c_own, waited + c_waited
    return own, waited


def grow_kernel_log(path: Path, stop: threading.Event, per_second: int = 20) -> None:
    """Append kernel lines as a busy host does, one in a hundred a fault."""
    n = 0
    with open(path, "a") as fh:
        while not stop.wait(1.0):
            lines = []
            for _ in range(per_second):
                n += 1
                body = (
                    FAULTS[n % len(FAULTS)]
                    if n % 100 == 0
                    else "kernel: usb 1-1.{p}: new high-speed USB device number {n} using ehci-pci"
                )
                lines.append("Dec  1 00:00:00 big " + body.format(n=n, p=n % 8, h="00", l="a"))
            fh.write("\n".join(lines) + "\n")
            fh.flush()


def get(port: int, gzip_ok: bool, timeout: float = 30.0) -> tuple[float, int]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        t0 = time.perf_counter()
        conn.request("GET", "/metrics", headers={"Accept-Encoding": "gzip"} if gzip_ok else {})
        body = conn.getresponse().read()
        return time.perf_counter() - t0, len(body)
    finally:
        conn.close()


def scrape(port: int, clients: int, seconds: float, gzip_ok: bool) -> dict[str, float]:
    """wrk (benchmarks/loadgen.py): ``clients`` keep-alive connections for ``seconds``."""
    run = wrk(
        f"http://127.0.0.1:{port}/metrics",
        clients,
        seconds,
        {"Accept-Encoding": "gzip"} if gzip_ok else None,
    )
    return {
        "p50": run.p50_ms / 1000,
        "p99": run.p99_ms / 1000,
        "max": run.max_ms / 1000,
        "rps": run.rps,
        "errors": run.errors + run.timeouts,
    }


def daemon_section(
    tmp: Path,
    vdevs: int,
    seconds: float,
    host: BigHost | None = None,
    during: Any = None,
    checkout: Path = REPO,
) -> dict[str, Any]:
    """The daemon for ``seconds``; ``during()`` (other sections) runs meanwhile, in this
    thread, and the daemon's figures are its own CPU seconds and memory. ``checkout``: the
    zmon that serves (another checkout measures an earlier zmon on the same host)."""
    host = host or build_host(tmp / "daemon-host", vdevs)
    port = free_port()
    config = tmp / "zmon.toml"
    config.write_text(config_in_terms_of(checkout, host.config_toml(f"127.0.0.1:{port}"), tmp))
    log = (tmp / "daemon.log").open("wb")
    say(f"daemon: zmon serve on the {vdevs}-vdev host for {seconds:.0f}s")
    t0 = time.monotonic()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "zmon.cli",
            "serve",
            "--config",
            str(config),
            "--log.level",
            "warning",
            "--log.format",
            "json",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        cwd=checkout,
        env={**os.environ, "PYTHONPATH": str(checkout)},
    )
    stop = threading.Event()
    writer = threading.Thread(target=grow_kernel_log, args=(host.kernel_log, stop), daemon=True)
    writer.start()
    peak = {"VmRSS": 0, "Threads": 0, "fds": 0}
    load = [os.getloadavg()[0]]
    sampling = threading.Event()

    # each process's memory every 5 s after the first runs: one reading catches the worker
    # anywhere between its runs' peaks and their ends (57-72 MB PSS), the median does not
    readings: list[dict[str, tuple[float, float]]] = []

    def sample() -> None:
        while not sampling.wait(5.0):
            with contextlib.suppress(OSError, KeyError):
                st = proc_status(proc.pid)
                for key in peak:
                    peak[key] = max(peak[key], st[key])
            load.append(os.getloadavg()[0])
            if time.monotonic() - t0 >= WARM_SECONDS:
                readings.append(zmon_memory(proc.pid))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        if during is not None:
            during()
        warm: tuple[float, float] | None = None  # (time, CPU s) once the first runs are over
        while time.monotonic() - t0 < seconds:
            if (
                warm is None
                and time.monotonic() - t0 >= WARM_SECONDS
                and seconds > 2 * WARM_SECONDS
            ):
                warm = (time.monotonic(), zmon_cpu(proc.pid)[0])
            if proc.poll() is not None:
                raise RuntimeError(f"zmon exited: {(tmp / 'daemon.log').read_text()[-2000:]}")
            time.sleep(min(5.0, max(0.1, seconds - (time.monotonic() - t0))))
        elapsed = time.monotonic() - t0
        cpu, children = zmon_cpu(proc.pid)
        final = proc_status(proc.pid)
        worker_rss = children_rss_mb(proc.pid)
        memory = zmon_memory(proc.pid)
        stop.set()
        sampling.set()
        sampler.join()
        result: dict[str, Any] = {
            "seconds": elapsed, "cpu_pct": 100 * cpu / elapsed, "cpu": cpu,
            "children_cpu": children, "rss_mb": final["VmRSS"] / 1024,
            "worker_rss_mb": worker_rss, "memory": memory,
            "memory_median": median_memory(readings), "memory_readings": len(readings),
            "peak_rss_mb": final["VmHWM"] / 1024, "threads": final["Threads"],
            "peak_threads": peak["Threads"], "fds": final["fds"], "peak_fds": peak["fds"],
            "load": statistics.mean(load), "load_max": max(load),
            "steady_pct": None if warm is None
            else 100 * (cpu - warm[1]) / (time.monotonic() - warm[0]),
            "steady_from": None if warm is None else warm[0] - t0,
        }  # fmt: skip
        say("scrapes: 1 and 50 clients, plain and gzip")
        _, plain_bytes = get(port, False)
        body = b""
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", "/metrics")
        body = conn.getresponse().read()
        conn.close()
        _, gzip_bytes = get(port, True)
        result["series"] = sum(1 for ln in body.split(b"\n") if ln and not ln.startswith(b"#"))
        result["bytes"], result["gzip_bytes"] = plain_bytes, gzip_bytes
        result["scrapes"] = {}
        for clients in (1, 50):
            for gz in (False, True):
                result["scrapes"][(clients, gz)] = scrape(port, clients, SCRAPE_SECONDS, gz)
        result["scrape_cpu"] = zmon_cpu(proc.pid)[0] - cpu
        result["scrape_memory"] = zmon_memory(proc.pid)
        states = re.findall(rb'zmon_collector_success\{collector="(\w+)"\} (\S+)', body)
        result["collectors_ok"] = sorted(n.decode() for n, v in states if v == b"1.0")
        return result
    finally:
        stop.set()
        sampling.set()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, 15)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait()
        log.close()


def print_daemon(r: dict[str, Any]) -> None:
    print(f"\n## 2. The whole daemon, {r['seconds']:.0f} s at default intervals\n")
    print(
        "| CPU % of one core | CPU s | RSS MB (peak), main process | worker RSS MB | "
        "threads (peak) | fds (peak) | "
        "fake programs' CPU s | load average, mean (max) | "
        f"CPU % after the first {WARM_SECONDS:.0f} s |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    steady = "-" if r["steady_pct"] is None else f"{r['steady_pct']:.2f}"
    print(
        f"| {r['cpu_pct']:.2f} | {r['cpu']:.1f} | {r['rss_mb']:.1f} ({r['peak_rss_mb']:.1f}) | "
        f"{r['worker_rss_mb']:.1f} | "
        f"{r['threads']} ({r['peak_threads']}) | {r['fds']} ({r['peak_fds']}) | "
        f"{r['children_cpu']:.1f} | {r['load']:.1f} ({r['load_max']:.1f}) | {steady} |"
    )
    if r["steady_from"] is not None:
        print(
            f"\n(the last column counts from {r['steady_from']:.0f} s on: the daemon's first "
            f"runs over, and the other sections, which run beside it, done)"
        )
    print_memory(r["memory"], "at the end of the run")
    if r["memory_readings"]:
        print_memory(
            r["memory_median"],
            f"after the first {WARM_SECONDS:.0f} s, the median of {r['memory_readings']} "
            "readings 5 s apart (each process's, and of their sums)",
        )
    print(f"\nCollectors whose last run succeeded: {', '.join(r['collectors_ok'])}")
    print("\n## 3. Scrapes of the full exposition\n")
    print(f"{r['series']:,} series; {r['bytes']:,} bytes plain, {r['gzip_bytes']:,} gzip\n")
    print("| clients | encoding | p50 ms | p99 ms | max ms | req/s | errors |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    for (clients, gz), s in r["scrapes"].items():
        enc = "gzip" if gz else "plain"
        print(
            f"| {clients} | {enc} | {1000 * s['p50']:.1f} | {1000 * s['p99']:.1f} | "
            f"{1000 * s['max']:.1f} | {s['rps']:.0f} | {s['errors']} |"
        )
    print(
        f"\n(wrk, {SCRAPE_SECONDS:g} s per row, keep-alive connections, each sending its next "
        f"request when the last answer arrived; the daemon's CPU for them: {r['scrape_cpu']:.1f} s)"
    )
    print_memory(r["scrape_memory"], "after the scrapes")


MEMORY_ROLES = {
    "main": "main process (config, sockets, supervision)",
    "http": "HTTP process (serves; forked, shares pages with the main one)",
    "worker": "collection worker",
    "all": "all together",
}


def median_memory(readings: list[dict[str, tuple[float, float]]]) -> dict[str, tuple[float, float]]:
    """Each role's median RSS and PSS over ``readings`` (``zmon_memory``'s), ``all`` the
    median of the readings' sums."""
    roles = {role for r in readings for role in r}
    return {
        role: (
            statistics.median(r[role][0] for r in readings if role in r),
            statistics.median(r[role][1] for r in readings if role in r),
        )
        for role in roles
    }


def print_memory(memory: dict[str, tuple[float, float]], when: str) -> None:
    """RSS and PSS of each zmon process: RSS counts shared pages in each process that maps
    them, PSS divides them among those processes, so PSS adds up and RSS does not."""
    print(f"\nMemory {when}:\n")
    print("| process | RSS MB | PSS MB |")
    print("|---|---:|---:|")
    for role, label in MEMORY_ROLES.items():
        if role in memory:
            rss, pss = memory[role]
            print(f"| {label} | {rss:.1f} | {pss:.1f} |")


# ---- 6: the scrape tail against node_exporter and a baseline checkout

TAIL_CLIENTS = (1, 10, 50, 200)
TAIL_SECONDS = 10.0  # per window; each client count gets ``TAIL_ROUNDS`` windows per server
# The servers run at once, each collecting on its own schedule, and take turns being scraped:
# round after round in alternating order, so drifting load and background collection fall on
# both alike. One window's p99 depends on which collections fall in it; the median of the
# rounds' does not.
TAIL_ROUNDS = 6


def children_rss_mb(pid: int) -> float:
    """RSS of zmon's collection worker, the child of its serving process ``pid``."""
    total = 0.0
    for worker in worker_pids(pid):
        with contextlib.suppress(OSError, KeyError):
            total += proc_status(worker)["VmRSS"] / 1024
    return total


def _wait_metrics(
    proc: subprocess.Popen[bytes], port: int, needle: bytes, timeout: float = 600.0
) -> None:
    """Until ``needle`` is served on ``port``; an exited ``proc`` ends the wait at once."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server on port {port} exited with {proc.returncode}")
        with contextlib.suppress(OSError, http.client.HTTPException):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            conn.request("GET", "/metrics")
            body = conn.getresponse().read()
            conn.close()
            if needle in body:
                return
        time.sleep(1.0)
    raise RuntimeError(f"{needle!r} never appeared on port {port}")


def config_in_terms_of(checkout: Path, toml: str, tmp: Path) -> str:
    """``toml`` with the keys that ``checkout``'s ``zmon check-config`` calls unknown taken out,
    so that an older checkout starts on the same host (it then runs without those options)."""
    config = tmp / "check.toml"
    for _ in range(20):
        config.write_text(toml)
        done = subprocess.run(
            [sys.executable, "-m", "zmon.cli", "check-config", str(config)],
            cwd=checkout, env={**os.environ, "PYTHONPATH": str(checkout)},
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        unknown = re.search(r"([\w.]+): unknown key", done.stderr)
        if done.returncode == 0 or unknown is None:
            return toml
        section, _, key = unknown.group(1).rpartition(".")
        say(f"tail: {checkout} does not know [{section}] {key}; left out of its configuration")
        keep = (line for line in toml.splitlines() if not re.match(rf"{re.escape(key)}\s*=", line))
        toml = "\n".join(keep) + "\n"
    return toml


class Served:
    """One server under test: its process, port and results."""

    def __init__(self, name: str, proc: subprocess.Popen[bytes], port: int, ready: bytes) -> None:
        self.name, self.proc, self.port, self.ready = name, proc, port, ready
        self.runs: dict[int, list[dict[str, float]]] = {c: [] for c in TAIL_CLIENTS}
        self.loads: list[float] = []

    def measure(self, clients: int, seconds: float) -> None:
        load0 = os.getloadavg()[0]
        self.runs[clients].append(scrape(self.port, clients, seconds, True))
        self.loads.append((load0 + os.getloadavg()[0]) / 2)

    def result(self, worker: bool) -> dict[str, Any]:
        return {
            "runs": self.runs,
            "rss_mb": proc_status(self.proc.pid)["VmRSS"] / 1024,
            "worker_rss_mb": children_rss_mb(self.proc.pid) if worker else 0.0,
            "memory": zmon_memory(self.proc.pid) if worker else {},
            "load": statistics.median(self.loads),
        }

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, 15)
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, 9)
            self.proc.wait()


def serve_zmon(tmp: Path, host: BigHost, name: str, checkout: Path) -> Served:
    """``zmon serve`` from ``checkout`` on ``host``, with a state directory of its own."""
    port = free_port()
    state = tmp / f"state-{name}"
    shutil.rmtree(state, ignore_errors=True)
    toml = host.config_toml(f"127.0.0.1:{port}", state_dir=state)
    config = tmp / f"tail-{name}.toml"
    config.write_text(config_in_terms_of(checkout, toml, tmp))
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    with (tmp / f"tail-{name}.log").open("wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "zmon.cli", "serve", "--config", str(config), "--log.level",
             "warning"],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True, cwd=checkout, env=env,
        )  # fmt: skip
    return Served(
        name, proc, port, b'zmon_collector_runs_total{collector="datasets",result="success"}'
    )


def serve_node_exporter(host: BigHost) -> Served | None:
    exe = shutil.which("prometheus-node-exporter") or shutil.which("node_exporter")
    if exe is None:
        return None
    port = free_port()
    proc = subprocess.Popen(
        [exe, f"--path.procfs={host.paths.procfs}", f"--path.sysfs={host.paths.sysfs}",
         f"--path.rootfs={host.paths.rootfs}", f"--web.listen-address=127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    return Served("node_exporter", proc, port, b"node_")


def take_turns(servers: list[Served], seconds: float, rounds: int) -> None:
    """Each client count, ``rounds`` times over, every server one window in turn (the order
    turned round each round)."""
    for server in servers:
        _wait_metrics(server.proc, server.port, server.ready)
    for clients in TAIL_CLIENTS:
        for n in range(rounds):
            for server in servers if n % 2 == 0 else servers[::-1]:
                say(f"tail: {server.name}, {clients} clients, round {n + 1} of {rounds}")
                server.measure(clients, seconds)


def tail_section(
    tmp: Path,
    host: BigHost,
    baseline: Path | None,
    seconds: float,
    peer: bool = True,
    rounds: int = TAIL_ROUNDS,
) -> dict[str, dict[str, Any]]:
    """zmon from this checkout and the ``baseline`` checkout, serving at once and scraped in
    turns (``take_turns``), then node_exporter alone (one round: it takes seconds a scrape)."""
    servers = [serve_zmon(tmp, host, "zmon", REPO)]
    out: dict[str, dict[str, Any]] = {}
    try:
        if baseline is not None:
            servers.append(serve_zmon(tmp, host, "baseline", baseline))
        take_turns(servers, seconds, rounds)
        out = {s.name: s.result(worker=True) for s in servers}
    finally:
        for server in servers:
            server.stop()
    node = serve_node_exporter(host) if peer else None
    if node is not None:
        try:
            take_turns([node], seconds, 1)
            out["node_exporter"] = node.result(worker=False)
        finally:
            node.stop()
    return out


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}" if b > 0 else "-"


def _spread(values: list[float], scale: float = 1.0) -> str:
    """The median of ``values`` (times ``scale``), with their range when there are several."""
    mid = f"{scale * statistics.median(values):.1f}"
    if len(values) == 1:
        return mid
    return f"{mid} ({scale * min(values):.1f}-{scale * max(values):.1f})"


def print_paired(
    zmon: dict[int, list[dict[str, float]]], baseline: dict[int, list[dict[str, float]]]
) -> None:
    """Round by round, zmon's figure over the baseline's in the same round: the geometric
    mean of those ratios, and in how many rounds zmon's p99 was the lower. Rounds pair the
    windows measured minutes apart, under the same load."""
    print("\n| clients | zmon / baseline, p99 | p50 | req/s | rounds with zmon's p99 lower |")
    print("|---:|---:|---:|---:|---:|")
    lower = total = 0
    for clients in TAIL_CLIENTS:
        pairs = list(zip(zmon[clients], baseline[clients], strict=True))
        cells = []
        for key in ("p99", "p50", "rps"):
            ratios = [a[key] / b[key] for a, b in pairs if a[key] > 0 and b[key] > 0]
            cells.append(f"{statistics.geometric_mean(ratios):.2f}" if ratios else "-")
        won = sum(a["p99"] < b["p99"] for a, b in pairs)
        lower, total = lower + won, total + len(pairs)
        print(f"| {clients} | " + " | ".join(cells) + f" | {won} of {len(pairs)} |")
    print(f"| all | | | | {lower} of {total} |")
    print("\n(geometric means over the rounds of zmon's figure / the baseline's in the same round)")


def print_tail(r: dict[str, dict[str, Any]], seconds: float) -> None:
    """The p99 of each server at each client count: the median over the rounds (their range
    in brackets), and the ratios of the medians."""
    rounds = max(len(v["runs"][TAIL_CLIENTS[0]]) for v in r.values())
    print(f"\n## 6. Scrape tail side by side (gzip), p99 ms, median of {rounds} rounds\n")
    names = list(r)
    ratios = [(a, b) for a, b in (("zmon", "baseline"), ("zmon", "node_exporter")) if b in r]

    def p99(name: str, clients: int) -> float:
        return float(statistics.median(run["p99"] for run in r[name]["runs"][clients]))

    head = " | ".join(names) + "".join(f" | {a} / {b}" for a, b in ratios)
    print(f"| clients | {head} |")
    print("|---:|" + "---:|" * (len(names) + len(ratios)))
    for clients in TAIL_CLIENTS:
        cells = " | ".join(_spread([x["p99"] for x in r[n]["runs"][clients]], 1000) for n in names)
        cells += "".join(f" | {_ratio(p99(a, clients), p99(b, clients))}" for a, b in ratios)
        print(f"| {clients} | {cells} |")
    blank = " |" * len(ratios)
    rss = " | ".join(f"{r[n]['rss_mb']:.1f}" for n in names)
    rss += "".join(f" | {_ratio(r[a]['rss_mb'], r[b]['rss_mb'])}" for a, b in ratios)
    print(f"| RSS MB, main process | {rss} |")
    worker = " | ".join(f"{r[n]['worker_rss_mb']:.1f}" for n in names)
    print(f"| RSS MB, collection worker | {worker} |{blank}")
    both = " | ".join(
        "{:.1f} / {:.1f}".format(*r[n]["memory"]["all"]) if r[n].get("memory") else "-"
        for n in names
    )
    print(f"| RSS / PSS MB, all zmon processes | {both} |{blank}")
    load = " | ".join(f"{r[n]['load']:.1f}" for n in names)
    print(f"| load average during (median) | {load} |{blank}")
    if "baseline" in r:
        print_paired(r["zmon"]["runs"], r["baseline"]["runs"])
    print("\n| clients | " + " | ".join(f"{n} p50 / max ms, req/s, errors" for n in names) + " |")
    print("|---:|" + "---|" * len(names))
    for clients in TAIL_CLIENTS:
        row = []
        for n in names:
            runs = r[n]["runs"][clients]
            row.append(
                f"{1000 * statistics.median(x['p50'] for x in runs):.1f} / "
                f"{1000 * max(x['max'] for x in runs):.1f}, "
                f"{statistics.median(x['rps'] for x in runs):.0f}, "
                f"{sum(x['errors'] for x in runs)}"
            )
        print(f"| {clients} | " + " | ".join(row) + " |")
    print(
        f"\n(wrk, {seconds:g} s windows, keep-alive connections, each sending its next request "
        f"when the last answer arrived; the zmon servers run at once and take turns; p50 and "
        f"req/s: medians over the rounds, max: the largest; errors: non-2xx answers and "
        f"timeouts, summed)"
    )


# ---- 4: kernel-log matching


def admin_mtail_program(rules: list[Rule]) -> str:
    """The rules as an admin writes an mtail program: one block per fault regex, no else."""
    out = ["# One block per fault regex, as an admin writes it (no else chain: a line may",
           "# count under several rules). Generated by benchmarks/bench.py.",
           "counter kernel_faults_total by pattern, device", ""]  # fmt: skip
    for rule in rules:
        rx = rule.regex.pattern.replace("/", "\\/")
        names = sorted(rule.regex.groupindex, key=rule.regex.groupindex.__getitem__)
        group = next(
            (n for p in ("device", "path", "vdev", "controller") for n in names if n.startswith(p)),
            None,
        )
        label = f"${group}" if group else '""'
        out += [f"/{rx}/ {{", f'  kernel_faults_total["{rule.pattern}"][{label}]++', "}", ""]
    return "\n".join(out)


def run_measured(argv: list[str], stdout: Any = subprocess.DEVNULL) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds, peak RSS MB) of a command run to its end."""
    t0 = time.perf_counter()
    err = tempfile.TemporaryFile()
    proc = subprocess.Popen(argv, stdout=stdout, stderr=err, cwd=REPO)
    # The peak RSS of the program itself: VmHWM after exec, read until it exits (wait4's
    # ru_maxrss would include this process's own memory, inherited at fork).
    hwm = 0
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        with contextlib.suppress(OSError, KeyError):
            hwm = max(hwm, proc_status(proc.pid)["VmHWM"])
        time.sleep(0.02)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        err.seek(0)
        raise RuntimeError(f"{argv[0]} exited {proc.returncode}: {err.read()[-1000:]!r}")
    return wall, usage.ru_utime + usage.ru_stime, hwm / 1024


def follow_child(log: Path, out: Path, expect: int) -> None:
    """(In a child process) the kernel_log collector's file follower reading ``log`` whole."""
    from zmon.base.runner import CommandRunner
    from zmon.collectors.kernel_log import KernelLogCollector
    from zmon.collectors.kernel_log.metrics import kernel_log_metrics

    root = Path(tempfile.mkdtemp(prefix="zmon-follow-"))
    target = root / "rootfs" / "var" / "log" / "kern.log"
    target.parent.mkdir(parents=True)
    (root / "state").mkdir()
    ctx = Context(
        paths=host_paths(root),
        runner=CommandRunner(),
        options={
            **{o.name: o.default for o in KernelLogCollector.options},
            "source": "file",
            "files": ["/var/log/kern.log"],
        },
    )
    collector = KernelLogCollector(ctx)
    collector.start()  # the file does not exist yet: when it appears, all of it is new
    t0, c0 = time.perf_counter(), time.process_time()
    os.symlink(log, target)
    read = 0.0
    while read < expect:
        time.sleep(0.05)
        ms = collector.collect()
        read = ms.sample_value("zmon_kernel_log_lines_read_total") or 0.0
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    collector.close()  # events still waiting for a context line are counted now
    counts: Counter[str] = Counter()
    for fam in kernel_log_metrics(collector.tally.snapshot()).families():
        if fam.name == "zmon_kernel_log_events":
            for s in fam.samples:
                counts[s.labels["pattern"]] += int(s.value)
    rss = proc_status(os.getpid())["VmHWM"] / 1024
    out.write_text(json.dumps({"wall": wall, "cpu": cpu, "rss": rss, "counts": counts}))
    shutil.rmtree(root, ignore_errors=True)


def host_paths(root: Path):  # type: ignore[no-untyped-def]
    from zmon.collecting.registry import Paths

    return Paths(
        procfs=root / "proc", sysfs=root / "sys", rootfs=root / "rootfs", state_dir=root / "state"
    )


def prom_counts(text: str, metric: str) -> Counter[str]:
    counts: Counter[str] = Counter()
    for m in re.finditer(metric + r'\{[^}]*pattern="(\w+)"[^}]*\} (\S+)', text):
        counts[m.group(1)] += int(float(m.group(2)))
    return counts


def kernel_log_section(tmp: Path, size: int, peer_size: int) -> list[dict[str, Any]]:
    """zmon on the whole log; zmon and mtail side by side on its first ``peer_size`` bytes
    (mtail reads tens of thousands of lines per second here: a gigabyte would take it half
    an hour, and its rate per line does not depend on the length of the log)."""
    log = tmp / "kern-big.log"
    t0 = time.perf_counter()
    lines = write_kernel_log(log, size, seed=17)
    say(
        f"kernel log: {lines:,} lines, {log.stat().st_size / 2**20:.0f} MiB written in "
        f"{time.perf_counter() - t0:.0f}s"
    )
    results = [match_readers(tmp, log, lines, with_peers=False)]
    if peer_size < log.stat().st_size:
        head = tmp / "kern-head.log"
        with open(log, "rb") as src, open(head, "wb") as dst:
            data = src.read(peer_size)
            dst.write(data[: data.rfind(b"\n") + 1])
        head_lines = head.read_bytes().count(b"\n")
        results.append(match_readers(tmp, head, head_lines, with_peers=True))
    else:
        results[0] = match_readers(tmp, log, lines, with_peers=True)
    return results


def match_readers(tmp: Path, log: Path, lines: int, with_peers: bool) -> dict[str, Any]:
    rows: dict[str, dict[str, Any]] = {}
    out = tmp / "follow.json"
    wall, _, _ = run_measured(
        [
            sys.executable,
            __file__,
            "--follow-child",
            str(log),
            "--lines",
            str(lines),
            "--out",
            str(out),
        ]
    )
    child = json.loads(out.read_text())
    rows["zmon follower (kernel_log collector, file source)"] = {
        "wall": child["wall"],
        "cpu": child["cpu"],
        "rss": child["rss"],
    }
    zmon_counts = Counter(child["counts"])
    say("kernel log: zmon parse kernel-log")
    parsed = tmp / "parse.prom"
    with parsed.open("wb") as fh:
        wall, cpu, rss = run_measured(
            [sys.executable, "-m", "zmon.cli", "parse", "kernel-log", str(log)], stdout=fh
        )
    rows["zmon parse kernel-log"] = {"wall": wall, "cpu": cpu, "rss": rss}
    parse_counts = prom_counts(parsed.read_text(), "zmon_kernel_log_events_total")
    mtail = shutil.which("mtail") if with_peers else None
    peers: dict[str, Counter[str]] = {}
    if mtail:
        rules = default_rules()
        for label, program in (
            ("mtail, equivalent program (first match wins)", mtail_program(rules)),
            ("mtail, admin-style program (one regex per fault)", admin_mtail_program(rules)),
        ):
            progs = tmp / f"progs-{len(peers)}"
            progs.mkdir(exist_ok=True)
            (progs / "kernel.mtail").write_text(program)
            say(f"kernel log: {label}")
            result = tmp / f"mtail-{len(peers)}.prom"
            with result.open("wb") as fh:
                wall, cpu, rss = run_measured(
                    [
                        mtail,
                        "--one_shot",
                        "--one_shot_format",
                        "prometheus",
                        "--progs",
                        str(progs),
                        "--logs",
                        str(log),
                        "--logtostderr",
                    ],
                    stdout=fh,
                )
            rows[label] = {"wall": wall, "cpu": cpu, "rss": rss}
            metric = "zmon_kernel_log_events_total" if not peers else "kernel_faults_total"
            peers[label] = prom_counts(result.read_text(), metric)
    return {
        "lines": lines,
        "bytes": log.stat().st_size,
        "rows": rows,
        "zmon": zmon_counts,
        "parse": parse_counts,
        "peers": peers,
        "mtail": bool(mtail),
        "peers_wanted": with_peers,
    }


def print_kernel_log(r: dict[str, Any]) -> None:
    what = "zmon and its peers" if r["peers_wanted"] else "zmon alone, bounded memory"
    print(f"\n### {r['lines']:,} lines, {r['bytes'] / 2**20:,.0f} MiB: {what}\n")
    rows = r["rows"]
    zmon_rates = {k: r["lines"] / v["wall"] for k, v in rows.items() if k.startswith("zmon")}
    cpu_rates = {k: r["lines"] / v["cpu"] for k, v in rows.items() if k.startswith("zmon")}
    print(
        "| reader | wall s | CPU s | lines/s | lines per CPU s | peak RSS MB | "
        "zmon follower / it | zmon parse / it |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    follow = "zmon follower (kernel_log collector, file source)"
    parse = "zmon parse kernel-log"
    for name, v in rows.items():
        rate, cpu_rate = r["lines"] / v["wall"], r["lines"] / v["cpu"]
        ratios = [
            f"{zmon_rates[z] / rate:.1f}x ({cpu_rates[z] / cpu_rate:.1f}x)" for z in (follow, parse)
        ]
        if not r["peers_wanted"]:
            ratios = ["", ""]
        print(
            f"| {name} | {v['wall']:.1f} | {v['cpu']:.1f} | {rate:,.0f} | {cpu_rate:,.0f} | "
            f"{v['rss']:.0f} | {' | '.join(ratios)} |"
        )
    print(
        "\n(ratios: zmon's lines/s over the reader's, by wall time (by CPU time); the "
        "follower's time is from the file appearing to the last line counted)"
    )
    if r["peers_wanted"] and not r["mtail"]:
        print("\nmtail is not installed (apt-get install mtail): no peer figures.")
    total = sum(r["zmon"].values())
    agree = r["zmon"] == r["parse"]
    print(
        f"\nFault lines counted by zmon: {total:,} (follower and parse "
        f"{'agree' if agree else 'DIFFER'})."
    )
    for name, counts in r["peers"].items():
        same = (
            "the same counts per pattern"
            if counts == r["zmon"]
            else (
                f"{sum(counts.values()):,} counts (a line may match several rules)"
                if "admin" in name
                else f"counts differ: {dict(counts - r['zmon'])} / {dict(r['zmon'] - counts)}"
            )
        )
        print(f"- {name}: {same}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--quick", action="store_true", help="short pass: 60 s daemon, 64 MiB log, one repeat"
    )
    ap.add_argument("--daemon-seconds", type=float, default=None)
    ap.add_argument(
        "--daemon-checkout",
        type=Path,
        default=REPO,
        help="sections 2 and 3: the zmon checkout that serves (an earlier one, side by side)",
    )
    ap.add_argument("--kernel-log-bytes", type=int, default=None)
    ap.add_argument("--repeat", type=int, default=None, help="cycles per collector and scale")
    ap.add_argument(
        "--peer-bytes",
        type=int,
        default=64 << 20,
        help="mtail and zmon side by side on this first part of the log",
    )
    ap.add_argument("--sections", default="1,2,4,6,7", help="of 1 (with 5), 2 (with 3), 4, 6 and 7")
    ap.add_argument(
        "--abuse-seconds", type=float, default=20.0, help="section 7: each load's window"
    )
    ap.add_argument("--abuse-vdevs", type=int, default=50_000, help="section 7: the host's size")
    ap.add_argument(
        "--baseline",
        type=Path,
        help="section 6: also serve from this checkout (e.g. a git worktree of main)",
    )
    ap.add_argument("--tail-seconds", type=float, default=TAIL_SECONDS)
    ap.add_argument(
        "--tail-rounds",
        type=int,
        default=TAIL_ROUNDS,
        help="section 6: windows per server and client count, taken in turns (medians shown)",
    )
    ap.add_argument(
        "--no-peer", action="store_true", help="section 6 without node_exporter (zmon only)"
    )
    ap.add_argument(
        "--apart",
        action="store_true",
        help="run sections 1 and 4 after the daemon, not during its run (slower)",
    )
    ap.add_argument("--follow-child", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--lines", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.follow_child:
        follow_child(args.follow_child, args.out, args.lines)
        return 0
    seconds = args.daemon_seconds or (60.0 if args.quick else 600.0)
    log_bytes = args.kernel_log_bytes or ((64 << 20) if args.quick else (1 << 30))
    repeat = args.repeat or (1 if args.quick else 3)
    sections = set(args.sections.split(","))
    overlap = not args.apart
    start = time.perf_counter()
    cpu_model = next(
        (
            ln.split(":", 1)[1].strip()
            for ln in Path("/proc/cpuinfo").read_text().splitlines()
            if ln.startswith("model name")
        ),
        platform.machine(),
    )
    print("# zmon on a big storage host\n")
    print(
        f"Machine: {os.cpu_count()} CPUs ({cpu_model}); Python {platform.python_version()}; "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load average at the start "
        f"{os.getloadavg()[0]:.1f}",
        flush=True,
    )
    with tempfile.TemporaryDirectory(prefix="zmon-bench-") as name:
        tmp = Path(name)
        coll: dict[str, Any] = {}
        kernel: list[dict[str, Any]] = []
        built: dict[int, BigHost] = {}
        if sections & {"1", "2", "6"}:
            t0 = time.perf_counter()
            built[SCALES[-1]] = build_host(tmp / f"host-{SCALES[-1]}", SCALES[-1])
            say(f"host of {SCALES[-1]} vdevs built in {time.perf_counter() - t0:.0f}s")

        def others() -> None:
            """Sections 1 and 4: their figures are CPU time of their own threads and
            processes, and wall time, measured while the daemon of section 2 runs."""
            if "1" in sections:
                coll.update(collectors_section(tmp, SCALES, repeat, built))
            if "4" in sections:
                kernel.extend(kernel_log_section(tmp, log_bytes, args.peer_bytes))

        daemon = None
        if "2" in sections:
            host = built[SCALES[-1]]
            copy = tmp / "daemon-host"
            shutil.copytree(host.root, copy, symlinks=True)  # links are relative
            for prog in (copy / "bin").iterdir():  # the fake programs name their host
                prog.write_text(prog.read_text().replace(str(host.root), str(copy)))
            mine = BigHost(copy, host.shape, host.layout)
            daemon = daemon_section(
                tmp, SCALES[-1], seconds, mine, others if overlap else None, args.daemon_checkout
            )
        if daemon is None or not overlap:
            others()
        if coll:
            print_collectors(coll, SCALES)
        if daemon is not None:
            print_daemon(daemon)
        if kernel:
            print("\n## 4. Kernel-log matching")
            for result in kernel:
                print_kernel_log(result)
        if coll:
            print_sizes(coll, SCALES[-1])
        if "6" in sections:
            tail = tail_section(
                tmp,
                built[SCALES[-1]],
                args.baseline,
                args.tail_seconds,
                not args.no_peer,
                args.tail_rounds,
            )
            say(json.dumps({n: {**v, "runs": list(v["runs"].items())} for n, v in tail.items()}))
            print_tail(tail, args.tail_seconds)
        if "7" in sections:
            say("section 7: the front door under abuse")
            rows = abuse.measure(args.abuse_seconds, args.abuse_vdevs)
            abuse.print_rows(rows, args.abuse_vdevs, args.abuse_seconds)
    print(
        f"\n(benchmark took {time.perf_counter() - start:.0f} s; load average at the end "
        f"{os.getloadavg()[0]:.1f})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
