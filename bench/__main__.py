"""Run the benchmarks and merge their figures into bench/results.json.

    python -m bench            # every study
    python -m bench prp3       # just one
"""

from __future__ import annotations

import importlib
import json
import os
import platform
import sys
import time
from pathlib import Path

from robolib.core.files import atomic_write_text

from . import MODULES

RESULTS = Path(__file__).resolve().parent / "results.json"


def main(argv: list[str]) -> int:
    names = argv or MODULES
    unknown = [n for n in names if n not in MODULES]
    if unknown:
        print(f"unknown benchmark(s) {unknown}; known: {MODULES}", file=sys.stderr)
        return 2
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    print(f"# robolib benchmarks on {platform.node()} ({os.cpu_count()} cores, Python {platform.python_version()})")
    for name in names:
        print(f"\n## {name}")
        t0 = time.perf_counter()
        figures = importlib.import_module(f"bench.{name}").run()
        results.update({k: float(v) for k, v in figures.items()})
        print(f"   ({name} done in {time.perf_counter() - t0:.1f} s)")
    atomic_write_text(RESULTS, json.dumps(dict(sorted(results.items())), indent=2) + "\n")
    print(f"\nwrote {len(results)} figures to {RESULTS}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
