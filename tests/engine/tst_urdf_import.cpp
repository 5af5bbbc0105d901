// SPDX-License-Identifier: GPL-3.0-or-later
// URDF import (engine/io/urdf_import), on files written for these tests (tests/data/urdf) and the
// gallery's URDF models (models/urdf): frames and anchors, lumping of massless links, rotated
// inertial frames, meshes and materials, the loop-closure extension, and diagnostics for
// malformed files (file and line, no crash).
#include <QTest>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/quaternion.h"
#include "io/urdf_import.h"
#include "simulation.h"

using namespace ms;

namespace {

// The directory of this source file (tests/engine), to find the test data and the gallery.
std::string sourceDir() { return std::string(MECHSTUDIO_SOURCE_DIR) + "/tests/engine"; }

std::string dataFile(const std::string& name) { return sourceDir() + "/../data/urdf/" + name; }
std::string galleryFile(const std::string& name) { return sourceDir() + "/../../models/urdf/" + name; }

// The whole text of a file.
std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Rotation for URDF roll-pitch-yaw (fixed axes x, y, z).
Mat3 rpy(double r, double p, double y) {
  return (Eigen::AngleAxisd(y, Vec3::UnitZ()) * Eigen::AngleAxisd(p, Vec3::UnitY()) * Eigen::AngleAxisd(r, Vec3::UnitX()))
      .toRotationMatrix();
}

// Number of diagnostics of one severity whose message contains `fragment`.
int countDiagnostics(const Diagnostics& d, Severity s, const std::string& fragment = "") {
  int n = 0;
  for (const Diagnostic& x : d.items())
    if (x.severity == s && x.message.find(fragment) != std::string::npos) ++n;
  return n;
}

// Steps two simulations side by side and returns the largest difference of body COM positions.
double maxPositionDifference(Simulation& a, Simulation& b, int steps) {
  double worst = 0;
  for (int s = 0; s < steps; ++s) {
    if (!a.step() || !b.step()) return INFINITY;
    for (size_t i = 0; i < a.state().bodies.size(); ++i)
      worst = std::max(worst, (a.state().bodies[i].x - b.state().bodies[i].x).cwiseAbs().maxCoeff());
  }
  return worst;
}

// The double pendulum of pendulum2.urdf, built with the engine API.
Model codePendulum() {
  Model m;
  m.name = "pendulum2";
  BodyDesc b1;
  b1.name = "link1";
  b1.mass = 1.0;
  b1.inertia = Vec3(0.084, 0.002, 0.083).asDiagonal();
  b1.position = Vec3(0, 0.5, 0);
  BodyDesc b2;
  b2.name = "link2";
  b2.mass = 0.5;
  b2.inertia = Vec3(0.027, 0.001, 0.0267).asDiagonal();
  b2.position = Vec3(0, 1.4, 0);
  m.bodies = {b1, b2};
  JointDesc j1;
  j1.name = "joint1";
  j1.type = JointType::Revolute;
  j1.parent = -1;
  j1.child = 0;
  j1.parentAnchor = Vec3::Zero();
  j1.childAnchor = Vec3(0, -0.5, 0);
  j1.axis = Vec3::UnitX();
  JointDesc j2 = j1;
  j2.name = "joint2";
  j2.parent = 0;
  j2.child = 1;
  j2.parentAnchor = Vec3(0, 0.5, 0);
  j2.childAnchor = Vec3(0, -0.4, 0);
  j2.damping = {0.05};
  m.joints = {j1, j2};
  return m;
}

}  // namespace

class TestUrdfImport : public QObject {
  Q_OBJECT
 private slots:
  void pendulumMatchesModelBuiltInCode();
  void armWithMeshesLumpingAndRotatedInertials();
  void missingMeshesAreWarnings();
  void collisionMeshesAreReadOrWarned();
  void jointTypesMapToEngineJoints();
  void fourBarLoopStaysClosed();
  void loopChildOriginDefaultsToZeroConfiguration();
  void malformedFilesGiveErrors_data();
  void malformedFilesGiveErrors();
  void missingFileIsAnError();
  void truncatedAndMutatedTextNeverCrashes();
  void galleryModelsSimulateTenSeconds();
  void fixedLinksAreLumpedAndInertiasRepaired();
};

