"""Contact laws (robolib.core.contact) against independent routes."""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

import numpy as np
import pytest
from fuzzing import budget, entry_point_tests, names

# ---- properties on random valid inputs ---------------------------------------------------------------------
from hypothesis import assume, given
from hypothesis import strategies as st
from scipy.integrate import solve_ivp

from robolib import (
    ParameterError,
    contact,
)
from robolib.core import params

# ----------------------------------------------------------------------------- contact physics through the simulator
# (issue 11) The checks below go through ClearanceModel (event handling, stored onset speed,
# contact kinematics, the compiled and numpy right-hand sides), not through the law alone,
# and compare with quantities computed here from first principles.
from robolib.core.clearance import ClearanceModel, ClearanceSpec
from robolib.core.multibody import Body, GroundPin, Mechanism, Pin, resolve_backend

# ==== contact laws against independent routes =======================================================================
#
# Contact laws of robolib.core.contact against independent routes.
#
# * stiffness: the textbook expression written out independently;
# * normal force: a single-mass impact integrated with scipy's solve_ivp -- the
#   rebound/approach speed ratio must reproduce the coefficient of restitution the
#   law was built for (LN for c_e near 1, Flores over a wide range), and plain
#   Hertz must be lossless; the elastic force is the gradient of the potential;
# * friction: ramp values, bounds and odd symmetry; scalar kernels == vector API.

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
        (dict(K=-1.0), names("K", "positive")),
        (dict(K=0.0), names("K", "positive")),
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



# ==== contact laws off their defaults ===============================================================================
#
# Contact laws off their defaults: checks that kill the mutants test_contact.py let live (make mutate).
#
# Each test names the property it checks; the expected values come from the laws as the papers write them
# (Lankarani--Nikravesh 1990, Flores et al. 2011, Ambrosio's ramp), from limits and symmetries, or from a
# second parameter set -- never from the current output of robolib.

K = 3.7e9   # N/m^1.5, an arbitrary stiffness (not the steel default)


@pytest.mark.parametrize("ce", [0.2, 0.55, 0.9, 1.0])
def test_hysteresis_factors_are_the_published_ones(ce):
    # Lankarani-Nikravesh: D = 3 (1 - c_e^2) / 4; Flores et al.: D = 8 (1 - c_e) / (5 c_e); Hertz: 0
    assert contact.hysteresis_factor(ce) == pytest.approx(0.75 * (1 - ce) * (1 + ce), rel=1e-15, abs=1e-300)
    assert contact.hysteresis_factor(ce, "flores") == pytest.approx(1.6 * (1 - ce) / ce, rel=1e-15, abs=1e-300)
    assert contact.hysteresis_factor(ce, "hertz") == 0.0


def test_perfectly_elastic_restitution_is_accepted_and_undamped():
    # c_e = 1 is the closed end of (0, 1]: every law is plain Hertz there
    for law in contact.LAWS:
        assert contact.hysteresis_factor(1.0, law) == 0.0
        assert contact.normal_force(2e-6, 0.3, 0.1, K, 1.0, law) == pytest.approx(K * 2e-6**1.5, rel=1e-14)
    with pytest.raises(ParameterError, match="restitution"):
        contact.hysteresis_factor(1.0 + 1e-12)


def test_hertz_law_needs_no_onset_speed():
    # without damping the onset speed does not enter: zero is a valid value for the Hertz law only
    assert contact.normal_force(1e-6, 0.2, 0.0, K, 0.5, "hertz") == pytest.approx(K * 1e-9, rel=1e-14)
    with pytest.raises(ParameterError, match="ddelta0"):
        contact.normal_force(1e-6, 0.2, 0.0, K, 0.5, "flores")


