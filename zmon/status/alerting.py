"""Each finding as the alert it names: the alert's identifying labels and its state.

Prometheus holds an alert ``pending`` from the first evaluation its expression is true until
it has been true for the rule's ``for:``, then ``firing``. The status report says the same
of each finding: ``onsets`` (kept by the status page from one report to the next) remembers
when each alert was first seen, and the rule's ``for:`` (alert_rules/rules.py, rendered into
zmon.rules.yml) says how long it must hold. A report made without that memory
(``zmon status`` on the host, collecting once) cannot tell how long a finding has held: it
says each as it is now, ``firing``, with ``since`` unknown.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any

from zmon.status.diagnoses import Finding

AlertId = tuple[str, tuple[tuple[str, str], ...]]

# The labels that identify each alert, as its rule leaves them (the target's ``instance``
# and ``job`` aside: a report is of one host). An alert not listed is identified by the
# labels of its finding. ZmonTargetDown and ZmonTargetMissing have no finding: a host
# cannot see itself down.
_POOL = ("pool",)
_VDEV = ("pool", "vdev")
_DISK = ("device", "pool")  # a disk, and the pool it serves (none: in no pool)
_LEAF = ("device", "pool", "vdev")  # a disk, and the pool and leaf vdev it serves
IDENTITY: dict[str, tuple[str, ...]] = {
    "ZfsPoolDegraded": ("pool", "state"),
    "ZfsPoolFaulted": ("pool", "state"),
    "ZfsPoolRedundancyLost": _POOL,
    "ZfsVdevFaulted": ("pool", "vdev", "state"),
    "ZfsSpareInUse": _VDEV,
    "ZfsPoolStuck": _POOL,
    "ZfsVdevChecksumErrors": _VDEV,
    "ZfsVdevIOErrors": _VDEV,
    "ZfsVdevFailing": _VDEV,
    "ZfsPoolDataErrors": _POOL,
    "ZfsPoolErrorsNotCleared": _VDEV,
    "ZfsErrorEvents": _VDEV,
    "ZfsDeadmanEvents": _VDEV,
    "ZfsResilverStalled": ("pool", "function"),
    "ZfsResilverSlow": _POOL,
    "ZfsScrubOverdue": _POOL,
    "ZfsScrubFoundErrors": _POOL,
    "ZfsPoolCapacityWarning": _POOL,
    "ZfsPoolCapacityCritical": _POOL,
    "ZfsPoolFragmentationHigh": _POOL,
    "ZfsDatasetQuotaNearlyFull": ("pool", "dataset"),
    "ZfsDatasetRefquotaNearlyFull": ("pool", "dataset"),
    "ZfsDatasetSnapshotOverdue": ("pool", "dataset"),
    "ZfsDedupTableTooLarge": _POOL,
    "ZfsArcGhostHitsHigh": (),
    "ZfsArcSlowdown": _POOL,
    "ZfsL2arcErrors": (),
    "DiskCableFault": _LEAF,
    "DiskLinkFailing": _LEAF,
    "DiskSasExpanderLinkErrors": ("sas_parent",),
    "DiskSmartFailed": _DISK,
    "DiskReallocatedSectorsRising": _DISK,
    "DiskPendingSectorsRising": _DISK,
    "DiskNvmeMediaErrors": _DISK,
    "DiskMediumErrors": _DISK,
    "DiskTemperatureHigh": _DISK,
    "DiskNvmeCriticalWarning": _DISK,
    "DiskNvmeWearHigh": _DISK,
    "DiskLinkSpeedDegraded": _DISK,
    "UpsOnBattery": ("ups", "server", "flag"),
    "UpsLowBattery": ("ups", "server", "flag"),
    "UpsRuntimeLow": ("ups", "server"),
    "UpsOnBatteryDuringScan": ("pool", "ups", "server"),
    "UpsUnreachable": ("ups", "server"),
    "ZmonCollectorFailing": ("collector",),
    "ZmonCollectorDataStale": ("collector",),
    "ZmonCollectorNoData": ("collector",),
    "ZmonKernelLogNotFollowed": ("source",),
    "ZmonStateNotWritable": ("collector",),
}


@cache
def for_seconds() -> Mapping[str, float]:
    """Each alert's ``for:`` in seconds, as the shipped rules say."""
    from alert_rules.rules import alerts  # the rule generator, in the package
    from zmon.judgment.thresholds import DEFAULTS, Duration

    return {a.alert: float(Duration(str(a.for_)).seconds) for a in alerts(DEFAULTS)}


def alert_labels(finding: Finding) -> dict[str, str]:
    """The identifying labels of the alert ``finding`` names."""
    keys = IDENTITY.get(finding.alert or "")
    if keys is None:
        return dict(finding.labels)
    return {k: finding.labels[k] for k in keys if finding.labels.get(k)}


def alert_states(
    findings: Iterable[Finding], now: float, onsets: dict[AlertId, float] | None
) -> list[dict[str, Any]]:
    """Per finding: its alert's identifying labels, ``state`` (``firing`` or ``pending``)
    and ``since`` (when it was first seen). ``onsets`` is updated: alerts seen now are kept
    with their first time, alerts no longer seen are forgotten. Without ``onsets`` (no memory
    of earlier reports) a finding is said as it is now: ``firing``, ``since`` unknown (None).
    A finding that names no alert is ``firing`` while it is seen."""
    out: list[dict[str, Any]] = []
    seen: set[AlertId] = set()
    holds = for_seconds()
    for f in findings:
        labels = alert_labels(f) if f.alert else {}
        key: AlertId = (f.alert or f"finding:{f.rule}", tuple(sorted(f.labels.items())))
        if f.alert:
            key = (f.alert, tuple(sorted(labels.items())))
        seen.add(key)
        since = onsets.setdefault(key, now) if onsets is not None else None
        firing = since is None or not f.alert or now - since >= holds.get(f.alert, 0.0)
        out.append(
            {"alert_labels": labels, "state": "firing" if firing else "pending", "since": since}
        )
    if onsets is not None:
        for key in [k for k in onsets if k not in seen]:
            del onsets[key]
    return out