void TestUrdfImport::pendulumMatchesModelBuiltInCode() {
  // (a) The URDF double pendulum gives the same trajectory as the same model built in code:
  // body COM positions agree to 1e-9 m over 200 steps.
  Model urdf;
  Diagnostics d;
  QVERIFY2(importUrdf(dataFile("pendulum2.urdf"), urdf, d), d.format().c_str());
  QVERIFY2(d.empty(), d.format().c_str());
  QCOMPARE(urdf.name, std::string("pendulum2"));
  QCOMPARE(int(urdf.bodies.size()), 2);
  QCOMPARE(int(urdf.joints.size()), 2);
  // Structure: anchors in the COM frames, limits and damping.
  const JointDesc& j2 = urdf.joints[1];
  QCOMPARE(j2.type, JointType::Revolute);
  QCOMPARE(j2.parent, 0);
  QCOMPARE(j2.child, 1);
  QVERIFY((j2.parentAnchor - Vec3(0, 0.5, 0)).norm() < 1e-15);
  QVERIFY((j2.childAnchor - Vec3(0, -0.4, 0)).norm() < 1e-15);
  QVERIFY((j2.axis - Vec3::UnitX()).norm() < 1e-15);
  QCOMPARE(j2.damping, std::vector<double>{0.05});
  QCOMPARE(j2.lowerLimit, std::vector<double>{-3.0});
  QCOMPARE(j2.upperLimit, std::vector<double>{3.0});
  QVERIFY(urdf.joints[0].lowerLimit.empty());  // continuous
  // The visual is placed in the COM frame: at its centre, turned 90° about x.
  QCOMPARE(int(urdf.bodies[0].visuals.size()), 1);
  const ShapeDesc& v = urdf.bodies[0].visuals[0];
  QCOMPARE(v.kind, ShapeDesc::Kind::Cylinder);
  QVERIFY((v.size - Vec3(0.02, 1.0, 0)).norm() < 1e-15);
  QVERIFY(v.position.norm() < 1e-15);
  QVERIFY((quat::rotation(v.orientation) - rpy(M_PI / 2, 0, 0)).norm() < 1e-12);
  // Same trajectory as the model built in code.
  Simulation a(compile(urdf)), b(compile(codePendulum()));
  const double diff = maxPositionDifference(a, b, 200);
  qInfo("pendulum: URDF vs code, max COM position difference over 200 steps %.3g m", diff);
  QVERIFY(diff <= 1e-9);
  QVERIFY((a.state().bodies[1].x - Vec3(0, 1.4, 0)).norm() > 0.1);  // it really swings
}

