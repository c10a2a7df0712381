"""Map the many names of a disk (partition, by-id link, vdev path) to its whole-disk kernel name.

The whole-disk name (``sda``, ``nvme0n1``, ``ada0``, ``da3``) is the ``device`` label that joins
vdev, SMART and kernel-log metrics, as node_exporter's ``device`` does.
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path

from zmon.host.paths import Paths

# Partition suffixes by naming scheme; order matters (most specific first).
_PARTITION_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^(nvme\d+n\d+)p\d+$"), r"\1"),  # Linux NVMe: nvme0n1p2
    # Hidden multipath path device nvme0c1n1 (and its partitions) -> the head nvme0n1
    (re.compile(r"^nvme(\d+)c\d+n(\d+)(?:p\d+)?$"), r"nvme\1n\2"),
    (re.compile(r"^(nvd\d+|nda\d+)p\d+$"), r"\1"),  # FreeBSD NVMe
    (re.compile(r"^(mmcblk\d+|loop\d+|nbd\d+|md\d+)p\d+$"), r"\1"),
    (re.compile(r"^((?:s|h|v|xv)d[a-z]+)\d+$"), r"\1"),  # sda1, vdb2, xvda1
    (
        re.compile(r"^((?:ada|da|ad|vtbd|mfid|mfisyspd|aacd|ipsd|mmcsd)\d+)(?:p\d+|s\d+[a-h]?)$"),
        r"\1",
    ),
    (re.compile(r"^(c\d+(?:t[0-9A-Fa-f]+)?d\d+)(?:s\d+|p\d+)$"), r"\1"),  # illumos c0t0d0s0
)

_WHOLE_DISK = re.compile(
    r"^(?:(?:s|h|v|xv)d[a-z]+|nvme\d+n\d+|nvd\d+|nda\d+|ada\d+|da\d+|ad\d+|vtbd\d+|mmcblk\d+"
    r"|mmcsd\d+|c\d+(?:t[0-9A-Fa-f]+)?d\d+|dm-\d+|md\d+|nbd\d+|loop\d+|zd\d+)$"
)


@functools.lru_cache(maxsize=8192)  # a pure function of the name; every run asks again
def whole_disk_name(name: str) -> str:
    """Strip ``/dev/`` and a partition suffix: ``/dev/sdc1`` -> ``sdc``, ``ada0p3`` -> ``ada0``."""
    base = name.rsplit("/", 1)[-1] if name.startswith("/dev/") else name
    for pattern, repl in _PARTITION_RULES:
        if pattern.match(base):
            return pattern.sub(repl, base)
    return base


@functools.lru_cache(maxsize=8192)
def looks_like_kernel_disk(name: str) -> bool:
    """True for names the kernel gives block devices (``sda``, ``nvme0n1``, ``ada0`` ...)."""
    return bool(_WHOLE_DISK.match(whole_disk_name(name)))


_LINK_DIRS = ("by-id", "by-path", "by-vdev", "by-partuuid", "by-uuid", "by-label", "by-partlabel")


def resolve_device(vdev: str, paths: Paths) -> str | None:
    """Whole-disk kernel name behind a vdev as ``zpool status`` prints it, or None.

    Handles short kernel names (``sdb1``), absolute paths (``/dev/sdb1``,
    ``/dev/disk/by-id/...``), and bare link names (``ata-WDC_...-part1``, ``wwn-0x...``)
    by following the ``/dev/disk/*`` symlinks under ``paths.rootfs``. File vdevs and
    GUID-named (missing) vdevs resolve to None.
    """
    name = vdev.strip()
    if not name or name.isdigit():
        return None
    if name.startswith("/"):
        if name.startswith("/dev/") and name.count("/") == 2:
            return _kernel_or_link(name[len("/dev/") :], paths)
        return _follow(paths.root(name), paths)
    return _kernel_or_link(name, paths)


def _kernel_or_link(name: str, paths: Paths) -> str | None:
    if looks_like_kernel_disk(name):
        return whole_disk_name(name)
    for sub in _LINK_DIRS:
        found = _follow(paths.root("dev", "disk", sub, name), paths)
        if found:
            return found
    mapper = _follow(paths.root("dev", "mapper", name), paths)
    return mapper


def _follow(link: Path, paths: Paths) -> str | None:
    try:
        target = os.readlink(link)
    except OSError:
        return None
    base = os.path.basename(target)
    return whole_disk_name(base) if base else None


def zfs_whole_disk(name: str, paths: Paths) -> str | None:
    """The name ``zpool status`` gives a whole disk, from the name of its partition 1.

    ZFS puts a whole disk's data in partition 1 and reserves partition 9, and ``zpool
    status`` names such a vdev by the disk: ``ata-X-part1`` with an ``ata-X-part9`` beside it
    (under ``/dev`` or ``/dev/disk/*``) is ``ata-X``, ``sdb1`` beside ``sdb9`` is ``sdb``.
    None for any other name (a partition the admin made, a whole disk, a file), and while
    partition 9 cannot be seen (the disk is gone)."""
    if looks_like_kernel_disk(name):
        disk = whole_disk_name(name)
        if name[len(disk) :] not in ("1", "p1"):
            return None
        reserved = name[:-1] + "9"
    elif name.endswith("-part1"):
        disk, reserved = name[: -len("-part1")], name[:-1] + "9"
    else:
        return None
    places = [paths.root("dev")] + [paths.root("dev", "disk", sub) for sub in _LINK_DIRS]
    return disk if any(os.path.lexists(place / reserved) for place in places) else None


_NVME_NAMESPACE = re.compile(r"^nvme(\d+)(?:c(\d+))?n\d+(?:p\d+)?$")
_NVME_CONTROLLER = re.compile(r"^nvme\d+$")


def nvme_controller(name: str) -> str | None:
    """The controller of a Linux NVMe namespace or partition: ``nvme0n1p2`` -> ``nvme0``.

    A multipath path device ``nvme0c1n1`` is on controller ``nvme1``; for the head device
    (``nvme0n1``) the number is the subsystem's, which matches the controller's unless
    native multipath renumbered them.
    """
    base = name.rsplit("/", 1)[-1]
    if _NVME_CONTROLLER.match(base):
        return base
    m = _NVME_NAMESPACE.match(base)
    if not m:
        return None
    return f"nvme{m.group(2) if m.group(2) is not None else m.group(1)}"


def is_nvme_controller(name: str) -> bool:
    """True for a bare NVMe controller name (``nvme0``, ``/dev/nvme0``): not a block device."""
    return bool(_NVME_CONTROLLER.match(name.rsplit("/", 1)[-1]))
