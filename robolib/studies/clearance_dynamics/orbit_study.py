"""The clearance chapter's periodic orbits: shooting at each verdict case, and the period-1 branch in frequency.

A periodic verdict here means three things, each a claim: the orbit exists (shooting on the
k-th return map converged, its residual at the level of the integration noise), it is stable
(its largest Floquet multiplier, with its differencing error, below ``1 - STABILITY_MARGIN``),
and the motion from the chapter's initial state converges to it. For every verdict case
:func:`case_orbits` tries the periods ``ORBIT_PERIODS`` in turn, each from the last transient
sample and then from the closest returns of the simulated motion (the samples ``n`` with the
smallest ``|s_{n+k} - s_n|``: where the motion passes near a period-k orbit), and stops at the
first stable orbit the motion converges to. A case without one keeps the orbits it found
(unstable ones, inside the irregular motion). Its time-series Lyapunov exponent
(:func:`robolib.gearshift.orbits.fast_lyapunov`) is the second route: ``ln max|mu| / (kT)``
of a stable orbit must meet it, and an irregular case must have it positive.

:func:`branch_study` continues the period-1 orbit in frequency from the sweep's lowest
frequency (:func:`robolib.gearshift.orbits.frequency_branch`) and locates its first period
doubling, which the brute-force frequency sweep must bracket (period-1 just below, not
period-1 just above).

>>> close_returns(np.array([[0.0], [1.0], [0.1], [1.1], [0.5], [0.5]]), 2, 2)
[0, 2]
>>> orbit_verdict_name(None)
'no stable orbit'
"""

from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from robolib.book.notebook import markdown_table
from robolib.core import checks
from robolib.core import nonlinear as N
from robolib.core.errors import ParameterError, SingularityError, UnreachableError
from robolib.core.periodic import STABILITY_MARGIN
from robolib.gearshift import orbits as O
from robolib.studies.clearance_dynamics.figures import FULL_WIDTH
from robolib.studies.clearance_dynamics.verdicts import case_id, register_uncited

#: Periods tried per case, smallest first (a period-4 orbit would follow a second doubling).
ORBIT_PERIODS = (1, 2, 4)
#: Starts per period besides the last transient sample: the samples of the closest returns (for periods up to
#: CLOSE_RETURN_K_MAX; a longer period is tried from the last transient sample only: each failed start of P^4 costs
#: tens of evaluations of the map).
CLOSE_RETURN_STARTS = 2
CLOSE_RETURN_K_MAX = 2
#: Poincaré samples of the simulated motion after ``orbits.ORBIT_TRANSIENT`` periods.
ORBIT_SAMPLES = 24
#: Continuation of the period-1 branch: from the sweep's lowest frequency up to BRANCH_F_MAX (Hz; past its first
#: loss of stability, the sweep shows the rest), step BRANCH_DS (Hz, halved after a failed solve down to
#: BRANCH_DS_MIN), crossings located to a bracket of BRANCH_P_TOL (Hz).
BRANCH_F_MAX = 4.0
BRANCH_DS = 0.25
BRANCH_DS_MIN = 0.03
BRANCH_P_TOL = 1e-2
#: Direct route at the points around the first loss of stability: a perturbation of this scaled size, followed
#: over this many returns; it must shrink below the stable end and grow at the unstable end.
DIRECT_AMPLITUDE = 1e-4
DIRECT_RETURNS = 4
#: Normalised units (1 % of c): a brute-force sweep point lies on the branch when its last sample is this close to
#: the branch's orbit point (the sweep integrates at the file's rtol, the branch at ORBIT_RTOL).
BRUTE_AGREE = 1e-2
#: A stable branch point is compared with the sweep only if its transient has died out there: ``max|mu|`` to the
#: power of the sweep's transient periods below this (else the sweep still carries the approach to the orbit).
TRANSIENT_LEFT = 1e-3


@dataclass(frozen=True)
class SectionUnits:
    """Phase-0 states in the chapter's Poincaré units ``(e_local / c, ed / (c omega))`` (:func:`section_units`).

    Fields:

    * ``samples``: (m, 4) the simulated samples (dimensionless).
    * ``orbits``: ``{k: (k, 4)}`` the points of each orbit found, by period (dimensionless).
    """

    samples: np.ndarray
    orbits: dict


@dataclass(frozen=True)
class CaseOrbits:
    """Shooting at one verdict case (:func:`case_orbits`).

    Fields:

    * ``case``: ``(f [Hz], c [mm])``.
    * ``samples``: (n_samples + 1, 4) the simulated Poincaré states after ``orbits.ORBIT_TRANSIENT`` periods (m, m/s).
    * ``history``: (ORBIT_TRANSIENT + n_samples + 1, 4) all of them from the start (m, m/s).
    * ``scale``: (4,) ``(c, c, c omega, c omega)`` (m, m/s).
    * ``found``: the orbits found, one per period (:class:`robolib.gearshift.orbits.OrbitResult`, minimal period k).
    * ``attractor``: the stable one the motion converges to (one of ``found``), or None.
    * ``attempts``: ``(k, start index, outcome)`` per shooting.
    * ``lyapunov``: the time-series exponent (:class:`robolib.gearshift.orbits.FastLyapunov`, 1/s).
    * ``section``: the samples and orbit points in the chapter's units (:class:`SectionUnits`).
    * ``wall_s``: wall time, s.
    """

    case: tuple
    samples: np.ndarray
    history: np.ndarray
    scale: np.ndarray
    found: list
    attractor: O.OrbitResult | None
    attempts: list
    lyapunov: O.FastLyapunov
    section: SectionUnits
    wall_s: float


