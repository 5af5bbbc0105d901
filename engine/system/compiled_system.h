// SPDX-License-Identifier: GPL-3.0-or-later
// The immutable result of compiling a Model: body constants, joint geometry, the graph of the
// Newton matrix with its elimination order, block index maps and the joint spanning tree.
// Built once by compile(); stepping never changes it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/types.h"
#include "dynamics/joint_constraint.h"
#include "contact/contact_geometry.h"
#include "model/model.h"
#include "solver/graph.h"
#include "system/state.h"

namespace ms {

struct CompiledBody {
  std::string name;
  double mass = 1;
  Mat3 inertia = Mat3::Identity();
};

struct CompiledJoint {
  std::string name;
  JointGeometry geo;
  int node = -1;         // graph node of the constraint (and damper) rows, -1 if it has none
  Vec6 stiffness = Vec6::Zero(), rest = Vec6::Zero(), damping = Vec6::Zero();  // per free coordinate
  Vec6 armature = Vec6::Zero();  // reflected rotor inertia per free coordinate
  bool hasSpring = false, hasDamper = false, hasArmature = false;
  bool inTendon = false;  // a term of a tendon with a spring or damper (its coordinate is read every step)
  bool inCoupling = false;  // a joint of a coupling (its coordinate is read every step)
  // Joints that lost redundant rows keep their full geometry here for measuring violation.
  bool hasDroppedRows = false;
  JointGeometry full;
  // Off-diagonal block indices in the GraphLDU: (joint row, body column) and (body row, joint column).
  int blockJA = -1, blockAJ = -1, blockJB = -1, blockBJ = -1;
};

// Contacts with the environment (paper §3.3–3.4): each collision shape of a body against each
// ground plane gives a group of candidate contact points (sphere 1, capsule 2, box 8, cylinder 10),
// each a graph node that is a leaf on its body. A node's 6 unknowns are the impulses
// [γ, ψ, β₁..β₄] (normal, friction-cone multiplier, friction along 4 directions of the tangent
// plane) and its 6 slacks [φ(z₂), μγ − Σβ, η₁..η₄] (29c–29f).
// With n_f > 4 directions (`(solver (friction-directions N))`, even, ≤ 10) each contact has a second
// node, its companion, holding [β₅..β_{n_f}, 0…] with slacks η₅..η_{n_f} (the remaining rows are
// equality padding y = 0, as in a limit node); the cone row becomes μγ − Σ_{k ≤ n_f} β_k. The
// companion is adjacent to the contact's body (bodies) and to the contact node, and is eliminated
// directly after the contact node (computeEliminationOrder's companionOf).
constexpr int kFrictionDirections = 4;  // directions held by the contact node itself
constexpr int kMaxExtraFrictionDirections = 6;  // directions a companion node can hold
// Contacts between two bodies (`contact-pair`): a group of one candidate per pair of collision shapes
// (its closest points), a node adjacent to both bodies (shape A on bodyA, shape on body).
struct CompiledContactGroup {
  int body = 0;                 // body B (the shape's body)
  int shapeIndex = 0, shapeIndexA = -1;  // the shapes' places in CompiledSystem::bodyShapes
  int bodyA = -1;               // body A of a contact pair; -1: the world plane `plane`
  contact::ContactShape shape;
  contact::ContactShape shapeA; // body A's shape (contact pairs)
  contact::WorldPlane plane;
  double friction = 0.5;
  int first = 0, count = 0;  // its contacts: contacts[first, first + count)
};
struct CompiledContact {
  int group = 0, candidate = 0;  // candidate index within the group's ContactSet
  int node = -1;
  int blockCB = -1, blockBC = -1;  // (contact row, body column), (body row, contact column)
  int blockCA = -1, blockAC = -1;  // the same for body A of a contact pair
  // The companion node (n_f > 4; −1 otherwise) and its blocks: (companion row, body column),
  // (body row, companion column), the same for body A, (contact row, companion column) and
  // (companion row, contact column).
  int extraNode = -1;
  int blockEB = -1, blockBE = -1, blockEA = -1, blockAE = -1, blockCE = -1, blockEC = -1;
};

// Joint limits (revolute angle, prismatic travel) as inequalities in the contact solver: one graph
// node per limited joint, adjacent to the joint's bodies (a leaf on its body for a joint to the
// world, else it closes a cycle with the joint node). Unknowns [γ_lo, γ_hi, 0, 0, 0, 0]: the lower
// and upper limit efforts (N·m or N) with slacks [θ(z₂) − lower, upper − θ(z₂)]; rows 2–5 are
// equality padding rows y = 0, outside the complementarity pairs.
struct CompiledLimit {
  int joint = 0;
  double lower = 0, upper = 0;  // on the joint's single free coordinate (rad or m)
  bool angular = false;         // a revolute joint's angle, given in (−π, π]
  // The coordinate the limits compare. A revolute angle is continued from a reference (the last
  // step's coordinate): ref + remainder(θ − ref, 2π), continuous where θ wraps at ±π, so limits
  // beyond ±π (0 … 3.5 rad) or at exactly ±π hold; without one, it is taken in the turn centred on
  // the limits (the range's midpoint).
  double coordinate(double theta, double ref) const {
    return angular ? ref + std::remainder(theta - ref, 2 * M_PI) : theta;
  }
  double coordinate(double theta) const {
    if (!angular || !(upper - lower < 2 * M_PI)) return theta;
    return coordinate(theta, 0.5 * (lower + upper));
  }
  int node = -1;
  // (limit row, body column) and (body row, limit column) for parent (a, −1 for the world) and child (b).
  int blockLA = -1, blockAL = -1, blockLB = -1, blockBL = -1;
};

// Joint couplings (CouplingDesc; the equality c = θ_a − m·θ_b − offset = 0 on two joints' minimal
// coordinates, (B.7b)): one graph node adjacent to the bodies of both joints (2 to 4, the world not
// counted), y = [λ, 0, 0, 0, 0, 0]; rows 1–5 are padding rows y = 0. A cycle through the joints'
// nodes whenever the joints share a body: the elimination game gives the fill-in.
struct CompiledCoupling {
  int joint = 0, coordinate = 0;
  int reference = -1, referenceCoordinate = 0;  // −1: θ_a = offset
  double multiplier = 1, offset = 0;
  // Both coordinates revolute angles and |multiplier| = 1: c is compared modulo 2π (angles wrap at ±π).
  bool wraps = false;
  int node = -1;
  // The distinct bodies of both joints and, per body, (coupling row, body column) and (body row,
  // coupling column) blocks.
  int numBodies = 0;
  int body[4] = {-1, -1, -1, -1};
  int blockCX[4] = {-1, -1, -1, -1}, blockXC[4] = {-1, -1, -1, -1};
};

struct CompiledSystem {
  Model model;  // the description it was compiled from (initial conditions, names, shapes)
  std::vector<CompiledBody> bodies;
  std::vector<CompiledJoint> joints;
  int numNodes = 0;  // bodies first (node = body index), then constrained joints
  std::vector<int> nodeJoint;  // node → joint index (−1 for body, contact, limit and companion nodes)
  EliminationOrder order;
  // Spanning tree used for initial conditions: joints in breadth-first order from the world, each
  // placing its child; the remaining joints close loops.
  std::vector<int> treeJoints, loopJoints;
  std::vector<std::vector<int>> bodyJoints;  // joints touching each body
  int numConstraintRows = 0;
  std::vector<CompiledContactGroup> contactGroups;
  std::vector<CompiledContact> contacts;  // nodes numbered last, after the joints
  std::vector<CompiledLimit> limits;      // nodes numbered after the contacts
  std::vector<CompiledCoupling> couplings;  // nodes numbered after the limits
  // n_f of every contact's friction cone (Model::solver.frictionDirections); for n_f > 4 the
  // contacts' companion nodes are numbered last, after the limits and couplings.
  int frictionDirections = kFrictionDirections;
  // Compile notes for the user (e.g. redundant constraint rows that were dropped).
  std::vector<std::string> notes;

