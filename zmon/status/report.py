"""The report: the host model, its findings and a few derived words, as one JSON-ready dict.

``zmon status --json`` prints it; the terminal and HTML renderers read only it, so the three
views cannot say different things.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from zmon.health.declarations import POOL_UNAVAILABLE, VDEV_LOST
from zmon.health.ratios import ARC_HIT
from zmon.host.last_pools import LastPools
from zmon.status import words as w
from zmon.status.alerting import Judgment, alert_states, judged_findings, muted
from zmon.status.diagnoses import (
    CANNOT_KNOW,
    SEVERITIES,
    Evidence,
    Finding,
    Limits,
    arc_ghost_ratio,
    cannot_know,
    diagnose,
    pools_unknown,
    scan_left,
)
from zmon.status.history import Window
from zmon.status.model import (
    CollectorHealth,
    Disk,
    HostModel,
    Pool,
    Scan,
    Ups,
    Vdev,
    read_model,
)
from zmon.status.slowdown import Recorded

EXIT_CODES = {"ok": 0, "warning": 1, "critical": 2, "unknown": 3}
SCHEMA = 1


def build_report(
    families: Iterable[Any],
    now: float,
    *,
    host: str = "",
    history: Window | None = None,
    limits: Limits | None = None,
    last_pools: LastPools | None = None,
) -> dict[str, Any]:
    """The whole report for one snapshot's families at time ``now``; ``last_pools`` are the
    pools' states zpool last gave (the state directory), said while zpool does not answer."""
    model = read_model(families)
    model.last_pools = last_pools
    return report_of(model, now, host=host, history=history, limits=limits)


def report_of(
    model: HostModel,
    now: float,
    *,
    host: str = "",
    history: Window | None = None,
    limits: Limits | None = None,
    onsets: dict[tuple[str, tuple[tuple[str, str], ...]], float] | None = None,
    judgment: Judgment | None = None,
    recorded: Recorded | None = None,
) -> dict[str, Any]:
    """The report of ``model`` at ``now``. ``judgment`` is the declarations' verdict (the
    status page's ``Evaluator``): for each condition it judged, its alert fires, is pending
    or does not hold as it says. ``onsets`` (kept by the caller from one report to the next)
    is when each alert a finding names was first seen, so that a finding the declarations
    did not judge says whether its alert is pending or firing, as Prometheus's ``for:``
    would; without it such a finding is said as it is now (zmon/status/alerting.py).
    ``recorded``: the slowdown's records at the evaluator's last evaluation, a slowdown's now,
    usual and factor (zmon/status/slowdown.py); without them no usual is said."""
    ev = Evidence(model, now, history or Window(), limits or Limits.of(), recorded=recorded)
    findings = diagnose(ev)
    judged: list[dict[str, Any]] = [{}] * len(findings)
    if judgment is not None:  # the declarations decide what the history lets them judge
        findings, judged = judged_findings(findings, judgment)
    # a finding names its alert; what names none is a note: said, never in the state
    notes = [f for f in findings if f.is_note]
    judged = [j for j, f in zip(judged, findings, strict=True) if not f.is_note]
    findings = [f for f in findings if not f.is_note]
    alerting = [j or a for j, a in zip(judged, alert_states(findings, now, onsets), strict=True)]
    symptom_of = muted(findings, alerting)  # (Alertmanager's inhibitions: not paged)
    heard = [k for k, cause in enumerate(symptom_of) if cause is None]
    state = overall_state([findings[k] for k in heard], [alerting[k]["state"] for k in heard])
    unknown = pools_unknown(ev)
    return {
        "schema": SCHEMA,
        "host": host,
        "time": now,
        "state": state,
        "exit_code": EXIT_CODES[state],
        "headline": headline(state, [findings[k] for k in heard], model),
        "findings": [
            {**f.to_json(), **a, "muted_by": cause}
            for f, a, cause in zip(findings, alerting, symptom_of, strict=True)
        ],
        # what zmon sees that no alert pages or tickets for: information, no severity
        "notes": [n.note_json() for n in notes],
        # what is unknown while zpool does not answer; then the pools are its last known state
        "pools_unknown": unknown.evidence if unknown is not None else None,
        "pools": [_pool(p, now, last_known=unknown is not None) for p in model.pools],
        "arc": _arc(model, ev),
        "disks": _disks(model, findings),
        "ups": [_ups(u) for u in model.ups],
        "events": recent_events(model, now),
        "collectors": [{"name": c.name, "state": _collector_state(c)} for c in model.collectors],
        # the alerts only Prometheus can judge (ZmonTargetDown, ZmonTargetMissing)
        "cannot_know": {"alerts": sorted(CANNOT_KNOW), "text": cannot_know()},
    }


