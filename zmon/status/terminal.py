"""``zmon status`` as text: one screen, colour on a terminal, plain otherwise.

The first line is the headline (Nagios and Icinga show it as the check's output).
"""

from __future__ import annotations

from typing import Any

from zmon.status import words as w

_COLOURS = {
    "critical": "\033[1;31m",
    "warning": "\033[33m",
    "ok": "\033[32m",
    "info": "\033[36m",
    "bold": "\033[1m",
    "dim": "\033[2m",
}
_RESET = "\033[0m"
_MARK = {"critical": "!!", "warning": "! ", "info": "i ", "ok": "  "}


class _Pen:
    def __init__(self, colour: bool) -> None:
        self.colour = colour

    def __call__(self, style: str, text: str) -> str:
        if not self.colour or style not in _COLOURS or style == "ok" and not text:
            return text
        return f"{_COLOURS[style]}{text}{_RESET}"


def render_text(report: dict[str, Any], colour: bool = False) -> str:
    pen = _Pen(colour)
    out: list[str] = []
    state = report["state"]
    out.append(pen(state if state != "unknown" else "warning", report["headline"]))
    if report.get("host"):
        out.append(pen("dim", f"host {report['host']}"))
    if report.get("not_judged"):  # one collection, not zmon's judgment
        out.append(pen("warning", report["not_judged"]["text"]))
    findings = report["findings"]
    if findings:
        out.append("")
        out.append(pen("bold", "Diagnosis"))
        for f in findings:
            mark = _MARK.get(f["severity"], "  ")
            out.append(f"{pen(f['severity'], mark)} {f['subject']}: {f['evidence']}")
            out.append(f"   → {pen(f['severity'], f['cause'])}; {f['action']}")
            if f.get("muted_by"):
                out.append(pen("dim", f"   (a symptom of {f['muted_by']}: not paged on its own)"))
    notes = report.get("notes") or []
    if notes:
        out.append("")
        out.append(pen("bold", "Notes"))
        for n in notes:
            out.append(f"{pen('dim', '- ')} {n['subject']}: {n['evidence']}")
            out.append(f"   → {n['cause']}; {n['action']}")
    out.append("")
    out.append(pen("bold", "Pools"))
    unknown = report.get("pools_unknown")
    if unknown:  # zpool does not answer: what is unknown, never "no pool"
        out.append(f"  {pen('warning', 'unknown: zpool ' + unknown)}")
    elif not report["pools"]:
        out.append("  no ZFS pool found")
    for p in report["pools"]:
        out.extend(_pool(p, pen))
    if report.get("arc"):
        arc = report["arc"]
        out.append("")
        out.append(f"{pen('bold', 'ARC')}  {arc['text']}")
        for d in arc["ddt"]:
            out.append(
                f"  dedup table of {d['pool']}: {w.size(d['bytes'])} in RAM"
                + (f", {w.percent(d['share'])} of ARC max" if d["share"] else "")
            )
    if report["disks"]:
        out.append("")
        out.append(pen("bold", "Disks"))
        name_w = max(len(d["device"]) for d in report["disks"])
        for d in report["disks"]:
            label = f"{d['model']} {d['serial']}".strip()
            if d.get("where"):
                label += f" ({d['where']})"
            pools = f" [{', '.join(d['pools'])}]" if d["pools"] else ""
            out.append(
                f"  {pen(d['level'], d['device'].ljust(name_w))}  {label}{pools}  "
                f"{pen(d['level'] if d['level'] != 'ok' else '', d['text'])}"
            )
    if report["ups"]:
        out.append("")
        out.append(pen("bold", "UPS"))
        for u in report["ups"]:
            out.append(f"  {u['name']} ({u['server']}): {pen(u['level'], u['text'])}")
    if report["events"]:
        out.append("")
        out.append(pen("bold", "Recent events"))
        for e in report["events"]:
            out.append(f"  {e['ago']:>16}  {e['text']}")
    bad = [c for c in report["collectors"] if c["state"] in ("failing", "stale")]
    if bad:
        out.append("")
        out.append(pen("bold", "Collectors"))
        for c in bad:
            out.append(f"  {c['name']}: {pen('warning', c['state'])}")
    if report.get("cannot_know"):
        out.append("")
        out.append(pen("dim", report["cannot_know"]["text"]))
    return "\n".join(out) + "\n"


def _pool(p: dict[str, Any], pen: _Pen) -> list[str]:
    lines = []
    head = f"  {pen('bold', p['name'])}  {pen(p['level'], p['state'].upper())}"
    if p.get("last_known"):
        head += f"  {pen('dim', '(last known)')}"
    if p["capacity"] is not None:
        head += f"  {w.percent(p['capacity'])} of {w.size(p['size'])} used"
    lines.append(head)
    scan = p["scan"]
    if scan is not None and scan["running"]:
        lines.append(f"    {pen('warning', scan['text'])}")
    if scan is not None and scan["running"] or scan is None or scan["function"] != "scrub":
        lines.append(f"    {p['last_scrub']}")
    else:
        lines.append(f"    {scan['text']}")
    if p["data_errors"]:
        lines.append(f"    {pen('critical', w.count(p['data_errors'], 'permanent data error'))}")
    rows = p["tree"]
    name_w = max((2 * r["depth"] + len(r["name"]) for r in rows), default=4)
    name_w = max(name_w, 4)
    lines.append(
        pen(
            "dim", f"    {'NAME'.ljust(name_w)}  {'STATE':<8} {'READ':>5} {'WRITE':>5} {'CKSUM':>5}"
        )
    )
    for r in rows:
        name = ("  " * r["depth"] + r["name"]).ljust(name_w)
        counts = f"{_n(r['read']):>5} {_n(r['write']):>5} {_n(r['checksum']):>5}"
        extra = f"  {r['device']}" if r["device"] and r["device"] != r["name"] else ""
        cls = f"  ({r['class']})" if r["class"] not in ("normal", "") and r["depth"] == 1 else ""
        line = f"    {name}  {r['state'].upper():<8} {counts}{extra}{cls}"
        lines.append(pen(r["level"], line) if r["level"] != "ok" else line)
    return lines


def _n(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