void TestUrdfImport::armWithMeshesLumpingAndRotatedInertials() {
  // (b) Meshes (file name and scale kept), named and inline materials, a massless base lumped into
  // the world, a massless mount lumped into the upper arm, inertial frames with rpy.
  Model rot, plain;
  Diagnostics d, dp;
  QVERIFY2(importUrdf(dataFile("arm_rotated_inertial.urdf"), rot, d), d.format().c_str());
  QVERIFY2(importUrdf(dataFile("arm_plain_inertial.urdf"), plain, dp), dp.format().c_str());
  // Only warning: the base's geometry cannot go on the world. Meshes were found.
  QCOMPARE(d.errorCount(), 0);
  QCOMPARE(countDiagnostics(d, Severity::Warning), 1);
  QCOMPARE(countDiagnostics(d, Severity::Warning, "'base_link' is fixed to the world"), 1);
  // Bodies and joints: base and mount are lumped away.
  QCOMPARE(int(rot.bodies.size()), 2);
  QCOMPARE(rot.bodies[0].name, std::string("upper_arm"));
  QCOMPARE(rot.bodies[1].name, std::string("forearm"));
  QCOMPARE(int(rot.joints.size()), 2);
  const JointDesc& shoulder = rot.joints[0];
  QCOMPARE(shoulder.name, std::string("shoulder"));
  QCOMPARE(shoulder.parent, -1);
  QVERIFY((shoulder.parentAnchor - Vec3(0, 0, 0.15)).norm() < 1e-15);  // base 0.1 + joint 0.05
  QCOMPARE(shoulder.damping, std::vector<double>{0.02});
  QCOMPARE(shoulder.lowerLimit, std::vector<double>{-2.0});
  const JointDesc& elbow = rot.joints[1];
  QCOMPARE(elbow.parent, 0);
  QCOMPARE(elbow.child, 1);
  QVERIFY(elbow.lowerLimit.empty());
  // The upper arm's body frame is its inertial frame: COM at link origin + (0, 0.25, 0.01), turned by rpy.
  const Mat3 R1 = rpy(0.3, 0.2, 0.1);
  const Vec3 c1(0, 0.25, 0.01), link1(0, 0, 0.15);
  QVERIFY((rot.bodies[0].position - (link1 + c1)).norm() < 1e-14);
  QVERIFY((quat::rotation(rot.bodies[0].orientation) - R1).norm() < 1e-12);
  QVERIFY((rot.bodies[0].inertia - R1.transpose() * Mat3(Vec3(0.045, 0.004, 0.044).asDiagonal()) * R1).norm() < 1e-12);
  // Shoulder anchors and axis: the child anchor is the link origin in the COM frame, the axis turned with it.
  QVERIFY((shoulder.childAnchor - R1.transpose() * (-c1)).norm() < 1e-14);
  QVERIFY((shoulder.axis - R1.transpose() * Vec3::UnitX()).norm() < 1e-14);
  QVERIFY((quat::rotation(shoulder.offset) - R1).norm() < 1e-12);
  // Upper-arm visuals: its own mesh (named material) and the mount's mesh (inline material).
  const BodyDesc& ua = rot.bodies[0];
  QCOMPARE(int(ua.visuals.size()), 2);
  QCOMPARE(ua.visuals[0].kind, ShapeDesc::Kind::Mesh);
  QCOMPARE(ua.visuals[0].meshFile, std::string("meshes/link.stl"));
  QVERIFY((ua.visuals[0].meshScale - Vec3(0.001, 0.001, 0.002)).norm() < 1e-15);
  QVERIFY((ua.visuals[0].color - Vec4(1, 0.5, 0, 1)).norm() < 1e-7);
  QVERIFY((ua.visuals[0].position - R1.transpose() * (Vec3(0, 0.25, 0) - c1)).norm() < 1e-14);
  QVERIFY((quat::rotation(ua.visuals[0].orientation) - R1.transpose() * rpy(M_PI / 2, 0, 0)).norm() < 1e-12);
  const Vec3 mountVisual = Vec3(0, 0.5, 0) + rpy(0, 0, 0.2) * Vec3(0, 0.02, 0);
  QCOMPARE(ua.visuals[1].meshFile, std::string("meshes/link.stl"));
  QVERIFY((ua.visuals[1].meshScale - Vec3(0.5, 0.5, 0.5)).norm() < 1e-15);
  QVERIFY((ua.visuals[1].color - Vec4(0.9, 0.1, 0.1, 1)).norm() < 1e-7);
  QVERIFY((ua.visuals[1].position - R1.transpose() * (mountVisual - c1)).norm() < 1e-14);
  QVERIFY((quat::rotation(ua.visuals[1].orientation) - R1.transpose() * rpy(0, 0, 0.2)).norm() < 1e-12);
  // Collisions: the cylinder and the mount's box.
  QCOMPARE(int(ua.collisions.size()), 2);
  QCOMPARE(ua.collisions[0].kind, ShapeDesc::Kind::Cylinder);
  QVERIFY((ua.collisions[0].size - Vec3(0.03, 0.5, 0)).norm() < 1e-15);
  QCOMPARE(ua.collisions[1].kind, ShapeDesc::Kind::Box);
  QVERIFY((ua.collisions[1].position - R1.transpose() * (mountVisual - c1)).norm() < 1e-14);
  // Forearm: box with the named steel colour.
  QCOMPARE(int(rot.bodies[1].visuals.size()), 1);
  QVERIFY((rot.bodies[1].visuals[0].color - Vec4(0.6, 0.6, 0.65, 1)).norm() < 1e-7);
  // Same physical robot as the one without rotated inertials: same COM trajectory, and body frames
  // that differ by the inertial rotations throughout.
  // The shoulder reaches its URDF lower limit (−2 rad) at about 1.8 s and rests on it: from then on
  // both runs are interior-point solutions, equal to within what the complementarity tolerance
  // allows (its default 1e-8 gave differences of 6e-8 m); it is tightened so that the comparison
  // measures the model, not the tolerance. The same for the Newton tolerance: two runs from different
  // round-off may take different iteration counts (with the extrapolated warm start, differences of
  // 1.8e-9 m over 200 steps at 1e-10).
  rot.solver.complementarityTolerance = plain.solver.complementarityTolerance = 1e-13;
  rot.solver.tolerance = plain.solver.tolerance = 1e-12;
  Simulation a(compile(rot)), b(compile(plain));
  const double diff = maxPositionDifference(a, b, 200);
  qInfo("arm: rotated vs plain inertial frames, max COM position difference over 200 steps %.3g m", diff);
  QVERIFY(diff <= 1e-9);
  const Mat3 R2 = rpy(0.5, -0.4, 1.0);
  const Mat3 dR1 = quat::rotation(a.state().bodies[0].q) - quat::rotation(b.state().bodies[0].q) * R1;
  const Mat3 dR2 = quat::rotation(a.state().bodies[1].q) - quat::rotation(b.state().bodies[1].q) * R2;
  qInfo("arm: body frames differ from the inertial rotations by %.3g, %.3g", dR1.norm(), dR2.norm());
  QVERIFY(dR1.norm() < 1e-8);
  QVERIFY(dR2.norm() < 1e-8);
  QVERIFY((a.state().bodies[1].x - rot.bodies[1].position).norm() > 0.05);  // the arm really moves
}

