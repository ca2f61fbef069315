"""The clearance chapter as one function: :func:`run` (study ``clearance_dynamics``).

The gear-shift manipulator with a clearance joint, studied the way the chapter
tells it: the model's topology, the ideal motion and its torques, Baumgarte's
stabilisation, one clearance run in detail with its end-point errors and their
convergence, the Poincaré verdicts of three cases on tolerance ladders with their
replicates, transient study and Lyapunov exponents, the bifurcation sweeps, and
the slider-crank validation. The experiments live in
:mod:`robolib.studies.clearance_dynamics.experiments`, :mod:`robolib.studies.clearance_dynamics.verdicts`,
:mod:`robolib.studies.clearance_dynamics.orbit_study` and :mod:`robolib.studies.clearance_dynamics.bifurcation`,
the figures in :mod:`robolib.studies.clearance_dynamics.figures`, the parameters' checks and derived
settings in :mod:`robolib.studies.clearance_dynamics.settings`.

The verdict ladders, their Lyapunov estimates and the sweeps run on the fast model (``engine = "fast"``, the
default) and are computed in every run, as are the periodic orbits and the branch. On the seed's DAE
(``engine = "dae"``) they are taken from ``data/gearshift/verdict_runs.json`` and
``data/gearshift/bifurcation.npz`` when the run's settings match (the DAE's alpha check of the default run
reads its two runs there too); a run with other settings computes its own. To remake the DAE store after a
change of the model or the integrator (hours of CPU)::

    rm -f data/gearshift/verdict_runs.json
    ROBOLIB_WRITE_STUDY_STORE=1 python -m robolib.study clearance_dynamics -p engine dae --out build/studies

From Python::

    from robolib.studies.clearance_dynamics.study import run
    res = run(quick=True)
    res.failing(), res.tables["readings"], res.figures["bifurcation"]
"""

from __future__ import annotations

import copy
import functools
import time

import numpy as np

from robolib.book.claims import ClaimsRegister
from robolib.book.notebook import explore, number_caption
from robolib.book.result import Stages, StudyResult
from robolib.book.text import sci_text
from robolib.core import nonlinear as N
from robolib.core.params import declare_parameters
from robolib.gearshift import lyapunov as LY
from robolib.gearshift.drawing import gearshift_mechanism
from robolib.gearshift.runs import (
    DEFAULT_ENGINE,
    FAST_TOLERANCE_DIVISOR,
    NOISE_RTOL_DIVISOR,
    PERIOD_TOL_FACTOR,
)
from robolib.studies.clearance_dynamics import bifurcation, experiments, figures, orbit_study, verdicts
from robolib.studies.clearance_dynamics.settings import (
    LYAPUNOV_SPAN,
    PARAMETERS,
    StudySettings,
    study_settings,
)

#: Captions of the tables (the "**Table N** — ..." headings), by name, in the chapter's order.
TABLE_CAPTIONS = {
    "modes": "Motion modes of the detailed run: share of the run and number of contact episodes.",
    "convergence": "The detailed run at each tolerance of `convergence_rtols` (atol = rtol/1000): integrator "
                   "steps, contact episodes, impacts, peak normal force, largest end-point error and wall time.",
    "orbits": "Periodic orbits found by shooting per case, on the fast model at rtol "
              f"{orbit_study.O.ORBIT_RTOL:g}: period, residual and shooting tolerance (scaled max norm), the largest "
              "Floquet multiplier with its differencing error, stability, the distance of the simulated motion's last "
              "samples from the stable orbit (scaled max norm), and the largest Lyapunov exponent from the multipliers "
              "and from the time series.",
    "exponents": "The largest Lyapunov exponent of each case by route and model: the Floquet route of the stable "
                 "orbit, and the tangent-linear time series on the fast model and on the DAE, each at the tighter of "
                 "two tolerances with its uncertainty u, the batch error, the change from the looser tolerance and the "
                 f"change with the differences' half-width ×{LY.EPS_FACTOR:g} in quadrature, and the measured periods of the "
                 "runs.",
    "readings": "Poincaré reading per case and tolerance: the measured one-return noise, the test's tolerance "
                f"({PERIOD_TOL_FACTOR:g} × noise) and the misfit of the sample sequence with itself at lags 1–4 "
                "(normalised units).",
    "replicate": f"Lag misfit of the 'limit' cases over the fitted rungs, as run and with atol × "
                 f"{verdicts.REPLICATE_ATOL:g} (the replicate).",
    "transient": "Transient and sample count: windows of one long run of the first verdict case at its default "
                 "tolerance.",
    "sweep_readings": "The sweep points grouped by their reading at the default tolerance.",
    "slider_crank": "Slider-crank: largest slider position and velocity errors against the ideal motion per "
                    "clearance.",
}


