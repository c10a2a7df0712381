"""A fleet pages correctly through the stack fleets run: a Prometheus HA pair and an
Alertmanager cluster, with the shipped rules and the shipped Alertmanager configuration.

Six zmon hosts, each a stepped demo on its own loopback address, replay one incident each:

- ``quiet``: healthy all along;
- ``bitrot``: checksum errors on a mirror member (a cable fault), then the disk replaced and
  resilvered;
- ``degraded``: a pool degraded, then resilvering (the resilver reads a last good copy whose
  recorded SMART counts pending sectors: ZfsResilverSourceFailing);
- ``hung``: healthy, then its pool suspended: ``zpool`` hangs;
- ``ups-a`` and ``ups-b``: healthy hosts that read one UPS through one real NUT server
  (``upsd`` + ``dummy-ups``), whose state file the test switches to on-battery and back.

Two Prometheus replicas (``replica: a`` / ``b``) scrape every host each second and evaluate
the rules rendered with every duration scaled by 1/30 (``for: 1m`` -> 2s, ``stack.SCALE``),
like the stepped pipeline test of tests/rules; both drop ``replica`` from the alerts they send
(alert_relabel_configs) to both Alertmanagers. The two Alertmanagers gossip on loopback and
run packaging/alertmanager/zmon.yml with only the receivers' URLs (a webhook that logs every
notification) and the route timings rewritten.

Time is explicit. The test moves a story on through each host's control socket only once
Prometheus (each live replica) has scraped the current phase of every host, its rules have
reached their verdict on it, and every alert firing has reached the webhook or is inhibited
at Alertmanager. Every wait is on a condition, with a generous timeout.

Exactly once, and where Alertmanager is only at-least-once:

- An HA pair disagrees for up to a scrape when an alert resolves: each replica scrapes at its
  own offset. If one replica's "resolved" reaches Alertmanager, then the other re-sends
  "firing" (every --rules.alert.resend-delay, default 1m) and a group flush falls between the
  two, Alertmanager notifies resolved, firing, resolved. The replicas here send an alert when
  it starts firing and when it resolves, never again (resend delay 1h), so that window is
  closed and a duplicate is a defect of the configuration, not a coin toss.
- Clustered Alertmanagers deduplicate through the gossiped notification log: the node at
  position n runs each flush n x --cluster.peer-timeout late and notifies only what no peer
  has notified. Two windows remain. A node that dies after notifying but before its log entry
  reached its peer makes the peer notify again: the test kills the first node only once
  nothing is due and the other node has since merged two full states of the cluster
  (push-pull, every 2s here). And a late flush is stale if the group was notified anew
  within the peer timeout (firing, then resolved): the late node then notifies "firing"
  again - seen here with group_interval 5s against the default peer timeout of 15s. The
  shipped group_interval (5m) is far above 15s; the test scales both (10s, 3s: loopback
  gossip takes milliseconds).
- Last, the nodes flush a group at the same instants (both created it when the same alert
  reached them), but each sees an alert's change when its own copy of Prometheus' message
  arrives: if a resolution lands between the two nodes' flushes, the node behind notifies the
  stale "firing" a peer timeout later (seen here: a resolution came exactly 8 + 10s after
  the alert fired, on a flush). Prometheus sends right after an evaluation (every second,
  each rule group at its own fixed offset, the same in both replicas), so a group's flushes
  are set half a second off its first alert's evaluations (group_wait 8.5s, group_interval
  10s): the alerts of that rule group never change on a flush. Alerts of other rule groups in
  the same notification group could still, with a chance of a few milliseconds in ten
  seconds; with the shipped 5m group_interval, a few in 300s.
- A scrape a replica loses (its 1 s timeout passed on a loaded machine) makes every series of
  that host stale at once, and each alert's expression returns nothing: without
  ``keep_firing_for`` every firing alert of the host resolved and fired again (seen here:
  DiskPendingSectorsRising notified resolved, firing, resolved). The rules keep a firing
  alert for ``keep_firing_for`` (3m, 6 s scaled), so a lost scrape or two changes nothing;
  alert_rules/tests/pools.test.yml shows it without timing.
- Prometheus replica a is killed (SIGKILL) once the first incidents have paged; the
  Alertmanager node at position 0 once the power cut is over; incidents keep paging and
  resolving through the survivors.

A stepped host's clock stands still within a phase, and so do the counters that only time
moves on a real host. Held long enough (how long depends on the machine's speed), a resilver
that makes no progress fires ZfsResilverStalled / ZfsResilverSlow, a link slowed down for
"30 minutes" DiskLinkSpeedDegraded, and the other pools of the hung host, whose txg counters
stand still while ``zpool`` times out, ZfsPoolStuck (on a real host their txgs sync every 5s).
The test neither requires nor forbids these on the hosts in those phases; like every alert,
each must be notified once. The hung pool is suspended last, so that they rarely appear.

The notification log is printed as a table at the end (``pytest -s``) and on failure, and
written to ``notifications.txt`` in the test's temporary directory.
"""

