"""Redundant robot: forward simulation with friction, friction power, and the friction studies' library functions (Stribeck calibration, operating points, sweeps, decoupling error)."""

from __future__ import annotations

import dataclasses
import math
import numbers
import re
from typing import NamedTuple

import numpy as np
from joblib import Parallel, delayed
from scipy.integrate import solve_ivp
from scipy.interpolate import CubicSpline

from robolib.core import checks
from robolib.core import friction as _fr
from robolib.core.errors import ConvergenceError, ParameterError, SingularityError
from robolib.redundant.dynamics import (  # noqa: F401
    _core,
    _solve_reduced,
    forward_dynamics,
    inverse_dynamics,
    inverse_kinematics,
    preload_direction,
    preload_reactions,
    reference_circle,
    reference_motion,
)
from robolib.redundant.model import (  # noqa: F401
    _ACTIVE,
    _PASSIVE,
    ASSEMBLY_TOL,
    BAUMGARTE,
    CIRCLE_PERIOD,
    CIRCLE_RADIUS,
    COULOMB_MAX_ITER,
    COULOMB_TOL,
    DEFAULT_ELBOWS,
    DT,
    FRICTION_MODELS,
    Robot,
    _batch,
    _choice,
    _constraints,
    _elbows,
    _friction_name,
    _mass_blocks,
    _show,
    _vec,
    constraint_residual,
    end_effector,
    kinetic_energy,
)


# --------------------------------------------------------------------------- simulation
class TorqueSchedule:
    """Motor torques as a smooth function of time, from samples (cubic spline).

    ``times`` (N,) s increasing, N >= 2, ``values`` (N, 3) N m. ``periodic=True``
    wraps time with period ``times[-1] - times[0]`` (then ``values[-1]`` must
    equal ``values[0]``); a schedule that is not periodic refuses times outside
    ``[times[0], times[-1]]`` (no extrapolation). Calling it with a scalar gives (3,), with an array
    (K,) gives (K, 3); :func:`simulate` evaluates it once on all RK4 stage times.

    >>> s = TorqueSchedule([0.0, 1.0, 2.0], [[0, 0, 0], [1, 1, 1], [2, 2, 2]])
    >>> s(0.5)
    array([0.5, 0.5, 0.5])
    >>> s(2.5)
    Traceback (most recent call last):
        ...
    robolib.ParameterError: t = 2.5 is not valid: t must be within the schedule's times [0, 2] s (periodic=False)
    """

    vectorized = True

    def __init__(self, times, values, periodic=False):

        t = checks.real_array("times", times, shape=(None,))
        if t.size < 2 or np.any(np.diff(t) <= 0):
            raise ParameterError(f"times = {_show(times)} is not valid: times must be at least two increasing times "
                                 f"(N,) in s")
        v = checks.real_array("values", values, shape=(None, 3))
        if len(v) != t.size:
            raise ParameterError(f"values must have one row per time: shape ({t.size}, 3) for the {t.size} times, "
                                 f"got {v.shape}")
        periodic = checks.flag("periodic", periodic)
        if periodic and not np.allclose(v[0], v[-1], rtol=1e-15, atol=1e-15):
            raise ParameterError(f"values: the first row {v[0].tolist()} and the last {v[-1].tolist()} (N m) must be "
                                 "equal when periodic=True")
        self._spline = CubicSpline(t, v, axis=0, bc_type="periodic" if periodic else "not-a-knot")
        self.t0, self.t1, self.periodic = t[0], t[-1], periodic

    def __call__(self, t):
        t = checks.real_array("t", t, allow_empty=True)
        if self.periodic:
            t = self.t0 + np.mod(t - self.t0, self.t1 - self.t0)
        else:
            slack = 1e-9 * (self.t1 - self.t0)          # rounding of the caller's time grid
            if np.any(t < self.t0 - slack) or np.any(t > self.t1 + slack):
                bad = float(t.flat[np.argmax((t < self.t0 - slack) | (t > self.t1 + slack))])
                raise ParameterError(f"t = {bad:g} is not valid: t must be within the schedule's times "
                                     f"[{self.t0:g}, {self.t1:g}] s (periodic=False)")
            t = np.clip(t, self.t0, self.t1)
        return self._spline(t)


def _samples(samples) -> int:
    return checks.count("samples", samples, low=8)


def _circle(circle: dict) -> dict:
    """The reference circle's keyword arguments (``radius`` m >= 0, ``period`` s > 0, ``center`` (2,) m or None),
    checked up front."""
    unknown = sorted(str(k) for k in circle if k not in ("radius", "period", "center"))
    if unknown:
        raise ParameterError(f"{unknown[0]} is not an argument here (the circle's are radius (m), period (s) and "
                             "center (m))")
    out = dict(circle)
    if "radius" in out:
        out["radius"] = checks.real("radius", out["radius"], low=0.0, unit="m")
    if "period" in out:
        out["period"] = checks.real("period", out["period"], low=0.0, open_low=True, unit="s")
    if out.get("center") is not None:
        out["center"] = _vec("center", out["center"], 2)
    return out


def _motion(preload, samples, elbows, circle: dict):
    """``(preload, samples, elbows, circle)`` of a friction study along the circle, checked before any work."""
    preload = checks.real("preload", preload, unit="N m")
    samples = _samples(samples)
    _elbows(elbows)
    return preload, samples, elbows, _circle(circle)


def reference_torque(robot: Robot, friction=None, preload=0.0, samples=400, elbows=DEFAULT_ELBOWS, **circle) -> TorqueSchedule:
    """Periodic :class:`TorqueSchedule` of the motor torques that drive the reference circle.

    ``samples`` (>= 8) points per period of exact inverse dynamics, interpolated by a
    periodic cubic spline (friction-free torques: interpolation error < 1e-9 N m
    for the default 400 samples).

    >>> robot = load(); sched = reference_torque(robot, samples=200)
    >>> q, dq, ddq = reference_motion(robot, [0.37])
    >>> bool(np.allclose(sched(0.37), inverse_dynamics(robot, q, dq, ddq).tau[0], atol=1e-7))
    True
    """
    _friction_name(friction, robot)
    preload, samples, elbows, circle = _motion(preload, samples, elbows, circle)
    period = circle.get("period", CIRCLE_PERIOD)
    t = np.linspace(0.0, period, samples + 1)
    q, dq, ddq = reference_motion(robot, t, elbows, **circle)
    tau = inverse_dynamics(robot, q, dq, ddq, friction, preload).tau
    tau[-1] = tau[0]
    return TorqueSchedule(t, tau, periodic=True)


