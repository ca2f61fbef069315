"""Control and simulation of the Stewart platform (robolib.stewart.control)."""

from __future__ import annotations

import numpy as np
import pytest
from fuzzing import names

from robolib import ParameterError, UnreachableError, stewart

# ==== control and closed-loop simulation ============================================================================

# --------------------------------------------------------------------------- control
needs_numba = pytest.mark.skipif(not stewart._kernels.HAVE_NUMBA,
                                 reason="numba not installed: the pure-Python simulation loop is too slow here")


@needs_numba
def test_exact_model_pd_error_dynamics():
    """NE controller on the NE plant: e'' + kd e' + kp e = 0 (up to the zero-order hold)."""
    m = stewart.load("stewart/hydraulic.yaml")
    kp, kd = 400.0, 30.0
    res = stewart.simulate(m, "newton_euler", pid=False, gains={"kp": kp, "kd": kd}, duration=0.4, step=1e-4)
    e0 = res.error[0]
    de0 = (stewart.joint_references(m, stewart.trajectory_from_model(m), res.t[:1])[1][0]
           - stewart.jacobian(m, res.pose[0]) @ res.twist[0])
    # closed form of e'' + kd e' + kp e = 0 (underdamped: kd^2 < 4 kp)
    a, wd = kd / 2, np.sqrt(kp - kd ** 2 / 4)
    t = res.t[:, None]
    e_pred = np.exp(-a * t) * (e0 * np.cos(wd * t) + (de0 + a * e0) / wd * np.sin(wd * t))
    err = np.abs(res.error - e_pred).max() / np.abs(e0).max()
    print(f"\nexact-model PD error vs closed form: {err:.2e} of the initial error")
    assert err < 2e-3


@needs_numba
def test_closed_loop_ne_vs_vw_controllers():
    m = stewart.load("stewart/tsai2000.yaml")
    rows = {}
    for ctrl in ("newton_euler", "virtual_work"):
        for pid in (False, True):
            r = stewart.simulate(m, ctrl, pid=pid, duration=3.0)
            assert r.t.shape == (3001,) and r.forces.shape == (3001, 6)
            assert np.all(np.isfinite(r.forces))
            rows[(ctrl, pid)] = float(np.sqrt(np.mean(r.error[-1000:] ** 2)))
            assert np.abs(r.error[-1000:]).max() < 1e-3 * np.abs(r.error[0]).max() + 1e-5
    for (ctrl, pid), v in rows.items():
        print(f"\n{ctrl:13s} {'PID' if pid else 'PD '}: RMS leg error over the last second {v:.3e} m")
    # exact model + PID: the steady residual comes only from the zero-order hold
    assert rows[("newton_euler", True)] < 1e-5


def test_simulate_rejects_bad_options():
    m = stewart.load("stewart/tsai2000.yaml")
    with pytest.raises(ParameterError, match="gains"):
        stewart.simulate(m, gains={"kq": 1.0}, duration=0.01)
    with pytest.raises(ParameterError, match="duration"):
        stewart.simulate(m, duration=-1.0)
    with pytest.raises(ParameterError, match="initial_error"):
        stewart.simulate(m, duration=0.01, initial_error=[0.0] * 3)


@needs_numba
def test_each_model_as_whole_simulation():
    """VW as plant and controller: the exact-model error dynamics hold for it too (it is consistent with itself)."""
    m = stewart.load("stewart/hydraulic.yaml")
    res = {meth: stewart.simulate(m, meth, plant=meth, duration=2.0) for meth in ("newton_euler", "virtual_work")}
    for meth, r in res.items():
        assert r.plant == meth and r.controller == meth
        assert np.abs(r.error[-500:]).max() < 1e-3 * np.abs(r.error[0]).max()
    # both closed loops obey the same error dynamics: their errors agree far better than the initial error
    d = np.abs(res["virtual_work"].error - res["newton_euler"].error).max()
    assert d < 1e-3 * np.abs(res["newton_euler"].error[0]).max()


