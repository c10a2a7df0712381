"""zmon's ratios of ARC counters, each defined once.

A ratio names the arcstats counters above and below its line. From that one definition come
the Prometheus recording rule (``zmon:<name>:ratio_rate5m``, declared in zmon/health/memory.py
and read by the alerts and the dashboards) and what `zmon status` and the status page compute
from their own recent history: the increase of the same counters over the same window, divided
the same way.

The ghost-hit ratio is per access (hits + misses) everywhere: "of all reads, this share missed
but would have hit in an ARC larger by the ghost lists' size". As a share of misses it says
what the misses were: ghost hits (memory) or cold reads (workload).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import reduce
from typing import Any, Protocol

from zmon.health.expr import Node, metric, rate, sum_by

RATE_WINDOW = "5m"  # the recording rules' rate window ...
RATE_SECONDS = 300.0  # ... and the same in seconds, for the status history


class Window(Protocol):
    """The status history's view (zmon/status/history.py), which keeps its series under
    history_key()."""

    @property
    def points(self) -> Sequence[tuple[float, Any]]: ...

    def change(
        self, key: str, since: float | None = None, until: float | None = None
    ) -> tuple[float, float] | None: ...


def counter_metric(field: str) -> str:
    """The zmon counter of an arcstats field (zmon/collectors/arc/catalogue.py)."""
    return f"zmon_arc_{field}_total"


def history_key(field: str) -> str:
    """The status history's series key of an arcstats counter."""
    return f"arc_{field}"


def rates(fields: Sequence[str]) -> Node:
    """The summed per-second rates of arcstats counters over the rate window."""
    each: list[Node] = [rate(metric(counter_metric(f)).at(RATE_WINDOW)) for f in fields]
    return reduce(lambda a, b: a + b, each)


@dataclass(frozen=True)
class CounterRatio:
    """sum(part) / sum(whole) of the increases of arcstats counters over one window."""

    name: str  # the recording rule is zmon:<name>:ratio_rate5m
    part: tuple[str, ...]  # arcstats counter fields summed above the line
    whole: tuple[str, ...]  # ... and below it

    @property
    def record(self) -> str:
        return f"zmon:{self.name}:ratio_rate{RATE_WINDOW}"

    def node(self) -> Node:
        """The recording rule's expression: no value where the window saw no access."""
        return rates(self.part) / (rates(self.whole) > 0)

    def expr(self) -> str:
        """The recording rule's PromQL."""
        return self.node().promql()

    def of(self, increases: Mapping[str, float]) -> float | None:
        """The ratio of counter increases by arcstats field; None when the whole is 0."""
        whole = sum(increases[f] for f in self.whole)
        return sum(increases[f] for f in self.part) / whole if whole > 0 else None

    @property
    def fields(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys((*self.part, *self.whole)))

    def increases(
        self, window: Window, end: float | None = None
    ) -> tuple[dict[str, float], float] | None:
        """The counters' increases over the rate window ending at ``end`` (the newest point
        by default), with the seconds covered; None with fewer than two points."""
        if not window.points:
            return None
        end = window.points[-1][0] if end is None else end
        out: dict[str, float] = {}
        covered = 0.0
        for field in self.fields:
            change = window.change(history_key(field), since=end - RATE_SECONDS, until=end)
            if change is None:
                return None
            out[field], covered = change
        return out, covered

    def over(self, window: Window, end: float | None = None) -> tuple[float, float] | None:
        """(ratio, seconds covered) over the rate window ending at ``end``, from the status
        history, as the recording rule computes it; None without data or accesses."""
        found = self.increases(window, end)
        if found is None:
            return None
        ratio = self.of(found[0])
        return None if ratio is None else (ratio, found[1])

    def series(self, window: Window) -> list[tuple[float, float]]:
        """The ratio at each point of the history, over the rate window ending there."""
        out = []
        for t, _ in window.points[1:]:
            found = self.over(window, t)
            if found is not None:
                out.append((t, found[0]))
        return out


ACCESSES = ("hits", "misses")
GHOST_HITS = ("mru_ghost_hits", "mfu_ghost_hits")
DEMAND_HITS = ("demand_data_hits", "demand_metadata_hits")
DEMAND_MISSES = ("demand_data_misses", "demand_metadata_misses")
PREFETCH_HITS = ("prefetch_data_hits", "prefetch_metadata_hits")
PREFETCH_MISSES = ("prefetch_data_misses", "prefetch_metadata_misses")

