"""End to end with real parts: the demo host's story pages through Prometheus and Alertmanager.

zmon's demo host goes healthy -> scrub -> checksum errors -> degraded -> resilvering ->
resilvered, 8 seconds a phase unit (incidents last 2-3 units). Debian's Prometheus scrapes it
every second and evaluates a test-only rendering of the rules with every duration scaled by
1/30 (``for: 1m`` -> 2s, ``[10m]`` -> 20s); Debian's Alertmanager sends each alert to a
webhook receiver in this test. The expected alerts must arrive, naming pool, vdev and disk,
and then resolve: the checksum
errors on sdb (with the cable fault the demo's kernel log and SMART data show for it), the
degraded pool, the permanent errors of pool "single".
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from alert_rules import generate
from tests.helpers import require_tool
from tests.rules.stack import Prometheus, Webhook, start_alertmanager, start_zmon_demo
from zmon.demo.timeline import PHASES

pytestmark = [pytest.mark.real, pytest.mark.slow]

PHASE_SECONDS = 8.0
SCALE = 1 / 30
DEADLINE = 300.0  # seconds; the story takes 104 s a loop


def _alertmanager_binary() -> str:
    found = shutil.which("prometheus-alertmanager") or shutil.which("alertmanager")
    return found or require_tool("prometheus-alertmanager", "Debian package of that name")


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Webhook]:
    prometheus = require_tool("prometheus", "Debian package prometheus")
    alertmanager = _alertmanager_binary()
    tmp = tmp_path_factory.mktemp("pipeline")
    rules = tmp / "zmon.fast.rules.yml"
    rules.write_text(generate.render(scale=SCALE))
    webhook = Webhook()
    started: list[Any] = []
    try:
        am, am_address = start_alertmanager(alertmanager, tmp, webhook.url)
        started.append(am)
        zmon, address = start_zmon_demo(tmp, PHASE_SECONDS)
        started.append(zmon)
        started.append(Prometheus(prometheus, tmp, address, [rules], alertmanager=am_address))
        yield webhook
    finally:
        for proc in reversed(started):
            proc.stop()
        webhook.stop()


Match = Callable[[dict[str, Any]], bool]


def _alert(name: str, status: str, **labels: str) -> Match:
    def match(a: dict[str, Any]) -> bool:
        got = a.get("labels", {})
        return (a.get("status") == status and got.get("alertname") == name
                and all(got.get(k) == v for k, v in labels.items()))  # fmt: skip

    return match


def _wait(webhook: Webhook, wanted: dict[str, Match], deadline: float) -> dict[str, int]:
    """Index (arrival order) of the first alert matching each wanted key."""
    found: dict[str, int] = {}
    while time.monotonic() < deadline:
        alerts = webhook.alerts()
        for key, match in wanted.items():
            if key not in found:
                hit = next((i for i, a in enumerate(alerts) if match(a)), None)
                if hit is not None:
                    found[key] = hit
        if len(found) == len(wanted):
            return found
        time.sleep(1)
    seen = sorted({(a["labels"].get("alertname"), a["status"]) for a in webhook.alerts()})
    raise AssertionError(f"never arrived: {sorted(set(wanted) - set(found))}; seen: {seen}")


def test_the_demo_story_pages_and_resolves(pipeline: Webhook) -> None:
    deadline = time.monotonic() + DEADLINE
    bitrot = {"pool": "tank", "vdev": "ata-QEMU_HARDDISK_ZLSATA1"}
    found = _wait(pipeline, {
        "checksum firing": _alert("ZfsVdevChecksumErrors", "firing", **bitrot),
        "checksum resolved": _alert("ZfsVdevChecksumErrors", "resolved", **bitrot),
        "degraded firing": _alert("ZfsPoolDegraded", "firing", pool="tank"),
        "degraded resolved": _alert("ZfsPoolDegraded", "resolved", pool="tank"),
        "data errors firing": _alert("ZfsPoolDataErrors", "firing", pool="single"),
        "data errors resolved": _alert("ZfsPoolDataErrors", "resolved", pool="single"),
        "cable firing": _alert("DiskCableFault", "firing", device="sdb", pool="tank"),
    }, deadline)  # fmt: skip
    assert found["checksum firing"] < found["checksum resolved"]
    assert found["degraded firing"] < found["degraded resolved"]
    assert found["data errors firing"] < found["data errors resolved"]
    assert found["checksum firing"] < found["degraded firing"], "the story's order"

    alerts = pipeline.alerts()
    page = alerts[found["checksum firing"]]
    assert page["labels"]["severity"] == "critical"
    description = page["annotations"]["description"]
    assert "ata-QEMU_HARDDISK_ZLSATA1 (disk sdb, serial ZLSATA1) of pool tank" in description
    assert page["annotations"]["runbook_url"].endswith("RUNBOOK.md#zfsvdevchecksumerrors")

    cable = alerts[found["cable firing"]]["annotations"]["description"]
    assert "Disk sdb" in cable and "pool tank" in cable and "replace the cable" in cable

    names = {a["labels"]["alertname"] for a in alerts}
    cable = {tuple(sorted(a["labels"].items())) for a in alerts
             if a["labels"]["alertname"] == "DiskCableFault" and a["status"] == "firing"}
    assert len(cable) == 1, f"one cable fault, one label set (no second page): {cable}"
    false_pages = names & {"ZfsPoolFaulted", "ZfsPoolCapacityCritical", "ZmonTargetDown"}
    assert not false_pages, f"alerts the story must never raise: {false_pages}"


def test_pipeline_rules_are_the_scaled_rendering(tmp_path: Path) -> None:
    text = generate.render(scale=SCALE)
    assert "for: 2s" in text and "[20s]" in text


def test_every_alert_the_readme_lists_for_a_demo_phase_arrives(pipeline: Webhook) -> None:
    wanted = {name for p in PHASES for name in p.alerts}
    found = _wait(pipeline, {n: _alert(n, "firing") for n in wanted},
                  time.monotonic() + DEADLINE)  # fmt: skip
    assert set(found) == wanted
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    for phase in PHASES:
        row = next(line for line in readme.splitlines() if line.startswith(f"| {phase.name} |"))
        assert all(name in row for name in phase.alerts), (phase.name, row)