from __future__ import annotations

import collections
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from tests.fleet.stack import (
    AlertmanagerNode,
    FleetStack,
    Notification,
    position_zero,
    wait_until,
)
from zmon.health import policy

pytestmark = [pytest.mark.real, pytest.mark.slow]

# Alerts whose `for` is at most this long (scaled) must reach their verdict before the story
# moves on; longer ones (ZfsResilverSlow, ZmonCollectorFailing ...) need longer incidents.
MAX_FOR = 8.0
# The shipped route timings, scaled for the test: a group waits 8.5s for more alerts (the UPS
# alerts of two hosts come a scrape or two apart), then is re-examined every 10s (well above
# the peer timeout, stack.PEER_TIMEOUT); nothing repeats within the test. The half second
# keeps a group's flushes half an evaluation away from its alerts' arrivals (docstring).
TIMINGS = {"group_wait": "8s500ms", "group_interval": "10s", "repeat_interval": "1h"}
HOSTS = {  # name -> (loopback address, story, reads the shared UPS)
    "quiet": ("127.0.0.11", "healthy", False),
    "bitrot": ("127.0.0.12", "checksum-then-replaced", False),
    "degraded": ("127.0.0.13", "degraded-then-resilvering", False),
    "hung": ("127.0.0.14", "suspended", False),
    "ups-a": ("127.0.0.15", "healthy", True),
    "ups-b": ("127.0.0.16", "healthy", True),
}
UPS = "rack1"
TIME_ARTEFACTS = {"ZfsResilverStalled", "ZfsResilverSlow", "DiskLinkSpeedDegraded"}  # docstring


class Fleet(FleetStack):
    """The stack with one host per incident of the timeline; each step and power switch
    settles before it returns."""

    def __init__(self, tmp: Path) -> None:
        super().__init__(tmp, HOSTS, [UPS], TIMINGS, MAX_FOR)
        self.firing_at_replacement: list[dict[str, str]] = []
        self.replaced_at = 0.0
        self.gossip_note = ""

    def when(self, prefix: str) -> float:
        """When the test first did what begins with ``prefix``."""
        return next(t for t, what in self.events if what.startswith(prefix))

    def step(self, *names: str) -> None:
        """Move these hosts' stories on (at once), then settle."""
        super().step(*names)
        self.settle()

    def power(self, on_battery: bool) -> None:
        """Switch the shared UPS, have both hosts read it, then settle."""
        super().power(on_battery)
        self.settle()

    def gossiped(self, peer: AlertmanagerNode) -> Callable[[], str]:
        """A check that ``peer`` holds the whole notification log of the others, as it is now:
        it has merged two full states (push-pull, every 2s) that began after this call, so
        after every notification the webhook has received by now. Counting the gossiped
        entries is not exact: a full state may bring two updates of a group as one."""
        start = peer.full_states()

        def check() -> str:
            got = peer.full_states() - start
            self.gossip_note = f"{peer.name} merged {got:g} full states since"
            return "" if got >= 2 else self.gossip_note

        return check


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fleet]:
    fleet = Fleet(tmp_path_factory.mktemp("fleet"))
    with fleet.running():
        yield fleet


Key = frozenset[tuple[str, str]]


