"""Text parser behaviour on the shapes real output and pastes take, beyond the corpus."""

from __future__ import annotations

from datetime import UTC

import pytest

from tests.support.zpool_status import LAB, pool_named, vdev_named
from zmon.base.errors import ParseError
from zmon.collectors.zpool.metrics import status_metrics
from zmon.parsers.zpool.zpool_status import parse_zpool_status
from zmon.parsers.zpool.zpool_status_model import note_kinds

HEALTHY = """\
  pool: tank
 state: ONLINE
  scan: scrub repaired 0B in 00:01:06 with 0 errors on Sun Nov 29 23:56:40 2026
config:

\tNAME        STATE     READ WRITE CKSUM
\ttank        ONLINE       0     0     0
\t  mirror-0  ONLINE       0     0     0
\t    sda     ONLINE       0     0     0
\t    sdb     ONLINE       0     0     0

errors: No known data errors
"""


def parse(text: str, stderr: str = ""):
    return parse_zpool_status(text, tz=UTC, stderr=stderr)


def tree(text: str) -> list[tuple[str, int, str | None]]:
    pool = parse(text).pools[0]
    return [(v.name, v.depth, v.parent) for v in pool.vdevs()]


def test_healthy_is_complete() -> None:
    pool = parse(HEALTHY).pools[0]
    assert pool.complete and pool.warnings == []
    assert tree(HEALTHY) == [
        ("tank", 0, None),
        ("mirror-0", 1, "tank"),
        ("sda", 2, "mirror-0"),
        ("sdb", 2, "mirror-0"),
    ]


@pytest.mark.parametrize("step", [1, 2, 3, 4, 8])
def test_depth_comes_from_relative_indentation(step: int) -> None:
    pad = " " * step
    text = HEALTHY.replace("\t  mirror-0", "\t" + pad + "mirror-0").replace(
        "\t    sd", "\t" + pad * 2 + "sd"
    )
    assert tree(text) == tree(HEALTHY)


def test_pasted_with_extra_indentation_and_prompts() -> None:
    text = (
        "user@nas:~$ sudo zpool status tank\n"
        + "".join("    " + line + "\n" for line in HEALTHY.expandtabs(4).splitlines())
        + "user@nas:~$ \n"
    )
    status = parse(text)
    assert status.warnings == []
    pool = status.pools[0]
    assert pool.complete and [v.name for v in pool.vdevs()] == ["tank", "mirror-0", "sda", "sdb"]


def test_crlf_and_ansi_colours() -> None:
    coloured = HEALTHY.replace("ONLINE", "\x1b[0mONLINE\x1b[0m").replace(
        " state:", "\x1b[1m state:\x1b[0m"
    )
    status = parse(coloured.replace("\n", "\r\n"))
    pool = status.pools[0]
    assert pool.state == "ONLINE" and pool.complete
    assert vdev_named(pool, "sdb").state == "ONLINE"


def test_several_pools_and_a_repeated_one() -> None:
    second = HEALTHY.replace("tank", "backup")
    status = parse(HEALTHY + "\n" + second + "\n" + HEALTHY.replace("ONLINE", "DEGRADED", 1))
    assert [p.name for p in status.pools] == ["tank", "backup"]
    assert pool_named(status, "tank").state == "DEGRADED"  # the last print wins
    assert any("printed twice" in w for w in status.warnings)


def test_truncated_inside_the_config_table() -> None:
    cut = HEALTHY[: HEALTHY.index("\t    sdb")]
    pool = parse(cut).pools[0]
    assert [v.name for v in pool.vdevs()] == ["tank", "mirror-0", "sda"]
    assert not pool.complete
    assert pool.data_errors is None
    ms = status_metrics(parse(cut))
    assert ms.sample_value("zmon_pool_parse_complete", {"pool": "tank"}) == 0
    assert ms.sample_value("zmon_pool_data_errors", {"pool": "tank"}) is None


def test_truncated_before_the_config_table() -> None:
    pool = parse(HEALTHY[: HEALTHY.index("config:")]).pools[0]
    assert pool.state == "ONLINE" and pool.root is None
    assert "no config table" in pool.incomplete


def test_unknown_pool_state_is_not_healthy() -> None:
    status = parse(HEALTHY.replace(" state: ONLINE", " state: GLORIOUS"))
    assert not status.pools[0].complete
    ms = status_metrics(status)
    states = [s for f in ms.families() if f.name == "zmon_pool_state" for s in f.samples]
    assert len(states) == 7 and all(s.value == 0 for s in states)
    info = ms.sample_value("zmon_pool_status_info", {"pool": "tank", "state": "GLORIOUS"})
    assert info == 1


