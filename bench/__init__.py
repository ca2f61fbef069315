"""Benchmarks of the workbench (``make bench`` runs ``python -m bench``).

Each study adds a module ``bench/<study>.py`` with a function ``run()`` that
prints its figures (and ratios) as it measures them and returns a flat dict of
``{key: number}``. ``python -m bench`` runs every registered module (or the
ones named on the command line) and merges the keys into ``bench/results.json``.
"""

MODULES = ["prp3", "redundant", "stewart", "clearance"]