# --------------------------------------------------------------------------- consistent Coulomb: contraction
#: Largest contraction factor of the consistent-Coulomb fixed point ``tau_f = -mu R |F(tau_f)| sgn(w)`` at which
#: its iteration reaches the relative tolerance ``COULOMB_TOL`` within ``COULOMB_MAX_ITER`` steps
#: (``L ** COULOMB_MAX_ITER = COULOMB_TOL``; 0.759 for 1e-12 and 100): a factor at or above it may not converge.
CONTRACTION_LIMIT = COULOMB_TOL ** (1.0 / COULOMB_MAX_ITER)


def reaction_sensitivity(robot: Robot, q) -> np.ndarray:
    """``dF_i / dtau_j`` (..., 3, 2, 3) in forward dynamics at configurations ``q`` (..., 12), in 1/m.

    Bearing reaction ``F_i`` (N) per N m of torque at active joint ``j``: the
    reactions are affine in the joint torques (a friction torque enters like a
    motor torque), ``lambda = lambda_0 - S^-1 A M^-1 E tau``, and the slope
    depends on the configuration and the masses only, not on the rates.

    >>> robot = load(); q, dq, _ = reference_motion(robot, [0.3])
    >>> H = reaction_sensitivity(robot, q[0])
    >>> F = lambda tau: solve_dynamics(robot, q[0], dq[0], tau).reactions
    >>> bool(np.allclose(F([0.0, 1.0, 0.0]) - F([0.0, 0.0, 0.0]), H[:, :, 1]))
    True
    """
    q = _batch("q", q, 12)
    lead = q.shape[:-1]
    qf = q.reshape(-1, 12)
    N = qf.shape[0]
    Mi = np.linalg.inv(_mass_blocks(robot, qf))                         # (N, 3, 4, 4)
    A = _constraints(robot, qf, np.zeros_like(qf))[2]                  # (N, 10, 12)
    MiAT = np.einsum("nckl,nrcl->nckr", Mi, A.reshape(N, 10, 3, 4)).reshape(N, 12, 10)
    S = A @ MiAT                                                       # (N, 10, 10)
    G = np.linalg.solve(S, np.swapaxes(MiAT[:, _ACTIVE, :], -1, -2))    # S^-1 A M^-1 E, (N, 10, 3)
    return (-G[:, 4:, :]).reshape(lead + (3, 2, 3))


def coulomb_contraction(robot: Robot, q) -> tuple[np.ndarray, np.ndarray]:
    """Bounds ``(forward, inverse)`` (...,) of the contraction factor of the consistent-Coulomb fixed point at ``q``.

    The consistent Coulomb model solves ``tau_f,i = -mu R |F_i(tau_f)| tanh(w_i / eps)``
    by fixed-point iteration; it converges (geometrically, at this rate) where the
    map contracts. In forward dynamics (:func:`simulate`) ``|dF_i| <= sum_j ||dF_i/dtau_j||
    |dtau_f,j|`` (:func:`reaction_sensitivity`), so ``forward = mu R max_i sum_j
    ||dF_i/dtau_j||``; in inverse dynamics a friction torque moves the reactions only
    along the preload, ``dF_i = (dF_i/dp) (n . dtau_f)``, so ``inverse = mu R sum_i |n_i|
    ||dF_i/dp||`` (:func:`preload_reactions`). Both take ``|tanh| <= 1`` (any speed) and do
    not depend on the torques or the preload. Iterations converge within the
    budget where the factor is below :data:`CONTRACTION_LIMIT`.

    >>> robot = load(); q, _, _ = reference_motion(robot, np.linspace(0.0, 2.0, 50, endpoint=False))
    >>> fwd, inv = coulomb_contraction(robot, q)
    >>> bool(fwd.max() < 0.01 and inv.max() < 0.01)   # mu R = 1 mm: a strong contraction on the circle
    True
    """
    q = _batch("q", q, 12)
    muR = robot.mu * robot.journal_radius
    H = reaction_sensitivity(robot, q)
    fwd = muR * np.linalg.norm(H, axis=-2).sum(axis=-1).max(axis=-1)
    pr = np.linalg.norm(preload_reactions(robot, q), axis=-1)
    inv = muR * np.sum(np.abs(preload_direction(robot, q)) * pr, axis=-1)
    return fwd, inv


class Simulation(NamedTuple):
    """Result of :func:`simulate`; arrays have a leading time axis of length N."""

    t: np.ndarray  #: (N,) s
    q: np.ndarray  #: (N, 12)
    dq: np.ndarray  #: (N, 12)
    tau: np.ndarray  #: (N, 3) motor torques (N m)
    friction_torque: np.ndarray  #: (N, 3) friction torques (N m)
    reactions: np.ndarray  #: (N, 3, 2) base reactions on the active links (N)
    kinetic_energy: np.ndarray  #: (N,) J
    motor_work: np.ndarray  #: (N,) J, integral of tau . w
    dissipated_energy: np.ndarray  #: (N,) J, minus the integral of tau_f . w (>= 0)
    end_effector: np.ndarray  #: (N, 2) m (chain 1's tip)
    drift: np.ndarray  #: (N,) largest constraint violation ``max |phi|`` over both layers (m)
    stopped: str | None = None  #: why the run stopped early (``on_failure="stop"``), with the time; None: it ran to t_end


def _torque_function(torque):
    if callable(torque):
        return torque
    tau = _vec("torque", torque, 3)

    def constant(t):
        return np.broadcast_to(tau, np.shape(t) + (3,)).copy()
    constant.vectorized = True
    return constant


