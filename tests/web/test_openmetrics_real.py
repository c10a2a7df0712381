"""The demo daemon's /metrics in both formats, with real clients: a real Prometheus scrapes it
with its own default Accept header and gets OpenMetrics, a scraper that asks for 0.0.4 gets
0.0.4, and promtool lints the exposition.

How Prometheus shows it parsed OpenMetrics: its target metadata names a counter's family as
OpenMetrics does (``zmon_arc_hits``; from 0.0.4 it would be ``zmon_arc_hits_total``) and
carries the families' UNIT lines, which only OpenMetrics has.

promtool 2.42's ``check metrics`` reads the text format 0.0.4 only (its linter parses with the
0.0.4 text parser: an OpenMetrics HELP with an escaped quote is a parse error there, and a
counter's ``_total`` samples look like a family of their own). So the 0.0.4 exposition is
linted, and the OpenMetrics one, taken from the same rendering, must parse (with
prometheus_client's strict OpenMetrics parser) to exactly the families the 0.0.4 one parses
to; Prometheus' own OpenMetrics parser takes it in the scrape test.
"""

from __future__ import annotations

import json
import re
import subprocess
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.openmetrics.parser import (
    text_string_to_metric_families as parse_openmetrics,
)
from prometheus_client.parser import text_string_to_metric_families as parse_text

from tests.core.test_exposition import PROMETHEUS_2_42_ACCEPT, parsed
from tests.e2e.serve import ZmonProcess
from tests.helpers import require_tool, stop_process_group
from tests.support.waiting import wait_for
from tests.web.prometheus import start_prometheus
from zmon.exposition.formats import OPENMETRICS, TEXT

pytestmark = pytest.mark.real


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ZmonProcess]:
    """``zmon serve --demo`` once every collector has run."""
    tmp = tmp_path_factory.mktemp("openmetrics")
    zmon = ZmonProcess(["--demo", "--path.state-dir", str(tmp / "state")], tmp / "zmon.log")
    try:
        wait_for(lambda: _every_collector_ran(zmon.metrics()), timeout=120, step=0.5)
        yield zmon
    finally:
        zmon.stop()


def _every_collector_ran(text: str) -> bool:
    names = re.findall(r'^zmon_collector_interval_seconds\{collector="([^"]+)"', text, re.M)
    return bool(names) and all(f'zmon_collector_success{{collector="{n}"}}' in text for n in names)


def _scrape(zmon: ZmonProcess, accept: str) -> tuple[str, str]:
    """(Content-Type, body) of /metrics asked for with this Accept header."""
    request = urllib.request.Request(zmon.base + "/metrics", headers={"Accept": accept})
    with urllib.request.urlopen(request, timeout=10) as r:
        return r.headers["Content-Type"], r.read().decode()


def _same_rendering(zmon: ZmonProcess) -> tuple[str, str] | None:
    """The 0.0.4 and OpenMetrics texts of one rendering: 0.0.4, OpenMetrics, 0.0.4 again,
    kept when both 0.0.4 answers are the same (each rendering's differ: run times change)."""
    text_type, text = _scrape(zmon, "text/plain;version=0.0.4")
    om_type, om = _scrape(zmon, PROMETHEUS_2_42_ACCEPT)
    assert (text_type, om_type) == (TEXT.content_type, OPENMETRICS.content_type)
    return (text, om) if _scrape(zmon, "text/plain;version=0.0.4")[1] == text else None


def test_both_formats_of_the_demo_host_pass_their_checks(demo: ZmonProcess) -> None:
    text, om = wait_for(lambda: _same_rendering(demo), timeout=60, step=0.1)
    assert "# EOF" not in text and "# UNIT" not in text
    assert om.endswith("\n# EOF\n") and "_created" not in om
    promtool = require_tool("promtool", "Debian package prometheus")
    lint = subprocess.run(
        [promtool, "check", "metrics"], input=text.encode(), capture_output=True, timeout=60
    )
    assert lint.returncode == 0, lint.stdout.decode()[-3000:] + lint.stderr.decode()[-3000:]
    from_om = parsed(parse_openmetrics(om))  # strict: raises on what OpenMetrics forbids
    units = {name: unit for name, _, unit, *_ in from_om if unit}
    assert units["zmon_arc_size_bytes"] == "bytes"
    assert units["zmon_disk_temperature_celsius"] == "celsius"
    without_units = [(*f[:2], "", *f[3:]) for f in from_om]
    assert without_units == parsed(parse_text(text))


def _api(port: int, path: str, **params: str) -> Any:
    url = f"http://127.0.0.1:{port}/api/v1/{path}?{urllib.parse.urlencode(params)}"
    with urllib.request.urlopen(url, timeout=10) as r:
        body = json.load(r)
    assert body["status"] == "success", body
    return body["data"]


def _query(port: int, expr: str) -> list[dict[str, Any]]:
    return list(_api(port, "query", query=expr)["result"])


def test_prometheus_asks_for_openmetrics_and_stores_the_samples(
    demo: ZmonProcess, tmp_path: Path
) -> None:
    prom, port = start_prometheus(
        tmp_path,
        f"  - job_name: zmon\n    static_configs:\n      - targets: ['127.0.0.1:{demo.port}']\n",
    )
    try:

        def scraped() -> list[dict[str, Any]]:
            try:
                return _query(port, 'zmon_arc_hits_total{job="zmon"}')
            except OSError:
                return []

        wait_for(scraped, timeout=60, step=0.5)
        (up,) = _query(port, 'up{job="zmon"}')
        assert up["value"][1] == "1"
        metadata = {
            m["metric"]: m for m in _api(port, "targets/metadata", match_target='{job="zmon"}')
        }
        # the family names and units of OpenMetrics, not those of 0.0.4
        assert metadata["zmon_arc_hits"]["type"] == "counter"
        assert "zmon_arc_hits_total" not in metadata
        assert metadata["zmon_arc_size_bytes"]["unit"] == "bytes"
        assert metadata["zmon_disk_temperature_celsius"]["unit"] == "celsius"
        # the samples landed: as many as the scrape had, contract series among them
        (samples,) = _query(port, 'scrape_samples_scraped{job="zmon"}')
        assert float(samples["value"][1]) > 1000
        for expr in (
            'zmon_vdev_state{job="zmon",state="online"}',
            'zmon_collector_success{job="zmon",collector="zpool"}',
            'zmon_disk_crc_errors_total{job="zmon"}',
            '{job="zmon",__name__=~"zmon_.+_bucket",le="+Inf"}',
        ):
            assert _query(port, expr), expr
        assert _query(port, 'count({job="zmon",__name__=~".+_created"})') == []
    finally:
        stop_process_group(prom)
