"""zmon started as root the way the systemd unit starts it: the process that listens and
parses HTTP runs as ``web.user`` with no capability, the collecting side holds exactly the
documented set (README "Privileges", packaging/zmon.service).

``setpriv`` gives zmon what systemd gives it: the unit's capability bounding set (the
collecting set plus CAP_SETUID, CAP_SETGID and CAP_SETPCAP for the drop), the same set as
ambient capabilities (with ``SecureBits=noroot`` root gains nothing else on exec), and
no_new_privs. What each process holds is read from /proc/PID/status.

Needs root and the ``zmon`` system user: in CI the test creates it (useradd, as the .deb's
postinst would) when it is missing; elsewhere it skips loudly, or another unprivileged user
can be named in ZMON_TEST_WEB_USER.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import signal
import ssl
import stat
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

import pytest

from tests.e2e.serve import ZmonProcess, arc_procfs, collectors_toml
from tests.helpers import IN_CI, not_run, require_tool
from tests.packaging.unit import setpriv_flags
from tests.support.waiting import wait_for
from zmon.runtime.privileges import COLLECTING, FOR_THE_DROP, mask_of, status_capabilities

pytestmark = pytest.mark.real


def setpriv_prefix() -> list[str]:
    """setpriv giving zmon the unit's bounding set, ambient set, securebits, no_new_privs."""
    return [require_tool("setpriv", "starts zmon with the unit's capabilities"), *setpriv_flags()]


