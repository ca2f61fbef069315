"""The clearance chapter's figures, from the study's data, made without pyplot (:class:`matplotlib.figure.Figure`).

Each function takes the data dict of one experiment
(:mod:`robolib.studies.clearance_dynamics.experiments`, :mod:`robolib.studies.clearance_dynamics.bifurcation`) and returns a
Figure; :func:`detail_animation` returns the animation of the detailed run's last
drive period and :func:`explore_figure` one figure of the Explore panel.

>>> from robolib.studies.clearance_dynamics.experiments import explore_run
>>> from robolib.gearshift import load_parameters
>>> r = explore_run(load_parameters(), (10.0, 0.1), seconds=0.1, samples_per_second=200.0)
>>> len(explore_figure(r, 0.1, 10.0).axes)
2
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from matplotlib.animation import FuncAnimation
from matplotlib.colors import LogNorm
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from robolib.core import clearance as C
from robolib.core import nonlinear as N
from robolib.core.checks import real
from robolib.core.drawing import FIGURE_WIDTH
from robolib.gearshift.drawing import CHAIN_COLORS, MODE_COLORS, draw_gearshift, draw_orbit, mode_bands
from robolib.gearshift.runs import OrbitRun
from robolib.studies.clearance_dynamics.bifurcation import BifurcationSweeps, reading_bar
from robolib.studies.clearance_dynamics.experiments import DetailRun, IdealCheck, SliderCrankCheck

FULL_WIDTH = FIGURE_WIDTH  # the book's text width (robolib.core.drawing.FIGURE_WIDTH)
#: Width [in] of a figure with the constrained layout, whose content reaches the figure's edges: the tight PNG adds a
#: 0.1-in pad on each side, so it is drawn that much narrower to stay within the column.
CONSTRAINED_WIDTH = FULL_WIDTH - 0.2
#: Resolution of the animation's frames (kept below the figures' 100 dpi for the page's size; 9 pt is 10 px).
ANIMATION_DPI = 80


def ideal_figure(d: IdealCheck) -> Figure:
    """Driven angles, motor torques (multipliers, with virtual-power dots) and the stroke over one period.

    ``d``: :func:`robolib.studies.clearance_dynamics.experiments.ideal_check`'s data.
    """
    gs, t, im, vp = d.gs, d.t, d.motion, d.vp
    fig = Figure(figsize=(CONSTRAINED_WIDTH, 3.4), layout="constrained")
    axs = fig.subplots(1, 3)
    for drv in gs.mech.driver_names:
        k = gs.mech.coordinate(f"l{drv[-1]}1", "theta")
        col = CHAIN_COLORS[int(drv[-1]) - 1]
        axs[0].plot(t, np.degrees(im["q"][:, k]), color=col, label=f"θ{drv[-1]}1 and its torque ({drv})")
        axs[1].plot(t, im["torques"][drv], color=col)
        axs[1].plot(t[::10], [x[drv] for x in vp][::10], "k.", ms=4)
    axs[0].plot([], [], "k.", label="torque from virtual power")
    axs[2].plot(t, (gs.end_point(im["q"])[:, 1] - gs.stroke.E0[1]) * 1e3, "k")
    axs[0].set_ylabel("driven angle [deg]")
    axs[1].set_ylabel("motor torque [N m]")
    axs[2].set_ylabel(r"$E_y - E_{0,y}$ [mm]")
    for ax in axs:
        ax.set_xlabel("t [s]")
    fig.legend(*axs[0].get_legend_handles_labels(), loc="outside upper center", ncol=3, fontsize=8, frameon=False)
    return fig


def orbit_figure(d: DetailRun) -> Figure:
    """Journal orbit (grey path; the points in contact coloured by the normal force, colour bar below it), and the
    force history with the motion modes shaded: the whole run (top right) and a zoom on its first impact burst
    (bottom right, the band marked on the top panel), where the single impacts can be seen.

    ``d``: :func:`robolib.studies.clearance_dynamics.experiments.detail_run`'s data.
    """
    fig = Figure(figsize=(CONSTRAINED_WIDTH, 4.0), layout="constrained")
    left, right = fig.subfigures(1, 2, width_ratios=[1.2, 1.0], wspace=0.02)
    ax0 = left.subplots()
    ax1, ax2 = right.subplots(2, 1)
    e = np.asarray(d.orbit.e_local, float) / d.c
    draw_orbit(ax0, d.orbit.e_local, d.c, color="0.6", lw=0.6)
    on = np.asarray(d.F_n) > 0.0
    art = ax0.scatter(e[on, 0], e[on, 1], c=np.asarray(d.F_n)[on], s=4, cmap="plasma", zorder=3,
                      norm=LogNorm(vmin=max(float(np.min(np.asarray(d.F_n)[on])), 1e-1), vmax=float(np.max(d.F_n))))
    ax0.set_xlabel(r"$e_x/c$ (bearing frame)")
    ax0.set_ylabel(r"$e_y/c$")
    left.colorbar(art, ax=ax0, location="bottom", shrink=0.9, pad=0.02,
                  label=r"normal force $F_n$ [N] (grey path: free flight)")
    t, modes = np.asarray(d.run.t, float), np.asarray(d.modes, int)
    hit = np.flatnonzero(modes == 1)
    if len(hit):                                   # the first burst: its first impact to the next continuous contact
        t0 = float(t[hit[0]])
        after = np.flatnonzero((modes == 2) & (t > t0))
        t1 = float(t[after[0]]) if len(after) else float(t[min(hit[-1], len(t) - 1)])
        pad = 0.15 * (t1 - t0) + 1e-3
        window = (max(t0 - pad, float(t[0])), min(t1 + 2 * pad, float(t[-1])))
    else:
        window = (float(t[0]), float(t[-1]))
    for ax, (a, b) in ((ax1, (float(t[0]), float(t[-1]))), (ax2, window)):
        k = (t >= a) & (t <= b)
        mode_bands(ax, t[k], modes[k])
        ax.plot(t[k], np.asarray(d.F_n)[k], "k", lw=0.6)
        ki = k & (modes == 1)                      # the impacts' samples, drawn over the line (their bands are thin)
        ax.plot(t[ki], np.asarray(d.F_n)[ki], ".", color="tab:orange", ms=3)
        ax.set_yscale("symlog", linthresh=1.0)
        ax.set_xlim(a, b)
        ax.set_xticks([x for x in ax.get_xticks() if a <= x <= b])   # no label beyond the axis widens the PNG
        ax.set_ylabel(r"$F_n$ [N]")
        ax.tick_params(labelsize=9)
    ax1.axvspan(*window, facecolor="none", edgecolor="tab:blue", lw=2.0, zorder=4)   # above the contact shading and the spikes
    ax1.set_xlabel("t [s]")
    ax2.set_xlabel("t [s]")
    ax2.set_title("zoom: first burst (blue box above)", fontsize=9)
    right.legend(handles=[Patch(color=MODE_COLORS[m], alpha=0.5, label=C.MODE_NAMES[m]) for m in (1, 2)] +
                 [Patch(color="w", ec="0.5", label="free flight")], loc="outside upper center", ncol=2, fontsize=9,
                 frameon=False, handlelength=1.0, columnspacing=0.6)
    return fig


def errors_figure(d: DetailRun) -> Figure:
    """End-point position, velocity and acceleration errors (rows; x, y columns): the position direct and linearised
    (the formula's thin dashes on the direct error's wide grey line), the velocity and acceleration direct only (their
    impact oscillations are too dense for two curves to stay apart); a last row gives the position errors' difference
    (direct minus linearised), which the top row's scale cannot show."""
    fig = Figure(figsize=(FULL_WIDTH, 8.6), layout="tight")
    axs = fig.subplots(4, 2, sharex=True)
    ts, err = d.ts, d.errors
    scale = [("p", 1e6, "position error [µm]"), ("v", 1e3, "velocity error [mm/s]"),
             ("a", 1.0, "acceleration error [m/s²]")]
    for row, (k, s, lab) in enumerate(scale):
        for col, comp in enumerate("xy"):
            ax = axs[row, col]
            if k == "p":   # wide and light under the formula's thin dashes: where the two agree both stay visible
                ax.plot(ts, err[f"d{k}"][:, col] * s, color="0.65", lw=2.4, label="direct")
                ax.plot(ts, err[f"d{k}_lin"][:, col] * s, "--", color="tab:red", lw=0.8, label="linearised formula")
            else:
                ax.plot(ts, err[f"d{k}"][:, col] * s, color="0.2", lw=0.6)
            ax.set_ylabel(f"{comp}: {lab}", fontsize=9)
            if k == "a":
                ax.set_yscale("symlog", linthresh=1.0)
    for col, comp in enumerate("xy"):
        ax = axs[3, col]
        ax.plot(ts, (err["dp"][:, col] - err["dp_lin"][:, col]) * 1e6, color="k", lw=0.8)
        ax.set_ylabel(f"{comp}: direct − linearised [µm]", fontsize=9)
    axs[0, 0].legend(fontsize=9)
    axs[-1, 0].set_xlabel("t [s]")
    axs[-1, 1].set_xlabel("t [s]")
    return fig


