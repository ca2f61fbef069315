"""Matplotlib drawings shared by the study notebooks (no computation here)."""

from __future__ import annotations

import base64
import html as _html
import io
import math

import matplotlib
import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.text import Text
from matplotlib.ticker import MaxNLocator

from robolib.core import checks
from robolib.core.drawing import DIM_COLOR, FIGURE_WIDTH, FONTSIZE, _arc, _arrow, _dimension, _finish, _label
from robolib.core.errors import ParameterError
from robolib.prp3.kinematics import U1, U2, Geometry, V, forward, singularity_measures, slider_points, working_mode
from robolib.prp3.sampling import ErrorLaw, RoundTrip

#: Width [in] of a full-width figure: the book's text width (robolib.core.drawing.FIGURE_WIDTH) less the 0.1-in pad
#: that ``savefig(bbox_inches="tight")`` adds on each side, so that the PNG fits the 672-px column.
FULL_WIDTH = FIGURE_WIDTH - 0.2


def draw_prp3(ax, geom: Geometry, lx: float, ly: float, theta: float, *, title: str | None = None):
    """Draw the 3-PRP robot at one input on a 3-D matplotlib axis; return the FK point.

    Fixed platform edge BG and the two rails (grey), sliders and crank
    (black), rods (blue), moving platform (orange triangle of attachment points).
    Raises the kernel's error if the input is unreachable.
    """
    J = forward(geom, lx, ly, theta)
    C = slider_points(geom, lx, ly, theta)
    att = J + geom.r * V
    span = geom.lx_range[1] * 1.05
    for u in (U1, U2):
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
    ax.set(xlabel=f"x [{geom.unit}]", ylabel=f"y [{geom.unit}]", zlabel=f"z [{geom.unit}]",
           xlim=(-150, 550), ylim=(-350, 350), zlim=(-550, 250))
    ax.set_box_aspect((700, 700, 800))
    if title:
        ax.set_title(title)
    return J


def prp3_explore_figure(geom: Geometry, lx: float, ly: float, theta: float, *, size=(4.2, 4.0)):
    """A small 3-D drawing of the 3-PRP robot at one input, titled with ``J``, its mode and conditioning.

    Made for the Explore panel (many precomputed figures): no pane grid and
    three ticks per axis keep each image near 12 kB. An input that the robot
    cannot assume is drawn as an empty frame titled with the kernel's error
    message (:class:`robolib.UnreachableError` / :class:`robolib.SingularityError`).
    Returns a :class:`matplotlib.figure.Figure` (not registered with pyplot).

    >>> fig = prp3_explore_figure(Geometry(), 200.0, 200.0, 0.0)
    >>> fig.axes[0].get_title().splitlines()[0]
    'J = (262.6, 0.0, -463.6) mm'
    """

    fig = Figure(figsize=size)
    ax = fig.add_subplot(projection="3d")
    try:
        J = draw_prp3(ax, geom, lx, ly, theta)
        mode = tuple(int(v) for v in working_mode(geom, lx, ly, theta))
        cond = float(singularity_measures(geom, lx, ly, theta).condition)
        ax.set_title(f"J = ({J[0]:.1f}, {J[1]:.1f}, {J[2]:.1f}) {geom.unit}\nmode {mode}, κ = {cond:.0f}", fontsize=9)
    except ValueError as exc:  # UnreachableError / SingularityError derive from ValueError
        msg = str(exc)
        ax.set_title(msg[:60] + ("\n" + msg[60:120] if len(msg) > 60 else ""), fontsize=8, color="red")
        ax.set_xlim(-150, 550), ax.set_ylim(-350, 350), ax.set_zlim(-550, 250)
    ax.view_init(elev=18, azim=-60)
    ax.grid(False)
    for axis in (ax.xaxis, ax.yaxis, ax.zaxis):
        axis.set_major_locator(MaxNLocator(3))
        axis.label.set_size(8)
    ax.tick_params(labelsize=8)
    return fig


#: CSS pixels per inch: a browser shows an SVG's size in pt at 96/72 px each.
SVG_PX_PER_INCH = 96.0


