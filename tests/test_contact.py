"""Contact laws of robolib.core.contact against independent routes.

* stiffness: the textbook expression written out independently;
* normal force: a single-mass impact integrated with scipy's solve_ivp -- the
  rebound/approach speed ratio must reproduce the coefficient of restitution the
  law was built for (LN for c_e near 1, Flores over a wide range), and plain
  Hertz must be lossless; the elastic force is the gradient of the potential;
* friction: ramp values, bounds and odd symmetry; scalar kernels == vector API.
"""

import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from robolib import ParameterError, contact

K_STEEL = contact.hertz_stiffness(5.1e-3, 5.0e-3, 207e9, 0.3, 207e9, 0.3)


def test_hertz_stiffness_matches_formula_and_is_symmetric():
    Rb, Rj, E1, n1, E2, n2 = 10.5e-3, 10.0e-3, 207e9, 0.3, 70e9, 0.33
    sigma1, sigma2 = (1 - n1**2) / E1, (1 - n2**2) / E2
    expected = (4.0 / 3.0) / (sigma1 + sigma2) * math.sqrt(Rb * Rj / (Rb - Rj))
    K = contact.hertz_stiffness(Rb, Rj, E1, n1, E2, n2)
    assert K == pytest.approx(expected, rel=1e-14)
    assert contact.hertz_stiffness(Rb, Rj, E2, n2, E1, n1) == pytest.approx(K, rel=1e-14)
    # smaller clearance -> stiffer contact, K ~ c^-1/2 at fixed journal radius
    K2 = contact.hertz_stiffness(Rj + 0.25 * (Rb - Rj), Rj, E1, n1, E2, n2)
    assert K2 / K == pytest.approx(math.sqrt(4 * (Rj + 0.25 * (Rb - Rj)) / Rb), rel=1e-12)


@pytest.mark.parametrize(
    "args, match",
    [
        ((5e-3, 5e-3, 2e11, 0.3, 2e11, 0.3), "R_journal"),
        ((5e-3, 6e-3, 2e11, 0.3, 2e11, 0.3), "R_journal"),
        ((5.1e-3, 5e-3, -2e11, 0.3, 2e11, 0.3), "E_bearing"),
        ((5.1e-3, 5e-3, 2e11, 0.3, 0.0, 0.3), "E_journal"),
        ((5.1e-3, 5e-3, 2e11, 0.7, 2e11, 0.3), "nu_bearing"),
        ((-5.1e-3, 5e-3, 2e11, 0.3, 2e11, 0.3), "R_bearing"),
    ],
)
def test_hertz_stiffness_bad_input(args, match):
    with pytest.raises(ParameterError, match=match):
        contact.hertz_stiffness(*args)


def test_normal_force_zero_without_penetration_and_hertz_at_rest():
    d = np.array([-1e-5, 0.0, 1e-7, 1e-6])
    for law in contact.LAWS:
        F = contact.normal_force(d, 0.05, 0.1, K_STEEL, 0.8, law=law)
        assert F[0] == 0.0 and F[1] == 0.0
        # at zero penetration speed every law reduces to Hertz
        np.testing.assert_allclose(F[2:], K_STEEL * d[2:] ** 1.5 * (1 + contact.hysteresis_factor(0.8, law) * 0.5),
                                   rtol=1e-13)
        F0 = contact.normal_force(d, 0.0, 0.1, K_STEEL, 0.8, law=law)
        np.testing.assert_allclose(F0[2:], K_STEEL * d[2:] ** 1.5, rtol=1e-13)


def test_normal_force_never_adhesive():
    # strongly separating grazing contact: the damping term would pull
    F = contact.normal_force(1e-7, -1.0, 1e-4, K_STEEL, 0.5, law="flores")
    assert F == 0.0


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(K=-1.0), "K must be positive"),
        (dict(K=0.0), "K must be positive"),
        (dict(restitution=0.0), "restitution"),
        (dict(restitution=1.2), "restitution"),
        (dict(law="kelvin"), "law"),
        (dict(ddelta0=0.0), "ddelta0"),
    ],
)
def test_normal_force_bad_input(kwargs, match):
    args = dict(delta=1e-6, ddelta=0.1, ddelta0=0.1, K=K_STEEL, restitution=0.9)
    args.update(kwargs)
    with pytest.raises(ParameterError, match=match):
        contact.normal_force(**args)


