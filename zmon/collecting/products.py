"""The products collectors exchange through the core, declared once.

A collector that publishes one lists it in ``provides``; one that reads it lists it in
``needs`` (``zmon.collecting.registry.Product``). The scheduler orders first runs by these
declarations.
"""

from __future__ import annotations

from collections.abc import Mapping

from zmon.collecting.registry import Product

VDEV_NAMES: Product[Mapping[str, frozenset[str]]] = Product(
    "vdev_names",
    "Per pool, the vdev names as zpool status prints them (published by the zpool collector; "
    "the zpool_events collector labels events with them)",
)
