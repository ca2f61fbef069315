"""Planar multibody core (robolib.core.multibody) against independent routes.

* Jacobian and gamma against finite differences of H;
* closed-form inverse kinematics of the gear-shift manipulator and the
  slider-crank (an independent route to q, qd, qdd) against the residual, the
  velocity and acceleration constraints and the Newton/linear-solve route;
* driving torques from the multipliers against virtual power (Kane) and the
  power balance sum(tau theta_dot) = dT/dt + load power (finite-difference dT/dt);
* Baumgarte drift bounds; integrator order; compiled kernel == numpy path;
* bad input.
"""

import math

import numpy as np
import pytest

from robolib import ConvergenceError, ParameterError, SingularityError
from robolib import gearshift as G
from robolib import multibody as mb

GS = G.build_gearshift()
SC = G.build_slider_crank()


def _fd_jacobian(mech, q, t, h=1e-7):
    J = np.empty((mech.m, mech.n))
    for k in range(mech.n):
        e = np.zeros(mech.n)
        e[k] = h
        J[:, k] = (mech.residual(q + e, t) - mech.residual(q - e, t)) / (2 * h)
    return J


@pytest.mark.parametrize("model", [GS, SC], ids=["gearshift", "slider-crank"])
def test_jacobian_matches_finite_differences(model):
    rng = np.random.default_rng(1)
    mech = model.mech
    for _ in range(3):
        q = model.ideal_state(rng.uniform(0, 0.5) / max(1.0, getattr(model, "omega", 1.0)))[0]
        q = q + rng.normal(scale=0.05, size=mech.n)  # off the manifold too
        np.testing.assert_allclose(mech.jacobian(q), _fd_jacobian(mech, q, 0.0), atol=1e-8)


@pytest.mark.parametrize("model", [GS, SC], ids=["gearshift", "slider-crank"])
def test_gamma_matches_second_time_derivative_of_H(model):
    """gamma = -(d/dt)(J qd) at fixed qdd = 0 plus H_tt: check J qdd - gamma = d2H/dt2 along q(t) = q0 + qd t."""
    rng = np.random.default_rng(2)
    mech = model.mech
    q0 = model.ideal_state(0.01 / max(1.0, getattr(model, "omega", 1.0)))[0] + rng.normal(scale=0.02, size=mech.n)
    qd = rng.normal(size=mech.n)
    t0, h = 0.003, 1e-4
    H = lambda s: mech.residual(q0 + qd * s, t0 + s)  # noqa: E731  (straight line: qdd = 0)
    d2H = (H(h) - 2 * H(0.0) + H(-h)) / h**2
    np.testing.assert_allclose(-mech.gamma(q0, qd, t0), d2H, atol=5e-5 * max(1.0, np.abs(d2H).max()))


@pytest.mark.parametrize("model, times", [(GS, [0.0, 0.07, 0.13, 0.31, 0.44]), (SC, [0.0, 1e-3, 4.7e-3, 9e-3])],
                         ids=["gearshift", "slider-crank"])
def test_closed_form_motion_satisfies_all_constraint_levels(model, times):
    mech = model.mech
    for t in times:
        q, qd, qdd = model.ideal_state(t)
        J = mech.jacobian(q)
        scale = max(1.0, np.abs(qdd).max())
        assert np.abs(mech.residual(q, t)).max() < 1e-13
        assert np.abs(J @ qd + mech.time_derivative(t)).max() < 1e-12 * max(1.0, np.abs(qd).max())
        assert np.abs(J @ qdd - mech.gamma(q, qd, t)).max() < 1e-12 * scale


@pytest.mark.parametrize("model, t", [(GS, 0.21), (SC, 2.3e-3)], ids=["gearshift", "slider-crank"])
def test_newton_route_equals_closed_form(model, t):
    q_cf, qd_cf, qdd_cf = model.ideal_state(t)
    rng = np.random.default_rng(3)
    q, qd, qdd = mb.kinematic_state(model.mech, q_cf + rng.normal(scale=1e-3, size=q_cf.size), t)
    np.testing.assert_allclose(q, q_cf, atol=1e-12)
    np.testing.assert_allclose(qd, qd_cf, atol=1e-10 * max(1, np.abs(qd_cf).max()))
    np.testing.assert_allclose(qdd, qdd_cf, atol=1e-9 * max(1, np.abs(qdd_cf).max()))


