"""The studies as functions (robolib.study): the registry, the command line, and agreement with the chapters."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys

import numpy as np
import pytest
from fuzzing import entry_point_tests, names
from hypothesis import assume
from hypothesis import strategies as st

from conftest import ROOT, STUDIES
from robolib import ParameterError, study
from robolib import study as S
from robolib.book.claims import count_line
from robolib.core import params
from robolib.core import params as P

# ==== the registry's entry points name a bad argument; a run refuses before any work ================================
#
# The study parameters fuzzed (issue 21, item 1): :class:`~robolib.core.params.Parameter`, its validation, the
# registry's entry points; and, over random ranges, that :func:`~robolib.core.params.validate_parameters`
# accepts every value inside a declared range and refuses every value outside it.
#
# Part 1: :class:`Parameter` (a default outside its own range, ``low > high``, an unknown kind, a choice
# without choices, a non-callable check), :meth:`Parameter.validate`, :func:`validate_parameters`,
# :func:`declare_parameters`, :func:`defaults`, :func:`parameters`, :func:`study_function`,
# :func:`check_names`, :func:`run` (refused before any work: an unknown study, an unknown parameter, a
# value outside the declared range), each with a valid call and the kind of each argument. Part 2:
# hypothesis over random bounds (open or closed) and random values, for numbers and integers; a bool for
# an integer, NaN or infinity for a number, a choice not in the choices, an extra list dimension, are
# refused whatever the range.

NAN, INF = float("nan"), float("inf")


class Kind:
    """An argument kind with its own strategy of bad values (drawn by the harness from ``bad``)."""

    def __init__(self, name, bad):
        self.name, self.bad = name, bad

    def __repr__(self):
        return self.name


NUMBER = P.Parameter(0.5, "a share", low=0.0, high=1.0, open_low=True)


INTEGER = P.Parameter(10, "samples", kind="integer", low=1, high=100)


CHOICE = P.Parameter("rk4", "method", kind="choice", choices=("rk4", "dopri5"))


SPEC = {"share": NUMBER, "n": INTEGER, "method": CHOICE, "flag": P.Parameter(True, "a switch", kind="boolean")}


BAD_SPEC = Kind("spec", st.sampled_from([None, [], "x", {"a": 1.0}, {1: NUMBER}]))


STUDY = Kind("study name", st.sampled_from(["nostudy", "", None, 1, ["prp3_roundtrip"], "PRP3_ROUNDTRIP"]))


def declare(spec):
    """:func:`declare_parameters` applied to a function whose defaults match ``SPEC``'s."""
    def fn(share=0.5, n=10, method="rk4", flag=True):
        return share
    return P.declare_parameters(spec)(fn)


def construct(**kw):
    return P.Parameter(**kw)


P_ARGS = dict(default=0.5, meaning="a share", unit="", kind="number", low=0.0, high=1.0, open_low=True,
              open_high=False, choices=(), allow_none=False, check=None, exclude=(), valid=None)


FLAG = Kind("flag", st.sampled_from([None, 1, "yes", 0.0]))


ENTRY_POINTS = {
    "Parameter(choice)": (construct, dict(default="a", meaning="m", kind="choice", choices=("a", "b")),
                          {"choices": Kind("choices", st.sampled_from([(), ("b", "c"), None])),
                           "default": Kind("default", st.sampled_from(["c", 1, True, ["a"], np.array(["a"])]))}),
    "study_function": (S.study_function, dict(name="prp3_roundtrip"), {"name": STUDY}),
    "defaults": (S.defaults, dict(name="prp3_roundtrip"), {"name": STUDY}),
    "parameters": (S.parameters, dict(name="prp3_roundtrip"), {"name": STUDY}),
    "check_names": (S.check_names, dict(name="prp3_roundtrip", params={"seed": 3}),
                    {"name": STUDY,
                     "params": Kind("params", st.sampled_from([None, [("seed", 3)], "seed=3", {1: 2}]))}),
}


test_every_valid_call_works, test_a_bad_argument_is_named = entry_point_tests(ENTRY_POINTS)


@pytest.mark.fuzz
@pytest.mark.parametrize("params, named", [({"nosuch": 1}, "nosuch"), ({"seed": -1}, "seed"),
                                           ({"seed": True}, "seed"), ({"quick": "yes"}, "quick")])
def test_run_refuses_before_any_work(params, named):
    """A bad value is named by the parameter's own name (check_names, then run)."""
    with pytest.raises(ParameterError, match=named):
        S.check_names("prp3_roundtrip", params)
    with pytest.raises(ParameterError, match=named):
        S.run("prp3_roundtrip", **params)


@pytest.mark.fuzz
def test_every_declared_default_is_valid():
    """The studies' declarations are consistent: each default passes its own validation (checked at import)."""
    for name in S.STUDIES:
        for pname, p in S.parameters(name).items():
            if p.default is not None or p.allow_none:
                p.validate(pname, p.default)


