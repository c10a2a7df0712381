"""zpool iostat parsing: real 2.1.11/2.3.2 captures, the corpus (EXPECTED.md facts), -H, -w."""

from __future__ import annotations

import pytest

from tests.support.perf_lab import LAB, PERF, VERSIONS, lab
from zmon.base.errors import ParseError
from zmon.parsers.zpool import zpool_iostat
from zmon.parsers.zpool import zpool_iostat_histograms as histograms
from zmon.parsers.zpool.zpool_iostat import (
    HISTO_BUCKETS,
    SCRIPTED_LAYOUTS,
    ZpoolIostat,
    parse_nicetime,
    parse_zpool_iostat,
)

SCENARIOS = ("01-healthy", "13-resilver-in-progress", "17-spare-inuse")
K, M, G, T = 1 << 10, 1 << 20, 1 << 30, 1 << 40


def tree(parsed: ZpoolIostat) -> list[tuple[str, str, int, str]]:
    return [(p.name, r.name, r.depth, r.vdev_class) for p in parsed.pools for r in p.rows]


def row(parsed: ZpoolIostat, pool: str, name: str):  # type: ignore[no-untyped-def]
    return next(r for p in parsed.pools if p.name == pool for r in p.rows if r.name == name)


def corpus(name: str) -> ZpoolIostat:
    return parse_zpool_iostat((PERF / "corpus" / name).read_bytes())


def test_aligned_2_3_2_tree_and_values() -> None:
    parsed = parse_zpool_iostat(lab("2.3.2", "01-healthy", "zpool-iostat-v-p-l.txt"))
    assert len(parsed.columns) == 17 and parsed.columns[-1] == "rebuild_wait"
    assert tree(parsed) == [
        ("rz", "rz", 0, "normal"),
        ("rz", "raidz1-0", 1, "normal"),
        ("rz", "vda", 2, "normal"),
        ("rz", "vdb", 2, "normal"),
        ("rz", "vdc", 2, "normal"),
        ("single", "single", 0, "normal"),
        ("single", "nvme-QEMU_NVMe_Ctrl_ZLNVME1", 1, "normal"),
        ("tank", "tank", 0, "normal"),
        ("tank", "mirror-0", 1, "normal"),
        ("tank", "ata-QEMU_HARDDISK_ZLSATA0", 2, "normal"),
        ("tank", "ata-QEMU_HARDDISK_ZLSATA1", 2, "normal"),
        ("tank", "vdd", 1, "log"),
        ("tank", "vde", 1, "cache"),
    ]
    tank = row(parsed, "tank", "tank").values
    assert tank["capacity_alloc"] == 209416192 and tank["operations_write"] == 607
    assert tank["bandwidth_write"] == 24177777 and tank["total_wait_read"] == 1092266
    assert tank["asyncq_wait_read"] is None and tank["scrub_wait"] is None
    assert row(parsed, "tank", "vdd").values["syncq_wait_read"] == 143360


def test_aligned_2_1_11_has_no_rebuild_column() -> None:
    parsed = parse_zpool_iostat(lab("2.1.11", "01-healthy", "zpool-iostat-v-p-l.txt"))
    assert len(parsed.columns) == 16 and "rebuild_wait" not in parsed.columns
    assert row(parsed, "single", "single").values["total_wait_write"] == 4329634


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_scripted_tree_matches_aligned(version: str, scenario: str) -> None:
    """-H output has no indentation: the tree inferred from capacities matches the real one."""
    aligned = parse_zpool_iostat(lab(version, scenario, "zpool-iostat-v-p-l.txt"))
    scripted = parse_zpool_iostat(lab(version, scenario, "zpool-iostat-H-p-v-l-q.txt"))
    assert scripted.scripted and not scripted.has_tree
    flat = [(p, n, min(d, 2), c == "normal") for p, n, d, c in tree(aligned)]
    assert [(p, n, d, c == "normal") for p, n, d, c in tree(scripted)] == flat


def test_nested_vdevs_keep_their_depth() -> None:
    parsed = parse_zpool_iostat(lab("2.3.2", "17-spare-inuse", "zpool-iostat-v-p-l.txt"))
    depths = {r.name: r.depth for p in parsed.pools for r in p.rows}
    assert depths["spare-1"] == 2 and depths["nvme-QEMU_NVMe_Ctrl_ZLNVME0"] == 3


