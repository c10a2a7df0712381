"""zmon's own blind spots on a host: a kernel log it cannot follow, state it cannot keep
(declared in zmon/health/host.py)."""

from __future__ import annotations

from alert_rules.building import Alert, Group
from zmon.health import host
from zmon.health.thresholds import Thresholds


def zmon_state_alerts(t: Thresholds) -> Group:
    return Group("zmon-state", [Alert.of(c) for c in host.zmon_state_conditions(t)])
