"""Periodic orbits of the gear-shift on the fast model (robolib.gearshift.orbits): independent routes.

The case is 10 Hz / 0.5 mm (a period-2 orbit; one return ~0.07 s at rtol 1e-11), shared by the tests.
"""

import math
import pickle

import numpy as np
import pytest

from robolib import ParameterError
from robolib.core.periodic import floquet_multipliers, monodromy
from robolib.gearshift import orbits as O
from robolib.gearshift.fast import FastClearance

F, C = 10.0, 5e-4
#: Two tolerances of the same orbit: the orbit points agree within this factor times the looser shooting tol.
RTOL_AGREE_FACTOR = 3.0
#: Largest |mu| from two difference steps / two rtols agree to this (absolute).
MU_AGREE = 0.05
#: The exponent's uncertainty (1/s) over 30 periods must be informative: below the Floquet exponent's size (~4.5 /s)
#: plus a margin (measured 3.4 /s over 40 periods from the centred start).
LYAP_U_MAX = 6.0


@pytest.fixture(scope="module")
def case():
    return O.periodic_orbit_at(None, F, C, k=2, n_transient=30, n_samples=12)


def test_orbit_exists_is_stable_period_two(case):
    assert case.orbit is not None, case.reason
    assert case.residual <= case.tol
    assert case.orbit.minimal_period == 2
    assert case.stable and case.max_mu < 1 - O.STABILITY_MARGIN
    assert case.lyapunov == pytest.approx(math.log(case.max_mu) / (2 / F))


def test_orbit_equals_long_simulation_samples(case):
    """A run from the chapter's initial state lands on the orbit points (independent of shooting)."""
    assert case.converges, case.sim_distances
    fc = FastClearance(None, clearance=C, frequency=F)
    T = 1 / F
    r = fc.simulate((0.0, 44 * T), t_eval=[42 * T, 43 * T, 44 * T], rtol=O.ORBIT_RTOL)
    s = np.hstack([r.e, r.ed])
    P = O.stroboscopic_map(None, F, C)
    d = O._distances(s, case.orbit.points, P.scale)
    assert np.all(d <= O.CONVERGE_FACTOR * case.tol), d
    # consecutive samples sit on different orbit points (period 2, not 1)
    near = [int(np.argmin(np.max(np.abs(case.orbit.points - v) / P.scale, axis=1))) for v in s]
    assert near[0] != near[1] and near[0] == near[2]


def test_residual_at_noise_level_and_shrinks_with_rtol(case):
    """At rtol 1e-10 the orbit is the same within its (larger) tolerance; the noise falls with rtol."""
    r10 = O.periodic_orbit_at(None, F, C, k=2, x0=case.orbit.x, samples=case.orbit.points, rtol=1e-10)
    assert r10.orbit is not None, r10.reason
    assert case.noise < r10.noise
    assert case.residual <= case.tol < r10.tol
    P = O.stroboscopic_map(None, F, C)
    gap = float(np.max(np.abs(r10.orbit.x - case.orbit.x) / P.scale))
    assert gap <= RTOL_AGREE_FACTOR * r10.tol


@pytest.fixture(scope="module")
def smooth():
    """10 Hz / 0.1 mm: a period-1 orbit whose map is smooth at the difference step (complex pair |mu| ~ 0.15)."""
    return O.periodic_orbit_at(None, F, 1e-4, k=1, n_transient=30, n_samples=6)


def test_multipliers_agree_between_difference_steps(smooth):
    assert smooth.orbit is not None, smooth.reason
    P = O.stroboscopic_map(None, F, 1e-4)
    mu = floquet_multipliers(monodromy(P, smooth.orbit.x, k=1, step=3 * P.step, scale=P.scale))
    assert abs(abs(mu[0]) - smooth.max_mu) <= MU_AGREE
    assert np.allclose(np.sort(np.abs(mu))[::-1][:2], np.sort(np.abs(smooth.multipliers))[::-1][:2], atol=MU_AGREE)


def test_det_monodromy_against_liouville(case):
    """det D P^2 = exp(integral of div f): damping makes it far below 1; the differenced det agrees (both tiny)."""
    P = O.stroboscopic_map(None, F, C)
    log_det = O.liouville_log_determinant(P, case.orbit.x, k=2)
    assert log_det < math.log(1e-6)
    assert abs(case.det) < 1e-6
    # |det| <= product of the moduli: consistent with the multipliers
    assert abs(case.det) <= np.prod(np.abs(case.multipliers)) * (1 + 1e-6) + 1e-300


