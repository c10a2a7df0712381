"""The distributed stack of the fleet tests: zmon hosts on their own loopback addresses, a
Prometheus HA pair, an Alertmanager cluster running the shipped configuration, one NUT server
and a webhook receiver that logs every notification: the parts, then ``FleetStack``, which
starts, drives and stops them for a test module.

Each process runs in its own session and logs to a file in the test's temporary directory
(``Process`` of tests/rules/stack.py), and is stopped with whatever it started; nothing
listens beyond 127.0.0.0/8.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import shutil
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import yaml

from alert_rules import generate
from tests.collectors.ups.nutlab import NutLab
from tests.helpers import require_tool
from tests.rules import stack
from tests.rules.stack import REPO, Process, Prometheus, SteppedDemo, _unix, free_port, http_get
from zmon.demo.upsd import base_variables
from zmon.health.thresholds import DEFAULTS, Duration

SHIPPED_CONFIG = REPO / "packaging" / "alertmanager" / "zmon.yml"
TIMING_KEYS = ("group_wait", "group_interval", "repeat_interval")
WAIT = 300.0  # seconds any one condition may take before the test gives up on it


def wait_until(check: Callable[[], str], what: str, timeout: float = WAIT) -> None:
    """Poll ``check`` (an empty string when the condition holds, else why not) until it holds.

    A request that times out or is refused counts as "not yet": on a loaded machine Prometheus
    or Alertmanager may take longer than one request's timeout to answer."""
    deadline = time.monotonic() + timeout
    why = ""
    while time.monotonic() < deadline:
        try:
            why = check()
        except OSError as exc:
            why = f"no answer: {exc!r}"
        if not why:
            return
        time.sleep(0.2)
    raise AssertionError(f"{what}: not after {timeout:g}s: {why}")


def kill(proc: Process) -> None:
    """SIGKILL a process of the stack (its whole session): no orderly shutdown."""
    if proc.proc.poll() is None:
        os.killpg(proc.proc.pid, signal.SIGKILL)
    proc.proc.wait(timeout=30)


# ---- hosts


class Host(SteppedDemo):
    """One zmon host of the fleet: a stepped demo replaying ``story`` on its own address."""

    def __init__(self, tmp: Path, name: str, address: str, story: str, args: Sequence[str] = ()):
        self.name = name
        self.story = story
        root = tmp / name
        root.mkdir()
        super().__init__(root, host=address, args=["--demo.story", story, *args])

    def request(self, command: str) -> str:
        """A control request (``step``, ``collect [NAME ...]``); returns once zmon serves what
        it brought, with the phase the host is in."""
        return self._settle(self.control.request(command))


# ---- Prometheus HA pair


