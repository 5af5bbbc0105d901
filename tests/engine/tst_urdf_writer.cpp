// SPDX-License-Identifier: GPL-3.0-or-later
// URDF export (engine/io/urdf_writer): model → URDF → importUrdf gives the same initial body poses,
// masses and inertias and the same trajectory under the variational integrator (the gallery double
// pendulum, the chain scene, and a model with a free body, prismatic, planar, limited revolute and
// fixed joints); loops, joint types URDF lacks and bodies with two parent joints are refused with
// their names; what URDF cannot hold is listed in notes.
#include <QTest>

#include <cmath>
#include <filesystem>

#include "core/check.h"
#include "core/quaternion.h"
#include "io/urdf_import.h"
#include "io/urdf_writer.h"
#include "model/joint_tree.h"
#include "scenes/scenes.h"
#include "simulation.h"
#include "test_paths.h"

using namespace ms;

namespace {

// A model written as URDF and read back (ROS_PACKAGE_PATH ignored), with the settings URDF cannot
// carry (solver, gravity, collision mode) copied from the original so that the dynamics compare.
struct RoundTrip {
  std::string text;
  std::vector<std::string> notes;
  Model back;
  Diagnostics diags;
  bool imported = false;
};
RoundTrip roundTrip(const Model& m, const UrdfWriteOptions& options = {}) {
  RoundTrip r;
  r.text = writeUrdf(m, options, &r.notes);
  UrdfImportOptions io;
  io.useRosPackagePath = false;
  r.imported = importUrdfString(r.text, "export.urdf", "", r.back, r.diags, io);
  r.back.solver = m.solver;
  r.back.gravity = m.gravity;
  r.back.collisions = m.collisions;
  return r;
}

// Distance between two orientations as unit quaternions (q and −q are the same rotation).
double quatDistance(const Vec4& a, const Vec4& b) {
  return std::min((a - b).cwiseAbs().maxCoeff(), (a + b).cwiseAbs().maxCoeff());
}

// Largest difference of body positions and orientations between two states, bodies matched by name.
struct PoseDifference {
  double position = 0, orientation = 0;
};
PoseDifference poseDifference(const CompiledSystem& sa, const State& a, const CompiledSystem& sb, const State& b) {
  PoseDifference d;
  for (size_t i = 0; i < sa.bodies.size(); ++i) {
    size_t j = 0;
    while (j < sb.bodies.size() && sb.bodies[j].name != sa.bodies[i].name) ++j;
    if (j == sb.bodies.size()) return {INFINITY, INFINITY};
    d.position = std::max(d.position, (a.bodies[i].x - b.bodies[j].x).cwiseAbs().maxCoeff());
    d.orientation = std::max(d.orientation, quatDistance(a.bodies[i].q.normalized(), b.bodies[j].q.normalized()));
  }
  return d;
}

// The round trip of `m` against `m`: masses and inertias equal, initial poses within `poseTol`, and
// `steps` steps of the variational integrator within `trajectoryTol` (returned for the report).
PoseDifference compareDynamics(const char* label, const Model& m, const Model& back, int steps, double poseTol,
                               double trajectoryTol) {
  Simulation a(compile(m)), b(compile(back));
  const CompiledSystem &sa = a.system(), &sb = b.system();
  PoseDifference worst;
  [&] {
    QCOMPARE(sb.bodies.size(), sa.bodies.size());
    for (const CompiledBody& body : sa.bodies) {
      const int j = back.bodyIndex(body.name);
      QVERIFY2(j >= 0, body.name.c_str());
      QCOMPARE(sb.bodies[size_t(j)].mass, body.mass);
      QVERIFY2((sb.bodies[size_t(j)].inertia - body.inertia).cwiseAbs().maxCoeff() == 0, body.name.c_str());
    }
    // The initial poses.
    const PoseDifference initial = poseDifference(sa, a.state(), sb, b.state());
    qInfo("%s: initial poses differ by %.3g m and %.3g (quaternion)", label, initial.position, initial.orientation);
    QVERIFY(initial.position <= poseTol);
    QVERIFY(initial.orientation <= poseTol);
    // The trajectories.
    const State start = a.state();
    for (int s = 0; s < steps; ++s) {
      QVERIFY2(a.step(), a.metrics().message.c_str());
      QVERIFY2(b.step(), b.metrics().message.c_str());
      const PoseDifference d = poseDifference(sa, a.state(), sb, b.state());
      worst.position = std::max(worst.position, d.position);
      worst.orientation = std::max(worst.orientation, d.orientation);
    }
    qInfo("%s: over %d steps the poses differ by at most %.3g m and %.3g (quaternion)", label, steps, worst.position,
          worst.orientation);
    QVERIFY(worst.position <= trajectoryTol);
    QVERIFY(worst.orientation <= trajectoryTol);
    // It really moved.
    QVERIFY(poseDifference(sa, start, sa, a.state()).position > 0.05);
  }();
  return worst;
}

// True when some note contains `fragment`.
bool hasNote(const std::vector<std::string>& notes, const std::string& fragment) {
  for (const std::string& n : notes)
    if (n.find(fragment) != std::string::npos) return true;
  return false;
}

// What writeUrdf throws for `m` ("" when it does not throw).
std::string refusal(const Model& m) {
  try {
    writeUrdf(m);
  } catch (const UserError& e) {
    return e.what();
  }
  return {};
}

// A box body.
BodyDesc box(const std::string& name, double mass, const Vec3& size) {
  BodyDesc b;
  b.name = name;
  b.mass = mass;
  b.inertia = Vec3(mass * (size.y() * size.y() + size.z() * size.z()) / 12,
                   mass * (size.x() * size.x() + size.z() * size.z()) / 12,
                   mass * (size.x() * size.x() + size.y() * size.y()) / 12)
                  .asDiagonal();
  ShapeDesc s;
  s.kind = ShapeDesc::Kind::Box;
  s.size = size;
  b.visuals.push_back(s);
  return b;
}

// Every URDF joint type at non-zero initial coordinates, a free body, rotated frames, a capsule, a
// colour and a relative mesh name.
Model mixedModel(bool withWeld) {
  Model m;
  m.name = "mixed";
  m.collisions = CollisionMode::Pairs;
  // A free body, rotated, away from the origin.
  BodyDesc free = box("free", 0.7, Vec3(0.2, 0.1, 0.05));
  free.position = Vec3(0.3, -0.2, 1.5);
  free.orientation = Vec4(0.9, 0.1, -0.3, 0.2).normalized();
  m.bodies.push_back(free);
  // A slider on an oblique axis (prismatic, no limits, damped).
  m.bodies.push_back(box("slider", 1.2, Vec3(0.1, 0.1, 0.2)));
  JointDesc slide;
  slide.name = "slide";
  slide.type = JointType::Prismatic;
  slide.parent = -1;
  slide.child = 1;
  slide.parentAnchor = Vec3(0, 0, 1);
  slide.childAnchor = Vec3(0, 0, 0.1);
  slide.axis = Vec3(0, 1, 1).normalized();
  slide.offset = quat::fromAxisAngle(Vec3(0, 0, 1), 0.3);
  slide.initialPosition = {0.2};
  slide.damping = {0.3};
  m.joints.push_back(slide);
  // A planar-axis joint: moves in the plane ⊥ its axis and turns about it.
  m.bodies.push_back(box("rotor", 0.5, Vec3(0.3, 0.05, 0.05)));
  JointDesc planar;
  planar.name = "plane";
  planar.type = JointType::PlanarAxis;
  planar.parent = 1;
  planar.child = 2;
  planar.parentAnchor = Vec3(0.1, 0, 0);
  planar.childAnchor = Vec3(0, 0.05, 0);
  planar.axis = Vec3(0, 0, 1);
  planar.initialPosition = {0.1, -0.2, 0.5};
  m.joints.push_back(planar);
  // A limited, damped revolute joint with a rotated joint frame, starting inside its limits.
  BodyDesc pin = box("pin", 0.4, Vec3(0.05, 0.05, 0.4));
  ShapeDesc capsule;
  capsule.kind = ShapeDesc::Kind::Capsule;
  capsule.size = Vec3(0.03, 0.3, 0);
  capsule.position = Vec3(0, 0.01, -0.02);
  capsule.orientation = quat::fromAxisAngle(Vec3(1, 0, 0), 0.2);
  capsule.color = Vec4(0.1, 0.2, 0.3, 0.5);
  pin.visuals = {capsule};
  pin.collisions = {capsule};
  ShapeDesc mesh;
  mesh.kind = ShapeDesc::Kind::Mesh;
  mesh.meshFile = "meshes/part.stl";
  mesh.meshScale = Vec3(2, 2, 2);
  pin.visuals.push_back(mesh);
  m.bodies.push_back(pin);
  JointDesc hinge;
  hinge.name = "hinge";
  hinge.type = JointType::Revolute;
  hinge.parent = 2;
  hinge.child = 3;
  hinge.parentAnchor = Vec3(0.15, 0, 0);
  hinge.childAnchor = Vec3(0, 0, 0.2);
  hinge.axis = Vec3(0, 1, 0);
  hinge.offset = quat::fromAxisAngle(Vec3(1, 1, 0), 0.4);
  hinge.initialPosition = {0.3};
  hinge.lowerLimit = {-0.5};
  hinge.upperLimit = {0.8};
  hinge.damping = {0.1};
  m.joints.push_back(hinge);
  if (!withWeld) return m;
  // A body welded to the pin.
  m.bodies.push_back(box("weight", 0.3, Vec3(0.08, 0.08, 0.08)));
  JointDesc weld;
  weld.name = "weld";
  weld.type = JointType::Fixed;
  weld.parent = 3;
  weld.child = 4;
  weld.parentAnchor = Vec3(0, 0, -0.2);
  weld.childAnchor = Vec3(0.02, 0, 0.04);
  weld.offset = quat::fromAxisAngle(Vec3(0, 1, 0), -0.7);
  m.joints.push_back(weld);
  return m;
}

}  // namespace

