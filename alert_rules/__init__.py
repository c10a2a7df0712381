"""Prometheus alerting and recording rules for zmon, generated from one thresholds table."""
