"""The stored runs of the clearance chapter (robolib.gearshift.store)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from fuzzing import names

from robolib import ParameterError
from robolib import gearshift as G
from robolib import nonlinear as N
from robolib.gearshift import store as B
from robolib.studies.clearance_dynamics.settings import study_settings

# ==== a gear-shift sweep keeps its points keyed by the parameter set ================================================

def files(ckpt: Path) -> list:
    return sorted(ckpt.glob("*" + N.POINT_SUFFIX))


def test_the_store_command_resumes_from_its_checkpoint(tmp_path, monkeypatch):
    """``python -m robolib.gearshift.store --checkpoint DIR``: the checkpoint reaches the sweep, keyed by the code."""
    from robolib.gearshift import store as B

    seen = {}

    def fake_run_sweep(params, points, **kw):
        seen.update(kw)
        from robolib.gearshift.runs import PoincarePoint

        return [PoincarePoint(**dict.fromkeys(B.FIELDS, 0.0)) for _ in points]

    class FakeClient:
        def __init__(self, *a, **k):
            pass

        def scheduler_info(self):
            return {"workers": {"w": 1}}

        def close(self):
            pass

    import dask.distributed as dd

    monkeypatch.setattr(B, "run_sweep", fake_run_sweep)
    monkeypatch.setattr(dd, "Client", FakeClient)
    monkeypatch.setattr(dd, "LocalCluster", lambda **k: type("C", (), {"close": lambda self: None})())
    monkeypatch.setattr(B, "save", lambda path, key, records, meta: Path(path))
    assert B.main(["--workers", "1", "--checkpoint", str(tmp_path / "pts"), "--out", str(tmp_path / "s.npz")]) == 0
    assert seen["checkpoint"] == str(tmp_path / "pts") and seen["checkpoint_key"] == N.code_fingerprint()
    assert B.CHECKPOINT_DIR.parent.name == "build"


def test_a_gear_shift_sweep_keeps_its_points_keyed_by_the_parameter_set(tmp_path):
    """:func:`robolib.gearshift.store.run_sweep` with a checkpoint: its files are :func:`checkpoint_files`, a rerun
    reads them, another parameter set is other points, and the store command's clean-up removes only its own."""
    from robolib.gearshift import load_parameters, with_changes
    from robolib.gearshift import store as B

    p, pts, ckpt = load_parameters(), [(12.0, 5e-4), (11.0, 5e-4)], tmp_path / "pts"
    first = B.run_sweep(p, pts, n_transient=0, n_samples=2, checkpoint=ckpt)
    mine = B.checkpoint_files(ckpt, p, pts, n_transient=0, n_samples=2)
    assert sorted(mine) == files(ckpt)
    stamps = [f.stat().st_mtime_ns for f in mine]
    again = B.run_sweep(p, pts, n_transient=0, n_samples=2, checkpoint=ckpt)
    assert [f.stat().st_mtime_ns for f in mine] == stamps, "a rerun computes nothing"
    for a, b in zip(first, again):
        assert np.array_equal(a.samples, b.samples)
    q = with_changes(p, **{"gearbox.damping": p["gearbox"]["damping"] * 1.5})
    assert set(B.checkpoint_files(ckpt, q, pts, n_transient=0, n_samples=2)).isdisjoint(mine)
    assert B._remove_points(ckpt, p, pts, None) == 0, "the default sweep's files are other files"



# ==== a store serves only runs of its engine ========================================================================

P = G.load_parameters()


