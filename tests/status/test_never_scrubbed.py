"""A pool never scrubbed: ``zmon status`` says it is overdue once it is older than a scrub may
be, from the same creation time the ZfsScrubOverdue alert reads."""

from __future__ import annotations

from zmon.status.diagnoses import Evidence, diagnose
from zmon.status.model import HostModel, Pool

DAY = 86400.0
NOW = 1_800_000_000.0


def _overdue(pool: Pool) -> list[str]:
    findings = diagnose(Evidence(HostModel(pools=[pool]), now=NOW))
    return [f.evidence for f in findings if f.rule == "scrub_overdue"]


def test_a_pool_created_40_days_ago_and_never_scrubbed_is_overdue() -> None:
    assert _overdue(Pool("tank", "online", created=NOW - 40 * DAY)) == [
        "never scrubbed, created 40 days ago"
    ]


def test_a_young_pool_or_one_of_unknown_age_is_not() -> None:
    assert _overdue(Pool("tank", "online", created=NOW - 10 * DAY)) == []
    assert _overdue(Pool("tank", "online")) == []
