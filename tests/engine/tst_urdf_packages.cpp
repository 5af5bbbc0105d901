// SPDX-License-Identifier: GPL-3.0-or-later
// URDF package:// mesh URIs (engine/io/urdf_import): resolution through explicit package roots and
// ROS_PACKAGE_PATH, the search rule (R/NAME, R itself, packages found below R, bounded), the warning
// when a package is not found (its line, the paths tried, how to add a root), and that a resolved
// collision mesh collides while an unresolved one does not. Test data: tests/data/urdf/packages
// (mech_pkg directly under the root, tool_pkg three directories down in workspace/src).
#include <QTest>

#include <QTemporaryDir>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "io/model_file.h"
#include "io/urdf_import.h"
#include "system/compiled_system.h"

using namespace ms;
namespace fs = std::filesystem;

namespace {

// tests/data/urdf, normalised as the importer normalises roots.
std::string urdfData() {
  return fs::path(std::string(MECHSTUDIO_SOURCE_DIR) + "/tests/data/urdf").lexically_normal().string();
}
std::string packagesDir() { return urdfData() + "/packages"; }
std::string armFile() { return packagesDir() + "/mech_pkg/urdf/arm.urdf"; }
std::string linkStl() { return packagesDir() + "/mech_pkg/meshes/link.stl"; }
std::string toolStl() { return packagesDir() + "/workspace/src/tool_pkg/meshes/tool.stl"; }

// The whole text of a file.
std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The 1-based line of the n-th (0-based) occurrence of `needle` in `text` (0 when absent).
int lineOfOccurrence(const std::string& text, const std::string& needle, int n) {
  size_t at = text.find(needle);
  for (int i = 0; i < n && at != std::string::npos; ++i) at = text.find(needle, at + 1);
  return at == std::string::npos ? 0 : 1 + int(std::count(text.begin(), text.begin() + long(at), '\n'));
}

// Diagnostics of one severity whose message contains `fragment`.
std::vector<Diagnostic> matching(const Diagnostics& d, Severity s, const std::string& fragment = "") {
  std::vector<Diagnostic> out;
  for (const Diagnostic& x : d.items())
    if (x.severity == s && x.message.find(fragment) != std::string::npos) out.push_back(x);
  return out;
}

// Sets (or unsets, with nullopt) ROS_PACKAGE_PATH for its lifetime, then restores it.
class RosPackagePath {
 public:
  explicit RosPackagePath(const std::optional<std::string>& value)
      : wasSet_(qEnvironmentVariableIsSet("ROS_PACKAGE_PATH")), old_(qgetenv("ROS_PACKAGE_PATH")) {
    if (value) qputenv("ROS_PACKAGE_PATH", QByteArray::fromStdString(*value));
    else qunsetenv("ROS_PACKAGE_PATH");
  }
  ~RosPackagePath() {
    if (wasSet_) qputenv("ROS_PACKAGE_PATH", old_);
    else qunsetenv("ROS_PACKAGE_PATH");
  }

 private:
  bool wasSet_;
  QByteArray old_;
};

// Writes a file (and its directories).
void writeFile(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}
// A package directory: package.xml and, optionally, one mesh file.
void makePackage(const fs::path& dir, const std::string& meshRelative = "", const std::string& meshText = "") {
  writeFile(dir / "package.xml", "<package format=\"2\"><name>" + dir.filename().string() + "</name></package>\n");
  if (!meshRelative.empty()) writeFile(dir / meshRelative, meshText);
}
// A tetrahedron as ASCII STL (4 vertices), to tell a second copy of a package from the test data's.
const char* kTetrahedron =
    "solid t\n"
    " facet normal 0 0 0\n  outer loop\n   vertex 0 0 0\n   vertex 0.1 0 0\n   vertex 0 0.1 0\n  endloop\n endfacet\n"
    " facet normal 0 0 0\n  outer loop\n   vertex 0 0 0\n   vertex 0 0.1 0\n   vertex 0 0 0.1\n  endloop\n endfacet\n"
    " facet normal 0 0 0\n  outer loop\n   vertex 0 0 0\n   vertex 0 0 0.1\n   vertex 0.1 0 0\n  endloop\n endfacet\n"
    " facet normal 0 0 0\n  outer loop\n   vertex 0.1 0 0\n   vertex 0 0 0.1\n   vertex 0 0.1 0\n  endloop\n endfacet\n"
    "endsolid t\n";

// Import options with explicit roots only (ROS_PACKAGE_PATH ignored).
UrdfImportOptions explicitRoots(std::vector<std::string> roots) {
  UrdfImportOptions o;
  o.packagePaths = std::move(roots);
  o.useRosPackagePath = false;
  return o;
}

}  // namespace

