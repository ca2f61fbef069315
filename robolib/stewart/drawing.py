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
from robolib.core.drawing import DIM_COLOR, FIGURE_WIDTH, FONTSIZE, _arrow, _dimension, _finish, _label
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
    their fixed axes ``a_i`` in green, each :data:`UAXIS` mean leg lengths to either side) and the S-joint centres
    ``P_1..P_6``, every label placed clear of the legs, axes and edges as drawn.
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
    B, _ = _stewart_points(model, pose)
    g = _leg_geometry(model, pose)
    mean_leg = float(np.mean(g.length))
    P = draw_stewart(ax, model, pose, labels=False, show_com=False, uaxis_length=UAXIS * mean_leg)
    outline = [patheffects.withStroke(linewidth=2.5, foreground="white")]  # labels read on coloured bodies
    L = 0.3 * mean_leg
    R = g.R
    t = pose[:3]
    arrows = []                       # the frames' arrows, which the joint labels keep clear of
    for k, name in enumerate("xyz"):  # the base frame is the plot's frame: its axes are named on the box
        e = np.eye(3)[k] * L
        ax.quiver(0, 0, 0, *(0.6 * e), color="k", lw=1.3, arrow_length_ratio=0.25)
        ep = R[:, k] * 0.8 * L
        ax.quiver(*t, *ep, color="tab:brown", lw=1.3, arrow_length_ratio=0.2)
        arrows += [np.array([np.zeros(3), 0.6 * e]), np.array([t, t + ep])]
    # the scene only (true proportions), with room for the a_i axes and the z' label: no empty walls
    pts = np.vstack([B, P, t, t + 0.4 * mean_leg * R[:, 2], np.zeros(3)])
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    pad = np.array([UAXIS * mean_leg + 0.05 * mean_leg] * 2 + [0.05 * mean_leg])
    lo, hi = lo - pad, hi + pad
    ax.set(xlim=(lo[0], hi[0]), ylim=(lo[1], hi[1]), zlim=(lo[2], hi[2]))
    ax.set_box_aspect(tuple(hi - lo), zoom=ZOOM)
    ax.tick_params(labelsize=label_size - 1)
    for axis in (ax.xaxis, ax.yaxis, ax.zaxis):
        axis.label.set_size(label_size - 1)
    ax.zaxis.set_major_locator(MaxNLocator(nbins=Z_TICKS))  # the foreshortened z axis: a few ticks only
    ax.view_init(elev=VIEW[0], azim=VIEW[1])
    legs = [np.array([B[i], P[i]]) for i in range(6)]
    uaxes = [np.array([B[i] - UAXIS * mean_leg * model.ujoint_axes[i], B[i] + UAXIS * mean_leg * model.ujoint_axes[i]])
             for i in range(6)]
    rims = [np.array([a, b]) for ring in (_closed(B), _closed(P)) for a, b in zip(ring[:-1], ring[1:])]
    frame_label = _place_labels(ax, [t + 0.8 * L * R[:, 2]], ["$z'$"], label_size,
                                segments=legs + rims + arrows, points_too=np.vstack([B, P]),
                                color=LABEL_COLORS["frame"], path_effects=outline)
    _place_labels(ax, np.vstack([B, P]), [f"${n}_{i + 1}$" for n in "bP" for i in range(6)], label_size,
                  segments=legs + uaxes + rims + arrows, avoid=frame_label, color=LABEL_COLORS["joint"],
                  path_effects=outline)
    at_home = np.allclose(pose, model.home_pose)
    where = "its home pose" if at_home else (f"t = ({', '.join(f'{v:g}' for v in pose[:3])}) m, roll/pitch/yaw = "
                                             f"({', '.join(f'{np.degrees(v):g}' for v in pose[3:])})°")
    ax.set_title(f"(a) {model.name} at {where}", fontsize=FONTSIZE + 1)
    _leg_schematic(fig.add_subplot(gsp[1, 0]))
    return fig


#: Colours of the labels of panel (a) of :func:`stewart_mechanism`: joints near-black, platform frame dark brown.
LABEL_COLORS = {"joint": "0.1", "frame": "#4a2410"}
#: Elevation and azimuth (deg) of the 3-D view of :func:`stewart_mechanism` (low: the platform reads above the base).
VIEW = (12, -110)
#: Half-length of the drawn U-joint axes ``a_i`` of :func:`stewart_mechanism`, in mean leg lengths.
UAXIS = 0.25
#: Zoom of the 3-D box of :func:`stewart_mechanism` in its panel (matplotlib's ``set_box_aspect`` zoom).
ZOOM = 1.45


#: Clearance (in text heights) at which a label of :func:`stewart_mechanism` counts as clear of the drawing.
CLEAR = 0.4

#: Most major ticks on the z axis of :func:`stewart_mechanism` (seen at a slant, its ticks crowd).
Z_TICKS = 3


