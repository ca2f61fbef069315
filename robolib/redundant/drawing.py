"""Matplotlib drawings of the redundant planar robot (no computation beyond kinematics).

Used by the study notebooks ``redundant_derivation`` and ``redundant_friction``.
Every function draws on a given 2-D axis in metres and returns what it drew,
so a notebook can update the artists of an animation.

>>> import matplotlib; matplotlib.use("Agg")
>>> import matplotlib.pyplot as plt
>>> from robolib import redundant
>>> robot = redundant.load()
>>> fig, ax = plt.subplots()
>>> arts = draw_robot(ax, robot, redundant.inverse_kinematics(robot, robot.centroid))
>>> sorted(arts)
['active', 'effector', 'passive', 'reactions']
>>> plt.close(fig)
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.animation import FuncAnimation
from matplotlib.figure import Figure

from robolib.core.drawing import DIM_COLOR, FONTSIZE, _arc, _finish, _label
from robolib.redundant.dynamics import inverse_kinematics
from robolib.redundant.model import CIRCLE_RADIUS, Robot

#: Colours: active links, passive links, base, end-effector, bearing reactions.
ACTIVE_COLOR = "tab:blue"
PASSIVE_COLOR = "tab:orange"
BASE_COLOR = "0.35"
EFFECTOR_COLOR = "tab:red"
REACTION_COLOR = "tab:green"


def joint_points(robot: Robot, q) -> np.ndarray:
    """Points of each chain (3, 3, 2) in m: active joint, passive joint, tip, for ``q`` (12,).

    >>> from robolib import redundant
    >>> robot = redundant.load()
    >>> joint_points(robot, np.zeros(12))[0].tolist()
    [[0.0, 0.0], [0.25, 0.0], [0.5, 0.0]]
    """
    q = np.asarray(q, dtype=float).reshape(3, 4)
    l = robot.link_length
    out = np.empty((3, 3, 2))
    for i, (x, y, a, b) in enumerate(q):
        out[i, 0] = (x, y)
        out[i, 1] = (x + l * np.cos(a), y + l * np.sin(a))
        out[i, 2] = out[i, 1] + l * np.array([np.cos(a + b), np.sin(a + b)])
    return out


def draw_base(ax, robot: Robot, *, labels: bool = True, circle: float | None = CIRCLE_RADIUS):
    """Base triangle, ground hatch marks at the base points ``O_i`` and (optionally) the reference circle.

    ``circle`` is the circle radius (m) about the base centroid, ``None`` for no circle.
    Sets equal axis scaling and limits that hold the whole workspace.
    """
    O = robot.base
    tri = np.vstack([O, O[:1]])
    ax.plot(*tri.T, color=BASE_COLOR, lw=0.8, ls=":")
    ax.scatter(*O.T, marker="^", s=90, color=BASE_COLOR, zorder=3)
    if labels:
        c = robot.centroid
        for i, p in enumerate(O):
            d = p - c
            d = d / np.linalg.norm(d)
            ax.annotate(f"$O_{i + 1}$", p + 0.045 * d, ha="center", va="center", fontsize=10)
    if circle is not None and circle > 0:
        s = np.linspace(0, 2 * np.pi, 200)
        c = robot.centroid
        ax.plot(c[0] + circle * np.cos(s), c[1] + circle * np.sin(s), color="0.6", lw=1, ls="--", label="reference circle")
    reach = 2 * robot.link_length
    lo, hi = O.min(axis=0) - 0.08, O.max(axis=0) + 0.08
    ax.set(xlim=(min(lo[0], robot.centroid[0] - reach * 0.5), max(hi[0], robot.centroid[0] + reach * 0.5)),
           ylim=(min(lo[1], robot.centroid[1] - reach * 0.5) - 0.02, max(hi[1], robot.centroid[1] + reach * 0.5)),
           aspect="equal", xlabel="x [m]", ylabel="y [m]")


def draw_robot(ax, robot: Robot, q, *, reactions=None, force_scale: float = 0.1, alpha: float = 1.0,
               labels: bool = False):
    """Draw the three chains at ``q`` (12,); optional bearing-reaction arrows ``reactions`` (3, 2) N.

    ``force_scale`` in m per N (arrow length). Returns a dict of the artists:
    ``active``, ``passive`` (lists of three ``Line2D``), ``effector`` (``Line2D``),
    ``reactions`` (list of ``FancyArrow``, empty without reactions) — see
    :func:`update_robot`.
    """
    P = joint_points(robot, q)
    act, pas = [], []
    for i in range(3):
        (la,) = ax.plot(*P[i, :2].T, color=ACTIVE_COLOR, lw=4, solid_capstyle="round", alpha=alpha, zorder=4,
                        label="active links" if i == 0 and labels else None)
        (lb,) = ax.plot(*P[i, 1:].T, color=PASSIVE_COLOR, lw=2.5, marker="o", ms=4, mfc="white", alpha=alpha,
                        zorder=5, label="passive links" if i == 0 and labels else None)
        act.append(la)
        pas.append(lb)
    (eff,) = ax.plot(*P[0, 2], "o", color=EFFECTOR_COLOR, ms=7, alpha=alpha, zorder=6,
                     label="end-effector" if labels else None)
    arrows = [] if reactions is None else _arrows(ax, P[:, 0], np.asarray(reactions, dtype=float), force_scale)
    return {"active": act, "passive": pas, "effector": eff, "reactions": arrows}


def _arrows(ax, origins, forces, scale):
    return [ax.arrow(o[0], o[1], scale * f[0], scale * f[1], width=0.003, length_includes_head=True,
                     head_width=0.012, color=REACTION_COLOR, zorder=7) for o, f in zip(origins, forces)]


def update_robot(ax, artists: dict, robot: Robot, q, *, reactions=None, force_scale: float = 0.1):
    """Move the artists of :func:`draw_robot` to ``q`` (for animations); redraws the reaction arrows."""
    P = joint_points(robot, q)
    for i in range(3):
        artists["active"][i].set_data(*P[i, :2].T)
        artists["passive"][i].set_data(*P[i, 1:].T)
    artists["effector"].set_data([P[0, 2, 0]], [P[0, 2, 1]])
    for a in artists["reactions"]:
        a.remove()
    artists["reactions"] = [] if reactions is None else _arrows(ax, P[:, 0], np.asarray(reactions, dtype=float), force_scale)
    return artists


def animate_motion(robot: Robot, q, *, reactions=None, force_scale: float = 0.1, trace=None,
                   figsize=(4.2, 4.0), dpi: int = 70, interval: int = 80, title: str = ""):
    """``matplotlib.animation.FuncAnimation`` of the robot through the frames ``q`` (K, 12).

    ``reactions`` (K, 3, 2) N draws the bearing reactions as arrows; ``trace``
    (N, 2) m a path drawn under the robot (e.g. the simulated end-effector path).
    Keep ``K`` small (<= 60) for ``to_jshtml``. The figure is closed (only the
    animation is kept).
    """
    import matplotlib.pyplot as plt

    q = np.asarray(q, dtype=float)
    fig, ax = plt.subplots(figsize=figsize, dpi=dpi)
    draw_base(ax, robot, labels=True)
    if trace is not None:
        tr = np.asarray(trace, dtype=float)
        ax.plot(*tr.T, color=EFFECTOR_COLOR, lw=0.8, alpha=0.6)
    arts = draw_robot(ax, robot, q[0], reactions=None if reactions is None else reactions[0], force_scale=force_scale)
    ttl = ax.set_title(title, fontsize=9)
    fig.tight_layout()

    def frame(k):
        update_robot(ax, arts, robot, q[k], reactions=None if reactions is None else reactions[k], force_scale=force_scale)
        ttl.set_text(f"{title} frame {k + 1}/{len(q)}" if title else f"frame {k + 1}/{len(q)}")
        return []

    anim = FuncAnimation(fig, frame, frames=len(q), interval=interval, blit=False)
    plt.close(fig)
    return anim


__all__ = ["joint_points", "draw_base", "draw_robot", "update_robot", "animate_motion"]


# --------------------------------------------------------------------------- redundant planar robot
def redundant_mechanism(params: Robot, point=None) -> Figure:
    """Labelled drawing of the 2-DOF redundantly actuated planar robot.

    Shows the base points ``O1..O3``, the active links (driven at ``O_i`` by
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
        6.2 x 5.8 inches; labels at 10 pt.

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
    q = inverse_kinematics(robot, p)
    P = joint_points(robot, q)
    fig = Figure(figsize=(6.2, 5.8), layout="constrained")
    ax = fig.add_subplot()
    draw_base(ax, robot, labels=False)
    draw_robot(ax, robot, q, labels=True)
    c = robot.centroid
    for i in range(3):
        O = robot.base[i]
        d = (O - c) / np.linalg.norm(O - c)
        _label(ax, O + 0.16 * l * d, f"$O_{i + 1}$", (0, 0))
        # motor torque tau_i: a curved arrow about O_i
        a_i = q[4 * i + 2]
        _arc(ax, O, 0.2 * l, a_i + 0.55, a_i + 1.6, rf"$\tau_{i + 1}$", color="tab:purple", text_radius=0.3 * l)
        mid_a = 0.5 * (P[i, 0] + P[i, 1])
        mid_b = 0.5 * (P[i, 1] + P[i, 2])
        na = np.array([-(P[i, 1] - P[i, 0])[1], (P[i, 1] - P[i, 0])[0]]) / l
        nb = np.array([-(P[i, 2] - P[i, 1])[1], (P[i, 2] - P[i, 1])[0]]) / l
        _label(ax, mid_a - 0.12 * l * na, "$l$", (0, 0), color=ACTIVE_COLOR)
        _label(ax, mid_b - 0.12 * l * nb, "$l$", (0, 0), color=PASSIVE_COLOR)
    # chain 1: coordinates (x_1, y_1), a_1 (absolute), b_1 (relative)
    O1, B1, E = P[0]
    a1, b1 = q[2], q[3]
    ax.plot([O1[0], O1[0] + 0.55 * l], [O1[1], O1[1]], color=DIM_COLOR, lw=0.7, ls="--")
    _arc(ax, O1, 0.42 * l, 0.0, a1, "$a_1$", text_radius=0.52 * l)
    ext = B1 + 0.5 * l * np.array([math.cos(a1), math.sin(a1)])
    ax.plot(*np.array([B1, ext]).T, color=DIM_COLOR, lw=0.7, ls="--")
    _arc(ax, B1, 0.3 * l, a1, a1 + b1, "$b_1$", text_radius=0.42 * l)
    _label(ax, O1, "$(x_1, y_1)$", (-30, 14), ha="center")
    _label(ax, B1, "passive joint", (0, -14))
    _label(ax, E, "$E = (x, y)$", (16, 12), ha="left", color=EFFECTOR_COLOR)
    ax.legend(loc="upper left", fontsize=FONTSIZE - 1, framealpha=0.9)
    _finish(ax, f"Redundantly actuated planar robot (l = {l:g} m)")
    return fig