def test_damping_term_scales_with_speed_ratio_and_stiffness():
    # F = K d^1.5 (1 + D dd/dd0): linear in dd at fixed dd0, depends on dd/dd0 only, proportional to K
    d, ce = 3e-6, 0.7
    for law in ("lankarani_nikravesh", "flores"):
        D = contact.hysteresis_factor(ce, law)
        f = [contact.normal_force(d, dd, 0.25, K, ce, law) for dd in (0.0, 0.1, 0.2)]
        assert f[2] - f[1] == pytest.approx(f[1] - f[0], rel=1e-12)
        assert f[1] - f[0] == pytest.approx(K * d**1.5 * D * 0.1 / 0.25, rel=1e-12)
        assert contact.normal_force(d, 0.2, 0.5, K, ce, law) == pytest.approx(f[1], rel=1e-14)
        assert contact.normal_force(d, 0.1, 0.25, 2 * K, ce, law) == pytest.approx(2 * f[1], rel=1e-14)
        # the elastic part grows as delta^1.5: doubling the penetration multiplies it by 2^1.5
        assert contact.normal_force(2 * d, 0.0, 0.25, K, ce, law) == pytest.approx(2**1.5 * f[0], rel=1e-14)


def test_normal_force_clipped_at_zero_only_where_the_damping_pulls():
    # separating contact (dd < 0): F = K d^1.5 (1 + D dd/dd0) while positive, zero (not negative) beyond
    d, dd0, ce = 1e-6, 0.1, 0.5
    D = contact.hysteresis_factor(ce, "flores")                  # 1.6
    dd = np.array([-0.01, -0.05, -1 / D * dd0 * 0.999, -1 / D * dd0 * 1.001, -0.2])
    F = contact.normal_force(d, dd, dd0, K, ce, "flores")
    expected = K * d**1.5 * (1 + D * dd / dd0)
    np.testing.assert_allclose(F[:3], expected[:3], rtol=1e-12)
    assert F[2] > 0.0 and np.all(F[3:] == 0.0)


def test_scalar_normal_kernel_on_boundaries():
    D = contact.hysteresis_factor(0.6)
    assert contact._normal_force_scalar(0.0, 0.1, 0.1, K, D) == 0.0
    assert contact._normal_force_scalar(-1e-9, 0.1, 0.1, K, D) == 0.0
    assert contact._normal_force_scalar(1.0, 0.0, 1.0, 1.0, D) == 1.0               # K d^1.5 at d = K = 1
    assert contact._normal_force_scalar(4e-6, -0.1, 0.1, K, 1.0) == 0.0            # 1 + D dd/dd0 = 0: no pull
    assert contact._normal_force_scalar(4e-6, 0.05, 0.1, K, D) == pytest.approx(K * 8e-9 * (1 + 0.5 * D), rel=1e-14)


def test_poisson_ratio_bounds_are_open():
    args = [5.1e-3, 5e-3, 2e11, 0.3, 2e11, 0.3]
    for i, name in ((3, "nu_bearing"), (5, "nu_journal")):
        for nu in (0.5, -1.0, 0.7, -1.5):
            bad = list(args)
            bad[i] = nu
            with pytest.raises(ParameterError, match=name):
                contact.hertz_stiffness(*bad)
        ok = list(args)
        ok[i] = 0.0      # nu = 0: sigma = 1/E
        assert np.isfinite(contact.hertz_stiffness(*ok))


def test_stiffness_of_an_auxetic_journal_and_sub_unit_radii():
    # sigma = (1 - nu^2)/E per body; a negative Poisson ratio enters squared. Radii in mm-scale and a
    # clearance of 1 um: K = 4/(3 sigma) sqrt(Rb Rj / c)
    Rb, Rj, Eb, nub, Ej, nuj = 2.001e-3, 2.0e-3, 110e9, 0.34, 3e9, -0.4
    sigma = (1 - nub**2) / Eb + (1 - nuj**2) / Ej
    assert contact.hertz_stiffness(Rb, Rj, Eb, nub, Ej, nuj) == pytest.approx(
        4 / (3 * sigma) * math.sqrt(Rb * Rj / (Rb - Rj)), rel=1e-12)
    # batches broadcast and stay arrays
    K2 = contact.hertz_stiffness(np.array([Rb, 2 * Rb]), np.array([Rj, 2 * Rj]), Eb, nub, Ej, nuj)
    assert K2.shape == (2,) and K2[1] == pytest.approx(math.sqrt(2) * K2[0], rel=1e-12)