@dataclass(frozen=True)
class BranchStudy:
    """The period-1 branch at the frequency sweep's clearance and its first loss of stability (:func:`branch_study`).

    Fields:

    * ``f``: (m,) the branch's frequencies, Hz.
    * ``section``: (m, 4) its orbit points in the chapter's sample units (dimensionless).
    * ``mu``: (m,) the largest ``abs(multiplier)``; mu_real: (m,) that multiplier's real part.
    * ``stable``: (m,) bool per point.
    * ``bifurcations``: ``[(kind, f [Hz], (lo, hi) bracket [Hz], note)]`` located along the branch.
    * ``first_loss``: index of the first unstable point after a stable one, or None.
    * ``direct``: ``{index: perturbation ratios per return}`` at the two points around it.
    * ``onsets``: ``{index: contact onsets per period}`` at those points.
    * ``clearance_mm``: the branch's clearance, mm.
    * ``branch2``: the period-2 branch's outcome (text) or None.
    * ``stop_reason``: why the continuation stopped.
    * ``evaluations``: evaluations of the return map.
    * ``wall_s``: wall time, s.
    """

    f: np.ndarray
    section: np.ndarray
    mu: np.ndarray
    mu_real: np.ndarray
    stable: np.ndarray
    bifurcations: list
    first_loss: int | None
    direct: dict
    onsets: dict
    clearance_mm: float
    branch2: str | None
    stop_reason: str
    evaluations: int
    wall_s: float


def close_returns(z, k: int, n: int) -> list:
    """Indices of the ``n`` samples with the smallest ``max |z_{i+k} - z_i|`` (z (m, d) scaled samples), closest
    first, each at least k samples from the ones before (one start per pass near an orbit)."""
    z = checks.real_array("z", z, shape=(None, None))
    k, n = checks.count("k", k, low=1), checks.count("n", n, low=0)
    d = np.max(np.abs(z[k:] - z[:-k]), axis=1) if len(z) > k else np.zeros(0)
    out = []
    for i in np.argsort(d, kind="stable"):
        if all(abs(int(i) - j) >= k for j in out):
            out.append(int(i))
        if len(out) == n:
            break
    return out


def orbit_verdict_name(attractor) -> str:
    """The orbit verdict in words: ``stable period-k`` (``attractor`` an :class:`robolib.gearshift.orbits.OrbitResult`)
    or ``no stable orbit`` (None).

    >>> orbit_verdict_name(None)
    'no stable orbit'
    """
    return "no stable orbit" if attractor is None else f"stable period-{attractor.k}"


def case_orbits(params, case, joint: str = "B1", rtol=None, periods=ORBIT_PERIODS,
                n_starts: int = CLOSE_RETURN_STARTS, n_samples: int = ORBIT_SAMPLES,
                n_renorm: int = O.LYAP_RENORM) -> CaseOrbits:
    """Shooting at one case ``(f [Hz], c [mm])`` from the chapter's initial state (picklable: a sweep task).

    Returns a :class:`CaseOrbits`: the simulated samples, the orbits found (one per period, minimal period = k),
    the stable one the motion converges to (or None), the attempts, the time-series Lyapunov exponent and the
    section in the chapter's units. ``n_renorm``: drive periods of the Lyapunov estimate.
    """
    f, c = float(case[0]), float(case[1]) * 1e-3
    wall = time.perf_counter()
    P = O.stroboscopic_map(params, f, c, joint, rtol)
    S = P.samples(O.ORBIT_TRANSIENT + n_samples)
    samples = S[O.ORBIT_TRANSIENT:]
    z = samples / P.scale
    found, attempts, attractor = [], [], None
    for k in periods:
        extra = n_starts if k <= CLOSE_RETURN_K_MAX else 0
        for i in [0] + [j for j in close_returns(z, k, extra + 1) if j != 0][:extra]:
            r = O.periodic_orbit_at(params, f, c, k=k, x0=samples[i], joint=joint, rtol=P.rtol, samples=samples)
            kmin = r.minimal_period if r.orbit is not None else None
            attempts.append((k, i, r.reason if kmin in (None, k) else f"minimal period {kmin}"))
            if r.orbit is not None and kmin == k:
                found.append(r)
                break
        if found and found[-1].k == k and found[-1].mu_upper < 1 - STABILITY_MARGIN and found[-1].converges:
            attractor = found[-1]
            break
    L = O.fast_lyapunov(params, f, c, joint, rtol, n_renorm=n_renorm)
    return CaseOrbits((f, c * 1e3), samples, S, P.scale, found, attractor, attempts, L,
                      section_units(P, samples, found), time.perf_counter() - wall)


