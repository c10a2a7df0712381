"""Lead time, measured: how long before ZFS faults a failing disk does zmon page, and ZED mail?

A run of its own (tests/lab/guest/leadtime.sh, guest/ramp.py): a raidz1 pool rz on vda, vdb,
vdc; zinject fails 1, 2, 5, 10, 25, 50 and then 100 % of vdb's writes, 15 s per level, under
a steady write load, until ZED's diagnosis engine faults vdb. The guest notes on its own clock
when the ramp began, when `zpool status` first showed vdb FAULTED (polled every 1-2 s), when
the host's Prometheus first evaluated a critical alert about rz or vdb as firing (zmon's first
page; Prometheus' own timestamp, converted to the guest's clock) and when ZED's mail program
was called: first for anything, and for the device fault (statechange-notify.sh). The host
checks the step tables below and prints the lead times.

The lab's Prometheus renders the rules with every duration scaled by checks.ALERT_SCALE (1/30),
so a page measured here comes earlier than it would in production by the `for:` the rule
loses to the scaling; the summary gives both figures (`unscaled`). The ramp, ZFS and ZED run
at their own pace (ZED's I/O-error SERD engine: 10 reports within 10 minutes by default).
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from alert_rules import generate
from tests.lab import checks
from tests.lab.checks import alert, errors, events, pool_state, vdev_state
from tests.lab.engine import AllCollectorsSucceed, Check, Result, eq, ge, gt, present
from tests.lab.prometheus import AlertWatcher, escaped
from tests.lab.session import Sequence
from zmon.health import shipped
from zmon.health.conditions import needs
from zmon.health.thresholds import DEFAULTS

BASELINE = "01-ramp-baseline"
FAULTED = "02-vdev-faulted"
STEPS = (BASELINE, FAULTED)
POOL, VDEV = "rz", "vdb"

CHECKS: list[Check] = [
    pool_state(BASELINE, POOL, "online"),
    vdev_state(BASELINE, POOL, VDEV, "online"),
    errors(BASELINE, "write", POOL, VDEV, eq(0)),
    vdev_state(FAULTED, POOL, VDEV, "faulted"),
    pool_state(FAULTED, POOL, "degraded"),
    errors(FAULTED, "write", POOL, VDEV, gt(0)),
    events(FAULTED, POOL, "io", ge(1)),
    events(FAULTED, POOL, "statechange", ge(1)),
]
ALERTS: list[Check] = [
    alert(FAULTED, "ZfsVdevFaulted", {"pool": POOL, "vdev": VDEV}),
    alert(FAULTED, "ZfsPoolDegraded", {"pool": POOL}),
    # a raidz1 with a faulted member has no redundancy left: that pages
    alert(FAULTED, "ZfsPoolRedundancyLost", {"pool": POOL, "severity": "critical"}),
    # the failing path: the rising write errors page before ZFS faults the disk
    alert(FAULTED, "ZfsVdevFailing", {"pool": POOL, "vdev": VDEV, "severity": "critical"}),
]

# What zmon served during the ramp, kept as a timeline in the run dir (ramp-timeline.txt):
# every series the rules could page on before ZFS faults the vdev.
TIMELINE = (
    f'zmon_vdev_read_errors_total{{pool="{POOL}"}}',
    f'zmon_vdev_write_errors_total{{pool="{POOL}"}}',
    f'zmon_vdev_checksum_errors_total{{pool="{POOL}"}}',
    f'zmon_vdev_slow_ios_total{{pool="{POOL}"}}',
    f'zmon_vdev_state{{pool="{POOL}",vdev="{VDEV}"}} == 1',
    f'zmon_pool_state{{pool="{POOL}"}} == 1',
    f'zmon_zfs_events_total{{pool="{POOL}"}}',
    "zmon_kernel_log_events_total",
    f'ALERTS{{pool="{POOL}"}} or ALERTS{{device="{VDEV}"}}',
)
# the first sign of the failing disk in what zmon serves
EVIDENCE = f'zmon_vdev_write_errors_total{{pool="{POOL}",vdev="{VDEV}"}} > 0'

_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h|d|w|y)")
_UNITS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800, "y": 31536000}


def seconds(duration: str) -> float:
    """A Prometheus duration ("1m", "1h30m", "2s") in seconds."""
    parts = _DURATION.findall(duration)
    if not parts or "".join(n + u for n, u in parts) != duration:
        raise ValueError(f"not a Prometheus duration: {duration!r}")
    return sum(float(n) * _UNITS[u] for n, u in parts)


def page_for(rules: str, name: str) -> float:
    """The `for:` (seconds, 0 when none) of the critical alert `name` in a rendered rule file."""
    for block in rules.split("      - alert: ")[1:]:
        head, _, body = block.partition("\n")
        if head.strip().strip('"') != name or "severity: critical" not in body:
            continue
        m = re.search(r"^        for: (\S+)$", body, re.M)
        return seconds(m.group(1)) if m else 0.0
    raise KeyError(f"no critical alert {name} in the rules")


def _time(facts: Mapping[str, str], key: str) -> float | None:
    value = facts.get(key, "")
    return float(value) if value else None


def _after(delta: float) -> str:
    return f"{abs(delta):.1f} s {'before' if delta >= 0 else 'after'}"


@dataclass(frozen=True)
class LeadTime:
    """The guest's record of one ramp (times on the guest's clock, Unix seconds)."""

    version: str
    ramp_start: float
    faulted_at: float | None
    fault_pct: str
    page_at: float | None
    page_alert: str
    mail_at: float | None
    mail_subject: str
    fault_mail_at: float | None = None
    errors_at_fault: str = ""
    io_ereports_at_fault: str = ""
    alerts: dict[str, str] = field(default_factory=dict)  # "state.name" -> "severity time"
    # the paging rule's for: in production and as the lab's Prometheus evaluated it
    page_for_full: float = 0.0
    page_for_scaled: float = 0.0

    @classmethod
    def from_facts(
        cls,
        version: str,
        facts: Mapping[str, str],
        full_rules: str | None = None,
        scaled_rules: str | None = None,
    ) -> LeadTime:
        page_alert = facts.get("page_alert", "")
        for_full = for_scaled = 0.0
        if page_alert:
            full_rules = full_rules if full_rules is not None else generate.render()
            if scaled_rules is None:
                scaled_rules = generate.render(scale=checks.ALERT_SCALE)
            for_full = page_for(full_rules, page_alert)
            for_scaled = page_for(scaled_rules, page_alert)
        return cls(
            version,
            float(facts["ramp_start"]),
            _time(facts, "faulted_at"),
            facts.get("fault_pct", ""),
            _time(facts, "page_at"),
            page_alert,
            _time(facts, "mail_at"),
            facts.get("mail_subject", ""),
            _time(facts, "fault_mail_at"),
            facts.get("errors_at_fault", ""),
            facts.get("io_ereports_at_fault", ""),
            {k[6:]: v for k, v in facts.items() if k.startswith("alert.")},
            for_full,
            for_scaled,
        )

    @property
    def page_lead(self) -> float | None:
        """Seconds zmon paged before the vdev was FAULTED (negative: after)."""
        if self.faulted_at is None or self.page_at is None:
            return None
        return self.faulted_at - self.page_at

    @property
    def page_lead_unscaled(self) -> float | None:
        """The lead time with the paging rule's full `for:` instead of the lab's scaled one."""
        lead = self.page_lead
        return None if lead is None else lead - (self.page_for_full - self.page_for_scaled)

    @property
    def mail_lead(self) -> float | None:
        """Seconds ZED's first mail of the ramp came before the vdev was FAULTED (negative:
        after). It may be about something else than the fault (a resilver finished)."""
        if self.faulted_at is None or self.mail_at is None:
            return None
        return self.faulted_at - self.mail_at

    @property
    def fault_mail_lead(self) -> float | None:
        """Seconds ZED's mail about the faulted device came before FAULTED (negative: after)."""
        if self.faulted_at is None or self.fault_mail_at is None:
            return None
        return self.faulted_at - self.fault_mail_at

    def summary(self) -> list[str]:
        head = f"lead time on OpenZFS {self.version}:"
        if self.faulted_at is None:
            return [f"{head} ZED did not fault {VDEV} during the ramp (no lead time)"]
        lines = [
            f"{head} {VDEV} FAULTED {self.faulted_at - self.ramp_start:.1f} s into the ramp "
            f"({self.fault_pct} % of its writes failing; errors r/w/c {self.errors_at_fault}, "
            f"{self.io_ereports_at_fault} io ereports)"
        ]
        lead = self.page_lead
        if lead is None:
            lines.append("  zmon: no page (no critical alert about the pool or disk fired)")
        else:
            unscaled = self.page_lead_unscaled
            assert unscaled is not None
            lines.append(
                f"  zmon's first page {self.page_alert} fired {_after(lead)} FAULTED "
                f"(lead time {lead:+.1f} s with the lab's 1/{1 / checks.ALERT_SCALE:g} durations; "
                f"{unscaled:+.1f} s with the rule's unscaled for: of {self.page_for_full:g} s)"
            )
        mail, fault_mail = self.mail_lead, self.fault_mail_lead
        if mail is None:
            lines.append("  ZED: no mail")
        else:
            lines.append(
                f"  ZED's first mail {_after(mail)} FAULTED (lead time {mail:+.1f} s): "
                f"{self.mail_subject!r}"
            )
        if fault_mail is not None and fault_mail != mail:
            lines.append(
                f"  ZED's device fault mail {_after(fault_mail)} FAULTED "
                f"(lead time {fault_mail:+.1f} s)"
            )
        return lines

    def results(self, step: str, with_prometheus: bool) -> list[Result]:
        def row(what: str, ok: bool, seen: str, pending: str = "") -> Result:
            chk = Check((step,), "lead time", {}, present(), what, pending=pending)
            return Result(step, chk, what, ok, seen)

        faulted = self.faulted_at is not None
        out = [
            row(f"ZED faulted {VDEV} during the ramp", faulted,
                f"{self.faulted_at - self.ramp_start:.1f} s" if faulted else "no FAULTED"),
            row("ZED mailed about the faulted device", self.fault_mail_at is not None,
                self.mail_subject or "no mail"),
        ]  # fmt: skip
        if with_prometheus:
            out.append(
                row(f"zmon paged (a critical alert about {POOL} or {VDEV} fired)",
                    self.page_at is not None, self.page_alert or "no page")
            )  # fmt: skip
        else:
            out.append(row("zmon paged", False, "not measured", "ZMON_LAB_PROMETHEUS=0"))
        return out


