"""The clearance chapter's model checks: topology, ideal motion, Baumgarte drift, the detailed run, slider-crank.

Each function computes one experiment of the chapter from a
:class:`~robolib.studies.clearance_dynamics.settings.StudySettings`, registers its claims in a
:class:`~robolib.book.claims.ClaimsRegister` and returns its data (a dataclass of this module) for the
tables, figures and prose. The criteria are the module constants below, fixed
before any result is computed.

>>> from robolib.book.claims import ClaimsRegister
>>> from robolib.studies.clearance_dynamics.settings import study_settings
>>> reg = ClaimsRegister("demo", glue=False)
>>> topology_check(study_settings(quick=True), reg).rows
[21, 19, 2, 4]
>>> reg["clearance_rows"].holds
True
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np

from robolib.book.notebook import markdown_table
from robolib.core import clearance as C
from robolib.core import multibody as mb
from robolib.core.checks import real
from robolib.core.clearance import ClearanceModel, ClearanceResult
from robolib.core.errors import ParameterError
from robolib.core.nonlinear import sweep
from robolib.gearshift.model import (
    GearShift,
    SliderCrank,
    build_gearshift,
    build_slider_crank,
    check_arguments,
    check_clearance,
    clearance_model,
    end_effector_errors,
    ideal_motion,
    simulate_clearance,
    simulate_ideal,
    slider_closed_form,
    with_changes,
)
from robolib.gearshift.runs import DetailMetrics, JournalOrbit, OrbitRun, detail_metrics, journal_orbit, orbit_run
from robolib.studies.clearance_dynamics.settings import DETAIL_SAMPLE_RATE, StudySettings

#: N m: motor torques from the multipliers vs from virtual power.
TAU_AGREE = 1e-9
#: m, rad: the integrated Baumgarte DAE vs the closed-form ideal motion over one drive period.
DAE_AGREE = 1e-6
#: The linearised error formula vs the direct end-point errors, relative to the largest direct error: one bound for
#: position, velocity and acceleration, since the text says of all three that first order is enough.
LIN_TOL = 1e-2
#: Baumgarte must keep the constraint drift this many times below the unstabilised drift.
DRIFT_FACTOR = 10.0
#: ... and the unstabilised drift must grow more than this factor over the last two thirds of the run.
DRIFT_GROWTH = 2.0
#: An output of the detailed run has converged when it changes by less than this (relative) to the tightest rtol ...
CONV_REL = 0.01
#: ... and its contact-episode count by at most this many.
CONV_EPISODES = 1
#: The end point's largest position error is "of the order of the clearance": ``max |dp| / c`` inside this band.
DP_BAND = (0.3, 3.0)
#: The impacts reach the hand as spikes: the largest end-point velocity / acceleration error (norm of x, y) within impacts
#: is at least this many times its median during continuous contact (the slow motion between the bursts).
JOLT_V, JOLT_A = 10.0, 100.0
#: Slider-crank: multibody vs closed-form slider acceleration, relative to its peak.
SC_ACC_REL = 1e-6
#: Slider-crank: largest slider position error / c inside this band at every clearance.
SC_RATIO = (0.5, 2.0)
#: Slider-crank: the velocity error shrinks "more slowly than the clearance" if the log-log slope of the velocity
#: error against c over all clearances is below this, while the position error's slope lies in SC_SLOPE_POS.
SC_SLOPE_VEL = 0.8
SC_SLOPE_POS = (0.8, 1.2)


@dataclass(frozen=True)
class Topology:
    """The model's constraint rows (:func:`topology_check`).

    Fields:

    * ``rows``: ``[coordinates, ideal rows without drivers, rows removed by B1, rows removed by B1 and E2]``.
    """

    rows: list


@dataclass(frozen=True)
class IdealCheck:
    """The ideal motion over one drive period (:func:`ideal_check`), n_t instants.

    Fields:

    * ``gs``: the model (:class:`robolib.gearshift.GearShift`).
    * ``t``: (n_t,) instants, s.
    * ``motion``: :func:`robolib.gearshift.ideal_motion` at them (``q``, ``qd``, ``qdd``, ``torques`` by driver).
    * ``vp``: per instant, the virtual-power torques ``{driver: N m}``.
    * ``tau_gap``: largest difference of the two torque routes, N m.
    * ``tau_max``: largest motor torque, N m.
    * ``dae_err``: largest ``|q_DAE - q_closed|`` (m, rad).
    """

    gs: GearShift
    t: np.ndarray
    motion: dict
    vp: list
    tau_gap: float
    tau_max: float
    dae_err: float


@dataclass(frozen=True)
class DriftCheck:
    """Constraint drift of the detailed run with and without Baumgarte's terms (:func:`drift_check`).

    Fields:

    * ``t``: (k,) instants, s.
    * ``drift``: ``{alpha [1/s]: (k,) max |H|}`` (constraint residual, m or rad) for alpha 0 and the file's.
    * ``growth``: unstabilised drift at the end over that at one third of the run.
    * ``ratio``: unstabilised over stabilised drift at the end.
    """

    t: np.ndarray
    drift: dict
    growth: float
    ratio: float


@dataclass(frozen=True)
class DetailRun:
    """The detailed clearance run and its end-point errors (:func:`detail_run`), T samples.

    Fields:

    * ``gs``: the model; cm: its :class:`robolib.core.clearance.ClearanceModel`; run: the
      :class:`robolib.core.clearance.ClearanceResult`.
    * ``ts``: (T,) sample times, s.
    * ``orbit``: the journal orbit of joint 0 (:class:`robolib.gearshift.runs.JournalOrbit`).
    * ``F_n``: (T,) normal contact force of joint 0, N.
    * ``modes``: (T,) motion mode per sample (free 0, impact 1, continuous 2).
    * ``shares``: the run's mode shares (:func:`robolib.core.clearance.mode_shares`).
    * ``errors``: the end-point errors (:func:`robolib.gearshift.end_effector_errors`; m, m/s, m/s^2).
    * ``c``: radial clearance of joint 0, m.
    * ``rel``: ``{"p", "v", "a"}``: ``max |linearised - direct| / max |direct|`` per error.
    * ``dp_over_c``: largest end-point position error over c.
    * ``K``: contact stiffness of joint 0, N/m^1.5.
    """

    gs: GearShift
    cm: ClearanceModel
    run: ClearanceResult
    ts: np.ndarray
    orbit: JournalOrbit
    F_n: np.ndarray
    modes: np.ndarray
    shares: dict
    errors: dict
    c: float
    rel: dict
    dp_over_c: float
    K: float


@dataclass(frozen=True)
class DetailConvergence:
    """The detailed run at every rtol of ``convergence_rtols`` (:func:`detail_convergence`).

    Fields:

    * ``metrics``: one :class:`robolib.gearshift.runs.DetailMetrics` per rtol, loosest first.
    * ``at_default``: the one closest to the parameter file's rtol.
    """

    metrics: list
    at_default: DetailMetrics


@dataclass(frozen=True)
class SliderCrankCheck:
    """The slider-crank validation (:func:`slider_crank_check`).

    Fields:

    * ``sc``: the model (:class:`robolib.gearshift.SliderCrank`); k_x: the index of the slider's x coordinate.
    * ``t``: (721,) instants over two crank turns, s.
    * ``ideal_x, ideal_v``: (721,) ideal slider position (m) and velocity (m/s).
    * ``runs``: ``(c [mm], ClearanceResult, max position error [m], max velocity error [m/s])`` per clearance.
    * ``acc_rel``: multibody vs closed-form slider acceleration, max difference over the peak.
    * ``ratios``: max position error over c, per clearance.
    """

    sc: SliderCrank
    k_x: int
    t: np.ndarray
    ideal_x: np.ndarray
    ideal_v: np.ndarray
    runs: list
    acc_rel: float
    ratios: list


def topology_check(s: StudySettings, reg) -> Topology:
    """Rows of the ideal model and of one and two clearance joints; claim ``clearance_rows``. Returns a
    :class:`Topology`."""
    gs = build_gearshift(s.p_detail)
    red1 = clearance_model(gs, joints="B1").reduced
    red2 = clearance_model(gs, joints="B1,E2").reduced
    ideal_rows = gs.mech.m - len(gs.mech.driver_names)
    rows = [gs.mech.n, ideal_rows, gs.mech.m - red1.m, gs.mech.m - red2.m]
    reg.claim("clearance_rows", "the ideal model has 19 constraint rows for 21 coordinates (plus 2 drivers), and each "
              "clearance joint removes 2 rows (adds 2 degrees of freedom)", value=rows,
              criterion="n = 21, rows = 19, one clearance joint -2 rows, two -4 rows", holds=rows == [21, 19, 2, 4],
              text=f"{ideal_rows} rows for {gs.mech.n} coordinates; one clearance joint removes "
                   f"{rows[2]} rows, two remove {rows[3]}", answers="001.c1")
    return Topology(rows)


def ideal_check(s: StudySettings, reg, n_t: int = 201) -> IdealCheck:
    """Ideal motion over one drive period at ``n_t`` instants: torques two ways, the DAE against the closed form.

    Claims ``clearance_tau_gap`` (N m) and ``clearance_dae``. Returns an :class:`IdealCheck`.
    """
    gs = build_gearshift(s.p_detail)
    T = 1.0 / s.detail_frequency
    t = np.linspace(0.0, T, n_t)
    im = ideal_motion(gs, t)
    vp = [mb.virtual_power_torques(gs.mech, im["q"][k], im["qd"][k], im["qdd"][k], tk) for k, tk in enumerate(t)]
    tau_gap = max(abs(vp[k][d] - im["torques"][d][k]) for k in range(len(t)) for d in gs.mech.driver_names)
    tau_max = max(np.abs(v).max() for v in im["torques"].values())
    dae = simulate_ideal(gs, T, t_eval=t)
    q_closed = np.array([gs.ideal_state(tk)[0] for tk in t])
    dae_err = np.abs(dae.y[:, :gs.mech.n] - q_closed).max()
    reg.claim("clearance_tau_gap", "the motor torques from the multipliers equal those from virtual power",
              value=tau_gap, criterion=f"max difference < {TAU_AGREE:g} N m", holds=tau_gap < TAU_AGREE,
              text=f"{tau_gap:.1e} N m")
    reg.claim("clearance_dae", "the integrated Baumgarte DAE follows the closed-form ideal motion over one period",
              value=dae_err, criterion=f"max |q_DAE - q_closed| < {DAE_AGREE:g}", holds=dae_err < DAE_AGREE,
              text=f"{dae_err:.1e}")
    return IdealCheck(gs, t, im, vp, float(tau_gap), float(tau_max), float(dae_err))


def drift_check(s: StudySettings, reg) -> DriftCheck:
    """Constraint drift of the detailed clearance run with and without Baumgarte's terms; claim ``clearance_baumgarte``.

    Three drive periods (0.2 s in quick runs) sampled at 61 (11) instants. Returns a :class:`DriftCheck`.
    """
    T = 1.0 / s.detail_frequency
    t = np.linspace(0.0, 3 * T, 61) if not s.quick else np.linspace(0.0, 0.2, 11)
    drift = {}
    for a in (0.0, s.alpha):
        g_a = build_gearshift(with_changes(s.p_detail, **{"solver.baumgarte_alpha": a, "solver.baumgarte_beta": a}))
        cm_a, r_a = simulate_clearance(g_a, float(t[-1]), t_eval=t, cmodel=clearance_model(g_a))
        drift[a] = np.array([np.abs(cm_a.reduced.residual(r_a.q[k], tk)).max() for k, tk in enumerate(t)])
    grow = drift[0.0][-1] / max(drift[0.0][len(t) // 3], 1e-300)
    ratio = drift[0.0][-1] / drift[s.alpha][-1]
    reg.claim("clearance_baumgarte", "without stabilisation the constraint drift of a clearance run grows; Baumgarte's "
              "terms keep it far smaller", value=[float(drift[0.0][-1]), float(drift[s.alpha][-1])],
              criterion=f"unstabilised drift grows (> {DRIFT_GROWTH:g}x over the last two thirds) and ends > "
                        f"{DRIFT_FACTOR:g}x the stabilised one", holds=grow > DRIFT_GROWTH and ratio > DRIFT_FACTOR,
              text=f"{drift[0.0][-1]:.1e} without and {drift[s.alpha][-1]:.1e} with stabilisation after "
                   f"{t[-1]:g} s", answers="001.c2")
    return DriftCheck(t, drift, float(grow), float(ratio))


def detail_run(s: StudySettings, reg) -> DetailRun:
    """The detailed clearance run (``detail_duration`` s at 20 kHz samples) and its end-point errors.

    Claims ``clearance_lin_p``, ``_v``, ``_a`` (linearised vs direct), ``clearance_dp_size`` and
    ``clearance_impact_jolt``. Returns a
    :class:`DetailRun`.
    """
    gs = build_gearshift(s.p_detail)
    ts = np.linspace(0.0, s.detail_duration, int(round(s.detail_duration * DETAIL_SAMPLE_RATE)) + 1)
    cm, run = simulate_clearance(gs, s.detail_duration, t_eval=ts)
    ideal = [gs.ideal_state(t) for t in ts]
    q_i, qd_i, qdd_i = (np.array([st[k] for st in ideal]) for k in range(3))
    err = end_effector_errors(gs, run.q, run.qd, cm.accelerations(run), q_i, qd_i, qdd_i)
    c = cm.specs[0].clearance
    rel = {k: float(np.abs(err[f"d{k}_lin"] - err[f"d{k}"]).max() / np.abs(err[f"d{k}"]).max()) for k in "pva"}
    for k, name in (("p", "position"), ("v", "velocity"), ("a", "acceleration")):
        reg.claim(f"clearance_lin_{k}", f"the linearised error formula reproduces the direct end-point {name} error",
                  value=rel[k], criterion=f"max |linearised - direct| < {LIN_TOL:g} x max |direct|",
                  holds=rel[k] < LIN_TOL, text=f"{rel[k]:.1%}", answers="001.c3" if k == "p" else None)
    dp_c = float(np.abs(err["dp"]).max() / c)
    reg.claim("clearance_dp_size", f"the largest end-point position error is of the order of the clearance "
              f"(between {DP_BAND[0]:g} and {DP_BAND[1]:g} times it)", value=dp_c,
              criterion=f"{DP_BAND[0]:g} c < max |Δp| < {DP_BAND[1]:g} c", holds=DP_BAND[0] < dp_c < DP_BAND[1],
              text=f"{dp_c:.2f} c")
    jolt = impact_jolt(ts, err, run.episodes[0], cm.impact_max_duration)
    reg.claim("clearance_impact_jolt", "at the hand the impacts are spikes: at its largest within the impacts the velocity "
              "error is more than ten times, the acceleration error more than a hundred times, its median during "
              "continuous contact", value=jolt,
              criterion=f"largest |Δv| within impacts >= {JOLT_V:g} x its median during continuous contact, and largest "
                        f"|Δa| >= {JOLT_A:g} x its median (|.|: norm of the x and y errors)",
              holds=bool(jolt[0] >= JOLT_V and jolt[1] >= JOLT_A),
              text=f"{jolt[0]:.0f} times (velocity) and {jolt[1]:,.0f} times (acceleration)")
    return DetailRun(gs, cm, run, ts, journal_orbit(cm, run.q, run.qd), cm.contact_forces(run)["F_n"][0],
                     C.contact_modes(run.t, run.episodes[0], cm.impact_max_duration),
                     C.mode_shares(run.episodes[0], 0.0, s.detail_duration, cm.impact_max_duration),
                     err, c, rel, dp_c, float(cm.K[0]))


#: Exercise 2 of chapter 6: "about the same" = the two placements' largest errors differ by at most this (relative).
EX2_SAME = 0.05
#: s: Exercise 3 of chapter 6 compares the contact laws over the first this many seconds of the detailed run.
EX3_SPAN = 0.3


def exercise_checks(s: StudySettings, reg) -> dict:
    """The answers of chapter 6's exercises 2 and 3, as claims (about 2 s): ``clearance_ex2_placement`` (the clearance
    at the ground pin A1 instead of the elbow B1 gives about the same largest end-point position error over the first
    drive period, within :data:`EX2_SAME`) and ``clearance_ex3_flores`` (over the first :data:`EX3_SPAN` s, Flores'
    law gives fewer impacts and a larger share of continuous contact than Lankarani–Nikravesh). Both from the
    detailed run's parameters and the ideal state; returns the numbers by name."""
    gs = build_gearshift(s.p_detail)
    period = 1.0 / s.detail_frequency
    ts = np.linspace(0.0, period, 1001)
    ideal = gs.end_point(np.array([gs.ideal_state(t)[0] for t in ts]))
    c = float(s.p_detail["clearance"]["radial_clearance"])
    err = {}
    for joint in ("B1", "A1"):
        _, run = simulate_clearance(gs, period, t_eval=ts, cmodel=clearance_model(gs, joints=joint))
        err[joint] = float(np.abs(gs.end_point(run.q) - ideal).max() / c)
    gap = abs(err["A1"] / err["B1"] - 1.0)
    reg.claim("clearance_ex2_placement", "the clearance at the ground pin A1 instead of the elbow B1 gives about the "
              "same largest end-point position error over the first drive period", value=[err["B1"], err["A1"], gap],
              criterion=f"|max|Δp|_A1 / max|Δp|_B1 − 1| <= {EX2_SAME:g} (same clearance and drive, from the ideal "
                        f"state)", holds=gap <= EX2_SAME,
              text=f"{err['B1']:.2f} c at B1 and {err['A1']:.2f} c at A1, {gap:.1%} apart")
    out = {}
    for law in ("lankarani_nikravesh", "flores"):
        g = build_gearshift(with_changes(s.p_detail, **{"clearance.law": law}))
        cm, run = simulate_clearance(g, EX3_SPAN, t_eval=np.linspace(0.0, EX3_SPAN, 301))
        sh = C.mode_shares(run.episodes[0], 0.0, EX3_SPAN, cm.impact_max_duration)
        out[law] = (int(sh["n_impacts"]), float(sh["continuous contact"]))
    (n_ln, cc_ln), (n_f, cc_f) = out["lankarani_nikravesh"], out["flores"]
    reg.claim("clearance_ex3_flores", f"over the first {EX3_SPAN:g} s of the detailed run, Flores' contact law gives "
              "fewer impacts and a larger share of continuous contact than Lankarani–Nikravesh's",
              value={"impacts": [n_ln, n_f], "continuous": [cc_ln, cc_f]},
              criterion=f"impacts (Flores) < impacts (Lankarani–Nikravesh) and continuous-contact share (Flores) > "
                        f"share (Lankarani–Nikravesh), over 0–{EX3_SPAN:g} s from the ideal state",
              holds=bool(n_f < n_ln and cc_f > cc_ln),
              text=f"{n_f} impacts instead of {n_ln}, and {cc_f:.1%} of the time in continuous contact instead of "
                   f"{cc_ln:.1%}")
    return {"ex2": err, "ex3": out}


