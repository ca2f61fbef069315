"""The chapter *Stewart platform: U-joint Newton–Euler vs virtual work* as one function: :func:`run`.

The patent's two claims on the 6-UPS platform (seed 004) are tested here: claim 1,
the U-joint Newton-Euler (NE) model tracks better under ID-PID control than the
virtual-work (VW) model; claim 2, a 15-s simulation of NE runs "nearly 31 times"
faster. The study computes every experiment of the chapter: leg spin along the
reference trajectory, the NE-VW force gap (trajectory, random states, rest, the
pinocchio cross-check), the stroke and joint limits, the closed-loop tracking runs,
the timings (:mod:`robolib.studies.stewart_timing.timing`) and exercise 3, registers the claims and
returns a :class:`robolib.book.result.StudyResult`. Its figures and the Explore panels are in
:mod:`robolib.studies.stewart_timing.figures`.

>>> from robolib import study
>>> sorted(study.defaults("stewart_timing"))[:4]
['amplitude_scale', 'data_file', 'duration', 'frequency_scale']
>>> reference_trajectory(load("stewart/tsai2000.yaml"), "rotation").amplitude[:3].tolist()
[0.0, 0.0, 0.0]
"""

from __future__ import annotations

import numpy as np

from robolib.book.claims import ClaimsRegister
from robolib.book.notebook import markdown_table, parameter_table
from robolib.book.result import Stages, StudyResult
from robolib.book.text import and_text, minus_signs
from robolib.core.errors import ParameterError, UnreachableError
from robolib.core.params import Parameter, declare_parameters, validate_parameters
from robolib.stewart import control as _control
from robolib.stewart.control import (
    CONVERGENCE_FRACTION,
    Trajectory,
    joint_references,
    simulate,
    tracking_metrics,
    trajectory_from_model,
)
from robolib.stewart.dynamics import inverse_dynamics
from robolib.stewart.kinematics import check_limits, jacobian, leg_geometry, leg_motion, limit_codes
from robolib.stewart.model import StewartModel, load, point_mass_legs
from robolib.stewart.pinocchio_ref import PinocchioStewart
from robolib.studies.stewart_timing import figures as figs
from robolib.studies.stewart_timing import timing
from robolib.studies.stewart_timing.settings import (
    ACCEL_SCALE,
    BETTER,
    EX3_GAINS,
    EX3_LATE,
    EX3_RESID,
    EX3_T,
    FAR_DZ,
    FIRST_ORDER_MAX,
    IMPL_MIN,
    LABEL,
    LEVEL_MIN,
    MIN_STEPS,
    MUCH_LARGER,
    PATENT_RATIO,
    PID_GAIN_MIN,
    PIN_AGREE,
    REAL,
    REPRODUCED,
    ROUNDOFF,
    RUN_TARGET_S,
    SAME_COST,
    SPIN_ANGLE_DEG,
    SPIN_SHARE_MIN,
    SPREAD,
    STEP_DIVISORS,
    STEP_MAX,
    STEP_SHRINK_MAX,
    TRAJECTORIES,
    TWIST_SCALE,
    VW_GAP,
    ZOH_ORDER_MIN,
    Settings,
    file_offset,
    settings,
)


def zoh_spectral_radius(step: float, kp: float, kd: float, ki: float = 0.0) -> float:
    """Spectral radius of one leg's error map over one step of the held-force ID-PID loop (exact model).

    With the leg acceleration held over the step ``h`` (``u = K_p e + K_d e' + K_i z``, ``z`` the sum
    ``e h``): ``e+ = e + h e' - h²/2 u``, ``e'+ = e' - h u``, ``z+ = z + h e``. The closed-loop runs
    diverge where this exceeds 1 (at the default gains between a step of 0.03 s and 0.035 s, as the runs do;
    for a small step it is below 1 iff ``e''' + K_d e'' + K_p e' + K_i e = 0`` is stable, i.e.
    ``K_p, K_d > 0`` and ``K_i < K_p K_d``).

    >>> [round(zoh_spectral_radius(h, 1200.0, 60.0, 8000.0), 3) for h in (0.001, 0.03, 0.035)]
    [0.983, 0.723, 1.144]
    """
    h2 = step * step / 2
    A = np.array([[1 - h2 * kp, step - h2 * kd, -h2 * ki], [-step * kp, 1 - step * kd, -step * ki],
                  [step, 0.0, 1.0]])
    if ki == 0:
        A = A[:2, :2]
    return float(np.abs(np.linalg.eigvals(A)).max())


def closed_loop_poles(kp: float, kd: float, ki: float = 0.0) -> np.ndarray:
    """Poles (rad/s) of one leg's error under an exact model: the roots of ``s³ + kd s² + kp s + ki`` (PID,
    ``ki > 0``) or of ``s² + kd s + kp`` (PD, ``ki = 0``).

    >>> closed_loop_poles(1200.0, 60.0).round(2).tolist()
    [(-30+17.32j), (-30-17.32j)]
    """
    return np.roots([1.0, kd, kp, ki] if ki > 0 else [1.0, kd, kp]).astype(complex)


def poles_text(poles) -> str:
    """The poles as the prose writes them after "gives it": a repeated pole once, a complex pair as ``re ± im j``,
    in rad/s.

    >>> poles_text(closed_loop_poles(1200.0, 60.0, 8000.0)), poles_text(closed_loop_poles(1200.0, 60.0))
    ('a triple pole at −20 rad/s', 'poles at −30 ± 17.3j rad/s')
    >>> poles_text(closed_loop_poles(1200.0, 80.0, 8000.0))
    'poles at −63 and −8.52 ± 7.38j rad/s'
    """
    p = np.asarray(poles, dtype=complex)
    if len(p) > 1 and np.allclose(p, p.mean(), rtol=1e-4, atol=0.0):
        return minus_signs(f"a {('double', 'triple')[len(p) - 2]} pole at {p.mean().real:.3g} rad/s")
    tiny = 1e-6 * np.abs(p)
    parts = [f"{r.real:.3g}" for r in sorted(p[np.abs(p.imag) <= tiny], key=lambda r: -r.real)]
    parts += [f"{r.real:.3g} ± {r.imag:.3g}j" for r in p[p.imag > tiny]]
    return minus_signs(f"poles at {and_text(parts)} rad/s")


def decay_rate(poles) -> float:
    """Decay rate (1/s) of the slowest pole: ``-max Re(p)``.

    >>> decay_rate(closed_loop_poles(1200.0, 60.0, 8000.0)).__round__(3), decay_rate(closed_loop_poles(1200.0, 60.0))
    (20.0, 30.0)
    """
    return float(-np.max(np.asarray(poles).real))


def check_run_settings(duration: float, step: float, kp: float, kd: float, ki: float, quick: bool) -> None:
    """Conditions between the parameters, before any work: the step divides the duration used into at
    least :data:`MIN_STEPS` steps, and the held-force loop is stable with the run's gains (PID and PD).

    >>> check_run_settings(15.0, 0.003, 1200.0, 60.0, 8000.0, quick=True)
    Traceback (most recent call last):
        ...
    robolib.ParameterError: step = 0.003 s does not divide the duration used (2 s: quick caps duration = 15 s at 2 s) into whole steps (2 / 0.003 = 666.667)
    """
    d = settings(duration, quick).duration
    used = f"the duration used ({d:g} s{f': quick caps duration = {duration:g} s at 2 s' if d != duration else ''})"
    n = d / step
    if abs(n - round(n)) > 1e-9 * max(n, 1.0):
        raise ParameterError(f"step = {step:g} s does not divide {used} into whole steps ({d:g} / {step:g} = {n:g})")
    if round(n) < MIN_STEPS:
        raise ParameterError(f"step = {step:g} s gives {round(n)} steps in {used}; the runs need at least "
                             f"{MIN_STEPS}: step must be at most duration / {MIN_STEPS} = {d / MIN_STEPS:g} s")
    for law, k_i in (("PID", ki), ("PD", 0.0)):
        rho = zoh_spectral_radius(step, kp, kd, k_i)
        if not rho < 1:
            raise ParameterError(
                f"kp = {kp:g}, kd = {kd:g}, ki = {k_i:g} with step = {step:g} s: the {law} runs diverge (the "
                f"held-force error map of one leg has spectral radius {rho:.4g} >= 1; it must be < 1); lower the "
                f"step or the gains (with a small step: stable iff ki < kp kd = {kp * kd:g})")


