"""Planar multibody integration: Dormand-Prince 5(4) with dense output, the compiled stepping loop, :func:`simulate` of the Baumgarte-stabilised DAE, projection onto the constraint manifold."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

import numpy as np

from robolib.core import _dopri, _kernels
from robolib.core.errors import ConvergenceError, ParameterError, SingularityError
from robolib.core.multibody import _checks as chk
from robolib.core.multibody.mechanism import (  # noqa: F401
    BAUMGARTE_ALPHA,
    BAUMGARTE_BETA,
    Mechanism,
    _numba,
    check_mechanism,
    contact_arrays,
)
from robolib.core.multibody.solvers import assemble  # noqa: F401


# --------------------------------------------------------------------------- integrator
@dataclass
class IntegrationResult:
    """Output of :func:`dopri5`: samples ``t`` (k,), ``y`` (k, d) and counters."""

    t: np.ndarray
    y: np.ndarray
    n_steps: int
    n_rejected: int
    n_rhs: int
    t_final: float
    y_final: np.ndarray
    stats: dict = field(default_factory=dict)


def dense_output(t0, y0, K, h, t):
    """Dormand--Prince 4th-order dense output of a step ``[t0, t0 + h]`` with stages ``K`` (7, d) at ``t``.

    ``t0``, ``h > 0`` (s), ``y0`` (d,), ``K`` (7, d) arrays, ``t`` a time in the step (s): an internal helper of
    :func:`dopri5`'s step hook, whose arguments it trusts.

    >>> K = np.ones((7, 1)); round(float(dense_output(0.0, np.zeros(1), K, 1.0, 1.0)[0]), 12)  # y' = 1: y(1) = 1
    1.0
    """
    x = (t - t0) / h
    Q = K.T @ _dopri.P_DENSE
    return y0 + h * (Q @ np.array([x, x * x, x ** 3, x ** 4]))


def dopri5(fun, t0: float, y0, t_end: float, rtol: float = 1e-6, atol=1e-9, h0: float | None = None,
           t_eval=None, max_steps: int = 10_000_000, h_max: float = np.inf, step_hook=None) -> IntegrationResult:
    """Adaptive Dormand--Prince 5(4) integration of ``dy/dt = fun(t, y)`` from t0 to t_end (reference loop).

    ``t_eval``: sample times (the method's 4th-order dense output,
    :func:`dense_output`), default = every accepted step.
    ``step_hook(t0, y0, f0, t1, y1, f1, dense)`` is called for each candidate
    accepted step (``dense(t)`` evaluates the step's dense output) and returns
    ``True`` to have the step redone (after it changed the state the
    right-hand side depends on, e.g. an impact's onset speed). Raises
    :class:`robolib.ConvergenceError` if the step size collapses. The compiled
    twin of this loop is :func:`robolib.core._dopri.integrate_py` (same tableau,
    error norm and step-size rule).

    Arguments are checked before the first step: ``fun`` callable, ``t0`` and ``t_end >= t0`` (s), ``y0`` (d,)
    finite, ``rtol > 0``, ``atol > 0`` (a number or (d,)), ``h0`` None or > 0, ``t_eval`` None or
    non-decreasing times in ``[t0, t_end]``, ``max_steps >= 1``, ``h_max > 0`` (inf allowed), ``step_hook``
    None or callable; ``fun(t0, y0)`` must return d finite numbers.

    >>> r = dopri5(lambda t, y: -y, 0.0, np.array([1.0]), 1.0, rtol=1e-10, atol=1e-12, t_eval=[1.0])
    >>> bool(abs(r.y[0, 0] - np.exp(-1.0)) < 1e-8)
    True
    """
    if not callable(fun):
        raise ParameterError(f"fun must be a callable (t, y) -> dy/dt, got {fun!r:.60}")
    t = chk.real("t0", t0, unit="s")
    t_end = chk.time_span("t_end", t, t_end)
    y = np.array(chk.real_array("y0", y0, shape=(None,)), dtype=float)
    rtol, atol = chk.tolerances(rtol, atol, len(y))
    h0 = None if h0 is None else chk.real("h0", h0, low=0.0, open_low=True, unit="s")
    t_eval = chk.sample_times("t_eval", t_eval, t, t_end)
    max_steps = chk.count("max_steps", max_steps)
    h_max = chk.step_limit("h_max", h_max)
    chk.optional_callable("step_hook", step_hook)
    f = np.asarray(fun(t, y), dtype=float)
    if f.shape != y.shape or not np.all(np.isfinite(f)):
        raise ParameterError(f"fun(t0, y0) must return {len(y)} finite numbers (the shape of y0), got "
                             f"{f!r:.80}")
    n_rhs = 1
    h = initial_step(y, f, rtol, atol, t_end - t, h_max) if h0 is None else h0
    if t_eval is not None:
        out_y = np.empty((len(t_eval), len(y)))
        k_eval = 0
        while k_eval < len(t_eval) and t_eval[k_eval] <= t:
            out_y[k_eval] = y
            k_eval += 1
    else:
        ts, ys = [t], [y.copy()]
    K = np.empty((7, len(y)))
    n_steps = n_rej = 0
    h_min_seen = np.inf
    while t < t_end:
        if n_steps >= max_steps:
            raise ConvergenceError(f"dopri5: more than max_steps = {max_steps} steps before t_end = {t_end}")
        h = min(h, t_end - t, h_max)
        if t + h >= t_end - 1e-14 * max(1.0, abs(t_end)):
            h = t_end - t
        K[0] = f
        for i in range(1, 7):
            yi = y + h * (np.dot(_dopri.A_MAT[i, :i], K[:i]))
            K[i] = fun(t + _dopri.C_NODES[i] * h, yi)
        y_new = yi  # stage 7 argument is the 5th-order solution (FSAL)
        err_vec = h * np.dot(_dopri.E_ERR, K)
        sc = atol + rtol * np.maximum(np.abs(y), np.abs(y_new))
        err = math.sqrt(float(np.mean((err_vec / sc) ** 2)))
        n_rhs += 6
        if not math.isfinite(err):
            err = 1e10
        if err <= 1.0:
            t_new = t + h
            f_new = K[6].copy()
            Kc = K.copy()
            dense = (lambda tt, t=t, y=y, Kc=Kc, h=h: dense_output(t, y, Kc, h, tt))
            if step_hook is not None and step_hook(t, y, f, t_new, y_new, f_new, dense):
                n_rej += 1
                continue  # redo the same step with the updated state
            if t_eval is not None:
                while k_eval < len(t_eval) and t_eval[k_eval] <= t_new:
                    out_y[k_eval] = dense(t_eval[k_eval])
                    k_eval += 1
            t, y, f = t_new, y_new, f_new
            n_steps += 1
            h_min_seen = min(h_min_seen, h)
            if t_eval is None:
                ts.append(t)
                ys.append(y.copy())
            fac = 5.0 if err == 0.0 else min(5.0, max(0.2, 0.9 * err ** -0.2))
            h = h * fac
        else:
            n_rej += 1
            h = h * max(0.2, 0.9 * err ** -0.2)
            if h < 1e-14 * max(1.0, abs(t)):
                raise ConvergenceError(f"dopri5: step size collapsed to {h:.3g} s at t = {t:.9g} s")
    if t_eval is None:
        tt, yy = np.array(ts), np.array(ys)
    else:
        tt, yy = t_eval, out_y[:k_eval] if k_eval < len(t_eval) else out_y
    return IntegrationResult(tt, yy, n_steps, n_rej, n_rhs, t, y, {"h_min": h_min_seen})


def initial_step(y, f, rtol, atol, span, h_max=np.inf) -> float:
    """Starting step (s) of the adaptive loop: 1 % of ``|y| / |f|`` in the error norm (1e-6 s if tiny).

    ``y``, ``f`` (d,) the state and its derivative, ``rtol > 0``, ``atol > 0`` (number or (d,)),
    ``span`` the remaining time (s), ``h_max > 0`` (inf allowed): an internal helper of the integration loops,
    whose arguments they have checked.

    >>> round(initial_step(np.array([1.0]), np.array([-1.0]), 1e-6, 1e-9, 10.0), 12)
    0.01
    """
    sc = atol + rtol * np.abs(y)
    d0, d1 = np.sqrt(np.mean((y / sc) ** 2)), np.sqrt(np.mean((f / sc) ** 2))
    h = 1e-6 if d0 < 1e-5 or d1 < 1e-5 else 0.01 * d0 / d1
    return float(min(h, abs(span), h_max))


#: Episode-buffer and step-output chunk sizes of :func:`integrate_compiled` (it resumes when one fills).
EPISODE_CHUNK = 4096
OUTPUT_CHUNK = 65536


def integrate_compiled(mech: "Mechanism", t0: float, y0, t_end: float, alpha: float, beta: float, rtol: float,
                       atol, t_eval=None, h_max: float = np.inf, contacts=None, ddelta0=None, cstate=None,
                       max_steps: int = 10_000_000):
    """The compiled adaptive step loop (:func:`robolib.core._kernels.integrate_py`) for ``mech``.

    Same integrator as :func:`dopri5` with the right-hand side of
    :meth:`Mechanism.rhs` plus the clearance ``contacts`` (table (k, 15),
    onset speeds ``ddelta0`` (k,) updated in place, contact states ``cstate``
    (k, 4) updated in place, see the kernel). Returns ``(IntegrationResult,
    episodes (E, 4))``, episodes as rows (joint, t_on, t_off, ddelta0). Raises
    :class:`robolib.SingularityError` / :class:`robolib.ConvergenceError`;
    a driver that leaves its reachable range raises that driver's own error.
    """
    mech = check_mechanism("mech", mech)
    t0 = chk.real("t0", t0, unit="s")
    t_end = chk.time_span("t_end", t0, t_end)
    y = np.array(chk.state("y0", y0, 2 * mech.n + 2), dtype=float)
    alpha, beta = chk.nonnegative_gain("alpha", alpha), chk.nonnegative_gain("beta", beta)
    rtol, atol = chk.tolerances(rtol, atol, len(y))
    t_eval = chk.sample_times("t_eval", t_eval, t0, t_end)
    h_max = chk.step_limit("h_max", h_max)
    max_steps = chk.count("max_steps", max_steps)
    C, dd0 = contact_arrays(contacts, ddelta0)
    if cstate is None:
        cst = np.full((len(C), 4), np.nan)
    elif type(cstate) is np.ndarray and cstate.dtype == np.float64 and cstate.shape == (len(C), 4) \
            and cstate.flags.c_contiguous and not np.any(np.isinf(cstate)):
        cst = cstate
    else:
        raise ParameterError(f"cstate must be None or a float64 array of shape ({len(C)}, 4) (NaN = no contact, "
                             f"updated in place), got {cstate!r:.60}")
    _, integ, drive = _kernels.get()
    Mi, Mf, dtab = mech.kernel_model()
    if dtab is None:
        raise ParameterError(f"mechanism {mech.name!r}: a driver motion has no compiled form (kernel_row)")
    W = mech.kernel_work()
    d = len(y)
    atol = np.ascontiguousarray(atol, dtype=float)
    rhs_k = _kernels.rhs_c
    f = np.empty(d)
    fv = np.empty((3, len(dtab)))
    drive(float(t0), dtab, fv)
    if rhs_k(float(t0), y, f, fv, Mi, Mf, C, dd0, float(alpha), float(beta), W) != _kernels.OK:
        raise SingularityError(f"mechanism {mech.name!r}: augmented matrix is singular at t = {t0:.6g} s")
    if not np.all(np.isfinite(f)):
        _driver_check(mech, float(t0))
    st = np.array([float(t0), initial_step(y, f, rtol, atol, t_end - t0, h_max), np.inf, 0, 0, 1, 0, 0, np.nan, 0.0])
    te = None if t_eval is None else np.ascontiguousarray(t_eval, dtype=float)
    status, tt, yy, eps = run_chunked(
        lambda te, every, ot, oy, ep: integ(st, y, f, float(t_end), float(rtol), atol, float(h_max), int(max_steps),
                                            te, every, ot, oy, Mi, Mf, dtab, C, dd0, float(alpha), float(beta), W,
                                            cst, ep), st, y, t0, te)
    if status == _kernels.SINGULAR:
        _driver_check(mech, st[0] + st[1])
        raise SingularityError(f"mechanism {mech.name!r}: augmented matrix is singular near t = {st[0]:.6g} s")
    if status == _kernels.STEP_COLLAPSE:
        _driver_check(mech, st[0])
        raise ConvergenceError(f"step size collapsed to {st[1]:.3g} s at t = {st[0]:.9g} s")
    if status == _kernels.MAX_STEPS:
        raise ConvergenceError(f"more than max_steps = {max_steps} steps before t_end = {t_end}")
    res = IntegrationResult(tt, yy, int(st[3]), int(st[4]), int(st[5]), float(st[0]), y, {"h_min": float(st[2])})
    return res, eps


def run_chunked(step, st, y, t0, t_eval):
    """Drive a chunked DOPRI kernel (:func:`robolib.core._dopri.integrate_py`) to the end of its span.

    ``step(t_eval, every, out_t, out_y, episodes)`` calls the kernel once with the state vector ``st`` and
    ``y`` bound; it is called again while a buffer fills (EPISODES_FULL, OUTPUT_FULL). Every accepted step is
    kept when ``t_eval`` is None, else the dense output at ``t_eval`` (contiguous float). Returns the last
    status, the times, the states and the episode rows (m, 4).
    """
    every, d = t_eval is None, len(y)
    if every:
        t_eval = np.zeros(0)
        chunks_t, chunks_y = [np.array([t0])], [y.copy()[None, :]]
    else:
        out = np.empty((len(t_eval), d))
        k0 = int(np.searchsorted(t_eval, t0, "right"))
        out[:k0] = y
        st[6] = k0
    eps_all = []
    while True:
        ep = np.full((EPISODE_CHUNK, 4), np.nan)
        st[7] = 0
        if every:
            ot, oy = np.empty(OUTPUT_CHUNK), np.empty((OUTPUT_CHUNK, d))
            st[6] = 0
        else:
            ot, oy = np.zeros(0), out
        status = step(t_eval, every, ot, oy, ep)
        eps_all.append(ep[:int(st[7])].copy())
        if every:
            chunks_t.append(ot[:int(st[6])].copy())
            chunks_y.append(oy[:int(st[6])].copy())
        if status not in (_dopri.EPISODES_FULL, _dopri.OUTPUT_FULL):
            break
    if every:
        return status, np.concatenate(chunks_t), np.concatenate(chunks_y), np.concatenate(eps_all)
    return status, t_eval, out[:int(st[6])], np.concatenate(eps_all)


def _driver_check(mech, t):
    """Evaluate every driver motion at ``t`` in Python, so an unreachable stroke raises its own error."""
    for mo in mech._dmotion:
        vals = mo(t)
        if not all(math.isfinite(v) for v in vals):
            raise ConvergenceError(f"mechanism {mech.name!r}: a driver motion is not finite at t = {t:.6g} s")


def resolve_backend(backend: str) -> str:
    """``"numpy"`` or ``"numba"`` for a requested backend.

    ``"auto"`` means numba when it is installed, unless the environment
    variable ``ROBOLIB_BACKEND=numpy`` forces the reference path.

    >>> resolve_backend("numpy")
    'numpy'
    """
    if not isinstance(backend, str) or backend not in ("auto", "numpy", "numba"):
        raise ParameterError(f"backend must be 'auto', 'numpy' or 'numba', got {backend!r}")
    if backend == "auto":
        if os.environ.get("ROBOLIB_BACKEND", "").strip().lower() == "numpy":
            return "numpy"
        return "numba" if _numba is not None else "numpy"
    return backend


def simulate(mech: Mechanism, t_span, q0, qd0, t_eval=None, alpha: float = BAUMGARTE_ALPHA,
             beta: float = BAUMGARTE_BETA, rtol: float = 1e-8, atol: float = 1e-10, extra=None,
             step_hook=None, h_max: float = np.inf, backend: str = "auto") -> IntegrationResult:
    """Integrate the Baumgarte-stabilised DAE from ``(q0, qd0)``; ``y`` columns are
    ``(q, qd, W_drive, W_loss)`` (see :meth:`Mechanism.rhs`).

    With ``backend`` numba (and no ``extra`` forces or ``step_hook``) the whole
    step loop is compiled (:func:`integrate_compiled`); otherwise the reference
    loop :func:`dopri5` calls the right-hand side from Python.

    ``t_span = (t0, t_end)`` with ``t_end >= t0`` (s); ``q0``, ``qd0`` (n,) finite; ``alpha, beta >= 0``
    (1/s); the tolerances, ``t_eval`` and ``h_max`` as in :func:`dopri5`; ``extra`` and ``step_hook`` None
    or callables; ``backend`` one of ``"auto"``, ``"numpy"``, ``"numba"``.
    """
    mech = check_mechanism("mech", mech)
    t0, t1 = chk.span_pair("t_span", t_span)
    q0, qd0 = chk.state("q0", q0, mech.n), chk.state("qd0", qd0, mech.n)
    backend = resolve_backend(backend)
    # alpha, beta, the tolerances, t_eval, h_max, extra and step_hook: checked by the loop and right-hand side called
    y0 = np.concatenate([q0, qd0, [0.0, 0.0]])
    if extra is None and step_hook is None and backend == "numba" and mech.kernel_model()[2] is not None:
        return integrate_compiled(mech, t0, y0, t1, alpha, beta, rtol, atol, t_eval=t_eval, h_max=h_max)[0]
    f = mech.compiled_rhs(alpha, beta) if extra is None and backend == "numba" else mech.rhs(alpha, beta, extra)
    return dopri5(f, t0, y0, t1, rtol=rtol, atol=atol, t_eval=t_eval, step_hook=step_hook, h_max=h_max)


def project(mech: Mechanism, q, qd, t: float = 0.0):
    """Project a state onto the constraint manifold: ``H(q) = 0`` (Newton) and ``J qd = -H_t`` (least change).

    ``q``, ``qd`` (n,) finite, ``t`` (s). Returns the projected ``(q, qd)``.
    """
    mech = check_mechanism("mech", mech)
    qd = chk.state("qd", qd, mech.n)
    q = assemble(mech, chk.state("q", q, mech.n), t)
    J = mech.jacobian(q)
    r = J @ qd + mech.time_derivative(t)
    qd = qd - np.linalg.lstsq(J, r, rcond=None)[0]
    return q, qd



__all__ = ["dopri5", "integrate_compiled", "IntegrationResult", "simulate", "project", "resolve_backend"]
