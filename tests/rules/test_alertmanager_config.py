"""The shipped Alertmanager configuration: valid for amtool, routes by severity, groups and
inhibits as documented - checked on Debian's real Alertmanager with alerts posted to its API."""

from __future__ import annotations

import json
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import require_tool
from tests.rules.stack import REPO, Process, Webhook, http_get
from tests.support.ports import free_port
from zmon.health.inhibitions import INHIBITIONS

pytestmark = pytest.mark.real

CONFIG = REPO / "packaging" / "alertmanager" / "zmon.yml"
DEADLINE = 60.0  # seconds for Alertmanager to act on posted alerts (it needs about 2)


def _amtool() -> str:
    return require_tool("amtool", "Debian package prometheus-alertmanager")


def test_amtool_check_config_accepts_the_shipped_configuration() -> None:
    run = subprocess.run([_amtool(), "check-config", str(CONFIG)], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"{len(INHIBITIONS)} inhibit rules" in run.stdout


@pytest.mark.parametrize(
    ("labels", "receiver"),
    [
        (
            {"alertname": "ZfsPoolStuck", "severity": "critical", "instance": "h1", "pool": "tank"},
            "page",
        ),
        (
            {
                "alertname": "ZfsPoolDegraded",
                "severity": "warning",
                "instance": "h1",
                "pool": "tank",
            },
            "ticket",
        ),
        ({"alertname": "ZfsArcGhostHitsHigh", "severity": "info", "instance": "h1"}, "ticket"),
        (
            {"alertname": "UpsLowBattery", "severity": "critical", "ups": "ups", "server": "nut"},
            "page",
        ),
        (
            {"alertname": "UpsOnBattery", "severity": "critical", "ups": "ups", "server": "nut"},
            "page",
        ),
        (
            {
                "alertname": "ZfsPoolDataErrors",
                "severity": "critical",
                "instance": "h1",
                "pool": "t",
            },
            "page,ticket",
        ),
    ],
)
def test_critical_pages_and_warnings_become_tickets(labels: dict[str, str], receiver: str) -> None:
    args = [f"{k}={v}" for k, v in labels.items()]
    run = subprocess.run(
        [
            _amtool(),
            "config",
            "routes",
            "test",
            f"--config.file={CONFIG}",
            f"--verify.receivers={receiver}",
            *args,
        ],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr


def _alertmanager_binary() -> str:
    import shutil

    found = shutil.which("prometheus-alertmanager") or shutil.which("alertmanager")
    return found or require_tool("prometheus-alertmanager", "Debian package of that name")


@pytest.fixture(scope="module")
def alertmanager(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Webhook]]:
    """The shipped configuration, receivers pointed at a recording webhook, waits shortened."""
    binary = _alertmanager_binary()
    tmp = tmp_path_factory.mktemp("am-config")
    webhook = Webhook()
    text = CONFIG.read_text().replace("http://127.0.0.1:9095/", webhook.url)
    text = text.replace("group_wait: 30s", "group_wait: 2s")
    cfg = tmp / "alertmanager.yml"
    cfg.write_text(text)
    address = f"127.0.0.1:{free_port()}"
    proc = Process(
        [
            binary,
            f"--config.file={cfg}",
            f"--storage.path={tmp / 'data'}",
            f"--web.listen-address={address}",
            "--cluster.listen-address=",
            "--log.level=warn",
        ],
        tmp / "alertmanager.log",
    )
    try:
        proc.wait_http(f"http://{address}/-/ready")
        yield address, webhook
    finally:
        proc.stop()
        webhook.stop()


def _post(address: str, alerts: list[dict[str, str]]) -> None:
    body = json.dumps([{"labels": a, "annotations": {"summary": "test"}} for a in alerts])
    req = urllib.request.Request(
        f"http://{address}/api/v2/alerts",
        data=body.encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=10) as r:
        assert r.status == 200


def _state(address: str) -> dict[str, dict[str, Any]]:
    alerts = json.loads(http_get(f"http://{address}/api/v2/alerts"))
    return {
        a["labels"]["alertname"] + "/" + a["labels"].get("instance", ""): a["status"]
        for a in alerts
    }


def test_a_stuck_pool_inhibits_its_vdev_disk_and_collector_alerts_and_pages_once(
    alertmanager: tuple[str, Webhook],
) -> None:
    address, webhook = alertmanager
    host = {"instance": "stuck:9", "job": "zmon"}
    _post(
        address,
        [
            {**host, "alertname": "ZfsPoolStuck", "severity": "critical", "pool": "tank"},
            {
                **host,
                "alertname": "ZfsVdevChecksumErrors",
                "severity": "warning",
                "pool": "tank",
                "vdev": "sdb",
            },
            {
                **host,
                "alertname": "DiskLinkFailing",
                "severity": "critical",
                "pool": "tank",
                "vdev": "sdb",
                "device": "sdb",
            },
            {
                **host,
                "alertname": "ZmonCollectorDataStale",
                "severity": "warning",
                "collector": "zpool",
            },
        ],
    )
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        state = _state(address)
        muted = [k for k, s in state.items() if k.endswith("/stuck:9") and s["inhibitedBy"]]
        if len(muted) == 3 and any(n["receiver"] == "page" for n in webhook.notifications):
            break
        time.sleep(0.5)
    state = _state(address)
    assert not state["ZfsPoolStuck/stuck:9"]["inhibitedBy"]
    for name in ("ZfsVdevChecksumErrors", "DiskLinkFailing", "ZmonCollectorDataStale"):
        assert state[f"{name}/stuck:9"]["inhibitedBy"], f"{name} is not inhibited"
    pages = [
        n
        for n in webhook.notifications
        if n["receiver"] == "page" and n["groupLabels"].get("instance") == "stuck:9"
    ]
    assert len(pages) == 1, pages
    assert [a["labels"]["alertname"] for a in pages[0]["alerts"]] == ["ZfsPoolStuck"]


def test_hosts_sharing_a_ups_get_one_notification(alertmanager: tuple[str, Webhook]) -> None:
    address, webhook = alertmanager
    ups = {
        "alertname": "UpsOnBattery",
        "severity": "critical",
        "job": "zmon",
        "ups": "rack1",
        "server": "nut.example:3493",
    }
    _post(address, [{**ups, "instance": f"host{i}:9"} for i in range(3)])
    deadline = time.monotonic() + DEADLINE

    def ups_notifications() -> list[dict[str, Any]]:
        return [n for n in webhook.notifications if n["groupLabels"].get("ups") == "rack1"]

    while time.monotonic() < deadline and not ups_notifications():
        time.sleep(0.5)
    found = ups_notifications()
    assert len(found) == 1, found
    assert found[0]["groupLabels"] == {"ups": "rack1", "server": "nut.example:3493"}
    assert len(found[0]["alerts"]) == 3


def _incident(
    alertmanager: tuple[str, Webhook], instance: str, alerts: list[dict[str, str]], muted: int
) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]]]:
    """Post one host's alerts; once ``muted`` of them are inhibited and a notification came,
    the host's alert states (by alert name and vdev or device) and its notifications."""
    address, webhook = alertmanager
    host = {"instance": instance, "job": "zmon"}
    _post(address, [{**host, **a} for a in alerts])

    def mine() -> list[dict[str, Any]]:
        return [n for n in webhook.notifications if n["groupLabels"].get("instance") == instance]

    def states() -> dict[str, dict[str, Any]]:
        found = json.loads(http_get(f"http://{address}/api/v2/alerts"))
        return {
            a["labels"]["alertname"]
            + "/"
            + a["labels"].get("vdev", a["labels"].get("device", "")): (a["status"])
            for a in found
            if a["labels"].get("instance") == instance
        }

    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        done = sum(1 for s in states().values() if s["inhibitedBy"]) >= muted
        if done and mine():
            break
        time.sleep(0.5)
    return states(), mine()


