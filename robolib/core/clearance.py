"""Revolute joints with clearance on the planar multibody core.

A clearance joint drops the two rows of a :class:`~robolib.core.multibody.Pin` (or
:class:`~robolib.core.multibody.GroundPin`) and replaces them by a contact force
(the page's "force constraint"). Side ``i`` of the pin carries the bearing
(radius ``R_B``; the ground for a ground pin), side ``j`` the journal
(``R_J = R_B - c``). With ``e = P_j - P_i``, ``eps = |e|``:

* penetration ``delta = eps - c`` (contact when ``delta > 0``), normal ``n = e/eps``;
* contact points ``Q_i = P_i + R_B n`` (bearing) and ``Q_j = P_j + R_J n`` (journal);
* normal speed ``ddelta = de/dt . n``; slip ``v_t = (v_Qj - v_Qi) . t``, ``t = (-n_y, n_x)``;
* force on the journal at ``Q_j``: ``-F_n n + F_t t``; the opposite on the bearing
  at ``Q_i`` (:func:`robolib.core.contact.normal_force`, :func:`robolib.core.contact.tangential_force`).

The onset speed ``ddelta0`` of the Lankarani--Nikravesh / Flores laws is stored
per joint and per impact: an integration event (a step hook of
:func:`robolib.core.multibody.dopri5`) locates the time where ``delta`` crosses zero
upwards on the cubic Hermite interpolant of the step, stores
``max(ddelta, floor)`` there and redoes the step with it. The same hook records
contact episodes ``(t_on, t_off)``, from which the motion is classified as free
flight, impact (episode no longer than ``impact_max_duration``) or continuous
contact (longer).

Energy books: the simulation carries the work of the motors and the energy
dissipated by dampers, contact hysteresis and friction; the elastic contact
energy ``2/5 K delta^2.5`` is a potential (:meth:`ClearanceModel.contact_energy`).

>>> from robolib.core.multibody import Body, GroundPin, Mechanism
>>> mech = Mechanism([Body("disc", 1.0, 1e-3)], [GroundPin("O", "disc", (0.0, 0.0), (0.0, 0.0))])
>>> model = ClearanceModel(mech, [ClearanceSpec("O", clearance=1e-4)])
>>> model.reduced.m, model.names
(0, ['O'])
"""

from __future__ import annotations

import math
import numbers
import time
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
from scipy.optimize import brentq

from robolib.core import _kernels, contact
from robolib.core.checks import real, real_array
from robolib.core.errors import ConvergenceError, ParameterError, SingularityError
from robolib.core.multibody import (
    BAUMGARTE_ALPHA,
    BAUMGARTE_BETA,
    GroundPin,
    Mechanism,
    Pin,
    dopri5,
    driving_torques,
    integrate_compiled,
    resolve_backend,
)
from robolib.core.multibody import _checks as chk
from robolib.core.multibody.integrator import run_chunked
from robolib.core.multibody.mechanism import check_mechanism

#: Default upper duration (s) of one contact episode still called an "impact".
IMPACT_MAX_DURATION = 1e-3
#: Default floor (m/s) of the stored onset speed (grazing contacts).
DDELTA0_FLOOR = 1e-4
#: Codes returned by :func:`contact_modes`.
FREE, IMPACT, CONTINUOUS = 0, 1, 2
MODE_NAMES = {FREE: "free flight", IMPACT: "impact", CONTINUOUS: "continuous contact"}


