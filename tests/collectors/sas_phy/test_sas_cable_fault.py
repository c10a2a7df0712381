"""A fake SAS host whose one disk link takes PHY errors that keep coming: the cable ticket
(promtool, fed what zmon serves minute by minute), ``zmon status`` and the status page name
the disk and its enclosure slot; a rise once at start-up or on a link reset is no finding, and
errors on several PHYs of the expander are one finding about the expander.

The host is tests/support/sashost.py (sysfs PHYs of an HBA and an expander, sda-sdd in Slot00
to Slot03 of enclosure 0:0:12:0) with sdb's own smartctl view of its PHYs, and a raidz2 pool
of the four disks; zmon's collectors read it as they would a real host.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from alert_rules import generate
from alert_rules.fill_annotations import rendered
from tests.helpers import require_tool
from tests.support.sashost import build_sas_host, set_counter
from zmon.base.runner import StaticRunner
from zmon.collecting.registry import Context, Paths
from zmon.collectors.devices import DevicesCollector
from zmon.collectors.sas_phy import SasPhyCollector
from zmon.collectors.smart.metrics import report_metrics
from zmon.exposition.formats import render
from zmon.exposition.metrics import MetricSet
from zmon.parsers.smartctl.smartctl import SasPhy, SmartReport
from zmon.status.history import History
from zmon.status.model import read_model
from zmon.status.page import render_html
from zmon.status.report import build_report
from zmon.status.terminal import render_text

T0 = 1_800_000_000.0
START = 10  # zmon starts at minute 10: none of its series exist before
RISE = 30  # sdb's link takes errors every minute from here
MINUTES = 100
DISKS = ("sda", "sdb", "sdc", "sdd")
EXPANDER_DISK_PHYS = {d: f"phy-0:0:{n}" for n, d in enumerate(DISKS)}

POOL = "\n".join(
    [
        'zmon_pool_state{pool="tank",state="online"} 1',
        'zmon_vdev_info{class="normal",device="",parent="",pool="tank",state="ONLINE",'
        'type="root",vdev="tank"} 1',
        'zmon_vdev_info{class="normal",device="",parent="tank",pool="tank",state="ONLINE",'
        'type="raidz",vdev="raidz2-0"} 1',
        'zmon_vdev_state{class="normal",pool="tank",state="online",vdev="raidz2-0"} 1',
        'zmon_vdev_redundancy{class="normal",pool="tank",vdev="raidz2-0"} 2',
    ]
    + [
        line
        for d in DISKS
        for line in (
            f'zmon_vdev_info{{class="normal",device="{d}",parent="raidz2-0",pool="tank",'
            f'state="ONLINE",type="disk",vdev="scsi-{d}"}} 1',
            f'zmon_vdev_state{{class="normal",pool="tank",state="online",vdev="scsi-{d}"}} 1',
            *(
                f'zmon_vdev_{c}_errors_total{{class="normal",pool="tank",vdev="scsi-{d}"}} 0'
                for c in ("read", "write", "checksum")
            ),
            f'zmon_disk_crc_errors_total{{device="{d}"}} 0',
            f'zmon_disk_scsi_grown_defects{{device="{d}"}} 0',
        )
    ]
)


def _smart_sdb(errors: int) -> str:
    """sdb's own view of its link (smartctl -l sasphy), as the smart collector serves it."""
    report = SmartReport(source="text", device_name="/dev/sdb", protocol="SCSI")
    report.sas_phys = [
        SasPhy(port=1, phy=0, invalid_dwords=errors, running_disparity_errors=errors,
               loss_of_dword_sync=0, phy_reset_problems=0, link_rate_bits=12e9)
    ]  # fmt: skip
    ms = MetricSet()
    report_metrics(ms, "sdb", report)
    return render(ms.families()).decode()


