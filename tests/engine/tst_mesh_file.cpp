// SPDX-License-Identifier: GPL-3.0-or-later
// Mesh files (engine/io/mesh_file): the gallery's meshes (models/meshes) read exactly, the OBJ
// forms (a/b/c corners, negative indices, polygons, ignored records, CRLF), binary STL (also one
// whose header starts with "solid") and ASCII STL, and every malformed input with its message and
// its line:column or byte offset; files that cannot be read.
#include <QTest>

#include <QTemporaryDir>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>

#include "io/mesh_file.h"
#include "test_paths.h"

using namespace ms;

namespace {

const double kPhi = (1 + std::sqrt(5.0)) / 2;

// The float32 nearest to x, as a double. Through a volatile: GCC 12.2 at -O3 compiled
// Vec3(double(float(q.x())), …) and q.cast<float>().cast<double>() to q itself here (measured; -O2 and
// -O3 -fno-tree-slp-vectorize round correctly).
double toFloat(double x) {
  volatile float f = float(x);
  return f;
}

// A binary STL of `triangles` (three corners each), with `header` (padded to 80 bytes).
std::string binaryStl(const std::vector<std::array<Vec3, 3>>& triangles, const std::string& header) {
  std::string out = header;
  out.resize(80, ' ');
  const auto put32 = [&](uint32_t u) {
    for (int k = 0; k < 4; ++k) out.push_back(char((u >> (8 * k)) & 0xff));
  };
  const auto putFloat = [&](float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    put32(u);
  };
  put32(uint32_t(triangles.size()));
  for (const auto& t : triangles) {
    for (int k = 0; k < 3; ++k) putFloat(0);  // normal (ignored)
    for (const Vec3& p : t)
      for (int d = 0; d < 3; ++d) putFloat(float(p(d)));
    out.push_back(0);
    out.push_back(0);
  }
  return out;
}

// The four faces of the tetrahedron (0,0,0), (1,0,0), (0,1,0), (0,0,1).
std::vector<std::array<Vec3, 3>> tetrahedron() {
  const Vec3 o(0, 0, 0), x(1, 0, 0), y(0, 1, 0), z(0, 0, 1);
  return {{o, y, x}, {o, x, z}, {o, z, y}, {x, y, z}};
}

// Reads bytes as `format`; "" on success, else the formatted error.
std::string errorOf(const std::string& bytes, MeshFormat format) {
  MeshData m;
  MeshFileError e;
  if (readMeshBytes(bytes, format, m, e)) return "";
  if (!m.vertices.empty() || !m.triangles.empty()) return "(output not cleared)";
  return e.format();
}

}  // namespace

class TestMeshFile : public QObject {
  Q_OBJECT
 private slots:
  void galleryMeshesReadExactly();
  void objFormsAreRead();
  void objErrorsSayWhereAndWhy_data();
  void objErrorsSayWhereAndWhy();
  void binaryStlIsDetectedBySize();
  void asciiStlIsRead();
  void stlErrorsSayWhereAndWhy_data();
  void stlErrorsSayWhereAndWhy();
  void unreadableFiles();
  void colladaSceneIsRead();
  void colladaErrorsSayWhereAndWhy();
};

