"""Helpers for the study notebooks (kept tiny: the studies' work is in robolib).

How a chapter uses them (the conventions every study follows):

* ``params = check_parameters(globals(), [...])`` right after the ``parameters`` cell;
  then ``claims = ClaimsRegister("<study>", source="<seed>")``.
* A remove-input cell shows ``parameter_table([data files], run=params, extra=[...])``
  (every value the run used, with units) and ``rerun_note("<study>", "-p ...")``.
* Every finding is ``claims.claim(id, statement, value=, criterion=, holds=, text=)``
  and the prose cites it with ``{glue:md}`id```; the chapter ends with
  "## What this chapter found" and a remove-input cell ``claims.summary()``.
* Figures carry myst-nb ``figure`` (caption, name) and ``image`` (alt) metadata and
  are cited with ``{numref}``; exercise solutions are a ``dropdown`` admonition
  followed by a ``hide-cell`` code cell.
* The *Explore* panel is ``explore(draw, grid, labels=...)``: precomputed in the
  static book, live in JupyterLab.

Each study notebook has one cell tagged ``parameters`` (papermill injects its
overrides right after it) followed by a call to :func:`check_parameters`, so a
misspelt ``-p name value`` stops the run with a clear error instead of being
silently ignored.
"""

from __future__ import annotations

import base64
import html
import io
import math
import os
import re
from types import ModuleType
from typing import Any, Iterable, Mapping

import numpy as np
import yaml
from matplotlib.text import Text

from robolib.book.claims import ClaimsRegister  # noqa: F401  (re-exported: chapters use robolib.book.notebook)
from robolib.core.drawing import FIGURE_DPI
from robolib.core.errors import ParameterError
from robolib.core.params import resolve_data_path

#: Names IPython itself puts in a kernel's namespace.
_IPYTHON_NAMES = {"In", "Out", "get_ipython", "exit", "quit", "open"}


def check_parameters(namespace: Mapping[str, Any], declared: Iterable[str]) -> dict:
    """Return the declared parameters from ``namespace``; reject unknown ones.

    ``namespace`` is the notebook's ``globals()`` right after the parameters
    cell (and papermill's injected cell); ``declared`` the names the parameters
    cell defines. Any other public, non-module name is a parameter nobody
    declared, i.e. a typo in ``papermill -p``.

    >>> check_parameters({"seed": 1, "np": __import__("numpy")}, ["seed"])
    {'seed': 1}
    >>> check_parameters({"seed": 1, "sede": 2}, ["seed"])
    Traceback (most recent call last):
        ...
    robolib.ParameterError: unknown notebook parameter(s) ['sede']; this notebook declares ['seed']
    """
    declared = list(declared)
    unknown = sorted(
        k
        for k, v in namespace.items()
        if not k.startswith("_")
        and k not in declared
        and k not in _IPYTHON_NAMES
        and not isinstance(v, ModuleType)
        and not callable(v)
    )
    if unknown:
        raise ParameterError(f"unknown notebook parameter(s) {unknown}; this notebook declares {sorted(declared)}")
    missing = [k for k in declared if k not in namespace]
    if missing:
        raise ParameterError(f"notebook parameter(s) {missing} are declared but not defined")
    return {k: namespace[k] for k in declared}