def timeline(
    watcher: AlertWatcher, facts: Mapping[str, str], offset: float
) -> tuple[list[str], float | None]:
    """What zmon served from the ramp until now as Prometheus stored it: one line per change
    of each TIMELINE series, at seconds since the ramp began (guest clock = host clock -
    offset); and when EVIDENCE first held (same clock), or None."""
    start = float(facts["ramp_start"])
    end = time.time() - offset  # the step's checks have waited for the alerts after FAULTED
    lines, first = [], None
    for expr in (*TIMELINE, EVIDENCE):
        for item in watcher.series(expr, start - 30 + offset, end + offset, 1.0):
            shown = sorted(item["metric"].items())
            labels = ",".join(f'{k}="{v}"' for k, v in shown if k not in ("job", "instance"))
            last = None
            for t, value in item["values"]:
                if expr == EVIDENCE:
                    at = float(t) - offset
                    first = at if first is None else min(first, at)
                    break
                if value != last:
                    lines.append(f"{float(t) - offset - start:+8.1f} s  {{{labels}}} {value}")
                    last = value
    return lines, first


RECORDING = "ramp-scrapes.txt"


def record_scrapes(watcher: AlertWatcher, facts: Mapping[str, str], offset: float) -> Recording:
    """Every scrape of zmon the lab's Prometheus stored until now, in the series the shipped
    rules read (as ``needs`` lists them), for the hermetic replay with the unscaled rules
    (tests/rules/test_lead_time.py)."""
    start = float(facts["ramp_start"])
    end = time.time()
    names = sorted(n for n in needs(shipped.conditions(DEFAULTS), shipped.records(DEFAULTS))
                   if n.startswith("zmon_"))  # fmt: skip
    scrapes: dict[float, list[str]] = {}
    for name in names:
        for item in watcher.at(f"{name}[{int(end - start) + 600}s]", end):
            shown = sorted(item["metric"].items())
            labels = ",".join(
                f'{k}="{escaped(v)}"' for k, v in shown if k not in ("__name__", "job", "instance")
            )
            for t, value in item["values"]:
                at = round(float(t) - offset - start, 3)
                scrapes.setdefault(at, []).append(f"{name}{{{labels}}} {value}")
    faulted = _time(facts, "faulted_at")
    return Recording(
        start,
        None if faulted is None else faulted - start,
        [(at, "\n".join(sorted(lines)) + "\n") for at, lines in sorted(scrapes.items())],
    )


