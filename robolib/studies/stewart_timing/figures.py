"""Figures, animation and Explore panels of the Stewart chapter (from a :func:`~robolib.studies.stewart_timing.study.run`
result). Every figure is a :class:`matplotlib.figure.Figure` made without pyplot.

>>> import numpy as np
>>> fig = ratios_figure({"runs": {"a": (1.0, 1.1)}, "evals": {"b": (2.0, 1.0)}})
>>> [len(ax.patches) for ax in fig.axes]
[2]
"""

from __future__ import annotations

import math
import re
import textwrap

import matplotlib
import numpy as np
from matplotlib.animation import FuncAnimation
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from scipy.optimize import brentq

from robolib.book.notebook import animation_html, explore, number_caption
from robolib.book.text import sci_text  # noqa: F401  (study.py uses figs.sci_text)
from robolib.core.drawing import FIGURE_WIDTH
from robolib.core.errors import SingularityError, UnreachableError
from robolib.stewart import drawing
from robolib.stewart.control import sampled_loop_radius, simulate, tracking_metrics
from robolib.stewart.dynamics import inverse_dynamics
from robolib.stewart.kinematics import inverse_kinematics, limit_interval
from robolib.studies.stewart_timing.settings import PATENT_NE_S, PATENT_RATIO, PATENT_VW_S, REPRODUCED, file_offset

#: Limit codes of :func:`robolib.stewart.limit_codes`: legend text and colour of the reach figure.
LIMIT_NAMES = {0: "reachable", 4: "leg shorter than length_min", 5: "leg longer than length_max",
               6: "U-joint angle too large", 7: "S-joint angle too large"}
LIMIT_COLORS = {0: "white", 4: "tab:blue", 5: "tab:red", 6: "tab:green", 7: "tab:purple"}
#: rad/s, steady turn about the vertical in the pose panel of Explore.
EXPLORE_WZ = 1.0
CONTROLLERS = (("newton_euler", "NE", "tab:blue"), ("virtual_work", "VW", "tab:orange"))
FULL_WIDTH = FIGURE_WIDTH  # the book's text width (robolib.core.drawing.FIGURE_WIDTH)
#: The animation's force arrows: the period's largest force is this share of the mean leg length; width (pt).
FORCE_ARROW, FORCE_WIDTH = 1.0, 3.5



def spin_figure(spins: dict, t) -> Figure:
    """Leg spin rate ``omega_i . s_i`` (rad/s) against ``t`` (s), one panel per parameter set."""
    fig = Figure(figsize=(FULL_WIDTH, 3.4), layout="tight")
    axs = fig.subplots(1, len(spins), sharex=True)
    for ax, (name, sp) in zip(axs, spins.items()):
        for i in range(6):
            ax.plot(t, sp["spin"][:, i], lw=1, label=f"leg {i + 1}")
        ax.set_title(f"{name}: leg spin " + r"$\omega_i \cdot s_i$ (U joint)", fontsize=10)
        ax.set_xlabel("t [s]")
    axs[0].set_ylabel("spin rate [rad/s]")
    axs[-1].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)  # beside, not on, the lines
    return fig


def forces_figure(fs: dict, t, name: str) -> Figure:
    """NE (solid) and VW (dashed) actuator forces (N) against ``t`` (s), and their difference below."""
    f_ne, f_vw = fs["f_ne"], fs["f_vw"]
    fig = Figure(figsize=(FULL_WIDTH, 6.0), layout="tight")
    axs = fig.subplots(2, 1, sharex=True)
    for i in range(6):
        line, = axs[0].plot(t, f_ne[:, i], lw=1.2, label=f"leg {i + 1}")
        axs[0].plot(t, f_vw[:, i], "--", lw=1, color=line.get_color())
        axs[1].plot(t, f_vw[:, i] - f_ne[:, i], lw=1, color=line.get_color())
    axs[0].set_ylabel("actuator force $f_i$ [N]")
    axs[0].set_title(f"{name}: Newton–Euler with U joints (solid) and virtual work (dashed)", fontsize=10)
    # the legend between the panels (in the room of the shared axis's hidden tick labels), not over the forces
    axs[0].legend(ncol=6, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.02), frameon=False)
    axs[1].set_ylabel(r"$f_{\mathrm{VW}} - f_{\mathrm{NE}}$ [N]")
    axs[1].set_xlabel("t [s]")
    axs[1].set_title("their difference", fontsize=10)
    return fig


