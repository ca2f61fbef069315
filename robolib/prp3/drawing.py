"""Matplotlib drawings shared by the study notebooks (no computation here)."""

from __future__ import annotations

import numpy as np

from .. import prp3

import math

from matplotlib.figure import Figure
from matplotlib.patches import Arc, Circle, FancyArrowPatch

from ..book.labels import _BOX, DIM_COLOR, FONTSIZE, _arc, _arrow, _dimension, _finish, _label  # noqa: F401
from .. import prp3 as _prp3


def draw_prp3(ax, geom: prp3.Geometry, lx: float, ly: float, theta: float, *, title: str | None = None):
    """Draw the 3-PRP robot at one input on a 3-D matplotlib axis; return the FK point.

    Fixed platform edge BG and the two rails (grey), sliders and crank
    (black), rods (blue), moving platform (orange triangle of attachment points).
    Raises the kernel's error if the input is unreachable.
    """
    J = prp3.forward(geom, lx, ly, theta)
    C = prp3.slider_points(geom, lx, ly, theta)
    att = J + geom.r * prp3.V
    span = geom.lx_range[1] * 1.05
    for u in (prp3.U1, prp3.U2):
        rail = np.array([np.zeros(3), span * u])
        ax.plot(*rail.T, color="0.6", lw=3, solid_capstyle="round")
    bg = np.array([[geom.l0, -geom.l0, 0], [geom.l0, geom.l0, 0]])
    ax.plot(*bg.T, color="0.3", lw=2)
    pivot = geom.crank_pivot
    ax.plot(*np.array([[geom.l0, 0, 0], pivot]).T, color="0.3", lw=2)
    ax.plot(*np.array([pivot, C[2]]).T, color="k", lw=3)
    ax.scatter(*C[:2].T, color="k", s=30, depthshade=False)
    for k in range(3):
        ax.plot(*np.array([C[k], att[k]]).T, color="tab:blue", lw=1.5)
    tri = np.vstack([att, att[:1]])
    ax.plot(*tri.T, color="tab:orange", lw=2)
    ax.scatter(*J, color="tab:red", s=25, depthshade=False)
    ax.set_xlabel(f"x [{geom.unit}]")
    ax.set_ylabel(f"y [{geom.unit}]")
    ax.set_zlabel(f"z [{geom.unit}]")
    ax.set_xlim(-150, 550)
    ax.set_ylim(-350, 350)
    ax.set_zlim(-550, 250)
    ax.set_box_aspect((700, 700, 800))
    if title:
        ax.set_title(title)
    return J


def prp3_explore_figure(geom: prp3.Geometry, lx: float, ly: float, theta: float, *, size=(4.2, 4.0)):
    """A small 3-D drawing of the 3-PRP robot at one input, titled with ``J``, its mode and conditioning.

    Made for the Explore panel (many precomputed figures): no pane grid and
    three ticks per axis keep each image near 12 kB. An input that the robot
    cannot assume is drawn as an empty frame titled with the kernel's error
    message (:class:`robolib.UnreachableError` / :class:`robolib.SingularityError`).
    Returns a :class:`matplotlib.figure.Figure` (not registered with pyplot).

    >>> fig = prp3_explore_figure(prp3.Geometry(), 200.0, 200.0, 0.0)
    >>> fig.axes[0].get_title().splitlines()[0]
    'J = (262.6, 0.0, -463.6) mm'
    """
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    fig = Figure(figsize=size)
    ax = fig.add_subplot(projection="3d")
    try:
        J = draw_prp3(ax, geom, lx, ly, theta)
        mode = tuple(int(v) for v in prp3.working_mode(geom, lx, ly, theta))
        cond = float(prp3.singularity_measures(geom, lx, ly, theta).condition)
        ax.set_title(f"J = ({J[0]:.1f}, {J[1]:.1f}, {J[2]:.1f}) {geom.unit}\nmode {mode}, cond = {cond:.0f}", fontsize=9)
    except ValueError as exc:  # UnreachableError / SingularityError derive from ValueError
        msg = str(exc)
        ax.set_title(msg[:60] + ("\n" + msg[60:120] if len(msg) > 60 else ""), fontsize=7, color="red")
        ax.set_xlim(-150, 550), ax.set_ylim(-350, 350), ax.set_zlim(-550, 250)
    ax.view_init(elev=18, azim=-60)
    ax.grid(False)
    for axis in (ax.xaxis, ax.yaxis, ax.zaxis):
        axis.set_major_locator(MaxNLocator(3))
        axis.label.set_size(8)
    ax.tick_params(labelsize=7)
    return fig


