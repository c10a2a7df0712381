"""HTTP: /metrics serves ready bytes (gzip when asked), /healthz, and the landing page."""

from __future__ import annotations

import gzip
import urllib.request
from email.message import Message

from tests.core.test_exposition import PROMETHEUS_2_42_ACCEPT
from zmon.base.runner import StaticRunner
from zmon.collecting.registry import Collector, Context, Paths
from zmon.collecting.scheduler import Scheduler
from zmon.collectors.zpool import ZpoolCollector
from zmon.exposition.metrics import MetricSet
from zmon.web.server import HTTPFrontend, make_app


class One(Collector):
    name = "one"

    def collect(self) -> MetricSet:
        m = MetricSet()
        m.gauge("zmon_test_value", "A test value.", 42)
        return m


def _serve():  # type: ignore[no-untyped-def]
    s = Scheduler()
    s.add(One(Context(paths=Paths(), runner=StaticRunner())), 60, 1)
    s.workers["one"].run_once()
    server = HTTPFrontend(lambda web: make_app(s.snapshot, lambda: True, web=web))
    server.serve(["127.0.0.1:0"])
    return s, server


def test_metrics_plain_and_gzip() -> None:
    s, server = _serve()
    try:
        base = f"http://127.0.0.1:{server.port}"
        with urllib.request.urlopen(base + "/metrics") as r:
            body = r.read()
            assert r.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        assert b"zmon_test_value 42.0" in body
        req = urllib.request.Request(base + "/metrics", headers={"Accept-Encoding": "gzip"})
        with urllib.request.urlopen(req) as r:
            assert r.headers["Content-Encoding"] == "gzip"
            assert gzip.decompress(r.read()) == body
        with urllib.request.urlopen(base + "/healthz") as r:
            assert r.read() == b"ok\n"
        with urllib.request.urlopen(base + "/") as r:
            page = r.read().decode()
        assert "<td>one</td>" in page and "ok" in page
    finally:
        server.stop()


def test_metrics_in_the_format_the_accept_header_asks_for() -> None:
    """OpenMetrics for Prometheus' own Accept header, plain or gzip; 0.0.4 otherwise."""
    s, server = _serve()
    try:
        url = f"http://127.0.0.1:{server.port}/metrics"

        def get(**headers: str) -> tuple[bytes, Message]:
            with urllib.request.urlopen(urllib.request.Request(url, headers=headers)) as r:
                return r.read(), r.headers

        om, headers = get(Accept=PROMETHEUS_2_42_ACCEPT)
        assert headers["Content-Type"] == (
            "application/openmetrics-text; version=1.0.0; charset=utf-8"
        )
        assert headers["Vary"] == "Accept, Accept-Encoding"
        assert b"# TYPE zmon_collector_runs counter\n" in om and om.endswith(b"\n# EOF\n")
        packed, headers = get(Accept=PROMETHEUS_2_42_ACCEPT, **{"Accept-Encoding": "gzip"})
        assert headers["Content-Encoding"] == "gzip" and gzip.decompress(packed) == om
        text, headers = get(Accept="text/plain;version=0.0.4")
        assert headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8"
        assert b"# TYPE zmon_collector_runs_total counter\n" in text and b"# EOF" not in text
        assert om.replace(b"# EOF\n", b"").count(b"\nzmon_") == text.count(b"\nzmon_")
    finally:
        server.stop()


def test_unknown_path_is_404() -> None:
    s, server = _serve()
    try:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{server.port}/nope")
        except urllib.error.HTTPError as e:
            assert e.code == 404
        else:
            raise AssertionError("expected 404")
    finally:
        server.stop()


class Pools(Collector):
    summary_title = "Pools"
    summary = ZpoolCollector.summary
    name = "pools"

    def collect(self) -> MetricSet:
        m = MetricSet()
        states = ["online", "degraded", "faulted"]
        m.state_set("zmon_pool_state", "Pool state.", states, "degraded", {"pool": "tank"})
        m.state_set("zmon_pool_state", "Pool state.", states, None, {"pool": "cut"})
        return m


def test_landing_page_shows_pool_states() -> None:
    from zmon.web.server import landing_page

    s = Scheduler()
    s.add(Pools(Context(paths=Paths(), runner=StaticRunner())), 60, 1)
    s.workers["pools"].run_once()
    page = landing_page(s.snapshot, "zmon")
    assert "<td>tank</td><td>DEGRADED</td>" in page
    assert "<td>cut</td><td>UNKNOWN</td>" in page


def test_history_observation_is_held_to_its_cpu_budget() -> None:
    """The status page's history is sampled at most at ``share`` of a core: a sampling that
    took 10 ms of CPU waits 1 s of time before the next one."""
    from zmon.web.webapp import within_budget

    t, spent, calls = [100.0], [0.0], []

    def observe() -> None:
        calls.append(t[0])
        spent[0] += 0.010

    call = within_budget(observe, share=0.01, clock=lambda: t[0], cpu=lambda: spent[0])
    for step in range(30):
        t[0] = 100.0 + step * 0.25
        call()
    assert calls == [100.0, 101.0, 102.0, 103.0, 104.0, 105.0, 106.0, 107.0]
    # a clock set back (or a pause past the longest gap) samples again at once
    t[0] = -1000.0
    call()
    assert calls[-1] == -1000.0
