"""The friction chapter's set-up: criteria of its claims, grids, parameters with their ranges and the
up-front consistent-Coulomb condition, the robots of a run, small helpers (used by :mod:`.study_friction`)."""

from __future__ import annotations

import dataclasses

import numpy as np

from robolib.book.claims import ClaimsRegister
from robolib.core.errors import ParameterError
from robolib.core.params import Parameter
from robolib.redundant.dynamics import reference_circle, reference_motion
from robolib.redundant.model import CIRCLE_PERIOD, COULOMB_MAX_ITER, DT, load
from robolib.redundant.simulation import (
    CONTRACTION_LIMIT,
    calibrate_stribeck,
    coulomb_contraction,
    followable_preload,
)

# --- criteria of the claims, fixed before the results ----------------------------------------------
#: The file's T_c must match the recomputed calibration to 0.5 % (it is rounded to 4 digits).
CAL_FILE_TOL = 0.005
#: Equal level: the RMS friction torques of the two laws agree within 5 % (issue 12).
CAL_RMS_TOL = 0.05
#: Two laws "differ" at an operating point when ``|S - C| / C`` exceeds 10 %.
DIFF = 0.10
#: The Stribeck RMS friction torque "hardly depends on speed": largest over smallest over the speed sweep below 1.25.
SPEED_FLAT = 1.25
#: The uncompensated Coulomb deviation "hardly depends on speed": largest over smallest below 1.05.
DEV_FLAT = 1.05
#: The decoupled Coulomb model is "accurate" while its relative error stays below 1 %.
DEC_LIMIT = 0.01
#: "Fast" joint motion: ``|w| > FAST_RATE * w_s`` (the Stribeck hump has decayed to ``e^-9``).
FAST_RATE = 3.0
#: "At T_c": the mean Stribeck torque magnitude in fast motion within 1 % of T_c.
LEVEL_TOL = 0.01
#: Largest tracking error (m) of the friction-free robot under its own torques.
FREE_TRACK_TOL = 1e-6
#: Largest tracking error (m) of the consistent Coulomb / Stribeck model under its own torques.
OWN_COULOMB_TOL, OWN_STRIBECK_TOL = 1e-6, 1e-4
#: The large-preload fit uses the points with ``p >= LINEAR_FROM * preload_max`` (at least 3).
LINEAR_FROM = 2.0 / 3.0
#: Largest residual of the linear fit at large preload, relative to the largest friction torque.
LINEAR_TOL = 0.01
#: Largest residual (J) of the energy balance of the geared-joint simulations.
BALANCE_TOL = 1e-6
#: Exercise 1: the hand estimate mu R max|F| and the consistent model's largest friction torque agree within 1 %.
EX1_AGREE = 0.01
#: Exercise 2: "a few tens of N m" of preload (N m).
EX2_PRELOAD_BAND = (10.0, 100.0)

# --- grids and fixed settings (full run; the quick run uses QUICK) ----------------------------------
#: s, speed sweep (circle period).
PERIODS = [0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0]
#: kg, payload sweep (end-effector mass).
PAYLOADS = [0.0, 0.1, 0.2, 0.4, 0.8, 1.2, 1.6]
#: Preload sweep of the two laws, as fractions of ``preload_sweep``.
PRELOAD_FRACTIONS = [-1.0, -2 / 3, -1 / 3, -1 / 6, 0.0, 1 / 6, 1 / 3, 2 / 3, 1.0]
#: m, mu R of the decoupling maps.
MU_R = [float(x) for x in np.logspace(-4, -1.5, 11)]
#: N m and s, the second axes of the decoupling maps.
MAP_PRELOADS = [-1.0, -0.5, -0.2, 0.0, 0.2, 0.5, 1.0]
MAP_PERIODS = [0.5, 1.0, 2.0, 4.0, 8.0]
#: Frames of the animation, points of the large-preload study, samples of the sweeps and of the maps.
N_FRAMES, N_SWEEP, SWEEP_SAMPLES, MAP_SAMPLES = 48, 25, 200, 100
#: smooth-sign velocities (rad/s) of exercise 3.
EPS_VALUES = [0.02, 0.01, 0.005, 0.0025]
#: The quick run (tests): small grids and short runs (``samples`` is kept: inverse dynamics is cheap).
QUICK = {"t_sim": 1.0, "periods": [1.0, 2.0, 8.0], "payloads": [0.0, 0.2, 1.6], "preload_fractions": [-1.0, 0.0, 1.0],
         "mu_r": [float(x) for x in np.logspace(-4, -1.5, 4)], "map_preloads": [-1.0, 0.0, 1.0],
         "map_periods": [1.0, 2.0], "n_frames": 10, "n_sweep": 7, "sweep_samples": 60, "map_samples": 40,
         "eps_values": [0.02, 0.01, 0.005]}
