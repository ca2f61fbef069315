"""Mutation testing of the kernel modules (``make mutate``; issue 21, item 5).

Runs mutmut (configuration: ``[tool.mutmut]`` in pyproject.toml) once per module, with that module's
tests (``[tool.robolib.mutate.tests]``; files that do not exist are skipped), in a scratch work tree
``build/mutate/<module>/`` whose ``robolib``, ``tests``, ``data``, ``conftest.py`` are links to the
checkout, so the mutants (``build/mutate/<module>/mutants/``) never touch the sources. Every run starts from a fresh
``mutants/`` (mutmut would otherwise keep the verdicts of a previous run although the tests changed),
runs on ONE worker, and prints the score per module::

    python tools/mutate.py                      # all modules of only_mutate
    python tools/mutate.py --only contact       # modules whose path contains 'contact'
    python tools/mutate.py --report             # re-print the score of the last run (of the chosen modules)
    python tools/mutate.py --survivors          # and list the surviving mutants
    python tools/mutate.py --rerun-survivors    # only the last run's survivors, against the current tests

The operators are mutmut's, narrowed to the ones that make plausible bugs of a numerical kernel
(:func:`narrow_operators`): numbers (+1), signs, arithmetic and comparison operators, ``and``/``or``,
``True``/``False``, conditional expressions, an assignment's value set to ``None``, and a keyword argument
dropped (``open_low=True`` of a range check, ``axis=-1``). Left out: string mutants (error-message
text: the fuzz suite checks what the messages name) and dropping or ``None``-ing each positional argument
(a ``TypeError`` at the first call, killed by any test, and half of all mutants).

Functions compiled with numba are decorated and mutmut leaves decorated functions alone, so the numba
kernels (robolib/stewart/_kernels.py, robolib/core/_kernels.py, robolib/core/_dopri.py,
robolib/gearshift/_kernels.py) are not mutated: they are checked against
independent references by their own tests.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "build" / "mutate"
LINKS = ("robolib", "tests", "data", "conftest.py")

#: mutmut's exit codes of a mutant run -> the verdict reported here (mutmut.stats.status_by_exit_code).
VERDICT = {1: "killed", 3: "killed", 0: "survived", 5: "no tests", 33: "no tests", 34: "skipped",
           36: "timeout", -24: "timeout", 24: "timeout", 152: "timeout", 255: "timeout",
           -11: "segfault", -9: "segfault", None: "not checked"}


def narrow_operators() -> None:
    """Restrict mutmut's operator list in place (see the module docstring)."""
    import libcst as cst
    from mutmut.mutation import mutators as m

    def keyword_argument_removal(node: cst.Call):
        for i, arg in enumerate(node.args):
            if arg.keyword is not None:
                yield node.with_changes(args=[*node.args[:i], *node.args[i + 1:]])

    left_out = {m.operator_string, m.operator_arg_removal, m.operator_dict_arguments,
                m.operator_symmetric_string_methods_swap, m.operator_unsymmetrical_string_methods_swap}
    m.mutation_operators[:] = [(t, f) for t, f in m.mutation_operators if f not in left_out]
    m.mutation_operators.append((cst.Call, keyword_argument_removal))


def run_mutmut(argv: list[str]) -> None:
    """``mutmut ARGV`` in this process (cwd = build/mutate) with the narrowed operators."""
    narrow_operators()
    from mutmut.__main__ import cli

    cli(argv)