def reach_figure(model, reach: dict, Xd) -> Figure:
    """Which limit binds on the plane y = y_home (``reach`` from :func:`~robolib.studies.stewart_timing.study.reach_map`);
    the reference trajectory ``Xd`` (n, 6) projected in black, home as a cross."""
    fig = Figure(figsize=(FULL_WIDTH, 5.2), layout="tight")
    ax = fig.subplots()
    keys = list(LIMIT_NAMES)
    idx = np.searchsorted(keys, reach["codes"])
    ax.pcolormesh(reach["XX"], reach["ZZ"], idx, cmap=ListedColormap([LIMIT_COLORS[k] for k in keys]),
                  vmin=-0.5, vmax=len(keys) - 0.5, shading="auto")
    for k in keys:
        ax.plot([], [], "s", color=LIMIT_COLORS[k], mec="0.5", label=LIMIT_NAMES[k])
    ax.plot(Xd[:, 0], Xd[:, 2], "k-", lw=0.8)
    ax.plot(*model.home_pose[[0, 2]], "kx", ms=10)
    ax.set_xlabel("x [m]")
    ax.set_ylabel("z [m]")
    ax.set_aspect("equal")
    ax.legend(fontsize=8, loc="upper left", framealpha=0.9)
    ax.set_title(f"{model.name}: which limit binds\n(y = {model.home_pose[1]:g} m, home orientation)", fontsize=10)
    return fig


def tracking_figure(runs: dict, name: str) -> Figure:
    """Largest leg error (m, log) of the NE and VW controllers, PID and PD, and their difference."""
    fig = Figure(figsize=(FULL_WIDTH, 4.0), layout="tight")
    axs = fig.subplots(1, 2, sharex=True)
    dmax = 0.0
    for pid in (False, True):
        for ctrl, ab, color in CONTROLLERS:
            r = runs[name, ctrl, pid]
            axs[0].semilogy(r.t, np.abs(r.error).max(axis=1), lw=1, color=color, ls="-" if pid else ":",
                            label=f"{ab} controller, {'PID' if pid else 'PD'}")
        d = runs[name, "virtual_work", pid].error - runs[name, "newton_euler", pid].error
        axs[1].semilogy(r.t[1:], np.abs(d[1:]).max(axis=1) + 1e-18, lw=1, color="k" if pid else "tab:gray",
                        ls="-" if pid else ":", label=f"{'PID' if pid else 'PD'}")
        dmax = max(dmax, float(np.abs(d).max()))
    axs[1].set_ylim(bottom=1e-4 * dmax if dmax > 0 else None)
    axs[0].set_title(f"{name}: largest leg tracking error\n" + r"$\max_i |e_i|$", fontsize=10)  # two lines: one overhangs
    axs[1].set_title("what the controller model changes:\n" + r"$\max_i |e_{\mathrm{VW},i} - e_{\mathrm{NE},i}|$",
                     fontsize=10)
    axs[0].set_ylabel("largest leg error [m]")
    axs[1].set_ylabel("difference of the errors [m]")
    for ax in axs:
        ax.legend(fontsize=9)
        ax.set_xlabel("t [s]")
    return fig


def ratios_figure(ratio: dict) -> Figure:
    """Every measured VW/NE cost ratio (bars, log axis) beside the patent's ratio and half of it."""

    labels = [textwrap.fill(k, 34) for k in list(ratio["runs"]) + list(ratio["evals"])]
    vals = [b / a for a, b in ratio["runs"].values()] + [b / a for a, b in ratio["evals"].values()]
    fig = Figure(figsize=(FULL_WIDTH, 0.55 * len(vals) + 1.6), layout="tight")
    ax = fig.subplots()
    ax.barh(range(len(vals)), vals, color=["tab:blue"] * len(ratio["runs"]) + ["tab:gray"] * len(ratio["evals"]))
    for k, v in enumerate(vals):
        ax.text(v * 1.08, k, f"{v:.2f}", va="center", fontsize=9)
    ax.axvline(PATENT_RATIO, color="tab:red", lw=2, label=f"patent: {PATENT_VW_S:g} s / {PATENT_NE_S:g} s")
    ax.axvline(REPRODUCED * PATENT_RATIO, color="tab:red", lw=1, ls=":", label="half of it (criterion)")
    ax.axvline(1.0, color="k", lw=0.6)
    ax.set_yticks(range(len(vals)), labels, fontsize=9)
    ax.set_xscale("log")
    ax.set_xlim(0.3, 60)
    ax.set_xlabel("VW cost ÷ NE cost (blue: whole runs; grey: one evaluation)")
    ax.invert_yaxis()
    ax.legend(fontsize=9, loc="lower right", framealpha=0.95)
    return fig


