"""Gear-shift nonlinear-dynamics runs: journal orbits, Poincare runs with the period test, Lyapunov runs, orbit and detail runs, the Explore panel's runs."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from robolib.core.clearance import ClearanceModel, JournalOrbit, journal_orbit, mode_shares  # noqa: F401
from robolib.core.errors import ParameterError
from robolib.core.nonlinear import (
    PERIOD_K_MAX,
    period_k,
    poincare_times,
    repeat_residuals,
)
from robolib.core.poincare import NOISE_RTOL_DIVISOR, PERIOD_TOL_FACTOR, PERIOD_TOL_FLOOR  # noqa: F401
from robolib.gearshift import lyapunov as LY
from robolib.gearshift.fast import FastClearance
from robolib.gearshift.model import (
    build_gearshift,
    check_arguments,
    check_clearance,
    clearance_model,
    simulate_clearance,
    with_changes,
)


# --------------------------------------------------------------------------- results
@dataclass(frozen=True)
class PoincarePoint:
    """A Poincaré run's samples and period reading: what the stores keep of a :class:`PoincareRun`
    (:func:`robolib.gearshift.store.run_sweep`, and the clearance chapter's verdict store).

    Fields:

    * ``frequency``: drive frequency, Hz.
    * ``clearance``: radial clearance of joint 0, m.
    * ``samples``: (N, 4) normalised Poincaré samples ``(e_local / c, e_dot / (c omega))`` (dimensionless).
    * ``period``: the period test's reading k >= 1, or 0 for irregular.
    * ``noise``: one-return integration noise (normalised units).
    * ``period_tol``: the period test's tolerance ``max(PERIOD_TOL_FACTOR * noise, PERIOD_TOL_FLOOR)`` (normalised).
    * ``residuals``: (k_max,) lag misfits of the samples (:func:`robolib.core.nonlinear.repeat_residuals`, normalised).
    * ``n_episodes``: contact episodes that start in the sampled window.
    * ``peak_force``: largest normal force at the samples, N.
    * ``rtol``: the integrator's relative tolerance (the run's own, before any engine divisor).
    * ``n_steps``: accepted integrator steps.
    * ``wall_s``: integration wall time on one process, s.
    """

    frequency: float
    clearance: float
    samples: np.ndarray
    period: int
    noise: float
    period_tol: float
    residuals: np.ndarray
    n_episodes: int
    peak_force: float
    rtol: float
    n_steps: int
    wall_s: float


@dataclass(frozen=True)
class PoincareRun(PoincarePoint):
    """One Poincaré run (:func:`poincare_run`): the fields of :class:`PoincarePoint` and the sampled motion.

    Fields besides :class:`PoincarePoint`'s:
        t: (N,) sample times, s.
        e_local: (N, 2) journal eccentricity of joint 0 in the bearing body's frame, m.
        e_dot: (N, 2) its rate in the global frame, m/s.
        eps: (N,) ``|e|``, m.
        dE: (N, 2) end-point position error against the ideal motion, m.
        dvE: (N, 2) end-point velocity error, m/s.
        engine: the model integrated, ``"fast"`` or ``"dae"`` (:data:`ENGINES`).
    """

    t: np.ndarray
    e_local: np.ndarray
    e_dot: np.ndarray
    eps: np.ndarray
    dE: np.ndarray
    dvE: np.ndarray
    engine: str

    def point(self) -> PoincarePoint:
        """The stored fields only (:class:`PoincarePoint`)."""
        return PoincarePoint(**{k: getattr(self, k) for k in PoincarePoint.__dataclass_fields__})


@dataclass(frozen=True)
class OrbitRun:
    """A densely sampled steady clearance response (:func:`orbit_run`), T samples.

    Fields:

    * ``frequency``: drive frequency, Hz.
    * ``clearance``: radial clearance of joint 0, m.
    * ``t``: (T,) sample times, s.
    * ``e_local``: (T, 2) journal eccentricity of joint 0 in the bearing body's frame, m.
    * ``e_dot``: (T, 2) its rate in the global frame, m/s.
    * ``eps``: (T,) ``|e|``, m.
    * ``F_n``: (T,) normal contact force of joint 0, N.
    * ``a_tip``: (T, 2) lever-tip acceleration, m/s^2.
    * ``poincare``: (n_periods, 4) the samples at phase 0, ``(e_local, e_dot)`` (m, m/s).
    * ``shares``: the window's motion modes (:func:`robolib.core.clearance.mode_shares`: shares of the time, counts).
    * ``n_steps``: accepted integrator steps.
    * ``wall_s``: integration wall time, s.
    """

    frequency: float
    clearance: float
    t: np.ndarray
    e_local: np.ndarray
    e_dot: np.ndarray
    eps: np.ndarray
    F_n: np.ndarray
    a_tip: np.ndarray
    poincare: np.ndarray
    shares: dict
    n_steps: int
    wall_s: float


@dataclass(frozen=True)
class DetailMetrics:
    """The tolerance-sensitive outputs of one clearance run (:func:`detail_metrics`).

    Fields:

    * ``n_episodes``: contact episodes of joint 0.
    * ``n_impacts``: of them, impacts (no longer than ``impact_max_duration``).
    * ``peak_force``: largest normal force at the samples, N.
    * ``dp_max``: largest end-point position error against the ideal motion, m.
    * ``rtol``: the integrator's relative tolerance.
    * ``n_steps``: accepted integrator steps.
    * ``n_rejected``: rejected integrator steps.
    * ``wall_s``: integration wall time, s.
    """

    n_episodes: int
    n_impacts: int
    peak_force: float
    dp_max: float
    rtol: float
    n_steps: int
    n_rejected: int
    wall_s: float


# --------------------------------------------------------------------------- nonlinear-dynamics runs
#: Converged Poincaré defaults (drive periods): see the convergence study of the clearance chapter.
POINCARE_TRANSIENT = 20
POINCARE_SAMPLES = 60
# The period test's tolerance (PERIOD_TOL_FACTOR times the one-return noise, measured at rtol / NOISE_RTOL_DIVISOR;
# normalised units e / c and de/dt / (c omega)) is the core's, robolib.core.poincare: fixed before any verdict was
# computed; no floor tuned on a particular case.
#: The models a Poincaré run or a Lyapunov estimate can integrate: ``"fast"`` the minimal-coordinate formulation
#: (:class:`robolib.gearshift.fast.FastClearance`, one clearance joint), ``"dae"`` the seed's Baumgarte DAE (the
#: reference, any number of clearance joints).
ENGINES = ("fast", "dae")
#: The engine of the clearance chapter's verdict ladders and sweeps (the default of
#: :attr:`robolib.studies.clearance_dynamics.settings.StudySettings.engine` and of the study's ``engine`` parameter): the fast model,
#: computed in every build (at each rung's tolerance over :data:`FAST_TOLERANCE_DIVISOR`). The DAE (``engine = "dae"``)
#: reads the stored runs when their settings match. The functions of this module and of :mod:`.store` default to
#: ``REFERENCE_ENGINE``: called without an engine they are the seed's model (other modules' tests use them as the
#: independent DAE route).
DEFAULT_ENGINE = "fast"
#: The reference model: the seed's Baumgarte DAE.
REFERENCE_ENGINE = "dae"
#: The fast engine integrates at the study's ``rtol`` and ``atol`` divided by this, so that a ladder rung means the same
#: accuracy on both engines. The fast model's error norm measures the journal coordinates against the link length
#: (:data:`robolib.gearshift.fast.ERROR_SCALE`), the DAE's the body coordinates themselves, and at one and the same
#: rtol the fast model's Poincaré samples are about ten times less accurate. Measured (B1, 2 transient + 2 sampled
#: periods, max error of the scaled samples against the same engine at rtol 1e-13): at 10 Hz / 0.5 mm, study rtol
#: 1e-9 .. 1e-12, the DAE 3.6e-3, 3.8e-4, 3.6e-5, 4.3e-6 against the fast model at a tenth of each 2.9e-3, 7.0e-4,
#: 9.8e-5, 4.0e-7. At 6 Hz / 0.5 mm: 1.1e-4, 1.4e-5, 1.2e-6, 8.3e-8 against 5.0e-5, 5.5e-6, 3.2e-7, 8.3e-8. At
#: 2 Hz / 0.1 mm: 2.7e-5, 8.1e-7, 8.4e-8, 8.8e-9 against 3.0e-6, 4.6e-7, 1.9e-7, 6.5e-9. The one-return noise of
#: the period test falls alike (10 Hz, rtol 1e-12: DAE 3.6e-9, fast 2.1e-9). :func:`engine_tolerances`.
FAST_TOLERANCE_DIVISOR = 10.0


def engine_tolerances(engine: str, rtol: float, atol: float) -> tuple[float, float]:
    """``(rtol, atol)`` the engine integrates at for a study's ``(rtol, atol)``: the DAE's as given, the fast
    model's divided by :data:`FAST_TOLERANCE_DIVISOR` (the same accuracy of the Poincaré samples). An internal helper
    of the runs: they have checked the engine and the tolerances.

    >>> engine_tolerances("fast", 1e-9, 1e-12)
    (1e-10, 1e-13)
    >>> engine_tolerances("dae", 1e-9, 1e-12)
    (1e-09, 1e-12)
    """
    if engine == "fast":
        return rtol / FAST_TOLERANCE_DIVISOR, atol / FAST_TOLERANCE_DIVISOR
    return rtol, atol


def check_engine(engine, joints=None, params: dict | None = None) -> list:
    """Check ``engine`` (one of :data:`ENGINES`) against the clearance joints; return the joint names.

    ``joints``: names (list, or text ``"B1, C"``) or None for the parameter set's ``clearance.joints``. The fast
    engine models one clearance joint: several are a :class:`robolib.ParameterError` naming ``engine`` and
    ``clearance_joint``.

    >>> check_engine("fast", "B1")
    ['B1']
    >>> check_engine("fast", "B1, E2")
    Traceback (most recent call last):
        ...
    robolib.ParameterError: engine = 'fast' is not valid with clearance_joint = 'B1, E2': the fast engine models one clearance joint (2 named); use engine = 'dae' for several
    """
    if not isinstance(engine, str) or engine not in ENGINES:
        raise ParameterError(f"engine = {engine!r} is not valid: engine must be one of {', '.join(map(repr, ENGINES))} "
                             f"(the fast minimal-coordinate model or the seed's Baumgarte DAE)")
    if joints is None and params is not None:
        joints = params["clearance"]["joints"]
    if joints is None:
        return []
    names = [x.strip() for x in joints.split(",") if x.strip()] if isinstance(joints, str) else list(joints)
    if engine == "fast" and len(names) != 1:
        shown = joints if isinstance(joints, str) else ", ".join(map(str, names))
        raise ParameterError(f"engine = 'fast' is not valid with clearance_joint = {shown!r}: the fast engine models "
                             f"one clearance joint ({len(names)} named); use engine = 'dae' for several")
    return names


def _solver(p, rtol=None, atol=None):
    s = p["solver"]
    rt = s["rtol"] if rtol is None else float(rtol)
    at = s["atol"] if atol is None else float(atol)
    return rt, at


def poincare_run(params: dict, frequency: float | None = None, clearance: float | None = None,
                 n_transient: int = POINCARE_TRANSIENT, n_samples: int = POINCARE_SAMPLES, joints=None,
                 backend: str = "auto", rtol: float | None = None, atol: float | None = None,
                 k_max: int | None = None, engine: str = REFERENCE_ENGINE) -> PoincareRun:
    """Stroboscopic Poincaré samples and the period reading of the gear-shift clearance response (picklable).

    Simulates ``n_transient + n_samples`` drive periods from the ideal state
    (journal centred) and samples once per period after the transient, from the
    integrator's dense output. The samples of clearance joint 0 are normalised,
    ``s = (e_local / c, e_dot / (c omega))`` (N, 4) (``e_local`` in the bearing
    body's frame, ``e_dot`` the rate of ``e = P_j - P_i`` in the global frame),
    and tested for a period
    (:func:`robolib.core.nonlinear.period_k`, lags 1..``k_max``, default
    ``min(8, n_samples // 3)``) within a tolerance tied to the integration
    noise: one more period is integrated from the final state at ``rtol`` and
    at ``rtol / NOISE_RTOL_DIVISOR``; the normalised difference of the two end
    states is the noise of one return, and the tolerance is
    ``max(PERIOD_TOL_FACTOR * noise, PERIOD_TOL_FLOOR)``.

    ``engine``: ``"fast"`` (the chapter's default) integrates :class:`robolib.gearshift.fast.FastClearance` (one
    clearance joint; the body coordinates of the end-point errors reconstructed from ``e``), ``"dae"`` (the default
    here) the seed's Baumgarte DAE (:func:`robolib.gearshift.simulate_clearance`, any joints). Both return the same
    fields, measured the same way; their samples agree to the integration error (tests/gearshift/test_runs.py).

    Returns a :class:`PoincareRun`: the parameter values, sample times ``t``, ``e_local``, ``e_dot``
    (N, 2), ``eps`` (N,), ``samples`` (N, 4), end-point errors ``dE``, ``dvE``
    (N, 2) (m, m/s), ``period`` (k >= 1, or 0 for irregular), ``noise``,
    ``period_tol``, ``residuals`` (k_max,) (:func:`robolib.core.nonlinear.repeat_residuals`),
    ``n_episodes``, ``peak_force`` (N), ``rtol``, ``n_steps``, ``wall_s`` (s) and
    ``engine``. ``rtol``/``atol`` default to the parameter file's solver values.

    Bad arguments raise :class:`robolib.ParameterError` naming the argument and its valid values
    (:data:`robolib.gearshift.model.ARGUMENTS`: frequency > 0 Hz, clearance > 0 m, 0 < rtol < 1, atol > 0,
    n_transient >= 0, n_samples >= 2, k_max >= 1; engine in :data:`ENGINES`, one joint for ``"fast"``) before any
    integration.
    """

    check_arguments(frequency=frequency, clearance=clearance, n_transient=n_transient, n_samples=n_samples,
                    rtol=rtol, atol=atol, k_max=k_max)
    p = params if frequency is None else with_changes(params, **{"motion.frequency": float(frequency)})
    check_engine(engine, joints, p)
    rt, at = _solver(p, rtol, atol)
    f = p["motion"]["frequency"]
    T = 1.0 / f
    ts = poincare_times(T, n_transient, n_samples)
    run = (_fast_poincare if engine == "fast" else _dae_poincare)(p, joints, clearance, ts, T, rt, at, backend)
    gs, c, w = run["gs"], run["c"], 2 * np.pi * f
    ideal = [gs.ideal_state(t) for t in ts]
    q_id = np.array([s[0] for s in ideal])
    qd_id = np.array([s[1] for s in ideal])
    q, qd = run["q"], run["qd"]
    dE = gs.end_point(q) - gs.end_point(q_id)
    vE = lambda q, qd: gs.mech.point_velocity(q, qd, "l12", (gs.l / 2, 0.0))  # noqa: E731
    dvE = vE(q, qd) - vE(q_id, qd_id)
    scale = np.concatenate([run["e_local"] / c, run["e_dot"] / (c * w)], axis=-1)
    ends = [np.concatenate([el / c, ed / (c * w)]) for el, ed in run["ends"]]
    noise = float(np.max(np.abs(ends[0] - ends[1])))
    tol = max(PERIOD_TOL_FACTOR * noise, PERIOD_TOL_FLOOR)
    km = min(PERIOD_K_MAX, n_samples // 3) if k_max is None else int(k_max)
    km = max(1, min(km, n_samples - 1))
    n_imp = sum(1 for (t_on, _t_off, _d) in run["episodes"] if t_on >= ts[0])
    return PoincareRun(frequency=f, clearance=c, samples=scale, period=period_k(scale, tol, km), noise=noise,
                       period_tol=tol, residuals=repeat_residuals(scale, km), n_episodes=n_imp,
                       peak_force=run["peak_force"], rtol=rt, n_steps=run["n_steps"], wall_s=run["wall_s"], t=ts,
                       e_local=run["e_local"], e_dot=run["e_dot"], eps=run["eps"], dE=dE, dvE=dvE, engine=engine)


def _dae_poincare(p, joints, clearance, ts, T, rt, at, backend) -> dict:
    """The seed's DAE over ``ts``: journal orbit of joint 0, body coordinates, the two noise returns' end states."""
    gs = build_gearshift(p)
    cm = clearance_model(gs, joints, clearance)
    _, r = simulate_clearance(gs, float(ts[-1]), t_eval=ts, cmodel=cm, backend=backend, rtol=rt, atol=at)
    orb = journal_orbit(cm, r.q, r.qd)
    n = cm.reduced.n
    y_end, dd_end = r.y_final.copy(), r.ddelta0_final.copy()
    ends = []
    for tol_div in (1.0, NOISE_RTOL_DIVISOR):   # one more return at rtol and at rtol / NOISE_RTOL_DIVISOR
        rr = cm.simulate((ts[-1], ts[-1] + T), y_end[:n], y_end[n:2 * n], t_eval=[ts[-1] + T], ddelta0=dd_end,
                         rtol=rt / tol_div, atol=at / tol_div, backend=backend)
        o = journal_orbit(cm, rr.q, rr.qd)
        ends.append((o.e_local[0], o.e_dot[0]))
    return {"gs": gs, "c": cm.specs[0].clearance, "q": r.q, "qd": r.qd, "e_local": orb.e_local,
            "e_dot": orb.e_dot, "eps": orb.eps, "ends": ends, "episodes": r.episodes[0],
            "peak_force": float(cm.contact_forces(r)["F_n"][0].max()), "n_steps": r.n_steps, "wall_s": r.wall_s}


def _fast_poincare(p, joints, clearance, ts, T, rt, at, backend) -> dict:
    """:class:`FastClearance` over ``ts`` (``backend`` unused, the loop is compiled): :func:`_dae_poincare`'s fields."""

    joint = check_engine("fast", joints, p)[0]
    fc = FastClearance(p, joint=joint, clearance=clearance)
    rt, at = engine_tolerances("fast", rt, at)
    r = fc.simulate((0.0, float(ts[-1])), t_eval=ts, rtol=rt, atol=at, full=True)
    ends = []
    for tol_div in (1.0, NOISE_RTOL_DIVISOR):   # one more return at rtol and at rtol / NOISE_RTOL_DIVISOR
        rr = fc.simulate((ts[-1], ts[-1] + T), r.y_final[:2], r.y_final[2:4], t_eval=[ts[-1] + T],
                         ddelta0=r.ddelta0_final, rtol=rt / tol_div, atol=at / tol_div)
        q_end = fc.full_state(rr.e[0], rr.ed[0], ts[-1] + T)[0]
        ends.append((fc.e_local(q_end, rr.e[0]), rr.ed[0]))
    return {"gs": fc.gs, "c": fc.clearance, "q": r.q, "qd": r.qd, "e_local": fc.e_local(r.q, r.e), "e_dot": r.ed,
            "eps": np.hypot(r.e[:, 0], r.e[:, 1]), "ends": ends, "episodes": r.episodes,
            "peak_force": float(fc.contact_forces(r)["F_n"].max()), "n_steps": r.n_steps, "wall_s": r.wall_s}


#: Lyapunov defaults: transient drive periods, measured drive periods.
LYAPUNOV_TRANSIENT = 20
LYAPUNOV_PERIODS = 24


def lyapunov_run(params: dict, frequency: float | None = None, clearance: float | None = None,
                 n_transient: int = LYAPUNOV_TRANSIENT, n_periods: int = LYAPUNOV_PERIODS, joints=None,
                 seed: int = 0, rtol: float | None = None, alpha: float | None = None,
                 engine: str = REFERENCE_ENGINE, eps: float = LY.EPS):
    """Largest Lyapunov exponent (1/s) of the gear-shift clearance response with its batch error (picklable).

    The tangent-linear route of :mod:`robolib.gearshift.lyapunov` on ``engine``: ``"dae"`` (the default here)
    :func:`~robolib.gearshift.lyapunov.dae_tangent_lyapunov`, the seed's Baumgarte DAE, its tangent read and
    restarted in the chart ``(e, ed)`` of the constraint manifold (the Baumgarte modes do not enter);
    ``"fast"`` (the chapter's) :func:`~robolib.gearshift.lyapunov.tangent_lyapunov`, the minimal-coordinate
    model at ``rtol`` divided by :data:`FAST_TOLERANCE_DIVISOR` (:func:`engine_tolerances`). ``n_transient``
    drive periods, then ``n_periods`` measured (eight renormalisations each, after
    :data:`robolib.gearshift.lyapunov.N_ALIGN` unmeasured). ``frequency`` (Hz) and ``clearance`` (m, radial)
    default to the parameter set's; ``alpha`` (1/s) overrides the DAE's Baumgarte factors (refused on the
    fast model, which has none); ``eps`` the variational equation's relative half-width. One clearance joint
    (``joints``, default the set's). Returns a
    :class:`robolib.gearshift.lyapunov.TangentExponent`. Bad arguments raise :class:`robolib.ParameterError`
    naming them before any integration.
    """
    check_arguments(frequency=frequency, clearance=clearance, n_transient=n_transient, n_periods=n_periods,
                    seed=seed, rtol=rtol, alpha=alpha)
    check_clearance(params, clearance)
    names = check_engine(engine, joints, params)
    if len(names) != 1:
        raise ParameterError(f"joints = {joints!r} is not valid: the Lyapunov exponent is read in the chart (e, ed) "
                             f"of one clearance joint ({len(names)} named)")
    joint = names[0]
    if engine == "fast" and alpha is not None:
        raise ParameterError(f"alpha = {alpha!r} is not valid with engine = 'fast': the minimal-coordinate model has "
                             f"no Baumgarte terms (alpha must be None; use engine = 'dae' to vary it)")
    f = params["motion"]["frequency"] if frequency is None else float(frequency)
    c = params["clearance"]["radial_clearance"] if clearance is None else float(clearance)
    rt = engine_tolerances(engine, *_solver(params, rtol, None))[0]
    kw = dict(rtol=rt, n_periods=n_periods, n_transient=n_transient, seed=seed, eps=eps)
    if engine == "fast":
        return LY.tangent_lyapunov(params, f, c, joint, **kw)
    return LY.dae_tangent_lyapunov(params, f, c, joint, alpha=alpha, **kw)


def orbit_run(params: dict, frequency: float | None = None, clearance: float | None = None,
              n_transient: int = 10, n_periods: int = 4, samples_per_period: int = 200, joints=None,
              backend: str = "auto") -> OrbitRun:
    """Densely sampled steady clearance response over ``n_periods`` drive periods (picklable, for sweeps).

    Integrates from the ideal state at ``t = 0`` and samples
    ``samples_per_period`` times per period after ``n_transient`` periods
    (the first sample of each period is a Poincaré sample). Returns an :class:`OrbitRun`: ``t`` (T,),
    the journal orbit ``e_local``, ``e_dot`` (T, 2) and ``eps`` (T,) of
    clearance joint 0, its normal force ``F_n`` (T,), the lever-tip
    acceleration ``a_tip`` (T, 2) (m/s^2), the Poincaré samples ``poincare``
    (n_periods, 4) of ``(e_local, e_dot)``, the mode shares of the window
    (:func:`robolib.core.clearance.mode_shares`), the parameter values and the
    integrator counters. Bad arguments raise :class:`robolib.ParameterError` naming the argument and its valid
    values (frequency > 0 Hz, clearance > 0 m, n_transient >= 0, n_periods >= 1, samples_per_period >= 1).

    >>> r = orbit_run(load_parameters(), frequency=10.0, n_transient=0, n_periods=1, samples_per_period=20)
    >>> r.t.shape, r.poincare.shape
    ((20,), (1, 4))
    """

    check_arguments(frequency=frequency, clearance=clearance, n_transient=n_transient, n_periods=n_periods,
                    samples_per_period=samples_per_period)
    p = params if frequency is None else with_changes(params, **{"motion.frequency": float(frequency)})
    gs = build_gearshift(p)
    cm = clearance_model(gs, joints, clearance)
    f = p["motion"]["frequency"]
    T = 1.0 / f
    k = np.arange(n_periods * samples_per_period)
    ts = (n_transient + k / samples_per_period) * T
    t_end = (n_transient + n_periods) * T
    _, r = simulate_clearance(gs, t_end, t_eval=ts, cmodel=cm, backend=backend)
    orb = journal_orbit(cm, r.q, r.qd)
    F = cm.contact_forces(r)
    qdd = cm.accelerations(r, backend)
    hp = gs.lpc / 2
    th, w, a = r.q[:, 20], r.qd[:, 20], qdd[:, 20]
    u = np.stack([np.cos(th), np.sin(th)], axis=-1)
    up = np.stack([-np.sin(th), np.cos(th)], axis=-1)
    a_tip = qdd[:, 18:20] + hp * (a[:, None] * up - (w * w)[:, None] * u)
    sel = k % samples_per_period == 0
    pc = np.concatenate([orb.e_local[sel], orb.e_dot[sel]], axis=-1)
    return OrbitRun(frequency=f, clearance=cm.specs[0].clearance, t=r.t, e_local=orb.e_local, e_dot=orb.e_dot,
                    eps=orb.eps, F_n=F["F_n"][0], a_tip=a_tip, poincare=pc,
                    shares=mode_shares(r.episodes[0], float(ts[0]), t_end, cm.impact_max_duration),
                    n_steps=r.n_steps, wall_s=r.wall_s)


def detail_metrics(params: dict, duration: float = 1.0, rtol: float | None = None, atol: float | None = None,
                   sample_rate: float = 20000.0, backend: str = "auto") -> DetailMetrics:
    """Tolerance-sensitive outputs of one clearance run from the ideal state (picklable, for sweeps).

    Integrates ``duration`` s (default data: 2 Hz, c = 0.1 mm) and returns (a :class:`DetailMetrics`) the
    number of contact episodes and of impacts (episodes no longer than
    ``impact_max_duration``), the peak normal force (N) and the largest
    end-point position error (m) at ``sample_rate`` samples per second (dense
    output), plus the integrator counters and wall time (s). Bad arguments raise :class:`robolib.ParameterError`
    naming the argument and its valid values (duration > 0 s, 0 < rtol < 1, atol > 0, sample_rate > 0 1/s).

    >>> m = detail_metrics(load_parameters(), duration=0.01, rtol=1e-6, atol=1e-9)
    >>> m.n_episodes >= m.n_impacts >= 0, m.n_steps > 0
    (True, True)
    """

    check_arguments(duration=duration, rtol=rtol, atol=atol, sample_rate=sample_rate)
    rt, at = _solver(params, rtol, atol)
    gs = build_gearshift(params)
    cm = clearance_model(gs)
    ts = np.linspace(0.0, duration, int(round(duration * sample_rate)) + 1)
    _, r = simulate_clearance(gs, duration, t_eval=ts, cmodel=cm, rtol=rt, atol=at, backend=backend)
    E_id = gs.end_point(np.array([gs.ideal_state(t)[0] for t in ts]))
    sh = mode_shares(r.episodes[0], 0.0, duration, cm.impact_max_duration)
    F = cm.contact_forces(r)["F_n"][0]
    return DetailMetrics(n_episodes=len(r.episodes[0]), n_impacts=sh["n_impacts"], peak_force=float(F.max()),
                         dp_max=float(np.abs(gs.end_point(r.q) - E_id).max()), rtol=rt, n_steps=r.n_steps,
                         n_rejected=r.n_rejected, wall_s=r.wall_s)


__all__ = ["journal_orbit", "poincare_run", "lyapunov_run", "orbit_run", "POINCARE_TRANSIENT", "POINCARE_SAMPLES", "PERIOD_TOL_FACTOR", "PERIOD_TOL_FLOOR", "NOISE_RTOL_DIVISOR", "LYAPUNOV_TRANSIENT", "LYAPUNOV_PERIODS", "detail_metrics", "JournalOrbit", "PoincarePoint", "PoincareRun", "OrbitRun", "DetailMetrics"]
