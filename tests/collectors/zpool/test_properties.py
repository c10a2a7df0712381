"""Property tests: generated trees round-trip; garbage and truncation never escape ParseError."""

from __future__ import annotations

import json
import os
import re
import tempfile
from dataclasses import dataclass, field
from datetime import UTC
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.zpool_status import CORPUS, LAB
from zmon.base.errors import ParseError
from zmon.base.runner import CommandError, StaticRunner
from zmon.collecting.registry import Context, NoDataError, Paths
from zmon.collectors.zpool.metrics import status_metrics
from zmon.parsers.common.units import parse_nice
from zmon.parsers.zpool.zpool_status import parse_zpool_status
from zmon.parsers.zpool.zpool_status_model import ZpoolStatus

# ZMON_HYPOTHESIS_EXAMPLES=2000 for a deeper run (about 3 minutes).
EXAMPLES = int(os.environ.get("ZMON_HYPOTHESIS_EXAMPLES", "120"))
SETTINGS = settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

# ---- generated trees rendered the way zpool prints them ----

NAMES = st.from_regex(r"[a-z][a-z0-9_.:-]{0,14}", fullmatch=True).filter(
    lambda n: (
        n not in ("logs", "log", "cache", "l2cache", "spares", "spare", "special", "dedup")
        and not re.match(r"^(mirror|raidz|draid|replacing|spare|hole|indirect)", n)
    )
)
STATES = st.sampled_from(["ONLINE", "DEGRADED", "FAULTED", "OFFLINE", "REMOVED", "UNAVAIL"])
COUNTS = st.one_of(
    st.integers(0, 99999).map(str),
    st.tuples(st.integers(1, 999), st.sampled_from("KMGT")).map(
        lambda t: f"{t[0] / 100:.2f}{t[1]}"
    ),
)
NOTES = st.sampled_from(
    [
        "",
        "too many errors",
        "(resilvering)",
        "was /dev/sdx1",
        "(trimming)",
        "(12% trimmed, started at Sun Nov 29 23:59:01 2026)",
        "cannot open",
        "external device fault",
        "too many errors  (untrimmed)",
    ]
)


@dataclass
class Node:
    name: str
    state: str
    counts: tuple[str, str, str]
    note: str = ""
    children: list[Node] = field(default_factory=list)


def leaves(draw: Any, n: int) -> list[Node]:
    return [
        Node(draw(NAMES), draw(STATES), (draw(COUNTS), draw(COUNTS), draw(COUNTS)), draw(NOTES))
        for _ in range(n)
    ]


@st.composite
def pools(draw: Any) -> dict[str, Any]:
    tops: list[Node] = []
    for i in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["disk", "mirror", "raidz2", "nested"]))
        if kind == "disk":
            tops.extend(leaves(draw, 1))
            continue
        group = Node(
            f"{'mirror' if kind != 'raidz2' else 'raidz2'}-{i}",
            draw(STATES),
            ("0", "0", draw(COUNTS)),
            children=leaves(draw, draw(st.integers(1, 4))),
        )
        if kind == "nested":
            group.children.append(
                Node(f"replacing-{i}", draw(STATES), ("0", "0", "0"), children=leaves(draw, 2))
            )
        tops.append(group)
    classes = {}
    for header in draw(
        st.lists(st.sampled_from(["dedup", "special", "logs", "cache"]), unique=True, max_size=4)
    ):
        classes[header] = leaves(draw, draw(st.integers(1, 2)))
    spares = [
        (draw(NAMES), draw(st.sampled_from(["AVAIL", "INUSE"])))
        for _ in range(draw(st.integers(0, 2)))
    ]
    return {
        "name": draw(NAMES),
        "state": draw(STATES),
        "tops": tops,
        "classes": classes,
        "spares": spares,
        "step": draw(st.integers(1, 4)),
        "tab": draw(st.booleans()),
        "slow": draw(st.booleans()),
    }


def render(p: dict[str, Any]) -> tuple[str, list[tuple]]:
    """zpool status text for a generated pool, and the rows the parser should return."""
    base = "\t" if p["tab"] else "        "
    step = " " * p["step"]
    width = 40
    out = [
        f"  pool: {p['name']}",
        f" state: {p['state']}",
        "config:",
        "",
        f"{base}{'NAME':<{width}}  STATE     READ WRITE CKSUM" + ("  SLOW" if p["slow"] else ""),
    ]
    expected: list[tuple] = []

    def row(node: Node, depth: int, cls: str) -> None:
        slow = " " + ("-" if node.children else "0").rjust(5) if p["slow"] else ""
        counts = " ".join(c.rjust(5) for c in node.counts)
        note = f"  {node.note}" if node.note else ""
        name = f"{step * depth}{node.name}"
        out.append(f"{base}{name:<{width}}  {node.state:<8} {counts}{slow}{note}")
        expected.append(
            (
                node.name,
                depth,
                cls,
                node.state,
                tuple(parse_nice(c) for c in node.counts),
                node.note,
            )
        )
        for child in node.children:
            row(child, depth + 1, cls)

    row(Node(p["name"], p["state"], ("0", "0", "0"), children=p["tops"]), 0, "normal")
    for header, members in p["classes"].items():
        out.append(f"{base}{header}")
        cls = {"logs": "log"}.get(header, header)
        for node in members:
            row(node, 1, cls)
    if p["spares"]:
        out.append(f"{base}spares")
        for name, state in p["spares"]:
            note = "  currently in use" if state == "INUSE" else ""
            out.append(f"{base}{step}{name:<{width}}  {state:<8}{note}")
            expected.append((name, 1, "spare", state, (None, None, None), note.strip()))
    out += ["", "errors: No known data errors", ""]
    return "\n".join(out), expected


