"""Matplotlib drawings of the 6-UPS platform for the study notebook (no dynamics here).

Everything drawn comes from the model data and the kinematics kernels:
U centres ``b_i`` and fixed U axes ``a_i`` (base), S centres ``P_i`` (platform),
each leg split into its cylinder (from ``b_i``) and rod (to ``P_i``), the two
leg-body centres of mass, and optionally the actuator forces as arrows along
the legs.

>>> import matplotlib
>>> matplotlib.use("Agg")
>>> import matplotlib.pyplot as plt
>>> from robolib import stewart
>>> m = stewart.load("stewart/tsai2000.yaml")
>>> fig = plt.figure()
>>> P = draw_stewart(fig.add_subplot(projection="3d"), m, m.home_pose)
>>> P.shape
(6, 3)
>>> plt.close(fig)
"""

from __future__ import annotations

import numpy as np

from .kinematics import joint_points, leg_frames
from .model import StewartModel

#: Colours: base, platform, cylinder, rod, U axis, compression/extension force arrows.
COLORS = {"base": "0.35", "platform": "tab:orange", "cylinder": "tab:blue", "rod": "tab:cyan",
          "uaxis": "tab:green", "push": "tab:red", "pull": "tab:purple"}


def _closed(points):
    """Polygon through ``points`` (k, 3) ordered by angle about their centroid, closed."""
    c = points.mean(axis=0)
    ang = np.arctan2(points[:, 1] - c[1], points[:, 0] - c[0])
    p = points[np.argsort(ang)]
    return np.vstack([p, p[:1]])


def scene_limits(model: StewartModel, poses=None, margin: float = 0.15):
    """Box ``(lo, hi)`` (3,) m enclosing base and platform joints at ``poses`` (default home).

    Each side is at least 40 % of the longest one (the axes keep true proportions).
    """
    poses = np.atleast_2d(model.home_pose if poses is None else poses)
    _, P = joint_points(model, poses)
    pts = np.vstack([model.base_joints, P.reshape(-1, 3)])
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    c = (lo + hi) / 2
    half = np.maximum((hi - lo) / 2, 0.4 * (hi - lo).max() / 2) * (1 + margin)
    return c - half, c + half


def draw_stewart(ax, model: StewartModel, pose, forces=None, *, limits=None, force_scale=None,
                 uaxis_length=None, show_com: bool = True, labels: bool = True, title: str | None = None,
                 spin_marks: float | None = None, surfaces: bool = True):
    """Draw the platform at ``pose`` (6,) on a 3-D axis; return the S centres ``P_i`` (6, 3) m.

    ``forces`` (6,) N, optional: drawn as arrows at the S centres along the leg
    (red pushes the platform, i.e. ``f_i > 0`` extends; purple pulls), length
    ``|f_i| * force_scale`` (default: the largest force is 40 % of a leg).
    ``limits`` is a ``(lo, hi)`` pair from :func:`scene_limits` (default: this pose).
    ``spin_marks`` (m), optional: draw on each cylinder a radial arm of that
    length along the leg frame's first axis ``c_i`` (it turns with the leg, so
    the leg's spin about its own axis shows as the arm turning about the leg).
    ``surfaces=False`` leaves out the shaded base and platform polygons (faster,
    for animations).
    Raises the kinematics' ``SingularityError`` for a degenerate pose.
    """
    pose = np.asarray(pose, dtype=float)
    B, P = joint_points(model, pose)
    F = leg_frames(model, pose)
    leg = P - B
    length = np.linalg.norm(leg, axis=1)
    s = leg / length[:, None]
    # cylinder and rod: split each leg where the rod's CoM line meets the cylinder's (drawing only)
    cyl_end = B + s * np.minimum(2 * abs(model.cylinder.com[2]), length * 0.65)[:, None]
    rod_start = P - s * np.minimum(2 * abs(model.rod.com[2]), length * 0.65)[:, None]
    base = _closed(B)
    ax.plot(*base.T, color=COLORS["base"], lw=1.5)
    if surfaces:
        ax.plot_trisurf(B[:, 0], B[:, 1], B[:, 2], color=COLORS["base"], alpha=0.12, linewidth=0)
    plat = _closed(P)
    ax.plot(*plat.T, color=COLORS["platform"], lw=2)
    if surfaces:
        ax.plot_trisurf(P[:, 0], P[:, 1], P[:, 2], color=COLORS["platform"], alpha=0.25, linewidth=0)
    origin = pose[:3]
    for k in range(6):
        ax.plot(*np.array([origin, P[k]]).T, color=COLORS["platform"], lw=0.6, alpha=0.6)
    for i in range(6):
        ax.plot(*np.array([B[i], cyl_end[i]]).T, color=COLORS["cylinder"], lw=5, solid_capstyle="butt")
        ax.plot(*np.array([rod_start[i], P[i]]).T, color=COLORS["rod"], lw=2.2)
    if spin_marks:
        mid = B + 0.5 * (cyl_end - B)
        for i in range(6):
            tip = mid[i] + spin_marks * F[i][:, 0]
            ax.plot(*np.array([mid[i], tip]).T, color="k", lw=2.2, solid_capstyle="round")
            ax.scatter(*tip, color="k", s=10, depthshade=False)
    ua = (0.15 * length.mean()) if uaxis_length is None else uaxis_length
    for i in range(6):
        seg = np.array([B[i] - ua * model.ujoint_axes[i], B[i] + ua * model.ujoint_axes[i]])
        ax.plot(*seg.T, color=COLORS["uaxis"], lw=2)
    ax.scatter(*B.T, color="k", s=14, depthshade=False)
    ax.scatter(*P.T, color="k", s=14, depthshade=False)
    ax.scatter(*origin, color=COLORS["platform"], marker="x", s=30, depthshade=False)
    if show_com:
        xc = B + F @ model.cylinder.com
        xr = P + F @ model.rod.com
        ax.scatter(*np.vstack([xc, xr]).T, color="k", marker="o", s=8, alpha=0.6, depthshade=False)
    if forces is not None:
        f = np.asarray(forces, dtype=float)
        scale = (0.4 * length.mean() / max(np.abs(f).max(), 1e-300)) if force_scale is None else force_scale
        for i in range(6):
            d = s[i] * f[i] * scale
            ax.quiver(*P[i], *d, color=COLORS["push" if f[i] >= 0 else "pull"], lw=2, arrow_length_ratio=0.25)
    if labels:
        for i in range(6):
            ax.text(*(B[i] - 0.08 * length.mean() * np.array([0, 0, 1])), str(i + 1), fontsize=8, ha="center")
    lo, hi = scene_limits(model, pose) if limits is None else limits
    ax.set_xlim(lo[0], hi[0])
    ax.set_ylim(lo[1], hi[1])
    ax.set_zlim(lo[2], hi[2])
    ax.set_box_aspect(tuple(hi - lo), zoom=1.15)
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.set_zlabel("z [m]")
    if title:
        ax.set_title(title, fontsize=10)
    return P


__all__ = ["draw_stewart", "scene_limits", "COLORS"]
