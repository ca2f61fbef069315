"""3-PRP parallel robot: closed-form kinematics, working modes, Jacobian, workspace.

Model of Yu, Sun & Ning's 3-PRP robot as restated on the book's Models page
"3-PRP parallel robot" (the paper's figures and equations were lost; the
geometry below is a reconstruction). Two linear modules move sliders ``C1 = lx*u1`` and
``C2 = ly*u2`` along perpendicular rails through the origin; a crank of length
``l1`` turning in the XZ plane about ``(l0, 0, h)`` carries ``C3``. Each chain
ends in a rod of length ``l2`` with universal joints at both ends, so the
platform centre ``J`` only translates and lies on three spheres of radius
``l2`` centred at ``c_k = C_k - r*v_k``.

Units are whatever the geometry uses (the paper's defaults are millimetres);
angles are radians. Every kernel broadcasts over leading batch axes: points are
arrays of shape ``(..., 3)``.

>>> geom = Geometry()
>>> J = forward(geom, 200.0, 200.0, 0.0)
>>> np.round(J, 6)
array([ 262.602054,    0.      , -463.636683])
>>> lx, ly, theta = inverse(geom, J)
>>> float(lx), float(ly), float(theta)  # doctest: +ELLIPSIS
(200.0..., 200.0..., ...)
"""

from __future__ import annotations

import itertools
import numbers
import os
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from robolib.core import checks
from robolib.core.errors import ParameterError, ParameterFileError, RobolibError, SingularityError, UnreachableError
from robolib.core.params import load_yaml, number, text, vector

SQRT1_2 = np.sqrt(0.5)
#: Rail direction of slider 1 (through B) and of slider 2 (through G).
U1 = np.array([SQRT1_2, -SQRT1_2, 0.0])
U2 = np.array([SQRT1_2, SQRT1_2, 0.0])
#: Platform attachment directions ``v_k`` (attachment point ``J + r*v_k``).
V = np.array([U1, U2, [1.0, 0.0, 0.0]])

#: The home input ``(lx, ly, theta)`` (length, length, rad), whose working mode is :data:`DEFAULT_MODE`.
HOME_INPUT = (200.0, 200.0, 0.0)
#: The working mode of the home input ``lx = ly = 200, theta = 0`` (:data:`HOME_INPUT`).
DEFAULT_MODE = (-1, -1, 1)
#: All eight sign triples ``(sigma_1, sigma_2, sigma_3)``.
ALL_MODES = tuple(itertools.product((-1, 1), repeat=3))

#: Relative tolerance below which the centres count as collinear (``|j| / d``).
COLLINEAR_TOL = 1e-12
#: Normalised ``|det A|`` below which a configuration counts as a forward singularity.
SINGULAR_TOL = 1e-12


# --------------------------------------------------------------------------- geometry
@dataclass(frozen=True)
class Geometry:
    """Dimensions of the 3-PRP robot (lengths in one unit, paper: mm; angles rad).

    ``l0`` half the fixed-platform edge BG; ``l1`` crank length; ``l2`` rod
    length; ``r`` platform radius (centre J to each attachment point); ``h``
    crank-pivot height; ``*_range`` the actuator ranges ``(min, max)``.

    >>> Geometry(l2=-1.0)
    Traceback (most recent call last):
        ...
    robolib.ParameterError: 3-PRP geometry: l2 must be positive, got -1.0
    """

    l0: float = 137.5
    l1: float = 200.0
    l2: float = 500.0
    r: float = 38.0
    h: float = 35.0
    lx_range: tuple[float, float] = (0.0, 400.0)
    ly_range: tuple[float, float] = (0.0, 400.0)
    theta_range: tuple[float, float] = (-np.pi / 2, np.pi / 2)
    unit: str = field(default="mm", compare=False)

    def __post_init__(self):
        for name, low in (("l0", "positive"), ("l1", "positive"), ("l2", "positive"), ("r", "non-negative"),
                          ("h", None)):
            value = getattr(self, name)
            try:
                v = checks.real(name, value)
            except ParameterError:
                raise ParameterError(f"3-PRP geometry: {name} must be a finite{' ' + low if low else ''} number, got "
                                     f"{value!r:.60} ({type(value).__name__})") from None
            if (low == "positive" and v <= 0) or (low == "non-negative" and v < 0):
                raise ParameterError(f"3-PRP geometry: {name} must be {low}, got {value!r}")
            object.__setattr__(self, name, v)
        for name in ("lx_range", "ly_range", "theta_range"):
            try:
                lo, hi = (float(v) for v in checks.real_array(name, getattr(self, name), shape=(2,)))
            except ParameterError as exc:
                raise ParameterError(f"3-PRP geometry: {exc} (a (min, max) pair)") from None
            if not lo < hi:
                raise ParameterError(f"3-PRP geometry: {name} must be (min, max) with min < max, got {(lo, hi)!r}")
            object.__setattr__(self, name, (lo, hi))
        if not isinstance(self.unit, str):
            raise ParameterError(f"3-PRP geometry: unit must be the name of the length unit (text, e.g. 'mm'), got "
                                 f"{self.unit!r} ({type(self.unit).__name__})")

    @property
    def crank_pivot(self) -> np.ndarray:
        """Crank pivot ``(l0, 0, h)``, shape ``(3,)``."""
        return np.array([self.l0, 0.0, self.h])

    @property
    def actuator_box(self) -> np.ndarray:
        """Actuator ranges as a ``(3, 2)`` array of ``(min, max)`` rows: lx, ly, theta."""
        return np.array([self.lx_range, self.ly_range, self.theta_range])


