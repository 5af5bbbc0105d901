// SPDX-License-Identifier: GPL-3.0-or-later
// Tests for engine/io/mjcf_import: the five MJCF files of tests/data/mjcf (written from MuJoCo's
// documented syntax) import without a diagnostic and simulate 10 s; the pendulum and double pendulum
// follow the gallery .mech files' trajectories; MJCF → .mech → MJCF → .mech gives the same model;
// the malformed corpus tests/data/mjcf/bad reports each problem at its line:column; frames, default
// classes, angle units and mass from geoms follow MuJoCo's rules; with MuJoCo built in, MuJoCo's
// own compiler is asked for the masses, centres of mass and inertias of the same files.
#include <QTest>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/check.h"
#include "core/quaternion.h"
#include "engine/diagnostic_corpus.h"
#include "engine/test_paths.h"
#include "io/mech_reader.h"
#include "io/mech_writer.h"
#include "io/mjcf_import.h"
#include "io/mjcf_writer.h"
#include "signals/signals.h"
#include "system/assemble.h"
#include "system/initial_conditions.h"
#include "simulation.h"

#if defined(MECHSTUDIO_TEST_MUJOCO)
#include <mujoco/mujoco.h>
#endif

using namespace ms;

namespace {

std::string mjcfPath(const std::string& file) { return test::sourceDir() + "/tests/data/mjcf/" + file; }
const std::vector<std::string> kFiles = {"pendulum.xml", "double-pendulum.xml", "four-bar.xml", "quadruped.xml",
                                         "box-on-plane.xml"};

bool load(const std::string& path, Model& m, std::string& diags) {
  Diagnostics d;
  const bool ok = loadModel(path, {}, m, d);
  diags = d.format();
  return ok;
}

// The largest difference between two model texts that must agree token by token: names and
// keywords exactly, numbers within `tol` (relative to max(1, |x|)); +inf when the structure differs.
double textDifference(const std::string& a, const std::string& b, std::string& where) {
  auto tokens = [](const std::string& s) {
    std::vector<std::string> t;
    std::string cur;
    for (char c : s) {
      if (std::isspace(static_cast<unsigned char>(c)) || c == '(' || c == ')') {
        if (!cur.empty()) t.push_back(cur), cur.clear();
        if (c == '(' || c == ')') t.push_back(std::string(1, c));
      } else {
        cur += c;
      }
    }
    if (!cur.empty()) t.push_back(cur);
    return t;
  };
  // Comments are the writer's and identical; drop them.
  auto strip = [](const std::string& s) {
    std::string out;
    std::istringstream in(s);
    for (std::string line; std::getline(in, line);)
      if (line.find(';') == std::string::npos) out += line + "\n";
      else out += line.substr(0, line.find(';')) + "\n";
    return out;
  };
  const auto ta = tokens(strip(a)), tb = tokens(strip(b));
  if (ta.size() != tb.size()) {
    where = "token counts " + std::to_string(ta.size()) + " and " + std::to_string(tb.size());
    return INFINITY;
  }
  double worst = 0;
  for (size_t k = 0; k < ta.size(); ++k) {
    if (ta[k] == tb[k]) continue;
    char* ea = nullptr;
    char* eb = nullptr;
    const double x = std::strtod(ta[k].c_str(), &ea), y = std::strtod(tb[k].c_str(), &eb);
    if (*ea || *eb) {
      where = "'" + ta[k] + "' and '" + tb[k] + "'";
      return INFINITY;
    }
    const double d = std::abs(x - y) / std::max(1.0, std::abs(x));
    if (d > worst) worst = d, where = ta[k] + " vs " + tb[k];
  }
  return worst;
}

// Largest position and quaternion difference of two simulations over `steps` steps.
double trajectoryDifference(const Model& a, const Model& b, int steps) {
  Simulation sa(compile(a)), sb(compile(b));
  double worst = 0;
  for (int i = 0; i < steps; ++i) {
    if (!sa.step() || !sb.step()) return INFINITY;
    for (size_t k = 0; k < sa.state().bodies.size(); ++k) {
      worst = std::max(worst, (sa.state().bodies[k].x - sb.state().bodies[k].x).cwiseAbs().maxCoeff());
      worst = std::max(worst, (sa.state().bodies[k].q - sb.state().bodies[k].q).cwiseAbs().maxCoeff());
    }
  }
  return worst;
}

std::string readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

class TstMjcfImport : public QObject {
  Q_OBJECT

 private slots:
  // Each file imports without any diagnostic, compiles, and simulates 10 s with every step converged;
  // what each does is checked (the pendulums keep their energy, the loop stays closed, the box rests
  // on the floor, the quadruped stands).
  void fiveFilesImportCleanlyAndSimulateTenSeconds() {
    for (const std::string& f : kFiles) {
      Model m;
      std::string diags;
      QVERIFY2(load(mjcfPath(f), m, diags), (f + ": " + diags).c_str());
      QVERIFY2(diags.empty(), (f + ": " + diags).c_str());
      Simulation sim(compile(m));
      const double e0 = sim.metrics().energy;
      double energyDrift = 0, violation = 0, penetration = 0;
      const int steps = int(std::lround(10.0 / m.solver.dt));
      for (int i = 0; i < steps; ++i) {
        QVERIFY2(sim.step(), (f + ": " + sim.metrics().message).c_str());
        energyDrift = std::max(energyDrift, std::abs(sim.metrics().energy - e0));
        violation = std::max(violation, sim.metrics().constraintViolation);
        penetration = std::max(penetration, sim.metrics().penetration);
      }
      qInfo("%s: %zu bodies, %d steps, |ΔE| ≤ %.3g J, violation ≤ %.3g, penetration ≤ %.3g m", f.c_str(), m.bodies.size(),
            steps, energyDrift, violation, penetration);
      QVERIFY2(violation < 1e-8, f.c_str());
      // The variational integrator's energy error stays bounded: within 2 % of m g l (the gallery
      // files' trajectories are the same, checked below).
      if (f == "pendulum.xml" || f == "double-pendulum.xml") QVERIFY2(energyDrift < 0.02 * 9.81 * double(m.bodies.size()), f.c_str());
      if (f == "four-bar.xml") {
        QCOMPARE(m.joints.size(), size_t(4));
        QCOMPARE(m.joints[3].type, JointType::Spherical);  // the connect
      }
      if (f == "box-on-plane.xml") {
        QVERIFY(penetration < 1e-8);
        QVERIFY(std::abs(sim.state().bodies[0].x.z() - 0.1) < 1e-6);  // resting on its face
      }
      if (f == "quadruped.xml") {
        QCOMPARE(m.controllers.size(), size_t(8));
        QVERIFY(sim.state().bodies[0].x.z() > 0.55);  // standing
        QVERIFY(penetration < 1e-6);
      }
    }
  }