def toml_value(value) -> str:
    """A TOML literal of a string, bool, number or list of those (JSON strings are TOML basic strings)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return json.dumps(value)


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def work_dir(module: str) -> Path:
    """build/mutate/<module path with dots>/, e.g. build/mutate/core.contact/ for robolib/core/contact.py."""
    return WORK / ".".join(Path(module).with_suffix("").parts[1:])


def select_modules(only: list[str]) -> list[str]:
    modules = pyproject()["tool"]["mutmut"]["only_mutate"]
    chosen = [m for m in modules if not only or any(o in m for o in only)]
    if not chosen:
        sys.exit(f"error: no module of only_mutate matches {only}; modules: {modules}")
    return chosen


def own_tests(module: str) -> str:
    """The module's own test file: tests/ mirrors robolib/ (robolib/core/multibody/solvers.py ->
    tests/core/multibody/test_solvers.py)."""
    parts = Path(module).with_suffix("").parts[1:]
    return "/".join(("tests", *parts[:-1], f"test_{parts[-1]}.py"))


def module_tests(module: str) -> list[str]:
    """The test files run against the mutants of ``module``: those of ``[tool.robolib.mutate.tests]`` that exist,
    or, for a module not listed there, its own test file (:func:`own_tests`)."""
    listed = pyproject()["tool"]["robolib"]["mutate"]["tests"].get(module) or [own_tests(module)]
    return [t for t in listed if (ROOT / t).exists()]


def write_work_tree(module: str, fresh: bool = True) -> Path:
    """Lay out the work tree of one module: links + a pyproject.toml mutating that module with its tests.

    ``fresh=False`` keeps the mutants and verdicts of the last run (to re-run its survivors).
    """
    cfg = pyproject()["tool"]
    tests = module_tests(module)
    work = work_dir(module)
    if fresh:
        if work.exists():
            shutil.rmtree(work)
        work.mkdir(parents=True)
        for name in LINKS:
            (work / name).symlink_to(ROOT / name)
    text = (ROOT / "pyproject.toml").read_text()
    text = re.sub(r"(?ms)^\[tool\.mutmut\]\n.*?(?=^\[|\Z)", "", text)
    mm = dict(cfg["mutmut"])
    mm["only_mutate"] = [module]
    mm["pytest_add_cli_args_test_selection"] = tests + mm.get("pytest_add_cli_args_test_selection", [])
    text += "\n[tool.mutmut]\n" + "".join(f"{k} = {toml_value(v)}\n" for k, v in mm.items())
    (work / "pyproject.toml").write_text(text)
    return work


def verdicts(module: str) -> dict[str, str]:
    meta = work_dir(module) / "mutants" / (module + ".meta")
    if not meta.exists():
        return {}
    codes = json.loads(meta.read_text())["exit_code_by_key"]
    return {k: VERDICT.get(v, "suspicious") for k, v in codes.items()}


def report(modules: list[str], survivors: bool) -> None:
    rows, total = [], Counter()
    for module in modules:
        c = Counter(verdicts(module).values())
        total.update(c)
        rows.append((module, c))
    rows.append(("all", total))
    print(f"{'module':32s} {'killed':>6s} {'surv.':>6s} {'t/out':>6s} {'no test':>7s} {'unrun':>6s} {'total':>6s}  score")
    for module, c in rows:
        n = sum(c.values())
        k = c["killed"] + c["timeout"]
        score = f"{k}/{n} = {100 * k / n:.1f} %" if n else "-"
        print(f"{module:32s} {c['killed']:6d} {c['survived']:6d} {c['timeout']:6d} {c['no tests']:7d} "
              f"{c['not checked']:6d} {n:6d}  {score}")
    print("score = (killed + timeout) / total; 'no test': a mutant of a function no selected test calls;"
          " 'unrun': not run (an interrupted run)")
    if survivors:
        for module in modules:
            for key, v in sorted(verdicts(module).items()):
                if v not in ("killed", "timeout"):
                    print(f"  {v:9s} {key}")


def run_module(module: str, survivors_only: bool = False) -> float:
    """mutmut over one module on ONE worker; returns the wall time (s).

    ``survivors_only``: re-run only the mutants the last run left alive, with the module's current tests
    (quicker than a fresh run; the killed ones stay killed as long as no test was removed).
    """
    names, kept = [], {}
    meta = work_dir(module) / "mutants" / (module + ".meta")
    if survivors_only:
        names = [k for k, v in verdicts(module).items() if v not in ("killed", "timeout")]
        if not names:
            return 0.0
        kept = {k: v for k, v in json.loads(meta.read_text())["exit_code_by_key"].items() if k not in names}
    work = write_work_tree(module, fresh=not survivors_only)
    env = {**os.environ, "NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    t0 = time.monotonic()
    log = work / "mutmut.log"
    with log.open("w") as out:
        rc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--mutmut", "run", "--max-children", "1", *names],
                            cwd=work, env=env, stdout=out, stderr=subprocess.STDOUT).returncode
    seconds = time.monotonic() - t0
    if kept:  # a changed test selection makes mutmut forget the verdicts it did not re-run: restore them
        data = json.loads(meta.read_text())
        data["exit_code_by_key"].update(kept)
        meta.write_text(json.dumps(data, indent=4))
    if rc != 0:
        print(log.read_text()[-4000:])
        sys.exit(f"error: mutmut run over {module} exited with {rc} (log: {log})")
    print(f"  {module}: mutmut ran in {seconds:.0f} s (log: {log.relative_to(ROOT)})", flush=True)
    return seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", default=[], help="modules whose path contains one of these words")
    ap.add_argument("--report", action="store_true", help="print the score of the last run, do not run")
    ap.add_argument("--survivors", action="store_true", help="list the mutants that were not killed")
    ap.add_argument("--rerun-survivors", action="store_true",
                    help="re-run only the survivors of the last run, with the current tests")
    ap.add_argument("--mutmut", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)  # the child: mutmut itself
    args = ap.parse_args()
    if args.mutmut is not None:
        run_mutmut(args.mutmut)
        return
    modules = select_modules(args.only)
    if not args.report:
        seconds = sum(run_module(m, args.rerun_survivors) for m in modules)
        print(f"mutmut ran in {seconds:.0f} s in all, one worker")
    report(modules, args.survivors)


if __name__ == "__main__":
    main()
