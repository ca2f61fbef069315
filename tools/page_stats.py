"""Words, tables and figures of built book pages as a reader meets them (closed folds not counted).

    python tools/page_stats.py [HTML_DIR] [PAGE ...]

HTML_DIR defaults to book/_build/html; PAGE to every chapter and evidence page (``studies/*.html``,
``evidence/*.html``). Counted in the page's article, without what a reader sees only after opening it
(``<details>`` folds: hidden code and outputs; dropdown admonitions: exercise solutions):

* words: the prose, tables and captions, as whitespace-separated words; displayed math and the code of
  visible code cells are not words (they are counted apart, as ``code lines``);
* tables: ``<table>`` elements;
* figures: numbered figures (``<figure>``), and animations and Explore panels (a ``robolib-caption``).
"""

from __future__ import annotations

import sys
from pathlib import Path

from bs4 import BeautifulSoup


def page_stats(path: Path) -> dict:
    """``{"words", "tables", "figures", "code lines"}`` of one built page."""
    soup = BeautifulSoup(path.read_text(), "html.parser")
    art = soup.find("article") or soup
    for node in art.find_all("details"):
        if not node.has_attr("open"):
            node.decompose()
    for node in art.select(".admonition.dropdown"):
        for child in list(node.children):
            if getattr(child, "get", None) and "admonition-title" not in (child.get("class") or []):
                child.extract()
    for node in art.select("script, style, .headerlink, .toggle-button"):
        node.decompose()
    code = sum(len(n.get_text().strip().splitlines()) for n in art.select(".cell_input pre"))
    for node in art.select(".cell_input, div.math, span.math, mjx-container"):
        node.decompose()
    figures = len(art.find_all("figure")) + len(art.select(".robolib-caption"))
    return {"words": len(art.get_text(" ").split()), "tables": len(art.find_all("table")),
            "figures": figures, "code lines": code}


def main(argv: list[str]) -> None:
    root = Path(argv[0]) if argv else Path("book/_build/html")
    if not (root / "intro.html").is_file():
        sys.exit(f"page_stats: {root} is not a built book (no intro.html there): run `make book`, or name its html folder")
    pages = [root / p for p in argv[1:]] or sorted((root / "studies").glob("*.html")) + sorted(
        (root / "evidence").glob("*.html"))
    missing = [str(p) for p in pages if not p.is_file()]
    if missing:
        sys.exit(f"page_stats: no such page: {', '.join(missing)}")
    print(f"{'page':44s} {'words':>6s} {'tables':>6s} {'figures':>7s} {'code lines':>10s}")
    for page in pages:
        s = page_stats(page)
        print(f"{str(page.relative_to(root)):44s} {s['words']:6d} {s['tables']:6d} {s['figures']:7d} {s['code lines']:10d}")


if __name__ == "__main__":
    main(sys.argv[1:])
