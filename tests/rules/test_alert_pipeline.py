"""End to end with real parts: the demo host's story pages through Prometheus and Alertmanager.

zmon's demo host goes healthy -> scrub -> checksum errors -> degraded -> resilvering ->
resilvered, one step at a time: the test moves the story on once zmon serves the phase,
Prometheus has scraped it and its rules have reached their verdict on it, and Alertmanager has
delivered what fired - so the outcome does not depend on how loaded the machine is. Debian's
Prometheus scrapes every second and evaluates a test-only rendering of the rules with every
duration scaled by 1/30 (``for: 1m`` -> 2s, ``[10m]`` -> 20s); Debian's Alertmanager sends each
alert to a webhook receiver in this test. The expected alerts must arrive, naming pool, vdev and
disk, and then resolve: the checksum errors on sdb (with the cable fault the demo's kernel log
and SMART data show for it), the degraded pool, the permanent errors of pool "single".
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
from tests.rules.stack import Prometheus, SteppedDemo, Webhook, start_alertmanager
from zmon.demo.timeline import PHASES

pytestmark = [pytest.mark.real, pytest.mark.slow]

SCALE = 1 / 30
# A phase stands for this long in the story (scaled like the rules): alerts whose `for` is at
# most this long must have reached their verdict before the story moves on.
PHASE_SECONDS = 8.0
RESOLVE_TIMEOUT = 300.0  # seconds for the last alerts to resolve once the story has run
Pipeline = tuple[SteppedDemo, Prometheus, Webhook]


def _alertmanager_binary() -> str:
    found = shutil.which("prometheus-alertmanager") or shutil.which("alertmanager")
    return found or require_tool("prometheus-alertmanager", "Debian package of that name")


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pipeline]:
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
        demo = SteppedDemo(tmp)
        started.append(demo)
        prom = Prometheus(prometheus, tmp, demo.address, [rules], alertmanager=am_address)
        started.append(prom)
        yield demo, prom, webhook
    finally:
        for proc in reversed(started):
            proc.stop()
        webhook.stop()


Match = Callable[[dict[str, Any]], bool]


def _alert(name: str, status: str, **labels: str) -> Match:
    def match(a: dict[str, Any]) -> bool:
        got = a.get("labels", {})
        return (
            a.get("status") == status
            and got.get("alertname") == name
            and all(got.get(k) == v for k, v in labels.items())
        )

    return match


def _found(webhook: Webhook, wanted: dict[str, Match]) -> dict[str, int]:
    """Index (arrival order) of the first alert matching each wanted key, for those that came."""
    alerts = webhook.alerts()
    found = {}
    for key, match in wanted.items():
        hit = next((i for i, a in enumerate(alerts) if match(a)), None)
        if hit is not None:
            found[key] = hit
    return found


def _settle(demo: SteppedDemo, prom: Prometheus, webhook: Webhook) -> None:
    prom.wait_scraped(demo)
    prom.wait_alerts_settled(time.time(), PHASE_SECONDS, webhook)


def _run_story(pipeline: Pipeline, wanted: dict[str, Match]) -> dict[str, int]:
    """Step the story (at most twice round) until every wanted notification arrived."""
    demo, prom, webhook = pipeline
    _settle(demo, prom, webhook)
    for _ in range(2 * len(PHASES)):
        if len(_found(webhook, wanted)) == len(wanted):
            break
        demo.step()
        _settle(demo, prom, webhook)
    deadline = time.monotonic() + RESOLVE_TIMEOUT  # increase() windows must pass to resolve
    while len(found := _found(webhook, wanted)) < len(wanted) and time.monotonic() < deadline:
        time.sleep(0.5)
    seen = sorted({(a["labels"].get("alertname"), a["status"]) for a in webhook.alerts()})
    missing = sorted(set(wanted) - set(found))
    assert not missing, f"never arrived: {missing}; seen: {seen}; phases: {demo.phases}"
    return found


def test_the_demo_story_pages_and_resolves(pipeline: Pipeline) -> None:
    bitrot = {"pool": "tank", "vdev": "ata-QEMU_HARDDISK_ZLSATA1"}  # no device: it may change
    found = _run_story(
        pipeline,
        {
            "checksum firing": _alert("ZfsVdevChecksumErrors", "firing", **bitrot),
            "checksum resolved": _alert("ZfsVdevChecksumErrors", "resolved", **bitrot),
            "degraded firing": _alert("ZfsPoolDegraded", "firing", pool="tank"),
            # tank is a 2-way mirror: with one side OFFLINE it has no redundancy left
            "no redundancy firing": _alert("ZfsPoolRedundancyLost", "firing", pool="tank"),
            "degraded resolved": _alert("ZfsPoolDegraded", "resolved", pool="tank"),
            "data errors firing": _alert("ZfsPoolDataErrors", "firing", pool="single"),
            "data errors resolved": _alert("ZfsPoolDataErrors", "resolved", pool="single"),
            "cable firing": _alert("DiskCableFault", "firing", device="sdb", pool="tank"),
        },
    )
    assert found["checksum firing"] < found["checksum resolved"]
    assert found["degraded firing"] < found["degraded resolved"]
    assert found["data errors firing"] < found["data errors resolved"]
    assert found["checksum firing"] < found["degraded firing"], "the story's order"

    alerts = pipeline[2].alerts()
    ticket = alerts[found["checksum firing"]]
    assert ticket["labels"]["severity"] == "warning"  # repaired, not rising: a ticket
    description = ticket["annotations"]["description"]
    assert "ata-QEMU_HARDDISK_ZLSATA1 (disk sdb, serial ZLSATA1) of pool tank" in description
    assert ticket["annotations"]["runbook_url"].endswith("RUNBOOK.md#zfsvdevchecksumerrors")
    page = alerts[found["no redundancy firing"]]
    assert page["labels"]["severity"] == "critical"
    assert "mirror-0 is DEGRADED" in page["annotations"]["description"]

    cable = alerts[found["cable firing"]]["annotations"]["description"]
    assert "Disk sdb" in cable and "pool tank" in cable and "replace the cable" in cable

    names = {a["labels"]["alertname"] for a in alerts}
    cable = {
        tuple(sorted(a["labels"].items()))
        for a in alerts
        if a["labels"]["alertname"] == "DiskCableFault" and a["status"] == "firing"
    }
    assert len(cable) == 1, f"one cable fault, one label set (no second page): {cable}"
    false_pages = names & {
        "ZfsPoolFaulted",
        "ZfsPoolStuck",
        "ZfsPoolCapacityCritical",
        "ZmonTargetDown",
    }
    assert not false_pages, f"alerts the story must never raise: {false_pages}"


def test_pipeline_rules_are_the_scaled_rendering(tmp_path: Path) -> None:
    text = generate.render(scale=SCALE)
    assert "for: 2s" in text and "[20s]" in text


# Alerts the README lists that a stepped demo cannot raise, and why (promtool tests cover them).
NOT_STEPPED = {
    # the battery runs low while the resilvering phase goes on; a stepped host stands at the
    # start of each phase, so it reaches the low charge only once mains power is back
    "UpsLowBattery": "alert_rules/tests/ups.test.yml",
}


def test_every_alert_the_readme_lists_for_a_demo_phase_arrives(pipeline: Pipeline) -> None:
    wanted = {name for p in PHASES for name in p.alerts} - set(NOT_STEPPED)
    for name, covered_by in NOT_STEPPED.items():
        assert name in (Path(__file__).resolve().parents[2] / covered_by).read_text()
    found = _run_story(pipeline, {n: _alert(n, "firing") for n in wanted})
    assert set(found) == wanted
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    for phase in PHASES:
        row = next(line for line in readme.splitlines() if line.startswith(f"| {phase.name} |"))
        assert all(name in row for name in phase.alerts), (phase.name, row)
