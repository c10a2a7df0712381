"""Fake host trees (sysfs block devices, ``/dev/disk``, fake programs, the config pointed at
them) for the demo host, the benchmarks' big host and the tests' disk fixture."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from zmon.collecting.config import CollectorSettings, Config, declared_binaries
from zmon.collecting.registry import Paths
from zmon.collecting.registry import collectors as registered_collectors

PCI = "devices/pci0000:00"
# The directory that holds the zmon package: the fake programs import zmon.demo.fakebin from it.
PACKAGE_PARENT = Path(__file__).resolve().parents[2]


def write(path: Path, text: str | bytes) -> None:
    """Write ``path``, making its directories."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)


def link(at: Path, target: Path) -> None:
    """A relative symlink at ``at`` to ``target`` (both absolute), replaced if present."""
    at.parent.mkdir(parents=True, exist_ok=True)
    rel = os.path.relpath(target, at.parent)
    tmp = at.with_name(f".{at.name}.tmp")
    if tmp.is_symlink() or tmp.exists():
        tmp.unlink()
    os.symlink(rel, tmp)
    os.replace(tmp, at)


def vpd80(serial: str) -> bytes:
    """VPD page 0x80 as libata builds it: 4-byte header, then the 20-character ATA serial."""
    data = f"{serial:<20}".encode()
    return bytes([0, 0x80, 0, len(data)]) + data


def partition_number(name: str) -> str:
    """``sda1`` -> ``1``, ``nvme0n1p2`` -> ``2``."""
    return re.sub(r"^.*?(\d+)$", r"\1", name)


def block_device(
    sys_dir: Path,
    devpath: str,
    majmin: str,
    sectors: int | None = None,
    partitions: Mapping[str, str] | None = None,
) -> Path:
    """``sys/<devpath>`` of a block device: ``dev``, ``size`` (512-byte sectors, if given), a
    directory per partition (name -> ``maj:min``) and the ``sys/block/<name>`` link."""
    bdir = sys_dir / devpath
    write(bdir / "dev", f"{majmin}\n")
    if sectors is not None:
        write(bdir / "size", f"{sectors}\n")
    for part, pdev in (partitions or {}).items():
        write(bdir / part / "dev", f"{pdev}\n")
        write(bdir / part / "partition", f"{partition_number(part)}\n")
    link(sys_dir / "block" / bdir.name, bdir)
    return bdir


def scsi_disk(
    sys_dir: Path,
    scsi_path: str,
    name: str,
    majmin: str,
    *,
    vendor: str,
    model: str,
    rev: str,
    serial: str | None = None,
    wwid: str | None = None,
    sectors: int | None = None,
    partitions: Mapping[str, str] | None = None,
) -> Path:
    """A SCSI (or libata) disk: the device at ``sys/<scsi_path>`` (``.../target*/H:C:T:L``)
    with the kernel's padded inquiry strings, and its block device below it."""
    sdev = sys_dir / scsi_path
    write(sdev / "vendor", f"{vendor:<8}\n")
    write(sdev / "model", f"{model[:16]:<16}\n")
    write(sdev / "rev", f"{rev}\n")
    if serial:
        write(sdev / "vpd_pg80", vpd80(serial))
    if wwid:
        write(sdev / "wwid", f"{wwid}\n")
    bdir = block_device(sys_dir, f"{scsi_path}/block/{name}", majmin, sectors, partitions)
    link(bdir / "device", sdev)
    return bdir


def nvme_controller(sys_dir: Path, cdir: str, *, model: str, serial: str, firmware: str) -> Path:
    """An NVMe controller at ``sys/<cdir>`` with the kernel's padded identify strings."""
    ctrl = sys_dir / cdir
    write(ctrl / "model", f"{model:<40}\n")
    write(ctrl / "serial", f"{serial:<20}\n")
    write(ctrl / "firmware_rev", f"{firmware:<8}\n")
    write(ctrl / "transport", "pcie\n")
    return ctrl