class Replica(Prometheus):
    """One Prometheus of an HA pair: scrapes every host each second, evaluates the rules each
    second, labels its data ``replica=<name>`` and drops that label from the alerts it sends
    to every Alertmanager, so that both replicas' copies of an alert are one alert there.

    Alerts are sent when they start firing and when they resolve, never re-sent during the
    test (``--rules.alert.resend-delay=1h``; see the test's docstring for why)."""

    def __init__(
        self,
        binary: str,
        tmp: Path,
        name: str,
        targets: Sequence[str],
        rule_files: Sequence[Path],
        alertmanagers: Sequence[str],
    ) -> None:
        self.name = name
        self.address = f"127.0.0.1:{free_port()}"
        self.url = f"http://{self.address}"
        self.alive = True
        config = {
            "global": {
                "scrape_interval": "1s",
                "scrape_timeout": "1s",
                "evaluation_interval": "1s",
                "external_labels": {"replica": name},
            },
            "rule_files": [str(p) for p in rule_files],
            "scrape_configs": [
                {"job_name": "zmon", "static_configs": [{"targets": list(targets)}]}
            ],
            "alerting": {
                "alert_relabel_configs": [{"action": "labeldrop", "regex": "replica"}],
                "alertmanagers": [{"static_configs": [{"targets": list(alertmanagers)}]}],
            },
        }
        root = tmp / f"prometheus-{name}"
        root.mkdir()
        cfg = root / "prometheus.yml"
        cfg.write_text(json.dumps(config, indent=2))  # JSON is YAML
        self.proc = Process(
            [
                binary,
                f"--config.file={cfg}",
                f"--storage.tsdb.path={root / 'data'}",
                f"--web.listen-address={self.address}",
                "--rules.alert.resend-delay=1h",
                "--log.level=warn",
            ],
            root / "prometheus.log",
        )
        self.proc.wait_http(f"{self.url}/-/ready")

    def kill(self) -> None:
        kill(self.proc)
        self.alive = False

    def scraped(self, hosts: Iterable[Host], since: dict[str, set[float]], scrapes: int) -> str:
        """Why this replica does not hold every host's current phase in ``scrapes`` scrapes
        yet ("" once it does); ``since`` collects the scrape times seen, per host."""
        runs: dict[tuple[str, str], float] = {
            (r["metric"]["instance"], r["metric"]["collector"]): float(r["value"][1])
            for r in self.query("sum by (instance, collector) (zmon_collector_runs_total)")
        }
        behind = []
        for host in hosts:
            if any(runs.get((host.address, c), -1) < n for c, n in host.runs.items()):
                behind.append(f"{host.name}: not the current phase")
                continue
            stamps = self.query(f'timestamp(up{{job="zmon", instance="{host.address}"}})')
            since.setdefault(host.name, set()).update(float(r["value"][0]) for r in stamps)
            if len(since[host.name]) < scrapes:
                behind.append(f"{host.name}: {len(since[host.name])} scrapes")
        return f"replica {self.name}: {', '.join(behind)}" if behind else ""

    def verdict(self, after: float, max_for: float) -> tuple[str, list[dict[str, str]]]:
        """Why the rules have not reached their verdict on data scraped by ``after`` ("" once
        they have: evaluated since, no alert whose ``for`` is at most ``max_for`` pending),
        and the label sets of the alerts firing now."""
        groups = self.api("rules", type="alert")["groups"]
        late = [g["name"] for g in groups if _unix(g["lastEvaluation"]) <= after]
        pending = sorted(
            {
                r["name"]
                for g in groups
                for r in g["rules"]
                if r["duration"] <= max_for and any(a["state"] == "pending" for a in r["alerts"])
            }
        )
        firing = [a["labels"] for a in self.api("alerts")["alerts"] if a["state"] == "firing"]
        why = []
        if late:
            why.append(f"not evaluated since: {late}")
        if pending:
            why.append(f"pending: {pending}")
        return (f"replica {self.name}: {'; '.join(why)}" if why else ""), firing


# ---- Alertmanager cluster


def cluster_config(
    webhook_url: str, timings: Mapping[str, str], repeat_scale: float | None = None
) -> dict[str, Any]:
    """The shipped configuration with each receiver's URL pointed at ``webhook_url`` + the
    receiver's name, and the route timings replaced by ``timings``; nothing else changes.

    With ``repeat_scale``, each route's ``repeat_interval`` is instead its shipped value times
    ``repeat_scale`` (whole seconds), so that routes that repeat at different rates keep their
    proportions in a test whose hours are seconds."""
    config: dict[str, Any] = yaml.safe_load(SHIPPED_CONFIG.read_text())
    for receiver in config["receivers"]:
        hooks = receiver["webhook_configs"]
        assert len(hooks) == 1 and set(receiver) == {"name", "webhook_configs"}, receiver
        hooks[0]["url"] = f"{webhook_url}{receiver['name']}"

    def retime(route: dict[str, Any]) -> None:
        for key in TIMING_KEYS:
            if key not in route:
                continue
            if key == "repeat_interval" and repeat_scale is not None:
                route[key] = scaled_duration(route[key], repeat_scale)
            else:
                route[key] = timings[key]
        for child in route.get("routes", []):
            retime(child)

    retime(config["route"])
    return config


def scaled_duration(text: str, factor: float) -> str:
    """A Prometheus/Alertmanager duration times ``factor``, in whole seconds (at least 1s)."""
    return f"{max(1, round(Duration(text).seconds * factor))}s"


def config_changes(config: Mapping[str, Any]) -> list[str]:
    """Where ``config`` differs from the shipped file, other than URLs and route timings."""
    shipped: dict[str, Any] = yaml.safe_load(SHIPPED_CONFIG.read_text())
    ours = copy.deepcopy(dict(config))

    def strip(route: dict[str, Any]) -> None:
        for key in TIMING_KEYS:
            route.pop(key, None)
        for child in route.get("routes", []):
            strip(child)

    for c in (shipped, ours):
        strip(c["route"])
        for receiver in c["receivers"]:
            for hook in receiver["webhook_configs"]:
                hook.pop("url")
    return [key for key in sorted(set(shipped) | set(ours)) if shipped.get(key) != ours.get(key)]


