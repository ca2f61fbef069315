"""The studies as functions: the registry, the command line, and agreement with the chapters.

Each chapter's parameters cell declares exactly the study function's parameters (names and defaults);
the study run from Python yields the claims the executed chapter lists; ``python -m robolib.study``
writes the same claims JSON a book build writes and names the failing claims.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys

import jupytext
import pytest

from conftest import ROOT, STUDIES
from robolib import ParameterError, study
from robolib.core import params

#: Studies whose claim values are the same in every run with the same parameters (no wall-clock times).
DETERMINISTIC = {"prp3_roundtrip", "redundant_derivation", "redundant_friction"}
#: Claims about measured wall-clock times: whether they hold depends on the machine's load at the moment
#: (make book runs the timing study alone), so two runs of the suite may differ on them.
WALL_CLOCK = ("stewart_c2_", "clearance_bif_cost")


def _plain(v):
    """Tuples as lists (a signature default may be a tuple where the cell has a list)."""
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v


def parameters_cell(name: str) -> dict:
    """The assignments of the notebook's ``parameters`` cell, as Python values."""
    nb = jupytext.read(ROOT / "notebooks" / f"{name}.md")
    cells = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(cells) == 1, f"{name}: {len(cells)} parameters cells"
    out = {}
    for node in ast.parse(cells[0].source).body:
        assert isinstance(node, ast.Assign) and len(node.targets) == 1, f"{name}: not a plain assignment"
        out[node.targets[0].id] = ast.literal_eval(node.value)
    return out


def test_every_chapter_is_a_registered_study():
    assert sorted(study.STUDIES) == STUDIES


@pytest.mark.parametrize("name", STUDIES)
def test_parameters_cell_declares_the_study_function(name):
    cell, declared = parameters_cell(name), study.defaults(name)
    assert list(cell) == list(declared), f"{name}: names or order differ"
    for key in cell:
        assert _plain(cell[key]) == _plain(declared[key]), f"{name}.{key}: cell {cell[key]!r}, function {declared[key]!r}"
    assert declared["quick"] is False


def test_unknown_names_are_errors_that_name_them():
    with pytest.raises(ParameterError, match=r"no study 'prp3'; studies: clearance_dynamics, prp3_roundtrip"):
        study.run("prp3")
    with pytest.raises(ParameterError, match=r"unknown parameter\(s\) \['n_sampels'\] of study 'prp3_roundtrip'"):
        study.run("prp3_roundtrip", n_sampels=5)


def test_command_line_values_are_yaml(tmp_path):
    f = tmp_path / "p.yaml"
    f.write_text("seed: 3\nn_samples: 5000\n")
    name, params, args = study.parse_arguments(["clearance_dynamics", "-f", str(f), "-y", "verdict_cases: [[10.0, 0.5]]",
                                                "-p", "quick", "True", "-p", "seed", "7", "-p", "clearance_joint", "B1,C"])
    assert name == "clearance_dynamics" and not args.strict
    assert params == {"seed": 7, "n_samples": 5000, "verdict_cases": [[10.0, 0.5]], "quick": True, "clearance_joint": "B1,C"}
    f.write_text("- 1\n")
    with pytest.raises(ParameterError, match="must hold a YAML mapping"):
        study.parse_arguments(["prp3_roundtrip", "-f", str(f)])


def _cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "robolib.study", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=900)


def test_command_line_writes_the_claims_json(tmp_path, quick_study):
    res = _cli("prp3_roundtrip", "-p", "quick", "True", "--out", str(tmp_path), cwd=tmp_path)
    assert res.returncode == 0, res.stderr[-2000:]
    written = json.loads((tmp_path / "prp3_roundtrip.claims.json").read_text())
    assert [c["id"] for c in written] == [c["id"] for c in quick_study("prp3_roundtrip").records()]
    assert f"prp3_roundtrip: {len(written)} claims, 0 failing" in res.stdout


def demo_study(fail: bool = False, quick: bool = False):
    """A two-claim study for the command-line tests: ``fail=True`` breaks one claim."""
    from robolib.book.claims import ClaimsRegister

    reg = ClaimsRegister("demo", glue=False)
    reg.claim("demo_one", "one is one", value=1, criterion="== 1", holds=True)
    reg.claim("demo_two", "two is small", value=3 if fail else 2, criterion="< 3", holds=not fail)
    return study.StudyResult("demo", {"fail": fail, "quick": quick}, reg)


