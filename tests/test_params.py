"""The YAML parameter-file loader: missing, unknown and mistyped fields are named."""

from __future__ import annotations

import pytest

import robolib
from robolib.core.params import boolean, integer, load_yaml, number, text, vector

SCHEMA = {
    "name": text(),
    "mass": number(unit="kg", positive=True),
    "count": integer(nonnegative=True),
    "flag": boolean(optional=True, default=False),
    "link": {"com": vector(2, unit="m"), "law": text(choices=("a", "b"))},
    "points": vector(-1, 2),
}
GOOD = """
name: demo
mass: 1.5
count: 3
link: {com: [0.1, 0.0], law: a}
points: [[0, 0], [1, 2], [3, 4]]
"""


def write(tmp_path, text_):
    p = tmp_path / "demo.yaml"
    p.write_text(text_)
    return p


def test_good_file_is_converted(tmp_path):
    p = load_yaml(write(tmp_path, GOOD), SCHEMA)
    assert p["mass"] == 1.5 and p["flag"] is False and p["points"].shape == (3, 2)


@pytest.mark.parametrize(
    "old, new, match",
    [
        ("mass: 1.5", "", r"demo.yaml: field 'mass' is missing"),
        ("mass: 1.5", "mass: heavy", r"field 'mass' must be a number, got 'heavy'"),
        ("mass: 1.5", "mass: -1", r"field 'mass' must be positive"),
        ("mass: 1.5", "mass: true", r"field 'mass' must be a number"),
        ("count: 3", "count: 3.5", r"field 'count' must be an integer"),
        ("law: a", "law: c", r"field 'link.law' must be one of \['a', 'b'\]"),
        ("com: [0.1, 0.0]", "com: [0.1]", r"field 'link.com' must be an array of numbers of shape 2"),
        ("com: [0.1, 0.0]", "com: [0.1, x]", r"field 'link.com' must be an array of numbers"),
        ("name: demo", "name: demo\nmas: 2", r"field 'mas' is not a known field"),
        ("points: [[0, 0], [1, 2], [3, 4]]", "points: [[0, 0], [1, 2, 3]]", r"field 'points' must be an array"),
    ],
)
def test_bad_fields_are_named(tmp_path, old, new, match):
    with pytest.raises(robolib.ParameterFileError, match=match):
        load_yaml(write(tmp_path, GOOD.replace(old, new)), SCHEMA)


def test_missing_file_and_bad_yaml(tmp_path):
    with pytest.raises(robolib.ParameterFileError, match="not found"):
        load_yaml(tmp_path / "nope.yaml", SCHEMA)
    with pytest.raises(robolib.ParameterFileError, match="not valid YAML"):
        load_yaml(write(tmp_path, "a: [1, 2"), SCHEMA)
    with pytest.raises(robolib.ParameterFileError, match="top level must be a mapping"):
        load_yaml(write(tmp_path, "- 1\n- 2\n"), SCHEMA)
