"""Render metric families in the two formats Prometheus scrapes, and choose one per scrape.

The formats are the Prometheus text format 0.0.4 and OpenMetrics 1.0.0. ``negotiate`` reads a
scrape's Accept header with prometheus_client's own ``choose_encoder``: OpenMetrics 1.0.0 for
a scraper that lists ``application/openmetrics-text`` (with no version, or 1.0.0 and later)
anywhere, unless a ``text/plain`` of version 1.0.0 or later comes first (q-values are not
weighed), which Prometheus does by default; 0.0.4 for everyone else.

zmon writes the text itself, byte for byte what prometheus_client's ``generate_latest`` (and
``openmetrics.exposition.generate_latest``) write for the same families (tests/core/
test_exposition.py compares them on awkward families and on a synthetic big host's
exposition; the golden files and ``promtool check metrics`` check the result), because on a
host with 1,000 disks going through the client costs seconds per run. The two formats write
a family's sample lines alike; they differ in the family's HELP, TYPE and UNIT lines (a
counter's family is ``x_total`` in 0.0.4 and ``x`` in OpenMetrics; OpenMetrics escapes quotes
in HELP and has UNIT), and OpenMetrics ends with ``# EOF``. So ``render_family`` renders a
family once, as each format's own lines and the sample lines they share, and a snapshot keeps
both formats for the price of one plus two header lines. A family this path does not cover
(timestamps, exemplars, OpenMetrics-only ``_created``/``_gsum``/``_gcount`` samples, names
outside the legacy character set or with a colon) is rendered by the client, in each format.

Counters' ``_created`` samples are not served. OpenMetrics makes them optional, and they would
be wrong or useless here: zmon's counters either mirror counters that ZFS, the kernel or a
disk keep (their creation, at a pool import, a ``zpool clear`` or a power cycle, is not known
to zmon) or count since zmon started (``zmon_start_time_seconds`` already says when).
Prometheus 2.x keeps every ``_created`` sample as a series of its own: one more series for each
counter and histogram series, on a host whose cardinality zmon keeps bounded.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from math import copysign
from typing import NamedTuple, cast

from prometheus_client.core import CollectorRegistry, Metric
from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4, choose_encoder, generate_latest
from prometheus_client.openmetrics.exposition import generate_latest as _untyped_openmetrics
from prometheus_client.samples import Sample
from prometheus_client.utils import floatToGoString as _untyped_go

from zmon.exposition.metrics import HistogramFamily, HistogramSeries, Row, RowFamily


class Format(NamedTuple):
    """An exposition format: its name (a label value) and the Content-Type it is served as."""

    name: str
    content_type: str


TEXT = Format("text", CONTENT_TYPE_PLAIN_0_0_4)
OPENMETRICS = Format("openmetrics", "application/openmetrics-text; version=1.0.0; charset=utf-8")
FORMATS = (TEXT, OPENMETRICS)
EOF = b"# EOF\n"  # how an OpenMetrics exposition ends

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
_generate_openmetrics = cast(Callable[[CollectorRegistry], bytes], _untyped_openmetrics)
_valid_names: set[str] = set()
_valid_labels: set[str] = set()


def negotiate(accept: str) -> Format:
    """The format to answer a scrape that sent this Accept header with.

    prometheus_client decides (``choose_encoder``); where it would answer OpenMetrics of a
    later version (2.0.0), zmon answers 1.0.0, which the client writes the same for families
    without native histograms. A version the client cannot compare (``version=abc`` raises
    TypeError there) gets 0.0.4, the answer for anything unknown.
    """
    try:
        _, content_type = choose_encoder(accept)
    except (TypeError, ValueError):
        return TEXT
    return OPENMETRICS if content_type.startswith("application/openmetrics-text") else TEXT


class FamilyText(NamedTuple):
    """One family in both formats: what only format 0.0.4 writes (its HELP and TYPE lines),
    what only OpenMetrics writes (HELP, TYPE, UNIT), then the sample lines both write alike.
    For a family the client renders, each format's own part is its whole text and ``shared``
    is empty."""

    text: bytes
    openmetrics: bytes
    shared: bytes

    def of(self, fmt: Format) -> bytes:
        """The family's whole text in ``fmt``."""
        return (self.openmetrics if fmt == OPENMETRICS else self.text) + self.shared


