"""What a chapter's study returns: :class:`StudyResult` (its parameters, claims, tables, figures and data)."""

from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from robolib.book.claims import Claim, ClaimsRegister, write_claims
from robolib.book.notebook import png_image
from robolib.core.drawing import FIGURE_DPI

#: The logger of the studies' stages (``python -m robolib.study`` shows it on stderr).
STAGES = logging.getLogger("robolib.studies")


class Stages:
    """Reports each stage of a study as it starts, with the time since the study began (logger ``robolib.studies``,
    level INFO: shown by the command line; in Python, ``logging.basicConfig(level="INFO")`` shows it).

    >>> stage = Stages("demo")
    >>> stage("the detailed run")       # logs "demo [  0.0 s] the detailed run"
    """

    def __init__(self, study: str):
        self.study, self.t0 = study, time.perf_counter()

    def __call__(self, what: str) -> None:
        STAGES.info("%s [%5.1f s] %s", self.study, self.elapsed(), what)

    def elapsed(self) -> float:
        """Seconds since the study began (wall time)."""
        return time.perf_counter() - self.t0


def run_time_text(seconds: float, cores: int | None = None) -> str:
    """How long a run took, for a reader deciding whether to rerun it: seconds below two minutes, else minutes,
    with the machine's number of CPU cores.

    >>> run_time_text(42.3, cores=2), run_time_text(301.0, cores=2), run_time_text(0.4, cores=2)
    ('42 s on 2 CPU cores', '5.0 min on 2 CPU cores', 'under 1 s on 2 CPU cores')
    """
    cores = cores or os.cpu_count() or 1
    took = "under 1 s" if seconds < 0.5 else f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} min"
    return f"{took} on {cores} CPU core{'s' if cores > 1 else ''}"


#: Where ``<name>.claims.json`` goes unless told otherwise (the folder a book build reads).
DEFAULT_OUT = Path(__file__).resolve().parents[2] / "book" / "studies"


@dataclass
class StudyResult:
    """What a study returns: its parameters, claims, tables, figures and data.

    ``params``: every parameter of the run (defaults filled in); ``claims``: the
    :class:`~robolib.book.claims.ClaimsRegister` of its findings; ``tables``:
    Markdown tables by name; ``figures``: :class:`matplotlib.figure.Figure` objects
    by name (made without pyplot); ``data``: arrays, numbers and objects by name;
    ``values``: text the prose cites that is not a finding (counts, settings), glued
    under its name by :meth:`glue`; ``wall_s``: the run's wall time in seconds (glued as
    ``<name>_run_time``, e.g. "5.0 min on 2 CPU cores").

    >>> reg = ClaimsRegister("demo", glue=False)
    >>> _ = reg.claim("demo_ok", "one is one", value=1, criterion="== 1", holds=True)
    >>> res = StudyResult("demo", {"quick": True}, reg, values={"n_rows": "10"})
    >>> res.failing(), res["demo_ok"].holds, [r["id"] for r in res.records()]
    ([], True, ['demo_ok'])
    >>> _ = reg.claim_not_computed("demo_6hz", "six at 6 Hz", criterion="6 Hz is run", reason="not in this run's cases")
    >>> res.failing(), res.not_computed(), res.counts()
    ([], ['demo_6hz'], {'holds': 1, 'fails': 0, 'not computed': 1})
    """

    name: str
    params: dict
    claims: ClaimsRegister
    tables: dict = field(default_factory=dict)
    figures: dict = field(default_factory=dict)
    data: dict = field(default_factory=dict)
    values: dict = field(default_factory=dict)
    wall_s: float | None = None

    def __getitem__(self, claim_id: str) -> Claim:
        """The registered claim ``claim_id``."""
        return self.claims[claim_id]

    def failing(self) -> list[str]:
        """Ids of the claims that fail in this run (not those it did not compute: :meth:`not_computed`)."""
        return self.claims.failing()

    def not_computed(self) -> list[str]:
        """Ids of the claims about what this run did not compute (e.g. a cited case not among its cases)."""
        return self.claims.not_computed()

    def counts(self) -> dict:
        """The number of claims of each status, ``{"holds": a, "fails": b, "not computed": c}``."""
        return self.claims.counts()

    def records(self) -> list[dict]:
        """The claims as JSON records ``{id, statement, value, criterion, holds, ..., status}``."""
        return self.claims.records()

    def write_claims(self, out_dir: str | Path = DEFAULT_OUT) -> Path:
        """Write ``<out_dir>/<name>.claims.json`` (a temporary file renamed into place); return its path."""
        return write_claims(self.records(), Path(out_dir) / f"{self.name}.claims.json")

    # ---- inside a notebook ---------------------------------------------------------------------
    def glue(self) -> None:
        """Glue every claim (Markdown, with its warning if it fails or is not computed), every value and the run's
        wall time (``<name>_run_time``), for the prose."""
        from IPython.display import Markdown
        from myst_nb import glue

        for c in self.claims.claims.values():
            glue(c.id, Markdown(c.markdown()), display=False)
        for key, value in self.values.items():
            glue(key, value, display=False)
        if self.wall_s is not None:
            glue(f"{self.name}_run_time", run_time_text(self.wall_s), display=False)

    def glue_evidence(self, tables=(), figures=(), markdown=None, prefix: str | None = None) -> None:
        """Glue what the chapter's evidence page shows (:mod:`robolib.book.evidence`): each table of ``tables`` and
        figure of ``figures`` under ``<prefix>_ev_<name>`` (``prefix``: the study's first word), each
        ``markdown`` text ``{name: text}`` likewise, and the claims table with criteria and values
        (:meth:`robolib.book.claims.ClaimsRegister.table_markdown`) as ``<prefix>_ev_claims``."""
        from IPython.display import Markdown
        from myst_nb import glue

        prefix = prefix or self.name.split("_")[0]
        glue(f"{prefix}_ev_claims", Markdown(self.claims.table_markdown()), display=False)
        for name in tables:
            glue(f"{prefix}_ev_{name}", self.table(name), display=False)
        for name in figures:
            glue(f"{prefix}_ev_{name}", self.figure(name), display=False)
        for name, text in (markdown or {}).items():
            glue(f"{prefix}_ev_{name}", Markdown(text), display=False)

    def table(self, name: str):
        """Table ``name`` as displayable Markdown."""
        from IPython.display import Markdown

        return Markdown(self.tables[name])

    def figure(self, name: str, dpi: float = FIGURE_DPI):
        """Figure ``name`` as a PNG image (a figure made without pyplot has no image of its own)."""
        return png_image(self.figures[name], dpi)

    def summary(self) -> None:
        """The table "What this chapter found", with the machine-readable register (last cell)."""
        self.claims.summary()


__all__ = ["StudyResult", "DEFAULT_OUT", "run_time_text"]
