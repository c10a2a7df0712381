"""zmon's direct renderer writes exactly what prometheus_client writes, in both formats.

The direct path (zmon/exposition/formats.py) and compact histogram families
(zmon/exposition/metrics.py) exist for speed on big hosts; these tests hold them to the
client's bytes (``generate_latest`` for format 0.0.4,
``openmetrics.exposition.generate_latest`` for OpenMetrics 1.0.0) on awkward inputs and on the
synthetic big host's whole exposition, parse zmon's OpenMetrics with the client's strict
OpenMetrics parser (it must give the families the client's own rendering gives, and the
families the 0.0.4 text gives), and lint the 0.0.4 exposition with promtool.
"""

from __future__ import annotations

import math
import subprocess

import pytest
from prometheus_client.core import Metric
from prometheus_client.openmetrics.parser import (
    text_string_to_metric_families as parse_openmetrics,
)
from prometheus_client.parser import text_string_to_metric_families as parse_text

from benchmarks.bighost import build_host
from tests.helpers import require_tool
from zmon.collecting.config import load
from zmon.collecting.registry import Context, NoDataError, collectors
from zmon.exposition.formats import (
    OPENMETRICS,
    TEXT,
    negotiate,
    render,
    render_family,
    render_openmetrics,
    render_openmetrics_with_client,
    render_with_client,
)
from zmon.exposition.metrics import HistogramFamily, MetricSet, RowFamily, unit_of


def plain_copy(families: list[Metric]) -> list[Metric]:
    """The same families as ordinary ``Metric`` objects with every sample built."""
    out = []
    for fam in families:
        copy = Metric(fam.name, fam.documentation, fam.type, fam.unit)
        copy.samples = list(fam.samples)
        out.append(copy)
    return out


def awkward() -> MetricSet:
    ms = MetricSet()
    ms.gauge(
        "zmon_t_bytes",
        'Help with \\ backslash,\nnewline and "quotes".',
        1.5,
        {"pool": 'ta"nk', "path": "a\\b\nc", "z": "last", "a": "first"},
    )
    for value in (
        0.0,
        -0.0,
        1e6,
        1234567.0,
        12345678901.0,
        1e-9,
        -3.25,
        math.inf,
        -math.inf,
        math.nan,
        2**53,
    ):
        ms.gauge("zmon_t_values", "Values as Go prints them.", value, {"v": repr(value)})
    ms.counter("zmon_t_events_total", "A counter.", 3, {"device": "sda"})
    ms.info("zmon_t_info", "An info.", {"version": "2.3.2", "b": ""})
    ms.state_set("zmon_t_state", "A state set.", ("ONLINE", "DEGRADED"), "ONLINE", {"pool": "p"})
    buckets = [(1e-06, 1), (0.001, 5), (1.0, 7)]
    for labels in (
        {},
        {"a": "1"},
        {"pool": "p", "vdev": "sda", "class": "normal"},
        {"zz": "x", "a": "y\\"},
        {"pool": "50%s", "vdev": "%d%%", "class": "%"},  # bucket lines are made by formatting
    ):
        ms.histogram("zmon_t_latency_seconds", "A histogram.", buckets, 9, 0.25, labels)
    ms.histogram(
        "zmon_t_inf_seconds",
        "Bounds ending in +Inf.",
        [(1.0, 2), (math.inf, 3)],
        3,
        1.0,
        {"op": "read"},
    )
    ms.gauge("zmon_t_no_labels", "No labels.", 7)
    for labels, key in (
        ({"pool": "p", "vdev": "sda", "class": "normal"}, "queue"),  # the key sorts inside
        ({"pool": 'ta"nk', "vdev": "a\\b\nc"}, "a"),  # ... first
        ({"pool": "p"}, "zz"),  # ... last
        ({}, "op"),
        ({"pool": "50%s"}, "op"),
    ):
        ms.gauge_row(
            "zmon_t_rows",
            "Compact rows.",
            labels,
            key,
            ("read", 'wr"ite', "none", "zero", "minus", "nan", "big", "inf"),
            (1.0, 2.5, None, 0.0, -0.0, math.nan, 12345678901.0, math.inf),
        )
    ms.counter_row(
        "zmon_t_ops_total", "A counter in rows.", {"vdev": "sda"}, "op", ("r", "w"), (3, 4)
    )
    ms.counter("zmon_t_ops_total", "A counter in rows.", 5, {"vdev": "sdb", "op": "r"})
    ms.counter_row("zmon_t_ops_total", "A counter in rows.", {"vdev": "sdc"}, "op", ("r",), (6,))
    ms.gauge("zmon_t_mixed", "A gauge first, then rows.", 1, {"a": "1"})
    ms.gauge_row("zmon_t_mixed", "A gauge first, then rows.", {"a": "2"}, "b", ("x",), (2,))
    ms.gauge_row("zmon_t_skipped", "Only None: no family.", {"a": "2"}, "b", ("x",), (None,))
    ms.gauge_row(
        "zmon_t_int_rows",
        "Rows of ints, kept as ints.",
        {"vdev": "sda"},
        "col",
        ("zero", "small", "past_2_53", "negative", "flag"),
        (0, 7, 2**60 + 1, -3, True),
    )
    return ms