def test_sweep_keys_differ_by_engine_and_a_store_serves_only_its_engine(tmp_path):
    pts = B.sweep_points([12.0], 5e-4, [], 6.0)
    k_fast, k_dae = (B.sweep_key(P, pts, 1, 3, engine=e) for e in ("fast", "dae"))
    assert k_fast != k_dae and k_fast["engine"] == "fast" and k_dae["engine"] == "dae"
    recs = B.run_sweep(P, pts, n_transient=1, n_samples=3, engine="fast")
    path = B.save(tmp_path / "fast.npz", k_fast, recs, {"wall_s": 1.0})
    assert B.load(path, k_fast) is not None and B.load(path, k_dae) is None
    got, info = B.load_or_run(P, pts, 1, 3, path=path, engine="dae")       # not served: computed on the DAE
    assert info.source == "computed" and info.engine == "dae"
    assert not np.array_equal(got[0].samples, recs[0].samples)        # another model's numbers
    assert B.load_or_run(P, pts, 1, 3, path=path, engine="fast")[1].source == "stored"
    # a store written before keys had an engine holds DAE runs
    legacy = {k: v for k, v in k_dae.items() if k != "engine"}
    old = B.save(tmp_path / "old.npz", legacy, got, {"wall_s": 1.0})
    assert B.load(old, k_dae) is not None and B.load(old, k_fast) is None


def test_a_study_store_serves_only_runs_of_its_engine(tmp_path, monkeypatch):
    job = ("poincare", 12.0, 0.5, 1e-6, 1, 3, None, 1.0)
    path = tmp_path / "runs.json"
    monkeypatch.setenv(B.STUDY_STORE_ENV, "1")
    fast, info = B.load_or_run_study(P, [job], path=path, engine="fast")
    assert info.computed == 1
    monkeypatch.setenv(B.STUDY_STORE_ENV, "0")
    assert B.load_or_run_study(P, [job], path=path, engine="fast")[1].stored == 1
    dae, info = B.load_or_run_study(P, [job], path=path, engine="dae")
    assert info == B.RunSources(0, 1, info.wall_s)
    assert not np.array_equal(dae[job].samples, fast[job].samples)
    assert B.stored_jobs(P, [job], path=path, engine="fast") == [job]
    assert B.stored_jobs(P, [job], path=path, engine="dae") == []
    # a run stored before keys had an engine (job + seed, 9 entries) is a DAE run
    store = json.loads(path.read_text())
    store["runs"] = [{"job": r["job"][:-1], "result": r["result"]} for r in store["runs"]]
    path.write_text(json.dumps(store))
    assert B.load_or_run_study(P, [job], path=path, engine="dae")[1].stored == 1
    assert B.load_or_run_study(P, [job], path=path, engine="fast")[1].computed == 1


def test_the_books_dae_store_is_read_on_the_dae_engine_only():
    """At the chapter's defaults the stored verdict runs answer every DAE job and no fast job."""
    import dataclasses

    from robolib.studies.clearance_dynamics.verdicts import verdict_jobs

    s = study_settings(engine="fast")
    dae = dataclasses.replace(s, engine="dae")
    jobs_dae, jobs_fast = verdict_jobs(dae), verdict_jobs(s)
    assert jobs_dae == jobs_fast                               # Poincaré jobs only (the exponents are the orbit study's)
    assert len(B.stored_jobs(s.base, jobs_dae, seed=s.seed, engine="dae")) == len(jobs_dae)
    assert B.stored_jobs(s.base, jobs_fast, seed=s.seed, engine="fast") == []



# ==== the stored bifurcation sweep is current =======================================================================
#
# The stored bifurcation sweep of the clearance chapter (robolib.gearshift.store).
#
# * the store is current: a stored point recomputed now is identical (a change of
#   the model or the integrator without ``make bifurcation`` fails here);
# * there is one store per engine (``store.STORES``): the DAE's, and the fast model's that the default book reads
#   (computing it would put ``make book`` over its budget); each key is the book's default request on its engine, so
#   a run of the chapter on that engine takes it, and a request on the other engine is never served from it;
# * save/load round trip; another request (other settings) is not served from the store.

#: The factor by which the verdict store's Lyapunov runs tighten rtol (a stored pair of runs of one case).
TIGHTER = 10.0


