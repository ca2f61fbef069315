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

Applied forces are a uniform gravity field ``gravity = (g_x, g_y)`` (m/s^2; the
body force ``m_k g`` at each centre of mass, potential ``-m_k g . r_k``) and
*force elements* (:class:`PointSpringDamper`) that also report their potential
energy and dissipated power, so a simulation can carry the energy books
(:func:`energy_terms`). Integration is an adaptive
Dormand--Prince 5(4) method with its 4th-order dense output, written here so
that the clearance module can hook impact detection into every accepted step.

Two implementations: the reference :func:`dopri5` loop in Python over
:meth:`Mechanism.rhs` (vectorised numpy, full augmented matrix, about 200 us
per call for the gear-shift manipulator), and :func:`integrate_compiled`, the
whole step loop compiled with numba (:mod:`robolib.core._kernels`: right-hand side,
error control, dense output and the clearance impact events; the augmented
system solved through its sparse Schur complement ``J M^-1 J^T`` since ``M`` is
diagonal, a few microseconds per right-hand side). Contact makes 10^4 steps
per simulated second necessary, so the compiled loop is what makes the sweeps
affordable; ``backend="auto"`` picks it when numba is installed
(``ROBOLIB_BACKEND=numpy`` forces the reference path). The tests check both
against physics and against each other.

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

from typing import Sequence

import numpy as np

from robolib.core import _kernels
from robolib.core.errors import ParameterError, SingularityError
from robolib.core.multibody import _checks as chk

_numba = _kernels._numba  # None when numba is not installed

#: Newton assembly stops when ``max|H| <`` this (m or rad).
ASSEMBLY_TOL = 1e-12
#: Maximum Newton iterations in :func:`assemble`.
ASSEMBLY_MAX_ITER = 50
#: Reciprocal condition number below which a Jacobian / KKT matrix is singular.
SINGULAR_TOL = 1e-12
#: Largest gravity field a mechanism accepts (m/s^2): 100 g, far above any planet's surface.
GRAVITY_MAX = 1000.0
#: Default Baumgarte factors (1/s): ``gamma' = gamma - 2 alpha dH/dt - beta^2 H``.
BAUMGARTE_ALPHA = 5.0
BAUMGARTE_BETA = 5.0

from robolib.core.multibody.elements import (  # noqa: E402,F401  (the elements are part of this module's names)
    _COORD,
    GROUND,
    AngleLock,
    Body,
    Constant,
    ConstantSpeed,
    Driver,
    GroundPin,
    Pin,
    PointSpringDamper,
)

# Bodies, joints, drivers and force elements: robolib.core.multibody.elements.


# --------------------------------------------------------------------------- helpers
#: Columns of a contact table (:class:`robolib.core.clearance.ClearanceModel`): bodies and points, radii, clearance,
#: stiffness, hysteresis factor, friction, floor.
CONTACT_COLUMNS = 15


def contact_arrays(contacts, ddelta0):
    """A contact table ``(k, 15)`` and its onset speeds ``(k,)`` for the compiled kernels, checked.

    ``ddelta0`` is read (and updated in place) by the kernels, so with ``k > 0`` contacts it must be a
    float array of shape ``(k,)``, finite and positive; ``None`` only without contacts.
    """
    if contacts is None:
        C = np.zeros((0, CONTACT_COLUMNS))
    else:
        C = np.ascontiguousarray(chk.real_array("contacts", contacts, shape=(None, CONTACT_COLUMNS),
                                                allow_empty=True))
    k = len(C)
    if ddelta0 is None and k == 0:
        return C, np.zeros(0)
    if not (type(ddelta0) is np.ndarray and ddelta0.dtype == np.float64 and ddelta0.shape == (k,)
            and ddelta0.flags.c_contiguous):
        raise ParameterError(f"ddelta0 must be a float64 array of shape ({k},) (one onset speed per contact, "
                             f"updated in place), got {ddelta0!r:.60}")
    if not (np.all(np.isfinite(ddelta0)) and np.all(ddelta0 > 0)):
        raise ParameterError(f"ddelta0 must be finite and positive (m/s), got {ddelta0!r:.60}")
    return C, ddelta0


