// SPDX-License-Identifier: GPL-3.0-or-later
// Parametric scenes (see scenes.h). Conventions: gravity −z; planar mechanisms move in the y–z plane
// about world x; a link's body z axis runs along the link, its "top" end at +L/2.
#include "scenes/scenes.h"

#include <cmath>
#include <functional>
#include <sstream>


#include "core/check.h"
#include "core/quaternion.h"
#include "io/mech_reader.h"

namespace ms {
namespace {

using Params = std::map<std::string, std::string>;

// Typed access to scene parameters with validation.
class Args {
 public:
  Args(const SceneInfo& info, const Params& p) : info_(info), p_(p) {
    for (const auto& [k, v] : p) {
      bool known = false;
      for (const auto& d : info.parameters) known |= d.name == k;
      if (!known) {
        std::string list;
        for (const auto& d : info.parameters) list += (list.empty() ? "" : ", ") + d.name;
        throw UserError("scene '" + info.name + "' has no parameter '" + k + "'" +
                        (list.empty() ? std::string(" (it takes none)") : " (parameters: " + list + ")"));
      }
    }
  }
  std::string str(const std::string& k) const {
    auto it = p_.find(k);
    if (it != p_.end()) return it->second;
    for (const auto& d : info_.parameters)
      if (d.name == k) return d.defaultValue;
    MS_ASSERT(false, "scene parameter not declared");
  }
  double num(const std::string& k, double lo, double hi) const {
    const std::string s = str(k);
    double v = 0;
    size_t used = 0;
    try {
      v = std::stod(s, &used);
    } catch (...) {
      used = 0;
    }
    if (used != s.size() || s.empty() || !std::isfinite(v))
      throw UserError("scene '" + info_.name + "': parameter " + k + "='" + s + "' is not a number");
    if (v < lo || v > hi) {
      std::ostringstream os;
      os << "scene '" << info_.name << "': parameter " << k << "=" << s << " is out of range [" << lo << ", " << hi << "]";
      throw UserError(os.str());
    }
    return v;
  }
  int integer(const std::string& k, int lo, int hi) const {
    const double v = num(k, lo, hi);
    if (v != std::floor(v)) throw UserError("scene '" + info_.name + "': parameter " + k + " must be an integer");
    return int(v);
  }

