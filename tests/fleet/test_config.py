"""Hermetic: the fleet test runs the shipped Alertmanager configuration, changed only where a
test must change it (receiver URLs, route timings), and reads it back from the shipped file."""

from __future__ import annotations

from typing import Any

import yaml

from tests.fleet.stack import SHIPPED_CONFIG, TIMING_KEYS, cluster_config, config_changes

TIMINGS = {"group_wait": "1s", "group_interval": "2s", "repeat_interval": "3s"}


def _routes(route: dict[str, Any]) -> list[dict[str, Any]]:
    return [route] + [r for child in route.get("routes", []) for r in _routes(child)]


def test_only_receiver_urls_and_route_timings_change() -> None:
    config = cluster_config("http://127.0.0.1:1/", TIMINGS)
    assert config_changes(config) == []
    urls = {r["name"]: r["webhook_configs"][0]["url"] for r in config["receivers"]}
    assert urls == {"page": "http://127.0.0.1:1/page", "ticket": "http://127.0.0.1:1/ticket"}
    timed = [r for r in _routes(config["route"]) if set(r) & set(TIMING_KEYS)]
    assert timed and all(r[k] == TIMINGS[k] for r in timed for k in TIMING_KEYS if k in r)
    assert all(r["webhook_configs"][0]["send_resolved"] for r in config["receivers"])


def test_a_change_elsewhere_is_caught() -> None:
    config = cluster_config("http://127.0.0.1:1/", TIMINGS)
    config["route"]["group_by"] = ["instance"]
    config["inhibit_rules"] = config["inhibit_rules"][1:]
    assert config_changes(config) == ["inhibit_rules", "route"]
    assert yaml.safe_load(SHIPPED_CONFIG.read_text())["route"]["group_by"] == ["instance", "pool"]
