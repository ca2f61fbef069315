"""Every public callable of the library is fuzzed, or excused with a reason (issue 21, item 1; issue 32, item 3).

The public callables are the functions and classes a user calls: those named in ``__all__`` of robolib, of each
mechanism package and its public modules, of each module of the shared cores, and of :mod:`robolib.study`
(:data:`PUBLIC_MODULES`). Each must be the callable of a row of an entry-point table in a test module that uses the
harness tests/fuzzing.py (for a class: the class or one of its methods), or be excused: an exception class, a result
container (a named tuple), a name in such a module's ``NOT_FUZZED`` (with its reason there), or a name in
:data:`EXCUSED` here (with its reason). A new public function without a fuzz row fails this test. The chapters'
internals (``robolib.studies.*``, ``robolib.book.*``) are not in the list: their inputs are the study parameters,
checked by their declared specs; internal helpers trust their callers.
"""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

#: Modules whose ``__all__`` is the public interface.
PUBLIC_MODULES = (
    "robolib", "robolib.prp3", "robolib.redundant", "robolib.stewart", "robolib.gearshift",
    "robolib.gearshift.fast", "robolib.gearshift.orbits", "robolib.gearshift.store",
    "robolib.core.rotations", "robolib.core.constraints", "robolib.core.friction", "robolib.core.contact",
    "robolib.core.clearance", "robolib.core.multibody", "robolib.core.nonlinear", "robolib.core.periodic",
    "robolib.core.continuation", "robolib.core.parallel", "robolib.core.params", "robolib.core.files",
    "robolib.core.poincare",
    "robolib.study",
)

#: Public callables excused here (not in a test module's NOT_FUZZED), with the reason.
EXCUSED: dict[str, str] = {
    "ClearanceResult": "result container (a dataclass) returned by ClearanceModel.simulate (robolib.core.clearance)",
    "Workspace": "result container (a dataclass) returned by robolib.prp3.workspace",
    "WorkspaceSamples": "result container (a dataclass) returned by robolib.prp3.workspace_samples (its methods are fuzzed)",
}

TESTS = Path(__file__).parent


def _table_modules() -> list[str]:
    """The test modules that hold entry-point tables: those importing the harness (``from fuzzing import``),
    anywhere under tests/, by the module name pytest gives them (``core.test_contact``, ``stewart.test_entry_points``)."""
    return sorted(".".join(p.relative_to(TESTS).with_suffix("").parts) for p in TESTS.rglob("test_*.py")
                  if p != Path(__file__) and "from fuzzing import" in p.read_text())


FUZZ_FILES = _table_modules()


def fuzzed_entry_points() -> dict[str, list[str]]:
    """The row names of every entry-point table, per test module (``python tests/test_fuzz_coverage.py`` prints them)."""
    out = {}
    for name in FUZZ_FILES:
        mod = importlib.import_module(name)
        out[name] = sorted(key for value in vars(mod).values() if isinstance(value, dict)
                           for key, row in value.items() if isinstance(row, tuple) and row and callable(row[0]))
    return out


def _tables():
    """(callables of every entry-point row, names excused by the test modules' NOT_FUZZED tables)."""
    rows, excused = [], set()
    for name in FUZZ_FILES:
        mod = importlib.import_module(name)
        for attr, value in vars(mod).items():
            if attr.startswith("NOT_FUZZED") and isinstance(value, (dict, set, frozenset)):
                excused |= {str(k).split("(")[0] for k in value}
            elif isinstance(value, dict):
                for row in value.values():
                    if isinstance(row, tuple) and row and callable(row[0]):
                        rows.append(row[0])
    return rows, excused


def _public():
    out = {}
    for modname in PUBLIC_MODULES:
        mod = importlib.import_module(modname)
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name)
            if inspect.isfunction(obj) or inspect.isclass(obj):
                out.setdefault(f"{obj.__module__}.{obj.__qualname__}", (modname, name, obj))
    return out


def _covers(fn, obj) -> bool:
    target = getattr(fn, "__func__", fn)            # a bound method's function
    target = getattr(target, "func", target)         # functools.partial of the callable
    if target is obj:
        return True
    if inspect.isclass(obj):
        qual = getattr(target, "__qualname__", "")
        return qual.startswith(obj.__qualname__ + ".") and getattr(target, "__module__", None) == obj.__module__
    return False


def test_every_public_callable_is_fuzzed_or_excused():
    rows, excused = _tables()
    missing = []
    for key, (modname, name, obj) in sorted(_public().items()):
        if inspect.isclass(obj) and (issubclass(obj, BaseException) or (issubclass(obj, tuple) and hasattr(obj, "_fields"))):
            continue
        if name in excused or name in EXCUSED or any(_covers(fn, obj) for fn in rows):
            continue
        missing.append(f"{modname}.{name}")
    assert not missing, f"public callables without a fuzz row or an excuse: {missing}"


def test_the_excuses_name_public_callables():
    public = {name for _, name, _ in _public().values()}
    assert set(EXCUSED) <= public, sorted(set(EXCUSED) - public)


if __name__ == "__main__":
    import sys
    sys.path.insert(0, str(TESTS))
    tables = fuzzed_entry_points()
    for module, rows in tables.items():
        print(f"tests/{module.replace('.', '/')}.py ({len(rows)}): {', '.join(rows)}")
    print(f"{sum(map(len, tables.values()))} rows in {len(tables)} files")