class TestUrdfWriter : public QObject {
  Q_OBJECT
 private slots:
  void galleryDoublePendulumRoundTrip();
  void chainSceneRoundTrip();
  void everyJointTypeRoundTrip();
  void loopsAreRefused();
  void jointTypesUrdfLacksAreRefused();
  void bodyWithTwoParentJointsIsRefused();
  void whatUrdfCannotHoldIsNoted();
  void meshNamesAreRewrittenForTheOutput();
};

void TestUrdfWriter::galleryDoublePendulumRoundTrip() {
  // models/double-pendulum.mech: the first joint starts at π/2, so the URDF's zero configuration is
  // written rotated by it (a note says so).
  Model m;
  std::string failure;
  QVERIFY2(test::loadGallery("double-pendulum.mech", {}, m, failure), failure.c_str());
  const RoundTrip r = roundTrip(m);
  QVERIFY2(r.imported, r.diags.format().c_str());
  QVERIFY2(r.diags.empty(), r.diags.format().c_str());
  QVERIFY(hasNote(r.notes, "joint 'joint1' (1.5707963267948966) starts at non-zero coordinates"));
  QVERIFY(r.text.find("<!-- Note: URDF has no initial configuration") != std::string::npos);
  // Read back: the same joints, now starting at zero.
  QCOMPARE(int(r.back.joints.size()), 2);
  QVERIFY(r.back.joints[0].initialPosition.empty());
  QVERIFY(r.back.joints[0].lowerLimit.empty());  // continuous
  compareDynamics("double pendulum", m, r.back, 1000, 1e-12, 1e-12);
}