def test_ramp_is_linear_between_its_ends_and_exact_at_them():
    v0, v1 = 2e-4, 1.2e-3
    s = np.array([0.0, v0, v0 + 0.25 * (v1 - v0), 0.5 * (v0 + v1), v1, 2 * v1])
    cd = contact.friction_coefficient_ramp(s, v0, v1)
    np.testing.assert_allclose(cd, [0.0, 0.0, 0.25, 0.5, 1.0, 1.0], atol=1e-15)
    np.testing.assert_allclose(contact.friction_coefficient_ramp(-s, v0, v1), cd, atol=0)    # depends on |v_t|
    # v0 = 0 is allowed (the ramp starts at rest); v0 = v1 is not (no ramp)
    assert contact.friction_coefficient_ramp(0.5e-3, 0.0, 1e-3) == pytest.approx(0.5)
    for v0_, v1_ in ((1e-3, 1e-3), (-1e-4, 1e-3), (0.0, 0.0)):
        with pytest.raises(ParameterError):
            contact.friction_coefficient_ramp(1e-3, v0_, v1_)


def test_tangential_force_values_with_a_second_parameter_set():
    mu, v0, v1 = 0.35, 0.0, 2e-3
    Fn = np.array([0.0, 1.0, 40.0])
    for vt in (-5e-3, -1e-3, 5e-4, 3e-3):
        cd = min(abs(vt) / v1, 1.0)
        np.testing.assert_allclose(contact.tangential_force(Fn, vt, mu, v0, v1), -mu * cd * Fn * np.sign(vt),
                                   rtol=1e-14, atol=0)
        for f in Fn:
            for m in (0.0, 1.0, mu):
                assert contact._tangential_force_scalar(f, vt, m, v0, v1) == pytest.approx(
                    -m * cd * f * np.sign(vt), rel=1e-14, abs=0)
    # exactly at rest with v0 = 0: no friction force
    assert contact._tangential_force_scalar(10.0, 0.0, mu, 0.0, v1) == 0.0
    assert contact.tangential_force(10.0, 0.0, mu, 0.0, v1) == 0.0
    with pytest.raises(ParameterError, match="F_n"):
        contact.tangential_force(-1.0, 1e-3, mu, v0, v1)


def test_contact_potential_values_and_zero_outside_contact():
    d = np.array([-1e-6, 0.0, 1e-6, 4e-6])
    np.testing.assert_allclose(contact.contact_potential(d, K), 0.4 * K * np.clip(d, 0, None) ** 2.5, rtol=1e-14, atol=0)
    assert contact.contact_potential(4e-6, 0.0) == 0.0          # K = 0 allowed: no energy stored
    with pytest.raises(ParameterError, match="K"):
        contact.contact_potential(1e-6, -1.0)


def test_scalars_in_give_python_floats_out_and_arrays_keep_their_shape():
    K0 = contact.hertz_stiffness(5.1e-3, 5.0e-3, 2e11, 0.3, 2e11, 0.3)
    scalars = [K0, contact.normal_force(1e-6, 0.1, 0.1, K, 0.9), contact.friction_coefficient_ramp(5e-4, 1e-4, 1e-3),
               contact.tangential_force(10.0, 5e-4, 0.1, 1e-4, 1e-3), contact.contact_potential(1e-6, K)]
    assert all(type(x) is float for x in scalars)
    d = np.array([[1e-6, 2e-6, 3e-6]])
    assert contact.normal_force(d, 0.1, 0.1, K, 0.9).shape == (1, 3)
    assert contact.friction_coefficient_ramp(d, 1e-7, 1e-5).shape == (1, 3)
    assert contact.tangential_force(10.0, d, 0.1, 1e-7, 1e-5).shape == (1, 3)
    assert contact.contact_potential(d, K).shape == (1, 3)


