"""Render metric families to the Prometheus text exposition format (version 0.0.4).

zmon writes the text itself, byte for byte what prometheus_client's ``generate_latest`` writes
for the same families (tests/core/test_exposition.py compares the two; the golden files and
``promtool check metrics`` check the result), because on a host with 1,000 disks going through
``generate_latest`` costs seconds per run. A family this path does not
cover (OpenMetrics-only ``_created``/``_gsum``/``_gcount`` samples, names outside the legacy
character set) is rendered by ``generate_latest``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from math import copysign
from typing import cast

from prometheus_client.core import CollectorRegistry, Metric
from prometheus_client.exposition import generate_latest
from prometheus_client.samples import Sample
from prometheus_client.utils import floatToGoString as _untyped_go

from zmon.exposition.metrics import HistogramFamily, HistogramSeries, Row, RowFamily

_METRIC_NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
_LABEL_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
# family type -> (suffix of the name in the text format, the TYPE printed)
_TYPES = {
    "counter": ("_total", "counter"),
    "info": ("_info", "gauge"),
    "stateset": ("", "gauge"),
    "unknown": ("", "untyped"),
}
_OPENMETRICS_ONLY = ("_created", "_gsum", "_gcount")
# A sample value as Go prints it (the client's own function, so the digits are the same).
floatToGoString = cast(Callable[[float], str], _untyped_go)
_valid_names: set[str] = set()
_valid_labels: set[str] = set()


class _Families:
    def __init__(self, families: Iterable[Metric]) -> None:
        self._families = list(families)

    def collect(self) -> Iterable[Metric]:
        return iter(self._families)


def render_with_client(families: Iterable[Metric]) -> bytes:
    """The same text through prometheus_client (the reference the direct path is held to)."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Families(families))
    return generate_latest(registry)


def render(families: Iterable[Metric]) -> bytes:
    """Text exposition (format 0.0.4) of the given families, in their order."""
    out: list[str] = []
    for fam in families:
        if not _family_text(fam, out):
            out.append(render_with_client([fam]).decode("utf-8"))
    return "".join(out).encode("utf-8")


def _escape_value(value: str) -> str:
    if "\\" in value or "\n" in value or '"' in value:
        return value.replace("\\", r"\\").replace("\n", r"\n").replace('"', r"\"")
    return value


def _labels_ok(labels: Iterable[str]) -> bool:
    for name in labels:
        if name not in _valid_labels:
            if not _LABEL_NAME.fullmatch(name):
                return False
            _valid_labels.add(name)
    return True


def _name_ok(name: str) -> bool:
    if name not in _valid_names:
        if not _METRIC_NAME.fullmatch(name):
            return False
        _valid_names.add(name)
    return True


def _family_text(fam: Metric, out: list[str]) -> bool:
    """Append the family's text to ``out``; False (nothing appended) if it needs the client."""
    suffix, typ = _TYPES.get(fam.type, ("", fam.type))
    if fam.type == "gaugehistogram":
        return False
    name = fam.name + suffix
    if not _name_ok(name):
        return False
    doc = fam.documentation.replace("\\", r"\\").replace("\n", r"\n")
    lines = [f"# HELP {name} {doc}\n# TYPE {name} {typ}\n"]
    rows: list[Row] = []
    row_name = ""
    if isinstance(fam, HistogramFamily):
        plain, series = fam.series()
    elif isinstance(fam, RowFamily):
        (plain, rows), series, row_name = fam.series(), [], fam.sample_name
    else:
        plain, series = fam.samples, []
    if not _sample_lines(fam.name, plain, lines):
        return False
    if series and not _histogram_lines(fam.name, series, lines):
        return False
    if rows and not _row_lines(row_name, rows, lines):
        return False
    out.extend(lines)
    return True


