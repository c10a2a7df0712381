"""zmon's own blind spots on a host: a kernel log it cannot follow, state it cannot keep.

Both are tickets (zmon/status/policy.py): nothing has failed on the host, but zmon sees less
than it should. ``zmon_kernel_log_following`` is served for each source the kernel_log
collector follows (each configured ``kernel_log.files`` path, or kmsg or the journal);
``zmon_collector_state_writable`` only for collectors that keep state files, from their first
write (or their first attempt to open the state directory).
"""

from __future__ import annotations

from alert_rules.building import Alert, Group
from zmon.judgment.thresholds import Thresholds


def zmon_state_alerts(t: Thresholds) -> Group:
    return Group(
        "zmon-state",
        [
            Alert(
                "ZmonKernelLogNotFollowed",
                "zmon_kernel_log_following == 0",
                "zmon cannot follow a kernel log source.",
                "zmon on {{ $labels.instance }} cannot follow the kernel log source "
                "{{ $labels.source }} (missing or unreadable): disk, cable and pool faults "
                "logged there are not counted. Check kernel_log.files and zmon's log.",
                str(t.collector_failing_for),
            ),
            Alert(
                "ZmonStateNotWritable",
                "zmon_collector_state_writable == 0",
                "zmon cannot write its state files.",
                "Collector {{ $labels.collector }} of zmon on {{ $labels.instance }} cannot "
                "write its state files (the state directory is full, read-only or not "
                "writable): what it keeps there (log positions, counts, scrub history) is "
                "lost at the next restart. See zmon's log.",
                str(t.collector_failing_for),
            ),
        ],
    )