void TestMeshFile::galleryMeshesReadExactly() {
  // icosahedron.obj: 12 vertices, exactly (0, ±1, ±φ)/√(1+φ²) and permutations, 20 triangles.
  MeshData obj;
  MeshFileError e;
  QVERIFY2(readMeshFile(test::modelPath("meshes/icosahedron.obj"), obj, e), e.format().c_str());
  QCOMPARE(int(obj.vertices.size()), 12);
  QCOMPARE(int(obj.triangles.size()), 20);
  const double s = 1 / std::sqrt(1 + kPhi * kPhi), a = s, b = kPhi * s;
  QCOMPARE(obj.vertices[0], Vec3(-a, b, 0));
  QCOMPARE(obj.vertices[4], Vec3(0, -a, b));
  QCOMPARE(obj.vertices[11], Vec3(-b, 0, a));
  for (const Vec3& v : obj.vertices) {
    QVERIFY(std::abs(v.norm() - 1) < 1e-15);
    int zeros = 0;
    for (int d = 0; d < 3; ++d) {
      zeros += v(d) == 0;
      QVERIFY(v(d) == 0 || std::abs(v(d)) == a || std::abs(v(d)) == b);
    }
    QCOMPARE(zeros, 1);
  }
  QCOMPARE(obj.triangles[0], (std::array<int, 3>{0, 11, 5}));
  // icosahedron.stl (binary): the same 20 triangles, corners merged to 12 vertices, as float32.
  MeshData stl;
  QVERIFY2(readMeshFile(test::modelPath("meshes/icosahedron.stl"), stl, e), e.format().c_str());
  QCOMPARE(int(stl.vertices.size()), 12);
  QCOMPARE(int(stl.triangles.size()), 20);
  for (size_t t = 0; t < 20; ++t)
    for (int c = 0; c < 3; ++c) {
      const Vec3& p = stl.vertices[stl.triangles[t][c]];
      const Vec3& q = obj.vertices[obj.triangles[t][c]];
      const Vec3 r(toFloat(q.x()), toFloat(q.y()), toFloat(q.z()));
      QCOMPARE(p, r);
    }
  // rock.obj (14 to 20 vertices, about 0.2 m across) and l-block.obj (12 vertices, 8 + 6 faces).
  MeshData rock, block;
  QVERIFY2(readMeshFile(test::modelPath("meshes/rock.obj"), rock, e), e.format().c_str());
  QVERIFY(rock.vertices.size() >= 14 && rock.vertices.size() <= 20);
  Vec3 lo = rock.vertices[0], hi = lo;
  for (const Vec3& v : rock.vertices) lo = lo.cwiseMin(v), hi = hi.cwiseMax(v);
  QVERIFY((hi - lo).maxCoeff() > 0.15 && (hi - lo).maxCoeff() < 0.25);
  QVERIFY2(readMeshFile(test::modelPath("meshes/l-block.obj"), block, e), e.format().c_str());
  QCOMPARE(int(block.vertices.size()), 12);
  QCOMPARE(int(block.triangles.size()), 8 + 6 * 2);
}

void TestMeshFile::objFormsAreRead() {
  const std::string text =
      "# a comment\r\n"
      "mtllib x.mtl\r\n"
      "o thing\n"
      "v 0 0 0\n"
      "v\t1.5 -0 +2e-1   # trailing comment\n"
      "v 0 1 0 1.0\n"            // with w
      "v 0 0 1 0.5 0.5 0.5\n"    // with a colour
      "vn 0 0 1\n"
      "vt 0.5 0.5\n"
      "g part\n"
      "s off\n"
      "usemtl steel\n"
      "f 1/1/1 2/1/1 3/1/1\n"
      "f 1//1 -1//1 -2//1\n"     // negative indices: 4 and 3
      "f 1/2 2/2 4/2 3/2\n"      // a quad, fanned
      "l 1 2\n"
      "\n";
  MeshData m;
  MeshFileError e;
  QVERIFY2(readMeshBytes(text, MeshFormat::Obj, m, e), e.format().c_str());
  QCOMPARE(int(m.vertices.size()), 4);
  QCOMPARE(m.vertices[1], Vec3(1.5, 0, 0.2));
  QCOMPARE(m.vertices[2], Vec3(0, 1, 0));
  QCOMPARE(m.vertices[3], Vec3(0, 0, 1));
  QCOMPARE(int(m.triangles.size()), 4);
  QCOMPARE(m.triangles[0], (std::array<int, 3>{0, 1, 2}));
  QCOMPARE(m.triangles[1], (std::array<int, 3>{0, 3, 2}));
  QCOMPARE(m.triangles[2], (std::array<int, 3>{0, 1, 3}));
  QCOMPARE(m.triangles[3], (std::array<int, 3>{0, 3, 2}));
  // A point cloud (vertices only) is a mesh too.
  QVERIFY(readMeshBytes("v 1 2 3\nv 4 5 6", MeshFormat::Obj, m, e));
  QCOMPARE(int(m.vertices.size()), 2);
  QVERIFY(m.triangles.empty());
}

