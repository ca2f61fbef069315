"""The claims register: every finding a chapter states is computed and checked.

A study notebook states a result (a number, a comparison, a verdict such as
"period-2" or "not reproduced") by *registering* it: the statement, the
computed value(s), the criterion written *before* the result is known, and
whether the criterion holds. The prose cites the claim by its id with myst-nb's
``{glue:md}`` role; when a rerun with other parameters breaks a claim, the
glued text carries a visible warning instead of silently printing a false
sentence. The chapter ends with :meth:`ClaimsRegister.summary`, the table
"What this chapter found", which also embeds a machine-readable copy that
:func:`extract` turns into ``<study>.claims.json``.

>>> reg = ClaimsRegister("demo", source="003", glue=False)
>>> c = reg.claim("demo_err", "the round-trip error stays below 1e-9 mm",
...               value=3.2e-11, criterion="max error < 1e-9 mm", holds=3.2e-11 < 1e-9,
...               text="3.2e-11 mm")
>>> link = c.markdown()  # a link to the claim's row on the evidence page of study "demo"
>>> c.holds, link.startswith('<a class="robolib-claim"'), "demo.html#claim-demo_err" in link, link.endswith(">3.2e-11 mm</a>")
(True, True, True, True)
>>> bad = reg.claim("demo_slope", "the error grows like distance^-1/2", value=-1.4,
...                 criterion="|slope + 0.5| < 0.1", holds=False, text="-1.4")
>>> bad.markdown()  # doctest: +ELLIPSIS
'-1.4 **⚠ claim `demo_slope` does not hold in this run** ...'
>>> [d["id"] for d in reg.records()], reg.failing()
(['demo_err', 'demo_slope'], ['demo_slope'])

A claim about a case the run did not compute (a case the prose cites that is not among the run's parameters) is
registered as *not computed*, with the reason: it neither holds nor fails, and is counted apart.

>>> skip = reg.claim_not_computed("demo_case", "the error at 6 Hz", criterion="6 Hz is one of the run's cases",
...                               reason="the case is not in this run's cases")
>>> skip.status, skip.holds, skip.reason
('not computed', False, "the case is not in this run's cases")
>>> reg.failing(), reg.not_computed(), reg.counts()
(['demo_slope'], ['demo_case'], {'holds': 1, 'fails': 1, 'not computed': 1})
"""

from __future__ import annotations

import html
import json
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from robolib.book.text import minus_signs
from robolib.core.errors import ParameterError, ParameterFileError
from robolib.core.files import atomic_write_text

#: MIME type of the machine-readable register embedded in an executed notebook.
CLAIMS_MIME = "application/vnd.robolib.claims+json"

#: Marks of the summary table.
HOLDS_MARK, FAILS_MARK, NOT_COMPUTED_MARK = "✓", "✗", "○"
#: The statuses of a claim: its criterion holds, it fails, or the run did not compute what it is about.
HOLDS, FAILS, NOT_COMPUTED = "holds", "fails", "not computed"
STATUSES = (HOLDS, FAILS, NOT_COMPUTED)
#: Fields of a claim's JSON record, and those that must be non-empty text. ``status`` is one of :data:`STATUSES`
#: (``holds`` is True exactly when it is "holds"); a record written before statuses existed has no ``status``,
#: and :func:`record_status` reads it from ``holds``.
RECORD_FIELDS = ("id", "statement", "value", "criterion", "holds", "text", "answers", "source", "study", "status")
_OPTIONAL_FIELDS = ("status",)
_TEXT_FIELDS = ("id", "statement", "criterion")


def record_status(record: dict) -> str:
    """The status of a claim record (:data:`STATUSES`); a record without ``status`` holds or fails by ``holds``.

    >>> record_status({"holds": False}), record_status({"holds": False, "status": "not computed"})
    ('fails', 'not computed')
    """
    status = record.get("status")
    return status if status is not None else (HOLDS if record["holds"] else FAILS)


def status_mark(status: str) -> str:
    """The table cell of a status: the mark, with the word for a claim that does not hold.

    >>> [status_mark(s) for s in STATUSES]
    ['✓', '**✗ fails**', '○ not computed']
    """
    return {HOLDS: HOLDS_MARK, FAILS: f"**{FAILS_MARK} fails**", NOT_COMPUTED: f"{NOT_COMPUTED_MARK} not computed"}[status]


