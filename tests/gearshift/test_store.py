"""The stored bifurcation sweep of the clearance chapter (robolib.gearshift.store)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from fuzzing import names

from robolib import ParameterError
from robolib import gearshift as G
from robolib import nonlinear as N
from robolib.gearshift import store as B

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
    assert meta["key"] == B.json_plain(key)
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


def test_command_rejects_zero_workers(capsys):
    with pytest.raises(SystemExit):
        B.main(["--workers", "0"])
    assert "--workers must be at least 1" in capsys.readouterr().err
