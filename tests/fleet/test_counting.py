"""Hermetic: how the incident tests count notifications (``announcements``)."""

from __future__ import annotations

from tests.fleet.stack import Notification, announcements


def _note(receiver: str, *alerts: tuple[str, str], pool: str = "tank") -> Notification:
    group = {"instance": "h:1", "pool": pool}
    status = "firing" if any(s == "firing" for _, s in alerts) else "resolved"
    labels = [({"alertname": name, **group}, s) for name, s in alerts]
    return Notification(0.0, receiver, "am", status, group, [
        {"labels": lab, "status": s} for lab, s in labels
    ])  # fmt: skip


def test_an_update_that_only_resolves_is_not_a_new_notification() -> None:
    notes = [
        _note("ticket", ("ZfsVdevChecksumErrors", "firing"), ("ZfsScrubFoundErrors", "firing")),
        _note("ticket", ("ZfsVdevChecksumErrors", "resolved"), ("ZfsScrubFoundErrors", "firing")),
        _note("ticket", ("ZfsScrubFoundErrors", "resolved")),
    ]
    assert announcements(notes) == notes[:1]


def test_a_new_alert_in_the_group_and_a_repeat_after_a_resolution_are_new() -> None:
    notes = [
        _note("ticket", ("DiskCableFault", "firing")),
        _note("ticket", ("DiskCableFault", "firing"), ("DiskLinkSpeedDegraded", "firing")),
        _note("ticket", ("DiskCableFault", "resolved"), ("DiskLinkSpeedDegraded", "resolved")),
        _note("ticket", ("DiskCableFault", "firing")),
    ]
    assert announcements(notes) == [notes[0], notes[1], notes[3]]


def test_receivers_and_groups_are_counted_apart() -> None:
    notes = [
        _note("page", ("ZfsPoolDataErrors", "firing"), pool="single"),
        _note("ticket", ("ZfsPoolDataErrors", "firing"), pool="single"),
        _note("page", ("ZfsPoolRedundancyLost", "firing")),
    ]
    assert announcements(notes) == notes
