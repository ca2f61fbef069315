"""Bifurcation sweeps of the gear-shift clearance response: the sweep, its stored result, and the command that makes it.

A bifurcation diagram is a list of independent :func:`robolib.gearshift.poincare_run`
points: drive frequency at one clearance, and clearance at one drive
frequency, each on an *engine* (:data:`robolib.gearshift.runs.ENGINES`): the
fast minimal-coordinate model (the default) or the seed's Baumgarte DAE. At the
resolution of the book's default (0.25 Hz steps over 1--12 Hz, 25 clearances
from 0.02 to 0.5 mm, 20 transient periods and 60 samples at the converged
tolerance) a DAE sweep costs tens of minutes on two cores, more than a build
of the book can spend; on the fast model it costs two minutes on two cores, which
together with the rest of the book is still over its 10-minute budget. So the
default sweep of each engine is stored (:data:`STORES`: the DAE's in
``data/gearshift/bifurcation.npz``, the fast model's in
``data/gearshift/bifurcation_fast.npz``), each together with its *key*: every setting that
determines its numbers (the whole parameter set, the points, transient,
samples, tolerances and the engine; a store written before keys had an engine,
:data:`LEGACY_ENGINE`, is the DAE's). :func:`load_or_run` returns the stored
points when the request has the same key, and runs the sweep otherwise (a
study rerun with other parameters, or on the other engine, computes its own
points).

The store can go stale only through a change of the code, not of the
settings. The test suite therefore recomputes stored points and requires
them to equal the stored ones, and the clearance chapter compares the stored
points that coincide with its own verdict runs. After a change of the model
or the integrator, remake the store::

    python -m robolib.gearshift.store --workers 2         # LocalCluster, 2 Dask workers
    python -m robolib.gearshift.store --scheduler tcp://host:8786   # an existing Dask cluster

(``make bifurcation`` runs the first line.) Each finished point is kept in
``build/bifurcation_points/`` (``--checkpoint DIR``) as soon as it completes,
keyed by its full settings and by a fingerprint of robolib's source: an
interrupted run started again computes only the missing points (never reusing
points of older code), and the point files are removed once the store is
written. The command prints the wall time
and writes it, with the machine, the number of workers and the summed
single-process integration time, into the store's metadata.
"""

from __future__ import annotations

import argparse
import copy
import functools
import json
import os
import platform
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from robolib.core.checks import real, real_array
from robolib.core.errors import ParameterError
from robolib.core.files import atomic_write
from robolib.core.nonlinear import code_fingerprint, point_files, sweep
from robolib.core.params import DATA_DIR
from robolib.gearshift.model import check_arguments, check_clearance, check_params, load_parameters
from robolib.gearshift.runs import ENGINES, REFERENCE_ENGINE, PoincarePoint, check_engine, poincare_run

#: The book's default sweep: drive frequencies (Hz) at ``FREQ_SWEEP_CLEARANCE`` (m),
#: and clearances (m) at ``CLEARANCE_SWEEP_FREQUENCY`` (Hz).
DEFAULT_FREQUENCIES = tuple(float(f) for f in np.round(np.arange(1.0, 12.0 + 1e-9, 0.25), 6))
FREQ_SWEEP_CLEARANCE = 5e-4
DEFAULT_CLEARANCES = tuple(float(c) for c in np.round(np.linspace(0.02e-3, 0.5e-3, 25), 9))
CLEARANCE_SWEEP_FREQUENCY = 6.0
#: Significant digits of a clearance in a sweep's key (a clearance given as ``0.3e-3`` and as ``0.3 * 1e-3`` is one
#: point).
KEY_DIGITS = 12
#: Transient periods and Poincaré samples of every point (the converged defaults of the chapter).
N_TRANSIENT = 20
N_SAMPLES = 60
#: Where the default sweep is stored (relative to the data folder).
STORE = "gearshift/bifurcation.npz"
#: The book's default sweep per engine (relative to the data folder): the DAE's is :data:`STORE`; the fast model's
#: is kept as well, because computing it would put ``make book`` over its 10-minute budget (every build checks it
#: against three fresh runs, ``clearance_store_current``).
STORES = {"dae": STORE, "fast": "gearshift/bifurcation_fast.npz"}