def detail_animation(d: DetailRun, joints, n_frames: int, period: float):
    """Animation (:class:`matplotlib.animation.FuncAnimation`) of the last ``period`` s of the detailed run.

    Left the mechanism (clearance ``joints`` ringed), right the journal centre in its bearing; ``n_frames`` frames.
    """

    ts, q, e = d.ts, d.run.q, d.orbit.e_local
    c = d.c
    t_frames = np.linspace(max(0.0, ts[-1] - period), ts[-1], n_frames, endpoint=False)
    idx = np.searchsorted(ts, t_frames)
    # frames at ANIMATION_DPI: 536 px wide, shown at natural size, so 9-pt text is 10 px
    fig = Figure(figsize=(FULL_WIDTH, 3.1), dpi=ANIMATION_DPI, layout="tight")
    axm, axo = fig.subplots(1, 2)
    draw_orbit(axo, e[idx[0]:idx[-1] + 1], c, color="0.6", lw=0.5)
    dot, = axo.plot([], [], "o", color="tab:red", ms=7)
    axo.set_title("journal in the bearing (units of c)", fontsize=9)

    def frame(k):
        axm.cla()
        draw_gearshift(axm, d.gs, q[idx[k]], clearance_joints=joints, labels=False)
        axm.set_xlim(-0.05, 0.32)
        axm.set_ylim(-0.06, 0.26)
        axm.set_title(f"t = {ts[idx[k]]:.3f} s", fontsize=9)
        dot.set_data([e[idx[k], 0] / c], [e[idx[k], 1] / c])
        return [dot]

    return FuncAnimation(fig, frame, frames=len(idx), interval=80)


