"""One declaration per alert: a rule, a status finding's limit or severity, or a dashboard's
health expression written anywhere but zmon/health/ (and its thresholds table and the paging
policy) fails here.

Each check is a function over source text, the rendered rule file or a dashboard's JSON, run
on the repository and on a copy with a second definition planted in it (which it must name).
The dashboards' threshold lines are held in tests/rules/test_dashboards.py.
"""

from __future__ import annotations

import ast
import json
import re
import shutil
from collections import Counter
from collections.abc import Iterable
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from alert_rules.generate import RULES_FILE
from grafana.boards import one_line
from zmon.health import shipped
from zmon.health.conditions import Condition
from zmon.health.expr import Node, Record, Selector, walk
from zmon.health.policy import POLICY, SEVERITIES
from zmon.health.thresholds import DEFAULTS, Duration, Thresholds, format_seconds
from zmon.status.diagnoses import RULES, Limits

ROOT = Path(__file__).resolve().parents[2]
STATUS = ROOT / "zmon" / "status"
CONDITIONS = shipped.conditions(DEFAULTS)
RECORDS = shipped.records(DEFAULTS)

# ---- 1. rules: no alerting or recording rule, no PromQL condition outside zmon/health/

SCANNED = ("zmon", "alert_rules", "grafana", "packaging", "collectors")
SUFFIXES = (".py", ".yml", ".yaml", ".json")
DECLARED_IN = "zmon/health/"
NOT_SCANNED = (
    DECLARED_IN,
    "alert_rules/zmon.rules.yml",  # rendered from the declarations, checked up to date
    "grafana/dashboards/",  # rendered by grafana/boards.py, checked up to date
    "alert_rules/tests/",  # promtool tests
    "zmon/demo/data/",  # fixtures
)
HOLE = "⟪⟫"  # what an f-string interpolates, in the text scanned
METRIC = r"\bzmon[_:][\w:]*(?:\{[^{}]*\})?(?:\[[^\]]*\])?(?:\s+offset\s+\w+)?"
NUMBER = rf"(?:-?\d+(?:\.\d+)?(?:e[+-]?\d+)?|{HOLE})"
COMPARISON = r"(?:==|!=|>=|<=|>|<)(?:\s*bool)?"
COMPARED = re.compile(
    rf"{METRIC}\)*\s*{COMPARISON}\s*\(*\s*(?P<after>{NUMBER})"
    rf"|(?P<before>{NUMBER})\s*{COMPARISON}\s*\(*\s*{METRIC}"
)
DEFINITION = re.compile(
    r"""(?m)(?:^|[{,])[ \t]*(?:-[ \t]*)?["']?(?P<key>alert|record)["']?[ \t]*:[ \t]*["']?"""
    r"(?P<name>[A-Za-z][\w:]*)"
)
EXPR = re.compile(
    rf"""(?m)(?:^|[{{,])[ \t]*(?:-[ \t]*)?["']?expr["']?[ \t]*:[ \t]*(?!["']?{HOLE[0]})\S"""
)


def sources(root: Path) -> list[Path]:
    """The source files under ``root`` that may hold no rule."""
    out = []
    for top in SCANNED:
        for path in sorted((root / top).rglob("*")):
            relative = path.relative_to(root).as_posix()
            if path.suffix in SUFFIXES and not relative.startswith(NOT_SCANNED):
                out.append(path)
    return out


def _joined(node: ast.JoinedStr) -> str:
    return "".join(
        v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else HOLE
        for v in node.values
    )


def texts(path: Path) -> list[tuple[int, str]]:
    """What a file says as text: a Python module's string literals (an f-string with a hole
    where it interpolates), any other file whole."""
    source = path.read_text()
    if path.suffix != ".py":
        return [(1, source)]
    tree = ast.parse(source)
    inside = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            out.append((node.lineno, _joined(node)))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) not in inside:
                out.append((node.lineno, node.value))
    return out


def _is_limit(number: str) -> bool:
    return number == HOLE or float(number) not in (0.0, 1.0)