# --------------------------------------------------------------------------- tracking metrics
def test_tracking_metrics_closed_forms():
    t = np.linspace(0.0, 4.0, 4001)
    amp = np.array([1.0, 2.0, 0.5, 0.1, 0.0, 3.0]) * 1e-6
    e = np.exp(-10 * t)[:, None] * 1e-2 + np.sin(7 * t)[:, None] * amp  # decay + a steady oscillation
    m = stewart.tracking_metrics(t, e, window=4 * np.pi / 7)  # two periods of sin(7 t)
    # peak-to-peak of the largest oscillation over two periods: 2 * 3e-6
    assert abs(m["fluctuation"] - 2 * 3e-6) < 1e-3 * 6e-6
    # mean of max_i |e_i| = 3e-6 |sin 7t| over whole half-periods: 3e-6 * 2/pi (sampling: to 0.2 %)
    assert abs(m["static"] / (3e-6 * 2 / np.pi) - 1) < 2e-3
    # e stays below 1 % of e(0) = 1e-2 once 1e-2 exp(-10 t) + 3e-6 |sin 7t| < 1e-4: between the two roots
    lo, hi = np.log(1e-2 / (1e-4 + 3e-6)) / 10, np.log(1e-2 / (1e-4 - 3e-6)) / 10
    assert lo - 1e-3 <= m["convergence_time"] <= hi + 1e-3
    never = stewart.tracking_metrics(t, np.ones((len(t), 6)), window=1.0)
    assert never["convergence_time"] == np.inf and never["fluctuation"] == 0.0
    with pytest.raises(ParameterError, match="window"):
        stewart.tracking_metrics(t, e, window=10.0)
    with pytest.raises(ParameterError, match="error"):
        stewart.tracking_metrics(t, e[:, :3], window=1.0)


@needs_numba
def test_simulation_stops_at_the_stroke_limit():
    """A plant that drifts out of its stroke mid-run stops with UnreachableError naming the leg and the time."""
    base = stewart.load("stewart/tsai2000.yaml")
    m = base.with_(limits={**base.limits, "length_max": 1.278})
    tr = stewart.Trajectory(m.home_pose, np.array([0, 0, 0.01, 0, 0, 0.0]), np.full(6, 3.0), np.zeros(6))
    assert stewart.check_limits(m, tr(np.linspace(0, 3, 301))[0], mask=True).all()
    with pytest.raises(UnreachableError, match=names("simulate", "t =", "newton_euler", "leg")):
        stewart.simulate(m, gains={"kp": 0.0, "kd": 0.0, "ki": 0.0}, duration=3.0, trajectory=tr,
                         initial_error=[0, 0, 0.03, 0, 0, 0])


# --------------------------------------------------------------------------- trajectories of your own
def _sines(tr):
    return lambda t: tr.home + tr.amplitude * np.sin(np.outer(t, tr.frequency) + tr.phase)


