"""The SAS PHYs of the host's HBAs and expanders from sysfs, each with what its link reaches.

``/sys/class/sas_phy/<phy>`` holds the counters; its ``device`` link leads to the PHY's device
directory under its parent (``host0`` for an HBA PHY, ``expander-0:0`` for an expander PHY).
The parent also holds the ports (``port-0:3``, ``port-0:0:12``), each with a link named after
every PHY in it, and under the port what the link reaches: an ``end_device-*`` with the disk's
``target*/H:C:T:L/block/<name>``, or an ``expander-*``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from zmon.host.paths import Paths
from zmon.parsers.disks.sas_phy import FILES, SasHostPhy, parse_sas_phy

MAX_ATTRIBUTE_BYTES = 256


@dataclass
class SasPhyLink:
    """A PHY, the HBA or expander it belongs to, and what is at the other end of its link."""

    phy: SasHostPhy
    parent: str  # host0 (HBA) or expander-0:0
    attached: str  # "disk", "end_device" (an SES device ...), "expander", or "" (no link)
    attached_name: str = ""  # end_device-0:0:3 or expander-0:1
    device: str | None = None  # the disk's kernel name when the link reaches a disk

    @property
    def parent_kind(self) -> str:
        return "expander" if self.parent.startswith("expander-") else "hba"


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return f.read(MAX_ATTRIBUTE_BYTES)
    except OSError:  # gone with a hot-unplug, or unreadable: the value is unknown
        return None


def _subdirs(path: str, prefix: str) -> list[str]:
    try:
        return sorted(n for n in os.listdir(path) if n.startswith(prefix))
    except OSError:
        return []


def _disk_below(end_device: str) -> str | None:
    """The block device under ``end_device-*/target*/H:C:T:L/block/``, if any."""
    for target in _subdirs(end_device, "target"):
        tdir = os.path.join(end_device, target)
        for lun in sorted(os.listdir(tdir)) if os.path.isdir(tdir) else []:
            names = _subdirs(os.path.join(tdir, lun, "block"), "")
            if names:
                return names[0]
    return None


def _attachment(parent_dir: str, name: str) -> tuple[str, str, str | None]:
    """(kind, name, disk) of what the port holding PHY ``name`` under ``parent_dir`` reaches."""
    for port in _subdirs(parent_dir, "port-"):
        pdir = os.path.join(parent_dir, port)
        if not os.path.lexists(os.path.join(pdir, name)):
            continue
        for end in _subdirs(pdir, "end_device-"):
            disk = _disk_below(os.path.join(pdir, end))
            return ("disk" if disk else "end_device"), end, disk
        for exp in _subdirs(pdir, "expander-"):
            return "expander", exp, None
        return "", "", None
    return "", "", None


def read_sas_phys(paths: Paths) -> list[SasPhyLink]:
    """Every PHY of ``/sys/class/sas_phy`` in name order; empty without SAS hardware."""
    cls = str(paths.sys("class", "sas_phy"))
    try:
        names = sorted(os.listdir(cls))
    except OSError:
        return []
    links = []
    for name in names:
        entry = os.path.join(cls, name)
        phy = parse_sas_phy(name, {f: _read(os.path.join(entry, f)) for f in FILES})
        phy_dir = os.path.realpath(os.path.join(entry, "device"))
        parent_dir = os.path.dirname(phy_dir)
        kind, attached_name, disk = _attachment(parent_dir, name)
        links.append(SasPhyLink(phy, os.path.basename(parent_dir), kind, attached_name, disk))
    return links
