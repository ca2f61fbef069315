"""The tangent-linear Lyapunov exponent of the gear shift (robolib.gearshift.lyapunov).

The tangent flow is checked against central differences of the flow itself (an independent route: two more
simulations per column), through contact episodes and impacts, on the fast model and on the DAE, on the default
case and on a second one that breaks its symmetries (joint E2, 8 Hz, 0.2 mm); the saltation of the onset-speed
memory is shown to matter (without it the tangent misses the differences). The exponent of a stable orbit equals
its Floquet exponent (tests/gearshift/test_orbits.py::test_exponent_routes_agree).
"""

import inspect
import math

import numpy as np
import pytest
from fuzzing import entry_point_tests
from hypothesis import strategies as st

from robolib import ParameterError
from robolib.gearshift import lyapunov as LY
from robolib.gearshift.fast import FastClearance
from robolib.gearshift.model import build_gearshift, clearance_model, load_parameters, with_changes

P = load_parameters()


def _fast_state(fc, t_end, rtol=1e-10):
    r = fc.simulate((0.0, t_end), rtol=rtol, atol=rtol * 1e-3, t_eval=[t_end])
    return np.array([*r.e[-1], *r.ed[-1], r.ddelta0_final])


def _fast_difference(fc, x, v, span, h, rtol=1e-12):
    """Central difference of the fast flow along ``v`` (5,), half-width ``h``."""
    out = []
    for sg in (1.0, -1.0):
        xx = x + sg * h * v
        r = fc.simulate(span, xx[:2], xx[2:4], t_eval=[span[1]], rtol=rtol, atol=rtol * 1e-3, ddelta0=xx[4])
        out.append(np.array([*r.e[-1], *r.ed[-1], r.ddelta0_final]))
    return (out[0] - out[1]) / (2 * h)


@pytest.mark.parametrize("joint, f, c, t0, t1", [("B1", 10.0, 5e-4, 0.4, 0.47),      # impacts after a long contact
                                                 ("E2", 8.0, 2e-4, 0.5, 0.6)])       # another joint, case and span
def test_tangent_flow_equals_differences_of_the_flow_through_impacts(joint, f, c, t0, t1):
    fc = FastClearance(P, joint=joint, clearance=c, frequency=f)
    x = _fast_state(fc, t0)
    r = fc.simulate((t0, t1), x[:2], x[2:4], rtol=1e-10, atol=1e-13, ddelta0=x[4])
    assert len(r.episodes) >= 2                            # the span crosses contact onsets
    scale = np.array([c, c, c * fc.omega, c * fc.omega, c * fc.omega])
    v = np.array([1.0, -0.5, 0.3, 0.8, 0.0]) * scale
    _, V = fc._tangent_flow((t0, t1), x, v[None, :], 1e-11, 1e-14, eps=1e-6)
    fd = _fast_difference(fc, x, v, (t0, t1), 1e-5)
    np.testing.assert_allclose(V[0] / scale, fd / scale, rtol=0, atol=2e-3 * np.abs(fd / scale).max())


def test_without_the_saltation_the_tangent_misses_the_differences():
    """The memory's jump at an onset is what makes the tangent right (the test of the saltation formula)."""
    fc = FastClearance(P, joint="B1", clearance=5e-4, frequency=10.0)
    x = _fast_state(fc, 0.4)
    scale = np.array([5e-4, 5e-4, 5e-4 * fc.omega, 5e-4 * fc.omega, 5e-4 * fc.omega])
    v = np.array([1.0, 0.0, 0.0, 0.0, 0.0]) * scale
    fd = _fast_difference(fc, x, v, (0.4, 0.47), 1e-5) / scale
    with_s = fc._tangent_flow((0.4, 0.47), x, v[None, :], 1e-11, 1e-14, eps=1e-6)[1][0] / scale
    without = fc._tangent_flow((0.4, 0.47), x, v[None, :], 1e-11, 1e-14, eps=1e-6, saltation=False)[1][0] / scale
    err = lambda V: np.abs(V[:4] - fd[:4]).max() / np.abs(fd[:4]).max()
    assert err(with_s) < 2e-3 and err(without) > 10 * err(with_s)


