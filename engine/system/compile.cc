// SPDX-License-Identifier: GPL-3.0-or-later
// compile(): validate a Model and build the immutable CompiledSystem (graph, elimination order,
// block index maps, spanning tree). Runs once per model; may allocate.
#include <algorithm>
#include <cmath>
#include <deque>
#include <set>
#include <sstream>

#include <Eigen/Eigenvalues>

#include "core/check.h"
#include "core/quaternion.h"
#include "model/model.h"
#include "solver/ldu_graph.h"
#include "system/compiled_system.h"
#include "model/joint_tree.h"
#include "system/initial_conditions.h"
#include "system/collision_pairs.h"
#include "system/redundancy.h"

namespace ms {

namespace {

bool finite(const Vec3& v) { return v.allFinite(); }

// Per-coordinate values: empty → 0, one value → broadcast, else exactly `n` values.
bool expand(const std::vector<double>& in, int n, Vec6& out) {
  out.setZero();
  if (in.empty()) return true;
  if (in.size() == 1) {
    out.head(n).setConstant(in[0]);
    return true;
  }
  if (int(in.size()) != n) return false;
  for (int i = 0; i < n; ++i) out(i) = in[i];
  return true;
}

// The collision shapes of every body as the distance functions take them (converted once; a
// collision mesh becomes the convex hull of its vertices, shared by the shape's contact groups). A
// mesh without vertices (one the reader could not use, with a warning) does not collide.
using BodyShapes = std::vector<std::vector<contact::ContactShape>>;
template <class Err>
BodyShapes collisionShapes(const Model& model, Err&& err) {
  BodyShapes out(model.bodies.size());
  for (size_t b = 0; b < model.bodies.size(); ++b)
    for (const ShapeDesc& d : model.bodies[b].collisions) {
      contact::ContactShape s;
      if (contact::contactShapeFromDesc(d, s)) {
        out[b].push_back(s);
        continue;
      }
      if (d.kind != ShapeDesc::Kind::Mesh || d.meshVertices.empty()) continue;
      const std::string who = "body '" + model.bodies[b].name + "': collision mesh '" + d.meshFile + "'";
      contact::ConvexHull hull;
      std::string why;
      // A hull with too many vertices is simplified (the readers say so with a note).
      double outside = 0;
      if (!contact::buildSimplifiedHull(d.meshVertices, contact::kMaxHullVertices, hull, outside, why)) {
        err(who + ": no convex hull (" + why + ")");
        continue;
      }
      s.kind = contact::ContactShape::Kind::Convex;
      s.contype = d.contype;
      s.conaffinity = d.conaffinity;
      s.position = d.position;
      s.rotation = quat::rotation(d.orientation.normalized());
      s.convex = contact::makeConvexShape(std::move(hull));
      out[b].push_back(s);
    }
  return out;
}

// Appends a contact group (grp.count set) and a graph node per candidate, numbered next.
void addContactGroup(CompiledSystem& sys, CompiledContactGroup grp) {
  grp.first = int(sys.contacts.size());
  for (int k = 0; k < grp.count; ++k) {
    CompiledContact c;
    c.group = int(sys.contactGroups.size());
    c.candidate = k;
    c.node = sys.numNodes++;
    sys.nodeJoint.push_back(-1);
    sys.contacts.push_back(c);
  }
  sys.contactGroups.push_back(grp);
}

// Calls f(index of A's shape, index of B's shape) for every pair of collision shapes of two bodies
// that can touch (every pair but plane–plane; with `filtered`, only shapes whose own filters match,
// as automatic pairs take them); returns how many.
template <class F>
int forEachShapePair(const BodyShapes& shapes, int bodyA, int bodyB, bool filtered, F&& f) {
  int count = 0;
  for (size_t ia = 0; ia < shapes[size_t(bodyA)].size(); ++ia)
    for (size_t ib = 0; ib < shapes[size_t(bodyB)].size(); ++ib) {
      const contact::ContactShape &sa = shapes[size_t(bodyA)][ia], &sb = shapes[size_t(bodyB)][ib];
      if (contact::pairCandidateCount(sa, sb) == 0) continue;
      if (filtered && !contact::filtersMatch(sa.contype, sa.conaffinity, sb.contype, sb.conaffinity)) continue;
      f(int(ia), int(ib));
      ++count;
    }
  return count;
}

// The contact groups of two bodies' shape pairs, with friction μ (`filtered`: automatic pairs).
void addPairGroups(CompiledSystem& sys, int bodyA, int bodyB, double mu, bool filtered) {
  forEachShapePair(sys.bodyShapes, bodyA, bodyB, filtered, [&](int ia, int ib) {
    CompiledContactGroup grp;
    grp.bodyA = bodyA;
    grp.body = bodyB;
    grp.shapeIndexA = ia;
    grp.shapeIndex = ib;
    grp.shapeA = sys.bodyShapes[size_t(bodyA)][size_t(ia)];
    grp.shape = sys.bodyShapes[size_t(bodyB)][size_t(ib)];
    grp.friction = mu;
    grp.count = contact::pairCandidateCount(grp.shapeA, grp.shape);
    addContactGroup(sys, grp);
  });
}

double meanFriction(const Model& m, int a, int b) { return 0.5 * (m.bodies[size_t(a)].friction + m.bodies[size_t(b)].friction); }

std::uint64_t pairKey(int a, int b) {
  if (a > b) std::swap(a, b);
  return (std::uint64_t(std::uint32_t(a)) << 32) | std::uint32_t(b);
}

// Which bodies are welded to the world: fixed to it by a fixed joint, or to such a body. Two of them
// never touch each other or a ground (MuJoCo's rule for bodies welded to the world body): their
// contact could not move either and would only load the solver with an unsolvable overlap.
std::vector<char> weldedToWorld(const Model& m) {
  std::vector<char> welded(m.bodies.size(), 0);
  for (bool changed = true; changed;) {
    changed = false;
    for (const JointDesc& j : m.joints) {
      if (j.type != JointType::Fixed) continue;
      const bool p = j.parent < 0 || welded[size_t(j.parent)];
      const bool c = welded[size_t(j.child)];
      if (p && !c) welded[size_t(j.child)] = 1, changed = true;
      else if (c && j.parent >= 0 && !welded[size_t(j.parent)]) welded[size_t(j.parent)] = 1, changed = true;
    }
  }
  return welded;
}

// The pairs of colliding bodies that may not collide automatically: joined by a joint, excluded by
// the model, named by a contact-pair (their contacts are already there), overlapping at the initial
// configuration `pose` (noted: their contacts would start inside each other), both welded to the world.
void excludePairs(CompiledSystem& sys, const State& pose) {
  const Model& m = sys.model;
  std::vector<std::uint64_t>& ex = sys.excludedPairs;
  const std::vector<char> welded = weldedToWorld(m);
  for (int a = 0; a < int(welded.size()); ++a)
    for (int b = a + 1; welded[size_t(a)] && b < int(welded.size()); ++b)
      if (welded[size_t(b)] && !sys.bodyShapes[size_t(a)].empty() && !sys.bodyShapes[size_t(b)].empty())
        ex.push_back(pairKey(a, b));
  for (const JointDesc& j : m.joints)
    if (j.parent >= 0) ex.push_back(pairKey(j.parent, j.child));
  for (const ExclusionDesc& e : m.exclusions) ex.push_back(pairKey(e.bodyA, e.bodyB));
  for (const ContactPairDesc& pr : m.contactPairs) ex.push_back(pairKey(pr.bodyA, pr.bodyB));
  std::sort(ex.begin(), ex.end());
  ex.erase(std::unique(ex.begin(), ex.end()), ex.end());
  std::vector<BodyPair> near;
  nearPairs(sys, pose, 0.0, near);
  std::vector<std::uint64_t> overlapping;
  // One note per pair for the first kMaxOverlapNotes, then one that counts the rest (a model of bodies
  // drawn on top of each other would otherwise print thousands of lines).
  constexpr size_t kMaxOverlapNotes = 20;
  for (const BodyPair& p : near) {
    const double d = bodyDistance(sys, p.a, p.b, pose);
    if (d >= -kInitialOverlap) continue;
    overlapping.push_back(pairKey(p.a, p.b));
    if (overlapping.size() > kMaxOverlapNotes) continue;
    std::ostringstream os;
    os << "bodies '" << m.bodies[size_t(p.a)].name << "' and '" << m.bodies[size_t(p.b)].name << "' overlap by "
       << -d << " m at the start: they do not collide with each other (write (exclude " << m.bodies[size_t(p.a)].name
       << " " << m.bodies[size_t(p.b)].name << ") to say so, or move them apart)";
    sys.notes.push_back(os.str());
  }
  if (overlapping.size() > kMaxOverlapNotes)
    sys.notes.push_back("... and " + std::to_string(overlapping.size() - kMaxOverlapNotes) +
                        " more pairs of bodies overlap at the start (" + std::to_string(overlapping.size()) +
                        " in all); none of them collide with each other");
  ex.insert(ex.end(), overlapping.begin(), overlapping.end());
  std::sort(ex.begin(), ex.end());
}

// Contact groups (the grounds', the contact-pairs', the automatic pairs'), limits, companion nodes,
// the graph with its elimination order and every block index map: the part of a system that the
// automatic pairs change (numbered after sys.jointNodes).
// The model's contact groups: every collision shape of every body against every ground plane, then
// the model's contact pairs; their nodes follow the bodies' and joints'.
void buildModelContactGroups(CompiledSystem& sys) {
  const Model& model = sys.model;
  const int nb = int(model.bodies.size());
  const BodyShapes& shapes = sys.bodyShapes;
  const std::vector<char> welded = weldedToWorld(model);
  for (const GroundDesc& g : model.grounds) {
    const contact::WorldPlane plane = contact::makeWorldPlane(g.point, g.normal);
    for (int b = 0; b < nb; ++b) {
      // A body welded to the world does not touch the grounds.
      if (welded[size_t(b)]) continue;
      const BodyDesc& body = model.bodies[b];
      for (size_t si = 0; si < shapes[size_t(b)].size(); ++si) {
        CompiledContactGroup grp;
        grp.shape = shapes[size_t(b)][si];
        grp.shapeIndex = int(si);
        if (grp.shape.kind == contact::ContactShape::Kind::Plane) continue;
        if (!contact::filtersMatch(grp.shape.contype, grp.shape.conaffinity, g.contype, g.conaffinity)) continue;
        grp.body = b;
        grp.plane = plane;
        grp.friction = g.friction >= 0 ? g.friction : body.friction;
        contact::ContactSet set;
        grp.count = contact::shapePlane(plane, grp.shape, contact::BodyPose(), set);
        addContactGroup(sys, grp);
      }
    }
  }

  // Contact pairs: the candidates of every pair of collision shapes that can touch (pairCandidates).
  for (const ContactPairDesc& pr : model.contactPairs)
    addPairGroups(sys, pr.bodyA, pr.bodyB, pr.friction >= 0 ? pr.friction : meanFriction(model, pr.bodyA, pr.bodyB), false);
  sys.baseGroups = int(sys.contactGroups.size());
  sys.baseContacts = int(sys.contacts.size());
}

// After the model's contact groups: the automatic pairs' groups (withAutoPairs), the limits, the
// companions, and the graph of all nodes with its elimination order and block indices.
void buildContacts(CompiledSystem& sys) {
  const Model& model = sys.model;
  // Automatic pairs, the same way as the model's pairs, with the bodies' mean friction.
  for (const BodyPair& p : sys.autoPairs) addPairGroups(sys, p.a, p.b, meanFriction(model, p.a, p.b), true);

  // Joint limits: one node per limited joint (revolute or prismatic: one free coordinate), numbered
  // after the contacts.
  for (size_t k = 0; k < model.joints.size(); ++k) {
    const JointDesc& d = model.joints[k];
    if (d.lowerLimit.empty() || d.upperLimit.empty()) continue;
    CompiledLimit l;
    l.joint = int(k);
    l.lower = d.lowerLimit[0];
    l.angular = d.type == JointType::Revolute;
    l.upper = d.upperLimit[0];
    l.node = sys.numNodes++;
    sys.nodeJoint.push_back(-1);
    sys.limits.push_back(l);
  }

  // Joint couplings: one node each, numbered after the limits, adjacent to both joints' bodies.
  for (const CouplingDesc& d : model.couplings) {
    CompiledCoupling c;
    c.joint = d.joint;
    c.coordinate = d.coordinate;
    c.reference = d.reference;
    c.referenceCoordinate = d.referenceCoordinate;
    c.multiplier = d.multiplier;
    c.offset = d.offset;
    c.wraps = couplingWraps(sys, d);
    for (int k : {d.joint, d.reference}) {
      if (k < 0) continue;
      const JointGeometry& g = sys.joints[size_t(k)].geo;
      for (int b : {g.parent, g.child})
        if (b >= 0 && std::find(c.body, c.body + c.numBodies, b) == c.body + c.numBodies) c.body[c.numBodies++] = b;
    }
    c.node = sys.numNodes++;
    sys.nodeJoint.push_back(-1);
    sys.couplings.push_back(c);
  }

  // Friction cones with n_f > 4 directions: a companion node per contact, numbered last.
  sys.frictionDirections = model.solver.frictionDirections;
  if (sys.frictionDirections > kFrictionDirections)
    for (CompiledContact& c : sys.contacts) {
      c.extraNode = sys.numNodes++;
      sys.nodeJoint.push_back(-1);
    }

  // Graph: every constrained joint node is adjacent to its (one or two) bodies.
  std::vector<std::vector<int>> adjacency(sys.numNodes);
  std::vector<bool> zeroDiagonal(sys.numNodes, false);
  for (const CompiledJoint& j : sys.joints) {
    if (j.node < 0) continue;
    zeroDiagonal[j.node] = true;
    for (int b : {j.geo.parent, j.geo.child}) {
      if (b < 0) continue;
      adjacency[j.node].push_back(b);
      adjacency[b].push_back(j.node);
    }
  }
  // Contact nodes: adjacent to their body (bodies). A system with contacts is always stepped by the
  // contact step, which factorises in its own order (variational_step.cc, leafFirstOrder: contacts
  // eliminated as the depth-first search meets them, a ground contact as a leaf before its body);
  // this order only lays out the blocks of the assembled matrix, so it is the same rule: no fill-in
  // for a ground contact, one body–body block per contact pair. (Placing contacts after their bodies,
  // as before issue 16, gave a box on a box 17 contact nodes that became a 42-node clique: 861
  // fill-in blocks per box, zeroed and multiplied at every iteration.)
  std::vector<bool> hangingLeaf(sys.numNodes, false);
  for (const CompiledContact& c : sys.contacts) {
    const CompiledContactGroup& grp = sys.contactGroups[c.group];
    for (int b : {grp.bodyA, grp.body}) {
      if (b < 0) continue;
      adjacency[c.node].push_back(b);
      adjacency[b].push_back(c.node);
    }
  }
  // A contact's companion node (friction directions 5…n_f) is coupled to the contact's bodies (its
  // sliding rows, its impulses) and to the contact node (ψ in its rows, its β in the cone row): a
  // cycle body–contact–companion. Its pivot diag(s/β + ε_f) plus the body's rank-2 Schur term is
  // nearly singular for a sticking contact; eliminated after the contact node (whose ψ column
  // completes it) it is the Schur complement of an invertible leading block. So each companion is
  // placed directly after its contact node (companionOf), which keeps the order of the other nodes
  // exactly as with 4 directions.
  std::vector<int> companionOf(sys.numNodes, -1);
  for (const CompiledContact& c : sys.contacts) {
    if (c.extraNode < 0) continue;
    const CompiledContactGroup& grp = sys.contactGroups[c.group];
    for (int b : {grp.bodyA, grp.body, c.node}) {
      if (b < 0) continue;
      adjacency[c.extraNode].push_back(b);
      adjacency[b].push_back(c.extraNode);
    }
    zeroDiagonal[c.extraNode] = true;
    companionOf[c.extraNode] = c.node;
  }
  // A limit node is adjacent to the joint's bodies. Its pivot, like a contact's, is singular while
  // the limit is active without the bodies: never eliminated before them (zero diagonal); on a
  // joint to the world it hangs on its body like a contact. With two bodies it closes a cycle with
  // the joint node (body a – joint – body b – limit): the elimination game gives its fill-in.
  for (const CompiledLimit& l : sys.limits) {
    const JointGeometry& g = sys.joints[l.joint].geo;
    for (int b : {g.parent, g.child}) {
      if (b < 0) continue;
      adjacency[l.node].push_back(b);
      adjacency[b].push_back(l.node);
    }
    zeroDiagonal[l.node] = true;
    hangingLeaf[l.node] = g.parent < 0;
  }
  // A coupling node is adjacent to the bodies of its joints; like a joint's, its pivot is singular
  // without them (zero diagonal); with one body it hangs on it.
  for (const CompiledCoupling& c : sys.couplings) {
    for (int i = 0; i < c.numBodies; ++i) {
      adjacency[c.node].push_back(c.body[i]);
      adjacency[c.body[i]].push_back(c.node);
    }
    zeroDiagonal[c.node] = true;
    hangingLeaf[c.node] = c.numBodies == 1;
  }
  bool pairs = false;
  for (const CompiledContactGroup& grp : sys.contactGroups) pairs = pairs || grp.bodyA >= 0;
  sys.order = computeEliminationOrder(adjacency, zeroDiagonal, hangingLeaf,
                                       sys.frictionDirections > kFrictionDirections ? companionOf : std::vector<int>(), pairs);

  // Block index maps, looked up once here.
  const GraphBlockIndex layout(sys.order);
  for (CompiledJoint& j : sys.joints) {
    if (j.node < 0) continue;
    if (j.geo.parent >= 0) {
      j.blockJA = layout.blockIndex(j.node, j.geo.parent);
      j.blockAJ = layout.blockIndex(j.geo.parent, j.node);
    }
    j.blockJB = layout.blockIndex(j.node, j.geo.child);
    j.blockBJ = layout.blockIndex(j.geo.child, j.node);
    MS_ASSERT(j.blockJB >= 0 && j.blockBJ >= 0, "joint–body block missing from the graph");
  }
  for (CompiledContact& c : sys.contacts) {
    const CompiledContactGroup& grp = sys.contactGroups[c.group];
    c.blockCB = layout.blockIndex(c.node, grp.body);
    c.blockBC = layout.blockIndex(grp.body, c.node);
    MS_ASSERT(c.blockCB >= 0 && c.blockBC >= 0, "contact–body block missing from the graph");
    if (grp.bodyA >= 0) {
      c.blockCA = layout.blockIndex(c.node, grp.bodyA);
      c.blockAC = layout.blockIndex(grp.bodyA, c.node);
      MS_ASSERT(c.blockCA >= 0 && c.blockAC >= 0, "contact–body block missing from the graph");
    }
    if (c.extraNode < 0) continue;
    c.blockEB = layout.blockIndex(c.extraNode, grp.body);
    c.blockBE = layout.blockIndex(grp.body, c.extraNode);
    c.blockCE = layout.blockIndex(c.node, c.extraNode);
    c.blockEC = layout.blockIndex(c.extraNode, c.node);
    MS_ASSERT(c.blockEB >= 0 && c.blockBE >= 0 && c.blockCE >= 0 && c.blockEC >= 0,
              "companion block missing from the graph");
    if (grp.bodyA >= 0) {
      c.blockEA = layout.blockIndex(c.extraNode, grp.bodyA);
      c.blockAE = layout.blockIndex(grp.bodyA, c.extraNode);
      MS_ASSERT(c.blockEA >= 0 && c.blockAE >= 0, "companion block missing from the graph");
    }
  }
  for (CompiledLimit& l : sys.limits) {
    const JointGeometry& g = sys.joints[l.joint].geo;
    if (g.parent >= 0) {
      l.blockLA = layout.blockIndex(l.node, g.parent);
      l.blockAL = layout.blockIndex(g.parent, l.node);
    }
    l.blockLB = layout.blockIndex(l.node, g.child);
    l.blockBL = layout.blockIndex(g.child, l.node);
    MS_ASSERT(l.blockLB >= 0 && l.blockBL >= 0, "limit–body block missing from the graph");
  }
  for (CompiledCoupling& c : sys.couplings)
    for (int i = 0; i < c.numBodies; ++i) {
      c.blockCX[i] = layout.blockIndex(c.node, c.body[i]);
      c.blockXC[i] = layout.blockIndex(c.body[i], c.node);
      MS_ASSERT(c.blockCX[i] >= 0 && c.blockXC[i] >= 0, "coupling–body block missing from the graph");
    }

}

}  // namespace

std::shared_ptr<const CompiledSystem> compile(const Model& model) {
  std::vector<std::string> errors;
  auto err = [&](const std::string& m) { errors.push_back(m); };
  const int nb = int(model.bodies.size());

  // Validate the solver settings and gravity.
  if (!(model.solver.dt > 0) || !std::isfinite(model.solver.dt)) err("time step must be positive and finite");
  if (!(model.solver.tolerance > 0)) err("solver tolerance must be positive");
  if (model.solver.maxIterations < 1) err("iteration cap must be at least 1");
  if (!finite(model.gravity)) err("gravity must be finite");
  if (model.solver.frictionDirections < kFrictionDirections ||
      model.solver.frictionDirections > kFrictionDirections + kMaxExtraFrictionDirections ||
      model.solver.frictionDirections % 2 != 0)
    err("friction directions must be 4, 6, 8 or 10 (got " + std::to_string(model.solver.frictionDirections) + ")");

  // Validate bodies: names, mass, inertia (positive definite, triangle inequality), pose.
  std::set<std::string> names;
  for (int i = 0; i < nb; ++i) {
    const BodyDesc& b = model.bodies[i];
    const std::string who = "body '" + b.name + "'";
    if (b.name.empty()) err("body " + std::to_string(i) + " has no name");
    if (!names.insert(b.name).second) err("duplicate body name '" + b.name + "'");
    if (!(b.mass > 0) || !std::isfinite(b.mass)) err(who + ": mass must be positive (got " + std::to_string(b.mass) + ")");
    if (!b.inertia.allFinite() || (b.inertia - b.inertia.transpose()).norm() > 1e-9 * (1 + b.inertia.norm())) {
      err(who + ": inertia must be a finite symmetric matrix");
    } else {
      Eigen::SelfAdjointEigenSolver<Mat3> es(b.inertia);
      const Vec3 ev = es.eigenvalues();
      if (!(ev.minCoeff() > 0)) err(who + ": inertia is not positive definite");
      else if (ev(0) + ev(1) < ev(2) * (1 - 1e-9)) err(who + ": principal moments violate the triangle inequality");
    }
    if (!finite(b.position) || !b.orientation.allFinite() || b.orientation.norm() < 1e-9)
      err(who + ": initial pose must be finite with a non-zero quaternion");
    if (!finite(b.linearVelocity) || !finite(b.angularVelocity)) err(who + ": initial velocity must be finite");
  }

  // Validate joints: bodies, axis, per-coordinate parameters.
  std::set<std::string> jnames;
  for (size_t k = 0; k < model.joints.size(); ++k) {
    const JointDesc& j = model.joints[k];
    const std::string who = "joint '" + j.name + "'";
    if (j.name.empty()) err("joint " + std::to_string(k) + " has no name");
    if (!jnames.insert(j.name).second) err("duplicate joint name '" + j.name + "'");
    if (j.child < 0 || j.child >= nb) err(who + ": child body index out of range");
    if (j.parent < -1 || j.parent >= nb) err(who + ": parent body index out of range");
    if (j.parent == j.child) err(who + ": a joint cannot connect a body to itself");
    if (!finite(j.axis) || j.axis.norm() < 1e-12) err(who + ": axis has zero length");
    if (!j.offset.allFinite() || j.offset.norm() < 1e-9) err(who + ": offset quaternion must be non-zero");
    if (!finite(j.parentAnchor) || !finite(j.childAnchor)) err(who + ": anchors must be finite");
    const int nf = jointKind(j.type).freeCoordinates();
    Vec6 tmp;
    auto check = [&](const std::vector<double>& v, const char* what, bool nonNegative) {
      if (!expand(v, nf, tmp))
        err(who + ": " + what + " needs 1 or " + std::to_string(nf) + " values (got " + std::to_string(v.size()) + ")");
      else if (!tmp.allFinite() || (nonNegative && tmp.minCoeff() < 0))
        err(who + ": " + what + (nonNegative ? " must be finite and non-negative" : " must be finite"));
    };
    if (!j.lowerLimit.empty() || !j.upperLimit.empty()) {
      Vec6 lo, hi;
      if (!expand(j.lowerLimit, nf, lo) || !expand(j.upperLimit, nf, hi) || j.lowerLimit.empty() || j.upperLimit.empty())
        err(who + ": limits need lower and upper values for its " + std::to_string(nf) + " coordinates");
      else if ((lo.head(nf).array() > hi.head(nf).array()).any())
        err(who + ": a lower limit exceeds its upper limit");
      else if (j.type != JointType::Revolute && j.type != JointType::Prismatic)
        err(who + ": limits are supported on revolute and prismatic joints");
    }
    check(j.stiffness, "stiffness", true);
    check(j.damping, "damping", true);
    check(j.restPosition, "rest position", false);
    if (j.initialPosition.size() > 1 || nf == 1) check(j.initialPosition, "initial position", false);
    if (j.initialVelocity.size() > 1 || nf == 1) check(j.initialVelocity, "initial velocity", false);
  }
  // Validate springs between bodies and PD controllers.
  for (const SpringDesc& sp : model.springs) {
    const std::string who = "spring '" + sp.name + "'";
    if (sp.bodyA < -1 || sp.bodyA >= nb || sp.bodyB < -1 || sp.bodyB >= nb) err(who + ": body index out of range");
    else if (sp.bodyA == sp.bodyB) err(who + ": both ends are on the same body");
    if (!(sp.stiffness >= 0) || !(sp.damping >= 0) || !(sp.restLength >= 0) || !std::isfinite(sp.stiffness) ||
        !std::isfinite(sp.damping) || !std::isfinite(sp.restLength))
      err(who + ": stiffness, damping and rest length must be finite and non-negative");
    if (!finite(sp.anchorA) || !finite(sp.anchorB)) err(who + ": anchors must be finite");
  }
  // A reference to coordinate `coordinate` of joint `joint` (controllers, tendon terms); false when
  // the joint does not exist.
  const auto jointCoordinate = [&](const std::string& who, int joint, int coordinate) {
    if (joint < 0 || joint >= int(model.joints.size())) {
      err(who + ": joint index out of range");
      return false;
    }
    const int nf = jointKind(model.joints[size_t(joint)].type).freeCoordinates();
    if (coordinate < 0 || coordinate >= nf)
      err(who + ": joint '" + model.joints[size_t(joint)].name + "' has " + std::to_string(nf) + " coordinates");
    return true;
  };
  for (const ControllerDesc& c : model.controllers) {
    const std::string who = "controller '" + c.name + "'";
    if (!jointCoordinate(who, c.joint, c.coordinate)) continue;
    if (!(c.kp >= 0) || !(c.kd >= 0) || !(c.effortLimit >= 0)) err(who + ": gains and effort limit must be non-negative");
    for (double v : {c.kp, c.kd, c.offset, c.amplitude, c.frequency, c.phase, c.effortLimit})
      if (!std::isfinite(v)) {
        err(who + ": parameters must be finite");
        break;
      }
  }
  // Tendons: terms on existing joint coordinates, finite coefficients, spring and damper ≥ 0.
  for (const TendonDesc& t : model.tendons) {
    const std::string who = "tendon '" + t.name + "'";
    if (t.terms.empty()) err(who + ": needs at least one joint term");
    for (const TendonTerm& term : t.terms)
      if (jointCoordinate(who, term.joint, term.coordinate) && !std::isfinite(term.coef))
        err(who + ": coefficients must be finite");
    if (!(t.stiffness >= 0) || !(t.damping >= 0) || !std::isfinite(t.stiffness) || !std::isfinite(t.damping) ||
        !std::isfinite(t.restLength))
      err(who + ": stiffness and damping must be finite and non-negative, the rest length finite");
  }
  // Couplings: existing coordinates, finite numbers, at most one coupling per driven coordinate, no
  // coordinate driven by itself and no cycle of couplings (each would make the constraints dependent).
  std::set<std::pair<int, int>> driven;
  for (const CouplingDesc& c : model.couplings) {
    const std::string who = "coupling '" + c.name + "'";
    bool ok = jointCoordinate(who, c.joint, c.coordinate);
    if (c.reference >= 0 || c.reference < -1) ok = jointCoordinate(who, c.reference, c.referenceCoordinate) && ok;
    if (!std::isfinite(c.multiplier) || !std::isfinite(c.offset)) err(who + ": multiplier and offset must be finite");
    if (!ok) continue;
    if (c.reference == c.joint && c.referenceCoordinate == c.coordinate)
      err(who + ": a joint coordinate cannot follow itself");
    else if (!driven.insert({c.joint, c.coordinate}).second)
      err(who + ": joint '" + model.joints[size_t(c.joint)].name + "' already follows another coupling (one per coordinate)");
  }
  if (errors.empty())
    for (const CouplingDesc& c : model.couplings) {
      // Follow the references from c's driven coordinate: back to it means a cycle.
      std::pair<int, int> at{c.reference, c.referenceCoordinate};
      for (size_t steps = 0; at.first >= 0 && steps <= model.couplings.size(); ++steps) {
        if (at == std::pair<int, int>{c.joint, c.coordinate}) {
          err("coupling '" + c.name + "': the couplings form a cycle through joint '" + model.joints[size_t(c.joint)].name + "'");
          break;
        }
        const auto next = std::find_if(model.couplings.begin(), model.couplings.end(), [&](const CouplingDesc& o) {
          return o.joint == at.first && o.coordinate == at.second;
        });
        if (next == model.couplings.end()) break;
        at = {next->reference, next->referenceCoordinate};
      }
    }
  for (const ActuatorDesc& a : model.actuators) {
    const bool onTendon = a.tendon >= 0;
    if (onTendon ? a.tendon >= int(model.tendons.size()) : (a.joint < 0 || a.joint >= int(model.joints.size()))) {
      err(onTendon ? "actuator: tendon index out of range" : "actuator: joint index out of range");
      continue;
    }
    const std::string who = onTendon ? "actuator on tendon '" + model.tendons[size_t(a.tendon)].name + "'"
                                     : "actuator on joint '" + model.joints[a.joint].name + "'";
    Vec6 tmp;
    const int nf = onTendon ? 1 : jointKind(model.joints[a.joint].type).freeCoordinates();
    if (!expand(a.effort, nf, tmp) || !tmp.allFinite())
      err(who + ": needs " + (nf == 1 ? std::string("1") : "1 or " + std::to_string(nf)) + " finite value" + (nf == 1 ? "" : "s"));
    if (!std::isfinite(a.gear) || a.gear == 0) err(who + ": gear must be finite and not zero");
    if (!(a.controlLower <= a.controlUpper) || !(a.forceLower <= a.forceUpper) || std::isnan(a.controlLower) ||
        std::isnan(a.forceLower) || a.controlLower == kInf || a.controlUpper == -kInf || a.forceLower == kInf ||
        a.forceUpper == -kInf)
      err(who + ": a range must be lower ≤ upper");
  }
  for (const WrenchDesc& w : model.wrenches)
    if (w.body < 0 || w.body >= nb || !finite(w.force) || !finite(w.torque)) err("external wrench: invalid body or value");
  for (const GroundDesc& g : model.grounds) {
    const std::string who = "ground '" + g.name + "'";
    if (!finite(g.point) || !finite(g.normal) || g.normal.norm() < 1e-12) err(who + ": needs a finite point and a non-zero normal");
    if (!std::isfinite(g.friction)) err(who + ": friction must be finite");
  }
  for (const BodyDesc& b : model.bodies)
    if (!(b.friction >= 0) || !std::isfinite(b.friction)) err("body '" + b.name + "': friction must be finite and ≥ 0");
  // An empty model is valid (the editor starts from one): nothing moves, every step is trivial.

  // Contact pairs: two different bodies with at least one pair of shapes that can touch.
  const BodyShapes shapes = collisionShapes(model, err);
  for (const ContactPairDesc& pr : model.contactPairs) {
    const std::string who = "contact-pair '" + pr.name + "'";
    if (pr.bodyA < 0 || pr.bodyA >= nb || pr.bodyB < 0 || pr.bodyB >= nb || pr.bodyA == pr.bodyB)
      err(who + ": needs two different bodies");
    else if (forEachShapePair(shapes, pr.bodyA, pr.bodyB, false, [](int, int) {}) == 0)
      err(who + ": '" + model.bodies[pr.bodyA].name + "' and '" + model.bodies[pr.bodyB].name +
          "' have no pair of collision shapes that can touch (each needs a collision shape; two planes do not collide)");
    else if (!(pr.friction < 0 || std::isfinite(pr.friction)))
      err(who + ": friction must be finite");
  }
  for (const ExclusionDesc& e : model.exclusions)
    if (e.bodyA < 0 || e.bodyA >= nb || e.bodyB < 0 || e.bodyB >= nb || e.bodyA == e.bodyB)
      err("exclude: needs two different bodies");
  if (!errors.empty()) {
    std::ostringstream os;
    os << "model '" << model.name << "' is invalid:";
    for (const auto& e : errors) os << "\n  " << e;
    throw UserError(os.str());
  }

  auto sys = std::make_shared<CompiledSystem>();
  sys->model = model;
  // A limited joint that would start outside its limits starts at the nearer limit (the hard limit
  // would otherwise throw it back within one step: URDF arms whose zero configuration lies outside
  // their joints' ranges, MJCF models whose joint ranges exclude the reference).
  std::vector<std::string> clampNotes;
  for (JointDesc& j : sys->model.joints) {
    if (j.lowerLimit.size() != 1 || j.upperLimit.size() != 1) continue;
    const double start = j.initialPosition.empty() ? 0.0 : j.initialPosition[0];
    // (An angle is compared in the turn centred on the limits, as CompiledLimit::coordinate does.)
    CompiledLimit range;
    range.lower = j.lowerLimit[0], range.upper = j.upperLimit[0], range.angular = j.type == JointType::Revolute;
    const double inRange = range.coordinate(start);
    const double clamped = std::clamp(inRange, range.lower, range.upper);
    if (clamped == inRange || !std::isfinite(start)) continue;
    j.initialPosition.assign(1, clamped);
    std::ostringstream os;
    os << "joint '" << j.name << "' would start at " << start << ", outside its limits [" << j.lowerLimit[0] << ", "
       << j.upperLimit[0] << "]: it starts at " << clamped;
    clampNotes.push_back(os.str());
  }
  // Body constants.
  for (const BodyDesc& b : model.bodies) sys->bodies.push_back({b.name, b.mass, b.inertia});

  // Joint geometry and force-element parameters; joints with constraint rows become graph nodes.
  sys->numNodes = nb;
  sys->nodeJoint.assign(nb, -1);
  sys->bodyJoints.assign(nb, {});
  for (size_t k = 0; k < model.joints.size(); ++k) {
    const JointDesc& d = model.joints[k];
    CompiledJoint j;
    j.name = d.name;
    j.geo = makeJointGeometry(d.type, d.parent, d.child, d.parentAnchor, d.childAnchor, d.axis, d.offset);
    const int nf = j.geo.freeCoordinates();
    expand(d.stiffness, nf, j.stiffness);
    expand(d.damping, nf, j.damping);
    expand(d.restPosition, nf, j.rest);
    expand(d.armature, nf, j.armature);
    j.hasSpring = j.stiffness.any();
    j.hasDamper = j.damping.any();
    j.hasArmature = j.armature.any();
    if (d.parent >= 0) sys->bodyJoints[d.parent].push_back(int(k));
    sys->bodyJoints[d.child].push_back(int(k));
    sys->joints.push_back(j);
  }
  // Joints whose coordinates a tendon's spring or damper reads.
  for (const TendonDesc& t : model.tendons)
    if (t.stiffness != 0 || t.damping != 0)
      for (const TendonTerm& term : t.terms) sys->joints[size_t(term.joint)].inTendon = true;
  for (const CouplingDesc& c : model.couplings)
    for (int k : {c.joint, c.reference})
      if (k >= 0) sys->joints[size_t(k)].inCoupling = true;

  // Spanning tree from the world, breadth first: each tree joint places its child.
  const JointTree tree = buildJointTree(model);
  sys->treeJoints = tree.treeJoints;
  sys->loopJoints = tree.loopJoints;
  // Initial pose (validates that the joints can be satisfied), then drop redundant loop rows.
  const State pose = makeInitialState(*sys, sys->model);
  sys->notes = removeRedundantRows(*sys, pose);
  sys->notes.insert(sys->notes.begin(), clampNotes.begin(), clampNotes.end());

  // Joints that still constrain something become graph nodes after the bodies; so do damped joints
  // between two bodies (own dampers, armature or a PD controller's D term), whose damper efforts are
  // unknowns of the node that couple parent and child (variational_step.cc).
  std::vector<char> controlled(sys->joints.size(), 0);
  for (const ControllerDesc& c : model.controllers)
    if (c.joint >= 0 && size_t(c.joint) < controlled.size() && c.kd != 0) controlled[size_t(c.joint)] = 1;
  for (size_t k = 0; k < sys->joints.size(); ++k) {
    CompiledJoint& j = sys->joints[k];
    const bool dampedBetweenBodies = j.geo.parent >= 0 && (j.hasDamper || j.hasArmature || controlled[k]);
    if (j.geo.constrained() == 0 && !dampedBetweenBodies) continue;
    j.node = sys->numNodes++;
    sys->nodeJoint.push_back(int(k));
    sys->numConstraintRows += j.geo.constrained();
  }

  sys->jointNodes = sys->numNodes;
  sys->bodyShapes = shapes;

  // Automatic collisions: the bodies with collision shapes, the pairs that may not collide.
  if (model.collisions != CollisionMode::Pairs) {
    sys->autoCollisions = true;
    for (int b = 0; b < nb; ++b)
      if (!shapes[size_t(b)].empty()) sys->collidingBodies.push_back(b);
    // Without self-collision: each body's mechanism (joints between bodies connect them).
    if (model.collisions == CollisionMode::NoSelf) sys->mechanismOf = mechanismsOf(model);
    excludePairs(*sys, pose);
  }
  buildModelContactGroups(*sys);
  buildContacts(*sys);
  return sys;
}

bool CompiledSystem::mayCollide(int a, int b) const {
  if (!autoCollisions || a == b) return false;
  const BodyDesc& A = model.bodies[size_t(a)];
  const BodyDesc& B = model.bodies[size_t(b)];
  if (((A.contype & B.conaffinity) | (B.contype & A.conaffinity)) == 0) return false;
  if (bodyShapes[size_t(a)].empty() || bodyShapes[size_t(b)].empty()) return false;
  if (!mechanismOf.empty() && mechanismOf[size_t(a)] == mechanismOf[size_t(b)]) return false;
  return !std::binary_search(excludedPairs.begin(), excludedPairs.end(), pairKey(a, b));
}

std::shared_ptr<const CompiledSystem> withAutoPairs(const std::shared_ptr<const CompiledSystem>& base,
                                                    const std::vector<BodyPair>& pairs) {
  MS_ASSERT(base && !base->base, "automatic pairs are added to the model's system");
  if (pairs.empty()) return base;
  auto sys = std::make_shared<CompiledSystem>(*base);
  sys->base = base;
  sys->autoPairs = pairs;
  // The model's contact groups and nodes as in the base system; the rest is built again.
  sys->numNodes = base->jointNodes + base->baseContacts;
  sys->nodeJoint.resize(size_t(sys->numNodes));
  sys->contactGroups.resize(size_t(base->baseGroups));
  sys->contacts.resize(size_t(base->baseContacts));
  sys->limits.clear();
  sys->couplings.clear();
  buildContacts(*sys);
  return sys;
}

}  // namespace ms
