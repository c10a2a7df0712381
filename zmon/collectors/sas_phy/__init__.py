"""SAS link error counters of every HBA and expander PHY (Linux ``/sys/class/sas_phy``).

Invalid DWORDs, running disparity errors, losses of DWORD synchronization and PHY reset
problems count what a bad cable, backplane, expander port or HBA port does to a SAS link. Each
PHY is named by its sysfs name and joined to what its link reaches: a disk (its kernel name,
enclosure and slot from the device map) or an expander. Reading costs a few small sysfs files
per PHY and sends nothing to the disks.
"""

from __future__ import annotations

from zmon.collecting.registry import Collector, NoDataError, Option, register
from zmon.exposition.metrics import MetricSet
from zmon.host.sas_phys import SasPhyLink, read_sas_phys

MAX_PHYS = 4096
SRC = " (/sys/class/sas_phy)"
# (metric, SasHostPhy field, HELP)
COUNTERS = (
    ("zmon_sas_phy_invalid_dwords_total", "invalid_dwords",
     "Invalid DWORDs received on an HBA or expander PHY"),
    ("zmon_sas_phy_running_disparity_errors_total", "running_disparity_errors",
     "Running disparity errors on an HBA or expander PHY"),
    ("zmon_sas_phy_loss_of_dword_sync_total", "loss_of_dword_sync",
     "Losses of DWORD synchronization on an HBA or expander PHY"),
    ("zmon_sas_phy_reset_problems_total", "phy_reset_problems",
     "PHY reset problems on an HBA or expander PHY"),
)  # fmt: skip


def sas_phy_metrics(
    links: list[SasPhyLink],
    locations: dict[str, tuple[str, str]] | None = None,
    limit: int = MAX_PHYS,
) -> MetricSet:
    """Metrics of ``links`` (at most ``limit`` PHYs); ``locations`` maps a disk to its
    (enclosure, slot)."""
    ms = MetricSet()
    locations = locations or {}
    for link in links[: max(0, limit)]:
        p = link.phy
        device = link.device or ""
        enclosure, slot = locations.get(device, ("", ""))
        ms.info(
            "zmon_sas_phy_info",
            "A SAS PHY of an HBA or expander, and what its link reaches: a disk (device, "
            "enclosure, slot) or an expander; always 1" + SRC,
            {
                "phy": p.name,
                "sas_address": p.sas_address or "",
                "parent": link.parent,
                "parent_kind": link.parent_kind,
                "attached": link.attached,
                "attached_name": link.attached_name,
                "device": device,
                "enclosure": enclosure,
                "slot": slot,
            },
        )
        lab = {"phy": p.name, "sas_address": p.sas_address or "", "device": device}
        ms.gauge(
            "zmon_sas_phy_link_rate_bytes",
            "Negotiated link rate of a SAS PHY in bytes per second (rate / 8); absent when "
            "the PHY has no link" + SRC,
            None if p.link_rate_bits is None else p.link_rate_bits / 8,
            lab,
        )
        for name, attr, help_text in COUNTERS:
            ms.counter(name, help_text + SRC, getattr(p, attr), lab)
    ms.gauge("zmon_sas_phys", "SAS PHYs of HBAs and expanders found in sysfs" + SRC, len(links))
    ms.gauge(
        "zmon_sas_phys_dropped",
        "SAS PHYs without series because of the sas_phy collector's max_phys" + SRC,
        max(0, len(links) - max(0, limit)),
    )
    return ms


@register
class SasPhyCollector(Collector):
    name = "sas_phy"
    help = "SAS link error counters of HBA and expander PHYs, joined to disks and slots (sysfs)"
    default_interval = 60.0
    default_timeout = 10.0
    options = (Option("max_phys", int, MAX_PHYS, "at most this many PHYs get series"),)

    def collect(self) -> MetricSet:
        if self.ctx.platform != "linux":
            raise NoDataError("SAS PHY counters are read from Linux sysfs")
        links = read_sas_phys(self.ctx.paths)
        if not links:
            raise NoDataError("no SAS PHYs (no /sys/class/sas_phy entries)")
        locations: dict[str, tuple[str, str]] = {}
        if any(link.device for link in links):
            dmap = self.ctx.device_map()
            for link in links:
                dev = dmap.get(link.device) if link.device else None
                if dev is not None and dev.enclosure and dev.slot:
                    locations[dev.name] = (dev.enclosure, dev.slot)
        return sas_phy_metrics(links, locations, int(self.option("max_phys")))
