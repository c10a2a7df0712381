"""Grafana dashboards for zmon, generated as plain JSON by a small Python builder."""
