"""zmon_vdev_redundancy from real ``zpool status`` outputs: the lab's mirror losing a side
and raidz1 losing a disk (both OpenZFS versions), corpus raidz2 and mirrors mid-replacement."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.zpool_status import text_of
from zmon.collectors.zpool.metrics import status_metrics
from zmon.collectors.zpool.redundancy import redundancy, top_level_vdevs
from zmon.parsers.zpool.zpool_status import parse_zpool_status

FIXTURES = Path(__file__).parents[2] / "fixtures"
CORPUS = FIXTURES / "zpool_status" / "corpus"
LAB = FIXTURES / "lab"


def _redundancy(path: Path) -> dict[tuple[str, str], int | None]:
    status = parse_zpool_status(path.read_bytes())
    return {(p.name, v.name): redundancy(v) for p in status.pools for v in top_level_vdevs(p)}


@pytest.mark.parametrize("version", ["2.1.11", "2.3.2"])
def test_the_lab_mirror_and_raidz1_lose_and_regain_redundancy(version: str) -> None:
    steps = {
        "01-healthy": {("tank", "mirror-0"): 1, ("rz", "raidz1-0"): 1},
        # one side of tank's 2-way mirror taken OFFLINE: one more failure loses tank
        "07-degraded-offline": {("tank", "mirror-0"): 0, ("rz", "raidz1-0"): 1},
        # vdc of raidz1 rz FAULTED: none left
        "08-faulted": {("rz", "raidz1-0"): 0},
    }
    for step, expected in steps.items():
        got = _redundancy(LAB / version / step / "zpool-status-D-p.txt")
        for key, value in expected.items():
            assert got[key] == value, (step, key, got)
        # a single-disk pool never had any, and the SLOG is one disk
        assert got[("single", "nvme-QEMU_NVMe_Ctrl_ZLNVME1")] == 0
        assert got[("tank", "vdd")] == 0


def _corpus(prefix: str) -> Path:
    [path] = CORPUS.glob(f"zpool_status_{prefix}_*")
    return path


def test_a_healthy_raidz2_survives_two_failures() -> None:
    assert _redundancy(_corpus("16")) == {("lwastor04", "raidz2-0"): 2}


def test_a_raidz2_replacing_a_disk_counts_the_resilvering_new_disk_as_no_copy_yet() -> None:
    # replacing-2: the old disk UNAVAIL, the new /dev/sdv1 (resilvering); the other members
    # say (resilvering) too but hold their data: one member out of parity 2
    assert _redundancy(_corpus("24")) == {("storage", "raidz2-0"): 1}


def test_a_finished_replacement_counts_the_new_disk() -> None:
    # replacing-6: the new disk ONLINE without a resilvering note, the old one UNAVAIL
    assert _redundancy(_corpus("48")) == {("ZFS01", "raidz2-0"): 2}


def test_a_raidz1_with_a_removed_member_has_none_left() -> None:
    assert _redundancy(_corpus("40")) == {("storage", "raidz1-0"): 0}


def test_spare_groups_that_zpool_calls_faulted_count_as_out() -> None:
    # a 7-way mirror: spare-1 and spare-2 FAULTED, spare-0 works through its spare
    assert _redundancy(_corpus("36")) == {("mypool", "mirror-0"): 4}


def test_only_top_level_vdevs_of_a_complete_output_serve_the_figure() -> None:
    healthy = text_of(status_metrics(parse_zpool_status(_corpus("16").read_bytes())))
    served = [line for line in healthy.splitlines() if line.startswith("zmon_vdev_redundancy{")]
    assert served == ['zmon_vdev_redundancy{class="normal",pool="lwastor04",vdev="raidz2-0"} 2.0']
    # config rows only: the pool is not complete, and a hidden member may be out
    truncated = text_of(status_metrics(parse_zpool_status(_corpus("36").read_bytes())))
    assert "zmon_vdev_redundancy{" not in truncated
