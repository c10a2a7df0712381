"""A synthetic host for comparing the evaluator with Prometheus: pools tank (raidz1-0 of sda,
sdb, sdc and mirror-1 of sdd, sde) and fast (one NVMe, no redundancy), over three hours at one
sample a minute, with the events the pool and cable declarations judge: a degraded and
faulted raidz member, a disk leaving its pool, a CRC blip, CRC errors that keep coming with an
exporter restart among them, a link reset on a disk whose media rises, hotplug flaps, checksum
errors, a timeout on the disk of a pool without redundancy and a suspended pool; and SAS
PHYs behind one expander: a boot step on sda's link, errors that keep coming on the links of
sdb, sdd and sde (one expander erring on three links; sde is also seen through a second HBA),
and sdc's own PHY counting errors until it leaves."""

from __future__ import annotations

from collections.abc import Callable

STEP = 60  # seconds between samples, and between rule evaluations
MINUTES = 180
HOST = {"instance": "h1", "job": "zmon"}

Series = dict[tuple[str, tuple[tuple[str, str], ...]], list[float | None]]


def _series(
    out: Series, name: str, labels: dict[str, str], at: Callable[[int], float | None]
) -> None:
    key = (name, tuple(sorted({**HOST, **labels}.items())))
    out[key] = [at(i) for i in range(MINUTES + 1)]


def _counter(events: dict[int, float], reset_at: int | None = None) -> Callable[[int], float]:
    def at(i: int) -> float:
        start = reset_at if reset_at is not None and i >= reset_at else 0
        return sum(n for m, n in events.items() if start <= m <= i)

    return at


SAS_COUNTERS = ("invalid_dwords", "running_disparity_errors", "loss_of_dword_sync")


def _sas(out: Series) -> None:
    """The SAS PHYs: expander-0:0 links sda to sde but sdc; host1 links sde a second time."""
    phys = {"phy-0:0:0": ("expander-0:0", "sda"), "phy-0:0:1": ("expander-0:0", "sdb"),
            "phy-0:0:2": ("expander-0:0", "sdd"), "phy-0:0:3": ("expander-0:0", "sde"),
            "phy-0:0:8": ("expander-0:0", ""), "phy-1:0": ("host1", "sde")}  # fmt: skip
    errors = {("phy-0:0:0", "invalid_dwords"): {10: 40},  # link training at boot: one step
              ("phy-0:0:1", "invalid_dwords"): {m: 3 for m in range(110, 181, 5)},
              ("phy-0:0:2", "running_disparity_errors"): {m: 2 for m in range(120, 181, 5)},
              ("phy-0:0:3", "loss_of_dword_sync"): {m: 1 for m in range(125, 181, 5)}}  # fmt: skip
    for phy, (parent, device) in phys.items():
        attached = "disk" if device else ""
        info = {"phy": phy, "parent": parent, "attached": attached, "device": device,
                "slot": f"Slot{phy[-1]}" if device else ""}  # fmt: skip
        _series(out, "zmon_sas_phy_info", info, lambda i: 1.0)
        for counter in SAS_COUNTERS:
            labels = {"phy": phy, "device": device}
            _series(out, f"zmon_sas_phy_{counter}_total", labels,
                    _counter(errors.get((phy, counter), {})))  # fmt: skip
    for counter in SAS_COUNTERS:  # sdc's own PHY (smartctl), errors every 10 minutes
        events = {m: 1 for m in range(5, 100, 10)} if counter == "invalid_dwords" else {}
        _series(out, f"zmon_disk_sas_phy_{counter}_total",
                {"device": "sdc", "port": "1", "phy": "0"}, _counter(events))  # fmt: skip


