"""The differential harness: what Prometheus fires with the shipped rules against what
``zmon status --json`` reports, for one host, at the same moments.

A scenario is a timeline of what zmon served: one exposition per scrape (``Timeline``), and
at chosen moments the report ``zmon status --url`` reads from that zmon (``/?format=json``,
the status page with its history). Three kinds are replayed, all in-process and on a fixed
clock:

- the demo's stories (zmon/demo/timeline.py): the demo host walked through its phases, every
  collector run by a real ``Scheduler`` at its own interval, the status page observing each
  rendering as in the daemon (``demo_timeline``);
- the lab's captures (tests/fixtures/lab/<version>/<step>/metrics.prom): what zmon served in
  the OpenZFS VM at each step, each held until the next step's capture (``lab_timeline``).

Prometheus's side is promtool: the timeline becomes ``input_series`` (a series is absent
before zmon first serves it and stale from the first scrape that lacks it), and at each
moment a ``promql_expr_test`` asks for ``ALERTS`` with no expected sample, so that promtool
prints every pending and firing alert it holds (``prometheus_alerts``).

Both sides become sets of ``Fired`` (alert, identifying labels, severity, state); ``disagreements``
says what one side has and the other does not. A status finding without an alert is on the
status side as ``(finding <rule>)``: something status reports that no alert says.
"""

from __future__ import annotations

import contextlib
import math
import re
import subprocess
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from unittest import mock

import yaml
from prometheus_client.parser import text_string_to_metric_families

from alert_rules.generate import group_names

REPO = Path(__file__).resolve().parents[2]
LAB = REPO / "tests" / "fixtures" / "lab"
RULES_FILE = REPO / "alert_rules" / "zmon.rules.yml"
TARGET = {"instance": "h1:10124", "job": "zmon"}  # the scrape target's labels
VOLATILE = ("instance", "job")  # the target's labels: one host, left out on both sides
STEP = 15.0  # seconds between scrapes and between rule evaluations
START = 1_795_997_000.0  # the demo story starts here (the lab's captures were made then)


@dataclass(frozen=True, order=True)
class Fired:
    """One alert as an on-call admin sees it: name, identifying labels, severity, state."""

    alert: str
    labels: tuple[tuple[str, str], ...]
    severity: str
    state: str  # "firing" or "pending"

    def __str__(self) -> str:
        labels = ", ".join(f'{k}="{v}"' for k, v in self.labels)
        return f"{self.alert}{{{labels}}} {self.severity} {self.state}"


def fired(alert: str, labels: Mapping[str, str], severity: str, state: str) -> Fired:
    kept = tuple(sorted((k, v) for k, v in labels.items() if k not in VOLATILE and v != ""))
    return Fired(alert, kept, severity, state)


@dataclass
class Moment:
    """A moment compared: its scrape index on the timeline and zmon's report then."""

    index: int
    name: str  # what the scenario is doing ("degraded +45s")
    report: dict[str, Any]


@dataclass
class Timeline:
    """What zmon served, one exposition per scrape from ``start`` (None: nothing served)."""

    name: str
    start: float
    step: float
    scrapes: list[str | None] = field(default_factory=list)
    moments: list[Moment] = field(default_factory=list)


# ---- zmon's side


def status_alerts(report: Mapping[str, Any]) -> frozenset[Fired]:
    """What the report says fires or is pending: each finding as its alert, or as
    ``(finding <rule>)`` when it names none."""
    out = set()
    for f in report["findings"]:
        if f.get("alert"):
            labels = f.get("alert_labels", f["labels"])
            out.add(fired(f["alert"], labels, f["severity"], f.get("state", "firing")))
        else:
            out.add(fired(f"(finding {f['rule']})", f["labels"], f["severity"], "firing"))
    return frozenset(out)


# ---- Prometheus's side


def _series_name(name: str, labels: Mapping[str, str]) -> str:
    def quote(v: str) -> str:
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'

    inner = ", ".join(f"{k}={quote(v)}" for k, v in sorted(labels.items()))
    return f"{name}{{{inner}}}"


def _value(v: float) -> str:
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "Inf" if v > 0 else "-Inf"
    return repr(float(v))


