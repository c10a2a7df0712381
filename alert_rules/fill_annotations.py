"""Developer aid: fill missing ``exp_annotations`` in promtool test files from promtool's output.

    python -m alert_rules.fill_annotations alert_rules/tests/disks.test.yml
    python -m alert_rules.fill_annotations --refresh alert_rules/tests/*.test.yml

promtool requires every expected alert to list its annotations in full. Write a test with
``exp_labels`` only, run this, and review the diff: it runs ``promtool test rules`` and, for
each expected alert whose labels match one that promtool got, inserts the annotations that
promtool rendered. Expectations with wrong labels are left alone, so the test still fails.
``--refresh`` first drops every exp_annotations block, after a deliberate wording change.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

from alert_rules.generate import ANNOTATION_ORDER
from zmon.health.thresholds import Duration

_PAIR = re.compile(r'([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"')
_HEAD = re.compile(
    r"(?:name: (?P<name>[^\n]*),\s*\n\s*)?alertname: (?P<alert>\S+), time: (?P<time>[^,]+),"
)
_GOT_ENTRY = re.compile(r"Labels:\{(.*?)\}\s*\n\s*Annotations:\{(.*?)\}\s*(?:,|\n)", re.S)
_EXP_LABELS = re.compile(r"^(?P<pad>\s*)- exp_labels: \{(?P<body>.*)\}\s*$")
_FIELD = re.compile(r"^\s*-?\s*(?P<key>name|alertname|eval_time):\s*(?P<value>.*?)\s*$")

Key = tuple[str, str, int, frozenset[tuple[str, str]]]


def _pairs(text: str) -> dict[str, str]:
    return {k: json.loads(f'"{v}"') for k, v in _PAIR.findall(text)}


def rendered(promtool_output: str) -> dict[Key, dict[str, str]]:
    """(test name, alert, eval seconds, labels) -> annotations, for every alert promtool got."""
    out: dict[Key, dict[str, str]] = {}
    heads = list(_HEAD.finditer(promtool_output))
    for i, head in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(promtool_output)
        block = promtool_output[head.end() : end]
        if "got:[" not in block:
            continue
        got = block.split("got:[", 1)[1]
        when = Duration(head["time"].strip()).seconds
        for labels, rendered_annotations in _GOT_ENTRY.findall(got):
            key = (head["name"] or "", head["alert"], when, frozenset(_pairs(labels).items()))
            out[key] = _pairs(rendered_annotations)
    return out


def _flow_labels(body: str) -> dict[str, str]:
    labels = {}
    for item in body.split(", "):
        key, _, value = item.partition(": ")
        value = value.strip()
        labels[key.strip()] = json.loads(value) if value.startswith('"') else value
    return labels


def fill(text: str, got: dict[Key, dict[str, str]]) -> str:
    lines = text.splitlines()
    out: list[str] = []
    where = {"name": "", "alertname": "", "eval_time": "0s"}
    for i, line in enumerate(lines):
        out.append(line)
        m = _FIELD.match(line)
        if m:
            where[m["key"]] = m["value"]
        m = _EXP_LABELS.match(line)
        if not m:
            continue
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if "exp_annotations:" in nxt:
            continue
        labels = {**_flow_labels(m.group("body")), "alertname": where["alertname"]}
        key = (
            where["name"],
            where["alertname"],
            Duration(where["eval_time"]).seconds,
            frozenset(labels.items()),
        )
        annotations = got.get(key)
        if annotations is None:
            continue
        pad = m.group("pad") + "  "
        out.append(f"{pad}exp_annotations:")
        for name in ANNOTATION_ORDER:
            if name in annotations:
                out.append(f"{pad}  {name}: {json.dumps(annotations[name], ensure_ascii=False)}")
    return "\n".join(out) + "\n"


def strip(text: str) -> str:
    """The test file without any exp_annotations blocks (for --refresh)."""
    out: list[str] = []
    skip_deeper_than: int | None = None
    for line in text.splitlines():
        depth = len(line) - len(line.lstrip())
        if skip_deeper_than is not None:
            if line.strip() and depth > skip_deeper_than:
                continue
            skip_deeper_than = None
        if line.strip() == "exp_annotations:":
            skip_deeper_than = depth
            continue
        out.append(line)
    return "\n".join(out) + "\n"


def main(argv: list[str]) -> int:
    promtool = shutil.which("promtool")
    if promtool is None:
        print("promtool is not installed (Debian package prometheus)", file=sys.stderr)
        return 2
    refresh = "--refresh" in argv
    for name in (a for a in argv if a != "--refresh"):
        path = Path(name)
        if refresh:
            path.write_text(strip(path.read_text()))
        run = subprocess.run(
            [promtool, "test", "rules", path.name], capture_output=True, text=True, cwd=path.parent
        )
        path.write_text(fill(path.read_text(), rendered(run.stdout + run.stderr)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
