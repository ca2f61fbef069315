"""The fast minimal-coordinate clearance model (robolib.gearshift.fast)."""

from __future__ import annotations

import numpy as np
import pytest
from fuzzing import names

from robolib import ParameterError, UnreachableError
from robolib import gearshift as G
from robolib.gearshift import fast as F
from robolib.gearshift.fast import FastClearance
from robolib.studies.clearance_dynamics.settings import CLEARANCE_JOINTS

# ==== a refused call leaves the model as it was =====================================================================

# ---- the valid objects (tiny) ---------------------------------------------------------------------------
FC = F.FastClearance(joint="B1")                       # 2 Hz, 0.5 mm (the parameter file's)


@pytest.mark.fuzz
def test_a_valid_call_after_a_refused_one_is_unchanged():
    """A refused argument leaves the model as it was: the same return as before the bad calls."""
    before = FC.return_map(np.zeros(4), rtol=1e-5, atol=1e-8)
    for bad in (dict(rtol=0.0), dict(atol=-1.0), dict(n_periods=0), dict(t0=np.nan)):
        with pytest.raises(ParameterError):
            FC.return_map(np.zeros(4), **{"rtol": 1e-5, "atol": 1e-8, **bad})
    assert np.array_equal(FC.return_map(np.zeros(4), rtol=1e-5, atol=1e-8), before)



# ==== the fast minimal-coordinate model against the DAE and first principles ========================================
#
# The fast minimal-coordinate clearance model (robolib.gearshift.fast) against independent routes.
#
# * the seed's Baumgarte DAE (robolib.core.clearance.ClearanceModel) from the same initial state: the
#   journal trajectory, the contact force, the motor work and Poincaré samples. Both routes integrate
#   the same mechanics, so their difference is integration error: it must be small at rtol 1e-11 and
#   shrink with the tolerance (a modelling difference -- a wrong lever arm, mass, branch or contact
#   law -- would not shrink);
# * kinematics: every DAE constraint row (but the clearance joint's two) at position, velocity and
#   acceleration level; ``T = dq/de`` by central differences; ``qd`` and the bias ``b`` by differences in time;
# * physics: the energy books (kinetic + gearbox spring + contact potential against the motor work
#   ``F_c . q_t`` and the losses), and a lossless run where the energy change is the motor work;
# * the contact event: the stored onset speed is the normal speed at the located first contact;
# * bad input: named ParameterError / UnreachableError.

P = G.load_parameters()


#: A parameter set that breaks the defaults' symmetries: other clearance, frequency, friction, restitution, law.
P2 = G.with_changes(P, **{"clearance.radial_clearance": 3e-4, "motion.frequency": 5.0, "clearance.friction": 0.12,
                          "clearance.restitution": 0.7, "clearance.law": "flores"})


#: Tolerances of the DAE comparison, normalised (e / c, ed / (c omega), F_n / max F_n, W / max |W|). Measured
#: over 0.2 s at rtol 1e-11 (B1, E2; A1 of P2): e 1e-6, ed 3e-4 (sampled next to an impact, where the velocity
#: turns in microseconds and a timing error dt of the impact shows as dt * acceleration), F_n 5e-5, W 6e-8;
#: at 1e-9 ten to eighty times more. The bounds leave a margin of ~50-100 for the other joints and machines.
E_TOL, ED_TOL, F_TOL, W_TOL = 1e-4, 2e-2, 5e-3, 1e-5


#: The e and F_n differences must shrink at least this much from rtol 1e-9 to 1e-11 (measured: 18-210).
SHRINK = 8.0


#: Kinematic identities: constraint rows (m, rad), central differences (relative).
ROW_TOL, FD_TOL = 1e-12, 1e-6


RNG = np.random.default_rng(20)


def _fast(joint="B1", params=P, **kw):
    return FastClearance(params, joint=joint, **kw)


