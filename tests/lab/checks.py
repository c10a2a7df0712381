"""What the live lab asserts at each step of the fault sequence (tests/lab/guest/driver.sh).

One row per assertion. To add one: name the step(s), the metric, a label selector (a tuple
is "any of"; ``$name`` is a fact the guest published: ``$dev.<by-id name>`` is that disk's
kernel name, ``$removed`` the disk a step hot-removed), the expectation and a short "what".
A row whose metric no collector exports yet keeps its place with ``pending="reason"``: it
is evaluated and reported (PENDING / PENDING-PASSES) but does not fail the run. Drop the
``pending`` once the collector lands.
"""

from __future__ import annotations

from tests.lab.engine import (
    ALL_STEPS,
    AllCollectorsSucceed,
    Check,
    absent,
    advancing,
    any_of,
    between,
    check,
    eq,
    ge,
    greater_than_at,
    gt,
    present,
    same_as,
    stalled,
)

VERSIONS = ("2.1.11", "2.3.2")

HEALTHY = "01-healthy"
SCRUB_RUNNING = "02-scrub-in-progress"
SCRUB_DONE = "03-scrub-finished"
CKSUM = "04-checksum-errors-repaired"
IO_ERRORS = "05-io-errors"
PERMANENT = "06-permanent-errors"
OFFLINE = "07-degraded-offline"
FAULTED = "08-faulted"
RESILVER_RUNNING = "09-resilver-in-progress"
RESILVER_STALLED = "10-resilver-stalled"
RESILVER_DONE = "11-resilver-finished"
SPARE_INUSE = "12-spare-in-use"
REMOVED = "13-device-removed"
SUSPENDED = "14-pool-suspended"
STEPS = (
    HEALTHY,
    SCRUB_RUNNING,
    SCRUB_DONE,
    CKSUM,
    IO_ERRORS,
    PERMANENT,
    OFFLINE,
    FAULTED,
    RESILVER_RUNNING,
    RESILVER_STALLED,
    RESILVER_DONE,
    SPARE_INUSE,
    REMOVED,
    SUSPENDED,
)

SATA0, SATA1 = "ata-QEMU_HARDDISK_ZLSATA0", "ata-QEMU_HARDDISK_ZLSATA1"
SATA2, SATA3 = "ata-QEMU_HARDDISK_ZLSATA2", "ata-QEMU_HARDDISK_ZLSATA3"
NVME0, NVME1 = "nvme-QEMU_NVMe_Ctrl_ZLNVME0", "nvme-QEMU_NVMe_Ctrl_ZLNVME1"
MIB = 1 << 20
UPS = "labups"  # served by the host's upsd, see HOST_ACTIONS

# What the host changes after a step's checks, before the guest goes on:
# step -> the dummy UPS's new variables (tests/lab/session.py).
UPS_BASE = {
    "device.mfr": "Acme Power",
    "device.model": "Lab-1500",
    "ups.load": "012.0",
    "battery.charge.low": "20",
    "battery.runtime.low": "120",
}
UPS_ONLINE = {
    **UPS_BASE,
    "ups.status": "OL",
    "battery.charge": "100",
    "battery.runtime": "3600",
    "input.voltage": "230.0",
}
HOST_ACTIONS: dict[str, dict[str, str]] = {
    IO_ERRORS: {
        **UPS_BASE,
        "ups.status": "OB LB",
        "battery.charge": "15",
        "battery.runtime": "90",
        "input.voltage": "0.0",
    },
    PERMANENT: {**UPS_ONLINE, "ups.status": "OL CHRG", "battery.charge": "40"},
}


def dev(by_id: str) -> str:
    """Fact reference: the kernel name of a by-id disk at boot (sda, nvme0n1 ...)."""
    return f"$dev.{by_id}"


def pool_state(steps, pool: str, state: str, **kw) -> Check:  # type: ignore[no-untyped-def]
    return check(
        steps,
        "zmon_pool_state",
        {"pool": pool, "state": state},
        eq(1),
        f"pool {pool} is {state}",
        **kw,
    )


def vdev_state(steps, pool: str, vdev: str, state: str, **kw) -> Check:  # type: ignore[no-untyped-def]
    labels = {"pool": pool, "vdev": vdev, "state": state}
    if "cls" in kw:
        labels["class"] = kw.pop("cls")
    return check(steps, "zmon_vdev_state", labels, eq(1), f"{pool} vdev {vdev} is {state}", **kw)


