"""A fast minimal-coordinate formulation of the gear-shift clearance model, beside the seed's Baumgarte DAE.

With one clearance joint (any of :data:`robolib.gearshift.model.CLEARANCE_JOINTS`) the
mechanism has two degrees of freedom: the journal eccentricity ``e = P_j - P_i`` (m, **global
frame**; :meth:`FastClearance.e_local` turns it into the bearing body's frame). Given ``e`` and
the driven base angles (time functions from the stroke's inverse kinematics, the same compiled
:func:`robolib.core._kernels.chain_drive_py` the DAE's drivers use), every body's pose follows
in closed form: the chains' common end ``E_1`` is a circle intersection about the driven elbows
(shifted by ``e`` where the clearance sits), the passive chain closes by two-link inverse
kinematics (a second circle intersection), and the lever is locked to link 12. Positions,
velocities and accelerations are propagated through each closure step (a 2x2 solve each), which
gives ``q(e, t)`` (21,), ``T = dq/de`` (21, 2) and the bias ``b = qdd`` at ``edd = 0``; the
equations of motion are

    T^T M T edd = T^T (Q - M b),

``Q`` the gearbox spring--damper at the lever tip and the contact force of the clearance joint,
applied exactly as :class:`robolib.core.clearance.ClearanceModel` applies it (same laws, the same
impact onset speed ``ddelta0`` located by an event and floored, the same modified Coulomb law;
:func:`robolib.core.contact._normal_force_scalar` / ``_tangential_force_scalar`` compiled). No
constraint solve, no Baumgarte terms, no drift. The elbow branches are those of the DAE's
assembly (chosen at build time so that ``e = 0`` reproduces :meth:`GearShift.ideal_state`).

The integrator is the compiled Dormand--Prince 5(4) loop with dense output and the contact onset
event that the DAE's :func:`robolib.core.multibody.integrate_compiled` runs too
(:func:`robolib.core._dopri.integrate_py`, entered through :func:`robolib.gearshift._kernels.integrate_py`).
Its state is ``(e, ed, W_drive, W_loss)``; the error norm covers ``(e, ed)`` only, each component
scaled by ``atol + rtol * max(|y|, y_ref)`` with ``y_ref = (l, l, l omega, l omega)``
(:data:`ERROR_SCALE`): the DAE measures the error of whole body positions (size ``l``), so the same
``rtol`` asks the same absolute accuracy of the journal here (see :class:`FastClearance`).

>>> fc = FastClearance(joint="B1")
>>> r = fc.simulate((0.0, 0.05), t_eval=[0.05])
>>> bool(abs(r.e[0]).max() < fc.clearance + 1e-5)
True
>>> q, qd = fc.full_state(r.e[0], r.ed[0], 0.05)
>>> bool(np.allclose(fc.state_from_full(q, qd)[0], r.e[0], rtol=0, atol=1e-15))
True
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass, field

import numpy as np

from robolib.core import checks, contact
from robolib.core.clearance import ClearanceResult, bearing_frame, contact_modes, journal_rate, mode_shares
from robolib.core.errors import ConvergenceError, ParameterError, SingularityError, UnreachableError
from robolib.core.multibody import Driver
from robolib.core.multibody.integrator import run_chunked
from robolib.gearshift import _kernels as FK
from robolib.gearshift.model import (
    CLEARANCE_JOINTS,
    build_gearshift,
    check_arguments,
    clearance_model,
    load_parameters,
    with_changes,
)

#: Error-norm reference sizes: ``(e_x, e_y)`` against the link length ``l`` (m) and ``(ed_x, ed_y)`` against
#: ``l omega`` (m/s), the sizes of the body coordinates whose error the DAE's norm measures. ``"state"``
#: instead uses the plain ``atol + rtol |y|`` of the state (much tighter on the journal: e ~ 1e-4 m).
ERROR_SCALE = "mechanism"
#: Largest distance (m, rad) between ``q(0, 0)`` and the DAE's closed-form ideal state that still identifies the
#: elbow branches of the closure.
BRANCH_TOL = 1e-9
_KIND = {"A": FK.KIND_A, "B": FK.KIND_B, "E": FK.KIND_E, "C": FK.KIND_C}
_STATUS_TEXT = {FK.UNREACHABLE: "the closure circles do not intersect (the mechanism cannot assemble)",
                FK.SINGULAR: "the closure circles touch (singular pose)",
                FK.DRIVE: "a driven chain cannot reach the stroke"}


def _check_result(result) -> "FastResult":
    """``result`` if it is a :class:`FastResult` with samples, else :class:`robolib.ParameterError` naming it."""
    if not isinstance(result, FastResult):
        raise ParameterError(f"result must be a FastResult (from FastClearance.simulate), got {type(result).__name__}")
    if len(result.t) == 0:
        raise ParameterError("result must hold at least one sample (a FastResult with t of shape (k,), k >= 1)")
    return result


def _check_joint(joint) -> str:
    if not isinstance(joint, str) or joint not in CLEARANCE_JOINTS:
        raise ParameterError(f"joint = {joint!r} is not valid: joint must be one of {', '.join(CLEARANCE_JOINTS)} "
                             f"(the one revolute joint with clearance of the fast model)")
    return joint


@dataclass
class FastResult:
    """One run of :meth:`FastClearance.simulate`.

    ``t`` (k,) s; ``e``, ``ed`` (k, 2) eccentricity (global frame, m) and its rate (m/s); ``W_drive``,
    ``W_loss`` (k,) accumulated motor work and dissipated energy (J); ``q``, ``qd`` (k, 21) the full
    body coordinates when asked for (``full=True``) else None; ``episodes`` the contact episodes
    ``(t_on, t_off, ddelta0)`` (t_off = nan while open at the end); integrator counters; wall time (s);
    ``y_final`` (6,) the state at ``t_final`` and ``ddelta0_final`` (m/s) the onset speed in force there.
    """

    t: np.ndarray
    e: np.ndarray
    ed: np.ndarray
    W_drive: np.ndarray
    W_loss: np.ndarray
    episodes: list
    n_steps: int
    n_rejected: int
    n_rhs: int
    wall_s: float
    y_final: np.ndarray
    ddelta0_final: float
    t_final: float
    q: np.ndarray | None = None
    qd: np.ndarray | None = None
    extra: dict = field(default_factory=dict)


class FastClearance:
    """The gear-shift with one clearance joint in minimal coordinates ``e`` (see the module text).

    ``params``: a parameter set (default ``data/gearshift/default.yaml``); ``joint``: one of
    :data:`CLEARANCE_JOINTS` (default ``"B1"``); ``clearance`` (m, > 0) and ``frequency`` (Hz, > 0)
    override the parameter set's. Bad arguments raise :class:`robolib.ParameterError`.
    ``error_scale``: :data:`ERROR_SCALE` (``"mechanism"``) or ``"state"``.

    Attributes: ``gs`` the built :class:`GearShift`, ``cm`` the DAE's :class:`ClearanceModel` of the same
    joint (the reference), ``clearance`` (m), ``period`` (s), ``joint``.

    >>> FastClearance(joint="B4")
    Traceback (most recent call last):
        ...
    robolib.ParameterError: joint = 'B4' is not valid: joint must be one of A1, A2, A3, B1, B2, B3, E2, E3, C (the one revolute joint with clearance of the fast model)
    """

    def __init__(self, params: dict | None = None, joint: str = "B1", clearance: float | None = None,
                 frequency: float | None = None, error_scale: str = ERROR_SCALE):
        _check_joint(joint)
        check_arguments(clearance=clearance, frequency=frequency)
        if error_scale not in ("mechanism", "state"):
            raise ParameterError(f"error_scale = {error_scale!r} is not valid: error_scale must be 'mechanism' or "
                                 f"'state' (reference sizes of the error norm)")
        p = load_parameters() if params is None else params
        if frequency is not None:
            p = with_changes(p, **{"motion.frequency": float(frequency)})
        self.params, self.joint, self.error_scale = p, joint, error_scale
        self.gs = gs = build_gearshift(p)
        self.cm = cm = clearance_model(gs, [joint], clearance)
        self.spec = cm.specs[0]
        self.clearance = float(self.spec.clearance)
        self.frequency = float(p["motion"]["frequency"])
        self.period = 1.0 / self.frequency
        self.omega = 2.0 * math.pi * self.frequency
        drivers = sorted((j for j in gs.mech.joints if isinstance(j, Driver)), key=lambda j: j.name)
        driven = [int(j.body[1]) - 1 for j in drivers]
        passive = ({0, 1, 2} - set(driven)).pop()
        kind = _KIND[joint[0]]
        chain = int(joint[1]) - 1 if len(joint) > 1 else 0
        self._cfg = np.array([kind, chain, driven[0], driven[1], passive], dtype=np.int64)
        self._A = np.ascontiguousarray(gs.A, dtype=float)
        rows = [j.motion.kernel_row() for j in drivers]
        if len(rows) != 2 or any(r[0] != 2.0 for r in rows):  # pragma: no cover (build_gearshift makes two)
            raise ParameterError("the fast model needs two chain drives (motion.driven_chains)")
        self._drv = np.array([r[1:] for r in rows], dtype=float)
        gb = gs.mech.forces[0]
        self._par = np.zeros(FK.N_PAR)
        self._par[[FK.P_L, FK.P_LPC, FK.P_K, FK.P_C, FK.P_AX, FK.P_AY]] = (
            gs.l, gs.lpc, gb.stiffness, gb.damping, gb.anchor[0], gb.anchor[1])
        self._mass = np.ascontiguousarray(gs.mech.mass_diag, dtype=float)
        self._crow = np.ascontiguousarray(cm.table[0], dtype=float)
        self._dd0 = np.array([self.spec.ddelta0_floor])
        self._work = (np.zeros((FK.N_POINTS, 10)), np.zeros(21), np.zeros((21, 2)), np.zeros(21), np.zeros(21),
                      np.zeros(21), np.zeros((7, 2)))
        self._kin, self._rhs, self._integ = FK.get()
        ref = (gs.l, gs.l, gs.l * self.omega, gs.l * self.omega) if error_scale == "mechanism" else (0.0,) * 4
        self._yref = np.array(ref)
        self._choose_branches()

    # ------------------------------------------------------------------ kinematics
    def _choose_branches(self) -> None:
        """Elbow branches of the two closures: the pair with which ``q(0, 0)`` is the DAE's ideal state at t = 0."""
        q_id = self.gs.ideal_state(0.0)[0]
        best = (np.inf, None)
        for sE, sP in itertools.product((1.0, -1.0), repeat=2):
            self._par[FK.P_SE], self._par[FK.P_SP] = sE, sP
            pts, q, T, qd, b, _Q, cs = self._work
            if self._kin(0.0, np.zeros(4), self._A, self._drv, self._par, self._cfg, pts, q, T, qd, b, cs,
                         True) != FK.OK:
                continue
            dq = q - q_id
            dq[2::3] = np.angle(np.exp(1j * dq[2::3]))
            best = min(best, (float(np.max(np.abs(dq))), (sE, sP)), key=lambda x: x[0])
        if best[1] is None or best[0] > BRANCH_TOL:
            raise SingularityError(f"clearance joint {self.joint}: no elbow branch of the closure reproduces the "
                                   f"ideal assembly at t = 0 (closest {best[0]:.3g})")
        self._par[FK.P_SE], self._par[FK.P_SP] = best[1]
        q = self.kinematics((0.0, 0.0), (0.0, 0.0), 0.0)["q"]
        #: multiples of 2 pi that put the closure's angles on the DAE's branch (atan2 vs the drivers' angles)
        self._theta_offset = 2 * np.pi * np.round((q_id[2::3] - q[2::3]) / (2 * np.pi))

    def _fail(self, status: int, t: float, e=None):
        where = f"clearance joint {self.joint} at t = {t:.9g} s" + (
            "" if e is None else f", e = ({e[0]:.6g}, {e[1]:.6g}) m")
        if status == FK.DRIVE:
            for j in self.gs.mech.joints:
                if isinstance(j, Driver):
                    j.motion(t)  # raises the chain's own UnreachableError / SingularityError
        cls = SingularityError if status == FK.SINGULAR else UnreachableError
        raise cls(f"{where}: {_STATUS_TEXT.get(status, 'closure failed')}")

    def kinematics(self, e, ed, t: float) -> dict:
        """Closed-form kinematics at ``e`` (2,) m, ``ed`` (2,) m/s, time ``t`` (s).

        Returns ``q`` (21,), ``T = dq/de`` (21, 2), ``qd = T ed + q_t`` (21,), ``b`` (21,) the
        acceleration at ``edd = 0`` (body coordinates: CoM x, y in m and angle in rad per body;
        angles on the DAE's branch). Raises :class:`robolib.UnreachableError` /
        :class:`robolib.SingularityError` naming the joint and the time where a closure fails.

        >>> k = FastClearance().kinematics((0.0, 0.0), (0.0, 0.0), 0.0)
        >>> k["q"].shape, k["T"].shape
        ((21,), (21, 2))
        """
        e = checks.real_array("e", e, shape=(2,))
        ed = checks.real_array("ed", ed, shape=(2,))
        t = checks.real("t", t, unit="s")
        pts, q, T, qd, b, _Q, cs = self._work
        st = self._kin(t, np.concatenate([e, ed]), self._A, self._drv, self._par, self._cfg, pts, q, T, qd, b, cs,
                       True)
        if st != FK.OK:
            self._fail(st, t, e)
        q = q.copy()
        q[2::3] += getattr(self, "_theta_offset", 0.0)
        return {"q": q, "T": T.copy(), "qd": qd.copy(), "b": b.copy()}

    def full_state(self, e, ed, t: float):
        """Body coordinates ``(q, qd)`` (21,) each of the DAE at ``(e, ed, t)``."""
        k = self.kinematics(e, ed, t)
        return k["q"], k["qd"]

    def state_from_full(self, q, qd):
        """``(e, ed)`` (..., 2) from DAE body coordinates ``q, qd`` (..., 21): ``e = P_j - P_i`` and its rate."""
        q = checks.real_array("q", q, shape=(21,), batch=True)
        qd = checks.real_array("qd", qd, shape=(21,), batch=True)
        return self.cm.contact_kinematics(q, qd)["e"][0], journal_rate(self.cm, q, qd)

    def trajectory(self, t, e, ed):
        """Body coordinates ``q, qd`` (k, 21) along samples ``t`` (k,) s, ``e`` (k, 2) m, ``ed`` (k, 2) m/s; angles
        unwrapped in time. Bad shapes or values raise :class:`robolib.ParameterError` naming the argument.

        >>> FastClearance().trajectory([0.0, 0.1], np.zeros((3, 2)), np.zeros((2, 2)))
        Traceback (most recent call last):
            ...
        robolib.ParameterError: e must have shape (len(t), 2) = (2, 2) like t, got (3, 2)
        """
        t = np.atleast_1d(checks.real_array("t", t))
        if t.ndim != 1:
            raise ParameterError(f"t must be sample times of shape (k,) (s), got shape {t.shape}")
        e = checks.real_array("e", e, shape=(None, 2))
        ed = checks.real_array("ed", ed, shape=(None, 2))
        for name, a in (("e", e), ("ed", ed)):
            if len(a) != len(t):
                raise ParameterError(f"{name} must have shape (len(t), 2) = ({len(t)}, 2) like t, got {a.shape}")
        Q, QD = np.empty((len(t), 21)), np.empty((len(t), 21))
        pts, q, T, qd, b, _Q, cs = self._work
        y = np.zeros(4)
        for k in range(len(t)):
            y[:2], y[2:] = e[k], ed[k]
            st = self._kin(float(t[k]), y, self._A, self._drv, self._par, self._cfg, pts, q, T, qd, b, cs, True)
            if st != FK.OK:
                self._fail(st, float(t[k]), e[k])
            Q[k], QD[k] = q, qd
        Q[:, 2::3] = np.unwrap(Q[:, 2::3], axis=0) + self._theta_offset
        return Q, QD

    def e_local(self, q, e):
        """Eccentricity ``e`` (..., 2) m (global frame) in the bearing body's frame (global for a ground bearing),
        (..., 2) m, at body coordinates ``q`` (..., 21) (leading shapes broadcast)."""
        q = checks.real_array("q", q, shape=(21,), batch=True)
        e = checks.real_array("e", e, shape=(2,), batch=True)
        try:
            np.broadcast_shapes(q.shape[:-1], e.shape[:-1])
        except ValueError:
            raise ParameterError(f"q (..., 21) and e (..., 2) must have broadcastable leading shapes, got {q.shape} "
                                 f"and {e.shape}") from None
        return bearing_frame(q, e, int(self._crow[0]))

    def rhs(self, t: float, y, ddelta0: float | None = None) -> np.ndarray:
        """``dy/dt`` (6,) of ``y = (e, ed, W_drive, W_loss)`` at ``t`` (s, finite) with onset speed ``ddelta0``
        (m/s, > 0; default the floor)."""
        t = checks.real("t", t, unit="s")
        y = checks.real_array("y", y, shape=(FK.STATE_DIM,))
        dd0 = np.array([self.spec.ddelta0_floor if ddelta0 is None else
                        checks.real("ddelta0", ddelta0, low=0.0, open_low=True, unit="m/s")])
        dy = np.empty(FK.STATE_DIM)
        st = self._rhs(float(t), y, dy, self._A, self._drv, self._par, self._cfg, self._mass, self._crow, dd0,
                       *self._work)
        if st != FK.OK:
            self._fail(st, float(t), y[:2])
        return dy

    # ------------------------------------------------------------------ simulation
    def simulate(self, t_span, e0=(0.0, 0.0), ed0=(0.0, 0.0), t_eval=None, rtol: float | None = None,
                 atol: float | None = None, ddelta0: float | None = None, full: bool = False,
                 h_max: float = np.inf, max_steps: int = 10_000_000) -> FastResult:
        """Integrate from ``(e0, ed0)`` (m, m/s; default: the journal centred, the ideal state) over ``t_span`` (s).

        ``t_eval``: sample times (dense output; default every accepted step); ``rtol`` in (0, 1), ``atol`` > 0
        default to the parameter set's; ``ddelta0`` (m/s): the onset speed in force at the start (carried over
        from a previous run; default: ``max(ddelta, floor)`` if the journal starts in contact, else the floor);
        ``full`` (True or False): also return the body coordinates ``q, qd`` at the samples. A bad argument raises
        :class:`robolib.ParameterError` naming it before integrating. Raises
        :class:`robolib.UnreachableError` where a closure fails, :class:`robolib.ConvergenceError` if the step
        size collapses.
        """
        t_span = checks.real_array("t_span", t_span, shape=(2,))
        t0, t1 = float(t_span[0]), float(t_span[1])
        check_arguments(t_start=t0, t_end=t1, rtol=rtol, atol=atol)
        if not t1 > t0:
            raise ParameterError(f"t_span = ({t0!r}, {t1!r}) is not valid: the end must be after the start (s)")
        s = self.params["solver"]
        rtol = s["rtol"] if rtol is None else float(rtol)
        atol = s["atol"] if atol is None else float(atol)
        e0 = checks.real_array("e0", e0, shape=(2,))
        ed0 = checks.real_array("ed0", ed0, shape=(2,))
        if ddelta0 is not None:
            ddelta0 = checks.real("ddelta0", ddelta0, low=0.0, open_low=True, unit="m/s")
        if not (isinstance(h_max, (int, float)) and not isinstance(h_max, bool) and h_max > 0):
            raise ParameterError(f"h_max = {h_max!r} is not valid: h_max must be a number > 0 s (or inf)")
        max_steps = checks.count("max_steps", max_steps)
        full = checks.flag("full", full)
        if t_eval is not None:
            t_eval = np.ascontiguousarray(checks.real_array("t_eval", t_eval, shape=(None,)), dtype=float)
            if np.any(np.diff(t_eval) < 0) or t_eval[0] < t0 or t_eval[-1] > t1:
                raise ParameterError(f"t_eval must be sorted and inside t_span = ({t0:g}, {t1:g}) s")
        y = np.concatenate([e0, ed0, [0.0, 0.0]])
        floor = self.spec.ddelta0_floor
        c = self.clearance
        cst = np.full((1, 4), np.nan)
        cst[0, 0] = math.hypot(*e0) - c
        if cst[0, 0] > 0:
            n = e0 / math.hypot(*e0)
            self._dd0[0] = max(float(ed0 @ n), floor) if ddelta0 is None else ddelta0
            cst[0, 2], cst[0, 3] = t0, self._dd0[0]
        else:
            self._dd0[0] = floor if ddelta0 is None else ddelta0
        wall = time.perf_counter()
        f = np.empty(FK.STATE_DIM)
        stt = self._rhs(t0, y, f, self._A, self._drv, self._par, self._cfg, self._mass, self._crow, self._dd0,
                        *self._work)
        if stt != FK.OK:
            self._fail(stt, t0, e0)
        at = np.full(FK.STATE_DIM, atol)
        h0 = self._initial_step(y[:4], f[:4], rtol, atol, t1 - t0, h_max)
        st = np.array([t0, h0, np.inf, 0, 0, 1, 0, 0, np.nan, 0.0])
        status, tt, yy, eps = run_chunked(
            lambda te, every, ot, oy, ep: self._integ(st, y, f, t1, rtol, at, self._yref, float(h_max),
                                                      int(max_steps), 4, te, every, ot, oy, self._A, self._drv,
                                                      self._par, self._cfg, self._mass, self._crow, self._dd0, cst,
                                                      ep, *self._work), st, y, t0, t_eval)
        wall = time.perf_counter() - wall
        if status == FK.CLOSURE_FAILED:
            self._fail(int(st[9]), float(st[8]))
        if status == FK.STEP_COLLAPSE:
            raise ConvergenceError(f"clearance joint {self.joint}: step size collapsed to {st[1]:.3g} s at "
                                   f"t = {st[0]:.9g} s")
        if status == FK.MAX_STEPS:
            raise ConvergenceError(f"more than max_steps = {max_steps} steps before t_end = {t1}")
        episodes = [tuple(float(v) for v in row) for row in eps[:, 1:]]  # (t_on, t_off, ddelta0)
        if cst[0, 2] == cst[0, 2]:
            episodes.append((float(cst[0, 2]), math.nan, float(cst[0, 3])))
        res = FastResult(t=tt, e=yy[:, :2].copy(), ed=yy[:, 2:4].copy(), W_drive=yy[:, 4].copy(),
                         W_loss=yy[:, 5].copy(), episodes=episodes, n_steps=int(st[3]), n_rejected=int(st[4]),
                         n_rhs=int(st[5]), wall_s=wall, y_final=y.copy(), ddelta0_final=float(self._dd0[0]),
                         t_final=float(st[0]), extra={"h_min": float(st[2]), "rtol": rtol, "atol": atol})
        if full:
            res.q, res.qd = self.trajectory(res.t, res.e, res.ed)
        return res

    def _tangent_flow(self, t_span, x, V, rtol: float, atol: float, eps: float = 1e-5, saltation: bool = True):
        """The flow and its tangent map over ``t_span`` (s): ``(x(t1), V(t1))``.

        ``x`` (5,) = ``(e, ed, ddelta0)`` (m, m/s, m/s: the onset speed in force carried as a state component);
        ``V`` (m, 5) tangent columns in the same units, carried by the variational equation along the flow with
        the saltation of the onset-speed memory at each contact onset
        (:func:`robolib.gearshift._kernels.tangent_rhs_py`, :func:`~robolib.gearshift._kernels.tangent_onset_py`);
        the flow takes exactly the steps of :meth:`simulate` at ``rtol, atol``. ``eps``: the half-width of the
        central differences of the accelerations, relative to ``(c, c, c omega, c omega, c omega)``. The error
        norm covers the tangent columns too (floor ``(l, l, l omega, l omega, l omega)``, as the flow's): without
        them a tangent through a contact episode is off by percents. ``saltation=False`` drops the memory's jump (a
        check: the memory is then copied, as a two-trajectory estimate that copies it does). An internal
        route of :func:`robolib.gearshift.lyapunov.tangent_lyapunov`, which checks its arguments.

        >>> fc = FastClearance(clearance=5e-4, frequency=10.0)
        >>> x, V = fc._tangent_flow((0.0, 0.02), [0, 0, 0, 0, 1e-4], np.eye(5)[:4], 1e-9, 1e-12)
        >>> x.shape, V.shape
        ((5,), (4, 5))
        """
        t0, t1 = float(t_span[0]), float(t_span[1])
        V = np.atleast_2d(np.asarray(V, dtype=float))
        m = V.shape[0]
        y = np.concatenate([x[:4], [0.0, 0.0], V.ravel()])
        self._dd0[0] = float(x[4])
        c = self.clearance
        cst = np.full((1, 4), np.nan)
        cst[0, 0] = math.hypot(x[0], x[1]) - c
        if cst[0, 0] > 0:
            cst[0, 2], cst[0, 3] = t0, self._dd0[0]
        om = self.omega
        tsc = np.array([c, c, c * om, c * om, c * om])
        tw = (np.zeros(FK.STATE_DIM), np.zeros(FK.STATE_DIM), tsc, float(eps), 1.0 if saltation else 0.0)
        f = np.empty(len(y))
        args = (self._A, self._drv, self._par, self._cfg, self._mass, self._crow, self._dd0)
        FK.get()
        stt = FK.tangent_rhs_c(t0, y, f, *args, *self._work, *tw)
        if stt != FK.OK:
            self._fail(stt, t0, x[:2])
        at = np.full(len(y), atol)
        yref = np.concatenate([self._yref, [0.0, 0.0], np.tile(np.append(self._yref, self._yref[2]), m)])
        st = np.array([t0, self._initial_step(y[:4], f[:4], rtol, atol, t1 - t0, np.inf), np.inf, 0, 0, 1, 0, 0,
                       np.nan, 0.0])
        status, _, _, _ = run_chunked(
            lambda te, every, ot, oy, ep: FK.tangent_integrate_c(st, y, f, t1, rtol, at, yref, np.inf, 10_000_000,
                                                                 len(y), te, every, ot, oy, *args[:6], self._dd0, cst,
                                                                 ep, *self._work, *tw), st, y, t0,
            np.array([t1]))
        if status == FK.CLOSURE_FAILED:
            self._fail(int(st[9]), float(st[8]))
        if status != FK.DONE:
            raise ConvergenceError(f"clearance joint {self.joint}: the tangent flow stopped at t = {st[0]:.9g} s "
                                   f"(status {status})")
        return np.append(y[:4], self._dd0[0]), y[FK.STATE_DIM:].reshape(m, FK.TANGENT_DIM).copy()

    def _initial_step(self, y, f, rtol, atol, span, h_max) -> float:
        """Starting step (s): :func:`robolib.core.multibody.integrator.initial_step` in this model's error scale."""
        sc = atol + rtol * np.maximum(np.abs(y), self._yref)
        d0, d1 = np.sqrt(np.mean((y / sc) ** 2)), np.sqrt(np.mean((f / sc) ** 2))
        h = 1e-6 if d0 < 1e-5 or d1 < 1e-5 else 0.01 * d0 / d1
        return min(h, abs(span), h_max)

    def return_map(self, x, t0: float = 0.0, n_periods: int = 1, rtol: float | None = None,
                   atol: float | None = None) -> np.ndarray:
        """The stroboscopic map: state after ``n_periods`` drive periods from ``x`` at time ``t0`` (s).

        ``x = (e_x, e_y, ed_x, ed_y)`` (m, m/s, global frame) at drive phase 0 (``t0`` a multiple of the
        period for the Poincaré map of the chapter), or with a 5th component, the impact onset speed
        ``ddelta0`` (m/s) in force at ``t0``. The onset speed is history: with 4 components it is
        re-initialised at ``t0`` (``max(ddelta, floor)`` if the journal is in contact there, else the floor)
        and the map returns 4 components, a function of ``x`` alone (what shooting needs; it differs from
        the carried memory only when phase 0 falls inside a contact episode); with 5 components it is carried
        in and out, the exact continuation of a run.

        >>> fc = FastClearance()
        >>> x1 = fc.return_map(np.zeros(4))
        >>> x1.shape
        (4,)
        """
        x = checks.real_array("x", x, shape=(None,))
        if len(x) not in (4, 5):
            raise ParameterError(f"x must have 4 components (e, ed) or 5 (e, ed, ddelta0), got {len(x)}")
        if len(x) == 5 and not x[4] > 0:
            raise ParameterError(f"x[4] (the onset speed ddelta0 in force at t0) must be a number > 0 m/s, "
                                 f"got {x[4]!r}")
        n_periods = checks.count("n_periods", n_periods)
        t0 = checks.real("t0", t0, unit="s")
        t1 = t0 + n_periods * self.period
        r = self.simulate((t0, t1), x[:2], x[2:4], t_eval=[t1], rtol=rtol, atol=atol,
                          ddelta0=float(x[4]) if len(x) == 5 else None)
        out = np.concatenate([r.e[-1], r.ed[-1]])
        return np.append(out, r.ddelta0_final) if len(x) == 5 else out

    # ------------------------------------------------------------------ outputs
    def _ddelta0_samples(self, result: FastResult) -> np.ndarray:
        t = np.asarray(result.t, float)
        dd0 = np.full(len(t), self.spec.ddelta0_floor)
        for (t_on, t_off, d0) in result.episodes:
            hi = len(t) if np.isnan(t_off) else np.searchsorted(t, t_off, "right")
            dd0[np.searchsorted(t, t_on, "left"):hi] = d0
        return dd0

    def _full(self, result: FastResult):
        if result.q is None:
            result.q, result.qd = self.trajectory(result.t, result.e, result.ed)
        return result.q, result.qd

    def contact_forces(self, result: FastResult) -> dict:
        """Normal and tangential contact forces (N) at the samples, (k,) each, with ``delta``, ``ddelta``, ``v_t``.

        From ``e, ed`` and the bodies' rates through :func:`robolib.core.contact.normal_force` and
        :func:`robolib.core.contact.tangential_force`, with the onset speed of the episode each sample is in.
        """
        q, qd = self._full(_check_result(result))
        e, ed = result.e, result.ed
        eps = np.hypot(e[:, 0], e[:, 1])
        n = e / np.where(eps > 0, eps, 1.0)[:, None]
        bi, bj = int(self._crow[0]), int(self._crow[3])
        wi = qd[:, 3 * bi + 2] if bi >= 0 else 0.0
        vt = -ed[:, 0] * n[:, 1] + ed[:, 1] * n[:, 0] + qd[:, 3 * bj + 2] * self._crow[7] - wi * self._crow[6]
        delta = eps - self.clearance
        dd = np.sum(ed * n, axis=-1)
        s = self.spec
        Fn = contact.normal_force(delta, dd, self._ddelta0_samples(result), s.K, s.restitution, s.law)
        Ft = contact.tangential_force(Fn, vt, s.mu, s.v0, s.v1)
        return {"F_n": Fn, "F_t": Ft, "delta": delta, "ddelta": dd, "v_t": vt}

    def mode_shares(self, result: FastResult, t0: float | None = None, t1: float | None = None) -> dict:
        """Shares of free flight, impact and continuous contact in ``[t0, t1]`` (default: the run)."""
        _check_result(result)
        t0 = float(result.t[0]) if t0 is None else t0
        t1 = float(result.t_final) if t1 is None else t1
        return mode_shares(result.episodes, t0, t1, self.cm.impact_max_duration)

    def contact_modes(self, result: FastResult) -> np.ndarray:
        """FREE (0) / IMPACT (1) / CONTINUOUS (2) at the samples."""
        _check_result(result)
        return contact_modes(result.t, result.episodes, self.cm.impact_max_duration)

    def energy_balance(self, result: FastResult) -> dict:
        """Energy books (J): ``residual = (T + V_spring + V_contact) - (...)_0 - W_drive + W_loss`` at the samples."""
        q, qd = self._full(_check_result(result))
        red = self.cm.reduced
        eps = np.hypot(result.e[:, 0], result.e[:, 1])
        E = (red.kinetic_energy(qd) + red.potential_energy(q)
             + contact.contact_potential(eps - self.clearance, self.spec.K))
        res = (E - E[0]) - (result.W_drive - result.W_drive[0]) + (result.W_loss - result.W_loss[0])
        return {"mechanical": E, "W_drive": result.W_drive, "W_loss": result.W_loss, "residual": res}

    def as_clearance_result(self, result: FastResult) -> ClearanceResult:
        """The run as a :class:`ClearanceResult` of :attr:`cm` (the DAE's tools then apply: contact forces, orbits)."""
        q, qd = self._full(_check_result(result))
        return ClearanceResult(t=result.t, q=q, qd=qd, W_drive=result.W_drive, W_loss=result.W_loss,
                               episodes=[list(result.episodes)], n_steps=result.n_steps,
                               n_rejected=result.n_rejected, n_rhs=result.n_rhs, wall_s=result.wall_s,
                               y_final=np.concatenate([q[-1], qd[-1], result.y_final[4:]]),
                               ddelta0_final=np.array([result.ddelta0_final]), extra=dict(result.extra))


__all__ = ["FastClearance", "FastResult", "ERROR_SCALE", "BRANCH_TOL"]
