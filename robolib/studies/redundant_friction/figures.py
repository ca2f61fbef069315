"""Figures, animation and Explore panel of the friction study (:mod:`robolib.studies.redundant_friction.study`).

Every figure is a :class:`matplotlib.figure.Figure` made without pyplot from the
study's data ``d`` (``StudyResult.data``); :func:`figures` makes them all.
"""

from __future__ import annotations

import dataclasses
import re

import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import NullFormatter

from robolib.book.notebook import animation_html, explore, number_caption
from robolib.core import friction as _fr
from robolib.core.drawing import FIGURE_WIDTH
from robolib.core.errors import RobolibError
from robolib.redundant.drawing import animate_motion
from robolib.redundant.dynamics import inverse_dynamics, reference_motion
from robolib.redundant.model import CIRCLE_PERIOD, CIRCLE_RADIUS
from robolib.redundant.simulation import COMPARED_LAWS, rms
from robolib.studies.redundant_friction.settings import DEC_LIMIT, DIFF, relative_difference

#: Colours of the friction models (labels of ``study_friction.MODELS``) and of the compared laws.
COLORS = {"none": "k", "Coulomb decoupled": "tab:blue", "Coulomb consistent": "tab:cyan", "Stribeck": "tab:red"}
LAW = {"coulomb_consistent": "Coulomb (consistent)", "stribeck": "Stribeck"}
LAW_COLOR = {"coulomb_consistent": COLORS["Coulomb consistent"], "stribeck": COLORS["Stribeck"]}
#: Metrics of the sweep figures: (key, axis label, scale).
METRICS = (("friction_rms", "RMS friction torque [mN m]", 1e3), ("energy", "energy per period [mJ]", 1e3),
           ("deviation", "uncompensated deviation [mm]", 1e3))
#: Width [in] of a full-width figure: the book's text width (robolib.core.drawing.FIGURE_WIDTH) less the 0.1-in pad
#: that ``savefig(bbox_inches="tight")`` adds on each side of a figure whose constrained layout fills it to the edges.
FULL_WIDTH = FIGURE_WIDTH - 0.2


def sweep_difference(sw: dict, metric: str) -> np.ndarray:
    """``|S - C| / C`` of a sweep's ``metric`` (consistent Coulomb C, Stribeck S), one value per point."""
    return relative_difference(sw["coulomb_consistent"][metric], sw["stribeck"][metric])


def laws_figure(d: dict) -> Figure:
    """The two laws against the joint rate (left) and the active-joint rates over one period (right); the legends sit
    below the panels, clear of the sign change at w = 0 and of the rates."""
    robot, ids, w, t = d["robot"], d["ids"], d["w_id"], d["t_id"]
    fig = Figure(figsize=(FULL_WIDTH, 4.3), layout="constrained")
    axs = fig.subplots(1, 2)
    wgrid = np.linspace(-1.0, 1.0, 801)
    F_rms = float(np.sqrt(np.mean(np.sum(ids["Coulomb consistent"].reactions ** 2, axis=-1))))
    args = (robot.coulomb_torque, robot.static_torque, robot.stribeck_velocity, robot.viscous)
    axs[0].plot(wgrid, _fr.stribeck(wgrid, *args, robot.smooth_eps) * 1e3, color=COLORS["Stribeck"],
                label=rf"Stribeck, smooth sign ($\varepsilon$ = {robot.smooth_eps:g} rad/s)")
    axs[0].plot(wgrid, _fr.stribeck(wgrid, *args, 0.0) * 1e3, color="black", ls=(0, (1, 2)), lw=1.2, zorder=3,
                label="Stribeck, exact sign (on top)")
    axs[0].plot(wgrid, _fr.coulomb_load(wgrid, [F_rms, 0.0], robot.mu, robot.journal_radius, robot.smooth_eps) * 1e3,
                color=COLORS["Coulomb consistent"], label=rf"Coulomb at the RMS load $|F|$ = {F_rms:.2f} N")
    axs[0].axvspan(-d["wmax"], d["wmax"], color="0.9", zorder=0, label="joint rates on the circle")
    axs[0].set_xlabel(r"active-joint rate $w$ [rad/s]")
    axs[0].set_ylabel(r"friction torque $\tau_f$ [mN m]")
    axs[0].legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.2), borderaxespad=0)
    axs[0].set_title("the two laws at equal level", fontsize=10)
    for i in range(3):
        axs[1].plot(t, w[:, i], label=rf"$w_{i + 1}$")
    axs[1].axhspan(-robot.stribeck_velocity, robot.stribeck_velocity, color="tab:red", alpha=0.1,
                   label=r"Stribeck region $|w| < w_s$")
    axs[1].set_xlabel(r"$t$ [s]")
    axs[1].set_ylabel("active-joint rate [rad/s]")
    axs[1].legend(fontsize=8, ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.2), borderaxespad=0)
    axs[1].set_title("active-joint rates over one period", fontsize=10)
    return fig


