"""The study of the chapter *Redundant planar robot: derivation*: the sympy derivation checked against robolib.

:func:`run` takes the chapter's parameters (the notebook's
``parameters`` cell), runs every experiment of the chapter and returns a
:class:`robolib.book.result.StudyResult` with its claims, tables, figures and data:

0. the Udwadia–Kalaba equation on a pendulum (the lecture's worked example);
1. the symbolic identities of the derivation (end-effector mass, preload direction);
2. the sympy subsystem model and constraint layers against robolib's kernels
   (:func:`~robolib.studies.redundant_derivation.experiments.kernel_errors`, ``layer_errors``);
3. every route to the constrained accelerations and bearing reactions
   (``route_deviations``), with the caution that the sequential layer-2 term is
   not the bearing reaction;
4. the redundancy resolution: minimum-norm torques, preload direction and the
   reactions per unit preload (``redundancy_checks``);
5. the time integration: energy in free motion, constraint drift along the circle
   (``integration_runs``).

The criteria of the claims are the named tolerances below, fixed before the results.

>>> import inspect
>>> list(inspect.signature(run).parameters)
['data_file', 'n_checks', 't_free', 't_drift', 'seed', 'quick']
>>> effective_settings(300, 3.0, 10.0, quick=True)
(30, 1.5, 5.0)
>>> PARAMETERS["t_drift"].valid_text(), PARAMETERS["n_checks"].valid_text()
('a number >= 0.004 s', 'an integer >= 1')
"""

from __future__ import annotations

import math
import textwrap
from functools import partial

import numpy as np
from matplotlib.figure import Figure

from robolib.book.claims import ClaimsRegister
from robolib.book.notebook import explore, markdown_table, number_caption, parameter_table, yaml_parameter_rows
from robolib.book.result import Stages, StudyResult
from robolib.book.text import superscript
from robolib.core import constraints
from robolib.core.drawing import FIGURE_WIDTH
from robolib.core.errors import ParameterError
from robolib.core.params import Parameter, declare_parameters
from robolib.redundant import symbolic as sym
from robolib.redundant.drawing import draw_base, draw_robot, joint_points, redundant_mechanism
from robolib.redundant.dynamics import (
    forward_dynamics,
    initial_state,
    inverse_dynamics,
    preload_direction,
    preload_reactions,
    reference_motion,
)
from robolib.redundant.model import (
    BAUMGARTE,
    CIRCLE_PERIOD,
    CIRCLE_RADIUS,
    DEFAULT_ELBOWS,
    DRIFT_BOUND,
    DT,
    load,
)
from robolib.studies.redundant_derivation import experiments as checks

STUDY = "redundant_derivation"
#: Seed document the chapter studies (the patent of the redundant robot).
SOURCE = "000"

# ---- criteria of the claims, fixed before the results -------------------------------------------
#: Largest sympy-vs-robolib difference that counts as round-off (SI units of each entry).
ROUNDOFF = 1e-10
#: Largest relative difference between two routes to the same accelerations / reactions.
AGREE = 1e-9
#: N, a difference this large is not round-off.
DIFFERS = 1e-3
#: Largest relative kinetic-energy error of the free-motion runs (RK4 at the default step).
KE_TOL = 1e-6
#: m, largest tracking error along the circle under the friction-free torques.
TRACK_TOL = 1e-8
#: m, the free-motion run must travel at least this far to test anything.
MIN_TRAVEL = 0.05
#: m, the free motion "passes a stretched chain" if it comes this close to ``|p - O_i| = 2 l``; the energy errors must
#: grow by at least STRETCH_GROWTH across that passage.
STRETCH_GAP = 1e-3
STRETCH_GROWTH = 10.0
#: Band of the energy-error ratio (default step / half step) of fourth-order RK4 (ideal 16).
STEP_RATIO_BAND = (8.0, 32.0)
#: Smallest ratio of the unstabilised drift's maximum over the second half of the driven run to
#: that over the first half that counts as growing.
MIN_GROWTH = 2.0
#: Largest ratio of the stabilised drift's maximum over the second half of the driven run to that over the
#: first half that counts as level (not grown by more than 10 %).
LEVEL_MAX = 1.1

# ---- settings of the experiments ------------------------------------------------------------------
#: m, start of the free motion relative to the base centroid; m/s, its end-effector velocity.
FREE_START = (0.02, -0.01)
FREE_VELOCITY = (0.15, 0.1)
#: N m, random motor torques of the identity check are uniform in [-TAU_RANGE, TAU_RANGE].
TAU_RANGE = 0.5
#: Caps of a quick run: random states, free-motion and driven-motion durations (s). The driven
#: run stays long enough (5 s) for the unstabilised drift to outgrow the stabilised one
#: (they cross near 3 s at the default step), so the quick run tests what the chapter says; the free run
#: (1.5 s) passes the stretched pose of chain 1 (near 1.3 s), so it tests ``rd_ke_stretch`` too.
QUICK_N_CHECKS = 30
QUICK_T_FREE = 1.5
QUICK_T_DRIFT = 5.0
#: Times along one period of the reference circle at which :func:`check_model` solves the inverse kinematics.
MODEL_CHECK_TIMES = 64

# ---- the Explore panel ------------------------------------------------------------------------------
#: m per N, length of the bearing-reaction arrows.
FORCE_SCALE = 0.02
#: Precomputed grid of the panel (end-effector offset from the centroid in mm, preload in N m);
#: it opens at zero offset and a preload of EXPLORE_INITIAL_PRELOAD (a preload of zero loads no bearing: nothing to see),
#: a value inside the slider's range, not at its end, so that the reader can move it both ways.
EXPLORE_GRID = {"dx_mm": [-90.0, -45.0, 0.0, 45.0, 90.0], "dy_mm": [-90.0, -45.0, 0.0, 45.0, 90.0],
                "preload": [-2.0, 0.0, 1.0, 2.0]}