@dataclass(frozen=True)
class ClearanceSpec:
    """Declares the revolute joint ``joint`` a clearance joint.

    ``clearance`` (m) is the radial clearance ``c = R_B - R_J``. Give either
    ``R_journal`` (m, default 5 mm) or ``R_bearing`` (m; then
    ``R_J = R_bearing - clearance``, which must be positive). Materials:
    Young's moduli (Pa) and Poisson ratios; ``stiffness`` (N/m^1.5) overrides the
    Hertz value. ``restitution`` c_e, ``mu`` friction coefficient, ``v0 < v1``
    (m/s) the friction ramp, ``law`` one of :data:`robolib.core.contact.LAWS`,
    ``ddelta0_floor`` (m/s).

    >>> ClearanceSpec("B1", clearance=1e-4).R_bearing_value
    0.0051
    >>> ClearanceSpec("B1", clearance=6e-3, R_bearing=5e-3)
    Traceback (most recent call last):
        ...
    robolib.ParameterError: clearance joint 'B1': clearance = 0.006 m must be smaller than the bearing radius R_bearing = 0.005 m
    """

    joint: str
    clearance: float
    R_journal: float | None = 5e-3
    R_bearing: float | None = None
    E_bearing: float = 207e9
    nu_bearing: float = 0.3
    E_journal: float = 207e9
    nu_journal: float = 0.3
    restitution: float = 0.9
    mu: float = 0.05
    v0: float = 1e-4
    v1: float = 1e-3
    law: str = "lankarani_nikravesh"
    stiffness: float | None = None
    ddelta0_floor: float = DDELTA0_FLOOR

    def __post_init__(self):
        chk.text("joint", self.joint)
        nm = f"clearance joint {self.joint!r}"

        def positive(field, unit, optional=False):
            v = getattr(self, field)
            if optional and v is None:
                return None
            ok = isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)) and math.isfinite(v) and v > 0
            if not ok:
                raise ParameterError(f"{nm}: {field} must be positive and finite, got {v!r} ({unit})")
            return float(v)

        c = positive("clearance", "m")
        if self.R_bearing is not None and positive("R_bearing", "m") <= c:
            raise ParameterError(f"{nm}: clearance = {c!r} m must be smaller than the bearing radius "
                                 f"R_bearing = {self.R_bearing!r} m")
        if self.R_bearing is None and self.R_journal is None:
            raise ParameterError(f"{nm}: R_journal must be positive (m) when R_bearing is None, got None")
        positive("R_journal", "m", optional=True)
        positive("stiffness", "N/m^1.5", optional=True)
        positive("E_bearing", "Pa"), positive("E_journal", "Pa")
        for ratio in ("nu_bearing", "nu_journal"):
            real(f"{nm}: {ratio}", getattr(self, ratio), low=-1.0, high=0.5, open_low=True, open_high=True)
        if not isinstance(self.law, str) or self.law not in contact.LAWS:
            raise ParameterError(f"{nm}: law must be one of {list(contact.LAWS)}, got {self.law!r}")
        real(f"{nm}: restitution", self.restitution, low=0.0, open_low=True, high=1.0)
        real(f"{nm}: mu", self.mu, low=0.0)
        v0 = real(f"{nm}: v0", self.v0, low=0.0, unit="m/s")
        real(f"{nm}: v1", self.v1, low=v0, open_low=True, unit="m/s (above v0)")
        positive("ddelta0_floor", "m/s")

    @property
    def R_bearing_value(self) -> float:
        """Bearing radius (m)."""
        return round(self.R_bearing if self.R_bearing is not None else self.R_journal + self.clearance, 15)

    @property
    def R_journal_value(self) -> float:
        """Journal radius (m)."""
        return round(self.R_bearing - self.clearance if self.R_bearing is not None else self.R_journal, 15)

    @property
    def K(self) -> float:
        """Contact stiffness (N/m^1.5): ``stiffness`` if given, else the Hertz value."""
        if self.stiffness is not None:
            return float(self.stiffness)
        return contact.hertz_stiffness(self.R_bearing_value, self.R_journal_value, self.E_bearing,
                                       self.nu_bearing, self.E_journal, self.nu_journal)


@dataclass
class ClearanceResult:
    """One clearance simulation: samples and contact bookkeeping.

    ``t`` (k,), ``q`` / ``qd`` (k, n) sampled states, ``W_drive`` / ``W_loss``
    (k,) accumulated motor work and dissipated energy (J); ``episodes`` a list
    per joint of ``(t_on, t_off, ddelta0)`` (t_off = nan while still open at
    the end); counters of the integrator and the wall time (s).
    """

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    W_drive: np.ndarray
    W_loss: np.ndarray
    episodes: list
    n_steps: int
    n_rejected: int
    n_rhs: int
    wall_s: float
    y_final: np.ndarray
    ddelta0_final: np.ndarray
    extra: dict = field(default_factory=dict)