def overall_state(findings: list[Finding], states: list[str] | None = None) -> str:
    """CRITICAL: a finding pages now, or paged once and is still open (the policy's
    ``page_once`` alerts stay critical until cleared), as its alert does. A critical finding
    still pending (its rule's ``for:`` not over) does not page yet: WARNING."""
    states = states or ["firing"] * len(findings)
    severities = {
        f.severity if st == "firing" or f.severity != "critical" else "warning"
        for f, st in zip(findings, states, strict=True)
    }
    for severity in ("critical", "warning"):
        if severity in severities:
            return severity
    return "ok"


def headline(state: str, findings: list[Finding], model: HostModel) -> str:
    """One line, Nagios-style: 'WARNING - sdb (...): suspect cable or port (and 2 more)'."""
    problems = [f for f in findings if f.severity in ("critical", "warning")]
    if not problems:
        if not model.pools:
            return "OK - no ZFS pool found"
        names = ", ".join(p.name for p in model.pools)
        return f"OK - {w.count(len(model.pools), 'pool')} healthy ({names})"
    first = problems[0]
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    if first.rule == "pools_unknown":  # "zpool has not answered for 4 min; last known ..."
        return f"{state.upper()} - {first.subject} {first.evidence}{more}"
    return f"{state.upper()} - {first.subject}: {first.cause}{more}"


def _scan(scan: Scan | None, now: float) -> dict[str, Any] | None:
    if scan is None:
        return None
    if scan.running:
        parts = [f"{scan.function} in progress"]
        if scan.progress is not None:
            parts.append(f"{w.percent(scan.progress)} done")
        parts.append(scan_left(scan))
        if scan.rate:
            parts.append(f"at {w.size(scan.rate)}/s")
        text = ", ".join(parts)
    else:
        verb = {"finished": "finished", "canceled": "canceled"}.get(scan.state, scan.state)
        text = (
            f"last {scan.function} {verb} {w.ago(scan.end, now)}"
            if scan.end
            else f"{scan.function} {verb}"
        )
        if scan.function == "scrub" or scan.errors:
            text += f" with {w.count(scan.errors, 'error')}"
    return {
        "function": scan.function,
        "state": scan.state,
        "running": scan.running,
        "paused": scan.paused,
        "progress": scan.progress,
        "remaining": scan.remaining,
        "issued": scan.issued,
        "to_issue": scan.to_issue,
        "rate": scan.rate,
        "start": scan.start,
        "end": scan.end,
        "errors": scan.errors,
        "text": text,
    }


def _tree(root: Vdev | None) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    if root is None:
        return rows

    def visit(v: Vdev, depth: int) -> None:
        healthy = v.state in ("online", "avail", "inuse", "unknown") and v.errors == 0
        rows.append(
            {
                "depth": depth,
                "name": v.name,
                "device": v.device,
                "type": v.type,
                "class": v.klass,
                "state": v.state,
                "read": v.read_errors,
                "write": v.write_errors,
                "checksum": v.checksum_errors,
                "notes": v.notes,
                "level": "ok" if healthy else ("critical" if v.state in VDEV_LOST else "warning"),
            }
        )
        for child in v.children:
            visit(child, depth + 1)

    visit(root, 0)
    return rows


def _pool(p: Pool, now: float, last_known: bool = False) -> dict[str, Any]:
    level = "ok"
    if p.state in POOL_UNAVAILABLE or p.io_suspended:
        level = "critical"
    elif p.state != "online" or p.data_errors or any(v.errors for v in p.vdevs()):
        level = "warning"
    if p.last_scrub_end is not None:
        last_scrub = f"last scrub {w.ago(p.last_scrub_end, now)}"
    else:
        last_scrub = "no scrub recorded"
    return {
        "name": p.name,
        "state": p.state,
        "last_known": last_known,  # zpool does not answer: this is what it last said
        "level": level,
        "status": p.status,
        "status_id": p.status_id,
        "data_errors": p.data_errors,
        "io_suspended": p.io_suspended,
        "capacity": p.capacity,
        "size": p.size,
        "allocated": p.allocated,
        "fragmentation": p.fragmentation,
        "ddt_in_core": p.ddt_in_core,
        "last_scrub_end": p.last_scrub_end,
        "last_scrub": last_scrub,
        "scan": _scan(p.scan, now),
        "tree": _tree(p.root),
    }


def _arc(model: HostModel, ev: Evidence) -> dict[str, Any] | None:
    arc = model.arc
    if arc is None:
        return None
    accesses = arc.hits + arc.misses
    ghost = arc_ghost_ratio(ev)
    recent_hit = ARC_HIT.over(ev.history)
    hit_ratio = recent_hit[0] if recent_hit else (arc.hits / accesses if accesses else None)
    ddt = [
        {
            "pool": p.name,
            "bytes": p.ddt_in_core,
            "share": p.ddt_in_core / arc.max_size if arc.max_size else None,
        }
        for p in model.pools
        if p.ddt_in_core
    ]
    parts = []
    if arc.size is not None:
        parts.append(f"{w.size(arc.size)} of {w.size(arc.max_size)} max")
    if hit_ratio is not None:
        parts.append(f"hit ratio {w.percent(hit_ratio)}")
    if ghost is not None:
        parts.append(f"ghost hits {w.percent(ghost[0])} of accesses {ghost[1]}")
    return {
        "size": arc.size,
        "max_size": arc.max_size,
        "hit_ratio": hit_ratio,
        "ghost_ratio": ghost[0] if ghost else None,
        "ddt": ddt,
        "text": ", ".join(parts),
    }


