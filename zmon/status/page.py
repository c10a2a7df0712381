"""The status page at ``/``: the report as HTML, with inline SVG charts of the last hour.

Server-rendered, no script and no external asset; it reloads itself every
``REFRESH_SECONDS`` and fits a phone screen. ``/?format=json`` returns the report with the
history-based findings, for ``zmon status --url``.
"""

from __future__ import annotations

import html
import json
import socket
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from zmon import __version__
from zmon.health.conditions import INTERVAL
from zmon.health.evaluator import host_evaluator
from zmon.health.ratios import ARC_GHOST_HITS_PER_ACCESS, ARC_HIT
from zmon.host.last_pools import LastPools, load_last_pools
from zmon.status import words as w
from zmon.status.alerting import AlertId, Judgment
from zmon.status.history import History, Window
from zmon.status.model import HostModel, read_model
from zmon.status.published import Publisher
from zmon.status.report import report_of
from zmon.status.slowdown import Recorded

REFRESH_SECONDS = 15
CHEAP_JUDGMENT = 0.2  # CPU seconds: an evaluation this cheap is redone at each change
_E = html.escape

CSS = """
body { font-family: system-ui, sans-serif; margin: 0 auto; padding: .8em; max-width: 62em;
       color: #222; }
h1 { font-size: 1.3em; margin: .2em 0; } h2 { font-size: 1.1em; margin: 1.2em 0 .4em; }
.headline { font-size: 1.1em; font-weight: bold; padding: .5em .7em; border-radius: .3em; }
.headline.state-ok { background: #e3f4e3; } .headline.state-warning { background: #fff1cc; }
.headline.state-critical { background: #fde0e0; } .headline.state-unknown { background: #eee; }
.state-ok { color: #176617; } .state-warning { color: #8a5a00; }
.state-critical { color: #b00020; font-weight: bold; } .state-info { color: #245c8a; }
.headline.state-ok, .headline.state-warning, .headline.state-critical { color: #111; }
ul.findings { list-style: none; padding: 0; }
ul.findings li { border-left: .35em solid #999; padding: .3em .6em; margin: .4em 0;
                 background: #fafafa; }
ul.findings li.sev-critical { border-color: #b00020; }
ul.findings li.sev-warning { border-color: #d99a00; }
ul.findings li.sev-info { border-color: #245c8a; }
ul.notes { list-style: none; padding: 0; }
ul.notes li { border-left: .35em solid #ccc; padding: .3em .6em; margin: .4em 0; }
.cause { font-weight: bold; }
table { border-collapse: collapse; margin-bottom: 1em; font-size: .92em; }
td, th { border-bottom: 1px solid #ddd; padding: .2em .5em; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
table.tree td.name { font-family: ui-monospace, monospace; white-space: nowrap; }
.wrap { overflow-x: auto; }
.small { color: #666; font-size: .85em; }
svg.spark { vertical-align: middle; }
svg.spark polyline { fill: none; stroke: #245c8a; stroke-width: 1.5; }
.charts td { vertical-align: middle; }
"""


def sparkline(
    points: list[tuple[float, float]],
    width: int = 160,
    height: int = 32,
    low: float | None = None,
    high: float | None = None,
) -> str:
    """An inline SVG line of ``(time, value)`` points, scaled to the box."""
    if len(points) < 2:
        return "<span class='small'>collecting</span>"
    t0, t1 = points[0][0], points[-1][0]
    values = [v for _, v in points]
    lo = min(values) if low is None else low
    hi = max(values) if high is None else high
    span_t = (t1 - t0) or 1.0
    span_v = (hi - lo) or 1.0
    coords = " ".join(
        f"{(t - t0) / span_t * (width - 2) + 1:.1f},"
        f"{height - 1 - (v - lo) / span_v * (height - 2):.1f}"
        for t, v in points
    )
    return (
        f"<svg class='spark' width='{width}' height='{height}' viewBox='0 0 {width} "
        f"{height}' role='img'><polyline points='{coords}'/></svg>"
    )


