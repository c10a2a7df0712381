"""Helpers for tests: real-component gating and fixture paths."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
COLLECTORS_DIR = Path(__file__).resolve().parents[1] / "zmon" / "collectors"
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def require_tool(name: str, why: str = "") -> str:
    """Path of an external tool; in CI its absence fails the test, elsewhere it skips loudly."""
    path = shutil.which(name)
    if path:
        return path
    msg = f"REAL-TIER TEST NOT RUN: '{name}' is not installed{(' (' + why + ')') if why else ''}"
    if IN_CI:
        pytest.fail(msg + " - CI must install it (.ci/run)")
    pytest.skip(msg)
    raise AssertionError  # unreachable


def collector_doc(name: str) -> Path:
    """The doc page of collector ``name`` (its package's README.md)."""
    return COLLECTORS_DIR / name / "README.md"


def collector_source(name: str) -> str:
    """The source of collector ``name``: every module of its package, joined."""
    return "".join(p.read_text() for p in sorted((COLLECTORS_DIR / name).glob("*.py")))


def fixture_path(*parts: str) -> Path:
    return FIXTURES.joinpath(*parts)


def stop_process_group(proc: subprocess.Popen[bytes] | None, grace: float = 10.0,
                       sig: int = signal.SIGTERM) -> None:  # fmt: skip
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