#: The tables shown on the chapter's evidence page (numbered S1, S2, ... there, in this order), not in the lecture.
EVIDENCE_TABLES = ("convergence", "orbits", "readings", "replicate", "transient", "exponents", "sweep_readings",
                   "slider_crank")
#: The figures shown on the chapter's evidence page, not in the lecture: the ideal motion, the periodic orbits by
#: shooting, the continued period-1 branch, the zoom on its first loss of stability, the sweep's readings per point
#: and the slider-crank validation.
EVIDENCE_FIGURES = ("ideal", "orbit_points", "branch", "first_loss", "sweep_reading_bars", "slider")
#: The figures of chapters 7 and 8 (``book/studies/clearance_orbits.md`` and ``clearance_bifurcation.md``, the
#: second and third lectures on this run), glued like the evidence page's (``clearance_ev_<name>``) and shown there,
#: not in chapter 6: chapter 7's approach to a stable periodic orbit; chapter 8's bifurcation diagram and the
#: orbits' largest multipliers against the drive frequency.
ORBITS_FIGURES = ("approach",)
BIFURCATION_FIGURES = ("bifurcation", "multipliers")


def _captioned(name: str, number: str, table: str) -> str:
    return f"**Table {number}** — {TABLE_CAPTIONS[name]}\n\n{table}"