class TestUrdfPackages : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void cleanupTestCase();
  void explicitRootResolvesVisualsAndCollisions();
  void rosPackagePathResolves();
  void explicitRootsComeBeforeRosPackagePath();
  void unresolvedPackageWarnsWithTriedPaths();
  void noRootsAtAll();
  void packageWithoutTheFileAndMalformedUris();
  void searchRule();
  void loadModelPassesPackagePaths();
  void colladaMeshesResolveAndCollide();

 private:
  std::optional<RosPackagePath> env_;  // ROS_PACKAGE_PATH unset while the tests run
};

void TestUrdfPackages::initTestCase() { env_.emplace(std::nullopt); }
void TestUrdfPackages::cleanupTestCase() { env_.reset(); }

void TestUrdfPackages::explicitRootResolvesVisualsAndCollisions() {
  // Root tests/data/urdf/packages: mech_pkg is R/NAME (rule 1), tool_pkg is found below R in
  // workspace/src (rule 3). Both meshes become absolute paths; the collision meshes get vertices.
  Model m;
  Diagnostics d;
  QVERIFY2(importUrdf(armFile(), m, d, explicitRoots({packagesDir()})), d.format().c_str());
  QVERIFY2(d.empty(), d.format().c_str());
  QCOMPARE(int(m.bodies.size()), 2);
  const BodyDesc& arm = m.bodies[0];
  const BodyDesc& tool = m.bodies[1];
  QCOMPARE(arm.visuals[0].meshFile, linkStl());
  QCOMPARE(arm.collisions[0].meshFile, linkStl());
  QCOMPARE(tool.visuals[0].meshFile, toolStl());
  QCOMPARE(tool.collisions[0].meshFile, toolStl());
  // The bar's 8 corners and the pyramid's 5 vertices, as written in the files.
  QCOMPARE(int(arm.collisions[0].meshVertices.size()), 8);
  QCOMPARE(arm.collisions[0].meshVertices[0], Vec3(-0.04, -0.04, -0.5));
  QCOMPARE(int(tool.collisions[0].meshVertices.size()), 5);
  // They collide: compile turns each into a convex hull shape.
  const auto sys = compile(m);
  QCOMPARE(int(sys->bodyShapes[0].size()), 1);
  QCOMPARE(sys->bodyShapes[0][0].kind, contact::ContactShape::Kind::Convex);
  QCOMPARE(int(sys->bodyShapes[1].size()), 1);
}

void TestUrdfPackages::rosPackagePathResolves() {
  // ROS_PACKAGE_PATH with a missing root first and tests/data/urdf second: both packages are found
  // below the second (mech_pkg two levels down, tool_pkg four), with the default options.
  RosPackagePath env("/nonexistent-mechstudio-root::" + urdfData());
  Model m;
  Diagnostics d;
  QVERIFY2(importUrdf(armFile(), m, d), d.format().c_str());
  QVERIFY2(d.empty(), d.format().c_str());
  QCOMPARE(m.bodies[0].visuals[0].meshFile, linkStl());
  QCOMPARE(m.bodies[1].collisions[0].meshFile, toolStl());
  QCOMPARE(int(m.bodies[0].collisions[0].meshVertices.size()), 8);
  // The roots: explicit ones first, then the variable's (empty entries left out).
  const std::vector<std::string> roots = urdfPackageRoots(explicitRoots({"/first"}));
  QCOMPARE(roots, std::vector<std::string>{"/first"});
  UrdfImportOptions withEnv;
  withEnv.packagePaths = {"/first/"};
  QCOMPARE(urdfPackageRoots(withEnv), (std::vector<std::string>{"/first", "/nonexistent-mechstudio-root", urdfData()}));
}