def load_sets(data_file: str, other_file: str) -> tuple[StewartModel, StewartModel]:
    """The two parameter sets; an invalid file or the same set twice is an error naming the parameter."""
    models = []
    for name, path in (("data_file", data_file), ("other_file", other_file)):
        try:
            models.append(load(path))
        except ParameterError as exc:
            raise ParameterError(f"{name} = {path!r} is not a valid Stewart-platform parameter set: {exc}") from None
    model, other = models
    if model.name == other.name:
        raise ParameterError(f"other_file = {other_file!r} must be a parameter set other than data_file = "
                             f"{data_file!r}: both are {model.name!r}")
    return model, other


def check_trajectories(models: dict, trajs: dict, t, trajectory: str, amplitude_scale: float) -> None:
    """Model-dependent conditions, before any work: on every set the selected, scaled trajectory moves
    (some amplitude is not 0) and stays inside the stroke and joint-angle limits at the times ``t`` (s)."""
    for name, m in models.items():
        tr = trajs[name]
        if not np.any(tr.amplitude != 0):
            raise ParameterError(f"trajectory = {trajectory!r}: the trajectory of set {name!r} does not move (every "
                                 f"amplitude it selects is 0)")
        X = tr(t)[0]
        ok = check_limits(m, X, mask=True)
        if not ok.all():
            k = int(np.flatnonzero(~ok)[0])
            try:
                check_limits(m, X[k])
                why = "a limit"
            except UnreachableError as exc:
                why = str(exc)
            raise ParameterError(f"amplitude_scale = {amplitude_scale:g} with trajectory = {trajectory!r}: the "
                                 f"desired trajectory of set {name!r} leaves its limits at t = {t[k]:.4g} s ({why}); "
                                 "amplitude_scale must keep it inside both sets' limits")


def reference_trajectory(model: StewartModel, trajectory: str = "file", amplitude_scale: float = 1.0,
                         frequency_scale: float = 1.0) -> Trajectory:
    """The model's trajectory block, ``trajectory``-selected (all terms, x/y/z only, angles only) and scaled."""
    tr = trajectory_from_model(model)
    amp = np.array(tr.amplitude, dtype=float) * amplitude_scale
    if trajectory == "translation":
        amp[3:] = 0.0
    elif trajectory == "rotation":
        amp[:3] = 0.0
    return Trajectory(tr.home, amp, np.array(tr.frequency) * frequency_scale, tr.phase)


# ---- experiments ---------------------------------------------------------------------------------------
def random_states(model: StewartModel, rng, n: int):
    """``n`` random states ``(X, V, dV)``, each (n, 6): pose home +- SPREAD, twist and acceleration normal."""
    X = model.home_pose + rng.uniform(-1, 1, (n, 6)) * SPREAD
    V = rng.normal(size=(n, 6)) * TWIST_SCALE
    dV = rng.normal(size=(n, 6)) * ACCEL_SCALE
    return X, V, dV


def spin_along(model: StewartModel, traj: Trajectory, t) -> dict:
    """Leg spin ``omega_i . s_i`` (n, 6) rad/s along ``traj`` at times ``t`` (n,), its peak and its share
    of the largest normal angular velocity ``|omega_perp|``."""
    X, V, dV = traj(t)
    spin = leg_motion(model, X, V, dV).spin
    w_perp = np.linalg.norm(leg_motion(model, X, V, dV, spin=False).omega, axis=-1)
    peak = float(np.abs(spin).max())
    return {"spin": spin, "peak": peak, "w_perp": float(w_perp.max()), "share": peak / float(w_perp.max())}


def force_gap(model: StewartModel, traj: Trajectory, t) -> dict:
    """NE and VW actuator forces (n, 6) N along ``traj`` at ``t``, and their gap: max, relative max and RMS."""
    X, V, dV = traj(t)
    f_ne = inverse_dynamics(model, X, V, dV, method="newton_euler")
    f_vw = inverse_dynamics(model, X, V, dV, method="virtual_work")
    d = f_vw - f_ne
    return {"f_ne": f_ne, "f_vw": f_vw, "fmax": float(np.abs(f_ne).max()), "dmax": float(np.abs(d).max()),
            "rel": float(np.abs(d).max() / np.abs(f_ne).max()),
            "rms": float(np.sqrt(np.mean(d ** 2)) / np.sqrt(np.mean(f_ne ** 2)))}


def pinocchio_reference(model: StewartModel):
    """The independent pinocchio model of ``model``, or None if pinocchio (PyPI ``pin``) is not installed."""
    try:
        return PinocchioStewart(model)
    except ImportError:
        return None


def random_gaps(model: StewartModel, X, V, dV, ref=None, n_ref: int | None = None) -> dict:
    """Largest relative gaps on random states: VW vs NE (moving), VW vs NE at rest, NE vs pinocchio ``ref``.

    Relative to each state's largest force; the pinocchio check (slow) on the first ``n_ref`` states (all if
    None); ``pin`` is NaN without ``ref``. ``vw_p99``: the 99th percentile of the moving states' gaps.
    """
    fn = inverse_dynamics(model, X, V, dV)
    fv = inverse_dynamics(model, X, V, dV, method="virtual_work")
    rest = np.zeros_like(X)
    f0n, f0v = inverse_dynamics(model, X, rest, rest), inverse_dynamics(model, X, rest, rest, method="virtual_work")
    gaps = np.abs(fv - fn).max(axis=1) / np.abs(fn).max(axis=1)
    out = {"vw": float(gaps.max()), "vw_p99": float(np.percentile(gaps, 99)), "n": len(X),
           "rest": float(np.max(np.abs(f0v - f0n).max(axis=1) / np.abs(f0n).max(axis=1))), "pin": float("nan")}
    if ref is not None:
        k = len(X) if n_ref is None else min(n_ref, len(X))
        fp = np.array([ref.inverse_dynamics(*s) for s in zip(X[:k], V[:k], dV[:k])])
        out["pin"] = float(np.max(np.abs(fn[:k] - fp).max(axis=1) / np.abs(fp).max(axis=1)))
        out["n_pin"] = k
    return out


def leg_coms_on_axis(model: StewartModel) -> bool:
    """True if the cylinder's and the rod's centres of mass lie on the leg axis."""
    return bool(np.allclose(model.cylinder.com[:2], 0) and np.allclose(model.rod.com[:2], 0))


def reach_map(model: StewartModel, nx: int) -> dict:
    """First violated limit (``limit_codes``) on an ``nx`` x ``nx`` grid of the plane y = y_home, home orientation.

    ``x`` within +-1.2 m and ``z`` within -0.9..+1.1 m of home; returns ``XX, ZZ`` (nx, nx) m and ``codes``.
    """
    xs = model.home_pose[0] + np.linspace(-1.2, 1.2, nx)
    zs = model.home_pose[2] + np.linspace(-0.9, 1.1, nx)
    XX, ZZ = np.meshgrid(xs, zs)
    P = np.tile(model.home_pose, (nx, nx, 1))
    P[..., 0], P[..., 2] = XX, ZZ
    return {"XX": XX, "ZZ": ZZ, "codes": limit_codes(model, P)}


def unreachable_message(model: StewartModel, dz: float = FAR_DZ) -> tuple[bool, str]:
    """(raised, message) of the inverse dynamics at home + ``dz`` m in height, at rest."""
    try:
        inverse_dynamics(model, model.home_pose + [0.0, 0.0, dz, 0.0, 0.0, 0.0], np.zeros(6), np.zeros(6))
    except UnreachableError as exc:
        return True, str(exc)
    return False, "no error"


def tracking_runs(models: dict, trajs: dict, gains: dict, duration: float, step: float) -> dict:
    """Closed loops on the U-joint NE plant: ``{(set, controller, pid): SimResult}``, NE/VW x PD/PID per set."""
    return {(name, ctrl, pid): simulate(m, ctrl, pid=pid, gains=gains, duration=duration, step=step,
                                        trajectory=trajs[name], initial_error=file_offset(m))
            for name, m in models.items() for ctrl in LABEL for pid in (False, True)}


def spin_angle(model: StewartModel, traj: Trajectory, duration: float, n: int = 2001) -> dict:
    """Accumulated spin angle ``int omega_i . s_i dt`` (n, 6) in degrees over one period of the slowest
    trajectory term (at most ``duration``), by the trapezoidal rule on ``n`` times ``t`` (s)."""
    nz = traj.amplitude != 0
    period = 2 * np.pi / np.min(traj.frequency[nz]) if np.any(nz) else 4.0
    t = np.linspace(0, min(period, duration), n)
    X, V, dV = traj(t)
    s = leg_motion(model, X, V, dV).spin
    angle = np.concatenate([np.zeros((1, 6)), np.cumsum(0.5 * (s[1:] + s[:-1]) * np.diff(t)[:, None], axis=0)])
    return {"t": t, "angle": np.degrees(angle), "period": float(period)}


