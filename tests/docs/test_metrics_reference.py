"""docs/metrics.md lists every metric zmon exports, built from the golden expositions.

Each golden file is real output of a parser or collector, so the reference cannot drift
from what zmon actually serves. `pytest --update-golden` rewrites the reference.
"""

from __future__ import annotations

import re
import textwrap
from collections import defaultdict
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from zmon.exposition.snapshot import CollectorState, self_metrics

ROOT = Path(__file__).parents[2]
GOLDEN = ROOT / "tests" / "golden"
REFERENCE = ROOT / "docs" / "metrics.md"

AREAS = [
    ("zmon itself", "e2e", r"^zmon_(collector|build|start|child_processes|http)_"),
    ("ARC", "arc", r"^zmon_arc_"),
    ("Pools and vdevs (`zpool status`)", "zpool_status", r"^zmon_(pool|vdev|zpool)_"),
    ("Pool capacity, datasets, dedup, events, per-pool kstats", "pools", r"^zmon_"),
    ("I/O performance", "perf", r"^zmon_"),
    ("Disks: SMART, device map, hotplug, SAS links", "disks", r"^zmon_(disk|devices|sas_phy)"),
    ("Kernel log", "kernel_log", r"^zmon_kernel_log_"),
    ("UPS", "ups", r"^zmon_ups_"),
    ("ZFS module: version, tunables, pool upgrades", "zfs_module", r"^zmon_"),
    ("Collector state (seen in the end-to-end exposition)", "e2e", r"^zmon_"),
]
CONTRACT_LABELS = ("pool", "vdev", "device", "ups", "collector")
# A paragraph under an area's heading: what a table row cannot say (bounds, absent series).
NOTES = {
    "Disks: SMART, device map, hotplug, SAS links": (
        "SAS link counters are bounded by the PHYs of the host: `zmon_disk_sas_phy_*` (labels "
        "device, port, phy) has at most one series per PHY of a SAS disk's target ports, two "
        "on a dual-port disk; `zmon_sas_phy_*` (labels phy, sas_address, device) one per "
        "HBA or expander PHY in /sys/class/sas_phy (8 to 16 per HBA, 12 to 68 per expander), "
        "at most the sas_phy collector's `max_phys` (default 4,096), the rest counted in "
        "`zmon_sas_phys_dropped`. `device` is empty on a PHY whose link reaches no disk."
    ),
    "Pool capacity, datasets, dedup, events, per-pool kstats": (
        "Datasets (`zmon_dataset_*`, labels pool, dataset, type) are bounded: the datasets "
        "collector exports whole datasets, shallowest first, until the next would pass its "
        "`max_series` (default 10,000 series, at most 27 per dataset), and counts the rest in "
        "`zmon_datasets_dropped`. Quota, refquota and reservation series exist only where one "
        "is set (none, 0, is no series); the newest snapshot's time only where the dataset "
        "has a snapshot. Its age is `time()` minus "
        "`zmon_dataset_newest_snapshot_timestamp_seconds`. "
        "`zmon_dataset_snapshots_expected_since_timestamp_seconds` exists only for the "
        "datasets the collector's snapshot policy selects (the `com.sun:auto-snapshot` "
        "property, `snapshot_expected` globs): snapshot age is judged for those alone."
    ),
}


def _families(area: str) -> dict[str, tuple[str, str, set[str]]]:
    out: dict[str, tuple[str, str, set[str]]] = {}
    labels: dict[str, set[str]] = defaultdict(set)
    for path in sorted((GOLDEN / area).rglob("*.prom")):
        # Some goldens mask volatile values (``<time>``); only names and labels matter here.
        text = re.sub(r" <[a-z_]+>$", " 0", path.read_text(), flags=re.M)
        for fam in text_string_to_metric_families(text):
            for s in fam.samples:
                labels[fam.name].update(k for k in s.labels if k != "le")
            out.setdefault(fam.name, (fam.type, fam.documentation, labels[fam.name]))
    if area == "e2e":  # the golden masks zmon's own volatile samples: take their labels from code
        # a collector that keeps state files, whose last write worked
        state = CollectorState("x", 1.0, 1.0, success=True, state_writable=True)
        # a failing collector's own series (no golden shows one)
        failing = CollectorState("y", 1.0, 1.0, success=False, last_error_reason="timeout")
        for fam in self_metrics([state, failing], 0.0, 0.0):
            labels[fam.name].update(k for s in fam.samples for k in s.labels)
            out.setdefault(fam.name, (fam.type, fam.documentation, labels[fam.name]))
    return out


def render() -> str:
    lines = [
        "# Metrics reference",
        "",
        "Generated from the golden expositions in `tests/golden/` (real parser and collector",
        "output) by `tests/docs/test_metrics_reference.py`; `make golden` rewrites it. Names and",
        "labels are a public API. The help text names each metric's source (command, kstat or",
        "file). Counters are exposed with the `_total` suffix shown; histograms as `_bucket`,",
        "`_sum` and `_count`.",
        "",
    ]
    seen: set[str] = set()
    for title, area, pattern in AREAS:
        fams = {n: f for n, f in _families(area).items() if re.match(pattern, n)}
        fams = {n: f for n, f in fams.items() if n not in seen}
        if not fams:
            continue
        lines += [f"## {title}", ""]
        if title in NOTES:
            lines += [*textwrap.wrap(NOTES[title], 95), ""]
        lines += [
            "| metric | type | labels | meaning and source |",
            "|---|---|---|---|",
        ]
        for name in sorted(fams):
            typ, doc, labels = fams[name]
            shown = name + "_total" if typ == "counter" else name
            doc = doc.replace("|", "\\|")
            lab = ", ".join(sorted(labels))
            lines.append(f"| `{shown}` | {typ} | {lab} | {doc} |")
            seen.add(name)
        lines.append("")
    return "\n".join(lines)


def test_reference_is_current(golden) -> None:  # type: ignore[no-untyped-def]
    text = render()
    if REFERENCE.exists() and REFERENCE.read_text() == text:
        return
    golden("../../docs/metrics.md", text)


def test_every_served_metric_is_documented() -> None:
    served = {
        f.name
        for f in text_string_to_metric_families(
            (GOLDEN / "e2e" / "serve-resilvering.prom").read_text()
        )
    }
    documented = set(
        re.findall(r"^\| `(zmon_[a-z0-9_]+?)(?:_total)?` \|", REFERENCE.read_text(), re.M)
    )
    missing = sorted(served - documented)
    assert not missing, f"served but not in docs/metrics.md: {missing}"