 private:
  const SceneInfo& info_;
  const Params& p_;
};

// Rod/cylinder inertia about its centre, axis along body z.
Mat3 cylinderInertia(double m, double r, double l) {
  const double t = m * (3 * r * r + l * l) / 12.0;
  return Vec3(t, t, 0.5 * m * r * r).asDiagonal();
}

Mat3 boxInertia(double m, const Vec3& s) {
  return Vec3(m * (s.y() * s.y() + s.z() * s.z()) / 12, m * (s.x() * s.x() + s.z() * s.z()) / 12,
              m * (s.x() * s.x() + s.y() * s.y()) / 12)
      .asDiagonal();
}

BodyDesc rod(const std::string& name, double m, double l, double r = 0.05) {
  BodyDesc b;
  b.name = name;
  b.mass = m;
  b.inertia = cylinderInertia(m, r, l);
  ShapeDesc shape;
  shape.kind = ShapeDesc::Kind::Cylinder;
  shape.size = Vec3(r, l, 0);
  b.visuals.push_back(shape);
  b.collisions.push_back(shape);
  return b;
}

BodyDesc cube(const std::string& name, double m, double a) {
  BodyDesc b;
  b.name = name;
  b.mass = m;
  b.inertia = boxInertia(m, Vec3(a, a, a));
  ShapeDesc shape;
  shape.kind = ShapeDesc::Kind::Box;
  shape.size = Vec3(a, a, a);
  b.visuals.push_back(shape);
  b.collisions.push_back(shape);
  return b;
}

JointDesc joint(const std::string& name, JointType t, int parent, int child, const Vec3& pa, const Vec3& pb,
                double angle = 0, const Vec3& axis = Vec3::UnitX()) {
  JointDesc j;
  j.name = name;
  j.type = t;
  j.parent = parent;
  j.child = child;
  j.parentAnchor = pa;
  j.childAnchor = pb;
  j.axis = axis;
  const int nf = jointKind(t).freeCoordinates();
  if (nf == 1) j.initialPosition = {angle};
  if (nf == 3 && jointKind(t).freeRotational() == 3) j.initialPosition = {angle, 0, 0};
  return j;
}

Vec3 top(double l) { return Vec3(0, 0, 0.5 * l); }
Vec3 bottom(double l) { return Vec3(0, 0, -0.5 * l); }

Model pendulumLike(const std::string& name, int links, double angle) {
  // Each link: 1 kg, 0.1 m cube at the tip of a massless 1 m rod.
  Model m;
  m.name = name;
  for (int i = 0; i < links; ++i) {
    m.bodies.push_back(cube("link" + std::to_string(i + 1), 1.0, 0.1));
    const Vec3 pa = i == 0 ? Vec3::Zero() : Vec3::Zero();  // previous cube's centre (or world origin)
    m.joints.push_back(joint("joint" + std::to_string(i + 1), JointType::Revolute, i - 1, i, pa, Vec3(0, 0, 1.0),
                             i == 0 ? angle : 0.0));
  }
  return m;
}

Model buildPendulum(const Args& a) { return pendulumLike("pendulum", 1, a.num("angle", -10, 10)); }

Model buildDoublePendulum(const Args& a) { return pendulumLike("double-pendulum", 2, a.num("angle", -10, 10)); }

Model buildChain(const Args& a) {
  const int n = a.integer("n", 1, 10000);
  const std::string jt = a.str("joint");
  if (jt != "revolute" && jt != "spherical")
    throw UserError("scene 'chain': parameter joint must be revolute or spherical (got '" + jt + "')");
  const JointType type = jt == "revolute" ? JointType::Revolute : JointType::Spherical;
  Model m;
  m.name = "chain";
  // The paper's scenario: links pass through each other (no contacts between bodies).
  m.collisions = CollisionMode::Pairs;
  const double l = 1.0;
  for (int i = 0; i < n; ++i) {
    m.bodies.push_back(rod("link" + std::to_string(i + 1), 1.0, l));
    m.bodies.back().position = Vec3(0, 0, -(i + 0.5) * l);
    m.joints.push_back(joint("joint" + std::to_string(i + 1), type, i - 1, i, i == 0 ? Vec3::Zero() : bottom(l), top(l),
                             i == 0 ? kPi / 4 : 0.0));
  }
  return m;
}

Model buildThreeLinkLoop(const Args&) {
  // §5.1: lengths 1, √2/2, 1 m; masses 1, √2/2, 1 kg; both ends pinned to the ground.
  // The hinge angles are the symmetric trapezoid's (links at 45°, 90° and 135° from hanging, its
  // resting pose), pin2 at 0: the initial pose is built along a breadth-first tree (pin1 and pin2
  // place link1 and link3, joint23 closes the loop), so it starts with link1 at 102° from hanging
  // and moves (`mechstudio-cli assemble` writes the angles it starts from).
  Model m;
  m.name = "three-link-loop";
  // The paper's scenario: links pass through each other (no contacts between bodies).
  m.collisions = CollisionMode::Pairs;
  const double h = std::sqrt(2.0) / 2.0;
  const double L[3] = {1.0, h, 1.0}, M[3] = {1.0, h, 1.0};
  for (int i = 0; i < 3; ++i) m.bodies.push_back(rod("link" + std::to_string(i + 1), M[i], L[i]));
  m.joints.push_back(joint("pin1", JointType::Revolute, -1, 0, Vec3::Zero(), top(L[0]), kPi / 4));
  m.joints.push_back(joint("joint12", JointType::Revolute, 0, 1, bottom(L[0]), top(L[1]), kPi / 4));
  m.joints.push_back(joint("joint23", JointType::Revolute, 1, 2, bottom(L[1]), top(L[2]), kPi / 4));
  // Ground pivot of the far end: A + link1 + link2 + link3 directions.
  const Vec3 B(0, h + h + h, 0);
  m.joints.push_back(joint("pin2", JointType::Revolute, -1, 2, B, bottom(L[2])));
  return m;
}

Model buildDampedPendulum(const Args& a) {
  // §5.1: 1 m, 1 kg link, joint damping 0.5 N·m·s, meant for Δt = 0.1.
  Model m;
  m.name = "damped-pendulum";
  m.bodies.push_back(rod("link", 1.0, 1.0));
  m.joints.push_back(joint("joint", JointType::Revolute, -1, 0, Vec3::Zero(), top(1.0), a.num("angle", -10, 10)));
  m.joints.back().damping = {a.num("damping", 0, 1e6)};
  m.solver.dt = 0.1;
  return m;
}

Model buildScaledPendulum(const Args& a) {
  // §5.3 Fig. 11: a pendulum of scale s: a thin rod of mass s and length s² hinged at one end
  // (J = m l²/3 about the hinge, the rod's radius l/1000), started at rest at the angle (π/2:
  // horizontal); its period for small swings is T = 2π √(2l/(3g)) ∝ s, so Δt scales with s.
  const double s = a.num("scale", 1e-3, 1e3), l = s * s;
  Model m;
  m.name = "scaled-pendulum";
  m.bodies.push_back(rod("rod", s, l, 1e-3 * s * s));  // the radius as models/scaled-pendulum.mech computes it
  m.joints.push_back(joint("hinge", JointType::Revolute, -1, 0, Vec3::Zero(), top(l), a.num("angle", -10, 10)));
  m.solver.dt = 0.01 * s;
  return m;
}

Model buildFourLinkSegments(const Args& a) {
  // §5.2 Fig. 9a: a chain of n closed 4-link segments (rhombi of 1 m, 1 kg links), hanging from the
  // world at the top vertex; each segment's bottom vertex carries the next segment.
  const int n = a.integer("n", 1, 2000);
  Model m;
  m.name = "four-link-segments";
  // The paper's scenario: links pass through each other (no contacts between bodies).
  m.collisions = CollisionMode::Pairs;
  const double l = 1.0, q = kPi / 4;
  int prev = -1;  // body carrying the next segment's top vertex (−1: world)
  Vec3 prevAnchor = Vec3::Zero();
  for (int s = 0; s < n; ++s) {
    const std::string k = std::to_string(s + 1);
    const int A = int(m.bodies.size());
    for (const char* nm : {"a", "b", "c", "d"}) m.bodies.push_back(rod(std::string(nm) + k, 1.0, l));
    // a: top→left, b: top→right, c: left→bottom, d: right→bottom.
    const double swing = s == 0 ? 0.3 : 0.0;
    const double aAngle = (s == 0 ? -q + swing : -kPi / 2);  // relative to the carrying link
    m.joints.push_back(joint("top" + k, JointType::Revolute, prev, A, prevAnchor, top(l), aAngle));
    m.joints.push_back(joint("apex" + k, JointType::Revolute, A, A + 1, top(l), top(l), kPi / 2));
    m.joints.push_back(joint("left" + k, JointType::Revolute, A, A + 2, bottom(l), top(l), kPi / 2));
    m.joints.push_back(joint("right" + k, JointType::Revolute, A + 1, A + 3, bottom(l), top(l), -kPi / 2));
    m.joints.push_back(joint("bottom" + k, JointType::Revolute, A + 2, A + 3, bottom(l), bottom(l)));
    prev = A + 2;
    prevAnchor = bottom(l);
  }
  return m;
}

Model buildDoubleFourBar(const Args& a) {
  // §5.3: three parallel 1 m / 1 kg cranks pivoted on the ground 1 m apart, tips joined by two 1 m /
  // 1 kg couplers; started hanging with angular velocity `omega`, enough to go over the top, so the
  // linkage passes through its singular (collinear) configurations twice per revolution.
  const double w = a.num("omega", -100, 100);
  Model m;
  m.name = "double-four-bar";
  // The paper's scenario: links pass through each other (no contacts between bodies).
  m.collisions = CollisionMode::Pairs;
  const double l = 1.0;
  for (int i = 0; i < 3; ++i) {
    m.bodies.push_back(rod("crank" + std::to_string(i + 1), 1.0, l));
    m.joints.push_back(joint("pivot" + std::to_string(i + 1), JointType::Revolute, -1, i, Vec3(0, i * l, 0), top(l)));
    m.joints.back().initialVelocity = {w};
  }
  // Couplers lie along +y: their body z axis is rotated 90° about x relative to hanging.
  for (int c = 0; c < 2; ++c) {
    m.bodies.push_back(rod("coupler" + std::to_string(c + 1), 1.0, l));
    // The coupler turns against its crank so that it translates (parallelogram motion).
    JointDesc j = joint("tip" + std::to_string(c + 1), JointType::Revolute, c, 3 + c, bottom(l), top(l), kPi / 2);
    j.initialVelocity = {-w};
    m.joints.push_back(j);
    m.joints.push_back(joint("tip" + std::to_string(c + 2) + "c" + std::to_string(c + 1), JointType::Revolute, c + 1,
                             3 + c, bottom(l), bottom(l)));
  }
  return m;
}

Model buildFreeBody(const Args& a) {
  // Torque-free asymmetric body (principal moments 1, 2, 3 kg·m²) spinning about its intermediate
  // axis with a small perturbation: the tennis-racket flip.
  Model m;
  m.name = "free-body";
  BodyDesc b;
  b.name = "body";
  b.mass = 1.0;
  b.inertia = Vec3(1.0, 2.0, 3.0).asDiagonal();
  ShapeDesc shape;
  shape.kind = ShapeDesc::Kind::Box;
  shape.size = Vec3(0.6, 0.4, 0.2);
  b.visuals.push_back(shape);
  const double spin = a.num("spin", -100, 100), eps = a.num("perturbation", -10, 10);
  b.angularVelocity = Vec3(eps, spin, eps);
  m.bodies.push_back(b);
  m.gravity.setZero();
  return m;
}

// A solid box body (uniform density, inertia as the .mech reader derives it) with the same shape
// for drawing and contact.
BodyDesc solidBox(const std::string& name, double mass, const Vec3& size, double friction) {
  BodyDesc b;
  b.name = name;
  b.mass = mass;
  b.friction = friction;
  ShapeDesc shape;
  shape.kind = ShapeDesc::Kind::Box;
  shape.size = size;
  shape.color = Vec4(0.85, 0.55, 0.2, 1.0);
  shapeInertia(shape, mass, b.inertia);
  b.visuals.push_back(shape);
  b.collisions.push_back(shape);
  return b;
}

// The ground plane z = 0 (friction < 0: the bodies' own).
void addGround(Model& m, double friction = -1) {
  GroundDesc g;
  g.name = "ground";
  g.friction = friction;
  m.grounds.push_back(g);
}

Model buildBoxDrop(const Args& a) {
  // §5.1: a 0.5 m, 1 kg cube dropped from 0.4 m (its bottom face 0.4 m above the ground).
  Model m;
  m.name = "box-drop";
  const double edge = 0.5, height = a.num("height", 0, 100);
  BodyDesc b = solidBox("box", 1.0, Vec3::Constant(edge), a.num("mu", 0, 10));
  b.position = Vec3(0, 0, height + 0.5 * edge);
  m.bodies.push_back(b);
  addGround(m);
  return m;
}

Model buildBoxIncline(const Args& a) {
  // A 0.5 m, 1 kg box at rest on a plane through the origin tilted by angle_deg about the x or y
  // axis; it sticks while tan θ < μ and slides with acceleration g (sin θ − μ cos θ) otherwise.
  // (Same arithmetic as models/box-incline.mech, so that file and scene agree to the last bit.)
  Model m;
  m.name = "box-incline";
  const double theta = a.num("angle_deg", 0, 89) * kPi / 180.0, mu = a.num("mu", 0, 10), edge = 0.5;
  const std::string axis = a.str("tilt_axis");
  if (axis != "x" && axis != "y") throw UserError("scene box-incline: tilt_axis must be x or y, got '" + axis + "'");
  const bool aboutY = axis == "y";
  const double s = std::sin(theta), c = std::cos(theta), sh = std::sin(theta / 2), ch = std::cos(theta / 2);
  const Vec3 n = aboutY ? Vec3(s, 0, c) : Vec3(0, -1 * s, c);
  BodyDesc b = solidBox("box", 1.0, Vec3::Constant(edge), mu);
  b.position = Vec3(0.25 * n.x(), 0.25 * n.y(), 0.25 * n.z());
  b.orientation = aboutY ? Vec4(ch, 0, sh, 0) : Vec4(ch, sh, 0, 0);
  m.bodies.push_back(b);
  GroundDesc g;
  g.name = "incline";
  g.normal = n;
  g.friction = mu;
  m.grounds.push_back(g);
  return m;
}

// A solid sphere of mass m and radius r (visual and collision), friction 0.5.
BodyDesc sphereBody(const std::string& name, double m, double r, const Vec4& color) {
  BodyDesc b;
  b.name = name;
  b.mass = m;
  b.friction = 0.5;
  ShapeDesc shape;
  shape.kind = ShapeDesc::Kind::Sphere;
  shape.size = Vec3(r, 0, 0);
  shape.color = color;
  shapeInertia(shape, b.mass, b.inertia);
  b.visuals.push_back(shape);
  b.collisions.push_back(shape);
  return b;
}

Model buildSphereChain(const Args& a) {
  // §5.2 Fig. 8b: n spheres (r = 0.25 m, 1 kg) 1 m apart, each joined to the previous one by a
  // spherical joint at its own centre; the first rests on the ground, the chain rises at 45° and
  // falls onto the ground. angle_deg = 0 lays the chain on the ground (every sphere touching).
  Model m;
  m.name = "sphere-chain";
  // The paper's scenario: links pass through each other (no contacts between bodies).
  m.collisions = CollisionMode::Pairs;
  const int n = int(a.num("n", 1, 10000));
  const double angle = a.num("angle_deg", 0, 90) * kPi / 180.0;
  const double r = 0.25, cx = std::cos(angle), cz = std::sin(angle);
  for (int i = 0; i < n; ++i) {
    BodyDesc b = sphereBody("sphere" + std::to_string(i + 1), 1.0, r, Vec4(0.2, 0.45, 0.8, 1.0));
    b.position = Vec3(i * cx, 0, r + i * cz);
    m.bodies.push_back(b);
    if (i > 0)
      m.joints.push_back(joint("ball" + std::to_string(i + 1), JointType::Spherical, i - 1, i, Vec3(cx, 0, cz), Vec3::Zero()));
  }
  addGround(m);
  return m;
}

ContactPairDesc contactPair(const Model& m, int a, int b) {
  ContactPairDesc p;
  p.name = m.bodies[a].name + "-" + m.bodies[b].name;
  p.bodyA = a;
  p.bodyB = b;
  return p;
}

Model buildBoxStack(const Args& a) {
  // Issue 16: n cubes of 0.2 m and 1 kg stacked on the ground, each resting exactly on the one below
  // (box–box contacts: every corner of each box against the box below it), friction μ.
  Model m;
  m.name = "box-stack";
  const int n = int(a.num("n", 1, 1000));
  const double edge = 0.2, mu = a.num("mu", 0, 10);
  for (int i = 0; i < n; ++i) {
    BodyDesc b = solidBox("box" + std::to_string(i + 1), 1.0, Vec3::Constant(edge), mu);
    b.position = Vec3(0, 0, (i + 0.5) * edge);
    const double c = std::cos(kPi * (i + 1));  // orange and blue in turn, as models/box-stack.mech
    b.visuals[0].color = b.collisions[0].color = Vec4(0.55 - 0.3 * c, 0.525 + 0.025 * c, 0.5 + 0.3 * c, 1);
    m.bodies.push_back(b);
    if (i > 0) m.contactPairs.push_back(contactPair(m, i - 1, i));
  }
  addGround(m);
  return m;
}

Model buildBoxOnBox(const Args& a) {
  // Issue 16: a 0.2 m, 1 kg cube on a 0.5 m, 10 kg block on the ground, pushed along x by a constant
  // force at its centre. Friction μ between the cubes; the block holds the ground with μ = 1, so it
  // stays put while the cube sticks for push < μ m g and slides with a = push/m − μ g above it.
  Model m;
  m.name = "box-on-box";
  const double mu = a.num("mu", 0, 10), push = a.num("push", -1e6, 1e6);
  BodyDesc base = solidBox("block", 10.0, Vec3::Constant(0.5), 1.0);
  base.position = Vec3(0, 0, 0.25);
  m.bodies.push_back(base);
  BodyDesc top = solidBox("cube", 1.0, Vec3::Constant(0.2), mu);
  top.position = Vec3(0, 0, 0.6);
  top.visuals[0].color = top.collisions[0].color = Vec4(0.25, 0.5, 0.8, 1);
  m.bodies.push_back(top);
  ContactPairDesc p = contactPair(m, 0, 1);
  p.friction = mu;
  m.contactPairs.push_back(p);
  WrenchDesc w;
  w.body = 1;
  w.force = Vec3(push, 0, 0);
  m.wrenches.push_back(w);
  addGround(m, 1.0);
  return m;
}

Model buildSpheresInBox(const Args& a) {
  // Issue 16, the broad phase: n free spheres (r = 0.05 m, 0.1 kg) in a box of four walls on the
  // ground, found by automatic collisions (no contact-pair). They start on a square grid 0.15 m
  // apart (k × k, k = max(8, ⌈√n⌉)) just above the floor, sphere i with a horizontal velocity of
  // 1 m/s at the angle i · π(3 − √5) (the golden angle), and drop, roll and bounce off each other and
  // the walls. The box is the grid's size (k · 0.15 m square), so the spheres cover the same share
  // of the floor for every n and the work per sphere stays the same: the scaling benchmark.
  // With layers > 1 (issue 31, the pile) the grid is sized for ⌈n / layers⌉ spheres per layer
  // (k = max(8, ⌈√⌈n/layers⌉⌉)) and filled layer by layer from the bottom, each layer 0.15 m above
  // the one below: the upper layers drop onto the lower ones (n = 200, layers = 3: k = 9, layers of
  // 81, 81 and 38 spheres in a 1.35 m box).
  Model m;
  m.name = "spheres-in-box";
  const int n = int(a.num("n", 1, 5000));
  const double layersValue = a.num("layers", 1, 100);
  if (layersValue != std::floor(layersValue))
    throw UserError("scene 'spheres-in-box': layers must be a whole number, not " + a.str("layers"));
  const int layers = int(layersValue);
  const double r = 0.05, gap = 0.15, mu = a.num("mu", 0, 10);
  const int perLayer = (n + layers - 1) / layers;
  const int perRow = std::max(8, int(std::ceil(std::sqrt(double(perLayer)))));
  const double side = perRow * gap;
  const double golden = 2.399963229728653;  // π (3 − √5): directions that never repeat
  for (int i = 0; i < n; ++i) {
    const double c = std::cos(0.7 * i);
    BodyDesc b = sphereBody("ball" + std::to_string(i + 1), 0.1, r, Vec4(0.55 - 0.3 * c, 0.5, 0.5 + 0.3 * c, 1));
    b.friction = mu;
    const int layer = i / (perRow * perRow), j = i % (perRow * perRow);
    b.position = Vec3(0.5 * gap + (j % perRow) * gap, 0.5 * gap + (j / perRow) * gap, r + r + layer * gap);
    const double angle = golden * i;
    b.linearVelocity = Vec3(std::cos(angle), std::sin(angle), 0);
    m.bodies.push_back(b);
  }
  addGround(m);
  const Vec3 walls[4][2] = {{Vec3(0, 0, 0), Vec3(1, 0, 0)},
                            {Vec3(side, 0, 0), Vec3(-1, 0, 0)},
                            {Vec3(0, 0, 0), Vec3(0, 1, 0)},
                            {Vec3(0, side, 0), Vec3(0, -1, 0)}};
  for (int w = 0; w < 4; ++w) {
    GroundDesc g;
    g.name = "wall" + std::to_string(w + 1);
    g.point = walls[w][0];
    g.normal = walls[w][1];
    m.grounds.push_back(g);
  }
  return m;
}

struct SceneEntry {
  SceneInfo info;
  std::function<Model(const Args&)> build;
};

const std::vector<SceneEntry>& entries() {
  static const std::vector<SceneEntry> e = {
      {{"pendulum", "1 kg, 0.1 m cube on a massless 1 m rod, revolute joint, starts horizontal",
        {{"angle", "1.5707963267948966", "initial angle from hanging [rad]"}}},
       buildPendulum},
      {{"double-pendulum", "two 1 kg, 0.1 m cubes on massless 1 m rods, both links start horizontal (E0 = 0 J)",
        {{"angle", "1.5707963267948966", "initial angle of the first link from hanging [rad]"}}},
       buildDoublePendulum},
      {{"chain", "n links (1 m, 0.05 m radius, 1 kg cylinders) jointed at their ends, straight, 45 deg from hanging",
        {{"n", "10", "number of links"}, {"joint", "revolute", "revolute or spherical"}}},
       buildChain},
      {{"three-link-loop", "closed loop of links 1, sqrt(2)/2, 1 m (masses 1, sqrt(2)/2, 1 kg) pinned to the ground at both ends", {}},
       buildThreeLinkLoop},
      {{"damped-pendulum", "1 m, 1 kg link with joint damping 0.5 N m s, dt = 0.1 s",
        {{"angle", "1.5707963267948966", "initial angle from hanging [rad]"}, {"damping", "0.5", "joint damping [N m s]"}}},
       buildDampedPendulum},
      {{"scaled-pendulum", "the paper's Fig. 11 pendulum of scale s: a thin rod of mass s kg and length s^2 m, dt = 0.01 s * s",
        {{"scale", "1", "scale s (mass s, length s^2)"}, {"angle", "1.5707963267948966", "initial angle from hanging [rad]"}}},
       buildScaledPendulum},
      {{"four-link-segments", "a chain of n closed 4-link segments (rhombi of 1 m, 1 kg links)", {{"n", "4", "number of segments"}}},
       buildFourLinkSegments},
      {{"double-four-bar", "three parallel 1 m cranks joined by two couplers, passing through singular configurations",
        {{"omega", "8", "initial crank angular velocity [rad/s]"}}},
       buildDoubleFourBar},
      {{"free-body", "torque-free asymmetric body spinning near its intermediate axis",
        {{"spin", "2", "angular velocity about the intermediate axis [rad/s]"},
         {"perturbation", "0.01", "angular velocity about the other two axes [rad/s]"}}},
       buildFreeBody},
      {{"box-drop", "a 0.5 m, 1 kg cube dropped from 0.4 m onto the ground (contact, friction)",
        {{"height", "0.4", "drop height of the bottom face [m]"}, {"mu", "0.5", "friction coefficient"}}},
       buildBoxDrop},
      {{"box-incline", "a 0.5 m, 1 kg box at rest on a tilted plane: sticks if tan(angle) < mu, else slides",
        {{"angle_deg", "20", "tilt of the plane [deg]"}, {"mu", "0.5", "friction coefficient"},
         {"tilt_axis", "x", "axis the plane is tilted about: x or y"}}},
       buildBoxIncline},
      {{"sphere-chain", "n spheres (0.25 m, 1 kg) 1 m apart on spherical joints, rising at 45 deg from the ground, falling",
        {{"n", "10", "number of spheres"}, {"angle_deg", "45", "rise of the chain [deg] (0: lying on the ground)"}}},
       buildSphereChain},
      {{"box-stack", "n 0.2 m, 1 kg cubes stacked on the ground (box-box contacts)",
        {{"n", "10", "number of cubes"}, {"mu", "0.5", "friction coefficient"}}},
       buildBoxStack},
      {{"box-on-box", "a 0.2 m, 1 kg cube on a 0.5 m, 10 kg block, pushed along x: sticks if push < mu m g, else slides",
        {{"mu", "0.5", "friction coefficient between the cubes"}, {"push", "0", "force on the cube along x [N]"}}},
       buildBoxOnBox},
      {{"spheres-in-box", "n free 0.05 m spheres rolling in a box of walls (0.15 m of side per sphere row), colliding automatically",
        {{"n", "200", "number of spheres"},
         {"layers", "1", "layers the spheres start in, 0.15 m apart (3 with n = 200: the pile of issue 31)"},
         {"mu", "0.3", "friction coefficient"}}},
       buildSpheresInBox},
  };
  return e;
}

}  // namespace

const std::vector<SceneInfo>& sceneCatalog() {
  static const std::vector<SceneInfo> c = [] {
    std::vector<SceneInfo> v;
    for (const auto& e : entries()) v.push_back(e.info);
    return v;
  }();
  return c;
}

Model buildScene(const std::string& name, const Params& params) {
  for (const auto& e : entries())
    if (e.info.name == name) return e.build(Args(e.info, params));
  std::string list;
  for (const auto& e : entries()) list += (list.empty() ? "" : ", ") + e.info.name;
  throw UserError("unknown scene '" + name + "' (scenes: " + list + ")");
}

}  // namespace ms
