"""The claims register (robolib.book.claims): marks in the prose, ids, records, the claims JSON."""

from __future__ import annotations

import json
import math
import re
import tempfile
from pathlib import Path

import numpy as np
import pytest
from fuzzing import budget, entry_point_tests, names
from hypothesis import given
from hypothesis import strategies as st

from robolib import ParameterError, ParameterFileError
from robolib.book import claims as C
from robolib.book.claims import FAILS, FAILS_MARK, HOLDS, NOT_COMPUTED, ClaimsRegister, extract, from_notebook, main

# ==== the claims register: marks, ids, records, the claims JSON =====================================================
#
# The claims register, the parameter tables and the Explore panel helper (robolib.book.claims, robolib.book.notebook).

def _reg():
    return ClaimsRegister("demo", source="003", glue=False)


def test_a_failing_claim_is_marked_where_the_prose_cites_it():
    reg = _reg()
    ok = reg.claim("ok", "error below 1e-9", value=np.float64(1e-11), criterion="< 1e-9", holds=np.bool_(True),
                   text="1e-11 mm")
    bad = reg.claim("bad", "slope -1/2", value=-1.4, criterion="|s + 0.5| < 0.1", holds=False)
    assert ok.markdown().endswith(">1e-11 mm</a>") and 'class="robolib-claim"' in ok.markdown()  # marked as checked
    assert "⚠" in bad.markdown() and "bad" in bad.markdown() and "|s + 0.5| < 0.1" in bad.markdown()
    assert reg.failing() == ["bad"]
    table = reg.table_markdown()
    assert "1 of 2 claims do not hold" in table and "✗ fails" in table and "✓" in table
    assert "\\|s + 0.5\\|" in table, "a '|' in a criterion must not split the table cell"


def test_a_quick_run_says_that_the_claims_it_misses_are_checked_by_the_full_run():
    reg = ClaimsRegister("demo", source="003", glue=False, quick=True)
    reg.claim("ok", "error below 1e-9", value=1e-11, criterion="< 1e-9", holds=True)
    reg.claim("bad", "slope -1/2", value=-1.4, criterion="|s + 0.5| < 0.1", holds=False)
    head = reg.table_markdown().partition("|")[0]
    assert "quick run" in head and "(bad)" in head and "full run" in head
    assert "⚠" not in head
    assert "quick run" not in _reg().table_markdown()


def _with_a_case_not_computed(reg):
    """``reg`` with a claim that holds, one that fails and one about a case the run did not compute."""
    reg.claim("ok", "error below 1e-9", value=1e-11, criterion="< 1e-9", holds=True)
    reg.claim("bad", "slope -1/2", value=-1.4, criterion="|s + 0.5| < 0.1", holds=False)
    return reg.claim_not_computed("at6", "the verdict at 6 Hz", criterion="6 Hz is one of the run's cases",
                                  reason="the case is not in verdict_cases")


def test_a_claim_not_computed_is_counted_apart_from_the_failing_ones():
    reg = _reg()
    skip = _with_a_case_not_computed(reg)
    assert (skip.status, skip.holds, skip.value, skip.reason) == (NOT_COMPUTED, False, None,
                                                                  "the case is not in verdict_cases")
    assert (reg["ok"].status, reg["bad"].status, reg["ok"].reason, reg["bad"].reason) == (HOLDS, FAILS, None, None)
    assert reg.failing() == ["bad"] and reg.not_computed() == ["at6"]
    assert reg.counts() == {HOLDS: 1, FAILS: 1, NOT_COMPUTED: 1}
    rec = reg.records()[2]
    assert (rec["status"], rec["holds"], rec["text"]) == (NOT_COMPUTED, False, "the case is not in verdict_cases")
    with pytest.raises(ParameterError, match="reason"):
        reg.claim_not_computed("at2", "the verdict at 2 Hz", criterion="2 Hz is run", reason=" ")
    with pytest.raises(ParameterError, match="registered twice"):
        reg.claim_not_computed("bad", "again", criterion="c", reason="r")
    with pytest.raises(ParameterError, match="status"):
        C.Claim("x", "s", 1, "c", True, "1", status=NOT_COMPUTED)     # a claim not computed never holds


def test_the_prose_citing_a_claim_not_computed_says_so_and_never_reads_as_a_pass():
    skip = _with_a_case_not_computed(_reg())
    cited = skip.markdown()
    assert cited != skip.text and "⚠" in cited and "at6" in cited and skip.reason in cited
    assert "criterion" not in cited, "it is not a failed criterion"


