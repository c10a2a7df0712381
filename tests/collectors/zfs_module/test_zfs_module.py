"""zfs_module: the module parser on real captures, the tunables table, the collector and its
parse kind.

Inputs: the stock modules' parameters of the lab (OpenZFS 2.1.11 and 2.3.2, read right after
``modprobe zfs``), the lab's ``zfs version`` and ``zpool get -Hp all`` of step 01, and each
release's supported pool features (``derived-features-pool.txt``, see the fixture README).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.helpers import collector_doc, fixture_path
from tests.support.pool_lab import context
from zmon.base.errors import ParseError
from zmon.base.runner import CommandResult, StaticRunner
from zmon.collecting.registry import NoDataError, parse_kinds
from zmon.collectors.zfs_module import ZfsModuleCollector
from zmon.collectors.zfs_module.metrics import ModuleReading, module_metrics
from zmon.collectors.zfs_module.tunables import SERIES, TUNABLES
from zmon.exposition.formats import render
from zmon.exposition.metrics import MetricSet
from zmon.parsers.kstat.zfs_module import (
    parse_compatibility,
    parse_module_dump,
    parse_parameter_value,
    parse_version,
    version_series,
)

MODULE = fixture_path("zfs_module", "lab")
LAB = fixture_path("lab")
VERSIONS = ("2.1.11", "2.3.2")
GET_ALL = ("zpool", "get", "-Hp", "all")


def module_version(version: str) -> str:
    """What /sys/module/zfs/version held: the lab's ``zfs version`` line ``zfs-kmod-X``."""
    text = (LAB / version / "01-healthy" / "zfs-version.txt").read_text()
    kmod = next(line for line in text.splitlines() if line.startswith("zfs-kmod-"))
    return kmod.removeprefix("zfs-kmod-")


def zpool_get(version: str) -> str:
    return (LAB / version / "01-healthy" / "zpool-get-Hp-all.txt").read_text()


def dump(version: str, params: str | None = None) -> str:
    """A module dump as ``grep -H .`` prints it, from the captures of one version."""
    d = MODULE / version
    return (
        f"/sys/module/zfs/version:{module_version(version)}\n"
        + (params if params is not None else (d / "module-parameters.txt").read_text())
        + (d / "derived-features-pool.txt").read_text()
    )


def sysfs(tmp: Path, text: str) -> Path:
    """Lay a module dump out as the files it was read from, under ``tmp/sys``."""
    root = tmp / "sys"
    for line in text.splitlines():
        if not line.startswith("/sys/module/zfs/"):
            continue  # spl parameters
        head, sep, value = line.partition("/uname:")  # a feature's directory holds a ':'
        path = head + "/uname" if sep else line.partition(":")[0]
        value = value if sep else line.partition(":")[2]
        target = root / path.removeprefix("/sys/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(value + "\n")
    return root


def collector(
    tmp: Path,
    module_dump: str,
    get_all: str | CommandResult | None,
    platform: str = "linux",
    runner: dict[tuple[str, ...], str | CommandResult] | None = None,
) -> ZfsModuleCollector:
    responses = dict(runner or {})
    if get_all is not None:
        responses[GET_ALL] = get_all
    ctx = context(StaticRunner(responses), tmp, sysfs=sysfs(tmp, module_dump))
    ctx.platform = platform
    return ZfsModuleCollector(ctx)


def values(ms: MetricSet) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    text = render(ms.families()).decode()
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for fam in text_string_to_metric_families(text)
        for s in fam.samples
    }


def upgradable(ms: MetricSet) -> dict[str, float]:
    return {
        dict(labels)["pool"]: v
        for (name, labels), v in values(ms).items()
        if name == "zmon_pool_features_upgradable"
    }


def pool_from_older_release(newer_get: str, older_get: str) -> str:
    """``zpool get`` of the newer tools on pools created by the older release: each feature
    the older release lacked shows ``disabled`` (what ``zpool upgrade`` would enable)."""
    old = {line.split("\t")[1] for line in older_get.splitlines() if "\tfeature@" in line}
    out = []
    for line in newer_get.splitlines():
        parts = line.split("\t")
        if parts[1].startswith("feature@") and parts[1] not in old:
            parts[2] = "disabled"
        out.append("\t".join(parts))
    return "\n".join(out) + "\n"


