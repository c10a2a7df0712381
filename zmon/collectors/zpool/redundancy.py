"""How much redundancy each top-level vdev has left, from the ``zpool status`` vdev tree.

The number of further member failures a top-level vdev survives: for a mirror, its working
members less one; for raidz and dRAID, the parity less the members that are out. 0 means one
more failure loses the vdev, and with it the pool (a single-disk vdev is always 0); -1 means
it has failed already. A member counts as out when its state is not ONLINE or DEGRADED, and
the new disk of a replacement (or a hot spare) counts only once its resilver is done: until
then it does not hold a full copy.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from zmon.parsers.zpool.zpool_status_model import Pool, Vdev, note_kinds, parse_draid_name

WORKING = frozenset({"ONLINE", "DEGRADED"})
_RAIDZ_PARITY = re.compile(r"^raidz(\d)?")
# Classes whose top-level vdevs hold pool data; cache devices and spares do not.
DATA_CLASSES = frozenset({"normal", "special", "dedup", "log"})


def top_level_vdevs(pool: Pool) -> Iterator[Vdev]:
    """The pool's top-level data vdevs: the root's children, then the class sections'."""
    for top in pool.top_levels():
        if top is pool.root:
            yield from (v for v in top.children if v.vdev_class in DATA_CLASSES)
        elif top.vdev_class in DATA_CLASSES:
            yield top


def redundancy(vdev: Vdev) -> int | None:
    """Further member failures ``vdev`` survives; -1 once it has failed; None when a member's
    state is unknown (a truncated or unreadable output is never taken as healthy)."""
    return _tolerance(vdev, being_replaced=False)


def parity(vdev: Vdev) -> int | None:
    """The parity of a raidz or dRAID vdev, from its name (``raidz2-0``, ``draid2:8d:...``)."""
    if vdev.type == "draid":
        layout = parse_draid_name(vdev.name)
        return layout.parity if layout else None
    m = _RAIDZ_PARITY.match(vdev.name)
    return int(m.group(1) or 1) if m else None


def _tolerance(vdev: Vdev, being_replaced: bool) -> int | None:
    if vdev.is_leaf:
        if vdev.state is None or not vdev.state_known:
            return None
        if vdev.state.upper() not in WORKING:
            return -1
        if being_replaced and "resilvering" in note_kinds(vdev.note):
            return -1  # the new disk: no full copy before its resilver ends
        return 0
    if vdev.state_known and vdev.state is not None and vdev.state.upper() not in WORKING:
        return -1  # zpool says the group itself is out, whatever its members say
    replacement = vdev.type in ("replacing", "spare")
    members = [_tolerance(child, replacement) for child in vdev.children]
    if any(m is None for m in members) or not members:
        return None
    known = [m for m in members if m is not None]
    if vdev.type in ("mirror", "replacing", "spare"):
        # each working member holds a copy, and survives its own members' failures too
        return sum(m + 1 for m in known if m >= 0) - 1
    if vdev.type in ("raidz", "draid"):
        p = parity(vdev)
        if p is None:
            return None
        out = sum(1 for m in known if m < 0)
        return p - out if out <= p else -1
    return None