def store_path(engine: str = REFERENCE_ENGINE) -> Path:
    """The file of the book's default sweep on ``engine``.

    >>> store_path("fast").name, store_path("dae").name
    ('bifurcation_fast.npz', 'bifurcation.npz')
    """
    check_engine(engine)
    return DATA_DIR / STORES[engine]
#: Where ``python -m robolib.gearshift.store`` keeps each finished point while it runs (``--checkpoint``):
#: ``make bifurcation`` interrupted and started again resumes from there.
CHECKPOINT_DIR = DATA_DIR.parent / "build" / "bifurcation_points"
#: Bumped when the stored layout changes.
STORE_FORMAT = 1
#: The engine of the runs in a store written before runs had an engine (the seed's DAE was the only model then):
#: a stored key without ``engine`` is read as this engine's.
LEGACY_ENGINE = REFERENCE_ENGINE
#: Per-point fields kept in the store: those of :class:`robolib.gearshift.runs.PoincarePoint`.
FIELDS = ("frequency", "clearance", "samples", "period", "noise", "period_tol", "residuals", "n_episodes",
          "peak_force", "rtol", "n_steps", "wall_s")


@dataclass(frozen=True)
class SweepSource:
    """Where the points of :func:`load_or_run` came from.

    Fields:

    * ``source``: ``"stored"`` (read from the store) or ``"computed"`` (run now).
    * ``engine``: the model of the points, ``"fast"`` or ``"dae"``.
    * ``path``: the store's file (as given, or ``data/<STORES[engine]>``) for stored points, else None.
    * ``wall_s``: wall time of the run that made the points, s (the store's record, or this run's); None if not recorded.
    * ``workers``: Dask workers of the run that made a stored sweep; None if computed or not recorded.
    * ``integration_s``: summed single-process integration time of the points, s; None if not recorded.
    * ``meta``: the store's metadata as written (machine, processor, cpu_count, created, command, key); empty when
      computed.
    """

    source: str
    engine: str
    path: str | None = None
    wall_s: float | None = None
    workers: int | None = None
    integration_s: float | None = None
    meta: dict = field(default_factory=dict)


def sweep_points(frequencies=DEFAULT_FREQUENCIES, freq_clearance: float = FREQ_SWEEP_CLEARANCE,
                 clearances=DEFAULT_CLEARANCES, clearance_frequency: float = CLEARANCE_SWEEP_FREQUENCY):
    """The points ``[(f [Hz], c [m]), ...]`` of a frequency sweep (``frequencies`` at the clearance
    ``freq_clearance``, m) followed by a clearance sweep (``clearances``, m, at ``clearance_frequency``, Hz).

    >>> sweep_points([2.0, 4.0], 5e-4, [1e-4], 6.0)
    [(2.0, 0.0005), (4.0, 0.0005), (6.0, 0.0001)]
    """

    fs = real_array("frequencies", frequencies, shape=(None,), allow_empty=True)
    cs = real_array("clearances", clearances, shape=(None,), allow_empty=True)
    fc = real("freq_clearance", freq_clearance, unit="m")
    cf = real("clearance_frequency", clearance_frequency, unit="Hz")
    pts = [(float(f), fc) for f in fs] + [(cf, float(c)) for c in cs]
    names = [("frequencies" if not f > 0 else "freq_clearance") for f in fs] + \
            [("clearances" if not c > 0 else "clearance_frequency") for c in cs]
    for (f, c), name in zip(pts, names):
        if not (f > 0 and c > 0):
            raise ParameterError(f"{name}: sweep point (f = {f!r} Hz, c = {c!r} m): frequency and clearance must be "
                                 f"positive")
    return pts


def _check_points(points, params: dict) -> list:
    """Sweep points ``[(f [Hz] > 0, c [m] > 0), ...]`` as float pairs (c to ``KEY_DIGITS`` significant digits), or
    ParameterError naming ``points`` (a clearance at or above the journal radius of ``params`` too: a clearance
    given in mm)."""

    a = real_array("points", points, shape=(None, 2))
    if not np.all(a > 0):
        raise ParameterError(f"points must be pairs (frequency Hz > 0, clearance m > 0), got {a.tolist()!r:.80}")
    for i, c in enumerate(a[:, 1]):
        check_clearance(params, float(c), f"points[{i}] clearance")
    return [(float(f), float(f"{c:.{KEY_DIGITS}g}")) for f, c in a]