# ---- properties over random ranges --------------------------------------------------------------------------
BOUND = st.floats(-1e6, 1e6)


@st.composite
def number_ranges(draw):
    lo, hi = sorted((draw(BOUND), draw(BOUND)))
    assume(hi - lo > 1e-6 * (1 + abs(lo) + abs(hi)))
    open_low, open_high = draw(st.booleans()), draw(st.booleans())
    low = draw(st.sampled_from([lo, None]))
    high = draw(st.sampled_from([hi, None]))
    default = (lo + hi) / 2
    return P.Parameter(default, "x", low=low, high=high, open_low=open_low and low is not None,
                       open_high=open_high and high is not None)


def inside(p, v) -> bool:
    return ((p.low is None or v > p.low or (v == p.low and not p.open_low))
            and (p.high is None or v < p.high or (v == p.high and not p.open_high)))



# ==== the registry, the command line and agreement with the chapters ================================================
#
# The studies as functions: the registry, the command line, and agreement with the chapters.
#
# Each chapter's parameters cell declares exactly the study function's parameters (names and defaults);
# the study run from Python yields the claims the executed chapter lists; ``python -m robolib.study``
# writes the same claims JSON a book build writes and names the failing claims.

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
    return study.notebook_parameters(name, ROOT / "notebooks")


def test_every_chapter_is_a_registered_study():
    assert sorted(study.STUDIES) == STUDIES


@pytest.mark.parametrize("name", STUDIES)
def test_parameters_cell_declares_the_study_function(name):
    cell, declared = parameters_cell(name), study.defaults(name)
    assert list(cell) == list(declared), f"{name}: names or order differ"
    for key in cell:
        assert _plain(cell[key]) == _plain(declared[key]), f"{name}.{key}: cell {cell[key]!r}, function {declared[key]!r}"
    assert declared["quick"] is False


@pytest.mark.parametrize("name", STUDIES)
def test_make_book_accepts_every_chapter_as_committed(name):
    study.check_notebook_defaults(name, ROOT / "notebooks")


def test_a_parameters_cell_edited_in_jupyterlab_is_refused_naming_the_parameter(tmp_path):
    text = (ROOT / "notebooks" / "prp3_roundtrip.md").read_text()
    assert "\nquick = False" in text
    (tmp_path / "prp3_roundtrip.md").write_text(text.replace("\nquick = False", "\nquick = True", 1))
    with pytest.raises(ParameterError, match="quick") as err:
        study.check_notebook_defaults("prp3_roundtrip", tmp_path)
    assert "default is False" in str(err.value)
    assert S.main(["prp3_roundtrip", "--check-notebook"]) == 0
    assert S.main(["prp3", "--check-notebook"]) == 2                  # an unknown study is named, not a traceback
    with pytest.raises(ParameterError, match="no chapter source"):
        study.check_notebook_defaults("prp3_roundtrip", tmp_path / "elsewhere")


def test_unknown_names_are_errors_that_name_them():
    with pytest.raises(ParameterError, match=names("no study", "'prp3'", "clearance_dynamics", "prp3_roundtrip")):
        study.run("prp3")
    with pytest.raises(ParameterError, match=names("unknown parameter", "'n_sampels'", "'prp3_roundtrip'")):
        study.run("prp3_roundtrip", n_sampels=5)


def test_command_line_values_are_yaml(tmp_path):
    f = tmp_path / "p.yaml"
    f.write_text("seed: 3\nn_samples: 5000\n")
    name, params, args = study.parse_arguments(["clearance_dynamics", "-f", str(f), "-y", "verdict_cases: [[10.0, 0.5]]",
                                                "-p", "quick", "True", "-p", "seed", "7", "-p", "clearance_joint", "B1,C"])
    assert name == "clearance_dynamics" and not args.strict
    assert params == {"seed": 7, "n_samples": 5000, "verdict_cases": [[10.0, 0.5]], "quick": True, "clearance_joint": "B1,C"}
    f.write_text("- 1\n")
    with pytest.raises(ParameterError, match=names("p.yaml", "YAML mapping")):
        study.parse_arguments(["prp3_roundtrip", "-f", str(f)])


def test_numbers_written_1e_minus_8_are_numbers_at_any_depth_of_a_command_line_value(tmp_path):
    f = tmp_path / "p.yaml"
    f.write_text("convergence_rtols: [1e-8, 1e-10]\n")
    _, params, _ = study.parse_arguments(["clearance_dynamics", "-f", str(f), "-y", "case_rtols: [[1e-8, 1e-9]]",
                                          "-p", "freq_range", "[2, 1e1]"])
    assert params == {"convergence_rtols": [1e-8, 1e-10], "case_rtols": [[1e-8, 1e-9]], "freq_range": [2, 10.0]}


def _cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "robolib.study", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=900)