class ClearanceModel:
    """A mechanism with one or several revolute joints turned into clearance joints.

    ``specs`` is a list of :class:`ClearanceSpec`; each names a :class:`Pin`
    or :class:`GroundPin` of ``mech`` (unknown name, or a joint of another
    type -> :class:`robolib.ParameterError`). ``reduced`` is the mechanism
    without those joints; the contact forces enter its right-hand side.
    """

    def __init__(self, mech: Mechanism, specs: Sequence[ClearanceSpec], alpha: float = BAUMGARTE_ALPHA,
                 beta: float = BAUMGARTE_BETA, impact_max_duration: float = IMPACT_MAX_DURATION):
        mech = check_mechanism("mech", mech)
        specs = chk.sequence("specs", specs, (ClearanceSpec,), "ClearanceSpec objects")
        if not specs:
            raise ParameterError("specs must hold at least one ClearanceSpec, got an empty list")
        names = [s.joint for s in specs]
        if len(set(names)) != len(names):
            raise ParameterError(f"specs must name distinct clearance joints, got {names}")
        for s in specs:
            if s.joint not in mech._slices:
                raise ParameterError(f"specs: joint {s.joint!r} is not a joint of mechanism {mech.name!r} "
                                     f"(joints: {list(mech._slices)})")
        self.mech = mech
        self.specs = list(specs)
        self.names = names
        self.alpha, self.beta = chk.nonnegative_gain("alpha", alpha), chk.nonnegative_gain("beta", beta)
        self.impact_max_duration = _impact_max_duration(impact_max_duration)
        rows = []
        for s in self.specs:
            jt = mech.joint(s.joint)  # raises for an unknown name
            if isinstance(jt, GroundPin):
                bi, si = -1, np.asarray(jt.ground, float)
                bj, sj = mech.body_index[jt.body], np.asarray(jt.point, float)
            elif isinstance(jt, Pin):
                bi, si = mech.body_index[jt.body_i], np.asarray(jt.point_i, float)
                bj, sj = mech.body_index[jt.body_j], np.asarray(jt.point_j, float)
            else:
                raise ParameterError(f"joint {s.joint!r} is a {type(jt).__name__}, not a revolute joint; "
                                     "only Pin and GroundPin can have clearance")
            K = s.K
            D = contact.hysteresis_factor(s.restitution, s.law)
            rows.append((bi, float(si[0]), float(si[1]), bj, float(sj[0]), float(sj[1]), s.R_bearing_value,
                         s.R_journal_value, s.clearance, K, D, s.mu, s.v0, s.v1, s.ddelta0_floor))
        self._rows = rows
        self.K = np.array([r[9] for r in rows])
        #: contact table (k, 15) for the compiled kernel: bi, s_i, bj, s_j, R_B, R_J, c, K, D, mu, v0, v1, floor
        self.table = np.array(rows, dtype=float)
        self.reduced = mech.without(names)
        self.ddelta0 = np.array([r[14] for r in rows])

    # ------------------------------------------------------------ kinematics (vectorised, for output)
    def contact_kinematics(self, q, qd) -> dict:
        """Per-joint contact kinematics of sampled states ``q, qd`` (..., n).

        Returns arrays with a leading joint axis: ``e`` (k, ..., 2) eccentricity (m),
        ``eps``, ``delta`` (m), ``ddelta`` (m/s), ``v_t`` (m/s), ``n`` (k, ..., 2).
        """
        n = self.reduced.n
        q, qd = chk.state("q", q, n, batch=True), chk.state("qd", qd, n, batch=True)
        shape = chk.broadcast("qd", qd, "q", q)
        q, qd = np.broadcast_to(q, shape), np.broadcast_to(qd, shape)
        out = {k: [] for k in ("e", "eps", "delta", "ddelta", "v_t", "n")}
        for (bi, six, siy, bj, sjx, sjy, RB, RJ, c, *_rest) in self._rows:
            Pi, vi, wi, ri = self._point(q, qd, bi, six, siy)
            Pj, vj, wj, rj = self._point(q, qd, bj, sjx, sjy)
            e = Pj - Pi
            eps = np.hypot(e[..., 0], e[..., 1])
            safe = np.where(eps > 0, eps, 1.0)
            n = np.where((eps > 0)[..., None], e / safe[..., None], np.array([1.0, 0.0]))
            ed = vj - vi
            dd = np.sum(ed * n, axis=-1)
            tvec = np.stack([-n[..., 1], n[..., 0]], axis=-1)
            # slip of the contact points: ed + (w_j R_J - w_i R_B) t
            vt = np.sum(ed * tvec, axis=-1) + wj * RJ - wi * RB
            for key, val in (("e", e), ("eps", eps), ("delta", eps - c), ("ddelta", dd), ("v_t", vt), ("n", n)):
                out[key].append(val)
        return {k: np.array(v) for k, v in out.items()}

    @staticmethod
    def _point(q, qd, b, sx, sy):
        if b < 0:
            shape = q.shape[:-1]
            P = np.broadcast_to(np.array([sx, sy]), shape + (2,)).copy()
            return P, np.zeros(shape + (2,)), np.zeros(shape), P
        th, w = q[..., 3 * b + 2], qd[..., 3 * b + 2]
        c, s = np.cos(th), np.sin(th)
        ax, ay = c * sx - s * sy, s * sx + c * sy
        r = q[..., 3 * b : 3 * b + 2]
        P = r + np.stack([ax, ay], axis=-1)
        v = qd[..., 3 * b : 3 * b + 2] + np.stack([-w * ay, w * ax], axis=-1)
        return P, v, w, r

    def contact_energy(self, q) -> np.ndarray:
        """Elastic contact energy ``sum 2/5 K delta^2.5`` (J) of sampled ``q`` (..., n)."""
        q = chk.state("q", q, self.reduced.n, batch=True)
        kin = self.contact_kinematics(q, np.zeros_like(q))
        return sum(contact.contact_potential(kin["delta"][k], self.K[k]) for k in range(len(self._rows)))

    def contact_forces(self, result: ClearanceResult) -> dict:
        """Normal and tangential contact forces (N) at the samples of ``result``, (k, T) each.

        Uses the onset speed of the episode each sample belongs to.
        """
        _result("result", result, self.reduced.n, len(self._rows))
        kin = self.contact_kinematics(result.q, result.qd)
        Fn = np.zeros_like(kin["delta"])
        Ft = np.zeros_like(kin["delta"])
        dd0 = self._ddelta0_samples(result)
        for k, (*_g, K, D, mu, v0, v1, _floor) in enumerate(self._rows):
            s = self.specs[k]
            Fn[k] = contact.normal_force(kin["delta"][k], kin["ddelta"][k], dd0[:, k], K, s.restitution, s.law)
            Ft[k] = contact.tangential_force(Fn[k], kin["v_t"][k], mu, v0, v1)
        return {"F_n": Fn, "F_t": Ft, **kin}

    # ------------------------------------------------------------ right-hand side
    def _delta_scalar(self, q):
        out = []
        for (bi, six, siy, bj, sjx, sjy, RB, RJ, c, *_r) in self._rows:
            if bi >= 0:
                th = q[3 * bi + 2]
                ct, st = math.cos(th), math.sin(th)
                pix, piy = q[3 * bi] + ct * six - st * siy, q[3 * bi + 1] + st * six + ct * siy
            else:
                pix, piy = six, siy
            th = q[3 * bj + 2]
            ct, st = math.cos(th), math.sin(th)
            pjx, pjy = q[3 * bj] + ct * sjx - st * sjy, q[3 * bj + 1] + st * sjx + ct * sjy
            out.append(math.hypot(pjx - pix, pjy - piy) - c)
        return out

    def _forces(self, t, q, qd, g):
        """Add the contact forces to ``g`` in place; return the dissipated power (W)."""
        P = 0.0
        dd0 = self.ddelta0
        for k, (bi, six, siy, bj, sjx, sjy, RB, RJ, c, K, D, mu, v0, v1, _fl) in enumerate(self._rows):
            th = q[3 * bj + 2]
            wj = qd[3 * bj + 2]
            ct, st = math.cos(th), math.sin(th)
            ajx, ajy = ct * sjx - st * sjy, st * sjx + ct * sjy
            pjx, pjy = q[3 * bj] + ajx, q[3 * bj + 1] + ajy
            if bi >= 0:
                th = q[3 * bi + 2]
                wi = qd[3 * bi + 2]
                ct, st = math.cos(th), math.sin(th)
                aix, aiy = ct * six - st * siy, st * six + ct * siy
                pix, piy = q[3 * bi] + aix, q[3 * bi + 1] + aiy
                vix, viy = qd[3 * bi] - wi * aiy, qd[3 * bi + 1] + wi * aix
            else:
                wi = 0.0
                pix, piy = six, siy
                vix = viy = 0.0
            ex, ey = pjx - pix, pjy - piy
            eps = math.hypot(ex, ey)
            delta = eps - c
            if delta <= 0.0:
                continue
            nx, ny = ex / eps, ey / eps
            vjx, vjy = qd[3 * bj] - wj * ajy, qd[3 * bj + 1] + wj * ajx
            edx, edy = vjx - vix, vjy - viy
            dd = edx * nx + edy * ny
            vt = -edx * ny + edy * nx + wj * RJ - wi * RB
            Fn = contact._normal_force_scalar(delta, dd, dd0[k], K, D)
            Ft = contact._tangential_force_scalar(Fn, vt, mu, v0, v1)
            fx, fy = -Fn * nx - Ft * ny, -Fn * ny + Ft * nx  # on the journal
            # journal body: lever arm Q_j - r_j = A_j s_j + R_J n
            lx, ly = ajx + RJ * nx, ajy + RJ * ny
            g[3 * bj] += fx
            g[3 * bj + 1] += fy
            g[3 * bj + 2] += lx * fy - ly * fx
            if bi >= 0:
                lx, ly = aix + RB * nx, aiy + RB * ny
                g[3 * bi] -= fx
                g[3 * bi + 1] -= fy
                g[3 * bi + 2] -= lx * fy - ly * fx
            P += (Fn - K * delta * math.sqrt(delta)) * dd - Ft * vt
        return P

    def rhs(self, backend: str = "auto"):
        """Right-hand side ``f(t, y)`` of the reduced mechanism with contact forces.

        ``backend``: ``"numpy"`` (reference: vectorised numpy + scalar contact
        loop), ``"numba"`` (compiled kernel) or ``"auto"`` (numba if installed).
        """
        if resolve_backend(backend) == "numba":
            return self.reduced.compiled_rhs(self.alpha, self.beta, contacts=self.table, ddelta0=self.ddelta0)
        return self.reduced.rhs(self.alpha, self.beta, extra=self._forces)

    # ------------------------------------------------------------ events and simulation
    def _make_hook(self, t0, y0, episodes, keep_ddelta0=False):
        n = self.reduced.n
        nk = len(self._rows)
        state = {"delta": self._delta_scalar(y0[:n]), "armed": [None] * nk, "open": [None] * nk}
        kin0 = self.contact_kinematics(y0[:n], y0[n:2 * n])
        for k in range(nk):
            if state["delta"][k] > 0:
                if not keep_ddelta0:
                    self.ddelta0[k] = max(float(kin0["ddelta"][k]), self._rows[k][14])
                state["open"][k] = (t0, self.ddelta0[k])

        def crossing(k, ta, tb, yb, dense):
            """Time where delta_k crosses zero in [ta, tb], on the step's interpolant ``dense``."""
            def dfun(tt):
                yy = dense(tt)
                return self._delta_scalar(yy[:n])[k]

            try:
                ts = brentq(dfun, ta, tb, xtol=1e-15, rtol=1e-12)
            except ValueError:  # interpolant does not bracket: use the linear estimate
                da, db = state["delta"][k], self._delta_scalar(yb[:n])[k]
                ts = ta + (tb - ta) * (-da / (db - da) if db != da else 1.0)
            return ts

        def hook(ta, ya, fa, tb, yb, fb, dense):
            d_new = self._delta_scalar(yb[:n])
            redo = False
            for k in range(nk):
                da, db = state["delta"][k], d_new[k]
                if da <= 0.0 < db:
                    armed = state["armed"][k]
                    if armed is None:
                        ts = crossing(k, ta, tb, yb, dense)
                        ys = dense(ts)
                        kin = self.contact_kinematics(ys[:n], ys[n:2 * n])
                        self.ddelta0[k] = max(float(kin["ddelta"][k]), self._rows[k][14])
                        state["armed"][k] = ts
                        redo = True
            if redo:
                return True
            # the step is accepted: book-keeping
            for k in range(nk):
                da, db = state["delta"][k], d_new[k]
                if da <= 0.0 < db:
                    state["open"][k] = (state["armed"][k], self.ddelta0[k])
                    state["armed"][k] = None
                elif state["armed"][k] is not None and state["armed"][k] <= tb:
                    state["armed"][k] = None  # the anticipated crossing did not happen
                if da > 0.0 >= db and state["open"][k] is not None:
                    t_off = crossing(k, ta, tb, yb, dense)
                    t_on, d0 = state["open"][k]
                    episodes[k].append((t_on, t_off, d0))
                    state["open"][k] = None
            state["delta"] = d_new
            return False

        return hook, state

    def simulate(self, t_span, q0, qd0, t_eval=None, rtol: float = 1e-6, atol: float = 1e-9,
                 ddelta0=None, work0=(0.0, 0.0), h_max: float = np.inf, backend: str = "auto") -> ClearanceResult:
        """Integrate from ``(q0, qd0)`` (reduced coordinates = all body coordinates, n,).

        ``t_eval``: sample times (default: every accepted step). ``ddelta0``:
        onset speeds carried over from a previous run (m/s, per joint, > 0). ``work0`` (2,): the motor work
        and the dissipated energy (J) to start from. ``t_span = (t0, t_end)``, ``t_end >= t0`` (s); the
        tolerances, ``t_eval``, ``h_max`` and ``backend`` as in :func:`robolib.core.multibody.dopri5` and
        :func:`robolib.core.multibody.simulate`.
        """
        red = self.reduced
        t0, t1 = chk.span_pair("t_span", t_span)
        q0, qd0 = chk.state("q0", q0, red.n), chk.state("qd0", qd0, red.n)
        chk.tolerances(rtol, atol, 2 * red.n + 2)
        chk.sample_times("t_eval", t_eval, t0, t1)
        chk.step_limit("h_max", h_max)
        resolve_backend(backend)
        work0 = real_array("work0", work0, shape=(2,))
        if ddelta0 is not None:
            dd = real_array("ddelta0", ddelta0, shape=(len(self._rows),))
            if np.any(dd <= 0):
                raise ParameterError(f"ddelta0 must be positive onset speeds (m/s), got {ddelta0!r}")
            self.ddelta0[:] = dd
        y0 = np.concatenate([q0, qd0, work0])
        episodes = [[] for _ in self._rows]
        hook, state = self._make_hook(float(t_span[0]), y0, episodes, keep_ddelta0=ddelta0 is not None)
        wall = time.perf_counter()
        n = red.n
        if resolve_backend(backend) == "numba" and red.kernel_model()[2] is not None:
            cst = np.full((len(self._rows), 4), np.nan)
            cst[:, 0] = state["delta"]
            for k, op in enumerate(state["open"]):
                if op is not None:
                    cst[k, 2], cst[k, 3] = op
            r, ep = integrate_compiled(red, float(t_span[0]), y0, float(t_span[1]), self.alpha, self.beta, rtol,
                                       atol, t_eval=t_eval, h_max=h_max, contacts=self.table, ddelta0=self.ddelta0,
                                       cstate=cst)
            for row in ep:
                episodes[int(row[0])].append((float(row[1]), float(row[2]), float(row[3])))
            for k in range(len(self._rows)):
                if cst[k, 2] == cst[k, 2]:
                    episodes[k].append((float(cst[k, 2]), np.nan, float(cst[k, 3])))
        else:
            r = dopri5(self.rhs(backend), float(t_span[0]), y0, float(t_span[1]), rtol=rtol, atol=atol,
                       t_eval=t_eval, step_hook=hook, h_max=h_max)
            for k, op in enumerate(state["open"]):
                if op is not None:
                    episodes[k].append((op[0], np.nan, op[1]))
        wall = time.perf_counter() - wall
        return ClearanceResult(t=r.t, q=r.y[:, :n], qd=r.y[:, n:2 * n], W_drive=r.y[:, 2 * n],
                               W_loss=r.y[:, 2 * n + 1], episodes=episodes, n_steps=r.n_steps,
                               n_rejected=r.n_rejected, n_rhs=r.n_rhs, wall_s=wall, y_final=r.y_final,
                               ddelta0_final=self.ddelta0.copy(), extra={"t_final": r.t_final})

    def _tangent_flow(self, t_span, y, V, rtol: float, atol: float, tsc, eps: float = 1e-6, floor=None):
        """The flow and its tangent map over ``t_span`` (s): ``(y(t1), V(t1))``.

        ``y`` = ``(q, qd, ddelta0)`` (n + n + k: body coordinates, their rates, the onset speeds in force);
        ``V`` (m, n + n + k) tangent columns in the same units, carried by the variational equation with the
        saltation of the onset-speed memory at each contact onset (:func:`robolib.core._kernels.tangent_rhs_py`,
        :func:`~robolib.core._kernels.tangent_onset_py`). ``tsc`` (n + n + k,): the units of the central
        differences' half-width ``eps``; ``floor`` (default ``tsc``): the floor of the tangent's error norm
        (``atol + rtol max(|v|, floor)``; the flow's own is ``atol + rtol |y|``), which covers every component. Compiled kernels only; an internal route of the Lyapunov exponents, which check their
        arguments.
        """
        red = self.reduced
        n, nk = red.n, len(self._rows)
        t0, t1 = float(t_span[0]), float(t_span[1])
        V = np.atleast_2d(np.asarray(V, dtype=float))
        m, cd = V.shape[0], 2 * n + nk
        tsc = np.ascontiguousarray(tsc, dtype=float)
        yy = np.concatenate([y[:2 * n], [0.0, 0.0], V.ravel()])
        dd0 = np.array(y[2 * n:2 * n + nk], dtype=float)   # a copy: the kernel updates it in place
        _kernels.get()
        Mi, Mf, dtab = red.kernel_model()
        W = red.kernel_work()
        C = np.ascontiguousarray(self.table, dtype=float)
        cst = np.full((nk, 4), np.nan)
        for k in range(nk):
            cst[k, 0] = _kernels.contact_delta_c(C, k, yy, n)
            if cst[k, 0] > 0:
                cst[k, 2], cst[k, 3] = t0, dd0[k]
        work = (np.zeros(2 * n + 2), np.zeros(2 * n + 2), np.zeros(nk), tsc, float(eps))
        fv = np.empty((3, len(dtab)))
        _kernels.drive_eval_c(t0, dtab, fv)
        f = np.empty(len(yy))
        if _kernels.tangent_rhs_c(t0, yy, f, fv, Mi, Mf, C, dd0, float(self.alpha), float(self.beta), W,
                                  *work) != _kernels.OK:
            raise SingularityError(f"augmented matrix is singular at t = {t0:.6g} s")
        at = np.full(len(yy), float(atol))
        yref = np.concatenate([np.zeros(2 * n + 2), np.tile(tsc if floor is None else np.asarray(floor, dtype=float), m)])
        st = np.array([t0, 1e-6 * (t1 - t0), np.inf, 0, 0, 1, 0, 0, np.nan, 0.0])
        status, _, _, _ = run_chunked(
            lambda te, every, ot, oy, ep: _kernels.tangent_integrate_c(
                st, yy, f, t1, float(rtol), at, yref, len(yy), np.inf, 10_000_000, te, every, ot, oy, Mi, Mf, dtab,
                C, dd0, float(self.alpha), float(self.beta), W, cst, ep, *work), st, yy, t0, np.array([t1]))
        if status != _kernels.DONE:
            raise ConvergenceError(f"the tangent flow stopped at t = {st[0]:.9g} s (status {status})")
        return np.concatenate([yy[:2 * n], dd0]), yy[2 * n + 2:].reshape(m, cd).copy()

    def _ddelta0_samples(self, result: ClearanceResult) -> np.ndarray:
        """Impact onset speed in force at each sample of ``result``, shape (T, k).

        The floor value outside contact episodes, the episode's own onset speed
        inside ``[t_on, t_off]`` (later episodes win); located by ``searchsorted``,
        so the cost is linear in samples + episodes.
        """
        t = np.asarray(result.t, dtype=float)
        dd0 = np.empty((len(t), len(self._rows)))
        for k in range(len(self._rows)):
            dd0[:, k] = self._rows[k][14]
            for (t_on, t_off, d0) in result.episodes[k]:
                hi = len(t) if np.isnan(t_off) else np.searchsorted(t, t_off, "right")
                dd0[np.searchsorted(t, t_on, "left"):hi, k] = d0
        return dd0

    def accelerations(self, result: ClearanceResult, backend: str = "auto") -> np.ndarray:
        """Accelerations ``qdd`` (T, n) at the samples of ``result`` (re-evaluates the right-hand side)."""
        _result("result", result, self.reduced.n, len(self._rows))
        n = self.reduced.n
        f = self.rhs(backend)
        out = np.empty((len(result.t), n))

        def at(i, tt):
            out[i] = f(tt, np.concatenate([result.q[i], result.qd[i], [0.0, 0.0]]))[n:2 * n]

        self._per_sample(result, at)
        return out

    def _per_sample(self, result: ClearanceResult, fun) -> None:
        """``fun(i, t)`` at every sample of ``result`` with the onset speeds in force there (restored after)."""
        saved, dd0 = self.ddelta0.copy(), self._ddelta0_samples(result)
        try:
            for i, tt in enumerate(result.t):
                self.ddelta0[:] = dd0[i]
                fun(i, tt)
        finally:
            self.ddelta0[:] = saved

    def driving_torques(self, result: ClearanceResult) -> dict:
        """Motor torques (N m) along a clearance run: ``-lambda`` of the driver rows, ``{driver: (T,)}``."""

        red = self.reduced
        _result("result", result, red.n, len(self._rows))
        lam = np.empty((len(result.t), red.m))

        def at(i, tt):
            q, qd = result.q[i], result.qd[i]
            g = red.applied_forces(q, qd, tt)
            self._forces(tt, q, qd, g)
            lam[i] = red.accelerations(q, qd, tt, g=g, alpha=self.alpha, beta=self.beta)[1]

        self._per_sample(result, at)
        return driving_torques(red, lam)

    def energy_balance(self, result: ClearanceResult) -> dict:
        """Energy books (J) at the samples: mechanical energy change vs work in minus losses.

        ``residual = (T + V + V_contact) - (T + V + V_contact)_0 - W_drive + W_loss``
        (zero for exact integration and exact constraints).
        """
        red = self.reduced
        _result("result", result, red.n, len(self._rows))
        E = red.kinetic_energy(result.qd) + red.potential_energy(result.q) + self.contact_energy(result.q)
        res = (E - E[0]) - (result.W_drive - result.W_drive[0]) + (result.W_loss - result.W_loss[0])
        return {"mechanical": E, "W_drive": result.W_drive, "W_loss": result.W_loss, "residual": res}