@dataclass(frozen=True)
class Recording:
    """What zmon served during a lead-time ramp, scrape by scrape: the ramp's start (guest
    clock, Unix seconds), when ZFS faulted the disk and each scrape's time (seconds since
    the ramp began), and each scrape's exposition of the series the rules read."""

    ramp_start: float
    faulted_at: float | None
    scrapes: list[tuple[float, str]]

    def text(self) -> str:
        faulted = "none" if self.faulted_at is None else f"{self.faulted_at:+.3f}"
        out = [
            "# zmon's series during the lead-time ramp, as the lab's Prometheus scraped them",
            "# (tests/lab/leadtime.py); times in seconds since the ramp began (guest clock)",
            f"# ramp_start {self.ramp_start:.3f}",
            f"# faulted_at {faulted}",
        ]
        for at, exposition in self.scrapes:
            out.append(f"# scrape {at:+.3f}")
            out.append(exposition.rstrip("\n"))
        return "\n".join(out) + "\n"

    @classmethod
    def parse(cls, text: str) -> Recording:
        head: dict[str, str] = {}
        scrapes: list[tuple[float, list[str]]] = []
        for line in text.splitlines():
            if line.startswith("# scrape "):
                scrapes.append((float(line.split()[2]), []))
            elif line.startswith("# ") and not scrapes:
                key, _, value = line[2:].partition(" ")
                head[key] = value
            elif line and scrapes:
                scrapes[-1][1].append(line)
        faulted = head.get("faulted_at", "none")
        return cls(
            float(head["ramp_start"]),
            None if faulted == "none" else float(faulted),
            [(at, "\n".join(lines) + "\n") for at, lines in scrapes],
        )