# A timestamp zmon serves, by Prometheus's naming rule (0: none yet, as zmon says it)
TIMESTAMP = re.compile(r"_(?:timestamp|time)_seconds$")


def input_series(timeline: Timeline) -> list[dict[str, str]]:
    """promtool's ``input_series``: each series as zmon served it, scrape by scrape; absent
    before zmon first served it, ``stale`` at the first scrape that lacks it afterwards.

    promtool's clock starts at 0, where the timeline starts: every timestamp zmon serves is
    moved by as much, so that ``time() - timestamp`` is the same age as on the host."""
    table: dict[str, dict[int, float]] = {}
    for i, text in enumerate(timeline.scrapes):
        if text is None:
            continue
        table.setdefault(_series_name("up", TARGET), {})[i] = 1.0  # the scrape succeeded
        for fam in text_string_to_metric_families(text):
            for s in fam.samples:
                key = _series_name(s.name, {**s.labels, **TARGET})
                value = s.value
                if value and TIMESTAMP.search(s.name):
                    value -= timeline.start
                table.setdefault(key, {})[i] = value
    out = []
    n = len(timeline.scrapes)
    for key in sorted(table):
        values = table[key]
        first = min(values)
        cells = ["_"] * first
        for i in range(first, n):
            if i in values:
                cells.append(_value(values[i]))
            else:
                cells.append("stale" if (i - 1) in values else "_")
        out.append({"series": key, "values": " ".join(cells)})
    return out


def test_file(timeline: Timeline, rules_file: Path = RULES_FILE) -> dict[str, Any]:
    step = f"{timeline.step:g}s"
    return {
        "rule_files": [str(rules_file)],
        "evaluation_interval": step,
        "group_eval_order": group_names(),
        "tests": [
            {
                "name": timeline.name,
                "interval": step,
                "input_series": input_series(timeline),
                "promql_expr_test": [
                    {"expr": "ALERTS", "eval_time": _at(timeline, m.index), "exp_samples": []}
                    for m in timeline.moments
                ],
            }
        ],
    }


def _at(timeline: Timeline, index: int) -> str:
    return f"{round(index * timeline.step)}s"


_EVAL = re.compile(r'^\s+expr: "ALERTS", time: (\S+),$')
_LABEL = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')


def _seconds(go: str) -> float:
    """Go's duration text ('1m30s', '45s', '0s', '1h2m3s') in seconds."""
    units = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}
    parts = re.findall(r"([\d.]+)(ms|h|m|s)", go)
    if not parts:
        raise ValueError(f"not a Go duration: {go!r}")
    return sum(float(n) * units[u] for n, u in parts)


def parse_alerts(output: str) -> dict[float, frozenset[Fired]]:
    """promtool's failure report of the ``ALERTS`` queries: eval time (s) -> alerts. A moment
    with no alert passes its test and is not in the report."""
    out: dict[float, frozenset[Fired]] = {}
    at: float | None = None
    for line in output.splitlines():
        m = _EVAL.match(line)
        if m:
            at = _seconds(m.group(1))
            continue
        stripped = line.strip()
        if at is not None and stripped.startswith("got:"):
            items = set()
            for sample in re.findall(r"\{([^{}]*)\}", stripped):
                labels = {
                    k: bytes(v, "utf-8").decode("unicode_escape") for k, v in _LABEL.findall(sample)
                }
                alert, state = labels.pop("alertname"), labels.pop("alertstate")
                severity = labels.pop("severity", "")
                labels.pop("__name__", None)
                items.add(fired(alert, labels, severity, state))
            out[at] = frozenset(items)
            at = None
    return out


def without_annotations(rules_text: str) -> str:
    """The rules with their annotations left out: what fires, with which labels and when, is
    the same, and promtool then does not expand the templates' queries at each evaluation
    (most of its time)."""
    doc = yaml.safe_load(rules_text)
    for group in doc["groups"]:
        for rule in group["rules"]:
            rule.pop("annotations", None)
    return str(yaml.safe_dump(doc, sort_keys=False, width=1 << 20))


