"""Every declared condition and record zmon ships, in the order the rule file holds them."""

from __future__ import annotations

from dataclasses import replace

from zmon.health import capacity, declarations, disks, host, integrity, memory, scans, self_watch
from zmon.health.conditions import Condition
from zmon.health.expr import Record
from zmon.health.thresholds import Thresholds


def conditions(t: Thresholds) -> list[Condition]:
    """Every declared condition, each kept firing for the table's ``keep_firing_for``."""
    declared = [
        *declarations.pool_conditions(t),
        integrity.stuck(t),
        *integrity.integrity_conditions(t),
        *scans.scan_conditions(t),
        *capacity.capacity_conditions(t),
        *capacity.dataset_conditions(t),
        *memory.memory_conditions(t),
        memory.arc_slowdown(t),
        *declarations.cable_conditions(t),
        *disks.disk_conditions(t),
        *host.ups_conditions(t),
        *self_watch.self_conditions(t),
        *host.zmon_state_conditions(t),
    ]
    return [replace(c, keep_firing_for=t.keep_firing_for) for c in declared]


def records(t: Thresholds) -> list[Record]:
    """Every declared record, in the order the rule file evaluates them."""
    return [
        *declarations.shared_records(t),
        integrity.VDEV_ERRORS,
        *scans.scan_records(t),
        capacity.CAPACITY,
        *memory.arc_records(),
        *memory.latency_records(t),
        *declarations.sas_records(t),
    ]
