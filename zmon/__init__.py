"""zmon: health monitor and Prometheus exporter for ZFS hosts.

The folders of this package are its layers, from the ground up. A module imports modules of
its own folder or of a folder lower in ``LAYERS``, never of a higher one; the modules at the
top of the package (the ``zmon`` command, the daemon, ``zmon status``) stand above them all.
``tests/core/test_layers.py`` holds the code to this order.
"""

__version__ = "0.1.0"

LAYERS = (
    "base",  # errors, logging, child processes, the command runner, durable state files
    "parsers",  # bytes -> typed records, one folder per source; the standard library only
    "exposition",  # metric families, their text formats, the snapshot /metrics serves
    "host",  # devices and their names, log and event following, state files, UPS clients
    "collecting",  # the collector interface and registry, the scheduler, the config
    "collectors",  # one package per collector; none imports another
    "health",  # each health condition declared once: rules, `zmon status` and the page
    "status",  # the views of a host: the status page, `zmon status`, the report
    "web",  # the HTTP side: /metrics, the status page, TLS and auth
    "demo",  # the demo host, replayed from real captures
    "runtime",  # the processes: main, collection worker, HTTP process, and their channel
)
