"""Helpers shared by the zpool status tests."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from tests.helpers import fixture_path
from zmon.base.runner import CommandResult
from zmon.exposition.formats import render
from zmon.exposition.metrics import MetricSet
from zmon.parsers.zpool.zpool_status import parse_zpool_status
from zmon.parsers.zpool.zpool_status_model import Pool, Vdev, ZpoolStatus

FIX = fixture_path("zpool_status")
CORPUS = FIX / "corpus"
LAB = FIX / "lab"


def parse_file(path: Path, stderr: str = "") -> ZpoolStatus:
    """Parse a fixture with dates read as UTC (the lab VM and the tests run in UTC)."""
    return parse_zpool_status(path.read_bytes(), tz=UTC, stderr=stderr)


def utc(text: str) -> float:
    """'2016-09-22 12:29:51' -> Unix seconds, reading the date as UTC."""
    return datetime.strptime(text, "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC).timestamp()


def pool_named(status: ZpoolStatus, name: str) -> Pool:
    matches = [p for p in status.pools if p.name == name]
    assert len(matches) == 1, f"pool {name!r}: {[p.name for p in status.pools]}"
    return matches[0]


def vdev_named(pool: Pool, name: str, vdev_class: str | None = None, nth: int = 0) -> Vdev:
    matches = [
        v
        for v in pool.vdevs()
        if v.name == name and (vdev_class is None or v.vdev_class == vdev_class)
    ]
    assert len(matches) > nth, f"vdev {name!r} ({vdev_class}) in {pool.name}"
    return matches[nth]


def text_of(ms: MetricSet) -> str:
    return render(ms.families()).decode()


def recorded_result(argv: Sequence[str], path: Path, code: int = 0) -> CommandResult:
    """A recorded output; leading stderr lines the capture merged in go back to stderr."""
    lines = path.read_bytes().splitlines(keepends=True)
    err = b""
    while lines and lines[0].startswith(b"errors: List of errors unavailable"):
        err += lines.pop(0)
    return CommandResult(tuple(argv), code, b"".join(lines), err, 0.1)
