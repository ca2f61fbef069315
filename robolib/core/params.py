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
robolib.errors.ParameterFileError: demo.yaml: field 'mass' must be positive, got -2.0 (kg)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import yaml

from .checks import flag
from .errors import ParameterError, ParameterFileError

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
    raise ValueError(f"unknown field kind {field.kind!r} in schema")  # programming error


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
    robolib.errors.ParameterFileError: path = None is not valid: path must be the file path (str or pathlib.Path) of a parameter file
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


def load_yaml(path: str | Path, schema: Mapping[str, Any]) -> dict:
    """Read the YAML file ``path`` (or ``data/<path>``) and validate it against ``schema``."""
    _check_schema(schema)
    p = resolve_data_path(path)
    try:
        data = yaml.safe_load(p.read_text())
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
    "resolve_data_path",
]