void TestUrdfPackages::explicitRootsComeBeforeRosPackagePath() {
  // A second mech_pkg (its link.stl a tetrahedron) in a temporary root: whichever root comes first
  // wins, and an explicit root comes before ROS_PACKAGE_PATH.
  QTemporaryDir tmp;
  QVERIFY(tmp.isValid());
  const std::string other = tmp.path().toStdString();
  makePackage(fs::path(other) / "mech_pkg", "meshes/link.stl", kTetrahedron);
  {
    RosPackagePath env(other);
    UrdfImportOptions o;
    o.packagePaths = {packagesDir()};
    Model m;
    Diagnostics d;
    QVERIFY2(importUrdf(armFile(), m, d, o), d.format().c_str());
    QCOMPARE(m.bodies[0].collisions[0].meshFile, linkStl());
    QCOMPARE(int(m.bodies[0].collisions[0].meshVertices.size()), 8);
  }
  {
    RosPackagePath env(packagesDir());
    UrdfImportOptions o;
    o.packagePaths = {other};
    Model m;
    Diagnostics d;
    QVERIFY2(importUrdf(armFile(), m, d, o), d.format().c_str());
    QCOMPARE(m.bodies[0].collisions[0].meshFile, fs::path(other + "/mech_pkg/meshes/link.stl").lexically_normal().string());
    QCOMPARE(int(m.bodies[0].collisions[0].meshVertices.size()), 4);
    QCOMPARE(m.bodies[1].collisions[0].meshFile, toolStl());  // only in the variable's root
  }
}

void TestUrdfPackages::unresolvedPackageWarnsWithTriedPaths() {
  // Two roots that do not hold the packages: one warning per mesh, at its <mesh> element, naming
  // the package, the URI, every path tried and the three ways to add a root. The URI is kept, and
  // the collision mesh has no vertices and does not collide.
  const std::string r1 = urdfData() + "/meshes", r2 = urdfData() + "/bad";
  Model m;
  Diagnostics d;
  QVERIFY2(importUrdf(armFile(), m, d, explicitRoots({r1, r2})), d.format().c_str());
  QCOMPARE(d.errorCount(), 0);
  QCOMPARE(int(matching(d, Severity::Warning).size()), 4);
  const std::vector<Diagnostic> w =
      matching(d, Severity::Warning, "link 'arm', collision 1: mesh 'package://mech_pkg/meshes/link.stl': package 'mech_pkg' not found");
  QCOMPARE(int(w.size()), 1);
  const std::string& msg = w[0].message;
  QVERIFY2(msg.find("tried " + r1 + "/mech_pkg/meshes/link.stl, " + r2 + "/mech_pkg/meshes/link.stl") != std::string::npos,
           msg.c_str());
  QVERIFY2(msg.find("searched " + r1 + ", " + r2 + " for a directory 'mech_pkg' holding a package.xml") != std::string::npos,
           msg.c_str());
  for (const char* how : {"--package-path DIR", "ROS_PACKAGE_PATH", "'Package paths'", "the mesh does not collide"})
    QVERIFY2(msg.find(how) != std::string::npos, how);
  // At the collision's <mesh> line (the second mention of the URI in the file).
  const std::string text = readText(armFile());
  QCOMPARE(w[0].file, armFile());
  QCOMPARE(w[0].line, lineOfOccurrence(text, "package://mech_pkg/meshes/link.stl", 1));
  QCOMPARE(matching(d, Severity::Warning, "link 'arm', visual 1: mesh 'package://mech_pkg")[0].line,
           lineOfOccurrence(text, "package://mech_pkg/meshes/link.stl", 0));
  QCOMPARE(int(matching(d, Severity::Warning, "the 3D view draws a small box").size()), 2);
  // Kept as written, without vertices: no collision shape.
  QCOMPARE(m.bodies[0].collisions[0].meshFile, std::string("package://mech_pkg/meshes/link.stl"));
  QVERIFY(m.bodies[0].collisions[0].meshVertices.empty());
  QCOMPARE(m.bodies[0].visuals[0].meshFile, std::string("package://mech_pkg/meshes/link.stl"));
  const auto sys = compile(m);
  QCOMPARE(int(sys->bodyShapes[0].size()), 0);
  QCOMPARE(int(sys->bodyShapes[1].size()), 0);
}

