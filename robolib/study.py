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
import numbers
import importlib
import inspect
import io
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .book.claims import Claim, ClaimsRegister, write_claims
from .core.errors import ParameterError

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
#: Width [in] of a figure as wide as the book's text: at FIGURE_DPI its PNG is under 1000 px, which the 672-px column
#: shows at >= 0.67 of natural size, matplotlib's 10-pt text at >= 9 px (tests/test_book_browser.py checks it).
FIGURE_WIDTH = 9.6


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
        if not isinstance(out_dir, (str, Path)) or not str(out_dir):
            raise ParameterError(f"out_dir must be a folder name, got {out_dir!r:.60}")
        return write_claims(self.records(), Path(out_dir) / f"{self.name}.claims.json")

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


# ---- parameters with their units and valid ranges --------------------------------------------------
_KINDS = ("number", "integer", "boolean", "text", "choice", "file", "list")


@dataclass(frozen=True)
class Parameter:
    """One parameter of a study: default, meaning, unit and the values it accepts.

    ``kind``: ``"number"`` (a finite int or float, not a bool), ``"integer"``, ``"boolean"``,
    ``"text"``, ``"choice"`` (one of ``choices``), ``"file"`` (a parameter file in ``data/`` or on
    disk) or ``"list"`` (checked by ``check``); ``low``/``high``: bounds of a number or integer,
    inclusive unless ``open_low``/``open_high``; ``allow_none``: ``None`` is valid too (e.g. "from the
    data file"; a ``default`` of ``None`` without ``allow_none`` declares a value that has no default;
    any other default must be one of the valid values, checked here); ``check(name, value)``: a further
    check that raises :class:`~robolib.ParameterError`
    (structured values, conditions between parameters are the study's own); ``exclude``: values of
    the range that are not valid (``n_jobs`` in ``[-1, inf)`` but not 0); ``valid``: the valid values
    in words where the kind's own text says too little (a list of cases, a geometry file).

    >>> n = Parameter(1_000_000, "inputs in the large round trip", kind="integer", low=2000)
    >>> n.valid_text()
    'an integer >= 2000'
    >>> n.validate("n_samples", 500)
    Traceback (most recent call last):
        ...
    robolib.errors.ParameterError: n_samples = 500 is not valid: n_samples must be an integer >= 2000 (inputs in the large round trip)
    >>> Parameter(0.1, "radial clearance", unit="mm", low=0.0, open_low=True, high=5.0).valid_text()
    'a number in (0, 5] mm'
    """

    default: Any
    meaning: str
    unit: str = ""
    kind: str = "number"
    low: float | None = None
    high: float | None = None
    open_low: bool = False
    open_high: bool = False
    choices: tuple = ()
    allow_none: bool = False
    check: Callable[[str, Any], None] | None = None
    exclude: tuple = ()
    valid: str | None = None

    def __post_init__(self):
        if not isinstance(self.kind, str) or self.kind not in _KINDS:
            raise ParameterError(f"Parameter kind must be one of {', '.join(_KINDS)}, got {self.kind!r}")
        if not isinstance(self.meaning, str) or not self.meaning.strip():
            raise ParameterError(f"Parameter meaning must be a non-empty text, got {self.meaning!r}")
        if not isinstance(self.unit, str):
            raise ParameterError(f"Parameter unit must be a text, got {self.unit!r}")
        for name in ("low", "high"):
            v = getattr(self, name)
            if v is not None and not _is_number(v):
                raise ParameterError(f"Parameter {name} must be None or a finite number, got {v!r}")
        for name in ("open_low", "open_high", "allow_none"):
            if not isinstance(getattr(self, name), bool):
                raise ParameterError(f"Parameter {name} must be True or False, got {getattr(self, name)!r}")
        if (self.low is not None or self.high is not None) and self.kind not in ("number", "integer"):
            raise ParameterError(f"Parameter low/high bound a number or an integer, not a {self.kind!r}")
        if self.low is not None and self.high is not None and (
                self.low > self.high or (self.low == self.high and (self.open_low or self.open_high))):
            raise ParameterError(f"Parameter low = {self.low!r} and high = {self.high!r} leave no valid value "
                                 f"(low must be below high)")
        if not isinstance(self.choices, tuple) or (self.kind == "choice" and not self.choices):
            raise ParameterError(f"Parameter choices must be a tuple (non-empty for kind 'choice'), got "
                                 f"{self.choices!r}")
        if not isinstance(self.exclude, tuple):
            raise ParameterError(f"Parameter exclude must be a tuple, got {self.exclude!r}")
        if self.check is not None and not callable(self.check):
            raise ParameterError(f"Parameter check must be None or a callable (name, value), got {self.check!r}")
        if self.valid is not None and (not isinstance(self.valid, str) or not self.valid):
            raise ParameterError(f"Parameter valid must be None or a non-empty text, got {self.valid!r}")
        try:
            if self.default is not None:             # None without allow_none: a value without default (required)
                self.validate("default", self.default)
        except ParameterError as exc:
            raise ParameterError(f"Parameter default {self.default!r} is outside its own declaration (kind, low, high, "
                                 f"choices, exclude, check): {exc}") from None

    def valid_text(self) -> str:
        """The valid values in words, e.g. ``'a number in (0, 5] mm'`` (``valid`` overrides it)."""
        if self.valid:
            return self.valid
        unit = f" {self.unit}" if self.unit and self.kind in ("number", "integer") else ""
        if self.kind in ("number", "integer"):
            what = "a number" if self.kind == "number" else "an integer"
            lo, hi = self.low, self.high
            if lo is not None and hi is not None:
                text = f"{what} in {'(' if self.open_low else '['}{lo:g}, {hi:g}{')' if self.open_high else ']'}{unit}"
            elif lo is not None:
                text = f"{what} {'>' if self.open_low else '>='} {lo:g}{unit}"
            elif hi is not None:
                text = f"{what} {'<' if self.open_high else '<='} {hi:g}{unit}"
            else:
                text = f"a finite {what.split()[-1]}{unit}"
        elif self.kind == "boolean":
            text = "True or False"
        elif self.kind == "choice":
            text = "one of " + ", ".join(map(str, self.choices))
        elif self.kind == "file":
            text = "a parameter file (a data/ path or a file on disk)"
        elif self.kind == "text":
            text = "a text"
        else:
            text = "a list (see the meaning)"
        if self.exclude:
            text += ", not " + " or ".join(map(str, self.exclude))
        return text + (", or None" if self.allow_none else "")

    def _fail(self, name: str, value: Any):
        raise ParameterError(f"{name} = {value!r} is not valid: {name} must be {self.valid_text()} ({self.meaning})")

    def validate(self, name: str, value: Any) -> None:
        """Raise :class:`~robolib.ParameterError` naming ``name`` and the valid values if ``value`` is not one."""
        if not isinstance(name, str) or not name:
            raise ParameterError(f"name must be a parameter name (text), got {name!r}")
        if value is None and self.allow_none:
            return
        if self.kind in ("number", "integer"):
            ok_type = isinstance(value, numbers.Integral if self.kind == "integer" else numbers.Real)
            if isinstance(value, (bool, np.bool_)) or not ok_type or not _is_number(value):
                self._fail(name, value)
            if self.low is not None and (value < self.low or (self.open_low and value == self.low)):
                self._fail(name, value)
            if self.high is not None and (value > self.high or (self.open_high and value == self.high)):
                self._fail(name, value)
            if value in self.exclude:
                self._fail(name, value)
        elif self.kind == "boolean":
            if not isinstance(value, (bool, np.bool_)):
                self._fail(name, value)
        elif self.kind == "choice":
            if not any(type(value) is type(c) and value == c for c in self.choices):
                self._fail(name, value)
        elif self.kind in ("text", "file"):
            if not isinstance(value, str) or not value:
                self._fail(name, value)
            if self.kind == "file":
                from .core.errors import ParameterFileError
                from .core.params import resolve_data_path

                try:
                    resolve_data_path(value)
                except ParameterFileError as exc:
                    raise ParameterError(f"{name} = {value!r} is not valid: {exc}") from None
        elif self.kind == "list" and not isinstance(value, (list, tuple)):
            self._fail(name, value)
        if self.check is not None:
            self.check(name, value)

    def note(self) -> str:
        """The "unit / meaning" cell of a parameter table."""
        unit = f"{self.unit}: " if self.unit else ""
        return f"{unit}{self.meaning} (valid: {self.valid_text()})"


