"""3-PRP workspace: uniform input samples, the workspace per working mode (Jacobian and voxel volumes), hit-or-miss volume, the large round trip and its error law."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from robolib.core import checks
from robolib.core.errors import ParameterError, UnreachableError
from robolib.prp3.kinematics import (  # noqa: F401
    ALL_MODES,
    DEFAULT_MODE,
    Geometry,
    _as_points,
    _check_mode,
    _forward,
    _ik_parts,
    _inverse,
    _jacobian,
    _working_mode,
    _wrap,
    forward,
    inverse,
    jacobian,
    singularity_measures,
    working_mode,
)


def _sample_count(n) -> int:
    """A sample count: an int >= 1 (not a bool, not a float)."""
    try:
        return checks.count("n", n)
    except ParameterError:
        raise ParameterError(f"sample count n must be a positive integer (an int >= 1), got {n!r:.60} "
                             f"({type(n).__name__})") from None


# --------------------------------------------------------------------------- workspace
def sample_inputs(geom: Geometry, n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``n`` actuator inputs drawn uniformly from the actuator box (seeded: ``seed`` an int >= 0)."""
    n = _sample_count(n)
    rng = np.random.default_rng(checks.seed("seed", seed))
    lo, hi = geom.actuator_box.T
    q = rng.uniform(lo, hi, size=(int(n), 3))
    return q[:, 0], q[:, 1], q[:, 2]


@dataclass
class Workspace:
    """Monte-Carlo reachable workspace of one working mode (or of all, ``mode=None``).

    ``points`` ``(m, 3)`` forward images of the sampled inputs in this mode;
    ``extents`` ``(3, 2)`` min/max of x, y, z; ``volume_voxels`` the volume of
    occupied voxels of edge ``voxel``; ``volume_jacobian`` and its standard
    error ``volume_jacobian_se``: the Monte-Carlo integral of ``|det dJ/dq|``
    over the inputs of this mode (exact in the limit, since FK restricted to
    one mode is one-to-one); ``fraction`` of the samples in this mode.
    """

    mode: tuple | None
    points: np.ndarray
    extents: np.ndarray
    volume_voxels: float
    voxel: float
    volume_jacobian: float
    volume_jacobian_se: float
    fraction: float


def voxel_volume(points: np.ndarray, voxel: float) -> float:
    """Volume of the voxels of edge ``voxel`` that contain at least one point.

    ``points`` ``(m, 3)`` finite (``m = 0`` gives 0), ``voxel`` > 0.

    >>> voxel_volume(np.array([[0.5, 0.5, 0.5], [0.6, 0.5, 0.5], [1.5, 0.5, 0.5]]), 1.0)
    2.0
    """
    voxel = checks.real("voxel", voxel, low=0.0, open_low=True)
    P = checks.real_array("points", points, shape=(None, 3), allow_empty=True)
    return _voxel_volume(P, voxel)


def _voxel_volume(points: np.ndarray, voxel: float) -> float:
    if len(points) == 0:
        return 0.0
    try:
        cube = voxel ** 3
    except OverflowError:
        cube = np.inf
    span = float(np.abs(points).max()) / voxel
    if not (span < 2.0 ** 62 and np.isfinite(cube)):
        raise ParameterError(f"voxel = {voxel!r} does not fit points of extent {float(np.abs(points).max()):g}: "
                             "more than 2**62 voxels per axis, or a voxel volume beyond the float range")
    idx = np.floor(points / voxel).astype(np.int64)
    return float(len(np.unique(idx, axis=0))) * cube