void TestMeshFile::objErrorsSayWhereAndWhy_data() {
  QTest::addColumn<QString>("text");
  QTest::addColumn<QString>("error");
  QTest::newRow("not a number") << "v 0 0 0\nv 1 abc 0\n" << "2:5: 'abc' is not a number";
  QTest::newRow("trailing garbage") << "v 1.0x 0 0\n" << "1:3: '1.0x' is not a number";
  QTest::newRow("comma decimal") << "v 0 0 0\n  v 0,5 0 0\n" << "2:5: '0,5' is not a number";
  QTest::newRow("nan") << "v 0 0 0\nv 0 nan 0\n" << "2:5: coordinate 'nan' is not finite";
  QTest::newRow("inf") << "v -inf 0 0\n" << "1:3: coordinate '-inf' is not finite";
  QTest::newRow("out of range") << "v 1e999 0 0\n" << "1:3: '1e999' is out of the range of a double";
  QTest::newRow("two coordinates") << "v 0 0 0\nv 1 2\n" << "2:1: a vertex needs 3 coordinates (got 2)";
  QTest::newRow("bad w") << "v 1 2 3 w\n" << "1:9: 'w' is not a number";
  QTest::newRow("index 0") << "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n" << "4:3: face index 0 (OBJ indices start at 1)";
  QTest::newRow("index too large") << "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n"
                                   << "4:7: face index 4 refers to a vertex not defined before this line (3 vertices so far)";
  QTest::newRow("negative too far") << "v 0 0 0\nv 1 0 0\nv 0 1 0\nf -1 -2 -4\n"
                                    << "4:9: face index -4 counts back past the first vertex (3 vertices so far)";
  QTest::newRow("two corners") << "v 0 0 0\nv 1 0 0\nf 1 2\n" << "3:1: a face needs at least 3 corners (got 2)";
  QTest::newRow("corner text") << "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 x/1\n" << "4:7: face corner 'x/1' does not start with a vertex index";
  QTest::newRow("empty corner") << "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 /3\n" << "4:7: face corner '/3' does not start with a vertex index";
  QTest::newRow("no vertices") << "# only a comment\nvn 0 0 1\n" << "the file has no vertices ('v x y z' lines)";
  QTest::newRow("empty") << "" << "the file has no vertices ('v x y z' lines)";
}

void TestMeshFile::objErrorsSayWhereAndWhy() {
  QFETCH(QString, text);
  QFETCH(QString, error);
  QCOMPARE(QString::fromStdString(errorOf(text.toStdString(), MeshFormat::Obj)), error);
}

void TestMeshFile::binaryStlIsDetectedBySize() {
  // A binary STL whose header starts with "solid" (as some exporters write) is still binary: its
  // size is exactly 84 + 50·count.
  for (const std::string header : {"solid tetrahedron exported by a CAD program", "binary tetrahedron"}) {
    MeshData m;
    MeshFileError e;
    QVERIFY2(readMeshBytes(binaryStl(tetrahedron(), header), MeshFormat::Stl, m, e), e.format().c_str());
    QCOMPARE(int(m.vertices.size()), 4);  // 12 corners, merged
    QCOMPARE(int(m.triangles.size()), 4);
    QCOMPARE(m.vertices[0], Vec3(0, 0, 0));
    QCOMPARE(m.vertices[1], Vec3(0, 1, 0));
    QCOMPARE(m.triangles[3], (std::array<int, 3>{2, 1, 3}));
  }
}

void TestMeshFile::asciiStlIsRead() {
  const std::string text =
      "solid two parts\n"
      "  facet normal 0 0 -1\n"
      "    outer loop\n"
      "      vertex 0 0 0\n"
      "      vertex 0 1 0\n"
      "      vertex 1 0 0\n"
      "    endloop\n"
      "  endfacet\n"
      "  facet normal nan nan nan\n"  // some exporters write this for degenerate facets
      "    outer loop\n"
      "      vertex 0 0 0\n"
      "      vertex 1 0 0\n"
      "      vertex 1e0 0.0 1\n"
      "      vertex 0 0 1\n"           // a quad, fanned
      "    endloop\n"
      "  endfacet\n"
      "endsolid two parts\r\n"
      "solid second\n"
      "facet normal 0 0 1 outer loop vertex 0 0 1 vertex 1 0 1 vertex 0 1 1 endloop endfacet\n"
      "endsolid\n";
  MeshData m;
  MeshFileError e;
  QVERIFY2(readMeshBytes(text, MeshFormat::Stl, m, e), e.format().c_str());
  QCOMPARE(int(m.vertices.size()), 6);
  QCOMPARE(int(m.triangles.size()), 4);
  QCOMPARE(m.vertices[4], Vec3(0, 0, 1));
  QCOMPARE(m.triangles[2], (std::array<int, 3>{0, 3, 4}));
}

