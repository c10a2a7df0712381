"""The incident set, replayed on the noise year's host (tests/rules/noise.py): what zmon
serves through each incident, rendered as promtool tests of the shipped rules, and how many
page notifications Alertmanager sends for it.

How pages are counted. promtool evaluates the rules a minute apart and reports, per critical
alert (its name and identifying labels), how often it started firing (a minute it fires and
did not fire a minute before) and the first minute it fired; the test states both exactly,
so promtool checks them. The shipped Alertmanager configuration then decides what of that
reaches the pager: a start is muted when an inhibit rule's source alert already fires with
the same ``equal`` labels; the others notify their route's group (``group_by``), and starts
of one group in one evaluation arrive together (within ``group_wait``), one notification. A
later start in the same group is a new notification (after ``group_interval``), as is every
restart of an alert. Each incident must give exactly one page notification.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from alert_rules import generate
from tests.rules import noise
from tests.rules.noise import H, Host

AT = 20  # the minute each incident begins
LENGTH = 120  # minutes replayed
ALERTMANAGER = Path(__file__).resolve().parents[2] / "packaging" / "alertmanager" / "zmon.yml"
# the labels that identify a critical alert of the host (instance and job are the host's)
IDENTITY = ("alertname", "pool", "vdev", "device", "ups", "server")

Labels = tuple[tuple[str, str], ...]


def _labels(**kv: str) -> Labels:
    return tuple(sorted(kv.items()))


@dataclass(frozen=True)
class Incident:
    name: str
    effect: Callable[[Host], None]
    # critical alert -> (times it started firing, first minute it fired), as promtool sees
    starts: dict[Labels, tuple[int, int]]


# ---- series of pools added for an incident (the noise host has one raidz2)


def add_pool(h: Host, pool: str, top: str, kind: str, disks: tuple[str, ...], left: int) -> None:
    """A healthy pool of one top-level vdev ``top`` over ``disks`` (vdev named as the disk)."""
    p = f'pool="{pool}"'
    for state in ("online", "degraded", "faulted", "offline", "removed", "unavail", "suspended"):
        h.const("zmon_pool_state", f'{p}, state="{state}"', int(state == "online"))
        h.const("zmon_pool_kstat_state", f'{p}, state="{state}"', int(state == "online"))
    h.series[h.key("zmon_pool_txg_sync_duration_seconds_count", p)] = [12.0 * i for i in range(h.n)]
    h.const("zmon_kernel_log_pool_events_total", f'pattern="pool_suspended", {p}', 0)
    h.const("zmon_pool_data_errors", p, 0)
    h.const("zmon_pool_data_errors_present", p, 0)
    h.const("zmon_pool_last_scrub_end_time_seconds", p, -10 * 86400)
    for function in ("scrub", "resilver", "rebuild"):
        h.const("zmon_pool_scan_in_progress", f'{p}, function="{function}"', 0)
    for vdev, parent, vtype, device in (
        (pool, "", "root", ""),
        (top, pool, kind, ""),
        *((d, top, "disk", d) for d in disks),
    ):
        h.const(
            "zmon_vdev_info",
            f'{p}, vdev="{vdev}", class="normal", device="{device}", type="{vtype}", '
            f'parent="{parent}", path="", guid="{vdev}", state="ONLINE"',
            1,
        )
        if vtype != "root":
            _vdev(h, pool, vdev)
    h.const("zmon_vdev_redundancy", f'{p}, vdev="{top}", class="normal"', left)
    for disk in disks:
        noise._disk_series(h, disk)
        for cls in noise.EVENT_CLASSES:
            h.const("zmon_zfs_events_total", f'{p}, vdev="{disk}", class="{cls}"', 0)
    for cls in noise.EVENT_CLASSES:
        h.const("zmon_zfs_events_total", f'{p}, vdev="", class="{cls}"', 0)


def _vdev(h: Host, pool: str, vdev: str) -> None:
    v = f'pool="{pool}", vdev="{vdev}", class="normal"'
    for state in ("online", "degraded", "faulted", "offline", "removed", "unavail"):
        h.const("zmon_vdev_state", f'{v}, state="{state}"', int(state == "online"))
    for counter in ("read_errors", "write_errors", "checksum_errors", "slow_ios"):
        h.const(f"zmon_vdev_{counter}_total", v, 0)


def _state(h: Host, name: str, labels: str, state: str, start: int) -> None:
    """A state set's ``state`` from ``start`` on (the others 0)."""
    for key in [k for k in h.series if k.startswith(f"{name}{{{H}, {labels}, state=")]:
        now = re.search(r'state="(\w+)"', key.split(labels, 1)[1])
        assert now is not None
        values = h.series[key]
        for i in range(start, h.n):
            if values[i] is not None:
                values[i] = float(now.group(1) == state)


# ---- the incidents


def cable_keeps_erroring(h: Host) -> None:
    """sdb of the raidz2 logs a CRC error every 5 minutes and goes on (a cable that fails)."""
    for minute in range(AT, h.n, 5):
        h.add("zmon_disk_crc_errors_total", 'device="sdb"', minute)
        h.add("zmon_kernel_log_events_total", 'pattern="crc_error", device="sdb"', minute)