def sweep_key(params: dict, points, n_transient: int = N_TRANSIENT, n_samples: int = N_SAMPLES,
              rtol: float | None = None, atol: float | None = None, engine: str = REFERENCE_ENGINE) -> dict:
    """Every setting that determines the sweep's numbers, as a JSON-able dict (compared by :func:`load`).

    ``rtol``/``atol`` default to the parameter set's solver values; ``engine`` (:data:`robolib.gearshift.runs.ENGINES`)
    is the model that integrates the points: a store made by one engine never answers a request for the other.

    >>> k = sweep_key(default_params(), [(12.0, 5e-4)], engine="dae")
    >>> k["engine"], k == sweep_key(default_params(), [(12.0, 5e-4)], engine="fast")
    ('dae', False)
    """

    check_params(params)
    check_arguments(n_transient=n_transient, n_samples=n_samples, rtol=rtol, atol=atol)
    check_engine(engine, None, params)
    points = _check_points(points, params)
    s = params["solver"]
    return {"format": STORE_FORMAT, "params": json_plain(params),
            "points": [[float(f), float(c)] for f, c in points], "n_transient": int(n_transient),
            "n_samples": int(n_samples), "rtol": float(s["rtol"] if rtol is None else rtol),
            "atol": float(s["atol"] if atol is None else atol), "engine": engine}


def _stored_sweep_key(stored: dict) -> dict:
    """A stored sweep key with its engine (:data:`LEGACY_ENGINE` for a store written before keys had one)."""
    return stored if "engine" in stored else stored | {"engine": LEGACY_ENGINE}


def json_plain(obj):
    """``obj`` with arrays as lists and numpy scalars as Python numbers (JSON round-trips it exactly): the form in
    which the stores keep their keys and parameters (also the chapter's verdict store's; not in ``__all__``).

    >>> json_plain({"f": np.float64(2.0), "q": np.arange(2)})
    {'f': 2.0, 'q': [0, 1]}
    """
    return json.loads(json.dumps(obj, default=lambda o: o.tolist() if hasattr(o, "tolist") else str(o)))


def _point(fc, params, n_transient, n_samples, rtol, atol, engine=LEGACY_ENGINE):

    f, c = fc
    r = poincare_run(params, f, c, n_transient=n_transient, n_samples=n_samples, rtol=rtol,
                     atol=atol, engine=engine)
    return r.point()


def _sweep_task(params, points, n_transient, n_samples, rtol, atol, engine=REFERENCE_ENGINE):
    """``(task, points)``: the picklable function of one point ``(f [Hz], c [m])`` with every other setting bound.

    The DAE's task binds no ``engine`` (its default): the checkpoint files of DAE points keep the names they had
    before runs had an engine."""
    key = sweep_key(params, points, n_transient, n_samples, rtol, atol, engine)
    extra = {} if engine == LEGACY_ENGINE else {"engine": engine}
    task = functools.partial(_point, params=params, n_transient=key["n_transient"], n_samples=key["n_samples"],
                             rtol=key["rtol"], atol=key["atol"], **extra)
    return task, [tuple(p) for p in key["points"]]


def checkpoint_files(checkpoint, params: dict, points, n_transient: int = N_TRANSIENT, n_samples: int = N_SAMPLES,
                     rtol: float | None = None, atol: float | None = None, checkpoint_key=None,
                     engine: str = REFERENCE_ENGINE) -> list[Path]:
    """The files in which :func:`run_sweep` with ``checkpoint`` keeps the points (one per point, existing or not)."""

    task, pts = _sweep_task(params, points, n_transient, n_samples, rtol, atol, engine)
    return point_files(task, pts, checkpoint, checkpoint_key=checkpoint_key)


