"""FileFollower on real files: rotation, truncation, disappearance and restarts."""

from __future__ import annotations

import gzip
import os
import shutil
from pathlib import Path

import pytest

from tests.support.clock import FakeClock
from zmon.host.logfollow import FileFollower
from zmon.host.statestore import StateStore


class Reader:
    """A follower plus everything it delivered, line by line."""

    def __init__(
        self, path: Path, state: Path | None = None, clock: FakeClock | None = None
    ) -> None:
        self.lines: list[str] = []
        self.clock = clock or FakeClock()
        self.store = StateStore(state) if state is not None else None
        if self.store is not None:
            self.store.directory.mkdir(exist_ok=True)
        self.follower = FileFollower(
            path, self._sink, store=self.store, key="log", retire_after=5.0, clock=self.clock
        )

    def _sink(self, text: str) -> None:
        assert text.endswith("\n")
        self.lines.extend(text.splitlines())

    def poll(self) -> list[str]:
        before = len(self.lines)
        self.follower.poll()
        return self.lines[before:]


def append(path: Path, *lines: str, end: str = "\n") -> None:
    with open(path, "a") as fh:
        fh.write("".join(line + end for line in lines))


def lines(prefix: str, n: int) -> list[str]:
    return [f"{prefix} {i}" for i in range(n)]


@pytest.fixture
def log(tmp_path: Path) -> Path:
    path = tmp_path / "kern.log"
    append(path, "old 1", "old 2")
    return path


def test_starts_at_the_end_then_follows(log: Path) -> None:
    r = Reader(log)
    assert r.poll() == []
    append(log, "new 1", "new 2")
    assert r.poll() == ["new 1", "new 2"]
    assert r.poll() == []


def test_starting_in_the_middle_of_a_partial_line_skips_all_of_it(log: Path) -> None:
    append(log, "half", end="")
    r = Reader(log)
    r.poll()
    append(log, " line", "next")
    assert r.poll() == ["half line", "next"]  # the partial last line belongs to what follows


def test_partial_line_is_held_until_complete(log: Path) -> None:
    r = Reader(log)
    r.poll()
    append(log, "ata3: hard res", end="")
    assert r.poll() == []
    append(log, "etting link")
    assert r.poll() == ["ata3: hard resetting link"]


def test_file_created_after_start_is_read_from_its_beginning(tmp_path: Path) -> None:
    path = tmp_path / "messages"
    r = Reader(path)
    assert r.poll() == []
    append(path, "first", "second")
    assert r.poll() == ["first", "second"]
    assert not r.follower.read_errors


def test_rotation_by_rename_keeps_the_unread_lines_of_the_old_file(log: Path) -> None:
    r = Reader(log)
    r.poll()
    append(log, "a1", "a2")
    r.poll()
    append(log, "unread 1", "unread 2")
    log.rename(log.with_name("kern.log.1"))
    append(log, "b1")
    assert r.poll() == ["unread 1", "unread 2", "b1"]
    # the writer had the old file open and adds one more line before it reopens
    append(log.with_name("kern.log.1"), "late to old")
    append(log, "b2")
    assert r.poll() == ["late to old", "b2"]
    r.clock.now += 10  # the old file stopped growing: it is let go
    assert r.poll() == []
    assert len(r.follower._retired) == 0


def test_rotated_file_with_partial_last_line_is_completed(log: Path) -> None:
    r = Reader(log)
    r.poll()
    append(log, "no newline at the end", end="")
    log.rename(log.with_name("kern.log.1"))
    append(log, "new")
    assert r.poll() == ["new"]
    r.clock.now += 10
    assert r.poll() == ["no newline at the end"]


def test_copytruncate_recovers_unread_lines_from_the_copy(log: Path) -> None:
    r = Reader(log)
    r.poll()
    append(log, "read")
    assert r.poll() == ["read"]
    append(log, "unread 1", "unread 2")
    shutil.copyfile(log, log.with_name("kern.log.1"))
    with open(log, "r+") as fh:
        fh.truncate(0)
    append(log, "after")
    assert r.poll() == ["unread 1", "unread 2", "after"]
    append(log, "more")
    assert r.poll() == ["more"]


def test_copytruncate_to_a_gzipped_copy(log: Path) -> None:
    r = Reader(log)
    r.poll()
    append(log, "unread")
    with open(log, "rb") as src, gzip.open(log.with_name("kern.log.1.gz"), "wb") as dst:
        shutil.copyfileobj(src, dst)
    with open(log, "r+") as fh:
        fh.truncate(0)
    assert r.poll() == ["unread"]


def test_truncation_refilled_beyond_the_old_offset_is_noticed(log: Path) -> None:
    r = Reader(log)
    r.poll()
    append(log, "x")
    r.poll()
    with open(log, "w") as fh:  # truncate and write more than was there before
        fh.write("".join(f"rewritten {i}\n" for i in range(5)))
    assert r.poll() == [f"rewritten {i}" for i in range(5)]