  // The pendulum and double pendulum are the gallery's: the same trajectory over 1000 steps.
  void pendulumsFollowTheGalleryFiles() {
    for (const auto& [xml, mech] : std::vector<std::pair<std::string, std::string>>{
             {"pendulum.xml", "pendulum.mech"}, {"double-pendulum.xml", "double-pendulum.mech"}}) {
      Model a, b;
      std::string diags;
      QVERIFY2(load(mjcfPath(xml), a, diags), diags.c_str());
      QVERIFY2(load(test::modelPath(mech), b, diags), diags.c_str());
      const double d = trajectoryDifference(a, b, 1000);
      qInfo("%s vs %s: largest pose difference over 1000 steps %.3g", xml.c_str(), mech.c_str(), d);
      QVERIFY2(d <= 1e-12, xml.c_str());
    }
  }

  // MJCF → .mech → MJCF (export) → .mech: the same model (names and structure exactly, numbers to
  // round-off), and the exported MJCF reads back without a diagnostic.
  void mjcfMechMjcfMechRoundTrip() {
    for (const std::string& f : kFiles) {
      Model m1;
      std::string diags;
      QVERIFY2(load(mjcfPath(f), m1, diags), diags.c_str());
      const std::string t1 = writeMech(m1);
      MechParseResult r1;
      Diagnostics d1;
      QVERIFY2(readMechText(t1, f + ".mech", {}, r1, d1), d1.format().c_str());
      MjcfWriteOptions o;
      o.complete = true;
      const std::string xml = writeMjcf(r1.model, o);
      Model m2;
      Diagnostics d2;
      QVERIFY2(importMjcfString(xml, f + ".exported.xml", test::sourceDir() + "/tests/data/mjcf", m2, d2), d2.format().c_str());
      QVERIFY2(d2.empty(), d2.format().c_str());
      const std::string t2 = writeMech(m2);
      std::string where;
      const double d = textDifference(t1, t2, where);
      qInfo("%s: MJCF → .mech → MJCF → .mech, largest relative difference %.3g (%s)", f.c_str(), d, where.c_str());
      QVERIFY2(d <= 1e-12, (f + ": " + where + "\n" + t1 + "\n----\n" + t2).c_str());
      QVERIFY(trajectoryDifference(m1, m2, 100) < 1e-9);
    }
  }

  // Each file of tests/data/mjcf/bad starts with <!-- expect: LINE:COLUMN: SEVERITY: MESSAGE -->; the
  // importer reports exactly that (among possibly others) and fails for errors.
  void malformedFilesReportTheirLineAndColumn() {
    std::vector<std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(mjcfPath("bad"))) files.push_back(entry.path().string());
    std::sort(files.begin(), files.end());
    const test::CorpusResult r = test::checkDiagnosticCorpus(files, "<!-- expect: ", " -->", [](const std::string& path, Diagnostics& d) {
      Model m;
      return loadModel(path, {}, m, d);
    });
    const int checked = r.checked;
    const std::string& failures = r.failures;
    qInfo("%d malformed MJCF files, each with its message at its line:column", checked);
    QVERIFY(checked >= 15);
    QVERIFY2(failures.empty(), failures.c_str());
  }