void TestUrdfImport::missingMeshesAreWarnings() {
  // Mesh files that cannot be found are warnings (the names are kept as written).
  Model m;
  Diagnostics d;
  const std::string text = readText(dataFile("arm_rotated_inertial.urdf"));
  QVERIFY2(importUrdfString(text, "arm.urdf", "/nonexistent-directory", m, d), d.format().c_str());
  QCOMPARE(countDiagnostics(d, Severity::Warning, "mesh file 'meshes/link.stl' not found"), 2);
  QCOMPARE(m.bodies[0].visuals[0].meshFile, std::string("meshes/link.stl"));
  for (const Diagnostic& x : d.items()) {
    QCOMPARE(x.file, std::string("arm.urdf"));
    QVERIFY(x.line > 0);
  }
}

void TestUrdfImport::collisionMeshesAreReadOrWarned() {
  // A <collision> mesh becomes a collision mesh with the file's vertices (times the scale), the file
  // resolved against the URDF's directory (or file://). One that cannot be used is kept as written,
  // without vertices, with a warning that it does not collide: an unresolved package:// URI, a missing file, too
  // many hull vertices. A non-convex mesh is used (its hull) with a warning.
  const std::string meshes = sourceDir() + "/../../models/meshes";
  const auto link = [](const std::string& name, const std::string& mesh) {
    return "  <link name=\"" + name + "\">\n"
           "    <inertial><mass value=\"1\"/><inertia ixx=\"0.01\" ixy=\"0\" ixz=\"0\" iyy=\"0.01\" iyz=\"0\" izz=\"0.01\"/></inertial>\n"
           "    <collision><origin xyz=\"0 0 0.1\"/><geometry>" + mesh + "</geometry></collision>\n"
           "  </link>\n";
  };
  const auto joint = [](const std::string& child) {
    return "  <joint name=\"j_" + child + "\" type=\"continuous\"><parent link=\"rock\"/><child link=\"" + child +
           "\"/><axis xyz=\"1 0 0\"/></joint>\n";
  };
  const std::string xml =
      "<robot name=\"meshes\">\n" + link("rock", "<mesh filename=\"rock.obj\" scale=\"2 2 2\"/>") +
      link("ico", "<mesh filename=\"file://" + meshes + "/icosahedron.stl\"/>") + joint("ico") +
      link("ros", "<mesh filename=\"package://robot/meshes/part.stl\"/>") + joint("ros") +
      link("gone", "<mesh filename=\"none.stl\"/>") + joint("gone") +
      link("ell", "<mesh filename=\"l-block.obj\"/>") + joint("ell") + "</robot>\n";
  Model m;
  Diagnostics d;
  QVERIFY2(importUrdfString(xml, "meshes.urdf", meshes, m, d), d.format().c_str());
  QCOMPARE(int(m.bodies.size()), 5);
  // rock: the file's 17 vertices, doubled.
  const ShapeDesc& rock = m.bodies[0].collisions[0];
  QCOMPARE(rock.kind, ShapeDesc::Kind::Mesh);
  QCOMPARE(int(rock.meshVertices.size()), 17);
  QCOMPARE(rock.meshVertices[0], Vec3(2 * -0.0951761, 2 * 0.006233, 2 * -0.0172421));
  QCOMPARE(int(m.bodies[1].collisions[0].meshVertices.size()), 12);  // file://, binary STL
  // Kept as written, without vertices, with a warning each (at the link's line).
  QCOMPARE(m.bodies[2].collisions[0].meshFile, std::string("package://robot/meshes/part.stl"));
  QVERIFY(m.bodies[2].collisions[0].meshVertices.empty());
  // (No package 'robot' exists anywhere: tst_urdf_packages tests the lookup and its message.)
  QCOMPARE(countDiagnostics(d, Severity::Warning,
                            "link 'ros', collision 1: mesh 'package://robot/meshes/part.stl': package 'robot' not found"), 1);
  QCOMPARE(countDiagnostics(d, Severity::Warning, "(the URI is kept as written; the mesh does not collide)"), 1);
  QCOMPARE(m.bodies[3].collisions[0].meshFile, std::string("none.stl"));
  QVERIFY(m.bodies[3].collisions[0].meshVertices.empty());
  QCOMPARE(countDiagnostics(d, Severity::Warning,
                            "link 'gone', collision 1: mesh file 'none.stl': cannot open '" +
                                std::filesystem::path(meshes + "/none.stl").lexically_normal().string() +
                                "': No such file or directory (kept as written; it does not collide)"), 1);
  QCOMPARE(countDiagnostics(d, Severity::Warning,
                            "link 'ell', collision 1: mesh 'l-block.obj' is not convex (4 of 20 triangles lie inside its "
                            "hull): its convex hull is used for collision"), 1);
  QCOMPARE(int(m.bodies[4].collisions[0].meshVertices.size()), 12);
  QCOMPARE(d.errorCount(), 0);
  for (const Diagnostic& x : d.items()) QVERIFY2(x.line > 0, x.format().c_str());
}

