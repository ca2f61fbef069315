"""The mechanism of the multibody core (robolib.core.multibody.mechanism): residual, Jacobian, gamma, right-hand side."""

from __future__ import annotations

import math

import numpy as np
import pytest
from fuzzing import names

from robolib import ConvergenceError, ParameterError, SingularityError
from robolib import gearshift as G
from robolib import multibody as mb
from robolib.core.multibody import (
    AngleLock,
    Body,
    Constant,
    ConstantSpeed,
    Driver,
    GroundPin,
    Mechanism,
    Pin,
    PointSpringDamper,
    resolve_backend,
)
from robolib.core.multibody import integrator as MI
from robolib.core.multibody import mechanism as MM

# ==== Jacobian, gamma and bad models against independent routes on the gear shift ===================================
#
# Planar multibody core (robolib.core.multibody) against independent routes.
#
# * Jacobian and gamma against finite differences of H;
# * closed-form inverse kinematics of the gear-shift manipulator and the
#   slider-crank (an independent route to q, qd, qdd) against the residual, the
#   velocity and acceleration constraints and the Newton/linear-solve route;
# * driving torques from the multipliers against virtual power (Kane) and the
#   power balance sum(tau theta_dot) = dT/dt + load power (finite-difference dT/dt);
# * Baumgarte drift bounds; integrator order; compiled kernel == numpy path;
# * bad input.

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
        P_damp = sum(fe.damping * np.sum(mech.point_velocity(im["q"][0], im["qd"][0], fe.body, fe.point) ** 2)
                     for fe in mech.forces)
        assert P_drive == pytest.approx(dT + dV + P_damp, rel=1e-7, abs=1e-9)


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
    with pytest.raises(ParameterError, match=names("joint names", "unique")):
        mb.Mechanism([_bar()], [mb.GroundPin("O", "bar", (0, 0), (0, 0)), mb.AngleLock("O", mb.GROUND, "bar")])
    with pytest.raises(ParameterError, match="point"):
        mb.Mechanism([_bar()], [mb.GroundPin("O", "bar", (0, 0, 0), (0, 0))])
    with pytest.raises(ParameterError, match=names("no joint", "'Z9'")):
        GS.mech.row_slice("Z9")
    with pytest.raises(ParameterError, match="'Z9'"):
        GS.mech.without(["Z9"])
    with pytest.raises(ParameterError, match="coord"):
        mb.Mechanism([_bar()], [mb.Driver("d", "bar", mb.Constant(0.0), coord="z")])


def test_redundant_constraints_are_singular():
    mech = mb.Mechanism([_bar()], [mb.Driver("d1", "bar", mb.Constant(0.0)),
                                   mb.AngleLock("lock", mb.GROUND, "bar"),
                                   mb.Driver("x", "bar", mb.Constant(0.0), coord="x", motor=False)])
    with pytest.raises(SingularityError, match="singular"):
        mech.accelerations(np.zeros(3), np.zeros(3))
    with pytest.raises(SingularityError, match="singular"):
        mech.compiled_rhs()(0.0, np.zeros(8)) if mb._numba is not None else mech.rhs()(0.0, np.zeros(8))



# ==== residual, Jacobian, sparse patterns and batches worked out by hand ============================================
#
# The planar multibody core through independent routes (issue 21, item 5: tests that catch single bugs).
#
# The gear-shift and slider-crank models of the first section have every pin point on its
# link's x axis, no angle lock with an offset, their drivers on the first bodies and one damper; a
# sign of a ``s_y`` term, an offset's sign or a stride of a later body cannot show there. Here a
# three-body mechanism breaks those symmetries (pin points off the axes, an angle lock with an offset
# between two bodies and one to ground, drivers on the second and third bodies, two dampers of different
# damping), and every quantity is checked against a route that does not share its code:
#
# * the constraint residual against the positions of the pin points (``point_position``), the angle rows
#   by hand; ``gamma`` against central second differences of ``H`` along a straight path;
# * the Baumgarte terms of ``accelerations`` on a driven free body, by hand;
# * the numpy and compiled right-hand sides against ``accelerations``, the drive power against
#   ``-lambda . qd`` of the driver rows by hand, the damper power against the damper law;
# * point velocities, energies and powers of a batch against per-sample values and differences;
# * the symbolic sparse Cholesky of the compiled kernel against ``numpy.linalg.cholesky``, through a
#   factorisation written here from its pattern, on random patterns, and its fill on an arrow pattern.

