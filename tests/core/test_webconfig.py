"""--web.config.file: the exporter-toolkit format, errors that name the key, basic auth."""

from __future__ import annotations

import base64
import subprocess
import sys
from pathlib import Path

import bcrypt
import pytest

from zmon.collecting.config import ConfigError
from zmon.web.webconfig import BasicAuth, load_web_config


def _hash(password: str) -> str:
    return bcrypt.hashpw(password.encode(), bcrypt.gensalt(4)).decode()


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "web.yml"
    path.write_text(text)
    return path


def test_empty_file_is_plain_http(tmp_path: Path) -> None:
    web = load_web_config(_write(tmp_path, ""))
    assert web.tls is None and web.users == {} and web.headers == ()


def test_users_and_headers(tmp_path: Path) -> None:
    web = load_web_config(
        _write(
            tmp_path,
            f"""
basic_auth_users:
  prometheus: {_hash("secret")}
http_server_config:
  http2: true
  headers:
    x-frame-options: deny
    Strict-Transport-Security: max-age=31536000
""",
        )
    )
    assert set(web.users) == {"prometheus"}
    assert web.headers == (
        ("X-Frame-Options", "deny"),
        ("Strict-Transport-Security", "max-age=31536000"),
    )


@pytest.mark.parametrize(
    "text, key, reason",
    [
        ("tls_server_config: [1]\n", "tls_server_config", "expected a mapping"),
        ("tls_server_config:\n  key_file: k.pem\n", "tls_server_config.cert_file", "required"),
        (
            "tls_server_config:\n  cert_file: c.pem\n  key_file: k.pem\n  cipher_suites: [x]\n",
            "tls_server_config.cipher_suites",
            "not supported",
        ),
        (
            "tls_server_config:\n  cert_file: c.pem\n  key_file: k.pem\n  bogus: 1\n",
            "tls_server_config.bogus",
            "unknown key",
        ),
        (
            "tls_server_config:\n  cert_file: c.pem\n  key_file: k.pem\n"
            "  client_auth_type: RequireAnyClientCert\n",
            "tls_server_config.client_auth_type",
            "without verifying",
        ),
        (
            "tls_server_config:\n  cert_file: c.pem\n  key_file: k.pem\n"
            "  client_auth_type: RequireAndVerifyClientCert\n",
            "tls_server_config.client_ca_file",
            "required when",
        ),
        (
            "tls_server_config:\n  cert_file: c.pem\n  key_file: k.pem\n  min_version: TLS14\n",
            "tls_server_config.min_version",
            "must be one of",
        ),
        (
            "tls_server_config:\n  cert_file: c.pem\n  key_file: k.pem\n",
            "tls_server_config.cert_file/key_file",
            "cannot load",
        ),
        ("basic_auth_users:\n  alice: plaintext\n", "basic_auth_users.alice", "bcrypt hash"),
        (
            "basic_auth_users:\n  alice: $2y$10$notreallyahash\n",
            "basic_auth_users.alice",
            "not a valid bcrypt hash",
        ),
        (
            "http_server_config:\n  headers:\n    Set-Cookie: a=b\n",
            "http_server_config.headers.Set-Cookie",
            "not allowed",
        ),
        ("http_server_config:\n  keepalive: true\n", "http_server_config.keepalive", "unknown key"),
        ("basic_auth: {}\n", "basic_auth", "unknown key"),
        ("tls_server_config: {cert_file: [\n", "web.config.file", "not valid YAML"),
    ],
)
def test_bad_file_names_the_key(tmp_path: Path, text: str, key: str, reason: str) -> None:
    with pytest.raises(ConfigError) as err:
        load_web_config(_write(tmp_path, text))
    assert key in err.value.key
    assert reason in str(err.value)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_web_config(tmp_path / "nope.yml")


def _basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