def _is_number(value) -> bool:
    """A finite real number (not a bool; an int too large for a float is not finite)."""
    import math

    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


def _check_spec(spec) -> dict:
    if not isinstance(spec, dict) or not all(isinstance(k, str) and k for k in spec):
        raise ParameterError(f"spec must be a dict of parameter name -> Parameter, got {spec!r:.60}")
    # (duck-typed: under ``python -m robolib.study`` this module's Parameter is __main__.Parameter)
    bad = [k for k, v in spec.items() if not (isinstance(v, Parameter) or type(v).__name__ == "Parameter"
                                              and callable(getattr(v, "validate", None)))]
    if bad:
        raise ParameterError(f"spec must map every name to a Parameter; {bad} do not")
    return spec


def validate_parameters(spec: dict, params: dict, study: str = "study") -> dict:
    """Check names and values of ``params`` against ``spec`` (name -> :class:`Parameter`); return ``params``.

    >>> spec = {"n": Parameter(10, "samples", kind="integer", low=1)}
    >>> validate_parameters(spec, {"n": 3})
    {'n': 3}
    >>> validate_parameters(spec, {"n": True})
    Traceback (most recent call last):
        ...
    robolib.errors.ParameterError: n = True is not valid: n must be an integer >= 1 (samples)
    """
    _check_spec(spec)
    if not isinstance(params, dict):
        raise ParameterError(f"params must be a dict of parameter name -> value, got {params!r:.60}")
    if not isinstance(study, str) or not study:
        raise ParameterError(f"study must be a study name (text), got {study!r}")
    unknown = sorted(set(params) - set(spec))
    if unknown:
        raise ParameterError(f"unknown parameter(s) {unknown} of study {study!r}; it declares {sorted(spec)}")
    for name, value in params.items():
        spec[name].validate(name, value)
    return params