def rule_text(path: Path) -> list[str]:
    """The rule definitions and PromQL conditions (a zmon metric against a number other than
    0 or 1: a state, or "any") that ``path`` writes itself."""
    found = []
    for line, text in texts(path):
        said = [f"{m.group('key')} {m.group('name')}" for m in DEFINITION.finditer(text)]
        said += [m.group(0).strip() for m in EXPR.finditer(text)]
        said += [
            m.group(0)
            for m in COMPARED.finditer(text)
            if _is_limit(m.group("after") or m.group("before"))
        ]
        found += [f"{path.name}:{line}: {s}" for s in said]
    return found


def rule_text_outside_the_declarations(root: Path) -> list[str]:
    return [f for path in sources(root) for f in rule_text(path)]


def test_no_rule_or_promql_condition_is_written_outside_the_declarations() -> None:
    found = rule_text_outside_the_declarations(ROOT)
    assert not found, f"declare these in zmon/health/ instead: {found}"


def test_the_scan_reads_every_source_directory() -> None:
    scanned = {p.relative_to(ROOT).parts[0] for p in sources(ROOT)}
    assert {"zmon", "alert_rules", "grafana", "packaging"} <= scanned
    names = {p.relative_to(ROOT).as_posix() for p in sources(ROOT)}
    assert "grafana/boards.py" in names and "zmon/status/diagnoses.py" in names
    assert not any(n.startswith(DECLARED_IN) for n in names)


PLANTED_RULES = {
    "alert_rules/extra.py": 'EXTRA = """\n- alert: ZfsPoolHot\n  expr: zmon_pool_temp > 70\n"""\n',
    "packaging/prometheus/extra.rules.yml": (
        "groups:\n  - name: extra\n    rules:\n      - record: zmon:pool_full:bool\n"
        "        expr: zmon:pool_capacity:ratio >= 0.8\n"
    ),
    "grafana/extra.py": (
        "from zmon.health.thresholds import DEFAULTS\n"
        'Q = f"zmon_pool_fragmentation_ratio{{instance=~\\"$instance\\"}} '
        '> {DEFAULTS.fragmentation_max}"\n'
    ),
    "zmon/status/extra.json": '{"expr": "zmon_disk_temperature_celsius > 60"}',
}


@pytest.mark.parametrize("planted", sorted(PLANTED_RULES))
def test_a_rule_planted_outside_the_declarations_is_found(tmp_path: Path, planted: str) -> None:
    for top in SCANNED:
        (tmp_path / top).mkdir()
    path = tmp_path / planted
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(PLANTED_RULES[planted])
    found = rule_text_outside_the_declarations(tmp_path)
    assert found and all(f.startswith(path.name) for f in found), found


def test_rules_in_the_declarations_and_the_promtool_tests_are_not_copies(tmp_path: Path) -> None:
    for where in ("zmon/health/extra.py", "alert_rules/tests/extra.test.yml"):
        path = tmp_path / where
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(PLANTED_RULES["alert_rules/extra.py"])
    assert rule_text_outside_the_declarations(tmp_path) == []


def test_states_and_any_are_not_limits(tmp_path: Path) -> None:
    (tmp_path / "grafana").mkdir()
    (tmp_path / "grafana" / "x.py").write_text(
        'A = f"count(zmon:vdev_errors:sum{{{H}}} > 0)"\nB = "zmon_pool_state == 1"\n'
    )
    assert rule_text_outside_the_declarations(tmp_path) == []


