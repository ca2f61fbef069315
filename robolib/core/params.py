"""Loader for the YAML parameter files in ``data/``.

A parameter file is validated against a *schema*: a nested ``dict`` whose
leaves are :class:`Field` objects. Every field of the schema must be present
(unless it is optional), no other field may be present, and each value must
have the declared type, shape and sign. Any violation raises
:class:`robolib.ParameterFileError` naming the file and the dotted field name,
so a typo never becomes a silent default.

>>> schema = {"name": text(), "mass": number(unit="kg", positive=True),
...           "com": vector(2, unit="m")}
>>> p = validate({"name": "link", "mass": 2, "com": [0.1, 0.0]}, schema, source="demo.yaml")
>>> p["mass"], p["com"].shape
(2.0, (2,))
>>> validate({"name": "link", "mass": -2, "com": [0.1, 0.0]}, schema, source="demo.yaml")
Traceback (most recent call last):
    ...
robolib.ParameterFileError: demo.yaml: field 'mass' must be positive, got -2.0 (kg)
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np
import yaml

from robolib.core.checks import _bound_text, flag
from robolib.core.errors import ParameterError, ParameterFileError

#: The repository's ``data/`` folder (parameter sets shipped with robolib).
DATA_DIR = Path(__file__).resolve().parents[2] / "data"


@dataclass(frozen=True)
class Field:
    """One leaf of a parameter-file schema.

    ``kind`` is one of ``"number"``, ``"integer"``, ``"text"``, ``"bool"``,
    ``"array"``; ``shape`` is the array shape (``-1`` for any length);
    ``sign`` is ``None``, ``"positive"`` or ``"nonnegative"``; ``choices``
    restricts a text field; ``unit`` is documentation shown in messages.
    """

    kind: str
    shape: tuple[int, ...] | None = None
    sign: str | None = None
    choices: tuple[str, ...] | None = None
    unit: str | None = None
    optional: bool = False
    default: Any = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ParameterError(f"kind = {self.kind!r} is not valid: kind must be one of {list(KINDS)}")
        if self.kind == "array" and not (isinstance(self.shape, tuple) and self.shape and all(
                isinstance(n, int) and not isinstance(n, bool) and (n > 0 or n == -1) for n in self.shape)):
            raise ParameterError(f"shape = {self.shape!r} is not valid: shape must be one or more integers > 0 "
                                 f"(or -1: any length)")
        if self.sign not in (None, "positive", "nonnegative"):
            raise ParameterError(f"sign = {self.sign!r} is not valid: sign must be None, 'positive' or 'nonnegative'")
        if self.choices is not None and not (isinstance(self.choices, tuple) and self.choices
                                             and all(isinstance(c, str) for c in self.choices)):
            raise ParameterError(f"choices = {self.choices!r} is not valid: choices must be a non-empty list of text")
        if self.unit is not None and not isinstance(self.unit, str):
            raise ParameterError(f"unit = {self.unit!r} is not valid: unit must be text or None")
        flag("optional", self.optional)


#: The kinds of :class:`Field`.
KINDS = ("number", "integer", "text", "bool", "array")


def _sign(positive, nonnegative) -> str | None:
    positive, nonnegative = flag("positive", positive), flag("nonnegative", nonnegative)
    return "positive" if positive else "nonnegative" if nonnegative else None


def number(*, unit=None, positive=False, nonnegative=False, optional=False, default=None) -> Field:
    """A real scalar (YAML int or float; bool is rejected)."""
    return Field("number", sign=_sign(positive, nonnegative), unit=unit, optional=optional, default=default)


def integer(*, positive=False, nonnegative=False, optional=False, default=None) -> Field:
    """An integer scalar."""
    return Field("integer", sign=_sign(positive, nonnegative), optional=optional, default=default)


def text(*, choices=None, optional=False, default=None) -> Field:
    """A string, optionally restricted to ``choices`` (a non-empty list of text)."""
    if choices is not None and (isinstance(choices, str) or not hasattr(choices, "__iter__")):
        raise ParameterError(f"choices = {choices!r:.80} is not valid: choices must be a non-empty list of text")
    return Field("text", choices=None if choices is None else tuple(choices), optional=optional, default=default)


def boolean(*, optional=False, default=None) -> Field:
    """``true`` or ``false``."""
    return Field("bool", optional=optional, default=default)


def vector(*shape: int, unit=None, positive=False, nonnegative=False, optional=False, default=None) -> Field:
    """A real array of the given shape (nested YAML lists), returned as ``np.ndarray``."""
    return Field("array", shape=tuple(shape), sign=_sign(positive, nonnegative), unit=unit, optional=optional, default=default)


def _is_real(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _fail(source: str, name: str, reason: str) -> ParameterFileError:
    return ParameterFileError(f"{source}: field '{name}' {reason}")


def _check_sign(value, field: Field, source: str, name: str):
    unit = f" ({field.unit})" if field.unit else ""
    arr = np.asarray(value, dtype=float)
    if not np.all(np.isfinite(arr)):
        raise _fail(source, name, f"must be finite, got {value!r}")
    if field.sign == "positive" and not np.all(arr > 0):
        raise _fail(source, name, f"must be positive, got {value!r}{unit}")
    if field.sign == "nonnegative" and not np.all(arr >= 0):
        raise _fail(source, name, f"must be non-negative, got {value!r}{unit}")


def _leaf(value: Any, field: Field, source: str, name: str) -> Any:
    got = f"got {value!r} ({type(value).__name__})"
    if field.kind == "number":
        if not _is_real(value):
            raise _fail(source, name, f"must be a number, {got}")
        value = float(value)
        _check_sign(value, field, source, name)
        return value
    if field.kind == "integer":
        if not isinstance(value, int) or isinstance(value, bool):
            raise _fail(source, name, f"must be an integer, {got}")
        _check_sign(value, field, source, name)
        return value
    if field.kind == "text":
        if not isinstance(value, str):
            raise _fail(source, name, f"must be text, {got}")
        if field.choices and value not in field.choices:
            raise _fail(source, name, f"must be one of {list(field.choices)}, got {value!r}")
        return value
    if field.kind == "bool":
        if not isinstance(value, bool):
            raise _fail(source, name, f"must be true or false, {got}")
        return value
    if field.kind == "array":
        try:
            arr = np.array(value, dtype=float)
        except (TypeError, ValueError):
            raise _fail(source, name, f"must be an array of numbers, {got}") from None
        ok_types = all(_is_real(v) for v in np.array(value, dtype=object).ravel())
        shape_ok = arr.ndim == len(field.shape) and all(
            want in (-1, have) for want, have in zip(field.shape, arr.shape)
        )
        if not ok_types or not shape_ok:
            want = "x".join("n" if s == -1 else str(s) for s in field.shape)
            raise _fail(source, name, f"must be an array of numbers of shape {want}, {got}")
        _check_sign(arr, field, source, name)
        return arr


def validate(data: Any, schema: Mapping[str, Any], *, source: str = "<parameters>", prefix: str = "") -> dict:
    """Check ``data`` (parsed YAML) against ``schema`` and return converted values.

    Raises :class:`robolib.ParameterFileError` for a missing, unknown or
    mistyped field; the message names ``source`` and the dotted field name.
    """
    where = prefix.rstrip(".") or "top level"
    if not prefix:
        _check_schema(schema)
    if not isinstance(data, Mapping):
        raise ParameterFileError(f"{source}: {where} must be a mapping of fields, got {type(data).__name__}")
    unknown = [k for k in data if k not in schema]
    if unknown:
        raise _fail(source, prefix + str(unknown[0]), f"is not a known field (known at {where}: {sorted(schema)})")
    out: dict = {}
    for key, sub in schema.items():
        name = prefix + key
        if key not in data:
            if isinstance(sub, Field) and sub.optional:
                out[key] = sub.default
                continue
            raise _fail(source, name, "is missing")
        if isinstance(sub, Mapping):
            out[key] = validate(data[key], sub, source=source, prefix=name + ".")
        else:
            out[key] = _leaf(data[key], sub, source, name)
    return out


def _check_schema(schema, name: str = "schema") -> None:
    """Refuse a schema that is not a mapping of field names to :class:`Field` leaves or nested mappings."""
    if not isinstance(schema, Mapping) or not schema:
        raise ParameterError(f"{name} must be a non-empty mapping of field names to Field objects or nested "
                             f"mappings, got {schema!r:.80}")
    for key, sub in schema.items():
        if not isinstance(key, str):
            raise ParameterError(f"{name} has a field name {key!r} that is not text")
        if isinstance(sub, Mapping):
            _check_schema(sub, f"{name}.{key}")
        elif not isinstance(sub, Field):
            raise ParameterError(f"{name}.{key} must be a Field (number(), vector(), ...) or a nested mapping, "
                                 f"got {sub!r:.80}")


def resolve_data_path(path: str | Path) -> Path:
    """Return ``path`` if it exists, else ``DATA_DIR / path``.

    >>> resolve_data_path("prp3/paper.yaml").name
    'paper.yaml'
    >>> resolve_data_path(None)
    Traceback (most recent call last):
        ...
    robolib.ParameterFileError: path = None is not valid: path must be the file path (str or pathlib.Path) of a parameter file
    """
    if isinstance(path, bool) or not isinstance(path, (str, Path)) or str(path) == "":
        raise ParameterFileError(f"path = {path!r:.80} is not valid: path must be the file path (str or pathlib.Path) "
                                 f"of a parameter file")
    p = Path(path)
    if p.is_file():
        return p
    q = DATA_DIR / p
    if not p.is_absolute() and q.is_file():
        return q
    raise ParameterFileError(f"parameter file {str(path)!r} not found (the path was looked up in the current folder "
                             f"and in {DATA_DIR})")


class _NumbersLoader(yaml.SafeLoader):
    """The safe YAML loader, with numbers as people write them: ``1e-8`` and ``2E6`` are floats (YAML 1.2)."""


_NumbersLoader.add_implicit_resolver("tag:yaml.org,2002:float",
                                     re.compile(r"^[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
                                     list("-+0123456789"))


def read_yaml(text: str):
    """Parse YAML text safely, reading ``1e-8`` as a number (YAML 1.1, and so ``yaml.safe_load``, reads text).

    >>> read_yaml("case_rtols: [[1e-8, 1.0e-9], [2E-10]]")
    {'case_rtols': [[1e-08, 1e-09], [2e-10]]}
    >>> read_yaml("name: 1e6x")
    {'name': '1e6x'}
    """
    if not isinstance(text, str):
        raise ParameterError(f"text must be YAML text (a str), got {type(text).__name__}")
    return yaml.load(text, Loader=_NumbersLoader)


def load_yaml(path: str | Path, schema: Mapping[str, Any]) -> dict:
    """Read the YAML file ``path`` (or ``data/<path>``) and validate it against ``schema``."""
    _check_schema(schema)
    p = resolve_data_path(path)
    try:
        data = read_yaml(p.read_text())
    except yaml.YAMLError as exc:
        raise ParameterFileError(f"{p}: not valid YAML: {exc}") from None
    return validate(data, schema, source=str(p))


__all__ = [
    "DATA_DIR",
    "Field",
    "number",
    "integer",
    "text",
    "boolean",
    "vector",
    "validate",
    "load_yaml",
    "read_yaml",
    "resolve_data_path",
]


# ---- study parameters with their units and valid ranges --------------------------------------------------
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
    robolib.ParameterError: n_samples = 500 is not valid: n_samples must be an integer >= 2000 (inputs in the large round trip)
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
        if self.kind in ("number", "integer"):
            what = "a number" if self.kind == "number" else "an integer"
            text = _bound_text(what, self.low, self.high, self.open_low, self.open_high, self.unit)
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
    robolib.ParameterError: n = True is not valid: n must be an integer >= 1 (samples)
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


def declare_parameters(spec: dict, study: str | None = None):
    """Decorator of a study function: its parameters are ``spec``; every call checks them before any work.

    ``study``: the name errors give for the study (default: the function's name).

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
    robolib.ParameterError: seed = -1 is not valid: seed must be an integer >= 0 (seed of the draws)
    """
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
            validate_parameters(spec, dict(bound.arguments), study or fn.__name__)
            return fn(**bound.arguments)

        run_checked.parameters = spec
        return run_checked

    return wrap


def _same(a, b) -> bool:
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b