def errors(steps, kind: str, pool: str, vdev: str, expect, **kw) -> Check:  # type: ignore[no-untyped-def]
    return check(
        steps,
        f"zmon_vdev_{kind}_errors_total",
        {"pool": pool, "vdev": vdev},
        expect,
        f"{kind} errors on {pool} {vdev}",
        **kw,
    )


def events(steps, pool: str, cls: str, expect, **kw) -> Check:  # type: ignore[no-untyped-def]
    return check(
        steps,
        "zmon_zfs_events_total",
        {"pool": pool, "class": cls},
        expect,
        f"zpool events: {cls} on {pool}",
        **kw,
    )


def scan(steps, pool: str, function: str, running: int, **kw) -> Check:  # type: ignore[no-untyped-def]
    return check(
        steps,
        "zmon_pool_scan_in_progress",
        {"pool": pool, "function": function},
        eq(running),
        f"{function} on {pool} {'runs' if running else 'not running'}",
        **kw,
    )


# The captures in tests/fixtures/lab/ were recorded before the zfs_module collector existed;
# drop this once `make lab-capture` has recorded a run with it.
_NOT_RECORDED = "zfs_module is newer than the recorded lab captures"

CHECKS: list[Check] = [
    # ------------------------------------------------------------------ every step
    check(ALL_STEPS, "zmon_build_info", {}, eq(1), "zmon_build_info is 1"),
    check(ALL_STEPS, "zmon_arc_size_bytes", {}, gt(0), "ARC size"),
    check(
        ALL_STEPS,
        "zmon_collector_duration_seconds",
        {"collector": "zpool"},
        gt(0),
        "the zpool collector's run time",
    ),
    check(
        ALL_STEPS,
        "zmon_collector_last_success_timestamp_seconds",
        {"collector": "zpool"},
        gt(1.7e9),
        "the zpool collector's last success (Unix time)",
    ),
    pool_state([s for s in STEPS if s not in (FAULTED,)], "rz", "online"),
    pool_state([s for s in STEPS if s not in (OFFLINE, REMOVED, SUSPENDED)], "tank", "online"),
    pool_state(SUSPENDED, "tank", "degraded"),  # its disk removed at REMOVED never came back
    pool_state(ALL_STEPS, "single", "online"),
    # ------------------------------------------------------------------ healthy
    check(HEALTHY, "zmon_arc_target_size_bytes", {}, gt(0), "ARC target size (c)"),
    check(HEALTHY, "zmon_arc_max_size_bytes", {}, gt(0), "ARC max size (c_max)"),
    check(HEALTHY, "zmon_arc_hits_total", {}, gt(0), "ARC hits"),
    check(HEALTHY, "zmon_arc_misses_total", {}, ge(0), "ARC misses (0 is real: no reads yet)"),
    check(HEALTHY, "zmon_arc_mru_ghost_hits_total", {}, ge(0), "ARC MRU ghost hits"),
    check(HEALTHY, "zmon_arc_mfu_ghost_hits_total", {}, ge(0), "ARC MFU ghost hits"),
    check(HEALTHY, "zmon_arc_l2_hits_total", {}, ge(0), "L2ARC hits (tank has a cache vdev)"),
    check(HEALTHY, "zmon_arc_l2_misses_total", {}, ge(0), "L2ARC misses"),
    check(HEALTHY, "zmon_arc_l2_size_bytes", {}, ge(0), "L2ARC size"),
    vdev_state(HEALTHY, "tank", "mirror-0", "online"),
    vdev_state(HEALTHY, "tank", SATA0, "online"),
    vdev_state(HEALTHY, "tank", SATA1, "online"),
    vdev_state(HEALTHY, "tank", "vdd", "online"),
    vdev_state(HEALTHY, "tank", "vde", "online"),
    vdev_state(HEALTHY, "tank", SATA2, "avail", cls="spare"),
    vdev_state(HEALTHY, "rz", "raidz1-0", "online"),
    vdev_state(HEALTHY, "rz", "vdc", "online"),
    vdev_state(HEALTHY, "single", NVME1, "online"),
    check(
        HEALTHY,
        "zmon_vdev_checksum_errors_total",
        {"pool": ("tank", "rz", "single")},
        eq(0),
        "no checksum errors anywhere",
    ),
    check(
        HEALTHY,
        "zmon_vdev_read_errors_total",
        {"pool": ("tank", "rz", "single")},
        eq(0),
        "no read errors anywhere",
    ),
    check(HEALTHY, "zmon_pool_data_errors", {"pool": "tank"}, eq(0), "no data errors on tank"),
    scan(HEALTHY, "tank", "scrub", 0),
    check(HEALTHY, "zmon_pool_size_bytes", {"pool": "tank"}, gt(900 * MIB), "tank size"),
    check(
        HEALTHY,
        "zmon_pool_allocated_bytes",
        {"pool": "tank"},
        gt(100 * MIB),
        "tank holds the data written",
    ),
    check(HEALTHY, "zmon_pool_free_bytes", {"pool": "tank"}, gt(0), "tank free space"),
    check(
        HEALTHY,
        "zmon_pool_fragmentation_ratio",
        {"pool": "tank"},
        between(0, 1),
        "fragmentation is a ratio",
    ),
    check(HEALTHY, "zmon_pool_dedup_ratio", {"pool": "tank"}, eq(1), "no dedup"),
    # vdev -> whole-disk device mapping (the join key with SMART and the kernel log)
    check(
        HEALTHY,
        "zmon_vdev_info",
        {"pool": "tank", "vdev": SATA0, "device": dev(SATA0)},
        eq(1),
        "by-id vdev maps to its sdX",
    ),
    check(
        HEALTHY,
        "zmon_vdev_info",
        {"pool": "rz", "vdev": "vda", "device": "vda"},
        eq(1),
        "short-name vdev maps to itself",
    ),
    check(
        HEALTHY,
        "zmon_vdev_info",
        {"pool": "single", "vdev": NVME1, "device": dev(NVME1)},
        eq(1),
        "NVMe by-id vdev maps to its nvmeXn1",
    ),
    # SMART of the emulated disks (qemu's synthetic values)
    check(
        HEALTHY,
        "zmon_disk_info",
        {"device": dev(SATA0), "serial": "ZLSATA0"},
        eq(1),
        "SMART identity of the AHCI disk",
    ),
    check(
        HEALTHY,
        "zmon_disk_smart_passed",
        {"device": dev(SATA0)},
        eq(1),
        "SMART health of the AHCI disk",
    ),
    check(
        HEALTHY,
        "zmon_disk_smart_passed",
        {"device": dev(NVME0)},
        eq(1),
        "SMART health of the NVMe disk",
    ),
    check(
        HEALTHY,
        "zmon_disk_nvme_media_errors_total",
        {"device": dev(NVME0)},
        eq(0),
        "NVMe media errors",
    ),
    check(
        HEALTHY,
        "zmon_disk_temperature_celsius",
        {"device": dev(NVME0)},
        between(0, 100),
        "NVMe temperature",
    ),
    check(
        HEALTHY,
        "zmon_disk_temperature_celsius",
        {"device": dev(SATA0)},
        between(0, 100),
        "ATA temperature (attribute 190)",
    ),
    check(
        HEALTHY, "zmon_disk_reallocated_sectors", {"device": dev(SATA0)}, eq(0), "ATA attribute 5"
    ),
    check(
        HEALTHY,
        "zmon_disk_nvme_percentage_used_ratio",
        {"device": dev(NVME0)},
        eq(0),
        "NVMe percentage used",
    ),
    check(
        HEALTHY,
        "zmon_disk_standby",
        {"device": (dev(SATA0), dev(NVME0))},
        eq(0),
        "the disks are awake (checked with --nocheck=standby)",
    ),
    # qemu's ATA SMART has attributes 1, 3, 4, 5, 9, 12 and 190 only: zmon invents no others
    check(
        HEALTHY,
        "zmon_disk_pending_sectors",
        {"device": dev(SATA0)},
        absent(),
        "no attribute 197, no series",
    ),
    check(
        HEALTHY,
        "zmon_disk_offline_uncorrectable_sectors",
        {"device": dev(SATA0)},
        absent(),
        "no attribute 198, no series",
    ),
    check(
        HEALTHY,
        "zmon_disk_crc_errors_total",
        {"device": dev(SATA0)},
        absent(),
        "no attribute 199, no series",
    ),
    # UPS: a real NUT upsd with dummy-ups on the host, reached at 10.0.2.2 (qemu user net)
    check(HEALTHY, "zmon_ups_up", {"ups": UPS}, eq(1), "the host's UPS answers"),
    check(HEALTHY, "zmon_ups_status", {"ups": UPS, "flag": "OL"}, eq(1), "UPS on line"),
    check(HEALTHY, "zmon_ups_status", {"ups": UPS, "flag": "OB"}, eq(0), "UPS not on battery"),
    check(HEALTHY, "zmon_ups_battery_charge_ratio", {"ups": UPS}, eq(1), "battery full"),
    check(HEALTHY, "zmon_ups_battery_runtime_seconds", {"ups": UPS}, eq(3600), "runtime"),
    check(HEALTHY, "zmon_ups_load_ratio", {"ups": UPS}, eq(0.12), "UPS load"),
    check(HEALTHY, "zmon_ups_input_voltage_volts", {"ups": UPS}, eq(230), "mains voltage"),
    # I/O performance: zpool iostat -w histograms, txg history, dmu_tx
    check(
        HEALTHY,
        "zmon_pool_io_latency_seconds_count",
        {"pool": "tank"},
        gt(0),
        "zpool iostat -w: the writes so far in the latency histogram",
    ),
    check(
        HEALTHY,
        "zmon_pool_txg_written_bytes_total",
        {"pool": "tank"},
        gt(MIB),
        "txg history: bytes the txgs wrote",
    ),
    check(
        HEALTHY,
        "zmon_pool_txg_sync_duration_seconds_count",
        {"pool": "tank"},
        gt(0),
        "txg history: sync times",
    ),
    check(HEALTHY, "zmon_dmu_tx_assigned_total", {}, gt(0), "dmu_tx: transactions assigned"),
    check(
        HEALTHY,
        "zmon_pool_queue_pending_ios",
        {"pool": "tank"},
        ge(0),
        "zpool iostat -q: queue depths",
    ),
    # zpool events and the kernel log are followed from the start
    events(HEALTHY, "tank", "history_event", ge(1)),
    check(HEALTHY, "zmon_kernel_log_lines_read_total", {}, gt(0), "kernel log (/dev/kmsg) read"),
    # the loaded module: stock tunables, fresh pools have every feature the module supports
    check(HEALTHY, "zmon_zfs_module_info", {}, present(), "module version", pending=_NOT_RECORDED),
    check(
        HEALTHY,
        "zmon_zfs_module_parameters_changed",
        {},
        eq(0),
        "stock module: no curated tunable changed",
        pending=_NOT_RECORDED,
    ),
    check(
        HEALTHY,
        "zmon_pool_features_upgradable",
        {"pool": ("tank", "rz", "single")},
        eq(0),
        "fresh pools: nothing for zpool upgrade",
        pending=_NOT_RECORDED,
    ),
    # ------------------------------------------------------------------ scrub
    scan(SCRUB_RUNNING, "tank", "scrub", 1),
    check(
        SCRUB_RUNNING,
        "zmon_pool_scan_info",
        {"pool": "tank", "function": "scrub", "state": "in_progress"},
        eq(1),
        "scan info",
    ),
    check(
        SCRUB_RUNNING,
        "zmon_pool_scan_examined_bytes",
        {"pool": "tank"},
        gt(0),
        "scrub examined bytes",
    ),
    check(
        SCRUB_RUNNING,
        "zmon_pool_scan_to_examine_bytes",
        {"pool": "tank"},
        gt(100 * MIB),
        "scrub total bytes",
    ),
    check(
        SCRUB_RUNNING,
        "zmon_pool_scan_start_time_seconds",
        {"pool": "tank"},
        gt(0),
        "scrub start time",
    ),
    check(
        SCRUB_RUNNING,
        "zmon_pool_scan_issued_bytes",
        {"pool": "tank"},
        advancing(60),
        "a running scrub makes progress",
    ),
    check(
        SCRUB_RUNNING,
        "zmon_vdev_slow_ios_total",
        {"pool": "tank", "vdev": (SATA0, SATA1)},
        gt(0),
        "delayed I/Os over zio_slow_io_ms count as slow",
    ),
    events(SCRUB_RUNNING, "tank", "delay", ge(1)),
    check(
        SCRUB_RUNNING,
        "zmon_zfs_module_parameter_value",
        {"parameter": "zio_slow_io_ms"},
        eq(100),
        "the lowered zio_slow_io_ms is reported",
        pending=_NOT_RECORDED,
    ),
    scan(SCRUB_DONE, "tank", "scrub", 0),
    check(
        SCRUB_DONE,
        "zmon_pool_scan_info",
        {"pool": "tank", "function": "scrub", "state": "finished"},
        eq(1),
        "scrub finished",
    ),
    check(SCRUB_DONE, "zmon_pool_scan_errors", {"pool": "tank"}, eq(0), "scrub found nothing"),
    check(
        SCRUB_DONE,
        "zmon_zfs_module_parameters_changed",
        {},
        eq(0),
        "zio_slow_io_ms back at its default",
        pending=_NOT_RECORDED,
    ),
    check(
        SCRUB_DONE,
        "zmon_pool_last_scrub_end_time_seconds",
        {"pool": "tank"},
        gt(0),
        "last scrub end time",
    ),
    check(
        SCRUB_DONE, "zmon_pool_scan_end_time_seconds", {"pool": "tank"}, gt(1.7e9), "scan end time"
    ),
    check(
        SCRUB_DONE,
        "zmon_pool_io_latency_seconds_count",
        {"pool": "tank"},
        greater_than_at(HEALTHY),
        "the scrub's I/Os in the latency histogram",
    ),
    events(SCRUB_DONE, "tank", "scrub_finish", ge(1)),
    # ------------------------------------------------------------------ checksum errors
    errors(CKSUM, "checksum", "tank", SATA1, gt(0)),
    errors(CKSUM, "checksum", "tank", SATA0, eq(0)),
    check(CKSUM, "zmon_pool_scan_processed_bytes", {"pool": "tank"}, gt(0), "scrub repaired"),
    check(CKSUM, "zmon_pool_data_errors", {"pool": "tank"}, eq(0), "all repaired: no data errors"),
    check(
        CKSUM,
        "zmon_pool_last_scrub_end_time_seconds",
        {"pool": "tank"},
        greater_than_at(SCRUB_DONE),
        "a newer scrub",
    ),
    events(CKSUM, "tank", "checksum", ge(1)),
    # ------------------------------------------------------------------ I/O errors
    errors(IO_ERRORS, "read", "rz", "vdc", gt(0)),
    errors(IO_ERRORS, "write", "rz", "vdc", gt(0)),
    events(IO_ERRORS, "rz", "io", ge(1)),
    # ------------------------------------------------------------------ permanent errors
    check(PERMANENT, "zmon_pool_data_errors", {"pool": "single"}, ge(1), "permanent errors"),
    check(
        PERMANENT,
        "zmon_pool_status_info",
        {"pool": "single", "status_id": "ZFS-8000-8A"},
        eq(1),
        "status ZFS-8000-8A",
    ),
    check(PERMANENT, "zmon_pool_scan_errors", {"pool": "single"}, gt(0), "scrub found errors"),
    errors(PERMANENT, "checksum", "single", NVME1, gt(0)),
    events(PERMANENT, "single", "data", ge(1)),
    # the host's UPS lost mains power after step 05 (HOST_ACTIONS)
    check(
        PERMANENT,
        "zmon_ups_status",
        {"ups": UPS, "flag": ("OB", "LB")},
        eq(2),
        "UPS on battery, battery low",
    ),
    check(PERMANENT, "zmon_ups_status", {"ups": UPS, "flag": "OL"}, eq(0), "UPS off line"),
    check(PERMANENT, "zmon_ups_battery_charge_ratio", {"ups": UPS}, eq(0.15), "battery low"),
    check(PERMANENT, "zmon_ups_input_voltage_volts", {"ups": UPS}, eq(0), "no mains"),
    # ------------------------------------------------------------------ offline -> DEGRADED
    pool_state(OFFLINE, "tank", "degraded"),
    check(
        OFFLINE,
        "zmon_ups_status",
        {"ups": UPS, "flag": ("OL", "CHRG")},
        eq(2),
        "mains back, charging",
    ),
    vdev_state(OFFLINE, "tank", SATA1, "offline"),
    vdev_state(OFFLINE, "tank", "mirror-0", "degraded"),
    events(OFFLINE, "tank", "statechange", ge(1)),
    # ------------------------------------------------------------------ FAULTED
    pool_state(FAULTED, "rz", "degraded"),
    vdev_state(FAULTED, "rz", "vdc", "faulted"),
    vdev_state(FAULTED, "rz", "raidz1-0", "degraded"),
    # ------------------------------------------------------------------ resilver
    scan(RESILVER_RUNNING, "tank", "resilver", 1),
    check(
        RESILVER_RUNNING,
        "zmon_vdev_info",
        {"pool": "tank", "vdev": "replacing-1"},
        eq(1),
        "replacing vdev",
    ),
    check(
        RESILVER_RUNNING,
        "zmon_vdev_info",
        {"pool": "tank", "vdev": NVME0, "device": dev(NVME0)},
        eq(1),
        "the new disk maps to its device",
    ),
    check(
        RESILVER_RUNNING,
        "zmon_pool_scan_issued_bytes",
        {"pool": "tank"},
        advancing(60),
        "a running resilver makes progress",
    ),
    events(RESILVER_RUNNING, "tank", "resilver_start", ge(1)),
    scan(RESILVER_STALLED, "tank", "resilver", 1),
    check(
        RESILVER_STALLED,
        "zmon_pool_scan_issued_bytes",
        {"pool": "tank"},
        stalled(20, MIB),
        "a stalled resilver does not move",
    ),
    scan(RESILVER_DONE, "tank", "resilver", 0),
    check(
        RESILVER_DONE,
        "zmon_pool_scan_info",
        {"pool": "tank", "function": "resilver", "state": "finished"},
        eq(1),
        "resilver finished",
    ),
    check(
        RESILVER_DONE,
        "zmon_pool_last_scrub_end_time_seconds",
        {"pool": "tank"},
        same_as(CKSUM),
        "last scrub time survives the resilver",
    ),
    check(
        RESILVER_DONE,
        "zmon_vdev_info",
        {"pool": "tank", "vdev": "replacing-1"},
        absent(),
        "replacing vdev gone",
    ),
    vdev_state(RESILVER_DONE, "tank", NVME0, "online"),
    events(RESILVER_DONE, "tank", "resilver_finish", ge(1)),
    # ------------------------------------------------------------------ spare
    vdev_state(SPARE_INUSE, "tank", SATA2, "inuse", cls="spare"),
    check(
        SPARE_INUSE, "zmon_vdev_info", {"pool": "tank", "vdev": "spare-1"}, eq(1), "spare-1 vdev"
    ),
    # ------------------------------------------------------------------ device removed
    pool_state(REMOVED, "tank", "degraded"),
    vdev_state(REMOVED, "tank", SATA0, "removed"),
    vdev_state(REMOVED, "tank", SATA2, "inuse", cls="spare"),
    events(REMOVED, "tank", "statechange", greater_than_at(SPARE_INUSE)),
    check(
        REMOVED,
        "zmon_kernel_log_events_total",
        {"pattern": "zio_error", "device": ("$removed", SATA0, f"{SATA0}-part1")},
        ge(1),
        "kernel log: zio errors of the removed disk",
    ),
    # ------------------------------------------------------------------ suspended
    pool_state(SUSPENDED, "fragile", "suspended", versions=("2.3.2",)),
    check(
        SUSPENDED,
        "zmon_pool_io_suspended",
        {"pool": "fragile"},
        eq(1),
        "I/O suspended",
        versions=("2.3.2",),
    ),
    check(
        SUSPENDED,
        "zmon_kernel_log_pool_events_total",
        {"pattern": "pool_suspended", "pool": "fragile"},
        ge(1),
        "kernel log: pool suspended",
        versions=("2.3.2",),
    ),
    check(
        SUSPENDED,
        "zmon_vdev_info",
        {"pool": "fragile", "vdev": SATA3},
        present(),
        "fragile's disk still listed",
        versions=("2.3.2",),
    ),
    # 2.1.11 keeps the pool ONLINE and retries the writes forever; `zpool status` may then
    # hang in the kernel, which zmon must show as a stale collector (and keep serving)
    any_of(
        SUSPENDED,
        "2.1.11: fragile ONLINE with write errors, or zpool status hangs",
        check(
            SUSPENDED,
            "zmon_vdev_write_errors_total",
            {"pool": "fragile", "vdev": SATA3},
            gt(0),
            "write errors",
        ),
        check(SUSPENDED, "zmon_collector_stale", {"collector": "zpool"}, eq(1), "hung"),
        versions=("2.1.11",),
        settle=60.0,
    ),
]

