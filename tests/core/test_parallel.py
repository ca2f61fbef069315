"""Parallel sweeps (robolib.core.parallel): equal to the serial map, resumable from their checkpoints."""

from __future__ import annotations

import functools
import os
import pickle
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import numpy as np
import pytest
from fuzzing import budget, names
from hypothesis import given
from hypothesis import strategies as st

from robolib import ParameterError
from robolib import nonlinear as N

# ==== parallel sweeps (joblib, Dask) equal the serial sweep =========================================================

def _duffing_amplitude(omega, n_transient=20, n_samples=5):
    """Poincaré samples of a weakly forced damped Duffing oscillator (cheap picklable sweep task)."""
    f = lambda t, y: np.array([y[1], -0.2 * y[1] - y[0] - 0.1 * y[0] ** 3 + 0.3 * np.cos(omega * t)])  # noqa: E731
    flow = N.rk4_flow(f, 0.02)
    T = 2 * np.pi / omega
    y = flow(np.zeros(2), 0.0, n_transient * T)
    out = []
    for k in range(n_samples):
        y = flow(y, (n_transient + k) * T, (n_transient + k + 1) * T)
        out.append(y[0])
    return np.array(out)


def test_parallel_sweep_equals_serial_sweep():
    values = [0.6, 0.9, 1.2]
    fun = functools.partial(_duffing_amplitude, n_transient=25, n_samples=3)
    v1, serial = N.sweep(fun, values, n_jobs=1)
    v2, par = N.sweep(fun, values, n_jobs=2)
    assert v1 == v2 == values
    for a, b in zip(serial, par):
        np.testing.assert_array_equal(a, b)
    p, s = N.bifurcation_points(values, par)
    assert p.shape == s.shape == (9,)
    # weakly forced, damped: period-1 response (all samples of one run coincide)
    assert all(N.distinct_points(r[:, None], 1e-3) == 1 for r in par)


def test_dask_sweep_on_a_local_cluster_equals_joblib():
    pytest.importorskip("distributed")
    from dask.distributed import Client, LocalCluster

    values = [0.6, 0.9, 1.2, 1.5]
    fun = functools.partial(_duffing_amplitude, n_transient=10, n_samples=3)
    _, ref = N.sweep(fun, values, n_jobs=2)
    with pytest.raises(ParameterError, match="Client"):
        N.sweep(fun, values, backend="dask")
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        assert len(client.scheduler_info()["workers"]) == 2
        v, res = N.sweep(fun, values, backend="dask", client=client)
        v2, res2 = N.sweep(fun, values, backend="dask")          # the default client
    assert v == v2 == values
    for a, b, c in zip(ref, res, res2):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)



# ==== a sweep equals the serial map on random tasks =================================================================

@pytest.mark.fuzz
@budget(10)
@given(values=st.lists(st.floats(-1e3, 1e3, allow_nan=False), max_size=8), n_jobs=st.sampled_from([1, 2]),
       checkpoint=st.booleans())
def test_a_sweep_equals_the_serial_map(values, n_jobs, checkpoint):
    with tempfile.TemporaryDirectory() as d:
        got, res = N.sweep(abs, values, n_jobs=n_jobs, checkpoint=d if checkpoint else None)
    assert got == values and res == [abs(v) for v in values]



# ==== long sweeps survive interruption ==============================================================================
#
# Long sweeps survive interruption: each finished point is kept on disk as it completes, keyed by its full
# settings, and a sweep started again with the same settings computes only the missing points.
#
# The task logs every point it computes as a file in a log folder (the workers are other processes, so a
# list in this process could not count them). A sweep is interrupted midway -- a point raises in a joblib
# worker, a point raises on a Dask worker, the process running a sweep is killed -- and started again:
# the result equals the uninterrupted sweep's, and the points computed the second time are exactly the
# ones without a file.

VALUES = list(range(12))


#: The value at which an interrupted sweep stops.
STOP_AT = 7


class Interrupted(Exception):
    """The interruption of a sweep at ``STOP_AT`` (an exception raised in a worker)."""


def logged_point(v, log_dir: str, scale: float = 1.0, delay: float = 0.0):
    """``{"v": v, "y": scale * [v, v**2]}``, logging the call in ``log_dir`` with the run number it started in
    (the text of ``RUN`` beside ``log_dir``); raises at STOP_AT while a file ``STOP`` is there (the interruption)."""
    log = Path(log_dir)
    run = (log.parent / "RUN").read_text() if (log.parent / "RUN").exists() else "0"
    if v == STOP_AT and (log.parent / "STOP").exists():
        raise Interrupted(f"stopped at point {v}")
    time.sleep(delay)
    (log / f"{v}-{run}-{uuid.uuid4().hex}").touch()
    return {"v": v, "y": scale * np.array([v, v * v], float)}