# ---- parser


@pytest.mark.parametrize("version", VERSIONS)
def test_real_module_dump(version: str) -> None:
    parsed = parse_module_dump(dump(version))
    assert parsed.version == module_version(version)
    raw = (MODULE / version / "module-parameters.txt").read_text().splitlines()
    assert len(parsed.parameters) == sum(1 for ln in raw if ln.startswith("/sys/module/zfs/"))
    assert not any(name.startswith("spl_") for name in parsed.parameters)  # spl lines skipped
    assert parsed.features is not None
    assert set(parsed.features) == {
        line.split("\t")[1].removeprefix("feature@")
        for line in zpool_get(version).splitlines()
        if line.startswith("tank\tfeature@")
    }


def test_parameter_values() -> None:
    params = parse_module_dump(dump("2.3.2")).parameters
    assert parse_parameter_value(params["zfs_txg_timeout"]) == 5
    assert parse_parameter_value(params["dbuf_cache_max_bytes"]) == 2**64 - 1
    assert params["icp_aes_impl"] == "cycle [fastest] generic x86_64"
    assert parse_parameter_value(params["icp_aes_impl"]) is None
    assert parse_parameter_value("-1\n") == -1


@pytest.mark.parametrize(
    ("text", "version", "series"),
    [
        ("2.3.2-2~bpo12+2\n", "2.3.2-2~bpo12+2", "2.3"),
        ("2.1.11-1+deb12u1", "2.1.11-1+deb12u1", "2.1"),
        ("vfs.zfs.version.module: 2.1.4-FreeBSD_g52bad4f23\n", "2.1.4-FreeBSD_g52bad4f23", "2.1"),
        ("0.8.6-1\n", "0.8.6-1", "0.8"),
        ("v2.2.99-365_g1fd0e5bc\n", "v2.2.99-365_g1fd0e5bc", "2.2"),
        ("unknown\n", "unknown", None),
    ],
)
def test_version_and_series(text: str, version: str, series: str | None) -> None:
    assert parse_version(text) == version
    assert version_series(version) == series


def test_errors_name_the_line() -> None:
    with pytest.raises(ParseError, match="one version word"):
        parse_version(b"\n")
    with pytest.raises(ParseError, match=r"line 2: expected 'path:value'"):
        parse_module_dump("/sys/module/zfs/version:2.3.2\nzfs_txg_timeout 5\n")
    with pytest.raises(ParseError, match="no /sys/module/zfs/"):
        parse_module_dump("/sys/module/spl/parameters/spl_hostid:0\n")


def test_compatibility_file() -> None:
    text = "# a comment\nasync_destroy, bookmarks\nembedded_data  # trailing\n\n"
    assert parse_compatibility(text) == {"async_destroy", "bookmarks", "embedded_data"}


# ---- the tunables table


@pytest.mark.parametrize("version", VERSIONS)
def test_a_stock_module_shows_every_curated_tunable_at_its_default(version: str) -> None:
    """The table's defaults are the stock module's: nothing differs, every row is compared."""
    series = version_series(version)
    assert series in SERIES
    got = values(parse_kinds()["zfs-module"][0](dump(version).encode()))
    in_series = sum(1 for t in TUNABLES if series in t.defaults)
    assert got[("zmon_zfs_module_parameters_compared", ())] == in_series
    assert got[("zmon_zfs_module_parameters_changed", ())] == 0
    assert not any(name == "zmon_zfs_module_parameter_value" for name, _ in got)


