"""3-PRP parallel robot (seed 003): closed-form kinematics, working modes, Jacobian, workspace.

* :mod:`.kinematics` -- geometry, forward and inverse kinematics, working modes, the paper's rules, Jacobian;
* :mod:`.sampling` -- workspace sampling and volumes, the large round trip and its error law;
* :mod:`.drawing` -- the labelled mechanism drawing and the Explore figure.

Its chapter is :mod:`robolib.studies.prp3_roundtrip`.

>>> from robolib import prp3
>>> g = prp3.load_geometry("prp3/paper.yaml")
>>> q = prp3.inverse(g, prp3.forward(g, 200.0, 200.0, 0.0))
>>> [round(float(v), 6) for v in q]
[200.0, 200.0, 0.0]
"""

from __future__ import annotations

from robolib.prp3 import drawing  # noqa: E402,F401
from robolib.prp3.kinematics import (  # noqa: F401
    ALL_MODES,
    COLLINEAR_TOL,
    DEFAULT_MODE,
    GEOMETRY_SCHEMA,
    HOME_INPUT,
    PAPER_RULES,
    RULE_MATCH_TOL,
    SINGULAR_TOL,
    SQRT1_2,
    U1,
    U2,
    Geometry,
    IKSolutions,
    RuleAmbiguityError,
    RuleOutcome,
    Singularity,
    V,
    _ik_parts,
    closure_matrices,
    forward,
    inverse,
    inverse_all,
    jacobian,
    load_geometry,
    mirror_root,
    mode_distance,
    paper_rule_outcome,
    singularity_measures,
    slider_points,
    sphere_centres,
    working_mode,
)
from robolib.prp3.sampling import (  # noqa: F401
    ErrorLaw,
    RoundTrip,
    Workspace,
    error_law,
    in_workspace,
    mirror_y,
    round_trip,
    sample_inputs,
    volume_hit_or_miss,
    voxel_volume,
    workspace,
)

__all__ = ["Geometry", "GEOMETRY_SCHEMA", "load_geometry", "DEFAULT_MODE", "ALL_MODES", "slider_points", "sphere_centres", "forward", "mirror_root", "inverse", "inverse_all", "IKSolutions", "working_mode", "mode_distance", "paper_rule_outcome", "RuleOutcome", "closure_matrices", "jacobian", "singularity_measures", "Singularity", "sample_inputs", "workspace", "Workspace", "voxel_volume", "mirror_y", "in_workspace", "volume_hit_or_miss", "RoundTrip", "round_trip", "ErrorLaw", "error_law", "PAPER_RULES", "RuleAmbiguityError"]