Parsed = list[tuple[str, str, str, str, list[tuple[str, dict[str, str], str]]]]


def parsed(families: object) -> Parsed:
    """Parsed families as comparable values (a NaN sample equals a NaN)."""
    return [
        (
            f.name,
            f.type,
            f.unit,
            f.documentation,
            [(s.name, s.labels, repr(s.value)) for s in f.samples],
        )
        for f in families  # type: ignore[attr-defined]
    ]


def both_formats_agree(families: list[Metric]) -> None:
    """zmon's text in each format is the client's, byte for byte; its OpenMetrics parses
    (strictly) to what the client's does, and to the families its 0.0.4 text parses to."""
    reference = plain_copy(families)
    text, om = render(families), render_openmetrics(families)
    assert text == render_with_client(reference)
    assert om == render_openmetrics_with_client(reference)
    from_om = parsed(parse_openmetrics(om.decode()))
    assert from_om == parsed(parse_openmetrics(render_openmetrics_with_client(reference).decode()))
    from_text = [(*f[:2], "", *f[3:]) for f in parsed(parse_text(text.decode()))]
    assert [(*f[:2], "", *f[3:]) for f in from_om] == from_text


def test_awkward_families_render_as_the_client_renders_them() -> None:
    both_formats_agree(awkward().families())


def test_openmetrics_names_families_and_units_as_the_spec_says() -> None:
    om = render_openmetrics(awkward().families()).decode()
    assert om.endswith("\n# EOF\n") and om.count("# EOF") == 1
    # a counter's family has no _total (its samples have); HELP escapes quotes; UNIT is the
    # unit the name ends in
    assert "# HELP zmon_t_events A counter.\n# TYPE zmon_t_events counter\n" in om
    assert 'zmon_t_events_total{device="sda"} 3.0\n' in om
    assert '# HELP zmon_t_bytes Help with \\\\ backslash,\\nnewline and \\"quotes\\".\n' in om
    assert "# TYPE zmon_t_bytes gauge\n# UNIT zmon_t_bytes bytes\n" in om
    assert "# UNIT zmon_t_latency_seconds seconds\n" in om
    assert "_created" not in om  # not served (zmon/exposition/formats.py says why)
    text = render(awkward().families()).decode()
    assert "# TYPE zmon_t_events_total counter\n" in text and "# UNIT" not in text


def test_a_family_renders_its_samples_once_for_both_formats() -> None:
    for fam in awkward().families():
        texts = render_family(fam)
        assert texts.shared, fam.name  # none of these needs the client
        assert texts.of(TEXT) == render([fam]) and texts.of(OPENMETRICS) + b"# EOF\n" == (
            render_openmetrics([fam])
        )


