"""The rule file: generated from the thresholds table, lint-clean, unit-tested, conventional."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
import yaml

from alert_rules import generate, rules
from alert_rules.building import Alert
from tests.helpers import require_tool
from tests.rules.exprs import alert_rules, family, metric_names, panel_exprs, rule_exprs
from zmon.health.disks import with_pool
from zmon.health.expr import metric
from zmon.health.policy import SEVERITIES
from zmon.health.thresholds import DEFAULTS, Duration, format_seconds
from zmon.status.links import DEFAULT_LINKS, INSTALLED_RUNBOOK, SiteLinks

RULES_DIR = Path(generate.__file__).parent
TEST_FILES = sorted((RULES_DIR / "tests").glob("*.test.yml"))
RUNBOOK = RULES_DIR / "RUNBOOK.md"
REPO = RULES_DIR.parent


@pytest.mark.parametrize("path", TEST_FILES, ids=lambda p: p.name)
def test_each_rule_test_evaluates_the_groups_in_the_file_order(path: Path) -> None:
    """Without ``group_eval_order`` promtool orders the groups at random at each step: an
    alert reading a recorded series then fires in one run and not in the next."""
    order = yaml.safe_load(path.read_text()).get("group_eval_order")
    assert order == generate.group_names(), f"{path.name}: group_eval_order is not the file's"


def test_committed_rule_file_is_the_generator_output() -> None:
    assert generate.RULES_FILE.read_text() == generate.render(), (
        "alert_rules/zmon.rules.yml is out of date: run python -m alert_rules.generate"
    )


@pytest.mark.real
def test_promtool_check_rules_accepts_the_rule_file() -> None:
    promtool = require_tool("promtool", "Debian package prometheus")
    run = subprocess.run(
        [promtool, "check", "rules", str(generate.RULES_FILE)], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stdout + run.stderr


@pytest.mark.real
def test_promtool_check_rules_accepts_the_scaled_test_rendering(tmp_path: Path) -> None:
    promtool = require_tool("promtool", "Debian package prometheus")
    path = tmp_path / "fast.rules.yml"
    assert generate.main(["--scale", "0.03", "--output", str(path)]) == 0
    run = subprocess.run([promtool, "check", "rules", str(path)], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


@pytest.mark.real
@pytest.mark.slow
@pytest.mark.parametrize("test_file", TEST_FILES, ids=lambda p: p.name)
def test_promtool_unit_tests_pass(test_file: Path) -> None:
    promtool = require_tool("promtool", "Debian package prometheus")
    run = subprocess.run(
        [promtool, "test", "rules", test_file.name],
        cwd=test_file.parent,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr


def _expectations() -> list[tuple[str, str, bool]]:
    """(file, alertname, fires) for every alert_rule_test entry of every promtool test file."""
    out = []
    for path in TEST_FILES:
        alertname = None
        for line in path.read_text().splitlines():
            m = re.match(r"^\s*alertname:\s*(\S+)", line)
            if m:
                alertname = m.group(1)
            m = re.match(r"^\s*exp_alerts:\s*(\[\])?\s*$", line)
            if m and alertname:
                out.append((path.name, alertname, m.group(1) is None))
                alertname = None
    return out


@pytest.mark.parametrize("alert", [a.alert for a in alert_rules()])
def test_every_alert_has_a_firing_and_a_silent_promtool_test(alert: str) -> None:
    cases = [(f, fires) for f, name, fires in _expectations() if name == alert]
    assert any(fires for _, fires in cases), f"no promtool test shows {alert} firing"
    assert any(not fires for _, fires in cases), f"no promtool test shows {alert} silent"
    assert ("healthy.test.yml", False) in cases, f"healthy.test.yml does not check {alert}"


def test_promtool_tests_name_only_existing_alerts() -> None:
    known = {a.alert for a in alert_rules()}
    assert {name for _, name, _ in _expectations()} <= known


def test_the_healthy_host_test_feeds_every_metric_the_rules_read() -> None:
    healthy = (RULES_DIR / "tests" / "healthy.test.yml").read_text()
    fed = set(re.findall(r"series: '(\w+)\{", healthy))
    read = set().union(*(metric_names(e.promql) for e in rule_exprs()))
    assert read - fed == set(), "healthy.test.yml must feed every metric, or silence is trivial"


NAME = re.compile(r"^(Zfs|Disk|Ups|Zmon)[A-Z][A-Za-z0-9]+$")


@pytest.mark.parametrize("alert", alert_rules(), ids=lambda a: a.alert)
def test_alert_follows_the_conventions(alert: Alert) -> None:
    assert NAME.match(alert.alert), "CamelCase with a Zfs/Disk/Ups/Zmon prefix"
    assert alert.severity in SEVERITIES
    assert "{{" not in alert.summary, "the summary is static"
    assert alert.summary.endswith(".") and alert.description.endswith(".")
    assert "{{" in alert.description, "the description is templated"
    site = SiteLinks("https://wiki.internal/zmon/RUNBOOK.md", "https://grafana.internal")
    assert alert.runbook_url(site) == f"{site.runbook_url}#{alert.alert.lower()}"
    assert alert.runbook_url(DEFAULT_LINKS) == f"{INSTALLED_RUNBOOK}#{alert.alert.lower()}"


@pytest.mark.parametrize("alert", alert_rules(), ids=lambda a: a.alert)
def test_alert_description_names_what_its_labels_carry(alert: Alert) -> None:
    text = alert.description
    if "pool" in alert.expr and "zmon_pool_" in alert.expr or "zmon_vdev_" in alert.expr:
        assert "$labels.pool" in text
    # these read vdev counters summed per pool
    pool_level = alert.alert in ("ZfsScrubFoundErrors", "ZfsPoolStuck", "ZfsPoolRedundancyLost")
    if ("zmon_vdev_" in alert.expr or "zmon_zfs_events_total" in alert.expr) and not pool_level:
        # the disk behind the vdev is looked up when the alert fires: not a label (finding 3)
        assert "$labels.vdev" in text and "zmon:vdev_device:info" in text
    disk_level = alert.alert not in VDEV_ALERTS  # a vdev alert may read its disk's link too
    if disk_level and ("zmon_disk_" in alert.expr or "zmon_kernel_log_events" in alert.expr):
        # the vdev a disk serves changes when it is replaced: looked up, not a label
        assert "$labels.device" in text and "$labels.pool" in text
        assert "zmon:vdev_device:info" in text
    if alert.alert != "ZmonTargetMissing":
        assert "$labels.instance" in text


def test_runbook_has_a_section_per_alert() -> None:
    headings = {
        h.strip().lower() for h in re.findall(r"^###\s+(\S+)\s*$", RUNBOOK.read_text(), re.M)
    }
    missing = [a.alert for a in alert_rules() if a.alert.lower() not in headings]
    assert not missing, f"RUNBOOK.md has no '### Name' section for {missing}"


def _source_names() -> str:
    texts = [p.read_text(errors="replace") for p in (REPO / "zmon").rglob("*.py")]
    return "\n".join(texts)


def test_every_metric_in_rules_and_dashboards_is_one_zmon_exports() -> None:
    """Hermetic cross-check: each name is written in zmon's source (the live test checks the
    demo's real output)."""
    source = _source_names()
    exprs = [*rule_exprs(), *panel_exprs()]
    names = set().union(*(metric_names(e.promql) for e in exprs))
    # Names a collector composes (f"{prefix}_io_latency_seconds") are found in the catalogue,
    # which tests/docs checks against the real output.
    catalogue = (REPO / "docs" / "metrics.md").read_text()
    unknown = sorted(
        n for n in names if f'"{family(n)}' not in source and f"| `{family(n)}` |" not in catalogue
    )
    assert not unknown, f"metrics no zmon module exports: {unknown}"