void TestUrdfWriter::chainSceneRoundTrip() {
  // scene:chain (10 revolute links, the first at 45°; collision mode 'pairs', noted).
  const Model m = buildScene("chain");
  const RoundTrip r = roundTrip(m);
  QVERIFY2(r.imported, r.diags.format().c_str());
  QVERIFY2(r.diags.empty(), r.diags.format().c_str());
  QVERIFY(hasNote(r.notes, "the collision mode 'pairs' is not written"));
  QCOMPARE(int(r.back.bodies.size()), 10);
  compareDynamics("chain", m, r.back, 1000, 1e-12, 1e-12);
}

void TestUrdfWriter::everyJointTypeRoundTrip() {
  // A free body (→ floating joint from "world"), prismatic without limits (→ ±1e9 m), planar-axis
  // (→ planar), a limited revolute starting at 0.3 (limits shifted by −0.3), damping; a fixed joint
  // between two bodies, which the URDF reader lumps into one body (as Drake, Gazebo and MuJoCo do):
  // with the weld, the pin and its weight come back as one body of their total mass; the dynamics
  // are compared without it.
  {
    const Model welded = mixedModel(true);
    const RoundTrip r = roundTrip(welded);
    QVERIFY2(r.imported, r.diags.format().c_str());
    QCOMPARE(r.back.bodies.size(), welded.bodies.size() - 1);
    QVERIFY(r.back.jointIndex("weld") < 0 && r.back.bodyIndex("weight") < 0);
    QVERIFY(std::abs(r.back.bodies[size_t(r.back.bodyIndex("pin"))].mass - 0.7) < 1e-12);
  }
  const Model m = mixedModel(false);
  const RoundTrip r = roundTrip(m);
  QVERIFY2(r.imported, r.diags.format().c_str());
  // (The mesh file does not exist: its name, made absolute against the current directory, is kept.)
  QCOMPARE(int(r.diags.items().size()), 1);
  QVERIFY2(r.diags.items()[0].message.find("mesh file '" + std::filesystem::absolute("meshes/part.stl").string() +
                                           "' not found") != std::string::npos,
           r.diags.format().c_str());
  const Model& b = r.back;
  QCOMPARE(int(b.joints.size()), 4);
  const JointDesc& floating = b.joints[size_t(b.jointIndex("free_floating"))];
  QCOMPARE(floating.type, JointType::Floating);
  QCOMPARE(floating.parent, -1);
  QCOMPARE(b.joints[size_t(b.jointIndex("plane"))].type, JointType::PlanarAxis);
  const JointDesc& slide = b.joints[size_t(b.jointIndex("slide"))];
  QCOMPARE(slide.type, JointType::Prismatic);
  QCOMPARE(slide.lowerLimit, std::vector<double>{-1e9});
  QCOMPARE(slide.upperLimit, std::vector<double>{1e9});
  QCOMPARE(slide.damping, std::vector<double>{0.3});
  QVERIFY(hasNote(r.notes, "joint 'slide' has no limits: written with -1e9 and 1e9 m"));
  const JointDesc& hinge = b.joints[size_t(b.jointIndex("hinge"))];
  QCOMPARE(hinge.type, JointType::Revolute);
  QVERIFY(std::abs(hinge.lowerLimit.at(0) - (-0.8)) < 1e-15);
  QVERIFY(std::abs(hinge.upperLimit.at(0) - 0.5) < 1e-15);
  QCOMPARE(hinge.damping, std::vector<double>{0.1});
  // The capsule: a cylinder and two spheres at its hemisphere centres, in the colour.
  const BodyDesc& pin = b.bodies[size_t(b.bodyIndex("pin"))];
  QCOMPARE(int(pin.visuals.size()), 4);
  QCOMPARE(int(pin.collisions.size()), 3);
  QCOMPARE(pin.collisions[0].kind, ShapeDesc::Kind::Cylinder);
  QCOMPARE(pin.collisions[1].kind, ShapeDesc::Kind::Sphere);
  QVERIFY((pin.visuals[0].color - Vec4(0.1, 0.2, 0.3, 0.5)).norm() < 1e-7);  // urdfdom keeps colours as floats
  const ShapeDesc& capsule = m.bodies[3].collisions[0];
  const Vec3 end = capsule.position + quat::rotate(capsule.orientation, Vec3(0, 0, 0.15));
  QVERIFY((pin.collisions[2].position - end).norm() < 1e-15);
  QVERIFY(hasNote(r.notes, "capsules written as a cylinder and two spheres"));
  // The mesh, scaled.
  QCOMPARE(pin.visuals[3].kind, ShapeDesc::Kind::Mesh);
  QCOMPARE(pin.visuals[3].meshScale, Vec3(2, 2, 2));
  compareDynamics("every joint type", m, b, 300, 1e-12, 1e-9);
}

