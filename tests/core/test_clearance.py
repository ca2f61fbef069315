"""Clearance joints (robolib.core.clearance): impacts, contact forces, episodes and mode shares."""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest
from fuzzing import _array_bad, bad_values, budget, entry_point_tests, names
from hypothesis import given
from hypothesis import strategies as st

from robolib import ParameterError, contact
from robolib import clearance as C
from robolib import multibody as mb

# ----------------------------------------------------------------------------- contact physics through the simulator
# (issue 11) The checks below go through ClearanceModel (event handling, stored onset speed,
# contact kinematics, the compiled and numpy right-hand sides), not through the law alone,
# and compare with quantities computed here from first principles.
from robolib.core.clearance import (
    CONTINUOUS,
    FREE,
    IMPACT,
    ClearanceModel,
    ClearanceResult,
    ClearanceSpec,
    contact_modes,
    mode_shares,
)
from robolib.core.multibody import Body, GroundPin, Mechanism, Pin, resolve_backend

# ==== one impact of a clearance joint from first principles =========================================================

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


@pytest.mark.parametrize("backend", BACKENDS)
def test_isolated_impact_restitution_and_stored_onset_speed(backend):
    cm, r, speed = _free_disc_impact(backend)
    assert len(r.episodes[0]) == 1
    t_on, t_off, d0 = r.episodes[0][0]
    # first contact where the straight free flight reaches |e| = c, with the approach speed
    assert t_on == pytest.approx(1e-4 / speed, rel=1e-9)
    assert d0 == pytest.approx(speed, rel=1e-9)          # stored onset speed = normal speed at contact
    assert d0 > 100 * cm.specs[0].ddelta0_floor
    # after the impact: back in free flight, moving towards the centre; exit/entry normal speed ratio ~ c_e
    kin = cm.contact_kinematics(r.q, r.qd)
    assert kin["delta"][0, -1] < 0
    v_out = float(np.hypot(*r.qd[-1, :2]))
    assert v_out / speed == pytest.approx(0.9, abs=0.015)
    assert 0 < t_off - t_on < 5e-4     # Hertz contact time of a 1 kg disc at 0.5 m/s: about 0.2 ms


@pytest.mark.parametrize("backend", BACKENDS)
def test_isolated_impact_flores_low_restitution(backend):
    cm, r, speed = _free_disc_impact(backend, law="flores", ce=0.5, v=(-0.2, 0.1))
    assert r.episodes[0][0][2] == pytest.approx(speed, rel=1e-9)
    assert np.hypot(*r.qd[-1, :2]) / speed == pytest.approx(0.5, abs=0.035)


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


def test_tangential_slip_equals_contact_point_velocities():
    mech, cm, q, qd = _two_body_contact()
    vt_ref, n, t = _contact_point_slip(mech, cm, q, qd)
    kin = cm.contact_kinematics(q, qd)
    assert kin["delta"][0] > 0
    assert kin["v_t"][0] == pytest.approx(vt_ref, rel=1e-6, abs=1e-9)
    # the slip is of the order where R_J vs R_B matters: (w_a + w_b) c is a large part of it
    assert abs((qd[2] + qd[5]) * cm.specs[0].clearance) > 0.2 * abs(vt_ref)


@pytest.mark.parametrize("backend", BACKENDS)
def test_contact_force_of_the_right_hand_side_from_first_principles(backend):
    """No constraint rows are left, so M qdd is the contact force itself: compare with the law."""
    mech, cm, q, qd = _two_body_contact()
    assert cm.reduced.m == 0
    vt_ref, n, t = _contact_point_slip(mech, cm, q, qd)
    spec = cm.specs[0]
    cm.ddelta0[:] = 0.05
    Pa = mech.point_position(q, "a", (0.05, 0.01))
    Pb = mech.point_position(q, "b", (-0.04, 0.02))
    eps = np.linalg.norm(Pb - Pa)
    h = 1e-7
    dd = (np.linalg.norm(mech.point_position(q + h * qd, "b", (-0.04, 0.02)) - mech.point_position(q + h * qd, "a", (0.05, 0.01)))
          - np.linalg.norm(mech.point_position(q - h * qd, "b", (-0.04, 0.02)) - mech.point_position(q - h * qd, "a", (0.05, 0.01)))) / (2 * h)
    Fn = contact.normal_force(eps - spec.clearance, dd, 0.05, spec.K, spec.restitution)
    Ft = contact.tangential_force(Fn, vt_ref, spec.mu, spec.v0, spec.v1)
    assert 0 < abs(Ft) < spec.mu * Fn            # inside the friction ramp: F_t proportional to the slip
    y = np.concatenate([q, qd, [0.0, 0.0]])
    qdd = cm.rhs(backend)(0.0, y)[6:12]
    g = cm.reduced.mass_diag * qdd                 # generalised contact forces
    f_b = g[3:5]                                   # force on the journal body
    assert f_b @ (-n) == pytest.approx(Fn, rel=1e-6)
    assert f_b @ t == pytest.approx(Ft, rel=1e-5)
    np.testing.assert_allclose(g[0:2], -f_b, rtol=1e-12)   # equal and opposite on the bearing
    # moments about each centre of mass: the force acts at the contact points
    Qb = Pb + spec.R_journal_value * n
    Qa = Pa + spec.R_bearing_value * n
    cross = lambda r, f: r[0] * f[1] - r[1] * f[0]  # noqa: E731
    assert g[5] == pytest.approx(cross(Qb - q[3:5], f_b), rel=1e-6)
    assert g[2] == pytest.approx(cross(Qa - q[0:2], -f_b), rel=1e-6)



# ==== clearance joints name a bad argument; contact-mode bookkeeping on random episodes =============================
#
# The clearance joints fuzzed (issue 21, item 1), and the contact-mode bookkeeping on random episodes.
#
# Part 1: :class:`~robolib.core.clearance.ClearanceSpec`, :class:`~robolib.core.clearance.ClearanceModel` and its
# public methods, :func:`~robolib.core.clearance.contact_modes` and :func:`~robolib.core.clearance.mode_shares`,
# each with a valid call and the kind of each argument (tests/fuzzing.py); a bad value must raise a
# :class:`robolib.RobolibError` naming the argument. Part 2, properties on random episode lists: the
# contact modes partition time (each sample has exactly one of the three modes, free flight outside
# every episode, the episode's own mode inside it); the mode shares are in [0, 1], sum to 1, and equal
# the fractions of a fine uniform sampling of :func:`contact_modes`; a short simulation of a journal in
# a clearance ground pin keeps its energy books (hertz law, no friction: residual ~ 0).

NAN, INF = float("nan"), float("inf")


class Kind:
    """An argument kind with its own strategy of bad values (drawn by the harness from ``bad``)."""

    def __init__(self, name, bad):
        self.name, self.bad = name, bad

    def __repr__(self):
        return self.name


def optional(kind) -> Kind:
    return Kind(f"optional {kind!r}", bad_values(kind).filter(lambda v: v is not None))


TEXT = Kind("text", st.sampled_from([None, "", 1.0, True, ["O"]]))


