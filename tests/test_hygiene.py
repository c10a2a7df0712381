"""The test suite can fail: nothing skips because a part is absent, no golden file writes itself.

- A test never asks the registry whether a collector exists (``name in collectors()``): a
  removed collector must fail the tests that name it, not switch them off.
- A test skips only through ``tests.helpers.not_run`` (``require_tool`` uses it), which fails
  in CI, or on another operating system (``skipif(sys.platform ...)``).
- ``golden(name, text)`` compares with a file that must exist; only ``--update-golden``
  writes, and a run that changed a golden file or a generated doc without it fails.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.golden import GoldenFiles, WrittenFiles

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
# Modules with their own CI-failing gate: the lab (collected only under `make lab-test`).
OWN_GATES = {"tests/helpers.py", "tests/lab/test_live.py", "tests/lab/test_zfs_fuse.py"}
SKIPS = {"skip", "importorskip", "skipif"}


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    if isinstance(node, ast.Call):
        return _dotted(node.func) + "()"
    return ""


def _asks_the_registry(node: ast.AST) -> bool:
    """``x in collectors()``, ``x not in parse_kinds()``, ``collectors().get(x)``."""
    registry = {"collectors()", "parse_kinds()", "registry.collectors()"}
    if isinstance(node, ast.Compare):
        return any(
            isinstance(op, ast.In | ast.NotIn) and _dotted(right) in registry
            for op, right in zip(node.ops, node.comparators, strict=True)
        )
    return isinstance(node, ast.Call) and _dotted(node.func) in {f"{r}.get" for r in registry}


def _is_skip(node: ast.AST) -> bool:
    """``pytest.skip(...)``, ``pytest.importorskip(...)``, ``pytest.mark.skip``, or
    ``pytest.mark.skipif(...)`` unless its condition is the platform (``sys.platform``)."""
    if isinstance(node, ast.Attribute):
        return _dotted(node) == "pytest.mark.skip"
    if not isinstance(node, ast.Call):
        return False
    name = _dotted(node.func)
    if name in {"pytest.skip", "pytest.importorskip"}:
        return True
    if name == "pytest.mark.skipif":
        return not node.args or "sys.platform" not in ast.unparse(node.args[0])
    return False


def guards_in(source: str, rel: str) -> list[str]:
    """The skip-if-absent guards in the test module ``rel``, as ``file:line: code``."""
    found = []
    for node in ast.walk(ast.parse(source, rel)):
        if _asks_the_registry(node) or (rel not in OWN_GATES and _is_skip(node)):
            found.append(f"{rel}:{node.lineno}: {ast.unparse(node)[:80]}")  # type: ignore[attr-defined]
    return found


def test_no_test_skips_because_something_is_absent() -> None:
    found = [
        g
        for p in sorted(TESTS.rglob("*.py"))
        for g in guards_in(p.read_text(), p.relative_to(REPO).as_posix())
    ]
    assert not found, "name the collector, or skip through tests.helpers.not_run:\n" + "\n".join(
        found
    )


@pytest.mark.parametrize(
    "code",
    [
        "if 'txg' not in collectors():\n    pytest.skip('no txg')\n",
        "NAMES = [n for n in ('iostat', 'txg') if n in collectors()]\n",
        "cls = collectors().get('txg')\n",
        "pytestmark = pytest.mark.skipif(find_spec('pySMART') is None, reason='absent')\n",
        "def test_x():\n    pytest.importorskip('pySMART')\n",
        "@pytest.mark.skip\ndef test_x():\n    pass\n",
    ],
)
def test_the_guard_check_finds(code: str) -> None:
    assert guards_in(code, "tests/collectors/x/test_x.py"), code


def test_the_guard_check_allows_platform_guards_and_not_run() -> None:
    code = (
        "@pytest.mark.skipif(sys.platform != 'linux', reason='udev is Linux only')\n"
        "def test_x():\n    not_run('upsd needs root', 'run as root')\n"
        "NAMES = [n for n in collectors() if n not in NOT_HERE]\n"
    )
    assert guards_in(code, "tests/collectors/x/test_x.py") == []


# ---- golden files


def test_a_missing_golden_file_fails_and_is_not_written(tmp_path: Path) -> None:
    with pytest.raises(pytest.fail.Exception, match="missing"):
        GoldenFiles(tmp_path, update=False).check("new.prom", "zmon_x 1.0\n")
    assert list(tmp_path.iterdir()) == []


def test_a_different_golden_file_fails_and_is_kept(tmp_path: Path) -> None:
    (tmp_path / "a.prom").write_text("zmon_x 1.0\n")
    with pytest.raises(AssertionError, match="differs"):
        GoldenFiles(tmp_path, update=False).check("a.prom", b"zmon_x 2.0\n")
    assert (tmp_path / "a.prom").read_text() == "zmon_x 1.0\n"
    GoldenFiles(tmp_path, update=False).check("a.prom", b"zmon_x 1.0\n")


def test_update_golden_writes_new_and_changed_files(tmp_path: Path) -> None:
    update = GoldenFiles(tmp_path, update=True)
    update.check("sub/new.prom", "zmon_x 1.0\n")
    update.check("sub/new.prom", "zmon_x 2.0\n")
    assert (tmp_path / "sub" / "new.prom").read_text() == "zmon_x 2.0\n"


def test_written_files_sees_writes_creations_and_removals(tmp_path: Path) -> None:
    (tmp_path / "golden").mkdir()
    kept, changed, removed = (tmp_path / "golden" / n for n in ("kept", "changed", "removed"))
    for p in (kept, changed, removed):
        p.write_text("1\n")
    os.utime(changed, ns=(1, 1))
    watch = WrittenFiles(tmp_path, ["golden/**/*"])
    changed.write_text("2\n")
    removed.unlink()
    (tmp_path / "golden" / "new").write_text("1\n")
    (tmp_path / "elsewhere").write_text("1\n")
    assert watch.changed() == sorted([changed, removed, tmp_path / "golden" / "new"])


CONFTEST = """
from pathlib import Path
import tests.conftest as base
from tests.conftest import golden, pytest_addoption, pytest_sessionfinish, pytest_sessionstart

