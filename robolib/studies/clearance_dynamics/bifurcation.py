"""The clearance chapter's bifurcation sweeps: the points, their readings, the store check, resolution and cost.

A frequency sweep at ``freq_sweep_clearance_mm`` and a clearance sweep at
``clearance_sweep_frequency``, each point a :func:`robolib.gearshift.poincare_run` with
the settings of the verdict runs at the default tolerance, on the study's engine. The book's
default sweep of each engine is stored (:func:`robolib.gearshift.store.load_or_run`, keyed with
the engine: :data:`robolib.gearshift.store.STORES`); other settings compute their own. The points
that coincide with the verdict study's own runs must agree with them: on the fast model (the
default) the verdict runs are computed in every run, so a stale stored sweep fails there.

>>> from types import SimpleNamespace as Point     # a PoincarePoint's period and residuals
>>> sweep_reading(Point(period=0, residuals=[0.8, 0.004, 0.9]))
'near period-2'
>>> sweep_reading(Point(period=1, residuals=[1e-9])), sweep_reading(Point(period=0, residuals=[0.5]))
('period-1', 'irregular')
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from robolib.book.notebook import markdown_table
from robolib.core import nonlinear as N
from robolib.gearshift import store as B
from robolib.gearshift.runs import PoincarePoint
from robolib.studies.clearance_dynamics.settings import StudySettings

#: Normalised units (1 % of c): a point the test reads irregular is "near period-k" if its lag-k misfit is below this.
NEAR_PERIOD = 1e-2
#: Normalised units: stored sweep points vs this run's verdict runs of the same point.
STORE_AGREE = 1e-12
#: Stored fast-model sweep points drawn at random (seed ``s.seed``) and computed again in every run.
STORE_SPOT_CHECKS = 6
#: Resolution the bifurcation diagrams must have: frequency step [Hz], clearances, samples per point.
BIF_MAX_STEP = 0.25
BIF_MIN_CLEARANCES = 25
BIF_MIN_SAMPLES = 60


@dataclass(frozen=True)
class BifurcationSweeps:
    """The chapter's two bifurcation sweeps and their cost (:func:`bifurcation_study`).

    Fields:

    * ``points``: ``[(f [Hz], c [mm]), ...]`` the frequency sweep's points, then the clearance sweep's.
    * ``runs``: one :class:`robolib.gearshift.runs.PoincarePoint` per point.
    * ``f_runs``: the frequency sweep's runs (at ``freq_sweep_clearance_mm``), one per ``s.freqs``.
    * ``c_runs``: the clearance sweep's runs (at ``clearance_sweep_frequency``), one per ``s.clearances_mm``.
    * ``info``: where the points came from (:class:`robolib.gearshift.store.SweepSource`).
    * ``sim_s``: simulated time of all points, s.
    * ``integration_s``: their summed single-process integration time, s.
    * ``rate``: ``integration_s / sim_s`` (s per simulated s).
    * ``wall_s``: wall time of the run that made the points, s (None if not recorded).
    * ``workers``: workers of that run.
    * ``rechecked``: the stored points this run computed again and compared with the store (the verdict cases on
      the sweeps and :func:`spot_check`'s); empty when the sweep was computed in this run.
    """

    points: list
    runs: list
    f_runs: list
    c_runs: list
    info: B.SweepSource
    sim_s: float
    integration_s: float
    rate: float
    wall_s: float | None
    workers: int
    rechecked: tuple = ()


def sweep_reading(r: PoincarePoint) -> str:
    """A sweep point's reading: the period test's ``period-k``, else ``near period-k`` (smallest lag whose misfit
    is at most ``NEAR_PERIOD``), else ``irregular``."""
    if r.period >= 1:
        return N.period_name(r.period)
    near = np.flatnonzero(np.asarray(r.residuals) <= NEAR_PERIOD)
    return f"near period-{near[0] + 1}" if len(near) else "irregular"


def reading_bar(r: PoincarePoint) -> tuple[int, bool]:
    """``(k, near)`` of a point for the bar chart: the period (0 = irregular) and whether it is only near period-k."""
    t = sweep_reading(r)
    if t.startswith("near"):
        return int(t.split("-")[1]), True
    return (int(r.period) if r.period >= 1 else 0), False


def sweep_points_mm(s: StudySettings) -> list:
    """The chapter's sweep points ``[(f [Hz], c [mm]), ...]``: the frequency sweep's, then the clearance sweep's (the
    library's :func:`robolib.gearshift.store.sweep_points` in the chapter's unit)."""
    return [(float(f), float(s.freq_sweep_clearance_mm)) for f in s.freqs] + \
        [(float(s.clearance_sweep_frequency), float(c)) for c in s.clearances_mm]


def bifurcation_study(s: StudySettings, v, reg, checkpoint=None) -> BifurcationSweeps:
    """Load (or run) the sweeps; claims ``clearance_store_current``, ``clearance_bif_resolution``, ``clearance_bif_cost``.

    ``v``: the :class:`~robolib.studies.clearance_dynamics.verdicts.VerdictStudy` whose default-rung runs the stored points are
    compared with. Returns a :class:`BifurcationSweeps`.
    ``checkpoint``: a directory that keeps each computed point as it completes (:func:`robolib.core.nonlinear.sweep`),
    so that a sweep the store does not hold, interrupted and run again, computes only its missing points.
    """
    points = sweep_points_mm(s)
    runs, info = B.load_or_run(s.base, [(f, c * 1e-3) for f, c in points], s.n_transient, s.n_poincare, s.rtol,
                               s.atol, n_jobs=s.n_jobs, checkpoint=checkpoint, engine=s.engine)
    spot = spot_check(s, points, runs, info)
    register_store_current(s, v, reg, points, runs, info, spot)
    freqs, cls = s.freqs, s.clearances_mm
    step = float(np.max(np.diff(freqs))) if len(freqs) > 1 else None
    reg.claim("clearance_bif_resolution", f"the bifurcation diagrams sample the frequency at most every {BIF_MAX_STEP:g} Hz, at {BIF_MIN_CLEARANCES} or more "
              f"clearances, with {BIF_MIN_SAMPLES} or more Poincaré samples per point",
              value={"freq_step": step, "n_clearance": len(cls), "n_samples": s.n_poincare},
              criterion=f"frequency step <= {BIF_MAX_STEP:g} Hz, >= {BIF_MIN_CLEARANCES} clearances, "
                        f">= {BIF_MIN_SAMPLES} samples per point",
              holds=step is not None and step <= BIF_MAX_STEP + 1e-12 and len(cls) >= BIF_MIN_CLEARANCES
              and s.n_poincare >= BIF_MIN_SAMPLES,
              text=f"{len(freqs)} frequencies from {freqs[0]:g} to {freqs[-1]:g} Hz"
                   + (f" in steps of {step:g} Hz" if step is not None else "")
                   + f", {len(cls)} clearances from {cls[0]:g} to {cls[-1]:g} mm, {s.n_poincare} samples per point",
              method=True)
    sim_s = sum((s.n_transient + s.n_poincare) / r.frequency for r in runs)
    integ_s = float(sum(r.wall_s for r in runs))
    rate = integ_s / sim_s
    wall_s, workers = info.wall_s, (s.n_jobs if info.workers is None else info.workers)
    reg.claim("clearance_bif_cost", "the run that made the sweep recorded its wall time and its single-process "
              "integration time", value={"wall_s": wall_s, "workers": workers,
              "integration_s": integ_s, "rate": rate},
              criterion="wall time and single-process integration time recorded by the run that made the points",
              holds=wall_s is not None and integ_s > 0,
              text=f"{wall_s / 60:.1f} min wall on {workers} workers ({integ_s / 60:.1f} min of single-process "
                   f"integration, {rate:.2f} s per simulated second)" if wall_s is not None else "not recorded",
              method=True)
    rechecked = tuple(dict.fromkeys([fc for fc in points if fc in s.cases and s.rt_default(*fc) == s.rtol]
                                    + [fc for fc, _ in spot])) if info.source == "stored" else ()
    return BifurcationSweeps(points, runs, runs[:len(freqs)], runs[len(freqs):], info, sim_s, integ_s, rate, wall_s,
                             workers, rechecked)


def _source_text(source: str, engine: str, n: int) -> str:
    return f"{'stored' if source == 'stored' else 'computed in this run'} ({n} {engine.upper()} runs)"


def spot_check(s: StudySettings, points, runs, info) -> list:
    """``[(point, max |difference|), ...]``: :data:`STORE_SPOT_CHECKS` points of a stored fast-model sweep, drawn
    with ``s.seed`` among the distinct points that are not verdict runs (those are compared anyway), computed again with the sweep's settings and compared with the store
    (empty when the sweep was computed in this run, or is the DAE's, whose runs cost minutes each)."""
    if info.source != "stored" or s.engine != "fast":
        return []
    unique = [fc for fc in dict.fromkeys(points) if not (fc in s.cases and s.rt_default(*fc) == s.rtol)]
    pick = np.random.default_rng(s.seed).choice(len(unique), min(STORE_SPOT_CHECKS, len(unique)), replace=False)
    chosen = [unique[i] for i in sorted(pick)]
    fresh = B.run_sweep(s.base, [(f, c * 1e-3) for f, c in chosen], s.n_transient, s.n_poincare, s.rtol, s.atol,
                        n_jobs=s.n_jobs, engine=s.engine)
    return [(fc, float(np.max(np.abs(r.samples - runs[points.index(fc)].samples)))) for fc, r in zip(chosen, fresh)]


def register_store_current(s: StudySettings, v, reg, points, runs, info, spot=()) -> None:
    """Claim ``clearance_store_current``: the sweep's points that are also verdict runs have the same samples, and
    so do the stored points computed again at random (:func:`spot_check`).

    Both are runs of one point on one engine: the sweep's and the verdict study's at the default rung. Computed,
    they are two separate runs with the settings of the sweep and of the verdict study, so agreement checks that
    those settings are the same (transient, samples, tolerances, parameter set, engine); a stored sweep against
    computed verdict runs (the fast model's default) checks that the store is what the code computes now; both
    stored (the DAE at the defaults), that the two stores hold the same model's runs. The text says which.
    """
    same = [(i, fc) for i, fc in enumerate(points) if fc in s.cases and s.rt_default(*fc) == s.rtol]
    gaps = [float(np.max(np.abs(runs[i].samples - v.pk(*fc, s.rtol).samples))) for i, fc in same]
    spot_gaps = [g for _, g in spot]
    v_src = "stored" if v.info.stored and not v.info.computed else "computed"
    srcs = (f"sweep {_source_text(info.source, s.engine, len(runs))}, verdict runs "
            f"{_source_text(v_src, s.engine, len(v.runs))}")
    spot_text = (f"; {_points_text([fc for fc, _ in spot])}, drawn at random with seed {s.seed} and computed again in "
                 f"this run, agree to {max(spot_gaps):.0e}" if spot else "")
    reg.claim("clearance_store_current", "the sweep's points that coincide with this run's verdict runs at the default "
              "tolerance have the same Poincaré samples (the sweep and the verdict study run one model with the same "
              "settings)" + (f", and so do {len(spot)} stored points drawn at random and computed again in this run"
                             if spot else ""), value=gaps + spot_gaps,
              criterion=f"at least one coinciding point, and max |difference| <= {STORE_AGREE:g} (normalised units)",
              holds=len(same) >= 1 and max(gaps + spot_gaps, default=np.inf) <= STORE_AGREE,
              text=(f"{_points_text([fc for _, fc in same])} agree to {max(gaps):.0e}{spot_text}; {srcs}" if same
                    else "no sweep point coincides with a verdict run"), method=True)


def _points_text(cases) -> str:
    """Sweep points in words, each once (a point on both sweeps is said to be):

    >>> _points_text([(6.0, 0.5), (10.0, 0.5), (6.0, 0.5)])
    '2 points (6 Hz / 0.5 mm, on both sweeps; 10 Hz / 0.5 mm)'
    """
    n = {fc: cases.count(fc) for fc in cases}
    return (f"{len(n)} point{'s' if len(n) > 1 else ''} ("
            + "; ".join(f"{f:g} Hz / {c:g} mm" + (", on both sweeps" if k > 1 else "") for (f, c), k in n.items()) + ")")


def _listing(vals, runs, want) -> str:
    sel = [f"{x:g}" for x, r in zip(vals, runs) if want(sweep_reading(r))]
    return (f"{len(sel)}: " + ", ".join(sel)) if sel else "none"


def sweep_readings_table(s: StudySettings, d: BifurcationSweeps) -> str:
    """Markdown: the points of each sweep grouped by their reading."""
    kinds = [("period-1", lambda t: t == "period-1"), ("period-2", lambda t: t == "period-2"),
             ("period-k, k ≥ 3", lambda t: t.startswith("period-") and t not in ("period-1", "period-2")),
             (f"near period-k (irregular by the test, lag-k misfit ≤ {NEAR_PERIOD:g})", lambda t: t.startswith("near")),
             ("irregular", lambda t: t == "irregular")]
    return markdown_table(
        ["reading", f"drive frequencies [Hz] at c = {s.freq_sweep_clearance_mm:g} mm",
         f"clearances [mm] at f = {s.clearance_sweep_frequency:g} Hz"],
        [[name, _listing(s.freqs, d.f_runs, w), _listing(s.clearances_mm, d.c_runs, w)] for name, w in kinds])


__all__ = ["NEAR_PERIOD", "STORE_AGREE", "BIF_MAX_STEP", "BIF_MIN_CLEARANCES", "BIF_MIN_SAMPLES", "BifurcationSweeps", "sweep_points_mm",
           "sweep_reading", "reading_bar", "bifurcation_study", "register_store_current", "sweep_readings_table"]
