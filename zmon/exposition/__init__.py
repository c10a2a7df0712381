"""Metric families, their text formats, and the snapshot /metrics serves."""