#: The friction models of the simulations: label -> model of :func:`inverse_dynamics`.
MODELS = {"none": None, "Coulomb decoupled": "coulomb", "Coulomb consistent": "coulomb_consistent", "Stribeck": "stribeck"}
#: Friction overrides of the parameters cell (None: the value of ``data_file``).
OVERRIDES = ("mu", "journal_radius", "stribeck_velocity", "viscous", "smooth_eps")


# --- small helpers ------------------------------------------------------------------------------------
def relative_difference(c, s):
    """``|s - c| / c`` elementwise: how far law S is from law C (C > 0).

    >>> relative_difference(2.0, 2.5)
    0.25
    >>> relative_difference(np.array([1.0, 4.0]), np.array([1.0, 2.0])).tolist()
    [0.0, 0.5]
    """
    c, s = np.asarray(c, dtype=float), np.asarray(s, dtype=float)
    out = np.abs(s - c) / c
    return float(out) if out.ndim == 0 else out


def turns(points, centre) -> float:
    """Turns (1 = 360 degrees, counter-clockwise positive) of a path ``points`` (N, 2) m about ``centre`` (2,).

    >>> s = np.linspace(0.0, np.pi, 50)
    >>> round(turns(np.c_[np.cos(s), np.sin(s)], [0.0, 0.0]), 12)
    0.5
    """
    rel = np.asarray(points, dtype=float) - np.asarray(centre, dtype=float)
    a = np.unwrap(np.arctan2(rel[:, 1], rel[:, 0]))
    return float((a[-1] - a[0]) / (2 * np.pi))


def turns_covered(points, centre, duration: float, period: float) -> float:
    """Share of the commanded turns a path covered: ``turns / (duration / period)`` (durations in s).

    >>> s = np.linspace(0.0, np.pi, 50)
    >>> round(turns_covered(np.c_[np.cos(s), np.sin(s)], [0.0, 0.0], 1.0, 2.0), 12)
    1.0
    """
    return turns(points, centre) / (duration / period)


def tracking_error(robot, sim) -> np.ndarray:
    """Distance (N,) m of a simulation's end-effector from where the reference circle puts it at each time."""
    return np.linalg.norm(sim.end_effector - reference_circle(robot, sim.t).p, axis=-1)


def log_slope(x, y) -> float:
    """Slope of the least-squares line of ``log y`` against ``log x`` (x, y > 0).

    >>> round(log_slope([1.0, 2.0, 4.0], [3.0, 0.75, 0.1875]), 12)
    -2.0
    """
    return float(np.polyfit(np.log(np.asarray(x, float)), np.log(np.asarray(y, float)), 1)[0])


def linear_fit_residual(x, y) -> float:
    """Largest residual of the least-squares line through ``(x, y)``, relative to ``max |y|``.

    >>> linear_fit_residual([1.0, 2.0, 3.0], [2.0, 4.0, 6.0]) < 1e-12
    True
    """
    x, y = np.asarray(x, float), np.asarray(y, float)
    return float(np.abs(np.polyval(np.polyfit(x, y, 1), x) - y).max() / np.abs(y).max())


def bisect_increasing(f, target: float, *, start: float = 1.0, iterations: int = 40) -> float:
    """The ``x >= 0`` at which an increasing function ``f`` reaches ``target`` (bracket doubled from ``start``).

    >>> round(bisect_increasing(lambda x: x * x, 2.0), 9)
    1.414213562
    """
    lo, hi = 0.0, float(start)
    while f(hi) < target:
        lo, hi = hi, 2 * hi
        if hi > 1e12:
            raise ParameterError(f"bisect_increasing: target {target!r} not reached")
    for _ in range(iterations):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if f(mid) < target else (lo, mid)
    return hi