GEOMETRY_SCHEMA = {
    "name": text(),
    "units": {"length": text(), "angle": text(choices=("deg", "rad"))},
    "l0": number(positive=True),
    "l1": number(positive=True),
    "l2": number(positive=True),
    "r": number(nonnegative=True),
    "h": number(),
    "lx_range": vector(2),
    "ly_range": vector(2),
    "theta_range": vector(2),
}


def load_geometry(path) -> Geometry:
    """Read a geometry file (see ``data/prp3/paper.yaml``) into a :class:`Geometry`.

    >>> load_geometry("prp3/paper.yaml") == Geometry()
    True
    """
    if not isinstance(path, (str, os.PathLike)):
        raise ParameterError(f"3-PRP geometry: path must be a file name (str or path), got {path!r:.60} "
                             f"({type(path).__name__})")
    try:
        p = load_yaml(path, GEOMETRY_SCHEMA)
    except (UnicodeDecodeError, OSError) as exc:  # a binary file, a folder, no permission: not a geometry file
        raise ParameterFileError(f"3-PRP geometry: path {str(path)!r} cannot be read as a text (YAML) file: "
                                 f"{type(exc).__name__}: {exc}") from None
    to_rad = np.pi / 180.0 if p["units"]["angle"] == "deg" else 1.0
    try:
        return Geometry(
            l0=p["l0"], l1=p["l1"], l2=p["l2"], r=p["r"], h=p["h"],
            lx_range=tuple(p["lx_range"]), ly_range=tuple(p["ly_range"]),
            theta_range=tuple(p["theta_range"] * to_rad), unit=p["units"]["length"],
        )
    except ParameterError as exc:  # well-formed fields whose values do not make a geometry (e.g. min >= max)
        raise ParameterFileError(f"{path}: {exc}") from None


# --------------------------------------------------------------------------- helpers
# Checks of the public entry points (once per call, never in the private kernels they call).
def _first_bad(arr, bad) -> str:
    if arr.ndim == 0:
        return f"{float(arr)}"
    idx = tuple(int(i) for i in np.argwhere(bad)[0])
    return f"{float(arr[idx])} at index {idx[0] if len(idx) == 1 else idx}"


def _real_input(name, a, allow_nan=False):
    """One actuator input (a number or an array of numbers) as floats; NaN only with ``allow_nan``, never inf."""
    arr = checks.real_array(name, a, finite=False)
    bad = np.isinf(arr) if allow_nan else ~np.isfinite(arr)
    if np.any(bad):
        hint = "(only NaN marks a masked input with errors='mask')" if allow_nan else \
            "(NaN inputs are accepted with errors='mask')"
        raise ParameterError(f"3-PRP input {name} contains NaN or inf: {name} must be finite, got "
                             f"{_first_bad(arr, bad)} {hint}")
    return arr


def _as_inputs(lx, ly, theta, allow_nan=False):
    arrs = [_real_input(name, a, allow_nan) for name, a in (("lx", lx), ("ly", ly), ("theta", theta))]
    try:
        return tuple(np.broadcast_arrays(*arrs))
    except ValueError:
        raise ParameterError("3-PRP inputs lx, ly, theta do not broadcast together: lx has shape "
                             f"{arrs[0].shape}, ly {arrs[1].shape}, theta {arrs[2].shape}") from None


def _as_points(points, name="points", allow_nan=False, lead=None):
    """Points ``(..., 3)`` as floats; NaN rows only with ``allow_nan``, never inf.

    ``lead``: the shape of the inputs the points belong to; the points' leading shape must broadcast with it.
    """
    if points is None or isinstance(points, (str, bytes, bool, np.bool_)):
        raise ParameterError(f"3-PRP {name} must be an array of numbers of shape (..., 3), got {points!r:.60} "
                             f"({type(points).__name__})")
    try:
        P = np.asarray(points)
    except (TypeError, ValueError):
        P = np.empty(0, dtype=object)
    if P.dtype == bool or P.dtype.kind not in "iuf":
        raise ParameterError(f"3-PRP {name} must be an array of numbers of shape (..., 3), got {points!r:.60}")
    P = P.astype(float)
    if P.ndim == 0 or P.shape[-1] != 3:
        raise ParameterError(f"3-PRP {name} must have shape (..., 3), got shape {P.shape}")
    if P.size == 0:
        raise ParameterError(f"3-PRP {name} must not be empty, got shape {P.shape}")
    bad = np.isinf(P) if allow_nan else ~np.isfinite(P)
    if np.any(bad):
        hint = "only NaN rows are accepted with errors='mask'" if allow_nan else \
            "NaN rows are accepted with errors='mask'"
        raise ParameterError(f"3-PRP {name} contains NaN or inf: {name} must be finite, got {_first_bad(P, bad)} "
                             f"({hint})")
    if lead is not None:
        try:
            np.broadcast_shapes(P.shape[:-1], lead)
        except ValueError:
            raise ParameterError(f"3-PRP {name} must have shape (..., 3) whose leading shape broadcasts with the "
                                 f"inputs' {lead} (the forward images of lx, ly, theta), got shape {P.shape}") from None
    return P