# Collectors allowed to fail, with the reason (and optionally the steps/versions).
_HUNG_21 = (
    "2.1.11 retries the lost disk's writes forever, so commands that touch the pool "
    "(zpool status, zfs list, zpool status -D, zpool events, zpool iostat) may block in "
    "the kernel: zmon times them "
    "out, reports the collector failed and keeps serving",
    (SUSPENDED,),
    ("2.1.11",),
)
_DEDUP_SLOW = ("`zpool status -D` reads the dedup tables from the disks that zinject slows to "
               "one I/O per 0.5-5 s, behind the resilver's I/Os: it may pass the command "
               "timeout, and zmon reports the collector failed", (RESILVER_RUNNING,
               RESILVER_STALLED), ())  # fmt: skip
COLLECTORS = AllCollectorsSucceed(
    exceptions={
        "zpool": [_HUNG_21],
        "devices": [_HUNG_21],
        "iostat": [_HUNG_21],
        "datasets": [_HUNG_21],
        "zpool_events": [_HUNG_21],
        "zpool_list": [_HUNG_21],
        "zfs_module": [_HUNG_21],
        "dedup": [_HUNG_21, _DEDUP_SLOW],
    }
)

# Alerts a real Prometheus on the host raises from alert_rules/ (rendered with every duration
# scaled by ALERT_SCALE, as in tests/rules) while scraping the guest: at each step an alert
# must be active (pending or firing), or gone again once the fault was cleared.
ALERT_SCALE = 1 / 30  # for: 1m -> 2s, error window 10m -> 20s, resilver stall 15m -> 30s


