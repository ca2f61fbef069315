"""Parallel parameter sweeps (joblib processes or Dask) that keep each finished point on disk.

:func:`sweep` evaluates a picklable function of one parameter value for every value, serially, on
joblib's ``loky`` processes (``n_jobs``) or on a Dask cluster (``backend="dask"``); with ``checkpoint`` it
keeps one file per finished point, named by :func:`point_key` (a hash of the point's full settings), so
an interrupted sweep started again computes only the missing points. Re-exported by
:mod:`robolib.core.nonlinear`, whose docstring shows a sweep on a SLURM cluster.

>>> sweep(abs, [-1, 2, -3])
([-1, 2, -3], [1, 2, 3])
"""

from __future__ import annotations

import functools
import importlib.metadata
import os
import pickle
import sys
import types
import warnings
from pathlib import Path
from typing import Callable, Sequence

import joblib
import numpy as np

from robolib.core.errors import ParameterError
from robolib.core.files import atomic_write

try:  #: the installed package's version: a checkpointed sweep point of another version is not reused
    ROBOLIB_VERSION = importlib.metadata.version("robolib")
except importlib.metadata.PackageNotFoundError:  # pragma: no cover - run from a source tree, not installed
    ROBOLIB_VERSION = "0+source"


# --------------------------------------------------------------------------- parallel sweeps
def _show_progress(progress) -> bool:
    """Progress bar on? ``None`` = only in a terminal or a live Jupyter session (never in papermill/CI logs)."""

    if progress is not None:
        return bool(progress)
    return bool(os.environ.get("JPY_SESSION_NAME")) or (hasattr(sys.stderr, "isatty") and sys.stderr.isatty())


def _call_indexed(fun, j, args, kwargs):
    """``(j, fun(*args, **kwargs))``: a task that carries its index back (results arrive in any order)."""
    return j, fun(*args, **kwargs)


def _dask_client(client):
    try:
        from dask.distributed import get_client
    except ImportError:  # pragma: no cover
        raise ParameterError("backend='dask' needs dask and distributed (pip install dask distributed)") from None
    if client is None:
        try:
            client = get_client()
        except ValueError:
            raise ParameterError("backend='dask' needs a dask.distributed Client: pass client=... or "
                                 "create one first, e.g. Client(LocalCluster(n_workers=2))") from None
    return client


def _completed(fun, args, n_jobs, backend, verbose, client):
    """Yield ``(j, result)`` for the calls ``fun(*a, **kw)``, ``(a, kw) = args[j]``, as each one completes.

    Serial in this process (``n_jobs=1``, no backend), joblib processes
    (``return_as="generator_unordered"``) or Dask futures (``as_completed``). When the consumer stops
    (an exception, an interruption) the calls not yet started are cancelled.
    """
    if not args:
        return
    if backend == "dask":
        from dask.distributed import as_completed

        client = _dask_client(client)
        futures = {client.submit(fun, *a, pure=False, **kw): j for j, (a, kw) in enumerate(args)}
        try:
            for fut in as_completed(futures):
                yield futures[fut], fut.result()
        finally:
            client.cancel([f for f in futures if not f.done()])
        return
    if n_jobs == 1 and backend is None:
        for j, (a, kw) in enumerate(args):
            yield j, fun(*a, **kw)
        return

    with joblib.parallel_config(backend=backend or "loky", n_jobs=n_jobs):
        yield from joblib.Parallel(verbose=verbose, return_as="generator_unordered")(
            joblib.delayed(_call_indexed)(fun, j, a, kw) for j, (a, kw) in enumerate(args))