def exercise_3(model: StewartModel, traj: Trajectory, step: float) -> dict:
    """Exercise 3: closed-form PD error ``e'' + K_d e' + K_p e = 0`` vs the simulation (NE on NE).

    For the steps ``step`` and ``step / 10``: the largest difference over 0.3 s relative to the initial
    error (``resid``); at ``step`` also the predicted and simulated errors at 0.3 s (m) and their relative
    difference per leg (``late``).
    """
    kp, kd = EX3_GAINS["kp"], EX3_GAINS["kd"]
    a, wd = kd / 2, np.sqrt(kp - kd ** 2 / 4)
    out = {"poles": np.roots([1, kd, kp]), "resid": {}}
    for h in (step, step / 10):
        r = simulate(model, "newton_euler", pid=False, gains=EX3_GAINS, duration=EX3_T, step=h, trajectory=traj,
                     initial_error=file_offset(model))
        e0 = r.error[0]
        de0 = joint_references(model, traj, r.t[:1])[1][0] - jacobian(model, r.pose[0]) @ r.twist[0]
        tt = r.t[:, None]
        e_pred = np.exp(-a * tt) * (e0 * np.cos(wd * tt) + (de0 + a * e0) / wd * np.sin(wd * tt))
        out["resid"][h] = float(np.abs(e_pred - r.error).max() / np.abs(e0).max())
        if h == step:
            out["late"] = np.abs(e_pred[-1] - r.error[-1]) / np.abs(e_pred[-1])
            out["pred"], out["sim"] = e_pred[-1], r.error[-1]
    out["worst"] = int(np.argmax(out["late"]))
    out["zoh"] = out["resid"][step] / out["resid"][step / 10]
    return out


def exercise_1(models: dict, rng, n: int = 20) -> dict:
    """Exercise 1: largest ``|f_VW - f_NE| / max |f_NE|`` with point-mass legs and no leg-rotation friction."""
    out = {}
    for name, m in models.items():
        pm = point_mass_legs(m).with_(ujoint_viscous=0.0, sjoint_viscous=0.0)
        X = m.home_pose + rng.uniform(-1, 1, (n, 6)) * SPREAD
        V, dV = rng.normal(size=(n, 6)), rng.normal(size=(n, 6)) * 3
        fn, fv = inverse_dynamics(pm, X, V, dV), inverse_dynamics(pm, X, V, dV, method="virtual_work")
        out[name] = float(np.abs(fv - fn).max() / np.abs(fn).max())
    return out


def exercise_2(models: dict, rng, n: int = 100) -> dict:
    """Exercise 2: at home, ``max |n_i - s_i|``, the largest spin rate (rad/s) over ``n`` random twists, and the
    two models' relative force gap at rest ``max |f_VW - f_NE| / max |f_NE|``."""
    out = {}
    for name, m in models.items():
        g = leg_geometry(m, m.home_pose)
        V = rng.normal(size=(n, 6))
        spin = leg_motion(m, np.broadcast_to(m.home_pose, V.shape), V).spin
        z = np.zeros(6)
        f_ne = inverse_dynamics(m, m.home_pose, z, z)
        f_vw = inverse_dynamics(m, m.home_pose, z, z, method="virtual_work")
        out[name] = (float(np.abs(g.n - g.s).max()), float(np.abs(spin).max()),
                     float(np.abs(f_vw - f_ne).max() / np.abs(f_ne).max()))
    return out


# ---- tables ---------------------------------------------------------------------------------------------
def _body_row(m: StewartModel, b, name: str) -> list:
    off_axis = np.hypot(*b.com[:2])
    prods = np.abs(b.inertia - np.diag(np.diag(b.inertia))).max()
    return [f"{m.name}: {name}", f"{b.mass:g}", ", ".join(f"{c:g}" for c in b.com), f"{off_axis:.3g}",
            ", ".join(f"{v:g}" for v in np.diag(b.inertia)), f"{prods:g}"]


def bodies_table(models: dict) -> str:
    """**Table 1**: mass, centre of mass and inertia of the three bodies of each parameter set."""
    rows = [_body_row(m, getattr(m, b), b) for m in models.values() for b in ("platform", "cylinder", "rod")]
    return ("**Table 4.1** — Bodies of the two parameter sets (mass kg, CoM m in the body frame, inertia kg m² "
            "about the CoM)\n\n" + markdown_table(["body", "mass", "CoM", "CoM off the leg axis", "principal diagonal",
                                                  "largest product of inertia"], rows))


def gap_table(force_stats: dict, rand_stats: dict, duration: float, n_random: int, have_pin: bool) -> str:
    """**Table 2**: the VW-vs-NE force gaps on the trajectory and on random states (the check of NE against
    pinocchio, ``have_pin``, is the claim ``stewart_pin`` on the evidence page)."""
    rows = [[name, f"{fs['fmax']:.4g}", f"{fs['dmax']:.3g}", f"{fs['rel']:.2e}", f"{rand_stats[name]['vw_p99']:.1e}",
             f"{rand_stats[name]['vw']:.1e}", f"{rand_stats[name]['rest']:.1e}"]
            for name, fs in force_stats.items()]
    return (f"**Table 4.2** — VW against NE forces: on the reference trajectory ({duration:g} s) and on {n_random} "
            "random states per set (moving; the same poses at rest), relative to each state's largest force.\n\n"
            + markdown_table(["set", "max ∣f∣ [N]", "max ∣f_VW − f_NE∣ [N]", "relative", "random: 99 % below",
                              f"random: largest of {n_random}", "at rest: largest"], rows))


def tracking_table(runs: dict, metrics: dict, window: float, duration: float) -> str:
    """**Table 5.1** (chapter 5, the control lecture): initial error, static error, fluctuation and convergence time of every tracking run."""
    rows = [[name, LABEL[ctrl], "PID" if pid else "PD", f"{np.abs(runs[name, ctrl, pid].error[0]).max() * 1e3:.3g}",
             f"{mt['static'] * 1e6:.4g}", f"{mt['fluctuation'] * 1e6:.4g}", f"{mt['convergence_time']:.3f}"]
            for (name, ctrl, pid), mt in metrics.items()]
    return (f"**Table 5.1** — Tracking metrics of the leg lengths on the U-joint NE plant, tail = last {window:g} s "
            f"of each {duration:g}-s run.\n\n"
            + markdown_table(["set", "controller model", "law", "initial max ∣e∣ [mm]", "static error [µm]",
                              "fluctuation [µm]", "convergence time [s]"], rows))


def parameter_tables(p: dict, s: Settings) -> dict:
    """The short table of key parameters and the three full tables (data file, second file, run settings)."""

    g = f"{p['kp']:g}, {p['kd']:g}, {p['ki']:g}"
    key = parameter_table(title="Key parameters of this run", extra=[
        ("data_file, other_file", f"{p['data_file']}, {p['other_file']}", "plant and controller sets (YAML, SI)"),
        ("trajectory", f"{p['trajectory']}: amplitudes × {p['amplitude_scale']:g}, frequencies × "
         f"{p['frequency_scale']:g}", "X_d(t) = home_pose + amplitude sin(frequency t + phase)"),
        ("K_p, K_d, K_i", g, "1/s², 1/s, 1/s³ (PD runs use K_i = 0)"),
        ("duration, step", f"{s.duration:g} s, {p['step']:g} s", "closed-loop runs: RK4, force held over each step"),
        ("seed, quick", f"{p['seed']}, {p['quick']}", "random states; quick = short runs for tests")])
    run = parameter_table(run=p, spec=PARAMETERS, title="Notebook parameters and settings fixed in the code", extra=[
        ("trajectory used", f"{p['trajectory']}: amplitudes × {p['amplitude_scale']:g}, frequencies × "
         f"{p['frequency_scale']:g}", "X_d(t) = home_pose + amplitude sin(frequency t + phase), from each file's "
         "trajectory block"),
        ("duration used", f"{s.duration:g}", "s, every closed-loop run (quick caps it at 2 s)"),
        ("initial error", "each file's trajectory.initial_error", "m, rad: plant pose minus desired pose at t = 0"),
        ("gains K_p, K_d, K_i", g, "1/s², 1/s, 1/s³: the notebook parameters (they replace the files' controller "
         "block); PD runs use K_i = 0"),
        ("integrator", f"RK4, fixed step {p['step']:g} s", "plant forward dynamics; the controller force is held "
         "over each step"),
        ("controller", "inverse-dynamics decentralised PID (the patent's Eq. 33)", "computed in leg space, model NE "
         "or VW"),
        ("WINDOW", s.window, "s, tail of each run for static error and fluctuation"),
        ("stewart.CONVERGENCE_FRACTION", _control.CONVERGENCE_FRACTION,
         "convergence: the error stays below this fraction of its initial value"),
        ("random states", f"{s.n_random} per set: pose home ± {SPREAD.tolist()}, twist N(0, 0.5 m/s, 1 rad/s), "
         f"acceleration N(0, 3 m/s², 5 rad/s²); the pinocchio check on the first {s.n_pin}", "seeded by seed"),
        ("timing", f"{s.timing_repeats} interleaved repeats × {timing.KERNEL_FACTOR * s.timing_number} calls "
         f"(compiled kernels), × {s.timing_number} (public API), × {s.aw_number} (as written); {s.run_repeats} "
         f"repeats per run; as-written runs {s.aw_steps} steps × {s.aw_repeats}", "best repeat is used"),
        ("animation", f"{s.n_frames} frames over one period of the slowest trajectory term",
         "figure 6.7 × 3.9 in at 100 dpi, JPEG frames")])
    return {"key_parameters": key,
            "parameters_data": parameter_table([p["data_file"]], title=f"Plant and controllers: `{p['data_file']}`"),
            "parameters_other": parameter_table([p["other_file"]], title="Second parameter set, compared alongside: "
                                                f"`{p['other_file']}`"),
            "parameters_run": run,
            "criteria": parameter_table(extra=criteria_rows(), title="Constants of the claims' criteria")}