def test_a_changed_tunable_gets_its_value_and_default(golden) -> None:  # type: ignore[no-untyped-def]
    """As the lab's step 02 does: zio_slow_io_ms lowered to 100 ms."""
    params = (MODULE / "2.3.2" / "module-parameters.txt").read_text()
    params = params.replace("/zio_slow_io_ms:30000\n", "/zio_slow_io_ms:100\n")
    ms = parse_kinds()["zfs-module"][0](dump("2.3.2", params).encode())
    golden("zfs_module/parse-2.3.2-slow-io-lowered.prom", render(ms.families()))
    got = values(ms)
    sel = (("parameter", "zio_slow_io_ms"),)
    assert got[("zmon_zfs_module_parameters_changed", ())] == 1
    assert got[("zmon_zfs_module_parameter_value", sel)] == 100
    assert got[("zmon_zfs_module_parameter_default", sel)] == 30000


def test_series_are_bounded_by_the_table() -> None:
    """Every curated tunable changed: two series each, nothing for the other parameters."""
    params = {t.name: "123456789" for t in TUNABLES} | {"some_new_tunable": "7"}
    ms = module_metrics(ModuleReading("2.3.2-1", params, None))
    per_parameter = [k for k in values(ms) if k[0].startswith("zmon_zfs_module_parameter_")]
    assert len(per_parameter) == 2 * sum(1 for t in TUNABLES if "2.3" in t.defaults)
    assert all(dict(labels)["parameter"] != "some_new_tunable" for _, labels in per_parameter)


def test_a_series_without_defaults_is_not_compared() -> None:
    ms = module_metrics(ModuleReading("2.2.6-1", {"zfs_txg_timeout": "10"}, None))
    got = values(ms)
    assert got[("zmon_zfs_module_parameters_compared", ())] == 0
    assert got[("zmon_zfs_module_parameters_changed", ())] == 0


# ---- the collector


@pytest.mark.parametrize("version", VERSIONS)
def test_collector_golden(version: str, tmp_path: Path, golden) -> None:  # type: ignore[no-untyped-def]
    ms = collector(tmp_path, dump(version), zpool_get(version)).collect()
    golden(f"zfs_module/collector-{version}-01-healthy.prom", render(ms.families()))


def test_pools_from_an_older_release_can_be_upgraded(tmp_path: Path) -> None:
    """Pools created by 2.1.11, host upgraded to 2.3.2: the 10 features 2.2 and 2.3 added."""
    get = pool_from_older_release(zpool_get("2.3.2"), zpool_get("2.1.11"))
    ms = collector(tmp_path, dump("2.3.2"), get).collect()
    assert upgradable(ms) == {"rz": 10, "single": 10, "tank": 10}


def test_features_the_module_lacks_are_not_upgradable(tmp_path: Path) -> None:
    """2.3.2 tools on a 2.1.11 module (upgraded packages, no reboot): the tools list 2.3's
    features as disabled, but the loaded module could not enable them."""
    get = pool_from_older_release(zpool_get("2.3.2"), zpool_get("2.1.11"))
    ms = collector(tmp_path, dump("2.1.11"), get).collect()
    assert upgradable(ms) == {"rz": 0, "single": 0, "tank": 0}


def test_compatibility_limits_the_upgrade(tmp_path: Path) -> None:
    get = pool_from_older_release(zpool_get("2.3.2"), zpool_get("2.1.11"))
    get = get.replace("rz\tcompatibility\toff\tdefault", "rz\tcompatibility\tlegacy\tlocal")
    get = get.replace("tank\tcompatibility\toff\tdefault", "tank\tcompatibility\tzol-2.1\tlocal")
    compat = tmp_path / "usr" / "share" / "zfs" / "compatibility.d"
    compat.mkdir(parents=True)
    (compat / "zol-2.1").write_text("# the 2.1 set, and blake3\nblake3\n")
    ms = collector(tmp_path, dump("2.3.2"), get).collect()
    assert upgradable(ms) == {"rz": 0, "single": 10, "tank": 1}
    # the admin's directory comes first
    etc = tmp_path / "etc" / "zfs" / "compatibility.d"
    etc.mkdir(parents=True)
    (etc / "zol-2.1").write_text("blake3 block_cloning\n")
    ms = collector(tmp_path, dump("2.3.2"), get).collect()
    assert upgradable(ms)["tank"] == 2