def charts(window: Window) -> list[dict[str, Any]]:
    """The page's charts: (title, SVG, latest value in words)."""
    out: list[dict[str, Any]] = []
    keys = sorted({k for _, values in window.points for k in values})
    for key in keys:
        if key.startswith("scan_progress:"):
            pts = window.series(key)
            out.append(
                {
                    "title": f"scan of {key.split(':', 1)[1]}",
                    "points": pts,
                    "low": 0.0,
                    "high": 1.0,
                    "latest": w.percent(pts[-1][1]),
                }
            )
    # the recording rules' ratios, over the same 5 minutes at each point
    for ratio, title, high in (
        (ARC_HIT, "ARC hit ratio", 1.0),
        (ARC_GHOST_HITS_PER_ACCESS, "ARC ghost hits per access", None),
    ):
        pts = ratio.series(window)
        if pts:
            latest = w.percent(pts[-1][1])
            out.append({"title": title, "points": pts, "low": 0.0, "high": high, "latest": latest})
    for key in keys:
        kind, _, subject = key.partition(":")
        if kind not in ("pool_errors", "disk_crc", "disk_link"):
            continue
        pts = window.series(key)
        if not any(v for _, v in pts):
            continue
        title = {
            "pool_errors": f"vdev errors in {subject}",
            "disk_crc": f"CRC errors of {subject}",
            "disk_link": f"link events of {subject}",
        }[kind]
        out.append(
            {"title": title, "points": pts, "low": None, "high": None, "latest": f"{pts[-1][1]:g}"}
        )
    return out


def render_html(
    report: dict[str, Any],
    title: str,
    extra_sections: str = "",
    chart_rows: Iterable[dict[str, Any]] = (),
) -> str:
    state = report["state"]
    parts = [f"<p class='headline state-{state}' id='headline'>{_E(report['headline'])}</p>"]
    if report["findings"]:
        parts.append("<h2>Diagnosis</h2><ul class='findings' id='findings'>")
        for f in report["findings"]:
            link = (
                f" <a href='{_E(f['runbook'])}'>runbook: {_E(f['alert'])}</a>"
                if f["runbook"]
                else ""
            )
            parts.append(
                f"<li class='finding sev-{f['severity']}'>"
                f"<span class='state-{f['severity']}'>{_E(f['severity'].upper())}</span> "
                f"<b>{_E(f['subject'])}</b>: {_E(f['evidence'])} → "
                f"<span class='cause'>{_E(f['cause'])}</span>; {_E(f['action'])}{link}"
                + (
                    f" <i>(a symptom of {_E(f['muted_by'])}: not paged on its own)</i>"
                    if f.get("muted_by")
                    else ""
                )
                + "</li>"
            )
        parts.append("</ul>")
    if report.get("notes"):
        parts.append("<h2>Notes</h2><ul class='notes' id='notes'>")
        for n in report["notes"]:
            parts.append(
                f"<li class='note'><b>{_E(n['subject'])}</b>: {_E(n['evidence'])} → "
                f"<span class='cause'>{_E(n['cause'])}</span>; {_E(n['action'])}</li>"
            )
        parts.append("</ul>")
    parts.append(_pools(report))
    rows = list(chart_rows)
    if rows:
        parts.append("<h2>Last hour</h2><table class='charts'>")
        for c in rows:
            svg = sparkline(c["points"], low=c["low"], high=c["high"])
            parts.append(
                f"<tr><td>{_E(c['title'])}</td><td>{svg}</td>"
                f"<td class='n'>{_E(c['latest'])}</td></tr>"
            )
        parts.append("</table>")
    if report.get("arc"):
        arc = report["arc"]
        parts.append(f"<h2>ARC</h2><p id='arc'>{_E(arc['text'])}</p>")
        for d in arc["ddt"]:
            share = f", {w.percent(d['share'])} of ARC max" if d["share"] else ""
            parts.append(
                f"<p>dedup table of {_E(d['pool'])}: {_E(w.size(d['bytes']))} in RAM{_E(share)}</p>"
            )
    if report["disks"]:
        parts.append(
            "<h2>Disks</h2><div class='wrap'><table id='disks'>"
            "<tr><th>disk</th><th>model</th><th>where</th><th>pools</th><th>health</th></tr>"
        )
        for d in report["disks"]:
            parts.append(
                f"<tr class='state-{d['level']}'><td>{_E(d['device'])}</td>"
                f"<td>{_E((d['model'] + ' ' + d['serial']).strip())}</td>"
                f"<td title='{_E(d.get('locate', ''))}'>{_E(d.get('where', ''))}</td>"
                f"<td>{_E(', '.join(d['pools']))}</td><td>{_E(d['text'])}</td></tr>"
            )
        parts.append("</table></div>")
    if report["ups"]:
        parts.append("<h2>UPS</h2><ul>")
        for u in report["ups"]:
            parts.append(
                f"<li>{_E(u['name'])} ({_E(u['server'])}): "
                f"<span class='state-{u['level']}'>{_E(u['text'])}</span></li>"
            )
        parts.append("</ul>")
    if report["events"]:
        parts.append("<h2>Recent events</h2><table id='events'>")
        for e in report["events"]:
            parts.append(f"<tr><td class='small'>{_E(e['ago'])}</td><td>{_E(e['text'])}</td></tr>")
        parts.append("</table>")
    if report.get("cannot_know"):
        parts.append(f"<p class='small' id='cannot-know'>{_E(report['cannot_know']['text'])}</p>")
    parts.append(extra_sections)
    body = "\n".join(parts)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="{REFRESH_SECONDS}">
