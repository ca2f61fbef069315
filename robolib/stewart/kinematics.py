"""Kinematics of the 6-UPS platform with the universal-joint constraint (numpy, batched).

Conventions of the Models page of the book: pose ``X = [x, y, z, roll, pitch, yaw]``
(m, rad), ``R = Rz(yaw) Ry(pitch) Rx(roll)``; twist ``V = [v, w]`` and
acceleration ``dV = [a, alpha]`` of the platform origin, base frame. Leg i:
``L_i = t + R p_i - b_i = l_i s_i``. U joint: fixed axis ``a_i``, leg axis
``c_i = normalize(s_i x a_i)``, forbidden direction ``n_i = a_i x c_i``; leg
frame ``[c_i, s_i x c_i, s_i]``. Every function broadcasts over a leading batch
shape ``(...)``: poses ``(..., 6)`` give leg quantities ``(..., 6)`` or ``(..., 6, 3)``.

>>> from robolib import stewart
>>> m = stewart.load("stewart/tsai2000.yaml")
>>> l = stewart.inverse_kinematics(m, m.home_pose)
>>> X = stewart.forward_kinematics(m, l, guess=m.home_pose + 0.05)
>>> float(np.abs(X - m.home_pose).max()) < 1e-12
True
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from robolib.core.checks import count, flag, real
from robolib.core.errors import ConvergenceError, ParameterError, SingularityError, UnreachableError
from robolib.core.rotations import cross, dot, rpy_matrix, rpy_rate_matrix
from robolib.stewart.model import StewartModel, _check_model

#: Leg length (m) below which a pose counts as degenerate.
MIN_LEG_LENGTH = 1e-9
#: ``|s_i . n_i| = |s_i x a_i|`` below which the leg lies along its U axis (U-joint singularity).
UJOINT_SINGULAR_TOL = 1e-9
#: Forward-kinematics Newton tolerance on the leg lengths (m) and iteration budget.
FK_TOL = 1e-12
FK_MAX_ITER = 50
#: Longest leg length forward_kinematics accepts, in units of the model's size (the largest joint radius plus
#: the home height): far beyond any actuator stroke, and well below where the Newton iteration would overflow.
FK_LENGTH_MAX_FACTOR = 1e6
#: Reciprocal condition number of J below which a pose counts as singular.
JACOBIAN_RCOND_TOL = 1e-12
#: Relative slack of the limit checks (rounding only: a leg exactly at a limit is allowed);
#: the compiled kernels use the same value.
LIMIT_TOL = 1e-12


_FLOAT = np.dtype(float)


def _what(x) -> str:
    text = repr(x)
    return text if len(text) <= 60 else text[:57] + "..."


def _not_state(name: str, n: int, got: str) -> ParameterError:
    return ParameterError(f"{name} must be finite real numbers of shape (..., {n}), {got}")


def as_state(x, name: str, n: int = 6) -> np.ndarray:
    """``x`` as a float array of shape ``(..., n)`` (any leading batch shape, not empty, finite).

    Text, ``None``, booleans, object or text arrays, an empty batch, NaN and infinity raise a
    ``ParameterError`` naming ``name`` and what it must be.

    >>> as_state([[0.0, 1.0]], "twist", 2).shape
    (1, 2)
    >>> as_state(np.zeros((0, 6)), "pose")
    Traceback (most recent call last):
        ...
    robolib.ParameterError: pose must be finite real numbers of shape (..., 6), not empty, got shape (0, 6)
    """
    if type(x) is np.ndarray:
        arr = x
    else:
        if x is None or isinstance(x, (str, bytes, bool, np.bool_)):
            raise _not_state(name, n, f"got {_what(x)} ({type(x).__name__})")
        try:
            arr = np.asarray(x)
        except (TypeError, ValueError) as exc:
            raise _not_state(name, n, f"got {_what(x)} ({exc})") from None
    if arr.dtype is not _FLOAT:
        if arr.dtype.kind not in "fiu":   # bool, complex, text and object arrays
            raise _not_state(name, n, f"got {_what(x)} (dtype {arr.dtype})")
        arr = arr.astype(float)
    if arr.ndim == 0 or arr.shape[-1] != n:
        raise ParameterError(f"{name} must have shape (..., {n}), got {arr.shape}")
    if arr.size == 0:
        raise _not_state(name, n, f"not empty, got shape {arr.shape}")
    # cheap test first: a sum of finite numbers is finite unless it overflows
    if not math.isfinite(arr.sum()) and not np.all(np.isfinite(arr)):
        bad = np.argwhere(~np.isfinite(arr))[0]
        where = int(bad[0]) if len(bad) == 1 else tuple(int(i) for i in bad)
        raise ParameterError(f"{name} must be finite, got {float(arr[tuple(bad)])} at index {where}")
    return arr


def as_flag(x, name: str) -> bool:
    """``x`` as a bool (``True``/``False``, numpy's too); ``ParameterError`` naming ``name`` otherwise.

    >>> as_flag(1, "spin")
    Traceback (most recent call last):
        ...
    robolib.ParameterError: spin must be True or False, got 1 (int)
    """
    return flag(name, x)


def batch_shape(**states) -> tuple:
    """The common shape ``(..., n)`` of state arrays that broadcast together; ``ParameterError`` naming them.

    >>> batch_shape(pose=np.zeros((2, 6)), twist=np.zeros((3, 6)))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    robolib.ParameterError: pose (2, 6), twist (3, 6) must broadcast over one batch shape (leading axes ...)
    """
    shapes = [a.shape for a in states.values()]
    if all(sh == shapes[0] for sh in shapes):
        return shapes[0]
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        got = ", ".join(f"{k} {a.shape}" for k, a in states.items())
        raise ParameterError(f"{got} must broadcast over one batch shape (leading axes of equal length or 1)") \
            from None


class LegGeometry(NamedTuple):
    """Pose-level leg quantities, shapes ``(..., 6)`` or ``(..., 6, 3)`` (m, unit vectors)."""

    R: np.ndarray        # (..., 3, 3) platform rotation
    r: np.ndarray        # (..., 6, 3) R p_i
    length: np.ndarray   # (..., 6) l_i
    s: np.ndarray        # (..., 6, 3) leg directions
    c: np.ndarray        # (..., 6, 3) U second axis (fixed in the leg)
    n: np.ndarray        # (..., 6, 3) forbidden rotation direction a_i x c_i


class LegMotion(NamedTuple):
    """Leg velocities/accelerations (base frame): ``dl, ddl`` (..., 6) m/s, m/s^2;
    ``omega, alpha`` (..., 6, 3) rad/s, rad/s^2; ``spin = omega . s`` (..., 6)."""

    dl: np.ndarray
    ddl: np.ndarray
    omega: np.ndarray
    alpha: np.ndarray
    spin: np.ndarray


def leg_geometry(model: StewartModel, pose, *, limits: bool = True) -> LegGeometry:
    """Leg lengths, directions and U-joint frame at ``pose`` (..., 6).

    Raises ``SingularityError`` for a zero-length leg or a leg along its U axis
    and, with ``limits`` (default), ``UnreachableError`` naming the leg, the
    quantity and the limit when a leg is outside the model's stroke or joint
    ranges (:func:`check_limits`).

    >>> from robolib import stewart
    >>> m = stewart.load("stewart/tsai2000.yaml")
    >>> g = leg_geometry(m, m.home_pose)
    >>> bool(np.allclose(dot(g.c, g.s), 0) and np.allclose(dot(g.c, m.ujoint_axes), 0))
    True
    """
    _check_model(model)
    return _geometry(model, as_state(pose, "pose"), as_flag(limits, "limits"))


def _geometry(model: StewartModel, pose: np.ndarray, limits: bool = True) -> LegGeometry:
    """:func:`leg_geometry` of a checked model and pose array (no input checks: called per Newton step)."""
    R = rpy_matrix(pose[..., 3:])
    r = np.matmul(model.platform_joints, np.swapaxes(R, -1, -2))
    L = pose[..., None, :3] + r - model.base_joints
    length = np.sqrt(dot(L, L))
    if np.any(length < MIN_LEG_LENGTH):
        raise SingularityError("pose gives a zero-length leg (S centre on the U centre)")
    s = L / length[..., None]
    sa = cross(s, model.ujoint_axes)
    sin_sa = np.sqrt(dot(sa, sa))
    if np.any(sin_sa < UJOINT_SINGULAR_TOL):
        raise SingularityError("pose puts a leg along its fixed U axis (U-joint singularity)")
    c = sa / sin_sa[..., None]
    n = cross(model.ujoint_axes, c)
    g = LegGeometry(R, r, length, s, c, n)
    if limits and model.limits is not None:
        _raise_violation(model, pose, g)
    return g


def _limit_values(model: StewartModel, g: LegGeometry):
    """Cosines of the U and S joint angles (..., 6) from the neutral directions ``s_i0``."""
    s0 = model.home_directions
    cos_u = dot(g.s, s0)
    cos_s = dot(g.s, np.matmul(s0, np.swapaxes(g.R, -1, -2)))
    return cos_u, cos_s


def _violations(model: StewartModel, g: LegGeometry):
    """Boolean arrays (..., 6): too short, too long, U angle too large, S angle too large."""
    lim = model.joint_limits
    cos_u, cos_s = _limit_values(model, g)
    short = g.length < lim["length_min"] * (1 - LIMIT_TOL)
    long_ = g.length > lim["length_max"] * (1 + LIMIT_TOL)
    uang = cos_u < np.cos(lim["ujoint_max_angle"]) - LIMIT_TOL
    sang = cos_s < np.cos(lim["sjoint_max_angle"]) - LIMIT_TOL
    return short, long_, uang, sang


def _raise_violation(model: StewartModel, pose, g: LegGeometry, what: str = "pose"):
    short, long_, uang, sang = _violations(model, g)
    bad = short | long_ | uang | sang
    if not bad.any():
        return
    k = np.unravel_index(int(np.flatnonzero(bad)[0]), bad.shape)
    *state, i = k
    state = tuple(int(j) for j in state)
    where = f"{what} {list(state) if len(state) > 1 else state[0]} of the batch" if state else what
    lim = model.joint_limits
    cos_u, cos_s = _limit_values(model, g)
    length = float(g.length[k])
    if short[k]:
        reason = f"length {length:.6g} m is below the stroke limit length_min = {lim['length_min']:g} m"
    elif long_[k]:
        reason = f"length {length:.6g} m is above the stroke limit length_max = {lim['length_max']:g} m"
    elif uang[k]:
        reason = (f"U-joint angle {np.degrees(np.arccos(np.clip(cos_u[k], -1, 1))):.4g} deg exceeds "
                  f"ujoint_max_angle = {np.degrees(lim['ujoint_max_angle']):.4g} deg")
    else:
        reason = (f"S-joint angle {np.degrees(np.arccos(np.clip(cos_s[k], -1, 1))):.4g} deg exceeds "
                  f"sjoint_max_angle = {np.degrees(lim['sjoint_max_angle']):.4g} deg")
    raise UnreachableError(f"{where} is unreachable: leg {i + 1} {reason}")


#: Codes of :func:`limit_codes` (the same numbers as the compiled kernels' status codes).
LIMIT_CODES = {0: "reachable", 4: "leg below length_min", 5: "leg above length_max",
               6: "U-joint angle beyond ujoint_max_angle", 7: "S-joint angle beyond sjoint_max_angle"}


def limit_codes(model: StewartModel, pose) -> np.ndarray:
    """Which limit a pose (..., 6) violates, as an int array (...): a key of :data:`LIMIT_CODES`.

    0 where every leg is inside its limits; otherwise the first violated kind in
    the order stroke (short, long), U-joint angle, S-joint angle, over all legs.
    For drawing reachable sets; :func:`check_limits` names the leg.

    >>> from robolib import stewart
    >>> m = stewart.load("stewart/tsai2000.yaml")
    >>> limit_codes(m, [m.home_pose, m.home_pose + [0, 0, 4.0, 0, 0, 0], m.home_pose + [0.8, 0, 0, 0, 0, 0]])
    array([0, 5, 4])
    """
    _check_model(model)
    g = _geometry(model, as_state(pose, "pose"), limits=False)
    out = np.zeros(g.length.shape[:-1], dtype=int)
    for code, bad in reversed(list(zip((4, 5, 6, 7), _violations(model, g)))):
        out = np.where(bad.any(axis=-1), code, out)
    return out


def check_limits(model: StewartModel, pose, *, mask: bool = False):
    """Check a pose (..., 6) against the stroke and joint-angle limits of ``model``.

    A leg may have ``length_min <= l_i <= length_max`` (m), a U-joint angle
    ``angle(s_i, s_i0) <= ujoint_max_angle`` and an S-joint angle
    ``angle(s_i, R s_i0) <= sjoint_max_angle`` (rad), with ``s_i0`` the leg
    direction at ``home_pose``; a leg exactly at a limit is allowed (slack
    :data:`LIMIT_TOL`, rounding only). Without ``mask``: return None, or raise
    ``UnreachableError`` naming the (first) state, leg, quantity and limit.
    With ``mask=True``: return a boolean array (...) that is True where the
    whole pose is reachable (no error for out-of-range poses).

    >>> from robolib import stewart
    >>> m = stewart.load("stewart/tsai2000.yaml")
    >>> far = m.home_pose + [0, 0, 4.0, 0, 0, 0]   # legs of about 4.7 m
    >>> check_limits(m, far)
    Traceback (most recent call last):
        ...
    robolib.UnreachableError: pose is unreachable: leg 1 length 4.73191 m is above the stroke limit length_max = 1.8 m
    >>> check_limits(m, [m.home_pose, far], mask=True)
    array([ True, False])
    """
    _check_model(model)
    pose = as_state(pose, "pose")
    mask = as_flag(mask, "mask")
    g = _geometry(model, pose, limits=False)
    if mask:
        short, long_, uang, sang = _violations(model, g)
        return ~(short | long_ | uang | sang).any(axis=-1)
    _raise_violation(model, pose, g)
    return None


def limit_interval(model: StewartModel, coordinate: int, pose=None, *, span: float = 10.0,
                   tol: float = 1e-9) -> tuple[float, float]:
    """How far one pose coordinate can move from ``pose`` (default: home) within the limits: ``(low, high)`` offsets.

    ``coordinate`` 0-5 is x, y, z (m) or roll, pitch, yaw (rad); the others stay at ``pose``. The interval is
    the one around ``pose`` in which :func:`check_limits` allows every pose: each end is the first refused
    offset of a scan in steps of ``span / 2000``, refined by bisection to ``tol`` (an end beyond ``+-span``
    is given as ``+-span``). A ``pose`` outside the limits raises ``UnreachableError``.

    >>> from robolib import stewart
    >>> m = stewart.load("stewart/tsai2000.yaml")
    >>> lo, hi = limit_interval(m, 2)                       # heave: legs at 0.8 m below, 1.8 m above
    >>> round(lo, 3), round(hi, 3)
    (-0.728, 0.817)
    >>> float(inverse_kinematics(m, m.home_pose + [0, 0, hi, 0, 0, 0]).max()).__round__(6)
    1.8
    """
    _check_model(model)
    pose = as_state(model.home_pose if pose is None else pose, "pose")
    if pose.shape != (6,):
        raise ParameterError(f"pose must be one pose of shape (6,), got shape {pose.shape}")
    if isinstance(coordinate, bool) or coordinate not in range(6):
        raise ParameterError(f"coordinate must be 0-5 (x, y, z, roll, pitch, yaw), got {coordinate!r}")
    span, tol = real("span", span, low=0.0, open_low=True), real("tol", tol, low=0.0, open_low=True)
    check_limits(model, pose)
    unit = np.eye(6)[coordinate]

    ends = []
    for sign in (-1.0, 1.0):
        d = sign * np.linspace(0.0, span, 2001)  # scan outward, then bisect the first step that leaves
        ok = check_limits(model, pose + d[:, None] * unit, mask=True)
        if ok.all():
            ends.append(d[-1])
            continue
        k = int(np.argmin(ok))
        a, b = d[k - 1], d[k]
        while abs(b - a) > tol:
            mid = 0.5 * (a + b)
            a, b = (mid, b) if check_limits(model, pose + mid * unit, mask=True) else (a, mid)
        ends.append(float(a))
    return ends[0], ends[1]


def leg_frames(model: StewartModel, pose) -> np.ndarray:
    """Leg rotation matrices ``[c_i, s_i x c_i, s_i]`` (columns), shape ``(..., 6, 3, 3)``.

    >>> from robolib import stewart
    >>> m = stewart.load("stewart/tsai2000.yaml")
    >>> F = leg_frames(m, m.home_pose)
    >>> bool(np.allclose(F @ np.swapaxes(F, -1, -2), np.eye(3)))
    True
    """
    g = leg_geometry(model, pose)
    return np.stack((g.c, cross(g.s, g.c), g.s), axis=-1)


def joint_points(model: StewartModel, pose):
    """U centres ``b_i`` and S centres ``P_i = b_i + l_i s_i`` (base frame, m): ``(6, 3)``, ``(..., 6, 3)``.

    For drawing the mechanism (legs are the segments ``b_i -> P_i``).

    >>> from robolib import stewart
    >>> m = stewart.load("stewart/tsai2000.yaml")
    >>> B, P = joint_points(m, m.home_pose)
    >>> bool(np.allclose(P[0], m.home_pose[:3] + m.platform_joints[0]))
    True
    """
    _check_model(model)
    pose = as_state(pose, "pose")
    g = _geometry(model, pose)
    return model.base_joints, pose[..., None, :3] + g.r


def inverse_kinematics(model: StewartModel, pose) -> np.ndarray:
    """Leg lengths ``l_i = |t + R p_i - b_i|`` (m), shape ``(..., 6)``.

    >>> from robolib import stewart
    >>> m = stewart.load("stewart/tsai2000.yaml")
    >>> inverse_kinematics(m, m.home_pose).round(4)
    array([1.2613, 1.2617, 1.2617, 1.2613, 1.2617, 1.2617])
    """
    return leg_geometry(model, pose).length


def jacobian(model: StewartModel, pose) -> np.ndarray:
    """Leg Jacobian ``J`` with ``dl = J V``: rows ``[s_i, (R p_i) x s_i]``, shape ``(..., 6, 6)``.

    >>> from robolib import stewart
    >>> m = stewart.load("stewart/tsai2000.yaml")
    >>> jacobian(m, m.home_pose).shape
    (6, 6)
    """
    g = leg_geometry(model, pose)
    return np.concatenate((g.s, cross(g.r, g.s)), axis=-1)


def leg_motion(model: StewartModel, pose, twist, accel=None, *, spin: bool = True) -> LegMotion:
    """Leg rates and angular motion (the patent's Eqs. 2-10).

    ``omega_i = s x v_P / l + sigma s`` with ``sigma = -(w_perp . n)/(s . n)``
    (U joint: ``omega . n = 0``); ``spin=False`` gives the classical no-spin
    legs (``sigma = 0``) of the virtual-work model. ``alpha_i`` follows from
    ``s x a_P`` plus the spin part fixed by ``alpha . n = -omega . dn/dt``.
    ``accel`` defaults to zero (then ``ddl, alpha`` are the velocity-product terms).

    >>> from robolib import stewart
    >>> m = stewart.load("stewart/tsai2000.yaml")
    >>> mo = leg_motion(m, m.home_pose, [0, 0, 0, 0, 0, 1.0])
    >>> bool(np.allclose(dot(mo.omega, leg_geometry(m, m.home_pose).n), 0))
    True
    """
    _check_model(model)
    pose, V = as_state(pose, "pose"), as_state(twist, "twist")
    spin = as_flag(spin, "spin")
    if accel is None:
        batch_shape(pose=pose, twist=V)
        dV = np.zeros_like(V)
    else:
        dV = as_state(accel, "accel")
        batch_shape(pose=pose, twist=V, accel=dV)
    return _motion(model, _geometry(model, pose), V, dV, spin)


def _motion(model: StewartModel, g: LegGeometry, V: np.ndarray, dV: np.ndarray, spin: bool) -> LegMotion:
    """:func:`leg_motion` from the leg geometry and checked twist, acceleration arrays (no input checks)."""
    v, w = V[..., None, :3], V[..., None, 3:]
    a, al = dV[..., None, :3], dV[..., None, 3:]
    l = g.length[..., None]
    vP = v + cross(w, g.r)
    dl = dot(g.s, vP)
    w_perp = cross(g.s, vP) / l
    sn = dot(g.s, g.n)
    sigma = -dot(w_perp, g.n) / sn if spin else np.zeros_like(dl)
    omega = w_perp + sigma[..., None] * g.s
    aP = a + cross(al, g.r) + cross(w, cross(w, g.r))
    ddl = dot(g.s, aP) + g.length * dot(w_perp, w_perp)
    ds = cross(omega, g.s)
    al_perp = (cross(g.s, aP) - 2 * dl[..., None] * cross(g.s, ds) - l * sigma[..., None] * cross(g.s, omega)) / l
    if spin:
        dn = cross(model.ujoint_axes, cross(omega, g.c))
        tau = (-dot(omega, dn) - dot(al_perp, g.n)) / sn
    else:
        tau = np.zeros_like(dl)
    alpha = al_perp + tau[..., None] * g.s
    return LegMotion(dl, ddl, omega, alpha, sigma)


def pose_rates(pose, twist) -> np.ndarray:
    """``dX/dt = [v, E(rpy)^-1 w]`` (Euler-angle rates at the edge), shape ``(..., 6)``.

    >>> pose_rates(np.zeros(6), np.arange(6.0))
    array([0., 1., 2., 3., 4., 5.])
    """
    pose, twist = as_state(pose, "pose"), as_state(twist, "twist")
    shape = batch_shape(pose=pose, twist=twist)
    pose, twist = np.broadcast_to(pose, shape), np.broadcast_to(twist, shape)
    E = rpy_rate_matrix(pose[..., 3:])
    if np.any(np.abs(np.cos(pose[..., 4])) < 1e-9):
        raise SingularityError("pose has pitch = +-90 deg: Euler-angle rates undefined")
    drpy = np.linalg.solve(E, twist[..., 3:, None])[..., 0]
    return np.concatenate((twist[..., :3], drpy), axis=-1)


def forward_kinematics(model: StewartModel, lengths, guess=None, *, tol: float = FK_TOL,
                       max_iter: int = FK_MAX_ITER) -> np.ndarray:
    """Pose with the given leg lengths (..., 6), by Newton on the leg-length residual.

    Starts at ``guess`` (default ``home_pose``); the Newton matrix is
    ``J(X) T(X)`` with ``T = diag(I, E(rpy))``. Raises ``ConvergenceError`` when
    the residual is not below ``tol`` (m) after ``max_iter`` steps or the
    Newton matrix turns singular on the way.

    >>> from robolib import stewart
    >>> m = stewart.load("stewart/tsai2000.yaml")
    >>> l = inverse_kinematics(m, m.home_pose + 0.1)
    >>> forward_kinematics(m, l, max_iter=2)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    robolib.ConvergenceError: forward_kinematics: Newton on the leg lengths did not converge in 2 iterations (max residual ... m > tol 1e-12 m); lengths may be unreachable or guess too far
    """
    _check_model(model)
    target = as_state(lengths, "lengths")
    if np.any(target <= 0):
        k = np.argwhere(target <= 0)[0]
        raise ParameterError(f"lengths must be positive (m), got {float(target[tuple(k)])} at index "
                             f"{int(k[0]) if len(k) == 1 else tuple(int(i) for i in k)}")
    size = float(np.max(np.linalg.norm(model.base_joints, axis=-1)) + np.max(np.linalg.norm(model.platform_joints,
                                                                                          axis=-1))
                 + abs(model.home_pose[2]))
    if np.any(target > FK_LENGTH_MAX_FACTOR * size):
        raise ParameterError(f"lengths must be at most {FK_LENGTH_MAX_FACTOR:g} times the model's size "
                             f"({FK_LENGTH_MAX_FACTOR * size:g} m), got max {float(np.max(target)):g} m")
    guess = model.home_pose if guess is None else as_state(guess, "guess")
    shape = batch_shape(lengths=target, guess=guess)
    target = np.broadcast_to(target, shape)
    tol = real("tol", tol, low=0.0, open_low=True, unit="m")
    max_iter = count("max_iter", max_iter)
    X = np.broadcast_to(guess, shape).copy()
    res = np.inf
    for _ in range(max_iter):
        try:
            g = _geometry(model, X, limits=False)
        except SingularityError as exc:
            raise ConvergenceError(f"forward_kinematics: Newton iterate became degenerate ({exc})") from None
        r = g.length - target
        res = np.abs(r).max()
        if res < tol:
            if model.limits is not None:
                _raise_violation(model, X, g, "forward_kinematics: solution")
            return X
        J = np.concatenate((g.s, cross(g.r, g.s)), axis=-1)
        T = np.zeros(X.shape[:-1] + (6, 6))
        T[..., :3, :3] = np.eye(3)
        T[..., 3:, 3:] = rpy_rate_matrix(X[..., 3:])
        A = J @ T
        if np.any(1.0 / np.linalg.cond(A) < JACOBIAN_RCOND_TOL):
            raise ConvergenceError("forward_kinematics: Newton on the leg lengths met a singular Jacobian "
                                   "(lengths unreachable or guess across a singularity)")
        X = X - np.linalg.solve(A, r[..., None])[..., 0]
        if not np.all(np.isfinite(X)):
            break
    raise ConvergenceError(
        f"forward_kinematics: Newton on the leg lengths did not converge in {max_iter} iterations "
        f"(max residual {res:.3g} m > tol {tol:g} m); lengths may be unreachable or guess too far")


__all__ = [
    "LegGeometry", "LegMotion", "leg_geometry", "leg_frames", "joint_points", "inverse_kinematics", "jacobian",
    "leg_motion", "pose_rates", "forward_kinematics", "as_state", "as_flag", "batch_shape", "check_limits",
    "limit_codes", "LIMIT_CODES", "LIMIT_TOL", "limit_interval",
]
