"""The found page's verdicts are computed from the findings (robolib.book.sources), never typed."""

import pytest

from robolib import ParameterError
from robolib.book.sources import load_source, source_verdict, summary_rows

SEEDS = ("003", "000", "001", "004")


def test_every_source_claim_has_a_rule_whose_findings_exist_in_the_chapters():
    """Each quoted claim has a verdict rule, and every finding id a rule names is registered by some study (the ids
    are read from the chapters' study modules' source, so a renamed claim cannot leave a rule pointing at nothing)."""
    import pathlib

    text = "".join(p.read_text() for p in pathlib.Path("robolib").rglob("*.py"))
    for seed in SEEDS:
        src = load_source(seed)
        assert src["claims"]
        for sc in src["claims"]:
            rule = src["verdicts"][sc["id"]]
            assert rule["short"]
            for key in ("reproduced_if", "contradicted_if", "partly_if"):
                for fid in rule.get(key, []):
                    assert f'"{fid}' in text or f"'{fid}" in text or fid.rsplit("_", 1)[0] in text, fid
            for note in rule.get("notes", []):
                for fid in note.get("if", []):
                    assert fid.rsplit("_", 1)[0] in text, fid


def test_verdict_follows_the_findings():
    rule = {"reproduced_if": ["a"], "contradicted_if": ["b"],
            "notes": [{"text": "with a caveat", "if": ["c"]}, {"text": "never", "verdict": "not reproduced"}]}
    ok = {"a": {"holds": True}, "b": {"holds": False}, "c": {"holds": True}}
    assert source_verdict(rule, ok) == ("reproduced", "with a caveat", ["a"])
    assert source_verdict(rule, ok | {"c": {"holds": False}})[1] == ""          # the note's finding fails: no note
    assert source_verdict(rule, ok | {"b": {"holds": True}})[:2] == ("not reproduced", "never")
    assert source_verdict(rule, {"b": {"holds": False}})[:2] == ("undecided", "a not in this build")
    assert source_verdict(rule, ok | {"a": {"holds": False}})[:2] == ("undecided", "a fails")


def test_a_method_or_a_property_by_construction_is_not_called_reproduced():
    """A rule with ``holds_as`` names what holding findings mean for a method or a built-in property; its notes still
    follow the findings, and a contradicting finding still gives "not reproduced"."""
    rule = {"reproduced_if": ["a"], "contradicted_if": ["b"], "holds_as": "followed (a method, not a result)",
            "notes": [{"text": "built this way"}]}
    ok = {"a": {"holds": True}, "b": {"holds": False}}
    assert source_verdict(rule, ok)[:2] == ("followed (a method, not a result)", "built this way")
    assert source_verdict(rule, ok | {"b": {"holds": True}})[0] == "not reproduced"
    assert source_verdict(rule, ok | {"a": {"holds": False}})[0] == "undecided"
    with pytest.raises(ParameterError, match="holds_as"):
        source_verdict(rule | {"holds_as": 5}, ok)


def test_a_deciding_finding_not_computed_leaves_the_verdict_undecided_without_failing():
    rule = {"reproduced_if": ["a", "b"]}
    skipped = {"a": {"holds": True}, "b": {"holds": False, "status": "not computed"}}
    verdict, note, deciding = source_verdict(rule, skipped)
    assert (verdict, deciding) == ("undecided", ["a", "b"])
    assert "b" in note and "not computed" in note and "fails" not in note


def test_summary_rows_and_bad_rules():
    rows = summary_rows(["003"], {"prp3_symmetry": {"holds": True}})
    assert [r[0] for r in rows][:2] == ["003.c1", "003.c2"] and rows[0][1] == "3-PRP paper"
    by = {r[0]: r for r in rows}
    assert by["003.c4"][3].startswith("holds by construction") and by["003.c1"][3].startswith("undecided")
    assert by["003.c5"][3].startswith("not tested")
    with pytest.raises(ParameterError, match="reproduced_if"):
        source_verdict({"reproduced_if": "a"}, {})
    with pytest.raises(ParameterError, match="mapping"):
        source_verdict(["a"], {})


def test_a_claim_of_several_parts_some_of_which_appear_is_reproduced_in_part():
    """``partly_if``: a contradicted claim whose partial findings all hold is *reproduced in part*, and its notes
    follow that verdict; without them it stays *not reproduced*."""
    rule = {"contradicted_if": ["whole"], "partly_if": ["parts"], "notes": [{"text": "two of three", "if": ["parts"]}]}
    assert source_verdict(rule, {"whole": {"holds": True}, "parts": {"holds": True}})[:2] == (
        "reproduced in part", "two of three")
    assert source_verdict(rule, {"whole": {"holds": True}, "parts": {"holds": False}})[:2] == ("not reproduced", "")
    assert source_verdict(rule, {"whole": {"holds": False}, "parts": {"holds": True}})[0] == "undecided"
