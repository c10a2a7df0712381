"""The pieces rules are built from: rule records, and PromQL and template fragments."""

from __future__ import annotations

from dataclasses import dataclass, field
from textwrap import dedent, indent

from alert_rules.thresholds import RUNBOOK_URL

SEVERITIES = ("critical", "warning", "info")
VDEV_INFO = "zmon:vdev_device:info"


@dataclass(frozen=True)
class Record:
    record: str
    expr: str


@dataclass(frozen=True)
class Alert:
    alert: str
    expr: str
    severity: str
    summary: str
    description: str
    for_: str = "0s"
    labels: dict[str, str] = field(default_factory=dict)

    @property
    def runbook_url(self) -> str:
        return f"{RUNBOOK_URL}#{self.alert.lower()}"


@dataclass(frozen=True)
class Group:
    name: str
    rules: list[Record | Alert]


def x(text: str) -> str:
    """A PromQL block written indented in Python, as plain text."""
    return dedent(text).strip()


def paren(expr: str) -> str:
    return "(\n" + indent(expr, "  ") + "\n)"


def with_device(expr: str) -> str:
    """Per-vdev ``expr`` with the vdev's whole-disk ``device`` label added where zmon knows it."""
    return (
        f"{paren(expr)}\n* on(instance, job, pool, vdev) group_left(device) {VDEV_INFO}\n"
        f"or on(instance, job, pool, vdev)\n{paren(expr)}"
    )


def with_vdevs(expr: str) -> str:
    """Per-device ``expr`` once per pool/vdev the disk belongs to (or once, if in none)."""
    per_device = f"max by (instance, job, device) {paren(expr)}"
    return (
        f"{per_device}\n* on(instance, job, device) group_right {VDEV_INFO}\n"
        f"or on(instance, job, device)\n{per_device}"
    )


def events_per_vdev(selector: str, window: object, by: str) -> str:
    """New events per vdev. zmon labels an event's leaf as zpool status names it (a whole
    disk's ``ata-X``, not the event path's ``ata-X-part1``), so it joins zmon_vdev_info."""
    return x(f"""
        sum by (instance, job, pool, vdev{by}) (
          increase({selector}[{window}])
        ) > 0
    """)


def rise(metric: str, window: object) -> str:
    """How far a gauge stands above its lowest value in ``window`` (exact, unlike delta)."""
    return f"{metric} - min_over_time({metric}[{window}])"


def hysteresis(metric: str, name: str, on: float, off: float) -> str:
    """Fires above ``on`` and stays active (pending or firing) until it drops below ``off``."""
    return x(f"""
        {metric} > {on}
        or
        (
          {metric} > {off}
          and on(instance, job, pool)
          ALERTS{{alertname="{name}", alertstate=~"pending|firing"}}
        )
    """)


POOL = "pool {{ $labels.pool }} on {{ $labels.instance }}"
VDEV = (
    "vdev {{ $labels.vdev }}{{ with $labels.device }} (disk {{ . }}){{ end }} of pool "
    "{{ $labels.pool }} on {{ $labels.instance }}"
)
DISK = (
    "disk {{ $labels.device }} on {{ $labels.instance }}"
    "{{ with $labels.pool }} (vdev {{ $labels.vdev }} of pool {{ . }}){{ end }}"
)
DISK_ = "D" + DISK[1:]  # at the start of a sentence