def run_sweep(params: dict, points, n_transient: int = N_TRANSIENT, n_samples: int = N_SAMPLES,
              rtol: float | None = None, atol: float | None = None, n_jobs: int = 1, backend: str | None = None,
              client=None, progress: bool | None = None, checkpoint=None, checkpoint_key=None,
              engine: str = REFERENCE_ENGINE) -> list[PoincarePoint]:
    """Run every point (:func:`robolib.gearshift.poincare_run` with ``engine``) through :func:`robolib.core.nonlinear.sweep`.

    Returns one :class:`robolib.gearshift.runs.PoincarePoint` per point (``samples`` (N, 4)
    in the units e/c and de/dt/(c omega), ``period`` k >= 1 or 0 for
    irregular, ``wall_s`` the point's integration wall time on one process).
    Longer runs start first (lower frequency = more simulated time); a point listed twice (the frequency sweep's
    and the clearance sweep's crossing) is run once and returned at both places (a run is deterministic).
    ``checkpoint``: a directory that keeps each finished point as it completes, keyed by its full settings
    (the parameter set, the point, transient, samples and tolerances; see :func:`robolib.core.nonlinear.sweep`;
    ``checkpoint_key`` an extra salt): an interrupted sweep started again computes only the missing points.
    """

    task, pts = _sweep_task(params, points, n_transient, n_samples, rtol, atol, engine)
    unique = sorted(dict.fromkeys(pts), key=lambda fc: fc[0])
    _, out = sweep(task, unique, n_jobs=n_jobs, backend=backend, client=client, progress=progress,
                   checkpoint=checkpoint, checkpoint_key=checkpoint_key)
    got = dict(zip(unique, out))
    return [got[fc] if i == pts.index(fc) else copy.deepcopy(got[fc]) for i, fc in enumerate(pts)]


def save(path, key: dict, records: list[PoincarePoint], meta: dict | None = None) -> Path:
    """Write a sweep (:class:`robolib.gearshift.runs.PoincarePoint` records) to ``path`` (.npz): the key and metadata
    as JSON, the fields as stacked arrays."""
    if len(records) != len(key["points"]):
        raise ParameterError(f"{len(records)} records for {len(key['points'])} sweep points")
    arrays = {k: np.array([getattr(r, k) for r in records]) for k in FIELDS}
    return atomic_write(path, lambda f: np.savez_compressed(f, key=np.array(json.dumps(key, sort_keys=True)),
                                                         meta=np.array(json.dumps(meta or {}, sort_keys=True)),
                                                         **arrays))


def load(path=None, key: dict | None = None):
    """``(records, meta)`` of the sweep stored at ``path`` (default: the book's store of the key's engine,
    :func:`store_path`), or ``None``: one :class:`robolib.gearshift.runs.PoincarePoint` per point, and the store's
    metadata (a dict as written, with its ``key``).

    ``None`` when there is no store or, with ``key``, when its key differs
    from ``key`` (another parameter set, other points or settings, another engine; a key without an engine,
    stored or asked for, is :data:`LEGACY_ENGINE`'s).
    """
    p = Path(path) if path is not None else store_path((key or {}).get("engine", LEGACY_ENGINE))
    if not p.is_file():
        return None
    with np.load(p, allow_pickle=False) as z:
        stored = _stored_sweep_key(json.loads(str(z["key"])))
        if key is not None and stored != _stored_sweep_key(json_plain(key)):
            return None
        meta = json.loads(str(z["meta"]))
        cols = {k: z[k] for k in FIELDS}
    records = [PoincarePoint(**{k: cols[k][i].copy() if cols[k].ndim > 1 else cols[k][i].item() for k in FIELDS})
               for i in range(len(stored["points"]))]
    return records, meta | {"key": stored}


def load_or_run(params: dict, points, n_transient: int = N_TRANSIENT, n_samples: int = N_SAMPLES,
                rtol: float | None = None, atol: float | None = None, path=None, engine: str = REFERENCE_ENGINE,
                **run_kw):
    """The stored sweep if its key (engine included) matches the request, else a fresh :func:`run_sweep`.

    Returns ``(records, info)``: the :class:`robolib.gearshift.runs.PoincarePoint` records and a
    :class:`SweepSource` (``source`` ``"stored"``, with the store's metadata: when, where and how long it took, or
    ``"computed"``, with this run's wall time; ``engine`` the engine of the points).
    """
    key = sweep_key(params, points, n_transient, n_samples, rtol, atol, engine)
    got = load(path, key)
    if got is not None:
        records, meta = got
        return records, SweepSource("stored", engine, str(Path(path) if path else Path("data") / STORES[engine]),
                                    meta.get("wall_s"), meta.get("workers"), meta.get("integration_s"), meta)
    t0 = time.perf_counter()
    records = run_sweep(params, points, n_transient, n_samples, rtol, atol, engine=engine, **run_kw)
    return records, SweepSource("computed", engine, wall_s=time.perf_counter() - t0,
                                integration_s=float(sum(r.wall_s for r in records)))