def disk_link(dev_dir: Path, kind: str, name: str, kernel_name: str) -> None:
    """``/dev/disk/<kind>/<name>`` -> ``/dev/<kernel_name>``, as udev makes it."""
    link(dev_dir / "disk" / kind / name, dev_dir / kernel_name)


def sas_phy(
    sys_dir: Path,
    parent: Path,
    name: str,
    *,
    sas_address: str,
    linkrate: str = "12.0 Gbit",
    counters: Mapping[str, int] | None = None,
) -> Path:
    """PHY ``name`` of the HBA or expander at ``parent`` (a ``sys/devices/...`` directory) as
    the SAS transport class shows it: ``parent/<name>/sas_phy/<name>/`` with its attributes and
    a ``device`` link back, and ``sys/class/sas_phy/<name>``. Returns the attribute directory."""
    phy_dir = parent / name
    attrs = phy_dir / "sas_phy" / name
    number = name.rsplit(":", 1)[-1]
    values = {
        "sas_address": sas_address,
        "phy_identifier": number,
        "negotiated_linkrate": linkrate,
        "invalid_dword_count": 0,
        "running_disparity_error_count": 0,
        "loss_of_dword_sync_count": 0,
        "phy_reset_problem_count": 0,
        **(counters or {}),
    }
    for key, value in values.items():
        write(attrs / key, f"{value}\n")
    link(attrs / "device", phy_dir)
    link(sys_dir / "class" / "sas_phy" / name, attrs)
    return attrs


def programs() -> list[str]:
    """The programs zmon's collectors run (zpool, zfs, smartctl ...)."""
    return declared_binaries(registered_collectors())


@dataclass
class FakeHost:
    """A fake host's tree under ``root``: ``proc``, ``sys``, ``rootfs``, ``state``, and ``bin``
    with a fake program for each program zmon runs."""

    root: Path

    @property
    def paths(self) -> Paths:
        return Paths(
            procfs=self.root / "proc",
            sysfs=self.root / "sys",
            rootfs=self.root / "rootfs",
            state_dir=self.root / "state",
        )

    def program(self, name: str) -> Path:
        return self.root / "bin" / name

    def create(self, skip_site: bool = False) -> None:
        """Make the directories and write the fake programs. ``skip_site`` starts them with
        ``python -S``: the benchmarks run thousands, and the site import is most of a start."""
        for d in ("proc", "sys", "rootfs/dev/disk/by-id", "state", "bin"):
            (self.root / d).mkdir(parents=True, exist_ok=True)
        flags = " -S" if skip_site else ""
        for name in programs():
            script = self.program(name)
            script.write_text(
                f"#!{sys.executable}{flags}\n"
                "import sys\n"
                f"sys.path.insert(0, {str(PACKAGE_PARENT)!r})\n"
                "from zmon.demo.fakebin import main\n"
                f"sys.exit(main({name!r}, sys.argv[1:], {str(self.root)!r}))\n"
            )
            script.chmod(0o755)

    def point(
        self,
        cfg: Config,
        options: Mapping[str, Mapping[str, object]] | None = None,
        max_intervals: Mapping[str, float] | None = None,
    ) -> Config:
        """``cfg`` pointed at this host: its paths, its programs, Linux. ``options`` are merged
        into the named collectors' options; ``max_intervals`` caps their intervals."""
        collectors = dict(cfg.collectors)
        for name in set(options or {}) | set(max_intervals or {}):
            if name not in collectors:
                continue
            old: CollectorSettings = collectors[name]
            interval = min(old.interval, (max_intervals or {}).get(name, old.interval))
            merged = {**old.options, **(options or {}).get(name, {})}
            collectors[name] = replace(old, interval=interval, options=merged)
        binaries = {name: str(self.program(name)) for name in programs()}
        return replace(
            cfg, paths=self.paths, binaries=binaries, platform="linux", collectors=collectors
        )
