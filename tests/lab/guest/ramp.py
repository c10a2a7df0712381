"""Runs INSIDE the lab VM (leadtime.sh): fail a rising share of one vdev's writes until ZFS
faults it, and note on the guest's clock when zmon paged, when the vdev went FAULTED and when
ZED mailed. Python's standard library only (the guest has no zmon dependencies on its path).

The share of failed writes (``zinject -e io -T write -f PCT``) rises level by level while a
writer rewrites and fsyncs a file on the pool, so the vdev sees a steady stream of writes.
ZED's diagnosis engine faults the vdev after enough I/O error reports (10 in 10 minutes on
2.1 and by default on 2.3). zmon's alerts are read from the host's Prometheus (the lab's
sidecar, reached through qemu's user network); a page is a firing alert of severity
critical about the pool or its disk. ZED's mail program appends to a log (common.sh).

Prints the results as key=value lines (the step's facts); progress goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request

LEVELS = (1, 2, 5, 10, 25, 50, 100)  # percent of the vdev's writes that fail
FAULT_MAIL = "ZFS device fault"  # the subject of statechange-notify.sh's mail


def say(msg: str) -> None:
    print(f"ramp[{time.time():.1f}] {msg}", file=sys.stderr, flush=True)


def run(*argv: str, timeout: float = 30.0) -> str:
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
    return proc.stdout


def vdev_row(pool: str, vdev: str) -> tuple[str, str]:
    """(state, "read/write/cksum") of the vdev in `zpool status`, ("", "") if not listed."""
    try:
        out = run("zpool", "status", "-p", pool)
    except subprocess.TimeoutExpired:
        return "", ""
    m = re.search(rf"^\s+{re.escape(vdev)}\s+(\S+)\s+(\d+)\s+(\d+)\s+(\d+)", out, re.M)
    return (m.group(1), "/".join(m.group(2, 3, 4))) if m else ("", "")


def fault_event_time(events: str, pool: str, vdev: str) -> float | None:
    """The kernel's time (guest clock) of the statechange event that took the vdev to FAULTED,
    from `zpool events -v` output."""
    for event in events.split("\n\n"):
        if (
            'class = "resource.fs.zfs.statechange"' in event
            and f'pool = "{pool}"' in event
            and 'vdev_state = "FAULTED"' in event
            and re.search(rf'vdev_path = "/dev/{re.escape(vdev)}\d*"', event)
        ):
            m = re.search(r"^\s+time = (0x[0-9a-f]+) (0x[0-9a-f]+)", event, re.M)
            if m:
                return int(m.group(1), 16) + int(m.group(2), 16) / 1e9
    return None


def io_ereports(pool: str) -> int:
    try:
        out = run("zpool", "events", "-H")
    except subprocess.TimeoutExpired:
        return -1
    return sum(1 for line in out.splitlines() if line.rstrip().endswith("ereport.fs.zfs.io"))


def inject(pool: str, vdev: str, pct: int) -> None:
    """From now on `pct` % of the vdev's writes fail with EIO (replacing the last level)."""
    run("zinject", "-c", "all")
    run("zinject", "-d", f"/dev/{vdev}", "-e", "io", "-T", "write", "-f", str(pct), pool)
    say(f"level {pct}% of writes to {vdev} fail")


class Prometheus:
    """The host's Prometheus. Its alert history is read with Prometheus' own timestamps (one
    per rule evaluation, on the host's clock), converted to the guest's clock with the offset
    of the fastest `time()` round trip, so a short-lived alert between two polls still counts
    and the poll interval adds no error."""

    def __init__(self, addr: str) -> None:
        self.addr = addr
        self.offset = 0.0  # host clock - guest clock
        self.best_rtt = float("inf")

    def sync_clock(self) -> None:
        before = time.time()
        data = self._get("time()")
        after = time.time()
        if isinstance(data, list) and len(data) == 2 and after - before < self.best_rtt:
            self.best_rtt = after - before
            self.offset = float(data[0]) - (before + after) / 2

    def alerts(
        self, pool: str, device: str, since: float
    ) -> dict[tuple[str, str], tuple[float, str]]:
        """Alerts about the pool or its disk active since `since` (guest clock): (name,
        pending|firing) -> (its first evaluation active, on the guest's clock; severity)."""
        window = max(1, int(time.time() - since) + 1)
        out: dict[tuple[str, str], tuple[float, str]] = {}
        for item in self.query(f"ALERTS[{window}s]"):
            lab = item["metric"]
            if lab.get("pool") != pool and lab.get("device") != device:
                continue
            first = min(float(t) for t, _ in item["values"]) - self.offset
            if first < since:
                continue
            key = (lab.get("alertname", ""), lab.get("alertstate", ""))
            if key not in out or first < out[key][0]:
                out[key] = (first, lab.get("severity", ""))
        return out

    def query(self, expr: str) -> list[dict]:
        data = self._get(expr)
        return list(data) if isinstance(data, list) else []

    def _get(self, expr: str) -> object:
        q = urllib.parse.urlencode({"query": expr})
        url = f"http://{self.addr}/api/v1/query?{q}"
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                data = json.load(r)
        except (OSError, ValueError) as exc:
            say(f"prometheus: {exc}")
            return None
        return data.get("data", {}).get("result")


class Writer(threading.Thread):
    """Rewrites and fsyncs 1 MiB of a 16 MiB file, about twice a second."""

    def __init__(self, directory: str) -> None:
        super().__init__(daemon=True)
        self.path = os.path.join(directory, "ramp.bin")
        self.stop = threading.Event()
        self.writes = 0

    def run(self) -> None:
        block = os.urandom(1 << 20)
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o644)
        try:
            while not self.stop.is_set():
                off = (self.writes % 16) << 20
                os.pwrite(fd, block[:-8] + self.writes.to_bytes(8, "little"), off)
                os.fsync(fd)
                self.writes += 1
                self.stop.wait(0.5)
        finally:
            os.close(fd)


