"""Run book pages with ``execution_mode: cache`` (the how-to guides) into the book's jupyter-cache.

    python tools/execute_pages.py [PAGE.md ...]

The guides do not depend on the studies, so ``make book`` runs this beside the studies (make -j) and
``jupyter-book build`` then takes their outputs from the cache instead of running them one after the
other. Every page is run again on every call and replaces its cache entry: the cache is keyed by the
page's code only, so an entry made before a change to ``robolib`` would otherwise be reused. PAGE
defaults to every page under ``book/`` whose front matter says ``execution_mode: cache``.

The notebook is read as myst-nb reads it, run as myst-nb runs it (in the page's folder, the book's
``execute.timeout``, no timing metadata: the cache hashes the cells' metadata) and stored where
Jupyter Book looks (``book/_build/.jupyter_cache``).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import nbclient
import yaml
from jupyter_cache import get_cache
from jupyter_cache.base import CacheBundleIn
from myst_nb.core.read import read_myst_markdown_notebook

BOOK = Path(__file__).resolve().parent.parent / "book"
CACHE = BOOK / "_build" / ".jupyter_cache"


def cached_pages() -> list[Path]:
    """The book's pages whose front matter asks for ``execution_mode: cache``."""
    return sorted(p for p in BOOK.rglob("*.md") if "_build" not in p.parts
                  and "execution_mode: cache" in p.read_text(encoding="utf-8").split("\n---\n", 1)[0])


def execute_into_cache(page: Path, timeout: int) -> float:
    """Run ``page`` and store it in the book's cache; returns the wall time, s."""
    nb = read_myst_markdown_notebook(page.read_text(encoding="utf-8"))
    t0 = time.perf_counter()
    nbclient.NotebookClient(nb, timeout=timeout, record_timing=False,
                            resources={"metadata": {"path": str(page.parent)}}).execute()
    wall = time.perf_counter() - t0
    get_cache(str(CACHE)).cache_notebook_bundle(
        CacheBundleIn(nb, str(page), data={"execution_seconds": wall}), check_validity=False, overwrite=True)
    return wall


def main(argv: list[str]) -> int:
    timeout = int(yaml.safe_load((BOOK / "_config.yml").read_text())["execute"]["timeout"])
    pages = [Path(a).resolve() for a in argv] or cached_pages()
    for page in pages:
        print(f"== {page.relative_to(BOOK.parent)} ran in {execute_into_cache(page, timeout):.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
