"""Tests of robolib.core.friction: sign conventions, limits, eps -> 0 convergence, bad input."""

import numpy as np
import pytest

from robolib import ParameterError
from robolib import friction as fr

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