BACKEND = Kind("backend", st.sampled_from(["", "NUMBA", None, 1, True]))


MECH = Kind("mechanism", st.sampled_from([None, "disc", 1.0, {}]))


RESULT = Kind("result", st.sampled_from([None, "run", 1.0, {}]))


SPAN = Kind("t_span", st.one_of(_array_bad((2,)), st.sampled_from([(1.0, 0.0), (0.0,)])))


EPISODES = Kind("episodes", st.sampled_from([
    None, "x", 1.0, {}, [(0.1, 0.2)], [(NAN, 0.2, 0.1)], [(0.1, INF, 0.1)], [(0.3, 0.2, 0.1)],
    [(0.1, NAN, 0.1), (0.2, 0.3, 0.1)], [(0.1, 0.3, 0.1), (0.2, 0.4, 0.1)], [("a", 0.2, 0.1)], [(True, 0.2, 0.1)]]))


def state(n, batch=False) -> Kind:
    extra = [] if batch else [st.just(np.ones((2, n)))]
    return Kind(f"state({n})", st.one_of(_array_bad((n,)), *extra))


# ---- a model: a disc (the journal) in a clearance ground pin, a spring pulling it off-centre --------------
DISC = mb.Body("disc", 1.0, 1e-3)


MECH0 = mb.Mechanism([DISC], [mb.GroundPin("O", "disc", (0.0, 0.0), (0.0, 0.0))],
                     [mb.PointSpringDamper("k", "disc", (0.0, 0.0), (0.0, -1e-3), 1e3)], name="disc")


SPEC = C.ClearanceSpec("O", clearance=1e-4, law="hertz", mu=0.0, restitution=1.0)


MODEL = C.ClearanceModel(MECH0, [SPEC])


Q0, QD0 = np.zeros(3), np.array([0.0, -0.05, 0.0])


RUN = MODEL.simulate((0.0, 0.02), Q0, QD0, rtol=1e-9, atol=1e-12, backend="numpy")


SPEC_ARGS = dict(joint="O", clearance=1e-4, R_journal=5e-3, R_bearing=None, E_bearing=207e9, nu_bearing=0.3,
                 E_journal=207e9, nu_journal=0.3, restitution=0.9, mu=0.05, v0=1e-4, v1=1e-3,
                 law="lankarani_nikravesh", stiffness=None, ddelta0_floor=1e-4)


POISSON = Kind("Poisson ratio", st.one_of(bad_values("real"), st.sampled_from([-1.0, 0.5, 0.7, -3.0])))


ENTRY_POINTS = {
    "ClearanceSpec": (C.ClearanceSpec, SPEC_ARGS,
                      {"joint": TEXT, "clearance": "positive", "R_journal": "positive",
                       "R_bearing": Kind("R_bearing", st.one_of(bad_values("positive").filter(lambda v: v is not None),
                                                                st.just(5e-5))),
                       "E_bearing": "positive", "nu_bearing": POISSON, "E_journal": "positive", "nu_journal": POISSON,
                       "restitution": Kind("restitution", st.one_of(bad_values("positive"), st.just(1.5))),
                       "mu": "nonnegative", "v0": Kind("v0", st.one_of(bad_values("nonnegative"), st.just(2e-3))),
                       "v1": Kind("v1", st.one_of(bad_values("positive"), st.just(1e-4))),
                       "law": Kind("law", st.sampled_from(["", "Hertz", None, 1, ["hertz"]])),
                       "stiffness": optional("positive"), "ddelta0_floor": "positive"}),
    "ClearanceModel": (C.ClearanceModel, dict(mech=MECH0, specs=[SPEC], alpha=5.0, beta=5.0,
                                              impact_max_duration=1e-3),
                       {"mech": MECH, "specs": Kind("specs", st.sampled_from(
                           [None, SPEC, [], [SPEC, SPEC], ["O"], [C.ClearanceSpec("X", clearance=1e-4)]])),
                        "alpha": "nonnegative", "beta": "nonnegative", "impact_max_duration": "positive"}),
    "ClearanceModel.contact_kinematics": (MODEL.contact_kinematics, dict(q=np.stack([Q0, Q0]), qd=QD0),
                                          {"q": state(3, True), "qd": Kind("qd", st.one_of(
                                              _array_bad((3,)), st.just(np.ones((3, 3)))))}),
    "ClearanceModel.contact_energy": (MODEL.contact_energy, dict(q=Q0), {"q": state(3, True)}),
    "ClearanceModel.contact_forces": (MODEL.contact_forces, dict(result=RUN), {"result": RESULT}),
    "ClearanceModel.rhs": (MODEL.rhs, dict(backend="numpy"), {"backend": BACKEND}),
    "ClearanceModel.simulate": (MODEL.simulate, dict(t_span=(0.0, 1e-3), q0=Q0, qd0=QD0, t_eval=None, rtol=1e-6,
                                                     atol=1e-9, ddelta0=None, work0=(0.0, 0.0), h_max=INF,
                                                     backend="numpy"),
                                {"t_span": SPAN, "q0": state(3), "qd0": state(3),
                                 "t_eval": Kind("t_eval", st.sampled_from([np.array([-1.0]), np.array([1.0]), "x",
                                                                           np.array([NAN]), np.array([1e-3, 0.0])])),
                                 "rtol": "positive", "atol": "positive",
                                 "ddelta0": Kind("ddelta0", st.one_of(_array_bad((1,)).filter(lambda v: v is not None),
                                                                      st.just(np.zeros(1)), st.just(-np.ones(1)))),
                                 "work0": (2,), "h_max": Kind("h_max", st.sampled_from([0.0, -1.0, NAN, "x", None])),
                                 "backend": BACKEND}),
    "ClearanceModel.accelerations": (MODEL.accelerations, dict(result=RUN, backend="numpy"),
                                     {"result": RESULT, "backend": BACKEND}),
    "ClearanceModel.driving_torques": (MODEL.driving_torques, dict(result=RUN), {"result": RESULT}),
    "ClearanceModel.energy_balance": (MODEL.energy_balance, dict(result=RUN), {"result": RESULT}),
    "contact_modes": (C.contact_modes, dict(t=np.linspace(0.0, 4.0, 9), episodes=[(0.9, 1.1, 0.1)],
                                            impact_max_duration=0.5),
                      {"t": Kind("t", st.one_of(bad_values("array"), st.just(np.array([1.0, 0.0])),
                                                st.just(np.ones((2, 2))))),
                       "episodes": EPISODES, "impact_max_duration": "positive"}),
    "journal_orbit": (C.journal_orbit, dict(cm=MODEL, q=np.stack([Q0, Q0]), qd=np.stack([QD0, QD0]), joint=0),
                      {"cm": Kind("cm", st.sampled_from([None, MECH0, "model"])),
                       "q": state(3, True), "qd": Kind("qd", st.one_of(_array_bad((3,)), st.just(np.ones((3, 3))))),
                       "joint": Kind("joint", st.sampled_from([-1, 1, 0.5, "0", None]))}),
    "mode_shares": (C.mode_shares, dict(episodes=[(0.9, 1.1, 0.1)], t0=0.0, t1=4.0, impact_max_duration=0.5),
                    {"episodes": EPISODES, "t0": "real",
                     "t1": Kind("t1 > t0", st.one_of(bad_values("real"), st.sampled_from([0.0, -1.0]))),
                     "impact_max_duration": "positive"}),
}