def _torques(tau_fn, t) -> np.ndarray:
    """The torques (K, 3) of ``tau_fn`` at the times ``t`` (K,) s: finite, or :class:`ParameterError` naming
    ``torque``."""
    want = "torque must give three finite values (N m) at every time t in [0, t_end] s"
    try:
        if getattr(tau_fn, "vectorized", False):
            taus = np.asarray(tau_fn(t), dtype=float)
        else:
            taus = np.array([np.asarray(tau_fn(s), dtype=float) for s in t])
    except (TypeError, ValueError, ArithmeticError) as exc:      # a ParameterError of a TorqueSchedule too
        raise ParameterError(f"{want}: {exc}") from None
    if taus.shape != (len(t), 3):
        raise ParameterError(f"{want}, got shape {taus.shape[1:]}")
    if not np.all(np.isfinite(taus)):
        k = int(np.argmin(np.all(np.isfinite(taus), axis=1)))
        raise ParameterError(f"{want}, got {taus[k].tolist()} at t = {t[k]:g} s")
    return taus


#: Largest number of RK4 steps (or adaptive output points) of :func:`simulate`, ``t_end / dt``.
MAX_STEPS = 10**7
#: Smallest relative tolerance of the adaptive integrator (scipy's floor, 100 machine epsilons).
RTOL_MIN = 100 * np.finfo(float).eps


def simulate(robot: Robot, q0, dq0, torque, t_end: float, *, friction=None, integrator="rk4", dt=DT,
             baumgarte=BAUMGARTE, rtol=1e-8, atol=1e-10, record_every=1, on_failure="raise") -> Simulation:
    """Integrate the forward dynamics from ``(q0, dq0)`` (12,) for ``t_end`` seconds.

    ``torque``: constant (3,) N m, or a callable ``t -> (3,)`` (a
    :class:`TorqueSchedule` is evaluated once on all stage times).
    ``integrator``: ``"rk4"`` (fixed step ``dt``, s; records every
    ``record_every`` steps) or ``"adaptive"`` (scipy ``DOP853`` with ``rtol``,
    ``atol``; records every ``dt * record_every``). The constraint drift is
    stabilised by Baumgarte gains ``baumgarte = (alpha, beta)`` (1/s). The
    motor work and the friction dissipation are integrated with the state,
    so ``kinetic_energy - kinetic_energy[0] = motor_work - dissipated_energy``
    up to the (small) work of the Baumgarte terms. Every argument is checked
    before the integration (the torque at the RK4 stage times, or at 0 and
    ``t_end`` for the adaptive integrator); at most :data:`MAX_STEPS` steps.

    Where the dynamics have no solution at a state the run reaches (a singular
    configuration, or a consistent-Coulomb fixed point that does not converge there:
    the message gives the contraction factor of :func:`coulomb_contraction` and the
    smallest ``|sin b_i|`` at that state), ``on_failure="raise"`` raises the error
    (``"simulation stopped at t = ... s: ..."``); ``on_failure="stop"`` (RK4 only) returns
    the states recorded until then, with that message in ``stopped``.

    >>> robot = load(); q0, dq0 = initial_state(robot, robot.centroid, [0.05, 0.0])
    >>> sim = simulate(robot, q0, dq0, np.zeros(3), 0.2, friction="stribeck")
    >>> bool(np.all(np.diff(sim.dissipated_energy) >= 0)), bool(sim.kinetic_energy[-1] < sim.kinetic_energy[0])
    (True, True)
    >>> simulate(robot, q0, dq0, np.zeros(3), float("nan"))
    Traceback (most recent call last):
        ...
    robolib.ParameterError: t_end must be a number > 0 s, got nan
    """
    q0 = _vec("q0", q0, 12)
    dq0 = _vec("dq0", dq0, 12)
    tau_fn = _torque_function(torque)
    t_end = checks.real("t_end", t_end, low=0.0, open_low=True, unit="s")
    _friction_name(friction, robot)
    _choice("integrator", integrator, ("rk4", "adaptive"))
    dt = checks.real("dt", dt, low=0.0, open_low=True, unit="s")
    gains = checks.real_array("baumgarte", baumgarte, shape=(2,))
    if np.any(gains < 0):
        raise ParameterError(f"baumgarte gains (alpha, beta) must be non-negative (1/s), got {_show(baumgarte)}")
    alpha, beta = (float(x) for x in gains)
    rtol = checks.real("rtol", rtol, low=RTOL_MIN)
    atol = checks.real("atol", atol, low=0.0, open_low=True)
    record_every = checks.count("record_every", record_every)
    _choice("on_failure", on_failure, ("raise", "stop"))
    if on_failure == "stop" and integrator != "rk4":
        raise ParameterError(f"on_failure = 'stop' is not valid with integrator = {integrator!r}: on_failure must be "
                             "'raise' there ('stop' is for rk4 only)")
    steps = t_end / dt if integrator == "rk4" else t_end / (dt * record_every)
    if not steps <= MAX_STEPS:
        raise ParameterError(f"t_end = {t_end:g} s and dt = {dt:g} s give {steps:.3g} "
                             f"{'RK4 steps' if integrator == 'rk4' else 'output points'}: t_end / dt must be at most "
                             f"{MAX_STEPS:.0e}")
    res = constraint_residual(robot, q0, dq0)
    if max(res) > ASSEMBLY_TOL:
        raise ParameterError(
            f"initial state (q0, dq0) is not assembled (constraint residual {max(res):.2e} > {ASSEMBLY_TOL:g}); "
            "use initial_state or inverse_kinematics"
        )
    if integrator == "rk4":
        n = int(math.ceil(t_end / dt - 1e-9))
        h = t_end / n
        stage_t = np.arange(2 * n + 1) * (h / 2)
        taus = _torques(tau_fn, stage_t)        # every torque of the run, checked before it starts
    else:
        _torques(tau_fn, np.array([0.0, t_end]))

    last_tf = [None]

    def rhs(t, y, tau):
        ys = y.tolist()
        qs, ds = ys[:12], ys[12:24]
        ts = tau.tolist()
        ddq, _, tf, _ = _core(robot, qs, ds, ts, friction, alpha, beta, last_tf[0])
        last_tf[0] = tf  # warm start of the consistent-Coulomb fixed point
        w0, w1, w2 = ds[2], ds[6], ds[10]
        return np.array(ds + ddq + [ts[0] * w0 + ts[1] * w1 + ts[2] * w2, -(tf[0] * w0 + tf[1] * w1 + tf[2] * w2)])

    y = np.concatenate([q0, dq0, [0.0, 0.0]])
    if integrator == "rk4":
        rec = list(range(0, n + 1, record_every))
        if rec[-1] != n:
            rec.append(n)
        Y = np.empty((len(rec), 26))
        k = 0
        stopped = None
        for step in range(n + 1):
            if step == rec[k]:
                Y[k] = y
                k += 1
                if step == n:
                    break
            t = step * h
            ta, tm, tb = taus[2 * step], taus[2 * step + 1], taus[2 * step + 2]
            ys = y
            try:
                k1 = rhs(t, ys, ta)
                ys = y + (h / 2) * k1
                k2 = rhs(t + h / 2, ys, tm)
                ys = y + (h / 2) * k2
                k3 = rhs(t + h / 2, ys, tm)
                ys = y + h * k3
                k4 = rhs(t + h, ys, tb)
            except (SingularityError, ConvergenceError, OverflowError) as exc:
                msg = f"simulation stopped at t = {t:.6g} s: {_failure_reason(robot, ys, friction, exc)}"
                if on_failure == "raise":
                    raise (ConvergenceError if isinstance(exc, OverflowError) else type(exc))(msg) from None
                finite = np.all(np.isfinite(Y[:k]), axis=1)
                stopped, Y = msg, Y[:int(np.argmin(finite)) if not finite.all() else k]
                break
            y = y + (h / 6) * (k1 + 2 * k2 + 2 * k3 + k4)
        T = np.array(rec[:len(Y)]) * h
    else:

        n_out = int(math.ceil(t_end / (dt * record_every) - 1e-9))
        T = np.linspace(0.0, t_end, n_out + 1)

        def f(t, y):
            return rhs(t, y, _torques(tau_fn, np.array([t]))[0])

        sol = solve_ivp(f, (0.0, t_end), y, method="DOP853", t_eval=T, rtol=rtol, atol=atol)
        if not sol.success:
            raise ConvergenceError(f"adaptive integration failed: {sol.message}")
        Y = sol.y.T
        stopped = None
    # by-products at the recorded states
    N = len(T)
    taus_r = _torques(tau_fn, T)
    tf = np.empty((N, 3))
    F = np.empty((N, 3, 2))
    for j in range(N):
        try:
            d = _solve_reduced(robot, Y[j, :12], Y[j, 12:24], taus_r[j], friction, alpha, beta)
        except (SingularityError, ConvergenceError, OverflowError):
            if stopped is None:      # only the state a stopped run failed at may have no solution
                raise
            N, T, Y, taus_r, tf, F = j, T[:j], Y[:j], taus_r[:j], tf[:j], F[:j]
            break
        tf[j], F[j] = d.friction_torque, d.reactions
    q, dq = Y[:, :12], Y[:, 12:24]
    drift = np.abs(_constraints(robot, q, dq)[0]).max(axis=-1)
    return Simulation(T, q, dq, taus_r, tf, F, kinetic_energy(robot, q, dq), Y[:, 24], Y[:, 25],
                      end_effector(robot, q), drift, stopped)


