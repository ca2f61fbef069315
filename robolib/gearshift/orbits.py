"""The gear-shift's periodic orbits, computed (shooting) and continued in frequency, on the fast model.

The return map is the stroboscopic map of :class:`robolib.gearshift.fast.FastClearance`: the
constraint-free state ``x = (e_x, e_y, ed_x, ed_y)`` (m, m/s, global frame) at drive phase 0 is
carried over one drive period ``T = 1 / f`` (:class:`StroboscopicMap`). A period-k orbit is a root
of ``P^k(x) - x`` (:func:`robolib.core.periodic.periodic_orbit`: damped Newton, monodromy by central
differences with the relative step ``difference_step(rtol)`` = ``rtol^(1/3)`` -- the integrated map
is noisy at the level of its tolerance -- residual in the scaled max norm with the scale
``s = (c, c, c omega, c omega)``, the normalised units of the chapter's Poincaré samples).

The onset-speed memory
    The contact law's damping term divides by the impact onset speed ``ddelta0``, a piece of
    history. The map here re-initialises it at phase 0 (the 4-component
    :meth:`FastClearance.return_map`: ``max(ddelta, floor)`` if the journal is in contact at phase
    0, else the floor), so that P is a function of x alone. This is exact when the journal flies
    free at phase 0 (the next contact sets the memory afresh) and differs from the carried memory
    only while a contact episode spans phase 0. :func:`memory_sensitivity` measures the difference
    at the orbit (carried memory: the orbit's own onset speed, from one extra 5-component period);
    :func:`periodic_orbit_at` reports it next to the residual.

Accuracy of the multipliers
    The differenced monodromy is good where P is smooth on the scale of the difference step: at
    10 Hz / 0.1 mm the largest ``|mu|`` is the same to 1e-4 for steps rtol^(1/3) and 3 rtol^(1/3). At
    0.5 mm the map is rough on that scale (impacts near grazing, contact onsets at phase 0): at
    10 Hz / 0.5 mm ``max|mu|`` reads 0.40-0.47 for the steps 2e-4..5e-4 and rtols 1e-11..1e-10, 0.29 at
    a step of 3e-2 and a complex pair 0.9 at 1e-2. Such multipliers are stated with that spread;
    the orbit itself (residual, simulated convergence) does not depend on it.

Lyapunov exponents, two routes
    ``ln max|mu| / (k T)`` from the multipliers, and the time-series exponent
    :func:`fast_lyapunov` (two-trajectory renormalisation once per period on the fast flow, memory
    carried and copied from the reference), whose uncertainty is the batch error plus the spread
    between two tolerances (issue 20 item 5).

>>> P = stroboscopic_map(None, 10.0, 5e-4)
>>> P.scale.round(6).tolist()
[0.0005, 0.0005, 0.031416, 0.031416]
>>> stroboscopic_map(None, 0.0, 5e-4)
Traceback (most recent call last):
    ...
robolib.errors.ParameterError: frequency = 0.0 is not valid: frequency must be a number > 0 Hz (drive frequency of the return map)
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from ..core import checks
from ..core import nonlinear as N
from ..core.continuation import continue_orbits
from ..core.errors import ConvergenceError, ParameterError, SingularityError, UnreachableError
from ..core.periodic import (STABILITY_MARGIN, PeriodicOrbit, ShootingError, difference_step, period_doubling_start,
                             periodic_orbit)
from .fast import FastClearance
from .model import load_parameters

#: Default integration tolerance of the orbit computations: at the parameter file's rtol 1e-9 one return at
#: 10 Hz / 0.5 mm is off by 2.9e-3 c (against rtol 1e-14), above the central difference step rtol^(1/3) = 1e-3
#: of the monodromy; at 1e-11 the error is 1.1e-5 c (10 Hz) and 4.7e-7 c (2 Hz / 0.1 mm).
ORBIT_RTOL = 1e-11
#: Most integrator steps of one return (a return takes ~3e4 at rtol 1e-11; far trial points of a line search can
#: need millions).
MAP_MAX_STEPS = 1_000_000
#: Treatments of the contact onset-speed memory at the section (see the module text).
MEMORY = ("reset", "carried")
#: Drive periods simulated from the chapter's initial state (journal centred) before the orbit's start is read.
ORBIT_TRANSIENT = 40
#: Poincaré samples after the transient used for the period test and the convergence check.
ORBIT_SAMPLES = 24
#: Shooting tolerance (scaled max norm) = this factor times the measured one-return integration noise.
SHOOT_TOL_FACTOR = 10.0
#: The noise of one return is measured by redoing it at rtol divided by this (as the chapter's period test).
NOISE_RTOL_DIVISOR = 100.0
#: Smallest shooting tolerance (scaled): a guard for a noise measured as ~0.
SHOOT_TOL_FLOOR = 1e-12
#: Simulation converged to the orbit: the last samples within this factor times the shooting tolerance of the orbit.
CONVERGE_FACTOR = 100.0
#: Initial separation of :func:`fast_lyapunov`, scaled max units (c, c omega): well above the integration noise.
LYAP_D0 = 1e-4
#: Default renormalisations (one per drive period) and transient periods of :func:`fast_lyapunov`.
LYAP_RENORM = 40
LYAP_TRANSIENT = 20
#: Renormalisations per drive period of :func:`fast_lyapunov`: a strongly contracting orbit (2 Hz / 0.1 mm:
#: ``|mu| ~ 1e-4`` per period) would shrink a separation below the integration error within one period.
LYAP_SUBSTEPS = 8
#: The second tolerance of the exponent's tolerance spread: rtol divided by this.
LYAP_RTOL_DIVISOR = 10.0


def _check_fc(frequency, clearance):
    if isinstance(frequency, bool) or not isinstance(frequency, (int, float, np.floating, np.integer)) \
            or not math.isfinite(frequency) or frequency <= 0:
        raise ParameterError(f"frequency = {frequency!r} is not valid: frequency must be a number > 0 Hz (drive "
                             f"frequency of the return map)")
    if isinstance(clearance, bool) or not isinstance(clearance, (int, float, np.floating, np.integer)) \
            or not math.isfinite(clearance) or clearance <= 0:
        raise ParameterError(f"clearance = {clearance!r} is not valid: clearance must be a number > 0 m (radial "
                             f"clearance of the joint)")
    return float(frequency), float(clearance)


class StroboscopicMap:
    """``P(x)``: the state ``x = (e, ed)`` (4,) (m, m/s) at drive phase 0 carried over one drive period.

    Picklable (the compiled model is rebuilt lazily on the other side). ``rtol`` (default
    :data:`ORBIT_RTOL`), ``atol`` (default the file's atol/rtol ratio times rtol). Attributes ``period`` (s), ``omega``
    (rad/s), ``scale`` (4,) = ``(c, c, c omega, c omega)``, ``step`` the relative difference step
    ``difference_step(rtol)``; ``evaluations`` counts calls.
    """

    def __init__(self, params, frequency, clearance, joint="B1", rtol=None, atol=None, memory="reset"):
        self.frequency, self.clearance = _check_fc(frequency, clearance)
        if memory not in MEMORY:
            raise ParameterError(f"memory = {memory!r} is not valid: memory must be one of {', '.join(MEMORY)} "
                                 f"(the onset-speed memory reset at phase 0, or carried as a 5th state component)")
        self.memory = memory
        self.n = 4 if memory == "reset" else 5
        self.params = load_parameters() if params is None else params
        s = self.params["solver"]
        self.rtol = ORBIT_RTOL if rtol is None else float(checks.real("rtol", rtol, low=0.0, high=1.0, open_low=True))
        self.atol = float(s["atol"]) * self.rtol / float(s["rtol"]) if atol is None else float(checks.positive("atol", atol))
        self.joint = joint
        self.period = 1.0 / self.frequency
        self.omega = 2.0 * math.pi * self.frequency
        c = self.clearance
        self.scale = np.array([c, c, c * self.omega, c * self.omega] + ([c * self.omega] if self.n == 5 else []))
        self.step = difference_step(self.rtol)
        self.evaluations = 0
        self._fc = None
        self.model  # build now: bad joint / clearance fail here

    @property
    def model(self) -> FastClearance:
        if self._fc is None:
            self._fc = FastClearance(self.params, joint=self.joint, clearance=self.clearance, frequency=self.frequency)
        return self._fc

    def __getstate__(self):
        d = dict(self.__dict__)
        d["_fc"] = None
        return d

    def __call__(self, x) -> np.ndarray:
        """P(x) (n,); NaN (n,) where the integration fails (a closure, or more than MAP_MAX_STEPS steps): shooting
        then treats the point as no decrease rather than stopping."""
        x = checks.real_array("x", x, shape=(self.n,))
        self.evaluations += 1
        fc = self.model
        try:
            r = fc.simulate((0.0, self.period), x[:2], x[2:4], t_eval=[self.period], rtol=self.rtol, atol=self.atol,
                            ddelta0=float(x[4]) if self.n == 5 else None, max_steps=MAP_MAX_STEPS)
        except (ConvergenceError, UnreachableError, SingularityError):
            return np.full(self.n, np.nan)
        out = np.concatenate([r.e[-1], r.ed[-1]])
        return np.append(out, r.ddelta0_final) if self.n == 5 else out

    def with_rtol(self, rtol: float) -> "StroboscopicMap":
        """The same map at another tolerance (atol scaled with it)."""
        return StroboscopicMap(self.params, self.frequency, self.clearance, self.joint, rtol,
                               self.atol * rtol / self.rtol, self.memory)

    def noise(self, x) -> float:
        """One-return integration noise at x: scaled max difference of P at rtol and at rtol / NOISE_RTOL_DIVISOR."""
        x = checks.real_array("x", x, shape=(self.n,))
        fine = self.with_rtol(self.rtol / NOISE_RTOL_DIVISOR)
        return float(np.max(np.abs(self(x) - fine(x)) / self.scale))

    def samples(self, n_periods: int, x0=None) -> np.ndarray:
        """States (n_periods + 1, n) at phases 0 of a run from ``x0`` (4,) (default the journal centred, at rest in e);
        with ``memory="carried"`` a 5th column, the onset speed in force (m/s)."""
        n_periods = checks.count("n_periods", n_periods)
        x0 = np.zeros(4) if x0 is None else checks.real_array("x0", x0, shape=(4,))
        fc = self.model
        y = np.append(x0, fc.spec.ddelta0_floor)
        out = [y]
        for i in range(n_periods):   # step ends at every phase 0 (no dense-output interpolation), memory carried
            y = fc.return_map(y, i * self.period, 1, rtol=self.rtol, atol=self.atol)
            out.append(y)
        out = np.array(out)
        return out if self.n == 5 else out[:, :4]


def stroboscopic_map(params, frequency, clearance, joint="B1", rtol=None, atol=None, memory="reset") -> StroboscopicMap:
    """The return map of the fast model at drive phase 0 (see :class:`StroboscopicMap` and the module text).

    ``memory``: ``"reset"`` (x (4,), the onset speed re-initialised at phase 0) or ``"carried"`` (x (5,) with the
    onset speed in force, m/s, as a state component: the exact map of the run; its extra multiplier is that of the
    memory, 0 when the journal flies free at phase 0)."""
    return StroboscopicMap(params, frequency, clearance, joint, rtol, atol, memory)


def memory_sensitivity(P: StroboscopicMap, orbit: PeriodicOrbit) -> float:
    """Scaled max difference between P^k with the memory reset at phase 0 and with the orbit's own carried memory.

    The carried memory at each orbit point is the onset speed in force after one period from the previous point
    (5-component return map); 0 when the journal flies free at every phase 0 of the orbit.
    """
    fc = P.model
    worst = 0.0
    pts = orbit.points
    for i in range(orbit.k):
        prev = pts[i - 1]
        carried = fc.return_map(np.append(prev, fc.spec.ddelta0_floor), 0.0, 1, rtol=P.rtol, atol=P.atol)
        nxt = fc.return_map(np.append(pts[i], carried[4]), 0.0, 1, rtol=P.rtol, atol=P.atol)[:4]
        worst = max(worst, float(np.max(np.abs(nxt - P(pts[i])) / P.scale)))
    return worst


def liouville_log_determinant(P: StroboscopicMap, x, k: int = 1, rel_step: float = 1e-6) -> float:
    """``integral of div f dt`` over k periods from x (4,): Liouville's formula for ``ln det D P^k(x)``.

    ``div f = d(edd_x)/d(ed_x) + d(edd_y)/d(ed_y)`` (``de/dt = ed`` adds nothing), by central differences of
    :meth:`FastClearance.rhs` (relative step ``rel_step`` of ``c omega``) at every accepted step of a run from x,
    with the onset speed in force there, integrated by the trapezoidal rule. An independent route to the
    determinant of the differenced monodromy (damping and contact dissipation make it < 1). The memory reset of
    the 4-component map is not in it (exact when the journal flies free at phase 0).
    """
    k = _check_k(k)
    x = checks.real_array("x", x, shape=(4,))
    fc = P.model
    r = fc.simulate((0.0, k * P.period), x[:2], x[2:], rtol=P.rtol, atol=P.atol)
    dd0 = fc._ddelta0_samples(r)
    h = rel_step * P.clearance * P.omega
    div = np.empty(len(r.t))
    for i, t in enumerate(r.t):
        y = np.array([*r.e[i], *r.ed[i], 0.0, 0.0])
        d = 0.0
        for j in (2, 3):
            yp, ym = y.copy(), y.copy()
            yp[j] += h
            ym[j] -= h
            d += (fc.rhs(t, yp, dd0[i])[j] - fc.rhs(t, ym, dd0[i])[j]) / (2 * h)
        div[i] = d
    return float(np.trapezoid(div, r.t))


@dataclass
class OrbitResult:
    """A periodic orbit of the gear-shift and its checks (:func:`periodic_orbit_at`).

    ``orbit`` the :class:`PeriodicOrbit` (``points`` (k, 4) m, m/s), ``residual`` (scaled), ``tol`` the shooting
    tolerance used and ``noise`` the measured one-return integration noise (scaled); ``multipliers``;
    ``max_mu``; ``stable`` (``max|mu| < 1 - STABILITY_MARGIN``); ``lyapunov`` ``ln max|mu| / (k T)`` (1/s);
    ``det`` det(monodromy); ``sim_distance`` (scaled) the largest distance of the last simulated Poincaré samples
    to the nearest orbit point and ``sim_distances`` per sample; ``converges`` whether it is within
    ``CONVERGE_FACTOR * tol``; ``period_test`` the period-k of the simulated samples (0 = irregular) and
    ``memory`` :func:`memory_sensitivity`; ``wall_s``; ``evaluations`` of P.
    """

    frequency: float
    clearance: float
    k: int
    orbit: PeriodicOrbit | None
    residual: float
    tol: float
    noise: float
    multipliers: np.ndarray
    max_mu: float
    stable: bool
    lyapunov: float
    det: float
    sim_distance: float
    sim_distances: np.ndarray
    converges: bool
    period_test: int
    memory: float
    wall_s: float
    evaluations: int
    reason: str = "converged"
    extra: dict = field(default_factory=dict)

    def summary(self) -> dict:
        mu = self.multipliers
        return {"f": self.frequency, "c_mm": self.clearance * 1e3, "k": self.k, "found": self.orbit is not None,
                "residual": self.residual, "tol": self.tol, "noise": self.noise,
                "multipliers": [complex(m) for m in mu], "max_mu": self.max_mu, "stable": self.stable,
                "lyapunov_floquet": self.lyapunov, "det": self.det, "sim_distance": self.sim_distance,
                "converges": self.converges, "period_test": self.period_test, "memory": self.memory,
                "wall_s": self.wall_s, "evaluations": self.evaluations, "reason": self.reason}


def _check_k(k) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ParameterError(f"k = {k!r} is not valid: k must be an integer >= 1 (the period of the orbit in drive "
                             f"periods)")
    return int(k)


def _minimal_period(z, tol) -> int:
    """Smallest j dividing k with orbit point j equal to point 0 within ``tol`` (scaled points z (k, 4))."""
    k = len(z)
    return next((j for j in range(1, k) if k % j == 0 and np.max(np.abs(z[j] - z[0])) <= tol), k)


def _distances(samples, points, scale) -> np.ndarray:
    """Scaled max distance of each sample (m, 4) to the nearest orbit point (k, 4)."""
    d = np.abs(samples[:, None, :] - points[None, :, :]) / scale
    return np.min(np.max(d, axis=2), axis=1)


def periodic_orbit_at(params, frequency, clearance, k=1, x0=None, joint="B1", rtol=None, n_transient=ORBIT_TRANSIENT,
                      n_samples=ORBIT_SAMPLES, samples=None, update="newton", max_iter=15,
                      memory="reset") -> OrbitResult:
    """A period-k orbit of the gear-shift at ``frequency`` (Hz) and ``clearance`` (m), by shooting on P^k.

    ``x0`` (4,): the start of Newton; default the Poincaré sample of a simulation from the chapter's initial
    state (journal centred) after ``n_transient`` periods. The simulation's last ``n_samples`` samples (or the
    given ``samples`` (m, 4)) are compared with the orbit points (convergence) and tested for a period. Newton's
    tolerance is ``SHOOT_TOL_FACTOR`` times the one-return noise measured at x0 (:meth:`StroboscopicMap.noise`);
    the monodromy step is ``difference_step(rtol)`` (relative, times ``max(|x_j|, s_j)``). A failed shooting
    returns ``orbit=None`` with the reason. Raises :class:`robolib.ParameterError` for k < 1, frequency <= 0,
    clearance <= 0 or x0 not of shape (4,).
    """
    k = _check_k(k)
    P = stroboscopic_map(params, frequency, clearance, joint, rtol, memory=memory)
    if x0 is not None:
        x0 = checks.real_array("x0", x0, shape=(P.n,))
    n_transient = checks.count("n_transient", n_transient, low=0)
    n_samples = checks.count("n_samples", n_samples)
    wall = time.perf_counter()
    if samples is None:
        S = P.samples(n_transient + n_samples)
        samples = S[n_transient:]
    else:
        samples = checks.real_array("samples", samples, shape=(None, P.n))
    x_start = samples[0] if x0 is None else x0
    noise = P.noise(x_start)
    tol = max(SHOOT_TOL_FACTOR * noise, SHOOT_TOL_FLOOR)
    norm = samples[:, :4] / P.scale[:4]
    kmax = max(1, min(8, (len(samples) - 1) // 2))
    ptest = N.period_k(norm, max(CONVERGE_FACTOR * tol, SHOOT_TOL_FLOOR), kmax) if len(samples) > kmax else 0
    n0 = P.evaluations
    o = periodic_orbit(P, x_start, k=k, tol=tol, step=P.step, scale=P.scale, period=P.period, strict=False,
                       update=update, max_iter=max_iter)
    evals = P.evaluations - n0
    if not o.converged:
        return OrbitResult(P.frequency, P.clearance, k, None, o.residual, tol, noise, o.multipliers, float("nan"),
                           False, float("nan"), float("nan"), float("nan"), np.zeros(0), False, ptest, float("nan"),
                           time.perf_counter() - wall, evals, o.reason)
    d = _distances(samples[-max(2 * k, 4):, :4], o.points[:, :4], P.scale[:4])
    kmin = _minimal_period(o.points[:, :4] / P.scale[:4], CONVERGE_FACTOR * tol)
    mem = memory_sensitivity(P, o) if P.n == 4 else 0.0
    return OrbitResult(P.frequency, P.clearance, k, o, o.residual, tol, noise, o.multipliers, o.max_modulus, o.stable,
                       o.lyapunov, float(np.linalg.det(o.monodromy)), float(np.max(d)), d,
                       bool(np.max(d) <= CONVERGE_FACTOR * tol), ptest, mem, time.perf_counter() - wall, evals,
                       f"converged (minimal period {kmin})", {"minimal_period": kmin})


@dataclass
class FastLyapunov:
    """Time-series largest Lyapunov exponent of the fast model (:func:`fast_lyapunov`), 1/s.

    ``exponent`` at ``rtol``; ``batch`` its batch-means error; ``exponent_fine`` at ``rtol_fine``; ``spread`` =
    ``|exponent - exponent_fine|``; ``uncertainty = batch + spread``; ``wall_s``.
    """

    exponent: float
    batch: float
    exponent_fine: float
    batch_fine: float
    spread: float
    uncertainty: float
    rtol: float
    rtol_fine: float
    n_renorm: int
    wall_s: float


def _lyap_one(P: StroboscopicMap, n_renorm, n_transient, d0, substeps, x0=None):
    fc = P.model

    def flow(y, ta, tb):
        r = fc.simulate((ta, tb), y[:2], y[2:4], t_eval=[tb], rtol=P.rtol, atol=P.atol, ddelta0=float(y[4]))
        return np.array([*r.e[-1], *r.ed[-1], r.ddelta0_final])

    y0 = np.append(np.zeros(4) if x0 is None else x0, fc.spec.ddelta0_floor)
    return N.largest_lyapunov(flow, y0, P.period / substeps, n_renorm * substeps, d0=d0,
                              n_transient=n_transient * substeps, indices=[0, 1, 2, 3], weights=1.0 / P.scale,
                              seed=0, batch_unit=substeps)


def fast_lyapunov(params, frequency, clearance, joint="B1", rtol=None, rtol_fine=None, n_renorm=LYAP_RENORM,
                  n_transient=LYAP_TRANSIENT, d0=LYAP_D0, substeps=LYAP_SUBSTEPS, x0=None) -> FastLyapunov:
    """Largest Lyapunov exponent (1/s) of the fast model by two-trajectory renormalisation ``substeps`` times per
    drive period (``n_renorm`` periods after ``n_transient``; batches of whole periods).

    The flow carries ``(e, ed, ddelta0)`` (the onset-speed memory carried, copied from the reference trajectory:
    not a direction of separation); distances in the scaled units ``(c, c, c omega, c omega)``, ``d0`` there.
    ``x0`` (4,): the start at phase 0 (default the chapter's initial state, the journal centred). Run at ``rtol``
    and at ``rtol_fine`` (default rtol / LYAP_RTOL_DIVISOR): the uncertainty is the batch-means
    error at rtol plus the spread between the two tolerances.
    """
    P = stroboscopic_map(params, frequency, clearance, joint, rtol)
    rtol_fine = P.rtol / LYAP_RTOL_DIVISOR if rtol_fine is None else rtol_fine
    Pf = P.with_rtol(rtol_fine)
    wall = time.perf_counter()
    x0 = None if x0 is None else checks.real_array("x0", x0, shape=(4,))
    a = _lyap_one(P, n_renorm, n_transient, d0, substeps, x0)
    b = _lyap_one(Pf, n_renorm, n_transient, d0, substeps, x0)
    spread = abs(a.exponent - b.exponent)
    return FastLyapunov(a.exponent, a.uncertainty, b.exponent, b.uncertainty, spread, a.uncertainty + spread,
                        P.rtol, Pf.rtol, n_renorm, time.perf_counter() - wall)


class _MapFamily:
    """``map_at(f) -> (P_f, T)`` for :func:`continue_orbits` (picklable)."""

    def __init__(self, params, clearance, joint, rtol):
        self.params, self.clearance, self.joint, self.rtol = params, clearance, joint, rtol
        self.maps = {}

    def __call__(self, f):
        P = StroboscopicMap(self.params, float(f), self.clearance, self.joint, self.rtol)
        self.maps[float(f)] = P
        return P, P.period


#: Continuation: frequency step (Hz) and the located bifurcations' bracket (Hz).
BRANCH_DS = 0.25
BRANCH_P_TOL = 1e-3
#: Shooting tolerance along the branch (scaled max norm, scale at the geometric mean frequency): the one-return
#: error at rtol 1e-11 reaches 1.1e-5 c (10 Hz / 0.5 mm), i.e. ~3e-5 in the branch's scale there.
BRANCH_TOL = 3e-4


def frequency_branch(params, clearance, f0=1.0, f1=12.0, joint="B1", rtol=None, ds=BRANCH_DS, p_tol=BRANCH_P_TOL,
                     tol=BRANCH_TOL, x0=None, n_transient=ORBIT_TRANSIENT, pd_span=0.5, update="broyden") -> dict:
    """The period-1 branch in frequency from ``f0`` to ``f1`` (Hz) at ``clearance`` (m), its first doubling, the
    period-2 branch born there (continued ``pd_span`` Hz on).

    Returns ``branch`` (:class:`robolib.core.continuation.Branch`), ``pd`` the first period-doubling
    :class:`Bifurcation` or None, ``branch2`` (period 2) or None, ``wall_s``, ``evaluations``.
    """
    f0, clearance = _check_fc(f0, clearance)
    f1, _ = _check_fc(f1, clearance)
    fam = _MapFamily(params, clearance, joint, rtol)
    P0, _ = fam(f0)
    if x0 is None:
        x0 = P0.samples(n_transient)[-1]
    wall = time.perf_counter()
    # one norm along the branch: the scale (c, c, c omega_m, c omega_m) at the geometric mean frequency f_m
    om = 2 * math.pi * math.sqrt(f0 * f1)
    newton = dict(tol=tol, scale=np.array([clearance, clearance, clearance * om, clearance * om]), step=P0.step,
                  update=update, max_iter=15)
    br = continue_orbits(fam, x0, f0, f1, ds, k=1, p_tol=p_tol, **newton)
    pds = br.of_kind("period-doubling")
    pd, br2 = (pds[0] if pds else None), None
    if pd is not None and pd.orbit is not None:
        fpd = pd.parameter
        fa = min(pd.bracket[1] + 0.05 * pd_span, f1) if f1 > f0 else fpd
        Pa, _ = fam(fa)
        o1 = periodic_orbit(Pa, pd.orbit.x, k=1, period=Pa.period, **newton)
        try:
            o2 = period_doubling_start(Pa, o1, h=1e-2, **newton)
            br2 = continue_orbits(fam, o2.x, fa, min(fa + pd_span, f1) if fa + pd_span <= f1 else f1, ds / 2, k=2,
                                  p_tol=p_tol, **newton)
        except (ShootingError, ParameterError) as exc:
            br2 = str(exc)
    return {"branch": br, "pd": pd, "branch2": br2, "wall_s": time.perf_counter() - wall,
            "evaluations": br.evaluations + (br2.evaluations if hasattr(br2, "evaluations") else 0)}


def _case_id(prefix: str, f: float, c_mm: float) -> str:
    return f"{prefix}_{f:g}_{c_mm:g}".replace(".", "p")


def orbit_claims(reg, cases: dict, branch: dict | None = None) -> None:
    """Register the orbit findings in ``reg`` (a :class:`robolib.book.claims.ClaimsRegister`).

    ``cases``: ``{(f [Hz], c [mm]): {"orbit": OrbitResult, "lyapunov": FastLyapunov or None}}``; per case the claims
    ``gs_orbit_exists_*`` (residual at most the shooting tolerance, stated, and ``max|mu| < 1 - STABILITY_MARGIN``),
    ``gs_orbit_converges_*`` (the last simulated Poincaré samples within ``CONVERGE_FACTOR`` times the tolerance
    of the orbit points) and, with an exponent, ``gs_orbit_routes_*`` (``|ln max|mu| / (kT) - lambda_ts| <= u``).
    ``branch``: the dict of :func:`frequency_branch` with ``clearance_mm`` and optionally ``brute`` =
    ``{"below": (f, period-k), "above": (f, period-k)}`` from Poincaré runs (k = 0: irregular); claim
    ``gs_orbit_first_pd``.
    """
    for (f, c_mm), d in cases.items():
        r, L = d["orbit"], d.get("lyapunov")
        found = r.orbit is not None
        reg.claim(_case_id("gs_orbit_exists", f, c_mm),
                  f"the period-{r.k} orbit at {f:g} Hz / {c_mm:g} mm exists and is stable",
                  value={"residual": r.residual, "tol": r.tol, "max_mu": r.max_mu},
                  criterion=f"shooting converged with residual <= {r.tol:.2g} (scaled, {SHOOT_TOL_FACTOR:g} x the "
                            f"one-return noise) and max|mu| < {1 - STABILITY_MARGIN:g}",
                  holds=bool(found and r.residual <= r.tol and r.max_mu < 1 - STABILITY_MARGIN),
                  text=(f"residual {r.residual:.1e}, max|mu| = {r.max_mu:.3g}" if found else f"not found ({r.reason})"))
        reg.claim(_case_id("gs_orbit_converges", f, c_mm),
                  f"the simulation from the chapter's initial state converges to the orbit at {f:g} Hz / {c_mm:g} mm",
                  value=r.sim_distance,
                  criterion=f"the last Poincaré samples lie within {CONVERGE_FACTOR:g} x the shooting tolerance of "
                            f"the orbit points (scaled max norm)",
                  holds=bool(found and r.converges), text=f"distance {r.sim_distance:.1e}")
        if L is not None:
            ok = found and math.isfinite(r.lyapunov) and abs(r.lyapunov - L.exponent) <= L.uncertainty
            reg.claim(_case_id("gs_orbit_routes", f, c_mm),
                      f"at {f:g} Hz / {c_mm:g} mm the two Lyapunov routes agree",
                      value={"floquet": r.lyapunov, "time_series": L.exponent, "u": L.uncertainty},
                      criterion="|ln max|mu| / (kT) - lambda_ts| <= u, u = batch error + spread between two rtols",
                      holds=bool(ok), text=f"{r.lyapunov:.3g} /s against {L.exponent:.3g} ± {L.uncertainty:.2g} /s")
    if branch is not None:
        pd, c_mm = branch["pd"], branch["clearance_mm"]
        brute = branch.get("brute")
        agree = brute is not None and brute["below"][1] == 1 and brute["above"][1] != 1
        reg.claim("gs_orbit_first_pd", f"the first period doubling of the period-1 branch at c = {c_mm:g} mm is at "
                  f"f = {pd.parameter:.3f} Hz" if pd else f"the period-1 branch at c = {c_mm:g} mm has a period doubling",
                  value=None if pd is None else {"f": pd.parameter, "bracket": list(pd.bracket), "brute": brute},
                  criterion="a multiplier of the continued branch passes -1, located to a bracket of width <= "
                            f"{BRANCH_P_TOL:g} Hz, and the brute-force period test reads period-1 just below it and "
                            "not period-1 just above it (period-2, a later doubling, or irregular)",
                  holds=bool(pd is not None and pd.bracket[1] - pd.bracket[0] <= BRANCH_P_TOL + 1e-12 and agree),
                  text=("no doubling found" if pd is None else f"{pd.parameter:.3f} Hz"))


__all__ = ["StroboscopicMap", "stroboscopic_map", "memory_sensitivity", "OrbitResult", "periodic_orbit_at", "liouville_log_determinant",
           "FastLyapunov", "fast_lyapunov", "frequency_branch", "orbit_claims", "STABILITY_MARGIN"]
