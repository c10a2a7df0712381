"""RELIABILITY.md and README.md state the file descriptor limit the shipped unit sets."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).parents[2]


def test_the_documents_give_the_units_file_descriptor_limit() -> None:
    unit = (ROOT / "packaging" / "zmon.service").read_text()
    (limit,) = re.findall(r"^LimitNOFILE=(\d+)$", unit, re.M)
    for doc in ("RELIABILITY.md", "README.md"):
        text = (ROOT / doc).read_text()
        stated = set(re.findall(r"LimitNOFILE=(\d+)", text))
        assert stated == {limit}, f"{doc} says LimitNOFILE={stated}, the unit {limit}"
    reliability = (ROOT / "RELIABILITY.md").read_text()
    given = re.findall(r"the shipped unit gives ([\d,]+)", reliability)
    assert given and {g.replace(",", "") for g in given} == {limit}