def waveforms_figure(d: dict) -> Figure:
    """Friction torque of each active joint over one period (both laws and the decoupled Coulomb model), and the
    friction energy dissipated since the start of the period (both laws), along the reference circle."""
    ids, t = d["ids"], d["t_id"]
    fig = Figure(figsize=(FULL_WIDTH, 5.2), layout="constrained")
    axs = fig.subplots(2, 2).ravel()
    for i in range(3):
        axs[i].plot(t, ids["Coulomb consistent"].friction_torque[:, i] * 1e3, color=LAW_COLOR["coulomb_consistent"],
                    label=LAW["coulomb_consistent"])
        # the decoupled model lies on the consistent one to the eye: black dots on top of its line, so both stay
        # visible (blue dots on the cyan line were hard to tell apart)
        axs[i].plot(t, ids["Coulomb decoupled"].friction_torque[:, i] * 1e3, color="k", ls="",
                    marker="o", ms=2.5, markevery=max(1, len(t) // 40), zorder=3, label="Coulomb (decoupled), dots")
        axs[i].plot(t, ids["Stribeck"].friction_torque[:, i] * 1e3, color=LAW_COLOR["stribeck"], label=LAW["stribeck"])
        axs[i].set_title(f"joint {i + 1}: friction torque", fontsize=10)
        axs[i].set_ylabel(r"$\tau_f$ [mN m]")
    for ax in axs[2:]:
        ax.set_xlabel(r"$t$ [s]")
    for law, e in d["e_cum"].items():
        axs[3].plot(t, e * 1e3, color=LAW_COLOR[law], label=LAW[law])
    axs[3].set_ylabel("dissipated energy [mJ]")
    axs[3].set_title("energy dissipated since t = 0, all joints", fontsize=10)
    axs[3].legend(*axs[0].get_legend_handles_labels(), fontsize=8, loc="upper left")
    return fig


def _sweep_legend(fig: Figure) -> None:
    """The legend of a sweep figure, below its panels: the laws' colours and what a filled marker means."""
    handles = [Line2D([], [], color=LAW_COLOR[law], marker="o", ms=5, label=LAW[law]) for law in COMPARED_LAWS]
    handles += [Line2D([], [], ls="", marker="o", ms=5, color="0.3", label=f"laws differ by > {DIFF:.0%}"),
                Line2D([], [], ls="", marker="o", ms=5, color="0.3", mfc="white", label=f"differ by ≤ {DIFF:.0%}")]
    fig.legend(handles=handles, loc="outside lower center", ncol=4, fontsize=8)


def sweep_figure(d: dict, name: str, metrics=METRICS) -> Figure:
    """RMS friction torque, energy per period and uncompensated deviation of both laws along sweep ``name``
    (``metrics``: the panels, a part of :data:`METRICS`)."""

    values, sw, xlabel = d["sweeps"][name]
    fig = Figure(figsize=(FULL_WIDTH, 3.6), layout="constrained")
    axs = fig.subplots(1, len(metrics))
    x = np.asarray(values)
    for ax, (metric, ylabel, scale) in zip(axs, metrics):
        marked = sweep_difference(sw, metric) > DIFF
        for law in COMPARED_LAWS:
            y = sw[law][metric] * scale
            ax.plot(x, y, "-", color=LAW_COLOR[law], lw=1.2, label=LAW[law])
            ax.plot(x[marked], y[marked], "o", color=LAW_COLOR[law], ms=5)
            ax.plot(x[~marked], y[~marked], "o", mfc="white", color=LAW_COLOR[law], ms=5)
        ax.set_ylabel(ylabel)
        if name == "period":
            ax.set_xscale("log")
            ax.set_yscale("log")
            for axis in (ax.xaxis, ax.yaxis):  # minor labels (2x10^0, 3x10^0, ...) collide on a short decade
                axis.set_minor_formatter(NullFormatter())
            ticks = [v for v in (0.5, 1.0, 2.0, 4.0, 8.0, 16.0) if x.min() <= v <= x.max()]
            ax.set_xticks(ticks, [f"{v:g}" for v in ticks])  # octaves of the period, in seconds
            ax.axvline(CIRCLE_PERIOD, color="0.6", ls=":", lw=1)
        else:
            ax.axvline({"end_effector_mass": d["robot"].end_effector_mass, "preload": 0.0}[name], color="0.6", ls=":", lw=1)
    if len(metrics) == 3:
        axs[1].set_xlabel(xlabel)  # one x label for the three panels (they share the quantity)
    else:
        for ax in axs:
            ax.set_xlabel(xlabel)
    _sweep_legend(fig)
    return fig


def slow_figure(d: dict) -> Figure:
    """Joint-1 friction torque in units of T_c over normalised time, reference and slowest circle."""
    robot, slow, r = d["robot"], d["slow"], d["static_ratio"]
    fig = Figure(figsize=(FULL_WIDTH, 3.6), layout="constrained")
    axs = fig.subplots(1, 2, sharey=True)
    for ax, P in zip(axs, slow):
        for law in COMPARED_LAWS:
            ax.plot(slow[P]["t"] / P, slow[P][law][:, 0] / robot.coulomb_torque, color=LAW_COLOR[law], label=LAW[law])
        mask = np.abs(slow[P]["w"][:, 0]) < robot.stribeck_velocity
        ax.fill_between(slow[P]["t"] / P, -r, r, where=mask, color="tab:red", alpha=0.08,
                        label=r"Stribeck region $|w_1| < w_s$")
        for lvl in (1.0, r):
            ax.axhline(lvl, color="0.7", lw=0.6, ls=":")
            ax.axhline(-lvl, color="0.7", lw=0.6, ls=":")
        ax.set_title(f"circle period {P:g} s" + (" (reference)" if P == CIRCLE_PERIOD else " (slowest)"), fontsize=10)
        ax.set_xlabel(r"$t/T$")
    axs[0].set_ylabel(r"$\tau_{f,1}/T_c$")
    fig.legend(*axs[0].get_legend_handles_labels(), loc="outside lower center", ncol=3, fontsize=8)
    return fig


def decoupling_figure(d: dict) -> Figure:
    """Relative error of the decoupled Coulomb model over mu R and the preload / the circle period."""

    robot, s, maps = d["robot"], d["settings"], d["dec_maps"]
    mu_r = np.asarray(s["mu_r"])
    fig = Figure(figsize=(FULL_WIDTH, 3.6), layout="constrained")
    axs = fig.subplots(1, 2)
    for ax, (err, est), yv, ylabel in ((axs[0], maps["preload"], s["map_preloads"], r"preload $p$ [N m]"),
                                       (axs[1], maps["period"], s["map_periods"], "circle period [s]")):
        X, Y = np.meshgrid(mu_r * 1e3, yv, indexing="ij")
        pc = ax.pcolormesh(X, Y, np.log10(err), shading="nearest", cmap="viridis")
        if len(yv) > 1:
            ax.contour(X, Y, err, levels=[DEC_LIMIT], colors="k", linewidths=1.5)
            ax.contour(X, Y, est, levels=[DEC_LIMIT], colors="w", linewidths=1.2, linestyles="--")
        ax.axvline(robot.mu * robot.journal_radius * 1e3, color="w", ls=":", lw=1)
        ax.set_xscale("log")
        ax.set_xlabel(r"$\mu R$ [mm]")
        ax.set_ylabel(ylabel)
        fig.colorbar(pc, ax=ax, label=r"$\log_{10} e$ (relative error)")
    axs[1].set_yscale("log")
    axs[1].yaxis.set_minor_formatter(NullFormatter())
    periods = s["map_periods"]
    axs[1].set_yticks(periods, [f"{v:g}" for v in periods])  # the map's periods, in seconds
    axs[0].set_title("decoupling error against preload", fontsize=10)
    axs[1].set_title("decoupling error against speed", fontsize=10)
    return fig


def preload_figure(d: dict) -> Figure:
    """RMS Coulomb friction, mean bearing load and RMS motor torques against a wide range of preload."""
    rows = d["large_preload"]
    p = rows["p"]
    fig = Figure(figsize=(FULL_WIDTH, 3.6), layout="constrained")
    axs = fig.subplots(1, 3)
    axs[0].plot(p, rows["tf_rms"] * 1e3, "o-", ms=3, color=COLORS["Coulomb consistent"])
    axs[0].set_ylabel("RMS Coulomb friction [mN m]")
    axs[0].set_title("Coulomb friction", fontsize=10)
    axs[1].plot(p, rows["F_mean"], "s--", ms=3, color="0.3")
    axs[1].set_ylabel("mean bearing load [N]")
    axs[1].set_title("bearing loads", fontsize=10)
    axs[2].plot(p, rows["tau_rms"] * 1e3, "o-", ms=3, color=COLORS["Coulomb consistent"], label="Coulomb (consistent)")
    axs[2].plot(p, rows["tau_rms_stribeck"] * 1e3, "--", color=COLORS["Stribeck"], label="Stribeck")
    axs[2].set_ylabel("RMS motor torque [mN m]")
    axs[2].set_title("motor torques", fontsize=10)
    axs[1].set_xlabel(r"preload $p$ [N m]")
    fig.legend(*axs[2].get_legend_handles_labels(), loc="outside lower center", ncol=2, fontsize=8)
    return fig


def _stop_note(sim) -> str:
    """`` (stopped at t = ... s)`` for a simulation that stopped early, else ``""``."""
    if not sim.stopped:
        return ""

    m = re.search(r"stopped at t = (\S+) s", sim.stopped)
    return f" (stopped at t = {m.group(1)} s)" if m else " (stopped)"


def paths_figure(d: dict) -> Figure:
    """Uncompensated geared-joint experiment: end-effector paths (left) and deviations over time (right), one legend
    below both."""
    g = d["geared_sims"]
    c = d["geared"].centroid
    fig = Figure(figsize=(FULL_WIDTH, 4.3), layout="constrained")
    axs = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1, 1.15]})
    s = np.linspace(0, 2 * np.pi, 200)
    axs[0].plot(c[0] + CIRCLE_RADIUS * np.cos(s), c[1] + CIRCLE_RADIUS * np.sin(s), color="0.7", lw=4,
                label="reference circle")
    for name, sim in g["sims"].items():
        ls = "--" if name == "Coulomb decoupled" else "-"
        label = ("no friction" if name == "none" else name) + _stop_note(sim)
        axs[0].plot(*sim.end_effector.T, color=COLORS[name], ls=ls, lw=1.2, label=label)
        if len(sim.t):
            axs[0].plot(*sim.end_effector[-1], "x" if sim.stopped else "o", color=COLORS[name], ms=4)
        axs[1].semilogy(sim.t, g["deviation"][name] * 1e3 + 1e-9, color=COLORS[name], ls=ls)
        axs[1].semilogy(sim.t, g["radial"][name] * 1e3 + 1e-9, color=COLORS[name], ls=":", lw=1)
    start = d["geared"].centroid + [CIRCLE_RADIUS, 0.0] if not len(g["sims"]["none"].t) else g["sims"]["none"].end_effector[0]
    axs[0].plot(*start, "k^", ms=6, label="start")
    axs[0].set_aspect("equal")
    axs[0].set_xlabel("x [m]")
    axs[0].set_ylabel("y [m]")
    axs[0].set_title("end-effector paths\n(dots: end points; x: stopped)" if g.get("stopped") else
                     "end-effector paths (dots: end points)", fontsize=10)
    axs[1].set_xlabel(r"$t$ [s]")
    axs[1].set_ylabel("deviation [mm]")
    axs[1].set_title("tracking error (solid),\ndistance from the circle line (dotted)", fontsize=10)
    fig.legend(*axs[0].get_legend_handles_labels(), loc="outside lower center", ncol=3, fontsize=8)
    return fig