PEER_TIMEOUT = "3s"


class AlertmanagerNode:
    """One Alertmanager of a cluster gossiping on loopback.

    The node at position n of the cluster runs each flush of a group n x --cluster.peer-timeout
    late, then compares what it holds with the notification log and notifies what the others
    have not. A flush it replays that late is stale if the group was notified anew in between:
    a group that went firing -> resolved within the peer timeout would be notified firing
    again by the late node. With the shipped group_interval (5m) against the default peer
    timeout (15s) that cannot happen; the test's group_interval is seconds, so its peer timeout
    is too (loopback gossip takes milliseconds)."""

    def __init__(
        self, binary: str, tmp: Path, name: str, config: Path, gossip: str, peers: Sequence[str]
    ) -> None:
        self.name = name
        self.address = f"127.0.0.1:{free_port()}"
        self.url = f"http://{self.address}"
        self.gossip = gossip
        self.alive = True
        root = tmp / f"alertmanager-{name}"
        root.mkdir()
        self.proc = Process(
            [
                binary,
                f"--config.file={config}",
                f"--storage.path={root / 'data'}",
                f"--web.listen-address={self.address}",
                f"--web.external-url={self.url}/",  # names the sender in every notification
                f"--cluster.listen-address={gossip}",
                f"--cluster.advertise-address={gossip}",
                *[f"--cluster.peer={p}" for p in peers],
                f"--cluster.peer-timeout={PEER_TIMEOUT}",
                "--cluster.pushpull-interval=2s",  # full state every 2s, see Fleet.gossiped
                "--log.level=info",
            ],
            root / "alertmanager.log",
        )

    def wait_ready(self) -> None:
        self.proc.wait_http(f"{self.url}/-/ready")

    def api(self, path: str) -> Any:
        return json.loads(http_get(f"{self.url}/api/v2/{path}"))

    def status(self) -> dict[str, Any]:
        return dict(self.api("status"))

    def metric(self, name: str, labels: str = "") -> float:
        """The sum of ``name``'s samples whose labels contain ``labels``."""
        text = http_get(f"{self.url}/metrics").decode()
        return sum(
            float(line.rsplit(" ", 1)[1])
            for line in text.splitlines()
            if line.startswith(name)
            and line[len(name) : len(name) + 1] in (" ", "{")
            and labels in line
        )

    def full_states(self) -> float:
        """How many full states (push-pull) this node has merged from its peers."""
        return self.metric("alertmanager_cluster_messages_received_total", 'msg_type="full_state"')

    def kill(self) -> None:
        kill(self.proc)
        self.alive = False

    def stop(self) -> None:
        self.proc.stop()


def start_cluster(binary: str, tmp: Path, config: dict[str, Any], size: int = 2) -> list[Any]:
    """``size`` Alertmanagers with ``config``, each told of every other; returns once the
    cluster has formed (each lists all members, status "ready")."""
    path = tmp / "alertmanager.yml"
    path.write_text(json.dumps(config, indent=2))
    gossip = [f"127.0.0.1:{free_port()}" for _ in range(size)]
    nodes = []
    try:
        for i, address in enumerate(gossip):
            others = [g for g in gossip if g != address]
            nodes.append(AlertmanagerNode(binary, tmp, "ab"[i], path, address, others))
        for node in nodes:
            node.wait_ready()

        def formed() -> str:
            for node in nodes:
                cluster = node.status()["cluster"]
                if cluster.get("status") != "ready" or len(cluster.get("peers") or []) != size:
                    return f"{node.name}: {cluster}"
            return ""

        wait_until(formed, "Alertmanager cluster formed")
    except BaseException:
        for node in nodes:
            node.stop()
        raise
    return nodes


def position_zero(nodes: Sequence[AlertmanagerNode]) -> AlertmanagerNode:
    """The node that notifies first: Alertmanager orders peers by name, and the peer at
    position n waits n x --cluster.peer-timeout before it notifies what the others have not."""
    peers = nodes[0].status()["cluster"]["peers"]
    first = min(peers, key=lambda p: p["name"])["address"]
    return next(n for n in nodes if n.gossip == first)


# ---- the webhook receiver


@dataclass
class Notification:
    """One notification as the webhook received it."""

    at: float  # arrival, Unix time
    receiver: str  # the receiver in the shipped configuration (page, ticket)
    sender: str  # the Alertmanager that sent it (its external URL)
    status: str  # firing or resolved
    group: dict[str, str]
    alerts: list[dict[str, Any]] = field(default_factory=list)

    def firing(self) -> list[dict[str, str]]:
        return [a["labels"] for a in self.alerts if a["status"] == "firing"]

    def resolved(self) -> list[dict[str, str]]:
        return [a["labels"] for a in self.alerts if a["status"] == "resolved"]