def serve(
    tmp_path: Path, errors: Callable[[int], dict[str, int]], minutes: int = MINUTES
) -> list[str | None]:
    """What zmon serves each minute (None before it starts): ``errors(minute)`` gives the
    invalid DWORD count of each PHY that has one at that minute."""
    paths: Paths = build_sas_host(tmp_path / "host")
    ctx = Context(paths=paths, runner=StaticRunner({}), options={}, platform="linux")
    sas, devices = SasPhyCollector(ctx), DevicesCollector(ctx)
    out: list[str | None] = []
    for minute in range(minutes):
        if minute < START:
            out.append(None)
            continue
        counts = errors(minute)
        for phy, n in counts.items():
            set_counter(paths, phy, "invalid_dword_count", n)
            set_counter(paths, phy, "running_disparity_error_count", n)
        text = render(sas.collect().families()).decode()
        text += render(devices.collect().families()).decode()
        # the smart collector reads sdb every 30 minutes
        read = errors(minute - minute % 30).get(EXPANDER_DISK_PHYS["sdb"], 0)
        text += _smart_sdb(read) + POOL + "\n"
        out.append(text)
    return out


def one_link(minute: int) -> dict[str, int]:
    """sdb's link takes 40 errors a minute from RISE on."""
    return {EXPANDER_DISK_PHYS["sdb"]: 40 * max(0, minute - RISE + 1)}


def expander(minute: int) -> dict[str, int]:
    """Every disk link of the expander takes errors from RISE on."""
    n = 40 * max(0, minute - RISE + 1)
    return {phy: n for phy in EXPANDER_DISK_PHYS.values()}


def once_at_start(minute: int) -> dict[str, int]:
    """Every link's counters stand at a few errors from zmon's start (link training at boot),
    and sdb's link rises once more on a link reset at minute 50."""
    counts = {phy: 3 for phy in EXPANDER_DISK_PHYS.values()}
    if minute >= 50:
        counts[EXPANDER_DISK_PHYS["sdb"]] = 9
    return counts


def _series(served: list[str | None]) -> dict[str, list[float | None]]:
    """Each served series' value per minute (None where zmon did not serve it)."""
    out: dict[str, list[float | None]] = {}
    for minute, text in enumerate(served):
        if text is None:
            continue
        for fam in text_string_to_metric_families(text):
            for s in fam.samples:
                labels = {"instance": "h1", "job": "zmon", **s.labels}
                key = s.name + "{" + ", ".join(f'{k}="{v}"' for k, v in labels.items()) + "}"
                out.setdefault(key, [None] * len(served))[minute] = s.value
    return out


def promtool_input(served: list[str | None]) -> str:
    lines = []
    for key, values in _series(served).items():
        shown = " ".join("_" if v is None else f"{v:g}" for v in values)
        lines += [f"      - series: '{key}'", f"        values: '{shown}'"]
    return "\n".join(lines)


def run_promtool(tmp_path: Path, served: list[str | None], checks: str) -> str:
    promtool = require_tool("promtool", "Debian package prometheus")
    text = (
        f"rule_files:\n  - {generate.RULES_FILE}\nevaluation_interval: 1m\n"
        + "".join(f"{line}\n" for line in generate.eval_order_lines())
        + "tests:\n"
        f"  - name: sas host\n    interval: 1m\n    input_series:\n{promtool_input(served)}\n"
        f"    alert_rule_test:\n{checks}"
    )
    path = tmp_path / "sas.test.yml"
    path.write_text(text)
    run = subprocess.run(
        [promtool, "test", "rules", path.name], cwd=tmp_path, capture_output=True, text=True
    )
    return run.stdout + run.stderr


def report_at(served: list[str | None], minute: int) -> dict:
    """``zmon status`` of the running zmon at ``minute``: its report with the last hour."""
    history = History()
    report = None
    for m, text in enumerate(served[: minute + 1]):
        if text is None:
            continue
        families = list(text_string_to_metric_families(text))
        report = build_report(families, T0 + 60 * m, host="h1", history=history.view())
        history.observe(T0 + 60 * m, read_model(families))
    assert report is not None
    return report