def test_command_line_writes_the_claims_json(tmp_path, quick_study):
    res = _cli("prp3_roundtrip", "-p", "quick", "True", "--out", str(tmp_path), cwd=tmp_path)
    assert res.returncode == 0, res.stderr[-2000:]
    written = json.loads((tmp_path / "prp3_roundtrip.claims.json").read_text())
    assert [c["id"] for c in written] == [c["id"] for c in quick_study("prp3_roundtrip").records()]
    assert f"prp3_roundtrip: {count_line({'holds': len(written)})}" in res.stdout


def demo_study(fail: bool = False, quick: bool = False, cases: tuple = (2, 3)):
    """A study for the command-line tests: ``fail=True`` breaks one claim; a case the prose cites that is not in
    ``cases`` is a claim not computed."""
    from robolib.book.claims import ClaimsRegister

    reg = ClaimsRegister("demo", glue=False)
    reg.claim("demo_one", "one is one", value=1, criterion="== 1", holds=True)
    reg.claim("demo_two", "two is small", value=3 if fail else 2, criterion="< 3", holds=not fail)
    if 3 not in cases:
        reg.claim_not_computed("demo_three", "three is odd", criterion="3 is one of the cases",
                               reason="3 is not in cases")
    return study.StudyResult("demo", {"fail": fail, "quick": quick, "cases": cases}, reg)


def test_command_line_lists_failing_claims_and_strict_fails(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(study.STUDIES, "demo", f"{__name__}:demo_study")
    assert study.main(["demo", "--out", str(tmp_path)]) == 0
    assert f"demo: {count_line({'holds': 2})}" in capsys.readouterr().out
    assert study.main(["demo", "-p", "fail", "True", "--out", str(tmp_path)]) == 0   # listed, not fatal
    out = capsys.readouterr().out
    assert f"demo: {count_line({'holds': 1, 'fails': 1})}" in out and "FAILS demo_two: two is small -- value 3, criterion < 3" in out
    assert study.main(["demo", "-p", "fail", "True", "--out", str(tmp_path), "--strict"]) == 1
    written = json.loads((tmp_path / "demo.claims.json").read_text())
    assert [(c["id"], c["holds"]) for c in written] == [("demo_one", True), ("demo_two", False)]
    assert not list(tmp_path.glob(".*.tmp")), "the temporary file is renamed into place"
    assert study.main(["demo", "-p", "fial", "True"]) == 2
    assert "unknown parameter(s) ['fial'] of study 'demo'" in capsys.readouterr().err


def test_command_line_counts_claims_not_computed_apart_and_does_not_fail_on_them(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(study.STUDIES, "demo", f"{__name__}:demo_study")
    assert study.main(["demo", "-y", "cases: [2]", "--out", str(tmp_path), "--strict"]) == 0
    out = capsys.readouterr().out
    assert f"demo: {count_line({'holds': 2, 'fails': 0, 'not computed': 1})}" in out
    listed = [line for line in out.splitlines() if "demo_three" in line]
    assert len(listed) == 1 and "3 is not in cases" in listed[0] and "FAILS" not in out
    written = json.loads((tmp_path / "demo.claims.json").read_text())
    assert [(c["id"], c["status"]) for c in written][-1] == ("demo_three", "not computed")
    assert study.main(["demo", "-y", "cases: [2]", "-p", "fail", "True", "--out", str(tmp_path), "--strict"]) == 1
    out = capsys.readouterr().out
    assert f"demo: {count_line({'holds': 1, 'fails': 1, 'not computed': 1})}" in out
    assert "FAILS demo_two" in out and "FAILS demo_three" not in out


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


def test_the_command_line_shows_a_study_s_stages_as_it_runs(tmp_path):
    """The command line logs each stage of a study as it starts, with the seconds since the start, in order (the
    cheapest study with stages: its quick run takes seconds)."""
    out = _cli("prp3_roundtrip", "-p", "quick", "True", "--out", str(tmp_path), cwd=tmp_path)
    stages = [line for line in out.stderr.splitlines() if line.startswith("prp3_roundtrip [")]
    seconds = [float(re.search(r"\[\s*([\d.]+) s\]", s)[1]) for s in stages]
    assert len(stages) >= 2 and "the paper's ten inputs" in stages[0] and "exercises and condition maps" in stages[-1]
    assert seconds == sorted(seconds)


@pytest.mark.parametrize("name", STUDIES)
def test_the_rerun_each_chapter_suggests_runs(name, tmp_path):
    """The parameters of a chapter's rerun instruction (``rerun_note``, on its evidence page) are accepted and the
    study runs with them (at quick settings; claims may change with parameters, the run must not fail)."""
    source = (ROOT / "book" / "evidence" / f"{name}.md").read_text()
    example = re.search(r'rerun_note\("%s", "([^"]*)"\)' % name, source).group(1)
    assert S.main([name, *shlex.split(example), "-p", "quick", "True", "--out", str(tmp_path)]) == 0
    assert (tmp_path / f"{name}.claims.json").is_file()
