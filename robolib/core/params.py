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

from .errors import ParameterFileError

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


def number(*, unit=None, positive=False, nonnegative=False, optional=False, default=None) -> Field:
    """A real scalar (YAML int or float; bool is rejected)."""
    sign = "positive" if positive else "nonnegative" if nonnegative else None
    return Field("number", sign=sign, unit=unit, optional=optional, default=default)


def integer(*, positive=False, nonnegative=False, optional=False, default=None) -> Field:
    """An integer scalar."""
    sign = "positive" if positive else "nonnegative" if nonnegative else None
    return Field("integer", sign=sign, optional=optional, default=default)


def text(*, choices=None, optional=False, default=None) -> Field:
    """A string, optionally restricted to ``choices``."""
    return Field("text", choices=tuple(choices) if choices else None, optional=optional, default=default)


def boolean(*, optional=False, default=None) -> Field:
    """``true`` or ``false``."""
    return Field("bool", optional=optional, default=default)


def vector(*shape: int, unit=None, positive=False, nonnegative=False, optional=False, default=None) -> Field:
    """A real array of the given shape (nested YAML lists), returned as ``np.ndarray``."""
    sign = "positive" if positive else "nonnegative" if nonnegative else None
    return Field("array", shape=tuple(shape), sign=sign, unit=unit, optional=optional, default=default)


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


def resolve_data_path(path: str | Path) -> Path:
    """Return ``path`` if it exists, else ``DATA_DIR / path``.

    >>> resolve_data_path("prp3/paper.yaml").name
    'paper.yaml'
    """
    p = Path(path)
    if p.is_file():
        return p
    q = DATA_DIR / p
    if not p.is_absolute() and q.is_file():
        return q
    raise ParameterFileError(f"parameter file {str(path)!r} not found (looked in the current folder and in {DATA_DIR})")


def load_yaml(path: str | Path, schema: Mapping[str, Any]) -> dict:
    """Read the YAML file ``path`` (or ``data/<path>``) and validate it against ``schema``."""
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

