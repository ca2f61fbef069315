"""The claims register fuzzed (issue 21, item 1), and the round trip of its JSON.

Part 1: :class:`~robolib.book.claims.ClaimsRegister` (construction, :meth:`claim`, :meth:`check`),
:class:`~robolib.book.claims.Claim`, :func:`claims_table`, :func:`check_records`, :func:`write_claims`,
:func:`read_claims`, :func:`from_notebook` and :func:`extract`, with a valid call and the kind of each
argument (tests/fuzzing.py): a claim without criterion, a duplicate id, a non-boolean ``holds`` (a
number, a text, None, an array), a malformed record must raise a :class:`robolib.RobolibError` that
names the argument. Part 2: random registers written to ``.claims.json`` and read back give the same
records (and a NaN value never holds); a truncated or non-JSON claims file is named.
"""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path

import numpy as np
import pytest
from fuzzing import budget, entry_point_tests
from hypothesis import given
from hypothesis import strategies as st

from robolib import ParameterError, ParameterFileError
from robolib.book import claims as C

pytestmark = pytest.mark.fuzz  # make fuzz: -m fuzz with a larger budget

NAN = float("nan")


class Kind:
    """An argument kind with its own strategy of bad values (drawn by the harness from ``bad``)."""

    def __init__(self, name, bad):
        self.name, self.bad = name, bad

    def __repr__(self):
        return self.name


TEXT = Kind("text", st.sampled_from([None, "", "   ", 1.0, True, ["x"], b"x"]))
OPTIONAL_TEXT = Kind("optional text", st.sampled_from(["", 1.0, True, ["x"]]))
ID = Kind("claim id", st.sampled_from([None, "", "a b", "a|b", 1, True, ["a"], "taken"]))
HOLDS = Kind("holds", st.sampled_from([None, 1, 0, 1.0, "yes", "False", np.array([True, False]), [True], NAN]))
FLAG = Kind("flag", st.sampled_from([None, 1, "yes", 1.5]))
PATH = Kind("path", st.sampled_from([None, 1.0, True, "", ["a.json"]]))
REC = dict(id="c1", statement="one is one", value=1, criterion="== 1", holds=True, text="1", answers=None,
           source=None, study="demo")
RECORDS = Kind("records", st.sampled_from([None, "x", {}, [REC, REC], [{**REC, "holds": "yes"}], [{"id": "c1"}],
                                           [{**REC, "criterion": ""}], [{**REC, "extra": 1}], [1.0]]))
TMP = Path(tempfile.mkdtemp(prefix="fuzz_claims_"))
NB = {"cells": [{"cell_type": "code", "outputs": [{"data": {C.CLAIMS_MIME: {"study": "demo", "source": None,
                                                                            "claims": [REC]}}}]}]}
(TMP / "demo.ipynb").write_text(json.dumps(NB))
C.write_claims([REC], TMP / "valid.claims.json")


def register():
    reg = C.ClaimsRegister("demo", glue=False)
    reg.claim("taken", "a first claim", value=1, criterion="== 1", holds=True)
    return reg


def claim(**kw):
    return register().claim(**kw)


def check(**kw):
    return register().check(**kw)


CLAIM_ARGS = dict(id="c2", statement="the error is small", value=1e-12, criterion="< 1e-9", holds=True,
                  text="1e-12", answers="003.c1")