def workspace(geom: Geometry, n: int = 200_000, seed: int = 0, voxel: float = 20.0):
    """Workspace per working mode from ``n`` uniform actuator samples.

    Returns ``{mode: Workspace}`` for every mode present, plus key ``None``
    for the union of all modes (its ``volume_jacobian`` counts overlapping
    modes once each, so it is an upper bound of the union's volume). ``n`` an
    int >= 1, ``seed`` an int >= 0, ``voxel`` > 0 (length).
    """
    voxel = checks.real("voxel", voxel, low=0.0, open_low=True)
    lx, ly, theta = sample_inputs(geom, n, seed)
    P = _forward(geom, lx, ly, theta, errors="mask")
    ok = np.isfinite(P).all(-1)
    modes = _working_mode(geom, lx, ly, theta, P)
    with np.errstate(invalid="ignore"):
        detJ = np.abs(np.linalg.det(_jacobian(geom, lx, ly, theta, errors="mask")))
    detJ[~np.isfinite(detJ)] = 0.0
    box = float(np.prod(np.diff(geom.actuator_box, axis=1)))
    out = {}
    keys = [None] + [m for m in ALL_MODES]
    for m in keys:
        sel = ok if m is None else ok & np.all(modes == m, axis=-1)
        if not sel.any():
            continue
        pts = P[sel]
        g = np.where(sel, detJ, 0.0)
        out[m] = Workspace(
            mode=m,
            points=pts,
            extents=np.stack([pts.min(0), pts.max(0)], -1),
            volume_voxels=_voxel_volume(pts, voxel),
            voxel=voxel,
            volume_jacobian=box * float(g.mean()),
            volume_jacobian_se=box * float(g.std(ddof=1) / np.sqrt(len(g))),
            fraction=float(sel.mean()),
        )
    return out


@dataclass(frozen=True)
class WorkspaceSamples:
    """The reachable samples of a uniform draw of the actuator box, with what volume statistics need.

    ``inputs`` ``(m, 3)`` (lx, ly, theta) and ``points`` ``(m, 3)`` their forward images, for the ``m`` of the
    ``n`` drawn inputs that the robot reaches; ``mode`` ``(m, 3)`` their working modes; ``det`` ``(m,)``
    ``|det dJ/dq|``, the task-space volume each input stands for; ``condition`` ``(m,)`` the 2-norm condition
    number of ``dJ/dq`` (theta scaled by ``l1``, as :func:`singularity_measures`); ``box`` the volume of the
    actuator box (length^2 rad).
    """

    inputs: np.ndarray
    points: np.ndarray
    mode: np.ndarray
    det: np.ndarray
    condition: np.ndarray
    box: float
    n: int

    def _weights(self, mode) -> np.ndarray:
        return self.det * (self.mode == _check_mode(mode)).all(axis=-1)

    def _where(self, where) -> np.ndarray:
        w = np.ones(self.det.shape, dtype=bool) if where is None else np.asarray(where)
        if w.shape != self.det.shape or w.dtype != bool:
            raise ParameterError(f"where must be a boolean array with one entry per sample, shape {self.det.shape}, "
                                 f"got {w.dtype} of shape {w.shape}")
        return w

    def volume(self, mode=DEFAULT_MODE, where=None) -> tuple[float, float]:
        """Volume (length^3) of ``mode``'s workspace where ``where`` (bool ``(m,)``, default everywhere) holds,
        and its Monte-Carlo standard error (the estimate of :func:`workspace`)."""
        g = np.zeros(self.n)
        g[: self.det.size] = self._weights(mode) * self._where(where)
        return self.box * float(g.mean()), self.box * float(g.std(ddof=1) / np.sqrt(self.n))

    def share(self, where, mode=DEFAULT_MODE) -> tuple[float, float]:
        """Share of ``mode``'s workspace *volume* where ``where`` (bool ``(m,)``) holds, and its standard error
        (delta method of the ratio of two Monte-Carlo means).

        >>> ws = workspace_samples(Geometry(l1=150.0, l2=400.0), n=20_000, seed=1)
        >>> share, se = ws.share(ws.condition < 10, mode=(1, 1, 1))
        >>> 0.5 < share < 0.7 and se < 0.01
        True
        """
        w, x = self._weights(mode), self._where(where).astype(float)
        s = float(np.sum(w * x) / np.sum(w))
        return s, float(np.sqrt(np.sum((w * (x - s)) ** 2)) / np.sum(w))