def after_step(
    version: str, step: str, facts: Mapping[str, str], watcher: AlertWatcher | None, run_dir: Path
) -> tuple[list[Result], list[str]]:
    """The lead-time rows and summary at the FAULTED step (the session's hook)."""
    if step != FAULTED:
        return [], []
    lead = LeadTime.from_facts(version, facts)
    summary = lead.summary()
    if watcher is not None:
        # the guest's measured offset (its fastest round trip to Prometheus), else the
        # handshake's (guest_time written, host_time read: within 0.5 s)
        offset = float(facts.get("clock_offset") or 0) or (
            float(facts["host_time"]) - float(facts["guest_time"])
        )
        lines, evidence = timeline(watcher, facts, offset)
        recording = record_scrapes(watcher, facts, offset)
        (run_dir / RECORDING).write_text(recording.text())
        (run_dir / "ramp-timeline.txt").write_text(
            f"# seconds since the ramp began (guest clock; host clock - {offset:.1f} s)\n"
            + "\n".join(lines)
            + "\n"
        )
        if evidence is not None and lead.faulted_at is not None:
            summary.append(
                f"  first evidence in Prometheus ({EVIDENCE}): "
                f"{evidence - lead.ramp_start:.1f} s into the ramp, "
                f"{_after(lead.faulted_at - evidence)} FAULTED"
            )
    return lead.results(step, watcher is not None), summary


LEAD_TIME = Sequence(
    "lead-time ramp",
    "leadtime.sh",
    STEPS,
    CHECKS,
    AllCollectorsSucceed(),
    ALERTS,
    # ZfsPoolStuck reads "no txg synced within 10m" (20 s scaled) as stuck: the txg collector
    # must run more than once in that window, or a pool that syncs every 5 s looks stuck
    zmon_intervals={"txg": 5.0},
    after_step=after_step,
)