def test_memory_reset_small_against_orbit_size(case):
    """The onset-speed memory reset at phase 0 changes P^2 at the orbit by < 1e-3 c (phase 0 is in contact)."""
    assert case.memory < 1e-3


def test_map_picklable_and_bad_input():
    P = O.stroboscopic_map(None, F, C)
    x = np.array([-0.14468, 0.99001, 1.10206, 0.16508]) * P.scale
    Q = pickle.loads(pickle.dumps(P))
    assert np.array_equal(P(x), Q(x))
    with pytest.raises(ParameterError, match="k = 0 is not valid"):
        O.periodic_orbit_at(None, F, C, k=0)
    with pytest.raises(ParameterError, match="frequency = -1.0 is not valid"):
        O.periodic_orbit_at(None, -1.0, C)
    with pytest.raises(ParameterError, match="clearance"):
        O.stroboscopic_map(None, F, 0.0)
    with pytest.raises(ParameterError, match="x0"):
        O.periodic_orbit_at(None, F, C, x0=np.zeros(3))
    with pytest.raises(ParameterError, match="memory"):
        O.stroboscopic_map(None, F, C, memory="forget")
    with pytest.raises(ParameterError):
        P(np.zeros(5))


def test_orbit_claims_say_what_the_words_say(case):
    from robolib.book.claims import ClaimsRegister

    reg = ClaimsRegister(study="orbits_test", glue=False)
    bad = O.OrbitResult(**{**case.__dict__, "orbit": None, "reason": "no decrease"})
    O.orbit_claims(reg, {(F, 0.5): (case, None), (F, 0.25): (bad, None)})
    assert reg.claims["gs_orbit_exists_10_0p5"].holds and reg.claims["gs_orbit_converges_10_0p5"].holds
    assert not reg.claims["gs_orbit_exists_10_0p25"].holds
    assert "gs_orbit_routes_10_0p5" not in reg.claims


def test_exponent_routes_agree(case):
    """ln max|mu| / (kT) from the differenced monodromy = the renormalised time-series exponent within u."""
    L = O.fast_lyapunov(None, F, C, x0=case.orbit.x, n_transient=2, n_renorm=30)
    assert 0 < L.uncertainty < LYAP_U_MAX
    assert L.spread <= L.uncertainty
    assert abs(L.exponent - case.lyapunov) <= L.uncertainty, (L, case.lyapunov)


def test_first_pd_claim_criterion():
    from robolib.book.claims import ClaimsRegister
    from robolib.core.continuation import Bifurcation

    pd = Bifurcation("period-doubling", 3.2132, (3.21316, 3.21399), 1e-3, None)
    for brute, holds in (({"below": (3.19, 1), "above": (3.25, 4)}, True),
                         ({"below": (3.19, 1), "above": (3.25, 1)}, False), (None, False)):
        reg = ClaimsRegister(study="orbits_test", glue=False)
        O.orbit_claims(reg, {}, O.FrequencyBranch(None, pd, None, 0.0, 0), clearance_mm=0.5, brute=brute)
        assert reg.claims["gs_orbit_first_pd"].holds is holds


# --- multipliers: accuracy, the direct route, the smooth scale (issue 20 item 2 follow-up) ---------------------------

#: Direct route (perturbation ratios, no differencing): amplitude (scaled), returns of P^k and the tolerance.
DIRECT_AMPLITUDE = 1e-4
DIRECT_RTOL = 1e-12
#: A stencil wider than the section's contact depth reads max|mu| off the direct route by more than this.
WIDE_STENCIL_OFF = 0.5
WIDE_STEP = 1e-3
#: 2 Hz / 0.1 mm: the previous Floquet reading (max|mu| ~ 1e-4, ln|mu|/T = -19 /s) and the perturbation size of the
#: direct route there (scaled; a smaller one shrinks into the noise at once).
READ_2HZ = 1e-4
DIRECT_AMPLITUDE_2HZ = 3e-2


def test_multiplier_error_direct_route_and_smooth_scale(case):
    """10 Hz: max|mu(P^2)| resolved (0.409 ± 0.013), the direct route agrees, the stencil is inside the contact depth
    and the orbit's contact onsets are far from grazing."""
    assert case.resolved and case.mu_error < 0.1 and case.mu_upper < 1 - O.STABILITY_MARGIN
    assert case.mu_error >= case.mu_floor > 0
    assert case.lyapunov_lower <= case.lyapunov <= case.lyapunov_upper
    cm = case.contact
    assert cm.smooth_at_step and cm.stencil < cm.depth < 1e-2
    assert cm.n_onsets > 10 and cm.min_onset_speed > 0.05
    P = O.stroboscopic_map(None, F, C, rtol=DIRECT_RTOL)
    ratios = O.perturbation_ratios(P, case.orbit.x, k=2, amplitude=DIRECT_AMPLITUDE, n_returns=3)
    assert np.all(np.diff(ratios) < 0)
    assert abs(O.contraction_per_return(ratios) - case.max_mu) <= MU_AGREE