QUICK_EXPLORE_GRID = {"dx_mm": [-60.0, 0.0, 60.0], "dy_mm": [-60.0, 0.0, 60.0], "preload": [0.0, 1.0, 2.0]}
#: N m, the preload the panel opens at (a value of both grids, between their smallest and largest).
EXPLORE_INITIAL_PRELOAD = 1.0
EXPLORE_LABELS = {"dx_mm": "Δx [mm]", "dy_mm": "Δy [mm]", "preload": "preload p [N m]"}
#: N m, the live panel's preload range (+-): the model sets no bound (see explore_panel).
EXPLORE_PRELOAD_MAX = 5.0
#: m, margin of the panel's axes around everything any of its figures draws.
EXPLORE_MARGIN = 0.03
#: Exercise 2: circle time (s) and preload (N m).
EXERCISE_TIME, EXERCISE_PRELOAD = 0.7, 5.0
#: N m, motor torques of exercises 3 and 4; how many admissible accelerations exercise 4 tries (seed 0).
EXERCISE_TAU = (0.2, -0.1, 0.15)
EXERCISE_TRIALS = 5


# ---- parameters ----------------------------------------------------------------------------------
#: The study's parameters (the notebook's ``parameters`` cell) with their units and valid values;
#: :func:`run` checks every call against them before any work. A run shorter than one
#: RK4 step ``redundant.DT`` would not run at that step (the step-halving claim compares ``DT`` with
#: ``DT / 2``), so both durations start there.
PARAMETERS = {
    "data_file": Parameter("redundant/default.yaml", "robot parameter file (SI units, see its comments)", kind="file"),
    "n_checks": Parameter(300, "random states at which the derivation is compared with robolib", kind="integer",
                          low=1),
    "t_free": Parameter(3.0, "free motion (zero torque, no friction) that checks energy conservation", unit="s",
                        low=DT),
    "t_drift": Parameter(10.0, "run along the reference circle that checks the constraint drift", unit="s", low=DT),
    "seed": Parameter(4, "seed of every random draw in this chapter", kind="integer", low=0),
    "quick": Parameter(False, "True: fewer checks and a short run, for tests", kind="boolean"),
}


def check_model(robot, data_file: str) -> None:
    """Raise :class:`~robolib.ParameterError` if the robot of ``data_file`` cannot run the chapter's motions.

    Computed up front (inverse kinematics only): the reference circle at
    ``MODEL_CHECK_TIMES`` times over one period and the free-motion start
    ``centroid + FREE_START`` must be reachable with ``DEFAULT_ELBOWS``.

    >>> check_model(load(), "redundant/default.yaml")
    """
    t = np.linspace(0.0, CIRCLE_PERIOD, MODEL_CHECK_TIMES, endpoint=False)
    try:
        reference_motion(robot, t)
    except ValueError as exc:  # UnreachableError / SingularityError
        raise ParameterError(f"data_file = {data_file!r}: the reference circle (radius {CIRCLE_RADIUS:g} m about the "
                             f"base centroid, inverse kinematics at {MODEL_CHECK_TIMES} times) is not reachable by "
                             f"this robot: {exc}") from None
    try:
        initial_state(robot, robot.centroid + np.asarray(FREE_START), FREE_VELOCITY)
    except ValueError as exc:
        raise ParameterError(f"data_file = {data_file!r}: the free-motion start (centroid + ({FREE_START[0]:g}, "
                             f"{FREE_START[1]:g}) m, inverse kinematics) is not reachable by this robot: {exc}") from None


def effective_settings(n_checks: int, t_free: float, t_drift: float, quick: bool) -> tuple[int, float, float]:
    """``(n_checks, t_free, t_drift)`` of the run: the parameters, capped by the ``QUICK_*`` values if ``quick``."""
    if quick:
        return min(n_checks, QUICK_N_CHECKS), min(t_free, QUICK_T_FREE), min(t_drift, QUICK_T_DRIFT)
    return n_checks, float(t_free), float(t_drift)


def settings_rows() -> list[tuple[str, object, str]]:
    """The fixed settings of the chapter as ``(name, value, unit / meaning)`` rows of its parameter table."""
    r = checks
    return [
        ("redundant.BAUMGARTE", BAUMGARTE, "1/s, Baumgarte gains (alpha, beta) of the stabilised runs"),
        ("redundant.DT", DT, "s, fixed RK4 step of redundant.simulate"),
        ("integrator", "rk4", "fixed-step classical Runge–Kutta (redundant.simulate)"),
        ("redundant.DEFAULT_ELBOWS", DEFAULT_ELBOWS, "elbow sign of b_i per chain (inverse kinematics)"),
        ("reference circle", f"radius {CIRCLE_RADIUS:g} m, period {CIRCLE_PERIOD:g} s",
         "about the base centroid, counter-clockwise (driven run and identity checks)"),
        ("free-motion start", f"centroid + ({FREE_START[0]:g}, {FREE_START[1]:g}) m, "
         f"v = ({FREE_VELOCITY[0]:g}, {FREE_VELOCITY[1]:g}) m/s", "initial state of the energy check (zero torque, no friction)"),
        ("random states", f"angles U[-π, π], rates U[-{r.RATE_RANGE:g}, {r.RATE_RANGE:g}], accelerations "
         f"U[-{r.ACC_RANGE:g}, {r.ACC_RANGE:g}], positions U[-{r.POSITION_RANGE:g}, {r.POSITION_RANGE:g}]",
         "rad, rad/s or m/s, rad/s² or m/s², m; derivation-vs-kernel checks"),
        ("random torques", f"U[-{TAU_RANGE:g}, {TAU_RANGE:g}]", "N m, motor torques of the identity check"),
        ("worked example", ", ".join(f"{k} = {v:g}" for k, v in r.PENDULUM.items()),
         "pendulum of the lecture (kg, m/s², m, rad, rad/s)"),
        ("exercises 3 and 4", f"t = {EXERCISE_TIME:g} s on the circle, tau = {EXERCISE_TAU}",
         "s, N m; exercise 2 adds the preload p = " + f"{EXERCISE_PRELOAD:g} N m"),
        ("quick caps", f"n_checks ≤ {QUICK_N_CHECKS}, t_free ≤ {QUICK_T_FREE:g} s, t_drift ≤ {QUICK_T_DRIFT:g} s",
         "applied when quick is true"),
    ]