def workspace_samples(geom: Geometry, n: int = 200_000, seed: int = 0) -> WorkspaceSamples:
    """The same uniform draw as :func:`workspace` (same ``n``, ``seed``), kept sample by sample.

    >>> ws = workspace_samples(Geometry(), n=10_000, seed=0)
    >>> ws.volume((-1, -1, 1))[0] == workspace(Geometry(), n=10_000, seed=0)[(-1, -1, 1)].volume_jacobian
    True
    """
    lx, ly, theta = sample_inputs(geom, n, seed)
    P = _forward(geom, lx, ly, theta, errors="mask")
    ok = np.isfinite(P).all(-1)
    lx, ly, theta, P = lx[ok], ly[ok], theta[ok], P[ok]
    with np.errstate(invalid="ignore"):
        det = np.abs(np.linalg.det(_jacobian(geom, lx, ly, theta, errors="mask")))
    det[~np.isfinite(det)] = 0.0
    return WorkspaceSamples(np.stack([lx, ly, theta], -1), P, _working_mode(geom, lx, ly, theta, P), det,
                            singularity_measures(geom, lx, ly, theta).condition,
                            float(np.prod(np.diff(geom.actuator_box, axis=1))), int(n))


def in_workspace(geom: Geometry, points, mode=DEFAULT_MODE, *, tol: float = 1e-6) -> np.ndarray:
    """Whether each point ``(..., 3)`` is the FK image of an in-range input of ``mode``.

    True where the IK of ``mode`` is real, inside the actuator ranges, and the
    forward kinematics of that input returns the point (it lies on the FK
    branch, below the plane of the sphere centres). ``points`` finite, ``mode``
    three signs (or ``"paper"``), ``tol`` >= 0 (times ``l2``).
    """
    tol = checks.real("tol", tol, low=0.0)
    mode = _check_mode(mode, paper=True)
    P = _as_points(points)
    q = np.stack(_inverse(geom, P, mode, errors="mask"), -1)
    back = _forward(geom, q[..., 0], q[..., 1], q[..., 2], errors="mask", limits=False)
    with np.errstate(invalid="ignore"):
        return np.linalg.norm(back - P, axis=-1) <= tol * geom.l2


#: Default bounds of :func:`volume_hit_or_miss`: the extents of a workspace of this many samples ...
HIT_OR_MISS_BOUND_SAMPLES = 100_000
#: ... padded on each side by this share of the extent.
HIT_OR_MISS_PAD = 0.05


def volume_hit_or_miss(geom: Geometry, mode=DEFAULT_MODE, n: int = 200_000, seed: int = 0, bounds=None):
    """Volume of one mode's workspace by hit-or-miss sampling in task space.

    Draws ``n`` points uniformly in ``bounds`` (``(3, 2)``; default: extents
    of a :data:`HIT_OR_MISS_BOUND_SAMPLES`-sample workspace padded by
    :data:`HIT_OR_MISS_PAD` of each extent) and counts those inside
    (:func:`in_workspace`). Independent of the Jacobian route of
    :func:`workspace`. Returns ``(volume, standard_error)``. ``mode`` three
    signs, ``n`` an int >= 1, ``seed`` an int >= 0, ``bounds`` finite
    ``(min, max)`` rows with min < max.
    """
    mode = _check_mode(mode)
    n = _sample_count(n)
    seed = checks.seed("seed", seed)
    if bounds is not None:
        bounds = checks.real_array("bounds", bounds, shape=(3, 2))
        with np.errstate(over="ignore"):
            width = bounds[:, 1] - bounds[:, 0]
            volume = np.prod(width)
        if not (np.all(width > 0) and np.all(np.isfinite(width)) and np.isfinite(volume)):
            raise ParameterError(f"bounds must be three (min, max) rows (x, y, z) with min < max and a finite box "
                                 f"volume, got {bounds.tolist()!r:.80}")
    else:
        ws = workspace(geom, n=HIT_OR_MISS_BOUND_SAMPLES, seed=seed + 1)
        if mode not in ws:
            raise UnreachableError(f"3-PRP hit-or-miss volume: no input of working mode {mode} among the "
                                   f"{HIT_OR_MISS_BOUND_SAMPLES:,} samples that bound its workspace; give bounds")
        ext = ws[mode].extents
        pad = HIT_OR_MISS_PAD * (ext[:, 1] - ext[:, 0])
        bounds = np.stack([ext[:, 0] - pad, ext[:, 1] + pad], -1)
    bounds = np.asarray(bounds, dtype=float)
    rng = np.random.default_rng(seed)
    pts = rng.uniform(bounds[:, 0], bounds[:, 1], size=(int(n), 3))
    hit = in_workspace(geom, pts, mode)
    box = float(np.prod(bounds[:, 1] - bounds[:, 0]))
    p = hit.mean()
    return box * p, box * np.sqrt(p * (1 - p) / n)


