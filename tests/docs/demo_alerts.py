"""Which alerts the demo's story fires, phase by phase, for README.md's table.

The story is walked as tests/rules/differential.py walks it (every collector at its own
interval on a fixed clock, the status page judging every declaration at each 15 s scrape as
Prometheus evaluates the shipped rules); the differential test holds that judgment equal to
promtool's at each phase's first and last scrape. Here every scrape is read: an alert starts
in the phase where it first fires, and resolves in the phase where it stops.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tests.rules import differential as d
from zmon.demo.timeline import PHASES

RULES = d.RULES_FILE


@dataclass(frozen=True, order=True)
class Alert:
    """One alert as the table names it: its name, what it is about, its severity."""

    name: str
    subject: str
    severity: str


@dataclass
class PhaseAlerts:
    started: set[Alert] = field(default_factory=set)
    resolved: set[Alert] = field(default_factory=set)


def subject(labels: Mapping[str, str]) -> str:
    """What an alert is about, from the labels that identify it: ``sdb of tank``, ``single``,
    the UPS (never the UPS server's address, a port the demo picks)."""
    disk = labels.get("device") or labels.get("vdev")
    pool = labels.get("pool", "")
    parts = [f"{disk} of {pool}" if disk and pool else disk or pool]
    if labels.get("ups"):
        parts.insert(0, labels["ups"])
    return ", ".join(p for p in parts if p)


def _judged(report: Mapping[str, Any], state: str) -> set[Alert]:
    return {
        Alert(f["alert"], subject(f.get("alert_labels", f["labels"])), f["severity"])
        for f in report["findings"]
        if f.get("alert") and f.get("state") == state
    }


@dataclass
class Story:
    """The demo loop's alerts: per phase, those firing at its end, those only ever pending."""

    phases: dict[str, PhaseAlerts]
    at_end: set[Alert]
    only_pending: set[str]


def walk(root: Path) -> Story:
    """Walk one loop of the demo story and tell each phase's alerts."""
    timeline = d.demo_timeline("demo", PHASES, root, moments=lambda *_: True)
    phases = {p.name: PhaseAlerts() for p in PHASES}
    before: set[Alert] = set()
    fired: set[str] = set()
    pending: set[str] = set()
    for moment in timeline.moments:
        phase = phases[moment.name.rsplit(" +", 1)[0]]
        now = _judged(moment.report, "firing")
        phase.started |= now - before
        phase.resolved |= before - now
        fired |= {a.name for a in now}
        pending |= {a.name for a in _judged(moment.report, "pending")}
        before = now
    return Story(phases, before, pending - fired)


def rule_durations() -> dict[str, str]:
    """Alert -> its ``for:`` in the shipped rule file."""
    doc = yaml.safe_load(RULES.read_text())
    return {
        r["alert"]: r.get("for", "0s") for g in doc["groups"] for r in g["rules"] if "alert" in r
    }


def _named(alerts: Iterable[Alert]) -> str:
    """``Name (subject; subject)`` per alert name, in name order; ``-`` for none."""
    by_name: dict[str, list[str]] = {}
    for a in sorted(alerts):
        by_name.setdefault(a.name, []).append(a.subject)
    if not by_name:
        return "-"
    return ", ".join(
        f"{name} ({'; '.join(s for s in subjects if s)})" if any(subjects) else name
        for name, subjects in by_name.items()
    )


def _counted(alerts: Iterable[Alert]) -> str:
    """``Name`` per alert name, ``Name ×N`` for N subjects; ``-`` for none."""
    counts: dict[str, int] = {}
    for a in sorted(alerts):
        counts[a.name] = counts.get(a.name, 0) + 1
    return ", ".join(f"{n} ×{c}" if c > 1 else n for n, c in counts.items()) or "-"


def render(story: Story) -> str:
    """README.md's demo table: each phase's units, the pages and tickets that start firing in
    it, and what resolves; then the alerts that stay pending, with their ``for:``."""
    rows = [
        "| phase | units | pages that start | tickets that start | resolved |",
        "|---|---:|---|---|---|",
    ]
    for p in PHASES:
        a = story.phases[p.name]
        pages = {x for x in a.started if x.severity == "critical"}
        rows.append(
            f"| {p.name} | {p.length} | {_named(pages)} | {_named(a.started - pages)} | "
            f"{_counted(a.resolved)} |"
        )
    durations = rule_durations()
    waiting = ", ".join(f"`{n}` (`for: {durations[n]}`)" for n in sorted(story.only_pending))
    rows += [
        "",
        f"Still firing when the loop starts again: {_counted(story.at_end)}. Pending in the "
        f"loop but never firing, their `for:` longer than their phases: {waiting}.",
    ]
    return "\n".join(rows) + "\n"
