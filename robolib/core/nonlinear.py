"""Nonlinear-dynamics toolkit: Poincaré sampling, parameter sweeps, Lyapunov exponents, spectra, periodic orbits.

Periodic orbits (shooting on a return map, Floquet multipliers) and their continuation in a
parameter are in :mod:`robolib.core.periodic` and :mod:`robolib.core.continuation`, parallel and
checkpointed sweeps in :mod:`robolib.core.parallel`; all are re-exported here.

The functions are generic: they take a *flow* ``flow(y, t0, t1) -> y(t1)``
(any integrator) or a picklable function of one parameter value, so they serve
the gear-shift manipulator (:mod:`robolib.gearshift`) and reference systems
such as the Lorenz equations alike.

Parallel sweeps and running them on a cluster
---------------------------------------------
:func:`sweep` runs independent simulations through an existing engine: joblib's
``loky`` processes on one machine (``n_jobs``), or Dask distributed
(``backend="dask"``) when one machine is not enough -- the same call. On one
machine::

    from dask.distributed import Client, LocalCluster
    client = Client(LocalCluster(n_workers=2, threads_per_worker=1))
    values, results = sweep(run_one, frequencies, backend="dask")

On a SLURM cluster (``pip install dask-jobqueue``; the workers need the same
environment, so that they can import ``robolib``)::

    from dask_jobqueue import SLURMCluster
    cluster = SLURMCluster(cores=8, processes=8, memory="16GB", walltime="02:00:00")
    cluster.scale(jobs=4)                      # 4 SLURM jobs of 8 workers
    client = Client(cluster)
    values, results = sweep(run_one, frequencies, backend="dask")

A long sweep keeps each finished point on disk as it completes
(``checkpoint="points/"``: one atomically written file per point, named by a hash
of the point's full settings, :func:`point_key`); killed and started again with
the same settings, on joblib or on Dask, it computes only the missing points.

The task function and its arguments must be picklable (module-level functions,
:func:`functools.partial` of them, plain dicts/arrays), which is what
:func:`robolib.gearshift.poincare_run` and friends are.

>>> t = np.linspace(0.0, 10.0, 1001)
>>> poincare_section(t, np.sin(2 * np.pi * t)[:, None], period=1.0, t_transient=2.0).shape
(9, 1)
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from robolib.core.checks import count, real, real_array
from robolib.core.errors import ParameterError

#: Published largest Lyapunov exponent of the Lorenz system (sigma=10, rho=28, beta=8/3),
#: Sprott (2003), "Chaos and Time-Series Analysis", Table 4.1 / Appendix A: 0.9056.
LORENZ_LYAPUNOV = 0.9056


# --------------------------------------------------------------------------- Poincaré sampling
def poincare_times(period: float, n_transient: int, n_samples: int, t0: float = 0.0, phase: float = 0.0) -> np.ndarray:
    """Sampling instants ``t0 + (n_transient + k + phase) * period`` for ``k = 0..n_samples-1`` (s).

    >>> poincare_times(0.5, 2, 3).tolist()
    [1.0, 1.5, 2.0]
    """
    period = real("period", period, low=0.0, open_low=True, unit="s")
    n_transient, n_samples = count("n_transient", n_transient, low=0), count("n_samples", n_samples)
    t0, phase = real("t0", t0, unit="s"), real("phase", phase)
    return t0 + (n_transient + np.arange(n_samples) + phase) * period


def _samples(name: str, s) -> np.ndarray:
    """Poincaré samples as a finite (N, d) float array: (N,) is one column; other shapes are refused by name."""
    s = real_array(name, s)
    if s.ndim == 1:
        s = s[:, None]
    if s.ndim != 2:
        raise ParameterError(f"{name} must have shape (N,) or (N, d) (one row per sample), got {s.shape}")
    return s


def _time_grid(name: str, t, n_min: int = 2) -> np.ndarray:
    """Sample times (T,) (s): finite, at least ``n_min`` of them, strictly increasing."""
    t = real_array(name, t, shape=(None,))
    if t.size < n_min:
        raise ParameterError(f"{name} must hold at least {n_min} sample times, got {t.size}")
    if np.any(np.diff(t) <= 0):
        raise ParameterError(f"{name} must be strictly increasing (s), got a step of {float(np.diff(t).min()):g} s")
    return t


def poincare_section(t, x, period: float, t_transient: float = 0.0, phase: float = 0.0) -> np.ndarray:
    """Stroboscopic Poincaré samples of a sampled trajectory ``x`` (T, d) at ``t_transient + (k + phase) period``.

    Samples are linearly interpolated from the time grid ``t`` (T,); only
    instants inside ``[t_transient, t[-1]]`` are returned, (k, d).
    """
    t = _time_grid("t", t)
    x = _samples("x", x)
    if x.shape[0] != t.shape[0]:
        raise ParameterError(f"x must have one row per time sample of t, got {x.shape[0]} rows of x for "
                             f"{t.shape[0]} times in t")
    period = real("period", period, low=0.0, open_low=True, unit="s")
    t_transient, phase = real("t_transient", t_transient, unit="s"), real("phase", phase)
    n = int(np.floor((t[-1] - t_transient) / period - phase + 1e-9)) + 1
    ts = t_transient + (np.arange(max(n, 0)) + phase) * period
    ts = ts[(ts >= t[0]) & (ts <= t[-1] + 1e-12)]
    return np.stack([np.interp(ts, t, x[:, j]) for j in range(x.shape[1])], axis=-1)


def distinct_points(samples, tol: float) -> int:
    """Number of clusters of Poincaré samples (k, d) farther apart than ``tol`` (period-n detection).

    >>> distinct_points(np.array([[0.0], [1.0], [0.0], [1.0 + 1e-9]]), 1e-6)
    2
    """
    s = _samples("samples", samples)
    tol = real("tol", tol, low=0.0)
    reps: list[np.ndarray] = []
    for p in s:
        if not any(np.max(np.abs(p - r)) <= tol for r in reps):
            reps.append(p)
    return len(reps)


#: Default largest period tested by :func:`period_k` (drive periods).
PERIOD_K_MAX = 8


def repeat_residuals(samples, k_max: int = PERIOD_K_MAX) -> np.ndarray:
    """Largest mismatch ``max_i |s_{i+k} - s_i|_inf`` of the sample sequence with itself at lag k = 1..k_max.

    ``samples`` (N, d), N > k_max. Entry ``k - 1`` is the residual of lag k.

    >>> repeat_residuals(np.array([[0.0], [1.0], [0.0], [1.0], [0.0]]), 2).tolist()
    [1.0, 0.0]
    """
    s = _samples("samples", samples)
    k_max = count("k_max", k_max)
    if s.shape[0] <= k_max:
        raise ParameterError(f"need at least k_max + 1 = {k_max + 1} samples for lags 1..{k_max}, "
                             f"got {s.shape[0]}")
    return np.array([np.max(np.abs(s[k:] - s[:-k])) for k in range(1, k_max + 1)])


def period_k(samples, tol: float, k_max: int = PERIOD_K_MAX) -> int:
    """Smallest period k <= k_max of a Poincaré sample sequence, or 0 (irregular).

    The sequence (N, d) repeats with period k when every sample equals the one
    k samples later within ``tol`` (max-norm): ``max_i |s_{i+k} - s_i| <= tol``.
    Choose ``tol`` from the measured integration noise of one return (see
    :func:`robolib.gearshift.poincare_run`); N should be at least ``3 k_max``
    so that a period-k candidate is checked over several repeats. Raises
    :class:`robolib.ParameterError` for fewer than ``k_max + 1`` samples or
    a non-positive ``tol``.

    >>> s = np.array([[0.0], [1.0], [0.0], [1.0 + 1e-9], [0.0], [1.0]])
    >>> period_k(s, 1e-6, 2), period_k(s, 1e-12, 2), period_k(np.arange(6.0)[:, None], 0.5, 2)
    (2, 0, 0)
    """
    tol = real("tol", tol, low=0.0, open_low=True)
    hits = np.flatnonzero(repeat_residuals(samples, k_max) <= tol)
    return int(hits[0]) + 1 if hits.size else 0


def period_name(k: int) -> str:
    """Verdict word of :func:`period_k`: ``"period-k"`` or ``"irregular"`` (k = 0).

    >>> period_name(1), period_name(0)
    ('period-1', 'irregular')
    """
    k = count("k", k.item() if isinstance(k, np.integer) else k, low=0)
    return "irregular" if k == 0 else f"period-{k}"


#: Tolerance-ladder rule (:func:`ladder_verdict`). A lag's misfit converges when the least-squares
#: slope of log10(misfit) against log10(rtol) over the last ``LADDER_FIT`` tolerances is at least
#: ``LADDER_MIN_SLOPE`` (a fall of 10**0.5 = 3.2x per decade on average) ...
LADDER_FIT = 4
LADDER_MIN_SLOPE = 0.5
#: ... while every shorter lag's misfit stays at least this large (normalised units) at the tightest rtol.
LADDER_GAP = 0.1
#: Fewest tolerances the slope is fitted over.
LADDER_MIN_FIT = 3


def misfit_slope(rtols, misfits) -> float:
    """Least-squares slope of ``log10(misfit)`` against ``log10(rtol)`` (decades of misfit per decade of rtol).

    >>> round(misfit_slope([1e-9, 1e-10, 1e-11], [1e-3, 1e-4, 1e-5]), 12)
    1.0
    """
    r, m = real_array("rtols", rtols, shape=(None,)), real_array("misfits", misfits, shape=(None,))
    if r.shape != m.shape or len(r) < 2:
        raise ParameterError(f"misfit_slope needs two or more rtols with one entry of misfits each, got rtols of "
                             f"shape {r.shape} and misfits of shape {m.shape}")
    if not np.all(r > 0) or len(np.unique(r)) < 2:
        raise ParameterError(f"rtols must be positive and not all equal, got {r.tolist()}")
    if not np.all(m >= 0):
        raise ParameterError(f"misfits must be non-negative, got {m.tolist()}")
    return float(np.polyfit(np.log10(r), np.log10(np.maximum(m, 1e-300)), 1)[0])


def ladder_verdict(rtols, periods, residuals) -> tuple[str, int]:
    """Verdict of one case integrated at a ladder of tolerances, from its period tests and lag misfits.

    ``rtols`` (L,) loosest to tightest; ``periods`` (L,) the :func:`period_k`
    reading at each (k >= 1, 0 = irregular); ``residuals`` (L, k_max) the lag
    misfits (:func:`repeat_residuals`). Returns ``(kind, k)``:

    * ``("confirmed", k)``: the period test reads k >= 1 at the two tightest tolerances;
    * ``("limit", k)``: the test does not confirm a period, but over the last
      ``LADDER_FIT`` tolerances (at least ``LADDER_MIN_FIT``) the lag-k misfit
      falls with the tolerance, :func:`misfit_slope` >= ``LADDER_MIN_SLOPE``, as
      an integration error does, while every shorter lag keeps a misfit >=
      ``LADDER_GAP``: the samples converge to a period-k sequence as the
      integration becomes exact (k is the smallest such lag);
    * ``("irregular", 0)``: irregular at the two tightest tolerances and no lag converges;
    * ``("not converged", -1)``: anything else (the reading changes at the tight end).

    A "limit" verdict is an extrapolation: repeat the ladder with another
    realisation of the integration error (e.g. atol scaled by 1.001) and
    require the same verdict.

    >>> r = [1e-9, 1e-10, 1e-11, 1e-12]
    >>> ladder_verdict(r, [0] * 4, [[0.9, 5e-3], [0.9, 7e-4], [0.9, 1.4e-5], [0.9, 6.7e-6]])
    ('limit', 2)
    >>> ladder_verdict(r, [0] * 4, [[0.3, 0.3], [0.2, 0.3], [0.3, 0.2], [0.2, 0.3]])
    ('irregular', 0)
    >>> ladder_verdict(r, [0, 0, 1, 1], [[0.9, 1e-3], [0.9, 1e-3], [1e-6, 2e-4], [1e-7, 4e-5]])
    ('confirmed', 1)
    """
    rt = real_array("rtols", rtols, shape=(None,))
    if len(rt) < 2 or not np.all(rt > 0):
        raise ParameterError(f"rtols must be L >= 2 positive tolerances, got {rt.tolist()}")
    kk = real_array("periods", periods, shape=(len(rt),))
    if not np.all((kk >= 0) & (kk == np.round(kk))):
        raise ParameterError(f"periods must be period_k readings (integers >= 0), got {kk.tolist()}")
    ks = [int(k) for k in kk]
    R = real_array("residuals", residuals, shape=(len(rt), None))
    if R.shape[1] < 1 or not np.all(R >= 0):
        raise ParameterError(f"residuals must be non-negative lag misfits, one row per rtol, shape (L, k_max >= 1), "
                             f"got shape {R.shape}")
    if np.any(np.diff(rt) >= 0):
        raise ParameterError(f"rtols must go from loosest to tightest, got {rt.tolist()}")
    if ks[-1] >= 1 and ks[-2] == ks[-1]:
        return "confirmed", ks[-1]
    if len(rt) >= LADDER_MIN_FIT:
        last = slice(max(0, len(rt) - LADDER_FIT), len(rt))
        for k in range(1, R.shape[1] + 1):
            if misfit_slope(rt[last], R[last, k - 1]) >= LADDER_MIN_SLOPE and np.all(R[-1, :k - 1] >= LADDER_GAP):
                return "limit", k
    if ks[-1] == 0 and ks[-2] == 0:
        return "irregular", 0
    return "not converged", -1


def bifurcation_points(values, results, key=None):
    """Flatten a sweep into scatter-plot arrays ``(parameter (N,), sample (N,))``.

    ``results[i]`` is an array of Poincaré samples (k,) or a dict from which
    ``key`` selects one.

    >>> p, s = bifurcation_points([1.0, 2.0], [np.array([0.1]), np.array([0.2, 0.3])])
    >>> p.tolist(), s.tolist()
    ([1.0, 2.0, 2.0], [0.1, 0.2, 0.3])
    """
    v = real_array("values", values, shape=(None,))
    if isinstance(results, (str, bytes)) or not hasattr(results, "__len__") or len(results) != len(v):
        raise ParameterError(f"results must hold one result per entry of values ({len(v)}), got {results!r:.60}")
    ps, ss = [], []
    for i, (vi, r) in enumerate(zip(v, results)):
        if key is not None:
            if not hasattr(r, "keys") or key not in r:
                raise ParameterError(f"key = {key!r}: results[{i}] must be a mapping with that key, got {r!r:.60}")
            r = r[key]
        arr = np.ravel(real_array(f"results[{i}]" + (f"[{key!r}]" if key is not None else ""), r,
                                  allow_empty=True))
        ps.append(np.full(arr.shape, vi))
        ss.append(arr)
    return np.concatenate(ps), np.concatenate(ss)


# --------------------------------------------------------------------------- Lyapunov exponent
#: Batches of the batch-means uncertainty of :func:`largest_lyapunov`.
LYAPUNOV_BATCHES = 4


@dataclass
class LyapunovResult:
    """Largest Lyapunov exponent estimate (1/s) with its running history and uncertainty.

    ``uncertainty`` (1/s) is the batch-means standard error: the renormalisations
    are split into ``LYAPUNOV_BATCHES`` consecutive batches (two for fewer than
    twice that many renormalisations), and it is the standard deviation of the
    batch exponents over the square root of their number. With two batches it
    is half the difference of the exponents of the two halves (``halves``, in whole units),
    which has a single degree of freedom and can be far too small. Batches
    hold whole units of ``batch_unit`` renormalisations (e.g. the intervals of
    two drive periods, so that the stretch pattern of a period-1 or period-2
    orbit does not masquerade as scatter). NaN for fewer than 4 renormalisations.
    """

    exponent: float
    running: np.ndarray     # estimate after each renormalisation
    log_stretch: np.ndarray  # log(d_k / d0) per interval
    tau: float
    wall_s: float
    uncertainty: float = float("nan")
    halves: tuple = (float("nan"), float("nan"))


def largest_lyapunov(flow: Callable, y0, tau: float, n_renorm: int, t0: float = 0.0, d0: float = 1e-8,
                     n_transient: int = 0, indices=None, weights=None, direction=None,
                     project: Callable | None = None, seed: int = 0, batch_unit: int = 1) -> LyapunovResult:
    """Largest Lyapunov exponent by two-trajectory renormalisation (Benettin et al. 1976).

    A reference trajectory and a neighbour at distance ``d0`` are advanced by
    ``flow(y, t0, t1)`` over intervals ``tau``; after each interval the
    distance ``d_k`` (weighted Euclidean norm over ``indices``) is measured, the
    neighbour is pulled back to distance ``d0`` along the current separation,
    and ``lambda = sum log(d_k / d0) / (n tau)``. Components outside
    ``indices`` (e.g. bookkeeping or impact memory) are copied from the
    reference. ``direction``: initial separation (default: seeded random unit
    vector). ``project(y, t)``: map onto a constraint manifold; when given,
    both trajectories are projected before every distance measurement and the
    restarted neighbour is projected too, so that separation is measured
    *within* the manifold (stabilisation modes that decay off it do not enter).
    ``n_transient`` intervals are discarded.

    >>> flow = lambda y, a, b: y * np.exp(-0.5 * (b - a))   # dy/dt = -0.5 y
    >>> r = largest_lyapunov(flow, np.array([1.0]), 1.0, 10)
    >>> round(r.exponent, 6), round(r.uncertainty, 6)
    (-0.5, 0.0)
    """
    if not callable(flow):
        raise ParameterError(f"flow must be a callable flow(y, t0, t1) -> y(t1), got {flow!r:.60}")
    if project is not None and not callable(project):
        raise ParameterError(f"project must be a callable project(y, t) -> y or None, got {project!r:.60}")
    y = real_array("y0", y0, shape=(None,)).copy()
    tau = real("tau", tau, low=0.0, open_low=True, unit="s")
    n_renorm, n_transient = count("n_renorm", n_renorm), count("n_transient", n_transient, low=0)
    t0, d0 = real("t0", t0, unit="s"), real("d0", d0, low=0.0, open_low=True)
    seed, batch_unit = count("seed", seed, low=0), count("batch_unit", batch_unit)
    if indices is None:
        idx = np.arange(y.size)
    else:
        ii = real_array("indices", indices, shape=(None,))
        if not np.all((ii == np.round(ii)) & (ii >= 0) & (ii < y.size)) or len(np.unique(ii)) != ii.size:
            raise ParameterError(f"indices must be distinct integers in [0, {y.size - 1}] (entries of y0), got "
                                 f"{ii.tolist()}")
        idx = ii.astype(int)
    w = np.ones(idx.size) if weights is None else real_array("weights", weights, shape=(idx.size,))
    if not np.all(w > 0):
        raise ParameterError(f"weights must be positive, one per index, got {w.tolist()}")
    wall = time.perf_counter()
    t = float(t0)
    for _ in range(n_transient):
        y = flow(y, t, t + tau)
        t += tau
    if direction is None:
        v = np.random.default_rng(seed).normal(size=idx.size)
    else:
        v = real_array("direction", direction, shape=(idx.size,))
        if not np.any(v != 0):
            raise ParameterError("direction must not be the zero vector (the initial separation)")
    if project is not None:
        y = project(y, t)

    def restart(ref, sep, t_now):
        """Neighbour at weighted distance d0 from ``ref`` along ``sep`` (on the manifold if projecting)."""
        yp = ref.copy()
        yp[idx] = ref[idx] + sep * (d0 / np.linalg.norm(w * sep))
        if project is not None:
            yp = project(yp, t_now)
            dist = np.linalg.norm(w * (yp[idx] - ref[idx]))
            if not dist > 0:
                raise ParameterError("the projected perturbation vanished; give another direction")
            yp[idx] = ref[idx] + (yp[idx] - ref[idx]) * (d0 / dist)
        return yp

    yp = restart(y, v, t)
    logs = np.empty(n_renorm)
    for k in range(n_renorm):
        y1 = flow(y, t, t + tau)
        yp1 = flow(yp, t, t + tau)
        if project is not None:
            y1 = project(y1, t + tau)
            yp1 = project(yp1, t + tau)
        diff = yp1[idx] - y1[idx]
        d = float(np.linalg.norm(w * diff))
        if not (d > 0 and math.isfinite(d)):
            raise ParameterError(f"trajectories coincided or diverged (distance {d!r}) at t = {t + tau:g}; "
                                 "change d0 or tau")
        logs[k] = math.log(d / d0)
        y = y1
        t += tau
        yp = restart(y, diff, t)
    running = np.cumsum(logs) / (tau * np.arange(1, n_renorm + 1))
    if n_renorm >= 4:
        unit = max(1, int(batch_unit))
        n_units = n_renorm // unit
        if n_units >= 2:
            units = logs[:n_units * unit].reshape(n_units, unit)
        else:  # fewer than two units: fall back to single intervals
            units, n_units = logs[:, None], n_renorm
        h = n_units // 2
        halves = (float(np.mean(units[:h]) / tau), float(np.mean(units[h:]) / tau))
        nb = min(LYAPUNOV_BATCHES, n_units) if n_units >= 2 * LYAPUNOV_BATCHES else 2
        means = [float(np.mean(part)) / tau for part in np.array_split(units, nb)]
        unc = float(np.std(means, ddof=1) / math.sqrt(nb))
    else:
        halves, unc = (float("nan"), float("nan")), float("nan")
    return LyapunovResult(float(running[-1]), running, logs, float(tau), time.perf_counter() - wall, unc, halves)


# --------------------------------------------------------------------------- reference systems
def rk4_flow(fun: Callable, h: float) -> Callable:
    """Fixed-step RK4 flow ``flow(y, t0, t1)`` of ``dy/dt = fun(t, y)`` (step ``h``, last step shortened).

    >>> f = rk4_flow(lambda t, y: -y, 1e-2)
    >>> bool(abs(f(np.array([1.0]), 0.0, 1.0)[0] - math.exp(-1)) < 1e-9)
    True
    """
    if not callable(fun):
        raise ParameterError(f"fun must be a callable fun(t, y) -> dy/dt, got {fun!r:.60}")
    h = real("h", h, low=0.0, open_low=True, unit="s")

    def flow(y, t0, t1):
        y = np.array(y, dtype=float)
        n = max(1, int(math.ceil((t1 - t0) / h - 1e-9)))
        dt = (t1 - t0) / n
        t = t0
        for _ in range(n):
            k1 = fun(t, y)
            k2 = fun(t + dt / 2, y + dt / 2 * k1)
            k3 = fun(t + dt / 2, y + dt / 2 * k2)
            k4 = fun(t + dt, y + dt * k3)
            y = y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
            t += dt
        return y

    return flow


def lorenz(t, y, sigma: float = 10.0, rho: float = 28.0, beta: float = 8.0 / 3.0):
    """Lorenz right-hand side for y (3,).

    >>> lorenz(0.0, np.array([1.0, 1.0, 1.0])).tolist()
    [0.0, 26.0, -1.6666666666666665]
    """
    x, yy, z = y
    return np.array([sigma * (yy - x), x * (rho - z) - yy, x * yy - beta * z])


def damped_oscillator(omega: float, zeta: float):
    """Right-hand side of ``x'' + 2 zeta omega x' + omega^2 x = 0``; its Lyapunov exponents are
    ``-zeta omega`` (double, underdamped), the known stable reference case.

    >>> damped_oscillator(2.0, 0.1)(0.0, np.array([1.0, 0.0])).tolist()
    [0.0, -4.0]
    """
    omega = real("omega", omega, low=0.0, open_low=True, unit="rad/s")
    zeta = real("zeta", zeta, low=0.0)

    def f(t, y):
        return np.array([y[1], -2.0 * zeta * omega * y[1] - omega * omega * y[0]])

    return f


# --------------------------------------------------------------------------- spectrum
#: Relative spread of the time steps that :func:`spectrum` still counts as uniform sampling.
UNIFORM_RTOL = 1e-6


def spectrum(t, x, window: str = "hann"):
    """One-sided amplitude spectrum of a uniformly sampled signal ``x`` (T,) at times ``t`` (T,).

    Returns ``(f (Hz), amplitude)``; with the Hann window the amplitude of a
    sinusoid that falls on a frequency bin is its true amplitude. The mean is removed.

    >>> t = np.arange(1000) / 1000.0
    >>> f, a = spectrum(t, 0.3 * np.sin(2 * np.pi * 50 * t))
    >>> float(f[np.argmax(a)]), round(float(a.max()), 6)
    (50.0, 0.3)
    """
    t = _time_grid("t", t, n_min=4)
    x = real_array("x", x, shape=t.shape)
    dt = np.diff(t)
    if not np.allclose(dt, dt[0], rtol=UNIFORM_RTOL, atol=0):
        raise ParameterError(f"spectrum needs uniformly sampled t (steps equal within {UNIFORM_RTOL:g}), got steps "
                             f"from {dt.min():g} to {dt.max():g} s")
    if not isinstance(window, str) or window not in ("hann", "none", "rect"):
        raise ParameterError(f"window must be 'hann' or 'none' (or 'rect'), got {window!r}")
    wdw = np.hanning(t.size + 1)[:-1] if window == "hann" else np.ones(t.size)  # periodic Hann
    X = np.fft.rfft((x - x.mean()) * wdw)
    amp = 2.0 * np.abs(X) / wdw.sum()
    amp[0] /= 2.0
    return np.fft.rfftfreq(t.size, dt[0]), amp


__all__ = [
    "LORENZ_LYAPUNOV", "poincare_times", "poincare_section", "distinct_points", "bifurcation_points",
    "PERIOD_K_MAX", "repeat_residuals", "period_k", "period_name", "LADDER_FIT", "LADDER_MIN_SLOPE",
    "LADDER_GAP", "LADDER_MIN_FIT", "misfit_slope", "ladder_verdict",
    "LYAPUNOV_BATCHES", "LyapunovResult", "largest_lyapunov", "rk4_flow", "lorenz", "damped_oscillator",
    "UNIFORM_RTOL", "spectrum",
]

# Periodic orbits by shooting and their continuation live in robolib.core.periodic / .continuation, sweeps in
# robolib.core.parallel (module size); they are part of this toolkit's public names.
from robolib.core import continuation, parallel, periodic  # noqa: E402
from robolib.core.continuation import *  # noqa: E402,F401,F403
from robolib.core.parallel import *  # noqa: E402,F401,F403
from robolib.core.periodic import *  # noqa: E402,F401,F403

__all__ += [*periodic.__all__, *continuation.__all__, *parallel.__all__]
