"""The gear-shift manipulator and the slider-crank validation case (robolib.gearshift.model)."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from fuzzing import budget, names
from hypothesis import assume, given
from hypothesis import strategies as st

from conftest import PROMPT_CPU_S, refusal
from robolib import ParameterError, ParameterFileError, RobolibError, UnreachableError
from robolib import gearshift as G
from robolib import multibody as mb
from robolib.core.clearance import ClearanceModel, ClearanceSpec, contact_modes, mode_shares
from robolib.gearshift import store as B

# ==== the gear-shift and slider-crank models against closed forms and energy books ==================================
#
# Gear-shift manipulator and slider-crank validation case (robolib.gearshift, robolib.core.clearance).
#
# Independent routes: the exact slider-crank kinematics (and finite differences
# of it), convergence of the clearance response to the ideal one as c -> 0, the
# energy books with lossless contact, the linearised end-effector error formula
# (Eqs. 21-22) against the direct difference, numpy vs compiled kernels.

P = G.load_parameters()


GS = G.build_gearshift(P)


SC = G.build_slider_crank()


T_CRANK = 2 * math.pi / SC.omega


# ----------------------------------------------------------------------------- data and topology
def test_parameters_and_topology():
    assert P["geometry"]["link_length"] == 0.12 and P["clearance"]["joints"] == "B1"
    red = GS.mech.without(GS.mech.driver_names)
    assert (GS.mech.n, red.m) == (21, 19)  # Eq. 14: 19 rows for 21 coordinates
    assert GS.mech.driver_names == ["drive1", "drive2"]
    p2 = G.with_changes(P, **{"motion.driven_chains": np.array([2.0, 3.0])})
    assert G.build_gearshift(p2).mech.driver_names == ["drive2", "drive3"]


def test_bad_parameter_file(tmp_path):
    from robolib.core.params import resolve_data_path

    src = resolve_data_path("gearshift/default.yaml").read_text()
    bad = tmp_path / "bad.yaml"
    bad.write_text(src.replace("link_mass: 0.25", "link_mass: -0.25"))
    with pytest.raises(ParameterFileError, match="geometry.link_mass"):
        G.load_parameters(bad)
    bad.write_text(src.replace("youngs_modulus: 2.07e+11", "youngs_modulus: 0.0"))
    with pytest.raises(ParameterFileError, match="clearance.youngs_modulus"):
        G.load_parameters(bad)


def test_chain_ik_rates_match_finite_differences():
    st = GS.stroke
    h = 1e-6
    for i in range(3):
        for t in (0.03, 0.21, 0.4):
            th = lambda s: G.chain_ik(GS.A[i], *st(s), GS.l, GS.l, GS.signs[i])  # noqa: E731
            a, b, c = th(t - h), th(t), th(t + h)
            assert b[2] == pytest.approx((c[0] - a[0]) / (2 * h), rel=1e-6, abs=1e-9)
            assert b[3] == pytest.approx((c[1] - a[1]) / (2 * h), rel=1e-6, abs=1e-9)
            assert b[4] == pytest.approx((c[2] - a[2]) / (2 * h), rel=1e-5, abs=1e-6)
    with pytest.raises(UnreachableError, match="out of reach"):
        G.chain_ik((0, 0), (0.3, 0.0), (0, 0), (0, 0), 0.12, 0.12, 1.0)


def test_ideal_dae_follows_closed_form():
    ts = np.linspace(0, 1.0, 21)
    r = G.simulate_ideal(GS, 1.0, t_eval=ts, rtol=1e-8, atol=1e-11)
    q_cf = np.array([GS.ideal_state(t)[0] for t in ts])
    assert np.abs(r.y[:, :21] - q_cf).max() < 2e-7


# ----------------------------------------------------------------------------- slider-crank
def test_slider_closed_form_is_the_derivative_of_the_position():
    r, L, w = SC.r, SC.L, 3.0
    phi = np.linspace(0, 2 * np.pi, 13)
    h = 1e-4
    x = lambda p: G.slider_closed_form(p, w, r, L)[0]  # noqa: E731
    _, xd, xdd = G.slider_closed_form(phi, w, r, L)
    np.testing.assert_allclose(xd, w * (x(phi + h) - x(phi - h)) / (2 * h), atol=1e-8)
    np.testing.assert_allclose(xdd, w**2 * (x(phi + h) - 2 * x(phi) + x(phi - h)) / h**2, atol=1e-5)
    # the first terms of the classical series -r w^2 (cos phi + (r/L) cos 2 phi + ...)
    series = -r * w**2 * (np.cos(phi) + (r / L) * np.cos(2 * phi))
    assert np.abs(xdd - series).max() < 0.1 * r * w**2


def test_slider_crank_ideal_acceleration_equals_closed_form():
    k = SC.mech.coordinate("slider", "x")
    for t in np.linspace(0, T_CRANK, 9):
        q, qd, qdd = mb.kinematic_state(SC.mech, SC.ideal_state(t)[0] + 1e-4, t)
        x, xd, xdd = G.slider_closed_form(SC.phi0 + SC.omega * t, SC.omega, SC.r, SC.L)
        assert q[k] == pytest.approx(x, abs=1e-13)
        assert qd[k] == pytest.approx(xd, rel=1e-10, abs=1e-10)
        assert qdd[k] == pytest.approx(xdd, rel=1e-9, abs=1e-7)
        # and the augmented (Newton-Euler DAE) solve gives the same acceleration
        qdd_dae, _ = SC.mech.accelerations(q, qd, t)
        assert qdd_dae[k] == pytest.approx(xdd, rel=1e-9, abs=1e-7)


def test_slider_crank_clearance_converges_to_ideal():
    ts = np.linspace(0, 2 * T_CRANK, 201)
    x_id = np.array([SC.ideal_state(t)[0][6] for t in ts])
    v_id = np.array([SC.ideal_state(t)[1][6] for t in ts])
    dx, dv = [], []
    cs = (5e-4, 1e-4, 2e-5)
    for c in cs:
        cm, r = G.simulate_clearance(SC, 2 * T_CRANK, t_eval=ts, cmodel=G.clearance_model(SC, clearance=c))
        dx.append(np.abs(r.q[:, 6] - x_id).max())
        dv.append(np.abs(r.qd[:, 6] - v_id).max())
    for c, e in zip(cs, dx):
        assert c * 0.5 < e < 2 * c   # the slider error is of the size of the clearance
    assert dx[0] > dx[1] > dx[2] and dv[0] > dv[1] > dv[2]
    assert dx[2] < 4e-5 and dv[2] < 0.15 * dv[0]


def test_slider_crank_energy_balance_with_lossless_contact():
    p = G.with_changes(G.load_slider_crank(), **{"clearance.restitution": 1.0, "clearance.friction": 0.0})
    sc = G.build_slider_crank(p)
    ts = np.linspace(0, 2 * T_CRANK, 401)
    res = {}
    for rtol in (1e-7, 1e-10):
        cm, r = G.simulate_clearance(sc, 2 * T_CRANK, t_eval=ts, rtol=rtol, atol=rtol * 1e-3)
        eb = cm.energy_balance(r)
        res[rtol] = np.abs(eb["residual"]).max()
        assert np.all(r.W_loss == 0.0)          # no dissipation anywhere
    E_contact = cm.contact_energy(r.q).max()
    assert sum(len(e) for e in r.episodes) > 2 and E_contact > 0.1   # real impacts happened
    assert res[1e-10] < 1e-4 * E_contact and res[1e-10] < 1e-6 * np.ptp(r.W_drive)
    assert res[1e-10] < res[1e-7] / 20      # what is left is integration error


def test_slider_crank_energy_balance_with_losses():
    cm, r = G.simulate_clearance(SC, 2 * T_CRANK, t_eval=np.linspace(0, 2 * T_CRANK, 201), rtol=1e-8, atol=1e-11)
    eb = cm.energy_balance(r)
    assert r.W_loss[-1] > 1e-3
    assert np.abs(eb["residual"]).max() < 1e-2 * r.W_loss[-1]


# ----------------------------------------------------------------------------- gear-shift with clearance
def _lossless_gs():
    return G.build_gearshift(G.with_changes(P, **{"clearance.restitution": 1.0, "clearance.friction": 0.0,
                                                  "gearbox.damping": 0.0}))


def test_gearshift_energy_balance_with_lossless_contact():
    gs = _lossless_gs()
    cm, r = G.simulate_clearance(gs, 0.3, t_eval=np.linspace(0, 0.3, 301), rtol=1e-8, atol=1e-11)
    eb = cm.energy_balance(r)
    assert np.all(r.W_loss == 0.0) and len(r.episodes[0]) > 3
    assert np.abs(eb["residual"]).max() < 1e-5 * np.abs(r.W_drive).max()


def test_gearshift_clearance_converges_to_ideal():
    ts = np.linspace(0.0, 0.25, 101)
    E_id = GS.end_point(np.array([GS.ideal_state(t)[0] for t in ts]))
    err = []
    for c in (1e-4, 1e-5):
        cm, r = G.simulate_clearance(GS, 0.25, t_eval=ts, cmodel=G.clearance_model(GS, clearance=c))
        err.append(np.abs(GS.end_point(r.q) - E_id).max())
        assert err[-1] < 3 * c
    assert err[1] < err[0] / 5


def test_end_effector_errors_linearised_agree_with_direct():
    ts = np.linspace(0.05, 0.3, 126)
    cm, r = G.simulate_clearance(GS, 0.3, t_eval=ts)
    qdd = cm.accelerations(r)
    ideal = [GS.ideal_state(t) for t in ts]
    qi, qdi, qddi = (np.array([s[k] for s in ideal]) for k in range(3))
    e = G.end_effector_errors(GS, r.q, r.qd, qdd, qi, qdi, qddi)
    c = cm.specs[0].clearance
    assert 0.3 * c < np.abs(e["dp"]).max() < 3 * c
    for key, tol in (("p", 5e-3), ("v", 1e-2), ("a", 5e-2)):
        d, lin = e["d" + key], e["d" + key + "_lin"]
        assert np.abs(lin - d).max() < tol * np.abs(d).max(), key
    # Eq. 21 mapping: Delta l_11 is the eccentricity along link 11 (|.| <= c + penetration)
    assert np.abs(e["dl"][:, 0]).max() < 1.1 * c and np.abs(e["dl"][:, 1]).max() < 1e-12


def test_contact_bookkeeping_is_consistent():
    ts = np.linspace(0.0, 0.2, 2001)
    cm, r = G.simulate_clearance(GS, 0.2, t_eval=ts)
    forces = cm.contact_forces(r)
    modes = contact_modes(ts, r.episodes[0], cm.impact_max_duration)
    in_contact = forces["delta"][0] > 0
    # samples with penetration lie in an episode and vice versa (episode ends are event-located)
    assert np.mean((modes > 0) == in_contact) > 0.995
    assert np.all(forces["F_n"][0][~in_contact] == 0) and forces["F_n"].max() > 1.0
    assert np.all(np.abs(forces["F_t"][0]) <= cm.specs[0].mu * forces["F_n"][0] + 1e-12)
    sh = mode_shares(r.episodes[0], 0.0, 0.2, cm.impact_max_duration)
    assert sh["free flight"] + sh["impact"] + sh["continuous contact"] == pytest.approx(1.0)
    for t_on, t_off, d0 in r.episodes[0]:
        assert d0 >= cm.specs[0].ddelta0_floor and (np.isnan(t_off) or t_off > t_on)


def test_several_clearance_joints_at_once():
    cm = G.clearance_model(GS, joints="B1,E2")
    assert cm.reduced.m == GS.mech.m - 4
    cm, r = G.simulate_clearance(GS, 0.1, t_eval=np.linspace(0, 0.1, 101), cmodel=cm, rtol=1e-7, atol=1e-10)
    assert all(len(ep) > 0 for ep in r.episodes)
    eb = cm.energy_balance(r)
    assert np.abs(eb["residual"]).max() < 1e-3 * max(r.W_loss[-1], 1e-3)


def test_numba_and_numpy_backends_agree():
    pytest.importorskip("numba")
    # through the first impact (t = 4.1 ms); later grazing contacts amplify round-off differences
    ts = np.linspace(0, 0.006, 13)
    out = {}
    for be in ("numba", "numpy"):
        cm, r = G.simulate_clearance(GS, 0.006, t_eval=ts, backend=be)
        out[be] = r
    assert len(out["numba"].episodes[0]) >= 1
    assert out["numba"].episodes[0][0][2] == pytest.approx(out["numpy"].episodes[0][0][2], rel=1e-6)
    np.testing.assert_allclose(out["numba"].q, out["numpy"].q, atol=1e-10)


# ----------------------------------------------------------------------------- bad input
def test_clearance_bad_input():
    with pytest.raises(ParameterError, match=names("clearance", "bearing radius")):
        ClearanceSpec("B1", clearance=5e-3, R_bearing=5e-3)
    with pytest.raises(ParameterError, match=names("clearance", "positive")):
        ClearanceSpec("B1", clearance=0.0)
    with pytest.raises(ParameterError, match=names("stiffness", "positive")):
        ClearanceSpec("B1", clearance=1e-4, stiffness=0.0)
    with pytest.raises(ParameterError, match=names("stiffness", "positive")):
        ClearanceSpec("B1", clearance=1e-4, stiffness=-1e9)
    with pytest.raises(ParameterError, match="'Z9'"):
        G.clearance_model(GS, joints="Z9")
    with pytest.raises(ParameterError, match=names("'lock'", "not a revolute")):
        ClearanceModel(GS.mech, [ClearanceSpec("lock", 1e-4)])
    with pytest.raises(ParameterError, match="restitution"):
        ClearanceSpec("B1", clearance=1e-4, restitution=0.0)
    with pytest.raises(ParameterError, match="driven_chains"):
        G.build_gearshift(G.with_changes(P, **{"motion.driven_chains": np.array([1.0, 1.0])}))
    with pytest.raises(ParameterError, match=names("unknown parameter", "'motion.speed'")):
        G.with_changes(P, **{"motion.speed": 1.0})


def test_gearshift_that_does_not_assemble():
    far = G.with_changes(P, **{"geometry.A3": np.array([0.12, 0.6])})
    with pytest.raises(UnreachableError, match="out of reach"):
        G.build_gearshift(far)
    big_stroke = G.with_changes(P, **{"motion.stroke_amplitude": 0.2})
    gs = G.build_gearshift(big_stroke)  # t = 0 assembles ...
    with pytest.raises(UnreachableError, match="out of reach"):
        G.ideal_motion(gs, [0.125])      # ... the stroke does not


def test_chain1_variables_rates_match_finite_differences():
    """l_1k, theta_1k and their rates along a smooth, non-rigid motion (every coordinate oscillates)."""
    rng = np.random.default_rng(11)
    q0 = GS.ideal_state(0.1)[0]
    amp = rng.uniform(1e-3, 4e-3, 21) * np.tile([1.0, 1.0, 20.0], 7)
    om = rng.uniform(5.0, 15.0, 21)
    ph = rng.uniform(0, 2 * np.pi, 21)
    q = lambda t: q0 + amp * np.sin(om * t + ph)  # noqa: E731
    qd = lambda t: amp * om * np.cos(om * t + ph)  # noqa: E731
    qdd = lambda t: -amp * om ** 2 * np.sin(om * t + ph)  # noqa: E731
    v = lambda t: G.chain1_variables(GS, q(t), qd(t), qdd(t))  # noqa: E731
    h = 1e-5
    for t in (0.0, 0.13, 0.41):
        a, b, c = v(t - h), v(t), v(t + h)
        for x, xd in (("l", "ld"), ("theta", "thetad"), ("ld", "ldd"), ("thetad", "thetadd")):
            fd = (c[x] - a[x]) / (2 * h)
            np.testing.assert_allclose(b[xd], fd, rtol=1e-6, atol=1e-7 * np.abs(fd).max(), err_msg=xd)
        np.testing.assert_allclose(b["vE"], (c["E"] - a["E"]) / (2 * h), rtol=1e-6, atol=1e-9)
        np.testing.assert_allclose(b["aE"], (c["vE"] - a["vE"]) / (2 * h), rtol=1e-6, atol=1e-7)
    assert np.abs(b["ld"]).max() > 1e-3 and np.abs(b["thetadd"]).max() > 0.05   # the rates are not trivially zero


# ----------------------------------------------------------------------------- arguments of the kernels
NAN, INF = float("nan"), float("inf")


def _refused(fun, *args, name, valid, **kwargs):
    """``fun(*args, **kwargs)`` raises ParameterError naming ``name`` and its valid values, before any integration."""
    msg, cpu = refusal(lambda: fun(*args, **kwargs),
                       rf"^{re.escape(name)} = .* is not valid: {re.escape(name)} must be {re.escape(valid)}")
    assert cpu < PROMPT_CPU_S, f"{fun.__name__} {kwargs}: refused after {cpu:.2f} s of CPU"
    return msg


FREQ = "a number > 0 Hz, or None"


RTOL = "a number in (0, 1), or None"


ATOL = "a number > 0, or None"


CLEAR = "a number > 0 m, or None"


#: (argument, bad values, valid values in words) of poincare_run.
POINCARE_BAD = [
    ("frequency", [0.0, -6.0, NAN, INF, True, "6"], FREQ),
    ("clearance", [0.0, -5e-4, NAN, INF, False, "5e-4"], CLEAR),
    ("rtol", [0.0, 1.0, -1e-9, 2.0, NAN, INF, True, "1e-9"], RTOL),
    ("atol", [0.0, -1e-12, NAN, INF, True], ATOL),
    ("n_transient", [-1, 1.5, 20.0, NAN, True, None], "an integer >= 0"),
    ("n_samples", [1, 0, -60, 60.0, NAN, True, None], "an integer >= 2"),
    ("k_max", [0, -1, 2.0, True], "an integer >= 1, or None"),
]


def stable_id(value) -> str:
    """A test id without memory addresses (ids stay the same from one process to the next: mutmut, --lf)."""
    if callable(value) and hasattr(value, "__name__"):
        return value.__name__
    return re.sub(r" at 0x[0-9a-f]+", "", repr(value))[:80]


LYAPUNOV_BAD = [
    ("frequency", [0.0, NAN, -INF], FREQ), ("clearance", [0.0, NAN], CLEAR), ("rtol", [0.0, 1.0], RTOL),
    ("n_transient", [-1, 2.5], "an integer >= 0"), ("n_periods", [0, -4, 24.0, True], "an integer >= 1"),
    ("seed", [-1, 0.5, True], "an integer >= 0"),
    ("alpha", [-1.0, NAN, INF], "a number >= 0 1/s, or None"),
]


@pytest.mark.parametrize("fun, args, kwargs, name, valid", [
    (G.simulate_clearance, (GS, 0.0), {}, "t_end", "a number > t_start = 0 s"),
    (G.simulate_clearance, (GS, 0.1), {"t_start": 0.2}, "t_end", "a number > t_start = 0.2 s"),
    (G.simulate_clearance, (GS, NAN), {}, "t_end", "a finite number s"),
    (G.simulate_clearance, (GS, 0.1), {"t_start": INF}, "t_start", "a finite number s"),
    (G.simulate_clearance, (GS, 0.1), {"rtol": 0.0}, "rtol", RTOL),
    (G.simulate_clearance, (GS, 0.1), {"atol": 0.0}, "atol", ATOL),
    (G.simulate_ideal, (GS, -1.0), {}, "t_end", "a number > t_start = 0 s"),
    (G.simulate_ideal, (GS, 0.1), {"rtol": 1.5}, "rtol", RTOL),
    (G.clearance_model, (GS,), {"clearance": 0.0}, "clearance", CLEAR),
    (G.clearance_specs, (P,), {"clearance": NAN}, "clearance", CLEAR),
    (G.ShiftStroke, ((0.0, 0.0), 0.03, 0.0), {}, "frequency", "a number > 0 Hz"),
    (G.build_gearshift, (G.with_changes(P, **{"motion.frequency": 0.0}),), {}, "motion.frequency", "a number > 0 Hz"),
    (G.build_gearshift, (G.with_changes(P, **{"motion.frequency": NAN}),), {}, "motion.frequency", "a number > 0 Hz"),
], ids=stable_id)
def test_the_models_entry_points_refuse_bad_times_tolerances_and_clearances(fun, args, kwargs, name, valid):
    _refused(fun, *args, name=name, valid=valid, **kwargs)


def test_the_edges_of_the_kernels_ranges_are_valid():
    from robolib.gearshift.model import check_arguments

    check_arguments(frequency=1e-9, clearance=1e-12, rtol=0.999, atol=1e-300, n_transient=0, n_samples=2, k_max=1,
                    n_periods=1, samples_per_period=1, seed=0, alpha=0.0,
                    duration=1e-9, t_start=-1.0, t_end=0.0)
    check_arguments(frequency=None, clearance=None, rtol=None, atol=None, k_max=None, alpha=None)
    check_arguments(frequency=np.float64(6.0), n_samples=np.int64(60), seed=np.int32(3))   # NumPy scalars count
    with pytest.raises(ParameterError, match=names("n_samples", "True")):
        check_arguments(n_samples=np.bool_(True))



# ==== kinematics by finite differences and parameter sets on random inputs ==========================================

@pytest.mark.fuzz
def test_a_parameter_set_with_a_bad_frequency_is_named():
    bad = G.with_changes(P, **{"motion.frequency": 0.0})
    with pytest.raises(RobolibError, match="frequency"):
        G.build_gearshift(bad)
    with pytest.raises(ParameterError, match=names("unknown parameter", "'motion.frequenzy'")):
        G.with_changes(P, **{"motion.frequenzy": 1.0})


# ---- part 2: properties ------------------------------------------------------------------------------
@pytest.mark.fuzz
@budget(40)
@given(l1=st.floats(0.05, 0.3), l2=st.floats(0.05, 0.3), r=st.floats(0.05, 0.95), phi=st.floats(-math.pi, math.pi),
       sign=st.sampled_from([-1.0, 1.0]), vx=st.floats(-1, 1), vy=st.floats(-1, 1), ax=st.floats(-5, 5),
       ay=st.floats(-5, 5))
def test_chain_ik_reaches_e_and_its_rates_match_finite_differences(l1, l2, r, phi, sign, vx, vy, ax, ay):
    """E on a random reachable circle (|l1 - l2| < d < l1 + l2): the chain end is at E, and the angle rates
    and accelerations are the derivatives of the angles along E(t) = E + v t + a t^2 / 2."""
    lo, hi = abs(l1 - l2), l1 + l2
    d = lo + r * (hi - lo)
    assume(d > 1e-3 and hi - d > 1e-3 * hi and d - lo > 1e-3 * hi)
    A = (0.01, -0.02)

    def at(t):
        E = (A[0] + d * math.cos(phi) + vx * t + ax * t * t / 2, A[1] + d * math.sin(phi) + vy * t + ay * t * t / 2)
        return G.chain_ik(A, E, (vx + ax * t, vy + ay * t), (ax, ay), l1, l2, sign), E

    (t1, t2, w1, w2, a1, a2), E = at(0.0)
    end = (A[0] + l1 * math.cos(t1) + l2 * math.cos(t2), A[1] + l1 * math.sin(t1) + l2 * math.sin(t2))
    assert math.dist(end, E) < 1e-12
    h = 1e-6
    (p, _), (m, _) = at(h), at(-h)
    unwrap = lambda x: (x + math.pi) % (2 * math.pi) - math.pi  # noqa: E731
    for k, (rate, acc) in enumerate([(w1, a1), (w2, a2)]):
        fd = unwrap(p[k] - m[k]) / (2 * h)
        fdd = (p[2 + k] - m[2 + k]) / (2 * h)
        scale = 1.0 / min(abs(math.sin(t2 - t1)), 1.0) ** 3
        assert abs(fd - rate) <= 1e-5 * scale * (1 + abs(rate))
        assert abs(fdd - acc) <= 1e-4 * scale * (1 + abs(acc))


@pytest.mark.fuzz
@budget(30)
@given(phi=st.floats(-10, 10), omega=st.floats(-50, 50), r=st.floats(0.01, 0.1), ratio=st.floats(1.2, 5.0))
def test_slider_closed_form_rates_match_finite_differences(phi, omega, r, ratio):
    L, h = r * ratio, 1e-5
    x, xd, xdd = G.slider_closed_form(phi, omega, r, L)
    xp, xdp, _ = G.slider_closed_form(phi + h, omega, r, L)
    xm, xdm, _ = G.slider_closed_form(phi - h, omega, r, L)
    assert abs((xp - xm) / (2 * h) * omega - xd) <= 1e-6 * (abs(omega) * r + 1e-12)
    assert abs((xdp - xdm) / (2 * h) * omega - xdd) <= 1e-5 * (omega * omega * r + 1e-12)
    assert r * math.cos(phi) + math.sqrt(L * L - (r * math.sin(phi)) ** 2) == pytest.approx(x, rel=1e-14)


@pytest.mark.fuzz
@budget(20)
@given(path=st.sampled_from(["motion.frequency", "clearance.radial_clearance", "gearbox.damping", "solver.rtol"]),
       value=st.floats(1e-6, 10.0))
def test_with_changes_changes_exactly_one_leaf(path, value):
    if path == "clearance.radial_clearance":
        value *= 4.9e-4                       # below the journal radius 5 mm (a larger one is refused)
    q = G.with_changes(P, **{path: value})
    a, b = path.split(".")
    assert q[a][b] == value
    plain_q, plain_p = B.json_plain(q), B.json_plain(P)
    plain_q[a][b] = plain_p[a][b]
    assert plain_q == plain_p, "nothing else changed"
    G.model.check_params(q)


# ---- the semantic check at the edge: a clearance at or above the journal radius (mm given as m) ------------------
BAD_SET = G.with_changes(P, **{"clearance.radial_clearance": 0.2})      # 0.2 m: 0.2 mm meant
RUN = dict(n_transient=0)


def _orbits():
    from robolib.gearshift import orbits as O
    return O


#: Every gear-shift entry point a clearance reaches, called with the mistake: (call, the argument it must name).
TOO_LARGE = {
    "poincare_run": (lambda: G.poincare_run(P, 12.0, 0.2, n_samples=2, **RUN), "clearance"),
    "poincare_run fast": (lambda: G.poincare_run(P, 12.0, 0.2, n_samples=2, engine="fast", **RUN), "clearance"),
    "poincare_run set": (lambda: G.poincare_run(BAD_SET, 12.0, n_samples=2, **RUN), "clearance.radial_clearance"),
    "lyapunov_run": (lambda: G.lyapunov_run(P, 12.0, 0.2, n_periods=1, rtol=1e-6), "clearance"),
    "lyapunov_run fast": (lambda: G.lyapunov_run(P, 12.0, 0.2, n_periods=1, engine="fast", rtol=1e-6), "clearance"),
    "orbit_run": (lambda: G.orbit_run(P, 12.0, 0.2, n_periods=1, **RUN), "clearance"),
    "detail_metrics set": (lambda: G.detail_metrics(BAD_SET, duration=0.01), "clearance.radial_clearance"),
    "FastClearance": (lambda: G.FastClearance(P, clearance=0.2), "clearance"),
    "FastClearance set": (lambda: G.FastClearance(BAD_SET), "clearance.radial_clearance"),
    "clearance_specs": (lambda: G.clearance_specs(P, ["B1"], 0.2), "clearance"),
    "clearance_model": (lambda: G.clearance_model(GS, clearance=0.2), "clearance"),
    "build_gearshift set": (lambda: G.build_gearshift(BAD_SET), "clearance.radial_clearance"),
    "check_params set": (lambda: G.model.check_params(BAD_SET), "clearance.radial_clearance"),
    "stroboscopic_map": (lambda: _orbits().stroboscopic_map(P, 12.0, 0.2), "clearance"),
    "StroboscopicMap set": (lambda: _orbits().StroboscopicMap(BAD_SET, 12.0, 5e-4), "clearance.radial_clearance"),
    "periodic_orbit_at": (lambda: _orbits().periodic_orbit_at(P, 12.0, 0.2, n_transient=0, n_samples=2), "clearance"),
    "tangent_lyapunov": (lambda: G.lyapunov.tangent_lyapunov(P, 12.0, 0.2, n_periods=1, n_transient=0), "clearance"),
    "dae_tangent_lyapunov": (lambda: G.lyapunov.dae_tangent_lyapunov(P, 12.0, 0.2, n_periods=1, n_transient=0),
                             "clearance"),
    "lyapunov_exponent": (lambda: G.lyapunov_exponent(P, 12.0, 0.2, model="dae", n_periods=1), "clearance"),
    "frequency_branch": (lambda: _orbits().frequency_branch(P, 0.2, 11.0, 12.0, n_transient=0), "clearance"),
    "sweep_key": (lambda: B.sweep_key(P, [(12.0, 5e-4), (12.0, 0.2)]), "points[1] clearance"),
    "run_sweep": (lambda: B.run_sweep(P, [(12.0, 0.2)], n_transient=0, n_samples=2), "points[0] clearance"),
    "load_or_run": (lambda: B.load_or_run(P, [(12.0, 0.2)], n_transient=0, n_samples=2), "points[0] clearance"),
    "checkpoint_files": (lambda: B.checkpoint_files("x", P, [(12.0, 0.2)]), "points[0] clearance"),
}


@pytest.mark.parametrize("entry", list(TOO_LARGE))
def test_a_clearance_at_or_above_the_journal_radius_is_refused_by_every_entry_point(entry):
    """0.2 m for 0.2 mm is 40 journal radii: refused before any work, naming the argument, the radius and the unit."""
    call, name = TOO_LARGE[entry]
    with pytest.raises(ParameterError, match=re.escape(name)) as exc:
        call()
    assert "journal radius 5 mm" in str(exc.value) and "40x" in str(exc.value)


def test_a_clearance_as_large_as_the_journal_is_refused_and_one_just_below_is_not():
    assert G.model.check_clearance(P, 5e-3 * (1 - 1e-12)) < 5e-3
    with pytest.raises(ParameterError, match=names("clearance", "1x", "journal radius")):
        G.clearance_specs(P, ["B1"], 5e-3)


@pytest.mark.parametrize("loader, file", [(G.load_parameters, "gearshift/default.yaml"),
                                          (G.load_slider_crank, "gearshift/slider_crank.yaml")])
def test_a_parameter_file_with_a_clearance_at_or_above_its_journal_radius_is_refused(loader, file, tmp_path):
    from robolib import DATA_DIR, ParameterFileError
    text = (DATA_DIR / file).read_text()
    line = next(x for x in text.splitlines() if x.strip().startswith("radial_clearance:"))
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace(line, line.split(":")[0] + ": 0.5  # m (0.5 mm meant)"))
    with pytest.raises(ParameterFileError, match=names("bad.yaml", "radial_clearance", "journal radius")) as exc:
        loader(bad)
    assert "metres" in str(exc.value)