def test_no_module_is_no_data(tmp_path: Path) -> None:
    with pytest.raises(NoDataError, match="zfs is not loaded"):
        collector(tmp_path, "", zpool_get("2.3.2")).collect()


def test_without_zpool_the_module_is_still_read(tmp_path: Path) -> None:
    ms = collector(tmp_path, dump("2.3.2"), None).collect()
    got = values(ms)
    assert got[("zmon_zfs_module_info", (("version", "2.3.2-2~bpo12+2"),))] == 1
    assert upgradable(ms) == {}


def test_a_failing_zpool_fails_the_run(tmp_path: Path) -> None:
    failed = CommandResult(GET_ALL, 1, b"", b"internal error\n", 0.01)
    with pytest.raises(Exception, match="internal error"):
        collector(tmp_path, dump("2.3.2"), failed).collect()


def test_a_zpool_without_hp_gets_the_table(tmp_path: Path) -> None:
    """An old zpool that refuses -H/-p: the human table of ``zpool get all`` is read."""
    usage = CommandResult(GET_ALL, 2, b"", b"invalid option 'H'\nusage:\n", 0.01)
    rows = [line.split("\t") for line in zpool_get("2.3.2").splitlines()]
    table = "NAME  PROPERTY  VALUE  SOURCE\n" + "".join(
        f"{p}  {k}  {v}  {src}\n" for p, k, v, src in rows
    )
    runner: dict[tuple[str, ...], str | CommandResult] = {("zpool", "get", "all"): table}
    ms = collector(tmp_path, dump("2.3.2"), usage, runner=runner).collect()
    assert upgradable(ms) == {"rz": 0, "single": 0, "tank": 0}


def test_freebsd_reads_the_version_sysctl(tmp_path: Path) -> None:
    argv = ("sysctl", "-n", "vfs.zfs.version.module")
    c = collector(tmp_path, "", zpool_get("2.3.2"), "freebsd", {argv: "2.1.4-FreeBSD_g52bad4f23\n"})
    got = values(c.collect())
    assert got[("zmon_zfs_module_info", (("version", "2.1.4-FreeBSD_g52bad4f23"),))] == 1
    assert "zmon_zfs_module_parameters_changed" not in {k[0] for k in got}
    # no module list on FreeBSD: the tools' feature list stands for the module's
    assert upgradable(c.collect()) == {"rz": 0, "single": 0, "tank": 0}
    unknown = CommandResult(argv, 1, b"", b"sysctl: unknown oid 'vfs.zfs.version.module'\n", 0.0)
    c = collector(tmp_path, "", None, "freebsd", {argv: unknown})
    with pytest.raises(NoDataError):
        c.collect()


# ---- the parse kind


def test_parse_kind_golden(golden) -> None:  # type: ignore[no-untyped-def]
    func, _help = parse_kinds()["zfs-module"]
    golden("zfs_module/parse-2.3.2.prom", render(func(dump("2.3.2").encode()).families()))


def test_parse_kind_needs_the_version() -> None:
    func, _help = parse_kinds()["zfs-module"]
    params = (MODULE / "2.3.2" / "module-parameters.txt").read_bytes()
    with pytest.raises(ParseError, match="version"):
        func(params)


# ---- the doc page


def test_doc_page_lists_the_curated_tunables() -> None:
    text = collector_doc("zfs_module").read_text()
    begin, end = "<!-- tunables:begin -->\n", "<!-- tunables:end -->\n"
    table = text[text.index(begin) + len(begin) : text.index(end)]
    rows = [
        f"| `{t.name}` | "
        + " | ".join(str(t.defaults.get(s, "-")) for s in SERIES)
        + f" | {t.help} |"
        for t in TUNABLES
    ]
    header = [
        "| tunable | " + " | ".join(SERIES) + " | what it controls |",
        "|---|" + "---|" * (len(SERIES) + 1),
    ]
    assert table == "".join(line + "\n" for line in header + rows)