def test_device_joins_keep_alerts_for_disks_zmon_cannot_map() -> None:
    assert "or on(instance, job, device)" in with_pool(DEFAULTS, metric("x") > 0).promql()


VDEV_ALERTS = (
    "ZfsVdevChecksumErrors",
    "ZfsVdevIOErrors",
    "ZfsVdevFailing",
    "ZfsPoolErrorsNotCleared",
    "ZfsErrorEvents",
    "ZfsDeadmanEvents",
    "ZfsVdevFaulted",
    "ZfsSpareInUse",
)


@pytest.mark.parametrize("name", VDEV_ALERTS)
def test_vdev_alerts_are_identified_by_their_vdev_not_the_disk_behind_it(name: str) -> None:
    """A disk replaced or re-enumerated under a slot-named vdev changes the vdev's ``device``:
    as a label it would notify again (finding 3)."""
    alert = next(a for a in rules.alerts(DEFAULTS) if a.alert == name)
    assert alert.expr.startswith(
        ("max by (instance, job, pool, vdev", "sum by (instance, job, pool, vdev)")
    ), alert.expr
    assert "group_left(device)" not in alert.expr
    assert "$labels.device" not in alert.description


def test_the_cable_fault_names_the_vdev_its_disk_serves_for_the_inhibition() -> None:
    """Alertmanager mutes the same vdev's checksum and error alerts while the cable fault
    fires (equal: instance, pool, vdev), so the cause carries the vdev label too."""
    alert = next(a for a in rules.alerts(DEFAULTS) if a.alert == "DiskCableFault")
    assert "group_right() zmon:disk_vdev:info" in alert.expr


def test_every_alert_links_its_dashboard_where_the_site_has_a_grafana() -> None:
    site = SiteLinks(grafana_url="https://grafana.internal")
    for alert in rules.alerts(DEFAULTS):
        url = alert.dashboard_url(site)
        assert url is not None and url.startswith("https://grafana.internal/d/zmon-")
        assert "var-instance=" in url
        assert alert.dashboard_url(DEFAULT_LINKS) is None  # no Grafana address: no link


def test_durations_scale_for_the_compressed_timeline() -> None:
    assert Duration("35d").seconds == 35 * 86400
    assert Duration("1h30m").seconds == 5400
    assert str(Duration("10m").scaled(1 / 30, minimum=2)) == "20s"
    assert str(Duration("1m").scaled(0.001, minimum=2)) == "2s"
    assert format_seconds(7200) == "2h"
    scaled = DEFAULTS.scaled(0.5)
    assert scaled.capacity_warning_on == DEFAULTS.capacity_warning_on
    assert scaled.error_window.seconds == DEFAULTS.error_window.seconds // 2
    with pytest.raises(ValueError):
        Duration("ten minutes")


def test_scaled_rendering_is_marked_and_production_file_is_not() -> None:
    assert "TEST RENDERING" in generate.render(scale=0.1)
    assert "TEST RENDERING" not in generate.RULES_FILE.read_text()
    assert generate.main(["--scale", "0.1"]) == 2  # never overwrites the committed file
