"""Labelled drawings of the four mechanisms, for the book's Models pages and the chapters.

One function per mechanism; each takes what the robolib loader returns and
returns a new :class:`matplotlib.figure.Figure` whose labels are the symbols and
main dimensions of the mechanism's Models page:

* :func:`prp3_mechanism` -- 3-PRP robot (:func:`robolib.prp3.load_geometry`);
* :func:`redundant_mechanism` -- redundantly actuated planar robot (:func:`robolib.redundant.load`);
* :func:`gearshift_mechanism` -- gear-shift manipulator and its clearance joint
  (:func:`robolib.gearshift.load_parameters`);
* :func:`stewart_mechanism` -- 6-UPS Gough-Stewart platform (:func:`robolib.stewart.load`).

The mechanism itself is drawn by the existing drawing modules
(:mod:`robolib.viz`, :mod:`robolib.redundant_viz`, :mod:`robolib.gearshift_viz`,
:mod:`robolib.stewart.viz`); this module only adds labels, dimension lines,
angle arcs and schematic details. The figures are built with
:class:`matplotlib.figure.Figure` directly, not through ``pyplot``: they work
with any backend (including ``Agg``), are never shown twice in a notebook, and
need no ``plt.close``. Show one in a notebook by making it the cell's last
expression, or save it with ``fig.savefig("name.svg")``.

>>> from robolib.prp3 import load_geometry
>>> fig = prp3_mechanism(load_geometry("prp3/paper.yaml"))
>>> len(fig.axes) >= 1
True
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Arc, Circle, FancyArrowPatch

from . import gearshift as _gearshift
from . import prp3 as _prp3
from . import redundant as _redundant
from .gearshift_viz import CHAIN_COLORS, CLEARANCE_COLOR, draw_gearshift, joint_positions
from .redundant_viz import ACTIVE_COLOR, EFFECTOR_COLOR, PASSIVE_COLOR, draw_base, draw_robot, joint_points
from .stewart.kinematics import joint_points as _stewart_points
from .stewart.kinematics import leg_geometry as _leg_geometry
from .stewart.viz import COLORS as _STEWART_COLORS
from .stewart.viz import draw_stewart
from .viz import draw_prp3

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
    ax.add_patch(FancyArrowPatch(q0, q1, arrowstyle="<|-|>", mutation_scale=9, color=color, lw=0.9,
                                 shrinkA=0, shrinkB=0, zorder=8))
    m = 0.5 * (q0 + q1) + (np.sign(offset) * text_offset) * n
    return ax.text(*m, text, ha="center", va="center", fontsize=FONTSIZE, color=color, bbox=_BOX, zorder=20)


def _arc(ax, centre, radius, a0, a1, text, *, text_radius=None, color=DIM_COLOR, arrow=True):
    """Angle arc from direction ``a0`` to ``a1`` (rad, counter-clockwise positive) with a label."""
    c = np.asarray(centre, float)
    lo, hi = (a0, a1) if a1 >= a0 else (a1, a0)
    ax.add_patch(Arc(c, 2 * radius, 2 * radius, theta1=math.degrees(lo), theta2=math.degrees(hi), color=color,
                     lw=0.9, zorder=8))
    if arrow:
        e = c + radius * np.array([math.cos(a1), math.sin(a1)])
        s = c + radius * np.array([math.cos(a1 - 0.12 * np.sign(a1 - a0)), math.sin(a1 - 0.12 * np.sign(a1 - a0))])
        ax.add_patch(FancyArrowPatch(s, e, arrowstyle="-|>", mutation_scale=8, color=color, lw=0.9, shrinkA=0,
                                     shrinkB=0, zorder=8))
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


# --------------------------------------------------------------------------- redundant planar robot
def redundant_mechanism(params: _redundant.Robot, point=None) -> Figure:
    """Labelled drawing of the 2-DOF redundantly actuated planar robot.

    Shows the base points ``A1..A3``, the active links (driven at ``A_i`` by
    the motor torques ``tau_i``) and the passive links, all of length ``l``,
    the passive joints, the end-effector ``E``, the cut-chain coordinates of
    chain 1 (active-joint position ``(x_1, y_1)``, absolute active-link angle
    ``a_1``, relative passive angle ``b_1``) and the reference circle.

    Parameters
    ----------
    params : robolib.redundant.Robot
        The robot, e.g. ``robolib.redundant.load("redundant/default.yaml")``
        (lengths in m).
    point : array_like of shape (2,), optional
        End-effector position in m. Default: 0.3 link lengths right of and 0.15
        above the base centroid (a generic, non-symmetric pose).

    Returns
    -------
    matplotlib.figure.Figure
        About 7.5 x 6.8 inches; labels at 10 pt.

    Examples
    --------
    >>> from robolib import redundant
    >>> fig = redundant_mechanism(redundant.load("redundant/default.yaml"))
    >>> len(fig.axes)
    1
    """
    robot = params
    l = robot.link_length
    p = robot.centroid + np.array([0.3, 0.15]) * l if point is None else np.asarray(point, float)
    q = _redundant.inverse_kinematics(robot, p)
    P = joint_points(robot, q)
    fig = Figure(figsize=(6.2, 5.8), layout="constrained")
    ax = fig.add_subplot()
    draw_base(ax, robot, labels=False)
    draw_robot(ax, robot, q, labels=True)
    c = robot.centroid
    for i in range(3):
        A = robot.base[i]
        d = (A - c) / np.linalg.norm(A - c)
        _label(ax, A + 0.16 * l * d, f"$A_{i + 1}$", (0, 0))
        # motor torque tau_i: a curved arrow about A_i
        a_i = q[4 * i + 2]
        _arc(ax, A, 0.2 * l, a_i + 0.55, a_i + 1.6, rf"$\tau_{i + 1}$", color="tab:purple", text_radius=0.3 * l)
        mid_a = 0.5 * (P[i, 0] + P[i, 1])
        mid_b = 0.5 * (P[i, 1] + P[i, 2])
        na = np.array([-(P[i, 1] - P[i, 0])[1], (P[i, 1] - P[i, 0])[0]]) / l
        nb = np.array([-(P[i, 2] - P[i, 1])[1], (P[i, 2] - P[i, 1])[0]]) / l
        _label(ax, mid_a - 0.12 * l * na, "$l$", (0, 0), color=ACTIVE_COLOR)
        _label(ax, mid_b - 0.12 * l * nb, "$l$", (0, 0), color=PASSIVE_COLOR)
    # chain 1: coordinates (x_1, y_1), a_1 (absolute), b_1 (relative)
    A1, B1, E = P[0]
    a1, b1 = q[2], q[3]
    ax.plot([A1[0], A1[0] + 0.55 * l], [A1[1], A1[1]], color=DIM_COLOR, lw=0.7, ls="--")
    _arc(ax, A1, 0.42 * l, 0.0, a1, "$a_1$", text_radius=0.52 * l)
    ext = B1 + 0.5 * l * np.array([math.cos(a1), math.sin(a1)])
    ax.plot(*np.array([B1, ext]).T, color=DIM_COLOR, lw=0.7, ls="--")
    _arc(ax, B1, 0.3 * l, a1, a1 + b1, "$b_1$", text_radius=0.42 * l)
    _label(ax, A1, "$(x_1, y_1)$", (-30, 14), ha="center")
    _label(ax, B1, "passive joint", (0, -14))
    _label(ax, E, "$E = (x, y)$", (16, 12), ha="left", color=EFFECTOR_COLOR)
    ax.legend(loc="upper left", fontsize=FONTSIZE - 1, framealpha=0.9)
    _finish(ax, f"Redundantly actuated planar robot (l = {l:g} m)")
    return fig


# --------------------------------------------------------------------------- gear-shift manipulator
def _clearance_schematic(ax):
    """Clearance revolute joint, not to scale: bearing (body i), journal (body j), contact quantities."""
    RB, RJ = 1.0, 0.7
    c = RB - RJ
    delta = 0.06
    ang = math.radians(-25.0)
    n = np.array([math.cos(ang), math.sin(ang)])
    t = np.array([-n[1], n[0]])
    Pi = np.zeros(2)
    Pj = Pi + (c + delta) * n
    ax.add_patch(Circle(Pi, RB + 0.2, fc="0.85", ec="none", zorder=1))
    ax.add_patch(Circle(Pi, RB, fc="white", ec="0.2", lw=1.5, zorder=2))
    ax.add_patch(Circle(Pj, RJ, fc=CHAIN_COLORS[0], ec="0.1", alpha=0.35, lw=1.2, zorder=3))
    ax.add_patch(Circle(Pi, c, fc="none", ec=CLEARANCE_COLOR, lw=0.9, ls="--", zorder=4))
    ax.plot(*Pi, "+", color="k", ms=9, mew=1.5, zorder=6)
    ax.plot(*Pj, "o", color="k", ms=4, zorder=6)
    _label(ax, Pi, "$P_i$", (-12, -10))
    _label(ax, Pj, "$P_j$", (4, 12))
    _arrow(ax, Pi, Pj, color=CLEARANCE_COLOR, lw=1.3)
    _label(ax, 0.5 * (Pi + Pj), "$e$", (0, -11), color=CLEARANCE_COLOR, box=False)
    Qi, Qj = Pi + RB * n, Pj + RJ * n
    ax.plot(*Qi, "o", color="k", ms=3.5, zorder=7)
    ax.plot(*Qj, "o", color="k", ms=3.5, zorder=7)
    _label(ax, Qi, "$Q_i$", (14, 10))
    _label(ax, Qj, "$Q_j$", (-17, -2))
    _arrow(ax, Qi, Qi + 0.4 * n, color="k", lw=1.1)
    _label(ax, Qi + 0.4 * n, "$n$", (9, 0), box=False)
    _arrow(ax, Qi, Qi + 0.4 * t, color="k", lw=1.1)
    _label(ax, Qi + 0.4 * t, "$t$", (8, 2), box=False)
    _arrow(ax, Qj, Qj - 0.38 * n, color="tab:purple", lw=1.8)
    _label(ax, Qj - 0.38 * n, "$F_n$", (-2, 10), color="tab:purple")
    _arrow(ax, Qj, Qj - 0.5 * t, color="tab:green", lw=1.8)
    _label(ax, Qj - 0.5 * t, "$F_t$", (-13, -2), color="tab:green")
    u = np.array([math.cos(2.2), math.sin(2.2)])
    ax.plot(*np.array([Pi, Pi + RB * u]).T, color=DIM_COLOR, lw=0.8, zorder=5)
    _label(ax, Pi + 0.72 * RB * u, "$R_B$", (0, 0))
    v = np.array([math.cos(1.1), math.sin(1.1)])
    ax.plot(*np.array([Pj, Pj + RJ * v]).T, color=DIM_COLOR, lw=0.8, zorder=5)
    _label(ax, Pj + 0.62 * RJ * v, "$R_J$", (0, 0))
    _label(ax, Pi + c * np.array([math.cos(3.6), math.sin(3.6)]), "$c = R_B - R_J$", (-30, -26),
           color=CLEARANCE_COLOR, arrowprops={"arrowstyle": "-", "color": CLEARANCE_COLOR, "lw": 0.7})
    _label(ax, 0.5 * (Qi + Qj), "penetration\n" r"$\delta = |e| - c$", (18, -50), ha="left", color=DIM_COLOR,
           arrowprops={"arrowstyle": "-", "color": DIM_COLOR, "lw": 0.7})
    _label(ax, (0.0, RB + 0.1), "bearing (body $i$)", (0, 0), box=False)
    _label(ax, Pj + np.array([-0.22, -0.45]), "journal (body $j$)", (0, 0), box=False)
    ax.set_aspect("equal")
    ax.set_xlim(-1.45, 1.75)
    ax.set_ylim(-1.5, 1.4)
    ax.axis("off")
    _finish(ax, "(b) clearance joint (not to scale)")


def gearshift_mechanism(params: dict) -> Figure:
    """Labelled drawing of the gear-shift manipulator and of a revolute joint with clearance.

    Panel (a) draws the manipulator at ``t = 0`` (:func:`robolib.gearshift_viz.draw_gearshift`):
    bodies ``l11 .. l32`` and the lever ``pc``, ground pins ``A1..A3``, elbow
    pins ``B1..B3``, the end point ``E`` (pins ``E2``, ``E3``, ``C`` and the
    angle lock), the clearance joint(s) of ``params["clearance"]["joints"]``
    ringed in red, the two drive inputs (base angles ``theta_i1(t)`` of the
    chains in ``params["motion"]["driven_chains"]``), the shift stroke of ``E``
    and the gearbox spring-damper ``k, c``. Panel (b) is a schematic of a
    clearance joint: bearing and journal radii ``R_B``, ``R_J``, radial
    clearance ``c``, eccentricity ``e``, penetration ``delta``, normal and
    tangent ``n``, ``t``, contact points ``Q_i``, ``Q_j`` and the contact
    forces ``F_n``, ``F_t`` on the journal.

    Parameters
    ----------
    params : dict
        Parameters from :func:`robolib.gearshift.load_parameters` (SI units:
        lengths m, masses kg, stiffness N/m, damping N s/m).

    Returns
    -------
    matplotlib.figure.Figure
        About 11 x 5.6 inches; labels at 10 pt.

    Examples
    --------
    >>> from robolib.gearshift import load_parameters
    >>> fig = gearshift_mechanism(load_parameters("gearshift/default.yaml"))
    >>> len(fig.axes)
    2
    """
    gs = _gearshift.build_gearshift(params)
    q = gs.ideal_state(0.0)[0]
    names = [s.strip() for s in params["clearance"]["joints"].split(",") if s.strip()]
    driven = [int(round(x)) for x in np.asarray(params["motion"]["driven_chains"], float)]
    l = gs.l
    fig = Figure(figsize=(8.6, 4.6), layout="constrained")
    ax = fig.add_subplot(1, 2, 1)
    draw_gearshift(ax, gs, q, clearance_joints=names, labels=False)
    seg = gs.drawing(q)
    jp = joint_positions(gs, q)
    cen = gs.A.mean(axis=0)
    for i in (1, 2, 3):
        A = gs.A[i - 1]
        d = (A - cen) / np.linalg.norm(A - cen)
        _label(ax, A + 0.2 * l * d, f"$A_{i}$", (0, 0))
        B = jp[f"B{i}"]
        dB = (B - cen) / np.linalg.norm(B - cen)
        _label(ax, B + 0.17 * l * dB, f"$B_{i}$", (0, 0))
        for j in (1, 2):
            s = seg[f"l{i}{j}"]
            mid = s.mean(axis=0)
            v = s[1] - s[0]
            nrm = np.array([-v[1], v[0]]) / np.hypot(*v)
            if np.dot(nrm, mid - cen) < 0:
                nrm = -nrm
            _label(ax, mid + 0.14 * l * nrm, f"$l_{{{i}{j}}}$", (0, 0), color=CHAIN_COLORS[i - 1])
    E = jp["E"]
    lev = seg["lever"]
    _label(ax, lev.mean(axis=0), "lever $pc$", (0, -14))
    _label(ax, E, "$E$", (9, 13))
    ax.text(0.02, 0.03, "At $E$: pins $E_2$, $E_3$ (chain ends) and $C$ (lever);\n"
            "lock: lever angle = angle of $l_{12}$", transform=ax.transAxes, fontsize=FONTSIZE - 1,
            va="bottom", ha="left", bbox=_BOX)
    # drive inputs on the driven chains' base angles
    for i in driven:
        A = gs.A[i - 1]
        th = q[3 * (2 * (i - 1)) + 2]
        lo_, hi_, tr_ = (-0.9, -0.1, 0.62) if i == 1 else (-0.7, 0.1, 0.5)
        _arc(ax, A, 0.3 * l, th + lo_, th + hi_, rf"$\theta_{{{i}1}}(t)$", color="tab:purple",
             text_radius=tr_ * l)
    # shift stroke of E
    a = params["motion"]["stroke_amplitude"]
    xs = E[0] - 0.3 * l
    _arrow(ax, (xs, E[1] - a), (xs, E[1] + a), color="tab:purple", style="<|-|>", lw=1.2)
    _label(ax, (xs, E[1] - a), r"stroke of $E$: $\pm a$", (0, -10), color="tab:purple")
    # gearbox spring at the lever tip
    tip = gs.lever_tip(q)
    _label(ax, tip, "gearbox $k$, $c_{gb}$", (6, -14), ha="left", color="tab:purple")
    for nm in names:
        key = "E" if nm in ("E2", "E3", "C") else nm
        if key in jp:
            _label(ax, jp[key], f"clearance joint {nm}", (-6, 36), ha="left", color=CLEARANCE_COLOR,
                   arrowprops={"arrowstyle": "-", "color": CLEARANCE_COLOR, "lw": 0.8})
    pts = np.vstack([gs.A, np.array(list(jp.values())), lev])
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    ax.set_xlim(lo[0] - 0.55 * l, hi[0] + 0.45 * l)
    ax.set_ylim(lo[1] - 0.75 * l, hi[1] + 0.35 * l)
    _finish(ax, f"(a) gear-shift manipulator at t = 0 (links {l:g} m)")
    _clearance_schematic(fig.add_subplot(1, 2, 2))
    return fig


# --------------------------------------------------------------------------- Stewart platform
def _leg_schematic(ax):
    """One U-P-S leg, schematic (not to scale): U axes, leg axis, forbidden direction, S joint, platform."""
    b = np.array([0.0, 0.0])
    phi = 0.28
    s = np.array([-math.sin(phi), math.cos(phi)])
    perp = np.array([s[1], -s[0]])           # to the right of the leg
    Lg = 4.0
    P = b + Lg * s
    ax.fill([-1.6, 1.6, 1.6, -1.6], [-0.42, -0.42, -0.15, -0.15], color="0.85", zorder=1)
    _label(ax, (1.55, -0.29), "base", (0, 0), ha="right", box=False)
    ax.plot(*np.array([b, b + 2.1 * s]).T, color=_STEWART_COLORS["cylinder"], lw=10, solid_capstyle="butt",
            zorder=3)
    ax.plot(*np.array([b + 1.7 * s, P]).T, color=_STEWART_COLORS["rod"], lw=3.5, zorder=2)
    ax.plot(*np.array([b - 0.3 * s, P + 0.7 * s]).T, color=DIM_COLOR, lw=0.7, ls="-.", zorder=2)
    _label(ax, b + 1.6 * s, "cylinder", (-12, 0), ha="right", box=False)
    _label(ax, b + 2.9 * s, "rod", (-10, 0), ha="right", box=False)
    # U joint: fixed axis a_i (drawn obliquely, into the page), second axis c_i, forbidden direction n_i
    a_dir = np.array([-0.8, -0.45])
    ax.plot(*np.array([b - 0.45 * a_dir, b + 0.45 * a_dir]).T, color=_STEWART_COLORS["uaxis"], lw=3, zorder=4)
    _arrow(ax, b, b + 1.1 * a_dir, color=_STEWART_COLORS["uaxis"], lw=1.6)
    _label(ax, b + 1.1 * a_dir, "$a_i$ (fixed in the base)", (-4, -10), ha="right", color="tab:green")
    _arrow(ax, b, b + 1.2 * perp, color="tab:olive", lw=1.6)
    _label(ax, b + 1.2 * perp, "$c_i$ (fixed in the leg)", (4, -10), ha="left", color="tab:olive")
    nvec = 1.1 * np.array([-math.sin(phi + 0.5), math.cos(phi + 0.5)])
    _arrow(ax, b, b + nvec, color="tab:red", lw=1.5, zorder=10)
    _label(ax, b + nvec, r"$n_i = a_i \times c_i$", (-4, 6), ha="right", color="tab:red")
    ax.plot(*b, "o", color="w", mec="k", ms=10, zorder=11)
    _label(ax, b, "U joint at $b_i$", (-12, 12), ha="right")
    _arrow(ax, b + 2.3 * s + 0.45 * perp, b + 3.1 * s + 0.45 * perp, color="k", lw=1.4)
    _label(ax, b + 2.7 * s + 0.45 * perp, "$s_i$", (10, -2), ha="left")
    _arrow(ax, b + 1.3 * s + 0.45 * perp, b + 2.0 * s + 0.45 * perp, color=_STEWART_COLORS["push"], lw=1.8)
    _label(ax, b + 1.65 * s + 0.45 * perp, "$f_i$ on the rod", (10, -2), ha="left", color=_STEWART_COLORS["push"])
    _dimension(ax, P, b, "$l_i$", 1.35, text_offset=0.22)
    # platform, S joint, platform origin
    pdir = np.array([math.cos(0.12), math.sin(0.12)])
    O = P - 1.45 * pdir
    ax.plot(*np.array([O - 0.45 * pdir, P + 0.8 * pdir]).T, color=_STEWART_COLORS["platform"], lw=7,
            solid_capstyle="round", zorder=3)
    ax.plot(*P, "o", color="k", ms=10, zorder=11)
    _label(ax, P, "S joint at $P_i$", (12, -14), ha="left")
    ax.plot(*O, "x", color="k", ms=9, mew=2, zorder=11)
    _arrow(ax, O, P, color="tab:brown", lw=1.4, zorder=10)
    _label(ax, 0.5 * (O + P), "$R\\,p_i$", (0, -13), color="tab:brown")
    _label(ax, O, "platform origin $t$", (0, 15))
    _label(ax, P + 0.6 * pdir, "platform", (0, 14), box=False)
    ax.set_aspect("equal")
    ax.set_xlim(-2.9, 3.0)
    ax.set_ylim(-1.0, 4.8)
    ax.axis("off")
    _finish(ax, "(b) leg $i$, U-P-S (not to scale)")


def stewart_mechanism(model, pose=None) -> Figure:
    """Labelled drawing of the 6-UPS Gough-Stewart platform and of one leg.

    Panel (a) draws the platform (:func:`robolib.stewart.viz.draw_stewart`) at
    ``pose`` with the base frame (origin and axes ``x, y, z``), the platform
    frame at the platform origin ``t``, the U-joint centres ``b_1..b_6`` (with
    their fixed axes ``a_i`` in green) and the S-joint centres ``P_1..P_6``.
    Panel (b) is a schematic of one U-P-S leg: U joint at ``b_i`` with the
    fixed axis ``a_i``, the second axis ``c_i`` and the forbidden direction
    ``n_i = a_i x c_i``; leg axis ``s_i`` and length ``l_i``; cylinder, rod and
    actuator force ``f_i``; S joint at ``P_i = t + R p_i``.

    Parameters
    ----------
    model : robolib.stewart.StewartModel
        From ``robolib.stewart.load("stewart/tsai2000.yaml")`` (SI units).
    pose : array_like of shape (6,), optional
        ``[x, y, z, roll, pitch, yaw]`` in m and rad; default ``model.home_pose``.

    Returns
    -------
    matplotlib.figure.Figure
        About 11 x 5.8 inches; labels at 9-10 pt.

    Examples
    --------
    >>> from robolib import stewart
    >>> fig = stewart_mechanism(stewart.load("stewart/tsai2000.yaml"))
    >>> len(fig.axes)
    2
    """
    pose = np.asarray(model.home_pose if pose is None else pose, dtype=float)
    fig = Figure(figsize=(8.6, 5.4), layout="constrained")
    gsp = fig.add_gridspec(1, 2, width_ratios=(1.1, 1.0))
    ax = fig.add_subplot(gsp[0, 0], projection="3d")
    P = draw_stewart(ax, model, pose, labels=False, show_com=False)
    B, _ = _stewart_points(model, pose)
    g = _leg_geometry(model, pose)
    mean_leg = float(np.mean(g.length))
    cb, cp = B.mean(axis=0), P.mean(axis=0)
    for i in range(6):
        db = B[i] - cb
        db[2] = 0.0
        db = db / max(np.linalg.norm(db), 1e-300)
        ax.text(*(B[i] + 0.16 * mean_leg * db + np.array([0, 0, -0.06 * mean_leg])), f"$b_{i + 1}$",
                fontsize=FONTSIZE - 1, ha="center", va="center")
        dp = P[i] - cp
        dp[2] = 0.0
        dp = dp / max(np.linalg.norm(dp), 1e-300)
        ax.text(*(P[i] + 0.14 * mean_leg * dp + np.array([0, 0, 0.06 * mean_leg])), f"$P_{i + 1}$",
                fontsize=FONTSIZE - 1, ha="center", va="center", color="tab:brown")
    L = 0.3 * mean_leg
    R = g.R
    t = pose[:3]
    for k, name in enumerate("xyz"):
        e = np.eye(3)[k] * L
        ax.quiver(0, 0, 0, *e, color="k", lw=1.3, arrow_length_ratio=0.2)
        ax.text(*(1.25 * e), name, fontsize=FONTSIZE - 1, ha="center")
        ep = R[:, k] * 0.8 * L
        ax.quiver(*t, *ep, color="tab:brown", lw=1.3, arrow_length_ratio=0.2)
        if name == "z":
            ax.text(*(t + 1.3 * ep), "z'", fontsize=FONTSIZE - 1, ha="center", color="tab:brown")
    ax.text(0.3 * mean_leg, -0.45 * mean_leg, -0.3 * mean_leg, "base frame", fontsize=FONTSIZE - 1, ha="center")
    ax.text(*(t + np.array([0, 0, 0.45 * mean_leg])), "platform frame at $t$", fontsize=FONTSIZE - 1,
            ha="center", color="tab:brown")
    lo, hi = ax.get_xlim3d(), ax.get_zlim3d()
    ax.set_zlim(min(hi[0], -0.25 * mean_leg), hi[1])
    ax.tick_params(labelsize=FONTSIZE - 2)
    for axis in (ax.xaxis, ax.yaxis, ax.zaxis):
        axis.label.set_size(FONTSIZE - 1)
    ax.view_init(elev=35, azim=-150)
    ax.set_title(f"(a) {model.name} at pose [{', '.join(f'{v:g}' for v in pose)}]", fontsize=FONTSIZE + 1)
    _leg_schematic(fig.add_subplot(gsp[0, 1]))
    return fig


__all__ = ["FONTSIZE", "prp3_mechanism", "redundant_mechanism", "gearshift_mechanism", "stewart_mechanism"]
