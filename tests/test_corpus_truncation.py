"""Truncating any public corpus file at any line never yields a wrong value.

People paste the part of an output that fits. For every public sample (tests/fixtures/*/corpus,
the kernel-log and UPS samples), the test cuts the file after any line and parses the head
with the same parser ``zmon parse`` uses. The head must either be refused (ParseError) or
give a subset of the facts of the whole file: a fact is a value zmon reads (a vdev's state and
counters, an attribute's raw value, an event's class and pool ...), keyed by what it belongs
to. Where the format shows what is missing (``zpool status`` sections, ``zpool events -v``
records), a head that lost facts must also be marked partial.

Facts keyed by position (the n-th event, the n-th row of a parent) stay comparable because a
head keeps every line before the cut.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import asdict
from datetime import UTC
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import fixture_path
from zmon.base.errors import ParseError
from zmon.parsers.kernel_log import PatternSet, default_rules, scan_text
from zmon.parsers.kstat.arcstats import parse_arcstats
from zmon.parsers.smartctl.smartctl import parse_smartctl
from zmon.parsers.ups import apcupsd, nut
from zmon.parsers.zpool.ddt import parse_dedup_status, parse_zdb_histogram
from zmon.parsers.zpool.zpool_events import parse_zpool_events
from zmon.parsers.zpool.zpool_iostat import parse_zpool_iostat
from zmon.parsers.zpool.zpool_status import parse_zpool_status

Fact = tuple[Any, ...]
# (facts, marked partial) of one parse
Reading = tuple[frozenset[Fact], bool]
PATTERNS = PatternSet(default_rules())


def _zpool_status(data: bytes) -> Reading:
    status = parse_zpool_status(data, tz=UTC)
    facts: set[Fact] = set()
    for pool in status.pools:
        p = pool.name
        for attr in ("state", "data_errors", "data_errors_present", "msg_id"):
            value = getattr(pool, attr)
            if value is not None and not (attr == "data_errors" and pool.error_files):
                facts.add((p, attr, value))  # with -v the count is the list: its files are facts
        facts.update((p, "file", i, f) for i, f in enumerate(pool.error_files))
        if pool.errors_unavailable:
            facts.add((p, "errors_unavailable", True))
        for i, scan in enumerate(pool.scans):
            for key, value in asdict(scan).items():
                if value is not None and key not in ("text", "state"):
                    facts.add((p, "scan", i, key, value))
        seen: dict[tuple[Any, ...], int] = {}
        for top in pool.top_levels():
            for vdev, chain in _walk(top, (vdev_class_of(top),)):
                n = seen[chain] = seen.get(chain, -1) + 1
                key = (p, "vdev", chain, n)
                facts.add((*key, "state", vdev.state))
                for attr in ("read_errors", "write_errors", "checksum_errors", "slow_ios"):
                    value = getattr(vdev, attr)
                    if value is not None:
                        facts.add((*key, attr, value))
                if vdev.note:
                    facts.add((*key, "note", vdev.note))
    partial = any(not pool.complete for pool in status.pools)
    return frozenset(facts), partial


def vdev_class_of(vdev: Any) -> str:
    return str(vdev.vdev_class)


def _walk(vdev: Any, chain: tuple[str, ...]) -> Iterable[tuple[Any, tuple[str, ...]]]:
    here = (*chain, vdev.name)
    yield vdev, here
    for child in vdev.children:
        yield from _walk(child, here)


def _smartctl(data: bytes) -> Reading:
    r = parse_smartctl(data)
    facts: set[Fact] = set()
    for attr in (
        "model",
        "serial",
        "firmware",
        "passed",
        "temperature_celsius",
        "power_on_seconds",
        "power_cycles",
        "ata_error_log_count",
        "exit_status",
        "power_mode",
    ):
        value = getattr(r, attr)
        if value is not None:
            facts.add((attr, value))
    for a in r.attributes:
        facts.add(("attribute", a.id, a.name, a.value, a.worst, a.threshold, a.raw))
    facts.update(("message", *m) for m in r.messages)
    for t in r.self_tests:
        facts.add(("self_test", t.number, t.kind, t.outcome, t.power_on_hours))
    if r.nvme is not None:
        facts.update(("nvme", k, v) for k, v in asdict(r.nvme).items() if v is not None)
    for p in r.sas_phys:  # a head cut inside a PHY's lines has fewer of its fields, none wrong
        facts.update(
            ("sas_phy", p.port, p.phy, k, v) for k, v in asdict(p).items() if v is not None
        )
    return frozenset(facts), False


def _kernel_log(data: bytes) -> Reading:
    facts: set[Fact] = set()
    for i, e in enumerate(scan_text(data.decode("utf-8", "replace"), PATTERNS)):
        facts.add((i, "pattern", e.pattern))
        for attr in ("device", "path", "controller", "pool"):
            value = getattr(e, attr)
            if value is not None:
                facts.add((i, attr, value))
    return frozenset(facts), False


def _zpool_events(data: bytes) -> Reading:
    capture = parse_zpool_events(data)
    facts: set[Fact] = set()
    for i, ev in enumerate(capture.events):
        facts.add((i, "class", ev.event_class))
        facts.add((i, "time", ev.time_text))
        for attr in ("pool", "vdev"):
            if getattr(ev, attr):
                facts.add((i, attr, getattr(ev, attr)))
        for attr in ("eid", "time_ns"):
            if getattr(ev, attr) is not None:
                facts.add((i, attr, getattr(ev, attr)))
    if capture.dropped:
        facts.add(("dropped", capture.dropped))
    return frozenset(facts), not capture.complete


def _dedup(data: bytes) -> Reading:
    facts: set[Fact] = set()
    if b"dedup:" not in data:  # a zdb -S / -DD histogram, as zmon parse zpool-dedup reads it
        hist = parse_zdb_histogram(data)
        facts.add(("simulated", hist.simulated))
        facts.update(
            ("bucket", b, json.dumps(asdict(r), sort_keys=True)) for b, r in hist.buckets.items()
        )
        return frozenset(facts), False
    for s in parse_dedup_status(data):
        for key, value in asdict(s).items():
            if value is not None and key != "histogram":
                facts.add((s.pool, key, json.dumps(value, sort_keys=True)))
        if s.histogram is not None:
            for bucket, row in s.histogram.buckets.items():
                facts.add((s.pool, "bucket", bucket, json.dumps(asdict(row), sort_keys=True)))
    return frozenset(facts), False


def _iostat(data: bytes) -> Reading:
    parsed = parse_zpool_iostat(data)
    facts: set[Fact] = set()
    for pool in parsed.pools:
        for row in pool.rows:
            for key, value in row.values.items():
                if value is not None:
                    facts.add((pool.name, row.name, row.vdev_class, row.line_no, key, value))
    return frozenset(facts), False


def _arcstats(data: bytes) -> Reading:
    stats = parse_arcstats(data)
    return frozenset((name, e.value) for name, e in stats.fields.items()), False


def _upsc(data: bytes) -> Reading:
    return frozenset(nut.parse_upsc(data.decode("utf-8", "replace")).variables.items()), False


def _apcaccess(data: bytes) -> Reading:
    return frozenset(apcupsd.parse_apcaccess(data.decode("utf-8", "replace")).items()), False


READERS: dict[str, Callable[[bytes], Reading]] = {
    "zpool_status_": _zpool_status, "smartctl_": _smartctl, "log_": _kernel_log,
    "zpool_events_": _zpool_events, "dedup_": _dedup, "zpool_iostat_": _iostat,
    "arcstats_": _arcstats, "upsc_": _upsc, "apcaccess_": _apcaccess,
}  # fmt: skip


def _reader(path: Path) -> Callable[[bytes], Reading]:
    return next(f for prefix, f in READERS.items() if path.name.startswith(prefix))


def public_corpus() -> list[Path]:
    """Every public sample: the corpus folders, the kernel-log and the UPS samples."""
    files = [
        *fixture_path("zpool_status", "corpus").iterdir(),
        *fixture_path("zpool_status", "wider").glob("zpool_status_*"),
        *fixture_path("disks", "corpus").iterdir(),
        *fixture_path("arc", "corpus").iterdir(),
        *fixture_path("pools", "corpus").iterdir(),
        *fixture_path("perf", "corpus").iterdir(),
        *fixture_path("kernel_log").glob("log_*"),
        *fixture_path("ups").glob("upsc_*"),
        *fixture_path("ups").glob("apcaccess_*"),
        *fixture_path("ups", "wider").glob("*.txt"),
    ]
    return sorted(p for p in files if p.is_file() and p.suffix in (".txt", ".json"))


CORPUS = public_corpus()
FULL: dict[Path, Reading] = {}


def _full(path: Path) -> Reading:
    if path not in FULL:
        FULL[path] = _reader(path)(path.read_bytes())
    return FULL[path]


def test_every_public_sample_has_a_reader() -> None:
    assert len(CORPUS) >= 60
    for path in CORPUS:
        facts, _ = _full(path)
        assert facts, f"{path.name}: no facts read from the whole file"


def check_head(path: Path, lines: int) -> None:
    data = path.read_bytes()
    head = b"".join(data.splitlines(keepends=True)[:lines])
    full_facts, full_partial = _full(path)
    try:
        facts, partial = _reader(path)(head)
    except ParseError:
        return  # refused: no value at all
    wrong = facts - full_facts
    assert not wrong, f"{path.name} cut after line {lines}: values the whole file lacks: {wrong}"
    lost = full_facts - facts
    if lost and _reader(path) in (_zpool_status, _zpool_events) and not partial:
        assert (
            _whole_records_lost(path, facts)
            or _complete_by_format(lost, facts)
            or _open_ended(lost, facts)
        ), (
            f"{path.name} cut after line {lines} lost {sorted(lost, key=repr)[:3]}... "
            "but is not marked partial"
        )


def _open_ended(lost: frozenset[Fact], facts: frozenset[Fact]) -> bool:
    """Heads that end where the format has no end marker: inside the permanent-error file list
    (the last section zpool prints), or on a lone event header line (what the short list
    prints)."""
    kept_files = {f[0] for f in facts if len(f) == 4 and f[1] == "file"}
    if lost and all(f[1] == "file" and f[0] in kept_files for f in lost):
        return True
    indices = [f[0] for f in facts if isinstance(f[0], int)]
    if not indices:
        return False
    last = max(indices)
    header_only = {f[1] for f in facts if f[0] == last} <= {"class", "time"}
    return header_only and all(isinstance(f[0], int) and f[0] >= last for f in lost)


def _complete_by_format(lost: frozenset[Fact], facts: frozenset[Fact]) -> bool:
    """A head that is a whole output by its format: ``errors: List of errors unavailable``
    may be the last line zpool prints for a suspended pool (its count is then unknown)."""
    unavailable = {f[0] for f in facts if f[1:] == ("errors_unavailable", True)}
    return all(f[0] in unavailable and f[1] in ("data_errors", "data_errors_present") for f in lost)


def _whole_records_lost(path: Path, facts: frozenset[Fact]) -> bool:
    """Neither format marks its end: a head that ends between pools (zpool status) or between
    events (zpool events) is a shorter output."""
    full_facts, _ = _full(path)
    if _reader(path) is _zpool_status:
        kept = {f[0] for f in facts}
        return all(f[0] not in kept for f in full_facts - facts)
    kept = {f[0] for f in facts if isinstance(f[0], int)}
    return all(f in facts for f in full_facts if isinstance(f[0], int) and f[0] in kept)


@settings(
    max_examples=500, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(st.data())
def test_a_truncated_sample_gives_a_subset_of_its_facts(data: st.DataObject) -> None:
    path = data.draw(st.sampled_from(CORPUS), label="file")
    n = len(path.read_bytes().splitlines())
    check_head(path, data.draw(st.integers(0, n), label="lines kept"))


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_cut_before_the_last_line(path: Path) -> None:
    """The commonest paste accident, checked on every file."""
    n = len(path.read_bytes().splitlines())
    check_head(path, max(n - 1, 0))
