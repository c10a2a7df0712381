#!/usr/bin/env python3
"""Kernel-log matching speed: zmon's scanner against naive Python matching and mtail.

Generates a large syslog-style file of realistic kernel (and other) noise with a small share of
fault lines, then times, on the same file:

- zmon: ``Scanner.feed`` on 1 MiB chunks (keyword search over the chunk, regex on candidates);
- per-line combined regex: one alternation of every rule, ``search`` on each line;
- per-line keyword test + combined regex: ``any(k in line)`` first, then the alternation;
- mtail ``--one_shot`` with an equivalent program (first rule wins, same regexes), if installed.

It prints lines per second and the ratio to zmon, and checks that the per-pattern counts agree.
This is a benchmark that prints figures, not a test. ``--write-mtail FILE`` writes the mtail
program (``benchmarks/kernel_log.mtail`` is generated this way).

    python -m benchmarks.kernel_log_bench --lines 1000000
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from zmon.parsers.kernel_log import PatternSet, Rule, Scanner, default_rules

NOISE = [
    "kernel: [UFW BLOCK] IN=eth0 OUT= MAC=52:54:00:{h}:{h}:{h} SRC=203.0.113.{n} DST=192.0.2.10 "
    "LEN=40 TOS=0x00 PREC=0x00 TTL=245 ID={n} PROTO=TCP SPT={n} DPT=22 WINDOW=1024 RES=0x00 SYN",
    'kernel: audit: type=1400 audit(1714644912.{n}:{n}): apparmor="DENIED" operation="open" '
    'profile="snap.lxd" name="/proc/{n}/mounts" pid={n} comm="lxd" requested_mask="r"',
    "kernel: usb 1-1.{n}: new high-speed USB device number {n} using ehci-pci",
    "kernel: e1000e 0000:00:19.0 eth0: NIC Link is Up 1000 Mbps Full Duplex, Flow Control: Rx/Tx",
    "kernel: EXT4-fs (sda1): mounted filesystem with ordered data mode. Opts: (null)",
    "kernel: ata{p}: SATA link up 6.0 Gbps (SStatus 133 SControl 300)",
    "kernel: ata{p}.00: configured for UDMA/133",
    "kernel: sd {p}:0:0:0: [sd{l}] 7814037168 512-byte logical blocks: (4.00 TB/3.64 TiB)",
    "kernel: sd {p}:0:0:0: [sd{l}] Write cache: enabled, read cache: enabled, supports DPO and FUA",
    "kernel: nvme nvme0: Abort status: 0x0",
    "kernel: CPU{p}: Core temperature above threshold, cpu clock throttled (total events = {n})",
    "kernel: perf: interrupt took too long ({n} > 2500), lowering kernel.perf_event_max_sample",
    "kernel: IPv6: ADDRCONF(NETDEV_CHANGE): eth0: link becomes ready",
    "kernel: ZFS: Loaded module v2.1.11-1, ZFS pool version 5000, ZFS filesystem version 5",
    "kernel: (ada{p}:ahcich{p}:0:0:0): Retrying command, 3 more tries remain",
    "kernel: mpt3sas_cm0: port enable: SUCCESS",
    "systemd[1]: Started Session {n} of user root.",
    "CRON[{n}]: (root) CMD (command -v debian-sa1 > /dev/null && debian-sa1 1 1)",
    "sshd[{n}]: Disconnected from invalid user admin 198.51.100.{n} port {n} [preauth]",
    "zed[{n}]: eid={n} class=history_event pool='tank'",
]

FAULTS = [
    "kernel: ata{p}.00: exception Emask 0x0 SAct 0x0 SErr 0x0 action 0x6 frozen",
    "kernel: ata{p}.00: failed command: FLUSH CACHE EXT",
    "kernel:          res 40/00:00:00:00:00/00:00:00:00:00/a0 Emask 0x4 (timeout)",
    "kernel: ata{p}: hard resetting link",
    "kernel: ata{p}: SATA link down (SStatus 0 SControl 300)",
    "kernel: ata{p}.00: error: {{ ICRC ABRT }}",
    "kernel: ata{p}: SError: {{ UnrecovData BadCRC }}",
    "kernel: sd {p}:0:0:0: [sd{l}] tag#{n} Sense Key : Medium Error [current]",
    "kernel: blk_update_request: critical medium error, dev sd{l}, sector {n}",
    "kernel: blk_update_request: I/O error, dev sd{l}, sector {n} op 0x1:(WRITE) flags 0x700",
    "kernel: Buffer I/O error on dev sd{l}1, logical block {n}, async page read",
    "kernel: zio pool=tank vdev=/dev/disk/by-id/wwn-0x5000c500a{n}-part1 error=5 type=1 "
    "offset={n} size=4096 flags=180880",
    "kernel: WARNING: Pool 'tank' has encountered an uncorrectable I/O failure and has been "
    "suspended.",
    "kernel: nvme nvme{p}: I/O {n} QID 5 timeout, aborting",
    "kernel: nvme nvme{p}: controller is down; will reset: CSTS=0xffffffff, PCI_STATUS=0x10",
    "kernel: mpt2sas1: log_info(0x31120303): originator(PL), code(0x12), sub_code(0x0303)",
    "kernel: INFO: task zed:{n} blocked for more than 120 seconds.",
    "kernel: ad{p}: TIMEOUT - FLUSHCACHE48 retrying (1 retry left)",
    "kernel: (ada{p}:ahcich{p}:0:0:0): CAM status: Command timeout",
    "kernel: (ada{p}:ahcich{p}:0:0:0): lost device",
    "ZFS: vdev I/O failure, zpool=tank path=/dev/ada{p}p3 offset={n} size=8192 error=5",
]


def generate(path: Path, lines: int, fault_ratio: float, seed: int = 42) -> None:
    rng = random.Random(seed)
    with open(path, "w") as fh:
        for i in range(lines):
            pool = FAULTS if rng.random() < fault_ratio else NOISE
            body = rng.choice(pool).format(
                n=rng.randrange(100000),
                h=f"{rng.randrange(256):02x}",
                p=rng.randrange(8),
                l="abcdefgh"[rng.randrange(8)],
            )
            fh.write(f"May  2 10:{i // 60 % 60:02d}:{i % 60:02d} nas {body}\n")


# ---- engines


def run_zmon(path: Path, patterns: PatternSet) -> tuple[float, int, Counter[str]]:
    scanner = Scanner(patterns)
    found: Counter[str] = Counter()
    lines = 0
    start = time.perf_counter()
    with open(path, "rb") as fh:
        rest = b""
        while chunk := fh.read(1 << 20):
            data = rest + chunk
            cut = data.rfind(b"\n") + 1
            rest = data[cut:]
            text = data[:cut].decode("utf-8", "replace")
            lines += text.count("\n")
            found.update(e.pattern for e in scanner.feed(text))
        found.update(e.pattern for e in scanner.flush())
    return time.perf_counter() - start, lines, found


def _combined(rules: list[Rule]) -> tuple[re.Pattern[str], list[str]]:
    parts = []
    for i, rule in enumerate(rules):
        renamed = rule.regex.pattern.replace("(?P<", f"(?P<r{i}_")
        parts.append(f"(?P<r{i}>{renamed})")
    return re.compile("|".join(parts)), [r.pattern for r in rules]


def run_per_line(path: Path, rules: list[Rule], prefilter: bool) -> tuple[float, int, Counter[str]]:
    combined, names = _combined(rules)
    keywords = tuple({k for r in rules for k in r.keywords})
    found: Counter[str] = Counter()
    lines = 0
    start = time.perf_counter()
    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            lines += 1
            if prefilter and not any(k in line for k in keywords):
                continue
            m = combined.search(line)
            if m is not None and m.lastgroup:  # the outer group of the alternative closes last
                found[names[int(m.lastgroup[1:])]] += 1
    return time.perf_counter() - start, lines, found


# ---- mtail


def _mtail_regex(rx: str) -> str:
    return rx.replace("/", "\\/")


def _label_block(pattern: str, groups: list[str], indent: str) -> list[str]:
    if not groups:
        return [f'{indent}zmon_kernel_log_events_total["{pattern}"][""]++']
    g, rest = groups[0], groups[1:]
    return [
        f'{indent}${g} != "" {{',
        f'{indent}  zmon_kernel_log_events_total["{pattern}"][${g}]++',
        f"{indent}}} else {{",
        *_label_block(pattern, rest, indent + "  "),
        f"{indent}}}",
    ]


def mtail_program(rules: list[Rule]) -> str:
    """An mtail program equivalent to the rules: same regexes, first matching rule wins.

    mtail has no context lines: a line that names no disk gets the controller or an empty label.
    """
    out = [
        "# Generated by benchmarks/kernel_log_bench.py --write-mtail from zmon's built-in",
        "# kernel-log patterns (zmon/patterns/default.toml); for benchmarking only.",
        "counter zmon_kernel_log_events_total by pattern, device",
        "",
    ]
    depth = 0
    for i, rule in enumerate(rules):
        names = sorted(rule.regex.groupindex, key=rule.regex.groupindex.__getitem__)
        prio = ("device", "path", "vdev", "controller")
        groups = [n for p in prio for n in names if n.startswith(p)]
        ind = "  " * depth
        out.append(f"{ind}# {rule.pattern}: {rule.help}")
        out.append(f"{ind}/{_mtail_regex(rule.regex.pattern)}/ {{")
        out.extend(_label_block(rule.pattern, groups, ind + "  "))
        if i < len(rules) - 1:
            out.append(f"{ind}}} else {{")
            depth += 1
        else:
            out.append(f"{ind}}}")
    for d in range(depth - 1, -1, -1):
        out.append("  " * d + "}")
    return "\n".join(out) + "\n"


def run_mtail(mtail: str, progs: Path, log: Path) -> tuple[float, Counter[str]]:
    start = time.perf_counter()
    res = subprocess.run(
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
            "--port",
            "0",
        ],  # no fixed port: runs in parallel
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - start
    if res.returncode != 0:
        raise RuntimeError(f"mtail failed: {res.stderr.strip()[-500:]}")
    found: Counter[str] = Counter()
    for line in res.stdout.splitlines():
        m = re.match(r'zmon_kernel_log_events_total\{.*pattern="(\w+)".*\} (\S+)', line)
        if m:
            found[m.group(1)] += int(float(m.group(2)))
    return elapsed, found


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=500_000, help="lines to generate")
    ap.add_argument("--fault-ratio", type=float, default=0.01, help="share of fault lines")
    ap.add_argument("--log", type=Path, help="use this file instead of generating one")
    ap.add_argument(
        "--naive-lines",
        type=int,
        default=20_000,
        help="the per-line Python engines run on this many first lines only",
    )
    ap.add_argument("--mtail", default=shutil.which("mtail"), help="mtail binary")
    ap.add_argument("--write-mtail", type=Path, help="write the mtail program here and exit")
    args = ap.parse_args(argv)
    rules = default_rules()
    if args.write_mtail:
        args.write_mtail.write_text(mtail_program(rules))
        return 0
    with tempfile.TemporaryDirectory(prefix="zmon-bench-") as tmp:
        log = args.log or Path(tmp) / "kern.log"
        if args.log is None:
            generate(log, args.lines, args.fault_ratio)
        head = Path(tmp) / "head.log"
        with open(log, "rb") as src, open(head, "wb") as dst:
            for _, line in zip(range(args.naive_lines), src, strict=False):
                dst.write(line)
        # (name, seconds, lines, counts, counts comparable with zmon's on the same input)
        results: list[tuple[str, float, int, Counter[str], Counter[str] | None]] = []
        secs, lines, zmon_found = run_zmon(log, PatternSet(rules))
        results.append(
            ("zmon scanner (chunk keywords + rule regex)", secs, lines, zmon_found, zmon_found)
        )
        _, head_lines, zmon_head = run_zmon(head, PatternSet(rules))
        for prefilter, name in (
            (False, "per-line combined regex"),
            (True, "per-line keyword test + combined regex"),
        ):
            secs, _, found = run_per_line(head, rules, prefilter)
            results.append(
                (f"{name} (first {head_lines} lines)", secs, head_lines, found, zmon_head)
            )
        if args.mtail:
            progs = Path(tmp) / "progs"
            progs.mkdir()
            (progs / "kernel_log.mtail").write_text(mtail_program(rules))
            empty = Path(tmp) / "empty.log"
            empty.write_text("")
            startup, _ = run_mtail(args.mtail, progs, empty)
            secs, found = run_mtail(args.mtail, progs, log)
            results.append(
                (
                    f"mtail --one_shot (incl. {startup:.2f}s start-up)",
                    secs,
                    lines,
                    found,
                    zmon_found,
                )
            )
            results.append(
                ("mtail --one_shot, start-up subtracted", secs - startup, lines, found, zmon_found)
            )
        else:
            print("mtail not found (apt-get install mtail): skipped")
        size = log.stat().st_size
        print(
            f"{lines} lines, {size / 1e6:.1f} MB, {sum(zmon_found.values())} fault lines, "
            f"Python {sys.version.split()[0]}"
        )
        base = lines / results[0][1]
        print(f"{'engine':60} {'seconds':>8} {'lines/s':>11} {'zmon is x faster':>17}")
        for name, secs, n, found, expect in results:
            differ = "" if found == expect else f"  (counts differ: {_diff(expect, found)})"
            rate = n / secs if secs > 0 else float("inf")
            print(f"{name:60} {secs:8.2f} {rate:11,.0f} {base / rate:17.1f}{differ}")
    return 0


def _diff(a: Counter[str], b: Counter[str]) -> str:
    keys = sorted(set(a) | set(b))
    return ", ".join(f"{k} {a[k]} vs {b[k]}" for k in keys if a[k] != b[k])


if __name__ == "__main__":
    sys.exit(main())
