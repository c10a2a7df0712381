"""Lab fixtures: the live runs of all selected OpenZFS versions and sequences (the fault
sequence, the lead-time ramp, the slowdown phases), started together.

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
from tests.lab.leadtime import LEAD_TIME
from tests.lab.session import FAULTS, LabRun, Sequence, run_lab
from tests.lab.slowdown import SLOWDOWN

# test function -> the sequence its runs walk, and the prefix of their run directories
SEQUENCES = {"test_live": (FAULTS, ""), "test_lead_time": (LEAD_TIME, "leadtime-"),
             "test_slowdown": (SLOWDOWN, "slowdown-")}  # fmt: skip
Key = tuple[str, str]  # (test function, OpenZFS version)


class LabRuns:
    """Starts every selected run on first use; tests collect their own result."""

    def __init__(self, wanted: list[Key], base: Path) -> None:
        self.wanted = wanted
        self.base = base
        self.messages: queue.Queue[str] = queue.Queue()
        self.results: dict[Key, LabRun | BaseException] = {}
        self.done = {k: threading.Event() for k in wanted}
        self.slots = threading.Semaphore(max(1, int(os.environ.get("ZMON_LAB_PARALLEL", "2"))))
        self.started = False
        self.manifest: Manifest | None = None

    def progress(self, msg: str) -> None:
        self.messages.put(f"[lab {time.strftime('%H:%M:%S')}] {msg}")

    def _run(self, key: Key) -> None:
        test, version = key
        sequence, prefix = SEQUENCES[test]
        with self.slots:
            try:
                stamp = time.strftime("%Y%m%d-%H%M%S")
                self.results[key] = run_lab(
                    version,
                    self.base / f"{prefix}{version}-{stamp}",
                    sequence=sequence,
                    manifest=self.manifest,
                    progress=self.progress,
                )
            except BaseException as exc:  # noqa: BLE001 - handed to the test that waits
                self.results[key] = exc
            finally:
                self.done[key].set()

    def start(self, manifest: Manifest) -> None:
        if self.started:
            return
        self.started = True
        self.manifest = manifest
        for key in self.wanted:
            name = f"lab-{SEQUENCES[key[0]][1]}{key[1]}"
            threading.Thread(target=self._run, args=(key,), name=name, daemon=True).start()

    def wait(self, sequence: Sequence, version: str, show: Callable[[str], None]) -> LabRun:
        test = next(t for t, (s, _) in SEQUENCES.items() if s is sequence)
        key = (test, version)
        if key not in self.done:  # selected after the fact: run it alone
            self.wanted.append(key)
            self.done[key] = threading.Event()
            threading.Thread(target=self._run, args=(key,), daemon=True).start()
        while not self.done[key].wait(1.0):
            self._drain(show)
        self._drain(show)
        result = self.results[key]
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
        (item.originalname, item.callspec.params["version"])
        for item in request.session.items
        if item.originalname in SEQUENCES and hasattr(item, "callspec")
    ]
    base = os.environ.get("ZMON_LAB_RUN_DIR")
    install_reaper()
    yield LabRuns(
        list(dict.fromkeys(selected)), Path(base) if base else tmp_path_factory.mktemp("lab")
    )
