"""Evaluate the lab's assertion table against zmon's live exposition.

A `Check` names a step of the guest driver, a metric, a label selector and an expectation.
The selector matches every series whose labels include the given ones (a tuple value means
"any of these"; a value starting with ``$`` is looked up in the facts the guest published,
e.g. ``$dev.ata-QEMU_HARDDISK_ZLSATA0`` -> ``sdb``). Matching series are summed. A check with
``pending`` set is evaluated and reported but never fails the run: it waits for a collector.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from prometheus_client.parser import text_string_to_metric_families

Labels = Mapping[str, str | tuple[str, ...]]
ALL_STEPS = "*"


# ---------------------------------------------------------------------- scrapes
class Scrape:
    """One parsed /metrics response."""

    def __init__(self, text: str, at: float | None = None) -> None:
        self.text = text
        self.at = time.time() if at is None else at
        self.samples: list[tuple[str, dict[str, str], float]] = []
        for family in text_string_to_metric_families(text):
            for s in family.samples:
                self.samples.append((s.name, dict(s.labels), float(s.value)))

    def select(self, name: str, labels: Mapping[str, tuple[str, ...]]) -> list[float]:
        return [
            v
            for n, lab, v in self.samples
            if n == name and all(lab.get(k, "") in want for k, want in labels.items())
        ]

    def value(self, name: str, labels: Mapping[str, tuple[str, ...]]) -> float | None:
        found = self.select(name, labels)
        return math.fsum(found) if found else None

    def label_values(self, name: str, label: str) -> list[str]:
        return sorted({lab.get(label, "") for n, lab, _ in self.samples if n == name})

    def names(self) -> set[str]:
        return {n for n, _, _ in self.samples}


def filter_exposition(text: str, keep: Callable[[str], bool]) -> str:
    """The exposition reduced to the families whose sample names pass `keep`."""
    out, family_lines, family_ok = [], [], False
    for line in text.splitlines():
        if line.startswith("# "):
            parts = line.split(" ", 3)
            if len(parts) >= 3 and parts[1] == "HELP":
                out += family_lines if family_ok else []
                family_lines, family_ok = [], False
            family_lines.append(line)
            continue
        name = line.split("{", 1)[0].split(" ", 1)[0]
        family_ok = family_ok or keep(name)
        family_lines.append(line)
    out += family_lines if family_ok else []
    return "".join(f"{line}\n" for line in out)


# ---------------------------------------------------------------------- expectations
@dataclass(frozen=True)
class Expect:
    """A predicate over the summed value (None: no matching series)."""

    text: str
    test: Callable[[float | None], bool]
    # when set, the value is compared with the same selection in an earlier step's scrape
    step: str | None = None
    # when set, the check compares two scrapes `window` seconds apart (delta = later - first)
    window: float = 0.0
    # with a window: passes as soon as a later scrape satisfies it (else at most `window`)
    early: bool = False

    def __str__(self) -> str:
        return self.text


def eq(x: float) -> Expect:
    return Expect(f"== {x:g}", lambda v: v is not None and v == x)


def gt(x: float) -> Expect:
    return Expect(f"> {x:g}", lambda v: v is not None and v > x)


def ge(x: float) -> Expect:
    return Expect(f">= {x:g}", lambda v: v is not None and v >= x)


def between(lo: float, hi: float) -> Expect:
    return Expect(f"in [{lo:g}, {hi:g}]", lambda v: v is not None and lo <= v <= hi)


def present() -> Expect:
    return Expect("present", lambda v: v is not None)


def absent() -> Expect:
    return Expect("absent", lambda v: v is None)


def same_as(step: str) -> Expect:
    """Equal to the value the same selection had at an earlier step (and present)."""
    return Expect(f"== value at {step}", lambda v: v is not None, step=step)


def greater_than_at(step: str) -> Expect:
    return Expect(f"> value at {step}", lambda v: v is not None, step=step)


def advancing(window: float) -> Expect:
    """The value grows within `window` seconds (fresh collections at both ends). Scans issue
    in bursts, so the window is an upper bound: the check passes at the first growth."""
    return Expect(
        f"grows within {window:g} s", lambda d: d is not None and d > 0, window=window, early=True
    )


def stalled(window: float, max_delta: float) -> Expect:
    """The value moves by at most max_delta over `window` seconds."""
    return Expect(
        f"moves <= {max_delta:g} over {window:g} s",
        lambda d: d is not None and 0 <= d <= max_delta,
        window=window,
    )


# ---------------------------------------------------------------------- checks
@dataclass(frozen=True)
class Check:
    steps: tuple[str, ...]
    metric: str
    labels: Labels
    expect: Expect
    what: str
    versions: tuple[str, ...] = ()
    pending: str = ""
    settle: float = 30.0
    # when set, the row passes if any of these rows passes (metric/labels/expect unused)
    alternatives: tuple[Check, ...] = ()

    def applies(self, step: str, version: str) -> bool:
        return (ALL_STEPS in self.steps or step in self.steps) and (
            not self.versions or version in self.versions
        )

    def selector(self, facts: Mapping[str, str]) -> dict[str, tuple[str, ...]]:
        out: dict[str, tuple[str, ...]] = {}
        for k, v in self.labels.items():
            values = v if isinstance(v, tuple) else (v,)
            out[k] = tuple(facts.get(x[1:], x) if x.startswith("$") else x for x in values)
        return out

    def describe(self, facts: Mapping[str, str]) -> str:
        if self.alternatives:
            return " OR ".join(f"({a.describe(facts)})" for a in self.alternatives)
        sel = ",".join(f'{k}="{"|".join(v)}"' for k, v in self.selector(facts).items())
        return f"{self.metric}{{{sel}}} {self.expect}"


def any_of(steps: str | Iterable[str], what: str, *rows: Check, **kw: object) -> Check:
    """Table helper: passes when one of the rows passes (for behaviour that may go two ways)."""
    names = (steps,) if isinstance(steps, str) else tuple(steps)
    return Check(names, "any-of", {}, present(), what, alternatives=rows, **kw)  # type: ignore[arg-type]


def check(
    steps: str | Iterable[str], metric: str, labels: Labels, expect: Expect, what: str, **kw: object
) -> Check:
    """Table helper: one step name or several."""
    names = (steps,) if isinstance(steps, str) else tuple(steps)
    return Check(names, metric, labels, expect, what, **kw)  # type: ignore[arg-type]


@dataclass(frozen=True)
class AllCollectorsSucceed:
    """zmon_collector_success == 1 for every collector zmon reports, at every step.

    `exceptions` maps collector -> one or more (reason, steps, versions); empty steps or
    versions mean all: {"datasets": [("reason", ("14-pool-suspended",), ("2.3.2",))]}.
    """

    exceptions: Mapping[str, list[tuple[str, tuple[str, ...], tuple[str, ...]]]] = field(
        default_factory=dict
    )

    def expand(self, scrape: Scrape, step: str, version: str) -> list[Check]:
        out = []
        for name in scrape.label_values("zmon_collector_success", "collector"):
            pending = "; ".join(
                reason
                for reason, steps, versions in self.exceptions.get(name, [])
                if (not steps or step in steps) and (not versions or version in versions)
            )
            out.append(
                Check(
                    (step,),
                    "zmon_collector_success",
                    {"collector": name},
                    eq(1),
                    f"collector {name} succeeds",
                    pending=pending,
                    settle=20.0,
                )
            )
        return out


# ---------------------------------------------------------------------- results
@dataclass
class Result:
    step: str
    check: Check
    description: str
    ok: bool
    observed: str

    @property
    def pending(self) -> bool:
        return bool(self.check.pending)

    def line(self) -> str:
        if self.pending:
            mark = "PENDING-PASSES" if self.ok else "PENDING"
        else:
            mark = "ok" if self.ok else "FAIL"
        tail = f"  [pending: {self.check.pending}]" if self.pending else ""
        return f"{mark:14} {self.step:28} {self.description}  (saw {self.observed}){tail}"


def _fmt(v: float | None) -> str:
    return "nothing" if v is None else f"{v:g}"


def evaluate(
    chk: Check, scrape: Scrape, facts: Mapping[str, str], history: Mapping[str, Scrape]
) -> tuple[bool, str]:
    """(passes, observed) for a check without a time window."""
    if chk.alternatives:
        seen = [evaluate(a, scrape, facts, history) for a in chk.alternatives]
        return any(ok for ok, _ in seen), " | ".join(o for _, o in seen)
    sel = chk.selector(facts)
    v = scrape.value(chk.metric, sel)
    e = chk.expect
    if e.step is not None:
        earlier = history.get(e.step)
        if earlier is None:
            return False, f"{_fmt(v)} (no scrape of {e.step})"
        before = earlier.value(chk.metric, sel)
        if before is None or v is None:
            return False, f"{_fmt(v)} (at {e.step}: {_fmt(before)})"
        ok = v == before if e.text.startswith("==") else v > before
        return ok, f"{_fmt(v)} (at {e.step}: {_fmt(before)})"
    return e.test(v), _fmt(v)


class StepRunner:
    """Scrape, wait for fresh data, evaluate one step's checks (with settle time)."""

    def __init__(
        self,
        scrape: Callable[[], str],
        version: str,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        wait_fresh: bool = True,
    ) -> None:
        self.scrape_text = scrape
        self.fresh = wait_fresh
        self.version = version
        self.sleep = sleep
        self.clock = clock
        self.history: dict[str, Scrape] = {}
        self.facts: dict[str, str] = {}

    def scrape(self) -> Scrape:
        return Scrape(self.scrape_text())

    def wait_fresh(self, since: float | Mapping[str, float], timeout: float = 60.0) -> Scrape:
        """A scrape in which every collector ran (started) after `since` (guest wall time,
        or per collector).

        A collector that keeps failing cannot show a fresh success: two more runs of it,
        whatever their result, count as fresh too. Collectors on long intervals (SMART,
        datasets...) are not waited for; rows about them use their settle time.
        """
        first = self.scrape()
        runs0 = _runs(first)
        deadline = self.clock() + timeout
        s = first
        while True:
            stale = [
                c
                for c in _frequent(s)
                if not _fresh(s, c, since if isinstance(since, float) else since.get(c, 0.0))
                and _runs(s).get(c, 0) - runs0.get(c, 0) < 2
            ]
            if not stale or self.clock() > deadline:
                return s
            self.sleep(1.0)
            s = self.scrape()

    def run(
        self,
        step: str,
        facts: Mapping[str, str],
        checks: Iterable[Check],
        collectors: AllCollectorsSucceed | None = None,
    ) -> tuple[list[Result], Scrape]:
        self.facts.update(facts)
        since = float(facts.get("guest_time", "0"))
        scrape = self.wait_fresh(since) if self.fresh else self.scrape()
        mine = [c for c in checks if c.applies(step, self.version)]
        if collectors is not None:
            mine += collectors.expand(scrape, step, self.version)
        plain = [c for c in mine if not c.expect.window]
        timed = [c for c in mine if c.expect.window]
        results: dict[int, Result] = {}
        start = self.clock()
        while True:
            for i, c in enumerate(plain):
                if i in results and results[i].ok:
                    continue
                ok, seen = evaluate(c, scrape, self.facts, self.history)
                results[i] = Result(step, c, c.describe(self.facts), ok, seen)
            # pending rows are re-evaluated while waiting but never hold the step up
            waiting = [
                plain[i]
                for i, r in results.items()
                if not r.ok and not r.pending and self.clock() - start < plain[i].settle
            ]
            if not waiting:
                break
            self.sleep(2.0)
            scrape = self.scrape()
        out = [results[i] for i in sorted(results)]
        out += self._timed(step, timed, scrape)
        self.history[step] = scrape
        return out, scrape

    def _timed(self, step: str, timed: list[Check], first: Scrape) -> list[Result]:
        if not timed:
            return []
        window = max(c.expect.window for c in timed)
        t0 = self.clock()
        done: dict[int, Result] = {}
        later = first
        while len(done) < len(timed):
            elapsed = self.clock() - t0
            self.sleep(max(0.0, min(5.0, window - elapsed)))
            # every collector ran again since the first scrape
            later = self.wait_fresh({c: t + 0.001 for c, t in _starts(first).items()}, timeout=60.0)
            over = self.clock() - t0 >= window
            for i, c in enumerate(timed):
                if i in done:
                    continue
                sel = c.selector(self.facts)
                a, b = first.value(c.metric, sel), later.value(c.metric, sel)
                delta = None if a is None or b is None else b - a
                ok = c.expect.test(delta)
                if over or (ok and c.expect.early):
                    done[i] = Result(step, c, c.describe(self.facts), ok, f"{_fmt(a)} -> {_fmt(b)}")
        return [done[i] for i in sorted(done)]