def test_units_are_read_from_the_end_of_a_family_name() -> None:
    assert unit_of("zmon_arc_size_bytes") == "bytes"
    assert unit_of("zmon_disk_power_on_seconds") == "seconds"  # a counter's family
    assert unit_of("zmon_pool_scan_issue_rate_bytes_per_second") == "bytes_per_second"
    assert unit_of("zmon_disk_temperature_celsius") == "celsius"
    assert unit_of("zmon_arc_hits") == unit_of("zmon_disk_info") == ""
    assert unit_of("zmon_pool_nobytes") == ""  # a whole word only


# Prometheus 2.42's own Accept header (scrape/scrape.go, before protobuf negotiation)
PROMETHEUS_2_42_ACCEPT = (
    "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;"
    "q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"
)


@pytest.mark.parametrize(
    ("accept", "want"),
    [
        (PROMETHEUS_2_42_ACCEPT, OPENMETRICS),
        ("application/openmetrics-text", OPENMETRICS),
        ("application/openmetrics-text; version=1.0.0; charset=utf-8", OPENMETRICS),
        ("application/openmetrics-text;version=2.0.0", OPENMETRICS),  # served as 1.0.0
        ("text/plain;version=0.0.4", TEXT),
        ("text/plain;version=1.0.0;escaping=allow-utf-8", TEXT),
        ("application/openmetrics-text;version=0.0.1,text/plain;version=0.0.4;q=0.5", TEXT),
        ("application/openmetrics-text;version=abc", TEXT),  # the client raises on this one
        ("*/*", TEXT),
        ("", TEXT),
    ],
)
def test_negotiation_is_the_clients(accept: str, want: object) -> None:
    assert negotiate(accept) == want


def test_compact_histograms_give_the_samples_add_sample_would() -> None:
    fam = awkward()._families["zmon_t_latency_seconds"]
    assert isinstance(fam, HistogramFamily)
    reference = Metric(fam.name, fam.documentation, "histogram")
    for base in (
        {},
        {"a": "1"},
        {"pool": "p", "vdev": "sda", "class": "normal"},
        {"zz": "x", "a": "y\\"},
        {"pool": "50%s", "vdev": "%d%%", "class": "%"},  # bucket lines are made by formatting
    ):
        for le, value in (("1e-06", 1.0), ("0.001", 5.0), ("1.0", 7.0), ("+Inf", 9.0)):
            reference.add_sample(fam.name + "_bucket", {**base, "le": le}, value)
        reference.add_sample(fam.name + "_count", base, 9.0)
        reference.add_sample(fam.name + "_sum", base, 0.25)
    assert fam.samples == reference.samples


def test_compact_rows_give_the_samples_gauge_and_counter_would() -> None:
    ms = awkward()
    fam = ms._families["zmon_t_rows"]
    assert isinstance(fam, RowFamily)
    assert "zmon_t_skipped" not in ms._families
    reference = MetricSet()
    for labels, key in (
        ({"pool": "p", "vdev": "sda", "class": "normal"}, "queue"),
        ({"pool": 'ta"nk', "vdev": "a\\b\nc"}, "a"),
        ({"pool": "p"}, "zz"),
        ({}, "op"),
        ({"pool": "50%s"}, "op"),
    ):
        for label, value in zip(
            ("read", 'wr"ite', "none", "zero", "minus", "nan", "big", "inf"),
            (1.0, 2.5, None, 0.0, -0.0, math.nan, 12345678901.0, math.inf),
            strict=True,
        ):
            reference.gauge("zmon_t_rows", "Compact rows.", value, {**labels, key: label})
    got = [(s.name, s.labels, repr(s.value)) for s in fam.samples]
    want = [(s.name, s.labels, repr(s.value)) for s in reference._families["zmon_t_rows"].samples]
    assert got == want
    ops = ms._families["zmon_t_ops"]
    assert [(s.name, s.labels, s.value) for s in ops.samples] == [
        ("zmon_t_ops_total", {"vdev": "sda", "op": "r"}, 3.0),
        ("zmon_t_ops_total", {"vdev": "sda", "op": "w"}, 4.0),
        ("zmon_t_ops_total", {"vdev": "sdb", "op": "r"}, 5.0),
        ("zmon_t_ops_total", {"vdev": "sdc", "op": "r"}, 6.0),
    ]