def _normalised_difference(fc, te, rtol):
    """Largest normalised differences fast - DAE over samples ``te`` from the centred journal at rtol."""
    atol = rtol * 1e-3
    r = fc.simulate((0.0, te[-1]), t_eval=te, rtol=rtol, atol=atol)
    cm, rd = G.simulate_clearance(fc.gs, te[-1], t_eval=te, cmodel=fc.cm, rtol=rtol, atol=atol)
    e_d, ed_d = fc.state_from_full(rd.q, rd.qd)
    F, Fd = fc.contact_forces(r)["F_n"], cm.contact_forces(rd)["F_n"][0]
    c, w = fc.clearance, fc.omega
    Wscale = max(np.abs(rd.W_drive).max(), 1e-12)
    d = np.array([np.abs(r.e - e_d).max() / c, np.abs(r.ed - ed_d).max() / (c * w),
                  np.abs(F - Fd).max() / max(Fd.max(), 1e-9), np.abs(r.W_drive - rd.W_drive).max() / Wscale])
    return d, r, rd


@pytest.mark.parametrize("joint, params, t_end", [("B1", P, 0.2), ("A3", P, 0.2), ("E2", P, 0.2), ("C", P, 0.2),
                                                  ("A1", P2, 0.2), ("B2", P2, 0.2)])
def test_agrees_with_dae(joint, params, t_end):
    fc = _fast(joint, params)
    te = np.linspace(0.0, t_end, 301)
    d9, r9, _ = _normalised_difference(fc, te, 1e-9)
    d11, r11, rd11 = _normalised_difference(fc, te, 1e-11)
    assert len(r11.episodes) == len(rd11.episodes[0]) > 5  # the same impacts, and there are some
    assert np.all(d11 < [E_TOL, ED_TOL, F_TOL, W_TOL]), d11
    assert d11[0] < d9[0] / SHRINK and d11[2] < d9[2] / SHRINK, (d9, d11)
    on = np.array([ep[0] for ep in r11.episodes])
    on_d = np.array([ep[0] for ep in rd11.episodes[0]])
    assert np.abs(on - on_d).max() < 1e-6  # impact onset times (s)


def test_poincare_samples_agree_with_dae():
    """Stroboscopic samples at drive phase 0 (P2: 5 Hz) and the return map agree with the DAE's."""
    fc = _fast("B1", P2)
    te = np.arange(1, 5) * fc.period
    r = fc.simulate((0.0, te[-1]), t_eval=te, rtol=1e-11, atol=1e-14)
    _, rd = G.simulate_clearance(fc.gs, te[-1], t_eval=te, cmodel=fc.cm, rtol=1e-11, atol=1e-14)
    e_d, ed_d = fc.state_from_full(rd.q, rd.qd)
    c, w = fc.clearance, fc.omega
    assert np.abs(r.e - e_d).max() / c < E_TOL and np.abs(r.ed - ed_d).max() / (c * w) < ED_TOL
    # local frame of the bearing, as the chapter's Poincaré runs sample it
    orb = G.journal_orbit(fc.cm, rd.q, rd.qd)
    q, _ = fc.trajectory(r.t, r.e, r.ed)
    assert np.abs(fc.e_local(q, r.e) - orb.e_local).max() / c < E_TOL
    # the return map from the centred journal is the run's first sample; with the onset speed carried as a
    # 5th component, three single-period maps continue the run to its third sample
    x1 = fc.return_map(np.zeros(4), 0.0, 1, rtol=1e-11, atol=1e-14)
    assert x1.shape == (4,)
    assert np.abs(x1[:2] - r.e[0]).max() / c < E_TOL and np.abs(x1[2:] - r.ed[0]).max() / (c * w) < ED_TOL
    y = np.append(np.zeros(4), fc.spec.ddelta0_floor)
    for k in range(3):
        y = fc.return_map(y, k * fc.period, 1, rtol=1e-11, atol=1e-14)
    assert y.shape == (5,) and y[4] >= fc.spec.ddelta0_floor
    assert np.abs(y[:2] - r.e[2]).max() / c < E_TOL and np.abs(y[2:4] - r.ed[2]).max() / (c * w) < ED_TOL