def test_command_line_lists_failing_claims_and_strict_fails(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(study.STUDIES, "demo", f"{__name__}:demo_study")
    assert study.main(["demo", "--out", str(tmp_path)]) == 0
    assert "demo: 2 claims, 0 failing" in capsys.readouterr().out
    assert study.main(["demo", "-p", "fail", "True", "--out", str(tmp_path)]) == 0   # listed, not fatal
    out = capsys.readouterr().out
    assert "demo: 2 claims, 1 failing" in out and "FAILS demo_two: two is small -- value 3, criterion < 3" in out
    assert study.main(["demo", "-p", "fail", "True", "--out", str(tmp_path), "--strict"]) == 1
    written = json.loads((tmp_path / "demo.claims.json").read_text())
    assert [(c["id"], c["holds"]) for c in written] == [("demo_one", True), ("demo_two", False)]
    assert not list(tmp_path.glob(".*.tmp")), "the temporary file is renamed into place"
    assert study.main(["demo", "-p", "fial", "True"]) == 2
    assert "unknown parameter(s) ['fial'] of study 'demo'" in capsys.readouterr().err


def test_command_line_names_unknown_studies_and_parameters(tmp_path):
    bad = _cli("prp3_roundtrip", "-p", "quick", "True", "-p", "n_sampels", "5", cwd=tmp_path)
    assert bad.returncode == 2 and "unknown parameter(s) ['n_sampels']" in bad.stderr
    nostudy = _cli("prp4", cwd=tmp_path)
    assert nostudy.returncode == 2 and "no study 'prp4'" in nostudy.stderr


@pytest.mark.notebooks
@pytest.mark.parametrize("name", STUDIES)
def test_study_yields_the_chapters_claims(built_quick_book, quick_study, name):
    """The study run from Python at quick settings gives the claims of the chapter executed by papermill (the
    claims file is written by the book build, so the built quick book, not a stale copy of book/studies)."""
    book, failures, _ = built_quick_book
    assert name not in failures, failures.get(name)
    chapter = json.loads((book / "studies" / f"{name}.claims.json").read_text())
    here = json.loads(json.dumps(quick_study(name).records()))
    assert [c["id"] for c in here] == [c["id"] for c in chapter]
    timed = [c["id"].startswith(WALL_CLOCK) for c in chapter]
    assert [c["holds"] for c, t in zip(here, timed) if not t] == [c["holds"] for c, t in zip(chapter, timed) if not t]
    assert [c["statement"] for c in here] == [c["statement"] for c in chapter]
    if name in DETERMINISTIC:
        assert [c["value"] for c in here] == [c["value"] for c in chapter]


# ---- declared parameters: units, meanings, valid ranges ------------------------------------------------
POSITIVE = params.Parameter(0.1, "radial clearance", unit="mm", low=0.0, open_low=True, high=5.0)
COUNT = params.Parameter(60, "Poincare samples", kind="integer", low=8)


@pytest.mark.parametrize("bad", [0.0, -1e-9, 5.000001, float("nan"), float("inf"), -float("inf"), True, "0.1", None, [0.1]])
def test_a_positive_number_refuses_zero_nan_inf_bool_text_and_lists(bad):
    with pytest.raises(ParameterError, match=r"^c = .* is not valid: c must be a number in \(0, 5\] mm \(radial clearance\)$"):
        POSITIVE.validate("c", bad)


@pytest.mark.parametrize("good", [1e-12, 0.1, 5.0, 2])
def test_a_positive_number_accepts_its_range(good):
    POSITIVE.validate("c", good)


@pytest.mark.parametrize("bad", [7, 8.0, True, float("nan"), "60"])
def test_an_integer_refuses_floats_bools_and_small_values(bad):
    with pytest.raises(ParameterError, match=r"n must be an integer >= 8"):
        COUNT.validate("n", bad)


def test_other_kinds_and_none():
    params.Parameter(None, "mu", low=0.0, allow_none=True).validate("mu", None)
    with pytest.raises(ParameterError, match=r"law must be one of a, b"):
        params.Parameter("a", "law", kind="choice", choices=("a", "b")).validate("law", "c")
    with pytest.raises(ParameterError, match=r"quick must be True or False"):
        params.Parameter(False, "quick", kind="boolean").validate("quick", 1)
    with pytest.raises(ParameterError, match=r"data_file = 'nope/none.yaml' is not valid: parameter file"):
        params.Parameter("redundant/default.yaml", "robot", kind="file").validate("data_file", "nope/none.yaml")
    params.Parameter("redundant/default.yaml", "robot", kind="file").validate("data_file", "redundant/default.yaml")
    with pytest.raises(ParameterError, match="kind must be one of"):
        params.Parameter(1, "x", kind="float")


def test_declared_defaults_must_match_the_signature():
    spec = {"seed": params.Parameter(0, "seed", kind="integer", low=0)}
    with pytest.raises(ParameterError, match="differ from its parameter declarations"):
        params.declare_parameters(spec)(lambda seed=1: seed)
    f = params.declare_parameters(spec)(lambda seed=0: seed)
    assert f() == 0 and f(seed=4) == 4 and f.parameters is spec
    with pytest.raises(TypeError):
        f(sede=1)


def test_parameter_table_describes_declared_parameters():
    from robolib.book.notebook import parameter_table

    text = parameter_table(run={"c": 0.1, "seed": 7}, spec={"c": POSITIVE})
    assert "| `c` | 0.1 | mm: radial clearance (valid: a number in (0, 5] mm) |" in text
    assert "| `seed` | 7 | notebook parameter |" in text


def test_numpy_scalars_are_valid_parameters():
    """A researcher's loop over np.arange gives numpy scalars: they are numbers like any other."""
    import numpy as np

    COUNT.validate("n", np.int64(60))
    POSITIVE.validate("c", np.float64(0.2))
    params.Parameter(False, "quick", kind="boolean").validate("quick", np.bool_(True))
    with pytest.raises(ParameterError):
        COUNT.validate("n", np.bool_(True))


def test_excluded_values_and_stated_valid_values():
    jobs = params.Parameter(2, "processes", kind="integer", low=-1, exclude=(0,))
    assert jobs.valid_text() == "an integer >= -1, not 0"
    jobs.validate("n_jobs", -1)
    with pytest.raises(ParameterError, match=r"n_jobs = 0 is not valid: n_jobs must be an integer >= -1, not 0"):
        jobs.validate("n_jobs", 0)
    cases = params.Parameter([[1.0, 0.5]], "cases", kind="list", valid="a list of [frequency Hz, clearance mm]")
    assert cases.valid_text() == "a list of [frequency Hz, clearance mm]"
