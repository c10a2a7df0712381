"""A real Prometheus on the host scrapes the guest's zmon and evaluates alert_rules/.

The rules are rendered with every duration scaled by checks.ALERT_SCALE (the rules' own
test rendering), so windows of minutes fit the lab's timeline. At each step the rows of
checks.ALERTS are checked against Prometheus' ALERTS series: an alert counts when it is
pending or firing, so `for:` durations do not stretch the run.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from alert_rules import generate
from tests.helpers import stop_process_group
from tests.lab import checks
from tests.lab.engine import Check, Result, Scrape, evaluate
from tests.lab.labvm import LabError, track
from tests.support.ports import free_port
from zmon.health.ratios import RATE_WINDOW
from zmon.health.thresholds import DEFAULTS


class AlertWatcher:
    def __init__(
        self,
        workdir: Path,
        progress: Callable[[str], None],
        rate_window: str = "",
        thresholds: Mapping[str, float] | None = None,
        scrape_interval: str = "5s",
    ) -> None:
        self.dir = workdir
        self.scrape_interval = scrape_interval
        self.rate_window = rate_window
        self.thresholds = dict(thresholds or {})
        self.progress = progress
        self.proc: subprocess.Popen[bytes] | None = None
        self.port = 0
        self.targets: list[str] = []

    def start(self, zmon_port: int) -> None:
        binary = shutil.which("prometheus")
        if binary is None:
            raise LabError(
                "no prometheus binary for the lab's alert checks (apt-get install prometheus)"
            )
        self.dir.mkdir(parents=True, exist_ok=True)
        self.targets = [f"127.0.0.1:{zmon_port}"]
        rules = self.dir / "zmon.rules.yml"
        text = generate.render(replace(DEFAULTS, **self.thresholds), scale=checks.ALERT_SCALE)
        if self.rate_window:  # the ratios' and latency records' rate window, for short phases
            text = text.replace(f"[{RATE_WINDOW}]", f"[{self.rate_window}]")
        rules.write_text(text)
        (self.dir / "prometheus.yml").write_text(
            f"global:\n  scrape_interval: {self.scrape_interval}\n  evaluation_interval: 2s\n"
            f"rule_files:\n  - {rules}\n"
            "scrape_configs:\n  - job_name: zmon\n    static_configs:\n"
            f"      - targets: ['{self.targets[0]}']\n"
        )
        self.port = free_port()
        log = (self.dir / "prometheus.log").open("wb")
        self.proc = subprocess.Popen(
            [
                binary,
                f"--config.file={self.dir / 'prometheus.yml'}",
                f"--storage.tsdb.path={self.dir / 'data'}",
                f"--web.listen-address=127.0.0.1:{self.port}",
                "--log.level=warn",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        track(self.proc)
        self.progress(
            f"prometheus on 127.0.0.1:{self.port} evaluating zmon's alert rules "
            f"(durations scaled by {checks.ALERT_SCALE:g})"
        )

    def stop(self) -> None:
        stop_process_group(self.proc, grace=20)

    def alerts(self, lookback: float = 0.0) -> Scrape:
        """Prometheus' ALERTS series as a scrape (name ALERTS, value 1): active now, or with
        `lookback`, active at any time in that many seconds before now."""
        query = "ALERTS" if lookback <= 0 else f"max_over_time(ALERTS[{int(lookback) + 1}s])"
        q = urllib.parse.urlencode({"query": query})
        url = f"http://127.0.0.1:{self.port}/api/v1/query?{q}"
        with urllib.request.urlopen(url, timeout=10) as r:
            data = json.load(r)
        lines = []
        for item in data.get("data", {}).get("result", []):
            labels = {k: v for k, v in item["metric"].items() if k != "__name__"}
            body = ",".join(f'{k}="{escaped(v)}"' for k, v in sorted(labels.items()))
            lines.append(f"ALERTS{{{body}}} 1")
        return Scrape("\n".join(lines) + "\n")

    def at(self, expr: str, at: float) -> list[dict[str, Any]]:
        """An instant query at host time `at`: [{"metric": labels, "value": [t, "v"]}, ...]."""
        q = urllib.parse.urlencode({"query": expr, "time": at})
        url = f"http://127.0.0.1:{self.port}/api/v1/query?{q}"
        with urllib.request.urlopen(url, timeout=20) as r:
            data = json.load(r)
        return list(data.get("data", {}).get("result", []))

    def series(self, expr: str, start: float, end: float, step: float) -> list[dict[str, Any]]:
        """A range query: [{"metric": labels, "values": [[unix time, "value"], ...]}, ...]."""
        q = urllib.parse.urlencode({"query": expr, "start": start, "end": end, "step": step})
        url = f"http://127.0.0.1:{self.port}/api/v1/query_range?{q}"
        with urllib.request.urlopen(url, timeout=20) as r:
            data = json.load(r)
        return list(data.get("data", {}).get("result", []))

    def check(
        self,
        step: str,
        version: str,
        facts: dict[str, str] | None = None,
        since: float = 0.0,
        rows: list[Check] | None = None,
    ) -> list[Result]:
        """The step's ALERTS rows (default checks.ALERTS). An alert that must fire counts if it
        was active at any time since `since` (host Unix time: the guest started the step
        then), since a short scaled window may have closed again by now; a resolved alert must
        be gone now."""
        rows = [c for c in (checks.ALERTS if rows is None else rows) if c.applies(step, version)]
        if not rows:
            return []
        facts = facts or {}
        deadline = time.monotonic() + max(c.settle for c in rows)
        while True:
            now = self.alerts()
            seen = self.alerts(lookback=time.time() - since) if since else now
            out = []
            for c in rows:
                scrape = now if c.expect.text == "absent" else seen
                ok, observed = evaluate(c, scrape, facts, {})
                out.append(Result(step, c, c.describe(facts), ok, observed))
            if all(r.ok for r in out) or time.monotonic() > deadline:
                return out
            time.sleep(2)


def escaped(v: str) -> str:
    """A label value as the exposition format writes it between double quotes."""
    return v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