def criteria_rows() -> list[tuple[str, str, str]]:
    """The constants of the claims' criteria, fixed before the runs: ``(name, value, claims that use it)`` rows."""
    lo, hi = STEP_RATIO_BAND
    return [
        ("ROUNDOFF", f"{ROUNDOFF:g}", "rd_pendulum, rd_err_M, rd_err_C, rd_err_h, rd_err_le, rd_err_layers (SI units of each entry)"),
        ("AGREE", f"{AGREE:g}", "rd_dev_*, rd_layer2_split, rd_n_routes, rd_tau_routes, rd_tau_min_perp, rd_preload_reactions"),
        ("DIFFERS", f"{DIFFERS:g} N", "rd_layer2_not_reaction: clearly not round-off"),
        ("MIN_TRAVEL", f"{MIN_TRAVEL:g} m", "rd_travel"),
        ("KE_TOL", f"{KE_TOL:g}", "rd_ke_stab, rd_ke_raw (relative energy error)"),
        ("STEP_RATIO_BAND", f"{lo:g}–{hi:g}", "rd_ke_step: error(dt) / error(dt/2) of a fourth-order method"),
        ("redundant.DRIFT_BOUND", f"{DRIFT_BOUND:g} m", "rd_drift_stab"),
        ("MIN_GROWTH", f"{MIN_GROWTH:g}", "rd_drift_raw_grows"),
        ("LEVEL_MAX", f"{LEVEL_MAX:g}", "rd_drift_stab_level"),
        ("TRACK_TOL", f"{TRACK_TOL:g} m", "rd_track"),
    ]


#: Rows of the lecture's short table of key parameters (names of rows of the full table): the robot's sizes
#: and its reference motion. Every parameter is on the evidence page.
KEY_ROWS = ("link_length", "active.mass", "passive.mass", "end_effector_mass", "base", "reference circle")
#: Tables of the chapter's evidence page (numbered S1.. in this order where they carry a number): the checks of the
#: derivation against robolib, the constants of the criteria and every parameter. The lecture shows ``key_parameters``.
EVIDENCE_TABLES = ("kernels", "layers", "routes", "redundancy", "criteria", "parameters")
#: Figures of the chapter's evidence page: the integration runs (energy error, constraint drift). The lecture shows
#: ``mechanism``.
EVIDENCE_FIGURES = ("energy",)


def key_parameter_table(data_file: str) -> str:
    """The lecture's short table of the :data:`KEY_ROWS` (Markdown), from the parameter file and the fixed settings."""
    rows = {r[0]: r for r in [*yaml_parameter_rows(data_file), *settings_rows()]}
    return parameter_table(extra=[rows[k] for k in KEY_ROWS], title="Key parameters of the robot and its runs")


# ---- the claims, experiment by experiment --------------------------------------------------------
def _holds_text(ok: bool) -> str:
    return "holds" if ok else "does not hold"


def pendulum_text(e: float) -> str:
    """The prose of claim ``rd_pendulum`` for the largest difference ``e`` (rad/s², N) from the textbook pendulum.

    >>> pendulum_text(0.0)
    'to round-off: the largest difference is below 10⁻¹⁰'
    >>> pendulum_text(2e-6)
    'only to 2.0e-06 (rad/s², N), more than round-off'
    """
    if e < ROUNDOFF:
        return "to round-off: the largest difference is below 10" + superscript(round(math.log10(ROUNDOFF)))
    return f"only to {e:.1e} (rad/s², N), more than round-off"


def claim_pendulum(claims: ClaimsRegister, ex: dict) -> None:
    """The worked example (``ex`` of :func:`~robolib.studies.redundant_derivation.experiments.pendulum_example`)."""
    e = max(ex["ddtheta"], ex["tension"], ex["across_rod"])
    claims.claim("rd_pendulum", "for a point held on a circle (a pendulum in x, y) the Udwadia–Kalaba equation gives the "
                 "textbook angular acceleration -(g/l) sin theta and a constraint force along the rod of magnitude "
                 "m (g cos theta + l omega^2)", value=e,
                 criterion=f"largest difference < {ROUNDOFF:g} (rad/s², N)", holds=e < ROUNDOFF,
                 text=pendulum_text(e))


def claim_derivation(claims: ClaimsRegister, me_ok: bool, err: dict, layers: dict) -> None:
    """Steps 1–3: the end-effector mass identity, the kernels (``err``) and the constraint layers (``layers``)."""
    claims.claim("rd_me_identity", "the end-effector mass adds m_e J_e^T J_e to chain 1's mass matrix (symbolic identity)",
                 answers="000.c1", value=bool(me_ok), criterion="M_1 - M_2 - m_e J_e^T J_e simplifies to the zero matrix",
                 holds=me_ok, text=_holds_text(me_ok))
    for k, what in (("M", "mass matrices M_i"), ("C", "Coriolis matrices C_i"), ("h", "velocity forces C_i dq_i")):
        claims.claim(f"rd_err_{k}", f"the sympy {what} equal robolib's hand-written kernels to round-off",
                     answers="000.c1", value=err[k], criterion=f"largest difference < {ROUNDOFF:g}",
                     holds=err[k] < ROUNDOFF, text=f"{err[k]:.1e}")
    claims.claim("rd_err_le", "the sympy M_i, C_i satisfy the Lagrange–Euler equations of T_i (residual at random accelerations)",
                 answers="000.c1", value=err["le"], criterion=f"largest residual < {ROUNDOFF:g} N, N m",
                 holds=err["le"] < ROUNDOFF, text=f"{err['le']:.1e} N, N m")
    e = max(layers.values())
    claims.claim("rd_err_layers", "both constraint layers (A1, b1, A2, b2) of the symbolic system equal robolib's",
                 value=e, criterion=f"largest difference < {ROUNDOFF:g}", holds=e < ROUNDOFF, text=f"{e:.1e}")