def test_multiplier_torques_equal_virtual_power_torques():
    im = G.ideal_motion(GS, np.linspace(0.0, 0.5, 11))
    for k, t in enumerate(im["t"]):
        vp = mb.virtual_power_torques(GS.mech, im["q"][k], im["qd"][k], im["qdd"][k], t)
        for name, tau in vp.items():
            assert im["torques"][name][k] == pytest.approx(tau, rel=1e-9, abs=1e-12)
    # the augmented (DAE) solve gives the same multipliers as inverse dynamics on the ideal motion
    q, qd, qdd = GS.ideal_state(0.17)
    qdd_aug, lam = GS.mech.accelerations(q, qd, 0.17)
    np.testing.assert_allclose(qdd_aug, qdd, atol=1e-9 * np.abs(qdd).max())
    np.testing.assert_allclose(lam, mb.inverse_dynamics(GS.mech, q, qd, qdd, 0.17), atol=1e-9 * np.abs(lam).max())


def test_driver_power_balances_kinetic_energy_rate_and_loads():
    """sum(tau * theta_dot) = dT/dt + dV/dt + damper power, dT/dt and dV/dt by central differences."""
    mech = GS.mech
    h = 1e-5
    for t in (0.05, 0.2, 0.33):
        im = G.ideal_motion(GS, [t])
        P_drive = sum(im["torques"][name][0] * im["qd"][0][mech.coordinate(f"l{name[-1]}1")]
                      for name in mech.driver_names)
        T = lambda s: mech.kinetic_energy(GS.ideal_state(s)[1])  # noqa: E731
        V = lambda s: mech.potential_energy(GS.ideal_state(s)[0])  # noqa: E731
        dT = (T(t + h) - T(t - h)) / (2 * h)
        dV = (V(t + h) - V(t - h)) / (2 * h)
        P_damp = mech.dissipated_power(im["q"][0], im["qd"][0])
        assert P_drive == pytest.approx(dT + dV + P_damp, rel=1e-7, abs=1e-9)


def test_baumgarte_bounds_constraint_drift():
    q0, qd0, _ = GS.ideal_state(0.0)
    drift = {}
    for ab in (0.0, 5.0):
        r = mb.simulate(GS.mech, (0.0, 2.0), q0, qd0, alpha=ab, beta=ab, rtol=1e-6, atol=1e-9)
        H = np.array([GS.mech.residual(y[:21], t) for t, y in zip(r.t, r.y)])
        drift[ab] = np.abs(H).max()
        q_cf = np.array([GS.ideal_state(t)[0] for t in r.t])
        if ab:
            assert np.abs(r.y[:, :21] - q_cf).max() < 1e-5  # DAE solution follows the kinematic one
    assert drift[5.0] < 1e-7          # stated bound: 0.1 micrometre over 2 s (4 strokes)
    assert drift[5.0] < drift[0.0] / 10


def test_ideal_energy_books_close():
    """W_drive - W_loss = Delta(T + V) along the integrated ideal motion."""
    q0, qd0, _ = GS.ideal_state(0.0)
    r = mb.simulate(GS.mech, (0.0, 0.5), q0, qd0, rtol=1e-9, atol=1e-12)
    n = GS.mech.n
    E = GS.mech.kinetic_energy(r.y[:, n:2 * n]) + GS.mech.potential_energy(r.y[:, :n])
    res = (E - E[0]) - r.y[:, 2 * n] + r.y[:, 2 * n + 1]
    assert np.abs(res).max() < 1e-7 * max(1.0, np.abs(r.y[:, 2 * n]).max())
    assert r.y[-1, 2 * n + 1] > 0  # the gearbox damper dissipates


def test_numba_kernel_matches_numpy_rhs():
    pytest.importorskip("numba")
    from robolib.core.clearance import ClearanceModel, ClearanceSpec

    cm = ClearanceModel(GS.mech, [ClearanceSpec("B1", 1e-4), ClearanceSpec("A2", 2e-4, mu=0.1)])
    rng = np.random.default_rng(4)
    for trial in range(5):
        q, qd, _ = GS.ideal_state(rng.uniform(0, 0.5))
        q = q + rng.normal(scale=2e-4, size=21)  # some joints penetrate, some not
        qd = qd + rng.normal(scale=0.05, size=21)
        cm.ddelta0[:] = rng.uniform(1e-3, 0.1, size=2)
        y = np.concatenate([q, qd, [0.0, 0.0]])
        a = cm.rhs("numba")(0.1, y)
        b = cm.rhs("numpy")(0.1, y)
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9 * np.abs(b).max())
    y = np.concatenate([*GS.ideal_state(0.2)[:2], [0, 0]])
    np.testing.assert_allclose(GS.mech.compiled_rhs()(0.2, y), GS.mech.rhs()(0.2, y), rtol=1e-10, atol=1e-10)