@pytest.mark.parametrize(("version", "width"), [("2.3.2", 31), ("2.1.11", 28)])
def test_scripted_queue_columns(version: str, width: int) -> None:
    parsed = parse_zpool_iostat(lab(version, "01-healthy", "zpool-iostat-H-p-v-l-q.txt"))
    assert len(parsed.columns) == width
    vde = row(parsed, "tank", "vde").values
    assert vde["syncq_read_pend"] == 0 and vde["asyncq_write_activ"] == 0
    assert vde["capacity_alloc"] == (200937472 if version == "2.3.2" else 191688704)


def test_synthetic_aligned_queue_table() -> None:
    parsed = parse_zpool_iostat(lab("2.3.2", "01-healthy", "zpool-iostat-v-p-l-q.SYNTHETIC.txt"))
    assert len(parsed.columns) == 31 and parsed.has_tree
    assert row(parsed, "tank", "vdd").values["rebuildq_write_activ"] == 0


@pytest.mark.parametrize(("version", "columns"), [("2.3.2", 11), ("2.1.11", 10)])
def test_histograms(version: str, columns: int) -> None:
    parsed = parse_zpool_iostat(lab(version, "01-healthy", "zpool-iostat-p-w.txt"))
    assert not parsed.pools
    assert [b.name for b in parsed.histograms] == ["rz", "single", "tank"]
    tank = parsed.histograms[2].columns
    assert len(tank) == columns and all(len(c) == HISTO_BUCKETS for c in tank.values())
    if version == "2.3.2":
        assert tank["total_wait_read"][18:22] == (3, 3, 2, 1)  # 524us 1ms 2ms 4ms
        assert sum(tank["asyncq_wait_write"]) == 10730


def test_histogram_scrub_column_during_resilver() -> None:
    parsed = parse_zpool_iostat(lab("2.3.2", "13-resilver-in-progress", "zpool-iostat-p-w.txt"))
    rz = parsed.histograms[0].columns
    assert rz["scrub_wait"][10] == 70 and sum(rz["rebuild_wait"]) == 0


def test_scripted_histograms_equal_aligned() -> None:
    """The -H -w form (raw bucket bounds, tabs) reads to the same columns."""
    aligned = parse_zpool_iostat(lab("2.3.2", "01-healthy", "zpool-iostat-p-w.txt"))
    lines = []
    for block in aligned.histograms:
        lines += ["", block.name]
        cols = list(block.columns.values())
        for j in range(HISTO_BUCKETS):
            lines.append("\t".join([str((1 << (j + 1)) - 1), *(str(c[j]) for c in cols)]))
    scripted = parse_zpool_iostat("\n".join(lines) + "\n")
    assert [(b.name, b.columns) for b in scripted.histograms] == [
        (b.name, b.columns) for b in aligned.histograms
    ]


def test_table_and_histograms_in_one_input() -> None:
    d = LAB / "2.3.2" / "01-healthy"
    data = (d / "zpool-iostat-v-p-l.txt").read_bytes() + (d / "zpool-iostat-p-w.txt").read_bytes()
    parsed = parse_zpool_iostat(data)
    assert len(parsed.pools) == 3 and len(parsed.histograms) == 3


def test_request_size_histograms_are_refused() -> None:
    with pytest.raises(ParseError, match=r"line 2: request-size histograms"):
        parse_zpool_iostat(lab("2.3.2", "01-healthy", "zpool-iostat-p-r.txt"))


def test_corpus_0_6_mirror_slog() -> None:
    parsed = corpus("zpool_iostat_02_v_mirror_slog_0.6.txt")
    assert len(parsed.columns) == 6
    pool = row(parsed, "tank-copy", "tank-copy").values
    assert pool["capacity_alloc"] == 483 * G and pool["capacity_free"] == round(1.34 * T)
    assert pool["operations_read"] == 143 and pool["operations_write"] == round(4.44 * K)
    assert pool["bandwidth_read"] == round(1.12 * M) and pool["bandwidth_write"] == round(69.2 * M)
    mirror = row(parsed, "tank-copy", "mirror")
    assert mirror.depth == 1 and mirror.values["operations_write"] == round(4.09 * K)
    assert mirror.values["bandwidth_write"] == 32 * M
    leaf = row(parsed, "tank-copy", "wwn-5000c5002e38e0eb")
    assert leaf.depth == 2 and leaf.values["capacity_alloc"] is None
    slog = row(parsed, "tank-copy", "wwn-5000c500301004bf")
    assert slog.vdev_class == "log" and slog.depth == 1
    assert slog.values["capacity_alloc"] == round(78.2 * M)
    assert slog.values["capacity_free"] == 186 * G
    assert slog.values["operations_write"] == 358 and slog.values["bandwidth_write"] == round(
        37.2 * M
    )