@declare_parameters(PARAMETERS, "clearance_dynamics")
def run(parameter_file="gearshift/default.yaml", clearance_joint="B1", clearance_mm=0.1,
                    contact_law="lankarani_nikravesh", detail_frequency=2.0, detail_duration=1.0,
                    verdict_cases=[[10.0, 0.5], [6.0, 0.5], [2.0, 0.1]],  # noqa: B006 (never mutated)
                    convergence_rtols=[1e-6, 1e-8, 1e-9, 1e-10],  # noqa: B006
                    case_rtols=[[1e-6, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12], [1e-6, 1e-8, 1e-9, 1e-10],  # noqa: B006
                                [1e-6, 1e-9, 1e-10]],
                    freq_range=[1.0, 12.0], freq_step=0.25,  # noqa: B006
                    freq_sweep_clearance_mm=0.5, clearance_range_mm=[0.02, 0.5], n_clearance=25,  # noqa: B006
                    clearance_sweep_frequency=6.0, n_transient=20, n_poincare=60, lyapunov_span=LYAPUNOV_SPAN, engine=DEFAULT_ENGINE,
                    n_jobs=2,
                    seed=0, quick=False) -> StudyResult:
    """Every experiment of the clearance chapter; the claims, tables, figures and data.

    Parameters (units as in the chapter's ``parameters`` cell): ``parameter_file`` (a ``data/`` path),
    ``clearance_joint`` (comma-separated revolute joints), ``clearance_mm`` [mm] and ``detail_frequency``
    [Hz], ``detail_duration`` [s] of the detailed run, ``contact_law``; ``verdict_cases`` ``[[f Hz, c mm],
    ...]`` with one tolerance ladder each in ``case_rtols`` (loosest first; atol = rtol/1000);
    ``convergence_rtols`` of the detailed run;
    the sweeps ``freq_range`` [Hz] in ``freq_step`` steps at ``freq_sweep_clearance_mm`` [mm] and
    ``n_clearance`` clearances over ``clearance_range_mm`` [mm] at ``clearance_sweep_frequency`` [Hz];
    ``n_transient`` periods before ``n_poincare`` samples; ``lyapunov_span`` [s]; ``engine`` the model of the
    ladders and sweeps (``"dae"``: the seed's, from the stores at the defaults; ``"fast"``: computed); ``n_jobs`` processes;
    ``seed`` of the Lyapunov separations; ``quick``: tiny runs for tests (about a minute).

    Returns a :class:`robolib.book.result.StudyResult` with the tables ``modes``, ``convergence``, ``orbits``, ``readings``,
    ``replicate``, ``transient``, ``lyapunov``, ``sweep_readings``, ``slider_crank``; the figures
    ``mechanism``, ``ideal``, ``orbit``, ``errors``, ``orbit_points``, ``approach``, ``bifurcation``, ``first_loss``,
    ``multipliers``,
    ``sweep_reading_bars``, ``branch``,
    ``slider`` (those of :data:`EVIDENCE_FIGURES` are the evidence page's); ``data``
    with the settings and every experiment's data (``ideal``, ``drift``, ``detail``, ``convergence``, ``verdicts``,
    ``orbits`` and ``branch`` (:mod:`robolib.studies.clearance_dynamics.orbit_study`),
    ``bifurcation``, ``slider_crank``, ``explore_runs``); ``values`` the text the prose glues.
    Raises :class:`robolib.ParameterError` naming a bad parameter and its valid values before any run
    (:data:`PARAMETERS`; conditions between parameters and those of the parameter file in :mod:`robolib.studies.clearance_dynamics.settings`).
    """
    params = copy.deepcopy(dict(locals()))
    t_start = time.perf_counter()
    s = study_settings(**params)
    stage = Stages("clearance_dynamics")
    reg = ClaimsRegister("clearance_dynamics", source="001", glue=False, quick=bool(quick))
    stage("topology, ideal motion and constraint drift")
    experiments.topology_check(s, reg)
    ideal = experiments.ideal_check(s, reg)
    drift = experiments.drift_check(s, reg)
    stage(f"detailed run ({s.detail_frequency:g} Hz) and its tolerance convergence")
    detail = experiments.detail_run(s, reg)
    conv = experiments.detail_convergence(s, reg)
    exercises = experiments.exercise_checks(s, reg)
    stage(f"verdicts (tolerance ladders, replicates); cases: {len(s.cases)}")
    v = verdicts.run_verdict_study(s, reg)
    stage("periodic orbits, Floquet multipliers, Lyapunov exponents on both models and the continued branch")
    orb, branch = orbit_study.orbit_study(s, v, reg)
    stage(f"bifurcation sweeps; points: {len(s.freqs)} frequencies x {len(s.clearances_mm)} clearances")
    bif = bifurcation.bifurcation_study(s, v, reg)
    if branch is not None:
        orbit_study.register_branch(reg, branch, bif.f_runs, s.freqs)
        orbit_study.register_crossings(reg, branch)
        orbit_study.register_past_loss(reg, branch)
        orbit_study.register_onsets(reg, branch)
        orbit_study.register_brute_agreement(reg, branch, bif.f_runs, s.freqs, s.n_transient)
    else:
        for cid in ("clearance_orbit_first_pd", "clearance_orbit_crossings", "clearance_branch_past_loss",
                    "clearance_orbit_onsets", "clearance_orbit_brute"):
            if cid not in reg.claims:
                reg.claim_not_computed(cid, "the period-1 branch", criterion="the branch is computed (not in quick "
                                       "runs, and with one clearance joint only)", reason="a quick run or several clearance joints")
    stage("slider-crank validation")
    sc = experiments.slider_crank_check(s, reg)
    stage("Explore panel runs")
    grid = [(f, c) for c in s.explore_c for f in s.explore_f]
    _, ex_out = N.sweep(functools.partial(experiments.explore_run, s.base), grid, n_jobs=s.n_jobs)
    tables = {"modes": experiments.modes_table(detail), "convergence": experiments.convergence_table(conv),
              "orbits": orbit_study.orbit_table(orb), "exponents": orbit_study.exponent_table(orb),
              "readings": verdicts.readings_table(v), "replicate": verdicts.replicate_table(v),
              "transient": verdicts.transient_table(v),
              "sweep_readings": bifurcation.sweep_readings_table(s, bif), "slider_crank": experiments.slider_table(sc)}
    lecture = [name for name in tables if name not in EVIDENCE_TABLES]
    tables = {name: _captioned(name, f"6.{lecture.index(name) + 1}" if name in lecture
                               else f"S{EVIDENCE_TABLES.index(name) + 1}", t) for name, t in tables.items()}
    figs = {"mechanism": gearshift_mechanism(s.p_detail), "ideal": figures.ideal_figure(ideal),
            "orbit": figures.orbit_figure(detail), "errors": figures.errors_figure(detail),
            "orbit_points": orbit_study.orbits_figure(orb), "approach": figures.approach_figure(orb), "bifurcation": figures.bifurcation_figure(s, bif, branch),
            "first_loss": figures.first_loss_figure(s, bif, branch),
            "multipliers": figures.multiplier_figure(s, branch, orb),
            "sweep_reading_bars": figures.readings_figure(s, bif), "slider": figures.slider_figure(sc)}
    figs["branch"] = orbit_study.branch_figure(branch, bif.f_runs, s.freqs)
    data = {"settings": s, "ideal": ideal, "drift": drift, "detail": detail, "convergence": conv, "exercises": exercises, "verdicts": v,
            "orbits": orb, "branch": branch, "bifurcation": bif, "slider_crank": sc, "explore_runs": dict(zip(grid, ex_out)),
            "wall_s": time.perf_counter() - t_start}
    return StudyResult("clearance_dynamics", params, reg, tables=tables, figures=figs, data=data,
                       values={**glue_values(s, ideal, detail, conv, v, bif), **reading_values(s, reg, bif, branch)},
                       wall_s=stage.elapsed())


