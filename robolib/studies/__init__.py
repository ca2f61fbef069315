"""The book's chapters: one package per chapter, named exactly as its notebook.

==========================  ============================================================
:mod:`.prp3_roundtrip`      3-PRP FK/IK round trip (over :mod:`robolib.prp3`)
:mod:`.redundant_derivation` redundant planar robot: derivation (over :mod:`robolib.redundant`)
:mod:`.redundant_friction`  redundant planar robot: friction comparison
:mod:`.stewart_timing`      Stewart platform: U-joint Newton–Euler vs virtual work (over :mod:`robolib.stewart`)
:mod:`.clearance_dynamics`  gear-shift manipulator with joint clearance (over :mod:`robolib.gearshift`)
==========================  ============================================================

Each holds that chapter's settings, experiments, claims, figures and exercises, and its study
function ``run`` (the notebook's parameters as keywords; a :class:`robolib.book.result.StudyResult`).
A chapter imports the library (the mechanism packages, :mod:`robolib.core`) and the book helpers
(:mod:`robolib.book`); the library never imports a chapter (the layer contract in ``pyproject.toml``).
:mod:`robolib.study` finds a chapter by its name.
"""