class _Families:
    def __init__(self, families: Iterable[Metric]) -> None:
        self._families = list(families)

    def collect(self) -> Iterable[Metric]:
        return iter(self._families)


def _registry(families: Iterable[Metric]) -> CollectorRegistry:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Families(families))
    return registry


def render_with_client(families: Iterable[Metric]) -> bytes:
    """Format 0.0.4 through prometheus_client (the reference the direct path is held to)."""
    return generate_latest(_registry(families))


def render_openmetrics_with_client(families: Iterable[Metric]) -> bytes:
    """OpenMetrics 1.0.0 through prometheus_client, ``# EOF`` included."""
    return _generate_openmetrics(_registry(families))


def render(families: Iterable[Metric]) -> bytes:
    """Text exposition (format 0.0.4) of the given families, in their order."""
    return b"".join([render_family(fam).of(TEXT) for fam in families])


def render_openmetrics(families: Iterable[Metric]) -> bytes:
    """OpenMetrics exposition of the given families, in their order, ending in ``# EOF``."""
    return b"".join([render_family(fam).of(OPENMETRICS) for fam in families]) + EOF


def render_family(fam: Metric) -> FamilyText:
    """A family's text in both formats (its sample lines rendered once)."""
    heads = _heads(fam)
    lines = _body(fam) if heads is not None else None
    if heads is None or lines is None:
        text = render_with_client([fam])
        om = render_openmetrics_with_client([fam])
        return FamilyText(text, om[: -len(EOF)], b"")
    return FamilyText(heads[0].encode(), heads[1].encode(), "".join(lines).encode())


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
    """A name both formats write as it is (OpenMetrics, through the client, writes a sample
    name's colons as underscores: such families are the client's)."""
    if name not in _valid_names:
        if not _METRIC_NAME.fullmatch(name) or ":" in name:
            return False
        _valid_names.add(name)
    return True


def _heads(fam: Metric) -> tuple[str, str] | None:
    """The family's own lines in format 0.0.4 and in OpenMetrics; None if it needs the client."""
    suffix, typ = _TYPES.get(fam.type, ("", fam.type))
    if fam.type == "gaugehistogram":
        return None
    name = fam.name + suffix
    if not (_name_ok(name) and _name_ok(fam.name)):
        return None
    doc = fam.documentation.replace("\\", r"\\").replace("\n", r"\n")
    om_doc = doc.replace('"', r"\"")
    unit = f"# UNIT {fam.name} {fam.unit}\n" if fam.unit else ""
    return (
        f"# HELP {name} {doc}\n# TYPE {name} {typ}\n",
        f"# HELP {fam.name} {om_doc}\n# TYPE {fam.name} {fam.type}\n{unit}",
    )


def _body(fam: Metric) -> list[str] | None:
    """The family's sample lines; None if it needs the client."""
    lines: list[str] = []
    rows: list[Row] = []
    row_name = ""
    if isinstance(fam, HistogramFamily):
        plain, series = fam.series()
    elif isinstance(fam, RowFamily):
        (plain, rows), series, row_name = fam.series(), [], fam.sample_name
    else:
        plain, series = fam.samples, []
    if not _sample_lines(fam.name, plain, lines):
        return None
    if series and not _histogram_lines(fam.name, series, lines):
        return None
    if rows and not _row_lines(row_name, rows, lines):
        return None
    return lines


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
        # the formats write these apart (milliseconds or seconds; exemplars in one only)
        if s.timestamp is not None or s.exemplar is not None or s.native_histogram is not None:
            return False
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
