"""Matplotlib drawings shared by the study notebooks (no computation here)."""

from __future__ import annotations

import numpy as np

from . import prp3


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