def histories(log: Sequence[Notification]) -> dict[Key, list[str]]:
    """Each alert's statuses in the notifications it appeared in, repeats collapsed."""
    out: dict[Key, list[str]] = collections.defaultdict(list)
    for n in log:
        for a in n.alerts:
            seq = out[frozenset(a["labels"].items())]
            if not seq or seq[-1] != a["status"]:
                seq.append(a["status"])
    return dict(out)


def test_a_fleet_pages_once_per_incident_through_ha_prometheus_and_clustered_alertmanager(
    fleet: Fleet,
) -> None:
    try:
        run_timeline(fleet)
        check(fleet)
    except BaseException:
        print(fleet.report())
        raise
    print(fleet.report())


def run_timeline(fleet: Fleet) -> None:
    fleet.settle()
    fleet.note("settled: the fleet is healthy")
    fleet.step("bitrot", "degraded")  # checksum errors (a cable fault); a pool degraded
    fleet.firing_at_replacement = fleet.firing_now()
    fleet.replaced_at = time.time()
    fleet.step("bitrot")  # the faulty disk replaced: resilvering (from a disk going bad)
    wait_until(fleet.quiet, "nothing due")
    fleet.replicas[0].kill()
    fleet.note("killed Prometheus replica a")
    fleet.power(on_battery=True)
    fleet.power(on_battery=False)
    wait_until(fleet.quiet, "nothing due")
    first = position_zero(fleet.managers)
    other = next(m for m in fleet.managers if m is not first)
    wait_until(fleet.gossiped(other), "the notification log gossiped")
    first.kill()
    fleet.note(f"killed Alertmanager {first.name} (position 0): {fleet.gossip_note}")
    fleet.step("bitrot", "degraded")  # resilvered; resilvering
    fleet.step("hung")  # the pool suspended: zpool hangs
    wait_until(fleet.quiet, "nothing due")
    fleet.note("done")


def _who(labels: dict[str, str], names: dict[str, str]) -> str:
    return names.get(labels.get("instance", ""), "-")