def energy_geared_figure(d: dict) -> Figure:
    """Friction energy dissipated in the uncompensated geared-joint experiment (symmetric-log axis)."""
    fig = Figure(figsize=(6.5, 3.6), layout="tight")
    ax = fig.subplots()
    for name, sim in d["geared_sims"]["sims"].items():
        ax.plot(sim.t, sim.dissipated_energy * 1e3, color=COLORS[name], ls="--" if name == "Coulomb decoupled" else "-",
                label=("no friction" if name == "none" else name) + _stop_note(sim))
    ax.set_yscale("symlog", linthresh=1e-3)
    ax.set_xlabel(r"$t$ [s]")
    ax.set_ylabel("dissipated energy [mJ]")
    ax.legend(fontsize=8)
    ax.set_title("friction losses under the friction-free torques (geared set)", fontsize=10)
    return fig


def figures(d: dict) -> dict:
    """Every figure of the chapter by name (the names of :func:`~robolib.studies.redundant_friction.study.run`)."""
    return {"laws": laws_figure(d), "waveforms": waveforms_figure(d),
            "sweep_speed": sweep_figure(d, "period", METRICS[:2]), "sweep_speed_all": sweep_figure(d, "period"),
            "slow": slow_figure(d),
            "sweep_payload": sweep_figure(d, "end_effector_mass"), "sweep_preload": sweep_figure(d, "preload"),
            "decoupling": decoupling_figure(d), "preload": preload_figure(d), "paths": paths_figure(d),
            "energy_geared": energy_geared_figure(d)}