ENTRY_POINTS = {
    "ClaimsRegister": (C.ClaimsRegister, dict(study="demo", source="003", glue=False),
                       {"study": TEXT, "source": OPTIONAL_TEXT, "glue": FLAG}),
    "ClaimsRegister.claim": (claim, CLAIM_ARGS, {"id": ID, "statement": TEXT, "criterion": TEXT, "holds": HOLDS,
                                                 "text": Kind("text", st.sampled_from([1.0, True, ["x"]])),
                                                 "answers": Kind("answers", st.sampled_from(
                                                     ["", "a b", 1, True]))}),
    "ClaimsRegister.check": (check, dict(id="c3", statement="ten rows", value=10, criterion="n == 10",
                                         test=lambda n: n == 10),
                             {"id": ID, "statement": TEXT, "criterion": TEXT,
                              "test": Kind("test", st.sampled_from([None, 1.0, "n == 10", lambda n: "yes",
                                                                    lambda n: None, lambda n: 1]))}),
    "Claim": (C.Claim, dict(id="c4", statement="s", value=1, criterion="c", holds=True, text="1"),
              {"id": Kind("claim id", st.sampled_from([None, "", "a b", 1, True])), "statement": TEXT,
               "criterion": TEXT, "holds": HOLDS,
               "text": Kind("text", st.sampled_from([None, 1.0, True]))}),
    "claims_table": (C.claims_table, dict(headers=["a", "b"], rows=[["x", "y"]]),
                     {"headers": Kind("headers", st.sampled_from([None, "ab", [], 1.0])),
                      "rows": Kind("rows", st.sampled_from([None, "x", [["x"]], [["x", "y", "z"]], ["xy"], [1.0]]))}),
    "check_records": (C.check_records, dict(records=[REC]), {"records": RECORDS}),
    "write_claims": (C.write_claims, dict(records=[REC], path=TMP / "w.claims.json"),
                     {"records": RECORDS, "path": PATH}),
    "read_claims": (C.read_claims, dict(path=TMP / "valid.claims.json"),
                    {"path": Kind("path", st.sampled_from([None, 1.0, True, "", TMP / "missing.json",
                                                           TMP / "demo.ipynb"]))}),
    "from_notebook": (C.from_notebook, dict(nb=NB), {"nb": Kind("nb", st.sampled_from([None, "x", [], 1.0]))}),
    "extract": (C.extract, dict(ipynb=TMP / "demo.ipynb", out=TMP / "demo.claims.json"),
                {"ipynb": Kind("ipynb", st.sampled_from([None, 1.0, "", TMP / "nowhere.ipynb",
                                                         TMP / "valid.claims.json"])),
                 "out": Kind("out", st.sampled_from([1.0, True, ""]))}),
}

test_every_valid_call_works, test_a_bad_argument_is_named = entry_point_tests(ENTRY_POINTS)


def test_the_table_covers_the_public_functions():
    public = {n for n in C.__all__ if callable(getattr(C, n))}
    assert public - {"CLAIMS_MIME"} == {e for e in ENTRY_POINTS if "." not in e}


def test_duplicate_ids_and_a_missing_criterion_are_named():
    reg = register()
    with pytest.raises(ParameterError, match="registered twice"):
        reg.claim("taken", "again", value=2, criterion="== 2", holds=True)
    with pytest.raises(ParameterError, match="criterion"):
        reg.claim("c9", "no test", value=2, criterion="", holds=True)
    with pytest.raises(ParameterError, match="holds"):
        reg.claim("c9", "an int is not a verdict", value=2, criterion="== 2", holds=1)
    assert reg.claim("c9", "numpy verdicts are booleans", value=2, criterion="== 2", holds=np.bool_(True)).holds


def test_a_truncated_claims_file_is_named(tmp_path):
    good = C.write_claims([REC], tmp_path / "x.claims.json")
    text = good.read_text()
    good.write_text(text[: len(text) // 2])
    with pytest.raises(ParameterFileError, match="x.claims.json.*cannot be read"):
        C.read_claims(good)


# ---- round trip -------------------------------------------------------------------------------------------------
IDS = st.text(alphabet="abcdefghij0123456789_-.", min_size=1, max_size=8)
VALUES = st.one_of(st.none(), st.booleans(), st.integers(-10 ** 6, 10 ** 6), st.floats(allow_nan=True),
                   st.text(max_size=10), st.lists(st.floats(-1e6, 1e6), max_size=4))
WORDS = st.text(min_size=1, max_size=30).filter(lambda t: t.strip())


@budget(30)
@given(rows=st.lists(st.tuples(IDS, WORDS, VALUES, WORDS, st.booleans()), max_size=8, unique_by=lambda r: r[0]))
def test_claims_json_round_trip(rows):
    reg = C.ClaimsRegister("demo", source="003", glue=False)
    for cid, statement, value, criterion, holds in rows:
        c = reg.claim(cid, statement, value=value, criterion=criterion, holds=holds)
        if isinstance(value, float) and math.isnan(value):
            assert not c.holds                       # a NaN value never holds
    with tempfile.TemporaryDirectory() as tmp:
        path = C.write_claims(reg.records(), Path(tmp) / "demo.claims.json")
        back = C.read_claims(path)
    assert back == json.loads(json.dumps(reg.records()))
    assert [r["id"] for r in back] == [r[0] for r in rows]
    assert [r["holds"] for r in back] == [c.holds for c in reg.claims.values()]
    assert sorted(r["id"] for r in back if not r["holds"]) == sorted(reg.failing())