def check(fleet: Fleet) -> None:
    log = fleet.webhook.received()
    names = fleet.names()

    # Exactly once: every alert is notified firing once, and resolved at most once after; no
    # notification comes twice (from both Alertmanagers, or both replicas). An alert muted by
    # its cause while it fired may show up resolved, once, beside its group's other alerts
    # (Alertmanager mutes firing alerts; the resolved copy passes once the cause is gone). So
    # may an alert that fired and resolved between two flushes of a group already notified
    # (ZfsVdevFailing on the bitrot host's checksum burst, whose page group holds the cable
    # page): Alertmanager never sends the firing copy, and the resolved one adds no page.
    for key, seq in histories(log).items():
        if seq == ["resolved"]:
            continue
        assert seq in (["firing"], ["firing", "resolved"]), (dict(key), seq)
    seen = collections.Counter(
        (n.receiver, tuple(sorted(n.group.items())), n.status,
         tuple(sorted(map(str, n.firing()))), tuple(sorted(map(str, n.resolved()))))
        for n in log
    )  # fmt: skip
    assert not [k for k, c in seen.items() if c > 1], "a notification came twice"

    # Alerts reach the receivers the policy names: critical pages, the rest are tickets, and
    # what pages once is a ticket too (until cleared).
    for n in log:
        for a in n.alerts:
            rule = policy.POLICY_BY_ALERT[a["labels"]["alertname"]]
            wanted = {"page"} if rule.pages else {"ticket"}
            if rule.page_once:
                wanted |= {"ticket"}
            assert a["labels"]["severity"] == rule.severity, a["labels"]
            assert n.receiver in wanted, (n.receiver, a["labels"])

    by_host: dict[str, set[str]] = collections.defaultdict(set)
    for n in log:
        for a in n.alerts:
            by_host[_who(a["labels"], names)].add(a["labels"]["alertname"])
    assert "quiet" not in by_host, f"the healthy host was notified: {by_host['quiet']}"

    def notified(host: str, name: str, status: str = "firing", **labels: str) -> list[float]:
        return [
            n.at
            for n in log
            for a in n.alerts
            if _who(a["labels"], names) == host
            and a["labels"]["alertname"] == name
            and a["status"] == status
            and all(a["labels"].get(k) == v for k, v in labels.items())
        ]

    # The first burst is notified as its cause: the cable fault, in the step that brought it,
    # before the disk is replaced (the page, DiskLinkFailing: tank is a 2-way mirror); the
    # cable ticket, the checksum errors and ZFS error events on that disk are its symptoms,
    # muted.
    when = notified("bitrot", "DiskLinkFailing", pool="tank")
    assert when and when[0] < fleet.replaced_at, f"the cable fault not notified: {when}"
    for name in ("ZfsVdevChecksumErrors", "ZfsErrorEvents"):
        assert not notified("bitrot", name, pool="tank", device="sdb"), name

    # A replaced disk does not re-page: what fired on the pool before the replacement keeps
    # its identity (one label set per alert name), and its pages are not sent again.
    before = {
        (a["alertname"], a.get("pool", ""))
        for a in fleet.firing_at_replacement
        if _who(a, names) == "bitrot"
    }
    assert ("DiskCableFault", "tank") in before, f"replaced while its cable fault fires: {before}"
    for name, pool in before:
        sets = {
            frozenset(a["labels"].items())
            for n in log
            for a in n.alerts
            if _who(a["labels"], names) == "bitrot"
            and (a["labels"]["alertname"], a["labels"].get("pool", "")) == (name, pool)
        }
        assert len(sets) <= 1, f"{name} changed identity with the disk: {sets}"

    # The mirror with a side offline has no redundancy left: paged, then resolved once the
    # replacement brought a second copy back (the notification of a later page of its group
    # lists it again, still firing: not a second page of it).
    lost = [
        seq
        for key, seq in histories(log).items()
        if dict(key)["alertname"] == "ZfsPoolRedundancyLost"
        and _who(dict(key), names) == "degraded"
    ]
    assert lost == [["firing", "resolved"]], lost
    # Its resilver reads sda, the last good copy, whose recorded SMART counts pending sectors
    # (the demo's 13-resilver-in-progress capture): that pages on its own, as on the bitrot
    # host, whose resilver reads a disk going bad.
    for host in ("degraded", "bitrot"):
        assert notified(host, "ZfsResilverSourceFailing", pool="tank", device="sda"), host

    # The hung host pages: ZfsPoolStuck, critical, for the suspended pool, and nothing else
    # on it (the stuck alert inhibits the symptoms).
    stuck = [n for n in log if any(a["labels"]["alertname"] == "ZfsPoolStuck" and
             a["labels"].get("pool") == "tank" and _who(a["labels"], names) == "hung"
             for a in n.alerts)]  # fmt: skip
    assert len(stuck) == 1 and stuck[0].receiver == "page", stuck
    assert by_host["hung"] == {"ZfsPoolStuck"}, by_host["hung"]

    # The shared UPS: one notification when the power goes, one when it comes back, each
    # naming both hosts; nothing else about it.
    ups = [n for n in log if n.group.get("ups") == UPS]
    assert [n.status for n in ups] == ["firing", "resolved"], ups
    for n in ups:
        assert {_who(a["labels"], names) for a in n.alerts} == {"ups-a", "ups-b"}, n
    assert by_host["ups-a"] == by_host["ups-b"] == {"UpsOnBattery"}

    # Killing a replica, then an Alertmanager, lost nothing: incidents that began or ended
    # after each kill were notified (the UPS by replica b alone; the last steps' by the
    # surviving node: the hung pool's page, the degraded pool back, the resilvered disk's
    # remapped sectors).
    assert ups[0].at > fleet.when("killed Prometheus")
    killed_am = fleet.when("killed Alertmanager")
    assert stuck[0].at > killed_am
    assert notified("degraded", "ZfsPoolRedundancyLost", "resolved", pool="tank")[0] > killed_am
    assert notified("bitrot", "DiskReallocatedSectorsRising", pool="tank")[0] > killed_am
    survivor = fleet.live_managers()[0].url
    assert {n.sender for n in log if n.at > killed_am} == {survivor}

    # Alerts a stepped host raises only because its clock stands still (docstring), once.
    for host, alerts in by_host.items():
        extra = alerts & TIME_ARTEFACTS
        assert not extra or host in ("bitrot", "degraded"), (host, extra)
