"""The clearance chapter's orbit study (robolib.studies.clearance_dynamics.orbit_study): shooting per case, its claims and units."""

import math
from types import SimpleNamespace

import numpy as np
import pytest

from robolib.book.claims import ClaimsRegister
from robolib.gearshift import load_parameters, poincare_run
from robolib.gearshift import orbits as O
from robolib.studies.clearance_dynamics import orbit_study as S

#: Scaled units: the fast model's sample converted to the chapter's units vs the DAE's Poincaré sample, same start,
#: rtol 1e-10 over three periods (the two routes differ by integration error, ~1e-5).
UNITS_AGREE = 1e-3


@pytest.fixture(scope="module")
def ten_hz():
    """10 Hz / 0.5 mm at quick settings: period 1 fails, the stable period-2 orbit attracts the motion."""
    return S.case_orbits(None, (10.0, 0.5), **S.QUICK)


def test_close_returns_closest_first_and_apart():
    z = np.array([[0.0], [1.0], [0.1], [1.05], [0.5], [0.52], [0.9]])
    assert S.close_returns(z, 2, 3) == [1, 3, 0] or S.close_returns(z, 2, 3)[0] == 1
    idx = S.close_returns(z, 2, 3)
    d = np.abs(z[2:, 0] - z[:-2, 0])
    assert d[idx[0]] == d.min()
    assert all(abs(a - b) >= 2 for i, a in enumerate(idx) for b in idx[:i])
    assert S.close_returns(z[:2], 2, 3) == []


def test_ten_hz_attractor_is_period_two(ten_hz):
    d = ten_hz
    a = d.attractor
    assert a is not None and a.k == 2 and a.minimal_period == 2
    assert a.residual <= a.tol and a.converges and a.mu_upper < 1
    assert [k for k, _, _ in d.attempts][0] == 1          # period 1 was tried first and failed
    reg = ClaimsRegister("orbit_study_test", glue=False)
    S.register_case(reg, d)
    assert reg.claims["clearance_orbit_10_0p5"].holds
    assert "stable period-2" in reg.claims["clearance_orbit_10_0p5"].statement
    S.register_ladder_agreement(reg, {(10.0, 0.5): d}, {(10.0, 0.5): ("limit", 2)})
    assert reg.claims["clearance_orbit_ladder"].holds
    S.register_ladder_agreement(reg2 := ClaimsRegister("t", glue=False), {(10.0, 0.5): d}, {(10.0, 0.5): ("irregular", 0)})
    assert not reg2.claims["clearance_orbit_ladder"].holds
    assert "| 10 Hz, 0.5 mm | 2 |" in S.orbit_table({(10.0, 0.5): d})
    assert len(S.orbits_figure({(10.0, 0.5): d}).axes) == 2


def test_section_units_match_the_dae_samples():
    """The fast model's phase-0 states in the chapter's units (bearing frame of link 11, e/c, ė/(cω)) are the DAE's
    Poincaré samples of the same run: an independent route to the frame and the scaling. At 2 Hz / 0.1 mm the
    motion contracts onto its period-1 orbit within a period, so the two integrations meet to their error."""
    p = load_parameters()
    f, c = 2.0, 1e-4
    P = O.stroboscopic_map(p, f, c, rtol=1e-10)
    fast = S.section_units(P, P.samples(4)[2:], []).samples
    dae = poincare_run(p, f, c, n_transient=2, n_samples=3, rtol=1e-10, atol=1e-13).samples
    assert fast.shape == dae.shape == (3, 4)
    assert np.max(np.abs(fast - dae)) < UNITS_AGREE, np.abs(fast - dae)
    assert np.max(np.abs(fast[:, 0])) > 0.5          # the journal sits off-centre: the rotation is tested