HAVE_NUMBA = resolve_backend("auto") == "numba"


RNG = np.random.default_rng(20261203)


def three_bodies(offset=0.35):
    """a pinned to ground, b pinned to a, c locked to b at ``offset``; c's x driven; two dampers."""
    bodies = [Body("a", 0.4, 3e-3), Body("b", 0.25, 2e-3), Body("c", 0.6, 5e-3)]
    joints = [GroundPin("O", "a", (-0.03, 0.02), (0.1, -0.05)),
              Pin("P", "a", (0.07, -0.015), "b", (-0.04, 0.025)),
              AngleLock("L", "b", "c", offset),
              Driver("drive_cx", "c", ConstantSpeed(0.3, 0.4), coord="x", motor=False)]
    forces = [PointSpringDamper("s1", "b", (0.05, 0.01), (0.3, 0.2), stiffness=40.0, damping=0.7),
              PointSpringDamper("s2", "c", (-0.02, 0.04), (-0.1, 0.3), stiffness=15.0, damping=0.05)]
    return Mechanism(bodies, joints, forces, name="three")


Q = np.array([0.12, -0.03, 0.4, 0.2, 0.05, -0.8, 0.31, 0.1, 1.1])


QD = np.array([0.3, -0.2, 1.5, -0.4, 0.6, -2.0, 0.45, -0.1, 0.7])


def test_residual_against_the_pin_points_and_the_angles_by_hand():
    m = three_bodies()
    H = m.residual(Q, 0.5)
    P = lambda body, s: m.point_position(Q, body, s)  # noqa: E731
    np.testing.assert_allclose(H[m.row_slice("O")], P("a", (-0.03, 0.02)) - np.array([0.1, -0.05]), atol=1e-15)
    np.testing.assert_allclose(H[m.row_slice("P")], P("a", (0.07, -0.015)) - P("b", (-0.04, 0.025)), atol=1e-15)
    assert H[m.row_slice("L")][0] == pytest.approx(Q[8] - Q[5] - 0.35, abs=1e-15)
    assert H[m.row_slice("drive_cx")][0] == pytest.approx(Q[6] - (0.3 + 0.4 * 0.5), abs=1e-15)
    assert [m.row_slice(j) for j in ("O", "P", "L", "drive_cx")] == [slice(0, 2), slice(2, 4), slice(4, 5),
                                                                     slice(5, 6)]


def test_an_angle_lock_to_ground_and_a_motor_on_a_later_body():
    m = Mechanism([Body("a", 1.0, 0.1), Body("b", 2.0, 0.3)],
                  [AngleLock("G", "ground", "a", -0.2), Driver("mb", "b", Constant(0.7))])
    q = np.array([0.0, 0.0, 0.5, 1.0, 2.0, 0.9])
    np.testing.assert_allclose(m.residual(q), [0.5 + 0.2, 0.9 - 0.7], atol=1e-15)
    J = m.jacobian(q)
    np.testing.assert_array_equal(J, [[0, 0, 1, 0, 0, 0], [0, 0, 0, 0, 0, 1]])
    qdd, lam = m.accelerations(q, np.zeros(6), alpha=0.0, beta=0.0)
    np.testing.assert_allclose(qdd, 0.0, atol=1e-15)
    for backend in ["numpy"] + (["numba"] if HAVE_NUMBA else []):
        y = np.concatenate([q, np.zeros(6), [0.0, 0.0]])
        dy = m.rhs(alpha=2.0, beta=3.0)(0.0, y) if backend == "numpy" else m.compiled_rhs(2.0, 3.0)(0.0, y)
        # Baumgarte pulls each locked angle back: theta'' = -beta^2 H
        assert dy[6 + 2] == pytest.approx(-9.0 * 0.7, rel=1e-12), backend
        assert dy[6 + 5] == pytest.approx(-9.0 * 0.2, rel=1e-12), backend


