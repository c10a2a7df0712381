"""UPS server options: addresses, ports, logins, tables, duplicates."""

from __future__ import annotations

import pytest

from zmon.collectors.ups.servers import NutServer, apcupsd_servers, nut_servers
from zmon.host.ups.net import Endpoint, parse_endpoint


@pytest.mark.parametrize(
    ("text", "host", "port"),
    [
        ("ups.lan", "ups.lan", 3493),
        ("10.1.2.3:3494", "10.1.2.3", 3494),
        ("[::1]", "::1", 3493),
        ("[fe80::1]:1234", "fe80::1", 1234),
        ("::1", "::1", 3493),
    ],
)
def test_parse_endpoint(text, host, port):
    assert parse_endpoint(text, 3493) == Endpoint(host, port)


@pytest.mark.parametrize("text", ["", "host:0", "host:70000", "host:abc", "[::1", "[::1]x", ":1"])
def test_parse_endpoint_rejects(text):
    with pytest.raises(ValueError):
        parse_endpoint(text, 3493)


def test_endpoint_label_brackets_ipv6():
    assert str(Endpoint("::1", 3493)) == "[::1]:3493"
    assert str(Endpoint("nas", 3551)) == "nas:3551"


def test_nut_strings_with_ups_names_and_global_login():
    servers = nut_servers(["nas", "rack@10.0.0.5:3500"], username="mon", password="pw")
    assert servers == [
        NutServer(Endpoint("nas", 3493), (), "mon", "pw"),
        NutServer(Endpoint("10.0.0.5", 3500), ("rack",), "mon", "pw"),
    ]


def test_nut_tables_with_their_own_login(tmp_path):
    secret = tmp_path / "pw"
    secret.write_text("from-file\nignored\n")
    servers = nut_servers(
        [
            {"host": "a", "port": 4000, "ups": "u1", "username": "x", "password_file": str(secret)},
            {"host": "b"},
        ],
        username="g",
        password="gp",
    )
    assert servers[0] == NutServer(Endpoint("a", 4000), ("u1",), "x", "from-file")
    assert servers[1] == NutServer(Endpoint("b", 3493), (), "g", "gp")


def test_nut_global_password_file(tmp_path):
    secret = tmp_path / "pw"
    secret.write_text("s3cret\n")
    assert nut_servers(["h"], username="u", password_file=str(secret))[0].password == "s3cret"


def test_nut_same_server_listed_twice_is_one_server():
    servers = nut_servers(["a@h", "b@h:3493", "a@h"])
    assert servers == [NutServer(Endpoint("h", 3493), ("a", "b"))]
    assert nut_servers(["a@h", "h"]) == [NutServer(Endpoint("h", 3493), ())]


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ([42], "neither"),
        ([{"host": ""}], "no host"),
        ([{"host": "h", "colour": 1}], "unknown"),
        ([{"host": "h", "port": "x"}], "bad port"),
        ([{"host": "h", "username": "a"}, {"host": "h", "username": "b"}], "different logins"),
        ([{"host": "h", "password_file": "/nonexistent/pw"}], "cannot read"),
    ],
)
def test_nut_bad_entries_are_named(entries, message):
    with pytest.raises(ValueError, match=message):
        nut_servers(entries)


def test_apcupsd_servers():
    assert apcupsd_servers(["nas", "nas:3551", "[::1]:3552"]) == [
        Endpoint("nas", 3551),
        Endpoint("::1", 3552),
    ]
    with pytest.raises(ValueError):
        apcupsd_servers([{"host": "x"}])