test_every_valid_call_works, test_a_bad_argument_is_named = entry_point_tests(ENTRY_POINTS)


@pytest.mark.fuzz
def test_the_table_covers_every_public_function_and_method():
    public = {n for n in C.__all__ if callable(getattr(C, n))} - {"ClearanceResult", "JournalOrbit"}   # result records
    assert public == {e for e in ENTRY_POINTS if "." not in e}
    # names with "ǁ" are the mutation tool's copies of the methods (make mutate), not methods of the model
    methods = {f"ClearanceModel.{m}" for m, _ in inspect.getmembers(C.ClearanceModel, inspect.isfunction)
               if not m.startswith("_") and "ǁ" not in m}
    assert methods == {e for e in ENTRY_POINTS if e.startswith("ClearanceModel.")}
    for name, (fn, kwargs, kinds) in ENTRY_POINTS.items():
        assert set(kinds) == set(kwargs), name


@pytest.mark.fuzz
def test_a_result_of_another_model_is_named():
    other = C.ClearanceModel(mb.Mechanism([DISC, mb.Body("b", 1.0, 1.0)], [mb.GroundPin("O", "disc", (0, 0), (0, 0))]),
                             [SPEC])
    with pytest.raises(ParameterError, match=names("result", "not a run")):
        other.energy_balance(RUN)


@pytest.mark.fuzz
def test_the_lossless_run_keeps_its_energy_books():
    """Hertz law, no friction, no damper: motor work and losses are zero and the mechanical energy
    (kinetic + spring + elastic contact) is constant through the impacts."""
    assert sum(len(e) for e in RUN.episodes) >= 1, "the journal hits the bearing"
    books = MODEL.energy_balance(RUN)
    assert np.abs(books["residual"]).max() < 1e-6 * books["mechanical"][0]


# ---- properties on random episodes ---------------------------------------------------------------------------
@st.composite
def episode_lists(draw):
    """Ordered, non-overlapping episodes in [0, 1] s; the last one may be open (t_off NaN)."""
    cuts = sorted(draw(st.lists(st.floats(0.0, 1.0), min_size=0, max_size=10, unique=True)))
    if len(cuts) % 2:
        cuts = cuts[:-1]
    eps = [(cuts[i], cuts[i + 1], 0.1) for i in range(0, len(cuts), 2)]
    if eps and draw(st.booleans()):
        eps[-1] = (eps[-1][0], NAN, 0.1)
    return eps


@pytest.mark.fuzz
@budget(40)
@given(eps=episode_lists(), imd=st.floats(1e-3, 0.5))
def test_contact_modes_partition_time(eps, imd):
    t = np.linspace(0.0, 1.0, 2001)
    mode = C.contact_modes(t, eps, imd)
    assert mode.shape == t.shape and set(np.unique(mode)) <= {C.FREE, C.IMPACT, C.CONTINUOUS}
    inside = np.zeros(t.shape, dtype=int)
    for (t_on, t_off, _) in eps:
        end = t[-1] if np.isnan(t_off) else t_off
        hit = (t >= t_on) & (t <= end)
        inside += hit
        assert np.all(mode[hit] == (C.IMPACT if end - t_on <= imd else C.CONTINUOUS))
    assert np.all(mode[inside == 0] == C.FREE)


@pytest.mark.fuzz
@budget(40)
@given(eps=episode_lists(), imd=st.floats(1e-3, 0.5), window=st.tuples(st.floats(0.0, 0.5), st.floats(0.5, 1.0)))
def test_mode_shares_are_fractions_that_sum_to_one(eps, imd, window):
    t0, t1 = window
    if t1 <= t0:
        return
    sh = C.mode_shares(eps, t0, t1, imd)
    parts = [sh["free flight"], sh["impact"], sh["continuous contact"]]
    assert all(0.0 <= p <= 1.0 for p in parts)
    assert abs(sum(parts) - 1.0) < 1e-11
    assert sh["n_impacts"] + sh["n_continuous"] <= len(eps)
    # against the modes on a fine uniform grid of the window (midpoint rule, error ~ episodes / samples)
    n = 20000
    tt = t0 + (np.arange(n) + 0.5) * (t1 - t0) / n
    open_end = [(a, max(a, t1) if np.isnan(b) else b, d) for a, b, d in eps]   # an open episode: to the window end
    mode = C.contact_modes(tt, open_end, imd)
    for k, key in ((C.IMPACT, "impact"), (C.CONTINUOUS, "continuous contact"), (C.FREE, "free flight")):
        assert abs(np.mean(mode == k) - sh[key]) < 2 * (len(eps) + 1) / n



# ==== mode shares, episodes, contact forces and runs through independent routes =====================================
#
# Clearance joints through independent routes (issue 21, item 5: tests that catch single bugs).
#
# What the first section (one impact, the contact force from first principles) and
# ``tests/gearshift/test_model.py`` (energy books, backends) leave open, checked here against values computed
# by hand or by another route:
#
# * the mode book-keeping (``contact_modes``, ``mode_shares``) on made-up episodes whose shares are
#   worked out by hand, with episodes cut by the window, of zero length, open at the end and exactly
#   ``impact_max_duration`` long, and the checks of the episode list at their boundaries;
# * the onset speed in force at each sample (``contact_forces``, ``accelerations``,
#   ``driving_torques``) against the episode it belongs to, and the model's own onset speeds restored;
# * the power of the contact forces: ``g . qd`` of the generalised contact forces equals
#   ``-F_n ddelta + F_t v_t`` at the contact points (lever arms of both bodies, nonzero offsets, angles
#   and rates), and the power the right-hand side books as dissipated equals the hysteresis and friction
#   power of the laws;
# * the numpy event hook (the reference integrator's path) against the analytic free flight of a disc
#   that hits its bearing twice, and against the compiled integrator;
# * the motor torque of a clearance run against the ideal joint's reaction in the limit of a tiny,
#   stiff clearance.

HAVE_NUMBA = resolve_backend("auto") == "numba"


#: Made-up episodes of one joint: one before the window, one cut by t0, one long, one of zero length,
#: one exactly IMD long, one still open at the end.
IMD = 0.25


WORKED_EPISODES = [(0.1, 0.2, 0.1), (0.5, 0.6, 0.2), (1.0, 2.0, 0.3), (2.5, 2.5, 0.4), (3.0, 3.25, 0.5),
            (3.5, float("nan"), 0.6)]


def test_mode_shares_worked_out_by_hand():
    sh = mode_shares(WORKED_EPISODES, 0.55, 4.0, IMD)
    T = 4.0 - 0.55
    # impacts: 0.05 s of the cut one, 0 s of the zero-length one, 0.25 s of the one exactly IMD long
    # continuous: 1.0 s and the open one's 0.5 s (open until t1: 0.5 s > IMD)
    assert sh["impact"] == pytest.approx(0.30 / T, abs=1e-12)
    assert sh["continuous contact"] == pytest.approx(1.5 / T, abs=1e-12)
    assert sh["free flight"] == pytest.approx((T - 1.8) / T, abs=1e-12)
    assert (sh["n_impacts"], sh["n_continuous"]) == (3, 2)


