"""Render metric families to the Prometheus text exposition format."""

from __future__ import annotations

from collections.abc import Iterable

from prometheus_client.core import CollectorRegistry, Metric
from prometheus_client.exposition import generate_latest


class _Families:
    def __init__(self, families: Iterable[Metric]) -> None:
        self._families = list(families)

    def collect(self) -> Iterable[Metric]:
        return iter(self._families)


def render(families: Iterable[Metric]) -> bytes:
    """Text exposition (format 0.0.4) of the given families, in their order."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Families(families))
    return generate_latest(registry)