def test_elastic_force_is_gradient_of_potential():
    d = np.array([1e-7, 5e-7, 2e-6])
    h = 1e-12
    dV = (contact.contact_potential(d + h, K_STEEL) - contact.contact_potential(d - h, K_STEEL)) / (2 * h)
    np.testing.assert_allclose(dV, contact.normal_force(d, 0.0, 1.0, K_STEEL, 1.0, law="hertz"), rtol=1e-6)


def _impact_restitution(law, ce, v_in=0.1, m=0.2, K=K_STEEL):
    """Drop a point mass onto the Hertz contact; return rebound/approach speed."""
    D = contact.hysteresis_factor(ce, law)

    def rhs(t, y):
        x, v = y  # x = penetration, v = d x / dt
        return [v, -contact._normal_force_scalar(x, v, v_in, K, D) / m]

    def leave(t, y):
        return y[0] if t > 0 else -1.0

    leave.terminal, leave.direction = True, -1
    # start at contact onset with the approach speed
    sol = solve_ivp(rhs, (0, 1e-2), [0.0, v_in], events=leave, rtol=1e-11, atol=1e-16, max_step=1e-6)
    assert sol.status == 1, "contact did not end"
    return -sol.y_events[0][0][1] / v_in


def test_hertz_impact_is_lossless():
    assert _impact_restitution("hertz", 1.0) == pytest.approx(1.0, abs=1e-6)


def test_lankarani_nikravesh_reproduces_restitution_near_one():
    # LN is derived for c_e close to 1: the error shrinks as c_e -> 1
    errs = [abs(_impact_restitution("lankarani_nikravesh", ce) - ce) for ce in (0.9, 0.95, 0.99)]
    assert errs[0] < 0.015 and errs[1] < 0.005 and errs[2] < 0.0005
    assert errs[0] > errs[1] > errs[2]


def test_flores_reproduces_restitution_over_a_wide_range():
    for ce in (0.99, 0.9, 0.7, 0.5):
        assert _impact_restitution("flores", ce) == pytest.approx(ce, abs=0.035)
    # and LN is (as known) too soft for low restitution: it dissipates less
    assert _impact_restitution("lankarani_nikravesh", 0.5) > 0.6


def test_tangential_force_ramp_bounds_and_symmetry():
    mu, v0, v1, Fn = 0.1, 1e-4, 1e-3, 20.0
    v = np.linspace(-3e-3, 3e-3, 601)
    Ft = contact.tangential_force(Fn, v, mu, v0, v1)
    assert np.all(np.abs(Ft) <= mu * Fn + 1e-15)
    np.testing.assert_allclose(Ft, -contact.tangential_force(Fn, -v, mu, v0, v1), atol=1e-15)
    assert np.all(Ft * v <= 0.0)                        # always dissipative
    assert np.all(Ft[np.abs(v) <= v0] == 0.0)
    np.testing.assert_allclose(Ft[np.abs(v) >= v1], -mu * Fn * np.sign(v[np.abs(v) >= v1]), rtol=1e-15)
    mid = 0.55e-3
    assert contact.tangential_force(Fn, mid, mu, v0, v1) == pytest.approx(-mu * Fn * (mid - v0) / (v1 - v0))


def test_tangential_force_bad_input():
    with pytest.raises(ParameterError, match="v0 < v1"):
        contact.tangential_force(1.0, 0.1, 0.1, 1e-3, 1e-4)
    with pytest.raises(ParameterError, match="mu"):
        contact.tangential_force(1.0, 0.1, -0.1, 1e-4, 1e-3)


def test_scalar_kernels_match_vector_api():
    rng = np.random.default_rng(7)
    for _ in range(200):
        d = rng.uniform(-2e-6, 5e-6)
        dd = rng.uniform(-0.2, 0.2)
        d0 = rng.uniform(1e-4, 0.2)
        ce = rng.uniform(0.3, 1.0)
        law = contact.LAWS[rng.integers(3)]
        F = contact.normal_force(d, dd, d0, K_STEEL, ce, law)
        Fs = contact._normal_force_scalar(d, dd, d0, K_STEEL, contact.hysteresis_factor(ce, law))
        assert Fs == pytest.approx(F, rel=1e-13, abs=1e-300)
        vt = rng.uniform(-2e-3, 2e-3)
        assert contact._tangential_force_scalar(F, vt, 0.05, 1e-4, 1e-3) == pytest.approx(
            contact.tangential_force(F, vt, 0.05, 1e-4, 1e-3), rel=1e-13, abs=1e-300)


