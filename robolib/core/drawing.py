"""Drawing helpers: any planar mechanism (:func:`draw_mechanism`), a clearance joint's journal orbit
(:func:`draw_orbit`), and for the mechanism packages the figure width, symbol labels, dimension lines,
angle arcs, arrows.

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

>>> from robolib.core.multibody import Body, GroundPin, Mechanism
>>> pend = Mechanism([Body("bar", 1.0, 0.1)], [GroundPin("O", "bar", (-0.5, 0.0), (0.0, 0.0))])
>>> sorted(draw_mechanism(Figure().add_subplot(), pend, [0.5, 0.0, 0.0]))
['O', 'bar']
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.patches import Arc, FancyArrowPatch

#: Resolution (dots per inch) of a figure shown with :meth:`robolib.book.result.StudyResult.figure`.
FIGURE_DPI = 100
#: Width [in] of a figure as wide as the book's text: at FIGURE_DPI its PNG is 660 px (a tight bounding box may add a
#: few px of outlying text), drawn at the width of the book's 672-px column (a 1280-px window), so its text is shown at
#: its own size: 7 pt is 9.7 px (tests/test_figure_layout.py and tests/test_book_browser.py check every figure's width
#: and smallest text as displayed).
FIGURE_WIDTH = 6.6

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


# --------------------------------------------------------------------------- any planar mechanism
#: Colours of the bodies of :func:`draw_mechanism`, in turn; ground and clearance joints.
BODY_COLORS = ("tab:blue", "tab:orange", "tab:green", "tab:purple", "tab:brown", "tab:cyan", "tab:olive")
GROUND_COLOR = "0.35"
CLEARANCE_COLOR = "tab:red"


def mechanism_points(mech, q) -> dict:
    """The points that make each body's outline at state ``q`` (n,): ``{body: (k, 2) array}`` in m.

    A body's points are its joints' and force elements' attachment points, in the
    order of the mechanism's lists, and its centre of mass when it has fewer than two.
    """
    q = np.asarray(q, float)
    pts = {b.name: [] for b in mech.bodies}
    for jt in mech.joints:
        for body, point in _attachments(jt):
            pts[body].append(mech.point_position(q, body, point))
    for fe in mech.forces:
        pts[fe.body].append(mech.point_position(q, fe.body, fe.point))
    for b in mech.bodies:
        if len(pts[b.name]) < 2:
            pts[b.name].append(mech.point_position(q, b.name, (0.0, 0.0)))
    return {name: np.unique(np.round(np.array(p), 12), axis=0) if len(p) > 2 else np.array(p)
            for name, p in pts.items()}


def _attachments(jt):
    """``(body, body-frame point)`` pairs of a joint: two for a pin, one for a ground pin, none otherwise."""
    if hasattr(jt, "point_i"):
        return [(jt.body_i, jt.point_i), (jt.body_j, jt.point_j)]
    if hasattr(jt, "ground"):
        return [(jt.body, jt.point)]
    return []


def draw_mechanism(ax, mech, q, *, clearance_joints=(), labels: bool = True, alpha: float = 1.0,
                   colors=BODY_COLORS) -> dict:
    """Draw any planar mechanism (:class:`robolib.core.multibody.Mechanism`) at state ``q`` (n,), in m.

    Each body is drawn through its attachment points (:func:`mechanism_points`; a bar between
    its two pins, a plate as the polygon of its points), ground pins as hatched triangles,
    pins as white circles; the joints named in ``clearance_joints`` are ringed in red.
    Returns ``{body or joint name: artist}``.
    """
    arts = {}
    for k, (name, p) in enumerate(mechanism_points(mech, q).items()):
        col = colors[k % len(colors)]
        if len(p) > 2:
            order = np.argsort(np.arctan2(*(p - p.mean(axis=0)).T[::-1]))
            p = np.vstack([p[order], p[order[:1]]])
            ax.fill(p[:, 0], p[:, 1], color=col, alpha=0.25 * alpha, lw=0)
        arts[name], = ax.plot(p[:, 0], p[:, 1], "-", color=col, lw=4, solid_capstyle="round", alpha=alpha)
        if labels:
            _label(ax, p[:-1].mean(axis=0) if len(p) > 2 else p.mean(axis=0), name, (0, 9), color=col)
    for jt in mech.joints:
        att = _attachments(jt)
        if not att:
            continue
        at = mech.point_position(q, *att[-1])
        if hasattr(jt, "ground"):
            arts[jt.name], = ax.plot(*jt.ground, marker="^", color=GROUND_COLOR, ms=13, alpha=alpha, zorder=4)
        else:
            arts[jt.name], = ax.plot(*at, "o", color="w", mec="k", ms=6, alpha=alpha, zorder=5)
        if jt.name in clearance_joints:
            ax.plot(*at, "o", mfc="none", mec=CLEARANCE_COLOR, ms=15, mew=2, zorder=6)
        if labels:
            _label(ax, at, jt.name, (8, -10), ha="left", box=False, fontsize=FONTSIZE - 1)
    ax.set(aspect="equal", xlabel="x [m]", ylabel="y [m]")
    return arts


def draw_orbit(ax, e_local, clearance: float, *, color=None, c_values=None, cmap: str = "viridis",
               lw: float = 0.8, label: str | None = None):
    """Journal-centre orbit ``e_local`` (T, 2) in m inside the clearance circle, in units of ``clearance`` (m).

    ``e_local`` is :attr:`robolib.core.clearance.JournalOrbit.e_local`. With ``c_values`` (T,)
    the points are coloured by it (e.g. the contact force); otherwise a line is drawn.
    Returns the artist of the orbit.

    >>> from matplotlib.figure import Figure
    >>> art = draw_orbit(Figure().add_subplot(), np.array([[1e-4, 0.0], [0.0, 1e-4]]), 2e-4)
    >>> art.get_xydata().tolist()                 # in units of the clearance
    [[0.5, 0.0], [0.0, 0.5]]
    """
    th = np.linspace(0, 2 * np.pi, 361)
    ax.plot(np.cos(th), np.sin(th), "-", color="0.4", lw=1.2)
    e = np.asarray(e_local, float) / clearance
    if c_values is None:
        art, = ax.plot(e[:, 0], e[:, 1], "-", color=color or "tab:blue", lw=lw, label=label)
    else:
        art = ax.scatter(e[:, 0], e[:, 1], c=c_values, s=2, cmap=cmap, label=label)
    ax.set_aspect("equal")
    lim = max(1.15, float(np.abs(e).max()) * 1.05)
    ax.set(xlim=(-lim, lim), ylim=(-lim, lim), xlabel="e_x / c (bearing frame)", ylabel="e_y / c")
    return art



def _finish(ax, title):
    ax.set_title(title, fontsize=FONTSIZE + 1)
    ax.tick_params(labelsize=FONTSIZE - 1)
    ax.xaxis.label.set_size(FONTSIZE)
    ax.yaxis.label.set_size(FONTSIZE)




__all__ = ["FIGURE_WIDTH", "FIGURE_DPI", "draw_mechanism", "mechanism_points", "draw_orbit"]
