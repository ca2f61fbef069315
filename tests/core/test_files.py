"""Nothing half-written: every file robolib writes is complete or keeps its old content (robolib.core.files)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import numpy as np
import pytest
from fuzzing import entry_point_tests

# ---- properties on random valid inputs ---------------------------------------------------------------------
from hypothesis import strategies as st

from conftest import ROOT
from robolib.core import files, params

# ==== the file writers name a bad argument ==========================================================================

# ---- the entry points: (callable, valid keyword arguments, {argument: kind}) -------------------------
SCHEMA = {"mass": params.number(unit="kg", positive=True), "com": params.vector(2, unit="m")}


FLAG = st.sampled_from([None, 1, 0.0, "yes", "False"])          # a flag is True or False, nothing else


FIELD_UNIT = st.sampled_from([3.0, True, ["m"]])                 # a unit is text (or None)


OUT = Path(tempfile.mkdtemp(prefix="robolib-fuzz-files-"))       # the file rows write here


ENTRY_POINTS = {
    "files.atomic_write": (files.atomic_write, dict(path=OUT / "b.bin", write=lambda f: f.write(b"1"), binary=True),
                           {"path": st.sampled_from([None, "", 3.0, True, OUT]), "write": st.sampled_from([None, 3, "x"]),
                            "binary": st.sampled_from([None, 1, "yes"])}),
    "files.atomic_write_text": (files.atomic_write_text, dict(path=OUT / "a.txt", text="x"),
                                {"path": st.sampled_from([None, "", 3.0, True, OUT]),
                                 "text": st.sampled_from([None, 3.0, b"x", ["x"]])}),
}


test_every_valid_call_works, test_a_bad_argument_is_named = entry_point_tests(ENTRY_POINTS)



# ==== nothing half-written ==========================================================================================
#
# Nothing half-written: every file robolib writes is complete or keeps its old content.
#
# The stores of the clearance chapter, the claims JSON of a study and the benchmark record go
# through :mod:`robolib.core.files` (a temporary file beside the target, renamed into place).
# A writer killed in the middle leaves the old file; a writer that fails leaves no temporary file.

WRITER = textwrap.dedent("""
    import sys, time
    from robolib.core.files import atomic_write

    def slow(f):
        f.write(b"new, half")
        f.flush()
        print("writing", flush=True)
        time.sleep(60)
        f.write(b" and the rest")

    atomic_write(sys.argv[1], slow)
""")


def test_a_killed_writer_leaves_the_old_file(tmp_path):
    target = tmp_path / "store.json"
    target.write_text("old, whole")
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(target)], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert proc.stdout.readline().strip() == "writing"          # the new content is half on disk now
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert target.read_text() == "old, whole"
    leftovers = [p.name for p in tmp_path.iterdir() if p.name != "store.json"]
    assert all(n.startswith(".store.json.") and n.endswith(".tmp") for n in leftovers), leftovers


def test_a_failing_writer_keeps_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "claims.json"
    target.write_text("[]\n")

    def broken(f):
        f.write("[{\"id\": ")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError, match="disk full"):
        files.atomic_write(target, broken, binary=False)
    assert target.read_text() == "[]\n"
    assert [p.name for p in tmp_path.iterdir()] == ["claims.json"]


def test_written_files_are_readable_by_everyone(tmp_path):
    p = files.atomic_write_text(tmp_path / "sub" / "x.txt", "x")
    assert p.read_text() == "x" and (p.stat().st_mode & 0o777) == files.FILE_MODE


def test_the_writers_of_robolib_write_atomically(tmp_path, monkeypatch):
    """The sweep store, the claims JSON of a study and of a notebook: an interrupted rename keeps the old file."""
    from robolib import study
    from robolib.book import claims
    from robolib.gearshift import store

    key = {"points": [[1.0, 0.5]]}
    rec = store.PoincarePoint(**{k: np.zeros(3) for k in store.FIELDS})
    good = store.save(tmp_path / "sweep.npz", key, [rec])
    assert store.load(good, key) is not None
    reg = claims.ClaimsRegister("demo", glue=False)
    reg.claim("demo_a", "a", value=1, criterion="== 1", holds=True)
    res = study.StudyResult("demo", {}, reg)
    res.write_claims(tmp_path)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}

    def interrupted(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(files.os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        store.save(tmp_path / "sweep.npz", {"points": [[2.0, 0.5]]}, [rec])
    with pytest.raises(KeyboardInterrupt):
        res.write_claims(tmp_path)
    nb = tmp_path / "demo.ipynb"
    nb.write_text(json.dumps({"cells": [{"cell_type": "code", "outputs": [{"data": {claims.CLAIMS_MIME: {
        "study": "demo", "claims": [dict(reg.records()[0], id="demo_b")]}}}]}]}))
    with pytest.raises(KeyboardInterrupt):
        claims.extract(nb, tmp_path / "demo.claims.json")
    after = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.name != "demo.ipynb"}
    assert after == before