def glue_values(s: StudySettings, ideal: experiments.IdealCheck, detail: experiments.DetailRun,
                conv: experiments.DetailConvergence, v: verdicts.VerdictStudy, bif: bifurcation.BifurcationSweeps) -> dict:
    """The settings and numbers the prose cites that are not findings, as text, by glue name."""
    run = detail.run
    return {"clearance_detail_steps": f"{run.n_steps:,}", "clearance_detail_episodes": str(len(run.episodes[0])),
            "clearance_study_runs": str(v.info.stored + v.info.computed),
            "clearance_study_stored": str(v.info.stored), "clearance_sweep_source": bif.info.source,
            "clearance_sweep_made": (f"columns are read from a store of {len(bif.runs)} runs of the same code, made "
                                     f"before this build, {len(bif.rechecked)} of which this build computes again"
                                     if bif.info.source == "stored"
                                     else f"{len(bif.runs)} columns are computed in this run"),
            "clearance_period_factor": f"{PERIOD_TOL_FACTOR:g}", "clearance_noise_div": f"{NOISE_RTOL_DIVISOR:g}",
            "clearance_rtol": f"{s.rtol:g}", "clearance_ntr": str(s.n_transient), "clearance_nsamp": str(s.n_poincare),
            "clearance_lyap_span": f"{s.lyapunov_span:g}", "clearance_lyap_batches": str(LY.BATCHES),
            "clearance_alpha": f"{s.alpha:g}", "clearance_beta": f"{s.base['solver']['baumgarte_beta']:g}", "clearance_ladder_slope": f"{N.LADDER_MIN_SLOPE:g}",
            "clearance_ladder_fit": str(N.LADDER_FIT), "clearance_replicate_atol": f"{verdicts.REPLICATE_ATOL:g}",
            "clearance_ladder_gap": f"{N.LADDER_GAP:g}", "clearance_near_period": f"{bifurcation.NEAR_PERIOD:g}",
            "clearance_fsweep_c": f"{s.freq_sweep_clearance_mm:g}",
            "clearance_detail_f": f"{s.detail_frequency:g}", "clearance_detail_c": f"{detail.c * 1e3:g}",
            "clearance_detail_T": f"{s.detail_duration:g}",
            "clearance_conv_rt_hi": f"{max(s.convergence_rtols):g}",
            "clearance_conv_rt_lo": f"{min(s.convergence_rtols):g}",
            "clearance_case_rt_lo": f"{min(min(r) for r in s.rtols.values()):g}",
            "clearance_csweep_f": f"{s.clearance_sweep_frequency:g}", "clearance_tau_max": f"{ideal.tau_max:.3g}",
            "clearance_K": sci_text(detail.K, 2),
            "clearance_detail_steps_def": f"{conv.at_default.n_steps:,}",
            "clearance_orbit_rtol": f"{orbit_study.O.ORBIT_RTOL:g}", "clearance_engine": s.engine,
            "clearance_lyap_per_period": str(LY.PER_PERIOD), "clearance_lyap_align": str(LY.N_ALIGN),
            "clearance_lyap_eps_factor": f"{LY.EPS_FACTOR:g}",
            "clearance_orbit_transient": str(orbit_study.O.ORBIT_TRANSIENT),
            "clearance_fast_div": f"{FAST_TOLERANCE_DIVISOR:g}", "clearance_ex2_same": f"{experiments.EX2_SAME:.0%}"}