def criteria_rows() -> list[tuple[str, str, str]]:
    """The constants of the claims' criteria, fixed before the runs: ``(name, value, claims that use it)`` rows."""
    return [
        ("MUCH_LARGER, BETTER", f"{MUCH_LARGER:g}, {BETTER:g}", "stewart_c1_*: 'much larger' factor, 'better' margin"),
        ("stewart.CONVERGENCE_FRACTION", f"{CONVERGENCE_FRACTION:g}", "stewart_c1_tconv: convergence threshold"),
        ("REPRODUCED", f"{REPRODUCED:g}", "stewart_c2_whole, _aswritten, _verdict: share of the patent's ratio"),
        ("SAME_COST", f"{SAME_COST:g}", "stewart_c2_mismatch: factor of 'about the same'"),
        ("RUN_TARGET_S", f"{RUN_TARGET_S:g} s", "stewart_c2_target"),
        ("IMPL_MIN", f"{IMPL_MIN:g}", "stewart_c2_impl"),
        ("SPIN_SHARE_MIN, SPIN_ANGLE_DEG", f"{SPIN_SHARE_MIN:g}, {SPIN_ANGLE_DEG} deg", "stewart_spin, stewart_spin_angle"),
        ("VW_GAP", f"{VW_GAP}", "stewart_vw_gap, stewart_vw_random, stewart_rest_offaxis (relative)"),
        ("ROUNDOFF, REAL, PIN_AGREE", f"{ROUNDOFF:g}, {REAL:g}, {PIN_AGREE:g}",
         "stewart_rest_onaxis, stewart_ex1_pointmass, stewart_ex2_home, stewart_rest_offaxis, stewart_pin (relative)"),
        ("PID_GAIN_MIN, STEP_SHRINK_MAX", f"{PID_GAIN_MIN:g}, {STEP_SHRINK_MAX:g}", "stewart_pid_gain, stewart_c1_step"),
        ("STEP_DIVISORS, FIRST_ORDER_MAX, LEVEL_MIN", f"{STEP_DIVISORS}, {FIRST_ORDER_MAX:g}, {LEVEL_MIN:g}",
         "stewart_c1_floor, stewart_c1_fine, stewart_c1_crossover, stewart_c1_verdict (the steps: step / d)"),
        ("EX3_RESID, EX3_LATE, ZOH_ORDER_MIN", f"{EX3_RESID:g}, {EX3_LATE:g}, {ZOH_ORDER_MIN:g}", "stewart_ex3_*"),
    ]


# ---- the study ----------------------------------------------------------------------------------------
#: Tables and figures the chapter's evidence page shows (glued by the notebook with ``res.glue_evidence``), in the
#: page's order: the timing tables S1, S2, the key and the full parameter tables and the constants of the criteria.
EVIDENCE_TABLES = ("evaluations", "run_ratios", "key_parameters", "parameters_data", "parameters_other",
                   "parameters_run", "criteria")
EVIDENCE_FIGURES = ("reach", "ratios")
#: Tables and figures of chapter 5 (``book/studies/stewart_control.md``, the second lecture on this run, on control
#: and claim 1): glued like the evidence page's, and shown there by ``reglue``.
CONTROL_TABLES = ("table3", "table4")
CONTROL_FIGURES = ("tracking",)
#: The study's parameters (the notebook's ``parameters`` cell) with their units and valid values. Conditions
#: between them and on the parameter sets are checked by :func:`check_run_settings`, :func:`load_sets` and
#: :func:`check_trajectories`, before any work.
PARAMETERS = {
    "data_file": Parameter("stewart/tsai2000.yaml", "parameter set of plant and controllers (YAML, SI)",
                           kind="file"),
    "other_file": Parameter("stewart/hydraulic.yaml", "second parameter set, compared alongside; another set "
                            "than data_file", kind="file"),
    "trajectory": Parameter("file", "the data file's trajectory block: all its terms (file) or only its x, y, z "
                            "(translation) or angle (rotation) terms", kind="choice", choices=TRAJECTORIES),
    "amplitude_scale": Parameter(1.0, "dimensionless factor on the trajectory amplitudes; the scaled trajectory "
                                 "must stay inside both sets' limits", low=0.0, open_low=True),
    "frequency_scale": Parameter(1.0, "dimensionless factor on the trajectory frequencies", low=0.0,
                                 open_low=True),
    "kp": Parameter(1200.0, "proportional gain K_p", unit="1/s²", low=0.0, open_low=True),
    "kd": Parameter(60.0, "derivative gain K_d", unit="1/s", low=0.0, open_low=True),
    "ki": Parameter(8000.0, "integral gain K_i of the PID runs (PD runs use 0); a stable loop needs "
                    "ki < kp kd (small step)", unit="1/s³", low=0.0),
    "duration": Parameter(15.0, "simulated time of each closed-loop run (quick caps it at 2 s)", unit="s", low=0.0,
                          open_low=True),
    # at most STEP_MAX: exercise 3's 0.3-s run needs MIN_STEPS steps too
    "step": Parameter(0.001, f"controller period and RK4 step; it divides the duration used into at least "
                      f"{MIN_STEPS} steps, and the held-force loop must be stable with the gains", unit="s", low=0.0,
                      open_low=True, high=STEP_MAX),
    "seed": Parameter(2026, "seed of the random states", kind="integer", low=0),
    "quick": Parameter(False, "True: 2-s runs, fewer timing repeats, frames and Explore values, for tests",
                       kind="boolean"),
}


