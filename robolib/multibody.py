"""Planar multibody core in absolute coordinates (the page's Eqs. 13-20).

Body ``k`` has coordinates ``q_k = (x_k, y_k, theta_k)`` (centre of mass and
angle); the system vector is ``q = (q_1, ..., q_nb)`` of length ``n = 3 nb``
and the mass matrix is ``M = diag(m_1, m_1, I_1, ...)``. A mechanism is *data*:
a list of :class:`Body` and a list of joints from a small vocabulary, each one a
block of rows of the constraint vector ``H(q, t) = 0``:

* :class:`GroundPin` -- revolute to ground: ``r_k + A_k s_k - e_A = 0`` (2 rows);
* :class:`Pin` -- revolute between bodies: ``r_i + A_i s_i - r_j - A_j s_j = 0`` (2 rows);
* :class:`AngleLock` -- rigid attachment of angles: ``theta_j - theta_i - offset = 0``
  (1 row; ``body_i`` may be :data:`GROUND`);
* :class:`Driver` -- prescribed motion of one coordinate: ``q[body, coord] - f(t) = 0``
  (1 row; its multiplier is the motor torque/force).

``A_k`` is the rotation by ``theta_k`` and ``s_k`` the pin position in body
``k``'s frame (m). The Jacobian ``J = dH/dq`` has the blocks printed on the page
(``[I2, A' s]`` for a pin, ``[0 0 +-1]`` for angle rows); velocity level
``J qd = -H_t``; acceleration level ``J qdd = gamma``. The Newton--Euler DAE with
Baumgarte stabilisation (Eq. 20) is solved in augmented form::

    [ M  J^T ] [ qdd    ]   [ g                                  ]
    [ J  0   ] [ lambda ] = [ gamma - 2 alpha dH/dt - beta^2 H   ]

so that ``M qdd + J^T lambda = g``: the constraint forces are ``-J^T lambda`` and
a driver's torque is ``-lambda`` of its row (:func:`driving_torques`).

Applied forces are *force elements* (:class:`PointSpringDamper`) that also
report their potential energy and dissipated power, so a simulation can carry
the energy books (:func:`energy_terms`). Integration uses :func:`dopri5`, an
adaptive Dormand--Prince 5(4) integrator written here so that the clearance
module can hook impact detection into every accepted step.

Two implementations of the right-hand side: :meth:`Mechanism.rhs` (reference:
vectorised numpy, full augmented matrix, about 200 us per call for the
gear-shift manipulator) and :meth:`Mechanism.compiled_rhs` /
:meth:`Mechanism.compiled_stepper` (numba; scalar loops, the augmented system
solved through its Schur complement ``J M^-1 J^T`` since ``M`` is diagonal;
about 12 us per call, and one compiled call per integration step). The
contact stiffness makes about 8000 steps per simulated second necessary, so the
compiled path is what meets the 10 s budget; ``backend="auto"`` picks it when
numba is installed (``ROBOLIB_BACKEND=numpy`` forces the reference path). The
tests check that both give the same answers.

>>> import numpy as np
>>> pend = Mechanism([Body("bar", 1.0, 1.0 / 12)],
...                  [GroundPin("O", "bar", (-0.5, 0.0), (0.0, 0.0))])
>>> q = np.array([0.5, 0.0, 0.0])
>>> pend.residual(q, 0.0).tolist()
[0.0, 0.0]
>>> (pend.jacobian(q) + 0.0).tolist()
[[1.0, 0.0, 0.0], [0.0, 1.0, -0.5]]
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from .errors import ConvergenceError, ParameterError, SingularityError

try:  # optional compiled right-hand side (see Mechanism.compiled_rhs)
    import numba as _numba
except ImportError:  # pragma: no cover - numpy path only
    _numba = None

#: Name of the fixed ground frame in joint definitions.
GROUND = "ground"
#: Newton assembly stops when ``max|H| <`` this (m or rad).
ASSEMBLY_TOL = 1e-12
#: Maximum Newton iterations in :func:`assemble`.
ASSEMBLY_MAX_ITER = 50
#: Reciprocal condition number below which a Jacobian / KKT matrix is singular.
SINGULAR_TOL = 1e-12
#: Default Baumgarte factors (1/s): ``gamma' = gamma - 2 alpha dH/dt - beta^2 H``.
BAUMGARTE_ALPHA = 5.0
BAUMGARTE_BETA = 5.0

_COORD = {"x": 0, "y": 1, "theta": 2}


# --------------------------------------------------------------------------- data
@dataclass(frozen=True)
class Body:
    """A rigid body: ``mass`` (kg) and centroidal ``inertia`` (kg m^2).

    >>> Body("link", 0.25, 0.25 * 0.12**2 / 12).inertia > 0
    True
    """

    name: str
    mass: float
    inertia: float

    def __post_init__(self):
        for what in ("mass", "inertia"):
            v = getattr(self, what)
            if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0):
                unit = "kg" if what == "mass" else "kg m^2"
                raise ParameterError(f"body {self.name!r}: {what} must be positive, got {v!r} ({unit})")


@dataclass(frozen=True)
class GroundPin:
    """Revolute joint of ``body`` to ground: point ``point`` (body frame, m) stays at ``ground`` (global, m)."""

    name: str
    body: str
    point: tuple
    ground: tuple


@dataclass(frozen=True)
class Pin:
    """Revolute joint: ``point_i`` of ``body_i`` coincides with ``point_j`` of ``body_j`` (body frames, m)."""

    name: str
    body_i: str
    point_i: tuple
    body_j: str
    point_j: tuple


@dataclass(frozen=True)
class AngleLock:
    """``theta_j - theta_i - offset = 0`` (rad); ``body_i`` may be :data:`GROUND` (theta = 0)."""

    name: str
    body_i: str
    body_j: str
    offset: float = 0.0


@dataclass(frozen=True)
class Driver:
    """Prescribed motion ``q[body, coord] - f(t) = 0``.

    ``motion(t)`` returns ``(f, df/dt, d2f/dt2)`` (rad or m). ``coord`` is
    ``"theta"`` (a motor), ``"x"`` or ``"y"``; ``motor=False`` marks a row that
    is a guide (e.g. a slider held on a line), not an actuator.
    """

    name: str
    body: str
    motion: Callable[[float], tuple]
    coord: str = "theta"
    motor: bool = True


class Constant:
    """A constant motion ``f(t) = value`` for :class:`Driver` (picklable).

    >>> Constant(0.3)(1.0)
    (0.3, 0.0, 0.0)
    """

    def __init__(self, value: float = 0.0):
        self.value = float(value)

    def __call__(self, t):
        return (self.value, 0.0, 0.0)


class ConstantSpeed:
    """``f(t) = phi0 + omega t`` (rad, rad/s), picklable.

    >>> ConstantSpeed(0.0, 2.0)(0.5)
    (1.0, 2.0, 0.0)
    """

    def __init__(self, phi0: float, omega: float):
        self.phi0, self.omega = float(phi0), float(omega)

    def __call__(self, t):
        return (self.phi0 + self.omega * t, self.omega, 0.0)


@dataclass(frozen=True)
class PointSpringDamper:
    """Isotropic planar spring--damper pulling ``point`` (body frame) of ``body`` to ``anchor`` (global).

    Force ``F = -k (p - anchor) - c dp/dt`` (N) with ``k`` in N/m, ``c`` in N s/m;
    potential ``k |p - anchor|^2 / 2``; dissipated power ``c |dp/dt|^2``.
    """

    name: str
    body: str
    point: tuple
    anchor: tuple
    stiffness: float
    damping: float = 0.0

    def __post_init__(self):
        if not (math.isfinite(self.stiffness) and self.stiffness >= 0):
            raise ParameterError(f"force {self.name!r}: stiffness must be non-negative, got {self.stiffness!r} (N/m)")
        if not (math.isfinite(self.damping) and self.damping >= 0):
            raise ParameterError(f"force {self.name!r}: damping must be non-negative, got {self.damping!r} (N s/m)")


# --------------------------------------------------------------------------- helpers
def rotate(s, theta):
    """Rotate body-frame vectors ``s`` (..., 2) by ``theta`` (...): ``A(theta) s``.

    >>> np.round(rotate(np.array([1.0, 0.0]), np.pi / 2), 12).tolist()
    [0.0, 1.0]
    """
    s = np.asarray(s, dtype=float)
    c, sn = np.cos(theta), np.sin(theta)
    return np.stack([c * s[..., 0] - sn * s[..., 1], sn * s[..., 0] + c * s[..., 1]], axis=-1)


def _vec2(value, what: str) -> np.ndarray:
    arr = np.asarray(value, dtype=float)
    if arr.shape != (2,) or not np.all(np.isfinite(arr)):
        raise ParameterError(f"{what} must be a finite 2-vector (m), got {value!r}")
    return arr


# --------------------------------------------------------------------------- mechanism
class Mechanism:
    """Bodies + joints + force elements, compiled to index arrays for fast evaluation.

    Raises :class:`robolib.ParameterError` for duplicate names, a joint that
    names an unknown body, or malformed points.

    >>> m = Mechanism([Body("a", 1.0, 0.1)], [Driver("d", "a", Constant(0.2))])
    >>> m.n, m.m, m.row_slice("d")
    (3, 1, slice(0, 1, None))
    """

    def __init__(self, bodies: Sequence[Body], joints: Sequence, forces: Sequence = (), name: str = "mechanism"):
        self.name = name
        self.bodies = list(bodies)
        self.joints = list(joints)
        self.forces = list(forces)
        if not self.bodies:
            raise ParameterError(f"mechanism {name!r}: needs at least one body")
        names = [b.name for b in self.bodies]
        if len(set(names)) != len(names) or GROUND in names:
            raise ParameterError(f"mechanism {name!r}: body names must be unique and not {GROUND!r}, got {names}")
        jnames = [j.name for j in self.joints]
        if len(set(jnames)) != len(jnames):
            raise ParameterError(f"mechanism {name!r}: joint names must be unique, got {jnames}")
        self.body_index = {b: k for k, b in enumerate(names)}
        self.nb = len(names)
        self.n = 3 * self.nb
        self.mass_diag = np.repeat([[b.mass, b.mass, b.inertia] for b in self.bodies], 1, axis=0).ravel()
        self._compile()

    # ---------------------------------------------------------------- compilation
    def _body(self, name: str, joint: str, allow_ground: bool = False) -> int:
        if allow_ground and name == GROUND:
            return self.nb  # index of the virtual ground body
        if name not in self.body_index:
            raise ParameterError(
                f"mechanism {self.name!r}: joint/force {joint!r} names body {name!r}, which does not exist "
                f"(bodies: {list(self.body_index)})"
            )
        return self.body_index[name]

    def _compile(self) -> None:
        pins_i, pins_si, pins_j, pins_sj, pin_rows = [], [], [], [], []
        ang_i, ang_j, ang_off, ang_rows = [], [], [], []
        drv_col, drv_rows, drv_motion, drv_motor = [], [], [], []
        self._slices: dict[str, slice] = {}
        row = 0
        for jt in self.joints:
            if isinstance(jt, GroundPin):
                pins_i.append(self._body(jt.body, jt.name))
                pins_si.append(_vec2(jt.point, f"joint {jt.name!r} point"))
                pins_j.append(self.nb)
                pins_sj.append(_vec2(jt.ground, f"joint {jt.name!r} ground"))
                pin_rows.append(row)
                nr = 2
            elif isinstance(jt, Pin):
                bi = self._body(jt.body_i, jt.name)
                bj = self._body(jt.body_j, jt.name)
                if bi == bj:
                    raise ParameterError(f"joint {jt.name!r}: body_i and body_j are the same body {jt.body_i!r}")
                pins_i.append(bi)
                pins_si.append(_vec2(jt.point_i, f"joint {jt.name!r} point_i"))
                pins_j.append(bj)
                pins_sj.append(_vec2(jt.point_j, f"joint {jt.name!r} point_j"))
                pin_rows.append(row)
                nr = 2
            elif isinstance(jt, AngleLock):
                ang_i.append(self._body(jt.body_i, jt.name, allow_ground=True))
                ang_j.append(self._body(jt.body_j, jt.name))
                ang_off.append(float(jt.offset))
                ang_rows.append(row)
                nr = 1
            elif isinstance(jt, Driver):
                if jt.coord not in _COORD:
                    raise ParameterError(f"driver {jt.name!r}: coord must be one of {list(_COORD)}, got {jt.coord!r}")
                if not callable(jt.motion):
                    raise ParameterError(f"driver {jt.name!r}: motion must be callable t -> (f, df, ddf)")
                drv_col.append(3 * self._body(jt.body, jt.name) + _COORD[jt.coord])
                drv_rows.append(row)
                drv_motion.append(jt.motion)
                drv_motor.append(bool(jt.motor))
                nr = 1
            else:
                raise ParameterError(f"joint {getattr(jt, 'name', jt)!r}: unknown joint type {type(jt).__name__}")
            self._slices[jt.name] = slice(row, row + nr)
            row += nr
        self.m = row
        ip = np.array(pins_i, dtype=int)
        jp = np.array(pins_j, dtype=int)
        self._pi, self._pj = ip, jp
        self._si = np.array(pins_si, dtype=float).reshape(-1, 2)
        self._sj = np.array(pins_sj, dtype=float).reshape(-1, 2)
        pr = np.array(pin_rows, dtype=int)
        self._prx, self._pry = pr, pr + 1
        self._ai = np.array(ang_i, dtype=int)
        self._aj = np.array(ang_j, dtype=int)
        self._aoff = np.array(ang_off, dtype=float)
        self._arows = np.array(ang_rows, dtype=int)
        self._dcol = np.array(drv_col, dtype=int)
        self._drows = np.array(drv_rows, dtype=int)
        self._dmotion = drv_motion
        self._dmotor = np.array(drv_motor, dtype=bool)
        # constant part of the Jacobian, on n + 3 columns (last 3 = virtual ground body)
        ne = self.n + 3
        J0 = np.zeros((self.m, ne))
        J0[pr, 3 * ip] += 1.0
        J0[pr + 1, 3 * ip + 1] += 1.0
        J0[pr, 3 * jp] -= 1.0
        J0[pr + 1, 3 * jp + 1] -= 1.0
        J0[self._arows, 3 * self._aj + 2] += 1.0
        J0[self._arows, 3 * self._ai + 2] -= 1.0
        J0[self._drows, self._dcol] = 1.0
        self._J0 = J0[:, : self.n].copy()
        # variable (theta-column) entries: rows (x, y) x (side i, side j), ground side excluded
        real_j = jp < self.nb
        self._vrows = np.concatenate([pr, pr + 1, pr[real_j], pr[real_j] + 1])
        self._vcols = np.concatenate([3 * ip + 2, 3 * ip + 2, 3 * jp[real_j] + 2, 3 * jp[real_j] + 2])
        self._real_j = real_j
        # force elements
        fb, fs, fa, fk, fc = [], [], [], [], []
        for fe in self.forces:
            if not isinstance(fe, PointSpringDamper):
                raise ParameterError(f"force {getattr(fe, 'name', fe)!r}: unknown force type {type(fe).__name__}")
            fb.append(self._body(fe.body, fe.name))
            fs.append(_vec2(fe.point, f"force {fe.name!r} point"))
            fa.append(_vec2(fe.anchor, f"force {fe.name!r} anchor"))
            fk.append(fe.stiffness)
            fc.append(fe.damping)
        self._fb = np.array(fb, dtype=int)
        self._fs = np.array(fs, dtype=float).reshape(-1, 2)
        self._fa = np.array(fa, dtype=float).reshape(-1, 2)
        self._fk = np.array(fk, dtype=float)
        self._fc = np.array(fc, dtype=float)
        # work arrays for the augmented matrix
        self._kkt = np.zeros((self.n + self.m, self.n + self.m))
        self._kkt[np.arange(self.n), np.arange(self.n)] = self.mass_diag

    # ---------------------------------------------------------------- lookup
    def row_slice(self, joint: str) -> slice:
        """Rows of ``H`` that belong to joint ``joint``; unknown name -> ParameterError."""
        if joint not in self._slices:
            raise ParameterError(f"mechanism {self.name!r}: no joint named {joint!r} (joints: {list(self._slices)})")
        return self._slices[joint]

    def joint(self, name: str):
        """The joint object called ``name``; unknown name -> ParameterError."""
        self.row_slice(name)
        return next(j for j in self.joints if j.name == name)

    def coordinate(self, body: str, coord: str = "theta") -> int:
        """Index into ``q`` of ``coord`` of ``body``.

        >>> Mechanism([Body("a", 1, 1), Body("b", 1, 1)], []).coordinate("b", "y")
        4
        """
        if coord not in _COORD:
            raise ParameterError(f"coord must be one of {list(_COORD)}, got {coord!r}")
        return 3 * self._body(body, "coordinate") + _COORD[coord]

    @property
    def driver_names(self) -> list[str]:
        """Names of the :class:`Driver` joints, in row order."""
        return [j.name for j in self.joints if isinstance(j, Driver)]

    def without(self, names: Sequence[str]) -> "Mechanism":
        """The same mechanism with the joints ``names`` removed (unknown name -> ParameterError)."""
        for nm in names:
            self.row_slice(nm)
        return Mechanism(self.bodies, [j for j in self.joints if j.name not in set(names)], self.forces, self.name)

    # ---------------------------------------------------------------- kinematics
    def _ext(self, q):
        qe = np.empty(self.n + 3)
        qe[: self.n] = q
        qe[self.n :] = 0.0
        return qe

    def _pin_vectors(self, th_e):
        """Rotated pin vectors (A_i s_i, A_j s_j), each (npins, 2)."""
        ti, tj = th_e[self._pi], th_e[self._pj]
        ci, si_, cj, sj_ = np.cos(ti), np.sin(ti), np.cos(tj), np.sin(tj)
        s, r = self._si, self._sj
        Ai = np.stack([ci * s[:, 0] - si_ * s[:, 1], si_ * s[:, 0] + ci * s[:, 1]], axis=-1)
        Aj = np.stack([cj * r[:, 0] - sj_ * r[:, 1], sj_ * r[:, 0] + cj * r[:, 1]], axis=-1)
        return Ai, Aj

    def _drivers(self, t):
        f = np.empty((3, len(self._dmotion)))
        for k, mo in enumerate(self._dmotion):
            f[:, k] = mo(t)
        return f

    def residual(self, q, t: float = 0.0) -> np.ndarray:
        """Constraint vector ``H(q, t)`` (m,), metres for pin rows, radians for angle rows."""
        q = np.asarray(q, dtype=float)
        qe = self._ext(q)
        th = qe[2::3]
        H = np.empty(self.m)
        if len(self._pi):
            Ai, Aj = self._pin_vectors(th)
            ri = qe.reshape(-1, 3)[self._pi, :2]
            rj = qe.reshape(-1, 3)[self._pj, :2]
            d = ri + Ai - rj - Aj
            H[self._prx] = d[:, 0]
            H[self._pry] = d[:, 1]
        if len(self._ai):
            H[self._arows] = th[self._aj] - th[self._ai] - self._aoff
        if len(self._dcol):
            H[self._drows] = q[self._dcol] - self._drivers(t)[0]
        return H

    def jacobian(self, q) -> np.ndarray:
        """``J = dH/dq`` (m, n)."""
        th = self._ext(np.asarray(q, dtype=float))[2::3]
        J = self._J0.copy()
        self._fill_jacobian(J, th)
        return J

    def _fill_jacobian(self, J, th_e):
        if len(self._pi):
            Ai, Aj = self._pin_vectors(th_e)
            rj = self._real_j
            vals = np.concatenate([-Ai[:, 1], Ai[:, 0], Aj[rj, 1], -Aj[rj, 0]])
            J[self._vrows, self._vcols] = vals
        return J

    def time_derivative(self, t: float) -> np.ndarray:
        """``H_t = dH/dt`` at fixed q (m,) (only driver rows are non-zero)."""
        Ht = np.zeros(self.m)
        if len(self._dcol):
            Ht[self._drows] = -self._drivers(t)[1]
        return Ht

    def gamma(self, q, qd, t: float = 0.0) -> np.ndarray:
        """Right-hand side of ``J qdd = gamma`` (m,): ``-(J qd)_q qd - 2 J_t qd - H_tt``."""
        qe = self._ext(np.asarray(q, dtype=float))
        th = qe[2::3]
        wd = self._ext(np.asarray(qd, dtype=float))[2::3]
        g = np.zeros(self.m)
        if len(self._pi):
            Ai, Aj = self._pin_vectors(th)
            wi2 = wd[self._pi] ** 2
            wj2 = wd[self._pj] ** 2
            acc = Ai * wi2[:, None] - Aj * wj2[:, None]
            g[self._prx] = acc[:, 0]
            g[self._pry] = acc[:, 1]
        if len(self._dcol):
            g[self._drows] = self._drivers(t)[2]
        return g

    # ---------------------------------------------------------------- forces and energy
    def point_position(self, q, body: str, point) -> np.ndarray:
        """Global position (m) of body-frame ``point`` of ``body``; q may be (..., n).

        >>> m = Mechanism([Body("a", 1, 1)], [])
        >>> np.round(m.point_position([1.0, 2.0, np.pi / 2], "a", (0.5, 0.0)), 12).tolist()
        [1.0, 2.5]
        """
        q = np.asarray(q, dtype=float)
        k = 3 * self._body(body, "point_position")
        return q[..., k : k + 2] + rotate(np.asarray(point, float), q[..., k + 2])

    def point_velocity(self, q, qd, body: str, point) -> np.ndarray:
        """Global velocity (m/s) of body-frame ``point`` of ``body``; q, qd may be (..., n)."""
        q, qd = np.asarray(q, float), np.asarray(qd, float)
        k = 3 * self._body(body, "point_velocity")
        As = rotate(np.asarray(point, float), q[..., k + 2])
        w = qd[..., k + 2][..., None]
        return qd[..., k : k + 2] + w * np.stack([-As[..., 1], As[..., 0]], axis=-1)

    def applied_forces(self, q, qd, t: float = 0.0) -> np.ndarray:
        """Generalised applied force ``g_c`` (n,) of the force elements (N, N m)."""
        g = np.zeros(self.n)
        if len(self._fb):
            self._add_applied(g, np.asarray(q, float), np.asarray(qd, float))
        return g

    def _add_applied(self, g, q, qd):
        b = self._fb
        th, w = q[3 * b + 2], qd[3 * b + 2]
        c, s = np.cos(th), np.sin(th)
        As = np.stack([c * self._fs[:, 0] - s * self._fs[:, 1], s * self._fs[:, 0] + c * self._fs[:, 1]], axis=-1)
        p = np.stack([q[3 * b], q[3 * b + 1]], axis=-1) + As
        v = np.stack([qd[3 * b] - w * As[:, 1], qd[3 * b + 1] + w * As[:, 0]], axis=-1)
        F = -self._fk[:, None] * (p - self._fa) - self._fc[:, None] * v
        np.add.at(g, 3 * b, F[:, 0])
        np.add.at(g, 3 * b + 1, F[:, 1])
        np.add.at(g, 3 * b + 2, As[:, 0] * F[:, 1] - As[:, 1] * F[:, 0])
        return float(np.sum(self._fc * np.sum(v * v, axis=-1)))

    def kinetic_energy(self, qd) -> np.ndarray:
        """``T = qd^T M qd / 2`` (J); qd may be (..., n)."""
        qd = np.asarray(qd, float)
        return 0.5 * np.sum(self.mass_diag * qd * qd, axis=-1)

    def potential_energy(self, q) -> np.ndarray:
        """Potential energy of the springs (J); q may be (..., n)."""
        q = np.asarray(q, float)
        V = np.zeros(q.shape[:-1])
        for fe in self.forces:
            d = self.point_position(q, fe.body, fe.point) - np.asarray(fe.anchor, float)
            V = V + 0.5 * fe.stiffness * np.sum(d * d, axis=-1)
        return V

    def dissipated_power(self, q, qd) -> np.ndarray:
        """Power (W) dissipated by the dampers of the force elements; q, qd may be (..., n)."""
        P = np.zeros(np.asarray(q).shape[:-1])
        for fe in self.forces:
            v = self.point_velocity(q, qd, fe.body, fe.point)
            P = P + fe.damping * np.sum(v * v, axis=-1)
        return P

    # ---------------------------------------------------------------- dynamics
    def accelerations(self, q, qd, t: float = 0.0, g=None, alpha: float = BAUMGARTE_ALPHA,
                      beta: float = BAUMGARTE_BETA):
        """Augmented solve of Eq. 20: returns ``(qdd (n,), lambda (m,))``.

        ``g`` (n,) is the total generalised force; default: the force elements.
        Raises :class:`robolib.SingularityError` if the augmented matrix is singular.
        """
        q = np.asarray(q, float)
        qd = np.asarray(qd, float)
        if g is None:
            g = self.applied_forces(q, qd, t)
        J = self.jacobian(q)
        Hd = J @ qd + self.time_derivative(t)
        rhs_c = self.gamma(q, qd, t) - 2.0 * alpha * Hd
        if beta != 0.0:
            rhs_c = rhs_c - beta * beta * self.residual(q, t)
        return self._solve_kkt(J, g, rhs_c)

    def _solve_kkt(self, J, g, rhs_c):
        n = self.n
        K = self._kkt
        K[n:, :n] = J
        K[:n, n:] = J.T
        b = np.concatenate([g, rhs_c])
        try:
            x = np.linalg.solve(K, b)
        except np.linalg.LinAlgError:
            raise SingularityError(f"mechanism {self.name!r}: augmented matrix [M J^T; J 0] is singular "
                                   "(redundant or inconsistent constraints, or a singular configuration)") from None
        return x[:n], x[n:]

    def rhs(self, alpha: float = BAUMGARTE_ALPHA, beta: float = BAUMGARTE_BETA, extra=None):
        """First-order right-hand side ``f(t, y)`` for ``y = (q, qd, W_drive, W_loss)``.

        ``W_drive`` accumulates the work of the motor rows (J), ``W_loss`` the
        energy dissipated by dampers and by ``extra`` (J, positive). ``extra``
        is ``None`` or a callable ``(t, q, qd, g) -> P_loss`` that adds its
        generalised forces into ``g`` in place and returns its dissipated power.
        """
        n, m = self.n, self.m
        J0 = self._J0
        have_pins, have_drv, have_f = len(self._pi) > 0, len(self._dcol) > 0, len(self._fb) > 0
        prx, pry, pi, pj, si, sj = self._prx, self._pry, self._pi, self._pj, self._si, self._sj
        vrows, vcols, realj = self._vrows, self._vcols, self._real_j
        arows, ai, aj, aoff = self._arows, self._ai, self._aj, self._aoff
        drows, dcol, dmot, dmotor = self._drows, self._dcol, self._dmotion, self._dmotor
        kkt = self._kkt
        ab2 = beta * beta
        nb = self.nb

        def f(t, y):
            q = y[:n]
            qd = y[n : 2 * n]
            th = np.empty(nb + 1)
            th[:nb] = q[2::3]
            th[nb] = 0.0
            wd = np.empty(nb + 1)
            wd[:nb] = qd[2::3]
            wd[nb] = 0.0
            J = J0.copy()
            H = np.empty(m)
            gam = np.zeros(m)
            Ht = np.zeros(m)
            if have_pins:
                ti, tj = th[pi], th[pj]
                ci, sni, cj, snj = np.cos(ti), np.sin(ti), np.cos(tj), np.sin(tj)
                aix = ci * si[:, 0] - sni * si[:, 1]
                aiy = sni * si[:, 0] + ci * si[:, 1]
                ajx = cj * sj[:, 0] - snj * sj[:, 1]
                ajy = snj * sj[:, 0] + cj * sj[:, 1]
                J[vrows, vcols] = np.concatenate([-aiy, aix, ajy[realj], -ajx[realj]])
                qe = np.concatenate([q, (0.0, 0.0, 0.0)])
                H[prx] = qe[3 * pi] + aix - qe[3 * pj] - ajx
                H[pry] = qe[3 * pi + 1] + aiy - qe[3 * pj + 1] - ajy
                wi2, wj2 = wd[pi] ** 2, wd[pj] ** 2
                gam[prx] = aix * wi2 - ajx * wj2
                gam[pry] = aiy * wi2 - ajy * wj2
            if len(arows):
                H[arows] = th[aj] - th[ai] - aoff
            if have_drv:
                fv = np.array([mo(t) for mo in dmot]).T
                H[drows] = q[dcol] - fv[0]
                Ht[drows] = -fv[1]
                gam[drows] = fv[2]
            g = np.zeros(n)
            P_loss = self._add_applied(g, q, qd) if have_f else 0.0
            if extra is not None:
                P_loss += extra(t, q, qd, g)
            Hd = J @ qd + Ht
            rc = gam - 2.0 * alpha * Hd - ab2 * H
            kkt[n:, :n] = J
            kkt[:n, n:] = J.T
            try:
                x = np.linalg.solve(kkt, np.concatenate([g, rc]))
            except np.linalg.LinAlgError:
                raise SingularityError(f"mechanism {self.name!r}: augmented matrix is singular at t = {t:.6g} s") from None
            lam = x[n:]
            dy = np.empty_like(y)
            dy[:n] = qd
            dy[n : 2 * n] = x[:n]
            # motor power: generalised force -J_d^T lambda_d dotted with qd
            P_drive = -float(np.dot(lam[drows][dmotor], qd[dcol][dmotor])) if have_drv else 0.0
            dy[2 * n] = P_drive
            dy[2 * n + 1] = P_loss
            if len(y) > 2 * n + 2:
                dy[2 * n + 2 :] = 0.0
            return dy

        return f


    def compiled_rhs(self, alpha: float = BAUMGARTE_ALPHA, beta: float = BAUMGARTE_BETA, contacts=None,
                     ddelta0=None):
        """Compiled (numba) version of :meth:`rhs`, for the same ``y = (q, qd, W_drive, W_loss)``.

        ``contacts`` is a contact table (k, 15) built by
        :class:`robolib.clearance.ClearanceModel` (bearing body, bearing point,
        journal body, journal point, R_B, R_J, c, K, D, mu, v0, v1, floor) and
        ``ddelta0`` the (k,) array of onset speeds, read at every call (the
        clearance event handler updates it in place). Driver motions stay Python
        callables evaluated before the kernel. Raises :class:`robolib.RobolibError`
        subclass ParameterError if numba is not installed.
        """
        if _numba is None:
            raise ParameterError("backend 'numba' requested but numba is not installed (pip install numba)")
        kern = _get_kernel()
        C = np.zeros((0, 15)) if contacts is None else np.ascontiguousarray(contacts, dtype=float)
        dd0 = np.zeros(0) if ddelta0 is None else ddelta0
        n, m = self.n, self.m
        J0 = np.ascontiguousarray(self._J0)
        args = (J0, self._pi, self._pj, self._si, self._sj, self._prx, self._ai, self._aj, self._aoff,
                self._arows, self._drows, self._dcol, self._dmotor, self.mass_diag, self._fb, self._fs,
                self._fa, self._fk, self._fc, float(alpha), float(beta), C)
        motions = self._dmotion
        nd = len(motions)
        name = self.name

        def f(t, y):
            fv = np.empty((3, nd))
            for k in range(nd):
                a, b, c = motions[k](t)
                fv[0, k] = a
                fv[1, k] = b
                fv[2, k] = c
            dy, ok = kern(t, y, fv, *args, dd0, n, m)
            if not ok:
                raise SingularityError(f"mechanism {name!r}: augmented matrix is singular at t = {t:.6g} s")
            return dy

        return f


    def compiled_stepper(self, alpha: float = BAUMGARTE_ALPHA, beta: float = BAUMGARTE_BETA, contacts=None,
                         ddelta0=None):
        """A compiled Dormand--Prince step for :func:`dopri5` (``stepper=``), same model as :meth:`compiled_rhs`.

        The driver motions (Python callables of time only) are evaluated at the
        six stage times before the single compiled call.
        """
        if _numba is None:
            raise ParameterError("backend 'numba' requested but numba is not installed (pip install numba)")
        _get_kernel()
        step = _STEP_KERNEL
        C = np.zeros((0, 15)) if contacts is None else np.ascontiguousarray(contacts, dtype=float)
        dd0 = np.zeros(0) if ddelta0 is None else ddelta0
        n, m = self.n, self.m
        args = (np.ascontiguousarray(self._J0), self._pi, self._pj, self._si, self._sj, self._prx, self._ai,
                self._aj, self._aoff, self._arows, self._drows, self._dcol, self._dmotor, self.mass_diag, self._fb,
                self._fs, self._fa, self._fk, self._fc, float(alpha), float(beta), C)
        motions = self._dmotion
        nd = len(motions)
        name = self.name
        cs = _C

        def stepper(t, h, y, f, rtol, atol):
            fvs = np.zeros((7, 3, nd))
            for i in range(1, 7):
                ti = t + cs[i] * h
                for k in range(nd):
                    a, b, c = motions[k](ti)
                    fvs[i, 0, k] = a
                    fvs[i, 1, k] = b
                    fvs[i, 2, k] = c
            y_new, f_new, err = step(t, h, y, f, fvs, rtol, atol, *args, dd0, n, m)
            if err < 0:
                raise SingularityError(f"mechanism {name!r}: augmented matrix is singular near t = {t:.6g} s")
            return y_new, f_new, err

        return stepper


# --------------------------------------------------------------------------- solvers
def assemble(mech: Mechanism, q_guess, t: float = 0.0, tol: float = ASSEMBLY_TOL,
             max_iter: int = ASSEMBLY_MAX_ITER) -> np.ndarray:
    """Solve ``H(q, t) = 0`` by Newton (least-norm steps) from ``q_guess`` (n,).

    Raises :class:`robolib.ConvergenceError` if the mechanism does not assemble
    (no solution near the guess, e.g. links too short to close the loop).

    >>> pend = Mechanism([Body("bar", 1.0, 0.1)], [GroundPin("O", "bar", (-0.5, 0.0), (0.0, 0.0)),
    ...                   Driver("d", "bar", Constant(np.pi / 2))])
    >>> np.round(assemble(pend, [0.4, 0.1, 1.4]), 12).tolist()
    [0.0, 0.5, 1.570796326795]
    """
    q = np.array(q_guess, dtype=float)
    if q.shape != (mech.n,) or not np.all(np.isfinite(q)):
        raise ParameterError(f"q_guess must be a finite vector of shape ({mech.n},), got shape {q.shape}")
    for _ in range(max_iter):
        H = mech.residual(q, t)
        if np.max(np.abs(H), initial=0.0) < tol:
            return q
        J = mech.jacobian(q)
        dq = np.linalg.lstsq(J, -H, rcond=None)[0]
        q = q + dq
        if not np.all(np.isfinite(q)) or np.max(np.abs(dq)) > 1e6:
            break
    H = mech.residual(q, t)
    if np.all(np.isfinite(H)) and np.max(np.abs(H), initial=0.0) < tol * 100:
        return q
    raise ConvergenceError(
        f"mechanism {mech.name!r} does not assemble at t = {t:g} s: max|H| = {np.max(np.abs(H)):.3g} "
        f"after {max_iter} Newton iterations (check lengths, ground points and the initial guess)"
    )


def _solve_square(J, b, what: str):
    if J.shape[0] != J.shape[1]:
        return np.linalg.lstsq(J, b, rcond=None)[0]
    if 1.0 / np.linalg.cond(J) < SINGULAR_TOL:
        raise SingularityError(f"{what}: the constraint Jacobian is singular")
    return np.linalg.solve(J, b)


def kinematic_state(mech: Mechanism, q_guess, t: float):
    """Position, velocity and acceleration of a kinematically driven (0-DOF) mechanism.

    Returns ``(q, qd, qdd)`` from ``H = 0``, ``J qd = -H_t``, ``J qdd = gamma``.
    Raises :class:`SingularityError` at a singular configuration.
    """
    q = assemble(mech, q_guess, t)
    J = mech.jacobian(q)
    qd = _solve_square(J, -mech.time_derivative(t), f"mechanism {mech.name!r} at t = {t:g} s")
    qdd = _solve_square(J, mech.gamma(q, qd, t), f"mechanism {mech.name!r} at t = {t:g} s")
    return q, qd, qdd


def inverse_dynamics(mech: Mechanism, q, qd, qdd, t: float = 0.0):
    """Multipliers of a 0-DOF motion: solve ``J^T lambda = g - M qdd`` (m,)."""
    J = mech.jacobian(q)
    g = mech.applied_forces(q, qd, t)
    rhs = g - mech.mass_diag * np.asarray(qdd, float)
    return _solve_square(J.T, rhs, f"mechanism {mech.name!r} inverse dynamics")


def driving_torques(mech: Mechanism, lam) -> dict:
    """Motor torques (N m, or N for translational drivers) from the multipliers: ``tau = -lambda`` of each driver row.

    ``lam`` may be (m,) or (..., m); returns ``{driver name: value(s)}``.
    """
    lam = np.asarray(lam, dtype=float)
    out = {}
    for jt in mech.joints:
        if isinstance(jt, Driver):
            out[jt.name] = -lam[..., mech.row_slice(jt.name).start]
    return out


def virtual_power_torques(mech: Mechanism, q, qd, qdd, t: float = 0.0) -> dict:
    """Motor torques by virtual power (Kane): ``tau_k = v_k . (M qdd - g)``.

    ``v_k`` is the velocity field with unit rate on driver ``k`` and zero on
    every other row (``J v_k = e_k``). Independent of the multipliers.
    """
    J = mech.jacobian(q)
    f = mech.mass_diag * np.asarray(qdd, float) - mech.applied_forces(q, qd, t)
    out = {}
    for name in mech.driver_names:
        e = np.zeros(mech.m)
        e[mech.row_slice(name).start] = 1.0
        v = _solve_square(J, e, f"virtual velocity of {name!r}")
        out[name] = float(v @ f)
    return out


def energy_terms(mech: Mechanism, q, qd) -> dict:
    """Kinetic and potential energy (J) of sampled states ``q, qd`` (..., n)."""
    return {"kinetic": mech.kinetic_energy(qd), "potential": mech.potential_energy(q)}


# --------------------------------------------------------------------------- integrator
# Dormand-Prince 5(4) coefficients
_C = np.array([0.0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1.0, 1.0])
_A = [
    [],
    [1 / 5],
    [3 / 40, 9 / 40],
    [44 / 45, -56 / 15, 32 / 9],
    [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729],
    [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656],
    [35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84],
]
_A = [np.array(a, dtype=float) for a in _A]
_B = np.array([35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0.0])
_E = _B - np.array([5179 / 57600, 0.0, 7571 / 16695, 393 / 640, -92097 / 339200, 187 / 2100, 1 / 40])


def hermite(t0, y0, f0, t1, y1, f1, t):
    """Cubic Hermite interpolant of an accepted step at time(s) ``t`` (scalar -> (d,), array -> (k, d))."""
    h = t1 - t0
    s = (np.asarray(t, float) - t0) / h
    s = s[..., None]
    s2, s3 = s * s, s * s * s
    return ((2 * s3 - 3 * s2 + 1) * y0 + (s3 - 2 * s2 + s) * h * f0
            + (-2 * s3 + 3 * s2) * y1 + (s3 - s2) * h * f1)


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


def dopri5(fun, t0: float, y0, t_end: float, rtol: float = 1e-6, atol=1e-9, h0: float | None = None,
           t_eval=None, max_steps: int = 10_000_000, h_max: float = np.inf, step_hook=None,
           stepper=None) -> IntegrationResult:
    """Adaptive Dormand--Prince 5(4) integration of ``dy/dt = fun(t, y)`` from t0 to t_end.

    ``t_eval``: sample times (cubic Hermite dense output), default = every
    accepted step. ``step_hook(t0, y0, f0, t1, y1, f1)`` is called for each
    candidate accepted step and returns ``True`` to have the step redone (after
    it changed the state the right-hand side depends on, e.g. an impact's onset
    speed). ``stepper(t, h, y, f, rtol, atol) -> (y_new, f_new, err)`` optionally
    replaces the six stage evaluations by one compiled call (same Butcher
    tableau, see :meth:`Mechanism.compiled_stepper`). Raises
    :class:`robolib.ConvergenceError` if the step size collapses.

    >>> r = dopri5(lambda t, y: -y, 0.0, np.array([1.0]), 1.0, rtol=1e-10, atol=1e-12, t_eval=[1.0])
    >>> bool(abs(r.y[0, 0] - np.exp(-1.0)) < 1e-8)
    True
    """
    y = np.array(y0, dtype=float)
    atol = np.broadcast_to(np.asarray(atol, float), y.shape)
    t = float(t0)
    f = fun(t, y)
    n_rhs = 1
    if h0 is None:
        sc = atol + rtol * np.abs(y)
        d0, d1 = np.sqrt(np.mean((y / sc) ** 2)), np.sqrt(np.mean((f / sc) ** 2))
        h = 1e-6 if d0 < 1e-5 or d1 < 1e-5 else 0.01 * d0 / d1
        h = min(h, abs(t_end - t0), h_max)
    else:
        h = h0
    if t_eval is not None:
        t_eval = np.asarray(t_eval, float)
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
        if stepper is not None:
            y_new, f_new, err = stepper(t, h, y, f, rtol, atol)
        else:
            K[0] = f
            for i in range(1, 7):
                yi = y + h * (np.dot(_A[i], K[:i]))
                K[i] = fun(t + _C[i] * h, yi)
            y_new = yi  # stage 7 argument is the 5th-order solution (FSAL)
            err_vec = h * np.dot(_E, K)
            sc = atol + rtol * np.maximum(np.abs(y), np.abs(y_new))
            err = math.sqrt(float(np.mean((err_vec / sc) ** 2)))
            f_new = None
        n_rhs += 6
        if not math.isfinite(err):
            err = 1e10
        if err <= 1.0:
            t_new = t + h
            if f_new is None:
                f_new = K[6].copy()
            if step_hook is not None and step_hook(t, y, f, t_new, y_new, f_new):
                n_rej += 1
                continue  # redo the same step with the updated state
            if t_eval is not None:
                while k_eval < len(t_eval) and t_eval[k_eval] <= t_new:
                    out_y[k_eval] = hermite(t, y, f, t_new, y_new, f_new, t_eval[k_eval])
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


def resolve_backend(backend: str) -> str:
    """``"numpy"`` or ``"numba"`` for a requested backend.

    ``"auto"`` means numba when it is installed, unless the environment
    variable ``ROBOLIB_BACKEND=numpy`` forces the reference path.

    >>> resolve_backend("numpy")
    'numpy'
    """
    if backend not in ("auto", "numpy", "numba"):
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
    ``(q, qd, W_drive, W_loss)`` (see :meth:`Mechanism.rhs`)."""
    q0 = np.asarray(q0, float)
    qd0 = np.asarray(qd0, float)
    if q0.shape != (mech.n,) or qd0.shape != (mech.n,):
        raise ParameterError(f"q0 and qd0 must have shape ({mech.n},), got {q0.shape} and {qd0.shape}")
    y0 = np.concatenate([q0, qd0, [0.0, 0.0]])
    stepper = None
    if extra is None and resolve_backend(backend) == "numba":
        f = mech.compiled_rhs(alpha, beta)
        stepper = mech.compiled_stepper(alpha, beta)
    else:
        f = mech.rhs(alpha, beta, extra)
    return dopri5(f, float(t_span[0]), y0, float(t_span[1]), rtol=rtol, atol=atol, t_eval=t_eval,
                  step_hook=step_hook, h_max=h_max, stepper=stepper)