def web_user() -> pwd.struct_passwd:
    if os.geteuid() != 0:
        not_run("starting zmon as root needs root", "run the real tier as root")
    name = os.environ.get("ZMON_TEST_WEB_USER", "zmon")
    try:
        return pwd.getpwnam(name)
    except KeyError:
        if not IN_CI:
            not_run(f"no user {name!r}", "create it")
    subprocess.run(
        [
            require_tool("useradd", "creates the zmon user"), "--system", "--user-group",
            "--no-create-home", "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin",
            name,
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return pwd.getpwnam(name)


def children(pid: int) -> list[int]:
    out: list[int] = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as fh:
            out.extend(int(p) for p in fh.read().split())
    return out


def comm(pid: int) -> str:
    """The process's name (zmon names its HTTP process and its worker)."""
    return Path(f"/proc/{pid}/comm").read_text().strip()


def cmdline(pid: int) -> str:
    return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()


def status(pid: int) -> dict[str, str]:
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        out[key] = value.strip()
    return out


def _pki(tmp: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key, readable by root only."""
    cert, key = tmp / "cert.pem", tmp / "key.pem"
    subprocess.run(
        [
            require_tool("openssl", "makes the test certificate"), "req", "-x509",
            "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
            "-keyout", str(key), "-out", str(cert),
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    key.chmod(0o600)
    return cert, key


def test_the_http_process_holds_nothing_and_the_collecting_side_the_documented_set(
    tmp_path: Path,
) -> None:
    user = web_user()
    prefix = setpriv_prefix()
    tmp_path.chmod(0o700)  # the key and config: root's alone, as under /etc/zmon
    cert, key = _pki(tmp_path)
    web = tmp_path / "web.yml"
    web.write_text(f"tls_server_config:\n  cert_file: {cert}\n  key_file: {key}\n")
    cfg = tmp_path / "zmon.toml"
    cfg.write_text(collectors_toml(["arc"]))
    procfs = arc_procfs(tmp_path / "host")
    # the published report's directory: somewhere the web user can reach (tmp_path is root's)
    outside = Path(tempfile.mkdtemp(prefix="zmon-status-"))
    outside.chmod(0o755)
    run = outside / "run"
    zmon = None
    try:
        zmon = _TLSZmon(
            [
                "--config", str(cfg), "--path.procfs", str(procfs),
                "--path.state-dir", str(tmp_path / "state"), "--web.config.file", str(web),
                "--web.user", user.pw_name, "--web.status-dir", str(run),
            ],
            tmp_path / "zmon.log",
            prefix=prefix,
            cafile=cert,
        )  # fmt: skip
        zmon.wait_for("zmon_arc_hits_total 100.0")
        parent = zmon.proc.pid
        kids = children(parent)
        http = [p for p in kids if comm(p) == "zmon-http"]
        worker = [p for p in kids if comm(p) == "zmon-worker"]
        assert len(http) == 1 and len(worker) == 1, [(comm(p), cmdline(p)) for p in kids]
        collecting = mask_of(COLLECTING)

        listening = status(http[0])
        assert set(listening["Uid"].split()) == {str(user.pw_uid)}, listening["Uid"]
        assert set(listening["Gid"].split()) == {str(user.pw_gid)}, listening["Gid"]
        assert listening["Groups"] == ""
        assert listening["NoNewPrivs"] == "1"
        caps = status_capabilities(http[0])
        assert caps == dict.fromkeys(("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"), 0)

        for pid in (parent, worker[0]):  # the collecting side, after the drop
            caps = status_capabilities(pid)
            assert caps["CapEff"] == collecting, (cmdline(pid), hex(caps["CapEff"]))
            assert caps["CapPrm"] == collecting, (cmdline(pid), hex(caps["CapPrm"]))
            assert caps["CapBnd"] & mask_of(FOR_THE_DROP) == 0, hex(caps["CapBnd"])
            assert caps["CapAmb"] & mask_of(FOR_THE_DROP) == 0, hex(caps["CapAmb"])
            assert status(pid)["NoNewPrivs"] == "1"

        # the HTTP process publishes its judged report in the one directory made writable for
        # it (its group's, set without CAP_CHOWN); zmon status reads it without the TLS CA
        published = run / "report.json"
        wait_for(published.exists)
        assert (published.stat().st_uid, stat.S_IMODE(published.stat().st_mode)) == (
            user.pw_uid,
            0o644,
        )
        assert (run.stat().st_uid, run.stat().st_gid) == (0, user.pw_gid)
        assert stat.S_IMODE(run.stat().st_mode) == 0o775
        local = subprocess.run(
            [sys.executable, "-m", "zmon.cli", "status", "--json", "--config", str(cfg),
             "--web.status-dir", str(run)],
            capture_output=True,
            timeout=300,
        )  # fmt: skip
        report = json.loads(local.stdout)
        assert "not_judged" not in report, report["not_judged"]
        assert report["host"] == json.loads(zmon.get("/?format=json"))["host"]

        # a reload still works: the privileged side re-reads the key and hands it over
        os.kill(parent, signal.SIGHUP)
        zmon.wait_logged('"config reloaded"')
        assert zmon.get("/healthz") == b"ok\n"
        assert status_capabilities(children(parent)[0])  # (still running)
        assert zmon.stop() == 0
        zmon = None
        assert not published.exists()  # withdrawn: a stopped zmon leaves no report
    finally:
        if zmon is not None:
            zmon.stop()
        shutil.rmtree(outside)


class _TLSZmon(ZmonProcess):
    """ZmonProcess over HTTPS with the test's own certificate."""

    def __init__(self, *args: object, cafile: Path, **kwargs: object) -> None:
        self._ctx = ssl.create_default_context(cafile=str(cafile))
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.base = self.base.replace("http://", "https://")

    def get(self, path: str, timeout: float = 5) -> bytes:
        base = self.base.replace("http://", "https://")
        with urllib.request.urlopen(base + path, timeout=timeout, context=self._ctx) as r:
            return bytes(r.read())


def test_web_user_without_root_is_refused() -> None:
    """Asking for the drop without root is a config error at start, not a silent no-op."""
    other = web_user()
    nobody = pwd.getpwnam("nobody")
    if other.pw_uid == nobody.pw_uid:  # (ZMON_TEST_WEB_USER=nobody)
        other = next(p for p in pwd.getpwall() if p.pw_uid not in (0, nobody.pw_uid))
    proc = subprocess.run(
        [
            require_tool("setpriv"), f"--reuid={nobody.pw_uid}", f"--regid={nobody.pw_gid}",
            "--clear-groups", sys.executable, "-m", "zmon.cli", "serve",
            "--web.listen-address", "127.0.0.1:0", "--web.user", other.pw_name,
            "--path.state-dir", "/nonexistent",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd="/",
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert "web.user" in proc.stderr and "root" in proc.stderr, proc.stderr