def _describe(mask, **arrays) -> str:
    """Name the first offending element of a batch and how many there are."""
    idx = np.argwhere(mask)[0] if np.ndim(mask) else ()
    vals = ", ".join(f"{k}={float(np.broadcast_to(v, np.shape(mask))[tuple(idx)]):.10g}" for k, v in arrays.items())
    n = int(np.count_nonzero(mask))
    where = f" (first at index {tuple(int(i) for i in idx)}; {n} of {np.size(mask)} inputs)" if np.ndim(mask) else ""
    return f"{vals}{where}"


def _check_errors_arg(errors):
    if not isinstance(errors, str) or errors not in ("raise", "mask"):
        raise ParameterError(f"errors must be 'raise' or 'mask', got {errors!r:.60}")


def _check_limits(geom, lx, ly, theta, errors, what):
    lo, hi = geom.actuator_box.T
    bad = np.zeros(lx.shape, dtype=bool)
    for k, (name, a) in enumerate((("lx", lx), ("ly", ly), ("theta", theta))):
        outside = (a < lo[k]) | (a > hi[k])
        if errors == "raise" and np.any(outside):
            raise UnreachableError(
                f"3-PRP {what}: {name} outside its actuator range [{lo[k]:g}, {hi[k]:g}]: "
                + _describe(outside, lx=lx, ly=ly, theta=theta)
            )
        bad |= outside
    return bad


def slider_points(geom: Geometry, lx, ly, theta) -> np.ndarray:
    """Actuated joint points ``C1, C2, C3``, shape ``(..., 3, 3)`` (chain, xyz).

    ``lx, ly`` (length), ``theta`` (rad) broadcast together; they must be finite numbers (any value: the
    points are defined outside the actuator ranges too).
    """
    return _slider_points(geom, *_as_inputs(lx, ly, theta))


def _slider_points(geom: Geometry, lx, ly, theta) -> np.ndarray:
    """:func:`slider_points` of checked, broadcast inputs; NaN in, NaN out."""
    C3 = np.stack([geom.l0 + geom.l1 * np.cos(theta), np.zeros_like(theta), geom.h + geom.l1 * np.sin(theta)], -1)
    return np.stack([lx[..., None] * U1, ly[..., None] * U2, C3], -2)


def sphere_centres(geom: Geometry, lx, ly, theta) -> np.ndarray:
    """Centres ``c_k = C_k - r*v_k`` of the three spheres ``J`` lies on, shape ``(..., 3, 3)``."""
    return _sphere_centres(geom, *_as_inputs(lx, ly, theta))


def _sphere_centres(geom: Geometry, lx, ly, theta) -> np.ndarray:
    return _slider_points(geom, lx, ly, theta) - geom.r * V


# --------------------------------------------------------------------------- forward
def forward(geom: Geometry, lx, ly, theta, *, errors: str = "raise", limits: bool = True) -> np.ndarray:
    """Forward kinematics: actuator inputs -> platform centre ``J``, shape ``(..., 3)``.

    Trilateration of the three spheres of radius ``l2`` in a frame built on
    their centres (equivalent to the paper's Eqs. 3-6, better conditioned);
    of the two mirror solutions it keeps the one below the plane of the
    centres (the side opposite to the plane normal with positive z; the paper
    keeps ``z < 0``).

    ``lx, ly`` (length), ``theta`` (rad) broadcast together. An input outside
    the actuator ranges (when ``limits``), whose spheres do not meet
    (unreachable), or whose centres are collinear (singular) raises
    :class:`UnreachableError` / :class:`SingularityError` naming it; with
    ``errors="mask"`` such rows are NaN instead.

    >>> forward(Geometry(), 200.0, 200.0, 1.6)
    Traceback (most recent call last):
        ...
    robolib.UnreachableError: 3-PRP forward kinematics: theta outside its actuator range [-1.5708, 1.5708]: lx=200, ly=200, theta=1.6
    >>> forward(Geometry(), [200.0, 0.0], 200.0, 0.0, errors="mask", limits=False).shape
    (2, 3)
    """
    _check_errors_arg(errors)
    limits = checks.flag("limits", limits)
    return _forward(geom, *_as_inputs(lx, ly, theta, allow_nan=errors == "mask"), errors=errors, limits=limits)


