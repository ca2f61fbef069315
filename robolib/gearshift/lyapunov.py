"""The largest Lyapunov exponent of the gear-shift clearance model from its tangent-linear flow.

A two-trajectory estimate needs a neighbour close enough that the flow is smooth between the two,
and on this model that scale is small: near the 10 Hz / 0.5 mm orbit the section's contact margin is
about 5e-4 c, and a neighbour with another impact onset speed follows another force law (the
Lankarani--Nikravesh damping divides by the onset speed). The tangent-linear flow needs no
separation (Mueller 1995; di Bernardo et al. 2007, ch. 2): each tangent column ``v = (de, ded,
dddelta0)`` is integrated with the flow by the variational equation, the onset-speed memory is a state
component, and at each contact onset the memory's tangent jumps by the saltation of the reset map
(:meth:`robolib.gearshift.fast.FastClearance._tangent_flow`). The contact force vanishes at the
contact boundary, so the flow itself is continuous there and the onset is the only jump. The tangent
columns are inside the integrator's error control.

The exponent is ``sum ln |v_k| / t`` over ``n_periods`` drive periods after a transient, the tangent
renormalised ``per_period`` times per period (its norm over ``(e, ed)`` in the units
``(c, c, c omega, c omega)``); its statistical error is the batch-means standard error over batches
of whole units of two periods (so a period-2 orbit's pattern is not read as scatter).
:func:`lyapunov_exponent` repeats the run with the tolerance and the difference half-width refined and
states the uncertainty as the batch error plus both changes.

>>> r = tangent_lyapunov(None, 10.0, 5e-4, n_periods=4, n_transient=2, rtol=1e-9)
>>> r.exponent < 0, r.n_periods
(True, 4)
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from robolib.core import checks
from robolib.core.errors import ParameterError
from robolib.core.parallel import progress_bar
from robolib.gearshift.fast import FastClearance
from robolib.gearshift.model import build_gearshift, check_params, clearance_model, load_parameters, with_changes

#: Defaults: tolerance of the exponent's run (its refinement divides it by ``RTOL_DIVISOR``), the central
#: differences' relative half-width on the fast model and on the DAE, periods measured and transient periods.
RTOL = 1e-10
RTOL_DIVISOR = 10.0
EPS = 1e-5
#: The differences' half-width is checked by repeating a run with it multiplied by this (a coarser half-width: the
#: change is an upper bound of the error; measured at 10 Hz / 0.5 mm, rtol 1e-11: 1e-4 moves the exponent by
#: 0.46 /s, 1e-5 by 0.02 /s, 1e-6 by 0.005 /s against 1e-7, and halving the tolerance costs 3x at eps 1e-6).
EPS_FACTOR = 3.0
#: Relative step of the central differences of the chart maps (closed-form kinematics) on the DAE.
CHART_STEP = 1e-6
N_PERIODS = 60
N_TRANSIENT = 40
PER_PERIOD = 8
#: Batches of the batch-means error (whole units of two drive periods each).
BATCHES = 10
#: Drive periods the tangent runs before it is measured (it turns into the most expanding direction).
N_ALIGN = 4


@dataclass(frozen=True)
class TangentExponent:
    """One run of :func:`tangent_lyapunov`.

    * ``exponent``: the largest Lyapunov exponent, 1/s.
    * ``uncertainty``: its batch-means standard error, 1/s.
    * ``halves``: the exponents of the two halves of the measured periods, 1/s.
    * ``log_stretch``: ``ln |v|`` per renormalisation interval (n_periods * per_period,).
    * ``tau``: the renormalisation interval, s.
    * ``running``: the estimate after each drive period (n_periods,), 1/s.
    * ``rtol``, ``eps``: the tolerance and the differences' relative half-width of the run.
    * ``n_periods``, ``per_period``: drive periods measured, renormalisations per period.
    * ``frequency`` (Hz), ``clearance`` (m), ``joint``; ``model``: ``"fast"`` or ``"dae"``; ``wall_s``: wall time, s.
    """

    exponent: float
    uncertainty: float
    halves: tuple
    log_stretch: np.ndarray
    tau: float
    running: np.ndarray
    rtol: float
    eps: float
    n_periods: int
    per_period: int
    frequency: float
    clearance: float
    joint: str
    model: str
    wall_s: float


def _batch_error(logs: np.ndarray, unit: int, tau: float) -> float:
    """Batch-means standard error (1/s) of ``mean(logs) / tau`` over batches of whole ``unit`` intervals."""
    n_units = len(logs) // unit
    if n_units < 2:
        return float("nan")
    units = logs[:n_units * unit].reshape(n_units, unit)
    nb = min(BATCHES, n_units)
    means = [float(np.mean(part)) / tau for part in np.array_split(units, nb)]
    return float(np.std(means, ddof=1) / math.sqrt(nb))


def _result(logs, T, per_period, rtol, eps, frequency, clearance, joint, model, wall) -> TangentExponent:
    """The :class:`TangentExponent` of the measured ``logs`` (the alignment periods already dropped)."""
    tau = T / per_period
    n_periods = len(logs) // per_period
    per = logs.reshape(n_periods, per_period).sum(axis=1)
    running = np.cumsum(per) / (T * np.arange(1, n_periods + 1))
    h = n_periods // 2
    halves = (float(np.mean(per[:h]) / T) if h else float("nan"), float(np.mean(per[h:]) / T))
    return TangentExponent(float(running[-1]), _batch_error(logs, 2 * per_period, tau), halves, logs, tau, running,
                           rtol, eps, n_periods, per_period, frequency, clearance, joint, model,
                           time.perf_counter() - wall)


def _arguments(params, frequency, clearance, rtol, eps, n_periods, n_transient, per_period, n_align, seed):
    """The checked arguments of the two routes (a :class:`robolib.ParameterError` names a bad one)."""
    if params is not None:
        check_params(params)
    params = load_parameters() if params is None else params
    return (params, checks.real("frequency", frequency, low=0.0, open_low=True, unit="Hz"),
            checks.real("clearance", clearance, low=0.0, open_low=True, unit="m"),
            checks.real("rtol", rtol, low=0.0, high=1e-3, open_low=True),
            checks.real("eps", eps, low=0.0, high=1e-2, open_low=True), checks.count("n_periods", n_periods),
            checks.count("n_transient", n_transient, low=0), checks.count("per_period", per_period),
            checks.count("n_align", n_align, low=0), checks.count("seed", seed, low=0))


def _start_direction(seed: int) -> np.ndarray:
    """Seeded random unit tangent in ``(e, ed)`` (scaled), zero memory component."""
    v = np.append(np.random.default_rng(seed).normal(size=4), 0.0)
    return v / np.linalg.norm(v[:4])


def tangent_lyapunov(params, frequency, clearance, joint="B1", rtol=RTOL, eps=EPS, n_periods=N_PERIODS,
                     n_transient=N_TRANSIENT, per_period=PER_PERIOD, n_align=N_ALIGN, x0=None,
                     seed=0, saltation=True) -> TangentExponent:
    """Largest Lyapunov exponent (1/s) of the fast model at ``frequency`` (Hz) and radial ``clearance`` (m).

    From ``x0`` (4,) = ``(e, ed)`` (m, m/s) at phase 0 (default the journal centred) the flow runs
    ``n_transient`` drive periods, then carries one tangent column (seeded random start in ``(e, ed)``)
    ``n_align`` periods unmeasured and ``n_periods`` measured, renormalised ``per_period`` times per period.
    ``rtol``: the integration tolerance (atol by the parameter file's ratio); ``eps``: the relative half-width
    of the variational equation's differences; ``saltation=False`` drops the onset-speed memory's jump (a check
    of what it contributes). Returns a :class:`TangentExponent`. Bad arguments raise
    :class:`robolib.ParameterError` naming them before any integration.

    >>> r = tangent_lyapunov(None, 2.0, 1e-4, n_periods=2, n_transient=1, n_align=0, rtol=1e-9, per_period=4)
    >>> bool(r.exponent < -10), r.model
    (True, 'fast')
    """
    params, frequency, clearance, rtol, eps, n_periods, n_transient, per_period, n_align, seed = _arguments(
        params, frequency, clearance, rtol, eps, n_periods, n_transient, per_period, n_align, seed)
    x0 = np.zeros(4) if x0 is None else checks.real_array("x0", x0, shape=(4,))
    saltation = checks.flag("saltation", saltation)
    fc = FastClearance(params, joint=joint, clearance=clearance, frequency=frequency)
    s = params["solver"]
    atol = float(s["atol"]) * rtol / float(s["rtol"])
    wall = time.perf_counter()
    T, c, om = 1.0 / frequency, clearance, fc.omega
    tsc = np.array([c, c, c * om, c * om, c * om])
    x = np.append(x0, fc.spec.ddelta0_floor)
    if n_transient:
        r = fc.simulate((0.0, n_transient * T), x[:2], x[2:4], t_eval=[n_transient * T], rtol=rtol, atol=atol)
        x = np.array([*r.e[-1], *r.ed[-1], r.ddelta0_final])
    v = _start_direction(seed)
    logs = np.empty((n_align + n_periods) * per_period)
    for k in range(len(logs)):
        t0 = (n_transient + k / per_period) * T
        x, V = fc._tangent_flow((t0, t0 + T / per_period), x, (v * tsc)[None, :], rtol, atol, eps, saltation)
        w = V[0] / tsc
        g = float(np.linalg.norm(w[:4]))
        logs[k] = math.log(g)
        v = w / g
    return _result(logs[n_align * per_period:], T, per_period, rtol, eps, frequency, clearance, joint, "fast", wall)


def _chart_derivative(fun, x, v, h):
    """Central difference ``(fun(x + h v) - fun(x - h v)) / 2h`` of a closed-form map (tuples concatenated)."""
    return (np.concatenate(fun(x + h * v)) - np.concatenate(fun(x - h * v))) / (2.0 * h)


def dae_tangent_lyapunov(params, frequency, clearance, joint="B1", rtol=RTOL, eps=EPS, n_periods=N_PERIODS,
                         n_transient=N_TRANSIENT, per_period=PER_PERIOD, n_align=N_ALIGN, alpha=None,
                         seed=0) -> TangentExponent:
    """The exponent of :func:`tangent_lyapunov` on the seed's Baumgarte DAE (21 body coordinates).

    The DAE's own trajectory (from the ideal state, the journal centred) carries one tangent column
    ``(dq, dqd, dddelta0)`` by its variational equation, with the saltation of the onset-speed memory
    (:meth:`robolib.core.clearance.ClearanceModel._tangent_flow`). At each renormalisation the tangent is read
    in the chart ``(e, ed)`` of the constraint manifold (the eccentricity of the clearance joint and its rate:
    the derivative of :meth:`~robolib.gearshift.fast.FastClearance.state_from_full`) and restarted tangent to
    the manifold (the derivative of :meth:`~robolib.gearshift.fast.FastClearance.full_state`), so the
    Baumgarte modes, which decay off the manifold at about ``-alpha``, do not enter. ``alpha`` (1/s): the
    Baumgarte factors (alpha = beta; default the parameter file's). Otherwise the arguments, units and result
    of :func:`tangent_lyapunov`.
    """
    params, frequency, clearance, rtol, eps, n_periods, n_transient, per_period, n_align, seed = _arguments(
        params, frequency, clearance, rtol, eps, n_periods, n_transient, per_period, n_align, seed)
    p = with_changes(params, **{"motion.frequency": frequency})
    if alpha is not None:
        alpha = checks.real("alpha", alpha, low=0.0, unit="1/s")
        p = with_changes(p, **{"solver.baumgarte_alpha": alpha, "solver.baumgarte_beta": alpha})
    fc = FastClearance(params, joint=joint, clearance=clearance, frequency=frequency)
    gs = build_gearshift(p)
    cm = clearance_model(gs, [joint], clearance)
    s = params["solver"]
    atol = float(s["atol"]) * rtol / float(s["rtol"])
    wall = time.perf_counter()
    T, c, om, n, l = 1.0 / frequency, clearance, fc.omega, cm.reduced.n, gs.l
    tsc5 = np.array([c, c, c * om, c * om, c * om])
    pos = np.tile([c, c, c / l], n // 3)
    tsc = np.concatenate([pos, pos * om, [c * om]])
    q, qd, _ = gs.ideal_state(0.0)
    y = np.concatenate([q, qd, [fc.spec.ddelta0_floor]])
    if n_transient:
        r = cm.simulate((0.0, n_transient * T), q, qd, t_eval=[n_transient * T], rtol=rtol, atol=atol)
        y = np.concatenate([r.y_final[:2 * n], r.ddelta0_final])
    v = _start_direction(seed)
    logs = np.empty((n_align + n_periods) * per_period)
    for k in range(len(logs)):
        t0 = (n_transient + k / per_period) * T
        e, ed = fc.state_from_full(y[:n], y[n:2 * n])
        dqq = _chart_derivative(lambda x: fc.full_state(x[:2], x[2:], t0), np.concatenate([e, ed]), v[:4] * tsc5[:4],
                                CHART_STEP)
        y, V = cm._tangent_flow((t0, t0 + T / per_period), y, np.append(dqq, v[4] * tsc5[4])[None, :], rtol, atol,
                               tsc, eps, floor=tsc * l / c)
        w = np.append(_chart_derivative(lambda z: fc.state_from_full(z[:n], z[n:]), y[:2 * n], V[0, :2 * n],
                                        CHART_STEP), V[0, 2 * n]) / tsc5
        g = float(np.linalg.norm(w[:4]))
        logs[k] = math.log(g)
        v = w / g
    return _result(logs[n_align * per_period:], T, per_period, rtol, eps, frequency, clearance, joint, "dae", wall)


@dataclass(frozen=True)
class Exponent:
    """The largest Lyapunov exponent of one case with an uncertainty that covers the method's own refinement
    (:func:`lyapunov_exponent`).

    * ``exponent``: the exponent at the tighter tolerance, 1/s.
    * ``uncertainty``: ``sqrt(batch^2 + tolerance_change^2 + eps_change^2)``, 1/s: three independent parts
      combined in quadrature (the GUM's rule; on a chaotic attractor each change also carries the statistical
      scatter of two finite-time runs, which a linear sum would count again).
    * ``batch``: its batch-means standard error, 1/s.
    * ``tolerance_change``: ``|lambda(rtol / RTOL_DIVISOR) - lambda(rtol)|``, 1/s.
    * ``eps_change``: ``|lambda(rtol / RTOL_DIVISOR, eps * EPS_FACTOR) - lambda(rtol / RTOL_DIVISOR, eps)|``, 1/s.
    * ``runs``: the three :class:`TangentExponent` runs: at ``rtol``; at ``rtol / RTOL_DIVISOR`` (the value); at
      ``rtol / RTOL_DIVISOR`` with ``eps * EPS_FACTOR``.
    * ``model``: ``"fast"`` or ``"dae"``.
    """

    exponent: float
    uncertainty: float
    batch: float
    tolerance_change: float
    eps_change: float
    runs: tuple
    model: str

    @property
    def relative(self) -> float:
        """``uncertainty / |exponent|``."""
        return self.uncertainty / abs(self.exponent) if self.exponent else math.inf

    @property
    def interval(self) -> tuple[float, float]:
        """``(exponent - uncertainty, exponent + uncertainty)``, 1/s."""
        return self.exponent - self.uncertainty, self.exponent + self.uncertainty

    def text(self) -> str:
        """E.g. ``-4.45 ± 0.05 /s`` (an uncertainty below 0.005 with one significant digit: ``-29.06 ± 0.001 /s``)."""
        u = f"{self.uncertainty:.2f}" if self.uncertainty >= 0.005 else f"{self.uncertainty:.1g}"
        return f"{self.exponent:+.2f} ± {u} /s"


def lyapunov_exponent(params, frequency, clearance, joint="B1", model="fast", rtol=RTOL, eps=EPS,
                      n_periods=N_PERIODS, progress=None, **kw) -> Exponent:
    """The exponent of :func:`tangent_lyapunov` (``model="fast"``) or :func:`dae_tangent_lyapunov` (``"dae"``)
    at ``rtol / RTOL_DIVISOR``, with an uncertainty that covers its refinement: the batch error, the change from
    ``rtol`` (the tolerance) and the change with ``eps * EPS_FACTOR`` (the differences' half-width), in quadrature.
    ``kw``: the other arguments of the route (``n_transient``, ``per_period``, ``n_align``, ``seed``, ``alpha``
    on the DAE). ``progress``: a bar over the three runs (None: in a terminal or a live notebook only).
    Returns an :class:`Exponent`.

    >>> L = lyapunov_exponent(None, 10.0, 5e-4, n_periods=4, n_transient=2, n_align=0, rtol=1e-8)
    >>> len(L.runs), bool(L.uncertainty >= L.batch), L.model
    (3, True, 'fast')
    """
    if model not in ("fast", "dae"):
        raise ParameterError(f"model = {model!r} is not valid: model must be 'fast' (minimal coordinates) or 'dae' "
                             f"(the seed's Baumgarte DAE)")
    if progress is not None and not isinstance(progress, (bool, np.bool_)):
        raise ParameterError(f"progress must be True, False or None, got {progress!r}")
    route = tangent_lyapunov if model == "fast" else dae_tangent_lyapunov
    runs = []
    with progress_bar(progress, 3, f"Lyapunov exponent, {model} model") as bar:
        for div, fac in ((None, None), (RTOL_DIVISOR, None), (RTOL_DIVISOR, EPS_FACTOR)):  # the first run checks
            runs.append(route(params, frequency, clearance, joint, rtol=rtol if div is None else rtol / div,
                              eps=eps if fac is None else eps * fac, n_periods=n_periods, **kw))
            bar.update()
    return combine(*runs, model)


def combine(a, b, c, model: str) -> Exponent:
    """The :class:`Exponent` of three runs (anything with ``exponent`` and ``uncertainty`` in 1/s): ``a`` at rtol,
    ``b`` at rtol / RTOL_DIVISOR (the value), ``c`` as ``b`` with the half-width times EPS_FACTOR.

    >>> from types import SimpleNamespace as R
    >>> combine(R(exponent=-4.0, uncertainty=0.1), R(exponent=-4.3, uncertainty=0.1), R(exponent=-4.2,
    ...         uncertainty=0.1), "fast").text()
    '-4.30 ± 0.33 /s'
    """
    dt, de = abs(b.exponent - a.exponent), abs(c.exponent - b.exponent)
    return Exponent(b.exponent, math.hypot(b.uncertainty, dt, de), b.uncertainty, dt, de, (a, b, c), model)


__all__ = ["TangentExponent", "tangent_lyapunov", "dae_tangent_lyapunov", "Exponent", "lyapunov_exponent", "combine"]
