"""The studies by name: each chapter's experiments as a function, run from Python or the command line.

Every chapter of the book is one *study*: the function ``run`` of its package in
:mod:`robolib.studies` (named as its notebook), which takes the chapter's parameters (the same names and defaults as the notebook's
``parameters`` cell), computes the results, registers the claims and returns a
:class:`StudyResult` holding the tables, figures, data and claims. The notebook calls
the function and tells the story; this module finds a study by its name.

========================  ==============================================
``prp3_roundtrip``        :func:`robolib.studies.prp3_roundtrip.study.run`
``redundant_derivation``  :func:`robolib.studies.redundant_derivation.study.run`
``redundant_friction``    :func:`robolib.studies.redundant_friction.study.run`
``clearance_dynamics``    :func:`robolib.studies.clearance_dynamics.study.run`
``stewart_timing``        :func:`robolib.studies.stewart_timing.study.run`
========================  ==============================================

From Python::

    from robolib import study
    res = study.run("prp3_roundtrip", quick=True, seed=7)
    res.failing()                 # ids of the claims that fail
    res.not_computed()            # ids of the claims about cases this run did not compute
    res.tables["table1"]          # Markdown
    res.figures["workspace"]      # a matplotlib Figure

From the command line (``-p`` values are read as YAML, as papermill reads them)::

    python -m robolib.study prp3_roundtrip -p quick True -p seed 7
    python -m robolib.study clearance_dynamics -y "verdict_cases: [[10.0, 0.5]]" -p quick True
    python -m robolib.study stewart_timing -f my_params.yaml --out results/

The command writes ``book/studies/<name>.claims.json`` (the file a book build
writes), prints the counts (``N claims: a hold, b fail, c not computed``) and lists
the claims that fail, then those it did not compute (e.g. a case the chapter cites
that is not among ``verdict_cases``), apart. With ``--strict`` it exits 1 if a claim
fails; a claim not computed does not fail the run. An unknown study or parameter
name is an error that names it.

>>> sorted(STUDIES)
['clearance_dynamics', 'prp3_roundtrip', 'redundant_derivation', 'redundant_friction', 'stewart_timing']
>>> parse_arguments(["prp3_roundtrip", "-p", "quick", "True", "-p", "seed", "7"])[1]
{'quick': True, 'seed': 7}
"""

from __future__ import annotations

import argparse
import ast
import importlib
import inspect
import logging
import sys
from pathlib import Path
from typing import Callable

from robolib.book.claims import count_line
from robolib.book.result import DEFAULT_OUT, StudyResult
from robolib.core.errors import ParameterError
from robolib.core.params import read_yaml, validate_parameters

#: Study name -> ``"module:function"`` of its study function (each chapter's package in :mod:`robolib.studies`).
STUDIES = {name: f"robolib.studies.{name}:run" for name in
           ("prp3_roundtrip", "redundant_derivation", "redundant_friction", "clearance_dynamics", "stewart_timing")}


# ---- the registry --------------------------------------------------------------------------------
def study_function(name: str) -> Callable[..., StudyResult]:
    """The function of study ``name``."""
    if not isinstance(name, str) or name not in STUDIES:
        raise ParameterError(f"no study {name!r}; studies: {', '.join(sorted(STUDIES))} (name must be one of them)")
    module, attr = STUDIES[name].split(":")
    return getattr(importlib.import_module(module), attr)


def defaults(name: str) -> dict:
    """The parameters of study ``name`` with their defaults (the chapter's ``parameters`` cell)."""
    sig = inspect.signature(study_function(name))
    return {k: p.default for k, p in sig.parameters.items() if p.default is not inspect.Parameter.empty}


def parameters(name: str) -> dict:
    """The declared parameters of study ``name`` (name -> :class:`robolib.core.params.Parameter`), or ``{}`` if it declares none."""
    return dict(getattr(study_function(name), "parameters", {}))


def check_names(name: str, params: dict) -> None:
    """Raise :class:`~robolib.ParameterError` naming any parameter study ``name`` does not declare, or a value
    outside the declared range (before any work)."""
    known = defaults(name)
    if not isinstance(params, dict) or not all(isinstance(k, str) for k in params):
        raise ParameterError(f"params must be a dict of parameter name -> value, got {params!r:.60}")
    unknown = sorted(set(params) - set(known))
    if unknown:
        raise ParameterError(f"unknown parameter(s) {unknown} of study {name!r}; it declares {sorted(known)}")
    spec = parameters(name)
    if spec:
        validate_parameters(spec, params, name)


