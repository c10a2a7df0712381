"""The status page: HTML and JSON from the server hook, charts from the history ring."""

from __future__ import annotations

import json
import re
import urllib.request

import pytest

from tests.status.helpers import NOW, families, pool_text
from zmon.base.runner import StaticRunner
from zmon.collecting.registry import Collector, Context, Paths
from zmon.collecting.scheduler import Scheduler
from zmon.exposition.metrics import MetricSet
from zmon.status.history import History
from zmon.status.model import read_model
from zmon.status.page import StatusPage, charts, render_html, sparkline
from zmon.status.report import build_report
from zmon.web.server import HTTPFrontend, make_app


class Degraded(Collector):
    name = "zpool"
    issued = 0.0

    def collect(self) -> MetricSet:
        m = MetricSet()
        states = ["online", "degraded"]
        m.state_set("zmon_pool_state", "Pool state.", states, "degraded", {"pool": "tank"})
        m.state_set(
            "zmon_vdev_state",
            "Vdev state.",
            ["online", "offline"],
            "offline",
            {"pool": "tank", "vdev": "sdb", "class": "normal"},
        )
        m.info(
            "zmon_vdev_info",
            "Vdev.",
            {
                "pool": "tank",
                "vdev": "sdb",
                "class": "normal",
                "parent": "tank",
                "device": "sdb",
                "type": "disk",
                "state": "OFFLINE",
            },
        )
        return m


def test_sparkline_scales_points_into_the_box() -> None:
    svg = sparkline([(0.0, 0.0), (5.0, 0.5), (10.0, 1.0)], width=100, height=20, low=0, high=1)
    coords = re.search(r"points='([^']*)'", svg).group(1).split()  # type: ignore[union-attr]
    assert coords == ["1.0,19.0", "50.0,10.0", "99.0,1.0"]
    assert "<script" not in svg
    assert "collecting" in sparkline([(0.0, 1.0)])


def test_history_ring_is_bounded_by_count_age_and_step() -> None:
    h = History(window=100.0, step=10.0, max_points=5)
    for t in range(0, 200, 5):  # every 5 s: half are too close to the previous sample
        h.add(float(t), {"x": float(t)})
    points = h.view().points
    assert len(points) == 5 and [t for t, _ in points] == [150.0, 160.0, 170.0, 180.0, 190.0]
    h2 = History(window=25.0, step=1.0, max_points=100)
    for t in range(0, 100, 10):
        h2.add(float(t), {})
    assert [t for t, _ in h2.view().points] == [70.0, 80.0, 90.0]


def test_window_change_and_standstill() -> None:
    h = History(step=1.0)
    for t, v in ((0, 10.0), (10, 20.0), (20, 5.0), (30, 5.0), (40, 5.0)):  # a reset at 20
        h.add(float(t), {"c": v})
    w = h.view()
    assert w.change("c") == (15.0, 40.0)
    assert w.unchanged_for("c") == 20.0
    assert w.change("missing") is None


def test_charts_show_scan_progress_arc_ratios_and_error_counters() -> None:
    h = History(step=1.0)
    for i in range(4):
        text = (
            pool_text() + 'zmon_pool_scan_info{function="scrub",pool="tank",'
            'state="in_progress"} 1\n'
            f'zmon_pool_scan_progress_ratio{{pool="tank"}} {0.2 * i}\n'
            f"zmon_arc_hits_total {1000 * i}\nzmon_arc_misses_total {100 * i}\n"
            f"zmon_arc_mru_ghost_hits_total {50 * i}\n"
            f'zmon_disk_crc_errors_total{{device="sdb"}} {3 * i}\n'
        )
        h.observe(NOW + 60 * i, read_model(families(text)))
    titles = {c["title"]: c for c in charts(h.view())}
    assert set(titles) == {
        "scan of tank",
        "ARC hit ratio",
        "ARC ghost hits per access",
        "CRC errors of sdb",
    }
    assert titles["ARC hit ratio"]["latest"] == "91 %"
    assert titles["ARC ghost hits per access"]["latest"] == "4.5 %"  # 50 of 1100
    assert titles["scan of tank"]["latest"] == "60 %"