def section_units(P: O.StroboscopicMap, samples, found) -> SectionUnits:
    """The simulated samples and the orbit points in the chapter's Poincaré units ``(e_local / c, ed / (c omega))``
    (the bearing body's frame, as :func:`robolib.gearshift.poincare_run` samples): a :class:`SectionUnits`.
    ``samples`` (m >= 1, 4) in m, m/s; ``found`` a list of converged orbits (:class:`robolib.gearshift.orbits.OrbitResult`,
    points (k, 4)). A state the mechanism cannot assemble at raises ParameterError naming ``samples``/``found``.
    """
    fc = P.model

    def units(x, name):
        x = np.atleast_2d(x)
        try:
            q = np.array([fc.full_state(xi[:2], xi[2:4], 0.0)[0] for xi in x])
        except (UnreachableError, SingularityError) as exc:
            raise ParameterError(f"{name} is not valid: a state the mechanism cannot assemble at phase 0 ({exc})") \
                from None
        e_loc = fc.e_local(q, x[:, :2])
        return np.concatenate([e_loc / P.clearance, x[:, 2:4] / (P.clearance * P.omega)], axis=1)

    return SectionUnits(units(samples, "samples"),
                        {d.k: units(np.array(d.orbit.points), f"found[{i}]") for i, d in enumerate(found)})


#: Quick settings (tests): periods tried, close-return starts, samples, Lyapunov periods; no branch.
QUICK = {"periods": (1, 2), "n_starts": 0, "n_samples": 6, "n_renorm": 6}


def _orbit_task(spec: SimpleNamespace, item):
    """One task of :func:`orbit_tasks`: ``("case", (f, c_mm))`` or ``("branch", None)``."""
    kind, arg = item
    if kind == "case":
        return case_orbits(spec.base, arg, joint=spec.joint, **spec.case_kw)
    return branch_study(spec.branch)


def orbit_tasks(s, n_jobs=None) -> tuple[dict, BranchStudy | None]:
    """:func:`case_orbits` for every verdict case of the study settings ``s`` and :func:`branch_study`, in parallel
    (the branch first: the longest task); ``({(f, c_mm): CaseOrbits}, BranchStudy or None)``. ``QUICK`` settings and no
    branch when ``s.params["quick"]``."""
    quick = bool(s.params.get("quick"))
    spec = SimpleNamespace(base=s.base, joint=s.joints[0], case_kw=QUICK if quick else {},
                           branch=SimpleNamespace(base=s.base, joints=s.joints, freq_range=list(s.freq_range),
                                                  freq_sweep_clearance_mm=s.freq_sweep_clearance_mm))
    items = ([] if quick else [("branch", None)]) + [("case", tuple(fc)) for fc in s.cases]
    _, out = N.sweep(functools.partial(_orbit_task, spec), items, n_jobs=s.n_jobs if n_jobs is None else n_jobs)
    res = dict(zip(items, out))
    return {fc: res[("case", tuple(fc))] for fc in s.cases}, res.get(("branch", None))


def _mu_text(o: O.OrbitResult) -> str:
    if o.resolved:
        return f"max|μ| = {o.max_mu:.3g} ± {o.mu_error:.2g}"
    return f"max|μ| ≤ {o.mu_upper:.2g} (below its differencing error {o.mu_error:.2g}: a bound)"