def svg_img_html(fig, alt: str) -> str:
    """A figure as an ``<img>`` tag holding its SVG (text kept as SVG text), for an Explore panel.

    One render instead of the PNG-and-SVG pair the panel would otherwise make;
    the SVG sits in a ``data:`` URL, so the page needs no file and several
    figures never share SVG element ids. ``alt`` is the image's alt text.

    >>> html = svg_img_html(prp3_explore_figure(prp3.Geometry(), 200.0, 200.0, 0.0), alt="home input")
    >>> html.startswith('<img alt="home input" src="data:image/svg+xml;base64,')
    True
    """
    import base64
    import html as _html
    import io

    import matplotlib

    buf = io.BytesIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "robolib"}):
        fig.savefig(buf, format="svg", metadata={"Date": None})
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    w, h = (fig.get_size_inches() * 72).round().astype(int)
    return (f'<img alt="{_html.escape(alt, quote=True)}" src="data:image/svg+xml;base64,{data}" '
            f'width="{w}" height="{h}" style="max-width:100%;height:auto">')


# --------------------------------------------------------------------------- 3-PRP
def _prp3_default_input(geom):
    lo, hi = geom.actuator_box.T
    lx = lo[0] + 0.625 * (hi[0] - lo[0])
    ly = lo[1] + 0.375 * (hi[1] - lo[1])
    theta = float(np.clip(math.radians(30.0), lo[2], hi[2]))
    return lx, ly, theta