<title>{_E(report.get("host") or title)}: {_E(state.upper())}</title>
<style>{CSS}</style></head>
<body>
<h1>{_E(report.get("host") or title)} <span class="small">{_E(title)}</span></h1>
{body}
<p class="small">zmon {_E(__version__)} &middot; <a href="/metrics">metrics</a> &middot;
<a href="/healthz">health</a> &middot; <a href="/?format=json">JSON</a> &middot;
this page reloads every {REFRESH_SECONDS} s</p>
</body></html>
"""


def _pools(report: dict[str, Any]) -> str:
    unknown = report.get("pools_unknown")
    said = (
        f"<p class='state-warning' id='pools-unknown'>Unknown: zpool {_E(unknown)}</p>"
        if unknown
        else ""
    )
    if not report["pools"]:
        return f"<h2>Pools</h2>{said or '<p>No ZFS pool found.</p>'}"
    parts = [
        f"<h2>Pools</h2>{said}<table id='pools'><tr><th>pool</th><th>state</th><th>used</th>"
        "<th>scan</th></tr>"
    ]
    for p in report["pools"]:
        used = (
            f"{w.percent(p['capacity'])} of {w.size(p['size'])}"
            if p["capacity"] is not None
            else ""
        )
        scan = p["scan"]["text"] if p["scan"] and p["scan"]["running"] else p["last_scrub"]
        parts.append(
            f"<tr class='state-{p['level']}'><td>{_E(p['name'])}</td>"
            f"<td>{_E(p['state'].upper())}{' (last known)' if p.get('last_known') else ''}"
            f"</td><td>{_E(used)}</td>"
            f"<td>{_E(scan)}</td></tr>"
        )
    parts.append("</table>")
    for p in report["pools"]:
        parts.append(
            f"<div class='wrap'><table class='tree' id='tree-{_E(p['name'])}'>"
            "<tr><th>name</th><th>state</th><th>read</th><th>write</th><th>cksum</th>"
            "<th>disk</th></tr>"
        )
        for r in p["tree"]:
            pad = "&nbsp;&nbsp;" * r["depth"]
            cls = f" ({_E(r['class'])})" if r["class"] != "normal" and r["depth"] == 1 else ""
            parts.append(
                f"<tr class='vdev state-{r['level']}'><td class='name'>{pad}{_E(r['name'])}"
                f"{cls}</td><td>{_E(r['state'].upper())}</td><td class='n'>{r['read']:g}</td>"
                f"<td class='n'>{r['write']:g}</td><td class='n'>{r['checksum']:g}</td>"
                f"<td>{_E(r['device'] if r['device'] != r['name'] else '')}</td></tr>"
            )
        parts.append("</table></div>")
    return "\n".join(parts)


def collectors_section(snapshot: Any, now: float) -> str:
    """Each collector's state, last success and last error, from the scheduler's states."""
    rows = []
    for s in snapshot.states():
        if s.success is None:
            state, css = "pending", "pending"
        elif s.stale(now):
            if s.success:
                state = "stale"
            elif s.last_success:
                state = "failing (serving last good data)"
            else:
                state = "failing"
            css = "warning"
        elif not s.has_data:
            state, css = "no data on this host", "pending"
        else:
            state, css = "ok", "ok"
        age = f"{now - s.last_success:.0f}s ago" if s.last_success else "never"
        rows.append(
            f"<tr class='state-{css}'><td>{_E(s.name)}</td><td>{_E(state)}</td>"
            f"<td>{s.interval:g}s</td><td>{s.last_duration:.3f}s</td><td>{age}</td>"
            f"<td>{_E(s.last_error)}</td></tr>"
        )
    summaries = "".join(_summary_table(s) for s in snapshot.states())
    return (
        "<h2>Collectors</h2><div class='wrap'><table id='collectors'><tr><th>collector</th>"
        "<th>state</th><th>interval</th><th>last run took</th><th>last success</th>"
        "<th>last error</th></tr>" + "".join(rows) + "</table></div>" + summaries
    )


def _summary_table(state: Any) -> str:
    """The table a collector gives the landing page (pools and their states, ...), if any."""
    table = getattr(state, "summary_rows", None)
    if table is None or not getattr(state, "summary_title", ""):
        return ""
    rows = "".join(
        f"<tr class='state-{'ok' if row.healthy else 'warning'}'><td>{_E(row.thing)}</td>"
        f"<td>{_E(row.state)}</td></tr>"
        for row in table
    )
    if not rows:
        return ""
    return (
        f"<h3>{_E(state.summary_title)} ({_E(state.name)})</h3><table><tr><th>name</th>"
        f"<th>state</th></tr>{rows}</table>"
    )


class StatusPage:
    """Serves ``/`` for one snapshot and keeps the history its charts and trends need.

    ``observe()`` is called after each rendering of the snapshot (it samples at most every
    ``history.step`` seconds, and publishes the report it judged then with ``publish``);
    ``respond()`` builds the page for a request.
    """

    def __init__(
        self,
        snapshot: Any,
        title: str = "zmon",
        history: History | None = None,
        clock: Callable[[], float] | None = None,
        host: str | None = None,
        state_dir: Path | None = None,
        last_pools: Callable[[], LastPools | None] | None = None,
        judge_every: float = INTERVAL,
        known_from: float | None = None,
        publish: Publisher | None = None,
    ) -> None:
        self.snapshot = snapshot
        # the judged report, published at each history sample for ``zmon status`` on this host
        self.publish = publish
        self.state_dir = state_dir
        if last_pools is None and state_dir is not None:
            last_pools = lambda: load_last_pools(state_dir)  # noqa: E731
        self.last_pools = last_pools
        self.title = title
        self.host = socket.gethostname() if host is None else host
        self.history = history or History()
        self.clock = clock or (lambda: time.time())
        # when each finding's alert was first seen: pending until its rule's ``for:`` passed
        self.onsets: dict[AlertId, float] = {}
        self._onsets_lock = threading.Lock()
        # the declared conditions, judged at each observation over what zmon served (but
        # those on the scrape target: only Prometheus sees ``up``)
        self.evaluator = host_evaluator(judge_every, known_from)
        # The judgment says what the snapshot serves now: it is redone when the snapshot
        # changed, at once where that is cheap (most hosts), else at most every
        # ``judge_every`` seconds, as Prometheus evaluates its rules (the cost grows with the
        # series: benchmarks/judgment.py); in between such a host's report is the diagnoses'
        # alone.
        self.judge_every = judge_every
        self._judged_generation: int | None = None
        self._judge_cost = 0.0  # CPU seconds of the last evaluation

    def families(self, now: float) -> list[Any]:
        from zmon.exposition.snapshot import self_metrics

        states = self.snapshot.states()
        fams = [fam for st in states for fam in st.families]
        fams.extend(self_metrics(states, now, self.snapshot.start_time))
        return fams

    def observe(self) -> None:
        """Sample the history and see which alerts the findings name (as often as the
        history samples, as Prometheus evaluates its rules on an interval)."""
        now = self.clock()
        if self.history.due(now):
            families = self.families(now)
            model = read_model(families)
            self.history.observe(now, model)
            report = self._report_of(model, now, families)
            if self.publish is not None:
                self.publish.publish(report)

    def report(self) -> dict[str, Any]:
        now = self.clock()
        families = self.families(now)
        return self._report_of(read_model(families), now, families)

    def _judgment(self, now: float, families: list[Any]) -> Judgment | None:
        """The declarations' verdict on what the snapshot serves now, or None when it is
        out of date and too dear to redo yet."""
        judge = self.evaluator
        generation = getattr(self.snapshot, "generation", None)  # (None: a test's stand-in)
        if judge.at is None or generation is None or generation != self._judged_generation:
            due = judge.at is None or now - judge.at >= self.judge_every - 1e-6
            if not (due or self._judge_cost <= CHEAP_JUDGMENT):
                return None
            started = time.process_time()
            judge.feed(families, now)
            judge.evaluate(now)
            self._judge_cost = time.process_time() - started
            self._judged_generation = generation
        return Judgment.of(judge)

    def _report_of(self, model: HostModel, now: float, families: list[Any]) -> dict[str, Any]:
        if self.last_pools is not None and not model.pools:  # zpool gave nothing (yet)
            model.last_pools = self.last_pools()
        with self._onsets_lock:
            judgment = self._judgment(now, families)
            judge = self.evaluator
            return report_of(
                model,
                now,
                host=self.host,
                history=self.history.view(),
                onsets=self.onsets,
                judgment=judgment,
                # the slowdown's records at the last evaluation (at most judge_every old)
                recorded=Recorded.of(judge) if judge.at is not None else None,
            )

    def respond(self, query: str = "") -> tuple[bytes, str]:
        """(body, content type) for ``GET /?<query>``."""
        report = self.report()
        if "format=json" in query.split("&"):
            return json.dumps(report, indent=1).encode() + b"\n", "application/json"
        now = self.clock()
        page = render_html(
            report, self.title, collectors_section(self.snapshot, now), charts(self.history.view())
        )
        return page.encode(), "text/html; charset=utf-8"