@dataclass(frozen=True)
class JournalOrbit:
    """The journal centre of one clearance joint over T samples (:func:`journal_orbit`).

    Fields:

    * ``e``: (T, 2) eccentricity ``P_j - P_i`` in the global frame, m.
    * ``e_local``: (T, 2) the same in the bearing body's frame (global for a ground bearing), m.
    * ``e_dot``: (T, 2) rate of ``e`` in the global frame, m/s.
    * ``eps``: (T,) ``|e|``, m.
    * ``delta``: (T,) penetration ``|e| - c`` (> 0 in contact), m.
    """

    e: np.ndarray
    e_local: np.ndarray
    e_dot: np.ndarray
    eps: np.ndarray
    delta: np.ndarray


def check_model(name: str, value) -> ClearanceModel:
    """``value`` if it is a :class:`ClearanceModel`, else ParameterError naming ``name``."""
    if not isinstance(value, ClearanceModel):
        raise ParameterError(f"{name} must be a ClearanceModel (a mechanism with clearance joints), got "
                             f"{type(value).__name__}")
    return value


def bearing_frame(q, e, bi: int):
    """Eccentricity ``e`` (..., 2) in the frame of bearing body ``bi`` at body coordinates ``q`` (global if bi < 0)."""
    if bi < 0:
        return e
    th = q[..., 3 * bi + 2]
    c, s = np.cos(th), np.sin(th)
    return np.stack([c * e[..., 0] + s * e[..., 1], -s * e[..., 0] + c * e[..., 1]], axis=-1)