void TestUrdfImport::jointTypesMapToEngineJoints() {
  // prismatic → Prismatic (with limits), floating → Floating, planar → PlanarAxis (normal = axis);
  // links on fixed joints are lumped into their parent's body, with their mass (weld) or without
  // (frame, zero mass): slider's body carries slider and weld about their common centre of mass.
  const std::string urdf = R"(<robot name="kinds">
  <link name="world"/>
  <link name="slider"><inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>
  <link name="weld"><inertial><origin xyz="0.1 0 0"/><mass value="0.5"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial></link>
  <link name="frame"><inertial><mass value="0"/><inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/></inertial></link>
  <link name="free"><inertial><mass value="2"/><inertia ixx="0.2" ixy="0" ixz="0" iyy="0.3" iyz="0" izz="0.4"/></inertial></link>
  <link name="puck"><inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>
  <joint name="slide" type="prismatic"><parent link="world"/><child link="slider"/><axis xyz="0 0 2"/>
    <limit lower="-5" upper="1" effort="1" velocity="1"/></joint>
  <joint name="glue" type="fixed"><parent link="slider"/><child link="weld"/><origin xyz="0 0.2 0"/></joint>
  <joint name="mark" type="fixed"><parent link="weld"/><child link="frame"/></joint>
  <joint name="fly" type="floating"><parent link="world"/><child link="free"/><origin xyz="3 0 0"/></joint>
  <joint name="slide2d" type="planar"><parent link="world"/><child link="puck"/><origin xyz="-3 0 0"/><axis xyz="1 0 0"/>
    <dynamics damping="0.3"/></joint>
</robot>)";
  Model m;
  Diagnostics d;
  QVERIFY2(importUrdfString(urdf, "kinds.urdf", "", m, d), d.format().c_str());
  QCOMPARE(d.errorCount(), 0);
  QCOMPARE(int(m.bodies.size()), 3);
  QCOMPARE(int(m.joints.size()), 3);
  const JointDesc& slide = m.joints[m.jointIndex("slide")];
  QCOMPARE(slide.type, JointType::Prismatic);
  QVERIFY((slide.axis - Vec3::UnitZ()).norm() < 1e-15);  // normalised
  QCOMPARE(slide.lowerLimit, std::vector<double>{-5.0});
  QCOMPARE(slide.upperLimit, std::vector<double>{1.0});
  QVERIFY(m.jointIndex("glue") < 0 && m.bodyIndex("weld") < 0);
  const BodyDesc& sliderBody = m.bodies[size_t(m.bodyIndex("slider"))];
  QCOMPARE(sliderBody.mass, 1.5);
  const Vec3 weldCom(0.1, 0.2, 0), com = 0.5 * weldCom / 1.5;
  QVERIFY((sliderBody.position - com).norm() < 1e-15);
  const Vec3 d1 = -com, d2 = weldCom - com;
  const Mat3 I = 0.11 * Mat3::Identity() + 1.0 * (d1.squaredNorm() * Mat3::Identity() - d1 * d1.transpose()) +
                 0.5 * (d2.squaredNorm() * Mat3::Identity() - d2 * d2.transpose());
  QVERIFY((sliderBody.inertia - I).norm() < 1e-15);
  QCOMPARE(m.joints[m.jointIndex("fly")].type, JointType::Floating);
  const JointDesc& planar = m.joints[m.jointIndex("slide2d")];
  QCOMPARE(planar.type, JointType::PlanarAxis);
  QVERIFY((planar.axis - Vec3::UnitX()).norm() < 1e-15);
  QCOMPARE(planar.damping, std::vector<double>{0.3});
  // It simulates: the slider and its welded body fall along z, the free body falls freely, the
  // puck stays in its plane (x = −3) and only slides in it (y, z).
  Simulation sim(compile(m));
  for (int s = 0; s < 50; ++s) QVERIFY2(sim.step(), sim.metrics().message.c_str());
  const auto& b = sim.state().bodies;
  const int slider = m.bodyIndex("slider"), free = m.bodyIndex("free"), puck = m.bodyIndex("puck");
  QVERIFY(std::abs(b[slider].x.x() - com.x()) < 1e-9 && std::abs(b[slider].x.y() - com.y()) < 1e-9);
  QVERIFY(b[slider].x.z() < -1.0);
  QVERIFY(std::abs(b[free].x.z() - b[slider].x.z()) < 1e-6);  // both in free fall (no damping)
  QVERIFY(std::abs(b[puck].x.x() + 3.0) < 1e-9);
  QVERIFY(b[puck].x.z() < -0.5);
}

