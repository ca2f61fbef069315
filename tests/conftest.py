"""Shared fixtures: the study notebooks executed with quick parameters, in a copy of book/."""

from __future__ import annotations

import gc
import os
import shutil
import sys
import time
from pathlib import Path

import jupytext
import papermill
import pytest
from hypothesis import settings

# The suite draws the same hypothesis examples on every run (CI must not pass one day and fail the next);
# HYPOTHESIS_PROFILE=explore draws new ones each run, e.g. to look for counterexamples by hand.
settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("explore", derandomize=False, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

ROOT = Path(__file__).resolve().parent.parent
#: CPU seconds (this process's clock, :func:`refusal`) within which a bad value must be refused: before any work
#: (a quick run takes seconds of CPU, a refusal milliseconds).
PROMPT_CPU_S = 0.5
STUDIES = sorted(p.stem for p in (ROOT / "notebooks").glob("*.md"))
BIN = Path(sys.executable).parent
#: Seconds a single notebook cell may run in the quick runs before the test fails.
TIMEOUT = 600


def refusal(call, match=None) -> tuple[str, float]:
    """``call()`` raises :class:`robolib.ParameterError` matching ``match``: ``(its message, CPU seconds)``.

    The call is made twice; the first imports and caches what it needs, the second is timed on this process's
    CPU clock (:func:`time.process_time`, garbage collector off) -- not the wall clock, which other processes
    stretch on a loaded machine, so a prompt refusal cannot fail there. Compare the seconds with
    :data:`PROMPT_CPU_S`.
    """
    from robolib import ParameterError

    with pytest.raises(ParameterError, match=match):
        call()
    gc.disable()
    try:
        t0 = time.process_time()
        with pytest.raises(ParameterError, match=match) as info:
            call()
        cpu = time.process_time() - t0
    finally:
        gc.enable()
    return str(info.value), cpu


def to_ipynb(study: str, dest: Path) -> Path:
    """The MyST source of a study as an (unexecuted) .ipynb in ``dest``."""
    nb = jupytext.read(ROOT / "notebooks" / f"{study}.md")
    out = dest / f"{study}.ipynb"
    jupytext.write(nb, out)
    return out


@pytest.fixture(scope="session")
def quick_book(tmp_path_factory):
    """A copy of book/ whose studies are the quick papermill runs, and the failures."""
    tmp = tmp_path_factory.mktemp("quick")
    book = tmp / "book"
    shutil.copytree(ROOT / "book", book, ignore=shutil.ignore_patterns("_build", "*.ipynb"))
    (book / "studies").mkdir(exist_ok=True)
    failures = {}
    for study in STUDIES:
        src = to_ipynb(study, tmp)
        try:
            papermill.execute_notebook(src, book / "studies" / f"{study}.ipynb", parameters={"quick": True},
                                       kernel_name="python3", progress_bar=False, cwd=str(tmp),
                                       execution_timeout=TIMEOUT)
        except (papermill.PapermillExecutionError, TimeoutError, RuntimeError) as exc:
            failures[study] = f"{type(exc).__name__}: {exc}"
    return book, failures


@pytest.fixture(scope="session")
def built_quick_book(quick_book):
    """The quick book built to HTML (Jupyter Book, warnings as errors)."""
    import subprocess

    book, failures = quick_book
    res = subprocess.run([BIN / "jupyter-book", "build", str(book), "--warningiserror", "--keep-going", "--quiet"],
                         capture_output=True, text=True)
    return book, failures, res


_QUICK_RESULTS: dict = {}


@pytest.fixture(scope="session")
def quick_study():
    """``quick_study(name, **params)``: the study run in this process with ``quick=True`` (cached per session).

    Tests of one study share its quick run; a test that changes a parameter calls it with that parameter.
    """
    from robolib import study as _study

    def get(name, **params):
        params = {"quick": True, **params}
        key = (name, repr(sorted(params.items())))
        if key not in _QUICK_RESULTS:
            _QUICK_RESULTS[key] = _study.run(name, **params)
        return _QUICK_RESULTS[key]

    return get
