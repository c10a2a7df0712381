"""TLS and basic auth with real clients on loopback: curl, a client certificate, a wrong
password, a SIGHUP that swaps the web config, and a real Prometheus scraping over TLS.

Certificates are made with openssl when the tests run (a CA, a server certificate for
127.0.0.1, a client certificate); no key is committed.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import bcrypt
import pytest

from tests.helpers import require_tool, stop_process_group
from tests.support.ports import free_port
from tests.web.prometheus import start_prometheus

pytestmark = pytest.mark.real

PASSWORD = "scrape-secret"


def _openssl(*args: str) -> None:
    subprocess.run(
        [require_tool("openssl", "makes the test certificates"), *args],
        check=True,
        capture_output=True,
    )


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ca.pem signs server.pem (127.0.0.1) and client.pem; other-ca.pem signs nothing here."""
    d = tmp_path_factory.mktemp("pki")
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    for ca in ("ca", "other-ca"):
        _openssl(
            "req",
            "-x509",
            *ec,
            "-days",
            "2",
            "-subj",
            f"/CN=zmon test {ca}",
            "-keyout",
            str(d / f"{ca}.key"),
            "-out",
            str(d / f"{ca}.pem"),
        )
    for name, ext in (
        ("server", "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth"),
        ("client", "extendedKeyUsage=clientAuth"),
    ):
        (d / f"{name}.ext").write_text(ext + "\n")
        _openssl(
            "req",
            "-new",
            *ec,
            "-subj",
            f"/CN={name}",
            "-keyout",
            str(d / f"{name}.key"),
            "-out",
            str(d / f"{name}.csr"),
        )
        _openssl(
            "x509",
            "-req",
            "-in",
            str(d / f"{name}.csr"),
            "-CA",
            str(d / "ca.pem"),
            "-CAkey",
            str(d / "ca.key"),
            "-CAcreateserial",
            "-days",
            "2",
            "-extfile",
            str(d / f"{name}.ext"),
            "-out",
            str(d / f"{name}.pem"),
        )
    return d


def _web_config(path: Path, pki: Path, password: str = PASSWORD, client_auth: str = "") -> None:
    hashed = bcrypt.hashpw(password.encode(), bcrypt.gensalt(10)).decode()
    lines = [
        "tls_server_config:",
        f"  cert_file: {pki / 'server.pem'}",
        f"  key_file: {pki / 'server.key'}",
        "  min_version: TLS12",
    ]
    if client_auth:
        lines += [f"  client_auth_type: {client_auth}", f"  client_ca_file: {pki / 'ca.pem'}"]
    lines += [
        "basic_auth_users:",
        f"  prometheus: '{hashed}'",
        "http_server_config:",
        "  headers:",
        "    X-Frame-Options: deny",
    ]
    path.write_text("\n".join(lines) + "\n")