# ----------------------------------------------------------------------------- contact physics through the simulator
# (issue 11) The checks below go through ClearanceModel (event handling, stored onset speed,
# contact kinematics, the compiled and numpy right-hand sides), not through the law alone,
# and compare with quantities computed here from first principles.
from robolib.core.clearance import ClearanceModel, ClearanceSpec  # noqa: E402
from robolib.core.multibody import Body, GroundPin, Mechanism, Pin, resolve_backend  # noqa: E402

BACKENDS = ["numpy"] + (["numba"] if resolve_backend("auto") == "numba" else [])


def _free_disc_impact(backend, law="lankarani_nikravesh", ce=0.9, v=(0.3, 0.4), c=1e-4):
    """A free disc (journal) leaves the centre of a ground bearing with velocity v and hits the wall once."""
    mech = Mechanism([Body("disc", 1.0, 1e-4)], [GroundPin("O", "disc", (0.0, 0.0), (0.0, 0.0))])
    cm = ClearanceModel(mech, [ClearanceSpec("O", clearance=c, restitution=ce, law=law, mu=0.0)])
    vv = np.array(v, float)
    speed = float(np.hypot(*vv))
    t_end = 3.0 * c / speed                 # through the impact (about 0.2 ms), before the next one
    r = cm.simulate((0.0, t_end), np.zeros(3), np.array([vv[0], vv[1], 0.0]), rtol=1e-10, atol=1e-14,
                    t_eval=[t_end], backend=backend)
    return cm, r, speed


@pytest.mark.parametrize("backend", BACKENDS)
def test_isolated_impact_restitution_and_stored_onset_speed(backend):
    cm, r, speed = _free_disc_impact(backend)
    assert len(r.episodes[0]) == 1
    t_on, t_off, d0 = r.episodes[0][0]
    # first contact where the straight free flight reaches |e| = c, with the approach speed
    assert t_on == pytest.approx(1e-4 / speed, rel=1e-9)
    assert d0 == pytest.approx(speed, rel=1e-9)          # stored onset speed = normal speed at contact
    assert d0 > 100 * cm.specs[0].ddelta0_floor
    # after the impact: back in free flight, moving towards the centre; exit/entry normal speed ratio ~ c_e
    kin = cm.contact_kinematics(r.q, r.qd)
    assert kin["delta"][0, -1] < 0
    v_out = float(np.hypot(*r.qd[-1, :2]))
    assert v_out / speed == pytest.approx(0.9, abs=0.015)
    assert 0 < t_off - t_on < 5e-4     # Hertz contact time of a 1 kg disc at 0.5 m/s: about 0.2 ms


@pytest.mark.parametrize("backend", BACKENDS)
def test_isolated_impact_flores_low_restitution(backend):
    cm, r, speed = _free_disc_impact(backend, law="flores", ce=0.5, v=(-0.2, 0.1))
    assert r.episodes[0][0][2] == pytest.approx(speed, rel=1e-9)
    assert np.hypot(*r.qd[-1, :2]) / speed == pytest.approx(0.5, abs=0.035)


def _two_body_contact(c=5e-4, mu=0.1):
    """Two free bodies joined by a clearance pin (bearing on body a, journal on body b), in contact."""
    mech = Mechanism([Body("a", 0.3, 2e-3), Body("b", 0.2, 1e-3)],
                     [Pin("P", "a", (0.05, 0.01), "b", (-0.04, 0.02))])
    cm = ClearanceModel(mech, [ClearanceSpec("P", clearance=c, mu=mu, v0=1e-4, v1=5e-2)])
    q = np.array([0.01, -0.02, 0.3, 0.0, 0.0, -0.7])
    # place b so that its pin point sits at e = (c + 2 um) (cos 40 deg, sin 40 deg) from a's pin point
    Pa = mech.point_position(q, "a", (0.05, 0.01))
    e = (c + 2e-6) * np.array([math.cos(0.7), math.sin(0.7)])
    q[3:5] = Pa + e - (mech.point_position(q, "b", (-0.04, 0.02)) - q[3:5])   # r_b = P_a + e - A_b s_b
    qd = np.array([0.02, -0.01, 3.0, -0.01, 0.03, 7.0])
    return mech, cm, q, qd