def test_rows_keep_ints_and_their_samples_read_floats() -> None:
    fam = awkward()._families["zmon_t_int_rows"]
    assert [(s.labels["col"], s.value) for s in fam.samples] == [
        ("zero", 0.0), ("small", 7.0), ("past_2_53", float(2**60 + 1)), ("negative", -3.0),
        ("flag", 1.0),
    ]  # fmt: skip
    assert all(type(s.value) is float for s in fam.samples)


def test_a_row_value_that_is_no_number_is_refused() -> None:
    with pytest.raises(TypeError):
        MetricSet().gauge_row("zmon_t_rows", "Rows.", {"vdev": "sda"}, "op", ("r",), ("1",))


def test_rows_one_after_another_share_equal_labels_and_not_the_callers_dict() -> None:
    ms = MetricSet()
    labels = {"pool": "p", "vdev": "sda"}
    ms.gauge_row("zmon_t_a", "A.", labels, "op", ("r",), (1,))
    ms.counter_row("zmon_t_b_total", "B.", labels, "op", ("r",), (2,))
    labels["vdev"] = "sdb"  # the caller reuses its dict for the next vdev
    ms.gauge_row("zmon_t_a", "A.", labels, "op", ("r",), (3,))
    a, b = ms._families["zmon_t_a"], ms._families["zmon_t_b"]
    assert isinstance(a, RowFamily) and isinstance(b, RowFamily)
    (sda_a, sdb_a), (sda_b,) = a.series()[1], b.series()[1]
    assert sdb_a[0] is not sda_a[0]
    assert sda_a[0] is sda_b[0] and sda_a[0] is not labels  # one copy for sda's two rows
    assert [s.labels["vdev"] for s in a.samples] == ["sda", "sdb"]
    assert [s.labels["vdev"] for s in b.samples] == ["sda"]


def test_each_sample_reads_a_compact_family_without_keeping_its_samples() -> None:
    seen = 0
    for fam in awkward().families():
        each = getattr(fam, "each_sample", None)
        if each is None:
            continue
        compact = bool(fam.series()[1])
        once = [(s.name, s.labels, repr(s.value)) for s in each()]
        assert bool(fam.series()[1]) == compact  # nothing was built into the family
        seen += compact
        assert once == [(s.name, s.labels, repr(s.value)) for s in fam.samples], fam.name
    assert seen >= 3


def test_a_state_set_is_one_row_with_the_samples_it_had() -> None:
    ms = MetricSet()
    states = ("online", "degraded", "faulted")
    ms.state_set("zmon_t_state", "States.", states, "degraded", {"pool": "p"})
    ms.state_set("zmon_t_state", "States.", ("online",), "gone", {"pool": "q"})
    ms.state_set("zmon_t_none", "No states: the family alone.", (), None)
    fam = ms._families["zmon_t_state"]
    assert isinstance(fam, RowFamily)
    assert [(s.name, s.labels, s.value) for s in fam.samples] == [
        ("zmon_t_state", {"pool": "p", "state": "online"}, 0.0),
        ("zmon_t_state", {"pool": "p", "state": "degraded"}, 1.0),
        ("zmon_t_state", {"pool": "p", "state": "faulted"}, 0.0),
        ("zmon_t_state", {"pool": "q", "state": "online"}, 0.0),  # unknown: all 0
    ]
    assert "zmon_t_none" in ms._families and not ms._families["zmon_t_none"].samples


def test_a_declared_family_still_takes_compact_rows_in_its_place() -> None:
    """zpool declares every family first (their order); its 1,100 vdev state sets were then
    added as 6,700 samples, each with its own label dict, and kept for the status views."""
    ms = MetricSet()
    ms.declare("zmon_t_first", "Declared first.")
    ms.declare("zmon_t_state", "States, as declared.")
    ms.gauge("zmon_t_first", "Declared first.", 1.0)
    ms.state_set("zmon_t_state", "States.", ("online", "faulted"), "online", {"pool": "p"})
    fam = ms._families["zmon_t_state"]
    assert isinstance(fam, RowFamily) and fam.documentation == "States, as declared."
    assert list(ms._families) == ["zmon_t_first", "zmon_t_state"]
    assert render(ms.families()) == render_with_client(ms.families())


