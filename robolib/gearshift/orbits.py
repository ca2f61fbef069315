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
    Central differences of a map integrated with noise ``eta`` (scaled, :func:`return_noise` of P^k) and half-width
    ``h`` (scaled, >= the relative step) carry an error ~ ``eta / h`` per entry: :func:`multiplier_floor`; a
    rough map adds the change of ``max|mu|`` between the step and ``STEP_SPREAD_FACTOR`` times it. A ``max|mu|``
    below ``MU_RESOLVED_FACTOR`` times this error ``err`` is not a value but a bound, ``|mu| <= max|mu| + err``
    (:attr:`OrbitResult.resolved`, :attr:`OrbitResult.lyapunov_upper`). At 2 Hz / 0.1 mm
    (rtol 1e-11: eta = 2.5e-7, h = 2.2e-4, floor 1.2e-3) the reading ``max|mu| = 7e-5`` falls with the step as
    noise does (5.2e-5, 2.6e-5, 2.6e-6, 3e-6, 5e-7 for steps 3e-4, 1e-3, 3e-3, 1e-2, 3e-2; 1.7e-5 .. 4.4e-7 at rtol
    1e-12), and a perturbation of 1e-2..1e-1 shrinks in one period to the noise (ratio 8e-7..2e-5): the multipliers
    are below the noise, so the Floquet exponent is only bounded (``<= ln(err) / T`` = -13 /s); the time-series
    exponent -33.3 /s (``|mu| = 6e-8`` per period; the same for d0 1e-5..1e-3, rtol 1e-11/1e-12, 4..16 renormalisations per
    period, from a two-trajectory estimate that copied the memory; the tangent-linear flow with the memory's saltation
    reads -29.06 /s, :mod:`robolib.gearshift.lyapunov`) lies below that bound. Liouville's formula gives
    ``sum ln|mu_i| = -3422`` per period there (contact damping), so the differenced det (1e-22) is noise as well.

    The map is differentiable only on the scale of the section's distance to the contact boundary
    (:func:`section_contact_margin`): at 10 Hz / 0.5 mm the orbit's point 0 lies in a contact episode that spans the
    section, 5.2e-4 c deep. A stencil wider than that starts the neighbour in free flight, with a new (near-grazing)
    contact onset and a new onset-speed memory: steps 1e-3, 2e-3, 5e-3 read ``max|mu|`` 2.43, 0.59, 2.74 (reset
    memory; 1e-2 and 3e-2: a pair 0.9 and 0.29), 2.26, a pair 0.83 at 1e-2, 0.28 at 3e-2 (carried memory). The
    onsets inside the orbit are far from grazing (smallest onset speed 0.093 c omega). Within the smooth scale the
    routes agree: ``max|mu(P^2)|`` = 0.409 ± 0.013 (step 2.2e-4, reset; 0.418 at 4.3e-4), 0.403 / 0.429 (steps
    2.2e-4 / 6.5e-4, carried), and a perturbation of 1e-4..1e-3 (scaled) contracts by 0.40..0.44 per two periods
    over six periods (:func:`perturbation_ratios`).