def _orbit(k=1, max_mu=0.4, err=0.01, converges=True, resolved=True, f=6.0):
    """A synthetic orbit at f Hz (exponents ln|mu| / (kT), T = 1/f); no PeriodicOrbit behind it."""
    r = f / k
    return O.OrbitResult(f, 5e-4, k, None, 1e-6, 1e-5, 1e-7, np.array([max_mu]), max_mu, max_mu + err < 1,
                         math.log(max_mu) * r, max_mu, 1e-7, np.zeros(1), converges, k, 0.0, 0.0, 0,
                         minimal_period=k, mu_error=err, resolved=resolved, mu_upper=max_mu + err,
                         lyapunov_upper=math.log(max_mu + err) * r,
                         lyapunov_lower=math.log(max_mu - err) * r if resolved else -math.inf)


def _case(attractor, found, lam, u):
    L = O.FastLyapunov(lam, u, lam, u, 0.0, u, 1e-11, 1e-12, 4, 0.0)
    return S.CaseOrbits((6.0, 0.5), np.zeros((2, 4)), np.zeros((2, 4)), np.ones(4), found, attractor, [], L,
                        S.SectionUnits(np.zeros((2, 4)), {}), 0.0)


@pytest.mark.parametrize("attractor_ok, lam, holds", [(True, math.log(0.4) * 6, True), (False, math.log(0.4) * 6, False)])
def test_stable_case_claims_fail_when_a_route_disagrees(attractor_ok, lam, holds):
    o = _orbit(converges=attractor_ok)
    reg = ClaimsRegister("t", glue=False)
    S.register_case(reg, _case(o, [o], lam, 0.5))
    assert reg.claims["clearance_orbit_6_0p5"].holds is holds
    assert reg.claims["clearance_orbit_routes_6_0p5"].holds          # ln 0.4 * 6 /s meets the Floquet interval
    reg = ClaimsRegister("t", glue=False)
    S.register_case(reg, _case(o, [o], +2.0, 0.5))                     # a positive time series exponent: routes fail
    assert not reg.claims["clearance_orbit_routes_6_0p5"].holds


def test_irregular_case_claims():
    u1 = _orbit(k=1, max_mu=22.0, err=0.3)
    reg = ClaimsRegister("t", glue=False)
    S.register_case(reg, _case(None, [u1], 11.3, 1.3))
    assert reg.claims["clearance_orbit_6_0p5"].holds and reg.claims["clearance_orbit_routes_6_0p5"].holds
    assert "unstable period-1" in reg.claims["clearance_orbit_6_0p5"].text
    reg = ClaimsRegister("t", glue=False)
    S.register_case(reg, _case(None, [], -3.0, 1.0))                  # no stable orbit, but the exponent is negative
    assert not reg.claims["clearance_orbit_6_0p5"].holds and not reg.claims["clearance_orbit_routes_6_0p5"].holds
    S.register_cited(reg)
    assert not reg.claims["clearance_orbit_10_0p5"].holds and "not computed" in reg.claims["clearance_orbit_10_0p5"].text


def _branch(mu_b=-2.06, grows=True):
    f = np.array([2.5, 2.75, 3.0, 3.25, 3.5])
    mu = np.array([0.01, -0.004, -0.06, mu_b, -0.03])
    return S.BranchStudy(f, np.zeros((5, 4)), np.abs(mu), mu, np.abs(mu) < 1,
                         [("period-doubling", 3.21, (3.205, 3.215), "")] if mu_b < 0 else [], 3,
                         {2: [0.02, 0.001, 0.0002, 0.0003],
                          3: ([2.5, 5.2, 10.8, 21.0] if grows else [0.5, 0.2, 0.1, 0.05])},
                         {}, 0.5, None, "reached p1", 0, 0.0)


def _run(period, samples):
    """A sweep point's period reading and samples (what the branch's claims read of a PoincarePoint)."""
    return SimpleNamespace(period=period, samples=samples)


@pytest.mark.parametrize("brute, mu_b, grows, holds", [
    ((1, 4), -2.06, True, True),       # period-1 below, period-4 above: the sweep brackets the loss of stability
    ((1, 1), -2.06, True, False),      # the sweep still reads period-1 above the bracket
    ((1, 4), +2.06, True, False),      # a multiplier through +1 is not a period doubling
    ((1, 4), -2.06, False, False)])    # the direct route does not see the perturbation grow