void TestUrdfImport::fourBarLoopStaysClosed() {
  // (c) The closed four-bar written with <loop_joint> compiles and simulates 2 s with constraint
  // violation below 1e-9 at every step.
  Model m;
  Diagnostics d;
  QVERIFY2(importUrdf(dataFile("fourbar_loop.urdf"), m, d), d.format().c_str());
  QVERIFY2(d.empty(), d.format().c_str());
  QCOMPARE(int(m.bodies.size()), 3);
  QCOMPARE(m.bodies[0].name, std::string("crank"));  // depth-first, in the order of the file
  QCOMPARE(m.bodies[1].name, std::string("coupler"));
  QCOMPARE(m.bodies[2].name, std::string("rocker"));
  QCOMPARE(int(m.joints.size()), 4);
  const JointDesc& loop = m.joints[3];
  QCOMPARE(loop.name, std::string("pin_c"));
  QCOMPARE(loop.type, JointType::Revolute);
  QCOMPARE(loop.parent, m.bodyIndex("coupler"));
  QCOMPARE(loop.child, m.bodyIndex("rocker"));
  QVERIFY((loop.parentAnchor - Vec3(0, 0.35, 0.1)).norm() < 1e-15);
  QVERIFY((loop.childAnchor - Vec3(0, 0, 0.3)).norm() < 1e-15);
  Simulation sim(compile(m));
  QVERIFY(sim.metrics().constraintViolation <= 1e-9);
  const Vec3 start = sim.state().bodies[1].x;
  double worst = 0, moved = 0;
  for (int s = 0; s < 200; ++s) {
    QVERIFY2(sim.step(), sim.metrics().message.c_str());
    worst = std::max(worst, sim.metrics().constraintViolation);
    moved = std::max(moved, (sim.state().bodies[1].x - start).norm());
  }
  qInfo("four-bar (URDF loop extension) 2 s: max constraint violation %.3g, coupler moved up to %.3f m", worst, moved);
  QVERIFY(worst < 1e-9);
  QVERIFY(moved > 0.05);
}

void TestUrdfImport::loopChildOriginDefaultsToZeroConfiguration() {
  // Without <child_origin>, the child side is computed from the zero configuration: same joint.
  std::string text = readText(dataFile("fourbar_loop.urdf"));
  const std::string line = "<child_origin xyz=\"0 0 0.6\"/>";
  const size_t at = text.find(line);
  QVERIFY(at != std::string::npos);
  const std::string without = text.substr(0, at) + text.substr(at + line.size());
  Model a, b;
  Diagnostics d;
  QVERIFY2(importUrdfString(text, "with.urdf", "", a, d), d.format().c_str());
  QVERIFY2(importUrdfString(without, "without.urdf", "", b, d), d.format().c_str());
  QVERIFY(d.empty());
  QVERIFY((a.joints[3].childAnchor - b.joints[3].childAnchor).norm() < 1e-14);
  QVERIFY((a.joints[3].offset - b.joints[3].offset).norm() < 1e-14);
  QVERIFY((a.joints[3].axis - b.joints[3].axis).norm() < 1e-14);
  // A wrong child origin is a warning (the loop is open at the zero configuration), not an error.
  std::string open = text;
  open.replace(at, line.size(), "<child_origin xyz=\"0 0 0.5\"/>");
  Model c;
  Diagnostics dc;
  QVERIFY2(importUrdfString(open, "open.urdf", "", c, dc), dc.format().c_str());
  QCOMPARE(countDiagnostics(dc, Severity::Warning, "not closed at the zero configuration"), 1);
}

void TestUrdfImport::malformedFilesGiveErrors_data() {
  QTest::addColumn<QString>("file");
  QTest::addColumn<int>("line");  // expected line of the error
  QTest::addColumn<QString>("fragment");
  QTest::newRow("not XML") << "bad/not_xml.urdf" << 1 << "not a well-formed XML file";
  QTest::newRow("unclosed element") << "bad/unclosed_element.urdf" << 5 << "not a well-formed XML file";
  QTest::newRow("no links") << "bad/no_links.urdf" << 4 << "No link elements found";
  QTest::newRow("joint without child link") << "bad/joint_missing_child.urdf" << 9 << "j";
  QTest::newRow("joint to unknown link") << "bad/unknown_link.urdf" << 9 << "ghost";
  QTest::newRow("zero mass moving link") << "bad/zero_mass.urdf" << 8 << "'arm' has zero mass but is moved by joint 'j'";
  QTest::newRow("massless moving link") << "bad/massless_moving.urdf" << 6 << "'arm' has no <inertial> but is moved by joint 'j'";
  QTest::newRow("link with two parent joints") << "bad/two_parents.urdf" << 17 << "'b' is the child of two joints";
  QTest::newRow("inertia not positive definite") << "bad/bad_inertia.urdf" << 9 << "inertia is not positive definite";
  QTest::newRow("loop: unknown type") << "bad/bad_loop.urdf" << 24 << "loop joint 'l1': unknown type 'hinge'";
  QTest::newRow("loop: unknown link") << "bad/bad_loop.urdf" << 25 << "child link 'ghost' does not exist";
  QTest::newRow("loop: bad origin") << "bad/bad_loop.urdf" << 27 << "<origin> xyz and rpy need three numbers";
  QTest::newRow("loop: same body") << "bad/bad_loop.urdf" << 29 << "belong to the same rigid body";
  QTest::newRow("loop: no name") << "bad/bad_loop.urdf" << 30 << "<loop_joint> needs a name";
}

