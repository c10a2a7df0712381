"""The rule file's pieces: records and alerts rendered from their declarations, in groups."""

from __future__ import annotations

from dataclasses import dataclass, field

from zmon.health import policy
from zmon.health.conditions import Condition
from zmon.health.expr import Record as DeclaredRecord
from zmon.status.links import SiteLinks


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
    keep_firing_for: str = "0s"

    @classmethod
    def of(cls, condition: Condition) -> Alert:
        """The rule of a declared condition (zmon/health/declarations.py)."""
        return cls(
            condition.name,
            condition.promql(),
            condition.summary,
            condition.description,
            str(condition.for_),
            dict(condition.labels),
            condition.dashboard,
            str(condition.keep_firing_for),
        )

    @property
    def severity(self) -> str:
        """From the paging policy (zmon/health/policy.py), the one place severities are set."""
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
