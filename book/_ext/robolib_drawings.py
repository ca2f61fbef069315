"""Sphinx extension: render the labelled mechanism drawings of the Models pages.

On ``builder-inited`` it draws the four figures of the mechanism packages' ``drawing`` modules from the
parameter files in ``robolib.core.params.DATA_DIR`` and writes them as SVG to
``<srcdir>/models/_generated/`` (created if missing), where the Models pages
reference them with ``{figure}`` directives. The SVG output is deterministic (fixed
hash salt, no date), so rebuilding an unchanged book rewrites identical files; a file
is only rewritten when its content changes, which keeps Sphinx from re-reading pages
needlessly.

Register in ``_config.yml``::

    sphinx:
      local_extensions:
        robolib_drawings: _ext
"""

from __future__ import annotations

from pathlib import Path

#: File name (without ``.svg``) -> (drawing function, loader, data file), all in robolib.
FIGURES = {
    "prp3_mechanism": ("robolib.prp3.drawing:prp3_mechanism", "robolib.prp3:load_geometry", "prp3/paper.yaml"),
    "redundant_mechanism": ("robolib.redundant.drawing:redundant_mechanism", "robolib.redundant:load", "redundant/default.yaml"),
    "gearshift_mechanism": ("robolib.gearshift.drawing:gearshift_mechanism", "robolib.gearshift:load_parameters", "gearshift/default.yaml"),
    "stewart_mechanism": ("robolib.stewart.drawing:stewart_mechanism", "robolib.stewart:load", "stewart/tsai2000.yaml"),
}


def _render(name, func_name, loader_path, data_file):
    import importlib
    import io

    import matplotlib

    from robolib.core.params import DATA_DIR

    module, attr = loader_path.split(":")
    loader = getattr(importlib.import_module(module), attr)
    params = loader(DATA_DIR / data_file)
    draw_module, draw_name = func_name.split(":")
    fig = getattr(importlib.import_module(draw_module), draw_name)(params)
    buf = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": f"robolib-{name}", "svg.fonttype": "path"}):
        fig.savefig(buf, format="svg", metadata={"Date": None}, bbox_inches="tight")
    return buf.getvalue()


def render_drawings(app):
    """Write every figure of :data:`FIGURES` to ``<srcdir>/models/_generated/<name>.svg``."""
    from sphinx.util import logging

    log = logging.getLogger(__name__)
    out = Path(app.srcdir) / "models" / "_generated"
    out.mkdir(parents=True, exist_ok=True)
    for name, (func_name, loader_path, data_file) in FIGURES.items():
        path = out / f"{name}.svg"
        try:
            svg = _render(name, func_name, loader_path, data_file)
        except Exception as exc:  # a broken drawing must fail the build (-W), with the reason
            log.warning(f"robolib_drawings: could not draw {name} from data/{data_file}: {exc!r}")
            continue
        if not path.is_file() or path.read_text() != svg:
            path.write_text(svg)


def setup(app):
    app.connect("builder-inited", render_drawings)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