def project(mech: Mechanism, q, qd, t: float = 0.0):
    """Project a state onto the constraint manifold: ``H(q) = 0`` (Newton) and ``J qd = -H_t`` (least change)."""
    q = assemble(mech, q, t)
    J = mech.jacobian(q)
    r = J @ qd + mech.time_derivative(t)
    qd = np.asarray(qd, float) - np.linalg.lstsq(J, r, rcond=None)[0]
    return q, qd


# --------------------------------------------------------------------------- compiled kernel
def _rhs_kernel_py(t, y, fv, J0, pi, pj, si, sj, prx, ai, aj, aoff, arows, drows, dcol, dmotor, mass,
                   fb, fs, fa, fk, fc, alpha, beta, C, dd0, n, m):
    """Scalar-loop right-hand side (compiled by numba); mirrors Mechanism.rhs + ClearanceModel._forces."""
    nb = n // 3
    q = y[:n]
    qd = y[n:2 * n]
    J = J0.copy()
    H = np.zeros(m)
    gam = np.zeros(m)
    Ht = np.zeros(m)
    g = np.zeros(n)
    for p in range(pi.shape[0]):
        i = pi[p]
        j = pj[p]
        r = prx[p]
        th = q[3 * i + 2]
        w = qd[3 * i + 2]
        ct = math.cos(th)
        st = math.sin(th)
        aix = ct * si[p, 0] - st * si[p, 1]
        aiy = st * si[p, 0] + ct * si[p, 1]
        H[r] = q[3 * i] + aix
        H[r + 1] = q[3 * i + 1] + aiy
        J[r, 3 * i + 2] = -aiy
        J[r + 1, 3 * i + 2] = aix
        gam[r] = aix * w * w
        gam[r + 1] = aiy * w * w
        if j < nb:
            th = q[3 * j + 2]
            w = qd[3 * j + 2]
            ct = math.cos(th)
            st = math.sin(th)
            ajx = ct * sj[p, 0] - st * sj[p, 1]
            ajy = st * sj[p, 0] + ct * sj[p, 1]
            H[r] -= q[3 * j] + ajx
            H[r + 1] -= q[3 * j + 1] + ajy
            J[r, 3 * j + 2] = ajy
            J[r + 1, 3 * j + 2] = -ajx
            gam[r] -= ajx * w * w
            gam[r + 1] -= ajy * w * w
        else:
            H[r] -= sj[p, 0]
            H[r + 1] -= sj[p, 1]
    for k in range(arows.shape[0]):
        tj = q[3 * aj[k] + 2]
        ti = q[3 * ai[k] + 2] if ai[k] < nb else 0.0
        H[arows[k]] = tj - ti - aoff[k]
    for k in range(drows.shape[0]):
        H[drows[k]] = q[dcol[k]] - fv[0, k]
        Ht[drows[k]] = -fv[1, k]
        gam[drows[k]] = fv[2, k]
    P_loss = 0.0
    for k in range(fb.shape[0]):
        b = fb[k]
        th = q[3 * b + 2]
        w = qd[3 * b + 2]
        ct = math.cos(th)
        st = math.sin(th)
        ax = ct * fs[k, 0] - st * fs[k, 1]
        ay = st * fs[k, 0] + ct * fs[k, 1]
        vx = qd[3 * b] - w * ay
        vy = qd[3 * b + 1] + w * ax
        Fx = -fk[k] * (q[3 * b] + ax - fa[k, 0]) - fc[k] * vx
        Fy = -fk[k] * (q[3 * b + 1] + ay - fa[k, 1]) - fc[k] * vy
        g[3 * b] += Fx
        g[3 * b + 1] += Fy
        g[3 * b + 2] += ax * Fy - ay * Fx
        P_loss += fc[k] * (vx * vx + vy * vy)
    for k in range(C.shape[0]):
        bi = int(C[k, 0])
        bj = int(C[k, 3])
        RB = C[k, 6]
        RJ = C[k, 7]
        c = C[k, 8]
        K = C[k, 9]
        D = C[k, 10]
        mu = C[k, 11]
        v0 = C[k, 12]
        v1 = C[k, 13]
        th = q[3 * bj + 2]
        wj = qd[3 * bj + 2]
        ct = math.cos(th)
        st = math.sin(th)
        ajx = ct * C[k, 4] - st * C[k, 5]
        ajy = st * C[k, 4] + ct * C[k, 5]
        pjx = q[3 * bj] + ajx
        pjy = q[3 * bj + 1] + ajy
        wi = 0.0
        aix = 0.0
        aiy = 0.0
        vix = 0.0
        viy = 0.0
        if bi >= 0:
            th = q[3 * bi + 2]
            wi = qd[3 * bi + 2]
            ct = math.cos(th)
            st = math.sin(th)
            aix = ct * C[k, 1] - st * C[k, 2]
            aiy = st * C[k, 1] + ct * C[k, 2]
            pix = q[3 * bi] + aix
            piy = q[3 * bi + 1] + aiy
            vix = qd[3 * bi] - wi * aiy
            viy = qd[3 * bi + 1] + wi * aix
        else:
            pix = C[k, 1]
            piy = C[k, 2]
        ex = pjx - pix
        ey = pjy - piy
        eps = math.sqrt(ex * ex + ey * ey)
        delta = eps - c
        if delta <= 0.0:
            continue
        nx = ex / eps
        ny = ey / eps
        vjx = qd[3 * bj] - wj * ajy
        vjy = qd[3 * bj + 1] + wj * ajx
        edx = vjx - vix
        edy = vjy - viy
        dd = edx * nx + edy * ny
        vt = -edx * ny + edy * nx + wj * RJ - wi * RB
        Fh = K * delta * math.sqrt(delta)
        Fn = Fh * (1.0 + D * dd / dd0[k])
        if Fn < 0.0:
            Fn = 0.0
        s = abs(vt)
        Ft = 0.0
        if s > v0 and Fn > 0.0 and mu > 0.0:
            cd = 1.0 if s >= v1 else (s - v0) / (v1 - v0)
            Ft = -mu * cd * Fn * (1.0 if vt > 0.0 else -1.0)
        fx = -Fn * nx - Ft * ny
        fy = -Fn * ny + Ft * nx
        lx = ajx + RJ * nx
        ly = ajy + RJ * ny
        g[3 * bj] += fx
        g[3 * bj + 1] += fy
        g[3 * bj + 2] += lx * fy - ly * fx
        if bi >= 0:
            lx = aix + RB * nx
            ly = aiy + RB * ny
            g[3 * bi] -= fx
            g[3 * bi + 1] -= fy
            g[3 * bi + 2] -= lx * fy - ly * fx
        P_loss += (Fn - Fh) * dd - Ft * vt
    # Schur complement of the augmented system (M is diagonal):
    # S lambda = J M^-1 g - gamma',  S = J M^-1 J^T;  qdd = M^-1 (g - J^T lambda)
    dy = np.zeros(y.shape[0])
    b2 = beta * beta
    rc = np.zeros(m)
    JM = np.zeros((m, n))
    for r in range(m):
        hd = Ht[r]
        acc = 0.0
        for i in range(n):
            v = J[r, i]
            if v != 0.0:
                hd += v * qd[i]
                JM[r, i] = v / mass[i]
                acc += JM[r, i] * g[i]
        rc[r] = acc - (gam[r] - 2.0 * alpha * hd - b2 * H[r])
    S = np.zeros((m, m))
    for r in range(m):
        for c2 in range(r + 1):
            acc = 0.0
            for i in range(n):
                acc += JM[r, i] * J[c2, i]
            S[r, c2] = acc
    # Cholesky S = L L^T (lower triangle in place)
    for r in range(m):
        for c2 in range(r + 1):
            acc = S[r, c2]
            for k2 in range(c2):
                acc -= S[r, k2] * S[c2, k2]
            if r == c2:
                if acc <= 1e-14 * (S[r, r] + 1e-300):
                    return dy, False
                S[r, r] = math.sqrt(acc)
            else:
                S[r, c2] = acc / S[c2, c2]
    lam = rc.copy()
    for r in range(m):
        acc = lam[r]
        for k2 in range(r):
            acc -= S[r, k2] * lam[k2]
        lam[r] = acc / S[r, r]
    for r in range(m - 1, -1, -1):
        acc = lam[r]
        for k2 in range(r + 1, m):
            acc -= S[k2, r] * lam[k2]
        lam[r] = acc / S[r, r]
    b = np.zeros(n + m)
    for i in range(n):
        acc = g[i]
        for r in range(m):
            acc -= J[r, i] * lam[r]
        b[i] = acc / mass[i]
    for r in range(m):
        b[n + r] = lam[r]
    for i in range(n):
        dy[i] = qd[i]
        dy[n + i] = b[i]
    P_drive = 0.0
    for k in range(drows.shape[0]):
        if dmotor[k]:
            P_drive -= b[n + drows[k]] * qd[dcol[k]]
    dy[2 * n] = P_drive
    dy[2 * n + 1] = P_loss
    return dy, True