class TLSZmon:
    """``zmon serve --web.config.file`` on a free loopback port (demo host: no ZFS needed)."""

    def __init__(self, tmp: Path, web: Path) -> None:
        self.port = free_port()
        self.log = tmp / "zmon.log"
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "zmon.cli",
                "serve",
                "--demo",
                "--web.listen-address",
                f"127.0.0.1:{self.port}",
                "--web.config.file",
                str(web),
                "--path.state-dir",
                str(tmp / "state"),
                "--web.status-dir",
                str(tmp / "run"),
                "--log.format",
                "json",
            ],
            stdout=self.log.open("wb"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.url = f"https://127.0.0.1:{self.port}"

    def wait_up(self, pki: Path) -> None:
        deadline = time.monotonic() + 30
        while True:
            assert self.proc.poll() is None, self.log.read_text()
            r = self.curl(
                pki, "/metrics", "--cert", str(pki / "client.pem"), "--key", str(pki / "client.key")
            )
            if r.returncode == 0 and "zmon_build_info" in r.stdout:
                return  # up, and the first collection is published
            assert time.monotonic() < deadline, f"zmon did not come up: {r}\n{self.log.read_text()}"
            time.sleep(0.2)

    def curl(
        self, pki: Path, path: str, *extra: str, user: str | None = f"prometheus:{PASSWORD}"
    ) -> subprocess.CompletedProcess[str]:
        cmd = [
            require_tool("curl", "is the TLS client"),
            "-sS",
            "--max-time",
            "10",
            "--cacert",
            str(pki / "ca.pem"),
            "-o",
            "-",
            "-D",
            "-",
            *extra,
        ]
        if user:
            cmd += ["-u", user]
        return subprocess.run([*cmd, self.url + path], capture_output=True, text=True)

    def stop(self) -> None:
        stop_process_group(self.proc)


@pytest.fixture
def zmon_tls(tmp_path: Path, pki: Path) -> Iterator[tuple[TLSZmon, Path]]:
    web = tmp_path / "web.yml"
    _web_config(web, pki)
    z = TLSZmon(tmp_path, web)
    try:
        z.wait_up(pki)
        yield z, web
    finally:
        z.stop()


def _status(r: subprocess.CompletedProcess[str]) -> int:
    assert r.returncode == 0, r.stderr
    return int(r.stdout.split()[1])


def test_curl_with_the_ca_and_the_password(zmon_tls: tuple[TLSZmon, Path], pki: Path) -> None:
    z, _ = zmon_tls
    r = z.curl(pki, "/metrics")
    assert _status(r) == 200
    assert "zmon_build_info" in r.stdout
    assert "x-frame-options: deny" in r.stdout.lower()


def test_wrong_password_no_password_and_unknown_ca_are_refused(
    zmon_tls: tuple[TLSZmon, Path], pki: Path
) -> None:
    z, _ = zmon_tls
    r = z.curl(pki, "/metrics", user=f"prometheus:{PASSWORD}x")
    assert _status(r) == 401 and "www-authenticate: basic" in r.stdout.lower()
    assert _status(z.curl(pki, "/metrics", user=None)) == 401
    assert _status(z.curl(pki, "/metrics", user=f"nobody:{PASSWORD}")) == 401
    # a client that trusts another CA does not accept zmon's certificate
    bad = subprocess.run(
        [
            "curl",
            "-sS",
            "--max-time",
            "10",
            "--cacert",
            str(pki / "other-ca.pem"),
            z.url + "/metrics",
        ],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 60, bad.stderr  # curl: peer certificate cannot be authenticated
    # plain HTTP on the TLS port gets no metrics
    plain = subprocess.run(
        ["curl", "-sS", "--max-time", "10", f"http://127.0.0.1:{z.port}/metrics"],
        capture_output=True,
        text=True,
    )
    assert "zmon_build_info" not in plain.stdout


def test_client_certificate_required_after_sighup(
    zmon_tls: tuple[TLSZmon, Path], pki: Path
) -> None:
    z, web = zmon_tls
    _web_config(web, pki, password="new-secret", client_auth="RequireAndVerifyClientCert")
    z.proc.send_signal(signal.SIGHUP)
    cert = ("--cert", str(pki / "client.pem"), "--key", str(pki / "client.key"))
    deadline = time.monotonic() + 20
    while (
        z.curl(pki, "/healthz", *cert, user="prometheus:new-secret").returncode != 0
        or _status(z.curl(pki, "/healthz", *cert, user="prometheus:new-secret")) != 200
    ):
        assert time.monotonic() < deadline, z.log.read_text()
        time.sleep(0.2)
    assert _status(z.curl(pki, "/metrics", *cert, user=f"prometheus:{PASSWORD}")) == 401
    no_cert = z.curl(pki, "/metrics", user="prometheus:new-secret")
    assert no_cert.returncode != 0  # handshake refused without a client certificate
    # a broken web config on SIGHUP is refused and the running one stays
    web.write_text("tls_server_config:\n  cert_file: /nonexistent.pem\n  key_file: x\n")
    z.proc.send_signal(signal.SIGHUP)
    while "reload rejected" not in z.log.read_text():
        assert time.monotonic() < deadline + 20, z.log.read_text()
        time.sleep(0.1)
    assert "tls_server_config.cert_file" in z.log.read_text()
    assert _status(z.curl(pki, "/metrics", *cert, user="prometheus:new-secret")) == 200


def test_prometheus_scrapes_over_tls_with_basic_auth(
    zmon_tls: tuple[TLSZmon, Path], pki: Path, tmp_path: Path
) -> None:
    z, _ = zmon_tls
    (tmp_path / "password").write_text(PASSWORD)
    prom, port = start_prometheus(
        tmp_path,
        f"""  - job_name: zmon
    scheme: https
    tls_config:
      ca_file: {pki / "ca.pem"}
    basic_auth:
      username: prometheus
      password_file: {tmp_path / "password"}
    static_configs:
      - targets: ['127.0.0.1:{z.port}']
""",
    )
    try:
        deadline = time.monotonic() + 60
        last: object = None
        while time.monotonic() < deadline:
            try:
                q = urllib.parse.urlencode({"query": 'zmon_build_info{job="zmon"}'})
                with urllib.request.urlopen(
                    f"http://127.0.0.1:{port}/api/v1/query?{q}", timeout=5
                ) as r:
                    last = json.load(r)["data"]["result"]
                if last:
                    break
            except OSError as exc:
                last = exc
            time.sleep(0.5)
        assert last, f"Prometheus never got zmon's metrics: {last}"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/targets", timeout=5) as r:
            target = json.load(r)["data"]["activeTargets"][0]
        assert target["health"] == "up" and target["scrapeUrl"].startswith("https://")
    finally:
        stop_process_group(prom)
