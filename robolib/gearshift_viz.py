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

import numpy as np

#: Colour per chain (links i1 and i2), the lever, the ground and clearance joints.
CHAIN_COLORS = ("tab:blue", "tab:orange", "tab:green")
LEVER_COLOR = "k"
GROUND_COLOR = "0.35"
CLEARANCE_COLOR = "tab:red"
#: Colours of the motion modes free flight (0), impact (1), continuous contact (2).
MODE_COLORS = ("0.75", "tab:orange", "tab:red")


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
    ax.set_aspect("equal")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    if title:
        ax.set_title(title, fontsize=10)
    return arts


def draw_orbit(ax, e_local, clearance: float, *, color=None, c_values=None, cmap: str = "viridis",
               lw: float = 0.8, label: str | None = None):
    """Journal-centre orbit ``e_local`` (T, 2) in m inside the clearance circle, in units of ``clearance``.

    With ``c_values`` (T,) the points are coloured by it (e.g. the contact
    force); otherwise a line is drawn. Returns the artist of the orbit.
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
    ax.set_xlim(-lim, lim)
    ax.set_ylim(-lim, lim)
    ax.set_xlabel("e_x / c (bearing frame)")
    ax.set_ylabel("e_y / c")
    return art


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