def test_unknown_vdev_state_is_not_healthy() -> None:
    status = parse(HEALTHY.replace("sdb     ONLINE", "sdb     WOBBLY"))
    pool = status.pools[0]
    assert not pool.complete and any("sdb" in r for r in pool.incomplete)
    ms = status_metrics(status)
    labels = {"pool": "tank", "vdev": "sdb", "class": "normal"}
    for state in ("online", "degraded", "faulted", "offline", "removed", "unavail"):
        assert ms.sample_value("zmon_vdev_state", {**labels, "state": state}) == 0
    assert ms.sample_value("zmon_vdev_info", {**labels, "state": "WOBBLY"}) == 1


def test_row_without_state_is_kept_as_unknown() -> None:
    text = HEALTHY.replace("\t    sdb     ONLINE       0     0     0", "\t    sdb")
    pool = parse(text).pools[0]
    assert vdev_named(pool, "sdb").state is None and not pool.complete


def test_missing_counters_on_unavailable_rows() -> None:
    text = HEALTHY.replace("sdb     ONLINE       0     0     0", "sdb     UNAVAIL  cannot open")
    pool = parse(text).pools[0]
    sdb = vdev_named(pool, "sdb")
    assert (sdb.state, sdb.read_errors, sdb.note) == ("UNAVAIL", None, "cannot open")
    assert note_kinds(sdb.note) == ["cannot_open"] and pool.complete


def test_slow_column_with_dash_and_suffixes() -> None:
    text = HEALTHY.replace("CKSUM\n", "CKSUM  SLOW\n")
    for row, slow in (
        ("tank        ONLINE       0     0     0", "     -"),
        ("mirror-0  ONLINE       0     0     0", "     -"),
        ("sdb     ONLINE       0     0     0", "     7"),
    ):
        text = text.replace(row, row + slow)
    sda = "sda     ONLINE       0     0     0"
    text = text.replace(sda, "sda     ONLINE    1.5K     0     0  2.1K")
    pool = parse(text).pools[0]
    assert (vdev_named(pool, "sda").read_errors, vdev_named(pool, "sda").slow_ios) == (1536, 2150)
    assert vdev_named(pool, "sdb").slow_ios == 7
    assert pool.root is not None and pool.root.slow_ios is None
    assert vdev_named(pool, "sda").printed == {
        "READ": "1.5K",
        "WRITE": "0",
        "CKSUM": "0",
        "SLOW": "2.1K",
    }


def test_power_and_dio_columns() -> None:
    sda = "sda     ONLINE       0     0     0"
    text = HEALTHY.replace("CKSUM\n", "CKSUM  SLOW  POWER  DIO\n").replace(
        sda, sda + "     0    on     3"
    )
    leaf = vdev_named(parse(text).pools[0], "sda")
    assert leaf.printed["POWER"] == "on" and leaf.printed["DIO"] == "3" and leaf.note == ""


def test_errors_unavailable_from_stderr_goes_to_the_pool_without_errors_line() -> None:
    text = HEALTHY.replace("errors: No known data errors\n", "").replace("ONLINE", "SUSPENDED", 1)
    text += "\n" + HEALTHY.replace("tank", "other")
    stderr = "errors: List of errors unavailable: pool I/O is currently suspended\n"
    status = parse(text, stderr)
    tank, other = pool_named(status, "tank"), pool_named(status, "other")
    assert tank.errors_unavailable and tank.io_suspended and tank.complete
    assert not other.errors_unavailable
    without = parse(text)
    assert not pool_named(without, "tank").complete  # no errors: line and nothing on stderr


def test_data_error_count_and_list() -> None:
    text = HEALTHY.replace(
        "errors: No known data errors", "errors: 12 data errors, use '-v' for a list"
    )
    assert parse(text).pools[0].data_errors == 12
    listed = HEALTHY.replace(
        "errors: No known data errors",
        "errors: Permanent errors have been detected in the following files:\n\n"
        "        /tank/a file with spaces.bin\n        tank/ds@snap:<0x0>\n",
    )
    pool = parse(listed + "\n" + HEALTHY.replace("tank", "next")).pools[0]
    assert pool.error_files == ["/tank/a file with spaces.bin", "tank/ds@snap:<0x0>"]
    assert pool.data_errors == 2 and pool.complete


def test_no_pools_and_all_healthy() -> None:
    assert parse("no pools available\n").no_pools
    assert parse("all pools are healthy\n").pools == []