def unresolved(pd) -> bool:
    """Whether Newton fails inside the bracket of a crossing of -1 ``pd`` = ``(kind, f, (lo, hi), note)`` (a
    :class:`robolib.studies.clearance_dynamics.orbit_study.BranchStudy` bifurcation): the orbit cannot be followed
    there, so the change of side of -1 is bracketed, not located, and may be a jump."""
    return "Newton failed" in pd[3]


def crossing_text(pd) -> str:
    """Where a crossing of -1 ``pd`` lies, in words: ``at 3.91 Hz`` (located), or ``between 3.21 and 3.23 Hz``
    (:func:`unresolved`: its bracket).

    >>> crossing_text(("period-doubling", 3.214, (3.2058, 3.2257), "Newton failed inside the bracket"))
    'between 3.20 and 3.23 Hz'
    >>> crossing_text(("period-doubling", 3.9069, (3.9062, 3.9112), ""))
    'at 3.91 Hz'
    >>> crossing_text(("period-doubling", 3.2061, (3.2055, 3.2146), "Newton failed inside the bracket"))
    'between 3.205 and 3.215 Hz'
    """
    _, p, (lo, hi), _ = pd
    if not unresolved(pd):
        return f"at {p:.2f} Hz"
    return bracket_text(lo, hi)


def bracket_text(lo: float, hi: float) -> str:
    """A frequency bracket in words, rounded outwards (it still holds what it holds) to the decimal of its width
    (2 to 4 decimals).

    >>> bracket_text(3.2058, 3.2257), bracket_text(3.2055, 3.2146), bracket_text(3.20551, 3.20559)
    ('between 3.20 and 3.23 Hz', 'between 3.205 and 3.215 Hz', 'between 3.2055 and 3.2056 Hz')
    """
    d = next((d for d in (2, 3) if 10.0**-d <= hi - lo), 4)
    a, b = math.floor(lo * 10**d + 1e-9) / 10**d, math.ceil(hi * 10**d - 1e-9) / 10**d
    return f"between {a:.{d}f} and {b:.{d}f} Hz"


def _mark_crossing(ax, pd, zoomed: bool = False, label=None) -> None:
    """One crossing of -1 on a frequency axis (orange): a located one as a solid line; an :func:`unresolved` one as a
    dashed line (``zoomed``: a band over its bracket with dashed edges)."""
    _, p, (lo, hi), _ = pd
    if not unresolved(pd):
        ax.axvline(p, color="tab:orange", lw=2.5, alpha=0.7, label=label)
    elif zoomed:
        ax.axvspan(lo, hi, facecolor="tab:orange", alpha=0.25, lw=0)
        for j, x in enumerate((lo, hi)):   # the legend shows what the reader sees: two dashed lines
            ax.axvline(x, color="tab:orange", lw=1.5, ls="--", label=label if j == 0 else None)
    else:
        ax.axvline(0.5 * (lo + hi), color="tab:orange", lw=2.0, ls="--", label=label)


def _crossing_label(pd, lost: bool) -> str:
    """The legend text of a crossing of -1: what the run found there (the crossings of the branch, stable at its
    start, alternate: lost, regained, lost, ...)."""
    return (f"stability {'lost' if lost else 'regained'} {crossing_text(pd)}"
            + (" (unresolved)" if unresolved(pd) else ""))


def bifurcation_figure(s, d: BifurcationSweeps, branch=None) -> Figure:
    """Poincaré samples e_x/c and rate against frequency (left) and clearance (right), the verdict cases that lie on a
    sweep marked by dashed lines, and where the continued period-1 orbit first loses stability, a multiplier past -1
    (orange; solid where located, dashed where only bracketed, :func:`unresolved`). The zoom on that loss is
    :func:`first_loss_figure`.

    ``s``: the study settings; ``d``: :func:`robolib.studies.clearance_dynamics.bifurcation.bifurcation_study`'s data;
    ``branch``: the :class:`robolib.studies.clearance_dynamics.orbit_study.BranchStudy` (None: no orange line).
    """
    fig = Figure(figsize=(CONSTRAINED_WIDTH, 5.6), layout="constrained")     # the layout keeps every label inside
    axs = fig.subplots(2, 2, sharex="col")
    on_f = [f for f, c in s.cases if c == s.freq_sweep_clearance_mm]
    on_c = [c for f, c in s.cases if f == s.clearance_sweep_frequency]
    pds = [b for b in (branch.bifurcations if branch is not None else []) if b[0] == "period-doubling"]
    for col, (runs, vals, xlabel, marks, unit) in enumerate((
            (d.f_runs, s.freqs, f"drive frequency $f$ [Hz]\n($c$ = {s.freq_sweep_clearance_mm:g} mm)", on_f, "Hz"),
            (d.c_runs, s.clearances_mm, f"radial clearance $c$ [mm]\n($f$ = {s.clearance_sweep_frequency:g} Hz)", on_c,
             "mm"))):
        for row, (j, lab) in enumerate(((0, r"$e_x/c$"), (2, r"$\dot e_x/(c\omega)$"))):
            ax = axs[row, col]
            pv, sv = N.bifurcation_points(vals, [r.samples[:, j] for r in runs])
            ax.plot(pv, sv, "k.", ms=2)
            ax.set_ylabel(lab)
            for x in marks:
                ax.axvline(x, color="tab:green", ls="--", lw=0.9)
                if row == 0:
                    ax.text(x, 1.01, f"{x:g} {unit}", transform=ax.get_xaxis_transform(), ha="center",
                            va="bottom", fontsize=9, color="tab:green")
            for pd in (pds[:1] if col == 0 else []):   # the first loss of stability (zoomed in first_loss_figure)
                _mark_crossing(ax, pd)
        axs[1, col].set_xlabel(xlabel)
    return fig


