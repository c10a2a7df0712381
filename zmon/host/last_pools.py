"""The pools' states as ``zpool status`` last gave them, kept in the state directory.

When ``zpool`` hangs (a stuck pool, a hung disk) or zmon restarts while it does, the status
views have no pool data: this file lets them say what is unknown and what was last known
("last known state: tank DEGRADED, 10 min ago") instead of "no ZFS pool found".

The zpool collector records each good run's states; the file is rewritten when the states
change, and otherwise at most every ``REFRESH`` seconds, so its time is at most that old
while zpool answers. A few dozen bytes per pool; a bad file is ignored.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from zmon.base import durable, logs

_log = logs.get("zpool")

FILE = "zpool-last-states.json"
REFRESH = 600.0  # seconds between rewrites of unchanged states
MAX_POOLS = 10_000


@dataclass(frozen=True)
class LastPools:
    """When ``zpool status`` last answered (Unix time) and each pool's state word then."""

    time: float
    states: Mapping[str, str]


def load_last_pools(state_dir: Path) -> LastPools | None:
    """The recorded states; None when there is no usable file."""
    data = durable.load_json(Path(state_dir) / FILE)
    if data is None:
        return None
    when, states = data.get("time"), data.get("states")
    if (
        not isinstance(when, (int, float))
        or not math.isfinite(when)
        or not isinstance(states, dict)
    ):
        return None
    if len(states) > MAX_POOLS or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in states.items()
    ):
        return None
    return LastPools(float(when), dict(sorted(states.items())))


class PoolStateRecorder:
    """Writes the states of each good ``zpool status`` run when they change or get old."""

    def __init__(self, state_dir: Path) -> None:
        self.path = Path(state_dir) / FILE
        self._written: LastPools | None = None

    def observe(self, now: float, states: Mapping[str, str]) -> None:
        last = self._written
        current = dict(sorted(states.items()))
        if last is not None and last.states == current and now - last.time < REFRESH:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            durable.write_json(self.path, {"time": now, "states": current})
        except OSError as exc:  # a read-only state directory, a user without rights
            _log.debug("cannot record the pools' states", path=str(self.path), error=str(exc))
            return
        self._written = LastPools(now, current)