  // Collision shapes of every body as the distance functions take them (hulls built once, shared).
  std::vector<std::vector<contact::ContactShape>> bodyShapes;
  // Automatic collisions (Model::collisions == All or NoSelf; system/collision_pairs.h): the bodies that
  // may collide, and the pairs of them that may not (joined by a joint, excluded, filtered by
  // contype/conaffinity, overlapping at the start), as sorted keys a·2³² + b (a < b).
  bool autoCollisions = false;
  std::vector<int> collidingBodies;
  std::vector<std::uint64_t> excludedPairs;
  // CollisionMode::NoSelf: each body's mechanism (bodies connected through joints between bodies);
  // two bodies of one mechanism do not collide. Empty otherwise.
  std::vector<int> mechanismOf;
  bool mayCollide(int a, int b) const;  // a ≠ b, both colliding bodies, pair not excluded, not one mechanism's (NoSelf)
  // The system with automatic pairs: its model's system (the one compile() made; null for that
  // one), and the pairs whose contact groups follow the model's (from group baseGroups, contact
  // baseContacts on). Nodes of bodies and joints are numbered as in the model's system.
  std::shared_ptr<const CompiledSystem> base;
  std::vector<BodyPair> autoPairs;
  int baseGroups = 0, baseContacts = 0;
  int jointNodes = 0;  // bodies + constrained joints: the nodes before the contacts
};

// Validates `model` and compiles it. Throws UserError listing every problem found.
std::shared_ptr<const CompiledSystem> compile(const Model& model);

// The model's system `base` (made by compile) with the contacts of automatic pairs (sorted, each
// mayCollide) after its own: groups, nodes, elimination order and block maps built again, every
// thing else as in `base`. Empty `pairs`: `base` itself.
std::shared_ptr<const CompiledSystem> withAutoPairs(const std::shared_ptr<const CompiledSystem>& base,
                                                    const std::vector<BodyPair>& pairs);

}  // namespace ms