# ----------------------------------------------------------------------------- kinematics
@pytest.mark.parametrize("joint", CLEARANCE_JOINTS)
def test_kinematics_satisfies_the_constraints(joint):
    fc = _fast(joint)
    red = fc.cm.reduced
    for _ in range(4):
        t = float(RNG.uniform(0.0, 0.5))
        e, ed, edd = RNG.normal(size=2) * 2e-4, RNG.normal(size=2) * 0.05, RNG.normal(size=2) * 50.0
        k = fc.kinematics(e, ed, t)
        q, qd, qdd = k["q"], k["qd"], k["T"] @ edd + k["b"]
        assert np.abs(red.residual(q, t)).max() < ROW_TOL
        assert np.abs(red.jacobian(q) @ qd + red.time_derivative(t)).max() < ROW_TOL
        assert np.abs(red.jacobian(q) @ qdd - red.gamma(q, qd, t)).max() < 1e-9  # m/s^2 of |qdd| ~ 1e3
        e2, ed2 = fc.state_from_full(q, qd)
        assert np.abs(e2 - e).max() < 1e-15 and np.abs(ed2 - ed).max() < 1e-13
    # e = 0 is the ideal mechanism (the DAE's closed-form assembly, its elbow branches)
    for t in (0.0, 0.13, 0.41):
        k = fc.kinematics((0.0, 0.0), (0.0, 0.0), t)
        q, qd, qdd = fc.gs.ideal_state(t)
        assert np.abs(k["q"] - q).max() < 1e-12 and np.abs(k["qd"] - qd).max() < 1e-12
        assert np.abs(k["b"] - qdd).max() < 1e-9


@pytest.mark.parametrize("joint, driven", [("B1", (1.0, 2.0)), ("A2", (1.0, 2.0)), ("E3", (1.0, 2.0)),
                                           ("B1", (2.0, 3.0)), ("E2", (1.0, 3.0))])
def test_jacobian_and_bias_by_finite_differences(joint, driven):
    p = G.with_changes(P, **{"motion.driven_chains": np.array(driven)})
    fc = _fast(joint, p)
    t, e, ed = 0.27, np.array([7e-5, -4e-5]), np.array([0.03, -0.02])
    k = fc.kinematics(e, ed, t)
    h = 1e-7
    T_fd = np.stack([(fc.kinematics(e + h * u, ed, t)["q"] - fc.kinematics(e - h * u, ed, t)["q"]) / (2 * h)
                     for u in np.eye(2)], axis=1)
    assert np.abs(T_fd - k["T"]).max() < FD_TOL * np.abs(k["T"]).max()
    # along e(s) = e + ed s (edd = 0): q' = qd and q'' = b
    ht = 1e-4
    qp, q0, qm = (fc.kinematics(e + ed * s, ed, t + s)["q"] for s in (ht, 0.0, -ht))
    assert np.abs((qp - qm) / (2 * ht) - k["qd"]).max() < 1e-6 * np.abs(k["qd"]).max()
    assert np.abs((qp - 2 * q0 + qm) / ht ** 2 - k["b"]).max() < 1e-4 * np.abs(k["b"]).max()


def test_unreachable_pose_is_named():
    fc = _fast("B1")
    with pytest.raises(UnreachableError, match=names("clearance joint B1", "t = 0.1 s")):
        fc.kinematics((0.5, 0.0), (0.0, 0.0), 0.1)


# ----------------------------------------------------------------------------- physics
def test_energy_balance():
    """Energy change = motor work (F_c . q_t) - gearbox damper - contact hysteresis - friction, over a run."""
    fc = _fast("B1")
    r = fc.simulate((0.0, 0.4), t_eval=np.linspace(0.0, 0.4, 801))
    eb = fc.energy_balance(r)
    scale = np.abs(eb["W_drive"]).max() + np.abs(eb["W_loss"]).max()
    assert len(r.episodes) > 10 and r.W_loss[-1] > 0
    assert np.abs(eb["residual"]).max() < 1e-6 * scale, np.abs(eb["residual"]).max() / scale


