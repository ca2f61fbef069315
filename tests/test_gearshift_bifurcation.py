"""The stored bifurcation sweep of the clearance chapter (robolib.gearshift.store).

* the store is current: a stored point recomputed now is identical (a change of
  the model or the integrator without ``make bifurcation`` fails here);
* there is one store per engine (``store.STORES``): the DAE's, and the fast model's that the default book reads
  (computing it would put ``make book`` over its budget); each key is the book's default request on its engine, so
  a run of the chapter on that engine takes it, and a request on the other engine is never served from it;
* save/load round trip; another request (other settings) is not served from the store.
"""

import numpy as np
import pytest

from robolib import ParameterError
from robolib.gearshift import store as B

#: Relative agreement of a fresh Lyapunov run with its stored copy (bitwise on one CPU, not across CPUs).
STORE_REL_TOL = 1e-12


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
    assert len(records) == len(B.DEFAULT_FREQUENCIES) + len(B.DEFAULT_CLEARANCES_MM) == 45 + 25
    assert np.max(np.diff(B.DEFAULT_FREQUENCIES)) <= 0.25 + 1e-12 and len(B.DEFAULT_CLEARANCES_MM) >= 25
    for r in records:
        assert r.samples.shape == (B.N_SAMPLES, 4) and np.all(np.isfinite(r.samples))
        assert r.period >= 0 and r.noise > 0 and r.wall_s > 0
    assert meta["wall_s"] > 0 and meta["workers"] >= 1 and meta["integration_s"] > 0


def test_stored_point_is_what_the_code_computes_now(stored):
    records, meta = stored
    pts = [tuple(p) for p in meta["key"]["points"]]
    i = max(range(len(pts)), key=lambda j: pts[j][0] if pts[j][1] == B.FREQ_SWEEP_CLEARANCE_MM else -1)  # 12 Hz
    key = meta["key"]
    now = B.run_sweep(B.default_params(), [pts[i]], key["n_transient"], key["n_samples"], key["rtol"], key["atol"],
                      engine=key["engine"])[0]
    for k in B.FIELDS:
        if k != "wall_s":
            assert np.array_equal(np.asarray(getattr(now, k)), np.asarray(getattr(records[i], k))), \
                f"stored field {k!r} of point {pts[i]} differs from a fresh run: remake the store (make bifurcation)"


def test_save_load_round_trip_and_key_mismatch(tmp_path):
    p = B.default_params()
    pts = B.sweep_points([12.0], 0.5, [], 6.0)
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
    with pytest.raises(ParameterError, match="2 records for 1 sweep points"):
        B.save(tmp_path / "t.npz", key, recs * 2)


def test_sweep_points_reject_non_positive_values():
    with pytest.raises(ParameterError, match="must be positive"):
        B.sweep_points([0.0], 0.5, [0.1], 6.0)
    with pytest.raises(ParameterError, match="c = -0.1 mm"):
        B.sweep_points([2.0], 0.5, [-0.1], 6.0)


def test_verdict_study_store_is_current():
    """Recompute the cheapest stored Poincaré run and the cheapest stored Lyapunov run of the verdict study."""
    import json

    from robolib.core.params import DATA_DIR

    store = json.loads((DATA_DIR / B.STUDY_STORE).read_text())
    assert store["params"] == B._plain(B.default_params())
    runs = store["runs"]
    kinds = {r["job"][0] for r in runs}
    assert kinds == {"poincare", "lyapunov"} and len(runs) >= 20
    cost = lambda j: (j[4] + j[5]) / j[1] * (1e-9 / j[3]) ** 0.2  # noqa: E731
    for kind in ("poincare", "lyapunov"):
        run = min((r for r in runs if r["job"][0] == kind), key=lambda r: cost(r["job"]))
        job, seed = tuple(run["job"][:-1]), run["job"][-1]
        got, info = B.load_or_run_study(B.default_params(), [job], seed=seed, engine="dae")
        assert info.stored == 1
        now = B.study_run(job, B.default_params(), seed=seed, engine="dae")
        if kind == "poincare":
            for k in B.FIELDS:
                if k != "wall_s":
                    assert np.array_equal(np.asarray(getattr(now, k)), np.asarray(getattr(got[job], k))), \
                        f"stored {k!r} of {job} differs from a fresh run: remake the stores (make bifurcation)"
        else:
            for k in B.LYAPUNOV_FIELDS:
                # the exponent is a sum over thousands of renormalisations: its last bits differ between CPUs
                # (seen: 4e-15 relative), a model change moves it by far more than STORE_REL_TOL
                assert np.allclose(np.asarray(getattr(now, k), float), np.asarray(getattr(got[job], k), float),
                                   rtol=STORE_REL_TOL, atol=0.0), \
                    f"stored {k!r} of {job} differs from a fresh run: remake the stores (make bifurcation)"


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
    with pytest.raises(ParameterError, match="job kind"):
        B.study_run(("orbit",) + job[1:], p)


def test_command_rejects_zero_workers(capsys):
    with pytest.raises(SystemExit):
        B.main(["--workers", "0"])
    assert "--workers must be at least 1" in capsys.readouterr().err