def rotate(s, theta):
    """Rotate body-frame vectors ``s`` (..., 2) by ``theta`` (...): ``A(theta) s``.

    >>> np.round(rotate(np.array([1.0, 0.0]), np.pi / 2), 12).tolist()
    [0.0, 1.0]
    """
    s = chk.real_array("s", s, shape=(2,), batch=True)
    theta = chk.real_array("theta", theta)
    try:
        np.broadcast_shapes(s.shape[:-1], theta.shape)
    except ValueError:
        raise ParameterError(f"theta of shape {theta.shape} does not broadcast with s of shape {s.shape}") from None
    c, sn = np.cos(theta), np.sin(theta)
    return np.stack([c * s[..., 0] - sn * s[..., 1], sn * s[..., 0] + c * s[..., 1]], axis=-1)


def _sparse_cholesky_pattern(jc, jn):
    """Symbolic Cholesky of ``S = J M^-1 J^T`` from the Jacobian pattern (``jc``, ``jn``, see :mod:`robolib.core._kernels`).

    Greedy minimum-degree order, then the fill pattern. Returns ``iperm`` (m,)
    (row r of S goes to position ``iperm[r]``), ``lpat`` (nl, 2) the factor's
    non-zeros row by row, ``ustart`` (nl + 1,) and ``uk`` (nu,) the update columns.

    >>> iperm, lpat, us, uk = _sparse_cholesky_pattern(np.array([[0, 0], [0, 0]]), np.array([1, 1]))
    >>> lpat.tolist(), uk.tolist()
    ([[0, 0], [1, 0], [1, 1]], [0])
    """
    m = len(jn)
    cols = [set(int(c) for c in jc[r, :jn[r]]) for r in range(m)]
    adj = {r: {c for c in range(m) if c != r and cols[r] & cols[c]} for r in range(m)}
    order, rem = [], set(range(m))
    while rem:
        v = min(rem, key=lambda i: (len(adj[i] & rem), i))
        order.append(v)
        nb = adj[v] & rem
        for a in nb:
            adj[a] |= nb - {a}
        rem.remove(v)
    iperm = np.empty(m, dtype=np.int64)
    iperm[order] = np.arange(m)
    pat = np.zeros((m, m), dtype=bool)
    for r in range(m):
        for c in range(r + 1):
            if r == c or cols[r] & cols[c]:
                a, b = sorted((iperm[r], iperm[c]), reverse=True)
                pat[a, b] = True
    for c in range(m):  # symbolic elimination: fill
        rows = [r for r in range(c + 1, m) if pat[r, c]]
        for a in rows:
            for b in rows:
                if b <= a:
                    pat[a, b] = True
    lpat, ustart, uk = [], [0], []
    for r in range(m):
        for c in range(r + 1):
            if pat[r, c]:
                lpat.append((r, c))
                uk.extend(k for k in range(c) if pat[r, k] and pat[c, k])
                ustart.append(len(uk))
    return (iperm, np.array(lpat, dtype=np.int64).reshape(-1, 2), np.array(ustart, dtype=np.int64),
            np.array(uk, dtype=np.int64))


# --------------------------------------------------------------------------- mechanism

def check_mechanism(name: str, value):
    """A :class:`Mechanism`, or ParameterError naming ``name``."""
    if not isinstance(value, Mechanism):
        raise ParameterError(f"{name} must be a Mechanism, got {value!r:.60} ({type(value).__name__})")
    return value