def _sample_lines(family: str, samples: list[Sample], lines: list[str]) -> bool:
    special = {family + s for s in _OPENMETRICS_ONLY}
    go = floatToGoString
    esc = _escape_value
    texts: dict[float, str] = {}  # each distinct value formatted once (see _row_lines)
    checked = ""
    for s in samples:
        name, labels, value = s.name, s.labels, s.value
        if name != checked:  # a family's samples share one or a few names
            if name in special or not _name_ok(name):
                return False
            checked = name
        if labels:
            if not _labels_ok(labels):
                return False
            values = "".join(labels.values())
            if "\\" in values or "\n" in values or '"' in values:
                text = ",".join([f'{k}="{esc(v)}"' for k, v in sorted(labels.items())])
            else:  # nothing to escape (the usual case): no call per label
                text = ",".join([f'{k}="{v}"' for k, v in sorted(labels.items())])
            head = f"{name}{{{text}}} "
        else:
            head = name + " "
        number: str | None
        if type(value) is not float:
            number = go(value)
        elif value:
            number = texts.get(value)
            if number is None:
                number = texts[value] = go(value)
        else:  # -0.0 == 0.0 but prints apart: the value-keyed cache may not mix them
            number = "0.0" if copysign(1.0, value) > 0 else go(value)
        if s.timestamp is not None:
            lines.append(f"{head}{number} {int(float(s.timestamp) * 1000):d}\n")
        else:
            lines.append(f"{head}{number}\n")
    return True


def _histogram_lines(family: str, series: list[HistogramSeries], lines: list[str]) -> bool:
    """Compact histogram series: the label text is built once per series, not per bucket."""
    go = floatToGoString
    esc = _escape_value
    # Bucket counts repeat (most are 0 or equal to the one before): format each value once.
    # (Counts are never -0.0, the one float a value-keyed cache would confuse with 0.0.)
    texts: dict[float, str] = {}
    le_texts: dict[tuple[str, ...], list[str]] = {}
    bucket, count_name, sum_name = family + "_bucket", family + "_count", family + "_sum"
    if not (_name_ok(bucket) and _name_ok(count_name) and _name_ok(sum_name)):
        return False
    for base, les, cumulative, count, total in series:
        if "le" in base or not _labels_ok(base):
            return False
        items = sorted(base.items())
        values_text = "".join(base.values())
        if "\\" in values_text or "\n" in values_text or '"' in values_text:
            items = [(k, esc(v)) for k, v in items]
        before = "".join([f'{k}="{v}",' for k, v in items if k < "le"])
        after = "".join([f',{k}="{v}"' for k, v in items if k > "le"])
        le_parts = le_texts.get(les)
        if le_parts is None:
            le_parts = le_texts[les] = [f'le="{esc(le)}"' for le in les]
        if len(le_parts) != len(cumulative):
            return False
        values = tuple([texts.get(v) or texts.setdefault(v, go(v)) for v in cumulative])
        # every bucket line in one format: head le tail value, joined by C, not per bucket
        head = f"{bucket}{{{before}".replace("%", "%%")
        tail = f"{after}}} ".replace("%", "%%")
        form = head + (tail + "%s\n" + head).join(le_parts) + tail + "%s\n"
        lines.append(form % values)
        labels = before + after[1:] if after else before[:-1]  # all of them, without le
        labels = f"{{{labels}}}" if labels else ""
        lines.append(f"{count_name}{labels} {go(count)}\n{sum_name}{labels} {go(total)}\n")
    return True


def _row_lines(name: str, rows: list[Row], lines: list[str]) -> bool:
    """Compact rows (``RowFamily``): the shared labels' text is built once per row, and each
    distinct value is formatted once; the lines are those ``_sample_lines`` would write."""
    go = floatToGoString
    esc = _escape_value
    texts: dict[float, str] = {}
    escaped: dict[str, str] = {}
    if not _name_ok(name):
        return False
    for base, key, names, values in rows:
        if key in base or not _labels_ok((key, *base)):
            return False
        items = sorted(base.items())
        before = "".join([f'{k}="{esc(v)}",' for k, v in items if k < key])
        after = "".join([f',{k}="{esc(v)}"' for k, v in items if k > key])
        head = f'{name}{{{before}{key}="'
        tail = f'"{after}}} '
        for label, value in zip(names, values, strict=True):
            text = escaped.get(label)
            if text is None:
                text = escaped[label] = esc(label)
            if value:
                number = texts.get(value)
                if number is None:
                    number = texts[value] = go(value)
            else:  # -0.0 == 0.0 but prints apart: the value-keyed cache may not mix them
                number = "0.0" if copysign(1.0, value) > 0 else go(value)
            lines.append(f"{head}{text}{tail}{number}\n")
    return True
