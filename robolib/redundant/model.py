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
:mod:`robolib.core.constraints`; the friction laws in :mod:`robolib.core.friction`.

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
import os
import warnings
from dataclasses import dataclass

import numpy as np

from robolib.core import checks as _checks
from robolib.core.errors import ParameterError, ParameterFileError, StaleCalibrationWarning
from robolib.core.params import load_yaml, number, vector

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
    ``smooth_eps`` the smooth-sign velocity (rad/s). ``calibrated_for``: the
    ``mu * journal_radius`` (m) for which ``coulomb_torque`` was calibrated to the
    Coulomb law (:func:`calibrate_stribeck`), or None (a level set by hand). Change
    one value with ``dataclasses.replace(robot, mu=0.2)`` (re-validated); the
    Stribeck law then warns (:class:`robolib.StaleCalibrationWarning`) that its
    level was calibrated for another ``mu R`` until you calibrate again
    (``calibrate_stribeck(robot, ...).apply(robot)``).
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
    calibrated_for: float | None = None

    def __post_init__(self):
        base = _checks.real_array("base (three finite [x, y] points)", self.base, shape=(3, 2)).copy()
        base.setflags(write=False)
        object.__setattr__(self, "base", base)
        positive = ("link_length", "active_mass", "passive_mass", "stribeck_velocity", "smooth_eps")
        nonneg = ("active_inertia", "passive_inertia", "end_effector_mass", "mu", "journal_radius",
                  "coulomb_torque", "static_torque", "viscous", "calibrated_for")
        for f in dataclasses.fields(self):
            if f.name == "base" or (f.name == "calibrated_for" and self.calibrated_for is None):
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
        "calibrated_for_mu_r": number(unit="m", nonnegative=True, optional=True),
    },
}


def load(path="redundant/default.yaml") -> Robot:
    """Read a parameter file (relative paths also resolved in ``data/``) into a :class:`Robot`.

    >>> load("redundant/default.yaml").link_length
    0.25
    """
    if not isinstance(path, (str, os.PathLike)):
        raise ParameterFileError(f"path must be the name of a parameter file, got {_show(path)} ({type(path).__name__})")
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
        smooth_eps=f["smooth_eps"], calibrated_for=f.get("calibrated_for_mu_r"),
    )


# --------------------------------------------------------------------------- input checks
# Validate once at the public entry (robolib.core.checks); the per-step kernels (_core, _trig,
# _mass_blocks, ...) take checked arrays and do no checks of their own.
def _show(x) -> str:
    text = repr(x)
    return text if len(text) <= 60 else text[:57] + "..."


def _lead(*named) -> tuple:
    """The broadcast leading shape of checked batch arrays ``(name, array), ...`` (trailing axis dropped)."""
    try:
        return np.broadcast_shapes(*(a.shape[:-1] for _, a in named))
    except ValueError:
        shapes = ", ".join(f"{n} {a.shape}" for n, a in named)
        raise ParameterError(f"the leading (batch) shapes of {shapes} do not broadcast") from None


def _vec(name: str, x, n: int) -> np.ndarray:
    """``x`` as finite floats of shape ``(n,)``, or :class:`ParameterError` naming ``name``."""
    return _checks.real_array(name, x, shape=(n,))


def _batch(name: str, x, n: int) -> np.ndarray:
    """``x`` as finite floats of shape ``(..., n)`` (any leading shape, not empty)."""
    return _checks.real_array(name, x, shape=(n,), batch=True)


def _single(name: str, x, n: int) -> np.ndarray:
    """One configuration: shape ``(n,)``, or ``(1, ..., 1, n)`` as returned for one sample; flattened to ``(n,)``."""
    a = _checks.real_array(name, x, shape=(n,), batch=True)
    if a.size != n:
        raise ParameterError(f"{name} must be one configuration of shape ({n},), got shape {a.shape} "
                             f"(call once per sample)")
    return a.reshape(n)


def _choice(name: str, x, options: tuple):
    """``x`` if it is one of ``options`` (None or text), else :class:`ParameterError` naming ``name``."""
    if not (x is None or isinstance(x, str)) or x not in options:
        raise ParameterError(f"{name} must be one of {list(options)}, got {_show(x)} ({type(x).__name__})")
    return x


def _friction_name(friction, robot: Robot | None = None):
    """``friction`` checked; for the Stribeck law of a ``robot`` whose level is stale, a warning."""
    name = _choice("friction", friction, FRICTION_MODELS)
    if name == "stribeck" and isinstance(robot, Robot) and robot.calibrated_for is not None:
        mu_r = robot.mu * robot.journal_radius
        if not math.isclose(mu_r, robot.calibrated_for, rel_tol=1e-9):
            warnings.warn(f"the Stribeck level coulomb_torque = {robot.coulomb_torque:.4g} N m was calibrated for "
                          f"mu R = {robot.calibrated_for:.4g} m, and this robot has mu R = {mu_r:.4g} m: calibrate "
                          f"it again (redundant.calibrate_stribeck(robot, ...).apply(robot)) for the Stribeck law to "
                          f"match the Coulomb law, or set calibrated_for=None to keep this level",
                          StaleCalibrationWarning, stacklevel=3)
    return name


def _elbows(elbows) -> np.ndarray:
    """Three elbow signs (+1 or -1) as floats (3,)."""
    el = _checks.real_array("elbows", elbows, shape=(3,))
    if not np.all(np.abs(el) == 1):
        raise ParameterError(f"elbows must be three signs (+1 or -1), got {elbows!r}")
    return el


def _chain_index(i) -> int:
    return _checks.count("chain index i", i, low=0, high=2)


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
    i = _chain_index(i)
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
    i = _chain_index(i)
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
    _lead(("q", q), ("dq", dq))
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
    q = _single("q", q, 12)
    dq = _single("dq", dq, 12)
    phi, dphi, A, b = _constraints(robot, q, dq)
    return phi[:4], dphi[:4], A[:4], b[:4]


def base_constraints(robot: Robot, q, dq):
    """Layer 2, active joints on the base: ``(phi (6,), dphi (6,), A2 (6, 12), b2 (6,))``.

    >>> phi, dphi, A2, b2 = base_constraints(load(), *reference_motion(load(), [0.0])[:2])
    >>> bool(np.abs(phi).max() < 1e-12), bool(np.all(b2 == 0))
    (True, True)
    """
    q = _single("q", q, 12)
    dq = _single("dq", dq, 12)
    phi, dphi, A, b = _constraints(robot, q, dq)
    return phi[4:], dphi[4:], A[4:], b[4:]


def constraint_residual(robot: Robot, q, dq=None) -> tuple[float, float]:
    """``(max |phi|, max |dphi|)`` over both layers (m, m/s): how far (q, dq) is from assembled.

    >>> constraint_residual(load(), *reference_motion(load(), [0.0])[:2]) < (1e-12, 1e-12)
    True
    """
    q = _single("q", q, 12)
    dq = np.zeros(12) if dq is None else _single("dq", dq, 12)
    phi, dphi, _, _ = _constraints(robot, q, dq)
    return float(np.abs(phi).max()), float(np.abs(dphi).max())



__all__ = ["FRICTION_MODELS", "METHODS", "DEFAULT_ELBOWS", "CIRCLE_RADIUS", "CIRCLE_PERIOD", "BAUMGARTE", "DT", "DRIFT_BOUND", "Robot", "load", "subsystem_mass_matrix", "subsystem_coriolis_matrix", "mass_matrix", "bias_forces", "kinetic_energy", "tips", "end_effector", "closure_constraints", "base_constraints", "constraint_residual"]