def test_corpus_latency_partial() -> None:
    parsed = corpus("zpool_iostat_04_Llv_raidz2_latency_PARTIAL.txt")
    pool = row(parsed, "data3", "data3").values
    assert pool["capacity_alloc"] == round(1.47 * T) and pool["capacity_free"] == round(85.5 * T)
    assert pool["operations_read"] == round(13.2 * K) and pool["bandwidth_read"] == round(1.32 * G)
    assert pool["total_wait_read"] == 6_000_000 and pool["disk_wait_read"] == 4_000_000
    assert pool["syncq_wait_read"] == 133 and pool["asyncq_wait_read"] == 1_000_000
    assert pool["total_wait_write"] is None and pool["scrub_wait"] is None
    assert row(parsed, "data3", "raidz2").values["capacity_alloc"] == round(1.47 * T)
    leaves = {r.name: r.values for r in parsed.pools[0].rows if r.depth == 2}
    assert leaves["sdv"]["operations_read"] == 1012 and leaves["sdv"]["bandwidth_read"] == 101 * M
    assert leaves["sdah"]["operations_read"] == 1014
    assert leaves["sdah"]["bandwidth_read"] == 102 * M
    assert leaves["sdw"]["operations_read"] == round(1.32 * K)
    assert leaves["sdw"]["bandwidth_read"] == 135 * M
    assert leaves["sdai"]["operations_read"] == 1018 and leaves["sdaf"]["operations_read"] == 1017


def test_corpus_two_samples_all_classes() -> None:
    parsed = corpus("zpool_iostat_06_plv_two_samples_all_classes_2.4.4.txt")
    assert [(r.name, r.vdev_class) for r in parsed.pools[0].rows] == [
        ("gtvdev", "normal"),
        ("sdb1", "normal"),
        ("sdb6", "dedup"),
        ("sdb5", "special"),
        ("sdb2", "log"),
        ("sdb3", "cache"),
    ]
    v = parsed.pools[0].root.values  # the first (since-boot) sample, not the 1-s one
    assert (v["capacity_alloc"], v["capacity_free"]) == (167424, 1241346560)
    assert (v["operations_read"], v["operations_write"]) == (0, 1)
    assert (v["bandwidth_read"], v["bandwidth_write"]) == (10596, 35135)
    assert (v["total_wait_read"], v["total_wait_write"]) == (1460516, 384704)
    assert (v["disk_wait_read"], v["disk_wait_write"]) == (1460516, 288528)
    assert (v["syncq_wait_read"], v["syncq_wait_write"]) == (733, 5473)
    assert (v["asyncq_wait_read"], v["asyncq_wait_write"]) == (None, 213831)
    assert v["scrub_wait"] is v["trim_wait"] is v["rebuild_wait"] is None
    assert row(parsed, "gtvdev", "sdb5").values["capacity_alloc"] == 167424


def test_nicetime() -> None:
    assert parse_nicetime("133ns") == 133
    assert parse_nicetime("1.5ms") == 1_500_000
    assert parse_nicetime("2s") == 2_000_000_000
    assert parse_nicetime("-") is None and parse_nicetime("42") == 42
    with pytest.raises(ValueError):
        parse_nicetime("4 ms")


def test_scripted_layout_collision_prefers_latency() -> None:
    assert SCRIPTED_LAYOUTS[16][-1] == "trim_wait"  # -l on 0.8-2.1, not -q on 0.7
    assert SCRIPTED_LAYOUTS[20][-1] == "rebuildq_write_activ"


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("", None),
        ("hello world\n", "line 1"),
        ("    capacity  operations\npool  alloc\n", "line 2"),
        (
            "  capacity operations bandwidth\npool alloc free read write read write\n"
            "----\ntank 1 2 3\n",
            "line 4",
        ),
        ("tank\t1\t2\n", "line 1"),
        (
            "  capacity operations bandwidth\npool alloc free read write read write\n"
            "tank 1 2 3 4 5 x7\n",
            "line 3",
        ),
    ],
)
def test_garbage_names_the_line(text: str, where: str | None) -> None:
    with pytest.raises(ParseError) as exc:
        parse_zpool_iostat(text)
    if where:
        assert where in str(exc.value)