def test_stencil_wider_than_contact_depth_misreads(case):
    """A step whose e-stencil crosses the contact boundary at the section reads a wrong multiplier (the neighbour
    starts in free flight: a new onset and memory), so the smooth scale is a real limit, not a precaution."""
    assert WIDE_STEP > case.contact.depth
    P = O.stroboscopic_map(None, F, C)
    mu = floquet_multipliers(monodromy(P, case.orbit.x, k=2, step=WIDE_STEP, scale=P.scale))
    assert abs(abs(mu[0]) - case.max_mu) > WIDE_STENCIL_OFF


@pytest.fixture(scope="module")
def strong():
    """2 Hz / 0.1 mm: a period-1 orbit contracting far below the differencing noise."""
    return O.periodic_orbit_at(None, 2.0, 1e-4, k=1, n_transient=30, n_samples=6)


def test_contraction_below_noise_is_a_bound(strong):
    """The differenced max|mu| is below its error (noise / step): only a bound; the direct route shows the true
    contraction is below the old reading 1e-4; the time-series exponent lies within the bound, and the claim says
    'within the bound', not 'agree'."""
    from robolib.book.claims import ClaimsRegister

    r = strong
    assert r.orbit is not None and r.residual <= r.tol and r.converges
    assert not r.resolved and r.mu_floor > READ_2HZ and r.lyapunov_lower == -math.inf
    assert r.contact.smooth_at_step
    P = O.stroboscopic_map(None, 2.0, 1e-4, rtol=DIRECT_RTOL)
    ratio = O.perturbation_ratios(P, r.orbit.x, k=1, amplitude=DIRECT_AMPLITUDE_2HZ, n_returns=1)[0]
    assert ratio < READ_2HZ / 10
    L = O.fast_lyapunov(None, 2.0, 1e-4, x0=r.orbit.x, n_transient=1, n_renorm=4)
    assert L.exponent + L.uncertainty < math.log(READ_2HZ) * 2.0   # below the old Floquet reading's -19 /s
    assert L.exponent - L.uncertainty <= r.lyapunov_upper
    reg = ClaimsRegister(study="orbits_test", glue=False)
    O.orbit_claims(reg, {(2.0, 0.1): (r, L)})
    c = reg.claims["gs_orbit_routes_2_0p1"]
    assert c.holds and "within the Floquet bound" in c.statement and "bounded by" in c.text
    ex = reg.claims["gs_orbit_exists_2_0p1"]
    assert ex.holds and "a bound, not a value" in ex.text


def test_routes_claim_fails_outside_interval_or_bound(case):
    """The routes claim can fail: a resolved interval missing lambda_ts ± u, and a bound below lambda_ts - u."""
    from robolib.book.claims import ClaimsRegister

    far = O.FastLyapunov(case.lyapunov + 5.0, 0.1, case.lyapunov + 5.0, 0.1, 0.0, 0.2, 1e-11, 1e-12, 4, 0.0)
    near = O.FastLyapunov(case.lyapunov, 0.1, case.lyapunov, 0.1, 0.0, 0.2, 1e-11, 1e-12, 4, 0.0)
    unres = O.OrbitResult(**{**case.__dict__, "resolved": False})
    for res, L, holds in ((case, far, False), (case, near, True), (unres, far, False), (unres, near, True)):
        reg = ClaimsRegister(study="orbits_test", glue=False)
        O.orbit_claims(reg, {(F, 0.5): (res, L)})
        assert reg.claims["gs_orbit_routes_10_0p5"].holds is holds, (res.resolved, L.exponent)


def test_multiplier_helpers_reject_bad_input():
    with pytest.raises(ParameterError, match="step"):
        O.multiplier_floor(1e-7, 0.0)
    with pytest.raises(ParameterError, match="ratios"):
        O.contraction_per_return([1.0, 0.5])
    with pytest.raises(ParameterError, match="amplitude"):
        O.perturbation_ratios(O.stroboscopic_map(None, F, C), np.zeros(4), amplitude=-1.0)
