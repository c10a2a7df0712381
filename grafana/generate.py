"""Write zmon's Grafana dashboards as JSON files in grafana/dashboards/.

python -m grafana.generate           # rewrite grafana/dashboards/*.json
python -m grafana.generate --check   # exit 1 if a committed file is out of date
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from grafana.boards import DASHBOARDS

OUT_DIR = Path(__file__).with_name("dashboards")


def render(board: dict[str, Any]) -> str:
    return json.dumps(board, indent=2, ensure_ascii=False) + "\n"


def rendered() -> dict[Path, str]:
    """File path -> JSON text, for every dashboard."""
    return {OUT_DIR / f"{uid}.json": render(build()) for uid, build in DASHBOARDS.items()}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m grafana.generate",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--check", action="store_true", help="fail if a dashboard is out of date")
    args = p.parse_args(argv)
    files = rendered()
    if args.check:
        stale = [
            path for path, text in files.items() if not path.exists() or path.read_text() != text
        ]
        extra = sorted(set(OUT_DIR.glob("*.json")) - set(files))
        for path in stale:
            print(f"{path} is out of date: run python -m grafana.generate", file=sys.stderr)
        for path in extra:
            print(
                f"{path} is not generated: remove it or add it to grafana/boards.py",
                file=sys.stderr,
            )
        return 1 if stale or extra else 0
    OUT_DIR.mkdir(exist_ok=True)
    for path, text in files.items():
        path.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
