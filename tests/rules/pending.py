"""The one list of what the demo host does not show, for the live query tests.

``NOT_IN_DEMO_YET``: collectors or data the demo host does not serve yet. A rule or panel
query that reads one is xfail, with the reason given here. When the demo gains the data,
delete the entry (the live test warns about entries the demo already serves).

``ABSENT_BY_DESIGN``: data the demo host cannot have (hardware it does not simulate, events
its recordings do not hold). Queries reading them still run and must not error, but an empty
result for these selectors is expected, not a failure.
"""

from __future__ import annotations

# Metric names, recording rule names, or exact selectors as written in a rule.
NOT_IN_DEMO_YET: dict[str, str] = {}

ABSENT_BY_DESIGN: dict[str, str] = {
    "zmon_disk_scsi_grown_defects": "SAS/SCSI disks only; the demo host has SATA, NVMe, virtio",
    **{
        name: "SAS hardware only; the demo host has no SAS HBA, expander or disk"
        for name in (
            "zmon_sas_phy_info",
            "zmon_sas_phy_invalid_dwords_total",
            "zmon_sas_phy_running_disparity_errors_total",
            "zmon_sas_phy_loss_of_dword_sync_total",
            "zmon_disk_sas_phy_invalid_dwords_total",
            "zmon_disk_sas_phy_running_disparity_errors_total",
            "zmon_disk_sas_phy_loss_of_dword_sync_total",
            "zmon:disk_sas_parent:info",
            "zmon:disk_sas_link_errors:rising",
        )
    },
    'zmon_zfs_events_total{class="deadman"}': "the demo's event recordings hold no deadman event",
    # each of the demo's pools has one top-level vdev (tank a mirror, rz a raidz1, single a
    # disk); tests/rules/test_lab_panels.py runs the panel on the lab's slow-disk recording
    # (SHOWN_ON_LAB)
    "zmon:vdev_io_latency_p99_vs_siblings:ratio": "no demo pool has two top-level vdevs to "
    "compare (the lab's slow-disk phase shows the panel: tests/rules/test_lab_panels.py)",
    # ZfsResilverSourceFailing's parity branches: the demo's one raidz is a raidz1
    **{
        f'zmon_vdev_info{{type=~"raidz|draid", vdev=~"(raidz|draid){n}[-:].*", '
        'class=~"normal|special|dedup"}': "the demo host has no raidz2 or raidz3 vdev"
        for n in (2, 3)
    },
}


# Dashboard panels the demo host cannot show (their data is ABSENT_BY_DESIGN there) that run
# instead on what the real-ZFS lab recorded, against real Prometheus: panel -> the test that
# does it. A panel empty on the demo passes only when listed here and that test covers it.
SHOWN_ON_LAB: dict[str, str] = {
    "zmon-arc/Top-level vdevs against their siblings": "tests/rules/test_lab_panels.py",
}


def _lookup(table: dict[str, str], selector: str) -> str | None:
    name = selector.split("{", 1)[0]
    if selector in table:
        return table[selector]
    return f"{name}: {table[name]}" if name in table else None


def reason_for(selector: str) -> str | None:
    """Why ``selector`` has no data on the demo host yet (xfail), or None."""
    return _lookup(NOT_IN_DEMO_YET, selector)


def absent_by_design(selector: str) -> str | None:
    """Why ``selector`` can never have data on the demo host, or None."""
    return _lookup(ABSENT_BY_DESIGN, selector)
