"""The import layers of zmon hold: parsers are pure, collectors meet only through the core.

Layers, from the bottom (a module imports its own layer or lower ones only):

    base        zmon, errors, logs, metrics, exposition, gzipjoin, runner, replay, children,
                durable, failures, regexcheck, memory, chores, viewed, privileges
    parsers     zmon.parsers.*: bytes -> typed records; the stdlib and zmon.errors only
    host        zmon.host.*: devices, names, log following, state files, zfs commands, UPS clients
    core        registry, products, snapshot, scheduler, config, server, webapp, budget,
                uvicorn_glue, listen, webconfig, channel, supervisor, front
                (and the empty zmon.collectors namespace the registry discovers plugins in),
                and the status views zmon.status.* the server's page is made of,
                and zmon.judgment.* (the declared alert conditions)
    collectors  zmon.collectors.NAME.*: each imports no other collector's package
    entry       daemon, worker, cli, demo, zmon.status.cli (``zmon status`` collecting once)

Every import counts, at module level or inside a function. The README's architecture picture
draws the same layers.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ZMON = Path(__file__).resolve().parents[2] / "zmon"

BASE = {"zmon", "zmon.errors", "zmon.logs", "zmon.metrics", "zmon.exposition", "zmon.gzipjoin",
        "zmon.runner", "zmon.replay", "zmon.children", "zmon.durable", "zmon.failures",
        "zmon.regexcheck", "zmon.memory", "zmon.chores", "zmon.viewed",
        "zmon.privileges"}  # fmt: skip
# zmon.collectors itself is only the namespace the registry discovers plugins in
CORE = {
    "zmon.registry",
    "zmon.products",
    "zmon.snapshot",
    "zmon.scheduler",
    "zmon.config",
    "zmon.server",
    "zmon.listen",
    "zmon.webconfig",
    "zmon.channel",
    "zmon.supervisor",
    "zmon.front",
    "zmon.webapp",
    "zmon.budget",
    "zmon.uvicorn_glue",
    "zmon.collectors",
}
ENTRY = {"zmon.daemon", "zmon.worker", "zmon.cli", "zmon.status.cli"}
LAYERS = ("base", "parsers", "host", "core", "collectors", "entry")


def module_name(path: Path) -> str:
    parts = path.relative_to(ZMON.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(ZMON.rglob("*.py"))}


def layer(module: str) -> str:
    if module in BASE:
        return "base"
    if module.startswith("zmon.parsers"):
        return "parsers"
    if module.startswith("zmon.host"):
        return "host"
    if module in CORE or module.startswith("zmon.judgment"):
        return "core"
    if module.startswith("zmon.status") and module not in ENTRY:
        return "core"
    if module.startswith("zmon.collectors"):
        return "collectors"
    if module in ENTRY or module.startswith("zmon.demo"):
        return "entry"
    raise AssertionError(f"{module} is in no layer: add it to one in this test and the README")


def imports(module: str, path: Path, known: set[str]) -> set[str]:
    """The zmon modules ``module`` imports (``from zmon.x import y`` counts y if a module)."""
    tree = ast.parse(path.read_text(), str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
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
                found.add(name)
    return found


def graph() -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    return {m: imports(m, p, known) for m, p in mods.items()}


def stdlib_or_zmon_errors(module: str, path: Path) -> list[str]:
    """Imports of a parser that are neither the standard library nor zmon.errors/parsers."""
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
                if not (name == "zmon.errors" or name.startswith("zmon.parsers")):
                    bad.append(name)
            elif top not in sys.stdlib_module_names and top != "__future__":
                bad.append(name)
    return bad


def test_every_module_is_in_a_layer() -> None:
    for module in modules():
        assert layer(module) in LAYERS


def test_parsers_import_only_the_standard_library_and_zmon_errors() -> None:
    offenders = {
        m: bad
        for m, p in modules().items()
        if layer(m) == "parsers" and (bad := stdlib_or_zmon_errors(m, p))
    }
    assert not offenders, f"parsers must be pure (bytes -> records): {offenders}"


def test_no_import_climbs_a_layer() -> None:
    rank = {name: i for i, name in enumerate(LAYERS)}
    climbs = [
        f"{m} ({layer(m)}) -> {dep} ({layer(dep)})"
        for m, deps in graph().items()
        for dep in sorted(deps)
        if rank[layer(dep)] > rank[layer(m)]
    ]
    assert not climbs, "imports that run back up the layers:\n" + "\n".join(climbs)


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