def _names(notifications: list[dict[str, Any]], receiver: str) -> list[list[str]]:
    return [
        sorted(a["labels"]["alertname"] for a in n["alerts"])
        for n in notifications
        if n["receiver"] == receiver
    ]


DISK = {"pool": "tank", "vdev": "ata-X", "device": "sdb"}
VDEV = {"pool": "tank", "vdev": "ata-X"}


CABLE_SYMPTOMS = [
    {"alertname": "ZfsVdevChecksumErrors", "severity": "warning", **VDEV},
    {"alertname": "ZfsErrorEvents", "severity": "warning", **VDEV},
    {"alertname": "ZfsPoolErrorsNotCleared", "severity": "warning", **VDEV},
    {"alertname": "DiskLinkSpeedDegraded", "severity": "warning", "pool": "tank", "device": "sdb"},
    # another disk of the same pool: not the cable's symptom
    {"alertname": "ZfsVdevChecksumErrors", "severity": "warning", "pool": "tank", "vdev": "ata-Y"},
]
MUTED_BY_THE_CABLE = (
    "ZfsVdevChecksumErrors/ata-X",
    "ZfsErrorEvents/ata-X",
    "ZfsPoolErrorsNotCleared/ata-X",
    "DiskLinkSpeedDegraded/sdb",
)


def test_a_cable_ticket_mutes_its_disks_checksum_event_and_link_speed_alerts(
    alertmanager: tuple[str, Webhook],
) -> None:
    state, notes = _incident(
        alertmanager,
        "cable:9",
        [{"alertname": "DiskCableFault", "severity": "warning", **DISK}, *CABLE_SYMPTOMS],
        muted=4,
    )
    assert not state["DiskCableFault/ata-X"]["inhibitedBy"]
    assert not state["ZfsVdevChecksumErrors/ata-Y"]["inhibitedBy"]
    for name in MUTED_BY_THE_CABLE:
        assert state[name]["inhibitedBy"], f"{name} is not inhibited"
    assert _names(notes, "page") == []
    assert _names(notes, "ticket") == [["DiskCableFault", "ZfsVdevChecksumErrors"]]


