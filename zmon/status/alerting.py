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

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

from zmon.health.conditions import Condition, Instance
from zmon.health.evaluator import Evaluator
from zmon.health.inhibitions import muted_by
from zmon.status.diagnoses import Finding, rank, words_of

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
    "ZfsResilverSourceFailing": _LEAF,
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
    from zmon.health.thresholds import DEFAULTS, Duration

    return {a.alert: float(Duration(str(a.for_)).seconds) for a in alerts(DEFAULTS)}


def identity(alert: str, labels: Mapping[str, str]) -> dict[str, str]:
    """The labels among ``labels`` that identify an instance of ``alert``: IDENTITY's that
    it has, or all but ``severity`` for an alert IDENTITY does not list."""
    keys = IDENTITY.get(alert)
    if keys is None:
        return {k: v for k, v in labels.items() if k != "severity"}
    return {k: labels[k] for k in keys if labels.get(k)}


def alert_labels(finding: Finding) -> dict[str, str]:
    """The identifying labels of the alert ``finding`` names."""
    return identity(finding.alert or "", finding.labels)


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


@dataclass(frozen=True)
class Judgment:
    """The declarations' verdict at one evaluation: the instances that hold, and the
    conditions the history was long enough to judge (zmon.health.evaluator)."""

    conditions: Sequence[Condition]
    instances: Sequence[Instance]
    judged: frozenset[str]

    @classmethod
    def of(cls, judge: Evaluator) -> Judgment:
        """The verdict of ``judge``'s last evaluation."""
        assert judge.at is not None, "not evaluated yet"
        return cls(judge.conditions, judge.instances(), judge.judged(judge.at))


def _identity(i: Instance) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(identity(i.alert, i.labels).items()))


_SUBJECTS = (("device", "disk"), ("vdev", "vdev"), ("dataset", "dataset"), ("pool", "pool"),
             ("ups", "UPS"), ("collector", "collector"), ("source", "kernel log source"),
             ("sas_parent", "SAS link of"))  # fmt: skip


def _subject(labels: Mapping[str, str]) -> str:
    for key, word in _SUBJECTS:
        if labels.get(key):
            return f"{word} {labels[key]}"
    return "host"


def _state(i: Instance) -> dict[str, Any]:
    labels = {k: v for k, v in i.labels.items() if k != "severity"}
    return {"alert_labels": labels, "state": i.state, "since": i.active_since}


def judged_findings(
    findings: Sequence[Finding], judgment: Judgment
) -> tuple[list[Finding], list[dict[str, Any]]]:
    """The findings as the declarations judge them, with each one's alert state.

    For a condition the history covers, the declaration decides: a finding naming its alert
    says the instance's state and since, or, when no instance holds, becomes a note (what it
    sees, claiming no alert and no severity); an instance no finding describes is said in
    the condition's own words. Findings of conditions not judged yet are left as they are
    (their ``state`` is then set by ``alert_states``): the caller passes those on."""
    by_alert: dict[str, dict[tuple[tuple[str, str], ...], Instance]] = {}
    for i in judgment.instances:
        by_alert.setdefault(i.alert, {})[_identity(i)] = i
    out: list[Finding] = []
    states: list[dict[str, Any]] = []
    described: set[tuple[str, tuple[tuple[str, str], ...]]] = set()
    for f in findings:
        if not f.alert or f.alert not in judgment.judged:
            out.append(f)
            states.append({})
            continue
        found = [
            (key, i)
            for key, i in by_alert.get(f.alert, {}).items()
            if all(f.labels.get(k) == v for k, v in key)
        ]
        if not found:  # the declaration does not hold: no alert, what it sees is a note
            out.append(f.as_note())
            states.append({"alert_labels": {}, "state": "firing", "since": None})
            continue
        key, inst = found[0]
        described.add((f.alert, key))
        out.append(replace(f, severity=inst.severity))
        states.append(_state(inst))
    declared = {c.name: c for c in judgment.conditions}
    for alert, instances in by_alert.items():
        if alert not in judgment.judged:
            continue
        for key, inst in instances.items():
            if (alert, key) in described:
                continue
            summary = declared[alert].summary.rstrip(".")
            labels = dict(key)
            cause, action = words_of(alert, labels)
            out.append(
                Finding(
                    alert[0].lower() + alert[1:],
                    inst.severity,
                    _subject(labels),
                    f"{summary} (value {inst.value:g})",
                    cause or summary,
                    action,
                    alert,
                    labels,
                )
            )
            states.append(_state(inst))
    order = sorted(range(len(out)), key=lambda k: rank(out[k].severity))
    return [out[k] for k in order], [states[k] for k in order]


def muted(findings: Sequence[Finding], alerting: Sequence[Mapping[str, Any]]) -> list[str | None]:
    """Per finding: the firing alert that mutes its alert in Alertmanager (the inhibitions
    of zmon/health/inhibitions.py), or None. A muted finding is a symptom of that cause."""
    firing = [
        (f.alert, a.get("alert_labels", {}))
        for f, a in zip(findings, alerting, strict=True)
        if f.alert and a.get("state") == "firing"
    ]
    return [
        muted_by(firing, f.alert, a.get("alert_labels", {})) if f.alert else None
        for f, a in zip(findings, alerting, strict=True)
    ]
