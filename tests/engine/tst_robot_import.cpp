// SPDX-License-Identifier: GPL-3.0-or-later
// Imported robots as Gazebo and PyBullet users expect them (issue 32): a URDF is read without
// self-collision between the bodies of one mechanism (CollisionMode::NoSelf; <gazebo><self_collide>
// asks for it), a floating-base URDF robot gets a ground at its lowest collision shape
// (io/default_ground.h) unless the load options leave it out, and the self-collision switch of the
// load options overrides what a model says (not a contact-pairs-only model).
#include <QTest>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "io/default_ground.h"
#include "io/model_file.h"
#include "io/urdf_import.h"
#include "core/quaternion.h"
#include "simulation.h"
#include "system/compiled_system.h"

using namespace ms;

namespace {

std::string dataFile(const std::string& name) { return std::string(MECHSTUDIO_SOURCE_DIR) + "/tests/data/urdf/" + name; }

// Loads `path` with `options`; fails the test on an error.
Model load(const std::string& path, const ModelLoadOptions& options, Diagnostics& d) {
  Model m;
  if (!loadModel(path, {}, m, d, options)) qFatal("%s", d.format().c_str());
  return m;
}

// A temporary file holding `text` (removed with the test's directory).
std::string writeTemp(const std::string& name, const std::string& text) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "ms-robot-import";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

}  // namespace

class TestRobotImport : public QObject {
  Q_OBJECT
 private slots:
  void urdfHasNoSelfCollisionByDefault();
  void floatingBaseGetsAGroundAtItsLowestPoint();
  void fixedBaseAndModelsWithGroundsGetNone();
  void selfCollisionSwitchOverridesTheModel();
  void robotStandsOnTheDefaultGround();
  void mirroredMeshesCollide();
};

