"""Every parser raises only ParseError, whatever it is fed (hypothesis, bounded for CI).

Hostile input (numbers past Python's 4,300-digit limit, nesting past the recursion limit, long
lines, NULs, invalid UTF-8) is tried on every parser explicitly, through ``zmon parse`` and
through the collectors that read such output. The CI run uses 256 KiB lines where the long run
(``python -m tests.faults.fuzz_parsers``, RELIABILITY.md lists what it found) uses 10 MB ones:
a scan that is quadratic in the line length already takes minutes on 256 KiB.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.faults.parser_targets import HUGE_INT, hostile_inputs, mutants, targets
from zmon import cli
from zmon.base.errors import ParseError
from zmon.base.failures import OUTPUT_INVALID, classify
from zmon.base.runner import StaticRunner
from zmon.collecting.registry import Context, Paths
from zmon.collectors.arc import ArcCollector
from zmon.parsers.kstat.arcstats import FREEBSD_PARAM_SYSCTLS
from zmon.parsers.smartctl.smartctl import parse_smartctl
from zmon.parsers.smartctl.smartctl_text import parse_smartctl_text

TARGETS = targets()
CI_LONG_LINE = 1 << 18


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_parser_raises_only_parse_error(name: str) -> None:
    func, seeds = TARGETS[name]

    @settings(
        max_examples=100,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    @given(data=st.one_of(mutants(seeds, CI_LONG_LINE), st.sampled_from(seeds)))
    def check(data: bytes) -> None:
        try:
            func(data)
        except ParseError:
            pass

    check()


def test_smartctl_malformed_link_speed_is_a_parse_error_or_ignored() -> None:
    """The original finding: ValueError from 'current: 3.0. Gb/s'."""
    text = (
        "smartctl 7.3\n=== START OF INFORMATION SECTION ===\nDevice Model:     X\n"
        "SATA Version is:  SATA 3.1, 6.0 Gb/s (current: 3.0. Gb/s)\n"
    )
    try:
        parse_smartctl_text(text)
    except ParseError:
        pass


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_hostile_input_is_a_parse_error_or_parsed(name: str) -> None:
    func, seeds = TARGETS[name]
    for case, data in hostile_inputs(seeds[0], CI_LONG_LINE).items():
        try:
            func(data)
        except ParseError:
            pass
        except Exception as exc:  # noqa: BLE001 - the test reports which input crashed
            pytest.fail(f"{name} on {case}: {type(exc).__name__}: {exc}"[:300])


KSTAT_HUGE = b"6 1 0x01 2 96 1 2\nname type data\nhits 4 " + HUGE_INT + b"\nmisses 4 1\n"
SMARTCTL_DEEP = b'{"a":' * 100_000
SMARTCTL_HUGE = b'{"json_format_version":[1,0],"smartctl":{"exit_status":' + HUGE_INT + b"}}"


@pytest.mark.parametrize(
    ("kind", "data"),
    [("kstat", KSTAT_HUGE), ("arcstats", KSTAT_HUGE), ("smartctl", SMARTCTL_DEEP),
     ("smartctl", SMARTCTL_HUGE), ("arcstats", b"kstat.zfs.misc.arcstats.hits: " + HUGE_INT)],
)  # fmt: skip
def test_zmon_parse_reports_hostile_input_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str, data: bytes
) -> None:
    """The findings: ValueError (int over 4300 digits) and RecursionError from ``zmon parse``."""
    path = tmp_path / "input"
    path.write_bytes(data)
    assert cli.main(["parse", kind, str(path)]) == 1
    err = capsys.readouterr().err
    assert f"zmon parse {kind}" in err and "Traceback" not in err


def test_arc_collector_fails_as_output_invalid_on_huge_numbers(tmp_path: Path) -> None:
    """The daemon's collector, not only ``zmon parse``: Linux kstat file and FreeBSD sysctl."""
    kstat = tmp_path / "spl" / "kstat" / "zfs"
    kstat.mkdir(parents=True)
    (kstat / "arcstats").write_bytes(KSTAT_HUGE)
    linux = Context(paths=Paths(procfs=tmp_path, sysfs=tmp_path), runner=StaticRunner())
    with pytest.raises(ParseError) as err:
        ArcCollector(linux).collect()
    assert classify(err.value) == OUTPUT_INVALID
    runner = StaticRunner(
        {
            ("sysctl", "kstat.zfs.misc.arcstats"): b"kstat.zfs.misc.arcstats.hits: " + HUGE_INT,
            ("sysctl", "-i", *FREEBSD_PARAM_SYSCTLS): b"",
        }
    )
    bsd = Context(paths=Paths(procfs=Path("/nonexistent")), runner=runner, platform="freebsd")
    try:  # sysctl values are untyped: a number that is not one is a text value, not a count
        assert ArcCollector(bsd).collect().sample_value("zmon_arc_hits_total") is None
    except ParseError as exc:
        assert classify(exc) == OUTPUT_INVALID


@pytest.mark.parametrize("data", [SMARTCTL_DEEP, SMARTCTL_HUGE])
def test_smart_collector_parser_refuses_hostile_json_with_parse_error(data: bytes) -> None:
    """The smart collector turns a ParseError into that device's error state."""
    with pytest.raises(ParseError):
        parse_smartctl(data)