def test_lossless_contact_conserves_energy_but_the_drive_work():
    p = G.with_changes(P, **{"clearance.restitution": 1.0, "clearance.friction": 0.0, "gearbox.damping": 0.0})
    fc = _fast("E2", p)
    r = fc.simulate((0.0, 0.3), t_eval=np.linspace(0.0, 0.3, 601))
    eb = fc.energy_balance(r)
    assert len(r.episodes) > 5 and np.abs(r.W_loss).max() == 0.0
    dE = eb["mechanical"] - eb["mechanical"][0]
    assert np.abs(dE - r.W_drive).max() < 1e-6 * np.abs(r.W_drive).max()


def test_onset_speed_is_the_normal_speed_at_first_contact():
    fc = _fast("B1")
    r = fc.simulate((0.0, 0.1))
    t_on, _t_off, d0 = r.episodes[0]
    s = fc.simulate((0.0, 0.1), t_eval=[t_on])
    eps = np.hypot(*s.e[0])
    assert abs(eps - fc.clearance) < 1e-9 * fc.clearance
    assert abs(s.ed[0] @ s.e[0] / eps - d0) < 1e-6 * d0
    shares = fc.mode_shares(r)
    assert abs(shares["free flight"] + shares["impact"] + shares["continuous contact"] - 1) < 1e-9


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("kw, match", [
    ({"joint": "B4"}, names("joint", "'B4'")), ({"joint": "B1,B2"}, "joint = 'B1,B2'"),
    ({"joint": ["B1", "B2"]}, "joint = \\['B1', 'B2'\\]"), ({"joint": None}, "joint = None"),
    ({"clearance": 0.0}, "clearance = 0.0"), ({"clearance": -1e-4}, "clearance"),
    ({"frequency": float("nan")}, "frequency = nan"), ({"frequency": 0.0}, "frequency"),
    ({"error_scale": "x"}, "error_scale"),
])
def test_bad_model_arguments(kw, match):
    with pytest.raises(ParameterError, match=match):
        FastClearance(P, **kw)


@pytest.mark.parametrize("call, match", [
    (lambda f: f.simulate((0.0, 0.1), rtol=2.0), "rtol"), (lambda f: f.simulate((0.1, 0.0)), "t_span"),
    (lambda f: f.simulate((0.0, float("nan"))), "t_span"), (lambda f: f.simulate((0.0, 0.1), e0=(0.0,)), "e0"),
    (lambda f: f.simulate((0.0, 0.1), t_eval=[0.2]), "t_eval"), (lambda f: f.simulate((0.0, 0.1), ddelta0=0.0), "ddelta0"),
    (lambda f: f.return_map(np.zeros(3)), names("x", "4")),
    (lambda f: f.return_map(np.zeros(4), n_periods=0), "n_periods"),
    (lambda f: f.kinematics((0.0, float("inf")), (0.0, 0.0), 0.0), names("e", "finite")),
])
def test_bad_call_arguments(call, match):
    with pytest.raises(ParameterError, match=match):
        call(FAST)


FAST = FastClearance(P)


def test_converted_result_feeds_the_dae_tools():
    """The run as a ClearanceResult: the DAE's contact kinematics of q(e, t) give the fast model's forces and modes."""
    fc = _fast("C")
    r = fc.simulate((0.0, 0.1), t_eval=np.linspace(0.0, 0.1, 2001))
    cr = fc.as_clearance_result(r)
    F, Fd = fc.contact_forces(r), fc.cm.contact_forces(cr)
    assert F["F_n"].max() > 1.0
    assert np.abs(F["F_n"] - Fd["F_n"][0]).max() < 1e-9 * F["F_n"].max()
    assert np.abs(F["F_t"] - Fd["F_t"][0]).max() < 1e-9 * F["F_n"].max()
    orb = G.journal_orbit(fc.cm, cr.q, cr.qd)
    assert np.abs(orb.e - r.e).max() < 1e-15 and np.abs(orb.e_dot - r.ed).max() < 1e-12
    assert np.abs(fc.cm.energy_balance(cr)["residual"]).max() < 1e-6 * np.abs(r.W_drive).max()
