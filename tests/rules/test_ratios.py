"""Each ARC ratio is defined once (zmon/health/ratios.py): the recording rule Prometheus
evaluates and the figure `zmon status` computes are the same division of the same counters."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from alert_rules.generate import RULES_FILE, group_names
from tests.helpers import require_tool
from tests.rules.exprs import recording_rules
from tests.status.helpers import families
from zmon.health.ratios import (
    ARC_GHOST_HITS_PER_ACCESS,
    ARC_GHOST_SIZE,
    RATE_SECONDS,
    RATIOS,
    CounterRatio,
    LargerArc,
    counter_metric,
    ghost_size_expr,
)
from zmon.status.model import read_model

RECORDS = {r.record: r.expr for r in recording_rules()}


def test_the_ghost_hit_ratio_is_per_access() -> None:
    assert ARC_GHOST_HITS_PER_ACCESS.whole == ("hits", "misses")
    assert ARC_GHOST_HITS_PER_ACCESS.record == "zmon:arc_ghost_hits_per_access:ratio_rate5m"
    assert ARC_GHOST_HITS_PER_ACCESS.of(
        {"hits": 4000, "misses": 1000, "mru_ghost_hits": 300, "mfu_ghost_hits": 200}
    ) == pytest.approx(0.10)


def test_the_larger_arc_estimate_is_the_ghost_hits_per_access_and_the_ghost_lists_size() -> None:
    """Of 10000 reads 7100 hit and 2900 missed, 1856 of them ghost hits: up to 18.56 % more
    reads would have hit (a hit ratio of up to 89.56 %) in an ARC up to 3.1 GiB larger."""
    counters = {"hits": 7100, "misses": 2900, "mru_ghost_hits": 1356, "mfu_ghost_hits": 500}
    est = LargerArc.of(counters, (3.1 * 2**30,))
    assert est is not None
    assert est.hit_ratio == pytest.approx(0.71)
    assert est.more_hits == pytest.approx(0.1856)
    assert est.ghost_share == pytest.approx(0.64)
    assert est.hit_ratio_bound == pytest.approx(0.8956)
    assert est.words() == "up to 19% more reads would have hit with up to 3.1 GiB more ARC"
    assert LargerArc.of({**counters, "hits": 0, "misses": 0}, (0,)) is None
    no_miss = {**counters, "misses": 0, "mru_ghost_hits": 0, "mfu_ghost_hits": 0}
    assert LargerArc.of(no_miss, (0,)) == LargerArc(0.0, None, 0, 1.0)


@pytest.mark.parametrize("ratio", RATIOS, ids=lambda r: r.name)
def test_every_ratio_is_recorded_from_its_one_definition(ratio: CounterRatio) -> None:
    assert RECORDS.get(ratio.record) == ratio.expr()


def test_no_other_rule_records_an_arc_ratio() -> None:
    ours = {r.record for r in RATIOS}
    others = [n for n in RECORDS if n.startswith("zmon:arc_") and "ratio" in n and n not in ours]
    assert not others, f"ARC ratios recorded outside zmon/health/ratios.py: {others}"


def test_what_a_larger_arc_would_buy_is_defined_once() -> None:
    """N is the ghost hits per access, G the ghost lists' size: the recording rule of G and the
    sizes `zmon status` reads are the same arcstats states."""
    assert RECORDS.get(ARC_GHOST_SIZE) == ghost_size_expr()
    model = read_model(families(
        "zmon_arc_hits_total 100\n"
        'zmon_arc_state_size_bytes{state="mru_ghost"} 3e9\n'
        'zmon_arc_state_size_bytes{state="mfu_ghost"} 1e9\n'
        'zmon_arc_state_size_bytes{state="mru"} 5e9\n'
    ))  # fmt: skip
    assert model.arc is not None and model.arc.ghost_sizes == (3e9, 1e9)
    found = LargerArc.of(
        {"hits": 71, "misses": 29, "mru_ghost_hits": 14, "mfu_ghost_hits": 4.56},
        model.arc.ghost_sizes,
    )
    assert found is not None
    assert (found.more_hits, found.ghost_share, found.extra_bytes, found.hit_ratio) == (
        pytest.approx(0.1856),
        pytest.approx(0.64),
        4e9,
        pytest.approx(0.71),
    )
    assert LargerArc.of({"hits": 0, "misses": 0, "mru_ghost_hits": 0, "mfu_ghost_hits": 0},
                        (None, None)) is None  # fmt: skip


def _series(ratio: CounterRatio) -> tuple[list[dict[str, str]], dict[str, float]]:
    """Input series for promtool (each counter rising at its own rate for 10 minutes) and the
    increases over the last 5 minutes the status history would see."""
    per_minute = {f: 60.0 * (i + 1) * (7 if f == "hits" else 1) for i, f in enumerate(ratio.fields)}
    inputs = [
        {"series": f'{counter_metric(f)}{{instance="h:9", job="zmon"}}', "values": f"0+{v}x10"}
        for f, v in per_minute.items()
    ]
    return inputs, {f: v * RATE_SECONDS / 60 for f, v in per_minute.items()}


@pytest.mark.real
@pytest.mark.parametrize("ratio", RATIOS, ids=lambda r: r.name)
def test_prometheus_and_status_compute_the_same_ratio(ratio: CounterRatio, tmp_path: Path) -> None:
    """promtool evaluates the shipped rule file on steadily rising counters; the recorded
    value equals what the Python definition gives for the same increases."""
    promtool = require_tool("promtool", "Debian package prometheus")
    inputs, increases = _series(ratio)
    expected = ratio.of(increases)
    assert expected is not None
    test = {
        "rule_files": [str(RULES_FILE)],
        "evaluation_interval": "1m",
        "group_eval_order": group_names(),
        "tests": [
            {
                "interval": "1m",
                "input_series": inputs,
                "promql_expr_test": [
                    {
                        # equal but for float rounding: 1 when within 1e-9
                        "expr": f"abs({ratio.record} - {expected!r}) < bool 1e-9",
                        "eval_time": "10m",
                        "exp_samples": [{"labels": '{instance="h:9", job="zmon"}', "value": 1}],
                    }
                ],
            }
        ],
    }  # fmt: skip
    path = tmp_path / "ratio.test.json"  # JSON is YAML
    path.write_text(json.dumps(test))
    run = subprocess.run([promtool, "test", "rules", str(path)], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
