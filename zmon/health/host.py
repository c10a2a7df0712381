"""The UPS family and zmon's own blind spots (declarations.py has the conventions).

UPS alerts: mains out, battery low or short, a scan on battery, a UPS zmon cannot read.
zmon's own state, both tickets (zmon/health/policy.py): nothing has failed on the host, but
zmon sees less than it should. ``zmon_kernel_log_following`` is served for each source the
kernel_log collector follows (each configured ``kernel_log.files`` path, or kmsg or the
journal); ``zmon_collector_state_writable`` only for collectors that keep state files, from
their first write (or their first attempt to open the state directory).
"""

from __future__ import annotations

from zmon.health.conditions import Condition
from zmon.health.expr import max_by, metric
from zmon.health.thresholds import Thresholds
from zmon.health.words import POOL

HOST = ("instance", "job")


def ups_conditions(t: Thresholds) -> list[Condition]:
    on_battery = metric("zmon_ups_status", flag="OB").eq(1)
    return [
        Condition(
            "UpsOnBattery",
            on_battery,
            "A UPS is running on battery.",
            "UPS {{ $labels.ups }} of {{ $labels.instance }} is on battery: mains power is out.",
            t.ups_on_battery_for,
        ),
        Condition(
            "UpsLowBattery",
            metric("zmon_ups_status", flag="LB").eq(1),
            "A UPS battery is low: shutdown is imminent.",
            "UPS {{ $labels.ups }} of {{ $labels.instance }} reports LOW BATTERY. Hosts "
            "on it will shut down; make sure pools are exported cleanly.",
        ),
        Condition(
            "UpsRuntimeLow",
            metric("zmon_ups_battery_runtime_seconds") < t.ups_runtime_min.seconds,
            "A UPS's estimated battery runtime is short.",
            "UPS {{ $labels.ups }} of {{ $labels.instance }} estimates "
            "{{ $value | humanizeDuration }} of runtime on battery (limit "
            f"{t.ups_runtime_min}). Replace the battery or reduce the load.",
            t.ups_runtime_for,
        ),
        Condition(
            "UpsOnBatteryDuringScan",
            metric("zmon_pool_scan_in_progress")
            .eq(1)
            .and_(max_by(HOST, metric("zmon_ups_status", flag="OB")).eq(1), on=HOST),
            "A ZFS scrub or resilver is running while the UPS is on battery.",
            f"A {{{{ $labels.function }}}} of {POOL} is running on battery power; it "
            "drains the battery faster. Pause a scrub with zpool scrub -p {{ $labels.pool }}.",
            t.ups_on_battery_for,
        ),
        Condition(
            "UpsUnreachable",
            metric("zmon_ups_up").eq(0).or_(metric("zmon_ups_server_up").eq(0)),
            "zmon cannot read a UPS.",
            "zmon on {{ $labels.instance }} gets no answer from "
            "{{ with $labels.ups }}UPS {{ . }} on {{ else }}UPS server {{ end }}"
            "{{ $labels.server }}: a power failure would go unnoticed.",
            t.ups_unreachable_for,
        ),
    ]


def zmon_state_conditions(t: Thresholds) -> list[Condition]:
    return [
        Condition(
            "ZmonKernelLogNotFollowed",
            metric("zmon_kernel_log_following").eq(0),
            "zmon cannot follow a kernel log source.",
            "zmon on {{ $labels.instance }} cannot follow the kernel log source "
            "{{ $labels.source }} (missing or unreadable): disk, cable and pool faults "
            "logged there are not counted. Check kernel_log.files and zmon's log.",
            t.collector_failing_for,
        ),
        Condition(
            "ZmonStateNotWritable",
            metric("zmon_collector_state_writable").eq(0),
            "zmon cannot write its state files.",
            "Collector {{ $labels.collector }} of zmon on {{ $labels.instance }} cannot "
            "write its state files (the state directory is full, read-only or not "
            "writable): what it keeps there (log positions, counts, scrub history) is "
            "lost at the next restart. See zmon's log.",
            t.collector_failing_for,
        ),
    ]
