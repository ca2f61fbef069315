"""The pinned environment: requirements.lock and environment.yml must not drift apart."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def lock_pins() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, version = line.partition("==")
        assert sep, f"requirements.lock: {line!r} is not pinned with =="
        pins[name.lower().replace("_", "-")] = version
    return pins


def env_pins() -> dict[str, str]:
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict) and "pip" in d)
    out = {}
    for spec in pip:
        name, sep, version = spec.partition("==")
        assert sep, f"environment.yml: {spec!r} is not pinned with =="
        out[name.lower().replace("_", "-")] = version
    return out


def test_environment_yml_pins_exactly_the_lock():
    lock, env = lock_pins(), env_pins()
    assert set(lock) == set(env), f"only in lock: {set(lock) - set(env)}; only in environment.yml: {set(env) - set(lock)}"
    drift = {k: (lock[k], env[k]) for k in lock if lock[k] != env[k]}
    assert not drift, f"versions differ (lock, environment.yml): {drift}"


def test_environment_yml_python_matches_pyproject():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    assert "python=3.11" in env["dependencies"]
    assert 'requires-python = ">=3.11,<3.12"' in (ROOT / "pyproject.toml").read_text()


def test_every_direct_dependency_is_pinned():
    lock = lock_pins()
    direct = []
    for line in (ROOT / "requirements.in").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            direct.append(re.split(r"[<>=!~\[ ]", line)[0].lower())
    missing = [d for d in direct if d not in lock]
    assert not missing, f"requirements.in names packages the lock does not pin: {missing}"
    assert lock["jupyter-book"].startswith("1."), "the book needs Jupyter Book 1.x (see spec/workbench.md)"


def test_installed_versions_are_the_locked_ones():
    from importlib.metadata import version

    lock = lock_pins()
    for name in ("numpy", "scipy", "sympy", "matplotlib", "papermill", "jupyter-book", "ipywidgets"):
        assert version(name) == lock[name], f"{name}: installed {version(name)}, locked {lock[name]} (run make env)"
