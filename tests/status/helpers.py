"""Build status reports from exposition text, as zmon serves it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from prometheus_client.parser import text_string_to_metric_families

from zmon.health.evaluator import host_evaluator
from zmon.status.diagnoses import Evidence, Finding, diagnose
from zmon.status.history import History
from zmon.status.model import read_model
from zmon.status.slowdown import Recorded

NOW = 1_800_000_000.0  # an explicit "now" for every test


def families(text: str) -> list[Any]:
    return list(text_string_to_metric_families(text))


def pool_text(
    pool: str = "tank",
    state: str = "online",
    disks: tuple[str, ...] = ("sda", "sdb"),
    vdev_states: dict[str, str] | None = None,
) -> str:
    """A mirror pool of whole disks (vdev named like the disk), as the zpool collector says."""
    states = vdev_states or {}
    lines = [
        f'zmon_pool_state{{pool="{pool}",state="{s}"}} {int(s == state)}'
        for s in ("online", "degraded", "faulted", "suspended")
    ]
    lines.append(
        f'zmon_vdev_info{{class="normal",device="",parent="",pool="{pool}",'
        f'state="{state.upper()}",type="root",vdev="{pool}"}} 1'
    )
    lines.append(
        f'zmon_vdev_info{{class="normal",device="",parent="{pool}",pool="{pool}",'
        f'state="ONLINE",type="mirror",vdev="mirror-0"}} 1'
    )
    for d in disks:
        lines.append(
            f'zmon_vdev_info{{class="normal",device="{d}",parent="mirror-0",'
            f'pool="{pool}",state="{states.get(d, "online").upper()}",type="disk",'
            f'vdev="{d}"}} 1'
        )
        lines.append(
            f'zmon_vdev_state{{class="normal",pool="{pool}",'
            f'state="{states.get(d, "online")}",vdev="{d}"}} 1'
        )
    return "\n".join(lines) + "\n"


def findings(
    text: str, history: History | None = None, now: float = NOW, recorded: Recorded | None = None
) -> list[Finding]:
    model = read_model(families(text))
    window = history.view() if history is not None else Evidence(model, now).history
    return diagnose(Evidence(model, now, window, recorded=recorded))


def recorded(points: Iterable[tuple[float, str]], now: float = NOW) -> Recorded:
    """The slowdown's records after the status page's evaluator was fed each (seconds before
    ``now``, exposition) and evaluated at ``now``."""
    judge = host_evaluator()
    for before, text in points:
        judge.feed(families(text), now - before)
    judge.evaluate(now)
    return Recorded.of(judge)