#: pt, the smallest text of every figure of the chapter (tick labels of the 3-D view included).
MIN_FONT_PT = 8.0


def legible(fig: Figure, pt: float = MIN_FONT_PT) -> Figure:
    """``fig`` with every text smaller than ``pt`` points (tick labels, legends, annotations) raised to ``pt``,
    and the tick labels of a 3-D view to ``pt + 1``.

    >>> fig = Figure(figsize=(4, 3)); ax = fig.add_subplot(projection="3d"); ax.tick_params(labelsize=6)
    >>> note = fig.text(0.0, 0.0, "a note", fontsize=6)
    >>> from robolib.book.notebook import smallest_font_px
    >>> round(smallest_font_px(legible(fig), 72), 6), fig.axes[0].xaxis.get_major_ticks()[0].label1.get_fontsize()
    (8.0, 9.0)
    """
    for ax in fig.axes:
        least = pt + 1 if hasattr(ax, "zaxis") else pt  # a 3-D box foreshortens its tick labels: one point more
        for axis in [getattr(ax, f"{k}axis") for k in "xyz" if hasattr(ax, f"{k}axis")]:
            sizes = [t.label1.get_fontsize() for t in axis.get_major_ticks()] or [0.0]
            if min(sizes) < least:
                axis.set_tick_params(labelsize=least)
    fig.draw_without_rendering()
    for t in fig.findobj(matplotlib.text.Text):
        if t.get_fontsize() < pt:
            t.set_fontsize(pt)
    return fig


def chapter_figures(res) -> dict:
    """The six figures of the chapter, by name, from the study's data; every text at least :data:`MIN_FONT_PT`."""
    d = res.data
    name = d["model"].name
    figs = {"mechanism": drawing.stewart_mechanism(d["model"]),  # the library draws its texts at 10 pt or more
            "spin": spin_figure(d["spins"], d["t_ref"]),
            "forces": forces_figure(d["force_stats"][name], d["t_ref"], name),
            "reach": reach_figure(d["model"], d["reach"], d["traj"](d["t_ref"])[0]),
            "tracking": tracking_figure(d["runs"], name),
            "ratios": ratios_figure(d["ratio"])}
    return {k: legible(fig) for k, fig in figs.items()}


def animation_figure(res):
    """The animation's figure and its frame function: ``(fig, frame, t_anim)``; ``frame(k)`` draws frame ``k`` of
    ``res.data["settings"].n_frames`` at the times ``t_anim`` (s)."""
    d = res.data
    model, tr, sa = d["model"], d["traj"], d["spin_angle"]
    t_anim = np.linspace(0, sa["t"][-1], d["settings"].n_frames)
    Xa, Va, dVa = tr(t_anim)
    fa = inverse_dynamics(model, Xa, Va, dVa)
    lim = drawing.scene_limits(model, Xa)
    mean_leg = float(inverse_kinematics(model, model.home_pose).mean())
    fscale = FORCE_ARROW * mean_leg / np.abs(fa).max()  # the largest force of the period: this share of a leg
    fig = Figure(figsize=(FULL_WIDTH, 3.9), dpi=100)
    ax = fig.add_axes([-0.02, -0.06, 0.68, 1.02], projection="3d")
    ax2 = fig.add_axes([0.72, 0.13, 0.26, 0.70])
    for i in range(6):
        ax2.plot(sa["t"], sa["angle"][:, i], lw=1, label=f"leg {i + 1}")
    ax2.set_xlabel("t [s]", fontsize=9)
    ax2.set_ylabel("spin angle [deg]", fontsize=9)
    ax2.set_title("accumulated spin\n" + r"$\int \omega_i \cdot s_i\,dt$ of each leg", fontsize=9)
    ax2.tick_params(labelsize=8)
    cursor = ax2.axvline(0.0, color="k", lw=1)
    stamp = fig.text(0.02, 0.95, "", fontsize=9)

    def frame(k):
        ax.cla()
        drawing.draw_stewart(ax, model, Xa[k], forces=fa[k], limits=lim, force_scale=fscale, labels=False,
                             show_com=False, spin_marks=0.3 * mean_leg, surfaces=False, force_width=FORCE_WIDTH)
        stamp.set_text(f"{model.name}, t = {t_anim[k]:.2f} s; Newton–Euler forces: an arrow one leg long is "
                       f"{mean_leg / fscale:.3g} N")
        ax.view_init(elev=30, azim=-110)
        ax.set_axis_off()  # the scene only: the mechanism figure has the axes
        cursor.set_xdata([t_anim[k], t_anim[k]])
        return []

    return fig, frame, t_anim