def journal_rate(cm: ClearanceModel, q, qd, joint: int = 0):
    """``d(P_j - P_i)/dt`` (..., 2), global frame, of clearance joint ``joint`` of ``cm`` at body coordinates q, qd."""
    red, row = cm.reduced, cm._rows[joint]
    bi = int(row[0])
    vj = red.point_velocity(q, qd, red.bodies[row[3]].name, (row[4], row[5]))
    return vj - (red.point_velocity(q, qd, red.bodies[bi].name, (row[1], row[2])) if bi >= 0 else 0.0 * vj)


def journal_orbit(cm: ClearanceModel, q, qd, joint: int = 0) -> JournalOrbit:
    """Journal-centre orbit of clearance joint number ``joint`` of ``cm`` for samples ``q, qd`` (T, n) (m, rad;
    m/s, rad/s): a :class:`JournalOrbit` (``e``, ``e_local``, ``e_dot``, ``eps``, ``delta``; m, m/s).

    >>> from robolib.core.multibody import Body, GroundPin, Mechanism
    >>> mech = Mechanism([Body("disc", 1.0, 1e-3)], [GroundPin("O", "disc", (0.0, 0.0), (0.0, 0.0))])
    >>> cm = ClearanceModel(mech, [ClearanceSpec("O", clearance=1e-4)])
    >>> orb = journal_orbit(cm, [[3e-5, 4e-5, 0.0]], [[0.0, 0.0, 0.0]])
    >>> orb.eps.tolist(), orb.delta.tolist()      # 50 um from the bearing's centre, 50 um inside the clearance
    ([5e-05], [-5e-05])
    """
    cm = check_model("cm", cm)
    joint = chk.count("joint", joint, low=0, high=len(cm.specs) - 1)
    kin = cm.contact_kinematics(q, qd)  # checks q, qd
    q, qd = np.asarray(q, float), np.asarray(qd, float)
    e = kin["e"][joint]
    return JournalOrbit(e, bearing_frame(q, e, int(cm.table[joint, 0])), journal_rate(cm, q, qd, joint),
                        kin["eps"][joint], kin["delta"][joint])