void TestUrdfPackages::noRootsAtAll() {
  // Neither roots nor ROS_PACKAGE_PATH: the warning says so (nothing tried).
  Model m;
  Diagnostics d;
  QVERIFY(importUrdf(armFile(), m, d));
  QCOMPARE(int(matching(d, Severity::Warning, "package 'mech_pkg' not found: no package paths are set (nothing was tried); "
                                                 "give the directory that holds the package 'mech_pkg' with --package-path DIR")
                   .size()),
           2);
  QVERIFY(m.bodies[0].collisions[0].meshVertices.empty());
}

void TestUrdfPackages::packageWithoutTheFileAndMalformedUris() {
  // The package exists but lacks the file: the warning names the package directory and the file.
  // package://NAME without a path is not a package URI.
  const auto robot = [](const std::string& mesh) {
    return "<robot name=\"r\"><link name=\"world\"/><link name=\"a\"><inertial><mass value=\"1\"/>"
           "<inertia ixx=\"0.01\" ixy=\"0\" ixz=\"0\" iyy=\"0.01\" iyz=\"0\" izz=\"0.01\"/></inertial>\n"
           "<collision><geometry>\n<mesh filename=\"" + mesh + "\"/></geometry></collision></link>\n"
           "<joint name=\"j\" type=\"continuous\"><parent link=\"world\"/><child link=\"a\"/></joint></robot>\n";
  };
  Model m;
  Diagnostics d;
  QVERIFY(importUrdfString(robot("package://mech_pkg/meshes/none.stl"), "r.urdf", "", m, d, explicitRoots({packagesDir()})));
  const std::vector<Diagnostic> w = matching(d, Severity::Warning);
  QCOMPARE(int(w.size()), 1);
  QVERIFY2(w[0].message.find("package 'mech_pkg' (" + packagesDir() + "/mech_pkg) has no file 'meshes/none.stl'; tried " +
                             packagesDir() + "/mech_pkg/meshes/none.stl") != std::string::npos,
           w[0].message.c_str());
  QCOMPARE(w[0].line, 3);  // the <mesh> element's line
  Diagnostics d2;
  QVERIFY(importUrdfString(robot("package://mech_pkg"), "r.urdf", "", m, d2, explicitRoots({packagesDir()})));
  QCOMPARE(int(matching(d2, Severity::Warning, "mesh 'package://mech_pkg' is not a package URI of the form "
                                               "package://NAME/PATH (the URI is kept as written; the mesh does not collide)")
                   .size()),
           1);
  QVERIFY(m.bodies[0].collisions[0].meshVertices.empty());
}

