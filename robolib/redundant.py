"""2-DOF redundantly actuated planar parallel robot with joint friction (seed 000).

The model restated on the Models page of the book (a reconstruction of the patent's formulas).
Three chains ``i = 1, 2, 3``: an actuated revolute joint on the base point
``A_i``, an active link, a passive revolute joint and a passive link, all of
length ``l``; the three passive links meet at the end-effector ``E = (x, y)``.
Horizontal plane (no gravity), SI units, angles in radians.

Coordinates (step 1, the chains cut from the base): ``q`` of shape (12,),
ordered ``(x_1, y_1, a_1, b_1, x_2, ..., b_3)`` — ``(x_i, y_i)`` the active
joint's position, ``a_i`` the active link's absolute angle, ``b_i`` the
passive joint angle relative to the active link. Each chain obeys
``M_i ddq_i + C_i dq_i = tau_i``; two constraint layers restore the mechanism:

* layer 1 (end-effector closure, 4 rows): ``E_1 - E_2 = 0``, ``E_1 - E_3 = 0``;
* layer 2 (active joints on the base, 6 rows): ``(x_i, y_i) - A_i = 0``.

The multipliers of layer 2 are the bearing reactions ``F_i`` of the base on
active link ``i`` (N), which load the Coulomb friction ``-mu R |F_i| sgn(w_i)``
of the active joints (``w_i = da_i``). The Udwadia–Kalaba routes live in
:mod:`robolib.constraints`; the friction laws in :mod:`robolib.friction`.

Redundancy: :func:`inverse_dynamics` returns the minimum-norm motor torques
plus a preload along the internal direction ``n``; :func:`actuation_jacobian`,
:func:`preload_direction` and :func:`minimum_norm_torques` give the same by the
task-space (projection) route in closed form. Friction studies:
:func:`calibrate_stribeck` (the Stribeck level of equal RMS friction torque),
:func:`operating_point` and :func:`friction_sweep` (the two laws compared at
one or many operating points), :func:`decoupling_error` and
:func:`decoupling_map` (decoupled against consistent Coulomb friction).

>>> robot = load("redundant/default.yaml")
>>> t = np.array([0.0])
>>> q, dq, ddq = reference_motion(robot, t)
>>> ddq_fd, F = forward_dynamics(robot, q[0], dq[0], inverse_dynamics(robot, q[0], dq[0], ddq[0]).tau)
>>> bool(np.allclose(ddq_fd, ddq[0], atol=1e-9)), F.shape
(True, (3, 2))
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from . import constraints as _con
from . import friction as _fr
from .errors import ConvergenceError, ParameterError, ParameterFileError, SingularityError, UnreachableError
from .params import load_yaml, number, vector

#: Friction models accepted by :func:`forward_dynamics`, :func:`inverse_dynamics`, :func:`simulate`.
FRICTION_MODELS = (None, "coulomb", "coulomb_consistent", "stribeck")
#: Routes to the accelerations in :func:`forward_dynamics` (all agree to ~1e-12).
METHODS = ("reduced", "multipliers", "kkt", "udwadia_kalaba", "sequential")
#: Default elbow branch per chain (sign of ``b_i``): a 120-degree-symmetric "pinwheel".
DEFAULT_ELBOWS = (1, 1, 1)
#: Reference circle: radius (m) and period (s); its centre is the base centroid.
CIRCLE_RADIUS = 0.05
CIRCLE_PERIOD = 2.0
#: Default Baumgarte gains (1/s) used by :func:`simulate` (critically damped constraint error).
BAUMGARTE = (20.0, 20.0)
#: Default fixed step (s) of the RK4 integrator of :func:`simulate`. With the default
#: ``smooth_eps = 0.01 rad/s`` the end point of a 1-s Stribeck run agrees with a tight adaptive
#: solution to ~5e-8 m; the friction stiffness grows like 1/smooth_eps, so for smaller eps use
#: ``integrator="adaptive"`` or a proportionally smaller step.
DT = 4e-3
#: Relative threshold on ``|sin b_i|`` below which a chain counts as stretched/folded (IK singular).
CHAIN_SINGULAR_TOL = 1e-9
#: Relative threshold on the eigenvalues of ``A M^-1 A^T`` below which the mechanism is singular.
SINGULAR_TOL = 1e-10
#: Constraint residual (m) above which a configuration counts as not assembled.
ASSEMBLY_TOL = 1e-6
#: Fixed-point tolerance (relative to the largest friction torque) and iteration budget of
#: the consistent Coulomb model.
COULOMB_TOL = 1e-12
COULOMB_MAX_ITER = 100
#: Bound (m) on the position-level constraint drift over a 10 s RK4 run with the default
#: step and Baumgarte gains (checked by the tests).
DRIFT_BOUND = 1e-8

_ACTIVE = np.array([2, 6, 10])  # indices of a_i in q
_PASSIVE = np.array([3, 7, 11])  # indices of b_i in q


# --------------------------------------------------------------------------- parameters
@dataclass(frozen=True, eq=False)
class Robot:
    """Parameters of the robot (SI units). Build with :func:`load` or directly.

    ``base`` (3, 2) active-joint points A_i (m); ``link_length`` l (m); link
    ``*_mass`` (kg), ``*_com`` distance of the CoM from the link's own joint
    along the link (m), ``*_inertia`` about the CoM (kg m^2);
    ``end_effector_mass`` point mass on chain 1's tip (kg); friction: ``mu``,
    ``journal_radius`` R (m), ``coulomb_torque`` T_c and ``static_torque`` T_s
    (N m), ``stribeck_velocity`` w_s (rad/s), ``viscous`` b_v (N m s/rad),
    ``smooth_eps`` the smooth-sign velocity (rad/s). Change one value with
    ``dataclasses.replace(robot, mu=0.2)`` (re-validated).
    """

    base: np.ndarray
    link_length: float
    active_mass: float
    active_com: float
    active_inertia: float
    passive_mass: float
    passive_com: float
    passive_inertia: float
    end_effector_mass: float
    mu: float
    journal_radius: float
    coulomb_torque: float
    static_torque: float
    stribeck_velocity: float
    viscous: float
    smooth_eps: float

    def __post_init__(self):
        base = np.array(self.base, dtype=float)
        if base.shape != (3, 2) or not np.all(np.isfinite(base)):
            raise ParameterError(f"base must be three finite [x, y] points (shape (3, 2)), got {self.base!r}")
        base.setflags(write=False)
        object.__setattr__(self, "base", base)
        positive = ("link_length", "active_mass", "passive_mass", "stribeck_velocity", "smooth_eps")
        nonneg = ("active_inertia", "passive_inertia", "end_effector_mass", "mu", "journal_radius",
                  "coulomb_torque", "static_torque", "viscous")
        for f in dataclasses.fields(self):
            if f.name == "base":
                continue
            v = getattr(self, f.name)
            if isinstance(v, bool) or not isinstance(v, (int, float, np.floating, np.integer)) or not math.isfinite(v):
                raise ParameterError(f"{f.name} must be a finite number, got {v!r}")
            if f.name in positive and v <= 0:
                raise ParameterError(f"{f.name} must be positive, got {v!r}")
            if f.name in nonneg and v < 0:
                raise ParameterError(f"{f.name} must be non-negative, got {v!r}")
            object.__setattr__(self, f.name, float(v))
        for name in ("active_com", "passive_com"):
            if not 0.0 <= getattr(self, name) <= self.link_length:
                raise ParameterError(f"{name} must lie on the link, in [0, link_length={self.link_length}], got {getattr(self, name)!r}")
        for i in range(3):
            for j in range(i + 1, 3):
                if np.linalg.norm(base[i] - base[j]) <= 0:
                    raise ParameterError(f"base points A_{i + 1} and A_{j + 1} coincide")
        # chain constants of the closed-form subsystem model (see subsystem_mass_matrix)
        l = self.link_length
        pts = [(self.active_mass, self.active_com, 0.0), (self.passive_mass, l, self.passive_com)]
        consts = []
        for i in range(3):
            p = pts + ([(self.end_effector_mass, l, l)] if i == 0 else [])
            mt = sum(m for m, _, _ in p)
            P = sum(m * da for m, da, _ in p)
            Qb = sum(m * db for m, _, db in p)
            K1 = sum(m * da * db for m, da, db in p)
            K2 = sum(m * db * db for m, _, db in p) + self.passive_inertia
            K0 = sum(m * (da * da + db * db) for m, da, db in p) + self.active_inertia + self.passive_inertia
            consts.append((mt, P, Qb, K0, K1, K2))
        object.__setattr__(self, "_k", np.array(consts).T.copy())  # (6, 3)
        object.__setattr__(self, "_kt", tuple(tuple(float(x) for x in c) for c in consts))
        object.__setattr__(self, "_base_list", base.tolist())

    @property
    def centroid(self) -> np.ndarray:
        """Centroid of the base triangle (m), shape (2,)."""
        return self.base.mean(axis=0)


_SCHEMA = {
    "base": vector(3, 2, unit="m"),
    "link_length": number(unit="m", positive=True),
    "active": {"mass": number(unit="kg", positive=True), "com": number(unit="m", nonnegative=True),
               "inertia": number(unit="kg m^2", nonnegative=True)},
    "passive": {"mass": number(unit="kg", positive=True), "com": number(unit="m", nonnegative=True),
                "inertia": number(unit="kg m^2", nonnegative=True)},
    "end_effector_mass": number(unit="kg", nonnegative=True),
    "friction": {
        "mu": number(nonnegative=True),
        "journal_radius": number(unit="m", nonnegative=True),
        "coulomb_torque": number(unit="N m", nonnegative=True),
        "static_torque": number(unit="N m", nonnegative=True),
        "stribeck_velocity": number(unit="rad/s", positive=True),
        "viscous": number(unit="N m s/rad", nonnegative=True),
        "smooth_eps": number(unit="rad/s", positive=True),
    },
}


def load(path="redundant/default.yaml") -> Robot:
    """Read a parameter file (relative paths also resolved in ``data/``) into a :class:`Robot`.

    >>> load("redundant/default.yaml").link_length
    0.25
    """
    p = load_yaml(path, _SCHEMA)
    f = p["friction"]
    try:
        return _robot_from(p, f)
    except ParameterFileError:
        raise
    except ParameterError as exc:
        raise ParameterFileError(f"{path}: {exc}") from None


def _robot_from(p: dict, f: dict) -> Robot:
    return Robot(
        base=p["base"], link_length=p["link_length"],
        active_mass=p["active"]["mass"], active_com=p["active"]["com"], active_inertia=p["active"]["inertia"],
        passive_mass=p["passive"]["mass"], passive_com=p["passive"]["com"], passive_inertia=p["passive"]["inertia"],
        end_effector_mass=p["end_effector_mass"],
        mu=f["mu"], journal_radius=f["journal_radius"], coulomb_torque=f["coulomb_torque"],
        static_torque=f["static_torque"], stribeck_velocity=f["stribeck_velocity"], viscous=f["viscous"],
        smooth_eps=f["smooth_eps"],
    )


# --------------------------------------------------------------------------- input checks
def _vec(name: str, x, n: int) -> np.ndarray:
    a = np.asarray(x, dtype=float)
    if a.shape != (n,):
        raise ParameterError(f"{name} must have shape ({n},), got {a.shape}")
    if not np.isfinite(a).all():
        raise ParameterError(f"{name} must be finite, got {a!r}")
    return a


def _batch(name: str, x, n: int) -> np.ndarray:
    a = np.asarray(x, dtype=float)
    if a.shape[-1:] != (n,):
        raise ParameterError(f"{name} must have a trailing axis of length {n}, got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ParameterError(f"{name} must be finite")
    return a


def _friction_name(friction):
    if friction not in FRICTION_MODELS:
        raise ParameterError(f"friction must be one of {list(FRICTION_MODELS)}, got {friction!r}")
    return friction


# --------------------------------------------------------------------------- subsystem models
def _trig(q):
    """cos/sin of a_i, a_i + b_i and b_i for q (..., 12): six arrays (..., 3)."""
    qq = q.reshape(q.shape[:-1] + (3, 4))
    a, b = qq[..., 2], qq[..., 3]
    return np.cos(a), np.sin(a), np.cos(a + b), np.sin(a + b), np.cos(b), np.sin(b)


def _mass_blocks(robot: Robot, q: np.ndarray) -> np.ndarray:
    """Subsystem mass matrices M_i stacked, shape (..., 3, 4, 4)."""
    mt, P, Qb, K0, K1, K2 = robot._k
    c1, s1, c12, s12, cb, _ = _trig(q)
    u = -P * s1 - Qb * s12
    v = P * c1 + Qb * c12
    u2 = -Qb * s12
    v2 = Qb * c12
    m33 = K0 + 2.0 * K1 * cb
    m34 = K2 + K1 * cb
    z = np.zeros_like(u)
    mt = mt + z
    k2 = K2 + z
    rows = [mt, z, u, u2, z, mt, v, v2, u, v, m33, m34, u2, v2, m34, k2]
    return np.moveaxis(np.array(rows), 0, -1).reshape(u.shape + (4, 4))


def _bias_blocks(robot: Robot, q: np.ndarray, dq: np.ndarray) -> np.ndarray:
    """Velocity-product forces C_i dq_i stacked, shape (..., 3, 4)."""
    _, P, Qb, _, K1, _ = robot._k
    c1, s1, c12, s12, _, sb = _trig(q)
    d = dq.reshape(dq.shape[:-1] + (3, 4))
    da, db = d[..., 2], d[..., 3]
    w2 = da + db
    hx = -P * c1 * da**2 - Qb * c12 * w2**2
    hy = -P * s1 * da**2 - Qb * s12 * w2**2
    ha = -K1 * sb * (2.0 * da * db + db**2)
    hb = K1 * sb * da**2
    return np.stack([hx, hy, ha, hb], axis=-1)


def subsystem_mass_matrix(robot: Robot, i: int, qi) -> np.ndarray:
    """Mass matrix ``M_i`` (4, 4) of the cut chain ``i`` (0, 1 or 2) at ``q_i = (x, y, a, b)``.

    Closed form: every point mass ``m`` at ``(x, y) + d_a e(a) + d_b e(a + b)``
    contributes ``m J^T J``; link inertias add ``I_a`` on ``a`` and ``I_b`` on
    ``a + b``. Units: kg (translational block), kg m (coupling), kg m^2 (angular).

    >>> robot = load()
    >>> M = subsystem_mass_matrix(robot, 1, [0.5, 0.0, 0.0, 0.0])
    >>> l = robot.link_length; J_straight = 0.5 * l**2 / 3 + 0.4 * l**2 / 12 + 0.4 * (1.5 * l)**2
    >>> float(M[0, 0]), bool(np.isclose(M[2, 2], J_straight))   # total mass; straight chain about its joint
    (0.9, True)
    """
    qi = _vec("qi", qi, 4)
    if i not in (0, 1, 2):
        raise ParameterError(f"chain index i must be 0, 1 or 2, got {i!r}")
    q = np.zeros(12)
    q[4 * i: 4 * i + 4] = qi
    return _mass_blocks(robot, q)[i]


def subsystem_coriolis_matrix(robot: Robot, i: int, qi, dqi) -> np.ndarray:
    """Coriolis matrix ``C_i`` (4, 4) of chain ``i`` from the Christoffel symbols.

    ``C_i = sum m J^T dJ/dt`` over the chain's point masses (the Christoffel
    form: ``dM_i/dt - 2 C_i`` is skew-symmetric); ``C_i dq_i`` is the
    velocity-product force.

    >>> robot = load()
    >>> C = subsystem_coriolis_matrix(robot, 0, [0, 0, 0.3, 0.5], [0, 0, 1.0, -0.5])
    >>> bool(np.allclose(C @ [0, 0, 1.0, -0.5], _bias_blocks(robot, np.r_[0, 0, 0.3, 0.5, np.zeros(8)], np.r_[0, 0, 1.0, -0.5, np.zeros(8)])[0]))
    True
    """
    qi = _vec("qi", qi, 4)
    dqi = _vec("dqi", dqi, 4)
    if i not in (0, 1, 2):
        raise ParameterError(f"chain index i must be 0, 1 or 2, got {i!r}")
    l = robot.link_length
    pts = [(robot.active_mass, robot.active_com, 0.0), (robot.passive_mass, l, robot.passive_com)]
    if i == 0:
        pts.append((robot.end_effector_mass, l, l))
    _, _, a, b = qi
    da, db = dqi[2], dqi[3]
    c1, s1, c12, s12 = np.cos(a), np.sin(a), np.cos(a + b), np.sin(a + b)
    C = np.zeros((4, 4))
    for m, d_a, d_b in pts:
        J = np.array([[1.0, 0.0, -d_a * s1 - d_b * s12, -d_b * s12], [0.0, 1.0, d_a * c1 + d_b * c12, d_b * c12]])
        w2 = da + db
        Jd = np.array([[0.0, 0.0, -d_a * c1 * da - d_b * c12 * w2, -d_b * c12 * w2],
                       [0.0, 0.0, -d_a * s1 * da - d_b * s12 * w2, -d_b * s12 * w2]])
        C += m * J.T @ Jd
    return C


_BLK_R, _BLK_C = np.nonzero(np.kron(np.eye(3), np.ones((4, 4))))


def mass_matrix(robot: Robot, q) -> np.ndarray:
    """Block-diagonal mass matrix ``M = diag(M_1, M_2, M_3)`` (12, 12) of the cut model.

    >>> M = mass_matrix(load(), reference_motion(load(), [0.0])[0][0])
    >>> bool(np.allclose(M, M.T)), bool(np.all(np.linalg.eigvalsh(M) > 0))
    (True, True)
    """
    q = _vec("q", q, 12)
    M = np.zeros((12, 12))
    M[_BLK_R, _BLK_C] = _mass_blocks(robot, q).ravel()
    return M


def bias_forces(robot: Robot, q, dq) -> np.ndarray:
    """Velocity-product forces ``C(q, dq) dq`` (12,) in N / N m.

    >>> dq = np.zeros(12); dq[2] = 2.0          # chain 1 spinning straight at 2 rad/s
    >>> h = bias_forces(load(), np.zeros(12), dq)
    >>> bool(np.isclose(h[0], -(0.5 * 0.125 + 0.4 * 0.375 + 0.2 * 0.5) * 4.0))   # centripetal: -sum(m d) w^2
    True
    """
    q = _vec("q", q, 12)
    dq = _vec("dq", dq, 12)
    return _bias_blocks(robot, q, dq).ravel()


def kinetic_energy(robot: Robot, q, dq) -> np.ndarray:
    """Kinetic energy ``1/2 dq^T M(q) dq`` (J); ``q``, ``dq`` of shape (..., 12) -> (...).

    >>> float(kinetic_energy(load(), np.zeros(12), np.r_[1.0, np.zeros(11)]))  # chain 1 translating at 1 m/s
    0.55
    """
    q = _batch("q", q, 12)
    dq = _batch("dq", dq, 12)
    Mb = _mass_blocks(robot, q)
    d = dq.reshape(dq.shape[:-1] + (3, 4))
    return 0.5 * np.einsum("...ij,...ijk,...ik->...", d, Mb, d)


# --------------------------------------------------------------------------- kinematics and constraints
def tips(robot: Robot, q) -> np.ndarray:
    """Tip positions ``E_i`` of the three chains (..., 3, 2) in m, for ``q`` (..., 12).

    >>> tips(load(), np.zeros(12))[0]
    array([0.5, 0. ])
    """
    q = _batch("q", q, 12)
    l = robot.link_length
    c1, s1, c12, s12, _, _ = _trig(q)
    qq = q.reshape(q.shape[:-1] + (3, 4))
    return np.stack([qq[..., 0] + l * (c1 + c12), qq[..., 1] + l * (s1 + s12)], axis=-1)


def end_effector(robot: Robot, q) -> np.ndarray:
    """End-effector position (chain 1's tip) (..., 2) in m.

    >>> end_effector(load(), np.zeros(12))
    array([0.5, 0. ])
    """
    return tips(robot, q)[..., 0, :]


_A2 = np.zeros((6, 12))
_A2[np.arange(6), [0, 1, 4, 5, 8, 9]] = 1.0
_QXY = np.array([0, 1, 4, 5, 8, 9])


def _constraints(robot: Robot, q: np.ndarray, dq: np.ndarray):
    """Both layers: ``phi (..., 10), dphi (..., 10), A (..., 10, 12), b (..., 10)``.

    Rows: layer 1 (``E_1 - E_2``, ``E_1 - E_3``) then layer 2 (``(x_i, y_i) - A_i``);
    ``b = -dA/dt dq`` (no Baumgarte terms). ``q``, ``dq`` of shape (..., 12).
    """
    l = robot.link_length
    c1, s1, c12, s12, _, _ = _trig(q)
    lead = q.shape[:-1]
    qq = q.reshape(lead + (3, 4))
    d = dq.reshape(lead + (3, 4))
    da, w2 = d[..., 2], d[..., 2] + d[..., 3]
    E = np.stack([qq[..., 0] + l * (c1 + c12), qq[..., 1] + l * (s1 + s12)], axis=-1)  # (..., 3, 2)
    J = np.zeros(lead + (3, 2, 4))
    J[..., 0, 0] = 1.0
    J[..., 1, 1] = 1.0
    J[..., 0, 2] = -l * (s1 + s12)
    J[..., 0, 3] = -l * s12
    J[..., 1, 2] = l * (c1 + c12)
    J[..., 1, 3] = l * c12
    g = np.stack([-l * (c1 * da**2 + c12 * w2**2), -l * (s1 * da**2 + s12 * w2**2)], axis=-1)  # dJ/dt dq
    dE = np.einsum("...cij,...cj->...ci", J, d)
    A = np.zeros(lead + (10, 12))
    A[..., 0:2, 0:4] = J[..., 0, :, :]
    A[..., 0:2, 4:8] = -J[..., 1, :, :]
    A[..., 2:4, 0:4] = J[..., 0, :, :]
    A[..., 2:4, 8:12] = -J[..., 2, :, :]
    A[..., 4:, :] = _A2
    phi = np.concatenate([E[..., 0, :] - E[..., 1, :], E[..., 0, :] - E[..., 2, :],
                          (qq[..., :2] - robot.base).reshape(lead + (6,))], axis=-1)
    dphi = np.concatenate([dE[..., 0, :] - dE[..., 1, :], dE[..., 0, :] - dE[..., 2, :], dq[..., _QXY]], axis=-1)
    b = np.concatenate([-(g[..., 0, :] - g[..., 1, :]), -(g[..., 0, :] - g[..., 2, :]), np.zeros(lead + (6,))], axis=-1)
    return phi, dphi, A, b


def closure_constraints(robot: Robot, q, dq):
    """Layer 1, the end-effector closure: ``(phi (4,), dphi (4,), A1 (4, 12), b1 (4,))``.

    ``phi = [E_1 - E_2; E_1 - E_3]`` (m) and its second-order form ``A1 ddq = b1``.

    >>> phi, dphi, A1, b1 = closure_constraints(load(), *reference_motion(load(), [0.0])[:2])
    >>> bool(np.abs(phi).max() < 1e-12), A1.shape
    (True, (4, 12))
    """
    q = _batch("q", q, 12).reshape(12)
    dq = _batch("dq", dq, 12).reshape(12)
    phi, dphi, A, b = _constraints(robot, q, dq)
    return phi[:4], dphi[:4], A[:4], b[:4]


def base_constraints(robot: Robot, q, dq):
    """Layer 2, active joints on the base: ``(phi (6,), dphi (6,), A2 (6, 12), b2 (6,))``.

    >>> phi, dphi, A2, b2 = base_constraints(load(), *reference_motion(load(), [0.0])[:2])
    >>> bool(np.abs(phi).max() < 1e-12), bool(np.all(b2 == 0))
    (True, True)
    """
    q = _batch("q", q, 12).reshape(12)
    dq = _batch("dq", dq, 12).reshape(12)
    phi, dphi, A, b = _constraints(robot, q, dq)
    return phi[4:], dphi[4:], A[4:], b[4:]


def constraint_residual(robot: Robot, q, dq=None) -> tuple[float, float]:
    """``(max |phi|, max |dphi|)`` over both layers (m, m/s): how far (q, dq) is from assembled.

    >>> constraint_residual(load(), *reference_motion(load(), [0.0])[:2]) < (1e-12, 1e-12)
    True
    """
    q = _vec("q", np.reshape(q, -1), 12)
    dq = np.zeros(12) if dq is None else _vec("dq", np.reshape(dq, -1), 12)
    phi, dphi, _, _ = _constraints(robot, q, dq)
    return float(np.abs(phi).max()), float(np.abs(dphi).max())


# --------------------------------------------------------------------------- forward dynamics
class Dynamics(NamedTuple):
    """Result of :func:`solve_dynamics`."""

    ddq: np.ndarray  #: (12,) accelerations
    reactions: np.ndarray  #: (3, 2) force of the base on each active link (N), final solve
    friction_torque: np.ndarray  #: (3,) friction torque on each active joint (N m)
    multipliers: np.ndarray  #: (10,) lambda: layer-1 rows (N), then layer-2 rows (= reactions)


def _friction_torque_free(robot: Robot, w, friction):
    if friction == "stribeck":
        return _fr.stribeck(w, robot.coulomb_torque, robot.static_torque, robot.stribeck_velocity,
                            robot.viscous, robot.smooth_eps)
    return np.zeros(3)


def _coulomb(robot: Robot, w, lam0, G, consistent: bool):
    """Coulomb torque from the reactions ``lam(tau_f) = lam0 - G tau_f`` (decoupled: one pass)."""
    muR = robot.mu * robot.journal_radius
    sg = _fr.smooth_sign(w, robot.smooth_eps)

    def law(lam):
        F = lam[4:].reshape(3, 2)
        return -muR * np.hypot(F[:, 0], F[:, 1]) * sg

    tf = law(lam0)
    if not consistent:
        return tf
    for _ in range(COULOMB_MAX_ITER):
        new = law(lam0 - G @ tf)
        if np.abs(new - tf).max() <= COULOMB_TOL * np.abs(new).max() + 1e-300:
            return new
        tf = new
    raise ConvergenceError(
        f"consistent Coulomb friction did not converge in {COULOMB_MAX_ITER} iterations "
        f"(mu * journal_radius = {muR:.3g} m too large for a contraction?)"
    )


def _solve_reduced(robot: Robot, q, dq, tau, friction, alpha, beta) -> Dynamics:
    """Forward dynamics by block elimination of the 12-coordinate multiplier system (see :func:`_core`)."""
    ddq, F, tf, m = _core(robot, q.tolist(), dq.tolist(), np.asarray(tau, dtype=float).tolist(), friction, alpha, beta)
    (F0x, F0y), (F1x, F1y), (F2x, F2y) = F
    lam = np.array([m[0], m[1], m[2], m[3], F0x, F0y, F1x, F1y, F2x, F2y])
    return Dynamics(np.array(ddq), lam[4:].reshape(3, 2), np.array(tf), lam)


def _reaction_sensitivity(ch, Ai, Si, W):
    """``H[i][j] = dF_i / dtau_j`` (pairs (x, y)): bearing reaction i per unit torque at active joint j.

    Same elimination as ``solution`` in :func:`_core` without the constant terms: a unit
    torque at joint j moves tip j's free acceleration by ``s_j = J_j D_j^-1 e_a``; the
    closure forces ``f`` follow from the 4x4 system and ``dF_i = (C_i D_i^-1 J_i^T - I) f_i
    + delta_ij C_i D_i^-1 e_a``.
    """
    w11, w12, w21, w22 = W
    P, qv, sv = [], [], []
    for c in ch:
        mt, u, v, u2, v2, hx, hy, ddx, ddy, i11, i12, i22, j11, j12, j21, j22 = c[:16]
        # C D^-1 (2x2), C = [[u, u2], [v, v2]]
        cd11, cd12 = u * i11 + u2 * i12, u * i12 + u2 * i22
        cd21, cd22 = v * i11 + v2 * i12, v * i12 + v2 * i22
        # C D^-1 J^T - I, J^T = [[j11, j21], [j12, j22]]
        P.append((cd11 * j11 + cd12 * j12 - 1.0, cd11 * j21 + cd12 * j22,
                  cd21 * j11 + cd22 * j12, cd21 * j21 + cd22 * j22 - 1.0))
        qv.append((cd11, cd21))
        sv.append((c[18], c[19]))
    cols = []
    for j, (r1x, r1y, r2x, r2y) in enumerate((
            (-sv[0][0], -sv[0][1], -sv[0][0], -sv[0][1]), (sv[1][0], sv[1][1], 0.0, 0.0),
            (0.0, 0.0, sv[2][0], sv[2][1]))):
        zx = r2x - (w11 * r1x + w21 * r1y)
        zy = r2y - (w12 * r1x + w22 * r1y)
        m2x, m2y = Si[0] * zx + Si[1] * zy, Si[1] * zx + Si[2] * zy
        m1x = Ai[0] * r1x + Ai[1] * r1y - (w11 * m2x + w12 * m2y)
        m1y = Ai[1] * r1x + Ai[2] * r1y - (w21 * m2x + w22 * m2y)
        col = []
        for i, (fx, fy) in enumerate(((m1x + m2x, m1y + m2y), (-m1x, -m1y), (-m2x, -m2y))):
            p11, p12, p21, p22 = P[i]
            dx, dy = p11 * fx + p12 * fy, p21 * fx + p22 * fy
            if i == j:
                dx, dy = dx + qv[i][0], dy + qv[i][1]
            col.append((dx, dy))
        cols.append(col)
    return [[cols[j][i] for j in range(3)] for i in range(3)]


def _core(robot: Robot, qs, ds, ts, friction, alpha, beta, tf_guess=None):
    """Forward dynamics by block elimination of the 12-coordinate multiplier system.

    Layer 2 fixes ``ddx_i, ddy_i`` (zero, or the Baumgarte terms); eliminating
    them and the angles leaves the 4x4 system of the closure multipliers
    ``(mu_1, mu_2)`` (the layer-1 lambda), ``[[G1+G2, G1], [G1, G1+G3]] mu = rhs``
    with ``G_i = J_i D_i^-1 J_i^T`` the tip mobility of chain i; the layer-2
    multipliers (bearing reactions) follow from the chains' x/y rows:
    ``F_i = mt_i ddp_i + C_i ddtheta_i + h_p,i - f_i`` (``f_i`` the closure force on
    tip i). Exactly the solution of :func:`_solve`, in scalar arithmetic (fast).
    """
    l = robot.link_length
    base = robot._base_list
    a2 = 2.0 * alpha
    b2 = beta * beta
    ch = []  # per-chain tuples
    for i in range(3):
        mt, P, Qb, K0, K1, K2 = robot._kt[i]
        x, y, a, b = qs[4 * i: 4 * i + 4]
        dx, dy, da, db = ds[4 * i: 4 * i + 4]
        c1, s1 = math.cos(a), math.sin(a)
        c12, s12 = math.cos(a + b), math.sin(a + b)
        cb, sb = math.cos(b), math.sin(b)
        u, v = -P * s1 - Qb * s12, P * c1 + Qb * c12
        u2, v2 = -Qb * s12, Qb * c12
        m33, m34 = K0 + 2.0 * K1 * cb, K2 + K1 * cb
        w2 = da + db
        hx = -P * c1 * da * da - Qb * c12 * w2 * w2
        hy = -P * s1 * da * da - Qb * s12 * w2 * w2
        ha = -K1 * sb * (2.0 * da * db + db * db)
        hb = K1 * sb * da * da
        ddx = -a2 * dx - b2 * (x - base[i][0])
        ddy = -a2 * dy - b2 * (y - base[i][1])
        det = m33 * K2 - m34 * m34
        i11, i12, i22 = K2 / det, -m34 / det, m33 / det
        j11, j12 = -l * (s1 + s12), -l * s12
        j21, j22 = l * (c1 + c12), l * c12
        ra0 = ts[i] - ha - (u * ddx + v * ddy)
        rb0 = -hb - (u2 * ddx + v2 * ddy)
        # J D^-1 (2x2)
        p11, p12 = j11 * i11 + j12 * i12, j11 * i12 + j12 * i22
        p21, p22 = j21 * i11 + j22 * i12, j21 * i12 + j22 * i22
        G = (p11 * j11 + p12 * j12, p11 * j21 + p12 * j22, p21 * j21 + p22 * j22)  # Gxx, Gxy, Gyy
        E = (x + l * (c1 + c12), y + l * (s1 + s12))
        dE = (dx + j11 * da + j12 * db, dy + j21 * da + j22 * db)
        gx = -l * (c1 * da * da + c12 * w2 * w2)
        gy = -l * (s1 * da * da + s12 * w2 * w2)
        ex = ddx + gx + p11 * ra0 + p12 * rb0  # free tip acceleration (no closure force, no friction)
        ey = ddy + gy + p21 * ra0 + p22 * rb0
        ch.append((mt, u, v, u2, v2, hx, hy, ddx, ddy, i11, i12, i22, j11, j12, j21, j22, ra0, rb0,
                   p11, p21, G, E, dE, ex, ey, da))
    # closure system [[A, G1], [G1, C]] (mu1; mu2) = (r1; r2), A = G1 + G2, C = G1 + G3,
    # solved by 2x2 block elimination: Sc = C - G1 A^-1 G1 (all 2x2 symmetric: (xx, xy, yy))
    G1, G2, G3 = ch[0][20], ch[1][20], ch[2][20]
    A = (G1[0] + G2[0], G1[1] + G2[1], G1[2] + G2[2])
    C = (G1[0] + G3[0], G1[1] + G3[1], G1[2] + G3[2])
    detA = A[0] * A[2] - A[1] * A[1]
    scale = max(A[0], A[2], C[0], C[2])
    ok = detA > 1e-8 * scale * scale
    if ok:
        Ai = (A[2] / detA, -A[1] / detA, A[0] / detA)
        # W = A^-1 G1 (general 2x2: w11 w12 / w21 w22)
        w11, w12 = Ai[0] * G1[0] + Ai[1] * G1[1], Ai[0] * G1[1] + Ai[1] * G1[2]
        w21, w22 = Ai[1] * G1[0] + Ai[2] * G1[1], Ai[1] * G1[1] + Ai[2] * G1[2]
        Sc = (C[0] - (G1[0] * w11 + G1[1] * w21), C[1] - (G1[0] * w12 + G1[1] * w22), C[2] - (G1[1] * w12 + G1[2] * w22))
        detS = Sc[0] * Sc[2] - Sc[1] * Sc[1]
        ok = detS > 1e-6 * scale * scale and detA * detS > 1e-6 * scale**4
    if not ok:
        Kq = np.array([[A[0], A[1], G1[0], G1[1]], [A[1], A[2], G1[1], G1[2]],
                       [G1[0], G1[1], C[0], C[1]], [G1[1], G1[2], C[1], C[2]]])
        if not np.all(np.isfinite(Kq)):  # only reachable from a diverged integration (inputs are checked)
            raise ConvergenceError("the state is no longer finite: the integration diverged (try Baumgarte "
                                   "stabilisation or a smaller step)")
        w = np.linalg.eigvalsh(Kq)
        if w[0] <= SINGULAR_TOL * w[-1] or detA <= 0:
            raise SingularityError(
                f"configuration q is singular: the constraint matrix of both layers is rank deficient "
                f"(eigenvalue ratio of the closure Schur complement = {w[0] / w[-1]:.2e} < {SINGULAR_TOL:g}); "
                "the bearing reactions are not determined"
            )
        if not (detA > 0):  # pragma: no cover
            raise SingularityError("configuration q is singular")
        Ai = (A[2] / detA, -A[1] / detA, A[0] / detA)
        w11, w12 = Ai[0] * G1[0] + Ai[1] * G1[1], Ai[0] * G1[1] + Ai[1] * G1[2]
        w21, w22 = Ai[1] * G1[0] + Ai[2] * G1[1], Ai[1] * G1[1] + Ai[2] * G1[2]
        Sc = (C[0] - (G1[0] * w11 + G1[1] * w21), C[1] - (G1[0] * w12 + G1[1] * w22), C[2] - (G1[1] * w12 + G1[2] * w22))
        detS = Sc[0] * Sc[2] - Sc[1] * Sc[1]
    Si = (Sc[2] / detS, -Sc[1] / detS, Sc[0] / detS)
    (E1, dE1), (E2, dE2), (E3, dE3) = [(c[21], c[22]) for c in ch]
    k1x = -a2 * (dE1[0] - dE2[0]) - b2 * (E1[0] - E2[0])
    k1y = -a2 * (dE1[1] - dE2[1]) - b2 * (E1[1] - E2[1])
    k2x = -a2 * (dE1[0] - dE3[0]) - b2 * (E1[0] - E3[0])
    k2y = -a2 * (dE1[1] - dE3[1]) - b2 * (E1[1] - E3[1])
    c0, c1_, c2 = ch

    def solution(tf, full=True):
        t0, t1, t2 = tf
        # free tip accelerations with friction tf on the active joints
        e0x, e0y = c0[23] + c0[18] * t0, c0[24] + c0[19] * t0
        e1x, e1y = c1_[23] + c1_[18] * t1, c1_[24] + c1_[19] * t1
        e2x, e2y = c2[23] + c2[18] * t2, c2[24] + c2[19] * t2
        r1x, r1y = k1x - e0x + e1x, k1y - e0y + e1y
        r2x, r2y = k2x - e0x + e2x, k2y - e0y + e2y
        # mu2 = Sc^-1 (r2 - W^T r1), mu1 = A^-1 r1 - W mu2
        zx = r2x - (w11 * r1x + w21 * r1y)
        zy = r2y - (w12 * r1x + w22 * r1y)
        m2x, m2y = Si[0] * zx + Si[1] * zy, Si[1] * zx + Si[2] * zy
        m1x = Ai[0] * r1x + Ai[1] * r1y - (w11 * m2x + w12 * m2y)
        m1y = Ai[1] * r1x + Ai[2] * r1y - (w21 * m2x + w22 * m2y)
        m = (m1x, m1y, m2x, m2y)
        ddq = []
        F = []
        for c, t, fx, fy in ((c0, t0, m1x + m2x, m1y + m2y), (c1_, t1, -m1x, -m1y), (c2, t2, -m2x, -m2y)):
            mt, u, v, u2, v2, hx, hy, ddx, ddy, i11, i12, i22, j11, j12, j21, j22, ra0, rb0 = c[:18]
            ra = ra0 + t + j11 * fx + j21 * fy
            rb = rb0 + j12 * fx + j22 * fy
            dda = i11 * ra + i12 * rb
            ddb = i12 * ra + i22 * rb
            if full:
                ddq += [ddx, ddy, dda, ddb]
            F.append((mt * ddx + u * dda + u2 * ddb + hx - fx, mt * ddy + v * dda + v2 * ddb + hy - fy))
        return ddq, F, m

    tf = [0.0, 0.0, 0.0]
    eps = robot.smooth_eps
    if friction == "stribeck":
        Tc, Ts, ws, bv = robot.coulomb_torque, robot.static_torque, robot.stribeck_velocity, robot.viscous
        tf = [-(Tc + (Ts - Tc) * math.exp(-(c[25] / ws) ** 2)) * math.tanh(c[25] / eps) - bv * c[25] for c in ch]
    if friction == "coulomb":  # decoupled: loads from the friction-free solve, one pass
        muR = robot.mu * robot.journal_radius
        _, F, _ = solution(tf, full=False)
        tf = [-muR * math.hypot(*Fi) * math.tanh(c[25] / eps) for Fi, c in zip(F, ch)]
    elif friction == "coulomb_consistent":  # fixed point tf = law(F(tf)); F is affine in tf
        muR = robot.mu * robot.journal_radius
        sg = [math.tanh(c[25] / eps) for c in ch]
        _, F0, _ = solution((0.0, 0.0, 0.0), full=False)
        H = _reaction_sensitivity(ch, Ai, Si, (w11, w12, w21, w22))  # H[i][j] = dF_i / dtf_j
        (a0x, a0y), (a1x, a1y), (a2x, a2y) = F0
        ((h00x, h00y), (h01x, h01y), (h02x, h02y)), ((h10x, h10y), (h11x, h11y), (h12x, h12y)), \
            ((h20x, h20y), (h21x, h21y), (h22x, h22y)) = H
        k0, k1, k2 = -muR * sg[0], -muR * sg[1], -muR * sg[2]
        hyp = math.hypot
        t0, t1, t2 = (0.0, 0.0, 0.0) if tf_guess is None else tf_guess
        for _ in range(COULOMB_MAX_ITER):
            n0 = k0 * hyp(a0x + h00x * t0 + h01x * t1 + h02x * t2, a0y + h00y * t0 + h01y * t1 + h02y * t2)
            n1 = k1 * hyp(a1x + h10x * t0 + h11x * t1 + h12x * t2, a1y + h10y * t0 + h11y * t1 + h12y * t2)
            n2 = k2 * hyp(a2x + h20x * t0 + h21x * t1 + h22x * t2, a2y + h20y * t0 + h21y * t1 + h22y * t2)
            change = max(abs(n0 - t0), abs(n1 - t1), abs(n2 - t2))
            t0, t1, t2 = n0, n1, n2
            if change <= COULOMB_TOL * max(abs(n0), abs(n1), abs(n2)) + 1e-300:
                tf = [t0, t1, t2]
                break
        else:
            raise ConvergenceError(
                f"consistent Coulomb friction did not converge in {COULOMB_MAX_ITER} iterations "
                f"(mu * journal_radius = {muR:.3g} m too large for a contraction?)"
            )
    ddq, F, m = solution(tf)
    return ddq, F, tf, m


def _solve(robot: Robot, q, dq, tau, friction, alpha, beta, method="multipliers"):
    """Forward dynamics on the full 12-coordinate system (no input checks): a :class:`Dynamics`.

    ``method="reduced"`` delegates to :func:`_solve_reduced`; the others build
    ``M`` (12, 12), ``A`` (10, 12), ``b`` (10,) and use :mod:`robolib.constraints`.
    """
    if method == "reduced":
        return _solve_reduced(robot, q, dq, tau, friction, alpha, beta)
    Mb = _mass_blocks(robot, q)
    Mi = np.linalg.inv(Mb)
    Minv = np.zeros((12, 12))
    Minv[_BLK_R, _BLK_C] = Mi.ravel()
    Q = -_bias_blocks(robot, q, dq).ravel()
    Q[_ACTIVE] += tau
    phi, dphi, A, b = _constraints(robot, q, dq)
    if alpha or beta:
        b = b - 2.0 * alpha * dphi - beta * beta * phi
    MiAT = Minv @ A.T  # (12, 10)
    S = A @ MiAT
    ws, Vs = np.linalg.eigh(S)
    if ws[0] <= SINGULAR_TOL * ws[-1]:
        raise SingularityError(
            f"configuration q is singular: the constraint matrix of both layers is rank deficient "
            f"(eigenvalue ratio of A M^-1 A^T = {ws[0] / ws[-1]:.2e} < {SINGULAR_TOL:g}); "
            "the bearing reactions are not determined"
        )
    a0 = Minv @ Q
    rhs = np.empty((10, 4))
    rhs[:, 0] = b - A @ a0
    rhs[:, 1:] = MiAT[_ACTIVE].T
    X = (Vs / ws) @ (Vs.T @ rhs)
    lam0 = X[:, 0]
    # lam(tau_f) = S^-1 (b - A M^-1 (Q + E tau_f)) = lam0 - G tau_f,  G = S^-1 A M^-1 E
    G = X[:, 1:]
    w = dq[_ACTIVE]
    if friction is None:
        tf = np.zeros(3)
    elif friction == "stribeck":
        tf = _friction_torque_free(robot, w, friction)
    else:
        tf = _coulomb(robot, w, lam0, G, consistent=(friction == "coulomb_consistent"))
    lam = lam0 - G @ tf
    Q[_ACTIVE] += tf
    if method == "multipliers":
        ddq = Minv @ Q + MiAT @ lam
    else:
        M = np.zeros((12, 12))
        M[_BLK_R, _BLK_C] = Mb.ravel()
        if method == "kkt":
            ddq, lam_k = _con.kkt_solve(M, Q, A, b)
        elif method == "udwadia_kalaba":
            ddq, _ = _con.udwadia_kalaba(M, Q, A, b)
        else:  # sequential: layer 1 then layer 2, as in the patent
            ddq, _ = _con.udwadia_kalaba_sequential(M, Q, [(A[:4], b[:4]), (A[4:], b[4:])])
    return Dynamics(ddq, lam[4:].reshape(3, 2), tf, lam)


def solve_dynamics(robot: Robot, q, dq, tau, friction=None, *, method="reduced", baumgarte=(0.0, 0.0)) -> Dynamics:
    """Forward dynamics with every by-product: accelerations, reactions, friction torques, multipliers.

    ``q``, ``dq`` (12,) in the cut-model coordinates, ``tau`` (3,) motor
    torques (N m), ``friction`` one of :data:`FRICTION_MODELS`. ``method``
    selects the route to ``ddq`` (:data:`METHODS`): ``"reduced"`` (default,
    fast) is the exact block elimination of the 12-coordinate multiplier system
    (layer 2 eliminated first, then a 4x4 closure system, scalar arithmetic);
    ``"multipliers"`` the 12-coordinate Schur complement, ``"kkt"`` the
    augmented system, ``"udwadia_kalaba"`` the single-step U–K equation with
    both layers stacked, ``"sequential"`` U–K applied layer 1 then layer 2 (the
    patent's route). They agree to ~1e-12 (tested). The reactions always come
    from the multipliers ``lambda`` of ``(A M^-1 A^T) lambda = b - A M^-1 Q``.
    ``baumgarte = (alpha, beta)`` in 1/s adds ``-2 alpha dphi - beta^2 phi``
    to ``b``. Friction: ``"coulomb"`` evaluates ``|F_i|`` from the
    friction-free solve (the decoupled, one-pass model), ``"coulomb_consistent"``
    iterates ``F_i`` to the fixed point, ``"stribeck"`` includes the viscous
    term; all use the smooth sign ``tanh(w / smooth_eps)``. The reported
    reactions are those of the final solve, friction included.

    >>> robot = load(); q, dq, _ = reference_motion(robot, [0.3])
    >>> d = solve_dynamics(robot, q[0], dq[0], np.zeros(3), friction="stribeck")
    >>> bool(np.all(d.friction_torque * dq[0, [2, 6, 10]] <= 0))
    True
    """
    q = _vec("q", q, 12)
    dq = _vec("dq", dq, 12)
    tau = _vec("tau", tau, 3)
    _friction_name(friction)
    if method not in METHODS:
        raise ParameterError(f"method must be one of {list(METHODS)}, got {method!r}")
    alpha, beta = baumgarte
    if alpha < 0 or beta < 0:
        raise ParameterError(f"baumgarte gains must be non-negative, got {baumgarte!r}")
    return _solve(robot, q, dq, tau, friction, float(alpha), float(beta), method)


def forward_dynamics(robot: Robot, q, dq, tau, friction=None, *, method="reduced", baumgarte=(0.0, 0.0)):
    """``(ddq (12,), reactions (3, 2))`` of the robot under motor torques ``tau`` (3,) N m.

    ``q``, ``dq`` of shape (12,) ordered ``(x_1, y_1, a_1, b_1, x_2, ...)``;
    ``friction`` in ``None, "coulomb", "coulomb_consistent", "stribeck"``;
    ``reactions[i]`` is the force of the base on active link ``i`` (N), from
    the final solve (friction included). See :func:`solve_dynamics`.

    >>> robot = load(); q, dq, _ = reference_motion(robot, [0.0])
    >>> ddq, F = forward_dynamics(robot, q[0], dq[0], np.zeros(3))
    >>> bool(np.allclose(ddq[[0, 1, 4, 5, 8, 9]], 0, atol=1e-12))   # the base does not move
    True
    """
    d = solve_dynamics(robot, q, dq, tau, friction, method=method, baumgarte=baumgarte)
    return d.ddq, d.reactions


# --------------------------------------------------------------------------- inverse kinematics
def inverse_kinematics(robot: Robot, p, elbows=DEFAULT_ELBOWS) -> np.ndarray:
    """Cut-model coordinates ``q`` (..., 12) that put the end-effector at ``p`` (..., 2) m.

    ``elbows`` (3,) the sign of each passive angle ``b_i``. Raises
    :class:`~robolib.UnreachableError` if ``p`` is farther than ``2 l`` from a
    base point, :class:`~robolib.SingularityError` if a chain is folded onto
    its base point.

    >>> robot = load()
    >>> q = inverse_kinematics(robot, robot.centroid)
    >>> bool(np.allclose(tips(robot, q), robot.centroid))
    True
    """
    p = _batch("p", p, 2)
    el = np.asarray(elbows, dtype=float)
    if el.shape != (3,) or not np.all(np.abs(el) == 1):
        raise ParameterError(f"elbows must be three signs (+1 or -1), got {elbows!r}")
    l = robot.link_length
    q = np.zeros(p.shape[:-1] + (12,))
    for i in range(3):
        d = p - robot.base[i]
        r = np.hypot(d[..., 0], d[..., 1])
        if np.any(r > 2 * l * (1 + 1e-12)):
            j = np.unravel_index(np.argmax(r), r.shape)
            raise UnreachableError(
                f"end-effector target p = {p[j].tolist()} is unreachable by chain {i + 1}: "
                f"distance {r[j]:.6g} m from A_{i + 1} exceeds 2 * link_length = {2 * l:g} m"
            )
        if np.any(r <= CHAIN_SINGULAR_TOL * l):
            raise SingularityError(f"end-effector target p coincides with base point A_{i + 1}: chain {i + 1} is folded (singular)")
        cb = np.clip((r * r - 2 * l * l) / (2 * l * l), -1.0, 1.0)
        b = el[i] * np.arccos(cb)
        q[..., 4 * i] = robot.base[i, 0]
        q[..., 4 * i + 1] = robot.base[i, 1]
        q[..., 4 * i + 2] = np.arctan2(d[..., 1], d[..., 0]) - 0.5 * b
        q[..., 4 * i + 3] = b
    return q


def joint_rates(robot: Robot, q, v, acc=None):
    """Joint rates ``dq`` (and accelerations ``ddq``) (..., 12) for end-effector velocity ``v``
    (..., 2) m/s (and acceleration ``acc`` (..., 2) m/s^2), with the active joints fixed on the base.

    Raises :class:`~robolib.SingularityError` where a chain is stretched or folded
    (``sin b_i = 0``: its tip Jacobian is singular).

    >>> robot = load(); q = inverse_kinematics(robot, robot.centroid)
    >>> dq = joint_rates(robot, q, [0.1, 0.0])
    >>> h = 1e-7; dE = (tips(robot, q + h * dq) - tips(robot, q - h * dq)) / (2 * h)
    >>> bool(np.allclose(dE, [0.1, 0.0], atol=1e-8))
    True
    """
    q = _batch("q", q, 12)
    v = _batch("v", v, 2)
    l = robot.link_length
    c1, s1, c12, s12, _, sb = _trig(q)
    if np.any(np.abs(sb) <= CHAIN_SINGULAR_TOL):
        i = int(np.argmax(np.abs(sb) <= CHAIN_SINGULAR_TOL) % 3)
        raise SingularityError(f"configuration q is singular: chain {i + 1} is stretched or folded (sin b = 0)")
    # J (angles) = [[-l(s1+s12), -l s12], [l(c1+c12), l c12]], det = l^2 sin b
    det = l * l * sb
    j11, j12, j21, j22 = -l * (s1 + s12), -l * s12, l * (c1 + c12), l * c12

    def solve(rx, ry):
        return (j22 * rx - j12 * ry) / det, (-j21 * rx + j11 * ry) / det

    da, db = solve(v[..., 0:1], v[..., 1:2])
    dq = np.zeros(np.broadcast_shapes(q.shape, v.shape[:-1] + (12,)))
    dq[..., _ACTIVE] = da
    dq[..., _PASSIVE] = db
    if acc is None:
        return dq
    acc = _batch("acc", acc, 2)
    w2 = da + db
    gx = -l * (c1 * da**2 + c12 * w2**2)
    gy = -l * (s1 * da**2 + s12 * w2**2)
    dda, ddb = solve(acc[..., 0:1] - gx, acc[..., 1:2] - gy)
    ddq = np.zeros_like(dq)
    ddq[..., _ACTIVE] = dda
    ddq[..., _PASSIVE] = ddb
    return dq, ddq


# --------------------------------------------------------------------------- reference trajectory
class TaskTrajectory(NamedTuple):
    """End-effector trajectory: times (N,) s, position, velocity, acceleration (N, 2)."""

    t: np.ndarray
    p: np.ndarray
    v: np.ndarray
    a: np.ndarray


def reference_circle(robot: Robot, t, radius=CIRCLE_RADIUS, period=CIRCLE_PERIOD, center=None) -> TaskTrajectory:
    """The reference circle: ``p(t) = c + r (cos wt, sin wt)``, ``w = 2 pi / period``.

    ``t`` (N,) s; ``center`` defaults to the base centroid. Counter-clockwise,
    starting at angle 0.

    >>> tr = reference_circle(load(), [0.0, 0.5])
    >>> np.round(tr.v[0], 6) + 0.0
    array([0.     , 0.15708])
    """
    t = np.atleast_1d(np.asarray(t, dtype=float))
    if radius < 0 or not np.isfinite(radius):
        raise ParameterError(f"radius must be non-negative, got {radius!r}")
    if period <= 0 or not np.isfinite(period):
        raise ParameterError(f"period must be positive, got {period!r}")
    c = robot.centroid if center is None else _vec("center", center, 2)
    w = 2 * np.pi / period
    e = np.stack([np.cos(w * t), np.sin(w * t)], axis=-1)
    de = np.stack([-np.sin(w * t), np.cos(w * t)], axis=-1)
    return TaskTrajectory(t, c + radius * e, radius * w * de, -radius * w * w * e)


def joint_trajectory(robot: Robot, traj: TaskTrajectory, elbows=DEFAULT_ELBOWS):
    """``(q, dq, ddq)`` each (N, 12) following an end-effector :class:`TaskTrajectory`."""
    q = inverse_kinematics(robot, traj.p, elbows)
    dq, ddq = joint_rates(robot, q, traj.v, traj.a)
    return q, dq, ddq


def reference_motion(robot: Robot, t, elbows=DEFAULT_ELBOWS, **circle):
    """``(q, dq, ddq)`` (N, 12) of the reference circle at times ``t`` (N,) s.

    >>> q, dq, ddq = reference_motion(load(), np.linspace(0, 2, 5))
    >>> q.shape
    (5, 12)
    """
    return joint_trajectory(robot, reference_circle(robot, t, **circle), elbows)


def initial_state(robot: Robot, p, v=(0.0, 0.0), elbows=DEFAULT_ELBOWS):
    """Assembled state ``(q0, dq0)`` (12,) with the end-effector at ``p`` moving at ``v``.

    >>> q0, dq0 = initial_state(load(), load().centroid)
    >>> constraint_residual(load(), q0, dq0) < (1e-12, 1e-12)
    True
    """
    q = inverse_kinematics(robot, _vec("p", p, 2), elbows)
    return q, joint_rates(robot, q, _vec("v", v, 2))


# --------------------------------------------------------------------------- inverse dynamics
class InverseDynamics(NamedTuple):
    """Result of :func:`inverse_dynamics` (leading shape ``...`` of the inputs)."""

    tau: np.ndarray  #: (..., 3) motor torques (N m)
    friction_torque: np.ndarray  #: (..., 3) friction torques on the active joints (N m)
    reactions: np.ndarray  #: (..., 3, 2) force of the base on each active link (N)
    null_direction: np.ndarray  #: (..., 3) unit internal-preload direction of the motor torques


def _inverse_batch(robot, q, dq, ddq, friction, preload):
    """Inverse dynamics of N samples at once: q, dq, ddq (N, 12) -> tau, tf, F, n."""
    N = q.shape[0]
    Mb = _mass_blocks(robot, q)
    r = (np.einsum("ncij,ncj->nci", Mb, ddq.reshape(N, 3, 4)) + _bias_blocks(robot, q, dq)).reshape(N, 12)
    phi, dphi, A, b = _constraints(robot, q, dq)
    acc = np.abs(np.einsum("nij,nj->ni", A, ddq) - b).max(axis=-1)
    bad = (np.abs(phi).max(axis=-1) > ASSEMBLY_TOL) | (np.abs(dphi).max(axis=-1) > ASSEMBLY_TOL) \
        | (acc > ASSEMBLY_TOL * np.maximum(1.0, np.abs(b).max(axis=-1)))
    if np.any(bad):
        j = int(np.argmax(bad))
        raise ParameterError(
            f"(q, dq, ddq) violate the constraints at sample {j} (position, velocity or acceleration residual "
            f"{np.abs(phi[j]).max():.2e}, {np.abs(dphi[j]).max():.2e}, {acc[j]:.2e} > {ASSEMBLY_TOL:g}); "
            "use inverse_kinematics / joint_rates to build an assembled motion"
        )
    # W [u; lambda] = r with W = [E, A^T] (12 x 13): one-dimensional null space (the preload)
    W = np.zeros((N, 12, 13))
    W[:, _ACTIVE, np.arange(3)] = 1.0
    W[:, :, 3:] = np.swapaxes(A, -1, -2)
    U, sv, Vt = np.linalg.svd(W)
    sing = sv[:, -1] <= SINGULAR_TOL * sv[:, 0]
    if np.any(sing):
        j = int(np.argmax(sing))
        raise SingularityError(
            f"configuration q is singular at sample {j}: torques and reactions are not determined up to one "
            f"preload (singular values {sv[j, -1]:.2e} .. {sv[j, 0]:.2e})"
        )
    xp = np.einsum("nki,nk->ni", Vt[:, :12, :], np.einsum("nji,nj->ni", U, r) / sv)
    nfull = Vt[:, 12, :]
    nn = np.linalg.norm(nfull[:, :3], axis=-1)
    if np.any(nn <= SINGULAR_TOL):
        j = int(np.argmax(nn <= SINGULAR_TOL))
        raise SingularityError(f"configuration q is singular at sample {j}: the motors have no internal-preload direction")
    nfull = nfull / nn[:, None]
    sign = np.where(nfull[:, :3].sum(axis=-1) < 0, -1.0, 1.0)
    nfull = nfull * sign[:, None]
    n, n_lam = nfull[:, :3], nfull[:, 3:]
    up, lp = xp[:, :3], xp[:, 3:]

    def solution(tf):
        t = up - tf
        tau = t - n * np.einsum("ni,ni->n", n, t)[:, None] + preload * n
        su = np.einsum("ni,ni->n", n, tau + tf - up)
        return tau, lp + su[:, None] * n_lam

    w = dq[:, _ACTIVE]
    tf = np.zeros((N, 3))
    if friction == "stribeck":
        tf = _fr.stribeck(w, robot.coulomb_torque, robot.static_torque, robot.stribeck_velocity,
                          robot.viscous, robot.smooth_eps)
    elif friction in ("coulomb", "coulomb_consistent"):
        muR = robot.mu * robot.journal_radius
        sg = _fr.smooth_sign(w, robot.smooth_eps)

        def law(lam):
            F = lam[:, 4:].reshape(N, 3, 2)
            return -muR * np.hypot(F[..., 0], F[..., 1]) * sg

        tf = law(solution(tf)[1])  # decoupled: loads of the friction-free solution (same preload)
        if friction == "coulomb_consistent":
            for _ in range(COULOMB_MAX_ITER):
                new = law(solution(tf)[1])
                done = np.abs(new - tf).max() <= COULOMB_TOL * np.abs(new).max() + 1e-300
                tf = new
                if done:
                    break
            else:
                raise ConvergenceError(f"consistent Coulomb friction did not converge in {COULOMB_MAX_ITER} iterations")
    tau, lam = solution(tf)
    return tau, tf, lam[:, 4:].reshape(N, 3, 2), n


def inverse_dynamics(robot: Robot, q, dq, ddq, friction=None, preload=0.0) -> InverseDynamics:
    """Motor torques that produce the motion ``(q, dq, ddq)`` (..., 12), with redundancy resolved.

    The three motor torques are determined up to the internal preload
    direction ``n`` (a torque combination that only loads the mechanism).
    Returned ``tau = tau_min + preload * n``: ``tau_min`` the minimum-norm
    motor torques, ``n`` unit length (sign: ``sum(n) > 0``), ``preload`` in N m.
    Friction as in :func:`forward_dynamics`; for ``"coulomb"`` (decoupled) the
    bearing loads are taken from the friction-free solution with the same
    preload, for ``"coulomb_consistent"`` they are iterated to the fixed point
    with the final torques. ``reactions`` are those of the final torques.

    >>> robot = load(); q, dq, ddq = reference_motion(robot, [0.0])
    >>> r0 = inverse_dynamics(robot, q, dq, ddq); r1 = inverse_dynamics(robot, q, dq, ddq, preload=1.0)
    >>> bool(np.allclose(r1.tau - r0.tau, r0.null_direction)), bool(np.linalg.norm(r1.tau) > np.linalg.norm(r0.tau))
    (True, True)
    """
    q = _batch("q", q, 12)
    dq = _batch("dq", dq, 12)
    ddq = _batch("ddq", ddq, 12)
    _friction_name(friction)
    if not np.isfinite(preload):
        raise ParameterError(f"preload must be finite, got {preload!r}")
    shape = np.broadcast_shapes(q.shape, dq.shape, ddq.shape)[:-1]
    q, dq, ddq = (np.broadcast_to(x, shape + (12,)).reshape(-1, 12) for x in (q, dq, ddq))
    tau, tf, F, n = _inverse_batch(robot, q, dq, ddq, friction, float(preload))
    return InverseDynamics(tau.reshape(shape + (3,)), tf.reshape(shape + (3,)), F.reshape(shape + (3, 2)),
                           n.reshape(shape + (3,)))


def actuation_jacobian(robot: Robot, q) -> np.ndarray:
    """``J_a = d(a_1, a_2, a_3) / d(x, y)`` (..., 3, 2): active-joint rates per end-effector velocity.

    Closed form from each chain's tip Jacobian: row ``i`` is
    ``(cos phi_i, sin phi_i) / (l sin b_i)`` with ``phi_i = a_i + b_i`` the
    passive link's absolute angle (1/m). ``J_a^T`` maps the motor torques to
    the generalised force on the end-effector, so the task-space equation of
    motion reads ``J_a^T (tau + tau_f) = f`` (see :func:`minimum_norm_torques`).
    Raises :class:`~robolib.SingularityError` where a chain is stretched or folded.

    >>> robot = load(); q = inverse_kinematics(robot, robot.centroid)
    >>> dq = joint_rates(robot, q, [0.1, -0.2])
    >>> bool(np.allclose(actuation_jacobian(robot, q) @ [0.1, -0.2], dq[_ACTIVE]))
    True
    """
    q = _batch("q", q, 12)
    c1, s1, c12, s12, _, sb = _trig(q)
    if np.any(np.abs(sb) <= CHAIN_SINGULAR_TOL):
        raise SingularityError("configuration q is singular: a chain is stretched or folded (sin b = 0)")
    d = robot.link_length * sb
    return np.stack([c12 / d, s12 / d], axis=-1)


def preload_direction(robot: Robot, q) -> np.ndarray:
    """Unit internal-preload direction ``n`` (..., 3) of the motor torques, in closed form.

    ``n`` spans the null space of ``J_a^T`` (:func:`actuation_jacobian`): the
    cross product of its two columns, ``n_i ∝ sin b_i sin(phi_k - phi_j)`` for
    ``(i, j, k)`` cyclic, ``phi_i = a_i + b_i``. Statically (Lami's theorem):
    the passive links are two-force members whose axial forces
    ``f_i ∝ sin(phi_k - phi_j)`` balance at the end-effector, and each motor
    holds ``tau_i = l sin b_i f_i``. Sign: ``sum(n) > 0``, as in
    :func:`inverse_dynamics` (an independent route: there ``n`` comes from an SVD).

    >>> robot = load(); q, dq, ddq = reference_motion(robot, [0.4])
    >>> bool(np.allclose(preload_direction(robot, q), inverse_dynamics(robot, q, dq, ddq).null_direction))
    True
    """
    q = _batch("q", q, 12)
    _, _, c12, s12, _, sb = _trig(q)
    phi = np.arctan2(s12, c12)
    j, k = [1, 2, 0], [2, 0, 1]
    n = sb * np.sin(phi[..., k] - phi[..., j])
    nn = np.linalg.norm(n, axis=-1, keepdims=True)
    if np.any(nn <= SINGULAR_TOL):
        raise SingularityError("configuration q is singular: the motors have no internal-preload direction")
    n = n / nn
    return np.where(n.sum(axis=-1, keepdims=True) < 0, -n, n)


def preload_reactions(robot: Robot, q) -> np.ndarray:
    """Bearing reactions (..., 3, 2) in N per N m of preload along :func:`preload_direction`.

    The force of the base on active link ``i`` is the passive link's axial
    force, ``n_i / (l sin b_i) (cos phi_i, sin phi_i)``; its norm over the three
    bearings is ``||dF / dtau||``, the sensitivity of the bearing loads to a
    joint torque in inverse dynamics (1/m).

    >>> robot = load(); q, dq, ddq = reference_motion(robot, [0.4])
    >>> dF = inverse_dynamics(robot, q, dq, ddq, None, 1.0).reactions - inverse_dynamics(robot, q, dq, ddq).reactions
    >>> bool(np.allclose(preload_reactions(robot, q), dF))
    True
    """
    q = _batch("q", q, 12)
    _, _, c12, s12, _, sb = _trig(q)
    f = preload_direction(robot, q) / (robot.link_length * sb)
    return np.stack([f * c12, f * s12], axis=-1)


def minimum_norm_torques(robot: Robot, q, dq, ddq, friction_torque=None, preload=0.0) -> np.ndarray:
    """Motor torques (..., 3) of the motion ``(q, dq, ddq)`` by the task-space (projection) route.

    ``G = dq / dv`` (..., 12, 2), the joint rates per unit end-effector
    velocity, satisfies ``A G = 0``, so ``G^T`` removes every constraint force
    from ``M ddq + C dq = E (tau + tau_f) + A^T lambda`` and leaves two equations
    ``J_a^T (tau + tau_f) = f``, ``f = G^T (M ddq + C dq)`` (N), ``J_a = E^T G``.
    Their minimum-norm solution plus the preload ``p`` (N m) along ``n``:
    ``tau = J_a (J_a^T J_a)^-1 f - (I - n n^T) tau_f + p n``.
    ``friction_torque`` (..., 3) N m (default zero) is the friction at the
    active joints, e.g. ``inverse_dynamics(...).friction_torque``. Same result
    as :func:`inverse_dynamics` by a different route (no multipliers, no SVD).

    >>> robot = load(); q, dq, ddq = reference_motion(robot, [0.1, 0.9])
    >>> r = inverse_dynamics(robot, q, dq, ddq, "stribeck", 0.3)
    >>> bool(np.allclose(minimum_norm_torques(robot, q, dq, ddq, r.friction_torque, 0.3), r.tau, atol=1e-12))
    True
    """
    q = _batch("q", q, 12)
    dq = _batch("dq", dq, 12)
    ddq = _batch("ddq", ddq, 12)
    shape = np.broadcast_shapes(q.shape, dq.shape, ddq.shape)[:-1]
    q, dq, ddq = (np.broadcast_to(x, shape + (12,)).reshape(-1, 12) for x in (q, dq, ddq))
    N = q.shape[0]
    r = (np.einsum("ncij,ncj->nci", _mass_blocks(robot, q), ddq.reshape(N, 3, 4))
         + _bias_blocks(robot, q, dq)).reshape(N, 12)
    G = np.stack([joint_rates(robot, q, np.broadcast_to(e, (N, 2))) for e in ([1.0, 0.0], [0.0, 1.0])], axis=-1)
    f = np.einsum("nji,nj->ni", G, r)  # (N, 2)
    Ja = actuation_jacobian(robot, q)  # (N, 3, 2)
    JtJ = np.einsum("nki,nkj->nij", Ja, Ja)
    tau = np.einsum("nki,ni->nk", Ja, np.linalg.solve(JtJ, f[..., None])[..., 0])
    n = preload_direction(robot, q)
    if friction_torque is not None:
        tf = np.broadcast_to(_batch("friction_torque", friction_torque, 3), shape + (3,)).reshape(-1, 3)
        tau = tau - (tf - n * np.einsum("ni,ni->n", n, tf)[:, None])
    if not np.isfinite(preload):
        raise ParameterError(f"preload must be finite, got {preload!r}")
    return (tau + float(preload) * n).reshape(shape + (3,))


def task_inverse_dynamics(robot: Robot, traj: TaskTrajectory, friction=None, preload=0.0,
                          elbows=DEFAULT_ELBOWS) -> InverseDynamics:
    """Motor torques (N, 3), friction, reactions along an end-effector :class:`TaskTrajectory`.

    Chain IK (``elbows``) gives the joint motion, then :func:`inverse_dynamics`.

    >>> robot = load(); res = task_inverse_dynamics(robot, reference_circle(robot, np.linspace(0, 2, 50)))
    >>> res.tau.shape, res.reactions.shape
    ((50, 3), (50, 3, 2))
    """
    q, dq, ddq = joint_trajectory(robot, traj, elbows)
    return inverse_dynamics(robot, q, dq, ddq, friction, preload)


# --------------------------------------------------------------------------- simulation
class TorqueSchedule:
    """Motor torques as a smooth function of time, from samples (cubic spline).

    ``times`` (N,) s increasing, ``values`` (N, 3) N m. ``periodic=True``
    wraps time with period ``times[-1] - times[0]`` (then ``values[-1]`` must
    equal ``values[0]``). Calling it with a scalar gives (3,), with an array
    (K,) gives (K, 3); :func:`simulate` evaluates it once on all RK4 stage times.

    >>> s = TorqueSchedule([0.0, 1.0, 2.0], [[0, 0, 0], [1, 1, 1], [2, 2, 2]])
    >>> s(0.5)
    array([0.5, 0.5, 0.5])
    """

    vectorized = True

    def __init__(self, times, values, periodic=False):
        from scipy.interpolate import CubicSpline

        t = np.asarray(times, dtype=float)
        v = np.asarray(values, dtype=float)
        if t.ndim != 1 or v.shape != (t.size, 3) or t.size < 2 or np.any(np.diff(t) <= 0):
            raise ParameterError(f"TorqueSchedule needs increasing times (N,) and values (N, 3), got {t.shape} and {v.shape}")
        self._spline = CubicSpline(t, v, axis=0, bc_type="periodic" if periodic else "not-a-knot")
        self.t0, self.t1, self.periodic = t[0], t[-1], periodic

    def __call__(self, t):
        t = np.asarray(t, dtype=float)
        if self.periodic:
            t = self.t0 + np.mod(t - self.t0, self.t1 - self.t0)
        return self._spline(t)


def reference_torque(robot: Robot, friction=None, preload=0.0, samples=400, elbows=DEFAULT_ELBOWS, **circle) -> TorqueSchedule:
    """Periodic :class:`TorqueSchedule` of the motor torques that drive the reference circle.

    ``samples`` points per period of exact inverse dynamics, interpolated by a
    periodic cubic spline (friction-free torques: interpolation error < 1e-9 N m
    for the default 400 samples).

    >>> robot = load(); sched = reference_torque(robot, samples=200)
    >>> q, dq, ddq = reference_motion(robot, [0.37])
    >>> bool(np.allclose(sched(0.37), inverse_dynamics(robot, q, dq, ddq).tau[0], atol=1e-7))
    True
    """
    period = circle.get("period", CIRCLE_PERIOD)
    t = np.linspace(0.0, period, int(samples) + 1)
    q, dq, ddq = reference_motion(robot, t, elbows, **circle)
    tau = inverse_dynamics(robot, q, dq, ddq, friction, preload).tau
    tau[-1] = tau[0]
    return TorqueSchedule(t, tau, periodic=True)


class Simulation(NamedTuple):
    """Result of :func:`simulate`; arrays have a leading time axis of length N."""

    t: np.ndarray  #: (N,) s
    q: np.ndarray  #: (N, 12)
    dq: np.ndarray  #: (N, 12)
    tau: np.ndarray  #: (N, 3) motor torques (N m)
    friction_torque: np.ndarray  #: (N, 3) friction torques (N m)
    reactions: np.ndarray  #: (N, 3, 2) base reactions on the active links (N)
    kinetic_energy: np.ndarray  #: (N,) J
    motor_work: np.ndarray  #: (N,) J, integral of tau . w
    dissipated_energy: np.ndarray  #: (N,) J, minus the integral of tau_f . w (>= 0)
    end_effector: np.ndarray  #: (N, 2) m (chain 1's tip)
    drift: np.ndarray  #: (N,) largest constraint violation ``max |phi|`` over both layers (m)


def _torque_function(torque):
    if callable(torque):
        return torque
    tau = _vec("torque", torque, 3)
    return lambda t: tau


def simulate(robot: Robot, q0, dq0, torque, t_end: float, *, friction=None, integrator="rk4", dt=DT,
             baumgarte=BAUMGARTE, rtol=1e-8, atol=1e-10, record_every=1) -> Simulation:
    """Integrate the forward dynamics from ``(q0, dq0)`` (12,) for ``t_end`` seconds.

    ``torque``: constant (3,) N m, or a callable ``t -> (3,)`` (a
    :class:`TorqueSchedule` is evaluated once on all stage times).
    ``integrator``: ``"rk4"`` (fixed step ``dt``, s; records every
    ``record_every`` steps) or ``"adaptive"`` (scipy ``DOP853`` with ``rtol``,
    ``atol``; records every ``dt * record_every``). The constraint drift is
    stabilised by Baumgarte gains ``baumgarte = (alpha, beta)`` (1/s). The
    motor work and the friction dissipation are integrated with the state,
    so ``kinetic_energy - kinetic_energy[0] = motor_work - dissipated_energy``
    up to the (small) work of the Baumgarte terms.

    >>> robot = load(); q0, dq0 = initial_state(robot, robot.centroid, [0.05, 0.0])
    >>> sim = simulate(robot, q0, dq0, np.zeros(3), 0.2, friction="stribeck")
    >>> bool(np.all(np.diff(sim.dissipated_energy) >= 0)), bool(sim.kinetic_energy[-1] < sim.kinetic_energy[0])
    (True, True)
    """
    q0 = _vec("q0", q0, 12)
    dq0 = _vec("dq0", dq0, 12)
    _friction_name(friction)
    if not (np.isfinite(t_end) and t_end > 0):
        raise ParameterError(f"t_end must be positive, got {t_end!r}")
    if not (np.isfinite(dt) and dt > 0):
        raise ParameterError(f"dt must be positive, got {dt!r}")
    if integrator not in ("rk4", "adaptive"):
        raise ParameterError(f"integrator must be 'rk4' or 'adaptive', got {integrator!r}")
    if int(record_every) < 1:
        raise ParameterError(f"record_every must be a positive integer, got {record_every!r}")
    alpha, beta = (float(x) for x in baumgarte)
    if alpha < 0 or beta < 0:
        raise ParameterError(f"baumgarte gains must be non-negative, got {baumgarte!r}")
    res = constraint_residual(robot, q0, dq0)
    if max(res) > ASSEMBLY_TOL:
        raise ParameterError(
            f"initial state (q0, dq0) is not assembled (constraint residual {max(res):.2e} > {ASSEMBLY_TOL:g}); "
            "use initial_state or inverse_kinematics"
        )
    tau_fn = _torque_function(torque)

    last_tf = [None]

    def rhs(t, y, tau):
        ys = y.tolist()
        qs, ds = ys[:12], ys[12:24]
        ts = tau.tolist()
        ddq, _, tf, _ = _core(robot, qs, ds, ts, friction, alpha, beta, last_tf[0])
        last_tf[0] = tf  # warm start of the consistent-Coulomb fixed point
        w0, w1, w2 = ds[2], ds[6], ds[10]
        return np.array(ds + ddq + [ts[0] * w0 + ts[1] * w1 + ts[2] * w2, -(tf[0] * w0 + tf[1] * w1 + tf[2] * w2)])

    y = np.concatenate([q0, dq0, [0.0, 0.0]])
    if integrator == "rk4":
        n = int(math.ceil(t_end / dt - 1e-9))
        h = t_end / n
        stage_t = np.arange(2 * n + 1) * (h / 2)
        try:
            if getattr(tau_fn, "vectorized", False):
                taus = np.asarray(tau_fn(stage_t), dtype=float)
            else:
                taus = np.array([tau_fn(s) for s in stage_t], dtype=float)
        except (TypeError, ValueError) as exc:
            raise ParameterError(f"torque must give three finite values (N m) for every time: {exc}") from None
        if taus.shape != (2 * n + 1, 3) or not np.all(np.isfinite(taus)):
            raise ParameterError(f"torque must give three finite values (N m) for every time, got shape {taus.shape[1:]}")
        rec = list(range(0, n + 1, int(record_every)))
        if rec[-1] != n:
            rec.append(n)
        Y = np.empty((len(rec), 26))
        k = 0
        for step in range(n + 1):
            if step == rec[k]:
                Y[k] = y
                k += 1
                if step == n:
                    break
            t = step * h
            ta, tm, tb = taus[2 * step], taus[2 * step + 1], taus[2 * step + 2]
            try:
                k1 = rhs(t, y, ta)
                k2 = rhs(t + h / 2, y + (h / 2) * k1, tm)
                k3 = rhs(t + h / 2, y + (h / 2) * k2, tm)
                k4 = rhs(t + h, y + h * k3, tb)
            except (SingularityError, ConvergenceError) as exc:
                raise type(exc)(f"simulation stopped at t = {t:.6g} s: {exc}") from None
            y = y + (h / 6) * (k1 + 2 * k2 + 2 * k3 + k4)
        T = np.array(rec) * h
    else:
        from scipy.integrate import solve_ivp

        n_out = int(math.ceil(t_end / (dt * record_every) - 1e-9))
        T = np.linspace(0.0, t_end, n_out + 1)

        def f(t, y):
            return rhs(t, y, np.asarray(tau_fn(t), dtype=float).reshape(3))

        sol = solve_ivp(f, (0.0, t_end), y, method="DOP853", t_eval=T, rtol=rtol, atol=atol)
        if not sol.success:
            raise ConvergenceError(f"adaptive integration failed: {sol.message}")
        Y = sol.y.T
    # by-products at the recorded states
    N = len(T)
    taus_r = np.array([np.asarray(tau_fn(t), dtype=float).reshape(3) for t in T]) if not getattr(tau_fn, "vectorized", False) \
        else np.asarray(tau_fn(T), dtype=float)
    tf = np.empty((N, 3))
    F = np.empty((N, 3, 2))
    for j in range(N):
        d = _solve_reduced(robot, Y[j, :12], Y[j, 12:24], taus_r[j], friction, alpha, beta)
        tf[j], F[j] = d.friction_torque, d.reactions
    q, dq = Y[:, :12], Y[:, 12:24]
    drift = np.abs(_constraints(robot, q, dq)[0]).max(axis=-1)
    return Simulation(T, q, dq, taus_r, tf, F, kinetic_energy(robot, q, dq), Y[:, 24], Y[:, 25],
                      end_effector(robot, q), drift)


def friction_power(sim: Simulation) -> np.ndarray:
    """Friction power ``sum_i tau_f,i w_i`` (N,) in W at the recorded states (never positive).

    >>> robot = load(); q0, dq0 = initial_state(robot, robot.centroid, [0.05, 0.0])
    >>> bool(np.all(friction_power(simulate(robot, q0, dq0, np.zeros(3), 0.1, friction="coulomb")) <= 0))
    True
    """
    return np.einsum("ni,ni->n", sim.friction_torque, sim.dq[:, _ACTIVE])


# --------------------------------------------------------------------------- friction studies
def _circle_samples(robot: Robot, samples: int, elbows, circle: dict):
    """Uniform samples of one period of the circle: ``t, q, dq, ddq, w`` (w: active-joint rates)."""
    samples = int(samples)
    if samples < 8:
        raise ParameterError(f"samples must be at least 8 per period, got {samples!r}")
    period = circle.get("period", CIRCLE_PERIOD)
    t = np.linspace(0.0, period, samples, endpoint=False)
    q, dq, ddq = reference_motion(robot, t, elbows, **circle)
    return t, q, dq, ddq, dq[:, _ACTIVE]


def rms(x) -> float:
    """Root mean square of all entries of ``x`` (e.g. friction torques (N, 3) sampled uniformly in time).

    >>> rms([[3.0, -4.0], [0.0, 0.0]])
    2.5
    """
    x = np.asarray(x, dtype=float)
    return float(np.sqrt(np.mean(x * x)))


class StribeckCalibration(NamedTuple):
    """Result of :func:`calibrate_stribeck` (torques in N m, rates in rad/s)."""

    coulomb_torque: float  #: T_c, the calibrated Coulomb level
    static_torque: float  #: T_s = static_ratio * T_c
    stribeck_velocity: float  #: w_s
    viscous: float  #: b_v (N m s/rad)
    coulomb_rms: float  #: RMS friction torque of the consistent Coulomb model along the motion (the target)
    stribeck_rms: float  #: RMS Stribeck torque at the calibrated level, from inverse dynamics (a check)

    def apply(self, robot: Robot) -> Robot:
        """``robot`` with these Stribeck parameters."""
        return dataclasses.replace(robot, coulomb_torque=self.coulomb_torque, static_torque=self.static_torque,
                                   stribeck_velocity=self.stribeck_velocity, viscous=self.viscous)


def calibrate_stribeck(robot: Robot, *, static_ratio: float = 1.5, stribeck_velocity: float = 0.1,
                       viscous: float = 0.0, samples: int = 400, preload: float = 0.0, elbows=DEFAULT_ELBOWS,
                       **circle) -> StribeckCalibration:
    """Stribeck level with the same RMS friction torque as the consistent Coulomb model along a motion.

    The motion is the reference circle (``circle``: ``radius`` m, ``period`` s,
    ``center``; defaults of :func:`reference_circle`), sampled uniformly at
    ``samples`` points of one period; the RMS runs over the samples and the
    three active joints. The target is the RMS of ``inverse_dynamics(...,
    "coulomb_consistent", preload)`` (``mu``, ``journal_radius``,
    ``smooth_eps`` and the masses of ``robot``); the Stribeck law has
    ``T_s = static_ratio * T_c``, Stribeck velocity ``stribeck_velocity``
    (rad/s), viscous coefficient ``viscous`` (N m s/rad) and the robot's
    smooth sign, and its level ``T_c`` solves
    :func:`robolib.friction.stribeck_level_for_rms` on the joint rates of the
    motion (the Stribeck torque depends on the rates only). Recompute it
    whenever the robot or the motion changes.

    >>> robot = load()
    >>> cal = calibrate_stribeck(robot, samples=200)
    >>> bool(abs(cal.stribeck_rms / cal.coulomb_rms - 1) < 1e-12), round(cal.static_torque / cal.coulomb_torque, 12)
    (True, 1.5)
    >>> bool(np.isclose(cal.coulomb_torque, robot.coulomb_torque, rtol=0.01))   # the default file is calibrated
    True
    """
    t, q, dq, ddq, w = _circle_samples(robot, samples, elbows, circle)
    target = rms(inverse_dynamics(robot, q, dq, ddq, "coulomb_consistent", preload).friction_torque)
    Tc = _fr.stribeck_level_for_rms(w, target, static_ratio, stribeck_velocity, viscous, robot.smooth_eps)
    cal = StribeckCalibration(Tc, static_ratio * Tc, float(stribeck_velocity), float(viscous), target, float("nan"))
    check = rms(inverse_dynamics(cal.apply(robot), q, dq, ddq, "stribeck", preload).friction_torque)
    return cal._replace(stribeck_rms=check)


#: Friction laws compared by :func:`operating_point` and :func:`friction_sweep`.
COMPARED_LAWS = ("coulomb_consistent", "stribeck")


def operating_point(robot: Robot, *, preload: float = 0.0, samples: int = 200, sim_periods: float = 1.0,
                    laws=COMPARED_LAWS, simulate_motion: bool = True, elbows=DEFAULT_ELBOWS, **circle) -> dict:
    """The friction laws compared at one operating point (robot, circle, preload).

    For each law of ``laws``: inverse dynamics over one period (``samples``
    uniform samples) gives ``friction_rms`` (N m, RMS over samples and joints),
    ``friction_max`` (N m) and ``energy`` (J, the friction energy dissipated per
    period, ``-integral sum_i tau_f,i w_i dt`` by the rectangle rule, exact to
    round-off for a smooth periodic integrand); with ``simulate_motion``, a
    forward simulation of ``sim_periods`` periods from the circle's initial
    state under the friction-free torques with the same preload (the
    uncompensated experiment, RK4 with the default step and Baumgarte gains)
    gives ``deviation`` (m, the largest tracking error). Returns
    ``{law: {metric: value}}``.

    >>> pt = operating_point(load(), samples=40, simulate_motion=False)
    >>> sorted(pt), sorted(pt["stribeck"])
    (['coulomb_consistent', 'stribeck'], ['deviation', 'energy', 'friction_max', 'friction_rms'])
    """
    for law in laws:
        if law not in FRICTION_MODELS or law is None:
            raise ParameterError(f"laws must be friction models of {list(FRICTION_MODELS[1:])}, got {law!r}")
    if not (np.isfinite(sim_periods) and sim_periods > 0):
        raise ParameterError(f"sim_periods must be positive, got {sim_periods!r}")
    period = circle.get("period", CIRCLE_PERIOD)
    t, q, dq, ddq, w = _circle_samples(robot, samples, elbows, circle)
    sched = reference_torque(robot, None, preload, samples, elbows, **circle) if simulate_motion else None
    out = {}
    for law in laws:
        r = inverse_dynamics(robot, q, dq, ddq, law, preload)
        row = {"friction_rms": rms(r.friction_torque), "friction_max": float(np.abs(r.friction_torque).max()),
               "energy": float(-np.sum(r.friction_torque * w) * period / len(t)), "deviation": float("nan")}
        if simulate_motion:
            sim = simulate(robot, q[0], dq[0], sched, sim_periods * period, friction=law, record_every=5)
            row["deviation"] = float(np.linalg.norm(
                sim.end_effector - reference_circle(robot, sim.t, **circle).p, axis=-1).max())
        out[law] = row
    return out


#: Parameters :func:`friction_sweep` can vary besides the fields of :class:`Robot`.
SWEEP_PARAMETERS = ("period", "radius", "preload")


def _sweep_point(robot, parameter, value, kwargs):
    kw = dict(kwargs)
    if parameter in SWEEP_PARAMETERS:
        kw[parameter] = value
    else:
        robot = dataclasses.replace(robot, **{parameter: value})
    return operating_point(robot, **kw)


def friction_sweep(robot: Robot, parameter: str, values, *, n_jobs: int = 1, **kwargs) -> dict:
    """:func:`operating_point` for each value of one parameter; ``{law: {metric: array (len(values),)}}``.

    ``parameter``: ``"period"`` (s) or ``"radius"`` (m) of the circle,
    ``"preload"`` (N m), or any numeric field of :class:`Robot` (e.g.
    ``"end_effector_mass"`` in kg, ``"mu"``); the other settings (``kwargs``
    of :func:`operating_point`) stay fixed, and so do the robot's friction
    levels: a sweep shows where laws calibrated at one operating point part.
    ``n_jobs > 1`` runs the points in parallel processes (joblib).

    >>> sw = friction_sweep(load(), "preload", [0.0, 1.0], samples=40, simulate_motion=False)
    >>> bool(sw["coulomb_consistent"]["friction_rms"][1] > sw["coulomb_consistent"]["friction_rms"][0])
    True
    >>> bool(np.allclose(sw["stribeck"]["friction_rms"][0], sw["stribeck"]["friction_rms"][1]))   # load-independent
    True
    """
    fields = {f.name for f in dataclasses.fields(Robot)} - {"base"}
    if parameter not in SWEEP_PARAMETERS and parameter not in fields:
        raise ParameterError(f"parameter must be one of {list(SWEEP_PARAMETERS)} or a Robot field "
                             f"{sorted(fields)}, got {parameter!r}")
    values = [float(v) for v in np.atleast_1d(np.asarray(values, dtype=float))]
    if n_jobs != 1 and len(values) > 1:
        from joblib import Parallel, delayed

        points = Parallel(n_jobs=n_jobs)(delayed(_sweep_point)(robot, parameter, v, kwargs) for v in values)
    else:
        points = [_sweep_point(robot, parameter, v, kwargs) for v in values]
    return {law: {m: np.array([p[law][m] for p in points]) for m in points[0][law]} for law in points[0]}


def decoupling_error(robot: Robot, *, preload: float = 0.0, samples: int = 200, elbows=DEFAULT_ELBOWS,
                     **circle) -> tuple[float, float]:
    """Error of the patent's decoupled Coulomb model and its first-order bound, along the circle.

    Returns ``(error, estimate)``: ``error = max |tau_f,cons - tau_f,dec| /
    max |tau_f,cons|`` (over one period, ``samples`` samples, all joints) from
    :func:`inverse_dynamics`, and ``estimate = mu R max_t ||dF/dtau||``. In
    inverse dynamics a friction torque changes the bearing reactions only
    through its preload component, ``dF = preload_reactions * (n . tau_f)``,
    so ``||dF/dtau|| = ||preload_reactions||`` (1/m) and, to first order,
    ``error <= estimate``; it depends on the path only, not on speed or preload.

    >>> err, est = decoupling_error(load(), samples=50)
    >>> bool(0 < err <= est < 0.01)
    True
    """
    t, q, dq, ddq, w = _circle_samples(robot, samples, elbows, circle)
    cons = inverse_dynamics(robot, q, dq, ddq, "coulomb_consistent", preload).friction_torque
    dec = inverse_dynamics(robot, q, dq, ddq, "coulomb", preload).friction_torque
    scale = np.abs(cons).max()
    err = float(np.abs(cons - dec).max() / scale) if scale > 0 else 0.0
    sens = np.linalg.norm(preload_reactions(robot, q).reshape(len(t), 6), axis=-1).max()
    return err, float(robot.mu * robot.journal_radius * sens)


def decoupling_map(robot: Robot, mu_r, parameter: str, values, *, samples: int = 100, **kwargs):
    """:func:`decoupling_error` on a grid: ``mu R`` (m, changes ``mu`` at the robot's ``journal_radius``)
    against ``"preload"`` (N m) or ``"period"`` (s). Returns ``(error, estimate)``, each
    (len(mu_r), len(values)).

    >>> err, est = decoupling_map(load(), [1e-3, 4e-3], "preload", [0.0, 1.0], samples=40)
    >>> err.shape, bool(np.all(err <= est)), bool(err[1, 0] > err[0, 0])
    ((2, 2), True, True)
    """
    if parameter not in ("preload", "period"):
        raise ParameterError(f"parameter must be 'preload' or 'period', got {parameter!r}")
    mu_r = np.atleast_1d(np.asarray(mu_r, dtype=float))
    if np.any(mu_r < 0) or robot.journal_radius <= 0:
        raise ParameterError("mu_r must be non-negative and the robot's journal_radius positive")
    values = np.atleast_1d(np.asarray(values, dtype=float))
    err = np.empty((mu_r.size, values.size))
    est = np.empty_like(err)
    for a, m in enumerate(mu_r):
        rb = dataclasses.replace(robot, mu=float(m) / robot.journal_radius)
        for b, v in enumerate(values):
            err[a, b], est[a, b] = decoupling_error(rb, samples=samples, **{parameter: float(v)}, **kwargs)
    return err, est


def friction_comparison(robot: Robot, preload=0.0, samples=200, t_end=None, elbows=DEFAULT_ELBOWS, **circle) -> dict:
    """Summary table of the four friction models on the reference circle (one row per model).

    Inverse dynamics over one period (``samples`` points, the given ``preload``
    in N m) and a forward simulation of ``t_end`` s (default: one period) from
    the circle's initial state under the *friction-free* torques. Row keys:
    ``tau_rms`` and ``tau_max`` (N m, motor torques that track the circle with
    this friction model), ``friction_rms`` (N m), ``reaction_max`` (N, largest
    bearing load), ``deviation_max`` (m, largest end-effector path deviation of
    the simulation), ``dissipated`` (J, friction energy over the simulation).

    >>> table = friction_comparison(load(), samples=40, t_end=0.2)
    >>> sorted(table) == sorted(["none", "coulomb", "coulomb_consistent", "stribeck"])
    True
    >>> table["none"]["deviation_max"] < 1e-8
    True
    """
    period = circle.get("period", CIRCLE_PERIOD)
    t_end = period if t_end is None else t_end
    t = np.linspace(0.0, period, int(samples), endpoint=False)
    q, dq, ddq = reference_motion(robot, t, elbows, **circle)
    sched = reference_torque(robot, None, preload, samples, elbows, **circle)
    table = {}
    for friction in FRICTION_MODELS:
        idr = inverse_dynamics(robot, q, dq, ddq, friction, preload)
        sim = simulate(robot, q[0], dq[0], sched, t_end, friction=friction)
        dev = np.abs(sim.end_effector - reference_circle(robot, sim.t, **circle).p).max()
        table["none" if friction is None else friction] = {
            "tau_rms": float(np.sqrt(np.mean(idr.tau**2))),
            "tau_max": float(np.abs(idr.tau).max()),
            "friction_rms": float(np.sqrt(np.mean(idr.friction_torque**2))),
            "reaction_max": float(np.linalg.norm(idr.reactions, axis=-1).max()),
            "deviation_max": float(dev),
            "dissipated": float(sim.dissipated_energy[-1]),
        }
    return table


__all__ = [
    "friction_comparison", "actuation_jacobian", "preload_direction", "preload_reactions", "minimum_norm_torques",
    "rms", "StribeckCalibration", "calibrate_stribeck", "COMPARED_LAWS", "operating_point", "SWEEP_PARAMETERS",
    "friction_sweep", "decoupling_error", "decoupling_map",
    "FRICTION_MODELS", "METHODS", "DEFAULT_ELBOWS", "CIRCLE_RADIUS", "CIRCLE_PERIOD", "BAUMGARTE", "DT",
    "DRIFT_BOUND", "Robot", "load", "subsystem_mass_matrix", "subsystem_coriolis_matrix", "mass_matrix",
    "bias_forces", "kinetic_energy", "tips", "end_effector", "closure_constraints", "base_constraints",
    "constraint_residual", "Dynamics", "solve_dynamics", "forward_dynamics", "inverse_kinematics",
    "joint_rates", "TaskTrajectory", "reference_circle", "joint_trajectory", "reference_motion",
    "initial_state", "InverseDynamics", "inverse_dynamics", "task_inverse_dynamics", "TorqueSchedule", "reference_torque",
    "Simulation", "simulate", "friction_power",
]
