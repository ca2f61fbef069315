"""The sources' own claims and the verdict the workbench's findings give each (the book's "What the workbench found").

``data/sources/<seed>.yaml`` quotes each claim of a seed document (``claims``) and states, under ``verdicts``,
how the registered findings decide it, before any run:

- ``reproduced_if``: findings that must all hold for *reproduced*;
- ``contradicted_if``: findings any of which, holding, makes it *not reproduced*;
- ``partly_if``: findings that, all holding beside a holding ``contradicted_if``, make it *reproduced in part*
  (a claim of several parts, some of which appear);
- neither: *not tested* (``untested`` says why);
- ``holds_as``: the words that replace *reproduced* when the claim is a method the workbench followed or a property
  its reconstruction has by construction, so that holding findings are not read as a reproduced result;
- ``notes``: ``{text, verdict, if}`` items, each shown only with that verdict (default: reproduced if the rule
  has ``reproduced_if``, else the verdict its contradicting findings give, not reproduced or reproduced in part) and when every finding in ``if`` (default: the deciding ones) holds, so a rerun that changes a finding cannot leave a stale note.

Anything else (a deciding finding fails or is missing from the build) is *undecided*, with the findings named.

>>> rule = {"reproduced_if": ["a", "b"]}
>>> source_verdict(rule, {"a": {"holds": True}, "b": {"holds": True}})[0]
'reproduced'
>>> source_verdict(rule, {"a": {"holds": True}, "b": {"holds": False}})[:2]
('undecided', 'b fails')
>>> source_verdict(rule, {"a": {"holds": True}, "b": {"holds": False, "status": "not computed"}})[:2]
('undecided', 'b not computed')
>>> source_verdict({"contradicted_if": ["c"]}, {"c": {"holds": True}})[0]
'not reproduced'
>>> source_verdict({"contradicted_if": ["c"], "partly_if": ["d"]}, {"c": {"holds": True}, "d": {"holds": True}})[0]
'reproduced in part'
>>> source_verdict({"untested": "no data"}, {})[:2]
('not tested', 'no data')
>>> source_verdict({"reproduced_if": ["a"], "holds_as": "holds by construction"}, {"a": {"holds": True}})[0]
'holds by construction'
"""

from __future__ import annotations

from pathlib import Path

import yaml

from robolib.book.claims import NOT_COMPUTED, record_status
from robolib.core.errors import ParameterError
from robolib.core.params import DATA_DIR


def _ids(rule: dict, key: str) -> list:
    v = rule.get(key, [])
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise ParameterError(f"{key} must be a list of finding ids, got {v!r}")
    return v


def source_verdict(rule: dict, findings: dict) -> tuple[str, str, list]:
    """``(verdict, note, deciding ids)`` of one source claim from its ``rule`` and the findings by id
    (``{id: {"holds": bool, ...}}``, the claims JSON records of the build)."""
    if not isinstance(rule, dict):
        raise ParameterError(f"a verdict rule must be a mapping, got {rule!r}")
    rep, con, part = _ids(rule, "reproduced_if"), _ids(rule, "contradicted_if"), _ids(rule, "partly_if")
    holds = {i: bool(findings[i]["holds"]) for i in rep + con + part if i in findings}
    missing = [i for i in rep + con if i not in findings]
    if any(holds.get(i) for i in con) and part and all(holds.get(i) for i in part):
        verdict, deciding = "reproduced in part", con + part
    elif any(holds.get(i) for i in con):
        verdict, deciding = "not reproduced", con
    elif rep and all(holds.get(i) for i in rep):
        verdict, deciding = "reproduced", rep
    elif not rep and not con:
        return "not tested", str(rule.get("untested", "")), []
    else:
        failing = [i for i in rep if i in holds and not holds[i] and record_status(findings[i]) != NOT_COMPUTED]
        skipped = [i for i in rep + con if i in findings and record_status(findings[i]) == NOT_COMPUTED]
        parts = ([", ".join(failing) + " fails"] if failing else []) + ([", ".join(skipped) + " not computed"]
                                                                      if skipped else []) + (
            [", ".join(missing) + " not in this build"] if missing else [])
        return "undecided", "; ".join(parts) or "no deciding finding holds", rep + con
    notes, default = [], ("reproduced" if rep else "reproduced in part" if verdict == "reproduced in part"
                          else "not reproduced")
    for n in rule.get("notes", []):
        if n.get("verdict", default) == verdict and all(holds.get(i, bool(findings.get(i, {}).get("holds")))
                                                        for i in n.get("if", deciding)):
            notes.append(str(n["text"]))
    if verdict == "reproduced" and "holds_as" in rule:
        if not isinstance(rule["holds_as"], str) or not rule["holds_as"].strip():
            raise ParameterError(f"holds_as must be the words of the verdict (a non-empty string), got {rule['holds_as']!r}")
        verdict = rule["holds_as"]
    return verdict, "; ".join(notes), deciding


def load_source(seed: str, data_dir: str | Path | None = None) -> dict:
    """The parsed ``data/sources/<seed>.yaml`` (``claims``, ``verdicts``), or empty lists without a file."""


    f = Path(data_dir or DATA_DIR) / "sources" / f"{seed}.yaml"
    if not f.is_file():
        return {"claims": [], "verdicts": {}}
    d = yaml.safe_load(f.read_text()) or {}
    return {"claims": d.get("claims", []), "verdicts": d.get("verdicts", {}) or {}, "title": d.get("title", seed)}


def summary_rows(seeds, findings: dict, data_dir=None) -> list:
    """One row per source claim of ``seeds``: ``[id, title (first claim of a seed), short, verdict text, deciding
    finding ids]``. Every source is tested on the workbench's reconstruction of it (the seeds lost their
    formulas, data and figures), so a verdict that decides reads "reproduced on our reconstruction" or "not
    reproduced on our reconstruction"."""
    rows = []
    for seed in seeds:
        src = load_source(seed, data_dir)
        for j, sc in enumerate(src["claims"]):
            rule = src["verdicts"].get(sc["id"], {})
            verdict, note, ids = source_verdict(rule, findings)
            said = f"{verdict} on our reconstruction" if verdict in ("reproduced", "not reproduced", "reproduced in part") else verdict
            rows.append([sc["id"], src["title"] if j == 0 else "", rule.get("short", ""),
                         said + (f": {note}" if note else ""), ids])
    return rows


__all__ = ["source_verdict", "load_source", "summary_rows"]
