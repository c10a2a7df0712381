"""Hermetic: the fleet test runs the shipped Alertmanager configuration, changed only where a
test must change it (receiver URLs, route timings), and reads it back from the shipped file."""

from __future__ import annotations

from typing import Any

import yaml

from tests.fleet.stack import SHIPPED_CONFIG, TIMING_KEYS, cluster_config, config_changes
from zmon.health.thresholds import Duration

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


def test_scaled_repeat_intervals_keep_each_routes_proportion() -> None:
    timings = {k: v for k, v in TIMINGS.items() if k != "repeat_interval"}
    config = cluster_config("http://127.0.0.1:1/", timings, repeat_scale=10 / 3600)
    assert config_changes(config) == []
    shipped = _routes(yaml.safe_load(SHIPPED_CONFIG.read_text())["route"])
    ours = _routes(config["route"])
    pairs = list(zip(shipped, ours, strict=True))
    repeats = [
        (s["repeat_interval"], o["repeat_interval"]) for s, o in pairs if "repeat_interval" in s
    ]
    assert repeats and all(
        Duration(o).seconds == max(1, round(Duration(s).seconds * 10 / 3600)) for s, o in repeats
    )
    assert all(o.get(k) == timings[k] for s, o in pairs for k in timings if k in s)
