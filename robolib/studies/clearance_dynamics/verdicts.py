"""The clearance chapter's verdict study: tolerance ladders, replicates, the transient study.

Every run of the study is a *job* ``(kind, f [Hz], c [mm], rtol, a, b, alpha, atol_factor)``
(:func:`robolib.studies.clearance_dynamics.verdict_store.study_run`): here a Poincaré run with ``a``
transient periods and ``b`` samples (the chapter's Lyapunov exponents are the orbit study's). :func:`verdict_jobs` lists the jobs of a run of the study,
:func:`run_verdict_study` takes them from the verdict store (``data/gearshift/verdict_runs.json``)
where it has them, computes the rest, reads each case's ladder with
:func:`robolib.core.nonlinear.ladder_verdict`, repeats a "limit" verdict with atol
times ``REPLICATE_ATOL`` and registers the claims. The criteria are the module
constants, fixed before the runs.

Every job runs on the study's ``engine`` (:attr:`StudySettings.engine`, part of each stored run's key):
``"fast"`` the minimal-coordinate model, ``"dae"`` the seed's Baumgarte DAE (whose runs at the defaults are
stored).

>>> job_cost(("poincare", 10.0, 0.5, 1e-9, 20, 60, None, 1.0))
8.0
>>> case_id("clearance_verdict", 10.0, 0.5)
'clearance_verdict_10_0p5'
>>> stepwise_rule([1e-9, 1e-10, 1e-11, 1e-12], [1e-2, 5e-3, 1e-3, 2e-4])
True
>>> stepwise_rule([1e-9, 1e-10, 1e-11, 1e-12], [1e-2, 5e-3, 1e-3, 5e-4])
False
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from robolib.book.notebook import markdown_table
from robolib.book.text import and_text
from robolib.core import nonlinear as N
from robolib.gearshift.runs import PoincarePoint
from robolib.studies.clearance_dynamics.settings import CITED_CASES, StudySettings
from robolib.studies.clearance_dynamics.verdict_store import RunSources, load_or_run_study

#: A "limit" verdict is repeated with atol times this: another realisation of the integration error.
REPLICATE_ATOL = 1.001
#: The step-by-step rule the slope rule replaced: the misfit falls at least this much per decade of rtol.
STEPWISE_FALL = 3.0


def case_id(prefix: str, f: float, c: float) -> str:
    """Claim id of a case, e.g. ``clearance_lyap_6_0p5`` for 6 Hz / 0.5 mm."""
    return f"{prefix}_{f:g}_{c:g}".replace(".", "p")


def register_uncited(reg, claims) -> None:
    """Placeholders for the cases the prose cites (:data:`CITED_CASES`) that this run lacks: for each case, each
    ``(id prefix, what)`` of ``claims`` not registered yet is a claim "<what> at f Hz / c mm" not computed."""
    for f, c in CITED_CASES:
        for prefix, what in claims:
            if case_id(prefix, f, c) not in reg.claims:
                reg.claim_not_computed(case_id(prefix, f, c), f"{what} at {f:g} Hz / {c:g} mm",
                                       criterion="the case is one of this run's verdict_cases",
                                       reason="the case is not in this run's verdict_cases")


def job_cost(job) -> float:
    """Rough single-process cost of a job (arbitrary units), to start the longest runs first."""
    kind, f, c_mm, rt, a, b, alpha, afac = job
    periods = a + (b if kind == "poincare" else 3 * b)   # a Lyapunov run: about three times a plain period's work
    return periods / f * (1e-9 / rt) ** 0.2 * (2.0 if c_mm < 0.2 else 1.0)


def poincare_job(s: StudySettings, f, c, rt, tr=None, ns=None, afac=1.0) -> tuple:
    """The job of a Poincaré run (default: ``n_transient`` periods, ``n_poincare`` samples, atol factor 1)."""
    return ("poincare", f, c, rt, s.n_transient if tr is None else tr, s.n_poincare if ns is None else ns, None, afac)


def long_run_window(s: StudySettings) -> tuple[int, int]:
    """``(first transient, samples)`` of the one long run whose windows make the transient study."""
    tr_lo = min(s.tr_study)
    return tr_lo, max(tr + ns for tr, ns in s.windows) - tr_lo


def verdict_jobs(s: StudySettings) -> list:
    """Every job of the verdict study on ``s.engine`` except the replicates, each once, longest first.

    The ladders of every case and the long run of the transient study (first case, default rung). (The Lyapunov
    exponents are the orbit study's: :mod:`robolib.studies.clearance_dynamics.orbit_study`.)
    """
    f0, c0 = s.case0
    jobs = [poincare_job(s, f, c, rt) for (f, c) in s.cases for rt in s.rtols[(f, c)]]
    jobs.append(poincare_job(s, f0, c0, s.rt_default(f0, c0), *long_run_window(s)))
    return sorted(dict.fromkeys(jobs), key=job_cost, reverse=True)


def readings_text(rts, ks) -> str:
    """The period test's readings along a ladder in words, runs of equal readings merged.

    >>> readings_text([1e-9, 1e-10, 1e-11], [0, 0, 0])
    'irregular at every rtol'
    >>> readings_text([1e-9, 1e-10, 1e-11, 1e-12], [0, 0, 0, 2])
    'irregular at rtol 1e-09–1e-11 and period-2 at 1e-12'
    """
    if len(set(ks)) == 1:
        return f"{N.period_name(ks[0])} at every rtol"
    runs = []
    for rt, k in zip(rts, ks):
        if runs and runs[-1][0] == k:
            runs[-1][2] = rt
        else:
            runs.append([k, rt, rt])
    parts = [f"{N.period_name(k)} at " + (f"{a:g}" if a == b else f"{a:g}–{b:g}") for k, a, b in runs]
    parts[0] = parts[0].replace(" at ", " at rtol ", 1)
    return and_text(parts)


def stepwise_rule(rts, misfits, fall: float = STEPWISE_FALL) -> bool:
    """The first replacement rule: the misfit falls >= ``fall`` x per decade of rtol at each of the last two steps."""
    m = misfits
    return all(m[i] >= m[i + 1] * fall ** np.log10(rts[i] / rts[i + 1]) for i in range(len(m) - 3, len(m) - 1))


@dataclass(frozen=True)
class Window:
    """One window of the transient study (:func:`transient_study`): samples ``tr - tr_lo`` .. of the long run.

    Fields:

    * ``tr``: transient drive periods before the window.
    * ``ns``: Poincaré samples in the window.
    * ``period``: the period test's reading on them (k >= 1, 0 irregular).
    * ``residuals``: (k_max,) their lag misfits (normalised units).
    """

    tr: int
    ns: int
    period: int
    residuals: np.ndarray


@dataclass
class VerdictStudy:
    """The verdict study's runs and readings.

    ``runs``: job -> result (:func:`robolib.studies.clearance_dynamics.verdict_store.study_run`: a
    :class:`robolib.gearshift.runs.PoincarePoint`); ``info``: where they came from
    (:class:`robolib.studies.clearance_dynamics.verdict_store.RunSources`, replicates included); ``readings``: case
    -> the period test's k per rung;
    ``ladder``: case -> ``(kind, k)`` after the replicate; ``status``: case -> verdict in words;
    ``replicate_rows``: the fitted rungs of the 'limit' cases (case, rtol, misfit, replicate's misfit);
    ``windows``: the transient study's windows (:class:`Window`); ``window_tol``: their period-test tolerance
    (normalised); ``lag0``: the lag it follows.
    """

    s: StudySettings
    runs: dict
    info: RunSources
    readings: dict = field(default_factory=dict)
    ladder: dict = field(default_factory=dict)
    status: dict = field(default_factory=dict)
    replicate_rows: list = field(default_factory=list)
    windows: list = field(default_factory=list)
    window_tol: float = float("nan")
    lag0: int = 1

    def pk(self, f, c, rt, tr=None, ns=None, afac=1.0) -> PoincarePoint:
        """The Poincaré run of case ``(f, c)`` at rtol ``rt``."""
        return self.runs[poincare_job(self.s, f, c, rt, tr, ns, afac)]

    def has_replicate(self, f, c) -> bool:
        """Whether the replicate of case ``(f, c)``'s tightest rung was run."""
        return poincare_job(self.s, f, c, self.s.rtols[(f, c)][-1], afac=REPLICATE_ATOL) in self.runs

    def ladder_k(self, fc):
        """The period of a case's verdict (0 = irregular), or None if it did not converge."""
        kind, k = self.ladder[fc]
        return k if kind in ("confirmed", "limit", "irregular") else None


def run_verdict_study(s: StudySettings, reg) -> VerdictStudy:
    """Run (or load) every job, read the ladders, repeat the 'limit' verdicts and register the claims.

    Claims, in this order: ``clearance_verdict_<case>`` per case, ``clearance_rung_scatter``, the cited cases
    this run lacks, ``clearance_loose`` and ``clearance_transient``.
    """
    runs, info = load_or_run_study(s.base, verdict_jobs(s), seed=s.seed, n_jobs=s.n_jobs, engine=s.engine)
    v = VerdictStudy(s, runs, info)
    for (f, c) in s.cases:
        rts = s.rtols[(f, c)]
        got = [v.pk(f, c, rt) for rt in rts]
        v.readings[(f, c)] = [r.period for r in got]
        v.ladder[(f, c)] = N.ladder_verdict(rts, v.readings[(f, c)], [r.residuals for r in got])
    rep = [poincare_job(s, f, c, rt, afac=REPLICATE_ATOL) for (f, c) in s.cases if v.ladder[(f, c)][0] == "limit"
           for rt in s.rtols[(f, c)][-N.LADDER_FIT:]]
    if rep:
        rep_runs, rep_info = load_or_run_study(s.base, sorted(rep, key=job_cost, reverse=True), seed=s.seed,
                                               n_jobs=s.n_jobs, engine=s.engine)
        v.runs.update(rep_runs)
        v.info = v.info + rep_info
    for fc in s.cases:
        register_case_verdict(v, reg, *fc)
    register_rung_scatter(v, reg)
    register_uncited(reg, [("clearance_verdict", "the Poincaré verdict")])
    register_loose(v, reg)
    transient_study(v, reg)
    return v


def register_case_verdict(v: VerdictStudy, reg, f, c) -> None:
    """The ladder's verdict of case ``(f, c)``, checked by its replicate if it is a 'limit' (claim per case)."""
    s = v.s
    rts, rd = s.rtols[(f, c)], s.rt_default(f, c)
    runs, ks = [v.pk(f, c, rt) for rt in rts], v.readings[(f, c)]
    kind, k = v.ladder[(f, c)]
    detail = ""
    crit = (f"nonlinear.ladder_verdict over rtol {rts[0]:g}–{rts[-1]:g}: 'confirmed' = the period test reads k at the "
            f"two tightest rtol; 'limit' = slope of log10 misfit_k against log10 rtol >= {N.LADDER_MIN_SLOPE:g} over the "
            f"last {min(N.LADDER_FIT, len(rts))} rtol with shorter lags >= {N.LADDER_GAP:g}, and the same period again with atol x "
            f"{REPLICATE_ATOL:g} (in the limit, or confirmed); 'irregular' = irregular at the two tightest and no lag "
            f"converges")
    if kind == "confirmed":
        status = N.period_name(k)
        text = f"{N.period_name(k)} (the period test confirms it at rtol {rts[-2]:g} and {rts[-1]:g})"
    elif kind == "limit":
        last = rts[-N.LADDER_FIT:]
        reps = [v.pk(f, c, rt, afac=REPLICATE_ATOL) for rt in last]
        again = N.ladder_verdict(last, [r.period for r in reps], [r.residuals for r in reps])
        m = [float(r.residuals[k - 1]) for r in runs]
        m_rep = [float(r.residuals[k - 1]) for r in reps]
        sl, sl_rep = N.misfit_slope(last, m[-N.LADDER_FIT:]), N.misfit_slope(last, m_rep)
        v.replicate_rows += [[f"{f:g} Hz, {c:g} mm", f"{rt:g}", f"{a:.1e}", f"{b:.1e}"]
                             for rt, a, b in zip(last, m[-N.LADDER_FIT:], m_rep)]
        if again[1] != k or again[0] not in ("limit", "confirmed"):
            kind = status = "not converged"
            text = (f"not converged: the ladder reads {N.period_name(k)} in the limit (slope {sl:.2f}), but the "
                    f"replicate with atol × {REPLICATE_ATOL:g} reads {again[0]} (slope {sl_rep:.2f})")
        else:
            status = f"{N.period_name(k)} in the limit"
            lag1 = float(runs[-1].residuals[0]) if k > 1 else None
            # the run's details go to the statement (the evidence page's claims table); the text reads in a sentence
            detail = (f" (the test reads {readings_text(rts, ks)}; the lag-{k} misfit falls from "
                      f"{m[rts.index(rd)]:.1e} at rtol {rd:g} to {m[-1]:.1e} at {rts[-1]:g}, a log-log slope of "
                      f"{sl:.2f} over rtol {last[0]:g}–{last[-1]:g}, and {sl_rep:.2f} in the replicate, another "
                      f"realisation of the integration error"
                      + (f"; lag 1 stays {lag1:.2f}" if lag1 is not None else "")
                      + (f"; the replicate's period test confirms {N.period_name(k)} at its two tightest rungs"
                         if again[0] == "confirmed" else "") + ")")
            text = (f"the ladder's trend points to {N.period_name(k)} as the tolerance goes to zero: the "
                    f"lag-{k} misfit falls with the tolerance over the last {len(last)} rungs as a fitted trend "
                    f"(one rung may rise), in two realisations of the integration error")
    elif kind == "irregular":
        status = "irregular"
        text = f"irregular (at rtol {rts[-2]:g} and {rts[-1]:g}; no lag misfit falls with the tolerance)"
    else:
        status = "not converged"
        text = "not converged (reads " + ", ".join(f"{N.period_name(kk)} at {rt:g}" for kk, rt in zip(ks, rts)) + ")"
    v.ladder[(f, c)], v.status[(f, c)] = (kind, k), status
    reg.claim(case_id("clearance_verdict", f, c), f"at {f:g} Hz / {c:g} mm the verdict of the tolerance ladder is "
              f"{status}{detail}", value={"kind": kind, "k": k, "readings": ks}, criterion=crit,
              holds=kind in ("confirmed", "limit", "irregular"), text=text)


def register_rung_scatter(v: VerdictStudy, reg) -> None:
    """Claim ``clearance_rung_scatter``: the step-by-step rule misses a convergence the fit over the last rungs reads.

    For every 'limit' case with a replicate: the step-by-step rule (:func:`stepwise_rule`) on the ladder's and on
    the replicate's misfits, and the ratio of the two misfits at each fitted rung (two realisations of the
    integration error).
    """
    s = v.s
    ratios, reads, parts = [], [], []
    word = {True: "converging", False: "not converging"}
    for (f, c) in s.cases:
        kind, k = v.ladder[(f, c)]
        if kind == "limit" and k >= 1 and v.has_replicate(f, c):
            last = s.rtols[(f, c)][-N.LADDER_FIT:]
            m1 = [float(v.pk(f, c, rt).residuals[k - 1]) for rt in last]
            m2 = [float(v.pk(f, c, rt, afac=REPLICATE_ATOL).residuals[k - 1]) for rt in last]
            r = [max(a, b) / min(a, b) for a, b in zip(m1, m2)]
            ratios += r
            pair = [stepwise_rule(last, m1), stepwise_rule(last, m2)]
            reads += pair
            parts.append(f"at {f:g} Hz / {c:g} mm, where the fit reads a limit, the step-by-step rule reads the ladder "
                         f"as {word[pair[0]]} and its "
                         f"replicate as {word[pair[1]]} (their misfits differ by up to {max(r):.1f}× at one rung)")
    reg.claim("clearance_rung_scatter", f"a rule asking every one of the last decades of rtol to lower the misfit "
              f"{STEPWISE_FALL:g}-fold misses, in at least one realisation of the integration error, the convergence "
              f"that the fit over the last {N.LADDER_FIT} rungs reads", value={"ratios": ratios, "stepwise": reads},
              criterion="a 'limit' verdict with a replicate, and the step-by-step rule reads at least one of its two "
                        "realisations not converging", holds=bool(reads) and not all(reads),
              text=("; ".join(parts)
                    if reads else "no 'limit' verdict with a replicate in this run"))


def register_loose(v: VerdictStudy, reg) -> None:
    """Claim ``clearance_loose``: the loosest rung alone misreads at least one case."""
    s = v.s
    loose = [fc for fc in s.cases if v.ladder_k(fc) is not None and v.readings[fc][0] != v.ladder_k(fc)]
    reg.claim("clearance_loose", f"a verdict read at the loosest tolerance alone (rtol = "
              f"{min(r[0] for r in s.rtols.values()):g}) differs from the ladder's verdict in at least one case",
              value=len(loose), criterion="number of cases whose loosest-tolerance reading differs from the ladder's "
              "verdict >= 1", holds=len(loose) >= 1,
              text=", ".join(f"{f:g} Hz / {c:g} mm (reads {N.period_name(v.readings[(f, c)][0])}, the ladder gives "
                             f"{N.period_name(v.ladder_k((f, c)))})" for f, c in loose) or "none of the cases")


def transient_study(v: VerdictStudy, reg) -> None:
    """Windows of one long run (first case, default rung) over transients and sample counts; claim ``clearance_transient``.

    Fills ``v.windows`` (a :class:`Window` per window), ``v.window_tol`` and ``v.lag0``.
    """
    s = v.s
    f0, c0 = s.case0
    rd0 = s.rt_default(f0, c0)
    tr_lo, n_long = long_run_window(s)
    long_run = v.pk(f0, c0, rd0, tr_lo, n_long)
    km0 = min(N.PERIOD_K_MAX, s.ns_study[0] // 3)
    for tr, ns in s.windows:
        smp = long_run.samples[tr - tr_lo: tr - tr_lo + ns]
        v.windows.append(Window(tr, ns, N.period_k(smp, long_run.period_tol, km0), N.repeat_residuals(smp, km0)))
    v.window_tol = float(long_run.period_tol)
    k_trs = [w.period for w in v.windows]
    k0 = v.ladder[(f0, c0)][1]
    v.lag0 = lag0 = k0 if k0 >= 1 else int(np.argmin(v.pk(f0, c0, rd0).residuals)) + 1
    mis = [float(w.residuals[lag0 - 1]) for w in v.windows]
    one = len(set(k_trs)) == 1
    trs = s.tr_study
    i_def, i_long = trs.index(s.n_transient) if s.n_transient in trs else 0, len(trs) - 1
    reg.claim("clearance_transient", f"at {f0:g} Hz / {c0:g} mm and rtol = {rd0:g} the reading does not change with a "
              f"transient of {trs[0]}–{trs[-1]} periods or with {s.ns_study[0]} or {s.ns_study[-1]} samples",
              value={"readings": k_trs, "misfits": mis},
              criterion=f"one reading for all {len(v.windows)} windows", holds=one,
              text=(f"{N.period_name(k_trs[0])} for every transient and sample count" if one else
                    "changes: " + ", ".join(N.period_name(k) for k in k_trs)) +
                   f" (lag-{lag0} misfit {mis[i_def]:.1e} after {trs[i_def]} transient periods, "
                   f"{mis[i_long]:.1e} after {trs[i_long]})")


# --------------------------------------------------------------------------- tables
def readings_table(v: VerdictStudy) -> str:
    """Markdown: the period test's reading, noise, tolerance and lag misfits per case and rung."""
    rows = []
    for (f, c) in v.s.cases:
        for rt in v.s.rtols[(f, c)]:
            r = v.pk(f, c, rt)
            rows.append([f"{f:g} Hz, {c:g} mm", f"{rt:g}", N.period_name(r.period), f"{r.noise:.1e}",
                         f"{r.period_tol:.1e}", " ".join(f"{x:.1e}" for x in r.residuals[:4]), f"{r.n_steps:,}"])
    return markdown_table(["case", "rtol", "reading", "noise", "tolerance", "misfit at lag 1, 2, 3, 4", "steps"], rows)


def replicate_table(v: VerdictStudy) -> str:
    """Markdown: the lag misfit of the 'limit' cases over the fitted rungs, as run and replicated."""
    rows = v.replicate_rows or [["no 'limit' verdict in this run", "-", "-", "-"]]
    return markdown_table(["case", "rtol", "misfit", "misfit, replicate"], rows)


def transient_table(v: VerdictStudy) -> str:
    """Markdown: reading and misfit of each window of the transient study."""
    return markdown_table(["transient periods", "samples", "reading", f"misfit at lag {v.lag0}", "tolerance"],
                          [[w.tr, w.ns, N.period_name(w.period), f"{w.residuals[v.lag0 - 1]:.1e}",
                            f"{v.window_tol:.1e}"] for w in v.windows])


__all__ = ["REPLICATE_ATOL", "STEPWISE_FALL", "case_id", "register_uncited", "job_cost", "poincare_job",
           "long_run_window", "verdict_jobs", "readings_text", "stepwise_rule", "Window", "VerdictStudy",
           "run_verdict_study", "register_case_verdict", "register_rung_scatter", "register_loose", "transient_study",
           "readings_table", "replicate_table", "transient_table"]
