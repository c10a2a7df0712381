"""The lab's recorded lead-time ramps, replayed with the shipped (unscaled) rules, page before
ZFS faults the disk.

The lab's lead-time run (tests/lab/leadtime.py) fails more and more of vdb's writes in the
raidz1 rz until ZED faults vdb, and records every scrape of zmon its Prometheus stored
(``ramp-scrapes.txt``, kept in tests/fixtures/lab/<version>/leadtime/). The live run evaluates
the rules with every duration scaled by 1/30; here promtool evaluates the rules zmon ships,
durations as they are, over what zmon served. A raidz1 member has no redundancy to spare, so
its failing path must page before ZFS faults it: the first critical alert about rz or vdb
fires before FAULTED, whether Prometheus scrapes and evaluates at every 5 s scrape of the
recording, or every 15 s at any of the three phases that allows.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import require_tool
from tests.lab.leadtime import POOL, RECORDING, VDEV, Recording
from tests.rules import differential as d

VERSIONS = ("2.1.11", "2.3.2")
SCRAPE = 5.0  # the lab's Prometheus scrape interval: the recording's grid


def recording(version: str) -> Recording:
    return Recording.parse((d.LAB / version / "leadtime" / RECORDING).read_text())


def grid(rec: Recording) -> tuple[float, list[str | None]]:
    """The recording's scrapes on a grid of SCRAPE seconds from its first (None: no scrape
    landed in a slot): the first scrape's time and the slots."""
    first = rec.scrapes[0][0]
    slots: list[str | None] = [None] * (round((rec.scrapes[-1][0] - first) / SCRAPE) + 1)
    for at, exposition in rec.scrapes:
        slots[round((at - first) / SCRAPE)] = exposition
    return first, slots


def replays(rec: Recording) -> list[tuple[str, float, d.Timeline]]:
    """Every 5 s, and every 15 s at each phase: (name, first scrape's time, timeline)."""
    first, slots = grid(rec)
    out = []
    for every, phase in ((1, 0), (3, 0), (3, 1), (3, 2)):
        scrapes = slots[phase::every]
        at = first + phase * SCRAPE
        name = f"every {every * SCRAPE:g} s" + (
            f", phase +{phase * SCRAPE:g} s" if every > 1 else ""
        )
        timeline = d.Timeline(name, rec.ramp_start + at, every * SCRAPE, scrapes)
        timeline.moments = [
            d.Moment(i, f"+{at + i * every * SCRAPE:.0f}s", {}) for i in range(len(scrapes))
        ]
        out.append((name, at, timeline))
    return out


def pages(alerts: frozenset[d.Fired]) -> list[d.Fired]:
    """The firing critical alerts about the ramp's pool or disk."""
    return [
        a
        for a in alerts
        if a.severity == "critical"
        and a.state == "firing"
        and (
            dict(a.labels).get("pool") == POOL
            or VDEV in (dict(a.labels).get("vdev"), dict(a.labels).get("device"))
        )
    ]


def first_page(
    timeline: d.Timeline, at: float, promtool: str, workdir: Path
) -> tuple[float, str] | None:
    """When (seconds since the ramp began) the first page fired, and which alert."""
    held = d.prometheus_alerts(timeline, promtool, workdir)
    for index in sorted(held):
        fired = pages(held[index])
        if fired:
            return at + index * timeline.step, ", ".join(sorted(a.alert for a in fired))
    return None


@pytest.mark.parametrize("version", VERSIONS)
def test_the_recording_holds_a_ramp_that_ended_faulted(version: str) -> None:
    rec = recording(version)
    assert rec.faulted_at is not None and rec.faulted_at > 0
    first, slots = grid(rec)
    assert first < 0 < rec.scrapes[-1][0], "the recording spans the ramp"
    served = [s for s in slots if s is not None]
    assert len(served) >= 0.9 * len(slots), "a scrape every 5 s, few missing"
    assert any(f'vdev="{VDEV}"' in s and "zmon_vdev_write_errors_total" in s for s in served)


@pytest.mark.real
@pytest.mark.parametrize("version", VERSIONS)
def test_the_unscaled_rules_page_before_zfs_faults_the_disk(
    version: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    promtool = require_tool("promtool", "Debian package prometheus")
    rec = recording(version)
    assert rec.faulted_at is not None
    figures, leads = [], []
    for name, at, timeline in replays(rec):
        page = first_page(
            timeline, at, promtool, tmp_path / name.replace(" ", "-").replace(",", "")
        )
        assert page is not None, f"OpenZFS {version}, {name}: no page before the recording ends"
        when, alert = page
        figures.append(
            f"OpenZFS {version}, evaluated {name}: {alert} fired {when:+.0f} s into the ramp, "
            f"{rec.faulted_at - when:.1f} s before ZFS faulted {VDEV} ({rec.faulted_at:+.1f} s)"
        )
        assert when < rec.faulted_at, figures[-1]
        leads.append(rec.faulted_at - when)
    with capsys.disabled():
        print("\n" + "\n".join(figures))
    readme = " ".join((Path(__file__).resolve().parents[2] / "README.md").read_text().split())
    stated = f"{min(leads):.0f} to {max(leads):.0f} s ({version})"
    assert stated in readme, f"README.md's lead times of the replays should say {stated!r}"
