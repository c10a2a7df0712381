"""What the followers share (zmon.host.follow): lines, backoff, positions, the source program."""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.support.clock import FakeClock
from tests.support.waiting import wait_for
from zmon.base.children import running
from zmon.host.follow import Follower, LineBuffer, ProcessFollower, RestartBackoff, SourceProgram


def test_line_buffer_holds_a_partial_line_until_its_newline() -> None:
    lines = LineBuffer()
    assert lines.feed(b"ab\ncd") == b"ab\n"
    assert lines.feed(b"e") == b""
    assert lines.lines(b"f\n\ng\nh") == [b"cdef", b"", b"g"]
    assert lines.flush() == b"h"
    assert lines.flush() == b""


def test_line_buffer_delivers_a_line_past_its_bound_in_pieces() -> None:
    lines = LineBuffer(max_line=8)
    assert lines.feed(b"0123") == b""
    assert lines.feed(b"456789") == b"0123456789"  # no newline, at the bound: as it is
    assert lines.feed(b"ab\n" + b"x" * 20) == b"ab\n"  # a newline: the rest is held
    assert lines.feed(b"y") == b"x" * 20 + b"y"
    assert LineBuffer().feed(b"z" * 100_000) == b""  # unbounded: held whatever its length


def test_backoff_doubles_up_to_its_maximum_and_resets_after_a_long_run() -> None:
    clock = FakeClock()
    backoff = RestartBackoff(1.0, 8.0, clock)
    delays = []
    for _ in range(5):
        backoff.started()
        clock.now += 0.5
        delays.append(backoff.ended())
    assert delays == [1.0, 2.0, 4.0, 8.0, 8.0]
    backoff.started()
    clock.now += 8.5  # a run longer than the maximum: it was healthy
    assert backoff.ended() == 1.0
    fixed = RestartBackoff(5.0, 5.0, clock)
    assert [fixed.ended() for _ in range(3)] == [5.0, 5.0, 5.0]


class Store:
    """A PositionStore that counts writes and fails them on demand."""

    def __init__(self, saved: dict[str, Any] | None = None) -> None:
        self.saved = {"pos": saved} if saved is not None else {}
        self.writes = 0
        self.broken = False

    def load(self, key: str) -> dict[str, Any] | None:
        return self.saved.get(key)

    def save(self, key: str, value: dict[str, Any]) -> None:
        if self.broken:
            raise OSError(28, "No space left on device")
        self.writes += 1
        self.saved[key] = value


class Counting(Follower):
    """A follower whose position is the number of polls."""

    def __init__(self, store: Store) -> None:
        super().__init__(store, "pos", where="/dev/test")
        saved = self._load_position()
        self.polls = saved["polls"] if saved else 0

    def poll(self) -> int:
        self._save_position({"polls": self.polls})
        return 0


def test_a_follower_writes_its_position_only_when_it_moved() -> None:
    store = Store({"polls": 3})
    follower = Counting(store)
    assert follower.polls == 3
    follower.poll()
    assert store.writes == 0  # the loaded position is the written one
    follower.polls += 1
    follower.poll()
    follower.poll()
    assert store.writes == 1 and store.saved["pos"] == {"polls": 4}


def test_a_failed_position_write_is_a_read_error_and_is_tried_again() -> None:
    store = Store()
    follower = Counting(store)
    store.broken = True
    follower.poll()
    assert follower.read_errors == 1
    assert follower.last_error == "/dev/test: No space left on device"
    store.broken = False
    follower.poll()
    assert store.writes == 1 and follower.read_errors == 1


def script(tmp_path: Path, body: str, name: str = "source") -> Path:
    path = tmp_path / name
    path.write_text(f"#!{sys.executable}\nimport os, subprocess, sys, time\n{body}")
    path.chmod(0o755)
    return path