def _failure_reason(robot: Robot, y, friction, exc) -> str:
    """Why the dynamics failed at state ``y`` (q, dq, ...): the error, the largest joint rate and the smallest
    ``|sin b_i|`` there, and for the consistent Coulomb model the contraction factor (computed, instead of the
    solver's guess)."""

    text = "numerical overflow: the integration diverged" if isinstance(exc, OverflowError) else str(exc)
    y = np.asarray(y, dtype=float)
    if not np.all(np.isfinite(y[:24])):
        return text
    q, dq = y[:12], y[12:24]
    sb = np.abs(np.sin(q[_PASSIVE]))
    i = int(np.argmin(sb))
    state = f"largest joint rate {np.abs(dq[np.r_[_ACTIVE, _PASSIVE]]).max():.3g} rad/s, smallest |sin b_i| = {sb[i]:.2g} (chain {i + 1})"
    if friction != "coulomb_consistent" or not isinstance(exc, ConvergenceError):
        return f"{text} ({state})"
    text = re.sub(r" \(mu \* journal_radius = [^()]*contraction factor of the iteration at this state\)", "", text)
    try:
        fwd = float(coulomb_contraction(robot, q)[0])
        factor = (f"the contraction factor mu R max_i sum_j ||dF_i/dtau_j|| is {fwd:.3g} at this state "
                  f"(mu R = {robot.mu * robot.journal_radius:.3g} m)")
        if fwd >= CONTRACTION_LIMIT:
            factor += (f", not below {CONTRACTION_LIMIT:.3g}, the factor that converges in {COULOMB_MAX_ITER} "
                       f"iterations: the friction law has no unique solution here")
        else:
            factor += (f", below {CONTRACTION_LIMIT:.3g}, so the iteration would converge at a sound state: the "
                       f"state itself went wrong first (see the joint rates)")
    except np.linalg.LinAlgError:
        factor = "the reaction sensitivity is singular at this state"
    return f"{text}: {factor}; {state}"


def friction_power(sim: Simulation) -> np.ndarray:
    """Friction power ``sum_i tau_f,i w_i`` (N,) in W at the recorded states (never positive).

    >>> robot = load(); q0, dq0 = initial_state(robot, robot.centroid, [0.05, 0.0])
    >>> bool(np.all(friction_power(simulate(robot, q0, dq0, np.zeros(3), 0.1, friction="coulomb")) <= 0))
    True
    """
    if not isinstance(sim, Simulation):
        raise ParameterError(f"sim = {_show(sim)} is not valid: sim must be a Simulation (the result of simulate), "
                             f"got {type(sim).__name__}")
    tf = checks.real_array("sim.friction_torque", sim.friction_torque, shape=(None, 3), allow_empty=True)
    dq = checks.real_array("sim.dq", sim.dq, shape=(len(tf), 12), allow_empty=True)
    return np.einsum("ni,ni->n", tf, dq[:, _ACTIVE])


