"""README.md's figures and tables agree with the code they describe.

- ``FIGURES``: each figure the README states about the code (a default, a limit, a count) is
  found by its phrase and compared with the value the code gives; a failure names the README
  line, what it says and what the code says.
- The tables are read row by row: the collectors (names, intervals, pages), the self-metrics
  (every family zmon serves about itself, with its labels, in one table), the lab's steps.
- The demo's table of alerts is generated (tests/docs/demo_alerts.py): the alerts zmon's own
  evaluation of the shipped rules fires over the story. ``pytest tests/docs --update-golden``
  (``make golden``) rewrites it.
- Quoted output (``zmon status``) is the golden report's text.

Measured figures (benchmarks, the lab's run times) are the benchmarks' and the lab's to
print; this test holds what the code decides.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import statistics
import tomllib
from pathlib import Path
from types import ModuleType

import pytest
import yaml

from tests.docs import demo_alerts
from tests.docs import readme as md
from tests.lab import checks as lab_checks
from tests.lab import leadtime
from zmon import LAYERS
from zmon.base.failures import REASONS
from zmon.collecting import config
from zmon.collecting.config import ConfigError, load, static_settings
from zmon.collecting.registry import Collector, collectors
from zmon.daemon import SILENT_DEADLINE
from zmon.demo.host import PHASE_READER, check_pace
from zmon.demo.labslowdown import CAPTURE
from zmon.demo.timeline import LAB, PHASES, RECORDED_C_MAX, Phase
from zmon.exposition.snapshot import CollectorState, self_metrics
from zmon.health.conditions import INTERVAL as JUDGE_EVERY
from zmon.health.thresholds import DEFAULTS as T
from zmon.host import last_pools
from zmon.host.ups.apcupsd import NIS_PORT
from zmon.host.ups.nut import NUT_PORT
from zmon.runtime import channel, worker
from zmon.runtime.front import HEALTH_DEADLINE
from zmon.runtime.privileges import COLLECTING
from zmon.runtime.supervisor import WEDGED_AFTER, ReplacementBackoff
from zmon.status import page, published
from zmon.status.history import History
from zmon.status.report import EXIT_CODES, SCHEMA
from zmon.web import listen, uvicorn_glue, webapp

ROOT = md.ROOT
GUEST = ROOT / "tests" / "lab" / "guest"
WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 20: "twenty"}
SHARES = {0.1: "tenth", 0.25: "quarter"}
GIB, MIB, KIB = 1 << 30, 1 << 20, 1 << 10


def _g(value: float) -> str:
    return f"{value:g}"


def _setting(key: str) -> object:
    return next(s.default for s in static_settings() if s.key == key)


def _fastest_phase_seconds() -> str:
    """The shortest --demo.phase-seconds zmon accepts for the demo with the default config."""
    cfg = load(collectors(), None)
    for seconds in range(1, 3600):
        try:
            check_pace(cfg, seconds, PHASES)
        except ConfigError:
            continue
        return str(seconds)
    raise AssertionError("no phase unit is accepted")


def _phase(name: str) -> Phase:
    return next(p for p in PHASES if p.name == name)


def _arcstat(path: Path, field: str) -> int:
    return int(re.search(rf"^{field}\s+\d+\s+(\d+)$", path.read_text(), re.M)[1])


def _backoff() -> list[float]:
    backoff = ReplacementBackoff()
    return [backoff.after_exit(0.0) for _ in range(12)]


def _alerts_in_rules() -> int:
    doc = yaml.safe_load((ROOT / "alert_rules" / "zmon.rules.yml").read_text())
    return sum(1 for g in doc["groups"] for r in g["rules"] if "alert" in r)


def _lab_assertions() -> str:
    """The lab reports' assertions per version (ok, FAIL, PENDING, PENDING-PASSES), rounded
    to tens as the README says "about"."""
    totals = []
    for report in sorted((ROOT / "tests" / "fixtures" / "lab").glob("*/report.txt")):
        head = report.read_text().splitlines()[0]
        totals.append(sum(int(n) for n in re.findall(r"(?:ok|FAIL|PENDING|PASSES) (\d+)", head)))
    return str(int(round(statistics.mean(totals), -1)))


def _pyproject() -> dict[str, object]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def _requirement(name: str) -> str:
    project = _pyproject()["project"]
    (spec,) = [d for d in project["dependencies"] if d.startswith(name)]
    return re.search(r">=([\d.]+)", spec)[1]


def _make_variable(name: str) -> str:
    found = re.search(rf"^{name}\s+\?=\s+(\S+)$", (ROOT / "Makefile").read_text(), re.M)
    assert found, f"Makefile sets no {name}"
    return found[1]


def _alertmanager() -> dict[str, dict[str, str]]:
    return yaml.safe_load((ROOT / "packaging" / "alertmanager" / "zmon.yml").read_text())


def _guest_ramp_level_seconds() -> float:
    """The ramp's default seconds per level (its command line's)."""
    found = re.search(
        r'"--level-seconds", type=float, default=([\d.]+)', (GUEST / "ramp.py").read_text()
    )
    assert found, "tests/lab/guest/ramp.py: no --level-seconds default"
    return float(found[1])


def _guest_ramp() -> ModuleType:
    """tests/lab/guest/ramp.py, a script the lab VM runs (no package)."""
    spec = importlib.util.spec_from_file_location("lab_guest_ramp", GUEST / "ramp.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def figures() -> dict[str, tuple[object, ...]]:
    """README phrase, with ``{}`` for each figure in it -> the figures the code gives, as the
    README writes them."""
    healthy, slowdown = _phase("healthy"), _phase("slowdown")
    ram = _arcstat(CAPTURE.parent / "arcstats.txt", "memory_all_bytes")
    backoff = _backoff()
    project = _pyproject()["project"]
    return {
        # the demo (zmon/collecting/config.py, zmon/demo/)
        "is `--demo.phase-seconds`, {} s by default": (_g(_setting("demo.phase_seconds")),),
        "a loop is {} units": (sum(p.length for p in PHASES),),
        "`zmon serve --demo --demo.phase-seconds {}` for the fastest loop": (
            _fastest_phase_seconds(),
        ),
        "runs of the zpool collector, every {} s by default": (
            _g(collectors()[PHASE_READER].default_interval),
        ),
        "a {} MiB ARC under": (_arcstat(CAPTURE / "arcstats-start.txt", "c_max") // MIB,),
        "tank reads {} times as much as usual": (WORDS[round(slowdown.reads / healthy.reads)],),
        "hit ratio falls to the lab's {} %": (round(LAB.hit_ratio * 100),),
        "ghost lists hold the lab's {} % of `c_max`": (round(LAB.ghost_per_c_max * 100),),
        "{} GiB `c_max` of {} GiB": (f"{RECORDED_C_MAX / GIB:.1f}", f"{ram / GIB:.1f}"),
        "serves a {} of the ARC's misses, a {} in the slowdown": (
            SHARES[healthy.l2_hit_share],
            SHARES[slowdown.l2_hit_share],
        ),
        # packaging and dependencies (pyproject.toml, zmon/runtime/privileges.py)
        "(Python {} or newer": (project["requires-python"].removeprefix(">="),),
        "apt install ./zmon_{}_amd64.deb": (project["version"],),
        "zmon is tested with {} and later": (_requirement("uvicorn"),),
        "(`CapEff` `{}`)": (hex(sum(1 << c for c in COLLECTING.values())),),
        # configuration and the front door (zmon/collecting/config.py, listen.py, webapp.py ...)
        "above 0 and at most a {})": ({86400.0: "day"}[config.MAX_SECONDS],),
        "connections open at once (default {})": (_setting("web.max_connections"),),
        "send its request headers ({} s); how long an idle keep-alive connection stays ({} s)": (
            _g(_setting("web.read_timeout")),
            _g(_setting("web.idle_timeout")),
        ),
        "The default `:{}` is every IPv4": (config.DEFAULT_PORT,),
        "(default `:{}`: every IPv4 and IPv6 address": (config.DEFAULT_PORT,),
        "serve a simulated ZFS host on http://{}/": (_make_variable("LISTEN"),),
        "when they change and every {} minutes": (round(last_pools.REFRESH / 60),),
        "zmon therefore uses **{}**": (config.DEFAULT_PORT,),
        "a listen backlog of {} (the kernel": (listen.BACKLOG,),
        "at most {} wait or run, at most {} from one client address": (
            webapp.AUTH_MAX_PENDING,
            webapp.AUTH_PER_CLIENT,
        ),
        "at most {} KiB per line, {} KiB in all and {} headers": (
            uvicorn_glue.MAX_HEADER_LINE // KIB,
            uvicorn_glue.MAX_HEADER_BYTES // KIB,
            uvicorn_glue.MAX_HEADERS,
        ),
        "at most a {} of a core": (SHARES[webapp.PAGE_CPU_SHARE],),
        "the next waits {} C seconds": (round(1 / webapp.PAGE_CPU_SHARE),),
        "silent for {} s ({} missed reports), before it is replaced at {} s": (
            _g(SILENT_DEADLINE),
            WORDS[round(SILENT_DEADLINE / worker.HEARTBEAT_SECONDS)],
            _g(WEDGED_AFTER),
        ),
        # the processes (zmon/runtime/supervisor.py, worker.py, channel.py, front.py)
        "sends nothing for {} s (it reports every {} s)": (
            _g(WEDGED_AFTER),
            _g(worker.HEARTBEAT_SECONDS),
        ),
        "then after {}, {}, {} ... {} s": (*(_g(d) for d in backoff[1:4]), _g(max(backoff))),
        "length-prefixed bytes, at most {} MiB)": (channel.MAX_FRAME // MIB,),
        "a message of at most {} KiB, its text at most {} characters": (
            channel.MAX_FRONT_FRAME // KIB,
            f"{channel.MAX_ERROR:,}",
        ),
        "The worker runs at nice {}:": (worker.NICENESS,),
        "(`/healthz` fails when that goes silent for {} s)": (_g(HEALTH_DEADLINE),),
        "no link followed, at most {} MiB": (published.MAX_BYTES // MIB,),
        "at most {} judgment intervals old": (published.FRESH_JUDGMENTS,),
        # the status views (zmon/status/, zmon/health/conditions.py)
        "reloads every {} s": (page.REFRESH_SECONDS,),
        "(one sample per {} s at most, {} samples, one hour)": (
            _g(History().step),
            History()._points.maxlen,
        ),
        "once a {} it feeds what zmon serves": ({60.0: "minute"}[JUDGE_EVERY],),
        "`zmon status` exits {} when healthy, {} on warnings, {} on a critical problem and "
        "{} (UNKNOWN)": tuple(EXIT_CODES[s] for s in ("ok", "warning", "critical", "unknown")),
        "(`schema` {}; fields": (SCHEMA,),
        # the judgment's thresholds (zmon/health/thresholds.py)
        "when reads are at least {} times slower": (_g(T.slowdown_factor),),
        "(the median of those p99s over a {})": ({86400: "day"}[T.latency_baseline.seconds],),
        "more than {} % of the misses were": (_g(T.slowdown_ghost_share * 100),),
        "hence the {} % (`slowdown_ghost_share`)": (_g(T.slowdown_ghost_share * 100),),
        "one vdev whose reads take {} times as long as its fastest sibling's": (
            _g(T.slowdown_sibling_factor),
        ),
        "nothing is judged below {} I/Os per second": (_g(T.slowdown_min_ops),),
        "`keep_firing_for: {}`": (T.keep_firing_for.text,),
        "stays firing for {} minutes after": (WORDS[T.keep_firing_for.seconds // 60],),
        "came in each of the last {} quarter hours": (
            WORDS[T.cable_page_slices] if T.cable_page_slice.seconds == 900 else "?",
        ),
        "errors on {} or more PHYs of one expander": (WORDS[T.sas_expander_phys],),
        "a disk of a raidz2 pages once {} or more read/write errors": (T.failing_io_errors,),
        # rules, dashboards, collectors
        "`alert_rules/zmon.rules.yml` holds {} alerts": (_alerts_in_rules(),),
        "has {} dashboards": (WORDS[len(list((ROOT / "grafana" / "dashboards").glob("*.json")))],),
        "NUT `upsd` (TCP {}) and apcupsd NIS (TCP {})": (NUT_PORT, NIS_PORT),
        "timeout (the shipped {} is)": (_alertmanager()["route"]["group_interval"],),
        "zmon's collection interval ({} s by default": (
            _g(collectors()[PHASE_READER].default_interval),
        ),
        # the lab (tests/lab/, tests/fixtures/lab/)
        "(about {} assertions per version)": (_lab_assertions(),),
        "(durations scaled down {} times)": (round(1 / lab_checks.ALERT_SCALE),),
        "scales rule durations by 1/{};": (round(1 / lab_checks.ALERT_SCALE),),
        "failing {}, {}, {}, {}, {}, {}, then {} % of its writes, {} s per level": (
            *_guest_ramp().LEVELS,
            _g(_guest_ramp_level_seconds()),
        ),
    }


def _pattern(phrase: str) -> re.Pattern[str]:
    """The phrase with each ``{}`` a figure, and any white space a line break may be."""
    parts = [re.escape(p).replace(r"\ ", r"\s+") for p in phrase.split("{}")]
    return re.compile(r"([\w.,/:]+)".join(parts))


def test_the_readme_states_the_codes_figures() -> None:
    text = md.text()
    drifted = []
    for phrase, code in figures().items():
        found = list(_pattern(phrase).finditer(text))
        if not found:
            drifted.append(f"README.md no longer says {phrase!r} (tests/docs/test_readme.py)")
        want = tuple(str(v) for v in code)
        drifted += [
            f"README.md line {md.line_of(m.start())}: {' '.join(m[0].split())!r} says "
            f"{', '.join(m.groups())}; the code says {', '.join(want)}"
            for m in found
            if m.groups() != want
        ]
    assert not drifted, "\n".join(drifted)


def test_the_fastest_phase_unit_shown_is_one_zmon_accepts() -> None:
    fastest = float(_fastest_phase_seconds())
    cfg = load(collectors(), None)
    check_pace(cfg, fastest, PHASES)
    with pytest.raises(ConfigError):
        check_pace(cfg, fastest - 1, PHASES)


# ---- the demo's table of alerts

DEMO_BLOCK = "demo alerts"
DEMO_HEADER = "| phase | units | pages that start | tickets that start | resolved |"


def test_the_demo_table_has_each_phase_with_its_units() -> None:
    rows = [line for line in md.block(DEMO_BLOCK).splitlines() if line.startswith("| ")]
    assert rows[0] == DEMO_HEADER
    shown = [tuple(c.strip() for c in row.split("|")[1:3]) for row in rows[1:]]
    assert shown == [(p.name, str(p.length)) for p in PHASES], (
        "README.md's demo table lists other phases or units than zmon/demo/timeline.py; "
        "rerun with --update-golden"
    )


@pytest.mark.slow
def test_the_demo_table_is_what_the_shipped_rules_fire(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    story = demo_alerts.walk(tmp_path / "host")
    for phase in PHASES:  # the pipeline test's expectations are among them
        started = {a.name for a in story.phases[phase.name].started}
        assert set(phase.alerts) <= started, (phase.name, set(phase.alerts) - started)
    md.check_block(
        DEMO_BLOCK, demo_alerts.render(story), request.config.getoption("--update-golden")
    )


# ---- tables

COLLECTORS = "## Collectors"
COLLECTORS_HEADER = "| collector | reads | interval | page |"


def _follower(cls: type[Collector]) -> bool:
    """A collector with long-lived work of its own (the registry's ``start``)."""
    return cls.start is not Collector.start


def test_the_collectors_table_is_the_registry() -> None:
    rows = md.table(COLLECTORS, COLLECTORS_HEADER)
    registry = collectors()
    shown = [r.cells[0].strip("`") for r in rows]
    assert sorted(shown) == sorted(registry), (
        f"README.md's collectors table lists {sorted(set(shown) - set(registry))} that are no "
        f"collector and lacks {sorted(set(registry) - set(shown))}"
    )
    for row in rows:
        name = row.cells[0].strip("`")
        cls = registry[name]
        interval = "follower" if _follower(cls) else f"{cls.default_interval:g} s"
        assert row.cells[2] == interval, (
            f"README.md line {row.line}: {name}'s interval is {row.cells[2]!r}, the collector "
            f"declares {interval!r}"
        )
        page = f"[{name}](zmon/collectors/{name}/README.md)"
        assert row.cells[3] == page, f"README.md line {row.line}: {name}'s page is not {page}"


SELF = "## Self-metrics"
SELF_HEADER = "| metric | meaning |"


def _served_about_itself() -> dict[str, set[str]]:
    """Every family zmon serves about itself, with its label names: the per-collector ones
    (a collector that keeps state files, one failing), the worker's restarts and the front
    door's counters."""
    states = [
        CollectorState("ok", 1.0, 1.0, success=True, state_writable=True),
        CollectorState("failing", 1.0, 1.0, success=False, last_error_reason="timeout"),
    ]
    families = self_metrics(states, 0.0, 0.0, worker_restarts=0) + webapp.DoorCounters().families()
    out: dict[str, set[str]] = {}
    for fam in families:
        name = fam.name + "_total" if fam.type == "counter" else fam.name
        out.setdefault(name, set()).update(k for s in fam.samples for k in s.labels)
    return out


def test_the_self_metrics_table_is_every_family_zmon_serves_about_itself() -> None:
    rows = md.table(SELF, SELF_HEADER)
    split = list(md.rows_after(SELF, SELF_HEADER))
    assert not split, f"README.md lines {split}: self-metrics rows after the table has ended"
    shown: dict[str, set[str]] = {}
    for row in rows:
        m = re.fullmatch(r"`(zmon_[a-z_]+)(?:\{([a-z_,]+)\})?`", row.cells[0])
        assert m, f"README.md line {row.line}: {row.cells[0]!r} is not `name{{labels}}`"
        shown[m[1]] = set(filter(None, (m[2] or "").split(",")))
    served = _served_about_itself()
    assert shown == served, (
        f"README.md's self-metrics table: missing {sorted(set(served) - set(shown))}, "
        f"not served {sorted(set(shown) - set(served))}, labels differ on "
        f"{sorted(n for n in set(shown) & set(served) if shown[n] != served[n])}"
    )


def test_the_self_metrics_table_names_the_codes_values() -> None:
    rows = {r.cells[0]: r for r in md.table(SELF, SELF_HEADER)}
    reasons = rows["`zmon_collector_last_error_info{collector,reason}`"]
    named = re.findall(r"`([a-z_]+)`", reasons.cells[1].split("one of", 1)[1])
    assert tuple(named) == REASONS, f"README.md line {reasons.line}: reasons are {REASONS}"
    runs = rows["`zmon_collector_runs_total{collector,result}`"]
    results = tuple(CollectorState("x", 1.0, 1.0).runs)
    stated = tuple(r.strip() for r in runs.cells[1].split(":", 1)[1].split(","))
    assert stated == results, f"README.md line {runs.line}: results are {results}"


LAB_SECTION = "## The OpenZFS lab"
LAB_HEADER = "| step | what happens | what it proves |"


def test_the_lab_steps_table_is_the_lab_sequence() -> None:
    steps = lab_checks.STEPS
    rows = md.table(LAB_SECTION, LAB_HEADER)
    shown = [r.cells[0].split()[0] for r in rows]
    assert shown == [s.split("-")[0] for s in steps], (
        f"README.md's lab table numbers {shown}, the lab's steps are {list(steps)}"
    )


def test_the_lead_time_table_states_the_recorded_runs() -> None:
    """When ZED faulted the disk, as the recordings the lab kept say (the other columns are the
    live run's clocks, which no recording keeps)."""
    rows = md.table("### Lead time: does zmon page before ZFS faults the disk?", (
        "| OpenZFS | ZED faulted the disk | zmon's first page | ZED's first mail | "
        "ZED's fault mail | zmon served the first error |"))  # fmt: skip
    assert [r.cells[0] for r in rows] == list(lab_checks.VERSIONS)
    for row in rows:
        path = ROOT / "tests" / "fixtures" / "lab" / row.cells[0] / "leadtime" / leadtime.RECORDING
        faulted = leadtime.Recording.parse(path.read_text()).faulted_at
        assert faulted is not None
        stated = re.match(r"([\d.]+) s into the ramp", row.cells[1])
        assert stated and stated[1] == f"{faulted:.1f}", (
            f"README.md line {row.line}: ZED faulted the disk {faulted:.1f} s into the ramp"
        )


# ---- the architecture picture


def test_the_architecture_picture_names_every_module() -> None:
    _, lines = md.section("## Architecture")
    picture = "\n".join(lines[lines.index("```") + 1 : lines.index("```", lines.index("```") + 1)])
    named = set(re.findall(r"\b([a-z_]+)\.py\b", picture)) | set(
        re.findall(r"zmon/([a-z_]+)/", picture)
    )
    zmon = ROOT / "zmon"
    present = {p.stem for p in zmon.glob("*.py") if p.stem != "__init__"} | {
        p.parent.name for p in zmon.glob("*/__init__.py")
    }
    assert not present - named, f"README.md's architecture picture lacks {sorted(present - named)}"
    files = set(re.findall(r"zmon/([a-z_/]+\.py)", picture))
    missing = sorted(f for f in files if not (zmon / f).exists())
    assert not missing, f"README.md's architecture picture names {missing}, which do not exist"


def test_the_architecture_picture_stacks_the_layers_in_their_order() -> None:
    _, lines = md.section("## Architecture")
    drawn = [m.group(1) for line in lines if (m := re.match(r"^ ([a-z]+) +zmon/", line))]
    assert drawn == ["entry", *reversed(LAYERS)], (
        f"README.md's architecture picture stacks {drawn}; zmon.LAYERS from the top is "
        f"{list(reversed(LAYERS))} under the entry modules"
    )


def test_the_judgment_modules_named_are_those_shipped() -> None:
    listed = r"\(one module per family:(.*?)listed in\s+`shipped\.py`\)"
    sentence = re.search(listed, md.text(), re.S)
    assert sentence, "README.md no longer lists the judgment's modules"
    named = set(re.findall(r"`([a-z_]+)\.py`", sentence[1]))
    tree = ast.parse((ROOT / "zmon" / "health" / "shipped.py").read_text())
    families = {
        alias.name
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.module == "zmon.health"
        for alias in node.names
    }
    assert named == families, f"README.md names {sorted(named)}, shipped.py {sorted(families)}"


# ---- quoted output


def test_the_quoted_status_report_is_the_golden_one() -> None:
    """The example under "Health at a glance" is the demo's report in its checksum-errors
    phase (tests/status/test_demo_golden.py), line for line, in order ("..." skips)."""
    _, lines = md.section("## Health at a glance: `zmon status` and the status page")
    start = lines.index("$ zmon status")
    quoted = [ln for ln in lines[start + 1 : lines.index("```", start)] if ln != "..."]
    golden = (ROOT / "tests" / "golden" / "status" / "demo-checksum-errors.txt").read_text()
    remaining = iter(golden.splitlines())
    for line in quoted:
        assert any(line == g for g in remaining), (
            f"README.md's zmon status example: {line!r} is not (in this order) in "
            "tests/golden/status/demo-checksum-errors.txt"
        )
    healthy = (ROOT / "tests" / "golden" / "status" / "demo-healthy.txt").read_text()
    headline = healthy.splitlines()[1]
    assert f"(`{headline}`," in md.text(), f"README.md's OK status line is not {headline!r}"