@declare_parameters(PARAMETERS, "stewart_timing")
def run(*, data_file: str = "stewart/tsai2000.yaml", other_file: str = "stewart/hydraulic.yaml",
                 trajectory: str = "file", amplitude_scale: float = 1.0, frequency_scale: float = 1.0,
                 kp: float = 1200.0, kd: float = 60.0, ki: float = 8000.0, duration: float = 15.0,
                 step: float = 0.001, seed: int = 2026, quick: bool = False):
    """Every experiment of the chapter, its claims, tables and figures.

    Parameters (the notebook's ``parameters`` cell; units and valid values in :data:`PARAMETERS`, checked
    with the conditions between them before any work): ``data_file``, ``other_file`` parameter sets
    (``data/`` paths); ``trajectory`` ``"file"``, ``"translation"`` or ``"rotation"``;
    ``amplitude_scale``, ``frequency_scale`` (-) multiply the trajectory's terms; gains ``kp`` [1/s²],
    ``kd`` [1/s], ``ki`` [1/s³] (PD runs use 0); ``duration`` [s] of each closed-loop run; ``step`` [s]
    of the controller and RK4; ``seed`` of the random states; ``quick``: 2-s runs, fewer repeats.

    Returns a :class:`robolib.book.result.StudyResult` with the 30 claims, tables ``key_parameters``,
    ``parameters_data``, ``parameters_other``, ``parameters_run``, ``criteria``, ``table1``, ``table2`` (chapter 4's
    lecture), ``table3``, ``table4`` (chapter 5's, :data:`CONTROL_TABLES`) and ``evaluations``, ``run_ratios`` (the
    evidence page's, :data:`EVIDENCE_TABLES`), figures ``mechanism``, ``spin``, ``forces``, ``reach``, ``tracking``, ``ratios``, and the data the prose,
    the animation, the Explore panels and the exercises use.
    """

    p = dict(data_file=data_file, other_file=other_file, trajectory=trajectory, amplitude_scale=amplitude_scale,
             frequency_scale=frequency_scale, kp=kp, kd=kd, ki=ki, duration=duration, step=step, seed=seed,
             quick=quick)
    # the values are checked by @declare_parameters; the conditions between them and on the sets, up front
    check_run_settings(duration, step, kp, kd, ki, quick)
    s = settings(float(duration), quick)
    model, other = load_sets(data_file, other_file)
    models = {model.name: model, other.name: other}
    trajs = {name: reference_trajectory(m, trajectory, amplitude_scale, frequency_scale) for name, m in models.items()}
    t_ref = np.arange(int(round(s.duration / step)) + 1) * step
    check_trajectories(models, trajs, t_ref, trajectory, amplitude_scale)
    tr = trajs[model.name]
    gains = {"kp": float(kp), "kd": float(kd), "ki": float(ki)}
    rng = np.random.default_rng(seed)
    claims = ClaimsRegister("stewart_timing", source="004", glue=False, quick=bool(quick))
    stage = Stages("stewart_timing")
    stage("spin, forces of the two models and the pinocchio reference")
    data = {"models": models, "model": model, "other": other, "trajs": trajs, "traj": tr, "gains": gains,
            "settings": s, "t_ref": t_ref}

    # leg spin (Eqs. 7-10)
    spins = {name: spin_along(m, trajs[name], t_ref) for name, m in models.items()}
    spin_claim(claims, model.name, other.name, spins)

    # forces of both models: trajectory, random states, rest, pinocchio
    force_stats = {name: force_gap(m, trajs[name], t_ref) for name, m in models.items()}
    refs = {name: pinocchio_reference(m) for name, m in models.items()}
    have_pin = all(r is not None for r in refs.values())
    rand_stats = {name: random_gaps(m, *random_states(m, rng, s.n_random), refs[name], s.n_pin)
                  for name, m in models.items()}
    force_claims(claims, model.name, other.name, models, force_stats, rand_stats, have_pin, span=float(t_ref[-1]))

    # stroke and joint limits
    stage("reach map")
    reach = reach_map(model, s.reach_nx)
    raised, msg = unreachable_message(model)
    claims.claim("stewart_unreachable", f"a pose {FAR_DZ:g} m above home (legs of about 5 m) is refused by the "
                 "dynamics with an UnreachableError that names the leg and the stroke limit", value=msg,
                 criterion="UnreachableError raised, naming 'leg' and 'length_max'",
                 holds=raised and "leg" in msg and "length_max" in msg, text=f"“{msg}”")

    # claim 1: tracking under ID-PID
    stage("closed-loop tracking runs")
    runs = tracking_runs(models, trajs, gains, s.duration, step)
    metrics = {k: tracking_metrics(r.t, r.error, window=s.window) for k, r in runs.items()}
    refined = step_refinement(model, tr, gains, s.duration, step, s.window, metrics)
    hold = {c: (refined[1][c]["static"], refined[10][c]["static"]) for c in LABEL}
    refined_other = other_refinement(other, trajs[other.name], gains, s.duration, step, s.window)
    tracking_claims(claims, model.name, models, metrics, hold)
    pid_speed_claim(claims, model.name, models, metrics, gains)
    refinement_claims(claims, model.name, refined, step)

    # claim 2: the timings (compiled and as written, single evaluations and whole runs)
    Xs = model.home_pose + rng.uniform(-0.1, 0.1, 6)
    state = (Xs, rng.normal(size=6), rng.normal(size=6), rng.normal(size=6) * 10)
    stage("timing of evaluations and runs")
    ev = timing.evaluation_times(model, *state, s, ref=pinocchio_reference(model) if have_pin else None)
    wall = timing.run_times(model, tr, gains, s, step, {c: runs[model.name, c, True].wall_time for c in LABEL})
    ratio = timing.timing_claims(claims, ev, wall, s)

    # the animation's spin angle, exercises
    sa = spin_angle(model, tr, s.duration)
    spin_deg = float(np.abs(sa["angle"]).max())
    lo, hi = SPIN_ANGLE_DEG
    claims.claim("stewart_spin_angle", "over one period of the slowest trajectory term the U-joint legs turn about "
                 "their own axes by a few degrees at most", value=spin_deg,
                 criterion=f"{lo:g} deg < max |∫ω·s dt| < {hi:g} deg", holds=lo < spin_deg < hi,
                 text=f"{spin_deg:.2g}°")
    ex3 = exercise_3(model, tr, step)
    exercise_3_claims(claims, ex3, step)
    ex1 = exercise_1(models, rng)
    worst1 = max(ex1.values())
    claims.claim("stewart_ex1_pointmass", "exercise 1: with point-mass legs and no friction on the legs' rotation "
                 "the virtual-work forces equal the Newton–Euler forces to round-off on both sets", value=worst1,
                 criterion=f"max |f_VW − f_NE| / max |f_NE| < {ROUNDOFF:g} on both sets", holds=worst1 < ROUNDOFF,
                 text=f"{figs.sci_text(worst1, 0)} of the largest force at most")
    ex2 = exercise_2(models, rng)
    worst2 = max(max(v) for v in ex2.values())
    claims.claim("stewart_ex2_home", "exercise 2: at the home pose n_i = s_i, the U-joint legs do not spin and the "
                 "two models' forces at rest agree, to round-off, on both sets", value=worst2,
                 criterion=f"max |n_i − s_i|, max |ω_i·s_i| (rad/s) and the relative gap at rest < {ROUNDOFF:g} on "
                           "both sets", holds=worst2 < ROUNDOFF,
                 text=f"{figs.sci_text(worst2, 0)} at most (round-off)")
    data.update(spins=spins, force_stats=force_stats, rand_stats=rand_stats, have_pin=have_pin, reach=reach,
                runs=runs, metrics=metrics, hold=hold, refined=refined, refined_other=refined_other, evaluations=ev, wall=wall, ratio=ratio, spin_angle=sa,
                exercise_3=ex3, exercise_1=ex1, exercise_2=ex2)
    tables = parameter_tables(p, s)
    tables.update(table1=bodies_table(models), table2=gap_table(force_stats, rand_stats, s.duration, s.n_random,
                                                                 have_pin),
                  table3=tracking_table(runs, metrics, s.window, s.duration),
                  table4=refinement_table(refined, step, model.name),
                  evaluations=timing.evaluation_table(ev, model.name),
                  run_ratios=timing.ratio_table(ratio, s.duration))
    values = {"stewart_data_name": model.name, "stewart_other_name": other.name, "stewart_duration": f"{s.duration:g}",
              "stewart_window": f"{s.window:g}", "stewart_patent_ratio": f"{PATENT_RATIO:.1f}",
              "stewart_aw_steps": f"{s.aw_steps}", "stewart_aw_ms": f"{s.aw_steps * step * 1e3:g}",
              "stewart_explore_T": f"{s.explore_t:g}", "stewart_n_random": f"{s.n_random:,}", "stewart_n_pin": f"{s.n_pin}",
              "stewart_convergence_pct": f"{CONVERGENCE_FRACTION:.0%}", **timing.cost_values(ev),
              **pole_values(gains), "stewart_other_fine_ms": f"{step / 10 * 1e3:g}",
              "stewart_other_fine_ratio": f"{refined_other['virtual_work']['static'] / refined_other['newton_euler']['static']:.2f}"}
    res = StudyResult("stewart_timing", p, claims, tables=tables, data=data, values=values)
    res.figures.update(figs.chapter_figures(res))
    res.wall_s = stage.elapsed()
    return res


