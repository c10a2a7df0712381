"""The wheel and the sdist build, and each installs into a fresh virtualenv and runs.

`python -m build` makes the sdist and then the wheel from that sdist, so a file missing from
the sdist breaks the wheel too.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.real, pytest.mark.slow]

ROOT = Path(__file__).parents[2]


def _run(*cmd: str | Path, timeout: float = 600) -> str:
    r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, f"{cmd} failed:\n{r.stdout}\n{r.stderr}"
    return r.stdout


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    _run(sys.executable, "-m", "build", "--outdir", out, ROOT)
    return out


@pytest.mark.parametrize("kind", ["whl", "tar.gz"])
def test_installs_in_a_fresh_venv_and_runs(dist: Path, tmp_path: Path, kind: str) -> None:
    (artifact,) = dist.glob(f"zmon-*.{kind}")
    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", venv)
    _run(venv / "bin" / "python", "-m", "pip", "install", "--quiet", artifact)
    assert _run(venv / "bin" / "zmon", "--version").startswith("zmon ")
    # the demo host's captures and the kernel-log patterns are package data
    out = _run(
        venv / "bin" / "zmon", "collect", "--once", "--demo", "--path.state-dir", tmp_path / "state"
    )
    assert "zmon_pool_state{" in out
    patterns = _run(
        venv / "bin" / "python",
        "-c",
        "import importlib.resources as r; "
        "print(sorted(p.name for p in (r.files('zmon') / 'patterns').iterdir()))",
    )
    assert ".toml" in patterns
