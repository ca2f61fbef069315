"""The API reference (book/api/): one page per library package, tasks first, nothing public left out.

Static checks of the pages' directives against the library (no Sphinx build): every target imports, every
name a package makes public (its ``__all__``) is documented on its page, and no object twice. That the
directives render without warnings is the book build's job (``make book``, ``--warningiserror``).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

import pytest

from conftest import ROOT

API = ROOT / "book" / "api"
PACKAGES = ["prp3", "redundant", "stewart", "gearshift", "core"]
DIRECTIVE = re.compile(r"^\.\. (auto\w+):: (\S+)\n((?:   :[\w-]+:.*\n)*)", re.M)


def _directives(name: str) -> list[tuple[str, str, dict]]:
    text = (API / f"{name}.md").read_text()
    out = []
    for kind, target, opts in DIRECTIVE.findall(text):
        options = dict(re.findall(r"   :([\w-]+):(.*)", opts))
        out.append((kind, target, {k: v.strip() for k, v in options.items()}))
    return out


def _resolve(target: str):
    try:
        return importlib.import_module(target)
    except ImportError:
        module, _, attr = target.rpartition(".")
        return getattr(importlib.import_module(module), attr)


def _public(module) -> list[str]:
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n, o in vars(module).items() if not n.startswith("_") and getattr(o, "__module__", None) == module.__name__]
    return list(names)


def _documented(name: str) -> list[tuple[str, object]]:
    """(documented name, object) of every function and class a page documents, directives resolved as autodoc does."""
    out = []
    for kind, target, options in _directives(name):
        obj = _resolve(target)
        if kind != "automodule":
            out.append((target, obj))
            continue
        if "no-members" in options:
            continue
        excluded = {n.strip() for n in options.get("exclude-members", "").split(",") if n.strip()}
        for n in _public(obj):
            member = getattr(obj, n)
            if n not in excluded and (inspect.isclass(member) or inspect.isfunction(member)):
                out.append((f"{target}.{n}", member))
    return out


def test_the_reference_part_of_the_toc_is_the_index_with_one_page_per_package_and_the_chapters():
    toc = (ROOT / "book" / "_toc.yml").read_text()
    reference = toc.split("caption: Reference", 1)[1]
    files = re.findall(r"file: (\S+)", reference)
    assert files == ["api/index", *(f"api/{p}" for p in PACKAGES), "api/chapters", "references"]
    assert all((ROOT / "book" / f"{f}.md").is_file() for f in files)
    assert not (ROOT / "book" / "api.md").exists() and not (ROOT / "book" / "api_chapters.md").exists()


def test_the_index_links_every_package_page_and_the_chapters():
    index = (API / "index.md").read_text()
    assert "from robolib import prp3, redundant, stewart, gearshift" in index and "ParameterError" in index
    for page in [*PACKAGES, "chapters"]:
        assert f"]({page}.md)" in index, page


@pytest.mark.parametrize("name", PACKAGES)
def test_a_package_page_opens_with_its_tasks_and_ends_with_everything_else(name):
    text = (API / f"{name}.md").read_text()
    headings = re.findall(r"^## (.+)$", text, re.M)
    assert headings[0] == "Tasks" and headings[-1] == "Everything else in the package"
    tasks = text.split("## Tasks", 1)[1].split("\n## ", 1)[0]
    rows = [r for r in tasks.splitlines() if r.startswith("| ")][1:]
    assert len(rows) >= 5 and all(r.count("|") == 4 and r.split("|")[3].strip() for r in rows), "a task without its units"
    assert text.index("## Tasks") < text.index("```{eval-rst}")


def _public_modules(package) -> list:
    """The package and its modules (subpackages included) whose names do not start with an underscore."""
    out = [package]
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            out.append(importlib.import_module(info.name))
    return out


@pytest.mark.parametrize("name", PACKAGES)
def test_every_public_name_of_a_package_is_documented_once_on_its_page(name):
    documented = _documented(name)
    objects = [id(o) for _, o in documented]
    twice = sorted({n for n, o in documented if objects.count(id(o)) > 1})
    assert not twice, f"documented twice on the {name} page: {twice}"
    modules = {t for k, t, _ in _directives(name) if k == "automodule"}
    for module in _public_modules(importlib.import_module(f"robolib.{name}")):
        for n in _public(module):
            obj = getattr(module, n)
            if inspect.ismodule(obj):
                assert obj.__name__ in modules, f"{name}: module {obj.__name__} not documented"
            elif inspect.isclass(obj) or inspect.isfunction(obj):
                assert id(obj) in objects, f"{name}: public {module.__name__}.{n} not documented"