def first_loss_figure(s, d: BifurcationSweeps, branch=None) -> Figure:
    """A zoom on the frequency sweep around the continued period-1 orbit's first loss of stability: the sweep's e_x/c
    samples minus the orbit's at the same frequency (the orbit: the zero line, solid where stable, dashed where
    unstable) and the loss (orange), drawn from the data of :func:`bifurcation_figure`; a note without a branch."""
    fig = Figure(figsize=(CONSTRAINED_WIDTH, 3.3), layout="constrained")
    ax = fig.subplots()
    pds = [b for b in (branch.bifurcations if branch is not None else []) if b[0] == "period-doubling"][:1]
    _pd_zoom(ax, s, d, branch, pds, _zoom_window(s.freqs, pds, branch))
    return fig


def _zoom_window(freqs, pds, branch) -> tuple[float, float] | None:
    """The frequency band of the zoom: four sweep steps (at least 0.5 Hz) either side of the first crossing of -1,
    within the sweep and the branch."""
    if not pds or len(freqs) < 2:
        return None
    step = float(np.median(np.diff(freqs)))
    w = max(4 * step, 0.5)
    return max(pds[0][1] - w, float(freqs[0])), min(pds[0][1] + w, float(freqs[-1]), float(branch.f[-1]))


def _pd_zoom(ax, s, d: BifurcationSweeps, branch, pds, window) -> None:
    """The panel of :func:`first_loss_figure`: inside ``window``, the e_x/c samples of the frequency sweep minus
    the continued period-1 orbit's e_x/c at the same frequency (so the orbit is the zero line: solid where stable,
    dashed where unstable, a segment split at the crossing of -1 located inside it; grey dotted from the branch point
    after the first crossing on), and the crossings ``pds`` (orange); a note when there is no branch."""
    if window is None:
        ax.text(0.5, 0.5, "the crossings of −1 are located on the continued period-1 branch,\n"
                "which this run did not compute (quick runs, or several clearance joints)", ha="center", va="center",
                fontsize=9, transform=ax.transAxes)
        ax.set_axis_off()
        return
    lo, hi = window
    f_b, x_b, st = np.asarray(branch.f, float), branch.section[:, 0], np.asarray(branch.stable, bool)
    ys = [0.0]
    for f, r in zip(s.freqs, d.f_runs):
        if lo - 1e-9 <= f <= hi + 1e-9 and f_b[0] - 1e-9 <= f <= f_b[-1] + 1e-9:
            dev = r.samples[:, 0] - np.interp(f, f_b, x_b)
            ax.plot(np.full(len(dev), f), dev, "k.", ms=4, zorder=3)
            ys.extend(dev)
    inside = (f_b >= lo - 1e-9) & (f_b <= hi + 1e-9)
    style = {True: ("-", "tab:blue"), False: ("--", "tab:red")}
    for k in np.flatnonzero(inside[:-1] & inside[1:]):     # the orbit itself: the zero line, segment by segment
        a, b = f_b[k], f_b[k + 1]
        cut = [pd for pd in pds if a < pd[1] < b] if st[k] != st[k + 1] else []
        m0, m1 = ((cut[0][2] if unresolved(cut[0]) else (cut[0][1],) * 2) if cut else (0.5 * (a + b),) * 2)
        parts = [(a, m0, st[k]), (m1, b, st[k + 1])] if st[k] != st[k + 1] else [(a, b, st[k])]   # a gap: unresolved
        for x0, x1, stab in parts:
            if pds and a > pds[0][1]:       # past the first loss the lecture does not follow the orbit (evidence page)
                ax.plot([x0, x1], [0.0, 0.0], ":", color="0.55", lw=1.5)
                continue
            ls, col = style[bool(stab)]
            ax.plot([x0, x1], [0.0, 0.0], ls, color=col, lw=2.0)
    ax.plot([], [], "-", color="tab:blue", lw=2.0, label="the orbit, stable")
    ax.plot([], [], "--", color="tab:red", lw=2.0, label="the orbit, unstable")
    if pds and f_b[inside].max() > pds[0][1]:
        ax.plot([], [], ":", color="0.55", lw=1.5, label="the orbit further on (evidence page)")
    for j, pd in enumerate(pds):
        if lo - 1e-9 <= pd[1] <= hi + 1e-9:
            _mark_crossing(ax, pd, zoomed=True, label=_crossing_label(pd, j % 2 == 0))
    y0, y1 = float(np.min(ys)), float(np.max(ys))
    pad = 0.1 * (y1 - y0) if y1 > y0 else 1e-3
    ax.set_ylim(y0 - pad, y1 + pad)
    ax.set_xlim(lo - 0.05, hi + 0.05)
    ax.set_xlabel(f"drive frequency $f$ [Hz] ($c$ = {s.freq_sweep_clearance_mm:g} mm)")
    ax.set_ylabel("$e_x/c$ minus\nthe orbit's")
    ax.legend(fontsize=9, loc="upper center", bbox_to_anchor=(0.5, -0.3), ncol=2, frameon=False)   # below: no overlap