def animation_panel(res):
    """One period of the slowest trajectory term with the NE forces, and the accumulated spin angle beside it:
    an HTML player (``IPython.display.HTML``) of ``res.data["settings"].n_frames`` JPEG frames."""
    fig, frame, t_anim = animation_figure(res)
    model, sa = res.data["model"], res.data["spin_angle"]
    with matplotlib.rc_context({"animation.frame_format": "jpeg"}):  # about a third of the PNG size per frame
        html = animation_html(
            FuncAnimation(fig, frame, frames=len(t_anim), interval=150, blit=False),
            caption=f"One period ({sa['t'][-1]:.3g} s) of the reference trajectory's slowest term on {model.name}: "
                    "Newton–Euler forces on the platform (red push, purple pull; the title gives their scale) and a black arm along each cylinder's axis "
                    "<i>c</i><sub>i</sub> "
                    "(left); each leg's accumulated spin angle, with a time cursor (right).",
            alt=f"Animation: the six-legged {model.name} platform moving through one period of its trajectory, force "
                "arrows at the platform joints growing and shrinking and black arms on the cylinders swinging; "
                "beside it six curves of each leg's accumulated spin angle, a few degrees at most, with a moving "
                "time cursor.")
    return number_caption(html, "Animation", "4.1")


def _message(ax, text: str) -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", color="tab:red", fontsize=9, transform=ax.transAxes)
    ax.set_axis_off()


def pose_forces(model, dz: float, yaw_deg: float) -> Figure:
    """The NE actuator forces (N, left) and the gap of the VW forces to them (mN, right) at home + (dz m, yaw_deg)
    turning at EXPLORE_WZ rad/s, or the limit that refuses the pose, or the singularity."""
    X = model.home_pose + np.r_[0.0, 0.0, dz, 0.0, 0.0, np.radians(yaw_deg)]
    fig = Figure(figsize=(5.5, 3.5), layout="tight")
    ax, ad = fig.subplots(1, 2)
    V, z = np.r_[0, 0, 0, 0, 0, EXPLORE_WZ], np.zeros(6)
    try:
        fn = inverse_dynamics(model, X, V, z)
        fv = inverse_dynamics(model, X, V, z, method="virtual_work")
    except UnreachableError as exc:
        ad.set_axis_off()
        _message(ax, "unreachable:\n" + str(exc).split("unreachable: ")[-1].replace(" is ", "\nis ", 1))
        return fig
    except SingularityError:
        ad.set_axis_off()
        _message(ax, "inside the limits, but at (or next to)\na parallel singularity: J is singular")
        return fig
    idx = np.arange(1, 7)
    ax.bar(idx, fn, 0.6, color="tab:blue")
    ad.bar(idx, (fv - fn) * 1e3, 0.6, color="tab:orange")
    for a_, title in ((ax, "Newton–Euler force $f_i$ [N]"), (ad, r"$f_{\mathrm{VW}} - f_{\mathrm{NE}}$ [mN]")):
        a_.axhline(0.0, color="k", lw=0.6)
        a_.set_xticks(idx)
        a_.set_xlabel("leg")
        a_.set_title(title, fontsize=9)
    ll = inverse_kinematics(model, X)
    fig.suptitle(f"legs {ll.min():.3f}…{ll.max():.3f} m; largest gap {np.abs(fv - fn).max() / np.abs(fn).max():.1e} "
                 "of the largest force", fontsize=9)
    return legible(fig)


