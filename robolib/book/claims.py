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
>>> c.holds, c.markdown()
(True, '3.2e-11 mm')
>>> bad = reg.claim("demo_slope", "the error grows like distance^-1/2", value=-1.4,
...                 criterion="|slope + 0.5| < 0.1", holds=False, text="-1.4")
>>> bad.markdown()  # doctest: +ELLIPSIS
'-1.4 **⚠ claim `demo_slope` does not hold in this run** ...'
>>> [d["id"] for d in reg.records()], reg.failing()
(['demo_err', 'demo_slope'], ['demo_slope'])
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from ..core.errors import ParameterError
from ..core.files import atomic_write_text

#: MIME type of the machine-readable register embedded in an executed notebook.
CLAIMS_MIME = "application/vnd.robolib.claims+json"

#: Marks of the summary table.
HOLDS_MARK, FAILS_MARK = "✓", "✗"


def _jsonable(value: Any) -> Any:
    """``value`` with numpy scalars/arrays, tuples and non-finite floats made JSON-safe."""
    try:
        import numpy as np
    except ImportError:  # pragma: no cover - numpy is a dependency
        np = None
    if np is not None and isinstance(value, np.ndarray):
        return [_jsonable(v) for v in value.tolist()]
    if np is not None and isinstance(value, np.generic):
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
    (e.g. ``"004.c1"``).
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

    def _ipython_display_(self):
        """Show nothing when a cell ends with ``claims.claim(...)``: the prose cites the claim."""

    def markdown(self) -> str:
        """Inline Markdown for the prose: the value, with a visible warning if the claim fails."""
        if self.holds:
            return self.text
        return (f"{self.text} **⚠ claim `{self.id}` does not hold in this run** "
                f"(criterion: {self.criterion}; see the table at the end of the chapter)")

    def record(self) -> dict:
        """The JSON record ``{id, statement, value, criterion, holds, ...}``."""
        return {"id": self.id, "statement": self.statement, "value": _jsonable(self.value),
                "criterion": self.criterion, "holds": bool(self.holds), "text": self.text,
                "answers": self.answers, "source": self.source, "study": self.study}


@dataclass
class ClaimsRegister:
    """The findings of one study, in the order the chapter states them.

    ``study`` is the notebook's name (``prp3_roundtrip``), ``source`` the seed
    document it studies (``"003"``). With ``glue=True`` (the default, inside a
    notebook) every claim is glued under its id as Markdown, so the prose cites
    it as ``{glue:md}`claim_id```.
    """

    study: str
    source: str | None = None
    glue: bool = True
    claims: dict = field(default_factory=dict)

    def claim(self, id: str, statement: str, *, value: Any, criterion: str, holds: Any,
              text: str | None = None, answers: str | None = None) -> Claim:
        """Register a finding and return it (glued under ``id`` for the prose).

        ``holds`` must be a boolean (numpy booleans are accepted); a NaN value
        never holds. Ids are unique within a study.
        """
        if not id or not all(ch.isalnum() or ch in "_-." for ch in id):
            raise ParameterError(f"claim id {id!r} must be non-empty letters, digits, '_', '-' or '.'")
        if id in self.claims:
            raise ParameterError(f"claim id {id!r} is registered twice in study {self.study!r}")
        if not statement or not criterion:
            raise ParameterError(f"claim {id!r} needs both a statement and a criterion")
        if holds is None:
            raise ParameterError(f"claim {id!r}: holds is None; compute it from the criterion (True or False)")
        try:
            ok = bool(holds)
        except (TypeError, ValueError):
            raise ParameterError(f"claim {id!r}: holds must be a boolean, got {holds!r}") from None
        if isinstance(value, float) and math.isnan(value):
            ok = False
        c = Claim(id, statement, value, criterion, ok, _default_text(value) if text is None else str(text),
                  answers=answers, source=self.source, study=self.study)
        self.claims[id] = c
        if self.glue:
            from IPython.display import Markdown
            from myst_nb import glue

            glue(id, Markdown(c.markdown()), display=False)
        return c

    def check(self, id: str, statement: str, value: Any, criterion: str, test, **kwargs) -> Claim:
        """Like :meth:`claim`, with ``holds = test(value)``.

        >>> reg = ClaimsRegister("demo", glue=False)
        >>> reg.check("n", "ten rows", 10, "n == 10", lambda n: n == 10).holds
        True
        """
        return self.claim(id, statement, value=value, criterion=criterion, holds=test(value), **kwargs)

    def __getitem__(self, id: str) -> Claim:
        return self.claims[id]

    def records(self) -> list[dict]:
        """The register as a list of JSON records."""
        return [c.record() for c in self.claims.values()]

    def failing(self) -> list[str]:
        """Ids of the claims that do not hold."""
        return [c.id for c in self.claims.values() if not c.holds]

    def table_markdown(self) -> str:
        """The table "What this chapter found" (claim, value, criterion, holds)."""
        rows = [[c.statement, c.text, c.criterion, HOLDS_MARK if c.holds else f"**{FAILS_MARK} fails**"]
                for c in self.claims.values()]
        head = ""
        bad = self.failing()
        if bad:
            head = (f"**⚠ {len(bad)} of {len(rows)} claims do not hold with this run's parameters** "
                    f"({', '.join(bad)}): the sentences citing them are marked.\n\n")
        return head + claims_table(["claim", "value", "criterion", "holds"], rows)

    def summary(self):
        """Display the table and embed the machine-readable register (last cell of a study)."""
        from IPython.display import display

        bundle = {"text/markdown": self.table_markdown(), "text/plain": self.table_markdown(),
                  CLAIMS_MIME: {"study": self.study, "source": self.source, "claims": self.records()}}
        display(bundle, raw=True)


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
    reg = from_notebook(json.loads(ipynb.read_text()))
    if reg is None:
        raise ParameterError(f"{ipynb}: no claims register in the executed notebook (missing claims.summary()?)")
    out = Path(out) if out else ipynb.with_suffix(".claims.json")
    atomic_write_text(out, json.dumps(reg["claims"], indent=1, ensure_ascii=False) + "\n")
    return reg["claims"]


def main(argv: Iterable[str] | None = None) -> int:
    """``python -m robolib.claims [--strict] NB.ipynb ...``: write the claims JSON of each notebook.

    With ``--strict`` (the default runs of ``make book``) exit 1 if a claim fails.
    """
    import sys

    args = list(sys.argv[1:] if argv is None else argv)
    strict = "--strict" in args
    paths = [a for a in args if a != "--strict"]
    status = 0
    for p in paths:
        claims = extract(p)
        bad = [c for c in claims if not c["holds"]]
        print(f"{p}: {len(claims)} claims, {len(bad)} failing")
        for c in bad:
            print(f"  FAILS {c['id']}: {c['statement']} -- value {c['text']}, criterion {c['criterion']}")
        if bad and strict:
            status = 1
    return status


__all__ = ["Claim", "ClaimsRegister", "CLAIMS_MIME", "extract", "from_notebook"]

if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