def mirror_y(points) -> np.ndarray:
    """Reflect points ``(..., 3)`` (finite) in the XZ plane (``y -> -y``); FK(ly, lx, theta) == mirror_y(FK(lx, ly, theta))."""
    P = np.array(_as_points(points), dtype=float)
    P[..., 1] *= -1.0
    return P




# --------------------------------------------------------------------------- round trip
class RoundTrip(NamedTuple):
    """Result of an IK∘FK round trip over sampled inputs (arrays of length ``m``).

    ``q`` ``(m, 3)`` the reachable sampled inputs; ``mode`` ``(m, 3)`` their
    working modes; ``error`` ``(m, 3)`` ``|IK(FK(q)) - q|`` per input (length,
    length, rad); ``distance`` ``(m, 3)`` distance of each chain from its mode
    boundary (:func:`mode_distance`); ``n_unreachable`` samples dropped.
    """

    q: np.ndarray
    mode: np.ndarray
    error: np.ndarray
    distance: np.ndarray
    n_unreachable: int
    points: np.ndarray | None = None


def round_trip(geom: Geometry, n: int, seed: int) -> RoundTrip:
    """FK then IK (in each sample's own working mode) of ``n`` uniform inputs.

    The points are forward images of real inputs, so every chain reaches them:
    a discriminant that rounding makes slightly negative (or a ``|k3/rho|``
    slightly above 1) is clipped to the boundary instead of giving NaN.
    ``points`` ``(m, 3)`` holds the forward images. ``n`` an int >= 1,
    ``seed`` an int >= 0.
    """
    lx, ly, theta = sample_inputs(geom, n, seed)
    P = _forward(geom, lx, ly, theta, errors="mask")
    ok = np.isfinite(P).all(-1)
    q = np.stack([lx, ly, theta], -1)[ok]
    P = P[ok]
    mode = _working_mode(geom, q[:, 0], q[:, 1], q[:, 2], P)
    parts = _ik_parts(geom, P)
    root = np.sqrt(np.maximum(parts.disc, 0.0))
    acos = np.arccos(np.clip(parts.ratio, -1.0, 1.0))
    back = np.stack(
        [parts.b[:, 0] + mode[:, 0] * root[:, 0], parts.b[:, 1] + mode[:, 1] * root[:, 1],
         _wrap(parts.phi + mode[:, 2] * acos)], -1)
    err = np.abs(back - q)
    err[:, 2] = np.abs(_wrap(back[:, 2] - q[:, 2]))
    dist = np.concatenate([root, acos[:, None]], -1)
    return RoundTrip(q, mode, err, dist, int((~ok).sum()), P)


class ErrorLaw(NamedTuple):
    """Power law ``error ~ distance**exponent`` fitted to a round trip's largest errors.

    ``centres`` (geometric bin centres), ``worst`` (largest error among
    ``draws`` samples drawn from the bin) and ``count`` (samples in the bin) of
    the bins used; ``raw_*`` the plain largest error of every non-empty bin
    (all its samples); ``exponent`` and ``log10_prefactor`` the least-squares
    line ``log10 worst = log10_prefactor + exponent * log10 centre``;
    ``raw_exponent`` the same fit to the plain maxima of the same bins;
    ``fit_range`` the smallest and largest centre used.
    """

    centres: np.ndarray
    worst: np.ndarray
    count: np.ndarray
    raw_centres: np.ndarray
    raw_worst: np.ndarray
    raw_count: np.ndarray
    exponent: float
    log10_prefactor: float
    raw_exponent: float
    fit_range: tuple[float, float]
    draws: int