class Webhook(stack.Webhook):
    """Records every notification posted to ``url`` + receiver name, in arrival order, as a
    ``Notification`` (arrival time, receiver, sending Alertmanager)."""

    def __init__(self) -> None:
        self.log: list[Notification] = []
        super().__init__()

    def record(self, path: str, payload: dict[str, Any]) -> None:
        note = Notification(
            at=time.time(),
            receiver=path.strip("/"),
            sender=str(payload.get("externalURL", "")).rstrip("/"),
            status=str(payload.get("status")),
            group=dict(payload.get("groupLabels") or {}),
            alerts=list(payload.get("alerts") or []),
        )
        with self._lock:
            self.notifications.append(payload)
            self.log.append(note)

    def received(self) -> list[Notification]:
        """The notifications so far."""
        with self._lock:
            return list(self.log)


IDENTITY = ("alertname", "instance", "pool", "job", "severity")  # shown apart in the table


def table(log: Sequence[Notification], t0: float, names: Mapping[str, str]) -> str:
    """The notification log as a table: seconds since the start, receiver, the Alertmanager
    that sent it, status, group, and each alert: name(host/pool, other labels)."""

    def name(value: str) -> str:
        return names.get(value, value)

    def alert(a: dict[str, Any]) -> str:
        labels = a["labels"]
        where = name(labels.get("instance", "-")) + (
            f"/{labels['pool']}" if "pool" in labels else ""
        )
        extra = "".join(f" {k}={name(v)}" for k, v in sorted(labels.items()) if k not in IDENTITY)
        gone = "" if a["status"] == "firing" else " RESOLVED"
        return f"{labels.get('alertname')}({where}{extra}){gone}"

    rows = [("t/s", "receiver", "sender", "status", "group", "alerts")]
    for n in log:
        group = ",".join(f"{k}={name(v)}" for k, v in sorted(n.group.items()))
        alerts = "; ".join(alert(a) for a in n.alerts)
        rows.append((f"{n.at - t0:.1f}", n.receiver, name(n.sender), n.status, group, alerts))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(r[:5], widths, strict=True)) + "  " + r[5]
        for r in rows
    )


def announcements(notes: Sequence[Notification]) -> list[Notification]:
    """The notifications that tell of an alert firing that its group's previous notification
    did not: the rest only resolve, or repeat. Which alerts' resolutions a snapshot holds
    depends on when their windows end (a checksum alert resolves once its errors leave the
    10m window): an incident's count of notifications is its count of announcements."""
    before: dict[tuple[str, tuple[tuple[str, str], ...]], set[frozenset[tuple[str, str]]]] = {}
    out = []
    for n in notes:
        key = (n.receiver, tuple(sorted(n.group.items())))
        firing = {frozenset(a.items()) for a in n.firing()}
        if firing - before.get(key, set()):
            out.append(n)
        before[key] = firing
    return out


# ---- the stack

SCALE = 1 / 30  # the rules' durations: `for: 1m` -> 2s
HostTable = Mapping[str, tuple[str, str, bool]]  # name -> (loopback address, story, reads NUT)