def multiplier_figure(s, branch=None, cases=None) -> Figure:
    """The central answer of chapter 8 on one axis: the largest Floquet multiplier modulus of every orbit computed at
    the frequency sweep's clearance against the drive frequency (log), with the stability boundary ``abs(mu) = 1``:
    the continued period-1 branch (blue circles stable, red squares unstable) with its crossings of -1 (orange,
    :func:`_mark_crossing`), and the orbits shooting found at the verdict cases on that clearance (triangles, labelled
    with their period). ``branch``: the :class:`robolib.studies.clearance_dynamics.orbit_study.BranchStudy` or None
    (a note); ``cases``: ``{(f, c_mm): CaseOrbits}``. No new computation."""
    fig = Figure(figsize=(CONSTRAINED_WIDTH, 3.9), layout="constrained")
    ax = fig.subplots()
    c0 = s.freq_sweep_clearance_mm
    xs = []
    if branch is not None:
        f, mu, st = np.asarray(branch.f, float), np.maximum(np.asarray(branch.mu, float), 1e-8), np.asarray(branch.stable, bool)
        ax.semilogy(f, mu, "-", color="0.6", lw=0.8, zorder=1)
        ax.semilogy(f[st], mu[st], "o", color="tab:blue", ms=5, label="period-1 orbit, stable")
        ax.semilogy(f[~st], mu[~st], "s", mfc="none", mec="tab:red", ms=7, mew=1.3,
                    label="period-1 orbit, unstable")
        pds = [z for z in branch.bifurcations if z[0] == "period-doubling"][:1]   # the first loss (chapter 8 reads it)
        for j, pd in enumerate(pds):
            _mark_crossing(ax, pd, label=_crossing_label(pd, j % 2 == 0))
        xs.extend(f)
    else:
        ax.text(0.02, 0.97, "the period-1 branch is not computed in this run\n(quick runs, or several clearance "
                "joints)", transform=ax.transAxes, fontsize=9, va="top")
    shown = set()
    for (fc, cc), d in (cases or {}).items():
        if abs(cc - c0) > 1e-9:
            continue
        for o in d.found:
            st = o is d.attractor
            y = o.max_mu if o.resolved else o.mu_upper
            key = "stable" if st else "unstable"
            ax.semilogy([fc], [y], "^" if o.resolved else "v", ms=9, mfc="tab:blue" if st else "none",
                        mec="tab:blue" if st else "tab:red", mew=1.5,
                        label=None if key in shown else f"a case's orbit by shooting, {key}")
            shown.add(key)
            ax.annotate(f"period-{o.k}", (fc, y), xytext=(7, -3), textcoords="offset points", fontsize=9)
            xs.append(fc)
    ax.axhline(1.0, color="k", lw=1.0, ls=":")
    lo, hi = ax.get_ylim()
    ax.set_ylim(min(lo, 0.1), max(hi, 3.0))                  # the boundary and its label inside the axes
    ax.text(0.995, 1.0, "|μ| = 1: stable below, unstable above", transform=ax.get_yaxis_transform(), ha="right",
            va="bottom", fontsize=9)
    if xs:
        ax.set_xlim(min(xs) - 0.3, max(xs) + 0.2 * (max(xs) - min(xs)) + 0.5)   # room for the legend on the right
    ax.set_xlabel(f"drive frequency $f$ [Hz] ($c$ = {c0:g} mm)")
    ax.set_ylabel("largest $|\\mu|$ of the orbit")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="lower right", fontsize=9, frameon=False)   # the empty corner: the branch ends at 4 Hz
    return fig


def readings_figure(s, d: BifurcationSweeps) -> Figure:
    """Each sweep point's reading by the period test at the default tolerance (bars): the period k, hatched where the
    test reads irregular but the lag-k misfit is below :data:`~robolib.studies.clearance_dynamics.bifurcation.NEAR_PERIOD`,
    0 where it reads irregular; against the frequency (left) and the clearance (right)."""
    fig = Figure(figsize=(FULL_WIDTH, 2.6), layout="tight")
    axs = fig.subplots(1, 2)
    for ax, runs, vals, xlabel in ((axs[0], d.f_runs, s.freqs, f"drive frequency f [Hz] (c = {s.freq_sweep_clearance_mm:g} mm)"),
                                   (axs[1], d.c_runs, s.clearances_mm,
                                    f"radial clearance $c$ [mm] ($f$ = {s.clearance_sweep_frequency:g} Hz)")):
        width = 0.7 * float(np.min(np.diff(vals))) if len(vals) > 1 else 0.3
        for x, (k, near) in zip(vals, [reading_bar(r) for r in runs]):
            ax.bar([x], [k], width=width, color="white" if near else "tab:blue", edgecolor="tab:blue",
                   hatch="////" if near else None)
        ax.set_ylabel("reading (0 = irregular)")
        ax.set_xlabel(xlabel, fontsize=9)
    return fig