def declare_parameters(spec: dict):
    """Decorator of a study function: its parameters are ``spec``; every call checks them before any work.

    The function's keyword defaults must be the spec's defaults (checked here, at import); the
    wrapped function keeps its signature (``inspect.signature``, :func:`defaults`) and gains the
    attribute ``parameters`` (the spec).

    >>> @declare_parameters({"seed": Parameter(0, "seed of the draws", kind="integer", low=0)})
    ... def demo(seed=0):
    ...     return seed
    >>> demo(seed=3), demo.parameters["seed"].valid_text()
    (3, 'an integer >= 0')
    >>> demo(seed=-1)
    Traceback (most recent call last):
        ...
    robolib.errors.ParameterError: seed = -1 is not valid: seed must be an integer >= 0 (seed of the draws)
    """
    import functools

    _check_spec(spec)

    def wrap(fn):
        sig = inspect.signature(fn)
        declared = {k: p.default for k, p in sig.parameters.items()}
        if list(declared) != list(spec) or any(
                not _same(declared[k], spec[k].default) for k in spec):
            raise ParameterError(f"{fn.__qualname__}: its keyword defaults {declared} differ from its parameter "
                                 f"declarations {dict((k, v.default) for k, v in spec.items())}")

        @functools.wraps(fn)
        def run_checked(**params):
            bound = sig.bind(**params)
            bound.apply_defaults()
            validate_parameters(spec, dict(bound.arguments), fn.__name__)
            return fn(**bound.arguments)

        run_checked.parameters = spec
        return run_checked

    return wrap


def _same(a, b) -> bool:
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


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
    """The declared parameters of study ``name`` (name -> :class:`Parameter`), or ``{}`` if it declares none."""
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


# ---- the command line ------------------------------------------------------------------------------
def _yaml_value(text: str):
    """A ``-p`` value: YAML (``True``, ``7``, ``[1, 2]``, ``null``), and numbers YAML 1.1 leaves as text (``1e6``).

    >>> _yaml_value("1e6"), _yaml_value("7"), _yaml_value("True"), _yaml_value("B1,C")
    (1000000.0, 7, True, 'B1,C')
    """
    import yaml

    value = yaml.safe_load(text)
    if isinstance(value, str):
        try:
            return float(value) if value.strip().lower() not in ("nan", "inf", "-inf", "infinity") else value
        except ValueError:
            return value
    return value


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
