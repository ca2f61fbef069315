"""robolib.book.result: what a study returns, and what it glues for the prose."""

import myst_nb

from robolib.book.claims import ClaimsRegister
from robolib.book.result import StudyResult, run_time_text


def glued(monkeypatch, res):
    """The keys and values ``res.glue()`` hands to myst-nb."""
    out = {}
    monkeypatch.setattr(myst_nb, "glue", lambda key, value, display=True: out.__setitem__(key, value))
    res.glue()
    return out


def test_a_run_time_is_in_seconds_below_two_minutes_then_in_minutes_with_the_cores():
    assert run_time_text(119.4, cores=2) == "119 s on 2 CPU cores"
    assert run_time_text(120.0, cores=1) == "2.0 min on 1 CPU core"


def test_the_wall_time_is_glued_under_the_studys_name(monkeypatch):
    res = StudyResult("demo", {}, ClaimsRegister("demo", glue=False), values={"n": "3"}, wall_s=300.0)
    out = glued(monkeypatch, res)
    assert out["n"] == "3" and out["demo_run_time"].startswith("5.0 min on ")


def test_a_result_without_a_wall_time_glues_none(monkeypatch):
    res = StudyResult("demo", {}, ClaimsRegister("demo", glue=False))
    assert "demo_run_time" not in glued(monkeypatch, res)
