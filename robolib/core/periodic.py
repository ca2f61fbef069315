"""Periodic orbits of a return map: shooting, Floquet multipliers, continuation in a parameter.

The functions are general: ``P`` is any return map ``P: R^n -> R^n`` (a callable
taking and returning an array (n,)), e.g. the stroboscopic map of a periodically
driven system (the state after one drive period T) or a discrete map.

Shooting
    A period-k orbit is a root of ``G(x) = P^k(x) - x``. Newton's method takes
    the step ``dx`` from ``(M - I) dx = -G(x)``, ``M = D P^k(x)`` the monodromy
    matrix, and accepts ``x + lambda dx`` with the largest ``lambda`` in
    1, 1/2, ... >= ``LINE_SEARCH_MIN`` that decreases the residual,
    ``|G(x + lambda dx)| <= (1 - ARMIJO lambda) |G(x)|`` (damped Newton). The
    residual norm is the *scaled max norm* ``|v| = max_j |v_j| / s_j`` with
    ``s`` (n,) the typical magnitude of each component (``scale``, units of x;
    default 1), so that a residual compares components of different units.
Monodromy
    From finite differences of P with the per-component step
    ``h_j = step * max(|x_j|, s_j)`` (:func:`difference_step`), or from the
    map itself when it returns ``(P(x), DP(x))`` (variational equations,
    ``variational=True``). For k > 1 it is the chain rule product
    ``D P^k(x) = DP(x_{k-1}) ... DP(x_1) DP(x_0)`` over the orbit points, which
    costs the same as differencing P^k and stays accurate for unstable orbits.
Floquet multipliers
    The eigenvalues ``mu_i`` of M. The orbit is stable when
    ``max |mu_i| < 1 - STABILITY_MARGIN``; its largest Lyapunov exponent is
    ``ln max |mu_i| / (k T)`` for a map of period T.
Continuation
    :func:`continue_orbits` (in :mod:`robolib.core.continuation`, also
    importable from here) follows an orbit as a parameter p changes
    (natural-parameter continuation with a secant predictor) and locates where
    a real multiplier passes -1 (period doubling), +1 (fold), or a complex pair
    leaves the unit circle (Neimark-Sacker).

Cost, in evaluations of P per Newton iteration for a period-k orbit of an
n-dimensional map: ``k (2 n + 1)`` with central differences, ``k (n + 1)``
with forward differences, ``k`` with a variational map; plus ``k`` per
line-search trial; ``k`` with Broyden updates (``update="broyden"``), which
difference the monodromy only at the converged orbit (and when an update
fails). For the gear-shift (n = 4, ~30 ms per P) a period-1 Newton iteration
with central differences costs ~0.3 s. Every result counts its evaluations
(``evaluations``).

>>> logistic = lambda x: 3.2 * x * (1 - x)
>>> o = periodic_orbit(logistic, [0.5], k=2)
>>> np.round(np.sort(o.points[:, 0]), 6).tolist(), o.converged, o.stable
([0.513045, 0.799455], True, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from robolib.core import checks
from robolib.core.errors import ConvergenceError, ParameterError

_EPS = float(np.finfo(float).eps)


def difference_step(noise: float = _EPS, scheme: str = "central") -> float:
    """Relative finite-difference step that balances truncation and rounding, for a map of relative noise ``noise``.

    A central difference has truncation error ``~h^2 |P'''| / 6`` and rounding
    error ``~noise |P| / h``: their sum is smallest near ``h = noise^(1/3)``. A
    forward difference (truncation ``~h |P''| / 2``) wants ``h = noise^(1/2)``.
    With ``noise`` machine epsilon (an exactly computed map) the steps are
    6.1e-6 and 1.5e-8 and the derivative is good to ~1e-11 and ~1e-8
    (relative). A map computed by an ODE integrator is noisy at the level of
    its tolerance: pass ``noise = rtol`` (rtol 1e-9: central step 1e-3,
    derivative good to ~1e-6).

    >>> f"{difference_step():.2e}", f"{difference_step(scheme='forward'):.2e}", difference_step(1e-9)
    ('6.06e-06', '1.49e-08', 0.001)
    """
    noise = checks.real("noise", noise, low=0.0, high=1.0, open_low=True)
    if scheme == "central":
        return float(round(noise ** (1.0 / 3.0), 15))
    if scheme == "forward":
        return float(round(noise ** 0.5, 15))
    raise ParameterError(f"scheme must be 'central' or 'forward', got {scheme!r}")


#: Relative central-difference step of the monodromy (machine-exact map): eps^(1/3) = 6.1e-6.
CENTRAL_STEP = difference_step(_EPS, "central")
#: Relative forward-difference step (machine-exact map): eps^(1/2) = 1.5e-8.
FORWARD_STEP = difference_step(_EPS, "forward")
#: Default residual tolerance of shooting, scaled max norm of ``P^k(x) - x``.
SHOOTING_TOL = 1e-10
#: Default Newton iterations before :class:`ShootingError` (reason ``"max_iter"``).
SHOOTING_MAX_ITER = 25
#: Smallest damping factor of the line search before it gives up (reason ``"no decrease"``).
LINE_SEARCH_MIN = 2.0 ** -10
#: Sufficient-decrease constant of the line search (Armijo): accept when ``|G|`` falls by ``ARMIJO * lambda``.
ARMIJO = 1e-4
#: Newton stops as singular (a multiplier at +1) when the smallest singular value of ``G' = M - I`` (scaled
#: variables) is below ``SINGULAR_TOL * max(1, |M|_2)``: a multiplier that close to +1 cannot be told from +1
#: by a central-difference monodromy of an exactly computed map (relative error ~eps^(2/3) = 4e-11).
SINGULAR_TOL = 1e-9
#: An orbit is stable when ``max |mu| < 1 - STABILITY_MARGIN`` and unstable when ``max |mu| > 1 + STABILITY_MARGIN``.
#: The margin covers the error of a finite-difference monodromy of an integrated map (~1e-6 at rtol 1e-9).
STABILITY_MARGIN = 1e-3
#: Two orbit points are distinct (minimal period) when farther apart than this factor times the residual tolerance.
DISTINCT_FACTOR = 1e3
#: A multiplier is complex when ``|Im mu| > COMPLEX_TOL * max(|mu|, 1)``.
COMPLEX_TOL = 1e-9
#: A branch that ends with a real multiplier within this distance of +1 ends at a fold.
FOLD_NEAR = 0.05
#: Default offset of :func:`period_doubling_start` along the eigenvector of the multiplier near -1 (scaled units).
PD_OFFSET = 1e-2
#: :func:`period_doubling_start` tries the offsets ``c * h`` for c in these factors (both signs), in turn.
PD_OFFSET_FACTORS = (1.0, 2.0, 4.0)
#: :func:`period_doubling_start` needs a multiplier within this distance of -1.
PD_NEAR = 0.5


class ShootingError(ConvergenceError):
    """Newton's method on ``P^k(x) - x`` failed; ``reason`` says why.

    ``reason``: ``"singular"`` (``M - I`` singular: a multiplier at +1),
    ``"no decrease"`` (the line search found no smaller residual: no orbit
    nearby, or the tolerance is below the map's noise), ``"max_iter"``,
    ``"non-finite"`` (the map returned NaN/inf), ``"not found"`` (no
    period-doubled orbit). ``x`` the last iterate, ``history`` the Newton
    history so far.
    """

    def __init__(self, message: str, reason: str, x=None, history=None):
        super().__init__(message)
        self.reason = reason
        self.x = None if x is None else np.array(x, float)
        self.history = list(history or [])

    def __reduce__(self):  # picklable (sweeps on other processes or Dask workers return it)
        return type(self), (str(self), self.reason, self.x, self.history)



# --------------------------------------------------------------------------- the map, counted and checked
class _CountedMap:
    """``P`` with its evaluations counted and its output checked: (n,) finite, or (P(x), DP(x)) if variational."""

    def __init__(self, P: Callable, n: int, variational: bool, state: str = "x"):
        if not callable(P):
            raise ParameterError(f"P must be a callable return map x (n,) -> P(x) (n,), got {type(P).__name__}")
        self.P, self.n, self.variational, self.evaluations, self.state = P, n, bool(variational), 0, state

    def __call__(self, x: np.ndarray):
        self.evaluations += 1
        out = self.P(np.array(x, float))
        if self.variational:
            if not (isinstance(out, (tuple, list)) and len(out) == 2):
                raise ParameterError("with variational=True, P must return (P(x) (n,), DP(x) (n, n)), got "
                                     f"{type(out).__name__}")
            y, J = self._array(out[0], (self.n,), "P(x)", x), self._array(out[1], (self.n, self.n), "DP(x)", x)
            return y, J
        return self._array(out, (self.n,), "P(x)", x), None

    def _array(self, v, shape, what, x):
        try:
            a = np.asarray(v, dtype=float)
        except (TypeError, ValueError):
            raise ParameterError(f"P must return real numbers for {what}, got {type(v).__name__}") from None
        if a.shape != shape:
            raise ParameterError(f"P must return {what} of shape {shape} for the state {self.state} of shape "
                                 f"({self.n},), got {a.shape}")
        if not np.all(np.isfinite(a)):
            raise ShootingError(f"the return map gave a non-finite {what} at x = {np.asarray(x).tolist()}",
                                "non-finite", x)
        return a


def _scaled_norm(v: np.ndarray, s: np.ndarray) -> float:
    return float(np.max(np.abs(v) / s))


def _scale(scale, n: int) -> np.ndarray:
    if scale is None:
        return np.ones(n)
    s = checks.positive("scale", scale)
    s = np.broadcast_to(s, (n,)).astype(float) if s.ndim == 0 else s
    if s.shape != (n,):
        raise ParameterError(f"scale must be a positive number or have shape ({n},) like x, got {s.shape}")
    return s


def _state(name: str, x) -> np.ndarray:
    x = checks.real_array(name, x)
    if x.ndim != 1:
        raise ParameterError(f"{name} must be a state vector of shape (n,), got shape {x.shape}")
    return x


#: Keyword options of :func:`periodic_orbit` that :func:`period_doubling_start` and ``continue_orbits`` pass on.
_NEWTON_OPTIONS = ("tol", "max_iter", "step", "scheme", "scale", "variational", "period", "update")


def _check_newton(newton: dict, allowed=_NEWTON_OPTIONS, caller: str = "period_doubling_start") -> None:
    unknown = sorted(set(newton) - set(allowed))
    if unknown:
        raise ParameterError(f"{', '.join(unknown)} is not an option of {caller}: the Newton options are "
                             f"{', '.join(allowed)} (keyword arguments of periodic_orbit)")


def _fd_jacobian(Pc: _CountedMap, x, step: float, scale, scheme: str, base=None) -> np.ndarray:
    """``DP(x)`` (n, n) by central or forward differences, ``h_j = step * max(|x_j|, s_j)``."""
    n = x.size
    J = np.empty((n, n))
    h = step * np.maximum(np.abs(x), scale)
    for j in range(n):
        e = np.zeros(n)
        e[j] = h[j]
        xp = x + e
        hp = xp[j] - x[j]  # the step as represented in floating point
        if scheme == "central":
            xm = x - e
            J[:, j] = (Pc(xp)[0] - Pc(xm)[0]) / (xp[j] - xm[j])
        else:
            fx = Pc(x)[0] if base is None else base
            J[:, j] = (Pc(xp)[0] - fx) / hp
    return J


def _orbit(Pc: _CountedMap, x, k: int):
    """Points x_0 .. x_{k-1} (k, n), P^k(x) (n,), and the Jacobians DP(x_i) if the map supplies them."""
    pts = np.empty((k, x.size))
    Js = []
    y = x
    for i in range(k):
        pts[i] = y
        y, J = Pc(y)
        Js.append(J)
    return pts, y, (Js if Pc.variational else None)


def _monodromy_from(Pc, pts, images, Js, step, scale, scheme) -> np.ndarray:
    """``D P^k`` by the chain rule over the orbit points ``pts`` (k, n); ``images[i] = P(pts[i])``."""
    n = pts.shape[1]
    M = np.eye(n)
    for i in range(pts.shape[0]):
        J = Js[i] if Js is not None else _fd_jacobian(Pc, pts[i], step, scale, scheme, base=images[i])
        M = J @ M
    return M


def _check_scheme(scheme: str, step) -> float:
    if scheme not in ("central", "forward"):
        raise ParameterError(f"scheme must be 'central' or 'forward', got {scheme!r}")
    if step is None:
        return CENTRAL_STEP if scheme == "central" else FORWARD_STEP
    return checks.real("step", step, low=0.0, high=1.0, open_low=True)


def monodromy(P: Callable, x, k: int = 1, step: float | None = None, scheme: str = "central", scale=None,
              variational: bool = False) -> np.ndarray:
    """Monodromy matrix ``D P^k(x)`` (n, n) of the return map P at x (n,).

    By finite differences of P at each of the k orbit points (chain rule),
    component j perturbed by ``h_j = step * max(|x_j|, s_j)`` (``s = scale``,
    default 1; ``step`` default :data:`CENTRAL_STEP` or :data:`FORWARD_STEP`,
    see :func:`difference_step` for the truncation/rounding trade-off and for
    maps computed by an integrator). With ``variational=True`` P returns
    ``(P(x), DP(x))`` and no differencing is done. Cost: ``k (2n + 1)``
    evaluations of P (central), ``k (n + 1)`` (forward), ``k`` (variational).

    >>> M = monodromy(lambda x: 3.2 * x * (1 - x), [0.6875])    # fixed point 1 - 1/r, multiplier 2 - r
    >>> round(float(M[0, 0]), 9)
    -1.2
    >>> M2 = monodromy(lambda x: (3.2 * x * (1 - x), 3.2 * (1 - 2 * x)[None]), [0.6875], k=2, variational=True)
    >>> round(float(M2[0, 0]), 12)
    1.44
    """
    x = _state("x", x)
    k = checks.count("k", k)
    step = _check_scheme(scheme, step)
    s = _scale(scale, x.size)
    variational = checks.flag("variational", variational)
    Pc = _CountedMap(P, x.size, variational)
    pts, y, Js = _orbit(Pc, x, k)
    images = np.vstack([pts[1:], y[None]])
    return _monodromy_from(Pc, pts, images, Js, step, s, scheme)


def floquet_multipliers(M) -> np.ndarray:
    """Eigenvalues of the monodromy matrix M (n, n), complex (n,), sorted by modulus, largest first.

    Ties in modulus are ordered by real part, then imaginary part (largest first).

    >>> floquet_multipliers([[0.5, 0.0], [0.0, -2.0]]).tolist()
    [(-2+0j), (0.5+0j)]
    """
    M = checks.real_array("M", M)
    if M.ndim != 2 or M.shape[0] != M.shape[1]:
        raise ParameterError(f"M must be a square matrix (n, n), got shape {M.shape}")
    mu = np.linalg.eigvals(M).astype(complex)
    order = np.lexsort((-mu.imag, -mu.real, -np.round(np.abs(mu), 12)))
    return mu[order]


def orbit_points(P: Callable, x, k: int = 1) -> np.ndarray:
    """The k points ``x, P(x), ..., P^{k-1}(x)`` (k, n) of the orbit through x (n,).

    >>> orbit_points(lambda x: 1.0 - x, [0.25], 2).ravel().tolist()
    [0.25, 0.75]
    """
    x = _state("x", x)
    k = checks.count("k", k)
    pts, _, _ = _orbit(_CountedMap(P, x.size, False), x, k)
    return pts


def _lyapunov(mu_max: float, k: int, period) -> float:
    if period is None:
        return float("nan")
    return -math.inf if mu_max == 0.0 else math.log(mu_max) / (k * period)


def _minimal_period(pts: np.ndarray, s: np.ndarray, distinct: float) -> int:
    k = pts.shape[0]
    for j in range(1, k):
        if k % j == 0 and _scaled_norm(pts[j] - pts[0], s) <= distinct:
            return j
    return k


# --------------------------------------------------------------------------- shooting
@dataclass
class PeriodicOrbit:
    """A period-k orbit of a return map, found by shooting (:func:`periodic_orbit`).

    ``x`` (n,) a point of the orbit; ``points`` (k, n) all k points;
    ``residual`` the scaled max norm ``max_j |P^k(x) - x|_j / s_j`` (``scale``
    s, units of x); ``monodromy`` ``D P^k(x)`` (n, n); ``multipliers`` its
    eigenvalues sorted by modulus (largest first); ``stable`` is
    ``max |mu| < 1 - STABILITY_MARGIN``; ``lyapunov`` ``ln max|mu| / (k T)``
    (1/s, NaN without a period T); ``history`` one ``(residual, step norm,
    damping)`` per Newton iteration (the first row is the initial guess, with
    zero step); ``evaluations`` evaluations of P spent. With ``strict=False`` a
    failed search is returned with ``converged=False`` and the ``reason``.
    """

    x: np.ndarray
    k: int
    residual: float
    iterations: int
    converged: bool
    monodromy: np.ndarray
    multipliers: np.ndarray
    stable: bool
    lyapunov: float
    history: list
    evaluations: int
    points: np.ndarray
    period: float | None = None
    tol: float = SHOOTING_TOL
    scale: np.ndarray | None = None
    reason: str = ""
    minimal_period: int = 0

    @property
    def max_modulus(self) -> float:
        """Largest ``|mu|`` (NaN when the monodromy is unknown)."""
        return float(np.abs(self.multipliers[0])) if self.multipliers.size else float("nan")

    @property
    def stability(self) -> str:
        """``"stable"``, ``"unstable"`` or ``"marginal"`` (``|max |mu| - 1| <= STABILITY_MARGIN``)."""
        m = self.max_modulus
        if not math.isfinite(m):
            return "unknown"
        return "stable" if m < 1 - STABILITY_MARGIN else "unstable" if m > 1 + STABILITY_MARGIN else "marginal"


def periodic_orbit(P: Callable, x0, k: int = 1, tol: float = SHOOTING_TOL, max_iter: int = SHOOTING_MAX_ITER,
                   step: float | None = None, scheme: str = "central", scale=None, variational: bool = False,
                   period: float | None = None, strict: bool = True, update: str = "newton",
                   M0=None) -> PeriodicOrbit:
    """Period-k orbit of the return map P near ``x0`` (n,), by damped Newton on ``G(x) = P^k(x) - x``.

    Newton step: ``(M - I) dx = -G(x)`` with ``M = D P^k(x)`` (:func:`monodromy`,
    ``step``/``scheme``/``variational`` as there), damped by halving until
    ``|G(x + lambda dx)| <= (1 - ARMIJO lambda) |G(x)|``; converged when the
    residual ``|G(x)| <= tol`` (scaled max norm, ``scale`` s (n,) in units of
    x). ``period``: the time T of one application of P (s), for the Lyapunov
    exponent ``ln max|mu| / (k T)``. The monodromy and multipliers are those
    at the converged x, always differenced there (or from the variational map).

    ``update``: ``"newton"`` differences the monodromy at every iterate;
    ``"broyden"`` starts from ``M0`` (n, n) (e.g. the monodromy of a neighbour
    on a branch; default: differenced at x0) and corrects ``G'`` by Broyden's
    rank-one update ``J += (dG - J dx) dx^T / (dx^T dx)`` after each step,
    differencing afresh only when the update leads nowhere (no decrease, or
    singular): ``k`` evaluations per iteration instead of ``k (2n + 1)``, at
    the price of superlinear rather than quadratic convergence.

    Raises :class:`ShootingError` (a :class:`robolib.ConvergenceError`) naming
    the reason -- ``"singular"`` (``M - I`` singular: a multiplier at +1),
    ``"no decrease"``, ``"max_iter"``, ``"non-finite"`` -- unless
    ``strict=False``, which returns the last iterate with ``converged=False``.
    Raises :class:`robolib.ParameterError` for a bad x0, k < 1, tol <= 0, a
    map output of the wrong shape.

    >>> o = periodic_orbit(lambda x: 2.5 * x * (1 - x), [0.5], period=1.0)
    >>> round(float(o.x[0]), 9), np.round(o.multipliers.real, 9).tolist(), o.stable, round(o.lyapunov, 6)
    (0.6, [-0.5], True, -0.693147)
    >>> periodic_orbit(lambda x: x + 1.0, [0.0])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    robolib.core.periodic.ShootingError: shooting failed (singular): G' = M - I is singular ... at x = [0.0] after 0 ...
    """
    x = _state("x0", x0)
    k = checks.count("k", k)
    tol = checks.real("tol", tol, low=0.0, open_low=True)
    max_iter = checks.count("max_iter", max_iter, low=0)
    fd_step = _check_scheme(scheme, step)
    s = _scale(scale, x.size)
    if period is not None:
        period = checks.real("period", period, low=0.0, open_low=True, unit="s")
    if update not in ("newton", "broyden"):
        raise ParameterError(f"update must be 'newton' or 'broyden', got {update!r}")
    variational, strict = checks.flag("variational", variational), checks.flag("strict", strict)
    n = x.size
    if M0 is not None:
        M0 = checks.real_array("M0", M0, shape=(n, n))
    Pc = _CountedMap(P, n, variational, "x0")
    eye = np.eye(n)
    hist: list = []

    def fail(reason: str, text: str, x, r, M=None):
        msg = (f"shooting failed ({reason}): {text}, at x = {np.round(x, 12).tolist()} after {len(hist) - 1} "
               f"iterations, residual {r:.3g}")
        if strict:
            raise ShootingError(msg, reason, x, hist)
        Mx = np.full((n, n), np.nan) if M is None else M
        mu = floquet_multipliers(Mx) if M is not None else np.full(n, np.nan, complex)
        return PeriodicOrbit(x, k, r, len(hist) - 1, False, Mx, mu, False, float("nan"), hist, Pc.evaluations,
                             pts, period, tol, s, msg, 0)

    try:
        pts, y, Js = _orbit(Pc, x, k)
    except ShootingError as exc:
        if strict:
            raise ShootingError(f"shooting failed (non-finite): {exc} (the initial guess x0)", "non-finite", x) \
                from None
        pts = np.full((k, n), np.nan)
        return fail("non-finite", f"{exc} (the initial guess x0)", x, math.inf)
    G = y - x
    r = _scaled_norm(G, s)
    hist.append((r, 0.0, 1.0))
    J = None if M0 is None else M0 - eye   # the current G' = M - I (Broyden: approximate)
    M = None                               # the monodromy at x, when computed

    def monodromy_at_x():
        images = np.vstack([pts[1:], y[None]])
        return _monodromy_from(Pc, pts, images, Js, fd_step, s, scheme)

    while True:
        if r > tol and len(hist) - 1 >= max_iter:
            return fail("max_iter", f"residual above tol = {tol:g} after max_iter = {max_iter} Newton iterations",
                        x, r, M if M is not None else (None if J is None else J + eye))
        fresh = r <= tol or update == "newton" or J is None or Pc.variational
        if fresh:
            try:
                M = monodromy_at_x()
            except ShootingError as exc:
                return fail("non-finite", f"{exc} (differencing the monodromy)", x, r)
            if r <= tol:   # converged: the monodromy at the orbit
                break
            J = M - eye
        sigma_min = _singular_value(J, s)
        if sigma_min is not None:
            if not fresh:   # a Broyden estimate: difference the monodromy before judging
                J = None
                continue
            mu = floquet_multipliers(M)
            near = mu[np.argmin(np.abs(mu - 1.0))]
            return fail("singular", f"G' = M - I is singular (smallest singular value {sigma_min:.3g}, "
                        f"multiplier nearest +1: {_fmt(near)}); a multiplier at +1 (fold) or no isolated orbit",
                        x, r, M)
        dx = np.linalg.solve(J, -G)
        lam, xt, pts_t, y_t, Js_t, r_t = _line_search(Pc, x, dx, r, k, s)
        if lam < LINE_SEARCH_MIN:
            if not fresh:   # the Broyden estimate led nowhere: difference the monodromy and try again
                J = None
                continue
            why = ("the map is non-finite along the Newton direction" if not math.isfinite(r_t) else
                   "no orbit nearby, or tol below the noise of the map")
            mu = floquet_multipliers(M)
            near = mu[np.argmin(np.abs(mu - 1.0))]
            if abs(near - 1.0) <= FOLD_NEAR:
                why += f"; multiplier nearest +1: {_fmt(near)}, near a fold?"
            return fail("no decrease", f"the line search found no smaller residual down to damping "
                        f"{LINE_SEARCH_MIN:g} ({why}; tol = {tol:g})", x, r, M)
        G_t = y_t - xt
        if update == "broyden":   # good Broyden: J += (dG - J dx) dx^T / (dx^T dx)
            d = lam * dx
            J = J + np.outer(G_t - G - J @ d, d) / float(d @ d)
        x, pts, y, Js, G = xt, pts_t, y_t, Js_t, G_t
        M = None
        hist.append((r_t, _scaled_norm(lam * dx, s), lam))
        r = r_t
    mu = floquet_multipliers(M)
    mmax = float(np.abs(mu[0]))
    return PeriodicOrbit(x, k, r, len(hist) - 1, True, M, mu, bool(mmax < 1.0 - STABILITY_MARGIN),
                         _lyapunov(mmax, k, period), hist, Pc.evaluations, pts, period, tol, s, "converged",
                         _minimal_period(pts, s, DISTINCT_FACTOR * tol))


def _singular_value(J: np.ndarray, s: np.ndarray):
    """Smallest singular value of ``G' = J`` in scaled variables z = x / s if it is singular
    (below ``SINGULAR_TOL * max(1, |M|_2)``), else None."""
    A = J * s[None, :] / s[:, None]
    sigma_min = float(np.linalg.svd(A, compute_uv=False)[-1])
    size = max(1.0, float(np.linalg.norm(A + np.eye(len(s)), 2)))
    return sigma_min if sigma_min <= SINGULAR_TOL * size else None


def _line_search(Pc: _CountedMap, x, dx, r: float, k: int, s):
    """Damped step ``x + lambda dx``: the largest lambda = 1, 1/2, ... with ``|G| <= (1 - ARMIJO lambda) r``.

    Returns ``(lambda, x_t, points, P^k(x_t), Jacobians, |G(x_t)|)``; lambda < ``LINE_SEARCH_MIN`` when none
    decreased the residual (a non-finite map output counts as no decrease).
    """
    lam = 1.0
    while True:
        xt = x + lam * dx
        try:
            pts_t, y_t, Js_t = _orbit(Pc, xt, k)
            r_t = _scaled_norm(y_t - xt, s)
        except ShootingError:
            pts_t, y_t, Js_t, r_t = None, None, None, math.inf
        if r_t <= (1.0 - ARMIJO * lam) * r:
            return lam, xt, pts_t, y_t, Js_t, r_t
        lam *= 0.5
        if lam < LINE_SEARCH_MIN:
            return lam, xt, pts_t, y_t, Js_t, r_t


def _fmt(z: complex) -> str:
    z = complex(z)
    return f"{z.real:.6g}" if abs(z.imag) <= COMPLEX_TOL * max(abs(z), 1.0) else f"{z.real:.6g}{z.imag:+.6g}j"


def _eigvec_near(M: np.ndarray, target: float):
    mu, V = np.linalg.eig(M)
    real = np.abs(mu.imag) <= COMPLEX_TOL * np.maximum(np.abs(mu), 1.0)
    if not np.any(real):
        return None, None
    cand = np.where(real)[0]
    i = cand[np.argmin(np.abs(mu[cand].real - target))]
    return float(mu[i].real), np.real(V[:, i])


def period_doubling_start(P: Callable, orbit: PeriodicOrbit, h: float = PD_OFFSET, **newton) -> PeriodicOrbit:
    """The period-2k orbit born at a period doubling of ``orbit`` (period k), by Newton on ``P^{2k}``.

    The guess is ``x* +- h v``: ``v`` the real eigenvector of the multiplier
    of ``orbit`` nearest -1 (scaled so that its scaled max norm is 1), ``h``
    in scaled units (the expected amplitude of the new orbit, which grows like
    the square root of the distance past the doubling). The offsets ``+-c h``,
    c in ``PD_OFFSET_FACTORS``, are tried in turn (each a Newton solve); a
    root that is the period-k orbit itself (minimal period < 2k) is rejected.
    ``newton``: keyword arguments of :func:`periodic_orbit` (``tol``,
    ``scale``, ``step``, ``period``, ...); ``scale`` and ``period`` default to
    the orbit's. Raises :class:`ShootingError` (reason ``"not found"``) when
    neither guess converges to a period-2k orbit, and
    :class:`robolib.ParameterError` when no real multiplier is within
    ``PD_NEAR`` of -1.

    >>> r = 3.2                                                   # past the doubling at r = 3
    >>> o1 = periodic_orbit(lambda x: r * x * (1 - x), [0.7])
    >>> o2 = period_doubling_start(lambda x: r * x * (1 - x), o1, h=0.1)
    >>> o2.k, o2.minimal_period, round(float(o2.multipliers[0].real), 9)   # -r^2 + 2r + 4
    (2, 2, 0.16)
    """
    if not isinstance(orbit, PeriodicOrbit) or not orbit.converged:
        raise ParameterError("orbit must be a converged PeriodicOrbit (from periodic_orbit)")
    h = checks.real("h", h, low=0.0, open_low=True)
    _check_newton(newton)
    mu, v = _eigvec_near(orbit.monodromy, -1.0)
    if mu is None or abs(mu + 1.0) > PD_NEAR:
        raise ParameterError(f"orbit has no real multiplier within PD_NEAR = {PD_NEAR} of -1 (multipliers "
                             f"{[_fmt(m) for m in orbit.multipliers]}): not at a period doubling")
    s = orbit.scale if orbit.scale is not None else np.ones(orbit.x.size)
    newton.setdefault("scale", s)
    newton.setdefault("period", orbit.period)
    v = v / _scaled_norm(v, s)
    tried = []
    for factor in PD_OFFSET_FACTORS:
        for sign in (1.0, -1.0):
            o2 = periodic_orbit(P, orbit.x + sign * factor * h * v, k=2 * orbit.k, strict=False, **newton)
            tried.append(o2)
            if o2.converged and o2.minimal_period == 2 * orbit.k:
                o2.evaluations = sum(t.evaluations for t in tried)
                return o2
    what = sorted({"the period-k orbit again" if t.converged else t.reason.split(":")[0] for t in tried})
    raise ShootingError(f"shooting failed (not found): no period-{2 * orbit.k} orbit from x* +- c h v with h = {h:g}, "
                        f"c in {PD_OFFSET_FACTORS} (multiplier {mu:.6g}): {'; '.join(what)}; try another h, or a "
                        f"parameter farther past the doubling", "not found", orbit.x)


__all__ = [
    "CENTRAL_STEP", "FORWARD_STEP", "SHOOTING_TOL", "SHOOTING_MAX_ITER", "LINE_SEARCH_MIN", "ARMIJO",
    "SINGULAR_TOL", "STABILITY_MARGIN", "DISTINCT_FACTOR", "COMPLEX_TOL", "FOLD_NEAR", "PD_OFFSET",
    "PD_OFFSET_FACTORS", "PD_NEAR", "ShootingError", "difference_step", "monodromy", "floquet_multipliers",
    "orbit_points", "PeriodicOrbit", "periodic_orbit", "period_doubling_start",
]
