"""Wake a follower loop when a log's directory changes, and the loop that polls followers."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from watchdog.observers.api import BaseObserver


class ChangeWatcher:
    """Wakes the follower loop when a watched file's directory changes (watchdog/inotify).

    If watchdog cannot watch (no inotify, limits reached, directory missing) the loop just polls.
    """

    def __init__(self, files: Iterable[Path], wake: threading.Event) -> None:
        self.files = [Path(f) for f in files]
        self.wake = wake
        self.active = False
        self._observer: BaseObserver | None = None

    def start(self) -> bool:
        try:
            from watchdog.events import FileSystemEvent, FileSystemEventHandler
            from watchdog.observers import Observer
        except ImportError:
            return False
        names = tuple(f.name for f in self.files)
        wake = self.wake

        class _Handler(FileSystemEventHandler):
            def on_any_event(self, event: FileSystemEvent) -> None:
                for p in (event.src_path, getattr(event, "dest_path", "")):
                    base = os.path.basename(os.fsdecode(p)) if p else ""
                    if base.startswith(names):
                        wake.set()
                        return

        try:
            observer = Observer()
            for d in sorted({f.parent for f in self.files}):
                if d.is_dir():
                    observer.schedule(_Handler(), str(d), recursive=False)
            observer.daemon = True
            observer.start()
        except Exception:  # noqa: BLE001 - inotify limits and the like: fall back to polling
            return False
        self._observer, self.active = observer, True
        return True

    def stop(self) -> None:
        observer = self._observer
        if observer is not None:
            observer.stop()
            observer.join(2.0)
        self._observer, self.active = None, False


class PollLoop:
    """Runs ``step()`` in a daemon thread: after a wake-up, or every ``interval`` seconds, or
    sooner when ``step()`` returns the number of seconds after which it wants to run again."""

    def __init__(
        self,
        step: Callable[[], float | None],
        interval: float,
        name: str,
        wake: threading.Event | None = None,
        on_error: Callable[[Exception], None] | None = None,
        batch_delay: float = 0.05,
    ) -> None:
        self.step = step
        self.interval = interval
        self.wake = wake or threading.Event()
        self.on_error = on_error
        self.batch_delay = batch_delay
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self.wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def _run(self) -> None:
        while not self._stop.is_set():
            again = None
            try:
                again = self.step()
            except Exception as exc:  # noqa: BLE001 - keep following whatever one step did
                if self.on_error is not None:
                    self.on_error(exc)
            self.wake.wait(self.interval if again is None else min(self.interval, again))
            self.wake.clear()
            self._stop.wait(self.batch_delay)  # let a burst of writes land in one read