# --- the animation and the Explore panel ------------------------------------------------------------------
def motion_animation(res):
    """The robot on its circle with its friction-free bearing reactions (0.25 m/N), as an HTML player."""

    d = res.data
    frames = np.linspace(0, len(d["t_id"]), d["settings"]["n_frames"], endpoint=False).astype(int)
    anim = animate_motion(d["robot"], d["q_id"][frames], reactions=d["ids"]["none"].reactions[frames], force_scale=0.25,
                          title="bearing reactions (0.25 m/N),", figsize=(5.0, 4.6),
                          dpi=80)  # 9-pt title at 10 px
    shown = animation_html(anim, default_mode="loop",
                           caption="One period of the reference circle (ideal motion): the three chains and the "
                                   "friction-free bearing reactions Fᵢ of the active joints (green, 0.25 m per newton).",
                           alt="Animation: the three-chain planar robot moves its end-effector once round a small "
                               "circle; green arrows at the three motor joints, the bearing reactions, grow and "
                               "shrink and turn as the robot accelerates.")
    return number_caption(shown, "Animation", "2.1")


def explore_draw(robot, period_s: float, payload: float, preload_Nm: float, samples: int = 100) -> Figure:
    """Joint-1 friction torque of both laws over one period at one operating point (circle period in s,
    payload in kg, preload in N m), the RMS torques of both laws in the title; errors shown in red."""
    fig = Figure(figsize=(5.6, 3.6), layout="constrained")
    ax = fig.subplots()
    rb = dataclasses.replace(robot, end_effector_mass=payload)
    tt = np.linspace(0.0, period_s, samples, endpoint=False)
    try:
        qq, dd, aa = reference_motion(rb, tt, period=period_s)
        out = {}
        for law in COMPARED_LAWS:
            tf = inverse_dynamics(rb, qq, dd, aa, law, preload_Nm).friction_torque
            out[law] = rms(tf)
            ax.plot(tt / period_s, tf[:, 0] * 1e3, color=LAW_COLOR[law], label=LAW[law])
        ax.set_title(f"RMS over the three joints: Coulomb {out['coulomb_consistent'] * 1e3:.3f}, Stribeck "
                     f"{out['stribeck'] * 1e3:.3f} mN m (ratio {out['stribeck'] / out['coulomb_consistent']:.2f})",
                     fontsize=8)
    except RobolibError as exc:
        ax.set_title(str(exc)[:90], fontsize=8, color="red")
    ax.set_xlabel(r"$t/T$", fontsize=8)
    ax.set_ylabel(r"$\tau_{f,1}$ [mN m]", fontsize=8)
    ax.tick_params(labelsize=8)
    if ax.get_lines():  # below the plot, clear of the curves
        fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncol=2, fontsize=8)
    return fig