def register_case(reg, d: CaseOrbits) -> None:
    """Claims ``clearance_orbit_<case>`` (the orbit verdict) and ``clearance_orbit_routes_<case>`` (the two exponent
    routes) of one :func:`case_orbits` result."""
    f, c_mm = d.case
    a, L, found = d.attractor, d.lyapunov, d.found
    lo_ts, hi_ts = L.exponent - L.uncertainty, L.exponent + L.uncertainty
    ks = ", ".join(str(k) for k in ORBIT_PERIODS)
    if a is not None:
        reg.claim(case_id("clearance_orbit", f, c_mm), f"at {f:g} Hz / {c_mm:g} mm a stable period-{a.k} orbit exists "
                  "and the motion from the chapter's initial state converges to it",
                  value={"residual": a.residual, "tol": a.tol, "max_mu": a.max_mu, "mu_upper": a.mu_upper,
                         "distance": a.sim_distance},
                  criterion=f"shooting on P^k converged with residual <= tol ({O.SHOOT_TOL_FACTOR:g} x the measured "
                            f"one-return noise), max|mu| + err < {1 - STABILITY_MARGIN:g} (err: noise / difference "
                            f"step + the change at {O.STEP_SPREAD_FACTOR:g} x the step), and the last simulated samples "
                            f"within {O.CONVERGE_FACTOR:g} x tol of the orbit points",
                  holds=bool(a.residual <= a.tol and a.mu_upper < 1 - STABILITY_MARGIN and a.converges),
                  text=f"a stable period-{a.k} orbit: residual {a.residual:.1e} (tolerance {a.tol:.1e}), "
                       f"{_mu_text(a)}; the simulated samples end {a.sim_distance:.1e} from it")
        if a.resolved:
            ok = a.lyapunov_lower <= hi_ts and lo_ts <= a.lyapunov_upper
            what, crit = (f"at {f:g} Hz / {c_mm:g} mm the Floquet exponent and the time-series exponent agree",
                          "the interval ln(max|mu| ± err) / (kT) meets lambda_ts ± u")
            text = (f"{a.lyapunov_lower:+.2f} to {a.lyapunov_upper:+.2f} /s from the multipliers, "
                    f"{L.exponent:+.2f} ± {L.uncertainty:.2f} /s from the time series")
        else:
            ok = lo_ts <= a.lyapunov_upper
            what, crit = (f"at {f:g} Hz / {c_mm:g} mm the time-series exponent lies below the Floquet bound",
                          "lambda_ts - u <= ln(max|mu| + err) / (kT) (the multipliers are below their error: a bound)")
            text = (f"{L.exponent:+.1f} ± {L.uncertainty:.1f} /s from the time series, at most "
                    f"{a.lyapunov_upper:+.1f} /s from the multipliers")
    else:
        unstable = [o for o in found if o.max_mu - o.mu_error > 1 + STABILITY_MARGIN]
        reg.claim(case_id("clearance_orbit", f, c_mm), f"at {f:g} Hz / {c_mm:g} mm no stable orbit of period {ks} "
                  "attracts the motion from the chapter's initial state, and its time-series exponent is positive",
                  value={"found": [(o.k, o.max_mu) for o in found], "lyapunov": [L.exponent, L.uncertainty]},
                  criterion=f"shooting from the last transient sample and, for periods up to {CLOSE_RETURN_K_MAX}, the "
                            f"{CLOSE_RETURN_STARTS} closest returns finds no orbit with max|mu| + err < {1 - STABILITY_MARGIN:g} that the motion "
                            "converges to, and lambda_ts - u > 0",
                  holds=bool(lo_ts > 0), text="no stable orbit" + (
                      "; shooting finds " + ", ".join(f"an unstable period-{o.k} orbit ({_mu_text(o)})"
                                                      for o in found) if found else ", and shooting finds no orbit"))
        ok = bool(unstable) and lo_ts > 0 and all(math.log(o.max_mu - o.mu_error) > 0 for o in unstable)
        what = (f"at {f:g} Hz / {c_mm:g} mm the unstable orbits' Floquet exponents and the time-series exponent are "
                "positive")
        crit = (f"at least one orbit found with max|mu| - err > {1 + STABILITY_MARGIN:g}, and lambda_ts - u > 0")
        text = ("; ".join(f"{math.log(o.max_mu) / (o.k / f):+.1f} /s (period-{o.k})" for o in unstable)
                + f" from the multipliers, {L.exponent:+.1f} ± {L.uncertainty:.1f} /s from the time series"
                if unstable else "no unstable orbit found to compare with")
    reg.claim(case_id("clearance_orbit_routes", f, c_mm), what,
              value={"time_series": [L.exponent, L.uncertainty],
                     "floquet": [(o.k, o.lyapunov, o.lyapunov_upper) for o in found]},
              criterion=crit + "; u = batch error + the change between rtol and rtol / "
                               f"{O.LYAP_RTOL_DIVISOR:g}", holds=bool(ok), text=text)


def register_ladder_agreement(reg, cases: dict, ladder: dict) -> None:
    """Claim ``clearance_orbit_ladder``: the orbit verdicts and the tolerance ladders' verdicts name the same
    motion (period-k, confirmed or in the limit, for a stable period-k orbit; irregular for none).

    ``ladder``: ``{(f, c_mm): (kind, k)}`` of :class:`robolib.studies.clearance_dynamics.verdicts.VerdictStudy`.
    """
    rows, agree = [], []
    for fc, d in cases.items():
        kind, k = ladder[fc]
        a = d.attractor
        same = (a is not None and kind in ("confirmed", "limit") and k == a.k) or (a is None and kind == "irregular")
        agree.append(same)
        lad = f"{N.period_name(k)} ({kind})" if kind in ("confirmed", "limit") else kind
        rows.append(f"{fc[0]:g} Hz / {fc[1]:g} mm: {orbit_verdict_name(a)}, ladder {lad}")
    reg.claim("clearance_orbit_ladder", "the orbit verdicts and the tolerance ladders' verdicts name the same motion "
              "in every case", value=rows, criterion="stable period-k orbit <=> ladder period-k (confirmed or in the "
              "limit); no stable orbit <=> ladder irregular", holds=bool(agree) and all(agree),
              text="; ".join(rows))


#: The study's Lyapunov estimates start their neighbour this far away, in units of c (runs.lyapunov_run's d0).
STUDY_D0 = 1e-2


