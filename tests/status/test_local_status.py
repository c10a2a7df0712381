"""``zmon status`` on the host tells the running zmon's story: the judged report its HTTP
process publishes (zmon/status/published.py) while it is fresh; otherwise one collection's
diagnoses, saying that no alert was judged and why. The file is untrusted input."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from tests.status.helpers import NOW, families, pool_text
from zmon import status_command as cli
from zmon.collecting.config import Config
from zmon.status.page import StatusPage
from zmon.status.published import (
    FRESH_JUDGMENTS,
    MAX_BYTES,
    Publisher,
    Unavailable,
    parse_published,
    prepare_dir,
    read_published,
    report_file,
)
from zmon.status.report import build_report
from zmon.status.terminal import render_text

JUDGE_EVERY = 60.0


def _degraded() -> dict[str, Any]:
    text = pool_text(state="degraded", vdev_states={"sdb": "offline"})
    return build_report(families(text), NOW, host="nas1")


def _healthy(cfg: Any, demo: bool) -> dict[str, Any]:
    """One collection of a healthy host (what ``zmon status`` collects without a daemon)."""
    return build_report(families(pool_text()), NOW, host="nas1")


def _cfg(tmp_path: Path) -> Config:
    return Config(status_dir=str(tmp_path / "run"))


def _publish(cfg: Config, report: dict[str, Any], at: float, demo: bool = False) -> Path:
    path = report_file(cfg.status_dir, demo)
    prepare_dir(path.parent, None)
    Publisher(path, JUDGE_EVERY, clock=lambda: at).publish(report)
    return path


def test_a_fresh_report_of_the_running_zmon_is_the_report(tmp_path: Path) -> None:
    cfg = _cfg(tmp_path)
    daemon = _degraded()
    _publish(cfg, daemon, NOW - 30)
    report = cli.local_report(cfg, False, clock=lambda: NOW, collect=_no_collection)
    assert report == daemon  # what ``--url`` gives: nothing added, nothing collected
    assert report["exit_code"] == 1


def _no_collection(cfg: Any, demo: bool) -> dict[str, Any]:
    raise AssertionError("collected although the running zmon's report is fresh")


def test_the_demo_reads_the_demo_daemon_and_the_host_its_own(tmp_path: Path) -> None:
    cfg = _cfg(tmp_path)
    _publish(cfg, _degraded(), NOW, demo=True)
    assert cli.local_report(cfg, True, clock=lambda: NOW, collect=_no_collection)["state"] == (
        "warning"
    )
    host = cli.local_report(cfg, False, clock=lambda: NOW, collect=_healthy)
    assert host["state"] == "ok" and "not running" in host["not_judged"]["why"]


def test_no_daemon_collects_once_and_says_nothing_was_judged(tmp_path: Path) -> None:
    cfg = _cfg(tmp_path)
    report = cli.local_report(cfg, False, clock=lambda: NOW, collect=_healthy)
    assert report["state"] == "ok" and report["exit_code"] == 0
    said = report["not_judged"]
    path = report_file(cfg.status_dir, False)
    assert said["why"] == f"zmon is not running on this host (no {path})"
    assert said["text"] == (
        "No alert was judged: zmon's history is not available (zmon is not running on this "
        f"host (no {path})), so these findings are one collection's diagnoses."
    )
    text = render_text(report)
    assert text.splitlines()[0].startswith("OK - ")  # the check's status line stays first
    assert said["text"] in text


def test_a_stale_report_is_said_with_its_age_and_not_used(tmp_path: Path) -> None:
    cfg = _cfg(tmp_path)
    old = NOW - FRESH_JUDGMENTS * JUDGE_EVERY - 12 * 60
    _publish(cfg, _degraded(), old)
    report = cli.local_report(cfg, False, clock=lambda: NOW, collect=_healthy)
    assert report["state"] == "ok"  # the collection's, not the old report's
    assert report["not_judged"]["why"] == "zmon's report is 15 minutes old"
    # just fresh enough
    _publish(cfg, _degraded(), NOW - FRESH_JUDGMENTS * JUDGE_EVERY)
    assert cli.local_report(cfg, False, clock=lambda: NOW, collect=_no_collection)["state"] == (
        "warning"
    )


def test_a_report_from_the_future_is_not_trusted(tmp_path: Path) -> None:
    cfg = _cfg(tmp_path)
    _publish(cfg, _degraded(), NOW + 3600)
    report = cli.local_report(cfg, False, clock=lambda: NOW, collect=_healthy)
    assert report["not_judged"]["why"] == "zmon's report is dated 60 minutes in the future"


@pytest.mark.parametrize(
    "content,why",
    [
        (b"{not json", "not JSON"),
        (b"[1, 2]", "not a published report"),
        (json.dumps({"published": 1, "written": NOW, "judge_every": 60}).encode(), "no report"),
        (
            json.dumps(
                {"published": 1, "written": NOW, "judge_every": 60, "report": {"schema": 1}}
            ).encode(),
            "not a report zmon status can show",
        ),
        (
            json.dumps(
                {"published": 1, "written": "yesterday", "judge_every": 60, "report": {}}
            ).encode(),
            "no time written",
        ),
        (b"\xff\xfe", "not JSON"),
    ],
)
def test_a_corrupt_report_falls_back_with_a_clear_reason(
    tmp_path: Path, content: bytes, why: str
) -> None:
    cfg = _cfg(tmp_path)
    path = report_file(cfg.status_dir, False)
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    report = cli.local_report(cfg, False, clock=lambda: NOW, collect=_healthy)
    assert report["state"] == "ok"
    assert report["not_judged"]["why"] == f"zmon's report cannot be used: {path}: {why}"


def test_a_report_whose_words_contradict_its_state_is_refused() -> None:
    report = _degraded()
    report["exit_code"] = 0
    wrapped = {"published": 1, "written": NOW, "judge_every": 60, "report": report}
    with pytest.raises(ValueError, match="not a report zmon status can show"):
        parse_published(json.dumps(wrapped).encode(), NOW)


def test_a_huge_report_is_not_read(tmp_path: Path) -> None:
    cfg = _cfg(tmp_path)
    path = report_file(cfg.status_dir, False)
    path.parent.mkdir(parents=True)
    with path.open("wb") as f:
        f.truncate(MAX_BYTES + 1)  # sparse: nothing is written, nothing may be read
    found = read_published(path, NOW)
    assert isinstance(found, Unavailable)
    assert found.why == (
        f"zmon's report cannot be used: {path}: larger than {MAX_BYTES // (1 << 20)} MiB"
    )


def test_a_link_or_a_fifo_in_place_of_the_report_is_not_followed(tmp_path: Path) -> None:
    cfg = _cfg(tmp_path)
    path = report_file(cfg.status_dir, False)
    path.parent.mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere.json"
    Publisher(elsewhere, JUDGE_EVERY, clock=lambda: NOW).publish(_degraded())
    path.symlink_to(elsewhere)
    found = read_published(path, NOW)
    assert isinstance(found, Unavailable) and "cannot be used" in found.why
    path.unlink()
    os.mkfifo(path)  # would block an open without O_NONBLOCK
    found = read_published(path, NOW)
    assert isinstance(found, Unavailable)
    assert found.why == f"zmon's report cannot be used: {path}: not a regular file"


def test_an_unreadable_report_says_why(tmp_path: Path) -> None:
    cfg = _cfg(tmp_path)
    path = report_file(cfg.status_dir, False)
    path.mkdir(parents=True)  # a directory where the file should be
    found = read_published(path, NOW)
    assert isinstance(found, Unavailable) and found.why.startswith(
        f"zmon's report cannot be used: {path}: "
    )


def test_the_publisher_replaces_the_file_whole_and_readable(tmp_path: Path) -> None:
    path = tmp_path / "run" / "report.json"
    prepare_dir(path.parent, None)
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o755
    old = os.umask(0o077)  # the unit's UMask
    try:
        publisher = Publisher(path, JUDGE_EVERY, clock=lambda: NOW)
        publisher.publish(_degraded())
        first = path.stat().st_ino
        publisher.publish(build_report(families(pool_text()), NOW, host="nas1"))
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert path.stat().st_ino != first  # renamed into place, never rewritten in place
    assert sorted(p.name for p in path.parent.iterdir()) == ["report.json"]
    found = read_published(path, NOW)
    assert not isinstance(found, Unavailable) and found.report["state"] == "ok"
    publisher.withdraw()
    assert not path.exists()
    publisher.withdraw()  # (already gone)


def test_a_publisher_that_cannot_write_counts_it(tmp_path: Path) -> None:
    path = tmp_path / "missing" / "report.json"
    publisher = Publisher(path, JUDGE_EVERY, clock=lambda: NOW)
    publisher.publish(_degraded())
    publisher.publish(_degraded())
    assert not path.exists() and publisher.failed == 2


def test_the_status_page_publishes_what_it_judged(tmp_path: Path) -> None:
    from tests.status.test_page import Degraded
    from zmon.base.runner import StaticRunner
    from zmon.collecting.registry import Context, Paths
    from zmon.collecting.scheduler import Scheduler

    s = Scheduler()
    s.add(Degraded(Context(paths=Paths(), runner=StaticRunner())), 60, 1)
    path = tmp_path / "report.json"
    clock = iter(float(t) for t in range(0, 10_000, 20))
    now = [0.0]

    def tick() -> float:
        now[0] = next(clock)
        return now[0]

    page = StatusPage(
        s.snapshot, "nas1", clock=tick, publish=Publisher(path, JUDGE_EVERY, clock=lambda: now[0])
    )
    s.snapshot.on_render.append(page.observe)
    s.workers["zpool"].run_once()
    s.snapshot.rerender()
    found = read_published(path, now[0])
    assert not isinstance(found, Unavailable)
    served = json.loads(page.respond("format=json")[0])
    for key in ("state", "exit_code", "headline", "findings"):
        assert found.report[key] == served[key], key
    assert found.report["findings"][0]["rule"] == "pool_degraded"


def test_the_directory_is_made_for_the_http_process(tmp_path: Path) -> None:
    d = tmp_path / "a" / "run"
    prepare_dir(d, None)
    assert d.is_dir() and stat.S_IMODE(d.stat().st_mode) == 0o755
    prepare_dir(d, None)  # (again: as it is)
    link = tmp_path / "link"
    link.symlink_to(d)
    with pytest.raises(OSError):
        prepare_dir(link, None)
