"""The real smartctl binary (smartmontools 7.x): its JSON shape is what the parsers expect.

No disk on a CI host answers SMART, so these check the envelope (version, scan, open failure);
the lab VM checks real disks.
"""

from __future__ import annotations

import json

import pytest

from tests.helpers import require_tool
from zmon.base.runner import CommandRunner
from zmon.collecting.registry import Context, NoDataError, Paths
from zmon.collectors.smart import SmartCollector
from zmon.collectors.smart.metrics import parse_smartctl_metrics
from zmon.parsers.smartctl.smartctl import check_status, parse_scan, parse_smartctl, parse_version

pytestmark = pytest.mark.real


@pytest.fixture(scope="module")
def runner() -> CommandRunner:
    return CommandRunner(binaries={"smartctl": require_tool("smartctl", "smartmontools")})


def test_version(runner):
    res = runner.run(["smartctl", "--version"], timeout=10)
    assert res.returncode == 0
    version = parse_version(res.stdout)
    assert version is not None and version >= (7, 0), res.stdout[:80]


def test_scan_open_json_shape(runner):
    res = runner.run(["smartctl", "--scan-open", "--json=c"], timeout=30)
    doc = json.loads(res.stdout)
    assert doc["json_format_version"][0] == 1
    assert isinstance(doc["smartctl"]["exit_status"], int)
    entries = parse_scan(res.stdout)  # usually empty on a CI host, but must parse
    assert all(e.name.startswith("/dev/") and e.type for e in entries)


def test_open_failure_is_an_error_never_passed(runner):
    argv = [
        "smartctl",
        "--json=c",
        "--nocheck=standby",
        "--all",
        "-d",
        "sat",
        "/dev/zmon-test-no-such-disk",
    ]
    res = runner.run(argv, timeout=30)
    assert res.returncode & 0b10  # exit bit 1: open failed
    report = parse_smartctl(res.stdout)
    assert report.passed is None
    assert report.exit_status == res.returncode
    assert check_status(report) == "open_failed"
    ms = parse_smartctl_metrics(res.stdout)
    dev = {"device": "zmon-test-no-such-disk"}
    assert ms.sample_value("zmon_disk_smart_passed", dev) is None
    assert ms.sample_value("zmon_disk_smart_up", dev) == 0


def test_open_failure_text_is_an_error_too(runner):
    res = runner.run(
        ["smartctl", "--nocheck=standby", "--all", "-d", "sat", "/dev/zmon-test-no-such-disk"],
        timeout=30,
    )
    report = parse_smartctl(res.stdout)
    assert report.passed is None and check_status(report) == "open_failed"


def test_collector_against_the_real_binary_and_an_empty_host(runner, tmp_path):
    """No disks in the (empty) fake host and none that smartctl can open: no data, no crash."""
    ctx = Context(Paths(sysfs=tmp_path / "sys", rootfs=tmp_path), runner, {"jitter": 0.0})
    collector = SmartCollector(ctx)
    try:
        ms = collector.collect()
    except NoDataError:
        return
    # A host whose disks do answer: every device has a check status.
    assert ms.sample_value("zmon_disk_smart_check_status") is not None