def register_study_exponents(reg, cases: dict, lyap) -> None:
    """Claim ``clearance_orbit_study_exponent``: the verdict study's Lyapunov estimates (``lyap(f, c)``, neighbour at
    ``STUDY_D0`` c, renormalised every half period) against the Floquet exponents where those are resolved values,
    with the orbit's contact margin at the section (the scale on which its return map is smooth)."""
    rows, differ = [], []
    for (f, c), d in cases.items():
        a = d.attractor
        if a is None or not a.resolved:
            continue
        L = lyap(f, c)
        lo, hi = L.exponent - 2 * L.uncertainty, L.exponent + 2 * L.uncertainty
        apart = hi < a.lyapunov_lower or lo > a.lyapunov_upper
        differ.append(apart)
        rows.append(f"{f:g} Hz / {c:g} mm: {L.exponent:+.1f} ± {L.uncertainty:.1f} /s against "
                    f"{a.lyapunov_lower:+.2f} to {a.lyapunov_upper:+.2f} /s, the section's contact margin "
                    f"{a.contact.depth if a.contact is not None else float('nan'):.1e} c")
    reg.claim("clearance_orbit_study_exponent", "the verdict study's Lyapunov estimates, whose neighbour starts at "
              f"{STUDY_D0:g} c, differ from the Floquet exponents where those are resolved",
              value=rows, criterion="lambda ± 2u and the Floquet interval ln(max|mu| ± err) / (kT) do not meet, for "
              "every case with a resolved stable orbit; at least one such case", holds=bool(differ) and all(differ),
              text="; ".join(rows) or "no case with a resolved stable orbit")


def register_cited(reg) -> None:
    """Placeholders for the cited cases this run lacks (the prose cites them)."""
    register_uncited(reg, [("clearance_orbit", "the orbit study"), ("clearance_orbit_routes", "the orbit study")])


def orbit_study(s, v, reg) -> tuple[dict, BranchStudy | None]:
    """Shooting at every verdict case of the settings ``s``, the period-1 branch, and the cases' claims: per case
    :func:`register_case`, then :func:`register_ladder_agreement` with the verdict study ``v`` and
    :func:`register_cited` (the branch's claim needs the sweep: :func:`register_branch`). The fast model has one
    clearance joint: with several the cases are registered as not computed. Returns ``({(f, c_mm): CaseOrbits}, branch)``
    (:func:`orbit_tasks`)."""
    if len(s.joints) != 1:
        for f, c in s.cases:
            for p in ("clearance_orbit", "clearance_orbit_routes"):
                reg.claim_not_computed(case_id(p, f, c), f"the orbit study at {f:g} Hz / {c:g} mm",
                                       criterion="one clearance joint (the fast model's)",
                                       reason=f"the fast model has one clearance joint, this run has {len(s.joints)}")
        register_cited(reg)
        return {}, None
    cases, branch = orbit_tasks(s)
    for d in cases.values():
        register_case(reg, d)
    register_ladder_agreement(reg, cases, v.ladder)
    register_study_exponents(reg, cases, v.lyap)
    register_cited(reg)
    return cases, branch


def branch_study(s) -> BranchStudy:
    """The period-1 branch at the frequency sweep's clearance from ``freq_range[0]`` to ``BRANCH_F_MAX`` Hz
    (:func:`robolib.gearshift.orbits.frequency_branch`, Newton), its first loss of stability and the direct route
    there (picklable inputs: a sweep task).

    Returns a :class:`BranchStudy`.
    """
    wall = time.perf_counter()
    c = s.freq_sweep_clearance_mm * 1e-3
    f0, f1 = float(s.freq_range[0]), min(float(s.freq_range[1]), BRANCH_F_MAX)
    b = O.frequency_branch(s.base, c, f0=f0, f1=f1, joint=s.joints[0], ds=BRANCH_DS, p_tol=BRANCH_P_TOL,
                           update="newton", ds_min=BRANCH_DS_MIN, pd_span=BRANCH_DS)
    br = b.branch
    maps = [O.stroboscopic_map(s.base, float(f), c, s.joints[0]) for f in br.parameters]
    sec = np.array([section_units(P, x[None, :], []).samples[0] for P, x in zip(maps, br.points)])
    stable = np.asarray(br.stable, bool)
    first = next((i for i in range(1, len(stable)) if stable[i - 1] and not stable[i]), None)
    direct, onsets = {}, {}
    if first is not None:
        for i in (first - 1, first):
            direct[i] = O.perturbation_ratios(maps[i], br.points[i], 1, amplitude=DIRECT_AMPLITUDE,
                                              n_returns=DIRECT_RETURNS).tolist()
            onsets[i] = O.section_contact_margin(maps[i], br.orbits[i]).n_onsets
    mu0 = br.multipliers[:, 0]
    b2 = b.branch2
    return BranchStudy(br.parameters, sec, np.abs(mu0), mu0.real, stable,
                       [(z.kind, z.parameter, z.bracket, z.note) for z in br.bifurcations], first, direct, onsets,
                       s.freq_sweep_clearance_mm,
                       b2 if isinstance(b2, str) or b2 is None else f"period-2 branch: {b2.stop_reason}",
                       br.stop_reason, b.evaluations, time.perf_counter() - wall)