# --------------------------------------------------------------------------- friction studies
def _circle_samples(robot: Robot, samples: int, elbows, circle: dict):
    """Uniform samples of one period of the circle: ``t, q, dq, ddq, w`` (w: active-joint rates); the arguments
    checked by :func:`_motion`."""
    period = circle.get("period", CIRCLE_PERIOD)
    t = np.linspace(0.0, period, samples, endpoint=False)
    q, dq, ddq = reference_motion(robot, t, elbows, **circle)
    return t, q, dq, ddq, dq[:, _ACTIVE]


def rms(x) -> float:
    """Root mean square of all entries of ``x`` (e.g. friction torques (N, 3) sampled uniformly in time).

    >>> rms([[3.0, -4.0], [0.0, 0.0]])
    2.5
    """
    x = checks.real_array("x", x)
    return float(np.sqrt(np.mean(x * x)))


class StribeckCalibration(NamedTuple):
    """Result of :func:`calibrate_stribeck` (torques in N m, rates in rad/s)."""

    coulomb_torque: float  #: T_c, the calibrated Coulomb level
    static_torque: float  #: T_s = static_ratio * T_c
    stribeck_velocity: float  #: w_s
    viscous: float  #: b_v (N m s/rad)
    coulomb_rms: float  #: RMS friction torque of the consistent Coulomb model along the motion (the target)
    stribeck_rms: float  #: RMS Stribeck torque at the calibrated level, from inverse dynamics (a check)

    def apply(self, robot: Robot) -> Robot:
        """``robot`` with these Stribeck parameters, marked as calibrated for its ``mu * journal_radius``
        (``robot`` should be the one calibrated: the mark is what the stale-level warning compares)."""
        return dataclasses.replace(robot, coulomb_torque=self.coulomb_torque, static_torque=self.static_torque,
                                   stribeck_velocity=self.stribeck_velocity, viscous=self.viscous,
                                   calibrated_for=robot.mu * robot.journal_radius)


def calibrate_stribeck(robot: Robot, *, static_ratio: float = 1.5, stribeck_velocity: float = 0.1,
                       viscous: float = 0.0, samples: int = 400, preload: float = 0.0, elbows=DEFAULT_ELBOWS,
                       **circle) -> StribeckCalibration:
    """Stribeck level with the same RMS friction torque as the consistent Coulomb model along a motion.

    The motion is the reference circle (``circle``: ``radius`` m, ``period`` s,
    ``center``; defaults of :func:`reference_circle`), sampled uniformly at
    ``samples`` points of one period; the RMS runs over the samples and the
    three active joints. The target is the RMS of ``inverse_dynamics(...,
    "coulomb_consistent", preload)`` (``mu``, ``journal_radius``,
    ``smooth_eps`` and the masses of ``robot``); the Stribeck law has
    ``T_s = static_ratio * T_c``, Stribeck velocity ``stribeck_velocity``
    (rad/s), viscous coefficient ``viscous`` (N m s/rad) and the robot's
    smooth sign, and its level ``T_c`` solves
    :func:`robolib.core.friction.stribeck_level_for_rms` on the joint rates of the
    motion (the Stribeck torque depends on the rates only). Recompute it
    whenever the robot or the motion changes.

    >>> robot = load()
    >>> cal = calibrate_stribeck(robot, samples=200)
    >>> bool(abs(cal.stribeck_rms / cal.coulomb_rms - 1) < 1e-12), round(cal.static_torque / cal.coulomb_torque, 12)
    (True, 1.5)
    >>> bool(np.isclose(cal.coulomb_torque, robot.coulomb_torque, rtol=0.01))   # the default file is calibrated
    True
    """
    static_ratio = checks.real("static_ratio", static_ratio, low=1.0)
    stribeck_velocity = checks.real("stribeck_velocity", stribeck_velocity, low=0.0, open_low=True, unit="rad/s")
    viscous = checks.real("viscous", viscous, low=0.0, unit="N m s/rad")
    preload, samples, elbows, circle = _motion(preload, samples, elbows, circle)
    if circle.get("radius") == 0.0:
        raise ParameterError("radius = 0.0 is not valid: radius must be a number > 0 m for a calibration (a circle of "
                             "radius 0 does not move the joints)")
    t, q, dq, ddq, w = _circle_samples(robot, samples, elbows, circle)
    target = rms(inverse_dynamics(robot, q, dq, ddq, "coulomb_consistent", preload).friction_torque)
    Tc = _fr.stribeck_level_for_rms(w, target, static_ratio, stribeck_velocity, viscous, robot.smooth_eps)
    cal = StribeckCalibration(Tc, static_ratio * Tc, float(stribeck_velocity), float(viscous), target, float("nan"))
    check = rms(inverse_dynamics(cal.apply(robot), q, dq, ddq, "stribeck", preload).friction_torque)
    return cal._replace(stribeck_rms=check)


#: Friction laws compared by :func:`operating_point` and :func:`friction_sweep`.
COMPARED_LAWS = ("coulomb_consistent", "stribeck")


def _laws(laws) -> tuple:
    """A non-empty sequence of friction laws (no ``None``), or :class:`ParameterError` naming ``laws``."""
    names = list(FRICTION_MODELS[1:])
    if isinstance(laws, (str, bytes)) or not hasattr(laws, "__iter__"):
        raise ParameterError(f"laws = {_show(laws)} is not valid: laws must be a sequence of friction models of "
                             f"{names}")
    out = tuple(laws)
    if not out:
        raise ParameterError(f"laws = {_show(laws)} is not valid: laws must name at least one friction model of "
                             f"{names}")
    for law in out:
        if not isinstance(law, str) or law not in names:
            raise ParameterError(f"laws must be friction models of {names}, got {_show(law)} ({type(law).__name__})")
    return out


