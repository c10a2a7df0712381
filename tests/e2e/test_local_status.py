"""End to end: with the demo daemon running, ``zmon status`` on the host says what the daemon
judged, as ``zmon status --url`` does; once it has stopped, it collects once and says that
nothing was judged.

The demo is stepped (``--demo.control-socket``): it stands at a phase until told, so what
is compared does not move while the two are read; the test waits for the daemon's published
report to catch up with its page, never for a clock.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.serve import ZmonProcess
from tests.support.waiting import poll
from zmon.demo.control import DemoControlClient
from zmon.demo.timeline import PHASES

pytestmark = pytest.mark.real

DEGRADED = next(i for i, p in enumerate(PHASES) if p.name == "degraded")


def _status(*args: str) -> tuple[int, dict[str, Any]]:
    done = subprocess.run(
        [sys.executable, "-m", "zmon.cli", "status", "--json", *args],
        capture_output=True,
        timeout=300,
    )
    assert done.returncode in (0, 1, 2), done.stdout.decode() + done.stderr.decode()[-2000:]
    return done.returncode, json.loads(done.stdout)


# what a finding says of its alert; its words may name a time ("finished 14 s ago") that
# moves with each collection of the replayed host
JUDGED = ("rule", "subject", "alert", "alert_labels", "severity", "state", "since", "muted_by")


def _judged(report: dict[str, Any]) -> tuple[Any, ...]:
    """What the report judged: its state, and each finding's alert and its state."""
    findings = [{k: f.get(k) for k in JUDGED} for f in report["findings"]]
    return report["state"], report["exit_code"], findings


def test_zmon_status_on_the_host_tells_what_the_running_daemon_judged(tmp_path: Path) -> None:
    run = tmp_path / "run"
    sock = tmp_path / "demo.sock"
    zmon = ZmonProcess(
        ["--demo", "--demo.control-socket", str(sock), "--web.status-dir", str(run)],
        tmp_path / "zmon.log",
    )
    control = DemoControlClient(sock)
    try:
        for _ in range(DEGRADED):
            reply = control.request("step")
            assert not reply["stale"], reply
        assert reply["phase"] == "degraded", reply
        local_args = ("--demo", "--web.status-dir", str(run))

        def agree() -> tuple[int, dict[str, Any], dict[str, Any]] | None:
            code, local = _status(*local_args)
            _, remote = _status("--url", zmon.base)
            if _judged(local) != _judged(remote):
                return None
            return code, local, remote

        found = poll(agree, timeout=300, step=1.0)
        assert found, f"the host's report never agreed with the daemon's:\n{zmon.log_path}"
        code, local, remote = found
        assert "not_judged" not in local  # the daemon's report, not a collection
        assert code == local["exit_code"] == remote["exit_code"] >= 1
        assert any(f["rule"] == "pool_degraded" for f in local["findings"]), local["findings"]
        assert local["host"] == remote["host"]
    finally:
        control.close()
        assert zmon.stop() == 0

    # stopped: the report is withdrawn, and the host's status is one collection's
    assert not (run / "demo-report.json").exists()
    _, alone = _status(*local_args)
    assert alone["not_judged"]["why"] == (
        f"zmon is not running on this host (no {run / 'demo-report.json'})"
    )