def test_mode_shares_of_a_window_that_ends_inside_an_episode():
    sh = mode_shares(WORKED_EPISODES, 0.0, 1.5, IMD)
    # (1.0, 2.0) is classified by its whole length (continuous) but counts 0.5 s; later ones are outside
    assert sh["impact"] == pytest.approx(0.2 / 1.5, abs=1e-12)
    assert sh["continuous contact"] == pytest.approx(0.5 / 1.5, abs=1e-12)
    assert (sh["n_impacts"], sh["n_continuous"]) == (2, 1)
    # an open episode is classified by its length up to t1: short window -> impact
    sh = mode_shares([(3.5, float("nan"), 0.6)], 3.0, 3.6, IMD)
    assert sh["impact"] == pytest.approx(0.1 / 0.6, abs=1e-12) and sh["n_impacts"] == 1
    assert mode_shares([], 0.0, 2.0) == {"free flight": 1.0, "impact": 0.0, "continuous contact": 0.0,
                                         "n_impacts": 0, "n_continuous": 0}


def test_mode_shares_refuses_an_empty_window_and_a_zero_duration():
    mode_shares(WORKED_EPISODES, 0.0, 1e-9, IMD)
    with pytest.raises(ParameterError, match=names("t1", "after", "t0")):
        mode_shares(WORKED_EPISODES, 1.0, 1.0, IMD)
    with pytest.raises(ParameterError, match="impact_max_duration"):
        mode_shares(WORKED_EPISODES, 0.0, 1.0, 0.0)


def test_contact_modes_at_the_episode_boundaries():
    t = np.array([0.0, 0.1, 0.15, 0.2, 0.3, 1.0, 2.0, 2.5, 3.0, 3.25, 3.3, 3.5, 4.0])
    mode = contact_modes(t, WORKED_EPISODES, IMD)
    expected = [FREE, IMPACT, IMPACT, IMPACT, FREE, CONTINUOUS, CONTINUOUS, IMPACT, IMPACT, IMPACT, FREE,
                CONTINUOUS, CONTINUOUS]
    assert mode.tolist() == expected
    # the open episode lasts to the last sample: 0.5 s > IMD; ending the samples at 3.6 makes it an impact
    assert contact_modes(np.array([3.4, 3.5, 3.6]), WORKED_EPISODES[-1:], IMD).tolist() == [FREE, IMPACT, IMPACT]
    assert contact_modes(np.array([0.0, 0.0, 1.0]), [], IMD).tolist() == [FREE] * 3     # equal times allowed
    with pytest.raises(ParameterError, match="non-decreasing"):
        contact_modes(np.array([0.0, 1.0, 0.5]), WORKED_EPISODES, IMD)


def test_the_episode_list_is_checked_at_its_boundaries():
    contact_modes(np.array([0.0, 1.0]), [(0.1, 0.2, 0.1), (0.2, 0.3, 0.1)])       # touching episodes: allowed
    contact_modes(np.array([0.0, 1.0]), [(0.1, 0.1, 0.1)])                         # zero length: allowed
    with pytest.raises(ParameterError, match=names("episodes", "ends before", "starts")):
        contact_modes(np.array([0.0, 1.0]), [(0.2, 0.1, 0.1)])
    with pytest.raises(ParameterError, match=names("episodes", "time order", "overlap")):
        contact_modes(np.array([0.0, 1.0]), [(0.1, 0.3, 0.1), (0.25, 0.4, 0.1)])
    with pytest.raises(ParameterError, match=names("t_off", "NaN", "last episode")):
        contact_modes(np.array([0.0, 1.0]), [(0.1, float("nan"), 0.1), (0.5, 0.6, 0.1)])
    with pytest.raises(ParameterError, match=names("t_off", "finite")):
        contact_modes(np.array([0.0, 1.0]), [(0.1, float("inf"), 0.1)])
    with pytest.raises(ParameterError, match=names("t_on", "finite")):
        contact_modes(np.array([0.0, 1.0]), [(float("nan"), 0.2, 0.1)])
    with pytest.raises(ParameterError, match=names("episodes", "list")):
        contact_modes(np.array([0.0, 1.0]), {"t_on": 0.1})


# ----------------------------------------------------------------------------- two moving bodies in contact
A_PT, B_PT = (0.05, 0.01), (-0.04, 0.02)


def two_bodies(c=5e-4, mu=0.1, ce=0.7, law="lankarani_nikravesh", depth=2e-6):
    """Bodies a (bearing) and b (journal) joined by a clearance pin, b's pin point ``c + depth`` from a's."""
    mech = Mechanism([Body("a", 0.3, 2e-3), Body("b", 0.2, 1e-3)], [Pin("P", "a", A_PT, "b", B_PT)])
    cm = ClearanceModel(mech, [ClearanceSpec("P", clearance=c, mu=mu, v0=1e-4, v1=5e-2, restitution=ce, law=law,
                                             E_journal=70e9, nu_journal=0.33)])
    q = np.array([0.01, -0.02, 0.3, 0.0, 0.0, -0.7])
    e = (c + depth) * np.array([math.cos(0.7), math.sin(0.7)])
    q[3:5] = mech.point_position(q, "a", A_PT) + e - (mech.point_position(q, "b", B_PT) - q[3:5])
    qd = np.array([0.02, -0.01, 3.0, -0.01, 0.03, 7.0])
    return mech, cm, q, qd


@pytest.mark.parametrize("law", ["lankarani_nikravesh", "flores"])
def test_power_of_the_contact_forces_and_the_booked_dissipation(law):
    mech, cm, q, qd = two_bodies(law=law)
    kin = cm.contact_kinematics(q, qd)
    delta, dd, vt = kin["delta"][0], kin["ddelta"][0], kin["v_t"][0]
    assert delta > 0 and abs(dd) > 1e-3 and abs(vt) > 1e-3
    spec = cm.specs[0]
    cm.ddelta0[:] = 0.5                          # onset speed well above |ddelta|: the hysteresis keeps F_n > 0
    g = np.zeros(6)
    P = cm._forces(0.0, q, qd, g)
    Fn = contact.normal_force(delta, dd, 0.5, spec.K, spec.restitution, law)
    assert Fn > 0
    Ft = contact.tangential_force(Fn, vt, spec.mu, spec.v0, spec.v1)
    # the power of the forces on the two bodies = the power at the contact points (relative motion)
    assert g @ qd == pytest.approx(-Fn * dd + Ft * vt, rel=1e-9)
    # booked as dissipated: hysteresis (F_n minus its elastic part) times ddelta, minus friction power
    assert P == pytest.approx((Fn - spec.K * delta ** 1.5) * dd - Ft * vt, rel=1e-9)
    assert -Ft * vt > 0                         # friction takes energy out


