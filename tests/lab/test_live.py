"""zmon against real OpenZFS kernel modules in a VM, runs per OpenZFS version.

The VM (tests/lab/labvm.py) runs `zmon serve` on real pools while the guest driver walks them
through the fault sequence; at every step the host scrapes zmon over a forwarded port and
evaluates tests/lab/checks.py. A second boot ramps I/O errors on one disk until ZFS faults it
and prints the lead time of zmon's first page and ZED's first mail (tests/lab/leadtime.py). A
third reads working sets larger and smaller than the ARC and slows one disk: zmon's slowdown
records must tell memory from disk, and the run prints the estimate of what a larger ARC would
buy against the hit ratio measured after raising it (tests/lab/slowdown.py).
Build the VM images first with `make lab` (cached).
"""

from __future__ import annotations

import pytest

from tests.helpers import IN_CI, require_tool
from tests.lab.checks import VERSIONS
from tests.lab.conftest import LabRuns
from tests.lab.labvm import Manifest
from tests.lab.leadtime import LEAD_TIME
from tests.lab.session import FAULTS, LabRun, Sequence
from tests.lab.slowdown import SLOWDOWN

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


def _run(
    sequence: Sequence, version: str, lab_runs: LabRuns, capsys: pytest.CaptureFixture[str]
) -> LabRun:
    manifest = require_lab(version)

    def show(msg: str) -> None:
        with capsys.disabled():
            print(msg, flush=True)

    lab_runs.start(manifest)
    run = lab_runs.wait(sequence, version, show)
    print(run.report())
    for line in run.summary:
        show(f"[lab] {line}")
    show(
        f"[lab] OpenZFS {version} {sequence.name}: {run.seconds:.0f} s from boot to result; "
        f"report in {run.run_dir / 'report.txt'}"
    )
    if run.error or run.failures:
        print(run.logs)
        problems = [f.line() for f in run.failures]
        if run.error:
            problems.insert(0, run.error)
        pytest.fail(
            f"OpenZFS {version} lab ({sequence.name}): {len(problems)} problem(s):\n"
            + "\n".join(problems)
            + f"\n(run dir {run.run_dir}; guest console and zmon log are printed in the "
            "captured stdout below)",
            pytrace=False,
        )
    return run


@pytest.mark.parametrize("version", VERSIONS)
def test_live(version: str, lab_runs: LabRuns, capsys: pytest.CaptureFixture[str]) -> None:
    _run(FAULTS, version, lab_runs, capsys)


@pytest.mark.parametrize("version", VERSIONS)
def test_lead_time(version: str, lab_runs: LabRuns, capsys: pytest.CaptureFixture[str]) -> None:
    """ZFS faults a disk whose writes fail ever more often: zmon pages, ZED mails; the lead
    times before FAULTED are printed (and in the run's report.txt)."""
    run = _run(LEAD_TIME, version, lab_runs, capsys)
    assert any(line.startswith("lead time on OpenZFS") for line in run.summary)


@pytest.mark.parametrize("version", VERSIONS)
def test_slowdown(version: str, lab_runs: LabRuns, capsys: pytest.CaptureFixture[str]) -> None:
    """Ghost hits rise with a working set larger than the ARC and the records say memory;
    they stay quiet once it fits; one slow disk is an outlier among its siblings, not memory.
    The estimate and the hit ratio measured after raising zfs_arc_max are printed."""
    run = _run(SLOWDOWN, version, lab_runs, capsys)
    assert any(line.startswith("ARC estimate on OpenZFS") for line in run.summary)