def sweep(fun: Callable, values: Sequence, n_jobs: int = 1, backend: str | None = None, verbose: int = 0,
          keyword: str | None = None, client=None, progress: bool | None = None, checkpoint=None,
          checkpoint_key=None):
    """Evaluate ``fun(v)`` (or ``fun(**{keyword: v})``) for every ``v`` in ``values`` in parallel.

    Returns ``(values, results)`` in the order of ``values``. Engines:

    * joblib (default): ``n_jobs`` local processes (``1`` = serial, ``-1`` =
      all cores), ``backend`` a joblib backend name (``"loky"`` default);
    * ``backend="dask"``: a :class:`dask.distributed.Client` -- ``client`` or
      the current default client (``Client(LocalCluster(...))`` on one
      machine, ``Client(SLURMCluster(...))`` from dask-jobqueue on a cluster,
      see :mod:`robolib.core.nonlinear`); ``n_jobs`` is ignored, the cluster's workers
      run the tasks. Raises :class:`robolib.ParameterError` without a client.

    ``fun`` must be picklable, e.g. ``functools.partial(gearshift.poincare_run,
    params, frequency=6.0)`` swept with ``keyword="clearance"``. ``progress``:
    a tqdm progress bar (``None``: only in a terminal or a live notebook, so
    papermill logs and the built book stay quiet).

    ``checkpoint``: a directory that keeps every finished point, one file per
    point written (atomically, :mod:`robolib.core.files`) as soon as the point
    completes, on any engine: by the process that computed it (serial, joblib),
    so a point that finished is kept even when another point's error stops the
    sweep first, or by this process as each Dask future completes (Dask workers
    may not share this file system). The file is named by the point's key
    (:func:`point_key`): a hash of its full settings -- the function (module
    and qualified name), every bound argument of a :func:`functools.partial`
    (recursively), the swept value and ``keyword``, robolib's version, and
    ``checkpoint_key`` (an optional extra salt, any picklable value). A sweep
    that is interrupted and started again with the same settings computes only
    the missing points; a point with other settings (another parameter set,
    tolerance, ...) is another file, so one directory can serve many sweeps.
    A point file that cannot be read, or that holds another key, is not
    trusted: it is computed again (with a warning that names it).

    The files are kept when the sweep completes: they are a cache of finished
    points (a few kB each), so a finished sweep started again costs nothing
    and a sweep extended by new values computes only those. The key holds the
    settings, not the code: after a change of the code, delete the directory,
    or pass ``checkpoint_key=code_fingerprint()`` to tie the points to the
    source of robolib (what ``python -m robolib.gearshift.store`` does).

    >>> sweep(abs, [-1, 2, -3], n_jobs=1)[1]
    [1, 2, 3]
    >>> sweep(round, [1.234, 5.678], keyword="number")[1]
    [1, 6]
    >>> import tempfile
    >>> sweep(abs, [-1, 2, -3], checkpoint=tempfile.mkdtemp())[1]
    [1, 2, 3]
    """
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise ParameterError(f"values must be a sequence of parameter values, got {values!r:.60}")
    values = list(values)
    if backend is not None and not isinstance(backend, str):
        raise ParameterError(f"backend must be a joblib backend name, 'dask' or None, got {backend!r}")
    if checkpoint is not None and not isinstance(checkpoint, (str, os.PathLike)):
        raise ParameterError(f"checkpoint must be a directory path or None, got {checkpoint!r:.60}")
    if keyword is not None and not isinstance(keyword, str):
        raise ParameterError(f"keyword must be the name of an argument of fun (text) or None, got {keyword!r}")
    if not callable(fun):
        raise ParameterError(f"fun must be a callable (a picklable function of one value), got {fun!r:.60}")
    if backend != "dask" and not (n_jobs is None or (isinstance(n_jobs, int) and not isinstance(n_jobs, bool)
                                                     and n_jobs != 0)):
        raise ParameterError(f"n_jobs must be an integer >= 1 (processes) or < 0 (-1: all cores, -2: all but one), "
                             f"got {n_jobs!r}")
    args = [((v,), {}) if keyword is None else ((), {keyword: v}) for v in values]
    if checkpoint is not None:
        return values, _checkpointed(fun, values, args, checkpoint, checkpoint_key, keyword, n_jobs=n_jobs,
                                     backend=backend, verbose=verbose, client=client, progress=progress)
    out: list = [None] * len(values)
    with progress_bar(progress, len(values)) as bar:
        for j, r in _completed(fun, args, n_jobs, backend, verbose, client):
            out[j] = r
            bar.update(1)
    return values, out