def claim_routes(claims: ClaimsRegister, dev: dict) -> None:
    """The identity check: every route to the accelerations and reactions (``dev`` of ``route_deviations``)."""
    for k, what in (("sequential", "the patent's two-layer U–K route"), ("multipliers", "the Schur-complement multipliers"),
                    ("kkt", "the KKT system"), ("fast", "robolib's forward_dynamics")):
        claims.claim(f"rd_dev_{k}", f"{what} reproduces the single-step U–K accelerations (relative difference)",
                     answers="000.c2" if k == "sequential" else None, value=dev[k],
                     criterion=f"largest relative difference < {AGREE:g}", holds=dev[k] < AGREE, text=f"{dev[k]:.1e}")
    claims.claim("rd_dev_reactions", "the bearing reactions of forward_dynamics equal the layer-2 multipliers (Schur and KKT)",
                 answers="000.c2", value=dev["reactions"], criterion=f"largest difference < {AGREE:g} N",
                 holds=dev["reactions"] < AGREE, text=f"{dev['reactions']:.1e}")
    claims.claim("rd_layer2_split", "the layer-2 correction of the sequential formula is the bearing reaction plus the "
                 "change of the closure forces, A_2^T lambda_2 + A_1^T (lambda_1 - lambda_1'), lambda_1' the multipliers "
                 "of the closure alone", value=dev["layer2_split"], criterion=f"largest difference < {AGREE:g} N",
                 holds=dev["layer2_split"] < AGREE, text=f"{dev['layer2_split']:.1e} N")
    claims.claim("rd_layer2_not_reaction", "the layer-2 correction of the sequential formula differs from the bearing "
                 "reaction A_2^T lambda_2 by more than round-off",
                 answers="000.c2", value=dev["layer2"], criterion=f"largest difference > {DIFFERS:g} N (clearly not round-off)",
                 holds=dev["layer2"] > DIFFERS, text=f"{dev['layer2']:.2g} N")


def claim_redundancy(claims: ClaimsRegister, null_ok: bool, lami_ok: bool, red: dict) -> None:
    """The redundancy resolution: the symbolic preload identities and ``red`` of ``redundancy_checks``."""
    ok = null_ok and lami_ok
    claims.claim("rd_null_symbolic", "sympy: the cross product of J_a's columns is annihilated by J_a^T and equals "
                 "n_i = sin b_i sin(phi_k - phi_j) (Lami's theorem)", value=bool(ok),
                 criterion="J_a^T n and n - n_Lami expand to zero", holds=ok, text=_holds_text(ok))
    n_err = max(red["n"], red["n_sympy"])
    claims.claim("rd_n_routes", "the closed-form (Lami) and sympy preload directions equal inverse_dynamics' SVD null vector",
                 value=n_err, criterion=f"largest difference < {AGREE:g}", holds=n_err < AGREE, text=f"{n_err:.1e}")
    claims.claim("rd_tau_routes", "the task-space minimum-norm torques plus preload equal inverse_dynamics' torques "
                 "(every friction model, preload 0 and 1 N m)", value=red["tau"], criterion=f"largest difference < {AGREE:g} N m",
                 holds=red["tau"] < AGREE, text=f"{red['tau']:.1e} N m")
    claims.claim("rd_tau_min_perp", "the minimum-norm torques have no preload component (n . tau_min = 0)",
                 value=red["tau_min_perp"], criterion=f"largest |n . tau_min| < {AGREE:g} N m",
                 holds=red["tau_min_perp"] < AGREE, text=f"{red['tau_min_perp']:.1e} N m")
    claims.claim("rd_preload_reactions", "the bearing reactions per unit preload are the passive links' axial forces "
                 "n_i / (l sin b_i) e(phi_i)", value=red["F"], criterion=f"largest difference < {AGREE:g} N",
                 holds=red["F"] < AGREE, text=f"to round-off (largest difference from the closed form {red['F']:.1e} N)")


def claim_integration(claims: ClaimsRegister, runs: dict) -> None:
    """The time integration (``runs`` of ``integration_runs``): travel, energy, drift, tracking."""
    stab, raw = checks.STABILISED, checks.UNSTABILISED
    ke, travel, track = runs["ke_rel"], runs["travel"], runs["track"]
    claims.claim("rd_travel", "the free-motion run is not trivial: the end-effector travels", value=travel,
                 criterion=f"travel > {MIN_TRAVEL * 1e3:g} mm", holds=travel > MIN_TRAVEL, text=f"{travel * 1e3:.0f} mm")
    claims.claim("rd_ke_stab", "free motion, Baumgarte-stabilised: the kinetic energy is conserved (largest relative error)",
                 value=ke[stab], criterion=f"max |T/T0 - 1| < {KE_TOL:g}", holds=ke[stab] < KE_TOL, text=f"{ke[stab]:.1e}")
    claims.claim("rd_ke_raw", "free motion, unstabilised: the kinetic energy is conserved (largest relative error)",
                 value=ke[raw], criterion=f"max |T/T0 - 1| < {KE_TOL:g}", holds=ke[raw] < KE_TOL, text=f"{ke[raw]:.1e}")
    above = ke[stab] > ke[raw]
    ratio = ke[stab] / ke[raw] if ke[raw] > 0 else math.inf
    claims.claim("rd_ke_order", "the stabilised run's largest energy error lies above the unstabilised run's largest",
                 value=ratio, criterion="ratio of the largest relative energy errors, stabilised / unstabilised > 1", holds=above,
                 text=(f"above it, by a factor {ratio:.2g}" if above
                       else f"below it, by a factor {ke[raw] / ke[stab] if ke[stab] > 0 else math.inf:.2g}"))
    lo, hi = STEP_RATIO_BAND
    step = runs["ke_step"]
    claims.claim("rd_ke_step", "the unstabilised energy error is the RK4 error: halving the step divides it by about 16 "
                 "(fourth order)", value=step, criterion=f"{lo:g} < error(dt) / error(dt/2) < {hi:g}",
                 holds=lo < step < hi, text=f"{step:.3g}")
    st = runs["stretch"]
    statement = ("the energy errors of both free runs stay well below their largest values until the end-effector "
                 "nears a stretched chain (|p - O_i| = 2 l, the links of chain i aligned: a singular pose of the chain)")
    criterion = (f"the free motion comes within {STRETCH_GAP * 1e3:g} mm of a stretched chain, and in both runs the "
                 f"largest energy error more than {checks.STRETCH_LEAD:g} s before that is at least "
                 f"{STRETCH_GROWTH:g} times below the run's largest")
    if st["gap"] > STRETCH_GAP or st["t"] > st["t_end"] - 0.1:
        claims.claim_not_computed("rd_ke_stretch", statement, criterion=criterion,
                                  reason=f"the {st['t_end']:g} s free run does not pass a stretched chain")
    else:
        worst = max(st["before"].values())
        claims.claim("rd_ke_stretch", statement, value=worst, criterion=criterion,
                     holds=worst < 1 / STRETCH_GROWTH,
                     text=f"chain {st['chain']} comes within {st['gap'] * 1e3:.1g} mm of full stretch at "
                          f"t = {st['t']:.2f} s, and until t = {st['t'] - checks.STRETCH_LEAD:.2f} s both energy "
                          f"errors stay at least {1 / worst:.0f} times below their largest values")
    d_stab, d_raw = runs["drift"][stab], runs["drift"][raw]
    claims.claim("rd_drift_stab", "driven along the circle with Baumgarte stabilisation, the constraint drift stays below "
                 "redundant.DRIFT_BOUND", value=d_stab, criterion=f"max |Phi| < {DRIFT_BOUND:g} m",
                 holds=d_stab < DRIFT_BOUND, text=f"{d_stab:.1e} m")
    claims.claim("rd_drift_raw", "without stabilisation the drift is larger than with it", value=d_raw,
                 criterion="max |Phi| unstabilised > max |Phi| stabilised", holds=d_raw > d_stab, text=f"{d_raw:.1e} m")
    g = runs["drift_growth"][raw]
    claims.claim("rd_drift_raw_grows", "without stabilisation the drift grew during the driven run: its largest value over "
                 "the second half of the run is a multiple of that over the first half",
                 value=g, criterion=f"max |Phi| over the second half of the run > {MIN_GROWTH:g} x that over the first half",
                 holds=g > MIN_GROWTH, text=f"{g:.2g} times")
    g = runs["drift_growth"][stab]
    claims.claim("rd_drift_stab_level", "with Baumgarte stabilisation the drift stayed level during the driven run: its "
                 "largest value over the second half of the run is no larger, within 10 %, than that over the first half",
                 value=g, criterion=f"max |Phi| over the second half of the run <= {LEVEL_MAX:g} x that over the first half",
                 holds=g <= LEVEL_MAX, text=f"{g:.2f} times")
    claims.claim("rd_track", "under the friction-free inverse-dynamics torques the stabilised run stays on the circle",
                 value=track, criterion=f"largest tracking error < {TRACK_TOL:g} m", holds=track < TRACK_TOL,
                 text=f"{track:.1e} m")


