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