def _disks(model: HostModel, findings: list[Finding]) -> list[dict[str, Any]]:
    out = []
    for d in model.disks.values():
        mine = [f for f in findings if f.labels.get("device") == d.device]
        notes = []
        if d.smart_passed is not None:
            notes.append("SMART passed" if d.smart_passed else "SMART FAILED")
        if d.standby:
            notes.append("asleep")
        if d.temperature is not None:
            notes.append(f"{d.temperature:.0f} °C")
        if d.crc_errors:
            notes.append(w.count(d.crc_errors, "CRC error"))
        for value, what in (
            (d.pending, "pending"),
            (d.reallocated, "reallocated"),
            (d.uncorrectable, "uncorrectable"),
        ):
            if value:
                notes.append(f"{w.count(value, 'sector')} {what}")
        if d.speed and d.max_speed and d.speed < d.max_speed:
            notes.append(f"link {d.speed * 8 / 1e9:g}/{d.max_speed * 8 / 1e9:g} Gb/s")
        if not notes:
            notes.append("no SMART data")
        level = min((f.severity for f in mine), key=SEVERITIES.index, default="ok")
        out.append(
            {
                "device": d.device,
                "model": d.model,
                "serial": d.serial,
                "wwn": d.wwn,
                "by_id": d.by_id,
                "enclosure": d.enclosure,
                "slot": d.slot,
                "locate": d.locate,
                "where": _where(d),
                "pools": sorted({pool for pool, _, _ in d.vdevs}),
                "level": level if level != "info" else "ok",
                "text": ", ".join(notes),
            }
        )
    return out


def _where(d: Disk) -> str:
    """The disk's slot ('enclosure 0:0:12:0 Slot01'), else its port ('ata2'), else ''."""
    if d.enclosure and d.slot:
        return w.slot(d.enclosure, d.slot)
    return d.ata_port.split(".")[0] if d.ata_port else ""


def _ups(u: Ups) -> dict[str, Any]:
    if not u.up:
        text, level = "not answering", "warning"
    elif u.low_battery:
        text, level = "on battery, battery low", "critical"
    elif u.on_battery:
        text, level = "on battery", "warning"
    else:
        text, level = "on line", "ok"
    if u.up and u.charge is not None:
        text += f", charge {w.percent(u.charge)}"
    if u.up and u.runtime is not None:
        text += f", runtime {w.duration(u.runtime)}"
    return {
        "name": u.name,
        "server": u.server,
        "flags": sorted(u.flags),
        "level": level,
        "charge": u.charge,
        "runtime": u.runtime,
        "text": text,
    }


_QUIET_EVENT_CLASSES = {
    "history_event",
    "config_sync",
    "pool_create",
    "pool_import",
    "config_cache_write",
}


def recent_events(model: HostModel, now: float, limit: int = 8) -> list[dict[str, Any]]:
    """The latest ZFS event classes and kernel-log disk events, newest first."""
    items: list[dict[str, Any]] = []
    for klass, when in model.event_last.items():
        if klass in _QUIET_EVENT_CLASSES or not when:
            continue
        where = sorted(
            {
                f"{e.vdev} of {e.pool}" if e.vdev else e.pool
                for e in model.events
                if e.klass == klass
            }
        )
        total = sum(e.count for e in model.events if e.klass == klass)
        items.append(
            {
                "time": when,
                "source": "zfs",
                "what": klass,
                "text": f"ZFS {klass} ({w.count(total, 'event')}"
                + (f": {', '.join(where[:3])}" if where else "")
                + ")",
            }
        )
    for disk in model.disks.values():
        for pattern, when in disk.kernel_last.items():
            if not when:
                continue
            n = disk.kernel.get(pattern, 0.0)
            items.append(
                {
                    "time": when,
                    "source": "kernel",
                    "what": pattern,
                    "text": f"kernel: {disk.device} {pattern.replace('_', ' ')} "
                    f"({w.count(n, 'event')})",
                }
            )
    items.sort(key=lambda i: -i["time"])
    for item in items:
        item["ago"] = w.ago(item["time"], now)
    return items[:limit]


def _collector_state(c: CollectorHealth) -> str:
    if not c.success:
        return "failing"
    if c.stale:
        return "stale"
    if not c.has_data:
        return "no data on this host"
    return "ok"