@pytest.mark.parametrize("file", ["stewart/tsai2000.yaml", "stewart/hydraulic.yaml"])
def test_a_pose_function_gives_the_closed_form_rates_of_sines(file):
    """Finite differences of any function of time against the analytic rates of the same sines (both files)."""
    tr = stewart.trajectory_from_model(stewart.load(file))
    tr = stewart.Trajectory(tr.home, tr.amplitude, tr.frequency, tr.phase + [0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
    t = np.linspace(0.0, 3.0, 31)
    for exact, differenced in zip(tr(t), stewart.PoseFunction(_sines(tr))(t)):
        assert np.abs(differenced - exact).max() < 1e-8


def test_trajectory_from_hz_is_the_same_sines_at_two_pi_f():
    home, amp = np.zeros(6), np.full(6, 0.01)
    f_hz = np.array([2.0, 0.5, 1.0, 1.5, 3.0, 0.25])
    a = stewart.Trajectory.from_hz(home, amp, f_hz)
    b = stewart.Trajectory(home, amp, 2 * np.pi * f_hz, np.zeros(6))
    t = np.array([0.05, 0.3])
    assert all(np.array_equal(x, y) for x, y in zip(a(t), b(t)))


@needs_numba
def test_a_run_on_your_own_trajectory_starts_on_it_and_the_model_s_run_keeps_the_file_s_offset():
    m = stewart.load("stewart/tsai2000.yaml")
    heave = stewart.PoseFunction(lambda t: m.home_pose + np.outer(0.02 * np.sin(4 * np.pi * t), [0, 0, 1, 0, 0, 0]))
    own = stewart.simulate(m, trajectory=heave, duration=0.01)
    assert np.array_equal(own.pose[0], own.pose_desired[0])
    model_run = stewart.simulate(m, duration=0.01)
    assert np.allclose(model_run.pose[0] - model_run.pose_desired[0], m.trajectory["initial_error"])
    asked = stewart.simulate(m, trajectory=heave, duration=0.01, initial_error=[0.001, 0, 0, 0, 0, 0])
    assert asked.pose[0, 0] - asked.pose_desired[0, 0] == pytest.approx(0.001)


@needs_numba
def test_a_pose_function_and_the_same_sines_track_alike():
    m = stewart.load("stewart/hydraulic.yaml")
    tr = stewart.trajectory_from_model(m)
    a = stewart.simulate(m, trajectory=tr, duration=0.2)
    b = stewart.simulate(m, trajectory=stewart.PoseFunction(_sines(tr)), duration=0.2)
    assert np.abs(a.error - b.error).max() < 1e-9


def test_a_pose_function_that_is_not_a_function_or_gives_the_wrong_shape_is_refused():
    with pytest.raises(ParameterError, match="pose"):
        stewart.PoseFunction([0.0] * 6)
    bad = stewart.PoseFunction(lambda t: np.zeros(6))
    with pytest.raises(ParameterError, match=r"pose\(t\)(?s:.*)shape"):
        bad(np.array([0.0, 1.0]))
    with pytest.raises(ParameterError, match="dt"):
        stewart.PoseFunction(lambda t: t, dt=0.0)


@needs_numba
def test_a_pose_function_leaving_the_stroke_is_refused_at_the_time_it_leaves():
    m = stewart.load("stewart/tsai2000.yaml")
    rise = stewart.PoseFunction(lambda t: m.home_pose + np.outer(t, [0, 0, 1.0, 0, 0, 0]))  # 1 m/s up
    with pytest.raises(UnreachableError, match=r"t = 0\.8"):
        stewart.simulate(m, trajectory=rise, duration=1.0)


# --------------------------------------------------------------------------- stability of the sampled loop
def test_the_sampled_loop_is_stable_as_routh_hurwitz_says_when_the_step_is_small():
    kp, kd = 1200.0, 60.0
    assert stewart.sampled_loop_radius(kp, kd, 0.99 * kd * kp, 1e-6) < 1 < stewart.sampled_loop_radius(
        kp, kd, 1.01 * kd * kp, 1e-6)


def test_the_sampled_pd_loop_is_unstable_for_a_gain_the_continuous_loop_allows():
    assert stewart.sampled_loop_radius(1e6, 60.0, 0.0, 1e-3) > 1 > stewart.sampled_loop_radius(1e4, 60.0, 0.0, 1e-3)


@needs_numba
@pytest.mark.parametrize("ki_factor", [0.5, 1.2])
def test_the_sampled_loop_radius_is_the_growth_per_step_of_a_simulated_exact_model_loop(ki_factor):
    """The real closed loop (NE plant, NE controller, force held over a step) against the 3 x 3 model."""
    m = stewart.load("stewart/hydraulic.yaml")
    kp, kd, h = 900.0, 20.0, 2e-3
    ki = ki_factor * kd * kp
    r = stewart.simulate(m, gains={"kp": kp, "kd": kd, "ki": ki}, duration=1.5, step=h,
                         trajectory=stewart.Trajectory(m.home_pose, np.zeros(6), np.zeros(6), np.zeros(6)),
                         initial_error=[0, 0, 1e-5, 0, 0, 0])
    e, t = np.abs(r.error).max(axis=1), r.t
    # the envelope's growth rate (1/s): the peak of each quarter second, fitted after the fast pole has died out
    starts = np.arange(0.5, 1.25, 0.25)
    peaks = [e[(t >= a) & (t < a + 0.25)].max() for a in starts]
    measured = np.polyfit(starts, np.log(peaks), 1)[0]
    predicted = np.log(stewart.sampled_loop_radius(kp, kd, ki, h)) / h
    assert measured == pytest.approx(predicted, rel=0.15)  # the continuous loop's rate is 30 % off at ki_factor 1.2