def slider_figure(d: SliderCrankCheck) -> Figure:
    """Slider velocity over two crank turns (ideal and every other clearance), and the errors against c (log-log).

    ``d``: :func:`robolib.studies.clearance_dynamics.experiments.slider_crank_check`'s data.
    """
    fig = Figure(figsize=(CONSTRAINED_WIDTH, 3.9), layout="constrained")
    axs = fig.subplots(1, 2)
    sc, k_x = d.sc, d.k_x
    phi_deg = np.degrees(sc.omega * d.t)
    axs[0].plot(phi_deg, d.ideal_v, "k", lw=2, label="ideal (closed form)")
    for c_mm, r, _, _ in d.runs[::2]:
        axs[0].plot(phi_deg, r.qd[:, k_x], lw=0.8, label=f"c = {c_mm:g} mm")
    axs[0].set_xlabel("crank angle [deg]")
    axs[0].set_ylabel("slider velocity [m/s]")
    axs[0].legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, frameon=False)
    cs = np.array([c for c, *_ in d.runs])
    axs[1].loglog(cs, [dx * 1e3 for _, _, dx, _ in d.runs], "o-", label="max position error [mm]")
    axs[1].loglog(cs, [dv for *_, dv in d.runs], "s-", label="max velocity error [m/s]")
    axs[1].loglog(cs, cs, "k:", label="= c")
    axs[1].set_xlabel("radial clearance c [mm]")
    # ticks at 1, 2, 5 x 10^k written as plain numbers: the default minor labels (2x10^-2, 3x10^-2, ...) collide
    axs[1].xaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    axs[1].xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axs[1].xaxis.set_minor_formatter(NullFormatter())
    axs[1].legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, frameon=False)
    return fig


def explore_figure(r: OrbitRun, clearance_mm: float, frequency: float) -> Figure:
    """One Explore figure: the journal orbit of a short run and its normal contact force.

    ``r``: :func:`robolib.studies.clearance_dynamics.experiments.explore_run`'s dict for ``(frequency [Hz], clearance_mm [mm])``.
    """
    fig = Figure(figsize=(5.5, 3.0), layout="tight")
    a0, a1 = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1, 1.6]})
    draw_orbit(a0, r.e_local, clearance_mm * 1e-3, lw=0.5)
    a0.set_title(f"$c$ = {clearance_mm:g} mm, $f$ = {frequency:g} Hz", fontsize=8)
    a1.plot(r.t, r.F_n, "k", lw=0.5)
    a1.set_yscale("symlog", linthresh=1.0)
    a1.set_xlabel("t [s]", fontsize=8)
    a1.set_ylabel(r"$F_n$ [N]", fontsize=8)
    sh = r.shares
    a1.set_title(f"free {sh['free flight']:.0%}, impacts {sh['n_impacts']}", fontsize=8)
    a1.tick_params(labelsize=8)
    a0.tick_params(labelsize=8)
    return fig


__all__ = ["ideal_figure", "orbit_figure", "errors_figure", "detail_animation", "bifurcation_figure", "first_loss_figure",
           "multiplier_figure", "unresolved", "crossing_text", "bracket_text", "readings_figure", "slider_figure", "explore_figure"]


def orbit_distance(d) -> np.ndarray | None:
    """The distance (scaled max norm) of each Poincaré sample of a case's orbit study ``d``
    (:class:`robolib.studies.clearance_dynamics.orbit_study.CaseOrbits`), from the journal centred on, to the nearest
    point of the orbits found (the stable one with the onset-speed memory carried, as the simulation has it); None
    when no orbit was found."""
    if not d.found:
        return None
    z = np.asarray(d.history)[:, :4] / d.scale
    pts = np.concatenate([o.motion_points if o is d.attractor else o.orbit.points for o in d.found])
    return np.min(np.max(np.abs(z[:, None, :] - pts[None, :, :4] / d.scale), axis=2), axis=1)