def rendered_rule_problems(
    rule_file: str, conditions: list[Condition], records: list[Record]
) -> list[str]:
    """How the rule file differs from one rule per declaration, each its declared PromQL."""
    rules = [r for g in yaml.safe_load(rule_file)["groups"] for r in g["rules"]]
    declared = {c.name: c.promql() for c in conditions}
    recorded = {r.name: r.expr.promql() for r in records}
    problems = [
        f"{name} declared {n} times"
        for name, n in Counter([c.name for c in conditions] + [r.name for r in records]).items()
        if n > 1
    ]
    for key, wanted in (("alert", declared), ("record", recorded)):
        counts = Counter(r[key] for r in rules if key in r)
        problems += [f"{key} {name} rendered {n} times" for name, n in counts.items() if n > 1]
        problems += [f"{key} {name} has no declaration" for name in counts if name not in wanted]
        problems += [f"{key} {name} is not rendered" for name in wanted if name not in counts]
        problems += [
            f"{key} {r[key]}: its expr is not the declaration's"
            for r in rules
            if key in r and r[key] in wanted and r["expr"] != wanted[r[key]]
        ]
    return problems


def test_every_rendered_rule_is_one_declaration() -> None:
    assert rendered_rule_problems(RULES_FILE.read_text(), CONDITIONS, RECORDS) == []


def test_a_rule_added_to_the_rule_file_by_hand_is_found() -> None:
    again = next(c for c in CONDITIONS if c.name == "ZfsPoolDegraded")
    extra = (
        "  - name: by-hand\n    rules:\n"
        f"      - alert: ZfsPoolDegraded\n        expr: {json.dumps(again.promql())}\n"
        "      - alert: ZfsPoolHot\n        expr: zmon_pool_temp > 70\n"
    )
    problems = rendered_rule_problems(RULES_FILE.read_text() + extra, CONDITIONS, RECORDS)
    assert "alert ZfsPoolDegraded rendered 2 times" in problems
    assert "alert ZfsPoolHot has no declaration" in problems
    edited = RULES_FILE.read_text().replace("zmon_pool_fragmentation_ratio > 0.7",
                                            "zmon_pool_fragmentation_ratio > 0.6")  # fmt: skip
    assert edited != RULES_FILE.read_text()
    assert rendered_rule_problems(edited, CONDITIONS, RECORDS) == [
        "alert ZfsPoolFragmentationHigh: its expr is not the declaration's"
    ]


def test_a_condition_declared_twice_is_found() -> None:
    problems = rendered_rule_problems(RULES_FILE.read_text(), [*CONDITIONS, CONDITIONS[0]], RECORDS)
    assert problems == [f"{CONDITIONS[0].name} declared 2 times"]


def policy_problems(policy_alerts: list[str], conditions: list[Condition]) -> list[str]:
    """How the paging policy's rows differ from one row per declared condition."""
    declared = {c.name for c in conditions}
    counts = Counter(policy_alerts)
    return (
        [f"{a}: {n} policy rows" for a, n in counts.items() if n > 1]
        + [f"{a}: a policy row without a condition" for a in counts if a not in declared]
        + [f"{a}: a condition without a policy row" for a in sorted(declared - set(counts))]
    )


def test_every_condition_has_one_policy_row_and_every_row_a_condition() -> None:
    assert policy_problems([p.alert for p in POLICY], CONDITIONS) == []


def test_a_policy_row_without_its_condition_or_twice_is_found() -> None:
    rows = [p.alert for p in POLICY]
    assert policy_problems([*rows, "ZfsPoolHot", rows[0]], CONDITIONS) == [
        f"{rows[0]}: 2 policy rows",
        "ZfsPoolHot: a policy row without a condition",
    ]
    assert policy_problems(rows[1:], CONDITIONS) == [f"{rows[0]}: a condition without a policy row"]


# ---- 2. status findings: limits from the thresholds table, severities from the policy

JUDGING = ("diagnoses.py", "model.py", "slowdown.py")  # the code that decides a finding
# Numbers a finding's code may compare against, besides 0 and 1: none is a limit of an alert.
ALLOWED_NUMBERS = {
    ("diagnoses.py", "RECENT_SCRUB"): "whether the advice says to run a scrub, not a finding",
    ("diagnoses.py", "HISTORY_SLACK"): "how far the history's first sample may lie inside a "
    "window (about one history step): how the history is sampled, not a limit",
}