def register_branch(reg, d: BranchStudy, f_runs, freqs) -> None:
    """Claim ``clearance_orbit_first_pd``: where the continued period-1 branch first loses stability, by which
    multiplier, with the direct route there and the brute-force sweep around it (``f_runs``: the frequency sweep's
    Poincaré runs at ``freqs`` Hz: :class:`robolib.gearshift.runs.PoincarePoint`)."""
    i = d.first_loss
    if i is None:
        reg.claim("clearance_orbit_first_pd", f"the period-1 branch at c = {d.clearance_mm:g} mm loses stability "
                  f"below {d.f[-1]:g} Hz", value=None, criterion="a stable point followed by an unstable one",
                  holds=False, text=f"it does not lose stability on the branch computed ({d.stop_reason})")
        return
    fa, fb = float(d.f[i - 1]), float(d.f[i])
    pds = [z for z in d.bifurcations if z[0] == "period-doubling" and fa <= z[1] <= fb]
    lo, hi = (pds[0][2] if pds else (fa, fb))
    ra, rb = d.direct[i - 1], d.direct[i]
    grows, shrinks = rb[-1] > rb[0] > 1.0, ra[-1] < 1.0
    freqs = np.asarray(freqs, float)
    below = [j for j in range(len(freqs)) if freqs[j] <= lo + 1e-12]
    above = [j for j in range(len(freqs)) if freqs[j] >= hi - 1e-12]
    jb, ja = (below[-1] if below else None), (above[0] if above else None)
    brute_ok = jb is not None and ja is not None and f_runs[jb].period == 1 and f_runs[ja].period != 1
    read = (lambda j: N.period_name(f_runs[j].period) if j is not None else "not in the sweep")  # noqa: E731
    mu_a, mu_b = d.mu_real[i - 1], d.mu_real[i]
    reg.claim("clearance_orbit_first_pd", f"the period-1 branch at c = {d.clearance_mm:g} mm, continued from "
              f"{d.f[0]:g} Hz, first loses stability by a multiplier through −1 between its points at {fa:g} and "
              f"{fb:g} Hz (the continuation locates the crossing between {lo:.3f} and {hi:.3f} Hz)",
              value={"bracket": [lo, hi], "mu": [float(mu_a), float(mu_b)], "direct": [ra, rb],
                     "brute": [read(jb), read(ja)]},
              criterion=f"the largest multiplier real, above -1 at the last stable point and below -1 at the first "
                        f"unstable one; a perturbation of {DIRECT_AMPLITUDE:g} (scaled) shrinks over "
                        f"{DIRECT_RETURNS} periods at the first and grows at every period at the second (direct route, "
                        f"no differencing); the brute-force sweep reads period-1 at its last frequency below the "
                        f"bracket and not period-1 at its first above",
              holds=bool(-1 < mu_a and mu_b < -1 and grows and shrinks and brute_ok),
              text=(f"between {fa:g} and {fb:g} Hz, located at {lo:.3f}–{hi:.3f} Hz (the multiplier {mu_a:+.2f} at "
                    f"{fa:g} Hz, {mu_b:+.2f} at {fb:g} Hz; a perturbation grows {rb[-1] / rb[0]:.0f}-fold in {DIRECT_RETURNS - 1} periods there); "
                    f"the sweep reads {read(jb)} at "
                    f"{freqs[jb] if jb is not None else float('nan'):g} Hz and {read(ja)} at "
                    f"{freqs[ja] if ja is not None else float('nan'):g} Hz"))


def register_crossings(reg, d: BranchStudy) -> None:
    """Claim ``clearance_orbit_crossings``: every crossing of -1 located along the branch, with its bracket (and
    whether Newton failed inside it: the map is not smooth there), and where the branch ends."""
    pds = [z for z in d.bifurcations if z[0] == "period-doubling"]
    parts = [f"{p:.3f} Hz (bracket {lo:.3f}–{hi:.3f}" + ("; Newton fails inside it" if "Newton failed" in note else "")
             + ")" for _, p, (lo, hi), note in pds]
    reg.claim("clearance_orbit_crossings", f"the located crossings of −1 along the period-1 branch from {d.f[0]:g} "
              f"to {d.f[-1]:g} Hz", value=[[p, list(b)] for _, p, b, _ in pds],
              criterion="a sign change of det(M + I) between consecutive branch points, located by regula falsi on f "
                        f"to a bracket of {BRANCH_P_TOL:g} Hz unless Newton fails inside it; at least one",
              holds=bool(pds), text=("; ".join(parts) if pds else "none") +
              (f"; the branch is {'stable' if d.stable[-1] else 'unstable'} at {d.f[-1]:g} Hz"))


def register_onsets(reg, d: BranchStudy) -> None:
    """Claim ``clearance_orbit_onsets``: the number of contact onsets per period differs between the last stable and
    the first unstable branch point (the map changes piecewise there)."""
    i = d.first_loss
    n = d.onsets
    ok = i is not None and i in n and (i - 1) in n
    reg.claim("clearance_orbit_onsets", "the number of contact onsets per period of the period-1 orbit changes "
              "between the last stable and the first unstable point of the branch",
              value=[n.get(i - 1), n.get(i)] if ok else None,
              criterion="onsets per period (contact episodes starting inside the period) differ at the two points",
              holds=bool(ok and n[i - 1] != n[i]),
              text=(f"{n[i - 1]} onsets per period at {d.f[i - 1]:g} Hz, {n[i]} at {d.f[i]:g} Hz" if ok else
                    "the branch does not lose stability"))