void TestUrdfPackages::searchRule() {
  // The rule of urdf_import.h on a temporary tree:
  //   root/a/b/c/deep4_pkg       four levels down: found
  //   root/a/b/c/d/deep5_pkg     five levels down: not found (kPackageSearchDepth = 4)
  //   root/.hidden/hid_pkg       in a hidden directory: not found
  //   root/outer_pkg/inner_pkg   inside another package: not found
  //   root/x/twice_pkg, root/y/twice_pkg: the first by name order
  QCOMPARE(kPackageSearchDepth, 4);
  QTemporaryDir tmp;
  QVERIFY(tmp.isValid());
  const fs::path root = fs::path(tmp.path().toStdString()).lexically_normal();
  makePackage(root / "a/b/c/deep4_pkg", "m.stl", kTetrahedron);
  makePackage(root / "a/b/c/d/deep5_pkg", "m.stl", kTetrahedron);
  makePackage(root / ".hidden/hid_pkg", "m.stl", kTetrahedron);
  makePackage(root / "outer_pkg");
  makePackage(root / "outer_pkg/inner_pkg", "m.stl", kTetrahedron);
  makePackage(root / "x/twice_pkg", "m.stl", kTetrahedron);
  makePackage(root / "y/twice_pkg", "m.stl", kTetrahedron);
  const std::vector<std::string> roots = {root.string()};
  const PackageLookup deep4 = resolvePackageUri("package://deep4_pkg/m.stl", roots);
  QVERIFY(deep4.wellFormed);
  QCOMPARE(deep4.package, std::string("deep4_pkg"));
  QCOMPARE(deep4.relative, std::string("m.stl"));
  QCOMPARE(deep4.path, (root / "a/b/c/deep4_pkg/m.stl").string());
  QCOMPARE(deep4.tried, (std::vector<std::string>{(root / "deep4_pkg/m.stl").string(), deep4.path}));
  for (const char* missing : {"package://deep5_pkg/m.stl", "package://hid_pkg/m.stl", "package://inner_pkg/m.stl"}) {
    const PackageLookup l = resolvePackageUri(missing, roots);
    QVERIFY2(l.path.empty(), missing);
    QCOMPARE(int(l.tried.size()), 1);  // only root/NAME/PATH
  }
  QCOMPARE(resolvePackageUri("package://twice_pkg/m.stl", roots).path, (root / "x/twice_pkg/m.stl").string());
  // A root that is the package itself (rule 2): after R/NAME/PATH, R/PATH.
  const std::string pkg = packagesDir() + "/mech_pkg";
  const PackageLookup self = resolvePackageUri("package://mech_pkg/meshes/link.stl", {pkg});
  QCOMPARE(self.path, linkStl());
  QCOMPARE(self.tried, (std::vector<std::string>{pkg + "/mech_pkg/meshes/link.stl", linkStl()}));
  // Roots in order: the first that has the file.
  QCOMPARE(resolvePackageUri("package://mech_pkg/meshes/link.stl", {root.string(), packagesDir()}).path, linkStl());
  // Leading slashes of the path stay inside the package; malformed URIs are reported as such.
  QCOMPARE(resolvePackageUri("package://mech_pkg//meshes/link.stl", {packagesDir()}).path, linkStl());
  QVERIFY(!resolvePackageUri("package:///meshes/link.stl", {packagesDir()}).wellFormed);
  QVERIFY(!resolvePackageUri("package://mech_pkg/", {packagesDir()}).wellFormed);
}

void TestUrdfPackages::loadModelPassesPackagePaths() {
  // The front ends' entry point: ModelLoadOptions::packagePaths reach the URDF importer; without
  // them (and without ROS_PACKAGE_PATH) the meshes are not found.
  Model m;
  Diagnostics d;
  ModelLoadOptions o;
  o.packagePaths = {packagesDir()};
  QVERIFY2(loadModel(armFile(), {}, m, d, o), d.format().c_str());
  QVERIFY2(d.empty(), d.format().c_str());
  QCOMPARE(m.bodies[1].visuals[0].meshFile, toolStl());
  Model plain;
  Diagnostics d2;
  QVERIFY(loadModel(armFile(), {}, plain, d2));
  QCOMPARE(int(matching(d2, Severity::Warning, "not found").size()), 4);
}

void TestUrdfPackages::colladaMeshesResolveAndCollide() {
  // A .dae mesh resolves like any other (the 3D view draws it through OpenSceneGraph's dae plugin);
  // as a collision mesh its vertices are read (mesh_collada.cc): the bar's 8 corners, no warning.
  Model m;
  Diagnostics d;
  QVERIFY2(importUrdf(packagesDir() + "/mech_pkg/urdf/arm_dae.urdf", m, d, explicitRoots({packagesDir()})),
           d.format().c_str());
  const std::string dae = packagesDir() + "/mech_pkg/meshes/link.dae";
  QCOMPARE(m.bodies[0].visuals[0].meshFile, dae);
  QCOMPARE(m.bodies[0].collisions[0].meshFile, dae);
  QCOMPARE(int(m.bodies[0].collisions[0].meshVertices.size()), 8);
  QVERIFY2(matching(d, Severity::Warning).empty(), d.format().c_str());
  QCOMPARE(int(m.bodies[1].collisions[0].meshVertices.size()), 5);
}

QTEST_APPLESS_MAIN(TestUrdfPackages)
#include "tst_urdf_packages.moc"