def claim_exercise(claims: ClaimsRegister, ex2: dict) -> None:
    """Exercise 2 (``ex2`` of :func:`preload_exercise`): the preload moves nothing and loads the bearings as derived."""
    dev = float(np.abs(ex2["change"] - ex2["predicted"]).max())
    ok = dev < AGREE and ex2["ddq_change"] < AGREE
    lo, hi = ex2["change"].min(), ex2["change"].max()
    claims.claim("rd_ex2_preload", f"exercise 2: adding {EXERCISE_PRELOAD:g} n to the circle-tracking torques at "
                 f"t = {EXERCISE_TIME:g} s leaves the accelerations unchanged and changes each bearing load by "
                 f"{EXERCISE_PRELOAD:g} |dF_i/dp| = {EXERCISE_PRELOAD:g} |n_i| / (l |sin b_i|) (the range is the text)",
                 value=dev, criterion=f"largest ||dF_i| - p |dF_i/dp|| < {AGREE:g} N and largest change of ddq < {AGREE:g}",
                 holds=ok, text=f"{lo:.0f}–{hi:.0f} N")


def claim_gauss(claims: ClaimsRegister, ex4: dict) -> None:
    """Exercise 4 (``ex4`` of :func:`gauss_exercise`): Gauss's principle at a state of the circle."""
    ok = ex4["virtual_work"] < AGREE and ex4["min_increase"] > 0.0
    claims.claim("rd_ex4_gauss", "exercise 4 (Gauss's principle): the constraint force does no work on the accelerations "
                 "the constraints leave free, so every other admissible acceleration has a larger Gauss function Z",
                 value=ex4["virtual_work"], criterion=f"largest |N^T Q_c| < {AGREE:g} N and every increase of Z > 0",
                 holds=ok, text=f"{ex4['virtual_work']:.1e} N")


# ---- tables and figures ---------------------------------------------------------------------------
def kernel_table(err: dict, n_checks: int) -> str:
    """**Table S1**: the sympy subsystem model against robolib's kernels (Markdown)."""
    return (f"**Table S1** — The sympy derivation against robolib's hand-written kernels: largest difference over "
            f"{n_checks} random states per chain.\n\n" + markdown_table(
                ["quantity", "largest difference, sympy vs robolib", "unit"],
                [["M_i vs `subsystem_mass_matrix`", f"{err['M']:.1e}", "kg, kg m, kg m²"],
                 ["C_i vs `subsystem_coriolis_matrix`", f"{err['C']:.1e}", "kg/s … kg m²/s"],
                 ["C_i dq_i vs `bias_forces`", f"{err['h']:.1e}", "N, N m"],
                 ["Lagrange–Euler residual of the sympy M_i, C_i", f"{err['le']:.1e}", "N, N m"]]))


def layer_table(layers: dict, n_checks: int) -> str:
    """**Table S2**: each part of the two constraint layers, sympy against robolib (Markdown)."""
    rows = [["A1 (closure, 4 × 12)", "`closure_constraints`", f"{layers['A1']:.1e}", "1, m"],
            ["b1 = -dA1/dt dq (4)", "`closure_constraints`", f"{layers['b1']:.1e}", "m/s²"],
            ["A2 (base, 6 × 12)", "`base_constraints`", f"{layers['A2']:.1e}", "1"],
            ["b2 (6)", "`base_constraints`", f"{layers['b2']:.1e}", "m/s²"]]
    return (f"**Table S2** — The constraint layers of `redundant.symbolic.constraint_layers()` against robolib: "
            f"largest difference over {n_checks} random states (active joints near their base points).\n\n"
            + markdown_table(["part", "robolib", "largest difference", "unit"], rows))