def markdown_table(headers, rows, fmt: str = "{:.6g}"):
    """A Markdown table (for ``IPython.display.Markdown``) from rows of values.

    A ``|`` inside a cell is escaped (``max|mu|`` stays one cell).

    >>> print(markdown_table(["a", "b"], [[1.0, True]]))
    | a | b |
    |---:|---:|
    | 1 | true |
    >>> print(markdown_table(["|x|"], [["max|mu| = 0.4"]]).splitlines()[2])
    | max\\|mu\\| = 0.4 |
    """
    def cell(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        return (fmt.format(v) if isinstance(v, (float, int)) else str(v)).replace("|", "\\|")

    lines = ["| " + " | ".join(str(h).replace("|", "\\|") for h in headers) + " |", "|" + "---:|" * len(headers)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


# ---- published parameters ----------------------------------------------------

def _fmt_value(v) -> str:
    """Compact text of a parameter value (numbers to 6 significant digits, nested lists)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return f"{v:.6g}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_fmt_value(x) for x in v) + "]"
    if isinstance(v, (np.ndarray, np.generic)):
        return _fmt_value(v.tolist())
    return str(v)


def yaml_parameter_rows(path) -> list[tuple[str, str, str]]:
    """Every leaf of a YAML parameter file as ``(dotted name, value, comment)`` rows.

    The comment is the ``# ...`` text on the field's line (the files in ``data/``
    put each field's unit and meaning there). ``path`` is a file or a path
    relative to ``data/``.

    >>> rows = yaml_parameter_rows("prp3/paper.yaml")
    >>> [r[0] for r in rows][:2], all(len(r) == 3 for r in rows)
    (['name', 'units.length'], True)
    """


    p = resolve_data_path(path)
    lines = p.read_text().splitlines()
    root = yaml.compose(p.read_text())

    def comment(line_no: int) -> str:
        line = lines[line_no] if line_no < len(lines) else ""
        # the first '#' not inside quotes
        quote = None
        for i, ch in enumerate(line):
            if ch in "'\"":
                quote = None if quote == ch else (ch if quote is None else quote)
            elif ch == "#" and quote is None:
                return line[i + 1:].strip()
        return ""

    rows: list[tuple[str, str, str]] = []

    def walk(node, name: str, line_no: int):
        if isinstance(node, yaml.MappingNode) and node.value:
            for k, v in node.value:
                walk(v, f"{name}.{k.value}" if name else str(k.value), k.start_mark.line)
        else:
            value = yaml.safe_load(yaml.serialize(node))
            rows.append((name, _fmt_value(value), comment(line_no)))

    walk(root, "", 0)
    return rows


def parameter_table(files=(), run: Mapping[str, Any] | None = None, extra=(), *, title: str | None = None,
                    spec: Mapping[str, Any] | None = None, key: Iterable[str] | None = None,
                    key_title: str = "Key parameters") -> str:
    """Markdown table of every parameter a chapter ran with.

    ``files``: parameter files (``data/`` paths) whose every field is listed with
    its unit/description comment; ``run``: the notebook's own parameters (the
    dict :func:`check_parameters` returns); ``extra``: ``(name, value, unit or
    note)`` rows for settings fixed in the notebook or derived from the run
    (solver, integrator, controller gains, trajectory); ``spec``: the study's declared
    parameters (:class:`robolib.core.params.Parameter`), whose unit, meaning and valid values
    describe the ``run`` rows. Booleans read ``true``/``false``.

    ``key``: names of rows (as in the first column, e.g. ``"mu"``, ``"robot.m_a"``) for a
    short table of the key parameters, in that order, shown first (titled ``key_title``);
    the full table then follows folded in a ``<details>`` block the reader opens.

    >>> print(parameter_table(run={"seed": 7, "quick": False}, extra=[("rtol", 1e-8, "solver relative tolerance")]))
    | parameter | value | unit / meaning |
    |:---|:---|:---|
    | `seed` | 7 | notebook parameter |
    | `quick` | false | notebook parameter |
    | `rtol` | 1e-08 | solver relative tolerance |
    >>> print(parameter_table(run={"seed": 7}, extra=[("rtol", 1e-8, "solver relative tolerance")], key=["rtol"]))
    ... # doctest: +NORMALIZE_WHITESPACE
    **Key parameters**
    <BLANKLINE>
    | parameter | value | unit / meaning |
    |:---|:---|:---|
    | `rtol` | 1e-08 | solver relative tolerance |
    <BLANKLINE>
    <details class="robolib-all-parameters">
    <summary>All 2 parameters of this run, with units and meaning</summary>
    <BLANKLINE>
    | parameter | value | unit / meaning |
    |:---|:---|:---|
    | `seed` | 7 | notebook parameter |
    | `rtol` | 1e-08 | solver relative tolerance |
    <BLANKLINE>
    </details>
    """
    if isinstance(files, (str, bytes)) or hasattr(files, "__fspath__"):
        files = [files]
    rows = []
    for f in files:
        for name, value, note in yaml_parameter_rows(f):
            rows.append((name, value, note + (f" (`{f}`)" if not note else "")))
    for name, value in (run or {}).items():
        note = spec[name].note() if spec and name in spec else "notebook parameter"
        rows.append((name, _fmt_value(value), note))
    for name, value, note in extra:
        rows.append((name, _fmt_value(value), note))
    full = _rows_table(rows)
    if key is None:
        return (f"**{title}**\n\n" if title else "") + full
    by_name = {r[0]: r for r in rows}
    summary = title or f"All {len(rows)} parameters of this run, with units and meaning"
    return (f"**{key_title}**\n\n{_rows_table([by_name[k] for k in key])}\n\n"
            f'<details class="robolib-all-parameters">\n<summary>{summary}</summary>\n\n{full}\n\n</details>')


def _rows_table(rows) -> str:
    """``(name, value, note)`` rows as the Markdown parameter table (``|`` in a cell becomes ``/``)."""
    text = "| parameter | value | unit / meaning |\n|:---|:---|:---|\n"
    return text + "\n".join(f"| `{a}` | {str(b).replace('|', '/')} | {str(c).replace('|', '/')} |" for a, b, c in rows)


#: Where the built book keeps the source archive of the workbench and the studies' claims (site paths).
SOURCE_ARCHIVE = "downloads/robolib-workbench-source.tar.gz"
CLAIMS_DIR = "downloads/claims"


def rerun_note(study: str, example: str) -> str:
    """The one rerun instruction every chapter shows (Markdown), naming the source archive the book carries.

    The links are relative to a chapter page (``studies/<study>.html``); the book's build
    puts the archive and the claims files there (``book/_ext/robolib_book.py``).

    >>> print(rerun_note("prp3_roundtrip", "-p seed 7"))  # doctest: +ELLIPSIS
    To rerun this chapter with parameters of your own, run `make study NAME=prp3_roundtrip PARAMS="-p seed 7"` ...
    """
    archive = f'<a href="../{SOURCE_ARCHIVE}"><code>{SOURCE_ARCHIVE.rpartition("/")[2]}</code></a>'
    claims = f'<a href="../{CLAIMS_DIR}/{study}.claims.json"><code>{study}.claims.json</code></a>'
    how = '<a href="../intro.html#rerun-a-study-with-other-parameters">Rerun a study</a>'
    return (f"To rerun this chapter with parameters of your own, run `make study NAME={study} PARAMS=\"{example}\"` "
            f"in the workbench's source, which this book carries ({archive}); {how} in the introduction gives the "
            f"details. A rerun recomputes every claim and lists those that do not hold with your parameters: the "
            f"findings are about the parameters of the run, so some may change. This run's claims: {claims}.")


# ---- Explore panels that respond in the static book ---------------------------------

#: Largest number of precomputed outputs in one panel (page weight).
MAX_EXPLORE_OUTPUTS = 200


def _figure_image(fig, dpi: float, alt: str):
    """A matplotlib figure as an ``<img>`` with alt text in an ipywidgets HTML: PNG or SVG, whichever is smaller.

    (ipywidgets' ``Image`` has no alt attribute; an HTML widget holding a data URI does.)
    """

    import ipywidgets as widgets

    png = io.BytesIO()
    fig.savefig(png, format="png", dpi=dpi)
    svg = io.BytesIO()
    fig.savefig(svg, format="svg")
    use_svg = len(svg.getvalue()) < len(png.getvalue())
    data, mime = (svg.getvalue(), "image/svg+xml") if use_svg else (png.getvalue(), "image/png")
    uri = f"data:{mime};base64,{base64.b64encode(data).decode()}"
    font = smallest_font_px(fig, SVG_PX_PER_INCH if use_svg else dpi)   # at natural size: an SVG's pt are 96/72 px
    return widgets.HTML(f'<img src="{uri}" alt="{html.escape(alt, quote=True)}" style="max-width:100%" '
                        f'data-{FONT_KEY}="{font:.3f}">')


#: The PNG text key under which :func:`png_image` records the figure's smallest text in pixels at natural size (an
#: Explore panel's image carries it as the attribute ``data-<FONT_KEY>``).
FONT_KEY = "robolib-min-font-px"
#: Pixels per inch of an SVG at natural size in a browser (matplotlib writes its size in pt; CSS: 1 pt = 96/72 px).
SVG_PX_PER_INCH = 96.0


def smallest_font_px(fig, dpi: float) -> float:
    """The smallest visible text of ``fig`` (tick labels, legends, titles, annotations) in pixels at ``dpi``, natural
    size; ``inf`` for a figure without text. Shown at ``w`` of its natural width ``W`` it is that times ``w / W``.

    >>> from matplotlib.figure import Figure
    >>> fig = Figure(figsize=(4, 3)); ax = fig.add_subplot(); _ = ax.set_xlabel("x", fontsize=9)
    >>> smallest_font_px(fig, 100) <= 9 * 100 / 72
    True
    """
    fig.draw_without_rendering()  # tick labels get their text when drawn
    sizes = [t.get_fontsize() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()
             and t.figure is not None and _drawn(t)]
    return min(sizes) * dpi / 72.0 if sizes else math.inf


def _drawn(text) -> bool:
    """Whether ``text`` is shown: its axes (if any) and their tick labels are visible."""
    ax = getattr(text, "axes", None)
    return ax is None or (ax.get_visible() and ax.axison)


def png_image(fig, dpi: float):
    """A matplotlib figure as an ``IPython.display.Image`` (PNG; a figure made without pyplot has no image of its own),
    with its smallest text in pixels at natural size (:func:`smallest_font_px`) recorded under :data:`FONT_KEY`, which
    the browser test reads to check the text as displayed."""
    from IPython.display import Image

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight",
                metadata={FONT_KEY: f"{smallest_font_px(fig, dpi):.3f}"})
    return Image(buf.getvalue())


def _caption_html(kind: str, caption: str | None) -> str:
    """``<p class="robolib-caption">`` for an Explore panel or an animation ('' without a caption)."""
    if not caption:
        return ""
    return f'<p class="robolib-caption"><span class="caption-number">{kind}.</span> {caption}</p>'


def number_caption(shown, kind: str, number: str):
    """Number the caption of an animation (``IPython.display.HTML``) or an Explore panel (its ``VBox``): "Animation."
    becomes "Animation 2.1." (:func:`animation_html` and :func:`explore` caption them "Animation." and
    "Explore panel."; the book's script renumbers them in page order, JupyterLab shows this number).

    >>> from IPython.display import HTML
    >>> number_caption(HTML(_caption_html("Animation", "The robot.")), "Animation", "2.1").data
    '<p class="robolib-caption"><span class="caption-number">Animation 2.1.</span> The robot.</p>'
    """
    old, new = f'<span class="caption-number">{kind}.</span>', f'<span class="caption-number">{kind} {number}.</span>'
    if hasattr(shown, "children"):
        for child in shown.children:
            if isinstance(getattr(child, "value", None), str) and old in child.value:
                child.value = child.value.replace(old, new)
    else:
        shown.data = shown.data.replace(old, new)
    return shown


def _live_control(name, values, label, initial, span=None):
    """The live widget of one control: a slider over ``span`` = ``(low, high[, step])`` (the physical range;
    ``step = "log"``: a logarithmic slider, for a range over decades) or, without one, over the grid's values;
    its readout shows the digits its step needs."""
    import ipywidgets as widgets

    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
    if numeric and span is not None and len(span) > 2 and span[2] == "log":
        return widgets.FloatLogSlider(value=float(initial), base=10, min=math.log10(span[0]),
                                      max=math.log10(span[1]), step=0.01, description=label, readout_format=".4g",
                                      continuous_update=False, style={"description_width": "initial"},
                                      layout=widgets.Layout(width="520px"))
    if numeric and (span is not None or len(values) > 1):
        lo, hi = (float(span[0]), float(span[1])) if span is not None else (float(min(values)), float(max(values)))
        step = float(span[2]) if span is not None and len(span) > 2 else (hi - lo) / 100
        digits = max(0, -math.floor(math.log10(step))) if step > 0 else 3
        return widgets.FloatSlider(value=float(initial), min=lo, max=hi, step=step, description=label,
                                   readout_format=f".{digits}f", continuous_update=False,
                                   style={"description_width": "initial"}, layout=widgets.Layout(width="520px"))
    return widgets.Dropdown(options=list(values), value=initial, description=label,
                            style={"description_width": "initial"})


def explore(draw, grid: Mapping[str, Any], *, labels: Mapping[str, str] | None = None,
            initial: Mapping[str, Any] | None = None, fmt: Mapping[str, Any] | None = None,
            ranges: Mapping[str, tuple] | None = None, dpi: float = FIGURE_DPI,
            mode: str = "auto", caption: str | None = None, alt: str | None = None, live_draw=None):
    """An *Explore* panel: controls that redraw a figure, in the static book and live.

    ``draw(**values)`` returns a matplotlib ``Figure`` (or an HTML string) for
    one value of each control; ``grid`` maps each argument name of ``draw`` to
    the values precomputed for the static book (e.g. 5-9 per control; the panel
    precomputes the product, at most :data:`MAX_EXPLORE_OUTPUTS` outputs).
    ``labels`` are the controls' descriptions (with units), ``initial`` their
    starting values (default: the middle of each grid), ``fmt`` a format string
    or function per name for the slider readouts. ``ranges`` gives a control's physical range
    ``(low, high[, step])`` (step ``"log"``: a logarithmic slider) for the live slider, and ``live_draw``
    (default ``draw``) the figure of the live panel (e.g. with axes that follow the values, where the static
    figures share the grid's axes) (actuator travel, say), which may exceed its grid. ``caption`` is shown under the
    panel ("Explore panel. <caption>"); ``alt`` (default: the caption) is the alt text of
    every precomputed image, followed by the control values it shows.

    Static mode (papermill runs, the published book): one ``SelectionSlider`` per
    control over its grid, and nested ``Stack`` widgets holding every
    precomputed figure; ``jslink`` ties each slider's index to the stacks, so the
    page switches figures in the browser with no kernel (mouse or arrow keys).
    Live mode (a kernel started by Jupyter Server, i.e. JupyterLab / ``make lab``,
    or ``mode="live"``): continuous sliders that
    call ``draw`` again for any value. Returns the displayed ``VBox``.
    """

    import ipywidgets as widgets
    import matplotlib.pyplot as plt
    from IPython.display import HTML, display

    names = list(grid)
    values = {n: list(grid[n]) for n in names}
    labels = {n: (labels or {}).get(n, n) for n in names}
    initial = {n: (initial or {}).get(n, values[n][len(values[n]) // 2]) for n in names}
    fmt = dict(fmt or {})
    alt = alt or caption or "figure of the Explore panel"
    caption_html = _caption_html("Explore panel", caption)

    def show(n, v):
        f = fmt.get(n, "{:g}" if isinstance(v, (int, float)) and not isinstance(v, bool) else "{}")
        return f(v) if callable(f) else f.format(v)

    if mode == "auto":
        mode = "live" if os.environ.get("JPY_SESSION_NAME") else "static"

    def render(vals, state):
        fig = draw(**vals)
        if isinstance(fig, str):
            return widgets.HTML(fig)
        w = _figure_image(fig, dpi, f"{alt} ({state})")
        plt.close(fig)
        return w

    if mode == "live":
        controls = {n: _live_control(n, values[n], labels[n], initial[n], (ranges or {}).get(n))
                    for n in names}
        out = widgets.Output()

        def redraw(change=None):
            vals = {n: c.value for n, c in controls.items()}
            fig = (live_draw or draw)(**vals)
            out.outputs = ()
            if isinstance(fig, str):
                out.append_display_data(HTML(fig))
            else:
                out.append_display_data(png_image(fig, dpi))
                plt.close(fig)

        for c in controls.values():
            c.observe(redraw, names="value")
        redraw()
        note = widgets.HTML("<i>Live panel: the kernel recomputes for any value.</i>")
        box = widgets.VBox([note, *controls.values(), out] + ([widgets.HTML(caption_html)] if caption else []))
        display(box)
        return box

    n_out = math.prod(len(values[n]) for n in names)
    if n_out > MAX_EXPLORE_OUTPUTS:
        raise ParameterError(f"explore: {n_out} precomputed outputs (product of the grids) exceed "
                             f"MAX_EXPLORE_OUTPUTS = {MAX_EXPLORE_OUTPUTS}; use fewer grid values")
    sliders = {}
    for n in names:
        opts = [(show(n, v), v) for v in values[n]]
        cls = widgets.SelectionSlider if len(opts) > 1 else widgets.Dropdown
        sliders[n] = cls(options=opts, value=initial[n], description=labels[n],
                         style={"description_width": "initial"}, layout=widgets.Layout(width="420px"))

    def build(level, fixed):
        n = names[level]
        children = []
        for v in values[n]:
            vals = {**fixed, n: v}
            if level + 1 < len(names):
                children.append(build(level + 1, vals))
            else:
                state = ", ".join(f"{labels[k]} = {show(k, vals[k])}" for k in names)
                children.append(widgets.VBox([widgets.HTML(f'<span class="explore-state">shown: {state}</span>'),
                                              render(vals, state)]))
        stack = widgets.Stack(children, selected_index=values[n].index(initial[n]))
        widgets.jslink((sliders[n], "index"), (stack, "selected_index"))
        return stack

    view = build(0, {})
    grids = "; ".join(f"{labels[n]} ∈ {{{', '.join(show(n, v) for v in values[n])}}}" for n in names)
    note = widgets.HTML(
        f'<p class="explore-note" style="font-size:90%">Precomputed for {grids}; '
        f"the arrow keys also move the sliders.</p>")
    box = widgets.VBox([note, *sliders.values(), view] + ([widgets.HTML(caption_html)] if caption else []))
    box.add_class("robolib-explore")
    display(box)
    return box


#: Font Awesome 4 icons of matplotlib's HTML animation player, as plain Unicode.
_PLAYER_ICONS = {
    '<i class="fa fa-minus"></i>': "&minus;",
    '<i class="fa fa-fast-backward"></i>': "&#x25C0;&#x25C0;",
    '<i class="fa fa-step-backward"></i>': "|&#x25C0;",
    '<i class="fa fa-play fa-flip-horizontal"></i>': "&#x25C0;",
    '<i class="fa fa-pause"></i>': "||",
    '<i class="fa fa-play"></i>': "&#x25B6;",
    '<i class="fa fa-step-forward"></i>': "&#x25B6;|",
    '<i class="fa fa-fast-forward"></i>': "&#x25B6;&#x25B6;",
    '<i class="fa fa-plus"></i>': "+",
}


def animation_html(anim, *, caption: str | None = None, alt: str | None = None, **kwargs):
    """A matplotlib animation as a self-contained HTML player (``IPython.display.HTML``).

    Same as ``HTML(anim.to_jshtml(**kwargs))`` except that the player does not
    load Font Awesome from a CDN (the book must read offline): its icons are
    replaced by plain symbols (triangles and bars, present in common fonts). The frame
    image gets ``alt`` (default: the caption) as its alt text, and ``caption`` is shown
    under the player ("Animation. <caption>").

    >>> import matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> from matplotlib.animation import FuncAnimation
    >>> fig, ax = plt.subplots(); line, = ax.plot([0, 1], [0, 1])
    >>> html = animation_html(FuncAnimation(fig, lambda k: (line,), frames=2), caption="A line.").data
    >>> "font-awesome" in html or "https://" in html, "&#x25B6;" in html, 'alt="A line."' in html
    (False, True, True)
    >>> "Animation.</span> A line." in html, 'aria-label="frame of the animation"' in html
    (True, True)
    """

    from IPython.display import HTML

    text = anim.to_jshtml(**kwargs)
    text = re.sub(r'<link rel="stylesheet"\s+href="https?://[^"]*font-awesome[^"]*">', "", text)
    for icon, symbol in _PLAYER_ICONS.items():
        text = text.replace(icon, f'<span aria-hidden="true">{symbol}</span>')
    alt = alt or caption or "animation of the mechanism"
    font = smallest_font_px(anim._fig, anim._fig.dpi)   # the frames' smallest text at natural size (saved at the figure's dpi)
    text = re.sub(r'<img id="(_anim_img[0-9a-f]*)"', lambda m: f'<img id="{m.group(1)}" alt="{html.escape(alt, quote=True)}" '
                  f'data-{FONT_KEY}="{font:.3f}"', text)
    text = re.sub(r'<input id="(_anim_slider[0-9a-f]*)"', lambda m: f'<input id="{m.group(1)}" aria-label="frame of the '
                  f'animation"', text)   # the player's frame slider has no label of its own
    return HTML(f'<div class="robolib-animation">{text}{_caption_html("Animation", caption)}</div>')