def _number(node: ast.AST) -> float | None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _number(node.operand)
        return None if inner is None else -inner
    value = node.value if isinstance(node, ast.Constant) else None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return None


def _named_numbers(body: Iterable[ast.stmt]) -> dict[str, float]:
    """Names bound to a number literal by the statements ``body``."""
    out = {}
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                value = _number(node.value)
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if value is not None and isinstance(target, ast.Name):
                        out[target.id] = value
    return out


def _operand_numbers(node: ast.AST, names: dict[str, float]) -> Iterable[str]:
    """The number literals and number-bound names an operand of a comparison is made of
    (not an index)."""
    if isinstance(node, ast.Subscript):
        yield from _operand_numbers(node.value, names)
        return
    value = _number(node)
    if value is not None:
        if value not in (0.0, 1.0):
            yield ast.unparse(node)
        return
    if isinstance(node, ast.Name) and names.get(node.id, 0.0) not in (0.0, 1.0):
        yield node.id
    for child in ast.iter_child_nodes(node):
        yield from _operand_numbers(child, names)


def _is_count(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len"


def literal_limits(source: str, module: str) -> list[str]:
    """Comparisons in the functions of ``source`` against a number of their own: a limit
    that is not the thresholds table's. A count of samples (``len(points) < 2``) is no
    limit: how many points a rate or a median needs."""
    tree = ast.parse(source)
    module_names = _named_numbers(s for s in tree.body if isinstance(s, ast.Assign))
    found = []
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef):
            continue
        names = {**module_names, **_named_numbers(fn.body)}
        for node in ast.walk(fn):
            if not isinstance(node, ast.Compare) or _is_count(node.left):
                continue
            for operand in [node.left, *node.comparators]:
                for number in _operand_numbers(operand, names):
                    if (module, number) not in ALLOWED_NUMBERS:
                        found.append(f"{module}:{node.lineno} {fn.name}: {ast.unparse(node)}")
    return sorted(set(found))


@pytest.mark.parametrize("module", JUDGING)
def test_findings_compare_against_no_limit_of_their_own(module: str) -> None:
    assert literal_limits((STATUS / module).read_text(), module) == []


@pytest.mark.parametrize(
    "planted",
    [
        "    if p.capacity is not None and p.capacity >= 0.8:\n        yield p\n",
        "    full = 0.8\n    if p.capacity is not None and p.capacity >= full:\n        yield p\n",
        "    if ev.now - p.last_scrub_end > 35 * 86400:\n        yield p\n",
        "    if p.capacity is not None and p.capacity >= CAPACITY_FULL:\n        yield p\n",
    ],
    ids=["literal", "local name", "arithmetic", "module name"],
)
def test_a_limit_planted_in_a_finding_is_found(planted: str) -> None:
    source = (STATUS / "diagnoses.py").read_text()
    source += "\n\nCAPACITY_FULL = 0.8\n\n\ndef find_planted(ev, p):\n" + planted
    assert [f for f in literal_limits(source, "diagnoses.py") if "find_planted" in f]


def _changed(t: Thresholds) -> Thresholds:
    """``t`` with every number doubled and every duration twice as long."""
    changes: dict[str, Any] = {}
    for f in fields(t):
        value = getattr(t, f.name)
        if isinstance(value, Duration):
            changes[f.name] = Duration(format_seconds(2 * value.seconds))
        elif isinstance(value, (int, float)):
            changes[f.name] = 2 * value
    return replace(t, **changes)


def test_every_limit_of_the_findings_follows_the_thresholds_table() -> None:
    """Limits holds no value of its own: each of its fields is read from the table."""
    usual, changed = Limits.of(DEFAULTS), Limits.of(_changed(DEFAULTS))
    assert Limits.of() == usual
    same = [f.name for f in fields(Limits) if getattr(usual, f.name) == getattr(changed, f.name)]
    assert same == [], f"not read from the thresholds table: {same}"