def test_a_cable_page_mutes_the_cable_ticket_and_its_symptoms(
    alertmanager: tuple[str, Webhook],
) -> None:
    state, notes = _incident(
        alertmanager,
        "cablepage:9",
        [
            {"alertname": "DiskLinkFailing", "severity": "critical", **DISK},
            {"alertname": "DiskCableFault", "severity": "warning", **DISK},
            *CABLE_SYMPTOMS,
        ],
        muted=5,
    )
    assert not state["DiskLinkFailing/ata-X"]["inhibitedBy"]
    assert state["DiskCableFault/ata-X"]["inhibitedBy"]
    for name in MUTED_BY_THE_CABLE:
        assert state[name]["inhibitedBy"], f"{name} is not inhibited"
    assert _names(notes, "page") == [["DiskLinkFailing"]]
    assert _names(notes, "ticket") == [["ZfsVdevChecksumErrors"]]


def test_a_sas_expander_mutes_the_cable_tickets_of_its_disks_not_their_pages(
    alertmanager: tuple[str, Webhook],
) -> None:
    behind = {"sas_parent": "expander-0:0"}
    state, notes = _incident(
        alertmanager,
        "expander:9",
        [
            {"alertname": "DiskSasExpanderLinkErrors", "severity": "warning", **behind},
            {"alertname": "DiskCableFault", "severity": "warning", **DISK, **behind},
            {
                "alertname": "DiskCableFault",
                "severity": "warning",
                "pool": "tank",
                "vdev": "ata-Y",
                "device": "sdc",
                **behind,
            },
            # a disk behind another expander, and a page that cannot wait
            {
                "alertname": "DiskCableFault",
                "severity": "warning",
                "pool": "tank",
                "vdev": "ata-Z",
                "device": "sdx",
                "sas_parent": "expander-0:1",
            },
            {
                "alertname": "DiskLinkFailing",
                "severity": "critical",
                "pool": "tank",
                "vdev": "ata-W",
                "device": "sdd",
            },
        ],  # fmt: skip
        muted=2,
    )
    assert not state["DiskSasExpanderLinkErrors/"]["inhibitedBy"]
    assert state["DiskCableFault/ata-X"]["inhibitedBy"]
    assert state["DiskCableFault/ata-Y"]["inhibitedBy"]
    assert not state["DiskCableFault/ata-Z"]["inhibitedBy"]
    assert not state["DiskLinkFailing/ata-W"]["inhibitedBy"]
    assert notes


def test_a_failing_path_pages_once_and_mutes_the_cable_page(
    alertmanager: tuple[str, Webhook],
) -> None:
    state, notes = _incident(
        alertmanager,
        "failing:9",
        [
            {"alertname": "ZfsVdevFailing", "severity": "critical", **VDEV},
            {"alertname": "DiskLinkFailing", "severity": "critical", **DISK},
            {"alertname": "DiskCableFault", "severity": "warning", **DISK},
            {"alertname": "ZfsVdevIOErrors", "severity": "warning", **VDEV},
            {
                "alertname": "DiskLinkSpeedDegraded",
                "severity": "warning",
                "pool": "tank",
                "device": "sdb",
            },
        ],  # fmt: skip
        muted=4,
    )
    # the muted cable alerts still mute the slow link they cause
    assert state["DiskLinkSpeedDegraded/sdb"]["inhibitedBy"]
    assert state["DiskCableFault/ata-X"]["inhibitedBy"]
    assert state["DiskLinkFailing/ata-X"]["inhibitedBy"]
    assert notes and _names(notes, "page") == [["ZfsVdevFailing"]]
    assert _names(notes, "ticket") == []


def test_a_pool_without_redundancy_pages_once_and_mutes_its_tickets(
    alertmanager: tuple[str, Webhook],
) -> None:
    state, notes = _incident(
        alertmanager,
        "mirror:9",
        [
            {"alertname": "ZfsPoolRedundancyLost", "severity": "critical", "pool": "tank"},
            {"alertname": "ZfsPoolDegraded", "severity": "warning", "pool": "tank"},
            {"alertname": "ZfsVdevFaulted", "severity": "warning", "state": "faulted", **VDEV},
        ],
        muted=2,
    )
    assert _names(notes, "page") == [["ZfsPoolRedundancyLost"]]
    assert _names(notes, "ticket") == []


def test_a_dead_host_mutes_everything_else_on_it(alertmanager: tuple[str, Webhook]) -> None:
    state, notes = _incident(
        alertmanager,
        "dead:9",
        [
            {"alertname": "ZmonTargetDown", "severity": "critical"},
            {"alertname": "ZfsPoolDataErrors", "severity": "critical", "pool": "tank"},
            {"alertname": "ZmonCollectorDataStale", "severity": "warning", "collector": "smart"},
        ],
        muted=2,
    )
    assert not state["ZmonTargetDown/"]["inhibitedBy"]
    assert _names(notes, "page") == [["ZmonTargetDown"]]
    assert _names(notes, "ticket") == []


def test_the_configuration_is_shipped_where_the_readme_says() -> None:
    readme = (REPO / "README.md").read_text()
    assert "packaging/alertmanager/zmon.yml" in readme
    assert Path(CONFIG).is_file()
    assert not (REPO / "packaging" / "alertmanager.yml").exists(), "one configuration only"