def test_plain_blocks_read_by_columns_as_row_by_row(monkeypatch: pytest.MonkeyPatch) -> None:
    """A ``-p`` block is read in one split (the fast path); every recorded ``-w`` output
    gives what reading it row by row gives, and the fast path is taken where it applies."""
    texts = sorted(PERF.glob("**/*iostat*"))
    assert len(texts) > 10
    taken = []
    plain_block = histograms._plain_block

    def counted(*args):  # type: ignore[no-untyped-def]
        found = plain_block(*args)
        taken.append(found is not None)
        return found

    for path in texts:
        data = path.read_bytes()
        try:
            with monkeypatch.context() as m:
                m.setattr(histograms, "_plain_block", counted)
                fast = parse_zpool_iostat(data)
        except ParseError:
            continue
        with monkeypatch.context() as m:
            m.setattr(histograms, "_plain_block", lambda *_: None)
            slow = parse_zpool_iostat(data)
        assert fast == slow, path.name
    assert taken.count(True) >= 6


def test_plain_block_leaves_odd_rows_to_the_row_reader() -> None:
    good = ["1ns 0 0", "3ns 1 2", "---"]
    assert histograms._plain_block(good, 0, ("a", "b")) == ({"a": (0, 1), "b": (0, 2)}, 2)
    for odd in (["1ns 0 0 0", "3ns 1"], ["1ns 0 1K", "3ns 1 2"], ["1 0 0", "3 1 2"]):
        assert histograms._plain_block(odd, 0, ("a", "b")) is None


def _one_block(rows: list[str]) -> str:
    head = "tank  total_wait disk_wait syncq_wait asyncq_wait\nlatency" + " read write" * 4
    return head + " scrub trim rebuild\n----------\n" + "\n".join(rows) + "\n----------\n"


def test_every_column_of_a_block_is_read_and_checked_by_the_parse() -> None:
    """The parse returns complete records: a bad count in any column of a ``-w`` block is
    a ParseError from ``parse_zpool_iostat`` itself, naming its line, never later."""
    good = [f"{n}ns" + f" {n}" * 11 for n in (1, 3, 7)]
    columns = parse_zpool_iostat(_one_block(good)).histograms[0].columns
    assert columns["total_wait_read"] == (1, 3, 7)
    assert columns["rebuild_wait"] == (1, 3, 7) and columns.get("nothing") is None
    assert isinstance(columns, dict)  # plain data, nothing read on access

    human = [*good[:2], "7ns 7 7 1K" + " 7" * 8]  # human numbers past the first two columns
    columns = parse_zpool_iostat(_one_block(human)).histograms[0].columns
    assert columns["disk_wait_read"] == (1, 3, 1024)

    for bad in ("7ns 7 7 x" + " 7" * 8, "7ns 7 7 7", "7ns 7 7" + " 7" * 10, "7ns x 7" + " 7" * 9):
        with pytest.raises(ParseError) as exc:
            parse_zpool_iostat(_one_block([*good[:2], bad]))
        assert "line 6" in str(exc.value), bad


@pytest.mark.parametrize(
    "text",
    ["", "a", "a\n", "a\n\nb", "a\r\nb\r\n", "x\ry\n", "é\nü\n\n", "a\x0bb\nc\x85d\n", "\n\n\n"],
)
def test_lines_are_the_text_s_without_colour_codes(text: str) -> None:
    for data in (text, text.encode()):
        assert zpool_iostat.text_lines(data) == (text.splitlines(), False)
    colored = "\x1b[1mtank\x1b[0m\t1\n" + text
    assert zpool_iostat.text_lines(colored) == (("tank\t1\n" + text).splitlines(), True)
    with pytest.raises(ParseError, match="not text"):
        zpool_iostat.text_lines(text.encode() + b"\n\xff\n")
