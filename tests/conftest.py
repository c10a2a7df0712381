"""Shared test fixtures: golden files (never written without --update-golden), fixture paths."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.golden import GoldenFiles, WrittenFiles

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures"
GOLDEN = REPO / "tests" / "golden"
# What tests compare and rewrite only under --update-golden: golden files, generated docs.
WRITABLE_BY_TESTS = ("tests/golden/**/*", "docs/**/*", "zmon/collectors/*/README.md", "README.md")
_WRITTEN = pytest.StashKey[WrittenFiles]()

# The live OpenZFS VM lab and the zfs-fuse test (tests/lab) need the lab built and run through
# `make lab-test`, which sets ZMON_LAB=1; the lab's hermetic table tests run everywhere.
# fixtures/ and golden/ hold data only: deep trees (fake sysfs, captured hosts) that pytest
# would otherwise walk, file by file, looking for tests.
collect_ignore = ["fixtures", "golden"] + (
    [] if os.environ.get("ZMON_LAB") == "1" else ["lab/test_live.py", "lab/test_zfs_fuse.py"]
)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite golden files from the current output instead of comparing",
    )


@pytest.fixture
def golden(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    """``golden(name, text)``: compare text with tests/golden/<name>, which must exist; with
    --update-golden, write it instead."""
    return GoldenFiles(GOLDEN, request.config.getoption("--update-golden")).check


@pytest.fixture(autouse=True)
def _status_dir_of_the_test(tmp_path_factory: pytest.TempPathFactory, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A zmon configured in a test publishes its status report in a directory of the test's,
    not in the host's /run/zmon (tests that start ``zmon serve`` pass ``--web.status-dir``)."""
    import zmon.collecting.config

    run = tmp_path_factory.mktemp("run")
    monkeypatch.setattr(zmon.collecting.config, "_default_status_dir", lambda: str(run))


def pytest_sessionstart(session: pytest.Session) -> None:
    session.config.stash[_WRITTEN] = WrittenFiles(REPO, WRITABLE_BY_TESTS)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A run without --update-golden that wrote a golden file or a generated doc fails."""
    written = session.config.stash.get(_WRITTEN, None)
    if written is None or session.config.getoption("--update-golden"):
        return
    changed = written.changed()
    if changed:
        names = ", ".join(str(p.relative_to(REPO)) for p in changed)
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(f"FAILED: tests wrote {names} without --update-golden", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