def test_the_generalised_forces_of_a_ground_bearing():
    """A journal on a ground bearing: the force on the body at Q_j = P_j + R_J n, nothing on the ground."""
    c = 2e-4
    mech = Mechanism([Body("disc", 0.5, 3e-4)], [GroundPin("O", "disc", (0.01, -0.02), (0.1, 0.2))])
    cm = ClearanceModel(mech, [ClearanceSpec("O", clearance=c, mu=0.2, v0=1e-4, v1=1e-1)])
    th = 0.4
    rot = np.array([[math.cos(th), -math.sin(th)], [math.sin(th), math.cos(th)]])
    n = np.array([math.cos(-2.1), math.sin(-2.1)])
    r = np.array([0.1, 0.2]) + (c + 3e-6) * n - rot @ np.array([0.01, -0.02])
    q, qd = np.array([*r, th]), np.array([0.05, -0.02, 4.0])
    cm.ddelta0[:] = 0.07
    g = np.zeros(3)
    cm._forces(0.0, q, qd, g)
    kin = cm.contact_kinematics(q, qd)
    spec = cm.specs[0]
    np.testing.assert_allclose(kin["n"][0], n, atol=1e-12)
    Fn = contact.normal_force(kin["delta"][0], kin["ddelta"][0], 0.07, spec.K, spec.restitution)
    Ft = contact.tangential_force(Fn, kin["v_t"][0], spec.mu, spec.v0, spec.v1)
    f = -Fn * n + Ft * np.array([-n[1], n[0]])
    lever = rot @ np.array([0.01, -0.02]) + spec.R_journal_value * n
    np.testing.assert_allclose(g, [f[0], f[1], lever[0] * f[1] - lever[1] * f[0]], rtol=1e-12)
    # the slip of a spinning journal on a fixed bearing: v_P . t + w R_J
    vP = qd[:2] + qd[2] * np.array([-(rot @ [0.01, -0.02])[1], (rot @ [0.01, -0.02])[0]])
    assert kin["v_t"][0] == pytest.approx(vP @ [-n[1], n[0]] + qd[2] * spec.R_journal_value, rel=1e-12)
    assert kin["ddelta"][0] == pytest.approx(vP @ n, rel=1e-12)


def test_no_force_without_penetration():
    mech, cm, q, qd = two_bodies(depth=-1e-6)
    g = np.zeros(6)
    assert cm._forces(0.0, q, qd, g) == 0.0 and not g.any()
    assert cm.contact_kinematics(q, qd)["delta"][0] == pytest.approx(-1e-6, abs=1e-12)
    assert cm._delta_scalar(q)[0] == pytest.approx(-1e-6, abs=1e-12)


# ----------------------------------------------------------------------------- a disc hitting its bearing twice
def bouncing_disc(c=1e-4, ce=0.8):
    """A free disc on a ground bearing (no gravity, no friction) leaving the centre at (0.3, 0.4) m/s."""
    mech = Mechanism([Body("disc", 1.0, 1e-4)], [GroundPin("O", "disc", (0.0, 0.0), (0.0, 0.0))])
    return ClearanceModel(mech, [ClearanceSpec("O", clearance=c, restitution=ce, mu=0.0)])


@pytest.mark.parametrize("backend", ["numpy"] + (["numba"] if HAVE_NUMBA else []))
def test_two_impacts_of_a_free_disc_against_its_free_flight(backend):
    c, v = 1e-4, 0.5
    cm = bouncing_disc(c)
    t_end = 7.0 * c / v
    r = cm.simulate((0.0, t_end), np.zeros(3), np.array([0.3, 0.4, 0.0]), rtol=1e-10, atol=1e-14,
                    t_eval=np.linspace(0.0, t_end, 71), backend=backend)
    ep = r.episodes[0]
    assert len(ep) == 2
    (on1, off1, d1), (on2, off2, d2) = ep
    assert on1 == pytest.approx(c / v, rel=1e-11) and d1 == pytest.approx(v, rel=1e-9)   # exact free flight
    # after the first (central, frictionless) impact the disc crosses the bearing along a diameter, 2 c, at
    # its exit speed, which is the second onset speed (c_e = 0.8 of the Lankarani-Nikravesh law: about 0.85)
    between = (r.t > off1) & (r.t < on2)
    v_out = np.hypot(r.qd[between, 0], r.qd[between, 1])
    assert between.sum() > 3 and np.ptp(v_out) < 1e-9 * v
    assert d2 == pytest.approx(v_out[0], rel=1e-9)
    assert 0.75 * v < d2 < 0.9 * v
    assert on2 - off1 == pytest.approx(2 * c / d2, rel=1e-6)
    assert 0 < off2 - on2 < 5e-4 and off2 < t_end
    np.testing.assert_allclose(r.ddelta0_final, [d2], rtol=0)
    modes = contact_modes(r.t, ep, cm.impact_max_duration)
    assert set(modes.tolist()) <= {FREE, IMPACT}


@pytest.mark.skipif(not HAVE_NUMBA, reason="needs the compiled integrator")
def test_the_numpy_event_hook_and_the_compiled_integrator_agree():
    cm = bouncing_disc()
    kw = dict(rtol=1e-10, atol=1e-14, t_eval=np.linspace(0.0, 1.4e-3, 15))
    a = cm.simulate((0.0, 1.4e-3), np.zeros(3), np.array([0.3, 0.4, 0.0]), backend="numpy", **kw)
    b = cm.simulate((0.0, 1.4e-3), np.zeros(3), np.array([0.3, 0.4, 0.0]), backend="numba", **kw)
    assert len(a.episodes[0]) == len(b.episodes[0]) == 2
    np.testing.assert_allclose(np.array(a.episodes[0]), np.array(b.episodes[0]), rtol=1e-7)
    np.testing.assert_allclose(a.q, b.q, atol=1e-11)


@pytest.mark.parametrize("backend", ["numpy"] + (["numba"] if HAVE_NUMBA else []))
def test_a_run_that_starts_in_contact_and_ends_in_contact(backend):
    """Starting inside the bearing wall: the episode opens at t0 with the normal speed there; a run that stops
    mid-contact leaves the episode open (t_off NaN); carried onset speeds are kept, not recomputed."""
    c = 1e-4
    cm = bouncing_disc(c)
    q0 = np.array([c + 1e-7, 0.0, 0.0])
    r = cm.simulate((0.0, 2e-6), q0, np.array([0.2, 0.0, 0.0]), rtol=1e-10, atol=1e-14, backend=backend)
    (t_on, t_off, d0), = r.episodes[0]
    assert t_on == 0.0 and math.isnan(t_off) and d0 == pytest.approx(0.2, rel=1e-12)
    r2 = cm.simulate((0.0, 2e-6), q0, np.array([0.2, 0.0, 0.0]), ddelta0=[0.35], rtol=1e-10, atol=1e-14,
                     backend=backend)
    assert r2.episodes[0][0][2] == 0.35
    # a grazing start (normal speed below the floor) stores the floor
    r3 = cm.simulate((0.0, 2e-6), q0, np.array([0.0, 0.3, 0.0]), rtol=1e-10, atol=1e-14, backend=backend)
    assert r3.episodes[0][0][2] == cm.specs[0].ddelta0_floor
    with pytest.raises(ParameterError, match=names("ddelta0", "positive")):
        cm.simulate((0.0, 2e-6), q0, np.zeros(3), ddelta0=[0.0])