def explore_panel(res):
    """The chapter's Explore panel (:func:`robolib.book.notebook.explore`): period, payload and preload.

    Live (JupyterLab) the model sets no bound but positive period and non-negative payload; the sliders span
    periods 0.25-20 s (log), payloads 0-2 kg (ten times the end-effector mass of the file) and preloads
    +-3 N m (the chapter's bearing-load study, ``preload_max``); the static grid holds the preloads of Table 2.1's
    rows (``preload_sweep`` and ``preload_max``), a third of the sweep's and none, and the payload sweep's heaviest
    payload (Table 2.1's row)."""

    robot = res.data["robot"]
    ps, pm = (round(float(res.params[k]), 6) for k in ("preload_sweep", "preload_max"))
    if res.params["quick"]:
        grid = {"period_s": [1.0, 2.0], "payload": [0.2], "preload_Nm": [0.0, 0.2]}
    else:
        heaviest = float(res.data["sweeps"]["end_effector_mass"][0][-1])   # the payload sweep's end (Table 2.1's row)
        grid = {"period_s": [0.5, 1.0, 2.0, 4.0, 8.0], "payload": sorted({0.0, 0.2, 0.6, round(heaviest, 6)}),
                "preload_Nm": sorted({round(v, 6) for v in (-ps, -ps / 3, 0.0, ps / 3, ps, pm)})}  # the preloads of Table 2.1's rows
    return number_caption(explore(lambda period_s, payload, preload_Nm: explore_draw(robot, period_s, payload, preload_Nm), grid,
                   labels={"period_s": "circle period [s]", "payload": "payload m_e [kg]", "preload_Nm": "preload p [N m]"},
                   initial={"period_s": 2.0, "payload": 0.2, "preload_Nm": 0.0}, fmt={"preload_Nm": "{:+g}"},
                   ranges={"period_s": (0.25, 20.0, "log"), "payload": (0.0, 2.0, 0.01),
                           "preload_Nm": (-3.0, 3.0, 0.01)},
                   caption="The friction torque of joint 1 over one period of the circle under both laws, for the "
                           "chosen period, payload and preload (precomputed grid); the title gives each law's RMS "
                           "friction torque over the three joints and the period, and their ratio.",
                   alt="friction torque of joint 1 against t/T for the Coulomb and Stribeck laws, with each law's RMS "
                       "friction torque over all three joints in the title"), "Explore panel", "2.1")


__all__ = ["figures", "motion_animation", "explore_draw", "explore_panel", "laws_figure", "waveforms_figure",
           "sweep_figure", "slow_figure", "decoupling_figure", "preload_figure", "paths_figure",
           "energy_geared_figure"]
