"""Independent reference: the 6-UPS platform as a constrained multibody system in pinocchio.

Tree: the platform is a free-flyer; each leg is a chain ``RevoluteUnaligned(a_i)``
(fixed U axis, at ``b_i``) -> ``RevoluteUnaligned(c_i0)`` (cylinder) ->
``PrismaticUnaligned(s_i0)`` (rod). The six loops are closed by 3-D point
constraints (rod tip = platform point ``p_i``), i.e. spherical joints. Inverse
dynamics solves the full-coordinate equations

    rnea(q, v, a) = S^T f + tau_friction + J_c^T lambda

for the six prismatic forces ``f`` and the 18 multipliers ``lambda``, after the
leg joint velocities/accelerations are found from ``J_c v = 0`` and
``J_c a + gamma = 0`` (``gamma`` from pinocchio's classical frame accelerations).
Nothing here uses the leg kinematics or dynamics of :mod:`robolib.stewart`: only
the parameters, the pose conventions and the U-joint angles solved in closed form.

>>> from robolib import stewart
>>> m = stewart.load("stewart/tsai2000.yaml")
>>> ref = PinocchioStewart(m)
>>> f = ref.inverse_dynamics(m.home_pose, np.zeros(6), np.zeros(6))
>>> bool(np.allclose(f, stewart.inverse_dynamics(m, m.home_pose, np.zeros(6), np.zeros(6)), rtol=1e-9))
True
"""

from __future__ import annotations

import numpy as np

from robolib.core.errors import ConvergenceError, SingularityError
from robolib.core.rotations import rpy_matrix
from robolib.stewart.model import StewartModel

#: Loop-closure residual (m) above which the reconstructed joint configuration is rejected.
CLOSURE_TOL = 1e-10


def _leg_frame0(s0, a):
    c0 = np.cross(s0, a)
    c0 /= np.linalg.norm(c0)
    return np.column_stack((c0, np.cross(s0, c0), s0))