def _operating(preload, samples, sim_periods, laws, simulate_motion, elbows, on_failure, circle: dict):
    """The arguments of :func:`operating_point`, checked before any work (the same order)."""
    preload, samples, elbows, circle = _motion(preload, samples, elbows, circle)
    sim_periods = checks.real("sim_periods", sim_periods, low=0.0, open_low=True)
    laws = _laws(laws)
    simulate_motion = checks.flag("simulate_motion", simulate_motion)
    _choice("on_failure", on_failure, ("raise", "stop"))
    period = circle.get("period", CIRCLE_PERIOD)
    if simulate_motion and not sim_periods * period / DT <= MAX_STEPS:
        raise ParameterError(f"sim_periods = {sim_periods:g} is not valid: sim_periods * period / dt = "
                             f"{sim_periods * period / DT:.3g} RK4 steps must be at most {MAX_STEPS:.0e}")
    return preload, samples, sim_periods, laws, simulate_motion, elbows, on_failure, circle


def operating_point(robot: Robot, *, preload: float = 0.0, samples: int = 200, sim_periods: float = 1.0,
                    laws=COMPARED_LAWS, simulate_motion: bool = True, elbows=DEFAULT_ELBOWS, on_failure="raise",
                    **circle) -> dict:
    """The friction laws compared at one operating point (robot, circle, preload).

    For each law of ``laws``: inverse dynamics over one period (``samples``
    uniform samples) gives ``friction_rms`` (N m, RMS over samples and joints),
    ``friction_max`` (N m) and ``energy`` (J, the friction energy dissipated per
    period, ``-integral sum_i tau_f,i w_i dt`` by the rectangle rule, exact to
    round-off for a smooth periodic integrand); with ``simulate_motion``, a
    forward simulation of ``sim_periods`` periods from the circle's initial
    state under the friction-free torques with the same preload (the
    uncompensated experiment, RK4 with the default step and Baumgarte gains)
    gives ``deviation`` (m, the largest tracking error). With ``on_failure="stop"``
    a simulation that stops early (:func:`simulate`) gives ``deviation = nan`` and its
    message in ``stopped`` (``""`` for a complete run). Returns ``{law: {metric: value}}``.

    >>> pt = operating_point(load(), samples=40, simulate_motion=False)
    >>> sorted(pt), sorted(pt["stribeck"])
    (['coulomb_consistent', 'stribeck'], ['deviation', 'energy', 'friction_max', 'friction_rms'])
    """
    preload, samples, sim_periods, laws, simulate_motion, elbows, on_failure, circle = _operating(
        preload, samples, sim_periods, laws, simulate_motion, elbows, on_failure, circle)
    period = circle.get("period", CIRCLE_PERIOD)
    t, q, dq, ddq, w = _circle_samples(robot, samples, elbows, circle)
    sched = reference_torque(robot, None, preload, samples, elbows, **circle) if simulate_motion else None
    out = {}
    for law in laws:
        r = inverse_dynamics(robot, q, dq, ddq, law, preload)
        row = {"friction_rms": rms(r.friction_torque), "friction_max": float(np.abs(r.friction_torque).max()),
               "energy": float(-np.sum(r.friction_torque * w) * period / len(t)), "deviation": float("nan")}
        if simulate_motion:
            sim = simulate(robot, q[0], dq[0], sched, sim_periods * period, friction=law, record_every=5,
                           on_failure=on_failure)
            if sim.stopped is None:
                row["deviation"] = float(np.linalg.norm(
                    sim.end_effector - reference_circle(robot, sim.t, **circle).p, axis=-1).max())
            if on_failure == "stop":
                row["stopped"] = sim.stopped or ""
        out[law] = row
    return out


def preload_growth(robot: Robot, p, elbows=DEFAULT_ELBOWS, step: float = 1e-6) -> np.ndarray:
    """How a preload held open-loop moves the robot near end-effector positions ``p`` (..., 2) m: the eigenvalues
    (..., 2) of ``A`` (1/s^2 per N m) in ``d^2 a / dt^2 = preload * A (a - a*)`` (``a = (a_1, a_2)``).

    The torques ``preload * n(q*)`` (:func:`preload_direction`) are internal at ``q*`` but not at a nearby
    configuration, where they accelerate the robot; ``A`` is that acceleration per unit displacement and N m
    (central differences of :func:`forward_dynamics` at rest, end effector moved by ``step`` m). An eigenvalue
    ``k > 0`` makes a preload ``p > 0`` grow any deviation like ``exp(sqrt(k p) t)``; ``k < 0`` makes it oscillate.

    >>> robot = load(); k = preload_growth(robot, robot.centroid); k.shape, bool(np.all(k > 0))
    ((2,), True)"""
    p, elbows = _batch("p", p, 2), _elbows(elbows)
    step = checks.real("step", step, low=0.0, open_low=True, high=1e-3, unit="m")
    flat = p.reshape(-1, 2)
    out = np.empty((len(flat), 2), dtype=complex)
    for j, pe in enumerate(flat):
        n = preload_direction(robot, inverse_kinematics(robot, pe, elbows))
        acc, da = [], []
        for d in np.eye(2) * step:
            qp, qm = inverse_kinematics(robot, pe + d, elbows), inverse_kinematics(robot, pe - d, elbows)
            acc.append(forward_dynamics(robot, qp, np.zeros(12), n)[0][_ACTIVE[:2]]
                       - forward_dynamics(robot, qm, np.zeros(12), n)[0][_ACTIVE[:2]])
            da.append((qp - qm)[_ACTIVE[:2]])
        out[j] = np.linalg.eigvals(np.array(acc).T @ np.linalg.inv(np.array(da).T))
    out = out.real if np.all(np.abs(out.imag) <= 1e-9 * np.abs(out).max()) else out
    return out.reshape(p.shape[:-1] + (2,))


