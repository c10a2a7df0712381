"""One lab run: boot the VM, follow the guest through every step, check and record zmon.

A run walks one `Sequence`: the fault sequence (guest/driver.sh, tests/lab/checks.py), used by
the live test (tests/lab/test_live.py) and by `make lab-capture` (tests/lab/capture.py), so
both see exactly the same sequence; or the lead-time ramp (guest/leadtime.sh,
tests/lab/leadtime.py).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tests.collectors.ups.nutlab import NutLab
from tests.helpers import IN_CI
from tests.lab import checks
from tests.lab.engine import AllCollectorsSucceed, Check, Result, StepRunner, filter_exposition
from tests.lab.labvm import GUEST_PORT, LabError, LabVM, Manifest, track
from tests.lab.privilege_checks import WEB_USER, privilege_results, published
from tests.lab.prometheus import AlertWatcher
from tests.lab.status_checks import status_results
from tests.packaging.unit import setpriv_flags

# Collection in the VM. TCG runs tens of times slower than hardware, so the lab shortens the
# intervals (a step is seen within seconds) but lengthens the hard timeouts.
DEFAULT_INTERVAL = 10.0
# Intervals keep zmon's own load on the slow guest moderate: the host waits for a fresh run of
# every collector on DEFAULT_INTERVAL or less (engine.FRESH_MAX_INTERVAL) at each step.
INTERVALS = {"zpool": 5.0, "zpool_events": 5.0, "kernel_log": 5.0, "smart": 120.0,
             "datasets": 30.0, "dedup": 60.0, "devices": 60.0, "iostat": 30.0, "txg": 15.0,
             "pool_kstats": 15.0, "zfs_kstats": 15.0}  # fmt: skip
MIN_TIMEOUT = 30.0
COMMAND_TIMEOUT = 25.0  # a `zpool status -D` behind a slowed resilver's txg sync takes >10 s
HOST_FROM_GUEST = "10.0.2.2"
# Collector options for the VM, applied only when the collector declares the option.
OPTIONS = {("smart", "jitter"): "0"}


def zmon_args(
    nut_port: int | None = None, intervals: Mapping[str, float] | None = None
) -> list[str]:
    """`zmon serve` flags for the guest, from the collectors this tree registers (`intervals`
    overrides INTERVALS); the HTTP process drops to WEB_USER, as with the shipped unit."""
    intervals = {**INTERVALS, **(intervals or {})}
    from zmon.collecting.registry import collectors

    args = ["--web.listen-address", f":{GUEST_PORT}", "--web.user", WEB_USER,
            "--log.format", "json",
            "--path.state-dir", "/var/lib/zmon",
            "--command.timeout", str(COMMAND_TIMEOUT)]  # fmt: skip
    if nut_port is not None:  # qemu's user network forwards 10.0.2.2 to the host's loopback
        args += ["--ups.nut", f"{HOST_FROM_GUEST}:{nut_port}"]
    for name, cls in sorted(collectors().items()):
        args += [
            f"--collector.{name}.interval",
            str(intervals.get(name, DEFAULT_INTERVAL)),
            f"--collector.{name}.timeout",
            str(max(MIN_TIMEOUT, cls.default_timeout)),
        ]
        for opt in cls.options:
            value = OPTIONS.get((name, opt.name))
            if value is not None:
                args += [f"--collector.{name}.{opt.name.replace('_', '-')}", value]
    return args


# after_step(version, step, facts, Prometheus or None, run dir) -> (results, summary lines)
AfterStep = Callable[[str, str, Mapping[str, str], AlertWatcher | None, Path],
                     tuple[list[Result], list[str]]]  # fmt: skip


@dataclass(frozen=True)
class Sequence:
    """What one boot of the VM walks through: the guest script and the tables of its steps."""

    name: str
    driver: str  # the script in tests/lab/guest/ that guest/init runs
    steps: tuple[str, ...]
    checks: list[Check]
    collectors: AllCollectorsSucceed
    alerts: list[Check]
    host_actions: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    zmon_status: bool = False  # the `zmon status` rows of tests/lab/status_checks.py
    zmon_intervals: Mapping[str, float] = field(default_factory=dict)  # over INTERVALS
    after_step: AfterStep | None = None
    rate_window: str = ""  # the recording rules' rate window in this run (default: theirs)
    scrape_interval: str = "5s"  # how often the host's Prometheus scrapes zmon
    thresholds: Mapping[str, float] = field(default_factory=dict)  # over alert_rules' DEFAULTS


FAULTS = Sequence(
    "fault sequence",
    "driver.sh",
    checks.STEPS,
    checks.CHECKS,
    checks.COLLECTORS,
    checks.ALERTS,
    checks.HOST_ACTIONS,
    zmon_status=True,
)


@dataclass
class LabRun:
    version: str
    run_dir: Path
    sequence: Sequence = FAULTS
    results: list[Result] = field(default_factory=list)
    steps_seen: list[str] = field(default_factory=list)
    summary: list[str] = field(default_factory=list)
    error: str = ""
    logs: str = ""
    seconds: float = 0.0

    @property
    def failures(self) -> list[Result]:
        return [r for r in self.results if not r.ok and not r.pending]

    def report(self) -> str:
        counts = {
            "ok": sum(r.ok and not r.pending for r in self.results),
            "FAIL": len(self.failures),
            "PENDING": sum(r.pending and not r.ok for r in self.results),
            "PENDING-PASSES": sum(r.pending and r.ok for r in self.results),
        }
        head = (
            f"OpenZFS {self.version} lab run ({self.sequence.name}): "
            f"{len(self.steps_seen)}/{len(self.sequence.steps)} steps in {self.seconds:.0f} s; "
            + ", ".join(f"{k} {v}" for k, v in counts.items())
        )
        lines = [head, *self.summary, *(r.line() for r in self.results)]
        if self.error:
            lines.append(f"ERROR: {self.error}")
        return "\n".join(lines) + "\n"


def run_lab(
    version: str,
    run_dir: Path,
    *,
    capture: bool = False,
    sequence: Sequence = FAULTS,
    progress: Callable[[str], None] = lambda _m: None,
    manifest: Manifest | None = None,
) -> LabRun:
    """Boot, walk the steps, evaluate the table; never raises for a failing guest."""
    manifest = manifest or Manifest.load()
    if manifest is None:
        raise LabError("the lab is not built (no lab.env); run `make lab`")
    run = LabRun(version, run_dir, sequence)
    steps = sequence.steps
    run_dir.mkdir(parents=True, exist_ok=True)
    metrics_dir = run_dir / "metrics"
    metrics_dir.mkdir(exist_ok=True)
    t0 = time.monotonic()
    alerts = _prometheus(run_dir, progress, sequence)
    ups = NutLab(run_dir / "nut", {checks.UPS: checks.UPS_ONLINE})
    vm = LabVM(
        manifest,
        version,
        run_dir,
        zmon_args(ups.port, sequence.zmon_intervals),
        setpriv=setpriv_flags(),
        capture=capture,
        driver=sequence.driver,
        progress=progress,
    )
    try:
        ups.start()
        for proc in (ups.upsd, *ups.drivers.values()):
            track(proc)
        vm.start()
        if alerts is not None:
            alerts.start(vm.port)
            # the guest reads Prometheus' alerts through qemu's 10.0.2.2 (the lead-time ramp)
            (vm.ctl / "prometheus.port").write_text(f"{alerts.port}\n")
        runner = StepRunner(vm.get, version)
        step_began = time.time()  # host clock: when the guest went on to the next step
        for step in steps:
            facts = vm.wait_ready(step)
            facts["host_time"] = f"{time.time():.3f}"  # within 0.5 s of the guest's guest_time
            results, scrape = runner.run(step, facts, sequence.checks, sequence.collectors)
            if step == steps[0]:  # what each zmon process holds, published by every driver
                results += privilege_results(step, facts)
            if alerts is not None:
                results += alerts.check(
                    step, version, runner.facts, since=step_began, rows=sequence.alerts
                )
            if sequence.zmon_status:
                results += status_results(step, version, f"http://127.0.0.1:{vm.port}")
            if sequence.after_step is not None:
                more, summary = sequence.after_step(version, step, facts, alerts, run_dir)
                results += more
                run.summary += summary
                for line in summary:
                    progress(f"{version} {line}")
            (metrics_dir / f"{step}.prom").write_text(scrape.text)
            if capture:
                cap = vm.ctl / "captures" / step
                cap.mkdir(parents=True, exist_ok=True)
                (cap / "metrics.prom").write_text(
                    filter_exposition(scrape.text, checks.keep_in_capture)
                )
                (cap / "facts.txt").write_text(  # (without the pids of zmon's processes)
                    "".join(f"{k}={v}\n" for k, v in facts.items() if not published({k: v}))
                )
            run.results += results
            run.steps_seen.append(step)
            bad = [r for r in results if not r.ok and not r.pending]
            progress(
                f"{version} {step}: {len(results) - len(bad)}/{len(results)} checks ok"
                + (f", FAILED: {'; '.join(r.description for r in bad)}" if bad else "")
            )
            if step == steps[-1] and run.failures:
                (vm.steps / "dump-threads").touch()  # zmon's thread stacks into its log
            if step in sequence.host_actions:
                ups.write_dev(checks.UPS, dict(sequence.host_actions[step]))
            step_began = time.time()
            vm.ack(step)
        vm.wait_poweroff(timeout=180)
    except (LabError, OSError) as exc:
        run.error = f"{type(exc).__name__}: {exc}"
    finally:
        vm.stop()
        ups.close()
        if alerts is not None:
            alerts.stop()
        run.seconds = time.monotonic() - t0
        run.logs = vm.logs() + "\n----- host NUT server -----\n" + ups.logs()
        (run_dir / "report.txt").write_text(run.report())
    return run


def _prometheus(
    run_dir: Path, progress: Callable[[str], None], sequence: Sequence
) -> AlertWatcher | None:
    """The Prometheus sidecar that evaluates the alert rules (ZMON_LAB_PROMETHEUS=0: none,
    for a quicker run while working on the lab; never in CI)."""
    if os.environ.get("ZMON_LAB_PROMETHEUS", "1") == "0" and not IN_CI:
        progress("ZMON_LAB_PROMETHEUS=0: alert rules NOT evaluated in this run")
        return None
    return AlertWatcher(
        run_dir / "prometheus",
        progress,
        sequence.rate_window,
        sequence.thresholds,
        sequence.scrape_interval,
    )