def values_in_class(source: str, name: str) -> list[str]:
    """The number literals written in class ``name`` of ``source``."""
    tree = ast.parse(source)
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name]
    return [ast.unparse(n) for n in ast.walk(cls) if _number(n) is not None]


def test_the_limits_of_the_findings_hold_no_number() -> None:
    assert values_in_class((STATUS / "diagnoses.py").read_text(), "Limits") == []


def test_a_number_planted_in_the_limits_is_found() -> None:
    source = (STATUS / "diagnoses.py").read_text()
    planted = source.replace("    capacity_warning: float\n", "    capacity_warning: float = 0.8\n")
    assert planted != source
    assert values_in_class(planted, "Limits") == ["0.8"]


TABLE_LISTS = {
    f"thresholds.{f.name}": frozenset(value.split("|"))
    for f in fields(DEFAULTS)
    if isinstance(value := getattr(DEFAULTS, f.name), str) and "|" in value
}  # the table's lists: kernel-log patterns, SAS counters


def matcher_sets(conditions: list[Condition], records: list[Record]) -> dict[str, frozenset[str]]:
    """The values a declaration's regex matcher lists (``state=~"faulted|unavail|removed"``)."""
    out = {}
    for root in [c.expr for c in conditions] + [r.expr for r in records]:
        for node in walk(root):
            if isinstance(node, Selector):
                for label, op, value in node.matchers:
                    if op in ("=~", "!~") and "|" in value:
                        out[f'{node.name}{{{label}{op}"{value}"}}'] = frozenset(value.split("|"))
    return out