void TestRobotImport::urdfHasNoSelfCollisionByDefault() {
  // The biped's two legs are one mechanism with the trunk: no pair of its bodies may collide; a
  // free box beside it (another mechanism) may collide with every one of them.
  Diagnostics d;
  Model m = load(dataFile("biped_floating.urdf"), {}, d);
  QCOMPARE(m.collisions, CollisionMode::NoSelf);
  BodyDesc box;
  box.name = "box";
  box.mass = 1;
  box.inertia = Mat3::Identity() * 0.01;
  box.position = Vec3(2, 0, 0);
  ShapeDesc s;
  s.kind = ShapeDesc::Kind::Box;
  s.size = Vec3(0.2, 0.2, 0.2);
  box.collisions.push_back(s);
  m.bodies.push_back(box);
  const int nb = int(m.bodies.size());
  const auto noSelf = compile(m);
  m.collisions = CollisionMode::All;
  const auto all = compile(m);
  const int leftShin = m.bodyIndex("left_shin"), rightShin = m.bodyIndex("right_shin"), boxIndex = nb - 1;
  QVERIFY(leftShin >= 0 && rightShin >= 0);
  QVERIFY(!noSelf->mayCollide(leftShin, rightShin));
  QVERIFY(all->mayCollide(leftShin, rightShin));
  for (int b = 0; b + 1 < nb; ++b) {
    QVERIFY(noSelf->mayCollide(b, boxIndex));
    for (int c = b + 1; c + 1 < nb; ++c) QVERIFY(!noSelf->mayCollide(b, c));
  }
  // <gazebo><self_collide>true</self_collide></gazebo> (the robot's, not a link's) asks for it.
  std::string text;
  {
    std::ifstream in(dataFile("biped_floating.urdf"));
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  const std::string withGazebo = text.substr(0, text.rfind("</robot>")) + "  <gazebo><self_collide>true</self_collide></gazebo>\n</robot>\n";
  Diagnostics d2;
  QCOMPARE(load(writeTemp("biped_self.urdf", withGazebo), {}, d2).collisions, CollisionMode::All);
}

void TestRobotImport::floatingBaseGetsAGroundAtItsLowestPoint() {
  // The feet's lowest points are at z = -0.95 (file comment): the ground is there, with a note.
  Diagnostics d;
  const Model m = load(dataFile("biped_floating.urdf"), {}, d);
  QCOMPARE(int(m.grounds.size()), 1);
  QVERIFY(std::abs(m.grounds[0].point.z() + 0.95) < 1e-12);
  QCOMPARE(m.grounds[0].normal, Vec3(Vec3::UnitZ()));
  bool noted = false;
  for (const Diagnostic& x : d.items())
    noted = noted || (x.severity == Severity::Note && x.message.find("floating base: a ground is added at z = -0.95 m") != std::string::npos);
  QVERIFY2(noted, d.format().c_str());
  // Left out when asked.
  ModelLoadOptions without;
  without.groundUnderFloatingBase = false;
  Diagnostics d2;
  QCOMPARE(int(load(dataFile("biped_floating.urdf"), without, d2).grounds.size()), 0);
}

void TestRobotImport::fixedBaseAndModelsWithGroundsGetNone() {
  // pendulum2.urdf is fixed to the world: no ground. A model that has a ground keeps only it.
  Diagnostics d;
  QCOMPARE(int(load(dataFile("pendulum2.urdf"), {}, d).grounds.size()), 0);
  Model m;
  QVERIFY(importUrdf(dataFile("biped_floating.urdf"), m, d));
  QVERIFY(hasFloatingBase(m));
  GroundDesc g;
  g.point = Vec3(0, 0, -3);
  m.grounds.push_back(g);
  std::string note;
  QVERIFY(!addGroundUnderFloatingBase(m, note));
  QVERIFY(note.empty());
  QCOMPARE(int(m.grounds.size()), 1);
}

void TestRobotImport::selfCollisionSwitchOverridesTheModel() {
  // On and Off override a URDF's default and a .mech file's mode; a pairs-only model stays so.
  ModelLoadOptions on, off;
  on.selfCollision = ModelLoadOptions::SelfCollision::On;
  off.selfCollision = ModelLoadOptions::SelfCollision::Off;
  Diagnostics d;
  QCOMPARE(load(dataFile("biped_floating.urdf"), on, d).collisions, CollisionMode::All);
  const std::string all = writeTemp("two.mech",
                                    "(mechanism \"two\"\n"
                                    "  (body a (mass 1) (shape box 0.1 0.1 0.1) (position 0 0 1))\n"
                                    "  (body b (mass 1) (shape box 0.1 0.1 0.1) (position 0.5 0 1)))\n");
  QCOMPARE(load(all, {}, d).collisions, CollisionMode::All);
  QCOMPARE(load(all, off, d).collisions, CollisionMode::NoSelf);
  const std::string pairs = writeTemp("pairs.mech",
                                      "(mechanism \"pairs\"\n"
                                      "  (body a (mass 1) (shape box 0.1 0.1 0.1) (position 0 0 1))\n"
                                      "  (collisions pairs))\n");
  QCOMPARE(load(pairs, on, d).collisions, CollisionMode::Pairs);
  QCOMPARE(load(pairs, off, d).collisions, CollisionMode::Pairs);
}

void TestRobotImport::robotStandsOnTheDefaultGround() {
  // With its joints limp the biped folds and falls onto the ground added under it: 2 s without a
  // failed step, and no collision shape sinks below the ground by more than the contact tolerance.
  Diagnostics d;
  const Model m = load(dataFile("biped_floating.urdf"), {}, d);
  Simulation sim(compile(m));
  const double ground = m.grounds[0].point.z();
  double lowestFoot = INFINITY;
  for (int s = 0; s < 200; ++s) {
    QVERIFY2(sim.step(), sim.metrics().message.c_str());
    for (const char* foot : {"left_shin", "right_shin"}) {
      const BodyState& b = sim.state().bodies[size_t(m.bodyIndex(foot))];
      // The foot sphere's centre, 0.2 m below the shin's centre of mass along its axis.
      const Vec3 centre = b.x + quat::rotate(b.q, Vec3(0, 0, -0.2));
      lowestFoot = std::min(lowestFoot, centre.z() - 0.05);
    }
  }
  qInfo("lowest foot point over 2 s: %.3g m above the ground", lowestFoot - ground);
  QVERIFY(lowestFoot - ground > -1e-6);
  // The trunk has come down onto its legs but not through the ground.
  QVERIFY(sim.state().bodies[size_t(m.bodyIndex("trunk"))].x.z() > ground);
}

void TestRobotImport::mirroredMeshesCollide() {
  // scale="1 -1 1" mirrors a mesh (Talos's right leg uses its left leg's files): its collision
  // vertices are the unmirrored ones with y negated; a zero factor is still refused.
  const std::string mesh = std::string(MECHSTUDIO_SOURCE_DIR) + "/models/meshes/l-block.obj";
  const auto urdf = [&](const std::string& scale) {
    return "<robot name=\"m\"><link name=\"a\"><inertial><mass value=\"1\"/><inertia ixx=\"1\" iyy=\"1\" izz=\"1\" "
           "ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial><collision><geometry><mesh filename=\"" + mesh +
           "\" scale=\"" + scale + "\"/></geometry></collision></link></robot>\n";
  };
  Model plain, mirrored, flat;
  Diagnostics d1, d2, d3;
  QVERIFY(importUrdf(writeTemp("plain.urdf", urdf("1 1 1")), plain, d1));
  QVERIFY2(importUrdf(writeTemp("mirrored.urdf", urdf("1 -1 1")), mirrored, d2), d2.format().c_str());
  QCOMPARE(d2.format().find("skipped"), std::string::npos);
  const std::vector<Vec3>& p = plain.bodies[0].collisions.at(0).meshVertices;
  const std::vector<Vec3>& m = mirrored.bodies[0].collisions.at(0).meshVertices;
  QVERIFY(!p.empty());
  QCOMPARE(m.size(), p.size());
  for (size_t k = 0; k < p.size(); ++k) QCOMPARE(m[k], Vec3(p[k].x(), -p[k].y(), p[k].z()));
  QVERIFY(importUrdf(writeTemp("flat.urdf", urdf("1 0 1")), flat, d3));
  QVERIFY2(d3.format().find("mesh scale must be finite and not zero; the shape is skipped") != std::string::npos, d3.format().c_str());
  QVERIFY(flat.bodies[0].collisions.empty());
}

QTEST_APPLESS_MAIN(TestRobotImport)
#include "tst_robot_import.moc"