FRESH_MAX_INTERVAL = 10.0


def _frequent(s: Scrape) -> list[str]:
    """Collectors whose interval is short enough to wait for a fresh run."""
    out = []
    for c in s.label_values("zmon_collector_success", "collector"):
        interval = s.value("zmon_collector_interval_seconds", {"collector": (c,)})
        if interval is None or interval <= FRESH_MAX_INTERVAL:
            out.append(c)
    return out


def _runs(s: Scrape) -> dict[str, float]:
    out: dict[str, float] = {}
    for n, lab, v in s.samples:
        if n == "zmon_collector_runs_total":
            out[lab.get("collector", "")] = out.get(lab.get("collector", ""), 0.0) + v
    return out


def _fresh(s: Scrape, collector: str, since: float) -> bool:
    sel = {"collector": (collector,)}
    last = s.value("zmon_collector_last_success_timestamp_seconds", sel)
    dur = s.value("zmon_collector_duration_seconds", sel) or 0.0
    return last is not None and last - dur >= since


def _starts(s: Scrape) -> dict[str, float]:
    """Start time (guest clock) of each collector's last successful run."""
    out = {}
    for c in s.label_values("zmon_collector_success", "collector"):
        sel = {"collector": (c,)}
        last = s.value("zmon_collector_last_success_timestamp_seconds", sel)
        if last is not None:
            out[c] = last - (s.value("zmon_collector_duration_seconds", sel) or 0.0)
    return out
