"""zmon's recording and alerting rules, as data rendered from one thresholds table.

Conventions: alert names are CamelCase with a Zfs/Disk/Ups/Zmon prefix; severity is critical
(act now: data or availability at risk), warning (act within the day) or info (tuning). Every
alert has a static summary, a templated description naming host, pool, vdev and device where
they apply, and a runbook_url pointing at its section of RUNBOOK.md.
"""

from __future__ import annotations

from collections.abc import Iterable

from alert_rules.building import (
    Alert,
    Group,
    Record,
)
from alert_rules.zmon_state import zmon_state_alerts
from zmon.health import (
    capacity,
    declarations,
    disks,
    host,
    integrity,
    memory,
    scans,
    self_watch,
    shipped,
)
from zmon.health.conditions import Condition
from zmon.health.expr import Record as DeclaredRecord
from zmon.health.thresholds import Thresholds


def recording_rules(t: Thresholds) -> Group:
    """Records that several groups join with. A record used by one group's alerts lives in
    that group, before them: rules of a group run in order, so the alerts see fresh values."""
    return _group("zmon-recording", declarations.shared_records(t))


def pool_alerts(t: Thresholds) -> Group:
    return _group("zmon-pools", (), declarations.pool_conditions(t))


def stuck_alerts(t: Thresholds) -> Group:
    return _group("zmon-stuck", (), [integrity.stuck(t)])


def integrity_alerts(t: Thresholds) -> Group:
    return _group("zmon-integrity", [integrity.VDEV_ERRORS], integrity.integrity_conditions(t))


def scan_alerts(t: Thresholds) -> Group:
    return _group("zmon-scans", scans.scan_records(t), scans.scan_conditions(t))


def capacity_alerts(t: Thresholds) -> Group:
    return _group("zmon-capacity", [capacity.CAPACITY], capacity.capacity_conditions(t))


def dataset_alerts(t: Thresholds) -> Group:
    return _group("zmon-datasets", (), capacity.dataset_conditions(t))


def memory_alerts(t: Thresholds) -> Group:
    return _group("zmon-memory", memory.arc_records(), memory.memory_conditions(t))


def slowdown_group(t: Thresholds) -> Group:
    """The latency records and the alert that reads them, in a group of their own (the ARC
    records stay with the memory alerts that read them, so those see fresh values)."""
    return _group("zmon-slowdown", memory.latency_records(t), [memory.arc_slowdown(t)])


def disk_alerts(t: Thresholds) -> Group:
    conditions = [*declarations.cable_conditions(t), *disks.disk_conditions(t)]
    return _group("zmon-disks", declarations.sas_records(t), conditions)


def ups_alerts(t: Thresholds) -> Group:
    return _group("zmon-ups", (), host.ups_conditions(t))


def zmon_alerts(t: Thresholds) -> Group:
    return _group("zmon-self", (), self_watch.self_conditions(t))


def _group(
    name: str, records: Iterable[DeclaredRecord], conditions: Iterable[Condition] = ()
) -> Group:
    """A group of rules: the records first (rules of a group run in order), then the alerts."""
    return Group(name, [*map(Record.of, records), *map(Alert.of, conditions)])


def groups(t: Thresholds) -> list[Group]:
    """Every group, each alert rendered from the condition ``zmon.health.shipped`` gives
    (kept firing for the table's ``keep_firing_for``): the one the status report judges."""
    judged = {c.name: c for c in shipped.conditions(t)}
    return [
        Group(g.name, [Alert.of(judged[r.alert]) if isinstance(r, Alert) else r for r in g.rules])
        for g in _groups(t)
    ]


def _groups(t: Thresholds) -> list[Group]:
    return [
        recording_rules(t),
        pool_alerts(t),
        stuck_alerts(t),
        integrity_alerts(t),
        scan_alerts(t),
        capacity_alerts(t),
        dataset_alerts(t),
        memory_alerts(t),
        slowdown_group(t),
        disk_alerts(t),
        ups_alerts(t),
        zmon_alerts(t),
        zmon_state_alerts(t),
    ]


def alerts(t: Thresholds) -> list[Alert]:
    return [r for g in groups(t) for r in g.rules if isinstance(r, Alert)]