void TestUrdfImport::malformedFilesGiveErrors() {
  // (d) Each malformed file gives an error naming the file and the line; the import returns false
  // and leaves the model untouched.
  QFETCH(QString, file);
  QFETCH(int, line);
  QFETCH(QString, fragment);
  const std::string path = dataFile(file.toStdString());
  Model m;
  m.name = "untouched";
  Diagnostics d;
  QVERIFY(!importUrdf(path, m, d));
  QCOMPARE(m.name, std::string("untouched"));
  QVERIFY(d.hasErrors());
  bool found = false;
  for (const Diagnostic& x : d.items())
    found |= x.severity == Severity::Error && x.file == path && x.line == line &&
             x.message.find(fragment.toStdString()) != std::string::npos;
  QVERIFY2(found, (d.format() + "expected line " + std::to_string(line) + ": " + fragment.toStdString()).c_str());
  // Every diagnostic names the file.
  for (const Diagnostic& x : d.items()) QCOMPARE(x.file, path);
}

void TestUrdfImport::missingFileIsAnError() {
  Model m;
  Diagnostics d;
  QVERIFY(!importUrdf(dataFile("no-such-file.urdf"), m, d));
  QCOMPARE(d.errorCount(), 1);
  QVERIFY(d.items()[0].message.find("cannot open") != std::string::npos);
  // An empty text is an error too.
  Diagnostics e;
  QVERIFY(!importUrdfString("", "empty.urdf", "", m, e));
  QVERIFY(e.hasErrors());
}

void TestUrdfImport::truncatedAndMutatedTextNeverCrashes() {
  // Every prefix of the test files, and the files with single bytes replaced, import without a crash;
  // a failed import always says why.
  int imports = 0, accepted = 0;
  for (const char* name : {"pendulum2.urdf", "fourbar_loop.urdf"}) {
    const std::string text = readText(dataFile(name));
    QVERIFY(!text.empty());
    for (size_t n = 0; n <= text.size(); n += 3) {
      Model m;
      Diagnostics d;
      const bool ok = importUrdfString(text.substr(0, n), name, "", m, d);
      QVERIFY(ok || d.hasErrors());
      ++imports;
      accepted += ok;
    }
    const char replacements[] = {'<', '>', '"', '/', 'x', '-', '0', '\0'};
    for (size_t i = 0; i < text.size(); i += 2) {
      std::string t = text;
      t[i] = replacements[i % sizeof(replacements)];
      Model m;
      Diagnostics d;
      const bool ok = importUrdfString(t, name, "", m, d);
      QVERIFY(ok || d.hasErrors());
      ++imports;
      accepted += ok;
    }
  }
  // Deeply nested elements are refused before urdfdom's recursive parser sees them.
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "<robot>";
  Model m;
  Diagnostics d;
  QVERIFY(!importUrdfString(deep, "deep.urdf", "", m, d));
  QVERIFY(d.hasErrors());
  qInfo("%d damaged inputs imported without a crash (%d accepted)", imports, accepted);
}

void TestUrdfImport::galleryModelsSimulateTenSeconds() {
  // The gallery's URDF examples import without errors or warnings and simulate 10 s (loops closed).
  for (const char* name : {"two-link-arm.urdf", "fourbar-loop.urdf"}) {
    Model m;
    Diagnostics d;
    QVERIFY2(importUrdf(galleryFile(name), m, d), d.format().c_str());
    QVERIFY2(d.errorCount() == 0 && countDiagnostics(d, Severity::Warning) == 0, d.format().c_str());
    Simulation sim(compile(m));
    const int steps = int(std::lround(10.0 / sim.settings().dt));
    double worst = 0;
    for (int s = 0; s < steps; ++s) {
      QVERIFY2(sim.step(), sim.metrics().message.c_str());
      worst = std::max(worst, sim.metrics().constraintViolation);
    }
    qInfo("%s: 10 s, %d steps, max constraint violation %.3g", name, steps, worst);
    QVERIFY(worst < 1e-9);
  }
}