# --- parameters ---------------------------------------------------------------------------------------
def _robot_file(name: str, value) -> None:
    """The file must be a redundant-robot parameter file (read and checked by :func:`~robolib.redundant.load`).

    >>> _robot_file("data_file", "redundant/geared.yaml")
    >>> _robot_file("data_file", "prp3/paper.yaml")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    robolib.ParameterError: data_file = 'prp3/paper.yaml' is not valid: data_file must be a redundant-robot parameter file like 'redundant/default.yaml' (...
    """
    try:
        load(value)
    except (ParameterError, ValueError, OSError) as exc:   # a ParameterFileError, a file that is not text
        raise ParameterError(f"{name} = {value!r} is not valid: {name} must be a redundant-robot parameter file like "
                             f"'redundant/default.yaml' ({exc})") from None


#: The study's parameters (the notebook's ``parameters`` cell): default, meaning, unit and valid values.
#: ``None`` for a friction override means "the value in ``data_file``"; the overrides that divide
#: (``journal_radius``, ``stribeck_velocity``, ``smooth_eps``) and the levels the comparison needs
#: (``mu``, ``coulomb_torque``; at 0 the calibration and the ratios are 0 / 0) must be positive.
PARAMETERS = {
    "data_file": Parameter("redundant/default.yaml", "robot parameter file (SI units, see its comments), Stribeck level "
                           "calibrated", kind="file", check=_robot_file),
    "geared_file": Parameter("redundant/geared.yaml", "geared-joint Stribeck magnitudes, for the uncompensated "
                             "experiment only", kind="file", check=_robot_file),
    "mu": Parameter(None, "Coulomb coefficient of the journal bearings (dimensionless); None: from data_file; the "
                    "robot bounds mu * journal_radius (checked up front)", low=0.0, open_low=True, allow_none=True),
    "journal_radius": Parameter(None, "journal radius R; None: from data_file", unit="m", low=0.0, open_low=True,
                                allow_none=True),
    "coulomb_torque": Parameter(None, "Stribeck Coulomb level T_c; None: the calibrated level, or the file value "
                                "without calibration", unit="N m", low=0.0, open_low=True, allow_none=True),
    "stribeck_velocity": Parameter(None, "Stribeck velocity w_s; None: from data_file", unit="rad/s", low=0.0,
                                   open_low=True, allow_none=True),
    "viscous": Parameter(None, "viscous coefficient b_v (Stribeck model); None: from data_file", unit="N m s/rad",
                         low=0.0, allow_none=True),
    "smooth_eps": Parameter(None, "smooth-sign velocity eps of tanh(w/eps); None: from data_file", unit="rad/s",
                            low=0.0, open_low=True, allow_none=True),
    "calibrate": Parameter(True, "recompute the Stribeck level of equal RMS friction torque for this run's robot",
                           kind="boolean"),
    "preload": Parameter(0.0, "internal preload of the equal-level comparison and of the simulations", unit="N m"),
    "preload_sweep": Parameter(0.3, "largest preload magnitude of the preload sweep of the two laws", unit="N m", low=0.0,
                               open_low=True),
    "preload_max": Parameter(3.0, "largest preload magnitude of the bearing-load study", unit="N m", low=0.0, open_low=True),
    "samples": Parameter(400, "inverse-dynamics samples per period of the circle", kind="integer", low=8),
    "t_sim": Parameter(4.0, "length of the geared-joint simulations (two periods; at most 1 s in a quick run)",
                       unit="s", low=0.0, open_low=True),
    "n_jobs": Parameter(1, "parallel processes of the sweeps (joblib; non-zero: 1 serial, -1 all cores)",
                        kind="integer", exclude=(0,)),
    "quick": Parameter(False, "True: small grids and short runs, for tests", kind="boolean"),
}


