"""Parsers for the zpool command: status, list, iostat, events, the scan line, the DDT."""