def contact_modes(t, episodes, impact_max_duration: float = IMPACT_MAX_DURATION) -> np.ndarray:
    """Motion mode at sample times ``t`` for one joint: FREE (0), IMPACT (1), CONTINUOUS (2).

    ``episodes`` is a list of ``(t_on, t_off, ddelta0)``; an episode longer than
    ``impact_max_duration`` (s) is continuous contact.

    ``t`` (k,): non-decreasing sample times (s); ``episodes``: in time order, not overlapping, only the last
    one open (``t_off`` NaN); ``impact_max_duration > 0`` (s). Every sample gets exactly one mode.

    >>> contact_modes(np.array([0.0, 1.0, 2.5, 4.0]), [(0.9, 1.1, 0.1), (2.0, 3.0, 0.1)], 0.5).tolist()
    [0, 1, 2, 0]
    """
    t = real_array("t", t, shape=(None,))
    if np.any(np.diff(t) < 0):
        raise ParameterError("t must be non-decreasing sample times (s)")
    episodes = _episodes("episodes", episodes)
    impact_max_duration = _impact_max_duration(impact_max_duration)
    mode = np.zeros(t.shape, dtype=int)
    for (t_on, t_off, _d0) in episodes:
        t_end = t[-1] if np.isnan(t_off) else t_off
        inside = (t >= t_on) & (t <= t_end)
        mode[inside] = IMPACT if (t_end - t_on) <= impact_max_duration else CONTINUOUS
    return mode


