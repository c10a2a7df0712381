"""A real headless Chromium loads the status page of the demo host (real tier).

The demo story is stepped on an explicit clock into the daemon's own snapshot and server hook
(zmon/web/server.py -> zmon/status/page.py), so the page has an hour of history and the
problems of the resilvering phase. Chromium dumps the DOM after load and takes a screenshot;
the test reads the pool tree and the diagnosis lines from the DOM and the state colours
from the screenshot's pixels. The screenshot is kept as a test artifact (its path is printed;
``ZMON_TEST_ARTIFACTS`` chooses the folder, default ``build/test-artifacts``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import require_tool, stop_process_group
from tests.status.demo_story import walk
from zmon.exposition.snapshot import CollectorState, Snapshot
from zmon.web.server import HTTPFrontend, make_app

ROOT = Path(__file__).resolve().parents[2]
UP_TO = "resilvering-later"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--window-size=1000,3000")  # fmt: skip
# state colours of zmon/status/page.py's stylesheet (critical, warning, ok)
RED, AMBER, GREEN = (0xB0, 0x00, 0x20), (0xD9, 0x9A, 0x00), (0x17, 0x66, 0x17)


def _chromium(args: list[str], timeout: float = 90.0) -> bytes:
    binary = require_tool("chromium", "the status page in a real browser")
    with tempfile.TemporaryDirectory(prefix="zmon-chromium-") as profile:
        proc = subprocess.Popen(
            [binary, *FLAGS, f"--user-data-dir={profile}", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            out, _ = proc.communicate(timeout=timeout)
        finally:
            stop_process_group(proc, grace=5)
    assert proc.returncode == 0, f"chromium exited with {proc.returncode}"
    return out


@pytest.fixture(scope="module")
def page_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The daemon's page for the demo host, stepped to the resilvering phase."""
    mp = pytest.MonkeyPatch()
    snapshot = Snapshot()
    app = make_app(snapshot, lambda: True, "demo")  # registers the page's history sampler
    server = None
    try:
        for cap in walk(tmp_path_factory.mktemp("demo"), mp):
            for name, fams in cap.by_collector.items():
                state = snapshot.state(name) or CollectorState(name, 15.0, 10.0)
                state.publish(fams)
                state.success, state.has_data, state.last_success = True, True, cap.now
                snapshot.add(state)
            snapshot.rerender()
            if cap.name == UP_TO:
                server = HTTPFrontend(lambda web: app)
                server.serve(["127.0.0.1:0"])
                yield f"http://127.0.0.1:{server.port}/"
                break
    finally:
        if server is not None:
            server.stop()
        mp.undo()


@pytest.mark.real
def test_chromium_renders_pool_tree_diagnoses_and_state_colours(page_url: str) -> None:
    dom = _chromium(["--dump-dom", page_url]).decode()
    # the pool tree of tank, with the disk being replaced and the replacement
    assert 'id="tree-tank"' in dom
    for vdev in (
        "mirror-0",
        "replacing-1",
        "ata-QEMU_HARDDISK_ZLSATA1",
        "nvme-QEMU_NVMe_Ctrl_ZLNVME0",
    ):
        assert f"{vdev}</td>" in dom or f"{vdev} (" in dom, vdev
    # the diagnosis lines, with their runbook links
    # sda holds the only good copy while sdb is replaced; sdb, leaving, gets no cable advice
    assert 'class="finding sev-critical"' in dom
    assert "sda (serial ZLSATA0, ata1, mirror-0 of tank)</b>: 8 sectors pending" in dom
    assert "do not pull it or take it offline; let the resilver finish" in dom
    assert "suspect cable or port" not in dom
    assert "RUNBOOK.md#zfspooldataerrors" in dom
    # the last hour: scan progress and ARC charts drawn as inline SVG
    assert dom.count('<svg class="spark"') >= 3
    assert "scan of tank" in dom and "ARC hit ratio" in dom


@pytest.mark.real
def test_chromium_screenshot_shows_the_state_colours(page_url: str) -> None:
    from PIL import Image

    folder = Path(os.environ.get("ZMON_TEST_ARTIFACTS", ROOT / "build" / "test-artifacts"))
    folder.mkdir(parents=True, exist_ok=True)
    shot = folder / "status-page-demo.png"
    shot.unlink(missing_ok=True)
    _chromium([f"--screenshot={shot}", page_url])
    print(f"\nstatus page screenshot: {shot}", file=sys.__stdout__, flush=True)
    image = Image.open(shot).convert("RGB")
    counts = {colour: 0 for colour in (RED, AMBER, GREEN)}
    for n, pixel in image.getcolors(maxcolors=1 << 24) or []:
        for colour in counts:
            if all(abs(a - b) <= 12 for a, b in zip(pixel, colour, strict=True)):
                counts[colour] += n
    # finding bars (critical red, warning amber) and healthy states in green
    assert counts[RED] > 200 and counts[AMBER] > 200 and counts[GREEN] > 50, counts