def reading_values(s: StudySettings, reg: ClaimsRegister, bif: bifurcation.BifurcationSweeps, branch) -> dict:
    """Chapter 7's numbers on how the diagram reads, as text by glue name: the crossings of -1 along the period-1
    branch (where it loses and regains stability; ``_at``: a located crossing "at f Hz", or "between lo and hi Hz"
    where Newton fails inside the bracket), the sweep's reading at its first frequency past the loss, and the
    branch's largest multiplier modulus at its end; the spread of e_x/c within
    each sweep column below the first crossing; how often the first verdict case's tolerance ladder reads irregular."""
    pds = [z for z in (branch.bifurcations if branch is not None else []) if z[0] == "period-doubling"]
    none = "(not computed in this run)"
    out = {"clearance_pd_loss": f"{pds[0][1]:.2f}" if pds else none,
           "clearance_pd_regain": f"{pds[1][1]:.2f}" if len(pds) > 1 else none,
           "clearance_pd_loss_at": figures.crossing_text(pds[0]) if pds else none,
           "clearance_pd_regain_at": figures.crossing_text(pds[-1]) if len(pds) % 2 == 0 and pds else none,
           "clearance_branch_end": f"{branch.f[-1]:g}" if branch is not None else none,
           "clearance_branch_end_mu": f"{branch.mu[-1]:.2f}" if branch is not None else none}
    top = pds[0][2][0] if pds else float("nan")
    low = [float(np.ptp(r.samples[:, 0])) for f, r in zip(s.freqs, bif.f_runs) if f < top]  # none without a branch
    out["clearance_low_spread"] = sci_text(max(low), 0) if low else none
    out["clearance_low_top"] = f"{top:.2f}" if pds else none
    above = [(f, r) for f, r in zip(s.freqs, bif.f_runs) if pds and f >= pds[0][2][1]]  # the sweep past the loss
    out["clearance_pd_after"] = (f"{'' if above[0][1].period == 1 else 'not '}period-1 at {above[0][0]:g} Hz"
                                 if above else none)  # what the claim's criterion checks, not the test's reading
    c0 = f"clearance_verdict_{s.cases[0][0]:g}_{s.cases[0][1]:g}".replace(".", "p")
    reads = (reg.claims[c0].value or {}).get("readings", []) if c0 in reg.claims else []
    n_irr = sum(1 for k in reads if k == 0)
    out["clearance_ladder_irregular"] = (f"{n_irr} of its {len(reads)} tolerances" if reads else none)
    out["clearance_ladder_case"] = f"{s.cases[0][0]:g} Hz / {s.cases[0][1]:g} mm"
    return out


