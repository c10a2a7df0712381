"""``--web.config.file``: TLS, basic auth and response headers, in the exporter-toolkit format.

The file is the one node_exporter and the other Prometheus exporters read
(https://github.com/prometheus/exporter-toolkit/blob/master/docs/web-configuration.md), so an
admin can point zmon at the file they already have. What zmon reads:

    tls_server_config:
      cert_file, key_file           server certificate and key (PEM)
      client_auth_type              NoClientCert, VerifyClientCertIfGiven,
                                    RequireAndVerifyClientCert
      client_ca_file                CAs that sign client certificates
      min_version, max_version      TLS10 | TLS11 | TLS12 | TLS13 (default minimum TLS12)
      prefer_server_cipher_suites   accepted; the server's order is always preferred
    http_server_config:
      headers                       extra response headers (the security headers the toolkit allows)
      http2                         accepted; zmon speaks HTTP/1.1
    basic_auth_users                user: bcrypt hash

Keys the toolkit has but zmon cannot honour (``cipher_suites``, ``curve_preferences``,
``client_allowed_sans``, the inline ``cert``/``key``/``client_ca``, ``rate_limit``, and the two
client-auth types that accept a certificate without verifying it) are refused with a message
naming the key, rather than ignored: a security setting that silently does nothing is worse
than an error. Relative paths are taken from the file's directory, as the toolkit does.
The toolkit re-reads the file on every request; zmon reads it at start and on SIGHUP.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import ssl
import tempfile
import threading
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from zmon.collecting.config import ConfigError

TLS_VERSIONS = {
    "TLS10": ssl.TLSVersion.TLSv1,
    "TLS11": ssl.TLSVersion.TLSv1_1,
    "TLS12": ssl.TLSVersion.TLSv1_2,
    "TLS13": ssl.TLSVersion.TLSv1_3,
}
CLIENT_AUTH = {
    "NoClientCert": ssl.CERT_NONE,
    "VerifyClientCertIfGiven": ssl.CERT_OPTIONAL,
    "RequireAndVerifyClientCert": ssl.CERT_REQUIRED,
}
UNVERIFIED_CLIENT_AUTH = ("RequestClientCert", "RequireAnyClientCert")
# The headers exporter-toolkit lets an admin set; anything else is refused, as the toolkit does.
ALLOWED_HEADERS = (
    "Strict-Transport-Security", "X-Content-Type-Options", "X-Frame-Options",
    "X-XSS-Protection", "Content-Security-Policy",
)  # fmt: skip
_TLS_KEYS = {
    "cert_file",
    "key_file",
    "client_auth_type",
    "client_ca_file",
    "min_version",
    "max_version",
    "prefer_server_cipher_suites",
}
_TLS_UNSUPPORTED = {"cert": "inline certificates", "key": "inline keys",
                    "client_ca": "inline client CAs",
                    "cipher_suites": "choosing cipher suites (OpenSSL's secure defaults apply)",
                    "curve_preferences": "choosing curves",
                    "client_allowed_sans": "restricting client certificate SANs"}  # fmt: skip
_KEY = "web.config.file"


@dataclass(frozen=True)
class TLSSettings:
    cert_file: Path
    key_file: Path
    client_auth_type: str = "NoClientCert"
    client_ca_file: Path | None = None
    min_version: str = "TLS12"
    max_version: str | None = None
    # The files' contents, once read (``in_memory``): what the privileged side hands the HTTP
    # process, which cannot read a key only root may read.
    cert_pem: bytes | None = None
    key_pem: bytes | None = None
    client_ca_pem: bytes | None = None

    def in_memory(self) -> TLSSettings:
        """These settings with the files read now (ConfigError if one cannot be read)."""

        def read(key: str, path: Path) -> bytes:
            try:
                return path.read_bytes()
            except OSError as exc:
                raise ConfigError(
                    f"{_KEY}: tls_server_config.{key}", f"cannot read {path}: {exc.strerror}"
                ) from None

        return replace(
            self,
            cert_pem=read("cert_file", self.cert_file),
            key_pem=read("key_file", self.key_file),
            client_ca_pem=(
                read("client_ca_file", self.client_ca_file) if self.client_ca_file else None
            ),
        )

    def context(self) -> ssl.SSLContext:
        """A server SSLContext; raises ConfigError naming the key whose file does not load."""
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.minimum_version = TLS_VERSIONS[self.min_version]
        if self.max_version:
            ctx.maximum_version = TLS_VERSIONS[self.max_version]
        try:
            if self.cert_pem is not None and self.key_pem is not None:
                _load_chain(ctx, self.cert_pem, self.key_pem)
            else:
                ctx.load_cert_chain(self.cert_file, self.key_file)
        except (OSError, ssl.SSLError) as exc:
            raise ConfigError(
                f"{_KEY}: tls_server_config.cert_file/key_file",
                f"cannot load {self.cert_file} with {self.key_file}: {exc}",
            ) from None
        ctx.verify_mode = CLIENT_AUTH[self.client_auth_type]
        if self.client_ca_file is not None:
            try:
                if self.client_ca_pem is not None:
                    ctx.load_verify_locations(cadata=self.client_ca_pem.decode("ascii"))
                else:
                    ctx.load_verify_locations(cafile=str(self.client_ca_file))
            except (OSError, ssl.SSLError) as exc:
                raise ConfigError(
                    f"{_KEY}: tls_server_config.client_ca_file",
                    f"cannot load {self.client_ca_file}: {exc}",
                ) from None
            except UnicodeDecodeError:
                raise ConfigError(
                    f"{_KEY}: tls_server_config.client_ca_file",
                    f"{self.client_ca_file} is not PEM text",
                ) from None
        return ctx


def _load_chain(ctx: ssl.SSLContext, cert: bytes, key: bytes) -> None:
    """Load a certificate chain and key held in memory: OpenSSL's Python binding reads them
    only from files, so through an anonymous memory file (Linux, FreeBSD 13+) or else a
    private temporary file removed at once."""
    memfd_create = getattr(os, "memfd_create", None)
    if memfd_create is not None and os.path.isdir("/proc/self/fd"):
        fds = []
        try:
            for data in (cert, key):
                fd = memfd_create("zmon-tls", getattr(os, "MFD_CLOEXEC", 0))
                fds.append(fd)
                os.write(fd, data)
            ctx.load_cert_chain(f"/proc/self/fd/{fds[0]}", f"/proc/self/fd/{fds[1]}")
        finally:
            for fd in fds:
                os.close(fd)
        return
    with tempfile.TemporaryDirectory(prefix="zmon-tls-") as tmp:  # (mode 0700)
        paths = [Path(tmp) / "cert.pem", Path(tmp) / "key.pem"]
        for path, data in zip(paths, (cert, key), strict=True):
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
        ctx.load_cert_chain(paths[0], paths[1])


@dataclass(frozen=True)
class WebConfig:
    """What one web config file asks for. ``WebConfig()`` is plain HTTP, no auth."""

    tls: TLSSettings | None = None
    users: dict[str, bytes] = field(default_factory=dict)
    headers: tuple[tuple[str, str], ...] = ()
    source: str | None = None

    def ssl_context(self) -> ssl.SSLContext | None:
        return self.tls.context() if self.tls else None


def load_web_config(path: str | Path) -> WebConfig:
    """Read and validate an exporter-toolkit web config file. Raises ConfigError."""
    import yaml  # here: a daemon without a web config never pays for PyYAML's modules

    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(_KEY, f"cannot read {path}: {exc.strerror or exc}") from None
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise ConfigError(_KEY, f"{path} is not valid YAML: {exc}") from None
    if data is None:
        data = {}
    _mapping(data, "(top level)", path)
    for key in data:
        if key == "rate_limit":
            raise ConfigError(
                f"{_KEY}: {key}",
                "not supported by zmon (web.max_connections bounds concurrent scrapes instead)",
            )
        if key not in ("tls_server_config", "http_server_config", "basic_auth_users"):
            raise ConfigError(f"{_KEY}: {key}", f"unknown key in {path}")
    base = path.parent
    tls = _tls(data.get("tls_server_config"), base, path)
    users = _users(data.get("basic_auth_users"), path)
    headers = _http(data.get("http_server_config"), path)
    return WebConfig(tls=tls, users=users, headers=headers, source=str(path))


def _mapping(value: Any, key: str, path: Path) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigError(f"{_KEY}: {key}", f"expected a mapping in {path}, got {value!r}")
    return value


def _string(section: dict[str, Any], key: str, where: str, path: Path) -> str | None:
    value = section.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{_KEY}: {where}.{key}", f"expected a non-empty string in {path}")
    return value


def _tls(raw: Any, base: Path, path: Path) -> TLSSettings | None:
    if raw is None:
        return None
    where = "tls_server_config"
    section = _mapping(raw, where, path)
    for key in section:
        if key in _TLS_UNSUPPORTED:
            raise ConfigError(
                f"{_KEY}: {where}.{key}", f"not supported by zmon ({_TLS_UNSUPPORTED[key]})"
            )
        if key not in _TLS_KEYS:
            raise ConfigError(f"{_KEY}: {where}.{key}", f"unknown key in {path}")
    cert = _string(section, "cert_file", where, path)
    key_file = _string(section, "key_file", where, path)
    if not cert or not key_file:
        missing = "cert_file" if not cert else "key_file"
        raise ConfigError(f"{_KEY}: {where}.{missing}", "required when tls_server_config is set")
    auth = _string(section, "client_auth_type", where, path) or "NoClientCert"
    if auth in UNVERIFIED_CLIENT_AUTH:
        raise ConfigError(
            f"{_KEY}: {where}.client_auth_type",
            f"{auth} accepts client certificates without verifying them, which "
            "zmon does not do; use VerifyClientCertIfGiven or "
            "RequireAndVerifyClientCert with client_ca_file",
        )
    if auth not in CLIENT_AUTH:
        raise ConfigError(
            f"{_KEY}: {where}.client_auth_type",
            f"must be one of {', '.join(CLIENT_AUTH)}, got {auth!r}",
        )
    ca = _string(section, "client_ca_file", where, path)
    if auth != "NoClientCert" and not ca:
        raise ConfigError(
            f"{_KEY}: {where}.client_ca_file", f"required when client_auth_type is {auth}"
        )
    versions = {}
    for key in ("min_version", "max_version"):
        v = _string(section, key, where, path)
        if v is not None and v not in TLS_VERSIONS:
            raise ConfigError(
                f"{_KEY}: {where}.{key}", f"must be one of {', '.join(TLS_VERSIONS)}, got {v!r}"
            )
        versions[key] = v
    prefer = section.get("prefer_server_cipher_suites")
    if prefer is not None and not isinstance(prefer, bool):
        raise ConfigError(f"{_KEY}: {where}.prefer_server_cipher_suites", "expected true or false")
    settings = TLSSettings(
        cert_file=base / cert,
        key_file=base / key_file,
        client_auth_type=auth,
        client_ca_file=base / ca if ca else None,
        min_version=versions["min_version"] or "TLS12",
        max_version=versions["max_version"],
    )
    settings.context()  # a file that does not load is refused now, not at the first connection
    return settings


def _users(raw: Any, path: Path) -> dict[str, bytes]:
    if raw is None:
        return {}
    users = _mapping(raw, "basic_auth_users", path)
    out: dict[str, bytes] = {}
    for user, hashed in users.items():
        key = f"{_KEY}: basic_auth_users.{user}"
        if not isinstance(user, str) or not user or ":" in user:
            raise ConfigError(key, "a user name must be a non-empty string without ':'")
        if not isinstance(hashed, str) or not hashed.startswith(("$2a$", "$2b$", "$2y$")):
            raise ConfigError(
                key,
                "expected a bcrypt hash ($2a$, $2b$ or $2y$), e.g. from "
                "htpasswd -nBC 10 \"\" | tr -d ':\\n'",
            )
        import bcrypt  # here and in BasicAuth: only a web config with users needs it

        try:
            bcrypt.checkpw(b"", hashed.encode())
        except ValueError:
            raise ConfigError(key, "not a valid bcrypt hash") from None
        out[user] = hashed.encode()
    return out


def _http(raw: Any, path: Path) -> tuple[tuple[str, str], ...]:
    if raw is None:
        return ()
    where = "http_server_config"
    section = _mapping(raw, where, path)
    for key in section:
        if key not in ("headers", "http2"):
            raise ConfigError(f"{_KEY}: {where}.{key}", f"unknown key in {path}")
    if "http2" in section and not isinstance(section["http2"], bool):
        raise ConfigError(f"{_KEY}: {where}.http2", "expected true or false")
    headers = section.get("headers") or {}
    _mapping(headers, f"{where}.headers", path)
    allowed = {h.lower(): h for h in ALLOWED_HEADERS}
    out = []
    for name, value in headers.items():
        key = f"{_KEY}: {where}.headers.{name}"
        if not isinstance(name, str) or name.lower() not in allowed:
            raise ConfigError(
                key, f"setting this header is not allowed; allowed: {', '.join(ALLOWED_HEADERS)}"
            )
        if not isinstance(value, str) or any(c in value for c in "\r\n"):
            raise ConfigError(key, "expected a one-line string")
        out.append((allowed[name.lower()], value))
    return tuple(out)


class BasicAuth:
    """Checks ``Authorization: Basic`` against bcrypt hashes.

    bcrypt is slow on purpose (tens of milliseconds per check), and Prometheus sends the same
    credentials on every scrape, so a verified (user, password) pair is remembered by a keyed
    digest - never the password itself - as exporter-toolkit does. Unknown users are checked
    against a dummy hash of the configured hashes' cost (the highest, if they differ), so a
    wrong user name costs as much time as a wrong password.
    """

    _CACHE_SIZE = 256

    def __init__(self, users: dict[str, bytes]) -> None:
        import bcrypt

        self.users = dict(users)
        self._checkpw = bcrypt.checkpw
        self._salt = bcrypt.gensalt(4)  # random per process: a key for the cache digests
        cost = max((hash_cost(h) for h in self.users.values()), default=10)
        self._dummy = bcrypt.hashpw(b"unknown user", bcrypt.gensalt(cost))
        self._cache: OrderedDict[bytes, bool] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def enabled(self) -> bool:
        return bool(self.users)

    def cached(self, header: str | None) -> bool | None:
        """True if this header was verified before, None if a bcrypt check is needed."""
        if header is None:
            return False
        with self._lock:
            if self._digest(header) in self._cache:
                return True
        return None

    def check(self, header: str | None) -> bool:
        """Verify an Authorization header value (slow on a cache miss)."""
        creds = _decode_basic(header)
        if creds is None:
            return False
        user, password = creds
        hashed = self.users.get(user)
        try:
            ok = self._checkpw(password, hashed if hashed is not None else self._dummy)
        except ValueError:  # e.g. a password longer than bcrypt's 72 bytes
            ok = False
        ok = ok and hashed is not None
        if ok and header is not None:
            with self._lock:
                self._cache[self._digest(header)] = True
                while len(self._cache) > self._CACHE_SIZE:
                    self._cache.popitem(last=False)
        return ok

    def _digest(self, header: str) -> bytes:
        return hmac.new(self._salt, header.encode(), hashlib.sha256).digest()


def hash_cost(hashed: bytes) -> int:
    """The cost (log2 rounds) of a bcrypt hash: ``$2b$12$...`` is 12."""
    return int(hashed.split(b"$")[2])


def _decode_basic(header: str | None) -> tuple[str, bytes] | None:
    if not header:
        return None
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        raw = base64.b64decode(value.strip(), validate=True)
    except ValueError:
        return None
    user, sep, password = raw.partition(b":")
    if not sep:
        return None
    try:
        return user.decode("utf-8"), password
    except UnicodeDecodeError:
        return None