def impact_jolt(ts: np.ndarray, err: dict, episodes, impact_max_duration: float) -> list[float]:
    """``[v, a]``: the largest end-point velocity and acceleration error (norm of x, y) at the samples ``ts`` within
    impacts, over its median at the samples in continuous contact (nan when either set is empty)."""
    modes = C.contact_modes(ts, episodes, impact_max_duration)
    out = []
    for k in "va":
        n = np.linalg.norm(err[f"d{k}"], axis=1)
        imp, cont = n[modes == 1], n[modes == 2]
        out.append(float(imp.max() / np.median(cont)) if len(imp) and len(cont) else float("nan"))
    return out


def modes_table(d: DetailRun) -> str:
    """Markdown: share of the detailed run in free flight, impacts and continuous contact."""
    sh = d.shares
    return markdown_table(["motion mode", "share of the run", "episodes"], [
        ["free flight", f"{sh['free flight']:.1%}", "-"], ["impact (≤ 1 ms)", f"{sh['impact']:.1%}", sh["n_impacts"]],
        ["continuous contact", f"{sh['continuous contact']:.1%}", sh["n_continuous"]]])


def detail_convergence(s: StudySettings, reg) -> DetailConvergence:
    """The detailed run at every rtol of ``convergence_rtols`` (atol scaled with it); claim ``clearance_conv_detail``.

    Returns a :class:`DetailConvergence`.
    """


    task = partial(_detail_metrics_at, s.p_detail, s.detail_duration, s.rtol, s.atol)
    _, metrics = sweep(task, s.convergence_rtols, n_jobs=s.n_jobs)
    ref = metrics[-1]
    at_def = min(metrics, key=lambda m: abs(np.log(m.rtol / s.rtol)))
    d_ep = abs(at_def.n_episodes - ref.n_episodes)
    d_F = abs(at_def.peak_force / ref.peak_force - 1)
    d_p = abs(at_def.dp_max / ref.dp_max - 1)
    reg.claim("clearance_conv_detail", f"at the default rtol = {s.rtol:g} the detailed run's contact-episode count, "
              f"peak force and largest end-point error have converged (compared with rtol = {ref.rtol:g})",
              value=[d_ep, d_F, d_p], criterion=f"episodes within {CONV_EPISODES}, peak force and error within "
              f"{CONV_REL:.0%}", holds=d_ep <= CONV_EPISODES and d_F < CONV_REL and d_p < CONV_REL,
              text=f"{d_ep} episodes, {d_F:.2%} in peak force, {d_p:.2%} in end-point error")
    return DetailConvergence(metrics, at_def)


