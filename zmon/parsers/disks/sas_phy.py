"""Linux SAS transport PHY attributes (``/sys/class/sas_phy/<phy>/*``) -> one typed record.

Pure: the caller reads the attribute files and passes their bytes in.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

# sysfs attribute file -> SasHostPhy field, for the four link error counters.
COUNTER_FILES = {
    "invalid_dword_count": "invalid_dwords",
    "running_disparity_error_count": "running_disparity_errors",
    "loss_of_dword_sync_count": "loss_of_dword_sync",
    "phy_reset_problem_count": "phy_reset_problems",
}
FILES = (*COUNTER_FILES, "negotiated_linkrate", "sas_address", "phy_identifier")


@dataclass
class SasHostPhy:
    """One PHY of a SAS HBA or expander as the kernel's SAS transport class shows it."""

    name: str  # phy-0:4 (HBA host 0, PHY 4) or phy-0:0:12 (expander 0:0, PHY 12)
    sas_address: str | None = None
    identifier: int | None = None
    link_rate_bits: float | None = None  # negotiated; None when the PHY has no link
    invalid_dwords: int | None = None
    running_disparity_errors: int | None = None
    loss_of_dword_sync: int | None = None
    phy_reset_problems: int | None = None


def linkrate_bits(text: str) -> float | None:
    """``12.0 Gbit`` -> 12e9; ``Unknown``, ``Phy disabled``, ``Link Rate Stalled`` -> None."""
    m = re.match(r"^\s*(\d+(?:\.\d+)?)\s*Gbit\b", text)
    return float(m.group(1)) * 1e9 if m else None


def _count(data: bytes | None) -> int | None:
    """A counter file's decimal value; None when unreadable (the HBA did not answer)."""
    if data is None:
        return None
    text = data.decode("ascii", "replace").strip()
    return int(text) if text.isdigit() and len(text) <= 20 else None


def parse_sas_phy(name: str, files: Mapping[str, bytes | None]) -> SasHostPhy:
    """Build the record of PHY ``name`` from its attribute files (missing ones are None)."""
    address = (files.get("sas_address") or b"").decode("ascii", "replace").strip()
    phy = SasHostPhy(
        name=name,
        sas_address=address or None,
        identifier=_count(files.get("phy_identifier")),
        link_rate_bits=linkrate_bits(
            (files.get("negotiated_linkrate") or b"").decode("ascii", "replace")
        ),
    )
    for file, attr in COUNTER_FILES.items():
        setattr(phy, attr, _count(files.get(file)))
    return phy
