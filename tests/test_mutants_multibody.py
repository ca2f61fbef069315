"""The planar multibody core through independent routes (issue 21, item 5: tests that catch single bugs).

The gear-shift and slider-crank models of ``tests/test_multibody.py`` have every pin point on its
link's x axis, no angle lock with an offset, their drivers on the first bodies and one damper; a
sign of a ``s_y`` term, an offset's sign or a stride of a later body cannot show there. Here a
three-body mechanism breaks those symmetries (pin points off the axes, an angle lock with an offset
between two bodies and one to ground, drivers on the second and third bodies, two dampers of different
damping), and every quantity is checked against a route that does not share its code:

* the constraint residual against the positions of the pin points (``point_position``), the angle rows
  by hand; ``gamma`` against central second differences of ``H`` along a straight path;
* the Baumgarte terms of ``accelerations`` on a driven free body, by hand;
* the numpy and compiled right-hand sides against ``accelerations``, the drive power against
  ``-lambda . qd`` of the driver rows by hand, the damper power against the damper law;
* point velocities, energies and powers of a batch against per-sample values and differences;
* the symbolic sparse Cholesky of the compiled kernel against ``numpy.linalg.cholesky``, through a
  factorisation written here from its pattern, on random patterns, and its fill on an arrow pattern.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from robolib import ConvergenceError, ParameterError, SingularityError
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
from robolib.core.multibody import solvers as MS

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
    P = m.dissipated_power(qs, qds)
    assert V.shape == P.shape == (2, 3)
    for i in range(2):
        for j in range(3):
            q, qd = qs[i, j], qds[i, j]
            d1 = m.point_position(q, "b", (0.05, 0.01)) - (0.3, 0.2)
            d2 = m.point_position(q, "c", (-0.02, 0.04)) - (-0.1, 0.3)
            assert V[i, j] == pytest.approx(20.0 * d1 @ d1 + 7.5 * d2 @ d2, rel=1e-12)
            v1 = m.point_velocity(q, qd, "b", (0.05, 0.01))
            v2 = m.point_velocity(q, qd, "c", (-0.02, 0.04))
            assert P[i, j] == pytest.approx(0.7 * v1 @ v1 + 0.05 * v2 @ v2, rel=1e-12)
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
    with pytest.raises(ParameterError, match=r"qd of shape \(4, 9\) does not broadcast with q of shape \(2, 3, 9\)"):
        m.dissipated_power(qs, np.zeros((4, 9)))


def test_rotate_broadcasts_vectors_and_angles():
    s = np.array([[1.0, 0.0], [0.0, 2.0], [3.0, -1.0]])
    out = MM.rotate(s, np.array([0.0, math.pi / 2, math.pi]))
    np.testing.assert_allclose(out, [[1.0, 0.0], [-2.0, 0.0], [-3.0, 1.0]], atol=1e-15)
    np.testing.assert_allclose(MM.rotate(s[2], np.array([0.1, 0.2]))[1], MM.rotate(s[2], 0.2), atol=0)
    with pytest.raises(ParameterError, match=r"theta of shape \(2,\) does not broadcast with s of shape \(3, 2\)"):
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
        with pytest.raises(ParameterError, match="ddelta0 must be finite and positive"):
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


@pytest.mark.parametrize("backend", ["numpy"] + (["numba"] if HAVE_NUMBA else []))
def test_simulate_defaults_options_and_the_route_it_takes(backend, monkeypatch):
    m = driven_crank()
    q0, qd0 = crank_state(m)
    ts = np.linspace(0.0, 0.5, 6)
    a = MI.simulate(m, (0.0, 0.5), q0, qd0, t_eval=ts, backend=backend)
    b = MI.simulate(m, (0.0, 0.5), q0, qd0, t_eval=ts, rtol=1e-8, atol=1e-10, backend=backend)
    np.testing.assert_array_equal(a.y, b.y)                          # the documented defaults
    np.testing.assert_array_equal(a.t, ts)
    # the crank follows its motor: theta(t) = 0.2 + 3 t, and the pin holds
    np.testing.assert_allclose(a.y[:, 2], 0.2 + 3.0 * ts, atol=1e-8)
    np.testing.assert_allclose([m.residual(q, t)[:2] for q, t in zip(a.y[:, :3], ts)], 0.0, atol=1e-8)
    c = MI.simulate(m, (0.0, 0.5), q0, qd0, t_eval=ts, atol=np.full(8, 1e-10), backend=backend)
    np.testing.assert_array_equal(c.y, b.y)
    with pytest.raises(ParameterError, match=r"atol must be a number or have shape \(8,\)"):
        MI.simulate(m, (0.0, 0.5), q0, qd0, atol=np.full(9, 1e-10), backend=backend)
    assert MI.simulate(m, (0.0, 0.5), q0, qd0, h_max=0.005, backend=backend).n_steps >= 100
    # the route: the compiled loop only for numba without extra forces or a hook
    calls = []
    real_compiled, real_dopri = MI.integrate_compiled, MI.dopri5
    monkeypatch.setattr(MI, "integrate_compiled", lambda *a, **k: calls.append("compiled") or real_compiled(*a, **k))
    monkeypatch.setattr(MI, "dopri5", lambda *a, **k: calls.append("dopri5") or real_dopri(*a, **k))
    hooks = []
    extra_calls = []
    MI.simulate(m, (0.0, 0.05), q0, qd0, backend=backend)
    MI.simulate(m, (0.0, 0.05), q0, qd0, backend=backend, step_hook=lambda *a: hooks.append(a[0]) and False)
    MI.simulate(m, (0.0, 0.05), q0, qd0, backend=backend, extra=lambda t, q, qd, g: extra_calls.append(t) or 0.0)
    expected = ["compiled" if backend == "numba" else "dopri5", "dopri5", "dopri5"]
    assert calls == expected and hooks and extra_calls


def test_the_dense_output_is_fourth_order_inside_a_step():
    """y' = -y over one step of h: the dense output's error at mid-step shrinks like h^5 (local error)."""
    errs = []
    for h in (0.2, 0.1):
        seen = {}

        def hook(t0, y0, f0, t1, y1, f1, dense):
            seen.setdefault("dense", dense)
            return False

        MI.dopri5(lambda t, y: -y, 0.0, np.array([1.0]), h, rtol=1e6, atol=1e6, h0=h, step_hook=hook)
        errs.append(abs(float(seen["dense"](h / 2)[0]) - math.exp(-h / 2)))
    assert errs[0] < 1e-6 and errs[0] / errs[1] > 20            # about 2^5 = 32


def test_hermite_refuses_bad_shapes_by_name():
    with pytest.raises(ParameterError, match="y0"):
        MI.hermite(0.0, [[0.0, 1.0]], [0.0], 1.0, [1.0], [3.0], 0.5)


def test_a_driver_motion_that_is_not_finite_is_named():
    m = Mechanism([Body("a", 1.0, 0.1)], [Driver("d", "a", lambda t: (math.sqrt(1.0 - t), 0.0, 0.0))])
    MI._driver_check(m, 0.5)
    with pytest.raises((ConvergenceError, ValueError)):
        MI._driver_check(m, 2.0)
    m2 = Mechanism([Body("a", 1.0, 0.1)], [Driver("d", "a", lambda t: (float("nan"), 0.0, 0.0))])
    with pytest.raises(ConvergenceError, match=r"mechanism 'mechanism': a driver motion is not finite at t = 0\.5 s"):
        MI._driver_check(m2, 0.5)


class Counting:
    """A right-hand side that counts its calls."""

    def __init__(self, fun):
        self.fun, self.calls = fun, 0

    def __call__(self, t, y):
        self.calls += 1
        return self.fun(t, y)


def test_dopri5_counters_and_a_time_dependent_right_hand_side():
    """y' = cos t from t0 = 1: the stages must be evaluated at t + c_i h (an autonomous test cannot see it)."""
    f = Counting(lambda t, y: np.array([math.cos(t), -y[1]]))
    r = MI.dopri5(f, 1.0, np.array([0.0, 1.0]), 6.0, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(r.y[:, 0], np.sin(r.t) - math.sin(1.0), atol=1e-8)
    np.testing.assert_allclose(r.y[:, 1], np.exp(-(r.t - 1.0)), rtol=1e-8)
    assert r.n_rhs == f.calls == 1 + 6 * (r.n_steps + r.n_rejected)       # first-same-as-last
    assert r.n_steps == len(r.t) - 1 and r.t_final == 6.0
    assert r.stats["h_min"] == pytest.approx(np.diff(r.t).min(), rel=1e-12)
    # an oscillator at tight tolerance: the controller's safety factor keeps rejections rare
    osc = MI.dopri5(lambda t, y: np.array([y[1], -y[0]]), 0.0, np.array([1.0, 0.0]), 20.0, rtol=1e-10, atol=1e-13)
    assert osc.n_rejected <= 0.05 * osc.n_steps


def test_dopri5_first_step_growth_and_step_budget():
    g = Counting(lambda t, y: np.array([1.0]))
    r = MI.dopri5(g, 0.0, np.array([0.0]), 10.0, rtol=1e-6, atol=1e-9, h0=1e-3)
    steps = np.diff(r.t)
    assert steps[0] == 1e-3                                         # h0 is the first step
    np.testing.assert_allclose(steps[1:4] / steps[:3], 5.0, rtol=1e-12)   # zero error: the largest growth, 5
    s = MI.dopri5(lambda t, y: -y, 100.0, np.array([1.0]), 101.0, rtol=1e-6, atol=1e-9)
    assert s.t[1] - s.t[0] == pytest.approx(MI.initial_step(np.array([1.0]), np.array([-1.0]), 1e-6, 1e-9, 1.0),
                                            rel=1e-12)
    # exactly 4 steps of h_max = 0.25: a budget of 4 suffices, 3 does not
    MI.dopri5(lambda t, y: -y, 0.0, np.array([1.0]), 1.0, rtol=1e3, atol=1e3, h0=0.25, h_max=0.25, max_steps=4)
    with pytest.raises(ConvergenceError, match="more than max_steps = 3"):
        MI.dopri5(lambda t, y: -y, 0.0, np.array([1.0]), 1.0, rtol=1e3, atol=1e3, h0=0.25, h_max=0.25, max_steps=3)


#: Largest difference of the compiled and the reference loop along a run at rtol 1e-9, relative to the state's size.
ROUNDOFF_DRIFT = 1e-8


@pytest.mark.skipif(not HAVE_NUMBA, reason="needs the compiled integrator")
def test_the_compiled_loop_is_the_reference_loop_step_for_step(monkeypatch):
    """Same tableau, error norm and step rule: the same steps, rejections and right-hand-side calls as dopri5
    on the same right-hand side, also when its output and episode buffers fill and it resumes."""
    m = three_bodies()
    q0, qd0 = MI.project(m, Q, QD, 0.0)
    y0 = np.concatenate([q0, qd0, [0.0, 0.0]])
    ref = MI.dopri5(m.rhs(5.0, 10.0), 0.0, y0, 0.4, rtol=1e-9, atol=1e-12)
    monkeypatch.setattr(MI, "OUTPUT_CHUNK", 16)                     # several resumes
    got = MI.integrate_compiled(m, 0.0, y0, 0.4, 5.0, 10.0, 1e-9, 1e-12)[0]
    assert (got.n_steps, got.n_rejected, got.n_rhs) == (ref.n_steps, ref.n_rejected, ref.n_rhs)
    assert len(got.t) == len(ref.t) > 3 * 16 and got.t[-1] == 0.4
    np.testing.assert_allclose(got.t, ref.t, rtol=1e-6)            # round-off of the two right-hand sides
    # the two right-hand sides round differently; the difference is relative to each state's size along the run
    # (measured: 8.8e-10 of the column's largest value at rtol 1e-9 on an AMD EPYC, where an elementwise
    # rtol of 1e-7 fails on entries passing near zero), and the end states agree to round-off
    drift = np.abs(got.y - ref.y) / np.maximum(np.abs(ref.y).max(axis=0), 1e-300)
    assert drift.max() < ROUNDOFF_DRIFT, f"largest difference {drift.max():.2e} of the state's size"
    np.testing.assert_allclose(got.y[-1], ref.y[-1], rtol=1e-10, atol=1e-12)
    assert got.stats["h_min"] == pytest.approx(ref.stats["h_min"], rel=1e-6)
    ts = np.array([0.0, 0.0, 0.1, 0.25, 0.4])                       # t0 twice: both samples are the start
    sampled = MI.integrate_compiled(m, 0.0, y0, 0.4, 5.0, 10.0, 1e-9, 1e-12, t_eval=ts)[0]
    np.testing.assert_array_equal(sampled.y[:2], [y0, y0])
    np.testing.assert_allclose(sampled.y[2:], MI.dopri5(m.rhs(5.0, 10.0), 0.0, y0, 0.4, rtol=1e-9, atol=1e-12,
                                                        t_eval=ts).y[2:], rtol=1e-7, atol=1e-10)


@pytest.mark.skipif(not HAVE_NUMBA, reason="needs the compiled integrator")
def test_the_compiled_loop_resumes_when_its_episode_buffer_fills(monkeypatch):
    from robolib.core.clearance import ClearanceModel, ClearanceSpec

    def run():
        mech = Mechanism([Body("disc", 1.0, 1e-4)], [GroundPin("O", "disc", (0.0, 0.0), (0.0, 0.0))])
        cm = ClearanceModel(mech, [ClearanceSpec("O", clearance=1e-4, restitution=0.95, mu=0.0)])
        return cm.simulate((0.0, 3e-3), np.zeros(3), np.array([0.3, 0.4, 0.0]), rtol=1e-10, atol=1e-14)

    whole = run()
    monkeypatch.setattr(MI, "EPISODE_CHUNK", 1)
    from robolib.core import clearance as C
    monkeypatch.setattr(C, "integrate_compiled", MI.integrate_compiled)
    chunked = run()
    assert len(whole.episodes[0]) >= 4
    np.testing.assert_array_equal(np.array(chunked.episodes[0]), np.array(whole.episodes[0]))


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


@pytest.mark.parametrize("t", [0.0, 0.37, 1.2])
def test_kinematic_state_inverse_dynamics_and_virtual_power_by_hand(t):
    m = driven_crank()
    q_ref, qd_ref, qdd_ref, tau = crank_by_hand(t)
    q, qd, qdd = MS.kinematic_state(m, q_ref + 0.01, t)
    np.testing.assert_allclose(q, q_ref, atol=1e-12)
    np.testing.assert_allclose(qd, qd_ref, atol=1e-12)
    np.testing.assert_allclose(qdd, qdd_ref, atol=1e-10)
    lam = MS.inverse_dynamics(m, q, qd, qdd, t)
    assert MS.driving_torques(m, lam)["motor"] == pytest.approx(tau, rel=1e-10)
    assert MS.virtual_power_torques(m, q, qd, qdd, t)["motor"] == pytest.approx(tau, rel=1e-10)
    assert abs(tau) > 0.05


def test_virtual_power_of_a_free_body_with_one_motor_equals_the_multiplier():
    """A non-square Jacobian (1 row, 3 coordinates): the least-norm virtual velocity is the motor's own."""
    m = Mechanism([Body("a", 1.3, 0.2)], [Driver("d", "a", ConstantSpeed(0.1, 2.0))],
                  [PointSpringDamper("s", "a", (0.1, 0.05), (0.3, -0.2), stiffness=20.0, damping=0.4)])
    q, qd = np.array([0.05, -0.02, 0.1]), np.array([0.3, 0.1, 2.0])
    qdd, lam = m.accelerations(q, qd, 0.0, alpha=0.0, beta=0.0)
    assert MS.virtual_power_torques(m, q, qd, qdd, 0.0)["d"] == pytest.approx(-lam[0], rel=1e-12)
    g = m.applied_forces(q, qd)
    assert -lam[0] == pytest.approx(0.2 * qdd[2] - g[2], rel=1e-12)


def test_a_singular_square_jacobian_and_a_mechanism_without_constraints():
    m = Mechanism([Body("a", 1.0, 0.1)], [Driver("x1", "a", Constant(0.0), coord="x", motor=False),
                                          Driver("x2", "a", Constant(0.0), coord="x", motor=False),
                                          Driver("th", "a", Constant(0.3))])
    with pytest.raises(SingularityError, match="the constraint Jacobian is singular"):
        MS.kinematic_state(m, [0.1, 0.0, 0.2], 0.0)
    free = Mechanism([Body("a", 1.0, 0.1)], [])
    np.testing.assert_array_equal(MS.assemble(free, [0.1, 0.2, 0.3]), [0.1, 0.2, 0.3])
    # a guess already assembled is returned as it is (no Newton step)
    crank = driven_crank()
    q_ref = crank_by_hand(0.0)[0]
    q_ok = MS.assemble(crank, q_ref + 1e-3)
    assert MS.assemble(crank, q_ok) is not q_ok and np.array_equal(MS.assemble(crank, q_ok), q_ok)
    with pytest.raises(ParameterError, match="q_guess"):
        MS.assemble(crank, [0.0, 0.0])


def test_dopri5_counts_a_redone_step_and_grows_by_five_on_an_exact_step():
    calls = []

    def hook_once(t0, y0, f0, t1, y1, f1, dense):
        calls.append(t0)
        return len(calls) == 1                         # redo the first step once

    base = MI.dopri5(lambda t, y: -y, 0.0, np.array([1.0]), 1.0, rtol=1e-8, atol=1e-12)
    redo = MI.dopri5(lambda t, y: -y, 0.0, np.array([1.0]), 1.0, rtol=1e-8, atol=1e-12, step_hook=hook_once)
    assert redo.n_rejected == base.n_rejected + 1 and redo.n_steps == base.n_steps
    np.testing.assert_array_equal(redo.y, base.y)
    # y' = 0: every error estimate is exactly zero and each step is five times the last
    z = MI.dopri5(lambda t, y: 0.0 * y, 0.0, np.array([1.0]), 1.0, rtol=1e-6, atol=1e-9)
    steps = np.diff(z.t)
    assert steps[0] == 1e-6                            # a zero derivative: the fallback first step
    np.testing.assert_allclose(steps[1:5] / steps[:4], 5.0, rtol=1e-12)


def test_initial_step_by_hand():
    y, f = np.array([1e-10, 2.0]), np.array([1e-3, -4.0])
    sc = 1e-9 + 1e-6 * np.abs(y)
    d0, d1 = np.sqrt(np.mean((y / sc) ** 2)), np.sqrt(np.mean((f / sc) ** 2))
    assert MI.initial_step(y, f, 1e-6, 1e-9, 10.0) == pytest.approx(0.01 * d0 / d1, rel=1e-12)
    small = np.array([1e-10])
    assert MI.initial_step(small, np.array([1e-4]), 1e-6, 1e-9, 10.0) == pytest.approx(
        0.01 * (1e-10 / (1e-9 + 1e-16)) / (1e-4 / (1e-9 + 1e-16)), rel=1e-12)     # d0 < 1, still the ratio
    assert MI.initial_step(np.zeros(2), np.zeros(2), 1e-6, 1e-9, 10.0) == 1e-6
    assert MI.initial_step(np.ones(1), -np.ones(1), 1e-6, 1e-9, 10.0, h_max=1e-3) == 1e-3
    assert MI.initial_step(np.ones(1), -np.ones(1), 1e-6, 1e-9, 1e-4) == 1e-4


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
