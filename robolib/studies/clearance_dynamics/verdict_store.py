"""The clearance chapter's verdict store: the runs of its verdict study, stored one run at a time.

The chapter's verdict study (tolerance ladders down to rtol 1e-12, the transient study and the Lyapunov
estimates) is a list of *jobs*; :func:`study_run` is one run, :func:`load_or_run_study` returns the stored result
of every run whose parameter set, settings and engine match and computes the others (a stored run without an
engine in its key is a DAE run, :data:`robolib.gearshift.store.LEGACY_ENGINE`). The store is
``data/gearshift/verdict_runs.json``; ``make bifurcation`` remakes it, after the library's bifurcation sweep
(:mod:`robolib.gearshift.store`), by running the chapter's study at its defaults on the DAE with
``ROBOLIB_WRITE_STUDY_STORE=1``::

    rm -f data/gearshift/verdict_runs.json
    ROBOLIB_WRITE_STUDY_STORE=1 python -m robolib.study clearance_dynamics -p engine dae --out build/studies
"""

from __future__ import annotations

import functools
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from robolib.core.checks import real
from robolib.core.checks import seed as check_seed
from robolib.core.errors import ParameterError
from robolib.core.files import atomic_write_text
from robolib.core.nonlinear import sweep
from robolib.core.params import DATA_DIR
from robolib.gearshift import lyapunov as LY
from robolib.gearshift.model import check_arguments, check_clearance
from robolib.gearshift.runs import REFERENCE_ENGINE, PoincarePoint, check_engine, lyapunov_run, poincare_run
from robolib.gearshift.store import LEGACY_ENGINE, STORE_FORMAT, json_plain

#: Where the verdict study's runs are stored (relative to the data folder).
STUDY_STORE = "gearshift/verdict_runs.json"
#: Setting this environment variable to 1 makes :func:`load_or_run_study` add what it computes to the store.
STUDY_STORE_ENV = "ROBOLIB_WRITE_STUDY_STORE"
#: Lyapunov fields kept (attributes of :class:`robolib.core.nonlinear.LyapunovResult`).
LYAPUNOV_FIELDS = ("exponent", "uncertainty", "halves", "log_stretch", "tau")


@dataclass(frozen=True)
class StoredLyapunov:
    """The stored fields of a :class:`robolib.gearshift.lyapunov.TangentExponent` (:data:`LYAPUNOV_FIELDS`).

    Fields:

    * ``exponent``: largest Lyapunov exponent, 1/s.
    * ``uncertainty``: its batch-means standard error, 1/s.
    * ``halves``: (2,) the exponents of the two halves of the run, 1/s.
    * ``log_stretch``: ``ln |v|`` of the renormalised tangent per renormalisation interval.
    * ``tau``: renormalisation interval, s.
    """

    exponent: float
    uncertainty: float
    halves: tuple
    log_stretch: np.ndarray
    tau: float


@dataclass(frozen=True)
class RunSources:
    """How many of a batch of verdict-study runs (:func:`load_or_run_study`) were read from the store and how many
    were computed.

    Fields:

    * ``stored``: runs read from the store.
    * ``computed``: runs computed now.
    * ``wall_s``: wall time of this call, s (the computed runs' integration and the store's reading).
    """

    stored: int
    computed: int
    wall_s: float

    def __add__(self, other: "RunSources") -> "RunSources":
        return RunSources(self.stored + other.stored, self.computed + other.computed, self.wall_s + other.wall_s)


def study_run(job, params: dict, seed: int = 0, engine: str = REFERENCE_ENGINE):
    """One run of the clearance chapter's verdict study, on ``engine`` (:data:`robolib.gearshift.runs.ENGINES`).

    ``job = (kind, f [Hz], c [mm], rtol, a, b, alpha, atol_factor)``: kind
    ``"poincare"`` runs :func:`robolib.gearshift.poincare_run` with ``a``
    transient periods and ``b`` samples, kind ``"lyapunov"`` runs
    :func:`robolib.gearshift.lyapunov_run` (the tangent-linear exponent) with ``a`` transient periods and
    ``b`` measured periods (``alpha``: Baumgarte factor or None). atol of a Poincaré run is the
    parameter set's atol scaled with rtol (exactly its atol at its rtol), times
    ``atol_factor``; a Lyapunov run takes the set's atol/rtol ratio and reads the last field as the factor of the
    variational equation's half-width (:data:`robolib.gearshift.lyapunov.EPS` times it). Returns a :class:`robolib.gearshift.runs.PoincarePoint` or a
    :class:`StoredLyapunov`. With ``engine="fast"`` a Lyapunov job must have ``alpha = None`` (the
    minimal-coordinate model has no Baumgarte factor): the renormalisation settings are the DAE job's.
    """

    kind, f, c_mm, rt, a, b, alpha, afac, seed = _check_job(job, params, seed, engine)
    s = params["solver"]
    at = s["atol"] if rt == s["rtol"] else s["atol"] * (rt / s["rtol"])
    if kind == "poincare":
        r = poincare_run(params, f, c_mm * 1e-3, n_transient=a, n_samples=b, rtol=rt, atol=at * afac, engine=engine)
        return r.point()
    L = lyapunov_run(params, f, c_mm * 1e-3, n_transient=a, n_periods=b, rtol=rt, alpha=alpha, seed=seed,
                     engine=engine, eps=LY.EPS * afac)
    return StoredLyapunov(**{k: getattr(L, k) for k in LYAPUNOV_FIELDS})


