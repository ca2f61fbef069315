"""The integrator of the multibody core (robolib.core.multibody.integrator): Dormand-Prince steps, dense output, events."""

from __future__ import annotations

import math
import re
from fractions import Fraction as Fr

import numpy as np
import pytest
from fuzzing import budget, names
from hypothesis import given
from hypothesis import strategies as st

from robolib import ConvergenceError, ParameterError, SingularityError
from robolib import gearshift as G
from robolib import multibody as mb
from robolib.core import _dopri
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

# ==== constraint drift, energy books and the order of the integrator on the gear shift ==============================

GS = G.build_gearshift()


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


def test_dopri5_is_fifth_order_and_dense_output_is_accurate():
    f = lambda t, y: np.array([y[1], -y[0]])  # noqa: E731
    errs = []
    for h in (0.1, 0.05):
        r = mb.dopri5(f, 0.0, [1.0, 0.0], 2.0, rtol=1e3, atol=1e3, h0=h, h_max=h)  # fixed step
        errs.append(abs(r.y_final[0] - math.cos(2.0)))
    assert 20 < errs[0] / errs[1] < 45  # ~2^5 = 32
    r = mb.dopri5(f, 0.0, [1.0, 0.0], 3.0, rtol=1e-10, atol=1e-12, t_eval=np.linspace(0, 3, 7))
    np.testing.assert_allclose(r.y[:, 0], np.cos(np.linspace(0, 3, 7)), atol=1e-6)



# ==== dense output, step counters and the compiled loop step for step ===============================================

HAVE_NUMBA = resolve_backend("auto") == "numba"


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


# ----------------------------------------------------------------------------- the integrator's entry points


def driven_crank():
    """A crank on a ground pin, driven at constant speed, its tip on a spring: a smooth, driven motion."""
    return Mechanism([Body("crank", 0.4, 2e-3)],
                     [GroundPin("O", "crank", (-0.05, 0.01), (0.0, 0.0)), Driver("motor", "crank", ConstantSpeed(0.2, 3.0))],
                     [PointSpringDamper("s", "crank", (0.05, 0.01), (0.2, 0.1), stiffness=50.0, damping=0.3)])


def crank_state(m, t=0.0):
    q, qd = MI.project(m, [0.05, 0.0, 0.2 + 3.0 * t], [0.0, 0.0, 3.0], t)
    return q, qd


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
    with pytest.raises(ParameterError, match=names("atol", "shape", "(8,)")):
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
    with pytest.raises(ConvergenceError, match=names("max_steps", "3")):
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



# ==== the step-size controller, dense output and the event hook at their thresholds =================================
#
# Tests that kill the surviving mutants of robolib/core/multibody/integrator.py (``make mutate``).
#
# Each value is checked against an answer that does not come from the integrator's code:
#
# * the Dormand--Prince 5(4) tableau against its order conditions (Hairer, Norsett, Wanner I, II.5): the
#   weights of the 5th-order solution integrate t^0..t^4 exactly, those of the embedded 4th-order one
#   t^0..t^3, row sums of A are the nodes c;
# * ``dopri5`` on quadratures ``y' = g(t)``, whose stages do not depend on y: one step is exact for a
#   quartic g, and the error estimate ``h sum (b5 - b4)_i g(t + c_i h)`` is a closed form, so the whole
#   sequence of tried steps (accepted or rejected) follows from the textbook step-size rule
#   ``h *= min(5, max(0.2, 0.9 err^(-1/5)))`` (``max(0.2, ...)`` after a rejection). The tried steps are
#   read off a recording right-hand side (stage 2 is called at ``t + h/5``, stage 6 at ``t + h``);
# * ``y' = -y`` against ``exp(-t)`` (samples at t_eval, negative times), the last step landing on t_end
#   (a gap below ``1e-14 max(1, |t_end|)`` is closed, one above it is a step of its own), the step size
#   collapsing on a right-hand side that is NaN after t0 (every try rejected: ``h0 0.2^k``);
# * ``dense_output`` exact for a cubic integrand (it is 4th order) and
#   equal at the step's end to ``y0 + h sum b5_i K_i`` for arbitrary stages;
# * ``initial_step`` by its formula, ``resolve_backend`` against the environment;
# * ``simulate`` of a spring pendulum (energy ``T + V`` conserved, ``H = 0``), of a free body pushed by
#   an ``extra`` force (``x = x0 + v t + F t^2 / 2m``, ``W_loss = P t``), and the reference loop called
#   by hand; ``project`` against the closed-form state of a driven pendulum;
# * ``integrate_compiled``'s argument checks (contact states), step budget and singular start.
#
# Every right-hand side here stops after a fixed number of calls, so a mutant that loops forever fails
# at once instead of running into mutmut's timeout.

BACKENDS = ["numpy"] + (["numba"] if HAVE_NUMBA else [])


#: Dormand & Prince (1980): nodes, 5th-order weights, embedded 4th-order weights (exact fractions).
C_DP = [Fr(0), Fr(1, 5), Fr(3, 10), Fr(4, 5), Fr(8, 9), Fr(1), Fr(1)]


B5_DP = [Fr(35, 384), Fr(0), Fr(500, 1113), Fr(125, 192), Fr(-2187, 6784), Fr(11, 84), Fr(0)]


B4_DP = [Fr(5179, 57600), Fr(0), Fr(7571, 16695), Fr(393, 640), Fr(-92097, 339200), Fr(187, 2100), Fr(1, 40)]


C_F = np.array([float(c) for c in C_DP])


