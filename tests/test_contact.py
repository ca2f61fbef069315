"""Contact laws of robolib.contact against independent routes.

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

from robolib import ParameterError
from robolib import contact

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
