"""Read a running zmon over HTTP(S), with the TLS and basic-auth notions of a Prometheus
scrape config: CA file, client certificate and key, basic auth with a password
file, and skipping verification only when asked.

``/?format=json`` gives the daemon's own report (with the trends of its last hour);
a URL ending in ``/metrics`` (or a zmon too old for the JSON) is read as an exposition and
diagnosed here.
"""

from __future__ import annotations

import base64
import json
import ssl
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any

from prometheus_client.parser import text_string_to_metric_families


class RemoteError(Exception):
    """The zmon at the URL could not be read."""


@dataclass(frozen=True)
class HttpClientConfig:
    ca_file: str | None = None
    cert_file: str | None = None
    key_file: str | None = None
    insecure_skip_verify: bool = False
    username: str | None = None
    password_file: str | None = None
    timeout: float = 10.0

    def ssl_context(self) -> ssl.SSLContext:
        ctx = ssl.create_default_context(cafile=self.ca_file)
        if self.insecure_skip_verify:
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
        if self.cert_file:
            ctx.load_cert_chain(self.cert_file, self.key_file)
        return ctx

    def headers(self) -> dict[str, str]:
        if not self.username:
            return {}
        password = ""
        if self.password_file:
            try:
                with open(self.password_file, encoding="utf-8") as f:
                    password = f.read().rstrip("\r\n")
            except OSError as exc:
                raise RemoteError(
                    f"cannot read password file {self.password_file}: {exc.strerror or exc}"
                ) from exc
        token = base64.b64encode(f"{self.username}:{password}".encode()).decode()
        return {"Authorization": f"Basic {token}"}


def fetch(url: str, cfg: HttpClientConfig, accept: str = "*/*") -> tuple[bytes, str]:
    """(body, content type) of a GET."""
    parts = urllib.parse.urlsplit(url)
    headers = {"Accept": accept, "User-Agent": "zmon-status", **cfg.headers()}
    handlers: list[Any] = []
    if parts.scheme == "https":
        handlers.append(urllib.request.HTTPSHandler(context=cfg.ssl_context()))
    opener = urllib.request.build_opener(*handlers)
    try:
        with opener.open(urllib.request.Request(url, headers=headers), timeout=cfg.timeout) as r:
            return r.read(), r.headers.get("Content-Type", "")
    except urllib.error.HTTPError as exc:
        raise RemoteError(f"{url}: HTTP {exc.code} {exc.reason}") from exc
    except (urllib.error.URLError, OSError, ssl.SSLError) as exc:
        reason = getattr(exc, "reason", exc)
        raise RemoteError(f"{url}: {reason}") from exc


def read_remote(url: str, cfg: HttpClientConfig) -> tuple[dict[str, Any] | None, list[Any]]:
    """The daemon's report, or (None, families of its exposition)."""
    base = url.rstrip("/")
    if not base.endswith("/metrics"):
        try:
            body, ctype = fetch(base + "/?format=json", cfg, accept="application/json")
        except RemoteError:
            body, ctype = b"", ""
        if "json" in ctype:
            try:
                report = json.loads(body)
            except ValueError:
                report = None
            if isinstance(report, dict) and report.get("schema") == 1:
                return report, []
        base += "/metrics"
    body, _ = fetch(base, cfg, accept="text/plain")
    try:
        return None, list(text_string_to_metric_families(body.decode("utf-8", "replace")))
    except ValueError as exc:
        raise RemoteError(f"{base}: not a Prometheus exposition: {exc}") from exc