def test_families_the_direct_path_leaves_to_the_client() -> None:
    odd = Metric("zmon_t_odd", "Has an OpenMetrics-only sample.", "counter")
    odd.add_sample("zmon_t_odd_total", {}, 1.0)
    odd.add_sample("zmon_t_odd_created", {}, 1700000000.0)
    stamped = Metric("zmon_t_stamped", "A sample with a timestamp.", "gauge")
    stamped.add_sample("zmon_t_stamped", {"x": "1"}, 2.0, timestamp=1700000000.5)
    dotted = Metric("zmon.t.dotted", "A name outside the legacy set.", "gauge")
    dotted.add_sample("zmon.t.dotted", {}, 1.0)
    colon = Metric("zmon:t:colon", "A recording rule's kind of name.", "gauge")
    colon.add_sample("zmon:t:colon", {}, 1.0)
    families = [odd, stamped, dotted, colon, *awkward().families()]
    assert render(families) == render_with_client(plain_copy(families))
    assert render_openmetrics(families) == render_openmetrics_with_client(plain_copy(families))
    assert [render_family(f).shared for f in (odd, stamped, dotted, colon)] == [b""] * 4


@pytest.fixture(scope="module")
def big_families(tmp_path_factory: pytest.TempPathFactory) -> list[Metric]:
    """Every collector's families on a small synthetic big host, histograms for every vdev."""
    host = build_host(tmp_path_factory.mktemp("bighost"), vdevs=20)
    cfg = host.apply(load(collectors(), None))
    runner = host.runner()
    families: list[Metric] = []
    for name, cls in collectors().items():
        if name in ("kernel_log", "zpool_events", "hotplug"):
            continue  # followers: covered by tests/bench
        options = {**cfg.collectors[name].options, "histograms": "all", "jitter": 0.0}
        ctx = Context(
            paths=cfg.paths, runner=runner, options=options, platform="linux", one_shot=True
        )
        try:
            families += cls(ctx).collect().families()
        except NoDataError:
            continue
    return families


def test_big_host_exposition_is_the_clients(big_families: list[Metric]) -> None:
    for fam in big_families:
        both_formats_agree([fam])


@pytest.mark.real
def test_big_host_exposition_passes_promtool(big_families: list[Metric]) -> None:
    promtool = require_tool("promtool", "Debian package prometheus")
    result = subprocess.run(
        [promtool, "check", "metrics"],
        input=render(big_families),
        capture_output=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout.decode()[-2000:] + result.stderr.decode()[-2000:]


def test_a_histogram_from_ready_cumulative_counts_is_the_same_histogram() -> None:
    from zmon.exposition.metrics import bucket_les

    bounds = (1e-06, 0.001, 1.0)
    whole, ready = MetricSet(), MetricSet()
    for labels in ({}, {"a": "1"}, {"zz": "x", "a": 'y"\\'}, {"pool": "50%s", "op": "read"}):
        pairs = list(zip(bounds, (1, 5, 7), strict=True))
        whole.histogram("zmon_t_seconds", "H.", pairs, 9, 0.25, labels)
        les = bucket_les(bounds)
        assert les == ("1e-06", "0.001", "1.0", "+Inf")
        ready.histogram_cumulative("zmon_t_seconds", "H.", les, [1.0, 5.0, 7.0], 9, 0.25, labels)
    assert render(ready.families()) == render(whole.families())
    assert ready.families()[0].samples == whole.families()[0].samples


def test_big_host_families_have_one_name_each_and_parse_as_one_exposition(
    big_families: list[Metric],
) -> None:
    names = [fam.name for fam in big_families]
    assert sorted({n for n in names if names.count(n) > 1}) == []
    both_formats_agree(big_families)