def test_dae_tangent_flow_equals_differences_of_the_dae_flow():
    """The DAE's tangent (21 bodies, Baumgarte) through contact, against central differences of the DAE run, with
    the perturbation tangent to the constraint manifold (the derivative of the fast model's full state)."""
    f, c = 10.0, 5e-4
    fc = FastClearance(P, joint="B1", clearance=c, frequency=f)
    gs = build_gearshift(with_changes(P, **{"motion.frequency": f}))
    cm = clearance_model(gs, ["B1"], c)
    q, qd, _ = gs.ideal_state(0.0)
    r = cm.simulate((0.0, 0.4), q, qd, t_eval=[0.4], rtol=1e-10, atol=1e-13)
    y = np.concatenate([r.y_final[:42], r.ddelta0_final])
    e, ed = fc.state_from_full(y[:21], y[21:42])
    w = np.array([1.0, -0.5, 0.3 * fc.omega, 0.8 * fc.omega]) * c
    h = 1e-6
    dq = (np.concatenate(fc.full_state(e + h * w[:2], ed + h * w[2:], 0.4))
          - np.concatenate(fc.full_state(e - h * w[:2], ed - h * w[2:], 0.4))) / (2 * h)
    v = np.append(dq, 0.0)
    pos = np.tile([c, c, c / gs.l], 7)
    tsc = np.concatenate([pos, pos * fc.omega, [c * fc.omega]])
    y1, V = cm._tangent_flow((0.4, 0.45), y, v[None, :], 1e-11, 1e-14, tsc, 1e-5, floor=tsc * gs.l / c)

    def chart(z):   # (e, ed) of a DAE state (q, qd)
        return np.concatenate(fc.state_from_full(z[:21], z[21:42]))

    got = (chart(y1 + 1e-6 * V[0]) - chart(y1 - 1e-6 * V[0])) / 2e-6
    hh, ends = 1e-5, []
    for sg in (1.0, -1.0):
        yy = y + sg * hh * v
        rr = cm.simulate((0.4, 0.45), yy[:21], yy[21:42], t_eval=[0.45], rtol=1e-12, atol=1e-15, ddelta0=yy[42:])
        ends.append(chart(rr.y_final))
    fd = (ends[0] - ends[1]) / (2 * hh)
    s4 = np.array([c, c, c * fc.omega, c * fc.omega])
    np.testing.assert_allclose(got / s4, fd / s4, rtol=0, atol=5e-3 * np.abs(fd / s4).max())


def test_the_fast_model_and_the_dae_give_one_exponent_on_a_second_case():
    """Clearance at the lever pin C, 6 Hz, 0.2 mm (not a chapter case; measured -57.95 /s on both models at rtol
    1e-10): the two models' exponents within 0.5 %, the DAE at ten times the fast model's tolerance."""
    kw = dict(n_periods=4, n_transient=20, n_align=2)
    a = LY.tangent_lyapunov(P, 6.0, 2e-4, "C", rtol=1e-10, **kw)
    b = LY.dae_tangent_lyapunov(P, 6.0, 2e-4, "C", rtol=1e-9, **kw)
    assert a.model == "fast" and b.model == "dae" and a.exponent < -50
    assert abs(a.exponent - b.exponent) < 5e-3 * abs(a.exponent), (a.exponent, b.exponent)