void TestMeshFile::stlErrorsSayWhereAndWhy_data() {
  QTest::addColumn<QByteArray>("bytes");
  QTest::addColumn<QString>("error");
  const std::string good = binaryStl(tetrahedron(), "tetra");
  const auto bytes = [](const std::string& s) { return QByteArray(s.data(), int(s.size())); };
  QTest::newRow("truncated") << bytes(good.substr(0, good.size() - 7))
                             << "byte 234: truncated binary STL: the header announces 4 triangles (284 bytes) but the file has 277 bytes (triangle 4 is incomplete)";
  std::string solidTruncated = binaryStl(tetrahedron(), "solid but binary");
  solidTruncated.resize(200);
  QTest::newRow("truncated, header 'solid'") << bytes(solidTruncated)
                                            << "byte 184: truncated binary STL: the header announces 4 triangles (284 bytes) but the file has 200 bytes (triangle 3 is incomplete)";
  QTest::newRow("too short") << bytes(std::string(50, '\x01'))
                             << "byte 50: not an STL file: 50 bytes is shorter than the 84-byte header of a binary STL, and it does not read as an ASCII STL";
  QTest::newRow("trailing bytes") << bytes(good + std::string(3, '\0'))
                                  << "byte 284: binary STL with 3 bytes after its last triangle (the header announces 4 triangles)";
  std::string nan = good;
  const float q = std::numeric_limits<float>::quiet_NaN();
  std::memcpy(&nan[84 + 50 * 2 + 12 + 12 * 1 + 4 * 2], &q, 4);  // triangle 3, corner 2, z
  QTest::newRow("nan") << bytes(nan) << "byte 216: coordinate z of corner 2 of triangle 3 is not finite";
  QTest::newRow("empty") << QByteArray() << "byte 0: not an STL file: 0 bytes is shorter than the 84-byte header of a binary STL, and it does not read as an ASCII STL";
  QTest::newRow("no triangles") << bytes(binaryStl({}, "nothing")) << "byte 80: the binary STL has no triangles";
  // ASCII.
  const std::string head = "solid s\n facet normal 0 0 1\n  outer loop\n";
  QTest::newRow("ascii bad number") << bytes(head + "   vertex 0 0x 0\n") << "4:13: '0x' is not a number";
  QTest::newRow("ascii nan vertex") << bytes(head + "   vertex 0 0 nan\n") << "4:15: coordinate 'nan' is not finite";
  QTest::newRow("ascii two vertices") << bytes(head + "   vertex 0 0 0\n   vertex 1 0 0\n  endloop\n")
                                      << "6:3: a facet needs at least 3 vertices (got 2)";
  QTest::newRow("ascii missing endloop") << bytes(head + "   vertex 0 0 0\n   vertex 1 0 0\n   vertex 0 1 0\n  endfacet\n")
                                         << "7:3: expected 'endloop', got 'endfacet'";
  QTest::newRow("ascii misspelt") << bytes("solid s\n facet normal 0 0 1\n  outer lop\n") << "3:9: expected 'loop', got 'lop'";
  QTest::newRow("ascii truncated") << bytes(head + "   vertex 0 0 0\n   vertex 1 0")
                                   << "5:14: unexpected end of file: expected a number";
  QTest::newRow("ascii no endsolid") << bytes(head + "   vertex 0 0 0\n   vertex 1 0 0\n   vertex 0 1 0\n  endloop\n endfacet\n")
                                     << "8:10: unexpected end of file: expected 'facet' or 'endsolid'";
  QTest::newRow("ascii no facets") << bytes("solid empty\nendsolid empty\n") << "the STL file has no facets";
  QTest::newRow("ascii garbage after") << bytes("solid a\nendsolid a\nhello\n") << "3:1: expected 'solid', got 'hello'";
}