def approach_figure(cases: dict) -> Figure:
    """(a) The Poincaré section of the first case whose stable orbit has a period above 1 (else the first with a
    stable orbit): every sample from the journal centred on, coloured by the drive period n and joined in order, with
    the orbit's points; (b) per case, the distance of each sample to the nearest orbit point against n (log), and
    for each resolved stable period-k orbit the decay max|mu|^(n/k) that its multiplier predicts (dashed).
    ``cases``: ``{(f, c_mm): CaseOrbits}``."""
    fig = Figure(figsize=(CONSTRAINED_WIDTH, 3.8), layout="constrained")
    a0, a1 = fig.subplots(1, 2)
    stable = [d for d in cases.values() if d.attractor is not None and d.section.history is not None]
    pick = next((d for d in stable if d.attractor.k > 1), stable[0] if stable else None)
    if pick is None:
        a0.text(0.5, 0.5, "no stable orbit in this run", ha="center", va="center")
        a0.set_axis_off()
    else:
        h, k = pick.section.history, pick.attractor.k
        a0.plot(h[:, 0], h[:, 2], "-", color="0.7", lw=0.6, zorder=1)
        sc = a0.scatter(h[:, 0], h[:, 2], c=np.arange(len(h)), cmap="viridis", s=12, zorder=2)
        fig.colorbar(sc, ax=a0, label="drive period n")
        pts = pick.section.orbits[k]
        a0.plot(pts[:, 0], pts[:, 2], "o", ms=12, mfc="none", mec="tab:red", mew=1.5, zorder=3,
                label=f"the {k} points of the period-{k} orbit")
        a0.annotate("n = 0: journal centred", h[0, [0, 2]], xytext=(8, 8), textcoords="offset points", fontsize=9)
        a0.set_title(f"samples at {pick.case[0]:g} Hz, {pick.case[1]:g} mm", fontsize=9)
        a0.set_xlabel(r"$e_x/c$")
        a0.set_ylabel(r"$\dot e_x/(c\omega)$")
        a0.legend(fontsize=9, loc="upper center", bbox_to_anchor=(0.5, -0.22), frameon=False)
    low = np.inf
    for (f, c), d in cases.items():
        dist = orbit_distance(d)
        if dist is None:
            continue
        n = np.arange(len(dist))
        (line,) = a1.semilogy(n, np.maximum(dist, 1e-12), ".-", lw=0.7, ms=3, label=f"{f:g} Hz, {c:g} mm")
        low = min(low, float(np.min(dist[dist > 0])) if np.any(dist > 0) else low)
        a = d.attractor
        if a is not None and a.resolved and len(dist) > 2 + a.k:
            ref = np.max(dist[2:2 + a.k]) * (a.max_mu ** (1.0 / a.k)) ** (n[2:] - 2)
            a1.semilogy(n[2:], ref, "--", color=line.get_color(), lw=1.2, label=rf"$\max|\mu|^{{n/{a.k}}}$ at {f:g} Hz")
    if np.isfinite(low):
        a1.set_ylim(bottom=max(low / 3, 1e-12))
    a1.set_xlabel("drive period n")
    a1.set_ylabel("distance to the orbit")
    if a1.get_legend_handles_labels()[0]:
        a1.legend(fontsize=9, loc="upper center", bbox_to_anchor=(0.5, -0.22), frameon=False)   # below: no overlap
    else:
        a1.text(0.5, 0.5, "no orbit found in this run", ha="center", va="center", transform=a1.transAxes)
    return fig


# --------------------------------------------------------------------------- Explore panel 7.1: the logistic map
#: Values of r of Explore panel 7.1 (chapter 7): steps of 0.05 over [2.8, 4.0], with the exercises' 2.9, 3.1, 3.5 and
#: 3.9, and 3.83 in the period-3 window.
LOGISTIC_R_GRID = tuple(sorted({round(2.8 + 0.05 * i, 2) for i in range(25)} | {3.83}))
#: Steps dropped as transient, samples kept, start value and period-test tolerance, as in chapter 7's exercises 1-2.
LOGISTIC_TRANSIENT, LOGISTIC_SAMPLES, LOGISTIC_X0, LOGISTIC_TOL = 1000, 600, 0.3, 1e-6
#: Largest period the panel's period test looks for (exercise 1's ``k_max``).
LOGISTIC_K_MAX = 8


def logistic_samples(r, n_transient: int = LOGISTIC_TRANSIENT, n_samples: int = LOGISTIC_SAMPLES,
                     x0: float = LOGISTIC_X0) -> np.ndarray:
    """Samples of the logistic map ``x -> r x (1 - x)`` from ``x0`` after ``n_transient`` steps, shape
    ``(n_samples,) + shape(r)`` (``r`` a number or an array: one column per value), as exercise 1 of chapter 7
    computes them.

    >>> s = logistic_samples(2.9)
    >>> s.shape, round(float(s[-1]), 6) == round(1 - 1 / 2.9, 6)
    ((600,), True)
    """
    r = np.asarray(r, dtype=float)
    x = np.full(r.shape, float(x0))
    for _ in range(n_transient):
        x = r * x * (1 - x)
    out = np.empty((n_samples,) + r.shape)
    for i in range(n_samples):
        x = r * x * (1 - x)
        out[i] = x
    return out


@lru_cache(maxsize=1)
def logistic_bifurcation(n_r: int = 481, n_samples: int = 150) -> tuple[np.ndarray, np.ndarray]:
    """The logistic map's bifurcation diagram over r in [2.8, 4.0]: ``(r, samples)`` with ``n_r`` values of r and
    ``samples`` of shape ``(n_samples, n_r)`` after the transient (computed once, then cached)."""
    r = np.linspace(2.8, 4.0, n_r)
    return r, logistic_samples(r, n_samples=n_samples)


def logistic_reading(r: float) -> tuple[int, float, float]:
    """``(k, multiplier, exponent)`` at ``r``: the period of the samples that :func:`robolib.core.nonlinear.period_k`
    reads (0: irregular; tolerance and ``k_max`` of exercise 1), the fixed point's multiplier ``2 - r`` and the
    Lyapunov exponent per step, the mean of ``ln|r (1 - 2 x_n)|`` over the samples (exercise 2).

    >>> k, mu, lam = logistic_reading(3.1)
    >>> k, round(mu, 2), lam < 0
    (2, -1.1, True)
    >>> logistic_reading(7.0)
    Traceback (most recent call last):
        ...
    robolib.ParameterError: r must be a number in [0, 4], got 7.0
    """
    r = real("r", r, low=0.0, high=4.0)   # beyond 4 the map leaves [0, 1] and the samples diverge
    s = logistic_samples(r)
    k = N.period_k(s[:, None], LOGISTIC_TOL, k_max=LOGISTIC_K_MAX)
    return k, 2.0 - float(r), float(np.mean(np.log(np.abs(r * (1 - 2 * s)))))


def _signed(v: float) -> str:
    """``v`` with two decimals and a sign, with a typographic minus."""
    return f"{v:+.2f}".replace("-", "\u2212")


