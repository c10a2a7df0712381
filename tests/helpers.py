"""Helpers for tests: real-component gating and fixture paths."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from pathlib import Path
from typing import NoReturn

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
COLLECTORS_DIR = Path(__file__).resolve().parents[1] / "zmon" / "collectors"
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def not_run(reason: str, ci_must: str = "provide it") -> NoReturn:
    """A real-tier test cannot run here: in CI that fails it, elsewhere it skips loudly.

    The only way a test may skip (tests/test_hygiene.py keeps it so): nothing a test needs may
    silently go missing in CI.
    """
    msg = f"REAL-TIER TEST NOT RUN: {reason}"
    if IN_CI:
        pytest.fail(f"{msg} - CI must {ci_must}")
    pytest.skip(msg)


def require_tool(name: str, why: str = "") -> str:
    """Path of an external tool; in CI its absence fails the test, elsewhere it skips loudly."""
    path = shutil.which(name)
    if path:
        return path
    not_run(
        f"'{name}' is not installed{(' (' + why + ')') if why else ''}",
        "install it (tests/install-system-deps.sh)",
    )


def collector_doc(name: str) -> Path:
    """The doc page of collector ``name`` (its package's README.md)."""
    return COLLECTORS_DIR / name / "README.md"


def collector_source(name: str) -> str:
    """The source of collector ``name``: every module of its package, joined."""
    return "".join(p.read_text() for p in sorted((COLLECTORS_DIR / name).glob("*.py")))


def fixture_path(*parts: str) -> Path:
    return FIXTURES.joinpath(*parts)


def stop_process_group(
    proc: subprocess.Popen[bytes] | None, grace: float = 10.0, sig: int = signal.SIGTERM
) -> None:
    """Stop a process started with start_new_session=True, and everything in its group:
    `sig` first, SIGKILL after `grace` seconds. Never leaves it behind."""
    if proc is None or proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, sig)
    except ProcessLookupError:
        return
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
