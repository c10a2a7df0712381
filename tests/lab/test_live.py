"""zmon against real OpenZFS kernel modules in a VM, one run per OpenZFS version.

The VM (tests/lab/labvm.py) runs `zmon serve` on real pools while the guest driver walks them
through the fault sequence; at every step the host scrapes zmon over a forwarded port and
evaluates tests/lab/checks.py. Build the VM images first with `make lab` (cached).
"""

from __future__ import annotations

import pytest

from tests.helpers import IN_CI, require_tool
from tests.lab.checks import VERSIONS
from tests.lab.conftest import LabRuns
from tests.lab.labvm import Manifest

pytestmark = [pytest.mark.real, pytest.mark.slow]


def require_lab(version: str) -> Manifest:
    require_tool("qemu-system-x86_64", "the OpenZFS lab VM; `make lab` installs it")
    manifest = Manifest.load()
    why = "the lab is not built (no lab.env)" if manifest is None else manifest.missing(version)
    if why:
        msg = f"REAL-TIER TEST NOT RUN: OpenZFS {version} lab VM unavailable: {why}; run `make lab`"
        if IN_CI:
            pytest.fail(msg + " - CI must build it (make lab-test)")
        pytest.skip(msg)
    assert manifest is not None
    return manifest


@pytest.mark.parametrize("version", VERSIONS)
def test_live(version: str, lab_runs: LabRuns, capsys: pytest.CaptureFixture[str]) -> None:
    manifest = require_lab(version)

    def show(msg: str) -> None:
        with capsys.disabled():
            print(msg, flush=True)

    lab_runs.start(manifest)
    run = lab_runs.wait(version, show)
    print(run.report())
    show(f"[lab] OpenZFS {version}: report in {run.run_dir / 'report.txt'}")
    if run.error or run.failures:
        print(run.logs)
        problems = [f.line() for f in run.failures]
        if run.error:
            problems.insert(0, run.error)
        pytest.fail(
            f"OpenZFS {version} lab: {len(problems)} problem(s):\n"
            + "\n".join(problems)
            + f"\n(run dir {run.run_dir}; guest console and zmon log are printed in the "
            "captured stdout below)",
            pytrace=False,
        )
