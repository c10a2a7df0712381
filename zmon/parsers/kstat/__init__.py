"""Parsers for ZFS kstats (Linux /proc/spl/kstat, FreeBSD sysctl) and module parameters."""
