"""arcstats -> metrics: golden exposition per real sample, unknown fields, aliases, garbage."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.helpers import fixture_path, require_tool
from zmon.cli import main
from zmon.collecting.registry import parse_kinds
from zmon.collectors.arc import arc_metrics, parse_arcstats_kind
from zmon.exposition.formats import render
from zmon.parsers.kstat.arcstats import parse_arcstats

SAMPLES = [
    ("corpus", "arcstats_02_linux_zol_0.6.5_91rows.txt"),
    ("corpus", "arcstats_04_linux_openzfs_2.2plus_147rows.txt"),
    ("corpus", "arcstats_06_linux_zol_0.7rc_94rows_PARTIAL.txt"),
    ("corpus", "arcstats_08_freebsd_ZoF_2019_sysctl_PARTIAL.txt"),
    ("lab", "2.1.11", "arcstats.txt"),
    ("lab", "2.3.2", "arcstats.txt"),
    ("lab", "zfs-fuse-0.7.0", "arcstats.txt"),
]
HEADER = "1 1 0x01 9 9 1 2\nname                            type data\n"


def sample_id(parts: tuple[str, ...]) -> str:
    return "-".join(parts).removesuffix(".txt")


@pytest.mark.parametrize("parts", SAMPLES, ids=sample_id)
def test_golden_exposition(parts: tuple[str, ...], golden) -> None:  # type: ignore[no-untyped-def]
    text = render(parse_arcstats_kind(fixture_path("arc", *parts).read_bytes()).families())
    golden(f"arc/{sample_id(parts)}.prom", text)


@pytest.mark.real
def test_golden_files_pass_promtool() -> None:
    promtool = require_tool("promtool", "lints the exposition")
    files = sorted((Path(__file__).parents[2] / "golden" / "arc").glob("*.prom"))
    assert files
    for path in files:
        proc = subprocess.run(
            [promtool, "check", "metrics"], input=path.read_bytes(), capture_output=True, timeout=30
        )
        assert proc.returncode == 0, f"{path.name}: {proc.stdout!r} {proc.stderr!r}"


def test_parse_kind_is_registered() -> None:
    func, help_text = parse_kinds()["arcstats"]
    assert func is parse_arcstats_kind and "sysctl" in help_text


def test_cli_parse(capsys: pytest.CaptureFixture[str]) -> None:
    path = fixture_path("arc", "corpus", "arcstats_02_linux_zol_0.6.5_91rows.txt")
    assert main(["parse", "arcstats", str(path)]) == 0
    assert "zmon_arc_hits_total 8.772612e+06" in capsys.readouterr().out


def test_cli_parse_error_names_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "arcstats"
    bad.write_text(HEADER + "hits 4 1\nhash_chai\n")
    assert main(["parse", "arcstats", str(bad)]) != 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "line 4" in err and "hash_chai" in err


def test_unknown_fields_land_in_the_generic_family() -> None:
    text = HEADER + (
        "hits                            4    7\n"
        "brand_new_stat                  4    42\n"
        "signed_new_stat                 3    -5\n"
        "string_new_stat                 7    some text\n"
    )
    ms = arc_metrics(parse_arcstats(text))
    assert ms.sample_value("zmon_arc_hits_total") == 7
    assert ms.sample_value("zmon_arc_stat", {"name": "brand_new_stat"}) == 42
    assert ms.sample_value("zmon_arc_stat", {"name": "signed_new_stat"}) == -5
    assert ms.sample_value("zmon_arc_stat", {"name": "string_new_stat"}) is None
    out = render(ms.families()).decode()
    assert "# TYPE zmon_arc_stat gauge" in out and "(arcstats: <name>)" in out


def test_unknown_sysctl_field_lands_in_the_generic_family() -> None:
    ms = arc_metrics(parse_arcstats("kstat.zfs.misc.arcstats.future_thing: 9\n"))
    assert ms.sample_value("zmon_arc_stat", {"name": "future_thing"}) == 9


def test_legacy_alias_and_successor() -> None:
    old = arc_metrics(parse_arcstats(HEADER + "meta_size 4 10\nanon_evict_data 4 3\n"))
    assert old.sample_value("zmon_arc_metadata_size_bytes") == 10
    assert old.sample_value("zmon_arc_state_evictable_data_bytes", {"state": "anon"}) == 3
    both = arc_metrics(parse_arcstats(HEADER + "meta_size 4 10\nmetadata_size 4 20\n"))
    out = render(both.families()).decode()
    assert out.count("\nzmon_arc_metadata_size_bytes ") == 1
    assert both.sample_value("zmon_arc_metadata_size_bytes") == 20


def test_garbage_is_never_exported() -> None:
    text = (
        "kstat.zfs.misc.arcstats.hits: -1\n"  # a counter cannot be negative
        "kstat.zfs.misc.arcstats.misses: lots\n"  # not a number
        "kstat.zfs.misc.arcstats.memory_available_bytes: -4096\n"  # a gauge may be
    )
    ms = arc_metrics(parse_arcstats(text))
    assert ms.sample_value("zmon_arc_hits_total") is None
    assert ms.sample_value("zmon_arc_misses_total") is None
    assert ms.sample_value("zmon_arc_stat", {"name": "misses"}) is None
    assert ms.sample_value("zmon_arc_memory_available_bytes") == -4096


def test_module_parameters() -> None:
    stats = parse_arcstats(HEADER + "size 4 1\n")
    ms = arc_metrics(stats, {"zfs_arc_max": 0, "zfs_arc_min": 1 << 30})
    assert ms.sample_value("zmon_arc_param_max_bytes") == 0
    assert ms.sample_value("zmon_arc_param_min_bytes") == 1 << 30
    out = render(ms.families()).decode()
    assert "0 means the built-in default" in out and "/sys/module/zfs/parameters/zfs_arc_max" in out
    assert arc_metrics(stats).sample_value("zmon_arc_param_max_bytes") is None
