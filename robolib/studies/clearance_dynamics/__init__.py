"""Chapter *Gear-shift manipulator with joint clearance* (notebook ``notebooks/clearance_dynamics.md``, study ``clearance_dynamics``).

The chapter's experiments over the library :mod:`robolib.gearshift`; ``run(**params)`` is the whole chapter
(``robolib.study.run("clearance_dynamics", ...)``, ``python -m robolib.study clearance_dynamics``).

* :mod:`robolib.studies.clearance_dynamics.study` -- the chapter's study function :func:`run` and its declared ``PARAMETERS``;
* :mod:`robolib.studies.clearance_dynamics.settings` -- the chapter's settings and the constants its claims' criteria use;
* :mod:`robolib.studies.clearance_dynamics.experiments` -- the chapter's model experiments;
* :mod:`robolib.studies.clearance_dynamics.orbit_study` -- periodic orbits, Floquet multipliers and the continued branch of the chapter;
* :mod:`robolib.studies.clearance_dynamics.verdicts` -- tolerance ladders, replicates and Lyapunov verdicts;
* :mod:`robolib.studies.clearance_dynamics.verdict_store` -- the stored runs of the verdict study (``make bifurcation``);
* :mod:`robolib.studies.clearance_dynamics.bifurcation` -- the bifurcation sweeps the chapter reads;
* :mod:`robolib.studies.clearance_dynamics.figures` -- the chapter's figures, animations and Explore panels.
"""

from __future__ import annotations

from robolib.studies.clearance_dynamics.study import PARAMETERS, run

__all__ = ["PARAMETERS", "run"]
