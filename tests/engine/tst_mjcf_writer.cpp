// SPDX-License-Identifier: GPL-3.0-or-later
// Tests for engine/io/mjcf_writer: the MJCF text of the conversion (no MuJoCo needed; loading and
// stepping it are tested in tst_mujoco_copy): bodies nested along the joint tree at the reference
// coordinates, hinge `ref` = the initial angle, loops as connects, grounds and contacts, refusals.
#include <QTest>

#include <map>
#include <sstream>

#include "core/check.h"
#include "io/mjcf_writer.h"
#include "scenes/scenes.h"
#include "system/initial_conditions.h"

using namespace ms;

namespace {
int count(const std::string& s, const std::string& what) {
  int n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}
}  // namespace

class TstMjcfWriter : public QObject {
  Q_OBJECT

 private slots:
  // A pendulum started at 0.3 rad: one hinge whose ref is the start angle, the body nested in the
  // world at the pose that angle gives, with an explicit inertial.
  void pendulumHingeAtItsReference() {
    MjcfInfo info;
    const std::string xml = writeMjcf(buildScene("pendulum", {{"angle", "0.3"}}), {}, &info);
    QVERIFY(xml.find("<compiler angle=\"radian\" inertiafromgeom=\"false\"/>") != std::string::npos);
    QVERIFY(xml.find("<option timestep=\"0.01\" gravity=\"0 0 -9.81\"/>") != std::string::npos);
    QVERIFY(xml.find("type=\"hinge\" pos=\"0 0 1\" axis=\"1 0 0\" ref=\"0.3\"") != std::string::npos);
    QVERIFY(xml.find("<inertial pos=\"0 0 0\" mass=\"1\" fullinertia=") != std::string::npos);
    QCOMPARE(info.joint[0], std::string("joint1"));
    QCOMPARE(info.freeJoint[0], std::string());
    QCOMPARE(info.loopConstraints, 0);
  }

  // The three-link loop: two pins from the world place links 1 and 3, link 2 hangs from link 1, and
  // the joint between links 2 and 3 closes the loop as two connects on its axis (or one).
  void loopJointsAsConnects() {
    MjcfInfo info;
    const std::string xml = writeMjcf(buildScene("three-link-loop"), {}, &info);
    QCOMPARE(info.loopConstraints, 2);
    QCOMPARE(count(xml, "<connect "), 2);
    QVERIFY(xml.find("<connect name=\"joint23\" body1=\"link3\" body2=\"link2\" anchor=\"0 0 0.5\"/>") != std::string::npos);
    QVERIFY(xml.find("<connect name=\"joint23_axis\" body1=\"link3\" body2=\"link2\" anchor=\"0.1 0 0.5\"/>") !=
            std::string::npos);
    QCOMPARE(info.joint[2], std::string());  // the loop joint is no MuJoCo joint
    MjcfWriteOptions one;
    one.revoluteLoop = MjcfWriteOptions::RevoluteLoop::OneConnect;
    QCOMPARE(count(writeMjcf(buildScene("three-link-loop"), one), "<connect "), 1);
  }

  // A body without a joint is a free body at its initial pose; the ground a plane colliding with
  // bodies only; friction the body's.
  void freeBodyAndGround() {
    MjcfInfo info;
    const std::string xml = writeMjcf(buildScene("box-drop"), {}, &info);
    QCOMPARE(info.freeJoint[0], std::string("box_free"));
    QVERIFY(xml.find("<body name=\"box\" pos=\"0 0 0.65\" quat=\"1 0 0 0\">") != std::string::npos);
    QVERIFY(xml.find("type=\"plane\" size=\"0 0 1\" pos=\"0 0 0\" quat=\"1 0 0 0\" contype=\"1\" conaffinity=\"0\"") !=
            std::string::npos);
    QVERIFY(xml.find("type=\"box\" size=\"0.25 0.25 0.25\"") != std::string::npos);
    // Automatic collisions (the default): the body's masks (1) shifted by one bit; bit 0 for grounds.
    QVERIFY(xml.find("contype=\"2\" conaffinity=\"3\" friction=\"0.5 0.005 0.0001\"") != std::string::npos);
    // With contact-pairs only, bodies do not collide with each other.
    Model pairs = buildScene("box-drop");
    pairs.collisions = CollisionMode::Pairs;
    QVERIFY(writeMjcf(pairs).find("contype=\"0\" conaffinity=\"1\" friction=\"0.5 0.005 0.0001\"") != std::string::npos);
  }

  // Automatic collisions: the pairs the engine leaves out are MuJoCo <exclude>s (a contact-pair's
  // bodies, an (exclude …), bodies overlapping at the start); masks follow the bodies'.
  void automaticCollisionsAreExported() {
    Model m = buildScene("box-stack", {{"n", "3"}});  // contact-pairs box1–box2, box2–box3
    m.exclusions.push_back({0, 2});
    m.bodies[1].contype = 4;
    const std::string xml = writeMjcf(m);
    QCOMPARE(count(xml, "<exclude "), 3);
    QVERIFY(xml.find("<exclude body1=\"box1\" body2=\"box3\"/>") != std::string::npos);
    QVERIFY(xml.find("contype=\"8\" conaffinity=\"3\"") != std::string::npos);
  }

