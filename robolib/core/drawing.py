"""Drawing helpers of the mechanism packages: the figure width, symbol labels, dimension lines, angle arcs, arrows.

The mechanism packages draw their labelled figures with these helpers
(:func:`robolib.prp3.drawing.prp3_mechanism`, :func:`robolib.redundant.drawing.redundant_mechanism`,
:func:`robolib.gearshift.drawing.gearshift_mechanism`, :func:`robolib.stewart.drawing.stewart_mechanism`).
The figures are built with :class:`matplotlib.figure.Figure` directly, not through
``pyplot``: they work with any backend (including ``Agg``), are never shown twice in a
notebook, and need no ``plt.close``.

>>> from matplotlib.figure import Figure
>>> ax = Figure().add_subplot()
>>> _dimension(ax, (0.0, 0.0), (1.0, 0.0), "l", 0.1).get_text()   # a dimension line labelled l, 0.1 above
'l'
>>> len(ax.lines), len(ax.patches)                                 # two extension lines, one double arrow
(2, 1)
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.patches import Arc, FancyArrowPatch

#: Resolution (dots per inch) of a figure shown with :meth:`robolib.book.result.StudyResult.figure`.
FIGURE_DPI = 100
#: Width [in] of a figure as wide as the book's text: at FIGURE_DPI its PNG is under 1000 px, which the 672-px column
#: shows at >= 0.67 of natural size, matplotlib's 10-pt text at >= 9 px (tests/test_book_browser.py checks it).
FIGURE_WIDTH = 9.6

#: Font size (pt) of every label in these drawings (the book requires at least 9).
FONTSIZE = 10
#: Colour of dimension lines, angle arcs and their labels.
DIM_COLOR = "0.15"
_BOX = {"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.85}


# --------------------------------------------------------------------------- helpers (2-D axes)
def _label(ax, xy, text, offset=(0.0, 0.0), *, ha="center", va="center", color="k", box=True, **kw):
    """Text at data point ``xy`` shifted by ``offset`` (typographic points)."""
    return ax.annotate(text, xy, xytext=offset, textcoords="offset points", ha=ha, va=va, color=color,
                       fontsize=kw.pop("fontsize", FONTSIZE), bbox=_BOX if box else None, zorder=20, **kw)


def _dimension(ax, p0, p1, text, offset, *, text_offset=0.0, color=DIM_COLOR):
    """Dimension line between ``p0`` and ``p1`` (data units), shifted by ``offset`` along the left normal.

    Extension lines join the points to the dimension line; the label sits in its
    middle, ``text_offset`` (data units) further out.
    """
    p0, p1 = np.asarray(p0, float), np.asarray(p1, float)
    d = p1 - p0
    n = np.array([-d[1], d[0]]) / max(np.hypot(*d), 1e-300)
    q0, q1 = p0 + offset * n, p1 + offset * n
    for p, q in ((p0, q0), (p1, q1)):
        ax.plot(*np.array([p + 0.1 * offset * n, q + 0.08 * offset * n]).T, color=color, lw=0.6, zorder=8)
    _arrow(ax, q0, q1, color=color, lw=0.9, style="<|-|>", scale=9, zorder=8)
    m = 0.5 * (q0 + q1) + (np.sign(offset) * text_offset) * n
    return ax.text(*m, text, ha="center", va="center", fontsize=FONTSIZE, color=color, bbox=_BOX, zorder=20)


def _arc(ax, centre, radius, a0, a1, text, *, text_radius=None, color=DIM_COLOR):
    """Angle arc from direction ``a0`` to ``a1`` (rad, counter-clockwise positive) with a label."""
    c = np.asarray(centre, float)
    lo, hi = (a0, a1) if a1 >= a0 else (a1, a0)
    ax.add_patch(Arc(c, 2 * radius, 2 * radius, theta1=math.degrees(lo), theta2=math.degrees(hi), color=color,
                     lw=0.9, zorder=8))
    e = c + radius * np.array([math.cos(a1), math.sin(a1)])
    s = c + radius * np.array([math.cos(a1 - 0.12 * np.sign(a1 - a0)), math.sin(a1 - 0.12 * np.sign(a1 - a0))])
    _arrow(ax, s, e, color=color, lw=0.9, scale=8, zorder=8)
    mid = 0.5 * (a0 + a1)
    tr = radius * 1.35 if text_radius is None else text_radius
    return ax.text(*(c + tr * np.array([math.cos(mid), math.sin(mid)])), text, ha="center", va="center",
                   fontsize=FONTSIZE, color=color, bbox=_BOX, zorder=20)


def _arrow(ax, p0, p1, *, color="k", lw=1.4, style="-|>", scale=11, zorder=9, **kw):
    ax.add_patch(FancyArrowPatch(tuple(p0), tuple(p1), arrowstyle=style, mutation_scale=scale, color=color, lw=lw,
                                 shrinkA=0, shrinkB=0, zorder=zorder, **kw))


def _finish(ax, title):
    ax.set_title(title, fontsize=FONTSIZE + 1)
    ax.tick_params(labelsize=FONTSIZE - 1)
    ax.xaxis.label.set_size(FONTSIZE)
    ax.yaxis.label.set_size(FONTSIZE)