def gains_panel(params: dict):
    """Explore panel 5.1 of chapter 5 for a run with ``params`` (the run's parameters, e.g. as the executed chapter
    records them; the ones not given take their defaults): the run's model, reference trajectory and settings, without running the study, then
    :func:`robolib.studies.stewart_timing.figures.explore_gains`. The parameters are checked as :func:`run` checks
    them (a wrong value raises a :class:`~robolib.core.errors.ParameterError` naming it)."""
    params = {**{name: spec.default for name, spec in PARAMETERS.items()}, **validate_parameters(PARAMETERS, params,
                                                                                                  "stewart_timing")}
    check_run_settings(params["duration"], params["step"], params["kp"], params["kd"], params["ki"], params["quick"])
    s = settings(float(params["duration"]), params["quick"])
    model, _ = load_sets(params["data_file"], params["other_file"])
    traj = reference_trajectory(model, params["trajectory"], params["amplitude_scale"], params["frequency_scale"])
    return figs.explore_gains(model, traj, s, params)


def pole_values(gains: dict) -> dict:
    """The glued poles of the exact-model leg error with the run's gains, PID and PD, and their slowest decay rates
    (1/s).

    >>> pole_values({"kp": 1200.0, "kd": 60.0, "ki": 8000.0})["stewart_poles_pid"]
    'a triple pole at −20 rad/s'
    """
    pid = closed_loop_poles(gains["kp"], gains["kd"], gains["ki"])
    pd = closed_loop_poles(gains["kp"], gains["kd"])
    return {"stewart_poles_pid": poles_text(pid), "stewart_poles_pd": poles_text(pd),
            "stewart_decay_pid": f"{decay_rate(pid):.3g}", "stewart_decay_pd": f"{decay_rate(pd):.3g}",
            "stewart_kp": f"{gains['kp']:g}", "stewart_kd": f"{gains['kd']:g}", "stewart_ki": f"{gains['ki']:g}"}


def spin_claim(claims: ClaimsRegister, name: str, other: str, spins: dict) -> None:
    """Register the claim on the leg spin along the reference trajectory (``spins``: :func:`spin_along` by set)."""
    sp, sp_o = spins[name], spins[other]
    claims.claim("stewart_spin", f"along the reference trajectory the U-joint legs of {name} spin, at a peak of "
                 f"at least {SPIN_SHARE_MIN:.0%} of the largest normal angular velocity",
                 value=[sp["peak"], sp["share"], sp_o["peak"]], criterion=f"max |ω·s| / max |ω_⊥| ≥ {SPIN_SHARE_MIN:g}",
                 holds=sp["share"] >= SPIN_SHARE_MIN,
                 text=f"{sp['peak']:.3g} rad/s ({sp['share']:.1%} of the largest normal angular velocity; "
                      f"{sp_o['peak']:.3g} rad/s on {other})")


def force_claims(claims: ClaimsRegister, name: str, other: str, models: dict, force_stats: dict, rand_stats: dict,
                 have_pin: bool, span: float | None = None) -> None:
    """Register the claims on the VW-vs-NE force gap (trajectory, random states, at rest) and on pinocchio
    (``span``: the seconds of trajectory the gap is read over, said in its text)."""
    fs, fo = force_stats[name], force_stats[other]
    claims.claim("stewart_vw_gap", f"on the reference trajectory of {name} the virtual-work forces differ from "
                 "the U-joint Newton–Euler forces by a small but real fraction of the largest force",
                 value=[fs["rel"], fo["rel"]],
                 criterion=f"{VW_GAP[0]:g} < max|f_VW − f_NE| / max|f_NE| < {VW_GAP[1]:g}",
                 holds=VW_GAP[0] < fs["rel"] < VW_GAP[1],
                 text=f"{fs['dmax']:.3g} N, i.e. {figs.sci_text(fs['rel'])} of the largest force "
                      f"({figs.sci_text(fo['rel'])} on {other})" + (f", read over the {span:g} s that the control runs simulate"
                                                                     if span is not None else ""))
    ro, rh = rand_stats[name], rand_stats[other]
    n = ro["n"]
    claims.claim("stewart_vw_random", f"on the largest of {n} random states per set (faster, more twisted motions) "
                 f"the VW-vs-NE gap is below {VW_GAP[1]:g} of that state's largest force, on both sets",
                 value=[ro["vw"], rh["vw"]],
                 criterion=f"largest relative gap over {n} random states < {VW_GAP[1]:g} on both sets",
                 holds=max(ro["vw"], rh["vw"]) < VW_GAP[1],
                 text=f"{figs.sci_text(ro['vw'])} and {figs.sci_text(rh['vw'])} (the largest of {n} random states on each set)")
    on_axis = [n for n, m in models.items() if leg_coms_on_axis(m)]
    off_axis = [n for n in models if n not in on_axis]
    claims.claim("stewart_rest_onaxis", "at rest the no-spin model is exact (to round-off) when the leg bodies' "
                 "centres of mass lie on the leg axis", value=[rand_stats[n]["rest"] for n in on_axis],
                 criterion=f"relative gap at rest < {ROUNDOFF:g} on every set with on-axis leg CoMs",
                 holds=bool(on_axis) and all(rand_stats[n]["rest"] < ROUNDOFF for n in on_axis),
                 text=("to round-off: a relative gap of " + ", ".join(f"{figs.sci_text(rand_stats[n]['rest'])} on {n}" for n in on_axis))
                 if on_axis else "no such set")
    claims.claim("stewart_rest_offaxis", "with an off-axis cylinder centre of mass the no-spin model is wrong even at "
                 f"rest, by less than {VW_GAP[1]:.0%} of the largest force", value=[rand_stats[n]["rest"] for n in off_axis],
                 criterion=f"{REAL:g} < relative gap at rest < {VW_GAP[1]:g} on every set with an off-axis leg CoM",
                 holds=bool(off_axis) and all(REAL < rand_stats[n]["rest"] < VW_GAP[1] for n in off_axis),
                 text=", ".join(f"{figs.sci_text(rand_stats[n]['rest'])} on {n}" for n in off_axis) or "no such set")
    pin_worst = max(st["pin"] for st in rand_stats.values())
    n_pin = min(st.get("n_pin", 0) for st in rand_stats.values())
    claims.claim("stewart_pin", "the compiled U-joint Newton–Euler kernel agrees with the independent pinocchio "
                 f"model on {n_pin} random states of each set", value=pin_worst,
                 criterion=f"max relative difference < {PIN_AGREE:g}", holds=have_pin and pin_worst < PIN_AGREE,
                 text=f"{pin_worst:.0e} relative" if have_pin else "(not run: pinocchio missing)")


def step_refinement(model: StewartModel, traj: Trajectory, gains: dict, duration: float, step: float, window: float,
                    metrics: dict) -> dict:
    """Tracking metrics of the NE and VW ID-PID runs at ``step / d`` for each ``d`` of :data:`STEP_DIVISORS`:
    ``{d: {controller: metrics}}`` (``d = 1`` from ``metrics``, the chapter's runs).

    The step is both the RK4 step and the controller period (the force is held over it). An error that comes from
    holding the force is first order in the step; an error that comes from the controller's model is not, and is
    left when the step shrinks.
    """
    out = {1: {ctrl: metrics[model.name, ctrl, True] for ctrl in LABEL}}
    for d in STEP_DIVISORS[1:]:
        out[d] = {}
        for ctrl in LABEL:
            r = simulate(model, ctrl, gains=gains, duration=duration, step=step / d, trajectory=traj,
                         initial_error=file_offset(model))
            out[d][ctrl] = tracking_metrics(r.t, r.error, window=window)
    return out


def refinement_table(refined: dict, step: float, name: str) -> str:
    """**Table 5.2** (chapter 5): static error, fluctuation and convergence time of both controllers as the step shrinks."""
    rows = []
    for d, m in refined.items():
        N, V = m["newton_euler"], m["virtual_work"]
        rows.append([f"{step / d * 1e3:.3g}", f"{N['static'] * 1e6:.3g}", f"{V['static'] * 1e6:.3g}",
                     f"{V['static'] / N['static']:.2f}", f"{V['fluctuation'] / N['fluctuation']:.2f}",
                     f"{N['convergence_time']:.3f} / {V['convergence_time']:.3f}"])
    return (f"**Table 5.2** — Claim 1 on {name} (ID-PID) as the step, also the controller period, shrinks.\n\n"
            + markdown_table(["step [ms]", "static error NE [µm]", "static error VW [µm]", "static VW / NE",
                              "fluctuation VW / NE", "convergence time NE / VW [s]"], rows))


