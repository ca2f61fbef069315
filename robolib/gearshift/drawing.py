"""Matplotlib drawings of the gear-shift manipulator and its clearance joint (no computation here).

Used by the study notebook ``clearance_dynamics``. Every function draws on a
given 2-D axis and returns what it drew.

>>> import matplotlib; matplotlib.use("Agg")
>>> import matplotlib.pyplot as plt
>>> from robolib import gearshift
>>> gs = gearshift.build_gearshift()
>>> fig, ax = plt.subplots()
>>> arts = draw_gearshift(ax, gs, gs.ideal_state(0.0)[0], clearance_joints=["B1"])
>>> sorted(arts)[:3]
['A1', 'A2', 'A3']
>>> plt.close(fig)
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Circle

from robolib.core.drawing import (
    DIM_COLOR,
    FONTSIZE,
    _arc,
    _arrow,
    _finish,
    draw_orbit,  # noqa: F401  (the journal orbit of any clearance joint)
)
from robolib.core.drawing import _label as _core_label
from robolib.gearshift.model import build_gearshift

#: Colour per chain (links i1 and i2), the lever, the ground and clearance joints.
CHAIN_COLORS = ("tab:blue", "tab:orange", "tab:green")
LEVER_COLOR = "k"
GROUND_COLOR = "0.35"
CLEARANCE_COLOR = "tab:red"
#: Colours of the motion modes free flight (0), impact (1), continuous contact (2).
MODE_COLORS = ("0.75", "tab:orange", "tab:red")
#: Font size (pt) of the labels of :func:`gearshift_mechanism` (drawn at the column's width, 6.7 in).
MECHANISM_FONTSIZE = 8


def joint_positions(gs, q) -> dict:
    """Positions (m) of the named revolute joints ``A1..A3, B1..B3, E`` for one state ``q`` (21,).

    >>> from robolib import gearshift
    >>> gs = gearshift.build_gearshift()
    >>> bool(np.allclose(joint_positions(gs, gs.ideal_state(0.0)[0])["A1"], gs.A[0]))
    True
    """
    seg = gs.drawing(q)
    out = {f"A{i}": seg[f"l{i}1"][0] for i in (1, 2, 3)}
    out |= {f"B{i}": seg[f"l{i}1"][1] for i in (1, 2, 3)}
    out["E"] = seg["l12"][1]
    return out


def draw_gearshift(ax, gs, q, *, clearance_joints=(), title: str | None = None, show_spring: bool = True,
                   alpha: float = 1.0, labels: bool = True) -> dict:
    """Draw the manipulator at state ``q`` (21,): chains in colour, lever black, ground pins hatched.

    ``clearance_joints`` (names like ``"B1"``, ``"E2"``, ``"A1"``) are ringed in
    red. ``show_spring`` draws the gearbox spring from the lever tip to its
    anchor. Returns ``{name: artist}``.
    """
    seg = gs.drawing(q)
    arts = {}
    for i in (1, 2, 3):
        for j in (1, 2):
            p = seg[f"l{i}{j}"]
            arts[f"l{i}{j}"], = ax.plot(p[:, 0], p[:, 1], "-", color=CHAIN_COLORS[i - 1], lw=4 if j == 1 else 3,
                                        solid_capstyle="round", alpha=alpha)
    p = seg["lever"]
    arts["lever"], = ax.plot(p[:, 0], p[:, 1], "-", color=LEVER_COLOR, lw=5, solid_capstyle="round", alpha=alpha)
    for i in (1, 2, 3):
        A = gs.A[i - 1]
        arts[f"A{i}"], = ax.plot(A[0], A[1], marker="^", color=GROUND_COLOR, ms=12, alpha=alpha)
        if labels:
            ax.annotate(f"A{i}", A, xytext=(6, -12), textcoords="offset points", fontsize=8)
    jp = joint_positions(gs, q)
    pts = np.array(list(jp.values()))
    ax.plot(pts[:, 0], pts[:, 1], "o", color="w", mec="k", ms=5, alpha=alpha, zorder=5)
    if labels:
        for name in ("B1", "B2", "B3", "E"):
            ax.annotate(name, jp[name], xytext=(5, 5), textcoords="offset points", fontsize=8)
    for name in clearance_joints:
        key = "E" if name in ("E2", "E3", "C") else name
        if key in jp:
            arts[f"clearance_{name}"], = ax.plot(*jp[key], "o", mfc="none", mec=CLEARANCE_COLOR, ms=14, mew=2,
                                                 zorder=6)
    if show_spring:
        tip = gs.lever_tip(q)
        f = gs.mech.forces[0] if getattr(gs.mech, "forces", None) else None
        anchor = np.asarray(f.anchor if f is not None and hasattr(f, "anchor") else tip, float)
        arts["spring"], = ax.plot([tip[0], anchor[0]], [tip[1], anchor[1]], ":", color="tab:purple", lw=2)
        ax.plot(*anchor, "x", color="tab:purple", ms=8)
    ax.set(aspect="equal", xlabel="x [m]", ylabel="y [m]")
    if title:
        ax.set_title(title, fontsize=10)
    return arts


def mode_bands(ax, t, modes) -> None:
    """Shade the time axis of ``ax`` by motion mode (0 free flight, 1 impact, 2 continuous contact)."""
    t = np.asarray(t, float)
    modes = np.asarray(modes, int)
    change = np.flatnonzero(np.diff(modes)) + 1
    starts = np.concatenate([[0], change])
    ends = np.concatenate([change, [len(t) - 1]])
    for s, e in zip(starts, ends):
        if modes[s] > 0:
            ax.axvspan(t[s], t[e], color=MODE_COLORS[modes[s]], alpha=0.25, lw=0)


__all__ = ["CHAIN_COLORS", "MODE_COLORS", "joint_positions", "draw_gearshift", "draw_orbit", "mode_bands"]


# --------------------------------------------------------------------------- gear-shift manipulator
def _clearance_schematic(ax, fs: float = FONTSIZE):
    """Clearance revolute joint, not to scale: bearing (body i), journal (body j), contact quantities; labels at
    ``fs`` pt."""

    def _label(*args, **kw):  # every label of the schematic at fs pt
        return _core_label(*args, fontsize=fs, **kw)

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
    _label(ax, Pi + c * np.array([math.cos(3.6), math.sin(3.6)]), "$c = R_B - R_J$", (-14, -46),
           color=CLEARANCE_COLOR, arrowprops={"arrowstyle": "-", "color": CLEARANCE_COLOR, "lw": 0.7})
    _label(ax, 0.5 * (Qi + Qj), "penetration\n" r"$\delta = |e| - c$", (18, -50), ha="left", color=DIM_COLOR,
           arrowprops={"arrowstyle": "-", "color": DIM_COLOR, "lw": 0.7})
    _label(ax, (0.0, RB + 0.1), "bearing (body $i$)", (0, 0), box=False)
    _label(ax, Pj + np.array([-0.22, -0.45]), "journal (body $j$)", (0, 0), box=False)
    ax.set(aspect="equal", xlim=(-1.45, 1.75), ylim=(-1.5, 1.4))
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
        6.5 x 3.7 inches (with the PNG's pads the book's 6.7-in column); labels at :data:`MECHANISM_FONTSIZE` pt.

    Examples
    --------
    >>> from robolib.gearshift import load_parameters
    >>> fig = gearshift_mechanism(load_parameters("gearshift/default.yaml"))
    >>> len(fig.axes)
    2
    """
    gs = build_gearshift(params)
    q = gs.ideal_state(0.0)[0]
    names = [s.strip() for s in params["clearance"]["joints"].split(",") if s.strip()]
    driven = [int(round(x)) for x in np.asarray(params["motion"]["driven_chains"], float)]
    l = gs.l
    fs = MECHANISM_FONTSIZE

    def label(*args, **kw):
        return _core_label(*args, fontsize=fs, **kw)

    fig = Figure(figsize=(6.5, 3.7), layout="constrained")  # its tight PNG (0.1-in pads) within the 6.7-in column
    grid = fig.add_gridspec(1, 2, width_ratios=[1.12, 1.0])
    ax = fig.add_subplot(grid[0, 0])
    draw_gearshift(ax, gs, q, clearance_joints=names, labels=False)
    seg = gs.drawing(q)
    jp = joint_positions(gs, q)
    cen = gs.A.mean(axis=0)
    for i in (1, 2, 3):
        A = gs.A[i - 1]
        d = (A - cen) / np.linalg.norm(A - cen)
        label(ax, A + 0.2 * l * d, f"$A_{i}$")
        B = jp[f"B{i}"]
        dB = (B - cen) / np.linalg.norm(B - cen)
        label(ax, B + 0.17 * l * dB, f"$B_{i}$")
        for j in (1, 2):
            sg = seg[f"l{i}{j}"]
            mid = sg.mean(axis=0)
            v = sg[1] - sg[0]
            nrm = np.array([-v[1], v[0]]) / np.hypot(*v)
            if np.dot(nrm, mid - cen) < 0:
                nrm = -nrm
            label(ax, mid + 0.14 * l * nrm, f"$l_{{{i}{j}}}$", color=CHAIN_COLORS[i - 1])
    E = jp["E"]
    lev = seg["lever"]
    label(ax, lev[1], "lever $pc$", (-4, 10), ha="right")
    label(ax, E, "$E$", (-3, 11))
    # drive inputs on the driven chains' base angles
    for i in driven:
        A = gs.A[i - 1]
        th = q[3 * (2 * (i - 1)) + 2]
        lo_, hi_, tr_ = (-0.9, -0.1, 0.62) if i == 1 else (-0.7, 0.1, 0.5)
        _arc(ax, A, 0.3 * l, th + lo_, th + hi_, rf"$\theta_{{{i}1}}(t)$", color="tab:purple",
             text_radius=tr_ * l).set_fontsize(fs)
    # shift stroke of E, drawn beside E
    a = params["motion"]["stroke_amplitude"]
    xs = E[0] - 0.3 * l
    _arrow(ax, (xs, E[1] - a), (xs, E[1] + a), color="tab:purple", style="<|-|>", lw=1.2)
    label(ax, (xs, E[1] + a), r"stroke $\pm a$", (0, 7), color="tab:purple")
    # gearbox spring at the lever tip
    tip = gs.lever_tip(q)
    label(ax, tip, "gearbox\n$k$, $c_{gb}$", (8, 12), ha="left", va="bottom", color="tab:purple")
    for nm in names:
        key = "E" if nm in ("E2", "E3", "C") else nm
        if key in jp:
            label(ax, jp[key], f"clearance\njoint {nm}", (-4, 30), ha="left", color=CLEARANCE_COLOR,
                  arrowprops={"arrowstyle": "-", "color": CLEARANCE_COLOR, "lw": 0.8})
    pts = np.vstack([gs.A, np.array(list(jp.values())), lev])
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    ax.set_xlim(lo[0] - 0.45 * l, hi[0] + 0.5 * l)
    ax.set_ylim(lo[1] - 0.45 * l, hi[1] + 0.35 * l)
    _finish(ax, f"(a) manipulator at t = 0 (each link {l:g} m long)")
    ax.title.set_fontsize(fs + 1)
    ax.tick_params(labelsize=fs)
    ax.xaxis.label.set_size(fs)
    ax.yaxis.label.set_size(fs)
    ax2 = fig.add_subplot(grid[0, 1])
    _clearance_schematic(ax2, fs)
    ax2.title.set_fontsize(fs + 1)
    return fig
