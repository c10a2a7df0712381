"""The pieces rules are built from: rule records, and PromQL and template fragments."""

from __future__ import annotations

from dataclasses import dataclass, field
from textwrap import dedent, indent

from zmon.judgment import declarations
from zmon.judgment.conditions import Condition
from zmon.judgment.expr import Record as DeclaredRecord
from zmon.judgment.words import (  # noqa: F401 - the unconverted rule families use them here
    DISK,
    DISK_,
    DISK_LOCATION,
    POOL,
    VDEV,
    VDEV_DISK,
    counted_since,
    disk_location,
)
from zmon.status import policy
from zmon.status.links import SiteLinks

# the shared records' names, for the rules still written as text
VDEV_INFO = declarations.VDEV_INFO.name
DISK_POOL = "zmon:disk_pool:info"  # each disk's pools over the last disk_pool_memory


@dataclass(frozen=True)
class Record:
    record: str
    expr: str

    @classmethod
    def of(cls, record: DeclaredRecord) -> Record:
        """The rule of a declared record."""
        return cls(record.name, record.expr.promql())


@dataclass(frozen=True)
class Alert:
    alert: str
    expr: str
    summary: str
    description: str
    for_: str = "0s"
    labels: dict[str, str] = field(default_factory=dict)
    dashboard: str = ""  # a key of DASHBOARDS; "" picks it from the alert's name

    @classmethod
    def of(cls, condition: Condition) -> Alert:
        """The rule of a declared condition (zmon/judgment/declarations.py)."""
        return cls(
            condition.name,
            condition.promql(),
            condition.summary,
            condition.description,
            str(condition.for_),
            dict(condition.labels),
            condition.dashboard,
        )

    @property
    def severity(self) -> str:
        """From the paging policy (zmon/status/policy.py), the one place severities are set."""
        return policy.severity(self.alert)

    def runbook_url(self, site: SiteLinks) -> str | None:
        """Its section of the site's runbook (None without one)."""
        return site.runbook(self.alert)

    def dashboard_url(self, site: SiteLinks) -> str | None:
        """The dashboard of what it names, its labels as the variables (None without a
        Grafana address)."""
        kind = self.dashboard or next(
            (k for prefix, k in DASHBOARD_BY_PREFIX if self.alert.startswith(prefix)), "pool"
        )
        uid, variables = DASHBOARDS[kind]
        query = "&".join(f"var-{v}={{{{ $labels.{v} | urlquery }}}}" for v in variables)
        return site.dashboard(uid, query)


# Dashboard (grafana/) per alert kind: uid, and the alert labels passed as its variables.
DASHBOARDS = {
    "pool": ("zmon-pool", ("instance", "pool")),
    "disk": ("zmon-disks", ("instance", "device")),
    "ups": ("zmon-ups", ("instance", "ups")),
    "arc": ("zmon-arc", ("instance",)),
    "fleet": ("zmon-fleet", ("instance",)),
}
DASHBOARD_BY_PREFIX = (
    ("Disk", "disk"),
    ("UpsOnBatteryDuringScan", "pool"),
    ("Ups", "ups"),
    ("ZfsArc", "arc"),
    ("ZfsL2arc", "arc"),
    ("Zmon", "fleet"),
)


@dataclass(frozen=True)
class Group:
    name: str
    rules: list[Record | Alert]


def x(text: str) -> str:
    """A PromQL block written indented in Python, as plain text."""
    return dedent(text).strip()


def paren(expr: str) -> str:
    return "(\n" + indent(expr, "  ") + "\n)"


def per_vdev(expr: str, extra: str = "") -> str:
    """``expr`` with the vdev's identity only (instance, job, pool, vdev): no ``device``, no
    ``class``. A label that can change during one incident (the ``device`` of a disk replaced
    or re-enumerated under a slot-named vdev) would resolve the alert and fire it again under
    new labels: a second notification."""
    return f"max by (instance, job, pool, vdev{extra}) {paren(expr)}"


def with_pool(expr: str) -> str:
    """Per-device ``expr`` with the ``pool`` the disk served (or none, if it served none).

    The pool comes from ``zmon:disk_pool:info``, which remembers a disk's pools for a while:
    a disk replaced out of its pool keeps its label set, so its alert does not resolve and
    fire again (a second page). The vdev, which a replacement changes, is in the description.
    """
    per_device = f"max by (instance, job, device) {paren(expr)}"
    return (
        f"{per_device}\n* on(instance, job, device) group_right {DISK_POOL}\n"
        f"or on(instance, job, device)\n{per_device}"
    )


def events_per_vdev(selector: str, window: object) -> str:
    """New events per vdev, all selected classes together (one alert per vdev). zmon labels
    an event's leaf as zpool status names it (a whole disk's ``ata-X``, not the event path's
    ``ata-X-part1``), so it joins zmon_vdev_info; its counters start at 0 (zero-initialised)."""
    return x(f"""
        sum by (instance, job, pool, vdev) (
          increase({selector}[{window}])
        ) > 0
    """)


def rise(metric: str, window: object) -> str:
    """How far a gauge stands above its lowest value in ``window`` (exact, unlike delta)."""
    return f"{metric} - min_over_time({metric}[{window}])"