# --------------------------------------------------------------------------- the parameter tables
def key_parameter_rows(res: StudyResult) -> tuple[dict, list]:
    """``(run, extra)`` for :func:`robolib.book.notebook.parameter_table`: the parameters a reader meets first (the
    integrator's settings and every other value are on the evidence page, :func:`parameter_rows`)."""
    keys = ("clearance_joint", "clearance_mm", "contact_law", "detail_frequency", "verdict_cases",
            "freq_sweep_clearance_mm", "clearance_sweep_frequency")
    return {k: res.params[k] for k in keys}, []


def parameter_rows(res: StudyResult) -> list:
    """Every setting of the run besides the parameter file and the study parameters: ``(name, value, note)`` rows."""
    s = res.data["settings"]
    return [
        ("integrator", "Dormand–Prince 5(4), adaptive, compiled step loop with 4th-order dense output",
         "samples and contact events come from the dense output"),
        ("rtol, atol", f"{s.rtol:g}, {s.atol:g}", "from the parameter file (solver block): the converged default"),
        ("Baumgarte alpha = beta", f"{s.alpha:g}", "1/s, from the parameter file"),
        ("drive motion", "E(t) = E0 + (0, a sin 2πft); base angles of the driven chains by inverse kinematics",
         "E0 = centroid of A1, A2, A3; a = motion.stroke_amplitude"),
        ("gearbox anchor", "lever-tip position at t = 0 (E = E0)", "m"),
        ("initial state", "ideal state at t = 0, journal centred in its bearing", "-"),
        ("Poincaré sampling", f"once per drive period after {s.n_transient} periods, {s.n_poincare} samples", "-"),
        ("period test", f"lags 1..min(8, N/3); tolerance {PERIOD_TOL_FACTOR:g} × noise (no floor)",
         "normalised units e/c and ė/(cω); noise = one return at rtol vs rtol/100"),
        ("verdict tolerances", "; ".join(f"{f:g} Hz / {c:g} mm: " + ", ".join(f"{r:g}" for r in s.rtols[(f, c)])
                                         for (f, c) in s.cases), "rtol per case, atol = rtol × ATOL/RTOL (1/1000)"),
        ("Lyapunov", f"{s.n_transient} transient periods, {LY.N_ALIGN} periods to align the tangent, then "
         f"max({s.lyapunov_periods_min}, {s.lyapunov_span:g} s × f) periods measured, the tangent renormalised "
         f"{LY.PER_PERIOD} times per period; seed {s.seed}",
         "tangent-linear flow with the saltation of the onset-speed memory; on the DAE read in the chart (e, ė)"),
        ("tolerance-ladder rule", f"slope of log misfit_k vs log rtol ≥ {N.LADDER_MIN_SLOPE:g} over the last "
         f"{N.LADDER_FIT} rtol, shorter lags ≥ {N.LADDER_GAP:g}; a 'limit' verdict is repeated with atol × "
         f"{verdicts.REPLICATE_ATOL:g}", "nonlinear.ladder_verdict: period-k in the limit of exact integration"),
        ("Lyapunov uncertainty", f"batch means over {LY.BATCHES} batches of whole two-period units, plus the change "
         f"to the ladder's tightest rung", "1/s"),
        ("slider-crank clearances", ", ".join(f"{c:g}" for c in s.sc_cs_mm), "mm (data/gearshift/slider_crank.yaml)"),
        ("Explore grid", f"c = {', '.join(f'{c:g}' for c in s.explore_c)} mm; "
         f"f = {', '.join(f'{f:g}' for f in s.explore_f)} Hz", "0.5 s runs from the ideal state"),
    ]