def prometheus_alerts(
    timeline: Timeline, promtool: str, workdir: Path, rules_file: Path = RULES_FILE
) -> dict[int, frozenset[Fired]]:
    """The alerts promtool holds at each moment of ``timeline``: moment index -> set."""
    workdir.mkdir(parents=True, exist_ok=True)
    rules = workdir / "rules.yml"
    rules.write_text(without_annotations(rules_file.read_text()))
    path = workdir / "differential.test.yml"
    path.write_text(yaml.safe_dump(test_file(timeline, rules), sort_keys=False, width=1 << 20))
    run = subprocess.run(
        [promtool, "test", "rules", path.name],
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=600,
    )
    found = parse_alerts(run.stdout + run.stderr)
    if run.returncode != 0 and not found:
        raise RuntimeError(f"promtool failed on {timeline.name}:\n{run.stdout[-4000:]}{run.stderr}")
    return {m.index: found.get(m.index * timeline.step, frozenset()) for m in timeline.moments}


# ---- the comparison


# ---- the lab's captures


def lab_steps(version: str) -> list[Path]:
    return sorted(p for p in (LAB / version).iterdir() if (p / "metrics.prom").exists())


def capture_time(text: str) -> float:
    """When zmon served a capture: its newest collector success."""
    return max(
        float(v)
        for v in re.findall(
            r"^zmon_collector_last_success_timestamp_seconds\{[^}]*\} (\S+)$", text, re.M
        )
    )


