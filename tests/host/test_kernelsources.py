"""The /dev/kmsg and journalctl followers, on a plain file and a stand-in journalctl."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from zmon.host.kernelsources import JournalFollower, KmsgFollower
from zmon.host.statestore import StateStore


def kmsg_record(seq: int, message: str) -> str:
    return f"6,{seq},{seq * 1000},-;{message}\n SUBSYSTEM=scsi\n DEVICE=+scsi:2:0:0:0\n"


def write(path: Path, *records: str) -> None:
    with open(path, "a") as fh:
        fh.write("".join(records))


class Sink:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def __call__(self, text: str) -> None:
        assert text.endswith("\n")
        self.lines.extend(text.splitlines())


def test_kmsg_starts_at_the_end_and_strips_record_headers(tmp_path: Path) -> None:
    kmsg = tmp_path / "kmsg"
    write(kmsg, kmsg_record(1, "booting"))
    sink = Sink()
    f = KmsgFollower(kmsg, sink, boot_id="b1")
    assert f.poll() == 0
    write(kmsg, kmsg_record(2, "ata3: hard resetting link"), kmsg_record(3, "x;y"))
    assert f.poll() == 2
    assert sink.lines == ["ata3: hard resetting link", "x;y"]
    assert f.is_open


def test_kmsg_resumes_after_the_saved_sequence_in_the_same_boot(tmp_path: Path) -> None:
    kmsg = tmp_path / "kmsg"
    store = StateStore(tmp_path)
    write(kmsg, kmsg_record(1, "old"))
    first = Sink()
    f1 = KmsgFollower(kmsg, first, store=store, boot_id="b1")
    f1.poll()
    write(kmsg, kmsg_record(2, "seen"))
    f1.poll()
    f1.close()
    write(kmsg, kmsg_record(3, "while stopped"))
    second = Sink()
    KmsgFollower(kmsg, second, store=store, boot_id="b1").poll()
    assert first.lines == ["seen"]
    assert second.lines == ["while stopped"]


def test_kmsg_after_a_reboot_reads_the_whole_buffer(tmp_path: Path) -> None:
    kmsg = tmp_path / "kmsg"
    store = StateStore(tmp_path)
    store.save("kmsg", {"boot_id": "old-boot", "seq": 500})
    write(kmsg, kmsg_record(1, "ata1: SATA link down"), kmsg_record(2, "second"))
    sink = Sink()
    KmsgFollower(kmsg, sink, store=store, boot_id="new-boot").poll()
    assert sink.lines == ["ata1: SATA link down", "second"]
    assert store.load("kmsg") == {"boot_id": "new-boot", "seq": 2}


def test_kmsg_missing_device_is_not_an_error(tmp_path: Path) -> None:
    f = KmsgFollower(tmp_path / "absent", Sink())
    assert f.poll() == 0
    assert not f.is_open and f.read_errors == 0


def test_kmsg_partial_record_waits(tmp_path: Path) -> None:
    kmsg = tmp_path / "kmsg"
    kmsg.write_text("")
    sink = Sink()
    f = KmsgFollower(kmsg, sink)
    f.poll()
    write(kmsg, "6,1,1,-;nvme nvme0: I/O 1 QID")
    f.poll()
    write(kmsg, " 2 timeout, aborting\n", "garbage without separator\n", "6,x,1,-;bad seq\n")
    f.poll()
    assert sink.lines == ["nvme nvme0: I/O 1 QID 2 timeout, aborting"]


def fake_journalctl(tmp_path: Path, records: list[dict[str, object]], exit_after: bool) -> Path:
    script = tmp_path / "journalctl"
    out = tmp_path / "argv.json"
    body = "\n".join(json.dumps(r) for r in records)
    script.write_text(
        f"#!{sys.executable}\n"
        "import json, sys, time\n"
        f"json.dump(sys.argv[1:], open({str(out)!r}, 'w'))\n"
        f"sys.stdout.write({body!r} + '\\n')\n"
        "sys.stdout.flush()\n" + ("" if exit_after else "time.sleep(60)\n")
    )
    script.chmod(0o755)
    return script


def poll_until(f: JournalFollower, sink: Sink, want: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while len(sink.lines) < want and time.monotonic() < deadline:
        f.poll()
        time.sleep(0.02)


def test_journal_follower_reads_messages_and_saves_the_cursor(tmp_path: Path) -> None:
    records = [
        {"__CURSOR": "c1", "MESSAGE": "ata3: hard resetting link"},
        {"__CURSOR": "c2", "MESSAGE": list(b"nvme nvme0: I/O 1 QID 2 timeout")},
        {"__CURSOR": "c3"},
    ]
    script = fake_journalctl(tmp_path, records, exit_after=False)
    store = StateStore(tmp_path)
    sink = Sink()
    f = JournalFollower(str(script), sink, store=store)
    try:
        poll_until(f, sink, 2)
        assert sink.lines == ["ata3: hard resetting link", "nvme nvme0: I/O 1 QID 2 timeout"]
        assert f.is_open
    finally:
        f.close()
    assert not f.is_open
    assert store.load("journal") == {"cursor": "c3"}
    argv = json.loads((tmp_path / "argv.json").read_text())
    assert argv == ["-k", "-f", "-o", "json", "--no-pager", "-n", "0"]
    again = JournalFollower(str(script), Sink(), store=store)
    assert again.argv()[-2:] == ["--after-cursor", "c3"]


def test_journal_follower_restarts_a_dead_process_and_counts_it(tmp_path: Path) -> None:
    script = fake_journalctl(tmp_path, [{"MESSAGE": "one"}], exit_after=True)
    now = [0.0]
    sink = Sink()
    f = JournalFollower(str(script), sink, restart_delay=5.0, clock=lambda: now[0])
    deadline = time.monotonic() + 10
    while f.read_errors == 0 and time.monotonic() < deadline:
        f.poll()
        time.sleep(0.02)
    assert sink.lines == ["one"]
    assert f.read_errors == 1 and "exited" in (f.last_error or "")
    f.poll()
    assert not f.is_open  # waiting for the restart delay
    now[0] = 10.0
    poll_until(f, sink, 2)
    assert sink.lines == ["one", "one"]
    f.close()


def test_journal_follower_without_journalctl(tmp_path: Path) -> None:
    f = JournalFollower(str(tmp_path / "nope"), Sink())
    f.poll()
    assert f.read_errors == 1 and "cannot run" in (f.last_error or "")
