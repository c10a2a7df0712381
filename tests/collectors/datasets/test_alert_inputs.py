"""The dataset rule tests are fed what zmon serves.

alert_rules/tests/datasets.test.yml feeds its first case the sizes of a real zfs-fuse run
(tests/fixtures/pools/lab/zfs-fuse-0.7.0/datasets). This checks it against the collector's
output for that run: the same series, with the same values, and none that zmon does not
serve (no quota series where no quota is set).
"""

from __future__ import annotations

from pathlib import Path

import yaml
from prometheus_client.parser import text_string_to_metric_families

from tests.collectors.datasets.test_datasets import FUSE, recorded_runner
from tests.support.pool_lab import context
from zmon.collectors.datasets import DatasetsCollector
from zmon.exposition.formats import render

RULE_TEST = Path(__file__).parents[3] / "alert_rules" / "tests" / "datasets.test.yml"
FED = (
    "zmon_dataset_used_bytes",
    "zmon_dataset_referenced_bytes",
    "zmon_dataset_quota_bytes",
    "zmon_dataset_refquota_bytes",
)
Key = tuple[str, frozenset[tuple[str, str]]]


def _fed() -> dict[Key, float]:
    """The first case's input series (every sample is the same value) without instance/job."""
    case = yaml.safe_load(RULE_TEST.read_text())["tests"][0]
    out = {}
    for item in case["input_series"]:
        (fam,) = text_string_to_metric_families(item["series"] + " 0\n")
        labels = {k: v for k, v in fam.samples[0].labels.items() if k not in ("instance", "job")}
        value, _, _ = item["values"].partition("x")
        out[(fam.name, frozenset(labels.items()))] = float(value)
    return out


def test_quota_rule_test_is_fed_the_series_zmon_serves(tmp_path: Path) -> None:
    ms = DatasetsCollector(context(recorded_runner(FUSE), tmp_path)).collect()
    fed = _fed()
    datasets = {dict(labels)["dataset"] for _, labels in fed}
    served = {
        (fam.name, frozenset(s.labels.items())): s.value
        for fam in text_string_to_metric_families(render(ms.families()).decode())
        for s in fam.samples
        if fam.name in FED and s.labels.get("dataset") in datasets
    }
    assert fed == served
