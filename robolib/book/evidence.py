"""A chapter's evidence page: what the chapter's run glued, glued again on the page (nothing computed twice).

A chapter notebook glues its values, its claims and the tables and figures of its evidence page
(:meth:`robolib.book.result.StudyResult.glue`, :meth:`~robolib.book.result.StudyResult.glue_evidence`); papermill
keeps them in the executed notebook ``book/studies/<study>.ipynb``. The evidence page ``book/evidence/<study>.md`` is
a notebook of one hidden cell, ``reglue("<study>")``, which displays those outputs again with their glue metadata,
so the page's ``{glue:md}``, ``{glue:text}`` and ``{glue:figure}`` references resolve within the page (MyST-NB
pastes Markdown only from the page's own outputs).

>>> import json, tempfile, pathlib
>>> out = {"output_type": "display_data", "data": {"application/papermill.record/text/plain": "'4.2'"},
...        "metadata": {"scrapbook": {"name": "x", "mime_prefix": "application/papermill.record/"}}}
>>> nb = pathlib.Path(tempfile.mkdtemp()) / "demo.ipynb"
>>> _ = nb.write_text(json.dumps({"cells": [{"cell_type": "code", "outputs": [out]}]}))
>>> [key for key, _ in glued_outputs(nb)]
['x']
"""

from __future__ import annotations

import json
from pathlib import Path

from robolib.core.errors import ParameterError


def glued_outputs(notebook) -> list[tuple[str, dict]]:
    """``[(key, output), ...]``: the glued outputs of an executed notebook (MyST-NB's ``scrapbook`` metadata)."""
    path = Path(notebook)
    if not path.is_file():
        raise ParameterError(f"notebook {str(path)!r} not found: build the chapter first (make notebooks)")
    cells = json.loads(path.read_text())["cells"]
    return [(o["metadata"]["scrapbook"]["name"], o) for c in cells for o in c.get("outputs", [])
            if "scrapbook" in o.get("metadata", {})]


def run_parameters(study: str, studies_dir: str | Path = "../studies") -> dict:
    """The parameters the executed chapter ``study`` was run with other than its defaults (papermill's ``-p``
    values, recorded in ``<studies_dir>/<study>.ipynb``); ``{}`` for a run at the defaults."""
    path = Path(studies_dir) / f"{study}.ipynb"
    if not path.is_file():
        raise ParameterError(f"notebook {str(path)!r} not found: build the chapter first (make notebooks)")
    return dict(json.loads(path.read_text())["metadata"].get("papermill", {}).get("parameters", {}))


def reglue(study: str, studies_dir: str | Path = "../studies") -> int:
    """Display again, in this notebook, every output the executed chapter ``study`` glued (from
    ``<studies_dir>/<study>.ipynb``, relative to the page); returns how many."""
    from IPython.display import display

    outputs = glued_outputs(Path(studies_dir) / f"{study}.ipynb")
    for _, o in outputs:
        display(o["data"], metadata=o["metadata"], raw=True)
    return len(outputs)


__all__ = ["glued_outputs", "reglue", "run_parameters"]