def test_dopri5_is_fifth_order_and_dense_output_is_accurate():
    f = lambda t, y: np.array([y[1], -y[0]])  # noqa: E731
    errs = []
    for h in (0.1, 0.05):
        r = mb.dopri5(f, 0.0, [1.0, 0.0], 2.0, rtol=1e3, atol=1e3, h0=h, h_max=h)  # fixed step
        errs.append(abs(r.y_final[0] - math.cos(2.0)))
    assert 20 < errs[0] / errs[1] < 45  # ~2^5 = 32
    r = mb.dopri5(f, 0.0, [1.0, 0.0], 3.0, rtol=1e-10, atol=1e-12, t_eval=np.linspace(0, 3, 7))
    np.testing.assert_allclose(r.y[:, 0], np.cos(np.linspace(0, 3, 7)), atol=1e-6)


# ----------------------------------------------------------------------------- bad input
def _bar(name="bar"):
    return mb.Body(name, 1.0, 0.1)


def test_bad_bodies_and_joints():
    with pytest.raises(ParameterError, match="mass"):
        mb.Body("bar", -1.0, 0.1)
    with pytest.raises(ParameterError, match="'nobody'"):
        mb.Mechanism([_bar()], [mb.GroundPin("O", "nobody", (0, 0), (0, 0))])
    with pytest.raises(ParameterError, match="unique"):
        mb.Mechanism([_bar(), _bar()], [])
    with pytest.raises(ParameterError, match="joint names"):
        mb.Mechanism([_bar()], [mb.GroundPin("O", "bar", (0, 0), (0, 0)), mb.AngleLock("O", mb.GROUND, "bar")])
    with pytest.raises(ParameterError, match="point"):
        mb.Mechanism([_bar()], [mb.GroundPin("O", "bar", (0, 0, 0), (0, 0))])
    with pytest.raises(ParameterError, match="no joint named 'Z9'"):
        GS.mech.row_slice("Z9")
    with pytest.raises(ParameterError, match="'Z9'"):
        GS.mech.without(["Z9"])
    with pytest.raises(ParameterError, match="coord"):
        mb.Mechanism([_bar()], [mb.Driver("d", "bar", mb.Constant(0.0), coord="z")])


def test_mechanism_that_does_not_assemble():
    # four-bar whose coupler (0.1) cannot bridge ground pins 1 m apart with 0.2 m cranks
    bodies = [_bar("a"), _bar("b"), _bar("c")]
    joints = [mb.GroundPin("A", "a", (-0.1, 0), (0, 0)), mb.Pin("B", "a", (0.1, 0), "b", (-0.05, 0)),
              mb.Pin("C", "b", (0.05, 0), "c", (-0.1, 0)), mb.GroundPin("D", "c", (0.1, 0), (1.0, 0)),
              mb.Driver("drive", "a", mb.Constant(0.3))]
    mech = mb.Mechanism(bodies, joints, name="four-bar")
    with pytest.raises(ConvergenceError, match="four-bar.*does not assemble"):
        mb.assemble(mech, np.zeros(9))
    with pytest.raises(ParameterError, match="q_guess"):
        mb.assemble(mech, np.zeros(5))


def test_redundant_constraints_are_singular():
    mech = mb.Mechanism([_bar()], [mb.Driver("d1", "bar", mb.Constant(0.0)),
                                   mb.AngleLock("lock", mb.GROUND, "bar"),
                                   mb.Driver("x", "bar", mb.Constant(0.0), coord="x", motor=False)])
    with pytest.raises(SingularityError, match="singular"):
        mech.accelerations(np.zeros(3), np.zeros(3))
    with pytest.raises(SingularityError, match="singular"):
        mech.compiled_rhs()(0.0, np.zeros(8)) if mb._numba is not None else mech.rhs()(0.0, np.zeros(8))