def coulomb_condition(p: dict, robot, geared, s: dict) -> dict:
    """The model-dependent condition of a run, computed before any work: the consistent-Coulomb fixed point
    contracts fast enough to converge in its iteration budget wherever the run solves it on the reference circle.

    Contraction factors (:func:`~robolib.redundant.simulation.coulomb_contraction`, any speed) over one
    period of the circle (``samples`` configurations, at most 4000): forward dynamics of ``robot`` at every payload of the
    payload sweep and of ``geared`` (the simulations), inverse dynamics of ``robot`` at its ``mu R`` and at the
    largest ``mu R`` of the decoupling maps (``s``: the run's :func:`settings`). Returns ``{case: largest factor}``; raises
    :class:`~robolib.ParameterError` naming ``mu`` and ``journal_radius``, the computed factor and the largest
    ``mu * journal_radius`` this robot allows if one reaches :data:`~robolib.redundant.simulation.CONTRACTION_LIMIT`.
    (Off the circle, where an uncompensated simulation may go, the run reports a failure as a finding.)
    """
    t = np.linspace(0.0, CIRCLE_PERIOD, min(p["samples"], 4000), endpoint=False)
    q_robot = reference_motion(robot, t)[0]
    q_geared = reference_motion(geared, t)[0]
    cases = {}                                   # case -> (factors over t, robot)
    for m in sorted({robot.end_effector_mass, *s["payloads"]}):
        fwd = coulomb_contraction(dataclasses.replace(robot, end_effector_mass=m), q_robot)[0]
        cases[f"forward dynamics, {p['data_file']} with end-effector mass {m:g} kg"] = (fwd, robot)
    cases[f"forward dynamics, {p['geared_file']}"] = (coulomb_contraction(geared, q_geared)[0], geared)
    cases[f"inverse dynamics, {p['data_file']}"] = (coulomb_contraction(robot, q_robot)[1], robot)
    map_robot = dataclasses.replace(robot, mu=max(s["mu_r"]) / robot.journal_radius)
    map_case = f"inverse dynamics of the decoupling maps, {p['data_file']} at their largest mu R = {max(s['mu_r']):.3g} m"
    cases[map_case] = (coulomb_contraction(map_robot, q_robot)[1], map_robot)
    out = {case: float(f.max()) for case, (f, _) in cases.items()}
    case = max(out, key=out.get)
    if out[case] >= CONTRACTION_LIMIT:
        f, rb = cases[case]
        muR = rb.mu * rb.journal_radius
        k = int(np.argmax(f))
        where = ("mu = {:g}{}, journal_radius = {:g} m{}".format(rb.mu, "" if p["mu"] is not None else " (data file)",
                                                                rb.journal_radius,
                                                                "" if p["journal_radius"] is not None else " (data file)"))
        who = f"data_file = {p['data_file']!r}" if case == map_case else where
        raise ParameterError(
            f"{who}: the consistent-Coulomb fixed point does not contract fast enough on the reference circle of this "
            f"robot: the computed contraction factor mu R max ||dF/dtau|| = {out[case]:.3g} ({case}, at t = {t[k]:.3g} s; "
            f"mu R = {muR:.3g} m) must be below {CONTRACTION_LIMIT:.3g} to converge in {COULOMB_MAX_ITER} iterations, "
            f"i.e. mu * journal_radius < {CONTRACTION_LIMIT * muR / out[case]:.3g} m here")
    return out


def preload_condition(p: dict, robot, geared, s: dict) -> dict:
    """The preloads of a run that a simulation can follow, checked before any work: ``preload`` (the geared and
    own-torque experiments, ``t_sim`` s on both robots) and ``+-preload_sweep`` (one period of the circle on
    ``robot``) must lie in :func:`~robolib.redundant.followable_preload`'s range. Returns ``{parameter: (low, high)}``
    in N m; raises :class:`~robolib.ParameterError` naming the parameter, the bound and why.
    """
    t_sim = s["t_sim"]
    ranges = [followable_preload(rb, t_sim) for rb in (robot, geared)]
    out = {"preload": (max(r[0] for r in ranges), min(r[1] for r in ranges)),
           "preload_sweep": followable_preload(robot, CIRCLE_PERIOD)}
    for name, values, span in (("preload", [p["preload"]], f"{t_sim:g} s"),
                               ("preload_sweep", [-p["preload_sweep"], p["preload_sweep"]], f"{CIRCLE_PERIOD:g} s")):
        lo, hi = out[name]
        bad = [v for v in values if not lo <= v <= hi]
        if bad:
            why = ("held open-loop, a positive preload makes the reference motion unstable: a deviation grows like "
                   "exp(sqrt(k p) t), and beyond this bound even round-off grows to the circle's radius within the "
                   f"simulated {span}" if bad[0] > 0 else
                   "held open-loop, a negative preload makes the motion oscillate at sqrt(|k p|), faster beyond this "
                   f"bound than the RK4 step of {DT * 1e3:g} ms can follow")
            raise ParameterError(f"{name} = {p[name]:g} N m is beyond what a simulation can follow: a preload must lie "
                                 f"in [{lo:.4g}, {hi:.4g}] N m here ({why}; redundant.followable_preload)")
    return out


