"""Read a fixture directory's EXPECTED.md: ``## <file>`` headings, each with ``- key: value``
bullets (the facts a test checks against what zmon parses from that file)."""

from __future__ import annotations

import re
from pathlib import Path


def load_expected(path: Path) -> dict[str, dict[str, str]]:
    """{file name: {fact key: value}}; a key given twice keeps its values joined by ``; ``."""
    out: dict[str, dict[str, str]] = {}
    facts: dict[str, str] | None = None
    for line in path.read_text().splitlines():
        heading = re.match(r"^## (\S+)\s*$", line)
        if heading:
            facts = out.setdefault(heading.group(1), {})
            continue
        bullet = re.match(r"^- ([a-z_0-9]+):(?: (.*))?$", line)
        if bullet and facts is not None:
            key, value = bullet.group(1), bullet.group(2) or ""
            facts[key] = f"{facts[key]}; {value}" if key in facts else value
    return out
