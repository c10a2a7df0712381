"""One incident, one notification, at the right severity: what an on-call admin receives for
each incident of the paging policy (alert_rules/POLICY.md), through the stack fleets run.

One stack, started once for the module: two Prometheus replicas (an HA pair, ``replica``
dropped from the alerts) and two clustered Alertmanagers running packaging/alertmanager/zmon.yml
with only the receivers' URLs and the route timings rewritten, as in test_fleet.py. Each
incident plays on its own zmon host (a stepped demo), all at once; each test then waits for its
incident's notifications to settle and asserts what reached the webhook:

- ``cable``: a cable fault on tank's sdb (CRC errors, link slowed down, checksum errors):
  exactly one notification, the page for the cable (DiskLinkFailing: tank is a 2-way mirror,
  and ZFS counts errors on the disk); the cable ticket and the checksum, ZFS-event and link
  alerts on that disk are its symptoms;
- ``scrub``: a scrub repairs checksum errors on a disk whose link and media are fine: no
  page, one ticket;
- ``offline``: one side of tank's 2-way mirror offline, no redundancy left: one page. The
  same host replays the lab's permanent errors on pool ``single`` (its state in that
  capture): the data-loss incident, one page and no re-page all night;
- ``down``: zmon on the host killed: one page (ZmonTargetDown);
- ``never``: a healthy host whose pools, created 60 days ago, were never scrubbed: past the
  overdue threshold, one ticket per pool;
- two UPSes on one NUT server, each read by three hosts (``cable``, ``offline``, ``never``;
  not ``scrub``, whose scrub on battery is a ticket of its own), lose mains power: one page
  per UPS, naming every host that reads it, none per host.

What counts. The first five incidents are asserted on the notifications received once every
incident's alerts (``for`` up to ``MAX_FOR``) have reached their verdict and been notified or
inhibited: the incident as it breaks, before the follow-ups that come with longer ``for``
(DiskLinkSpeedDegraded 30m, ZfsPoolErrorsNotCleared 1h) and before any repeat interval.
An incident's notifications are those that announce an alert firing (``announcements``):
a group's later notification that only resolves an alert whose window ended is the same
ticket or page closing, not a new one.

Time. The rules' durations are scaled by 1/30 (``for: 1m`` -> 2s, ``stack.SCALE``); the
demo replays the lab's scrubs, pools and snapshots as old as they were when it recorded them
(``never-scrubbed`` makes its pools 60 days older). The Alertmanager
route waits for a group's first alerts 8.5s and re-examines it every 10s (see test_fleet.py
for why those, and not a scaled 30s/5m); an hour of repeat interval is ``HOUR`` seconds, so
each route's ``repeat_interval`` keeps its proportion to the others and to the night (12h:
120s). A night is ``NIGHT_HOURS`` of those hours: a page repeated hourly would come at
each group interval.

Every wait is on a condition (what Prometheus scraped and evaluated, what Alertmanager holds,
what the webhook received), with a generous timeout; the night waits its scaled length. The
notification log is printed at the end (``pytest -s``) and on failure, and written to
``notifications.txt`` in the test's temporary directory with every process's log.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from tests.fleet.stack import FleetStack, Notification, announcements, wait_until

pytestmark = [pytest.mark.real, pytest.mark.slow]

MAX_FOR = 12.0  # scaled `for` a phase waits out before the next step (ZmonTargetDown: 10s)
GROUP_INTERVAL = 10.0
TIMINGS = {"group_wait": "8s500ms", "group_interval": f"{GROUP_INTERVAL:g}s"}
HOUR = GROUP_INTERVAL  # seconds of test time per hour of repeat interval
NIGHT_HOURS = 8  # 22:00 to 06:00
UPSES = ("rack1", "rack2")
# name -> (loopback address, story, reads the UPS server)
HOSTS = {
    "cable": ("127.0.0.21", "cable-fault", True),
    "scrub": ("127.0.0.22", "scrub-repairs-checksum-errors", False),
    "offline": ("127.0.0.23", "mirror-member-offline", True),
    "down": ("127.0.0.24", "healthy", False),
    "never": ("127.0.0.25", "never-scrubbed", True),
}
NEVER_SCRUBBED = ("rz", "single", "tank")  # the lab's pools before its first scrub


class IncidentFleet(FleetStack):
    """The stack with one host per incident, and the notifications of each."""

    def __init__(self, tmp: Path) -> None:
        super().__init__(tmp, HOSTS, UPSES, TIMINGS, MAX_FOR, repeat_scale=HOUR / 3600)
        self.settled_log: list[Notification] = []  # the log once every incident settled (docstring)

    def incident(
        self, host: str, pool: str | None = None, log: Sequence[Notification] | None = None
    ) -> list[Notification]:
        """The notifications of one host's groups (of one pool's, when given; host-wide
        groups have none), UPS groups aside, from ``log`` (default: all so far)."""
        address = self.hosts[host].address
        return [
            n
            for n in (self.webhook.received() if log is None else log)
            if n.group.get("instance") == address and (pool is None or n.group.get("pool") == pool)
        ]


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[IncidentFleet]:
    fleet = IncidentFleet(tmp_path_factory.mktemp("incidents"))
    try:
        with fleet.running():
            fleet.settle()
            fleet.note("settled: the fleet is healthy")
            # Every incident at once: each on its own hosts, each asserted by its own test.
            fleet.step("cable", "scrub", "offline")  # cable fault; scrub running; mirror side off
            fleet.kill_host("down")
            fleet.power(on_battery=True)
            fleet.settle()
            fleet.step("scrub")  # the scrub has repaired the checksum errors
            fleet.settle()
            fleet.settled_log = fleet.webhook.received()
            fleet.note("every incident notified")
            yield fleet
    finally:
        print(fleet.report())


def _describe(notes: Sequence[Notification]) -> list[tuple[str, str, list[str]]]:
    return [
        (n.receiver, n.status, sorted(a["labels"]["alertname"] for a in n.alerts)) for n in notes
    ]


def test_a_cable_fault_on_one_disk_is_one_page_for_the_cable(fleet: IncidentFleet) -> None:
    notes = fleet.incident("cable", log=fleet.settled_log)
    said = announcements(notes)
    assert [n.receiver for n in said] == ["page"], _describe(notes)
    alerts = said[0].firing()
    assert "DiskLinkFailing" in {a["alertname"] for a in alerts}, _describe(notes)
    assert {a.get("pool") for a in alerts} == {"tank"}, alerts
    assert {a.get("device") for a in alerts if a.get("device")} == {"sdb"}, alerts


def test_checksum_errors_a_scrub_repaired_are_one_ticket_and_no_page(
    fleet: IncidentFleet,
) -> None:
    notes = fleet.incident("scrub", log=fleet.settled_log)
    said = announcements(notes)
    assert [n.receiver for n in said] == ["ticket"], _describe(notes)
    names = {a["alertname"] for a in said[0].firing()}
    assert {"ZfsVdevChecksumErrors", "ZfsScrubFoundErrors"} <= names, names
    assert {a["pool"] for a in said[0].firing()} == {"tank"}


def test_a_mirror_without_redundancy_pages_once(fleet: IncidentFleet) -> None:
    notes = fleet.incident("offline", "tank", log=fleet.settled_log)
    said = announcements(notes)
    assert [n.receiver for n in said] == ["page"], _describe(notes)
    assert [a["alertname"] for a in said[0].firing()] == ["ZfsPoolRedundancyLost"]


def test_a_host_down_pages_once(fleet: IncidentFleet) -> None:
    notes = fleet.incident("down", log=fleet.settled_log)
    said = announcements(notes)
    assert [n.receiver for n in said] == ["page"], _describe(notes)
    assert [a["alertname"] for a in said[0].firing()] == ["ZmonTargetDown"]


def test_a_power_cut_pages_once_per_ups_not_per_host(fleet: IncidentFleet) -> None:
    log = fleet.settled_log
    readers = {n for n, (_, _, ups) in HOSTS.items() if ups}
    for ups in UPSES:
        notes = [n for n in log if n.group.get("ups") == ups]
        said = announcements(notes)
        assert [n.receiver for n in said] == ["page"], _describe(notes)
        hosts = {fleet.name_of(a["instance"]) for a in said[0].firing()}
        assert hosts == readers, hosts
    per_host = [
        n for n in log if "ups" not in n.group and any(
            a["labels"]["alertname"].startswith("Ups") for a in n.alerts)
    ]  # fmt: skip
    assert not per_host, _describe(per_host)


def test_data_errors_page_once_and_not_again_all_night(fleet: IncidentFleet) -> None:
    """The page when the data is lost, then nothing more loud all night; the ticket stays."""
    pages = [n for n in fleet.incident("offline", "single") if n.receiver == "page"]
    assert pages, _describe(fleet.incident("offline", "single"))
    dusk = pages[0].at
    morning = dusk + NIGHT_HOURS * HOUR
    fleet.note(f"the night began with the data errors' page at {dusk - fleet.t0:.1f}")

    def night_over() -> str:
        left = morning + GROUP_INTERVAL - time.time()  # and the flush at dawn
        return f"{left:.0f}s of the night left" if left > 0 else ""

    wait_until(night_over, "the night passed", timeout=NIGHT_HOURS * HOUR + 120)
    fleet.note("morning")
    night = [n for n in fleet.incident("offline", "single") if n.at <= morning]
    loud = [n for n in night if n.receiver == "page"]
    assert [n.status for n in loud] == ["firing"], _describe(night)
    assert [a["alertname"] for a in loud[0].firing()] == ["ZfsPoolDataErrors"]
    tickets = [
        n for n in night if n.receiver == "ticket"
        and any(a["alertname"] == "ZfsPoolDataErrors" for a in n.firing())
    ]  # fmt: skip
    assert len(tickets) == 1, _describe(night)


def test_a_never_scrubbed_pool_past_the_limit_is_one_ticket(fleet: IncidentFleet) -> None:
    def overdue() -> str:
        have = {
            n.group.get("pool")
            for n in fleet.incident("never")
            if any(a["alertname"] == "ZfsScrubOverdue" for a in n.firing())
        }
        missing = set(NEVER_SCRUBBED) - have
        return f"no ZfsScrubOverdue yet for {sorted(missing)}" if missing else ""

    wait_until(overdue, "ZfsScrubOverdue notified for every never-scrubbed pool", timeout=240)
    wait_until(fleet.quiet, "nothing due")
    for pool in NEVER_SCRUBBED:
        notes = fleet.incident("never", pool)
        said = announcements(notes)
        assert [n.receiver for n in said] == ["ticket"], _describe(notes)
        assert [a["alertname"] for a in said[0].firing()] == ["ZfsScrubOverdue"]