void TestMeshFile::stlErrorsSayWhereAndWhy() {
  QFETCH(QByteArray, bytes);
  QFETCH(QString, error);
  QCOMPARE(QString::fromStdString(errorOf(bytes.toStdString(), MeshFormat::Stl)), error);
}

void TestMeshFile::unreadableFiles() {
  QTemporaryDir dir;
  QVERIFY(dir.isValid());
  const std::string base = dir.path().toStdString();
  MeshData m;
  MeshFileError e;
  // Missing: the path and the system's reason.
  QVERIFY(!readMeshFile(base + "/missing.obj", m, e));
  QCOMPARE(e.format(), "cannot open '" + base + "/missing.obj': No such file or directory");
  // A directory.
  QVERIFY(QDir(dir.path()).mkdir("folder.stl"));
  QVERIFY(!readMeshFile(base + "/folder.stl", m, e));
  QCOMPARE(e.format(), "cannot read '" + base + "/folder.stl': it is a directory");
  // Unknown extension, none (before the file is even opened).
  QVERIFY(!readMeshFile(base + "/part.ply", m, e));
  QCOMPARE(e.format(), std::string("unknown mesh file type '.ply' (meshes are read from .obj, .stl and .dae files)"));
  QVERIFY(!readMeshFile(base + "/part", m, e));
  QCOMPARE(e.format(), std::string("a mesh file name needs an extension (meshes are read from .obj, .stl and .dae files)"));
  // The extension's case does not matter; a malformed file reports its line:column.
  {
    std::ofstream(base + "/UPPER.OBJ") << "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n";
    std::ofstream(base + "/bad.obj") << "v 0 0 0\nv 1 0 zero\n";
  }
  QVERIFY2(readMeshFile(base + "/UPPER.OBJ", m, e), e.format().c_str());
  QCOMPARE(int(m.vertices.size()), 4);
  QVERIFY(!readMeshFile(base + "/bad.obj", m, e));
  QCOMPARE(e.line, 2);
  QCOMPARE(e.column, 7);
  QCOMPARE(e.format(), std::string("2:7: 'zero' is not a number"));
  // A binary STL's error has a byte offset and no line.
  {
    std::ofstream out(base + "/cut.stl", std::ios::binary);
    const std::string s = binaryStl(tetrahedron(), "cut");
    out << s.substr(0, 150);
  }
  QVERIFY(!readMeshFile(base + "/cut.stl", m, e));
  QCOMPARE(e.byteOffset, 134LL);
  QCOMPARE(e.line, 0);
}