def test_exponent_uncertainty_combines_its_three_parts_in_quadrature():
    L = LY.lyapunov_exponent(P, 10.0, 5e-4, n_periods=4, n_transient=4, n_align=1, rtol=1e-8)
    a, b, c = L.runs
    assert L.exponent == b.exponent and b.rtol == a.rtol / LY.RTOL_DIVISOR and c.eps == b.eps * LY.EPS_FACTOR
    parts = (b.uncertainty, abs(b.exponent - a.exponent), abs(c.exponent - b.exponent))
    assert (L.batch, L.tolerance_change, L.eps_change) == pytest.approx(parts)
    assert L.uncertainty == pytest.approx(math.sqrt(sum(x * x for x in parts)))
    assert max(parts) <= L.uncertainty <= sum(parts)
    assert L.interval == (L.exponent - L.uncertainty, L.exponent + L.uncertainty)


def test_a_clearance_in_millimetres_is_refused_before_any_integration():
    for call in (lambda: LY.tangent_lyapunov(P, 10.0, 0.5), lambda: LY.dae_tangent_lyapunov(P, 10.0, 0.5),
                 lambda: LY.lyapunov_exponent(P, 10.0, 0.5, model="dae")):
        with pytest.raises(ParameterError, match="clearance"):
            call()
    with pytest.raises(ParameterError, match="model"):
        LY.lyapunov_exponent(P, 10.0, 5e-4, model="DAE")


# ---- every argument of the public functions named when bad ------------------------------------------------------
PARAMS = st.sampled_from([1.0, "x", [], {"geometry": {}}])
JOINT = st.sampled_from(["B4", "", None, 1, True, ["B1"], "b1"])
SMALL = dict(params=None, frequency=12.0, clearance=5e-4, joint="B1", rtol=1e-6, eps=1e-5, n_periods=1,
             n_transient=0, per_period=2, n_align=0, seed=0)
KINDS = {"params": PARAMS, "frequency": "positive", "clearance": "positive", "joint": JOINT,
         "rtol": st.sampled_from([0.0, 1.0, -1e-9, float("nan"), "x", True]),
         "eps": st.sampled_from([0.0, 1.0, -1e-6, float("nan"), "x", True]), "n_periods": "count",
         "n_transient": "seed", "per_period": "count", "n_align": "seed", "seed": "seed"}
ENTRY_POINTS = {
    "tangent_lyapunov": (LY.tangent_lyapunov, SMALL | {"x0": None, "saltation": True},
                         KINDS | {"x0": st.sampled_from([[0.0] * 3, "x", [float("nan")] * 4]),
                                  "saltation": st.sampled_from([None, "yes", 1.5])}),
    "dae_tangent_lyapunov": (LY.dae_tangent_lyapunov, SMALL | {"alpha": None},
                             KINDS | {"alpha": st.sampled_from([-1.0, float("nan"), "x", True])}),
    "lyapunov_exponent": (LY.lyapunov_exponent, {k: SMALL[k] for k in ("params", "frequency", "clearance", "joint",
                                                                         "rtol", "eps", "n_periods")}
                          | {"model": "fast", "n_transient": 0, "n_align": 0, "per_period": 2, "progress": False},
                          {k: KINDS[k] for k in ("params", "frequency", "clearance", "joint", "rtol", "eps",
                                                 "n_periods")} | {"model": st.sampled_from(["DAE", None, 1, ""]),
                                                                  "progress": st.sampled_from(["yes", 2, 1.0])}),
}
NOT_FUZZED = {"TangentExponent": "result container", "Exponent": "result container of lyapunov_exponent",
              "combine": "combines three computed runs (lyapunov_exponent, the chapter's stored DAE runs)"}

test_every_valid_call_works, test_a_bad_argument_is_named = entry_point_tests(ENTRY_POINTS)


@pytest.mark.fuzz
def test_the_table_covers_the_public_names_and_arguments():
    public = {n for n in LY.__all__ if callable(getattr(LY, n))}
    assert sorted(public - set(ENTRY_POINTS) - set(NOT_FUZZED)) == []
    for name, (fn, _, kinds) in ENTRY_POINTS.items():
        params = set(inspect.signature(fn).parameters) - {"kw"}
        assert sorted(params - set(kinds)) == [], name