Lyapunov exponents
    ``ln max|mu| / (k T)`` from the multipliers is one route; the time series is
    :mod:`robolib.gearshift.lyapunov` (the tangent-linear flow with the onset-speed memory's saltation).

>>> P = stroboscopic_map(None, 10.0, 5e-4)
>>> P.scale.round(6).tolist()
[0.0005, 0.0005, 0.031416, 0.031416]
>>> stroboscopic_map(None, 0.0, 5e-4)
Traceback (most recent call last):
    ...
robolib.ParameterError: frequency = 0.0 is not valid: frequency must be a number > 0 Hz (drive frequency of the return map)
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from robolib.core import checks
from robolib.core import nonlinear as N
from robolib.core.continuation import continue_orbits
from robolib.core.errors import ConvergenceError, ParameterError, SingularityError, UnreachableError
from robolib.core.periodic import (
    STABILITY_MARGIN,
    PeriodicOrbit,
    ShootingError,
    difference_step,
    floquet_multipliers,
    monodromy,
    period_doubling_start,
    periodic_orbit,
)
from robolib.core.poincare import NOISE_RTOL_DIVISOR
from robolib.gearshift.fast import FastClearance
from robolib.gearshift.model import check_params, load_parameters

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
# The noise of one return is measured by redoing it at rtol / NOISE_RTOL_DIVISOR, as the period test
# (robolib.core.poincare).
#: Smallest shooting tolerance (scaled): a guard for a noise measured as ~0.
SHOOT_TOL_FLOOR = 1e-12
#: Samples equal (the period test of the simulated samples, an orbit's minimal period): within this factor times the
#: shooting tolerance.
CONVERGE_FACTOR = 100.0
#: The simulation converges to the orbit: its last samples within this factor times the shooting tolerance of the
#: orbit's points with the memory carried (:func:`motion_orbit`; 1.6 x at 10 Hz / 0.5 mm, 0.2 x at 2 Hz / 0.1 mm, rtol
#: 1e-11).
MOTION_FACTOR = 10.0
#: A differenced max|mu| is a value only above this factor times :func:`multiplier_floor`, else a bound.
MU_RESOLVED_FACTOR = 2.0
#: The second difference stencil of the multipliers' error: this factor times the step (at 10 Hz / 0.5 mm its
#: e-half-width 4.3e-4 c stays inside the section's contact depth 5.2e-4 c, see :func:`section_contact_margin`).
STEP_SPREAD_FACTOR = 2.0


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


def _check_rtol(name: str, rtol) -> float:
    """A relative tolerance in (0, 1), or :class:`robolib.ParameterError` naming ``name``."""
    return checks.real(name, rtol, low=0.0, high=1.0, open_low=True, open_high=True)


def _check_map(P) -> "StroboscopicMap":
    if not isinstance(P, StroboscopicMap):
        raise ParameterError(f"P must be a StroboscopicMap (from stroboscopic_map), got {type(P).__name__}")
    return P


def _check_orbit(P: "StroboscopicMap", orbit) -> PeriodicOrbit:
    """``orbit``: a converged :class:`PeriodicOrbit` of a map of P's dimension, points (k, P.n) finite."""
    if not isinstance(orbit, PeriodicOrbit) or not orbit.converged:
        raise ParameterError(f"orbit must be a converged PeriodicOrbit of P (periodic_orbit, periodic_orbit_at), got "
                             f"{type(orbit).__name__}" + ("" if not isinstance(orbit, PeriodicOrbit) else
                                                          f" not converged ({orbit.reason:.60})"))
    pts = np.asarray(orbit.points)
    if pts.shape != (orbit.k, P.n) or not np.all(np.isfinite(pts)):
        raise ParameterError(f"orbit must have finite points of shape (k, {P.n}) = (k, 4) for P's state "
                             f"(e, ed{', ddelta0' if P.n == 5 else ''}), got shape {pts.shape}")
    return orbit


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
        if params is not None:
            check_params(params)
        self.params = load_parameters() if params is None else params
        s = self.params["solver"]
        self.rtol = ORBIT_RTOL if rtol is None else _check_rtol("rtol", rtol)
        self.atol = float(s["atol"]) * self.rtol / float(s["rtol"]) if atol is None else \
            checks.real("atol", atol, low=0.0, open_low=True)
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
        then treats the point as no decrease rather than stopping. A carried memory below the contact law's floor
        (a shooting step can take it there) is the floor, as the law stores ``max(speed, floor)``."""
        x = checks.real_array("x", x, shape=(self.n,))
        self.evaluations += 1
        fc = self.model
        try:
            r = fc.simulate((0.0, self.period), x[:2], x[2:4], t_eval=[self.period], rtol=self.rtol, atol=self.atol,
                            ddelta0=max(float(x[4]), fc.spec.ddelta0_floor) if self.n == 5 else None,
                            max_steps=MAP_MAX_STEPS)
        except (ConvergenceError, UnreachableError, SingularityError):
            return np.full(self.n, np.nan)
        out = np.concatenate([r.e[-1], r.ed[-1]])
        return np.append(out, r.ddelta0_final) if self.n == 5 else out

    def with_rtol(self, rtol: float) -> "StroboscopicMap":
        """The same map at another tolerance ``rtol`` in (0, 1) (atol scaled with it)."""
        rtol = _check_rtol("rtol", rtol)
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
    P = _check_map(P)
    orbit = _check_orbit(P, orbit)
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
    P = _check_map(P)
    k = _check_k(k)
    x = checks.real_array("x", x, shape=(4,))
    rel_step = checks.real("rel_step", rel_step, low=0.0, high=1.0, open_low=True, open_high=True)
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


def return_noise(P: StroboscopicMap, x, k: int = 1) -> float:
    """Integration noise of ``P^k`` at x (n,) (scaled max norm): ``P^k`` at rtol against rtol / NOISE_RTOL_DIVISOR.

    >>> return_noise(None, np.zeros(4))
    Traceback (most recent call last):
        ...
    robolib.ParameterError: P must be a StroboscopicMap (from stroboscopic_map), got NoneType
    """
    P = _check_map(P)
    k = _check_k(k)
    x = checks.real_array("x", x, shape=(P.n,))
    fine = P.with_rtol(P.rtol / NOISE_RTOL_DIVISOR)
    y, z = x, x
    for _ in range(k):
        y, z = P(y), fine(z)
    return float(np.max(np.abs(y - z) / P.scale))


def multiplier_floor(noise: float, step: float) -> float:
    """Smallest ``|mu|`` a central-difference monodromy resolves: ``noise / step`` (both scaled; the stencil's
    half-width is at least the relative step in the scaled units).

    >>> multiplier_floor(2.5e-7, 2.5e-4)
    0.001
    """
    noise = checks.real("noise", noise, low=0.0)
    step = checks.real("step", step, low=0.0, open_low=True)
    return float(noise / step)


def perturbation_ratios(P: StroboscopicMap, x, k: int = 1, amplitude: float = 1e-4, n_returns: int = 3,
                        seed: int = 0) -> np.ndarray:
    """``|P^(kn)(x + d) - P^(kn)(x)| / |d|`` for n = 1..n_returns (scaled max norm), d a seeded random direction of
    scaled size ``amplitude``: the direct route to the multipliers (no differencing). At a stable orbit the ratios
    fall by ``max|mu(P^k)|`` per return once the other directions have died out, until they reach the noise
    ``return_noise / amplitude``."""
    P = _check_map(P)
    k = _check_k(k)
    x = checks.real_array("x", x, shape=(P.n,))
    amplitude = checks.real("amplitude", amplitude, low=0.0, open_low=True)
    n_returns = checks.count("n_returns", n_returns)
    d = np.random.default_rng(checks.count("seed", seed, low=0)).normal(size=P.n)
    y, z = x + d * (amplitude / np.max(np.abs(d))) * P.scale, x
    out = []
    for _ in range(n_returns):
        for _ in range(k):
            y, z = P(y), P(z)
        out.append(float(np.max(np.abs(y - z) / P.scale)) / amplitude)
    return np.array(out)


def contraction_per_return(ratios) -> float:
    """Geometric mean factor between successive :func:`perturbation_ratios` from the second on (the first return
    still carries the faster directions): ``(r_n / r_2)^(1 / (n - 2))``; needs n >= 3.

    >>> contraction_per_return([5.0, 0.4, 0.16, 0.064])
    0.4
    """
    r = checks.real_array("ratios", ratios, shape=(None,))
    if len(r) < 3 or not np.all(r > 0):
        raise ParameterError(f"ratios must hold >= 3 positive entries (perturbation ratios per return), got "
                             f"{r.tolist()}")
    return float(round((r[-1] / r[1]) ** (1.0 / (len(r) - 2)), 12))


@dataclass(frozen=True)
class ContactMargin:
    """How far a periodic orbit is from the contact model's switching surfaces (:func:`section_contact_margin`).

    Fields:

    * ``depth``: smallest ``||e| / c - 1|`` at the orbit's section points, in units of c: a difference stencil wider
      than this moves the neighbour across the contact boundary (a new onset and onset-speed memory: P is
      not smooth on that scale).
    * ``stencil``: the e-half-width of the monodromy stencil (units of c) = the map's relative step.
    * ``smooth_at_step``: ``stencil < depth``.
    * ``min_onset_speed``: smallest normal speed at the contact onsets inside the k periods, in units of c omega
      (0 = grazing; the episodes that span the section excluded; inf without an onset).
    * ``n_onsets``: the number of those onsets.
    """

    depth: float
    stencil: float
    smooth_at_step: bool
    min_onset_speed: float
    n_onsets: int


def section_contact_margin(P: StroboscopicMap, orbit: PeriodicOrbit) -> ContactMargin:
    """How far the orbit is from the contact model's switching surfaces, scaled: a :class:`ContactMargin`."""
    P = _check_map(P)
    orbit = _check_orbit(P, orbit)
    fc = P.model
    c, v = P.clearance, P.clearance * P.omega
    pts = orbit.points[:, :4]
    depth = float(np.min(np.abs(np.hypot(pts[:, 0], pts[:, 1]) / c - 1.0)))
    onsets = []
    for i in range(orbit.k):
        x = orbit.points[i]
        r = fc.simulate((0.0, P.period), x[:2], x[2:4], rtol=P.rtol, atol=P.atol,
                        ddelta0=float(x[4]) if P.n == 5 else None)
        onsets += [d0 for (t_on, _, d0) in r.episodes if t_on > 0.0]
    stencil = float(P.step)
    return ContactMargin(depth, stencil, bool(stencil < depth), float(min(onsets) / v) if onsets else math.inf,
                         len(onsets))


@dataclass
class OrbitResult:
    """A periodic orbit of the gear-shift and its checks (:func:`periodic_orbit_at`).

    ``orbit`` the :class:`PeriodicOrbit` (``points`` (k, 4) m, m/s), ``residual`` (scaled), ``tol`` the shooting
    tolerance used and ``noise`` the measured one-return integration noise (scaled); ``multipliers``;
    ``max_mu``; ``stable`` (``max|mu| < 1 - STABILITY_MARGIN``); ``lyapunov`` ``ln max|mu| / (k T)`` (1/s);
    ``det`` det(monodromy); ``sim_distance`` (scaled) the largest distance of the last simulated Poincaré samples
    to the nearest point of ``motion_points`` (the orbit with the memory carried, :func:`motion_orbit`: the motion's
    own orbit) and ``sim_distances`` per sample; ``converges`` whether it is within
    ``MOTION_FACTOR * tol``; ``period_test`` the period-k of the simulated samples (0 = irregular) and
    ``memory`` :func:`memory_sensitivity`; ``wall_s``; ``evaluations`` of P; ``reason`` the outcome in words. ``noise_k``
    the noise of P^k at the orbit (:func:`return_noise`), ``mu_floor`` = :func:`multiplier_floor` of it; ``mu_error`` =
    mu_floor plus ``|max_mu - max_mu_2step|``, ``max_mu_2step`` the reading at STEP_SPREAD_FACTOR x the step;
    ``resolved`` whether ``max_mu >= MU_RESOLVED_FACTOR * mu_error`` (else max_mu is a bound, not a value);
    ``mu_upper`` = ``max_mu + mu_error`` and ``mu_lower`` (``max_mu - mu_error``, 0 if not resolved);
    ``lyapunov_upper``, ``lyapunov_lower`` their ``ln / (kT)`` (1/s; -inf for mu_lower = 0); ``contact`` the
    :class:`ContactMargin` (:func:`section_contact_margin`); ``motion_points`` (k, 4) :func:`motion_orbit`;
    ``minimal_period`` the smallest j with orbit point j
    equal to point 0 within the convergence tolerance (k for a proper period-k orbit). The fields after ``reason``
    are NaN / None when shooting failed (``orbit`` None).
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
    minimal_period: int | None = None
    max_mu_2step: float = float("nan")
    noise_k: float = float("nan")
    mu_floor: float = float("nan")
    mu_error: float = float("nan")
    resolved: bool = False
    mu_upper: float = float("nan")
    mu_lower: float = float("nan")
    lyapunov_upper: float = float("nan")
    lyapunov_lower: float = float("nan")
    contact: ContactMargin | None = None
    motion_points: np.ndarray | None = None


def motion_orbit(P: StroboscopicMap, orbit: PeriodicOrbit, sensitivity: float, max_iter: int = 15) -> np.ndarray:
    """The points (k, 4) (m, m/s) of the orbit the motion itself follows: ``orbit`` of P with the onset-speed memory
    carried (the 5-component map, shot from ``orbit``'s points with their own carried memory) where the memory
    matters (``sensitivity`` = :func:`memory_sensitivity` > 0: a contact episode spans phase 0), else ``orbit``'s
    points. A simulation carries the memory, so it converges to these points; with the memory reset at phase 0 the
    orbit lies ``sensitivity`` (scaled) off them at a point in contact (2.5e-3 c at 10 Hz / 0.5 mm, at any tolerance).
    If the carried shooting fails, ``orbit``'s points."""
    P = _check_map(P)
    orbit = _check_orbit(P, orbit)
    sensitivity = checks.real("sensitivity", sensitivity, low=0.0)
    max_iter = checks.count("max_iter", max_iter, low=0)
    pts = np.asarray(orbit.points)[:, :4]
    if P.n == 5 or sensitivity == 0.0:
        return pts.copy()
    P5 = StroboscopicMap(P.params, P.frequency, P.clearance, P.joint, P.rtol, P.atol, memory="carried")
    fc = P.model
    x5 = fc.return_map(np.append(pts[-1], fc.spec.ddelta0_floor), 0.0, 1, rtol=P.rtol, atol=P.atol)
    x5 = np.append(pts[0], x5[4])
    tol = max(SHOOT_TOL_FACTOR * P5.noise(x5), SHOOT_TOL_FLOOR)
    o5 = periodic_orbit(P5, x5, k=orbit.k, tol=tol, step=P5.step, scale=P5.scale, period=P5.period, strict=False,
                        max_iter=max_iter)
    return np.asarray(o5.points)[:, :4].copy() if o5.converged else pts.copy()


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
    clearance <= 0, x0 not of shape (4,) (5 with ``memory="carried"``), or any other bad argument (named), before
    any integration.
    """
    k = _check_k(k)
    n_transient = checks.count("n_transient", n_transient, low=0)
    n_samples = checks.count("n_samples", n_samples)
    max_iter = checks.count("max_iter", max_iter, low=0)
    if update not in ("newton", "broyden"):
        raise ParameterError(f"update must be 'newton' or 'broyden', got {update!r:.60}")
    if x0 is not None:   # (n,): 4, or 5 with the carried memory (a bad memory is named by the map)
        x0 = checks.real_array("x0", x0, shape=(5 if memory == "carried" else 4,))
    P = stroboscopic_map(params, frequency, clearance, joint, rtol, memory=memory)
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
    kmin = _minimal_period(o.points[:, :4] / P.scale[:4], CONVERGE_FACTOR * tol)
    mem = memory_sensitivity(P, o) if P.n == 4 else 0.0
    motion = motion_orbit(P, o, mem, max_iter)
    d = _distances(samples[-max(2 * k, 4):, :4], motion, P.scale[:4])
    noise_k = return_noise(P, o.x, k)
    mu2 = float(np.abs(floquet_multipliers(monodromy(P, o.x, k=k, step=STEP_SPREAD_FACTOR * P.step,
                                                     scale=P.scale))[0]))
    floor = multiplier_floor(noise_k, P.step)
    err = floor + abs(mu2 - o.max_modulus)
    resolved = bool(o.max_modulus >= MU_RESOLVED_FACTOR * err)
    hi, lo = o.max_modulus + err, (o.max_modulus - err if resolved else 0.0)
    kT = k * P.period
    contact = section_contact_margin(P, o)
    return OrbitResult(P.frequency, P.clearance, k, o, o.residual, tol, noise, o.multipliers, o.max_modulus, o.stable,
                       o.lyapunov, float(np.linalg.det(o.monodromy)), float(np.max(d)), d,
                       bool(np.max(d) <= MOTION_FACTOR * tol), ptest, mem, time.perf_counter() - wall, evals,
                       f"converged (minimal period {kmin})", kmin, mu2, noise_k,
                       floor, err, resolved, hi, lo, math.log(hi) / kT, (math.log(lo) / kT if lo > 0 else -math.inf),
                       contact, motion)


class _MapFamily:
    """``map_at(f) -> (P_f, T)`` for :func:`continue_orbits` (picklable)."""

    def __init__(self, params, clearance, joint, rtol):
        self.params, self.clearance, self.joint, self.rtol = params, clearance, joint, rtol
        self.maps = {}

    def __call__(self, f):
        P = StroboscopicMap(self.params, float(f), self.clearance, self.joint, self.rtol)
        self.maps[float(f)] = P
        return P, P.period


@dataclass(frozen=True)
class FrequencyBranch:
    """The period-1 branch in frequency and what was found along it (:func:`frequency_branch`).

    Fields:

    * ``branch``: the continued period-1 branch (:class:`robolib.core.continuation.Branch`: parameters in Hz, points
      (m, 4) in m, m/s, multipliers, stability, bifurcations).
    * ``pd``: the first period-doubling :class:`robolib.core.continuation.Bifurcation` on it, or None.
    * ``branch2``: the period-2 branch born there (a :class:`robolib.core.continuation.Branch`), the reason its start
      failed (text), or None without a doubling.
    * ``wall_s``: wall time of the continuation, s.
    * ``evaluations``: evaluations of the return map (both branches).
    """

    branch: object
    pd: object
    branch2: object
    wall_s: float
    evaluations: int


#: Continuation: frequency step (Hz) and the located bifurcations' bracket (Hz).
BRANCH_DS = 0.25
BRANCH_P_TOL = 1e-3
#: Shooting tolerance along the branch (scaled max norm, scale at the geometric mean frequency): the one-return
#: error at rtol 1e-11 reaches 1.1e-5 c (10 Hz / 0.5 mm), i.e. ~3e-5 in the branch's scale there.
BRANCH_TOL = 3e-4


def frequency_branch(params, clearance, f0=1.0, f1=12.0, joint="B1", rtol=None, ds=BRANCH_DS, p_tol=BRANCH_P_TOL,
                     tol=BRANCH_TOL, x0=None, n_transient=ORBIT_TRANSIENT, pd_span=0.5, update="broyden",
                     ds_min=None, scheme="central") -> FrequencyBranch:
    """The period-1 branch in frequency from ``f0`` to ``f1`` (Hz) at ``clearance`` (m), its first doubling, the
    period-2 branch born there (continued ``pd_span`` Hz on). ``ds`` the frequency step (Hz), halved after a failed
    solve down to ``ds_min`` (default ``p_tol / 2``). ``scheme``: the monodromy's differences, ``"central"`` or
    ``"forward"`` (half the evaluations of P, an error of the order of the step), both with the map's step.
    ``x0`` (4,): the start of the branch at ``f0``; default the Poincaré sample after ``n_transient`` periods from
    the journal centred (``n_transient = 0``: that state itself). Bad arguments raise
    :class:`robolib.ParameterError` naming them before any integration.

    Returns a :class:`FrequencyBranch`: ``branch`` (:class:`robolib.core.continuation.Branch`), ``pd`` the first
    period-doubling :class:`Bifurcation` or None, ``branch2`` (period 2) or None, ``wall_s``, ``evaluations``.
    """
    _, clearance = _check_fc(1.0, clearance)
    f0 = checks.real("f0", f0, low=0.0, open_low=True, unit="Hz")
    f1 = checks.real("f1", f1, low=0.0, open_low=True, unit="Hz")
    if f1 == f0:
        raise ParameterError(f"f1 must differ from f0, got both {f0:g} Hz")
    pd_span = checks.real("pd_span", pd_span, low=0.0, open_low=True, unit="Hz")
    n_transient = checks.count("n_transient", n_transient, low=0)
    if x0 is not None:
        x0 = checks.real_array("x0", x0, shape=(4,))
    # the options continue_orbits and periodic_orbit check too, here before the transient is integrated
    checks.real("ds", ds, low=0.0, open_low=True, unit="Hz")
    checks.real("tol", tol, low=0.0, open_low=True)
    for name, value in (("p_tol", p_tol), ("ds_min", ds_min)):
        if value is not None:
            checks.real(name, value, low=0.0, open_low=True, unit="Hz")
    if update not in ("newton", "broyden"):
        raise ParameterError(f"update must be 'newton' or 'broyden', got {update!r:.60}")
    if scheme not in ("central", "forward"):
        raise ParameterError(f"scheme must be 'central' or 'forward', got {scheme!r:.60}")
    fam = _MapFamily(params, clearance, joint, rtol)
    P0, _ = fam(f0)
    if x0 is None:
        x0 = P0.samples(n_transient)[-1] if n_transient > 0 else np.zeros(4)
    wall = time.perf_counter()
    # one norm along the branch: the scale (c, c, c omega_m, c omega_m) at the geometric mean frequency f_m
    om = 2 * math.pi * math.sqrt(f0 * f1)
    newton = dict(tol=tol, scale=np.array([clearance, clearance, clearance * om, clearance * om]), step=P0.step,
                  update=update, max_iter=15, scheme=scheme)
    br = continue_orbits(fam, x0, f0, f1, ds, k=1, p_tol=p_tol, ds_min=ds_min, **newton)
    pds = br.of_kind("period-doubling")
    pd, br2 = (pds[0] if pds else None), None
    if pd is not None and pd.orbit is not None:
        fpd = pd.parameter
        fa = min(pd.bracket[1] + 0.05 * pd_span, f1) if f1 > f0 else fpd
        Pa, _ = fam(fa)
        try:
            o1 = periodic_orbit(Pa, pd.orbit.x, k=1, period=Pa.period, **newton)
            o2 = period_doubling_start(Pa, o1, h=1e-2, **newton)
            br2 = continue_orbits(fam, o2.x, fa, min(fa + pd_span, f1) if fa + pd_span <= f1 else f1, ds / 2, k=2,
                                  p_tol=p_tol, **newton)
        except (ShootingError, ParameterError) as exc:
            br2 = str(exc)
    return FrequencyBranch(br, pd, br2, time.perf_counter() - wall,
                           br.evaluations + (br2.evaluations if hasattr(br2, "evaluations") else 0))


__all__ = ["StroboscopicMap", "stroboscopic_map", "memory_sensitivity", "motion_orbit", "MOTION_FACTOR", "return_noise", "multiplier_floor",
           "perturbation_ratios", "contraction_per_return", "section_contact_margin", "ContactMargin", "OrbitResult",
           "periodic_orbit_at", "liouville_log_determinant",
           "FrequencyBranch", "frequency_branch", "STABILITY_MARGIN"]
