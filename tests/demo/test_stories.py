"""The demo's single-incident stories (one per fleet host): they stay in their last phase, and
the suspended story looks like OpenZFS 2.1 with a suspended pool."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.demo.conftest import PhaseRunner, make_collector
from zmon.collecting.config import static_settings
from zmon.demo.host import KERN_LOG, DemoHost
from zmon.demo.timeline import STORIES
from zmon.parsers.kernel_log import PatternSet, default_rules, scan_text


@pytest.mark.parametrize("story", sorted(set(STORIES) - {"demo"}))
def test_a_story_stays_in_its_last_phase(tmp_path: Path, story: str) -> None:
    host = DemoHost(phase_seconds=10, root=tmp_path / "host", story=story)
    try:
        last = len(host.phases) - 1
        host.tick(now=host.time_of(last) + 1)
        assert host.phase == host.phases[last]
        host.tick(now=host.time_of(last) + 1000)  # long after: no loop back to healthy
        assert host.phase == host.phases[last]
    finally:
        host.stop()


def test_the_suspended_story_suspends_tank_and_zpool_hangs(tmp_path: Path) -> None:
    host = DemoHost(phase_seconds=10, root=tmp_path / "host", story="suspended")
    kstats = make_collector(host, "pool_kstats", one_shot=False)
    try:
        before = kstats.collect().sample_value(
            "zmon_pool_kstat_state", {"pool": "tank", "state": "suspended"}
        )
        assert before == 0
        zpool = str(host.root / "bin" / "zpool")
        subprocess.run([zpool, "list", "-Hp"], timeout=20, capture_output=True)  # answers
        host.tick(now=host.time_of(1) + 1)
        assert host.phase.name == "suspended"
        after = kstats.collect().sample_value(
            "zmon_pool_kstat_state", {"pool": "tank", "state": "suspended"}
        )
        assert after == 1
        events = scan_text(host.paths.root(KERN_LOG).read_text(), PatternSet(default_rules()))
        assert [(e.pattern, e.pool) for e in events if e.pattern == "pool_suspended"] == [
            ("pool_suspended", "tank")
        ]
        with pytest.raises(subprocess.TimeoutExpired):
            subprocess.run([zpool, "status", "-p"], timeout=2, capture_output=True)
    finally:
        kstats.close()
        host.stop()


def test_zmon_serve_accepts_every_story() -> None:
    story = next(s for s in static_settings() if s.key == "demo.story")
    assert set(story.choices or ()) == set(STORIES)


@pytest.mark.parametrize(("story", "days_old"), [("healthy", 0.0), ("never-scrubbed", 60.0)])
def test_the_pools_are_as_old_as_the_story_says(
    tmp_path: Path, story: str, days_old: float
) -> None:
    """The lab created its pools moments before recording them, and the demo replays them as
    just as young; ``never-scrubbed`` is a host whose pools are 60 days older."""
    host = DemoHost(phase_seconds=10, root=tmp_path / "host", story=story)
    now = 1_900_000_000.0  # years after the recordings: the ages do not depend on the date
    try:
        pools = make_collector(host, "zpool_list", runner=PhaseRunner(host, lambda: now))
        metrics = pools.collect()
        for pool in ("rz", "single", "tank"):
            created = metrics.sample_value("zmon_pool_creation_time_seconds", {"pool": pool})
            assert created is not None
            assert 0 <= (now - created) - days_old * 86400 < 3600, pool
    finally:
        host.stop()
