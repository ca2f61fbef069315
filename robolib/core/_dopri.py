"""The one compiled adaptive step loop: Dormand--Prince 5(4), dense output, event location (numba).

Internal module. :func:`integrate_py` is the step loop of both compiled models: the planar DAE of
the multibody core (:mod:`robolib.core._kernels`) and the gear-shift's minimal-coordinate
clearance model (:mod:`robolib.gearshift._kernels`). The model enters as functions passed as
arguments, each with a tuple of its further arguments:

* ``before(t, *before_args)``: a hook run before each stage (the DAE evaluates its drivers at t);
  :data:`no_hook_c` for none;
* ``stage(t, y, dy, *model) -> int``: the right-hand side ``dy = f(t, y)``, with everything it needs
  (parameters, work arrays) in the tuple ``model``; 0 = OK, another value = the stage failed (that
  value is reported in ``st[9]``);
* ``event(k, y, *ev) -> float``: event function k (a contact's penetration): an *onset* is a crossing
  from ``<= 0`` to ``> 0`` in an accepted step, an *end* the crossing back; ``cst (k, 4)`` holds the
  states of the ``k`` events;
* ``onset(k, t, ys, y, *ev) -> float``: the value stored in ``dd0[k]`` at an onset (a contact's onset speed,
  already clipped to its floor), computed on the dense output ``ys`` at the located crossing time ``t``; ``y``
  is the state at the start of the step, which is redone after an onset: a model that carries tangent columns
  writes the jump of their memory component (the saltation of the onset speed) there.

Each kernel module's own compiled ``integrate_py`` is the entry point: it passes its functions, and
numba compiles the loop inlined into it (``inline="always"``), the calls to the functions direct, as
to globals. The loop never holds a function as a run-time value, so the entry point is cached on disk;
numba's cache follows the entry point's source file only: after an edit of this module, delete the
kernel modules' cached code (``robolib/*/__pycache__/_kernels.*.nb[ic]``). The functions are called
through :data:`_CALL`, an intrinsic that passes the members of the tuple as they are: numba's own
``stage(t, y, dy, *model)`` builds a new tuple, one reference count up and down per array and call
(measured: the fast model 20 % slower).

Dense output: the Dormand--Prince 4th-order continuous extension (Shampine 1986; the same
coefficients as ``scipy.integrate.RK45``).
"""

from __future__ import annotations

import math

import numpy as np

try:
    import numba as _numba
except ImportError:  # pragma: no cover
    _numba = None

#: Dormand--Prince 5(4) tableau.
C_NODES = np.array([0.0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1.0, 1.0])
A_MAT = np.zeros((7, 7))
for _i, _row in enumerate([[], [1 / 5], [3 / 40, 9 / 40], [44 / 45, -56 / 15, 32 / 9],
                           [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729],
                           [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656],
                           [35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84]]):
    A_MAT[_i, :len(_row)] = _row
B_5 = np.array([35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0.0])
E_ERR = B_5 - np.array([5179 / 57600, 0.0, 7571 / 16695, 393 / 640, -92097 / 339200, 187 / 2100, 1 / 40])
#: Dense-output matrix: ``y(t0 + x h) = y0 + h sum_j (K^T P)_j x^(j+1)``.
P_DENSE = np.array([
    [1.0, -8048581381 / 2820520608, 8663915743 / 2820520608, -12715105075 / 11282082432],
    [0.0, 0.0, 0.0, 0.0],
    [0.0, 131558114200 / 32700410799, -68118460800 / 10900136933, 87487479700 / 32700410799],
    [0.0, -1754552775 / 470086768, 14199869525 / 1410260304, -10690763975 / 1880347072],
    [0.0, 127303824393 / 49829197408, -318862633887 / 49829197408, 701980252875 / 199316789632],
    [0.0, -282668133 / 205662961, 2019193451 / 616988883, -1453857185 / 822651844],
    [0.0, 40617522 / 29380423, -110615467 / 29380423, 69997945 / 29380423],
])
#: Status codes of :func:`integrate_py`: DONE; EPISODES_FULL and OUTPUT_FULL (call again to continue);
#: STAGE_FAILED (a stage's ``stage`` returned non-zero); STEP_COLLAPSE; MAX_STEPS.
DONE, EPISODES_FULL, OUTPUT_FULL, STAGE_FAILED, STEP_COLLAPSE, MAX_STEPS = 0, 1, 2, 3, 4, 5