@pytest.fixture(scope="module", params=["dae", "fast"])
def stored(request):
    got = B.load(B.store_path(request.param))
    assert got is not None, f"{B.store_path(request.param)} is missing: run `make bifurcation`"
    return got


def test_store_answers_the_books_default_request(stored):
    records, meta = stored
    engine = meta["key"]["engine"]
    other = {"dae": "fast", "fast": "dae"}[engine]
    key = B.sweep_key(B.default_params(), B.sweep_points(), engine=engine)
    assert meta["key"] == B._plain(key)
    assert B.load(key=key) is not None
    assert B.load(B.store_path(engine), key=B.sweep_key(B.default_params(), B.sweep_points(), engine=other)) is None
    assert len(records) == len(B.DEFAULT_FREQUENCIES) + len(B.DEFAULT_CLEARANCES) == 45 + 25
    assert np.max(np.diff(B.DEFAULT_FREQUENCIES)) <= 0.25 + 1e-12 and len(B.DEFAULT_CLEARANCES) >= 25
    for r in records:
        assert r.samples.shape == (B.N_SAMPLES, 4) and np.all(np.isfinite(r.samples))
        assert r.period >= 0 and r.noise > 0 and r.wall_s > 0
    assert meta["wall_s"] > 0 and meta["workers"] >= 1 and meta["integration_s"] > 0


def test_stored_point_is_what_the_code_computes_now(stored):
    records, meta = stored
    pts = [tuple(p) for p in meta["key"]["points"]]
    i = max(range(len(pts)), key=lambda j: pts[j][0] if pts[j][1] == B.FREQ_SWEEP_CLEARANCE else -1)  # 12 Hz
    key = meta["key"]
    now = B.run_sweep(B.default_params(), [pts[i]], key["n_transient"], key["n_samples"], key["rtol"], key["atol"],
                      engine=key["engine"])[0]
    for k in B.FIELDS:
        if k != "wall_s":
            assert np.array_equal(np.asarray(getattr(now, k)), np.asarray(getattr(records[i], k))), \
                f"stored field {k!r} of point {pts[i]} differs from a fresh run: remake the store (make bifurcation)"


def test_save_load_round_trip_and_key_mismatch(tmp_path):
    p = B.default_params()
    pts = B.sweep_points([12.0], 5e-4, [], 6.0)
    recs = B.run_sweep(p, pts, n_transient=1, n_samples=3)
    key = B.sweep_key(p, pts, 1, 3)
    path = B.save(tmp_path / "s.npz", key, recs, {"wall_s": 1.0})
    got, meta = B.load(path, key)
    assert meta["wall_s"] == 1.0
    assert all(np.array_equal(np.asarray(getattr(a, k)), np.asarray(getattr(b, k)))
               for a, b in zip(recs, got) for k in B.FIELDS)
    assert B.load(path, B.sweep_key(p, pts, 1, 4)) is None                  # other samples
    assert B.load(path, B.sweep_key(p, pts, 1, 3, rtol=1e-8)) is None       # other tolerance
    assert B.load(tmp_path / "none.npz") is None
    assert B.load_or_run(p, pts, 1, 3, path=path)[1].source == "stored"
    with pytest.raises(ParameterError, match=names("2", "records", "1", "sweep points")):
        B.save(tmp_path / "t.npz", key, recs * 2)


def test_sweep_points_reject_non_positive_values():
    with pytest.raises(ParameterError, match=names("frequency", "positive")):
        B.sweep_points([0.0], 5e-4, [1e-4], 6.0)
    with pytest.raises(ParameterError, match=names("clearances", "positive")):
        B.sweep_points([2.0], 5e-4, [-1e-4], 6.0)