def settings(quick: bool, t_sim: float) -> dict:
    """Grids and fixed settings of a run: the module constants, or :data:`QUICK` for a quick run.

    >>> settings(True, 4.0)["periods"], settings(False, 4.0)["n_sweep"]
    ([1.0, 2.0, 8.0], 25)
    """
    s = {"t_sim": float(t_sim), "periods": PERIODS, "payloads": PAYLOADS, "preload_fractions": PRELOAD_FRACTIONS,
         "mu_r": MU_R, "map_preloads": MAP_PRELOADS, "map_periods": MAP_PERIODS, "n_frames": N_FRAMES,
         "n_sweep": N_SWEEP, "sweep_samples": SWEEP_SAMPLES, "map_samples": MAP_SAMPLES, "eps_values": EPS_VALUES}
    if quick:
        s.update(QUICK, t_sim=min(float(t_sim), QUICK["t_sim"]))
    return {k: list(v) if isinstance(v, list) else v for k, v in s.items()}


def robots(p: dict):
    """``(robot_file, robot, geared, cal, static_ratio, contraction)`` of a run.

    ``robot_file``: ``data_file`` as read; ``robot``: with the run's friction
    overrides and Stribeck level (the recomputed calibration with ``calibrate``,
    or ``coulomb_torque`` by hand); ``geared``: ``geared_file`` with the same
    overrides except ``viscous``; ``cal``: the recomputed calibration
    (:class:`~robolib.redundant.StribeckCalibration`); ``static_ratio``: ``T_s / T_c``
    of the file; ``contraction``: the factors of :func:`coulomb_condition`, checked
    before the calibration (the first consistent-Coulomb solve).
    """
    robot_file = load(p["data_file"])
    overrides = {k: float(p[k]) for k in OVERRIDES if p[k] is not None}
    robot = dataclasses.replace(robot_file, **overrides)
    geared = dataclasses.replace(load(p["geared_file"]), **{k: v for k, v in overrides.items() if k != "viscous"})
    s = settings(bool(p["quick"]), p["t_sim"])
    preload_condition(p, robot, geared, s)
    contraction = coulomb_condition(p, robot, geared, s)
    static_ratio = robot_file.static_torque / robot_file.coulomb_torque
    cal = calibrate_stribeck(robot, static_ratio=static_ratio, stribeck_velocity=robot.stribeck_velocity,
                             viscous=robot.viscous, samples=p["samples"], preload=float(p["preload"]))
    if p["coulomb_torque"] is not None:
        tc = float(p["coulomb_torque"])
        robot = dataclasses.replace(robot, coulomb_torque=tc, static_torque=static_ratio * tc)
    elif p["calibrate"]:
        robot = cal.apply(robot)
    return robot_file, robot, geared, cal, static_ratio, contraction


# --- simulations that stop early: findings of the run -------------------------------------------------
def stops(sims: dict, what: str = "") -> list:
    """``["<label>: simulation stopped at t = ... s: <why>", ...]`` of the simulations in ``sims`` that stopped."""
    return [f"{label}{what}: {sim.stopped}" for label, sim in sims.items() if sim.stopped]


def claim_of_runs(reg: ClaimsRegister, stopped: list, cid: str, statement: str, *, criterion: str, compute,
                  answers=None):
    """Register claim ``cid`` from ``compute() -> (value, holds, text)``; if a simulation it depends on stopped
    (``stopped``, from :func:`stops`), the claim fails instead, its value saying where and why.

    >>> reg = ClaimsRegister("demo", glue=False)
    >>> c = claim_of_runs(reg, ["Stribeck: simulation stopped at t = 0.5 s: why"], "demo_dev", "it follows",
    ...                   criterion="error < 1 mm", compute=lambda: (0.0, True, "0 mm"))
    >>> c.holds, c.value
    (False, 'Stribeck: simulation stopped at t = 0.5 s: why')
    """
    if stopped:
        text = "; ".join(stopped)
        return reg.claim(cid, statement, value=text, criterion=criterion, holds=False, text=f"not determined ({text})",
                         answers=answers)
    value, holds, text = compute()
    return reg.claim(cid, statement, value=value, criterion=criterion, holds=holds, text=text, answers=answers)


