"""A hung or failing ``zpool`` is said as unknown, with the last known state, never as "no ZFS
pool found"; its severity is the paging policy's."""

from __future__ import annotations

from pathlib import Path

from tests.status.helpers import NOW, families, pool_text
from zmon.health import policy
from zmon.host.last_pools import LastPools, PoolStateRecorder, load_last_pools
from zmon.status.report import build_report
from zmon.status.terminal import render_text


def _zpool(success: float | None, last_success: float, timeouts: int, started: float) -> str:
    text = (
        f'zmon_collector_last_success_timestamp_seconds{{collector="zpool"}} {last_success}\n'
        f'zmon_collector_interval_seconds{{collector="zpool"}} 30\n'
        f'zmon_collector_runs_total{{collector="zpool",result="timeout"}} {timeouts}\n'
        f"zmon_start_time_seconds {started}\n"
    )
    if success is not None:
        text += f'zmon_collector_success{{collector="zpool"}} {success}\n'
        text += f'zmon_collector_stale{{collector="zpool"}} {1 - success}\n'
        if not success:
            text += 'zmon_collector_last_error_info{collector="zpool",reason="timeout"} 1\n'
    return text


def test_zpool_hung_since_start_says_unknown_with_the_last_known_state_on_disk() -> None:
    """zmon restarted while zpool hangs: no pool data at all, the state file remembers."""
    last = LastPools(NOW - 600, {"tank": "DEGRADED"})
    report = build_report(families(_zpool(0, 0, 3, NOW - 240)), NOW, last_pools=last)
    assert report["headline"] == (
        "WARNING - zpool has not answered since zmon started 4 min ago (3 timeouts); "
        "last known state: tank DEGRADED, 10 min ago"
    )
    (finding,) = [f for f in report["findings"] if f["rule"] == "pools_unknown"]
    assert finding["alert"] == "ZmonCollectorNoData"
    assert finding["severity"] == policy.severity("ZmonCollectorNoData") == "warning"
    assert report["pools_unknown"] == finding["evidence"]
    text = render_text(report)
    assert "no ZFS pool found" not in text
    assert "zpool has not answered since zmon started 4 min ago" in text
    # one finding for the hung zpool, not a second one for its collector
    assert [f["rule"] for f in report["findings"]] == ["pools_unknown"]


def test_zpool_still_in_its_first_run_is_unknown_too() -> None:
    report = build_report(families(_zpool(None, 0, 0, NOW - 80)), NOW)
    assert report["headline"] == (
        "WARNING - zpool has not answered since zmon started 80 s ago; no earlier state known"
    )
    assert "no ZFS pool found" not in render_text(report)


def test_zpool_that_stopped_answering_shows_the_last_state_it_gave_as_last_known() -> None:
    text = pool_text(state="degraded", vdev_states={"sdb": "offline"})
    report = build_report(families(text + _zpool(0, NOW - 240, 2, NOW - 7200)), NOW)
    assert report["headline"] == (
        "WARNING - zpool has not answered for 4 min (2 timeouts since zmon started); "
        "last known state: tank DEGRADED, 4 min ago (and 1 more)"
    )
    (finding,) = [f for f in report["findings"] if f["rule"] == "pools_unknown"]
    assert finding["alert"] == "ZmonCollectorFailing"
    assert [p["name"] for p in report["pools"]] == ["tank"]
    assert report["pools"][0]["last_known"] is True
    assert "last known" in render_text(report)
    # the degraded pool is still reported from what zpool last said
    assert "pool_degraded" in [f["rule"] for f in report["findings"]]


def test_a_hung_zpool_with_a_stuck_pool_kstat_pages_as_the_policy_says() -> None:
    """ZfsPoolStuck pages on zpool timeouts when a source that does not hang with zpool (the
    pool's kstat state) shows the pool is not online."""
    text = pool_text() + 'zmon_pool_kstat_state{pool="tank",state="suspended"} 1\n'
    report = build_report(families(text + _zpool(0, NOW - 240, 2, NOW - 7200)), NOW)
    (finding,) = [f for f in report["findings"] if f["rule"] == "pools_unknown"]
    assert finding["alert"] == "ZfsPoolStuck"
    assert finding["severity"] == policy.severity("ZfsPoolStuck") == "critical"
    assert report["state"] == "critical"
    assert "kstat state SUSPENDED" in finding["evidence"]
    # one timeout is not enough (as in the rule: 2 in its window)
    once = build_report(families(text + _zpool(0, NOW - 240, 1, NOW - 7200)), NOW)
    assert [f["severity"] for f in once["findings"] if f["rule"] == "pools_unknown"] == ["warning"]


def test_the_policy_says_when_a_hung_zpool_pages() -> None:
    stuck = policy.POLICY_BY_ALERT["ZfsPoolStuck"]
    assert stuck.pages and "zpool" in stuck.why
    no_data = policy.POLICY_BY_ALERT["ZmonCollectorNoData"]
    assert not no_data.pages and "ZfsPoolStuck" in no_data.why


def test_a_healthy_answering_zpool_is_not_unknown() -> None:
    report = build_report(families(pool_text() + _zpool(1, NOW - 20, 0, NOW - 7200)), NOW)
    assert report["headline"] == "OK - 1 pool healthy (tank)"
    assert report["pools_unknown"] is None


def test_no_zfs_on_the_host_is_still_no_pool_found() -> None:
    text = (
        'zmon_collector_success{collector="zpool"} 1\n'
        'zmon_collector_has_data{collector="zpool"} 0\n'
        f'zmon_collector_last_success_timestamp_seconds{{collector="zpool"}} {NOW - 20}\n'
    )
    assert build_report(families(text), NOW)["headline"] == "OK - no ZFS pool found"


def test_the_last_pool_states_survive_a_restart(tmp_path: Path) -> None:
    recorder = PoolStateRecorder(tmp_path)
    recorder.observe(NOW - 900, {"tank": "ONLINE"})
    recorder.observe(NOW - 600, {"tank": "DEGRADED"})
    recorder.observe(NOW - 590, {"tank": "DEGRADED"})  # unchanged and recent: not rewritten
    assert load_last_pools(tmp_path) == LastPools(NOW - 600, {"tank": "DEGRADED"})
    recorder.observe(NOW - 590 + 600, {"tank": "DEGRADED"})  # unchanged, refreshed
    assert load_last_pools(tmp_path) == LastPools(NOW + 10, {"tank": "DEGRADED"})
    assert load_last_pools(tmp_path / "missing") is None
    (tmp_path / "zpool-last-states.json").write_text("{not json")
    assert load_last_pools(tmp_path) is None


def test_the_status_page_of_a_restarted_zmon_says_the_last_known_state(tmp_path: Path) -> None:
    """The daemon's page: zpool hangs since zmon started, the state directory remembers."""
    from zmon.exposition.snapshot import CollectorState, Snapshot
    from zmon.status.page import StatusPage

    PoolStateRecorder(tmp_path).observe(NOW - 3600, {"tank": "DEGRADED"})
    snapshot = Snapshot()
    state = CollectorState("zpool", 30.0, 10.0, success=False, last_error_reason="timeout")
    state.runs["timeout"] = 4
    snapshot.add(state)
    page = StatusPage(snapshot, clock=lambda: NOW, host="h1", state_dir=tmp_path)
    body = page.respond()[0].decode()
    assert "No ZFS pool found" not in body
    assert "zpool has not answered since zmon started" in body
    assert "last known state: tank DEGRADED, 60 min ago" in body