def default_params() -> dict:
    """The parameter set of the book's default sweep: ``data/gearshift/default.yaml`` unchanged."""

    return copy.deepcopy(load_parameters())


def main(argv=None) -> int:
    """``python -m robolib.gearshift.store``: remake the stored default sweep on Dask workers."""
    ap = argparse.ArgumentParser(prog="python -m robolib.gearshift.store", description=main.__doc__)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                    help="LocalCluster workers (one thread each); ignored with --scheduler")
    ap.add_argument("--scheduler", default=None, help="address of a running Dask scheduler, e.g. tcp://host:8786")
    ap.add_argument("--engine", default=REFERENCE_ENGINE, choices=ENGINES,
                    help="the model that integrates the points (default: %(default)s, the seed's DAE)")
    ap.add_argument("--out", default=None, help="where to write the store (default: the engine's book store)")
    ap.add_argument("--checkpoint", default=str(CHECKPOINT_DIR),
                    help="directory that keeps each finished point as it completes, so that an interrupted run "
                         "started again computes only the missing points (default: %(default)s)")
    a = ap.parse_args(argv)
    if a.workers < 1:
        ap.error(f"--workers must be at least 1, got {a.workers}")
    from dask.distributed import Client, LocalCluster


    params = default_params()
    points = sweep_points()
    key = sweep_key(params, points, engine=a.engine)
    out = a.out or store_path(a.engine)
    salt = code_fingerprint()          # points of older code are never reused (the store is remade after a change)
    cluster = None
    if a.scheduler:
        client = Client(a.scheduler)
    else:
        cluster = LocalCluster(n_workers=a.workers, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
    try:
        n_workers = len(client.scheduler_info()["workers"])
        t0 = time.perf_counter()
        records = run_sweep(params, points, backend="dask", client=client, progress=True, checkpoint=a.checkpoint,
                            checkpoint_key=salt, engine=a.engine)
        wall = time.perf_counter() - t0
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    integ = float(sum(r.wall_s for r in records))
    meta = {"wall_s": wall, "workers": n_workers, "integration_s": integ, "machine": platform.machine(),
            "processor": platform.processor() or platform.machine(), "cpu_count": os.cpu_count(),
            "created": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "command": "python -m robolib.gearshift.store" + (f" --workers {a.workers}" if not a.scheduler
                                                                     else " --scheduler ...")
                       + f" --engine {a.engine}"}
    p = save(out, key, records, meta)
    removed = _remove_points(a.checkpoint, params, points, salt, a.engine)
    print(f"{len(points)} points in {wall:.0f} s wall on {n_workers} Dask workers "
          f"({integ:.0f} s of single-process integration); wrote {p}"
          + (f"; removed its {removed} point files from {a.checkpoint}" if removed else ""))
    return 0


def _remove_points(checkpoint, params, points, salt, engine: str = REFERENCE_ENGINE) -> int:
    """Delete the point files of the default sweep from ``checkpoint`` once the store holds them; their number.

    The store keeps the points; their files served only to resume an interrupted run, and with the code
    fingerprint in their key no later code would read them. Other files in the directory are left alone.
    """
    n = 0
    for f in checkpoint_files(checkpoint, params, points, checkpoint_key=salt, engine=engine):
        if f.is_file():
            f.unlink()
            n += 1
    if Path(checkpoint).is_dir() and not any(Path(checkpoint).iterdir()):
        Path(checkpoint).rmdir()
    return n


__all__ = ["LEGACY_ENGINE", "SweepSource",
           "DEFAULT_FREQUENCIES", "FREQ_SWEEP_CLEARANCE", "DEFAULT_CLEARANCES", "CLEARANCE_SWEEP_FREQUENCY", "KEY_DIGITS",
           "N_TRANSIENT", "N_SAMPLES", "STORE", "STORES", "store_path", "CHECKPOINT_DIR", "FIELDS", "sweep_points", "sweep_key", "checkpoint_files",
           "run_sweep", "save", "load",
           "load_or_run", "default_params", "main"]

if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