def routes_table(dev: dict, n_checks: int) -> str:
    """**Table S3**: every route to the constrained accelerations and reactions (Markdown)."""
    rows = [["sequential layers vs single-step U–K (relative, ddq)", f"{dev['sequential']:.1e}"],
            ["Lagrange multipliers (Schur complement) vs U–K (relative, ddq)", f"{dev['multipliers']:.1e}"],
            ["KKT system vs U–K (relative, ddq)", f"{dev['kkt']:.1e}"],
            ["robolib `forward_dynamics` vs U–K (relative, ddq)", f"{dev['fast']:.1e}"],
            ["U–K constraint force Q_c vs A^T lambda [N, N m]", f"{dev['qc']:.1e}"],
            ["bearing reactions: multipliers vs KKT vs `forward_dynamics` [N]", f"{dev['reactions']:.1e}"],
            ["layer-2 correction of the sequential route vs A_2^T lambda_2 [N]", f"{dev['layer2']:.2g}"],
            ["for scale, not a check: largest component of the bearing reactions λ_2 [N]", f"{dev['reaction_max']:.2g}"],
            ["layer-2 correction vs A_2^T lambda_2 + A_1^T (lambda_1 - lambda_1') [N]", f"{dev['layer2_split']:.1e}"]]
    return (f"**Table S3** — The identity check at {n_checks} states of the reference circle with random motor "
            f"torques: largest difference of each route from the single-step Udwadia–Kalaba solution.\n\n"
            + markdown_table(["comparison", "largest difference"], rows))


def redundancy_table(red: dict) -> str:
    """**Table S4**: the redundancy resolution along the reference circle (Markdown)."""
    rows = [["preload direction n: closed form (Lami) vs `inverse_dynamics`' SVD null vector", f"{red['n']:.1e}", "1"],
            ["preload direction n: sympy vs closed form", f"{red['n_sympy']:.1e}", "1"],
            ["`minimum_norm_torques` + p n vs `inverse_dynamics`' torques", f"{red['tau']:.1e}", "N m"],
            ["n · tau_min (largest magnitude)", f"{red['tau_min_perp']:.1e}", "N m"],
            ["reaction change per unit preload vs `preload_reactions`", f"{red['F']:.1e}", "N"],
            ["bearing load per N m of preload, \\|∂F_i/∂p\\| (range)", f"{red['load_min']:.2f} … {red['load_max']:.2f}", "N"]]
    return (f"**Table S4** — The redundancy resolution at {red['n_states']} states of the reference circle "
            f"(every friction model, preload 0 and 1 N m): largest differences between the routes.\n\n"
            + markdown_table(["comparison", "largest difference", "unit"], rows))


def energy_figure(runs: dict) -> Figure:
    """Free-motion kinetic-energy error (left) and driven-motion constraint drift (right), both gains.

    robolib.core.drawing.FIGURE_WIDTH (6.7 in, the book's column) wide; titles and labels at >= 8 pt, one
    legend (9 pt) for both panels below them, so that nothing is clipped or hides a curve.
    """
    fig = Figure(figsize=(FIGURE_WIDTH, 3.9), layout="constrained")
    axs = fig.subplots(1, 2)
    for label, ls in zip(checks.GAINS, ("-", "--")):
        f, d = runs["free"][label], runs["driven"][label]
        axs[0].semilogy(f.t, np.abs(f.kinetic_energy / f.kinetic_energy[0] - 1) + 1e-17, ls=ls, label=label)
        axs[1].semilogy(d.t, d.drift + 1e-17, ls=ls)
    axs[0].set_ylabel(r"$|T(t)/T(0) - 1|$")
    axs[1].set_ylabel(r"constraint error $\max|\Phi|$ [m]")
    axs[1].axhline(DRIFT_BOUND, color="0.5", ls=":")
    axs[0].plot([], [], color="0.5", ls=":", label="stated bound (right)")
    for ax in axs:
        ax.set_xlabel(r"$t$ [s]")
    axs[0].set_title("free motion: energy error", fontsize=10)
    axs[1].set_title("driven on the circle: drift", fontsize=10)
    fig.legend(*axs[0].get_legend_handles_labels(), loc="outside lower center", ncol=3, fontsize=9, frameon=False)
    return fig


# ---- the study --------------------------------------------------------------------------------------
@declare_parameters(PARAMETERS, "redundant_derivation")
def run(data_file="redundant/default.yaml", n_checks=300, t_free=3.0, t_drift=10.0, seed=4, quick=False):
    """Run the derivation chapter: every check of the sympy derivation against robolib, with its claims.

    ``data_file``: robot parameter file (``data/`` path); ``n_checks``: random
    states per check; ``t_free`` (s): free-motion run (energy); ``t_drift`` (s):
    driven run along the circle (drift); ``seed``: of every random draw;
    ``quick``: cap the checks and runs at the ``QUICK_*`` values. Returns a
    :class:`robolib.book.result.StudyResult` with 32 claims, tables ``key_parameters`` (the lecture's) and
    :data:`EVIDENCE_TABLES` (``kernels``, ``layers``, ``routes``, ``redundancy``, ``criteria``, ``parameters``, for the
    evidence page), figures ``mechanism`` (the lecture's) and ``energy`` (:data:`EVIDENCE_FIGURES`),
    the LaTeX displays in ``data["latex"]`` and the glued settings in ``values``.
    The first call spends ~15 s in sympy (cached for later calls). Every call is
    checked against :data:`PARAMETERS` and the robot against :func:`check_model` first.
    """
    params = {"data_file": data_file, "n_checks": n_checks, "t_free": t_free, "t_drift": t_drift, "seed": seed,
              "quick": quick}
    n, tf, td = effective_settings(n_checks, t_free, t_drift, quick)
    robot = load(data_file)
    check_model(robot, data_file)
    rng = np.random.default_rng(seed)
    claims = ClaimsRegister(STUDY, source=SOURCE, glue=False, quick=bool(quick))
    stage = Stages(STUDY)
    stage("symbolic identities and kernel checks")
    claim_pendulum(claims, checks.pendulum_example(**checks.PENDULUM))

    me_ok, _ = sym.end_effector_identity()
    err = checks.kernel_errors(robot, n, rng)
    layers = checks.layer_errors(robot, n, rng)
    claim_derivation(claims, me_ok, err, layers)
    times, qs, dqs, taus = checks.identity_states(robot, n, rng, TAU_RANGE)
    dev = checks.route_deviations(robot, qs, dqs, taus)
    claim_routes(claims, dev)
    null_ok, lami_ok, _ = sym.preload_identities()
    red = checks.redundancy_checks(robot, n)
    claim_redundancy(claims, null_ok, lami_ok, red)
    stage("integration runs (energy, drift)")
    runs = checks.integration_runs(robot, tf, td, FREE_START, FREE_VELOCITY)
    claim_integration(claims, runs)
    ex2 = preload_exercise(robot)
    claim_exercise(claims, ex2)
    claim_gauss(claims, gauss_exercise(robot))

    tables = {"kernels": kernel_table(err, n), "layers": layer_table(layers, n), "routes": routes_table(dev, n),
              "redundancy": redundancy_table(red),
              "key_parameters": key_parameter_table(data_file),
              "parameters": parameter_table([data_file], run=params, extra=settings_rows(), spec=PARAMETERS),
              "criteria": parameter_table(extra=criteria_rows(), title="Constants of the claims' criteria")}
    figures = {"mechanism": redundant_mechanism(robot), "energy": energy_figure(runs)}
    data = {"robot": robot, "latex": sym.displays(), "kernel_errors": err, "layer_errors": layers, "deviations": dev,
            "redundancy": red, "runs": runs, "identity_states": (times, qs, dqs, taus), "settings": settings_rows(),
            "effective": {"n_checks": n, "t_free": tf, "t_drift": td},
            "explore_grid": QUICK_EXPLORE_GRID if quick else EXPLORE_GRID}
    values = {"rd_baumgarte": f"{BAUMGARTE[0]:g}", "rd_circle_radius": f"{CIRCLE_RADIUS:g}",
              "rd_circle_period": f"{CIRCLE_PERIOD:g}", "rd_n_checks": f"{n}", "rd_eps": f"{robot.smooth_eps:g}",
              "rd_tau_range": f"{TAU_RANGE:g}", "rd_dt_ms": f"{DT * 1e3:g}", "rd_t_free": f"{tf:g}",
              "rd_t_drift": f"{td:g}", "rd_drift_bound": f"{DRIFT_BOUND:.0e}", "rd_n_circle": f"{red['n_states']}",
              "rd_load_range": f"{red['load_min']:.2f}–{red['load_max']:.2f}", "rd_force_scale": f"{FORCE_SCALE:g}",
              "rd_ex2_change": f"{ex2['change'].min():.0f}–{ex2['change'].max():.0f}",
              # exercise 2 per N m of preload, as the exercise asks (the change is linear in the preload)
              "rd_ex2_per_nm": f"{ex2['change'].min() / EXERCISE_PRELOAD:.1f}–{ex2['change'].max() / EXERCISE_PRELOAD:.1f}",
              "rd_seed": f"{seed}",
              "rd_reaction_max": f"{dev['reaction_max']:.2g}",
              # exercise 1: the translational mass of chain 1 (with the end-effector) and of chains 2, 3
              "rd_ex1_chain1": f"{robot.active_mass + robot.passive_mass + robot.end_effector_mass:.4g}",
              "rd_ex1_chain2": f"{robot.active_mass + robot.passive_mass:.4g}", "rd_me": f"{robot.end_effector_mass:.4g}"}
    return StudyResult(STUDY, params, claims, tables=tables, figures=figures, data=data, values=values,
                       wall_s=stage.elapsed())