def mode_shares(episodes, t0: float, t1: float, impact_max_duration: float = IMPACT_MAX_DURATION) -> dict:
    """Share of the time window [t0, t1] spent in free flight, impact and continuous contact.

    ``episodes`` as in :func:`contact_modes`; ``t1 > t0`` (s); ``impact_max_duration > 0`` (s). The three
    shares are in [0, 1] and sum to 1 (to round-off).

    >>> mode_shares([(0.9, 1.1, 0.1), (2.0, 3.0, 0.1)], 0.0, 4.0, 0.5)
    {'free flight': 0.7, 'impact': 0.05, 'continuous contact': 0.25, 'n_impacts': 1, 'n_continuous': 1}
    """
    episodes = _episodes("episodes", episodes)
    t0 = real("t0", t0, unit="s")
    t1 = real("t1", t1, low=t0, open_low=True, unit="s (after t0)")
    impact_max_duration = _impact_max_duration(impact_max_duration)
    imp = cont = 0.0
    n_imp = n_cont = 0
    for (t_on, t_off, _d0) in episodes:
        t_end = t1 if np.isnan(t_off) else t_off
        dur = max(0.0, min(t_end, t1) - max(t_on, t0))
        if dur <= 0 and not (t0 <= t_on <= t1):
            continue
        if (t_end - t_on) <= impact_max_duration:
            imp += dur
            n_imp += 1
        else:
            cont += dur
            n_cont += 1
    T = t1 - t0
    return {"free flight": round((T - imp - cont) / T, 12), "impact": round(imp / T, 12),
            "continuous contact": round(cont / T, 12), "n_impacts": n_imp, "n_continuous": n_cont}