def copied_lists(source: str, module: str, lists: dict[str, frozenset[str]]) -> list[str]:
    """Literal lists in ``source`` that hold what one of ``lists`` holds."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and node.elts:
            words = [e.value for e in node.elts if isinstance(e, ast.Constant)]
            if all(isinstance(w, str) for w in words) and len(words) == len(node.elts):
                found += [
                    f"{module}:{node.lineno}: {name}"
                    for name, listed in lists.items()
                    if frozenset(words) == listed
                ]
    return found


MATCHER_SETS = matcher_sets(CONDITIONS, RECORDS)


def test_the_lists_are_found() -> None:
    assert {"thresholds.cable_patterns", "thresholds.sas_link_counters"} <= set(TABLE_LISTS)
    assert 'zmon_pool_state{state=~"faulted|unavail|removed|suspended"}' in MATCHER_SETS


@pytest.mark.parametrize("path", sources(ROOT), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_list_of_the_thresholds_table_is_copied(path: Path) -> None:
    if path.suffix == ".py":
        assert copied_lists(path.read_text(), path.name, TABLE_LISTS) == []


@pytest.mark.parametrize("path", sorted(STATUS.glob("*.py")), ids=lambda p: p.name)
def test_the_findings_copy_no_list_of_a_condition(path: Path) -> None:
    """A finding reads the states, scan functions and event classes its alert selects from
    the declaration (zmon/health/), not from a list of its own."""
    found = copied_lists(path.read_text(), path.name, MATCHER_SETS)
    assert found == []


def test_a_copied_list_is_found() -> None:
    source = (STATUS / "model.py").read_text()
    old = 'LINK_PATTERNS = tuple(DEFAULTS.cable_patterns.split("|"))'
    assert old in source
    copied = repr(tuple(DEFAULTS.cable_patterns.split("|")))
    planted = source.replace(old, f"LINK_PATTERNS = {copied}")
    assert copied_lists(planted, "model.py", TABLE_LISTS) == [
        f"model.py:{planted[: planted.index(copied)].count(chr(10)) + 1}: thresholds.cable_patterns"
    ]
    diagnoses = (STATUS / "diagnoses.py").read_text()
    old = "UNAVAILABLE = POOL_UNAVAILABLE"
    assert old in diagnoses
    planted = diagnoses.replace(old, 'UNAVAILABLE = ("faulted", "unavail", "removed", "suspended")')
    found = copied_lists(planted, "diagnoses.py", MATCHER_SETS)
    assert len(found) == 1 and "faulted|unavail|removed|suspended" in found[0], found
    # the write throttle's reasons are declared in zmon/health/ and only imported here
    assert copied_lists((STATUS / "model.py").read_text(), "model.py", MATCHER_SETS) == []


def test_every_alert_a_finding_names_is_a_declared_condition() -> None:
    """A finding says in words what a declared condition judges: it names no other alert."""
    declared = {c.name for c in CONDITIONS}
    named = {a for rule in RULES for a in rule.alerts}
    assert named - declared == set()


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _is_none(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def severity_literals(source: str) -> list[str]:
    """Severities ``source`` writes itself: a diagnosis row naming an alert with a severity
    of its own (``unpaged``), a finding naming an alert given a severity, any other severity
    word. A row or finding that names no alert says its own."""
    tree = ast.parse(source)
    allowed: set[int] = set()
    found = []
    for call in ast.walk(tree):
        if not isinstance(call, ast.Call):
            continue
        name = call.func.id if isinstance(call.func, ast.Name) else ""
        for key in ("unpaged", "severity"):
            value = _keyword(call, key)
            if not (isinstance(value, ast.Constant) and value.value in SEVERITIES):
                continue
            alert = (
                call.args[1] if name == "Rule" and len(call.args) > 1 else _keyword(call, "alert")
            )
            if _is_none(alert):
                allowed.add(id(value))
            else:
                found.append(f"{call.lineno}: {ast.unparse(call)[:80]}")
                allowed.add(id(value))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and node.value in SEVERITIES and id(node) not in allowed:
            found.append(f"{node.lineno}: {node.value!r}")
    return found


@pytest.mark.parametrize("module", ["diagnoses.py", "alerting.py"])
def test_findings_take_their_severity_from_the_policy(module: str) -> None:
    assert severity_literals((STATUS / module).read_text()) == []


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('also=("ZfsPoolCapacityCritical",))',
         'also=("ZfsPoolCapacityCritical",), unpaged="critical")'),
        ("\n# ---- pools\n", '\ndef planted(f):\n    return replace(f, severity="critical")\n'),
        ("SEVERITIES = policy.SEVERITIES", 'SEVERITIES = ("critical", "warning", "info")'),
    ],
    ids=["row", "finding", "word"],
)  # fmt: skip
def test_a_severity_planted_in_the_diagnoses_is_found(old: str, new: str) -> None:
    source = (STATUS / "diagnoses.py").read_text()
    assert old in source
    assert severity_literals(source.replace(old, new, 1))


# ---- 3. dashboards: a health panel draws a declared expression

BOARDS_DIR = ROOT / "grafana" / "dashboards"
VARIABLE_MATCHER = re.compile(r'\w+=~"\$\w+\|?"(?:, )?')
DISPLAY = (  # what a panel wraps around an expression to show it
    re.compile(r"topk\(\d+, (.*)\)"),
    re.compile(r"count\((.*)\) or vector\(0\)"),
    re.compile(r"(?:max|min|sum) by \([\w, ]*\) \((.*)\)"),
)
SELECTOR = r"[A-Za-z_:][\w:]*(?:\{[^{}]*\})?"
SERVED = re.compile(SELECTOR)  # a metric or a record as served
STATE = re.compile(rf"{SELECTOR} (?:==|!=|>) [01]")  # a state, or "any"


def declared_expressions(conditions: list[Condition], records: list[Record]) -> set[str]:
    """Every expression a declaration is built of, on one line."""
    nodes: list[Node] = [c.expr for c in conditions] + [r.expr for r in records]
    return {one_line(n.promql()) for root in nodes for n in walk(root) if isinstance(n, Node)}


def _unscoped(expr: str) -> str:
    """``expr`` without the matchers of the board's variables ($job, $instance, ...)."""
    return one_line(VARIABLE_MATCHER.sub("", expr).replace(", }", "}").replace("{}", ""))


def _shown(expr: str) -> str:
    for wrapper in DISPLAY:
        if (m := wrapper.fullmatch(expr)) is not None:
            return _shown(m.group(1))
    return expr