# ---- the Explore panel ------------------------------------------------------------------------------
def explore_limits(robot, grid: dict, force_scale: float = FORCE_SCALE, margin: float = EXPLORE_MARGIN):
    """``((x_min, x_max), (y_min, y_max))`` m holding every link and reaction arrow of the panel's grid.

    Unreachable grid points are skipped (their figure shows the error instead).
    """
    pts = [robot.base]
    pmax = max(abs(p) for p in grid["preload"])
    for dx in grid["dx_mm"]:
        for dy in grid["dy_mm"]:
            try:
                q = initial_state(robot, robot.centroid + np.array([dx, dy]) * 1e-3)[0]
                dF = preload_reactions(robot, q)
            except ValueError:
                continue
            pts += [joint_points(robot, q).reshape(-1, 2), robot.base + force_scale * pmax * dF,
                    robot.base - force_scale * pmax * dF]
    pts = np.vstack(pts)
    lo, hi = pts.min(axis=0) - margin, pts.max(axis=0) + margin
    return (lo[0], hi[0]), (lo[1], hi[1])


#: Text of the Explore panel's figures (tick labels and title) [pt].
EXPLORE_TICK_PT = 9.0


def preload_figure(robot, dx_mm: float, dy_mm: float, preload: float, *, limits=None,
                   force_scale: float = FORCE_SCALE) -> Figure:
    """The robot at rest at ``centroid + (dx_mm, dy_mm)`` mm under motor torques ``preload * n`` (N m).

    Draws the bearing reactions (``force_scale`` m per N) and titles the figure
    with ``n``, the largest acceleration (zero: the preload moves nothing) and
    ``|F_i|``; an unreachable or singular pose shows its error instead.

    >>> from robolib import redundant
    >>> fig = preload_figure(redundant.load(), 0.0, 0.0, 1.0)
    >>> fig.axes[0].get_title().startswith("n = (0.58, 0.58, 0.58)")
    True
    """
    fig = Figure(figsize=(4.4, 4.1))
    ax = fig.add_subplot()
    draw_base(ax, robot)
    try:
        q, dq = initial_state(robot, robot.centroid + np.array([dx_mm, dy_mm]) * 1e-3)
        n = preload_direction(robot, q)
        ddq, F = forward_dynamics(robot, q, dq, preload * n)
        draw_robot(ax, robot, q, reactions=F, force_scale=force_scale)
        ax.set_title(f"n = ({n[0]:.2f}, {n[1]:.2f}, {n[2]:.2f}), " + r"$\max|\ddot q|$" + f" = {np.abs(ddq).max():.0e}\n"
                     + r"$|F_i|$ = " + ", ".join(f"{v:.2f}" for v in np.linalg.norm(F, axis=1)) + " N",
                     fontsize=EXPLORE_TICK_PT)
    except ValueError as exc:  # robolib's UnreachableError / SingularityError
        ax.set_title("\n".join(textwrap.wrap(textwrap.shorten(str(exc), 118, placeholder=" …"), 64)), fontsize=EXPLORE_TICK_PT, color="red")
    if limits is not None:
        ax.set_xlim(*limits[0])
        ax.set_ylim(*limits[1])
    ax.tick_params(labelsize=EXPLORE_TICK_PT)
    return fig


