"""Garbage in never raises anything but ParseError, and parsed garbage never exports NaN."""

from __future__ import annotations

import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.perf_lab import lab
from zmon.base.errors import ParseError
from zmon.collectors.iostat import parse_zpool_iostat_kind
from zmon.collectors.txg import parse_txgs_kind
from zmon.collectors.zfs_kstats import parse_kstat_kind
from zmon.exposition.metrics import MetricSet
from zmon.parsers.kstat.txgs import parse_dmu_tx_assign, parse_txgs
from zmon.parsers.zpool.zpool_iostat import parse_zpool_iostat

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
KINDS = (parse_zpool_iostat_kind, parse_txgs_kind, parse_kstat_kind)
PARSERS = (parse_zpool_iostat, parse_txgs, parse_dmu_tx_assign)
SAMPLES = (
    lab("2.3.2", "01-healthy", "zpool-iostat-v-p-l.txt"),
    lab("2.3.2", "01-healthy", "zpool-iostat-H-p-v-l-q.txt"),
    lab("2.1.11", "01-healthy", "zpool-iostat-p-w.txt")[:4000],
    lab("2.3.2", "01-healthy", "kstat-tank-txgs.txt"),
    lab("2.3.2", "01-healthy", "kstat-tank-dmu_tx_assign.txt"),
)
TOKENS = st.sampled_from(
    [
        "-",
        "0",
        "18446744073709551615",
        "1.5K",
        "3ms",
        "x",
        "\t",
        "  ",
        "logs",
        "nan",
        "inf",
        "-1",
        "txg",
        "C",
        "1 ns",
        "==> a <==",
        "",
        "²",
        "٣",
    ]
)


def finite(ms: MetricSet) -> None:
    for fam in ms.families():
        for sample in fam.samples:
            assert math.isfinite(sample.value), (fam.name, sample)


def run_all(data: bytes) -> None:
    for kind in KINDS:
        try:
            finite(kind(data))
        except ParseError:
            pass
    for parse in PARSERS:
        try:
            parse(data)
        except ParseError:
            pass


@SETTINGS
@given(st.binary(max_size=400))
def test_random_bytes(data: bytes) -> None:
    run_all(data)


@SETTINGS
@given(st.lists(st.lists(TOKENS, max_size=8).map(" ".join), max_size=12).map("\n".join))
def test_random_token_lines(text: str) -> None:
    run_all(text.encode())


@SETTINGS
@given(st.sampled_from(SAMPLES), st.data())
def test_mutated_captures(sample: bytes, data: st.DataObject) -> None:
    lines = sample.decode().splitlines()
    for _ in range(data.draw(st.integers(1, 4))):
        op = data.draw(st.sampled_from(["drop", "replace", "truncate", "dup"]))
        if not lines:
            break
        at = data.draw(st.integers(0, len(lines) - 1))
        if op == "drop":
            del lines[at]
        elif op == "dup":
            lines.insert(at, lines[at])
        elif op == "truncate":
            lines[at] = lines[at][: data.draw(st.integers(0, len(lines[at])))]
        else:
            words = lines[at].split()
            if words:
                words[data.draw(st.integers(0, len(words) - 1))] = data.draw(TOKENS)
            lines[at] = " ".join(words)
    run_all("\n".join(lines).encode())