def criteria_rows() -> list:
    """The constants of the claims' criteria, fixed before the runs: ``(name, value, meaning)`` rows."""
    C, V, S = experiments, verdicts, bifurcation
    return [
        ("TAU_AGREE, DAE_AGREE", f"{C.TAU_AGREE:g} N m, {C.DAE_AGREE:g}", "torque and DAE checks"),
        ("LIN_TOL", f"{C.LIN_TOL:g}", "linearised error formula vs direct (relative; position, velocity, acceleration)"),
        ("DRIFT_GROWTH, DRIFT_FACTOR", f"{C.DRIFT_GROWTH:g}, {C.DRIFT_FACTOR:g}", "Baumgarte stabilisation"),
        ("DP_BAND", f"{C.DP_BAND[0]:g}–{C.DP_BAND[1]:g} c", "end-point wander of the detailed run"),
        ("JOLT_V, JOLT_A", f"{C.JOLT_V:g}, {C.JOLT_A:g}", "impact peaks of the velocity and acceleration errors "
         "over their median in continuous contact"),
        ("EX2_SAME, EX3_SPAN", f"{C.EX2_SAME:g}, {C.EX3_SPAN:g} s", "chapter 6's exercises: \"about the same\" "
         "error of the two placements (relative); the span of the contact-law comparison"),
        ("CONV_REL, CONV_EPISODES", f"{C.CONV_REL:g}, {C.CONV_EPISODES}", "convergence of the detailed run"),
        ("REPLICATE_ATOL, STEPWISE_FALL", f"{V.REPLICATE_ATOL:g}, {V.STEPWISE_FALL:g}",
         "replicate of a 'limit' verdict; the step-by-step rule it is compared with"),
        ("LYAP_REL_PERIODIC, LYAP_REL_IRREGULAR, ALPHA_HIGH", f"{orbit_study.LYAP_REL_PERIODIC:g}, "
         f"{orbit_study.LYAP_REL_IRREGULAR:g}, {orbit_study.ALPHA_HIGH:g} 1/s", "largest relative uncertainty of a "
         "periodic and of an irregular case's exponent; the DAE's second Baumgarte factor"),
        ("NEAR_PERIOD, STORE_AGREE", f"{S.NEAR_PERIOD:g}, {S.STORE_AGREE:g}",
         "sweep reading and stored-sweep check (normalised units)"),
        ("BIF_MAX_STEP, BIF_MIN_CLEARANCES, BIF_MIN_SAMPLES", f"{S.BIF_MAX_STEP:g} Hz, {S.BIF_MIN_CLEARANCES}, "
         f"{S.BIF_MIN_SAMPLES}", "resolution of the bifurcation diagrams"),
        ("SHOOT_TOL_FACTOR, MOTION_FACTOR", f"{orbit_study.O.SHOOT_TOL_FACTOR:g}, {orbit_study.O.MOTION_FACTOR:g}",
         "shooting tolerance (× one-return noise); the motion converges within this × the tolerance"),
        ("REFINE_DIVISOR, DISTANCE_FALL", f"{orbit_study.REFINE_DIVISOR:g}, {orbit_study.DISTANCE_FALL:g}",
         "the attractor's second rung (rtol ÷ this); the orbit's accuracy falls at least this many times there"),
        ("STABILITY_MARGIN, STEP_SPREAD_FACTOR, MU_RESOLVED_FACTOR",
         f"{orbit_study.STABILITY_MARGIN:g}, {orbit_study.O.STEP_SPREAD_FACTOR:g}, {orbit_study.O.MU_RESOLVED_FACTOR:g}",
         "stable: max|μ| + error < 1 − margin; the error's second stencil; a reading below this × error is a bound"),
        ("DIRECT_AMPLITUDE, DIRECT_RETURNS", f"{orbit_study.DIRECT_AMPLITUDE:g}, {orbit_study.DIRECT_RETURNS}",
         "direct route at the branch's loss of stability (scaled perturbation, periods)"),
        ("BRANCH_DS, BRANCH_P_TOL, BRANCH_F_MAX", f"{orbit_study.BRANCH_DS:g} Hz, {orbit_study.BRANCH_P_TOL:g} Hz, "
         f"{orbit_study.BRANCH_F_MAX:g} Hz", "continuation step, bracket of a located crossing, end of the branch"),
        ("SC_ACC_REL, SC_RATIO, SC_SLOPE_VEL, SC_SLOPE_POS", f"{C.SC_ACC_REL:g}, {C.SC_RATIO[0]:g}–{C.SC_RATIO[1]:g}, "
         f"{C.SC_SLOPE_VEL:g}, {C.SC_SLOPE_POS[0]:g}–{C.SC_SLOPE_POS[1]:g}",
         "slider-crank"),
    ]