def test_verdict_study_store_is_current():
    """Recompute the cheapest stored Poincaré run and the cheapest stored Lyapunov run (the DAE's tangent-linear
    exponents of the orbit study) of the verdict store.

    The Poincaré run must come back bitwise. The Lyapunov run is the integration error of hundreds of contact
    events summed: it moves with the last bits of the linear algebra, and OpenBLAS picks its kernels by CPU (the
    10 Hz / 0.5 mm run at rtol 1e-9 gives -4.1152 /s with OPENBLAS_CORETYPE=SkylakeX and -4.1800 /s with Haswell,
    measured 2026-12-06). So a fresh exponent must lie within the change its stored case shows when rtol is
    tightened tenfold -- the integration-error part that the chapter's uncertainty already counts (0.31 /s here) --
    and the run's shape (renormalisation interval, number of stretches) must be the stored one."""
    import json

    from robolib.core.params import DATA_DIR

    store = json.loads((DATA_DIR / B.STUDY_STORE).read_text())
    assert store["params"] == B._plain(B.default_params())
    runs = store["runs"]
    kinds = {r["job"][0] for r in runs}
    assert kinds == {"poincare", "lyapunov"} and len(runs) >= 28
    cost = lambda j: (j[4] + j[5]) / j[1] * (1e-9 / j[3]) ** 0.2  # noqa: E731
    for kind in ("poincare", "lyapunov"):
        run = min((r for r in runs if r["job"][0] == kind), key=lambda r: cost(r["job"]))
        key = B._stored_job_key(run["job"])
        job, seed = tuple(key[:8]), key[8]
        got, info = B.load_or_run_study(B.default_params(), [job], seed=seed, engine="dae")
        assert info.stored == 1
        now, was = B.study_run(job, B.default_params(), seed=seed, engine="dae"), got[job]
        if kind == "poincare":
            for k in (k for k in B.FIELDS if k != "wall_s"):
                assert np.array_equal(np.asarray(getattr(now, k), float), np.asarray(getattr(was, k), float)), \
                    f"stored {k!r} of {job} differs from a fresh run: remake the stores (make bifurcation)"
            continue
        tighter = (*job[:3], job[3] / TIGHTER, *job[4:])
        pair, info = B.load_or_run_study(B.default_params(), [tighter], seed=seed, engine="dae")
        assert info.stored == 1
        budget = abs(pair[tighter].exponent - was.exponent)
        assert 0.0 < budget < 0.1 * abs(was.exponent)                     # an integration error, not a new exponent
        assert now.tau == was.tau and np.shape(now.log_stretch) == np.shape(was.log_stretch)
        for k in ("exponent", "halves"):
            assert np.all(np.abs(np.subtract(getattr(now, k), getattr(was, k))) <= budget), \
                f"stored {k!r} of {job} differs from a fresh run by more than its tolerance change {budget:.3g} /s: " \
                f"remake the stores (make bifurcation)"


def test_study_store_serves_only_matching_runs(tmp_path, monkeypatch):
    p = B.default_params()
    job = ("poincare", 12.0, 0.5, 1e-6, 1, 3, None, 1.0)
    path = tmp_path / "runs.json"
    monkeypatch.setenv(B.STUDY_STORE_ENV, "1")
    first, info = B.load_or_run_study(p, [job], path=path)
    assert info == B.RunSources(0, 1, info.wall_s)
    monkeypatch.setenv(B.STUDY_STORE_ENV, "0")
    again, info = B.load_or_run_study(p, [job], path=path)
    assert info.stored == 1 and np.array_equal(again[job].samples, first[job].samples)
    other = job[:4] + (2,) + job[5:]
    assert B.load_or_run_study(p, [other], path=path)[1].computed == 1          # other settings: computed
    from robolib import gearshift as G
    p2 = G.with_changes(p, **{"gearbox.damping": 3.0})
    assert B.load_or_run_study(p2, [job], path=path)[1].computed == 1           # other parameters: computed
    with pytest.raises(ParameterError, match=names("job kind", "'orbit'")):
        B.study_run(("orbit",) + job[1:], p)


def test_command_rejects_zero_workers(capsys):
    with pytest.raises(SystemExit):
        B.main(["--workers", "0"])
    assert "--workers must be at least 1" in capsys.readouterr().err
