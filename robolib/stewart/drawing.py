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

import math

import numpy as np
from matplotlib import patheffects
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator
from mpl_toolkits.mplot3d import proj3d

from robolib.core import checks
from robolib.core.drawing import _BOX, DIM_COLOR, FIGURE_WIDTH, FONTSIZE, _arc, _arrow, _dimension, _finish, _label  # noqa: F401
from robolib.core.errors import ParameterError
from robolib.stewart.kinematics import joint_points, leg_frames
from robolib.stewart.kinematics import joint_points as _stewart_points
from robolib.stewart.kinematics import leg_geometry as _leg_geometry
from robolib.stewart.model import StewartModel

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
                 spin_marks: float | None = None, surfaces: bool = True, force_width: float = 2.0):
    """Draw the platform at ``pose`` (6,) on a 3-D axis; return the S centres ``P_i`` (6, 3) m.

    ``forces`` (6,) N, optional: drawn as arrows at the S centres along the leg
    (red pushes the platform, i.e. ``f_i > 0`` extends; purple pulls), length
    ``|f_i| * force_scale`` (default: the largest force is 40 % of a leg), ``force_width``
    points wide with a white outline (they read on the coloured bodies).
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
            q = ax.quiver(*P[i], *d, color=COLORS["push" if f[i] >= 0 else "pull"], lw=force_width,
                          arrow_length_ratio=0.3, zorder=10)
            q.set_path_effects([patheffects.withStroke(linewidth=force_width + 2.5, foreground="white")])
    if labels:
        for i in range(6):
            ax.text(*(B[i] - 0.08 * length.mean() * np.array([0, 0, 1])), str(i + 1), fontsize=8, ha="center")
    lo, hi = scene_limits(model, pose) if limits is None else limits
    ax.set(xlim=(lo[0], hi[0]), ylim=(lo[1], hi[1]), zlim=(lo[2], hi[2]))
    ax.set_box_aspect(tuple(hi - lo), zoom=1.15)
    ax.set(xlabel="x [m]", ylabel="y [m]", zlabel="z [m]")
    if title:
        ax.set_title(title, fontsize=10)
    return P


__all__ = ["draw_stewart", "scene_limits", "COLORS"]


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
    ax.plot(*np.array([b, b + 2.1 * s]).T, color=COLORS["cylinder"], lw=10, solid_capstyle="butt",
            zorder=3)
    ax.plot(*np.array([b + 1.7 * s, P]).T, color=COLORS["rod"], lw=3.5, zorder=2)
    ax.plot(*np.array([b - 0.3 * s, P + 0.7 * s]).T, color=DIM_COLOR, lw=0.7, ls="-.", zorder=2)
    _label(ax, b + 1.6 * s, "cylinder", (-12, 0), ha="right", box=False)
    _label(ax, b + 2.9 * s, "rod", (-10, 0), ha="right", box=False)
    # U joint: fixed axis a_i (drawn obliquely, into the page), second axis c_i, forbidden direction n_i
    a_dir = np.array([-0.8, -0.45])
    ax.plot(*np.array([b - 0.45 * a_dir, b + 0.45 * a_dir]).T, color=COLORS["uaxis"], lw=3, zorder=4)
    _arrow(ax, b, b + 1.1 * a_dir, color=COLORS["uaxis"], lw=1.6)
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
    _arrow(ax, b + 1.3 * s + 0.45 * perp, b + 2.0 * s + 0.45 * perp, color=COLORS["push"], lw=1.8)
    _label(ax, b + 1.65 * s + 0.45 * perp, "$f_i$ on the rod", (10, -2), ha="left", color=COLORS["push"])
    _dimension(ax, P, b, "$l_i$", 1.35, text_offset=0.22)
    # platform, S joint, platform origin
    pdir = np.array([math.cos(0.12), math.sin(0.12)])
    O = P - 1.45 * pdir
    ax.plot(*np.array([O - 0.45 * pdir, P + 0.8 * pdir]).T, color=COLORS["platform"], lw=7,
            solid_capstyle="round", zorder=3)
    ax.plot(*P, "o", color="k", ms=10, zorder=11)
    _label(ax, P, "S joint at $P_i$", (12, -14), ha="left")
    ax.plot(*O, "x", color="k", ms=9, mew=2, zorder=11)
    _arrow(ax, O, P, color="tab:brown", lw=1.4, zorder=10)
    _label(ax, 0.5 * (O + P), "$R\\,p_i$", (0, -13), color="tab:brown")
    _label(ax, O, "platform origin $t$", (0, 15))
    _label(ax, P + 0.6 * pdir, "platform", (0, 14), box=False)
    ax.set(aspect="equal", xlim=(-2.9, 3.0), ylim=(-1.0, 4.8))
    ax.axis("off")
    _finish(ax, "(b) leg $i$, U-P-S (not to scale)")
    ax.tick_params(labelsize=FONTSIZE)  # hidden, but measured by the book's legibility check


def stewart_mechanism(model, pose=None, *, label_size: float = FONTSIZE + 1) -> Figure:
    """Labelled drawing of the 6-UPS Gough-Stewart platform and of one leg.

    Panel (a), on top, draws the platform (:func:`draw_stewart`) at ``pose``
    in the base frame (the plot's axes ``x, y, z``; black arrows at its origin),
    the platform frame at the platform origin ``t`` (brown arrows, ``z'``), the U-joint centres ``b_1..b_6`` (with
    their fixed axes ``a_i`` in green) and the S-joint centres ``P_1..P_6``.
    Panel (b), below, is a schematic of one U-P-S leg: U joint at ``b_i`` with the
    fixed axis ``a_i``, the second axis ``c_i`` and the forbidden direction
    ``n_i = a_i x c_i``; leg axis ``s_i`` and length ``l_i``; cylinder, rod and
    actuator force ``f_i``; S joint at ``P_i = t + R p_i``.

    Parameters
    ----------
    model : robolib.stewart.StewartModel
        From ``robolib.stewart.load("stewart/tsai2000.yaml")`` (SI units).
    pose : array_like of shape (6,), optional
        ``[x, y, z, roll, pitch, yaw]`` in m and rad; default ``model.home_pose``.
    label_size : float, optional
        pt, the joint and frame labels of panel (a) (near-black and dark brown with a white outline); its tick
        labels one point smaller.

    Returns
    -------
    matplotlib.figure.Figure
        FIGURE_WIDTH x 8.4 inches, panel (a) above (b); every text at least 10 pt (14 px at 100 dpi).

    Examples
    --------
    >>> from robolib import stewart
    >>> fig = stewart_mechanism(stewart.load("stewart/tsai2000.yaml"))
    >>> len(fig.axes)
    2
    """
    if not isinstance(model, StewartModel):
        raise ParameterError(f"model must be a robolib.stewart.StewartModel (from stewart.load), got {model!r:.60}")
    checks.real("label_size", label_size, low=6.0, high=30.0, unit="pt")
    pose = checks.real_array("pose", model.home_pose if pose is None else pose, shape=(6,))
    fig = Figure(figsize=(FIGURE_WIDTH, 8.4), layout="constrained")
    gsp = fig.add_gridspec(2, 1, height_ratios=(1.15, 1.0))
    ax = fig.add_subplot(gsp[0, 0], projection="3d")
    P = draw_stewart(ax, model, pose, labels=False, show_com=False)
    B, _ = _stewart_points(model, pose)
    g = _leg_geometry(model, pose)
    mean_leg = float(np.mean(g.length))
    outline = [patheffects.withStroke(linewidth=2.5, foreground="white")]  # labels read on coloured bodies
    L = 0.3 * mean_leg
    R = g.R
    t = pose[:3]
    for k, name in enumerate("xyz"):  # the base frame is the plot's frame: its axes are named on the box
        e = np.eye(3)[k] * L
        ax.quiver(0, 0, 0, *(0.6 * e), color="k", lw=1.3, arrow_length_ratio=0.25)
        ep = R[:, k] * 0.8 * L
        ax.quiver(*t, *ep, color="tab:brown", lw=1.3, arrow_length_ratio=0.2)
        if name == "z":
            ax.text(*(t + 1.2 * ep), " z'", fontsize=label_size, ha="left", va="bottom",
                    color=LABEL_COLORS["frame"], path_effects=outline)
    ax.text(*(t + np.array([0, 0, 0.62 * mean_leg])), "platform frame at $t$", fontsize=label_size,
            ha="center", color=LABEL_COLORS["frame"], path_effects=outline)
    hi = ax.get_zlim3d()
    ax.set_zlim(min(hi[0], -0.25 * mean_leg), hi[1])
    for get, put in ((ax.get_xlim3d, ax.set_xlim3d), (ax.get_ylim3d, ax.set_ylim3d)):  # room for the labels
        lo, up = get()
        put(lo - 0.35 * mean_leg, up + 0.35 * mean_leg)
    ax.tick_params(labelsize=label_size - 1)
    for axis in (ax.xaxis, ax.yaxis, ax.zaxis):
        axis.label.set_size(label_size - 1)
    ax.zaxis.set_major_locator(MaxNLocator(nbins=Z_TICKS))  # the foreshortened z axis: a few ticks only
    ax.view_init(elev=VIEW[0], azim=VIEW[1])
    _place_labels(ax, np.vstack([B, P]), [f"${n}_{i + 1}$" for n in "bP" for i in range(6)], label_size,
                  color=LABEL_COLORS["joint"], path_effects=outline)
    at_home = np.allclose(pose, model.home_pose)
    where = "its home pose" if at_home else (f"t = ({', '.join(f'{v:g}' for v in pose[:3])}) m, roll/pitch/yaw = "
                                             f"({', '.join(f'{np.degrees(v):g}' for v in pose[3:])})°")
    ax.set_title(f"(a) {model.name} at {where}", fontsize=FONTSIZE + 1)
    _leg_schematic(fig.add_subplot(gsp[1, 0]))
    return fig


#: Colours of the labels of panel (a) of :func:`stewart_mechanism`: joints near-black, platform frame dark brown.
LABEL_COLORS = {"joint": "0.1", "frame": "#4a2410"}
#: Elevation and azimuth (deg) of the 3-D view of :func:`stewart_mechanism`.
VIEW = (45, -110)


#: Most major ticks on the z axis of :func:`stewart_mechanism` (seen at a slant, its ticks crowd).
Z_TICKS = 3


def _place_labels(ax, points, texts, size: float, **kwargs) -> list:
    """Label each of ``points`` (k, 3) of the 3-D axis ``ax`` (view and limits already set) with ``texts`` (k,),
    ``size`` pt, offset on the screen by about one text height in the one of eight directions that keeps it
    farthest from the other points and from the labels already placed (the most crowded points first);
    ``kwargs`` go to ``ax.annotate``. Returns the annotations."""
    ax.figure.draw_without_rendering()  # the layout fixes where the axes, hence the points, are on the screen
    xs, ys, _ = proj3d.proj_transform(*np.asarray(points, dtype=float).T, ax.get_proj())
    screen = ax.transData.transform(np.c_[xs, ys])           # pixels
    r = 1.1 * size * ax.figure.dpi / 72                       # offset of the label's centre, pixels
    angles = np.radians(np.arange(0, 360, 45))
    dirs = np.c_[np.cos(angles), np.sin(angles)]
    near = np.sort(np.linalg.norm(screen[:, None] - screen[None], axis=-1), axis=1)[:, 1]
    placed, out = [], [None] * len(texts)
    for i in np.argsort(near):
        centres = screen[i] + r * dirs
        others = np.vstack([np.delete(screen, i, axis=0)] + ([np.array(placed)] if placed else []))
        clear = np.linalg.norm(centres[:, None] - others[None], axis=-1).min(axis=1)
        k = int(np.argmax(clear))
        placed.append(centres[k])
        out[i] = ax.annotate(texts[i], (xs[i], ys[i]), xytext=tuple(r * dirs[k] * 72 / ax.figure.dpi),
                             textcoords="offset points", ha="center", va="center", fontsize=size, **kwargs)
    return out