def alert(steps, name: str, labels: dict[str, str] | None = None, **kw) -> Check:  # type: ignore[no-untyped-def]
    kw.setdefault("settle", 60.0)
    return check(
        steps, "ALERTS", {"alertname": name, **(labels or {})}, ge(1), f"alert {name}", **kw
    )


def resolved(steps, name: str, labels: dict[str, str] | None = None, **kw) -> Check:  # type: ignore[no-untyped-def]
    kw.setdefault("settle", 60.0)
    return check(
        steps,
        "ALERTS",
        {"alertname": name, **(labels or {})},
        absent(),
        f"alert {name} resolved",
        **kw,
    )


ALERTS: list[Check] = [
    resolved(HEALTHY, "ZfsPoolDegraded"),
    # Vdev alerts carry the vdev's identity only; the disk behind it is in the description.
    alert(CKSUM, "ZfsVdevChecksumErrors", {"pool": "tank", "vdev": SATA1}),
    # The first burst of checksum events pages: zmon serves the event counters at 0 before it.
    alert(CKSUM, "ZfsErrorEvents", {"pool": "tank", "vdev": SATA1}),
    alert(CKSUM, "ZfsScrubFoundErrors", {"pool": "tank"}),
    alert(IO_ERRORS, "ZfsVdevIOErrors", {"pool": "rz", "vdev": "vdc"}),
    # hundreds of read and write errors on vdc in the step: the failing path pages
    alert(IO_ERRORS, "ZfsVdevFailing", {"pool": "rz", "vdev": "vdc", "severity": "critical"}),
    resolved(IO_ERRORS, "ZfsVdevChecksumErrors", {"pool": "tank"}),  # 20 s window, cleared
    alert(PERMANENT, "ZfsPoolDataErrors", {"pool": "single"}),
    alert(PERMANENT, "UpsOnBattery", {"ups": UPS}),
    alert(PERMANENT, "UpsLowBattery", {"ups": UPS}),
    alert(OFFLINE, "ZfsPoolDegraded", {"pool": "tank"}),
    # one side of tank's 2-way mirror OFFLINE: no redundancy left, it pages
    alert(OFFLINE, "ZfsPoolRedundancyLost", {"pool": "tank", "severity": "critical"}),
    resolved(OFFLINE, "UpsOnBattery", {"ups": UPS}),
    alert(FAULTED, "ZfsVdevFaulted", {"pool": "rz", "vdev": "vdc"}),
    alert(FAULTED, "ZfsPoolDegraded", {"pool": "rz"}),
    alert(FAULTED, "ZfsPoolRedundancyLost", {"pool": "rz"}),  # raidz1 with vdc FAULTED
    resolved(FAULTED, "ZfsPoolRedundancyLost", {"pool": "tank"}),  # resilvered back
    resolved(FAULTED, "ZfsPoolDegraded", {"pool": "tank"}),
    resolved(RESILVER_RUNNING, "ZfsVdevFaulted", {"pool": "rz"}),
    alert(RESILVER_STALLED, "ZfsResilverStalled", {"pool": "tank"}),
    resolved(RESILVER_DONE, "ZfsResilverStalled", {"pool": "tank"}),
    alert(SPARE_INUSE, "ZfsSpareInUse", {"pool": "tank", "vdev": SATA2}),
    alert(REMOVED, "ZfsVdevFaulted", {"pool": "tank", "vdev": SATA0}),
    alert(
        SUSPENDED, "ZfsPoolFaulted", {"pool": "fragile", "state": "suspended"}, versions=("2.3.2",)
    ),
    # ZFS stuck pages critical from sources that do not hang with zpool: 2.3.2's kstat state
    # SUSPENDED; on 2.1.11 the pool stays ONLINE by kstat, its last txg stays in the syncing
    # state for good (no txg commits, while an idle pool commits one every 5 s) and ZFS retries
    # the lost disk's writes (write errors rising).
    alert(SUSPENDED, "ZfsPoolStuck", {"pool": "fragile", "severity": "critical"}),
]