def progress_bar(progress, total: int, desc: str = "sweep"):
    """A tqdm bar (``tqdm.auto``: a bar in Jupyter, a line in a terminal) of ``total`` steps called ``desc``,
    disabled (a no-op) unless ``progress`` is True, or None in a terminal or a live Jupyter session (never in
    papermill or CI logs), and more than one step. Use it as a context manager and call ``update()``.

    >>> with progress_bar(False, 3) as bar:
    ...     bar.update()
    """
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, leave=False, disable=not (_show_progress(progress) and total > 1))



# ---- checkpointed sweeps: one file per finished point, named by the hash of the point's settings
#: Suffix of a sweep point's file in a checkpoint directory (a pickle of ``{"key", "value", "result"}``).
POINT_SUFFIX = ".point.pkl"


def callable_settings(obj):
    """A hashable description of everything that determines ``obj``'s result, for :func:`point_key`.

    A function, class or builtin is its module and qualified name (the code itself is not included);
    a :func:`functools.partial` is its function with every bound positional and keyword argument,
    recursively; a bound method is its object and method name; a callable object is its class with its
    pickled state (``__getstate__``); dicts, lists and tuples are described entry by entry, NumPy
    scalars as the Python numbers they hold; any other value is itself (hashed by :func:`joblib.hash`).
    A lambda or a function defined inside another function has no name that outlives the process:
    :class:`robolib.ParameterError`.

    >>> import functools
    >>> callable_settings(functools.partial(round, ndigits=2))
    ('partial', ('callable', 'builtins', 'round'), (), (('ndigits', 2),))
    """

    if isinstance(obj, functools.partial):
        return ("partial", callable_settings(obj.func), tuple(callable_settings(a) for a in obj.args),
                tuple(sorted((k, callable_settings(v)) for k, v in obj.keywords.items())))
    if isinstance(obj, types.MethodType):
        return ("method", callable_settings(obj.__self__), obj.__func__.__name__)
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, dict):
        return {k: callable_settings(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(callable_settings(v) for v in obj)
    if isinstance(obj, (types.FunctionType, types.BuiltinFunctionType, type, np.ufunc)):
        qual = getattr(obj, "__qualname__", None) or obj.__name__
        if "<lambda>" in qual or "<locals>" in qual:
            raise ParameterError(f"a checkpointed sweep needs a module-level function (its key is its module and "
                                 f"name), got {qual!r} from {obj.__module__!r}: define it at module level")
        return ("callable", obj.__module__ or type(obj).__module__, qual)
    if callable(obj) and not isinstance(obj, (str, bytes, np.ndarray)):
        state = obj.__getstate__() if hasattr(obj, "__getstate__") else getattr(obj, "__dict__", None)
        return ("object", callable_settings(type(obj)), callable_settings(state))
    return obj


def point_key(fun: Callable, value, keyword: str | None = None, salt=None) -> str:
    """Key (hex digest, 32 characters) of one sweep point: :func:`joblib.hash` of its full settings.

    The settings are robolib's version, :func:`callable_settings` of ``fun``, the swept ``value`` (NumPy
    scalars as Python numbers) with its ``keyword``, and ``salt`` (:func:`sweep`'s ``checkpoint_key``).
    Equal settings give the same key in any process and on any machine with the same versions.

    >>> point_key(abs, 2.0) == point_key(abs, np.float64(2.0)) != point_key(abs, 3.0)
    True
    """


    if keyword is not None and not isinstance(keyword, str):
        raise ParameterError(f"keyword must be the name of an argument of fun (text) or None, got {keyword!r}")
    return joblib.hash(("robolib sweep point", ROBOLIB_VERSION, callable_settings(fun), keyword,
                        callable_settings(value), callable_settings(salt)))


def code_fingerprint() -> str:
    """Hash of the source of the installed robolib package (every ``*.py`` under it, by relative path).

    Passed as a sweep's ``checkpoint_key`` it makes the points of a checkpoint belong to this code: any
    change of robolib's source gives new keys, so no point computed by older code is reused.
    """

    root = Path(__file__).resolve().parents[1]
    return joblib.hash(sorted((str(p.relative_to(root)), p.read_bytes()) for p in root.rglob("*.py")))


def point_files(fun: Callable, values: Sequence, checkpoint, keyword: str | None = None, checkpoint_key=None):
    """The files (``list[Path]``) that a :func:`sweep` with this checkpoint keeps for ``values`` (existing or not)."""

    return [Path(checkpoint) / f"{point_key(fun, v, keyword, checkpoint_key)}{POINT_SUFFIX}" for v in values]


class CheckpointWarning(UserWarning):
    """A point file of a checkpoint directory could not be trusted (it is computed again)."""


def _read_point(path, key):
    """The stored result of the point ``key`` at ``path``, or ``_MISSING`` (absent, damaged or another key)."""

    if not path.is_file():
        return _MISSING
    try:
        saved = pickle.loads(path.read_bytes())
        if not (isinstance(saved, dict) and saved.get("key") == key and "result" in saved):
            raise ValueError("it holds another point")
    except Exception as exc:  # noqa: BLE001  (a damaged file must not be trusted)
        warnings.warn(f"checkpoint point file {str(path)!r} cannot be used ({type(exc).__name__}: {exc}); "
                      f"the point is computed again", CheckpointWarning, stacklevel=4)
        return _MISSING
    return saved["result"]


_MISSING = object()


def _checkpointed(fun, values, args, checkpoint, salt, keyword, n_jobs, backend, verbose, client, progress):
    """Results of :func:`sweep` with ``checkpoint``: stored points read, missing ones computed and written as they end."""

    root = Path(checkpoint)
    if root.exists() and not root.is_dir():
        raise ParameterError(f"checkpoint must be a directory (one file per finished point), got the file "
                             f"{str(root)!r}: delete it or pass a directory")
    root.mkdir(parents=True, exist_ok=True)
    paths = point_files(fun, values, root, keyword, salt)
    first = {}                           # file -> index of its first value (equal values are computed once)
    for i, path in enumerate(paths):
        first.setdefault(path, i)
    results = {path: _read_point(path, path.name[:-len(POINT_SUFFIX)]) for path in first}
    todo = [path for path, got in results.items() if got is _MISSING]
    # joblib workers and a serial loop share this file system: a point's file is written where the point is
    # computed, so every point that finishes is kept even when another point's exception stops the sweep
    # before its result reached this process. Dask workers may run on other machines: this process writes.
    here = backend != "dask"
    calls = [((fun, path, values[first[path]], keyword, *args[first[path]]), {}) if here else args[first[path]]
             for path in todo]
    with progress_bar(progress, len(todo)) as bar:
        for j, r in _completed(_kept_point if here else fun, calls, n_jobs, backend, verbose, client):
            path = todo[j]
            if not here:
                _write_point(path, values[first[path]], keyword, r)
            results[path] = r
            bar.update(1)
    return [results[p] for p in paths]


def _write_point(path, value, keyword, result):
    """Keep one finished point: ``{"key", "value", "keyword", "result"}`` pickled to ``path``, written whole."""


    rec = {"key": path.name[:-len(POINT_SUFFIX)], "value": value, "keyword": keyword, "result": result}
    atomic_write(path, lambda f: pickle.dump(rec, f, protocol=pickle.HIGHEST_PROTOCOL))


def _kept_point(fun, path, value, keyword, args, kwargs):
    """``fun(*args, **kwargs)``, kept in ``path`` (:func:`_write_point`) before it is returned."""
    result = fun(*args, **kwargs)
    _write_point(path, value, keyword, result)
    return result


__all__ = ["sweep", "POINT_SUFFIX", "callable_settings", "point_key", "code_fingerprint", "point_files",
           "CheckpointWarning"]
