"""HBA and expander PHY counters from a fake SAS host's sysfs, joined to disks and slots."""

from __future__ import annotations

import pytest

from tests.support.sashost import EXPANDER_ADDRESS, HBA_ADDRESS, build_sas_host, set_counter
from zmon.base.runner import StaticRunner
from zmon.collecting.registry import Context, NoDataError, Paths
from zmon.collectors.sas_phy import SasPhyCollector, sas_phy_metrics
from zmon.host.sas_phys import read_sas_phys
from zmon.parsers.disks.sas_phy import linkrate_bits, parse_sas_phy


@pytest.fixture
def paths(tmp_path) -> Paths:
    return build_sas_host(tmp_path / "host")


def collector(paths: Paths, platform: str = "linux", **options) -> SasPhyCollector:
    return SasPhyCollector(Context(paths=paths, runner=StaticRunner({}), options=options,
                                   platform=platform))  # fmt: skip


def test_parse_attributes():
    phy = parse_sas_phy(
        "phy-0:4",
        {
            "sas_address": b"0x500605b00ab1c2d0\n",
            "phy_identifier": b"4\n",
            "negotiated_linkrate": b"6.0 Gbit\n",
            "invalid_dword_count": b"12\n",
            "running_disparity_error_count": b"7\n",
            "loss_of_dword_sync_count": b"3\n",
            "phy_reset_problem_count": None,  # unreadable: unknown, not 0
        },
    )
    assert (phy.sas_address, phy.identifier, phy.link_rate_bits) == (HBA_ADDRESS, 4, 6e9)
    assert (phy.invalid_dwords, phy.running_disparity_errors, phy.loss_of_dword_sync) == (12, 7, 3)
    assert phy.phy_reset_problems is None
    assert [linkrate_bits(t) for t in ("1.5 Gbit", "22.5 Gbit", "Unknown", "Phy disabled")] == [
        1.5e9, 22.5e9, None, None]  # fmt: skip


def test_links_reach_disks_the_ses_device_and_the_expander(paths):
    links = {link.phy.name: link for link in read_sas_phys(paths)}
    assert len(links) == 10
    for n in range(4):
        hba = links[f"phy-0:{n}"]
        assert (hba.parent, hba.parent_kind, hba.attached) == ("host0", "hba", "expander")
        assert hba.attached_name == "expander-0:0" and hba.device is None
    disks = {name: links[f"phy-0:0:{n}"].device for n, name in enumerate("abcd")}
    assert disks == {"a": "sda", "b": "sdb", "c": "sdc", "d": "sdd"}
    assert links["phy-0:0:1"].parent_kind == "expander"
    assert links["phy-0:0:12"].attached == "end_device"  # the SES device: no block disk
    assert links["phy-0:0:20"].attached == "" and links["phy-0:0:20"].phy.link_rate_bits is None


def test_errors_rising_on_one_disk_link_between_two_collections(paths):
    c = collector(paths)
    first = c.collect()
    dmap = c.ctx.device_map()
    sdb = dmap.get("sdb")
    assert sdb is not None and sdb.slot
    lab = {"phy": "phy-0:0:1", "sas_address": EXPANDER_ADDRESS, "device": "sdb"}
    assert first.sample_value("zmon_sas_phy_invalid_dwords_total", lab) == 0
    set_counter(paths, "phy-0:0:1", "invalid_dword_count", 1520)
    set_counter(paths, "phy-0:0:1", "running_disparity_error_count", 1498)
    set_counter(paths, "phy-0:0:1", "loss_of_dword_sync_count", 3)
    second = c.collect()
    assert second.sample_value("zmon_sas_phy_invalid_dwords_total", lab) == 1520
    assert second.sample_value("zmon_sas_phy_running_disparity_errors_total", lab) == 1498
    assert second.sample_value("zmon_sas_phy_loss_of_dword_sync_total", lab) == 3
    assert second.sample_value("zmon_sas_phy_reset_problems_total", lab) == 0
    info = {
        **lab,
        "parent": "expander-0:0",
        "parent_kind": "expander",
        "attached": "disk",
        "attached_name": "end_device-0:0:1",
        "enclosure": sdb.enclosure,
        "slot": sdb.slot,
    }
    assert second.sample_value("zmon_sas_phy_info", info) == 1
    # the other links stay clean: the errors point at one disk's link
    for n in (0, 2, 3):
        other = {"phy": f"phy-0:0:{n}", "sas_address": EXPANDER_ADDRESS,
                 "device": f"sd{'abcd'[n]}"}  # fmt: skip
        assert second.sample_value("zmon_sas_phy_invalid_dwords_total", other) == 0
    hba = {"phy": "phy-0:2", "sas_address": HBA_ADDRESS, "device": ""}
    assert second.sample_value("zmon_sas_phy_link_rate_bytes", hba) == 1.5e9


def test_cardinality_is_one_series_per_phy_and_bounded(paths):
    links = read_sas_phys(paths)
    ms = sas_phy_metrics(links)
    fams = {f.name: f for f in ms.families()}
    assert len(fams["zmon_sas_phy_invalid_dwords"].samples) == len(links) == 10
    limited = sas_phy_metrics(links, limit=4)
    assert limited.sample_value("zmon_sas_phys_dropped", {}) == 6
    assert limited.sample_value("zmon_sas_phys", {}) == 10
    fams = {f.name: f for f in limited.families()}
    assert len(fams["zmon_sas_phy_info"].samples) == 4


def test_no_sas_hardware_is_no_data(tmp_path):
    empty = Paths(procfs=tmp_path, sysfs=tmp_path, rootfs=tmp_path, state_dir=tmp_path)
    with pytest.raises(NoDataError):
        collector(empty).collect()
    with pytest.raises(NoDataError):
        collector(empty, platform="freebsd").collect()


def test_golden_exposition(paths, golden):
    """The exposition of the fake SAS host after one disk link took errors (docs/metrics.md
    is built from it)."""
    from zmon.exposition.formats import render

    set_counter(paths, "phy-0:0:1", "invalid_dword_count", 1520)
    golden("disks/sas-phy-jbod.prom", render(collector(paths).collect().families()))