def register_brute_agreement(reg, d: BranchStudy, f_runs, freqs, n_transient: int) -> None:
    """Claim ``clearance_orbit_brute``: at every sweep frequency on the branch, the sweep settles on a stable branch
    point (its last sample within ``BRUTE_AGREE`` of the orbit point) and not on an unstable one (it does not read
    period-1 there). The sweep's period-test reading at a stable point is reported beside it: where the test reads
    irregular on samples that lie on the orbit, the return-to-return integration scatter exceeds the test's
    tolerance (its noise is measured on one return). A stable point whose approach has not died out within the
    sweep's ``n_transient`` periods (``max|mu|^n_transient > TRANSIENT_LEFT``) is listed as slow and not compared."""
    freqs = np.asarray(freqs, float)
    rows, bad, slow, test_off = [], [], [], []
    for j, f in enumerate(d.f):
        hit = np.flatnonzero(np.abs(freqs - f) <= 1e-9)
        if not len(hit):
            continue
        r = f_runs[int(hit[0])]
        gap = float(np.max(np.abs(r.samples[-1] - d.section[j])))
        st = bool(d.stable[j])
        if st and d.mu[j] ** n_transient > TRANSIENT_LEFT:
            slow.append(f"{f:g} Hz (|μ| = {d.mu[j]:.2f}; the sweep reads {N.period_name(r.period)})")
            continue
        ok = gap <= BRUTE_AGREE if st else r.period != 1
        rows.append((float(f), st, N.period_name(r.period), gap))
        if not ok:
            bad.append(f"{f:g} Hz (branch {'stable' if st else 'unstable'}, sweep {N.period_name(r.period)}, "
                       f"distance {gap:.1e})")
        elif st and r.period != 1:
            test_off.append(f"{f:g} Hz ({N.period_name(r.period)}, {gap:.1e} from the orbit)")
    n_st = sum(1 for _, st, _, _ in rows if st)
    reg.claim("clearance_orbit_brute", "where the continued branch is stable the brute-force sweep settles on its "
              "orbit, and where it is unstable the sweep reads another motion", value={"rows": rows, "slow": slow},
              criterion=f"at every sweep frequency on the branch: stable (and max|mu|^{n_transient} <= "
                        f"{TRANSIENT_LEFT:g}, the sweep's transient over) -> the sweep's last sample lies within "
                        f"{BRUTE_AGREE:g} (normalised) of the orbit point; unstable -> the sweep does not read "
                        "period-1; at least one of each",
              holds=bool(rows) and not bad and 0 < n_st < len(rows),
              text=(f"{len(rows)} sweep frequencies compared, {n_st} stable and {len(rows) - n_st} unstable"
                    + ("; they disagree at " + ", ".join(bad) if bad else ", all as stated")
                    + ("; on the orbit the sweep's period test reads otherwise at " + ", ".join(test_off)
                       if test_off else "")
                    + ("; not compared, the approach still slow after the sweep's transient: " + ", ".join(slow)
                       if slow else "")))


def branch_figure(d: BranchStudy | None, f_runs, freqs) -> Figure:
    """(a) The frequency sweep's Poincaré samples e_x/c (dots) up to the branch's end, and the continued period-1
    branch (solid: stable, open markers dashed: unstable), the first loss of stability shaded; (b) the largest
    ``abs(multiplier)`` along the branch (log), with ``abs(mu) = 1``. ``d`` None (quick runs): a figure that says so."""

    fig = Figure(figsize=(FULL_WIDTH, 3.8), layout="tight")
    a0, a1 = fig.subplots(1, 2)
    if d is None:
        for ax in (a0, a1):
            ax.text(0.5, 0.5, "the branch is not computed in quick runs", ha="center", va="center")
            ax.set_axis_off()
        return fig
    fmax = float(d.f[-1]) + 0.5
    for f, r in zip(freqs, f_runs):
        if f <= fmax:
            a0.plot(np.full(len(r.samples), f), r.samples[:, 0], "k.", ms=2, zorder=3)
    f, x, st = np.asarray(d.f), d.section[:, 0], d.stable
    a0.plot(f, np.where(st, x, np.nan), "-o", color="tab:blue", ms=4, label="period-1 branch, stable")
    a0.plot(f, x, "--", color="tab:red", lw=0.8)
    a0.plot(f[~st], x[~st], "s", mfc="none", mec="tab:red", ms=6, label="period-1 branch, unstable")
    a1.semilogy(f, np.maximum(d.mu, 1e-8), "-o", color="0.3", ms=4)
    a1.semilogy(f[~st], np.maximum(d.mu[~st], 1e-8), "s", mfc="none", mec="tab:red", ms=7)
    a1.axhline(1.0, color="k", lw=0.8, ls=":")
    for ax in (a0, a1):
        for kind, p, (lo, hi), _ in d.bifurcations:
            if kind == "period-doubling":
                ax.axvspan(lo, hi, color="tab:orange", alpha=0.35)
        ax.set_xlabel(f"drive frequency f [Hz] (c = {d.clearance_mm:g} mm)")
    a0.set_ylabel("e_x / c at phase 0")
    a0.legend(fontsize=8)
    a1.set_ylabel("largest |Floquet multiplier|")
    return fig


