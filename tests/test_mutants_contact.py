"""Contact laws off their defaults: checks that kill the mutants test_contact.py let live (make mutate).

Each test names the property it checks; the expected values come from the laws as the papers write them
(Lankarani--Nikravesh 1990, Flores et al. 2011, Ambrosio's ramp), from limits and symmetries, or from a
second parameter set -- never from the current output of robolib.
"""

import math

import numpy as np
import pytest

from robolib import ParameterError, contact

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