def test_first_pd_claim_criterion(brute, mu_b, grows, holds):
    freqs = [3.0, 3.25]
    runs = [_run(brute[0], np.zeros((3, 4))), _run(brute[1], np.zeros((3, 4)))]
    d = _branch(mu_b, grows)
    reg = ClaimsRegister("t", glue=False)
    S.register_branch(reg, d, runs, freqs)
    c = reg.claims["clearance_orbit_first_pd"]
    assert c.holds is holds, c.text
    assert len(S.branch_figure(d, runs, freqs).axes) == 2 and len(S.branch_figure(None, runs, freqs).axes) == 2


def test_brute_agreement_claim():
    """Stable branch points must be what the sweep reads, unstable ones must not; a slow approach is not compared."""
    d = _branch()
    freqs = [2.5, 2.75, 3.0, 3.25, 3.5]
    on = [_run(1, np.zeros((3, 4))) for _ in freqs]
    on[3] = _run(0, np.ones((3, 4)))
    reg = ClaimsRegister("t", glue=False)
    S.register_brute_agreement(reg, d, on, freqs, 20)
    assert reg.claims["clearance_orbit_brute"].holds        # 3.5 Hz: |mu| 0.03 stable, period-1 on the orbit
    on[4] = _run(1, np.full((3, 4), 0.5))   # period-1, but far from the branch's orbit
    reg = ClaimsRegister("t", glue=False)
    S.register_brute_agreement(reg, d, on, freqs, 20)
    assert not reg.claims["clearance_orbit_brute"].holds and "3.5 Hz" in reg.claims["clearance_orbit_brute"].text
    on[4] = _run(0, np.zeros((3, 4)))      # on the orbit, but the period test reads irregular
    reg = ClaimsRegister("t", glue=False)
    S.register_brute_agreement(reg, d, on, freqs, 20)
    c = reg.claims["clearance_orbit_brute"]
    assert c.holds and "period test reads otherwise at 3.5 Hz (irregular, 0.0e+00 from the orbit)" in c.text
    on[3] = _run(1, np.ones((3, 4)))        # unstable at 3.25 Hz, but the sweep reads period-1
    reg = ClaimsRegister("t", glue=False)
    S.register_brute_agreement(reg, d, on, freqs, 20)
    assert not reg.claims["clearance_orbit_brute"].holds and "3.25 Hz" in reg.claims["clearance_orbit_brute"].text
    on[3] = _run(0, np.ones((3, 4)))
    on[4] = _run(1, np.full((3, 4), 0.5))
    d.mu[4] = 0.9                                          # 0.9^20 = 0.12: the approach is slow, not compared
    reg = ClaimsRegister("t", glue=False)
    S.register_brute_agreement(reg, d, on, freqs, 20)
    assert reg.claims["clearance_orbit_brute"].holds and "slow" in reg.claims["clearance_orbit_brute"].text


@pytest.mark.parametrize("case, match", [((0.0, 0.5), r"case\[0\] \(frequency\) must be a number > 0 Hz, got 0.0"), ((10.0, float("nan")), "clearance"),
                                         ((10.0,), "case = "), ("10 Hz", "case = "), (10.0, "case = "),
                                         ((10.0, -0.5), "clearance"), ((float("inf"), 0.5), "frequency")])
def test_bad_cases_are_named(case, match):
    from robolib import ParameterError

    with pytest.raises(ParameterError, match=match):
        S.case_orbits(None, case)


def test_close_returns_refuses_bad_samples():
    from robolib import ParameterError

    for z in (np.array([1.0, 2.0]), np.array([[np.nan], [1.0]]), "z"):
        with pytest.raises(ParameterError, match="z"):
            S.close_returns(z, 1, 1)
    for k, n in ((0, 1), (1.5, 1), (1, -1)):
        with pytest.raises(ParameterError, match="^(k|n) must be an integer"):
            S.close_returns(np.zeros((4, 1)), k, n)
