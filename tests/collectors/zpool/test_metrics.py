"""The metric catalogue: what the collector exports, the contract names, and the docs."""

from __future__ import annotations

import re
from pathlib import Path

from tests.helpers import collector_doc
from tests.support.zpool_status import CORPUS, LAB, parse_file
from zmon.collectors.zpool.metrics import CATALOGUE, status_metrics

ROOT = Path(__file__).resolve().parents[3]
CONTRACT = {
    "zmon_pool_state": ("pool", "state"),
    "zmon_pool_data_errors": ("pool",),
    "zmon_pool_scan_in_progress": ("pool", "function"),
    "zmon_pool_scan_examined_bytes": ("pool",),
    "zmon_pool_scan_issued_bytes": ("pool",),
    "zmon_pool_scan_to_examine_bytes": ("pool",),
    "zmon_pool_scan_errors": ("pool",),
    "zmon_pool_scan_start_time_seconds": ("pool",),
    "zmon_pool_scan_end_time_seconds": ("pool",),
    "zmon_pool_last_scrub_end_time_seconds": ("pool",),
    "zmon_vdev_state": ("pool", "vdev", "state"),
    "zmon_vdev_read_errors_total": ("pool", "vdev"),
    "zmon_vdev_write_errors_total": ("pool", "vdev"),
    "zmon_vdev_checksum_errors_total": ("pool", "vdev"),
    "zmon_vdev_slow_ios_total": ("pool", "vdev"),
    "zmon_vdev_info": ("pool", "vdev", "device"),
}


def _observed() -> dict[str, tuple[str, set[str]]]:
    seen: dict[str, tuple[str, set[str]]] = {}
    files = [*CORPUS.iterdir(), *LAB.glob("*/*/zpool-status*"), *LAB.glob("zfs-fuse-0.7.0/*-v.txt")]
    for path in files:
        for fam in status_metrics(parse_file(path)).families():
            for sample in fam.samples:
                name = sample.name
                typ, labels = seen.setdefault(name, (fam.type, set()))
                labels.update(sample.labels)
    return seen


def test_catalogue_matches_what_is_exported() -> None:
    observed = _observed()
    catalogue = {name: (typ, set(labels)) for name, typ, labels, _help in CATALOGUE}
    assert observed == catalogue


def test_contract_names_and_labels_exist() -> None:
    catalogue = {name: labels for name, _typ, labels, _help in CATALOGUE}
    for name, labels in CONTRACT.items():
        assert name in catalogue, name
        assert set(labels) <= set(catalogue[name]), name
    counters = [name for name, typ, _labels, _help in CATALOGUE if typ == "counter"]
    assert all(name.endswith("_total") for name in counters)


def test_help_names_the_source() -> None:
    for name, _typ, _labels, help_text in CATALOGUE:
        assert "zpool status" in help_text, name


def test_every_metric_is_documented() -> None:
    doc = collector_doc("zpool").read_text()
    table = doc[doc.index("<!-- metrics:begin -->") : doc.index("<!-- metrics:end -->")]
    documented = set(re.findall(r"^\| `(zmon_[a-z_]+)`", table, re.MULTILINE))
    exported = {name for name, *_ in CATALOGUE} | {"zmon_zpool_status_source_info"}
    assert documented == exported