ARC_HIT = CounterRatio("arc_hit", ("hits",), ACCESSES)
ARC_GHOST_HITS_PER_ACCESS = CounterRatio("arc_ghost_hits_per_access", GHOST_HITS, ACCESSES)
ARC_GHOST_HITS_PER_MISS = CounterRatio("arc_ghost_hits_per_miss", GHOST_HITS, ("misses",))
ARC_DEMAND_HIT = CounterRatio("arc_demand_hit", DEMAND_HITS, DEMAND_HITS + DEMAND_MISSES)
ARC_PREFETCH_HIT = CounterRatio("arc_prefetch_hit", PREFETCH_HITS, PREFETCH_HITS + PREFETCH_MISSES)
ARC_L2_HIT = CounterRatio("arc_l2_hit", ("l2_hits",), ("l2_hits", "l2_misses"))

RATIOS = (ARC_HIT, ARC_GHOST_HITS_PER_ACCESS, ARC_GHOST_HITS_PER_MISS, ARC_DEMAND_HIT,
          ARC_PREFETCH_HIT, ARC_L2_HIT)  # fmt: skip
# The counters the status history keeps for the ratios status shows (zmon/status/model.py Arc).
STATUS_FIELDS = ("hits", "misses", "mru_ghost_hits", "mfu_ghost_hits")

# ---- what a larger ARC would buy: "up to N % more reads would have hit with up to G more ARC"
#
# N is the ghost hits per access of the window (ARC_GHOST_HITS_PER_ACCESS), G the ghost lists'
# size now: the data the ARC evicted while the ghost lists still remember it (arcstats
# mru_ghost_size + mfu_ghost_size, served as zmon_arc_state_size_bytes{state=...}).
# Assumptions (README, "Why is it slow?"): a ghost hit is a read of a block an ARC larger by
# the ghost lists' size would still have held, and the same reads would come; so N and G are
# upper bounds: part of a larger ARC would hold other data.
GHOST_STATES = ("mru_ghost", "mfu_ghost")
GHOST_SIZE_METRIC = "zmon_arc_state_size_bytes"
ARC_GHOST_SIZE = "zmon:arc_ghost_size:bytes"  # the recording rule of G


def ghost_size() -> Node:
    """The recording rule of G: the MRU and MFU ghost lists' size, per host."""
    states = "|".join(GHOST_STATES)
    return sum_by(("instance", "job"), metric(GHOST_SIZE_METRIC, state=f"=~{states}"))


def ghost_size_expr() -> str:
    """The recording rule of G, as PromQL."""
    return ghost_size().promql()


@dataclass(frozen=True)
class LargerArc:
    """The estimate over one window: of all reads, ``more_hits`` would have hit with up to
    ``extra_bytes`` more ARC; ``ghost_share`` of the misses were ghost hits (the rest cold
    reads, which no ARC size serves)."""

    more_hits: float  # ghost hits per access (N)
    ghost_share: float | None  # ghost hits per miss; None without a miss
    extra_bytes: float | None  # the ghost lists' size (G); None when not served
    hit_ratio: float  # hits per access over the same window

    @classmethod
    def of(
        cls, increases: Mapping[str, float], ghost_sizes: Sequence[float | None]
    ) -> LargerArc | None:
        """From the counters' increases over the window (by arcstats field, at least
        STATUS_FIELDS) and the ghost lists' sizes now; None without an access."""
        more = ARC_GHOST_HITS_PER_ACCESS.of(increases)
        hit = ARC_HIT.of(increases)
        if more is None or hit is None:
            return None
        sizes = [s for s in ghost_sizes if s is not None]
        return cls(more, ARC_GHOST_HITS_PER_MISS.of(increases), sum(sizes) if sizes else None,
                   hit)  # fmt: skip

    @property
    def hit_ratio_bound(self) -> float:
        """The hit ratio an ARC larger by ``extra_bytes`` would have had at most."""
        return min(1.0, self.hit_ratio + self.more_hits)

    def words(self) -> str:
        size = "?" if self.extra_bytes is None else f"{self.extra_bytes / 2**30:.2g}"
        return (
            f"up to {self.more_hits:.0%} more reads would have hit with up to {size} GiB more ARC"
        )
