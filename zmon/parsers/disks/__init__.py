"""Parsers for disk inventories: FreeBSD geom and camcontrol, sesutil, SAS PHY counters."""
