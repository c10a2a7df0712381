"""Build status reports from exposition text, as zmon serves it."""

from __future__ import annotations

from typing import Any

from prometheus_client.parser import text_string_to_metric_families

from zmon.status.diagnoses import Evidence, Finding, diagnose
from zmon.status.history import History
from zmon.status.model import read_model

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


def findings(text: str, history: History | None = None, now: float = NOW) -> list[Finding]:
    model = read_model(families(text))
    window = history.view() if history is not None else Evidence(model, now).history
    return diagnose(Evidence(model, now, window))
