"""The pieces rules are built from: rule records, and PromQL and template fragments."""

from __future__ import annotations

from dataclasses import dataclass, field
from textwrap import dedent, indent

from zmon.status import policy
from zmon.status.links import SiteLinks

VDEV_INFO = "zmon:vdev_device:info"
DISK_POOL = "zmon:disk_pool:info"  # each disk's pools over the last disk_pool_memory
DISK_VDEV = "zmon:disk_vdev:info"  # each disk's pools and leaf vdevs, the same way


@dataclass(frozen=True)
class Record:
    record: str
    expr: str


@dataclass(frozen=True)
class Alert:
    alert: str
    expr: str
    summary: str
    description: str
    for_: str = "0s"
    labels: dict[str, str] = field(default_factory=dict)
    dashboard: str = ""  # a key of DASHBOARDS; "" picks it from the alert's name

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


def with_pool_and_vdev(expr: str) -> str:
    """Per-device ``expr`` with the ``pool`` and leaf ``vdev`` the disk served, remembered as
    ``with_pool`` remembers the pool (none, if it served none).

    For a cause that must outrank the same disk's vdev alerts in Alertmanager (inhibition on
    instance, pool and vdev): those carry the vdev's identity, not the disk's device.
    """
    per_device = f"max by (instance, job, device) {paren(expr)}"
    return (
        f"{per_device}\n* on(instance, job, device) group_right {DISK_VDEV}\n"
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


def fill_alert(
    name: str,
    expr: str,
    summary: str,
    *,
    subject: str,
    filled: str,
    bounds: str,
    consequence: str,
    for_: object,
) -> Alert:
    """An alert on how full a pool or a dataset's quota is, where ``expr`` yields the ratio
    used. Its description reads "{subject} <ratio> {filled} ({bounds}){consequence}", for
    example "ZFS pool p on h is 91% full (above 90%, clears below 85%); writes slow down…"."""
    return Alert(
        name,
        expr,
        summary,
        f"{subject} {{{{ $value | humanizePercentage }}}} {filled} ({bounds}){consequence}",
        str(for_),
    )


POOL = "pool {{ $labels.pool }} on {{ $labels.instance }}"
# The disk behind a vdev, looked up when the alert is evaluated (an annotation, not a label: it
# changes when the disk is replaced, and the alert must not).
VDEV_DISK = (
    '{{ with printf "zmon:vdev_device:info{instance=%q,pool=%q,vdev=%q}" $labels.instance '
    "$labels.pool $labels.vdev | query }}{{ with . | first }} (disk {{ .Labels.device }}"
    '{{ with printf "zmon_disk_info{instance=%q,device=%q}" $labels.instance .Labels.device '
    '| query }}{{ with . | first | label "serial" }}, serial {{ . }}{{ end }}{{ end }}'
    '{{ with printf "zmon_disk_location_info{instance=%q,device=%q}" $labels.instance '
    ".Labels.device | query }}{{ with . | first }}{{ $l := .Labels }}{{ with $l.slot }}, "
    "enclosure {{ $l.enclosure }} slot {{ . }}{{ end }}{{ end }}{{ end }})"
    "{{ end }}{{ end }}"
)
VDEV = (
    f"vdev {{{{ $labels.vdev }}}}{VDEV_DISK} of pool {{{{ $labels.pool }}}} on "
    "{{ $labels.instance }}"
)
DISK = (
    "disk {{ $labels.device }} on {{ $labels.instance }}"
    '{{ with printf "zmon_disk_info{instance=%q,device=%q}" $labels.instance $labels.device '
    '| query }}{{ with . | first | label "serial" }} (serial {{ . }}){{ end }}{{ end }}'
    "{{ with $labels.pool }} (pool {{ . }}"
    '{{ with printf "zmon:vdev_device:info{instance=%q,device=%q}" $labels.instance '
    "$labels.device | query }}{{ with . | first }}, vdev {{ .Labels.vdev }}{{ end }}{{ end }}"
    "){{ end }}"
)
DISK_ = "D" + DISK[1:]  # at the start of a sentence


def disk_location(device: str) -> str:
    """Where the disk named by the template expression ``device`` is, looked up in
    ``zmon_disk_location_info`` when the alert is evaluated: a parenthesis with its by-id
    path, WWN, enclosure slot and the command that lights the slot's LED, each where the host
    has them; nothing when zmon serves no location for the disk. It goes right before a
    description's final period. (An annotation, never a label: a replaced disk has another
    place, and the alert must not fire again for it.)"""
    return (
        f'{{{{ with printf "zmon_disk_location_info{{instance=%q,device=%q}}" $labels.instance '
        f"{device} | query }}}}{{{{ with . | first }}}}{{{{ $l := .Labels }}}} (disk at "
        "{{ with $l.by_id }}/dev/disk/by-id/{{ . }}{{ else }}/dev/{{ $l.device }}{{ end }}"
        "{{ with $l.wwn }}, WWN {{ . }}{{ end }}"
        "{{ with $l.slot }}, enclosure {{ $l.enclosure }} slot {{ . }}{{ end }}"
        "{{ with $l.locate }}; find it with {{ . }}{{ end }})"
        "{{ end }}{{ end }}"
    )


# Goes before a disk alert description's final period: "Replace it (disk at
# /dev/disk/by-id/scsi-SSEAGATE_ST8000NM0075_ZA1ABC02, WWN 0x5000c500a1b2c302, enclosure
# 0:0:12:0 slot Slot01; find it with ledctl locate=/dev/sdb)."
DISK_LOCATION = disk_location("$labels.device")


def counted_since(
    selector: str, window: object, by: str, one: str, many: str, none: str = ""
) -> str:
    """How many the counters ``selector`` rose by in the last ``window``, exactly (their
    difference between now and ``window`` ago, summed over the series), looked up when the
    alert fires: "1 new checksum error", "12 new checksum errors", never increase()'s
    extrapolated fraction. Where a counter was reset meanwhile (zpool clear) or is younger
    than the window, it is how far the counter rose above its lowest value in the window:
    "at least 3 new checksum errors"; where even that is 0, ``none`` (default "new checksum
    errors", for a counter the alert's condition says rose).
    ``by`` is the label matchers of the alert's identity as a printf format, a ``|``, and its
    arguments (``instance=%q,pool=%q|$labels.instance $labels.pool``); ``one`` and ``many``
    are the noun."""
    matchers, args = by.split("|")
    inner = selector[:-1] + "," if selector.endswith("}") else selector + "{"
    series = f"{inner}{matchers}}}".replace('"', '\\"')
    query = f"sum({series} - {series} offset {window}) >= 0"
    # a counter younger than the window, or reset in it: how far it rose above its lowest
    # value in the window, a lower bound ("at least 3 new checksum errors")
    bound = f"sum({series} - min_over_time({series}[{window}])) > 0"

    def number(q: str, prefix: str, otherwise: str) -> str:
        return (
            f'{{{{ with printf "{q}" {args} {args} | query }}}}{{{{ with . | first | value }}}}'
            f'{prefix}{{{{ printf "%.0f" . }}}} new {{{{ if eq . 1.0 }}}}{one}{{{{ else }}}}'
            f"{many}{{{{ end }}}}{{{{ end }}}}{{{{ else }}}}{otherwise}{{{{ end }}}}"
        )

    return number(query, "", number(bound, "at least ", none or f"new {many}"))