B5_F = np.array([float(b) for b in B5_DP])


E_F = np.array([float(b - e) for b, e in zip(B5_DP, B4_DP)])


TABLEAU_TOL = 1e-14     # order conditions of the float tableau


ROUND = 1e-12           # results that are exact up to round-off (relative)


STEP_RTOL = 1e-7        # a tried step against the rule: the error estimate cancels to ~1e-8 of its stages


EXP_TOL = 1e-8          # y' = -y at rtol 1e-10 against exp


ENERGY_TOL = 1e-7       # relative energy drift of the spring pendulum at rtol 1e-10


CALL_LIMIT = 2000       # right-hand-side calls after which a test's right-hand side gives up


class Runaway(Exception):
    """A right-hand side called more often than any correct run needs."""


class Recording:
    """``y' = g(t, y)`` recording the time of each call; raises :class:`Runaway` after ``limit`` calls."""

    def __init__(self, g, limit=CALL_LIMIT):
        self.g, self.limit, self.times = g, limit, []

    def __call__(self, t, y):
        self.times.append(t)
        if len(self.times) > self.limit:
            raise Runaway(f"{len(self.times)} calls")
        return np.asarray(self.g(t, y), dtype=float)

    def tries(self):
        """(t, h) of each tried step: the calls after the first come in sixes at t + c_i h, i = 1..6."""
        T = np.array(self.times[1:])
        T = T[: len(T) // 6 * 6].reshape(-1, 6)
        h = (T[:, 5] - T[:, 0]) / (1.0 - 0.2)
        return T[:, 5] - h, h


def decay(t, y):
    return -y


# ----------------------------------------------------------------------------- tableau
def test_the_tableau_satisfies_the_order_conditions():
    A, c, b, e = _dopri.A_MAT, _dopri.C_NODES, _dopri.B_5, _dopri.E_ERR
    np.testing.assert_allclose(A.sum(axis=1), c, atol=TABLEAU_TOL)               # row sums are the nodes
    for k in range(5):                                                           # quadrature order 5
        assert float(b @ c ** k) == pytest.approx(1.0 / (k + 1), abs=TABLEAU_TOL), k
    b4 = b - e
    for k in range(4):                                                           # embedded: order 4
        assert float(b4 @ c ** k) == pytest.approx(1.0 / (k + 1), abs=TABLEAU_TOL), k
    assert abs(float(b4 @ c ** 4) - 0.2) > 1e-4                                  # ... and not 5
    assert float(b @ A @ c) == pytest.approx(1 / 6, abs=TABLEAU_TOL)
    assert float(b @ A @ c ** 2) == pytest.approx(1 / 12, abs=TABLEAU_TOL)
    assert float(b @ (c * (A @ c))) == pytest.approx(1 / 8, abs=TABLEAU_TOL)
    np.testing.assert_allclose(A[6], b, atol=0)                                  # first same as last
    np.testing.assert_allclose(c, C_F, atol=0)
    np.testing.assert_allclose(b, B5_F, atol=0)
    np.testing.assert_allclose(e, E_F, atol=1e-16)


# ----------------------------------------------------------------------------- dopri5: quadratures
def quartic(t, y):
    return np.array([t ** 4, -3.0 * t ** 4])


def test_one_step_is_exact_for_a_quartic_integrand():
    """y' = t^4 from 1 to 2 in one step of h = 1: y = (32 - 1)/5 (the stages at t + c_i h, not t - c_i h)."""
    f = Recording(quartic)
    r = MI.dopri5(f, 1.0, np.zeros(2), 2.0, rtol=1e3, atol=1e3, h0=1.0)
    assert r.n_steps == 1 and r.n_rejected == 0 and r.n_rhs == 7 == len(f.times)
    np.testing.assert_allclose(r.y_final, [6.2, -18.6], rtol=ROUND)
    np.testing.assert_allclose(np.sort(f.times), np.sort(1.0 + C_F), rtol=0, atol=1e-15)
    np.testing.assert_array_equal(r.t, [1.0, 2.0])
    assert r.t_final == 2.0 and r.stats["h_min"] == 1.0


def quadrature_error(t, h, y, rtol, atol):
    """(accepted?, err, y_new) of one step of y' = quartic: the error norm of the embedded pair by hand."""
    K = np.array([quartic(t + c * h, None) for c in C_F])
    y_new = y + np.array([((t + h) ** 5 - t ** 5) / 5.0, -3.0 * ((t + h) ** 5 - t ** 5) / 5.0])
    err_vec = h * (E_F @ K)
    sc = atol + rtol * np.maximum(np.abs(y), np.abs(y_new))
    err = math.sqrt(float(np.mean((err_vec / sc) ** 2)))
    return err <= 1.0, err, y_new


def controller_tries(t, h, rtol, atol, n_accepted):
    """The tried steps of the textbook controller (safety 0.9, growth at most 5, shrink at least 0.2)."""
    y, out, acc = np.zeros(2), [], 0
    while acc < n_accepted:
        ok, err, y_new = quadrature_error(t, h, y, rtol, atol)
        out.append((t, h, ok, err))
        if ok:
            acc += 1
            t, y = t + h, y_new
            h *= 5.0 if err == 0.0 else min(5.0, max(0.2, 0.9 * err ** -0.2))
        else:
            h *= max(0.2, 0.9 * err ** -0.2)
    return out


def err_of(h, t=1.0, rtol=1e-7, atol=1e-9):
    return quadrature_error(t, h, np.zeros(2), rtol, atol)[1]


def h_with_error(target, lo=1e-4, hi=1.0):
    """The first step with error norm ``target`` (bisection on the closed form; err grows like h^5)."""
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if err_of(mid) < target else (lo, mid)
    return math.sqrt(lo * hi)


@pytest.mark.parametrize("h0", [1e-4, 5.0, "err=1.5", "err=0.99"])
def test_the_tried_steps_follow_the_step_size_rule(h0):
    """Small first step (growth capped at 5), large (rejected, shrink capped at 0.2), err = 1.5 (rejected,
    h *= 0.9 1.5^-0.2) and err = 0.99 (accepted, h *= 0.9 0.99^-0.2 < 1)."""
    if isinstance(h0, str):
        h0 = h_with_error(float(h0[4:]))
    rtol, atol, n_acc = 1e-7, 1e-9, 7
    ref = controller_tries(1.0, h0, rtol, atol, n_acc)
    f = Recording(quartic)
    with pytest.raises(ConvergenceError, match=names("max_steps", str(n_acc))):
        MI.dopri5(f, 1.0, np.zeros(2), 50.0, rtol=rtol, atol=atol, h0=h0, max_steps=n_acc)
    t, h = f.tries()
    assert len(h) == len(ref), (h, ref)
    np.testing.assert_allclose(h, [x[1] for x in ref], rtol=STEP_RTOL)
    np.testing.assert_allclose(t, [x[0] for x in ref], rtol=STEP_RTOL)
    flags = [x[2] for x in ref]
    assert len(f.times) == 1 + 6 * len(ref)
    if h0 == 1e-4:
        assert flags == [True] * n_acc and h[1] / h[0] == pytest.approx(5.0, rel=STEP_RTOL)
    elif h0 == 5.0:
        assert flags[0] is False and h[1] / h[0] == pytest.approx(0.2, rel=STEP_RTOL)
    else:
        err = ref[0][3]
        assert flags[0] is (err <= 1.0)
        assert h[1] / h[0] == pytest.approx(0.9 * err ** -0.2, rel=1e-7)


def test_a_redone_step_is_counted_as_rejected():
    """The hook redoes the first accepted step once; the run had a rejection of its own before it."""
    calls = []

    def hook(t0, y0, f0, t1, y1, f1, dense):
        calls.append((t0, t1))
        return len(calls) == 1

    kw = dict(rtol=1e-7, atol=1e-9, h0=0.5)
    base = MI.dopri5(Recording(quartic), 1.0, np.zeros(2), 1.6, **kw)
    redo = MI.dopri5(Recording(quartic), 1.0, np.zeros(2), 1.6, step_hook=hook, **kw)
    assert base.n_rejected >= 1
    assert redo.n_rejected == base.n_rejected + 1 and redo.n_steps == base.n_steps
    assert redo.n_rhs == base.n_rhs + 6
    np.testing.assert_array_equal(redo.y, base.y)
    assert calls[0] == calls[1] and len(calls) == base.n_steps + 1
    # a hook is called with the step's ends and a dense output that returns the step's ends
    seen = []
    MI.dopri5(Recording(quartic), 1.0, np.zeros(2), 2.0, rtol=1e3, atol=1e3, h0=1.0,
              step_hook=lambda *a: seen.append(a) and False)
    (t0, y0, f0, t1, y1, f1, dense), = seen
    assert (t0, t1) == (1.0, 2.0)
    np.testing.assert_allclose(y1, [6.2, -18.6], rtol=ROUND)
    np.testing.assert_allclose(f0, quartic(1.0, None), rtol=0)
    np.testing.assert_allclose(f1, quartic(2.0, None), rtol=ROUND)
    np.testing.assert_allclose(dense(2.0), y1, rtol=ROUND)
    np.testing.assert_allclose(dense(1.0), y0, atol=0)


# ----------------------------------------------------------------------------- dopri5: y' = -y
def test_samples_at_t_eval_against_the_exponential():
    ts = np.array([0.5, 0.5, 0.8, 1.3, 1.3, 2.0])
    r = MI.dopri5(Recording(decay), 0.5, np.array([2.0]), 2.0, rtol=1e-10, atol=1e-12, t_eval=ts)
    np.testing.assert_array_equal(r.t, ts)
    assert r.y.shape == (6, 1)
    np.testing.assert_allclose(r.y[:, 0], 2.0 * np.exp(-(ts - 0.5)), rtol=EXP_TOL)
    np.testing.assert_array_equal(r.y[:2, 0], [2.0, 2.0])                     # the start, exactly
    assert r.y_final[0] == pytest.approx(2.0 * math.exp(-1.5), rel=EXP_TOL)
    every = MI.dopri5(Recording(decay), 0.5, np.array([2.0]), 2.0, rtol=1e-10, atol=1e-12)
    assert every.n_steps == r.n_steps and len(every.t) == every.n_steps + 1
    np.testing.assert_allclose(every.y[:, 0], 2.0 * np.exp(-(every.t - 0.5)), rtol=EXP_TOL)
    # no step at all: t_end = t0, every sample is the start
    z = MI.dopri5(Recording(decay), 0.5, np.array([2.0]), 0.5, t_eval=[0.5, 0.5])
    np.testing.assert_array_equal(z.y, [[2.0], [2.0]])
    assert z.n_steps == 0 and z.n_rhs == 1


def test_defaults_negative_times_and_the_first_derivative_check():
    a = MI.dopri5(Recording(decay), 0.0, np.array([1.0]), 1.0)
    b = MI.dopri5(Recording(decay), 0.0, np.array([1.0]), 1.0, rtol=1e-6, atol=1e-9)
    np.testing.assert_array_equal(a.y, b.y)
    np.testing.assert_array_equal(a.t, b.t)
    neg = MI.dopri5(Recording(decay), -3.0, np.array([1.0]), -1.0, rtol=1e-10, atol=1e-12)
    assert neg.t[-1] == -1.0 and np.all(np.diff(neg.t) > 0)
    np.testing.assert_allclose(neg.y[:, 0], np.exp(-(neg.t + 3.0)), rtol=EXP_TOL)
    assert MI.dopri5(Recording(decay), -3.0, [1], -1.0).y.dtype == float
    with pytest.raises(ParameterError, match=names("fun(t0, y0)", "1", "finite")):
        MI.dopri5(lambda t, y: np.array([1.0, 2.0]), 0.0, np.array([1.0]), 1.0)
    with pytest.raises(ParameterError, match=names("fun(t0, y0)", "1", "finite")):
        MI.dopri5(lambda t, y: np.array([math.nan]), 0.0, np.array([1.0]), 1.0)
    with pytest.raises(ParameterError, match=names("fun", "callable")):
        MI.dopri5(1.0, 0.0, np.array([1.0]), 1.0)


def steps_to(t0, t_end, gap):
    """Steps of h_max = (t_end - t0 - gap)/3 from t0: after three the rest is ``gap``."""
    h = (t_end - t0 - gap) / 3.0
    return MI.dopri5(Recording(decay), t0, np.array([1.0]), t_end, rtol=1e3, atol=1e3, h0=h, h_max=h)


def test_the_last_step_lands_on_t_end():
    """A rest below 1e-14 max(1, |t_end|) is taken with the third step, a larger one is a fourth step."""
    a = steps_to(1000.0, 1000.3, 6e-12)             # threshold 1e-11
    assert a.n_steps == 3 and a.t[-1] == 1000.3 and a.t_final == 1000.3
    b = steps_to(1.0, 1.5, 1.75e-14)                 # threshold 1.5e-14
    assert b.n_steps == 4 and b.t[-1] == 1.5
    assert b.t[-1] - b.t[-2] == pytest.approx(1.75e-14, rel=0.05)
    c = steps_to(1.0, 1.5, 1.25e-14)
    assert c.n_steps == 3 and c.t[-1] == 1.5
    d = steps_to(0.0, 0.3, 0.0)
    assert d.n_steps == 3 and d.t[-1] == 0.3


def test_the_step_size_collapses_on_a_right_hand_side_that_is_nan_after_t0():
    """Every try is rejected (err = NaN -> 1e10, h *= 0.2): from h0 = 1.75e-14 5^10 at t = 1.5 the tries are
    1.75e-14 5^(10-k); 1.75e-14 is still above 1e-14 max(1, 1.5), 3.5e-15 is not."""
    f = Recording(lambda t, y: y if t == 1.5 else y * math.nan)
    with pytest.raises(ConvergenceError, match=names("step size", "3.5e-15 s", "t = 1.5 s")):
        MI.dopri5(f, 1.5, np.array([1.0]), 2.0, h0=1.75e-14 * 5 ** 10)
    t, h = f.tries()
    assert len(h) == 11                                                       # the 12th is below the limit
    # decoded from stage times near 1.5 (ulp 2.2e-16): the last tries of ~1e-14 s only to a few per cent
    np.testing.assert_allclose(h[1:] / h[:-1], 0.2, rtol=0.03)
    # from 1e-14 5^10 the tenth try, 1e-14, is below the limit 1.5e-14 and not tried (the limit grows with |t|)
    f = Recording(lambda t, y: y if t == 1.5 else y * math.nan)
    with pytest.raises(ConvergenceError, match=names("step size", "1e-14 s", "t = 1.5 s")):
        MI.dopri5(f, 1.5, np.array([1.0]), 2.0, h0=1e-14 * 5 ** 10)
    assert len(f.tries()[1]) == 10


# ----------------------------------------------------------------------------- dense_output
def stages_of(g, t0, h):
    return np.array([g(t0 + c * h) for c in C_F])


def test_dense_output_is_exact_for_a_cubic_integrand_and_ends_at_the_fifth_order_solution():
    t0, h, y0 = 0.7, 0.9, np.array([2.0, -1.0])
    K = stages_of(lambda t: np.array([t ** 3, 1.0 - t ** 2]), t0, h)
    for x in (0.0, 0.3, 0.77, 1.0):
        t = t0 + x * h
        exact = y0 + np.array([(t ** 4 - t0 ** 4) / 4, (t - t0) - (t ** 3 - t0 ** 3) / 3])
        np.testing.assert_allclose(MI.dense_output(t0, y0, K, h, t), exact, rtol=ROUND, atol=ROUND)
    R = np.random.default_rng(7).normal(size=(7, 2))
    np.testing.assert_allclose(MI.dense_output(t0, y0, R, h, t0 + h), y0 + h * (B5_F @ R), rtol=ROUND)
    np.testing.assert_array_equal(MI.dense_output(t0, y0, R, h, t0), y0)


# ----------------------------------------------------------------------------- initial_step, resolve_backend
def test_initial_step_falls_back_when_either_norm_is_tiny():
    assert MI.initial_step(np.zeros(1), np.ones(1), 1e-6, 1e-9, 10.0) == 1e-6     # d0 = 0
    assert MI.initial_step(np.ones(1), np.zeros(1), 1e-6, 1e-9, 10.0) == 1e-6     # d1 = 0
    # d1 = 1e-9 / (1e-9 + 1e-6) ~ 1e-3 is small but above 1e-5: the ratio 0.01 d0 / d1 ~ 1e7 s, cut to the span
    assert MI.initial_step(np.ones(1), np.full(1, 1e-9), 1e-6, 1e-9, 10.0) == 10.0
    y, f = np.array([3.0, -4.0]), np.array([0.5, 2.0])
    sc = 1e-9 + 1e-3 * np.abs(y)
    expect = 0.01 * math.sqrt(((y / sc) ** 2).mean()) / math.sqrt(((f / sc) ** 2).mean())
    assert MI.initial_step(y, f, 1e-3, 1e-9, 10.0) == pytest.approx(expect, rel=ROUND)


def test_resolve_backend_follows_the_environment(monkeypatch):
    monkeypatch.delenv("ROBOLIB_BACKEND", raising=False)
    assert resolve_backend("auto") == ("numba" if MI._numba is not None else "numpy")
    monkeypatch.setenv("ROBOLIB_BACKEND", " NumPy ")
    assert resolve_backend("auto") == "numpy"
    assert resolve_backend("numba") == "numba" and resolve_backend("numpy") == "numpy"
    monkeypatch.setenv("ROBOLIB_BACKEND", "numba")
    monkeypatch.setattr(MI, "_numba", None)
    assert resolve_backend("auto") == "numpy"
    monkeypatch.setattr(MI, "_numba", object())
    assert resolve_backend("auto") == "numba"
    for bad in ("NUMBA", 1, None):
        with pytest.raises(ParameterError, match=names("backend", "'auto'", "'numpy'", "'numba'")):
            resolve_backend(bad)


# ----------------------------------------------------------------------------- simulate, project
L, K_SPRING = 1.0, 20.0


ROD = Body("rod", 2.0, 2.0 * L ** 2 / 12)


def spring_pendulum():
    """A rod pinned at its end to the origin, its other end pulled by a spring to (0, -2)."""
    return Mechanism([ROD], [GroundPin("O", "rod", (-L / 2, 0.0), (0.0, 0.0))],
                     [PointSpringDamper("k", "rod", (L / 2, 0.0), (0.0, -2.0), K_SPRING)], name="pend")


def pendulum_state(theta, w):
    c, s = math.cos(theta), math.sin(theta)
    return np.array([L / 2 * c, L / 2 * s, theta]), np.array([-L / 2 * s * w, L / 2 * c * w, w])


def energy_by_hand(q, qd):
    m, I = ROD.mass, ROD.inertia
    T = 0.5 * m * (qd[..., 0] ** 2 + qd[..., 1] ** 2) + 0.5 * I * qd[..., 2] ** 2
    tip = np.stack([L * np.cos(q[..., 2]), L * np.sin(q[..., 2]) + 2.0], axis=-1)
    return T + 0.5 * K_SPRING * np.sum(tip ** 2, axis=-1)


@pytest.mark.parametrize("backend", BACKENDS)
def test_simulate_keeps_the_energy_of_a_spring_pendulum(backend):
    m = spring_pendulum()
    q0, qd0 = pendulum_state(0.3, 1.5)
    ts = np.linspace(0.0, 0.6, 4)
    r = MI.simulate(m, (0.0, 0.6), q0, qd0, t_eval=ts, rtol=1e-10, atol=1e-12, backend=backend)
    np.testing.assert_array_equal(r.t, ts)
    E = energy_by_hand(r.y[:, :3], r.y[:, 3:6])
    assert np.abs(E - E[0]).max() < ENERGY_TOL * E[0]
    assert abs(r.y[-1, 2] - 0.3) > 0.3                                        # it did swing
    np.testing.assert_allclose([m.residual(y[:3]) for y in r.y], 0.0, atol=1e-9)
    np.testing.assert_array_equal(r.y[0], np.concatenate([q0, qd0, [0.0, 0.0]]))
    np.testing.assert_allclose(r.y[:, 6:], 0.0, atol=1e-12)                  # no motor, no damper
    d = MI.simulate(m, (0.0, 0.6), q0, qd0, t_eval=ts, backend=backend)      # the default tolerances
    Ed = energy_by_hand(d.y[:, :3], d.y[:, 3:6])
    assert np.abs(Ed - Ed[0]).max() < 1e-5 * Ed[0]


def test_simulate_numpy_is_the_reference_loop_on_the_mechanism_rhs():
    m = spring_pendulum()
    q0, qd0 = pendulum_state(-0.4, 0.8)
    y0 = np.concatenate([q0, qd0, [0.0, 0.0]])
    ts = np.array([0.0, 0.05, 0.2])
    hooked = []
    kw = dict(rtol=1e-5, atol=np.full(8, 1e-7), t_eval=ts, h_max=0.02)
    got = MI.simulate(m, (0.0, 0.2), q0, qd0, alpha=3.0, beta=7.0, backend="numpy",
                      step_hook=lambda *a: hooked.append(a[0]) and False, **kw)
    ref = MI.dopri5(m.rhs(3.0, 7.0), 0.0, y0, 0.2, **kw)
    np.testing.assert_array_equal(got.y, ref.y)
    np.testing.assert_array_equal(got.t, ts)
    assert (got.n_steps, got.n_rejected, got.n_rhs) == (ref.n_steps, ref.n_rejected, ref.n_rhs)
    assert got.n_steps >= 10 and len(hooked) == got.n_steps


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_extra_force_pushes_a_free_body(backend):
    """No constraints; extra adds F to x and reports a loss P: x = x0 + v t + F t^2 / 2m, W_loss = P t."""
    F, P, mass = 0.6, 0.25, 1.5
    body = Mechanism([Body("b", mass, 0.1)], [], name="free")

    def extra(t, q, qd, g):
        g[0] += F
        return P

    r = MI.simulate(body, (0.0, 1.0), [0.1, 0.2, 0.3], [0.5, -0.2, 1.0], t_eval=[0.0, 0.5, 1.0], extra=extra,
                    rtol=1e-10, atol=1e-12, backend=backend)
    t = r.t
    np.testing.assert_allclose(r.y[:, 0], 0.1 + 0.5 * t + F / (2 * mass) * t ** 2, rtol=1e-10)
    np.testing.assert_allclose(r.y[:, 1], 0.2 - 0.2 * t, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(r.y[:, 3], 0.5 + F / mass * t, rtol=1e-10)
    np.testing.assert_allclose(r.y[:, 7], P * t, rtol=1e-10, atol=1e-14)


def driven_pendulum():
    return Mechanism([ROD], [GroundPin("O", "rod", (-L / 2, 0.0), (0.0, 0.0)),
                             Driver("motor", "rod", ConstantSpeed(0.4, 2.0))], name="driven")


def test_project_without_t_is_project_at_zero():
    m = driven_pendulum()
    q, qd = MI.project(m, [0.5, 0.15, 0.45], [0.1, 0.0, 1.0])
    q_ref, qd_ref = pendulum_state(0.4, 2.0)
    np.testing.assert_allclose(q, q_ref, atol=1e-12)
    np.testing.assert_allclose(qd, qd_ref, atol=1e-12)
    q1, qd1 = MI.project(m, [0.5, 0.15, 0.45], [0.1, 0.0, 1.0], 1.0)
    np.testing.assert_allclose(q1, pendulum_state(2.4, 2.0)[0], atol=1e-12)


# ----------------------------------------------------------------------------- integrate_compiled
needs_numba = pytest.mark.skipif(not HAVE_NUMBA, reason="needs the compiled integrator")


@needs_numba
def test_compiled_contact_states_are_checked():
    from robolib.core.clearance import ClearanceModel, ClearanceSpec

    mech = Mechanism([Body("disc", 1.0, 1e-4)], [GroundPin("O", "disc", (0.0, 0.0), (0.0, 0.0))])
    cm = ClearanceModel(mech, [ClearanceSpec("O", clearance=1e-4, restitution=0.9, mu=0.0)])
    red = cm.reduced
    y0 = np.concatenate([np.zeros(red.n), np.full(red.n, 0.0), [0.0, 0.0]])
    y0[red.n] = 0.01
    args = (red, 0.0, y0, 1e-4, 5.0, 10.0, 1e-8, 1e-12)
    kw = dict(contacts=cm.table, ddelta0=cm.ddelta0.copy())
    ok = np.full((1, 4), np.nan)
    r, ep = MI.integrate_compiled(*args, cstate=ok, **kw)
    assert r.t_final == 1e-4 and r.t[-1] == 1e-4
    assert ok[0, 0] == ok[0, 0]                                   # updated in place: delta of the last step
    assert ep.shape[1] == 4
    bad = [np.full((1, 4), np.nan, dtype=np.float32), np.full((2, 4), np.nan), np.full((1, 5), np.nan),
           np.full((1, 8), np.nan)[:, ::2], np.array([[np.inf, np.nan, np.nan, np.nan]]), [[np.nan] * 4]]
    for cst in bad:
        with pytest.raises(ParameterError, match=names("cstate", "None", "float64", "(1, 4)")):
            MI.integrate_compiled(*args, cstate=cst, **kw)


@needs_numba
def test_compiled_budget_singular_start_and_samples_at_the_start():
    m = driven_pendulum()
    q0, qd0 = pendulum_state(0.4, 2.0)
    y0 = np.concatenate([q0, qd0, [0.0, 0.0]])
    r, ep = MI.integrate_compiled(m, 0.0, y0, 0.2, 5.0, 10.0, 1e-3, 1e-3, h_max=0.05)
    n = r.n_steps
    assert n >= 4 and r.t_final == 0.2 and len(ep) == 0 and r.n_rhs == 1 + 6 * (n + r.n_rejected)
    assert np.diff(r.t).max() == pytest.approx(0.05, rel=1e-12) and len(r.t) == n + 1
    np.testing.assert_allclose(r.y_final[2], 0.8, rtol=1e-6)
    MI.integrate_compiled(m, 0.0, y0, 0.2, 5.0, 10.0, 1e-3, 1e-3, h_max=0.05, max_steps=n)
    with pytest.raises(ConvergenceError, match=names("max_steps", str(n - 1), "t_end", "0.2")):
        MI.integrate_compiled(m, 0.0, y0, 0.2, 5.0, 10.0, 1e-3, 1e-3, h_max=0.05, max_steps=n - 1)
    assert ep.shape == (0, 4)                                    # episodes: rows (joint, t_on, t_off, ddelta0)
    s = MI.integrate_compiled(m, 0.0, y0, 0.2, 5.0, 10.0, 1e-8, 1e-10, t_eval=[0.0, 0.0, 0.1, 0.2])[0]
    z, ep = MI.integrate_compiled(m, 0.0, y0, 0.0, 5.0, 10.0, 1e-8, 1e-10, t_eval=[0.0, 0.0])   # no step
    np.testing.assert_array_equal(z.y, [y0, y0])
    assert z.n_steps == 0 and z.t_final == 0.0 and ep.shape == (0, 4)
    np.testing.assert_array_equal(s.y[:2], [y0, y0])
    np.testing.assert_allclose(s.y[2:, 2], [0.6, 0.8], rtol=1e-8)
    twice = Mechanism([ROD], [Driver("x1", "rod", Constant(0.0), coord="x", motor=False),
                              Driver("x2", "rod", Constant(0.0), coord="x", motor=False)], name="twice")
    with pytest.raises(SingularityError, match=names("twice", "singular", "t = 0 s")):
        MI.integrate_compiled(twice, 0.0, np.zeros(8), 0.1, 5.0, 10.0, 1e-6, 1e-9)


@needs_numba
def test_the_compiled_step_size_collapses_at_the_end_of_a_stroke():
    """The rod's x driven past the pin's reach: x = 0.3 + 0.1 t reaches L/2 = 0.5 at t = 2, where
    theta' = -x' / (L/2 sin theta) is infinite; the step size collapses there (below 1e-14 max(1, t) s)."""
    m = Mechanism([ROD], [GroundPin("O", "rod", (-L / 2, 0.0), (0.0, 0.0)),
                          Driver("x", "rod", ConstantSpeed(0.3, 0.1), coord="x", motor=False)], name="reach")
    th = math.acos(0.3 / (L / 2))
    w = -0.1 / (L / 2 * math.sin(th))
    q0, qd0 = pendulum_state(th, w)
    with pytest.raises(ConvergenceError, match=names("step size", "collapsed")) as err:
        MI.integrate_compiled(m, 0.0, np.concatenate([q0, qd0, [0.0, 0.0]]), 3.0, 5.0, 10.0, 1e-8, 1e-10)
    h, t = map(float, re.search(r"collapsed to (\S+) s at t = (\S+) s", str(err.value)).groups())
    assert 1e-16 < h < 1e-14 * t and t == pytest.approx(2.0, abs=1e-3)



# ==== conservation laws and exact solutions on random valid inputs ==================================================

# ---- models ------------------------------------------------------------------------------------------------
#: A bar pendulum (length 1 m) pinned at one end, with a spring to the point below the pin (a gravity-like
#: restoring force that keeps the energy books closed), and a crank driven at constant speed.
BAR = mb.Body("bar", 1.0, 1.0 / 12)


PIN = mb.GroundPin("O", "bar", (-0.5, 0.0), (0.0, 0.0))


SPRING = mb.PointSpringDamper("k", "bar", (0.5, 0.0), (0.0, -2.0), 5.0)


PEND = mb.Mechanism([BAR], [PIN], [SPRING], name="pendulum")


N = PEND.n


# ---- properties on random valid inputs ---------------------------------------------------------------------
#: Energy and momentum drift allowed over the short runs below at rtol 1e-10 (relative to the scale).
CONSERVATION_TOL = 1e-7


#: Constraint residual after project(): position and velocity level.
PROJECT_TOL = 1e-12


@pytest.mark.fuzz
@budget(8)
@given(v=st.tuples(st.floats(-2.0, 2.0), st.floats(-2.0, 2.0), st.floats(-5.0, 5.0)),
       m=st.floats(0.1, 10.0), inertia=st.floats(1e-3, 1.0), x0=st.floats(-1.0, 1.0))
def test_a_free_rigid_body_keeps_momentum_and_energy(v, m, inertia, x0):
    body = mb.Mechanism([mb.Body("b", m, inertia)], [], name="free")
    q0, qd0 = np.array([x0, 0.0, 0.3]), np.array(v)
    r = mb.simulate(body, (0.0, 1.0), q0, qd0, t_eval=np.linspace(0, 1, 5), rtol=1e-10, atol=1e-12,
                    backend="numpy")
    qd = r.y[:, N:2 * N]
    assert np.abs(qd - qd0).max() < CONSERVATION_TOL * (1 + np.abs(qd0).max())          # momentum, spin
    assert np.abs(r.y[:, :N] - (q0 + np.outer(r.t, qd0))).max() < CONSERVATION_TOL     # straight line
    T = body.kinetic_energy(qd)
    assert np.abs(T - T[0]).max() < CONSERVATION_TOL * (1 + T[0])


@pytest.mark.fuzz
@budget(8)
@given(theta0=st.floats(-2.5, 2.5), w0=st.floats(-3.0, 3.0), k=st.floats(1.0, 30.0),
       backend=st.sampled_from(["numpy", "numba"]))
def test_a_pendulum_keeps_its_energy_and_projects_onto_its_constraints(theta0, w0, k, backend):
    if backend == "numba" and not mb._numba:
        return
    spring = mb.PointSpringDamper("k", "bar", (0.5, 0.0), (0.0, -2.0), k)
    pend = mb.Mechanism([BAR], [PIN], [spring], name="pendulum")
    c, s = math.cos(theta0), math.sin(theta0)
    q0 = np.array([0.5 * c + 1e-4, 0.5 * s - 1e-4, theta0])           # slightly off the constraint
    q, qd = mb.project(pend, q0, np.array([0.0, 0.0, w0]) + 0.01)
    assert np.abs(pend.residual(q)).max() < PROJECT_TOL
    assert np.abs(pend.jacobian(q) @ qd).max() < PROJECT_TOL * (1 + abs(w0))
    r = mb.simulate(pend, (0.0, 1.0), q, qd, rtol=1e-10, atol=1e-12, backend=backend)
    E = pend.kinetic_energy(r.y[:, N:2 * N]) + pend.potential_energy(r.y[:, :N])
    assert np.abs(E - E[0]).max() < CONSERVATION_TOL * 10 * (1 + E[0])
    assert np.abs([pend.residual(y[:N]) for y in r.y]).max() < 1e-8


@pytest.mark.fuzz
@budget(20)
@given(a=st.floats(-3.0, 1.0), y0=st.floats(-5.0, 5.0).filter(lambda v: abs(v) > 1e-3), t_end=st.floats(0.1, 2.0))
def test_dopri5_solves_exponential_growth_and_decay(a, y0, t_end):
    r = mb.dopri5(lambda t, y: a * y, 0.0, np.array([y0]), t_end, rtol=1e-10, atol=1e-12)
    exact = y0 * np.exp(a * r.t)
    assert np.abs(r.y[:, 0] - exact).max() < 1e-8 * (1 + np.abs(exact).max())
    assert r.t[-1] == t_end


@pytest.mark.fuzz
@budget(20)
@given(a=st.floats(-3.0, 1.0), frac=st.lists(st.floats(0.0, 1.0), min_size=1, max_size=6))
def test_dense_output_matches_the_exact_solution_between_steps(a, frac):
    """``t_eval`` between the accepted steps: the 4th-order dense output, against ``exp(a t)``."""
    te = np.sort(np.array(frac)) * 2.0
    r = mb.dopri5(lambda t, y: a * y, 0.0, np.array([1.0]), 2.0, rtol=1e-9, atol=1e-12, t_eval=te)
    assert np.abs(r.y[:, 0] - np.exp(a * te)).max() < 1e-7




# ==== gravity: a free fall and a physical pendulum against their closed forms =====================================

#: A field that is not along an axis (m/s^2), so that a sign or a swapped component shows.
TILTED_G = (1.3, -9.2)


@pytest.mark.parametrize("backend", BACKENDS)
def test_gravity_accelerates_a_free_body_by_g(backend):
    body = Mechanism([Body("b", 2.5, 0.1)], [], name="falling", gravity=TILTED_G)
    ts = np.array([0.0, 0.4, 1.0])
    r = MI.simulate(body, (0.0, 1.0), [0.1, 0.2, 0.3], [0.5, 1.0, -0.7], t_eval=ts, rtol=1e-10, atol=1e-12,
                    backend=backend)
    np.testing.assert_allclose(r.y[:, 0], 0.1 + 0.5 * ts + TILTED_G[0] / 2 * ts ** 2, rtol=1e-10)
    np.testing.assert_allclose(r.y[:, 1], 0.2 + 1.0 * ts + TILTED_G[1] / 2 * ts ** 2, rtol=1e-10)
    np.testing.assert_allclose(r.y[:, 2], 0.3 - 0.7 * ts, rtol=1e-10)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_rod_swings_under_gravity_with_the_period_of_the_physical_pendulum(backend):
    """T = 4 sqrt(I_O / (m g d)) K(sin^2(theta0/2)) for amplitude theta0 about the field's direction."""
    from scipy.special import ellipk

    m, length, theta0 = 0.8, 0.6, 2.0                            # a large swing: far from the small-angle period
    g = math.hypot(*TILTED_G)
    down = math.atan2(TILTED_G[1], TILTED_G[0])                  # the field's direction
    rod = Body("rod", m, m * length ** 2 / 12)
    pend = Mechanism([rod], [GroundPin("O", "rod", (-length / 2, 0.0), (0.0, 0.0))], gravity=TILTED_G)
    d, I_O = length / 2, m * length ** 2 / 3
    period = 4 * math.sqrt(I_O / (m * g * d)) * ellipk(math.sin(theta0 / 2) ** 2)
    th = down + theta0
    q0 = [d * math.cos(th), d * math.sin(th), th]
    r = MI.simulate(pend, (0.0, period), q0, [0.0, 0.0, 0.0], t_eval=[0.0, period / 2, period], rtol=1e-11,
                    atol=1e-12, backend=backend)
    assert r.y[1, 2] - down == pytest.approx(-theta0, abs=1e-7)   # the far turning point at half the period
    assert abs(r.y[1, 5]) < 1e-6 and abs(r.y[2, 5]) < 1e-6        # at rest at both turning points
    assert r.y[2, 2] == pytest.approx(th, abs=1e-7)
    E = pend.kinetic_energy(r.y[:, 3:6]) + pend.potential_energy(r.y[:, :3])
    np.testing.assert_allclose(E, E[0], atol=1e-9)               # gravity's potential closes the energy books
    assert pend.potential_energy(q0) == pytest.approx(-m * (TILTED_G[0] * q0[0] + TILTED_G[1] * q0[1]))


def test_gravity_is_checked_and_kept_by_without():
    bodies = [Body("a", 1.0, 0.1)]
    with pytest.raises(ParameterError, match="gravity"):
        Mechanism(bodies, [], gravity=(0.0, -9810.0))            # mm/s^2
    with pytest.raises(ParameterError, match="gravity"):
        Mechanism(bodies, [], gravity=-9.81)                     # not a vector
    m = Mechanism(bodies, [GroundPin("O", "a", (0.1, 0.0), (0.0, 0.0))], gravity=TILTED_G)
    assert m.without(["O"]).gravity == TILTED_G
