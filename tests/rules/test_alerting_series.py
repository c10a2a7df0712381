"""Counters the alert rules count with increase() exist at 0 before their first event.

A series that appears only with its first event starts at that event's count, and increase()
over it is 0: the first burst of errors would never page (issue finding 1). zmon therefore
serves every rule-used kernel-log pattern x each known disk, and every rule-used event class x
each known vdev (and pool), at 0 from start-up. These tests pin that, and that the rules use
no pattern or class that zmon does not zero-initialise.
"""

from __future__ import annotations

import re
from pathlib import Path

from alert_rules import generate
from tests.collectors.kernel_log.test_collector import make_ctx
from zmon.base.runner import StaticRunner
from zmon.collecting.products import VDEV_NAMES
from zmon.collecting.registry import Board, Context, Paths
from zmon.collectors.kernel_log import KernelLogCollector
from zmon.collectors.kernel_log.metrics import ALERTED_PATTERNS, ALERTED_POOL_PATTERNS
from zmon.collectors.zpool_events import ALERTED_CLASSES, ZpoolEventsCollector
from zmon.health.thresholds import DEFAULTS
from zmon.host.devices import BlockDevice, DeviceMap, DeviceMapCache

EVENTS = "zmon_zfs_events_total"
LOG_EVENTS = "zmon_kernel_log_events_total"
POOL_LOG_EVENTS = "zmon_kernel_log_pool_events_total"


def _disks(ctx: Context, *names: str) -> None:
    ctx.devices = DeviceMapCache(ctx.paths)
    ctx.devices.put(DeviceMap([BlockDevice(n, hardware=True) for n in names]))


def test_kernel_log_serves_rule_patterns_at_zero_for_each_known_disk(tmp_path: Path) -> None:
    log = tmp_path / "root" / "var" / "log" / "kern.log"
    log.parent.mkdir(parents=True)
    log.write_text("")
    ctx = make_ctx(tmp_path, source="file", poll_interval=0.05)
    _disks(ctx, "sda", "sdb")
    ctx.board.publish(VDEV_NAMES, {"tank": frozenset({"mirror-0", "sda", "sdb"})})
    c = KernelLogCollector(ctx)
    try:
        ms = c.collect()
    finally:
        c.close()
    for device in ("sda", "sdb"):
        for pattern in ALERTED_PATTERNS["linux"]:
            assert ms.sample_value(LOG_EVENTS, {"pattern": pattern, "device": device}) == 0
    assert ms.sample_value(POOL_LOG_EVENTS, {"pattern": "pool_suspended", "pool": "tank"}) == 0
    # Only what the rules use: no zero series for other patterns.
    assert ms.sample_value(LOG_EVENTS, {"pattern": "sas_log_info", "device": "sda"}) is None


def test_kernel_log_knows_pools_from_kstats_while_zpool_hangs(tmp_path: Path) -> None:
    (tmp_path / "proc" / "spl" / "kstat" / "zfs" / "tank").mkdir(parents=True)
    (tmp_path / "proc" / "spl" / "kstat" / "zfs" / "tank" / "state").write_text("ONLINE\n")
    log = tmp_path / "root" / "var" / "log" / "kern.log"
    log.parent.mkdir(parents=True)
    log.write_text("")
    ctx = make_ctx(tmp_path, source="file", poll_interval=0.05)
    _disks(ctx)
    c = KernelLogCollector(ctx)
    try:
        ms = c.collect()
    finally:
        c.close()
    assert ms.sample_value(POOL_LOG_EVENTS, {"pattern": "pool_suspended", "pool": "tank"}) == 0


def test_zpool_events_serves_rule_classes_at_zero_for_each_known_vdev(tmp_path: Path) -> None:
    paths = Paths(
        procfs=tmp_path / "proc",
        sysfs=tmp_path / "sys",
        rootfs=tmp_path / "root",
        state_dir=tmp_path / "state",
    )
    board = Board()
    board.publish(VDEV_NAMES, {"tank": frozenset({"tank", "mirror-0", "sdb"})})
    ctx = Context(paths, StaticRunner(), {"startup_wait": 0.0}, "linux", board=board)
    c = ZpoolEventsCollector(ctx)
    try:
        ms = c.collect()
    finally:
        c.close()
    for vdev in ("", "mirror-0", "sdb"):
        for cls in ALERTED_CLASSES:
            labels = {"pool": "tank", "vdev": vdev, "class": cls}
            assert ms.sample_value(EVENTS, labels) == 0, labels
    assert ms.sample_value(EVENTS, {"vdev": "tank"}) is None, "the root vdev is the pool"
    assert ms.sample_value(EVENTS, {"class": "statechange"}) is None


def _selected(metric: str, label: str) -> set[str]:
    """Label values a rule selects for ``metric`` by = or =~ (alternatives split)."""
    text = generate.render()
    found: set[str] = set()
    for m in re.finditer(metric + r"\{([^}]*)\}", text):
        for k, op, v in re.findall(r'(\w+)\s*(=~|=|!=|!~)\s*\\?"([^"\\]*)', m.group(1)):
            if k == label and op in ("=", "=~"):
                found.update(v.split("|"))
    return found


def test_rules_count_only_zero_initialised_patterns_and_classes() -> None:
    patterns = _selected(LOG_EVENTS, "pattern")
    assert patterns, "the rules select kernel-log patterns"
    every_platform = set().union(*ALERTED_PATTERNS.values())
    assert patterns <= every_platform, patterns - every_platform
    assert set(DEFAULTS.cable_patterns.split("|")) <= every_platform
    assert _selected(POOL_LOG_EVENTS, "pattern") <= set(ALERTED_POOL_PATTERNS)
    classes = _selected(EVENTS, "class")
    assert classes and classes <= set(ALERTED_CLASSES), classes - set(ALERTED_CLASSES)