def svg_img_html(fig, alt: str) -> str:
    """A figure as an ``<img>`` tag holding its SVG (text kept as SVG text), for an Explore panel.

    One render instead of the PNG-and-SVG pair the panel would otherwise make;
    the SVG sits in a ``data:`` URL, so the page needs no file and several
    figures never share SVG element ids. ``alt`` is the image's alt text.

    >>> html = svg_img_html(prp3_explore_figure(Geometry(), 200.0, 200.0, 0.0), alt="home input")
    >>> html.startswith('<img alt="home input" src="data:image/svg+xml;base64,')
    True
    """


    buf = io.BytesIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "robolib"}):
        fig.savefig(buf, format="svg", metadata={"Date": None})
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    w, h = (fig.get_size_inches() * SVG_PX_PER_INCH).round().astype(int)   # CSS px: the SVG's pt at 96/72
    fig.draw_without_rendering()
    sizes = [t.get_fontsize() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    font = min(sizes) * SVG_PX_PER_INCH / 72.0 if sizes else float("inf")   # smallest text, px at natural size
    return (f'<img alt="{_html.escape(alt, quote=True)}" src="data:image/svg+xml;base64,{data}" '
            f'width="{w}" height="{h}" style="max-width:100%;height:auto" data-robolib-min-font-px="{font:.3f}">')


# --------------------------------------------------------------------------- 3-PRP
def _prp3_default_input(geom):
    lo, hi = geom.actuator_box.T
    lx = lo[0] + 0.625 * (hi[0] - lo[0])
    ly = lo[1] + 0.375 * (hi[1] - lo[1])
    theta = float(np.clip(math.radians(30.0), lo[2], hi[2]))
    return lx, ly, theta


def prp3_mechanism(geom: Geometry, lx: float | None = None, ly: float | None = None,
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
        FULL_WIDTH x 6.8 inches; labels at 10 pt, tick labels at 9 pt.

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
    J = forward(geom, lx, ly, theta)
    C = slider_points(geom, lx, ly, theta)
    att = J + geom.r * V
    u = geom.unit
    l0, l1 = geom.l0, geom.l1
    span = geom.lx_range[1] * 1.05

    fig = Figure(figsize=(FULL_WIDTH, 6.8), layout="constrained")
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
    for axis in (ax.xaxis, ax.yaxis, ax.zaxis):  # 3 ticks an axis: more collide in a panel of the column's width
        axis.label.set_size(FONTSIZE - 1)
        axis.set_major_locator(MaxNLocator(3))
    ax.tick_params(labelsize=FONTSIZE - 1)
    ax.view_init(elev=22, azim=-58)

    # (b) top view, XY plane
    ax = fig.add_subplot(gsp[0, 1])
    for uk, name, sgn in ((U1, "rail $u_1$", -1), (U2, "rail $u_2$", 1)):
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
    ax.set(aspect="equal", xlim=(-0.12 * span, 1.25 * span), ylim=(-0.9 * span, 0.9 * span),
           xlabel=f"X [{u}]", ylabel=f"Y [{u}]")
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
    ax.set(aspect="equal", xlim=(-0.15 * span, max(att[:, 0].max(), C[2, 0]) + 0.2 * span),
           ylim=(zlo, pv[2] + l1 + 0.25 * span), xlabel=f"X [{u}]", ylabel=f"Z [{u}]")
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
    ax.set(aspect="equal", xlim=(l0 - 0.95 * l1, l0 + 1.55 * l1),
           ylim=(min(-0.45 * l1, rod_end[1] - 0.1 * l1), pv[2] + 1.05 * l1), xlabel=f"X [{u}]", ylabel=f"Z [{u}]")
    _finish(ax, "(d) crank chain (XZ plane)")
    fig.suptitle(f"3-PRP robot at $l_x$ = {lx:g} {u}, $l_y$ = {ly:g} {u}, "
                 rf"$\theta$ = {math.degrees(theta):.4g}°", fontsize=FONTSIZE + 2)
    return fig


# --------------------------------------------------------------------------- the chapter's result figures
#: Tick labels of the workspace figure's 3-D view [pt]: its axes are drawn foreshortened, so they get more than the
#: 8 pt of the other panels.
TICK_3D_PT = 9.0
#: Added to an error before its logarithm, so that exact round trips (error 0) show in a histogram.
LOG_FLOOR = 1e-17


def errors_figure(rt, law, *, far_len: float = 1.0, predicted_exponent: float = -1.0, comparison_exponent: float = 0.0,
                  max_dots: int = 20_000) -> Figure:
    """Round-trip errors of a large sample: histograms (top), and slider error against the distance from the
    boundary (bottom).

    ``rt`` a :class:`robolib.prp3.RoundTrip` (errors in mm and rad, distances in mm);
    ``law`` the :class:`robolib.prp3.ErrorLaw` fitted to its slider columns;
    ``far_len`` [mm] the distance marked by a vertical line; ``predicted_exponent``
    the slope drawn through the fitted line at the middle of the fit range (a dashed line over
    the wide pale fitted line, so that both show where they coincide); ``comparison_exponent`` the slope of a
    dotted comparison line through the same point (0: an error that does not grow toward the boundary);
    ``max_dots`` about how many samples are drawn as dots. Made without pyplot.

    >>> errors_figure(None, None)
    Traceback (most recent call last):
    ...
    robolib.ParameterError: rt must be a robolib.prp3.RoundTrip (from prp3.round_trip), got None
    """
    if not isinstance(rt, RoundTrip):
        raise ParameterError(f"rt must be a robolib.prp3.RoundTrip (from prp3.round_trip), got {rt!r:.60}")
    if not isinstance(law, ErrorLaw):
        raise ParameterError(f"law must be a robolib.prp3.ErrorLaw (from prp3.error_law), got {law!r:.60}")
    checks.real("far_len", far_len, low=0.0, open_low=True, unit="mm")
    checks.real("predicted_exponent", predicted_exponent)
    checks.real("comparison_exponent", comparison_exponent)
    checks.count("max_dots", max_dots)
    fig = Figure(figsize=(FULL_WIDTH, 7.4), layout="constrained")
    axs = fig.subplots(2, 1, height_ratios=[1, 1.55])
    bins = np.linspace(-17, -5, 61)
    # lx and ly have the same distribution (the mirror symmetry): lx wide and pale, ly dashed on top of it
    styles = {"$l_x$ [mm]": dict(lw=3.5, color="tab:blue", alpha=0.45), "$l_y$ [mm]": dict(lw=1.3, color="tab:orange", ls="--"),
              "θ [rad]": dict(lw=1.5, color="tab:green")}
    for k, (name, style) in enumerate(styles.items()):
        axs[0].hist(np.log10(rt.error[:, k] + LOG_FLOOR), bins=bins, histtype="step", label=name, **style)
    axs[0].set_xlabel(r"$\log_{10}$ round-trip error (10⁻¹⁷ added to show zeros)")
    axs[0].set_ylabel("count")
    axs[0].set_yscale("log")
    axs[0].legend(loc="upper right")
    axs[0].set_title("error histogram, all modes")
    d, e = rt.distance[:, :2].ravel(), rt.error[:, :2].ravel()
    step = max(1, len(d) // max_dots)
    ax = axs[1]
    ax.loglog(d[::step], e[::step] + LOG_FLOOR, ".", ms=1, alpha=0.3, color="0.6", label="samples")
    ax.loglog(law.raw_centres, law.raw_worst, "-", color="0.45", lw=1, label="largest error per bin (all samples)")
    xs = np.array(law.fit_range)
    c_fit = 10 ** law.log10_prefactor
    ax.loglog(xs, c_fit * xs ** law.exponent, "-", color="tab:red", lw=6, alpha=0.35, solid_capstyle="butt",
              label=f"fit: exponent {law.exponent:.2f}".replace("-", "−"))
    ax.loglog(law.centres, law.worst, "ko", ms=3.5, label=f"largest of {law.draws} per bin (fitted)")
    xm = np.sqrt(xs[0] * xs[1])
    ym = c_fit * xm ** law.exponent
    ax.loglog(xs, ym * (xs / xm) ** predicted_exponent, "--", color="navy", lw=1.3,
              label=f"predicted: exponent {predicted_exponent:g}".replace("-", "−"))
    flat = ": no growth" if comparison_exponent == 0 else ""
    ax.loglog(xs, ym * (xs / xm) ** comparison_exponent, ":", color="0.2", lw=1.5,
              label=f"exponent {comparison_exponent:g}{flat} (for comparison)".replace("-", "−"))
    ax.axvline(far_len, color="0.5", ls=":")
    ax.set_xlabel(r"slider distance from its mode boundary $\sqrt{D}$ [mm]")
    ax.set_ylabel("slider round-trip error [mm]")
    ax.legend(loc="lower left", fontsize=8, ncols=2, framealpha=0.9)
    ax.set_ylim(1e-21, None)  # room below the samples (errors of 0 sit at 10⁻¹⁷) for the legend
    ax.set_title("error against distance from the boundary")
    return fig


def workspace_figure(points_all, points_mode, *, max_all: int = 30_000, max_mode: int = 15_000,
                     tick_size: float = TICK_3D_PT) -> Figure:
    """The reachable workspace: a 3-D view coloured by z, and its xy, xz, yz projections.

    ``points_all`` ``(m, 3)`` [mm] the forward images of every mode (grey in the
    projections), ``points_mode`` ``(k, 3)`` those of one mode (blue); about
    ``max_all`` / ``max_mode`` of them are drawn. ``tick_size`` [pt, 6 to 30] the tick labels of the 3-D view,
    whose axes are drawn foreshortened (the projections' ticks keep the default size). Made without pyplot.

    >>> workspace_figure(np.zeros((4, 3)), np.zeros((2, 3)), tick_size=0)
    Traceback (most recent call last):
    ...
    robolib.ParameterError: tick_size must be a number in [6, 30] pt, got 0
    """
    points_all = checks.real_array("points_all", points_all, shape=(None, 3))
    points_mode = checks.real_array("points_mode", points_mode, shape=(None, 3), allow_empty=True)
    checks.count("max_all", max_all)
    checks.count("max_mode", max_mode)
    checks.real("tick_size", tick_size, low=6.0, high=30.0, unit="pt")
    pts = points_all[:: max(1, len(points_all) // max_all)]
    p0 = points_mode[:: max(1, len(points_mode) // max_mode)]
    fig = Figure(figsize=(FULL_WIDTH, 7.2))
    ax = fig.add_axes((0.02, 0.62, 0.43, 0.38), projection="3d")
    sc = ax.scatter(*pts.T, s=0.3, c=pts[:, 2], cmap="viridis", alpha=0.5)
    cax = fig.add_axes((0.07, 0.565, 0.30, 0.016))
    fig.colorbar(sc, cax=cax, orientation="horizontal", label="z [mm]")
    ax.set_title("all modes, coloured by z", y=1.0)
    ax.set_xlabel("x [mm]", labelpad=-3), ax.set_ylabel("y [mm]", labelpad=-3), ax.set_zlabel("z [mm]", labelpad=-3)
    for axis in (ax.xaxis, ax.yaxis, ax.zaxis):  # 3 ticks an axis: more collide on the small 3-D panel
        axis.set_major_locator(MaxNLocator(3))
        axis.label.set_size(9)
    ax.tick_params(labelsize=tick_size, pad=1.0)  # the tick labels near their axis, clear of the axis labels
    boxes = [(0.61, 0.58, 0.37, 0.37), (0.10, 0.11, 0.37, 0.36), (0.61, 0.11, 0.37, 0.36)]
    for box, (a, b) in zip(boxes, [(0, 1), (0, 2), (1, 2)]):
        ax2 = fig.add_axes(box)
        ax2.scatter(pts[:, a], pts[:, b], s=0.2, alpha=0.3, color="0.5", rasterized=True)
        ax2.scatter(p0[:, a], p0[:, b], s=0.2, alpha=0.4, color="tab:blue", rasterized=True)
        ax2.set_xlabel("xyz"[a] + " [mm]"), ax2.set_ylabel("xyz"[b] + " [mm]")
        ax2.set_aspect("equal")
        ax2.set_title(f"projection on {'xyz'[a]}{'xyz'[b]}")
    handles = [Line2D([], [], ls="", marker="o", ms=6, color=c, alpha=0.6) for c in ("0.5", "tab:blue")]
    fig.legend(handles, ["all modes", "default mode (−1, −1, +1)"], loc="lower center", ncols=2, bbox_to_anchor=(0.5, -0.01))
    return fig


def condition_figure(LX, LY, maps, *, inverse_level: float = 0.02) -> Figure:
    """Maps of the Jacobian's conditioning over the two slider inputs, one panel per crank angle.

    ``LX``, ``LY`` ``(n, n)`` [mm] the grid; ``maps`` a list of ``(theta_deg,
    Singularity)`` (:func:`robolib.prp3.singularity_measures` on the grid); the
    cyan contour is ``inverse == inverse_level``. Made without pyplot.
    """
    fig = Figure(figsize=(FULL_WIDTH, 4.3), layout="constrained")
    axs = fig.subplots(1, len(maps), sharey=True)
    for ax, (th_deg, s) in zip(axs, maps):
        im = ax.pcolormesh(LX, LY, np.log10(s.condition), vmin=0, vmax=4, shading="auto", cmap="magma_r")
        ax.contour(LX, LY, s.inverse, levels=[inverse_level], colors="tab:cyan", linewidths=1)
        ax.set_title(f"θ = {th_deg:g}°".replace("-", "−"))
        ax.set_xlabel("$l_x$ [mm]")
        ax.set_aspect("equal")
    axs[0].set_ylabel("$l_y$ [mm]")
    fig.colorbar(im, ax=axs, location="bottom", shrink=0.6, aspect=40,
                 label=r"$\log_{10}$ condition number of ∂J/∂q (white: unreachable)")
    return fig
