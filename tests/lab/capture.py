"""`make lab-capture`: fresh real outputs into tests/fixtures/lab/<version>/<step>/.

Runs the live lab with the guest saving, at every step, the outputs zmon's collectors read
(tests/lab/guest/driver.sh, `capture`) plus zmon's own exposition (metrics.prom), then the
slowdown run (tests/lab/slowdown.py), whose phases' arcstats, `zpool iostat -w` outputs and
Prometheus series go to <version>/slowdown/<phase>/. The hermetic tests read these files, so
they track what real OpenZFS prints.
Usage: python -m tests.lab.capture [--slowdown] [VERSION...]   (--slowdown: that run only)
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.lab.checks import VERSIONS
from tests.lab.labvm import install_reaper
from tests.lab.session import run_lab
from tests.lab.slowdown import SLOWDOWN

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "lab"


def progress(msg: str) -> None:
    print(f"[lab {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def capture(version: str) -> int:
    with tempfile.TemporaryDirectory(prefix=f"zmon-lab-capture-{version}-") as tmp:
        run = run_lab(version, Path(tmp), capture=True, progress=progress)
        sys.stdout.write(run.report())
        src = Path(tmp) / "ctl" / "captures"
        if src.is_dir():  # what zmon made of it, row by row
            (src / "report.txt").write_text(run.report())
        if run.error or not src.is_dir():
            print(run.logs)
            print(f"lab-capture {version}: run failed ({run.error}); fixtures left unchanged")
            return 1
        dest = FIXTURES / version
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(src, dest)
        size = sum(f.stat().st_size for f in dest.rglob("*") if f.is_file())
        print(
            f"lab-capture {version}: {len(list(dest.iterdir()))} steps, {size // 1024} KiB "
            f"in {dest}"
        )
        if run.failures:
            print(f"lab-capture {version}: note {len(run.failures)} failing live checks")
    return 0


def capture_slowdown(version: str) -> int:
    """The slowdown run's phases into <version>/slowdown/ (replaced whole)."""
    with tempfile.TemporaryDirectory(prefix=f"zmon-lab-slowdown-{version}-") as tmp:
        run = run_lab(version, Path(tmp), sequence=SLOWDOWN, progress=progress)
        sys.stdout.write(run.report())
        src = Path(tmp) / "ctl" / "slowdown"
        if run.error or run.failures or not src.is_dir():
            print(run.logs)
            print(f"lab-capture {version} slowdown: run failed; fixtures left unchanged")
            return 1
        (src / "report.txt").write_text(run.report())
        dest = FIXTURES / version / "slowdown"
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(src, dest)
        print(f"lab-capture {version} slowdown: {sorted(p.name for p in dest.iterdir())}")
    return 0


def main(argv: list[str]) -> int:
    install_reaper()
    only_slowdown = "--slowdown" in argv
    versions = [a for a in argv if a != "--slowdown"] or list(VERSIONS)

    def both(version: str) -> int:
        return max(capture(version), capture_slowdown(version))

    with ThreadPoolExecutor(max_workers=int(os.environ.get("ZMON_LAB_PARALLEL", "2"))) as pool:
        return max(pool.map(capture_slowdown if only_slowdown else both, versions))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
