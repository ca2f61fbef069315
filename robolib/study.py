"""The studies by name: each chapter's experiments as a function, run from Python or the command line.

Every chapter of the book is one *study*: a function in its mechanism's package that
takes the chapter's parameters (the same names and defaults as the notebook's
``parameters`` cell), computes the results, registers the claims and returns a
:class:`StudyResult` holding the tables, figures, data and claims. The notebook calls
the function and tells the story; this module finds a study by its name.

========================  ==============================================
``prp3_roundtrip``        :func:`robolib.prp3.study.roundtrip_study`
``redundant_derivation``  :func:`robolib.redundant.study_derivation.derivation_study`
``redundant_friction``    :func:`robolib.redundant.study_friction.friction_study`
``clearance_dynamics``    :func:`robolib.gearshift.study.clearance_study`
``stewart_timing``        :func:`robolib.stewart.study.timing_study`
========================  ==============================================

From Python::

    from robolib import study
    res = study.run("prp3_roundtrip", quick=True, seed=7)
    res.failing()                 # ids of the claims that do not hold
    res.tables["table1"]          # Markdown
    res.figures["workspace"]      # a matplotlib Figure

From the command line (``-p`` values are read as YAML, as papermill reads them)::

    python -m robolib.study prp3_roundtrip -p quick True -p seed 7
    python -m robolib.study clearance_dynamics -y "verdict_cases: [[10.0, 0.5]]" -p quick True
    python -m robolib.study stewart_timing -f my_params.yaml --out results/

The command writes ``book/studies/<name>.claims.json`` (the file a book build
writes) and lists the claims that fail. An unknown study or parameter name is an
error that names it.

>>> sorted(STUDIES)
['clearance_dynamics', 'prp3_roundtrip', 'redundant_derivation', 'redundant_friction', 'stewart_timing']
>>> parse_arguments(["prp3_roundtrip", "-p", "quick", "True", "-p", "seed", "7"])[1]
{'quick': True, 'seed': 7}
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import io
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .book.claims import Claim, ClaimsRegister
from .core.errors import ParameterError
from .core.files import atomic_write_text

#: Study name -> ``"module:function"`` of its study function.
STUDIES = {
    "prp3_roundtrip": "robolib.prp3.study:roundtrip_study",
    "redundant_derivation": "robolib.redundant.study_derivation:derivation_study",
    "redundant_friction": "robolib.redundant.study_friction:friction_study",
    "clearance_dynamics": "robolib.gearshift.study:clearance_study",
    "stewart_timing": "robolib.stewart.study:timing_study",
}

#: Where the command line writes ``<name>.claims.json`` unless ``--out`` says otherwise.
DEFAULT_OUT = Path(__file__).resolve().parent.parent / "book" / "studies"

#: Resolution (dots per inch) of a figure shown with :meth:`StudyResult.figure`.
FIGURE_DPI = 100


@dataclass
class StudyResult:
    """What a study returns: its parameters, claims, tables, figures and data.

    ``params``: every parameter of the run (defaults filled in); ``claims``: the
    :class:`~robolib.book.claims.ClaimsRegister` of its findings; ``tables``:
    Markdown tables by name; ``figures``: :class:`matplotlib.figure.Figure` objects
    by name (made without pyplot); ``data``: arrays, numbers and objects by name;
    ``values``: text the prose cites that is not a finding (counts, settings), glued
    under its name by :meth:`glue`.

    >>> reg = ClaimsRegister("demo", glue=False)
    >>> _ = reg.claim("demo_ok", "one is one", value=1, criterion="== 1", holds=True)
    >>> res = StudyResult("demo", {"quick": True}, reg, values={"n_rows": "10"})
    >>> res.failing(), res["demo_ok"].holds, [r["id"] for r in res.records()]
    ([], True, ['demo_ok'])
    """

    name: str
    params: dict
    claims: ClaimsRegister
    tables: dict = field(default_factory=dict)
    figures: dict = field(default_factory=dict)
    data: dict = field(default_factory=dict)
    values: dict = field(default_factory=dict)

    def __getitem__(self, claim_id: str) -> Claim:
        """The registered claim ``claim_id``."""
        return self.claims[claim_id]

    def failing(self) -> list[str]:
        """Ids of the claims that do not hold in this run."""
        return self.claims.failing()

    def records(self) -> list[dict]:
        """The claims as JSON records ``{id, statement, value, criterion, holds, ...}``."""
        return self.claims.records()

    def write_claims(self, out_dir: str | Path = DEFAULT_OUT) -> Path:
        """Write ``<out_dir>/<name>.claims.json`` (a temporary file renamed into place); return its path."""
        out = Path(out_dir) / f"{self.name}.claims.json"
        return atomic_write_text(out, json.dumps(self.records(), indent=1, ensure_ascii=False) + "\n")

    # ---- inside a notebook ---------------------------------------------------------------------
    def glue(self) -> None:
        """Glue every claim (Markdown, with its warning if it fails) and every value, for the prose."""
        from IPython.display import Markdown
        from myst_nb import glue

        for c in self.claims.claims.values():
            glue(c.id, Markdown(c.markdown()), display=False)
        for key, value in self.values.items():
            glue(key, value, display=False)

    def table(self, name: str):
        """Table ``name`` as displayable Markdown."""
        from IPython.display import Markdown

        return Markdown(self.tables[name])

    def figure(self, name: str, dpi: float = FIGURE_DPI):
        """Figure ``name`` as a PNG image (a figure made without pyplot has no image of its own)."""
        from IPython.display import Image

        buf = io.BytesIO()
        self.figures[name].savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
        return Image(buf.getvalue())

    def summary(self) -> None:
        """The table "What this chapter found", with the machine-readable register (last cell)."""
        self.claims.summary()


# ---- the registry --------------------------------------------------------------------------------
def study_function(name: str) -> Callable[..., StudyResult]:
    """The function of study ``name``."""
    if name not in STUDIES:
        raise ParameterError(f"no study {name!r}; studies: {', '.join(sorted(STUDIES))}")
    module, attr = STUDIES[name].split(":")
    return getattr(importlib.import_module(module), attr)


def defaults(name: str) -> dict:
    """The parameters of study ``name`` with their defaults (the chapter's ``parameters`` cell)."""
    sig = inspect.signature(study_function(name))
    return {k: p.default for k, p in sig.parameters.items() if p.default is not inspect.Parameter.empty}


def check_names(name: str, params: dict) -> None:
    """Raise :class:`~robolib.ParameterError` naming any parameter study ``name`` does not declare."""
    known = defaults(name)
    unknown = sorted(set(params) - set(known))
    if unknown:
        raise ParameterError(f"unknown parameter(s) {unknown} of study {name!r}; it declares {sorted(known)}")


def run(name: str, **params) -> StudyResult:
    """Run study ``name`` with ``params`` (the rest at their defaults)."""
    check_names(name, params)
    return study_function(name)(**params)


# ---- the command line ------------------------------------------------------------------------------
def _yaml_value(text: str):
    import yaml

    return yaml.safe_load(text)


def parse_arguments(argv) -> tuple[str, dict, argparse.Namespace]:
    """``NAME [-p key value]... [-y yaml]... [-f file.yaml]... [--out DIR] [--strict]`` -> (name, params, args)."""
    ap = argparse.ArgumentParser(prog="python -m robolib.study",
                                 description="Run one study of the workbench; write its claims JSON.")
    ap.add_argument("name", help=f"one of: {', '.join(sorted(STUDIES))}")
    ap.add_argument("-p", "--parameter", nargs=2, action="append", default=[], metavar=("KEY", "VALUE"),
                    help="a parameter; VALUE is read as YAML (True, 7, 1e-9, [1, 2])")
    ap.add_argument("-y", "--yaml", action="append", default=[], help="parameters as a YAML mapping")
    ap.add_argument("-f", "--file", action="append", default=[], help="parameters from a YAML file")
    ap.add_argument("--out", default=str(DEFAULT_OUT), help="folder of <name>.claims.json (default: book/studies)")
    ap.add_argument("--strict", action="store_true", help="exit with status 1 if a claim fails")
    args = ap.parse_args(list(argv))
    params: dict[str, Any] = {}
    for path in args.file:
        got = _yaml_value(Path(path).read_text())
        if not isinstance(got, dict):
            raise ParameterError(f"parameter file {path!r} must hold a YAML mapping, got {type(got).__name__}")
        params.update(got)
    for text in args.yaml:
        got = _yaml_value(text)
        if not isinstance(got, dict):
            raise ParameterError(f"-y {text!r} must be a YAML mapping such as 'key: value'")
        params.update(got)
    for key, value in args.parameter:
        params[key] = _yaml_value(value)
    return args.name, params, args


def main(argv=None) -> int:
    """Run a study from the command line; print its claims; return the exit status."""
    argv = sys.argv[1:] if argv is None else argv
    try:
        name, params, args = parse_arguments(argv)
        check_names(name, params)
        res = run(name, **params)
    except ParameterError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    path = res.write_claims(args.out)
    bad = res.failing()
    print(f"{name}: {len(res.records())} claims, {len(bad)} failing; written to {path}")
    for cid in bad:
        c = res[cid]
        print(f"  FAILS {c.id}: {c.statement} -- value {c.text}, criterion {c.criterion}")
    return 1 if (bad and args.strict) else 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