def followable_preload(robot: Robot, t_sim: float, dt: float = DT, samples: int = 16, elbows=DEFAULT_ELBOWS,
                       **circle) -> tuple:
    """``(p_min, p_max)`` N m: outside this range no simulation of ``t_sim`` s on the circle with the RK4 step ``dt``
    (s) can follow a preload held open-loop (:func:`operating_point`'s uncompensated experiment).

    With :func:`preload_growth`'s eigenvalues ``k`` over ``samples`` points of the circle: where ``preload * k > 0``
    deviations grow like ``exp(sqrt(preload k) t)``, and beyond ``preload k = (ln(radius / (eps l)) / t_sim)^2`` even
    round-off (``eps`` = 2.2e-16 of the link length ``l``) grows to the circle's radius within ``t_sim``; where
    ``preload * k < 0`` the motion oscillates at ``sqrt(|preload k|)``, which RK4 follows only below ``2 sqrt(2) / dt``.

    >>> lo, hi = followable_preload(load(), 2.0); bool(lo < 0 < hi)
    True"""
    t_sim = checks.real("t_sim", t_sim, low=0.0, open_low=True, unit="s")
    dt = checks.real("dt", dt, low=0.0, open_low=True, unit="s")
    samples = checks.count("samples", samples, low=1)
    circle = _circle(circle)
    tr = reference_circle(robot, np.linspace(0.0, circle.get("period", CIRCLE_PERIOD), samples, endpoint=False),
                          **circle)
    k = np.real(preload_growth(robot, tr.p, elbows))
    radius = circle.get("radius", CIRCLE_RADIUS)
    grow = (math.log(max(radius, robot.link_length * 1e-6) / (np.finfo(float).eps * robot.link_length)) / t_sim) ** 2
    osc = 8.0 / dt ** 2                       # (2 sqrt(2) / dt)^2: RK4's limit on the imaginary axis
    bound = lambda kk: min([grow / x for x in kk if x > 0] + [osc / -x for x in kk if x < 0] + [np.inf])  # noqa: E731
    return -bound(-k.ravel()), bound(k.ravel())


#: Parameters :func:`friction_sweep` can vary besides the fields of :class:`Robot`.
SWEEP_PARAMETERS = ("period", "radius", "preload")


def _sweep_point(robot, parameter, value, kwargs):
    kw = dict(kwargs)
    if parameter in SWEEP_PARAMETERS:
        kw[parameter] = value
    else:
        robot = dataclasses.replace(robot, **{parameter: value})
    return operating_point(robot, **kw)


def friction_sweep(robot: Robot, parameter: str, values, *, n_jobs: int = 1, **kwargs) -> dict:
    """:func:`operating_point` for each value of one parameter; ``{law: {metric: array (len(values),)}}``.

    ``parameter``: ``"period"`` (s) or ``"radius"`` (m) of the circle,
    ``"preload"`` (N m), or any numeric field of :class:`Robot` (e.g.
    ``"end_effector_mass"`` in kg, ``"mu"``); the other settings (``kwargs``
    of :func:`operating_point`) stay fixed, and so do the robot's friction
    levels: a sweep shows where laws calibrated at one operating point part.
    ``n_jobs > 1`` runs the points in parallel processes (joblib; a non-zero integer, -1: all cores).
    Every value and setting is checked before the first point.

    >>> sw = friction_sweep(load(), "preload", [0.0, 1.0], samples=40, simulate_motion=False)
    >>> bool(sw["coulomb_consistent"]["friction_rms"][1] > sw["coulomb_consistent"]["friction_rms"][0])
    True
    >>> bool(np.allclose(sw["stribeck"]["friction_rms"][0], sw["stribeck"]["friction_rms"][1]))   # load-independent
    True
    """
    fields = {f.name for f in dataclasses.fields(Robot)} - {"base"}
    if not isinstance(parameter, str) or (parameter not in SWEEP_PARAMETERS and parameter not in fields):
        raise ParameterError(f"parameter must be one of {list(SWEEP_PARAMETERS)} or a Robot field "
                             f"{sorted(fields)}, got {_show(parameter)} ({type(parameter).__name__})")
    values = _values(values)
    if isinstance(n_jobs, (bool, np.bool_)) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0:
        raise ParameterError(f"n_jobs = {_show(n_jobs)} is not valid: n_jobs must be a non-zero integer (joblib: 1 "
                             f"serial, n > 1 processes, -1 all cores), got {type(n_jobs).__name__}")
    if parameter in kwargs:
        raise ParameterError(f"{parameter} is swept (parameter = {parameter!r}): it must not be passed as well")
    kw = {**operating_point.__kwdefaults__, **kwargs}
    circle = {k: kw.pop(k) for k in list(kw) if k not in operating_point.__kwdefaults__}
    _operating(**kw, circle=circle)                       # every point's settings, checked before the first
    for i, v in enumerate(values):
        try:
            if parameter in ("period", "radius"):
                _circle({parameter: v})
            elif parameter != "preload":                  # any finite preload is valid
                dataclasses.replace(robot, **{parameter: v})
        except ParameterError as exc:
            raise ParameterError(f"values[{i}] = {v!r} is not valid for parameter = {parameter!r}: {exc}") from None
    if n_jobs != 1 and len(values) > 1:

        points = Parallel(n_jobs=n_jobs)(delayed(_sweep_point)(robot, parameter, v, kwargs) for v in values)
    else:
        points = [_sweep_point(robot, parameter, v, kwargs) for v in values]
    return {law: {m: np.array([p[law][m] for p in points]) for m in points[0][law]} for law in points[0]}


def _values(values, name: str = "values") -> list:
    """A scalar or a 1-D array of values (not empty) as a list of finite floats."""
    v = np.atleast_1d(checks.real_array(name, values))
    if v.ndim != 1:
        raise ParameterError(f"{name} must be a number or a 1-D array of numbers, got shape {v.shape}")
    return [float(x) for x in v]