def _forward(geom: Geometry, lx, ly, theta, *, errors: str = "raise", limits: bool = True,
             what: str = "forward kinematics") -> np.ndarray:
    """:func:`forward` of checked, broadcast inputs (NaN rows allowed: they give NaN)."""
    bad = _check_limits(geom, lx, ly, theta, errors, what) if limits else np.zeros(lx.shape, bool)
    bad |= np.isnan(lx) | np.isnan(ly) | np.isnan(theta)
    c = _sphere_centres(geom, lx, ly, theta)
    p1, p2, p3 = c[..., 0, :], c[..., 1, :], c[..., 2, :]
    e21 = p2 - p1
    d = np.linalg.norm(e21, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        ex = e21 / d[..., None]
        e31 = p3 - p1
        i = np.einsum("...k,...k->...", ex, e31)
        ey_raw = e31 - i[..., None] * ex
        j = np.linalg.norm(ey_raw, axis=-1)
        ey = ey_raw / j[..., None]
        ez = np.cross(ex, ey)
        # equal radii: x = d/2, y = (i^2 + j^2 - 2 i x) / (2 j)
        x = 0.5 * d
        y = (i * i + j * j - 2.0 * i * x) / (2.0 * j)
        z2 = geom.l2 ** 2 - x * x - y * y
    scale = np.maximum(d, np.abs(i)) + geom.l2
    singular = ~(j > COLLINEAR_TOL * scale) | ~(d > COLLINEAR_TOL * scale)
    unreachable = ~singular & ~(z2 >= 0.0)
    if errors == "raise":
        if np.any(singular & ~bad):
            raise SingularityError(
                f"3-PRP {what}: the three sphere centres are collinear (singular input): "
                + _describe(singular & ~bad, lx=lx, ly=ly, theta=theta)
            )
        if np.any(unreachable & ~bad):
            raise UnreachableError(
                f"3-PRP {what}: unreachable input, the three rods of length l2={geom.l2:g} cannot meet: "
                + _describe(unreachable & ~bad, lx=lx, ly=ly, theta=theta)
            )
    z = np.sqrt(np.where(unreachable | singular, 0.0, z2))
    # keep the root below the plane: opposite to the normal with positive z
    side = np.where(ez[..., 2] > 0, -1.0, 1.0)
    J = p1 + x[..., None] * ex + y[..., None] * ey + (side * z)[..., None] * ez
    J[bad | singular | unreachable] = np.nan
    return J


def mirror_root(geom: Geometry, lx, ly, theta, points=None, *, errors: str = "raise") -> np.ndarray:
    """The other forward-kinematics root: ``J`` reflected through the plane of the sphere centres.

    :func:`forward` keeps the root below that plane; this is the one above it
    (same three rod lengths, so it also closes every chain). ``points`` (the
    forward image, computed if not given) saves a FK call; shape ``(..., 3)``
    (its leading shape broadcasts with the inputs'). Because the kept root is
    the lower one, the mirror root is never lower: where ``J`` has ``z >= 0``
    both roots do. An unreachable or singular input raises as in :func:`forward`
    (without the actuator ranges); with ``errors="mask"`` NaN inputs or
    ``points`` rows are accepted and give NaN, as do unreachable inputs.

    >>> g = Geometry()
    >>> J, M = forward(g, 200.0, 200.0, 0.0), mirror_root(g, 200.0, 200.0, 0.0)
    >>> bool(M[2] > J[2]), bool(np.isclose(np.linalg.norm(M + g.r * V[2] - slider_points(g, 200.0, 200.0, 0.0)[2]), g.l2))
    (True, True)
    """
    _check_errors_arg(errors)
    mask = errors == "mask"
    lx, ly, theta = _as_inputs(lx, ly, theta, allow_nan=mask)
    P = _forward(geom, lx, ly, theta, errors=errors, limits=False, what="mirror root") if points is None else \
        _as_points(points, allow_nan=mask, lead=lx.shape)
    c = _sphere_centres(geom, lx, ly, theta)
    n = np.cross(c[..., 1, :] - c[..., 0, :], c[..., 2, :] - c[..., 0, :])
    with np.errstate(invalid="ignore", divide="ignore"):
        n = n / np.linalg.norm(n, axis=-1, keepdims=True)
    if not mask:
        bad = ~np.all(np.isfinite(n), axis=-1) & np.all(np.isfinite(P), axis=-1)
        if np.any(bad):   # given points skip forward's check: collinear sphere centres have no mirror plane
            i = tuple(int(j) for j in np.argwhere(bad)[0])
            raise SingularityError(f"mirror_root: the sphere centres are collinear at input {i} (lx, ly, theta = "
                                   f"{float(lx[i]):g}, {float(ly[i]):g}, {float(theta[i]):g}): no mirror plane")
    dist = np.einsum("...k,...k->...", P - c[..., 0, :], n)
    return P - 2.0 * dist[..., None] * n


# --------------------------------------------------------------------------- inverse
class _IKParts(NamedTuple):
    b: np.ndarray      # (..., 2) slider projections b_k = w . u_k
    disc: np.ndarray   # (..., 2) slider discriminants b^2 - |w|^2 + l2^2
    phi: np.ndarray    # (...)  atan2(w_z, w_x) of the crank chain
    ratio: np.ndarray  # (...)  k3 / rho


def _ik_parts(geom: Geometry, P: np.ndarray) -> _IKParts:
    w12 = P[..., None, :] + geom.r * V[:2]                      # (..., 2, 3)
    b = np.einsum("...kj,kj->...k", w12, V[:2])
    disc = b * b - np.einsum("...kj,...kj->...k", w12, w12) + geom.l2 ** 2
    w3 = P + geom.r * V[2] - geom.crank_pivot
    rho = np.hypot(w3[..., 0], w3[..., 2])
    k3 = (np.einsum("...j,...j->...", w3, w3) + geom.l1 ** 2 - geom.l2 ** 2) / (2.0 * geom.l1)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = k3 / rho
    return _IKParts(b, disc, np.arctan2(w3[..., 2], w3[..., 0]), ratio)


def _check_reach(parts: _IKParts, P, errors, what):
    """Whether each chain reaches each point; with ``errors="raise"`` the first chain that does not raises."""
    reach = [parts.disc[..., 0] >= 0, parts.disc[..., 1] >= 0, np.abs(parts.ratio) <= 1.0]
    names = ("chain 1 (slider lx)", "chain 2 (slider ly)", "chain 3 (crank theta)")
    if errors == "raise":
        for ok, nm in zip(reach, names):
            if not np.all(ok):
                raise UnreachableError(
                    f"3-PRP {what}: point out of reach of {nm}: "
                    + _describe(~ok, x=P[..., 0], y=P[..., 1], z=P[..., 2])
                )
    return reach


def _wrap(angle):
    """Wrap to (-pi, pi]."""
    return np.pi - np.mod(np.pi - angle, 2.0 * np.pi)


def _ik_from_parts(parts: _IKParts, mode) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    s1, s2, s3 = mode
    with np.errstate(invalid="ignore"):
        root = np.sqrt(parts.disc)
        lx = parts.b[..., 0] + s1 * root[..., 0]
        ly = parts.b[..., 1] + s2 * root[..., 1]
        theta = _wrap(parts.phi + s3 * np.arccos(parts.ratio))
    return lx, ly, theta


def _check_mode(mode, paper=False):
    """A working mode: three signs +1 / -1 (numbers, not bools); with ``paper`` also :data:`PAPER_RULES`."""
    if paper and isinstance(mode, str) and mode == PAPER_RULES:
        return mode
    try:
        items = list(mode) if not isinstance(mode, (str, bytes)) and np.ndim(mode) == 1 else None
    except (TypeError, ValueError):
        items = None
    ok = items is not None and len(items) == 3 and all(
        isinstance(s, numbers.Real) and not isinstance(s, (bool, np.bool_)) and s in (-1, 1) for s in items)
    if not ok:
        raise ParameterError("3-PRP working mode must be three signs (+1 or -1)"
                             + (f" or {PAPER_RULES!r}" if paper else "") + f", got mode={mode!r:.60}")
    return tuple(int(s) for s in items)


class RuleAmbiguityError(RobolibError, ValueError):
    """The paper's root-selection rules do not single out one inverse-kinematics solution."""


RuleAmbiguityError.__module__ = "robolib.prp3"  # tracebacks name it as users import it


#: ``mode`` value of :func:`inverse` that applies the paper's own rules instead of a sign triple.
PAPER_RULES = "paper"


def _paper_rule_signs(parts: _IKParts):
    """Signs picked by the paper's rules, and where the slider rule is ambiguous.

    Slider k: "the displacement is positive", i.e. of the two roots
    ``b_k -+ sqrt(disc_k)`` the positive one; ambiguous when both or neither
    are positive. Crank: "the smaller angle", read as the root of smaller
    magnitude ``|theta|``. Returns ``(signs (..., 3), ambiguous (..., 2))``.
    """
    with np.errstate(invalid="ignore"):
        root = np.sqrt(parts.disc)
        plus, minus = parts.b + root, parts.b - root
        acos = np.arccos(parts.ratio)
    ambiguous = (plus > 0) == (minus > 0)
    s12 = np.where(plus > 0, 1, -1)
    t_plus, t_minus = _wrap(parts.phi + acos), _wrap(parts.phi - acos)
    s3 = np.where(np.abs(t_plus) <= np.abs(t_minus), 1, -1)
    return np.concatenate([s12, s3[..., None]], -1), ambiguous


def inverse(geom: Geometry, points, mode=DEFAULT_MODE, *, errors: str = "raise", limits: bool = True):
    """Inverse kinematics (paper Eq. 7) in one working mode: ``J -> (lx, ly, theta)``.

    ``points`` has shape ``(..., 3)``; returns three arrays of shape ``(...)``.
    ``mode = (sigma_1, sigma_2, sigma_3)`` picks the sign of each closed-form
    root. A point that a chain cannot reach (negative discriminant), or whose
    solution in this mode lies outside the actuator ranges (when ``limits``),
    raises :class:`UnreachableError` naming it; ``errors="mask"`` gives NaN.

    ``mode="paper"`` (:data:`PAPER_RULES`) applies the paper's rules point by
    point instead: each slider takes its positive root, the crank the root of
    smaller ``|theta|``. Where a slider has two positive roots (or none) the
    rule does not decide: :class:`RuleAmbiguityError` names the point, or NaN
    with ``errors="mask"``.

    >>> q = inverse(Geometry(), forward(Geometry(), 200.0, 200.0, 0.0), mode="paper")
    Traceback (most recent call last):
        ...
    robolib.prp3.RuleAmbiguityError: 3-PRP inverse kinematics, paper's rules: slider lx has two positive roots (or none), the rule "take the positive displacement" does not decide: x=262.6020541, y=0, z=-463.636683

    >>> inverse(Geometry(), [0.0, 0.0, -100.0])
    Traceback (most recent call last):
        ...
    robolib.UnreachableError: 3-PRP inverse kinematics: point out of reach of chain 3 (crank theta): x=0, y=0, z=-100
    """
    _check_errors_arg(errors)
    limits = checks.flag("limits", limits)
    mode = _check_mode(mode, paper=True)
    return _inverse(geom, _as_points(points, allow_nan=errors == "mask"), mode, errors=errors, limits=limits)


def _inverse(geom: Geometry, P, mode, *, errors: str = "raise", limits: bool = True):
    """:func:`inverse` of checked points (NaN rows allowed) and a checked mode (a sign triple or "paper")."""
    paper = isinstance(mode, str)
    parts = _ik_parts(geom, P)
    reach = _check_reach(parts, P, errors, "inverse kinematics")
    bad = ~(reach[0] & reach[1] & reach[2]) | ~np.isfinite(P).all(-1)
    if paper:
        signs, ambiguous = _paper_rule_signs(parts)
        for k, nm in enumerate(("lx", "ly")):
            amb = ambiguous[..., k] & ~bad
            if errors == "raise" and np.any(amb):
                raise RuleAmbiguityError(
                    f"3-PRP inverse kinematics, paper's rules: slider {nm} has two positive roots (or none), the rule "
                    f"\"take the positive displacement\" does not decide: " + _describe(amb, x=P[..., 0], y=P[..., 1], z=P[..., 2]))
            bad |= amb
        mode = "paper's rules"
        lx, ly, theta = _ik_from_parts(parts, np.moveaxis(signs, -1, 0))
    else:
        lx, ly, theta = _ik_from_parts(parts, mode)
    if limits:
        lo, hi = geom.actuator_box.T
        for k, (nm, a) in enumerate((("lx", lx), ("ly", ly), ("theta", theta))):
            outside = ~bad & ((a < lo[k]) | (a > hi[k]))
            if errors == "raise" and np.any(outside):
                raise UnreachableError(
                    f"3-PRP inverse kinematics: in working mode {mode} the solution {nm} lies outside its actuator "
                    f"range [{lo[k]:g}, {hi[k]:g}]: " + _describe(outside, x=P[..., 0], y=P[..., 1], z=P[..., 2], **{nm: a})
                )
            bad |= outside
    lx, ly, theta = (np.where(bad, np.nan, a) for a in (lx, ly, theta))
    return lx, ly, theta


class IKSolutions(NamedTuple):
    """Every inverse-kinematics solution of a batch of points.

    ``modes`` ``(8, 3)`` sign triples; ``q`` ``(..., 8, 3)`` the inputs
    ``(lx, ly, theta)`` of each mode (NaN where not real); ``real`` ``(..., 8)``
    whether the solution exists; ``within_limits`` ``(..., 8)`` whether it
    also lies inside the actuator ranges.
    """

    modes: np.ndarray
    q: np.ndarray
    real: np.ndarray
    within_limits: np.ndarray


def inverse_all(geom: Geometry, points) -> IKSolutions:
    """All (up to 8) real inverse-kinematics solutions of ``points`` ``(..., 3)``.

    >>> sol = inverse_all(Geometry(), forward(Geometry(), 200.0, 200.0, 0.0))
    >>> int(sol.real.sum()), int(sol.within_limits.sum())
    (8, 4)
    """
    P = _as_points(points)
    return _inverse_all(geom, P)


def _inverse_all(geom: Geometry, P) -> IKSolutions:
    parts = _ik_parts(geom, P)
    q = np.stack([np.stack(_ik_from_parts(parts, m), -1) for m in ALL_MODES], -2)
    real = np.isfinite(q).all(-1)
    lo, hi = geom.actuator_box.T
    with np.errstate(invalid="ignore"):
        inside = real & np.all((q >= lo) & (q <= hi), axis=-1)
    return IKSolutions(np.array(ALL_MODES), q, real, inside)


def working_mode(geom: Geometry, lx, ly, theta, points=None) -> np.ndarray:
    """Working mode ``(sigma_1, sigma_2, sigma_3)`` of actuator inputs, shape ``(..., 3)`` int.

    ``points`` (the forward image, computed if not given) saves a FK call; its
    leading shape broadcasts with the inputs'. An input whose forward
    kinematics is not defined (unreachable or singular, actuator ranges aside)
    has no working mode: :class:`UnreachableError` / :class:`SingularityError`.

    >>> working_mode(Geometry(), 200.0, 200.0, 0.0).tolist()
    [-1, -1, 1]
    """
    lx, ly, theta = _as_inputs(lx, ly, theta)
    P = _forward(geom, lx, ly, theta, limits=False, what="working mode") if points is None else \
        _as_points(points, lead=lx.shape)
    return _working_mode(geom, lx, ly, theta, P)


def _working_mode(geom: Geometry, lx, ly, theta, P) -> np.ndarray:
    """:func:`working_mode` of checked inputs and their forward images ``P`` (NaN rows give -1 signs)."""
    parts = _ik_parts(geom, P)
    s12 = np.where(np.stack([lx, ly], -1) >= parts.b, 1, -1)
    s3 = np.where(_wrap(theta - parts.phi) >= 0, 1, -1)
    return np.concatenate([s12, s3[..., None]], -1)


def mode_distance(geom: Geometry, points, *, errors: str = "raise") -> np.ndarray:
    """Distance of each chain from its mode boundary, shape ``(..., 3)``.

    Sliders: ``sqrt(disc_k)`` in length units (how far the slider is from the
    point where its two IK roots meet); crank: ``acos(k3/rho)`` in radians.
    Where it is small the IK is ill-conditioned (inverse singularity). A point
    that a chain cannot reach has no distance for that chain: it raises
    :class:`UnreachableError` naming the chain, or gives NaN there with
    ``errors="mask"`` (which also accepts NaN rows).
    """
    _check_errors_arg(errors)
    P = _as_points(points, allow_nan=errors == "mask")
    parts = _ik_parts(geom, P)
    reach = _check_reach(parts, P, errors, "mode distance")
    with np.errstate(invalid="ignore"):
        crank = np.where(reach[2], np.arccos(np.clip(parts.ratio, -1, 1)), np.nan)
        return np.concatenate([np.sqrt(parts.disc), crank[..., None]], -1)


# --------------------------------------------------------------------------- paper's rules
#: A rule "picks the true root" when it lands within this of the input: times ``l2`` for a
#: slider (a length), in rad for the crank (:func:`paper_rule_outcome`).
RULE_MATCH_TOL = 1e-6


class RuleOutcome(NamedTuple):
    """Hit rates of the paper's IK rules over a sample (fractions in [0, 1])."""

    slider_hit: float        # both sliders: "take the positive displacement" picks the true root uniquely
    slider_ambiguous: float  # some slider has both roots (or neither) positive
    crank_hit: float         # "take the smaller angle" (smaller |theta|) picks the true root
    all_hit: float           # all three rules right on the same sample
    n: int


def paper_rule_outcome(geom: Geometry, lx, ly, theta) -> RuleOutcome:
    """How often the paper's rules recover the true inputs from ``J = FK(lx, ly, theta)``.

    Rule for each slider: of the two roots take the positive one (ambiguous
    when both or neither are positive). Rule for the crank: take the root of
    smaller magnitude. A rule is right when its root lies within
    :data:`RULE_MATCH_TOL` times ``l2`` of the slider input (in rad of the crank
    input). Unreachable samples are dropped; if every sample is unreachable there is no rate to
    give: :class:`UnreachableError`.
    """
    lx, ly, theta = _as_inputs(lx, ly, theta)
    P = _forward(geom, lx, ly, theta, errors="mask", limits=False)
    ok = np.isfinite(P).all(-1)
    if not ok.any():
        raise UnreachableError(f"3-PRP paper's rules: none of the {ok.size} inputs lx, ly, theta is reachable "
                               "(the forward kinematics is not defined), so there is no hit rate")
    lx, ly, theta, P = lx[ok], ly[ok], theta[ok], P[ok]
    parts = _ik_parts(geom, P)
    root = np.sqrt(np.maximum(parts.disc, 0.0))
    plus, minus = parts.b + root, parts.b - root
    true12 = np.stack([lx, ly], -1)
    unique = (plus > 0) ^ (minus > 0)
    pick = np.where(plus > 0, plus, minus)
    slider_right = unique & np.isclose(pick, true12, rtol=0, atol=RULE_MATCH_TOL * geom.l2)
    acos = np.arccos(np.clip(parts.ratio, -1, 1))
    t_plus, t_minus = _wrap(parts.phi + acos), _wrap(parts.phi - acos)
    t_pick = np.where(np.abs(t_plus) <= np.abs(t_minus), t_plus, t_minus)
    crank_right = np.abs(_wrap(t_pick - theta)) < RULE_MATCH_TOL
    sl = slider_right.all(-1)
    return RuleOutcome(
        slider_hit=float(sl.mean()),
        slider_ambiguous=float((~unique).any(-1).mean()),
        crank_hit=float(crank_right.mean()),
        all_hit=float((sl & crank_right).mean()),
        n=int(ok.sum()),
    )


# --------------------------------------------------------------------------- Jacobian
def closure_matrices(geom: Geometry, lx, ly, theta, points=None, *, errors: str = "raise"):
    """``A`` ``(..., 3, 3)`` and diagonal of ``Bq`` ``(..., 3)`` of ``A dJ = Bq dq``.

    Row k of ``A`` is ``(J + r v_k - C_k)^T``; ``Bq[k,k] = (J + r v_k - C_k) . dC_k/dq_k``.
    ``points`` (the forward image, computed if not given; leading shape broadcasting with the
    inputs'). An unreachable or singular input raises as in :func:`forward` (actuator ranges
    aside); with ``errors="mask"`` NaN inputs, NaN ``points`` rows and unreachable inputs give NaN.
    """
    _check_errors_arg(errors)
    mask = errors == "mask"
    lx, ly, theta = _as_inputs(lx, ly, theta, allow_nan=mask)
    P = None if points is None else _as_points(points, allow_nan=mask, lead=lx.shape)
    return _closure_matrices(geom, lx, ly, theta, P, errors=errors)


def _closure_matrices(geom: Geometry, lx, ly, theta, P=None, *, errors="mask", what="closure matrices"):
    if P is None:
        P = _forward(geom, lx, ly, theta, errors=errors, limits=False, what=what)
    C = _slider_points(geom, lx, ly, theta)
    A = P[..., None, :] + geom.r * V - C
    dC = np.stack(
        [np.broadcast_to(U1, C[..., 0, :].shape), np.broadcast_to(U2, C[..., 0, :].shape),
         np.stack([-geom.l1 * np.sin(theta), np.zeros_like(theta), geom.l1 * np.cos(theta)], -1)],
        -2,
    )
    return A, np.einsum("...kj,...kj->...k", A, dC)


def jacobian(geom: Geometry, lx, ly, theta, *, errors: str = "raise") -> np.ndarray:
    """Velocity Jacobian ``dJ/dq = A^-1 Bq``, shape ``(..., 3, 3)`` (columns lx, ly, theta).

    Raises :class:`SingularityError` at a forward singularity (``det A`` ~ 0),
    or gives NaN there with ``errors="mask"``.

    >>> jac = jacobian(Geometry(), 200.0, 200.0, 0.0)
    >>> jac.shape, np.round(jac[:, 2], 3) + 0.0   # dJ/dtheta at home, mm/rad
    ((3, 3), array([508.488,   0.   , 162.373]))
    """
    _check_errors_arg(errors)
    return _jacobian(geom, *_as_inputs(lx, ly, theta, allow_nan=errors == "mask"), errors=errors)


def _jacobian(geom: Geometry, lx, ly, theta, *, errors: str = "raise", A=None, bq=None) -> np.ndarray:
    """:func:`jacobian` of checked, broadcast inputs; ``A, bq`` their closure matrices if already computed."""
    if A is None:
        A, bq = _closure_matrices(geom, lx, ly, theta)
    det_n = _normalised_det(A)
    singular = ~(np.abs(det_n) > SINGULAR_TOL)
    if errors == "raise" and np.any(singular):
        raise SingularityError(
            "3-PRP jacobian: forward singularity (rod directions coplanar) or unreachable input: "
            + _describe(singular, lx=lx, ly=ly, theta=theta)
        )
    A = np.where(singular[..., None, None], np.eye(3), A)
    Jac = np.linalg.solve(A, bq[..., :, None] * np.eye(3))
    Jac[singular] = np.nan
    return Jac


def _normalised_det(A):
    n = np.linalg.norm(A, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.linalg.det(A / n[..., None])


class Singularity(NamedTuple):
    """Singularity measures of a batch of inputs (each of shape ``(...)``).

    ``forward``: ``|det|`` of the unit rod directions (0 at a parallel
    singularity, 1 when mutually perpendicular). ``inverse``: the smallest
    ``|cos|`` between a rod and its actuator's motion direction (0 at a mode
    boundary / serial singularity). ``condition``: 2-norm condition number of
    the Jacobian ``dJ/dq`` with ``theta`` scaled by ``l1`` (so all columns are lengths).
    """

    forward: np.ndarray
    inverse: np.ndarray
    condition: np.ndarray


def singularity_measures(geom: Geometry, lx, ly, theta) -> Singularity:
    """Forward / inverse singularity measures and Jacobian conditioning (NaN if unreachable).

    A map over the inputs (e.g. a grid over the actuator box): finite inputs ``lx, ly, theta``
    that broadcast together; where the forward kinematics is not defined the measures are NaN.
    """
    lx, ly, theta = _as_inputs(lx, ly, theta)
    A, bq = _closure_matrices(geom, lx, ly, theta)
    fwd = np.abs(_normalised_det(A))
    dq_norm = np.array([1.0, 1.0, geom.l1])
    inv = np.min(np.abs(bq) / (np.linalg.norm(A, axis=-1) * dq_norm), axis=-1)
    Jac = _jacobian(geom, lx, ly, theta, errors="mask", A=A, bq=bq)
    Js = Jac / dq_norm
    finite = np.isfinite(Js).all((-2, -1))
    cond = np.full(fwd.shape, np.nan)
    cond[finite] = np.linalg.cond(Js[finite])
    return Singularity(fwd, inv, cond)



__all__ = ["Geometry", "GEOMETRY_SCHEMA", "load_geometry", "DEFAULT_MODE", "ALL_MODES", "slider_points", "sphere_centres", "forward", "mirror_root", "inverse", "inverse_all", "IKSolutions", "working_mode", "mode_distance", "paper_rule_outcome", "RuleOutcome", "closure_matrices", "jacobian", "singularity_measures", "Singularity", "PAPER_RULES", "RuleAmbiguityError"]