def _mu_cell(o: O.OrbitResult) -> str:
    return f"{o.max_mu:.3g} ± {o.mu_error:.2g}" if o.resolved else f"≤ {o.mu_upper:.2g} (a bound)"


def orbit_table(cases: dict) -> str:
    """Markdown: per case and orbit found, its period, residual and tolerance, largest multiplier (a bound when below
    its differencing error), stability, the simulated motion's distance from the stable orbit, and the two exponents."""
    rows = []
    for (f, c), d in cases.items():
        L = d.lyapunov
        ts = f"{L.exponent:+.2f} ± {L.uncertainty:.2f}"
        for o in d.found or [None]:
            if o is None:
                rows.append([f"{f:g} Hz, {c:g} mm", "none found", "-", "-", "-", "-", "-", ts])
                continue
            fl = (f"{o.lyapunov_lower:+.2f} to {o.lyapunov_upper:+.2f}" if o.resolved else
                  f"≤ {o.lyapunov_upper:+.1f}")
            stab = "stable" if o.mu_upper < 1 - STABILITY_MARGIN else "unstable"
            rows.append([f"{f:g} Hz, {c:g} mm", o.k, f"{o.residual:.1e} / {o.tol:.1e}", _mu_cell(o), stab,
                         f"{o.sim_distance:.1e}" if o is d.attractor else "-", fl, ts])
    return markdown_table(["case", "k", "residual / tol.", "max |μ|", "stability", "motion's distance",
                           "λ Floquet [1/s]", "λ time series [1/s]"], rows)


def orbits_figure(cases: dict) -> Figure:
    """Per case: the simulated Poincaré samples (dots) and the orbit points found (stable: filled circles, unstable:
    open squares) in the (e_x/c, ė_x/(cω)) plane, and the distance of each sample to the nearest orbit point."""

    n = len(cases)
    fig = Figure(figsize=(min(3.4, FULL_WIDTH / n) * n, 6.0), layout="tight")  # at most the column's width
    axs = fig.subplots(2, n, squeeze=False)
    for j, ((f, c), d) in enumerate(cases.items()):
        ax, ax2 = axs[0, j], axs[1, j]
        sec = d.section
        ax.plot(sec.samples[:, 0], sec.samples[:, 2], ".", color="0.3", ms=4, label="simulated samples", zorder=3)
        for o in d.found:
            pts = sec.orbits[o.k]
            st = o is d.attractor
            ax.plot(pts[:, 0], pts[:, 2], "o" if st else "s", ms=9, mfc="tab:blue" if st else "none",
                    mec="tab:blue" if st else "tab:red", label=f"period-{o.k} orbit ({'stable' if st else 'unstable'})")
        ax.set_title(f"{f:g} Hz, {c:g} mm", fontsize=10)
        ax.set_xlabel("e_x / c")
        if j == 0:  # one y label per row: the panels of a row show the same quantities
            ax.set_ylabel("ė_x / (c ω)")
        ax.legend(fontsize=8)
        z = np.asarray(d.history) / d.scale
        n0 = 0
        pts = [np.array(o.orbit.points) / d.scale for o in d.found]
        if pts:
            allp = np.concatenate(pts)
            dist = np.min(np.max(np.abs(z[:, None, :] - allp[None, :, :]), axis=2), axis=1)
            ax2.semilogy(np.arange(len(z)) + n0, np.maximum(dist, 1e-12), "k.-", lw=0.8, ms=3)
            ax2.axvline(O.ORBIT_TRANSIENT, color="0.6", ls=":", lw=0.8)
        ax2.set_xlabel("drive period n\n(from the chapter's initial state)")
        if j == 0:
            ax2.set_ylabel("distance to the nearest orbit point")
        ax.ticklabel_format(useOffset=False)
        ax.xaxis.set_major_locator(MaxNLocator(3))
        ax.tick_params(axis="x", labelrotation=15)
        ax.yaxis.set_major_locator(MaxNLocator(5))
    return fig


__all__ = ["SectionUnits", "CaseOrbits", "BranchStudy", "ORBIT_PERIODS", "CLOSE_RETURN_STARTS", "CLOSE_RETURN_K_MAX", "ORBIT_SAMPLES", "BRANCH_F_MAX", "BRANCH_DS", "BRANCH_DS_MIN",
           "BRANCH_P_TOL", "DIRECT_AMPLITUDE", "DIRECT_RETURNS", "branch_study", "register_branch", "register_crossings", "register_onsets",
           "register_brute_agreement", "BRUTE_AGREE", "TRANSIENT_LEFT",
           "branch_figure", "close_returns",
           "orbit_verdict_name", "case_orbits", "section_units", "orbit_tasks", "register_case",
           "register_ladder_agreement", "register_study_exponents", "STUDY_D0", "register_cited", "orbit_study", "orbit_table", "QUICK", "orbits_figure"]
