"""Whole-disk names from any partition or path name (zmon.host.devnames)."""

from __future__ import annotations

import pytest

from tests.support.disks import host_paths
from zmon.host.devnames import (
    is_nvme_controller,
    looks_like_kernel_disk,
    nvme_controller,
    resolve_device,
    whole_disk_name,
)


@pytest.mark.parametrize(
    "name, whole",
    [
        ("sda", "sda"),
        ("sdc1", "sdc"),
        ("/dev/sdc1", "sdc"),
        ("sdaa12", "sdaa"),
        ("vdb2", "vdb"),
        ("xvda1", "xvda"),
        ("nvme0n1", "nvme0n1"),
        ("nvme0n1p2", "nvme0n1"),
        ("nvme0c1n1", "nvme0n1"),
        ("nvme2c3n4p1", "nvme2n4"),
        ("ada0p3", "ada0"),
        ("ada0s1a", "ada0"),
        ("da12p1", "da12"),
        ("nda0p4", "nda0"),
        ("nvd1p1", "nvd1"),
        ("mmcsd0s1", "mmcsd0"),
        ("mmcblk0p1", "mmcblk0"),
        ("c0t5000CCA0d0s0", "c0t5000CCA0d0"),
        ("mirror-0", "mirror-0"),
    ],
)
def test_whole_disk_name(name, whole):
    assert whole_disk_name(name) == whole


@pytest.mark.parametrize(
    "name, expected",
    [
        ("sda", True),
        ("ada0p3", True),
        ("nvme0c0n1", True),
        ("mmcsd0", True),
        ("zd16", True),
        ("nvme0", False),
        ("mirror-0", False),
        ("ata-WDC_X", False),
        ("/tmp/f1", False),
    ],
)
def test_looks_like_kernel_disk(name, expected):
    assert looks_like_kernel_disk(name) is expected


def test_nvme_controller():
    assert nvme_controller("nvme0n1p2") == "nvme0"
    assert nvme_controller("/dev/nvme3") == "nvme3"
    assert nvme_controller("nvme1c2n1") == "nvme2"  # path device: subsystem 1, controller 2
    assert nvme_controller("sda") is None
    assert is_nvme_controller("/dev/nvme0") and not is_nvme_controller("nvme0n1")


def test_resolve_device_through_the_fake_host():
    paths = host_paths()
    assert resolve_device("ata-ST4000VN008-2DR166_ZDH1ABCD-part1", paths) == "sdc"
    assert resolve_device("/dev/disk/by-id/wwn-0x5000c500b1a2c3d4-part1", paths) == "sdc"
    assert resolve_device("sdb1", paths) == "sdb"
    assert resolve_device("/tmp/f1", paths) is None
    assert resolve_device("5361263481278631287", paths) is None
