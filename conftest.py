"""Doctests of a mechanism package run in the package's namespace.

A module of a package (``robolib.redundant.dynamics``) documents its functions with examples that use the
package's other public names (``load`` from ``robolib.redundant.model``), as a reader who typed
``from robolib import redundant`` would; names the module itself defines take precedence.
"""

from __future__ import annotations

import importlib

import pytest
from _pytest.doctest import DoctestItem


@pytest.fixture(autouse=True)
def _package_namespace(request):
    item = request.node
    if not isinstance(item, DoctestItem) or item.dtest is None:
        return
    module = item.dtest.globs.get("__name__", "")
    package = module.rpartition(".")[0]
    if not package.startswith("robolib.") or package == "robolib":
        return
    pkg = importlib.import_module(package)
    for name in getattr(pkg, "__all__", [n for n in vars(pkg) if not n.startswith("_")]):
        item.dtest.globs.setdefault(name, getattr(pkg, name))
