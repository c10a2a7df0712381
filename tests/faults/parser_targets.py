"""Every parser zmon has, with real inputs to mutate: the targets of the parser fuzzers.

A parser may refuse its input, but only with ``zmon.base.errors.ParseError`` (or a subclass):
anything else (ValueError, IndexError, RecursionError ...) is a crash that a collector would
report as a bug and ``zmon parse`` as a traceback. ``mutants`` builds inputs the way real
output goes wrong: truncated, lines lost or repeated, numbers replaced by odd ones, bytes
garbled, plus plain random bytes. ``HOSTILE`` holds the inputs that break Python itself rather
than a parser's logic: integers past Python's 4,300-digit conversion limit, nesting past the
recursion limit, 10 MB lines, NUL bytes and invalid UTF-8.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from hypothesis import strategies as st

from zmon.collecting.registry import parse_kinds
from zmon.parsers.disks import freebsd_disks
from zmon.parsers.kstat import kstat, pool_kstats
from zmon.parsers.smartctl import smartctl, smartctl_text
from zmon.parsers.ups import nut
from zmon.parsers.zfs import zfs_datasets

FIXTURES = Path(__file__).parents[1] / "fixtures"

# zmon parse KIND: bytes -> metrics, with their seed inputs
KIND_SEEDS = {
    "apcaccess": ["ups/apcaccess*.txt"],
    "upsc": ["ups/*upsc*.txt"],
    "arcstats": ["arc/corpus/*.txt", "arc/lab/*/arcstats.txt"],
    "kstat": ["arc/kstat/*.txt"],
    "kernel-log": ["kernel_log/*.txt"],
    "smartctl": ["disks/corpus/*"],
    "txgs": ["arc/kstat/txgs.txt", "arc/kstat/dmu_tx_assign.txt"],
    "zpool-dedup": ["lab/2.3.2/01-healthy/zpool-status-D-p.txt",
                    "lab/2.3.2/04-checksum-errors-repaired/zpool-status-D-p.txt"],
    "zpool-events": ["pools/events/*.txt"],
    "zpool-iostat": ["perf/corpus/*.txt"],
    "zpool-list": ["pools/lab/2.3.2-01-healthy/zpool-list*.txt"],
    "zpool-status": ["zpool_status/corpus/*"],
    "zfs-module": ["zfs_module/lab/*/module-parameters.txt",
                   "zfs_module/lab/*/derived-features-pool.txt"],
}  # fmt: skip

# parsers that no parse kind reaches, called directly
DIRECT: dict[str, tuple[Callable[[bytes], object], list[str]]] = {
    "smartctl-text": (lambda b: smartctl_text.parse_smartctl_text(b.decode("utf-8", "replace")),
                      ["disks/corpus/*.txt"]),
    "smartctl-scan": (smartctl.parse_scan, ["disks/freebsd/smartctl-scan-open.json"]),
    "smartctl-version": (smartctl.parse_version, ["disks/corpus/*.txt"]),
    "geom-disk-list": (lambda b: freebsd_disks.parse_geom_disk_list(b.decode("utf-8", "replace")),
                       ["disks/freebsd/geom-disk-list.txt"]),
    "camcontrol-devlist": (lambda b: freebsd_disks.parse_camcontrol_devlist(
        b.decode("utf-8", "replace")), ["disks/freebsd/camcontrol-devlist-v.txt"]),
    "zfs-list": (lambda b: zfs_datasets.parse_zfs_list(b, ["name", "used", "avail", "refer"]),
                 ["pools/lab/2.3.2-01-healthy/zfs-get-Hp-all-filtered.txt"]),
    "pool-txgs": (pool_kstats.parse_txgs, ["arc/kstat/txgs.txt"]),
    "pool-io": (pool_kstats.parse_io_kstat, ["arc/kstat/iostats.txt"]),
    "objset": (lambda b: pool_kstats.parse_objset("0x85", b), ["arc/kstat/objset-0x85.txt"]),
    "sysctl": (kstat.parse_sysctl, ["arc/corpus/*sysctl*"]),
    "upsc-text": (lambda b: nut.parse_upsc(b.decode("utf-8", "replace")), ["ups/*upsc*.txt"]),
}  # fmt: skip


def targets() -> dict[str, tuple[Callable[[bytes], object], list[bytes]]]:
    """name -> (parse function over bytes, seed inputs)."""
    kinds = parse_kinds()
    out: dict[str, tuple[Callable[[bytes], object], list[bytes]]] = {}
    for kind, globs in KIND_SEEDS.items():
        out[kind] = (kinds[kind][0], _seeds(globs))
    for name, (func, globs) in DIRECT.items():
        out[name] = (func, _seeds(globs))
    missing = set(kinds) - set(KIND_SEEDS)
    assert not missing, f"parse kinds without fuzz seeds: {missing}"
    return out


def _seeds(globs: list[str]) -> list[bytes]:
    seeds = [p.read_bytes() for g in globs for p in sorted(FIXTURES.glob(g)) if p.is_file()]
    assert seeds, f"no seed files for {globs}"
    return seeds


ODD_NUMBERS = [b"", b"-", b"-1", b"0", b"-0", b"1e400", b"-1e400", b"nan", b"inf", b"3.0.",
               b"99999999999999999999999999999", b"0x", b"0xZZ", b"1,5", b"\xff", b"12K",
               b"1.5Q", b"--", b"(", b")", b"%", b"\t"]  # fmt: skip

HUGE_INT = b"9" * 5000  # past sys.get_int_max_str_digits() (4300): int() raises ValueError
HUGE_NUMBERS = [HUGE_INT, b"-" + HUGE_INT, HUGE_INT + b".5", b"0x" + b"f" * 5000, HUGE_INT + b"K"]
DEEP_NESTING = [b'{"a":' * 100_000, b"[" * 100_000, b"(" * 100_000]  # RecursionError in json
LONG_LINE = 10 * 1024 * 1024
BAD_BYTES = [b"\x00", b"\x00" * 64, b"\xff\xfe", b"\xc3\x28", b"\xed\xa0\x80", b"\x80" * 8]
_NUMBER = re.compile(rb"\d+")


def hostile_line(line: bytes, kind: int, which: int, long_line: int = LONG_LINE) -> bytes:
    """``line`` with one hostile change: ``kind`` 0 huge number, 1 deep nesting, 2 a 10 MB
    line, 3 NUL or invalid UTF-8 bytes; ``which`` picks the variant."""
    end = b"\n" if line.endswith(b"\n") else b""
    body = line[: len(line) - len(end)]
    if kind == 0:
        huge = HUGE_NUMBERS[which % len(HUGE_NUMBERS)]
        if _NUMBER.search(body):  # every number on the line, so a key=value parser sees one
            return _NUMBER.sub(lambda _: huge, body) + end
        return body + b" " + huge + end
    if kind == 1:
        cut = which % (len(body) + 1)
        return body[:cut] + DEEP_NESTING[which % len(DEEP_NESTING)] + body[cut:] + end
    if kind == 2:
        filler = body if body.strip() else b"x "
        return (filler * (long_line // len(filler) + 1))[:long_line] + end
    bad = BAD_BYTES[which % len(BAD_BYTES)]
    cut = which % (len(body) + 1)
    return body[:cut] + bad + body[cut:] + end


def hostile_inputs(seed: bytes, long_line: int = LONG_LINE) -> dict[str, bytes]:
    """Hostile inputs built from one real input, by name (for explicit tests)."""
    lines = seed.splitlines(keepends=True) or [b""]
    every = {
        "huge-integers": b"".join(hostile_line(ln, 0, 0) for ln in lines),
        "huge-negative": b"".join(hostile_line(ln, 0, 1) for ln in lines),
        "nul-bytes": b"".join(hostile_line(ln, 3, i) for i, ln in enumerate(lines)),
        "invalid-utf8": b"".join(hostile_line(ln, 3, 2 + i % 4) for i, ln in enumerate(lines)),
    }
    mid = len(lines) // 2
    for name, kind, which in (("deep-json-object", 1, 0), ("deep-json-array", 1, 1),
                              ("10MB-line", 2, 0)):  # fmt: skip
        every[name] = b"".join(
            lines[:mid] + [hostile_line(lines[mid], kind, which)] + lines[mid + 1 :]
        )
    every["deep-json-alone"] = DEEP_NESTING[0]
    every["huge-integer-alone"] = HUGE_INT + b"\n"
    every["10MB-no-newline"] = b"9" * long_line
    return every


@st.composite
def mutants(draw: st.DrawFn, seeds: list[bytes], long_line: int = LONG_LINE) -> bytes:
    """A real input, damaged a few times over (or, now and then, plain random bytes)."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.binary(max_size=2048))
    lines = draw(st.sampled_from(seeds)).splitlines(keepends=True)
    for _ in range(draw(st.integers(1, 6))):
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        op = draw(st.integers(0, 7))
        line = lines[i]
        if op == 0:  # truncate the input here
            lines = lines[:i] + [line[: draw(st.integers(0, len(line)))]]
        elif op == 1:  # lose a line
            del lines[i]
        elif op == 2:  # repeat a line
            lines.insert(i, line)
        elif op == 3:  # an odd number where a token was
            tokens = line.split(b" ")
            j = draw(st.integers(0, len(tokens) - 1))
            tokens[j] = draw(st.sampled_from(ODD_NUMBERS))
            lines[i] = b" ".join(tokens)
        elif op == 4:  # a digit or punctuation changed
            if line:
                k = draw(st.integers(0, len(line) - 1))
                repl = draw(st.sampled_from([b"9", b".", b":", b" ", b"(", b"\n", b"\x00"]))
                lines[i] = line[:k] + repl + line[k + 1 :]
        elif op == 5:  # random bytes in a line
            lines[i] = draw(st.binary(max_size=80)) + b"\n"
        elif op == 6:  # two lines swapped
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        else:  # huge numbers, deep nesting, NULs or invalid UTF-8; rarely a 10 MB line
            kind = draw(st.sampled_from([0, 0, 1, 3, 3] + [2] * (draw(st.integers(0, 19)) == 0)))
            lines[i] = hostile_line(line, kind, draw(st.integers(0, 1000)), long_line)
    return b"".join(lines)
