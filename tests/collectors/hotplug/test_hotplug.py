"""Hotplug counting: injected udev events, bounded devices, map refresh, degrading to no data."""

from __future__ import annotations

import os
import queue
import sys
import threading
from dataclasses import dataclass

import pytest

from tests.helpers import not_run
from tests.support.disks import make_ctx
from tests.support.waiting import wait_for
from zmon.collecting.registry import NoDataError
from zmon.collectors.hotplug import HotplugCollector, HotplugCounter


@dataclass
class FakeDevice:
    action: str
    sys_name: str


class FakeMonitor:
    """Stands in for pyudev.Monitor: poll() hands out queued events."""

    def __init__(self) -> None:
        self.events: queue.Queue[FakeDevice] = queue.Queue()

    def poll(self, timeout: float | None = None):
        try:
            return self.events.get(timeout=timeout)
        except queue.Empty:
            return None


def counts(ms):
    return {
        (s.labels["device"], s.labels["action"]): s.value
        for f in ms.families()
        for s in f.samples
        if s.name == "zmon_disk_hotplug_events_total"
    }


def test_counter_counts_per_whole_disk_and_action():
    c = HotplugCounter()
    assert c.record("add", "sdx")
    assert c.record("change", "sdx1")  # a partition counts for its disk
    assert c.record("remove", "sdx")
    assert not c.record("bind", "sdx")  # other actions are ignored
    assert not c.record("add", None)
    for virtual in ("loop7", "zd16", "dm-3", "md127", "sr0", "zram0", "nbd2"):
        assert not c.record("add", virtual)
    snap = c.snapshot()
    assert snap == {("sdx", "add"): 1, ("sdx", "remove"): 1, ("sdx", "change"): 1}


def test_counter_caps_distinct_devices():
    c = HotplugCounter(max_devices=2)
    for name in ("sda", "sdb", "sdc", "sdd", "sda"):
        c.record("add", name)
    snap = c.snapshot()
    assert snap[("sda", "add")] == 2 and snap[("sdb", "add")] == 1
    assert snap[("other", "add")] == 2
    assert {d for d, _ in snap} == {"sda", "sdb", "other"}


def test_seeded_devices_start_at_zero():
    c = HotplugCounter()
    c.seed("nvme0n1")
    assert c.snapshot() == {("nvme0n1", a): 0 for a in ("add", "remove", "change")}


def test_injected_events_are_counted_and_refresh_the_device_map():
    monitor = FakeMonitor()
    ctx = make_ctx({}, options={"max_devices": 64})
    col = HotplugCollector(ctx, monitor_factory=lambda source: monitor)
    col.start()
    try:
        ms = col.collect()
        assert counts(ms)[("sdc", "add")] == 0  # known disks are seeded
        assert len({d for d, _ in counts(ms)}) == 11
        old_map = ctx.device_map()
        monitor.events.put(FakeDevice("remove", "sdc"))
        monitor.events.put(FakeDevice("add", "sdc"))
        monitor.events.put(FakeDevice("add", "sdz"))
        assert wait_for(lambda: counts(col.collect()).get(("sdz", "add")) == 1)
        got = counts(col.collect())
        assert got[("sdc", "remove")] == 1 and got[("sdc", "add")] == 1
        assert got[("sdz", "remove")] == 0
        assert ctx.devices is not None and ctx.devices.peek() is not old_map  # dropped
    finally:
        col.close()


def test_monitor_failure_after_start_is_an_error():
    class Broken:
        def poll(self, timeout=None):
            raise OSError("netlink socket closed")

    ctx = make_ctx({})
    col = HotplugCollector(ctx, monitor_factory=lambda source: Broken())
    col.start()
    try:
        assert wait_for(lambda: col._error is not None)
        with pytest.raises(RuntimeError, match="netlink socket closed"):
            col.collect()
    finally:
        col.close()