@SETTINGS
@given(pools())
def test_generated_trees_round_trip(p: dict[str, Any]) -> None:
    text, expected = render(p)
    status = parse_zpool_status(text, tz=UTC)
    assert len(status.pools) == 1
    pool = status.pools[0]
    got = [
        (
            v.name,
            v.depth,
            v.vdev_class,
            v.state,
            (v.read_errors, v.write_errors, v.checksum_errors),
            v.note,
        )
        for v in pool.vdevs()
    ]
    assert got == expected
    assert pool.complete, pool.incomplete
    status_metrics(status)


# ---- garbage, truncation and mangled JSON ----

SAMPLES = [*sorted(CORPUS.glob("zpool_status_*")),
           *sorted(LAB.glob("2.*/*/zpool-status-p-v-s.txt"))[::5],
           *sorted(LAB.glob("zfs-fuse-0.7.0/*-v.txt"))]  # fmt: skip
TEXTS = [p.read_text() for p in SAMPLES if p.suffix == ".txt"]


def _parse_or_parse_error(data: bytes | str) -> ZpoolStatus | None:
    try:
        status = parse_zpool_status(data)
    except ParseError:
        return None
    status_metrics(status)  # and the metrics never fail either
    return status


@SETTINGS
@given(st.binary(max_size=2000))
def test_random_bytes_only_raise_parse_error(data: bytes) -> None:
    _parse_or_parse_error(data)


@SETTINGS
@given(
    st.lists(st.sampled_from(sorted({ln for t in TEXTS for ln in t.splitlines()})), max_size=60),
    st.text(max_size=40),
)
def test_shuffled_real_lines_only_raise_parse_error(lines: list[str], noise: str) -> None:
    _parse_or_parse_error("\n".join(lines) + noise)


def _errors_line_ends(text: str) -> dict[str, int]:
    """Where each pool's first errors: line ends, by pool name (for the truncation check)."""
    ends: dict[str, int] = {}
    starts = list(re.finditer(r"^ *pool: (\S+)$", text, re.MULTILINE))
    for i, m in enumerate(starts):
        block_end = starts[i + 1].start() if i + 1 < len(starts) else len(text)
        found = re.compile(r"^errors: .*$", re.MULTILINE).search(text, m.end(), block_end)
        if found:
            ends[m.group(1)] = found.end()
    return ends


@SETTINGS
@given(st.sampled_from([t for t in TEXTS if "pool:" in t]), st.floats(0, 1))
def test_truncated_output_is_never_complete(text: str, where: float) -> None:
    cut = int(len(text) * where)
    status = _parse_or_parse_error(text[:cut])
    if status is None:
        return
    ends = _errors_line_ends(text)
    for pool in status.pools:
        if pool.name in ends and cut < ends[pool.name]:
            # Cut before its errors: line ends: incomplete, or at least no error count claimed
            # (a cut "List of errors unavailable: ..." line still says the count is unknown).
            trusted = pool.complete and pool.data_errors is not None
            assert not trusted, (pool.name, cut, text[:cut][-80:])


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)


def _paths(doc: Any, prefix: tuple = ()) -> list[tuple]:
    found = [prefix]
    if isinstance(doc, dict):
        for k, v in doc.items():
            found += _paths(v, (*prefix, k))
    return found


JSON_DOCS = [
    json.loads(p.read_text()[p.read_text().index("{") :])
    for p in [
        *sorted(CORPUS.glob("*.json")),
        LAB / "2.3.2" / "13-resilver-in-progress" / "zpool-status-int-flat.json",
    ]
]


@SETTINGS
@given(st.sampled_from(range(len(JSON_DOCS))), st.data())
def test_mangled_json_only_raises_parse_error(index: int, data: Any) -> None:
    doc = json.loads(json.dumps(JSON_DOCS[index]))
    for _ in range(data.draw(st.integers(1, 4))):
        path = data.draw(st.sampled_from(_paths(doc)[1:]))
        target = doc
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = data.draw(JSON_VALUES)
    _parse_or_parse_error(json.dumps(doc))


@SETTINGS
@given(st.binary(max_size=600), st.integers(0, 3), st.binary(max_size=80))
def test_collector_raises_only_parse_or_command_errors(out: bytes, code: int, err: bytes) -> None:
    from zmon.base.runner import CommandResult
    from zmon.collectors.zpool import JSON_ARGS, ZpoolCollector

    def answer(argv):
        return CommandResult(tuple(argv), code, out, err, 0.0)

    argvs = [("zpool", "status", *JSON_ARGS, "-v"), ("zpool", "status", "-p", "-s", "-v"),
             ("zpool", "status", "-p", "-v"), ("zpool", "status", "-v"),
             ("zpool", "status", "-P", "-L"), ("zpool", "get", "-Hp", "guid"),
             ("zpool", "get", "guid")]  # fmt: skip
    runner = StaticRunner(responses={a: answer for a in argvs})
    with tempfile.TemporaryDirectory() as state:
        ctx = Context(
            paths=Paths(state_dir=Path(state)), runner=runner, options={"timezone": "UTC"}
        )
        try:
            ZpoolCollector(ctx).collect()
        except (ParseError, CommandError, NoDataError):  # NoDataError: "modules not loaded"
            pass
