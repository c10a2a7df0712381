"""The command runner: argv only, LC_ALL=C, timeouts kill the whole process group."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from zmon.base.children import running
from zmon.base.runner import CommandError, CommandRunner, CommandTimeout, run_deadline


def _script(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text(f"#!{sys.executable}\n{body}\n")
    path.chmod(0o755)
    return str(path)


def test_runs_argv_and_captures_output(tmp_path: Path) -> None:
    prog = _script(
        tmp_path,
        "echoer",
        "import sys, os\n"
        "print(' '.join(sys.argv[1:])); print(os.environ['LC_ALL'], file=sys.stderr)\n"
        "sys.exit(3)",
    )
    result = CommandRunner(binaries={"echoer": prog}).run(["echoer", "a b", "$HOME;"])
    assert result.stdout == b"a b $HOME;\n"  # no shell: nothing expanded or split
    assert result.stderr == b"C\n"
    assert result.returncode == 3
    with pytest.raises(CommandError, match="exited 3"):
        result.check()


def test_refuses_shell_strings() -> None:
    with pytest.raises(TypeError):
        CommandRunner().run("zpool status")  # type: ignore[arg-type]


def test_missing_binary_is_a_command_error() -> None:
    with pytest.raises(CommandError, match="cannot run"):
        CommandRunner(binaries={"zpool": "/nonexistent/zpool"}).run(["zpool", "status"])


def test_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    prog = _script(
        tmp_path,
        "hang",
        "import subprocess, sys, time\n"
        f"child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
        f"open({str(pidfile)!r}, 'w').write(str(child.pid))\n"
        "time.sleep(600)",
    )
    result = CommandRunner(binaries={"zpool": prog}).run(["zpool", "status"], timeout=1.0)
    assert result.timed_out  # killed at its timeout, not ended by the program after 600 s
    with pytest.raises(CommandTimeout):
        result.check()
    grandchild = int(pidfile.read_text())
    deadline = time.monotonic() + 3
    while running(grandchild) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not running(grandchild), "the hung command's child survived the timeout"


def test_run_deadline_caps_the_timeout(tmp_path: Path) -> None:
    prog = _script(tmp_path, "slow", "import time; time.sleep(600)")
    token = run_deadline.set(time.monotonic() + 0.5)
    try:
        result = CommandRunner(binaries={"slow": prog}).run(["slow"], timeout=300)
    finally:
        run_deadline.reset(token)
    assert result.timed_out and result.duration < 120, "the 0.5 s deadline, not the 300 s timeout"
