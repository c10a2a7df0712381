"""Hook: a real Prometheus on the host scrapes the guest's zmon and evaluates alert_rules/.

Enabled with ZMON_LAB_PROMETHEUS=1. At each step the rows of checks.ALERTS for that step are
checked against Prometheus' ALERTS series (an alert counts when it is pending or firing, so
`for:` durations do not stretch the run).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path

from tests.lab import checks
from tests.lab.engine import Result, Scrape, evaluate
from tests.lab.labvm import LabError, free_port

REPO = Path(__file__).resolve().parents[2]
RULES = sorted((REPO / "alert_rules").glob("*.rules.yml"))


class AlertWatcher:
    def __init__(self, workdir: Path, progress: Callable[[str], None]) -> None:
        self.dir = workdir
        self.progress = progress
        self.proc: subprocess.Popen[bytes] | None = None
        self.port = 0
        self.targets: list[str] = []

    def start(self, zmon_port: int) -> None:
        binary = shutil.which("prometheus")
        if binary is None:
            raise LabError("ZMON_LAB_PROMETHEUS=1 but no prometheus binary (apt-get install "
                           "prometheus)")  # fmt: skip
        self.dir.mkdir(parents=True, exist_ok=True)
        self.targets = [f"127.0.0.1:{zmon_port}"]
        rules = "\n".join(f"  - {p}" for p in RULES)
        (self.dir / "prometheus.yml").write_text(
            "global:\n  scrape_interval: 2s\n  evaluation_interval: 2s\n"
            f"rule_files:\n{rules}\n"
            "scrape_configs:\n  - job_name: zmon\n    static_configs:\n"
            f"      - targets: ['{self.targets[0]}']\n")  # fmt: skip
        self.port = free_port()
        log = (self.dir / "prometheus.log").open("wb")
        self.proc = subprocess.Popen(
            [binary, f"--config.file={self.dir / 'prometheus.yml'}",
             f"--storage.tsdb.path={self.dir / 'data'}",
             f"--web.listen-address=127.0.0.1:{self.port}", "--log.level=warn"],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)  # fmt: skip
        self.progress(f"prometheus on 127.0.0.1:{self.port} evaluating {len(RULES)} rule file(s)")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def alerts(self) -> Scrape:
        """Prometheus' ALERTS series, as a scrape (name ALERTS, value 1)."""
        q = urllib.parse.urlencode({"query": "ALERTS"})
        url = f"http://127.0.0.1:{self.port}/api/v1/query?{q}"
        with urllib.request.urlopen(url, timeout=10) as r:
            data = json.load(r)
        lines = []
        for item in data.get("data", {}).get("result", []):
            labels = {k: v for k, v in item["metric"].items() if k != "__name__"}
            body = ",".join(f'{k}="{_esc(v)}"' for k, v in sorted(labels.items()))
            lines.append(f"ALERTS{{{body}}} 1")
        return Scrape("\n".join(lines) + "\n")

    def check(self, step: str, version: str, facts: dict[str, str] | None = None) -> list[Result]:
        rows = [c for c in checks.ALERTS if c.applies(step, version)]
        if not rows:
            return []
        deadline = time.monotonic() + max(c.settle for c in rows)
        while True:
            scrape = self.alerts()
            out = []
            for c in rows:
                ok, seen = evaluate(c, scrape, facts or {}, {})
                out.append(Result(step, c, c.describe(facts or {}), ok, seen))
            if all(r.ok for r in out) or time.monotonic() > deadline:
                return out
            time.sleep(2)


def _esc(v: str) -> str:
    return v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