def decoupling_error(robot: Robot, *, preload: float = 0.0, samples: int = 200, elbows=DEFAULT_ELBOWS,
                     **circle) -> tuple[float, float]:
    """Error of the patent's decoupled Coulomb model and its first-order estimate, along the circle.

    Returns ``(error, estimate)``: ``error = max |tau_f,cons - tau_f,dec| /
    max |tau_f,cons|`` (over one period, ``samples`` samples, all joints) from
    :func:`inverse_dynamics`, and ``estimate = mu R max_t ||dF/dp||``. In
    inverse dynamics a friction torque changes the bearing reactions only
    through its preload component ``p = n . tau_f``, ``dF = preload_reactions * p``,
    so ``||dF/dp|| = ||preload_reactions||`` (1/m). The estimate depends on the
    path only; it is a first-order size, not a strict bound on ``error`` (the
    share of the preload component a joint's torque carries can exceed one), so
    compare the two rather than assume ``error <= estimate``.

    >>> err, est = decoupling_error(load(), samples=50)
    >>> bool(0 < err <= est < 0.01)
    True
    """
    preload, samples, elbows, circle = _motion(preload, samples, elbows, circle)
    t, q, dq, ddq, w = _circle_samples(robot, samples, elbows, circle)
    cons = inverse_dynamics(robot, q, dq, ddq, "coulomb_consistent", preload).friction_torque
    dec = inverse_dynamics(robot, q, dq, ddq, "coulomb", preload).friction_torque
    scale = np.abs(cons).max()
    err = float(np.abs(cons - dec).max() / scale) if scale > 0 else 0.0
    sens = np.linalg.norm(preload_reactions(robot, q).reshape(len(t), 6), axis=-1).max()
    return err, float(robot.mu * robot.journal_radius * sens)


def decoupling_map(robot: Robot, mu_r, parameter: str, values, *, samples: int = 100, **kwargs):
    """:func:`decoupling_error` on a grid: ``mu R`` (m, changes ``mu`` at the robot's ``journal_radius``)
    against ``"preload"`` (N m) or ``"period"`` (s). Returns ``(error, estimate)``, each
    (len(mu_r), len(values)).

    >>> err, est = decoupling_map(load(), [1e-3, 4e-3], "preload", [0.0, 1.0], samples=40)
    >>> err.shape, bool(np.all(err <= est)), bool(err[1, 0] > err[0, 0])
    ((2, 2), True, True)
    """
    _choice("parameter", parameter, ("preload", "period"))
    mu_r = np.array(_values(mu_r, "mu_r"))
    if np.any(mu_r < 0):
        raise ParameterError(f"mu_r = {_show(mu_r.tolist())} is not valid: mu_r must be numbers >= 0 m")
    if robot.journal_radius <= 0:
        raise ParameterError(f"mu_r needs the robot's journal_radius > 0 m (mu = mu_r / journal_radius), got "
                             f"{robot.journal_radius!r}")
    values = _values(values)
    if parameter in kwargs:
        raise ParameterError(f"{parameter} is the map's axis (parameter = {parameter!r}): it must not be passed as well")
    kw = {**decoupling_error.__kwdefaults__, **kwargs, "samples": samples}
    circle = {k: kw.pop(k) for k in list(kw) if k not in decoupling_error.__kwdefaults__}
    _motion(kw["preload"], kw["samples"], kw["elbows"], circle)  # the settings, checked before any work
    for i, v in enumerate(values if parameter == "period" else ()):    # any finite preload is valid
        try:
            _circle({"period": v})
        except ParameterError as exc:
            raise ParameterError(f"values[{i}] = {v!r} is not valid for parameter = {parameter!r}: {exc}") from None
    err = np.empty((mu_r.size, len(values)))
    est = np.empty_like(err)
    for a, m in enumerate(mu_r):
        rb = dataclasses.replace(robot, mu=float(m) / robot.journal_radius)
        for b, v in enumerate(values):
            err[a, b], est[a, b] = decoupling_error(rb, samples=samples, **{parameter: v}, **kwargs)
    return err, est


def friction_comparison(robot: Robot, preload=0.0, samples=200, t_end=None, elbows=DEFAULT_ELBOWS, **circle) -> dict:
    """Summary table of the four friction models on the reference circle (one row per model).

    Inverse dynamics over one period (``samples`` points, the given ``preload``
    in N m) and a forward simulation of ``t_end`` s (default: one period) from
    the circle's initial state under the *friction-free* torques. Row keys:
    ``tau_rms`` and ``tau_max`` (N m, motor torques that track the circle with
    this friction model), ``friction_rms`` (N m), ``reaction_max`` (N, largest
    bearing load), ``deviation_max`` (m, largest end-effector path deviation of
    the simulation), ``dissipated`` (J, friction energy over the simulation).

    >>> table = friction_comparison(load(), samples=40, t_end=0.2)
    >>> sorted(table) == sorted(["none", "coulomb", "coulomb_consistent", "stribeck"])
    True
    >>> table["none"]["deviation_max"] < 1e-8
    True
    """
    preload, samples, elbows, circle = _motion(preload, samples, elbows, circle)
    if t_end is not None:
        t_end = checks.real("t_end", t_end, low=0.0, open_low=True, unit="s")
        if not t_end / DT <= MAX_STEPS:
            raise ParameterError(f"t_end = {t_end:g} s is not valid: t_end / dt = {t_end / DT:.3g} RK4 steps must be "
                                 f"at most {MAX_STEPS:.0e}")
    period = circle.get("period", CIRCLE_PERIOD)
    t_end = period if t_end is None else t_end
    t = np.linspace(0.0, period, samples, endpoint=False)
    q, dq, ddq = reference_motion(robot, t, elbows, **circle)
    sched = reference_torque(robot, None, preload, samples, elbows, **circle)
    table = {}
    for friction in FRICTION_MODELS:
        idr = inverse_dynamics(robot, q, dq, ddq, friction, preload)
        sim = simulate(robot, q[0], dq[0], sched, t_end, friction=friction)
        dev = np.abs(sim.end_effector - reference_circle(robot, sim.t, **circle).p).max()
        table["none" if friction is None else friction] = {
            "tau_rms": float(np.sqrt(np.mean(idr.tau**2))),
            "tau_max": float(np.abs(idr.tau).max()),
            "friction_rms": float(np.sqrt(np.mean(idr.friction_torque**2))),
            "reaction_max": float(np.linalg.norm(idr.reactions, axis=-1).max()),
            "deviation_max": float(dev),
            "dissipated": float(sim.dissipated_energy[-1]),
        }
    return table



__all__ = ["preload_growth", "followable_preload", "friction_comparison", "rms", "StribeckCalibration", "calibrate_stribeck", "COMPARED_LAWS", "operating_point", "SWEEP_PARAMETERS", "friction_sweep", "decoupling_error", "decoupling_map", "TorqueSchedule", "reference_torque", "Simulation", "simulate", "friction_power"]
