"""Values an admin can type that used to stop a collector for good or pass check-config and
fail at run time: infinite/huge/NaN durations, catastrophic regexes, bad UPS addresses, an
unresolvable listen host, a missing password file. check-config reports all of them."""

from __future__ import annotations

import argparse
import threading
import time
from pathlib import Path

import pytest

from zmon.cli import main
from zmon.collecting.config import ConfigError, ConfigErrors, add_flags, all_settings, load
from zmon.collecting.registry import Collector, collectors
from zmon.collecting.scheduler import CollectorWorker
from zmon.exposition.metrics import MetricSet
from zmon.exposition.snapshot import CollectorState


@pytest.mark.parametrize("key", ["interval", "timeout"])
@pytest.mark.parametrize("value", ["inf", "-inf", "nan", "1e308", "1e400", "86401"])
def test_durations_must_be_finite_and_sane_in_a_file(tmp_path: Path, key: str, value: str) -> None:
    cfg = tmp_path / "zmon.toml"
    cfg.write_text(f"[collectors.arc]\n{key} = {value}\n")
    with pytest.raises(ConfigError, match=f"collectors.arc.{key}"):
        load(collectors(), str(cfg))


@pytest.mark.parametrize("value", ["inf", "nan", "1e308"])
def test_durations_must_be_finite_and_sane_on_the_command_line(value: str) -> None:
    parser = argparse.ArgumentParser()
    add_flags(parser, all_settings(collectors()))
    ns = parser.parse_args(["--collector.arc.interval", value, "--command.timeout", value])
    with pytest.raises(ConfigErrors) as info:
        load(collectors(), None, ns)
    assert {e.key for e in info.value.errors} == {"collectors.arc.interval", "commands.timeout"}


class Counting(Collector):
    name = "counting"

    def __init__(self) -> None:
        self.runs = 0

    def collect(self) -> MetricSet:
        self.runs += 1
        return MetricSet()


@pytest.mark.parametrize(
    "interval,timeout", [(float("inf"), 1e308), (float("nan"), float("nan")), (1e308, float("inf"))]
)
def test_a_worker_survives_values_that_slipped_past_validation(interval, timeout) -> None:
    """The last guard: the loop thread used to die of OverflowError (and /healthz turned 503)
    or run back to back on NaN."""
    collector = Counting()
    state = CollectorState("counting", interval, timeout)
    worker = CollectorWorker(collector, state, lambda _s: None)  # type: ignore[arg-type]
    worker.start()
    try:
        deadline = time.monotonic() + 10
        while collector.runs < 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.2)
        assert worker.alive and state.success
        assert collector.runs == 1, "NaN interval must not mean back-to-back runs"
    finally:
        worker.stop(wait=5)
    assert not worker.alive
    assert threading.active_count() < 50


BAD = """
[web]
listen_address = "no-such-host.invalid:9999"
[collectors.arc]
interval = inf
timeout = 1e308
[collectors.zpool]
interval = nan
[collectors.ups]
nut = ["localhost:notaport"]
nut_password_file = "{missing}"
[collectors.smart]
exclude = "(a+)+$"
[collectors.kernel_log.patterns.runaway]
regex = "(x*)*y"
[collectors.kernel_log.patterns.broken]
regex = "(unclosed"
"""


def test_check_config_reports_every_problem(tmp_path: Path, capsys) -> None:
    cfg = tmp_path / "zmon.toml"
    cfg.write_text(BAD.format(missing=tmp_path / "no-password-file"))
    assert main(["check-config", str(cfg)]) == 1
    lines = capsys.readouterr().err.strip().splitlines()
    keys = [line.split(": ")[3] for line in lines]
    assert keys == [
        "collectors.arc.interval",
        "collectors.arc.timeout",
        "collectors.zpool.interval",
        "collectors.kernel_log.patterns",
        "collectors.smart.exclude",
        "collectors.ups.nut",
        "collectors.ups.nut_password_file",
        "web.listen_address",
    ], lines
    assert "catastrophically" in lines[4] and "bad port" in lines[5]
    assert "cannot resolve host" in lines[7]


def test_check_config_names_a_regex_that_does_not_compile(tmp_path: Path, capsys) -> None:
    cfg = tmp_path / "zmon.toml"
    cfg.write_text('[collectors.smart]\nexclude = "(unclosed"\n')
    assert main(["check-config", str(cfg)]) == 1
    assert "invalid regular expression" in capsys.readouterr().err


def test_check_config_still_passes_a_good_file(tmp_path: Path, capsys) -> None:
    cfg = tmp_path / "zmon.toml"
    cfg.write_text(
        '[web]\nlisten_address = "127.0.0.1:0"\n[collectors.ups]\n'
        'nut = ["ups@127.0.0.1:3493"]\n[collectors.smart]\nexclude = "^/dev/sd[ab]$"\n'
    )
    assert main(["check-config", str(cfg)]) == 0, capsys.readouterr().err


def test_check_config_refuses_an_explicit_binary_that_does_not_exist(
    tmp_path: Path, capsys
) -> None:
    """The finding: a mistyped --binary.zpool read as a host without ZFS."""
    cfg = tmp_path / "zmon.toml"
    cfg.write_text(f'[binaries]\nzpool = "{tmp_path}/no-such-zpool"\nsmartctl = "no-such-tool"\n')
    assert main(["check-config", str(cfg)]) == 1
    err = capsys.readouterr().err
    assert "binaries.zpool" in err and "no-such-zpool" in err and "does not exist" in err
    assert "binaries.smartctl" in err and "not found in PATH" in err


def test_an_explicit_binary_that_does_not_exist_stops_the_start(tmp_path: Path) -> None:
    parser = argparse.ArgumentParser()
    add_flags(parser, all_settings(collectors()))
    ns = parser.parse_args(["--binary.zpool", "/nonexistent/zpool"])
    with pytest.raises(ConfigError, match="binaries.zpool.*/nonexistent/zpool"):
        load(collectors(), None, ns)


def test_an_explicit_binary_that_is_a_directory_is_refused(tmp_path: Path) -> None:
    cfg = tmp_path / "zmon.toml"
    cfg.write_text(f'[binaries]\nzpool = "{tmp_path}"\n')
    with pytest.raises(ConfigError, match="binaries.zpool.*not a file"):
        load(collectors(), str(cfg))


def test_default_binaries_may_be_missing(tmp_path: Path) -> None:
    """Only the default (a bare name on PATH) may be absent: that is a host without ZFS."""
    cfg = tmp_path / "zmon.toml"
    cfg.write_text('[binaries]\nzpool = "zpool"\n')
    load(collectors(), str(cfg))


@pytest.mark.parametrize("value", ["0", "-1", "65536", "99999999999"])
def test_max_connections_out_of_range_is_refused(tmp_path: Path, capsys, value: str) -> None:
    cfg = tmp_path / "zmon.toml"
    cfg.write_text(f"[web]\nmax_connections = {value}\n")
    with pytest.raises(ConfigError, match="web.max_connections"):
        load(collectors(), str(cfg))
    assert main(["check-config", str(cfg)]) == 1
    assert "web.max_connections" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["1", "1024", "65535"])
def test_max_connections_in_range_is_accepted(tmp_path: Path, value: str) -> None:
    cfg = tmp_path / "zmon.toml"
    cfg.write_text(f"[web]\nmax_connections = {value}\n")
    assert load(collectors(), str(cfg)).max_connections == int(value)
