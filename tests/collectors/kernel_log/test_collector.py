"""The kernel_log collector: background following, snapshots, restarts, options."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import fixture_path, not_run
from zmon.base.runner import StaticRunner
from zmon.collecting.registry import Context, NoDataError, Paths
from zmon.collectors.kernel_log import KernelLogCollector
from zmon.exposition.formats import render
from zmon.host.devices import BlockDevice, DeviceMap, DeviceMapCache

EVENTS = "zmon_kernel_log_events_total"


def make_ctx(tmp_path: Path, platform: str = "linux", **options: Any) -> Context:
    paths = Paths(
        procfs=tmp_path / "proc",
        sysfs=tmp_path / "sys",
        rootfs=tmp_path / "root",
        state_dir=tmp_path / "state",
    )
    return Context(paths, StaticRunner(), options, platform)


def wait_for(check: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.02)


def count(c: KernelLogCollector, **labels: str) -> float | None:
    return c.collect().sample_value(EVENTS, labels)


def test_follows_the_file_in_the_background(kern_log: Path, following) -> None:  # type: ignore[no-untyped-def]
    c = following(source="file")
    assert count(c) is None  # the line written before the first start is not counted
    with open(kern_log, "a") as fh:
        fh.write(
            fixture_path(
                "kernel_log", "log_06_linux_libata_badcrc_interface_fatal_error.txt"
            ).read_text()
        )
    wait_for(lambda: count(c, pattern="link_reset") == 1)
    ms = c.collect()
    assert ms.sample_value(EVENTS, {"pattern": "crc_error", "device": "ata1"}) == 1
    assert ms.sample_value("zmon_kernel_log_lines_read_total", {"source": "/var/log/kern.log"}) == 9
    assert ms.sample_value("zmon_kernel_log_read_errors_total") == 0
    stamp = ms.sample_value("zmon_kernel_log_last_event_timestamp_seconds")
    assert stamp is not None and abs(stamp - time.time()) < 60  # wall time when read


def test_golden_exposition(kern_log: Path, following, golden) -> None:  # type: ignore[no-untyped-def]
    c = following(source="file")
    with open(kern_log, "a") as fh:
        for name in (
            "log_02_linux_sd_medium_error_critical_zio_error61_zed.txt",
            "log_10_zfs_splerror_pool_suspended_0.6.3.txt",
        ):
            fh.write(fixture_path("kernel_log", name).read_text())
    wait_for(lambda: count(c, pattern="pool_suspended") == 3)
    text = render(c.collect().families()).decode()
    text = re.sub(r"(_timestamp_seconds\{[^}]*\}) \S+", r"\1 <time>", text)
    golden("kernel_log/collector_file_source.prom", text)


def test_restart_continues_the_counts_and_counts_lines_written_while_stopped_once(
    kern_log: Path, collector_factory, following
) -> None:  # type: ignore[no-untyped-def]
    first = following(source="file")
    with open(kern_log, "a") as fh:
        fh.write("ata2: hard resetting link\n")
    wait_for(lambda: count(first, pattern="link_reset") == 1)
    first.close()
    with open(kern_log, "a") as fh:
        fh.write("ata3: hard resetting link\n")
    kern_log.rename(kern_log.with_name("kern.log.1"))  # and rotated while zmon was down
    kern_log.write_text("ata4: hard resetting link\n")
    second = collector_factory(source="file")
    second.start()
    wait_for(lambda: count(second, pattern="link_reset", device="ata4") == 1)
    ms = second.collect()
    assert ms.sample_value(EVENTS, {"device": "ata3"}) == 1
    assert ms.sample_value(EVENTS, {"device": "ata2"}) == 1  # the first run's count goes on
    lines = ms.sample_value("zmon_kernel_log_lines_read_total", {"source": "/var/log/kern.log"})
    assert lines == 3  # each line read once, by one run or the other


def test_watchdog_wakes_the_follower_before_the_poll_interval(
    kern_log: Path, collector_factory
) -> None:  # type: ignore[no-untyped-def]
    c = collector_factory(source="file", poll_interval=3600.0)  # no poll during the test
    c.start()
    assert c._watcher is not None
    if not c._watcher.active:
        not_run("no inotify here (watchdog could not watch the file): the wake-up is untested")
    wait_for(lambda: c.collect().sample_value("zmon_kernel_log_following") == 1)  # first poll
    with open(kern_log, "a") as fh:
        fh.write("ata5: SATA link down (SStatus 0 SControl 300)\n")
    wait_for(lambda: count(c, pattern="link_down") == 1, timeout=120.0)  # only a wake-up can


def test_device_map_attribution(kern_log: Path, tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path, source="file", poll_interval=0.05)
    ctx.devices = DeviceMapCache(ctx.paths)
    ctx.devices.put(
        DeviceMap([BlockDevice("sdc", hardware=True, ata_port="ata3", ata_device="ata3.00")])
    )
    c = KernelLogCollector(ctx)
    try:
        c.start()
        wait_for(lambda: c.collect().sample_value("zmon_kernel_log_following") == 1)
        with open(kern_log, "a") as fh:
            fh.write(
                "ata3: hard resetting link\nata3.00: error: { UNC }\nata7: hard resetting link\n"
            )
        wait_for(lambda: count(c, pattern="link_reset", device="ata7") == 1)
        assert count(c, pattern="link_reset", device="sdc") == 1
        assert count(c, pattern="medium_error", device="sdc") == 1
    finally:
        c.close()


def test_kmsg_source_is_picked_on_linux(tmp_path: Path, collector_factory) -> None:  # type: ignore[no-untyped-def]
    kmsg = tmp_path / "root" / "dev" / "kmsg"
    kmsg.parent.mkdir(parents=True)
    kmsg.write_text("6,1,1,-;booting\n")
    (tmp_path / "proc" / "sys" / "kernel" / "random").mkdir(parents=True)
    (tmp_path / "proc" / "sys" / "kernel" / "random" / "boot_id").write_text("b-1\n")
    c = collector_factory()
    c.start()
    wait_for(lambda: c.collect().sample_value("zmon_kernel_log_following", {"source": "kmsg"}) == 1)
    with open(kmsg, "a") as fh:
        fh.write("3,2,2,-;nvme nvme0: I/O 7 QID 3 timeout, aborting\n SUBSYSTEM=nvme\n")
    wait_for(lambda: count(c, pattern="nvme_timeout", device="nvme0") == 1)
    c.close()
    saved = json.loads((tmp_path / "state" / "kernel_log" / "checkpoint.json").read_text())
    assert saved["positions"]["kmsg"] == {"boot_id": "b-1", "seq": 2}


def test_freebsd_auto_uses_var_log_messages(tmp_path: Path, collector_factory) -> None:  # type: ignore[no-untyped-def]
    messages = tmp_path / "root" / "var" / "log" / "messages"
    messages.parent.mkdir(parents=True)
    messages.write_text("")
    c = collector_factory()
    c.ctx.platform = "freebsd"
    c.start()
    wait_for(lambda: c.collect().sample_value("zmon_kernel_log_following") == 1)
    with open(messages, "a") as fh:
        fh.write(
            fixture_path(
                "kernel_log", "log_18_freebsd_cam_ada_lost_device_removing_device_entry_PARTIAL.txt"
            ).read_text()
        )
    wait_for(lambda: count(c, pattern="device_removed") == 4)
    assert count(c, pattern="device_lost", device="ada0") == 5


def test_no_source_is_no_data(tmp_path: Path, collector_factory) -> None:  # type: ignore[no-untyped-def]
    c = collector_factory()
    with pytest.raises(NoDataError):
        c.collect()
    assert not (tmp_path / "state").exists()  # nothing to follow: no state directory either


def test_configured_missing_file_is_followed_when_it_appears(
    tmp_path: Path, collector_factory
) -> None:  # type: ignore[no-untyped-def]
    c = collector_factory(source="file", files=["/var/log/custom.log"])
    c.start()
    assert c.collect().sample_value("zmon_kernel_log_following") == 0
    follower = c._sources[0].follower
    wait_for(lambda: follower._missing)  # type: ignore[union-attr] # first poll found nothing
    path = tmp_path / "root" / "var" / "log" / "custom.log"
    path.parent.mkdir(parents=True)
    path.write_text("ad2: TIMEOUT - FLUSHCACHE48 retrying (1 retry left)\n")
    wait_for(lambda: count(c, pattern="ata_timeout", device="ad2") == 1)


def test_patterns_from_config_file_and_table(
    kern_log: Path, tmp_path: Path, collector_factory
) -> None:  # type: ignore[no-untyped-def]
    extra = tmp_path / "site.toml"
    extra.write_text(
        "[[rule]]\npattern = 'raid_error'\nkeywords = ['arcmsr']\n"
        "regex = '(?P<controller>arcmsr\\d+): .*error'\n"
    )
    c = collector_factory(
        source="file",
        patterns_file=str(extra),
        patterns={"fan_failure": {"regex": "fan (?P<controller>\\w+) failed", "keywords": ["fan"]}},
        disable_patterns=["link_reset"],
    )
    c.start()
    wait_for(lambda: c.collect().sample_value("zmon_kernel_log_following") == 1)
    with open(kern_log, "a") as fh:
        fh.write("arcmsr0: abort error\nfan sys1 failed\nata1: hard resetting link\n")
    wait_for(lambda: count(c, pattern="fan_failure") == 1)
    assert count(c, pattern="raid_error", device="arcmsr0") == 1
    assert count(c, pattern="link_reset") is None


def test_bad_patterns_fail_collect_with_the_reason(collector_factory) -> None:  # type: ignore[no-untyped-def]
    c = collector_factory(source="file", patterns={"broken": {"regex": "("}})
    with pytest.raises(ValueError, match="broken.*bad regex"):
        c.collect()


def test_close_stops_the_thread(kern_log: Path, collector_factory) -> None:  # type: ignore[no-untyped-def]
    c = collector_factory(source="file")
    c.start()
    loop = c._loop
    assert loop is not None and loop.alive
    c.close()
    assert not loop.alive


def test_zero_series_keeps_every_other_count() -> None:
    """Zero-initialising the alerted patterns must not drop the source counters."""
    from dataclasses import fields

    from zmon.collectors.kernel_log.metrics import TallySnapshot, zero_series

    snap = TallySnapshot({}, {}, {}, {"src": 3}, {"src": 1}, {"src": True}, {"src": 2})
    zeroed = zero_series(snap, ["crc_error"], ["sda"], ["tank"])
    for f in fields(TallySnapshot):
        if f.name not in ("events", "pool_events"):
            assert getattr(zeroed, f.name) == getattr(snap, f.name), f.name
    assert zeroed.events == {("crc_error", "sda"): 0}


def test_configured_missing_file_is_warned_of_once_and_served_as_not_followed(
    tmp_path: Path, collector_factory, capsys
) -> None:  # type: ignore[no-untyped-def]
    """A typo in kernel_log.files must not look like a quiet log: a warning, and the
    configured path served with zmon_kernel_log_following 0 (the alert reads it)."""
    c = collector_factory(source="file", files=["/var/log/kern.lgo"])
    c.start()
    follower = c._sources[0].follower
    wait_for(lambda: follower._missing)  # type: ignore[union-attr]
    ms = c.collect()
    assert ms.sample_value("zmon_kernel_log_following", {"source": "/var/log/kern.lgo"}) == 0
    wait_for(lambda: c._sources[0].told_closed)
    c._step()  # more polls: still one warning
    out = capsys.readouterr()
    text = out.out + out.err
    assert text.count("kernel log file cannot be followed") == 1
    assert "does not exist" in text and "kern.lgo" in text
    path = tmp_path / "root" / "var" / "log" / "kern.lgo"
    path.parent.mkdir(parents=True)
    path.write_text("")
    wait_for(lambda: not c._sources[0].told_closed)
    out = capsys.readouterr()
    assert "kernel log file followed again" in out.out + out.err


def test_an_unwritable_state_dir_is_served_per_collector(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its checkpoint cannot be kept: zmon_collector_state_writable 0 and a failure counted,
    through the scheduler as zmon serves them."""
    from zmon.base import durable
    from zmon.collecting.scheduler import Scheduler

    monkeypatch.setattr(durable, "_failures", {})  # this process's other tests count apart
    monkeypatch.setattr(durable, "_writable", {})

    log = tmp_path / "root" / "var" / "log" / "kern.log"
    log.parent.mkdir(parents=True)
    log.write_text("")
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    ctx = make_ctx(tmp_path, source="file", poll_interval=3600.0)
    ctx = Context(
        Paths(rootfs=ctx.paths.rootfs, procfs=ctx.paths.procfs, sysfs=ctx.paths.sysfs,
              state_dir=blocker / "state"),
        ctx.runner, ctx.options, ctx.platform,
    )  # fmt: skip
    c = KernelLogCollector(ctx)
    s = Scheduler()
    s.add(c, interval=60, timeout=10)
    try:
        s.workers["kernel_log"].run_once()
        text = s.snapshot.exposition.text.decode()
    finally:
        c.close()
    assert 'zmon_collector_state_writable{collector="kernel_log"} 0.0' in text
    assert 'zmon_collector_state_write_failures_total{collector="kernel_log"} 1.0' in text