@pytest.mark.parametrize("call, message", [
    (lambda: contact.hertz_stiffness(-5.1e-3, 5e-3, 2e11, 0.3, 2e11, 0.3), r"R_bearing.*\(m\)"),
    (lambda: contact.hertz_stiffness(5.1e-3, 5e-3, 2e11, 0.3, -2e11, 0.3), r"E_journal.*Pa"),
    (lambda: contact.normal_force(1e-6, 0.1, 0.1, -K, 0.9), r"K.*N/m\^1\.5"),
    (lambda: contact.friction_coefficient_ramp(1e-3, -1e-4, 1e-3), r"v0.*m/s"),
    (lambda: contact.friction_coefficient_ramp(1e-3, 0.0, -1e-3), r"v1.*m/s"),
    (lambda: contact.tangential_force(-1.0, 1e-3, 0.1, 1e-4, 1e-3), r"F_n.*\(N\)"),
    (lambda: contact.contact_potential(1e-6, -K), r"K.*N/m\^1\.5"),
])
def test_errors_name_the_argument_and_its_unit(call, message):
    with pytest.raises(ParameterError, match=message):
        call()



# ==== contact laws name a bad argument; force and energy on random impacts ==========================================
#
# Every public entry point fuzzed: a bad argument gets a RobolibError that names it, never a bare error.
#
# For each entry point the table gives a valid call and, per argument, the kind of value it takes
# (see tests/fuzzing.py). Hypothesis draws a bad value of that kind (NaN, +-inf, zero or a negative
# number where the field is positive, text, None, a bool for a number, an empty or wrongly shaped
# array, a float for a count) and the call must raise a :class:`robolib.RobolibError` whose message
# names the argument -- not a bare Python/numpy error, not a silent NaN, not a result. Failures
# shrink to the simplest bad value. The rows of this table are split by module (contact here, friction,
# constraints, params, files in their own test files); tests/<package>/test_entry_points.py the packages.

# ---- the entry points: (callable, valid keyword arguments, {argument: kind}) -------------------------
SCHEMA = {"mass": params.number(unit="kg", positive=True), "com": params.vector(2, unit="m")}


FLAG = st.sampled_from([None, 1, 0.0, "yes", "False"])          # a flag is True or False, nothing else


FIELD_UNIT = st.sampled_from([3.0, True, ["m"]])                 # a unit is text (or None)


OUT = Path(tempfile.mkdtemp(prefix="robolib-fuzz-files-"))       # the file rows write here


ENTRY_POINTS = {
    "contact.hertz_stiffness": (contact.hertz_stiffness, dict(R_bearing=0.0101, R_journal=0.01, E_bearing=2e11,
                                                              nu_bearing=0.3, E_journal=2e11, nu_journal=0.3),
                                {"R_bearing": "positive*", "R_journal": "positive*", "E_bearing": "positive*",
                                 "E_journal": "positive*", "nu_bearing": "real*", "nu_journal": "real*"}),
    "contact.normal_force": (contact.normal_force, dict(delta=1e-6, ddelta=0.1, ddelta0=0.1, K=1e10, restitution=0.9),
                             {"delta": "array", "ddelta": "array", "ddelta0": "positive*", "K": "positive*",
                              "restitution": "positive"}),
    "contact.tangential_force": (contact.tangential_force, dict(F_n=10.0, v_t=0.1, mu=0.1, v0=1e-4, v1=1e-3),
                                 {"F_n": "nonnegative*", "v_t": "array", "mu": "nonnegative*", "v0": "nonnegative",
                                  "v1": "positive"}),
    "contact.hysteresis_factor": (contact.hysteresis_factor, dict(restitution=0.9, law="flores"),
                                  {"restitution": "positive", "law": st.sampled_from(["", "Hertz", None, 1.0])}),
    "contact.friction_coefficient_ramp": (contact.friction_coefficient_ramp, dict(v_t=np.array([0.0, 5e-4]), v0=1e-4,
                                                                                  v1=1e-3),
                                          {"v_t": "array", "v0": "nonnegative", "v1": "positive"}),
    "contact.contact_potential": (contact.contact_potential, dict(delta=np.array([1e-6, -1e-6]), K=1e10),
                                  {"delta": "array", "K": "nonnegative*"}),
}