def test_jacobian_and_gamma_against_differences_of_the_residual():
    m = three_bodies()
    h = 1e-6
    J = m.jacobian(Q)
    Jfd = np.column_stack([(m.residual(Q + h * e, 0.5) - m.residual(Q - h * e, 0.5)) / (2 * h) for e in np.eye(9)])
    np.testing.assert_allclose(J, Jfd, atol=1e-9)
    # along q(t) = Q + (t - t0) QD (no acceleration): J qdd = gamma means gamma = -d^2 H / dt^2
    t0, k = 0.5, 1e-4
    H = lambda t: m.residual(Q + (t - t0) * QD, t)  # noqa: E731
    d2H = (H(t0 + k) - 2 * H(t0) + H(t0 - k)) / k ** 2
    np.testing.assert_allclose(m.gamma(Q, QD, t0), -d2H, atol=1e-5)


def test_baumgarte_terms_on_a_driven_free_body_by_hand():
    """theta'' = f'' - 2 alpha (theta' - f') - beta^2 (theta - f) for one motor row on a free body."""
    m = Mechanism([Body("a", 1.0, 0.2)], [Driver("d", "a", ConstantSpeed(0.1, 2.0))])
    t, th, w = 0.3, 0.1 + 2.0 * 0.3 + 0.01, 2.0 - 0.05
    for alpha, beta in ((0.0, 0.0), (3.0, 0.0), (0.0, 5.0), (3.0, 5.0), (7.5, 11.0), (2.0, 1.0)):
        qdd, lam = m.accelerations([0.0, 0.0, th], [0.0, 0.0, w], t, alpha=alpha, beta=beta)
        expected = 0.0 - 2 * alpha * (w - 2.0) - beta ** 2 * 0.01
        assert qdd[2] == pytest.approx(expected, rel=1e-12, abs=1e-15), (alpha, beta)
        # the motor row's multiplier carries the torque: I theta'' = -lambda
        assert lam[0] == pytest.approx(-0.2 * expected, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("backend", ["numpy"] + (["numba"] if HAVE_NUMBA else []))
def test_right_hand_side_books_and_extra_entries(backend):
    m = Mechanism([Body("crank", 0.4, 2e-3), Body("free", 1.0, 1.0)],
                  [GroundPin("O", "crank", (-0.05, 0.01), (0.0, 0.0)), Driver("motor", "crank", ConstantSpeed(0.2, 3.0))],
                  [PointSpringDamper("s", "crank", (0.05, 0.01), (0.2, 0.1), stiffness=50.0, damping=0.3)])
    th = 0.2
    c, s = math.cos(th), math.sin(th)
    r = -np.array([c * -0.05 - s * 0.01, s * -0.05 + c * 0.01])
    q = np.array([r[0], r[1], th, 0.0, 0.0, 0.0])
    qd = np.array([0.01 * 3.0 * c - 0.05 * 3.0 * s, 0.05 * 3.0 * c + 0.01 * 3.0 * s, 3.0, 0.0, 0.0, 0.0])
    qd[:2] = 3.0 * np.array([-(q[1]), q[0]])                       # rigid rotation about the fixed pin
    f = m.rhs(2.0, 3.0) if backend == "numpy" else m.compiled_rhs(2.0, 3.0)
    y = np.concatenate([q, qd, [0.0, 0.0], [5.0, 6.0]])             # two entries beyond the books
    dy = f(0.0, y)
    qdd, lam = m.accelerations(q, qd, 0.0, alpha=2.0, beta=3.0)
    np.testing.assert_allclose(dy[6:12], qdd, rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(dy[:6], qd)
    np.testing.assert_array_equal(dy[14:], 0.0)
    # drive power = motor torque x rate = -lambda_motor * theta'; loss = c |v_P|^2 at the damper point
    assert dy[12] == pytest.approx(-lam[2] * 3.0, rel=1e-9)
    vP = m.point_velocity(q, qd, "crank", (0.05, 0.01))
    assert dy[13] == pytest.approx(0.3 * vP @ vP, rel=1e-12)
    assert dy[12] != 0.0 and dy[13] > 0.0


def test_dampers_springs_and_velocities_of_a_batch():
    m = three_bodies()
    qs = Q + 0.01 * RNG.normal(size=(2, 3, 9))
    qds = QD + 0.1 * RNG.normal(size=(2, 3, 9))
    V = m.potential_energy(qs)
    assert V.shape == (2, 3)
    for i in range(2):
        for j in range(3):
            q, qd = qs[i, j], qds[i, j]
            d1 = m.point_position(q, "b", (0.05, 0.01)) - (0.3, 0.2)
            d2 = m.point_position(q, "c", (-0.02, 0.04)) - (-0.1, 0.3)
            assert V[i, j] == pytest.approx(20.0 * d1 @ d1 + 7.5 * d2 @ d2, rel=1e-12)
            v1 = m.point_velocity(q, qd, "b", (0.05, 0.01))
            v2 = m.point_velocity(q, qd, "c", (-0.02, 0.04))
            g = m.applied_forces(q, qd)
            # the generalised force's power: the spring and damper forces at their points
            F1 = -40.0 * d1 - 0.7 * v1
            F2 = -15.0 * d2 - 0.05 * v2
            assert g @ qd == pytest.approx(F1 @ v1 + F2 @ v2, rel=1e-10)
    h = 1e-7
    v = m.point_velocity(qs, qds, "c", (-0.02, 0.04))
    vfd = (m.point_position(qs + h * qds, "c", (-0.02, 0.04)) - m.point_position(qs - h * qds, "c", (-0.02, 0.04))) / (2 * h)
    np.testing.assert_allclose(v, vfd, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(m.point_velocity(qs, QD, "c", (-0.02, 0.04))[1, 2],
                               m.point_velocity(qs[1, 2], QD, "c", (-0.02, 0.04)), rtol=1e-14)
    with pytest.raises(ParameterError, match=names("qd", "(4, 9)", "broadcast", "q", "(2, 3, 9)")):
        m.point_velocity(qs, np.zeros((4, 9)), "c", (-0.02, 0.04))


def test_rotate_broadcasts_vectors_and_angles():
    s = np.array([[1.0, 0.0], [0.0, 2.0], [3.0, -1.0]])
    out = MM.rotate(s, np.array([0.0, math.pi / 2, math.pi]))
    np.testing.assert_allclose(out, [[1.0, 0.0], [-2.0, 0.0], [-3.0, 1.0]], atol=1e-15)
    np.testing.assert_allclose(MM.rotate(s[2], np.array([0.1, 0.2]))[1], MM.rotate(s[2], 0.2), atol=0)
    with pytest.raises(ParameterError, match=names("theta", "(2,)", "broadcast", "s", "(3, 2)")):
        MM.rotate(s, np.array([0.1, 0.2]))


def test_kernel_model_and_the_compiled_path_of_driver_motions():
    m = three_bodies()
    assert m.kernel_model()[2] is not None
    lam = Mechanism([Body("a", 1.0, 0.1)], [Driver("d", "a", lambda t: (t, 1.0, 0.0))])
    assert lam.kernel_model()[2] is None
    if HAVE_NUMBA:
        y = np.concatenate([Q, QD, [0.0, 0.0]])
        np.testing.assert_allclose(m.compiled_rhs(4.0, 6.0)(0.5, y), m.rhs(4.0, 6.0)(0.5, y), rtol=1e-9, atol=1e-9)


def test_the_compiled_pattern_holds_every_nonzero_of_the_jacobian():
    """The kernel's column table ``jc`` (row r: its first ``jn[r]`` columns) names exactly the columns where the
    Jacobian is nonzero: locks whose first body is body 2 or 3 (column 3 i + 2, with i past 1), a pin between
    two later bodies and a motor on the last body. The compiled right-hand side agrees with NumPy's."""
    bodies = [Body(k, 0.3 + 0.1 * j, 1e-3 * (j + 2)) for j, k in enumerate("abcd")]
    joints = [GroundPin("O", "a", (-0.03, 0.02), (0.0, 0.0)),
              AngleLock("L1", "c", "a", 0.2), AngleLock("L2", "d", "b", -0.4),
              Pin("P", "c", (0.02, 0.01), "d", (-0.03, 0.04)), Driver("m", "d", ConstantSpeed(0.1, 1.5))]
    m = Mechanism(bodies, joints, [PointSpringDamper("s", "b", (0.01, 0.0), (0.2, 0.1), stiffness=9.0, damping=0.2)])
    q = RNG.normal(size=12)
    J = m.jacobian(q)
    jc, jn = m.kernel_model()[0][:2]
    for r in range(m.m):
        assert sorted(int(c) for c in jc[r, :jn[r]]) == np.flatnonzero(J[r]).tolist(), r
    lock = m.row_slice("L1").start
    assert J[lock, 3 * 2 + 2] == -1.0 and J[lock, 2] == 1.0
    if HAVE_NUMBA:
        y = np.concatenate([q, RNG.normal(size=12), [0.0, 0.0]])
        np.testing.assert_allclose(m.compiled_rhs(4.0, 6.0)(0.5, y), m.rhs(4.0, 6.0)(0.5, y), rtol=1e-9, atol=1e-9)


def test_contact_arrays_refuse_non_positive_and_non_finite_onset_speeds():
    C = np.zeros((1, MM.CONTACT_COLUMNS))
    MM.contact_arrays(C, np.array([1e-4]))
    assert MM.contact_arrays(None, None)[1].shape == (0,)
    assert MM.contact_arrays(np.zeros((0, MM.CONTACT_COLUMNS)), None)[0].shape == (0, MM.CONTACT_COLUMNS)
    for bad in (np.array([0.0]), np.array([np.nan]), np.array([-1.0])):
        with pytest.raises(ParameterError, match=names("ddelta0", "finite", "positive")):
            MM.contact_arrays(C, bad)


# ----------------------------------------------------------------------------- the symbolic sparse Cholesky
def factor_from_pattern(S, iperm, lpat, ustart, uk):
    """Cholesky of the permuted S, computed only on the symbolic pattern (written here, not the kernel's)."""
    m = len(S)
    P = np.empty((m, m))
    P[np.ix_(iperm, iperm)] = S                      # row r of S goes to position iperm[r]
    L = np.zeros((m, m))
    for e, (r, c) in enumerate(lpat):
        acc = P[r, c] - sum(L[r, k] * L[c, k] for k in uk[ustart[e]:ustart[e + 1]])
        L[r, c] = math.sqrt(acc) if r == c else acc / L[c, c]
    return P, L


def random_pattern(m, ncols, rng):
    jn = rng.integers(1, 4, size=m)
    jc = np.zeros((m, 3), dtype=np.int64)
    for r in range(m):
        jc[r, :jn[r]] = rng.choice(ncols, size=jn[r], replace=False)
    return jc, jn


@pytest.mark.parametrize("seed", range(6))
def test_sparse_cholesky_pattern_gives_the_cholesky_factor(seed):
    rng = np.random.default_rng(seed)
    m, ncols = int(rng.integers(4, 11)), int(rng.integers(4, 12))
    jc, jn = random_pattern(m, ncols, rng)
    J = np.zeros((m, ncols))
    for r in range(m):
        J[r, jc[r, :jn[r]]] = rng.normal(size=jn[r])
    S = J @ np.diag(rng.uniform(0.5, 2.0, ncols)) @ J.T + 1e-3 * np.eye(m)   # the pattern of J M^-1 J^T
    iperm, lpat, ustart, uk = MM._sparse_cholesky_pattern(jc, jn)
    assert sorted(iperm.tolist()) == list(range(m))
    P, L = factor_from_pattern(S, iperm, lpat, ustart, uk)
    np.testing.assert_allclose(L, np.linalg.cholesky(P), rtol=1e-10, atol=1e-12)
    assert all(r >= c for r, c in lpat)


@pytest.mark.parametrize("m", [5, 8])
def test_sparse_cholesky_of_a_ring_needs_fill_and_gets_it(m):
    """Row r shares a column with rows r - 1 and r + 1 (mod m): every elimination order fills."""
    jc = np.array([[r, (r + 1) % m, 0] for r in range(m)], dtype=np.int64)
    jn = np.full(m, 2, dtype=np.int64)
    rng = np.random.default_rng(m)
    J = np.zeros((m, m))
    for r in range(m):
        J[r, jc[r, :2]] = rng.normal(size=2) + 2.0
    S = J @ J.T + 1e-2 * np.eye(m)
    iperm, lpat, ustart, uk = MM._sparse_cholesky_pattern(jc, jn)
    nnz_S = m + m                                      # the diagonal and the m ring neighbours (lower half)
    assert len(lpat) > nnz_S
    P, L = factor_from_pattern(S, iperm, lpat, ustart, uk)
    np.testing.assert_allclose(L, np.linalg.cholesky(P), rtol=1e-10, atol=1e-12)


def test_minimum_degree_order_leaves_an_arrow_pattern_without_fill():
    """Row 0 shares a column with every other row (an arrow): eliminated first it fills the whole factor;
    the minimum-degree order eliminates it last and the factor keeps the pattern of S."""
    m = 6
    jc = np.zeros((m, 3), dtype=np.int64)
    jn = np.ones(m, dtype=np.int64)
    jc[0, :3], jn[0] = (1, 2, 3), 3
    jc[1:, 0] = [1, 2, 3, 1, 2]
    jc[4, 1], jc[5, 1], jn[4], jn[5] = 7, 8, 2, 2
    iperm, lpat, ustart, uk = MM._sparse_cholesky_pattern(jc, jn)
    cols = [set(jc[r, :jn[r]].tolist()) for r in range(m)]
    nnz_S = sum(1 for r in range(m) for c in range(r + 1) if r == c or cols[r] & cols[c])
    # rows 1 and 4 share column 1, rows 2 and 5 column 2: no elimination order needs fill here
    assert len(lpat) == nnz_S


# ----------------------------------------------------------------------------- the integrator's entry points


def driven_crank():
    """A crank on a ground pin, driven at constant speed, its tip on a spring: a smooth, driven motion."""
    return Mechanism([Body("crank", 0.4, 2e-3)],
                     [GroundPin("O", "crank", (-0.05, 0.01), (0.0, 0.0)), Driver("motor", "crank", ConstantSpeed(0.2, 3.0))],
                     [PointSpringDamper("s", "crank", (0.05, 0.01), (0.2, 0.1), stiffness=50.0, damping=0.3)])


def crank_state(m, t=0.0):
    q, qd = MI.project(m, [0.05, 0.0, 0.2 + 3.0 * t], [0.0, 0.0, 3.0], t)
    return q, qd


def test_project_lands_on_both_constraint_levels_with_a_moving_driver():
    m = driven_crank()
    q, qd = MI.project(m, [0.06, -0.01, 0.25], [0.3, -0.2, 2.5], 0.1)
    np.testing.assert_allclose(m.residual(q, 0.1), 0.0, atol=1e-12)
    # the velocity level includes the driver's H_t = -3 rad/s
    np.testing.assert_allclose(m.jacobian(q) @ qd + m.time_derivative(0.1), 0.0, atol=1e-12)
    assert qd[2] == pytest.approx(3.0, rel=1e-12)


def test_a_driver_motion_that_is_not_finite_is_named():
    m = Mechanism([Body("a", 1.0, 0.1)], [Driver("d", "a", lambda t: (math.sqrt(1.0 - t), 0.0, 0.0))])
    MI._driver_check(m, 0.5)
    with pytest.raises((ConvergenceError, ValueError)):
        MI._driver_check(m, 2.0)
    m2 = Mechanism([Body("a", 1.0, 0.1)], [Driver("d", "a", lambda t: (float("nan"), 0.0, 0.0))])
    with pytest.raises(ConvergenceError, match=names("mechanism", "driver motion", "not finite", "t = 0.5 s")):
        MI._driver_check(m2, 0.5)


class Counting:
    """A right-hand side that counts its calls."""

    def __init__(self, fun):
        self.fun, self.calls = fun, 0

    def __call__(self, t, y):
        self.calls += 1
        return self.fun(t, y)


#: Largest difference of the compiled and the reference loop along a run at rtol 1e-9, relative to the state's size.
ROUNDOFF_DRIFT = 1e-8


# ----------------------------------------------------------------------------- solvers


def crank_by_hand(t):
    """Closed-form state of the driven crank and its motor torque: the moment of the tip force about the pin."""
    th, w = 0.2 + 3.0 * t, 3.0
    c, s = math.cos(th), math.sin(th)
    rot = np.array([[c, -s], [s, c]])
    a = rot @ np.array([-0.05, 0.01])                 # pin point relative to the centre of mass
    r = -a
    rd = -w * np.array([-a[1], a[0]])
    rdd = w * w * a                                   # centripetal, towards the pin
    tip = rot @ np.array([0.05, 0.01])
    P = r + tip
    vP = rd + w * np.array([-tip[1], tip[0]])
    F = -50.0 * (P - np.array([0.2, 0.1])) - 0.3 * vP
    # torque about the pin (fixed point): tau + (P - 0) x F = I_O theta'' = 0
    tau = -(P[0] * F[1] - P[1] * F[0])
    return np.array([*r, th]), np.array([*rd, w]), np.array([*rdd, 0.0]), tau


class Harmonic:
    """``f(t) = a sin(w t)``: a driver motion with a nonzero acceleration (time enters gamma and Phi)."""

    def __init__(self, a, w):
        self.a, self.w = a, w

    def __call__(self, t):
        return (self.a * math.sin(self.w * t), self.a * self.w * math.cos(self.w * t),
                -self.a * self.w ** 2 * math.sin(self.w * t))


def test_the_time_argument_defaults_to_zero():
    """Without ``t``, gamma and the accelerations are those at t = 0: with a harmonic driver both depend on t
    (the driver's acceleration in gamma, its position error in the Baumgarte terms)."""
    m = Mechanism([Body("a", 0.4, 3e-3), Body("b", 0.25, 2e-3)],
                  [GroundPin("O", "a", (-0.03, 0.02), (0.0, 0.0)), Pin("P", "a", (0.07, 0.0), "b", (-0.04, 0.0)),
                   Driver("drive", "a", Harmonic(0.3, 5.0))])
    q, qd = np.array([0.03, -0.02, 0.1, 0.12, -0.01, 0.4]), np.array([0.1, 0.2, 1.5, -0.3, 0.4, -2.0])
    def flat(out):                                                   # accelerations gives (qdd, lambda)
        return np.concatenate([np.ravel(x) for x in (out if isinstance(out, tuple) else (out,))])

    for f in (m.gamma, m.accelerations):
        at0, at1 = flat(f(q, qd, 0.0)), flat(f(q, qd, 1.0))
        assert np.abs(at1 - at0).max() > 1e-3 * np.abs(at0).max()          # t matters here
        np.testing.assert_array_equal(flat(f(q, qd)), at0)
