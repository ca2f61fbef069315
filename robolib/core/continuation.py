"""Continuation of periodic orbits in a parameter, and their bifurcations (period doubling, fold, Neimark-Sacker).

:func:`continue_orbits` follows a period-k orbit of a family of return maps
``P_p`` (:mod:`robolib.core.periodic` finds each orbit by shooting) from p0 to
p1, records its Floquet multipliers, and locates where a real multiplier passes
-1 (period doubling) or +1 (fold), or a complex pair leaves the unit circle
(Neimark-Sacker). The names are also importable from :mod:`robolib.core.periodic`.

>>> b = continue_orbits(lambda c: (lambda x: x * x + c), [0.0], 0.0, -1.0, 0.1)   # x^2 + c: mu = -1 at c = -3/4
>>> [(z.kind, round(z.parameter, 6)) for z in b.bifurcations], bool(b.stable[0]), bool(b.stable[-1])
([('period-doubling', -0.75)], True, False)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from robolib.core import checks
from robolib.core.errors import ParameterError
from robolib.core.periodic import (
    _NEWTON_OPTIONS,
    COMPLEX_TOL,
    FOLD_NEAR,
    PeriodicOrbit,
    ShootingError,
    _check_newton,
    _eigvec_near,
    _state,
    periodic_orbit,
)

#: Bifurcations are located on the parameter to ``BIFURCATION_REL_TOL * |p1 - p0|`` (bracket width).
BIFURCATION_REL_TOL = 1e-6
#: Most secant/bisection steps spent locating one bifurcation.
LOCATE_MAX_ITER = 60
#: Continuation grows its step by this factor after an easy point (Newton in ``EASY_ITER`` iterations or fewer).
STEP_GROWTH = 1.5
EASY_ITER = 3


@dataclass
class Bifurcation:
    """A bifurcation located on a branch: ``kind`` ``"period-doubling"`` (a real multiplier through -1),
    ``"fold"`` (through +1) or ``"Neimark-Sacker"`` (a complex pair through ``|mu| = 1``).

    ``parameter`` the located value, inside ``bracket`` (lo, hi) of width at most
    the stated accuracy ``accuracy`` (unless ``note`` says otherwise); ``orbit``
    an orbit solved at one end of ``bracket`` (the last one solved while
    locating; for a fold that ends the branch, the last orbit of the branch);
    ``ends_branch``: the branch stops there (a fold
    where no orbit exists beyond; a +1 crossing with the branch going on is a
    branch point).
    """

    kind: str
    parameter: float
    bracket: tuple
    accuracy: float
    orbit: PeriodicOrbit | None
    ends_branch: bool = False
    note: str = ""


@dataclass
class Branch:
    """A branch of period-k orbits from :func:`continue_orbits`.

    ``parameters`` (m,), ``points`` (m, n) one orbit point each, ``multipliers``
    (m, n) complex sorted by modulus, ``stable`` (m,) bool, ``residuals`` (m,)
    scaled, ``lyapunov`` (m,) (1/s, NaN without periods), ``iterations`` (m,);
    ``orbits`` the :class:`PeriodicOrbit` of each point; ``bifurcations`` in
    the order found; ``stop_reason`` why the branch ended; ``evaluations`` of
    the return maps in total (bifurcation location included).
    """

    k: int
    parameters: np.ndarray
    points: np.ndarray
    multipliers: np.ndarray
    stable: np.ndarray
    residuals: np.ndarray
    lyapunov: np.ndarray
    iterations: np.ndarray
    orbits: list
    bifurcations: list
    stop_reason: str
    evaluations: int

    def of_kind(self, kind: str) -> list:
        """The bifurcations of one kind: ``"period-doubling"``, ``"fold"`` or ``"Neimark-Sacker"``."""
        if not isinstance(kind, str) or kind not in _TESTS:
            raise ParameterError(f"kind must be one of {', '.join(_TESTS)}, got {kind!r:.60}")
        return [b for b in self.bifurcations if b.kind == kind]


def _is_complex(mu: np.ndarray) -> np.ndarray:
    return np.abs(mu.imag) > COMPLEX_TOL * np.maximum(np.abs(mu), 1.0)


def _test_pd(o: PeriodicOrbit) -> float:
    """det(M + I) = prod(mu + 1): changes sign when a real multiplier passes -1."""
    return float(np.real(np.prod(o.multipliers + 1.0)))


def _test_fold(o: PeriodicOrbit) -> float:
    """det(M - I) = prod(mu - 1): changes sign when a real multiplier passes +1."""
    return float(np.real(np.prod(o.multipliers - 1.0)))


def _test_ns(o: PeriodicOrbit) -> float:
    """``prod (|mu|^2 - 1)`` over the complex pairs (one multiplier of each, ``Im mu > 0``); -1 when none is
    complex. It changes sign when one pair crosses ``|mu| = 1`` also while another pair stays outside the
    circle (``|mu|^2 - 1`` of the largest pair alone would not: the crossing was located at a bracket end)."""
    mu = o.multipliers
    upper = mu[_is_complex(mu) & (mu.imag > 0)]
    return float(np.prod(np.abs(upper) ** 2 - 1.0)) if upper.size else -1.0


def _ns_count(o: PeriodicOrbit) -> int:
    mu = o.multipliers
    return int(np.sum(_is_complex(mu) & (np.abs(mu) > 1.0)))


_TESTS = {"period-doubling": _test_pd, "fold": _test_fold, "Neimark-Sacker": _test_ns}


def _unpack_map(out, p):
    if isinstance(out, tuple) and len(out) == 2 and callable(out[0]):
        return out[0], out[1]
    if callable(out):
        return out, None
    raise ParameterError(f"map_at(p) must return a return map P or (P, period), got {type(out).__name__} at p = {p!r}")


def continue_orbits(map_at: Callable, x0, p0: float, p1: float, ds: float, k: int = 1, ds_min: float | None = None,
                    ds_max: float | None = None, max_steps: int = 1000, p_tol: float | None = None,
                    locate: bool = True, **newton) -> Branch:
    """Follow a period-k orbit from parameter ``p0`` to ``p1`` and locate its bifurcations.

    ``map_at(p)`` returns the return map at parameter p, or ``(P, T)`` with T
    its period (s). Natural-parameter continuation: each point solves
    ``P_p^k(x) = x`` at a fixed ``p_{i+1} = p_i + ds`` by :func:`periodic_orbit`
    from the secant predictor ``x_i + (x_i - x_{i-1}) (p_{i+1} - p_i) /
    (p_i - p_{i-1})``. Natural parameters rather than pseudo-arclength: the
    points fall on the parameter grid a brute-force sweep uses (the drive
    frequency), no derivative of P in p is needed (for the gear-shift a change
    of the drive period), and a period doubling or Neimark-Sacker point --
    where ``M - I`` stays regular -- is passed through; only at a fold does
    the branch turn back, and there it is reported and stops. A failed Newton
    solve halves the step (down to ``ds_min``, default ``p_tol / 2``); an easy one
    (<= ``EASY_ITER`` iterations) grows it by ``STEP_GROWTH`` up to ``ds_max``
    (default ``ds``).

    Between consecutive points, a sign change of ``det(M + I)`` is a period
    doubling, of ``det(M - I)`` a fold (branch point), a change of the number
    of complex multipliers outside the unit circle a Neimark-Sacker point; each
    is located by secant steps with bisection safeguard (Illinois) on p to a
    bracket of width ``p_tol`` (default ``BIFURCATION_REL_TOL |p1 - p0|``),
    each step a Newton solve from the interpolated orbit. The branch stops,
    with ``stop_reason`` (never an exception), at p1, at a fold (Newton fails
    with a real multiplier within ``FOLD_NEAR`` of +1, bracketed to a width
    below ``2 ds_min`` by the step halving, each halving a failed Newton
    solve), when Newton fails otherwise, when a period-k branch collapses onto
    a shorter period, or after ``max_steps`` points.
    ``newton``: keyword arguments of :func:`periodic_orbit` (``tol``,
    ``scale``, ``step``, ``scheme``, ``variational``, ``max_iter``,
    ``update``; with ``update="broyden"`` each solve starts from the
    monodromy of the previous point, so that a point costs a few evaluations
    of P plus one differenced monodromy at the converged orbit); ``tol``
    must lie above the noise of the map, or every solve ends in "no decrease"
    and the branch stops. Raises
    :class:`ShootingError` if the first orbit (at p0 from x0) is not found.

    >>> b = continue_orbits(lambda r: (lambda x: r * x * (1 - x)), [0.6], 2.5, 3.2, 0.1)
    >>> [(z.kind, round(z.parameter, 5)) for z in b.bifurcations], b.stop_reason
    ([('period-doubling', 3.0)], 'reached p1 = 3.2')
    """
    if not callable(map_at):
        raise ParameterError(f"map_at must be a callable p -> P or (P, period), got {type(map_at).__name__}")
    x0 = _state("x0", x0)
    k = checks.count("k", k)
    p0 = checks.real("p0", p0)
    p1 = checks.real("p1", p1)
    if p1 == p0:
        raise ParameterError(f"p1 must differ from p0, got both {p0!r}")
    ds = checks.real("ds", ds, low=0.0, open_low=True)
    span = abs(p1 - p0)
    p_tol = BIFURCATION_REL_TOL * span if p_tol is None else checks.real("p_tol", p_tol, low=0.0, open_low=True)
    ds_min = 0.5 * p_tol if ds_min is None else checks.real("ds_min", ds_min, low=0.0, open_low=True)
    ds_max = ds if ds_max is None else checks.real("ds_max", ds_max, low=ds)
    max_steps = checks.count("max_steps", max_steps)
    locate = checks.flag("locate", locate)
    for bad in ("x0", "k", "period", "strict", "M0"):
        if bad in newton:
            raise ParameterError(f"{bad} is set by continue_orbits, not a Newton option")
    _check_newton(newton, tuple(o for o in _NEWTON_OPTIONS if o != "period"), "continue_orbits")
    direction = 1.0 if p1 > p0 else -1.0
    evals = [0]

    broyden = newton.get("update") == "broyden"

    def solve(p, guess, near=None):
        """The orbit at p from ``guess``; Broyden starts from the monodromy of ``near``, an orbit close by."""
        P, T = _unpack_map(map_at(p), p)
        M0 = near.monodromy if broyden and near is not None else None
        o = periodic_orbit(P, guess, k=k, period=T, strict=False, M0=M0, **newton)
        evals[0] += o.evaluations
        if o.converged and o.minimal_period < k:
            o.converged = False
            o.reason = f"collapsed onto period {o.minimal_period}"
        return o

    first = solve(p0, x0)
    if not first.converged:
        raise ShootingError(f"continuation start: {first.reason} (at p0 = {p0:g})", "start", first.x, first.history)
    ps, orbits, bifs = [p0], [first], []
    step, stop = ds, ""
    while not stop:
        p = ps[-1]
        if len(ps) > max_steps:
            stop = f"max_steps = {max_steps} points"
            break
        p_next = p + direction * min(step, abs(p1 - p))
        if abs(p1 - p_next) <= 1e-12 * span:
            p_next = p1
        if len(ps) >= 2:
            guess = orbits[-1].x + (orbits[-1].x - orbits[-2].x) * (p_next - p) / (p - ps[-2])
        else:
            guess = orbits[-1].x
        o = solve(p_next, guess, orbits[-1])
        if not o.converged:
            step *= 0.5
            if step >= ds_min:
                continue
            last = orbits[-1]
            mu_near1, _ = _eigvec_near(last.monodromy, 1.0)
            if mu_near1 is not None and abs(mu_near1 - 1.0) <= FOLD_NEAR:
                lo, hi = sorted((p, p + direction * 2 * step))
                bifs.append(Bifurcation("fold", 0.5 * (lo + hi), (lo, hi), hi - lo, last, True,
                                        f"no orbit beyond; last multiplier near +1: {mu_near1:.6g}"))
                stop = f"fold at p = {0.5 * (lo + hi):.8g} (no period-{k} orbit beyond)"
            else:
                stop = f"Newton failed at p = {p_next:.8g} ({o.reason})"
            break
        if locate:
            bifs.extend(_detect(solve, p, orbits[-1], p_next, o, p_tol))
        ps.append(p_next)
        orbits.append(o)
        if p_next == p1:
            stop = f"reached p1 = {p1:g}"
        elif o.iterations <= EASY_ITER:
            step = min(step * STEP_GROWTH, ds_max)
    return Branch(k, np.array(ps), np.array([o.x for o in orbits]), np.array([o.multipliers for o in orbits]),
                  np.array([o.stable for o in orbits]), np.array([o.residual for o in orbits]),
                  np.array([o.lyapunov for o in orbits]), np.array([o.iterations for o in orbits]), orbits, bifs,
                  stop, evals[0])


def _detect(solve, pa, oa, pb, ob, p_tol) -> list:
    """The bifurcations between two consecutive branch points, located."""
    found = []
    for kind, test in _TESTS.items():
        if kind == "Neimark-Sacker":
            crossed = _ns_count(oa) != _ns_count(ob) and np.any(_is_complex(oa.multipliers)) \
                and np.any(_is_complex(ob.multipliers))
        else:
            fa, fb = test(oa), test(ob)
            crossed = fa * fb < 0 or (fb == 0 and fa != 0)
        if crossed:
            found.append(_locate(solve, kind, test, pa, oa, pb, ob, p_tol))
    return sorted(found, key=lambda b: b.parameter * np.sign(pb - pa))


def _locate(solve, kind, test, pa, oa, pb, ob, p_tol) -> Bifurcation:
    """Root of the test function between pa and pb: Illinois regula falsi, bracket closed to ``p_tol``."""
    a, fa, xa, b, fb, xb = pa, test(oa), oa, pb, test(ob), ob
    best, side, note = (oa if abs(fa) < abs(fb) else ob), 0, ""
    for _ in range(LOCATE_MAX_ITER):
        if fb == 0:  # the test function vanishes at b: the bifurcation is there
            a, fa = b, fb
            break
        if abs(b - a) <= p_tol:
            break
        m = b - fb * (b - a) / (fb - fa) if fb != fa else 0.5 * (a + b)
        lo, hi = min(a, b), max(a, b)
        if not (lo < m < hi):
            m = 0.5 * (a + b)
        m = min(max(m, lo + 0.5 * p_tol), hi - 0.5 * p_tol)  # close the bracket from one side when secant stalls
        om = solve(m, xa.x + (xb.x - xa.x) * (m - a) / (b - a), xa if abs(m - a) < abs(m - b) else xb)
        if not om.converged:
            note = f"Newton failed inside the bracket at p = {m:.10g} ({om.reason}); located to the bracket width"
            break
        fm = test(om)
        if fm * fa > 0:
            a, fa, xa = m, fm, om
            if side == -1:
                fb *= 0.5
            side = -1
        else:
            b, fb, xb = m, fm, om
            if side == 1:
                fa *= 0.5
            side = 1
        best = om
    p_star = b if fb == 0 else (a * fb - b * fa) / (fb - fa) if fb != fa else 0.5 * (a + b)
    lo, hi = min(a, b), max(a, b)
    p_star = min(max(p_star, lo), hi)
    if not note and abs(b - a) > p_tol and fb != 0:
        note = f"bracket not closed after {LOCATE_MAX_ITER} steps"
    if kind == "fold":
        note = ("a real multiplier through +1 with the branch going on: a branch point (transcritical or "
                "pitchfork), not a turning point" + (f"; {note}" if note else ""))
    return Bifurcation(kind, float(p_star), (float(lo), float(hi)), float(p_tol), best, False, note)


__all__ = ["BIFURCATION_REL_TOL", "LOCATE_MAX_ITER", "STEP_GROWTH", "EASY_ITER", "Bifurcation", "Branch",
           "continue_orbits"]
