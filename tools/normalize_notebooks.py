"""Store the chapters' sources in the form JupyterLab saves them (jupytext through the ipynb model).

``python tools/normalize_notebooks.py [notebooks/*.md]`` rewrites each file as JupyterLab would on a save:
cell metadata keys in JSON order, YAML wrapped as jupytext writes it, no trailing blank lines in cells, the
``Python 3 (ipykernel)`` kernel name. Run it after editing a chapter in a text editor;
``tests/test_notebooks.py`` checks that opening and saving a chapter changes no line.
"""

from __future__ import annotations

import sys
from pathlib import Path

import jupytext
import nbformat

KERNEL = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def as_jupyterlab_saves(text: str) -> str:
    """The MyST text JupyterLab writes after opening ``text`` as a notebook and saving it."""
    nb = jupytext.reads(text, fmt="md:myst")
    nb.metadata["kernelspec"] = dict(KERNEL)
    nb = nbformat.reads(nbformat.writes(nb), as_version=4)
    return jupytext.writes(nb, fmt="md:myst")


if __name__ == "__main__":
    paths = sys.argv[1:] or sorted(str(p) for p in (Path(__file__).resolve().parent.parent / "notebooks").glob("*.md"))
    for path in paths:
        text = Path(path).read_text()
        out = as_jupyterlab_saves(text)
        Path(path).write_text(out)
        print(f"{path}: {'rewritten' if out != text else 'unchanged'}")