  // Frames: euler in degrees (default) and radians, xyaxes, zaxis and axisangle give the same body
  // orientation; a childclass reaches nested bodies and class overrides it; a hinge's ref is in degrees.
  void orientationsClassesAndUnits() {
    const std::string xml = R"(<mujoco>
      <default>
        <default class="a"><geom type="box" size="0.1 0.2 0.3"/><joint axis="0 1 0"/></default>
        <default class="b"><geom type="sphere" size="0.05"/></default>
      </default>
      <worldbody>
        <body name="e" euler="0 0 90" childclass="a"><freejoint/><geom/>
          <body name="n" pos="1 0 0"><joint ref="30"/><geom/><geom class="b" pos="0 0 1"/></body>
        </body>
        <body name="x" xyaxes="0 1 0 -1 0 0"><freejoint/><geom type="sphere" size="0.1"/></body>
        <body name="z" zaxis="1 0 0"><freejoint/><geom type="sphere" size="0.1"/></body>
        <body name="aa" axisangle="0 0 1 90"><freejoint/><geom type="sphere" size="0.1"/></body>
      </worldbody></mujoco>)";
    Model m;
    Diagnostics d;
    QVERIFY2(importMjcfString(xml, "t.xml", "", m, d), d.format().c_str());
    QVERIFY2(d.empty(), d.format().c_str());
    const Vec4 qz90 = quat::fromAxisAngle(Vec3::UnitZ(), M_PI / 2);
    auto same = [](const Vec4& a, const Vec4& b) { return std::min((a - b).norm(), (a + b).norm()) < 1e-12; };
    QVERIFY(same(m.bodies[size_t(m.bodyIndex("e"))].orientation, qz90));
    QVERIFY(same(m.bodies[size_t(m.bodyIndex("x"))].orientation, qz90));
    QVERIFY(same(m.bodies[size_t(m.bodyIndex("aa"))].orientation, qz90));
    QVERIFY(same(m.bodies[size_t(m.bodyIndex("z"))].orientation, quat::fromAxisAngle(Vec3::UnitY(), M_PI / 2)));
    // Nested body: the class's box and axis, the sphere from class b; ref 30 degrees.
    const BodyDesc& n = m.bodies[size_t(m.bodyIndex("n"))];
    QCOMPARE(n.collisions.size(), size_t(2));
    QCOMPARE(n.collisions[0].kind, ShapeDesc::Kind::Box);
    QVERIFY((n.collisions[0].size - Vec3(0.2, 0.4, 0.6)).norm() < 1e-15);
    QCOMPARE(n.collisions[1].kind, ShapeDesc::Kind::Sphere);
    const JointDesc& j = m.joints[size_t(m.jointIndex("n_joint"))];
    QVERIFY((j.axis - Vec3::UnitY()).norm() < 1e-15);
    QCOMPARE(j.initialPosition.size(), size_t(1));
    QVERIFY(std::abs(j.initialPosition[0] - M_PI / 6) < 1e-15);
    // The nested body's world position: 1 m along the parent's x axis, which is the world's y.
    QVERIFY(std::abs(n.position.x()) < 1e-9 && std::abs(n.position.y() - 1) < 1e-9);
  }

  // Mass from geoms: each geom's mass (density × volume unless given) at its centroid, summed with
  // the parallel-axis rule; a jointless child is fused into its parent; an <inertial> wins.
  void massFromGeomsAndFusedBodies() {
    const std::string xml = R"(<mujoco><compiler angle="radian"/>
      <worldbody>
        <body name="dumbbell"><freejoint/>
          <geom type="sphere" size="0.1" pos="-0.5 0 0" density="1000"/>
          <geom type="sphere" size="0.1" pos="0.5 0 0" mass="2"/>
          <body name="handle"><geom type="box" size="0.5 0.01 0.01" mass="0"/></body>
          <body name="weight" pos="0 0 0.3"><geom type="sphere" size="0.05" mass="1"/></body>
        </body>
        <body name="given" pos="0 3 0"><freejoint/>
          <inertial pos="0.1 0 0" mass="3" diaginertia="0.1 0.2 0.25"/>
          <geom type="sphere" size="1"/>
        </body>
      </worldbody></mujoco>)";
    Model m;
    Diagnostics d;
    QVERIFY2(importMjcfString(xml, "t.xml", "", m, d), d.format().c_str());
    QCOMPARE(m.bodies.size(), size_t(2));  // handle and weight are parts of dumbbell
    const BodyDesc& b = m.bodies[0];
    const double m1 = 1000 * 4.0 / 3.0 * M_PI * 1e-3, m2 = 2, m3 = 1;
    QVERIFY(std::abs(b.mass - (m1 + m2 + m3)) < 1e-12);
    const Vec3 com = (m1 * Vec3(-0.5, 0, 0) + m2 * Vec3(0.5, 0, 0) + m3 * Vec3(0, 0, 0.3)) / (m1 + m2 + m3);
    QVERIFY((b.position - com).norm() < 1e-12);
    // Inertia about the centre of mass: spheres 2/5 m r² plus m d².
    Mat3 I = Mat3::Zero();
    for (const auto& [mass, r, p] : std::vector<std::tuple<double, double, Vec3>>{
             {m1, 0.1, Vec3(-0.5, 0, 0)}, {m2, 0.1, Vec3(0.5, 0, 0)}, {m3, 0.05, Vec3(0, 0, 0.3)}}) {
      const Vec3 dd = p - com;
      I += 0.4 * mass * r * r * Mat3::Identity() + mass * (dd.squaredNorm() * Mat3::Identity() - dd * dd.transpose());
    }
    QVERIFY((b.inertia - I).norm() < 1e-12);
    QCOMPARE(b.collisions.size(), size_t(4));
    const BodyDesc& g = m.bodies[1];
    QCOMPARE(g.mass, 3.0);
    QVERIFY((g.inertia.diagonal() - Vec3(0.1, 0.2, 0.25)).norm() < 1e-15);
    QVERIFY((g.position - Vec3(0.1, 3, 0)).norm() < 1e-15);
  }

  // What the engine cannot use is reported once per kind with a count, at the first place.
  // contype/conaffinity per geom, as MuJoCo: a box resting on the floor carries a sphere below it
  // whose masks (2, 2) do not match the floor's (1, 1), so the sphere passes through the floor and the
  // box lands on it (its centre at its half height 0.05 m); with the masks or-ed per body (before) it
  // rested on the sphere (0.25 m). Two such spheres on two bodies still touch each other (2 & 2).
  void perGeomCollisionFilters() {
    const std::string xml = R"(<mujoco>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1"/>
    <body name="a" pos="0 0 0.3"><freejoint/>
      <geom type="box" size="0.1 0.1 0.05"/>
      <geom type="sphere" size="0.05" pos="0 0 -0.2" contype="2" conaffinity="2"/>
    </body>
    <body name="b" pos="0 0 -0.6"><joint type="slide" axis="0 0 1"/>
      <geom type="sphere" size="0.05" contype="2" conaffinity="2" mass="1"/>
    </body>
  </worldbody>
</mujoco>)";
    Model m;
    Diagnostics d;
    QVERIFY2(importMjcfString(xml, "masks.xml", "", m, d), d.format().c_str());
    QVERIFY2(d.format().find("contype") == std::string::npos, d.format().c_str());
    m.gravity = Vec3(0, 0, -9.81);
    Simulation sim(compile(m));
    for (int i = 0; i < 1000; ++i) QVERIFY2(sim.step(), sim.metrics().message.c_str());
    const int a = m.bodyIndex("a"), b = m.bodyIndex("b");
    // World positions of body a's shapes (box centre, sphere centre) and of b's centre.
    const auto shapeAt = [&](const Simulation& s, int shape) {
      const BodyState& st = s.state().bodies[size_t(a)];
      return Vec3(st.x + quat::rotate(st.q, m.bodies[size_t(a)].collisions[size_t(shape)].position));
    };
    const double za = shapeAt(sim, 0).z(), zb = sim.state().bodies[size_t(b)].x.z();
    qInfo("after 2 s: the box's centre at z = %.6f m (0.05 m on the floor), the lower sphere at z = %.6f m (falling freely below the floor)", za, zb);
    QVERIFY(std::abs(za - 0.05) < 1e-3);
    QVERIFY(zb < -5);
    // The spheres of a and b (both masks 2) touch: a welded where it starts, gravity up, b's sphere
    // rises onto a's and rests against it.
    Model up = m;
    up.gravity = Vec3(0, 0, 9.81);
    JointDesc weld;
    weld.name = "hold";
    weld.type = JointType::Fixed;
    weld.child = a;
    weld.parentAnchor = up.bodies[size_t(a)].position;
    up.joints.push_back(weld);
    Simulation sim2(compile(up));
    for (int i = 0; i < 500; ++i) QVERIFY2(sim2.step(), sim2.metrics().message.c_str());
    const double gap = shapeAt(sim2, 1).z() - sim2.state().bodies[size_t(b)].x.z();
    qInfo("gravity up: the spheres' centres %.6f m apart (0.1 m in contact)", gap);
    QVERIFY(std::abs(gap - 0.1) < 1e-3);
  }

  void unsupportedFeaturesAreWarnedOnceWithACount() {
    const std::string xml = R"(<mujoco>
      <worldbody>
        <body name="a"><freejoint/><geom type="sphere" size="0.1" solref="0.02 1"/><site name="s1"/></body>
        <body name="b" pos="1 0 0"><freejoint/><geom type="sphere" size="0.1" solref="0.02 1"/><site name="s2"/></body>
      </worldbody>
      <tendon><spatial><site site="s1"/><site site="s2"/></spatial></tendon>
      </mujoco>)";
    Model m;
    Diagnostics d;
    QVERIFY2(importMjcfString(xml, "t.xml", "", m, d), d.format().c_str());
    const std::string s = d.format();
    QVERIFY2(s.find("t.xml:3:67: warning: attribute 'solref' of <geom> is not supported; ignored (2 times; the first is here)") !=
                 std::string::npos, s.c_str());
    // Sites are read (the equalities may name them), without a warning.
    QVERIFY2(s.find("<site>") == std::string::npos, s.c_str());
    QVERIFY2(s.find("t.xml:6:15: warning: element <spatial> is not supported (spatial tendons run through sites") != std::string::npos,
             s.c_str());
  }

  // MuJoCo 3's site-based equalities. <connect site1 site2>: the gallery four-bar's connect written
  // with two sites that meet at the start is the body-based one (anchors and trajectory); with the
  // rocker's site 2 cm further out, the loop joint's point on the rocker moves by those 2 cm and
  // the sites are pulled together at the start (MuJoCo: they "snap together").
  void siteConnectClosesTheLoopAtTheSites() {
    std::ifstream in(mjcfPath("four-bar.xml"));
    std::stringstream buf;
    buf << in.rdbuf();
    const std::string bodyBased = buf.str();
    const auto withSites = [&](const std::string& rockerSite) {
      std::string x = bodyBased;
      const auto put = [&](const std::string& after, const std::string& what) {
        const size_t at = x.find(after);
        MS_ASSERT(at != std::string::npos, "the four-bar text changed");
        x.insert(at + after.size(), what);
      };
      put("rgba=\"0.3 0.6 0.3 1\"/>", "<site name=\"tip\" pos=\"0 1.3 0.12\"/>");
      put("rgba=\"0.2 0.4 0.8 1\"/>", "<site name=\"rocker_tip\" pos=\"" + rockerSite + "\"/>");
      const std::string connect = "<connect name=\"close\" body1=\"coupler\" body2=\"rocker\" anchor=\"0 1.3 0.12\"/>";
      const size_t at = x.find(connect);
      MS_ASSERT(at != std::string::npos, "the four-bar text changed");
      x.replace(at, connect.size(), "<connect name=\"close\" site1=\"tip\" site2=\"rocker_tip\"/>");
      return x;
    };
    Model a, b, c;
    Diagnostics da, db, dc;
    QVERIFY2(importMjcfString(bodyBased, "four-bar.xml", mjcfPath(""), a, da), da.format().c_str());
    QVERIFY2(importMjcfString(withSites("0 0.3 0.52"), "sites.xml", mjcfPath(""), b, db), db.format().c_str());
    QVERIFY2(db.format().empty(), db.format().c_str());
    QCOMPARE(b.joints.size(), a.joints.size());
    const JointDesc &ja = a.joints.back(), &jb = b.joints.back();
    QCOMPARE(jb.type, JointType::Spherical);
    QVERIFY((ja.childAnchor - jb.childAnchor).norm() < 1e-14);
    QVERIFY((ja.parentAnchor - jb.parentAnchor).norm() < 1e-14);
    const double d = trajectoryDifference(a, b, 300);
    qInfo("four-bar closed at two sites that meet vs by body1/body2/anchor: largest pose difference over 300 steps %.3g", d);
    QVERIFY(d < 1e-12);
    // The rocker's site 2 cm further along the rocker (its tip at 0.3 0.52, the site at 0.32 0.52).
    QVERIFY2(importMjcfString(withSites("0 0.32 0.52"), "sites.xml", mjcfPath(""), c, dc), dc.format().c_str());
    const JointDesc& jc = c.joints.back();
    QVERIFY((jc.childAnchor - ja.childAnchor).norm() < 1e-14);
    qInfo("rocker site 2 cm out: the loop joint's point on the rocker moved %.6f m", (jc.parentAnchor - ja.parentAnchor).norm());
    QVERIFY(std::abs((jc.parentAnchor - ja.parentAnchor).norm() - 0.02) < 1e-12);
    Simulation sim(compile(c));
    double violation = 0;
    for (int i = 0; i < 300; ++i) {
      QVERIFY2(sim.step(), sim.metrics().message.c_str());
      violation = std::max(violation, sim.metrics().constraintViolation);
    }
    QVERIFY(violation < 1e-9);
  }

  // <weld site1 site2>: the sites' frames are held together. A free sphere whose site sits at its
  // centre, welded to a world site 1 m away and turned −90° about x (MuJoCo's equality_site.xml):
  // at the start its site is on the world's, in the same orientation, and it stays there.
  void siteWeldAlignsTheFrames() {
    const std::string xml = R"(<mujoco>
      <worldbody>
        <site name="c1" pos="2 0 0" euler="-90 0 0"/>
        <body name="ball" pos="2 1 0"><freejoint/><geom type="sphere" size="0.1"/><site name="c2"/></body>
      </worldbody>
      <equality><weld name="w" site1="c1" site2="c2"/></equality>
      </mujoco>)";
    Model m;
    Diagnostics d;
    QVERIFY2(importMjcfString(xml, "weld.xml", "", m, d), d.format().c_str());
    QVERIFY2(d.format().empty(), d.format().c_str());
    QCOMPARE(m.joints.back().type, JointType::Fixed);
    QCOMPARE(m.joints.back().child, 0);   // the ball (site1 is on the world: the sides swap)
    QCOMPARE(m.joints.back().parent, -1);
    Simulation sim(compile(m));
    const Vec4 want = quat::fromRotationVector(Vec3(-kPi / 2, 0, 0));
    for (int i = 0; i <= 100; ++i) {
      if (i > 0) QVERIFY2(sim.step(), sim.metrics().message.c_str());
      const BodyState& ball = sim.state().bodies[0];
      const double dx = (ball.x - Vec3(2, 0, 0)).norm();
      const double dq = std::min((ball.q - want).norm(), (ball.q + want).norm());
      if (i == 0 || i == 100) qInfo("step %d: the ball's site %.3g m and %.3g from the world's frame", i, dx, dq);
      QVERIFY(dx < 1e-9);
      QVERIFY(dq < 1e-9);
    }
  }

  // A loop written in a singular configuration: a two-link arm standing straight whose tip site must
  // meet a world site 4.5 cm nearer its base (a leg of a public three-arm platform model). To first
  // order the straight arm's tip cannot come nearer, so the projection stalled there ("the initial
  // pose cannot be made to satisfy the joints"); it now starts again from the poses turned slightly
  // off, and the elbow bends.
  void loopWrittenStraightIsClosed() {
    const std::string xml = R"(<mujoco>
      <worldbody>
        <site name="anchor" pos="0 0 -0.01"/>
        <body name="lower" pos="0 0 -0.44">
          <joint name="shoulder" type="hinge" axis="1 0 0"/>
          <geom type="capsule" fromto="0 0 0 0 0 0.2" size="0.025" density="7800"/>
          <body name="upper" pos="0 0 0.25">
            <joint name="elbow" type="hinge" axis="1 0 0" pos="0 0 -0.025"/>
            <geom type="capsule" fromto="0 0 0 0 0 0.2" size="0.025" density="7800"/>
            <site name="tip" pos="0 0 0.225"/>
          </body>
        </body>
      </worldbody>
      <equality><connect site1="tip" site2="anchor"/></equality>
      </mujoco>)";
    Model m;
    Diagnostics d;
    QVERIFY2(importMjcfString(xml, "arm.xml", "", m, d), d.format().c_str());
    Simulation sim(compile(m));
    const double v0 = constraintViolation(sim.system(), sim.state());
    const double elbow = std::abs(jointCoordinates(sim.system(), sim.state())[1].position.at(0));
    qInfo("straight arm closed onto the anchor: violation %.3g, elbow bent %.4f rad", v0, elbow);
    QVERIFY(v0 < 1e-10);
    QVERIFY(elbow > 0.3);  // cos(θ/2)·0.475 = 0.43 → θ ≈ 0.88 rad between the links
    for (int i = 0; i < 200; ++i) QVERIFY2(sim.step(), sim.metrics().message.c_str());
    QVERIFY(sim.metrics().constraintViolation < 1e-9);
  }

  // Site-based equalities given wrongly: each named at its attribute.
  void siteEqualityErrors() {
    const auto errorsOf = [](const std::string& equality) {
      const std::string xml = R"(<mujoco>
        <worldbody>
          <site name="anchor"/>
          <body name="a" pos="0 0 -1"><freejoint/><geom type="sphere" size="0.1"/><site name="grip"/></body>
        </worldbody>
        <equality>)" + equality + R"(</equality>
        </mujoco>)";
      Model m;
      Diagnostics d;
      importMjcfString(xml, "e.xml", "", m, d);
      return d.format();
    };
    std::string s = errorsOf(R"(<connect site1="grip" site2="anchor" body1="a"/>)");
    QVERIFY2(s.find("error: give either site1 and site2, or body1 and body2") != std::string::npos, s.c_str());
    s = errorsOf(R"(<connect site1="grp" site2="anchor"/>)");
    QVERIFY2(s.find("error: unknown site 'grp'") != std::string::npos && s.find("grip") != std::string::npos, s.c_str());
    s = errorsOf(R"(<weld site1="grip"/>)");
    QVERIFY2(s.find("error: <weld> needs site2") != std::string::npos, s.c_str());
    s = errorsOf(R"(<connect site1="anchor" site2="anchor"/>)");
    QVERIFY2(s.find("error: site1 and site2 are both on the world") != std::string::npos, s.c_str());
    // And the body-based connect between the same two still reads.
    s = errorsOf(R"(<connect body1="a" body2="world" anchor="0 0 1"/>)");
    QVERIFY2(s.find("error") == std::string::npos, s.c_str());
  }

  // A keyframe of a model with a loop (a rod on a ball joint whose end <connect>s to a hinged crank,
  // as Cassie's achilles rod), 3 mm off the closure as MuJoCo's soft equalities leave its keys: read
  // as a state projected onto the loop (the keyframe fits the joints).
  void keyframesOfClosedLoopsAreProjected() {
    const std::string xml = R"(<mujoco><compiler angle="radian"/>
      <default><geom contype="0" conaffinity="0"/></default>
      <worldbody>
        <body name="hip" pos="0 0 1"><joint name="pitch" type="hinge" axis="0 1 0"/>
          <geom type="capsule" fromto="0 0 0 0 0 -0.4" size="0.03"/>
          <body name="rod" pos="0.05 0 0"><joint name="rodball" type="ball"/>
            <geom type="capsule" fromto="0 0 0 0 0 -0.5" size="0.01"/></body>
          <body name="shin" pos="0 0 -0.4"><joint name="knee" type="hinge" axis="0 1 0"/>
            <geom type="capsule" fromto="0 0 0 0 0 -0.4" size="0.03"/>
            <body name="heel" pos="0.05 0 -0.1"><joint name="heeljoint" type="hinge" axis="0 1 0" stiffness="100"/>
              <geom type="sphere" size="0.02"/></body></body></body>
      </worldbody>
      <equality><connect body1="rod" body2="heel" anchor="0 0 -0.5"/></equality>
      <keyframe><key name="bent" qpos="0.3 0.9988 0 0.0499 0 -0.2 0.003"/></keyframe>
      </mujoco>)";
    Model m;
    Diagnostics d;
    std::vector<InitialConditionsKeyframe> keys;
    QVERIFY2(importMjcfString(xml, "loop.xml", "", m, d, &keys), d.format().c_str());
    QVERIFY(m.keyframes.empty());  // the importer describes; the compile step makes the states
    QCOMPARE(keys.size(), size_t(1));
    QCOMPARE(keys[0].line, 14);  // the <key> element
    m.keyframes.push_back(keyframeFromInitialConditions(m, keys[0]));
    Simulation sim(compile(m));
    sim.loadKeyframe("bent");
    QVERIFY(sim.metrics().constraintViolation <= 1e-10);
    for (int i = 0; i < 100; ++i) QVERIFY2(sim.step(), sim.metrics().message.c_str());
  }

  // A body without a joint in the worldbody is fixed to the world; geoms of the worldbody other than
  // planes form a static body; a connect pair on two anchors is a hinge; weld → fixed loop joint.
  void staticGeometryAndEqualities() {
    const std::string xml = R"(<mujoco><compiler angle="radian"/>
      <worldbody>
        <geom name="floor" type="plane" size="1 1 0.1" friction="0.8"/>
        <geom name="wall" type="box" size="0.1 1 1" pos="2 0 1"/>
        <body name="table" pos="0 0 0.5"><geom type="box" size="0.5 0.5 0.02"/></body>
        <body name="door" pos="0 2 1"><joint name="hinge1" type="hinge" axis="0 0 1" pos="0 -0.5 0"/>
          <geom type="box" size="0.02 0.5 1" pos="0 0 0"/></body>
        <body name="leaf" pos="0 3 1"><freejoint/><geom type="box" size="0.02 0.5 1"/></body>
        <body name="glued" pos="0 5 1"><freejoint/><geom type="sphere" size="0.1"/></body>
      </worldbody>
      <equality>
        <connect body1="leaf" body2="door" anchor="0 -0.5 -0.5"/>
        <connect body1="leaf" body2="door" anchor="0 -0.5 0.5"/>
        <weld body1="glued"/>
      </equality></mujoco>)";
    Model m;
    Diagnostics d;
    QVERIFY2(importMjcfString(xml, "t.xml", "", m, d), d.format().c_str());
    QCOMPARE(m.grounds.size(), size_t(1));
    QCOMPARE(m.grounds[0].friction, 0.8);
    QVERIFY(m.bodyIndex("world_static") >= 0 && m.bodyIndex("table") >= 0);
    int fixedToWorld = 0, revoluteLoops = 0, welds = 0;
    for (const JointDesc& j : m.joints) {
      fixedToWorld += j.type == JointType::Fixed && j.parent < 0 && j.name.find("_weld") != std::string::npos;
      revoluteLoops += j.type == JointType::Revolute && j.child == m.bodyIndex("leaf");
      welds += j.type == JointType::Fixed && j.child == m.bodyIndex("glued");
    }
    QCOMPARE(fixedToWorld, 2);  // world_static and table
    QCOMPARE(revoluteLoops, 1);
    QCOMPARE(welds, 1);
    // The loop closes at the start and the leaf swings with the door, about the hinge line.
    Simulation sim(compile(m));
    for (int i = 0; i < 200; ++i) QVERIFY2(sim.step(), sim.metrics().message.c_str());
    QVERIFY(sim.metrics().constraintViolation < 1e-9);
    const Vec3 glued = sim.state().bodies[size_t(m.bodyIndex("glued"))].x;
    QVERIFY((glued - Vec3(0, 5, 1)).norm() < 1e-9);
  }

  // Several joints of one body without forces of their own become the engine joint with the same
  // motion where each one's coordinate is linear in it: the hopper's planar root (slide x, slide z,
  // hinge y) → planar-axis, its joints read as signals rootx.position, rootz.position, rooty.angle;
  // three slides → fixed-orientation; three hinges through one point (Euler angles) stay a chain.
  // Under gravity alone the root falls freely (z = z₀ − g t²/2), keeps its x and does not turn. A
  // joint that an actuator names (or with a ref, spring, damper or limit) keeps its own coordinate:
  // the body's joints become a chain of links.
  void severalJointsOfOneBody() {
    const std::string xml = R"(<mujoco><option timestep="0.01"/>
      <worldbody>
        <body name="torso" pos="0 0 2">
          <joint name="rootx" type="slide" axis="1 0 0"/><joint name="rootz" type="slide" axis="0 0 1"/>
          <joint name="rooty" type="hinge" axis="0 1 0"/>
          <geom type="capsule" fromto="0 0 -0.2 0 0 0.2" size="0.05"/>
          <body name="ball" pos="0 0 -0.5">
            <joint type="hinge" axis="1 0 0" pos="0 0 0.3"/><joint type="hinge" axis="0 1 0" pos="0 0 0.3"/>
            <joint type="hinge" axis="0 0 1" pos="0 0 0.3"/>
            <geom type="sphere" size="0.1"/>
          </body>
        </body>
        <body name="slider" pos="3 0 1">
          <joint type="slide" axis="1 0 0"/><joint type="slide" axis="0 1 0"/><joint type="slide" axis="0 0 1"/>
          <geom type="box" size="0.1 0.1 0.1"/>
        </body>
      </worldbody>
      <actuator><motor joint="rootx"/></actuator></mujoco>)";
    Model m;
    Diagnostics d;
    // The motor on rootx: the torso's three joints are a chain (two links), each its own joint.
    QVERIFY2(importMjcfString(xml, "t.xml", "", m, d), d.format().c_str());
    QCOMPARE(m.joints[size_t(m.jointIndex("rootx"))].type, JointType::Prismatic);
    QCOMPARE(m.joints[size_t(m.jointIndex("rootz"))].type, JointType::Prismatic);
    QCOMPARE(m.joints[size_t(m.jointIndex("rooty"))].type, JointType::Revolute);
    QVERIFY(m.bodyIndex("torso/rootx") >= 0 && m.bodyIndex("torso/rootz") >= 0);
    QCOMPARE(m.actuators.size(), size_t(1));
    QCOMPARE(m.actuators[0].joint, m.jointIndex("rootx"));
    m = Model();
    std::string noMotor = xml;
    noMotor.replace(noMotor.find("<actuator>"), std::string("<actuator><motor joint=\"rootx\"/></actuator>").size(), "");
    d.clear();
    QVERIFY2(importMjcfString(noMotor, "t.xml", "", m, d), d.format().c_str());
    QCOMPARE(m.joints.size(), size_t(5));
    QCOMPARE(m.joints[size_t(m.jointIndex("torso_joint"))].type, JointType::PlanarAxis);
    QVERIFY(m.bodyIndex("ball/joint1") >= 0 && m.bodyIndex("ball/joint2") >= 0);
    QCOMPARE(m.joints[size_t(m.jointIndex("slider_joint"))].type, JointType::FixedOrientation);
    QCOMPARE(m.aliases.size(), size_t(3));  // rootx, rootz, rooty (the others have no names)
    Simulation sim(compile(m));
    const SignalCatalogue catalogue(sim.system());
    const std::vector<int> root = {catalogue.find("rootx.position"), catalogue.find("rootz.position"), catalogue.find("rooty.angle")};
    QVERIFY(root[0] >= 0 && root[1] >= 0 && root[2] >= 0);
    const int steps = 50;
    for (int i = 0; i < steps; ++i) QVERIFY2(sim.step(), sim.metrics().message.c_str());
    // Both fall the same (to round-off), as far as g t²/2 says to the integrator's O(Δt) (g t Δt),
    // without moving sideways or turning.
    const double t = steps * 0.01;
    double drop[2];
    for (int n = 0; n < 2; ++n) {
      const int k = m.bodyIndex(n == 0 ? "torso" : "slider");
      const Vec3 x0 = m.bodies[size_t(k)].position, x = sim.state().bodies[size_t(k)].x;
      drop[n] = x0.z() - x.z();
      qInfo("%s falls %.12f m in %.2f s (g t^2/2 = %.12f)", m.bodies[size_t(k)].name.c_str(), drop[n], t, 0.5 * 9.81 * t * t);
      QVERIFY(std::abs(drop[n] - 0.5 * 9.81 * t * t) < 9.81 * t * 0.01);
      QVERIFY(std::abs(x.x() - x0.x()) < 1e-12 && std::abs(x.y() - x0.y()) < 1e-12);
      QVERIFY((sim.state().bodies[size_t(k)].q - Vec4(1, 0, 0, 0)).norm() < 1e-12);
    }
    // The root's own coordinates: rootz is the drop, rootx and rooty stay 0.
    std::vector<double> v;
    catalogue.evaluate(sim, root, AngleUnit::Radians, v);
    qInfo("rootx %.3g m, rootz %.12f m, rooty %.3g rad", v[0], v[1], v[2]);
    QVERIFY(std::abs(v[1] + drop[0]) < 1e-12 && std::abs(v[0]) < 1e-12 && std::abs(v[2]) < 1e-12);
    QVERIFY(std::abs(drop[0] - drop[1]) < 1e-12);
    // Two hinges (a universal joint): a chain parent → u_x → link → u_y → u.
    const std::string universal = R"(<mujoco><worldbody><body name="u">
      <joint name="u_x" type="hinge" axis="1 0 0"/><joint name="u_y" type="hinge" axis="0 1 0"/><geom type="sphere" size="0.1"/>
      </body></worldbody></mujoco>)";
    d.clear();
    m = Model();
    QVERIFY2(importMjcfString(universal, "u.xml", "", m, d), d.format().c_str());
    QCOMPARE(m.bodies.size(), size_t(2));
    const int link = m.bodyIndex("u/u_x");
    QVERIFY(link >= 0);
    QCOMPARE(m.joints[size_t(m.jointIndex("u_x"))].child, link);
    QCOMPARE(m.joints[size_t(m.jointIndex("u_y"))].parent, link);
    QCOMPARE(m.joints[size_t(m.jointIndex("u_y"))].child, m.bodyIndex("u"));
  }