def mirror_loses_a_side(h: Host) -> None:
    """Pool fast, a 2-way mirror of sde and sdf: sdf is pulled out (REMOVED)."""
    add_pool(h, "fast", "mirror-0", "mirror", ("sde", "sdf"), left=1)
    h.add("zmon_disk_hotplug_events_total", 'device="sdf", action="remove"', AT)
    for key in [k for k in h.series if 'device="sdf"' in k and "hotplug" not in k]:
        if not key.startswith("zmon_vdev_info"):
            h.series[key][AT:] = [None] * (h.n - AT)
    _state(h, "zmon_vdev_state", 'pool="fast", vdev="sdf", class="normal"', "removed", AT)
    _state(h, "zmon_vdev_state", 'pool="fast", vdev="mirror-0", class="normal"', "degraded", AT)
    _state(h, "zmon_pool_state", 'pool="fast"', "degraded", AT)
    h.set("zmon_vdev_redundancy", 'pool="fast", vdev="mirror-0", class="normal"', AT, h.n, 0)


def raidz1_disk_failing(h: Host) -> None:
    """Pool rz, a raidz1 of sdi, sdj and sdk: sdj fails a read every 2 minutes (ZFS repairs
    each from parity and posts an I/O error event), fewer than ZFS needs to fault it."""
    add_pool(h, "rz", "raidz1-0", "raidz", ("sdi", "sdj", "sdk"), left=1)
    for minute in range(AT, h.n, 2):
        h.add("zmon_vdev_read_errors_total", 'pool="rz", vdev="sdj", class="normal"', minute)
        h.add("zmon_zfs_events_total", 'pool="rz", vdev="sdj", class="io"', minute)
        h.add("zmon_kernel_log_events_total", 'pattern="medium_error", device="sdj"', minute)


def pool_suspended(h: Host) -> None:
    """tank loses its controller: every disk fails its writes, ZFS suspends the pool (zpool
    status answers, saying SUSPENDED), no transaction group commits any more."""
    p = 'pool="tank"'
    for disk in noise.DISKS:
        v = f'pool="tank", vdev="{noise.vdev_name(disk)}", class="normal"'
        h.add("zmon_vdev_write_errors_total", v, AT, 8)
        h.add("zmon_zfs_events_total", v.replace(', class="normal"', ', class="io"'), AT, 8)
    h.add("zmon_kernel_log_pool_events_total", f'pattern="pool_suspended", {p}', AT)
    _state(h, "zmon_pool_state", p, "suspended", AT)
    _state(h, "zmon_pool_kstat_state", p, "suspended", AT)
    txg = h.series[h.key("zmon_pool_txg_sync_duration_seconds_count", p)]
    for i in range(AT, h.n):
        txg[i] = txg[AT - 1]


def data_errors(h: Host) -> None:
    """A block of tank no copy could repair: 3 permanent errors, found on a read."""
    p = 'pool="tank"'
    h.set("zmon_pool_data_errors", p, AT, h.n, 3)
    h.set("zmon_pool_data_errors_present", p, AT, h.n, 1)
    v = f'pool="tank", vdev="{noise.vdev_name("sdc")}"'
    h.add("zmon_vdev_checksum_errors_total", f'{v}, class="normal"', AT, 3)
    h.add("zmon_zfs_events_total", f'{v}, class="checksum"', AT, 3)
    h.add("zmon_zfs_events_total", 'pool="tank", vdev="", class="data"', AT, 1)


def host_down(h: Host) -> None:
    """The host dies: Prometheus's up is 0 and zmon serves nothing."""
    h.down(AT, h.n)


def power_cut(h: Host) -> None:
    """Mains fails for 25 minutes; the UPS runs on battery (40 minutes at full charge)."""
    u = 'ups="ups", server="127.0.0.1:3493"'
    end = AT + 25
    for flag, value in (("OL", 0), ("OB", 1), ("DISCHRG", 1)):
        h.set("zmon_ups_status", f'{u}, flag="{flag}"', AT, end, value)
    for i in range(AT, h.n):
        left = 2400 - 60 * (min(i, end) - AT)
        h.series[h.key("zmon_ups_battery_runtime_seconds", u)][i] = float(left)
        h.series[h.key("zmon_ups_battery_charge_ratio", u)][i] = left / 2400