@pytest.mark.real
@pytest.mark.slow
def test_promtool_names_the_disk_and_its_slot_and_not_before_the_errors_keep_coming(
    tmp_path: Path,
) -> None:
    served = serve(tmp_path, one_link)
    labels = ("{severity: warning, instance: h1, job: zmon, device: sdb, pool: tank, "
              "vdev: scsi-sdb, sas_parent: expander-0:0}")  # fmt: skip
    checks = "\n".join(
        [
            # the first half hour of errors is one step as far as the rules know
            "      - eval_time: 45m",
            "        alertname: DiskCableFault",
            "        exp_alerts: []",
            "      - eval_time: 95m",
            "        alertname: DiskSasExpanderLinkErrors",
            "        exp_alerts: []",
            "      - eval_time: 95m",
            "        alertname: DiskCableFault",
            "        exp_alerts:",
            f"          - exp_labels: {labels}",
        ]
    )
    output = run_promtool(tmp_path, served, checks)
    # promtool prints what it got where the annotations were not given: only that differs
    assert "time: 45m" not in output and "DiskSasExpanderLinkErrors" not in output, output
    (got,) = [a for (_, alert, when, _), a in rendered(output).items()
              if alert == "DiskCableFault" and when == 95 * 60]  # fmt: skip
    description = got["description"]
    assert description.startswith("Disk sdb on h1"), description
    assert "its SAS link is PHY phy-0:0:1 of expander-0:0 (enclosure 0:0:12:0 slot Slot01)" in (
        description
    )
    assert "enclosure 0:0:12:0 slot Slot01; find it with ledctl locate=/dev/sdb" in description


@pytest.mark.slow
def test_status_and_the_page_name_the_disk_and_its_slot(tmp_path: Path) -> None:
    served = serve(tmp_path, one_link)
    early = report_at(served, 45)
    assert [f["rule"] for f in early["findings"]] == []
    report = report_at(served, 95)
    (finding,) = report["findings"]
    assert finding["rule"] == "cable_fault" and finding["alert"] == "DiskCableFault"
    assert (
        finding["subject"].startswith("sdb (")
        and "enclosure 0:0:12:0 Slot01" in (finding["subject"])
    )
    assert "SAS PHY errors on its link of PHY phy-0:0:1 (expander-0:0)" in finding["evidence"]
    assert finding["labels"]["sas_parent"] == "expander-0:0"
    text = render_text(report)
    assert "sdb (" in text and "Slot01" in text
    page = render_html(report, "h1")
    assert "sdb (" in page and "enclosure 0:0:12:0 Slot01" in page


@pytest.mark.slow
def test_a_rise_once_at_start_or_on_a_link_reset_is_no_finding(tmp_path: Path) -> None:
    served = serve(tmp_path, once_at_start)
    for minute in (20, 55, 80, 99):
        assert report_at(served, minute)["findings"] == [], minute


@pytest.mark.slow
def test_errors_on_several_links_of_the_expander_are_one_finding(tmp_path: Path) -> None:
    served = serve(tmp_path, expander)
    (finding,) = report_at(served, 95)["findings"]
    assert finding["alert"] == "DiskSasExpanderLinkErrors"
    assert finding["subject"] == "SAS expander expander-0:0"
    assert finding["labels"] == {"sas_parent": "expander-0:0"}
    for n, disk in enumerate(DISKS):
        assert f"phy-0:0:{n} ({disk}, enclosure 0:0:12:0 Slot0{n})" in finding["evidence"]


@pytest.mark.real
@pytest.mark.slow
def test_promtool_gives_one_expander_ticket_for_errors_on_all_its_links(tmp_path: Path) -> None:
    served = serve(tmp_path, expander)
    checks = "\n".join(
        [
            "      - eval_time: 95m",
            "        alertname: DiskSasExpanderLinkErrors",
            "        exp_alerts:",
            "          - exp_labels: {severity: warning, instance: h1, job: zmon, "
            "sas_parent: expander-0:0}",
        ]
    )
    output = run_promtool(tmp_path, served, checks)
    (got,) = [a for (_, alert, when, _), a in rendered(output).items()
              if alert == "DiskSasExpanderLinkErrors" and when == 95 * 60]  # fmt: skip
    assert got["description"].startswith("4 PHYs of SAS expander-0:0 on h1"), got
    assert "phy-0:0:1 (disk sdb, slot Slot01);" in got["description"]