def program(argv: list[str], clock: FakeClock | None = None) -> SourceProgram:
    return SourceProgram(lambda: argv, RestartBackoff(2.0, 2.0, clock or FakeClock()))


def test_a_missing_program_is_told_from_one_that_cannot_start(tmp_path: Path) -> None:
    clock = FakeClock()
    missing = program([str(tmp_path / "absent")], clock)
    assert not missing.launch()
    assert missing.binary_missing and isinstance(missing.start_error, FileNotFoundError)
    assert missing.retry_at == clock.now + 2.0 and not missing.launched
    unusable = tmp_path / "not-executable"
    unusable.write_text("")
    refused = program([str(unusable)])
    assert not refused.launch()
    assert not refused.binary_missing and isinstance(refused.start_error, PermissionError)


def test_a_run_is_read_to_its_end_and_its_exit_and_last_stderr_line_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LANGUAGE", "de")
    source = script(
        tmp_path,
        'print(os.environ["LC_ALL"], os.environ["SYSTEMD_PAGER"] == "", "LANGUAGE" in os.environ)\n'
        'sys.stderr.write("first\\nlast words\\n")\n'
        "sys.exit(3)\n",
    )
    run = SourceProgram(
        lambda: [str(source)], RestartBackoff(1.0, 1.0, FakeClock()), env={"SYSTEMD_PAGER": ""}
    )
    assert run.launch() and run.up and run.starts == 1
    out = b""
    while data := run.read(4096):
        out += data
    run.finish()
    assert out == b"C True False\n"
    assert (run.up, run.launched, run.last_exit, run.last_stderr) == (False, False, 3, "last words")
    assert run.retry_in == 1.0


def test_terminate_ends_the_program_and_all_it_started(tmp_path: Path) -> None:
    source = script(
        tmp_path,
        'child = subprocess.Popen(["sleep", "3600"])\n'
        "print(child.pid, flush=True)\n"
        "time.sleep(3600)\n",
    )
    run = program([str(source)])
    assert run.launch()
    grandchild = int(run.read(4096))
    run.terminate(grace=5.0)
    run.finish()
    assert run.last_exit is not None and run.last_exit < 0
    wait_for(lambda: not running(grandchild))
    assert run.launch()  # ended for good: a run started after is killed at once
    assert run.read(4096) == b""
    run.finish()
    assert run.last_exit == -9


def test_process_follower_hands_over_lines_whatever_the_writes(tmp_path: Path) -> None:
    source = script(
        tmp_path,
        'for piece in ["one\\ntw", "o\\nthr", "ee"]:\n'
        "    sys.stdout.write(piece)\n"
        "    sys.stdout.flush()\n",
        name="pieces",
    )
    lines: list[str] = []
    exited = threading.Event()
    follower = ProcessFollower(
        [str(source)], lines.append, on_exit=exited.set, backoff_initial=3600, backoff_max=3600
    )
    follower.start()
    try:
        assert exited.wait(30)
        assert lines == ["one\n", "two\n", "three"]  # the partial last line, at the end
        assert not follower.up and follower.last_exit == 0 and follower.restarts == 0
    finally:
        follower.stop()


def test_a_failing_callback_ends_the_run_and_the_follower_starts_another(
    tmp_path: Path,
) -> None:
    source = script(tmp_path, "print(os.getpid(), flush=True)\ntime.sleep(3600)\n")
    pids: list[int] = []
    exits = threading.Semaphore(0)

    def on_line(line: str) -> None:
        pids.append(int(line))
        if len(pids) == 1:
            raise ValueError("a bug in the callback")

    follower = ProcessFollower(
        [str(source)], on_line, on_exit=exits.release, backoff_initial=0.01, backoff_max=0.01
    )
    follower.start()
    try:
        wait_for(lambda: len(pids) == 2)
        assert exits.acquire(timeout=30)
        assert not running(pids[0]) and follower.restarts == 1 and follower.up
    finally:
        follower.stop()
    assert not running(pids[1])