def run(name: str, **params) -> StudyResult:
    """Run study ``name`` with ``params`` (the rest at their defaults)."""
    check_names(name, params)
    return study_function(name)(**params)


# ---- the chapters' parameters cells ----------------------------------------------------------------
#: The chapters' MyST sources (``notebooks/<name>.md``), beside the package in a clone of the workbench.
NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def notebook_parameters(name: str, folder=NOTEBOOKS) -> dict:
    """The assignments of the ``parameters`` cell of chapter ``name``'s source, as Python values."""
    import jupytext  # optional: a book dependency, not the library's

    study_function(name)  # an unknown name is refused by name
    path = Path(folder) / f"{name}.md"
    if not path.is_file():
        raise ParameterError(f"no chapter source {path} for study {name!r}: the notebooks are in a clone of the "
                             "workbench, not in an installed package")
    nb = jupytext.read(path)
    cells = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    if len(cells) != 1:
        raise ParameterError(f"notebooks/{name}.md must have one cell tagged 'parameters', it has {len(cells)}")
    out = {}
    for node in ast.parse(cells[0].source).body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            raise ParameterError(f"notebooks/{name}.md: the parameters cell must hold plain assignments "
                                 f"'name = value', line {node.lineno} is not one")
        out[node.targets[0].id] = ast.literal_eval(node.value)
    return out


def _plain(v):
    return [_plain(x) for x in v] if isinstance(v, (list, tuple)) else v


def check_notebook_defaults(name: str, folder=NOTEBOOKS) -> None:
    """Refuse a chapter source whose parameters cell is not the study's declared defaults.

    Saving a chapter in JupyterLab writes its parameters cell back into ``notebooks/<name>.md``; ``make book``
    calls this first, so a reader's edit (``quick = True``) never becomes the book's default silently.
    """
    cell, declared = notebook_parameters(name, folder), defaults(name)
    if list(cell) != list(declared):
        raise ParameterError(f"notebooks/{name}.md: the parameters cell declares {list(cell)}, the study "
                             f"{name!r} declares {list(declared)}")
    for key, value in cell.items():
        if _plain(value) != _plain(declared[key]):
            raise ParameterError(
                f"notebooks/{name}.md sets {key} = {value!r} in its parameters cell, but the study's default is "
                f"{declared[key]!r}. The book runs at the declared defaults: undo the edit "
                f"(git checkout notebooks/{name}.md), or rerun with it: make study NAME={name} PARAMS='-p {key} ...'")


# ---- the command line ------------------------------------------------------------------------------
def _yaml_value(text: str):
    """A ``-p`` value or a ``-y``/``-f`` mapping: YAML (``True``, ``7``, ``[1, 2]``, ``null``), with numbers
    such as ``1e-8`` read as numbers at any depth (:func:`robolib.core.params.read_yaml`).

    >>> _yaml_value("1e6"), _yaml_value("7"), _yaml_value("True"), _yaml_value("B1,C"), _yaml_value("[[1e-8]]")
    (1000000.0, 7, True, 'B1,C', [[1e-08]])
    """
    return read_yaml(text)


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
    ap.add_argument("--strict", action="store_true",
                    help="exit with status 1 if a claim fails (a claim not computed in this run does not)")
    ap.add_argument("--check-notebook", action="store_true",
                    help="only check that notebooks/NAME.md's parameters cell holds the declared defaults")
    args = ap.parse_args(list(argv))
    params: dict = {}
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
        if args.check_notebook:
            check_notebook_defaults(name)
            return 0
        logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
        res = run(name, **params)
    except ParameterError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    path = res.write_claims(args.out)
    bad, skipped = res.failing(), res.not_computed()
    print(f"{name}: {count_line(res.counts())}; written to {path}")
    for cid in bad:
        c = res[cid]
        print(f"  FAILS {c.id}: {c.statement} -- value {c.text}, criterion {c.criterion}")
    for cid in skipped:
        c = res[cid]
        print(f"  NOT COMPUTED {c.id}: {c.statement} -- {c.reason}")
    return 1 if (bad and args.strict) else 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
