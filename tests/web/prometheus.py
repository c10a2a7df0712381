"""A real Prometheus on a free loopback port, scraping what a test names."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.helpers import require_tool
from tests.support.ports import free_port


def start_prometheus(tmp: Path, scrape_configs: str) -> tuple[subprocess.Popen[bytes], int]:
    """Prometheus scraping every second with ``scrape_configs`` (the YAML list's items), its
    data and log under ``tmp``; the process (its own session: stop it with
    ``stop_process_group``) and its port."""
    binary = require_tool("prometheus", "scrapes zmon")
    config = tmp / "prometheus.yml"
    config.write_text(f"global:\n  scrape_interval: 1s\nscrape_configs:\n{scrape_configs}")
    port = free_port()
    with (tmp / "prometheus.log").open("wb") as log:
        proc = subprocess.Popen(
            [
                binary,
                f"--config.file={config}",
                f"--storage.tsdb.path={tmp / 'data'}",
                f"--web.listen-address=127.0.0.1:{port}",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    return proc, port