class FleetStack:
    """One fleet test module's stack and what its tests do with it: step the hosts' stories,
    switch the UPSes, kill parts, wait until the alerts have settled, report.

    What differs between the modules is given: ``hosts``, one zmon host each (name ->
    loopback address, story, whether it reads the NUT server); ``upses``, the UPSes the NUT
    server serves; ``timings``, the Alertmanager route timings, and ``repeat_scale``, when
    given, what each route's shipped repeat interval is scaled by (``cluster_config``);
    ``max_for``, the longest scaled ``for`` whose alerts ``settle`` waits to reach their
    verdict. The rules are the shipped ones, durations scaled by ``SCALE``."""

    def __init__(
        self,
        tmp: Path,
        hosts: HostTable,
        upses: Sequence[str],
        timings: Mapping[str, str],
        max_for: float,
        repeat_scale: float | None = None,
    ) -> None:
        self.tmp = tmp
        self.host_table = dict(hosts)
        self.timings = dict(timings)
        self.max_for = max_for
        self.repeat_scale = repeat_scale
        self.t0 = time.time()
        self.webhook = Webhook()
        self.started: list[Any] = []  # every part, in the order started: stop() stops them
        self.hosts: dict[str, Host] = {}
        self.dead: set[str] = set()  # hosts whose zmon was killed
        self.replicas: list[Replica] = []
        self.managers: list[AlertmanagerNode] = []
        self.events: list[tuple[float, str]] = []  # what the test did, when
        self.ups_vars = {name: {**base_variables(), "ups.status": "OL"} for name in upses}
        self.nut = NutLab(tmp / "nut", self.ups_vars)

    # -- setup and teardown

    def start(self) -> None:
        """NUT, the Alertmanager cluster, every host (at once), then the Prometheus pair."""
        prometheus = require_tool("prometheus", "Debian package prometheus")
        alertmanager = shutil.which("prometheus-alertmanager") or require_tool(
            "alertmanager", "Debian package prometheus-alertmanager"
        )
        self.nut.start()
        self.started.append(self.nut)
        config = cluster_config(self.webhook.url, self.timings, repeat_scale=self.repeat_scale)
        assert config_changes(config) == [], "only URLs and timings may differ from the shipped"
        self.managers = start_cluster(alertmanager, self.tmp, config)
        self.started.extend(self.managers)
        started: dict[str, Host] = {}

        def start(name: str, address: str, story: str, ups: bool) -> None:
            args = ["--ups.nut", self.nut.address] if ups else []
            started[name] = Host(self.tmp, name, address, story, args)

        try:
            _at_once(start, [(n, *h) for n, h in self.host_table.items()])
        finally:
            self.started.extend(started.values())
        self.hosts = {name: started[name] for name in self.host_table}
        rules = self.tmp / "zmon.fast.rules.yml"
        rules.write_text(generate.render(DEFAULTS, scale=SCALE))
        targets = [h.address for h in self.hosts.values()]
        managers = [m.address for m in self.managers]
        for name in "ab":
            replica = Replica(prometheus, self.tmp, name, targets, [rules], managers)
            self.replicas.append(replica)
            self.started.append(replica)
        self.note("stack up")

    def stop(self) -> None:
        """Stop every part at once (each waits for its own processes and whatever they
        started, killed hosts included); fails if a part could not be stopped."""
        failures: list[str] = []

        def stop(part: Any) -> None:
            try:
                part.close() if isinstance(part, NutLab) else part.stop()
            except Exception as exc:  # noqa: BLE001 - stop the rest regardless
                failures.append(f"stopping {part}: {exc}")

        _at_once(stop, [(p,) for p in self.started])
        self.webhook.stop()
        assert not failures, "\n".join(failures)

    @contextlib.contextmanager
    def running(self) -> Iterator[FleetStack]:
        """The stack started, for the length of the ``with``; stopped however it ends."""
        try:
            self.start()
            yield self
        finally:
            self.stop()

    # -- what the tests do

    def note(self, what: str) -> None:
        self.events.append((time.time(), what))

    def live_hosts(self) -> list[Host]:
        return [h for n, h in self.hosts.items() if n not in self.dead]

    def live_replicas(self) -> list[Replica]:
        return [r for r in self.replicas if r.alive]

    def live_managers(self) -> list[AlertmanagerNode]:
        return [m for m in self.managers if m.alive]

    def step(self, *names: str) -> None:
        """Move these hosts' stories on, at once."""
        self._on_hosts(names, "step")
        self.note("step " + ", ".join(f"{n} -> {self.hosts[n].phases[-1]}" for n in names))

    def kill_host(self, name: str) -> None:
        """SIGKILL the host's zmon: the host is down."""
        self.dead.add(name)
        kill(self.hosts[name].proc)
        self.note(f"killed zmon on {name}")

    def power(self, on_battery: bool) -> None:
        """Every UPS on battery (or back on mains); the live hosts that read them have read
        it."""
        status = "OB DISCHRG" if on_battery else "OL"
        voltage = "0.0" if on_battery else "232.0"
        for name, variables in self.ups_vars.items():
            variables.update({"ups.status": status, "input.voltage": voltage})
            self.nut.write_dev(name, variables)
        readers = [n for n, (_, _, ups) in self.host_table.items() if ups and n not in self.dead]
        probe = self.hosts[readers[0]]
        wanted = len(self.ups_vars) if on_battery else 0

        def served() -> str:  # dummy-ups reads its state file about once a second
            probe.control.request("collect ups")
            on = [
                line
                for line in probe.metrics().splitlines()
                if line.startswith("zmon_ups_status{")
                and 'flag="OB"' in line
                and float(line.rsplit(" ", 1)[1]) == 1
            ]
            return "" if len(on) == wanted else f"on battery: {on}"

        wait_until(served, "dummy-ups picked up its state files")
        self._on_hosts(readers, "collect ups")
        self.note(f"UPS {', '.join(self.ups_vars)} {status}")

    def _on_hosts(self, names: Sequence[str], request: str) -> None:
        _at_once(lambda name: self.hosts[name].request(request), [(n,) for n in names])

    # -- conditions

    def settle(self) -> None:
        """Every live replica has scraped every live host's current phase (3 scrapes), its
        rules have reached their verdict since, and whatever fires has been notified or
        inhibited."""
        for replica in self.live_replicas():
            seen: dict[str, set[float]] = {}
            check = partial(replica.scraped, self.live_hosts(), seen, 3)
            wait_until(check, f"replica {replica.name} scraped")
        after = time.time()
        wait_until(lambda: self._unsettled(after), "alerts settled")

    def firing_now(self) -> list[dict[str, str]]:
        """The label sets of the alerts firing in any live replica now."""
        return [f for replica in self.live_replicas() for f in replica.verdict(0.0, 0.0)[1]]

    def suppressed(self) -> set[frozenset[tuple[str, str]]]:
        """The alerts Alertmanager mutes (inhibited or silenced) now."""
        alerts = self.live_managers()[0].api("alerts")
        return {
            frozenset(a["labels"].items()) for a in alerts if a["status"]["state"] == "suppressed"
        }

    def _unsettled(self, after: float) -> str:
        why, firing = [], []
        for replica in self.live_replicas():
            w, f = replica.verdict(after, self.max_for)
            if w:
                why.append(w)
            firing += f
        if why:
            return "; ".join(why)
        notified = {frozenset(a.items()) for n in self.webhook.received() for a in n.firing()}
        muted = self.suppressed()
        missing = sorted(
            {
                f"{f['alertname']}@{self.name_of(f.get('instance', ''))}"
                for f in firing
                if frozenset(f.items()) not in notified | muted
            }
        )
        return f"not notified: {missing}" if missing else ""

    def quiet(self) -> str:
        """Why Alertmanager may still notify something ("" when nothing is due): whatever
        fires is notified or inhibited, and whatever stopped firing has been resolved."""
        return self._unsettled(0.0) or self.outstanding()

    def outstanding(self) -> str:
        """Why Alertmanager may still notify something ("" when nothing is due): an alert
        notified firing that no longer fires in Prometheus, and whose resolution has not been
        notified, unless Alertmanager mutes it."""
        firing_now = {frozenset(f.items()) for f in self.firing_now()}
        last: dict[frozenset[tuple[str, str]], str] = {}
        for n in self.webhook.received():
            for a in n.alerts:
                last[frozenset(a["labels"].items())] = a["status"]
        muted = self.suppressed()
        due = sorted(
            f"{dict(k)['alertname']}@{self.name_of(dict(k).get('instance', ''))}"
            for k, status in last.items()
            if status == "firing" and k not in firing_now and k not in muted
        )
        return f"resolution not notified: {due}" if due else ""

    # -- reporting

    def names(self) -> dict[str, str]:
        out = {h.address: n for n, h in self.hosts.items()}
        out.update({m.url: f"am-{m.name}" for m in self.managers})
        out[self.nut.address] = "nut"
        return out

    def name_of(self, instance: str) -> str:
        return self.names().get(instance, instance or "-")

    def report(self) -> str:
        """The timeline and the notification table, also written to notifications.txt."""
        timeline = "\n".join(f"{at - self.t0:7.1f}  {what}" for at, what in self.events)
        log = table(self.webhook.received(), self.t0, self.names())
        text = f"Timeline:\n{timeline}\n\nNotifications:\n{log}\n"
        (self.tmp / "notifications.txt").write_text(text)
        return text


def _at_once(work: Callable[..., object], calls: Sequence[tuple[Any, ...]]) -> None:
    """``work(*args)`` for every ``args`` of ``calls``, each in a thread of its own; returns
    once all have ended, re-raising the first error."""
    errors: list[BaseException] = []

    def one(*args: Any) -> None:
        try:
            work(*args)
        except BaseException as exc:  # noqa: BLE001 - re-raised below
            errors.append(exc)

    threads = [threading.Thread(target=one, args=args) for args in calls]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
