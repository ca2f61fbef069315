"""Joint-friction laws off their defaults: checks that kill the mutants test_friction.py let live (make mutate).

Expected values are the laws written out (Coulomb, viscous, Stribeck), their limits, and the RMS
calibration's own definition -- with parameter sets that break the defaults' coincidences
(T_s != 1.5 T_c, w_s != 0.1 rad/s, non-zero viscous term, non-zero eps).
"""

import numpy as np
import pytest

from robolib import ParameterError
from robolib import friction as fr

W = np.array([-2.0, -0.3, -0.05, -1e-3, 0.0, 2e-3, 0.04, 0.25, 1.5])


def test_smooth_sign_is_tanh_of_w_over_eps():
    for eps in (0.02, 0.5, 3.0):
        np.testing.assert_allclose(fr.smooth_sign(W, eps), np.tanh(W / eps), rtol=1e-15, atol=0)
    assert fr.smooth_sign(0.0, 0.0) == 0.0 and fr.smooth_sign(-3.0, 0.0) == -1.0


def test_coulomb_and_viscous_values():
    for eps in (0.0, 0.03):
        s = np.sign(W) if eps == 0 else np.tanh(W / eps)
        np.testing.assert_allclose(fr.coulomb(W, 0.7, eps), -0.7 * s, rtol=1e-15, atol=0)
    np.testing.assert_allclose(fr.viscous(W, 0.3), -0.3 * W, rtol=1e-15, atol=0)
    # zero levels are valid and give no torque
    assert np.all(fr.coulomb(W, 0.0, 0.01) == 0.0) and np.all(fr.viscous(W, 0.0) == 0.0)


def test_coulomb_load_uses_both_force_components_and_the_radius():
    F = np.array([[3.0, 4.0], [0.0, -2.0], [-1.5, 0.0], [6.0, -8.0]])
    w = np.array([1.0, -1.0, 0.5, -0.2])
    tau = fr.coulomb_load(w, F, mu=0.25, radius=0.02, eps=0.0)
    np.testing.assert_allclose(tau, -0.25 * 0.02 * np.array([5.0, 2.0, 1.5, 10.0]) * np.sign(w), rtol=1e-15)
    tau_s = fr.coulomb_load(w, F, mu=0.25, radius=0.02, eps=0.4)
    np.testing.assert_allclose(tau_s, -0.25 * 0.02 * np.array([5.0, 2.0, 1.5, 10.0]) * np.tanh(w / 0.4), rtol=1e-14)
    with pytest.raises(ParameterError, match="force"):
        fr.coulomb_load(1.0, [[1.0], [2.0]], mu=0.1, radius=0.01, eps=0.0)


def test_stribeck_law_with_a_second_parameter_set():
    Tc, Ts, ws, bv, eps = 0.04, 0.13, 0.35, 0.021, 0.015
    expected = -(Tc + (Ts - Tc) * np.exp(-((W / ws) ** 2))) * np.tanh(W / eps) - bv * W
    np.testing.assert_allclose(fr.stribeck(W, Tc, Ts, ws, bv, eps), expected, rtol=1e-14, atol=1e-18)
    # T_s = T_c: plain Coulomb plus viscous, whatever w_s
    np.testing.assert_allclose(fr.stribeck(W, Tc, Tc, ws, bv, eps), fr.coulomb(W, Tc, eps) + fr.viscous(W, bv),
                               rtol=1e-14, atol=1e-18)
    # the default arguments are no viscous term and the exact sign
    np.testing.assert_allclose(fr.stribeck(W, Tc, Ts, ws), -(Tc + (Ts - Tc) * np.exp(-((W / ws) ** 2))) * np.sign(W),
                               rtol=1e-14, atol=0)