def gains_runs(model, traj, kp: float, kd: float, ki: float, step: float, duration: float) -> Figure:
    """Largest leg error (m, log) of short NE- and VW-controlled runs with the gains ``kp, kd, ki``."""
    fig = Figure(figsize=(5.5, 3.5), layout="tight")
    ax = fig.subplots()
    rho = sampled_loop_radius(kp, kd, ki, step)
    title = (f"$K_d$ = {kd:g} 1/s, step {step * 1e3:g} ms: spectral radius {rho:.4f}, "
             f"{'stable' if rho < 1 else 'UNSTABLE'}")
    try:
        for ctrl, ab, color in CONTROLLERS:
            r = simulate(model, ctrl, gains={"kp": kp, "kd": kd, "ki": ki}, duration=duration, step=step,
                         trajectory=traj, initial_error=file_offset(model))
            mt = tracking_metrics(r.t, r.error, window=duration / 4)
            ax.semilogy(r.t, np.abs(r.error).max(axis=1) + 1e-15, color=color, lw=1.2,
                        label=f"{ab}: mean {mt['static'] * 1e6:.3g} µm over the last {duration / 4:g} s")
        ax.legend(fontsize=8)
    except ValueError as exc:  # the plant left its limits (unstable gains): say so, with the time it did
        when = re.search(r"t = [0-9.]+ s", str(exc))
        title += f"\nthe {ab} run left the platform's joint limits" + (f" at {when.group(0)}" if when else "")
        ax.text(0.5, 0.5, "no curve: with these gains the platform left\nits joint limits before the run's end", transform=ax.transAxes, ha="center", va="center", fontsize=9)
    ax.set_title(title, fontsize=9, color="black" if rho < 1 else "tab:red")
    ax.set_xlabel("t [s]")
    ax.set_ylabel(r"$\max_i |e_i|$ [m]")
    return legible(fig)


def _inward(lo: float, hi: float, step: float) -> tuple[float, float, float]:
    """A slider's range ``(lo, hi, step)`` with both ends on the step grid inside ``[lo, hi]``."""
    return math.ceil(lo / step) * step, math.floor(hi / step) * step, step


def pose_ranges(model) -> dict:
    """Live ranges of the pose panel: how far dz (m) and yaw (deg) can move from home within the stroke and
    joint-angle limits (:func:`robolib.stewart.limit_interval`)."""
    dz, yaw = limit_interval(model, 2), np.degrees(limit_interval(model, 5))
    return {"dz": _inward(*dz, 0.005), "yaw_deg": _inward(*yaw, 0.5)}


def gain_ranges(kp: float, kd: float, step: float) -> dict:
    """Live ranges of the gains panel: K_p from 10 1/s² up to the largest gain at which the PD loop sampled at
    ``step`` is stable (log slider); K_i from 0 up to the largest integral gain stable with the run's
    ``kp`` (:func:`robolib.stewart.sampled_loop_radius`). Other combinations may be unstable: the figure's
    title says so."""
    kp_max = brentq(lambda g: sampled_loop_radius(10 ** g, kd, 0.0, step) - 1.0, 1.0, 12.0, xtol=1e-6)
    ki_max = brentq(lambda k: sampled_loop_radius(kp, kd, k, step) - 1.0, 1e-9, kd * kp * 2, xtol=1e-3)
    return {"kp": (10.0, 0.999 * 10 ** kp_max, "log"), "ki": _inward(0.0, 0.999 * ki_max, 100.0)}


def _pose_forces_both(model, dz: float, yaw_deg: float):
    """Actuator forces (N) of both models at the explore panel's pose and twist: ``(f_NE, f_VW)``."""
    X = model.home_pose + np.r_[0.0, 0.0, dz, 0.0, 0.0, np.radians(yaw_deg)]
    V, z = np.r_[0, 0, 0, 0, 0, EXPLORE_WZ], np.zeros(6)
    return inverse_dynamics(model, X, V, z), inverse_dynamics(model, X, V, z, method="virtual_work")


def _pose_gap(model, dz: float, yaw_deg: float) -> float:
    """Largest ``|f_VW − f_NE|`` (N) at the explore panel's pose."""
    fn, fv = _pose_forces_both(model, dz, yaw_deg)
    return float(np.abs(fv - fn).max())


def _pose_force(model, dz: float, yaw_deg: float) -> float:
    """Largest ``|f_NE|`` (N) at the explore panel's pose."""
    return float(np.abs(_pose_forces_both(model, dz, yaw_deg)[0]).max())