test_every_valid_call_works, test_a_bad_argument_is_named = entry_point_tests(ENTRY_POINTS)


@pytest.mark.fuzz
@budget(40)
@given(d1=st.floats(1e-9, 1e-3), d2=st.floats(1e-9, 1e-3), K=st.floats(1e8, 1e12), ce=st.floats(0.3, 1.0),
       law=st.sampled_from(list(contact.LAWS)))
def test_contact_force_grows_with_the_penetration(d1, d2, K, ce, law):
    """At the same penetration speed ratio, a deeper penetration gives a larger force; none is adhesive."""
    assume(d1 < d2)
    f1, f2 = (contact.normal_force(d, 0.05, 0.1, K, ce, law) for d in (d1, d2))
    assert 0.0 < f1 < f2
    assert contact.normal_force(-d1, 0.05, 0.1, K, ce, law) == 0.0


def _impact(m, K, v_in, ce, law):
    """A mass m [kg] hitting the contact at v_in [m/s]: the rebound speed and the energy at the deepest point."""
    def rhs(t, y):
        d, v = y
        return [v, -contact.normal_force(d, v, v_in, K, ce, law) / m if d > 0 else 0.0]

    def leaves(t, y):
        return y[0] + 1e-15
    leaves.terminal, leaves.direction = True, -1
    t_c = 10 * (m ** 2 / (K ** 2 * v_in)) ** 0.2          # a few contact durations (Hertz scaling)
    sol = solve_ivp(rhs, (0.0, t_c), [0.0, v_in], events=leaves, rtol=1e-11, atol=1e-16, max_step=t_c / 200)
    assert sol.t_events[0].size, "the mass leaves the contact"
    k = int(np.argmax(sol.y[0]))
    return -sol.y_events[0][0][1], contact.contact_potential(sol.y[0][k], K) + 0.5 * m * sol.y[1][k] ** 2


@pytest.mark.fuzz
@budget(12)
@given(m=st.floats(0.05, 5.0), K=st.floats(1e9, 1e11), v_in=st.floats(0.01, 1.0), law=st.sampled_from(list(contact.LAWS)))
def test_a_lossless_impact_conserves_energy(m, K, v_in, law):
    """Restitution 1 (no hysteresis): the mass rebounds at its impact speed; at the deepest point the elastic
    energy 2/5 K delta^2.5 holds the kinetic energy it came in with."""
    v_out, e_deep = _impact(m, K, v_in, 1.0, law)
    assert abs(v_out - v_in) < 1e-6 * v_in
    assert abs(e_deep - 0.5 * m * v_in ** 2) < 1e-6 * 0.5 * m * v_in ** 2


@pytest.mark.fuzz
@budget(12)
@given(m=st.floats(0.05, 5.0), K=st.floats(1e9, 1e11), v_in=st.floats(0.01, 1.0), ce=st.floats(0.5, 0.95),
       law=st.sampled_from(["lankarani_nikravesh", "flores"]))
def test_a_dissipative_impact_loses_energy(m, K, v_in, ce, law):
    v_out, _ = _impact(m, K, v_in, ce, law)
    assert 0.0 < v_out < v_in


#: Bad content of a parameter file and what the error names: the field, or the top level.
BAD_DATA = [(None, "top level"), (3.0, "top level"), ("x", "top level"), ([1.0], "top level"),
            ({"mass": -2.0, "com": [0.1, 0.0]}, "field 'mass'"), ({"mass": float("nan"), "com": [0.1, 0.0]}, "field 'mass'"),
            ({"mass": True, "com": [0.1, 0.0]}, "field 'mass'"), ({"mass": 2.0}, "field 'com'"),
            ({"mass": 2.0, "com": [0.1]}, "field 'com'"), ({"mass": 2.0, "com": [0.1, "a"]}, "field 'com'"),
            ({"mass": 2.0, "com": [0.1, 0.0], "extra": 1}, "field 'extra'")]