def test_the_table_marks_a_claim_not_computed_apart_from_the_failing_ones():
    for quick in (False, True):
        reg = ClaimsRegister("demo", glue=False, quick=quick)
        _with_a_case_not_computed(reg)
        table = reg.table_markdown()
        head, _, body = table.partition("| claim |")
        rows = {line.split(" | ")[0].strip("| "): line.rstrip(" |").rsplit(" | ", 1)[1] for line in body.splitlines()[2:]}
        anchored = {re.sub(r'^<span id="claim-[a-z0-9_]+"></span>', "", k) for k in rows}   # each row is a link target
        assert len(anchored) == len(rows) and all(k.startswith('<span id="claim-') for k in rows)
        rows = {re.sub(r'^<span id="claim-[a-z0-9_]+"></span>', "", k): v for k, v in rows.items()}
        assert rows == {"error below 1e-9": C.status_mark(HOLDS), "slope -1/2": C.status_mark(FAILS),
                        "the verdict at 6 Hz": C.status_mark(NOT_COMPUTED)}
        assert FAILS_MARK not in rows["the verdict at 6 Hz"] and C.NOT_COMPUTED_MARK in rows["the verdict at 6 Hz"]
        assert "(bad)" in head and "(at6)" in head, "the failing and the uncomputed claims are named apart"
        assert "1 of 3" in head and "at6" not in head.partition("(bad)")[0]


def test_nan_never_holds_and_ids_are_unique():
    reg = _reg()
    assert not reg.claim("n", "finite", value=float("nan"), criterion="finite", holds=True).holds
    with pytest.raises(ParameterError, match="registered twice"):
        reg.claim("n", "again", value=1, criterion="x", holds=True)


def test_records_are_json_with_the_required_keys():
    reg = _reg()
    reg.claim("v", "vector", value=np.array([1.0, np.inf]), criterion="c", holds=True)
    reg.claim("k", "ten", value=10, criterion="== 10", holds=True, answers="003.c1")
    recs = json.loads(json.dumps(reg.records()))
    assert [r["id"] for r in recs] == ["v", "k"]
    for r in recs:
        assert {"id", "statement", "value", "criterion", "holds"} <= set(r)
    assert recs[0]["value"] == [1.0, "inf"] and recs[1]["answers"] == "003.c1" and recs[1]["source"] == "003"


def _notebook_with(reg):
    from robolib.book.claims import CLAIMS_MIME

    return {"cells": [{"cell_type": "markdown", "source": "x"},
                      {"cell_type": "code", "outputs": [{"output_type": "display_data", "data": {
                          "text/markdown": reg.table_markdown(),
                          CLAIMS_MIME: {"study": reg.study, "source": reg.source, "claims": reg.records()}}}]}]}


def test_extract_writes_the_claims_json_and_strict_mode_fails_on_a_false_claim(tmp_path, capsys):
    reg = _reg()
    reg.claim("a", "holds", value=1, criterion="c", holds=True)
    nb = tmp_path / "demo.ipynb"
    nb.write_text(json.dumps(_notebook_with(reg)))
    assert main([str(nb), "--strict"]) == 0
    assert json.loads((tmp_path / "demo.claims.json").read_text())[0]["id"] == "a"
    reg.claim("b", "fails", value=2, criterion="c", holds=False)
    nb.write_text(json.dumps(_notebook_with(reg)))
    assert main([str(nb)]) == 0, "a rerun with other parameters reports, does not fail"
    assert main([str(nb), "--strict"]) == 1
    assert "FAILS b" in capsys.readouterr().out
    empty = tmp_path / "empty.ipynb"
    empty.write_text(json.dumps({"cells": []}))
    assert from_notebook(json.loads(empty.read_text())) is None
    with pytest.raises(ParameterError, match="no claims register"):
        extract(empty)



def test_the_book_build_fails_on_a_claim_its_default_run_did_not_compute(tmp_path, capsys):
    """make book (``--strict``) stops on a claim not computed as on a failing one: the book's default run computes
    every case its prose cites. Without ``--strict`` it is listed apart from the failing ones."""
    reg = _reg()
    reg.claim("a", "holds", value=1, criterion="c", holds=True)
    reg.claim_not_computed("b", "at 6 Hz", criterion="6 Hz is run", reason="not in verdict_cases")
    nb = tmp_path / "demo.ipynb"
    nb.write_text(json.dumps(_notebook_with(reg)))
    assert main([str(nb)]) == 0
    out = capsys.readouterr().out
    assert C.count_line({HOLDS: 1, FAILS: 0, NOT_COMPUTED: 1}) in out and "FAILS" not in out
    assert "b: at 6 Hz" in out and "not in verdict_cases" in out
    assert main([str(nb), "--strict"]) == 1
    assert [(r["id"], r["status"]) for r in json.loads((tmp_path / "demo.claims.json").read_text())] == [
        ("a", HOLDS), ("b", NOT_COMPUTED)]


def test_a_record_written_before_statuses_still_loads():
    old = {k: v for k, v in REC.items() if k != "status"}
    assert C.check_records([old, {**old, "id": "c2", "holds": False}]) == [old, {**old, "id": "c2", "holds": False}]
    assert [C.record_status(r) for r in (old, {**old, "holds": False})] == [HOLDS, FAILS]
    for bad in ({**REC, "status": "maybe"}, {**REC, "status": NOT_COMPUTED}, {**REC, "holds": False}):
        with pytest.raises(ParameterError, match=names("records[0]", "status")):
            C.check_records([bad])