def lab_timeline(version: str, step: float = STEP) -> Timeline:
    """The lab run of ``version`` as zmon served it: each step's capture from its moment until
    the next; compared right after each capture and just before the next."""
    from zmon.health.evaluator import host_evaluator
    from zmon.status.alerting import Judgment
    from zmon.status.history import History
    from zmon.status.model import read_model
    from zmon.status.report import report_of
    from zmon.status.slowdown import Recorded

    captures = [(capture_time(t), t, p.name) for p in lab_steps(version) for t in
                [(p / "metrics.prom").read_text()]]  # fmt: skip
    start = captures[0][0]
    end = captures[-1][0] + 4 * step
    timeline = Timeline(f"lab {version}", start, step)
    history = History()
    judge = host_evaluator(step, known_from=start)  # (the lab's run starts with its pools)
    onsets: dict[Any, float] = {}
    n = int((end - start) // step) + 1
    for i in range(n):
        now = start + i * step
        current = [c for c in captures if c[0] <= now + 1e-6]
        _, text, name = current[-1]
        timeline.scrapes.append(text)
        families = list(text_string_to_metric_families(text))
        model = read_model(families)
        history.observe(now, model)
        judge.feed(families, now)
        judge.evaluate(now)
        judgment = Judgment.of(judge)
        report = report_of(model, now, host="lab", history=history.view(), onsets=onsets,
                           judgment=judgment, recorded=Recorded.of(judge))  # fmt: skip
        next_capture = [c for c in captures if c[0] > now + 1e-6]
        first_in_step = i == 0 or (start + (i - 1) * step) < current[-1][0] - 1e-6
        last_in_step = not next_capture or next_capture[0][0] <= now + step + 1e-6
        if first_in_step or last_in_step:
            held = now - current[-1][0]
            timeline.moments.append(Moment(i, f"{name} +{held:.0f}s", report))
    return timeline


# ---- the demo's stories


class SteppedClock:
    def __init__(self, t: float) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


NOT_HERE = ("hotplug", "sas_phy")  # this machine's udev; the demo has no SAS HBA or expander
FOLLOWERS = ("kernel_log", "zpool_events")


@contextlib.contextmanager
def _stepped_time(clock: SteppedClock) -> Iterator[None]:
    """Collectors, the snapshot and the status page stamp with ``time.time()``."""
    with mock.patch.object(time, "time", clock):
        yield


def demo_timeline(
    name: str,
    phases: Sequence[Any],
    root: Path,
    *,
    step: float = STEP,
    phase_seconds: float = 60.0,
    moments: Callable[[int, float, float], bool] | None = None,
) -> Timeline:
    """The demo host walked through ``phases`` (a story of zmon/demo/timeline.py, or a variant
    of one), zmon's collectors run by a ``Scheduler`` each at its own interval, the status
    page observing every rendering; compared at the first and last scrape of each phase
    (``moments(index, seconds into the phase, phase length)`` chooses others)."""
    from tests.demo.conftest import PhaseRunner, demo_config, make_collector
    from zmon.collecting.registry import Board, collectors
    from zmon.collecting.scheduler import Scheduler
    from zmon.demo import host as demo_host
    from zmon.demo.host import DemoHost
    from zmon.demo.timeline import starts
    from zmon.host.devices import DeviceMapCache
    from zmon.status.page import StatusPage

    story = f"differential-{name}"
    clock = SteppedClock(START)
    timeline = Timeline(name, START, step)
    with _stepped_time(clock), mock.patch.dict(demo_host.STORIES, {story: tuple(phases)}):
        host = DemoHost(phase_seconds=phase_seconds, root=root, story=story, clock=clock)
        host.upsd.start()
        cfg = demo_config(host)
        board, devices = Board(), DeviceMapCache(host.paths)
        scheduler = Scheduler(on_update=lambda state: None)
        # judged at each scrape, as promtool evaluates the rules here (every ``step``)
        # (the demo host starts with the story: nothing happened on it before, for
        # Prometheus here as for zmon, so the declarations judge from the first scrape)
        page = StatusPage(scheduler.snapshot, host="demo", clock=clock, judge_every=step,
                          known_from=START)  # fmt: skip
        scheduler.snapshot.on_render.append(page.observe)
        runner = PhaseRunner(host, clock)
        try:
            for cname in collectors():
                if cname in NOT_HERE or not cfg.collectors[cname].enabled:
                    continue
                follower = cname in FOLLOWERS
                collector = make_collector(
                    host,
                    cname,
                    runner=None if follower else runner,
                    board=board,
                    devices=devices,
                    one_shot=False,
                )
                settings = cfg.collectors[cname]
                scheduler.add(collector, settings.interval, settings.timeout)
            layers = scheduler.order()
            for w in scheduler.workers.values():
                w.collector.start()
            for cname in FOLLOWERS:  # the logs are followed from their end, as by a daemon
                scheduler.workers[cname].collector.collect()
            skipped = _log_lines(host)
            last_run: dict[str, float] = {}
            bounds = starts(tuple(phases))
            units = sum(p.length for p in phases)
            total = units * phase_seconds
            n = int(total // step)
            for i in range(n):
                now = START + i * step
                clock.t = now
                host.tick(now)
                _settle_followers(host, scheduler, skipped)
                for layer in layers:
                    for w in layer:
                        interval = w.state.interval
                        if w.state.name in last_run and now - last_run[w.state.name] < interval:
                            continue
                        last_run[w.state.name] = now
                        w.run_once()
                scheduler.snapshot.rerender()
                timeline.scrapes.append(scheduler.snapshot.exposition.text.decode())
                elapsed_units = (now - START) / phase_seconds
                index = max(k for k, s in enumerate(bounds) if s <= elapsed_units + 1e-9)
                phase = phases[index]
                into = now - (START + bounds[index] * phase_seconds)
                length = phase.length * phase_seconds
                chosen = (
                    moments(index, into, length)
                    if moments is not None
                    else into < step or into + step >= length
                )
                if chosen:
                    timeline.moments.append(Moment(i, f"{phase.name} +{into:.0f}s", page.report()))
        finally:
            scheduler.stop()
            host.stop()
    return timeline


def _log_lines(host: Any) -> int:
    from zmon.demo.host import KERN_LOG

    return int(host.paths.root(KERN_LOG).read_text().count("\n"))


def _settle_followers(host: Any, scheduler: Any, skipped: int) -> None:
    """Let the followers (kernel log, zpool events) read what the host has appended: a daemon
    reads it within a second; here the next run must see all of it."""
    from tests.support.waiting import poll

    lines = _log_lines(host) - skipped
    events = len(re.findall(r"(?m)^\s+eid = ", (host.root / "events.log").read_text()))

    def kernel_read() -> bool:
        ms = scheduler.workers["kernel_log"].collector.collect()
        read = sum(
            s.value
            for f in ms.families()
            for s in f.samples
            if s.name == "zmon_kernel_log_lines_read_total"
        )
        return bool(read >= lines)

    def events_read() -> bool:
        counter = scheduler.workers["zpool_events"].collector.counter
        return counter.cursor is not None and counter.cursor.eid >= events

    assert poll(kernel_read, timeout=20), "kernel_log did not read the demo's log"
    assert poll(events_read, timeout=20), "zpool_events did not read the demo's events"


def variant(phases: Sequence[Any], **changes: Any) -> tuple[Any, ...]:
    """``phases`` with ``changes`` applied to the last (the incident's) phase."""
    return (*phases[:-1], replace(phases[-1], **changes))


# ---- the scenarios


def _fleet(story: str, power_cut: bool) -> tuple[Any, ...]:
    """A host of tests/fleet/test_incidents.py: its story, and the power cut of the UPS it
    reads in its incident's phase (the fleet's shared NUT server; here the demo's own UPS)."""
    from zmon.demo.timeline import STORIES

    phases = STORIES[story]
    return variant(phases, on_battery=True) if power_cut else tuple(phases)


# name -> (story's phases, or a lab version)
DEMO_STORIES: dict[str, Callable[[], tuple[Any, ...]]] = {
    "demo": lambda: _fleet("demo", power_cut=False),
    # tests/fleet/test_incidents.py's hosts (``down``, zmon killed, is for Prometheus alone:
    # a host cannot report itself down)
    "fleet cable": lambda: _fleet("cable-fault", power_cut=True),
    "fleet scrub": lambda: _fleet("scrub-repairs-checksum-errors", power_cut=False),
    "fleet offline": lambda: _fleet("mirror-member-offline", power_cut=True),
    "fleet never": lambda: _fleet("never-scrubbed", power_cut=True),
}
LAB_VERSIONS = ("2.1.11", "2.3.2")
SCENARIOS = (*DEMO_STORIES, *(f"lab {v}" for v in LAB_VERSIONS))
# What Prometheus alone can say: the target down or missing (status says it cannot know)
UNSEEN_BY_STATUS = ("ZmonTargetDown", "ZmonTargetMissing")


def timeline_of(scenario: str, workdir: Path) -> Timeline:
    if scenario.startswith("lab "):
        return lab_timeline(scenario.removeprefix("lab "))
    return demo_timeline(scenario, DEMO_STORIES[scenario](), workdir / "host")


@dataclass(frozen=True)
class Compared:
    """Both sides at one moment of one scenario."""

    scenario: str
    moment: str
    prometheus: frozenset[Fired]
    status: frozenset[Fired]


def run_scenario(scenario: str, promtool: str, workdir: Path) -> list[Compared]:
    timeline = timeline_of(scenario, workdir)
    prom = prometheus_alerts(timeline, promtool, workdir / "promtool")
    return [
        Compared(
            scenario,
            m.name,
            frozenset(f for f in prom[m.index] if f.alert not in UNSEEN_BY_STATUS),
            status_alerts(m.report),
        )
        for m in timeline.moments
    ]


def disagreements(compared: Sequence[Compared], alert: str | None = None) -> list[str]:
    """Each moment where the two sides differ (on ``alert`` only, when given), in words."""
    out = []
    for c in compared:
        prom = {f for f in c.prometheus if alert is None or f.alert == alert}
        status = {f for f in c.status if alert is None or f.alert == alert}
        if prom != status:
            lines = [f"{c.scenario} at {c.moment}:"]
            lines += [f"  Prometheus only: {f}" for f in sorted(prom - status)]
            lines += [f"  status only:     {f}" for f in sorted(status - prom)]
            out.append("\n".join(lines))
    return out


def main() -> None:
    """Print every disagreement of every scenario (``python -m tests.rules.differential``)."""
    import shutil
    import sys
    import tempfile

    promtool = shutil.which("promtool")
    if promtool is None:
        sys.exit("promtool is not installed")
    chosen = sys.argv[1:] or list(SCENARIOS)
    with tempfile.TemporaryDirectory() as tmp:
        for scenario in chosen:
            started = time.monotonic()
            workdir = Path(tmp) / scenario.replace(" ", "-")
            compared = run_scenario(scenario, promtool, workdir)
            differ = disagreements(compared)
            took = time.monotonic() - started
            print(f"## {scenario}: {len(compared)} moments, {len(differ)} differ ({took:.0f}s)")
            for text in differ:
                print(text)


if __name__ == "__main__":
    main()