def _health_panels(board: dict[str, Any]) -> list[dict[str, Any]]:
    """The panels that draw a threshold or a state."""
    out = []
    for panel in board["panels"]:
        defaults = panel.get("fieldConfig", {}).get("defaults", {})
        if defaults.get("thresholds", {}).get("steps") or defaults.get("mappings"):
            out.append(panel)
    return out


def health_expression_problems(board: dict[str, Any], declared: set[str]) -> list[str]:
    """The health panels' expressions that are neither a served metric or record, a state,
    nor an expression of a declaration."""
    problems = []
    for panel in _health_panels(board):
        for target in panel["targets"]:
            expr = _shown(_unscoped(target["expr"]))
            if not (SERVED.fullmatch(expr) or STATE.fullmatch(expr) or expr in declared):
                problems.append(f"{board['uid']} {panel['title']}: {expr}")
    return problems


DECLARED = declared_expressions(CONDITIONS, RECORDS)
BOARD_FILES = sorted(BOARDS_DIR.glob("*.json"))


@pytest.mark.parametrize("path", BOARD_FILES, ids=[p.stem for p in BOARD_FILES])
def test_every_health_panel_draws_a_declared_expression(path: Path) -> None:
    assert health_expression_problems(json.loads(path.read_text()), DECLARED) == []


def test_the_health_panels_are_found() -> None:
    titles = {
        p["title"] for path in BOARD_FILES for p in _health_panels(json.loads(path.read_text()))
    }
    assert {"Capacity", "Quota use (highest 20)", "Newest snapshot age (oldest 20)",
            "Since last scrub", "Temperature", "Runtime", "Pool health"} <= titles  # fmt: skip


@pytest.mark.parametrize(
    ("title", "expr"),
    [
        ("Capacity", 'zmon_pool_allocated_bytes{instance=~"$instance"} '
                     '/ zmon_pool_size_bytes{instance=~"$instance"}'),
        ("Quota use (highest 20)", 'topk(20, zmon_dataset_used_bytes{pool=~"$pool"} '
                                   '/ zmon_dataset_quota_bytes{pool=~"$pool"})'),
        ("Temperature", 'zmon_disk_temperature_celsius{device=~"$device"} > 55'),
    ],
)  # fmt: skip
def test_a_health_expression_written_by_hand_is_found(
    tmp_path: Path, title: str, expr: str
) -> None:
    (path,) = [
        p
        for p in BOARD_FILES
        if any(x["title"] == title for x in json.loads(p.read_text())["panels"])
    ]
    copy = tmp_path / path.name
    shutil.copy(path, copy)
    board = json.loads(copy.read_text())
    (panel,) = [p for p in board["panels"] if p["title"] == title and p["type"] != "row"]
    panel["targets"][0]["expr"] = expr
    copy.write_text(json.dumps(board))
    problems = health_expression_problems(json.loads(copy.read_text()), DECLARED)
    assert len(problems) == 1 and title in problems[0], problems


BOARDS_SOURCE = ROOT / "grafana" / "boards.py"


def hand_written_lines(source: str) -> list[str]:
    """Number literals inside a panel's ``thresholds=``: a line written by hand, not read
    from the thresholds table (or the boards' own lines, OWN_LINES)."""
    found = []
    for call in ast.walk(ast.parse(source)):
        if isinstance(call, ast.Call):
            value = _keyword(call, "thresholds")
            if value is not None:
                found += [ast.unparse(n) for n in ast.walk(value) if _number(n) is not None]
    return found


def test_the_boards_write_no_line_by_hand() -> None:
    assert hand_written_lines(BOARDS_SOURCE.read_text()) == []


def test_a_line_written_by_hand_on_a_board_is_found() -> None:
    source = BOARDS_SOURCE.read_text()
    old = "(LIMITS.capacity_critical_on, "
    assert old in source
    assert hand_written_lines(source.replace(old, "(0.9, ")) == ["0.9"]
