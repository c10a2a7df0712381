"""Cause over symptom, declared once: which alert mutes which while it fires.

Alertmanager's ``inhibit_rules`` in packaging/alertmanager/zmon.yml are rendered from this list
(``python -m alert_rules.generate``), and the status report applies the same list to the alerts
it names (zmon/status/report.py): a muted alert is said as a symptom of its cause and does not
count in the host's state, as it does not reach the pager.

Alertmanager's semantics: a target alert is muted while a firing alert matches the source,
both carry the same values of the ``equal`` labels (a label both lack is equal), and the target
is not itself one of the sources that mutes it. Names are matched by an anchored regular
expression (``ZfsVdev.*``); ``target_except`` mutes every alert but that one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

_PLAIN = re.compile(r"^[A-Za-z0-9_]+$")


@dataclass(frozen=True)
class Inhibition:
    why: str  # the comment above the rule in the Alertmanager configuration
    source: str  # alert names, an anchored regular expression
    target: str  # alert names muted, likewise ("" with target_except)
    equal: tuple[str, ...]
    target_except: str = ""  # mute every alert but this one

    def mutes(
        self,
        source: str,
        source_labels: Mapping[str, str],
        target: str,
        target_labels: Mapping[str, str],
    ) -> bool:
        """Whether a firing ``source`` alert mutes ``target`` under this rule."""
        if not re.fullmatch(self.source, source):
            return False
        if not self._targets(target):
            return False
        if re.fullmatch(self.source, target) and self._targets(source):
            return False  # both match both sides: Alertmanager lets neither mute the other
        return all(source_labels.get(k, "") == target_labels.get(k, "") for k in self.equal)

    def _targets(self, name: str) -> bool:
        if self.target_except:
            return name != self.target_except
        return re.fullmatch(self.target, name) is not None

    def yaml(self) -> list[str]:
        """The rule as lines of the configuration's ``inhibit_rules`` list."""
        lines = [f"  # {line}" for line in _wrap(self.why, 92)]
        lines.append(f"  - source_matchers: [{_matcher(self.source)}]")
        if self.target_except:
            lines.append(f'    target_matchers: [alertname!="{self.target_except}"]')
        else:
            matcher = _matcher(self.target)
            if len(matcher) > 60:
                lines += ["    target_matchers:", f"      - {matcher}"]
            else:
                lines.append(f"    target_matchers: [{matcher}]")
        lines.append(f"    equal: [{', '.join(self.equal)}]")
        return lines


def _matcher(names: str) -> str:
    if _PLAIN.match(names):
        return f'alertname="{names}"'
    return f"'alertname=~\"{names}\"'"


def _wrap(text: str, width: int) -> list[str]:
    out: list[str] = []
    for word in text.split():
        if out and len(out[-1]) + 1 + len(word) <= width:
            out[-1] += " " + word
        else:
            out.append(word)
    return out


CABLE = "DiskLinkFailing|DiskCableFault"
INHIBITIONS: tuple[Inhibition, ...] = (
    Inhibition("A dead host: every other alert from it is blind or a consequence.",
               "ZmonTargetDown", "", ("instance",), target_except="ZmonTargetDown"),
    Inhibition("A faulted, suspended or stuck pool: its vdev, disk and scan alerts are "
               "symptoms of it.",
               "ZfsPoolFaulted|ZfsPoolStuck",
               "ZfsVdev.*|ZfsSpareInUse|ZfsErrorEvents|ZfsDeadmanEvents|ZfsPoolDegraded|"
               "ZfsPoolRedundancyLost|ZfsPoolErrorsNotCleared|ZfsResilver.*|ZfsScrub.*|Disk.*",
               ("instance", "pool")),
    Inhibition("ZFS stuck: zmon's collectors that run zpool time out and go stale - that is "
               "the same fault.",
               "ZfsPoolStuck", "ZmonCollectorFailing|ZmonCollectorDataStale", ("instance",)),
    Inhibition('A pool with no redundancy left pages; its "degraded", "vdev faulted" and '
               '"spare in use" tickets tell the same story.',
               "ZfsPoolRedundancyLost", "ZfsPoolDegraded|ZfsVdevFaulted|ZfsSpareInUse",
               ("instance", "pool")),
    Inhibition("A disk's failing path, or its cable: the checksum, I/O error, error-event and "
               "not-cleared alerts of that disk's vdev are its symptoms. Vdev alerts are "
               "identified by pool and vdev (a disk replaced under a slot-named vdev keeps its "
               "alert); DiskCableFault and DiskLinkFailing name both the device and the vdev it "
               "serves. zmon labels a whole disk's events with the name zpool status gives it "
               "(ata-X, not the partition's ata-X-part1).",
               f"ZfsVdevFailing|{CABLE}",
               "ZfsVdevChecksumErrors|ZfsVdevIOErrors|ZfsErrorEvents|ZfsPoolErrorsNotCleared",
               ("instance", "pool", "vdev")),
    Inhibition("A scrub that found errors in a pool while one of its disks has a cable fault "
               "read them through that cable: the cable alert says to scrub again once it is "
               "fixed. (A scrub finding errors elsewhere in the pool during the fault waits "
               "until the cable is fixed.)",
               CABLE, "ZfsScrubFoundErrors", ("instance", "pool")),
    Inhibition("The cable outranks the slow link it causes on the same disk.",
               CABLE, "DiskLinkSpeedDegraded", ("instance", "device")),
    Inhibition("A SAS expander or HBA with link errors on several of its PHYs: the cable "
               "tickets of the disks behind it (their sas_parent) are its symptoms. A cable "
               "page is not muted by a ticket.",
               "DiskSasExpanderLinkErrors", "DiskCableFault", ("instance", "sas_parent")),
    Inhibition("The cable page tells what the cable ticket of the same disk tells.",
               "DiskLinkFailing", "DiskCableFault", ("instance", "device")),
    Inhibition("The failing path pages and names the cable evidence: the cable page and "
               "ticket add nothing (and, muted, they still mute their own symptoms).",
               "ZfsVdevFailing", CABLE, ("instance", "pool", "vdev")),
    Inhibition("A resilver reads the last good copy of a vdev from a failing disk: that disk's "
               "SMART and media alerts are the page's evidence (it says to keep the disk in "
               "until the resilver ends, not to replace it now).",
               "ZfsResilverSourceFailing",
               "DiskSmartFailed|DiskPendingSectorsRising|DiskReallocatedSectorsRising|"
               "DiskMediumErrors|DiskNvmeMediaErrors", ("instance", "device")),
    Inhibition('A pool nearly full: the "filling up" warning adds nothing.',
               "ZfsPoolCapacityCritical", "ZfsPoolCapacityWarning", ("instance", "pool")),
    Inhibition('A low battery supersedes "on battery" and "runtime low" for the same UPS.',
               "UpsLowBattery", "UpsOnBattery|UpsRuntimeLow", ("ups", "server")),
)  # fmt: skip


def inhibit_rules_yaml() -> str:
    """The ``inhibit_rules:`` section of the Alertmanager configuration."""
    lines = ["inhibit_rules:"]
    for rule in INHIBITIONS:
        lines += rule.yaml()
    return "\n".join(lines) + "\n"


def muted_by(
    firing: list[tuple[str, Mapping[str, str]]], alert: str, labels: Mapping[str, str]
) -> str | None:
    """The first firing alert that mutes ``alert`` (with ``labels``), or None."""
    for source, source_labels in firing:
        if (source, dict(source_labels)) == (alert, dict(labels)):
            continue
        if any(r.mutes(source, source_labels, alert, labels) for r in INHIBITIONS):
            return source
    return None
