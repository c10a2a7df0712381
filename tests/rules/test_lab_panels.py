"""Panels the demo cannot exercise, run by Prometheus on what the real-ZFS lab recorded.

No demo pool has two top-level vdevs (tank is a mirror, rz a raidz1, single one disk), so the
"Top-level vdevs against their siblings" panel is empty on the demo (tests/rules/pending.py,
SHOWN_ON_LAB: the live demo test accepts it as empty there because it runs here).
The lab's slowdown run has one: pool `slow`, a stripe of vdd, vde and vdf, whose slow-disk
phase slows vde (`zinject -D`). Its capture (tests/fixtures/lab/<version>/slowdown/slow-disk/
prometheus.tsv) holds what the lab's Prometheus recorded with zmon's rules; here promtool runs
the panel's own query over those series and must return the slow vdev, above its siblings.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml

from tests.helpers import require_tool
from tests.lab.checks import VERSIONS
from tests.lab.slowdown import SIBLINGS, SLOW, SLOW_VDEV
from tests.rules import pending
from tests.rules.exprs import panel_exprs

CAPTURES = Path(__file__).resolve().parents[1] / "fixtures" / "lab"
PANEL = "zmon-arc/Top-level vdevs against their siblings"
PANELS = (PANEL,)  # what this file shows on the lab's recordings (pending.SHOWN_ON_LAB)
TARGET = {"instance": "lab:10124", "job": "zmon"}
STEP = 2  # seconds between the capture's rows


def recorded(version: str) -> dict[str, dict[int, str]]:
    """series -> {step: value} of the slow-disk phase, with the scrape target's labels."""
    out: dict[str, dict[int, str]] = {}
    tsv = CAPTURES / version / "slowdown" / SLOW / "prometheus.tsv"
    for line in tsv.read_text().splitlines()[1:]:
        at, series, value = line.split("\t")
        name, _, rest = series.partition("{")
        labels = ", ".join(f'{k}="{v}"' for k, v in TARGET.items())
        inner = rest.rstrip("}")
        key = f"{name}{{{labels}{', ' + inner if inner else ''}}}"
        out.setdefault(key, {})[round(float(at) / STEP)] = value
    return out


def _values(steps: dict[int, str], last: int) -> str:
    return " ".join(steps.get(i, "_") for i in range(last + 1))


@pytest.mark.real
@pytest.mark.parametrize("version", VERSIONS)
def test_the_siblings_panel_shows_the_slow_vdev_on_the_labs_recording(
    version: str, tmp_path: Path
) -> None:
    promtool = require_tool("promtool", "Debian package prometheus")
    (expr,) = [e.promql for e in panel_exprs() if e.name.startswith(PANEL + "/")]
    series = recorded(version)
    last = max(max(steps) for steps in series.values())
    vdevs = {k: v for k, v in series.items() if k.startswith(expr.split("{")[0] + "{")}
    at_end = {k: v[max(v)] for k, v in vdevs.items() if max(v) == last and "read" in k}
    assert {f'vdev="{v}"' for v in (SLOW_VDEV, *SIBLINGS)} <= {
        part.strip() for k in at_end for part in k.split("{")[1].rstrip("}").split(",")
    }, f"the capture lacks a vdev of the stripe: {sorted(at_end)}"
    test = {
        "evaluation_interval": f"{STEP}s",
        "tests": [{
            "interval": f"{STEP}s",
            "input_series": [{"series": k, "values": _values(v, last)} for k, v in vdevs.items()],
            "promql_expr_test": [{
                "expr": expr,
                "eval_time": f"{last * STEP}s",
                "exp_samples": [
                    {"labels": k, "value": float(v[last])}
                    for k, v in vdevs.items() if last in v
                ],
            }],
        }],
    }  # fmt: skip
    path = tmp_path / "panel.test.yml"
    path.write_text(yaml.safe_dump(test, sort_keys=False, width=10_000))
    run = subprocess.run([promtool, "test", "rules", path.name], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    slow = next(float(v) for k, v in at_end.items() if f'vdev="{SLOW_VDEV}"' in k)
    siblings = [float(v) for k, v in at_end.items() if f'vdev="{SLOW_VDEV}"' not in k]
    assert siblings and slow > max(siblings), at_end


def test_every_panel_the_demo_cannot_show_runs_here() -> None:
    """pending.SHOWN_ON_LAB names this file for exactly the panels it runs, and they exist."""
    here = "tests/rules/" + Path(__file__).name
    assert {p for p, test in pending.SHOWN_ON_LAB.items() if test == here} == set(PANELS)
    names = {e.name.rsplit("/", 1)[0] for e in panel_exprs()}
    assert set(PANELS) <= names, set(PANELS) - names