def test_onset_speeds_in_force_at_each_sample_and_the_model_left_as_it_was():
    cm = bouncing_disc()
    r = cm.simulate((0.0, 1.4e-3), np.zeros(3), np.array([0.3, 0.4, 0.0]), rtol=1e-10, atol=1e-14,
                    t_eval=np.linspace(0.0, 1.4e-3, 281))
    (on1, off1, d1), (on2, off2, d2) = r.episodes[0]
    dd0 = cm._ddelta0_samples(r)[:, 0]
    inside1 = (r.t >= on1) & (r.t <= off1)
    inside2 = (r.t >= on2) & (r.t <= off2)
    assert inside1.any() and inside2.any()
    np.testing.assert_array_equal(dd0[inside1], d1)
    np.testing.assert_array_equal(dd0[inside2], d2)
    np.testing.assert_array_equal(dd0[~(inside1 | inside2)], cm.specs[0].ddelta0_floor)
    cm.ddelta0[:] = 0.123
    F = cm.contact_forces(r)
    spec = cm.specs[0]
    ref = contact.normal_force(F["delta"][0], F["ddelta"][0], dd0, spec.K, spec.restitution)
    np.testing.assert_allclose(F["F_n"][0], ref, rtol=1e-12, atol=0)
    assert F["F_n"][0][inside1].max() > 1.0
    # accelerations: the contact force over the mass (one free body, no constraint rows)
    qdd = cm.accelerations(r)
    np.testing.assert_allclose(qdd[:, :2], -(F["F_n"][0][:, None] * F["n"][0]) / 1.0, rtol=1e-9, atol=1e-9)
    assert cm.ddelta0[0] == 0.123                 # restored after the sample loop


def test_energy_balance_of_a_lossless_impact_and_of_a_lossy_one():
    for ce, lossless in ((1.0, True), (0.6, False)):
        cm = bouncing_disc(ce=ce)
        ts = np.linspace(0.0, 0.8e-3, 161)
        r = cm.simulate((0.0, 0.8e-3), np.zeros(3), np.array([0.3, 0.4, 0.0]), rtol=1e-11, atol=1e-15, t_eval=ts)
        eb = cm.energy_balance(r)
        E0 = 0.5 * 0.25
        assert eb["mechanical"][0] == pytest.approx(E0, rel=1e-12)
        assert np.abs(eb["residual"]).max() < 1e-7 * E0
        if lossless:
            assert np.all(r.W_loss == 0.0)
            assert eb["mechanical"][-1] == pytest.approx(E0, rel=1e-7)
        else:
            v_out = np.hypot(*r.qd[-1, :2])
            assert r.W_loss[-1] == pytest.approx(E0 - 0.5 * v_out ** 2, rel=1e-6)
            assert r.W_loss[-1] > 0.3 * E0


def test_motor_torque_of_a_tiny_stiff_clearance_is_the_moment_of_the_load():
    """A crank on a clearance ground pin (c = 1 um, stiff contact), driven at constant speed against a spring:
    no angular acceleration, so the motor torque balances the spring's moment about the pin (by hand), as
    the ideal joint's Lagrange multiplier does exactly."""
    from robolib.core.multibody import ConstantSpeed, Driver, PointSpringDamper, driving_torques

    L, w, th0, k, tip, anchor = 0.05, 3.0, 0.2, 50.0, np.array([0.05, 0.01]), np.array([0.2, 0.1])

    def crank():
        return Mechanism([Body("crank", 0.4, 2e-3)],
                         [GroundPin("O", "crank", (-L, 0.0), (0.0, 0.0)), Driver("motor", "crank", ConstantSpeed(th0, w))],
                         forces=[PointSpringDamper("s", "crank", tuple(tip), tuple(anchor), stiffness=k)], name="crank")

    def state(t):
        th = th0 + w * t
        return (np.array([L * math.cos(th), L * math.sin(th), th]),
                np.array([-L * w * math.sin(th), L * w * math.cos(th), w]))

    def by_hand(t):
        q, _ = state(t)
        c, s = math.cos(q[2]), math.sin(q[2])
        P = q[:2] + np.array([c * tip[0] - s * tip[1], s * tip[0] + c * tip[1]])
        F = -k * (P - anchor)
        return -(P[0] * F[1] - P[1] * F[0])

    ideal = crank()
    cm = ClearanceModel(crank(), [ClearanceSpec("O", clearance=1e-6, stiffness=1e13, restitution=0.5, mu=0.0)])
    ts = np.linspace(0.05, 0.3, 26)
    ref = np.array([by_hand(t) for t in ts])
    lam = np.array([ideal.accelerations(*state(t), t)[1] for t in ts])
    np.testing.assert_allclose(driving_torques(ideal, lam)["motor"], ref, atol=1e-12)
    r = cm.simulate((0.0, 0.3), *state(0.0), t_eval=ts, rtol=1e-9, atol=1e-13)
    assert len(r.episodes[0]) > 0
    tau = cm.driving_torques(r)["motor"]
    assert np.abs(ref).max() > 0.5
    assert np.abs(tau - ref).max() < 1e-3 * np.abs(ref).max()


def test_results_of_another_model_are_refused():
    cm = bouncing_disc()
    r = cm.simulate((0.0, 1e-4), np.zeros(3), np.array([0.3, 0.4, 0.0]))
    mech, cm2, q, qd = two_bodies()
    with pytest.raises(ParameterError, match=names("result", "not a run", "qd", ", 6)")):
        cm2.contact_forces(r)
    with pytest.raises(ParameterError, match=names("result", "ClearanceResult")):
        cm.energy_balance({"t": r.t})
    assert isinstance(r, ClearanceResult)


# ----------------------------------------------------------------------------- second set: the bearing on a later body
def swapped_bodies(c=4e-4):
    """Bodies ordered (j, k, i): the journal on body 0, the bearing on body 2 (index 2 > 0, so a wrong stride
    ``3 * b`` of the bearing's coordinates shows), a third body in between, nonzero offsets and angles."""
    mech = Mechanism([Body("j", 0.2, 1e-3), Body("k", 0.7, 4e-3), Body("i", 0.3, 2e-3)],
                     [Pin("P", "i", A_PT, "j", B_PT), Pin("Q", "k", (0.0, 0.03), "i", (0.02, -0.01))])
    cm = ClearanceModel(mech, [ClearanceSpec("P", clearance=c, mu=0.15, v0=1e-4, v1=5e-2, restitution=0.8)])
    q = np.array([0.0, 0.0, -0.7, 0.2, -0.1, 0.9, 0.01, -0.02, 0.3])
    e = (c + 3e-6) * np.array([math.cos(2.2), math.sin(2.2)])
    q[0:2] = mech.point_position(q, "i", A_PT) + e - (mech.point_position(q, "j", B_PT) - q[0:2])
    qd = np.array([-0.01, 0.03, 7.0, 0.5, -0.3, 1.5, 0.02, -0.01, 3.0])
    return mech, cm, q, qd


