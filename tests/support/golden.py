"""Golden files: compared in every run, written only when ``pytest --update-golden`` asks.

A missing golden file fails like a different one, in CI and outside it: a test that wrote its
own expectation would pass on whatever the code printed. ``WrittenFiles`` guards the files that
tests may rewrite (golden files, generated docs): a run without ``--update-golden`` that changed
one fails the session.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pytest

UPDATE_HINT = "rerun with --update-golden and review the diff"


class GoldenFiles:
    """The golden files under ``root``; ``update`` rewrites them instead of comparing."""

    def __init__(self, root: Path, update: bool) -> None:
        self.root = root
        self.update = update

    def check(self, name: str, text: str | bytes) -> None:
        if isinstance(text, bytes):
            text = text.decode()
        path = self.root / name
        if self.update:
            if not path.exists() or path.read_text() != text:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
            return
        if not path.exists():
            pytest.fail(f"golden file {path} is missing; {UPDATE_HINT}")
        assert text == path.read_text(), f"output differs from {path}; {UPDATE_HINT}"


Stamp = dict[Path, tuple[int, int]]


class WrittenFiles:
    """Which files matching ``patterns`` under ``root`` were written, created or removed since
    this object was made."""

    def __init__(self, root: Path, patterns: Iterable[str]) -> None:
        self.root = root
        self.patterns = list(patterns)
        self.before = self._stamp()

    def _stamp(self) -> Stamp:
        out: Stamp = {}
        for pattern in self.patterns:
            for p in self.root.glob(pattern):
                if p.is_file():
                    st = p.stat()
                    out[p] = (st.st_mtime_ns, st.st_size)
        return out

    def changed(self) -> list[Path]:
        after = self._stamp()
        return sorted(
            p for p in self.before.keys() | after.keys() if self.before.get(p) != after.get(p)
        )
