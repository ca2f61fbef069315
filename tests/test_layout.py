"""The package layout: three layers (chapters, mechanism packages, cores), one name per chapter, short chapters.

The layer contract (import-linter, ``pyproject.toml``) and the linter (ruff) run here; imports sit at the top
of a module except optional dependencies; the names users call keep working as attributes
(``from robolib import nonlinear``, ``prp3.forward``, ``gearshift.poincare_run``) with no import hook; the
notebooks hold at most 1,000 code lines together and no cell over 25 (blank and comment-only lines not counted).
"""

from __future__ import annotations

import ast
import importlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import notebook_lines  # noqa: E402

MECHANISMS = ("prp3", "redundant", "stewart", "gearshift")
CORES = ("errors", "params", "rotations", "constraints", "friction", "multibody", "contact", "clearance", "nonlinear")
CHAPTERS = sorted(p.stem for p in (ROOT / "notebooks").glob("*.md"))
#: What a function may import inside its body: optional dependencies (the notebook's and the cluster's) and
#: pyplot, whose import picks a backend.
LAZY_IMPORTS = ("IPython", "myst_nb", "ipywidgets", "dask", "distributed", "pinocchio", "tqdm", "matplotlib.pyplot", "jupytext")


# ---- three layers --------------------------------------------------------------------------------------------
def test_each_mechanism_is_a_package_with_a_drawing_and_no_chapter_code():
    for mech in MECHANISMS:
        folder = ROOT / "robolib" / mech
        assert (folder / "__init__.py").is_file(), mech
        assert (folder / "drawing.py").is_file(), f"{mech}: no drawing module"
        assert not list(folder.glob("*study*.py")), f"{mech}: a study module in the library"
    top = sorted(p.stem for p in (ROOT / "robolib").glob("*.py"))
    assert top == ["__init__", "study"], f"top-level modules besides the packages: {top}"


def test_one_name_per_chapter_notebook_package_registry_and_test_file():
    from robolib import study

    assert sorted(study.STUDIES) == CHAPTERS
    packages = sorted(p.parent.name for p in (ROOT / "robolib" / "studies").glob("*/__init__.py"))
    assert packages == CHAPTERS
    assert sorted(p.stem.removeprefix("test_") for p in (ROOT / "tests" / "studies").glob("test_*.py")) == CHAPTERS
    for name in CHAPTERS:
        assert study.study_function(name) is importlib.import_module(f"robolib.studies.{name}").run


def lint_imports(cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).with_name("lint-imports")
    return subprocess.run([str(exe), "--config", str(ROOT / "pyproject.toml"), "--no-cache"], capture_output=True,
                          text=True, cwd=cwd, env=env)


def test_the_layer_contract_holds():
    """Chapters -> book helpers -> mechanism packages -> cores; chapters independent (pyproject.toml)."""
    res = lint_imports(ROOT)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-2000:]
    assert "2 kept, 0 broken" in res.stdout