def test_power_of_the_contact_forces_with_the_bearing_on_a_later_body():
    mech, cm, q, qd = swapped_bodies()
    spec = cm.specs[0]
    kin = cm.contact_kinematics(q, qd)
    delta, dd, vt = kin["delta"][0], kin["ddelta"][0], kin["v_t"][0]
    assert delta == pytest.approx(3e-6, rel=1e-6)
    assert cm._delta_scalar(q)[0] == pytest.approx(delta, rel=1e-12)
    # the normal speed by central differences of |P_j - P_i|
    h = 1e-7
    gap = lambda x: np.linalg.norm(mech.point_position(x, "j", B_PT) - mech.point_position(x, "i", A_PT))  # noqa: E731
    assert dd == pytest.approx((gap(q + h * qd) - gap(q - h * qd)) / (2 * h), rel=1e-6)
    cm.ddelta0[:] = 0.5
    g0 = np.arange(1.0, 10.0)                     # forces already in g stay (the contact adds to them)
    g = g0.copy()
    P = cm._forces(0.0, q, qd, g)
    Fn = contact.normal_force(delta, dd, 0.5, spec.K, spec.restitution)
    Ft = contact.tangential_force(Fn, vt, spec.mu, spec.v0, spec.v1)
    assert Fn > 0 and Ft != 0
    dg = g - g0
    assert not dg[3:6].any()                      # the third body is not touched
    np.testing.assert_allclose(dg[0:2], -dg[6:8], rtol=1e-12)
    assert dg @ qd == pytest.approx(-Fn * dd + Ft * vt, rel=1e-9)
    assert P == pytest.approx((Fn - spec.K * delta ** 1.5) * dd - Ft * vt, rel=1e-9)
    # the compiled right-hand side gives the same accelerations (guard; the physics is checked above)
    if HAVE_NUMBA:
        y = np.concatenate([q, qd, [0.0, 0.0]])
        np.testing.assert_allclose(cm.rhs("numba")(0.0, y), cm.rhs("numpy")(0.0, y), rtol=1e-10, atol=1e-10)


def test_kinematics_of_a_centred_journal_and_of_a_batch():
    mech, cm, q, qd = swapped_bodies()
    qc = q.copy()
    qc[0:2] = mech.point_position(q, "i", A_PT) - (mech.point_position(q, "j", B_PT) - q[0:2])   # e = 0
    kin = cm.contact_kinematics(qc, qd)
    assert kin["eps"][0] == pytest.approx(0.0, abs=1e-15)
    # exactly centred (a disc at the centre of a ground bearing): no direction, the x axis by convention
    kc = bouncing_disc(2e-4).contact_kinematics(np.zeros(3), np.array([0.3, 0.4, 2.0]))
    assert kc["eps"][0] == 0.0 and kc["delta"][0] == -2e-4
    np.testing.assert_array_equal(kc["n"][0], [1.0, 0.0])
    assert kc["ddelta"][0] == 0.3 and kc["v_t"][0] == pytest.approx(0.4 + 2.0 * 5e-3, rel=1e-12)
    batch = np.stack([q, qc, q + 1e-3])
    kb = cm.contact_kinematics(batch, qd)
    for i, qi in enumerate(batch):
        k1 = cm.contact_kinematics(qi, qd)
        for key in ("eps", "delta", "ddelta", "v_t"):
            assert kb[key][0][i] == pytest.approx(k1[key][0], rel=1e-12, abs=1e-15), key


def test_model_records_and_spec_messages():
    mech, cm, q, qd = swapped_bodies()
    assert cm.mech is mech and cm.names == ["P"] and cm.reduced.m == mech.m - 2
    ClearanceSpec("B1", 1e-4, R_journal=None, R_bearing=5e-3)     # the bearing radius alone is enough
    with pytest.raises(ParameterError, match=names("B1", "v0", ">= 0", "m/s")):
        ClearanceSpec("B1", 1e-4, v0=-1.0)
    with pytest.raises(ParameterError, match=names("B1", "clearance", "positive")):
        ClearanceSpec("B1", -1e-4)
    with pytest.raises(ParameterError, match=names("impact_max_duration", "> 0", "s")):
        ClearanceModel(mech, [ClearanceSpec("P", 1e-4)], impact_max_duration=0.0)
    with pytest.raises(ParameterError, match=names("t0", "finite")):
        mode_shares([], float("nan"), 1.0)
    assert contact_modes(np.array([0.0, 1.0]), [(0.1, 0.2, 0.1)]).dtype.kind == "i"


def test_episode_checks_name_what_they_saw():
    with pytest.raises(ParameterError, match=names("t_on", "finite", "[nan, 0.5]")):
        contact_modes(np.array([0.0, 1.0]), [(float("nan"), 0.2, 0.1), (0.5, 0.6, 0.1)])
    with pytest.raises(ParameterError, match=names("episodes", "time order", "overlap")):  # the overlap is at the third
        contact_modes(np.array([0.0, 1.0]), [(0.1, 0.2, 0.1), (0.3, 0.5, 0.1), (0.45, 0.6, 0.1)])


def test_zero_length_episodes_at_the_window_edges_count():
    for t0, t1 in ((1.0, 2.0), (0.0, 1.0)):
        sh = mode_shares([(1.0, 1.0, 0.1)], t0, t1, IMD)
        assert sh["n_impacts"] == 1 and sh["impact"] == 0.0


def test_a_result_of_the_wrong_shape_is_refused_for_each_reason():
    cm = bouncing_disc()
    r = cm.simulate((0.0, 1e-4), np.zeros(3), np.array([0.3, 0.4, 0.0]), t_eval=[0.0, 1e-4])
    import dataclasses
    for bad in (dataclasses.replace(r, episodes=[[], []]), dataclasses.replace(r, qd=r.qd[:, :2]),
                dataclasses.replace(r, q=r.q[:1])):
        with pytest.raises(ParameterError, match=names("result", "not a run")):
            cm.contact_forces(bad)


# ----------------------------------------------------------------------------- the simulator's options
def test_simulate_defaults_options_and_records():
    import time as _time
    v0 = np.array([0.3, 0.4, 0.0])
    # fresh models: a model keeps the last onset speed, which changes the first trial step of the next run
    a = bouncing_disc().simulate((0.0, 1e-3), np.zeros(3), v0, t_eval=[1e-3])
    b = bouncing_disc().simulate((0.0, 1e-3), np.zeros(3), v0, t_eval=[1e-3], rtol=1e-6, atol=1e-9)
    np.testing.assert_array_equal(a.q, b.q)                         # the documented defaults
    assert a.extra["t_final"] == 1e-3
    # atol per state entry: 2 n + 2 entries (positions, velocities, the two energy books)
    cm = bouncing_disc()
    c = cm.simulate((0.0, 1e-3), np.zeros(3), v0, t_eval=[1e-3], atol=np.full(8, 1e-9))
    np.testing.assert_array_equal(c.q, b.q)
    with pytest.raises(ParameterError, match=names("atol", "shape", "(8,)")):
        cm.simulate((0.0, 1e-3), np.zeros(3), v0, atol=np.full(7, 1e-9))
    for backend in ["numpy"] + (["numba"] if HAVE_NUMBA else []):
        start = _time.perf_counter()
        r = cm.simulate((0.0, 1e-3), np.zeros(3), v0, h_max=2e-5, backend=backend)
        elapsed = _time.perf_counter() - start
        assert r.n_steps >= 50, backend                              # h_max reaches the integrator
        assert 0.0 <= r.wall_s <= elapsed
        # work books started from work0
        w = cm.simulate((0.0, 1e-3), np.zeros(3), v0, work0=(0.3, 0.2), t_eval=np.linspace(0, 1e-3, 11),
                        rtol=1e-10, atol=1e-14, backend=backend)
        assert w.W_drive[0] == 0.3 and w.W_loss[0] == 0.2 and w.W_loss[-1] > 0.2
        assert np.abs(cm.energy_balance(w)["residual"]).max() < 1e-5 * 0.125   # books offset by work0