def test_plain_truncation_starts_over(log: Path) -> None:
    r = Reader(log)
    r.poll()
    with open(log, "r+") as fh:
        fh.truncate(0)
    assert r.poll() == []
    append(log, "fresh")
    assert r.poll() == ["fresh"]


def test_delete_and_recreate(log: Path) -> None:
    r = Reader(log)
    r.poll()
    append(log, "before delete")
    log.unlink()
    assert r.poll() == ["before delete"]
    assert not r.follower.is_open
    append(log, "recreated")
    assert r.poll() == ["recreated"]
    assert r.follower.is_open


def test_disappears_for_a_long_time_and_reappears(log: Path) -> None:
    r = Reader(log)
    r.poll()
    log.unlink()
    r.poll()
    r.clock.now += 60
    assert r.poll() == []
    assert r.follower._cur is None  # the deleted file is no longer held open
    append(log, "back")
    assert r.poll() == ["back"]


def test_long_line_without_newline_is_delivered_in_pieces(tmp_path: Path) -> None:
    path = tmp_path / "log"
    path.write_text("")
    got: list[str] = []
    f = FileFollower(path, got.append, max_line=1024, chunk_size=1024)
    f.poll()
    append(path, "x" * 3000, end="")
    f.poll()
    assert [len(t) for t in got] == [1025, 1025]  # two full pieces, the rest held


# ---- restarts


