"""A fake SAS host: the static JBOD tree (HBA host0, expander-0:0, SES enclosure 0:0:12:0,
disks sda-sdd in port-0:0:0 to port-0:0:3) with the SAS transport class's PHYs added.

HBA PHYs phy-0:0 to phy-0:3 form the wide port port-0:0 to the expander; expander PHYs
phy-0:0:0 to phy-0:0:3 link one disk each, phy-0:0:12 the SES device, and phy-0:0:20 has no
link. ``set_counter`` changes a counter as the kernel would between two reads.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from tests.helpers import fixture_path
from zmon.collecting.registry import Paths
from zmon.demo.fakehost import link, sas_phy, write

JBOD = fixture_path("disks", "jbod-host")
HOST0 = "devices/pci0000:00/0000:00:03.0/0000:03:00.0/host0"
EXPANDER = HOST0 + "/port-0:0/expander-0:0"
HBA_ADDRESS = "0x500605b00ab1c2d0"
EXPANDER_ADDRESS = "0x500304801f0a3b7f"


def build_sas_host(root: Path) -> Paths:
    """Copy the JBOD tree to ``root`` and add its PHYs; the paths to point zmon at."""
    shutil.copytree(JBOD, root, symlinks=True)
    sys_dir = root / "sys"
    host0, expander = sys_dir / HOST0, sys_dir / EXPANDER
    for n in range(4):
        sas_phy(sys_dir, host0, f"phy-0:{n}", sas_address=HBA_ADDRESS)
        link(host0 / "port-0:0" / f"phy-0:{n}", host0 / f"phy-0:{n}")
    for n in (0, 1, 2, 3, 12):
        name = f"phy-0:0:{n}"
        sas_phy(sys_dir, expander, name, sas_address=EXPANDER_ADDRESS)
        link(expander / f"port-0:0:{n}" / name, expander / name)
    sas_phy(sys_dir, expander, "phy-0:0:20", sas_address=EXPANDER_ADDRESS, linkrate="Unknown")
    return Paths(procfs=root / "proc", sysfs=sys_dir, rootfs=root, state_dir=root / "state")


def set_counter(paths: Paths, phy: str, counter: str, value: int) -> None:
    """Write ``counter`` (a sysfs file name) of ``phy`` (atomically, as sysfs reads are)."""
    path = paths.sysfs / "class" / "sas_phy" / phy / counter
    write(path.with_name(path.name + ".new"), f"{value}\n")
    os.replace(path.with_name(path.name + ".new"), path)