def test_the_numpy_backend_does_not_use_the_compiled_integrator(monkeypatch):
    from robolib.core import clearance as C

    def refuse(*args, **kwargs):
        raise AssertionError("the compiled integrator was called")

    monkeypatch.setattr(C, "integrate_compiled", refuse)
    cm = bouncing_disc()
    r = cm.simulate((0.0, 1e-3), np.zeros(3), np.array([0.3, 0.4, 0.0]), backend="numpy")
    assert len(r.episodes[0]) >= 1


@pytest.mark.parametrize("backend", ["numpy"] + (["numba"] if HAVE_NUMBA else []))
def test_a_contact_in_the_first_step_and_episodes_on_the_second_joint(backend):
    """Two discs on their own clearance ground pins; only the second moves and touches within the first step."""
    c = 1e-4
    mech = Mechanism([Body("d1", 1.0, 1e-4), Body("d2", 0.5, 1e-4)],
                     [GroundPin("O1", "d1", (0.0, 0.0), (1.0, 0.0)), GroundPin("O2", "d2", (0.0, 0.0), (0.0, 0.0))])
    cm = ClearanceModel(mech, [ClearanceSpec("O1", c, mu=0.0), ClearanceSpec("O2", c, mu=0.0)])
    q0 = np.array([1.0, 0.0, 0.0, c - 1e-13, 0.0, 0.0])         # 0.2 ps from contact: inside the first step
    r = cm.simulate((0.0, 5e-4), q0, np.array([0.0, 0.0, 0.0, 0.5, 0.0, 0.0]), rtol=1e-10, atol=1e-14,
                    backend=backend)
    assert r.episodes[0] == []
    (t_on, t_off, d0), = r.episodes[1]
    assert t_on == pytest.approx(2e-13, rel=1e-3) and d0 == pytest.approx(0.5, rel=1e-9)
    assert t_off > t_on and r.ddelta0_final[0] == cm.specs[0].ddelta0_floor


def test_a_run_ending_in_contact_keeps_its_onset_speed_in_the_forces():
    c = 1e-4
    cm = bouncing_disc(c)
    q0 = np.array([c + 1e-7, 0.0, 0.0])
    r = cm.simulate((0.0, 2e-6), q0, np.array([0.2, 0.0, 0.0]), t_eval=np.linspace(0.0, 2e-6, 5), rtol=1e-10,
                    atol=1e-14)
    F = cm.contact_forces(r)
    spec = cm.specs[0]
    ref = contact.normal_force(F["delta"][0], F["ddelta"][0], 0.2, spec.K, spec.restitution)
    np.testing.assert_allclose(F["F_n"][0], ref, rtol=1e-12)
    assert cm.ddelta0[0] == 0.2


def test_driving_torques_use_the_model_gains_and_leave_the_onset_speeds():
    """Off the driver constraint (a state 1 mrad behind the motor), the Baumgarte terms of the model's own
    gains enter the reaction, as they do in the ideal mechanism's accelerations with those gains."""
    from robolib.core.multibody import ConstantSpeed, Driver, driving_torques

    def crank():
        return Mechanism([Body("crank", 0.4, 2e-3)],
                         [GroundPin("O", "crank", (-0.05, 0.0), (0.0, 0.0)), Driver("motor", "crank", ConstantSpeed(0.2, 3.0))])

    th = 0.2 - 1e-3
    q = np.array([0.05 * math.cos(th), 0.05 * math.sin(th), th])
    qd = np.array([-0.15 * math.sin(th), 0.15 * math.cos(th), 3.0 + 0.01])
    out = {}
    for gains in ((5.0, 7.0), (40.0, 60.0)):
        cm = ClearanceModel(crank(), [ClearanceSpec("O", 1e-4)], alpha=gains[0], beta=gains[1])
        cm.ddelta0[:] = 0.3
        r = ClearanceResult(t=np.array([0.0]), q=q[None], qd=qd[None], W_drive=np.zeros(1), W_loss=np.zeros(1),
                            episodes=[[]], n_steps=0, n_rejected=0, n_rhs=0, wall_s=0.0, y_final=np.zeros(8),
                            ddelta0_final=np.array([0.3]))
        out[gains] = cm.driving_torques(r)["motor"][0]
        red = cm.reduced
        lam = red.accelerations(q, qd, 0.0, alpha=gains[0], beta=gains[1])[1]
        assert out[gains] == pytest.approx(driving_torques(red, lam[None])["motor"][0], rel=1e-12)
        assert cm.ddelta0[0] == 0.3
    assert abs(out[(5.0, 7.0)] - out[(40.0, 60.0)]) > 1e-3 * abs(out[(40.0, 60.0)])


def test_the_event_hook_falls_back_to_a_linear_estimate_and_rearms():
    """Called directly: an interpolant that never crosses (a step whose ends do) gives the linear crossing
    estimate; an anticipated crossing that the redone step does not reach is dropped, so the next one is found."""
    c = 1e-4
    cm = bouncing_disc(c)
    ya = np.array([c - 3e-6, 0, 0, 0.5, 0, 0, 0, 0])
    yb = np.array([c + 1e-6, 0, 0, 0.5, 0, 0, 0, 0])
    episodes = [[]]
    ta, tb = 2e-3, 2e-3 + 8e-6
    hook, state = cm._make_hook(ta, ya, episodes, keep_ddelta0=False)
    assert state["delta"][0] == pytest.approx(-3e-6) and state["open"] == [None]
    assert hook(ta, ya, None, tb, yb, None, lambda tt: ya) is True              # redo with the onset speed
    assert state["armed"][0] == pytest.approx(ta + 8e-6 * 3e-6 / 4e-6, rel=1e-12)
    assert cm.ddelta0[0] == 0.5
    armed = state["armed"][0]
    ymid = np.array([c - 1e-6, 0, 0, 0.5, 0, 0, 0, 0])
    assert hook(ta, ya, None, armed, ymid, None, lambda tt: ya) is False        # no crossing up to the armed time
    assert state["armed"][0] is None and episodes == [[]]
    assert hook(armed, ymid, None, tb, yb, None, lambda tt: ymid) is True       # the next crossing: redo again
