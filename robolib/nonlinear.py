"""Nonlinear-dynamics toolkit: Poincaré sampling, parameter sweeps, Lyapunov exponents, spectra.

The functions are generic: they take a *flow* ``flow(y, t0, t1) -> y(t1)``
(any integrator) or a picklable function of one parameter value, so they serve
the gear-shift manipulator (:mod:`robolib.gearshift`) and reference systems
such as the Lorenz equations alike.

Parallel sweeps and running them on a cluster
---------------------------------------------
:func:`sweep` runs independent simulations through :class:`joblib.Parallel`.
On one machine it uses the ``loky`` process backend (``n_jobs`` processes).
The same code runs on a cluster through joblib's Dask backend: start a Dask
scheduler and workers that can import ``robolib`` (same environment), then::

    from dask.distributed import Client          # pip install dask distributed
    client = Client("tcp://scheduler-host:8786")  # or LocalCluster(), SLURMCluster(...) from dask-jobqueue
    import joblib
    with joblib.parallel_config(backend="dask"):
        values, results = sweep(run_one, frequencies, n_jobs=-1)

or pass ``backend="dask"`` to :func:`sweep`. Nothing else changes: the task
function and its arguments must be picklable (module-level functions,
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
from typing import Callable, Sequence

import numpy as np

from .errors import ParameterError

#: Published largest Lyapunov exponent of the Lorenz system (sigma=10, rho=28, beta=8/3),
#: Sprott (2003), "Chaos and Time-Series Analysis", Table 4.1 / Appendix A: 0.9056.
LORENZ_LYAPUNOV = 0.9056


# --------------------------------------------------------------------------- Poincaré sampling
def poincare_times(period: float, n_transient: int, n_samples: int, t0: float = 0.0, phase: float = 0.0) -> np.ndarray:
    """Sampling instants ``t0 + (n_transient + k + phase) * period`` for ``k = 0..n_samples-1`` (s).

    >>> poincare_times(0.5, 2, 3).tolist()
    [1.0, 1.5, 2.0]
    """
    if not period > 0:
        raise ParameterError(f"period must be positive, got {period!r} (s)")
    if n_transient < 0 or n_samples < 1:
        raise ParameterError(f"need n_transient >= 0 and n_samples >= 1, got {n_transient}, {n_samples}")
    return t0 + (n_transient + np.arange(n_samples) + phase) * period


def poincare_section(t, x, period: float, t_transient: float = 0.0, phase: float = 0.0) -> np.ndarray:
    """Stroboscopic Poincaré samples of a sampled trajectory ``x`` (T, d) at ``t_transient + (k + phase) period``.

    Samples are linearly interpolated from the time grid ``t`` (T,); only
    instants inside ``[t_transient, t[-1]]`` are returned, (k, d).
    """
    t = np.asarray(t, float)
    x = np.asarray(x, float)
    if x.ndim == 1:
        x = x[:, None]
    if x.shape[0] != t.shape[0]:
        raise ParameterError(f"x must have one row per time sample, got {x.shape[0]} rows for {t.shape[0]} times")
    if not period > 0:
        raise ParameterError(f"period must be positive, got {period!r} (s)")
    n = int(np.floor((t[-1] - t_transient) / period - phase + 1e-9)) + 1
    ts = t_transient + (np.arange(max(n, 0)) + phase) * period
    ts = ts[(ts >= t[0]) & (ts <= t[-1] + 1e-12)]
    return np.stack([np.interp(ts, t, x[:, j]) for j in range(x.shape[1])], axis=-1)


def distinct_points(samples, tol: float) -> int:
    """Number of clusters of Poincaré samples (k, d) farther apart than ``tol`` (period-n detection).

    >>> distinct_points(np.array([[0.0], [1.0], [0.0], [1.0 + 1e-9]]), 1e-6)
    2
    """
    s = np.asarray(samples, float)
    if s.ndim == 1:
        s = s[:, None]
    reps: list[np.ndarray] = []
    for p in s:
        if not any(np.max(np.abs(p - r)) <= tol for r in reps):
            reps.append(p)
    return len(reps)


# --------------------------------------------------------------------------- parallel sweeps
def sweep(fun: Callable, values: Sequence, n_jobs: int = 1, backend: str | None = None, verbose: int = 0,
          keyword: str | None = None):
    """Evaluate ``fun(v)`` (or ``fun(**{keyword: v})``) for every ``v`` in ``values`` in parallel.

    Returns ``(values, results)``. ``n_jobs`` processes via joblib (``1`` =
    serial, ``-1`` = all cores); ``backend`` a joblib backend name (``"loky"``
    default, ``"dask"`` on a cluster, see the module docstring). ``fun`` must
    be picklable, e.g. ``functools.partial(gearshift.poincare_run, params,
    frequency=6.0)`` swept with ``keyword="clearance"``.

    >>> sweep(abs, [-1, 2, -3], n_jobs=1)[1]
    [1, 2, 3]
    >>> sweep(round, [1.234, 5.678], keyword="number")[1]
    [1, 6]
    """
    import joblib

    values = list(values)
    call = (lambda v: ((v,), {})) if keyword is None else (lambda v: ((), {keyword: v}))
    if n_jobs == 1 and backend is None:
        return values, [fun(*call(v)[0], **call(v)[1]) for v in values]
    with joblib.parallel_config(backend=backend or "loky", n_jobs=n_jobs):
        results = joblib.Parallel(verbose=verbose)(joblib.delayed(fun)(*call(v)[0], **call(v)[1]) for v in values)
    return values, list(results)


def bifurcation_points(values, results, key=None):
    """Flatten a sweep into scatter-plot arrays ``(parameter (N,), sample (N,))``.

    ``results[i]`` is an array of Poincaré samples (k,) or a dict from which
    ``key`` selects one.

    >>> p, s = bifurcation_points([1.0, 2.0], [np.array([0.1]), np.array([0.2, 0.3])])
    >>> p.tolist(), s.tolist()
    ([1.0, 2.0, 2.0], [0.1, 0.2, 0.3])
    """
    ps, ss = [], []
    for v, r in zip(values, results):
        arr = np.ravel(np.asarray(r[key] if key is not None else r, float))
        ps.append(np.full(arr.shape, float(v)))
        ss.append(arr)
    return np.concatenate(ps), np.concatenate(ss)


# --------------------------------------------------------------------------- Lyapunov exponent
@dataclass
class LyapunovResult:
    """Largest Lyapunov exponent estimate (1/s) with its running history."""

    exponent: float
    running: np.ndarray     # estimate after each renormalisation
    log_stretch: np.ndarray  # log(d_k / d0) per interval
    tau: float
    wall_s: float


def largest_lyapunov(flow: Callable, y0, tau: float, n_renorm: int, t0: float = 0.0, d0: float = 1e-8,
                     n_transient: int = 0, indices=None, weights=None, direction=None,
                     project: Callable | None = None, seed: int = 0) -> LyapunovResult:
    """Largest Lyapunov exponent by two-trajectory renormalisation (Benettin et al. 1976).

    A reference trajectory and a neighbour at distance ``d0`` are advanced by
    ``flow(y, t0, t1)`` over intervals ``tau``; after each interval the
    distance ``d_k`` (weighted Euclidean norm over ``indices``) is measured, the
    neighbour is pulled back to distance ``d0`` along the current separation,
    and ``lambda = sum log(d_k / d0) / (n tau)``. Components outside
    ``indices`` (e.g. bookkeeping or impact memory) are copied from the
    reference. ``direction``: initial separation (default: seeded random unit
    vector); ``project(y, t)``: optional map back onto a constraint manifold
    applied to the initial neighbour; ``n_transient`` intervals are discarded.

    >>> flow = lambda y, a, b: y * np.exp(-0.5 * (b - a))   # dy/dt = -0.5 y
    >>> round(largest_lyapunov(flow, np.array([1.0]), 1.0, 10).exponent, 6)
    -0.5
    """
    y = np.array(y0, dtype=float)
    if not tau > 0 or n_renorm < 1 or not d0 > 0:
        raise ParameterError(f"need tau > 0, n_renorm >= 1, d0 > 0; got {tau!r}, {n_renorm!r}, {d0!r}")
    idx = np.arange(y.size) if indices is None else np.asarray(indices, int)
    w = np.ones(idx.size) if weights is None else np.asarray(weights, float)
    if w.shape != idx.shape:
        raise ParameterError(f"weights must have one entry per index, got {w.shape} for {idx.shape}")
    wall = time.perf_counter()
    t = float(t0)
    for _ in range(n_transient):
        y = flow(y, t, t + tau)
        t += tau
    if direction is None:
        v = np.random.default_rng(seed).normal(size=idx.size)
    else:
        v = np.asarray(direction, float)
        if v.shape != idx.shape:
            raise ParameterError(f"direction must have shape {idx.shape}, got {v.shape}")
    v = v / np.linalg.norm(w * v)
    yp = y.copy()
    yp[idx] += d0 * v
    if project is not None:
        yp = project(yp, t)
        dist = np.linalg.norm(w * (yp[idx] - y[idx]))
        if dist <= 0:
            raise ParameterError("the projected initial perturbation vanished; give another direction")
        yp[idx] = y[idx] + (yp[idx] - y[idx]) * (d0 / dist)
    logs = np.empty(n_renorm)
    for k in range(n_renorm):
        y1 = flow(y, t, t + tau)
        yp1 = flow(yp, t, t + tau)
        diff = yp1[idx] - y1[idx]
        d = float(np.linalg.norm(w * diff))
        if not (d > 0 and math.isfinite(d)):
            raise ParameterError(f"trajectories coincided or diverged (distance {d!r}) at t = {t + tau:g}; "
                                 "change d0 or tau")
        logs[k] = math.log(d / d0)
        yp = y1.copy()
        yp[idx] = y1[idx] + diff * (d0 / d)
        y = y1
        t += tau
    running = np.cumsum(logs) / (tau * np.arange(1, n_renorm + 1))
    return LyapunovResult(float(running[-1]), running, logs, float(tau), time.perf_counter() - wall)


# --------------------------------------------------------------------------- reference systems
def rk4_flow(fun: Callable, h: float) -> Callable:
    """Fixed-step RK4 flow ``flow(y, t0, t1)`` of ``dy/dt = fun(t, y)`` (step ``h``, last step shortened).

    >>> f = rk4_flow(lambda t, y: -y, 1e-2)
    >>> bool(abs(f(np.array([1.0]), 0.0, 1.0)[0] - math.exp(-1)) < 1e-9)
    True
    """
    if not h > 0:
        raise ParameterError(f"step h must be positive, got {h!r}")

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
    def f(t, y):
        return np.array([y[1], -2.0 * zeta * omega * y[1] - omega * omega * y[0]])

    return f


# --------------------------------------------------------------------------- spectrum
def spectrum(t, x, window: str = "hann"):
    """One-sided amplitude spectrum of a uniformly sampled signal ``x`` (T,) at times ``t`` (T,).

    Returns ``(f (Hz), amplitude)``; with the Hann window the amplitude of a
    sinusoid that falls on a frequency bin is its true amplitude. The mean is removed.

    >>> t = np.arange(1000) / 1000.0
    >>> f, a = spectrum(t, 0.3 * np.sin(2 * np.pi * 50 * t))
    >>> float(f[np.argmax(a)]), round(float(a.max()), 6)
    (50.0, 0.3)
    """
    t = np.asarray(t, float)
    x = np.asarray(x, float)
    if t.ndim != 1 or x.shape != t.shape or t.size < 4:
        raise ParameterError(f"t and x must be 1-D of equal length >= 4, got {t.shape} and {x.shape}")
    dt = np.diff(t)
    if not np.allclose(dt, dt[0], rtol=1e-6, atol=0):
        raise ParameterError("spectrum needs uniformly sampled t")
    if window == "hann":
        wdw = np.hanning(t.size + 1)[:-1]  # periodic Hann
    elif window in ("none", "rect"):
        wdw = np.ones(t.size)
    else:
        raise ParameterError(f"window must be 'hann' or 'none', got {window!r}")
    X = np.fft.rfft((x - x.mean()) * wdw)
    amp = 2.0 * np.abs(X) / wdw.sum()
    amp[0] /= 2.0
    return np.fft.rfftfreq(t.size, dt[0]), amp


__all__ = [
    "LORENZ_LYAPUNOV", "poincare_times", "poincare_section", "distinct_points", "sweep", "bifurcation_points",
    "LyapunovResult", "largest_lyapunov", "rk4_flow", "lorenz", "damped_oscillator", "spectrum",
]
