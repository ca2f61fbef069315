"""Helpers for the study notebooks (kept tiny: the studies' work is in robolib).

Each study notebook has one cell tagged ``parameters`` (papermill injects its
overrides right after it) followed by a call to :func:`check_parameters`, so a
misspelt ``-p name value`` stops the run with a clear error instead of being
silently ignored.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Iterable, Mapping

from .errors import ParameterError

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
    robolib.errors.ParameterError: unknown notebook parameter(s) ['sede']; this notebook declares ['seed']
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

    >>> print(markdown_table(["a", "b"], [[1.0, "x"]]))
    | a | b |
    |---:|---:|
    | 1 | x |
    """
    def cell(v):
        return fmt.format(v) if isinstance(v, (float, int)) and not isinstance(v, bool) else str(v)

    lines = ["| " + " | ".join(map(str, headers)) + " |", "|" + "---:|" * len(headers)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def explore(draw, **controls):
    """Widgets that redraw a matplotlib figure: the *Explore* sections of the studies.

    ``draw(**values)`` returns a matplotlib ``Figure`` for the current control
    values; ``controls`` are ipywidgets value widgets (sliders, dropdowns) keyed
    by the argument names of ``draw``. The figure is put into an ``Output``
    widget's saved outputs directly (not through ``with output:`` capture), so
    the state saved by papermill shows it in the static book, and notebook
    execution never waits on output capture. Returns the ``VBox`` displayed.
    """
    import ipywidgets as widgets
    import matplotlib.pyplot as plt
    from IPython.display import display

    out = widgets.Output()

    def redraw(change=None):
        fig = draw(**{name: c.value for name, c in controls.items()})
        out.outputs = ()
        out.append_display_data(fig)
        plt.close(fig)

    for c in controls.values():
        c.observe(redraw, names="value")
    redraw()
    box = widgets.VBox([*controls.values(), out])
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


def animation_html(anim, **kwargs):
    """A matplotlib animation as a self-contained HTML player (``IPython.display.HTML``).

    Same as ``HTML(anim.to_jshtml(**kwargs))`` except that the player does not
    load Font Awesome from a CDN (the book must read offline): its icons are
    replaced by plain symbols (triangles and bars, present in common fonts).

    >>> import matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> from matplotlib.animation import FuncAnimation
    >>> fig, ax = plt.subplots(); line, = ax.plot([0, 1], [0, 1])
    >>> html = animation_html(FuncAnimation(fig, lambda k: (line,), frames=2)).data
    >>> "font-awesome" in html or "https://" in html, "&#x25B6;" in html
    (False, True)
    """
    import re

    from IPython.display import HTML

    html = anim.to_jshtml(**kwargs)
    html = re.sub(r'<link rel="stylesheet"\s+href="https?://[^"]*font-awesome[^"]*">', "", html)
    for icon, text in _PLAYER_ICONS.items():
        html = html.replace(icon, f'<span aria-hidden="true">{text}</span>')
    return HTML(html)
