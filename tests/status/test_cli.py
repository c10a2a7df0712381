"""``zmon status``: exit codes for checks, text, colour and JSON; a remote zmon over HTTP(S)
with the TLS and basic-auth settings of a Prometheus scrape config; the local demo host."""

from __future__ import annotations

import base64
import http.server
import json
import socket
import ssl
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import structlog

from tests.helpers import require_tool
from zmon.cli import main

LAB = Path(__file__).resolve().parents[1] / "fixtures" / "lab" / "2.3.2"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _keep_logging() -> Iterator[None]:
    """``main()`` configures logging on this test's captured stderr; later tests must not
    inherit a stream pytest has closed."""
    saved = structlog.get_config()
    yield
    structlog.configure(**saved)


class Exporter:
    """Serves one exposition at /metrics (404 elsewhere), optionally over TLS with auth."""

    def __init__(
        self, text: str, tls: ssl.SSLContext | None = None, auth: tuple[str, str] | None = None
    ) -> None:
        body = text.encode()
        expected = "Basic " + base64.b64encode(":".join(auth).encode()).decode() if auth else None
        self.requests: list[str] = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - stdlib name
                outer.requests.append(self.path)
                if expected and self.headers.get("Authorization") != expected:
                    self.send_response(401)
                    self.end_headers()
                    return
                if self.path != "/metrics":
                    self.send_response(404)
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/plain; version=0.0.4")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                return

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        if tls is not None:
            self.httpd.socket = tls.wrap_socket(self.httpd.socket, server_side=True)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def exporter() -> Iterator[object]:
    made: list[Exporter] = []

    def make(step: str, **kw: object) -> Exporter:
        e = Exporter((LAB / step / "metrics.prom").read_text(), **kw)  # type: ignore[arg-type]
        made.append(e)
        return e

    yield make
    for e in made:
        e.stop()


@pytest.mark.parametrize(
    "step,code", [("01-healthy", 0), ("04-checksum-errors-repaired", 1), ("06-permanent-errors", 2)]
)
def test_exit_code_follows_the_worst_finding(exporter, capsys, step: str, code: int) -> None:  # type: ignore[no-untyped-def]
    e = exporter(step)
    assert main(["status", "--url", f"http://127.0.0.1:{e.port}"]) == code
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith(("OK - ", "WARNING - ", "CRITICAL - ")[code])
    assert "\033[" not in out  # not a terminal: plain text
    assert e.requests == ["/?format=json", "/metrics"]  # not a zmon page: read the metrics


def test_json_and_colour(exporter, capsys) -> None:  # type: ignore[no-untyped-def]
    e = exporter("04-checksum-errors-repaired")
    url = f"http://127.0.0.1:{e.port}/metrics"
    assert main(["status", "--url", url, "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["state"] == "warning" and report["findings"][0]["rule"] == "checksum_errors"
    assert main(["status", "--url", url, "--color", "always"]) == 1
    assert "\033[33m" in capsys.readouterr().out


def test_unreachable_zmon_is_unknown(capsys) -> None:  # type: ignore[no-untyped-def]
    e = Exporter("")
    port = e.port
    e.stop()
    assert main(["status", "--url", f"http://127.0.0.1:{port}", "--timeout", "2"]) == 3
    assert capsys.readouterr().out.startswith("UNKNOWN - zmon status: ")


def test_a_running_zmon_answers_with_its_own_report(capsys) -> None:  # type: ignore[no-untyped-def]
    from tests.status.test_page import _serve_degraded

    _, server = _serve_degraded()
    capsys.readouterr()  # the collector's own log lines
    try:
        assert main(["status", "--url", f"http://127.0.0.1:{server.port}"]) == 1
    finally:
        server.stop()
    out = capsys.readouterr().out
    assert out.startswith("WARNING - pool tank: the pool runs with reduced redundancy\n")
    assert f"host {socket.gethostname()}" in out  # the daemon's host, not the URL


def _openssl(tmp: Path, *args: str) -> None:
    subprocess.run(
        [require_tool("openssl", "TLS certificates for zmon status --url"), *args],
        cwd=tmp,
        check=True,
        capture_output=True,
        timeout=60,
    )


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A CA, a server certificate for localhost and a client certificate, made by openssl."""
    tmp = tmp_path_factory.mktemp("pki")
    _openssl(
        tmp,
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "2",
        "-subj",
        "/CN=zmon test CA",
    )
    for name, ext in (
        ("server", "subjectAltName=DNS:localhost,IP:127.0.0.1"),
        ("client", "extendedKeyUsage=clientAuth"),
    ):
        _openssl(
            tmp,
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            f"{name}.key",
            "-out",
            f"{name}.csr",
            "-subj",
            f"/CN={name}",
        )
        (tmp / f"{name}.ext").write_text(ext + "\n")
        _openssl(
            tmp,
            "x509",
            "-req",
            "-in",
            f"{name}.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            f"{name}.pem",
            "-days",
            "2",
            "-extfile",
            f"{name}.ext",
        )
    (tmp / "password").write_text("s3cret\n")
    return tmp


@pytest.mark.real
def test_tls_client_certificate_and_basic_auth(exporter, pki: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH, cafile=str(pki / "ca.pem"))
    ctx.load_cert_chain(pki / "server.pem", pki / "server.key")
    ctx.verify_mode = ssl.CERT_REQUIRED
    e = exporter("05-io-errors", tls=ctx, auth=("prometheus", "s3cret"))
    url = f"https://localhost:{e.port}"
    full = ["status", "--url", url, "--tls.ca-file", str(pki / "ca.pem"),
            "--tls.cert-file", str(pki / "client.pem"), "--tls.key-file", str(pki / "client.key"),
            "--basic-auth.username", "prometheus",
            "--basic-auth.password-file", str(pki / "password")]  # fmt: skip
    assert main(full) == 1
    assert capsys.readouterr().out.startswith("WARNING - vdc (raidz1-0 of rz)")
    # each setting is needed: no CA, no client certificate, a wrong password
    assert main([a for a in full if a not in ("--tls.ca-file", str(pki / "ca.pem"))]) == 3
    assert "CERTIFICATE_VERIFY_FAILED" in capsys.readouterr().out
    assert main(full[:5] + full[9:]) == 3
    capsys.readouterr()
    (pki / "wrong").write_text("nope\n")
    assert main(full[:-1] + [str(pki / "wrong")]) == 3
    assert "HTTP 401" in capsys.readouterr().out


def test_local_demo_host_report_as_a_check(tmp_path: Path) -> None:
    """``zmon status --demo`` without a demo daemon collects once from the demo host, as on a
    real host, and says that nothing was judged."""
    run = tmp_path / "run"
    result = subprocess.run(
        [sys.executable, "-m", "zmon.cli", "status", "--demo", "--web.status-dir", str(run)],
        capture_output=True,
        timeout=120,
        cwd=ROOT,
    )
    out = result.stdout.decode()
    assert result.returncode == 0, out + result.stderr.decode()[-2000:]
    assert out.startswith("OK - 3 pools healthy (rz, single, tank)\n")
    assert "  tank  ONLINE" in out and "demo-ups" in out
    assert "No alert was judged: zmon's history is not available (zmon is not running" in out
    assert result.stderr == b""  # a check prints its report only
