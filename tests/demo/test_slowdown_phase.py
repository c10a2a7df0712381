"""The demo's slowdown phase, replayed from the lab: tank's reads slow down while every ARC
miss is a ghost hit, and `zmon status` and the status page say the ARC is too small.

The demo host is stepped on an explicit clock (never waited for): the test lives each phase
ten seconds at a time, collects what the status history and the evaluator keep (the zpool,
iostat, arc and zfs_kstats collectors, in-process), and builds the report as the daemon does.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.demo.conftest import PhaseRunner, make_collector
from tests.status.demo_story import START, SteppedClock
from zmon.demo.host import DemoHost
from zmon.demo.timeline import PHASES
from zmon.health.evaluator import host_evaluator
from zmon.status.history import History
from zmon.status.model import read_model
from zmon.status.page import render_html
from zmon.status.report import report_of
from zmon.status.slowdown import Recorded
from zmon.status.terminal import render_text

NAMES = ("zpool", "iostat", "arc", "zfs_kstats")
SLOWDOWN = next(i for i, p in enumerate(PHASES) if p.name == "slowdown")
SLOW = ("arc_slowdown", "slow_reads")


def _lived(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, until: float
) -> Iterator[tuple[str, float, dict[str, Any]]]:
    """Each phase up to the slowdown lived 10 s at a time: (phase, time, report) at each end
    of a phase, and ``until`` seconds into the slowdown."""
    clock = SteppedClock(START)
    monkeypatch.setattr(time, "time", clock)
    host = DemoHost(phase_seconds=60, root=tmp_path / "host", clock=clock)
    runner = PhaseRunner(host, clock)
    made = [make_collector(host, name, runner=runner) for name in NAMES]
    history = History()
    judge = host_evaluator()
    try:
        for index in range(SLOWDOWN + 1):
            phase = PHASES[index]
            last = until if index == SLOWDOWN else phase.length * 60.0 - 10
            t = 0.0
            while t <= last:
                clock.t = host.time_of(index) + t
                host.tick(clock.t)
                families = [f for c in made for f in c.collect().families()]
                model = read_model(families)
                history.observe(clock.t, model)
                judge.feed(families, clock.t)
                t += 10.0
            judge.evaluate(clock.t)
            yield phase.name, clock.t, report_of(model, clock.t, host="demo",
                                                 history=history.view(),
                                                 recorded=Recorded.of(judge))  # fmt: skip
    finally:
        for c in made:
            c.close()
        host.stop()


def test_the_slowdown_phase_is_told_as_an_arc_too_small(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reports = {name: report for name, _, report in _lived(tmp_path, monkeypatch, until=290.0)}
    for phase in PHASES[:SLOWDOWN]:  # the usual: 14 minutes of reads at about 7 ms
        told = reports[phase.name]["findings"] + reports[phase.name]["notes"]
        assert not [f for f in told if f["rule"] in SLOW], phase.name
    report = reports["slowdown"]
    assert not [n for n in report["notes"] if n["rule"] in SLOW]
    (finding,) = [f for f in report["findings"] if f["rule"] in SLOW]
    assert (finding["rule"], finding["severity"], finding["alert"]) == (
        "arc_slowdown", "warning", "ZfsArcSlowdown")  # fmt: skip
    assert finding["subject"] == "pool tank"
    assert finding["evidence"].startswith(
        "reads are 19x slower than usual (p99 130 ms, usually 7.0 ms over the 19 min seen); ARC "
        "hit ratio fell from 86 % to 72 %; "
    ), finding
    assert finding["evidence"].endswith(" to 72 %; 100 % of the misses were ghost hits")
    assert "a larger ARC (up to 592.2 MiB more) would have served them" in finding["cause"]
    assert "raise zfs_arc_max (now 1.9 GiB of 2.9 GiB RAM)" in finding["action"]
    text = render_text(report)
    assert "!  pool tank: reads are 19x slower than usual" in text
    # README.md quotes the finding as `zmon status` prints it, and its figures
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("!  pool tank: reads are"))
    assert "\n".join(lines[at : at + 2]) in readme, "README.md's slowdown example is stale"
    figures = re.search(r"p99 (\d+) ms, usually ([\d.]+) ms", finding["evidence"])
    assert figures
    stated = f"p99 about {figures[1]} ms instead of {float(figures[2]):g} ms"
    assert stated in " ".join(readme.split()), f"README.md should say {stated!r}"
    page = render_html(report, "demo")
    assert "runbook: ZfsArcSlowdown" in page and "would have served them" in page
