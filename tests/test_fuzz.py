"""Every public entry point fuzzed: a bad argument gets a RobolibError that names it, never a bare error.

For each entry point the table gives a valid call and, per argument, the kind of value it takes
(see tests/fuzzing.py). Hypothesis draws a bad value of that kind (NaN, +-inf, zero or a negative
number where the field is positive, text, None, a bool for a number, an empty or wrongly shaped
array, a float for a count) and the call must raise a :class:`robolib.RobolibError` whose message
names the argument -- not a bare Python/numpy error, not a silent NaN, not a result. Failures
shrink to the simplest bad value. This file covers the shared cores; tests/test_fuzz_<mechanism>.py
the mechanism packages.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from fuzzing import budget, entry_point_tests
from robolib import constraints, contact, friction

# ---- the entry points: (callable, valid keyword arguments, {argument: kind}) -------------------------
ENTRY_POINTS = {
    # shared cores
    "friction.smooth_sign": (friction.smooth_sign, dict(w=np.array([0.1, -0.2]), eps=1e-3),
                             {"w": "array", "eps": "nonnegative"}),
    "friction.coulomb_load": (friction.coulomb_load, dict(w=0.5, force=np.array([3.0, 4.0]), mu=0.1, radius=0.01,
                                                          eps=1e-3),
                              {"w": "array", "force": (2,), "mu": "nonnegative", "radius": "nonnegative", "eps": "nonnegative"}),
    "friction.stribeck": (friction.stribeck, dict(w=np.array([0.5]), coulomb_torque=0.1, static_torque=0.15,
                                                  stribeck_velocity=0.1, viscous=0.01, eps=0.0),
                          {"w": "array", "coulomb_torque": "nonnegative", "static_torque": "nonnegative",
                           "stribeck_velocity": "positive", "viscous": "nonnegative", "eps": "nonnegative"}),
    "contact.hertz_stiffness": (contact.hertz_stiffness, dict(R_bearing=0.0101, R_journal=0.01, E_bearing=2e11,
                                                              nu_bearing=0.3, E_journal=2e11, nu_journal=0.3),
                                {"R_bearing": "positive*", "R_journal": "positive*", "E_bearing": "positive*",
                                 "E_journal": "positive*", "nu_bearing": "real*", "nu_journal": "real*"}),
    "contact.normal_force": (contact.normal_force, dict(delta=1e-6, ddelta=0.1, ddelta0=0.1, K=1e10, restitution=0.9),
                             {"delta": "array", "ddelta": "array", "ddelta0": "positive*", "K": "positive*",
                              "restitution": "positive"}),
    "contact.tangential_force": (contact.tangential_force, dict(F_n=10.0, v_t=0.1, mu=0.1, v0=1e-4, v1=1e-3),
                                 {"F_n": "nonnegative*", "v_t": "array", "mu": "nonnegative*", "v0": "nonnegative",
                                  "v1": "positive"}),
    "constraints.udwadia_kalaba": (constraints.udwadia_kalaba, dict(M=np.eye(2), Q=np.array([1.0, 0.0]),
                                                                    A=np.array([[0.0, 1.0]]), b=np.zeros(1)),
                                   {"M": (2, 2), "Q": (2,), "A": (1, 2), "b": (1,)}),
    "constraints.lagrange_multipliers": (constraints.lagrange_multipliers, dict(M=np.eye(2), Q=np.array([1.0, 0.0]),
                                                                                A=np.array([[0.0, 1.0]]), b=np.zeros(1)),
                                         {"M": (2, 2), "Q": (2,), "A": (1, 2), "b": (1,)}),
    "constraints.kkt_solve": (constraints.kkt_solve, dict(M=np.eye(2), Q=np.array([1.0, 0.0]), A=np.array([[0.0, 1.0]]),
                                                          b=np.zeros(1)),
                              {"M": (2, 2), "Q": (2,), "A": (1, 2), "b": (1,)}),
    "constraints.baumgarte": (constraints.baumgarte, dict(b=np.zeros(1), phi=np.array([1e-3]), dphi=np.zeros(1),
                                                          alpha=10.0, beta=10.0),
                              {"b": (1,), "phi": (1,), "dphi": (1,), "alpha": "nonnegative", "beta": "nonnegative"}),
}

test_every_valid_call_works, test_a_bad_argument_is_named = entry_point_tests(ENTRY_POINTS)


# ---- properties on random valid inputs ---------------------------------------------------------------------
from hypothesis import assume  # noqa: E402
from scipy.integrate import solve_ivp  # noqa: E402


@budget(40)
@given(d1=st.floats(1e-9, 1e-3), d2=st.floats(1e-9, 1e-3), K=st.floats(1e8, 1e12), ce=st.floats(0.3, 1.0),
       law=st.sampled_from(list(contact.LAWS)))
def test_contact_force_grows_with_the_penetration(d1, d2, K, ce, law):
    """At the same penetration speed ratio, a deeper penetration gives a larger force; none is adhesive."""
    assume(d1 < d2)
    f1, f2 = (contact.normal_force(d, 0.05, 0.1, K, ce, law) for d in (d1, d2))
    assert 0.0 < f1 < f2
    assert contact.normal_force(-d1, 0.05, 0.1, K, ce, law) == 0.0


def _impact(m, K, v_in, ce, law):
    """A mass m [kg] hitting the contact at v_in [m/s]: the rebound speed and the energy at the deepest point."""
    def rhs(t, y):
        d, v = y
        return [v, -contact.normal_force(d, v, v_in, K, ce, law) / m if d > 0 else 0.0]

    def leaves(t, y):
        return y[0] + 1e-15
    leaves.terminal, leaves.direction = True, -1
    t_c = 10 * (m ** 2 / (K ** 2 * v_in)) ** 0.2          # a few contact durations (Hertz scaling)
    sol = solve_ivp(rhs, (0.0, t_c), [0.0, v_in], events=leaves, rtol=1e-11, atol=1e-16, max_step=t_c / 200)
    assert sol.t_events[0].size, "the mass leaves the contact"
    k = int(np.argmax(sol.y[0]))
    return -sol.y_events[0][0][1], contact.contact_potential(sol.y[0][k], K) + 0.5 * m * sol.y[1][k] ** 2


@budget(12)
@given(m=st.floats(0.05, 5.0), K=st.floats(1e9, 1e11), v_in=st.floats(0.01, 1.0), law=st.sampled_from(list(contact.LAWS)))
def test_a_lossless_impact_conserves_energy(m, K, v_in, law):
    """Restitution 1 (no hysteresis): the mass rebounds at its impact speed; at the deepest point the elastic
    energy 2/5 K delta^2.5 holds the kinetic energy it came in with."""
    v_out, e_deep = _impact(m, K, v_in, 1.0, law)
    assert abs(v_out - v_in) < 1e-6 * v_in
    assert abs(e_deep - 0.5 * m * v_in ** 2) < 1e-6 * 0.5 * m * v_in ** 2


@budget(12)
@given(m=st.floats(0.05, 5.0), K=st.floats(1e9, 1e11), v_in=st.floats(0.01, 1.0), ce=st.floats(0.5, 0.95),
       law=st.sampled_from(["lankarani_nikravesh", "flores"]))
def test_a_dissipative_impact_loses_energy(m, K, v_in, ce, law):
    v_out, _ = _impact(m, K, v_in, ce, law)
    assert 0.0 < v_out < v_in