def offset_ranges(robot) -> dict:
    """Live ranges (mm) of the panel's offsets from the centroid along x and along y: where every chain reaches
    the end effector (``|p - O_i| < 2 l``, ``O_i`` the base points; at ``2 l`` a chain is stretched, a singularity), 1 mm inside."""
    d = np.linspace(-2 * robot.link_length, 2 * robot.link_length, 8001)
    out = {}
    for name, axis in (("dx_mm", [1.0, 0.0]), ("dy_mm", [0.0, 1.0])):
        p = robot.centroid + np.outer(d, axis)
        ok = (np.linalg.norm(p[:, None] - robot.base[None], axis=-1) < 2 * robot.link_length).all(axis=1)
        i = int(np.argmin(np.abs(d)))
        lo, hi = i, i
        while lo > 0 and ok[lo - 1]:
            lo -= 1
        while hi < d.size - 1 and ok[hi + 1]:
            hi += 1
        out[name] = (math.ceil(d[lo] * 1e3) + 1.0, math.floor(d[hi] * 1e3) - 1.0, 1.0)
    return out


def explore_panel(res, mode: str = "auto"):
    """The chapter's Explore panel (:func:`robolib.book.notebook.explore`), opening at zero offset and the preload
    :data:`EXPLORE_INITIAL_PRELOAD`.

    Live (JupyterLab), the offsets span the reachable workspace along each axis (:func:`offset_ranges`) and
    the preload +-:data:`EXPLORE_PRELOAD_MAX` (the model has no limit: rigid links take any internal torque),
    with axes that follow the robot."""

    robot, grid = res.data["robot"], res.data["explore_grid"]
    draw = partial(preload_figure, robot, limits=explore_limits(robot, grid))
    box = explore(draw, grid, labels=EXPLORE_LABELS, initial={"dx_mm": 0.0, "dy_mm": 0.0, "preload": EXPLORE_INITIAL_PRELOAD},
                   fmt={"dx_mm": "{:+g}", "dy_mm": "{:+g}", "preload": "{:+g}"}, mode=mode,
                   ranges={**offset_ranges(robot), "preload": (-EXPLORE_PRELOAD_MAX, EXPLORE_PRELOAD_MAX, 0.1)},
                   live_draw=partial(preload_figure, robot),
                   caption="The robot at rest at the chosen end-effector offset under the motor torques τ = p n of "
                           "the chosen preload p: the bearing reactions (green arrows), and in the title the preload "
                           "direction n, the largest acceleration (round-off: the preload moves nothing) and the "
                           "bearing loads |Fᵢ|.",
                   alt="Drawing of the three-chain robot at rest at the chosen end-effector offset, with green arrows "
                       "at the three motor joints for the bearing reactions that the preload torques produce; the "
                       "title gives the preload direction, the largest acceleration and the three bearing loads.")
    return number_caption(box, "Explore panel", "1.1")


# ---- exercises ------------------------------------------------------------------------------------
def preload_exercise(robot) -> dict:
    """Add ``EXERCISE_PRELOAD * n`` to the circle-tracking torques: accelerations unchanged, reactions change.

    ``ddq_change`` (largest, m/s², rad/s²); per chain ``load`` / ``load_preloaded``
    (``|F_i|``, N), ``change`` (``|ΔF_i|``, N) and ``predicted``
    (``p |∂F_i/∂p| = p |n_i| / (l |sin b_i|)``, N); ``table`` in Markdown.
    """
    p = EXERCISE_PRELOAD
    q, dq, ddq = reference_motion(robot, [EXERCISE_TIME])
    idr = inverse_dynamics(robot, q, dq, ddq)
    acc0, F0 = forward_dynamics(robot, q[0], dq[0], idr.tau[0])
    acc1, F1 = forward_dynamics(robot, q[0], dq[0], idr.tau[0] + p * idr.null_direction[0])
    out = {"ddq_change": float(np.abs(acc1 - acc0).max()), "load": np.linalg.norm(F0, axis=1),
           "load_preloaded": np.linalg.norm(F1, axis=1), "change": np.linalg.norm(F1 - F0, axis=1),
           "predicted": p * np.linalg.norm(preload_reactions(robot, q[0]), axis=-1)}
    rows = [[i + 1, *(f"{out[k][i]:.3f}" for k in ("load", "load_preloaded", "change", "predicted"))] for i in range(3)]
    out["table"] = (f"largest change of ddq: {out['ddq_change']:.1e}\n\n" + markdown_table(
        ["chain", "\\|F_i\\| [N]", f"\\|F_i\\| with {p:g} n [N]", "\\|ΔF_i\\| [N]", f"{p:g} \\|n_i\\| / (l \\|sin b_i\\|) [N]"], rows))
    return out


def gauss_exercise(robot) -> dict:
    """Exercise 4: Gauss's principle for the robot at ``EXERCISE_TIME`` on the circle under ``EXERCISE_TAU``.

    ``virtual_work`` (N): largest ``|N^T Q_c|`` over the null-space basis ``N`` of the stacked constraints (the
    accelerations they leave free); ``min_increase``: smallest increase of ``Z = (ddq - a0)^T M (ddq - a0)`` over
    ``EXERCISE_TRIALS`` admissible accelerations ``ddq + N z`` (seed 0), against the Udwadia–Kalaba ``ddq``.

    >>> from robolib import redundant
    >>> ex = gauss_exercise(redundant.load())
    >>> ex["virtual_work"] < 1e-9 < ex["min_increase"]
    True
    """
    q, dq, _ = reference_motion(robot, [EXERCISE_TIME])
    M, Q, (A1, b1), (A2, b2) = checks.cut_system(robot, q[0], dq[0], np.asarray(EXERCISE_TAU))
    A, b = np.vstack([A1, A2]), np.concatenate([b1, b2])
    a0 = np.linalg.solve(M, Q)
    ddq, Qc = constraints.udwadia_kalaba(M, Q, A, b)
    N = np.linalg.svd(A)[2][len(b):].T
    def gauss(acc):
        return (acc - a0) @ M @ (acc - a0)
    inc = [gauss(ddq + N @ z) - gauss(ddq) for z in np.random.default_rng(0).normal(size=(EXERCISE_TRIALS, 2))]
    return {"virtual_work": float(np.abs(N.T @ Qc).max()), "min_increase": float(min(inc))}


__all__ = ["run", "gauss_exercise", "PARAMETERS", "EVIDENCE_TABLES", "EVIDENCE_FIGURES", "KEY_ROWS", "pendulum_text", "key_parameter_table", "check_model", "effective_settings", "explore_panel", "preload_figure",
           "explore_limits", "preload_exercise", "energy_figure"]
