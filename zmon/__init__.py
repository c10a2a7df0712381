"""zmon: health monitor and Prometheus exporter for ZFS hosts."""

__version__ = "0.1.0"