void TestUrdfImport::fixedLinksAreLumpedAndInertiasRepaired() {
  // The conventions of public robot descriptions: a root 'base' with a placeholder inertia (1e-6)
  // fixed to the real trunk, a sensor frame of zero inertia fixed to it, a thigh whose principal
  // moments violate the triangle inequality a little (CAD data), a foot given as a point mass
  // (zero inertia), and a knee whose zero configuration lies outside its limits.
  const std::string urdf = R"(<robot name="conventions">
  <link name="base"><inertial><mass value="1e-6"/><inertia ixx="1e-6" ixy="0" ixz="0" iyy="1e-6" iyz="0" izz="1e-6"/></inertial></link>
  <link name="trunk"><inertial><origin xyz="0 0 0.05"/><mass value="5"/><inertia ixx="0.05" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.12"/></inertial></link>
  <link name="imu"><inertial><mass value="0.01"/><inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/></inertial></link>
  <link name="thigh"><inertial><mass value="1"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.0101" iyz="0" izz="0.0205"/></inertial></link>
  <link name="foot"><inertial><mass value="0.2"/><inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/></inertial></link>
  <link name="toe"><collision><origin xyz="0.05 0 0"/><geometry><box size="0.1 0.02 0.03"/></geometry></collision></link>
  <joint name="toe_joint" type="revolute"><parent link="foot"/><child link="toe"/><axis xyz="0 1 0"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <joint name="base_trunk" type="fixed"><parent link="base"/><child link="trunk"/></joint>
  <joint name="imu_joint" type="fixed"><parent link="trunk"/><child link="imu"/><origin xyz="0.1 0 0"/></joint>
  <joint name="hip" type="revolute"><parent link="trunk"/><child link="thigh"/><origin xyz="0 0 -0.1"/><axis xyz="0 1 0"/>
    <limit lower="-1" upper="1" effort="10" velocity="10"/></joint>
  <joint name="knee" type="revolute"><parent link="thigh"/><child link="foot"/><origin xyz="0 0 -0.3"/><axis xyz="0 1 0"/>
    <limit lower="0.5" upper="2" effort="10" velocity="10"/></joint>
</robot>)";
  Model m;
  Diagnostics d;
  QVERIFY2(importUrdfString(urdf, "conventions.urdf", "", m, d), d.format().c_str());
  // base, trunk and imu are one body (the root's free body) with their total mass.
  QCOMPARE(int(m.bodies.size()), 4);
  const BodyDesc& base = m.bodies[size_t(m.bodyIndex("base"))];
  QVERIFY(std::abs(base.mass - (5 + 0.01 + 1e-6)) < 1e-12);
  QVERIFY(m.bodyIndex("trunk") < 0 && m.bodyIndex("imu") < 0);
  // The thigh's moments 0.01, 0.0101, 0.0205 are set to their average (a warning with the numbers);
  // the foot's zero inertia is raised to a 1 cm sphere of its mass (0.4 · 0.2 · 1e-4 = 8e-6).
  QCOMPARE(countDiagnostics(d, Severity::Warning,
                            "link 'thigh': principal moments of inertia 0.01, 0.0101, 0.0205 violate the triangle inequality: "
                            "all set to their average 0.0135333 (MuJoCo's balanceinertia)"), 1);
  const BodyDesc& thigh = m.bodies[size_t(m.bodyIndex("thigh"))];
  QVERIFY((thigh.inertia - 0.0406 / 3 * Mat3::Identity()).norm() < 1e-15);
  QCOMPARE(countDiagnostics(d, Severity::Warning, "link 'foot': principal moments of inertia 0, 0, 0 are raised to at least 8e-06"), 1);
  QVERIFY((m.bodies[size_t(m.bodyIndex("foot"))].inertia - 8e-6 * Mat3::Identity()).norm() < 1e-18);
  // The toe has no <inertial>: its collision box at 1000 kg/m³ (0.06 kg, centred 5 cm out).
  const BodyDesc& toe = m.bodies[size_t(m.bodyIndex("toe"))];
  QVERIFY(std::abs(toe.mass - 0.06) < 1e-12);
  QVERIFY(std::abs(toe.inertia(0, 0) - 0.06 * (0.02 * 0.02 + 0.03 * 0.03) / 12) < 1e-15);
  QCOMPARE(countDiagnostics(d, Severity::Warning, "link 'toe' has no <inertial> but moves: its mass 0.06 kg"), 1);
  QCOMPARE(d.errorCount(), 0);
  // The knee would start at 0, below its lower limit 0.5: it starts at 0.5 (a compile note), and the
  // first step does not throw it back (no large velocity).
  const auto sys = compile(m);
  bool noted = false;
  for (const std::string& n : sys->notes) noted |= n == "joint 'knee' would start at 0, outside its limits [0.5, 2]: it starts at 0.5";
  QVERIFY(noted);
  Simulation sim(sys);
  const int knee = m.jointIndex("knee");
  QVERIFY(std::abs(sim.jointPosition(knee)(0) - 0.5) < 1e-12);
  QVERIFY2(sim.step(), sim.metrics().message.c_str());
  QVERIFY(std::abs(sim.jointVelocity(knee)(0)) < 1.0);
}

QTEST_APPLESS_MAIN(TestUrdfImport)
#include "tst_urdf_import.moc"
