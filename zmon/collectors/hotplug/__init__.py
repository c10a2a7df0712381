"""Disk hotplug events (add, remove, change) counted per whole disk, from a udev netlink monitor.

A pyudev ``Monitor`` (subsystem ``block``, device type ``disk``) runs in a background thread
started by ``start()``. Every event drops the shared device map so the next reader rebuilds it.
Cardinality is bounded: after ``max_devices`` distinct disks, further ones count as ``other``.
Without pyudev, libudev or netlink (FreeBSD, some containers) the collector reports no data.
"""

from __future__ import annotations

import contextlib
import re
import select
import socket
import threading
from collections.abc import Callable
from typing import Any, Protocol, cast

from zmon.base.logs import get
from zmon.collecting.registry import Collector, Context, NoDataError, Option, register
from zmon.exposition.metrics import MetricSet
from zmon.host.devnames import whole_disk_name

log = get("hotplug")

ACTIONS = ("add", "remove", "change")
OVERFLOW = "other"
# How often a monitor without a file descriptor (a test's fake) is polled for a stop.
POLL_SECONDS = 0.5
# Block devices that come and go without any hardware (loop mounts, zvols, device mapper ...)
# and optical/floppy drives (media change events): not counted.
NOT_DISKS = re.compile(r"^(?:loop|ram|zram|dm-|md|nbd|zd|sr|fd|cd)\d+$")


class HotplugCounter:
    """Event counts per (device, action) with a cap on distinct devices. Thread-safe."""

    def __init__(self, max_devices: int = 64) -> None:
        self.max_devices = max_devices
        self._counts: dict[tuple[str, str], int] = {}
        self._devices: set[str] = set()
        self._lock = threading.Lock()
        self.capped = 0  # events of disks past max_devices (counted as OVERFLOW)

    def _slot(self, device: str) -> str:
        if device in self._devices:
            return device
        if len(self._devices) < self.max_devices:
            self._devices.add(device)
            return device
        return OVERFLOW

    def seed(self, device: str) -> None:
        """Start a device at zero for every action, so the first event is a visible increase."""
        with self._lock:
            name = self._slot(whole_disk_name(device))
            for action in ACTIONS:
                self._counts.setdefault((name, action), 0)

    def record(self, action: str | None, device: str | None) -> bool:
        """Count one event; False (ignored) for other actions and for virtual devices."""
        if action not in ACTIONS or not device or NOT_DISKS.match(device):
            return False
        with self._lock:
            disk = whole_disk_name(device)
            name = self._slot(disk)
            if name == OVERFLOW and disk != OVERFLOW:
                self.capped += 1
            for a in ACTIONS:
                self._counts.setdefault((name, a), 0)
            self._counts[(name, action)] += 1
        return True

    def snapshot(self) -> dict[tuple[str, str], int]:
        with self._lock:
            return dict(self._counts)


class Monitor(Protocol):
    """What the collector needs of a pyudev Monitor (tests inject a fake)."""

    def poll(self, timeout: float | None = None) -> Any: ...


def udev_monitor(source: str) -> Monitor:
    """A started pyudev monitor for whole-disk block events; raises if udev is unusable."""
    import pyudev

    context = pyudev.Context()
    monitor = pyudev.Monitor.from_netlink(context, source=source)
    monitor.filter_by(subsystem="block", device_type="disk")
    monitor.start()
    return cast(Monitor, monitor)


@register
class HotplugCollector(Collector):
    name = "hotplug"
    binaries = ("geom", "camcontrol")  # FreeBSD: the device map
    help = "disk add/remove/change events from udev (Linux, pyudev)"
    default_interval = 15.0
    default_timeout = 5.0
    options = (
        Option("max_devices", int, 64, "distinct disks counted; further ones count as 'other'"),
        Option("source", str, "udev",
               "netlink source: udev (events after udev rules ran) or kernel (raw uevents, "
               "for hosts without a udev daemon)", choices=("udev", "kernel")),
    )  # fmt: skip

    def __init__(
        self, ctx: Context, monitor_factory: Callable[[str], Monitor] | None = None
    ) -> None:
        super().__init__(ctx)
        self.counter = HotplugCounter(int(ctx.options.get("max_devices", 64)))
        self._factory = monitor_factory or udev_monitor
        self._unavailable: str | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._wake: tuple[socket.socket, socket.socket] | None = None  # close() wakes the thread
        self._error: str | None = None

    def start(self) -> None:
        if self.ctx.platform != "linux":
            self._unavailable = "hotplug events need Linux udev"
            return
        try:
            monitor = self._factory(str(self.ctx.options.get("source", "udev")))
        except Exception as exc:  # noqa: BLE001 - ImportError, OSError, pyudev errors alike
            self._unavailable = f"udev monitor unavailable: {type(exc).__name__}: {exc}"
            log.info("hotplug monitor unavailable", reason=self._unavailable)
            return
        try:
            for disk in self.ctx.device_map().disks():
                self.counter.seed(disk.name)
        except OSError:
            pass
        if hasattr(monitor, "fileno"):
            self._wake = socket.socketpair()
        self._thread = threading.Thread(
            target=self._run, args=(monitor,), name="zmon-hotplug-monitor", daemon=True
        )
        self._thread.start()

    def _run(self, monitor: Monitor) -> None:
        try:
            while not self._stop.is_set():
                device = self._next_event(monitor)
                if device is not None:
                    self.handle(getattr(device, "action", None), getattr(device, "sys_name", None))
        except Exception as exc:  # noqa: BLE001 - reported through collect()
            self._error = f"{type(exc).__name__}: {exc}"
            log.warning("hotplug monitor stopped", error=self._error)

    def _next_event(self, monitor: Monitor) -> Any:
        """The next event, or None. pyudev's monitor has a file descriptor: the thread sleeps
        on it and on ``close``'s wake-up, with no timeout, so an idle host costs nothing (a
        timed poll would wake the thread forever for events that rarely come); other
        monitors are polled."""
        if self._wake is None:
            return monitor.poll(timeout=POLL_SECONDS)
        woken = self._wake[0].fileno()
        ready, _, _ = select.select([cast(Any, monitor).fileno(), woken], [], [])
        if woken in ready:
            return None  # close() woke us: the loop sees the stop
        return monitor.poll(timeout=0)

    def handle(self, action: str | None, sys_name: str | None) -> None:
        """Count one udev event and drop the shared device map so it is read again."""
        if self.counter.record(action, sys_name):
            self.ctx.forget_device_map()

    def collect(self) -> MetricSet:
        if self._unavailable is not None or self._thread is None:
            raise NoDataError(self._unavailable or "hotplug monitor not started")
        if self._error is not None:
            raise RuntimeError(f"hotplug monitor stopped: {self._error}")
        ms = MetricSet()
        for (device, action), n in sorted(self.counter.snapshot().items()):
            ms.counter(
                "zmon_disk_hotplug_events_total",
                "Disk add/remove/change events seen by the udev monitor since zmon started "
                f'(at most {self.counter.max_devices} disks, the rest as device="other")',
                n,
                {"device": device, "action": action},
            )
        ms.counter(
            "zmon_disk_hotplug_capped_events_total",
            "Hotplug events of disks past the hotplug collector's max_devices, counted as "
            'device="other"',
            self.counter.capped,
        )
        return ms

    def close(self) -> None:
        self._stop.set()
        if self._wake is not None:
            with contextlib.suppress(OSError):
                self._wake[1].send(b"\0")
        if self._thread is not None:
            self._thread.join(2.0)
        if self._wake is not None and not (self._thread and self._thread.is_alive()):
            for end in self._wake:
                end.close()
            self._wake = None