def dense_py(t0, h, y0, K, tt, out):
    """Dormand--Prince dense output at ``tt`` in the step ``[t0, t0 + h]`` (4th order), into ``out``."""
    x = (tt - t0) / h
    x2 = x * x
    x3 = x2 * x
    x4 = x3 * x
    for i in range(y0.shape[0]):
        acc = 0.0
        for s in range(7):
            ks = K[s, i]
            if ks != 0.0:
                acc += ks * (P_DENSE[s, 0] * x + P_DENSE[s, 1] * x2 + P_DENSE[s, 2] * x3 + P_DENSE[s, 3] * x4)
        out[i] = y0[i] + h * acc


def locate_py(event, ev, k, t0, h, y0, K, ta, tb, upward, work):
    """Time in ``[ta, tb]`` where ``event(k, ., *ev)`` crosses zero (bisection on the dense output)."""
    for _ in range(200):
        if tb - ta <= 4e-16 * max(abs(ta), abs(tb)) + 1e-300:
            break
        tm = 0.5 * (ta + tb)
        if tm <= ta or tm >= tb:
            break
        _DENSE(t0, h, y0, K, tm, work)
        dm = _CALL(event, k, work, ev)
        if (dm > 0.0) == upward:
            tb = tm
        else:
            ta = tm
    return tb