SDB = noise.vdev_name("sdb")
INCIDENTS = (
    Incident("cable fault that keeps erroring", cable_keeps_erroring, {
        _labels(alertname="DiskLinkFailing", pool="tank", vdev=SDB, device="sdb"): (1, 50),
    }),
    Incident("mirror losing a side", mirror_loses_a_side, {
        _labels(alertname="ZfsPoolRedundancyLost", pool="fast"): (1, 21),
    }),
    # a raidz1 member has no redundancy to spare: its first read error pages
    Incident("raidz1 disk failing", raidz1_disk_failing, {
        _labels(alertname="ZfsVdevFailing", pool="rz", vdev="sdj"): (1, 20),
    }),
    # two alerts of one group in one evaluation: one notification
    Incident("pool suspended", pool_suspended, {
        _labels(alertname="ZfsPoolFaulted", pool="tank"): (1, 21),
        _labels(alertname="ZfsPoolStuck", pool="tank"): (1, 21),
    }),
    Incident("data errors", data_errors, {
        _labels(alertname="ZfsPoolDataErrors", pool="tank"): (1, 20),
    }),
    Incident("host down", host_down, {_labels(alertname="ZmonTargetDown"): (1, 25)}),
    Incident("power cut", power_cut, {
        _labels(alertname="UpsOnBattery", ups="ups", server="127.0.0.1:3493"): (1, 21),
    }),
)  # fmt: skip


def incident_host(incident: Incident) -> Host:
    h = noise.healthy_host(LENGTH)
    incident.effect(h)
    return h


# ---- promtool


CRITICAL = 'ALERTS{alertstate="firing", severity="critical"}'
BY = f"sum by ({', '.join(IDENTITY)})"


def starts_expr() -> str:
    """Per critical alert: the minutes it fires and did not fire a minute before."""
    return f"{BY} (sum_over_time(({CRITICAL} unless {CRITICAL} offset 1m)[{LENGTH}m:1m]))"


def first_expr() -> str:
    """Per critical alert: the first minute it fires (seconds from the start)."""
    return f"min by ({', '.join(IDENTITY)}) (min_over_time(timestamp({CRITICAL})[{LENGTH}m:1m]))"


def _selector(labels: Labels) -> str:
    return "{" + ",".join(f'{k}="{v}"' for k, v in labels) + "}"


def render_test(incident: Incident) -> str:
    h = incident_host(incident)
    lines = [f"  - name: {incident.name}", "    interval: 1m", "    input_series:"]
    for key, values in h.series.items():
        lines += [f"      - series: '{key}'", f"        values: '{noise._values(values)}'"]
    lines.append("    promql_expr_test:")
    for expr, value in ((starts_expr(), 0), (first_expr(), 1)):
        lines += [f"      - expr: '{expr}'", f"        eval_time: {LENGTH - 1}m"]
        if not incident.starts:
            lines.append("        exp_samples: []")
            continue
        lines.append("        exp_samples:")
        for labels, found in sorted(incident.starts.items()):
            shown = found[0] if value == 0 else found[1] * 60
            lines += [f"          - labels: '{_selector(labels)}'", f"            value: {shown}"]
    return "\n".join(lines)


def render_file(rules: Path, incidents: tuple[Incident, ...] = INCIDENTS) -> str:
    head = ["rule_files:", f"  - {rules}", "evaluation_interval: 1m",
            *generate.eval_order_lines(), "", "tests:"]  # fmt: skip
    return "\n".join(head + [render_test(i) for i in incidents]) + "\n"


# ---- Alertmanager: what reaches the pager


_MATCHER = re.compile(r'^(\w+)\s*(=~|!=|!~|=)\s*"(.*)"$')


def matches(matchers: list[str], labels: dict[str, str]) -> bool:
    for m in matchers:
        found = _MATCHER.match(m.strip())
        assert found, m
        key, op, value = found.groups()
        have = labels.get(key, "")
        ok = {
            "=": have == value,
            "!=": have != value,
            "=~": re.fullmatch(value, have) is not None,
            "!~": re.fullmatch(value, have) is None,
        }[op]
        if not ok:
            return False
    return True


def _route(
    route: dict[str, Any], labels: dict[str, str], group_by: list[str]
) -> tuple[str, list[str]]:
    """(receiver, group_by) of the first matching child route, depth first (no continue:
    the paging route of a page-once alert is its first)."""
    group_by = route.get("group_by", group_by)
    for child in route.get("routes", []):
        if matches(child.get("matchers", []), labels):
            return _route(child, labels, group_by)
    return route.get("receiver", ""), group_by


def page_notifications(starts: dict[Labels, tuple[int, int]]) -> list[tuple[Labels, int]]:
    """The page notifications Alertmanager sends for these critical alert starts: (group,
    minute) for each start that no firing alert inhibits, one per group and minute."""
    config = yaml.safe_load(ALERTMANAGER.read_text())
    alerts = [(dict(labels) | {"severity": "critical"}, n, first)
              for labels, (n, first) in starts.items()]  # fmt: skip
    out: set[tuple[Labels, int]] = set()
    for labels, n, first in alerts:
        muted = any(
            matches(rule["target_matchers"], labels)
            and matches(rule["source_matchers"], other)
            and other_first <= first
            and all(labels.get(k, "") == other.get(k, "") for k in rule["equal"])
            for rule in config["inhibit_rules"]
            for other, _, other_first in alerts
            if other is not labels
        )
        if muted:
            continue
        receiver, group_by = _route(config["route"], labels, [])
        if receiver != "page":
            continue
        group = tuple((k, labels.get(k, "")) for k in group_by)
        out.add((group, first))
        for restart in range(1, n):  # a restart is a new notification
            out.add((group, -restart))
    return sorted(out)