def _detail_metrics_at(p, duration, rtol0, atol0, rt):
    """:func:`detail_metrics` at rtol ``rt`` with atol scaled from ``(rtol0, atol0)`` (picklable for the sweep)."""
    return detail_metrics(p, duration, rtol=rt, atol=atol0 if rt == rtol0 else atol0 * (rt / rtol0))


def convergence_table(d: DetailConvergence) -> str:
    """Markdown: the detailed run's counters and outputs per rtol."""
    return markdown_table(["rtol", "steps", "rejected", "contact episodes", "impacts", "peak F_n [N]",
                           "max end-point error [µm]", "wall [s]"],
                          [[f"{m.rtol:g}", f"{m.n_steps:,}", f"{m.n_rejected:,}", m.n_episodes,
                            m.n_impacts, f"{m.peak_force:.4g}", f"{m.dp_max * 1e6:.4g}", f"{m.wall_s:.2f}"]
                           for m in d.metrics])


def slider_crank_check(s: StudySettings, reg) -> SliderCrankCheck:
    """Slider-crank validation: closed-form acceleration, and the clearance response as c shrinks.

    Claims ``clearance_sc_acc``, ``clearance_sc_ratio`` and ``clearance_sc_velocity``. Returns a
    :class:`SliderCrankCheck`.
    """
    sc = build_slider_crank()
    T = 2 * np.pi / sc.omega
    t1 = np.linspace(0.0, T, 181)
    im = ideal_motion(sc, t1)
    k_x = sc.mech.coordinate("slider", "x")
    _, _, a_cf = slider_closed_form(sc.phi0 + sc.omega * t1, sc.omega, sc.r, sc.L)
    acc_rel = float(np.abs(im["qdd"][:, k_x] - a_cf).max() / np.abs(a_cf).max())
    t = np.linspace(0.0, 2 * T, 721)
    ideal_x = np.array([sc.ideal_state(tk)[0][k_x] for tk in t])
    ideal_v = np.array([sc.ideal_state(tk)[1][k_x] for tk in t])
    runs = []
    for c_mm in s.sc_cs_mm:
        _, r = simulate_clearance(sc, 2 * T, t_eval=t, cmodel=clearance_model(sc, clearance=c_mm * 1e-3))
        runs.append((c_mm, r, float(np.abs(r.q[:, k_x] - ideal_x).max()), float(np.abs(r.qd[:, k_x] - ideal_v).max())))
    ratios = [dx / (c * 1e-3) for c, _, dx, _ in runs]
    reg.claim("clearance_sc_acc", "the multibody slider acceleration equals the closed form", value=acc_rel,
              criterion=f"max difference < {SC_ACC_REL:g} of the peak", holds=acc_rel < SC_ACC_REL,
              text=f"{acc_rel:.1e} of the peak")
    reg.claim("clearance_sc_ratio", "the slider position error shrinks in proportion to the clearance",
              value=ratios, criterion=f"{SC_RATIO[0]:g} c < max error < {SC_RATIO[1]:g} c at every clearance",
              holds=all(SC_RATIO[0] < x < SC_RATIO[1] for x in ratios), text=f"{min(ratios):.2f}–{max(ratios):.2f} c")
    logc = np.log([c for c, *_ in runs])
    s_pos = float(np.polyfit(logc, np.log([dx for _, _, dx, _ in runs]), 1)[0])
    s_vel = float(np.polyfit(logc, np.log([dv for *_, dv in runs]), 1)[0])
    reg.claim("clearance_sc_velocity", "the slider velocity error shrinks with the clearance, but more slowly than the "
              "clearance, while the position error shrinks in proportion to it", value=[s_vel, s_pos],
              criterion=f"least-squares slope of log(error) against log(c) over the {len(runs)} clearances: velocity "
                        f"< {SC_SLOPE_VEL:g}, position in [{SC_SLOPE_POS[0]:g}, {SC_SLOPE_POS[1]:g}]",
              holds=s_vel < SC_SLOPE_VEL and SC_SLOPE_POS[0] <= s_pos <= SC_SLOPE_POS[1],
              text=f"velocity error ∝ c^{s_vel:.2f}, position error ∝ c^{s_pos:.2f}")
    return SliderCrankCheck(sc, k_x, t, ideal_x, ideal_v, runs, acc_rel, ratios)