#: Alt text of chapter 7's Explore panel (the logistic map).
LOGISTIC_ALT = ("Two panels: left, the logistic map's bifurcation diagram from r = 2.8 to 4, one branch that splits "
                "into two at r = 3, then four, then grey bands of irregular samples with white windows, with an "
                "orange vertical line at the chosen r and its samples as red dots; right, the first 60 values of x_n "
                "against n, which settle on the dashed fixed-point line, alternate between two or more values, or "
                "jump irregularly; the title gives the period read, the multiplier 2 − r and the Lyapunov exponent")


def logistic_caption() -> str:
    """Caption of chapter 7's Explore panel over :data:`LOGISTIC_R_GRID`: what the panels and the title show, and the
    grid's values where the samples settle too slowly for the period test (a multiplier near −1)."""
    tol = str(int(f"{LOGISTIC_TOL:e}".split("e")[1])).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))
    slow = [r for r in LOGISTIC_R_GRID if logistic_reading(r)[0] == 0 and logistic_reading(r)[2] < 0]
    return (f"The logistic map xₙ₊₁ = r xₙ(1 − xₙ) at the chosen r. Left: its bifurcation diagram (the samples after "
            f"{LOGISTIC_TRANSIENT} steps from x₀ = {LOGISTIC_X0:g}, against r), with the chosen r (orange line) "
            f"and its {LOGISTIC_SAMPLES} samples (red). Right: the first 60 steps from x₀ and the fixed point "
            f"x* = 1 − 1/r (dashed). Title: the period that the library's test reads on the samples (tolerance "
            f"10{tol}, as in exercise 1), the fixed point's multiplier 2 − r and the Lyapunov exponent "
            f"per step (exercise 2). Where a multiplier is close to −1 (r = {', '.join(f'{r:g}' for r in slow)}) the "
            f"samples settle too slowly for this tolerance; the title then says 'not settled yet', since the exponent "
            f"is negative.")


def logistic_explore_figure(r: float, n_shown: int = 60) -> Figure:
    """One figure of Explore panel 7.1: left, the logistic map's bifurcation diagram (:func:`logistic_bifurcation`)
    with a line at ``r`` and its samples; right, the first ``n_shown`` values ``x_n`` from ``x_0`` = 0.3 and the
    fixed point ``1 - 1/r``. The title gives the period test's reading, the fixed point's multiplier ``2 - r`` and
    the Lyapunov exponent per step (:func:`logistic_reading`).

    >>> fig = logistic_explore_figure(3.1)
    >>> len(fig.axes), "period-2" in fig.get_suptitle(), "multiplier 2 \u2212 r = \u22121.10" in fig.get_suptitle()
    (2, True, True)
    >>> "not settled yet" in logistic_explore_figure(3.0).get_suptitle()   # multiplier -1: the approach is slow
    True
    """
    k, mu, lam = logistic_reading(r)
    r = float(r)
    rs, samples = logistic_bifurcation()
    fig = Figure(figsize=(CONSTRAINED_WIDTH, 3.3), layout="constrained")
    a0, a1 = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.25, 1]})
    a0.plot(np.broadcast_to(rs, samples.shape).ravel(), samples.ravel(), ",", color="0.35", rasterized=True)
    a0.axvline(r, color="tab:orange", lw=1.2)
    a0.plot(np.full(LOGISTIC_SAMPLES, r), logistic_samples(r), "o", ms=2.5, color="tab:red")
    a0.set_xlim(2.8, 4.0)
    a0.set_ylim(0, 1)
    a0.set_xlabel("r", fontsize=9)
    a0.set_ylabel(f"$x_n$ after {LOGISTIC_TRANSIENT} steps", fontsize=9)
    a0.set_title("bifurcation diagram (red: samples at r)", fontsize=9)
    n = np.arange(n_shown + 1)
    x = np.concatenate([[LOGISTIC_X0], logistic_samples(r, n_transient=0, n_samples=n_shown)])
    a1.axhline(1 - 1 / r, color="tab:blue", ls="--", lw=1.0)
    a1.plot(n, x, ".-", color="k", lw=0.6, ms=3)
    a1.set_ylim(0, 1)
    a1.set_xlabel("step n", fontsize=9)
    a1.set_ylabel("$x_n$", fontsize=9)
    a1.set_title(f"{n_shown} steps from $x_0$ = {LOGISTIC_X0:g}\n(dashed: fixed point $x^* = 1 - 1/r$)", fontsize=9)
    for ax in (a0, a1):
        ax.tick_params(labelsize=9)
    # a negative exponent with no period read: the samples are still approaching (a multiplier near -1), not irregular
    read = ("not settled yet (slow approach)" if k == 0 and lam < 0 else N.period_name(k))
    fig.suptitle(f"r = {r:.2f}: the samples read {read}; fixed point's multiplier 2 \u2212 r = "
                 f"{_signed(mu)}\nLyapunov exponent {_signed(lam)} per step (mean of $\\ln|r(1 - 2x_n)|$ over "
                 f"{LOGISTIC_SAMPLES} samples)", fontsize=9)
    return fig


__all__ += ["LOGISTIC_R_GRID", "logistic_samples", "logistic_bifurcation", "logistic_reading",
            "logistic_explore_figure", "logistic_caption", "LOGISTIC_ALT"]
