"""UPS server settings: the ``nut`` and ``apcupsd`` option lists, validated."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zmon.host.ups.apcupsd import NIS_PORT
from zmon.host.ups.net import Endpoint, parse_endpoint
from zmon.host.ups.nut import NUT_PORT

NUT_KEYS = frozenset({"host", "port", "ups", "username", "password", "password_file"})


@dataclass(frozen=True)
class NutServer:
    """One upsd to query; ``ups`` limits it to those UPSes instead of all (``LIST UPS``)."""

    endpoint: Endpoint
    ups: tuple[str, ...] = ()
    username: str | None = None
    password: str | None = None


def read_password_file(path: str) -> str:
    """The first line of a password file (kept off the command line and out of ``ps``)."""
    try:
        lines = Path(path).read_text().splitlines()
    except OSError as err:
        raise ValueError(f"cannot read NUT password file {path}: {err.strerror}") from None
    return lines[0].strip() if lines else ""


def nut_servers(
    entries: Iterable[Any], *, username: str = "", password: str = "", password_file: str = ""
) -> list[NutServer]:
    """Parse the ``nut`` option: ``[UPS@]HOST[:PORT]`` strings or tables.

    A table may hold ``host``, ``port``, ``ups``, ``username``, ``password`` and
    ``password_file``; the collector-wide login applies where a table sets none.
    Raises ValueError naming the bad entry.
    """
    if password_file and not password:
        password = read_password_file(password_file)
    servers = []
    for entry in entries or ():
        if isinstance(entry, str):
            ups, _, address = entry.strip().rpartition("@")
            server = NutServer(
                parse_endpoint(address, NUT_PORT),
                (ups,) if ups else (),
                username or None,
                password or None,
            )
        elif isinstance(entry, Mapping):
            server = _nut_table(entry, username, password)
        else:
            raise ValueError(f"nut server entry {entry!r} is neither a string nor a table")
        servers.append(server)
    return _merge(servers)


def _merge(servers: list[NutServer]) -> list[NutServer]:
    """One entry per upsd: ``a@host`` and ``b@host`` become one server with two UPSes."""
    merged: dict[Endpoint, NutServer] = {}
    for server in servers:
        seen = merged.get(server.endpoint)
        if seen is None:
            merged[server.endpoint] = server
            continue
        if (seen.username, seen.password) != (server.username, server.password):
            raise ValueError(f"nut server {server.endpoint} is listed with different logins")
        if not seen.ups or not server.ups:
            ups: tuple[str, ...] = ()  # one entry asks for every UPS
        else:
            ups = seen.ups + tuple(u for u in server.ups if u not in seen.ups)
        merged[server.endpoint] = NutServer(seen.endpoint, ups, seen.username, seen.password)
    return list(merged.values())


def _nut_table(entry: Mapping[str, Any], username: str, password: str) -> NutServer:
    unknown = set(entry) - NUT_KEYS
    if unknown:
        raise ValueError(f"nut server entry has unknown keys: {', '.join(sorted(unknown))}")
    host = str(entry.get("host") or "")
    if not host:
        raise ValueError(f"nut server entry {dict(entry)!r} has no host")
    endpoint = parse_endpoint(host, NUT_PORT)
    if entry.get("port") is not None:
        port = entry["port"]
        if not isinstance(port, int) or not 0 < port < 65536:
            raise ValueError(f"nut server {host}: bad port {port!r}")
        endpoint = Endpoint(endpoint.host, port)
    own_password = entry.get("password") or ""
    if not own_password and entry.get("password_file"):
        own_password = read_password_file(str(entry["password_file"]))
    return NutServer(
        endpoint,
        (str(entry["ups"]),) if entry.get("ups") else (),
        str(entry.get("username") or username) or None,
        str(own_password or password) or None,
    )


def apcupsd_servers(entries: Iterable[Any]) -> list[Endpoint]:
    """Parse the ``apcupsd`` option: ``HOST[:PORT]`` strings (port 3551)."""
    servers = []
    for entry in entries or ():
        if not isinstance(entry, str):
            raise ValueError(f"apcupsd server entry {entry!r} is not a HOST[:PORT] string")
        servers.append(parse_endpoint(entry, NIS_PORT))
    return list(dict.fromkeys(servers))  # a server listed twice is queried once