def test_restart_resumes_without_loss_or_double_count(log: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    r1 = Reader(log, state)
    r1.poll()
    append(log, "seen by first")
    assert r1.poll() == ["seen by first"]
    r1.follower.close()
    append(log, "written while stopped 1", "written while stopped 2")
    r2 = Reader(log, state)
    assert r2.poll() == ["written while stopped 1", "written while stopped 2"]
    append(log, "live")
    assert r2.poll() == ["live"]


def test_restart_keeps_a_held_partial_line(log: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    r1 = Reader(log, state)
    r1.poll()
    append(log, "half", end="")
    r1.poll()
    r1.follower.close()
    append(log, " done")
    assert Reader(log, state).poll() == ["half done"]


def test_restart_after_rename_rotation_while_stopped(log: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    r1 = Reader(log, state)
    r1.poll()
    append(log, "seen")
    r1.poll()
    r1.follower.close()
    append(log, "unread in old")
    log.rename(log.with_name("kern.log.1"))
    append(log, "in new")
    assert Reader(log, state).poll() == ["unread in old", "in new"]


def test_restart_after_copytruncate_while_stopped(log: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    r1 = Reader(log, state)
    r1.poll()
    append(log, "seen")
    r1.poll()
    r1.follower.close()
    append(log, "unread before copy")
    shutil.copyfile(log, log.with_name("kern.log.1"))
    with open(log, "r+") as fh:
        fh.truncate(0)
    append(log, "after truncate")
    assert Reader(log, state).poll() == ["unread before copy", "after truncate"]


def test_restart_after_delete_and_recreate_with_reused_inode(log: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    r1 = Reader(log, state)
    r1.poll()
    r1.follower.close()
    log.unlink()
    append(log, "brand new file")  # ext4 and tmpfs often hand out the same inode again
    r2 = Reader(log, state)
    assert r2.poll() == ["brand new file"]  # same inode or not, the head hash tells them apart


def test_state_file_is_written_atomically(log: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    r = Reader(log, state)
    r.poll()
    files = sorted(p.name for p in state.iterdir())
    assert files == ["log.json"]  # no temporary file left behind
    saved = r.store.load("log") if r.store else None
    assert saved is not None and saved["offset"] == log.stat().st_size
    assert saved["ino"] == log.stat().st_ino


def test_state_store_lock_is_exclusive(tmp_path: Path) -> None:
    first = StateStore.open_locked(tmp_path / "s")
    assert first is not None
    assert StateStore.open_locked(tmp_path / "s") is None  # a second owner is refused
    first.close()
    again = StateStore.open_locked(tmp_path / "s")
    assert again is not None
    again.close()


def test_unwritable_state_dir_gives_no_store(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert StateStore.open_locked(blocker / "sub") is None


def test_corrupt_state_file_starts_at_the_end(log: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / "log.json").write_text("{not json")
    r = Reader(log, state)
    assert r.poll() == []
    append(log, "new")
    assert r.poll() == ["new"]


def test_read_failure_counts_a_read_error(tmp_path: Path) -> None:
    path = tmp_path / "kern.log"
    path.mkdir()  # opens, but reading fails with EISDIR
    r = Reader(path)
    r.poll()
    assert r.follower.read_errors == 1
    assert "kern.log" in (r.follower.last_error or "")


# ---- randomized: many rotations, restarts and partial lines; every line exactly once


@pytest.mark.parametrize("seed", range(int(os.environ.get("ZMON_FOLLOW_SEEDS", "12"))))
def test_random_rotations_and_restarts_lose_and_double_nothing(tmp_path: Path, seed: int) -> None:
    import random

    rng = random.Random(seed)
    log = tmp_path / "kern.log"
    log.write_text("before start\n")
    state = tmp_path / "state"
    clock = FakeClock()
    delivered: list[str] = []
    reader = Reader(log, state, clock)
    reader.lines = delivered
    reader.poll()
    written: list[str] = []
    counter = 0
    rotated_since_poll = False

    def rotate(stopped: bool = False) -> None:
        how = rng.choice(["rename", "copytruncate", "copytruncate-gz", "delete"])
        old = log.with_name("kern.log.1")
        for stale in (old, log.with_name("kern.log.1.gz")):
            stale.unlink(missing_ok=True)
        if how == "rename":
            log.rename(old)
            log.write_text("")
        elif how.startswith("copytruncate"):
            cur = reader.follower._cur
            if not stopped and (cur is None or cur.seen == 0):
                reader.poll()  # documented limit: a file must have been seen before its copy
            if how.endswith("gz"):
                with open(log, "rb") as src, gzip.open(str(old) + ".gz", "wb") as dst:
                    shutil.copyfileobj(src, dst)
            else:
                shutil.copyfile(log, old)
            with open(log, "r+") as fh:
                fh.truncate(0)
        else:  # delete and re-create: the open descriptor still reads the old file
            log.unlink()
            log.write_text("")

    for _ in range(60):
        op = rng.choice(
            ["append", "append", "append", "partial", "poll", "poll", "rotate", "restart", "tick"]
        )
        if op == "append":
            new = [f"{rng.getrandbits(32):08x} {counter + i}" for i in range(rng.randint(1, 5))]
            counter += len(new)
            append(log, *new)
            written.extend(new)
        elif op == "partial":
            text = f"{rng.getrandbits(32):08x} {counter}"  # lines differ early, as timestamps do
            counter += 1
            cut = rng.randint(1, len(text) - 1)
            append(log, text[:cut], end="")
            if rng.random() < 0.5:
                reader.poll()
            append(log, text[cut:])
            written.append(text)
        elif op == "poll":
            reader.poll()
            rotated_since_poll = False
        elif op == "tick":
            clock.now += rng.choice([1, 20])
            reader.poll()
            rotated_since_poll = False
        elif op == "rotate" and not rotated_since_poll:
            rotated_since_poll = True
            rotate()
        elif op == "restart" and not rotated_since_poll:
            if rng.random() < 0.5:
                reader.poll()
                reader.follower.close()
                rotate(stopped=True)
            else:
                reader.follower.close()
            reader = Reader(log, state, clock)
            reader.lines = delivered
            reader.poll()
    clock.now += 100
    reader.poll()
    reader.follower.close()
    assert delivered == written


def test_a_position_is_saved_only_after_its_lines_were_delivered(tmp_path: Path) -> None:
    """What makes a kill -9 at any moment lose nothing: whenever lines are handed over to be
    counted, the saved position is still at or before their start, so a zmon killed during
    the hand-over (or before its next save) reads them again after the restart."""
    path = tmp_path / "kern.log"
    path.write_text("")
    store = StateStore(tmp_path / "state")
    store.directory.mkdir()
    delivered = 0
    checked = 0

    def sink(text: str) -> None:
        nonlocal delivered, checked
        saved = store.load("log")
        assert saved is None or int(saved["offset"]) <= delivered, (saved, delivered)
        delivered += len(text.encode())
        checked += 1

    follower = FileFollower(path, sink, store=store, key="log", chunk_size=64, max_line=64)
    follower.poll()
    for batch in range(20):
        append(path, *lines(f"batch {batch}", 1 + batch))
        follower.poll()
    assert checked > 20  # small chunks: several hand-overs per poll
    assert int((store.load("log") or {})["offset"]) == delivered == path.stat().st_size


def test_a_position_saved_without_fingerprint_and_copies_still_resumes(
    log: Path, tmp_path: Path
) -> None:
    """A position from before the copies were remembered: found by inode and first bytes."""
    import hashlib

    state = tmp_path / "state"
    state.mkdir()
    data = log.read_bytes()
    old = {"path": str(log), "ino": log.stat().st_ino, "offset": len(data),
           "head_len": len(data), "head_sha": hashlib.sha256(data).hexdigest(),
           "seen": len(data)}  # fmt: skip
    StateStore(state).save("log", old)
    append(log, "unread in old")
    log.rename(log.with_name("kern.log.1"))
    append(log, "in new")
    r = Reader(log, state)
    assert r.poll() == ["unread in old", "in new"]
    assert r.follower.read_errors == 0
