"""Count the code lines of the study notebooks (MyST sources): blank and comment-only lines not counted.

    python tools/notebook_lines.py            # per notebook: total, longest cell, cells over the limit
    python tools/notebook_lines.py -v NAME    # every cell of one notebook

The limits (issue 18): no code cell over 25 lines, all notebooks together at most 1,000 lines;
``tests/test_notebooks.py`` enforces both.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_CELL_LINES = 25
MAX_TOTAL_LINES = 1000
_FENCE = re.compile(r"^(`{3,})\{code-cell\}")


def code_cells(path) -> list[tuple[int, list[str]]]:
    """(first line number, code lines) of every code cell of a MyST notebook, metadata removed."""
    lines = Path(path).read_text().splitlines()
    cells, i = [], 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, start, body = m.group(1), i + 1, []
        i += 1
        if i < len(lines) and lines[i].strip() == "---":          # YAML metadata block
            i += 1
            while i < len(lines) and lines[i].strip() != "---":
                i += 1
            i += 1
        while i < len(lines) and lines[i].startswith(":") and not lines[i].startswith("::"):   # :tags: lines
            i += 1
        while i < len(lines) and lines[i].rstrip() != fence:
            body.append(lines[i])
            i += 1
        i += 1
        cells.append((start, body))
    return cells


def count(body) -> int:
    """Non-blank lines that are not only a comment."""
    return sum(1 for ln in body if ln.strip() and not ln.strip().startswith("#"))


def report(paths) -> dict:
    out = {}
    for p in paths:
        cells = code_cells(p)
        counts = [(start, count(body)) for start, body in cells]
        out[Path(p).stem] = {"total": sum(c for _, c in counts), "cells": counts,
                             "over": [(s, c) for s, c in counts if c > MAX_CELL_LINES]}
    return out


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    verbose = "-v" in argv
    names = [a for a in argv if a != "-v"]
    paths = [ROOT / "notebooks" / f"{n}.md" for n in names] or sorted((ROOT / "notebooks").glob("*.md"))
    rep = report(paths)
    for name, r in rep.items():
        longest = max((c for _, c in r["cells"]), default=0)
        print(f"{name:24s} {r['total']:5d} code lines, {len(r['cells'])} cells, longest {longest}, "
              f"over {MAX_CELL_LINES}: {[s for s, _ in r['over']]}")
        if verbose:
            for s, c in r["cells"]:
                print(f"    line {s:5d}: {c}")
    print(f"{'all':24s} {sum(r['total'] for r in rep.values()):5d} (limit {MAX_TOTAL_LINES})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
