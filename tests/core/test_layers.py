"""zmon's folders are its layers: an import never runs back up, parsers are pure, and
collectors meet only through the layers below them.

The order of the folders is ``zmon.LAYERS``; the modules at the top of the package (the
``zmon`` command, the daemon, ``zmon status``) are the entry floor above them all. Every
import counts, at module level or inside a function. Parsers name no metric: a collector's
catalogue names and documents its metrics.
"""

from __future__ import annotations

import ast
import io
import re
import sys
import tokenize
from pathlib import Path

import pytest

from zmon import LAYERS

ZMON = Path(__file__).resolve().parents[2] / "zmon"
ENTRY = "entry"


def module_name(path: Path) -> str:
    parts = path.relative_to(ZMON.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(ZMON.rglob("*.py"))}


def layer(module: str) -> str:
    """The folder ``module`` lies in under zmon/, or the entry floor for a top-level module."""
    parts = module.split(".")
    if module == "zmon":
        return LAYERS[0]  # the package's root holds only its version and this order
    if len(parts) == 2 and not (ZMON / parts[1]).is_dir():
        return ENTRY
    return parts[1]


def floor(layer_name: str) -> int:
    return len(LAYERS) if layer_name == ENTRY else LAYERS.index(layer_name)


def imports(module: str, path: Path, known: set[str]) -> dict[str, int]:
    """The zmon modules ``module`` imports, each with the line of its first import
    (``from zmon.x import y`` counts y if it is a module)."""
    tree = ast.parse(path.read_text(), str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            names = [
                f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names
            ]
        else:
            continue
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name and name != module:
                found.setdefault(name, node.lineno)
    return found


def graph() -> dict[str, dict[str, int]]:
    mods = modules()
    known = set(mods)
    return {m: imports(m, p, known) for m, p in mods.items()}


def stdlib_or_zmon_errors(module: str, path: Path) -> list[str]:
    """Imports of a parser that are neither the standard library nor zmon.base.errors/parsers."""
    bad = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names = [node.module or ""]
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            if top == "zmon":
                if not (name == "zmon.base.errors" or name.startswith("zmon.parsers")):
                    bad.append(name)
            elif top not in sys.stdlib_module_names and top != "__future__":
                bad.append(name)
    return bad


def test_every_folder_is_a_layer() -> None:
    folders = {p.parent.relative_to(ZMON).parts[0] for p in ZMON.glob("*/**/*.py")}
    assert folders == set(LAYERS), (
        f"folders of zmon/ that are no layer: {sorted(folders - set(LAYERS))}; "
        f"layers without a folder: {sorted(set(LAYERS) - folders)} (zmon.LAYERS lists them)"
    )


def test_parsers_import_only_the_standard_library_and_zmon_errors() -> None:
    offenders = {
        m: bad
        for m, p in modules().items()
        if layer(m) == "parsers" and (bad := stdlib_or_zmon_errors(m, p))
    }
    assert not offenders, f"parsers must be pure (bytes -> records): {offenders}"


def climbs(edges: dict[str, dict[str, int]]) -> list[str]:
    """Each import of a module from a higher floor, as ``file:line: a (floor) imports b
    (floor)``."""
    paths = modules()
    return [
        f"{paths[m].relative_to(ZMON.parent)}:{line}: {m} ({layer(m)}) imports {dep} ({layer(dep)})"
        for m, deps in sorted(edges.items())
        for dep, line in sorted(deps.items())
        if floor(layer(dep)) > floor(layer(m))
    ]


METRIC_NAME = re.compile(r"\bzmon_[a-z0-9_]+")


def metric_names_in(source: str) -> list[str]:
    """The zmon metric names (``zmon_...``) in a module's strings, docstrings and comments.

    Every family zmon exports is named ``zmon_*``, and no kstat field, module parameter, sysctl
    or command output that a parser reads begins so; identifiers in the code are not looked
    at. ``zfs_`` cannot be checked the same way (module parameters such as ``zfs_arc_max``
    begin so), nor need ``node_`` be (zmon exports no node_exporter family).
    """
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return [
        name
        for tok in tokens
        if tok.type != tokenize.NAME
        for name in METRIC_NAME.findall(tok.string)
    ]


def test_parsers_name_no_metrics() -> None:
    offenders = {
        m: names
        for m, p in modules().items()
        if layer(m) == "parsers" and (names := metric_names_in(p.read_text()))
    }
    assert not offenders, (
        f"parsers return records; metric names and help live in the collector's catalogue: "
        f"{offenders}"
    )


@pytest.mark.parametrize(
    "source, expected",
    [
        ('TABLE = {"hits": "zmon_arc_hits_total"}\n', ["zmon_arc_hits_total"]),
        ('NAME = f"zmon_arc_{field}_hits_total"\n', ["zmon_arc_"]),
        ('"""Exported as ``zmon_ups_info`` labels."""\n', ["zmon_ups_info"]),
        ('PARAM = "zfs_arc_max"  # a module parameter, not a metric\n', []),
        ('zmon_identifier = read("kstat.zfs.misc.arcstats", "zmon.base.errors")\n', []),
    ],
)
def test_the_metric_name_finder(source: str, expected: list[str]) -> None:
    assert metric_names_in(source) == expected


def test_no_import_climbs_a_layer() -> None:
    found = climbs(graph())
    assert not found, "imports that run back up the layers (zmon.LAYERS):\n" + "\n".join(found)


def test_a_climbing_import_is_named_with_its_file_and_line() -> None:
    found = climbs({"zmon.parsers.zpool.zpool_status": {"zmon.exposition.metrics": 12}})
    assert found == [
        "zmon/parsers/zpool/zpool_status.py:12: zmon.parsers.zpool.zpool_status (parsers) "
        "imports zmon.exposition.metrics (exposition)"
    ]


def collector_package(module: str) -> str | None:
    parts = module.split(".")
    return ".".join(parts[:3]) if len(parts) >= 3 and parts[1] == "collectors" else None


def test_collectors_do_not_import_each_other() -> None:
    crossings = [
        f"{m} -> {dep}"
        for m, deps in graph().items()
        if (own := collector_package(m))
        for dep in sorted(deps)
        if (other := collector_package(dep)) and other != own
    ]
    assert not crossings, (
        "collectors meet only through the core (declare a Product, or ask the registry):\n"
        + "\n".join(crossings)
    )


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycles() -> None:
    edges = {m: {d for d in deps if d != m.rpartition(".")[0]} for m, deps in graph().items()}
    assert cycles(edges) == []


@pytest.mark.parametrize(
    "edges, expected",
    [({"a": {"b"}, "b": {"a"}}, [["a", "b"]]), ({"a": {"b"}, "b": set()}, [])],
)
def test_the_cycle_finder_finds_cycles(edges: dict[str, set[str]], expected: list) -> None:  # type: ignore[type-arg]
    assert cycles(edges) == expected