def error_law(distance, error, *, draws: int = 20, bins: int = 40, lo: float = 1e-4, seed: int = 0) -> ErrorLaw:
    """Fit the exponent of the largest round-trip error against the distance from a mode boundary.

    ``distance`` and ``error`` are arrays of finite non-negative numbers of
    the same size (raveled; e.g. the slider columns of a :class:`RoundTrip`);
    ``draws`` and ``bins`` ints >= 1, ``lo`` > 0, ``seed`` an int >= 0. Samples
    below ``lo`` or with a zero error are left out. The distances from ``lo`` to the largest one are cut
    into ``bins`` logarithmic bins. The largest error of a bin grows with the
    number of samples it holds, and near a boundary the bins hold few samples
    (the count per bin grows like the distance): fitting the plain maxima
    would mix the law with that count. Each bin therefore contributes the
    largest error among ``draws`` of its samples drawn at random (seeded),
    the same number in every bin; bins with fewer samples are left out.

    >>> d = np.logspace(-3, 2, 20_000)
    >>> law = error_law(d, 1e-10 / d * np.random.default_rng(1).uniform(0.5, 1, d.size), draws=10)
    >>> round(law.exponent, 2)
    -1.0
    """
    d = checks.nonnegative("distance", distance, what="distance (from the mode boundary)").ravel()
    e = checks.nonnegative("error", error, what="error (round-trip error)").ravel()
    draws, bins = checks.count("draws", draws), checks.count("bins", bins)
    lo = checks.real("lo", lo, low=0.0, open_low=True)
    seed = checks.seed("seed", seed)
    if d.shape != e.shape:
        raise ParameterError(f"error_law: distance and error differ in shape, {d.shape} vs {e.shape}")
    keep = np.isfinite(d) & np.isfinite(e) & (d >= lo) & (e > 0)
    d, e = d[keep], e[keep]
    if len(d) < draws * 3:
        raise ParameterError(f"error_law: {len(d)} usable samples, need at least {3 * draws}")
    rng = np.random.default_rng(seed)
    edges = np.logspace(np.log10(lo), np.log10(d.max()) + 1e-12, bins + 1)
    idx = np.digitize(d, edges)
    cen, worst, cnt, rc, rw, rn = [], [], [], [], [], []
    for b in range(1, len(edges)):
        sel = np.flatnonzero(idx == b)
        if len(sel) == 0:
            continue
        c = float(np.sqrt(edges[b - 1] * edges[b]))
        rc.append(c); rw.append(float(e[sel].max())); rn.append(len(sel))
        if len(sel) >= draws:
            cen.append(c); worst.append(float(e[rng.choice(sel, draws, replace=False)].max())); cnt.append(len(sel))
    if len(cen) < 3:
        raise ParameterError(f"error_law: only {len(cen)} bins hold {draws} samples; need 3 (more samples or fewer draws)")
    cen, worst, cnt = np.array(cen), np.array(worst), np.array(cnt)
    p, a = np.polyfit(np.log10(cen), np.log10(worst), 1)
    rc, rw, rn = np.array(rc), np.array(rw), np.array(rn)
    used = rn >= draws
    p_raw = np.polyfit(np.log10(rc[used]), np.log10(rw[used]), 1)[0]
    return ErrorLaw(cen, worst, cnt, rc, rw, rn, float(p), float(a), float(p_raw), (float(cen[0]), float(cen[-1])), draws)



__all__ = ["sample_inputs", "workspace", "Workspace", "workspace_samples", "WorkspaceSamples", "voxel_volume", "mirror_y", "in_workspace", "volume_hit_or_miss", "RoundTrip", "round_trip", "ErrorLaw", "error_law"]