def slider_table(d: SliderCrankCheck) -> str:
    """Markdown: the slider-crank's largest position and velocity errors per clearance."""
    return markdown_table(["c [mm]", "max slider position error [µm]", "error / c", "max slider velocity error [m/s]"],
                          [[f"{c:g}", f"{dx * 1e6:.1f}", f"{dx / (c * 1e-3):.2f}", f"{dv:.3g}"]
                           for c, _, dx, dv in d.runs])


def explore_run(params: dict, case, seconds: float = 0.5, samples_per_second: float = 4000.0) -> OrbitRun:
    """Short clearance run from the ideal state for the chapter's Explore panel (picklable).

    ``case = (frequency (Hz), clearance (mm))`` in the chapter's units (converted here to the library's metres);
    integrates about ``seconds`` (a whole number of drive periods, at least one) and returns
    :func:`robolib.gearshift.orbit_run`'s :class:`robolib.gearshift.runs.OrbitRun`. A bad case or duration raises
    :class:`robolib.ParameterError` naming it, before any integration.

    >>> from robolib.gearshift.model import load_parameters
    >>> r = explore_run(load_parameters(), (10.0, 0.1), seconds=0.1, samples_per_second=200.0)
    >>> r.t.shape
    (20,)
    """
    if not isinstance(case, (list, tuple)) or len(case) != 2:
        raise ParameterError(f"case = {case!r} is not valid: case must be a pair (frequency Hz > 0, clearance mm > 0)")
    f = real("case[0]", case[0], low=0.0, open_low=True, unit="Hz")
    c_mm = real("case[1]", case[1], low=0.0, open_low=True, unit="mm")
    check_clearance(params, c_mm, "case[1]", "mm")
    check_arguments(seconds=seconds, samples_per_second=samples_per_second)
    n_per = max(1, int(round(seconds * f)))
    return orbit_run(params, frequency=f, clearance=c_mm * 1e-3, n_transient=0, n_periods=n_per,
                     samples_per_period=max(2, int(round(samples_per_second / f))))


__all__ = ["explore_run", "TAU_AGREE", "DAE_AGREE", "LIN_TOL", "DRIFT_FACTOR", "DRIFT_GROWTH", "CONV_REL", "CONV_EPISODES",
           "DP_BAND", "JOLT_V", "JOLT_A", "SC_ACC_REL", "SC_RATIO", "SC_SLOPE_VEL", "SC_SLOPE_POS", "Topology", "IdealCheck", "DriftCheck", "DetailRun",
           "DetailConvergence", "SliderCrankCheck", "topology_check", "ideal_check", "drift_check",
           "detail_run", "impact_jolt", "modes_table", "detail_convergence", "convergence_table", "slider_crank_check",
           "slider_table", "EX2_SAME", "EX3_SPAN", "exercise_checks"]