def _impact_max_duration(value) -> float:
    return real("impact_max_duration", value, low=0.0, open_low=True, unit="s")


def _episodes(name: str, episodes) -> list:
    """Contact episodes ``(t_on, t_off, ddelta0)`` of one joint, checked: in time order, not overlapping,
    ``t_off >= t_on`` or NaN (still open) for the last one only."""
    if isinstance(episodes, (str, bytes, dict)) or not hasattr(episodes, "__len__"):
        raise ParameterError(f"{name} must be a list of (t_on, t_off, ddelta0), got {episodes!r:.60}")
    if len(episodes) == 0:
        return []
    arr = real_array(name, episodes, shape=(None, 3), finite=False)
    if not np.all(np.isfinite(arr[:, 0])):
        raise ParameterError(f"{name}: every t_on must be finite, got {arr[:, 0].tolist()!r:.80}")
    t_off = arr[:, 1]
    if np.any(np.isinf(t_off)) or np.any(np.isnan(t_off[:-1])):
        raise ParameterError(f"{name}: t_off must be finite (NaN only for a last episode still open), got "
                             f"{t_off.tolist()!r:.80}")
    closed = ~np.isnan(t_off)
    if np.any(t_off[closed] < arr[closed, 0]):
        raise ParameterError(f"{name}: an episode ends before it starts (t_off < t_on)")
    if np.any(arr[1:, 0] < t_off[:-1]):
        raise ParameterError(f"{name} must be in time order and not overlap (t_on of an episode before the t_off "
                             "of the previous one)")
    return [tuple(row) for row in arr.tolist()]


def _result(name: str, result, n: int, k: int) -> None:
    """A :class:`ClearanceResult` of a model with ``n`` coordinates and ``k`` clearance joints, or ParameterError."""
    if not isinstance(result, ClearanceResult):
        raise ParameterError(f"{name} must be a ClearanceResult (of ClearanceModel.simulate), got "
                             f"{type(result).__name__}")
    T = len(result.t)
    if np.shape(result.q) != (T, n) or np.shape(result.qd) != (T, n) or len(result.episodes) != k:
        raise ParameterError(f"{name} is not a run of this model: q and qd must be ({T}, {n}) with {k} episode "
                             f"lists, got {np.shape(result.q)}, {np.shape(result.qd)}, {len(result.episodes)}")


__all__ = ["ClearanceSpec", "ClearanceModel", "ClearanceResult", "JournalOrbit", "journal_orbit", "contact_modes",
           "mode_shares",
           "IMPACT_MAX_DURATION", "DDELTA0_FLOOR", "FREE", "IMPACT", "CONTINUOUS", "MODE_NAMES"]