def series() -> Series:
    out: Series = {}
    during = lambda a, b: lambda i: 1.0 if a <= i < b else 0.0  # noqa: E731
    outside = lambda a, b: lambda i: 0.0 if a <= i < b else 1.0  # noqa: E731
    # pool states
    for state, fn in (("online", outside(60, 120)), ("degraded", during(60, 120))):
        _series(out, "zmon_pool_state", {"pool": "tank", "state": state}, fn)
    for state, fn in (("online", outside(150, 999)), ("suspended", during(150, 999))):
        _series(out, "zmon_pool_state", {"pool": "fast", "state": state}, fn)
    # the vdev tree
    leaves = {"sda": "raidz1-0", "sdb": "raidz1-0", "sdc": "raidz1-0", "sdd": "mirror-1",
              "sde": "mirror-1"}  # fmt: skip
    for device, parent in leaves.items():
        gone = (lambda i: None if i >= 100 else 1.0) if device == "sdc" else (lambda i: 1.0)
        labels = {"pool": "tank", "vdev": device, "device": device, "type": "disk",
                  "parent": parent, "class": "normal"}  # fmt: skip
        _series(out, "zmon_vdev_info", labels, gone)
    for vdev, kind in (("raidz1-0", "raidz"), ("mirror-1", "mirror")):
        labels = {"pool": "tank", "vdev": vdev, "device": "", "type": kind, "parent": "tank",
                  "class": "normal"}  # fmt: skip
        _series(out, "zmon_vdev_info", labels, lambda i: 1.0)
    _series(out, "zmon_vdev_info", {"pool": "tank", "vdev": "tank", "type": "root",
                                    "class": "normal"}, lambda i: 1.0)  # fmt: skip
    _series(out, "zmon_vdev_info", {"pool": "fast", "vdev": "nvme0n1", "device": "nvme0n1",
                                    "type": "disk", "parent": "fast", "class": "normal"},
            lambda i: 1.0)  # fmt: skip
    states = {
        ("tank", "raidz1-0"): {"online": outside(60, 120), "degraded": during(60, 120)},
        ("tank", "sdb"): {"online": outside(60, 120), "faulted": during(60, 120)},
        ("tank", "mirror-1"): {"online": lambda i: 1.0},
        ("tank", "sdd"): {"online": lambda i: 1.0, "inuse": during(170, 999)},
        ("fast", "nvme0n1"): {"online": lambda i: 1.0},
    }
    for (pool, vdev), by_state in states.items():
        for state, fn in by_state.items():
            labels = {"pool": pool, "vdev": vdev, "class": "normal", "state": state}
            _series(out, "zmon_vdev_state", labels, fn)
    redundancy = {
        ("tank", "raidz1-0"): lambda i: 0.0 if 60 <= i < 120 else 1.0,
        ("tank", "mirror-1"): lambda i: 1.0,
        ("fast", "nvme0n1"): lambda i: 0.0,
    }
    for (pool, vdev), fn in redundancy.items():  # fmt: skip
        _series(out, "zmon_vdev_redundancy", {"pool": pool, "vdev": vdev, "class": "normal"}, fn)
    # link errors
    crc = {"sda": _counter({20: 1}), "sdb": _counter({}), "sdc": _counter({}),
           "sde": _counter({}), "nvme0n1": _counter({}),
           "sdd": _counter({m: 1 for m in range(30, 100, 10)}, reset_at=70)}  # fmt: skip
    for device, fn in crc.items():
        _series(out, "zmon_disk_crc_errors_total", {"device": device}, fn)
    logged = {("sde", "link_reset"): {40: 1}, ("nvme0n1", "ata_timeout"): {130: 1},
              ("sda", "medium_error"): {50: 2}}  # fmt: skip
    for (device, pattern), events in logged.items():
        _series(out, "zmon_kernel_log_events_total", {"device": device, "pattern": pattern},
                _counter(events))  # fmt: skip
    _series(out, "zmon_disk_hotplug_events_total", {"device": "sdc", "action": "remove"},
            _counter({95: 1, 97: 1}))  # fmt: skip
    for device in ("sda", "sdb", "sdc", "sdd", "sde"):
        rising = (lambda i: 8.0 if i >= 45 else 0.0) if device == "sde" else (lambda i: 0.0)
        _series(out, "zmon_disk_reallocated_sectors", {"device": device}, rising)
        _series(out, "zmon_disk_pending_sectors", {"device": device}, lambda i: 0.0)
        _series(out, "zmon_disk_offline_uncorrectable_sectors", {"device": device}, lambda i: 0.0)
    _sas(out)
    # checksum errors on sdd, read errors that keep coming on sda, error events
    vdev_errors = {("checksum", "sdd"): {80: 3}, ("read", "sda"): {m: 2 for m in range(140, 145)},
                   ("write", "nvme0n1"): {152: 4}}  # fmt: skip
    for (pool, vdev, klass), events in {
        ("tank", "sda", "io"): {141: 2},
        ("fast", "nvme0n1", "deadman"): {160: 1},
    }.items():
        _series(out, "zmon_zfs_events_total", {"pool": pool, "vdev": vdev, "class": klass},
                _counter(events))  # fmt: skip
    _series(out, "zmon_pool_data_errors", {"pool": "fast"}, lambda i: 2.0 if i >= 165 else 0.0)
    _series(out, "zmon_pool_kstat_state", {"pool": "fast", "state": "suspended"},
            lambda i: 1.0 if i >= 150 else 0.0)  # fmt: skip
    for kind in ("read", "write", "checksum"):
        for pool, vdev in (("tank", "sdd"), ("tank", "sda"), ("fast", "nvme0n1")):
            events = vdev_errors.get((kind, vdev), {})
            _series(out, f"zmon_vdev_{kind}_errors_total",
                    {"pool": pool, "vdev": vdev, "class": "normal"}, _counter(events))  # fmt: skip
    # a UPS on battery during a scrub, its runtime short, then low; a second one unreachable
    _series(out, "zmon_ups_status", {"ups": "ups1", "flag": "OB"}, during(100, 130))
    _series(out, "zmon_ups_status", {"ups": "ups1", "flag": "LB"}, during(125, 130))
    _series(out, "zmon_ups_battery_runtime_seconds", {"ups": "ups1"},
            lambda i: 300.0 if 110 <= i < 130 else 1800.0)  # fmt: skip
    _series(out, "zmon_ups_up", {"ups": "ups2", "server": "nut"}, outside(20, 40))
    _series(out, "zmon_ups_server_up", {"server": "nut"}, lambda i: 1.0)
    _series(out, "zmon_pool_scan_in_progress", {"pool": "tank", "function": "scrub"},
            during(90, 115))  # fmt: skip
    # zmon's own blind spots
    _series(out, "zmon_kernel_log_following", {"source": "/var/log/kern.log"}, outside(10, 40))
    _series(out, "zmon_collector_state_writable", {"collector": "kernel_log"}, outside(150, 999))
    from tests.health import scenario_disks, scenario_scans  # they build on this module's helpers
    from tests.health.scenario_memory import memory

    scenario_scans.add(out)
    memory(out)
    scenario_disks.add(out)  # the disks' own health: SMART, sectors, NVMe, temperature, link
    return out