_KERNEL = None
_STEP_KERNEL = None
_C_ARR = np.array(_C)
_A_MAT = np.zeros((7, 7))
for _i in range(1, 7):
    _A_MAT[_i, :_i] = _A[_i]
_E_ARR = np.array(_E)


def _dopri_step_py(t, h, y, f0, fvs, rtol, atol, J0, pi, pj, si, sj, prx, ai, aj, aoff, arows, drows, dcol,
                   dmotor, mass, fb, fs, fa, fk, fc, alpha, beta, C, dd0, n, m):
    """One Dormand-Prince step with the compiled right-hand side; fvs (7, 3, nd) = driver values per stage."""
    d = y.shape[0]
    K = np.empty((7, d))
    K[0, :] = f0
    yi = y.copy()
    for i in range(1, 7):
        for k in range(d):
            acc = 0.0
            for j in range(i):
                acc += _A_MAT[i, j] * K[j, k]
            yi[k] = y[k] + h * acc
        dy, ok = _KERNEL(t + _C_ARR[i] * h, yi, fvs[i], J0, pi, pj, si, sj, prx, ai, aj, aoff, arows, drows, dcol,
                         dmotor, mass, fb, fs, fa, fk, fc, alpha, beta, C, dd0, n, m)
        if not ok:
            return yi, K[6], -1.0
        K[i, :] = dy
    s = 0.0
    for k in range(d):
        e = 0.0
        for j in range(7):
            e += _E_ARR[j] * K[j, k]
        sc = atol[k] + rtol * max(abs(y[k]), abs(yi[k]))
        s += (h * e / sc) ** 2
    return yi, K[6].copy(), math.sqrt(s / d)


def _get_kernel():
    """The numba-compiled kernels (compiled on first use, cached on disk)."""
    global _KERNEL, _STEP_KERNEL
    if _KERNEL is None:
        _KERNEL = _numba.njit(cache=True, fastmath=False)(_rhs_kernel_py)
        _STEP_KERNEL = _numba.njit(cache=True, fastmath=False)(_dopri_step_py)
    return _KERNEL


__all__ = [
    "GROUND", "Body", "GroundPin", "Pin", "AngleLock", "Driver", "Constant", "ConstantSpeed",
    "PointSpringDamper", "Mechanism", "rotate", "assemble", "kinematic_state", "inverse_dynamics",
    "driving_torques", "virtual_power_torques", "energy_terms", "dopri5", "hermite",
    "IntegrationResult", "simulate", "project", "resolve_backend",
]