def first_mail(path: str, since: float, subject: str = "") -> tuple[float, str] | None:
    """The first "ZEDMAIL <time> <subject>" line of the log after `since` (whose subject
    starts with `subject`)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("ZEDMAIL "):
                    _, at, title = (line.rstrip("\n").split(" ", 2) + [""])[:3]
                    if float(at) >= since and title.startswith(subject):
                        return float(at), title
    except OSError:
        pass
    return None


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pool", required=True)
    ap.add_argument("--vdev", required=True)
    ap.add_argument("--device", default="", help="the vdev's disk (default: the vdev name)")
    ap.add_argument("--prometheus", default="", help="host:port of the Prometheus, or empty")
    ap.add_argument("--mail-log", required=True)
    ap.add_argument("--write-dir", required=True)
    ap.add_argument("--level-seconds", type=float, default=15.0)
    ap.add_argument(
        "--after-fault",
        type=float,
        default=60.0,
        help="how long to wait for the page and the mail after FAULTED",
    )
    a = ap.parse_args()
    device = a.device or a.vdev
    prom = Prometheus(a.prometheus) if a.prometheus else None
    facts: dict[str, str] = {}

    if prom is not None:  # zmon's error counters at 0 in Prometheus before the first error
        series = f'zmon_vdev_write_errors_total{{pool="{a.pool}",vdev="{a.vdev}"}}'
        deadline = time.time() + 180
        while time.time() < deadline:
            got = prom.query(f"count_over_time({series}[5m])")
            if got and float(got[0]["value"][1]) >= 3:
                break
            time.sleep(2)
        else:
            say("no baseline of zmon's error counters in Prometheus")
            facts["baseline"] = "missing"

    writer = Writer(a.write_dir)
    writer.start()
    start = time.time()
    facts["ramp_start"] = f"{start:.3f}"
    levels: list[str] = []
    level, level_at = -1, 0.0
    faulted_at = 0.0
    seen: dict[tuple[str, str], tuple[float, str]] = {}  # (alertname, state) -> (time, severity)
    page: tuple[float, str] | None = None
    mail: tuple[float, str] | None = None
    fault_mail: tuple[float, str] | None = None
    give_up = start + a.level_seconds * len(LEVELS) + 120
    while True:
        now = time.time()
        due = level < 0 or now - level_at >= a.level_seconds
        if not faulted_at and level + 1 < len(LEVELS) and due:
            level, level_at = level + 1, now
            inject(a.pool, a.vdev, LEVELS[level])
            levels.append(f"{LEVELS[level]}@{now:.3f}")
        state, counts = vdev_row(a.pool, a.vdev)
        if not faulted_at and state == "FAULTED":
            faulted_at = time.time()
            run("zinject", "-c", "all")
            facts["faulted_at"] = f"{faulted_at:.3f}"
            facts["fault_pct"] = str(LEVELS[level])
            facts["errors_at_fault"] = counts
            facts["io_ereports_at_fault"] = str(io_ereports(a.pool))
            try:
                at = fault_event_time(run("zpool", "events", "-v"), a.pool, a.vdev)
            except subprocess.TimeoutExpired:
                at = None
            if at is not None:  # the kernel's own time of the state change, not the poll's
                faulted_at = at
            facts["faulted_seen_at"] = facts["faulted_at"]
            facts["faulted_at"] = f"{faulted_at:.3f}"
            say(f"{a.vdev} FAULTED (errors {counts}; statechange event at {at})")
        if prom is not None:
            prom.sync_clock()
            for (name, state), (at, severity) in prom.alerts(a.pool, device, start).items():
                if (name, state) not in seen:
                    say(f"alert {name} {state} ({severity}) since {at - start:+.1f} s")
                seen[name, state] = (at, severity)
            firing = [(at, name) for (name, st), (at, sev) in seen.items()
                      if st == "firing" and sev == "critical"]  # fmt: skip
            page = min(firing) if firing else None
        if mail is None:
            mail = first_mail(a.mail_log, start)
            if mail is not None:
                say(f"ZED mail: {mail[1]}")
        if fault_mail is None:
            fault_mail = first_mail(a.mail_log, start, FAULT_MAIL)
        if faulted_at:
            have_all = (page is not None or prom is None) and fault_mail is not None
            if have_all or time.time() - faulted_at >= a.after_fault:
                break
        elif now >= give_up:
            say(f"{a.vdev} not FAULTED after {now - start:.0f} s")
            break
        time.sleep(1.0)

    writer.stop.set()
    writer.join(10)
    facts["ramp_levels"] = ",".join(levels)
    facts["writes"] = str(writer.writes)
    if page is not None:
        facts["page_at"] = f"{page[0]:.3f}"
        facts["page_alert"] = page[1]
    if mail is not None:
        facts["mail_at"] = f"{mail[0]:.3f}"
        facts["mail_subject"] = mail[1]
    if fault_mail is not None:
        facts["fault_mail_at"] = f"{fault_mail[0]:.3f}"
    if prom is not None:
        facts["clock_offset"] = f"{prom.offset:.3f}"
        facts["clock_rtt"] = f"{prom.best_rtt:.3f}"
    for (name, state), (at, severity) in sorted(seen.items(), key=lambda kv: kv[1][0]):
        facts[f"alert.{state}.{name}"] = f"{severity} {at:.3f}"
    for k, v in facts.items():
        print(f"{k}={v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