def computed(log: Path) -> list:
    """The values computed in the current run (sorted, with repeats); then a new run begins.

    A point that a cancelled sweep had started may still finish on a worker thread after the sweep stopped: it
    belongs to the run it started in, not to the next one.
    """
    tag = log.parent / "RUN"
    run = tag.read_text() if tag.exists() else "0"
    out = sorted(int(p.name.split("-")[0]) for p in log.iterdir() if p.name.split("-")[1] == run)
    tag.write_text(str(int(run) + 1))
    return out


def files(ckpt: Path) -> list:
    return sorted(ckpt.glob("*" + N.POINT_SUFFIX))


@pytest.fixture
def work(tmp_path):
    """``(task, log, checkpoint, stop)``: a task logging into ``log``, its checkpoint folder and stop switch."""
    log = tmp_path / "log"
    log.mkdir()
    stop = tmp_path / "STOP"
    return functools.partial(logged_point, log_dir=str(log)), log, tmp_path / "points", stop


def same(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x["v"] == y["v"] and np.array_equal(x["y"], y["y"])


def interrupt_and_resume(work, settle=lambda: None, **engine):
    """Interrupt the sweep at STOP_AT, let the engine ``settle`` (finish or drop what it had started), resume."""
    task, log, ckpt, stop = work
    ref = N.sweep(task, VALUES)[1]
    computed(log)
    stop.touch()
    with pytest.raises(Interrupted):
        N.sweep(task, VALUES, checkpoint=ckpt, **engine)
    settle()
    first = computed(log)
    kept = files(ckpt)
    assert 0 < len(kept) < len(VALUES), "the sweep stopped midway with some points kept"
    assert len(kept) <= len(first), "a kept point was computed"
    stop.unlink()
    got, res = N.sweep(task, VALUES, checkpoint=ckpt, **engine)
    again = computed(log)
    assert got == VALUES
    same(res, ref)
    assert len(again) == len(VALUES) - len(kept) and len(set(again)) == len(again), \
        f"only the {len(VALUES) - len(kept)} missing points are computed again, got {again}"
    assert STOP_AT in again and len(files(ckpt)) == len(VALUES), "every point is kept once the sweep completes"
    N.sweep(task, VALUES, checkpoint=ckpt, **engine)
    assert computed(log) == [], "a completed sweep started again computes nothing (its files are a cache)"


def test_a_joblib_sweep_interrupted_in_a_worker_resumes_to_the_same_result(work):
    task, log, ckpt, _ = work

    def settle():     # the other worker may finish (and keep) the point it had started after the exception
        deadline, seen = time.monotonic() + 30, None
        while time.monotonic() < deadline:
            now = (sorted(p.name for p in log.iterdir()), len(files(ckpt)))
            if now == seen:
                return
            seen = now
            time.sleep(0.5)

    interrupt_and_resume(work, settle, n_jobs=2)


def test_a_point_that_finishes_after_another_point_failed_is_kept(work):
    """The point file is written by the worker that computed the point, not by the process that gathers results:
    a point still running when another point's error stops the sweep is kept when it ends (threads, so that the
    stopped sweep cannot kill the worker running it)."""
    task, log, ckpt, stop = work
    slow = functools.partial(logged_point, log_dir=str(log), delay=0.3)
    stop.touch()
    with pytest.raises(Interrupted):
        N.sweep(slow, [STOP_AT, 1], checkpoint=ckpt, backend="threading", n_jobs=2)
    deadline = time.monotonic() + 10
    while not computed_now(log) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.2)
    one = N.point_files(slow, [1], ckpt)[0]
    assert computed(log) == [1] and files(ckpt) == [one], "the point that finished after the error is kept"
    stop.unlink()
    assert N.sweep(slow, [STOP_AT, 1], checkpoint=ckpt, backend="threading", n_jobs=2)[0] == [STOP_AT, 1]
    assert computed(log) == [STOP_AT], "only the failed point is computed again"


def computed_now(log: Path) -> list:
    """The log's entries, without starting a new run (:func:`computed` does)."""
    return list(log.iterdir())


def test_a_serial_sweep_interrupted_resumes_to_the_same_result(work):
    task, log, ckpt, stop = work
    interrupt_and_resume(work)
    assert [pickle.loads(p.read_bytes())["value"] for p in files(ckpt)] != [], "a file holds its value"


def test_a_dask_sweep_interrupted_on_a_worker_resumes_to_the_same_result(work):
    pytest.importorskip("distributed")
    from dask.distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0") as cluster, \
            Client(cluster) as client:
        assert len(client.scheduler_info()["workers"]) == 2

        def settle():     # a cancelled task that a worker had started or queued runs on: wait until none is left
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and (any(client.processing().values())
                                                   or any(w.state.executing or w.state.ready for w in cluster.workers.values())):
                time.sleep(0.02)

        interrupt_and_resume(work, settle, backend="dask", client=client)