def test_the_layer_contract_catches_a_library_module_importing_a_chapter(tmp_path):
    shutil.copytree(ROOT / "robolib", tmp_path / "robolib", ignore=shutil.ignore_patterns("__pycache__"))
    files = tmp_path / "robolib" / "core" / "files.py"
    files.write_text(files.read_text() + "\nimport robolib.studies.prp3_roundtrip  # noqa\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "PYTHONSAFEPATH": "1"}
    check = subprocess.run([sys.executable, "-c", "import importlib.util as u; print(u.find_spec('robolib').origin)"],
                           capture_output=True, text=True, cwd=tmp_path, env=env)
    if not check.stdout.startswith(str(tmp_path)):
        pytest.skip(f"the copy is not the robolib this interpreter imports ({check.stdout.strip()} {check.stderr[-500:]})")
    res = lint_imports(tmp_path, env)
    assert res.returncode != 0 and "BROKEN" in res.stdout, res.stdout[-3000:]
    assert "robolib.core.files -> robolib.studies.prp3_roundtrip" in res.stdout


def function_imports(tree: ast.AST) -> list[tuple[int, str]]:
    """``(line, module)`` of every import inside a function body."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for sub in ast.walk(node):
                if isinstance(sub, ast.Import):
                    found |= {(sub.lineno, a.name) for a in sub.names}
                elif isinstance(sub, ast.ImportFrom):
                    found.add((sub.lineno, "." * sub.level + (sub.module or "")))
    return sorted(found)


def test_imports_sit_at_the_top_except_optional_dependencies():
    lazy = {}
    for path in (ROOT / "robolib").rglob("*.py"):
        for line, module in function_imports(ast.parse(path.read_text())):
            if not any(module == m or module.startswith(m + ".") for m in LAZY_IMPORTS):
                lazy[f"{path.relative_to(ROOT)}:{line}"] = module
    assert not lazy, f"imports inside functions (move them to the top): {lazy}"


def test_the_import_finder_sees_imports_in_nested_functions():
    code = "import os\ndef f():\n    def g():\n        from robolib.core import files\n    import IPython\n"
    assert function_imports(ast.parse(code)) == [(4, "robolib.core"), (5, "IPython")]


def test_the_linter_finds_nothing():
    exe = Path(sys.executable).with_name("ruff")
    res = subprocess.run([str(exe), "check", "--no-cache", "robolib", "tests", "bench", "tools", "book/_ext", "conftest.py"],
                         capture_output=True, text=True, cwd=ROOT)
    assert res.returncode == 0, res.stdout[-3000:]


# ---- the names users call ------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", CORES)
def test_short_names_of_the_cores_are_attributes_of_the_package(name):
    import robolib

    core = importlib.import_module(f"robolib.core.{name}")
    assert getattr(robolib, name) is core
    exec(f"from robolib import {name} as m", ns := {})
    assert ns["m"] is core


def test_there_is_no_import_hook():
    """The short names are attributes, not modules: ``import robolib.nonlinear`` fails, nothing is on sys.meta_path."""
    code = ("import sys; n = len(sys.meta_path); import robolib; assert len(sys.meta_path) == n, sys.meta_path\n"
            "try:\n    import robolib.nonlinear\nexcept ModuleNotFoundError:\n    print('no hook')")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert res.stdout.strip() == "no hook", res.stderr[-2000:]


def test_public_names_keep_working():
    from robolib import ParameterError, gearshift, nonlinear, prp3, redundant, stewart

    assert callable(prp3.forward) and callable(prp3.round_trip) and callable(prp3.workspace)
    assert callable(gearshift.poincare_run) and callable(gearshift.lyapunov_run) and callable(gearshift.build_gearshift)
    assert callable(redundant.simulate) and callable(redundant.inverse_dynamics) and callable(redundant.load)
    assert callable(stewart.inverse_dynamics) and callable(nonlinear.sweep)
    assert ParameterError is importlib.import_module("robolib").ParameterError


def test_a_fresh_interpreter_gets_the_library_without_the_chapters():
    code = ("import sys, robolib; from robolib import prp3, nonlinear; assert prp3.forward and nonlinear.sweep; "
            "print(sorted(m for m in sys.modules if m.startswith(('robolib.studies', 'robolib.book'))))")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert res.stdout.strip() == "[]", res.stderr[-2000:]


# ---- chapters ------------------------------------------------------------------------------------------------
def test_chapters_hold_little_code():
    rep = notebook_lines.report(sorted((ROOT / "notebooks").glob("*.md")))
    over = {name: r["over"] for name, r in rep.items() if r["over"]}
    assert not over, f"code cells over {notebook_lines.MAX_CELL_LINES} lines (first line, count): {over}"
    total = sum(r["total"] for r in rep.values())
    assert total <= notebook_lines.MAX_TOTAL_LINES, {name: r["total"] for name, r in rep.items()}


def test_the_line_counter_counts_code_only(tmp_path):
    nb = tmp_path / "x.md"
    nb.write_text("# t\n\n```{code-cell} ipython3\n---\ntags: [hide-input]\nmystnb:\n  figure:\n    caption: c\n---\n"
                  "# a comment\nx = 1\n\ny = 2  # two\n```\n\ntext\n\n```{code-cell} ipython3\n:tags: [parameters]\n\nseed = 1\n```\n")
    assert [n for _, n in notebook_lines.report([nb])["x"]["cells"]] == [2, 1]


def test_models_pages_take_their_constants_from_the_code():
    """``{robolib-value}`module.NAME``` in a page renders the constant; every one a page uses resolves."""
    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    import robolib_book

    from robolib import nonlinear

    assert robolib_book.code_value("robolib.core.nonlinear.LADDER_FIT") == str(nonlinear.LADDER_FIT)
    assert robolib_book.code_value("robolib.core.nonlinear.LADDER_MIN_SLOPE") == f"{nonlinear.LADDER_MIN_SLOPE:g}"
    assert robolib_book.code_value("robolib.core.nonlinear.LADDER_MIN_SLOPE:.2f") == f"{nonlinear.LADDER_MIN_SLOPE:.2f}"
    with pytest.raises(AttributeError):
        robolib_book.code_value("robolib.core.nonlinear.NO_SUCH_CONSTANT")
    for page in (p for p in (ROOT / "book").rglob("*.md") if "_build" not in p.parts):   # sources, not a build
        for target in re.findall(r"\{robolib-value\}`([^`]+)`", page.read_text()):
            robolib_book.code_value(target)


MODULE_NAME = re.compile(r"`(robolib(?:\.[A-Za-z_][A-Za-z0-9_]*)+)")


def named_modules(text: str) -> set[str]:
    """The dotted ``robolib.…`` names a page quotes in backticks (a trailing attribute is kept)."""
    return set(MODULE_NAME.findall(text))


def resolves(name: str) -> bool:
    """True when NAME is an importable module or an attribute of one (``robolib.studies.prp3_roundtrip.study.x``)."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def test_the_name_checker_refuses_a_missing_module():
    assert named_modules("drawn by `robolib.drawings` and `robolib.prp3.drawing`") == {
        "robolib.drawings", "robolib.prp3.drawing"}
    assert not resolves("robolib.drawings")
    assert not resolves("robolib.prp3.no_such_function")
    assert resolves("robolib.prp3.drawing") and resolves("robolib.core.multibody")


SOURCE_PAGES = sorted(p for p in [*ROOT.glob("book/**/*.md"), *ROOT.glob("notebooks/*.md")] if "_build" not in p.parts)


@pytest.mark.parametrize("page", SOURCE_PAGES,
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_every_module_a_page_names_exists(page):
    missing = sorted(n for n in named_modules(page.read_text(encoding="utf-8")) if not resolves(n))
    assert not missing, f"{page.relative_to(ROOT)} names modules that do not exist: {missing}"