def _claim_id(name: str, value) -> str:
    """A claim id: non-empty letters, digits, '_', '-' or '.'; else ParameterError naming ``name``."""
    if not isinstance(value, str) or not value or not all(ch.isalnum() or ch in "_-." for ch in value):
        raise ParameterError(f"claim {name} {value!r} must be non-empty letters, digits, '_', '-' or '.'")
    return value


def _text(name: str, value, optional: bool = False) -> str | None:
    if optional and value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ParameterError(f"{name} must be a non-empty text{' or None' if optional else ''}, got {value!r:.60}")
    return value


def _boolean(name: str, value) -> bool:
    """True or False (numpy booleans too, a 0-d boolean array); anything else is ParameterError naming ``name``."""
    if isinstance(value, (bool, np.bool_)) or (isinstance(value, np.ndarray) and value.shape == ()
                                               and value.dtype == bool):
        return bool(value)
    raise ParameterError(f"{name} must be a boolean (True or False, computed from the criterion), got "
                         f"{value!r:.60} ({type(value).__name__})")


def _jsonable(value: Any) -> Any:
    """``value`` with numpy scalars/arrays, tuples and non-finite floats made JSON-safe."""
    if isinstance(value, np.ndarray):
        return [_jsonable(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return str(value)


def _default_text(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3g}"
    if isinstance(value, (list, tuple)):
        return ", ".join(_default_text(v) for v in value)
    return str(value)


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def claims_table(headers, rows) -> str:
    """A left-aligned Markdown table whose cells may contain ``|``.

    >>> print(claims_table(["a", "b"], [["|x| < 1", "✓"]]))
    | a | b |
    |:---|:---|
    | \\|x\\| < 1 | ✓ |
    """
    lines = ["| " + " | ".join(map(_cell, headers)) + " |", "|" + ":---|" * len(headers)]
    lines += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


@dataclass
class Claim:
    """One registered finding.

    ``statement`` is the finding in words, as the default run states it;
    ``criterion`` the test, written before the result; ``holds`` whether the
    run's values pass it; ``text`` how the value reads inside a sentence;
    ``answers`` optionally the id of the source document's claim it tests
    (e.g. ``"004.c1"``); ``status`` one of :data:`STATUSES` (default: "holds" or
    "fails" by ``holds``): a "not computed" claim is about something the run did not
    compute, its ``text`` the reason, and never holds.
    """

    id: str
    statement: str
    value: Any
    criterion: str
    holds: bool
    text: str
    answers: str | None = None
    source: str | None = None
    study: str | None = None
    status: str | None = None

    def __post_init__(self):
        if self.status is None:
            self.status = HOLDS if self.holds else FAILS
        if self.status not in STATUSES or (self.status == HOLDS) != bool(self.holds):
            raise ParameterError(f"claim {self.id!r}: status must be one of {list(STATUSES)}, 'holds' exactly "
                                 f"when holds is True; got status {self.status!r} with holds={self.holds!r}")

    @property
    def reason(self) -> str | None:
        """Why a "not computed" claim was not computed (its ``text``); None for a computed claim."""
        return self.text if self.status == NOT_COMPUTED else None

    def _ipython_display_(self):
        """Show nothing when a cell ends with ``claims.claim(...)``: the prose cites the claim."""

    def markdown(self) -> str:
        """Inline Markdown for the prose: the value, marked as a checked claim (a link to its row on the chapter's
        evidence page, its criterion as the link's title; class ``robolib-claim``, which the book's CSS marks), or
        with a visible warning if the claim fails or is not computed."""
        if self.holds:
            return claim_link(self.id, self.study, self.text, f"checked claim {self.id}: {self.criterion}")
        if self.status == NOT_COMPUTED:
            return (f"**⚠ not computed in this run** (claim `{self.id}`: {self.text}; see the table at the end of "
                    f"the chapter)")
        return (f"{self.text} **⚠ claim `{self.id}` does not hold in this run** "
                f"(criterion: {self.criterion}; see the table at the end of the chapter)")

    def record(self) -> dict:
        """The JSON record ``{id, statement, value, criterion, holds, ..., status}``."""
        return {"id": self.id, "statement": self.statement, "value": _jsonable(self.value),
                "criterion": self.criterion, "holds": bool(self.holds), "text": self.text,
                "answers": self.answers, "source": self.source, "study": self.study, "status": self.status}


def claim_anchor(claim_id: str) -> str:
    """The HTML id of claim ``claim_id``'s row in a claims table."""
    return f"claim-{claim_id}"


def claim_link(claim_id: str, study: str | None, text: str, title: str) -> str:
    """``text`` as a link to claim ``claim_id``'s row on the evidence page of ``study`` (a page one folder deep, as
    the chapters and evidence pages are), with ``title`` as its tooltip.

    >>> claim_link("x", "demo", "1 mm", "checked claim x: < 2 mm")
    '<a class="robolib-claim" href="../evidence/demo.html#claim-x" title="checked claim x: &lt; 2 mm">1 mm</a>'
    """
    href = f"../evidence/{study}.html#{claim_anchor(claim_id)}" if study else f"#{claim_anchor(claim_id)}"
    return f'<a class="robolib-claim" href="{href}" title="{html.escape(title, quote=True)}">{minus_signs(text)}</a>'


@dataclass
class ClaimsRegister:
    """The findings of one study, in the order the chapter states them.

    ``study`` is the notebook's name (``prp3_roundtrip``), ``source`` the seed
    document it studies (``"003"``). With ``glue=True`` (the default, inside a
    notebook) every claim is glued under its id as Markdown, so the prose cites
    it as ``{glue:md}`claim_id```. ``quick=True`` marks a quick run (the chapter's ``quick`` parameter: short
    runs, small samples), whose table says that a claim it misses is checked by the full run.
    """

    study: str
    source: str | None = None
    glue: bool = True
    quick: bool = False
    claims: dict = field(default_factory=dict)
    #: ids of the claims registered with ``method=True``: checks of how the run was made (its sampling, that it
    #: recorded its cost), listed after the findings in their own table.
    methods: set = field(default_factory=set)

    def claim(self, id: str, statement: str, *, value: Any, criterion: str, holds: Any,
              text: str | None = None, answers: str | None = None, method: bool = False) -> Claim:
        """Register a finding and return it (glued under ``id`` for the prose).

        ``method=True``: the claim checks the run's own method rather than stating a finding (its
        :meth:`table_markdown` row goes to a second table).

        ``holds`` is a boolean (numpy booleans too); a NaN value never holds. Ids are unique within a study.
        """
        ok = bool(holds)
        if isinstance(value, (float, np.floating)) and math.isnan(value):
            ok = False
        return self._add(Claim(id, statement, value, criterion, ok, _default_text(value) if text is None else str(text),
                               answers=answers, source=self.source, study=self.study), method)

    def claim_not_computed(self, id: str, statement: str, *, criterion: str, reason: str,
                           answers: str | None = None, method: bool = False) -> Claim:
        """Register a claim about something this run did not compute (a case the prose cites that is not among the
        run's cases, a part a quick run skips): status "not computed", no value, ``reason`` as its text. It
        neither holds nor fails: :meth:`failing` leaves it out, :meth:`not_computed` lists it, the prose citing it
        and the table say it is not computed.
        """
        reason = _text("reason", reason)
        return self._add(Claim(id, statement, None, criterion, False, reason, answers=answers, source=self.source,
                               study=self.study, status=NOT_COMPUTED), method)

    def _add(self, c: Claim, method: bool) -> Claim:
        """Register ``c`` (ids are unique), glued under its id with ``glue=True``."""
        if c.id in self.claims:
            raise ParameterError(f"claim id {c.id!r} is registered twice in study {self.study!r}")
        self.claims[c.id] = c
        if method:
            self.methods.add(c.id)
        if self.glue:
            from IPython.display import Markdown
            from myst_nb import glue

            glue(c.id, Markdown(c.markdown()), display=False)
        return c

    def __getitem__(self, id: str) -> Claim:
        return self.claims[id]

    def records(self) -> list[dict]:
        """The register as a list of JSON records."""
        return [c.record() for c in self.claims.values()]

    def failing(self) -> list[str]:
        """Ids of the claims that fail (a claim the run did not compute is not among them: :meth:`not_computed`)."""
        return [c.id for c in self.claims.values() if c.status == FAILS]

    def not_computed(self) -> list[str]:
        """Ids of the claims about what this run did not compute (:meth:`claim_not_computed`)."""
        return [c.id for c in self.claims.values() if c.status == NOT_COMPUTED]

    def counts(self) -> dict:
        """The number of claims of each status, ``{"holds": a, "fails": b, "not computed": c}``."""
        return {st: sum(c.status == st for c in self.claims.values()) for st in STATUSES}

    def table_markdown(self) -> str:
        """The table "What this chapter found" (claim, value, criterion, holds); the ``method`` claims follow in a
        second table, checks of the run itself.

        >>> reg = ClaimsRegister("demo", glue=False)
        >>> _ = reg.claim("a", "a finding", value=1, criterion="c", holds=True)
        >>> _ = reg.claim("m", "the run sampled enough", value=2, criterion="c", holds=True, method=True)
        >>> "a finding" in reg.table_markdown().partition("Checks of the run's method")[0]
        True
        >>> "sampled enough" in reg.table_markdown().partition("Checks of the run's method")[2]
        True
        """
        def row(c):
            return [f'<span id="{claim_anchor(c.id)}"></span>{c.statement}', c.text, c.criterion, status_mark(c.status)]

        found = [row(c) for c in self.claims.values() if c.id not in self.methods]
        method = [row(c) for c in self.claims.values() if c.id in self.methods]
        head = ""
        bad = self.failing()
        if bad and self.quick:
            head = (f"**This is a quick run** (`quick = True`: short runs and small samples, for trying the chapter "
                    f"and for tests). {len(bad)} of {len(self.claims)} claims do not hold in this run "
                    f"({', '.join(bad)}): the reduced settings can be the cause, and so can any parameter you changed; "
                    f"the full run (`quick = False`, as the book is built) checks every claim "
                    f"at the chapter's settings.\n\n")
        elif bad:
            head = (f"**⚠ {len(bad)} of {len(self.claims)} claims do not hold with this run's parameters** "
                    f"({', '.join(bad)}): the sentences citing them are marked.\n\n")
        skipped = self.not_computed()
        if skipped:
            head += (f"**{len(skipped)} of {len(self.claims)} claims are not computed in this run** "
                     f"({', '.join(skipped)}): they are about cases or parts of the study this run's parameters "
                     f"leave out (marked {NOT_COMPUTED_MARK}, neither holding nor failing); the sentences citing "
                     f"them say so.\n\n")
        out = head + claims_table(["claim", "value", "criterion", "holds"], found)
        if method:
            out += ("\n\n**Checks of the run's method** (how the results were made, not findings):\n\n"
                    + claims_table(["check", "value", "criterion", "holds"], method))
        return out

    def summary(self):
        """Display the table and embed the machine-readable register (last cell of a study)."""
        from IPython.display import display

        bundle = {"text/markdown": self.table_markdown(), "text/plain": self.table_markdown(),
                  CLAIMS_MIME: {"study": self.study, "source": self.source, "claims": self.records()}}
        display(bundle, raw=True)


def check_records(records, where: str = "records") -> list[dict]:
    """A list of claim records (:meth:`Claim.record`), checked: the fields of :data:`RECORD_FIELDS` (``status``
    may be missing, in a record written before it existed), non-empty text ids, statements and criteria,
    boolean ``holds``, a ``status`` of :data:`STATUSES` that agrees with ``holds``, unique ids; else
    ParameterError naming ``where``.

    >>> check_records([{"id": "a", "statement": "s", "value": 1, "criterion": "c", "holds": "yes", "text": "1",
    ...                 "answers": None, "source": None, "study": "demo"}])
    Traceback (most recent call last):
        ...
    robolib.ParameterError: records[0] (a): holds must be a boolean (True or False, computed from the criterion), got 'yes' (str)
    """
    if not isinstance(records, list):
        raise ParameterError(f"{where} must be a list of claim records, got {type(records).__name__}")
    seen = set()
    for k, rec in enumerate(records):
        at = f"{where}[{k}]"
        if (not isinstance(rec, dict) or not set(rec) <= set(RECORD_FIELDS)
                or not set(RECORD_FIELDS) - set(_OPTIONAL_FIELDS) <= set(rec)):
            got = sorted(rec) if isinstance(rec, dict) else type(rec).__name__
            raise ParameterError(f"{at} must be a record with the fields {list(RECORD_FIELDS)} ({', '.join(_OPTIONAL_FIELDS)} "
                                 f"optional), got {got}")
        _claim_id(f"{at}: id", rec["id"])
        at = f"{at} ({rec['id']})"
        for key in _TEXT_FIELDS[1:]:
            _text(f"{at}: {key}", rec[key])
        if not isinstance(rec["text"], str):
            raise ParameterError(f"{at}: text must be a text, got {rec['text']!r:.60}")
        holds = _boolean(f"{at}: holds", rec["holds"])
        status = rec.get("status", HOLDS if holds else FAILS)
        if status not in STATUSES or (status == HOLDS) != holds:
            raise ParameterError(f"{at}: status must be one of {list(STATUSES)}, 'holds' exactly when holds is true; "
                                 f"got status {status!r:.60} with holds {holds}")
        for key in ("answers", "source", "study"):
            _text(f"{at}: {key}", rec[key], optional=True)
        if rec["id"] in seen:
            raise ParameterError(f"{at}: the id is registered twice")
        seen.add(rec["id"])
    return records


def write_claims(records, path: str | Path) -> Path:
    """Write claim records as ``<study>.claims.json`` (a temporary file renamed into place); return the path."""
    return atomic_write_text(Path(path), json.dumps(records, indent=1, ensure_ascii=False) + "\n")


def _read_json(path: Path, what: str, kind: str):
    """The JSON in ``path``; ParameterFileError starting with ``what`` when it is missing or not ``kind``."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ParameterFileError(f"{what} not found") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ParameterFileError(f"{what} cannot be read as {kind}: {exc}") from None


def from_notebook(nb: dict) -> dict | None:
    """The register embedded in an executed notebook (parsed ``.ipynb`` JSON), or None."""
    for cell in nb.get("cells", []):
        for out in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            data = out.get("data", {})
            if CLAIMS_MIME in data:
                reg = data[CLAIMS_MIME]
                return json.loads(reg) if isinstance(reg, str) else reg
    return None


def extract(ipynb: str | Path, out: str | Path | None = None) -> list[dict]:
    """Write ``<study>.claims.json`` next to an executed notebook; return the claims.

    Raises :class:`robolib.ParameterError` if the notebook has no register
    (a study must end with ``claims.summary()``).
    """
    ipynb = Path(ipynb)
    nb = _read_json(ipynb, f"ipynb: notebook {ipynb}", "a notebook")
    if not isinstance(nb, dict):
        raise ParameterFileError(f"ipynb: {ipynb} is not a notebook (its JSON is a {type(nb).__name__})")
    reg = from_notebook(nb)
    if reg is None:
        raise ParameterError(f"{ipynb}: no claims register in the executed notebook (missing claims.summary()?)")
    out = Path(out) if out else ipynb.with_suffix(".claims.json")
    write_claims(check_records(reg["claims"], f"{ipynb}: claims"), out)
    return reg["claims"]


def count_line(counts: dict) -> str:
    """``"N claims: a hold, b fail, c not computed"`` from the number of claims by status
    (:meth:`ClaimsRegister.counts`).

    >>> count_line({"holds": 17, "fails": 2, "not computed": 25})
    '44 claims: 17 hold, 2 fail, 25 not computed'
    """
    n = {st: counts.get(st, 0) for st in STATUSES}
    return f"{sum(n.values())} claims: {n[HOLDS]} hold, {n[FAILS]} fail, {n[NOT_COMPUTED]} not computed"


def main(argv: Iterable[str] | None = None) -> int:
    """``python -m robolib.book.claims [--strict] NB.ipynb ...``: write the claims JSON of each notebook.

    Prints each notebook's counts (``N claims: a hold, b fail, c not computed``) and the claims that fail or are
    not computed. With ``--strict`` (the default runs of ``make book``) exit 1 if a claim fails *or* is not computed:
    the book's default run computes every case its prose cites, so a claim it did not compute is a chapter citing
    a result it does not have.
    """

    args = list(sys.argv[1:] if argv is None else argv)
    strict = "--strict" in args
    paths = [a for a in args if a != "--strict"]
    status = 0
    for p in paths:
        claims = extract(p)
        bad = [c for c in claims if record_status(c) == FAILS]
        skipped = [c for c in claims if record_status(c) == NOT_COMPUTED]
        print(f"{p}: {count_line({st: sum(record_status(c) == st for c in claims) for st in STATUSES})}")
        for c in bad:
            print(f"  FAILS {c['id']}: {c['statement']} -- value {c['text']}, criterion {c['criterion']}")
        for c in skipped:
            print(f"  NOT COMPUTED {c['id']}: {c['statement']} -- {c['text']}")
        if strict and skipped:
            print(f"  {len(skipped)} claim(s) the chapter cites are not computed by its default run: the book "
                  "build computes every claim it cites")
        if strict and (bad or skipped):
            status = 1
    return status


__all__ = ["Claim", "ClaimsRegister", "CLAIMS_MIME", "extract", "from_notebook", "check_records",
           "write_claims", "claims_table", "HOLDS", "FAILS", "NOT_COMPUTED", "STATUSES", "record_status", "status_mark",
           "count_line"]

if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
