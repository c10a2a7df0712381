"""The code stays clean: ruff lint and format, and mypy --strict (pinned in the test extra)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[1]
LINTED = ["zmon", "tests", "alert_rules", "grafana", "benchmarks"]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600
    )


def test_ruff_is_clean() -> None:
    result = run("ruff", "check", *LINTED, "--output-format", "concise")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_is_clean() -> None:
    """The formatter's output is the layout; ``# fmt: skip`` only keeps data tables aligned."""
    result = run("ruff", "format", "--check", *LINTED)
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_is_clean() -> None:
    result = run("mypy")  # the files and strictness are in pyproject.toml
    assert result.returncode == 0, result.stdout + result.stderr
