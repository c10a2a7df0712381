"""A demo host whose phases pass faster than ``zpool status`` is read is refused, with the
phase unit that would do."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from zmon.cli import main
from zmon.collecting.config import Config, ConfigError, load
from zmon.collecting.registry import collectors
from zmon.demo.host import PHASE_READER, DemoHost, check_pace
from zmon.demo.timeline import PHASES, STORIES


def _config(**reader: object) -> Config:
    cfg = load(collectors(), None)
    settings = replace(cfg.collectors[PHASE_READER], **reader)
    return replace(cfg, collectors={**cfg.collectors, PHASE_READER: settings})


def test_phases_shorter_than_the_zpool_interval_are_refused() -> None:
    cfg = _config()
    assert cfg.collectors[PHASE_READER].interval == 15.0  # the default the README's figure is
    with pytest.raises(ConfigError) as refused:
        check_pace(cfg, 10.0, PHASES)
    assert refused.value.key == "demo.phase_seconds"
    assert str(refused.value) == (
        "demo.phase_seconds: 10 s makes the shortest phases (healthy, scrub, scrub-finished, "
        "resilvering-later) last 10 s, less than the zpool collector's interval (15 s): they "
        "could pass between two of its runs and never be served; give --demo.phase-seconds 15 "
        "or more, or a shorter --collector.zpool.interval"
    )
    check_pace(cfg, 15.0, PHASES)


def test_the_limit_follows_the_configured_interval_and_the_shortest_phase() -> None:
    check_pace(_config(interval=5.0), 5.0, PHASES)
    with pytest.raises(ConfigError, match="--demo.phase-seconds 60 or more"):
        check_pace(_config(interval=60.0), 30.0, PHASES)
    check_pace(_config(enabled=False), 1.0, PHASES)  # no zpool collector: nothing to miss
    # the "healthy" story is one phase of 2 units: 8 s phases last 16 s
    assert min(p.length for p in STORIES["healthy"]) == 2
    check_pace(_config(), 8.0, STORIES["healthy"])
    with pytest.raises(ConfigError, match="--demo.phase-seconds 8 or more"):
        check_pace(_config(), 7.0, STORIES["healthy"])


def test_zmon_serve_refuses_the_phase_unit_before_it_listens(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # port 1 cannot be bound by a test: the refusal comes first
    argv = ["serve", "--demo", "--demo.phase-seconds", "10", "--web.listen-address", "127.0.0.1:1"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("zmon: invalid configuration: demo.phase_seconds: 10 s makes")
    assert "--demo.phase-seconds 15 or more" in err


def test_a_reload_keeps_the_running_pace_or_is_rejected(tmp_path: Path) -> None:
    moving = DemoHost(phase_seconds=15, root=tmp_path / "moving")
    stepped = DemoHost(phase_seconds=15, root=tmp_path / "stepped", stepped=True)
    try:
        slower = _config(interval=30.0)
        with pytest.raises(ConfigError, match="interval \\(30 s\\)"):
            moving.reapply(slower)
        assert moving.reapply(_config()).paths == moving.paths
        # a stepped host stands in a phase until told to move on: any interval will do
        assert stepped.reapply(slower).collectors[PHASE_READER].interval == 30.0
    finally:
        moving.stop()
        stepped.stop()
