"""The clearance joints fuzzed (issue 21, item 1), and the contact-mode bookkeeping on random episodes.

Part 1: :class:`~robolib.core.clearance.ClearanceSpec`, :class:`~robolib.core.clearance.ClearanceModel` and its
public methods, :func:`~robolib.core.clearance.contact_modes` and :func:`~robolib.core.clearance.mode_shares`,
each with a valid call and the kind of each argument (tests/fuzzing.py); a bad value must raise a
:class:`robolib.RobolibError` naming the argument. Part 2, properties on random episode lists: the
contact modes partition time (each sample has exactly one of the three modes, free flight outside
every episode, the episode's own mode inside it); the mode shares are in [0, 1], sum to 1, and equal
the fractions of a fine uniform sampling of :func:`contact_modes`; a short simulation of a journal in
a clearance ground pin keeps its energy books (hertz law, no friction: residual ~ 0).
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from fuzzing import _array_bad, bad_values, budget, entry_point_tests
from hypothesis import given
from hypothesis import strategies as st

from robolib import ParameterError
from robolib import clearance as C
from robolib import multibody as mb

pytestmark = pytest.mark.fuzz  # make fuzz: -m fuzz with a larger budget

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
    "mode_shares": (C.mode_shares, dict(episodes=[(0.9, 1.1, 0.1)], t0=0.0, t1=4.0, impact_max_duration=0.5),
                    {"episodes": EPISODES, "t0": "real",
                     "t1": Kind("t1 > t0", st.one_of(bad_values("real"), st.sampled_from([0.0, -1.0]))),
                     "impact_max_duration": "positive"}),
}

test_every_valid_call_works, test_a_bad_argument_is_named = entry_point_tests(ENTRY_POINTS)


def test_the_table_covers_every_public_function_and_method():
    public = {n for n in C.__all__ if callable(getattr(C, n))} - {"ClearanceResult"}   # the result record
    assert public == {e for e in ENTRY_POINTS if "." not in e}
    # names with "ǁ" are the mutation tool's copies of the methods (make mutate), not methods of the model
    methods = {f"ClearanceModel.{m}" for m, _ in inspect.getmembers(C.ClearanceModel, inspect.isfunction)
               if not m.startswith("_") and "ǁ" not in m}
    assert methods == {e for e in ENTRY_POINTS if e.startswith("ClearanceModel.")}
    for name, (fn, kwargs, kinds) in ENTRY_POINTS.items():
        assert set(kinds) == set(kwargs), name


def test_a_result_of_another_model_is_named():
    other = C.ClearanceModel(mb.Mechanism([DISC, mb.Body("b", 1.0, 1.0)], [mb.GroundPin("O", "disc", (0, 0), (0, 0))]),
                             [SPEC])
    with pytest.raises(ParameterError, match="result is not a run of this model"):
        other.energy_balance(RUN)


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
