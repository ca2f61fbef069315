"""The shared cores under every mechanism package.

* :mod:`.errors` -- the error hierarchy (:class:`~robolib.core.errors.RobolibError` and its subclasses);
* :mod:`.params` -- the YAML parameter files in ``data/`` (loading, units, validation);
* :mod:`.rotations` -- rotation matrices, Euler angles (Rz Ry Rx), skew matrices;
* :mod:`.constraints` -- Udwadia-Kalaba equation (one step and sequential layers), multipliers, KKT, Baumgarte;
* :mod:`.friction` -- joint friction laws: smooth sign, load-dependent Coulomb, Stribeck, viscous;
* :mod:`.multibody` -- planar multibody in absolute coordinates, its solvers and integrator;
* :mod:`.contact` -- contact laws: Hertz stiffness, Lankarani-Nikravesh / Flores / Hertz, modified Coulomb;
* :mod:`.clearance` -- revolute joints with clearance on the multibody core, contact episodes;
* :mod:`.nonlinear` -- Poincare sections, period-k tests, sweeps (joblib / Dask), Lyapunov exponents, spectra;
* :mod:`.drawing` -- any planar mechanism drawn (:func:`~.drawing.draw_mechanism`), a journal orbit, the book's figure width, labels, dimension lines and angle arcs;
* :mod:`.parallel` -- sweeps of a function over parameter points (serial, joblib, Dask), checkpointed;
* :mod:`._kernels` -- the compiled (numba) kernels shared by the multibody and clearance cores;
* :mod:`._dopri` -- the compiled Dormand--Prince step loop (dense output, events) of every compiled model.
"""
