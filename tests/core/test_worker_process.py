"""What the collection worker's process imports: the collectors, not the HTTP side."""

from __future__ import annotations

import subprocess
import sys

# the HTTP process's code: the server, its parser, basic auth, the status pages
HTTP_MODULES = (
    "uvicorn",
    "httptools",
    "bcrypt",
    "zmon.web.server",
    "zmon.web.webapp",
    "zmon.runtime.front",
)


def test_the_worker_carries_no_http_code() -> None:
    """The worker's module with every collector and their parsers imports neither the HTTP
    server nor basic auth nor the status pages: each module is memory the worker holds on
    its own (a replacement worker is started with exec, and shares no pages with the other
    two processes)."""
    script = (
        "import sys\n"
        "import zmon.runtime.worker\n"
        "from zmon.collecting.registry import collectors\n"
        "collectors()\n"
        "print(' '.join(sorted(sys.modules)))\n"
    )
    modules = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    ).stdout.split()
    held = [m for m in modules if m.startswith((*HTTP_MODULES, "zmon.status"))]
    assert held == []