base.REPO = Path(__file__).parent
base.GOLDEN = base.REPO / "tests" / "golden"
"""
TESTS_OF_THE_FIXTURE = """
from pathlib import Path

def test_compares(golden):
    golden("x.prom", "zmon_x 1.0\\n")

def test_writes_behind_the_fixtures_back():
    Path(__file__).parent.joinpath("tests", "golden", "y.prom").write_text("zmon_y 1.0\\n")
"""


def _session(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "tests" / "golden").mkdir(parents=True, exist_ok=True)
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_fixture.py").write_text(TESTS_OF_THE_FIXTURE)
    env = {**os.environ, "PYTHONPATH": str(REPO), "CI": ""}
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(tmp_path),
            "-c",
            os.devnull,
            *args,
            str(tmp_path),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_outside_ci_a_run_neither_writes_nor_passes_on_missing_golden_files(
    tmp_path: Path,
) -> None:
    result = _session(tmp_path)
    out = result.stdout + result.stderr
    assert result.returncode == 1, out
    assert "1 failed, 1 passed" in out and "golden file" in out and "missing" in out, out
    assert not (tmp_path / "tests" / "golden" / "x.prom").exists()
    # The test that wrote y.prom passed, and the session failed on it.
    assert "wrote tests/golden/y.prom without --update-golden" in out, out


def test_update_golden_writes_and_passes(tmp_path: Path) -> None:
    result = _session(tmp_path, "--update-golden")
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "tests" / "golden" / "x.prom").read_text() == "zmon_x 1.0\n"
    assert _session(tmp_path).returncode == 1  # y.prom is written again: still a failure