// A COLLADA file as ROS robots have them: millimetres, y up, a geometry placed twice by nested
// nodes (matrix, translate, rotate, scale, instance_node), triangles and a polylist quad.
void TestMeshFile::colladaSceneIsRead() {
  const std::string dae = R"(<?xml version="1.0"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><unit meter="0.001"/><up_axis>Y_UP</up_axis></asset>
  <library_geometries>
    <geometry id="g"><mesh>
      <source id="g-pos"><float_array id="g-arr" count="15">0 0 0 100 0 0 0 100 0 100 100 0 9 9 9</float_array>
        <technique_common><accessor source="#g-arr" count="4" stride="3"/></technique_common></source>
      <vertices id="g-v"><input semantic="POSITION" source="#g-pos"/></vertices>
      <triangles count="1"><input semantic="VERTEX" source="#g-v" offset="0"/><input semantic="NORMAL" source="#n" offset="1"/><p>0 0 1 0 2 0</p></triangles>
      <polylist count="1"><input semantic="VERTEX" source="#g-v" offset="0"/><vcount>4</vcount><p>0 1 3 2</p></polylist>
    </mesh></geometry>
  </library_geometries>
  <library_nodes><node id="lib"><translate>0 0 10</translate><instance_geometry url="#g"/></node></library_nodes>
  <library_visual_scenes><visual_scene id="s">
    <node><matrix>1 0 0 5  0 1 0 0  0 0 1 0  0 0 0 1</matrix><instance_geometry url="#g"/>
      <node><rotate>0 0 1 90</rotate><scale>2 2 2</scale><instance_node url="#lib"/></node>
    </node>
  </visual_scene></library_visual_scenes>
  <scene><instance_visual_scene url="#s"/></scene>
</COLLADA>)";
  MeshData m;
  MeshFileError e;
  QVERIFY2(readMeshBytes(dae, MeshFormat::Collada, m, e), e.format().c_str());
  // Two placements of 4 positions (the accessor's count, not the array's 5); 1 + 2 triangles each.
  QCOMPARE(int(m.vertices.size()), 8);
  QCOMPARE(int(m.triangles.size()), 6);
  // File frame (mm, y up) → metres, z up: (x, y, z) → 0.001 (x, −z, y). First placement: x + 5.
  const auto near = [](const Vec3& a, const Vec3& b) { return (a - b).norm() < 1e-12; };
  QVERIFY(near(m.vertices[1], Vec3(0.105, 0, 0)));
  QVERIFY(near(m.vertices[2], Vec3(0.005, 0, 0.1)));
  // Second: translate (5,0,0), rotate 90° about z, scale 2, translate (0,0,10), in file units.
  // (100, 0, 0) → (0, 0, 10) + … = (100,0,10) → ×2 (200,0,20) → rot (0,200,20) → +5x (5,200,20).
  QVERIFY(near(m.vertices[5], Vec3(0.005, -0.020, 0.200)));
  QCOMPARE(m.triangles[3], (std::array<int, 3>{4, 5, 6}));
  QCOMPARE(m.triangles[4], (std::array<int, 3>{4, 5, 7}));
  // Positions no triangle uses (an exporter's leftovers) do not count: 3 of 5 here.
  const std::string sparse = "<COLLADA><library_geometries><geometry id=\"g\"><mesh>"
                             "<source id=\"p\"><float_array>9 9 9 0 0 0 1 0 0 0 1 0 -9 -9 -9</float_array></source>"
                             "<vertices id=\"v\"><input semantic=\"POSITION\" source=\"#p\"/></vertices>"
                             "<triangles><input semantic=\"VERTEX\" source=\"#v\" offset=\"0\"/><p>1 2 3</p></triangles>"
                             "</mesh></geometry></library_geometries></COLLADA>";
  QVERIFY2(readMeshBytes(sparse, MeshFormat::Collada, m, e), e.format().c_str());
  QCOMPARE(int(m.vertices.size()), 3);
  QCOMPARE(m.vertices[1], Vec3(1, 0, 0));
  QCOMPARE(m.triangles[0], (std::array<int, 3>{0, 1, 2}));
}

void TestMeshFile::colladaErrorsSayWhereAndWhy() {
  MeshData m;
  MeshFileError e;
  QVERIFY(!readMeshBytes("<robot/>", MeshFormat::Collada, m, e));
  QCOMPARE(e.format(), std::string("1:1: the root element is <robot>, not <COLLADA>"));
  QVERIFY(!readMeshBytes("<COLLADA><a></COLLADA>", MeshFormat::Collada, m, e));
  QVERIFY(e.message.rfind("not an XML file", 0) == 0);
  const std::string head = "<COLLADA>\n<library_geometries><geometry id=\"g\"><mesh>\n"
                           "<source id=\"p\"><float_array>0 0 0 1 0 0 0 1 x</float_array></source>\n"
                           "<vertices id=\"v\"><input semantic=\"POSITION\" source=\"#p\"/></vertices>\n";
  QVERIFY(!readMeshBytes(head + "</mesh></geometry></library_geometries></COLLADA>", MeshFormat::Collada, m, e));
  QCOMPARE(e.format(), std::string("3:1: <float_array>: 'x' is not a finite number"));
  std::string bad = head;
  bad.replace(bad.find(" x<"), 3, " 0<");
  QVERIFY(!readMeshBytes(bad + "<triangles><input semantic=\"VERTEX\" source=\"#v\" offset=\"0\"/>\n<p>0 1 3</p></triangles>"
                               "</mesh></geometry></library_geometries></COLLADA>",
                         MeshFormat::Collada, m, e));
  QCOMPARE(e.format(), std::string("6:1: a vertex index of <triangles> is not one of its 3 positions"));
  QVERIFY(m.vertices.empty());
  QVERIFY(!readMeshBytes("<COLLADA><asset/></COLLADA>", MeshFormat::Collada, m, e));
  QCOMPARE(e.format(), std::string("the COLLADA file places no mesh vertices"));
}

QTEST_APPLESS_MAIN(TestMeshFile)
#include "tst_mesh_file.moc"
