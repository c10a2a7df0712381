"""A fleet end to end: six zmon hosts, a Prometheus HA pair, a clustered Alertmanager pair.

Each zmon host serves one story of the demo (real captures) on its own loopback address
(127.0.13.N): healthy; checksum errors, then the disk replaced; degraded, then resilvering;
zpool hung on a suspended pool; and two healthy hosts that read one real NUT server (upsd +
dummy-ups), whose UPS goes on battery. Two Debian Prometheus replicas (external label
``replica``, dropped for Alertmanager) scrape every host through ``file_sd`` and evaluate the
shipped rules on a compressed timeline (durations x 1/30); two Debian Alertmanagers, clustered
on loopback, run the shipped configuration with its receivers pointed at a webhook that
records every notification. One Prometheus replica is killed after the first page, one
Alertmanager after the stuck pool's page. Every wait is on an observable condition, bounded.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from alert_rules import generate
from tests.helpers import IN_CI, require_tool
from tests.rules.stack import REPO, Process, Webhook, http_get
from tests.ups.nutlab import NutLab

pytestmark = [pytest.mark.real, pytest.mark.slow]

SCALE = 1 / 30
UNIT = 5.0  # seconds per demo phase unit
DEADLINE = 240.0  # seconds any one awaited notification may take, however loaded the machine
QUIET = 12.0  # seconds without a new notification that end the run (> 2 group intervals)
UPS_BASE = {"device.mfr": "Acme Power", "device.model": "Lab-1500", "device.serial": "LAB0001",
            "battery.charge.low": "20", "battery.runtime.low": "120", "ups.load": "012.0",
            "ups.status": "OL", "battery.charge": "100", "battery.runtime": "3600",
            "input.voltage": "0230.0"}  # fmt: skip
UPS_ON_BATTERY = {"ups.status": "OB DISCHRG", "battery.charge": "80", "input.voltage": "0.0"}
HOSTS = {  # name: (loopback address, demo story, reads the shared UPS)
    "healthy": ("127.0.13.1", "healthy", False),
    "bitrot": ("127.0.13.2", "checksum-then-replaced", False),
    "degraded": ("127.0.13.3", "degraded-then-resilvering", False),
    "hung": ("127.0.13.4", "suspended", False),
    "ups-a": ("127.0.13.5", "healthy", True),
    "ups-b": ("127.0.13.6", "healthy", True),
}


def _port_on(address: str) -> int:
    import socket

    with socket.socket() as s:
        s.bind((address, 0))
        return int(s.getsockname()[1])


def _alertmanager_binary() -> str:
    found = shutil.which("prometheus-alertmanager") or shutil.which("alertmanager")
    return found or require_tool("prometheus-alertmanager", "Debian package of that name")


@dataclass
class Fleet:
    tmp: Path
    webhook: Webhook
    ups: NutLab
    started_at: float = field(default_factory=time.monotonic)
    hosts: dict[str, str] = field(default_factory=dict)  # name -> instance (host:port)
    prometheus: list[Process] = field(default_factory=list)
    alertmanagers: list[Process] = field(default_factory=list)
    zmon: list[Process] = field(default_factory=list)

    def host_of(self, instance: str) -> str:
        return next((n for n, i in self.hosts.items() if i == instance), instance)

    def stop(self) -> None:
        for proc in [*self.zmon, *self.prometheus, *self.alertmanagers]:
            proc.stop()


def _zmon_config(path: Path, ups_server: str | None) -> None:
    from zmon.registry import collectors

    lines = []
    for name, cls in sorted(collectors().items()):
        timeout = min(float(cls.default_timeout), 3.0)
        lines += [f"[collectors.{name}]", "interval = 1.0", f"timeout = {timeout}"]
        if name == "ups":
            lines += [f'nut = ["{ups_server}"]'] if ups_server else ["enabled = false"]
        lines.append("")
    path.write_text("\n".join(lines))


def _start_zmon(fleet: Fleet, name: str, address: str, story: str, ups: bool) -> None:
    listen = f"{address}:{_port_on(address)}"
    cfg = fleet.tmp / f"zmon-{name}.toml"
    _zmon_config(cfg, fleet.ups.address if ups else None)
    import sys

    proc = Process([sys.executable, "-m", "zmon.cli", "serve", "--demo", "--demo.story", story,
                    "--demo.phase-seconds", str(UNIT), "--config", str(cfg),
                    "--web.listen-address", listen, "--log.format", "json"],
                   fleet.tmp / f"zmon-{name}.log", cwd=REPO)  # fmt: skip
    fleet.zmon.append(proc)
    proc.wait_http(f"http://{listen}/healthz")
    fleet.hosts[name] = listen


def _start_alertmanagers(fleet: Fleet) -> list[str]:
    binary = _alertmanager_binary()
    shipped = (REPO / "packaging" / "alertmanager" / "zmon.yml").read_text()
    text = shipped.replace("http://127.0.0.1:9095/", fleet.webhook.url)
    text = text.replace("group_wait: 30s", "group_wait: 5s").replace("group_interval: 5m",
                                                                      "group_interval: 5s")
    cfg = fleet.tmp / "alertmanager.yml"
    cfg.write_text(text)
    web = [f"127.0.0.1:{_port_on('127.0.0.1')}" for _ in range(2)]
    gossip = [f"127.0.0.1:{_port_on('127.0.0.1')}" for _ in range(2)]
    for i in range(2):
        proc = Process([binary, f"--config.file={cfg}", f"--storage.path={fleet.tmp / f'am{i}'}",
                        f"--web.listen-address={web[i]}",
                        f"--cluster.listen-address={gossip[i]}",
                        f"--cluster.advertise-address={gossip[i]}",
                        f"--cluster.peer={gossip[1 - i]}", "--cluster.peer-timeout=3s",
                        "--cluster.gossip-interval=100ms", "--cluster.pushpull-interval=2s",
                        "--cluster.settle-timeout=5s", "--log.level=warn"],
                       fleet.tmp / f"alertmanager{i}.log")  # fmt: skip
        fleet.alertmanagers.append(proc)
    for i, proc in enumerate(fleet.alertmanagers):
        proc.wait_http(f"http://{web[i]}/-/ready", timeout=60)
    _wait(lambda: all(_cluster_size(w) == 2 for w in web), "the Alertmanager cluster forms")
    return web


def _cluster_size(web: str) -> int:
    status = json.loads(http_get(f"http://{web}/api/v2/status"))
    return len(status.get("cluster", {}).get("peers") or [])


def _start_prometheus(fleet: Fleet, replica: str, alertmanagers: list[str]) -> str:
    binary = require_tool("prometheus", "Debian package prometheus")
    targets = fleet.tmp / "zmon-targets.json"
    rules = fleet.tmp / "zmon.fast.rules.yml"
    config = {
        "global": {"scrape_interval": "1s", "scrape_timeout": "1s",
                   "evaluation_interval": "1s", "external_labels": {"replica": replica}},
        "rule_files": [str(rules)],
        "scrape_configs": [{"job_name": "zmon",
                            "file_sd_configs": [{"files": [str(targets)],
                                                 "refresh_interval": "1s"}]}],
        "alerting": {
            "alert_relabel_configs": [{"action": "labeldrop", "regex": "replica"}],
            "alertmanagers": [{"static_configs": [{"targets": alertmanagers}]}],
        },
    }  # fmt: skip
    cfg = fleet.tmp / f"prometheus-{replica}.yml"
    cfg.write_text(json.dumps(config, indent=2))
    address = f"127.0.0.1:{_port_on('127.0.0.1')}"
    proc = Process([binary, f"--config.file={cfg}", f"--storage.tsdb.path={fleet.tmp / replica}",
                    f"--web.listen-address={address}", "--rules.alert.resend-delay=1s",
                    "--log.level=warn"], fleet.tmp / f"prometheus-{replica}.log")  # fmt: skip
    fleet.prometheus.append(proc)
    proc.wait_http(f"http://{address}/-/ready", timeout=60)
    return address


def _wait(check: Callable[[], bool], what: str, timeout: float = DEADLINE) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.5)
    raise AssertionError(f"not within {timeout:.0f}s: {what}")


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fleet]:
    if os.geteuid() != 0:
        msg = "REAL-TIER TEST NOT RUN: the fleet's NUT server (upsd, dummy-ups) runs as root"
        if IN_CI:
            pytest.fail(msg)
        pytest.skip(msg)
    tmp = tmp_path_factory.mktemp("fleet")
    webhook = Webhook()
    ups = NutLab(tmp / "nut", {"rack": UPS_BASE})
    fleet = Fleet(tmp, webhook, ups)
    try:
        ups.start()
        (tmp / "zmon.fast.rules.yml").write_text(generate.render(scale=SCALE))
        # zmon's addresses first, so that file_sd names every host before Prometheus starts.
        plan = {name: (addr, story, shared) for name, (addr, story, shared) in HOSTS.items()}
        alertmanagers = _start_alertmanagers(fleet)
        listen = {}
        for name, (addr, _, _) in plan.items():
            listen[name] = f"{addr}:{_port_on(addr)}"
        (tmp / "zmon-targets.json").write_text(json.dumps([{"targets": []}]))
        for replica in ("a", "b"):
            _start_prometheus(fleet, replica, alertmanagers)
        for name, (addr, story, shared) in plan.items():
            _start_zmon(fleet, name, addr, story, shared)
        targets = [{"targets": list(fleet.hosts.values()), "labels": {"site": "lab"}}]
        (tmp / "zmon-targets.json").write_text(json.dumps(targets))
        fleet.started_at = time.monotonic()
        yield fleet
    finally:
        fleet.stop()
        ups.close()
        webhook.stop()


def _firing(n: dict[str, Any]) -> list[dict[str, Any]]:
    return [a for a in n.get("alerts", []) if a["status"] == "firing"]


def _notified(fleet: Fleet, alertname: str, host: str, receiver: str | None = None) -> bool:
    instance = fleet.hosts[host]
    return any(a["labels"].get("alertname") == alertname
               and a["labels"].get("instance") == instance
               and (receiver is None or n["receiver"] == receiver)
               for n in list(fleet.webhook.notifications) for a in _firing(n))  # fmt: skip


def _quiet(fleet: Fleet) -> None:
    """Wait until no notification arrived for QUIET seconds (bounded)."""
    deadline = time.monotonic() + DEADLINE
    count, since = len(fleet.webhook.notifications), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.5)
        now = len(fleet.webhook.notifications)
        if now != count:
            count, since = now, time.monotonic()
        elif time.monotonic() - since >= QUIET:
            return
    raise AssertionError("notifications never settled")


def _table(fleet: Fleet, log: list[tuple[float, dict[str, Any]]]) -> str:
    rows = [("t (s)", "receiver", "status", "group", "alerts")]
    for at, n in log:
        group = ",".join(f"{k}={fleet.host_of(v)}" for k, v in sorted(n["groupLabels"].items()))
        alerts = "; ".join(
            f"{a['labels']['alertname']}"
            + ("" if a["status"] == n["status"] else f"({a['status']})")
            + "{" + ",".join(f"{k}={fleet.host_of(v)}" for k, v in sorted(a["labels"].items())
                             if k in ("instance", "pool", "vdev", "device", "ups")) + "}"
            for a in n["alerts"])  # fmt: skip
        rows.append((f"{at:6.1f}", n["receiver"], n["status"], group, alerts))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r[:4], widths, strict=True)) + "  "
                     + r[4] for r in rows)  # fmt: skip


def test_fleet_pages_once_per_incident_through_failures(fleet: Fleet) -> None:
    hook = fleet.webhook
    arrivals: list[float] = []
    original = hook.notifications

    class Stamped(list):  # type: ignore[type-arg]
        def append(self, item: Any) -> None:
            arrivals.append(time.monotonic() - fleet.started_at)
            super().append(item)

    hook.notifications = Stamped(original)
    arrivals.extend([0.0] * len(original))

    # 1. The first burst of checksum errors pages; its events and the cable fault ticket.
    _wait(lambda: _notified(fleet, "ZfsVdevChecksumErrors", "bitrot", "page"),
          "the checksum burst on bitrot pages")
    # 2. One Prometheus replica dies: the other keeps evaluating and sending.
    fleet.prometheus[0].proc.send_signal(signal.SIGKILL)
    fleet.prometheus[0].proc.wait(30)
    # 3. The hung host pages critical, from sources that do not hang with zpool.
    _wait(lambda: _notified(fleet, "ZfsPoolStuck", "hung", "page"), "the stuck pool pages")
    # 4. One Alertmanager dies: its peer has the notification log and carries on.
    fleet.alertmanagers[0].proc.send_signal(signal.SIGKILL)
    fleet.alertmanagers[0].proc.wait(30)
    # 5. A power cut on the UPS two hosts read.
    fleet.ups.write_dev("rack", {**UPS_BASE, **UPS_ON_BATTERY})
    _wait(lambda: _notified(fleet, "UpsOnBattery", "ups-a") and
          _notified(fleet, "UpsOnBattery", "ups-b"), "the power cut is notified")
    for name, host in (("ZfsErrorEvents", "bitrot"), ("DiskCableFault", "bitrot"),
                       ("ZfsPoolDegraded", "degraded")):  # fmt: skip
        _wait(lambda n=name, h=host: _notified(fleet, n, h), f"{name} on {host}")
    _quiet(fleet)

    log = list(zip(arrivals, hook.notifications, strict=True))
    print("\nnotification log (t: seconds since the hosts started)\n" + _table(fleet, log))
    notes = [n for _, n in log]
    assert fleet.prometheus[0].proc.poll() is not None and fleet.alertmanagers[0].proc.poll()

    # No notification twice (two replicas, two Alertmanagers, one of each killed).
    keys = [(n["receiver"], n["groupKey"], n["status"],
             tuple(sorted((a["fingerprint"], a["status"], a["startsAt"]) for a in n["alerts"])))
            for n in notes]  # fmt: skip
    assert len(keys) == len(set(keys)), "a notification was delivered twice"
    # Each incident is one alert that fired once: one start, one label set.
    firing = [(n, a) for n in notes for a in _firing(n)]

    def starts(alertname: str, host: str) -> set[str]:
        return {a["startsAt"] for _, a in firing if a["labels"]["alertname"] == alertname
                and a["labels"].get("instance") == fleet.hosts[host]}  # fmt: skip

    for name, host in (("ZfsVdevChecksumErrors", "bitrot"), ("DiskCableFault", "bitrot"),
                       ("ZfsErrorEvents", "bitrot"), ("ZfsPoolStuck", "hung"),
                       ("ZfsPoolDegraded", "degraded")):  # fmt: skip
        assert len(starts(name, host)) == 1, f"{name} on {host} fired more than once"
    cable = {tuple(sorted(a["labels"].items())) for _, a in firing
             if a["labels"]["alertname"] == "DiskCableFault"}  # fmt: skip
    assert len(cable) == 1, f"the replaced disk was paged again under new labels: {cable}"
    # Pages: the first burst and the stuck pool, critical, naming the pool.
    pages = {(a["labels"]["alertname"], fleet.host_of(a["labels"]["instance"]),
              a["labels"].get("pool")) for n, a in firing if n["receiver"] == "page"}  # fmt: skip
    assert ("ZfsVdevChecksumErrors", "bitrot", "tank") in pages
    assert ("ZfsPoolStuck", "hung", "tank") in pages
    stuck = next(a for _, a in firing if a["labels"]["alertname"] == "ZfsPoolStuck")
    assert "kstat state SUSPENDED" in stuck["annotations"]["description"]
    # The hung host's collector alerts are inhibited by the stuck pool.
    hung = {a["labels"]["alertname"] for _, a in firing
            if a["labels"].get("instance") == fleet.hosts["hung"]}  # fmt: skip
    assert not hung & {"ZmonCollectorFailing", "ZmonCollectorDataStale"}, hung
    # The shared UPS: one notification for both hosts.
    ups = [n for n in notes if n["groupLabels"].get("ups") == "rack" and n["status"] == "firing"]
    assert len(ups) == 1, f"{len(ups)} notifications for one power cut"
    assert {a["labels"]["instance"] for a in ups[0]["alerts"]} == {
        fleet.hosts["ups-a"], fleet.hosts["ups-b"]}  # fmt: skip
    # Healthy hosts: nothing.
    for _, a in firing:
        assert a["labels"].get("instance") != fleet.hosts["healthy"], a["labels"]