def integrate_py(st, y, f, t_end, rtol, atol, yref, n_err, h_max, max_steps, t_eval, every, out_t, out_y,
                 before, before_args, stage, model, retry, event, onset, ev, dd0, cst, ep):
    """The adaptive Dormand--Prince 5(4) loop with dense output and events, from ``st[0]`` to ``t_end``.

    ``st (10,)`` = ``t, h, h_min, n_steps, n_rejected, n_rhs, n_out, n_ep, t_fail, stage status`` is
    updated in place, as are ``y``, ``f`` (the derivative at ``y``), ``dd0 (k,)`` and the event states
    ``cst (k, 4)`` = (event value at the last accepted step, armed onset time, open episode's onset
    time, its ``dd0``; NaN = none). ``before``, ``stage``, ``event``, ``onset`` and their tuples: the
    model (see the module's docstring); there are ``k = cst.shape[0]`` events. An episode buffer with
    fewer than ``k`` free rows ends the call with EPISODES_FULL.

    Step: the six stages of the tableau (FSAL: ``f`` is the first). Error norm: the RMS over the first
    ``n_err`` components of the embedded error, each scaled by ``atol[i] + rtol max(|y_i|, |y_new,i|,
    yref_i)`` (``yref = 0`` for the plain mixed norm). A step is accepted at norm <= 1; the step size
    then grows by ``0.9 norm^-1/5`` clipped to [0.2, 5] (5 at norm 0), after a rejection it shrinks by
    that factor (at least 0.2); ``h <= h_max``, and the last step lands on ``t_end``.

    Events: when an event crosses zero upwards in an accepted step and no onset is armed, the crossing
    is located on the dense output, ``dd0[k] = onset(k, t_on, y(t_on), y, *ev)`` stored, the onset armed and the
    step redone (counted as rejected): the model may depend on ``dd0``. An end (the crossing back of an
    open episode) is located the same way and the episode written to ``ep (cap, 4)`` = (k, t_on, t_off,
    dd0[k]).

    A failed stage: with ``retry`` the step counts as rejected and ``h`` shrinks by 5 (STAGE_FAILED only
    when it collapses below 1e-14 max(1, |t|)), else the loop stops at once with STAGE_FAILED (``st[1]``
    the step that failed); ``st[8:10]`` = the stage's time and status either way.

    Output: if ``every``, every accepted step into ``out_t, out_y`` (capacity = their length), else the
    dense output at ``t_eval[n_out:]`` into ``out_y``. Returns DONE, EPISODES_FULL, OUTPUT_FULL (call
    again to continue), STAGE_FAILED, STEP_COLLAPSE or MAX_STEPS.
    """
    d = y.shape[0]
    nk = cst.shape[0]
    K = np.empty((7, d))
    yi = np.empty(d)
    ys = np.empty(d)
    dnew = np.empty(nk)
    t = st[0]
    h = st[1]
    h_min = st[2]
    n_steps = int(st[3])
    n_rej = int(st[4])
    n_rhs = int(st[5])
    n_out = int(st[6])
    n_ep = int(st[7])
    cap_ep = ep.shape[0]
    cap_out = out_y.shape[0]
    status = DONE
    while t < t_end:
        if n_steps >= max_steps:
            status = MAX_STEPS
            break
        if n_ep + nk > cap_ep:
            status = EPISODES_FULL
            break
        if every and n_out >= cap_out:
            status = OUTPUT_FULL
            break
        if h > t_end - t:
            h = t_end - t
        if h > h_max:
            h = h_max
        if t + h >= t_end - 1e-14 * max(1.0, abs(t_end)):
            h = t_end - t
        for i in range(d):
            K[0, i] = f[i]
        ok = 0
        for s in range(1, 7):
            for i in range(d):
                acc = 0.0
                for j in range(s):
                    acc += A_MAT[s, j] * K[j, i]
                yi[i] = y[i] + h * acc
            ts_ = t + C_NODES[s] * h
            _CALL(before, ts_, before_args)
            ok = _CALL(stage, ts_, yi, K[s], model)
            if ok != 0:
                st[8] = ts_
                st[9] = ok
                break
        n_rhs += 6
        if ok != 0:
            if not retry:
                status = STAGE_FAILED
                break
            n_rej += 1  # e.g. a trial stage left the assembly (a far too long step into contact): shorten
            h = h * 0.2
            if h < 1e-14 * max(1.0, abs(t)):
                status = STAGE_FAILED
                break
            continue
        err = 0.0
        for i in range(n_err):
            e = 0.0
            for j in range(7):
                e += E_ERR[j] * K[j, i]
            sc = atol[i] + rtol * max(max(abs(y[i]), abs(yi[i])), yref[i])
            err += (h * e / sc) ** 2
        err = math.sqrt(err / n_err)
        if not (err < 1e300):
            err = 1e10
        if err <= 1.0:
            t_new = t + h
            redo = False
            for k in range(nk):
                dn = _CALL(event, k, yi, ev)
                dnew[k] = dn
                if cst[k, 0] <= 0.0 < dn and cst[k, 1] != cst[k, 1]:
                    ts_ = _LOCATE(event, ev, k, t, h, y, K, t, t_new, True, ys)
                    _DENSE(t, h, y, K, ts_, ys)
                    dd0[k] = _CALL(onset, k, ts_, ys, y, ev)
                    cst[k, 1] = ts_
                    redo = True
            if redo:
                n_rej += 1
                continue  # redo the same step with the onset speed of the new impact
            for k in range(nk):
                da = cst[k, 0]
                db = dnew[k]
                if da <= 0.0 < db:
                    cst[k, 2] = cst[k, 1]
                    cst[k, 3] = dd0[k]
                    cst[k, 1] = math.nan
                elif cst[k, 1] == cst[k, 1] and cst[k, 1] <= t_new:
                    cst[k, 1] = math.nan  # the anticipated crossing did not happen
                if da > 0.0 >= db and cst[k, 2] == cst[k, 2]:
                    t_off = _LOCATE(event, ev, k, t, h, y, K, t, t_new, False, ys)
                    ep[n_ep, 0] = k
                    ep[n_ep, 1] = cst[k, 2]
                    ep[n_ep, 2] = t_off
                    ep[n_ep, 3] = cst[k, 3]
                    n_ep += 1
                    cst[k, 2] = math.nan
                cst[k, 0] = db
            if every:
                out_t[n_out] = t_new
                for i in range(d):
                    out_y[n_out, i] = yi[i]
                n_out += 1
            else:
                while n_out < t_eval.shape[0] and t_eval[n_out] <= t_new:
                    _DENSE(t, h, y, K, t_eval[n_out], ys)
                    for i in range(d):
                        out_y[n_out, i] = ys[i]
                    n_out += 1
            for i in range(d):
                y[i] = yi[i]
                f[i] = K[6, i]
            t = t_new
            n_steps += 1
            if h < h_min:
                h_min = h
            if err == 0.0:
                fac = 5.0
            else:
                fac = 0.9 * err ** -0.2
                fac = 5.0 if fac > 5.0 else (0.2 if fac < 0.2 else fac)
            h = h * fac
        else:
            n_rej += 1
            fac = 0.9 * err ** -0.2
            h = h * (0.2 if fac < 0.2 else fac)
            if h < 1e-14 * max(1.0, abs(t)):
                status = STEP_COLLAPSE
                break
    st[0] = t
    st[1] = h
    st[2] = h_min
    st[3] = n_steps
    st[4] = n_rej
    st[5] = n_rhs
    st[6] = n_out
    st[7] = n_ep
    return status