def test_stribeck_bad_levels_and_zero_levels():
    with pytest.raises(ParameterError, match="'coulomb_torque'"):
        fr.stribeck(1.0, -0.1, 0.15, 0.1)
    with pytest.raises(ParameterError, match="'viscous'"):
        fr.stribeck(1.0, 0.1, 0.15, 0.1, viscous=-0.01)
    with pytest.raises(ParameterError, match="'eps'"):
        fr.stribeck(1.0, 0.1, 0.15, 0.1, eps=-0.01)
    assert fr.stribeck(0.3, 0.0, 0.0, 0.1) == 0.0


@pytest.mark.parametrize("ratio, ws, bv, eps", [(1.0, 0.2, 0.004, 0.0), (2.5, 0.05, 0.0, 0.02), (1.3, 0.6, 0.01, 0.1)])
def test_rms_level_gives_the_target_rms(ratio, ws, bv, eps):
    w = np.random.default_rng(11).standard_normal(301) * 0.5
    target = 0.03
    Tc = fr.stribeck_level_for_rms(w, target, ratio, ws, bv, eps)
    rms = np.sqrt(np.mean(fr.stribeck(w, Tc, ratio * Tc, ws, bv, eps) ** 2))
    assert rms == pytest.approx(target, rel=1e-12)
    assert Tc > 0


def test_rms_level_defaults():
    # defaults: static_ratio 1.5, stribeck_velocity 0.1 rad/s, no viscous term, exact sign
    w = np.array([0.05, -0.2, 0.1])
    Tc = fr.stribeck_level_for_rms(w, 0.02)
    g = (1 + 0.5 * np.exp(-((w / 0.1) ** 2)))
    assert Tc == pytest.approx(0.02 / np.sqrt(np.mean(g**2)), rel=1e-13)


def test_rms_level_refuses_what_has_no_level():
    with pytest.raises(ParameterError, match="every joint rate is zero"):
        fr.stribeck_level_for_rms(np.zeros(4), 0.01)
    with pytest.raises(ParameterError, match="viscous term alone"):
        fr.stribeck_level_for_rms(np.array([1.0, -1.0]), 0.01, viscous=0.02)
    for w in (np.array([]), np.array([0.1, np.nan])):
        with pytest.raises(ParameterError, match="w"):
            fr.stribeck_level_for_rms(w, 0.01)
    with pytest.raises(ParameterError, match="static_ratio"):
        fr.stribeck_level_for_rms(np.ones(3), 0.01, static_ratio=0.99)
    with pytest.raises(ParameterError, match="target_rms"):
        fr.stribeck_level_for_rms(np.ones(3), -0.01)
    # a zero target is reached by a zero level (no viscous term)
    assert fr.stribeck_level_for_rms(np.ones(3), 0.0) == 0.0
    # static_ratio = 1 is the closed end of its range
    assert fr.stribeck_level_for_rms(np.array([2.0, -3.0]), 0.05, static_ratio=1.0) == pytest.approx(0.05, rel=1e-14)


def test_coulomb_load_of_one_force_and_of_a_batch_of_batches():
    # boundary shapes: a single (2,) force, and a (2, 3, 2) batch
    assert fr.coulomb_load(2.0, [3.0, -4.0], mu=0.5, radius=0.1, eps=0.0) == pytest.approx(-0.25, rel=1e-15)
    F = np.arange(12.0).reshape(2, 3, 2)
    tau = fr.coulomb_load(np.ones((2, 3)), F, mu=0.5, radius=0.1, eps=0.0)
    np.testing.assert_allclose(tau, -0.05 * np.hypot(F[..., 0], F[..., 1]), rtol=1e-15)


def test_rms_level_of_a_single_rate():
    # one sample: |tau| = T_c [1 + (r - 1) exp(-(w/w_s)^2)] + b_v |w| must equal the target
    w, ratio, ws, bv = 0.08, 1.8, 0.1, 0.05
    Tc = fr.stribeck_level_for_rms(np.array([w]), 0.02, ratio, ws, bv)
    assert Tc * (1 + (ratio - 1) * np.exp(-((w / ws) ** 2))) + bv * w == pytest.approx(0.02, rel=1e-13)