void TestUrdfWriter::loopsAreRefused() {
  // models/four-bar.mech closes its loop with the loop joint 'coupler-rocker': refused, named.
  Model m;
  std::string failure;
  QVERIFY2(test::loadGallery("four-bar.mech", {}, m, failure), failure.c_str());
  const JointTree tree = buildJointTree(m);
  QCOMPARE(int(tree.loopJoints.size()), 1);
  QCOMPARE(m.joints[size_t(tree.loopJoints[0])].name, std::string("coupler-rocker"));
  const std::string why = refusal(m);
  QCOMPARE(why, std::string("the model has kinematic loops, closed by joint 'coupler-rocker': URDF describes trees only "
                            "(no file is written)"));
  // Two loops (a double four-bar) are both named.
  Model two;
  QVERIFY2(test::loadGallery("double-four-bar.mech", {}, two, failure), failure.c_str());
  const JointTree tree2 = buildJointTree(two);
  QVERIFY(tree2.loopJoints.size() >= 2);
  const std::string why2 = refusal(two);
  for (int k : tree2.loopJoints) QVERIFY2(why2.find("'" + two.joints[size_t(k)].name + "'") != std::string::npos, why2.c_str());
  QVERIFY(why2.find("closed by joints ") != std::string::npos);
}

void TestUrdfWriter::jointTypesUrdfLacksAreRefused() {
  // scene:chain with spherical joints, one of them made cylindrical: one line per type, naming its joints.
  Model m = buildScene("chain", {{"n", "4"}, {"joint", "spherical"}});
  m.joints[2].type = JointType::Cylindrical;
  m.joints[2].initialPosition.clear();
  const std::string why = refusal(m);
  QCOMPARE(why, std::string("joint 'joint3' (cylindrical): URDF has no such joint (it has revolute, continuous, prismatic, "
                            "fixed, floating and planar)\n"
                            "joints 'joint1', 'joint2' and 'joint4' (spherical): URDF has no such joint (it has revolute, "
                            "continuous, prismatic, fixed, floating and planar)"));
  // checkUrdfConvertible says the same without compiling; a convertible model passes.
  QVERIFY_THROWS_EXCEPTION(UserError, checkUrdfConvertible(m));
  checkUrdfConvertible(buildScene("chain", {{"n", "3"}}));
  // Other types URDF lacks are refused too (planar with a fixed orientation, free orientation …).
  for (JointType t : {JointType::Planar, JointType::FixedOrientation, JointType::RotationAxisFree,
                      JointType::CylindricalFree, JointType::PlanarFree}) {
    Model one = buildScene("chain", {{"n", "1"}});
    one.joints[0].type = t;
    one.joints[0].initialPosition.clear();
    QVERIFY_THROWS_EXCEPTION(UserError, checkUrdfConvertible(one));
  }
}