class PinocchioStewart:
    """Pinocchio model of a :class:`StewartModel` (requires PyPI ``pin``)."""

    def __init__(self, model: StewartModel):
        import pinocchio as pin

        self.pin = pin
        self.m = model
        pm = pin.Model()
        pm.gravity = pin.Motion(np.asarray(model.gravity, float), np.zeros(3))
        ff = pm.addJoint(0, pin.JointModelFreeFlyer(), pin.SE3.Identity(), "platform")
        pf = model.platform
        pm.appendBodyToJoint(ff, pin.Inertia(pf.mass, pf.com, pf.inertia), pin.SE3.Identity())
        home = model.home_pose
        Rh = rpy_matrix(home[3:])
        self.s0, self.F0, self.joints, self.tip_frames, self.plat_frames = [], [], [], [], []
        for i in range(6):
            b, a = model.base_joints[i], model.ujoint_axes[i]
            L0 = home[:3] + Rh @ model.platform_joints[i] - b
            s0 = L0 / np.linalg.norm(L0)
            F0 = _leg_frame0(s0, a)
            ja = pm.addJoint(0, pin.JointModelRevoluteUnaligned(a), pin.SE3(np.eye(3), b), f"u{i}_a")
            jc = pm.addJoint(ja, pin.JointModelRevoluteUnaligned(F0[:, 0]), pin.SE3.Identity(), f"u{i}_c")
            jp = pm.addJoint(jc, pin.JointModelPrismaticUnaligned(s0), pin.SE3.Identity(), f"p{i}")
            cyl, rod = model.cylinder, model.rod
            pm.appendBodyToJoint(jc, pin.Inertia(cyl.mass, F0 @ cyl.com, F0 @ cyl.inertia @ F0.T), pin.SE3.Identity())
            pm.appendBodyToJoint(jp, pin.Inertia(rod.mass, F0 @ rod.com, F0 @ rod.inertia @ F0.T), pin.SE3.Identity())
            ft = pm.addFrame(pin.Frame(f"tip{i}", jp, pin.SE3.Identity(), pin.FrameType.OP_FRAME))
            fp = pm.addFrame(pin.Frame(f"plat{i}", ff, pin.SE3(np.eye(3), model.platform_joints[i]),
                                       pin.FrameType.OP_FRAME))
            self.s0.append(s0)
            self.F0.append(F0)
            self.joints.append((ja, jc, jp))
            self.tip_frames.append(ft)
            self.plat_frames.append(fp)
        self.model = pm
        self.data = pm.createData()
        self.idx_v = [[pm.joints[j].idx_v for j in js] for js in self.joints]
        self.idx_q = [[pm.joints[j].idx_q for j in js] for js in self.joints]
        self.prismatic_v = [iv[2] for iv in self.idx_v]
        self.cyl_joint = [js[1] for js in self.joints]

    # ------------------------------------------------------------------ configuration
    def configuration(self, pose):
        """Full configuration ``q`` (25,) for a platform pose (U angles in closed form)."""
        pin, m = self.pin, self.m
        pose = np.asarray(pose, float)
        R = rpy_matrix(pose[3:])
        q = np.zeros(self.model.nq)
        q[:3] = pose[:3]
        q[3:7] = pin.Quaternion(R).coeffs()  # x, y, z, w
        for i in range(6):
            a, s0, c0 = m.ujoint_axes[i], self.s0[i], self.F0[i][:, 0]
            L = pose[:3] + R @ m.platform_joints[i] - m.base_joints[i]
            l = np.linalg.norm(L)
            s = L / l
            d = np.cross(c0, s0)                     # R_c(q2) s0 = cos q2 s0 + sin q2 d
            alpha1, alpha2 = a @ s0, a @ d
            phi = np.arctan2(alpha2, alpha1)
            rho = np.hypot(alpha1, alpha2)
            acs = np.arccos(np.clip((a @ s) / rho, -1.0, 1.0))
            cands = np.array([phi + acs, phi - acs])
            cands = (cands + np.pi) % (2 * np.pi) - np.pi
            q2 = cands[np.argmin(np.abs(cands))]
            u = np.cos(q2) * s0 + np.sin(q2) * d
            up, sp = u - (a @ u) * a, s - (a @ s) * a
            q1 = np.arctan2(a @ np.cross(up, sp), up @ sp)
            iq = self.idx_q[i]
            q[iq[0]], q[iq[1]], q[iq[2]] = q1, q2, l
        pin.framesForwardKinematics(self.model, self.data, q)
        res = max(np.linalg.norm(self.data.oMf[ft].translation - self.data.oMf[fp].translation)
                  for ft, fp in zip(self.tip_frames, self.plat_frames))
        if res > CLOSURE_TOL:
            raise ConvergenceError(f"pinocchio reference: loop closure residual {res:.3g} m at pose {pose}")
        return q

    def _constraint_jacobian(self, q):
        pin = self.pin
        pin.computeJointJacobians(self.model, self.data, q)
        pin.updateFramePlacements(self.model, self.data)
        LWA = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED
        rows = [pin.getFrameJacobian(self.model, self.data, ft, LWA)[:3]
                - pin.getFrameJacobian(self.model, self.data, fp, LWA)[:3]
                for ft, fp in zip(self.tip_frames, self.plat_frames)]
        return np.vstack(rows)

    def _drift(self, q, v):
        pin = self.pin
        pin.forwardKinematics(self.model, self.data, q, v, np.zeros(self.model.nv))
        LWA = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED
        return np.concatenate([
            pin.getFrameClassicalAcceleration(self.model, self.data, ft, LWA).linear
            - pin.getFrameClassicalAcceleration(self.model, self.data, fp, LWA).linear
            for ft, fp in zip(self.tip_frames, self.plat_frames)])

    def full_state(self, pose, twist, accel):
        """``q, v, a`` of the whole tree consistent with the loop constraints, and ``J_c``."""
        pose, V, dV = (np.asarray(x, float) for x in (pose, twist, accel))
        q = self.configuration(pose)
        R = rpy_matrix(pose[3:])
        vl, wl = R.T @ V[:3], R.T @ V[3:]
        Jc = self._constraint_jacobian(q)
        nv = self.model.nv
        v = np.zeros(nv)
        v[:6] = np.concatenate((vl, wl))
        legs = np.arange(6, nv)
        A = Jc[:, legs]
        if np.linalg.cond(A) > 1e12:
            raise SingularityError("pinocchio reference: leg joints cannot follow the platform (singular)")
        v[legs] = np.linalg.solve(A, -Jc[:, :6] @ v[:6])
        a = np.zeros(nv)
        a[:6] = np.concatenate((R.T @ dV[:3] - np.cross(wl, vl), R.T @ dV[3:]))
        gamma = self._drift(q, v)
        a[legs] = np.linalg.solve(A, -Jc[:, :6] @ a[:6] - gamma)
        return q, v, a, Jc

    def friction_torque(self, q, v):
        """Generalised force of the viscous U, S and prismatic friction (24,)."""
        pin, m = self.pin, self.m
        pin.computeJointJacobians(self.model, self.data, q)
        LWA = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED
        Jp = pin.getJointJacobian(self.model, self.data, 1, LWA)[3:]
        wp = Jp @ v
        tau = np.zeros(self.model.nv)
        for i in range(6):
            Jl = pin.getJointJacobian(self.model, self.data, self.cyl_joint[i], LWA)[3:]
            wleg = Jl @ v
            m_u = -m.ujoint_viscous * wleg
            m_s = -m.sjoint_viscous * (wleg - wp)
            tau += Jl.T @ (m_u + m_s) - Jp.T @ m_s
            k = self.prismatic_v[i]
            tau[k] -= m.prismatic_viscous * v[k]
        return tau

    def inverse_dynamics(self, pose, twist, accel):
        """Six actuator forces (N) by constrained full-coordinate inverse dynamics."""
        q, v, a, Jc = self.full_state(pose, twist, accel)
        tau = self.pin.rnea(self.model, self.data, q, v, a) - self.friction_torque(q, v)
        nv = self.model.nv
        S = np.zeros((nv, 6))
        S[self.prismatic_v, np.arange(6)] = 1.0
        sol = np.linalg.solve(np.hstack((S, Jc.T)), tau)
        return sol[:6]

    def forward_dynamics(self, pose, twist, forces):
        """Platform acceleration ``[a, alpha]`` (base frame) under prismatic forces, by the KKT system."""
        pin = self.pin
        pose, V = np.asarray(pose, float), np.asarray(twist, float)
        q, v, _, Jc = self.full_state(pose, V, np.zeros(6))
        nv = self.model.nv
        Mfull = pin.crba(self.model, self.data, q)
        Mfull = np.triu(Mfull) + np.triu(Mfull, 1).T
        h = pin.rnea(self.model, self.data, q, v, np.zeros(nv))
        gamma = self._drift(q, v)
        tau = self.friction_torque(q, v) - h
        tau[self.prismatic_v] += np.asarray(forces, float)
        K = np.block([[Mfull, Jc.T], [Jc, np.zeros((18, 18))]])
        sol = np.linalg.solve(K, np.concatenate((tau, -gamma)))
        aff = sol[:6]
        R = rpy_matrix(pose[3:])
        vl, wl = R.T @ V[:3], R.T @ V[3:]
        return np.concatenate((R @ (aff[:3] + np.cross(wl, vl)), R @ aff[3:]))

    def forward_dynamics_constrained(self, pose, twist, forces, iterations: int = 3):
        """Platform acceleration by pinocchio's own loop-closure API.

        Six ``RigidConstraintModel(CONTACT_3D)`` between each rod tip and its
        platform point, solved by ``pin.constraintDynamics`` (proximal, no
        Baumgarte terms). Independent of :meth:`forward_dynamics`'s hand-built KKT system.
        """
        pin = self.pin
        if not hasattr(self, "_cms"):
            self._cms = pin.StdVec_RigidConstraintModel()
            for i, (_, _, jp) in enumerate(self.joints):
                self._cms.append(pin.RigidConstraintModel(
                    pin.ContactType.CONTACT_3D, self.model, jp, pin.SE3.Identity(), 1,
                    pin.SE3(np.eye(3), self.m.platform_joints[i]), pin.ReferenceFrame.LOCAL))
            self._cds = pin.StdVec_RigidConstraintData()
            for cm in self._cms:
                self._cds.append(cm.createData())
            self._cdata = self.model.createData()
            pin.initConstraintDynamics(self.model, self._cdata, self._cms, self._cds)
        pose, V = np.asarray(pose, float), np.asarray(twist, float)
        q, v, _, _ = self.full_state(pose, V, np.zeros(6))
        tau = self.friction_torque(q, v)
        tau[self.prismatic_v] += np.asarray(forces, float)
        prox = pin.ProximalSettings(1e-14, 1e-12, iterations)
        a = pin.constraintDynamics(self.model, self._cdata, q, v, tau, self._cms, self._cds, prox)
        R = rpy_matrix(pose[3:])
        vl, wl = R.T @ V[:3], R.T @ V[3:]
        return np.concatenate((R @ (a[:3] + np.cross(wl, vl)), R @ a[3:6]))


__all__ = ["PinocchioStewart", "CLOSURE_TOL"]