def explore_pose(res):
    """Explore panel 1: forces of both models at a pose (height offset, yaw) while turning about the vertical.

    Live (JupyterLab), the sliders span the poses the limits allow (:func:`pose_ranges`), whatever ``quick`` is."""

    model, quick = res.data["model"], res.params["quick"]
    grid = ({"dz": [-0.45, -0.3, -0.15, 0.0, 0.15, 0.3, 0.6], "yaw_deg": [-30, -15, 0, 15, 30]}
            if not quick else {"dz": [0.0, 0.6], "yaw_deg": [0, 30]})
    start = (0.15, 15) if not quick else (0.0, 0)  # the first pose shown: height offset [m], yaw [deg]
    box = explore(lambda dz, yaw_deg: pose_forces(model, dz, yaw_deg), grid,
                   labels={"dz": "height offset dz [m]", "yaw_deg": "yaw [deg]"},
                   initial={"dz": start[0], "yaw_deg": start[1]},
                   fmt={"dz": "{:+g}", "yaw_deg": "{:+g}"}, ranges=pose_ranges(model),
                   caption=f"Left: the six actuator forces of the Newton–Euler model on {model.name} at the chosen "
                           f"height and yaw from home, turning about the vertical at {EXPLORE_WZ:g} rad/s. Right: how "
                           "far the virtual-work forces lie from them, in mN (the title gives the largest gap as a "
                           "share of the largest force), or the limit that refuses the pose. What to see: where the "
                           "gap grows as the platform turns away from home, and how small it stays "
                           f"({sci_text(_pose_gap(model, *start))} N at the first pose shown, against forces of about "
                           f"{_pose_force(model, *start):.0f} N).",
                   alt=f"Two bar charts for {model.name} at one pose: the six Newton–Euler actuator forces, and the six "
                       "small differences of the virtual-work forces to them in millinewtons")
    return number_caption(box, "Explore panel", "4.1")


def explore_gains(model, traj, s, params: dict):
    """Explore panel 5.1 (chapter 5): short closed loops of both controllers on the U-joint plant with chosen K_p,
    K_i, for the run's ``model``, reference trajectory ``traj``, settings ``s`` and parameters ``params``.

    Live (JupyterLab), the sliders span the gains of :func:`gain_ranges` (the sampled loop's stability),
    whatever ``quick`` is; the figure's title says whether the sampled exact-model loop is stable for the chosen pair."""

    quick = params["quick"]
    kp, kd, step, T = params["kp"], params["kd"], params["step"], s.explore_t
    grid = ({"kp": [300.0, 600.0, 1200.0, 2400.0, 4800.0], "ki": [0.0, 8000.0, 32000.0, 64000.0]} if not quick
            else {"kp": [600.0, 1200.0], "ki": [0.0, 8000.0]})
    box = explore(lambda kp, ki: gains_runs(model, traj, kp, kd, ki, step, T), grid,
                   labels={"kp": "K_p [1/s²]", "ki": "K_i [1/s³]"},
                   initial={"kp": 1200.0, "ki": 8000.0 if not quick else 0.0},
                   ranges=gain_ranges(kp, kd, step),
                   caption=f"Largest leg tracking error of a {T:g}-s closed loop on the U-joint plant under the "
                           "Newton–Euler (blue) and virtual-work (orange) ID-PID controllers, for the chosen "
                           "<i>K</i><sub>p</sub> and <i>K</i><sub>i</sub>. The legend gives each controller's mean "
                           f"error over the loop's last {T / 4:g} s: after only {T:g} s it is not yet the static error "
                           f"of Table 5.1 (the last {s.window:.3g} s of a {s.duration:g}-s run). The title gives the "
                           "spectral radius of the error dynamics with an exact model, sampled at the run's step "
                           "(largest eigenvalue magnitude of the one-step map): below 1, they are stable.",
                   alt="Log-scale plot of the largest leg tracking error against time for the two controllers: "
                       "for stable gains two nearly coincident curves falling from the initial error; for unstable "
                       "gains no curve, and a note that the platform left its joint limits")
    return number_caption(box, "Explore panel", "5.1")


__all__ = ["chapter_figures", "spin_figure", "forces_figure", "reach_figure", "tracking_figure", "ratios_figure",
           "animation_figure", "animation_panel", "pose_forces", "gains_runs", "pose_ranges", "gain_ranges", "explore_pose",
           "explore_gains"]
