"""Lab fixtures: the live runs of all selected OpenZFS versions, started together.

Most of a run is the host waiting for the guest (TCG) and for zmon's next collection, so on
a 2-core machine two VMs side by side take far less than two runs one after the other.
ZMON_LAB_PARALLEL (default 2) caps how many VMs run at once.
"""

from __future__ import annotations

import os
import queue
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.lab.labvm import Manifest, install_reaper
from tests.lab.session import LabRun, run_lab


class LabRuns:
    """Starts every selected version's run on first use; tests collect their own result."""

    def __init__(self, versions: list[str], base: Path) -> None:
        self.versions = versions
        self.base = base
        self.messages: queue.Queue[str] = queue.Queue()
        self.results: dict[str, LabRun | BaseException] = {}
        self.done = {v: threading.Event() for v in versions}
        self.slots = threading.Semaphore(max(1, int(os.environ.get("ZMON_LAB_PARALLEL", "2"))))
        self.started = False
        self.manifest: Manifest | None = None

    def progress(self, msg: str) -> None:
        self.messages.put(f"[lab {time.strftime('%H:%M:%S')}] {msg}")

    def _run(self, version: str) -> None:
        with self.slots:
            try:
                stamp = time.strftime("%Y%m%d-%H%M%S")
                self.results[version] = run_lab(
                    version,
                    self.base / f"{version}-{stamp}",
                    manifest=self.manifest,
                    progress=self.progress,
                )
            except BaseException as exc:  # noqa: BLE001 - handed to the test that waits
                self.results[version] = exc
            finally:
                self.done[version].set()

    def start(self, manifest: Manifest) -> None:
        if self.started:
            return
        self.started = True
        self.manifest = manifest
        for v in self.versions:
            threading.Thread(target=self._run, args=(v,), name=f"lab-{v}", daemon=True).start()

    def wait(self, version: str, show: Callable[[str], None]) -> LabRun:
        if version not in self.done:  # selected after the fact: run it alone
            self.versions.append(version)
            self.done[version] = threading.Event()
            threading.Thread(target=self._run, args=(version,), daemon=True).start()
        while not self.done[version].wait(1.0):
            self._drain(show)
        self._drain(show)
        result = self.results[version]
        if isinstance(result, BaseException):
            raise result
        return result

    def _drain(self, show: Callable[[str], None]) -> None:
        while True:
            try:
                show(self.messages.get_nowait())
            except queue.Empty:
                return


@pytest.fixture(scope="session")
def lab_runs(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[LabRuns]:
    selected = [
        item.callspec.params["version"]
        for item in request.session.items
        if item.originalname == "test_live" and hasattr(item, "callspec")
    ]
    base = os.environ.get("ZMON_LAB_RUN_DIR")
    install_reaper()
    yield LabRuns(
        list(dict.fromkeys(selected)), Path(base) if base else tmp_path_factory.mktemp("lab")
    )