# ==== every entry point of the register names a bad argument; the JSON round trip ===================================
#
# The claims register fuzzed (issue 21, item 1), and the round trip of its JSON.
#
# Part 1: :func:`check_records` and :func:`extract` (the register read from an executed notebook, a file), with a
# valid call and the kind of each argument (tests/fuzzing.py): a malformed record, a missing or non-notebook file
# must raise a :class:`robolib.RobolibError` that names the argument. The register's own methods trust the chapter
# code that calls them. Part 2: random registers written to ``.claims.json`` and checked back give the same records
# (and a NaN value never holds); a truncated notebook is named.

pytestmark = pytest.mark.fuzz  # make fuzz: -m fuzz with a larger budget


class Kind:
    """An argument kind with its own strategy of bad values (drawn by the harness from ``bad``)."""

    def __init__(self, name, bad):
        self.name, self.bad = name, bad

    def __repr__(self):
        return self.name


REC = dict(id="c1", statement="one is one", value=1, criterion="== 1", holds=True, text="1", answers=None,
           source=None, study="demo", status="holds")


RECORDS = Kind("records", st.sampled_from([None, "x", {}, [REC, REC], [{**REC, "holds": "yes"}], [{"id": "c1"}],
                                           [{**REC, "criterion": ""}], [{**REC, "extra": 1}], [1.0],
                                           [{**REC, "status": "maybe"}], [{**REC, "status": "not computed"}]]))


TMP = Path(tempfile.mkdtemp(prefix="fuzz_claims_"))


NB = {"cells": [{"cell_type": "code", "outputs": [{"data": {C.CLAIMS_MIME: {"study": "demo", "source": None,
                                                                            "claims": [REC]}}}]}]}


(TMP / "demo.ipynb").write_text(json.dumps(NB))


C.write_claims([REC], TMP / "valid.claims.json")


ENTRY_POINTS = {
    "check_records": (C.check_records, dict(records=[REC]), {"records": RECORDS}),
    "extract": (C.extract, dict(ipynb=TMP / "demo.ipynb", out=TMP / "demo.claims.json"),
                {"ipynb": Kind("ipynb", st.sampled_from([TMP / "nowhere.ipynb", TMP / "valid.claims.json"]))}),
}


test_every_valid_call_works, test_a_bad_argument_is_named = entry_point_tests(ENTRY_POINTS)


@pytest.mark.fuzz
def test_a_truncated_notebook_is_named(tmp_path):
    text = (TMP / "demo.ipynb").read_text()
    (tmp_path / "x.ipynb").write_text(text[: len(text) // 2])
    with pytest.raises(ParameterFileError, match=names("x.ipynb", "cannot be read")):
        C.extract(tmp_path / "x.ipynb")


# ---- round trip -------------------------------------------------------------------------------------------------
IDS = st.text(alphabet="abcdefghij0123456789_-.", min_size=1, max_size=8)


VALUES = st.one_of(st.none(), st.booleans(), st.integers(-10 ** 6, 10 ** 6), st.floats(allow_nan=True),
                   st.text(max_size=10), st.lists(st.floats(-1e6, 1e6), max_size=4))


WORDS = st.text(min_size=1, max_size=30).filter(lambda t: t.strip())


@pytest.mark.fuzz
@budget(30)
@given(rows=st.lists(st.tuples(IDS, WORDS, VALUES, WORDS, st.sampled_from([True, False, None])), max_size=8,
                     unique_by=lambda r: r[0]))
def test_claims_json_round_trip(rows):
    """``holds`` None in ``rows``: a claim not computed, whose reason is the criterion's text."""
    reg = C.ClaimsRegister("demo", source="003", glue=False)
    for cid, statement, value, criterion, holds in rows:
        if holds is None:
            c = reg.claim_not_computed(cid, statement, criterion=criterion, reason=criterion)
            continue
        c = reg.claim(cid, statement, value=value, criterion=criterion, holds=holds)
        if isinstance(value, float) and math.isnan(value):
            assert not c.holds                       # a NaN value never holds
    with tempfile.TemporaryDirectory() as tmp:
        path = C.write_claims(reg.records(), Path(tmp) / "demo.claims.json")
        back = C.check_records(json.loads(path.read_text()))
    assert back == json.loads(json.dumps(reg.records()))
    assert [r["id"] for r in back] == [r[0] for r in rows]
    assert [r["holds"] for r in back] == [c.holds for c in reg.claims.values()]
    assert sorted(r["id"] for r in back if C.record_status(r) == FAILS) == sorted(reg.failing())
    assert [(r["status"], r["text"]) for r in back if not r["holds"] and r["status"] != FAILS] == [
        (NOT_COMPUTED, criterion) for _, _, _, criterion, holds in rows if holds is None]