def _check_job(job, params: dict, seed, engine) -> tuple:
    """The fields of a verdict job and the seed, checked before any work (a clearance at or above the journal radius
    of ``params`` too), or :class:`robolib.ParameterError` naming the job."""
    if not isinstance(job, (list, tuple)) or len(job) != 8:
        raise ParameterError(f"job must be (kind, f Hz, c mm, rtol, a, b, alpha, atol_factor), got {job!r:.80}")
    kind, f, c_mm, rt, a, b, alpha, afac = job
    if kind not in ("poincare", "lyapunov"):
        raise ParameterError(f"job kind must be 'poincare' or 'lyapunov', got {kind!r}")
    c_mm = real("job clearance c", c_mm, low=0.0, open_low=True, unit="mm")
    afac = real("job atol_factor", afac, low=0.0, open_low=True)
    seed = check_seed("seed", seed)

    try:   # the run's own checks, before any work, with the job named
        check_engine(engine, None, params)
        check_clearance(params, c_mm, "job clearance c", "mm")
        if engine == "fast" and kind == "lyapunov" and alpha is not None:
            raise ParameterError(f"alpha = {alpha!r} is not valid with engine = 'fast' (no Baumgarte terms)")
        if kind == "poincare":
            check_arguments(frequency=f, rtol=rt, n_transient=a, n_samples=b)
        else:
            check_arguments(frequency=f, rtol=rt, n_transient=a, n_periods=b, alpha=alpha)
    except ParameterError as exc:
        raise ParameterError(f"job = {job!r}: {exc}") from None
    return kind, f, c_mm, rt, a, b, alpha, afac, seed


def _job_key(job, seed, engine):
    """The store's key of a run: the job, the seed and the engine."""
    return json_plain(list(job) + [int(seed), engine])


def _stored_job_key(key: list) -> list:
    """A stored run's key with its engine (:data:`robolib.gearshift.store.LEGACY_ENGINE` for a run stored before
    keys had one)."""
    return key if len(key) == 10 else key + [LEGACY_ENGINE]


def _to_json(r):
    return {"lyapunov": isinstance(r, StoredLyapunov)} | json_plain(dict(r.__dict__))


def _from_json(d):
    d = dict(d)
    lyap = d.pop("lyapunov")
    out = {k: (np.array(v) if isinstance(v, list) else v) for k, v in d.items()}
    if lyap:
        out["halves"] = tuple(out["halves"])
        return StoredLyapunov(**out)
    return PoincarePoint(**out)


def stored_jobs(params: dict, jobs, seed: int = 0, path=None, engine: str = REFERENCE_ENGINE) -> list:
    """The jobs among ``jobs`` that the verdict store holds for ``params``, ``seed`` and ``engine`` (nothing is
    computed)."""
    for job in jobs:
        _check_job(job, params, seed, engine)
    p = Path(path) if path is not None else DATA_DIR / STUDY_STORE
    if not p.is_file():
        return []
    got = json.loads(p.read_text())
    if got.get("format") != STORE_FORMAT or got.get("params") != json_plain(params):
        return []
    keys = {json.dumps(_stored_job_key(r["job"])) for r in got["runs"]}
    return [tuple(j) for j in jobs if json.dumps(_job_key(tuple(j), seed, engine)) in keys]


def load_or_run_study(params: dict, jobs, seed: int = 0, path=None, engine: str = REFERENCE_ENGINE, **sweep_kw):
    """Results of the verdict-study ``jobs`` (:func:`study_run` on ``engine``): stored where the store has them
    for this engine, else computed (a run of one engine is never served for the other).

    Returns ``(dict job -> result, info)``, ``info`` a :class:`RunSources` (the numbers of runs stored and
    computed, and the wall time of the call). With the
    environment variable ``ROBOLIB_WRITE_STUDY_STORE=1`` the computed runs
    are added to the store.
    """

    p = Path(path) if path is not None else DATA_DIR / STUDY_STORE
    plain = json_plain(params)
    store = {"format": STORE_FORMAT, "params": plain, "runs": []}
    if p.is_file():
        got = json.loads(p.read_text())
        if got.get("format") == STORE_FORMAT and got.get("params") == plain:
            store = got
    check_engine(engine, None, params)
    index = {json.dumps(_stored_job_key(r["job"])): r["result"] for r in store["runs"]}
    out, todo = {}, []
    for job in dict.fromkeys(tuple(j) for j in jobs):
        hit = index.get(json.dumps(_job_key(job, seed, engine)))
        if hit is not None:
            out[job] = _from_json(hit)
        else:
            todo.append(job)
    for job in todo:
        _check_job(job, params, seed, engine)
    t0 = time.perf_counter()
    if todo:
        _, res = sweep(functools.partial(study_run, params=params, seed=seed, engine=engine), todo, **sweep_kw)
        out.update(zip(todo, res))
        if os.environ.get(STUDY_STORE_ENV, "") == "1":
            store["runs"] += [{"job": _job_key(j, seed, engine), "result": _to_json(r)} for j, r in zip(todo, res)]
            atomic_write_text(p, json.dumps(store))
    return out, RunSources(len(out) - len(todo), len(todo), time.perf_counter() - t0)


__all__ = ["STUDY_STORE", "STUDY_STORE_ENV", "LYAPUNOV_FIELDS", "StoredLyapunov", "RunSources", "study_run",
           "stored_jobs", "load_or_run_study"]