def prp3_mechanism(geom: _prp3.Geometry, lx: float | None = None, ly: float | None = None,
                   theta: float | None = None) -> Figure:
    """Labelled drawing of the 3-PRP robot at one actuator input.

    Four panels: (a) a 3-D view (:func:`robolib.viz.draw_prp3`) with the frame
    O-XYZ; (b) the top view (XY plane) with the fixed-platform edge BG and its
    midpoint A, the rails along ``u1`` and ``u2``, the sliders ``C1``, ``C2``
    and their displacements ``lx``, ``ly``, ``l0``, the platform centre ``J``
    and the attachment offset ``r``; (c) the side view (XZ plane) with the rods
    ``l2`` and the platform below the base; (d) a close-up of the crank chain:
    pivot at height ``h`` above A, crank ``l1`` at angle ``theta``, tip ``C3``.

    Parameters
    ----------
    geom : robolib.prp3.Geometry
        Dimensions, e.g. ``robolib.prp3.load_geometry("prp3/paper.yaml")``;
        lengths in ``geom.unit`` (the paper's: mm).
    lx, ly : float, optional
        Slider displacements along the rails, in ``geom.unit``. Default: 62.5 %
        and 37.5 % of their ranges (250 and 150 mm for the paper's geometry), so
        that the drawing is not symmetric.
    theta : float, optional
        Crank angle in rad, from the X axis towards +Z. Default 30 degrees
        (clipped to the crank's range).

    Returns
    -------
    matplotlib.figure.Figure
        About 10 x 9.4 inches; labels at 10 pt.

    Raises
    ------
    robolib.UnreachableError
        If the input is outside the actuator ranges or the rods cannot meet.

    Examples
    --------
    >>> from robolib.prp3 import load_geometry
    >>> fig = prp3_mechanism(load_geometry("prp3/paper.yaml"))
    >>> len(fig.axes)
    4
    """
    d_lx, d_ly, d_th = _prp3_default_input(geom)
    lx = d_lx if lx is None else float(lx)
    ly = d_ly if ly is None else float(ly)
    theta = d_th if theta is None else float(theta)
    J = _prp3.forward(geom, lx, ly, theta)
    C = _prp3.slider_points(geom, lx, ly, theta)
    att = J + geom.r * _prp3.V
    u = geom.unit
    l0, l1, h = geom.l0, geom.l1, geom.h
    span = geom.lx_range[1] * 1.05

    fig = Figure(figsize=(8.2, 8.2), layout="constrained")
    gsp = fig.add_gridspec(2, 2)

    # (a) 3-D overview (existing drawing), with the frame and the main points
    ax = fig.add_subplot(gsp[0, 0], projection="3d")
    draw_prp3(ax, geom, lx, ly, theta)
    ax.set_title("(a) 3-D view", fontsize=FONTSIZE + 1)
    L = 0.8 * span
    for vec, name in (((1.2 * L, 0, 0), "X"), ((0, L, 0), "Y"), ((0, 0, 0.55 * L), "Z")):
        ax.quiver(0, 0, 0, *vec, color="k", lw=1.2, arrow_length_ratio=0.12)
        ax.text(*(1.12 * np.array(vec)), name, fontsize=FONTSIZE, ha="center")
    ax.text(-25, -25, -60, "O", fontsize=FONTSIZE, ha="center")
    ax.text(*(J + np.array([0, 0, -70])), "J", fontsize=FONTSIZE, color="tab:red", ha="center")
    for axis in (ax.xaxis, ax.yaxis, ax.zaxis):
        axis.label.set_size(FONTSIZE - 1)
    ax.tick_params(labelsize=FONTSIZE - 2)
    ax.view_init(elev=22, azim=-58)

    # (b) top view, XY plane
    ax = fig.add_subplot(gsp[0, 1])
    for uk, name, sgn in ((_prp3.U1, "rail $u_1$", -1), (_prp3.U2, "rail $u_2$", 1)):
        ax.plot([0, span * uk[0]], [0, span * uk[1]], color="0.6", lw=4, solid_capstyle="round", zorder=1)
        _label(ax, span * uk[:2], name, (14, 10 * sgn), ha="left")
    ax.plot([l0, l0], [-l0, l0], color="0.3", lw=2.5, zorder=2)
    for P, name, off in (((l0, -l0), "B", (10, -6)), ((l0, l0), "G", (-2, 13)), ((l0, 0), "A", (-10, 9))):
        ax.plot(*P, "o", color="0.3", ms=4, zorder=3)
        _label(ax, P, name, off)
    _dimension(ax, (l0, 0), (l0, l0), "$l_0$", 0.22 * l0 * -1, text_offset=0.12 * l0)
    ax.plot(*np.array([C[2, :2] * 0 + geom.crank_pivot[:2], C[2, :2]]).T, color="k", lw=3, zorder=4)
    for k in range(2):
        ax.plot(*C[k, :2], "s", color="k", ms=7, zorder=5)
    _label(ax, C[0, :2], "$C_1$", (12, 4), ha="left")
    _label(ax, C[1, :2], "$C_2$", (8, 9), ha="left")
    _label(ax, C[2, :2], "$C_3$", (0, -11))
    _dimension(ax, (0, 0), C[0, :2], "$l_x$", -38.0, text_offset=16.0)
    _dimension(ax, (0, 0), C[1, :2], "$l_y$", 38.0, text_offset=16.0)
    for k in range(3):
        ax.plot(*np.array([C[k, :2], att[k, :2]]).T, color="tab:blue", lw=1.3, zorder=4)
    tri = np.vstack([att, att[:1]])
    ax.fill(tri[:, 0], tri[:, 1], color="tab:orange", alpha=0.35, zorder=5)
    ax.plot(tri[:, 0], tri[:, 1], color="tab:orange", lw=1.5, zorder=5)
    ax.plot(*J[:2], "o", color="tab:red", ms=5, zorder=6)
    _label(ax, J[:2], "J", (-14, -2))
    ax.plot(*np.array([J[:2], att[2, :2]]).T, color=DIM_COLOR, lw=0.8, zorder=7)
    _label(ax, 0.5 * (J[:2] + att[2, :2]), "$r$", (6, 34), ha="center",
           arrowprops={"arrowstyle": "-", "color": DIM_COLOR, "lw": 0.7})
    _arrow(ax, (0, 0), (1.18 * span, 0), lw=1.0)
    _arrow(ax, (0, 0), (0, 0.78 * span), lw=1.0)
    _label(ax, (1.18 * span, 0), "X", (0, -10))
    _label(ax, (0, 0.78 * span), "Y", (-9, 0))
    _label(ax, (0, 0), "O", (-10, -8))
    ax.set_aspect("equal")
    ax.set_xlim(-0.12 * span, 1.25 * span)
    ax.set_ylim(-0.9 * span, 0.9 * span)
    ax.set_xlabel(f"X [{u}]")
    ax.set_ylabel(f"Y [{u}]")
    _finish(ax, "(b) top view (XY plane)")

    # (c) side view, XZ plane
    ax = fig.add_subplot(gsp[1, 0])
    ax.axhline(0.0, color="0.6", lw=1, ls=":", zorder=0)
    pv = geom.crank_pivot
    ax.plot([l0, pv[0]], [0, pv[2]], color="0.3", lw=2, zorder=2)
    ax.plot([pv[0], C[2, 0]], [pv[2], C[2, 2]], color="k", lw=3, zorder=4)
    for k in range(3):
        ax.plot([C[k, 0], att[k, 0]], [C[k, 2], att[k, 2]], color="tab:blue", lw=1.3 if k < 2 else 2.0, zorder=3)
    for k in range(2):
        ax.plot(C[k, 0], C[k, 2], "s", color="k", ms=6, zorder=5)
    ax.plot(*att[:, [0, 2]].T, color="tab:orange", lw=3, zorder=5)
    ax.plot(J[0], J[2], "o", color="tab:red", ms=5, zorder=6)
    _label(ax, (J[0], J[2]), "J = (x, y, z)", (0, -13))
    mid = 0.5 * (C[2, [0, 2]] + att[2, [0, 2]])
    _label(ax, mid, "$l_2$", (12, 0), ha="left")
    _label(ax, C[2, [0, 2]], "$C_3$", (10, 8), ha="left")
    _dimension(ax, (0, 0), (l0, 0), "$l_0$", -70.0, text_offset=18.0)
    _arrow(ax, (0, 0), (1.15 * span, 0), lw=1.0)
    _arrow(ax, (0, 0), (0, 0.45 * span), lw=1.0)
    _label(ax, (1.15 * span, 0), "X", (0, 9))
    _label(ax, (0, 0.45 * span), "Z", (-9, 0))
    _label(ax, (0, 0), "O", (-10, -8))
    _label(ax, (l0, 0), "A", (-9, 10))
    zlo = min(att[:, 2].min(), J[2]) - 0.15 * geom.l2
    ax.set_aspect("equal")
    ax.set_xlim(-0.15 * span, max(att[:, 0].max(), C[2, 0]) + 0.2 * span)
    ax.set_ylim(zlo, pv[2] + l1 + 0.25 * span)
    ax.set_xlabel(f"X [{u}]")
    ax.set_ylabel(f"Z [{u}]")
    _finish(ax, "(c) side view (XZ plane)")

    # (d) crank chain close-up, XZ plane
    ax = fig.add_subplot(gsp[1, 1])
    ax.axhline(0.0, color="0.6", lw=1, ls=":", zorder=0)
    ax.plot([l0 - 0.9 * l1, l0 + 0.2 * l1], [0, 0], color="0.3", lw=2.5, zorder=2)
    ax.plot([l0, pv[0]], [0, pv[2]], color="0.3", lw=2.5, zorder=2)
    ax.plot([pv[0], C[2, 0]], [pv[2], C[2, 2]], color="k", lw=3.5, zorder=4)
    rod = att[2, [0, 2]] - C[2, [0, 2]]
    rod_end = C[2, [0, 2]] + 0.35 * rod
    ax.plot(*np.array([C[2, [0, 2]], rod_end]).T, color="tab:blue", lw=2, zorder=3)
    ax.plot(*np.array([rod_end, C[2, [0, 2]] + 0.5 * rod]).T, color="tab:blue", lw=2, ls=":", zorder=3)
    ax.plot(pv[0], pv[2], "o", color="w", mec="k", ms=7, zorder=6)
    ax.plot(*C[2, [0, 2]], "o", color="k", ms=5, zorder=6)
    ax.plot(l0, 0, "o", color="0.3", ms=4, zorder=6)
    ax.plot([pv[0], pv[0] + 0.75 * l1], [pv[2], pv[2]], color=DIM_COLOR, lw=0.7, ls="--", zorder=3)
    _arc(ax, pv[:: 2], 0.45 * l1, 0.0, theta, r"$\theta$")
    _dimension(ax, pv[::2], C[2, [0, 2]], "$l_1$", 0.12 * l1, text_offset=0.07 * l1)
    _dimension(ax, (l0, 0), pv[::2], "$h$", 0.2 * l1, text_offset=0.08 * l1)
    _label(ax, pv[::2], "pivot $(l_0, 0, h)$", (-14, 40), ha="center",
           arrowprops={"arrowstyle": "-", "color": DIM_COLOR, "lw": 0.7})
    _label(ax, (l0, 0), "A", (10, -9))
    _label(ax, C[2, [0, 2]], "$C_3$", (12, 4), ha="left")
    _label(ax, rod_end, "rod $l_2$ to J", (-10, -4), ha="right")
    _label(ax, (l0 - 0.9 * l1, 0), "base (z = 0)", (0, -11), ha="left", box=False)
    ax.set_aspect("equal")
    ax.set_xlim(l0 - 0.95 * l1, l0 + 1.55 * l1)
    ax.set_ylim(min(-0.45 * l1, rod_end[1] - 0.1 * l1), pv[2] + 1.05 * l1)
    ax.set_xlabel(f"X [{u}]")
    ax.set_ylabel(f"Z [{u}]")
    _finish(ax, "(d) crank chain (XZ plane)")
    fig.suptitle(f"3-PRP robot at $l_x$ = {lx:g} {u}, $l_y$ = {ly:g} {u}, "
                 rf"$\theta$ = {math.degrees(theta):.4g}°", fontsize=FONTSIZE + 2)
    return fig