@pytest.mark.parametrize(
    "text", ["", "\n\n", "hello world\n", "$ zpool status\n", "\x00\x01\x02", "NAME STATE\n"]
)
def test_input_without_zpool_status_raises_parse_error(text: str) -> None:
    with pytest.raises(ParseError) as info:
        parse(text)
    assert "no zpool status output" in str(info.value)


def test_parse_error_names_the_first_line() -> None:
    with pytest.raises(ParseError) as info:
        parse("garbage here\nmore\n")
    assert info.value.line_no == 1 and "garbage here" in str(info.value)


def test_config_cannot_be_determined() -> None:
    text = "  pool: x\n state: UNAVAIL\nconfig: The configuration cannot be determined.\n"
    pool = parse(text).pools[0]
    assert not pool.complete
    assert any("configuration cannot be determined" in r for r in pool.incomplete)


def test_unknown_key_is_tolerated_with_a_warning() -> None:
    text = HEALTHY.replace("config:", "  wibble: something new\nconfig:")
    pool = parse(text).pools[0]
    assert pool.complete
    assert any("wibble" in w for w in pool.warnings)


def test_remove_and_checkpoint_sections() -> None:
    text = HEALTHY.replace(
        "config:",
        (
            "remove: Evacuation of /dev/sdc in progress since Sun Nov 29 23:50:00 2026\n"
            "\t1.2G copied out of 4.0G at 10M/s, 30.00% done, 0h4m to go\n"
            "\t1.5K memory used for removed device mappings\n"
            "checkpoint: created Sun Nov 29 23:00:00 2026, consumes 1.1M\n"
            "config:"
        ),
    )
    pool = parse(text).pools[0]
    assert pool.complete and pool.warnings == []
    assert "30.00% done" in pool.extra["remove"]
    assert pool.extra["checkpoint"].startswith("created")


def test_scrub_and_rebuild_both_shown() -> None:
    text = HEALTHY.replace(
        "  scan: scrub repaired 0B in 00:01:06 with 0 errors on Sun Nov 29 23:56:40 2026\n",
        "  scan: scrub repaired 0B in 00:01:06 with 0 errors on Sun Nov 29 23:56:40 2026\n"
        "  scan: resilver (draid1:2d:4c:1s-0) in progress since Mon Nov 30 01:00:00 2026\n"
        "\t10M / 20M scanned at 1M/s, 5M / 19M issued at 1M/s\n"
        "\t5M resilvered, 50.00% done, no estimated completion time\n",
    )
    status = parse(text)
    pool = status.pools[0]
    assert [s.function for s in pool.scans] == ["scrub", "rebuild"]
    assert pool.scan is pool.scans[1]  # the running one
    ms = status_metrics(status)
    labels = {"pool": "tank", "function": "rebuild"}
    assert ms.sample_value("zmon_pool_scan_in_progress", labels) == 1
    assert ms.sample_value("zmon_pool_last_scrub_end_time_seconds", {"pool": "tank"}) is not None


def test_error_scrub_uses_the_scrub_key() -> None:
    text = HEALTHY.replace(
        "  scan:",
        (
            " scrub: error scrub in progress since Mon Nov 30 01:00:00 2026\n"
            "\t10.00% done, issued I/O for 1 error blocks\n  scan:"
        ),
    )
    pool = parse(text).pools[0]
    assert [s.function for s in pool.scans] == ["error_scrub", "scrub"]


def test_timestamp_line_before_output() -> None:
    status = parse("1795997218\n" + HEALTHY)
    assert status.pools[0].complete
    assert status.warnings and "unrecognised line" in status.warnings[0]


def test_zfs_fuse_usage_error_is_not_status() -> None:
    text = (LAB / "zfs-fuse-0.7.0" / "healthy-zpool-status-p.txt").read_text()
    with pytest.raises(ParseError):
        parse(text)


def test_solaris_style_spares_and_old_scrub_key() -> None:
    text = """\
  pool: pool
 state: ONLINE
 scrub: scrub in progress for 0h1m, 12.34% done, 0h5m to go
config:

        NAME        STATE     READ WRITE CKSUM
        pool        ONLINE       0     0     0
          mirror    ONLINE       0     0     0
            c0t0d0  ONLINE       0     0     0
            c0t1d0  ONLINE       0     0     0
        spares
          c0t2d0    AVAIL
          c0t3d0    UNAVAIL   cannot open

errors: No known data errors
"""
    pool = parse(text).pools[0]
    assert pool.complete and pool.scan is not None and pool.scan.progress == pytest.approx(0.1234)
    assert vdev_named(pool, "mirror").type == "mirror"
    spare = vdev_named(pool, "c0t3d0", "spare")
    assert (spare.state, spare.note) == ("UNAVAIL", "cannot open")