def tracking_claims(claims: ClaimsRegister, name: str, models: dict, metrics: dict, hold: dict) -> None:
    """Register the claims of claim 1 (static error, fluctuation, convergence, verdict), PID and hold."""
    mN, mV = metrics[name, "newton_euler", True], metrics[name, "virtual_work", True]
    static_ratio = mV["static"] / mN["static"]
    fluct_ratio = mV["fluctuation"] / mN["fluctuation"]
    tconv_ratio = mV["convergence_time"] / mN["convergence_time"]
    claims.claim("stewart_c1_static", "at the chapter's step, under ID-PID on the U-joint plant, the VW controller's "
                 f"static error is not much larger than the NE controller's (less than {MUCH_LARGER:g} times)", value=float(static_ratio),
                 criterion=f"static(VW) / static(NE) < {MUCH_LARGER:g}", holds=static_ratio < MUCH_LARGER,
                 text=f"{mV['static'] * 1e6:.3g} µm against {mN['static'] * 1e6:.3g} µm, a ratio of {static_ratio:.3f}",
                 answers="004.c1")
    other = next(n for n in models if n != name)
    oN, oV = metrics[other, "newton_euler", True], metrics[other, "virtual_work", True]
    other_ratio = oV["static"] / oN["static"]
    claims.claim("stewart_c1_static_other", f"on the second set ({other}) too, under ID-PID on the U-joint plant, the "
                 f"VW controller's static error is not much larger than the NE controller's (less than {MUCH_LARGER:g} "
                 "times)", value=float(other_ratio),
                 criterion=f"static(VW) / static(NE) < {MUCH_LARGER:g} on {other}", holds=other_ratio < MUCH_LARGER,
                 text=f"{oV['static'] * 1e6:.3g} µm against {oN['static'] * 1e6:.3g} µm, a ratio of {other_ratio:.3f}",
                 answers="004.c1")
    claims.claim("stewart_c1_fluct", "the error fluctuation of the two controllers differs by less than 10 %",
                 value=float(fluct_ratio), criterion=f"|fluct(VW) / fluct(NE) − 1| < {BETTER:g}",
                 holds=abs(fluct_ratio - 1) < BETTER,
                 text=f"{mV['fluctuation'] * 1e6:.3g} µm against {mN['fluctuation'] * 1e6:.3g} µm "
                      f"(ratio {fluct_ratio:.3f})", answers="004.c1")
    claims.claim("stewart_c1_tconv", "the convergence times of the two controllers differ by less than 10 %",
                 value=[mV["convergence_time"], mN["convergence_time"]],
                 criterion=f"|t_c(VW) / t_c(NE) − 1| < {BETTER:g}", holds=abs(tconv_ratio - 1) < BETTER,
                 text=f"{mV['convergence_time']:.3f} s against {mN['convergence_time']:.3f} s", answers="004.c1")
    gain = {n: metrics[n, "newton_euler", False]["static"] / metrics[n, "newton_euler", True]["static"] for n in models}
    claims.claim("stewart_pid_gain", "the integral term lowers the static error of the NE controller on both sets",
                 value=[float(v) for v in gain.values()],
                 criterion=f"static(PD) / static(PID) ≥ {PID_GAIN_MIN:g} on both sets",
                 holds=min(gain.values()) >= PID_GAIN_MIN, text=" and ".join(f"{v:.2g} ({n})" for n, v in gain.items()))
    left = {c: step_shrink(*hold[c]) for c in LABEL}
    claims.claim("stewart_c1_step", f"under ID-PID on {name}, with a ten times smaller step, the static error of either "
                 f"controller falls to at most {STEP_SHRINK_MAX:.0%} of its value: most of the error that remains "
                 "shrinks with the step", value=[left[c] for c in LABEL],
                 criterion=f"static(step/10) / static(step) ≤ {STEP_SHRINK_MAX:g} for the NE and the VW controller",
                 holds=max(left.values()) <= STEP_SHRINK_MAX,
                 text=f"{left['newton_euler']:.0%} (NE controller) and {left['virtual_work']:.0%} (VW controller) "
                      "of its value")


def pid_speed_claim(claims: ClaimsRegister, name: str, models: dict, metrics: dict, gains: dict) -> None:
    """Register the claim that the ID-PID runs converge more slowly than the PD runs (both controllers, both sets)
    and that the PID error's slowest pole decays more slowly than the PD error's (:func:`closed_loop_poles`)."""
    ratios = [metrics[n, c, True]["convergence_time"] / metrics[n, c, False]["convergence_time"]
              for n in models for c in LABEL]
    pid = decay_rate(closed_loop_poles(gains["kp"], gains["kd"], gains["ki"]))
    pd = decay_rate(closed_loop_poles(gains["kp"], gains["kd"]))
    ne_pid, ne_pd = (metrics[name, "newton_euler", k]["convergence_time"] for k in (True, False))
    claims.claim("stewart_pid_slower", "with the run's gains the ID-PID runs converge more slowly than the PD runs, "
                 "for both controllers on both sets, and the slowest pole of the PID error decays more slowly than "
                 "that of the PD error", value=[min(ratios), pid, pd],
                 criterion="t_c(PID) / t_c(PD) > 1 for the NE and VW controllers on both sets, and "
                           "−max Re(PID poles) < −max Re(PD poles)",
                 holds=min(ratios) > 1 and pid < pd,
                 text=f"{ne_pid:.3g} s against {ne_pd:.3g} s with the NE controller on {name}")


def other_refinement(model: StewartModel, traj: Trajectory, gains: dict, duration: float, step: float,
                     window: float) -> dict:
    """Tracking metrics of the NE and VW ID-PID runs on ``model`` (the second set) at ``step / 10``:
    ``{controller: metrics}``."""
    out = {}
    for ctrl in LABEL:
        r = simulate(model, ctrl, gains=gains, duration=duration, step=step / 10, trajectory=traj,
                     initial_error=file_offset(model))
        out[ctrl] = tracking_metrics(r.t, r.error, window=window)
    return out


def claim_1_parts(m: dict) -> tuple[float, float, float, bool]:
    """``(static, fluctuation, convergence-time ratio VW / NE, reproduced)`` of claim 1 from the two controllers'
    metrics ``m``: reproduced iff the static ratio is at least :data:`MUCH_LARGER` and the other two at least
    ``1 + BETTER``.

    >>> claim_1_parts({"newton_euler": {"static": 1.0, "fluctuation": 1.0, "convergence_time": 1.0},
    ...                "virtual_work": {"static": 3.0, "fluctuation": 2.0, "convergence_time": 1.0}})
    (3.0, 2.0, 1.0, False)
    """
    N, V = m["newton_euler"], m["virtual_work"]
    r = (V["static"] / N["static"], V["fluctuation"] / N["fluctuation"], V["convergence_time"] / N["convergence_time"])
    return (*r, bool(r[0] >= MUCH_LARGER and r[1] >= 1 + BETTER and r[2] >= 1 + BETTER))