class Mechanism:
    """Bodies + joints + force elements, compiled to index arrays for fast evaluation.

    Raises :class:`robolib.ParameterError` for duplicate names, a joint that
    names an unknown body, or malformed points.

    ``gravity`` is the uniform field ``(g_x, g_y)`` in m/s^2 (default none; ``(0, -9.81)``
    for y up): each body feels ``m_k g`` at its centre of mass.

    >>> m = Mechanism([Body("a", 1.0, 0.1)], [Driver("d", "a", Constant(0.2))])
    >>> m.n, m.m, m.row_slice("d")
    (3, 1, slice(0, 1, None))
    >>> Mechanism([Body("a", 2.0, 0.1)], [], gravity=(0.0, -9.81)).applied_forces([0, 0, 0], [0, 0, 0]).tolist()
    [0.0, -19.62, 0.0]
    """

    def __init__(self, bodies: Sequence[Body], joints: Sequence, forces: Sequence = (), name: str = "mechanism",
                 gravity=(0.0, 0.0)):
        self.name = chk.text("name", name)
        self.gravity = tuple(float(v) for v in chk.real_array("gravity", gravity, shape=(2,)))
        if np.hypot(*self.gravity) > GRAVITY_MAX:
            raise ParameterError(f"mechanism {name!r}: gravity must be a field in m/s^2 of at most {GRAVITY_MAX:g}, "
                                 f"got {self.gravity} (a value in mm/s^2?)")
        self.bodies = chk.sequence("bodies", bodies, (Body,), "Body objects")
        self.joints = chk.sequence("joints", joints, (GroundPin, Pin, AngleLock, Driver),
                                   "joints (GroundPin, Pin, AngleLock, Driver)")
        self.forces = chk.sequence("forces", forces, (PointSpringDamper,), "PointSpringDamper objects")
        if not self.bodies:
            raise ParameterError(f"mechanism {name!r}: bodies must hold at least one Body, got []")
        names = [b.name for b in self.bodies]
        if len(set(names)) != len(names) or GROUND in names:
            raise ParameterError(f"mechanism {name!r}: the names of the bodies must be unique and not {GROUND!r}, "
                                 f"got {names}")
        jnames = [j.name for j in self.joints]
        if len(set(jnames)) != len(jnames):
            raise ParameterError(f"mechanism {name!r}: joint names must be unique (joints), got {jnames}")
        self.body_index = {b: k for k, b in enumerate(names)}
        self.nb = len(names)
        self.n = 3 * self.nb
        self.mass_diag = np.repeat([[b.mass, b.mass, b.inertia] for b in self.bodies], 1, axis=0).ravel()
        #: Generalised gravity force (n,): ``m_k g`` on each body's x and y rows.
        self._g0 = np.zeros(self.n)
        self._g0[0::3] = self.mass_diag[0::3] * self.gravity[0]
        self._g0[1::3] = self.mass_diag[1::3] * self.gravity[1]
        self._compile()

    # ---------------------------------------------------------------- compilation
    def _body(self, name: str, joint: str, allow_ground: bool = False) -> int:
        if allow_ground and name == GROUND:
            return self.nb  # index of the virtual ground body
        if not isinstance(name, str) or name not in self.body_index:
            where = "body" if joint in ("point_position", "point_velocity", "coordinate") else \
                f"joints/forces: {joint!r}"
            raise ParameterError(
                f"mechanism {self.name!r}: {where} names body {name!r}, which does not exist "
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
                pins_si.append(jt.point)
                pins_j.append(self.nb)
                pins_sj.append(jt.ground)
                pin_rows.append(row)
                nr = 2
            elif isinstance(jt, Pin):
                bi = self._body(jt.body_i, jt.name)
                bj = self._body(jt.body_j, jt.name)
                if bi == bj:
                    raise ParameterError(f"joint {jt.name!r}: body_i and body_j are the same body {jt.body_i!r}")
                pins_i.append(bi)
                pins_si.append(jt.point_i)
                pins_j.append(bj)
                pins_sj.append(jt.point_j)
                pin_rows.append(row)
                nr = 2
            elif isinstance(jt, AngleLock):
                ang_i.append(self._body(jt.body_i, jt.name, allow_ground=True))
                ang_j.append(self._body(jt.body_j, jt.name))
                ang_off.append(float(jt.offset))
                ang_rows.append(row)
                nr = 1
            else:  # a Driver (the constructor admits these four joint types)
                drv_col.append(3 * self._body(jt.body, jt.name) + _COORD[jt.coord])
                drv_rows.append(row)
                drv_motion.append(jt.motion)
                drv_motor.append(bool(jt.motor))
                nr = 1
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
        fes = self.forces
        self._fb = np.array([self._body(fe.body, fe.name) for fe in fes], dtype=int)
        self._fs = np.array([fe.point for fe in fes], dtype=float).reshape(-1, 2)
        self._fa = np.array([fe.anchor for fe in fes], dtype=float).reshape(-1, 2)
        self._fk = np.array([fe.stiffness for fe in fes], dtype=float)
        self._fc = np.array([fe.damping for fe in fes], dtype=float)
        # work arrays for the augmented matrix
        self._kkt = np.zeros((self.n + self.m, self.n + self.m))
        self._kkt[np.arange(self.n), np.arange(self.n)] = self.mass_diag

    # ---------------------------------------------------------------- lookup
    def row_slice(self, joint: str) -> slice:
        """Rows of ``H`` that belong to joint ``joint``; unknown name -> ParameterError."""
        if not isinstance(joint, str) or joint not in self._slices:
            raise ParameterError(f"mechanism {self.name!r}: no joint named {joint!r} (joints: {list(self._slices)})")
        return self._slices[joint]

    def joint(self, name: str):
        """The joint object called ``name``; unknown name -> ParameterError."""
        if not isinstance(name, str) or name not in self._slices:
            raise ParameterError(f"mechanism {self.name!r}: name must be one of its joints {list(self._slices)}, "
                                 f"got {name!r}")
        return next(j for j in self.joints if j.name == name)

    def coordinate(self, body: str, coord: str = "theta") -> int:
        """Index into ``q`` of ``coord`` of ``body``.

        >>> Mechanism([Body("a", 1, 1), Body("b", 1, 1)], []).coordinate("b", "y")
        4
        """
        if not isinstance(coord, str) or coord not in _COORD:
            raise ParameterError(f"coord must be one of {list(_COORD)}, got {coord!r}")
        return 3 * self._body(body, "coordinate") + _COORD[coord]

    @property
    def driver_names(self) -> list[str]:
        """Names of the :class:`Driver` joints, in row order."""
        return [j.name for j in self.joints if isinstance(j, Driver)]

    def without(self, names: Sequence[str]) -> "Mechanism":
        """The same mechanism with the joints ``names`` removed (unknown name -> ParameterError)."""
        if isinstance(names, str) or not isinstance(names, (list, tuple, set, frozenset)):
            raise ParameterError(f"names must be a list of joint names, got {names!r} ({type(names).__name__})")
        for nm in names:
            if not isinstance(nm, str) or nm not in self._slices:
                raise ParameterError(f"mechanism {self.name!r}: names holds {nm!r}, not one of its joints "
                                     f"{list(self._slices)}")
        return Mechanism(self.bodies, [j for j in self.joints if j.name not in set(names)], self.forces, self.name,
                         gravity=self.gravity)

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

    def _terms(self, q, qd, t, drivers: bool = True):
        """``(J, H, gamma, H_t)`` at checked ``q``, ``qd`` (n,) and ``t`` (driver rows only with ``drivers``)."""
        qe = self._ext(q)
        th = qe[2::3]
        wd = self._ext(qd)[2::3]
        J, H, gam, Ht = self._J0.copy(), np.empty(self.m), np.zeros(self.m), np.zeros(self.m)
        if len(self._pi):
            Ai, Aj = self._pin_vectors(th)
            rj = self._real_j
            J[self._vrows, self._vcols] = np.concatenate([-Ai[:, 1], Ai[:, 0], Aj[rj, 1], -Aj[rj, 0]])
            d = qe.reshape(-1, 3)[self._pi, :2] + Ai - qe.reshape(-1, 3)[self._pj, :2] - Aj
            H[self._prx], H[self._pry] = d[:, 0], d[:, 1]
            acc = Ai * (wd[self._pi] ** 2)[:, None] - Aj * (wd[self._pj] ** 2)[:, None]
            gam[self._prx], gam[self._pry] = acc[:, 0], acc[:, 1]
        if len(self._ai):
            H[self._arows] = th[self._aj] - th[self._ai] - self._aoff
        if len(self._dcol) and drivers:
            fv = self._drivers(t)
            H[self._drows] = q[self._dcol] - fv[0]
            Ht[self._drows] = -fv[1]
            gam[self._drows] = fv[2]
        return J, H, gam, Ht

    def residual(self, q, t: float = 0.0) -> np.ndarray:
        """Constraint vector ``H(q, t)`` (m,), metres for pin rows, radians for angle rows."""
        q = chk.state("q", q, self.n)
        return self._terms(q, np.zeros(self.n), chk.real("t", t, unit="s"))[1]

    def jacobian(self, q) -> np.ndarray:
        """``J = dH/dq`` (m, n)."""
        return self._terms(chk.state("q", q, self.n), np.zeros(self.n), 0.0, drivers=False)[0]

    def time_derivative(self, t: float) -> np.ndarray:
        """``H_t = dH/dt`` at fixed q (m,) (only driver rows are non-zero)."""
        t = chk.real("t", t, unit="s")
        Ht = np.zeros(self.m)
        if len(self._dcol):
            Ht[self._drows] = -self._drivers(t)[1]
        return Ht

    def gamma(self, q, qd, t: float = 0.0) -> np.ndarray:
        """Right-hand side of ``J qdd = gamma`` (m,): ``-(J qd)_q qd - 2 J_t qd - H_tt``."""
        q, qd = chk.state("q", q, self.n), chk.state("qd", qd, self.n)
        return self._terms(q, qd, chk.real("t", t, unit="s"))[2]

    # ---------------------------------------------------------------- forces and energy
    def point_position(self, q, body: str, point) -> np.ndarray:
        """Global position (m) of body-frame ``point`` of ``body``; q may be (..., n).

        >>> m = Mechanism([Body("a", 1, 1)], [])
        >>> np.round(m.point_position([1.0, 2.0, np.pi / 2], "a", (0.5, 0.0)), 12).tolist()
        [1.0, 2.5]
        """
        q = chk.state("q", q, self.n, batch=True)
        k = 3 * self._body(body, "point_position")
        return q[..., k : k + 2] + rotate(chk.real_array("point", point, shape=(2,)), q[..., k + 2])

    def point_velocity(self, q, qd, body: str, point) -> np.ndarray:
        """Global velocity (m/s) of body-frame ``point`` of ``body``; q, qd may be (..., n)."""
        q, qd = chk.state("q", q, self.n, batch=True), chk.state("qd", qd, self.n, batch=True)
        chk.broadcast("qd", qd, "q", q)
        k = 3 * self._body(body, "point_velocity")
        As = rotate(chk.real_array("point", point, shape=(2,)), q[..., k + 2])
        w = qd[..., k + 2][..., None]
        return qd[..., k : k + 2] + w * np.stack([-As[..., 1], As[..., 0]], axis=-1)

    def applied_forces(self, q, qd, t: float = 0.0) -> np.ndarray:
        """Generalised applied force ``g_c`` (n,) of gravity and the force elements (N, N m)."""
        q, qd = chk.state("q", q, self.n), chk.state("qd", qd, self.n)
        chk.real("t", t, unit="s")
        g = self._g0.copy()
        if len(self._fb):
            self._add_applied(g, q, qd)
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
        qd = chk.state("qd", qd, self.n, batch=True)
        return 0.5 * np.sum(self.mass_diag * qd * qd, axis=-1)

    def potential_energy(self, q) -> np.ndarray:
        """Potential energy of gravity and the springs (J); q may be (..., n)."""
        q = chk.state("q", q, self.n, batch=True)
        V = -(q @ self._g0)
        for fe in self.forces:
            d = self.point_position(q, fe.body, fe.point) - np.asarray(fe.anchor, float)
            V = V + 0.5 * fe.stiffness * np.sum(d * d, axis=-1)
        return V

    # ---------------------------------------------------------------- dynamics
    def accelerations(self, q, qd, t: float = 0.0, g=None, alpha: float = BAUMGARTE_ALPHA,
                      beta: float = BAUMGARTE_BETA):
        """Augmented solve of Eq. 20: returns ``(qdd (n,), lambda (m,))``.

        ``g`` (n,) is the total generalised force; default: gravity and the force elements.
        Raises :class:`robolib.SingularityError` if the augmented matrix is singular.
        """
        q, qd = chk.state("q", q, self.n), chk.state("qd", qd, self.n)
        t = chk.real("t", t, unit="s")
        alpha, beta = chk.nonnegative_gain("alpha", alpha), chk.nonnegative_gain("beta", beta)
        g = self.applied_forces(q, qd, t) if g is None else chk.state("g", g, self.n)
        J, H, gam, Ht = self._terms(q, qd, t)
        rhs_c = gam - 2.0 * alpha * (J @ qd + Ht)
        if beta != 0.0:
            rhs_c = rhs_c - beta * beta * H
        return self._solve_kkt(J, g, rhs_c, t)

    def _solve_kkt(self, J, g, rhs_c, t):
        """``(qdd, lambda)`` of the augmented system at time ``t`` (s, for the message if it is singular)."""
        n = self.n
        K = self._kkt
        K[n:, :n] = J
        K[:n, n:] = J.T
        try:
            x = np.linalg.solve(K, np.concatenate([g, rhs_c]))
        except np.linalg.LinAlgError:
            raise SingularityError(f"mechanism {self.name!r}: augmented matrix [M J^T; J 0] is singular at t = "
                                   f"{t:.6g} s (redundant or inconsistent constraints, or a singular "
                                   "configuration)") from None
        return x[:n], x[n:]

    def rhs(self, alpha: float = BAUMGARTE_ALPHA, beta: float = BAUMGARTE_BETA, extra=None):
        """First-order right-hand side ``f(t, y)`` for ``y = (q, qd, W_drive, W_loss)``.

        ``W_drive`` accumulates the work of the motor rows (J), ``W_loss`` the
        energy dissipated by dampers and by ``extra`` (J, positive). ``extra``
        is ``None`` or a callable ``(t, q, qd, g) -> P_loss`` that adds its
        generalised forces into ``g`` in place and returns its dissipated power.
        """
        alpha, beta = chk.nonnegative_gain("alpha", alpha), chk.nonnegative_gain("beta", beta)
        chk.optional_callable("extra", extra)
        n = self.n
        have_drv, have_f = len(self._dcol) > 0, len(self._fb) > 0
        drows, dcol, dmotor = self._drows, self._dcol, self._dmotor
        ab2 = beta * beta

        g0 = self._g0

        def f(t, y):
            q = y[:n]
            qd = y[n : 2 * n]
            J, H, gam, Ht = self._terms(q, qd, t)
            g = g0.copy()
            P_loss = self._add_applied(g, q, qd) if have_f else 0.0
            if extra is not None:
                P_loss += extra(t, q, qd, g)
            qdd, lam = self._solve_kkt(J, g, gam - 2.0 * alpha * (J @ qd + Ht) - ab2 * H, t)
            dy = np.empty_like(y)
            dy[:n] = qd
            dy[n : 2 * n] = qdd
            # motor power: generalised force -J_d^T lambda_d dotted with qd
            P_drive = -float(np.dot(lam[drows][dmotor], qd[dcol][dmotor])) if have_drv else 0.0
            dy[2 * n] = P_drive
            dy[2 * n + 1] = P_loss
            if len(y) > 2 * n + 2:
                dy[2 * n + 2 :] = 0.0
            return dy

        return f


    def kernel_model(self):
        """The mechanism as arrays for the compiled kernels (:mod:`robolib.core._kernels`): ``(Mi, Mf, dtab)``.

        ``dtab`` is ``None`` when a driver motion has no compiled form (a motion object
        offers one through a ``kernel_row()`` method returning up to 10 floats).
        """
        if getattr(self, "_kmodel", None) is None:
            m = self.m
            jc = np.zeros((m, 4), dtype=np.int64)
            jn = np.zeros(m, dtype=np.int64)
            for p in range(len(self._pi)):
                i, j, r = int(self._pi[p]), int(self._pj[p]), int(self._prx[p])
                jc[r, :2] = (3 * i, 3 * i + 2)
                jc[r + 1, :2] = (3 * i + 1, 3 * i + 2)
                jn[r] = jn[r + 1] = 2
                if j < self.nb:
                    jc[r, 2:] = (3 * j, 3 * j + 2)
                    jc[r + 1, 2:] = (3 * j + 1, 3 * j + 2)
                    jn[r] = jn[r + 1] = 4
            for k, r in enumerate(self._arows):
                jc[r, 0] = 3 * self._aj[k] + 2
                jn[r] = 1
                if self._ai[k] < self.nb:
                    jc[r, 1] = 3 * self._ai[k] + 2
                    jn[r] = 2
            for k, r in enumerate(self._drows):
                jc[r, 0] = self._dcol[k]
                jn[r] = 1
            iperm, lpat, ustart, uk = _sparse_cholesky_pattern(jc, jn)
            pairs = []
            for r in range(m):
                for c in range(r + 1):
                    for a in range(jn[r]):
                        for b in range(jn[c]):
                            if jc[r, a] == jc[c, b]:
                                pr, pc = sorted((iperm[r], iperm[c]), reverse=True)
                                pairs.append((r, c, a, b, jc[r, a], pr, pc))
            pairs = np.array(pairs, dtype=np.int64).reshape(-1, 7)
            I = lambda a: np.ascontiguousarray(a, dtype=np.int64)  # noqa: E731
            F = lambda a: np.ascontiguousarray(a, dtype=float)  # noqa: E731
            Mi = (jc, jn, I(self._pi), I(self._pj), I(self._prx), I(self._ai), I(self._aj), I(self._arows),
                  I(self._drows), I(self._dcol), I(self._dmotor.astype(np.int64)), I(self._fb), pairs, iperm,
                  lpat, ustart, uk)
            Mf = (F(self._si).reshape(-1, 2), F(self._sj).reshape(-1, 2), F(self._aoff), F(self.mass_diag),
                  F(self._fs).reshape(-1, 2), F(self._fa).reshape(-1, 2), F(self._fk), F(self._fc), F(self._g0))
            dtab = None
            if all(getattr(mo, "kernel_row", None) is not None for mo in self._dmotion):
                dtab = np.zeros((len(self._dmotion), 10))
                for k, mo in enumerate(self._dmotion):
                    vals = np.asarray(mo.kernel_row(), dtype=float)
                    dtab[k, :len(vals)] = vals
            self._kmodel = (Mi, Mf, dtab)
        return self._kmodel

    def kernel_work(self):
        """Fresh work arrays for :func:`robolib.core._kernels.rhs_py` (J values, H, gamma, H_t, g, S, lambda, cos/sin)."""
        m, n = self.m, self.n
        return (np.zeros((m, 4)), np.zeros(m), np.zeros(m), np.zeros(m), np.zeros(n), np.zeros((m, m)),
                np.zeros(m), np.zeros((self.nb, 2)))

    def compiled_rhs(self, alpha: float = BAUMGARTE_ALPHA, beta: float = BAUMGARTE_BETA, contacts=None,
                     ddelta0=None):
        """Compiled (numba) version of :meth:`rhs`, for the same ``y = (q, qd, W_drive, W_loss)``.

        ``contacts`` is a contact table (k, 15) built by
        :class:`robolib.core.clearance.ClearanceModel` (bearing body, bearing point,
        journal body, journal point, R_B, R_J, c, K, D, mu, v0, v1, floor) and
        ``ddelta0`` the (k,) array of onset speeds, read at every call (the
        clearance event handler updates it in place). Driver motions are Python
        callables evaluated before the kernel. Raises
        :class:`robolib.ParameterError` if numba is not installed.
        """
        alpha, beta = chk.nonnegative_gain("alpha", alpha), chk.nonnegative_gain("beta", beta)
        C, dd0 = contact_arrays(contacts, ddelta0)
        rhs_k, _, _ = _kernels.get()
        Mi, Mf, _ = self.kernel_model()
        W = self.kernel_work()
        motions = self._dmotion
        nd = len(motions)
        name = self.name
        a, b = float(alpha), float(beta)

        def f(t, y):
            fv = np.empty((3, nd))
            for k in range(nd):
                fv[:, k] = motions[k](t)
            dy = np.empty(len(y))
            if rhs_k(float(t), np.ascontiguousarray(y, dtype=float), dy, fv, Mi, Mf, C, dd0, a, b, W) != _kernels.OK:
                raise SingularityError(f"mechanism {name!r}: augmented matrix is singular at t = {t:.6g} s")
            return dy

        return f



__all__ = ["GRAVITY_MAX", "GROUND", "Body", "GroundPin", "Pin", "AngleLock", "Driver", "Constant", "ConstantSpeed", "PointSpringDamper", "Mechanism", "rotate"]