# --------------------------------------------------------------------------- notebook helpers
def detail_animation(res: StudyResult):
    """The animation of the detailed run's last drive period (for :func:`robolib.book.notebook.animation_html`)."""
    s = res.data["settings"]
    return figures.detail_animation(res.data["detail"], s.joints, s.n_frames, 1.0 / s.detail_frequency)


def explore_panel(res: StudyResult):
    """The Explore panel: journal orbit and normal force of short runs over the grid of clearance and frequency.

    Live (JupyterLab), the clearance spans 0.01 mm to just below the journal radius (the model's bound; a log
    slider) and the drive frequency 1-12 Hz, the range of the chapter's frequency sweep (the model sets no
    bound)."""

    s, runs = res.data["settings"], res.data["explore_runs"]

    def draw(clearance_mm, frequency):
        r = runs.get((frequency, clearance_mm)) or experiments.explore_run(s.base, (frequency, clearance_mm))
        return figures.explore_figure(r, clearance_mm, frequency)

    radius_mm = s.base["clearance"]["journal_radius"] * 1e3
    box = explore(draw, {"clearance_mm": s.explore_c, "frequency": s.explore_f},
                   labels={"clearance_mm": "c [mm]", "frequency": "f [Hz]"},
                   initial={"clearance_mm": s.explore_c[len(s.explore_c) // 2], "frequency": s.explore_f[0]},
                   ranges={"clearance_mm": (0.01, 0.99 * radius_mm, "log"), "frequency": (1.0, 12.0, 0.1)},
                   caption="Half a second from the ideal state (journal centred) at the chosen clearance and drive "
                           "frequency: the journal's path in its bearing, in units of the clearance (left), and the "
                           "normal contact force (right, symmetric-log axis), with the shares of free flight and the "
                           "number of impacts in the title.",
                   alt="Two panels: left, the journal centre's path inside the clearance circle, scaled by the clearance; "
                       "right, the normal contact force against time on a symmetric-log axis, spikes at impacts and "
                       "plateaus in continuous contact, for the chosen clearance and drive frequency")
    return number_caption(box, "Explore panel", "6.1")


# --------------------------------------------------------------------------- exercises
__all__ = ["TABLE_CAPTIONS", "EVIDENCE_TABLES", "EVIDENCE_FIGURES", "ORBITS_FIGURES", "BIFURCATION_FIGURES", "PARAMETERS", "run", "glue_values", "reading_values", "key_parameter_rows", "parameter_rows",
           "criteria_rows", "detail_animation", "explore_panel"]
