"""Joint-friction laws (robolib.core.friction)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest
from fuzzing import entry_point_tests, names

# ---- properties on random valid inputs ---------------------------------------------------------------------
from hypothesis import strategies as st

from robolib import (
    ParameterError,
    friction,
)
from robolib import friction as fr
from robolib.core import params

# ==== the friction laws name a bad argument =========================================================================

# ---- the entry points: (callable, valid keyword arguments, {argument: kind}) -------------------------
SCHEMA = {"mass": params.number(unit="kg", positive=True), "com": params.vector(2, unit="m")}


FLAG = st.sampled_from([None, 1, 0.0, "yes", "False"])          # a flag is True or False, nothing else


FIELD_UNIT = st.sampled_from([3.0, True, ["m"]])                 # a unit is text (or None)


OUT = Path(tempfile.mkdtemp(prefix="robolib-fuzz-files-"))       # the file rows write here


ENTRY_POINTS = {
    "friction.smooth_sign": (friction.smooth_sign, dict(w=np.array([0.1, -0.2]), eps=1e-3),
                             {"w": "array", "eps": "nonnegative"}),
    "friction.coulomb_load": (friction.coulomb_load, dict(w=0.5, force=np.array([3.0, 4.0]), mu=0.1, radius=0.01,
                                                          eps=1e-3),
                              {"w": "array", "force": (2,), "mu": "nonnegative", "radius": "nonnegative", "eps": "nonnegative"}),
    "friction.stribeck": (friction.stribeck, dict(w=np.array([0.5]), coulomb_torque=0.1, static_torque=0.15,
                                                  stribeck_velocity=0.1, viscous=0.01, eps=0.0),
                          {"w": "array", "coulomb_torque": "nonnegative", "static_torque": "nonnegative",
                           "stribeck_velocity": "positive", "viscous": "nonnegative", "eps": "nonnegative"}),
    "friction.coulomb": (friction.coulomb, dict(w=np.array([0.5, -0.5]), torque=0.1, eps=1e-3),
                         {"w": "array", "torque": "nonnegative", "eps": "nonnegative"}),
    "friction.viscous": (friction.viscous, dict(w=np.array([0.5, -0.5]), coefficient=0.01),
                         {"w": "array", "coefficient": "nonnegative"}),
    "friction.stribeck_level_for_rms": (friction.stribeck_level_for_rms,
                                        dict(w=np.linspace(-1.0, 1.0, 11), target_rms=0.01, static_ratio=1.5,
                                             stribeck_velocity=0.1, viscous=0.002, eps=0.01),
                                        {"w": "array", "target_rms": "positive", "static_ratio": "positive",
                                         "stribeck_velocity": "positive", "viscous": "nonnegative",
                                         "eps": "nonnegative"}),
}


test_every_valid_call_works, test_a_bad_argument_is_named = entry_point_tests(ENTRY_POINTS)



# ==== sign conventions, limits, eps -> 0 convergence, bad input =====================================================
#
# Tests of robolib.core.friction: sign conventions, limits, eps -> 0 convergence, bad input.

RNG = np.random.default_rng(2024)


W = np.concatenate([RNG.standard_normal(200) * 2.0, [0.0, 1e-9, -1e-9]])


F = RNG.standard_normal((W.size, 2)) * 5.0


STRIBECK = dict(coulomb_torque=0.10, static_torque=0.15, stribeck_velocity=0.1, viscous=0.01)


def test_smooth_sign_converges_to_sign():
    w = np.linspace(-1, 1, 2001)
    w = w[np.abs(w) >= 0.05]
    errs = [np.abs(fr.smooth_sign(w, eps) - np.sign(w)).max() for eps in (1e-1, 3e-2, 1e-2, 3e-3)]
    assert all(b < a for a, b in zip(errs, errs[1:]))
    # tanh(x) -> 1 with error 2 exp(-2x): at |w| = 0.05 and eps = 3e-3 the bound is 2 exp(-33.3)
    assert errs[-1] <= 2 * np.exp(-2 * 0.05 / 3e-3) * 1.0001
    assert np.array_equal(fr.smooth_sign(w, 0.0), np.sign(w))
    s = fr.smooth_sign(W, 1e-2)
    assert np.all(np.abs(s) <= 1) and np.allclose(fr.smooth_sign(-W, 1e-2), -s)


@pytest.mark.parametrize("eps", [0.0, 1e-3, 1e-2])
def test_friction_power_is_never_positive(eps):
    assert np.all(fr.coulomb_load(W, F, mu=0.1, radius=0.01, eps=eps) * W <= 0)
    assert np.all(fr.stribeck(W, **STRIBECK, eps=eps) * W <= 0)
    assert np.all(fr.coulomb(W, 0.1, eps) * W <= 0)
    assert np.all(fr.viscous(W, 0.01) * W <= 0)


def test_coulomb_load_law():
    tf = fr.coulomb_load(W, F, mu=0.1, radius=0.01, eps=0.0)
    assert np.allclose(np.abs(tf), 0.1 * 0.01 * np.linalg.norm(F, axis=1) * (W != 0))
    # only the magnitude of the bearing load matters
    rot = np.array([[0.0, -1.0], [1.0, 0.0]])
    assert np.allclose(fr.coulomb_load(W, F @ rot.T, 0.1, 0.01, 1e-2), fr.coulomb_load(W, F, 0.1, 0.01, 1e-2))


def test_stribeck_limits():
    Tc, Ts, ws, bv = 0.10, 0.15, 0.1, 0.01
    # at w -> 0+ the level is the static torque, far away the Coulomb level plus viscous
    assert np.isclose(fr.stribeck(1e-12, Tc, Ts, ws, bv, eps=0.0), -Ts)
    big = np.array([2.0, 5.0])
    assert np.allclose(fr.stribeck(big, Tc, Ts, ws, bv, eps=0.0), -(Tc + bv * big), atol=1e-12 + (Ts - Tc) * np.exp(-400))
    # the level decreases monotonically from T_s to T_c (no viscous term)
    w = np.linspace(1e-6, 1.0, 500)
    lvl = -fr.stribeck(w, Tc, Ts, ws, 0.0, eps=0.0)
    assert np.all(np.diff(lvl) <= 0) and np.all(np.diff(lvl[w < 0.2]) < 0) and lvl[0] <= Ts and lvl[-1] >= Tc
    # at w = w_s the exponential term is exp(-1)
    assert np.isclose(fr.stribeck(ws, Tc, Ts, ws, 0.0, eps=0.0), -(Tc + (Ts - Tc) / np.e))


def test_smooth_laws_converge_pointwise():
    w = W[np.abs(W) > 0.05]
    exact = fr.stribeck(w, **STRIBECK, eps=0.0)
    errs = [np.abs(fr.stribeck(w, **STRIBECK, eps=e) - exact).max() for e in (1e-2, 5e-3, 2.5e-3)]
    assert errs[0] < 1e-4 and errs[1] < errs[0] and errs[2] < errs[1]


def test_bad_parameters():
    with pytest.raises(ParameterError, match="'mu'"):
        fr.coulomb_load(1.0, [1.0, 0.0], mu=-0.1, radius=0.01, eps=0.0)
    with pytest.raises(ParameterError, match="'radius'"):
        fr.coulomb_load(1.0, [1.0, 0.0], mu=0.1, radius=-0.01, eps=0.0)
    with pytest.raises(ParameterError, match="force"):
        fr.coulomb_load(1.0, [1.0, 0.0, 0.0], mu=0.1, radius=0.01, eps=0.0)
    with pytest.raises(ParameterError, match="'eps'"):
        fr.smooth_sign(1.0, -1e-3)
    with pytest.raises(ParameterError, match="stribeck_velocity"):
        fr.stribeck(1.0, 0.1, 0.15, 0.0)
    with pytest.raises(ParameterError, match="'static_torque'"):
        fr.stribeck(1.0, 0.1, -0.15, 0.1)
    with pytest.raises(ParameterError, match="'coefficient'"):
        fr.viscous(1.0, -1.0)


@pytest.mark.parametrize("ratio, ws, bv, eps", [(1.5, 0.1, 0.0, 0.01), (1.0, 0.1, 0.0, 0.0), (2.0, 0.3, 0.02, 0.005)])
def test_stribeck_level_for_rms_is_the_root_of_the_rms_equation(ratio, ws, bv, eps):
    from scipy.optimize import brentq

    w = RNG.standard_normal(500) * 0.4
    target = 0.05
    Tc = fr.stribeck_level_for_rms(w, target, ratio, ws, bv, eps)

    def rms(level):
        return np.sqrt(np.mean(fr.stribeck(w, level, ratio * level, ws, bv, eps) ** 2)) - target

    assert np.isclose(Tc, brentq(rms, 0.0, 10.0, xtol=1e-15), rtol=1e-10)
    # without a viscous term the level is proportional to the target
    if bv == 0:
        assert np.isclose(fr.stribeck_level_for_rms(w, 2 * target, ratio, ws, 0.0, eps), 2 * Tc)
    # boundary: a target equal to the viscous RMS needs no Coulomb level
    vrms = np.sqrt(np.mean((bv * w) ** 2))
    assert fr.stribeck_level_for_rms(w, vrms, ratio, ws, bv, eps) == pytest.approx(0.0, abs=1e-15)



# ==== joint-friction laws off their defaults ========================================================================
#
# Joint-friction laws off their defaults: checks that kill the mutants test_friction.py let live (make mutate).
#
# Expected values are the laws written out (Coulomb, viscous, Stribeck), their limits, and the RMS
# calibration's own definition -- with parameter sets that break the defaults' coincidences
# (T_s != 1.5 T_c, w_s != 0.1 rad/s, non-zero viscous term, non-zero eps).

W_GRID = np.array([-2.0, -0.3, -0.05, -1e-3, 0.0, 2e-3, 0.04, 0.25, 1.5])


def test_smooth_sign_is_tanh_of_w_over_eps():
    for eps in (0.02, 0.5, 3.0):
        np.testing.assert_allclose(fr.smooth_sign(W_GRID, eps), np.tanh(W_GRID / eps), rtol=1e-15, atol=0)
    assert fr.smooth_sign(0.0, 0.0) == 0.0 and fr.smooth_sign(-3.0, 0.0) == -1.0


def test_coulomb_and_viscous_values():
    for eps in (0.0, 0.03):
        s = np.sign(W_GRID) if eps == 0 else np.tanh(W_GRID / eps)
        np.testing.assert_allclose(fr.coulomb(W_GRID, 0.7, eps), -0.7 * s, rtol=1e-15, atol=0)
    np.testing.assert_allclose(fr.viscous(W_GRID, 0.3), -0.3 * W_GRID, rtol=1e-15, atol=0)
    # zero levels are valid and give no torque
    assert np.all(fr.coulomb(W_GRID, 0.0, 0.01) == 0.0) and np.all(fr.viscous(W_GRID, 0.0) == 0.0)


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
    expected = -(Tc + (Ts - Tc) * np.exp(-((W_GRID / ws) ** 2))) * np.tanh(W_GRID / eps) - bv * W_GRID
    np.testing.assert_allclose(fr.stribeck(W_GRID, Tc, Ts, ws, bv, eps), expected, rtol=1e-14, atol=1e-18)
    # T_s = T_c: plain Coulomb plus viscous, whatever w_s
    np.testing.assert_allclose(fr.stribeck(W_GRID, Tc, Tc, ws, bv, eps), fr.coulomb(W_GRID, Tc, eps) + fr.viscous(W_GRID, bv),
                               rtol=1e-14, atol=1e-18)
    # the default arguments are no viscous term and the exact sign
    np.testing.assert_allclose(fr.stribeck(W_GRID, Tc, Ts, ws), -(Tc + (Ts - Tc) * np.exp(-((W_GRID / ws) ** 2))) * np.sign(W_GRID),
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
    with pytest.raises(ParameterError, match=names("w", "every joint rate", "zero")):
        fr.stribeck_level_for_rms(np.zeros(4), 0.01)
    with pytest.raises(ParameterError, match=names("target_rms", "viscous term")):
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