def _screen(ax, points):
    """Pixel coordinates (k, 2) of the 3-D ``points`` (k, 3) on the axis ``ax`` (view and limits set)."""
    xs, ys, _ = proj3d.proj_transform(*np.asarray(points, dtype=float).reshape(-1, 3).T, ax.get_proj())
    return ax.transData.transform(np.c_[xs, ys])


def _box_gap(centres, half, points):
    """For each label box (centres (k, 2) px, half-sizes ``half`` (2,) px), the Chebyshev gap (px) to the nearest
    of ``points`` (m, 2) px: negative when a point lies inside the box."""
    d = np.abs(centres[:, None, :] - points[None, :, :]) - half
    return d.max(axis=-1).min(axis=1) if len(points) else np.full(len(centres), np.inf)


def _place_labels(ax, points, texts, size: float, *, segments=(), avoid=(), points_too=None, **kwargs) -> list:
    """Label each of ``points`` (k, 3) of the 3-D axis ``ax`` (view and limits already set) with ``texts`` (k,),
    ``size`` pt (the most crowded points first). Each label's box goes, on the screen, in one of 16 directions
    and at one of three distances from its point: the nearest that keeps it :data:`CLEAR` text heights clear of the
    other points, of the 3-D ``segments`` (each (2, 3): legs, axes, edges; sampled densely), of the labels already
    placed and of the 2-D texts ``avoid`` (annotations), inside the axes and nearer its own point than any other;
    ``points_too`` (m, 3), optional: more points to keep clear of. ``kwargs`` go to ``ax.annotate``. Returns the
    annotations."""
    fig = ax.figure
    fig.draw_without_rendering()  # the layout fixes where the axes, hence the points, are on the screen
    screen = _screen(ax, points)
    extra = _screen(ax, points_too) if points_too is not None else np.empty((0, 2))
    xs, ys, _ = proj3d.proj_transform(*np.asarray(points, dtype=float).T, ax.get_proj())
    u = np.linspace(0.0, 1.0, 25)[:, None]
    lines = [_screen(ax, seg[0] + u * (seg[1] - seg[0])) for seg in segments]
    em = size * fig.dpi / 72                                  # one text height, pixels
    angles = np.radians(np.arange(0, 360, 22.5))
    dirs = np.c_[np.cos(angles), np.sin(angles)]
    frame = ax.get_window_extent()
    near = np.sort(np.linalg.norm(screen[:, None] - screen[None], axis=-1), axis=1)[:, min(1, len(screen) - 1)]
    placed, out = [], [None] * len(texts)                     # placed: (centre, half) of the boxes so far
    for other in avoid:
        bb = other.get_window_extent()
        placed.append((np.array([(bb.x0 + bb.x1) / 2, (bb.y0 + bb.y1) / 2]), np.array([bb.width, bb.height]) / 2))
    for i in np.argsort(near):
        probe = ax.text2D(0, 0, texts[i], fontsize=size)
        bb = probe.get_window_extent()
        probe.remove()
        half = np.array([bb.width / 2 + 2, bb.height / 2 + 1])
        best, where = -np.inf, None
        for radius in (0.6, 1.2, 2.0):
            centres = screen[i] + (0.6 * radius * em + np.abs(dirs) @ half)[:, None] * dirs  # box edge ~ radius
            own = [ln for ln in lines if np.linalg.norm(ln[[0, -1]] - screen[i], axis=1).min() < 1.0]
            others = [ln for ln in lines if not any(ln is o for o in own)]
            gap = np.minimum(_box_gap(centres, half, np.vstack([np.delete(screen, i, axis=0), extra])),
                             _box_gap(centres, half, np.vstack(others)) if others else np.inf)
            if own:  # the segments that start at this point: only the box must not cover them
                gap = np.minimum(gap, _box_gap(centres, half, np.vstack(own)[np.linalg.norm(
                    np.vstack(own) - screen[i], axis=1) > 0.6 * em]))
            for c, h in placed:
                gap = np.minimum(gap, (np.abs(centres - c) - (half + h)).max(axis=1))
            inside = ((centres - half >= [frame.x0, frame.y0]) & (centres + half <= [frame.x1, frame.y1])).all(axis=1)
            own_d = np.linalg.norm(centres - screen[i], axis=1)   # unambiguous: nearer its own point than any other
            rest = np.vstack([np.delete(screen, i, axis=0), extra])
            other_d = np.linalg.norm(centres[:, None] - rest[None], axis=-1).min(axis=1) if len(rest) else np.inf
            clear = np.minimum(gap, CLEAR * em) + 0.01 * np.minimum(gap, 3 * em)   # clear enough, then nearest
            score = np.where(inside, clear, clear - 1e3) - np.where(own_d < 0.8 * other_d, 0.0, 500.0) - radius
            k = int(np.argmax(score))
            if score[k] > best:
                best, where = score[k], centres[k]
        placed.append((where, half))
        offset = (where - screen[i]) * 72 / fig.dpi
        out[i] = ax.annotate(texts[i], (xs[i], ys[i]), xytext=tuple(offset), textcoords="offset points",
                             ha="center", va="center", fontsize=size, **kwargs)
    return out
