"""Config: TOML and flags from one schema; errors name the key and the reason."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from zmon.cli import main
from zmon.collecting.config import (
    DEFAULT_PORT,
    ConfigError,
    add_flags,
    all_settings,
    example_toml,
    flag_values,
    load,
    split_listen_address,
)
from zmon.collecting.registry import collectors


def _load(tmp_path: Path, text: str, argv: list[str] | None = None):  # type: ignore[no-untyped-def]
    path = tmp_path / "zmon.toml"
    path.write_text(text)
    ns = None
    if argv is not None:
        p = argparse.ArgumentParser()
        add_flags(p, all_settings(collectors()))
        ns = p.parse_args(argv)
    return load(collectors(), str(path), ns)


def test_defaults() -> None:
    cfg = load(collectors(), None, None)
    assert cfg.listen_address == f":{DEFAULT_PORT}"
    assert str(cfg.paths.procfs) == "/proc"


def test_file_values_and_flag_override(tmp_path: Path) -> None:
    cfg = _load(
        tmp_path,
        '[web]\nlisten_address = "127.0.0.1:9999"\n[paths]\nprocfs = "/x/proc"\n',
        ["--path.procfs", "/y/proc"],
    )
    assert cfg.listen_address == "127.0.0.1:9999"
    assert str(cfg.paths.procfs) == "/y/proc"


@pytest.mark.parametrize(
    ("text", "key", "reason"),
    [
        ('[web]\nlisten_adress = ":1"\n', "web.listen_adress", "unknown key"),
        ('[web]\nlisten_address = "nope"\n', "web.listen_address", "HOST:PORT"),
        ('[web]\nlisten_address = ":70000"\n', "web.listen_address", "out of range"),
        ('[log]\nlevel = "loud"\n', "log.level", "must be one of"),
        ("[commands]\ntimeout = -1\n", "commands.timeout", "negative"),
        ('[commands]\ntimeout = "soon"\n', "commands.timeout", "expected a number"),
        ("[collectors.nosuch]\nenabled = true\n", "collectors.nosuch", "no such collector"),
        ("[bogus]\nx = 1\n", "bogus", "unknown section"),
        ("not toml [", "(file)", "not valid TOML"),
    ],
)
def test_errors_name_key_and_reason(tmp_path: Path, text: str, key: str, reason: str) -> None:
    with pytest.raises(ConfigError) as err:
        _load(tmp_path, text)
    assert err.value.key == key
    assert reason in str(err.value)


def test_collector_interval_must_be_positive(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="collectors.arc.interval"):
        _load(tmp_path, "[collectors.arc]\ninterval = 0\n")


def test_check_config_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.toml"
    good.write_text('[web]\nlisten_address = "127.0.0.1:10124"\n')
    assert main(["check-config", str(good)]) == 0
    bad = tmp_path / "bad.toml"
    bad.write_text("[log]\nformat = 3\n")
    assert main(["check-config", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "log.format" in err and "expected a string" in err


def test_example_config_is_valid(tmp_path: Path) -> None:
    text = example_toml(collectors())
    uncommented = "\n".join(
        line[2:] if line.startswith("# ") and " = " in line and "(flag" not in line else line
        for line in text.splitlines()
    )
    path = tmp_path / "example.toml"
    path.write_text(uncommented)
    load(collectors(), str(path), None)


def test_bool_flags_have_negations() -> None:
    p = argparse.ArgumentParser()
    settings = all_settings(collectors())
    add_flags(p, settings)
    for name in collectors():
        ns = p.parse_args([f"--no-collector.{name}"])
        assert flag_values(ns, settings)[f"collectors.{name}.enabled"] is False


def test_split_listen_address() -> None:
    assert split_listen_address(":10124") == ("", 10124)
    assert split_listen_address("[::1]:80") == ("::1", 80)
    assert split_listen_address("127.0.0.1:0") == ("127.0.0.1", 0)


def test_table_valued_option_takes_nested_tables(tmp_path: Path) -> None:
    cfg = _load(
        tmp_path,
        '[collectors.kernel_log.patterns.raid_error]\nregex = "md/raid.*(?P<device>sd[a-z]+)"\n',
    )
    assert "raid_error" in cfg.collectors["kernel_log"].options["patterns"]


def test_check_config_names_a_bad_kernel_log_pattern(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[collectors.kernel_log.patterns.broken]\nregex = "(unclosed"\n')
    assert main(["check-config", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "collectors.kernel_log.patterns" in err and "broken" in err