def test_a_killed_sweep_resumes_to_the_same_result(work):
    """The process running a serial sweep is killed (SIGKILL) after three points: nothing half-written is read."""
    task, log, ckpt, _ = work
    here = Path(__file__).parents[1]            # tests/: the import root of core.test_parallel
    code = (f"import sys, functools; sys.path.insert(0, {str(here)!r}); import {logged_point.__module__} as T; "
            f"from robolib import nonlinear as N; "
            f"N.sweep(functools.partial(T.logged_point, log_dir={str(log)!r}, delay=0.2), T.VALUES, "
            f"checkpoint={str(ckpt)!r})")
    proc = subprocess.Popen([sys.executable, "-c", code])
    try:
        deadline = time.monotonic() + 60
        while len(files(ckpt)) < 3 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert proc.poll() is None, "the sweep ended before it was killed"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(30)
    kept = files(ckpt)
    assert 3 <= len(kept) < len(VALUES)
    computed(log)
    slow = functools.partial(logged_point, log_dir=str(log), delay=0.2)
    res = N.sweep(slow, VALUES, checkpoint=ckpt)[1]
    assert len(computed(log)) == len(VALUES) - len(kept)
    same(res, N.sweep(task, VALUES)[1])


def test_a_changed_bound_parameter_is_another_point(work):
    task, log, ckpt, _ = work
    N.sweep(task, VALUES[:4], checkpoint=ckpt)
    assert computed(log) == VALUES[:4]
    res = N.sweep(functools.partial(task, scale=3.0), VALUES[:4], checkpoint=ckpt)[1]
    assert computed(log) == VALUES[:4], "another scale: every point computed again"
    assert np.array_equal(res[2]["y"], [6.0, 12.0]) and len(files(ckpt)) == 8
    N.sweep(functools.partial(task, scale=3.0), VALUES[:6], checkpoint=ckpt)
    assert computed(log) == [4, 5], "an extended sweep computes only its new points"
    N.sweep(task, VALUES[:4], checkpoint=ckpt, checkpoint_key="salt")
    assert computed(log) == VALUES[:4], "another checkpoint_key: other points"
    N.sweep(task, VALUES[:4], checkpoint=ckpt, keyword="v")
    assert computed(log) == VALUES[:4], "another keyword: other points"


def test_a_damaged_point_file_is_not_trusted(work):
    task, log, ckpt, _ = work
    ref = N.sweep(task, VALUES[:5], checkpoint=ckpt)[1]
    computed(log)
    f2, f3 = N.point_files(task, [2, 3], ckpt)
    f2.write_bytes(f2.read_bytes()[:20])                 # truncated
    f3.write_bytes((ckpt / N.point_files(task, [4], ckpt)[0].name).read_bytes())   # another point's file
    with pytest.warns(N.CheckpointWarning) as rec:
        res = N.sweep(task, VALUES[:5], checkpoint=ckpt)[1]
    named = " ".join(str(w.message) for w in rec)
    assert f2.name in named and f3.name in named
    assert computed(log) == [2, 3]
    same(res, ref)
    assert pickle.loads(f3.read_bytes())["value"] == 3, "the damaged file is replaced"


def test_equal_values_are_computed_once_and_results_keep_the_order(work):
    task, log, ckpt, _ = work
    vals = [3, 1, 3, 2, 1]
    got, res = N.sweep(task, vals, checkpoint=ckpt, n_jobs=2)
    assert got == vals and [r["v"] for r in res] == vals
    assert computed(log) == [1, 2, 3]


def test_a_checkpoint_must_be_a_directory_and_the_task_named(tmp_path):
    f = tmp_path / "old.ckpt"
    f.write_bytes(b"x")
    with pytest.raises(ParameterError, match=names("checkpoint", "directory")):
        N.sweep(abs, [1, 2], checkpoint=f)
    with pytest.raises(ParameterError, match="module-level function"):
        N.sweep(lambda v: v, [1, 2], checkpoint=tmp_path / "d")

    def local(v):
        return v

    with pytest.raises(ParameterError, match="module-level"):
        N.sweep(functools.partial(local), [1], checkpoint=tmp_path / "d")


def test_point_keys_hold_the_full_settings():
    p = {"a": 1.0, "b": {"c": np.arange(3.0)}}
    fun = functools.partial(logged_point, log_dir="x", scale=2.0)
    k = N.point_key(fun, 1.0)
    assert k == N.point_key(functools.partial(logged_point, scale=2.0, log_dir="x"), np.float64(1.0))
    assert k != N.point_key(functools.partial(logged_point, log_dir="x", scale=2.5), 1.0)
    assert k != N.point_key(fun, 1.0, keyword="v") != N.point_key(fun, 1.0, salt=1)
    assert k != N.point_key(functools.partial(logged_point, log_dir="y", scale=2.0), 1.0)
    g = functools.partial(logged_point, p)
    assert N.point_key(g, 1) == N.point_key(functools.partial(logged_point, {"b": {"c": np.arange(3.0)}, "a": 1.0}), 1)
    q = {"a": 1.0, "b": {"c": np.array([0.0, 1.0, 2.0 + 1e-15])}}
    assert N.point_key(g, 1) != N.point_key(functools.partial(logged_point, q), 1), "a changed array entry"
    assert N.callable_settings(logged_point) == ("callable", logged_point.__module__, "logged_point")
