"""Inverse-dynamics decentralised PID control of the platform, simulated (the patent's Eq. 33).

Joint space: leg lengths ``l``. With ``e = l_d - l`` the controller commands

    ddl_ref = ddl_d + K_d de + K_p e + K_i int(e)
    f = M_q ddl_ref + N_q(l, dl)            (M_q = J^-T M J^-1, from the chosen model)

implemented as ``dV_ref = J^-1 (ddl_ref - Jdot V)``, ``f = inverse_dynamics(X, V, dV_ref)``.
With an exact model the error obeys ``e''' + K_d e'' + K_p e' + K_i e = 0``
(``K_i = 0``: the classical PD computed-torque law). The plant is the U-joint
Newton-Euler model integrated by fixed-step RK4 (1 kHz by default), the
controller held over each step (zero-order hold).

>>> from robolib import stewart
>>> m = stewart.load("stewart/tsai2000.yaml")
>>> res = stewart.simulate(m, duration=0.05)
>>> res.t.shape, res.error.shape
((51,), (51, 6))
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from robolib.core.checks import real, real_array
from robolib.core.errors import ParameterError, UnreachableError
from robolib.core.rotations import rpy_rates_to_twist
from robolib.stewart import _kernels
from robolib.stewart.dynamics import _method, status_error, status_message
from robolib.stewart.kinematics import as_flag, check_limits, inverse_kinematics, leg_motion
from robolib.stewart.model import StewartModel, _check_model

#: Default trajectory when the model has no ``trajectory`` block (spec's reconstruction).
DEFAULT_AMPLITUDE = np.array([0.2, 0.2, 0.2, np.radians(3), np.radians(4), np.radians(5)])
DEFAULT_FREQUENCY = np.array([3.0, 3.0, 3.0, 2.0, 2.5, 1.5])
#: Default gains: error poles at -20 rad/s (triple for PID): (s + 20)^3.
DEFAULT_GAINS = {"kp": 1200.0, "kd": 60.0, "ki": 8000.0}


def _twist_from_rates(X, dX, ddX):
    """Twist and its derivative (base frame) from the pose and its time derivatives (roll-pitch-yaw rates)."""
    w, al = rpy_rates_to_twist(X[..., 3:], dX[..., 3:], ddX[..., 3:])
    return X, np.concatenate((dX[..., :3], w), axis=-1), np.concatenate((ddX[..., :3], al), axis=-1)


@dataclass(frozen=True)
class Trajectory:
    """Desired pose ``X_d(t) = home + amplitude * sin(frequency t + phase)`` (m, rad, rad/s).

    ``frequency`` is an angular rate in rad/s; :meth:`from_hz` takes frequencies in Hz. For any other
    motion, :class:`PoseFunction` takes a function of time.

    >>> tr = Trajectory(np.zeros(6), np.full(6, 0.1), np.ones(6), np.zeros(6))
    >>> X, V, dV = tr(np.array([0.0, 1.0]))
    >>> X.shape, V.shape, dV.shape
    ((2, 6), (2, 6), (2, 6))
    """

    home: np.ndarray
    amplitude: np.ndarray
    frequency: np.ndarray
    phase: np.ndarray

    def __post_init__(self):
        for k in ("home", "amplitude", "frequency", "phase"):
            object.__setattr__(self, k, real_array(f"Trajectory {k}", getattr(self, k), shape=(6,)))

    @classmethod
    def from_hz(cls, home, amplitude, frequency_hz, phase=np.zeros(6)) -> Trajectory:
        """Sines with frequencies in Hz (cycles per second): ``frequency = 2 pi frequency_hz`` rad/s.

        >>> Trajectory.from_hz(np.zeros(6), np.full(6, 0.01), np.full(6, 2.0)).frequency[0] / np.pi
        np.float64(4.0)
        """
        return cls(home, amplitude, 2.0 * np.pi * real_array("frequency_hz", frequency_hz, shape=(6,)), phase)

    def __call__(self, t):
        """Pose, twist and acceleration (base frame, platform origin) at times ``t`` (s, any shape): ``(..., 6)``."""
        t = real_array("t", t)[..., None]
        arg = self.frequency * t + self.phase
        return _twist_from_rates(self.home + self.amplitude * np.sin(arg), self.amplitude * self.frequency * np.cos(arg),
                           -self.amplitude * self.frequency ** 2 * np.sin(arg))


@dataclass(frozen=True)
class PoseFunction:
    """Desired pose from any smooth function of time: ``pose(t)`` maps times ``(n,)`` (s) to poses ``(n, 6)``
    (x, y, z in m; roll, pitch, yaw in rad, as the model's ``home_pose``).

    Velocities and accelerations are fourth-order central differences with step ``dt`` (s): their error
    is about ``dt**4`` times the fifth and sixth time derivatives of the pose (1e-10 m/s² for a 20 mm,
    2 Hz heave at the default ``dt``).

    >>> from robolib import stewart
    >>> m = stewart.load("stewart/tsai2000.yaml")
    >>> heave = stewart.PoseFunction(lambda t: m.home_pose + np.outer(0.02 * np.sin(4 * np.pi * t), [0, 0, 1, 0, 0, 0]))
    >>> X, V, dV = heave(np.array([0.0, 0.125]))
    >>> np.round(V[0, 2], 6), np.round(X[1, 2] - m.home_pose[2], 6)     # 0.02 * 4 pi m/s at t = 0; the crest
    (np.float64(0.251327), np.float64(0.02))
    """

    pose: object
    dt: float = 1e-3

    def __post_init__(self):
        if not callable(self.pose):
            raise ParameterError(f"pose must be a function of time t (s) -> poses (n, 6), got {type(self.pose).__name__}")
        object.__setattr__(self, "dt", real("dt", self.dt, low=0.0, open_low=True, unit="s"))

    def __call__(self, t):
        """Pose, twist and acceleration (base frame, platform origin) at times ``t`` (s, shape ``(n,)``): ``(n, 6)``."""
        t = np.atleast_1d(real_array("t", t))
        h = self.dt
        f = [self._poses(t + k * h) for k in (-2, -1, 0, 1, 2)]
        dX = (f[0] - 8 * f[1] + 8 * f[3] - f[4]) / (12 * h)
        ddX = (-f[0] + 16 * f[1] - 30 * f[2] + 16 * f[3] - f[4]) / (12 * h * h)
        return _twist_from_rates(f[2], dX, ddX)

    def _poses(self, t):
        X = np.asarray(self.pose(t), dtype=float)
        if X.shape != t.shape + (6,) or not np.isfinite(X).all():
            raise ParameterError(f"pose(t) must give finite poses of shape {t.shape + (6,)} for t of shape {t.shape}, "
                                 f"got shape {X.shape}" + ("" if np.isfinite(X).all() else " with non-finite values"))
        return X


def trajectory_from_model(model: StewartModel) -> Trajectory:
    """The model's ``trajectory`` block as a :class:`Trajectory` (spec default if absent).

    >>> from robolib import stewart
    >>> stewart.trajectory_from_model(stewart.load("stewart/tsai2000.yaml")).amplitude[0]
    np.float64(0.2)
    """
    _check_model(model)
    tb = model.trajectory
    if tb is None:
        return Trajectory(model.home_pose, DEFAULT_AMPLITUDE, DEFAULT_FREQUENCY, np.zeros(6))
    return Trajectory(model.home_pose, tb["amplitude"], tb["frequency"], tb["phase"])


def joint_references(model: StewartModel, trajectory: Trajectory | PoseFunction, t):
    """``(l_d, dl_d, ddl_d)`` along the trajectory at times ``t``: each ``(..., 6)`` (m, m/s, m/s^2).

    >>> from robolib import stewart
    >>> m = stewart.load("stewart/tsai2000.yaml")
    >>> ld, dld, ddld = joint_references(m, trajectory_from_model(m), np.linspace(0, 1, 5))
    >>> ld.shape
    (5, 6)
    """
    _check_model(model)
    _check_trajectory(trajectory)
    X, V, dV = trajectory(t)
    mo = leg_motion(model, X, V, dV)
    return inverse_kinematics(model, X), mo.dl, mo.ddl


def _check_trajectory(trajectory) -> None:
    if not isinstance(trajectory, (Trajectory, PoseFunction)):
        raise ParameterError(f"trajectory must be a Trajectory (sines; e.g. from trajectory_from_model or "
                             f"Trajectory.from_hz) or a PoseFunction (any function of time), got "
                             f"{type(trajectory).__name__}")


def sampled_loop_radius(kp: float, kd: float, ki: float, step: float) -> float:
    """Spectral radius of the exact-model error loop as :func:`simulate` samples it: below 1, the loop is stable.

    With the controller's model equal to the plant, each leg error obeys ``e'' = -(K_p e + K_d e' + K_i z)``
    with the right-hand side held over each ``step`` (zero-order hold) and the error integral summed as
    ``z += e step``; ``(z, e, e')`` advances by a 3 x 3 matrix, whose largest eigenvalue magnitude this is. Without
    integral action (``ki = 0``) the integral does not act back, and the radius is that of ``(e, e')``. As
    ``step -> 0`` the loop is stable iff ``K_d K_p > K_i`` (Routh-Hurwitz), with all gains positive.

    >>> round(sampled_loop_radius(1200.0, 60.0, 8000.0, 1e-3), 4)   # the chapter's gains (continuous: triple pole -20 /s)
    0.9831
    >>> sampled_loop_radius(1200.0, 60.0, 1.01 * 60.0 * 1200.0, 1e-6) > 1   # just past K_d K_p = K_i
    True
    """
    kp, kd, ki = (real(n, v, low=0.0) for n, v in (("kp", kp), ("kd", kd), ("ki", ki)))
    step = real("step", step, low=0.0, open_low=True, unit="s")
    h = step
    A = np.array([[1.0, h, 0.0], [0.0, 1.0, h], [0.0, 0.0, 1.0]])
    A -= np.outer([0.0, h * h / 2, h], [ki, kp, kd])
    if ki == 0.0:
        A = A[1:, 1:]
    return float(np.abs(np.linalg.eigvals(A)).max())


@dataclass
class SimResult:
    """Arrays of one closed-loop run, sampled every step (``n = steps + 1`` rows).

    ``t`` (n,) s; ``pose, pose_desired, twist`` (n, 6); ``lengths, lengths_desired,
    error`` (n, 6) m (``error = l_d - l``); ``forces`` (n, 6) N (held over the
    following step); ``wall_time`` s of the integration loop; ``controller, plant`` method names.
    """

    t: np.ndarray
    pose: np.ndarray
    pose_desired: np.ndarray
    twist: np.ndarray
    lengths: np.ndarray
    lengths_desired: np.ndarray
    error: np.ndarray
    forces: np.ndarray
    wall_time: float
    controller: str
    plant: str
    gains: dict

    @property
    def real_time_factor(self) -> float:
        """Simulated time / wall time."""
        return float(self.t[-1] - self.t[0]) / self.wall_time


def simulate(model: StewartModel, controller: str = "newton_euler", *, pid: bool = True, gains=None,
             duration: float | None = None, step: float | None = None,
             trajectory: Trajectory | PoseFunction | None = None,
             initial_error=None, plant: str = "newton_euler") -> SimResult:
    """Closed-loop run: RK4 plant (``plant`` model) under the ID-PID (or PD) law of ``controller``.

    Defaults come from the model's ``trajectory`` and ``controller`` blocks
    (or the spec's reconstruction): 15 s at 1 kHz. ``gains`` is a dict with
    ``kp, kd, ki`` (``pid=False`` forces ``ki = 0``). ``trajectory``: a
    :class:`Trajectory` or :class:`PoseFunction` (default: the model's).
    ``initial_error`` is the plant's pose minus the desired pose at ``t = 0``
    (m, rad): by default the model file's ``initial_error`` when the run
    follows the model's trajectory, and zero -- the plant starts on the
    trajectory -- when you give a trajectory of your own. A desired pose
    outside the stroke or joint limits raises ``UnreachableError`` naming its
    time.

    >>> from robolib import stewart
    >>> m = stewart.load("stewart/tsai2000.yaml")
    >>> stewart.simulate(m, controller="lagrange")
    Traceback (most recent call last):
        ...
    robolib.ParameterError: controller must be one of ['newton_euler', 'newton_euler_nospin', 'virtual_work'], got 'lagrange'
    """
    _check_model(model)
    ctrl_code, plant_code = _method(controller, "controller"), _method(plant, "plant")
    pid = as_flag(pid, "pid")
    cb = model.controller or {}
    g = dict(DEFAULT_GAINS)
    g.update({k: cb[k] for k in ("kp", "kd", "ki") if k in cb})
    if gains is not None:
        if not isinstance(gains, Mapping):
            raise ParameterError(f"gains must be a mapping with keys kp, kd, ki, got {gains!r:.60} "
                                 f"({type(gains).__name__})")
        unknown = set(gains) - {"kp", "kd", "ki"}
        if unknown:
            raise ParameterError(f"gains has unknown keys {sorted(unknown, key=repr)} (known: kp, kd, ki)")
        g.update({k: real(f"gains[{k!r}]", v, low=0.0) for k, v in gains.items()})
    if not pid:
        g["ki"] = 0.0
    if any(v < 0 for v in g.values()):
        raise ParameterError(f"gains must be non-negative, got {g}")
    tb = model.trajectory or {}
    duration = real("duration", tb.get("duration", 15.0) if duration is None else duration, low=0.0, open_low=True,
                    unit="s")
    step = real("step", cb.get("step", 1e-3) if step is None else step, low=0.0, open_low=True, high=duration,
                unit="s (at most the duration)")
    if trajectory is not None:
        _check_trajectory(trajectory)
    traj = trajectory_from_model(model) if trajectory is None else trajectory
    if initial_error is None:
        initial_error = tb.get("initial_error", np.zeros(6)) if trajectory is None else np.zeros(6)
    e0 = real_array("initial_error", initial_error, shape=(6,))
    nsteps = int(round(duration / step))
    t = np.arange(nsteps + 1) * step
    Xd, Vd, _ = traj(t)
    ok = check_limits(model, Xd, mask=True)  # the desired trajectory must stay inside the limits
    if not ok.all():
        k = int(np.flatnonzero(~ok)[0])
        try:
            check_limits(model, Xd[k])
        except UnreachableError as exc:
            raise UnreachableError(f"simulate: the desired trajectory at t = {t[k]:.4g} s: {exc}") from None
    X0 = Xd[0] + e0
    V0 = Vd[0].copy()
    inverse_kinematics(model, X0)  # raises on a degenerate or unreachable start
    ld, dld, ddld = joint_references(model, traj, t)
    n = nsteps + 1
    T_X, T_V, T_L, T_E, T_F = (np.zeros((n, 6)) for _ in range(5))
    args = (model.packed, plant_code, ctrl_code, step)
    refs = (ld, dld, ddld, g["kp"], g["kd"], g["ki"], T_X, T_V, T_L, T_E, T_F)
    _kernels.simulate_loop(*args, 0, X0, V0, *refs)  # load/compile the kernel outside the timed run
    t0 = time.perf_counter()
    st, k = _kernels.simulate_loop(*args, nsteps, X0, V0, *refs)
    wall = time.perf_counter() - t0
    if st != 0:
        code, _ = _kernels.decode_status(st)
        raise status_error(code)(f"simulate: at t = {k * step:.4g} s the {plant} plant reached "
                                 f"{status_message(st)}")
    return SimResult(t, T_X, Xd, T_V, T_L, ld, T_E, T_F, wall, controller, plant, g)


__all__ = ["Trajectory", "PoseFunction", "sampled_loop_radius", "trajectory_from_model", "joint_references", "SimResult", "simulate", "DEFAULT_GAINS"]


#: Convergence band of :func:`tracking_metrics`: the error has converged once it stays below
#: this fraction of its initial value.
CONVERGENCE_FRACTION = 0.01


def tracking_metrics(t, error, *, window: float, fraction: float = CONVERGENCE_FRACTION) -> dict:
    """Static error, error fluctuation and convergence time of a leg-error history.

    ``t`` (n,) s and ``error`` (n, 6) m (e.g. ``SimResult.t, SimResult.error``);
    with ``e(t) = max_i |e_i(t)|`` and the tail the last ``window`` seconds:

    * ``static``: mean of ``e`` over the tail (m), the error that remains;
    * ``fluctuation``: largest peak-to-peak swing of one leg's error over the
      tail, ``max_i (max e_i - min e_i)`` (m);
    * ``convergence_time``: the first time after which ``e`` stays at or below
      ``fraction * e(0)`` to the end of the run (s; ``inf`` if it never does).

    >>> t = np.linspace(0.0, 2.0, 2001)
    >>> e = np.exp(-5 * t)[:, None] * np.ones(6)       # e(t) = exp(-5 t) on every leg
    >>> m = tracking_metrics(t, e, window=0.5)
    >>> round(m["convergence_time"], 2), round(float(np.log(100)) / 5, 2)   # exp(-5 t) = 0.01
    (0.92, 0.92)
    """
    t = real_array("tracking_metrics: t", t, shape=(None,))
    if len(t) < 2 or not np.all(np.diff(t) > 0):
        raise ParameterError(f"tracking_metrics: t must be increasing times (s), at least 2, got {t!r:.60}")
    error = real_array("tracking_metrics: error", error, shape=(len(t), 6))
    window = real("tracking_metrics: window", window, low=0.0, open_low=True, unit="s")
    if not window <= t[-1] - t[0]:
        raise ParameterError(f"tracking_metrics: window must be in (0, {t[-1] - t[0]:g}] s, got {window}")
    fraction = real("tracking_metrics: fraction", fraction, low=0.0, high=1.0, open_low=True, open_high=True)
    emax = np.abs(error).max(axis=1)
    tail = t >= t[-1] - window
    above = np.flatnonzero(emax > fraction * emax[0])
    if above.size == 0:
        tc = float(t[0])
    elif above[-1] == len(t) - 1:
        tc = float("inf")
    else:
        tc = float(t[above[-1] + 1])
    return {"static": float(emax[tail].mean()),
            "fluctuation": float((error[tail].max(axis=0) - error[tail].min(axis=0)).max()),
            "convergence_time": tc}


__all__ += ["tracking_metrics", "CONVERGENCE_FRACTION"]