def referenced_metrics() -> set[str]:
    """Every metric (sample name) a row of the tables reads."""
    names: set[str] = set()
    for row in CHECKS:
        for r in (row, *row.alternatives):
            names.add(r.metric)
    return names


def keep_in_capture(name: str) -> bool:
    """What `make lab-capture` keeps of zmon's exposition: the table's metrics, success."""
    return name in referenced_metrics() or name == "zmon_collector_success"


# The metrics whose names and meaning are a public contract (README, "Metrics"): every one is
# asserted live by a row above, or named here with the reason it cannot be (test_table.py).
CONTRACT_METRICS = (
    "zmon_collector_success", "zmon_collector_duration_seconds",
    "zmon_collector_last_success_timestamp_seconds", "zmon_build_info",
    "zmon_arc_size_bytes", "zmon_arc_target_size_bytes", "zmon_arc_max_size_bytes",
    "zmon_arc_hits_total", "zmon_arc_misses_total", "zmon_arc_mru_ghost_hits_total",
    "zmon_arc_mfu_ghost_hits_total", "zmon_arc_l2_hits_total", "zmon_arc_l2_misses_total",
    "zmon_arc_l2_size_bytes",
    "zmon_pool_state", "zmon_pool_data_errors", "zmon_pool_size_bytes",
    "zmon_pool_allocated_bytes", "zmon_pool_free_bytes", "zmon_pool_fragmentation_ratio",
    "zmon_pool_dedup_ratio", "zmon_pool_scan_in_progress", "zmon_pool_scan_examined_bytes",
    "zmon_pool_scan_issued_bytes", "zmon_pool_scan_to_examine_bytes", "zmon_pool_scan_errors",
    "zmon_pool_scan_start_time_seconds", "zmon_pool_scan_end_time_seconds",
    "zmon_pool_last_scrub_end_time_seconds",
    "zmon_vdev_state", "zmon_vdev_read_errors_total", "zmon_vdev_write_errors_total",
    "zmon_vdev_checksum_errors_total", "zmon_vdev_slow_ios_total", "zmon_vdev_info",
    "zmon_zfs_events_total",
    "zmon_disk_info", "zmon_disk_smart_passed", "zmon_disk_temperature_celsius",
    "zmon_disk_reallocated_sectors", "zmon_disk_pending_sectors",
    "zmon_disk_offline_uncorrectable_sectors", "zmon_disk_crc_errors_total",
    "zmon_disk_nvme_media_errors_total", "zmon_disk_nvme_percentage_used_ratio",
    "zmon_disk_standby",
    "zmon_kernel_log_events_total",
    "zmon_ups_up", "zmon_ups_status", "zmon_ups_battery_charge_ratio",
    "zmon_ups_battery_runtime_seconds", "zmon_ups_load_ratio", "zmon_ups_input_voltage_volts",
)  # fmt: skip

_QEMU_ATA = (
    "qemu's emulated ATA disk reports SMART attributes 1, 3, 4, 5, 9, 12 and 190 only; "
    "the live run asserts zmon invents no series, real values are tested on corpus "
    "smartctl outputs (tests/collectors/smart)"
)
NOT_LIVE = {
    "zmon_disk_pending_sectors": _QEMU_ATA + " (attribute 197)",
    "zmon_disk_offline_uncorrectable_sectors": _QEMU_ATA + " (attribute 198)",
    "zmon_disk_crc_errors_total": _QEMU_ATA + " (attribute 199)",
}