def test_page_has_no_external_asset_and_links_each_problem_to_its_runbook() -> None:
    text = pool_text(state="degraded", vdev_states={"sdb": "offline"})
    report = build_report(families(text), NOW, host="nas1")
    page = render_html(report, "nas1")
    assert not re.search(r"(src|href)=['\"]https?://", page)
    assert "<script" not in page
    assert '<meta http-equiv="refresh"' in page and 'name="viewport"' in page
    (item,) = re.findall(r"<li class='finding sev-warning'>.*?</li>", page)
    assert (
        "pool tank</b>: sdb is OFFLINE → <span class='cause'>the pool runs with reduced "
        "redundancy</span>" in item
    )
    assert "RUNBOOK.md#zfspooldegraded" in item


def _serve_degraded():  # type: ignore[no-untyped-def]
    s = Scheduler()
    s.add(Degraded(Context(paths=Paths(), runner=StaticRunner())), 60, 1)
    app = make_app(s.snapshot, lambda: True, "nas1")
    s.workers["zpool"].run_once()
    s.snapshot.rerender()
    server = HTTPFrontend(lambda web: app)
    server.serve(["127.0.0.1:0"])
    return s, server


def test_server_hook_serves_the_page_and_its_json() -> None:
    s, server = _serve_degraded()
    try:
        base = f"http://127.0.0.1:{server.port}"
        with urllib.request.urlopen(base + "/") as r:
            assert r.headers["Content-Type"] == "text/html; charset=utf-8"
            page = r.read().decode()
        assert "WARNING - pool tank: the pool runs with reduced redundancy" in page
        assert "<td>zpool</td><td>ok</td>" in page  # the collectors are still listed
        with urllib.request.urlopen(base + "/?format=json") as r:
            assert r.headers["Content-Type"] == "application/json"
            report = json.loads(r.read())
        assert report["schema"] == 1 and report["exit_code"] == 1
        assert [f["rule"] for f in report["findings"]] == ["pool_degraded"]
    finally:
        server.stop()


def test_each_rendering_of_the_snapshot_feeds_the_history() -> None:
    s = Scheduler()
    s.add(Degraded(Context(paths=Paths(), runner=StaticRunner())), 60, 1)
    clock = iter(float(t) for t in range(0, 1000, 20))
    page = StatusPage(s.snapshot, "nas1", clock=lambda: next(clock))
    s.snapshot.on_render.append(page.observe)
    s.workers["zpool"].run_once()
    for _ in range(3):
        s.snapshot.rerender()
    assert len(page.history) >= 3
    assert "pool_errors:tank" in page.history.view().points[-1][1]


def _arc_history(steps: list[tuple[int, int, int]], step: float = 10.0) -> tuple[History, str]:
    """A history of ARC counters, (hits, misses, ghost hits) added per ``step`` seconds and
    ending at NOW, and the metrics text of its newest sample."""
    h = History(step=step)
    hits = misses = ghosts = 0
    text = ""
    for i, (dh, dm, dg) in enumerate(steps):
        hits, misses, ghosts = hits + dh, misses + dm, ghosts + dg
        text = (
            pool_text() + f"zmon_arc_hits_total {hits}\nzmon_arc_misses_total {misses}\n"
            f"zmon_arc_mru_ghost_hits_total {ghosts}\nzmon_arc_mfu_ghost_hits_total 0\n"
        )
        h.observe(NOW - step * (len(steps) - 1 - i), read_model(families(text)))
    return h, text


def test_ghost_hits_are_per_access_in_the_sparkline_and_the_arc_line_alike() -> None:
    """One figure, one definition: the sparkline's latest ghost-hit ratio is the ARC line's,
    ghost hits per access (hits + misses) over the recording rule's 5 minutes. The last 5
    minutes saw 40,000 hits, 10,000 misses and 5,000 ghost hits: 10 % of accesses (12.5 % of
    hits, 50 % of misses); the hour before them was quiet."""
    quiet = [(10_000, 100, 10)] * 330
    busy = [(1334, 333, 167)] * 29 + [(1314, 343, 157)]  # 30 steps of 10 s
    h, text = _arc_history([(0, 0, 0), *quiet, *busy])
    view = h.view()
    titles = {c["title"]: c for c in charts(view)}
    assert titles["ARC ghost hits per access"]["latest"] == "10 %"
    arc = build_report(families(text), NOW, history=view)["arc"]
    assert arc["ghost_ratio"] == pytest.approx(0.10)
    assert arc["text"] == "hit ratio 80 %, ghost hits 10 % of accesses in the last 5 min"
