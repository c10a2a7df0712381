"""Pieces compressed apart join into one ordinary gzip file (zmon/exposition/gzipjoin.py)."""

from __future__ import annotations

import gzip
import os
import subprocess
import zlib

import pytest

from tests.helpers import require_tool
from zmon.exposition import gzipjoin
from zmon.exposition.formats import FORMATS
from zmon.exposition.metrics import MetricSet
from zmon.exposition.snapshot import CollectorState, Snapshot

TEXTS = [os.urandom(3000), b"", b"# HELP a b\n" * 5000, b"x", bytes(range(256)) * 300]


def joined(texts: list[bytes]) -> bytes:
    return gzipjoin.join([gzipjoin.piece(t) for t in texts])


def test_pieces_join_into_one_gzip_member() -> None:
    data = joined(TEXTS)
    assert gzip.decompress(data) == b"".join(TEXTS)
    inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)  # a client that reads one member only
    assert inflate.decompress(data) == b"".join(TEXTS)
    assert inflate.eof and inflate.unused_data == b""


def test_no_pieces_is_an_empty_file() -> None:
    assert gzip.decompress(gzipjoin.join([])) == b""


@pytest.mark.parametrize(
    "sizes", [(0, 0), (1, 0), (0, 5), (3000, 1), (1, (1 << 20) + 7), (5, 3 << 20)]
)
def test_crc32_combine_is_the_crc_of_the_joined_text(sizes: tuple[int, int]) -> None:
    a, b = os.urandom(sizes[0]), os.urandom(sizes[1])
    got = gzipjoin.crc32_combine(zlib.crc32(a), zlib.crc32(b), len(b))
    assert got == zlib.crc32(a + b)


def test_a_piece_inflates_to_its_text_alone() -> None:
    for text in TEXTS:
        p = gzipjoin.piece(text)
        assert gzipjoin.inflate(p) == text and (p.crc, p.size) == (zlib.crc32(text), len(text))


def test_snapshot_serves_the_gzip_of_its_text_in_each_format() -> None:
    snap = Snapshot()
    for i in range(3):
        ms = MetricSet()
        ms.counter(f"zmon_t_events{i}_total", "Counted.", i, {"c": str(i)})
        ms.gauge(f"zmon_t_own{i}", "Only this collector's.", i)
        state = CollectorState(f"c{i}", 15.0, 10.0, success=True)
        state.publish(ms.families())
        snap.add(state)
    snap.rerender()
    for fmt in FORMATS:
        expo = snap.exposition_in(fmt)
        assert b'zmon_t_events1_total{c="1"} 1.0\n' in expo.text
        assert gzip.decompress(expo.gzipped) == expo.text


@pytest.mark.real
def test_gzip_program_inflates_it(tmp_path) -> None:  # type: ignore[no-untyped-def]
    gz = require_tool("gzip", "Debian package gzip")
    path = tmp_path / "body.gz"
    path.write_bytes(joined(TEXTS))
    out = subprocess.run([gz, "--test", str(path)], capture_output=True, timeout=30)
    assert out.returncode == 0, out.stderr
    out = subprocess.run([gz, "-dc", str(path)], capture_output=True, timeout=30)
    assert out.returncode == 0 and out.stdout == b"".join(TEXTS)