void TestUrdfWriter::bodyWithTwoParentJointsIsRefused() {
  // world → a (revolute) and b → a (revolute), b otherwise free: no loop, but 'a' would need two
  // parent joints in URDF.
  Model m;
  m.bodies = {box("a", 1, Vec3(0.1, 0.1, 0.1)), box("b", 1, Vec3(0.1, 0.1, 0.1))};
  JointDesc j1;
  j1.name = "j1";
  j1.parent = -1;
  j1.child = 0;
  JointDesc j2 = j1;
  j2.name = "j2";
  j2.parent = 1;
  j2.childAnchor = Vec3(0, 0, 0.5);
  m.joints = {j1, j2};
  QCOMPARE(refusal(m), std::string("joint 'j2': body 'a' is already the child of joint 'j1', and a URDF link has one parent "
                                   "joint (make 'a' the parent of one of them)"));
}

void TestUrdfWriter::whatUrdfCannotHoldIsNoted() {
  // Springs, actuators, joint stiffness, gravity, solver settings and initial velocities: each noted,
  // in the returned notes and as comments in the file.
  Model m = buildScene("double-pendulum");
  SpringDesc spring;
  spring.bodyA = 0;
  spring.bodyB = 1;
  spring.stiffness = 10;
  m.springs.push_back(spring);
  ActuatorDesc actuator;
  actuator.joint = 0;
  actuator.effort = {1.0};
  m.actuators.push_back(actuator);
  m.joints[1].stiffness = {2.0};
  m.joints[1].initialVelocity = {0.5};
  m.gravity = Vec3(0, 0, -1.62);
  m.solver.dt = 0.005;
  std::vector<std::string> notes;
  const std::string text = writeUrdf(m, {}, &notes);
  for (const char* n : {"1 spring between bodies not written", "1 actuator not written",
                        "joint 'joint2': spring (stiffness) not written", "gravity (0 0 -1.62) not written",
                        "solver settings (dt = 0.005 s, ...) not written", "initial velocities not written"}) {
    QVERIFY2(hasNote(notes, n), n);
    QVERIFY2(text.find("<!-- Note: " + std::string(n)) != std::string::npos, n);
  }
  // A model URDF holds completely has no notes.
  std::vector<std::string> none;
  Model plain = buildScene("double-pendulum", {{"angle", "0"}});
  writeUrdf(plain, {}, &none);
  QVERIFY2(none.empty(), none.empty() ? "" : none[0].c_str());
}

