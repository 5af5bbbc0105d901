// SPDX-License-Identifier: GPL-3.0-or-later
#include "integrator/gc/gc_tree.h"

#include <Eigen/Geometry>

#include "core/check.h"
#include "core/quaternion.h"
#include "model/joint_tree.h"

namespace ms::gc {
namespace {

bool oneCoordinate(JointType t) { return t == JointType::Revolute || t == JointType::Prismatic; }
bool inTree(JointType t) {
  return oneCoordinate(t) || t == JointType::Spherical || t == JointType::Floating || t == JointType::Fixed;
}

GcTree buildTree(const CompiledSystem& sys, bool refuseLoops) {
  GcTree t;
  const int nb = int(sys.bodies.size());
  t.bodyJoint.assign(nb, -1);
  t.bodyCoord.assign(nb, -1);
  t.effortOnCoordinate.assign(sys.joints.size(), 0);
  // The compiler's spanning tree, or, when it holds a joint type without coordinates here, a tree
  // of the supported types only (the others then close loops as constraints).
  std::vector<int> treeJoints = sys.treeJoints, loopJoints = sys.loopJoints;
  bool supported = true;
  for (int k : treeJoints) supported = supported && inTree(sys.joints[k].geo.type);
  if (!supported) {
    const JointTree jt = buildJointTree(sys.model, [&](int k) { return inTree(sys.joints[k].geo.type); });
    treeJoints = jt.treeJoints;
    loopJoints = jt.loopJoints;
  }
  std::vector<int> placedBy(nb, -1);  // tree joint placing each body
  for (int k : treeJoints) placedBy[sys.joints[k].geo.child] = k;

  // Adds the GcJoint placing body b (tree joint k, or the floating joint of a root when k < 0).
  auto addJoint = [&](int k, int b) {
    GcJoint g;
    g.joint = k;
    g.childBody = b;
    if (k >= 0) {
      const CompiledJoint& cj = sys.joints[k];
      g.geo = cj.hasDroppedRows ? cj.full : cj.geo;
      g.type = g.geo.type;
      g.parentBody = g.geo.parent;
      if (oneCoordinate(g.type)) {
        g.stiffness = cj.hasSpring ? cj.stiffness(0) : 0.0;
        g.rest = cj.rest(0);
        g.damping = cj.hasDamper ? cj.damping(0) : 0.0;
        t.effortOnCoordinate[k] = 1;
      }
    } else {
      g.geo = makeJointGeometry(JointType::Floating, -1, b, Vec3::Zero(), Vec3::Zero(), Vec3::UnitZ(), quat::identity());
      g.type = JointType::Floating;
      g.parentBody = -1;
    }
    g.parentCoord = g.parentBody >= 0 ? t.bodyCoord[g.parentBody] : -1;
    g.first = int(t.coords.size());
    const int gi = int(t.joints.size());
    auto push = [&](AxisKind kind, int axis) {
      Coordinate c;
      c.parent = t.coords.size() > size_t(g.first) ? int(t.coords.size()) - 1 : g.parentCoord;
      c.joint = gi;
      c.kind = kind;
      c.axis = axis;
      t.coords.push_back(c);
    };
    switch (g.type) {
      case JointType::Revolute: push(AxisKind::Rotation, 2); break;
      case JointType::Prismatic: push(AxisKind::Translation, 2); break;
      case JointType::Fixed: break;
      case JointType::Floating:
        for (int a = 0; a < 3; ++a) push(AxisKind::Translation, a);
        [[fallthrough]];
      case JointType::Spherical:
        g.rotationFirst = int(t.coords.size());
        for (int a = 0; a < 3; ++a) push(AxisKind::Rotation, a);
        break;
      default: MS_ASSERT(false, "tree joints have coordinates"); break;
    }
    g.count = int(t.coords.size()) - g.first;
    t.bodyJoint[b] = gi;
    t.bodyCoord[b] = g.count > 0 ? g.first + g.count - 1 : g.parentCoord;
    t.joints.push_back(g);
  };

  // Roots first in body order, then the tree joints in breadth-first order: a parent is placed
  // before its children (a root's children come after it in treeJoints as well).
  std::vector<char> placed(nb, 0);
  std::vector<int> pending = treeJoints;
  for (int b = 0; b < nb; ++b)
    if (placedBy[b] < 0) {
      addJoint(-1, b);
      placed[b] = 1;
    }
  // treeJoints is breadth-first from the world with roots interleaved; repeat until all placed.
  for (size_t done = 0; done < pending.size();) {
    size_t progress = 0;
    for (int& k : pending) {
      if (k < 0) continue;
      const int p = sys.joints[k].geo.parent;
      if (p >= 0 && !placed[p]) continue;
      addJoint(k, sys.joints[k].geo.child);
      placed[sys.joints[k].geo.child] = 1;
      k = -1;
      ++progress;
    }
    MS_ASSERT(progress > 0, "spanning tree: every tree joint has a placed parent");
    done += progress;
  }

  // Loop-closing joints: holonomic constraints h(q) = 0 through their constraint rows.
  for (int k : loopJoints) {
    const CompiledJoint& cj = sys.joints[k];
    if (cj.geo.constrained() == 0) continue;
    if (refuseLoops && !inTree(cj.geo.type))
      throw UserError("joint '" + cj.name + "' is " + jointKind(cj.geo.type).name +
                      "; riqn writes revolute, prismatic, spherical, floating and fixed joints in joint "
                      "coordinates and has no constraints for other types (use midpoint-gc, which holds them "
                      "as constraints, or the variational integrator)");
    if (refuseLoops)
      throw UserError("joint '" + cj.name +
                      "' closes a loop; riqn integrates trees only (Lee et al. 2016 has no closed chains): "
                      "use midpoint-gc or the variational integrator");
    t.loopJoints.push_back(k);
    t.loopRow.push_back(t.numLoopRows);
    t.numLoopRows += cj.geo.constrained();
  }
  return t;
}

Mat3 axisRotation(const Vec3& axis, double angle) { return Eigen::AngleAxisd(angle, axis).toRotationMatrix(); }

}  // namespace

GcTree buildGcTree(std::shared_ptr<const CompiledSystem> sys, bool refuseLoops) {
  GcTree t = buildTree(*sys, refuseLoops);
  t.sys = std::move(sys);
  return t;
}

void Kinematics::resize(const GcTree& t) {
  const size_t nc = t.coords.size(), nb = t.bodyCoord.size();
  xi.assign(nc, Vec6::Zero());
  V.assign(nc, Vec6::Zero());
  x.assign(nb, Vec3::Zero());
  R.assign(nb, Mat3::Identity());
  G.assign(nb, Mat6::Zero());
}

void forwardKinematics(const GcTree& t, const Charts& charts, const VecX& q, Kinematics& k) {
  const CompiledSystem& sys = *t.sys;
  for (size_t gi = 0; gi < t.joints.size(); ++gi) {
    const GcJoint& g = t.joints[gi];
    const JointGeometry& geo = g.geo;
    // Joint point o and joint frame F from the parent's pose.
    const Vec3 xa = g.parentBody >= 0 ? k.x[g.parentBody] : Vec3::Zero();
    const Mat3 Ra = g.parentBody >= 0 ? k.R[g.parentBody] : Mat3::Identity();
    Vec3 o = xa + Ra * geo.pa;
    const Mat3 F = Ra * geo.Ro;
    Mat3 Rb = F;
    int c = g.first;
    switch (g.type) {
      case JointType::Revolute: {
        const Vec3 a = F * geo.axes.col(2);
        k.xi[c] << a, o.cross(a);
        Rb = F * axisRotation(geo.axes.col(2), q(c));
        break;
      }
      case JointType::Prismatic: {
        const Vec3 a = F * geo.axes.col(2);
        k.xi[c] << Vec3::Zero(), a;
        o += a * q(c);
        break;
      }
      case JointType::Floating:
        // Translations along the joint frame's axes move the rotation centre.
        for (int i = 0; i < 3; ++i, ++c) {
          k.xi[c] << Vec3::Zero(), F.col(i);
          o += F.col(i) * q(c);
        }
        [[fallthrough]];
      case JointType::Spherical: {
        // Euler angles x, y′, z″ of the chart frame F·C about the joint point.
        Rb = F * quat::rotation(charts[gi]);
        for (int i = 0; i < 3; ++i, ++c) {
          const Vec3 a = Rb.col(i);
          k.xi[c] << a, o.cross(a);
          Rb = Rb * axisRotation(Vec3::Unit(i), q(c));
        }
        break;
      }
      default: break;  // fixed
    }
    const int b = g.childBody;
    k.R[b] = Rb;
    k.x[b] = o - Rb * geo.pb;
    // Spatial inertia at the world origin.
    const double m = sys.bodies[b].mass;
    const Vec3& com = k.x[b];
    const Mat3 cx = quat::skew(com);
    Mat6& G = k.G[b];
    // I_w − m c^×c^× with c^×c^× = c cᵀ − |c|² I.
    G.topLeftCorner<3, 3>().noalias() = Rb * sys.bodies[b].inertia * Rb.transpose();
    G.topLeftCorner<3, 3>().noalias() -= m * (com * com.transpose());
    G.topLeftCorner<3, 3>().diagonal().array() += m * com.squaredNorm();
    G.topRightCorner<3, 3>() = m * cx;
    G.bottomLeftCorner<3, 3>() = -m * cx;
    G.bottomRightCorner<3, 3>() = m * Mat3::Identity();
  }
}

void velocities(const GcTree& t, const VecX& qd, Kinematics& k) {
  for (int i = 0; i < t.size(); ++i) {
    const int p = t.coords[i].parent;
    k.V[i] = (p >= 0 ? k.V[p] : Vec6::Zero()) + k.xi[i] * qd(i);
  }
}

void writeBodies(const GcTree& t, const Kinematics& k, State& s, bool withVelocities) {
  for (size_t b = 0; b < t.bodyCoord.size(); ++b) {
    BodyState& bs = s.bodies[b];
    bs.x = k.x[b];
    Eigen::Quaterniond qe(k.R[b]);
    Vec4 q(qe.w(), qe.x(), qe.y(), qe.z());
    q.normalize();
    if (q.dot(bs.q) < 0) q = -q;  // keep the sign continuous
    bs.q = q;
    if (withVelocities) {
      const Vec6 Vb = bodyTwist(t, k, int(b));
      const Vec3 w = Vb.head<3>();
      bs.v = w.cross(k.x[b]) + Vb.tail<3>();
      bs.w = k.R[b].transpose() * w;
    }
  }
}

void coordinatesFromState(const GcTree& t, const State& s, VecX& q, Charts& charts) {
  JointMinimalEval me;
  for (size_t gi = 0; gi < t.joints.size(); ++gi) {
    const GcJoint& g = t.joints[gi];
    const JointPoses z = jointPoses(g.geo, s);
    switch (g.type) {
      case JointType::Revolute:
      case JointType::Prismatic:
        evalJointMinimal(g.geo, z, me);
        q(g.first) = me.theta(0);
        break;
      case JointType::Floating:
      case JointType::Spherical: {
        // Chart centred on the current relative rotation q_off⁻¹ q_a⁻¹ q_b: angles zero.
        charts[gi] = quat::mul(quat::conj(g.geo.qoff), quat::mul(quat::conj(z.qa), z.qb)).normalized();
        q.segment<3>(g.rotationFirst).setZero();
        if (g.type == JointType::Floating) {
          const Mat3 Ra = quat::rotation(z.qa), Rb = quat::rotation(z.qb);
          q.segment<3>(g.first) = g.geo.Ro.transpose() * (Ra.transpose() * (z.xb + Rb * g.geo.pb - z.xa) - g.geo.pa);
        }
        break;
      }
      default: break;
    }
  }
}

}  // namespace ms::gc

namespace ms {
void validateGeneralizedCoordinates(const CompiledSystem& sys, bool riqn) { (void)gc::buildTree(sys, riqn); }
}  // namespace ms