  // Ball joints keep their reference rotation; their springs and dampers are left to the caller.
  void ballJointsAndForcesLeftToTheCaller() {
    Model m = buildScene("chain", {{"n", "2"}, {"joint", "spherical"}});
    m.joints[1].damping = {0.1};
    MjcfInfo info;
    const std::string xml = writeMjcf(m, {}, &info);
    QCOMPARE(count(xml, "type=\"ball\""), 2);
    QVERIFY(!info.ballReference[0].isApprox(Vec4(1, 0, 0, 0)));  // the chain starts at 45°
    QCOMPARE(int(info.forcesInMjcf[0]), 1);
    QCOMPARE(int(info.forcesInMjcf[1]), 0);
  }

  // Names MuJoCo would reject or that break XML are replaced or escaped.
  void namesAreEscapedAndUnique() {
    Model m = buildScene("double-pendulum");
    m.bodies[0].name = "world";
    m.bodies[1].name = "a<b>&\"c\"";
    MjcfInfo info;
    const std::string xml = writeMjcf(m, {}, &info);
    QCOMPARE(info.body[0], std::string("body0"));
    QVERIFY(xml.find("name=\"a&lt;b&gt;&amp;&quot;c&quot;\"") != std::string::npos);
  }

  void unsupportedModelsAreRefused() {
    Model m = buildScene("pendulum");
    m.joints[0].type = JointType::PlanarAxis;
    m.joints[0].initialPosition.clear();
    QVERIFY_THROWS_EXCEPTION(UserError, checkMjcfConvertible(m));
    try {
      writeMjcf(m);
      QFAIL("accepted");
    } catch (const UserError& e) {
      QVERIFY(QString(e.what()).contains("planar-axis"));
    }
    QCOMPARE(mjcfBodyNesting(buildScene("chain", {{"n", "7"}})), 7);
    QCOMPARE(mjcfBodyNesting(buildScene("three-link-loop")), 2);
  }

  // MuJoCo 2.2's reader (tinyxml2) refuses elements nested deeper than 100: a 200-link chain is cut
  // into files of at most 90 nested bodies, each within 100 elements, and putting every file back
  // where its <include> stands gives the MJCF as written.
  void deepTreesAreCutIntoFiles() {
    const std::string shallow = writeMjcf(buildScene("chain", {{"n", "90"}}));
    const std::vector<MjcfFile> one = splitMjcfByNesting(shallow, "m.xml");
    QCOMPARE(one.size(), size_t(1));
    QCOMPARE(one[0].text, shallow);
    const Model deep = buildScene("chain", {{"n", "200"}});
    QCOMPARE(mjcfBodyNesting(deep), 200);
    const std::string xml = writeMjcf(deep);
    const std::vector<MjcfFile> files = splitMjcfByNesting(xml, "m.xml");
    QCOMPARE(files.size(), size_t(3));  // 90 + 90 + 20 bodies
    QCOMPARE(files[0].name, std::string("m.xml"));
    QCOMPARE(files[1].name, std::string("m-part1.xml"));
    QCOMPARE(files[2].name, std::string("m-part2.xml"));
    for (const MjcfFile& f : files) {
      // The deepest element of the file (every tag on a line of its own, as writeMjcf writes).
      int depth = 0, deepest = 0;
      std::istringstream in(f.text);
      for (std::string l; std::getline(in, l);) {
        const size_t open = l.find('<');
        if (open == std::string::npos || l.compare(open, 5, "<?xml") == 0 || l.compare(open, 4, "<!--") == 0) continue;
        if (l[open + 1] == '/') --depth;
        else if (l.find("/>") == std::string::npos && l.find("</") == std::string::npos) deepest = std::max(deepest, ++depth);
        else deepest = std::max(deepest, depth + 1);
      }
      qInfo("%s: %zu bytes, elements nested %d deep", f.name.c_str(), f.text.size(), deepest);
      QCOMPARE(depth, 0);
      QVERIFY(deepest <= 100);
    }
    // Each <include> replaced by its file's elements (without the file's <mujoco> root).
    std::map<std::string, std::string> body;
    for (const MjcfFile& f : files) {
      const size_t b = f.text.find('\n') + 1, e = f.text.rfind("</mujoco>");
      body[f.name] = f.text.substr(b, e - b);
    }
    std::string joined = files[0].text;
    for (size_t at; (at = joined.find("<include file=\"")) != std::string::npos;) {
      const size_t q = joined.find('"', at + 15), end = joined.find('\n', at);
      joined.replace(at, end + 1 - at, body.at(joined.substr(at + 15, q - at - 15)));
    }
    QCOMPARE(joined, xml);
  }
};

QTEST_APPLESS_MAIN(TstMjcfWriter)
#include "tst_mjcf_writer.moc"