void TestUrdfWriter::meshNamesAreRewrittenForTheOutput() {
  // A relative mesh name is relative to the model's directory: written relative to the URDF's
  // directory, or absolute without one; URIs and absolute names are written as they are.
  Model m = buildScene("pendulum");
  ShapeDesc s;
  s.kind = ShapeDesc::Kind::Mesh;
  s.meshFile = "meshes/part.stl";
  m.bodies[0].visuals = {s};
  s.meshFile = "package://robot/meshes/arm.dae";
  m.bodies[0].visuals.push_back(s);
  s.meshFile = "/opt/meshes/base.obj";
  m.bodies[0].visuals.push_back(s);
  UrdfWriteOptions o;
  o.meshBaseDir = "/data/models";
  o.outputDir = "/data/export";
  const std::string text = writeUrdf(m, o);
  QVERIFY(text.find("filename=\"../models/meshes/part.stl\"") != std::string::npos);
  QVERIFY(text.find("filename=\"package://robot/meshes/arm.dae\"") != std::string::npos);
  QVERIFY(text.find("filename=\"/opt/meshes/base.obj\"") != std::string::npos);
  o.outputDir.clear();
  QVERIFY(writeUrdf(m, o).find("filename=\"/data/models/meshes/part.stl\"") != std::string::npos);
}

QTEST_APPLESS_MAIN(TestUrdfWriter)
#include "tst_urdf_writer.moc"