def refinement_claims(claims: ClaimsRegister, name: str, refined: dict, step: float) -> None:
    """Register the claims of claim 1's step refinement: the two controllers' static errors as the step shrinks,
    claim 1's parts at the finest step, and the verdict at the chapter's and at the finest step."""
    dmax = max(refined)
    N = [refined[d]["newton_euler"]["static"] for d in (1, dmax)]
    V = [refined[d]["virtual_work"]["static"] for d in (10, dmax)]
    first, level = N[1] / N[0], V[1] / V[0]
    fine = f"{step / dmax * 1e6:.3g} µs"
    claims.claim("stewart_c1_floor", f"on {name}, as the step shrinks from {step * 1e3:g} ms to {fine}, the NE "
                 "controller's static error falls in proportion to the step, while the VW controller's levels off",
                 value=[first, level],
                 criterion=f"static_NE(step/{dmax}) / static_NE(step) ≤ {FIRST_ORDER_MAX:g} and static_VW(step/{dmax}) "
                           f"/ static_VW(step/10) ≥ {LEVEL_MIN:g}", holds=first <= FIRST_ORDER_MAX and level >= LEVEL_MIN,
                 text=f"the NE controller's static error falls from {N[0] * 1e6:.3g} µm to {N[1] * 1e6:.3g} µm, the VW "
                      f"controller's only from {refined[1]['virtual_work']['static'] * 1e6:.3g} µm to {V[1] * 1e6:.3g} µm")
    rs, rf, rt, rep_fine = claim_1_parts(refined[dmax])
    claims.claim("stewart_c1_fine", f"at the finest step ({fine}) the VW controller's static error is much larger than "
                 f"the NE controller's (at least {MUCH_LARGER:g} times) and its fluctuation larger (by at least "
                 f"{BETTER:.0%}), while the convergence times differ by less than {BETTER:.0%}", value=[rs, rf, rt],
                 criterion=f"static ratio ≥ {MUCH_LARGER:g}, fluctuation ratio ≥ {1 + BETTER:g}, "
                           f"|t_c(VW) / t_c(NE) − 1| < {BETTER:g} at step/{dmax}",
                 holds=rs >= MUCH_LARGER and rf >= 1 + BETTER and abs(rt - 1) < BETTER,
                 text=f"a static error {rs:.1f} times and a fluctuation {rf:.1f} times the NE controller's, with "
                      f"convergence times of {refined[dmax]['virtual_work']['convergence_time']:.3f} s and "
                      f"{refined[dmax]['newton_euler']['convergence_time']:.3f} s", answers="004.c1")
    ratios = [refined[d]["virtual_work"]["static"] / refined[d]["newton_euler"]["static"] for d in sorted(refined)]
    steps = [step / d for d in sorted(refined)]
    rising = all(b > a for a, b in zip(ratios, ratios[1:]))
    cross = ratio_crossing(steps, ratios, MUCH_LARGER)
    claims.claim("stewart_c1_crossover", "the VW/NE ratio of the static errors grows at every refinement of the step, "
                 f"from below {MUCH_LARGER:g} at the chapter's step to above it at the finest: whether the VW "
                 "controller's static error is 'much larger' depends on the control period, and it is so only below "
                 "the period where the ratio crosses the bound", value=[cross, *map(float, ratios)],
                 criterion=f"static(VW) / static(NE) increases at each step of the ladder step/{', step/'.join(map(str, sorted(refined)))} "
                           f"and crosses {MUCH_LARGER:g} inside it (crossing by log-log interpolation)",
                 holds=rising and cross is not None,
                 text=(f"the ratio goes {' → '.join(f'{r:.2f}' for r in ratios)} and passes {MUCH_LARGER:g} at a step "
                       f"of about {cross * 1e6:.3g} µs" if cross else
                       f"the ratio goes {' → '.join(f'{r:.2f}' for r in ratios)} and does not cross {MUCH_LARGER:g} on the ladder"),
                 answers="004.c1")
    rep_step = claim_1_parts(refined[1])[3]
    claims.claim("stewart_c1_verdict", "the patent's claim 1 (NE better in fluctuation and convergence speed, VW "
                 "static error much larger) is reproduced at most in part on the U-joint Newton–Euler plant integrated "
                 f"by RK4: its three parts do not appear together, neither at the chapter's step nor at the finest "
                 f"({fine}); the text says which parts appear at each", value=[rep_step, rep_fine],
                 criterion=f"a part appears at a step iff its ratio passes its bound (static ≥ {MUCH_LARGER:g}, "
                           f"fluctuation and convergence time ≥ {1 + BETTER:g}); the claim is reproduced at a step iff "
                           "all three appear there, and holds iff at neither step; the text reads 'reproduced in "
                           "part' where some part appears at some step",
                 holds=not (rep_step or rep_fine),
                 text="reproduced" if (rep_step or rep_fine) else verdict_parts_text(
                     claim_1_parts(refined[1])[:3], (rs, rf, rt), f"the finest step ({fine})"), answers="004.c1")


def ratio_crossing(steps: list, ratios: list, bound: float) -> float | None:
    """The step (s) at which a ratio measured on a ladder of shrinking ``steps`` first reaches ``bound``,
    interpolating log(ratio) linearly in log(step) between the two rungs around it; ``None`` if it does not
    cross on the ladder (below the bound at every rung, or above it at the first).

    >>> round(ratio_crossing([1e-3, 1e-4], [1.0, 4.0], 2.0) * 1e6, 1)
    316.2
    >>> ratio_crossing([1e-3, 1e-4], [1.0, 1.5], 2.0) is None
    True
    """
    if ratios[0] >= bound:
        return None
    for (h0, r0), (h1, r1) in zip(zip(steps, ratios), zip(steps[1:], ratios[1:])):
        if r1 >= bound:
            u = np.log(bound / r0) / np.log(r1 / r0)
            return float(np.exp(np.log(h0) + u * np.log(h1 / h0)))
    return None


def verdict_parts_text(step: tuple, fine: tuple, fine_label: str = "the finest step") -> str:
    """Claim 1's verdict when it is not reproduced as a whole, from the ratios VW / NE (static, fluctuation,
    convergence time) at the chapter's step and at the finest: what appears at each, the chapter's step first.

    >>> print(verdict_parts_text((1.03, 1.0, 1.0), (5.3, 7.2, 1.0), "33 µs"))
    not reproduced at the chapter's step (none of its three parts appears); in part at 33 µs the VW controller has a much larger static error and a larger fluctuation (two of the patent's three parts), but not a slower convergence
    >>> print(verdict_parts_text((1.0, 1.0, 1.0), (1.0, 1.0, 1.0)))
    not reproduced: none of its three parts appears at either step
    """
    def shown(r):
        parts = (("a much larger static error", r[0] >= MUCH_LARGER), ("a larger fluctuation", r[1] >= 1 + BETTER),
                 ("a slower convergence", r[2] >= 1 + BETTER))
        return [n for n, ok in parts if ok], [n for n, ok in parts if not ok]
    (at_step, _), (at_fine, missing) = shown(step), shown(fine)
    if not at_step and not at_fine:
        return "not reproduced: none of its three parts appears at either step"
    count = f" ({('one', 'two')[len(at_fine) - 1]} of the patent's three parts)" if at_fine else ""
    fine_text = (f"at {fine_label} the VW controller has {' and '.join(at_fine) or 'none of them'}{count}, "
                 f"but not {' or '.join(missing)}")
    if not at_step:   # the chapter's step first: there nothing of the claim appears
        return f"not reproduced at the chapter's step (none of its three parts appears); in part {fine_text}"
    return f"reproduced in part: at the chapter's step the VW controller has {' and '.join(at_step)}; {fine_text}"


def step_shrink(static: float, static_fine: float) -> float:
    """Measured share of a static error left with a ten times smaller step: ``static_fine / static``.

    About 0.1 if the error is first order in the step (a zero-order hold), 1 if it does not depend on the step.

    >>> step_shrink(2.0e-6, 2.0e-7), step_shrink(1.0, 1.0)
    (0.1, 1.0)
    """
    return static_fine / static


def exercise_3_claims(claims: ClaimsRegister, ex3: dict, step: float) -> None:
    """Register the three claims of exercise 3 (closed form vs simulation, the late error, the hold)."""
    resid, late, worst = ex3["resid"][step], ex3["late"], ex3["worst"]
    claims.claim("stewart_ex3_resid", "chapter 5's exercise 2: the closed-form PD error and the simulated one agree to a small "
                 "fraction of the initial error", value=float(resid),
                 criterion=f"max |e_pred − e_sim| / max |e0| < {EX3_RESID:g}", holds=resid < EX3_RESID,
                 text=figs.sci_text(resid))
    claims.claim("stewart_ex3_late", "chapter 5's exercise 2: at 0.3 s the difference is a sizeable part of the error left on "
                 "one leg", value=float(late[worst]),
                 criterion=f"|e_pred − e_sim| / |e_pred| at 0.3 s > {EX3_LATE:g} on the worst leg",
                 holds=late[worst] > EX3_LATE,
                 text=f"{late[worst]:.0%} (leg {worst + 1}: {ex3['pred'][worst] * 1e3:.4f} mm predicted, "
                      f"{ex3['sim'][worst] * 1e3:.4f} mm simulated)")
    claims.claim("stewart_ex3_zoh", "chapter 5's exercise 2: the difference is the zero-order hold: a ten times smaller step "
                 "shrinks it roughly tenfold", value=float(ex3["zoh"]),
                 criterion=f"residual(step) / residual(step/10) > {ZOH_ORDER_MIN:g}", holds=ex3["zoh"] > ZOH_ORDER_MIN,
                 text=f"a factor of {ex3['zoh']:.1f}")


__all__ = ["run", "PARAMETERS", "EVIDENCE_TABLES", "EVIDENCE_FIGURES", "CONTROL_TABLES", "CONTROL_FIGURES", "gains_panel", "Settings", "settings", "zoh_spectral_radius", "check_run_settings",
           "load_sets", "check_trajectories", "reference_trajectory",
           "random_states", "spin_along", "force_gap", "random_gaps", "reach_map", "unreachable_message",
           "tracking_runs", "spin_angle", "step_refinement", "other_refinement", "closed_loop_poles", "poles_text",
           "decay_rate", "pole_values", "pid_speed_claim", "refinement_table", "refinement_claims", "ratio_crossing", "claim_1_parts", "step_shrink", "spin_claim", "force_claims", "exercise_1", "exercise_2", "exercise_3"]