def no_hook_py(t):
    """A ``before`` hook that does nothing."""


def _call_py(fn, *args):
    """``fn(*args[:-1], *args[-1])``: a model's function with its leading arguments and its tuple."""
    return fn(*args[:-1], *args[-1])


if _numba is not None:
    from numba.core import types as _types
    from numba.extending import intrinsic

    @intrinsic
    def _call_intrinsic(typingctx, fn, *args):
        """:func:`_call_py` compiled: the members of the tuple ``args[-1]`` are passed as they are."""
        lead, rest = args[:-1], args[-1]
        fsig = typingctx.resolve_function_type(fn, tuple(lead) + tuple(rest.types), {})

        def codegen(context, builder, sig, llargs):
            packed = llargs[1]
            vals = [builder.extract_value(packed, i) for i in range(len(lead))]
            tup = builder.extract_value(packed, len(lead))
            vals += [builder.extract_value(tup, i) for i in range(len(rest.types))]
            return context.get_function(fn, fsig)(builder, vals)

        return fsig.return_type(fn, _types.StarArgTuple.from_types(args)), codegen


# ----------------------------------------------------------------------------- compilation
_DENSE = dense_py
_LOCATE = locate_py
_CALL = _call_py
no_hook_c = no_hook_py
integrate_c = integrate_py
_COMPILED = False


def get():
    """The step loop compiled with numba on first use (the plain Python function without numba).

    A kernel module calls this before it compiles its own ``integrate_py``, which then calls the compiled
    loop with its functions (numba caches that entry point on disk, the loop specialised in it).
    """
    global _COMPILED, _DENSE, _LOCATE, _CALL, no_hook_c, integrate_c
    if not _COMPILED and _numba is not None:
        jit = _numba.njit(cache=True, fastmath=False)
        inl = _numba.njit(cache=True, fastmath=False, inline="always")
        _CALL = _call_intrinsic
        no_hook_c = jit(no_hook_py)
        _DENSE = jit(dense_py)
        _LOCATE = inl(locate_py)
        integrate_c = inl(integrate_py)
        _COMPILED = True
    return integrate_c