#if defined(MECHSTUDIO_TEST_MUJOCO)
  // MuJoCo's compiler reads the same files: every body's mass, centre of mass (world) and inertia
  // (world frame) agree with the import's.
  void massPropertiesAgreeWithMujoco() {
    for (const std::string& f : kFiles) {
      char err[1000] = "";
      mjModel* mm = mj_loadXML(mjcfPath(f).c_str(), nullptr, err, sizeof err);
      QVERIFY2(mm, (f + ": MuJoCo: " + err).c_str());
      mjData* md = mj_makeData(mm);
      mj_forward(mm, md);
      Model m;
      std::string diags;
      QVERIFY2(load(mjcfPath(f), m, diags), diags.c_str());
      double worst = 0;
      for (const BodyDesc& b : m.bodies) {
        const int id = mj_name2id(mm, mjOBJ_BODY, b.name.c_str());
        QVERIFY2(id > 0, (f + ": " + b.name).c_str());
        worst = std::max(worst, std::abs(mm->body_mass[id] - b.mass) / b.mass);
        const Vec3 com(md->xipos[3 * id], md->xipos[3 * id + 1], md->xipos[3 * id + 2]);
        worst = std::max(worst, (com - b.position).norm());
        Mat3 R;
        for (int r = 0; r < 3; ++r)
          for (int c = 0; c < 3; ++c) R(r, c) = md->ximat[9 * id + 3 * r + c];
        const Mat3 Imj = R * Vec3(mm->body_inertia[3 * id], mm->body_inertia[3 * id + 1], mm->body_inertia[3 * id + 2]).asDiagonal() *
                         R.transpose();
        const Mat3 Rb = quat::rotation(b.orientation);
        const Mat3 Ims = Rb * b.inertia * Rb.transpose();
        worst = std::max(worst, (Imj - Ims).norm() / Ims.norm());
      }
      qInfo("%s: %zu bodies, largest difference from MuJoCo %d (mass, COM, inertia) %.3g", f.c_str(), m.bodies.size(),
            mj_version(), worst);
      QVERIFY2(worst < 1e-9, f.c_str());
      mj_deleteData(md);
      mj_deleteModel(mm);
    }
  }

  // Every gallery .mech that MJCF can express, exported (convert -o OUT.xml), loads in MuJoCo with the
  // same bodies and masses, and reads back without an error.
  void exportedGalleryModelsLoadInMujoco() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    int exported = 0, refused = 0;
    for (const auto& entry : std::filesystem::directory_iterator(test::sourceDir() + "/models")) {
      if (entry.path().extension() != ".mech") continue;
      Model m;
      std::string diags;
      QVERIFY2(load(entry.path().string(), m, diags), diags.c_str());
      MjcfWriteOptions o;
      o.complete = true;
      o.meshBaseDir = entry.path().parent_path().string();
      o.outputDir = dir.path().toStdString();
      std::string xml;
      try {
        xml = writeMjcf(m, o);
      } catch (const UserError&) {
        ++refused;  // joint types MuJoCo has no counterpart for (checkMjcfConvertible)
        continue;
      }
      const std::string out = dir.path().toStdString() + "/" + entry.path().stem().string() + ".xml";
      std::ofstream(out) << xml;
      char err[1000] = "";
      mjModel* mm = mj_loadXML(out.c_str(), nullptr, err, sizeof err);
      QVERIFY2(mm, (entry.path().string() + ": MuJoCo: " + err).c_str());
      double total = 0;
      for (const BodyDesc& b : m.bodies) total += b.mass;
      QVERIFY2(std::abs(mj_getTotalmass(mm) - total) <= 1e-12 * total, entry.path().string().c_str());
      mj_deleteModel(mm);
      Model back;
      Diagnostics d;
      QVERIFY2(importMjcf(out, back, d), (entry.path().string() + "\n" + d.format()).c_str());
      ++exported;
    }
    qInfo("%d gallery models exported and loaded by MuJoCo %d; %d refused (joint types MJCF lacks)", exported, mj_version(),
          refused);
    QVERIFY(exported >= 20);
  }
#endif
};

QTEST_APPLESS_MAIN(TstMjcfImport)
#include "tst_mjcf_import.moc"