def _contact_point_slip(mech, cm, q, qd):
    """Independent slip: velocities of the two material contact points (finite differences of positions)."""
    spec = cm.specs[0]
    RB, RJ = spec.R_bearing_value, spec.R_journal_value
    Pa = mech.point_position(q, "a", (0.05, 0.01))
    Pb = mech.point_position(q, "b", (-0.04, 0.02))
    n = (Pb - Pa) / np.linalg.norm(Pb - Pa)
    t = np.array([-n[1], n[0]])

    def local(body, Q):  # body-frame coordinates of the material point at global Q
        k = mech.coordinate(body, "x")
        th = q[k + 2]
        d = Q - q[k:k + 2]
        return (math.cos(th) * d[0] + math.sin(th) * d[1], -math.sin(th) * d[0] + math.cos(th) * d[1])

    sa, sb = local("a", Pa + RB * n), local("b", Pb + RJ * n)
    h = 1e-7
    vel = lambda body, s: (mech.point_position(q + h * qd, body, s) - mech.point_position(q - h * qd, body, s)) / (2 * h)  # noqa: E731
    return float((vel("b", sb) - vel("a", sa)) @ t), n, t


def test_tangential_slip_equals_contact_point_velocities():
    mech, cm, q, qd = _two_body_contact()
    vt_ref, n, t = _contact_point_slip(mech, cm, q, qd)
    kin = cm.contact_kinematics(q, qd)
    assert kin["delta"][0] > 0
    assert kin["v_t"][0] == pytest.approx(vt_ref, rel=1e-6, abs=1e-9)
    # the slip is of the order where R_J vs R_B matters: (w_a + w_b) c is a large part of it
    assert abs((qd[2] + qd[5]) * cm.specs[0].clearance) > 0.2 * abs(vt_ref)


@pytest.mark.parametrize("backend", BACKENDS)
def test_contact_force_of_the_right_hand_side_from_first_principles(backend):
    """No constraint rows are left, so M qdd is the contact force itself: compare with the law."""
    mech, cm, q, qd = _two_body_contact()
    assert cm.reduced.m == 0
    vt_ref, n, t = _contact_point_slip(mech, cm, q, qd)
    spec = cm.specs[0]
    cm.ddelta0[:] = 0.05
    Pa = mech.point_position(q, "a", (0.05, 0.01))
    Pb = mech.point_position(q, "b", (-0.04, 0.02))
    eps = np.linalg.norm(Pb - Pa)
    h = 1e-7
    dd = (np.linalg.norm(mech.point_position(q + h * qd, "b", (-0.04, 0.02)) - mech.point_position(q + h * qd, "a", (0.05, 0.01)))
          - np.linalg.norm(mech.point_position(q - h * qd, "b", (-0.04, 0.02)) - mech.point_position(q - h * qd, "a", (0.05, 0.01)))) / (2 * h)
    Fn = contact.normal_force(eps - spec.clearance, dd, 0.05, spec.K, spec.restitution)
    Ft = contact.tangential_force(Fn, vt_ref, spec.mu, spec.v0, spec.v1)
    assert 0 < abs(Ft) < spec.mu * Fn            # inside the friction ramp: F_t proportional to the slip
    y = np.concatenate([q, qd, [0.0, 0.0]])
    qdd = cm.rhs(backend)(0.0, y)[6:12]
    g = cm.reduced.mass_diag * qdd                 # generalised contact forces
    f_b = g[3:5]                                   # force on the journal body
    assert f_b @ (-n) == pytest.approx(Fn, rel=1e-6)
    assert f_b @ t == pytest.approx(Ft, rel=1e-5)
    np.testing.assert_allclose(g[0:2], -f_b, rtol=1e-12)   # equal and opposite on the bearing
    # moments about each centre of mass: the force acts at the contact points
    Qb = Pb + spec.R_journal_value * n
    Qa = Pa + spec.R_bearing_value * n
    cross = lambda r, f: r[0] * f[1] - r[1] * f[0]  # noqa: E731
    assert g[5] == pytest.approx(cross(Qb - q[3:5], f_b), rel=1e-6)
    assert g[2] == pytest.approx(cross(Qa - q[0:2], -f_b), rel=1e-6)