def test_basic_auth_checks_and_remembers_only_successes() -> None:
    auth = BasicAuth({"prometheus": _hash("secret").encode()})
    good = _basic("prometheus", "secret")
    assert auth.cached(good) is None  # first time: needs bcrypt
    assert auth.check(good)
    assert auth.cached(good) is True  # then remembered
    for header in (
        _basic("prometheus", "wrong"),
        _basic("nobody", "secret"),
        "Bearer x",
        "Basic !!!",
        "Basic " + base64.b64encode(b"nocolon").decode(),
        _basic("prometheus", "x" * 100),
        None,
    ):
        assert not auth.check(header)
        assert not auth.cached(header)


def test_check_config_checks_the_web_config_file_too(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from zmon.cli import main

    web = _write(tmp_path, "tls_server_config:\n  cert_file: c.pem\n")
    cfg = tmp_path / "zmon.toml"
    cfg.write_text(f'[web]\nconfig_file = "{web}"\n')
    assert main(["check-config", str(cfg)]) == 1
    assert "tls_server_config.key_file" in capsys.readouterr().err
    web.write_text("")
    assert main(["check-config", str(cfg)]) == 0


def test_serve_refuses_a_bad_web_config_naming_the_key(tmp_path: Path) -> None:
    import subprocess
    import sys

    web = _write(tmp_path, "basic_auth_users:\n  alice: hunter2\n")
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "zmon.cli",
            "serve",
            "--web.listen-address",
            "127.0.0.1:0",
            "--web.config.file",
            str(web),
            "--path.state-dir",
            str(tmp_path / "state"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 2
    assert "basic_auth_users.alice" in r.stderr


@pytest.mark.parametrize(
    "text, key",
    [
        ("rate_limit:\n  interval: 1s\n  burst: 5\n", "rate_limit"),
        (
            "tls_server_config:\n  cert_file: c.pem\n  key_file: k.pem\n  client_ca: abc\n",
            "tls_server_config.client_ca",
        ),
    ],
)
def test_toolkit_keys_zmon_does_not_implement_are_refused(
    tmp_path: Path, text: str, key: str
) -> None:
    with pytest.raises(ConfigError, match="not supported by zmon") as err:
        load_web_config(_write(tmp_path, text))
    assert err.value.key.endswith(key)


def test_a_daemon_without_a_web_config_loads_neither_yaml_nor_bcrypt() -> None:
    # 0.8 and 0.5 MB of RSS that only a web config file (and one with users) needs
    code = (
        "import sys, zmon.cli, zmon.daemon, zmon.web.server; "
        "print(sorted({'yaml', 'bcrypt'} & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_an_error_shows_a_huge_value_cut_short(tmp_path: Path) -> None:
    """A huge value is not echoed whole into the log or the terminal."""
    huge = "A" * 1_000_000  # (10 MB as reported: the same, ten times slower to parse)
    path = _write(tmp_path, f"tls_server_config:\n  cert_file: c.pem\n  key_file: k.pem\n"
                            f"  client_auth_type: {huge}\n")  # fmt: skip
    with pytest.raises(ConfigError) as err:
        load_web_config(path)
    assert err.value.key == "web.config.file: tls_server_config.client_auth_type"
    assert len(str(err.value)) < 1000
    assert "more characters)" in str(err.value)
    with pytest.raises(ConfigError) as err:
        load_web_config(_write(tmp_path, f"basic_auth_users:\n  {huge}: x\n"))
    assert len(str(err.value)) < 1000


def test_a_zmon_config_error_shows_a_huge_value_cut_short(tmp_path: Path) -> None:
    from zmon.collecting.config import load
    from zmon.collecting.registry import collectors

    path = tmp_path / "zmon.toml"
    path.write_text(f'[web]\nread_timeout = "{"9" * 1_000_000}"\n')
    with pytest.raises(ConfigError) as err:
        load(collectors(), str(path), None)
    assert "web.read_timeout" in str(err.value)
    assert len(str(err.value)) < 1000
