"""Parsers for the zfs command: datasets and snapshots."""