@pytest.mark.parametrize(
    "error", [ImportError("No module named 'pyudev'"), OSError("Permission denied")]
)
def test_no_pyudev_or_netlink_means_no_data(error):
    def factory(source):
        raise error

    col = HotplugCollector(make_ctx({}), monitor_factory=factory)
    col.start()
    with pytest.raises(NoDataError, match="unavailable"):
        col.collect()
    col.close()


def test_freebsd_has_no_udev():
    col = HotplugCollector(make_ctx({}, platform="freebsd"), monitor_factory=lambda s: None)
    col.start()
    with pytest.raises(NoDataError):
        col.collect()


def test_not_started_means_no_data():
    with pytest.raises(NoDataError):
        HotplugCollector(make_ctx({})).collect()


@pytest.mark.real
@pytest.mark.skipif(sys.platform != "linux", reason="udev netlink is Linux only")
def test_real_pyudev_monitor_starts_and_stops():
    """The real monitor opens a netlink socket here; no events are expected."""
    try:
        import pyudev

        pyudev.Context()
    except ImportError as exc:  # pyudev or libudev.so.1 missing
        not_run(f"pyudev/libudev unavailable ({exc})", "install libudev1")
    col = HotplugCollector(make_ctx({}))
    col.start()
    try:
        ms = col.collect()
        assert counts(ms)  # seeded from the fake host's disks
        assert all(v == 0 for v in counts(ms).values())
    finally:
        col.close()
    assert col._thread is not None and not col._thread.is_alive()


def test_the_cap_counts_what_it_folded(golden):
    """Events of disks past max_devices are counted as device="other" and in their own
    counter; the exposition is the golden the metrics reference is made from."""
    from zmon.exposition.formats import render

    monitor = FakeMonitor()
    ctx = make_ctx({}, options={"max_devices": 11})  # the 11 known disks fill the cap
    col = HotplugCollector(ctx, monitor_factory=lambda source: monitor)
    col.start()
    try:
        assert col.collect().sample_value("zmon_disk_hotplug_capped_events_total") == 0
        for name in ("sdx", "sdy", "sdy1", "sdc"):
            monitor.events.put(FakeDevice("add", name))
        assert wait_for(lambda: counts(col.collect()).get(("sdc", "add")) == 1)
        ms = col.collect()
        assert ms.sample_value("zmon_disk_hotplug_capped_events_total") == 3
        assert counts(ms)[("other", "add")] == 3
        golden("disks/hotplug-capped.prom", render(ms.families()))
    finally:
        col.close()


class PipeMonitor:
    """A monitor with a file descriptor, as pyudev's: readable when an event is queued."""

    def __init__(self) -> None:
        self._r, self._w = os.pipe()
        self.events: queue.Queue[FakeDevice] = queue.Queue()
        self.timeouts: list[float | None] = []

    def fileno(self) -> int:
        return self._r

    def put(self, device: FakeDevice) -> None:
        self.events.put(device)
        os.write(self._w, b"\0")

    def poll(self, timeout: float | None = None) -> FakeDevice | None:
        self.timeouts.append(timeout)
        try:
            device = self.events.get_nowait()
        except queue.Empty:
            return None
        os.read(self._r, 1)
        return device

    def close(self) -> None:
        os.close(self._r)
        os.close(self._w)


def test_an_idle_monitor_thread_sleeps_until_an_event_or_close() -> None:
    """Polling with a timeout woke the thread twice a second on every host (0.04 % of a
    core on a busy one): a monitor with a file descriptor is waited on without one."""
    monitor = PipeMonitor()
    col = HotplugCollector(make_ctx({}), monitor_factory=lambda source: monitor)
    col.start()
    try:
        monitor.put(FakeDevice("add", "sdz"))
        assert wait_for(lambda: counts(col.collect()).get(("sdz", "add")) == 1)
        threading.Event().wait(1.2)  # idle: no poll comes from a timeout
        assert monitor.timeouts == [0]  # one read, of the event that woke it
    finally:
        col.close()
        monitor.close()
    assert col._thread is not None and not col._thread.is_alive()
